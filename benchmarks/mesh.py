"""Meshes as found in the wild (issue 21 item 3): a binary STL of about 1e6 triangles from
the command line against trimesh loading it and computing its mass properties, and the
phases of the classification (the closedness and shell checks against the integrals).

    python benchmarks/mesh.py                       # 1e6 triangles, best of 3
    python benchmarks/mesh.py --triangles 100000 --repeat 5

Columns (seconds, the best of ``--repeat`` runs; both end-to-end rows are fresh processes,
Python's start and imports included):

- ``rigidparts meshbody FILE --units m --json``: the command line, end to end;
- ``trimesh``: ``python -c "import trimesh; m = trimesh.load(FILE); m.mass_properties"``;
- in one process: trimesh's read of the file, :func:`rigidparts.polyhedron.merge_exact`,
  the edge check (:func:`~rigidparts.polyhedron.edge_defects`), the shell count
  (:func:`rigidparts.shapes._mesh_repair.shell_labels`) and the integrals
  (:func:`~rigidparts.polyhedron.integrals`).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import trimesh

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mesh_body import cube_sphere

from rigidparts.polyhedron import edge_defects, integrals, merge_exact
from rigidparts.shapes._mesh_repair import shell_labels


def best(run: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--triangles", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    mesh = cube_sphere(args.triangles)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "sphere.stl"
        mesh.export(path)
        cli = [sys.executable, "-m", "rigidparts.commands", "meshbody", str(path), "--units",
               "m", "--json"]  # fmt: skip
        code = f"import trimesh; m = trimesh.load({str(path)!r}); m.mass_properties"
        reference = [sys.executable, "-c", code]
        ours = best(lambda: subprocess.run(cli, check=True, capture_output=True), args.repeat)
        theirs = best(lambda: subprocess.run(reference, check=True), args.repeat)
        loaded = trimesh.load(path, process=False)
        soup_v, soup_f = np.asarray(loaded.vertices), np.asarray(loaded.faces)
        read = best(lambda: trimesh.load(path, process=False), args.repeat)
        merged = merge_exact(soup_v, soup_f)
        merge = best(lambda: merge_exact(soup_v, soup_f), args.repeat)
        v, f = merged
        check = best(lambda: edge_defects(f, len(v)), args.repeat)
        shells = best(lambda: shell_labels(f, len(v)), args.repeat)
        integral = best(lambda: integrals(v, f), args.repeat)
    print(f"{len(mesh.faces)} triangles, best of {args.repeat} (s)")
    print(f"  rigidparts meshbody FILE --json   {ours:.3f}")
    print(f"  trimesh load + mass_properties    {theirs:.3f}   (ratio {ours / theirs:.2f})")
    print(f"  in process: read {read:.3f}, merge {merge:.3f}, edge check {check:.3f}, "
          f"shells {shells:.3f}, integrals {integral:.3f}")  # fmt: skip


if __name__ == "__main__":
    main()
