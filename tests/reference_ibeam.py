"""Independent references for the I-Beam tests: textbook "outer minus inner" forms from scratch.

Nothing here imports rigidparts. The section is the outer ``b x h`` rectangle, minus the two
side voids (each ``(b - t_w)/2`` wide and ``g = h - 2 t_f`` high, centred at
``z = +-(b + t_w)/4``), plus four spandrels, each an ``r x r`` square minus a quarter disc of
radius ``r`` (moments of the quarter disc in polar coordinates about its centre). None of the
library's spandrel constants (``1 - pi/4``, ``(10 - 3 pi)/(3 (4 - pi))``, ...) appears, and
nothing is rewritten to avoid cancellation: at 50 digits that costs nothing, in float64 it
loses digits for thin flanges (which the tests document).

As in ``reference.py``, the formulas use only ``+ - * /`` and take ``pi`` as an argument: with
sympy symbols they are proved equal to direct integration, with mpmath numbers at 50 digits
(:func:`ibeam_reference`) they are the precision references, with floats the naive float64
evaluation.

Canonical frame C: axis +x from frame_a (x = 0) to frame_b (x = L), height h along +y, flange
width b along +z; inertias about the centre of mass (L/2, 0, 0) along C's axes.
"""

from __future__ import annotations

from typing import Any

import mpmath

from reference import REFERENCE_DPS


def _exact(values: tuple[float, ...]) -> list[mpmath.mpf]:
    """Each float64 converted exactly (mpf of a float is exact)."""
    return [mpmath.mpf(float(v)) for v in values]


def rectangle(width_y: Any, width_z: Any, y: Any, z: Any) -> tuple[Any, Any, Any]:
    """``(area, integral y^2 dA, integral z^2 dA)`` of a ``width_y x width_z`` rectangle
    centred at ``(y, z)`` (textbook, parallel axis theorem)."""
    area = width_y * width_z
    return (
        area,
        width_z * width_y**3 / 12 + area * y**2,
        width_y * width_z**3 / 12 + area * z**2,
    )


def quarter_disc(radius: Any, y: Any, z: Any, pi: Any) -> tuple[Any, Any, Any]:
    """The quarter disc of ``radius`` centred at ``(y, z)`` spanning the quadrant
    ``y >= y_c, z <= z_c`` (polar angle -pi/2 .. 0): area, integral y^2 dA, integral z^2 dA.
    With ``y = y_c + s cos t``, ``z = z_c + s sin t``: integral cos t dt = 1,
    integral sin t dt = -1, integral cos^2 t dt = integral sin^2 t dt = pi/4."""
    r = radius
    area = pi * r * r / 4
    return (
        area,
        y * y * area + 2 * y * r**3 / 3 + pi * r**4 / 16,
        z * z * area - 2 * z * r**3 / 3 + pi * r**4 / 16,
    )


def ibeam_section(
    height: Any, flange_width: Any, flange_thickness: Any, web_thickness: Any, root_radius: Any,
    pi: Any,
) -> dict[str, Any]:  # fmt: skip
    """``{"area", "s_h", "s_w"}``: area, integral of y^2 (height) and z^2 (width) over the
    section, as outer rectangle - side voids + spandrels (square - quarter disc)."""
    h, b, t_f, t_w, r = height, flange_width, flange_thickness, web_thickness, root_radius
    g = h - 2 * t_f
    outer = rectangle(h, b, 0, 0)
    void = rectangle(g, (b - t_w) / 2, 0, (b + t_w) / 4)  # one side; the other is its mirror
    # the first quadrant's spandrel: the square [g/2 - r, g/2] x [t_w/2, t_w/2 + r] less the
    # quarter disc centred at (g/2 - r, t_w/2 + r); the other three mirror it (same moments)
    square = rectangle(r, r, g / 2 - r / 2, t_w / 2 + r / 2)
    disc = quarter_disc(r, g / 2 - r, t_w / 2 + r, pi)
    area, s_h, s_w = (outer[i] - 2 * void[i] + 4 * (square[i] - disc[i]) for i in range(3))
    return {"area": area, "s_h": s_h, "s_w": s_w}


def ibeam_formulas(
    length: Any, height: Any, flange_width: Any, flange_thickness: Any, web_thickness: Any,
    root_radius: Any, density: Any, pi: Any,
) -> dict[str, Any]:  # fmt: skip
    """The beam: a prism of the section along x (textbook: ``integral (x - L/2)^2 dx = L^3/12``
    times the area, plus the length times the section's second moment)."""
    section = ibeam_section(height, flange_width, flange_thickness, web_thickness, root_radius, pi)
    area, s_h, s_w = section["area"], section["s_h"], section["s_w"]
    L, rho = length, density
    return {
        "volume": L * area,
        "mass": rho * L * area,
        "com_x": L / 2,
        "i_xx": rho * L * (s_h + s_w),
        "i_yy": rho * (L**3 * area / 12 + L * s_w),  # about y (height): x^2 + z^2
        "i_zz": rho * (L**3 * area / 12 + L * s_h),  # about z (width): x^2 + y^2
    }


def ibeam_reference(
    length: float, height: float, flange_width: float, flange_thickness: float,
    web_thickness: float, root_radius: float, density: float, *, dps: int = REFERENCE_DPS,
) -> dict[str, mpmath.mpf]:  # fmt: skip
    """The I-beam's quantities at ``dps`` digits from the exact values of the float inputs."""
    with mpmath.workdps(dps):
        args = _exact(
            (length, height, flange_width, flange_thickness, web_thickness, root_radius, density)
        )
        return {key: +value for key, value in ibeam_formulas(*args, mpmath.pi).items()}


def section_reference(
    height: float, flange_width: float, flange_thickness: float, web_thickness: float,
    root_radius: float, *, dps: int = REFERENCE_DPS,
) -> dict[str, mpmath.mpf]:  # fmt: skip
    """The section's area and second moments at ``dps`` digits (exact float inputs)."""
    with mpmath.workdps(dps):
        args = _exact((height, flange_width, flange_thickness, web_thickness, root_radius))
        return {key: +value for key, value in ibeam_section(*args, mpmath.pi).items()}
