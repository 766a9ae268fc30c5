"""STEP parts from a public repository against the same parts' STL meshes (issue 21).

    python scripts/real_step_parts.py STEP_FOLDER [--stl STL_FOLDER] [--stl-units mm]

For every ``*.step`` / ``*.stp`` file of ``STEP_FOLDER``: ``rp.StepBody`` of it (its exact B-rep
integrals, certified), the time it took (the read cache cleared, best of 3), its solids, and
its certificate; and, when ``STL_FOLDER`` holds a mesh of the same stem, ``rp.MeshBody`` of that
mesh (exact polyhedral integrals of the published tessellation) and the relative differences
of volume and centre of mass (over the part's size). The STL is a tessellation of the same
CAD part, so it may differ by its own chordal deviation; it is also often exported in another
placement, so the centres of mass are compared only when the bounding boxes coincide.

Used on the SO-ARM100 robot arm's SO101 parts (github.com/TheRobotStudio/SO-ARM100, folders
``STEP/SO101`` and ``STL/SO101/Individual``); the figures are in docs/step.md. The files are not
part of this project.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

import rigidparts as rp
from rigidparts.cad import step as S


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--stl", type=Path, default=None, help="a folder of the same parts' STLs")
    parser.add_argument("--stl-units", default="mm")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    files = sorted(p for p in args.folder.iterdir() if p.suffix.lower() in (".step", ".stp"))
    print(f"{'part':<36}{'solids':>7}{'faces':>7}{'ms':>8}{'volume cm^3':>13}{'cert dV':>10}"
          f"{'bound':>9}{'STL dV':>10}{'STL dc':>10}")  # fmt: skip
    for path in files:
        times = []
        try:
            for _ in range(args.repeat):
                S._CACHE.clear()
                start = time.perf_counter()
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    body = rp.StepBody(step=path)
                times.append(time.perf_counter() - start)
        except rp.ParameterError as exc:
            print(f"{path.stem[:35]:<36}refused: {exc}")
            continue
        found = S.read_step(path)
        faces = sum(_faces(s.shape) for s in found.solids)
        cert = body.certificate
        bound = max(c["volume_bound"] for c in cert["solids"].values())
        line = (
            f"{path.stem[:35]:<36}{len(found.solids):>7}{faces:>7}{1e3 * min(times):8.1f}"
            f"{body.volume * 1e6:13.4f}{cert['volume_difference']:10.1e}{bound:9.1e}"
        )
        stl = args.stl / f"{path.stem}.stl" if args.stl else None
        if stl is not None and stl.is_file():
            mesh = rp.MeshBody(mesh=stl, units=args.stl_units)
            dv = abs(mesh.volume - body.volume) / body.volume
            size = float(np.linalg.norm(np.ptp(mesh.mesh().vertices, axis=0)))
            dc = float(np.linalg.norm(mesh.center_of_mass - body.center_of_mass)) / size
            line += f"{dv:10.1e}{dc:10.1e}"
        for w in caught:
            line += f"\n    warning: {w.message}"
        print(line)
    return 0


def _faces(shape) -> int:
    from OCP.TopAbs import TopAbs_FACE
    from OCP.TopExp import TopExp_Explorer

    explorer, n = TopExp_Explorer(shape, TopAbs_FACE), 0
    while explorer.More():
        n += 1
        explorer.Next()
    return n


if __name__ == "__main__":
    sys.exit(main())
