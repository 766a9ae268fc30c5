"""The material / density / mass rule every body follows, in one place.

A body takes at most one of ``material`` (a name from :mod:`rigidparts.materials`, default
steel), ``density`` (kg/m^3, or with units) and ``mass`` (kg, or with units). With a mass the
density is ``mass / volume`` and the mass is kept exactly as given. :func:`material_source`
says which of the three is given (ParameterError naming both when two are);
:func:`resolve_density` gives the value. One body (:mod:`rigidparts.component`), a batch
(:mod:`rigidparts.batch.arguments`) and a tolerance study read the rule from here.
"""

from __future__ import annotations

import functools
import math
from typing import Any

from .errors import ParameterError
from .materials import DEFAULT_MATERIAL, Material, get_material
from .units import to_si

__all__ = [
    "DEFAULT_MATERIAL",
    "default_density",
    "density_from_mass",
    "material_source",
    "resolve_density",
]


@functools.lru_cache(maxsize=256)
def _material_named(name: str) -> Material:
    # Materials are immutable and a few names are used over and over: skip the lookup.
    return get_material(name)


def material_source(material: Any, density: Any, mass: Any) -> str:
    """Which of ``material``, ``density``, ``mass`` gives the density: the one given
    explicitly (the default material counts as not given); ParameterError naming both when
    two or three are given."""
    given = [
        name
        for name, value in (("material", material), ("density", density), ("mass", mass))
        if value is not None and value is not DEFAULT_MATERIAL
    ]
    if len(given) > 1:
        values = {"material": material, "density": density, "mass": mass}
        first, second = given[0], given[1]
        raise ParameterError(
            second,
            values[second],
            f"give only one of material, density and mass: {first}={values[first]!r} was given too",
        )
    return given[0] if given else "material"


def resolve_density(material: Any, density: Any, mass: Any) -> tuple[float, str | None, bool]:
    """``(value, material name or None, by_mass)``: the density in kg/m^3 (from the table or
    given), or, when ``by_mass``, the given mass in kg (see :func:`material_source`). The
    common cases (the default material, a float density, a float mass) take no detour."""
    if material is DEFAULT_MATERIAL:
        if mass is None:
            if density is None:
                return (*default_density(), False)
            if type(density) is float:
                return density, None, False
        elif density is None and type(mass) is float:
            return mass, None, True
    source = material_source(material, density, mass)
    if source == "density":
        return to_si("density", density, "density"), None, False
    if source == "mass":
        return to_si("mass", mass, "mass"), None, True
    if isinstance(material, Material):
        return material.density, material.name, False
    found = _material_named(material) if isinstance(material, str) else get_material(material)
    return found.density, found.name, False


@functools.cache
def default_density() -> tuple[float, str]:
    """The default material's density (kg/m^3) and name (read from the table once)."""
    found = _material_named(DEFAULT_MATERIAL)
    return found.density, found.name


def density_from_mass(mass: float, volume: float) -> float:
    """``mass / volume`` as a float64 divide: inf for a volume that underflowed to 0 (as in
    the compiled batch path), not Python's ZeroDivisionError."""
    return mass / volume if volume != 0.0 else math.inf
