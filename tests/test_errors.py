"""Bad input of every kind: each raises rp.ParameterError (a ValueError) whose ``parameter`` is
the offending keyword and whose message names it, the value and the rule."""

from __future__ import annotations

import math

import pytest

import rigidparts as rp
from rigidparts.errors import MergeableWarning
from rigidparts.shapes import box as box_kernel
from rigidparts.shapes import cone as cone_kernel

BAD_ANY = {
    "negative": -0.5,
    "nan": math.nan,
    "inf": math.inf,
    "-inf": -math.inf,
    "nan_text": "nan",
    "text": "abc",
    "empty": "",
    "none": None,
    "bool": True,
    "list": [0.1],
    "tuple": (0.1, 0.2),
    "complex": 1 + 0j,
    "unparsable": "1/0 m",
}
WRONG_UNIT = {"length": "5 kg", "density": "3 m"}
POSITIVE = {"length", "width", "height", "density"}  # zero not allowed


def _cases(kernel) -> list[tuple[str, object]]:
    out = []
    for parameter in (*kernel.SPEC.parameter_names, "density"):
        kind = "density" if parameter == "density" else "length"
        values = {**BAD_ANY, "wrong_unit": WRONG_UNIT[kind]}
        if parameter in POSITIVE:
            values["zero"] = 0.0
            values["zero_text"] = "0 mm" if kind == "length" else "0 kg/m^3"
        if parameter == "density":
            values.pop("none")  # density=None means "use the material"
        out += [
            pytest.param(parameter, value, id=f"{parameter}-{key}") for key, value in values.items()
        ]
    return out


def _assert_names(info: pytest.ExceptionInfo, parameter: str | set[str]) -> None:
    error = info.value
    assert isinstance(error, ValueError)
    allowed = {parameter} if isinstance(parameter, str) else parameter
    assert error.parameter in allowed, (error.parameter, str(error))
    assert str(error).startswith(f"{error.parameter}=")
    assert error.rule and error.rule in str(error)


@pytest.mark.parametrize(("parameter", "value"), _cases(box_kernel))
def test_box_bad_scalar(parameter: str, value: object) -> None:
    with pytest.raises(rp.ParameterError) as info:
        rp.Box(**{parameter: value})
    _assert_names(info, parameter)


@pytest.mark.parametrize(("parameter", "value"), _cases(cone_kernel))
def test_cone_bad_scalar(parameter: str, value: object) -> None:
    with pytest.raises(rp.ParameterError) as info:
        rp.Cone(**{parameter: value})
    _assert_names(info, parameter)


@pytest.mark.parametrize(
    ("kwargs", "parameter", "mentions"),
    [
        ({"inner_width": 0.2}, "inner_width", "width=0.1"),
        ({"inner_height": "250 mm"}, "inner_height", "height=0.2"),
        ({"width": 0.05, "inner_width": 0.06}, "inner_width", "width=0.05"),
        ({"inner_width": math.nextafter(0.1, 1)}, "inner_width", "width=0.1"),  # by one ulp
        ({"inner_height": math.nextafter(0.2, 1)}, "inner_height", "height=0.2"),
    ],
)
def test_box_hole_larger_than_box(kwargs, parameter: str, mentions: str) -> None:
    with pytest.raises(rp.ParameterError) as info:
        rp.Box(**kwargs)
    _assert_names(info, parameter)
    assert mentions in str(info.value)


@pytest.mark.parametrize(
    ("kwargs", "parameter", "mentions"),
    [
        ({"inner_radius_a": 0.41}, "inner_radius_a", "radius_a=0.4"),
        ({"inner_radius_b": 0.2}, "inner_radius_b", "radius_b=0.1"),
        ({"radius_b": 0.0, "inner_radius_b": 1e-9}, "inner_radius_b", "radius_b=0.0"),
        ({"inner_radius_a": math.nextafter(0.4, 1)}, "inner_radius_a", "radius_a=0.4"),  # 1 ulp
        ({"inner_radius_b": math.nextafter(0.1, 1)}, "inner_radius_b", "radius_b=0.1"),
    ],
)
def test_cone_bore_larger_than_cone(kwargs, parameter: str, mentions: str) -> None:
    with pytest.raises(rp.ParameterError) as info:
        rp.Cone(**kwargs)
    _assert_names(info, parameter)
    assert mentions in str(info.value)


BOX_DIMENSIONS = set(box_kernel.SPEC.parameter_names)
CONE_DIMENSIONS = set(cone_kernel.SPEC.parameter_names)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"inner_width": 0.1, "inner_height": 0.2},
        {"width": "10 cm", "inner_width": 0.1, "inner_height": 0.2},
    ],
)
def test_box_zero_volume(kwargs) -> None:
    with pytest.raises(rp.ParameterError) as info:
        rp.Box(**kwargs)
    _assert_names(info, BOX_DIMENSIONS)
    assert "no material" in str(info.value)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"inner_radius_a": 0.4, "inner_radius_b": 0.1},  # no wall at either end
        {"radius_b": 0.0, "inner_radius_a": 0.4},  # a point at b, no wall at a
        {"radius_a": 0.0, "inner_radius_b": 0.1},  # a point at a, no wall at b
        {"radius_a": 0.0, "radius_b": 0.0},  # all radii zero
        {"radius_a": 0.3, "radius_b": 0.3, "inner_radius_a": 0.3, "inner_radius_b": 0.3},
    ],
)
def test_cone_zero_volume(kwargs) -> None:
    with pytest.raises(rp.ParameterError) as info:
        rp.Cone(**kwargs)
    _assert_names(info, CONE_DIMENSIONS)
    assert "no material" in str(info.value)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"radius_b": 0.0},  # pointed
        {"radius_a": 0.0},
        {"inner_radius_a": 0.4, "inner_radius_b": 0.05},  # zero wall at one end only
        {"radius_b": 0.0, "inner_radius_a": 0.39},
        {"radius_a": 0.3, "radius_b": 0.3, "inner_radius_a": 0.29, "inner_radius_b": 0.29},
    ],
)
def test_cone_valid_edge_cases(kwargs) -> None:
    cone = rp.Cone(**kwargs)
    assert cone.mass > 0 and cone.inertia[0, 0] > 0


@pytest.mark.parametrize(
    "axis",
    [
        (0, 0, 0),
        (0.0, -0.0, 0.0),
        (math.nan, 0, 0),
        (math.inf, 0, 0),
        (1, 0),
        (1, 0, 0, 0),
        "abc",
        "100",
        None,
        5.0,
        ("x", 0, 0),
        [[1, 0, 0]],
    ],
)
@pytest.mark.parametrize("cls", [rp.Box, rp.Cone])
def test_bad_axis(cls, axis) -> None:
    with pytest.raises(rp.ParameterError) as info:
        cls(axis=axis)
    _assert_names(info, "axis")


@pytest.mark.parametrize(
    ("axis", "height_direction"),
    [
        ((1, 0, 0), (2, 0, 0)),
        ((1, 0, 0), (-1, 0, 0)),
        ((1, 2, 3), (-2, -4, -6)),
        ((0, 0, 1), (0, 0, 1e-300)),
        ((1, 0, 0), (math.nan, 1, 0)),
        ((1, 0, 0), (math.inf, 1, 0)),
        ((1, 0, 0), "y"),
        ((1, 0, 0), (0, 1)),
        ((1, 0, 0), (0, 0, 0)),
    ],
)
def test_bad_height_direction(axis, height_direction) -> None:
    with pytest.raises(rp.ParameterError) as info:
        rp.Box(axis=axis, height_direction=height_direction)
    _assert_names(info, "height_direction")


@pytest.mark.parametrize("rotate90", ["yes", "True", 1, 0, None, 1.0])
def test_bad_rotate90(rotate90) -> None:
    with pytest.raises(rp.ParameterError) as info:
        rp.Box(rotate90=rotate90)
    _assert_names(info, "rotate90")


@pytest.mark.parametrize("cls", [rp.Box, rp.Cone])
@pytest.mark.parametrize("material", ["unobtainium", "", 3, None, ["steel"]])
def test_bad_material(cls, material) -> None:
    with pytest.raises(rp.ParameterError) as info:
        cls(material=material)
    _assert_names(info, "material")


def test_unknown_material_suggests_close_names() -> None:
    with pytest.raises(rp.ParameterError) as info:
        rp.Cone(material="stainles steal")
    assert "did you mean" in str(info.value)


@pytest.mark.parametrize("cls", [rp.Box, rp.Cone])
def test_material_and_density_together(cls) -> None:
    for material in ("steel", "aluminium"):
        with pytest.raises(rp.ParameterError) as info:
            cls(material=material, density=1000)
        _assert_names(info, {"density", "material"})
        assert "material" in str(info.value) and "density" in str(info.value)
    # density alone, or with material=None, is fine; so is a material alone
    assert cls(density=1000).density == 1000.0
    assert cls(density=1000).material is None
    assert cls(density=1000, material=None).density == 1000.0
    assert cls(material="aluminium").material == "aluminium"
    assert cls(material="steel").density == 7860.0


@pytest.mark.parametrize(
    ("extra_frames", "parameter"),
    [
        ([math.nan], "extra_frames[0]"),
        ([0.1, math.inf], "extra_frames[1]"),
        ([0.1, 0.2, "5 kg"], "extra_frames[2]"),
        (["abc"], "extra_frames[0]"),
        ([None], "extra_frames[0]"),
        ([True], "extra_frames[0]"),
        (0.25, "extra_frames"),
        (None, "extra_frames"),
        ("0.25", "extra_frames"),
    ],
)
@pytest.mark.parametrize("cls", [rp.Box, rp.Cone])
def test_bad_extra_frames(cls, extra_frames, parameter: str) -> None:
    with pytest.raises(rp.ParameterError) as info:
        cls(extra_frames=extra_frames)
    _assert_names(info, parameter)


@pytest.mark.parametrize(
    "kwargs", [{"length": 1e300}, {"length": 1e200, "radius_a": 1e200}, {"density": 1e308}]
)
def test_results_out_of_float_range(kwargs) -> None:
    """Finite inputs whose mass or inertia overflow float64 are refused, not returned as inf."""
    with pytest.raises(rp.ParameterError) as info:
        rp.Cone(**kwargs)
    assert "not finite" in str(info.value)
    assert next(iter(kwargs)) in str(info.value)


def test_keyword_only_and_unknown_keywords() -> None:
    with pytest.raises(TypeError):
        rp.Box(1.0)  # type: ignore[misc]
    with pytest.raises(TypeError):
        rp.Cone(radius=0.3)  # type: ignore[call-arg]


def test_error_types() -> None:
    error = rp.ParameterError("radius_a", -1.0, "must be non-negative", index=3)
    assert isinstance(error, ValueError)
    assert str(error) == "radius_a[3]=-1.0: must be non-negative"
    assert (error.parameter, error.value, error.rule, error.index) == (
        "radius_a",
        -1.0,
        "must be non-negative",
        3,
    )
    model = rp.ModelError("joints[1].parent", "x", "unknown body", source="m.toml", line=7)
    assert isinstance(model, rp.ParameterError)
    assert str(model) == "m.toml:7: joints[1].parent='x': unknown body"
    long_value = "x" * 500
    assert len(str(rp.ParameterError("p", long_value, "too long"))) < 120


class _Mergeable(MergeableWarning):
    """A warning that merges: its texts joined."""

    def __init__(self, text: str) -> None:
        self.text = text
        super().__init__(text)

    @classmethod
    def merged(cls, found):
        return [cls(" + ".join(w.text for w in found))]


def test_merged_warnings_hold_only_the_mergeable_and_merge_them_at_the_end() -> None:
    """``merged_warnings``: a warning without ``merged`` is shown as it comes, the mergeable
    ones once, merged, when the block ends, also when it fails; an ``error`` filter still
    raises at once."""
    import warnings

    from rigidparts.errors import merged_warnings

    shown: list[str] = []
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = lambda message, *args, **kwargs: shown.append(str(message))
        with merged_warnings():
            warnings.warn(_Mergeable("a"), stacklevel=1)
            warnings.warn("plain", stacklevel=1)
            assert shown == ["plain"]  # shown as it came; "a" held
            warnings.warn(_Mergeable("b"), stacklevel=1)
        assert shown == ["plain", "a + b"]
        shown.clear()
        with pytest.raises(RuntimeError, match="fails"), merged_warnings():
            warnings.warn(_Mergeable("c"), stacklevel=1)
            raise RuntimeError("fails")
        assert shown == ["c"]
        shown.clear()
        warnings.simplefilter("error", _Mergeable)
        with pytest.raises(_Mergeable), merged_warnings():
            warnings.warn(_Mergeable("d"), stacklevel=1)
        assert shown == []
