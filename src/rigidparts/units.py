"""The one place where units meet the code.

Every length and density that enters rigidparts passes through :func:`to_si`: a plain number is
taken as SI (metres, kg/m^3), a string such as ``"250 mm"`` or ``"7.85 g/cm^3"`` and a
:class:`pint.Quantity` are converted to SI. Inside the library everything is a Python ``float``
in SI units. pint is imported only when a value actually carries units, so code that passes
plain floats never pays for it.
"""

from __future__ import annotations

import functools
import numbers
from typing import Any, Literal

import numpy as np

from .errors import ParameterError

__all__ = ["Kind", "registry", "to_si", "to_si_array"]

Kind = Literal["length", "density", "mass", "time", "angle"]

#: Each kind: its SI unit (which also fixes the dimension) and an example for messages.
_KINDS: dict[str, tuple[str, str]] = {
    "length": ("m", "'250 mm'"),
    "density": ("kg/m^3", "'7.85 g/cm^3'"),
    "mass": ("kg", "'2.5 kg'"),
    "time": ("s", "'10 s'"),
    "angle": ("rad", "'30 deg'"),
}


_BOOLS = (bool, np.bool_)


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
                f"has dimension {quantity.dimensionality}, expected a {kind} "
                f"(in {si_unit}, e.g. {example})",
            )
        return quantity.to(si_unit).magnitude
    except ParameterError:
        raise
    except Exception as exc:  # pint's parser also raises AssertionError, TokenError, ...
        raise ParameterError(
            name,
            value,
            f"is not a {kind} pint can read ({str(exc) or type(exc).__name__}); "
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
    if type(value) is float or type(value) is int:  # the common case, without ABC checks
        return float(value)
    if isinstance(value, _BOOLS):
        raise ParameterError(name, value, f"must be a {kind}, not a boolean")
    if isinstance(value, numbers.Real):
        return float(value)
    if isinstance(value, str):
        text = value.strip()
        try:
            return float(text)
        except ValueError:
            pass
        if not text:
            raise ParameterError(name, value, f"must be a {kind}, got an empty string")
    elif not _is_quantity(value):
        raise ParameterError(
            name, value, f"must be a number or a {kind} with units, not {type(value).__name__}"
        )
    magnitude = _quantity_to_si(name, value, kind)
    if isinstance(magnitude, _BOOLS) or not isinstance(magnitude, numbers.Real):
        raise ParameterError(name, value, f"must be a single {kind}, got {magnitude!r}")
    return float(magnitude)


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
