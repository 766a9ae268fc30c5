"""Tolerance studies (issue 13 items 2-4): rp.tolerance and ``rigidparts tolerance``.

Statistical checks use a fixed seed (deterministic: they pass or fail the same way every run)
with bounds of 5 standard errors computed from the analytic moments (sympy), so a correct
implementation fails with probability below 1e-6 for any seed, and a wrong mean or variance
beyond a fraction of a percent is caught.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from typing import ClassVar

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import rigidparts as rp
from rigidparts.commands import main
from rigidparts.errors import ParameterError
from rigidparts.tolerancing import BLOCK, OUTPUTS, Tolerance, parse_tolerance
from rigidparts.tolerancing.study import (
    combine_blocks,
    percentiles_from_histogram,
)
from rigidparts.units import to_si

MM = to_si("x", "1 mm")

# -- the text form --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "nominal", "minus", "plus", "distribution"),
    [
        ("0.4 m +- 0.1 mm", 0.4, 0.1, 0.1, "uniform"),
        ("0.4 m ± 0.1 mm", 0.4, 0.1, 0.1, "uniform"),
        ("0.4 m +/- 0.1 mm uniform", 0.4, 0.1, 0.1, "uniform"),
        ("400 mm+-0.1mm", 0.4, 0.1, 0.1, "uniform"),
        ("1 m +0.2 mm -0.1 mm", 1.0, 0.1, 0.2, "uniform"),
        ("1e-3 m +0.2 mm -0 mm", 1e-3, 0.0, 0.2, "uniform"),
        ("0.4 m +- 0.09 mm normal", 0.4, 0.09, 0.09, "normal"),
    ],
)
def test_parse_lengths(text: str, nominal: float, minus: float, plus: float, distribution: str):
    t = parse_tolerance("radius_a", text)
    assert t.nominal == pytest.approx(nominal, rel=1e-15)
    assert t.minus == pytest.approx(minus * 1e-3, rel=1e-15)
    assert t.plus == pytest.approx(plus * 1e-3, rel=1e-15)
    assert t.distribution == distribution
    if distribution == "normal":
        assert t.sigma == pytest.approx(minus * 1e-3 / 3, rel=1e-15)


def test_parse_percent_and_sigma():
    t = parse_tolerance("density", "7860 kg/m^3 +- 1 %", "density")
    assert (t.nominal, t.minus, t.plus) == (7860.0, 78.6, 78.6)
    t = parse_tolerance("density", "7.86 g/cm^3 +- 1%", "density")
    assert t.nominal == pytest.approx(7860.0, rel=1e-15) and t.plus == pytest.approx(78.6)
    t = parse_tolerance("radius", "0.4 m sigma 0.03 mm")
    assert t.distribution == "normal" and t.sigma == pytest.approx(3e-5, rel=1e-15)
    assert t.minus == t.plus == pytest.approx(9e-5, rel=1e-15)
    assert Tolerance.normal(0.4, 3e-5).sigma == 3e-5


def test_tolerance_moments():
    u = Tolerance(1.0, 0.1, 0.3)
    assert u.mean == pytest.approx(1.1) and u.variance == pytest.approx(0.4**2 / 12)
    n = Tolerance.normal(2.0, 0.5)
    assert n.mean == 2.0 and n.variance == 0.25


# -- bad input --------------------------------------------------------------------------------

BAD = [
    # a band wider than the value: a negative (or zero) dimension possible
    (dict(radius="0.1 m +- 0.2 m"), "radius", "wider than the value"),
    (dict(length="1 m +- 1 m"), "length", "must be positive"),
    (dict(inner_radius="0 m +- 1 mm"), "inner_radius", "must be non-negative"),
    (dict(radius="0.1 m sigma 0.04 m"), "radius", "3 sigma is wider"),
    (dict(density="7860 kg/m^3 +- 150 %"), "density", "wider than the value"),
    # unknown distribution
    (dict(radius="0.1 m +- 1 mm triangular"), "radius", "unknown distribution"),
    (dict(radius=Tolerance(0.1, 1e-3, 1e-3)), None, None),  # (valid: control)
    # a parameter the shape does not have (the list of its parameters is given)
    (dict(radius_a="0.4 m +- 1 mm"), "radius_a", "its parameters are length, radius"),
    # unparsable text and wrong dimensions
    (dict(radius="0.1 m +- abc"), "radius", "write NOMINAL +- BAND"),
    (dict(radius="0.1 m +- 1 kg"), "radius", "length"),
    (dict(radius="0.1 m +- 1 mm +- 2 mm"), "radius", "more than one"),
    (dict(radius="0.1 m +1 mm -1 mm normal"), "radius", "symmetric"),
    (dict(radius="abc +- 1 mm"), "radius", "nominal value"),
    # tolerances where none can be, and none at all
    (dict(axis="1 +- 1", radius="0.1 m +- 1 mm"), "axis", "cannot carry a tolerance"),
    (dict(radius=0.1), "parameters", "at least one tolerance"),
    # a nominal body that is invalid, and two material sources
    (dict(radius="0.1 m +- 1 mm", inner_radius=0.2), "inner_radius", "must not exceed"),
    (dict(radius="0.1 m +- 1 mm", density="7860 kg/m^3 +- 1 %", mass=3.0), "mass", "only one"),
]


@pytest.mark.parametrize(("kwargs", "parameter", "words"), BAD)
def test_bad_parameters(kwargs, parameter, words):
    if parameter is None:
        assert rp.tolerance("cylinder", samples=10, **kwargs).valid == 10
        return
    with pytest.raises(ParameterError) as info:
        rp.tolerance("cylinder", samples=10, **kwargs)
    assert info.value.parameter == parameter
    assert words in str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("options", "parameter"),
    [
        (dict(samples=0), "samples"),
        (dict(samples=-5), "samples"),
        (dict(samples=1.5), "samples"),
        (dict(samples="abc"), "samples"),
        (dict(samples=True), "samples"),
        (dict(samples=float("inf")), "samples"),
        (dict(seed=-1), "seed"),
        (dict(seed=1.5), "seed"),
        (dict(on_invalid="mask"), "on_invalid"),
        (dict(percentiles=[50, 101]), "percentiles"),
        (dict(percentiles="x"), "percentiles"),
        (dict(chunk_size=0), "chunk_size"),
        (dict(scheduler="fast"), "scheduler"),
        (dict(engine="gpu"), "engine"),
        (dict(progress="yes"), "progress"),
    ],
)
def test_bad_options(options, parameter):
    with pytest.raises(ParameterError) as info:
        rp.tolerance("cylinder", radius="0.1 m +- 1 mm", **{"samples": 10, **options})
    assert info.value.parameter == parameter


def test_bad_tolerance_values():
    with pytest.raises(ParameterError, match="unknown distribution"):
        Tolerance(1.0, 0.1, 0.1, "triangular")
    with pytest.raises(ParameterError, match="non-negative"):
        Tolerance(1.0, -0.1, 0.1)
    with pytest.raises(ParameterError, match="must equal minus"):
        Tolerance(1.0, 0.1, 0.2, "normal")


def test_shapes_without_closed_forms_and_unknown_shapes():
    with pytest.raises(ParameterError, match="no batch path"):
        rp.tolerance("mesh", density="1000 kg/m^3 +- 1 %", samples=10)
    with pytest.raises(ParameterError) as info:
        rp.tolerance("pyramid", samples=10)
    assert info.value.parameter == "shape"


# -- statistics against analytic moments ----------------------------------------------------


def _uniform_moments(expr, variables):
    """E[expr], Var[expr] and the 4th central moment for independent uniform variables
    ``{symbol: (low, high)}`` (exact rationals), by sympy integration."""

    def expect(e):
        for s, (lo, hi) in variables.items():
            e = sp.integrate(e, (s, lo, hi)) / (hi - lo)
        return sp.nsimplify(e)

    mean = expect(expr)
    var = expect((expr - mean) ** 2)
    mu4 = expect((expr - mean) ** 4)
    return mean, var, mu4


def test_tube_mass_moments_against_sympy():
    """Mass of a tube (cylinder) with uniform independent length and radii, wide bands:
    E[m] and Var[m] exactly (a polynomial in uniform variables), against the study's mean and
    variance within 5 standard errors; and the first-order sigma against sympy's gradient."""
    n = 200_000
    rho = 7860
    L, R, r = sp.symbols("L R r")
    lengths = (sp.Rational(8, 10), sp.Rational(12, 10))
    radii = (sp.Rational(8, 100), sp.Rational(12, 100))
    inner = (sp.Rational(4, 100), sp.Rational(6, 100))
    mass = rho * sp.pi * L * (R**2 - r**2)
    mean, var, mu4 = _uniform_moments(mass, {L: lengths, R: radii, r: inner})
    mean, var, mu4 = float(mean), float(var), float(mu4)
    study = rp.tolerance(
        "cylinder", length="1 m +- 0.2 m", radius="0.1 m +- 0.02 m",
        inner_radius="0.05 m +- 0.01 m", density=rho, samples=n, seed=7,
    )  # fmt: skip
    assert study.valid == n and study.invalid == 0
    se_mean = math.sqrt(var / n)
    se_var = math.sqrt((mu4 - var**2 * (n - 3) / (n - 1)) / n)
    assert abs(study.mean[0] - mean) < 5 * se_mean
    assert abs(study.std[0] ** 2 - var) < 5 * se_var
    # The mean's shift from the nominal mass (E[R^2] = R0^2 + a^2/3, bands differ) is far
    # outside the bound: the test would see a sampler centred wrongly.
    assert abs(study.nominal[0] - mean) > 10 * se_mean
    # First order: sqrt(sum (dm/dp)^2 Var p) at the nominal point, from sympy's gradient.
    point = {L: 1, R: sp.Rational(1, 10), r: sp.Rational(5, 100)}
    widths = {L: sp.Rational(4, 10), R: sp.Rational(4, 100), r: sp.Rational(2, 100)}
    linear = sum(sp.diff(mass, s).subs(point) ** 2 * widths[s] ** 2 / 12 for s in point)
    assert study.first_order_std[0] == pytest.approx(float(sp.sqrt(linear)), rel=1e-12)
    assert study.first_order_mean[0] == pytest.approx(float(mass.subs(point)), rel=1e-14)
    # Volume = mass / density exactly in distribution: same moments scaled.
    assert study.mean[7] == pytest.approx(mean / rho, rel=5 * se_mean / mean)


def test_normal_sampling_and_percentiles_of_a_linear_output():
    """Density alone toleranced: mass = V rho is a linear map of the density, so its mean,
    sigma and percentiles are those of the distribution, scaled by the volume V."""
    n = 300_000
    volume = rp.Cylinder(length=1.0, radius=0.1).volume
    study = rp.tolerance("cylinder", density="7860 kg/m^3 sigma 20 kg/m^3", samples=n, seed=3)
    sigma = 20 * volume
    assert abs(study.mean[0] - 7860 * volume) < 5 * sigma / math.sqrt(n)
    # Var of s^2 for a normal: 2 sigma^4 / (n - 1).
    assert abs(study.std[0] ** 2 - sigma**2) < 5 * math.sqrt(2 / (n - 1)) * sigma**2
    study = rp.tolerance("cylinder", density="7860 kg/m^3 +- 100 kg/m^3", samples=n, seed=4)
    low, width = (7860 - 100) * volume, 200 * volume
    for q, value in zip(study.percentiles, study.percentile_values[0], strict=True):
        p = q / 100
        # sample quantile of a uniform: standard error sqrt(p (1 - p) / n) of the width
        bound = 5 * math.sqrt(p * (1 - p) / n) * width + study.percentile_resolution[0]
        assert abs(value - (low + p * width)) < bound
    assert low <= study.min[0] < study.max[0] <= low + width
    # Outputs that do not vary: exact, every percentile equal to the value.
    assert np.all(study.percentile_values[2] == study.nominal[2])
    assert study.std[2] == 0


def test_first_order_agrees_for_small_tolerances():
    """Small bands on every dimension of a hollow cone and the density: the Monte-Carlo mean
    and sigma agree with the first-order estimate within the sampling error (5 standard
    errors; the second-order terms are ~1e-8 relative here)."""
    n = 200_000
    study = rp.tolerance(
        "cone", length="1 m +- 0.5 mm", radius_a="50 mm +- 0.05 mm",
        radius_b="30 mm +- 0.05 mm", inner_radius_a="45 mm +- 0.05 mm",
        inner_radius_b="25 mm sigma 0.02 mm", density="7860 kg/m^3 +- 1 %",
        axis=(0, 0, 1), samples=n, seed=11,
    )  # fmt: skip
    assert study.invalid == 0
    varying = study.first_order_std > 0
    assert varying.sum() == 6  # the centre of mass moves along z only
    for j in np.flatnonzero(varying):
        sigma = study.first_order_std[j]
        assert abs(study.mean[j] - study.first_order_mean[j]) < 5 * sigma / math.sqrt(n)
        # relative standard error of s <= sqrt(1 / (2 n)) for kurtosis <= 3 (sums of
        # uniforms and normals)
        assert abs(study.std[j] / sigma - 1) < 5 * math.sqrt(1 / (2 * n)), OUTPUTS[j]
    # The centre of mass lies on the axis (z): x and y are exactly 0 in every sample.
    assert study.min[1] == study.max[1] == 0 and study.min[2] == study.max[2] == 0


# -- invalid samples ----------------------------------------------------------------------


def test_invalid_samples_counted_and_refused():
    """Inner radius band overlapping the radius band: P(r > R) for independent uniforms is
    (sympy) the area of the overlap triangle; the count is within 5 binomial sigmas."""
    n = 200_000
    R, r = sp.symbols("R r")
    p_exact = sp.integrate(
        sp.integrate(1, (r, R, sp.Rational(11, 100))),
        (R, sp.Rational(9, 100), sp.Rational(11, 100)),
    ) / (sp.Rational(2, 100) * sp.Rational(4, 100))  # R in [0.09, 0.11], r in [0.07, 0.11]
    p = float(p_exact)
    kwargs = dict(radius="0.1 m +- 10 mm", inner_radius="0.09 m +- 20 mm", samples=n, seed=5)
    study = rp.tolerance("cylinder", **kwargs)
    assert abs(study.invalid - n * p) < 5 * math.sqrt(n * p * (1 - p))
    assert study.valid + study.invalid == n and study.first_invalid is not None
    assert study.min[0] > 0  # invalid rows (NaN) left out of every statistic
    assert np.all(np.isfinite(study.mean)) and study.histogram[0].sum() == study.valid
    with pytest.raises(ParameterError) as info:
        rp.tolerance("cylinder", on_invalid="error", **kwargs)
    assert info.value.parameter == "inner_radius"
    assert info.value.index == study.first_invalid
    assert "must not exceed radius" in str(info.value)


def test_one_sample_is_the_body_of_its_drawn_values():
    """The stream of block 0 is the documented one (uniform doubles, one parameter after the
    other in the shape's order, then the density): a study of 3 samples has, as min, median
    and max of each output, exactly the values of the three bodies built from those draws
    (mass, centre of mass, principal moments in ascending order, volume)."""
    from rigidparts.tolerancing.study import block_stream

    study = rp.tolerance(
        "box", width="0.1 m +- 5 mm", length="0.3 m +- 0.1 m", height="0.2 m sigma 10 mm",
        density="7860 kg/m^3 +- 1 %", axis=(0.3, 0.4, 1.2), samples=3, seed=5,
        percentiles=(50,),
    )  # fmt: skip
    rng = block_stream(5, 0)
    length = 0.2 + 0.2 * rng.random(3)  # the box's parameter order: length, width, height
    width = 0.095 + 0.01 * rng.random(3)
    height = 0.2 + 0.01 * rng.standard_normal(3)
    density = 7860 * 0.99 + 7860 * 0.02 * rng.random(3)
    rows = []
    for i in range(3):
        body = rp.Box(length=length[i], width=width[i], height=height[i], density=density[i],
                      axis=(0.3, 0.4, 1.2))  # fmt: skip
        rows.append([body.mass, *body.center_of_mass, *body.principal_moments, body.volume])
    rows = np.array(rows)
    assert np.all(np.diff(rows[:, 4:7], axis=1) >= 0)
    np.testing.assert_allclose(study.min, rows.min(axis=0), rtol=1e-15, atol=0)
    np.testing.assert_allclose(study.max, rows.max(axis=0), rtol=1e-15, atol=0)
    assert study.mean == pytest.approx(rows.mean(axis=0), rel=1e-14)


# -- exactness: chunks and schedulers ---------------------------------------------------------

CASE = dict(
    length="1 m +- 0.5 mm",
    radius_a="0.4 m +- 0.1 mm",
    inner_radius_a="0.3 m +- 0.1 m",  # some invalid samples: the counts must agree too
    density="7860 kg/m^3 +- 1 %",
)
ARRAYS = ("mean", "std", "min", "max", "percentile_values", "histogram", "first_order_std")


def _same(a, b):
    for name in ARRAYS:
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert (a.valid, a.invalid, a.first_invalid) == (b.valid, b.invalid, b.first_invalid)
    assert a.to_dict() == b.to_dict()


def test_bit_identical_for_chunk_sizes():
    n = 5 * BLOCK + 12_345  # a short last block
    results = [
        rp.tolerance("cone", samples=n, seed=2, chunk_size=size, **CASE)
        for size in (BLOCK, 2 * BLOCK, 3 * BLOCK + 1)  # (the last rounds up to 4 blocks)
    ]
    assert results[0].invalid > 0
    for other in results[1:]:
        _same(results[0], other)
    _same(results[0], rp.tolerance("cone", samples=n, seed=2, scheduler="synchronous", **CASE))
    assert not np.array_equal(results[0].mean, rp.tolerance("cone", samples=n, seed=3, **CASE).mean)


def test_threaded_and_distributed_bit_identical():
    distributed = pytest.importorskip("distributed")
    n = 4 * BLOCK + 1000
    local = rp.tolerance("cone", samples=n, seed=9, chunk_size=BLOCK, **CASE)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as cluster:
        remote = rp.tolerance("cone", samples=n, seed=9, scheduler=cluster.scheduler_address,
                              chunk_size=2 * BLOCK, **CASE)  # fmt: skip
        with distributed.Client(cluster) as client:
            client.wait_for_workers(2)
            assert len(client.nthreads()) == 2
            with_client = rp.tolerance("cone", samples=n, seed=9, client=client, **CASE)
            # Invalid samples in every chunk: the error names the study's first one, as the
            # local scheduler does, whichever chunk the workers finish first.
            bad = dict(radius="0.1 m +- 10 mm", inner_radius="0.09 m +- 20 mm", seed=5)
            first = rp.tolerance("cylinder", samples=n, chunk_size=BLOCK, **bad).first_invalid
            for _ in range(3):
                with pytest.raises(ParameterError) as info:
                    rp.tolerance("cylinder", samples=n, chunk_size=BLOCK, client=client,
                                 on_invalid="error", **bad)  # fmt: skip
                assert info.value.index == first
    _same(local, remote)
    _same(local, with_client)


def test_unreachable_scheduler_is_one_line():
    pytest.importorskip("distributed")
    import dask

    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        with pytest.raises(ParameterError) as info:
            rp.tolerance("cylinder", radius="0.1 m +- 1 mm", samples=10,
                         scheduler="tcp://127.0.0.1:9")  # fmt: skip
    assert info.value.parameter == "scheduler"


def test_progress_callback_reaches_the_total():
    seen: list[tuple[int, int]] = []
    rp.tolerance("cylinder", radius="0.1 m +- 1 mm", samples=3 * BLOCK + 7, chunk_size=BLOCK,
                 progress=lambda done, total: seen.append((done, total)))  # fmt: skip
    assert seen[-1] == (3 * BLOCK + 7, 3 * BLOCK + 7)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


# -- the reduction's pieces (invariants) ------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.integers(0, 40), min_size=1, max_size=8),
    st.floats(-1e6, 1e6),
    st.floats(1e-3, 1e3),
)
def test_chan_combination_matches_the_whole(sizes, shift, scale):
    """Blocks of any sizes (empty ones too), combined by Chan's update: the mean and M2 of
    the whole data (numpy's two-pass on the concatenation) to rounding, min and max exact."""
    rng = np.random.default_rng(len(sizes))
    data = [shift + scale * rng.standard_normal((2, m)) for m in sizes]
    stats = np.full((len(sizes), 2, 4), np.nan)
    for k, block in enumerate(data):
        if block.shape[1]:
            mean = block.mean(axis=1)
            stats[k, :, 0] = mean
            stats[k, :, 1] = ((block - mean[:, None]) ** 2).sum(axis=1)
            stats[k, :, 2] = block.min(axis=1)
            stats[k, :, 3] = block.max(axis=1)
    counts = np.array(sizes)
    n, combined = combine_blocks(counts, stats)
    whole = np.concatenate(data, axis=1)
    assert n == whole.shape[1]
    if n == 0:
        assert np.all(np.isnan(combined))
        return
    eps = np.finfo(float).eps
    size = abs(shift) + 6 * scale  # |x| for every x here (6 sigma of 320 normals)
    for j in range(2):  # exact references: rational arithmetic on the very floats
        values = [Fraction(v) for v in whole[j].tolist()]
        mean = sum(values) / n
        m2 = sum((v - mean) ** 2 for v in values)
        assert abs(Fraction(combined[j, 0]) - mean) <= 8 * eps * size
        # each squared deviation is off by about 2 |x - mean| eps |x|: summed, n of them
        assert abs(Fraction(combined[j, 1]) - m2) <= 16 * n * eps * size * 6 * scale
    assert np.array_equal(combined[:, 2], whole.min(axis=1))
    assert np.array_equal(combined[:, 3], whole.max(axis=1))


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 5000), st.floats(0.0, 100.0), st.integers(4, 64))
def test_histogram_percentile_lies_in_the_bin_of_the_order_statistic(n, q, bins):
    """A percentile from fixed-edge counts lies in the bin that holds the sample's order
    statistic x_(ceil(q n / 100)) (the under- and overflow bins span the exact min and max to
    the edges): so it is within one bin width of the sample percentile."""
    rng = np.random.default_rng(n)
    x = rng.uniform(-1.0, 2.0, n)
    edges = np.array([-0.5, 1.5])  # values outside fall in the under- and overflow bins
    width = (edges[1] - edges[0]) / bins
    index = np.clip(np.floor((x - edges[0]) / width), -1, bins) + 1
    counts = np.bincount(index.astype(int), minlength=bins + 2)
    got = percentiles_from_histogram(counts, edges, x.min(), x.max(), np.array([q]))[0]
    v = np.sort(x)[max(1, math.ceil(q / 100 * n)) - 1]
    i = int(np.clip(np.floor((v - edges[0]) / width), -1, bins))
    if i < 0:
        low, high = x.min(), edges[0]
    elif i == bins:
        low, high = edges[1], x.max()
    else:
        low, high = edges[0] + i * width, edges[0] + (i + 1) * width
    assert low - 1e-12 <= got <= high + 1e-12


# -- the command line -----------------------------------------------------------------------


def test_cli_json_and_picture(tmp_path, capsys):
    picture = tmp_path / "spread.png"
    status = main([
        "tolerance", "cone", "--radius-a", "0.4 m +- 0.1 mm", "--length", "1 m +- 0.5 mm",
        "--density", "7860 kg/m^3 +- 1 %", "--samples", "2e4", "--seed", "4",
        "--percentiles", "1,50,99", "-o", str(picture), "--json",
    ])  # fmt: skip
    assert status == 0
    data = json.loads(capsys.readouterr().out)
    assert data["samples"] == 20_000 and data["seed"] == 4 and data["invalid"] == 0
    assert set(data["outputs"]) == set(OUTPUTS)
    assert set(data["outputs"]["mass"]["percentiles"]) == {"1", "50", "99"}
    assert data["tolerances"]["density"]["plus"] == pytest.approx(78.6)
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    same = rp.tolerance("cone", radius_a="0.4 m +- 0.1 mm", length="1 m +- 0.5 mm",
                        density="7860 kg/m^3 +- 1 %", samples=20_000, seed=4,
                        percentiles=(1, 50, 99))  # fmt: skip
    assert data["outputs"]["mass"]["mean"] == same.mean[0]


def test_cli_table(capsys):
    assert main(["tolerance", "box", "--width", "0.1 m +- 0.1 mm", "--samples", "1000"]) == 0
    out = capsys.readouterr().out
    assert "1st-order std" in out and "principal_moment_3" in out and "p99.9" in out


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--radius-a", "0.4 m +- 0.5 m"], "wider than the value"),
        (["--radius-a", "0.4 m +- 1 mm triangular"], "unknown distribution"),
        (["--radius-a", "0.4 m +- 1 mm", "--samples", "0"], "samples=0"),
        (["--radius-a", "0.4 m +- 1 mm", "--samples", "ten"], "expected an integer"),
        (["--radius-a", "0.4 m +- 1 mm", "--seed", "-1"], "seed=-1"),
        (["--radius-c", "0.4 m +- 1 mm"], "unrecognized arguments"),
        (["--radius-a", "0.4 m +- 1 mm", "--on-invalid", "mask"], "invalid choice"),
        (["--radius-a", "0.4 m +- 1 mm", "-o", "spread.txt"], "must end in"),
        (["--radius-a", "0.4 m +- 1 mm", "--extra-frame", "0.5"], "unrecognized arguments"),
        (
            ["--inner-radius-a", "0.4 m +- 1 mm", "--on-invalid", "error", "--samples", "100"],
            "must not exceed radius_a",
        ),
    ],
)
def test_cli_errors(argv, words, capsys):
    assert main(["tolerance", "cone", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and words in err and err.count("\n") == 1


# -- review fixes -----------------------------------------------------------------------------


def test_bad_scheduler_scheme_is_refused_before_any_client(capfd):
    """A scheme dask does not know is a one-line error at once: no client is built, so none
    is left to a destructor (which used to wait and print "Exception ignored ...")."""
    pytest.importorskip("distributed")
    import gc

    assert main(["tolerance", "cylinder", "--radius", "0.1 m +- 1 mm", "--samples", "10",
                 "--scheduler", "foo://bar"]) == 2  # fmt: skip
    gc.collect()
    err = capfd.readouterr().err
    assert err.startswith("error: scheduler='foo://bar': is not a dask scheduler address")
    assert "unknown address scheme" in err and err.count("\n") == 1
    for address in ("tcp://", "foo"):
        with pytest.raises(ParameterError) as info:
            rp.tolerance("cylinder", radius="0.1 m +- 1 mm", samples=10, scheduler=address)
        assert info.value.parameter == "scheduler"


def _no_valid_sample():
    # radius 0.1 m, inner radius uniform in [0.099999, 0.109999]: valid with probability 1e-4
    study = rp.tolerance("cylinder", radius=0.1, inner_radius="99.999 mm +10 mm -0 mm",
                         samples=50, seed=0)  # fmt: skip
    assert study.valid == 0 and study.invalid == 50
    return study


def test_no_valid_sample_plot_and_json(tmp_path, capsys):
    study = _no_valid_sample()
    with pytest.raises(ParameterError, match=r"no valid sample to plot \(50 invalid\)"):
        study.plot(tmp_path / "spread.png")
    data = json.loads(json.dumps(study.to_dict(), allow_nan=False))
    assert data["outputs"]["mass"]["mean"] is None and data["outputs"]["mass"]["std"] is None
    assert data["outputs"]["mass"]["nominal"] == study.nominal[0]
    # One sample: no standard deviation (n - 1 = 0), the rest is there.
    assert main(["tolerance", "cylinder", "--radius", "0.1 m +- 1 mm", "--samples", "1",
                 "--json"]) == 0  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert out["outputs"]["mass"]["std"] is None and out["outputs"]["mass"]["mean"] > 0
    picture = tmp_path / "none.png"
    assert main(["tolerance", "cylinder", "--radius", "0.1", "--inner-radius",
                 "99.999 mm +10 mm -0 mm", "--samples", "50", "-o", str(picture)]) == 2  # fmt: skip
    err = capsys.readouterr().err
    assert "no valid sample to plot" in err and err.count("\n") == 1 and not picture.exists()


def test_normal_sigma_must_agree_with_its_band():
    """The band of a normal tolerance is 3 sigma: a sigma wider than its band used to slip
    past the wider-than-the-value check."""
    with pytest.raises(ParameterError) as info:
        Tolerance(0.1, 1e-3, 1e-3, "normal", sigma=0.05)
    assert info.value.parameter == "sigma" and "third of the band" in str(info.value)
    assert Tolerance(0.1, 3e-3, 3e-3, "normal", sigma=1e-3).sigma == 1e-3
    with pytest.raises(ParameterError, match="3 sigma is wider than the value"):
        rp.tolerance("cylinder", radius=Tolerance.normal(0.1, 0.05), samples=10)


def test_tolerance_accepts_any_real_number():
    from decimal import Decimal

    for value in (np.float32(0.25), Fraction(1, 4), Decimal("0.25"), np.int64(1)):
        t = Tolerance(value, value / 10, value / 10)
        assert type(t.nominal) is float and t.nominal == float(value)
    assert Tolerance.normal(Decimal("0.4"), Decimal("0.001")).sigma == 0.001
    for bad in ("0.4", True, None, 1j):
        with pytest.raises(ParameterError, match="must be a number"):
            Tolerance(bad, 0.1, 0.1)


def test_memory_does_not_grow_with_the_sample_count():
    """No state proportional to N: the chunk ranges are generated, and the accumulator of
    2^53 samples (2^37 blocks) is as small as that of one block. Blocks merged out of order
    fold exactly as combine_blocks folds them in order, and none is kept once its
    predecessors are in."""
    from rigidparts.tolerancing.run import Accumulator, chunk_ranges
    from rigidparts.tolerancing.study import ChunkStats, Plan, combine_blocks

    plan = Plan("cylinder", {}, (), samples=2**53, seed=0, on_invalid="skip", engine="auto")
    ranges = chunk_ranges(plan, 1)
    assert next(ranges) == (0, 1) and next(ranges) == (1, 1)
    acc = Accumulator.empty(plan)
    assert all(a.nbytes < 10**6 for a in vars(acc).values() if isinstance(a, np.ndarray))

    rng = np.random.default_rng(1)
    blocks = 12
    plan = Plan("cylinder", {}, (), samples=blocks * BLOCK - 5, seed=0, on_invalid="skip",
                engine="auto")  # fmt: skip
    counts = rng.integers(0, BLOCK, blocks)
    counts[3] = 0
    stats = rng.standard_normal((blocks, len(OUTPUTS), 4))
    chunks = [ChunkStats(b, counts[b : b + 3], stats[b : b + 3], None, None)
              for b in range(0, blocks, 3)]  # fmt: skip
    acc = Accumulator.empty(plan)
    for chunk in (chunks[2], chunks[0], chunks[3], chunks[1]):
        acc.add(chunk, plan)
    assert not acc.early and acc.next_block == blocks
    n, combined = acc.result(plan)
    expected_n, expected = combine_blocks(counts, stats)
    assert n == expected_n and np.array_equal(combined, expected)
    assert acc.done == plan.samples


def test_local_workers_follow_dask(monkeypatch):
    """The local scheduler's worker count is dask's: its num_workers setting, else
    dask.system.CPU_COUNT (not os.cpu_count())."""
    import dask
    import dask.system

    seen: list[int] = []
    compute = dask.compute

    def spy(*args, **kwargs):
        seen.append(kwargs.get("num_workers"))
        return compute(*args, **kwargs)

    monkeypatch.setattr(dask, "compute", spy)
    monkeypatch.setattr(dask.system, "CPU_COUNT", 3)
    rp.tolerance("cylinder", radius="0.1 m +- 1 mm", samples=3 * BLOCK, chunk_size=BLOCK)
    assert seen and set(seen) == {3}
    seen.clear()
    with dask.config.set(num_workers=1):
        rp.tolerance("cylinder", radius="0.1 m +- 1 mm", samples=3 * BLOCK, chunk_size=BLOCK)
    assert seen and set(seen) == {1}


def test_unregistered_shape_spec_is_refused():
    from dataclasses import replace

    from rigidparts.shapes import SHAPES

    spec = SHAPES["cylinder"]
    copy = replace(spec)
    with pytest.raises(ParameterError, match="not in the shape registry"):
        rp.tolerance(copy, radius="0.1 m +- 1 mm", samples=10)
    with pytest.raises(ParameterError, match="not in the shape registry"):
        rp.batch.sensitivities(copy, length=[1.0, 2.0])
    assert rp.tolerance(spec, radius="0.1 m +- 1 mm", samples=10).valid == 10
    by_spec = rp.batch.sensitivities(spec, length=[1.0, 2.0])
    assert np.array_equal(
        by_spec.inertia, rp.batch.sensitivities("cylinder", length=[1.0, 2.0]).inertia
    )


def test_histogram_range_survives_a_collapsed_pilot():
    """A pilot block with one valid sample (or a constant output) has a zero range: the
    edges still span the first-order mean +- 8 first-order sigma."""
    from rigidparts.tolerancing.study import SPREAD, histogram_edges

    stats = np.array([[5.0, 0.0, 5.0, 5.0], [np.nan] * 4, [2.0, 0.0, 2.0, 2.0]])
    nominal = np.array([5.0, 1.0, 2.0])
    edges = histogram_edges(stats, nominal, np.array([5.1, 1.0, 2.0]), np.array([0.1, 0.2, 0.0]))
    assert edges[0, 0] <= 5.1 - SPREAD * 0.1 and edges[0, 1] >= 5.1 + SPREAD * 0.1
    assert edges[1, 0] <= 1.0 - SPREAD * 0.2 and edges[1, 1] >= 1.0 + SPREAD * 0.2
    assert edges[2, 0] < 2.0 < edges[2, 1] and edges[2, 1] - edges[2, 0] < 1e-8  # constant
    # and the pilot's own range still counts where it is wider
    wide = histogram_edges(np.array([[0.0, 0.0, 4.0, 6.0]]), np.array([5.0]),
                           np.array([5.0]), np.array([0.01]))  # fmt: skip
    assert wide[0, 0] <= 4.0 and wide[0, 1] >= 6.0


def test_plot_groups_keep_every_bin():
    from rigidparts.tolerancing.result import _grouped

    counts = np.arange(1, 162)
    for group in (1, 2, 3, 80):
        grouped = _grouped(counts, group)
        assert grouped.sum() == counts.sum() and grouped.shape[0] == -(-161 // group)


def test_mass_toleranced_study_against_sympy():
    """A cylinder toleranced on its radius and its mass (the batch's by-mass path): the
    mass is the drawn one, and the axial moment m R^2 / 2 has E and Var from sympy."""
    n = 200_000
    m, R = sp.symbols("m R")
    masses, radii = (
        (sp.Rational(45, 10), sp.Rational(55, 10)),
        (sp.Rational(9, 100), sp.Rational(11, 100)),
    )
    axial = m * R**2 / 2
    mean, var, _ = _uniform_moments(axial, {m: masses, R: radii})
    study = rp.tolerance("cylinder", length=2.0, radius="0.1 m +- 10 mm", mass="5 kg +- 0.5 kg",
                         samples=n, seed=13)  # fmt: skip
    assert study.valid == n
    assert abs(study.mean[4] - float(mean)) < 5 * math.sqrt(float(var) / n)
    m_var = float(sp.Rational(1, 12))  # (1 kg)^2 / 12
    assert abs(study.mean[0] - 5.0) < 5 * math.sqrt(m_var / n)
    assert study.first_order_std[0] == pytest.approx(math.sqrt(m_var), rel=1e-14)
    assert study.min[0] >= 4.5 and study.max[0] <= 5.5
    # First order of the axial moment: gradient of m R^2 / 2 at (5, 0.1) by sympy.
    point = {m: 5, R: sp.Rational(1, 10)}
    linear = sum(sp.diff(axial, s).subs(point) ** 2 * (hi - lo) ** 2 / 12
                 for s, (lo, hi) in ((m, masses), (R, radii)))  # fmt: skip
    assert study.first_order_std[4] == pytest.approx(float(sp.sqrt(linear)), rel=1e-12)


def test_asymmetric_band_first_order_mean():
    """mean_1 = f(p0) + f'(p0) (E[p] - p0): for length 1 m +0.2 mm -0.1 mm, E[L] - L0 =
    0.05 mm; mass = rho pi R^2 L (sympy's derivative)."""
    L, R, rho = sp.symbols("L R rho")
    mass = rho * sp.pi * R**2 * L
    point = {L: 1, R: sp.Rational(1, 10), rho: 7860}
    shift = sp.Rational(5, 100000)
    expected = mass.subs(point) + sp.diff(mass, L).subs(point) * shift
    study = rp.tolerance("cylinder", length="1 m +0.2 mm -0.1 mm", radius=0.1, density=7860,
                         samples=1000)  # fmt: skip
    assert study.first_order_mean[0] == pytest.approx(float(expected), rel=1e-14)
    assert study.first_order_mean[0] != study.nominal[0]


class _Recorder:
    """A stand-in for the progress bar: records what it is told."""

    made: ClassVar[list[_Recorder]] = []

    def __init__(self, total: int) -> None:
        self.total, self.done, self.closed = total, 0, False
        _Recorder.made.append(self)

    def __call__(self, n: int) -> None:
        self.done += n

    def close(self) -> None:
        self.closed = True


def test_progress_bar_reaches_the_total(monkeypatch):
    import rigidparts.tolerancing as tolerancing

    pytest.importorskip("tqdm")
    n = 3 * BLOCK + 7
    rp.tolerance("cylinder", radius="0.1 m +- 1 mm", samples=n, chunk_size=BLOCK, progress=True)
    _Recorder.made.clear()
    monkeypatch.setattr(tolerancing, "_Bar", _Recorder)
    rp.tolerance("cylinder", radius="0.1 m +- 1 mm", samples=n, chunk_size=BLOCK, progress=True)
    (bar,) = _Recorder.made
    assert (bar.total, bar.done, bar.closed) == (n, n, True)


@pytest.mark.parametrize("terminal", [True, False])
def test_cli_progress_only_on_a_terminal(monkeypatch, capsys, terminal):
    import sys

    import rigidparts.tolerancing as tolerancing

    pytest.importorskip("tqdm")
    _Recorder.made.clear()
    monkeypatch.setattr(tolerancing, "_Bar", _Recorder)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: terminal)
    assert main(["tolerance", "cylinder", "--radius", "0.1 m +- 1 mm", "--samples", "70000",
                 "--chunk-size", "65536"]) == 0  # fmt: skip
    if terminal:
        (bar,) = _Recorder.made
        assert (bar.total, bar.done, bar.closed) == (70_000, 70_000, True)
    else:
        assert not _Recorder.made


def test_batch_threads_option_and_row_error():
    """The public entry points a study uses: ``threads=False`` gives the same bits; the
    error of one row is the one on_invalid="raise" raises."""
    length = np.linspace(0.5, 1.5, 50_000)
    inner = np.where(np.arange(50_000) == 777, 0.2, 0.05)
    a = rp.batch.cylinder(length=length, radius=0.1, inner_radius=inner, on_invalid="mask")
    b = rp.batch.cylinder(length=length, radius=0.1, inner_radius=inner, on_invalid="mask",
                          threads=False)  # fmt: skip
    assert np.array_equal(a.inertia, b.inertia, equal_nan=True)
    with pytest.raises(ParameterError) as info:
        rp.batch.cylinder(length=length, radius=0.1, inner_radius=inner)
    error = a.error(777)
    assert (error.parameter, error.index, str(error)) == (
        info.value.parameter, info.value.index, str(info.value))  # fmt: skip
    assert a.error(776) is None and a.error(777, index=9).index == 9
    with pytest.raises(ParameterError, match="threads"):
        rp.batch.cylinder(length=1.0, threads="no")


@settings(max_examples=25, deadline=None)
@given(
    st.integers(1, 3 * 300 + 7),
    st.integers(0, 2**32 - 1),
    st.sampled_from([0.0, 0.3, 1.0]),
    st.booleans(),
)
def test_compiled_reduction_matches_numpy_bit_for_bit(n, seed, invalid_share, histogram):
    """The one-pass compiled reduction (numba) against the numpy path (gather, two-pass
    statistics, histogram) on random rows: short blocks, invalid rows, constant outputs,
    signed zeros, sums of every length on both sides of numpy's pairwise thresholds."""
    pytest.importorskip("numba")
    from types import SimpleNamespace

    from rigidparts.tolerancing._numba import reduce_blocks
    from rigidparts.tolerancing.study import Plan, add_histogram, block_stats, gather_columns

    rng = np.random.default_rng(seed)
    block = 300
    scale = 10.0 ** rng.integers(-6, 6, 8)
    values = rng.standard_normal((n, 8)) * scale + rng.standard_normal(8) * scale * 3
    values[:, 2] = 0.0  # a constant output
    values[:, 3] = np.where(rng.random(n) < 0.5, 0.0, -0.0)  # signed zeros
    codes = np.where(rng.random(n) < invalid_share, 3, 0).astype(np.uint8)
    result = SimpleNamespace(
        mass=values[:, 0].copy(),
        center_of_mass=np.ascontiguousarray(values[:, 1:4]),
        canonical_moments=np.ascontiguousarray(np.abs(values[:, 4:7])),
        volume=values[:, 7].copy(),
    )
    blocks = -(-n // block)
    low = values.min(axis=0) - 0.1 * np.abs(values.min(axis=0))
    high = low + 0.8 * (values.max(axis=0) - low)  # some values overflow
    edges = np.stack([low, np.where(high > low, high, low + 1.0)], axis=1)
    plan = Plan("cylinder", {}, (), n, 0, "skip", "numba", edges=edges, bins=64, block=block)
    hist_ref = np.zeros((8, 66), np.int64)
    counts_ref, stats_ref = np.empty(blocks, np.int64), np.empty((blocks, 8, 4))
    for k in range(blocks):
        lo, m = k * block, min(block, n - k * block)
        columns = gather_columns(result, lo, m, np.empty((8, m)))
        columns = np.ascontiguousarray(columns[:, codes[lo : lo + m] == 0])
        counts_ref[k] = columns.shape[1]
        stats_ref[k] = block_stats(columns)
        if histogram and columns.shape[1]:
            add_histogram(columns, stats_ref[k], plan, hist_ref)
    hist, counts, stats = (
        np.zeros((8, 66), np.int64),
        np.empty(blocks, np.int64),
        np.empty_like(stats_ref),
    )
    reduce_blocks(result.mass, result.center_of_mass, result.canonical_moments, result.volume,
                  codes, block, np.ascontiguousarray(edges[:, 0]),
                  64 / (edges[:, 1] - edges[:, 0]), 64, hist, histogram, counts, stats)  # fmt: skip
    assert np.array_equal(counts, counts_ref)
    assert np.array_equal(stats, stats_ref, equal_nan=True)
    assert np.array_equal(np.signbit(stats), np.signbit(stats_ref))
    assert np.array_equal(hist, hist_ref)


def test_study_is_the_same_with_and_without_the_compiled_reduction():
    pytest.importorskip("numba")
    n = 2 * BLOCK + 999
    with_numba = rp.tolerance("cone", samples=n, seed=2, engine="numba", **CASE)
    plain = rp.tolerance("cone", samples=n, seed=2, engine="numpy", **CASE)
    _same(with_numba, plain)
