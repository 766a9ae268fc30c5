"""rigidparts.batch: many bodies at once, bit for bit the scalar path.

1. One kernel: every row of ``batch.cone`` / ``batch.box`` equals ``rp.Cone`` / ``rp.Box`` of
   that row's arguments to the last bit (mass, volume, centre of mass, inertia), on random
   bodies with walls down to 1e-12 of the radius, random axes, rotate90, explicit height
   directions, for both engines (numba and the numpy fallback) -- so numba neither contracts
   to FMA nor reorders. A property test (hypothesis) does the same on drawn bodies.
2. Independent references: rows against 50-digit mpmath evaluations (tests/reference.py) of
   the textbook outer-minus-inner formulas, thin walls included.
3. Arguments: broadcasting, units, materials, axis (3,) vs (N, 3), zero rows, bad shapes.
4. Invalid rows: the same parameter and rule as the scalar path, with the first index;
   ``on_invalid="mask"``.
5. Dask: a chunked sweep equals the numpy one bit for bit, lazily; errors carry global indices.
6. Output buffers are reused, never under a live result.
7. The registry: one function per tier-1 shape with the spec's signature, ``mass=`` rows
   (bit for bit ``rp.Box(..., mass=m)``), exact principal moments and axes (thin rods and
   tubes), ``batch[i]`` as the body's MassProperties, slices, and a throwaway 2-dimension shape
   compiled by the arity-generic kernel.
"""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import rigidparts as rp
from reference import box_reference, cone_reference, relative_error, rule_directions
from rigidparts import batch
from rigidparts.shapes import SHAPES

ENGINES = ["numba", "numpy"] if batch.ENGINE == "numba" else ["numpy"]
QUANTITIES = ("mass", "volume", "center_of_mass", "inertia")


def same_bits(a: object, b: object) -> bool:
    """Equal to the last bit (-0.0 and 0.0 differ; NaNs compare by payload)."""
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return x.shape == y.shape and x.tobytes() == y.tobytes()


def random_cones(n: int, seed: int) -> dict[str, np.ndarray]:
    """Hollow, solid, pointed and thin-walled cones (walls 1e-12..1 of the radius)."""
    rng = np.random.default_rng(seed)
    radius_a = rng.uniform(0.01, 1.0, n)
    radius_b = rng.uniform(0.01, 1.0, n)
    radius_b[rng.random(n) < 0.1] = 0.0  # pointed at frame_b
    fraction_a = 1.0 - 10.0 ** rng.uniform(-12, 0, n)
    fraction_b = 1.0 - 10.0 ** rng.uniform(-12, 0, n)
    solid = rng.random(n) < 0.2
    fraction_a[solid] = fraction_b[solid] = 0.0
    return {
        "length": 10.0 ** rng.uniform(-3, 2, n),
        "radius_a": radius_a,
        "radius_b": radius_b,
        "inner_radius_a": radius_a * fraction_a,
        "inner_radius_b": radius_b * fraction_b,
    }


def random_boxes(n: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    width = rng.uniform(0.01, 1.0, n)
    height = rng.uniform(0.01, 1.0, n)
    fraction_w = 1.0 - 10.0 ** rng.uniform(-12, 0, n)
    fraction_h = 1.0 - 10.0 ** rng.uniform(-12, 0, n)
    solid = rng.random(n) < 0.2
    fraction_w[solid] = fraction_h[solid] = 0.0
    return {
        "length": 10.0 ** rng.uniform(-3, 2, n),
        "width": width,
        "height": height,
        "inner_width": width * fraction_w,
        "inner_height": height * fraction_h,
    }


def random_axes(n: int, seed: int) -> np.ndarray:
    """Arbitrary directions and magnitudes, with exact world axes (both signs) mixed in."""
    rng = np.random.default_rng(seed)
    axes = rng.normal(size=(n, 3)) * 10.0 ** rng.uniform(-3, 3, (n, 1))
    world = np.concatenate([np.eye(3), -np.eye(3)])
    pick = rng.random(n) < 0.25
    axes[pick] = world[rng.integers(0, 6, pick.sum())] * rng.uniform(0.5, 5.0, (pick.sum(), 1))
    # Signed zeros: (-0.0, 0.0, 3.0) and the like must give the scalar path's bits as well.
    signed = (rng.random(n) < 0.1) & pick
    axes[signed] = np.where(axes[signed] == 0.0, -0.0, axes[signed])
    return axes


def assert_rows_match_scalar(result: batch.BatchMassProperties, bodies: list) -> None:
    for i, body in enumerate(bodies):
        for name in QUANTITIES:
            got, want = getattr(result, name)[i], getattr(body, name)
            assert same_bits(got, want), (i, name, got, want)


# -- 1. one kernel: bit for bit the scalar path ------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_cone_rows_equal_scalar_bit_for_bit(engine: str) -> None:
    n = 600
    dims = random_cones(n, seed=1)
    axes = random_axes(n, seed=2)
    density = np.random.default_rng(3).uniform(500.0, 20000.0, n)
    result = batch.cone(**dims, axis=axes, density=density, engine=engine)
    bodies = [
        rp.Cone(**{k: float(v[i]) for k, v in dims.items()}, axis=axes[i], density=density[i])
        for i in range(n)
    ]
    assert_rows_match_scalar(result, bodies)
    assert same_bits(result.density, density)
    assert result.valid.all()


@pytest.mark.parametrize("engine", ENGINES)
def test_cone_canonical_axis_and_material_bit_for_bit(engine: str) -> None:
    """The fast path (one shared axis, one material) gives the same bits too."""
    n = 400
    dims = random_cones(n, seed=4)
    result = batch.cone(**dims, material="aluminium", engine=engine)
    bodies = [
        rp.Cone(**{k: float(v[i]) for k, v in dims.items()}, material="aluminium") for i in range(n)
    ]
    assert_rows_match_scalar(result, bodies)
    assert np.all(result.density == bodies[0].density)


@pytest.mark.parametrize("engine", ENGINES)
def test_box_rows_equal_scalar_bit_for_bit(engine: str) -> None:
    n = 600
    rng = np.random.default_rng(5)
    dims = random_boxes(n, seed=6)
    axes = random_axes(n, seed=7)
    rotate90 = rng.random(n) < 0.5
    height = rng.normal(size=(n, 3))
    for explicit in (height, None):  # explicit height directions, or the rule
        result = batch.box(
            **dims, axis=axes, rotate90=rotate90, height_direction=explicit, engine=engine
        )
        bodies = [
            rp.Box(
                **{k: float(v[i]) for k, v in dims.items()},
                axis=axes[i],
                rotate90=bool(rotate90[i]),
                height_direction=None if explicit is None else explicit[i],
            )
            for i in range(n)
        ]
        assert_rows_match_scalar(result, bodies)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("rotate90", [False, True])
def test_box_shared_frame_bit_for_bit(engine: str, rotate90: bool) -> None:
    n = 200
    dims = random_boxes(n, seed=8)
    axis, height = (0.3, -2.0, 0.7), (1.0, 1.0, 0.0)
    result = batch.box(**dims, axis=axis, rotate90=rotate90, height_direction=height, engine=engine)
    bodies = [
        rp.Box(
            **{k: float(v[i]) for k, v in dims.items()},
            axis=axis,
            rotate90=rotate90,
            height_direction=height,
        )
        for i in range(n)
    ]
    assert_rows_match_scalar(result, bodies)


def test_engines_agree_bit_for_bit() -> None:
    if len(ENGINES) < 2:
        pytest.skip("numba is not installed")
    dims = random_cones(3000, seed=9)
    axes = random_axes(3000, seed=10)
    a = batch.cone(**dims, axis=axes, engine="numba")
    b = batch.cone(**dims, axis=axes, engine="numpy")
    for name in (*QUANTITIES, "error_codes"):
        assert same_bits(getattr(a, name), getattr(b, name)), name


def test_large_batch_uses_threads_and_matches_scalar() -> None:
    """Above the parallel threshold (threads over chunks): sampled rows still match."""
    n = 70_000
    dims = random_cones(n, seed=11)
    result = batch.cone(**dims)
    for i in range(0, n, 7919):
        body = rp.Cone(**{k: float(v[i]) for k, v in dims.items()})
        for name in QUANTITIES:
            assert same_bits(getattr(result, name)[i], getattr(body, name)), (i, name)


@given(
    length=st.floats(1e-3, 1e3),
    radius_a=st.floats(0.0, 10.0),
    radius_b=st.floats(0.0, 10.0),
    wall_a=st.floats(0.0, 1.0),
    wall_b=st.floats(0.0, 1.0),
    axis=st.tuples(*[st.floats(-1e3, 1e3)] * 3).filter(lambda v: max(map(abs, v)) > 1e-6),
)
def test_property_cone_row_is_the_scalar_body(
    length: float,
    radius_a: float,
    radius_b: float,
    wall_a: float,
    wall_b: float,
    axis: tuple[float, float, float],
) -> None:
    dims = {
        "length": length,
        "radius_a": radius_a,
        "radius_b": radius_b,
        "inner_radius_a": radius_a * (1.0 - wall_a),
        "inner_radius_b": radius_b * (1.0 - wall_b),
    }
    try:
        body = rp.Cone(**dims, axis=axis)
    except rp.ParameterError as expected:
        result = batch.cone(**dims, axis=axis, on_invalid="mask")
        assert result.errors()[0][1:] == (expected.parameter, expected.rule)
        return
    # The row in the middle of a small batch, next to unrelated rows.
    defaults = rp.Cone.spec.defaults
    rows = {k: [defaults[k], v, defaults[k]] for k, v in dims.items()}
    result = batch.cone(**rows, axis=[(0, 0, 1), axis, (1, 2, 3)])
    for name in QUANTITIES:
        assert same_bits(getattr(result, name)[1], getattr(body, name)), name


# -- 2. independent references -----------------------------------------------------------------


def test_cone_rows_against_50_digit_references() -> None:
    """Thin walls 1e-3..1e-12: every quantity within a few ulp of the mpmath value of the
    textbook formula (outer minus inner frustum) at 50 digits."""
    walls = 10.0 ** -np.arange(3, 13)
    radius_a, radius_b, length, density = 0.05, 0.03, 0.7, 2700.0
    result = batch.cone(
        length=length,
        radius_a=radius_a,
        radius_b=radius_b,
        inner_radius_a=radius_a - walls * radius_a,
        inner_radius_b=radius_b - walls * radius_b,
        density=density,
    )
    for i, wall in enumerate(walls):
        inputs = result.inputs
        ref = cone_reference(*(float(inputs[k][i]) for k in rp.Cone.spec.parameter_names), density)
        assert relative_error(result.mass[i], ref["mass"]) < 1e-15, wall
        assert relative_error(result.volume[i], ref["volume"]) < 1e-15, wall
        assert relative_error(result.center_of_mass[i, 0], ref["com_x"]) < 1e-15, wall
        assert relative_error(result.inertia[i, 0, 0], ref["i_xx"]) < 1e-15, wall
        assert relative_error(result.inertia[i, 1, 1], ref["i_yy"]) < 1e-15, wall
        assert relative_error(result.inertia[i, 2, 2], ref["i_zz"]) < 1e-15, wall


def test_box_rows_against_50_digit_references_and_rotated_frame() -> None:
    """A tilted thin-walled box: R_AC diag(I_C) R_AC^T from the 50-digit moments and the
    NOTES.md direction rule written independently (tests/reference.py)."""
    walls = 10.0 ** -np.arange(3, 13)
    axis = (1.0, 2.0, -0.5)
    result = batch.box(
        length=1.3,
        width=0.1,
        height=0.2,
        inner_width=0.1 - walls * 0.1,
        inner_height=0.2 - walls * 0.2,
        axis=axis,
        rotate90=True,
        density=7000.0,
    )
    e, h, w = rule_directions(axis, rotate90=True)
    rotation = np.column_stack([e, h, w])
    for i, wall in enumerate(walls):
        inputs = result.inputs
        ref = box_reference(*(float(inputs[k][i]) for k in rp.Box.spec.parameter_names), 7000.0)
        assert relative_error(result.mass[i], ref["mass"]) < 1e-15, wall
        moments = np.diag([float(ref[k]) for k in ("i_xx", "i_yy", "i_zz")])
        expected = rotation @ moments @ rotation.T
        scale = np.trace(expected)
        assert np.max(np.abs(result.inertia[i] - expected)) < 1e-14 * scale, wall
        np.testing.assert_allclose(result.center_of_mass[i], 0.65 * e, rtol=0, atol=1e-15)


# -- 3. arguments ------------------------------------------------------------------------------


def test_broadcasting_shapes_and_views() -> None:
    result = batch.cone(length=[1.0, 2.0, 3.0], radius_a=[0.5], inner_radius_a=0.1)
    assert len(result) == 3
    assert result.mass.shape == (3,) and result.volume.shape == (3,)
    assert result.center_of_mass.shape == (3, 3) and result.inertia.shape == (3, 3, 3)
    assert result.error_codes.dtype == np.uint8
    single = batch.cone(length=2.0)
    assert len(single) == 1
    assert same_bits(single.inertia[0], rp.Cone(length=2.0).inertia)
    for name in (*QUANTITIES, "error_codes", "density"):
        assert not getattr(result, name).flags.writeable, name
    with pytest.raises(ValueError):
        result.mass[0] = 1.0


def test_axis_per_row_equals_shared_axis() -> None:
    dims = random_cones(50, seed=12)
    shared = batch.cone(**dims, axis=(0.0, 3.0, 4.0))
    per_row = batch.cone(**dims, axis=np.tile([0.0, 3.0, 4.0], (50, 1)))
    for name in QUANTITIES:
        assert same_bits(getattr(shared, name), getattr(per_row, name)), name


def test_zero_rows() -> None:
    result = batch.cone(length=np.zeros(0))
    assert len(result) == 0
    assert result.inertia.shape == (0, 3, 3) and result.errors() == []
    assert batch.box(width=[], axis=np.zeros((0, 3))).mass.shape == (0,)


def test_mismatched_lengths_name_the_parameter() -> None:
    with pytest.raises(rp.ParameterError) as info:
        batch.cone(length=np.ones(5), radius_a=np.ones(3))
    assert info.value.parameter == "radius_a"
    assert "does not broadcast with length" in str(info.value)
    with pytest.raises(rp.ParameterError) as info:
        batch.cone(length=np.ones(4), axis=np.ones((3, 3)))
    assert info.value.parameter == "axis"
    with pytest.raises(rp.ParameterError) as info:
        batch.cone(length=np.ones((2, 2)))
    assert info.value.parameter == "length" and "1-D" in info.value.rule
    with pytest.raises(rp.ParameterError) as info:
        batch.cone(axis=(1.0, 0.0))
    assert info.value.parameter == "axis"


def test_units_strings_and_quantities() -> None:
    ureg = rp.units.registry()
    result = batch.cone(
        length=["250 mm", "0.5 m", 1.0],
        radius_a="4 cm",
        radius_b=ureg.Quantity(np.array([10.0, 20.0, 30.0]), "mm"),
        density="2.7 g/cm^3",
    )
    expected = [
        rp.Cone(length=length, radius_a=0.04, radius_b=rb, density=2700.0)
        for length, rb in zip((0.25, 0.5, 1.0), (0.01, 0.02, 0.03), strict=True)
    ]
    for i, body in enumerate(expected):
        assert math.isclose(result.mass[i], body.mass, rel_tol=1e-15)
    with pytest.raises(rp.ParameterError) as info:
        batch.cone(length=["1 m", "5 kg"])
    assert info.value.parameter == "length[1]"
    with pytest.raises(rp.ParameterError) as info:
        batch.cone(density="3 m")
    assert info.value.parameter == "density"
    with pytest.raises(rp.ParameterError) as info:
        batch.cone(length=np.array([True, False]))
    assert info.value.parameter == "length"
    with pytest.raises(rp.ParameterError):
        batch.cone(length=np.array([1 + 1j]))


def test_materials_per_row() -> None:
    result = batch.box(length=[1.0, 1.0, 1.0], material=["steel", "aluminium", "Steel"])
    steel, aluminium = rp.Box(material="steel"), rp.Box(material="aluminium")
    assert list(result.density) == [steel.density, aluminium.density, steel.density]
    assert same_bits(result.inertia[1], aluminium.inertia)
    with pytest.raises(rp.ParameterError) as info:
        batch.box(length=[1.0, 1.0], material=["steel", "unobtainium"])
    assert info.value.parameter == "material" and info.value.index == 1
    with pytest.raises(rp.ParameterError) as info:
        batch.box(material="steel", density=1000.0)
    assert info.value.parameter == "density"


@pytest.mark.parametrize(
    ("kwargs", "parameter"),
    [
        ({"rotate90": 1}, "rotate90"),
        ({"rotate90": np.array([0, 1])}, "rotate90"),
        ({"extra_frames": [0.5]}, "extra_frames"),
        ({"on_invalid": "ignore"}, "on_invalid"),
        ({"engine": "gpu"}, "engine"),
        ({"height_direction": [1.0, 0.0]}, "height_direction"),
    ],
)
def test_bad_arguments(kwargs: dict, parameter: str) -> None:
    with pytest.raises(rp.ParameterError) as info:
        batch.box(**kwargs)
    assert info.value.parameter == parameter


# -- 4. invalid rows ---------------------------------------------------------------------------

BAD_CONE_ROWS = [
    {"radius_a": -1.0},
    {"length": 0.0},
    {"length": math.inf},
    {"radius_b": math.nan},
    {"inner_radius_a": 0.5},  # wider than radius_a = 0.4
    {"inner_radius_b": -0.01},
    {"radius_a": 0.2, "radius_b": 0.0, "inner_radius_a": 0.2},  # no material left
    {"density": -5.0},
    {"density": math.inf},
    {"axis": (0.0, 0.0, 0.0)},
    {"axis": (1.0, math.nan, 0.0)},
    {"axis": (math.inf, 0.0, 0.0)},
    {"length": 1e300, "density": 1e300},  # mass overflows float64
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("bad", BAD_CONE_ROWS)
def test_invalid_cone_row_names_parameter_rule_and_index(engine: str, bad: dict) -> None:
    with pytest.raises(rp.ParameterError) as scalar:
        rp.Cone(**bad)
    rows = {k: [rp.Cone.spec.defaults.get(k, 7860.0), v, v] for k, v in bad.items()}
    if "axis" in rows:
        rows["axis"] = [(1.0, 0.0, 0.0), bad["axis"], bad["axis"]]
    with pytest.raises(rp.ParameterError) as info:
        batch.cone(**rows, engine=engine)
    assert info.value.index == 1
    assert (info.value.parameter, info.value.rule) == (scalar.value.parameter, scalar.value.rule)
    assert f"{scalar.value.parameter}[1]" in str(info.value)
    masked = batch.cone(**rows, on_invalid="mask", engine=engine)
    assert masked.valid.tolist() == [True, False, False]
    assert [e[0] for e in masked.errors()] == [1, 2]
    assert masked.errors()[0][1:] == (scalar.value.parameter, scalar.value.rule)
    for name in QUANTITIES:
        assert np.isnan(getattr(masked, name)[1:]).all(), name
        assert np.isfinite(getattr(masked, name)[0]).all(), name


BAD_BOX_ROWS = [
    {"width": -0.1},
    {"inner_height": 0.3},  # higher than height = 0.2
    {"inner_width": 0.1, "inner_height": 0.2},  # the hole fills the section
    {"height_direction": (2.0, 0.0, 0.0)},  # parallel to the axis (1, 0, 0)
    {"height_direction": (0.0, math.inf, 0.0)},
    {"height_direction": (0.0, 0.0, 0.0)},
    {"height_direction": (math.nan, 0.0, 0.0), "axis": (0.0, 0.0, 0.0)},  # which comes first
    {"height_direction": (0.0, 0.0, 0.0), "axis": (0.0, 0.0, 0.0)},
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("bad", BAD_BOX_ROWS)
def test_invalid_box_row_matches_scalar(engine: str, bad: dict) -> None:
    with pytest.raises(rp.ParameterError) as scalar:
        rp.Box(**bad)
    rows = {k: [rp.Box.spec.defaults.get(k, 0.0), v] for k, v in bad.items()}
    if "height_direction" in rows:
        rows["height_direction"] = [(0.0, 1.0, 0.0), bad["height_direction"]]
    if "axis" in rows:
        rows["axis"] = [(1.0, 0.0, 0.0), bad["axis"]]
    masked = batch.box(**rows, on_invalid="mask", engine=engine)
    assert masked.valid.tolist() == [True, False]
    assert masked.errors() == [(1, scalar.value.parameter, scalar.value.rule)]
    with pytest.raises(rp.ParameterError) as info:
        masked.raise_if_invalid()
    assert info.value.index == 1


def test_first_offending_index_and_mask_mode() -> None:
    """The issue's example: radius_a=[0.1, -1, 0.2] -> index 1."""
    with pytest.raises(rp.ParameterError) as info:
        batch.cone(radius_a=[0.1, -1.0, 0.2])
    assert info.value.parameter == "radius_a" and info.value.index == 1
    assert str(info.value).startswith("radius_a[1]=-1.0: must be non-negative")
    masked = batch.cone(radius_a=[0.1, -1.0, 0.2, -2.0], on_invalid="mask")
    assert masked.valid.tolist() == [True, False, True, False]
    assert masked[0].isclose(rp.Cone(radius_a=0.1).mass_properties)
    with pytest.raises(rp.ParameterError):
        masked[1]
    with pytest.raises(IndexError):
        masked[4]
    assert masked[-2].mass == rp.Cone(radius_a=0.2).mass
    moments = masked.principal_moments
    assert np.isnan(moments[1]).all()
    np.testing.assert_allclose(moments[2], rp.Cone(radius_a=0.2).principal_moments, rtol=1e-13)


# -- 5. dask -----------------------------------------------------------------------------------

da = pytest.importorskip("dask.array")


def test_dask_sweep_equals_numpy_bit_for_bit() -> None:
    n = 2000
    dims = random_cones(n, seed=13)
    axes = random_axes(n, seed=14)
    eager = batch.cone(**dims, axis=axes, density=1234.5)
    lazy = batch.cone(
        **{k: da.from_array(v, chunks=300) for k, v in dims.items()},
        axis=da.from_array(axes, chunks=(300, 3)),
        density=1234.5,
    )
    assert lazy.lazy and isinstance(lazy.mass, da.Array)
    assert lazy.mass.chunks == ((300,) * 6 + (200,),)
    done = lazy.compute()
    for name in (*QUANTITIES, "error_codes"):
        assert same_bits(getattr(done, name), getattr(eager, name)), name


def test_dask_box_mixed_with_numpy_and_errors_at_compute_time() -> None:
    n = 1000
    dims = random_boxes(n, seed=15)
    width = dims.pop("width")
    width[777] = -1.0
    lazy = batch.box(**dims, width=da.from_array(width, chunks=128), rotate90=True)
    eager = batch.box(**dims, width=width, rotate90=True, on_invalid="mask")
    with pytest.raises(rp.ParameterError) as info:
        lazy.mass.compute()  # nothing ran before this line
    assert info.value.parameter == "width" and info.value.index == 777
    masked = batch.box(
        **dims, width=da.from_array(width, chunks=128), rotate90=True, on_invalid="mask"
    ).compute()
    assert masked.errors() == eager.errors() == [(777, "width", "must be positive and finite (m)")]
    for name in QUANTITIES:
        assert same_bits(getattr(masked, name), getattr(eager, name)), name


# -- 6. output buffers -------------------------------------------------------------------------


def test_reused_buffers_never_overwrite_a_live_result() -> None:
    """Outputs of 64 KiB and more come from a pool of buffers of dead results."""
    batch.release_memory()
    n = 20_000  # inertia: 1.4 MiB
    first_dims, second_dims = random_cones(n, seed=16), random_cones(n, seed=17)
    first = batch.cone(**first_dims)
    kept = first.inertia.copy()
    second = batch.cone(**second_dims)  # `first` is alive: must get other memory
    assert not np.shares_memory(first.inertia, second.inertia)
    assert same_bits(first.inertia, kept)
    address = second.inertia.__array_interface__["data"][0]
    del second
    third = batch.cone(**second_dims)  # the dead result's buffer is reused
    assert third.inertia.__array_interface__["data"][0] == address
    assert not third.inertia.flags.writeable
    body = rp.Cone(**{k: float(v[5]) for k, v in second_dims.items()})
    assert same_bits(third.inertia[5], body.inertia)
    batch.release_memory()
    assert batch._pool.retained_bytes() == 0


@pytest.mark.parametrize("engine", ENGINES)
def test_one_invalid_axis_for_all_rows(engine: str) -> None:
    with pytest.raises(rp.ParameterError) as scalar:
        rp.Box(axis=(0.0, 0.0, 0.0))
    with pytest.raises(rp.ParameterError) as info:
        batch.box(length=[1.0, 2.0], axis=(0.0, 0.0, 0.0), engine=engine)
    assert (info.value.parameter, info.value.rule, info.value.index) == (
        scalar.value.parameter,
        scalar.value.rule,
        0,
    )
    masked = batch.box(
        length=[1.0, 2.0], height_direction=(3.0, 0.0, 0.0), on_invalid="mask", engine=engine
    )
    assert not masked.valid.any()
    assert masked.errors()[1][1] == "height_direction"


# -- 7. the registry: generated functions, mass=, exact principal axes, arity ------------------

EXACT = (*QUANTITIES, "density", "principal_moments", "principal_axes")


def assert_rows_are_the_bodies(result: batch.BatchMassProperties, bodies: list) -> None:
    """Every quantity of every row, and ``result[i]``, bit for bit the body's."""
    for i, body in enumerate(bodies):
        for name in EXACT:
            got, want = getattr(result, name)[i], getattr(body, name)
            assert same_bits(got, want), (i, name, got, want)
        row, props = result[i], body.mass_properties
        assert same_bits(row.mass, props.mass), i
        for name in ("center_of_mass", "inertia", "principal_moments", "principal_axes"):
            assert same_bits(getattr(row, name), getattr(props, name)), (i, name)


@pytest.mark.parametrize("engine", ENGINES)
def test_every_tier1_shape_has_a_function_with_its_specs_signature(engine: str) -> None:
    import inspect

    from rigidparts.shapes import SHAPES

    tier1 = [name for name, spec in SHAPES.items() if spec.tier == 1]
    assert {"box", "cone"} <= set(tier1)
    for name in tier1:
        spec = SHAPES[name]
        function = getattr(batch, name)
        assert name in batch.__all__ and function.__name__ == name
        parameters = inspect.signature(function).parameters
        expected = {
            **spec.signature_defaults(),
            "on_invalid": "raise",
            "engine": "auto",
            "threads": True,
        }
        assert list(parameters) == list(expected), name
        for keyword, default in expected.items():
            assert parameters[keyword].kind is inspect.Parameter.KEYWORD_ONLY, keyword
            assert parameters[keyword].default == default, (name, keyword)
            assert parameters[keyword].default is default or keyword == "axis"
        for param in spec.params:
            assert param.help in function.__doc__, (name, param.name)
        # The defaults give the default body.
        body = rp.bodies.body_class(name)()
        assert same_bits(function(engine=engine).inertia[0], body.inertia), name
        with pytest.raises(TypeError, match="unexpected keyword"):
            function(no_such_keyword=1.0)
        with pytest.raises(TypeError):
            function(1.0)


@pytest.mark.parametrize("engine", ENGINES)
def test_every_tier1_shape_rows_are_its_bodies(engine: str) -> None:
    """Registry-driven: each tier-1 shape's default body scaled per row, with per-row axes,
    rotate90 and masses as the shape takes them, is its class's body bit for bit."""
    from rigidparts.shapes import SHAPES

    n = 40
    rng = np.random.default_rng(80)
    for name, spec in SHAPES.items():
        if spec.tier != 1:
            continue
        scale = 10.0 ** rng.uniform(-3, 3, n)
        rows: dict = {
            p.name: p.default * scale if p.kind == "length" else p.default for p in spec.params
        }
        rows["mass"] = rng.uniform(0.1, 100.0, n)
        if spec.axis:
            rows["axis"] = random_axes(n, seed=81)
        if spec.cross_section:
            rows["rotate90"] = rng.random(n) < 0.5
        result = getattr(batch, name)(**rows, engine=engine)
        cls = rp.bodies.body_class(name)
        bodies = []
        for i in range(n):
            args = {k: (v[i] if isinstance(v, np.ndarray) else v) for k, v in rows.items()}
            if "rotate90" in args:
                args["rotate90"] = bool(args["rotate90"])
            bodies.append(cls(**args))
        assert_rows_are_the_bodies(result, bodies)


def test_tier2_shapes_have_no_batch_function(monkeypatch: pytest.MonkeyPatch) -> None:
    from rigidparts.shapes import SHAPES, ShapeSpec

    general = ShapeSpec(
        name="blob",
        summary="a tier-2 test shape",
        params=(rp.shapes.Param("size", 1.0, "size (m)"),),
        rules=(),
        check=lambda size: 0,
        general_form=lambda dims, density: (1.0, None),
        end_frame=None,
    )
    with pytest.raises(rp.ParameterError, match="no batch path"):
        batch.batch_function(general)
    monkeypatch.setattr(batch, "SHAPES", {**SHAPES, "blob": general})
    with pytest.raises(AttributeError, match="'blob' has no batch path"):
        batch.blob  # noqa: B018
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        batch.nothing  # noqa: B018
    for name, spec in SHAPES.items():
        if spec.tier == 2:
            with pytest.raises(AttributeError, match="no batch path"):
                getattr(batch, name)


@pytest.mark.parametrize("engine", ENGINES)
def test_mass_rows_are_the_bodies_given_by_mass(engine: str) -> None:
    n = 300
    dims = random_cones(n, seed=20)
    axes = random_axes(n, seed=21)
    masses = 10.0 ** np.random.default_rng(22).uniform(-6, 4, n)
    result = batch.cone(**dims, axis=axes, mass=masses, engine=engine)
    bodies = [
        rp.Cone(**{k: float(v[i]) for k, v in dims.items()}, axis=axes[i], mass=float(masses[i]))
        for i in range(n)
    ]
    assert same_bits(result.mass, masses)  # the given mass, exactly
    assert "mass" in result.inputs and "density" not in result.inputs
    assert_rows_are_the_bodies(result, bodies)

    rng = np.random.default_rng(23)
    dims = random_boxes(n, seed=24)
    rotate90 = rng.random(n) < 0.5
    height = rng.normal(size=(n, 3))
    result = batch.box(
        **dims, axis=(0.2, -1.0, 3.0), rotate90=rotate90, height_direction=height,
        mass="2.5 kg", engine=engine,
    )  # fmt: skip
    bodies = [
        rp.Box(
            **{k: float(v[i]) for k, v in dims.items()},
            axis=(0.2, -1.0, 3.0),
            rotate90=bool(rotate90[i]),
            height_direction=height[i],
            mass="2.5 kg",
        )
        for i in range(n)
    ]
    assert_rows_are_the_bodies(result, bodies)


@pytest.mark.parametrize("engine", ENGINES)
def test_random_bodies_every_quantity_and_row_bit_for_bit(engine: str) -> None:
    """Box and cone, density, material and mass rows, shared and per-row frames: mass,
    volume, density, centre of mass, inertia, principal moments and axes, and ``batch[i]``."""
    n = 200
    rng = np.random.default_rng(30)
    cones, boxes = random_cones(n, seed=31), random_boxes(n, seed=32)
    axes = random_axes(n, seed=33)
    density = rng.uniform(500.0, 20000.0, n)
    masses = rng.uniform(0.1, 100.0, n)
    for source in ({"density": density}, {"mass": masses}, {"material": "aluminium"}):
        for axis in (axes, (0.0, 0.0, -2.0)):
            result = batch.cone(**cones, axis=axis, **source, engine=engine)
            bodies = [rp.Cone(**scalar_row(i, cones, source, axis)) for i in range(n)]
            assert_rows_are_the_bodies(result, bodies)
            result = batch.box(**boxes, axis=axis, rotate90=True, **source, engine=engine)
            bodies = [rp.Box(**scalar_row(i, boxes, source, axis), rotate90=True) for i in range(n)]
            assert_rows_are_the_bodies(result, bodies)


def scalar_row(i: int, *arguments: object) -> dict:
    """Row ``i`` of batch arguments (mappings of arrays or scalars, or an axis) as keywords."""
    out: dict = {}
    for item in arguments:
        if not isinstance(item, dict):
            item = {"axis": item}
        for key, value in item.items():
            is_rows = isinstance(value, np.ndarray) and value.ndim == (2 if key == "axis" else 1)
            out[key] = (value[i] if key == "axis" else float(value[i])) if is_rows else value
    return out


@pytest.mark.parametrize("engine", ENGINES)
def test_principal_moments_and_axes_of_thin_rods_and_tubes_are_exact(engine: str) -> None:
    """2000 rods with radius / length from 1e-9 to 1e-2 and thin tubes: the small axial moment
    (about 1e-18 of the others for the thinnest rods) exact, not an eigen-solver's rounding;
    moments and axes bit for bit the scalar bodies'."""
    n = 2000
    rng = np.random.default_rng(40)
    length = 10.0 ** rng.uniform(-2, 1, n)
    radius = length * 10.0 ** rng.uniform(-9, -2, n)
    axes = random_axes(n, seed=41)
    rods = batch.cone(
        length=length, radius_a=radius, radius_b=radius, axis=axes, density=2700.0, engine=engine
    )
    bodies = [
        rp.Cone(length=length[i], radius_a=radius[i], radius_b=radius[i], axis=axes[i],
                density=2700.0)
        for i in range(n)
    ]  # fmt: skip
    assert_rows_are_the_bodies(rods, bodies)
    # The axial moment m r^2 / 2 is the smallest, to a few ulp, and its axis is the rod's.
    axial = rods.mass * radius**2 / 2
    np.testing.assert_allclose(rods.principal_moments[:, 0], axial, rtol=1e-15)  # a few ulp
    unit = axes / np.linalg.norm(axes, axis=1, keepdims=True)
    np.testing.assert_allclose(np.abs(rods.principal_axes[:, :, 0]), np.abs(unit), atol=1e-15)
    assert np.allclose(np.linalg.det(rods.principal_axes), 1.0, atol=1e-14)
    ordered = np.diff(rods.principal_moments, axis=1) >= 0
    assert ordered.all()

    wall = 10.0 ** rng.uniform(-12, -3, n)
    tubes = batch.cone(
        length=length, radius_a=radius * 1e6, radius_b=radius * 1e6,
        inner_radius_a=radius * 1e6 * (1 - wall), inner_radius_b=radius * 1e6 * (1 - wall),
        axis=axes, engine=engine,
    )  # fmt: skip
    bodies = [
        rp.Cone(**scalar_row(i, {k: v for k, v in tubes.inputs.items() if k != "density"}))
        for i in range(n)
    ]
    assert_rows_are_the_bodies(tubes, bodies)


def test_principal_axes_when_moments_tie_or_reorder() -> None:
    """Equal moments (stable order), a box whose moments sort in an odd permutation (third
    axis negated), and a flat box: as MassProperties.from_principal, bit for bit."""
    cases = [
        {"length": 0.1, "width": 0.1, "height": 0.1},  # a cube: all equal
        {"length": 0.01, "width": 1.0, "height": 0.5},  # a plate
        {"length": 1.0, "width": 0.5, "height": 0.1},
        {"length": 0.3, "width": 0.2, "height": 1.0},
    ]
    for axis in ((1, 0, 0), (0, 1, 0), (0, 0, -1), (1, 2, 3)):
        for rotate90 in (False, True):
            rows = {k: [c[k] for c in cases] for k in cases[0]}
            result = batch.box(**rows, axis=axis, rotate90=rotate90)
            bodies = [rp.Box(**c, axis=axis, rotate90=rotate90) for c in cases]
            assert_rows_are_the_bodies(result, bodies)


def test_row_indexing_and_slices() -> None:
    dims = random_cones(10, seed=50)
    result = batch.cone(**dims, axis=random_axes(10, seed=51))
    part = result[2:7:2]
    assert isinstance(part, batch.BatchMassProperties) and len(part) == 3
    for name in (*EXACT, "error_codes", "canonical_moments", "rotation_from_canonical"):
        assert same_bits(getattr(part, name), getattr(result, name)[2:7:2]), name
    assert same_bits(part[1].inertia, result[4].inertia)
    chosen = result[np.array([9, 0])]
    assert same_bits(chosen.mass, result.mass[[9, 0]])
    assert same_bits(result[-1].inertia, result.inertia[9])
    with pytest.raises(TypeError):
        result[True]
    with pytest.raises(TypeError):
        result[1, 2]
    with pytest.raises(IndexError):
        result[10]
    with pytest.raises(IndexError):
        result[np.array([11])]


@pytest.mark.parametrize("engine", ENGINES)
def test_mass_errors_match_the_scalar_path(engine: str) -> None:
    for two in ({"material": "steel", "mass": 2.0}, {"density": 1000.0, "mass": 2.0}):
        with pytest.raises(rp.ParameterError) as scalar:
            rp.Cone(**two)
        with pytest.raises(rp.ParameterError) as info:
            batch.cone(**two, engine=engine)
        assert (info.value.parameter, info.value.rule) == (
            scalar.value.parameter,
            scalar.value.rule,
        )
        assert info.value.parameter == "mass" and "give only one of" in info.value.rule
    for bad in (0.0, -1.0, math.nan, math.inf):
        with pytest.raises(rp.ParameterError) as scalar:
            rp.Cone(mass=bad)
        with pytest.raises(rp.ParameterError) as info:
            batch.cone(mass=[1.0, 2.0, bad, 3.0], engine=engine)
        assert info.value.index == 2
        assert (info.value.parameter, info.value.rule) == ("mass", scalar.value.rule)
        assert info.value.rule == rp.Cone.spec.all_rules[rp.Cone.spec.common_code("mass") - 1].text
        masked = batch.cone(mass=[1.0, bad], on_invalid="mask", engine=engine)
        assert masked.valid.tolist() == [True, False]
        assert np.isnan(masked.density[1]) and masked.density[0] > 0
        assert masked.errors() == [(1, "mass", scalar.value.rule)]
    # The shape's rules come first, as for one body.
    with pytest.raises(rp.ParameterError) as scalar:
        rp.Cone(radius_a=-1.0, mass=-1.0)
    masked = batch.cone(radius_a=[0.4, -1.0], mass=-1.0, on_invalid="mask", engine=engine)
    assert masked.errors()[1][1:] == (scalar.value.parameter, scalar.value.rule)
    # A mass whose density float64 cannot hold: unrepresentable, named as the scalar path does.
    with pytest.raises(rp.ParameterError) as scalar:
        rp.Cone(length=1e-100, radius_a=1e-100, radius_b=1e-100, mass=1e300)
    with pytest.raises(rp.ParameterError) as info:
        batch.cone(length=[1.0, 1e-100], radius_a=[0.1, 1e-100], radius_b=[0.1, 1e-100],
                   mass=1e300, engine=engine)  # fmt: skip
    assert info.value.index == 1
    assert (info.value.parameter, info.value.rule) == (scalar.value.parameter, scalar.value.rule)


def test_mass_with_units_and_dask() -> None:
    result = batch.box(length=[1.0, 2.0], mass=["3 kg", "4000 g"])
    assert result.mass.tolist() == [3.0, 4.0]
    assert same_bits(result.inertia[1], rp.Box(length=2.0, mass="4 kg").inertia)
    dims = random_boxes(500, seed=60)
    masses = np.random.default_rng(61).uniform(1.0, 2.0, 500)
    eager = batch.box(**dims, mass=masses, rotate90=True)
    lazy = batch.box(**dims, mass=da.from_array(masses, chunks=128), rotate90=True)
    assert lazy.lazy
    done = lazy.compute()
    for name in (*EXACT, "error_codes"):
        assert same_bits(getattr(done, name), getattr(eager, name)), name
        assert same_bits(np.asarray(getattr(lazy, name)), getattr(eager, name)), name
    assert same_bits(lazy[7].inertia, eager[7].inertia)


def test_dask_per_row_frames_and_principal_axes() -> None:
    n = 700
    dims = random_boxes(n, seed=62)
    axes = random_axes(n, seed=63)
    rotate90 = np.random.default_rng(64).random(n) < 0.5
    eager = batch.box(**dims, axis=axes, rotate90=rotate90)
    lazy = batch.box(**dims, axis=da.from_array(axes, chunks=(100, 3)), rotate90=rotate90)
    for name in ("principal_moments", "principal_axes", "rotation_from_canonical"):
        assert isinstance(getattr(lazy, name), da.Array), name
        assert getattr(lazy, name).shape == getattr(eager, name).shape, name
        assert same_bits(getattr(lazy, name).compute(), getattr(eager, name)), name
    assert same_bits(lazy[123].principal_axes, eager[123].principal_axes)


# A throwaway tier-1 shape of two dimensions (a solid rod), never registered: the kernel is
# generic in the number of dimensions.

ROD_RULES = (
    rp.shapes.Rule("length", "must be positive and finite (m)"),
    rp.shapes.Rule("radius", "must be positive and finite (m)"),
)
ROD_LENGTH_POSITIVE, ROD_RADIUS_POSITIVE = rp.shapes.rule_codes(ROD_RULES)


def rod_check(length: float, radius: float) -> int:
    code = 0 if 0.0 < radius < math.inf else ROD_RADIUS_POSITIVE
    return code if 0.0 < length < math.inf else ROD_LENGTH_POSITIVE


def rod_area(radius: float) -> float:  # a helper: compiled too
    return math.pi * radius * radius


def rod_closed_form(
    length: float, radius: float, density: float
) -> tuple[float, float, float, float, float, float]:
    volume = rod_area(radius) * length
    mass = density * volume
    axial = mass * radius * radius / 2.0
    transverse = mass * (3.0 * radius * radius + length * length) / 12.0
    return volume, mass, 0.5 * length, axial, transverse, transverse


def rod_spec() -> rp.shapes.ShapeSpec:
    return rp.shapes.ShapeSpec(
        name="rod_for_tests",
        summary="a solid rod (test only)",
        params=(
            rp.shapes.Param("length", 1.0, "extent along the axis (m)"),
            rp.shapes.Param("radius", 0.01, "radius (m)"),
        ),
        rules=ROD_RULES,
        check=rod_check,
        closed_form=rod_closed_form,
    )


@pytest.mark.parametrize("engine", ENGINES)
def test_two_dimension_shape_compiles_and_matches_its_closed_form(engine: str) -> None:
    spec = rod_spec()
    from rigidparts.shapes import SHAPES

    assert spec.name not in SHAPES
    rod = batch.batch_function(spec)
    assert list(__import__("inspect").signature(rod).parameters)[:3] == [
        "length",
        "radius",
        "axis",
    ]
    n = 1000
    rng = np.random.default_rng(70)
    length = 10.0 ** rng.uniform(-3, 2, n)
    radius = 10.0 ** rng.uniform(-9, 0, n)
    density = rng.uniform(100.0, 20000.0, n)
    masses = rng.uniform(0.1, 10.0, n)
    result = rod(length=length, radius=radius, density=density, engine=engine)
    by_mass = rod(length=length, radius=radius, mass=masses, engine=engine)
    for i in range(n):
        v, m, com_x, *moments = rod_closed_form(float(length[i]), float(radius[i]), density[i])
        assert same_bits(result.volume[i], v) and same_bits(result.mass[i], m), i
        assert same_bits(result.center_of_mass[i], [com_x, 0.0, 0.0]), i
        assert same_bits(result.canonical_moments[i], moments), i
        assert same_bits(result.inertia[i], np.diag(moments)), i
        rho = float(masses[i]) / rod_closed_form(float(length[i]), float(radius[i]), 1.0)[0]
        v, _, com_x, *moments = rod_closed_form(float(length[i]), float(radius[i]), rho)
        assert same_bits(by_mass.density[i], rho) and same_bits(by_mass.mass[i], masses[i]), i
        assert same_bits(by_mass.canonical_moments[i], moments), i
    with pytest.raises(rp.ParameterError) as info:
        rod(length=[1.0, 1.0, 2.0], radius=[0.1, 0.2, -0.1], engine=engine)
    assert (info.value.parameter, info.value.index) == ("radius", 2)
    assert info.value.rule == "must be positive and finite (m)"


def test_kernel_builder_takes_any_tier1_spec() -> None:
    if batch._numba is None:
        pytest.skip("numba is not installed")
    spec = rod_spec()
    kernel = batch._numba.build_kernel(spec)
    assert kernel.__name__ == "rod_for_tests_rows_unregistered"
    assert batch._numba.kernel_for(spec) is batch._numba.kernel_for(spec)


@pytest.mark.parametrize("name", [n for n, s in SHAPES.items() if s.tier == 1])
def test_each_shape_compiles_alone_in_a_fresh_process(name: str) -> None:
    """A shape whose closed form calls another shape's (the Linkage calls the Box's) compiles
    even when that other shape's kernel was never built in the process."""
    import subprocess
    import sys

    code = (
        "import rigidparts as rp\n"
        f"b = rp.batch.{name}(engine='numba')\n"
        f"s = rp.body_class({name!r})()\n"
        "assert b.inertia[0].tobytes() == s.inertia.tobytes()\n"
        "assert b.principal_moments[0].tobytes() == s.principal_moments.tobytes()\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]


# -- 8. the numpy engine's vectorised rules ------------------------------------------------------

#: Values at the edges of every rule: both zeros, NaN, infinities, the smallest subnormal and
#: normal numbers, values either side of 1 and of each other.
EDGES = np.array([
    0.0, -0.0, math.nan, math.inf, -math.inf, 5e-324, 2.2250738585072014e-308, 1e-300, 1e300,
    1.0, 1.0 - 2**-53, 1.0 + 2**-52, 0.5, 2.0, 0.25, -1.0, 1e-9, 0.1, 0.2, 0.3,
])  # fmt: skip


def _edge_rows(arity: int, n: int, seed: int) -> list[np.ndarray]:
    """``n`` rows of ``arity`` arguments: edge values, random values, and ties (one argument
    equal to another), so that every comparison of a rule meets both outcomes and equality."""
    rng = np.random.default_rng(seed)
    columns = []
    for _ in range(arity):
        column = rng.choice(EDGES, n)
        random = rng.random(n) < 0.4
        column[random] = 10.0 ** rng.uniform(-4, 1, random.sum())
        columns.append(column)
    for k in range(1, arity):  # ties with an earlier argument, and wall-like differences
        tie = rng.random(n) < 0.15
        source = columns[rng.integers(0, k)]
        columns[k][tie] = source[tie]
        near = rng.random(n) < 0.1
        columns[k][near] = source[near] * (1.0 - 10.0 ** rng.uniform(-16, -1, near.sum()))
    return columns


def _vectorised_functions() -> list[tuple[str, object, int]]:
    from rigidparts.shapes import results_representable

    found = [(f"{name}.check", spec.check, len(spec.params)) for name, spec in SHAPES.items()
             if spec.tier == 1]  # fmt: skip
    found.append(("results_representable", results_representable, 6))
    found.append(("rod_check", rod_check, 2))
    found.append(("every_helper", _every_helper, 3))
    return found


def _every_helper(a: float, b: float, c: float) -> int:
    """Uses every call the rewrite maps (``math.f(x)`` among them, once refused as a whole)."""
    root = math.sqrt(abs(a))
    finite = math.isfinite(b) and not math.isnan(c) and not math.isinf(a)
    low = min(a, b, c)
    high = max(root, c)
    return (1 if finite else 0) + (2 if low < high else 0) + (4 if root > 0.5 else 0)


@pytest.mark.parametrize(("label", "function", "arity"), _vectorised_functions())
def test_vectorised_rules_equal_the_scalar_rules_row_for_row(label, function, arity) -> None:
    """The numpy engine evaluates each rule rewritten for arrays from its own source: on edge
    and random inputs every element is what the float function gives for that row."""
    from rigidparts.batch._numpy import vectorised

    vector = vectorised(function)
    for seed in range(3):
        columns = _edge_rows(arity, 20_000, seed)
        with np.errstate(all="ignore"):
            got = np.broadcast_to(vector(*columns), (20_000,))
        rows = zip(*(c.tolist() for c in columns), strict=True)
        expected = np.array([function(*row) for row in rows])
        mismatch = np.flatnonzero(got != expected)
        assert mismatch.size == 0, (label, [c[mismatch[0]] for c in columns])
        assert len(set(expected.tolist())) > 1  # the inputs reach more than one outcome


def test_what_the_rewrite_does_not_know_runs_row_by_row() -> None:
    from rigidparts.batch import _numpy

    def with_power(length: float, radius: float) -> int:  # ** is libm's pow: refused
        return 0 if radius**2 > 0.0 else 2

    def with_loop(length: float, radius: float) -> int:
        code = 0
        for value in (length, radius):
            code = code if value > 0.0 else 1
        return code

    def with_call(length: float, radius: float) -> int:
        return 0 if math.hypot(length, radius) > 0.0 else 1

    for function in (with_power, with_loop, with_call):
        with pytest.raises(_numpy.NotVectorisable):
            _numpy.vectorised(function)
        row_by_row = _numpy._array_form(function, 2, np.int64)
        values = np.array([0.0, 1.0, -1.0, math.nan])
        expected = [function(v, v) for v in values.tolist()]
        with np.errstate(all="ignore"):
            assert row_by_row(values, values).tolist() == expected
    # A chained comparison over an expression would evaluate it twice: refused too.
    with pytest.raises(_numpy.NotVectorisable):
        _numpy.vectorised(_chained_over_expression)


def _chained_over_expression(a: float, b: float) -> int:
    return 0 if 0.0 < a + b < 1.0 else 1


def test_numpy_engine_with_a_rule_it_cannot_rewrite_still_gives_the_bits() -> None:
    spec = rod_spec()

    def power_check(length: float, radius: float) -> int:
        code = 0 if 0.0 < radius**1 < math.inf else ROD_RADIUS_POSITIVE
        return code if 0.0 < length < math.inf else ROD_LENGTH_POSITIVE

    import dataclasses

    odd = dataclasses.replace(spec, check=power_check)
    lengths = np.array([1.0, 2.0, -1.0, 0.5])
    radii = np.array([0.1, -0.1, 0.1, 0.2])
    result = batch.batch_function(odd)(length=lengths, radius=radii, engine="numpy",
                                      on_invalid="mask")  # fmt: skip
    assert result.error_codes.tolist() == [0, 2, 1, 0]
    expected = batch.batch_function(spec)(length=lengths, radius=radii, engine="numpy",
                                          on_invalid="mask")  # fmt: skip
    for name in (*QUANTITIES, "error_codes"):
        assert same_bits(getattr(result, name), getattr(expected, name)), name


# -- 9. start-up and the first call ----------------------------------------------------------------


def test_import_does_not_load_numba_and_the_first_call_does() -> None:
    import subprocess
    import sys

    code = (
        "import sys, rigidparts.batch as b\n"
        "assert 'numba' not in sys.modules\n"
        "assert b.ENGINE in ('numba', 'numpy')\n"
        "r = b.cone(length=[1.0, 2.0])\n"
        "assert 'numba' not in sys.modules  # a small batch: the numpy engine, the same bits\n"
        "if b.ENGINE == 'numba':\n"
        "    s = b.cone(length=[1.0, 2.0], engine='numba')\n"
        "    assert 'numba' in sys.modules\n"
        "    assert s.inertia.tobytes() == r.inertia.tobytes()\n"
        "    r = b.cone(length=[1.0, 2.0])  # numba imported: auto takes it now\n"
        "    assert b.resolve_engine('auto', 2) == 'numba'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=300)


class _Terminal:
    """A stand-in for stderr on a terminal (or not)."""

    def __init__(self, tty: bool) -> None:
        self.tty, self.text = tty, []

    def isatty(self) -> bool:
        return self.tty

    def write(self, text: str) -> int:
        self.text.append(text)
        return len(text)

    def flush(self) -> None:
        pass


@pytest.mark.skipif(batch.ENGINE != "numba", reason="numba is not installed")
def test_a_compilation_is_announced_on_a_terminal_only(monkeypatch: pytest.MonkeyPatch) -> None:
    compiled = batch._numba
    terminal = _Terminal(tty=True)
    monkeypatch.setattr(sys, "stderr", terminal)
    compiled.build_kernel(rod_spec(), cache=False)  # a real compilation
    said = "".join(terminal.text)
    assert said.count("\n") == 1 and "compiling the kernel of shape 'rod_for_tests'" in said
    # A kernel loaded from numba's disk cache is no compilation: nothing said.
    cone = SHAPES["cone"]
    kernel = compiled.kernel_for(cone)  # compiled (or loaded) and cached on disk
    terminal.text.clear()
    compiled.build_kernel(cone)
    if type(getattr(kernel, "_cache", None)).__name__ != "NullCache":  # a writable cache
        assert terminal.text == []
    # Not a terminal (a log, a pipe): nothing said, even for a compilation.
    quiet = _Terminal(tty=False)
    monkeypatch.setattr(sys, "stderr", quiet)
    notice = compiled._CompileNotice(object(), rod_spec())
    notice.on_start(type("Event", (), {"data": {"dispatcher": notice.dispatcher}})())
    assert quiet.text == []


def test_compile_ahead_command() -> None:
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "rigidparts.batch"], capture_output=True, text=True, timeout=900
    )
    if batch.ENGINE != "numba":
        assert done.returncode == 2 and "pip install" in done.stderr
        return
    assert done.returncode == 0, done.stderr[-2000:]
    ready = {line.split(":")[0] for line in done.stdout.splitlines()}
    assert ready == {name for name, spec in SHAPES.items() if spec.tier == 1}


# -- 10. dask: scalars stay scalars, memory bounded by the chunks ---------------------------------


def test_dask_scalars_stay_scalars_and_frames_stay_shared() -> None:
    n = 3000
    length = da.from_array(np.linspace(0.5, 1.5, n), chunks=700)
    lazy = batch.cone(length=length, radius_a=0.05, radius_b="20 mm", axis=(0, 0, 1))
    # The graph holds no array of N rows but the one given (and its index).
    graph = dict(lazy.mass.__dask_graph__())
    sizes = [v.size for v in graph.values() if isinstance(v, np.ndarray)]
    assert all(size < n for size in sizes), sizes
    eager = batch.cone(length=np.linspace(0.5, 1.5, n), radius_a=0.05, radius_b=0.02,
                       axis=(0, 0, 1))  # fmt: skip
    done = lazy.compute()
    for name in (*QUANTITIES, "error_codes", "density", "rotation_from_canonical"):
        assert same_bits(getattr(done, name), getattr(eager, name)), name
    for name in ("radius_a", "radius_b", "density", "axis"):
        assert same_bits(np.asarray(lazy.inputs[name]), eager.inputs[name]), name


def test_dask_reduction_of_1e8_rows_in_bounded_memory() -> None:
    """10^8 rows (0.8 GB for one float64 array of them, 11 GB of outputs) reduced lazily: the
    process's peak memory stays below one such array beyond what it held before computing."""
    import subprocess
    import sys

    code = (
        "import dask.array as da, rigidparts as rp\n"
        "def peak():  # this memory map's peak (ru_maxrss keeps the parent's over the exec)\n"
        "    for line in open('/proc/self/status'):\n"
        "        if line.startswith('VmHWM:'):\n"
        "            return int(line.split()[1]) * 1024\n"
        "n = 100_000_000\n"
        "length = da.random.uniform(0.5, 1.5, size=n, chunks=1_000_000)\n"
        "cones = rp.batch.cone(length=length, radius_a=0.05, radius_b=0.02, axis=(0, 0, 1))\n"
        "rp.batch.cone(length=[1.0])  # the kernel and its libraries loaded before measuring\n"
        "before = peak()\n"
        "total = float(cones.mass.sum().compute(num_workers=2))  # chunks in flight: 2\n"
        "print(total, peak() - before)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    total, grown = (float(v) for v in done.stdout.split())
    one = rp.Cone(length=1.0, radius_a=0.05, radius_b=0.02).mass
    assert total == pytest.approx(one * 1e8, rel=1e-3)  # lengths average 1 m
    assert grown < 0.75 * 8e8, f"peak grew by {grown / 2**20:.0f} MiB"


@pytest.mark.skipif(batch.ENGINE != "numba", reason="numba is not installed")
@pytest.mark.parametrize("scalar_streaming", [False, True])
@pytest.mark.parametrize("streaming", [False, True])
@pytest.mark.parametrize("aligned", [False, True])
def test_every_way_of_writing_the_outputs_gives_the_same_bits(
    monkeypatch: pytest.MonkeyPatch, scalar_streaming: bool, streaming: bool, aligned: bool
) -> None:
    """The compiled kernel's two ways of writing its outputs (scalar non-temporal stores, or
    rows staged in L1 and written in whole cache lines, partial lines at either end of a
    block of rows and of an unaligned array with normal stores), with and without
    non-temporal stores, into arrays that start on a cache line or not, in blocks of rows
    taken by threads and ending mid-chunk: the numpy engine's bits, invalid rows included."""
    compiled = batch._numba
    kernel = compiled.build_kernel(SHAPES["cone"], scalar_streaming=scalar_streaming)
    monkeypatch.setattr(compiled, "kernel_for", lambda spec: kernel)
    monkeypatch.setattr(compiled, "STREAMING_THRESHOLD", 0 if streaming else 1 << 62)
    monkeypatch.setattr(compiled, "THREAD_THRESHOLD", 0)  # blocks of CHUNK rows, threads
    if not aligned:  # numpy's own alignment: 16 bytes
        monkeypatch.setattr(batch._pool, "ALIGNMENT", 8)
    batch.release_memory()
    n = 1037  # not a multiple of a chunk, nor of a cache line of any output
    dims = random_cones(n, seed=41)
    dims["inner_radius_a"][::97] = -1.0  # invalid rows: NaN and their codes
    rng = np.random.default_rng(42)
    by_row = {"axis": random_axes(n, seed=43), "mass": rng.uniform(0.1, 10.0, n)}
    for kwargs in ({"density": 7860.0}, by_row):
        expected = batch.cone(**dims, **kwargs, engine="numpy", on_invalid="mask")
        got = batch.cone(**dims, **kwargs, engine="numba", on_invalid="mask")
        for name in (*QUANTITIES, "density", "canonical_moments", "rotation_from_canonical"):
            assert same_bits(getattr(got, name), getattr(expected, name)), name
        assert np.array_equal(got.error_codes, expected.error_codes)
        assert not got.valid.all()
    batch.release_memory()
