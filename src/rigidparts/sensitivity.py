"""Exact partial derivatives of a body's mass properties: ``body.sensitivities()``.

Forward-mode automatic differentiation through the very closed forms. A :class:`Dual` number
carries a value and its gradient with respect to the body's parameters; the shape's tier-1
``closed_form(*dimensions, density)`` (the function that gives the body's own results, and that
``rp.batch`` compiles) is called with Duals in place of floats, so every ``+ - * /`` of the
closed form also applies the corresponding rule of differentiation (``(a b)' = a' b + a b'``,
``(a / b)' = (a' - (a / b) b') / b``). The gradients are exact derivatives of those formulas
(no finite differences, no step size), evaluated in double-double arithmetic (about 32
significant digits; Dekker 1971, Knuth's two-sum) and rounded once to float64 at the end.
Float64 forward mode would not do: a derivative can cancel where the value does not (the
quotient rule of ``density = mass / volume`` on a thin wall, ``d (R^5 - R_i^5) / d R_i``
through the ball's ``(R - R_i) s_4`` for a small cavity); with 32 digits each derivative is
within about 2e-16 of its own scale (the norm of its row) for walls down to 1e-9 of the
radius (``tests/test_sensitivity.py`` measures them against sympy derivatives of the textbook
formulas and against 60-digit complex-step derivatives of the closed forms;
``docs/sensitivities.md`` gives the figures and the few extreme cases that lose digits).

Parameters (rows of the table), in this order:

- every dimension of the shape whose kind is a quantity with a derivative (``length``, in m;
  ``angle``, in rad), in the specification's order (``spec.params``);
- then ``density`` (kg/m^3; the material's, when a material was named), or ``mass`` (kg) when
  the body was built with ``mass=``: then ``density = mass / volume(dimensions)`` depends on
  the dimensions too, exactly as :class:`rigidparts.component.Component` computes it, and the
  mass itself depends on nothing but ``mass`` (``d mass / d mass = 1``).

Outputs (columns), all in frame_a and SI units, for ``n`` parameters:

- ``mass`` (n,), ``volume`` (n,);
- ``center_of_mass`` (n, 3): ``d p_AoBcm_A / d q = (d com_x / d q) e_axis`` (the frame does
  not depend on the parameters);
- ``inertia`` (n, 3, 3): ``d I_BBcm_A / d q = R_AC diag(d I_C / d q) R_AC^T``, the derivative of
  the inertia about the centre of mass in frame_a axes, rotated by
  :func:`rigidparts.inertia.rotate_with_products` with the body's own ``R_AC`` (the same
  function that rotates the body's inertia);
- ``principal_moments`` (n, 3): the derivatives of ``body.principal_moments`` (ascending).
  The principal moments are the canonical moments sorted (stable, as the body sorts them), so
  each takes the derivative of the canonical moment sorted into its place. Where moments are
  equal (a group of ties: a cylinder's two transverse moments, a ball's three) the sorted
  moments are not differentiable in general; within each such group the derivatives are
  sorted ascending, which is the one-sided derivative for an increase of that parameter
  (``min(I_a, I_b)`` grows by the smaller rate). Moments equal for every value of the
  parameters (the cylinder's, the ball's) have equal derivatives, so nothing is chosen there.
  "Equal" is to within :data:`TIE` (16 ulp), the closed forms' rounding: a square box's two
  transverse moments, equal in exact arithmetic, may come out an ulp apart.

Tier-2 shapes (a general form, such as the mesh body): derivatives with respect to the density
(or the mass) only; their general forms are not differentiated (the mesh body, the only one so
far, has no numeric dimensions: its file and unit are not quantities). With ``density``:
``d mass = volume``, ``d I = I / density``, nothing else moves. With ``mass``: ``d mass = 1``,
``d I = I / mass``. Dimensions of kind ``count`` (none so far) have no derivative and are left
out; so are ``path`` and ``text`` parameters.

The core of the table is :func:`closed_form_derivatives` and :func:`frame_derivatives`, written
once for one body (float values, gradients of shape (n,)) and for a batch (values (N,),
gradients (n, N); :mod:`rigidparts.batch.sensitivity`): numpy applies the same IEEE operations
element by element, so each batch row equals the body's table bit for bit. The principal
moments are ordered by the closed form's own float64 results (:func:`canonical_moments`), the
very numbers the body sorts. The compiled batch (:mod:`rigidparts.batch._sensitivity`) runs the
same closed form on a numba dual type whose operators are the rule functions below
(:func:`mul_value`, :func:`mul_derivative`, ...) and the same double-double helpers, so it
too gives the body's bits.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from .errors import ParameterError
from .inertia import rotate_with_products, rotation_products
from .shapes import ShapeSpec

__all__ = [
    "DIFFERENTIABLE_KINDS",
    "OUTPUTS",
    "TIE",
    "Dual",
    "Sensitivities",
    "SensitivityRow",
    "body_sensitivities",
    "canonical_moments",
    "closed_form_derivatives",
    "derivative_unit",
    "differentiable_parameters",
    "frame_derivatives",
    "sorted_derivatives",
]

#: Kinds of :class:`rigidparts.shapes.Param` that are differentiated, and their SI units.
DIFFERENTIABLE_KINDS: dict[str, str] = {"length": "m", "angle": "rad"}

#: The outputs of a table and their SI units (exponents of kg, m, rad).
OUTPUTS: dict[str, dict[str, int]] = {
    "mass": {"kg": 1},
    "volume": {"m": 3},
    "center_of_mass": {"m": 1},
    "inertia": {"kg": 1, "m": 2},
    "principal_moments": {"kg": 1, "m": 2},
}

#: Principal moments closer than this, relative, count as equal (16 ulp: the closed forms are
#: accurate to a few ulp, so moments equal in exact arithmetic may differ by that much).
TIE = 16 * 2.0**-52

#: Each parameter unit as exponents of kg, m, rad.
_PARAMETER_UNITS: dict[str, dict[str, int]] = {
    "m": {"m": 1},
    "rad": {"rad": 1},
    "kg/m^3": {"kg": 1, "m": -3},
    "kg": {"kg": 1},
}


# -- double-double arithmetic ---------------------------------------------------------------------
#
# A number is a pair (hi, lo) of floats (or of numpy arrays) with value hi + lo, |lo| <= ulp(hi)/2:
# about 106 bits. Error-free transformations: Knuth's two-sum, Dekker's split and two-product
# (Dekker 1971, "A floating-point technique for extending the available precision"; Hida, Li,
# Bailey 2001, the QD library's "sloppy" add). Plain + - * /, so numpy applies them to arrays
# element by element with the same bits as to one float.

_SPLITTER = 134217729.0  # 2**27 + 1


def _two_sum(a: Any, b: Any) -> tuple[Any, Any]:
    s = a + b
    v = s - a
    return s, (a - (s - v)) + (b - v)


def _fast_two_sum(a: Any, b: Any) -> tuple[Any, Any]:
    # |a| >= |b| (or a == 0): s + e == a + b exactly.
    s = a + b
    return s, b - (s - a)


#: Above this magnitude ``_SPLITTER * a`` would overflow: such numbers are split scaled by 2**-28
#: (exact), then scaled back.
_SPLIT_LIMIT = 2.0**995


def _split_scalar(a: float) -> tuple[float, float]:
    # hi + lo == a exactly, hi with at most 26 significant bits (Dekker); one float.
    if abs(a) > _SPLIT_LIMIT:
        scaled = a * 2.0**-28
        t = _SPLITTER * scaled
        hi = (t - (t - scaled)) * 2.0**28
        return hi, a - hi
    t = _SPLITTER * a
    hi = t - (t - a)
    return hi, a - hi


def _split(a: Any) -> tuple[Any, Any]:
    # hi + lo == a exactly, hi with at most 26 significant bits (Dekker): element by element
    # for an array, as _split_scalar for one float (the compiled path calls that one).
    if not isinstance(a, np.ndarray):
        return _split_scalar(a)
    big = np.abs(a) > _SPLIT_LIMIT
    if big.any():
        scaled = np.where(big, a * 2.0**-28, a)
        t = _SPLITTER * scaled
        hi = np.where(big, (t - (t - scaled)) * 2.0**28, t - (t - scaled))
        return hi, a - hi
    t = _SPLITTER * a
    hi = t - (t - a)
    return hi, a - hi


def _two_prod(a: Any, b: Any) -> tuple[Any, Any]:
    # p + e == a * b exactly (Dekker): e is the product's rounding error, exact unless it falls
    # below the subnormal range or the product overflows. The compiled path gets the same
    # exact e from one fused multiply-add where the product lies in FMA_RANGE (there both are
    # exact, so equal), and calls this function elsewhere (rigidparts.batch._sensitivity).
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


#: Products ``|a b|`` in this open interval have an exact rounding error from Dekker's
#: algorithm and from ``fma(a, b, -a b)`` alike (the error is at least 2**-1074 times 2**53 up,
#: and nothing overflows: |a|, |b| <= 2**995 is not needed for FMA, and Dekker's scaled split
#: covers them).
FMA_RANGE = (2.0**-960, 2.0**995)


def _dd_add(ah: Any, al: Any, bh: Any, bl: Any) -> tuple[Any, Any]:
    s, e = _two_sum(ah, bh)
    return _fast_two_sum(s, e + (al + bl))


def _dd_add_float(ah: Any, al: Any, b: Any) -> tuple[Any, Any]:
    s, e = _two_sum(ah, b)
    return _fast_two_sum(s, e + al)


def _dd_mul(ah: Any, al: Any, bh: Any, bl: Any) -> tuple[Any, Any]:
    p, e = _two_prod(ah, bh)
    return _fast_two_sum(p, e + (ah * bl + al * bh))


def _dd_mul_float(ah: Any, al: Any, b: Any) -> tuple[Any, Any]:
    p, e = _two_prod(ah, b)
    return _fast_two_sum(p, e + al * b)


def _dd_div(ah: Any, al: Any, bh: Any, bl: Any) -> tuple[Any, Any]:
    q1 = ah / bh
    ph, pl = _dd_mul_float(bh, bl, q1)
    rh, rl = _dd_add(ah, al, -ph, -pl)
    q2 = (rh + rl) / bh
    return _fast_two_sum(q1, q2)


# -- the rules of differentiation -------------------------------------------------------------
#
# A dual number as parts: its value ``v + vl`` and its derivatives ``g + gl``, each
# double-double. Each operation has a value rule and a derivative rule, which take the parts of
# the operands (a constant: one plain number) and return the parts of the result. They are
# plain arithmetic: :class:`Dual` applies the derivative rule to all its derivatives at once
# (numpy arrays), the compiled batch (:mod:`rigidparts.batch._sensitivity`) to each of its
# derivatives in turn (floats), with the same IEEE operations element by element. Subtraction
# is addition of the negation (exact).


def add_value(av: Any, avl: Any, bv: Any, bvl: Any) -> tuple[Any, Any]:
    """Value of ``a + b``."""
    return _dd_add(av, avl, bv, bvl)


def add_derivative(ag: Any, agl: Any, bg: Any, bgl: Any) -> tuple[Any, Any]:
    """``(a + b)' = a' + b'``."""
    return _dd_add(ag, agl, bg, bgl)


def add_constant_value(av: Any, avl: Any, b: Any) -> tuple[Any, Any]:
    """Value of ``a + b`` for a constant ``b`` (the derivative is a's)."""
    return _dd_add_float(av, avl, b)


def mul_value(av: Any, avl: Any, bv: Any, bvl: Any) -> tuple[Any, Any]:
    """Value of ``a b``."""
    return _dd_mul(av, avl, bv, bvl)


def mul_derivative(
    av: Any, avl: Any, ag: Any, agl: Any, bv: Any, bvl: Any, bg: Any, bgl: Any
) -> tuple[Any, Any]:
    """``(a b)' = a' b + b' a``."""
    left = _dd_mul(ag, agl, bv, bvl)
    right = _dd_mul(bg, bgl, av, avl)
    return _dd_add(left[0], left[1], right[0], right[1])


def mul_constant_value(av: Any, avl: Any, b: Any) -> tuple[Any, Any]:
    """Value of ``a b`` for a constant ``b``."""
    return _dd_mul_float(av, avl, b)


def mul_constant_derivative(ag: Any, agl: Any, b: Any) -> tuple[Any, Any]:
    """``(a b)' = a' b`` for a constant ``b``."""
    return _dd_mul_float(ag, agl, b)


def div_value(av: Any, avl: Any, bv: Any, bvl: Any) -> tuple[Any, Any]:
    """Value ``q`` of ``a / b`` (for ``a`` a constant too: ``avl = 0``)."""
    return _dd_div(av, avl, bv, bvl)


def div_derivative(
    q: Any, ql: Any, ag: Any, agl: Any, bv: Any, bvl: Any, bg: Any, bgl: Any
) -> tuple[Any, Any]:
    """``(a / b)' = (a' - q b') / b`` with ``q = a / b``."""
    qg, qgl = _dd_mul(bg, bgl, q, ql)
    num, numl = _dd_add(ag, agl, -qg, -qgl)
    return _dd_div(num, numl, bv, bvl)


def div_constant_derivative(ag: Any, agl: Any, b: Any) -> tuple[Any, Any]:
    """``(a / b)' = a' / b`` for a constant ``b``."""
    return _dd_div(ag, agl, b, 0.0)


def constant_div_derivative(q: Any, ql: Any, bv: Any, bvl: Any, bg: Any, bgl: Any) -> Any:
    """``(c / b)' = -q b' / b`` for a constant ``c``, ``q = c / b``."""
    qg, qgl = _dd_mul(bg, bgl, q, ql)
    return _dd_div(-qg, -qgl, bv, bvl)


# -- the dual number ------------------------------------------------------------------------------


class Dual:
    """A forward-mode dual number: a value and its gradient (its partial derivatives).

    The value is a float (one body) or an (N,) array (a batch); the gradient an (n,) or (n, N)
    array: row ``i`` is the derivative with respect to parameter ``i``. Both are carried in
    double-double arithmetic (about 32 significant digits: each a pair ``hi + lo``), so that
    derivatives that cancel -- the quotient rule of ``density = mass / volume`` on a thin wall,
    ``d (R^5 - R_i^5) / d R_i`` through ``(R - R_i) s_4`` for a small cavity -- keep about 16
    digits after losing up to 16 (:attr:`value` and :attr:`gradient` are the rounded floats).
    The arithmetic operators take a Dual or a plain number (a float, an int, a numpy scalar or
    array: a constant, exact, with no gradient) on either side; ``**`` a non-negative integer
    exponent (repeated products). Comparisons compare the values. The rules are the functions
    above (:func:`mul_value`, :func:`mul_derivative`, ...), shared with the compiled batch.

    ``float(dual)`` and ``bool(dual)`` raise TypeError rather than drop the gradient silently
    (a closed form that needs them cannot be differentiated this way: read ``.value``).
    """

    __slots__ = ("_g", "_gl", "_v", "_vl")
    # numpy defers to our reflected operators (ndarray * Dual -> Dual.__rmul__).
    __array_ufunc__ = None

    def __init__(self, value: Any, gradient: Any, value_low: Any = 0.0, gradient_low: Any = 0.0):
        self._v = value
        self._vl = value_low
        self._g = gradient
        self._gl = gradient_low

    @property
    def value(self) -> Any:
        """The value, rounded to float64 (an (N,) array for a batch)."""
        return self._v + self._vl

    @property
    def gradient(self) -> Any:
        """The gradient, rounded to float64: (n,) or (n, N)."""
        return self._g + self._gl

    # -- arithmetic ---------------------------------------------------------------------------

    def __add__(self, other: Any) -> Dual:
        if type(other) is Dual:
            v = add_value(self._v, self._vl, other._v, other._vl)
            g = add_derivative(self._g, self._gl, other._g, other._gl)
            return Dual(v[0], g[0], v[1], g[1])
        v = add_constant_value(self._v, self._vl, other)
        return Dual(v[0], self._g, v[1], self._gl)

    __radd__ = __add__

    def __sub__(self, other: Any) -> Dual:
        return self + (-other)  # negation is exact

    def __rsub__(self, other: Any) -> Dual:
        return (-self) + other

    def __mul__(self, other: Any) -> Dual:
        if type(other) is Dual:
            v = mul_value(self._v, self._vl, other._v, other._vl)
            g = mul_derivative(*self._parts(), *other._parts())
            return Dual(v[0], g[0], v[1], g[1])
        v = mul_constant_value(self._v, self._vl, other)
        g = mul_constant_derivative(self._g, self._gl, other)
        return Dual(v[0], g[0], v[1], g[1])

    __rmul__ = __mul__

    def __truediv__(self, other: Any) -> Dual:
        if type(other) is Dual:
            q = div_value(self._v, self._vl, other._v, other._vl)
            g = div_derivative(*q, self._g, self._gl, *other._parts())
            return Dual(q[0], g[0], q[1], g[1])
        q = div_value(self._v, self._vl, other, 0.0)
        g = div_constant_derivative(self._g, self._gl, other)
        return Dual(q[0], g[0], q[1], g[1])

    def __rtruediv__(self, other: Any) -> Dual:
        q = div_value(other, 0.0, self._v, self._vl)
        g = constant_div_derivative(*q, *self._parts())
        return Dual(q[0], g[0], q[1], g[1])

    def __pow__(self, exponent: Any) -> Dual:
        if type(exponent) is not int or exponent < 0:
            raise TypeError("Dual ** x takes a non-negative integer x (the closed forms' powers)")
        result: Any = 1.0
        for _ in range(exponent):
            result = result * self
        return result if type(result) is Dual else Dual(1.0, 0.0 * self._g)

    def __neg__(self) -> Dual:
        return Dual(-self._v, -self._g, -self._vl, -self._gl)

    def __pos__(self) -> Dual:
        return self

    def _parts(self) -> tuple[Any, Any, Any, Any]:
        return self._v, self._vl, self._g, self._gl

    # -- comparisons (on the value) -----------------------------------------------------------

    def __lt__(self, other: Any) -> Any:
        return self.value < _value(other)

    def __le__(self, other: Any) -> Any:
        return self.value <= _value(other)

    def __gt__(self, other: Any) -> Any:
        return self.value > _value(other)

    def __ge__(self, other: Any) -> Any:
        return self.value >= _value(other)

    __hash__ = None  # type: ignore[assignment]

    # -- conversions that would lose the gradient ---------------------------------------------

    def __float__(self) -> float:
        raise TypeError(
            "float() of a Dual would drop its gradient: the closed form must use plain "
            "arithmetic (read .value for the number)"
        )

    def __bool__(self) -> bool:
        raise TypeError("the truth of a Dual is ambiguous: compare its .value")

    def __repr__(self) -> str:
        return f"Dual({self.value!r}, {self.gradient!r})"


def _value(x: Any) -> Any:
    return x.value if type(x) is Dual else x


# -- the closed forms with gradients --------------------------------------------------------------


def differentiable_parameters(spec: ShapeSpec) -> tuple[tuple[str, str], ...]:
    """``(name, SI unit)`` of the dimensions of ``spec`` that have derivatives (kinds in
    :data:`DIFFERENTIABLE_KINDS`), in the specification's order; none for a tier-2 shape."""
    if spec.tier != 1:
        return ()
    return tuple(
        (p.name, DIFFERENTIABLE_KINDS[p.kind])
        for p in spec.params
        if p.kind in DIFFERENTIABLE_KINDS
    )


def closed_form_derivatives(
    spec: ShapeSpec, dimensions: Sequence[Any], source: Any, by_mass: bool
) -> tuple[Dual, ...]:
    """``(volume, mass, com_x, I_xx, I_yy, I_zz)`` of a tier-1 shape as Duals.

    ``dimensions`` are the SI values in kernel order (floats, or (N,) arrays for a batch),
    ``source`` the density (kg/m^3) or, with ``by_mass``, the mass (kg). The gradients are
    with respect to the differentiable dimensions (:func:`differentiable_parameters`) and then
    the density or the mass: shape (n,) or (n, N). As :class:`rigidparts.component.Component`:
    with ``by_mass`` the density is ``mass / volume(dimensions)`` (the closed form at density 1)
    and the mass returned is the given one. The closed form must be valid at these values (the
    caller has checked the body)."""
    closed_form = spec.closed_form
    if closed_form is None:
        raise ParameterError("shape", spec.name, "has no closed form to differentiate (tier 2)")
    differentiable = [p.kind in DIFFERENTIABLE_KINDS for p in spec.params]
    n = sum(differentiable) + 1
    rows = np.shape(source)
    for value in dimensions:
        rows = np.broadcast_shapes(rows, np.shape(value))

    def seed(i: int, value: Any) -> Dual:
        gradient = np.zeros((n, *rows))
        gradient[i] = 1.0
        return Dual(value, gradient)

    arguments: list[Any] = []
    i = 0
    for value, is_differentiable in zip(dimensions, differentiable, strict=True):
        if is_differentiable:
            arguments.append(seed(i, value))
            i += 1
        else:
            arguments.append(value)
    given = seed(n - 1, source)
    if by_mass:
        density = given / _lift(closed_form(*arguments, 1.0)[0], n, rows)
        results = closed_form(*arguments, density)
        results = (results[0], given, *results[2:])
    else:
        results = closed_form(*arguments, given)
    return tuple(_lift(r, n, rows) for r in results)


def canonical_moments(
    spec: ShapeSpec, dimensions: Sequence[Any], source: Any, by_mass: bool
) -> tuple[Any, Any, Any]:
    """The closed form's ``(I_xx, I_yy, I_zz)`` in float64, as the body computes them (with
    ``by_mass``, at the density ``mass / volume``)."""
    closed_form = spec.closed_form
    assert closed_form is not None
    density = source / closed_form(*dimensions, 1.0)[0] if by_mass else source
    return closed_form(*dimensions, density)[3:]


def _lift(x: Any, n: int, rows: tuple[int, ...]) -> Dual:
    """``x`` as a Dual: itself, or a constant (zero gradient) of the right shape."""
    if type(x) is Dual:
        return x
    return Dual(x, np.zeros((n, *rows)))


class Derivatives(NamedTuple):
    """The columns of a table, parameters along the last axis but the output's own:
    ``mass``, ``volume`` (..., n); ``center_of_mass``, ``principal_moments`` (..., n, 3);
    ``inertia`` (..., n, 3, 3)."""

    mass: np.ndarray
    volume: np.ndarray
    center_of_mass: np.ndarray
    inertia: np.ndarray
    principal_moments: np.ndarray


def frame_derivatives(results: Sequence[Dual], rotation: np.ndarray, moments: Any) -> Derivatives:
    """The derivatives in frame_a from the canonical ones (:func:`closed_form_derivatives`),
    ``R_AC`` ((3, 3) for one body, (N, 3, 3) for a batch; its columns the canonical axes in
    frame_a) and the body's own canonical moments ``(I_xx, I_yy, I_zz)`` as float64 ((3,) or
    (N, 3): the closed form's results, which the body sorts into its principal moments).
    Leading axes: none for one body, (N,) for a batch (the gradients' (n, N) are turned into
    (N, n)). See the module docstring for the formulas and the principal moments' order at
    ties."""
    volume, mass, com_x, i_xx, i_yy, i_zz = (_rows_last(r.gradient) for r in results)
    r = np.asarray(rotation, dtype=np.float64)
    # The 18 products of R_AC's columns (a = e_axis, b = h, c = w), as the body computes them
    # (rotation_products of its frame rows), with an axis for the parameters.
    products = rotation_products(*(r[..., k, j][..., None] for j in range(3) for k in range(3)))
    xx, yy, zz, xy, xz, yz = rotate_with_products(i_xx, i_yy, i_zz, *products)
    inertia = (
        np.stack(
            [np.stack(row, axis=-1) for row in ((xx, xy, xz), (xy, yy, yz), (xz, yz, zz))],
            axis=-2,
        )
        + 0.0  # no -0.0 (a negative derivative times a zero product)
    )
    axis = r[..., :, 0]  # e_axis, (..., 3)
    center_of_mass = com_x[..., None] * axis[..., None, :] + 0.0  # + 0.0: no -0.0
    principal = _sorted_derivatives(
        np.asarray(moments, dtype=np.float64), np.stack((i_xx, i_yy, i_zz), axis=-1)
    )
    return Derivatives(mass, volume, center_of_mass, inertia, principal)


def _rows_last(gradient: np.ndarray) -> np.ndarray:
    """(n,) stays; (n, N) becomes (N, n)."""
    return gradient if gradient.ndim == 1 else np.ascontiguousarray(gradient.T)


def _sorted_derivatives(moments: np.ndarray, derivatives: np.ndarray) -> np.ndarray:
    """The derivatives of the sorted moments: ``moments`` (..., 3) canonical moments,
    ``derivatives`` (..., n, 3) theirs. Each column takes the derivative of the moment sorted
    (stable) into its place; within a group of equal moments (to within :data:`TIE`, the
    closed forms' rounding: a square box's two transverse moments may differ by an ulp) the
    derivatives are sorted ascending (a three-element sorting network of compare-swaps applied
    where the moments tie: the one-sided derivative for an increase of the parameter)."""
    order = np.argsort(moments, axis=-1, kind="stable")
    ordered = np.take_along_axis(moments, order, axis=-1)
    # + 0.0: no -0.0, so that equal derivatives are equal bits whichever one min/max returns
    out = np.take_along_axis(derivatives, order[..., None, :], axis=-1) + 0.0
    tie01 = (ordered[..., 1] - ordered[..., 0] <= TIE * ordered[..., 1])[..., None]
    tie12 = (ordered[..., 2] - ordered[..., 1] <= TIE * ordered[..., 2])[..., None]
    for (i, j), tie in (((0, 1), tie01), ((1, 2), tie12), ((0, 1), tie01)):
        low = np.minimum(out[..., i], out[..., j])
        high = np.maximum(out[..., i], out[..., j])
        out[..., i] = np.where(tie, low, out[..., i])
        out[..., j] = np.where(tie, high, out[..., j])
    return out



def sorted_derivatives(
    m0: float, m1: float, m2: float, d0: float, d1: float, d2: float
) -> tuple[float, float, float]:
    """:func:`_sorted_derivatives` for one parameter of one body, in plain float arithmetic
    (the compiled batch calls it): the derivatives ``d0, d1, d2`` of the canonical moments
    ``m0, m1, m2`` in the order of the sorted moments, ascending within ties. The same stable
    order (compare-swaps (0, 1), (1, 2), (0, 1) on strict ``<``), the same tie test and the
    same network, hence the same results."""
    d0, d1, d2 = d0 + 0.0, d1 + 0.0, d2 + 0.0
    if m1 < m0:
        m0, m1, d0, d1 = m1, m0, d1, d0
    if m2 < m1:
        m1, m2, d1, d2 = m2, m1, d2, d1
        if m1 < m0:
            m0, m1, d0, d1 = m1, m0, d1, d0
    tie01 = m1 - m0 <= TIE * m1
    if tie01 and d1 < d0:
        d0, d1 = d1, d0
    if m2 - m1 <= TIE * m2 and d2 < d1:
        d1, d2 = d2, d1
    if tie01 and d1 < d0:
        d0, d1 = d1, d0
    return d0, d1, d2

# -- units ----------------------------------------------------------------------------------------


def derivative_unit(output: str, parameter_unit: str) -> str:
    """The SI unit of ``d output / d parameter`` as text: ``derivative_unit("mass", "m")`` is
    ``"kg/m"``, ``("inertia", "kg/m^3")`` is ``"m^5"``, a ratio of like units ``"1"``."""
    # Exponent arithmetic over kg, m and rad rather than pint: pint's registry takes a few
    # hundred ms to load, which body.sensitivities() (the core) should not pay, and its
    # formatted units ("kilogram / meter", "kg / m") are not the short forms this project
    # prints. tests/test_sensitivity.py checks every unit here against pint's own division.
    exponents = dict(OUTPUTS[output])
    for unit, power in _PARAMETER_UNITS[parameter_unit].items():
        exponents[unit] = exponents.get(unit, 0) - power

    def part(unit: str, power: int) -> str:
        return unit if power == 1 else f"{unit}^{power}"

    order = ("kg", "m", "rad")
    top = " ".join(part(u, exponents[u]) for u in order if exponents.get(u, 0) > 0)
    bottom = [part(u, -exponents[u]) for u in order if exponents.get(u, 0) < 0]
    if not bottom:
        return top or "1"
    below = bottom[0] if len(bottom) == 1 else f"({' '.join(bottom)})"
    return f"{top or '1'}/{below}"


# -- the table ------------------------------------------------------------------------------------


def _frozen_copy(array: Any) -> np.ndarray:
    # A float64 copy made read-only (the table owns it). The batch's arrays are frozen in
    # place by rigidparts.batch.result.readonly; this core module cannot import the batch.
    out = np.array(array, dtype=np.float64)
    out.setflags(write=False)
    return out


class SensitivityRow(NamedTuple):
    """The derivatives of every output with respect to one parameter (SI units)."""

    parameter: str
    unit: str  # the parameter's SI unit
    value: float  # the parameter's value (SI)
    mass: float
    volume: float
    center_of_mass: np.ndarray  # (3,)
    inertia: np.ndarray  # (3, 3)
    principal_moments: np.ndarray  # (3,)


def parameter_index(parameters: tuple[str, ...], parameter: str) -> int:
    """The position of ``parameter`` in ``parameters``; ParameterError listing them otherwise
    (one rule for a body's table and a batch's)."""
    try:
        return parameters.index(parameter)
    except ValueError:
        raise ParameterError(
            "parameter", parameter, f"must be one of {', '.join(parameters)}"
        ) from None


class DerivativeTable:
    """What a body's table and a batch's share: the parameter lookup, the units and the
    JSON form (``parameters``, ``units``, ``values`` and the outputs must be attributes)."""

    shape: str
    parameters: tuple[str, ...]
    units: tuple[str, ...]
    values: np.ndarray

    def index(self, parameter: str) -> int:
        """The position of ``parameter``; ParameterError listing the parameters otherwise."""
        return parameter_index(self.parameters, parameter)

    def unit(self, output: str, parameter: str) -> str:
        """The SI unit of ``d output / d parameter`` (``"kg/m"``)."""
        return derivative_unit(output, self.units[self.index(parameter)])

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready values: ``parameters``, ``units``, ``values``, each output's rows
        as nested lists (a batch: body first), and ``derivative_units`` (output -> one unit
        per parameter)."""
        return {
            "shape": self.shape,
            "parameters": list(self.parameters),
            "units": list(self.units),
            "values": self.values.tolist(),
            **{name: getattr(self, name).tolist() for name in OUTPUTS},
            "derivative_units": {
                name: [derivative_unit(name, unit) for unit in self.units] for name in OUTPUTS
            },
        }


@dataclass(frozen=True, eq=False)
class Sensitivities(DerivativeTable):
    """Exact partial derivatives of one body's mass properties (module docstring).

    Attributes (read-only numpy arrays; row ``i`` is the derivative with respect to
    ``parameters[i]``, in SI units: ``derivative_unit(output, units[i])``)
    ----------
    shape : the shape's name.
    parameters : the parameters' names: the differentiable dimensions, then ``density`` or
        ``mass``.
    units : each parameter's SI unit (``"m"``, ``"kg/m^3"``, ``"kg"``).
    values : (n,) the parameters' values, SI.
    mass, volume : (n,) kg and m^3 per unit of the parameter.
    center_of_mass : (n, 3) of ``p_AoBcm_A`` in frame_a, m per unit.
    inertia : (n, 3, 3) of ``I_BBcm_A`` (about the centre of mass, frame_a axes), kg m^2 per
        unit.
    principal_moments : (n, 3) of ``principal_moments`` (ascending; ties: module docstring).
    """

    shape: str
    parameters: tuple[str, ...]
    units: tuple[str, ...]
    values: np.ndarray
    mass: np.ndarray
    volume: np.ndarray
    center_of_mass: np.ndarray
    inertia: np.ndarray
    principal_moments: np.ndarray

    def __post_init__(self) -> None:
        for name in ("values", "mass", "volume", "center_of_mass", "inertia", "principal_moments"):
            object.__setattr__(self, name, _frozen_copy(getattr(self, name)))

    def __len__(self) -> int:
        return len(self.parameters)

    def __getitem__(self, parameter: str) -> SensitivityRow:
        """Every output's derivative with respect to ``parameter`` (a name)."""
        if not isinstance(parameter, str):
            raise TypeError("index sensitivities by a parameter name, e.g. s['length']")
        i = self.index(parameter)
        return SensitivityRow(
            parameter,
            self.units[i],
            float(self.values[i]),
            float(self.mass[i]),
            float(self.volume[i]),
            self.center_of_mass[i],
            self.inertia[i],
            self.principal_moments[i],
        )

    def __str__(self) -> str:
        lines = [
            f"Sensitivities of the {self.shape} (SI; centre of mass and inertia in frame_a, "
            "inertia about the centre of mass):"
        ]
        width = max(len(f"d principal_moments / d {p}") for p in self.parameters)
        for i, (parameter, unit) in enumerate(zip(self.parameters, self.units, strict=True)):
            lines.append("")
            lines.append(f"{parameter} = {self.values[i]:.6g} {unit}")
            for name in OUTPUTS:
                label = f"d {name} / d {parameter}".ljust(width)
                unit_text = derivative_unit(name, unit)
                rows = np.atleast_2d(getattr(self, name)[i])
                for k, row in enumerate(rows):
                    numbers = "  ".join(f"{x: .6e}" for x in np.atleast_1d(row))
                    head = label if k == 0 else " " * width
                    sign = "=" if k == 0 else " "
                    tail = f" {unit_text}" if k == 0 else ""
                    lines.append(f"  {head} {sign} {numbers}{tail}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"Sensitivities(shape={self.shape!r}, parameters={self.parameters})"


# -- one body -------------------------------------------------------------------------------------


def body_sensitivities(body: Any) -> Sensitivities:
    """The :class:`Sensitivities` of a built body (``body.sensitivities()``)."""
    spec: ShapeSpec = body.spec
    by_mass = "mass" in body.parameters()
    source_name, source_unit = ("mass", "kg") if by_mass else ("density", "kg/m^3")
    source = body.mass if by_mass else body.density
    if spec.tier != 1:
        return _general_form_sensitivities(body, source_name, source_unit, source, by_mass)
    dims = body.dimensions
    values = [dims[p.name] for p in spec.params]
    results = closed_form_derivatives(spec, values, source, by_mass)
    columns = frame_derivatives(
        results, body.rotation_from_canonical, canonical_moments(spec, values, source, by_mass)
    )
    named = differentiable_parameters(spec)
    return Sensitivities(
        spec.name,
        (*(name for name, _ in named), source_name),
        (*(unit for _, unit in named), source_unit),
        np.array([*(dims[name] for name, _ in named), source]),
        *columns,
    )


def _general_form_sensitivities(
    body: Any, name: str, unit: str, source: float, by_mass: bool
) -> Sensitivities:
    """Tier 2: the one row of the density (or the mass), in which the general form is linear
    (mass and inertia proportional to it, volume and centre of mass independent). A body given
    by its mass properties (``spec.mass_only``) keeps its given inertia: only the mass moves."""
    inertia = body.inertia / source
    moments = body.principal_moments / source
    if body.spec.mass_only:
        inertia, moments = np.zeros_like(inertia), np.zeros_like(moments)
    mass = 1.0 if by_mass else body.volume
    if body.spec.mass_only:
        by_mass, mass = True, 1.0
    if not math.isfinite(mass) or not np.all(np.isfinite(inertia)):
        raise ParameterError(name, source, "gives derivatives float64 cannot hold")
    return Sensitivities(
        body.spec.name,
        (name,),
        (unit,),
        np.array([source]),
        np.array([mass]),
        np.zeros(1),
        np.zeros((1, 3)),
        inertia[None],
        moments[None],
    )
