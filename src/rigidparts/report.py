"""Results in the user's units: one body's (or one :class:`MassProperties`') report as plain
floats, with the units they are in.

>>> from rigidparts.report import report
>>> data = report(rp.Box(), units="mm,g")      # or "mm kg", "in lb", "SI" (the default)
>>> data["mass"], data["units"]["mass"]           # 157200.0, 'g'
>>> data["inertia"], data["units"]["inertia"]     # [[...]], 'g mm^2'

Inside rigidparts everything stays SI; this is the one place that converts results for people
(the command line's ``--units``). ``units`` names a length unit and a mass unit, in any order,
separated by a comma or spaces (``"mm,g"``, ``"mm kg"``, ``"in, lb"``); one left out stays SI
(m or kg). The others follow: volume ``L^3``, density ``M/L^3``, inertia ``M L^2``. pint is
imported only when the units are not SI.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from .errors import ParameterError
from .inertia import MassProperties

__all__ = ["SI", "ReportUnits", "parse_units", "report"]


@dataclass(frozen=True)
class ReportUnits:
    """A length unit and a mass unit for reports, with their factors from SI.

    ``length_per_m`` is the number of ``length`` units in one metre (1000 for mm),
    ``mass_per_kg`` the number of ``mass`` units in one kilogram (1000 for g).
    """

    length: str = "m"
    mass: str = "kg"
    length_per_m: float = 1.0
    mass_per_kg: float = 1.0

    @property
    def volume(self) -> str:
        return f"{self.length}^3"

    @property
    def density(self) -> str:
        return f"{self.mass}/{self.length}^3"

    @property
    def inertia(self) -> str:
        return f"{self.mass} {self.length}^2"

    def names(self) -> dict[str, str]:
        """``{"length", "mass", "volume", "density", "inertia"}`` -> unit text."""
        return {
            "length": self.length,
            "mass": self.mass,
            "volume": self.volume,
            "density": self.density,
            "inertia": self.inertia,
        }

    # The conversions of SI values (floats or arrays) into these units.
    def lengths(self, value: Any) -> Any:
        return _scaled(value, self.length_per_m)

    def masses(self, value: Any) -> Any:
        return _scaled(value, self.mass_per_kg)

    def volumes(self, value: Any) -> Any:
        return _scaled(value, self.length_per_m**3)

    def densities(self, value: Any) -> Any:
        return _scaled(value, self.mass_per_kg / self.length_per_m**3)

    def inertias(self, value: Any) -> Any:
        return _scaled(value, self.mass_per_kg * self.length_per_m**2)


#: The SI units of every report by default: m, kg, m^3, kg/m^3, kg m^2.
SI = ReportUnits()



def counted(count: int, word: str, many: str | None = None) -> str:
    """``"1 body"``, ``"2 bodies"``: ``count`` and the word, plural ``many`` (default
    ``word + "s"``) unless one."""
    return f"{count} {word if count == 1 else (many or word + 's')}"

def _scaled(value: Any, factor: float) -> Any:
    """``value * factor`` as plain floats (nested lists for arrays); exact when factor is 1."""
    if factor == 1.0:
        array = np.asarray(value, dtype=np.float64)
    else:
        array = np.asarray(value, dtype=np.float64) * factor
    return float(array) if array.ndim == 0 else array.tolist()


def parse_units(units: str | ReportUnits | None) -> ReportUnits:
    """``"mm,g"``, ``"mm kg"``, ``"in, lb"``, ``"g"``, ``"SI"`` or None -> :class:`ReportUnits`.

    :class:`ParameterError` naming ``units`` for a unit pint does not know, one that is
    neither a length nor a mass, or two of the same kind.
    """
    if isinstance(units, ReportUnits):
        return units
    if units is None:
        return SI
    if not isinstance(units, str):
        raise ParameterError("units", units, "must be text such as 'mm,g' or 'in lb'")
    words = [w for w in re.split(r"[,\s]+", units.strip()) if w]
    if not words:
        raise ParameterError(
            "units", units, "is empty: give a length and/or a mass unit, e.g. 'mm,g'"
        )
    if len(words) == 1 and words[0].lower() == "si":
        return SI
    found: dict[str, tuple[str, float]] = {}
    for word in words:
        kind, symbol, per_si = _unit(units, word)
        if kind in found:
            raise ParameterError(
                "units", units, f"gives two {kind} units ({found[kind][0]}, {symbol}): give one"
            )
        found[kind] = (symbol, per_si)
    length, length_per_m = found.get("length", ("m", 1.0))
    mass, mass_per_kg = found.get("mass", ("kg", 1.0))
    return ReportUnits(length, mass, length_per_m, mass_per_kg)


def _unit(units: str, word: str) -> tuple[str, str, float]:
    """``(kind, symbol, units per SI unit)`` of one word of ``units``."""
    from .units import registry

    ureg = registry()
    try:
        unit = ureg.Unit(word)
    except Exception:  # pint raises UndefinedUnitError, but also AttributeError, ...
        raise ParameterError(
            "units", units, f"{word!r} is not a unit pint knows: write e.g. 'mm,g' or 'in lb'"
        ) from None
    for kind, si in (("length", "m"), ("mass", "kg")):
        if unit.dimensionality == ureg.Unit(si).dimensionality:
            per_si = float(ureg.Quantity(1.0, si).to(unit).magnitude)
            symbol = "m" if word == "m" else f"{unit:~}"
            return kind, symbol or word, per_si
    raise ParameterError(
        "units",
        units,
        f"{word!r} is neither a length nor a mass unit (give e.g. 'mm,g'; the rest follows: "
        "volume, density, inertia)",
    )


def report(subject: Any, units: str | ReportUnits | None = None) -> dict[str, Any]:
    """The results of a body or of a :class:`MassProperties` as plain floats in ``units``
    (:func:`parse_units`; default SI), JSON-ready, with a ``units`` entry naming them.

    For a body (any :class:`~rigidparts.component.Component`): the keys of
    ``body.to_dict()`` (``shape``, ``parameters``, ``mass``, ``volume``, ``density``,
    ``material``, ``center_of_mass``, ``inertia``, ``principal_moments``, ``principal_axes``,
    ``frames``) plus ``inertia_about_frame_a`` (``I_BAo_A``: the inertia about frame_a's
    origin, in frame_a's axes, by the parallel-axis theorem) and ``units``. Lengths in the
    ``parameters`` (those of kind "length", the axial extra frames, the radius of a radial
    one), a given ``mass`` and ``density`` are converted too; angles stay in radians and
    directions are unitless. ``inertia`` is about the centre of mass, in frame_a's axes.

    For a :class:`MassProperties`: ``mass``, ``center_of_mass``, ``inertia``,
    ``principal_moments``, ``principal_axes``, ``inertia_about_frame_a`` (about the origin of
    the frame it is expressed in) and ``units``.
    """
    chosen = parse_units(units)
    if isinstance(subject, MassProperties):
        props = subject
        data: dict[str, Any] = {"mass": props.mass}
    else:
        props = subject.mass_properties
        data = {
            "shape": subject.shape,
            "parameters": _parameters(subject, chosen),
            "mass": chosen.masses(subject.mass),
            # None for a body given by its mass alone (no volume, no density)
            "volume": None if subject.volume is None else chosen.volumes(subject.volume),
            "density": None if subject.density is None else chosen.densities(subject.density),
            "material": subject.material,
        }
    data["mass"] = chosen.masses(props.mass)
    data["center_of_mass"] = chosen.lengths(props.center_of_mass)
    data["inertia"] = chosen.inertias(props.inertia)
    data["principal_moments"] = chosen.inertias(props.principal_moments)
    data["principal_axes"] = props.principal_axes.tolist()
    if not isinstance(subject, MassProperties):
        data["frames"] = {
            name: {
                "position": chosen.lengths(frame.position),
                "rotation": np.asarray(frame.rotation).tolist(),
            }
            for name, frame in subject.frames.items()
        }
    data["inertia_about_frame_a"] = chosen.inertias(props.inertia_about((0.0, 0.0, 0.0)))
    data["units"] = chosen.names()
    extras = getattr(subject, "report_extras", None)  # a body read from a file: what was done
    if extras is not None:
        data.update(extras(chosen))
    return data


def _parameters(body: Any, units: ReportUnits) -> dict[str, Any]:
    """``body.parameters()`` (JSON-ready, as in ``body.to_dict()``: a mesh object as a
    placeholder) with its lengths, mass and density in ``units``."""
    out = dict(body.to_dict()["parameters"])
    if units == SI:
        return out
    for param in body.spec.params:
        value = out.get(param.name)
        if (
            param.kind == "length"
            and isinstance(value, int | float)
            and not isinstance(value, bool)
        ):
            out[param.name] = units.lengths(value)
    if "mass" in out:
        out["mass"] = units.masses(out["mass"])
    if "density" in out:
        out["density"] = units.densities(out["density"])
    if "extra_frames" in out:
        out["extra_frames"] = [
            [units.lengths(item[0]), item[1]] if isinstance(item, list) else units.lengths(item)
            for item in out["extra_frames"]
        ]
    return out
