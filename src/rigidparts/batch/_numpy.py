"""The batch path without numba: the same scalar functions, evaluated on numpy arrays.

A tier-1 ``closed_form`` and :func:`rigidparts.inertia.rotate_with_products` use only
``+ - * /`` (and constants such as ``math.pi``), so called with numpy arrays they compute every
row with the same IEEE operations in the same order as with Python floats: the same bits as
the scalar path (numpy ufuncs do not fuse multiply-adds).

The rules are written for floats, with ``a if cond else b``, ``and``, chained comparisons and
``min``, which numpy arrays cannot evaluate. :func:`vectorised` turns such a function into its
array form *from its own source*: the syntax tree is rewritten (``a if c else b`` ->
``where(c, a, b)``, ``x and y`` -> ``logical_and(x, y)``, ``a < b < c`` -> ``(a < b) & (b < c)``,
``min`` -> the same comparisons as Python's ``min``; the function read by :func:`_definition`)
and compiled once per function, so the
shape's ``check`` and :func:`rigidparts.shapes.results_representable` stay the one statement of
their rules. Anything the rewrite does not know (loops, ``**``, other calls) is refused, and that
function then runs row by row (``numpy.frompyfunc``), correct and slow. ``tests/test_batch.py``
checks each vectorised function against the scalar one on random and edge inputs (zeros of
both signs, NaN, infinities, subnormals, ties). The frame rule
(:func:`rigidparts.frames.body_frame`, with early returns) runs row by row, only when rows have
axes of their own.

Rows are processed in blocks of :data:`CHUNK` so that each expression's temporaries stay in
cache and the extra memory stays small; results are written into the outputs in place.
"""

from __future__ import annotations

import ast
import functools
import inspect
import linecache
import math
import sys
import textwrap
import types
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import frames as _frames
from ..inertia import rotate_with_products, rotation_products
from ..shapes import ShapeSpec, results_representable

__all__ = ["CHUNK", "NotVectorisable", "run", "vectorised"]

#: Rows per block (each temporary is CHUNK float64: 64 KiB; a cone keeps a few dozen alive).
CHUNK = 8192


class NotVectorisable(ValueError):
    """A construct :func:`vectorised` does not rewrite (the function runs row by row)."""


def _python_min(first: Any, *rest: Any) -> Any:
    # Python's min: keep the current value unless the next one compares smaller (a NaN after
    # the first is skipped, a NaN first stays), elementwise.
    out = first
    for item in rest:
        out = np.where(item < out, item, out)
    return out


def _python_max(first: Any, *rest: Any) -> Any:
    out = first
    for item in rest:
        out = np.where(item > out, item, out)
    return out


def _all(first: Any, *rest: Any) -> Any:
    out = first
    for item in rest:
        out = np.logical_and(out, item)
    return out


def _any(first: Any, *rest: Any) -> Any:
    out = first
    for item in rest:
        out = np.logical_or(out, item)
    return out


#: The names the rewritten functions call (no clash with a module's own: they start with _v_).
_HELPERS: dict[str, Any] = {
    "_v_where": np.where,
    "_v_and": _all,
    "_v_or": _any,
    "_v_not": np.logical_not,
    "_v_min": _python_min,
    "_v_max": _python_max,
    "_v_isfinite": np.isfinite,
    "_v_isnan": np.isnan,
    "_v_isinf": np.isinf,
    "_v_sqrt": np.sqrt,  # correctly rounded, as math.sqrt
    "_v_abs": np.abs,
}
#: Calls the rewrite maps: (module or None, name) -> helper.
_CALLS = {
    (None, "min"): "_v_min",
    (None, "max"): "_v_max",
    (None, "abs"): "_v_abs",
    ("math", "isfinite"): "_v_isfinite",
    ("math", "isnan"): "_v_isnan",
    ("math", "isinf"): "_v_isinf",
    ("math", "sqrt"): "_v_sqrt",
}
#: Arithmetic kept as it is (elementwise, the same IEEE operation as on floats).
_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.USub, ast.UAdd)


def _call(name: str, *args: ast.expr) -> ast.Call:
    return ast.Call(func=ast.Name(id=name, ctx=ast.Load()), args=list(args), keywords=[])


class _Rewrite(ast.NodeTransformer):
    """Float expressions -> array expressions (module docstring)."""

    def visit_IfExp(self, node: ast.IfExp) -> ast.AST:
        self.generic_visit(node)
        return _call("_v_where", node.test, node.body, node.orelse)

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.AST:
        self.generic_visit(node)
        return _call("_v_and" if isinstance(node.op, ast.And) else "_v_or", *node.values)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return _call("_v_not", node.operand)
        if not isinstance(node.op, _ARITHMETIC):
            raise NotVectorisable(f"operator {type(node.op).__name__}")
        return node

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        if not isinstance(node.op, _ARITHMETIC):  # ** (libm's pow), //, %: not the same bits
            raise NotVectorisable(f"operator {type(node.op).__name__}")
        self.generic_visit(node)
        return node

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        self.generic_visit(node)
        if len(node.ops) == 1:
            return node
        operands = [node.left, *node.comparators]  # names and constants: evaluated twice
        for operand in node.comparators[:-1]:
            if not isinstance(operand, ast.Name | ast.Constant | ast.Attribute):
                raise NotVectorisable("a chained comparison over an expression")
        pairs = [
            ast.Compare(left=left, ops=[op], comparators=[right])
            for left, op, right in zip(operands, node.ops, operands[1:], strict=False)
        ]
        return _call("_v_and", *pairs)

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        function = node.func
        if isinstance(function, ast.Name):
            key: tuple[str | None, str] = (None, function.id)
        elif isinstance(function, ast.Attribute) and isinstance(function.value, ast.Name):
            key = (function.value.id, function.attr)
        else:
            raise NotVectorisable("a call")
        helper = _CALLS.get(key)
        if helper is None or node.keywords:
            raise NotVectorisable(f"a call of {'.'.join(k for k in key if k)}")
        return _call(helper, *node.args)

    def generic_visit(self, node: ast.AST) -> ast.AST:
        allowed = (
            ast.Module, ast.FunctionDef, ast.arguments, ast.arg, ast.Assign, ast.Return,
            ast.Expr, ast.Name, ast.Load, ast.Store, ast.Constant, ast.Attribute, ast.Tuple,
            ast.BinOp, ast.UnaryOp, ast.Compare, ast.BoolOp, ast.IfExp, ast.Call,
            ast.operator, ast.unaryop, ast.cmpop, ast.boolop,
        )  # fmt: skip
        if not isinstance(node, allowed):
            raise NotVectorisable(type(node).__name__)
        return super().generic_visit(node)


def _definition(function: Callable[..., Any]) -> ast.FunctionDef:
    """``function``'s own ``def``, parsed from its source (docstring, annotations and
    decorators left out), when that source is the code that runs: a plain function of
    positional parameters, no closure and no wrapper, whose source compiled again (beside its
    module's imports, which decide how CPython compiles ``math.f(x)``) gives its very bytecode
    (not a file edited since it was imported). :class:`NotVectorisable` otherwise."""
    code = getattr(function, "__code__", None)
    if code is None or not hasattr(function, "__globals__"):
        raise NotVectorisable(f"{function!r} is not a Python function")
    if code.co_freevars or hasattr(function, "__wrapped__"):
        raise NotVectorisable("a closure or a wrapper: its source is not all it runs")
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    except (OSError, TypeError, SyntaxError) as exc:
        raise NotVectorisable(f"no source for {function!r}") from exc
    node = tree.body[0] if len(tree.body) == 1 else None
    if not isinstance(node, ast.FunctionDef) or node.decorator_list or node.name != code.co_name:
        raise NotVectorisable("not a plain function")
    arguments = node.args
    if (
        arguments.posonlyargs or arguments.kwonlyargs or arguments.vararg or arguments.kwarg
        or arguments.defaults
    ):  # fmt: skip
        raise NotVectorisable("only positional parameters without defaults")
    node.returns = None
    for argument in arguments.args:
        argument.annotation = None  # annotations are not code
    module = sys.modules.get(function.__module__)
    imports = [
        statement
        for statement in (ast.parse(inspect.getsource(module)).body if module else [])
        if isinstance(statement, ast.Import | ast.ImportFrom)
        and not (isinstance(statement, ast.ImportFrom) and statement.module == "__future__")
    ]
    compiled = compile(ast.Module([*imports, node], type_ignores=[]), code.co_filename, "exec")
    again = next(c for c in compiled.co_consts if isinstance(c, types.CodeType))
    if (again.co_code, again.co_consts, again.co_names, again.co_varnames) != (
        code.co_code,
        code.co_consts,
        code.co_names,
        code.co_varnames,
    ):
        raise NotVectorisable("its source is not the code that runs (edited since imported?)")
    body = node.body
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        node.body = body[1:]  # the docstring
    return node


@functools.cache
def vectorised(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` (plain-float arithmetic, comparisons, ``if``-expressions, ``and`` / ``or``
    / ``not``, ``min`` / ``max`` / ``abs``, ``math.isfinite`` / ``isnan`` / ``isinf`` /
    ``sqrt``, assignments to names, ``return``) rewritten to take numpy arrays: each element
    gives what ``function`` gives for that element's values (module docstring). Compiled once
    per function, in a copy of its module's globals; the rewritten source is registered with
    :mod:`linecache` under ``<vectorised NAME>``, so tracebacks show it.
    :class:`NotVectorisable` for anything else."""
    definition = _definition(function)
    tree = ast.fix_missing_locations(_Rewrite().visit(ast.Module([definition], type_ignores=[])))
    namespace = {**function.__globals__, **_HELPERS}
    filename = f"<vectorised {function.__module__}.{function.__qualname__}>"
    source = ast.unparse(tree) + "\n"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), namespace)
    return namespace[definition.name]


@functools.cache
def _array_form(function: Callable[..., Any], arity: int, dtype: type) -> Callable[..., Any]:
    """:func:`vectorised` ``function``, or, for what it does not rewrite, ``function`` row by
    row (``numpy.frompyfunc``: correct, slow), its results as ``dtype``."""
    try:
        return vectorised(function)
    except NotVectorisable:
        row_by_row = np.frompyfunc(function, arity, 1)
        return lambda *arrays: np.asarray(row_by_row(*arrays)).astype(dtype)


def run(spec: ShapeSpec, inputs: tuple, outputs: tuple) -> int:
    """Same contract as :func:`rigidparts.batch._numba.run`; returns the invalid-row count."""
    (dims, source, by_mass, axis, height, rotate90, frame, frame_code, per_row_frame,
     explicit_height) = inputs  # fmt: skip
    (out_volume, out_mass, out_density, out_com, out_inertia, out_moments, out_frame,
     out_code) = outputs  # fmt: skip
    closed_form = spec.closed_form
    assert closed_form is not None
    check = _array_form(spec.check, len(dims), np.int64)
    representable = _array_form(results_representable, 6, np.bool_)
    source_code = spec.common_code("mass" if by_mass else "density")
    first_frame_code = spec.common_code("frame")
    unrepresentable_code = spec.common_code("unrepresentable")
    n = out_volume.shape[0]
    tensors = out_inertia.reshape(n, 9)
    if not per_row_frame:  # one frame: its products once, as plain floats (the same bits)
        rows = frame.reshape(9).tolist()
        e_axis = rows[:3]
        products: Any = rotation_products(*rows)
    invalid = 0
    for start in range(0, n, CHUNK):
        stop = min(start + CHUNK, n)
        x = [d[start:stop] for d in dims]
        given = source[start:stop]
        with np.errstate(all="ignore"):  # invalid rows may divide by zero: masked below
            codes = np.broadcast_to(check(*x), (stop - start,))
            source_bad = ~((0.0 < given) & (given < math.inf))
            codes = np.where((codes == 0) & source_bad, source_code, codes)
            if by_mass:  # density = mass / volume, as Component._build
                rho = given / closed_form(*x, 1.0)[0]
            else:
                rho = given
            volume, mass, com_x, i0, i1, i2 = closed_form(*x, rho)
            if by_mass:
                mass = given  # the given mass, exactly

            if per_row_frame:  # the scalar path's own function, row by row (slow, but exact)
                found = np.array(
                    [
                        _frames.body_frame(*a, r, explicit_height, *h)
                        for a, r, h in zip(
                            axis[start:stop].tolist(),
                            rotate90[start:stop].tolist(),
                            height[start:stop].tolist(),
                            strict=True,
                        )
                    ],
                    dtype=np.float64,
                ).reshape(-1, 10)
                frame_codes = found[:, 0].astype(np.int64)
                frame_codes = np.where(frame_codes > 0, frame_codes + first_frame_code - 1, 0)
                out_frame[start:stop] = found[:, 1:].reshape(-1, 3, 3)
                rows_t = found[:, 1:].T
                e_axis = rows_t[:3]
                products = rotation_products(*rows_t)
                codes = np.where(codes == 0, frame_codes, codes)
            elif frame_code:
                codes = np.where(codes == 0, frame_code, codes)

            # The scalar path's last guard (Component._build): finite, positive results.
            fits = representable(volume, mass, i0, i1, i2, rho)
            codes = np.where((codes == 0) & ~fits, unrepresentable_code, codes)
            tensor = rotate_with_products(i0, i1, i2, *products)

            out_volume[start:stop] = volume
            out_mass[start:stop] = mass
            com = out_com[start:stop]
            for k in range(3):  # as Component.center_of_mass: com_x e_axis, + 0.0: no -0.0
                np.multiply(com_x, e_axis[k], out=com[:, k])
                np.add(com[:, k], 0.0, out=com[:, k])
            block = tensors[start:stop]
            for k, entry in enumerate((0, 4, 8, 1, 2, 5)):  # xx yy zz xy xz yz
                block[:, entry] = tensor[k]
            block[:, 3] = block[:, 1]
            block[:, 6] = block[:, 2]
            block[:, 7] = block[:, 5]
            moments = out_moments[start:stop]
            moments[:, 0] = i0
            moments[:, 1] = i1
            moments[:, 2] = i2
            if by_mass:
                out_density[start:stop] = rho
        out_code[start:stop] = codes
        bad = np.flatnonzero(codes)
        if bad.size:
            rows_bad = bad + start
            for array in (out_volume, out_mass, out_com, out_inertia, out_moments):
                array[rows_bad] = np.nan
            if by_mass:
                out_density[rows_bad] = np.nan
            invalid += int(bad.size)
    return invalid
