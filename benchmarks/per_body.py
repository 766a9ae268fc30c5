"""Per-body cost: ``rp.Cone(...)`` / ``rp.Box(...)`` plus reading ``.inertia``, against the
peers' factories for the shapes they have (Drake, Pinocchio, trimesh primitives), each
measured side by side in this process (best of several rounds).

Drake and Pinocchio have a solid cylinder and a solid box; none of the peers has a cone, a
frustum or a hollow body. The rigidparts cylinder is ``rp.Cone(radius_a=r, radius_b=r)``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from common import best_time, calls_per_round

import rigidparts as rp

RADIUS, LENGTH, DENSITY = 0.1, 1.0, 7860.0
BOX = (1.0, 0.1, 0.2)  # length (x), width (z), height (y)


def _cases() -> dict[str, tuple[str, Callable[[], object]]]:
    cases: dict[str, tuple[str, Callable[[], object]]] = {
        "rigidparts Cone (cylinder), density=": (
            "cylinder",
            lambda: (
                rp.Cone(length=LENGTH, radius_a=RADIUS, radius_b=RADIUS, density=DENSITY).inertia
            ),
        ),
        "rigidparts Cone (cylinder), material='steel'": (
            "cylinder",
            lambda: rp.Cone(length=LENGTH, radius_a=RADIUS, radius_b=RADIUS).inertia,
        ),
        "rigidparts Cone (hollow frustum)": (
            "hollow frustum",
            lambda: (
                rp.Cone(
                    length=LENGTH,
                    radius_a=RADIUS,
                    radius_b=0.05,
                    inner_radius_a=0.09,
                    inner_radius_b=0.04,
                    density=DENSITY,
                ).inertia
            ),
        ),
        "rigidparts Box, density=": (
            "box",
            lambda: rp.Box(length=BOX[0], width=BOX[1], height=BOX[2], density=DENSITY).inertia,
        ),
    }
    try:
        from pydrake.multibody.tree import SpatialInertia

        axis = np.array([1.0, 0.0, 0.0])
        cases["Drake SpatialInertia.SolidCylinderWithDensity + 3x3"] = (
            "cylinder",
            lambda: (
                SpatialInertia.SolidCylinderWithDensity(DENSITY, RADIUS, LENGTH, axis)
                .CalcRotationalInertia()
                .CopyToFullMatrix3()
            ),
        )
        cases["Drake SpatialInertia.SolidBoxWithDensity + 3x3"] = (
            "box",
            lambda: (
                SpatialInertia.SolidBoxWithDensity(DENSITY, BOX[0], BOX[2], BOX[1])
                .CalcRotationalInertia()
                .CopyToFullMatrix3()
            ),
        )
    except ImportError:
        pass
    try:
        import pinocchio

        cylinder_mass = DENSITY * np.pi * RADIUS**2 * LENGTH
        box_mass = DENSITY * BOX[0] * BOX[1] * BOX[2]
        cases["Pinocchio Inertia.FromCylinder + .inertia"] = (
            "cylinder",
            lambda: pinocchio.Inertia.FromCylinder(cylinder_mass, RADIUS, LENGTH).inertia,
        )
        cases["Pinocchio Inertia.FromBox + .inertia"] = (
            "box",
            lambda: pinocchio.Inertia.FromBox(box_mass, BOX[0], BOX[2], BOX[1]).inertia,
        )
    except ImportError:
        pass
    try:
        import trimesh

        def trimesh_cylinder() -> object:
            primitive = trimesh.primitives.Cylinder(radius=RADIUS, height=LENGTH)
            primitive.density = DENSITY
            return primitive.moment_inertia

        def trimesh_box() -> object:
            primitive = trimesh.primitives.Box(extents=(BOX[0], BOX[2], BOX[1]))
            primitive.density = DENSITY
            return primitive.moment_inertia

        cases["trimesh primitives.Cylinder + .moment_inertia"] = ("cylinder", trimesh_cylinder)
        cases["trimesh primitives.Box + .moment_inertia"] = ("box", trimesh_box)
    except ImportError:
        pass
    return cases


def measure(rounds: int = 7) -> dict[str, object]:
    cases = _cases()
    numbers = {name: calls_per_round(fn) for name, (_, fn) in cases.items()}
    best = {name: float("inf") for name in cases}
    for _ in range(rounds):  # interleaved rounds: every case sees the same machine state
        for name, (_, fn) in cases.items():
            best[name] = min(best[name], best_time(fn, repeat=1, number=numbers[name]))
    drake = {
        "cylinder": best.get("Drake SpatialInertia.SolidCylinderWithDensity + 3x3"),
        "box": best.get("Drake SpatialInertia.SolidBoxWithDensity + 3x3"),
    }
    rows = []
    for name, (shape, _) in cases.items():
        reference = drake.get(shape)
        rows.append(
            {
                "case": name,
                "shape": shape,
                "us_per_body": best[name] * 1e6,
                "bodies_per_s": 1.0 / best[name],
                "vs_drake": best[name] / reference if reference else None,
            }
        )
    return {"rows": rows}


if __name__ == "__main__":
    for row in measure()["rows"]:
        print(f"{row['case']:55s} {row['us_per_body']:8.2f} us  vs Drake {row['vs_drake']}")
