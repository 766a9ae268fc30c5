"""The material table: typical densities of common engineering materials.

The table ships with the package as ``rigidparts/data/materials.toml``: one TOML table per
material, keyed by its canonical name (``steel``, ``aluminium_6061_t6``, ``pom``, ...), each with

* ``density`` -- in **kg/m^3**, a typical room-temperature value (about 20 C unless the
  description says otherwise);
* ``aliases`` -- other accepted names (``"aluminum"``, ``"al6061"``, ``"delrin"``, ...);
* ``description`` -- what the value stands for (grade, temper, state);
* ``source`` -- where the value comes from (handbook, standard or data sheet).

``steel`` is 7860 kg/m^3, the default density of the original multibody tool.

The values are nominal: alloys vary by about a percent, polymers by a few percent with grade and
filler, wood and concrete by ten percent or more. Pass a measured density when it matters.

Look a material up with :func:`get_material`, which ignores case, whitespace, underscores and
hyphens (``"Aluminum"``, ``"ALUMINIUM"``, ``"stainless_steel_304"``, ``"Ti-6Al-4V"``), list them
with :func:`list_materials`, or read the read-only mapping :data:`MATERIALS` (canonical name ->
:class:`Material`). The file is read and checked once, on first use.
"""

from __future__ import annotations

import functools
import math
import os
import types
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .errors import ParameterError

__all__ = ["DEFAULT_MATERIAL", "MATERIALS", "Material", "get_material", "list_materials"]

_DATA_PACKAGE = __package__ or "rigidparts"
_DATA_FILE = ("data", "materials.toml")
_KNOWN_KEYS = frozenset({"density", "aliases", "description", "source"})
_SEPARATORS = str.maketrans("", "", " \t\n\r\f\v_-")


@dataclass(frozen=True)
class Material:
    """One entry of the material table.

    Attributes
    ----------
    name : str
        Canonical name (the TOML table key), e.g. ``"aluminium_6061_t6"``.
    density : float
        Density in kg/m^3.
    source : str
        Where the density comes from.
    description : str
        What the value stands for (grade, temper, state).
    aliases : tuple[str, ...]
        Other names accepted by :func:`get_material`.
    """

    name: str
    density: float
    source: str
    description: str
    aliases: tuple[str, ...]


class _DefaultMaterial(str):
    """The default material name, told apart from the same name given explicitly."""

    __slots__ = ()


#: The default ``material`` of every body ("steel"); only this very object counts as "not
#: given", so that ``material="steel", density=...`` is still two ways at once.
DEFAULT_MATERIAL = _DefaultMaterial("steel")


if TYPE_CHECKING:
    MATERIALS: Mapping[str, Material]


def _normalize(name: str) -> str:
    """Lookup key: lower case, without whitespace, underscores or hyphens."""
    return name.casefold().translate(_SEPARATORS)


def _bad(entry: str, problem: str) -> RuntimeError:
    return RuntimeError(
        f"rigidparts data file {'/'.join(_DATA_FILE)}: entry [{entry}] {problem} "
        "(a packaging bug; please report it)"
    )


def _parse_entry(name: str, raw: Any) -> Material:
    if not isinstance(raw, dict):
        raise _bad(name, "is not a table")
    unknown = sorted(set(raw) - _KNOWN_KEYS)
    if unknown:
        raise _bad(name, f"has unknown keys {unknown}")

    density = raw.get("density")
    if isinstance(density, bool) or not isinstance(density, int | float):
        raise _bad(name, f"has density={density!r}; it must be a number in kg/m^3")
    density = float(density)
    if not (math.isfinite(density) and density > 0.0):
        raise _bad(name, f"has density={density!r}; it must be positive and finite")

    source = raw.get("source")
    if not isinstance(source, str) or not source.strip():
        raise _bad(name, "has no source; every density must say where it comes from")

    description = raw.get("description", "")
    if not isinstance(description, str):
        raise _bad(name, f"has description={description!r}; it must be a string")

    aliases = raw.get("aliases", [])
    if not isinstance(aliases, list) or not all(
        isinstance(alias, str) and _normalize(alias) for alias in aliases
    ):
        raise _bad(name, f"has aliases={aliases!r}; they must be a list of non-empty strings")

    return Material(
        name=name,
        density=density,
        source=source.strip(),
        description=description.strip(),
        aliases=tuple(aliases),
    )


@functools.cache
def _load() -> tuple[types.MappingProxyType[str, Material], types.MappingProxyType[str, str]]:
    """Read and check the data file once.

    Returns the table (canonical name -> Material) and the lookup index (normalized name or
    alias -> canonical name).
    """
    import tomllib  # only when the table is first needed (start-up)

    try:
        raw = tomllib.loads(_data_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise RuntimeError(
            f"rigidparts data file {'/'.join(_DATA_FILE)} cannot be read: {exc} "
            "(a packaging bug; please report it)"
        ) from exc

    table: dict[str, Material] = {}
    index: dict[str, str] = {}
    for name in sorted(raw):
        material = _parse_entry(name, raw[name])
        for label in (name, *material.aliases):
            key = _normalize(label)
            if not key:
                raise _bad(name, f"has an empty name or alias {label!r}")
            owner = index.get(key)
            if owner == name:
                raise _bad(name, f"lists the name {label!r} twice (ignoring case and separators)")
            if owner is not None:
                raise _bad(name, f"reuses the name {label!r}, already taken by [{owner}]")
            index[key] = name
        table[name] = material
    if not table:
        raise _bad("*", "is missing: the table is empty")
    return types.MappingProxyType(table), types.MappingProxyType(index)


def _data_text() -> str:
    """The data file's text: read beside this module (the common, installed case), else
    through :mod:`importlib.resources` (a zipped package)."""
    path = os.path.join(os.path.dirname(__file__), *_DATA_FILE)
    if os.path.isfile(path):
        with open(path, encoding="utf-8") as file:
            return file.read()
    from importlib import resources

    resource = resources.files(_DATA_PACKAGE)
    for part in _DATA_FILE:
        resource = resource.joinpath(part)
    return resource.read_text(encoding="utf-8")


def __getattr__(attr: str) -> Any:
    # MATERIALS is built lazily, on first access, so importing the module reads no file.
    if attr == "MATERIALS":
        return _load()[0]
    raise AttributeError(f"module {__name__!r} has no attribute {attr!r}")


def get_material(name: str, parameter: str = "material") -> Material:
    """Look up a material by canonical name or alias.

    The lookup ignores case, whitespace, underscores and hyphens, so ``"Aluminum"``,
    ``"ALUMINIUM"`` and ``"stainless_steel_304"`` all work.

    Parameters
    ----------
    name : str
        Material name or alias.
    parameter : str
        Keyword of the caller's parameter, used in the error message.

    Raises
    ------
    ParameterError
        If ``name`` is not a string, or names no material (the message suggests close matches).
    """
    if not isinstance(name, str):
        raise ParameterError(parameter, name, "must be a material name (a string)")
    table, index = _load()
    canonical = index.get(_normalize(name))
    if canonical is not None:
        return table[canonical]
    raise ParameterError(parameter, name, f"unknown material; {_suggest(name, table)}")


def list_materials() -> list[Material]:
    """All materials, sorted by canonical name."""
    table, _ = _load()
    return [table[name] for name in sorted(table)]


def _suggest(name: str, table: Mapping[str, Material]) -> str:
    # normalized label -> (spelling shown to the user, canonical name)
    labels: dict[str, tuple[str, str]] = {}
    for material in table.values():
        for label in (material.name, *material.aliases):
            labels.setdefault(_normalize(label), (label, material.name))
    import difflib  # only for a misspelt name

    close = difflib.get_close_matches(_normalize(name), list(labels), n=len(labels), cutoff=0.6)
    shown: list[str] = []
    seen: set[str] = set()
    for key in close:  # best match first; one suggestion per material, at most three
        label, canonical = labels[key]
        if canonical not in seen:
            seen.add(canonical)
            shown.append(f"'{label}'")
        if len(shown) == 3:
            break
    if not shown:
        return "see 'rigidparts materials' for the list"
    return f"did you mean {', '.join(shown)}? ('rigidparts materials' lists them all)"
