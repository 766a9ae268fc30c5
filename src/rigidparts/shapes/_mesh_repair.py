"""Meshes as found in the wild: classify a triangle mesh, repair what can be repaired with a
stated effect, refuse the rest with the reason (:func:`classify`).

The classes, tried in this order (each says what was done in :class:`MeshReport`):

1. ``closed``: closed and consistently wound, one shell, facing outward: used as it is (the
   integrals are exact, :mod:`rigidparts.polyhedron`).
2. ``inside-out``: the same facing inward (negative volume): every triangle flipped.
3. ``welded``: closed once vertices closer than ``weld * size`` are merged (``size`` the
   bounding box's diagonal; default :data:`DEFAULT_WELD` = 1e-9): the result is exact for
   the welded mesh (the vertices move by at most the tolerance).
4. ``shells``: several closed shells. Each is turned to face outward; a shell inside another
   (every sampled vertex inside it, by the generalised winding number) is a cavity (even-odd
   nesting); shells that overlap are unioned with manifold3d (a boolean in float64), never
   summed. Disjoint and nested shells keep the exact integrals of the mesh.
5. ``holes``: open only along small holes (boundary loops): each capped by a fan from its
   centroid. The effect is bounded: if the missing surface lies within the ball around the
   hole (radius ``r``, the farthest loop vertex from its centroid), the volume changes by at
   most ``(2/3) pi r^3`` per hole; holes whose bound exceeds :data:`HOLE_LIMIT` of the volume
   are not small (a bore's open end) and are refused, never filled.
6. Anything else is refused with the reason; with ``hull=True`` the convex hull is used
   instead and the volume difference stated. A refusal of a welded mesh says so (and whether
   the mesh unwelded is accepted); one of a mesh whose open edges close under a weld of at
   most :data:`NEAR_GAP` of the size names that weld (:func:`weld_hint`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..polyhedron import MeshDefect, PolyhedronIntegrals, edge_defects, integrals, merge_exact

__all__ = [
    "DEFAULT_WELD",
    "HOLE_LIMIT",
    "NEAR_GAP",
    "MeshReport",
    "cap_holes",
    "classify",
    "split_t_junctions",
    "weld",
    "weld_hint",
]

#: Default welding tolerance, relative to the mesh's size (bounding-box diagonal).
DEFAULT_WELD = 1e-9
#: Largest bound on the holes' effect (relative to the volume) for them to be capped.
HOLE_LIMIT = 1e-3
#: Vertices of a shell sampled for the nesting test against another shell.
NESTING_SAMPLES = 32
#: Largest gap, relative to the size, between an open edge and the reversed open edge that
#: would close it, for a refusal to name the weld that closes them (binary STL's float32
#: rounding is about 6e-8 of the size, over the default weld).
NEAR_GAP = 1e-4


@dataclass(frozen=True)
class MeshReport:
    """What a mesh is and what was done to it.

    kind : ``closed``, ``inside-out``, ``welded``, ``shells``, ``holes`` or ``hull`` (the last
        repair that applied; ``actions`` lists every step).
    actions : what was done, in words (empty: used as it is).
    exact : whether the result is the exact integral of the mesh as given (or as welded, the
        vertices moved by at most the tolerance); False after capping holes, a union by
        manifold3d (float64 booleans) or a convex hull.
    shells, welded, holes : counts (shells of the result, vertices merged by welding, holes
        capped).
    volume_bound : a bound on the relative effect of capping (0 when nothing was capped).
    hull_difference : with ``hull=True``: ``(V_hull - |V_mesh|) / V_hull``, the hull's excess
        over the mesh as a fraction of the hull's volume (``V_mesh`` the signed volume of the
        mesh as given, about its bounding box's centre; negative when the mesh's is larger,
        e.g. a shell given twice), else None.
    """

    kind: str
    actions: tuple[str, ...] = ()
    exact: bool = True
    shells: int = 1
    welded: int = 0
    holes: int = 0
    volume_bound: float = 0.0
    hull_difference: float | None = None
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready values."""
        return {
            "class": self.kind,
            "actions": list(self.actions),
            "exact": self.exact,
            "shells": self.shells,
            "welded_vertices": self.welded,
            "holes_capped": self.holes,
            "volume_bound": self.volume_bound,
            "hull_difference": self.hull_difference,
        }

    def summary(self) -> str:
        """One line: the class and what was done."""
        done = "; ".join(self.actions) if self.actions else "used as it is"
        return f"{self.kind}: {done}"


def _size(vertices: np.ndarray) -> float:
    return float(np.linalg.norm(vertices.max(axis=0) - vertices.min(axis=0)))


def weld(vertices: np.ndarray, faces: np.ndarray, tolerance: float) -> tuple[Any, Any, int]:
    """Merge vertices closer than ``tolerance`` (clusters: connected pairs, a k-d tree's
    ``query_pairs``), keep each cluster's first vertex; drop triangles that collapse.
    ``(vertices, faces, merged count)``."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components
    from scipy.spatial import cKDTree

    n = len(vertices)
    pairs = cKDTree(vertices).query_pairs(tolerance, output_type="ndarray")
    if len(pairs) == 0:
        return vertices, faces, 0
    graph = coo_matrix((np.ones(len(pairs)), (pairs[:, 0], pairs[:, 1])), shape=(n, n))
    count, labels = connected_components(graph, directed=False)
    first = np.full(count, n, dtype=np.int64)
    np.minimum.at(first, labels, np.arange(n))
    keep = np.zeros(n, dtype=bool)
    keep[first] = True
    new_index = np.cumsum(keep) - 1
    mapping = new_index[first[labels]]
    merged_faces = mapping[faces]
    good = (
        (merged_faces[:, 0] != merged_faces[:, 1])
        & (merged_faces[:, 1] != merged_faces[:, 2])
        & (merged_faces[:, 0] != merged_faces[:, 2])
    )
    return vertices[keep], merged_faces[good], n - count


def _open_edges(faces: np.ndarray, vertex_count: int) -> np.ndarray:
    """Indices into the directed edges ``u -> v`` (triangle ``k``'s edges at ``3 k``, ``3 k + 1``,
    ``3 k + 2``: 0-1, 1-2, 2-0) whose reverse ``v -> u`` no triangle has: the boundary."""
    start = faces.reshape(-1).astype(np.int64)
    end = faces[:, [1, 2, 0]].reshape(-1).astype(np.int64)
    return np.flatnonzero(~np.isin(start * vertex_count + end, end * vertex_count + start))


def split_t_junctions(
    vertices: np.ndarray, faces: np.ndarray, tolerance: float, longest: int = 64
) -> tuple[np.ndarray, int]:
    """``(faces, triangles split)``: cracks between two tessellations of one curve closed.

    Where two patches meet along a curve that each discretised on its own, one patch's open
    edge ``a -> b`` faces a path of the other's open edges ``b -> mk -> ... -> m1 -> a`` (at
    most ``longest`` edges), whose inner nodes lie on the curve, so within ``tolerance`` (the
    tessellation's chordal deflection) of the chord ``ab`` and in order along it: a T-junction.
    Its triangle ``(a, b, c)`` is split into the fan ``(a, m1, c)``, ``(m1, m2, c)``, ...,
    ``(mk, b, c)``, whose new edges are the path's, reversed: the crack is closed and no vertex
    moves. Only such paths of open edges are followed, so a closed surface, or a hole that is
    no crack, is left as it is."""
    faces = np.asarray(faces, dtype=np.int64)
    split = 0
    for _ in range(8):  # a triangle with T-junctions on two sides is split over two passes
        boundary = _open_edges(faces, len(vertices))
        if len(boundary) == 0:
            break
        triangle, corner = np.divmod(boundary, 3)
        starts = faces[triangle, corner].tolist()
        ends = faces[triangle, (corner + 1) % 3].tolist()
        following: dict[int, list[int]] = {}
        for u, v in zip(starts, ends, strict=True):
            following.setdefault(u, []).append(v)
        edges = np.sort(np.concatenate([faces[:, [0, 1]], faces[:, [1, 2]], faces[:, [2, 0]]]), 1)
        existing = set(map(tuple, edges.tolist()))
        fans: dict[int, list[list[int]]] = {}
        closed: set[int] = set()  # the nodes of cracks closed in this pass
        for t, k, a, b in zip(triangle.tolist(), corner.tolist(), starts, ends, strict=True):
            if t in fans or a in closed:
                continue
            path = _crack_path(vertices, following, a, b, tolerance, longest)
            c = int(faces[t, (k + 2) % 3])
            chain = [a, *path, b]
            # one edge of a crack is split, once; the fan's new edges c - m must be new (a
            # small hole whose sides are all within the tolerance is left to capping)
            if (
                path
                and closed.isdisjoint(chain)
                and not any((min(c, m), max(c, m)) in existing for m in path)
            ):
                fans[t] = [[chain[i], chain[i + 1], c] for i in range(len(chain) - 1)]
                closed.update(chain)
        if not fans:
            break
        keep = np.ones(len(faces), dtype=bool)
        keep[list(fans)] = False
        added = np.array([tri for fan in fans.values() for tri in fan], dtype=np.int64)
        faces = np.concatenate([faces[keep], added])
        split += len(fans)
    return faces, split


def _crack_path(
    vertices: np.ndarray,
    following: dict[int, list[int]],
    a: int,
    b: int,
    tolerance: float,
    longest: int,
) -> list[int]:
    """The inner nodes ``m1 .. mk`` (from ``a`` to ``b``) of a path of open edges from ``b`` back
    to ``a`` that runs along the chord ``ab`` within ``tolerance``; empty if there is none."""
    p, chord = vertices[a], vertices[b] - vertices[a]
    length2 = float(chord @ chord)
    if length2 == 0.0:
        return []
    path: list[int] = []
    here, along = b, 1.0
    for _ in range(longest):
        nexts = following.get(here, [])
        if a in nexts:
            return path[::-1]
        step = None
        for m in nexts:
            s = float((vertices[m] - p) @ chord) / length2
            gap = float(np.linalg.norm(vertices[m] - p - s * chord))
            if 0.0 < s < along and gap <= tolerance:
                step = (m, s)
                break
        if step is None:
            return []
        here, along = step
        path.append(here)
    return []


def shell_labels(faces: np.ndarray, vertex_count: int) -> tuple[int, np.ndarray]:
    """``(count, label per triangle)``: the connected pieces (triangles sharing vertices)."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    rows = np.concatenate([faces[:, 0], faces[:, 1]])
    cols = np.concatenate([faces[:, 1], faces[:, 2]])
    graph = coo_matrix(
        (np.ones(len(rows), dtype=np.int8), (rows, cols)), shape=(vertex_count, vertex_count)
    )
    count, labels = connected_components(graph, directed=False)
    if count == 1:
        return 1, np.zeros(len(faces), dtype=np.int64)
    used = np.unique(labels[faces[:, 0]])  # isolated vertices are no shells
    relabel = np.full(count, -1, dtype=np.int64)
    relabel[used] = np.arange(len(used))
    return len(used), relabel[labels[faces[:, 0]]]


def _signed_volume(vertices: np.ndarray, faces: np.ndarray) -> float:
    origin = 0.5 * (vertices.min(axis=0) + vertices.max(axis=0))
    a, b, c = (vertices[faces[:, k]] - origin for k in range(3))
    return float(np.sum(np.einsum("ij,ij->i", a, np.cross(b, c)))) / 6.0


def winding_numbers(points: np.ndarray, vertices: np.ndarray, faces: np.ndarray) -> np.ndarray:
    """The generalised winding number of each point with respect to the closed surface
    (sum of the triangles' signed solid angles over ``4 pi``, Van Oosterom and Strackee
    1983): about 1 inside an outward surface, 0 outside."""
    out = np.empty(len(points))
    for k, p in enumerate(points):
        a, b, c = (vertices[faces[:, i]] - p for i in range(3))
        la, lb, lc = (np.linalg.norm(x, axis=1) for x in (a, b, c))
        det = np.einsum("ij,ij->i", a, np.cross(b, c))
        den = (
            la * lb * lc
            + np.einsum("ij,ij->i", a, b) * lc
            + np.einsum("ij,ij->i", b, c) * la
            + np.einsum("ij,ij->i", c, a) * lb
        )
        out[k] = float(np.sum(np.arctan2(det, den))) / (2.0 * math.pi)
    return out


def _boxes_overlap(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> bool:
    return bool(np.all(a[0] <= b[1]) and np.all(b[0] <= a[1]))


def _shells(
    vertices: np.ndarray, faces: np.ndarray, count: int, labels: np.ndarray
) -> tuple[np.ndarray, np.ndarray, list[str], bool]:
    """Several closed shells as one solid: ``(vertices, faces, actions, exact)``."""
    pieces = [faces[labels == k] for k in range(count)]
    actions: list[str] = []
    flipped = 0
    for k, piece in enumerate(pieces):
        if _signed_volume(vertices, piece) < 0.0:
            pieces[k] = piece[:, ::-1]
            flipped += 1
    boxes = []
    for piece in pieces:
        used = vertices[np.unique(piece)]
        boxes.append((used.min(axis=0), used.max(axis=0)))
    rng = np.random.default_rng(0)
    contains = np.zeros((count, count), dtype=bool)  # contains[i, j]: j inside i
    overlapping: list[tuple[int, int]] = []
    for i in range(count):
        for j in range(count):
            if i == j or not _boxes_overlap(boxes[i], boxes[j]):
                continue
            ids = np.unique(pieces[j])
            sample = ids if len(ids) <= NESTING_SAMPLES else rng.choice(ids, NESTING_SAMPLES)
            inside = winding_numbers(vertices[sample], vertices, pieces[i]) > 0.5
            if inside.all():
                contains[i, j] = True
            elif inside.any() and i < j:
                overlapping.append((i, j))
    # j overlaps i also when no sampled vertex is inside but the surfaces cross: manifold3d
    # decides for every pair of shells whose boxes meet and that are not nested
    for i in range(count):
        for j in range(i + 1, count):
            if (
                _boxes_overlap(boxes[i], boxes[j])
                and not contains[i, j]
                and not contains[j, i]
                and (i, j) not in overlapping
            ):
                overlapping.append((i, j))
    depth = contains.sum(axis=0)
    if flipped:
        actions.append(f"turned {flipped} inward-facing shells outward")
    holes = int(np.count_nonzero(depth % 2 == 1))
    if holes:
        actions.append(f"took {holes} shells lying inside others as cavities (even-odd nesting)")
    oriented = [p if d % 2 == 0 else p[:, ::-1] for p, d in zip(pieces, depth, strict=True)]
    exact_faces = np.concatenate(oriented)
    if not overlapping:
        actions.insert(0, f"{count} disjoint or nested shells: exact integrals")
        return vertices, exact_faces, actions, True
    union_v, union_f, changed = _manifold_solid(vertices, pieces, depth)
    if not changed:
        actions.insert(0, f"{count} shells touching but not overlapping: exact integrals")
        return vertices, exact_faces, actions, True
    summed = sum(abs(_signed_volume(vertices, p)) * (1 if d % 2 == 0 else -1)
                 for p, d in zip(pieces, depth, strict=True))  # fmt: skip
    actions.insert(
        0,
        f"{count} shells, {len(overlapping)} pairs overlapping: unioned with manifold3d "
        f"(volume {_signed_volume(union_v, union_f):.10g} instead of the sum "
        f"{summed:.10g}, file units^3)",
    )
    return union_v, union_f, actions, False


def _manifold_solid(
    vertices: np.ndarray, pieces: list[np.ndarray], depth: np.ndarray
) -> tuple[np.ndarray, np.ndarray, bool]:
    """The even-odd solid of the outward shells by manifold3d's booleans (float64 meshes):
    ``(vertices, faces, whether it differs from the signed sum)``."""
    try:
        import manifold3d
    except ImportError:
        raise MeshDefect(
            "has overlapping shells: their union needs manifold3d (pip install "
            "'rigidparts[mesh]'); never summed"
        ) from None
    solids: dict[int, Any] = {}
    for piece, d in zip(pieces, depth, strict=True):
        ids, local = np.unique(piece, return_inverse=True)
        mesh = manifold3d.Mesh64(
            vert_properties=np.ascontiguousarray(vertices[ids], dtype=np.float64),
            tri_verts=np.ascontiguousarray(local.reshape(-1, 3), dtype=np.uint64),
        )
        solid = manifold3d.Manifold(mesh)
        if solid.status() != manifold3d.Error.NoError:
            raise MeshDefect(
                f"has a shell manifold3d cannot take as a solid ({solid.status().name}): "
                "repair it in a mesh tool"
            )
        key = int(d)
        solids[key] = solid if key not in solids else solids[key] + solid
    result = None
    for d in sorted(solids):
        if result is None:
            result = solids[d]
        elif d % 2 == 1:
            result = result - solids[d]
        else:
            result = result + solids[d]
    assert result is not None
    out = result.to_mesh64()
    v = np.asarray(out.vert_properties, dtype=np.float64)[:, :3]
    f = np.asarray(out.tri_verts, dtype=np.int64)
    summed = sum(abs(_signed_volume(vertices, p)) * (1 if d % 2 == 0 else -1)
                 for p, d in zip(pieces, depth, strict=True))  # fmt: skip
    changed = abs(_signed_volume(v, f) - summed) > 1e-9 * abs(summed)
    return v, f, changed


def cap_holes(
    vertices: np.ndarray, faces: np.ndarray
) -> tuple[np.ndarray, np.ndarray, int, float, float]:
    """Cap every boundary loop by a fan from its centroid: ``(vertices, faces, holes, sum of
    the (2/3) pi r^3 bounds, largest r)``; MeshDefect when the boundary is not simple loops."""
    n = len(vertices)
    single = _open_edges(faces, n)
    a, b = faces.reshape(-1)[single], faces[:, [1, 2, 0]].reshape(-1)[single]
    if len(a) > 100_000:
        raise MeshDefect(f"is open along {len(a)} edges: too many to cap as small holes")
    nxt: dict[int, int] = {}
    for u, v in zip(a.tolist(), b.tolist(), strict=True):
        if u in nxt:
            raise MeshDefect(
                "is open along edges that do not form simple loops (a boundary vertex "
                "starts two open edges): not a mesh with small holes"
            )
        nxt[u] = v
    seen: set[int] = set()
    new_vertices = [vertices]
    new_faces = [faces]
    bound = 0.0
    largest = 0.0
    holes = 0
    index = n
    for first in nxt:
        if first in seen:
            continue
        loop = [first]
        seen.add(first)
        here = nxt[first]
        while here != first:
            if here in seen or here not in nxt:
                raise MeshDefect(
                    "is open along edges that do not form simple loops: not a mesh with small holes"
                )
            loop.append(here)
            seen.add(here)
            here = nxt[here]
        ring = vertices[loop]
        centre = ring.mean(axis=0)
        r = float(np.max(np.linalg.norm(ring - centre, axis=1)))
        bound += (2.0 / 3.0) * math.pi * r**3
        largest = max(largest, r)
        # the hole's edges run u -> v in their triangles: the cap runs v -> u
        ids = np.array(loop)
        cap = np.column_stack([np.full(len(ids), index), np.roll(ids, -1), ids])
        new_vertices.append(centre[None, :])
        new_faces.append(cap)
        index += 1
        holes += 1
    return np.concatenate(new_vertices), np.concatenate(new_faces), holes, bound, largest


def _flat(vertices: np.ndarray) -> str:
    """What a set of points without a convex hull of volume is: on a line, in a plane."""
    spread = np.linalg.svd(vertices - vertices.mean(axis=0), compute_uv=False)
    if spread[0] == 0.0:
        return "all its points coincide"
    if spread[1] <= 1e-9 * spread[0]:
        return "its points lie on a line"
    return "its points are coplanar"


def _hull(vertices: np.ndarray, faces: np.ndarray, reason: str) -> tuple[Any, Any, MeshReport]:
    from scipy.spatial import ConvexHull, QhullError

    if len(vertices) < 4:
        raise MeshDefect(f"has no volume either ({len(vertices)} points)")
    try:
        hull = ConvexHull(vertices)
    except QhullError:  # Qhull's own words are a page long
        raise MeshDefect(f"has no volume either ({_flat(vertices)})") from None
    simplices = hull.simplices.copy()
    # outward: each facet's normal (hull.equations) against its winding
    a, b, c = (vertices[simplices[:, k]] for k in range(3))
    wrong = np.einsum("ij,ij->i", np.cross(b - a, c - a), hull.equations[:, :3]) < 0.0
    simplices[wrong] = simplices[wrong][:, ::-1]
    v_hull = _signed_volume(vertices, simplices)
    v_mesh = _signed_volume(vertices, faces)
    # relative to the hull, whose volume is positive (an open mesh's may be near zero)
    difference = (v_hull - abs(v_mesh)) / v_hull
    report = MeshReport(
        kind="hull",
        actions=(
            f"refused as given ({reason})",
            f"used its convex hull instead (hull=True): volume {v_hull:.10g} against the "
            f"mesh's signed volume {v_mesh:.10g} (file units^3): (hull - |mesh|) / hull = "
            f"{100 * difference:.3g} %",
        ),
        exact=False,
        hull_difference=difference,
    )
    return vertices, simplices, report


def classify(
    vertices: np.ndarray,
    faces: np.ndarray,
    *,
    weld_tolerance: float = DEFAULT_WELD,
    hull: bool = False,
) -> tuple[np.ndarray, np.ndarray, PolyhedronIntegrals, MeshReport]:
    """``(vertices, faces, integrals, report)`` of the solid a mesh bounds (module docstring),
    or MeshDefect with the reason (with ``hull=True``: its convex hull instead)."""
    vertices, faces = merge_exact(vertices, faces)
    try:
        return _classify(vertices, faces, weld_tolerance)
    except MeshDefect as exc:
        refused = MeshDefect(f"{exc}{weld_hint(vertices, faces, weld_tolerance)}")
        if not hull:
            raise refused from None
        try:
            v, f, report = _hull(vertices, faces, str(refused))
            return v, f, integrals(v, f), report
        except MeshDefect as no_hull:  # flat or collinear points, or too few
            raise MeshDefect(f"{refused}; its convex hull {no_hull}") from None


def weld_hint(vertices: np.ndarray, faces: np.ndarray, weld_tolerance: float) -> str:
    """``"; its open edges ... (--weld W / weld=W)"`` when welding within ``W`` times the size
    closes every open edge of the mesh, else ``""``.

    Each open edge ``u -> v`` is paired with the nearest reversed open edge ``v' -> u'`` (a
    k-d tree over the points ``(u, v)`` and ``(v', u')`` of R^6); the largest such distance
    ``g`` is the widest gap. ``W`` is ``g / size`` rounded up to a power of ten above twice
    it, at most :data:`NEAR_GAP`, and named only when a trial weld within ``W size`` leaves
    no defective edge. (A hole's edges pair with edges a side away: no hint.)"""
    from scipy.spatial import cKDTree

    size = _size(vertices)
    single = _open_edges(faces, len(vertices))
    if len(single) < 2 or not size > 0.0:
        return ""
    start = vertices[faces.reshape(-1)[single]]
    end = vertices[faces[:, [1, 2, 0]].reshape(-1)[single]]
    # an edge's own reverse (distance sqrt(2) times its length) is never the nearest of a crack
    gaps, _ = cKDTree(np.hstack([end, start])).query(np.hstack([start, end]))
    gap = float(np.max(gaps))
    if not 0.0 < gap <= NEAR_GAP * size:
        return ""
    value = 10.0 ** math.ceil(math.log10(2.0 * gap / size))
    if value == weld_tolerance:  # the weld that was tried: no news
        return ""
    w_vertices, w_faces, _ = weld(vertices, faces, value * size)
    if edge_defects(w_faces, len(w_vertices)) != (0, 0, 0):
        return ""
    return (
        f"; its open edges lie within {gap:.2g} file units ({gap / size:.2g} of the size) of "
        f"reversed ones: welding within {value:g} of the size closes them (--weld {value:g} / "
        f"weld={value:g})"
    )


def _classify(
    vertices: np.ndarray, faces: np.ndarray, weld_tolerance: float
) -> tuple[np.ndarray, np.ndarray, PolyhedronIntegrals, MeshReport]:
    if len(faces) < 4:
        raise MeshDefect(f"has {len(faces)} triangles: a closed surface needs at least 4")
    actions: list[str] = []
    kind = "closed"
    welded = 0
    single, many, same = edge_defects(faces, len(vertices))
    given_vertices, given_faces, given_defects = vertices, faces, (single, many, same)
    tolerance = 0.0
    if single or many or same:
        size = _size(vertices)
        if weld_tolerance > 0.0 and size > 0.0:
            tolerance = weld_tolerance * size
            w_vertices, w_faces, welded = weld(vertices, faces, tolerance)
            if welded:
                w_single, w_many, w_same = edge_defects(w_faces, len(w_vertices))
                if (w_single, w_many, w_same) < (single, many, same) or not (
                    w_single or w_many or w_same
                ):
                    vertices, faces = w_vertices, w_faces
                    single, many, same = w_single, w_many, w_same
                    kind = "welded"
                    actions.append(
                        f"welded {welded} vertices lying within {tolerance:.3g} (file units; "
                        f"{weld_tolerance:g} of the size) of another"
                    )
    try:
        return _repair(vertices, faces, (single, many, same), kind, actions, welded)
    except MeshDefect as exc:
        if kind != "welded":  # not welded (or the weld was no better, and not kept)
            raise
        after = (
            f"after welding {welded} vertices lying within {tolerance:.3g} file units "
            f"({weld_tolerance:g} of the size) of another, {exc}"
        )
        try:  # the welding's doing?
            unwelded = _repair(given_vertices, given_faces, given_defects, "closed", [], 0)
        except MeshDefect:
            raise MeshDefect(after) from None
        if weld_tolerance != DEFAULT_WELD:  # a weld the user asked for: theirs to change
            raise MeshDefect(
                f"{after}; unwelded it is accepted: give a smaller weld (--weld / weld=; 0: none)"
            ) from None
        # the default weld, nobody's choice, broke a mesh accepted as given: as given, said
        v, f, found, report = unwelded
        note = (
            f"not welded: the default weld ({DEFAULT_WELD:g} of the size) would have merged "
            f"{welded} vertices and left it refused ({exc})"
        )
        return v, f, found, replace(report, actions=(note, *report.actions))


def _repair(
    vertices: np.ndarray,
    faces: np.ndarray,
    defects: tuple[int, int, int],
    kind: str,
    actions: list[str],
    welded: int,
) -> tuple[np.ndarray, np.ndarray, PolyhedronIntegrals, MeshReport]:
    """Classes 4 to 6 (module docstring) of a mesh whose edge ``defects`` are
    ``(single, many, same)`` (:func:`~rigidparts.polyhedron.edge_defects`)."""
    single, many, same = defects
    actions = list(actions)
    holes = 0
    bound = 0.0
    exact = True
    if single and not many and not same:
        v_capped, f_capped, holes, bound_abs, largest = cap_holes(vertices, faces)
        volume = abs(_signed_volume(v_capped, f_capped))
        relative = bound_abs / volume if volume > 0.0 else math.inf
        if relative > HOLE_LIMIT:
            # beyond the volume itself the ratio says nothing (a soup of loose triangles,
            # capped, encloses about zero): the bound and the volume are stated instead
            reach = (
                f"{relative:.2g} of the volume, over {HOLE_LIMIT:g}"
                if relative <= 1.0
                else f"{bound_abs:.2g} file units^3, more than the {volume:.2g} file units^3 "
                "the capped surface encloses"
            )
            raise MeshDefect(
                f"is not a closed surface (not watertight): {single} edges belong to one "
                f"triangle only, around {holes} holes of radius up to {largest:.4g} file units "
                f"(their effect could reach {reach}: not small holes, perhaps an open bore; "
                "not filled)"
            )
        vertices, faces = v_capped, f_capped
        single = 0
        kind = "holes"
        exact = False
        bound = relative
        actions.append(
            f"capped {holes} small holes (radius up to {largest:.3g} file units) by fans; "
            f"volume effect at most {relative:.2g} of the volume if the missing surface lies "
            "within each hole's bounding ball"
        )
    if single or many or same:
        parts = []
        if single:
            parts.append(f"{single} edges belong to one triangle only (holes or gaps)")
        if many:
            parts.append(f"{many} edges are shared by more than two triangles (non-manifold)")
        if same:
            parts.append(
                f"{same} edges are traversed in the same direction by both their triangles "
                "(inconsistently wound: some triangles face inward, some outward; fix the "
                "normals, e.g. trimesh.repair.fix_normals)"
            )
        raise MeshDefect(f"is not a closed, consistently wound surface: {'; '.join(parts)}")
    count, labels = shell_labels(faces, len(vertices))
    if count > 1:
        vertices, faces, more, shell_exact = _shells(vertices, faces, count, labels)
        actions += more
        exact = exact and shell_exact
        kind = "shells"
    found = integrals(vertices, faces, flip_inward=count == 1)
    if found.flipped:
        faces = faces[:, ::-1]
        actions.append("flipped every triangle (the surface faced inward)")
        if kind == "closed":
            kind = "inside-out"
    report = MeshReport(
        kind=kind,
        actions=tuple(actions),
        exact=exact,
        shells=count,
        welded=welded,
        holes=holes,
        volume_bound=bound,
    )
    return vertices, faces, found, report
