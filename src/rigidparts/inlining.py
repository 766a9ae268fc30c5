"""A straight-line function's body, written in place of a call to it (for the compiled
constructors of :mod:`rigidparts.component`).

A shape's ``check`` and ``closed_form`` and :func:`rigidparts.shapes.results_representable`
are straight-line functions: assignments, then one ``return``. A body calls each of them once;
in CPython 3.11 a call costs about as much as the arithmetic of a small closed form. So the
constructor writes their statements in its own body instead (:func:`inline_call`), from the
functions' own source: the same operations in the same order, hence the same bits, and the
functions stay the one statement of each rule and closed form (the batch path compiles the
very same functions).

The rewrite only renames. Each parameter becomes the argument's name; each local gets a
prefix; every other name (a module constant, ``math``, a helper, a builtin) becomes a prefixed
name bound to its value when the constructor is compiled (as numba binds globals). Anything
else (branches, loops, nested scopes, ``global``, assignments to items or attributes, an early
``return``, a builtin that reads its frame) is not inlined, nor is a function whose source is
not the code that runs (a closure, a wrapper, a file edited since it was imported): the caller
keeps the call.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import textwrap
import types
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

__all__ = ["Inlined", "NotStraightLine", "StraightLine", "inline_call", "straight_line"]


class NotStraightLine(ValueError):
    """A function :func:`straight_line` does not take (the message says why)."""


class StraightLine(NamedTuple):
    """A straight-line function's own ``definition`` (parsed anew, annotations and
    decorators-free), its ``body`` (the assignments, docstring left out) and ``result`` (the
    final ``return``'s expression)."""

    definition: ast.FunctionDef
    body: list[ast.Assign | ast.AugAssign]
    result: ast.expr


class Inlined(NamedTuple):
    """What :func:`inline_call` wrote: ``statements`` (source lines, no indentation) that
    compute ``result`` (an expression over the arguments' names and the statements' names),
    with ``bindings`` (prefixed name -> value) to define before them."""

    statements: list[str]
    result: str
    bindings: dict[str, Any]


#: Builtins that read the frame they are called in: in place, they would read the caller's.
_FRAME_READERS = frozenset({"locals", "vars", "globals", "eval", "exec", "dir", "super"})

#: Nodes that open a scope, branch, or reach outside the statements: not inlined.
_REFUSED = (
    ast.Lambda,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
    ast.NamedExpr,
    ast.Yield,
    ast.YieldFrom,
    ast.Await,
    ast.Starred,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Global,
    ast.Nonlocal,
)


def inline_call(
    function: Callable[..., Any], arguments: Sequence[str], prefix: str
) -> Inlined | None:
    """``function(*arguments)`` (``arguments``: names of locals) as statements over the
    arguments and names that start with ``prefix`` (none of the arguments may), or None when
    ``function`` is not a plain straight-line function of exactly ``len(arguments)`` positional
    parameters whose source is the code that runs (then call it)."""
    if any(argument.startswith(prefix) for argument in arguments):
        return None
    try:
        definition, body, returned = straight_line(function)
    except NotStraightLine:
        return None
    if len(definition.args.args) != len(arguments):
        return None  # a default the call would use, or a wrong count

    parameters = [a.arg for a in definition.args.args]
    assigned = {
        node.id
        for statement in body
        for node in ast.walk(statement)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
    }
    renames: dict[str, str] = {}
    statements: list[str] = []
    for parameter, argument in zip(parameters, arguments, strict=True):
        if parameter in assigned:  # reassigned in the body: work on a copy of the argument
            renames[parameter] = f"{prefix}{parameter}"
            statements.append(f"{prefix}{parameter} = {argument}")
        else:
            renames[parameter] = argument
    for name in assigned - set(parameters):
        renames[name] = f"{prefix}{name}"
    bindings: dict[str, Any] = {}
    namespace = function.__globals__
    for node in (node for part in (*body, returned) for node in ast.walk(part)):
        if isinstance(node, ast.Name) and node.id not in renames:
            if node.id in _FRAME_READERS:
                return None  # it would read the caller's frame, not its own
            if node.id in namespace:
                value = namespace[node.id]
            elif hasattr(builtins, node.id):
                value = getattr(builtins, node.id)
            else:
                return None  # a name the function would not find either: let it raise
            renames[node.id] = f"{prefix}g_{node.id}"
            bindings[renames[node.id]] = value
    if len(set(renames.values())) != len(renames):
        return None  # two names renamed alike (a local g_x beside a global x)

    class _Rename(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.Name:
            return ast.copy_location(ast.Name(renames[node.id], node.ctx), node)

    rename = _Rename()
    statements += [ast.unparse(rename.visit(statement)) for statement in body]
    result = ast.unparse(rename.visit(returned))
    return Inlined(statements, result, bindings)


def straight_line(function: Callable[..., Any]) -> StraightLine:
    """``function``'s own ``def``, parsed from its source, when it is straight-line (positional
    parameters; assignments to names, then one ``return``; no branch, loop or nested scope)
    and that source is the code that runs: a plain function (no closure, no wrapper), whose
    source, compiled again, gives its very code (not a file edited since it was imported).
    :class:`NotStraightLine` otherwise, and for a builtin, a lambda or a function made at run
    time. The numpy engine's vectoriser and :func:`inline_call` both read functions through
    it."""
    code = getattr(function, "__code__", None)
    if code is None or not hasattr(function, "__globals__"):
        raise NotStraightLine(f"{function!r} is not a Python function")
    if code.co_freevars or hasattr(function, "__wrapped__"):
        raise NotStraightLine("a closure or a wrapper: its source is not all it runs")
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    except (OSError, TypeError, SyntaxError) as exc:
        raise NotStraightLine(f"no source for {function!r}") from exc
    node = tree.body[0] if len(tree.body) == 1 else None
    if not isinstance(node, ast.FunctionDef) or node.decorator_list or node.name != code.co_name:
        raise NotStraightLine("not a plain function")
    arguments = node.args
    if arguments.posonlyargs or arguments.kwonlyargs or arguments.vararg or arguments.kwarg:
        raise NotStraightLine("only positional parameters")
    *body, last = node.body
    if body and _is_docstring(body[0]):
        body = body[1:]
    if not isinstance(last, ast.Return) or last.value is None:
        raise NotStraightLine("only assignments and one final return")
    for statement in body:
        if not isinstance(statement, ast.Assign | ast.AugAssign):
            raise NotStraightLine("only assignments and one final return")
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        if not all(_names_only(target) for target in targets):
            raise NotStraightLine("an item or attribute assigned (it could change an argument)")
    if any(isinstance(part, _REFUSED) for part in ast.walk(ast.Module(node.body, []))):
        raise NotStraightLine("a nested scope or a global name")
    node.returns, node.args = None, _without_annotations(node.args)  # annotations: not code
    module = compile(ast.Module([node], type_ignores=[]), code.co_filename, "exec")
    again = next(c for c in module.co_consts if isinstance(c, types.CodeType))
    if (again.co_code, again.co_consts, again.co_names, again.co_varnames) != (
        code.co_code,
        code.co_consts,
        code.co_names,
        code.co_varnames,
    ):
        raise NotStraightLine("its source is not the code that runs (edited since imported?)")
    return StraightLine(node, body, last.value)


def _without_annotations(arguments: ast.arguments) -> ast.arguments:
    for argument in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs):
        argument.annotation = None
    return arguments


def _is_docstring(statement: ast.stmt) -> bool:
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )


def _names_only(target: ast.expr) -> bool:
    if isinstance(target, ast.Name):
        return True
    if isinstance(target, ast.Tuple | ast.List):
        return all(_names_only(element) for element in target.elts)
    return False
