"""Cylinder: a homogeneous solid cylinder, or a tube with a coaxial bore, along +x.

Geometry (``spec/family.md``): length ``L`` along the axis from frame_a (x = 0) to frame_b
(x = L); outer radius ``R``; a coaxial bore of radius ``R_i`` through the whole length (0: solid).
The cylinder is exactly the Cone with ``R_a = R_b = R`` and ``R_ai = R_bi = R_i``, so its closed
form *calls* :func:`rigidparts.shapes.cone.closed_form` with those radii: the same code, the same
bits as ``rp.Cone`` of equal radii.

Textbook forms (thick-walled cylinder, about the centre of mass ``(L/2, 0, 0)``, C's axes)::

    m = rho pi L (R^2 - R_i^2),  I_xx = m (R^2 + R_i^2) / 2,
    I_yy = I_zz = m (3 (R^2 + R_i^2) + L^2) / 12

Cancellation-free form (what the cone's code computes for equal radii): with the wall
``d = R - R_i >= 0`` and the sum ``S = R + R_i``, ``R^2 - R_i^2 = d S`` and
``R^2 + R_i^2 = (S^2 + d^2) / 2``, so

    m = rho pi L d S,  I_xx = rho pi L d S (S^2 + d^2) / 4,
    I_yy = I_zz = rho pi L d S ((S^2 + d^2) / 8 + L^2 / 12)

are sums and products of non-negative terms: a few ulp however thin the wall (the cone's Bernstein
coefficients are then all equal to ``d S``). ``tests/test_cylinder.py`` proves the code equal to
direct integration with sympy and measures it against 50-digit references.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..errors import ParameterError
from ._meshing import MIN_RELATIVE_TIP, MIN_RELATIVE_WALL
from ._spec import Param, Primitive, Rule, ShapeSpec, register, rule_codes
from .cone import closed_form as _cone_closed_form
from .cone import mesh as _cone_mesh

__all__ = ["SECTION_UNDERFLOW", "SPEC", "check", "closed_form", "tube_mesh"]

#: Shared with the Disk: the section ``(R - R_i)(R + R_i)`` rounds to 0 (e.g. R = 1e-200 m);
#: the closed form divides by it, so this is a rule of the shape, not a late overflow check.
SECTION_UNDERFLOW = (
    "is too small for float64: (radius - inner_radius) * (radius + inner_radius) rounds to 0 "
    "(radius={radius!r} m, inner_radius={inner_radius!r} m)"
)

RULES = (
    Rule("length", "must be positive and finite (m)"),
    Rule("radius", "must be positive and finite (m)"),
    Rule("inner_radius", "must be non-negative and finite (m)"),
    Rule(
        "inner_radius",
        "must not exceed radius={radius!r} m (the bore cannot be wider than the cylinder)",
    ),
    Rule(
        "inner_radius",
        "must be less than radius={radius!r} m: the bore leaves no material (zero volume)",
    ),
    Rule("radius", SECTION_UNDERFLOW),
)
(
    LENGTH_POSITIVE,
    RADIUS_POSITIVE,
    INNER_RADIUS_NON_NEGATIVE,
    INNER_RADIUS_FITS,
    SOME_MATERIAL,
    SECTION_REPRESENTABLE,
) = rule_codes(RULES)


def check(length: float, radius: float, inner_radius: float) -> int:
    """0 if the cylinder is valid, else the code of the first broken rule of :data:`RULES`.

    Rules are tested last to first, each overwriting ``code``, so the first broken rule wins;
    with no early return the batch compiler vectorises it.
    """
    # The cone's closed form divides by this section (over pi); it must not round to 0.
    section = (radius - inner_radius) * (radius + inner_radius)
    code = 0 if section > 0.0 else SECTION_REPRESENTABLE
    code = SOME_MATERIAL if inner_radius == radius else code
    code = INNER_RADIUS_FITS if inner_radius > radius else code
    code = code if 0.0 <= inner_radius < math.inf else INNER_RADIUS_NON_NEGATIVE
    code = code if 0.0 < radius < math.inf else RADIUS_POSITIVE
    return code if 0.0 < length < math.inf else LENGTH_POSITIVE


def closed_form(
    length: float, radius: float, inner_radius: float, density: float
) -> tuple[float, float, float, float, float, float]:
    """``(volume, mass, com_x, i_xx, i_yy, i_zz)`` of a valid cylinder: the cone's
    cancellation-free closed form with equal radii at both ends (module docstring).

    Units: m^3, kg, m, kg m^2. Inertias about the centre of mass ``(L/2, 0, 0)`` along the
    canonical axes (x: the cylinder's axis).
    """
    return _cone_closed_form(length, radius, radius, inner_radius, inner_radius, density)


def tube_mesh(
    length: float,
    radius: float,
    inner_radius: float,
    sections: int,
    *,
    length_name: str = "length",
) -> Any:
    """A cylinder or tube in C, x in [0, ``length``] (m): the cone's profile revolved with
    ``sections`` segments (:func:`rigidparts.shapes.cone.mesh` of equal radii).

    :class:`ParameterError` (naming ``radius`` or ``inner_radius``) when float64 cannot mesh
    it: a radius below :data:`MIN_RELATIVE_TIP` of ``length`` (``length_name`` names it in the
    message), or a wall thinner than :data:`MIN_RELATIVE_WALL` of the radius. A bore below
    :data:`MIN_RELATIVE_TIP` of the body's size is meshed as none (the cone's rule).
    """
    if radius < MIN_RELATIVE_TIP * length:
        raise ParameterError(
            "radius",
            radius,
            f"is below {MIN_RELATIVE_TIP:.2g} of {length_name}={length!r} m: too thin to mesh "
            "in float64 (the mass properties are still exact)",
        )
    if inner_radius >= MIN_RELATIVE_TIP * max(length, radius) and (
        radius - inner_radius < MIN_RELATIVE_WALL * radius
    ):
        raise ParameterError(
            "inner_radius",
            inner_radius,
            f"leaves a wall thinner than {MIN_RELATIVE_WALL:.2g} of radius={radius!r} m: too "
            "thin to mesh in float64 (the mass properties are still exact)",
        )
    dimensions = {
        "length": length,
        "radius_a": radius,
        "radius_b": radius,
        "inner_radius_a": inner_radius,
        "inner_radius_b": inner_radius,
    }
    return _cone_mesh(dimensions, sections)


def mesh(dimensions: Mapping[str, float], sections: int) -> Any:
    """The cylinder in C: x in [0, L], radius about the x axis, ``sections`` segments around."""
    return tube_mesh(
        dimensions["length"], dimensions["radius"], dimensions["inner_radius"], sections
    )


def primitive(dimensions: Mapping[str, float]) -> Primitive | None:
    """A solid cylinder is a native cylinder centred at ``(L/2, 0, 0)``; a tube needs a mesh."""
    if dimensions["inner_radius"] != 0.0:
        return None
    length = dimensions["length"]
    return Primitive("cylinder", (dimensions["radius"], length), (0.5 * length, 0.0, 0.0))


def from_primitive(size: tuple[float, ...]) -> tuple[dict[str, Any], dict[str, Any], Any]:
    """A native cylinder ``size = (radius, length)`` centred on its geometry frame G with its
    axis along G's z (URDF, SDFormat, MJCF): a solid cylinder with ``axis = +z`` (frame_a's
    axes are G's), frame_a at its lower end, ``X_GA = (identity, (0, 0, -L/2))``."""
    radius, length = size
    position = np.array([0.0, 0.0, -0.5 * length]) + 0.0
    return (
        {"length": length, "radius": radius, "inner_radius": 0.0},
        {"axis": (0.0, 0.0, 1.0)},
        (np.eye(3), position),
    )


SPEC = register(
    ShapeSpec(
        name="cylinder",
        summary="a cylinder (rod), solid or a tube with a coaxial bore",
        params=(
            Param("length", 1.0, "extent along the axis, frame_a to frame_b (m)"),
            Param("radius", 0.1, "outer radius (m)"),
            Param("inner_radius", 0.0, "radius of the bore through the length (m; 0: solid)"),
        ),
        rules=RULES,
        check=check,
        closed_form=closed_form,
        mesh=mesh,
        primitive=primitive,
        from_primitive={"cylinder": from_primitive},
    )
)
