"""The shape registry and the body contract every shape shares.

- Each public class's signature and defaults equal its specification's (the classes are written
  out by hand for IDEs; this keeps them honest).
- Error codes follow the rule tables; every rule of every shape can be broken and is reported
  under its own parameter.
- One body, one tensor: ``inertia`` is ``mass_properties.inertia`` bit for bit.
- ``mass=`` as the third way to give the material, and two of three is an error naming both.
- Shapes without an axis, without frame_b, with radial frames, or with a general (tier 2)
  closed form are expressible: throwaway specifications built here (not registered).
"""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import rigidparts as rp
from rigidparts import component
from rigidparts.bodies import body_class
from rigidparts.component import Component
from rigidparts.frames import FRAME_RULES
from rigidparts.inertia import MassProperties
from rigidparts.materials import DEFAULT_MATERIAL
from rigidparts.shapes import (
    COMMON_RULES,
    SHAPES,
    Param,
    Rule,
    ShapeSpec,
    get_shape,
    rule_codes,
)

# -- the registry ------------------------------------------------------------------------------


def test_registry_holds_the_shapes_in_order() -> None:
    assert {"box", "cone"} <= set(SHAPES)
    assert list(SHAPES) == sorted(SHAPES)
    for name, spec in SHAPES.items():
        assert spec.name == name
        assert get_shape(name) is spec


def test_unknown_shape_is_a_clear_error() -> None:
    with pytest.raises(rp.ParameterError) as info:
        get_shape("sphere")
    assert str(info.value) == f"shape='sphere': must be one of {', '.join(SHAPES)}"
    with pytest.raises(rp.ParameterError, match="must be one of"):
        body_class("sphere")


@pytest.mark.parametrize("name", list(SHAPES))
def test_every_keyword_reaches_its_own_dimension(name: str, monkeypatch) -> None:
    """Each class hands its keywords to ``_build`` in ``spec.params`` order and in the right
    slots: a distinct token given for each keyword arrives in its own place."""
    spec = SHAPES[name]
    seen: list[tuple] = []
    monkeypatch.setattr(
        Component, "_build", lambda self, *args, **kwargs: seen.append((args, kwargs))
    )
    tokens = {key: object() for key in spec.signature_defaults()}
    body_class(name)(**tokens)
    ((args, kwargs),) = seen
    assert args[0] == tuple(tokens[p] for p in spec.parameter_names)
    named = dict(zip(("material", "density", "mass", "axis", "rotate90", "height_direction"),
                     args[1:], strict=False))  # fmt: skip
    named.update(kwargs)
    for key, token in tokens.items():
        if key in spec.parameter_names:
            continue
        slot = "extra_frames" if key == spec.frames_keyword else key
        assert named[slot] is token, key


@pytest.mark.parametrize("name", list(SHAPES))
def test_class_signature_equals_specification(name: str) -> None:
    spec = SHAPES[name]
    cls = body_class(name)
    assert cls.spec is spec
    parameters = inspect.signature(cls).parameters
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in parameters.values())
    signature = {k: p.default for k, p in parameters.items()}
    assert list(signature) == list(spec.signature_defaults())
    for key, default in spec.signature_defaults().items():
        assert signature[key] == default, key
        assert type(signature[key]) is type(default), key
    if spec.mass_only:
        assert "material" not in signature and "density" not in signature
    else:
        assert signature["material"] is DEFAULT_MATERIAL


def test_example_kwargs_are_the_example_over_the_defaults() -> None:
    """``example`` (a mapping, or a function called only when asked) over the defaults."""
    import dataclasses

    box = SHAPES["box"]
    assert box.example_kwargs() == box.defaults
    calls = []

    def example() -> dict:
        calls.append(1)
        return {"length": 2.0}

    lazy = dataclasses.replace(box, name="lazy_box", example=example)
    assert calls == []  # registering a shape builds no example
    assert lazy.example_kwargs() == {**box.defaults, "length": 2.0} and calls == [1]
    fixed = dataclasses.replace(box, name="fixed_box", example={"width": 0.3})
    assert fixed.example_kwargs() == {**box.defaults, "width": 0.3}


@pytest.mark.parametrize("name", list(SHAPES))
def test_every_example_gives_every_parameter_a_value(name: str) -> None:
    example = SHAPES[name].example_kwargs()
    assert list(example) == list(SHAPES[name].parameter_names)
    optional = {p.name for p in SHAPES[name].params if p.kind == "pose"}  # None: frame_a
    assert all(value is not None for key, value in example.items() if key not in optional)


@pytest.mark.parametrize("name", list(SHAPES))
def test_specification_is_consistent(name: str) -> None:
    spec = SHAPES[name]
    assert spec.all_rules == spec.rules + COMMON_RULES
    assert spec.summary and all(p.help for p in spec.params)
    # The default body is valid and evaluates through its tier.
    body = body_class(name)(**spec.example_kwargs())
    assert body.mass > 0.0
    # Common rules: the frame rules are the frames module's, in order.
    first = spec.common_code("frame") - 1
    assert [(r.parameter, r.text) for r in spec.all_rules[first : first + 4]] == list(FRAME_RULES)
    assert spec.all_rules[spec.common_code("density") - 1].parameter == "density"
    assert spec.all_rules[spec.common_code("mass") - 1].parameter == "mass"
    assert spec.all_rules[spec.common_code("unrepresentable") - 1].parameter == "dimensions"


@pytest.mark.parametrize("name", list(SHAPES))
def test_every_rule_reports_its_own_parameter(name: str) -> None:
    """Each code ``check`` can return names the rule at that index: break each rule alone."""
    spec = SHAPES[name]
    defaults = spec.defaults
    seen = set()
    for param in spec.params:
        for bad in (-1.0, math.nan, math.inf, 0.0, 1e3):
            dims = dict(defaults, **{param.name: bad})
            code = spec.check(*dims.values())
            if code:
                seen.add(code)
                assert 1 <= code <= len(spec.rules)
                with pytest.raises(rp.ParameterError) as info:
                    body_class(name)(**dims)
                assert info.value.parameter == spec.rules[code - 1].parameter
    assert seen, "no rule could be broken"


def test_rule_codes_follow_the_table() -> None:
    rules = (Rule("a", "x"), Rule("b", "y"), Rule("a", "z"))
    assert list(rule_codes(rules)) == [1, 2, 3]
    from rigidparts.shapes import box, cone

    assert box.LENGTH_POSITIVE == 1 and box.SOME_MATERIAL == len(box.RULES)
    assert cone.SOME_MATERIAL == len(cone.RULES)
    assert box.RULES[box.INNER_HEIGHT_FITS - 1].parameter == "inner_height"
    assert cone.RULES[cone.INNER_RADIUS_B_FITS - 1].parameter == "inner_radius_b"


# -- one body, one tensor ----------------------------------------------------------------------

positive = st.floats(1e-3, 1e3)
fraction = st.floats(0.0, 1.0)
axes = st.tuples(*(st.floats(-1.0, 1.0) for _ in range(3))).filter(
    lambda v: max(abs(x) for x in v) > 1e-3
)


@given(length=positive, ra=positive, rb=positive, fa=fraction, fb=fraction, axis=axes)
def test_cone_inertia_is_the_mass_properties_tensor(length, ra, rb, fa, fb, axis) -> None:
    cone = rp.Cone(
        length=length,
        radius_a=ra,
        radius_b=rb,
        inner_radius_a=fa * ra * 0.999,
        inner_radius_b=fb * rb * 0.999,
        axis=axis,
    )
    assert cone.inertia is cone.mass_properties.inertia
    assert np.array_equal(cone.inertia, cone.mass_properties.inertia)


def test_inertia_bit_equal_over_thousands_of_random_bodies() -> None:
    rng = np.random.default_rng(20261202)
    for _ in range(2000):
        axis = tuple(rng.normal(size=3))
        box = rp.Box(
            length=float(rng.uniform(0.01, 2)),
            width=float(rng.uniform(0.01, 2)),
            height=float(rng.uniform(0.01, 2)),
            axis=axis,
            rotate90=bool(rng.integers(2)),
        )
        # The tensor a fresh MassProperties would build from the exact principal data.
        rebuilt = MassProperties.from_principal(
            box.mass, box.center_of_mass, box._canonical_moments, box.rotation_from_canonical
        )
        assert box.inertia.tobytes() == box.mass_properties.inertia.tobytes()
        assert rebuilt.inertia.tobytes() == box.inertia.tobytes()
        assert np.array_equal(rebuilt.principal_moments, box.principal_moments)


# -- mass as the third way ---------------------------------------------------------------------


@pytest.mark.parametrize("name", list(SHAPES))
def test_mass_round_trips(name: str) -> None:
    cls = body_class(name)
    given = SHAPES[name].example_kwargs()
    body = cls(mass=2, **given)
    assert body.mass == 2.0
    if SHAPES[name].mass_only:  # no volume, no density: the mass is all there is
        assert body.density is None and body.volume is None
        assert cls(mass="2500 g", **given).mass == pytest.approx(2.5, rel=1e-15)
        return
    assert body.density == 2.0 / body.volume
    assert body.material is None
    assert body.parameters()["mass"] == 2.0
    again = cls(**{k: v for k, v in body.parameters().items() if k != "shape"})
    assert again.mass == 2.0 and again.inertia.tobytes() == body.inertia.tobytes()
    if given.get("materials"):  # per-solid densities (a STEP body's): one for all is refused
        with pytest.raises(rp.ParameterError, match="per-solid materials"):
            cls(density=body.density, **given)
    else:  # the same body by its density has the same moments to rounding
        by_density = cls(density=body.density, **given)
        np.testing.assert_allclose(by_density.inertia, body.inertia, rtol=4e-16, atol=0)
    assert cls(mass="2500 g", **given).mass == pytest.approx(2.5, rel=1e-15)


@pytest.mark.parametrize("name", [name for name, spec in SHAPES.items() if not spec.mass_only])
@pytest.mark.parametrize(
    ("kwargs", "named", "other"),
    [
        ({"material": "steel", "mass": 2}, "mass", "material"),
        ({"density": 1000, "mass": 2}, "mass", "density"),
        ({"material": "aluminium", "density": 1000}, "density", "material"),
        ({"material": "steel", "density": 1000, "mass": 2}, "density", "material"),
    ],
)
def test_two_of_material_density_mass_is_an_error(name, kwargs, named, other) -> None:
    with pytest.raises(rp.ParameterError) as info:
        body_class(name)(**kwargs)
    assert info.value.parameter == named
    assert other in str(info.value) and named in str(info.value)


@pytest.mark.parametrize("mass", [0, -1.0, math.nan, math.inf, "3 m"])
def test_bad_mass(mass) -> None:
    with pytest.raises(rp.ParameterError) as info:
        rp.Cone(mass=mass)
    assert info.value.parameter == "mass"


def test_mass_whose_density_overflows_is_unrepresentable() -> None:
    with pytest.raises(rp.ParameterError, match="beyond what float64 holds"):
        rp.Box(length=1e-300, width=1e-10, height=1e-10, mass=1.0)


# -- shapes the seeds do not exercise ----------------------------------------------------------


def _sphere_closed_form(radius: float, density: float) -> tuple[float, ...]:
    volume = 4.0 / 3.0 * math.pi * radius**3
    mass = density * volume
    moment = 0.4 * mass * radius * radius
    return volume, mass, 0.0, moment, moment, moment


def _sphere_check(radius: float) -> int:
    return 0 if 0.0 < radius < math.inf else 1


SPHERE = ShapeSpec(
    name="test_sphere",
    summary="a throwaway solid sphere",
    params=(Param("radius", 1.0, "radius (m)"),),
    rules=(Rule("radius", "must be positive and finite (m)"),),
    check=_sphere_check,
    closed_form=_sphere_closed_form,
    axis=False,
    end_frame=None,
    extra_frames=None,
)


class _Sphere(Component):
    spec = SPHERE

    def __init__(self, *, radius=1.0, material=DEFAULT_MATERIAL, density=None, mass=None):
        self._build_from(locals())


def test_a_shape_without_axis_or_frame_b() -> None:
    assert list(SPHERE.signature_defaults()) == ["radius", "material", "density", "mass"]
    ball = _Sphere(radius=0.5, density=1000.0)
    assert list(ball.frames) == ["frame_a", "frame_com"]
    assert np.array_equal(ball.center_of_mass, np.zeros(3))
    assert ball.mass == pytest.approx(1000.0 * 4 / 3 * math.pi * 0.125, rel=1e-15)
    np.testing.assert_array_equal(ball.rotation_from_canonical, np.eye(3))
    assert "axis" not in ball.parameters()
    with pytest.raises(rp.ParameterError, match="radius"):
        _Sphere(radius=-1)


RADIAL = ShapeSpec(
    name="test_disk",
    summary="a throwaway disk with radial frames",
    params=(Param("radius", 1.0, "radius (m)"), Param("thickness", 0.1, "thickness (m)")),
    rules=(Rule("radius", "must be positive"), Rule("thickness", "must be positive")),
    check=lambda r, t: 0 if r > 0 else (1 if t > 0 else 2),
    closed_form=lambda r, t, rho: (
        math.pi * r * r * t,
        rho * math.pi * r * r * t,
        0.0,
        0.5 * rho * math.pi * r**4 * t,
        rho * math.pi * r * r * t * (3 * r * r + t * t) / 12,
        rho * math.pi * r * r * t * (3 * r * r + t * t) / 12,
    ),
    end_frame=None,
    extra_frames="radial",
)


class _Disk(Component):
    spec = RADIAL

    def __init__(
        self, *, radius=1.0, thickness=0.1, axis=(1, 0, 0), material=DEFAULT_MATERIAL,
        density=None, mass=None, extra_frames=(),
    ):  # fmt: skip
        self._build_from(locals())


@pytest.mark.parametrize(
    ("axis", "h", "w"),
    [((1, 0, 0), (0, 1, 0), (0, 0, 1)), ((0, 1, 0), (0, 0, 1), (1, 0, 0)),
     ((0, 0, 1), (1, 0, 0), (0, 1, 0))],
)  # fmt: skip
def test_radial_frames(axis, h, w) -> None:
    disk = _Disk(axis=axis, extra_frames=[(0.5, "90 deg"), (0.25, 0.0), ("100 mm", math.pi)])
    frames = disk.frames
    assert list(frames) == ["frame_a", "frame_com", "frame_c1", "frame_c2", "frame_c3"]
    np.testing.assert_allclose(frames["frame_c1"].position, 0.5 * np.array(w), atol=1e-16)
    np.testing.assert_allclose(frames["frame_c2"].position, 0.25 * np.array(h), atol=0)
    np.testing.assert_allclose(frames["frame_c3"].position, -0.1 * np.array(h), atol=2e-17)
    # Rotated about the axis by the angle: the frame's h-axis image points along w.
    rotation = frames["frame_c1"].rotation
    np.testing.assert_allclose(rotation @ np.array(h), np.array(w), atol=1e-16)
    np.testing.assert_allclose(rotation @ np.array(axis), np.array(axis), atol=1e-16)
    np.testing.assert_allclose(rotation @ rotation.T, np.eye(3), atol=1e-15)
    assert np.linalg.det(rotation) == pytest.approx(1.0, rel=1e-15)
    np.testing.assert_array_equal(frames["frame_c2"].rotation, np.eye(3))
    assert disk.parameters()["extra_frames"][0] == [0.5, pytest.approx(math.pi / 2, rel=1e-15)]


@pytest.mark.parametrize(
    "bad", [[0.5], [(0.5,)], [(-1.0, 0.0)], [(0.5, math.nan)], [(0.5, "3 m")], "0.5"]
)
def test_bad_radial_frames(bad) -> None:
    with pytest.raises(rp.ParameterError, match="extra_frames"):
        _Disk(extra_frames=bad)


def _offset_cube_general(dimensions, density):
    """A cube of side a with its centre at (a, a/2, 0) in C: tier 2 (centre off the axis)."""
    a = dimensions["side"]
    volume = a**3
    moment = density * volume * a * a / 6.0
    return volume, MassProperties(density * volume, (a, 0.5 * a, 0.0), moment * np.eye(3))


GENERAL = ShapeSpec(
    name="test_general",
    summary="a throwaway tier-2 shape",
    params=(Param("side", 1.0, "side (m)"),),
    rules=(Rule("side", "must be positive"),),
    check=lambda a: 0 if 0 < a < math.inf else 1,
    general_form=_offset_cube_general,
    end_frame=None,
    extra_frames=None,
)


class _General(Component):
    spec = GENERAL

    def __init__(self, *, side=1.0, axis=(1, 0, 0), material=DEFAULT_MATERIAL, density=None,
                 mass=None):  # fmt: skip
        self._build_from(locals())


def test_a_general_tier_shape_is_rotated_into_frame_a() -> None:
    assert GENERAL.tier == 2
    body = _General(side=2.0, axis=(0, 1, 0), density=1.0)
    # C's x is +y, C's y (height) is +z, C's z is +x: (2, 1, 0) in C is (0, 2, 1) in A.
    np.testing.assert_allclose(body.center_of_mass, [0.0, 2.0, 1.0], atol=1e-15)
    assert body.mass == 8.0
    np.testing.assert_allclose(body.inertia, 8.0 * 4.0 / 6.0 * np.eye(3), rtol=1e-15, atol=0)
    assert body.frames["frame_com"] == rp.Frame(body.center_of_mass)
    by_mass = _General(side=2.0, mass=4.0)
    assert by_mass.mass == 4.0 and by_mass.density == 0.5


def test_a_spec_must_have_exactly_one_tier() -> None:
    with pytest.raises(TypeError, match="exactly one"):
        ShapeSpec(
            name="x",
            summary="x",
            params=(Param("a", 1.0, "a"),),
            rules=(),
            check=lambda a: 0,
        )
    with pytest.raises(TypeError, match="unknown"):
        ShapeSpec(
            name="x",
            summary="x",
            params=(Param("a", 1.0, "a"),),
            rules=(Rule("b", "?"),),
            check=lambda a: 0,
            closed_form=lambda a, rho: (1.0, rho, 0.0, 1.0, 1.0, 1.0),
        )


# -- the plain constructor: every tool sees the shape's own lines ---------------------------------


def test_build_reads_only_the_keywords() -> None:
    class _Tagged(Component):
        spec = SPHERE

        def __init__(self, *, radius=1.0, material=DEFAULT_MATERIAL, density=None, mass=None,
                     color="red"):  # fmt: skip
            tag = color.upper()  # a local of the subclass's own, not read
            self._build_from(locals())

    plain, tagged = _Sphere(radius=0.5, mass="2 kg"), _Tagged(radius=0.5, mass="2 kg")
    assert tagged.mass == plain.mass == 2.0
    assert tagged.inertia.tobytes() == plain.inertia.tobytes()


def test_a_subclass_naming_another_specification_is_built_by_it() -> None:
    import dataclasses

    def doubled(radius: float, density: float) -> tuple[float, ...]:
        volume, mass, com, i0, i1, i2 = _sphere_closed_form(radius, density)
        return volume, 2.0 * mass, com, 2.0 * i0, 2.0 * i1, 2.0 * i2

    heavy = dataclasses.replace(SPHERE, name="test_heavy_sphere", closed_form=doubled)

    class _Heavy(_Sphere):  # the parent's signature, another specification
        spec = heavy

    body, plain = _Heavy(radius=0.5, density=1000.0), _Sphere(radius=0.5, density=1000.0)
    assert body.shape == "test_heavy_sphere"
    assert body.mass == 2.0 * plain.mass
    assert body.inertia.tobytes() == (2.0 * plain.inertia).tobytes()


def test_no_source_is_generated_at_run_time() -> None:
    """Every function a body runs is a function of a real file: nothing made by exec."""
    import linecache

    for name, spec in SHAPES.items():
        body_class(name)(**spec.example_kwargs())
        assert inspect.getsourcefile(body_class(name).__init__).endswith("bodies.py")
    assert not [f for f in linecache.cache if "constructor" in f]
    assert not hasattr(component, "constructor") and not hasattr(component, "_compile")


def _lines_run(function, code_of) -> set[int]:
    """The line numbers of ``code_of`` (a function) that ran while ``function()`` ran, as a
    line tracer (the mechanism of coverage.py and pdb) sees them."""
    import sys

    target = code_of.__code__
    seen: set[int] = set()

    def tracer(frame, event, arg):
        if frame.f_code is target and event == "line":
            seen.add(frame.f_lineno)
        return tracer

    old = sys.gettrace()
    sys.settrace(tracer)
    try:
        function()
    finally:
        sys.settrace(old)
    return seen


def _statement_lines(function) -> list[int]:
    """The file line numbers of ``function``'s top-level statements (docstring left out)."""
    import ast
    import textwrap

    source, first = inspect.getsourcelines(function)
    definition = ast.parse(textwrap.dedent("".join(source))).body[0]
    body = definition.body
    if isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return [first + statement.lineno - 1 for statement in body]


@pytest.mark.parametrize("name", [n for n, s in SHAPES.items() if s.closed_form is not None])
def test_a_line_tracer_sees_the_closed_form_and_the_check_run(name: str) -> None:
    """Coverage and a breakpoint (both line tracers) see every statement of the shape's own
    ``closed_form`` and ``check`` run when one body is built."""
    spec = SHAPES[name]
    cls = body_class(name)
    for function in (spec.closed_form, spec.check):
        lines = _lines_run(lambda cls=cls: cls(**spec.example_kwargs()), function)
        assert set(_statement_lines(function)) <= lines, function.__qualname__


def test_a_breakpoint_in_a_closed_form_is_hit() -> None:
    """pdb stops in the shape's closed form: ``break cone.py:<line>``, then ``continue``."""
    import io
    import pdb

    from rigidparts.shapes import cone

    line = _statement_lines(cone.closed_form)[0]
    commands = io.StringIO(f"break {cone.__file__}:{line}\ncontinue\nwhere\ncontinue\n")
    out = io.StringIO()
    debugger = pdb.Pdb(stdin=commands, stdout=out, nosigint=True, readrc=False)
    debugger.use_rawinput = False
    debugger.runcall(lambda: rp.Cone(length=0.5))
    text = out.getvalue()
    assert "Breakpoint 1 at" in text
    assert f"cone.py({line})closed_form()" in text, text[-2000:]


def test_tracebacks_and_the_profiler_show_the_shapes_lines() -> None:
    import cProfile
    import pstats
    import traceback

    from rigidparts.shapes import box

    with pytest.raises(rp.ParameterError) as info:
        rp.Box(length=-1.0)
    text = "".join(traceback.format_exception(info.value))
    assert "component.py" in text and "raise _refusal(" in text
    profiler = cProfile.Profile()
    profiler.runcall(lambda: [rp.Box(length=0.5) for _ in range(10)])
    stats = pstats.Stats(profiler).stats
    ran = {(path, name): entry[1] for (path, _, name), entry in stats.items()}
    assert ran[(box.__file__, "closed_form")] == 10
    assert ran[(box.__file__, "check")] == 10


@pytest.mark.parametrize("copier", ["pickle", "deepcopy"])
def test_copied_bodies_keep_their_arrays_read_only(copier: str) -> None:
    import copy
    import pickle

    body = rp.Cone(length=0.3, radius_a=0.05, radius_b=0.02, axis=(0, 1, 1))
    body.mass_properties.principal_axes  # noqa: B018  (made, so copied too)
    again = pickle.loads(pickle.dumps(body)) if copier == "pickle" else copy.deepcopy(body)
    assert again.inertia.tobytes() == body.inertia.tobytes()
    assert again.inertia is again.mass_properties.inertia
    props = again.mass_properties
    for array in (again.inertia, again.axis, props.center_of_mass, props.principal_axes):
        assert not array.flags.writeable
    with pytest.raises(AttributeError):
        again.length = 1.0  # type: ignore[misc]
