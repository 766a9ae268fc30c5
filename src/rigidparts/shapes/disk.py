"""Disk: a homogeneous solid disk, or a ring with a coaxial hole, centred on frame_a.

Geometry (``spec/family.md``): outer radius ``R``, a coaxial hole of radius ``R_i`` (0: solid)
and thickness ``T`` along the axis; the disk is the cylinder of length ``T`` *centred* on frame_a
(x in [-T/2, T/2]), so frame_a is its centre of mass. It has no frame_b; its extra frames are
radial: ``(r, angle)`` pairs, each rotated about the axis by the angle and placed at
``r (cos(angle) h + sin(angle) w)`` in the plane of the centre of mass (``h``, ``w``: the
Box's height and width directions for the axis; for +x, the reference direction is +y).

Closed forms: those of the cylinder (:func:`rigidparts.shapes.cylinder.closed_form`, itself the
cone's cancellation-free form with equal radii), *called* with ``L = T``; the moments about the
centre of mass are the cylinder's, and the centre of mass is at ``com_x = 0``::

    m = rho pi T (R^2 - R_i^2) = rho pi T d S   (d = R - R_i, S = R + R_i)
    I_xx = m (R^2 + R_i^2) / 2,   I_yy = I_zz = m (3 (R^2 + R_i^2) + T^2) / 12

Every step adds or multiplies non-negative terms: a few ulp for rings down to a 1e-12 relative
wall and for disks far thinner than their radius. Inertias along C's axes (x: the disk's axis).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from ._meshing import trimesh_module
from ._spec import Param, Primitive, Rule, ShapeSpec, register, rule_codes
from .cylinder import SECTION_UNDERFLOW, tube_mesh
from .cylinder import closed_form as _cylinder_closed_form

__all__ = ["SPEC", "check", "closed_form"]

RULES = (
    Rule("radius", "must be positive and finite (m)"),
    Rule("inner_radius", "must be non-negative and finite (m)"),
    Rule("thickness", "must be positive and finite (m)"),
    Rule(
        "inner_radius",
        "must not exceed radius={radius!r} m (the hole cannot be wider than the disk)",
    ),
    Rule(
        "inner_radius",
        "must be less than radius={radius!r} m: the hole leaves no material (zero volume)",
    ),
    Rule("radius", SECTION_UNDERFLOW),
)
(
    RADIUS_POSITIVE,
    INNER_RADIUS_NON_NEGATIVE,
    THICKNESS_POSITIVE,
    INNER_RADIUS_FITS,
    SOME_MATERIAL,
    SECTION_REPRESENTABLE,
) = rule_codes(RULES)


def check(radius: float, inner_radius: float, thickness: float) -> int:
    """0 if the disk is valid, else the code of the first broken rule of :data:`RULES`.

    Rules are tested last to first, each overwriting ``code``, so the first broken rule wins;
    with no early return the batch compiler vectorises it.
    """
    # The closed form divides by this section (over pi); it must not round to 0.
    section = (radius - inner_radius) * (radius + inner_radius)
    code = 0 if section > 0.0 else SECTION_REPRESENTABLE
    code = SOME_MATERIAL if inner_radius == radius else code
    code = INNER_RADIUS_FITS if inner_radius > radius else code
    code = code if 0.0 < thickness < math.inf else THICKNESS_POSITIVE
    code = code if 0.0 <= inner_radius < math.inf else INNER_RADIUS_NON_NEGATIVE
    return code if 0.0 < radius < math.inf else RADIUS_POSITIVE


def closed_form(
    radius: float, inner_radius: float, thickness: float, density: float
) -> tuple[float, float, float, float, float, float]:
    """``(volume, mass, com_x, i_xx, i_yy, i_zz)`` of a valid disk: the cylinder of length
    ``thickness``, centred (``com_x = 0``; module docstring).

    Units: m^3, kg, m, kg m^2. Inertias about the centre of mass (frame_a's origin) along the
    canonical axes (x: the disk's axis).
    """
    volume, mass, _, i_xx, i_yy, i_zz = _cylinder_closed_form(
        thickness, radius, inner_radius, density
    )
    return volume, mass, 0.0, i_xx, i_yy, i_zz


def mesh(dimensions: Mapping[str, float], sections: int) -> Any:
    """The disk in C: the cylinder mesh of length T moved by -T/2 along x, so x in [-T/2, T/2]
    (exact: the cylinder's end vertices are exactly 0 and T)."""
    trimesh = trimesh_module()
    thickness = dimensions["thickness"]
    tube = tube_mesh(
        thickness,
        dimensions["radius"],
        dimensions["inner_radius"],
        sections,
        length_name="thickness",
    )
    vertices = np.array(tube.vertices)
    vertices[:, 0] -= 0.5 * thickness
    return trimesh.Trimesh(vertices=vertices, faces=np.asarray(tube.faces), process=False)


def primitive(dimensions: Mapping[str, float]) -> Primitive | None:
    """A solid disk is a native cylinder centred at the origin; a ring needs a mesh."""
    if dimensions["inner_radius"] != 0.0:
        return None
    return Primitive("cylinder", (dimensions["radius"], dimensions["thickness"]), (0.0, 0.0, 0.0))


SPEC = register(
    ShapeSpec(
        name="disk",
        summary="a disk centred on frame_a, solid or a ring with a coaxial hole",
        params=(
            Param("radius", 1.0, "outer radius (m)"),
            Param("inner_radius", 0.0, "radius of the coaxial hole (m; 0: solid)"),
            Param("thickness", 0.1, "extent along the axis, centred on frame_a (m)"),
        ),
        rules=RULES,
        check=check,
        closed_form=closed_form,
        end_frame=None,
        extra_frames="radial",
        mesh=mesh,
        primitive=primitive,
    )
)
