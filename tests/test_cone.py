"""The Cone against independent computations.

1. Symbolic: direct sympy integration of the hollow frustum (density over the region, in
   cylindrical coordinates, canonical frame) equals the library's cancellation-free
   ``shapes.cone.closed_form`` *as written* (evaluated on exact symbolic numbers), the formulas
   printed in spec/cone.txt, the short form of NOTES.md and the 50-digit references.
2. Precision: rp.Cone vs 50-digit references on solid, hollow, pointed, tube and thin-walled
   cones at scales 1e-3..1e3 m and densities up to 1e8 kg/m^3; the printed formulas in float64
   fail on the same inputs.
3. Known limits (textbook cylinder, tube, solid cone) and numeric geometry (scipy quadrature
   over the section, trimesh meshes of revolution).
"""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest
import sympy as sp
from scipy import integrate

import rigidparts as rp
from reference import (
    QUANTITIES,
    Exact,
    cone_formulas,
    cone_reference,
    printed_cone,
    relative_error,
    symbolic_equal,
)
from rigidparts.shapes import cone as cone_kernel

# Largest relative error allowed against the 50-digit references (observed: <= 6.3e-16).
PRECISION = 1e-15

L, RA, RB, RAI, RBI, RHO = sp.symbols("L R_a R_b R_ai R_bi rho", positive=True)


# -- 1. symbolic proofs -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def direct() -> dict[str, sp.Expr]:
    """Direct integration of rho over the hollow frustum, x in [0, L], r in [r(x), R(x)],
    theta in [0, 2 pi]; y = r cos(theta), z = r sin(theta); moments about the centre of mass."""
    x, r, th = sp.symbols("x r theta", real=True)
    outer = RA + (RB - RA) * x / L
    inner = RAI + (RBI - RAI) * x / L

    def integral(f: sp.Expr) -> sp.Expr:
        return sp.integrate(
            sp.expand(RHO * f * r), (th, 0, 2 * sp.pi), (r, inner, outer), (x, 0, L)
        )

    y, z = r * sp.cos(th), r * sp.sin(th)
    mass = integral(1)
    com_x = integral(x) / mass
    # about the point (c, 0, 0), a polynomial integral; then c := the centre of mass
    c = sp.Symbol("c", real=True)
    dx = x - c

    def about_com(f: sp.Expr) -> sp.Expr:
        return integral(f).subs(c, com_x)

    return {
        "volume": mass / RHO,
        "mass": mass,
        "com_x": com_x,
        "com_y": integral(y) / mass,
        "com_z": integral(z) / mass,
        "i_xx": integral(y**2 + z**2),
        "i_yy": about_com(dx**2 + z**2),
        "i_zz": about_com(dx**2 + y**2),
        "i_xy": -about_com(dx * y),
        "i_xz": -about_com(dx * z),
        "i_yz": -integral(y * z),
    }


def test_direct_integration_has_zero_products_and_a_centre_on_the_axis(direct) -> None:
    for key in ("com_y", "com_z", "i_xy", "i_xz", "i_yz"):
        assert sp.simplify(direct[key]) == 0, key
    assert symbolic_equal(direct["i_yy"], direct["i_zz"])


def test_library_closed_form_equals_direct_integration(direct) -> None:
    """The code of shapes/cone.py itself, run on exact symbolic numbers (its float constants,
    math.pi included, converted exactly), equals the integrals. pi enters only as a factor,
    so the library's float pi is divided out and compared with sympy.pi divided out."""
    symbols = (L, RA, RB, RAI, RBI, RHO)
    result = cone_kernel.closed_form(*(Exact(s) for s in symbols))
    got = dict(zip(QUANTITIES, (value.expr for value in result), strict=True))
    float_pi = sp.Rational(math.pi)
    assert symbolic_equal(got["com_x"], direct["com_x"])
    for key in ("volume", "mass", "i_xx", "i_yy", "i_zz"):
        assert symbolic_equal(got[key] / float_pi, direct[key] / sp.pi), key


def test_printed_formulas_equal_direct_integration(direct) -> None:
    """spec/cone.txt's m, L_com, I_xx and the long I_yy = I_zz are right (as NOTES.md says)."""
    printed = printed_cone(L, RA, RB, RAI, RBI, RHO, sp.pi)
    for key in ("mass", "com_x", "i_xx", "i_yy", "i_zz"):
        assert symbolic_equal(printed[key], direct[key]), key


def test_notes_short_form_equals_direct_integration(direct) -> None:
    q = RA**2 + RA * RB + RB**2 - (RAI**2 + RAI * RBI + RBI**2)
    p1 = RA**2 + 2 * RA * RB + 3 * RB**2 - (RAI**2 + 2 * RAI * RBI + 3 * RBI**2)
    p2 = RA**2 + 3 * RA * RB + 6 * RB**2 - (RAI**2 + 3 * RAI * RBI + 6 * RBI**2)
    short = direct["i_xx"] / 2 + sp.pi * RHO * L**3 * (8 * q * p2 - 5 * p1**2) / (240 * q)
    assert symbolic_equal(short, direct["i_yy"])


def test_reference_formulas_equal_direct_integration(direct) -> None:
    """The references used for the precision tests are themselves right."""
    reference = cone_formulas(L, RA, RB, RAI, RBI, RHO, sp.pi)
    for key in QUANTITIES:
        assert symbolic_equal(reference[key], direct[key]), key


# -- 2. precision against 50-digit references ---------------------------------------------------


def _walls(t: float) -> dict[str, tuple[float, ...]]:
    """Thin walls: inner = outer * (1 - t), computed in float64 (the same floats feed both the
    library and the reference)."""
    return {
        f"frustum_wall_{t:g}": (1.0, 0.4, 0.1, 0.4 * (1 - t), 0.1 * (1 - t)),
        f"tube_wall_{t:g}": (1.0, 0.3, 0.3, 0.3 * (1 - t), 0.3 * (1 - t)),
        f"pointed_wall_{t:g}": (1.0, 0.4, 0.0, 0.4 * (1 - t), 0.0),
        f"long_pipe_wall_{t:g}": (10.0, 0.01, 0.02, 0.01 * (1 - t), 0.02 * (1 - t)),
    }


CASES: dict[str, tuple[float, ...]] = {
    "defaults": (1.0, 0.4, 0.1, 0.0, 0.0),
    "solid_widening": (0.7, 0.1, 0.4, 0.0, 0.0),
    "hollow": (1.0, 0.4, 0.1, 0.3, 0.05),
    "hollow_widening": (0.7, 0.1, 0.4, 0.05, 0.35),
    "pointed_b": (1.0, 0.4, 0.0, 0.0, 0.0),
    "pointed_a": (1.0, 0.0, 0.4, 0.0, 0.0),
    "pointed_hollow": (1.0, 0.4, 0.0, 0.2, 0.0),
    "cylinder": (1.0, 0.3, 0.3, 0.0, 0.0),
    "tube": (1.0, 0.3, 0.3, 0.2, 0.2),
    "disk": (1e-3, 0.5, 0.5, 0.0, 0.0),
    "needle": (2.0, 1e-3, 1e-3, 0.0, 0.0),
    "zero_wall_at_a": (1.0, 0.4, 0.1, 0.4, 0.05),
    "zero_wall_at_b": (1.0, 0.4, 0.1, 0.2, 0.1),
    **_walls(1e-6),
    **_walls(1e-9),
    **_walls(1e-12),
}
SCALES = (1e-3, 1.0, 1e3)
DENSITIES = (1.0, 7860.0, 1e8)


def _library(dims: tuple[float, ...], density: float) -> dict[str, float]:
    names = cone_kernel.SPEC.parameter_names
    body = rp.Cone(**dict(zip(names, dims, strict=True)), density=density)
    return {
        "volume": body.volume,
        "mass": body.mass,
        "com_x": float(body.center_of_mass[0]),
        "i_xx": float(body.inertia[0, 0]),
        "i_yy": float(body.inertia[1, 1]),
        "i_zz": float(body.inertia[2, 2]),
        "principal": body.principal_moments,
    }


@pytest.mark.parametrize("name", list(CASES))
def test_precision_against_50_digit_reference(name: str) -> None:
    worst = dict.fromkeys(QUANTITIES, 0.0)
    for scale, density in itertools.product(SCALES, DENSITIES):
        dims = tuple(scale * d for d in CASES[name])
        got = _library(dims, density)
        ref = cone_reference(*dims, density)
        for key in QUANTITIES:
            worst[key] = max(worst[key], relative_error(got[key], ref[key]))
        # principal moments: ascending, the axial one and the transverse pair
        expected = sorted([ref["i_xx"], ref["i_yy"], ref["i_zz"]])
        for moment, exact in zip(got["principal"], expected, strict=True):
            assert relative_error(moment, exact) <= PRECISION
    assert max(worst.values()) <= PRECISION, worst


def test_reference_is_converged_at_50_digits() -> None:
    """The thinnest walls cancel most digits in the outer-minus-inner reference: 50 and 80
    digits agree to far below the float64 resolution."""
    for name in ("frustum_wall_1e-12", "tube_wall_1e-12", "pointed_wall_1e-12"):
        at50 = cone_reference(*CASES[name], 7860.0)
        at80 = cone_reference(*CASES[name], 7860.0, dps=80)
        with mpmath.workdps(80):
            for key in QUANTITIES:
                assert abs(at50[key] - at80[key]) <= mpmath.mpf("1e-30") * abs(at80[key])


def test_printed_formulas_in_float64_fail_on_thin_walls() -> None:
    """Documents the problem NOTES.md describes: the printed "outer minus inner" formulas in
    float64 lose every digit of I_yy at a 1e-9 wall, and many digits of the others."""
    for t, worst_iyy in ((1e-6, 1e-8), (1e-9, 0.5)):
        dims = (1.0, 0.4, 0.1, 0.4 * (1 - t), 0.1 * (1 - t))
        ref = cone_reference(*dims, 7860.0)
        naive = printed_cone(*dims, 7860.0, math.pi)
        library = _library(dims, 7860.0)
        assert relative_error(naive["i_yy"], ref["i_yy"]) > worst_iyy
        assert relative_error(naive["mass"], ref["mass"]) > 100 * PRECISION
        for key in ("mass", "i_xx", "i_yy"):
            assert relative_error(library[key], ref[key]) <= PRECISION


# -- 3. known limits ----------------------------------------------------------------------------


def test_tube_equals_textbook_thick_cylinder() -> None:
    """Thick-walled cylinder (radii R, r): I_axial = m (R^2 + r^2) / 2,
    I_transverse = m (3 (R^2 + r^2) + L^2) / 12, m = rho pi (R^2 - r^2) L."""
    length, outer, inner, rho = 0.75, 0.2, 0.15, 2700.0
    tube = rp.Cone(
        length=length,
        radius_a=outer,
        radius_b=outer,
        inner_radius_a=inner,
        inner_radius_b=inner,
        density=rho,
    )
    mass = rho * math.pi * (outer**2 - inner**2) * length
    assert tube.mass == pytest.approx(mass, rel=1e-14)
    assert tube.center_of_mass == pytest.approx([length / 2, 0, 0], rel=1e-15, abs=0)
    expected = np.diag(
        [
            mass * (outer**2 + inner**2) / 2,
            mass * (3 * (outer**2 + inner**2) + length**2) / 12,
            mass * (3 * (outer**2 + inner**2) + length**2) / 12,
        ]
    )
    np.testing.assert_allclose(tube.inertia, expected, rtol=1e-14, atol=0)


def test_solid_cylinder_equals_textbook() -> None:
    length, radius, rho = 2.0, 0.1, 1000.0
    cylinder = rp.Cone(length=length, radius_a=radius, radius_b=radius, density=rho)
    mass = rho * math.pi * radius**2 * length
    assert cylinder.mass == pytest.approx(mass, rel=1e-15)
    np.testing.assert_allclose(
        np.diag(cylinder.inertia),
        [
            mass * radius**2 / 2,
            mass * (3 * radius**2 + length**2) / 12,
            mass * (3 * radius**2 + length**2) / 12,
        ],
        rtol=1e-15,
    )


@pytest.mark.parametrize("base_at_a", [True, False])
def test_solid_cone_equals_textbook(base_at_a: bool) -> None:
    """Solid right circular cone, base radius R, height h: m = rho pi R^2 h / 3, centre of mass
    h/4 from the base, I_axial = 3/10 m R^2, I_transverse (about the COM) = 3/80 m (4 R^2 + h^2)."""
    h, radius, rho = 1.2, 0.3, 7860.0
    if base_at_a:
        cone = rp.Cone(length=h, radius_a=radius, radius_b=0.0, density=rho)
        com = h / 4
    else:
        cone = rp.Cone(length=h, radius_a=0.0, radius_b=radius, density=rho)
        com = h - h / 4
    mass = rho * math.pi * radius**2 * h / 3
    assert cone.mass == pytest.approx(mass, rel=1e-15)
    assert cone.center_of_mass[0] == pytest.approx(com, rel=1e-15)
    assert cone.frames["frame_com"].position[0] == pytest.approx(com, rel=1e-15)
    np.testing.assert_allclose(
        np.diag(cone.inertia),
        [
            0.3 * mass * radius**2,
            3 / 80 * mass * (4 * radius**2 + h**2),
            3 / 80 * mass * (4 * radius**2 + h**2),
        ],
        rtol=1e-14,
    )


def test_hollow_equals_outer_minus_inner_in_exact_arithmetic() -> None:
    """The hollow cone = (solid outer) - (solid inner), with the library's solid results
    combined exactly in mpmath (moments shifted to the common centre of mass)."""
    dims, rho = (0.9, 0.35, 0.12, 0.25, 0.05), 4430.0
    hollow = rp.Cone(**dict(zip(cone_kernel.SPEC.parameter_names, dims, strict=True)), density=rho)
    outer = rp.Cone(length=dims[0], radius_a=dims[1], radius_b=dims[2], density=rho)
    inner = rp.Cone(length=dims[0], radius_a=dims[3], radius_b=dims[4], density=rho)
    with mpmath.workdps(50):
        mo, mi = mpmath.mpf(outer.mass), mpmath.mpf(inner.mass)
        xo, xi = mpmath.mpf(outer.center_of_mass[0]), mpmath.mpf(inner.center_of_mass[0])
        mass = mo - mi
        com = (mo * xo - mi * xi) / mass
        i_xx = mpmath.mpf(outer.inertia[0, 0]) - mpmath.mpf(inner.inertia[0, 0])
        i_yy = (
            mpmath.mpf(outer.inertia[1, 1])
            + mo * (xo - com) ** 2
            - mpmath.mpf(inner.inertia[1, 1])
            - mi * (xi - com) ** 2
        )
    # the solid parts carry ~1e-16 of their own (larger) size: allow for that amplification
    amplification = float(mo / mass)
    tol = 4e-16 * amplification
    assert relative_error(hollow.mass, mass) <= tol
    assert relative_error(hollow.center_of_mass[0], com) <= tol
    assert relative_error(hollow.inertia[0, 0], i_xx) <= 2 * tol
    assert relative_error(hollow.inertia[1, 1], i_yy) <= 2 * tol


# -- 4. numeric integration over the geometry ---------------------------------------------------

QUADRATURE_CASES = {
    "hollow": (0.8, 0.3, 0.1, 0.2, 0.06),
    "thin_wall_1e-6": (0.8, 0.3, 0.1, 0.3 * (1 - 1e-6), 0.1 * (1 - 1e-6)),
    "zero_wall_at_b": (0.8, 0.3, 0.1, 0.2, 0.1),
}


# quadpack warns that 1e-13 is near its round-off on the thinnest wall; the result is still right
@pytest.mark.filterwarnings("ignore::scipy.integrate.IntegrationWarning")
@pytest.mark.parametrize("name", list(QUADRATURE_CASES))
def test_scipy_quadrature_over_the_section(name: str) -> None:
    """Cylindrical coordinates: dm = 2 pi rho r dr dx over r(x) <= r <= R(x), and the mean of
    z^2 over a ring is r^2 / 2. scipy's adaptive quadrature, tolerance 1e-12 relative."""
    length, ra, rb, rai, rbi = QUADRATURE_CASES[name]
    rho = 2700.0
    body = rp.Cone(
        length=length, radius_a=ra, radius_b=rb, inner_radius_a=rai, inner_radius_b=rbi, density=rho
    )

    def outer(x: float) -> float:
        return ra + (rb - ra) * x / length

    def inner(x: float) -> float:
        return rai + (rbi - rai) * x / length

    def integral(f) -> float:
        # dblquad integrates func(y, x) with y (here r) the inner variable
        value, _ = integrate.dblquad(
            lambda r, x: 2 * math.pi * rho * r * f(x, r),
            0.0,
            length,
            inner,
            outer,
            epsabs=0.0,
            epsrel=1e-13,
        )
        return value

    mass = integral(lambda x, r: 1.0)
    com = integral(lambda x, r: x) / mass
    i_xx = integral(lambda x, r: r * r)
    i_yy = integral(lambda x, r: (x - com) ** 2 + r * r / 2)
    assert body.mass == pytest.approx(mass, rel=1e-12)
    assert body.center_of_mass[0] == pytest.approx(com, rel=1e-12)
    assert body.inertia[0, 0] == pytest.approx(i_xx, rel=1e-12)
    assert body.inertia[1, 1] == pytest.approx(i_yy, rel=1e-12)
    assert body.inertia[2, 2] == pytest.approx(i_yy, rel=1e-12)


def test_trimesh_surface_of_revolution_converges() -> None:
    """A polygonal surface of revolution (trimesh.creation.revolve, around +z) of the hollow
    frustum: the error falls as 1/n^2 in the number of sections n (inscribed polygons), and
    Richardson extrapolation of n = 512 and 1024 agrees with the closed forms to 1e-9."""
    trimesh = pytest.importorskip("trimesh")
    length, ra, rb, rai, rbi, rho = 0.8, 0.3, 0.1, 0.2, 0.06, 2700.0
    body = rp.Cone(
        length=length,
        radius_a=ra,
        radius_b=rb,
        inner_radius_a=rai,
        inner_radius_b=rbi,
        density=rho,
        axis=(0, 0, 1),
    )
    profile = np.array([[rai, 0.0], [ra, 0.0], [rb, length], [rbi, length], [rai, 0.0]])

    def mesh_properties(sections: int) -> tuple[float, np.ndarray, np.ndarray]:
        mesh = trimesh.creation.revolve(profile, sections=sections)
        assert mesh.is_watertight
        mesh.density = rho
        return mesh.mass, mesh.center_mass, mesh.moment_inertia

    scale = np.abs(body.inertia).max()
    errors = []
    results = {}
    for n in (256, 512, 1024):
        mass, com, inertia = results[n] = mesh_properties(n)
        errors.append(np.abs(inertia - body.inertia).max() / scale)
        assert abs(mass / body.mass - 1) < 2e-3
        np.testing.assert_allclose(com, body.center_of_mass, atol=1e-12)
    assert errors[2] < 1e-5
    assert 3.5 < errors[0] / errors[1] < 4.5 and 3.5 < errors[1] / errors[2] < 4.5

    def extrapolate(coarse, fine):
        return (4 * fine - coarse) / 3

    mass = extrapolate(results[512][0], results[1024][0])
    inertia = extrapolate(results[512][2], results[1024][2])
    assert abs(mass / body.mass - 1) < 1e-9
    assert np.abs(inertia - body.inertia).max() / scale < 1e-9
