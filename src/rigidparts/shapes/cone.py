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

__all__ = ["DEFAULTS", "PARAMETERS", "RULES", "check", "closed_form"]

PARAMETERS = ("length", "radius_a", "radius_b", "inner_radius_a", "inner_radius_b")

#: The original tool's defaults (m).
DEFAULTS = {
    "length": 1.0,
    "radius_a": 0.4,
    "radius_b": 0.1,
    "inner_radius_a": 0.0,
    "inner_radius_b": 0.0,
}

RULES = (
    ("length", "must be positive and finite (m)"),
    ("radius_a", "must be non-negative and finite (m)"),
    ("radius_b", "must be non-negative and finite (m)"),
    ("inner_radius_a", "must be non-negative and finite (m)"),
    ("inner_radius_b", "must be non-negative and finite (m)"),
    (
        "inner_radius_a",
        "must not exceed radius_a={radius_a!r} m (the bore cannot be wider than the body)",
    ),
    (
        "inner_radius_b",
        "must not exceed radius_b={radius_b!r} m (the bore cannot be wider than the body)",
    ),
    ("radius_a", "leaves no material: the bore fills the body at both ends (zero volume)"),
    ("density", "must be positive and finite (kg/m^3)"),
)


def check(
    length: float,
    radius_a: float,
    radius_b: float,
    inner_radius_a: float,
    inner_radius_b: float,
    density: float,
) -> int:
    """0 if the cone is valid, else ``1 + i`` for the first broken rule ``RULES[i]``.

    Rules are tested last to first, each overwriting ``code``, so the first broken rule wins;
    with no early return the batch compiler vectorises it.
    """
    wall_a = radius_a - inner_radius_a
    wall_b = radius_b - inner_radius_b
    sum_a = radius_a + inner_radius_a
    sum_b = radius_b + inner_radius_b
    # Zero volume: no wall at either end, or no wall at one end and a point at the other.
    material = wall_a * sum_a + 0.5 * (wall_a * sum_b + wall_b * sum_a) + wall_b * sum_b
    code = 0 if 0.0 < density < math.inf else 9
    code = code if material > 0.0 else 8
    code = 7 if inner_radius_b > radius_b else code
    code = 6 if inner_radius_a > radius_a else code
    code = code if 0.0 <= inner_radius_b < math.inf else 5
    code = code if 0.0 <= inner_radius_a < math.inf else 4
    code = code if 0.0 <= radius_b < math.inf else 3
    code = code if 0.0 <= radius_a < math.inf else 2
    return code if 0.0 < length < math.inf else 1


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
