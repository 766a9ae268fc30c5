"""The compiled batch sensitivities: a shape's own closed form, compiled by numba on dual numbers.

Nothing here restates a formula or a rule of differentiation. numba compiles the very
``closed_form`` of the shape (as the batch kernel does, :mod:`._numba`), called with dual
numbers in place of floats. :class:`DualType` is a small numba type, a struct passed by value
(no allocation; LLVM keeps it in registers): a value ``v + vl`` and ``n`` derivatives
``g[i] + gl[i]``, all in double-double, one lane per parameter. Its arithmetic operators are
``@overload``-ed onto the core's rules (:mod:`rigidparts.sensitivity`): the value rule once
(:func:`~rigidparts.sensitivity.mul_value`, ...) and the derivative rule in each lane
(:func:`~rigidparts.sensitivity.mul_derivative`, ...), the very functions the Python
:class:`~rigidparts.sensitivity.Dual` applies to its gradient arrays, on the core's
double-double helpers. The inputs are seeded ``g[i] = 1`` for parameter ``i``
(:func:`_seeded`), so one pass of the closed form gives every output's derivative with respect
to every parameter. The rotation into frame_a (:func:`rigidparts.inertia.rotation_products`,
:func:`~rigidparts.inertia.rotate_with_products`) and the order of the principal moments
(:func:`rigidparts.sensitivity.sorted_derivatives`) are again the core's functions, compiled.

Bits. The same IEEE operations in the same order as the Python path (no ``fastmath``: no
contraction into FMA, no reassociation), so each row equals ``body.sensitivities()`` bit for
bit (``tests/test_sensitivity.py``), with one deliberate substitution: Dekker's exact product
(:func:`rigidparts.sensitivity._two_prod`, 17 operations) is computed as ``p = a b``,
``e = fma(a, b, -p)`` wherever ``|p|`` lies in :data:`rigidparts.sensitivity.FMA_RANGE`, where
both give the exact rounding error of the product, hence the same ``e``; outside it the
compiled code calls the core's Dekker product itself.

Debugging. The kernel (:func:`build_kernel`) is plain Python; the dual type exists only
compiled, so to step through a derivative, step through ``body.sensitivities()``: the Python
:class:`~rigidparts.sensitivity.Dual` calls the same rule functions.

Speed. Double-double forward mode costs about 20 000 floating-point operations per hollow cone
(six parameters); the kernel runs them at about 2 per cycle (``benchmarks/sensitivity.py``):
about 3 us per row and core. The rules are inlined into the closed form (``forceinline``), so
LLVM unrolls the loops over the lanes and overlaps the independent lanes.

Compiled once per shape on first use, cached on disk as the batch kernel is (a digest of the
sources in the kernel's name).
"""

from __future__ import annotations

import math
import operator
import threading
from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.cpython.unsafe.tuple import tuple_setitem
from numba.extending import (
    intrinsic,
    make_attribute_wrapper,
    models,
    overload,
    register_jitable,
    register_model,
)
from numba.np.unsafe.ndarray import to_fixed_tuple

from .. import inertia, sensitivity
from ..shapes import SHAPES, ShapeSpec
from . import _numba

__all__ = ["DualType", "build_kernel", "kernel_for", "run"]

_JIT = {"error_model": "numpy", "nogil": True}
#: The arithmetic: inlined by LLVM into the closed form (LLVM then unrolls the loops over the
#: lanes and keeps the lanes in registers).
_INLINE = {**_JIT, "forceinline": True}


# -- the dual type ------------------------------------------------------------------------------


class DualType(types.Type):
    """numba's type of a dual number with ``lanes`` derivatives: its value ``v + vl`` and the
    derivatives ``g[i] + gl[i]`` (double-double; a struct of float64 and two tuples of
    float64, passed by value: no allocation, kept in registers)."""

    def __init__(self, lanes: int) -> None:
        self.lanes = lanes
        super().__init__(name=f"Dual{lanes}")


@register_model(DualType)
class _DualModel(models.StructModel):
    def __init__(self, dmm: Any, fe_type: DualType) -> None:
        lanes = types.UniTuple(types.float64, fe_type.lanes)
        members = [("v", types.float64), ("vl", types.float64), ("g", lanes), ("gl", lanes)]
        super().__init__(dmm, fe_type, members)


for _field in ("v", "vl", "g", "gl"):
    make_attribute_wrapper(DualType, _field, _field)


@intrinsic
def _make(typingctx: Any, v: Any, vl: Any, g: Any, gl: Any) -> Any:
    """``_make(v, vl, g, gl)``: the dual of a value (two floats) and derivatives (two tuples
    of floats of the same length)."""
    if not (
        isinstance(v, types.Float)
        and isinstance(vl, types.Float)
        and isinstance(g, types.UniTuple)
        and g == gl
        and g.dtype == types.float64
    ):
        return None
    result = DualType(g.count)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        out = cgutils.create_struct_proxy(result)(context, builder)
        out.v = context.cast(builder, args[0], signature.args[0], types.float64)
        out.vl = context.cast(builder, args[1], signature.args[1], types.float64)
        out.g, out.gl = args[2], args[3]
        return out._getvalue()

    return result(v, vl, g, gl), codegen


@intrinsic
def _seeded(typingctx: Any, values: Any) -> Any:
    """``_seeded(values)``: a tuple of duals of the float ``values`` (n of them), each with n
    derivatives: dual ``i`` has derivative 1 in lane ``i`` and 0 elsewhere (each input is a
    parameter: lane ``i`` is the derivative with respect to parameter ``i``)."""
    if not (isinstance(values, types.UniTuple) and isinstance(values.dtype, types.Float)):
        return None
    n = values.count
    item_type = DualType(n)
    result = types.UniTuple(item_type, n)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        lanes = types.UniTuple(types.float64, n)
        zero = context.get_constant(types.float64, 0.0)
        one = context.get_constant(types.float64, 1.0)
        zeros = context.make_tuple(builder, lanes, [zero] * n)
        items = []
        for i in range(n):
            item = cgutils.create_struct_proxy(item_type)(context, builder)
            value = builder.extract_value(args[0], i)
            item.v = context.cast(builder, value, values.dtype, types.float64)
            item.vl = zero
            item.g = context.make_tuple(builder, lanes, [one if k == i else zero for k in range(n)])
            item.gl = zeros
            items.append(item._getvalue())
        return context.make_tuple(builder, result, items)

    return result(values), codegen


# -- the core's arithmetic, compiled --------------------------------------------------------------

for _function in (
    sensitivity._split_scalar,
    sensitivity._two_sum,
    sensitivity._fast_two_sum,
    sensitivity._dd_add,
    sensitivity._dd_add_float,
    sensitivity._dd_mul,
    sensitivity._dd_mul_float,
    sensitivity._dd_div,
    sensitivity.add_value,
    sensitivity.add_derivative,
    sensitivity.add_constant_value,
    sensitivity.mul_value,
    sensitivity.mul_derivative,
    sensitivity.mul_constant_value,
    sensitivity.mul_constant_derivative,
    sensitivity.div_value,
    sensitivity.div_derivative,
    sensitivity.div_constant_derivative,
    sensitivity.constant_div_derivative,
    sensitivity.sorted_derivatives,
):
    register_jitable(**_INLINE)(_function)


@overload(sensitivity._split, jit_options=_INLINE)
def _split_impl(a):
    """Compiled code splits one float: the core's scalar split."""
    if isinstance(a, types.Float):
        return lambda a: sensitivity._split_scalar(a)
    return None


@intrinsic
def _fma(typingctx: Any, a: Any, b: Any, c: Any) -> Any:
    """``a * b + c`` rounded once (LLVM's ``llvm.fma.f64``: one instruction where the CPU has
    FMA, else the C library's exact ``fma``)."""
    if not all(isinstance(t, types.Number) for t in (a, b, c)):
        return None

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        double = ir.DoubleType()
        function = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(double, [double] * 3), "llvm.fma.f64"
        )
        values = [
            context.cast(builder, value, kind, types.float64)
            for value, kind in zip(args, signature.args, strict=True)
        ]
        return builder.call(function, values)

    return types.float64(a, b, c), codegen


#: The core's Dekker product, compiled as it is (for products outside FMA_RANGE).
_dekker_two_prod = numba.njit(**_JIT)(sensitivity._two_prod)
_FMA_LOW, _FMA_HIGH = sensitivity.FMA_RANGE


@overload(sensitivity._two_prod, jit_options=_INLINE)
def _two_prod_impl(a, b):
    """The exact product ``p + e == a b``: ``e = fma(a, b, -p)``, the exact rounding error, where
    ``|p|`` is in :data:`rigidparts.sensitivity.FMA_RANGE` (there Dekker's ``e`` is exact too,
    hence the same bits, at a fifth of the operations), else the core's Dekker product."""
    if isinstance(a, types.Number) and isinstance(b, types.Number):

        def impl(a, b):
            p = a * b
            if _FMA_LOW < abs(p) < _FMA_HIGH:
                return p, _fma(a, b, -p)
            return _dekker_two_prod(a, b)

        return impl
    return None


def _is(t: Any) -> bool:
    return isinstance(t, DualType)


def _number(t: Any) -> bool:
    return isinstance(t, types.Number)


# The operators as :class:`rigidparts.sensitivity.Dual`'s methods apply the rules: the value
# rule once, the derivative rule in each lane (a loop over the lanes that LLVM unrolls: the
# lanes are independent, so their operations overlap). a - b is a + (-b) (negation is exact),
# c - a is (-a) + c, c + a is a + c, c * a is a * c.


@register_jitable(**_INLINE)
def _neg_dual(a):
    g, gl = a.g, a.gl
    for i in range(len(g)):
        g = tuple_setitem(g, i, -a.g[i])
        gl = tuple_setitem(gl, i, -a.gl[i])
    return _make(-a.v, -a.vl, g, gl)


@register_jitable(**_INLINE)
def _add_duals(a, b):
    v, vl = sensitivity.add_value(a.v, a.vl, b.v, b.vl)
    g, gl = a.g, a.gl
    for i in range(len(g)):
        x, y = sensitivity.add_derivative(a.g[i], a.gl[i], b.g[i], b.gl[i])
        g = tuple_setitem(g, i, x)
        gl = tuple_setitem(gl, i, y)
    return _make(v, vl, g, gl)


@register_jitable(**_INLINE)
def _add_constant(a, b):
    v, vl = sensitivity.add_constant_value(a.v, a.vl, b)
    return _make(v, vl, a.g, a.gl)


@register_jitable(**_INLINE)
def _mul_duals(a, b):
    v, vl = sensitivity.mul_value(a.v, a.vl, b.v, b.vl)
    g, gl = a.g, a.gl
    for i in range(len(g)):
        x, y = sensitivity.mul_derivative(a.v, a.vl, a.g[i], a.gl[i], b.v, b.vl, b.g[i], b.gl[i])
        g = tuple_setitem(g, i, x)
        gl = tuple_setitem(gl, i, y)
    return _make(v, vl, g, gl)


@register_jitable(**_INLINE)
def _mul_constant(a, b):
    v, vl = sensitivity.mul_constant_value(a.v, a.vl, b)
    g, gl = a.g, a.gl
    for i in range(len(g)):
        x, y = sensitivity.mul_constant_derivative(a.g[i], a.gl[i], b)
        g = tuple_setitem(g, i, x)
        gl = tuple_setitem(gl, i, y)
    return _make(v, vl, g, gl)


@register_jitable(**_INLINE)
def _div_duals(a, b):
    q, ql = sensitivity.div_value(a.v, a.vl, b.v, b.vl)
    g, gl = a.g, a.gl
    for i in range(len(g)):
        x, y = sensitivity.div_derivative(q, ql, a.g[i], a.gl[i], b.v, b.vl, b.g[i], b.gl[i])
        g = tuple_setitem(g, i, x)
        gl = tuple_setitem(gl, i, y)
    return _make(q, ql, g, gl)


@register_jitable(**_INLINE)
def _div_constant(a, b):
    q, ql = sensitivity.div_value(a.v, a.vl, b, 0.0)
    g, gl = a.g, a.gl
    for i in range(len(g)):
        x, y = sensitivity.div_constant_derivative(a.g[i], a.gl[i], b)
        g = tuple_setitem(g, i, x)
        gl = tuple_setitem(gl, i, y)
    return _make(q, ql, g, gl)


@register_jitable(**_INLINE)
def _constant_div(a, b):
    q, ql = sensitivity.div_value(a, 0.0, b.v, b.vl)
    g, gl = b.g, b.gl
    for i in range(len(g)):
        x, y = sensitivity.constant_div_derivative(q, ql, b.v, b.vl, b.g[i], b.gl[i])
        g = tuple_setitem(g, i, x)
        gl = tuple_setitem(gl, i, y)
    return _make(q, ql, g, gl)


@overload(operator.neg, jit_options=_INLINE)
def _neg(a):
    if _is(a):
        return lambda a: _neg_dual(a)
    return None


@overload(operator.pos, jit_options=_INLINE)
def _pos(a):
    if _is(a):
        return lambda a: a
    return None


@overload(operator.add, jit_options=_INLINE)
def _add(a, b):
    if _is(a) and _is(b) and a == b:
        return lambda a, b: _add_duals(a, b)
    if _is(a) and _number(b):
        return lambda a, b: _add_constant(a, b)
    if _number(a) and _is(b):
        return lambda a, b: _add_constant(b, a)
    return None


@overload(operator.sub, jit_options=_INLINE)
def _sub(a, b):
    if _is(a) and (_is(b) or _number(b)):
        return lambda a, b: a + (-b)
    if _number(a) and _is(b):
        return lambda a, b: (-b) + a
    return None


@overload(operator.mul, jit_options=_INLINE)
def _mul(a, b):
    if _is(a) and _is(b) and a == b:
        return lambda a, b: _mul_duals(a, b)
    if _is(a) and _number(b):
        return lambda a, b: _mul_constant(a, b)
    if _number(a) and _is(b):
        return lambda a, b: _mul_constant(b, a)
    return None


@overload(operator.truediv, jit_options=_INLINE)
def _truediv(a, b):
    if _is(a) and _is(b) and a == b:
        return lambda a, b: _div_duals(a, b)
    if _is(a) and _number(b):
        return lambda a, b: _div_constant(a, b)
    if _number(a) and _is(b):
        return lambda a, b: _constant_div(a, b)
    return None


@overload(operator.pow, jit_options=_INLINE)
def _pow(a, b):
    # As Dual.__pow__: 1.0 * a, then times a again (exponent - 1) times; a ** 0 is 1.
    if _is(a) and isinstance(b, types.Integer):

        def impl(a, b):
            if b == 0:  # Dual(1.0, 0.0 * gradient)
                g = a.g
                for i in range(len(g)):
                    g = tuple_setitem(g, i, 0.0 * a.g[i])
                return _make(1.0, 0.0, g, _zeros(a.gl))
            result = 1.0 * a
            for _ in range(b - 1):
                result = result * a
            return result

        return impl
    return None


def _comparison(op: Callable[[Any, Any], bool]) -> None:
    # As Dual's comparisons: on the values (v + vl, rounded).
    @overload(op, jit_options=_INLINE)
    def _compare(a, b):
        if _is(a) and _is(b):
            return lambda a, b: op(a.v + a.vl, b.v + b.vl)
        if _is(a) and _number(b):
            return lambda a, b: op(a.v + a.vl, b)
        if _number(a) and _is(b):
            return lambda a, b: op(a, b.v + b.vl)
        return None


for _op in (operator.lt, operator.le, operator.gt, operator.ge):
    _comparison(_op)


def as_dual(x: Any, like: Any) -> Any:
    """``x`` as a dual with the lanes of the dual ``like``: itself, or a constant (zero
    derivatives). Compiled only."""
    raise NotImplementedError("compiled only")


@overload(as_dual, jit_options=_INLINE)
def _as_dual_impl(x, like):
    if _is(x):
        return lambda x, like: x
    if _number(x) and _is(like):
        return lambda x, like: _make(float(x), 0.0, _zeros(like.g), _zeros(like.g))
    return None


@register_jitable(**_INLINE)
def _zeros(g):
    for i in range(len(g)):
        g = tuple_setitem(g, i, 0.0)
    return g


def derivative(x: Any, lane: int) -> float:
    """Derivative ``lane`` of ``x`` rounded to float64 (0 for a constant). Compiled only."""
    raise NotImplementedError("compiled only")


@overload(derivative, jit_options=_INLINE)
def _derivative_impl(x, lane):
    if _is(x):
        return lambda x, lane: x.g[lane] + x.gl[lane]
    if _number(x):
        return lambda x, lane: 0.0
    return None


# -- the kernel -----------------------------------------------------------------------------------


def build_kernel(spec: ShapeSpec) -> Any:
    """The compiled row loop of the sensitivities of tier-1 ``spec`` (every dimension a length
    or an angle). Call it as :func:`run` does."""
    closed_form_function = spec.closed_form
    if closed_form_function is None:
        raise ValueError(f"shape {spec.name!r} has no closed form (tier 2)")
    compiled = _numba._make_jitable(closed_form_function)
    closed_form = closed_form_function
    rotation_products = inertia.rotation_products
    rotate_with_products = inertia.rotate_with_products
    sorted_derivatives = sensitivity.sorted_derivatives
    arity = len(spec.params)
    n = arity + 1  # the dimensions, then the density or the mass
    nan = math.nan

    def kernel(
        dims, source, by_mass, codes, rotation, moments,  # inputs (rows: N or 1)
        out_mass, out_volume, out_com, out_inertia, out_principal,  # (N, n, ...)
        row_start, row_stop,
    ):  # fmt: skip
        x = np.empty(n)  # the dimensions, then the density or the mass
        d = np.empty((6, n))  # d volume, mass, com_x, I_xx, I_yy, I_zz / d parameter k
        for r in range(row_start, row_stop):
            if codes[r] != 0:
                for k in range(n):
                    out_mass[r, k] = nan
                    out_volume[r, k] = nan
                    for a in range(3):
                        out_com[r, k, a] = nan
                        out_principal[r, k, a] = nan
                        for b in range(3):
                            out_inertia[r, k, a, b] = nan
                continue
            for i in range(arity):
                column = dims[i]
                x[i] = column[0] if column.shape[0] == 1 else column[r]
            x[arity] = source[0] if source.shape[0] == 1 else source[r]
            # One forward pass: each parameter seeded in its own lane.
            seeded = _seeded(to_fixed_tuple(x, n))
            args = seeded[:arity]
            given = seeded[arity]
            if by_mass:  # density = mass / volume at unit density, as the Python path
                density = given / as_dual(closed_form(*args, 1.0)[0], given)
                volume, mass, com_x, i_xx, i_yy, i_zz = closed_form(*args, density)
                mass = given
            else:
                volume, mass, com_x, i_xx, i_yy, i_zz = closed_form(*args, given)
            for k in range(n):
                d[0, k] = derivative(volume, k)
                d[1, k] = derivative(mass, k)
                d[2, k] = derivative(com_x, k)
                d[3, k] = derivative(i_xx, k)
                d[4, k] = derivative(i_yy, k)
                d[5, k] = derivative(i_zz, k)
            # Into frame_a (R_AC's columns, as frame_derivatives), and the principal order.
            q = rotation[0] if rotation.shape[0] == 1 else rotation[r]
            products = rotation_products(
                q[0, 0], q[1, 0], q[2, 0], q[0, 1], q[1, 1], q[2, 1], q[0, 2], q[1, 2], q[2, 2]
            )
            m = moments[r]
            for k in range(n):
                out_volume[r, k] = d[0, k]
                out_mass[r, k] = d[1, k]
                for a in range(3):
                    out_com[r, k, a] = d[2, k] * q[a, 0] + 0.0  # + 0.0: no -0.0
                xx, yy, zz, xy, xz, yz = rotate_with_products(d[3, k], d[4, k], d[5, k], *products)
                out_inertia[r, k, 0, 0] = xx + 0.0
                out_inertia[r, k, 0, 1] = xy + 0.0
                out_inertia[r, k, 0, 2] = xz + 0.0
                out_inertia[r, k, 1, 0] = xy + 0.0
                out_inertia[r, k, 1, 1] = yy + 0.0
                out_inertia[r, k, 1, 2] = yz + 0.0
                out_inertia[r, k, 2, 0] = xz + 0.0
                out_inertia[r, k, 2, 1] = yz + 0.0
                out_inertia[r, k, 2, 2] = zz + 0.0
                p0, p1, p2 = sorted_derivatives(m[0], m[1], m[2], d[3, k], d[4, k], d[5, k])
                out_principal[r, k, 0] = p0
                out_principal[r, k, 1] = p1
                out_principal[r, k, 2] = p2

    registered = SHAPES.get(spec.name) is spec
    digest = _numba._source_digest(compiled | {sensitivity.mul_derivative, build_kernel})
    kernel.__qualname__ = kernel.__name__ = (
        f"{spec.name}_sensitivities_{digest}" if registered else f"{spec.name}_unregistered"
    )
    c64_1d = types.Array(types.float64, 1, "C", readonly=True)
    signature = types.void(
        types.UniTuple(c64_1d, arity), c64_1d, types.boolean,
        types.Array(types.uint8, 1, "A", readonly=True),
        types.Array(types.float64, 3, "A", readonly=True),
        types.Array(types.float64, 2, "A", readonly=True),
        types.float64[:, ::1], types.float64[:, ::1], types.float64[:, :, ::1],
        types.float64[:, :, :, ::1], types.float64[:, :, ::1], types.int64, types.int64,
    )  # fmt: skip
    dispatcher = None
    if registered:
        try:
            dispatcher = numba.njit(cache=True, **_JIT)(kernel)
        except RuntimeError:  # no writable cache directory: compile in memory
            pass
    if dispatcher is None:
        dispatcher = numba.njit(cache=False, **_JIT)(kernel)
    dispatcher.compile(signature)
    dispatcher.disable_compile()
    return dispatcher


_KERNELS: dict[ShapeSpec, Any] = {}
_lock = threading.Lock()


def kernel_for(spec: ShapeSpec) -> Any:
    """The compiled sensitivity kernel of ``spec``, built (or loaded from the disk cache) on
    first use."""
    found = _KERNELS.get(spec)
    if found is None:
        with _lock:
            found = _KERNELS.get(spec)
            if found is None:
                found = _KERNELS[spec] = build_kernel(spec)
    return found


def run(spec: ShapeSpec, inputs: tuple, outputs: tuple) -> None:
    """Fill ``outputs`` (mass, volume, com, inertia, principal: (N, n, ...)) from ``inputs``
    (the dimensions (each (N,) or (1,)), the density or mass, by_mass, the error codes (N,),
    R_AC (N or 1, 3, 3), the canonical moments (N, 3)); large batches in blocks on the batch's
    thread pool."""
    compiled = kernel_for(spec)
    dims, source = inputs[0], inputs[1]
    inputs = (tuple(_numba._contiguous(c) for c in dims), _numba._contiguous(source), *inputs[2:])
    n = outputs[0].shape[0]
    if _numba.THREADS == 1 or n < 4096:
        compiled(*inputs, *outputs, 0, n)
        return
    step = max(256, -(-n // (4 * _numba.THREADS)))
    blocks = iter(range(0, n, step))
    lock = threading.Lock()

    def work() -> None:
        while True:
            with lock:
                start = next(blocks, None)
            if start is None:
                return
            compiled(*inputs, *outputs, start, min(start + step, n))

    helpers = [_numba._thread_pool().submit(work) for _ in range(_numba.THREADS - 1)]
    work()
    for helper in helpers:
        helper.result()
