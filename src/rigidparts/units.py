"""The one place where units meet the code.

Every length and density that enters rigidparts passes through :func:`to_si`: a plain number is
taken as SI (metres, kg/m^3), a string such as ``"250 mm"`` or ``"7.85 g/cm^3"`` and a
:class:`pint.Quantity` are converted to SI. Inside the library everything is a Python ``float``
in SI units. pint is imported only when a value actually carries units, so code that passes
plain floats never pays for it.

Each distinct string is parsed once per kind (a cache keyed by the string and the kind). The
common forms -- a decimal number and one unit of :data:`_FACTORS` (``"250 mm"``,
``"7.85 g/cm^3"``, ``"30 deg"``, ``"2.5 kg"``, ``"10 ms"``) -- are converted without building
pint's registry: the number (an int or a float, as pint reads it) times pint's own conversion
factor, so the very bits pint gives (``tests/test_units.py`` checks every unit of the table
against pint, with every number form and spelling). Anything else is pint's to read.
"""

from __future__ import annotations

import functools
import math
import numbers
import re
from typing import Any, Literal

import numpy as np

from .errors import ParameterError

__all__ = ["Kind", "length_unit_metres", "registry", "to_si", "to_si_array"]

Kind = Literal["length", "density", "mass", "time", "angle", "stiffness", "damping"]

#: Each kind: its SI unit (which also fixes the dimension) and an example for messages.
_KINDS: dict[str, tuple[str, str]] = {
    "length": ("m", "'250 mm'"),
    "density": ("kg/m^3", "'7.85 g/cm^3'"),
    "mass": ("kg", "'2.5 kg'"),
    "time": ("s", "'10 s'"),
    "angle": ("rad", "'30 deg'"),
    "stiffness": ("N/m", "'2 kN/m'"),  # a rod's spring (model.rods)
    "damping": ("N*s/m", "'50 N*s/m'"),  # a rod's damper
}


_BOOLS = (bool, np.bool_)


def _a(kind: str) -> str:
    """``kind`` with its article, for messages: "a length", "an angle"."""
    return f"an {kind}" if kind[:1] in "aeiou" else f"a {kind}"


def _too_large(name: str, value: Any, kind: str) -> ParameterError:
    return ParameterError(
        name,
        value,
        f"is too large: beyond what a float64 {kind} holds (about 1.8e308 {_KINDS[kind][0]})",
    )


#: Text pint would misread rather than refuse: a decimal comma ("1,5" is 15 to pint), two
#: numbers side by side ("1 5"), two decimal points ("1.5.2" is 0.3).
_NOT_A_NUMBER = re.compile(r",|\d\s+[\d.]|\d*\.\d*\.")


# -- the common forms without pint ------------------------------------------------------------

#: Each unit's factor to SI (to the kind's unit in ``_KINDS``): the very number pint's
#: conversion multiplies by, a float or an exact int (``Quantity(1, unit).to(si_unit)``;
#: ``tests/test_units.py`` checks every entry against pint), so ``"250 mm"`` converts to pint's
#: bits without building its registry.
_FACTORS: dict[str, dict[str, float | int]] = {
    "length": {
        "m": 1, "mm": 0.001, "cm": 0.01, "dm": 0.1, "km": 1000.0, "um": 1e-06, "µm": 1e-06,
        "μm": 1e-06, "nm": 1e-09, "in": 0.0254, "ft": 0.30479999999999996, "yd": 0.9144,
        "mi": 1609.344, "meter": 1, "meters": 1, "metre": 1, "metres": 1, "millimeter": 0.001,
        "millimeters": 0.001, "millimetre": 0.001, "millimetres": 0.001, "centimeter": 0.01,
        "centimeters": 0.01, "centimetre": 0.01, "centimetres": 0.01, "kilometer": 1000.0,
        "kilometers": 1000.0, "kilometre": 1000.0, "kilometres": 1000.0, "micrometer": 1e-06,
        "micrometers": 1e-06, "micron": 1e-06, "microns": 1e-06, "inch": 0.0254,
        "inches": 0.0254, "foot": 0.30479999999999996, "feet": 0.30479999999999996,
        "yard": 0.9144, "yards": 0.9144, "mile": 1609.344, "miles": 1609.344,
    },
    "mass": {
        "kg": 1, "g": 0.001, "mg": 1e-06, "t": 1000.0, "lb": 0.4535923700000001,
        "oz": 0.028349523125000005, "kilogram": 1, "kilograms": 1, "gram": 0.001,
        "grams": 0.001, "milligram": 1e-06, "milligrams": 1e-06, "tonne": 1000.0,
        "tonnes": 1000.0, "pound": 0.4535923700000001, "pounds": 0.4535923700000001,
        "ounce": 0.028349523125000005, "ounces": 0.028349523125000005,
    },
    "time": {
        "s": 1, "ms": 0.001, "us": 1e-06, "µs": 1e-06, "μs": 1e-06, "ns": 1e-09, "min": 60,
        "h": 3600, "second": 1, "seconds": 1, "minute": 60, "minutes": 60, "hour": 3600,
        "hours": 3600,
    },
    "angle": {
        "rad": 1, "deg": 0.017453292519943295, "°": 0.017453292519943295, "radian": 1,
        "radians": 1, "degree": 0.017453292519943295, "degrees": 0.017453292519943295,
    },
    "density": {
        "kg/m^3": 1, "kg/cm^3": 999999.9999999999, "kg/mm^3": 999999999.9999999,
        "kg/dm^3": 999.9999999999999, "kg/in^3": 61023.7440947323, "kg/ft^3": 35.3146667214886,
        "kg/L": 999.9999999999999, "kg/l": 999.9999999999999, "kg/mL": 999999.9999999999,
        "kg/ml": 999999.9999999999, "g/m^3": 0.001, "g/cm^3": 999.9999999999999,
        "g/mm^3": 999999.9999999999, "g/dm^3": 0.9999999999999999, "g/in^3": 61.0237440947323,
        "g/ft^3": 0.0353146667214886, "g/L": 0.9999999999999999, "g/l": 0.9999999999999999,
        "g/mL": 999.9999999999999, "g/ml": 999.9999999999999, "mg/m^3": 1e-06,
        "mg/cm^3": 0.9999999999999999, "mg/mm^3": 1000.0, "mg/dm^3": 0.0009999999999999998,
        "mg/in^3": 0.0610237440947323, "mg/ft^3": 3.53146667214886e-05,
        "mg/L": 0.0009999999999999998, "mg/l": 0.0009999999999999998,
        "mg/mL": 0.9999999999999999, "mg/ml": 0.9999999999999999, "t/m^3": 1000.0,
        "t/cm^3": 999999999.9999999, "t/mm^3": 999999999999.9999, "t/dm^3": 999999.9999999999,
        "t/in^3": 61023744.0947323, "t/ft^3": 35314.6667214886, "t/L": 999999.9999999999,
        "t/l": 999999.9999999999, "t/mL": 999999999.9999999, "t/ml": 999999999.9999999,
        "lb/m^3": 0.4535923700000001, "lb/cm^3": 453592.37, "lb/mm^3": 453592370.00000006,
        "lb/dm^3": 453.59237, "lb/in^3": 27679.90471020313, "lb/ft^3": 16.01846337396015,
        "lb/L": 453.59237, "lb/l": 453.59237, "lb/mL": 453592.37, "lb/ml": 453592.37,
    },
}


#: ``NUMBER UNIT``: a decimal number as pint reads one (an int without a point or exponent; no
#: leading zeros, which pint reads differently) and a unit of ``_FACTORS`` (operators may be
#: spaced, ``**`` or ``^``).
_FAST_FORM = re.compile(
    r"([+-]?(?:(?:0|[1-9][0-9]*)(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)"
    r"\s*([A-Za-z\u00b0\u00b5\u03bc][A-Za-z\u00b0\u00b5\u03bc/^*\s0-9]*)"
)
_OPERATOR = re.compile(r"\s*(\*\*|\^|/)\s*")
#: ``(string, kind) -> SI float`` for the strings converted so far (each parsed once).
_PARSED: dict[tuple[str, str], float] = {}
_PARSED_MAX = 4096


def _fast_to_si(text: str, kind: str) -> float | None:
    """``text`` (stripped) in SI when it is a number and a unit of :data:`_FACTORS` for
    ``kind``: the number (an int or a float, as pint reads it) times pint's factor, the same
    bits as pint. None for anything else (pint decides)."""
    form = _FAST_FORM.fullmatch(text)
    if form is None:
        return None
    number, unit = form.groups()
    factor = _FACTORS[kind].get(_OPERATOR.sub(_operator, unit)) if kind in _FACTORS else None
    if factor is None:
        return None
    try:
        value = float(number) if "." in number or "e" in number or "E" in number else int(number)
        return float(value * factor)  # pint's magnitude * factor
    except OverflowError:  # an int beyond float64: pint's path says so
        return None


def _operator(match: re.Match[str]) -> str:
    return "/" if match.group(1) == "/" else "^"


def _remember(text: str, kind: str, value: float) -> None:
    if len(_PARSED) >= _PARSED_MAX:
        _PARSED.clear()
    _PARSED[text, kind] = value



@functools.cache
def registry() -> Any:
    """The shared :class:`pint.UnitRegistry` (created on first use)."""
    import pint

    return pint.UnitRegistry()


def _is_quantity(value: Any) -> bool:
    return hasattr(value, "magnitude") and hasattr(value, "dimensionality")


def _quantity_to_si(name: str, value: Any, kind: str) -> Any:
    ureg = registry()
    si_unit, example = _KINDS[kind]
    try:
        quantity = ureg.Quantity(value) if isinstance(value, str) else value
        if not _is_quantity(quantity):  # "3" parses to a plain number in pint
            return quantity
        if quantity.dimensionality != ureg.Quantity(1, si_unit).dimensionality:
            raise ParameterError(
                name,
                value,
                f"has dimension {quantity.dimensionality}, expected {_a(kind)} "
                f"(in {si_unit}, e.g. {example})",
            )
        return quantity.to(si_unit).magnitude
    except ParameterError:
        raise
    except Exception as exc:  # pint's parser also raises AssertionError, TokenError, ...
        raise ParameterError(
            name,
            value,
            f"is not {_a(kind)} pint can read ({str(exc) or type(exc).__name__}); "
            f"write e.g. {example}",
        ) from None


def to_si(name: str, value: Any, kind: Kind = "length") -> float:
    """Convert one length or density to an SI float.

    Parameters
    ----------
    name : str
        The parameter's keyword, used in error messages.
    value : float | int | str | pint.Quantity
        A plain number (already SI), a string with units (``"250 mm"``) or a pint Quantity.
    kind : {"length", "density", "mass", "time", "angle"}
        The dimension the value must have.

    Returns
    -------
    float
        The value in SI units (m, kg/m^3, kg, s, rad). Finite-ness and sign are *not* checked
        here: the rules belong to the shape that uses the value.

    Raises
    ------
    ParameterError
        For a wrong dimension (``"5 kg"`` as a length), text that is not a quantity, a boolean,
        or anything that is not a number.
    """
    if type(value) is str:  # a string seen before: parsed once (before any ABC check)
        found = _PARSED.get((value, kind))
        if found is not None:
            return found
    if type(value) is int or isinstance(value, float):  # the common case (numpy's float64
        # too, a float subclass), without ABC checks
        try:
            return float(value)
        except OverflowError:  # an int beyond float64 (a ValueError, not an OverflowError)
            raise _too_large(name, value, kind) from None
    if isinstance(value, _BOOLS):
        raise ParameterError(name, value, f"must be {_a(kind)}, not a boolean")
    if isinstance(value, numbers.Real):
        try:
            return float(value)
        except OverflowError:
            raise _too_large(name, value, kind) from None
    if isinstance(value, str):
        text = value.strip()
        try:
            return float(text)
        except ValueError:
            pass
        found = _fast_to_si(text, kind)  # the common forms, without pint
        if found is not None:
            _remember(value, kind, found)
            return found
        if not text:
            raise ParameterError(name, value, f"must be {_a(kind)}, got an empty string")
        if _NOT_A_NUMBER.search(text):
            raise ParameterError(
                name,
                value,
                f"is not a number: write one number with a decimal point, and units if "
                f"any, e.g. {_KINDS[kind][1]}",
            )
    elif not _is_quantity(value):
        raise ParameterError(
            name, value, f"must be a number or {_a(kind)} with units, not {type(value).__name__}"
        )
    magnitude = _quantity_to_si(name, value, kind)
    if isinstance(magnitude, _BOOLS) or not isinstance(magnitude, numbers.Real):
        raise ParameterError(name, value, f"must be a single {kind}, got {magnitude!r}")
    try:
        result = float(magnitude)
    except OverflowError:  # "10**400 m": pint keeps the exact int
        raise _too_large(name, value, kind) from None
    if isinstance(value, str):
        _remember(value, kind, result)
    return result


def to_si_array(name: str, value: Any, kind: Kind = "length") -> Any:
    """Like :func:`to_si` for array input: a float64 ndarray (or a lazy dask array) in SI.

    Accepts a scalar or a ``"250 mm"``-style string (returned as a 0-d array), an array or
    sequence of numbers (already SI), a sequence of strings with units (converted one by one,
    an error names the item: ``length[2]``), or a pint Quantity wrapping an array (converted as
    a whole). Booleans are refused, as for one value.
    """
    if type(value) is np.ndarray and value.dtype == np.float64:  # the common case, first
        return value
    if isinstance(value, str | numbers.Real) or (_is_quantity(value) and np.ndim(value) == 0):
        return np.asarray(to_si(name, value, kind))
    if _is_quantity(value):
        value = _quantity_to_si(name, value, kind)
    if hasattr(value, "dask") and hasattr(value, "chunks"):  # a dask array: keep it lazy
        if value.dtype == np.bool_:
            raise ParameterError(name, value, f"must be {kind}s, not booleans")
        return value.astype(np.float64)
    array = np.asarray(value)
    if array.dtype == np.bool_:
        raise ParameterError(name, value, f"must be {kind}s, not booleans")
    if array.dtype.kind in "OUS":  # strings with units, or a mix: one by one
        flat = [to_si(f"{name}[{i}]", item, kind) for i, item in enumerate(array.ravel().tolist())]
        return np.array(flat, dtype=np.float64).reshape(array.shape)
    if array.dtype.kind not in "fiu":
        raise ParameterError(name, value, f"must be an array of real {kind}s")
    return array.astype(np.float64, copy=False)


def length_unit_metres(name: Any) -> float | None:
    """Metres per length unit ``name`` (``"mm"``, ``"inch"``, the unit of a file's
    coordinates): pint's name, else in lower case as files and their users write it (``MM``,
    ``INCH``; pint's ``Mm`` stays a megametre); None for anything else (no name, a quantity
    such as ``"2 mm"``, not a length)."""
    if not isinstance(name, str) or not name.strip() or name.strip()[0].isdigit():
        return None
    for spelled in dict.fromkeys((name.strip(), name.strip().lower())):
        try:
            value = to_si("units", f"1 {spelled}", "length")
        except ParameterError:
            continue
        return value if 0.0 < value < math.inf else None
    return None
