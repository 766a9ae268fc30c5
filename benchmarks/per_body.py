"""Per-body cost (issue 15 items 1 and 2): building one body and reading its 3x3 inertia,
against the peers' factories for the shapes they have and against the same body from floats.

Each case is a callable; a round times every case once (``calls_per_round`` calls each, about
20 ms), in the same order; the figure is the median over the rounds, and each ratio is the
median over the rounds of (case / its reference in the same round), so both sides of a ratio
always see the same machine state.

References: Drake's ``SpatialInertia.Solid*WithDensity(...)`` followed by
``CalcRotationalInertia().CopyToFullMatrix3()`` (a 3x3 ndarray) for the solid cylinder, box and
sphere it has; for unit strings (``"250 mm"``), the same body built from floats. Pinocchio, a
plain-Python closed form made into a 3x3 ndarray, and trimesh's primitives are listed beside.
Drake and Pinocchio have no cone, frustum, hollow body or I-beam: those are set against the
nearest solid (a cylinder or a box).
"""

from __future__ import annotations

import math
import statistics
import struct
from collections.abc import Callable

import numpy as np
from common import best_time, calls_per_round

import rigidparts as rp
from rigidparts.shapes import box as box_shape
from rigidparts.shapes import cone as cone_shape
from rigidparts.shapes import results_representable

_PACK_9 = struct.Struct("=9d").pack

RADIUS, LENGTH, DENSITY = 0.1, 1.0, 7860.0
BOX = (1.0, 0.1, 0.2)  # length (x), width (z), height (y)

#: name -> (reference name, callable)
Case = tuple[str | None, Callable[[], object]]

DRAKE_CYLINDER = "Drake SolidCylinderWithDensity + 3x3"
DRAKE_BOX = "Drake SolidBoxWithDensity + 3x3"
DRAKE_SPHERE = "Drake SolidSphereWithDensity + 3x3"
CONE_FLOATS = "rp.Cone (cylinder) floats, density= + .inertia"
BOX_FLOATS = "rp.Box floats, density= + .inertia"


def _plain_python_cone() -> object:
    # The closed form with floats, then a 3x3 ndarray: no checks, no frame, no object.
    _, _, _, i0, i1, i2 = cone_shape.closed_form(LENGTH, RADIUS, RADIUS, 0.0, 0.0, DENSITY)
    return np.array(((i0, 0.0, 0.0), (0.0, i1, 0.0), (0.0, 0.0, i2)))


class _FloorBox:
    """The least a validated Python body can do (the floor of issue 15 item 1): a keyword-only
    call, the Box's rule check and closed form, the representability check, the results kept,
    and the 3x3 ndarray of an axis-aligned body. No units, no material table, no frame, no
    error messages: what is left of ``rp.Box`` once everything optional is gone."""

    __slots__ = ("results",)

    def __init__(
        self,
        *,
        length: float = 1.0,
        width: float = 0.1,
        height: float = 0.2,
        inner_width: float = 0.0,
        inner_height: float = 0.0,
        density: float = DENSITY,
    ) -> None:
        dims = (length, width, height, inner_width, inner_height)
        if box_shape.check(*dims) or not 0.0 < density < math.inf:
            raise ValueError("invalid box")
        results = box_shape.closed_form(*dims, density)
        volume, mass, _, i0, i1, i2 = results
        if not results_representable(volume, mass, i0, i1, i2, density):
            raise ValueError("unrepresentable")
        self.results = results

    @property
    def inertia(self) -> np.ndarray:
        _, _, _, i0, i1, i2 = self.results
        return np.ndarray((3, 3), np.float64, _PACK_9(i0, 0.0, 0.0, 0.0, i1, 0.0, 0.0, 0.0, i2))


FLOOR_BOX = "floor: validated Python Box + 3x3 (no units, table, frames, messages)"


def cases() -> dict[str, Case]:
    """Every measured case, with the name of its reference (None for the references)."""
    drake = None
    try:
        from pydrake.multibody.tree import SpatialInertia

        drake = SpatialInertia
    except ImportError:
        pass
    cylinder_ref = DRAKE_CYLINDER if drake else None
    box_ref = DRAKE_BOX if drake else None
    sphere_ref = DRAKE_SPHERE if drake else None
    out: dict[str, Case] = {}
    if drake is not None:
        axis = np.array([1.0, 0.0, 0.0])
        out[DRAKE_CYLINDER] = (None, lambda: (
            drake.SolidCylinderWithDensity(DENSITY, RADIUS, LENGTH, axis)
            .CalcRotationalInertia().CopyToFullMatrix3()
        ))  # fmt: skip
        out[DRAKE_BOX] = (None, lambda: (
            drake.SolidBoxWithDensity(DENSITY, BOX[0], BOX[2], BOX[1])
            .CalcRotationalInertia().CopyToFullMatrix3()
        ))  # fmt: skip
        out[DRAKE_SPHERE] = (None, lambda: (
            drake.SolidSphereWithDensity(DENSITY, RADIUS).CalcRotationalInertia()
            .CopyToFullMatrix3()
        ))  # fmt: skip
    out[CONE_FLOATS] = (cylinder_ref, lambda: rp.Cone(
        length=LENGTH, radius_a=RADIUS, radius_b=RADIUS, density=DENSITY).inertia)  # fmt: skip
    out["rp.Cone (cylinder) default material + .inertia"] = (cylinder_ref, lambda: rp.Cone(
        length=LENGTH, radius_a=RADIUS, radius_b=RADIUS).inertia)  # fmt: skip
    out["rp.Cone hollow frustum + .inertia"] = (cylinder_ref, lambda: rp.Cone(
        length=LENGTH, radius_a=RADIUS, radius_b=0.05, inner_radius_a=0.09,
        inner_radius_b=0.04, density=DENSITY).inertia)  # fmt: skip
    out["rp.Cylinder + .inertia"] = (cylinder_ref, lambda: rp.Cylinder(
        length=LENGTH, radius=RADIUS, density=DENSITY).inertia)  # fmt: skip
    out["rp.Disk + .inertia"] = (cylinder_ref, lambda: rp.Disk(
        radius=RADIUS, thickness=0.02, density=DENSITY).inertia)  # fmt: skip
    out[BOX_FLOATS] = (box_ref, lambda: rp.Box(
        length=BOX[0], width=BOX[1], height=BOX[2], density=DENSITY).inertia)  # fmt: skip
    out["rp.Linkage + .inertia"] = (box_ref, lambda: rp.Linkage(
        length=BOX[0], width=BOX[1], height=BOX[2], density=DENSITY).inertia)  # fmt: skip
    out["rp.IBeam (IPE 200) + .inertia"] = (box_ref, lambda: rp.IBeam(
        density=DENSITY).inertia)  # fmt: skip
    out["rp.Ball + .inertia"] = (sphere_ref, lambda: rp.Ball(
        radius=RADIUS, density=DENSITY).inertia)  # fmt: skip
    # Unit strings against the same body from floats.
    out["rp.Cone (cylinder) unit strings + .inertia"] = (CONE_FLOATS, lambda: rp.Cone(
        length="1 m", radius_a="100 mm", radius_b="10 cm", density="7.86 g/cm^3"
    ).inertia)  # fmt: skip
    out["rp.Box unit strings + .inertia"] = (BOX_FLOATS, lambda: rp.Box(
        length="1000 mm", width="100 mm", height="0.2 m", density="7860 kg/m^3"
    ).inertia)  # fmt: skip
    out["plain Python closed form + 3x3 ndarray"] = (cylinder_ref, _plain_python_cone)
    out[FLOOR_BOX] = (box_ref, lambda: _FloorBox(
        length=BOX[0], width=BOX[1], height=BOX[2], density=DENSITY).inertia)  # fmt: skip
    try:
        import pinocchio

        cylinder_mass = DENSITY * np.pi * RADIUS**2 * LENGTH
        box_mass = DENSITY * BOX[0] * BOX[1] * BOX[2]
        out["Pinocchio Inertia.FromCylinder + .inertia"] = (cylinder_ref, lambda: (
            pinocchio.Inertia.FromCylinder(cylinder_mass, RADIUS, LENGTH).inertia))  # fmt: skip
        out["Pinocchio Inertia.FromBox + .inertia"] = (box_ref, lambda: (
            pinocchio.Inertia.FromBox(box_mass, BOX[0], BOX[2], BOX[1]).inertia))  # fmt: skip
    except ImportError:
        pass
    try:
        import trimesh

        def trimesh_cylinder() -> object:
            primitive = trimesh.primitives.Cylinder(radius=RADIUS, height=LENGTH)
            primitive.density = DENSITY
            return primitive.moment_inertia

        out["trimesh primitives.Cylinder + .moment_inertia"] = (cylinder_ref, trimesh_cylinder)
    except ImportError:
        pass
    return out


def measure(rounds: int = 11) -> dict[str, object]:
    """Median us per body of every case over interleaved rounds, and each case's median ratio
    to its reference (both measured in the same rounds)."""
    todo = cases()
    for _, function in todo.values():  # warm-up: caches, first-call costs
        function()
        function()
    numbers = {name: calls_per_round(function) for name, (_, function) in todo.items()}
    times: dict[str, list[float]] = {name: [] for name in todo}
    for _ in range(rounds):
        for name, (_, function) in todo.items():
            times[name].append(best_time(function, repeat=1, number=numbers[name]))
    rows = []
    for name, (reference, _) in todo.items():
        ratios = (
            [a / b for a, b in zip(times[name], times[reference], strict=True)]
            if reference
            else None
        )
        median = statistics.median(times[name])
        rows.append(
            {
                "case": name,
                "reference": reference,
                "us_per_body": median * 1e6,
                "min_us_per_body": min(times[name]) * 1e6,
                "bodies_per_s": 1.0 / median,
                "ratio": statistics.median(ratios) if ratios else None,
            }
        )
    return {"rounds": rounds, "rows": rows}


if __name__ == "__main__":
    for row in measure()["rows"]:
        ratio = "" if row["ratio"] is None else f"{row['ratio']:.2f}x {row['reference']}"
        print(f"{row['case']:55s} {row['us_per_body']:8.2f} us  {ratio}")
