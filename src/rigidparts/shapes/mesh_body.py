"""A body from a CAD file: the solid bounded by a closed triangle mesh (tier 2).

Parameters: ``mesh`` (kind ``path``: a file path, STL binary or ASCII, OBJ, PLY, OFF, glTF/GLB,
read with trimesh, or a ``trimesh.Trimesh``) and ``units`` (kind ``text``: the length unit of
the file's coordinates, ``"mm"``, ``"m"``, ``"in"``, ...). STL, OBJ, PLY, OFF and a Trimesh carry
no unit, so for them ``units`` is required; glTF is in metres by its specification.

The canonical frame C is frame_a: the file's origin and axes (no axis, no frame_b; user-named
frames through ``frames=``). The mass properties are the exact integrals over the solid the
mesh bounds (:mod:`rigidparts.polyhedron`), in the file's unit, then scaled to SI: volume
``f^3 V``, centroid ``f c``, second moment ``f^5 S`` for a unit of ``f`` metres.

Meshes as found in the wild are classified and what was done is reported
(:mod:`rigidparts.shapes._mesh_repair`, ``body.mesh_report``): closed and consistently wound
(used as it is), inside-out (flipped), closed up to a welding tolerance (``weld``, relative to
the part's size, default 1e-9: vertices merged, the result exact for the welded mesh), several
shells (nested ones as cavities, overlapping ones unioned with manifold3d, never summed), small
holes (capped, with a bound on the effect). Anything else (a missing, unreadable or empty file,
a binary STL shorter than its header says, non-finite coordinates, an open surface with large
holes, non-manifold edges, inconsistent winding, no volume) is a
:class:`~rigidparts.errors.ParameterError` naming the file and the defect, or with ``hull=True``
the convex hull, the volume difference stated. A file is read and checked once (cached by its
path, size, modification time and the options).
"""

from __future__ import annotations

import math
import os
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ParameterError
from ..inertia import MassProperties
from ..polyhedron import MeshDefect, PolyhedronIntegrals
from ..units import length_unit_metres
from ._mesh_repair import DEFAULT_WELD
from ._spec import (
    UNREPRESENTABLE_RULE,
    Param,
    Rule,
    ShapeSpec,
    register,
    rule_codes,
)

__all__ = ["FORMATS", "SPEC", "check", "example", "general_form", "load", "mesh", "report"]

#: Suffix -> (format name, its length unit or None when the format carries none).
FORMATS: dict[str, tuple[str, str | None]] = {
    ".stl": ("STL", None),
    ".obj": ("OBJ", None),
    ".ply": ("PLY", None),
    ".off": ("OFF", None),
    ".gltf": ("glTF", "m"),
    ".glb": ("glTF (GLB)", "m"),
}

RULES = (
    Rule(
        "mesh",
        "must be a mesh file (STL, OBJ, PLY, OFF, glTF/GLB: a path) or a trimesh.Trimesh; "
        "it has no default",
    ),
    Rule("units", "must be a length unit such as 'mm', 'm' or 'in' (the file's coordinates)"),
    Rule("weld", "must be a welding tolerance relative to the part's size, 0 <= weld < 0.01"),
    Rule("hull", "must be True or False (also 'yes' / 'no' on the command line)"),
)
MESH_GIVEN, UNITS_VALID, WELD_VALID, HULL_VALID = rule_codes(RULES)


def weld_tolerance(weld: Any) -> float | None:
    """The relative welding tolerance of ``weld`` (None: the default), None when invalid."""
    if weld is None:
        return DEFAULT_WELD
    if isinstance(weld, bool):
        return None
    try:
        value = float(weld)
    except (TypeError, ValueError):
        return None
    return value if 0.0 <= value < 0.01 else None


_TRUE = {"true", "yes", "1", "on"}
_FALSE = {"false", "no", "0", "off", ""}


def hull_flag(hull: Any) -> bool | None:
    """``hull`` as a bool (True, False or their words), None when invalid."""
    if isinstance(hull, bool | np.bool_):
        return bool(hull)
    if hull is None:
        return False
    if isinstance(hull, str):
        word = hull.strip().lower()
        if word in _TRUE:
            return True
        if word in _FALSE:
            return False
    return None


def _is_trimesh(value: Any) -> bool:
    return hasattr(value, "vertices") and hasattr(value, "faces") and not isinstance(value, str)


def check(mesh: Any, units: Any, weld: Any = None, hull: Any = False) -> int:
    """0, or the code of the first broken rule (Python only: a tier-2 shape is never
    compiled). The file itself is checked when it is read (:func:`load`)."""
    if not (isinstance(mesh, str | os.PathLike) or _is_trimesh(mesh)) or mesh == "":
        return MESH_GIVEN
    if units is not None and length_unit_metres(units) is None:
        return UNITS_VALID
    if weld_tolerance(weld) is None:
        return WELD_VALID
    if hull_flag(hull) is None:
        return HULL_VALID
    return 0


@dataclass(frozen=True)
class LoadedMesh:
    """A checked mesh: ``vertices`` (n, 3) in the file's unit, ``faces`` (m, 3), ``factor``
    (metres per file unit), the file's integrals (file units) and its format's name."""

    vertices: np.ndarray
    faces: np.ndarray
    factor: float
    integrals: PolyhedronIntegrals
    format: str
    report: Any = None  # rigidparts.shapes._mesh_repair.MeshReport


_CACHE: OrderedDict[tuple[Any, ...], LoadedMesh] = OrderedDict()
_CACHE_SIZE = 8


def _shown(source: Any) -> Any:
    return os.fspath(source) if isinstance(source, os.PathLike) else source


def _stl_truncated(path: Path) -> str | None:
    """The defect of a binary STL shorter than its header says, else None. A binary STL is an
    80-byte header, the triangle count (uint32, little-endian, at byte 80), then 50 bytes a
    triangle: ``84 + 50 n`` bytes. An ASCII STL (``solid`` then ``facet`` or ``endsolid``
    within its first kilobyte; a binary header may also start with ``solid``) is not one."""
    try:
        with path.open("rb") as file:
            head = file.read(1024)
        size = path.stat().st_size
    except OSError:
        return None  # the reader says why
    if len(head) < 84:
        return None  # too short for a header: the reader's error
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text[:5].lower() == b"solid" and (b"facet" in text or b"endsolid" in text):
        return None
    count = int.from_bytes(head[80:84], "little")
    held = (size - 84) // 50
    # a count far beyond what the file holds is no binary STL's (text read as one: bytes of
    # letters make a count over 5e8): the reader's error, not a truncation
    if 84 + 50 * count <= size or count > 1000 * (held + 1):
        return None
    return f"is truncated: its header says {count} triangles, the file holds {held}"


def _read_file(path: Path, suffix: str, source: Any) -> tuple[np.ndarray, np.ndarray, Any]:
    from ._meshing import trimesh_module

    kind = FORMATS[suffix][0]
    # before reading: trimesh takes a short binary STL for an empty one
    truncated = _stl_truncated(path) if kind == "STL" else None
    if truncated is not None:
        raise ParameterError("mesh", _shown(source), truncated)
    trimesh = trimesh_module()
    try:
        loaded = trimesh.load(str(path), force="mesh", process=False)
    except Exception as exc:  # trimesh raises many kinds for a corrupt file
        detail = " ".join(str(exc).split())[:200] or type(exc).__name__
        rule = f"cannot be read as {kind}: {detail}"
        raise ParameterError("mesh", _shown(source), rule) from None
    if not _is_trimesh(loaded):
        raise ParameterError("mesh", _shown(source), f"holds no triangle mesh ({kind})")
    return np.asarray(loaded.vertices), np.asarray(loaded.faces), getattr(loaded, "units", None)


def load(source: Any, units: Any, weld: Any = None, hull: Any = False) -> LoadedMesh:
    """The checked (and, where it can be, repaired) mesh of ``source`` (a path or a Trimesh)
    with coordinates in ``units``; ``weld`` the welding tolerance relative to the size (None:
    the default), ``hull`` whether a refused mesh is replaced by its convex hull.
    ParameterError naming ``mesh`` (the file and its defect), ``units``, ``weld`` or
    ``hull``."""
    tolerance = weld_tolerance(weld)
    if tolerance is None:
        raise ParameterError("weld", weld, RULES[WELD_VALID - 1].text)
    use_hull = hull_flag(hull)
    if use_hull is None:
        raise ParameterError("hull", hull, RULES[HULL_VALID - 1].text)
    if _is_trimesh(source):
        key = None
        kind = "trimesh.Trimesh"
        native = getattr(source, "units", None)
        if units is None and native is None:
            raise ParameterError(
                "units",
                None,
                "must be given for a trimesh.Trimesh: its coordinates carry no unit (e.g. "
                "units='mm')",
            )
        raw = (np.asarray(source.vertices), np.asarray(source.faces))
    else:
        path = Path(source)
        suffix = path.suffix.lower()
        if suffix not in FORMATS:
            raise ParameterError(
                "mesh",
                _shown(source),
                f"must be a file ending in {', '.join(FORMATS)} (the format is the suffix)",
            )
        kind, native = FORMATS[suffix]
        if units is None and native is None:
            raise ParameterError(
                "units",
                None,
                f"must be given for {kind} files such as {_shown(source)!r}: {kind} carries no "
                "length unit (give the unit the part was drawn in, e.g. units='mm')",
            )
        try:
            stat = path.stat()
        except OSError as exc:
            raise ParameterError(
                "mesh", _shown(source), f"cannot be read: {exc.strerror or exc}"
            ) from None
        if not path.is_file():
            raise ParameterError("mesh", _shown(source), "is not a file")
        key = (str(path.resolve()), stat.st_mtime_ns, stat.st_size, units, tolerance, use_hull)
        found = _CACHE.get(key)
        if found is not None:
            _CACHE.move_to_end(key)
            return found
        raw = None
    factor = length_unit_metres(units if units is not None else native)
    if factor is None:
        raise ParameterError("units", units, RULES[UNITS_VALID - 1].text)
    if units is not None and native is not None and factor != length_unit_metres(native):
        import warnings

        # glTF is in metres by its specification: another unit is an override, said
        warnings.warn(
            f"{_shown(source) if key is not None else kind}: units={units!r} overrides the "
            f"unit {kind} states ({native}): its coordinates are read as {units}",
            stacklevel=3,
        )
    if raw is None:
        vertices, faces, _ = _read_file(path, suffix, source)
    else:
        vertices, faces = raw
    loaded = _checked(source, kind, vertices, faces, factor, tolerance, use_hull)
    if key is not None:
        _CACHE[key] = loaded
        if len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return loaded


def _checked(
    source: Any,
    kind: str,
    vertices: Any,
    faces: Any,
    factor: float,
    tolerance: float,
    hull: bool,
) -> LoadedMesh:
    shown = _shown(source) if not _is_trimesh(source) else "trimesh.Trimesh"

    def defect(text: str) -> ParameterError:
        return ParameterError("mesh", shown, text)

    try:
        # no copies: merge_exact returns new arrays
        vertices = np.asarray(vertices, dtype=np.float64)
        faces = np.asarray(faces, dtype=np.int64)
    except (TypeError, ValueError):
        raise defect("holds vertices or triangles that are not numbers") from None
    if vertices.ndim != 2 or vertices.shape[1] != 3 or faces.ndim != 2 or faces.shape[1] != 3:
        raise defect(f"holds no triangles ({kind}: {len(faces)} faces)")
    if len(faces) == 0:
        raise defect(f"holds no triangles ({kind})")
    if not np.all(np.isfinite(vertices)):
        bad = int(np.count_nonzero(~np.all(np.isfinite(vertices), axis=1)))
        raise defect(f"has {bad} vertices with non-finite coordinates (nan or inf)")
    if faces.min() < 0 or faces.max() >= len(vertices):
        raise defect("has triangles that name vertices it does not have")
    from ._mesh_repair import classify

    try:
        vertices, faces, found, report = classify(
            vertices, faces, weld_tolerance=tolerance, hull=hull
        )
    except MeshDefect as exc:
        hint = "" if hull else " (hull=True / --hull yes: use its convex hull instead)"
        raise defect(f"{exc}{hint}") from None
    return LoadedMesh(vertices, faces, factor, found, kind, report)


def _load(dimensions: Mapping[str, Any]) -> LoadedMesh:
    return load(
        dimensions["mesh"],
        dimensions["units"],
        dimensions.get("weld"),
        dimensions.get("hull", False),
    )


def report(dimensions: Mapping[str, Any]) -> dict[str, Any]:
    """The mesh's class and what was done (:class:`~._mesh_repair.MeshReport`), JSON-ready,
    with the triangles and vertices of the surface used."""
    loaded = _load(dimensions)
    return {
        **loaded.report.to_dict(),
        "triangles": len(loaded.faces),
        "vertices": len(loaded.vertices),
        "summary": loaded.report.summary(),
    }


def general_form(dimensions: Mapping[str, Any], density: float) -> tuple[float, MassProperties]:
    """``(volume m^3, MassProperties in C = frame_a)``: the exact integrals of the solid,
    scaled from the file's unit to metres."""
    loaded = _load(dimensions)
    f = loaded.factor
    poly = loaded.integrals
    volume = poly.volume * f**3
    mass = density * volume
    with np.errstate(over="ignore", invalid="ignore"):  # absurd sizes: refused just below
        inertia = poly.inertia(density * f**5)
    if not (0.0 < mass < math.inf and np.isfinite(inertia).all()):
        # Beyond float64: the representability rule's refusal, naming the mesh (a mesh body
        # has no dimension to blame), before MassProperties would blame a mass never given.
        # Results that are finite but too small are the constructor's to refuse, as for
        # every body (with the mass as given).
        moments = tuple(np.diag(inertia).tolist())
        raise ParameterError(
            "mesh", dimensions["mesh"], UNREPRESENTABLE_RULE.format(mass=mass, moments=moments)
        )
    return volume, MassProperties(mass, poly.centroid * f, inertia)


def mesh(dimensions: Mapping[str, Any], sections: int) -> Any:
    """The checked mesh as a ``trimesh.Trimesh`` in C = frame_a, metres (``sections`` is
    unused: the file is the surface)."""
    from ._meshing import trimesh_module

    trimesh = trimesh_module()
    loaded = _load(dimensions)
    return trimesh.Trimesh(
        vertices=loaded.vertices * loaded.factor, faces=loaded.faces, process=False
    )


def example() -> dict[str, Any]:
    """A representative mesh body that needs no file: a closed 1 m x 0.5 m x 0.25 m cuboid
    centred on frame_a, as a ``trimesh.Trimesh`` in metres (trimesh imported only here)."""
    from ._meshing import trimesh_module

    trimesh = trimesh_module()
    return {
        "mesh": trimesh.creation.box(extents=(1.0, 0.5, 0.25)),
        "units": "m",
        "weld": 1e-9,
        "hull": False,
    }


SPEC = register(
    ShapeSpec(
        name="mesh",
        summary="a body from a CAD file: the solid bounded by a closed triangle mesh",
        params=(
            Param(
                "mesh",
                None,
                "the mesh file (STL, OBJ, PLY, OFF, glTF/GLB) or a trimesh.Trimesh",
                kind="path",
                aliases=("file",),
            ),
            Param(
                "units",
                None,
                "length unit of the file's coordinates (mm, m, in, ...); required but for glTF",
                kind="text",
            ),
            Param(
                "weld",
                DEFAULT_WELD,
                "welding tolerance relative to the part's size: vertices closer are merged (0: "
                "no welding; None: the default)",
                kind="text",
                plain=lambda value: weld_tolerance(value),
            ),
            Param(
                "hull",
                False,
                "use the convex hull of a mesh that bounds no solid (yes/no, true/false), the "
                "volume difference stated",
                kind="text",
                plain=lambda value: hull_flag(value),
            ),
        ),
        rules=RULES,
        check=check,
        general_form=general_form,
        axis=False,
        end_frame=None,
        extra_frames="named",
        mesh=mesh,
        primitive=None,
        command="meshbody",
        example=example,
    )
)
