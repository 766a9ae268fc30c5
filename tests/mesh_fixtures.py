"""Meshes with the defects OpenCascade's mesher leaves (shared by the mesh and STEP tests)."""

from __future__ import annotations

import numpy as np


def rotated_triangle(t) -> tuple[int, ...]:
    """A triangle's corners from its smallest index on (the same triangle, the same winding)."""
    k = int(np.argmin(t))
    return tuple(int(x) for x in np.roll(t, -k))


def t_junction_cube(offset: float):
    """The unit cube [0, 1]^3 (12 triangles, outward), its front face (y = 0) split at node m
    on the middle of its top edge a b, moved ``offset`` outward (-y): the top face still has the
    edge a b whole, so the front face's a m, m b meet it in a T-junction (3 open edges)."""
    v = [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 0, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1],
         [0.5, -offset, 1]]  # fmt: skip
    f = [[0, 2, 1], [0, 3, 2],  # bottom
         [4, 5, 6], [4, 6, 7],  # top: its edge 4 -> 5 is a b
         [0, 1, 8], [1, 5, 8], [0, 8, 4],  # front, through m = 8: a m, m b on the top edge
         [1, 2, 6], [1, 6, 5], [2, 3, 7], [2, 7, 6], [3, 0, 4], [3, 4, 7]]  # fmt: skip
    return np.array(v, dtype=float), np.array(f)
