"""Write ``examples/parts/bracket.step``: the L-bracket of ``scripts/make_bracket.py`` (a 60 x
40 x 5 mm base plate with a 10 x 10 mm square hole and a 5 mm upright 50 mm high) as an exact
solid, built with OpenCascade (BRepPrimAPI boxes, a boolean cut and fuse) and written by
STEPControl_Writer in millimetres. ``--check`` compares ``rp.StepBody`` of it with the box sums
(``make_bracket.box_sum``) and with ``rp.MeshBody`` of ``bracket.stl``.

Needs the optional extra ``cad`` (cadquery-ocp).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "examples" / "parts" / "bracket.step"


def solid():
    """The bracket as an OpenCascade solid (coordinates in mm)."""
    from OCP.BRepAlgoAPI import BRepAlgoAPI_Cut, BRepAlgoAPI_Fuse
    from OCP.BRepPrimAPI import BRepPrimAPI_MakeBox
    from OCP.gp import gp_Pnt

    def box(low, high):
        return BRepPrimAPI_MakeBox(gp_Pnt(*low), gp_Pnt(*high)).Shape()

    plate = BRepAlgoAPI_Cut(box((0, 0, 0), (60, 40, 5)), box((25, 15, -1), (35, 25, 6))).Shape()
    return BRepAlgoAPI_Fuse(plate, box((0, 0, 5), (5, 40, 50))).Shape()


def write(path: Path = OUT) -> Path:
    sys.path.insert(0, str(ROOT / "tests"))
    import step_fixtures

    return step_fixtures.write_shape(solid(), path, "mm", name="bracket")


def check() -> None:
    import numpy as np

    import rigidparts as rp

    sys.path.insert(0, str(ROOT / "scripts"))
    from make_bracket import box_sum

    step = rp.StepBody(step=OUT, material="aluminium")
    mesh = rp.MeshBody(mesh=OUT.with_suffix(".stl"), units="mm", material="aluminium")
    expected = box_sum()
    for name, body in (("StepBody", step), ("MeshBody", mesh)):
        mass = abs(body.mass / expected.mass - 1)
        com = float(np.max(np.abs(body.center_of_mass - expected.center_of_mass))) / 0.06
        inertia = float(np.max(np.abs(body.inertia - expected.inertia)))
        inertia /= float(np.max(np.abs(expected.inertia)))
        print(f"{name}: mass {mass:.1e}, centre of mass {com:.1e}, inertia {inertia:.1e}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    if parser.parse_args().check:
        check()
    else:
        print(write())


if __name__ == "__main__":
    main()
