"""Errors raised by rigidparts.

Every invalid input raises :class:`ParameterError`, a :class:`ValueError` whose message names the
parameter (by its keyword), the value given and the rule it broke, e.g.::

    inner_radius_a=0.5: must not exceed radius_a=0.4 (the bore cannot be wider than the body)
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator
from typing import Any

__all__ = ["MergeableWarning", "ModelError", "ParameterError", "merged_warnings"]


class ParameterError(ValueError):
    """An input that breaks a rule: names the parameter, the value and the rule.

    Attributes
    ----------
    parameter : str
        The keyword of the offending parameter (``"inner_radius_a"``, ``"density"``, ...).
    value : Any
        The value as given by the caller.
    rule : str
        The rule it broke, in words.
    index : int | None
        For batch inputs, the first offending row.
    """

    def __init__(self, parameter: str, value: Any, rule: str, *, index: int | None = None):
        self.parameter = parameter
        self.value = value
        self.rule = rule
        self.index = index
        where = f"[{index}]" if index is not None else ""
        super().__init__(f"{parameter}{where}={_show(value)}: {rule}")


class ModelError(ParameterError):
    """A model (Python or file) that is not a valid tree of bodies and joints.

    ``parameter`` names the item at fault (``"joints[1].parent"``, ``"bodies.arm.length"``); for a
    file, ``source`` is its path and ``line`` the line number where one is known.
    """

    def __init__(
        self,
        parameter: str,
        value: Any,
        rule: str,
        *,
        source: str | None = None,
        line: int | None = None,
    ):
        self.source = source
        self.line = line
        super().__init__(parameter, value, rule)
        if source is not None:
            where = f"{source}:{line}" if line is not None else source
            self.args = (f"{where}: {self.args[0]}",)


def _show(value: Any) -> str:
    """The value as the user would write it, short: numpy scalars and arrays as plain numbers
    and lists (never ``np.float64(1.0)``), an integer of more than 20 digits as ``1.2346e+400
    (a 401-digit integer)``, anything longer than 80 characters cut in the middle with "..."
    (the end of a long path is its file name: it stays)."""
    if type(value).__module__ == "numpy":
        if hasattr(value, "tolist"):  # a numpy scalar or array: the plain Python value
            value = value.tolist()
    if isinstance(value, int) and not isinstance(value, bool):
        digits = str(abs(value)) if abs(value) < 10**4000 else None
        if digits is None or len(digits) > 20:
            return _long_integer(value, digits)
    text = repr(value)
    return text if len(text) <= 80 else text[:30] + "..." + text[-47:]


def _long_integer(value: int, digits: str | None) -> str:
    if digits is None:  # too long to print at all: the number of bits says enough
        return f"{'-' if value < 0 else ''}(an integer of {abs(value).bit_length()} bits)"
    sign = "-" if value < 0 else ""
    mantissa = f"{digits[0]}.{digits[1:5]}"
    return f"{sign}{mantissa}e+{len(digits) - 1} (a {len(digits)}-digit integer)"


class MergeableWarning(UserWarning):
    """A warning of which several make fewer (:func:`merged_warnings`): a subclass's
    :meth:`merged` combines them (:class:`rigidparts.shapes.step_body.CappedHolesWarning`:
    one per file for a STEP model's bodies, meshed one by one)."""

    @classmethod
    def merged(cls, found: list[Any]) -> list[Any]:
        """The warnings ``found`` combined (here: as they are)."""
        return list(found)


@contextlib.contextmanager
def merged_warnings() -> Iterator[None]:
    """:class:`MergeableWarning` s issued in the block held and issued merged when the block
    ends (also when it fails); every other warning shown as it comes. Held at display, after
    the filters: an ``error`` filter still raises at once, and a warning the filters hide is
    not held. (It swaps :data:`warnings.showwarning` for the block, as
    :func:`warnings.catch_warnings` does: not for blocks in several threads at once.)"""
    held: dict[type, list[Warning]] = {}
    previous = warnings.showwarning

    def hold(message: Any, category: Any, *args: Any, **kwargs: Any) -> None:
        if isinstance(message, MergeableWarning):
            held.setdefault(category, []).append(message)
        else:
            previous(message, category, *args, **kwargs)

    warnings.showwarning = hold
    try:
        yield
    finally:
        warnings.showwarning = previous
        for category, found in held.items():
            for merged in category.merged(found):
                warnings.warn(merged, stacklevel=3)
