"""Errors raised by rigidparts.

Every invalid input raises :class:`ParameterError`, a :class:`ValueError` whose message names the
parameter (by its keyword), the value given and the rule it broke, e.g.::

    inner_radius_a=0.5: must not exceed radius_a=0.4 (the bore cannot be wider than the body)
"""

from __future__ import annotations

from typing import Any

__all__ = ["ModelError", "ParameterError"]


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
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
