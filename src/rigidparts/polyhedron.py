"""Exact mass properties of a closed triangle mesh (the solid it bounds), and its checks.

The integrals are those of Mirtich (1996) and Eberly ("Polyhedral Mass Properties"), written
per triangle through the divergence theorem: each triangle ``(a, b, c)`` and a reference point
``O`` span a signed tetrahedron of volume ``V_t = a . (b x c) / 6`` (vertices relative to
``O``), whose integrals are

- ``int 1 dV = V_t``,
- ``int x dV = V_t (a + b + c) / 4``,
- ``int x x^T dV = V_t / 20 (a a^T + b b^T + c c^T + s s^T)``, ``s = a + b + c``;

their sums over a closed, outward-facing surface are the integrals over the solid, exactly (the
tetrahedra outside the solid cancel). Accuracy far from the origin: the vertices are first taken
relative to the centre of their bounding box (a part a kilometre from the origin keeps its
digits), the second moments are summed about the centroid found in a first pass (no
cancellation in the parallel-axis shift), and the sums are numpy's pairwise sums (error
``O(eps log n)`` relative to the sum of magnitudes). numpy only: the core layer.

Everything here is in the mesh's own length unit; :mod:`rigidparts.shapes.mesh_body` scales.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "MeshDefect",
    "PolyhedronIntegrals",
    "check_closed",
    "edge_defects",
    "integrals",
    "merge_exact",
]

#: A volume this small against the sum of the tetrahedra's magnitudes is rounding noise: the
#: surface encloses nothing (a flat or collapsed mesh).
DEGENERATE_RELATIVE_VOLUME = 1e-12


class MeshDefect(ValueError):
    """A mesh that does not bound a solid: ``str(exc)`` says what is wrong (and how to fix it)."""


@dataclass(frozen=True)
class PolyhedronIntegrals:
    """The geometric integrals of a solid, in the mesh's length unit ``u``.

    volume : ``V`` (u^3), positive.
    centroid : ``c`` (u), in the mesh's coordinates.
    second_moment : ``S = int (x - c)(x - c)^T dV`` (u^5), about the centroid, the mesh's axes.
    The inertia about the centroid for density ``rho`` is ``rho (tr(S) 1 - S)``.
    """

    volume: float
    centroid: np.ndarray
    second_moment: np.ndarray
    #: The surface faced inward and was taken flipped (``integrals(..., flip_inward=True)``).
    flipped: bool = False

    def inertia(self, density: float = 1.0) -> np.ndarray:
        """``rho (tr(S) 1 - S)``: the inertia about the centroid, the mesh's axes. Each diagonal
        term is a sum of two positive second moments (no cancellation)."""
        s = self.second_moment
        out = -s.copy()
        out[0, 0] = s[1, 1] + s[2, 2]
        out[1, 1] = s[0, 0] + s[2, 2]
        out[2, 2] = s[0, 0] + s[1, 1]
        return density * out


def _hash_order(bits: list[np.ndarray], seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``(order, new)`` from one plain sort of packed keys ``hash (high bits) | row index (low
    bits)``: rows with equal hashes adjacent, in index order within a run (so the run's first
    is its smallest index); ``new[i]`` true where position ``i`` starts a new hash."""
    n = len(bits[0])
    shift = np.uint64(max(1, (n - 1).bit_length()))
    h = np.full(n, seed, dtype=np.uint64)
    for column in bits:
        # splitmix64's finaliser after each coordinate: every input bit reaches the top bits
        h ^= column
        h ^= h >> np.uint64(30)
        h *= np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(27)
        h *= np.uint64(0x94D049BB133111EB)
        h ^= h >> np.uint64(31)
    h >>= shift
    h <<= shift
    h |= np.arange(n, dtype=np.uint64)
    h.sort()
    order = (h & ((np.uint64(1) << shift) - np.uint64(1))).astype(np.intp)
    h >>= shift
    new = np.empty(n, dtype=bool)
    new[0] = True
    np.not_equal(h[1:], h[:-1], out=new[1:])
    return order, new


def _lexicographic_order(bits: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """``(order, new)`` as :func:`_hash_order`, exactly: a stable lexicographic sort."""
    order = np.lexsort(bits[::-1])
    new = np.zeros(len(order), dtype=bool)
    new[0] = True
    for column in bits:
        s = column[order]
        new[1:] |= s[1:] != s[:-1]
    return order, new


def _labels(order: np.ndarray, new: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(is_first, inverse)``: whether each row is the first of its run, and the index of its
    run's first row among the firsts (runs numbered in the order of their first rows)."""
    n = len(order)
    starts = np.flatnonzero(new)
    first = order[starts]  # the smallest index of each run: the sorts are stable
    is_first = np.zeros(n, dtype=bool)
    is_first[first] = True
    # (scatters and a repeat: cheaper than cumulative sums over all n rows)
    rank = np.empty(n, dtype=np.int64)
    rank[np.flatnonzero(is_first)] = np.arange(len(first))
    inverse = np.empty(n, dtype=np.int64)
    inverse[order] = np.repeat(rank[first], np.diff(starts, append=n))
    return is_first, inverse


def merge_exact(vertices: np.ndarray, faces: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Merge bitwise-identical vertices (an STL repeats each vertex once per triangle; ``+ 0.0``
    makes -0.0 equal 0.0) and drop triangles that then repeat a vertex (zero area: they add
    nothing to any integral). No tolerance: distinct points stay distinct. The merged vertices
    keep the order of their first occurrence (a mesh without repeats comes back unchanged).

    Vectorised, no loop over rows: the rows are grouped by one sort of a 64-bit key holding a
    row hash and the row's index, then every row is compared with its group's first row; a
    hash collision (a group of different rows, found by that comparison) is retried with
    another hash, then settled by a lexicographic sort (exact, a few times slower)."""
    vertices = np.asarray(vertices, dtype=np.float64) + 0.0
    faces = np.asarray(faces)
    n = len(vertices)
    if n > 1:
        # Bit patterns compare as the values do: no -0.0 (above); a nan (rejected by the
        # callers before) would only stay unmerged.
        bits = [np.ascontiguousarray(vertices[:, k]).view(np.uint64) for k in range(3)]
        for seed in (0x9E3779B97F4A7C15, 0x5851F42D4C957F2D):
            is_first, inverse = _labels(*_hash_order(bits, seed))
            # Identical rows hash alike (one group); a group is right when all its rows equal
            # its first row.
            if all(np.array_equal(column[is_first][inverse], column) for column in bits):
                break
        else:
            is_first, inverse = _labels(*_lexicographic_order(bits))
        if not is_first.all():
            vertices = vertices[is_first]
            faces = inverse[faces]
    keep = (
        (faces[:, 0] != faces[:, 1]) & (faces[:, 1] != faces[:, 2]) & (faces[:, 0] != faces[:, 2])
    )
    return vertices, faces[keep]


def edge_defects(faces: np.ndarray, vertex_count: int) -> tuple[int, int, int]:
    """``(single, many, same)``: the undirected edges used by one triangle only (holes or
    gaps), by more than two (non-manifold), and by two triangles traversing them in the same
    direction (inconsistent winding); ``(0, 0, 0)`` for a closed, consistently wound,
    edge-manifold surface.

    One sort of the directed edges packed into int64 keys ``2 (min n + max) + (start < end)``:
    on a good surface the sorted keys come in pairs ``2 e, 2 e + 1``, one pair per edge ``e``
    (the defects are then counted by a slower path)."""
    faces = np.asarray(faces, dtype=np.int64)
    start = faces.reshape(-1)
    end = faces[:, [1, 2, 0]].reshape(-1)
    forward = start < end
    low, high = np.where(forward, start, end), np.where(forward, end, start)
    key = low * np.int64(vertex_count) + high
    if vertex_count < 2**31:  # 2 n^2 fits an int64: one plain sort decides a good surface
        # stable (timsort): a mesh's edge keys come in long sorted runs
        packed = np.sort(2 * key + forward, kind="stable")
        if len(packed) % 2 == 0:
            first, second = packed[0::2], packed[1::2]
            # each pair is (2 e, 2 e + 1): edge e once each way; sorted, the next pair's even key
            # is then above 2 e + 1, so no edge occurs more than twice
            if np.all(second - first == 1) and np.all(first & 1 == 0):
                return 0, 0, 0
    order = np.argsort(key, kind="stable")
    key = key[order]
    forward = forward[order]
    boundaries = np.flatnonzero(np.diff(key)) + 1
    starts = np.concatenate(([0], boundaries))
    counts = np.diff(np.concatenate((starts, [len(key)])))
    single = int(np.count_nonzero(counts == 1))
    many = int(np.count_nonzero(counts > 2))
    pairs = starts[counts == 2]
    same = int(np.count_nonzero(forward[pairs] == forward[pairs + 1]))
    return single, many, same


def check_closed(faces: np.ndarray, vertex_count: int) -> None:
    """:class:`MeshDefect` unless every edge is shared by exactly two triangles that traverse
    it in opposite directions (a closed, consistently wound, edge-manifold surface;
    :func:`edge_defects`)."""
    faces = np.asarray(faces, dtype=np.int64)
    if faces.ndim != 2 or faces.shape[1] != 3 or len(faces) < 4:
        raise MeshDefect(f"has {len(faces)} triangles: a closed surface needs at least 4")
    single, many, same = edge_defects(faces, vertex_count)
    if single or many:
        parts = []
        if single:
            parts.append(f"{single} edges belong to one triangle only (holes or gaps)")
        if many:
            parts.append(f"{many} edges are shared by more than two triangles (non-manifold)")
        raise MeshDefect(f"is not a closed surface (not watertight): {'; '.join(parts)}")
    if same:
        raise MeshDefect(
            f"is inconsistently wound: {same} edges are traversed in the "
            "same direction by both their triangles (some triangles face inward, some outward; "
            "fix the normals, e.g. trimesh.repair.fix_normals)"
        )


def _corners(v: np.ndarray, faces: np.ndarray) -> np.ndarray:
    """``P`` (3, 4, m): ``P[k, p, t]`` is coordinate ``k`` of corner ``p`` (``a, b, c``) of
    triangle ``t`` (``P[:, 3]`` is left for ``s = a + b + c``, see :func:`_spans`), contiguous
    along ``t`` so that every sum runs where numpy sums pairwise."""
    corners = np.ascontiguousarray(faces.T)
    points = np.empty((3, 4, len(faces)))
    for k in range(3):
        coordinate = np.ascontiguousarray(v[:, k])
        for p in range(3):
            np.take(coordinate, corners[p], out=points[k, p])
    return points


def _spans(points: np.ndarray) -> np.ndarray:
    """Fill ``s = a + b + c`` into ``points[:, 3]`` and return ``6 V_t = a . (b x c)``."""
    np.add(points[:, 0], points[:, 1], out=points[:, 3])
    points[:, 3] += points[:, 2]
    (ax, ay, az), (bx, by, bz), (cx, cy, cz) = points[:, 0], points[:, 1], points[:, 2]
    return ax * (by * cz - bz * cy) + ay * (bz * cx - bx * cz) + az * (bx * cy - by * cx)


def integrals(
    vertices: np.ndarray, faces: np.ndarray, *, flip_inward: bool = False
) -> PolyhedronIntegrals:
    """Volume, centroid and central second moment of the solid bounded by the closed,
    outward-facing triangle surface ``(vertices (n, 3), faces (m, 3))`` (checked with
    :func:`check_closed` first). :class:`MeshDefect` for a zero volume, and for a negative one
    unless ``flip_inward``: then the surface is taken with every triangle flipped (each
    tetrahedron's signed volume negated; ``flipped`` says so)."""
    vertices = np.asarray(vertices, dtype=np.float64)
    faces = np.asarray(faces, dtype=np.intp)
    # Relative to the bounding box's centre: the coordinates keep the digits of the body's
    # size, not of its distance from the origin.
    origin = 0.5 * (vertices.min(axis=0) + vertices.max(axis=0))
    d = vertices - origin
    points = _corners(d, faces)  # gathered once (the gather is the slow part)
    six_v = _spans(points)
    volume = float(np.sum(six_v)) / 6.0
    magnitude = float(np.sum(np.abs(six_v))) / 6.0
    if not abs(volume) > DEGENERATE_RELATIVE_VOLUME * magnitude:
        raise MeshDefect(
            f"encloses no volume (degenerate: volume {volume!r} against {magnitude!r} summed "
            "over its triangles; a flat or collapsed surface)"
        )
    flipped = False
    if volume < 0.0 and flip_inward:
        six_v = -six_v
        volume = -volume
        flipped = True
    if volume < 0.0:
        raise MeshDefect(
            f"faces inward (its volume is negative, {volume!r}): its triangles are wound "
            "clockwise seen from outside; flip them (reverse each triangle's vertex order, e.g. "
            "trimesh's mesh.invert()) and save it again"
        )
    g = np.sum(six_v * points[:, 3, :], axis=1) / (24.0 * volume)
    # Second pass about the first pass's centroid: no cancellation when shifting.
    # (the same numbers as gathering d - g: each corner's subtraction is the same)
    points[:, :3] -= g[:, None, None]
    six_v = _spans(points)
    if flipped:
        six_v = -six_v
    residual = np.sum(six_v * points[:, 3, :], axis=1) / (24.0 * volume)
    # sum_t V_t / 20 (a_i a_j + b_i b_j + c_i c_j + s_i s_j), V_t / 20 = 6 V_t / 120
    weighted = points * (six_v / 120.0)
    second = np.empty((3, 3))
    for i in range(3):
        for j in range(i, 3):
            second[i, j] = second[j, i] = np.sum(weighted[i] * points[j])
    # About the true centroid (g + residual): a correction of order eps^2.
    second -= volume * np.outer(residual, residual)
    centroid = origin + (g + residual)
    return PolyhedronIntegrals(volume, centroid, second, flipped)
