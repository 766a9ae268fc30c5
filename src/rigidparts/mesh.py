"""Surface meshes of the bodies: watertight, outward-facing ``trimesh.Trimesh`` in frame_a.

``body_mesh(body, sections=64)`` (also ``body.mesh(sections=...)``) builds the body's surface
in its canonical frame C (axis +x from frame_a at x = 0 to frame_b at x = L; the Box's height
along +y, width along +z) with trimesh's own constructors, then maps it into frame_a with
``R_AC = body.rotation_from_canonical`` (so the axis, the height/width directions and
``rotate90`` show in the mesh exactly as in the mass properties). Coordinates are in metres.

- Box: ``trimesh.creation.box`` when solid; ``trimesh.creation.extrude_polygon`` of a shapely
  polygon with a rectangular hole when hollow (two separate slabs when the hole spans the whole
  width or height). The faces are planar, so the mesh volume equals the exact volume
  ``L (H W - H_i W_i)`` to rounding.
- Cone: ``trimesh.creation.revolve`` of the closed (r, x) profile
  ``(R_a, 0) -> (R_b, L) -> (R_bi, L) -> (R_ai, 0)`` (counter-clockwise, so normals point out),
  with ``sections`` segments around. A point (zero radius) closes the surface there; a zero
  wall at one end gives a knife edge; a bore gives a real hole. Each cross-section is a regular
  ``sections``-gon inscribed in the circle, so the mesh volume is exactly
  ``V N sin(2 pi / N) / (2 pi) = V (1 - (2 pi / N)^2 / 6 + ...)`` for ``N = sections``:
  second-order convergence, always slightly below the exact volume.

Robustness. trimesh's constructors merge vertices closer than ``trimesh.tol.merge`` (1e-8) and
``revolve`` drops triangles with an area below it, which would tear the surface of small bodies
or thin walls. So the profile is scaled by a power of two (exact in binary floating point) until
its smallest triangle is far above that tolerance, trimesh's processing is switched off, and only
vertices that are bitwise identical (the closing profile point, points on the axis, the shared
edges of an extrusion) are merged. A wall down to :data:`MIN_RELATIVE_WALL` of the radius
keeps both of its surfaces; a cone end whose wall is thinner than that fraction of its radius
(but not zero) is meshed as a knife edge, since its two surfaces could round onto each other,
and a cone radius below :data:`MIN_RELATIVE_TIP` (a box hole's side below
:data:`MIN_RELATIVE_RADIUS`) of the body's size as a point. A cone whose
walls are that thin at both ends raises :class:`ParameterError`. The body's mass properties
stay exact whatever the mesh does.

Exporting (:func:`export_mesh`): STL, GLB and PLY (as trimesh writes them) store vertices as
float32 (about 7 digits), so walls thinner than about 1e-7 of the body's size do not survive the
file; OBJ is written with 17 significant digits, which keeps float64 exactly.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .errors import ParameterError
from .shapes._meshing import (
    MAX_SECTIONS,
    MIN_RELATIVE_RADIUS,
    MIN_RELATIVE_TIP,
    MIN_RELATIVE_WALL,
    MIN_SECTIONS,
    canonical_mesh,
    check_sections,
)

if TYPE_CHECKING:  # pragma: no cover
    import trimesh

__all__ = [
    "MAX_SECTIONS",
    "MESH_FORMATS",
    "MIN_RELATIVE_RADIUS",
    "MIN_RELATIVE_TIP",
    "MIN_RELATIVE_WALL",
    "MIN_SECTIONS",
    "body_mesh",
    "canonical_mesh",
    "check_sections",
    "cone_volume_factor",
    "export_mesh",
]

#: Mesh file formats written by ``rigidparts mesh`` (by suffix), with what they store.
MESH_FORMATS: Mapping[str, str] = {
    ".stl": "binary STL (float32 vertices, no connectivity)",
    ".obj": "Wavefront OBJ (text, 17 significant digits: float64 exactly)",
    ".glb": "binary glTF 2.0 (float32 vertices)",
    ".ply": "binary PLY (float32 vertices)",
}

#: The formats that store float32 vertices.
FLOAT32_FORMATS = (".stl", ".glb", ".ply")


def export_mesh(mesh: trimesh.Trimesh, path: Any, *, force: bool | None = None) -> Path:
    """Write ``mesh`` to ``path`` atomically, in the format of its suffix
    (:data:`MESH_FORMATS`); :class:`ParameterError` for another suffix. Returns the path.

    Through :func:`rigidparts.fileio.atomic_path`: a symlink is written through, an existing
    file keeps its permissions, a missing folder is created, a read-only file is refused
    (:class:`PermissionError`) unless ``force``, and an :class:`OSError` names ``path``.

    OBJ coordinates are written with 17 significant digits (trimesh writes a fixed number of
    decimals, 8 by default, which would round a millimetre-sized body to 1e-8 m)."""
    from .fileio import atomic_path

    target = Path(path)
    suffix = target.suffix.lower()
    if suffix not in MESH_FORMATS:
        raise ParameterError(
            "output",
            str(path),
            f"must end in {', '.join(MESH_FORMATS)} (the mesh format is taken from the suffix)",
        )
    options: dict[str, Any] = {}
    if suffix == ".obj":
        largest = float(np.max(np.abs(mesh.vertices))) or 1.0
        options["digits"] = int(min(60, max(8, 17 - math.floor(math.log10(largest)))))
    with atomic_path(target, force=force) as tmp:
        mesh.export(tmp, file_type=suffix.lstrip("."), **options)
    return target


def cone_volume_factor(sections: int) -> float:
    """``mesh volume / exact volume`` of a revolved body with ``sections`` segments:
    ``N sin(2 pi / N) / (2 pi)``, the area of the inscribed regular N-gon over the circle's."""
    return sections * math.sin(2.0 * math.pi / sections) / (2.0 * math.pi)


def body_mesh(body: Any, *, sections: int = 64) -> trimesh.Trimesh:
    """The body's surface as a watertight, outward-facing ``trimesh.Trimesh`` in frame_a (m):
    ``body.mesh(sections)`` (see :meth:`rigidparts.component.Component.mesh`)."""
    return body.mesh(sections)
