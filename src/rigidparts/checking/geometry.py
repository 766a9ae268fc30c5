"""The mass properties a link's own geometry gives: exact, at unit density, in the link frame.

For a link L of a :class:`~rigidparts.formats.description.Description` the solid is its
collision geometry, else its visual geometry (:attr:`Link.geometry`). Each piece G becomes a
rigidparts body through the shape registry (:func:`rigidparts.shapes.shape_for_primitive`:
box, cylinder, sphere, capsule, ellipsoid with their exact closed forms; a mesh file is a
:class:`~rigidparts.MeshBody` with the file's per-axis scale, the exact polyhedron integrals of
:mod:`rigidparts.polyhedron`, so a mesh with an inner shell is hollow). Its mass properties at
density 1 (kg/m^3, so ``mass == volume``) are placed in L by ``X_LA = X_LG X_GA``
(:meth:`MassProperties.placed`): ``p_LoAcm_L = R_LA p_AoAcm_A + p_LoAo_L``,
``I_AAcm_L = R_LA I_AAcm_A R_LA^T``. Any density scales the result linearly.

Overlapping pieces are *unioned*, never summed. Pieces whose bounding boxes (in L; exact
boxes for the native primitives, a mesh's vertices' box) do not meet cannot overlap; for those
that do, the intersection is computed with manifold3d (``pip install 'rigidparts[check]'``,
imported only then). Where nothing overlaps the result is the exact sum
(:meth:`MassProperties.combine`). Where pieces overlap, the union follows inclusion-exclusion
over the volume integrals, which are additive set functions: for each integrand ``f`` in
``1, x, |x|^2 1 - x x^T``, ``int_{U A_i} f = sum_i int_{A_i} f - sum_{i<j} int_{A_i & A_j} f +
sum_{i<j<k} ...``; the single pieces stay exact, and only the intersections carry a
tessellation error. Each intersection is computed twice, from manifold3d's own primitives
with :data:`SECTIONS` and twice as many segments around round surfaces (inscribed polygons,
converging as ``N^-2``), and the two are combined by Richardson extrapolation
(``(4 fine - coarse) / 3``); a third of their difference (the estimated error of the finer
one), summed over the terms, is :attr:`LinkGeometry.accuracy`, relative to the union's volume
and to its trace. On two unit spheres one radius apart the volume comes within 5e-6 of the lens
formula, the stated bound being 4e-4. Intersections below :data:`TOUCHING` of the smaller
piece's volume (pieces that only touch) are taken as empty.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np

from ..errors import ParameterError
from ..formats.description import GEOMETRY_KINDS
from ..formats.geometry import piece_body
from ..inertia import MassProperties, parallel_axis_shift
from ..polyhedron import MeshDefect, integrals
from ..transforms import Transform, compose

__all__ = [
    "SECTIONS",
    "TOUCHING",
    "LinkGeometry",
    "Piece",
    "link_geometry",
    "mujoco_from_geoms",
    "piece_body",
]

#: Segments around round surfaces of the meshes an intersection is computed from (and twice
#: as many for the second estimate).
SECTIONS = 64

#: An intersection below this fraction of the smaller piece's volume is taken as empty.
TOUCHING = 1e-9

#: Most inclusion-exclusion terms for one link (beyond: the cluster's union is meshed whole).
MAX_TERMS = 256

BOX, CYLINDER, SPHERE, CAPSULE, ELLIPSOID, MESH, PLANE, HEIGHTFIELD, OTHER = GEOMETRY_KINDS

#: Geometry kinds that carry no volume (drawn, not weighed).
_NO_VOLUME = (PLANE, HEIGHTFIELD, OTHER)


@dataclass(frozen=True, eq=False)
class Piece:
    """One geometry of a link as a rigidparts body.

    geometry : the :class:`~rigidparts.formats.description.Geometry` read from the file.
    body : the rigidparts body at density 1 (its frame_a is A).
    pose : ``X_LA``, the body's frame_a in the link frame.
    unit : the body's mass properties at density 1 in L (mass = volume, m^3).
    """

    geometry: Any
    body: Any
    pose: Transform
    unit: MassProperties

    @property
    def volume(self) -> float:
        """m^3."""
        return self.unit.mass

    def _half_extents(self) -> tuple[np.ndarray, np.ndarray]:
        """``(centre, half extents)`` of a box in G that holds the piece."""
        kind, size = self.geometry.kind, self.geometry.size
        if kind == MESH:
            vertices = np.asarray(self.body.mesh(SECTIONS).vertices, dtype=np.float64)
            low, high = vertices.min(axis=0), vertices.max(axis=0)
            return 0.5 * (low + high), 0.5 * (high - low)
        if kind == BOX:
            half = 0.5 * np.asarray(size, dtype=np.float64)
        elif kind == CYLINDER:
            half = np.array([size[0], size[0], 0.5 * size[1]])
        elif kind == CAPSULE:
            half = np.array([size[0], size[0], 0.5 * size[1] + size[0]])
        elif kind == SPHERE:
            half = np.full(3, float(size[0]))
        else:  # the ellipsoid's semi-axes
            half = np.asarray(size, dtype=np.float64)
        return np.zeros(3), half

    def bounds(self) -> np.ndarray:
        """The box (2, 3) in L that holds the piece: its box in G (exact for every native
        primitive; a mesh's vertices' box), turned and moved by ``X_LG``."""
        centre, half = self._half_extents()
        rotation, position = self.geometry.pose
        middle = rotation @ centre + position
        reach = np.abs(rotation) @ half
        grow = 1e-12 * (1.0 + float(np.max(np.abs(middle)) + float(np.max(reach))))
        return np.array([middle - reach - grow, middle + reach + grow])

    def solid(self, manifold3d: Any, segments: int) -> Any:
        """The piece as a manifold3d solid in L: the native primitives with ``segments``
        segments around (inscribed polygons), a mesh as it is."""
        kind, size = self.geometry.kind, self.geometry.size
        m = manifold3d.Manifold
        if kind == MESH:
            mesh = self.body.mesh(segments)
            solid = _solid(manifold3d, np.asarray(mesh.vertices), np.asarray(mesh.faces))
            rotation, position = self.pose
        else:
            if kind == BOX:
                solid = m.cube(tuple(float(v) for v in size), True)
            elif kind == CYLINDER:
                solid = m.cylinder(float(size[1]), float(size[0]), float(size[0]), segments, True)
            elif kind == SPHERE:
                solid = m.sphere(float(size[0]), segments)
            elif kind == CAPSULE:
                radius, half = float(size[0]), 0.5 * float(size[1])
                ball = m.sphere(radius, segments)
                solid = m.batch_hull([ball.translate((0, 0, -half)), ball.translate((0, 0, half))])
            else:
                solid = m.sphere(1.0, segments).scale(tuple(float(v) for v in size))
            rotation, position = self.geometry.pose
        affine = np.hstack([np.asarray(rotation), np.asarray(position).reshape(3, 1)])
        return solid.transform(affine)


@dataclass(frozen=True, eq=False)
class LinkGeometry:
    """What a link's geometry gives, at unit density, in the link frame L.

    role : ``"collision"`` or ``"visual"`` (the geometry used), or None when there is none.
    pieces : the pieces with a volume.
    unit : the union's :class:`MassProperties` at density 1 kg/m^3 (mass = volume, m^3;
        ``p_LoGcm_L``; ``I_GGcm_L``), or None when no piece has a volume.
    overlaps : ``(i, j, volume m^3)`` for each pair of pieces whose intersection is not empty.
    accuracy : a bound on the relative error of the volume and inertia from the intersections'
        tessellation (0.0 when nothing overlaps: then the result is the exact sum).
    skipped : one line per geometry that was not weighed and why (a plane, a missing mesh, an
        open mesh surface).
    """

    role: str | None
    pieces: tuple[Piece, ...]
    unit: MassProperties | None
    overlaps: tuple[tuple[int, int, float], ...] = ()
    accuracy: float = 0.0
    skipped: tuple[str, ...] = field(default=())

    @property
    def volume(self) -> float:
        """The union's volume, m^3 (0.0 without pieces)."""
        return 0.0 if self.unit is None else self.unit.mass

    def at_mass(self, mass: float) -> MassProperties:
        """The geometry's mass properties for a total mass (kg): density ``mass / volume``."""
        if self.unit is None:
            raise ValueError("the link has no geometry with a volume")
        return _scaled(self.unit, mass / self.unit.mass)

    def at_density(self, density: float) -> MassProperties:
        """The geometry's mass properties at ``density`` kg/m^3."""
        if self.unit is None:
            raise ValueError("the link has no geometry with a volume")
        return _scaled(self.unit, density)

    def bounds(self) -> np.ndarray | None:
        """The union of the pieces' boxes in L (2, 3), or None."""
        if not self.pieces:
            return None
        boxes = np.array([piece.bounds() for piece in self.pieces])
        return np.array([boxes[:, 0].min(axis=0), boxes[:, 1].max(axis=0)])


def _scaled(unit: MassProperties, factor: float) -> MassProperties:
    return MassProperties(unit.mass * factor, unit.center_of_mass, unit.inertia * factor)


# -- one piece ------------------------------------------------------------------------------------


#: Primitive bodies by (kind, size): a file repeats its few sizes (100 wheels, 50 screws).
_PRIMITIVES: dict[tuple[Any, ...], tuple[Any, Transform]] = {}


def _piece(geometry: Any) -> Piece:
    if geometry.kind == MESH:
        body, x_ga = piece_body(geometry)
    else:
        key = (geometry.kind, tuple(float(s) for s in geometry.size))
        found = _PRIMITIVES.get(key)
        if found is None:
            found = piece_body(geometry)
            if len(_PRIMITIVES) > 1024:
                _PRIMITIVES.clear()
            _PRIMITIVES[key] = found
        body, x_ga = found
    x_la = compose(geometry.pose, x_ga)
    unit = body.mass_properties.placed(x_la[0], x_la[1])
    return Piece(geometry, body, x_la, unit)


# -- the union --------------------------------------------------------------------------------


def link_geometry(link: Any) -> LinkGeometry:
    """The mass properties of ``link``'s collision geometry (else its visual geometry) at
    density 1 in the link frame, overlapping pieces unioned (module docstring)."""
    collisions = [g for g in link.collisions if g.kind not in _NO_VOLUME]
    chosen = collisions or [g for g in link.visuals if g.kind not in _NO_VOLUME]
    role = "collision" if collisions else ("visual" if chosen else None)
    skipped = [
        f"{g.source}: {g.kind} geometry has no volume (not weighed)"
        for g in (*link.collisions, *link.visuals)
        if g.kind in _NO_VOLUME and (g.role == role or role is None)
    ]
    pieces: list[Piece] = []
    for geometry in chosen:
        try:
            pieces.append(_piece(geometry))
        except (ParameterError, MeshDefect, OSError) as exc:
            skipped.append(f"{geometry.source}: {geometry.kind} not weighed: {exc}")
    if skipped and pieces and any("not weighed:" in s for s in skipped):
        # a link part of whose solid cannot be weighed is not compared at all
        return LinkGeometry(role, tuple(pieces), None, skipped=tuple(skipped))
    if not pieces:
        return LinkGeometry(role, (), None, skipped=tuple(skipped))
    if len(pieces) == 1:
        return LinkGeometry(role, tuple(pieces), pieces[0].unit, skipped=tuple(skipped))
    boxes = [piece.bounds() for piece in pieces]
    candidates = [
        (i, j)
        for i, j in combinations(range(len(pieces)), 2)
        if np.all(boxes[i][0] <= boxes[j][1]) and np.all(boxes[j][0] <= boxes[i][1])
    ]
    if not candidates:
        total = MassProperties.combine([piece.unit for piece in pieces])
        return LinkGeometry(role, tuple(pieces), total, skipped=tuple(skipped))
    return _union(role, pieces, candidates, tuple(skipped))


def _moments(mass_properties: MassProperties) -> tuple[float, np.ndarray, np.ndarray]:
    """``(V, int x dV, int (|x|^2 1 - x x^T) dV)`` about the link origin, at density 1."""
    volume = mass_properties.mass
    com = mass_properties.center_of_mass
    about_origin = mass_properties.inertia_about(np.zeros(3))
    return volume, volume * com, about_origin


def _manifold_module() -> Any:
    try:
        import manifold3d
    except ImportError as exc:
        raise ImportError(
            "overlapping geometry is unioned with manifold3d: pip install 'rigidparts[check]'"
        ) from exc
    return manifold3d


def _solid(manifold3d: Any, vertices: np.ndarray, faces: np.ndarray) -> Any:
    mesh = manifold3d.Mesh64(
        vert_properties=np.ascontiguousarray(vertices, dtype=np.float64),
        tri_verts=np.ascontiguousarray(faces, dtype=np.uint64),
    )
    solid = manifold3d.Manifold(mesh)
    if solid.status() != manifold3d.Error.NoError:
        raise MeshDefect(f"is not a closed manifold surface ({solid.status()})")
    return solid


def _integrals_of(solid: Any) -> tuple[float, np.ndarray, np.ndarray]:
    """:func:`_moments` of a manifold solid, from :func:`rigidparts.polyhedron.integrals`."""
    mesh = solid.to_mesh64()
    vertices = np.asarray(mesh.vert_properties, dtype=np.float64)[:, :3]
    faces = np.asarray(mesh.tri_verts, dtype=np.int64)
    found = integrals(vertices, faces)
    volume = found.volume
    return _moments(MassProperties(volume, found.centroid, found.inertia(1.0)))


def _union(
    role: str | None,
    pieces: list[Piece],
    candidates: list[tuple[int, int]],
    skipped: tuple[str, ...],
) -> LinkGeometry:
    """Inclusion-exclusion over the intersections (module docstring)."""
    manifold3d = _manifold_module()
    neighbours: dict[int, set[int]] = {i: set() for i in range(len(pieces))}
    for i, j in candidates:
        neighbours[i].add(j)
        neighbours[j].add(i)
    solids: dict[int, dict[int, Any]] = {}
    for n in (SECTIONS, 2 * SECTIONS):
        solids[n] = {}
        for i in {k for pair in candidates for k in pair}:
            solids[n][i] = pieces[i].solid(manifold3d, n)
    volume = 0.0
    first = np.zeros(3)
    second = np.zeros((3, 3))
    for piece in pieces:
        v, f, s = _moments(piece.unit)
        volume, first, second = volume + v, first + f, second + s
    error_volume = error_inertia = 0.0
    overlaps: list[tuple[int, int, float]] = []
    terms = 0
    stack: list[tuple[tuple[int, ...], Any, Any]] = [
        ((i,), solids[SECTIONS][i], solids[2 * SECTIONS][i]) for i in sorted(solids[SECTIONS])
    ]
    while stack:
        members, coarse, fine = stack.pop()
        for j in sorted(neighbours[members[-1]]):
            if j <= members[-1] or not all(j in neighbours[k] for k in members):
                continue
            fine_j = fine ^ solids[2 * SECTIONS][j]
            smallest = min(pieces[k].volume for k in (*members, j))
            if fine_j.is_empty() or fine_j.volume() <= TOUCHING * smallest:
                continue
            coarse_j = coarse ^ solids[SECTIONS][j]
            terms += 1
            if terms > MAX_TERMS:
                raise ParameterError(
                    "geometry",
                    len(pieces),
                    f"overlaps in more than {MAX_TERMS} ways (inclusion-exclusion too long)",
                )
            sign = -1.0 if len(members) % 2 == 1 else 1.0
            v, f, s = _integrals_of(fine_j)
            if coarse_j.is_empty() or coarse_j.volume() <= 0.0:
                v_c, f_c, s_c = 0.0, np.zeros(3), np.zeros((3, 3))
            else:
                v_c, f_c, s_c = _integrals_of(coarse_j)
            # Richardson: inscribed polygons converge as N^-2, so (4 fine - coarse) / 3
            v, f, s = v + (v - v_c) / 3.0, f + (f - f_c) / 3.0, s + (s - s_c) / 3.0
            error_volume += abs(v - v_c) / 4.0
            error_inertia += float(np.abs(s - s_c).max()) / 4.0
            volume, first, second = volume + sign * v, first + sign * f, second + sign * s
            if len(members) == 1:
                overlaps.append((members[0], j, v))
            stack.append(((*members, j), coarse_j, fine_j))
    if not overlaps:
        total = MassProperties.combine([piece.unit for piece in pieces])
        return LinkGeometry(role, tuple(pieces), total, skipped=skipped)
    com = first / volume
    central = second - parallel_axis_shift(volume, com)
    unit = MassProperties(volume, com, 0.5 * (central + central.T))
    accuracy = max(error_volume / volume, error_inertia / float(np.trace(second)))
    return LinkGeometry(
        role, tuple(pieces), unit, tuple(overlaps), accuracy=accuracy, skipped=skipped
    )


# -- what MuJoCo computes from the geoms ----------------------------------------------------------


def mujoco_from_geoms(link: Any, discard_visual: bool = False) -> MassProperties | None:
    """The mass properties MuJoCo's compiler gives an MJCF body without ``<inertial>``
    (``compiler inertiafromgeom="auto"``, the default): each geom with a volume counts at its
    own ``mass`` when the file gives one, else at its ``density`` (1000 kg/m^3 by default)
    times its volume, and the geoms are *summed* (overlaps count twice), by the parallel-axis
    theorem (:meth:`MassProperties.combine`), about the sum's centre of mass, in the body
    frame L. Every geom counts (collision and visual alike), the visual-only ones not when
    ``discard_visual`` (``compiler discardvisual="true"``). Meshes are taken as exact
    polyhedra. None when no geom gives mass (MuJoCo's body then has none); a geom that cannot
    be weighed (a missing mesh) raises what :func:`_piece` raises."""
    parts = []
    for geometry in (*link.collisions, *link.visuals):
        if geometry.kind in _NO_VOLUME or (discard_visual and geometry.role == "visual"):
            continue
        unit = _piece(geometry).unit
        if geometry.mass is not None:
            mass = geometry.mass
        else:
            density = 1000.0 if geometry.density is None else geometry.density
            mass = density * unit.mass
        if mass > 0.0:
            parts.append(_scaled(unit, mass / unit.mass))
    return MassProperties.combine(parts) if parts else None
