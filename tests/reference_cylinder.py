"""Independent references for the Cylinder and the Disk: textbook formulas written from scratch.

Nothing here imports rigidparts. Two independent statements of the same solids:

- :func:`cylinder_formulas`: the hollow cylinder as the plain "outer solid cylinder minus inner
  solid cylinder" (both centred at (L/2, 0, 0), so the moments subtract directly), from the
  solid cylinder's textbook moments ``m R^2 / 2`` and ``m (3 R^2 + L^2) / 12``;
- :func:`thick_cylinder_textbook`: the thick-walled cylinder's own textbook form,
  ``m = rho pi L (R^2 - R_i^2)``, ``I_axial = m (R^2 + R_i^2) / 2``,
  ``I_transverse = m (3 (R^2 + R_i^2) + L^2) / 12``.

Both use only ``+ - * /`` and take ``pi`` as an argument: with sympy symbols they are proved
equal to direct integration (tests/test_cylinder.py), with :mod:`mpmath` numbers at 50 digits
(from the exact values of the float64 inputs) they are the precision references, and with
Python floats they show the cancellation the library avoids.

Canonical frame C: axis +x; the cylinder from x = 0 to x = L (com_x = L/2); the disk of
thickness T centred at the origin (com_x = 0); moments about the centre of mass along C's axes.
"""

from __future__ import annotations

from typing import Any

import mpmath

from reference import REFERENCE_DPS


def solid_cylinder(length: Any, radius: Any, density: Any, pi: Any) -> dict[str, Any]:
    """Solid cylinder, radius R, length L: volume, mass, moments about its centre (textbook)."""
    volume = pi * radius * radius * length
    mass = density * volume
    return {
        "volume": volume,
        "mass": mass,
        "i_xx": mass * radius * radius / 2,
        "i_yy": mass * (3 * radius * radius + length * length) / 12,
        "i_zz": mass * (3 * radius * radius + length * length) / 12,
    }


def cylinder_formulas(
    length: Any, radius: Any, inner_radius: Any, density: Any, pi: Any
) -> dict[str, Any]:
    """Hollow cylinder = outer solid cylinder minus the coaxial inner one (same centre)."""
    outer = solid_cylinder(length, radius, density, pi)
    inner = solid_cylinder(length, inner_radius, density, pi)
    out = {key: outer[key] - inner[key] for key in outer}
    out["com_x"] = length / 2
    return out


def thick_cylinder_textbook(
    length: Any, radius: Any, inner_radius: Any, density: Any, pi: Any
) -> dict[str, Any]:
    """The thick-walled cylinder's textbook form (module docstring)."""
    r2 = radius * radius + inner_radius * inner_radius
    volume = pi * length * (radius * radius - inner_radius * inner_radius)
    mass = density * volume
    transverse = mass * (3 * r2 + length * length) / 12
    return {
        "volume": volume,
        "mass": mass,
        "com_x": length / 2,
        "i_xx": mass * r2 / 2,
        "i_yy": transverse,
        "i_zz": transverse,
    }


def _reference(formulas: Any, values: tuple[float, ...], dps: int) -> dict[str, mpmath.mpf]:
    with mpmath.workdps(dps):
        args = [mpmath.mpf(float(v)) for v in values]  # exact conversions
        return {key: +value for key, value in formulas(*args, mpmath.pi).items()}


def cylinder_reference(
    length: float,
    radius: float,
    inner_radius: float,
    density: float,
    *,
    dps: int = REFERENCE_DPS,
    formulas: Any = cylinder_formulas,
) -> dict[str, mpmath.mpf]:
    """The cylinder's quantities at ``dps`` digits from the exact values of the float inputs."""
    return _reference(formulas, (length, radius, inner_radius, density), dps)


def disk_reference(
    radius: float,
    inner_radius: float,
    thickness: float,
    density: float,
    *,
    dps: int = REFERENCE_DPS,
    formulas: Any = cylinder_formulas,
) -> dict[str, mpmath.mpf]:
    """The disk's quantities at ``dps`` digits: the cylinder of length T, centred (com_x = 0)."""
    out = _reference(formulas, (thickness, radius, inner_radius, density), dps)
    out["com_x"] = mpmath.mpf(0)
    return out
