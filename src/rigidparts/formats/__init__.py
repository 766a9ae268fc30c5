"""Reading robot description files (URDF, MJCF, SDFormat, USD) into the neutral
:class:`~rigidparts.formats.description.Description`, and from it into a Model.

:func:`load_model` is ``rp.load_model``: a rigidparts model file (``.toml``) or a robot
description file, chosen by the suffix (``.urdf``; ``.xml`` / ``.mjcf`` for MJCF; ``.sdf`` /
``.world``; ``.usd``, ``.usda``, ``.usdc``); :func:`read_description` gives the file as read
(declared inertials, geometry, joints), which ``rigidparts check`` compares and repairs.
"""

from __future__ import annotations

import os
from importlib import import_module
from pathlib import Path
from typing import Any

from ..errors import ModelError, ParameterError

__all__ = ["FORMATS", "ROOTS", "format_of", "load_model", "read_description"]

#: Suffix -> reader module (``rigidparts.formats.<name>``), whose ``read(path, *,
#: search_path=())`` returns a :class:`~rigidparts.formats.description.Description`.
FORMATS = {
    ".urdf": "urdf",
    ".xml": "mjcf",
    ".mjcf": "mjcf",
    ".sdf": "sdf",
    ".world": "sdf",
    ".usd": "usd",
    ".usda": "usd",
    ".usdc": "usd",
    ".usdz": "usd",
}


#: STEP files (an assembly read as a model of exact B-rep solids, :mod:`.step`).
STEP_SUFFIXES = (".step", ".stp")

#: A ``.xml`` file's root element -> its format (MuJoCo's, URDF's and SDFormat's roots).
ROOTS = {"mujoco": "mjcf", "robot": "urdf", "sdf": "sdf"}


def format_of(path: str | os.PathLike[str]) -> str:
    """The reader's name for ``path``: by its suffix, and for ``.xml`` by its root element
    (``<mujoco>``, ``<robot>``, ``<sdf>``; anything else is read as MJCF, which names the
    problem). ModelError naming the file for an unknown suffix."""
    suffix = Path(path).suffix.lower()
    if suffix == ".toml":
        raise ModelError(
            "path",
            os.fspath(path),
            "is a rigidparts model file: rp.load_model and the export, view and simulate "
            "commands read it; this reads robot description files (URDF, MJCF, SDFormat, USD)",
        )
    if suffix == ".xml":
        return ROOTS.get(_root_tag(path), "mjcf")
    try:
        return FORMATS[suffix]
    except KeyError:
        known = ", ".join(sorted(FORMATS))
        raise ModelError(
            "path", os.fspath(path), f"unknown model file suffix {suffix!r}: one of {known}"
        ) from None


def _root_tag(path: str | os.PathLike[str]) -> str | None:
    """The name of the root element of an XML file (None when it has none that parses: the
    reader then says why)."""
    import xml.etree.ElementTree as ET

    try:
        for _, element in ET.iterparse(os.fspath(path), events=("start",)):
            return element.tag.rpartition("}")[2]
    except (ET.ParseError, OSError):
        return None
    return None


def read_description(path: str | os.PathLike[str], *, search_path: Any = ()) -> Any:
    """The :class:`~rigidparts.formats.description.Description` of a URDF, MJCF, SDFormat or
    USD file (by :func:`format_of`), as declared: nothing validated, nothing repaired.
    ModelError naming the file when it is missing or a folder."""
    if Path(path).is_dir():
        raise ModelError("file", os.fspath(path), "is a folder (give a robot description file)")
    name = format_of(path)
    if not Path(path).is_file():
        raise ModelError("file", os.fspath(path), "does not exist (give a robot description file)")
    reader = import_module(f"{__name__}.{name}")
    return reader.read(path, search_path=tuple(search_path))


def load_model(
    path: str | os.PathLike[str],
    *,
    search_path: Any = (),
    as_one_body: bool = False,
    units: str | None = None,
    material: Any = None,
) -> Any:
    """A :class:`~rigidparts.Model` from a rigidparts model file (``.toml``), a robot
    description file (URDF, MJCF, SDFormat, USD: :mod:`rigidparts.formats.to_model`) or a STEP
    assembly (``.step``, ``.stp``: each solid a :class:`~rigidparts.StepBody`; with
    ``as_one_body`` one body, the solids fused; ``units`` the length unit of a STEP file that
    states none; ``material`` its solids' material: one for all, ``{solid or part name:
    material or density}`` or the text ``"plate=aluminium,*=steel"``, default steel).
    ``search_path``: folders where ``package://`` and ``model://`` meshes are looked for."""
    suffix = Path(path).suffix.lower()
    for name, value, rule in (
        ("as_one_body", as_one_body, "fuses the solids of"),
        ("units", units, "is the length unit of"),
        ("material", material, "is the material of the solids of"),
    ):
        if value and suffix not in STEP_SUFFIXES:
            raise ParameterError(
                name, value, f"{rule} a STEP file (.step, .stp); {os.fspath(path)} is not one"
            )
    if suffix == ".toml":
        from ..model import load_model as load_toml

        return load_toml(path)
    if suffix in STEP_SUFFIXES:  # exact solids: each a StepBody, straight into a Model
        from .step import load_model as load_step

        return load_step(
            path, units=units, material=material, search_path=search_path, as_one_body=as_one_body
        )
    if suffix not in FORMATS and suffix != ".xml":  # every model file this reads, named
        known = ", ".join(sorted({*FORMATS, ".toml", *STEP_SUFFIXES}))
        raise ModelError(
            "path", os.fspath(path), f"unknown model file suffix {suffix!r}: one of {known}"
        )
    from .to_model import model_from_description

    return model_from_description(read_description(path, search_path=search_path))
