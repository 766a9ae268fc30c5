"""Cone: a homogeneous (hollow) frustum along +x, closed forms in its canonical frame.

Geometry (``spec/cone.txt``): length ``L`` along the axis; outer radius ``R_a`` at frame_a
(x = 0) and ``R_b`` at frame_b (x = L); a coaxial frustum-shaped bore of radii ``R_ai``, ``R_bi``;
solid when both are 0. Both surfaces are linear in x, so with ``0 <= R_ai <= R_a`` and
``0 <= R_bi <= R_b`` they cannot cross inside the body.

Cancellation-free form. The printed formulas subtract the inner body from the outer one, which
loses every digit for a thin wall. Here, with ``s = x / L`` and the wall and the diameter sum at
each end,

    d_a = R_a - R_ai,  d_b = R_b - R_bi,  S_a = R_a + R_ai,  S_b = R_b + R_bi   (all >= 0)

the wall ``d(s) = R(s) - r(s)`` and the sum ``S(s) = R(s) + r(s)`` are linear with those
non-negative end values, and every quantity is an integral of products of them, written in the
Bernstein basis ``B_0 = (1-s)^2, B_1 = 2 s (1-s), B_2 = s^2`` whose coefficients stay
non-negative:

    slice area / pi = R^2 - r^2 = d S = c_0 B_0 + c_1 B_1 + c_2 B_2
        c_0 = d_a S_a,  c_1 = (d_a S_b + d_b S_a) / 2,  c_2 = d_b S_b
    R^2 + r^2 = (S^2 + d^2) / 2 = (e_0 B_0 + e_1 B_1 + e_2 B_2) / 2
        e_0 = S_a^2 + d_a^2,  e_1 = S_a S_b + d_a d_b,  e_2 = S_b^2 + d_b^2

    volume  V = pi L (c_0 + c_1 + c_2) / 3,   mass m = rho V
    x_com     = L (c_0 + 2 c_1 + 3 c_2) / (4 (c_0 + c_1 + c_2))
    I_xx      = rho pi L J / 4,   J = integral of d S (S^2 + d^2) ds
              = (6 c_0 e_0 + 3 (c_0 e_1 + c_1 e_0) + (c_0 e_2 + c_2 e_0) + 4 c_1 e_1
                 + 3 (c_1 e_2 + c_2 e_1) + 6 c_2 e_2) / 30
    I_yy = I_zz = rho pi L (J / 8 + L^2 K / (240 (c_0 + c_1 + c_2))),
        K = 3 c_0^2 + 4 c_1^2 + 3 c_2^2 + 12 c_0 c_1 + 12 c_1 c_2 + 26 c_0 c_2

``L^2 K / (240 sum c)`` is ``L^2`` times the variance of the mass along the axis: rather than
the cancelling ``integral x^2 dm - m x_com^2`` it is the double integral
``(1/2) integral integral (x - y)^2 dm dm / m``, whose Bernstein weights are all positive.
All sums are of non-negative terms, so the relative error is a few ulp however thin the wall.
``tests/test_cone.py`` proves these equal to direct integration and to the printed formulas
(which ``NOTES.md`` confirms are right) with sympy.

Inertias are about the centre of mass, along C's axes (x the cone axis); I_yy = I_zz.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..errors import ParameterError
from ._meshing import MIN_RELATIVE_TIP, MIN_RELATIVE_WALL, revolve_profile
from ._spec import Param, Primitive, Rule, ShapeSpec, register, rule_codes

__all__ = ["SPEC", "check", "closed_form", "profile"]

RULES = (
    Rule("length", "must be positive and finite (m)"),
    Rule("radius_a", "must be non-negative and finite (m)"),
    Rule("radius_b", "must be non-negative and finite (m)"),
    Rule("inner_radius_a", "must be non-negative and finite (m)"),
    Rule("inner_radius_b", "must be non-negative and finite (m)"),
    Rule(
        "inner_radius_a",
        "must not exceed radius_a={radius_a!r} m (the bore cannot be wider than the body)",
    ),
    Rule(
        "inner_radius_b",
        "must not exceed radius_b={radius_b!r} m (the bore cannot be wider than the body)",
    ),
    Rule("radius_a", "leaves no material: the bore fills the body at both ends (zero volume)"),
)
(
    LENGTH_POSITIVE,
    RADIUS_A_NON_NEGATIVE,
    RADIUS_B_NON_NEGATIVE,
    INNER_RADIUS_A_NON_NEGATIVE,
    INNER_RADIUS_B_NON_NEGATIVE,
    INNER_RADIUS_A_FITS,
    INNER_RADIUS_B_FITS,
    SOME_MATERIAL,
) = rule_codes(RULES)


def check(
    length: float,
    radius_a: float,
    radius_b: float,
    inner_radius_a: float,
    inner_radius_b: float,
) -> int:
    """0 if the cone is valid, else the code of the first broken rule of :data:`RULES`.

    Rules are tested last to first, each overwriting ``code``, so the first broken rule wins;
    with no early return the batch compiler vectorises it.
    """
    wall_a = radius_a - inner_radius_a
    wall_b = radius_b - inner_radius_b
    sum_a = radius_a + inner_radius_a
    sum_b = radius_b + inner_radius_b
    # Zero volume: no wall at either end, or no wall at one end and a point at the other.
    material = wall_a * sum_a + 0.5 * (wall_a * sum_b + wall_b * sum_a) + wall_b * sum_b
    code = 0 if material > 0.0 else SOME_MATERIAL
    code = INNER_RADIUS_B_FITS if inner_radius_b > radius_b else code
    code = INNER_RADIUS_A_FITS if inner_radius_a > radius_a else code
    code = code if 0.0 <= inner_radius_b < math.inf else INNER_RADIUS_B_NON_NEGATIVE
    code = code if 0.0 <= inner_radius_a < math.inf else INNER_RADIUS_A_NON_NEGATIVE
    code = code if 0.0 <= radius_b < math.inf else RADIUS_B_NON_NEGATIVE
    code = code if 0.0 <= radius_a < math.inf else RADIUS_A_NON_NEGATIVE
    return code if 0.0 < length < math.inf else LENGTH_POSITIVE


def closed_form(
    length: float,
    radius_a: float,
    radius_b: float,
    inner_radius_a: float,
    inner_radius_b: float,
    density: float,
) -> tuple[float, float, float, float, float, float]:
    """``(volume, mass, com_x, i_xx, i_yy, i_zz)`` of a valid cone (module docstring).

    Units: m^3, kg, m, kg m^2. Inertias about the centre of mass along the canonical axes.
    """
    wall_a = radius_a - inner_radius_a
    wall_b = radius_b - inner_radius_b
    sum_a = radius_a + inner_radius_a
    sum_b = radius_b + inner_radius_b
    c0 = wall_a * sum_a
    c1 = 0.5 * (wall_a * sum_b + wall_b * sum_a)
    c2 = wall_b * sum_b
    c_total = c0 + c1 + c2
    e0 = sum_a * sum_a + wall_a * wall_a
    e1 = sum_a * sum_b + wall_a * wall_b
    e2 = sum_b * sum_b + wall_b * wall_b
    j = (
        6.0 * (c0 * e0 + c2 * e2)
        + 3.0 * (c0 * e1 + c1 * e0 + c1 * e2 + c2 * e1)
        + (c0 * e2 + c2 * e0)
        + 4.0 * (c1 * e1)
    ) / 30.0
    k = 3.0 * (c0 * c0 + c2 * c2) + 4.0 * (c1 * c1) + 12.0 * (c0 * c1 + c1 * c2) + 26.0 * (c0 * c2)
    rho_pi_l = density * math.pi * length
    volume = math.pi * length * c_total / 3.0
    mass = rho_pi_l * c_total / 3.0
    com_x = length * (c0 + 2.0 * c1 + 3.0 * c2) / (4.0 * c_total)
    i_axial = rho_pi_l * j / 4.0
    i_transverse = rho_pi_l * (j / 8.0 + length * length * k / (240.0 * c_total))
    return volume, mass, com_x, i_axial, i_transverse, i_transverse


def profile(dimensions: Mapping[str, float]) -> np.ndarray:
    """The closed (r, x) profile of a cone, counter-clockwise, consecutive duplicates removed:
    ``(R_a, 0) -> (R_b, L) -> (R_bi, L) -> (R_ai, 0) -> (R_a, 0)`` (m).

    Features below float64's reach are closed: a radius under ``MIN_RELATIVE_TIP`` of the
    body's size is taken as 0 (a point), and an end whose wall ``R - R_i`` is under
    ``MIN_RELATIVE_WALL`` of its radius ``R`` as a knife edge (``R_i = R``).
    """
    length = dimensions["length"]
    ra, rb = dimensions["radius_a"], dimensions["radius_b"]
    rai, rbi = dimensions["inner_radius_a"], dimensions["inner_radius_b"]
    tiny = MIN_RELATIVE_TIP * max(length, ra, rb)
    ra, rb, rai, rbi = (r if r >= tiny else 0.0 for r in (ra, rb, rai, rbi))
    if ra - rai < MIN_RELATIVE_WALL * ra:
        rai = ra
    if rb - rbi < MIN_RELATIVE_WALL * rb:
        rbi = rb
    if ra == rai and rb == rbi:
        raise ParameterError(
            "inner_radius_a",
            dimensions["inner_radius_a"],
            f"the walls at both ends are thinner than {MIN_RELATIVE_WALL:.2g} of the radius: "
            "too thin to mesh in float64 (the mass properties are still exact)",
        )
    points = [(ra, 0.0), (rb, length), (rbi, length), (rai, 0.0), (ra, 0.0)]
    kept = [points[0]]
    for point in points[1:]:
        if point != kept[-1]:
            kept.append(point)
    return np.array(kept, dtype=np.float64)


def mesh(dimensions: Mapping[str, float], sections: int) -> Any:
    """The cone in C: its profile revolved about x with ``sections`` segments."""
    return revolve_profile(profile(dimensions), sections)


def primitive(dimensions: Mapping[str, float]) -> Primitive | None:
    """A solid cone with equal radii is a native cylinder centred at ``(L/2, 0, 0)``."""
    radius = dimensions["radius_a"]
    if (
        radius != dimensions["radius_b"]
        or dimensions["inner_radius_a"] != 0.0
        or dimensions["inner_radius_b"] != 0.0
    ):
        return None
    length = dimensions["length"]
    return Primitive("cylinder", (radius, length), (0.5 * length, 0.0, 0.0))


SPEC = register(
    ShapeSpec(
        name="cone",
        summary="a cone or frustum, solid or with a coaxial frustum-shaped bore",
        params=(
            Param("length", 1.0, "extent along the axis, frame_a to frame_b (m)"),
            Param("radius_a", 0.4, "outer radius at frame_a (m)"),
            Param("radius_b", 0.1, "outer radius at frame_b (m)"),
            Param("inner_radius_a", 0.0, "radius of the bore at frame_a (m; 0: solid)"),
            Param("inner_radius_b", 0.0, "radius of the bore at frame_b (m; 0: solid)"),
        ),
        rules=RULES,
        check=check,
        closed_form=closed_form,
        mesh=mesh,
        primitive=primitive,
    )
)
