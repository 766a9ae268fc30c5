"""Box: a homogeneous (hollow) rectangular bar along +x, closed forms in its canonical frame.

Geometry (``spec/box.txt``, corrected by ``NOTES.md``): length ``L`` along the axis from frame_a
(x = 0) to frame_b (x = L); outer height ``H`` along +y and width ``W`` along +z of the canonical
frame; a centred rectangular hole ``H_i x W_i`` through the whole length; solid when both are 0.

Closed forms, about the centre of mass ``(L/2, 0, 0)``, along C's axes::

    m    = rho L (H W - H_i W_i)
    I_xx = rho L / 12 (H W (H^2 + W^2) - H_i W_i (H_i^2 + W_i^2))
    I_yy = rho L / 12 (H W (W^2 + L^2) - H_i W_i (W_i^2 + L^2))
    I_zz = rho L / 12 (H W (H^2 + L^2) - H_i W_i (H_i^2 + L^2))

The printed I_yy and I_zz read ``W L (W^2 + L^2)`` and ``H L (H^2 + L^2)``: a typo (NOTES.md),
invisible on a unit cube; the forms above follow from direct integration (tests/test_box.py).

Cancellation-free form: with the walls ``dH = H - H_i >= 0`` and ``dW = W - W_i >= 0``,

    A   = H W - H_i W_i       = dH W + H_i dW
    S_y = H^3 W - H_i^3 W_i   = dH (H^2 + H H_i + H_i^2) W + H_i^3 dW      (12 integral y^2 dA)
    S_z = H W^3 - H_i W_i^3   = dH W^3 + H_i dW (W^2 + W W_i + W_i^2)      (12 integral z^2 dA)

    m = rho L A,  I_xx = rho L (S_y + S_z) / 12,
    I_yy = rho L (S_z + L^2 A) / 12,  I_zz = rho L (S_y + L^2 A) / 12

Every term is non-negative, so the relative error stays at a few ulp however thin the walls.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..errors import ParameterError
from ._meshing import (
    MIN_RELATIVE_RADIUS,
    MIN_RELATIVE_WALL,
    exact_merge,
    scale_to_unit,
    trimesh_module,
)
from ._spec import Param, Primitive, Rule, ShapeSpec, register, rule_codes

__all__ = ["SPEC", "check", "closed_form"]

RULES = (
    Rule("length", "must be positive and finite (m)"),
    Rule("width", "must be positive and finite (m)"),
    Rule("height", "must be positive and finite (m)"),
    Rule("inner_width", "must be non-negative and finite (m)"),
    Rule("inner_height", "must be non-negative and finite (m)"),
    Rule(
        "inner_width", "must not exceed width={width!r} m (the hole cannot be wider than the box)"
    ),
    Rule(
        "inner_height",
        "must not exceed height={height!r} m (the hole cannot be higher than the box)",
    ),
    Rule("inner_width", "leaves no material: the hole fills the whole section (zero volume)"),
)
(
    LENGTH_POSITIVE,
    WIDTH_POSITIVE,
    HEIGHT_POSITIVE,
    INNER_WIDTH_NON_NEGATIVE,
    INNER_HEIGHT_NON_NEGATIVE,
    INNER_WIDTH_FITS,
    INNER_HEIGHT_FITS,
    SOME_MATERIAL,
) = rule_codes(RULES)


def check(
    length: float, width: float, height: float, inner_width: float, inner_height: float
) -> int:
    """0 if the box is valid, else the code of the first broken rule of :data:`RULES`.

    Rules are tested last to first, each overwriting ``code``, so the first broken rule wins;
    with no early return the batch compiler vectorises it.
    """
    code = SOME_MATERIAL if inner_width == width and inner_height == height else 0
    code = INNER_HEIGHT_FITS if inner_height > height else code
    code = INNER_WIDTH_FITS if inner_width > width else code
    code = code if 0.0 <= inner_height < math.inf else INNER_HEIGHT_NON_NEGATIVE
    code = code if 0.0 <= inner_width < math.inf else INNER_WIDTH_NON_NEGATIVE
    code = code if 0.0 < height < math.inf else HEIGHT_POSITIVE
    code = code if 0.0 < width < math.inf else WIDTH_POSITIVE
    return code if 0.0 < length < math.inf else LENGTH_POSITIVE


def closed_form(
    length: float,
    width: float,
    height: float,
    inner_width: float,
    inner_height: float,
    density: float,
) -> tuple[float, float, float, float, float, float]:
    """``(volume, mass, com_x, i_xx, i_yy, i_zz)`` of a valid box (module docstring).

    Units: m^3, kg, m, kg m^2. Inertias about the centre of mass along the canonical axes
    (x: axis, y: height direction, z: width direction).
    """
    wall_h = height - inner_height
    wall_w = width - inner_width
    area = wall_h * width + inner_height * wall_w
    s_y = (
        wall_h * (height * height + height * inner_height + inner_height * inner_height) * width
        + inner_height * inner_height * inner_height * wall_w
    )
    s_z = wall_h * (width * width * width) + inner_height * wall_w * (
        width * width + width * inner_width + inner_width * inner_width
    )
    volume = length * area
    mass = density * volume
    rho_l_12 = density * length / 12.0
    l2_area = length * length * area
    i_xx = rho_l_12 * (s_y + s_z)
    i_yy = rho_l_12 * (s_z + l2_area)
    i_zz = rho_l_12 * (s_y + l2_area)
    return volume, mass, 0.5 * length, i_xx, i_yy, i_zz


def mesh(dimensions: Mapping[str, float], sections: int) -> Any:
    """Box in C: x in [0, L], height along y in [-H/2, H/2], width along z in [-W/2, W/2]
    (``sections`` is not used: the box has no round surface)."""
    trimesh = trimesh_module()
    length = dimensions["length"]
    width, height = dimensions["width"], dimensions["height"]
    inner_width, inner_height = dimensions["inner_width"], dimensions["inner_height"]
    scale = scale_to_unit(max(length, width, height))
    ell, w, h = length * scale, width * scale, height * scale
    wi, hi = inner_width * scale, inner_height * scale
    # A hole side below float64's reach (as the cone's radii) is no hole.
    if min(wi, hi) < MIN_RELATIVE_RADIUS * max(ell, w, h):
        wi = hi = 0.0
    # Walls thinner than MIN_RELATIVE_WALL of the section cannot be told apart once the mesh
    # is rotated into frame_a (its faces would round onto each other, leaving no volume): such
    # a wall is left out, as a cone's knife edge, and a box of nothing but such walls refused.
    thin = MIN_RELATIVE_WALL * max(w, h)
    if hi > 0.0 and wi > 0.0:
        hi = h if h - hi < thin else hi
        wi = w if w - wi < thin else wi
        if hi == h and wi == w:
            raise ParameterError(
                "inner_height" if inner_height != height else "inner_width",
                inner_height if inner_height != height else inner_width,
                f"leaves walls thinner than {MIN_RELATIVE_WALL:.2g} of the section: too thin to "
                "mesh in float64 (the mass properties are still exact)",
            )

    def slab(h0: float, h1: float, w0: float, w1: float) -> Any:
        # A solid cuboid over heights [h0, h1] x widths [w0, w1] x axis [0, L] (u, v, z).
        return trimesh.creation.box(bounds=[[h0, w0, 0.0], [h1, w1, ell]])

    if wi == 0.0 or hi == 0.0:  # no hole (a hole of zero area is no hole)
        parts = [slab(-h / 2, h / 2, -w / 2, w / 2)]
    elif wi == w:  # the hole spans the whole width: two slabs, above and below it
        parts = [slab(hi / 2, h / 2, -w / 2, w / 2), slab(-h / 2, -hi / 2, -w / 2, w / 2)]
    elif hi == h:  # the hole spans the whole height: two slabs, beside it
        parts = [slab(-h / 2, h / 2, wi / 2, w / 2), slab(-h / 2, h / 2, -w / 2, -wi / 2)]
    else:
        from shapely.geometry import Polygon, box

        section = Polygon(
            box(-h / 2, -w / 2, h / 2, w / 2).exterior.coords,
            [box(-hi / 2, -wi / 2, hi / 2, wi / 2).exterior.coords],
        )
        # Extruded by 1 and then stretched to L (z is 0 or 1: exact), since extrude_polygon
        # refuses heights below trimesh.tol.merge (a 1 nm plate of a 1 m section).
        prism = trimesh.creation.extrude_polygon(section, height=1.0, process=False)
        vertices = np.array(prism.vertices)
        vertices[:, 2] *= ell
        return exact_merge(vertices, np.asarray(prism.faces), scale)
    raw = trimesh.util.concatenate(parts) if len(parts) > 1 else parts[0]
    return exact_merge(np.asarray(raw.vertices), np.asarray(raw.faces), scale)


def primitive(dimensions: Mapping[str, float]) -> Primitive | None:
    """A solid box is a native box centred at ``(L/2, 0, 0)``; a hollow one needs a mesh."""
    if dimensions["inner_width"] != 0.0 or dimensions["inner_height"] != 0.0:
        return None
    length = dimensions["length"]
    return Primitive(
        "box", (length, dimensions["height"], dimensions["width"]), (0.5 * length, 0.0, 0.0)
    )


def from_primitive(size: tuple[float, ...]) -> tuple[dict[str, Any], dict[str, Any], Any]:
    """A native box of full extents ``size = (x, y, z)`` centred on its geometry frame G (URDF,
    SDFormat, MJCF's doubled half sizes): a solid box along +x (height along y, width along z:
    the default axis and section), frame_a at its end, ``X_GA = (identity, (-x/2, 0, 0))``."""
    x, y, z = size
    position = np.array([-0.5 * x, 0.0, 0.0]) + 0.0
    return (
        {"length": x, "width": z, "height": y, "inner_width": 0.0, "inner_height": 0.0},
        {},
        (np.eye(3), position),
    )


SPEC = register(
    ShapeSpec(
        name="box",
        summary="a box (rectangular bar), solid or with a centred rectangular hole",
        params=(
            Param("length", 1.0, "extent along the axis, frame_a to frame_b (m)"),
            Param("width", 0.1, "outer width, along the width direction (m)"),
            Param("height", 0.2, "outer height, along the height direction (m)"),
            Param("inner_width", 0.0, "width of the hole through the length (m; 0: solid)"),
            Param("inner_height", 0.0, "height of the hole through the length (m; 0: solid)"),
        ),
        rules=RULES,
        check=check,
        closed_form=closed_form,
        cross_section=True,
        mesh=mesh,
        primitive=primitive,
        from_primitive={"box": from_primitive},
    )
)
