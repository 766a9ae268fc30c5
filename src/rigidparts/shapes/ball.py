"""Ball: a homogeneous solid sphere, or a hollow one (a spherical shell), about its centre.

Geometry (``spec/family.md``): outer radius ``R``; a concentric spherical cavity of radius
``R_i`` (solid when 0). The ball has no axis: frame_a sits at the centre, which is the centre of
mass, and the canonical frame C is frame_a (every axis is principal).

Closed forms, about the centre, the same about every axis::

    m = rho (4/3) pi (R^3 - R_i^3),   I = rho (8/15) pi (R^5 - R_i^5)

Cancellation-free form. ``R^3 - R_i^3`` and ``R^5 - R_i^5`` lose every digit of a thin shell
in float64; with the wall ``d = R - R_i >= 0`` they are written as ``d`` times sums of
non-negative terms::

    R^3 - R_i^3 = d s_2,   s_2 = R^2 + R R_i + R_i^2
    R^5 - R_i^5 = d s_4,   s_4 = R^4 + R^3 R_i + R^2 R_i^2 + R R_i^3 + R_i^4
                                = R^2 R^2 + (R R_i) s_2 + R_i^2 R_i^2

    V = 4 pi d s_2 / 3,   m = rho V,   I = 8 pi rho d s_4 / 15

``d`` is exact when ``R_i >= R/2`` (Sterbenz) and otherwise carries one rounding of a number
of the size of ``R``; everything after it adds and multiplies non-negative numbers, so the
relative error is a few ulp however thin the shell (``tests/test_ball.py`` measures it against
50-digit references and proves the forms equal to direct integration with sympy). Thin-shell
limit ``d -> 0``: ``s_2 -> 3 R^2``, ``s_4 -> 5 R^4``, so ``I -> (2/3) m R^2``; solid ball:
``I = (2/5) m R^2``.

Mesh: the half-annulus ``R_i <= sqrt(r^2 + x^2) <= R``, ``r >= 0`` (a half-disc when solid)
revolved about C's x axis, ``sections`` segments around the axis and along each semicircle
(so ``2 sections^2`` triangles per sphere). Its volume is that of the inscribed polyhedron and
converges to the closed form at order 2.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..errors import ParameterError
from ._meshing import MIN_RELATIVE_TIP, MIN_RELATIVE_WALL, revolve_profile, unit_semicircle
from ._spec import Param, Primitive, Rule, ShapeSpec, register, rule_codes

__all__ = ["SPEC", "check", "closed_form", "profile"]

RULES = (
    Rule("radius", "must be positive and finite (m)"),
    Rule("inner_radius", "must be non-negative and finite (m)"),
    Rule(
        "inner_radius",
        "must not exceed radius={radius!r} m (the cavity cannot be larger than the ball)",
    ),
    Rule(
        "inner_radius",
        "leaves no material: a cavity as large as the ball (radius={radius!r} m)",
    ),
)
(
    RADIUS_POSITIVE,
    INNER_RADIUS_NON_NEGATIVE,
    INNER_RADIUS_FITS,
    SOME_MATERIAL,
) = rule_codes(RULES)


def check(radius: float, inner_radius: float) -> int:
    """0 if the ball is valid, else the code of the first broken rule of :data:`RULES`.

    Rules are tested last to first, each overwriting ``code``, so the first broken rule wins;
    with no early return the batch compiler vectorises it.
    """
    code = SOME_MATERIAL if inner_radius == radius else 0
    code = INNER_RADIUS_FITS if inner_radius > radius else code
    code = code if 0.0 <= inner_radius < math.inf else INNER_RADIUS_NON_NEGATIVE
    return code if 0.0 < radius < math.inf else RADIUS_POSITIVE


def closed_form(
    radius: float, inner_radius: float, density: float
) -> tuple[float, float, float, float, float, float]:
    """``(volume, mass, com_x, i_xx, i_yy, i_zz)`` of a valid ball (module docstring).

    Units: m^3, kg, m, kg m^2. The centre of mass is the centre (``com_x = 0``); the moments
    are about it and equal about every axis.
    """
    wall = radius - inner_radius
    r2 = radius * radius
    ri2 = inner_radius * inner_radius
    r_ri = radius * inner_radius
    s2 = r2 + r_ri + ri2  # (R^3 - R_i^3) / (R - R_i)
    s4 = r2 * r2 + r_ri * s2 + ri2 * ri2  # (R^5 - R_i^5) / (R - R_i)
    volume = 4.0 * math.pi * wall * s2 / 3.0
    mass = density * volume
    moment = 8.0 * math.pi * density * wall * s4 / 15.0
    return volume, mass, 0.0, moment, moment, moment


def profile(dimensions: Mapping[str, float], sections: int) -> np.ndarray:
    """The closed (r, x) profile of the ball, counter-clockwise (m): the outer semicircle from
    ``(0, -R)`` through ``(R, 0)`` to ``(0, R)``, then along the axis and down the inner
    semicircle from ``(0, R_i)`` to ``(0, -R_i)`` (omitted when solid), back to ``(0, -R)``;
    ``sections`` segments on each semicircle.

    Features below float64's reach: a cavity under ``MIN_RELATIVE_TIP`` of ``R`` is meshed as
    solid; a wall ``R - R_i`` under ``MIN_RELATIVE_WALL`` of ``R`` cannot be meshed (the two
    spheres' vertices would round onto each other): ParameterError naming ``inner_radius``.
    """
    radius, inner = dimensions["radius"], dimensions["inner_radius"]
    if inner < MIN_RELATIVE_TIP * radius:
        inner = 0.0
    if radius - inner < MIN_RELATIVE_WALL * radius:
        raise ParameterError(
            "inner_radius",
            dimensions["inner_radius"],
            f"leaves a wall thinner than {MIN_RELATIVE_WALL:.2g} of the radius: too thin to "
            "mesh in float64 (the mass properties are still exact)",
        )
    sin, cos = unit_semicircle(sections)
    outer = np.column_stack((radius * sin, -radius * cos))
    parts = [outer]
    if inner > 0.0:
        parts.append(np.column_stack((inner * sin, inner * cos)))
    parts.append(outer[:1])
    return np.concatenate(parts) + 0.0  # + 0.0: no -0.0 on the axis


def mesh(dimensions: Mapping[str, float], sections: int) -> Any:
    """The ball in C (= frame_a): its profile revolved about x, ``sections`` segments around
    the axis and along each semicircle."""
    return revolve_profile(profile(dimensions, sections), sections)


def primitive(dimensions: Mapping[str, float]) -> Primitive | None:
    """A solid ball is a native sphere centred at the origin; a hollow one needs a mesh."""
    if dimensions["inner_radius"] != 0.0:
        return None
    return Primitive("sphere", (dimensions["radius"],), (0.0, 0.0, 0.0))


def from_primitive(size: tuple[float, ...]) -> tuple[dict[str, Any], dict[str, Any], Any]:
    """A native sphere ``size = (radius,)`` centred on its geometry frame G: a solid ball,
    frame_a at the centre, ``X_GA`` the identity."""
    (radius,) = size
    return {"radius": radius, "inner_radius": 0.0}, {}, (np.eye(3), np.zeros(3))


SPEC = register(
    ShapeSpec(
        name="ball",
        summary="a ball (sphere), solid or with a concentric spherical cavity",
        params=(
            Param("radius", 1.0, "outer radius (m)"),
            Param("inner_radius", 0.0, "radius of the concentric cavity (m; 0: solid)"),
        ),
        rules=RULES,
        check=check,
        closed_form=closed_form,
        axis=False,
        end_frame=None,
        extra_frames=None,
        mesh=mesh,
        primitive=primitive,
        from_primitive={"sphere": from_primitive},
    )
)
