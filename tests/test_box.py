"""The Box against independent computations.

1. Symbolic: direct sympy integration of the hollow box (density over the four walls, canonical
   frame: axis +x, height H along +y, width W along +z) equals the library's cancellation-free
   ``shapes.box.closed_form`` as written, and the 50-digit references; the printed I_xx and m
   of spec/box.txt are right, the printed I_yy / I_zz are wrong unless H = L / W = L.
2. Precision: rp.Box vs 50-digit references, thin walls to 1e-12, scales 1e-3..1e3 m,
   densities to 1e8 kg/m^3; the outer-minus-inner formulas in float64 fail on thin walls.
3. Known limits (textbook cuboid, outer minus inner) and an exact polyhedral mesh (trimesh).
"""

from __future__ import annotations

import itertools

import mpmath
import numpy as np
import pytest
import sympy as sp

import rigidparts as rp
from reference import (
    QUANTITIES,
    Exact,
    box_formulas,
    box_reference,
    printed_box,
    relative_error,
    symbolic_equal,
)
from rigidparts.shapes import box as box_kernel

# Largest relative error allowed against the 50-digit references (observed: <= 3.4e-16).
PRECISION = 1e-15

L, W, H, WI, HI, RHO = sp.symbols("L W H W_i H_i rho", positive=True)


# -- 1. symbolic proofs -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def direct() -> dict[str, sp.Expr]:
    """Direct integration of rho over the hollow box: x in [0, L] and the section split into
    four rectangles (top and bottom walls full width, side walls between them)."""
    x, y, z = sp.symbols("x y z", real=True)
    walls = [  # (y range, z range)
        ((HI / 2, H / 2), (-W / 2, W / 2)),
        ((-H / 2, -HI / 2), (-W / 2, W / 2)),
        ((-HI / 2, HI / 2), (WI / 2, W / 2)),
        ((-HI / 2, HI / 2), (-W / 2, -WI / 2)),
    ]

    def integral(f: sp.Expr) -> sp.Expr:
        return sum(sp.integrate(RHO * f, (x, 0, L), (y, *ys), (z, *zs)) for ys, zs in walls)

    mass = integral(sp.Integer(1))
    com_x = sp.cancel(integral(x) / mass)
    c = sp.Symbol("c", real=True)  # moments about (c, 0, 0), then c := the centre of mass

    def about_com(f: sp.Expr) -> sp.Expr:
        return sp.expand(integral(f.subs(x, x - c)).subs(c, com_x))

    return {
        "volume": mass / RHO,
        "mass": mass,
        "com_x": com_x,
        "com_y": integral(y) / mass,
        "com_z": integral(z) / mass,
        "i_xx": integral(y**2 + z**2),
        "i_yy": about_com(x**2 + z**2),
        "i_zz": about_com(x**2 + y**2),
        "i_xy": -about_com(x * y),
        "i_xz": -about_com(x * z),
        "i_yz": -integral(y * z),
    }


def test_direct_integration_centre_and_products(direct) -> None:
    assert direct["com_x"] == L / 2
    for key in ("com_y", "com_z", "i_xy", "i_xz", "i_yz"):
        assert sp.simplify(direct[key]) == 0, key


def test_library_closed_form_equals_direct_integration(direct) -> None:
    """The code of shapes/box.py itself, run on exact symbolic numbers (float constants such
    as 12.0 and 0.5 converted exactly), equals the integrals."""
    result = box_kernel.closed_form(*(Exact(s) for s in (L, W, H, WI, HI, RHO)))
    got = dict(zip(QUANTITIES, (value.expr for value in result), strict=True))
    for key in QUANTITIES:
        assert symbolic_equal(got[key], direct[key]), key


def test_reference_formulas_equal_direct_integration(direct) -> None:
    reference = box_formulas(L, W, H, WI, HI, RHO)
    for key in QUANTITIES:
        assert symbolic_equal(reference[key], direct[key]), key


def test_printed_mass_and_i_xx_are_right(direct) -> None:
    printed = printed_box(L, W, H, WI, HI, RHO)
    assert symbolic_equal(printed["mass"], direct["mass"])
    assert symbolic_equal(printed["i_xx"], direct["i_xx"])


def test_printed_i_yy_and_i_zz_are_a_typo(direct) -> None:
    """spec/box.txt prints "W L (W^2 + L^2)" and "H L (H^2 + L^2)" for the outer terms; they
    differ from the true ones by rho L W (W^2 + L^2) (L - H) / 12 and rho L H (H^2 + L^2)
    (L - W) / 12, so they agree only when H = L (I_yy) or W = L (I_zz)."""
    printed = printed_box(L, W, H, WI, HI, RHO)
    error_yy = sp.factor(printed["i_yy"] - direct["i_yy"])
    error_zz = sp.factor(printed["i_zz"] - direct["i_zz"])
    assert symbolic_equal(error_yy, RHO * L * W * (W**2 + L**2) * (L - H) / 12)
    assert symbolic_equal(error_zz, RHO * L * H * (H**2 + L**2) * (L - W) / 12)
    assert sp.solve(error_yy, H) == [L]
    assert sp.solve(error_zz, W) == [L]
    # so a unit cube cannot see it, but the default box (H = 0.2, W = 0.1, L = 1) can
    cube = {L: 1, W: 1, H: 1, WI: sp.Rational(1, 2), HI: sp.Rational(1, 2), RHO: 1}
    assert error_yy.subs(cube) == 0 and error_zz.subs(cube) == 0
    defaults = {L: 1, W: sp.Rational(1, 10), H: sp.Rational(1, 5), WI: 0, HI: 0, RHO: 7860}
    body = rp.Box()
    assert body.inertia[1, 1] == pytest.approx(float(direct["i_yy"].subs(defaults)), rel=1e-15)
    assert abs(float(printed["i_yy"].subs(defaults)) / body.inertia[1, 1] - 1) > 0.5


# -- 2. precision against 50-digit references ---------------------------------------------------


def _walls(t: float) -> dict[str, tuple[float, ...]]:
    """Thin walls: inner = outer * (1 - t) in float64 (the same floats feed the reference)."""
    return {
        f"wall_{t:g}": (1.0, 0.1, 0.2, 0.1 * (1 - t), 0.2 * (1 - t)),
        f"wall_h_only_{t:g}": (1.0, 0.1, 0.2, 0.05, 0.2 * (1 - t)),
        f"wall_w_only_{t:g}": (2.0, 0.3, 0.2, 0.3 * (1 - t), 0.1),
        f"square_tube_{t:g}": (3.0, 0.05, 0.05, 0.05 * (1 - t), 0.05 * (1 - t)),
    }


CASES: dict[str, tuple[float, ...]] = {
    "defaults": (1.0, 0.1, 0.2, 0.0, 0.0),
    "cube": (1.0, 1.0, 1.0, 0.0, 0.0),
    "hollow": (1.0, 0.1, 0.2, 0.06, 0.15),
    "plate": (1e-3, 2.0, 3.0, 0.0, 0.0),
    "hollow_plate": (1e-3, 2.0, 3.0, 1.0, 1.0),
    "rod": (5.0, 1e-3, 2e-3, 0.0, 0.0),
    "hole_full_width": (1.0, 0.1, 0.2, 0.1, 0.1),  # two separate plates
    "hole_full_height": (1.0, 0.1, 0.2, 0.05, 0.2),
    **_walls(1e-6),
    **_walls(1e-9),
    **_walls(1e-12),
}
SCALES = (1e-3, 1.0, 1e3)
DENSITIES = (1.0, 7860.0, 1e8)


def _library(dims: tuple[float, ...], density: float) -> tuple[rp.Box, dict[str, float]]:
    body = rp.Box(**dict(zip(box_kernel.SPEC.parameter_names, dims, strict=True)), density=density)
    return body, {
        "volume": body.volume,
        "mass": body.mass,
        "com_x": float(body.center_of_mass[0]),
        "i_xx": float(body.inertia[0, 0]),
        "i_yy": float(body.inertia[1, 1]),
        "i_zz": float(body.inertia[2, 2]),
    }


@pytest.mark.parametrize("name", list(CASES))
def test_precision_against_50_digit_reference(name: str) -> None:
    worst = dict.fromkeys(QUANTITIES, 0.0)
    for scale, density in itertools.product(SCALES, DENSITIES):
        dims = tuple(scale * d for d in CASES[name])
        body, got = _library(dims, density)
        ref = box_reference(*dims, density)
        for key in QUANTITIES:
            worst[key] = max(worst[key], relative_error(got[key], ref[key]))
        expected = sorted([ref["i_xx"], ref["i_yy"], ref["i_zz"]])
        for moment, exact in zip(body.principal_moments, expected, strict=True):
            assert relative_error(moment, exact) <= PRECISION
        # +x axis: the tensor is exactly diagonal
        assert np.count_nonzero(body.inertia - np.diag(np.diag(body.inertia))) == 0
    assert max(worst.values()) <= PRECISION, worst


def test_reference_is_converged_at_50_digits() -> None:
    for name in ("wall_1e-12", "square_tube_1e-12"):
        at50 = box_reference(*CASES[name], 7860.0)
        at80 = box_reference(*CASES[name], 7860.0, dps=80)
        with mpmath.workdps(80):
            for key in QUANTITIES:
                assert abs(at50[key] - at80[key]) <= mpmath.mpf("1e-30") * abs(at80[key])


def test_outer_minus_inner_in_float64_fails_on_thin_walls() -> None:
    """Documents the cancellation: the (corrected) outer-minus-inner formulas in float64 lose
    about 8 digits at a 1e-9 wall and about 11 at 1e-12; the library loses none."""
    for t, at_least in ((1e-9, 1e-9), (1e-12, 1e-6)):
        dims = (1.0, 0.1, 0.2, 0.1 * (1 - t), 0.2 * (1 - t))
        ref = box_reference(*dims, 7860.0)
        naive = box_formulas(*dims, 7860.0)
        _, library = _library(dims, 7860.0)
        for key in ("mass", "i_xx", "i_yy", "i_zz"):
            assert relative_error(naive[key], ref[key]) > at_least, key
            assert relative_error(library[key], ref[key]) <= PRECISION, key


# -- 3. known limits and an exact mesh ----------------------------------------------------------


def test_solid_box_equals_textbook_cuboid() -> None:
    """Cuboid a x b x c (a along the axis): I = m (b^2 + c^2) / 12 about the axis, etc."""
    a, b, c, rho = 0.7, 0.3, 0.11, 2700.0  # a: length, b: height (+y), c: width (+z)
    box = rp.Box(length=a, height=b, width=c, density=rho)
    mass = rho * a * b * c
    assert box.mass == pytest.approx(mass, rel=1e-15)
    assert box.volume == pytest.approx(a * b * c, rel=1e-15)
    np.testing.assert_array_equal(box.center_of_mass, [a / 2, 0, 0])
    np.testing.assert_allclose(
        box.inertia,
        np.diag([mass * (b**2 + c**2) / 12, mass * (a**2 + c**2) / 12, mass * (a**2 + b**2) / 12]),
        rtol=1e-15,
        atol=0,
    )


def test_hollow_equals_outer_minus_inner_in_exact_arithmetic() -> None:
    """The library's hollow box = its solid outer box minus its solid inner box (same centre),
    the subtraction done exactly in mpmath."""
    dims, rho = (0.9, 0.12, 0.2, 0.08, 0.15), 7860.0
    hollow, _ = _library(dims, rho)
    outer = rp.Box(length=dims[0], width=dims[1], height=dims[2], density=rho)
    inner = rp.Box(length=dims[0], width=dims[3], height=dims[4], density=rho)
    amplification = outer.mass / hollow.mass
    with mpmath.workdps(50):
        for got, a, b in [
            (hollow.mass, outer.mass, inner.mass),
            (hollow.volume, outer.volume, inner.volume),
            *[(hollow.inertia[i, i], outer.inertia[i, i], inner.inertia[i, i]) for i in range(3)],
        ]:
            exact = mpmath.mpf(a) - mpmath.mpf(b)
            assert relative_error(got, exact) <= 4e-16 * amplification
    np.testing.assert_array_equal(hollow.center_of_mass, outer.center_of_mass)


def test_rotate90_swaps_height_and_width_moments() -> None:
    """rotate90 turns the section: W along +y, H along +z; I_yy and I_zz trade places."""
    plain = rp.Box(length=0.5, width=0.1, height=0.3, inner_width=0.05, inner_height=0.2)
    turned = rp.Box(
        length=0.5, width=0.1, height=0.3, inner_width=0.05, inner_height=0.2, rotate90=True
    )
    assert turned.mass == plain.mass
    assert turned.inertia[0, 0] == plain.inertia[0, 0]
    assert turned.inertia[1, 1] == plain.inertia[2, 2]
    assert turned.inertia[2, 2] == plain.inertia[1, 1]
    # and a box of swapped width and height is the same as the turned one
    swapped = rp.Box(length=0.5, width=0.3, height=0.1, inner_width=0.2, inner_height=0.05)
    np.testing.assert_allclose(swapped.inertia, turned.inertia, rtol=1e-15, atol=0)


@pytest.mark.parametrize(
    "dims",
    [(0.9, 0.12, 0.2, 0.08, 0.15), (0.9, 0.12, 0.2, 0.12 * (1 - 1e-6), 0.2 * (1 - 1e-6))],
    ids=["hollow", "thin_wall_1e-6"],
)
def test_trimesh_extruded_section(dims: tuple[float, ...]) -> None:
    """An exact polyhedron: the section (shapely polygon with a hole) extruded along +z by
    trimesh; its mass properties (divergence theorem) match the closed forms. With axis +z
    the rule gives h = +x, w = +y, so the polygon has its height along x."""
    trimesh = pytest.importorskip("trimesh")
    geometry = pytest.importorskip("shapely.geometry")
    length, width, height, inner_width, inner_height = dims
    rho = 7860.0
    section = geometry.box(-height / 2, -width / 2, height / 2, width / 2).difference(
        geometry.box(-inner_height / 2, -inner_width / 2, inner_height / 2, inner_width / 2)
    )
    mesh = trimesh.creation.extrude_polygon(section, length)
    assert mesh.is_watertight
    mesh.density = rho
    body = rp.Box(
        length=length,
        width=width,
        height=height,
        inner_width=inner_width,
        inner_height=inner_height,
        density=rho,
        axis=(0, 0, 1),
    )
    # the mesh's own round-off grows as the wall thins (its volume is a difference)
    tol = 1e-13 if dims[3] < 0.1 else 1e-8
    assert mesh.mass == pytest.approx(body.mass, rel=tol)
    np.testing.assert_allclose(mesh.center_mass, body.center_of_mass, rtol=0, atol=tol * length)
    np.testing.assert_allclose(
        mesh.moment_inertia, body.inertia, rtol=0, atol=tol * np.abs(body.inertia).max()
    )
