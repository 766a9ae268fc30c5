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

__all__ = ["DEFAULTS", "PARAMETERS", "RULES", "check", "closed_form"]

PARAMETERS = ("length", "width", "height", "inner_width", "inner_height")

#: The original tool's defaults (m).
DEFAULTS = {"length": 1.0, "width": 0.1, "height": 0.2, "inner_width": 0.0, "inner_height": 0.0}

RULES = (
    ("length", "must be positive and finite (m)"),
    ("width", "must be positive and finite (m)"),
    ("height", "must be positive and finite (m)"),
    ("inner_width", "must be non-negative and finite (m)"),
    ("inner_height", "must be non-negative and finite (m)"),
    (
        "inner_width",
        "must not exceed width={width!r} m (the hole cannot be wider than the box)",
    ),
    (
        "inner_height",
        "must not exceed height={height!r} m (the hole cannot be higher than the box)",
    ),
    ("inner_width", "leaves no material: the hole fills the whole section (zero volume)"),
    ("density", "must be positive and finite (kg/m^3)"),
)


def check(
    length: float,
    width: float,
    height: float,
    inner_width: float,
    inner_height: float,
    density: float,
) -> int:
    """0 if the box is valid, else ``1 + i`` for the first broken rule ``RULES[i]``.

    Rules are tested last to first, each overwriting ``code``, so the first broken rule wins;
    with no early return the batch compiler vectorises it.
    """
    code = 0 if 0.0 < density < math.inf else 9
    code = 8 if inner_width == width and inner_height == height else code
    code = 7 if inner_height > height else code
    code = 6 if inner_width > width else code
    code = code if 0.0 <= inner_height < math.inf else 5
    code = code if 0.0 <= inner_width < math.inf else 4
    code = code if 0.0 < height < math.inf else 3
    code = code if 0.0 < width < math.inf else 2
    return code if 0.0 < length < math.inf else 1


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
