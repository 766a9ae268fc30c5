"""The I-Beam against independent computations.

1. Symbolic: direct sympy integration of the beam (density over the two flanges, the web and the
   four spandrels, each spandrel integrated exactly as an r x r square minus a quarter disc in
   polar coordinates; canonical frame: axis +x, height along +y, width along +z) equals the
   library's cancellation-free ``shapes.ibeam.closed_form`` as written, the forms printed in
   spec/family.md and the "outer minus voids plus spandrels" references; the spandrel constants
   are the correctly rounded float64 values of their 50-digit mpmath values.
2. Precision: rp.IBeam vs 50-digit references on standard sections, limits (no fillets, a box,
   fillets that meet or reach the flange tips) and thin flanges and webs down to 1e-12 of the
   height, at scales 2^-10..2^10 m and densities to 1e8 kg/m^3; the naive float64 forms fail on
   thin flanges. Steel tables: IPE 300.
3. Frames and axes: skew axes, rotate90, an explicit height direction, the box limit vs rp.Box.
4. Validity: every rule broken alone and reported under its parameter, edge cases valid.
5. Geometry: the outline, the extruded mesh (watertight, exact without fillets, order-2
   convergence with them), thin sections, primitives; hypothesis invariants; mass=; numba.
"""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import assume, given
from hypothesis import strategies as st

import rigidparts as rp
from reference import (
    QUANTITIES,
    Exact,
    relative_error,
    rule_directions,
    symbolic_equal,
    tensor_relative_error,
)
from reference_ibeam import ibeam_formulas, ibeam_reference, section_reference
from rigidparts.inertia import invalidity_report
from rigidparts.shapes import SHAPES
from rigidparts.shapes import ibeam as ibeam_kernel
from rigidparts.shapes._meshing import MIN_RELATIVE_TIP, MIN_RELATIVE_WALL, canonical_mesh

# Largest relative error allowed against the 50-digit references (observed: <= 4.6e-16 on
# CASES, <= 6.0e-16 over 3000 random sections with walls down to 1e-12).
PRECISION = 8e-16

NAMES = ibeam_kernel.SPEC.parameter_names
L, H, B, TF, TW, R, RHO = sp.symbols("L h b t_f t_w r rho", positive=True)
SYMBOLS = (L, H, B, TF, TW, R)


def _ibeam(dims: tuple[float, ...], **options) -> rp.IBeam:
    return rp.IBeam(**dict(zip(NAMES, dims, strict=True)), **options)


# -- 1. symbolic proofs -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def direct() -> dict[str, sp.Expr]:
    """Direct integration of rho over the beam, x in [0, L]: flanges and web as boxes; each
    spandrel (first quadrant: the corner (h/2 - t_f, t_w/2)) as the square
    [y_c, y_c + r] x [t_w/2, t_w/2 + r] minus the quarter disc centred at (y_c, z_c) =
    (h/2 - t_f - r, t_w/2 + r), y = y_c + s cos t, z = z_c + s sin t, t in [-pi/2, 0]; the
    other three corners by the mirror y -> -y and/or z -> -z of the integrand."""
    x, y, z, s, t = sp.symbols("x y z s t", real=True)
    under = H / 2 - TF  # the flanges' undersides
    boxes = [  # (y range, z range)
        ((under, H / 2), (-B / 2, B / 2)),
        ((-H / 2, -under), (-B / 2, B / 2)),
        ((-under, under), (-TW / 2, TW / 2)),
    ]
    y_c, z_c = under - R, TW / 2 + R
    disc = {y: y_c + s * sp.cos(t), z: z_c + s * sp.sin(t)}

    def integral(f: sp.Expr) -> sp.Expr:
        total = sum(sp.integrate(RHO * f, (x, 0, L), (y, *ys), (z, *zs)) for ys, zs in boxes)
        for sy, sz in itertools.product((1, -1), repeat=2):
            mirrored = f.subs({y: sy * y, z: sz * z}, simultaneous=True)
            square = sp.integrate(RHO * mirrored, (x, 0, L), (y, y_c, under), (z, TW / 2, z_c))
            quarter = sp.integrate(
                sp.expand(RHO * mirrored.subs(disc, simultaneous=True) * s),
                (x, 0, L),
                (s, 0, R),
                (t, -sp.pi / 2, 0),
            )
            total += square - quarter
        return sp.expand(total)

    mass = integral(sp.Integer(1))
    com_x = sp.cancel(integral(x) / mass)
    c = sp.Symbol("c", real=True)  # moments about (c, 0, 0), then c := the centre of mass

    def about_com(f: sp.Expr) -> sp.Expr:
        return sp.expand(integral(f.subs(x, x - c)).subs(c, com_x))

    return {
        "volume": mass / RHO,
        "mass": mass,
        "com_x": com_x,
        "com_y": integral(y),
        "com_z": integral(z),
        "i_xx": integral(y**2 + z**2),
        "i_yy": about_com(x**2 + z**2),
        "i_zz": about_com(x**2 + y**2),
        "i_xy": about_com(x * y),
        "i_xz": about_com(x * z),
        "i_yz": integral(y * z),
    }


def test_direct_integration_centre_and_products(direct) -> None:
    assert direct["com_x"] == L / 2
    for key in ("com_y", "com_z", "i_xy", "i_xz", "i_yz"):
        assert sp.simplify(direct[key]) == 0, key


def test_axis_assignment_by_integration(direct) -> None:
    """I_yy (about the height direction) integrates x^2 + z^2, z the width coordinate: so it
    holds the section's width moment S_w, and I_zz the height moment S_h. A plain I
    (r = 0) of b = t_w = 1 is a box: I_yy = m (L^2 + b^2) / 12, I_zz = m (L^2 + h^2) / 12."""
    plain = {R: 0, TW: B}
    mass = direct["mass"].subs(plain)
    assert symbolic_equal(direct["i_yy"].subs(plain), mass * (L**2 + B**2) / 12)
    assert symbolic_equal(direct["i_zz"].subs(plain), mass * (L**2 + H**2) / 12)


def test_library_closed_form_equals_direct_integration(direct, monkeypatch) -> None:
    """The code of shapes/ibeam.py itself, run on exact symbolic numbers (its float constants
    such as 12.0 and 0.5 converted exactly), with the three spandrel constants replaced by
    their exact values in pi, equals the integrals (the next test shows the float constants
    are those values correctly rounded)."""
    exact_constants = {
        "SPANDREL_AREA": 1 - sp.pi / 4,
        "SPANDREL_CENTROID": (10 - 3 * sp.pi) / (3 * (4 - sp.pi)),
        "SPANDREL_INERTIA": (16 - 5 * sp.pi) / 16 - (10 - 3 * sp.pi) ** 2 / (36 * (4 - sp.pi)),
    }
    for name, value in exact_constants.items():
        monkeypatch.setattr(ibeam_kernel, name, Exact(value))
    result = ibeam_kernel.closed_form(*(Exact(s) for s in (*SYMBOLS, RHO)))
    got = dict(zip(QUANTITIES, (value.expr for value in result), strict=True))
    for key in QUANTITIES:
        assert symbolic_equal(got[key], direct[key]), key


def test_spandrel_constants_are_correctly_rounded() -> None:
    """Each literal is the float64 nearest its 50-digit value: nearer than both neighbours."""
    with mpmath.workdps(50):
        pi = mpmath.pi
        exact = {
            "SPANDREL_AREA": 1 - pi / 4,
            "SPANDREL_CENTROID": (10 - 3 * pi) / (3 * (4 - pi)),
            "SPANDREL_INERTIA": (16 - 5 * pi) / 16 - (10 - 3 * pi) ** 2 / (36 * (4 - pi)),
        }
        for name, value in exact.items():
            literal = getattr(ibeam_kernel, name)
            error = abs(mpmath.mpf(literal) - value)
            for neighbour in (math.nextafter(literal, 0.0), math.nextafter(literal, 1.0)):
                assert error < abs(mpmath.mpf(neighbour) - value), name
        # 4 K_A (exact: a power of two) is 4 - pi correctly rounded; 4 - math.pi is not
        four_minus_pi = 4 - pi
        four_k_a = 4.0 * ibeam_kernel.SPANDREL_AREA
        for neighbour in (math.nextafter(four_k_a, 0.0), math.nextafter(four_k_a, 1.0)):
            assert abs(mpmath.mpf(four_k_a) - four_minus_pi) < abs(
                mpmath.mpf(neighbour) - four_minus_pi
            )
        assert four_k_a != 4.0 - math.pi
    # run-time float evaluation would not be: 10 - 3 pi and 16 - 5 pi cancel math.pi's digits
    # (4 and 29 ulp off)
    naive_c = (10 - 3 * math.pi) / (3 * (4 - math.pi))
    naive_i = (16 - 5 * math.pi) / 16 - (10 - 3 * math.pi) ** 2 / (36 * (4 - math.pi))
    assert naive_c != ibeam_kernel.SPANDREL_CENTROID
    assert naive_i != ibeam_kernel.SPANDREL_INERTIA


def test_spandrel_by_direct_integration() -> None:
    """The spandrel of the corner at the origin (edges along +u and +v, the fillet's centre at
    (r, r)): area, centroid distance c from each edge, second moment about its centroid."""
    u, v, s, t = sp.symbols("u v s t", real=True)

    def over(f: sp.Expr) -> sp.Expr:
        square = sp.integrate(f, (u, 0, R), (v, 0, R))
        disc = {u: R + s * sp.cos(t), v: R + s * sp.sin(t)}
        quarter = sp.integrate(
            sp.expand(f.subs(disc, simultaneous=True) * s), (s, 0, R), (t, sp.pi, 3 * sp.pi / 2)
        )
        return sp.simplify(square - quarter)

    area = over(sp.Integer(1))
    c = sp.simplify(over(u) / area)
    assert sp.simplify(over(v) / area - c) == 0
    own = sp.simplify(over(u**2) - area * c**2)
    assert sp.simplify(area - (1 - sp.pi / 4) * R**2) == 0
    assert sp.simplify(c - R * (10 - 3 * sp.pi) / (3 * (4 - sp.pi))) == 0
    k_i = (16 - 5 * sp.pi) / 16 - (10 - 3 * sp.pi) ** 2 / (36 * (4 - sp.pi))
    assert sp.simplify(own - k_i * R**4) == 0
    # the steel tables' rounded constants (0.2146 r^2, 0.2234 r, 4 I_s = 0.0302 r^4)
    assert float(area / R**2) == pytest.approx(0.2146, abs=5e-5)
    assert float(c / R) == pytest.approx(0.2234, abs=5e-5)
    assert float(4 * own / R**4) == pytest.approx(0.0302, abs=5e-5)


def test_family_md_forms_equal_direct_integration(direct) -> None:
    """spec/family.md's A, S_h, S_w with the spandrel terms, and its beam formulas."""
    pi = sp.pi
    a_s = (1 - pi / 4) * R**2
    c = R * (10 - 3 * pi) / (3 * (4 - pi))
    i_s = R**4 * ((16 - 5 * pi) / 16 - (10 - 3 * pi) ** 2 / (36 * (4 - pi)))
    area = 2 * B * TF + (H - 2 * TF) * TW + (4 - pi) * R**2
    s_h = (B * H**3 - (B - TW) * (H - 2 * TF) ** 3) / 12 + 4 * i_s + 4 * a_s * (H / 2 - TF - c) ** 2
    s_w = (2 * TF * B**3 + (H - 2 * TF) * TW**3) / 12 + 4 * i_s + 4 * a_s * (TW / 2 + c) ** 2
    mass = RHO * area * L
    printed = {
        "volume": area * L,
        "mass": mass,
        "com_x": L / 2,
        "i_xx": RHO * L * (s_h + s_w),
        "i_yy": mass * L**2 / 12 + RHO * L * s_w,
        "i_zz": mass * L**2 / 12 + RHO * L * s_h,
    }
    for key in QUANTITIES:
        assert symbolic_equal(printed[key], direct[key]), key


def test_reference_formulas_equal_direct_integration(direct) -> None:
    reference = ibeam_formulas(*SYMBOLS, RHO, sp.pi)
    for key in QUANTITIES:
        assert symbolic_equal(reference[key], direct[key]), key


def test_cancellation_free_rewriting_is_an_identity() -> None:
    """b h^3 - (b - t_w) g^3 = t_w h^3 + (b - t_w) 2 t_f (h^2 + h g + g^2), g = h - 2 t_f."""
    g = H - 2 * TF
    assert (
        sp.expand(
            B * H**3 - (B - TW) * g**3 - (TW * H**3 + (B - TW) * 2 * TF * (H**2 + H * g + g**2))
        )
        == 0
    )


# -- 2. precision against 50-digit references ---------------------------------------------------


def _thin(t: float) -> dict[str, tuple[float, ...]]:
    """Flanges and/or webs of t times the height (the same floats feed both sides)."""
    return {
        f"thin_flanges_{t:g}": (1.0, 0.2, 0.1, 0.2 * t, 0.0056, 0.012),
        f"thin_web_{t:g}": (1.0, 0.2, 0.1, 0.0085, 0.2 * t, 0.012),
        f"thin_plain_{t:g}": (1.0, 0.2, 0.1, 0.2 * t, 0.2 * t, 0.0),
        f"thin_small_fillets_{t:g}": (1.0, 0.2, 0.1, 0.2 * t, 0.2 * t, 0.2 * t),
        f"thin_big_fillets_{t:g}": (1.0, 0.2, 0.1, 0.2 * t, 0.2 * t, 0.04),
        f"nearly_box_web_{t:g}": (1.0, 0.2, 0.1, 0.0085, 0.1 * (1 - t), 0.0),
        f"nearly_box_flanges_{t:g}": (1.0, 0.2, 0.1, 0.1 * (1 - t), 0.0056, 0.0),
    }


MM = 1e-3
CASES: dict[str, tuple[float, ...]] = {
    "defaults_ipe200": (1.0, 0.2, 0.1, 0.0085, 0.0056, 0.012),
    "ipe300": (6.0, 300 * MM, 150 * MM, 10.7 * MM, 7.1 * MM, 15 * MM),
    "heb300": (12.0, 300 * MM, 300 * MM, 19 * MM, 11 * MM, 27 * MM),
    "plain_i": (1.0, 0.2, 0.1, 0.0085, 0.0056, 0.0),
    "box_by_web": (1.0, 0.2, 0.1, 0.0085, 0.1, 0.0),
    "box_by_flanges": (1.0, 0.2, 0.1, 0.1, 0.0056, 0.0),
    "fillets_meet": (1.0, 0.25, 0.5, 0.0625, 0.015625, 0.0625),
    "fillets_reach_tips": (1.0, 0.25, 0.125, 0.015625, 0.0625, 0.03125),
    "fillets_fill_both": (1.0, 0.25, 0.25, 0.0625, 0.125, 0.0625),
    "wide_and_flat": (1.0, 0.01, 2.0, 0.002, 0.001, 0.001),
    "deep_and_narrow": (1.0, 2.0, 0.01, 0.001, 0.002, 0.001),
    "plate": (1e-3, 0.3, 0.15, 0.0107, 0.0071, 0.015),
    "long": (1e3, 0.3, 0.15, 0.0107, 0.0071, 0.015),
    **_thin(1e-6),
    **_thin(1e-9),
    **_thin(1e-12),
}
# Powers of two (about 1e-3 and 1e3): scaling is exact, so the limit cases stay exactly valid.
SCALES = (2.0**-10, 1.0, 2.0**10)
DENSITIES = (1.0, 7860.0, 1e8)


def _results(body: rp.IBeam) -> dict[str, float]:
    return {
        "volume": body.volume,
        "mass": body.mass,
        "com_x": float(body.center_of_mass[0]),
        "i_xx": float(body.inertia[0, 0]),
        "i_yy": float(body.inertia[1, 1]),
        "i_zz": float(body.inertia[2, 2]),
    }


def test_every_case_is_valid() -> None:
    for name, dims in CASES.items():
        for scale in SCALES:
            assert ibeam_kernel.check(*(scale * d for d in dims)) == 0, name


@pytest.mark.parametrize("name", list(CASES))
def test_precision_against_50_digit_reference(name: str) -> None:
    worst = dict.fromkeys(QUANTITIES, 0.0)
    for scale, density in itertools.product(SCALES, DENSITIES):
        dims = tuple(scale * d for d in CASES[name])
        body = _ibeam(dims, density=density)
        got = _results(body)
        ref = ibeam_reference(*dims, density)
        for key in QUANTITIES:
            worst[key] = max(worst[key], relative_error(got[key], ref[key]))
        expected = sorted([ref["i_xx"], ref["i_yy"], ref["i_zz"]])
        for moment, exact in zip(body.principal_moments, expected, strict=True):
            assert relative_error(moment, exact) <= PRECISION
        # +x axis: the tensor is exactly diagonal
        assert np.count_nonzero(body.inertia - np.diag(np.diag(body.inertia))) == 0
    assert max(worst.values()) <= PRECISION, worst


def test_random_sections_against_reference() -> None:
    """Random valid sections over six decades of size, flanges and webs down to 1e-12 of the
    section, fillets from none to as large as fits (a fixed seed)."""
    rng = np.random.default_rng(20260109)
    worst = 0.0
    for _ in range(400):
        h, b = 10 ** rng.uniform(-3, 3, size=2)
        t_f = h / 2 * 10 ** rng.uniform(-12, 0)
        t_w = b * 10 ** rng.uniform(-12, 0)
        fill = rng.choice([0.0, rng.uniform(0, 1), 1.0, 10 ** rng.uniform(-12, 0)])
        dims = tuple(
            float(d)
            for d in (
                10 ** rng.uniform(-3, 3),
                h,
                b,
                t_f,
                t_w,
                fill * min(h / 2 - t_f, (b - t_w) / 2),
            )
        )
        if ibeam_kernel.check(*dims):  # rounding pushed a full fillet a hair too far
            continue
        density = float(10 ** rng.uniform(0, 8))
        got = ibeam_kernel.closed_form(*dims, density)
        ref = ibeam_reference(*dims, density)
        for key, value in zip(QUANTITIES, got, strict=True):
            worst = max(worst, relative_error(value, ref[key]))
    assert worst <= PRECISION, worst


def test_reference_is_converged_at_50_digits() -> None:
    """The thinnest flanges cancel most digits in the outer-minus-voids reference: 50 and 80
    digits agree far below the float64 resolution."""
    for name in ("thin_flanges_1e-12", "thin_plain_1e-12", "nearly_box_flanges_1e-12"):
        at50 = ibeam_reference(*CASES[name], 7860.0)
        at80 = ibeam_reference(*CASES[name], 7860.0, dps=80)
        with mpmath.workdps(80):
            for key in QUANTITIES:
                assert abs(at50[key] - at80[key]) <= mpmath.mpf("1e-30") * abs(at80[key])


def test_naive_forms_in_float64_fail_on_thin_flanges() -> None:
    """Documents the cancellation: outer minus voids in float64 loses about 6 digits of I_xx
    at 1e-9 flanges and about 10 at 1e-12 (b h^3 - (b - t_w) g^3); the library loses none."""
    for t, at_least in ((1e-9, 1e-10), (1e-12, 1e-7)):
        dims = CASES[f"thin_plain_{t:g}"]
        ref = ibeam_reference(*dims, 7860.0)
        naive = ibeam_formulas(*dims, 7860.0, math.pi)
        library = _results(_ibeam(dims, density=7860.0))
        for key in ("mass", "i_xx", "i_zz"):
            assert relative_error(naive[key], ref[key]) > at_least, key
            assert relative_error(library[key], ref[key]) <= PRECISION, key


def test_ipe300_table_values() -> None:
    """IPE 300 (h 300, b 150, t_w 7.1, t_f 10.7, r 15 mm): the steel tables give A = 53.81 cm^2,
    I_y = 8356 cm^4, I_z = 603.8 cm^4 (rounded: within half a unit of the last digit), and
    7999 cm^4 without the fillets. The section moments are I_zz, I_yy minus m L^2 / 12."""
    cm = 1e-2
    dims = (1.0, 300 * MM, 150 * MM, 10.7 * MM, 7.1 * MM, 15 * MM)
    section = section_reference(*dims[1:])
    body = _ibeam(dims, density=1.0)  # rho L = 1: the moments are the section's
    area = body.volume
    s_h = body.inertia[2, 2] - area / 12
    s_w = body.inertia[1, 1] - area / 12
    assert abs(area / cm**2 - 53.81) <= 0.005
    assert abs(s_h / cm**4 - 8356) <= 0.5
    assert abs(s_w / cm**4 - 603.8) <= 0.05
    assert relative_error(area, section["area"]) <= PRECISION
    plain = _ibeam((*dims[:5], 0.0), density=1.0)
    assert abs((plain.inertia[2, 2] - plain.volume / 12) / cm**4 - 7999) <= 0.5
    assert s_h / (plain.inertia[2, 2] - plain.volume / 12) == pytest.approx(1.0446, abs=5e-4)


# -- 3. known limits, frames and axes -----------------------------------------------------------

AXES = [
    {"axis": (1, 0, 0)},
    {"axis": (0, 1, 0)},
    {"axis": (0, 0, -1)},
    {"axis": (1, 2, 3)},
    {"axis": (-0.3, 0.1, 0.9), "rotate90": True},
    {"axis": (1, 1, 1), "height_direction": (0, 0, 1)},
    {"axis": (0.2, -1, 0.4), "height_direction": (1, 0, 1), "rotate90": True},
    {"axis": (1, 1e-9, 0)},
]


@pytest.mark.parametrize("options", AXES)
@pytest.mark.parametrize("limit", ["box_by_web", "box_by_flanges"])
def test_box_limit_equals_rp_box(limit: str, options: dict) -> None:
    """With r = 0 and t_w = b (or no web left: 2 t_f = h) the I-beam is a solid b x h box."""
    length, h, b, *_ = CASES[limit]
    beam = _ibeam(CASES[limit], density=2700.0, **options)
    box = rp.Box(length=length, height=h, width=b, density=2700.0, **options)
    assert beam.mass == pytest.approx(box.mass, rel=4e-16)
    assert beam.volume == pytest.approx(box.volume, rel=4e-16)
    np.testing.assert_array_equal(beam.center_of_mass, box.center_of_mass)
    np.testing.assert_allclose(beam.inertia, box.inertia, rtol=0, atol=8e-16 * box.inertia.max())
    np.testing.assert_array_equal(beam.height_direction, box.height_direction)
    np.testing.assert_array_equal(beam.width_direction, box.width_direction)
    for name, frame in box.frames.items():
        assert beam.frames[name] == frame


def test_plain_i_equals_box_minus_slab_plus_web() -> None:
    """r = 0: the I = the b x h box - the full-width b x g slab + the t_w x g web (all
    centred, so the moments add), combined exactly in mpmath from rp.Box's results."""
    dims, rho = (0.9, 0.3, 0.15, 0.0107, 0.0071, 0.0), 7860.0
    length, h, b, t_f, t_w, _ = dims
    g = h - 2 * t_f
    beam = _ibeam(dims, density=rho)
    parts = [
        (1, rp.Box(length=length, height=h, width=b, density=rho)),
        (-1, rp.Box(length=length, height=g, width=b, density=rho)),
        (1, rp.Box(length=length, height=g, width=t_w, density=rho)),
    ]
    amplification = parts[0][1].mass / beam.mass
    with mpmath.workdps(50):
        mass = sum(sign * mpmath.mpf(part.mass) for sign, part in parts)
        assert relative_error(beam.mass, mass) <= 4e-16 * amplification
        for i in range(3):
            moment = sum(sign * mpmath.mpf(part.inertia[i, i]) for sign, part in parts)
            assert relative_error(beam.inertia[i, i], moment) <= 4e-16 * amplification


def test_fillets_add_the_spandrels() -> None:
    """The filleted beam minus the plain one is the four spandrels (exact 50-digit sums)."""
    dims, rho = CASES["ipe300"], 7860.0
    length = dims[0]
    filleted, plain = _ibeam(dims, density=rho), _ibeam((*dims[:5], 0.0), density=rho)
    with_r, without_r = section_reference(*dims[1:]), section_reference(*dims[1:5], 0.0)
    with mpmath.workdps(50):
        rho_l = mpmath.mpf(rho) * mpmath.mpf(length)
        d_area = with_r["area"] - without_r["area"]
        spandrels = (4 - mpmath.pi) * mpmath.mpf(dims[5]) ** 2
        assert abs(d_area - spandrels) <= mpmath.mpf("1e-45") * spandrels
        added_mass = rho_l * d_area
        added_yy = rho_l * (
            mpmath.mpf(length) ** 2 * d_area / 12 + with_r["s_w"] - without_r["s_w"]
        )
        amplification = filleted.mass / float(added_mass)
    assert relative_error(filleted.mass - plain.mass, added_mass) <= 4e-16 * amplification
    got = filleted.inertia[1, 1] - plain.inertia[1, 1]
    assert relative_error(got, added_yy) <= 8e-16 * filleted.inertia[1, 1] / float(added_yy)


def test_rotate90_swaps_the_section_moments() -> None:
    dims = CASES["ipe300"]
    plain, turned = _ibeam(dims), _ibeam(dims, rotate90=True)
    assert turned.mass == plain.mass
    assert turned.inertia[0, 0] == plain.inertia[0, 0]
    assert turned.inertia[1, 1] == plain.inertia[2, 2]
    assert turned.inertia[2, 2] == plain.inertia[1, 1]
    np.testing.assert_array_equal(turned.height_direction, [0, 0, 1])
    np.testing.assert_array_equal(turned.width_direction, [0, -1, 0])
    assert turned.rotate90 and not plain.rotate90


@pytest.mark.parametrize("options", AXES)
@pytest.mark.parametrize("name", ["defaults_ipe200", "thin_small_fillets_1e-12", "heb300"])
def test_skew_axes_against_reference(name: str, options: dict) -> None:
    """Any axis, rotate90 and explicit height direction: the canonical frame follows the
    NOTES.md rule (written independently in reference.rule_directions), and the tensor is
    R_AC diag(I_xx, I_yy, I_zz) R_AC^T of the 50-digit moments to a few ulp of its largest
    entry."""
    dims = CASES[name]
    body = _ibeam(dims, density=7860.0, **options)
    e, h, w = rule_directions(
        options["axis"], options.get("rotate90", False), options.get("height_direction")
    )
    np.testing.assert_allclose(body.axis, e, rtol=0, atol=4e-16)
    np.testing.assert_allclose(body.height_direction, h, rtol=0, atol=4e-16)
    np.testing.assert_allclose(body.width_direction, w, rtol=0, atol=4e-16)
    ref = ibeam_reference(*dims, 7860.0)
    with mpmath.workdps(50):
        rot = mpmath.matrix(body.rotation_from_canonical.tolist())
        diag = mpmath.diag([ref["i_xx"], ref["i_yy"], ref["i_zz"]])
        tensor = rot * diag * rot.T
        com = [ref["com_x"] * rot[i, 0] for i in range(3)]
    assert tensor_relative_error(body.inertia, tensor) <= 1e-15  # observed <= 5.8e-16
    for i in range(3):
        assert abs(body.center_of_mass[i] - float(com[i])) <= 2e-16 * dims[0]
    assert relative_error(body.mass, ref["mass"]) <= PRECISION
    np.testing.assert_array_equal(np.sort(body.principal_moments), body.principal_moments)


def test_frames_as_the_box() -> None:
    beam = rp.IBeam(length=2.0, axis=(0, 0, 3), extra_frames=[0.5, "1500 mm", -0.25])
    frames = beam.frames
    assert list(frames) == [
        "frame_a", "frame_b", "frame_com", "frame_c1", "frame_c2", "frame_c3",
    ]  # fmt: skip
    np.testing.assert_array_equal(frames["frame_b"].position, [0, 0, 2])
    np.testing.assert_array_equal(frames["frame_com"].position, [0, 0, 1])
    np.testing.assert_array_equal(frames["frame_c2"].position, [0, 0, 1.5])
    np.testing.assert_array_equal(frames["frame_c3"].position, [0, 0, -0.25])
    for frame in frames.values():
        np.testing.assert_array_equal(frame.rotation, np.eye(3))
    assert beam.extra_frames == (0.5, 1.5, -0.25)


def test_defaults_are_ipe200_steel() -> None:
    beam = rp.IBeam()
    assert dict(beam.dimensions) == {
        "length": 1.0,
        "height": 0.2,
        "flange_width": 0.1,
        "flange_thickness": 0.0085,
        "web_thickness": 0.0056,
        "root_radius": 0.012,
    }
    assert beam.material == "steel" and beam.density == 7860.0
    # IPE 200: A = 28.48 cm^2, I_y = 1943 cm^4, I_z = 142.4 cm^4 (steel tables)
    assert abs(beam.volume / 1e-4 - 28.48) <= 0.005
    assert abs((beam.inertia[2, 2] / 7860 - beam.volume / 12) / 1e-8 - 1943) <= 0.5
    assert abs((beam.inertia[1, 1] / 7860 - beam.volume / 12) / 1e-8 - 142.4) <= 0.05
    assert beam.height == 0.2 and beam.root_radius == 0.012
    assert beam.shape == "ibeam" and rp.body_class("ibeam") is rp.IBeam


def test_units_are_accepted() -> None:
    a = rp.IBeam(
        length="6 m",
        height="300 mm",
        flange_width="15 cm",
        flange_thickness="10.7 mm",
        web_thickness="7.1 mm",
        root_radius="15 mm",
        density="7.85 g/cm^3",
    )
    b = _ibeam(CASES["ipe300"], density=7850.0)
    assert a.mass == pytest.approx(b.mass, rel=1e-15)
    np.testing.assert_allclose(a.inertia, b.inertia, rtol=1e-15)


# -- 4. validity ------------------------------------------------------------------------------

DEFAULTS = ibeam_kernel.SPEC.defaults


@pytest.mark.parametrize(
    ("changes", "parameter", "rule"),
    [
        *[({name: bad}, name, "positive and finite")
          for name in NAMES[:-1] for bad in (0.0, -1.0, math.nan, math.inf, -math.inf)],
        *[({"root_radius": bad}, "root_radius", "non-negative and finite")
          for bad in (-1e-9, -1.0, math.nan, math.inf)],
        ({"web_thickness": 0.1000001}, "web_thickness", "cannot be wider than the flanges"),
        ({"web_thickness": 0.2, "root_radius": 0.0}, "web_thickness", "cannot be wider"),
        ({"web_thickness": 0.08}, "web_thickness", "web and its fillets must fit"),
        ({"root_radius": 0.0473}, "web_thickness", "web and its fillets must fit"),
        ({"flange_thickness": 0.1000001}, "flange_thickness", "two flanges cannot overlap"),
        ({"flange_thickness": 0.3, "root_radius": 0.0}, "flange_thickness", "cannot overlap"),
        ({"flange_thickness": 0.09}, "flange_thickness", "flanges and fillets must fit"),
        ({"root_radius": 0.0916, "flange_width": 1.0}, "flange_thickness", "fillets must fit"),
        ({"height": 0.01}, "flange_thickness", "cannot overlap"),
        ({"flange_width": 0.005}, "web_thickness", "cannot be wider"),
    ],
)  # fmt: skip
def test_bad_dimensions(changes: dict, parameter: str, rule: str) -> None:
    dims = dict(DEFAULTS, **changes)
    code = ibeam_kernel.check(*dims.values())
    assert code and ibeam_kernel.RULES[code - 1].parameter == parameter
    with pytest.raises(rp.ParameterError, match=rule) as info:
        rp.IBeam(**dims)
    assert info.value.parameter == parameter
    assert str(info.value).startswith(f"{parameter}=")


def test_first_broken_rule_wins() -> None:
    # a web wider than the flanges and flanges that overlap: the web's rule comes first
    dims = dict(DEFAULTS, web_thickness=0.5, flange_thickness=0.5)
    assert ibeam_kernel.check(*dims.values()) == ibeam_kernel.WEB_FITS
    # every positivity rule before every fit rule
    dims = dict(DEFAULTS, length=-1.0, web_thickness=0.5)
    assert ibeam_kernel.check(*dims.values()) == ibeam_kernel.LENGTH_POSITIVE
    dims = dict(DEFAULTS, root_radius=math.nan, web_thickness=0.5)
    assert ibeam_kernel.check(*dims.values()) == ibeam_kernel.ROOT_RADIUS_NON_NEGATIVE


def test_rule_messages_show_the_values() -> None:
    with pytest.raises(rp.ParameterError) as info:
        rp.IBeam(web_thickness=0.08)
    message = str(info.value)
    assert "flange_width=0.1 m" in message and "root_radius=0.012 m" in message
    with pytest.raises(rp.ParameterError, match=r"height=0\.2 m"):
        rp.IBeam(flange_thickness=0.095)


@pytest.mark.parametrize(
    ("name", "value"),
    [("height", "3 kg"), ("web_thickness", "thin"), ("root_radius", [1.0]), ("length", None)],
)
def test_bad_types_and_units(name: str, value) -> None:
    with pytest.raises(rp.ParameterError) as info:
        rp.IBeam(**{name: value})
    assert info.value.parameter == name


@pytest.mark.parametrize(
    ("kwargs", "parameter"),
    [
        ({"axis": (0, 0, 0)}, "axis"),
        ({"axis": (1, math.nan, 0)}, "axis"),
        ({"height_direction": (2, 0, 0)}, "height_direction"),
        ({"rotate90": "yes"}, "rotate90"),
        ({"density": -1.0}, "density"),
        ({"mass": 0.0}, "mass"),
        ({"material": "steel", "density": 1000.0}, "density"),
        ({"extra_frames": [math.inf]}, "extra_frames[0]"),
        ({"extra_frames": "0.5"}, "extra_frames"),
    ],
)
def test_bad_options(kwargs: dict, parameter: str) -> None:
    with pytest.raises(rp.ParameterError) as info:
        rp.IBeam(**kwargs)
    assert info.value.parameter == parameter


@pytest.mark.parametrize(
    "name",
    ["plain_i", "box_by_web", "box_by_flanges", "fillets_meet", "fillets_reach_tips",
     "fillets_fill_both", "thin_small_fillets_1e-12", "nearly_box_flanges_1e-12"],
)  # fmt: skip
def test_edge_cases_stay_valid(name: str) -> None:
    body = _ibeam(CASES[name])
    assert body.mass > 0.0 and invalidity_report(body.principal_moments) is None


def test_tiny_and_huge_results_are_unrepresentable() -> None:
    with pytest.raises(rp.ParameterError, match="beyond what float64 holds"):
        rp.IBeam(length=1e200, height=1e200, flange_width=1e200, density=1e10)


# -- 5. geometry --------------------------------------------------------------------------------


def _dims(name: str) -> dict[str, float]:
    return dict(zip(NAMES, CASES[name], strict=True))


def _polygon_area(points: np.ndarray) -> float:
    u, v = points[:, 0], points[:, 1]
    return 0.5 * float(np.dot(u, np.roll(v, -1)) - np.dot(np.roll(u, -1), v))


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("segments", [1, 3, 16])
def test_outline_is_a_simple_symmetric_ring(name: str, segments: int) -> None:
    geometry = pytest.importorskip("shapely.geometry")
    dims = _dims(name)
    points = ibeam_kernel.outline(dims, segments)
    assert len(np.unique(points, axis=0)) == len(points)
    assert _polygon_area(points) > 0.0  # counter-clockwise
    assert geometry.Polygon(points).is_valid
    # symmetric about both axes (negation is exact)
    as_set = {tuple(p) for p in points.tolist()}
    assert as_set == {(-u + 0.0, v) for u, v in as_set} == {(u, -v + 0.0) for u, v in as_set}
    h, b = dims["height"], dims["flange_width"]
    assert np.max(np.abs(points[:, 0])) == h / 2 and np.max(np.abs(points[:, 1])) == b / 2


def test_outline_without_fillets_is_exact() -> None:
    """r = 0: twelve corners, and the polygon's area is the closed form's to rounding."""
    dims = _dims("plain_i")
    points = ibeam_kernel.outline(dims, 16)
    assert len(points) == 12
    area = ibeam_kernel.closed_form(*dims.values(), 1.0)[0] / dims["length"]
    assert _polygon_area(points) == pytest.approx(area, rel=1e-15)
    assert len(ibeam_kernel.outline(_dims("box_by_web"), 16)) == 4
    assert len(ibeam_kernel.outline(_dims("box_by_flanges"), 16)) == 4


def _mesh_errors(dims: dict[str, float], sections: int) -> tuple[float, float]:
    mesh = canonical_mesh("ibeam", dims, sections=sections)
    assert mesh.is_watertight and mesh.is_winding_consistent and mesh.volume > 0.0
    volume, _, _, i_xx, i_yy, i_zz = ibeam_kernel.closed_form(*dims.values(), 1.0)
    mesh.density = 1.0
    exact = np.diag([i_xx, i_yy, i_zz])
    com = np.array([0.5 * dims["length"], 0.0, 0.0])
    inertia_error = np.abs(mesh.moment_inertia - exact).max() / exact.max()
    # trimesh's centre is a sum of terms of the bounding box's size over the volume: its
    # round-off grows as the section thins (the mesh itself is exactly symmetric)
    size = max(dims["length"], dims["height"], dims["flange_width"])
    bounding = dims["length"] * dims["height"] * dims["flange_width"]
    assert np.abs(mesh.center_mass - com).max() <= 1e-14 * size * bounding / volume
    return mesh.volume / volume - 1.0, inertia_error


@pytest.mark.parametrize(
    "name", ["plain_i", "box_by_web", "box_by_flanges", "wide_and_flat", "deep_and_narrow"]
)
@pytest.mark.parametrize("sections", [3, 64])
def test_mesh_without_fillets_is_exact(name: str, sections: int) -> None:
    pytest.importorskip("trimesh")
    volume_error, inertia_error = _mesh_errors(dict(_dims(name), root_radius=0.0), sections)
    assert abs(volume_error) <= 1e-14 and inertia_error <= 1e-13


@pytest.mark.parametrize(
    "name", ["defaults_ipe200", "fillets_meet", "fillets_reach_tips", "fillets_fill_both"]
)
def test_mesh_converges_at_order_two(name: str) -> None:
    """The fillets are inscribed polylines: the mesh has a little too much material, and the
    error falls as 1 / n^2 in the chords per fillet; Richardson extrapolation of n = 128 and
    256 chords agrees with the closed forms to 1e-9."""
    pytest.importorskip("trimesh")
    dims = _dims(name)
    errors = [_mesh_errors(dims, 4 * n) for n in (64, 128, 256)]
    volume_errors = [e[0] for e in errors]
    assert all(e > 0.0 for e in volume_errors)
    assert volume_errors[2] < 1e-5 and errors[2][1] < 1e-5
    for coarse, fine in itertools.pairwise(volume_errors):
        assert 3.9 < coarse / fine < 4.1
    assert abs((4 * volume_errors[2] - volume_errors[1]) / 3) < 1e-9


@pytest.mark.parametrize(
    "name",
    [name for name in CASES if name.startswith(("thin_", "nearly_box"))]
    + ["fillets_meet", "fillets_reach_tips", "fillets_fill_both", "plate", "long"],
)
@pytest.mark.parametrize("sections", [3, 4, 64, 1000])
def test_mesh_is_watertight_for_every_case(name: str, sections: int) -> None:
    """Thin flanges and webs to 1e-12 of the height, fillets that meet: closed, outward and
    close to the closed form (the coordinates of a 1e-12 flange carry ~1e-5 of its thickness
    in float64; the fillets' chords add ~1/n^2)."""
    pytest.importorskip("trimesh")
    volume_error, _ = _mesh_errors(_dims(name), sections)
    limit = 1.5 if sections < 8 else (1e-2 if sections < 100 else 1e-4)
    assert abs(volume_error) <= limit


def test_mesh_in_frame_a_matches_the_body() -> None:
    """body.mesh(): the canonical mesh mapped by R_AC; with r = 0 it is exact."""
    pytest.importorskip("trimesh")
    body = _ibeam(CASES["plain_i"], axis=(1, -2, 0.5), rotate90=True, density=7860.0)
    mesh = body.mesh(sections=8)
    assert mesh.is_watertight
    mesh.density = body.density
    assert mesh.mass == pytest.approx(body.mass, rel=1e-14)
    np.testing.assert_allclose(mesh.center_mass, body.center_of_mass, atol=1e-15)
    np.testing.assert_allclose(
        mesh.moment_inertia, body.inertia, rtol=0, atol=1e-13 * np.abs(body.inertia).max()
    )
    assert mesh.metadata["shape"] == "ibeam"


def test_tiny_fillets_are_meshed_as_sharp_corners() -> None:
    pytest.importorskip("trimesh")
    dims = dict(_dims("plain_i"), root_radius=0.5 * MIN_RELATIVE_TIP * 0.2)
    assert len(ibeam_kernel.outline(dims, 16)) == 12
    volume_error, _ = _mesh_errors(dims, 64)
    assert abs(volume_error) <= 1e-14


@pytest.mark.parametrize("name", ["flange_thickness", "web_thickness"])
def test_walls_below_float64_reach_are_not_meshed(name: str) -> None:
    dims = dict(_dims("plain_i"), **{name: 0.5 * MIN_RELATIVE_WALL * 0.2})
    body = rp.IBeam(**dims)  # the mass properties are fine
    assert body.mass > 0.0
    with pytest.raises(rp.ParameterError, match="too thin to mesh") as info:
        body.mesh()
    assert info.value.parameter == name


def test_primitive_only_for_the_box_limits() -> None:
    spec = SHAPES["ibeam"]
    for name in ("box_by_web", "box_by_flanges"):
        dims = _dims(name)
        primitive = spec.primitive(dims)
        assert primitive is not None and primitive.kind == "box"
        assert primitive.size == (dims["length"], dims["height"], dims["flange_width"])
        assert primitive.center == (0.5 * dims["length"], 0.0, 0.0)
    for name in ("defaults_ipe200", "plain_i", "fillets_meet", "thin_plain_1e-12"):
        assert spec.primitive(_dims(name)) is None


# -- invariants, mass=, compiled kernels ---------------------------------------------------------

positive = st.floats(1e-3, 1e3)
fraction = st.floats(0.0, 1.0)
axes = st.tuples(*(st.floats(-1.0, 1.0) for _ in range(3))).filter(
    lambda v: max(abs(x) for x in v) > 1e-3
)


@given(
    length=positive, h=positive, b=positive, ff=st.floats(1e-12, 1.0), fw=st.floats(1e-12, 1.0),
    fr=fraction, axis=axes, rotate90=st.booleans(),
)  # fmt: skip
def test_invariants(length, h, b, ff, fw, fr, axis, rotate90) -> None:
    t_f = ff * h / 2
    t_w = fw * b
    r = fr * min(h / 2 - t_f, (b - t_w) / 2)
    dims = (length, h, b, t_f, t_w, r)
    assume(ibeam_kernel.check(*dims) == 0)
    body = _ibeam(dims, axis=axis, rotate90=rotate90, density=1000.0)
    inertia = body.inertia
    np.testing.assert_array_equal(inertia, inertia.T)
    assert np.all(body.principal_moments > 0.0)
    assert invalidity_report(body.principal_moments, tolerance=1e-15) is None
    # the section lies within the b x h box and holds the flanges and the web
    box = rp.Box(length=length, height=h, width=b, density=1000.0)
    assert body.volume <= box.volume * (1 + 1e-15)
    assert body.volume >= length * 2 * b * t_f * (1 - 1e-15)
    assert np.trace(inertia) <= np.trace(box.inertia) * (1 + 1e-15)
    # fillets only add material: every canonical moment grows with r
    plain = ibeam_kernel.closed_form(*dims[:5], 0.0, 1000.0)
    filleted = ibeam_kernel.closed_form(*dims, 1000.0)
    assert all(f >= p for f, p in zip(filleted, plain, strict=True))


def test_mass_round_trip() -> None:
    body = _ibeam(CASES["ipe300"], mass="250 kg", axis=(0, 1, 1))
    assert body.mass == 250.0 and body.material is None
    assert body.density == 250.0 / body.volume
    assert body.parameters()["mass"] == 250.0
    again = rp.IBeam(**{k: v for k, v in body.parameters().items() if k != "shape"})
    assert again.mass == 250.0 and again.inertia.tobytes() == body.inertia.tobytes()
    by_density = _ibeam(CASES["ipe300"], density=body.density, axis=(0, 1, 1))
    np.testing.assert_allclose(by_density.inertia, body.inertia, rtol=4e-16, atol=1e-18)
    explicit = _ibeam(CASES["ipe300"], height_direction=(0, 1, 1), rotate90=True, mass=3.0)
    rebuilt = rp.IBeam(**{k: v for k, v in explicit.parameters().items() if k != "shape"})
    assert rebuilt.inertia.tobytes() == explicit.inertia.tobytes()


def test_compiled_kernels_give_the_same_bits() -> None:
    """rp.batch compiles check and closed_form with numba: same bits as Python floats."""
    numba = pytest.importorskip("numba")
    check = numba.njit(ibeam_kernel.check)
    closed = numba.njit(ibeam_kernel.closed_form)
    rng = np.random.default_rng(9)
    cases = [(*CASES[name], 7860.0) for name in CASES]
    for _ in range(300):
        h, b = 10 ** rng.uniform(-3, 3, size=2)
        t_f = h / 2 * rng.uniform(0, 1)
        t_w = b * rng.uniform(0, 1)
        r = rng.uniform(0, 1) * min(h / 2 - t_f, (b - t_w) / 2)
        cases.append((10 ** rng.uniform(-3, 3), h, b, t_f, t_w, r, 10 ** rng.uniform(0, 8)))
    cases.append((1.0, 0.2, 0.1, 0.2, 0.0056, 0.0, 1.0))  # invalid
    for *dims, rho in cases:
        dims = [float(d) for d in dims]
        assert check(*dims) == ibeam_kernel.check(*dims), dims
        if ibeam_kernel.check(*dims) == 0:
            assert closed(*dims, float(rho)) == ibeam_kernel.closed_form(*dims, float(rho))
