"""The fast paths give what the general ones give (no timing here: speed is measured by
``benchmarks/``, figures in ``benchmarks/results/results.md``).

1. One body: the per-axis frame cache, the default-material, plain-density and plain-mass
   shortcuts, the one inertia array (``inertia`` before or after ``mass_properties``), the
   lazily sorted principal moments and axes, the representability rule without calls -- each
   against the uncached computation or the rule as first written, bit for bit, and every
   refusal still made (``rotate90=1``, a complex axis, after a cached hit).
2. Start-up: the ``box`` command and ``import rigidparts.batch`` load no heavy module (pint,
   numba, scipy, matplotlib, dask, trimesh, mujoco), and the command line builds the parser of
   the one command it runs; ``python -m rigidparts.batch`` compiles ahead.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rigidparts as rp
from rigidparts import component, frames
from rigidparts.inertia import (
    MassProperties,
    canonical_inertia,
    rotate_principal_inertia,
    rotation_layout,
    rotation_products,
)
from rigidparts.shapes import SHAPES, results_representable
from rigidparts.shapes._spec import SMALLEST_EXACT, SMALLEST_NORMAL

HEAVY = ("pint", "numba", "scipy", "matplotlib", "dask", "trimesh", "mujoco", "llvmlite")


def same_bits(a: object, b: object) -> bool:
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return x.shape == y.shape and x.tobytes() == y.tobytes()


# -- 1. one body ---------------------------------------------------------------------------------


AXES = [
    (1, 0, 0), (0, 1, 0), (0, 0, 1), (-1, 0, 0), (0.0, -0.0, 3.0), (-0.0, 2, 0), (1, 1, 0),
    (1e-300, 1e-300, 0.0), (3.0, -4.0, 12.0), (1e300, 1e300, 1e300),
]  # fmt: skip


def uncached_frame(axis, rotate90=False, height=None) -> tuple[float, ...]:
    explicit = height is not None
    h = tuple(float(v) for v in height) if explicit else (0.0, 0.0, 0.0)
    code, *rows = frames.body_frame(
        *(float(v) for v in axis), rotate90, explicit, *h
    )  # fmt: skip
    assert code == 0
    return tuple(rows)


@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("rotate90", [False, True])
def test_cached_frames_are_the_rule_bit_for_bit(axis, rotate90: bool) -> None:
    for _ in range(2):  # the first build checks and caches, the second one hits the cache
        box = rp.Box(length=0.7, width=0.1, height=0.3, axis=axis, rotate90=rotate90)
        assert box._frame == uncached_frame(axis, rotate90)
        # As given, in floats: -0.0 stays -0.0 (the key 0.0 == -0.0 hit the same frame).
        assert [repr(v) for v in box.parameters()["axis"]] == [repr(float(v)) for v in axis]
        rows = box._frame
        expected = rotate_principal_inertia(*box._canonical_moments, *rows)
        tensor = np.array(expected)[[0, 3, 4, 3, 1, 5, 4, 5, 2]].reshape(3, 3)
        assert same_bits(box.inertia, tensor)
        assert box.rotate90 is rotate90


def test_a_cached_frame_still_refuses_what_the_rule_refuses() -> None:
    rp.Cone(axis=(1, 0, 0))  # cached
    rp.Box(axis=(1, 0, 0), rotate90=True)
    for kwargs in (
        {"axis": (1 + 0j, 0, 0)},  # equal to (1, 0, 0), and hashes the same
        {"axis": (1, 0, 0), "rotate90": 1},  # 1 == True
        {"axis": (1, 0, 0), "rotate90": np.float64(1.0)},
    ):
        cls = rp.Box if "rotate90" in kwargs else rp.Cone
        with pytest.raises(rp.ParameterError):
            cls(**kwargs)
    # Equal values of other numeric types are accepted, with the same frame.
    for axis in ((np.float64(1.0), np.int64(0), 0.0), ("1", 0, 0)):  # as the rule: float(v)
        assert rp.Cone(axis=axis)._frame == rp.Cone(axis=(1, 0, 0))._frame


def test_frame_cache_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(component, "_FRAMES", {})
    monkeypatch.setattr(component, "_FRAMES_MAX", 8)
    for k in range(30):
        rp.Cone(axis=(1.0, float(k), 0.0))
        assert len(component._FRAMES) <= 8


def test_the_last_axis_is_reused_only_for_the_same_plain_request() -> None:
    # The plan's last axis is reused for the very tuple alone: not with rotate90 or a height
    # direction, and never for an object that is not that tuple.
    tilted, skew = (0.0, 1.0, 1.0), (3.0, -4.0, 12.0)
    for axis in (tilted, skew, tilted, tilted):
        assert rp.Box(axis=axis)._frame == uncached_frame(axis)
        turned = rp.Box(axis=axis, rotate90=True)  # the same tuple object, turned
        assert turned._frame == uncached_frame(axis, True)
        explicit = rp.Box(axis=axis, height_direction=(1, 0, 0))
        assert explicit._frame == uncached_frame(axis, False, (1, 0, 0))
        assert rp.Cone(axis=axis)._frame[:3] == uncached_frame(axis)[:3]
    listed = [0.0, 1.0, 1.0]  # a list is never reused (it could change between calls)
    rp.Cone(axis=listed)
    listed[:] = [1.0, 0.0, 0.0]
    assert rp.Cone(axis=listed)._frame[:3] == (1.0, 0.0, 0.0)
    with pytest.raises(rp.ParameterError, match="axis"):
        rp.Cone(axis=None)


def test_bodies_built_in_threads_get_their_own_axes() -> None:
    # Many threads alternate two axes; each body's frame must be its own axis's (the last-axis
    # entry is read and replaced as one tuple).
    from concurrent.futures import ThreadPoolExecutor

    axes = [(0.0, 0.0, 1.0), (1.0, 2.0, 2.0)]
    expected = [uncached_frame(axis) for axis in axes]

    def build(k: int) -> bool:
        return all(
            rp.Box(axis=axes[(k + i) % 2])._frame == expected[(k + i) % 2] for i in range(300)
        )

    with ThreadPoolExecutor(4) as pool:
        assert all(pool.map(build, range(16)))


def test_height_direction_keys_and_lists() -> None:
    for height in ((0, 0, 1), [0.0, 0.0, 1.0], np.array([0.0, 0.0, 1.0])):
        for _ in range(2):
            box = rp.Box(axis=(1, 0, 0), height_direction=height)
            assert box._frame == uncached_frame((1, 0, 0), False, (0, 0, 1))
            assert box.parameters()["height_direction"] == [0.0, 0.0, 1.0]


@pytest.mark.parametrize("name", sorted(n for n, spec in SHAPES.items() if spec.tier == 1))
def test_material_and_density_shortcuts_equal_the_general_rule(name: str) -> None:
    cls = rp.body_class(name)
    default = cls()
    assert default.material == "steel" and default.density == 7860.0
    named = cls(material="steel")  # the general path: material_source, the table
    assert same_bits(named.inertia, default.inertia) and named.mass == default.mass
    for density in (7860.0, 7860, "7.86 g/cm^3", np.float64(7860.0)):
        given = cls(density=density)
        assert given.material is None
        assert same_bits(given.density, component.resolve_density(None, density, None)[0])
    # A mass alone as a float (the shortcut) against the general rule (a string, resolved).
    shortcut, general = cls(mass=2.5), cls(mass="2.5 kg")
    assert shortcut.mass == general.mass == 2.5 and shortcut.material is None
    assert same_bits(shortcut.density, general.density)
    assert same_bits(shortcut.inertia, general.inertia)
    assert shortcut.parameters() == general.parameters()
    with pytest.raises(rp.ParameterError):
        cls(density=-1.0)
    for bad in ({"mass": -1.0}, {"mass": math.nan}, {"material": "steel", "mass": 2.0}):
        with pytest.raises(rp.ParameterError, match="mass"):
            cls(**bad)
    with pytest.raises(rp.ParameterError):
        cls(material="steel", density=7860.0)


def test_inertia_first_or_mass_properties_first_is_one_array() -> None:
    first = rp.Cone(length=0.3, radius_a=0.05, radius_b=0.02, axis=(0, 1, 1))
    tensor = first.inertia
    assert first.mass_properties.inertia is tensor
    second = rp.Cone(length=0.3, radius_a=0.05, radius_b=0.02, axis=(0, 1, 1))
    props = second.mass_properties
    assert second.inertia is props.inertia
    assert same_bits(tensor, props.inertia)
    assert not tensor.flags.writeable and not props.center_of_mass.flags.writeable
    with pytest.raises(ValueError):
        tensor[0, 0] = 1.0
    with pytest.raises(AttributeError):
        first.inertia = np.eye(3)  # type: ignore[misc]


def test_from_canonical_equals_from_principal_bit_for_bit() -> None:
    rng = np.random.default_rng(1)
    for k in range(300):
        axis = rng.normal(size=3) * 10.0 ** rng.uniform(-3, 3)
        if k % 5 == 0:
            axis = np.eye(3)[k % 3] * (-1) ** k
        _, *rows = frames.body_frame(*axis, bool(k % 2), False, 0.0, 0.0, 0.0)
        sx, sy, sz = rng.uniform(0.1, 1.0, 3)  # second moments of some body
        if k % 7 == 0:  # ties: the sort must be stable, as argsort's
            sy = sx
        moments = (sy + sz, sx + sz, sx + sy)
        fast = MassProperties.from_canonical(2.0, (0.1, 0.2, 0.3), moments, tuple(rows))
        products = rotation_products(*rows)  # the tensor made first, as a body does
        made = canonical_inertia(*moments, products, rotation_layout(products))
        also = MassProperties.from_canonical(2.0, (0.1, 0.2, 0.3), moments, tuple(rows), made)
        slow = MassProperties.from_principal(
            2.0, (0.1, 0.2, 0.3), moments, np.array(rows).reshape(3, 3).T
        )
        for name in ("inertia", "center_of_mass", "principal_moments", "principal_axes"):
            assert same_bits(getattr(fast, name), getattr(slow, name)), (k, name)
            assert same_bits(getattr(also, name), getattr(slow, name)), (k, name)


def _signed_permutations() -> list[tuple[float, ...]]:
    import itertools

    out = []
    for order in itertools.permutations(range(3)):
        for signs in itertools.product((1.0, -1.0), repeat=3):
            matrix = np.zeros((3, 3))
            for row, (column, sign) in enumerate(zip(order, signs, strict=True)):
                matrix[row, column] = sign
            out.append(tuple((matrix + 0.0).ravel().tolist()))  # +0.0 and -0.0 both arise:
            out.append(tuple(np.where(matrix == 0.0, -0.0, matrix).ravel().tolist()))
    return out


def test_layout_of_axis_aligned_frames_is_the_arithmetic_bit_for_bit() -> None:
    """A body along +-x, +-y, +-z: its tensor without arithmetic equals the arithmetic, for
    every signed permutation (with +0.0 or -0.0 in the zeros) and positive moments of every
    size; other frames and other moments take the arithmetic."""
    rng = np.random.default_rng(2)
    moment_sets = []
    for _ in range(20):
        sx, sy, sz = rng.uniform(0.1, 2.0, 3)  # second moments: valid principal moments
        moment_sets.append((sy + sz, sx + sz, sx + sy))
    moment_sets += [(5e-324, 1.0, 1.0), (1e308, 1e308, 1e-300), (1.0, 1.0, 1.0)]
    for rows in _signed_permutations():
        products = rotation_products(*rows)
        layout = rotation_layout(products)
        assert layout is not None, rows
        for moments in moment_sets:
            fast = canonical_inertia(*moments, products, layout)
            slow = canonical_inertia(*moments, products)
            expected = rotate_principal_inertia(*moments, *rows)
            assert same_bits(fast, slow), (rows, moments)
            assert same_bits(np.diag(fast), expected[:3])
    general = rotation_products(*uncached_frame((1.0, 2.0, 3.0)))
    assert rotation_layout(general) is None
    # Zero moments fall outside the layout's premise: the arithmetic decides.
    rows = _signed_permutations()[5]
    products = rotation_products(*rows)
    zero = canonical_inertia(0.0, 1.0, 1.0, products, rotation_layout(products))
    assert same_bits(zero, canonical_inertia(0.0, 1.0, 1.0, products))


def _representable_as_first_written(volume, mass, i_xx, i_yy, i_zz, density) -> bool:
    # The rule with math.isfinite and min, before comparisons replaced the two calls.
    return (
        0.0 < density < math.inf
        and SMALLEST_EXACT <= volume
        and SMALLEST_NORMAL <= mass < math.inf
        and math.isfinite(i_xx + i_yy + i_zz)
        and SMALLEST_EXACT <= min(i_xx, i_yy, i_zz) / density
    )


_EDGES = [0.0, -0.0, 5e-324, SMALLEST_NORMAL, SMALLEST_EXACT, 1.0, 1e308, math.inf, -math.inf,
          math.nan, -1.0]  # fmt: skip


@given(st.tuples(*[st.one_of(st.sampled_from(_EDGES), st.floats(allow_nan=True))] * 6))
@settings(max_examples=3000)
def test_representability_without_calls_is_the_rule_as_first_written(args) -> None:
    assert results_representable(*args) == _representable_as_first_written(*args)


def test_representability_on_ties_and_edges() -> None:
    import itertools

    for moments in itertools.product([1.0, 2.0, SMALLEST_EXACT, math.nan, math.inf], repeat=3):
        for density in (1.0, 2.0**-30, 7860.0):
            args = (1.0, 1.0, *moments, density)
            assert results_representable(*args) == _representable_as_first_written(*args)


def test_invalid_canonical_moments_are_refused_as_before() -> None:
    rows = uncached_frame((1, 0, 0))
    for moments, words in (((1.0, 1.0, 3.0), "triangle"), ((-1.0, 2.0, 2.0), "negative")):
        with pytest.raises(rp.ParameterError) as info:
            MassProperties.from_canonical(1.0, (0.0, 0.0, 0.0), moments, rows)
        assert words in str(info.value)
    # Within the tolerance: accepted, as the rule says (I1 + I2 = I3 (1 - 1e-13)).
    MassProperties.from_canonical(1.0, (0.0, 0.0, 0.0), (1.0, 1.0, 2.0 + 4e-13), rows)


def test_dimensions_and_attributes_of_the_lazy_state() -> None:
    cone = rp.Cone(length="250 mm", radius_a=0.05, radius_b=0.02)
    assert cone.length == 0.25 and cone.radius_a == 0.05
    assert dict(cone.dimensions) == {
        "length": 0.25, "radius_a": 0.05, "radius_b": 0.02, "inner_radius_a": 0.0,
        "inner_radius_b": 0.0,
    }  # fmt: skip
    with pytest.raises(AttributeError):
        cone.no_such_thing  # noqa: B018
    with pytest.raises(AttributeError):
        cone.length = 2.0  # type: ignore[misc]
    with pytest.raises(AttributeError):
        cone._results = ()


# -- 2. start-up ---------------------------------------------------------------------------------


def _modules_after(code: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys, json\n"
         "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))"],
        capture_output=True, text=True, check=True, timeout=120,
    )  # fmt: skip
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


def test_box_command_loads_no_heavy_module() -> None:
    code = (
        "import contextlib, io\n"
        "from rigidparts.commands import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        "    assert main(['box', '--length', '250 mm', '--density', '7.85 g/cm^3', '--json'])"
        " == 0\n"
        "assert '\"mass\"' in out.getvalue()\n"
    )
    assert not _modules_after(code) & set(HEAVY)


def test_small_study_and_small_batch_load_neither_numba_nor_dask() -> None:
    # A 1000-sample study is one chunk: computed in the calling thread, by the numpy engine
    # (both give the bits of the compiled engine and of dask: tests/test_tolerance.py).
    code = (
        "import contextlib, io\n"
        "from rigidparts.commands import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        "    assert main(['tolerance', 'cone', '--radius-a', '0.4 m +- 0.1 mm',"
        " '--samples', '1000']) == 0\n"
        "assert 'principal_moment_1' in out.getvalue()\n"
        "import numpy as np, rigidparts as rp\n"
        "rp.batch.cone(length=np.linspace(1.0, 2.0, 1000))\n"
        "rp.batch.sensitivities('cone', length=np.linspace(1.0, 2.0, 1000))\n"
    )
    loaded = _modules_after(code)
    assert not loaded & {"numba", "llvmlite", "dask"}


def test_import_rigidparts_and_batch_load_no_heavy_module() -> None:
    assert not _modules_after("import rigidparts") & set(HEAVY)
    # numba loads on the first batch call, not at import.
    assert not _modules_after("import rigidparts.batch") & set(HEAVY)


def test_the_command_line_builds_only_the_command_it_runs() -> None:
    from rigidparts.commands import build_parser

    full = build_parser()
    one = build_parser(only="box")
    choices = next(a for a in full._actions if a.dest == "command").choices
    assert {"box", "cone", "export", "materials"} <= set(choices)
    only = next(a for a in one._actions if a.dest == "command").choices
    assert list(only) == ["box"]
    # Not a command: the full parser (its error lists every choice).
    assert build_parser(only="boxx").format_usage() == full.format_usage()
