"""Capsule: a cylinder with a hemispherical cap on each end, solid or hollow, along +x.

Geometry. ``length`` ``L >= 0`` is the length of the *cylindrical part*: the distance between
the centres of the two hemispheres (MuJoCo's ``fromto`` runs from one of these centres to the
other; URDF's non-standard ``<capsule>``, Drake's and SDFormat's ``<capsule>`` give this same
``length``, centred on the geometry frame). ``radius`` ``R > 0`` is the radius of the cylinder
and of both hemispheres. A hollow capsule has a concentric capsular cavity of the same ``L`` and
radius ``R_i`` (0: solid), so its wall ``d = R - R_i`` is uniform.

Frames, in the canonical frame C (x along the axis): **frame_a is at the centre of the
hemisphere at one end** (where the cylindrical part begins), frame_b at the centre of the other
(``L e_axis``), the centre of mass halfway (``(L/2) e_axis``); the surface reaches ``R`` beyond
frame_a and frame_b along the axis (the body spans ``x in [-R, L + R]``). So a link drawn from
joint to joint with MuJoCo's ``fromto`` has frame_a and frame_b on its joints.

Closed forms, about the centre of mass ``(L/2, 0, 0)``, along C's axes. The capsule is a tube
of length L (radii R, R_i) plus two hemispherical shells which together make a hollow ball
(:mod:`rigidparts.shapes.ball`: ``V_b``, ``m_b``, ``I_b`` about its centre), displaced by
``+-L/2`` along x. With ``sigma = R^2 - R_i^2`` and ``rho2 = R^2 + R_i^2``:

    V    = pi L sigma + V_b,     m = rho V
    I_xx = rho pi L sigma rho2 / 2 + I_b
    I_yy = I_zz = rho pi L sigma (rho2 / 4 + L^2 / 12)         (the tube about its centre)
                + I_b + m_b L^2 / 4                           (the caps, parallel axes)
                + rho pi L sigma rho2 / 2                     (the caps' cross term)

The cross term: the shell at ``x = L/2 + u`` (``u >= 0``) gives ``int x^2 dm =
(L/2)^2 m_h + L int u dm + int u^2 dm`` with ``int u dm = rho pi (R^4 - R_i^4) / 4`` (a
hemispherical shell's first moment about its flat face), and the same for the other cap, so the
two add ``rho pi L (R^4 - R_i^4) / 2 = rho pi L sigma rho2 / 2``: the tube's own ``I_xx``. Hence
``I_yy = rho pi L sigma (3 rho2 / 4 + L^2 / 12) + I_b + m_b L^2 / 4``. Solid: the textbook
capsule, ``I_xx = m_c R^2 / 2 + (2/5) m_b R^2``, ``I_yy = m_c (L^2/12 + R^2/4) + m_b (2 R^2/5 +
L^2/4 + 3 L R / 8)`` with ``m_c = rho pi R^2 L``.

Cancellation-free form: ``sigma = d (R + R_i)`` with ``d = R - R_i`` (exact when
``R_i >= R/2``, Sterbenz), ``rho2`` a sum of squares, and the ball's terms in its own
cancellation-free form; every later step adds or multiplies non-negative numbers, so the
relative error is a few ulp however thin the wall. ``tests/test_capsule.py`` proves the code
equal to direct integration with sympy and measures it against 50-digit references.

Limits. ``L = 0`` is exactly the :class:`~rigidparts.Ball` (the tube's terms are 0.0, so the
same bits); ``R -> 0`` the thin rod, ``I_yy -> m L^2 / 12``.

Mesh: the closed (r, x) profile (lower quarter circle about ``x = 0``, the straight side, upper
quarter circle about ``x = L``; the cavity's the other way) revolved about C's x axis.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..errors import ParameterError
from ._meshing import MIN_RELATIVE_TIP, MIN_RELATIVE_WALL, revolve_profile, unit_semicircle
from ._spec import Param, Primitive, Rule, ShapeSpec, register, rule_codes
from .ball import closed_form as _ball_closed_form
from .cylinder import from_primitive as _cylinder_from_primitive

__all__ = ["SPEC", "check", "closed_form", "from_primitive", "profile"]

RULES = (
    Rule("length", "must be non-negative and finite (m; 0: a ball)"),
    Rule("radius", "must be positive and finite (m)"),
    Rule("inner_radius", "must be non-negative and finite (m)"),
    Rule(
        "inner_radius",
        "must not exceed radius={radius!r} m (the cavity cannot be wider than the capsule)",
    ),
    Rule(
        "inner_radius",
        "must be less than radius={radius!r} m: the cavity leaves no material (zero volume)",
    ),
)
(
    LENGTH_NON_NEGATIVE,
    RADIUS_POSITIVE,
    INNER_RADIUS_NON_NEGATIVE,
    INNER_RADIUS_FITS,
    SOME_MATERIAL,
) = rule_codes(RULES)


def check(length: float, radius: float, inner_radius: float) -> int:
    """0 if the capsule is valid, else the code of the first broken rule of :data:`RULES`.

    Rules are tested last to first, each overwriting ``code``, so the first broken rule wins;
    with no early return the batch compiler vectorises it.
    """
    code = SOME_MATERIAL if inner_radius == radius else 0
    code = INNER_RADIUS_FITS if inner_radius > radius else code
    code = code if 0.0 <= inner_radius < math.inf else INNER_RADIUS_NON_NEGATIVE
    code = code if 0.0 < radius < math.inf else RADIUS_POSITIVE
    return code if 0.0 <= length < math.inf else LENGTH_NON_NEGATIVE


def closed_form(
    length: float, radius: float, inner_radius: float, density: float
) -> tuple[float, float, float, float, float, float]:
    """``(volume, mass, com_x, i_xx, i_yy, i_zz)`` of a valid capsule (module docstring).

    Units: m^3, kg, m, kg m^2. Inertias about the centre of mass ``(L/2, 0, 0)`` along the
    canonical axes (x: the capsule's axis); frame_a at the centre of one hemisphere.
    """
    ball_volume, ball_mass, _, ball_moment, _, _ = _ball_closed_form(radius, inner_radius, density)
    section = (radius - inner_radius) * (radius + inner_radius)  # R^2 - R_i^2
    radial = radius * radius + inner_radius * inner_radius  # R^2 + R_i^2
    tube = math.pi * length * section  # the cylindrical part's volume
    rho_tube = density * tube
    volume = tube + ball_volume
    mass = density * volume
    i_xx = 0.5 * rho_tube * radial + ball_moment
    i_yy = (
        rho_tube * (0.75 * radial + length * length / 12.0)
        + ball_moment
        + 0.25 * ball_mass * length * length
    )
    return volume, mass, 0.5 * length, i_xx, i_yy, i_yy


def profile(dimensions: Mapping[str, float], sections: int) -> np.ndarray:
    """The closed (r, x) profile of the capsule in C, counter-clockwise (m): the lower quarter
    circle from ``(0, -R)`` to ``(R, 0)``, the side to ``(R, L)``, the upper quarter circle to
    ``(0, L + R)``, then (hollow) the cavity's upper quarter from ``(0, L + R_i)`` to
    ``(R_i, L)``, its side to ``(R_i, 0)``, its lower quarter to ``(0, -R_i)``, and back to
    ``(0, -R)``. ``ceil(sections / 2)`` segments on each quarter circle.

    Features below float64's reach: a cavity under ``MIN_RELATIVE_TIP`` of the size is meshed
    as solid, a side under it as a ball (``L = 0``); a wall under ``MIN_RELATIVE_WALL`` of ``R``
    or a radius under ``MIN_RELATIVE_TIP`` of ``L`` cannot be meshed: ParameterError.
    """
    length, radius = dimensions["length"], dimensions["radius"]
    inner = dimensions["inner_radius"]
    size = max(length, radius)
    if radius < MIN_RELATIVE_TIP * length:
        raise ParameterError(
            "radius",
            radius,
            f"is below {MIN_RELATIVE_TIP:.2g} of length={length!r} m: too thin to mesh in "
            "float64 (the mass properties are still exact)",
        )
    if inner < MIN_RELATIVE_TIP * size:
        inner = 0.0
    if length < MIN_RELATIVE_TIP * radius:
        length = 0.0
    if inner > 0.0 and radius - inner < MIN_RELATIVE_WALL * radius:
        raise ParameterError(
            "inner_radius",
            dimensions["inner_radius"],
            f"leaves a wall thinner than {MIN_RELATIVE_WALL:.2g} of radius={radius!r} m: too "
            "thin to mesh in float64 (the mass properties are still exact)",
        )
    quarter = max(1, (sections + 1) // 2)
    sin, cos = unit_semicircle(2 * quarter)  # sin[quarter] == 1.0, cos[quarter] == 0.0
    low = slice(0, quarter + 1)
    # The side (R, 0)-(R, L) is the segment between the two quarters; with L = 0 the two
    # quarters share the point (R, 0), which appears once.
    upper_start = quarter if length > 0.0 else quarter + 1
    parts = [
        np.column_stack((radius * sin[low], -radius * cos[low])),
        np.column_stack((radius * sin[upper_start:], length - radius * cos[upper_start:])),
    ]
    if inner > 0.0:
        parts.append(np.column_stack((inner * sin[low], length + inner * cos[low])))
        parts.append(np.column_stack((inner * sin[upper_start:], inner * cos[upper_start:])))
    parts.append(parts[0][:1])
    return np.concatenate(parts) + 0.0  # + 0.0: no -0.0 on the axis


def mesh(dimensions: Mapping[str, float], sections: int) -> Any:
    """The capsule in C: its profile revolved about x with ``sections`` segments around."""
    return revolve_profile(profile(dimensions, sections), sections)


def primitive(dimensions: Mapping[str, float]) -> Primitive | None:
    """A solid capsule is a native capsule centred at ``(L/2, 0, 0)`` (size ``(R, L)``, L the
    cylindrical part), or a sphere when ``L = 0``; a hollow one needs a mesh."""
    if dimensions["inner_radius"] != 0.0:
        return None
    length, radius = dimensions["length"], dimensions["radius"]
    if length == 0.0:
        return Primitive("sphere", (radius,), (0.0, 0.0, 0.0))
    return Primitive("capsule", (radius, length), (0.5 * length, 0.0, 0.0))


def from_primitive(size: tuple[float, ...]) -> tuple[dict[str, Any], dict[str, Any], Any]:
    """A native capsule ``size = (radius, length)`` (length: the cylindrical part) centred on
    its geometry frame G with its axis along G's z (URDF, SDFormat, MJCF): the dimensions, the
    options (``axis = +z``) and frame_a's pose in G, ``X_GA = (identity, (0, 0, -L/2))``."""
    # the same placement as the cylinder's (frame_a on the axis, L/2 below G's origin)
    return _cylinder_from_primitive(size)


SPEC = register(
    ShapeSpec(
        name="capsule",
        summary="a capsule (cylinder with hemispherical ends), solid or with a capsular cavity",
        params=(
            Param(
                "length",
                1.0,
                "length of the cylindrical part, hemisphere centre to centre: frame_a to "
                "frame_b (m)",
            ),
            Param("radius", 0.1, "radius of the cylinder and of both hemispheres (m)"),
            Param(
                "inner_radius",
                0.0,
                "radius of the concentric capsular cavity, same length (m; 0: solid)",
            ),
        ),
        rules=RULES,
        check=check,
        closed_form=closed_form,
        mesh=mesh,
        primitive=primitive,
        from_primitive={"capsule": from_primitive},
    )
)
