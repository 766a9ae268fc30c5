"""Mesh bodies (issue 10 item 2): the time of ``rp.MeshBody`` on closed meshes of about 1e4,
1e5 and 1e6 triangles, split into its phases.

    python benchmarks/mesh_body.py                # 1e4, 1e5, 1e6 triangles, median of 5
    python benchmarks/mesh_body.py --repeat 3 --sizes 10000 100000

The mesh is a refined sphere: a cube whose six faces are ``k x k`` grids (``12 k^2``
triangles, ``k`` chosen for the size), pushed out onto the unit sphere; it is given as a
``trimesh.Trimesh`` (vertices already shared) and as a binary STL file (each triangle with its
own three vertices, as STL stores them). Columns, each the median of ``--repeat`` runs (s):

- STL read: ``trimesh.load`` of the file (trimesh's time, not ours);
- merge: :func:`rigidparts.polyhedron.merge_exact` of the STL's triangle soup (3 m vertices);
- checks: the finite-coordinate check and :func:`~rigidparts.polyhedron.check_closed` (open,
  non-manifold, inconsistently wound);
- integrals: :func:`~rigidparts.polyhedron.integrals` (with the inward-facing and degenerate
  checks);
- MeshBody (Trimesh): ``rp.MeshBody(mesh=<Trimesh>, units="m")`` end to end;
- MeshBody (STL): ``rp.MeshBody(mesh=<file>, units="m")`` end to end, the STL read included
  (the file cache cleared before each run).
"""

from __future__ import annotations

import argparse
import math
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import trimesh

import rigidparts as rp
from rigidparts.polyhedron import check_closed, integrals, merge_exact
from rigidparts.shapes import mesh_body


def cube_sphere(triangles: int) -> trimesh.Trimesh:
    """A closed, outward-facing unit sphere of ``12 k^2`` triangles, ``k = round(sqrt(
    triangles / 12))``: the six ``k x k`` grids of the cube ``[-1, 1]^3``, normalised."""
    k = max(1, round(math.sqrt(triangles / 12)))
    grid = np.linspace(-1.0, 1.0, k + 1)
    vertices, faces = [], []
    for axis in range(3):
        for side in (-1.0, 1.0):
            u, v = np.meshgrid(grid, grid, indexing="ij")
            p = np.empty((k + 1, k + 1, 3))
            p[..., axis] = side
            p[..., (axis + 1) % 3] = u
            p[..., (axis + 2) % 3] = v
            index = sum(len(x) for x in vertices) + np.arange((k + 1) ** 2).reshape(k + 1, k + 1)
            quad = np.stack(
                [index[:-1, :-1], index[1:, :-1], index[1:, 1:], index[:-1, 1:]], -1
            ).reshape(-1, 4)
            tri = np.concatenate([quad[:, [0, 1, 2]], quad[:, [0, 2, 3]]])
            vertices.append(p.reshape(-1, 3))
            faces.append(tri if side > 0 else tri[:, ::-1])  # outward
    # trimesh merges the cube's shared edge points (identical grid values), then the sphere
    cube = trimesh.Trimesh(np.concatenate(vertices), np.concatenate(faces), process=True)
    sphere = cube.vertices / np.linalg.norm(cube.vertices, axis=1, keepdims=True)
    return trimesh.Trimesh(sphere, cube.faces, process=False)


def median_time(function: Callable[[], object], repeat: int) -> float:
    """Median wall time of ``repeat`` calls (s)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def measure(triangles: int, repeat: int, folder: Path) -> dict[str, float]:
    mesh = cube_sphere(triangles)
    assert mesh.is_watertight and mesh.volume > 0
    path = folder / f"sphere_{len(mesh.faces)}.stl"
    mesh.export(path)
    read = trimesh.load(str(path), force="mesh", process=False)
    soup_v, soup_f = np.asarray(read.vertices), np.asarray(read.faces)
    vertices, faces = merge_exact(soup_v, soup_f)

    def checks() -> None:
        assert np.all(np.isfinite(soup_v))
        check_closed(faces, len(vertices))

    def from_file() -> None:
        mesh_body._CACHE.clear()  # read and check the file every time
        rp.MeshBody(mesh=str(path), units="m")

    return {
        "triangles": len(mesh.faces),
        "STL read": median_time(
            lambda: trimesh.load(str(path), force="mesh", process=False), repeat
        ),
        "merge": median_time(lambda: merge_exact(soup_v, soup_f), repeat),
        "checks": median_time(checks, repeat),
        "integrals": median_time(lambda: integrals(vertices, faces), repeat),
        "MeshBody (Trimesh)": median_time(lambda: rp.MeshBody(mesh=mesh, units="m"), repeat),
        "MeshBody (STL)": median_time(from_file, repeat),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    rp.MeshBody(mesh=cube_sphere(100), units="m")  # imports and first calls
    with tempfile.TemporaryDirectory() as folder:
        rows = [measure(n, args.repeat, Path(folder)) for n in args.sizes]
    columns = list(rows[0])
    print(f"median of {args.repeat} runs, seconds")
    print()
    print("| " + " | ".join(columns) + " |")
    print("|" + "|".join("---:" for _ in columns) + "|")
    for row in rows:
        cells = [f"{row['triangles']:,}".replace(",", " ")]
        cells += [f"{row[c]:.3f}" for c in columns[1:]]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
