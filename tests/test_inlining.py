"""Inlined statements compute what the call computes, bit for bit (the compiled constructors
write a shape's ``check``, ``closed_form`` and the representability rule in place).

- Every registered tier-1 shape's ``check`` and ``closed_form`` and ``results_representable``
  inline, and the statements give the call's very result on random and edge inputs.
- What cannot be inlined safely is left a call: branches, loops, nested scopes, ``global``,
  item assignment, an early return, other signatures, an unknown name.
- A reassigned parameter does not change the caller's variable; builtins and module names are
  bound to their values when inlined.
"""

from __future__ import annotations

import functools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rigidparts as rp
from rigidparts.inlining import NotStraightLine, inline_call, straight_line
from rigidparts.shapes import SHAPES, Param, Rule, ShapeSpec, results_representable

TIER1 = sorted(name for name, spec in SHAPES.items() if spec.tier == 1)
EDGES = [0.0, -0.0, 5e-324, 1e-300, 0.1, 1.0, 3.0, 1e300, math.inf, -math.inf, math.nan, -1.0]


@functools.cache
def _compiled(function, count: int) -> tuple:
    arguments = [f"a{i}" for i in range(count)]
    inlined = inline_call(function, arguments, "_x_")
    assert inlined is not None, function
    source = "\n".join([*inlined.statements, f"_result = {inlined.result}"])
    return arguments, inlined.bindings, compile(source, "<inlined>", "exec")


def run_inlined(function, values: tuple) -> object:
    """Execute the inlined statements with locals a0, a1, ... holding ``values``."""
    arguments, bindings, code = _compiled(function, len(values))
    namespace = {**bindings, **dict(zip(arguments, values, strict=True))}
    exec(code, {}, namespace)
    return namespace["_result"]


def same(a: object, b: object) -> bool:
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or (
            a == b and math.copysign(1, a) == math.copysign(1, b)
        )
    return a == b and type(a) is type(b)


def _values(count: int) -> st.SearchStrategy[tuple]:
    value = st.one_of(st.sampled_from(EDGES), st.floats(1e-6, 1e3), st.floats())
    return st.tuples(*[value] * count)


@pytest.mark.parametrize("name", TIER1)
@given(data=st.data())
@settings(max_examples=300)
def test_inlined_rules_and_closed_forms_are_the_calls(name: str, data) -> None:
    spec = SHAPES[name]
    dims = data.draw(_values(len(spec.params)))
    assert same(run_inlined(spec.check, dims), spec.check(*dims))
    density = data.draw(st.one_of(st.sampled_from(EDGES), st.floats(1.0, 2e4)))
    try:
        expected = spec.closed_form(*dims, density)
    except (ZeroDivisionError, OverflowError, ValueError) as error:  # the call raises: so must they
        with pytest.raises(type(error)):
            run_inlined(spec.closed_form, (*dims, density))
        return
    assert same(run_inlined(spec.closed_form, (*dims, density)), expected)


@given(_values(6))
@settings(max_examples=2000)
def test_inlined_representability_is_the_call(args) -> None:
    assert run_inlined(results_representable, args) == results_representable(*args)


# -- what is left a call ---------------------------------------------------------------------------

LIMIT = 2.0


def branching(x):
    if x > 0:
        return x
    return -x


def looping(x):
    total = 0.0
    for _ in range(3):
        total += x
    return total


def scoped(x):
    values = [x * k for k in range(3)]
    return values


def item_assigned(x):
    x[0] = 1.0
    return x


def global_statement(x):
    global LIMIT
    return x


def defaulted(x, y=1.0):
    return x + y


def keyword_only(x, *, y):
    return x + y


def unknown_name(x):
    return x + no_such_name  # noqa: F821


@pytest.mark.parametrize(
    "function",
    [branching, looping, scoped, item_assigned, global_statement, unknown_name, len,
     lambda x: x],
)  # fmt: skip
def test_what_is_not_straight_line_is_left_a_call(function) -> None:
    assert inline_call(function, ["a0"], "_x_") is None


def test_other_signatures_are_left_a_call() -> None:
    assert inline_call(defaulted, ["a0"], "_x_") is None  # a default the call would use
    assert inline_call(keyword_only, ["a0", "a1"], "_x_") is None
    assert inline_call(defaulted, ["a0", "a1"], "_x_") is not None  # every parameter given


def _closure(factor):
    def scaled(x):
        return factor * x

    return scaled


def _wrapper(function):
    @functools.wraps(function)
    def wrapped(x):
        return 2.0 * function(x)

    return wrapped


@_wrapper
def wrapped_double(x):
    return 2.0 * x


def frame_reader(x):
    return len(locals()) + x


g_math = 0.5


def clashing(x):
    g_math = x  # a local whose prefixed name is the prefixed global's
    return g_math + math.pi


def test_code_that_would_read_other_names_is_left_a_call() -> None:
    assert inline_call(_closure(3.0), ["a0"], "_x_") is None  # its cell, not a global
    assert inline_call(wrapped_double, ["a0"], "_x_") is None  # the source is not what runs
    assert inline_call(frame_reader, ["a0"], "_x_") is None
    assert inline_call(clashing, ["a0"], "_x_") is None
    assert inline_call(reassigning, ["_x_a", "a1"], "_x_") is None  # an argument's own name


def test_an_edited_source_is_left_a_call(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib
    import linecache

    path = tmp_path / "edited_form.py"
    path.write_text("def form(a, b):\n    return a * b\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("edited_form")
    assert inline_call(module.form, ["a0", "a1"], "_x_").result == "a0 * a1"
    path.write_text("def form(a, b):\n    return a + b\n")  # edited after the import
    linecache.checkcache(str(path))
    assert inline_call(module.form, ["a0", "a1"], "_x_") is None
    assert module.form(2.0, 3.0) == 6.0  # what runs is still the imported code


def reassigning(x, y):
    x = x * 2.0
    y += 1.0
    return min(x, y) + LIMIT


def test_reassigned_parameters_work_on_copies_and_names_are_bound() -> None:
    inlined = inline_call(reassigning, ["a0", "a1"], "_x_")
    assert inlined is not None
    assert inlined.bindings == {"_x_g_min": min, "_x_g_LIMIT": 2.0}
    namespace = {**inlined.bindings, "a0": 3.0, "a1": 4.0}
    exec("\n".join([*inlined.statements, f"_result = {inlined.result}"]), {}, namespace)
    assert namespace["_result"] == reassigning(3.0, 4.0) == 7.0
    assert (namespace["a0"], namespace["a1"]) == (3.0, 4.0)  # the caller's variables


def _branching_check(side: float) -> int:
    if 0.0 < side < math.inf:
        return 0
    return 1


def _cube(side: float, density: float) -> tuple[float, ...]:
    volume = side**3
    if volume > 0.0:  # not straight-line: called, not inlined
        mass = density * volume
    else:
        mass = 0.0
    moment = mass * side * side / 6.0
    return volume, mass, 0.5 * side, moment, moment, moment


def test_a_shape_whose_functions_branch_is_built_by_calls() -> None:
    cube_spec = ShapeSpec(
        name="test_branching_cube",
        summary="a cube with branching functions",
        params=(Param("side", 1.0, "side (m)"),),
        rules=(Rule("side", "must be positive and finite (m)"),),
        check=_branching_check,
        closed_form=_cube,
        end_frame="side",
        extra_frames=None,
    )

    class _Cube(rp.Component):
        spec = cube_spec

        def __init__(self, **kwargs) -> None:
            self._build(kwargs)

    cube = _Cube(side=2.0, density=1000.0)
    assert cube.mass == 8000.0 and cube.inertia[0, 0] == 8000.0 * 4.0 / 6.0
    with pytest.raises(rp.ParameterError, match=r"side=-1\.0: must be positive"):
        _Cube(side=-1.0)


def in_place_sum(x, y):
    x += y
    return x


@pytest.mark.parametrize(
    ("function", "reason"),
    [(branching, "assignments and one final return"), (scoped, "nested scope"),
     (item_assigned, "item or attribute"), (_closure(3.0), "closure"),
     (wrapped_double, "wrapper"), (len, "not a Python function")],
)  # fmt: skip
def test_straight_line_says_why_not(function, reason: str) -> None:
    with pytest.raises(NotStraightLine, match=reason):
        straight_line(function)


def test_the_numpy_vectoriser_reads_functions_the_same_way() -> None:
    from rigidparts.batch._numpy import NotVectorisable, vectorised

    for function in (_closure(3.0), wrapped_double, in_place_sum):  # x += y: in place
        with pytest.raises(NotVectorisable):
            vectorised(function)
    assert inline_call(in_place_sum, ["a0", "a1"], "_x_") is not None  # floats: no aliasing
