"""The tolerance engineer's outputs (issue 24 part 2): contributions, worst-case and RSS stacks,
specification limits (yield, ppm, Cp, Cpk with intervals), model studies, pictures.

Every figure is checked against an independent computation: the samples redrawn here from the
documented keyed streams and pushed through the textbook box formula ``m = rho L W H`` in
numpy (correlations, counts, Cpk on numpy's mean and std); derivatives by hand; the exact
extreme over the box's corners; published interval values (Montgomery) and exact binomial
coverage; a pendulum's period composed by hand and through the model's own
``subtree_mass_properties`` with a separate parallel-axis shift.
"""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binom

import rigidparts as rp
from rigidparts.commands import main
from rigidparts.errors import ParameterError
from rigidparts.tolerancing import BLOCK
from rigidparts.tolerancing.capability import (
    capability,
    clopper_pearson,
    first_order_contributions,
    parse_limits,
    sample_contributions,
)

# A box: m = rho L W H (no bore), every input toleranced, uniform bands.
BOX = {"length": (1.0, 0.01), "width": (0.1, 0.002), "height": (0.2, 0.001)}
RHO = (7850.0, 78.5)
N = 3000
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def box_study(samples: int = N, **options):
    kwargs = {name: f"{v} m +- {t} m" for name, (v, t) in BOX.items()}
    return rp.tolerance(
        "box", samples=samples, seed=5, density=f"{RHO[0]} kg/m^3 +- {RHO[1]} kg/m^3",
        engine="numpy", **kwargs, **options,
    )  # fmt: skip


def held_samples(samples: int = N, seed: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """The study's inputs redrawn from the documented streams (block b: PCG64DXSM of
    SeedSequence(seed, spawn_key=(b,)), one uniform array per input in parameter order, then
    the density), and the box mass by the textbook formula."""
    bands = [*BOX.values(), RHO]
    x = np.empty((4, samples))
    for b in range(-(-samples // BLOCK)):
        rng = np.random.Generator(np.random.PCG64DXSM(np.random.SeedSequence(seed, spawn_key=(b,))))
        lo, m = b * BLOCK, min(BLOCK, samples - b * BLOCK)
        for i, (v, t) in enumerate(bands):
            x[i, lo : lo + m] = rng.random(m) * (2 * t) + (v - t)
    return x, x[0] * x[1] * x[2] * x[3]


def test_sample_contributions_match_numpy_on_held_samples():
    result = box_study()
    x, mass = held_samples()
    assert result.inputs == ("length", "width", "height", "density")
    j = result.outputs.index("mass")
    expected = [np.corrcoef(x[i], mass)[0, 1] ** 2 for i in range(4)]
    np.testing.assert_allclose(result.sample_contributions[:, j], expected, rtol=1e-9)
    assert result.mean[j] == pytest.approx(mass.mean(), rel=1e-12)


def test_first_order_contributions_by_hand():
    result = box_study(samples=100)
    j = result.outputs.index("mass")
    values = [v for v, _ in [*BOX.values(), RHO]]
    halves = [t for _, t in [*BOX.values(), RHO]]
    m0 = math.prod(values)
    gradient = [m0 / v for v in values]  # d(rho L W H)/dx = m / x
    variance = [t * t / 3 for t in halves]  # uniform on +-t: (2t)^2 / 12
    parts = [g * g * s for g, s in zip(gradient, variance, strict=True)]
    np.testing.assert_allclose(result.gradient[:, j], gradient, rtol=1e-12)
    np.testing.assert_allclose(result.contributions[:, j], np.array(parts) / sum(parts), rtol=1e-12)
    # RSS: m0 +- sqrt(sum (g t)^2); worst case linearised: m0 +- sum |g| t
    rss = math.sqrt(sum((g * t) ** 2 for g, t in zip(gradient, halves, strict=True)))
    wc = sum(abs(g) * t for g, t in zip(gradient, halves, strict=True))
    np.testing.assert_allclose(result.rss[j], [m0 - rss, m0 + rss], rtol=1e-12)
    np.testing.assert_allclose(result.worst_case[j], [m0 - wc, m0 + wc], rtol=1e-12)


def test_worst_case_against_the_box_corners():
    """The linearised worst case against the exact extremes over the 16 corners of the box of
    inputs (rho L W H is monotone in each input: its extremes are corners); they differ by the
    second- and higher-order terms only: m0 (prod(1 + t_i/x_i) - 1 - sum t_i/x_i)."""
    result = box_study(samples=100)
    j = result.outputs.index("mass")
    bands = [*BOX.values(), RHO]
    corners = [
        math.prod(v + s * t for (v, t), s in zip(bands, signs, strict=True))
        for signs in itertools.product((-1, 1), repeat=4)
    ]
    m0 = math.prod(v for v, _ in bands)
    relative = [t / v for v, t in bands]
    bound = m0 * (math.prod(1 + r for r in relative) - 1 - sum(relative))
    assert abs(result.worst_case[j, 1] - max(corners)) <= bound * (1 + 1e-9)
    assert abs(result.worst_case[j, 0] - min(corners)) <= bound * (1 + 1e-9)
    assert result.worst_case[j, 0] <= result.min[j] and result.max[j] <= max(corners)
    assert result.rss[j, 0] > result.worst_case[j, 0] and result.rss[j, 1] < result.worst_case[j, 1]


def test_yield_ppm_and_cpk_against_an_exact_count():
    _, mass = held_samples()
    ordered = np.sort(mass)
    # limits half-way between neighbouring samples: no sample within rounding of a limit
    low = 0.5 * (ordered[40] + ordered[41])
    high = 0.5 * (ordered[2950] + ordered[2951])
    result = box_study(limits={"mass": (low, f"{high * 1000} g")})
    c = result.capability["mass"]
    below, above = int((mass < low).sum()), int((mass > high).sum())
    assert (c["below"], c["above"]) == (below, above) == (41, N - 2951)
    assert c["yield"] == (N - below - above) / N
    assert c["ppm"] == pytest.approx(1e6 * (below + above) / N, rel=1e-15)
    mu, s = mass.mean(), mass.std(ddof=1)
    assert c["cpk"] == pytest.approx(min(high - mu, mu - low) / (3 * s), rel=1e-9)
    assert c["cp"] == pytest.approx((high - low) / (6 * s), rel=1e-9)
    lo, hi = c["yield_interval"]
    assert lo <= c["yield"] <= hi
    # one-sided: only the upper limit
    one = box_study(limits={"mass": f"..{high} kg"}).capability["mass"]
    assert one["cp"] is None and one["below"] == 0 and one["above"] == above
    assert one["cpk"] == pytest.approx((high - mu) / (3 * s), rel=1e-9)


def test_bissell_and_chi_square_published_values():
    """Montgomery, Introduction to Statistical Quality Control (7th ed.), examples 8.4 / 8.5:
    n = 20, Cp = 1.15: 0.78 <= Cp <= 1.52 (chi-square; rounded to 2 digits there, the
    lower end is 0.7875); Cpk = 1.33: 0.88 <= Cpk <= 1.78 (Bissell)."""
    s = 1.0
    c = capability((-3 * 1.15, 3 * 1.15), 20, 0.0, s, 0, 0)
    assert c["cp"] == pytest.approx(1.15)
    assert c["cp_interval"][0] == pytest.approx(0.7875, abs=0.006)
    assert c["cp_interval"][1] == pytest.approx(1.52, abs=0.01)
    c = capability((-100.0, 3 * 1.33), 20, 0.0, s, 0, 0)
    assert c["cpk"] == pytest.approx(1.33)
    assert c["cpk_interval"] == pytest.approx([0.88, 1.78], abs=0.005)


@pytest.mark.parametrize("n", [10, 50])
def test_clopper_pearson_exact_coverage(n):
    """Exact coverage (binomial sums, no simulation) is at least 95 % at every p of a grid,
    and k = 0 gives the closed form 1 - (alpha/2)^(1/n) for the upper end."""
    bounds = [clopper_pearson(k, n) for k in range(n + 1)]
    for p in np.linspace(0.001, 0.999, 199):
        covered = sum(binom.pmf(k, n, p) for k, (lo, hi) in enumerate(bounds) if lo <= p <= hi)
        assert covered >= 0.95 - 1e-9
    assert bounds[0] == (0.0, pytest.approx(1 - 0.025 ** (1 / n), rel=1e-12))


def test_cp_interval_coverage_by_simulation():
    """The chi-square interval of Cp is exact for normal data: its coverage over 2000 seeded
    data sets of 30 lies within 4 binomial standard errors (0.0195) of 95 %."""
    rng = np.random.default_rng(3)
    data = rng.normal(0.0, 1.0, size=(2000, 30))
    hits = 0
    for row in data:
        c = capability((-3.0, 3.0), 30, row.mean(), row.std(ddof=1), 0, 0)
        hits += c["cp_interval"][0] <= 1.0 <= c["cp_interval"][1]
    assert abs(hits / 2000 - 0.95) < 4 * math.sqrt(0.95 * 0.05 / 2000)


def test_bit_identical_for_any_chunk_size():
    limits = {"mass": "155 kg..160 kg", "principal_moment_1": (None, 0.8)}
    samples = 2 * BLOCK + 123
    a = box_study(samples=samples, limits=limits, chunk_size=BLOCK).to_dict()
    b = box_study(samples=samples, limits=limits, chunk_size=4 * BLOCK).to_dict()
    c = box_study(samples=samples, limits=limits, chunk_size=BLOCK, scheduler="threads").to_dict()
    assert json.dumps(a) == json.dumps(b) == json.dumps(c)
    assert a["outputs"]["mass"]["specification"]["below"] > 0


def test_invalid_samples_are_left_out_of_every_figure():
    """A bore whose band overlaps the radius's: the invalid samples (bore >= radius) are
    counted, and the co-moments and limit counts hold the valid samples only (checked on the
    samples redrawn here, mass rho pi L (r^2 - ri^2) in numpy)."""
    n = 4000
    result = rp.tolerance(
        "cylinder", length="1 m +- 10 mm", radius="0.1 m +- 2 mm",
        inner_radius="0.099 m +- 2 mm", density=1000.0, samples=n, seed=8, engine="numpy",
        limits={"mass": (None, 0.8)},
    )  # fmt: skip
    rng = np.random.Generator(np.random.PCG64DXSM(np.random.SeedSequence(8, spawn_key=(0,))))
    x = np.stack([rng.random(n) * 2 * t + (v - t) for v, t in
                  [(1.0, 0.01), (0.1, 0.002), (0.099, 0.002)]])  # fmt: skip
    valid = x[2] < x[1]
    mass = 1000.0 * math.pi * x[0] * (x[1] - x[2]) * (x[1] + x[2])
    assert result.invalid == n - valid.sum() > 0
    assert result.capability["mass"]["above"] == int((mass[valid] > 0.8).sum())
    j = result.outputs.index("mass")
    for i in range(3):
        expected = np.corrcoef(x[i, valid], mass[valid])[0, 1] ** 2
        assert result.sample_contributions[i, j] == pytest.approx(expected, rel=1e-8)


def test_numba_and_numpy_engines_give_the_same_figures():
    pytest.importorskip("numba")
    limits = {"mass": "155 kg..160 kg"}
    a = box_study(samples=BLOCK + 5, limits=limits).to_dict()
    kwargs = {name: f"{v} m +- {t} m" for name, (v, t) in BOX.items()}
    b = rp.tolerance(
        "box", samples=BLOCK + 5, seed=5, density=f"{RHO[0]} kg/m^3 +- {RHO[1]} kg/m^3",
        engine="numba", limits=limits, **kwargs,
    ).to_dict()  # fmt: skip
    assert json.dumps(a) == json.dumps(b)


# -- model studies -----------------------------------------------------------------------


def box_pendulum(length: float = 1.0, side: float = 0.04) -> rp.Model:
    model = rp.Model(name="rod", gravity=(0, 0, -9.81))
    model.add_body("rod", rp.Box(length=length, width=side, height=side, axis=(0, 0, -1),
                                 material="aluminium"))  # fmt: skip
    model.add_joint("hinge", "revolute", "world", "rod.frame_a", axis=(0, 1, 0),
                    position=(0, 0, 2.0))  # fmt: skip
    return model


def test_box_pendulum_period_by_hand():
    """A square-section bar of length L hinged at its end: I_O = m (L^2 + a^2) / 12 + m (L/2)^2,
    d = L/2, T = 2 pi sqrt(I_O / (m g d)); the mass cancels."""
    length, side = 1.0, 0.04
    result = rp.tolerance(
        box_pendulum(length, side),
        {"rod.length": "1 m +- 1 mm"},
        outputs=["period:hinge", "total_mass", "com:rod"],
        samples=200,
    )
    i_o = (length**2 + side**2) / 12 + (length / 2) ** 2
    period = 2 * math.pi * math.sqrt(i_o / (9.81 * length / 2))
    assert result.nominal[0] == pytest.approx(period, rel=1e-13)
    assert result.nominal[1] == pytest.approx(2700 * length * side * side, rel=1e-13)
    np.testing.assert_allclose(result.nominal[2:], [0, 0, 2 - length / 2], atol=1e-15)
    # dT/dL by hand (d/dL of the formula above), against the Richardson central differences
    h = 1e-6
    t = [2 * math.pi * math.sqrt(((L**2 + side**2) / 12 + (L / 2) ** 2) / (9.81 * L / 2))
         for L in (length - h, length + h)]  # fmt: skip
    assert result.gradient[0, 0] == pytest.approx((t[1] - t[0]) / (2 * h), rel=1e-7)


def composed_period(model: rp.Model, name: str) -> float:
    """The period from Model.subtree_mass_properties at the zero configuration, with the
    parallel-axis shift to the joint's axis written here."""
    joint = model.joints[name]
    zero = model.zero_positions()
    props = model.subtree_mass_properties(zero)[joint.child_body]
    r_w, p_w = model.frame_poses(zero)[joint.child]
    axis = np.asarray(r_w) @ np.asarray(joint.axis_in_joint)
    r = np.asarray(props.center_of_mass) - np.asarray(p_w)
    d2 = r @ r - (r @ axis) ** 2
    i_o = axis @ np.asarray(props.inertia) @ axis + props.mass * d2
    g = float(np.linalg.norm(model.gravity))
    return 2 * math.pi * math.sqrt(i_o / (props.mass * g * math.sqrt(d2)))


def test_two_body_pendulum_against_the_model_composition():
    model = rp.load_model(str(EXAMPLES / "pendulum.toml"))
    joint = next(j for j in model.joints.values() if j.type == "revolute")
    result = rp.tolerance(model, {"*.density": "+- 1 %"},
                          outputs=["total_mass", f"period:{joint.name}"], samples=100)  # fmt: skip
    zero = model.zero_positions()
    assert result.nominal[0] == pytest.approx(model.mass_properties(zero).mass, rel=1e-13)
    assert result.nominal[1] == pytest.approx(composed_period(model, joint.name), rel=1e-12)
    # the first-order shares of the two densities in the period sum to 1
    assert np.nansum(result.contributions[:, 1]) == pytest.approx(1.0, rel=1e-12)


def test_moving_anchor_against_rebuilt_models(tmp_path):
    """The elbow's anchor sits at the upper bar's frame_b, which moves with its length: the
    period about it and the lower body's centre of mass against models rebuilt from the file
    with the length changed (central difference of the independent composition)."""
    text = (EXAMPLES / "double_pendulum.toml").read_text(encoding="utf-8")
    assert 'length = "400 mm"' in text

    def rebuilt(length_mm: float) -> rp.Model:
        path = tmp_path / f"m{length_mm}.toml"
        path.write_text(text.replace('length = "400 mm"', f'length = "{length_mm!r} mm"'))
        return rp.load_model(path)

    result = rp.tolerance(rebuilt(400.0), {"upper.length": "400 mm +- 1 %"},
                          outputs=["period:elbow", "com:lower"], samples=100)  # fmt: skip
    assert result.nominal[0] == pytest.approx(composed_period(rebuilt(400.0), "elbow"), rel=1e-12)
    h = 0.01  # mm
    up, down = rebuilt(400.0 + h), rebuilt(400.0 - h)
    zero = up.zero_positions()
    z_up = up.subtree_mass_properties(zero)["lower"].center_of_mass[2]
    z_down = down.subtree_mass_properties(zero)["lower"].center_of_mass[2]
    dz = (z_up - z_down) / (2 * h * 1e-3)
    assert dz == pytest.approx(-1.0, rel=1e-6)  # the lower body hangs from frame_b: dz/dL = -1
    assert result.gradient[0, 3] == pytest.approx(dz, rel=1e-6)
    dt = (composed_period(up, "elbow") - composed_period(down, "elbow")) / (2 * h * 1e-3)
    assert result.gradient[0, 0] == pytest.approx(dt, abs=1e-6)


def test_model_contributions_and_yield_against_held_samples():
    model = rp.load_model(str(EXAMPLES / "double_pendulum.toml"))
    spec = {"upper.length": "400 mm +- 1 %", "*.density": "+- 2 %"}
    n = 5000
    result = rp.tolerance(model, spec, outputs=["total_mass"], samples=n, seed=9,
                          limits={"total_mass": "5.3 kg..5.42 kg"})  # fmt: skip
    held = rp.randomize(model, spec, envs=n, seed=9, episode=0)
    mass = held.body_mass.sum(axis=1)  # independent composition: the plain sum
    for i, name in enumerate(result.inputs):
        expected = np.corrcoef(held.samples[name], mass)[0, 1] ** 2
        assert result.sample_contributions[i, 0] == pytest.approx(expected, rel=1e-8)
    c = result.capability["total_mass"]
    assert (c["below"], c["above"]) == (int((mass < 5.3).sum()), int((mass > 5.42).sum()))
    assert result.mean[0] == pytest.approx(mass.mean(), rel=1e-12)
    # mass is linear in each density and in the length: the r^2 add up to about 1
    assert np.sum(result.sample_contributions[:, 0]) == pytest.approx(1.0, abs=0.02)
    assert np.sum(result.contributions[:, 0]) == pytest.approx(1.0, rel=1e-12)


def hollow_model() -> rp.Model:
    model = rp.Model(name="tube")
    model.add_body("tube", rp.Cylinder(length=0.5, radius=0.05, inner_radius=0.045))
    model.add_joint("hinge", "revolute", "world", "tube.frame_a", axis=(0, 1, 0))
    return model


def test_model_invalid_draws_are_counted_not_dropped():
    """Bore and radius both varied: each end alone is valid, a high bore with a low radius is
    not; those draws are counted (and redrawn), or refused with on_invalid='error'."""
    spec = {"tube.radius": "50 mm +- 3 mm", "tube.inner_radius": "45 mm +- 3 mm"}
    result = rp.tolerance(hollow_model(), spec, outputs=["total_mass"], samples=4000, seed=2)
    assert result.invalid > 0 and result.valid == 4000
    assert "inner_radius" in str(result).split("\n")[0]
    with pytest.raises(ParameterError, match=r"tube\.radius|tube\.inner_radius"):
        rp.tolerance(hollow_model(), spec, outputs=["total_mass"], samples=4000, seed=2,
                     on_invalid="error")  # fmt: skip


@pytest.mark.parametrize(
    ("spec", "options", "words"),
    [
        ({"arm.length": "1 m +- 1 %"}, {}, "arm.length=.*names no body"),
        ({"rod.colour": "+- 1 %"}, {}, "rod.colour=.*cannot vary"),
        ({"rod.length": "1 m +- 150 %"}, {}, "rod.length=.*wider than the value"),
        (
            {"rod.width": "40 mm +- 1 %", "rod.inner_width": "39 mm +- 2 mm"},
            {},
            "rod.inner_width=.*makes body 'rod' invalid",
        ),
        ({"rod.length": "1 m +- 1 %"}, {"outputs": ["period:nope"]}, "names no joint"),
        ({"rod.length": "1 m +- 1 %"}, {"outputs": ["speed"]}, "is not an output"),
        ({"rod.length": "1 m +- 1 %"}, {"limits": {"mass": (0, 1)}}, r"limits\['mass'\]"),
        ({"rod.length": "1 m +- 1 %"}, {"limits": {"total_mass": (2, 1)}}, "above high"),
        ({"rod.length": "1 m +- 1 %"}, {"limits": {"total_mass": ("1 m", None)}}, "dimension"),
        ({"rod.length": "1 m +- 1 %"}, {"limits": {"total_mass": (None, None)}}, "no bound"),
    ],
)
def test_model_bad_input_names_the_key(spec, options, words):
    with pytest.raises(ParameterError, match=words) as info:
        rp.tolerance(box_pendulum(), spec, samples=10, **options)
    assert "\n" not in str(info.value)


def test_shape_bad_limits():
    with pytest.raises(ParameterError, match=r"limits\['weight'\].*names no output"):
        box_study(samples=10, limits={"weight": (1, 2)})
    with pytest.raises(ParameterError, match=r"LOW\.\.HIGH"):
        box_study(samples=10, limits={"mass": "1 kg"})


# -- invariants ----------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(-1e3, 1e3), min_size=6, max_size=6),
    st.lists(st.floats(1e-6, 1e2), min_size=3, max_size=3),
)
def test_first_order_shares_sum_to_one(gradient, variance):
    g = np.array(gradient).reshape(3, 2)
    shares = first_order_contributions(g, np.array(variance))
    for j in range(2):
        if np.isfinite(shares[:, j]).all():
            assert np.all((shares[:, j] >= 0) & (shares[:, j] <= 1))
            assert shares[:, j].sum() == pytest.approx(1.0, rel=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.floats(-1e3, 1e3), st.floats(1e-3, 1e3), st.floats(1e-3, 1e3))
def test_squared_correlations_in_unit_interval(c, mx, my):
    r2 = sample_contributions(np.array([[c]]), np.array([mx]), np.array([my]))
    assert 0.0 <= r2[0, 0] <= 1.0


@settings(max_examples=80, deadline=None)
@given(
    st.integers(2, 10**7),
    st.floats(0.0, 1.0),
    st.floats(0.0, 1.0),
    st.floats(-5, 5),
    st.floats(1e-3, 10),
)
def test_capability_invariants(n, below_fraction, above_fraction, mean, std):
    below = int(n * below_fraction * 0.5)
    above = int(n * above_fraction * 0.5)
    c = capability((-1.0, 2.0), n, mean, std, below, above)
    assert 0.0 <= c["yield"] <= 1.0
    lo, hi = c["yield_interval"]
    assert 0.0 <= lo <= c["yield"] <= hi <= 1.0
    assert c["cp_interval"][0] <= c["cp"] <= c["cp_interval"][1]
    assert c["cpk_interval"][0] <= c["cpk"] <= c["cpk_interval"][1]
    assert c["ppm"] == pytest.approx(1e6 * (1 - c["yield"]), abs=1e-6)


def test_parse_limits_forms():
    outputs, units = ("mass", "volume", "principal_moment_1"), ("kg", "m^3", "kg m^2")
    got = parse_limits(
        {"mass": "1200 g..1.3 kg", "volume": ("1 L", None), "principal_moment_1": "..2 g*m^2"},
        outputs, units,
    )  # fmt: skip
    assert got["mass"] == pytest.approx((1.2, 1.3))
    assert got["volume"] == (pytest.approx(1e-3), math.inf)
    assert got["principal_moment_1"] == (-math.inf, pytest.approx(2e-3))


# -- tables, JSON, pictures, command line --------------------------------------------------


def test_str_and_json_carry_the_figures():
    result = box_study(samples=2000, limits={"mass": "150 kg..165 kg"})
    text = str(result)
    for words in ("worst-case low", "RSS high", "contributions to each output", "Cpk",
                  "yield %", "density", "kg"):  # fmt: skip
        assert words in text
    data = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    mass = data["outputs"]["mass"]
    assert set(mass["contributions"]) == {"length", "width", "height", "density"}
    assert mass["specification"]["cpk_interval"][0] <= mass["specification"]["cpk"]
    assert len(mass["worst_case"]) == len(mass["rss"]) == 2


def test_plot_report(tmp_path):
    pytest.importorskip("matplotlib")
    result = rp.tolerance(box_pendulum(), {"rod.length": "1 m +- 1 %", "rod.density": "+- 2 %"},
                          outputs=["total_mass", "period:hinge"], samples=2000,
                          limits={"period:hinge": "1.63 s..1.66 s"})  # fmt: skip
    path = result.plot_report(tmp_path / "report.png")
    assert path.stat().st_size > 10_000
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_model_study(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    picture = tmp_path / "r.png"
    code = main([
        "tolerance", "model", str(EXAMPLES / "double_pendulum.toml"), "--vary",
        "upper.length=400 mm +- 1 %", "--vary", "*.density=+- 2 %", "--of", "total_mass",
        "--of", "period:shoulder", "--limit", "period:shoulder=1.372 s..1.383 s",
        "--samples", "3000", "--json", "--plot", str(picture),
    ])  # fmt: skip
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    spec = data["outputs"]["period:shoulder"]["specification"]
    assert 0 < spec["yield"] < 1 and spec["low"] == 1.372
    assert picture.exists()


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (
            ["tolerance", "cone", "--radius-a", "0.4 m +- 0.1 mm", "--limit", "mass=2 kg..1 kg"],
            "above high",
        ),
        (
            ["tolerance", "cone", "--radius-a", "0.4 m +- 0.1 mm", "--limit", "mass=1 m.."],
            "dimension",
        ),
        (
            [
                "tolerance",
                "model",
                str(EXAMPLES / "double_pendulum.toml"),
                "--vary",
                "x.length=1 m +- 1 %",
            ],
            "names no body",
        ),
        (
            [
                "tolerance",
                "model",
                str(EXAMPLES / "double_pendulum.toml"),
                "--vary",
                "upper.length=400 mm +- 1 %",
                "--of",
                "period:nope",
            ],
            "names no joint",
        ),
    ],
)
def test_cli_errors(argv, words, capsys):
    assert main([*argv, "--samples", "100"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and words in err and err.count("\n") == 1
