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

__all__ = ["MeshDefect", "PolyhedronIntegrals", "check_closed", "integrals", "merge_exact"]

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

    def inertia(self, density: float = 1.0) -> np.ndarray:
        """``rho (tr(S) 1 - S)``: the inertia about the centroid, the mesh's axes. Each diagonal
        term is a sum of two positive second moments (no cancellation)."""
        s = self.second_moment
        out = -s.copy()
        out[0, 0] = s[1, 1] + s[2, 2]
        out[1, 1] = s[0, 0] + s[2, 2]
        out[2, 2] = s[0, 0] + s[1, 1]
        return density * out


def merge_exact(vertices: np.ndarray, faces: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Merge bitwise-identical vertices (an STL repeats each vertex once per triangle; ``+ 0.0``
    makes -0.0 equal 0.0) and drop triangles that then repeat a vertex (zero area: they add
    nothing to any integral). No tolerance: distinct points stay distinct."""
    unique, inverse = np.unique(vertices + 0.0, axis=0, return_inverse=True)
    faces = inverse.reshape(-1)[faces]
    keep = (
        (faces[:, 0] != faces[:, 1]) & (faces[:, 1] != faces[:, 2]) & (faces[:, 0] != faces[:, 2])
    )
    return unique, faces[keep]


def check_closed(faces: np.ndarray, vertex_count: int) -> None:
    """:class:`MeshDefect` unless every edge is shared by exactly two triangles that traverse
    it in opposite directions (a closed, consistently wound, edge-manifold surface)."""
    faces = np.asarray(faces, dtype=np.int64)
    if faces.ndim != 2 or faces.shape[1] != 3 or len(faces) < 4:
        raise MeshDefect(f"has {len(faces)} triangles: a closed surface needs at least 4")
    start = faces.reshape(-1)
    end = faces[:, [1, 2, 0]].reshape(-1)
    low, high = np.minimum(start, end), np.maximum(start, end)
    key = low * np.int64(vertex_count) + high
    order = np.argsort(key, kind="stable")
    key = key[order]
    forward = (start < end)[order]
    # Runs of equal keys: each undirected edge must occur exactly twice.
    boundaries = np.flatnonzero(np.diff(key)) + 1
    counts = np.diff(np.concatenate(([0], boundaries, [len(key)])))
    if np.any(counts != 2):
        single = int(np.count_nonzero(counts == 1))
        many = int(np.count_nonzero(counts > 2))
        parts = []
        if single:
            parts.append(f"{single} edges belong to one triangle only (holes or gaps)")
        if many:
            parts.append(f"{many} edges are shared by more than two triangles (non-manifold)")
        raise MeshDefect(f"is not a closed surface (not watertight): {'; '.join(parts)}")
    same = forward[0::2] == forward[1::2]
    if np.any(same):
        raise MeshDefect(
            f"is inconsistently wound: {int(np.count_nonzero(same))} edges are traversed in the "
            "same direction by both their triangles (some triangles face inward, some outward; "
            "fix the normals, e.g. trimesh.repair.fix_normals)"
        )


def _tetrahedra(v: np.ndarray, faces: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(P, 6 V_t)``: ``P[k, p, t]`` is coordinate ``k`` of point ``p`` (``a, b, c, s = a + b +
    c``) of triangle ``t``, contiguous along ``t`` so that every sum runs where numpy sums
    pairwise; ``6 V_t = a . (b x c)``."""
    corners = np.ascontiguousarray(faces.T)
    points = np.empty((3, 4, len(faces)))
    for k in range(3):
        coordinate = np.ascontiguousarray(v[:, k])
        for p in range(3):
            points[k, p] = coordinate[corners[p]]
        np.add(points[k, 0], points[k, 1], out=points[k, 3])
        points[k, 3] += points[k, 2]
    (ax, ay, az), (bx, by, bz), (cx, cy, cz) = points[:, 0], points[:, 1], points[:, 2]
    six_volume = ax * (by * cz - bz * cy) + ay * (bz * cx - bx * cz) + az * (bx * cy - by * cx)
    return points, six_volume


def integrals(vertices: np.ndarray, faces: np.ndarray) -> PolyhedronIntegrals:
    """Volume, centroid and central second moment of the solid bounded by the closed,
    outward-facing triangle surface ``(vertices (n, 3), faces (m, 3))`` (checked with
    :func:`check_closed` first). :class:`MeshDefect` for a zero or negative volume."""
    vertices = np.asarray(vertices, dtype=np.float64)
    faces = np.asarray(faces, dtype=np.intp)
    # Relative to the bounding box's centre: the coordinates keep the digits of the body's
    # size, not of its distance from the origin.
    origin = 0.5 * (vertices.min(axis=0) + vertices.max(axis=0))
    d = vertices - origin
    points, six_v = _tetrahedra(d, faces)
    volume = float(np.sum(six_v)) / 6.0
    magnitude = float(np.sum(np.abs(six_v))) / 6.0
    if not abs(volume) > DEGENERATE_RELATIVE_VOLUME * magnitude:
        raise MeshDefect(
            f"encloses no volume (degenerate: volume {volume!r} against {magnitude!r} summed "
            "over its triangles; a flat or collapsed surface)"
        )
    if volume < 0.0:
        raise MeshDefect(
            f"faces inward (its volume is negative, {volume!r}): its triangles are wound "
            "clockwise seen from outside; flip them (reverse each triangle's vertex order, e.g. "
            "trimesh's mesh.invert()) and save it again"
        )
    g = np.sum(six_v * points[:, 3, :], axis=1) / (24.0 * volume)
    # Second pass about the first pass's centroid: no cancellation when shifting.
    points, six_v = _tetrahedra(d - g, faces)
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
    return PolyhedronIntegrals(volume, centroid, second)
