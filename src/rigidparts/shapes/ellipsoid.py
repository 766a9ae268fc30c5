"""Ellipsoid: a homogeneous solid ellipsoid, centred on frame_a, semi-axes along its x, y, z.

Geometry: ``x^2 / a^2 + y^2 / b^2 + z^2 / c^2 <= 1`` in frame_a, with the semi-axes
``a = radius_x``, ``b = radius_y``, ``c = radius_z`` along frame_a's x, y and z. That is how
MJCF (``type="ellipsoid" size="a b c"``), SDFormat (``<ellipsoid><radii>a b c</radii>``) and
Drake (``<drake:ellipsoid a b c>``) place it in their geometry frame, so a file's ellipsoid is
this body with frame_a on its geometry frame. The ellipsoid has no axis keyword: the three
semi-axes already name three directions, and a rotated one is frame_a rotated (a model's pose).
frame_a is the centre, which is the centre of mass; the canonical frame C is frame_a, and its
axes are principal.

Closed forms (the unit ball ``u = x/a, v = y/b, w = z/c`` has volume ``4 pi / 3`` and
``int u^2 dV = 4 pi / 15``; the Jacobian is ``a b c``), about the centre, along frame_a's axes::

    V = (4/3) pi a b c,   m = rho V,
    I_xx = m (b^2 + c^2) / 5,   I_yy = m (a^2 + c^2) / 5,   I_zz = m (a^2 + b^2) / 5

Sums and products of positive numbers only: a few ulp whatever the proportions.
``tests/test_ellipsoid.py`` proves them equal to direct integration with sympy. ``a = b = c``
is the solid :class:`~rigidparts.Ball` (``(2/5) m R^2``).

Mesh: the ball's mesh of radius 1 (:mod:`rigidparts.shapes.ball`, a revolved semicircle) with
its coordinates multiplied by ``(a, b, c)``: the inscribed polyhedron of the ellipsoid, whose
volume is ``a b c`` times the unit one's (a linear map), converging at order 2.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..errors import ParameterError
from ._meshing import MIN_RELATIVE_TIP, trimesh_module
from ._spec import Param, Primitive, Rule, ShapeSpec, register, rule_codes
from .ball import mesh as _ball_mesh

__all__ = ["SPEC", "check", "closed_form", "from_primitive"]

RULES = (
    Rule("radius_x", "must be positive and finite (m)"),
    Rule("radius_y", "must be positive and finite (m)"),
    Rule("radius_z", "must be positive and finite (m)"),
)
RADIUS_X_POSITIVE, RADIUS_Y_POSITIVE, RADIUS_Z_POSITIVE = rule_codes(RULES)


def check(radius_x: float, radius_y: float, radius_z: float) -> int:
    """0 if the ellipsoid is valid, else the code of the first broken rule of :data:`RULES`.

    Rules are tested last to first, each overwriting ``code``, so the first broken rule wins;
    with no early return the batch compiler vectorises it.
    """
    code = 0 if 0.0 < radius_z < math.inf else RADIUS_Z_POSITIVE
    code = code if 0.0 < radius_y < math.inf else RADIUS_Y_POSITIVE
    return code if 0.0 < radius_x < math.inf else RADIUS_X_POSITIVE


def closed_form(
    radius_x: float, radius_y: float, radius_z: float, density: float
) -> tuple[float, float, float, float, float, float]:
    """``(volume, mass, com_x, i_xx, i_yy, i_zz)`` of a valid ellipsoid (module docstring).

    Units: m^3, kg, m, kg m^2. The centre of mass is the centre (``com_x = 0``); the moments
    are about it, along frame_a's axes (the semi-axes' directions).
    """
    a2 = radius_x * radius_x
    b2 = radius_y * radius_y
    c2 = radius_z * radius_z
    volume = 4.0 * math.pi * (radius_x * radius_y * radius_z) / 3.0
    mass = density * volume
    i_xx = mass * (b2 + c2) / 5.0
    i_yy = mass * (a2 + c2) / 5.0
    i_zz = mass * (a2 + b2) / 5.0
    return volume, mass, 0.0, i_xx, i_yy, i_zz


def mesh(dimensions: Mapping[str, float], sections: int) -> Any:
    """The ellipsoid in C (= frame_a): the unit ball's mesh (``sections`` segments around C's x
    and along each semicircle) stretched by ``(a, b, c)``. A semi-axis under
    ``MIN_RELATIVE_TIP`` of the largest cannot be meshed in float64: ParameterError naming it.
    """
    trimesh = trimesh_module()
    radii = [dimensions["radius_x"], dimensions["radius_y"], dimensions["radius_z"]]
    largest = max(radii)
    for name, value in zip(("radius_x", "radius_y", "radius_z"), radii, strict=True):
        if value < MIN_RELATIVE_TIP * largest:
            raise ParameterError(
                name,
                value,
                f"is below {MIN_RELATIVE_TIP:.2g} of the largest semi-axis ({largest!r} m): too "
                "thin to mesh in float64 (the mass properties are still exact)",
            )
    unit = _ball_mesh({"radius": 1.0, "inner_radius": 0.0}, sections)
    vertices = np.asarray(unit.vertices) * np.array(radii)
    return trimesh.Trimesh(vertices=vertices, faces=np.asarray(unit.faces), process=False)


def primitive(dimensions: Mapping[str, float]) -> Primitive | None:
    """The native ellipsoid centred at the origin, semi-axes along C's x, y, z (a sphere when
    the three are equal: every format has that one)."""
    radii = (dimensions["radius_x"], dimensions["radius_y"], dimensions["radius_z"])
    if radii[0] == radii[1] == radii[2]:
        return Primitive("sphere", (radii[0],), (0.0, 0.0, 0.0))
    return Primitive("ellipsoid", radii, (0.0, 0.0, 0.0))


def from_primitive(size: tuple[float, ...]) -> tuple[dict[str, Any], dict[str, Any], Any]:
    """A native ellipsoid ``size = (a, b, c)`` centred on its geometry frame G, semi-axes
    along G's x, y, z: the dimensions, no options, ``X_GA`` the identity."""
    a, b, c = size
    return (
        {"radius_x": a, "radius_y": b, "radius_z": c},
        {},
        (np.eye(3), np.zeros(3)),
    )


SPEC = register(
    ShapeSpec(
        name="ellipsoid",
        summary="a solid ellipsoid centred on frame_a, semi-axes along its x, y, z",
        params=(
            Param("radius_x", 0.3, "semi-axis along frame_a's x (m)"),
            Param("radius_y", 0.2, "semi-axis along frame_a's y (m)"),
            Param("radius_z", 0.1, "semi-axis along frame_a's z (m)"),
        ),
        rules=RULES,
        check=check,
        closed_form=closed_form,
        axis=False,
        end_frame=None,
        extra_frames=None,
        mesh=mesh,
        primitive=primitive,
        from_primitive={"ellipsoid": from_primitive},
    )
)
