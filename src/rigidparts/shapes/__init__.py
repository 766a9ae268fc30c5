"""One module per shape: its parameters, its validity rules and its closed forms in its
canonical frame C (axis along +x from frame_a at the origin), nothing else.

Each module exposes the same small surface, which :mod:`rigidparts.component` and
:mod:`rigidparts.batch` build on:

- ``PARAMETERS``: the dimension keywords in kernel order.
- ``RULES``: ``(parameter, rule text)`` pairs; ``check(...)`` returns 0 when the dimensions are
  valid, else ``1 + index`` of the first broken rule.
- ``closed_form(*dimensions, density)``: ``(volume, mass, com_x, i_xx, i_yy, i_zz)``, the
  centre of mass on the axis and the principal moments about the centre of mass along C's axes
  (axis, height, width).

Both functions use plain float arithmetic only, so one body (Python floats) and a batch (the
same functions compiled by numba) run the same code and agree to the last bit.

``results_representable`` is the last guard both paths apply: float64 can hold the results.
"""

import math

__all__ = ["UNREPRESENTABLE_RULE", "results_representable", "unrepresentable_parameter"]

#: The rule broken when :func:`results_representable` is False (``str.format`` fields: ``mass``,
#: ``moments``); reported under :func:`unrepresentable_parameter`'s keyword.
UNREPRESENTABLE_RULE = (
    "give mass {mass!r} kg and inertia {moments!r} kg m^2: not finite positive numbers in "
    "float64 (dimensions or density far too large or small)"
)


def results_representable(mass: float, i_xx: float, i_yy: float, i_zz: float) -> bool:
    """True when the mass is finite and positive and the moments finite and non-negative
    (False when absurd dimensions or densities overflow or underflow float64)."""
    return (
        0.0 < mass < math.inf and 0.0 <= min(i_xx, i_yy, i_zz) and math.isfinite(i_xx + i_yy + i_zz)
    )


def unrepresentable_parameter(dimensions: dict[str, float]) -> str:
    """The keyword to blame for unrepresentable results: the largest dimension (SI)."""
    return max(dimensions, key=lambda name: dimensions[name])
