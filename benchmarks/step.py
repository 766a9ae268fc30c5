"""STEP bodies (issue 21 item 1): the time of ``rp.StepBody`` per simple solid, split into
its phases, and per solid of an assembly.

    python benchmarks/step.py                # best of 7
    python benchmarks/step.py --repeat 3

Each simple solid (this project's shapes written by OpenCascade in millimetres: box,
cylinder, tube, cone, sphere) is read from a fresh file each run (the file cache cleared).
Columns (milliseconds, the best of ``--repeat`` runs):

- read: ``STEPCAFControl_Reader.ReadFile`` and ``Transfer`` into an XCAF document;
- integrals: the B-rep's volume properties (``BRepGProp``), the bounding box and area;
- certificate: the tessellation (``BRepMesh_IncrementalMesh``) and its exact integrals;
- StepBody: ``rp.StepBody(step=FILE)`` end to end;
- and assemblies, end to end, per solid: 20 instances of the tube (measured once), and 20
  different simple solids (each measured and certified; the file's reading shared).
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import rigidparts as rp  # noqa: E402
import step_fixtures as F  # noqa: E402
from rigidparts.cad import step as S  # noqa: E402

SHAPES = {
    "box": lambda: F.box(250.0, 50.0, 100.0),
    "cylinder": lambda: F.cylinder(300.0, 40.0),
    "tube": lambda: F.cylinder(300.0, 40.0, 30.0),
    "cone": lambda: F.cone(300.0, 50.0, 20.0),
    "sphere": lambda: F.sphere(70.0),
}


def best(run: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        S._CACHE.clear()
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return 1e3 * min(times)


def phases(path: Path, repeat: int) -> tuple[float, float, float]:
    from OCP.STEPCAFControl import STEPCAFControl_Reader
    from OCP.TCollection import TCollection_ExtendedString
    from OCP.TDocStd import TDocStd_Document
    from OCP.XCAFDoc import XCAFDoc_DocumentTool

    def read():
        reader = STEPCAFControl_Reader()
        reader.SetNameMode(True)
        reader.ReadFile(str(path))
        doc = TDocStd_Document(TCollection_ExtendedString("XmlOcaf"))
        XCAFDoc_DocumentTool.SetLengthUnit_s(doc, 1e-3)  # in the files' mm, as rigidparts
        reader.Transfer(doc)
        return doc

    doc = read()
    (_, _, solid, _), *_ = S._leaves(doc, str(path), path.stem)
    found = S._brep_integrals(solid)
    volume, centroid, inertia, area, low, high, error = found
    size = float(sum((high - low) ** 2) ** 0.5)
    from OCP.BRepTools import BRepTools

    def certify():
        BRepTools.Clean_s(solid)  # the mesher does nothing on a shape it has meshed
        S._certify(solid, volume, centroid, inertia, area, size, error)

    return (
        best(read, repeat),
        best(lambda: S._brep_integrals(solid), repeat),
        best(certify, repeat),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    rp.StepBody(**rp.SHAPES["step"].example_kwargs())  # imports and first calls
    print(f"{'solid':<10}{'read':>8}{'integrals':>11}{'certificate':>13}{'StepBody':>10}  (ms)")
    with tempfile.TemporaryDirectory() as folder:
        for name, make in SHAPES.items():
            path = F.write_shape(make(), Path(folder) / f"{name}.step", "mm")
            read, integral, certificate = phases(path, args.repeat)
            whole = best(lambda p=path: rp.StepBody(step=p), args.repeat)
            print(f"{name:<10}{read:8.2f}{integral:11.2f}{certificate:13.2f}{whole:10.2f}")
        tube = F.cylinder(300.0, 40.0, 30.0)
        parts = [("tube", tube, (100.0 * k, 0.0, 0.0), k * math.pi / 10) for k in range(20)]
        path = F.write_assembly(parts, Path(folder) / "assembly.step", "mm")
        whole = best(lambda: rp.StepBody(step=path), args.repeat)
        print(f"assembly of 20 tubes: {whole:.1f} ms, {whole / 20:.2f} ms per solid")
        # 20 different parts (4 of each shape, sizes 1 + k/10): each measured and certified
        makes = list(SHAPES.values())
        distinct = [
            (f"part{k}", _scaled(makes[k % len(makes)](), 1.0 + k / 10), (400.0 * k, 0, 0), 0.0)
            for k in range(20)
        ]
        path = F.write_assembly(distinct, Path(folder) / "parts.step", "mm")
        whole = best(lambda: rp.StepBody(step=path), args.repeat)
        print(f"assembly of 20 different simple solids: {whole:.1f} ms, {whole / 20:.2f} ms per "
              "solid")  # fmt: skip


def _scaled(shape: object, factor: float) -> object:
    from OCP.BRepBuilderAPI import BRepBuilderAPI_Transform
    from OCP.gp import gp_Pnt, gp_Trsf

    scale = gp_Trsf()
    scale.SetScale(gp_Pnt(0.0, 0.0, 0.0), factor)
    return BRepBuilderAPI_Transform(shape, scale, True).Shape()


if __name__ == "__main__":
    main()
