"""A robot file's geometry as rigidparts bodies: one place for ``rp.load_model`` (the shapes
that draw a link) and ``rigidparts check`` (the solid that weighs it).

:func:`piece_body` turns one :class:`~rigidparts.formats.description.Geometry` into ``(body,
X_GA)``: a native primitive through the shape registry
(:func:`rigidparts.shapes.shape_for_primitive`: box, cylinder, sphere, capsule, ellipsoid,
their exact closed forms), a mesh file as a :class:`~rigidparts.MeshBody` in metres with the
file's per-axis scale (a mirroring scale flips the triangles so that the surface still faces
out), a mesh the file holds itself likewise. ``X_GA`` is the body's frame_a in the geometry
frame G; every body is at density 1 kg/m^3 (its mass is its volume).
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ParameterError
from ..transforms import Transform
from .description import GEOMETRY_KINDS

__all__ = ["piece_body"]

MESH = GEOMETRY_KINDS[5]


def _primitive_body(kind: str, size: tuple[float, ...]) -> tuple[Any, Transform]:
    """``(body at density 1, X_GA)`` of a native primitive, through the registry
    (:func:`rigidparts.shapes.shape_for_primitive`)."""
    from ..bodies import body_class
    from ..shapes import shape_for_primitive

    found = shape_for_primitive(kind, size)
    body = body_class(found.spec.name)(**found.dimensions, **found.options, density=1.0)
    rotation, position = found.pose
    return body, (np.asarray(rotation, dtype=np.float64), np.asarray(position, dtype=np.float64))


#: Loaded and scaled mesh bodies by (path, mtime, size, scale).
_MESHES: dict[tuple[Any, ...], Any] = {}


def _mesh_body(path: str, scale: Sequence[float]) -> Any:
    """A :class:`~rigidparts.MeshBody` (density 1) of the file at ``path`` in metres with the
    per-axis ``scale`` applied (a mirroring scale, negative determinant, flips the triangles so
    that the surface still faces out)."""
    from ..bodies import MeshBody

    stat = os.stat(path)
    key = (str(Path(path).resolve()), stat.st_mtime_ns, stat.st_size, tuple(scale))
    found = _MESHES.get(key)
    if found is not None:
        return found
    factors = np.asarray(scale, dtype=np.float64)
    if np.all(factors == 1.0):
        body = MeshBody(mesh=path, units="m", density=1.0)
    else:
        from ..shapes._meshing import trimesh_module
        from ..shapes.mesh_body import load

        trimesh = trimesh_module()
        loaded = load(path, "m")
        faces = loaded.faces if np.prod(factors) > 0 else loaded.faces[:, ::-1]
        surface = trimesh.Trimesh(vertices=loaded.vertices * factors, faces=faces, process=False)
        body = MeshBody(mesh=surface, units="m", density=1.0)
    if len(_MESHES) > 64:
        _MESHES.clear()
    _MESHES[key] = body
    return body


def _inline_mesh_body(vertices: Any, faces: Any, label: str | None) -> Any:
    """A :class:`~rigidparts.MeshBody` (density 1) of a mesh the file holds itself (vertices
    in metres, scale applied); a ParameterError names it ``mesh=label`` (what the file calls
    it), not the in-memory surface it was built from."""
    from ..bodies import MeshBody
    from ..shapes._meshing import trimesh_module

    trimesh = trimesh_module()
    surface = trimesh.Trimesh(
        vertices=np.asarray(vertices, dtype=np.float64),
        faces=np.asarray(faces, dtype=np.int64),
        process=False,
    )
    try:
        return MeshBody(mesh=surface, units="m", density=1.0)
    except ParameterError as exc:
        if exc.parameter != "mesh" or label is None:
            raise
        raise ParameterError("mesh", label, exc.rule) from None


def piece_body(geometry: Any) -> tuple[Any, Transform]:
    """``(body at density 1, X_GA)`` for one geometry; ParameterError when it has no solid."""
    if geometry.kind == MESH:
        if getattr(geometry, "vertices", None) is not None and geometry.faces is not None:
            label = getattr(geometry, "inline_name", None) or geometry.name
            body = _inline_mesh_body(geometry.vertices, geometry.faces, label)
            return body, (np.eye(3), np.zeros(3))
        if geometry.mesh is None:
            raise ParameterError("mesh", geometry.missing, "was not found")
        scale = tuple(float(s) for s in geometry.scale)
        if any(s == 0.0 or not math.isfinite(s) for s in scale):
            raise ParameterError("scale", scale, "must be finite and non-zero")
        return _mesh_body(geometry.mesh, scale), (np.eye(3), np.zeros(3))
    return _primitive_body(geometry.kind, tuple(float(s) for s in geometry.size))
