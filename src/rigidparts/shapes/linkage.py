"""Linkage: the original's "rigid cuboid with link visualization".

Mass model: the solid cuboid ``L x W x H`` from frame_a (x = 0) to frame_b (x = L) along the
axis, height ``H`` along the height direction (+y of the canonical frame C), width ``W`` along
the width direction (+z), exactly the solid Box with the same arguments. The closed forms are
the Box's, called (not restated): ``shapes.box.closed_form(L, W, H, 0, 0, rho)``, so a Linkage
and a solid ``rp.Box`` of the same arguments have bit-identical mass properties (about the
centre of mass ``(L/2, 0, 0)``, along C's axes; :mod:`rigidparts.shapes.box`)::

    m = rho L W H,  I_xx = m (H^2 + W^2) / 12,  I_yy = m (W^2 + L^2) / 12,
    I_zz = m (H^2 + L^2) / 12

The drawing is not the mass model. The mesh is a link: in the (axis, height) plane a stadium
outline whose semicircular ends of radius ``H/2`` are centred on frame_a (x = 0) and frame_b
(x = L), so it reaches ``H/2`` beyond both frames (x from ``-H/2`` to ``L + H/2``), with a pin
hole of radius ``H/4`` at each of those centres, extruded by ``W`` along the width direction,
centred (z from ``-W/2`` to ``W/2``). Holes that would overlap or touch (``L < H/2``, to within
:data:`MIN_RELATIVE_GAP`) are drawn as one slot, the stadium of radius ``H/4`` from frame_a to
frame_b. Round parts are inscribed polygons with ``sections`` rounded up to a multiple of 4
segments per full turn (vertices on the axis and at ``y = +-H/2``, ``+-H/4``). The drawing's
volume, centre of mass and inertia differ from the cuboid's (its volume tends to
``W (L H + pi H^2 / 8)``): the body's mass properties are the full cuboid's from frame_a to
frame_b whatever the drawing shows. Hence no native primitive: an exporter draws the mesh.
A link so slender that its holes' segments fall below ``MIN_RELATIVE_WALL`` of its length
(``H`` below about ``2e-12 L`` at 64 sections) cannot be meshed in float64: ParameterError
naming ``height``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..errors import ParameterError
from ._meshing import (
    MIN_RELATIVE_RADIUS,
    MIN_RELATIVE_WALL,
    exact_merge,
    scale_to_unit,
    trimesh_module,
    unit_semicircle,
)
from ._spec import Param, Primitive, Rule, ShapeSpec, register, rule_codes
from .box import closed_form as _box_closed_form

__all__ = ["SPEC", "check", "closed_form", "triangulation"]

RULES = (
    Rule("length", "must be positive and finite (m)"),
    Rule("width", "must be positive and finite (m)"),
    Rule("height", "must be positive and finite (m)"),
)
LENGTH_POSITIVE, WIDTH_POSITIVE, HEIGHT_POSITIVE = rule_codes(RULES)

#: The ends' radius and the holes' radius, as fractions of the height H.
END_RADIUS = 0.5
HOLE_RADIUS = 0.25
#: Holes closer to each other than this fraction of H are drawn as one slot: a narrower gap
#: would leave sliver triangles that float64 cannot triangulate reliably.
MIN_RELATIVE_GAP = 2.0**-20  # ~ 9.5e-7


def check(length: float, width: float, height: float) -> int:
    """0 if the linkage is valid, else the code of the first broken rule of :data:`RULES`
    (last rule first, no early return: the batch compiler vectorises it)."""
    code = 0 if 0.0 < height < math.inf else HEIGHT_POSITIVE
    code = code if 0.0 < width < math.inf else WIDTH_POSITIVE
    return code if 0.0 < length < math.inf else LENGTH_POSITIVE


def closed_form(
    length: float, width: float, height: float, density: float
) -> tuple[float, float, float, float, float, float]:
    """``(volume, mass, com_x, i_xx, i_yy, i_zz)`` of the solid cuboid ``L x W x H``: the solid
    Box's closed form itself. Units: m^3, kg, m, kg m^2; about the centre of mass
    ``(L/2, 0, 0)``, along C's axes (x: axis, y: height direction, z: width direction)."""
    return _box_closed_form(length, width, height, 0.0, 0.0, density)


def quarter_segments(sections: int) -> int:
    """Segments per quarter turn of the ends and the holes: ``sections`` rounded up to a
    multiple of 4 per full turn (at least 4), so that both have vertices on the axis and at
    ``+-90`` degrees."""
    return max(1, -(-sections // 4))


def _strip(outer: np.ndarray, inner: np.ndarray) -> list[tuple[int, int, int]]:
    """Counter-clockwise triangles of the band between two polylines of equal length (indices
    into ``outer`` then ``inner`` stacked): quad ``(o_j, o_j+1, i_j+1, i_j)`` split in two."""
    n, count = len(outer), len(outer) - 1
    out: list[tuple[int, int, int]] = []
    for j in range(count):
        out += [(j, j + 1, n + j + 1), (j, n + j + 1, n + j)]
    return out


def triangulation(length: float, height: float, sections: int) -> tuple[np.ndarray, np.ndarray]:
    """The link's outline (module docstring) as a 2-D triangulation in the (axis, height)
    plane: ``(vertices (n, 2), faces (m, 3))``, counter-clockwise, vertices shared (exactly
    equal coordinates merged), so that its boundary edges are the outline's.

    Built by construction, not by a general triangulator (earcut bridges the holes of a long
    link wrongly): with ``q`` segments per quarter turn and ``r = H/2``, ``h = H/4``,

    - the end around frame_a (x <= 0): the band between the semicircle of radius ``r`` and the
      hole's half of radius ``h``, at the same angles;
    - two holes (``L >= H/2 + MIN_RELATIVE_GAP H``): from frame_a to ``X = L/2``, each hole
      segment joined to the rectangle ``[0, X] x [-r, r]`` along the rays from the centre
      through its ends (a convex piece, fanned, with the rectangle's corner where the rays
      leave by different sides);
    - one slot (closer holes): the two rectangles from frame_a to ``X`` between the slot and
      the outline;

    and the half at frame_b the mirror image ``x -> L - x`` (exact on the cut ``x = L/2``).
    """
    q = quarter_segments(sections)
    r, h = END_RADIUS * height, HOLE_RADIUS * height
    if length < MIN_RELATIVE_RADIUS * height:  # below float64's reach: frame_b on frame_a
        length = 0.0
    sin, cos = unit_semicircle(2 * q)  # phi_j = j pi / (2 q), j = 0 .. 2 q
    points: list[np.ndarray] = []
    faces: list[np.ndarray] = []

    def add(vertices: Any, triangles: Any) -> None:
        faces.append(np.asarray(triangles, dtype=np.int64).reshape(-1, 3) + sum(map(len, points)))
        points.append(np.asarray(vertices, dtype=np.float64).reshape(-1, 2))

    # The end around frame_a, from (0, r) through (-r, 0) to (0, -r).
    outer = np.column_stack((-r * sin, r * cos))
    inner = np.column_stack((-h * sin, h * cos))
    add(np.concatenate((outer, inner)), _strip(outer, inner))
    half = 0.5 * length
    if length < 2.0 * h + MIN_RELATIVE_GAP * height:  # one slot of radius h from 0 to L
        add([(0.0, h), (half, h), (half, r), (0.0, r)], [(0, 1, 2), (0, 2, 3)])
        add([(0.0, -r), (half, -r), (half, -h), (0.0, -h)], [(0, 1, 2), (0, 2, 3)])
    else:
        # Hole a's right half from (0, -h) through (h, 0) to (0, h); ray j along (sin, -cos).
        for j in range(2 * q):
            chain = [_exit(sin[j], cos[j], half, r), _exit(sin[j + 1], cos[j + 1], half, r)]
            side_j, side_k = _side(chain[0], half, r), _side(chain[1], half, r)
            corners = [c for k, c in ((1, (half, -r)), (3, (half, r))) if side_j < k < side_k]
            ring = [
                (h * sin[j], -h * cos[j]),
                chain[0],
                *corners,
                chain[1],
                (h * sin[j + 1], -h * cos[j + 1]),
            ]
            add(ring, [(0, k, k + 1) for k in range(1, len(ring) - 1)])
    vertices = np.concatenate(points)
    triangles = np.concatenate(faces)
    # The half at frame_b: the mirror image (x -> L - x reverses the winding).
    vertices = np.concatenate(
        (vertices, np.column_stack((length - vertices[:, 0], vertices[:, 1])))
    )
    triangles = np.concatenate((triangles, triangles[:, ::-1] + len(vertices) // 2))
    unique, inverse = np.unique(vertices + 0.0, axis=0, return_inverse=True)
    triangles = inverse.reshape(-1)[triangles]
    distinct = (
        (triangles[:, 0] != triangles[:, 1])
        & (triangles[:, 1] != triangles[:, 2])
        & (triangles[:, 0] != triangles[:, 2])
    )
    return unique, triangles[distinct]


def _exit(sin: float, cos: float, half: float, r: float) -> tuple[float, float]:
    """Where the ray from frame_a along ``(sin, -cos)`` (``sin >= 0``) leaves the rectangle
    ``[0, half] x [-r, r]``: the coordinate on the side it crosses is set exactly, the other
    clamped to the rectangle."""
    if half * abs(cos) < r * sin:  # through the side x = half
        return half, min(max(half * -cos / sin, -r), r)
    return min(r * sin / abs(cos), half), math.copysign(r, -cos)


def _side(point: tuple[float, float], half: float, r: float) -> int:
    """Where ``point`` lies on the rectangle's boundary, in order along it: 0 bottom, 1 the
    corner (half, -r), 2 the side x = half, 3 the corner (half, r), 4 the top."""
    x, y = point
    if x == half:
        return 1 if y == -r else 3 if y == r else 2
    return 0 if y < 0.0 else 4


def mesh(dimensions: Mapping[str, float], sections: int) -> Any:
    """The link in C (module docstring): :func:`triangulation` extruded along C's z from
    ``-W/2`` to ``W/2``; ``sections`` (rounded up to a multiple of 4) segments per full turn of
    the holes and of the rounded ends."""
    trimesh = trimesh_module()
    length, width, height = dimensions["length"], dimensions["width"], dimensions["height"]
    # The holes' shortest segments must stay well above float64's resolution at x = L.
    if HOLE_RADIUS * height * math.sin(0.5 * math.pi / quarter_segments(sections)) < (
        MIN_RELATIVE_WALL * length
    ):
        raise ParameterError(
            "height",
            height,
            f"makes the link too slender to mesh in float64 with {sections} sections: the "
            f"holes' segments fall below {MIN_RELATIVE_WALL:.2g} of length={length!r} m (the "
            "mass properties are still exact)",
        )
    # The drawing's features scale with H: bring H to [0.5, 1) by a power of two (exact), so
    # that no feature falls below trimesh's tolerances; undone by exact_merge.
    scale = scale_to_unit(height)
    vertices, faces = triangulation(length * scale, height * scale, sections)
    # Extruded by 1 and then stretched to W (t is 0 or 1: exact), since trimesh refuses
    # heights below tol.merge.
    prism = trimesh.creation.extrude_triangulation(vertices, faces, height=1.0, process=False)
    a, b, t = np.asarray(prism.vertices).T
    across = (t - 0.5) * (width * scale)  # -W/2 or +W/2
    # exact_merge maps constructor coordinates (u, v, z) to C as (z, u, v): pass
    # (height, width, axis) so that C gets (axis, height, width). A cyclic permutation
    # (proper), so the outward winding is kept.
    return exact_merge(np.column_stack((b, across, a)), np.asarray(prism.faces), scale)


def primitive(dimensions: Mapping[str, float]) -> Primitive | None:
    """None: the linkage is drawn as its link mesh, not as the cuboid of its mass model."""
    return None


SPEC = register(
    ShapeSpec(
        name="linkage",
        summary="a linkage: the mass of a solid cuboid, drawn as a link with rounded ends and "
        "pin holes",
        params=(
            Param("length", 1.0, "extent along the axis, frame_a to frame_b (m)"),
            Param("width", 0.1, "width, along the width direction (m)"),
            Param("height", 0.2, "height, along the height direction (m)"),
        ),
        rules=RULES,
        check=check,
        closed_form=closed_form,
        cross_section=True,
        mesh=mesh,
        primitive=primitive,
    )
)
