"""Write ``examples/parts/bracket.stl``: an L-bracket with a square hole, in millimetres.

The bracket is a union of cells of one rectilinear grid (every cell a box), so its exact mass
properties are known independently of any mesh integration: the sum of the cells' closed forms
(``rp.Box``), printed by ``--check``. The mesh is the boundary of the union: each face of a
filled cell whose neighbour is empty becomes two outward triangles; the cells share one grid,
so the surface is closed with no T-junctions. Coordinates are whole millimetres (exact in the
STL's float32).

    python scripts/make_bracket.py            # writes examples/parts/bracket.stl
    python scripts/make_bracket.py --check    # and compares rp.MeshBody with the box sums
"""

from __future__ import annotations

import argparse
import itertools
from pathlib import Path

import numpy as np

#: Grid lines (mm). Base plate 60 x 40 x 5 with a 10 x 10 square hole centred at (30, 20);
#: upright 5 thick, 40 wide, rising to 50.
X = [0.0, 5.0, 25.0, 35.0, 60.0]
Y = [0.0, 15.0, 25.0, 40.0]
Z = [0.0, 5.0, 50.0]

OUT = Path(__file__).resolve().parent.parent / "examples" / "parts" / "bracket.stl"


def filled(i: int, j: int, k: int) -> bool:
    """Whether grid cell (i, j, k) is material."""
    if not (0 <= i < len(X) - 1 and 0 <= j < len(Y) - 1 and 0 <= k < len(Z) - 1):
        return False
    if k == 0:  # the base plate, but for the hole
        return not (i == 2 and j == 1)
    return i == 0  # the upright


def cells() -> list[tuple[int, int, int]]:
    ranges = (range(len(X) - 1), range(len(Y) - 1), range(len(Z) - 1))
    return [c for c in itertools.product(*ranges) if filled(*c)]


def surface() -> tuple[np.ndarray, np.ndarray]:
    """The boundary of the filled cells: (vertices (n, 3) mm, faces (m, 3)), outward."""
    grid = (X, Y, Z)
    triangles = []
    for cell in cells():
        for axis in range(3):
            for side in (0, 1):
                neighbour = list(cell)
                neighbour[axis] += 1 if side else -1
                if filled(*neighbour):
                    continue
                u, v = (axis + 1) % 3, (axis + 2) % 3
                corners = []
                for du, dv in ((0, 0), (1, 0), (1, 1), (0, 1)):  # counter-clockwise about +axis
                    p = [0.0, 0.0, 0.0]
                    p[axis] = grid[axis][cell[axis] + side]
                    p[u] = grid[u][cell[u] + du]
                    p[v] = grid[v][cell[v] + dv]
                    corners.append(p)
                quad = [corners[0], corners[1], corners[2], corners[3]]
                if not side:  # the face looks along -axis: reverse
                    quad = quad[::-1]
                triangles += [[quad[0], quad[1], quad[2]], [quad[0], quad[2], quad[3]]]
    soup = np.array(triangles).reshape(-1, 3)
    vertices, inverse = np.unique(soup, axis=0, return_inverse=True)
    return vertices, inverse.reshape(-1, 3)


def box_sum(material: str = "aluminium"):
    """The exact mass properties (SI, frame of the file) as the sum of the cells' rp.Box
    closed forms."""
    import rigidparts as rp

    parts = []
    for i, j, k in cells():
        lo = np.array([X[i], Y[j], Z[k]]) * 1e-3
        hi = np.array([X[i + 1], Y[j + 1], Z[k + 1]]) * 1e-3
        size = hi - lo
        # a Box along +x: height along +y, width along +z, frame_a at the centre of its x=0 face
        box = rp.Box(length=size[0], height=size[1], width=size[2], material=material)
        origin = np.array([lo[0], 0.5 * (lo[1] + hi[1]), 0.5 * (lo[2] + hi[2])])
        parts.append(box.mass_properties.placed(position=origin))
    return rp.MassProperties.combine(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the box sums")
    args = parser.parse_args()
    import trimesh

    vertices, faces = surface()
    mesh = trimesh.Trimesh(vertices, faces, process=False)
    assert mesh.is_watertight and mesh.is_winding_consistent and mesh.volume > 0
    OUT.parent.mkdir(parents=True, exist_ok=True)
    mesh.export(OUT)
    print(f"wrote {OUT} ({len(faces)} triangles, mm)")
    if args.check:
        import rigidparts as rp

        body = rp.MeshBody(mesh=str(OUT), units="mm", material="aluminium")
        exact = box_sum()
        print("mass       ", body.mass, exact.mass)
        print("com        ", body.center_of_mass, exact.center_of_mass)
        print("inertia    ", body.inertia.tolist())
        print("box sums   ", exact.inertia.tolist())
        scale = np.abs(exact.inertia).max()
        print("max rel err", np.abs(body.inertia - exact.inertia).max() / scale)


if __name__ == "__main__":
    main()
