"""Arguments of a batch function: parsed to SI arrays and broadcast to N rows.

:func:`parse` turns the keywords of a shape's public class (each a scalar or an array, with
or without units) into arrays by name, driven by the shape's specification: its dimensions
(each of its ``Param.kind``), ``density`` or ``mass`` (exactly one, from ``material``,
``density`` or ``mass``, as :func:`rigidparts.density.material_source` decides for one
body), and ``axis``, ``height_direction`` and ``rotate90`` as the shape takes them.
:func:`row_count` finds N (naming the first argument that does not broadcast) and
:func:`broadcast_rows` gives read-only (N,) / (N, 3) views without copies.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..density import material_source
from ..errors import ParameterError
from ..materials import Material, get_material
from ..shapes import ShapeSpec
from ..units import to_si_array

__all__ = ["VECTORS", "Parsed", "broadcast_rows", "is_dask", "parse", "row_count"]

#: Arguments whose rows are 3-vectors: (3,) or (N, 3).
VECTORS = ("axis", "height_direction")
ON_INVALID = ("raise", "mask")
ENGINES = ("auto", "numba", "numpy")


@dataclass(frozen=True)
class Parsed:
    """A batch call's arguments in SI (arrays not yet broadcast) and its options."""

    inputs: dict[str, Any]
    by_mass: bool
    explicit_height: bool
    on_invalid: str
    engine: str
    threads: bool = True


def is_dask(value: Any) -> bool:
    """True for a dask array (without importing dask)."""
    return hasattr(value, "dask") and hasattr(value, "chunks")


def parse(spec: ShapeSpec, arguments: Mapping[str, Any]) -> Parsed:
    """The arguments of ``spec``'s batch function (every keyword present) as SI arrays by
    name: the dimensions, ``density`` (kg/m^3) or ``mass`` (kg), and ``axis``,
    ``height_direction`` (zeros when None: the rule), ``rotate90`` as the shape takes them.
    ParameterError naming the keyword for anything malformed."""
    on_invalid, engine = arguments["on_invalid"], arguments["engine"]
    if on_invalid not in ON_INVALID:
        raise ParameterError("on_invalid", on_invalid, "must be 'raise' or 'mask'")
    if engine not in ENGINES:
        raise ParameterError("engine", engine, "must be 'auto', 'numba' or 'numpy'")
    threads = arguments.get("threads", True)
    if not isinstance(threads, bool | np.bool_):
        raise ParameterError("threads", threads, "must be True or False")
    extra_frames = arguments.get("extra_frames")
    if extra_frames is not None and (isinstance(extra_frames, str) or len(extra_frames) > 0):
        raise ParameterError(
            "extra_frames",
            extra_frames,
            "is not supported by the batch functions (frames do not change the mass "
            "properties; place them from the axis)",
        )

    inputs: dict[str, Any] = {
        p.name: to_si_array(p.name, arguments[p.name], p.kind) for p in spec.params
    }
    material, density, mass = arguments["material"], arguments["density"], arguments["mass"]
    source = material_source(material, density, mass)
    if source == "mass":
        inputs["mass"] = to_si_array("mass", mass, "mass")
    elif source == "density":
        inputs["density"] = to_si_array("density", density, "density")
    else:
        inputs["density"] = _material_densities(material)
    explicit_height = False
    if spec.axis:
        inputs["axis"] = _direction_array("axis", arguments["axis"])
    if spec.cross_section:
        height_direction = arguments["height_direction"]
        explicit_height = height_direction is not None
        inputs["height_direction"] = (
            _direction_array("height_direction", height_direction)
            if explicit_height
            else np.zeros(3)
        )
        inputs["rotate90"] = _bool_array("rotate90", arguments["rotate90"])
    return Parsed(inputs, source == "mass", explicit_height, on_invalid, engine, bool(threads))


def _direction_array(name: str, value: Any) -> Any:
    if is_dask(value):
        array = value.astype(np.float64)
    else:
        try:
            array = np.asarray(value, dtype=np.float64)
        except (TypeError, ValueError):
            raise ParameterError(
                name, value, "must be a 3-vector or an (N, 3) array of numbers"
            ) from None
    if array.ndim not in (1, 2) or array.shape[-1] != 3:
        raise ParameterError(
            name, value, f"must have shape (3,) or (N, 3), got {tuple(array.shape)}"
        )
    return array


def _bool_array(name: str, value: Any) -> Any:
    array = value if is_dask(value) else np.asarray(value)
    if array.dtype != np.bool_:
        raise ParameterError(name, value, "must be True or False (or an array of booleans)")
    return array


def _material_densities(material: Any) -> np.ndarray:
    """Per-row density (kg/m^3) from one material or an array of names (one lookup per
    distinct name)."""
    if isinstance(material, Material):
        return np.asarray(material.density)
    if isinstance(material, str):  # also the default material, a str
        return np.asarray(get_material(material).density)
    if is_dask(material):
        raise ParameterError(
            "material", material, "must be a name or a numpy array of names, not a dask array"
        )
    names = np.asarray(material, dtype=object)
    if names.ndim != 1:
        raise ParameterError("material", material, "must be a name or a 1-D array of names")
    densities = np.empty(names.shape[0])
    known: dict[str, float] = {}
    for i, item in enumerate(names.tolist()):
        if isinstance(item, Material):
            densities[i] = item.density
            continue
        if not isinstance(item, str):
            raise ParameterError("material", item, "must be a material name (a string)", index=i)
        value = known.get(item)
        if value is None:
            try:
                value = known[item] = get_material(item).density
            except ParameterError as exc:
                raise ParameterError("material", item, exc.rule, index=i) from None
        densities[i] = value
    return densities


def row_count(arrays: Mapping[str, Any]) -> int:
    """N: the broadcast length of every input's rows; names the first one that disagrees."""
    n = None
    first = ""
    for name, array in arrays.items():
        rows = array.shape[:-1] if name in VECTORS else array.shape
        if len(rows) > 1:
            raise ParameterError(
                name, f"<array of shape {tuple(array.shape)}>", "must be a scalar or 1-D "
                "(flatten a grid with .ravel() and reshape the results)"
            )  # fmt: skip
        if not rows or rows[0] == 1:
            continue
        length = rows[0]
        if isinstance(length, float) and math.isnan(length):
            raise ParameterError(name, "<dask array>", "must have known chunk sizes")
        if n is None:
            n = int(length)
            first = name
        elif int(length) != n:
            raise ParameterError(
                name,
                f"<array of length {int(length)}>",
                f"does not broadcast with {first} (length {n})",
            )
    return 1 if n is None else n


def broadcast_rows(inputs: Mapping[str, np.ndarray], n: int) -> dict[str, np.ndarray]:
    """Read-only (N,) / (N, 3) views of every input (no copies: scalars get stride 0)."""
    return {
        name: rows_view(array, (n, 3) if name in VECTORS else (n,))
        for name, array in inputs.items()
    }


def rows_view(array: np.ndarray, target: tuple[int, ...]) -> np.ndarray:
    """``np.broadcast_to(array, target)`` (read-only, no copy) for the two cases here -- an
    array of the target's shape, or one row to repeat -- at a fraction of its cost."""
    if array.shape == target:
        view = array.view()
    else:
        row = array.reshape(target[1:])
        if not row.flags.c_contiguous:
            row = row.copy()
        view = np.ndarray(target, row.dtype, buffer=row, strides=(0, *row.strides))
    view.flags.writeable = False
    return view
