"""The Ball against independent computations.

1. Symbolic: direct sympy integration of the hollow ball (density over the shell, spherical
   coordinates) equals the library's cancellation-free ``shapes.ball.closed_form`` *as written*
   (run on exact symbolic numbers) and the textbook "outer sphere minus inner sphere" formulas
   used as references; the thin-shell limit is ``(2/3) m R^2``.
2. Precision: rp.Ball vs 50-digit references on solid, hollow, tiny-cavity and thin-shell balls
   (walls down to 1e-12 of the radius) at scales 1e-3..1e3 m and densities up to 1e8 kg/m^3;
   the textbook formulas in float64 fail on the same inputs.
3. Known limits (textbook solid sphere, thin shell, outer minus inner in exact arithmetic,
   numeric quadrature) and invariants on random balls (hypothesis).
4. The mesh: watertight, outward, the inscribed polyhedron's volume to rounding, second-order
   convergence of volume and inertia, thin shells to 1e-12, the float limits.
5. Rules: bad input of every kind, valid edge cases, ``mass=``, frames.
"""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest
import sympy as sp
import trimesh
from hypothesis import given
from hypothesis import strategies as st
from scipy import integrate

import rigidparts as rp
from reference import REFERENCE_DPS, Exact, relative_error, symbolic_equal
from rigidparts.inertia import invalidity_report
from rigidparts.shapes import SHAPES, Primitive
from rigidparts.shapes import ball as ball_kernel
from rigidparts.shapes._meshing import MIN_RELATIVE_TIP, MIN_RELATIVE_WALL

# Largest relative error allowed against the 50-digit references: the named cases (observed
# <= 3.9e-16) and random balls (observed <= 7.3e-16 over 300 000 random balls).
PRECISION = 5e-16
RANDOM_PRECISION = 1e-15

QUANTITIES = ("volume", "mass", "com_x", "i_xx", "i_yy", "i_zz")
R, RI, RHO = sp.symbols("R R_i rho", positive=True)


# -- independent references (textbook, outer minus inner) ---------------------------------------


def solid_sphere(radius, density, pi) -> dict:
    """Solid sphere of radius R (textbook): V = 4/3 pi R^3, I = 2/5 m R^2 about any axis
    through its centre."""
    volume = 4 * pi * radius**3 / 3
    mass = density * volume
    return {"volume": volume, "mass": mass, "moment": 2 * mass * radius**2 / 5}


def ball_formulas(radius, inner_radius, density, pi) -> dict:
    """Hollow ball = solid outer sphere minus the concentric solid inner one (same centre, so
    the moments subtract directly). Plain + - * /: sympy, mpmath or floats."""
    outer = solid_sphere(radius, density, pi)
    inner = solid_sphere(inner_radius, density, pi)
    moment = outer["moment"] - inner["moment"]
    return {
        "volume": outer["volume"] - inner["volume"],
        "mass": outer["mass"] - inner["mass"],
        "com_x": 0 * radius,
        "i_xx": moment,
        "i_yy": moment,
        "i_zz": moment,
    }


def ball_reference(radius, inner_radius, density, *, dps: int = REFERENCE_DPS) -> dict:
    """:func:`ball_formulas` at ``dps`` digits from the exact values of the float64 inputs."""
    with mpmath.workdps(dps):
        args = [mpmath.mpf(float(v)) for v in (radius, inner_radius, density)]
        return {key: +value for key, value in ball_formulas(*args, mpmath.pi).items()}


# -- 1. symbolic proofs -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def direct() -> dict[str, sp.Expr]:
    """Direct integration of rho over R_i <= r <= R, theta (from +x) in [0, pi], phi in
    [0, 2 pi]: x = r cos(theta), y = r sin(theta) cos(phi), z = r sin(theta) sin(phi)."""
    r, th, ph = sp.symbols("r theta phi", real=True)
    x = r * sp.cos(th)
    y = r * sp.sin(th) * sp.cos(ph)
    z = r * sp.sin(th) * sp.sin(ph)

    def integral(f: sp.Expr) -> sp.Expr:
        return sp.integrate(
            sp.expand(RHO * f * r**2 * sp.sin(th)), (ph, 0, 2 * sp.pi), (th, 0, sp.pi), (r, RI, R)
        )

    mass = integral(sp.Integer(1))
    return {
        "volume": mass / RHO,
        "mass": mass,
        "com_x": integral(x) / mass,
        "com_y": integral(y) / mass,
        "com_z": integral(z) / mass,
        "i_xx": integral(y**2 + z**2),
        "i_yy": integral(x**2 + z**2),
        "i_zz": integral(x**2 + y**2),
        "i_xy": -integral(x * y),
        "i_xz": -integral(x * z),
        "i_yz": -integral(y * z),
    }


def test_direct_integration_centre_products_and_isotropy(direct) -> None:
    for key in ("com_x", "com_y", "com_z", "i_xy", "i_xz", "i_yz"):
        assert sp.simplify(direct[key]) == 0, key
    assert symbolic_equal(direct["i_xx"], direct["i_yy"])
    assert symbolic_equal(direct["i_xx"], direct["i_zz"])


def test_library_closed_form_equals_direct_integration(direct) -> None:
    """The code of shapes/ball.py itself, run on exact symbolic numbers (its float constants
    converted exactly), equals the integrals. pi enters only as a factor, so the library's
    float pi is divided out and compared with sympy.pi divided out."""
    result = ball_kernel.closed_form(Exact(R), Exact(RI), Exact(RHO))
    assert result[2] == 0.0  # com_x: the centre, a plain constant
    got = dict(zip(QUANTITIES, (getattr(v, "expr", v) for v in result), strict=True))
    float_pi = sp.Rational(math.pi)
    for key in ("volume", "mass", "i_xx", "i_yy", "i_zz"):
        assert symbolic_equal(got[key] / float_pi, direct[key] / sp.pi), key


def test_family_spec_forms_equal_direct_integration(direct) -> None:
    """spec/family.md: m = (4/3) pi rho d (R^2 + R R_i + R_i^2),
    I = (8/15) pi rho d (R^4 + R^3 R_i + R^2 R_i^2 + R R_i^3 + R_i^4), d = R - R_i."""
    d = R - RI
    mass = sp.Rational(4, 3) * sp.pi * RHO * d * (R**2 + R * RI + RI**2)
    s4 = R**4 + R**3 * RI + R**2 * RI**2 + R * RI**3 + RI**4
    moment = sp.Rational(8, 15) * sp.pi * RHO * d * s4
    assert symbolic_equal(mass, direct["mass"])
    assert symbolic_equal(moment, direct["i_xx"])


def test_reference_formulas_equal_direct_integration(direct) -> None:
    reference = ball_formulas(R, RI, RHO, sp.pi)
    for key in QUANTITIES:
        assert symbolic_equal(reference[key], direct[key]), key


def test_symbolic_limits(direct) -> None:
    """Solid: I = (2/5) m R^2. Thin shell (R_i -> R): I / (m R^2) -> 2/3."""
    ratio = direct["i_xx"] / (direct["mass"] * R**2)
    assert sp.simplify(ratio.subs(RI, 0)) == sp.Rational(2, 5)
    assert sp.limit(ratio, RI, R) == sp.Rational(2, 3)


# -- 2. precision against 50-digit references ---------------------------------------------------


def _shells(t: float) -> dict[str, tuple[float, float]]:
    """Thin shells: inner = outer * (1 - t) in float64 (the same floats feed the reference)."""
    return {f"shell_{t:g}": (1.0, 1.0 - t), f"odd_shell_{t:g}": (0.37, 0.37 * (1 - t))}


CASES: dict[str, tuple[float, float]] = {
    "solid": (1.0, 0.0),
    "hollow": (1.0, 0.5),
    "thick": (1.0, 0.1),
    "just_over_half": (1.0, 0.6),
    "odd": (0.7, 0.3),
    "cavity_1e-6": (1.0, 1e-6),
    "cavity_1e-12": (1.0, 1e-12),
    **_shells(1e-3),
    **_shells(1e-6),
    **_shells(1e-9),
    **_shells(1e-12),
}
SCALES = (1e-3, 1.0, 1e3)
DENSITIES = (1.0, 7860.0, 1e8)


def _library(dims: tuple[float, float], density: float) -> tuple[rp.Ball, dict[str, float]]:
    body = rp.Ball(radius=dims[0], inner_radius=dims[1], density=density)
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
        dims = (scale * CASES[name][0], scale * CASES[name][1])
        body, got = _library(dims, density)
        ref = ball_reference(*dims, density)
        for key in QUANTITIES:
            worst[key] = max(worst[key], relative_error(got[key], ref[key]))
        # The tensor is exactly moment * identity: no products, the centre at the origin.
        np.testing.assert_array_equal(body.inertia, got["i_xx"] * np.eye(3))
        np.testing.assert_array_equal(body.center_of_mass, np.zeros(3))
        for moment in body.principal_moments:
            assert relative_error(moment, ref["i_xx"]) <= PRECISION
    assert max(worst.values()) <= PRECISION, worst


def test_reference_is_converged_at_50_digits() -> None:
    """The 1e-12 shells cancel 12 digits in the outer-minus-inner reference: 50 and 80 digits
    agree far below float64's resolution."""
    for name in ("shell_1e-12", "odd_shell_1e-12"):
        at50 = ball_reference(*CASES[name], 7860.0)
        at80 = ball_reference(*CASES[name], 7860.0, dps=80)
        with mpmath.workdps(80):
            for key in ("volume", "mass", "i_xx"):
                assert abs(at50[key] - at80[key]) <= mpmath.mpf("1e-30") * abs(at80[key])


def test_outer_minus_inner_in_float64_fails_on_thin_shells() -> None:
    """Documents the cancellation: R^3 - R_i^3 and R^5 - R_i^5 in float64 lose about 7 digits
    at a 1e-9 shell and about 4 are left at 1e-12; the library loses none."""
    for t, at_least in ((1e-9, 1e-9), (1e-12, 1e-6)):
        dims = (0.37, 0.37 * (1 - t))
        ref = ball_reference(*dims, 7860.0)
        naive = ball_formulas(*dims, 7860.0, math.pi)
        _, library = _library(dims, 7860.0)
        for key in ("volume", "mass", "i_xx"):
            assert relative_error(naive[key], ref[key]) > at_least, key
            assert relative_error(library[key], ref[key]) <= PRECISION, key


def test_thin_shell_limit_at_1e_12_against_50_digits() -> None:
    """A shell of 1e-12 of the radius: I / (m R^2) = (2/3) (1 - t + O(t^2)) exactly, t the
    relative wall; the library's ratio (formed in 50 digits from its floats) is within a few
    ulp of the 50-digit ratio and 1e-12 from the limit 2/3."""
    for radius in (1.0, 0.37, 2.5e3):
        inner = radius * (1 - 1e-12)
        body = rp.Ball(radius=radius, inner_radius=inner, density=7860.0)
        ref = ball_reference(radius, inner, 7860.0)
        with mpmath.workdps(REFERENCE_DPS):
            r = mpmath.mpf(radius)
            t = (r - mpmath.mpf(inner)) / r  # the wall in float64, exactly
            got = mpmath.mpf(body.inertia[0, 0]) / (mpmath.mpf(body.mass) * r * r)
            exact = ref["i_xx"] / (ref["mass"] * r * r)
            assert abs(got / exact - 1) <= 2 * PRECISION
            limit = mpmath.mpf(2) / 3
            assert abs(exact / (limit * (1 - t)) - 1) <= 10 * t**2
            assert abs(got / limit - 1) <= mpmath.mpf("1.1e-12")
        # and in plain float64 too
        assert body.inertia[0, 0] == pytest.approx(2 / 3 * body.mass * radius**2, rel=1.1e-12)


@given(
    radius=st.floats(1e-3, 1e3),
    fraction=st.floats(0.0, 1.0, exclude_max=True),
    density=st.floats(1.0, 1e5),
)
def test_random_balls_against_50_digits(radius: float, fraction: float, density: float) -> None:
    inner = radius * fraction
    if inner >= radius:
        return
    _, got = _library((radius, inner), density)
    ref = ball_reference(radius, inner, density)
    for key in ("volume", "mass", "i_xx"):
        assert relative_error(got[key], ref[key]) <= RANDOM_PRECISION, key


# -- 3. known limits and invariants -------------------------------------------------------------


def test_solid_ball_equals_textbook_sphere() -> None:
    radius, rho = 0.3, 2700.0
    ball = rp.Ball(radius=radius, density=rho)
    mass = rho * 4 / 3 * math.pi * radius**3
    assert ball.mass == pytest.approx(mass, rel=1e-15)
    assert ball.volume == pytest.approx(4 / 3 * math.pi * radius**3, rel=1e-15)
    np.testing.assert_allclose(ball.inertia, 0.4 * mass * radius**2 * np.eye(3), rtol=1e-15, atol=0)
    assert SHAPES["ball"].primitive(ball.dimensions) == Primitive("sphere", (radius,), (0, 0, 0))


def test_default_ball() -> None:
    """R = 1 m, solid steel (7860 kg/m^3), as the original's defaults."""
    ball = rp.Ball()
    assert ball.radius == 1.0 and ball.inner_radius == 0.0 and ball.material == "steel"
    assert ball.mass == pytest.approx(7860.0 * 4 / 3 * math.pi, rel=1e-15)
    assert ball.inertia[0, 0] == pytest.approx(0.4 * ball.mass, rel=1e-15)


def test_hollow_equals_outer_minus_inner_in_exact_arithmetic() -> None:
    """The library's hollow ball = its solid outer ball minus its solid inner ball, the
    subtraction done exactly in mpmath (same centre: the moments subtract directly)."""
    radius, inner, rho = 0.45, 0.4, 7860.0
    hollow = rp.Ball(radius=radius, inner_radius=inner, density=rho)
    outer = rp.Ball(radius=radius, density=rho)
    core = rp.Ball(radius=inner, density=rho)
    amplification = outer.inertia[0, 0] / hollow.inertia[0, 0]
    with mpmath.workdps(50):
        for got, a, b in [
            (hollow.mass, outer.mass, core.mass),
            (hollow.volume, outer.volume, core.volume),
            *[(hollow.inertia[i, i], outer.inertia[i, i], core.inertia[i, i]) for i in range(3)],
        ]:
            exact = mpmath.mpf(a) - mpmath.mpf(b)
            assert relative_error(got, exact) <= 4e-16 * amplification


def test_scipy_quadrature_over_the_radius() -> None:
    """Shells of radius r: dm = 4 pi rho r^2 dr, and a shell's moment is (2/3) dm r^2."""
    radius, inner, rho = 0.8, 0.35, 4430.0
    ball = rp.Ball(radius=radius, inner_radius=inner, density=rho)
    mass, _ = integrate.quad(lambda r: 4 * math.pi * rho * r * r, inner, radius, epsrel=1e-14)
    moment, _ = integrate.quad(
        lambda r: 2 / 3 * 4 * math.pi * rho * r**4, inner, radius, epsrel=1e-14
    )
    assert ball.mass == pytest.approx(mass, rel=1e-13)
    assert ball.inertia[1, 1] == pytest.approx(moment, rel=1e-13)


@given(radius=st.floats(1e-3, 1e3), fraction=st.floats(0.0, 1.0, exclude_max=True))
def test_invariants(radius: float, fraction: float) -> None:
    """Symmetric, positive definite, the triangle inequality, isotropic; the radius of
    gyration lies between the solid ball's and the thin shell's: (2/5) m R^2 <= I <=
    (2/3) m R^2 (to rounding)."""
    inner = radius * fraction
    if inner >= radius:
        return
    ball = rp.Ball(radius=radius, inner_radius=inner)
    inertia = ball.inertia
    np.testing.assert_array_equal(inertia, inertia.T)
    assert invalidity_report(ball.principal_moments, tolerance=0.0) is None
    assert np.all(np.linalg.eigvalsh(inertia) > 0.0)
    np.testing.assert_array_equal(inertia, inertia[0, 0] * np.eye(3))
    moment, scale = inertia[0, 0], ball.mass * radius * radius
    assert 0.4 * scale * (1 - 4e-15) <= moment <= 2 / 3 * scale * (1 + 4e-15)
    assert np.array_equal(ball.center_of_mass, np.zeros(3))
    assert ball.inertia is ball.mass_properties.inertia


@given(radius=st.floats(1e-2, 1e2), a=st.floats(0.0, 1.0), b=st.floats(1e-3, 1.0))
def test_hollow_is_outer_minus_inner_for_random_balls(radius: float, a: float, b: float) -> None:
    """A ball with cavity r_1 minus one with cavity r_2 > r_1 is the shell r_1 .. r_2: the
    mass and moment are additive over concentric shells (exactly, in mpmath)."""
    r1, r2 = sorted((a * radius, b * radius))
    if not (r1 < r2 < radius):
        return
    whole = rp.Ball(radius=radius, inner_radius=r1)
    outer_part = rp.Ball(radius=radius, inner_radius=r2)
    shell = rp.Ball(radius=r2, inner_radius=r1)
    with mpmath.workdps(50):
        for attr in ("mass", "volume"):
            total = mpmath.mpf(getattr(outer_part, attr)) + mpmath.mpf(getattr(shell, attr))
            assert relative_error(getattr(whole, attr), total) <= 4 * RANDOM_PRECISION
        total = mpmath.mpf(outer_part.inertia[0, 0]) + mpmath.mpf(shell.inertia[0, 0])
        assert relative_error(whole.inertia[0, 0], total) <= 4 * RANDOM_PRECISION


# -- 4. the mesh --------------------------------------------------------------------------------


def inscribed_factor(sections: int) -> float:
    """Area of the regular N-gon inscribed in the unit circle over pi."""
    return 0.5 * sections * math.sin(2.0 * math.pi / sections) / math.pi


def polyhedron_volume(radius: float, inner: float, sections: int) -> float:
    """The volume the mesh must have, by plane geometry written out here: each semicircle is
    the inscribed polygon of ``sections`` segments; the solid of revolution of that polygonal
    profile is a stack of frusta (V = pi h (a^2 + a b + b^2) / 3), and revolving with N
    segments replaces each circular section by the inscribed N-gon (factor above)."""

    def revolved(r: float) -> float:
        phi = np.linspace(0.0, math.pi, sections + 1)
        rho, x = r * np.sin(phi), -r * np.cos(phi)
        a, b, h = rho[:-1], rho[1:], np.diff(x)
        return float(np.sum(math.pi * h * (a * a + a * b + b * b) / 3.0))

    return inscribed_factor(sections) * (revolved(radius) - revolved(inner))


def assert_closed_volume(mesh: trimesh.Trimesh) -> None:
    assert mesh.is_watertight
    assert mesh.is_winding_consistent
    assert mesh.is_volume
    assert mesh.volume > 0.0


MESH_CASES = {
    "solid": (1.0, 0.0),
    "hollow": (1.0, 0.6),
    "thick": (0.02, 0.002),
    "huge": (3e4, 1e4),
    "micro": (2e-7, 1.5e-7),
}


@pytest.mark.parametrize("case", list(MESH_CASES))
@pytest.mark.parametrize("sections", [3, 4, 7, 16, 64])
def test_mesh_is_the_inscribed_polyhedron(case: str, sections: int) -> None:
    radius, inner = MESH_CASES[case]
    ball = rp.Ball(radius=radius, inner_radius=inner)
    mesh = ball.mesh(sections=sections)
    assert_closed_volume(mesh)
    assert mesh.body_count == (1 if inner == 0.0 else 2)
    assert mesh.volume == pytest.approx(polyhedron_volume(radius, inner, sections), rel=1e-12)
    # The poles, and with an even count the equator's vertex on +y, reach the radius exactly.
    np.testing.assert_array_equal(mesh.bounds[:, 0], [-radius, radius])
    if sections % 2 == 0:
        assert mesh.bounds[1, 1] == radius
    assert np.linalg.norm(mesh.vertices, axis=1).max() == pytest.approx(radius, rel=1e-15)
    assert mesh.metadata["shape"] == "ball"


def test_mesh_volume_converges_at_second_order() -> None:
    ball = rp.Ball(radius=0.5, inner_radius=0.3)
    errors = [abs(ball.mesh(sections=n).volume / ball.volume - 1.0) for n in (16, 64, 256)]
    orders = [math.log(errors[i] / errors[i + 1]) / math.log(4.0) for i in range(2)]
    assert orders == pytest.approx([2.0, 2.0], abs=0.02)


def test_mesh_mass_properties_converge_to_the_closed_forms() -> None:
    ball = rp.Ball(radius=0.4, inner_radius=0.25, material="brass")
    errors = []
    for sections in (32, 128):
        mesh = ball.mesh(sections=sections)
        mesh.density = ball.density
        np.testing.assert_allclose(mesh.center_mass, ball.center_of_mass, atol=1e-12)
        errors.append(np.abs(mesh.moment_inertia - ball.inertia).max() / ball.inertia[0, 0])
    assert errors[1] < 1.2e-3
    assert errors[0] / errors[1] == pytest.approx(16.0, rel=0.05)  # O(1/N^2)


def test_mesh_normals_point_outwards_and_the_cavity_is_empty() -> None:
    hollow = rp.Ball(radius=1.0, inner_radius=0.5).mesh(sections=24)
    solid = rp.Ball(radius=1.0).mesh(sections=24)
    for mesh in (hollow, solid):
        assert not mesh.contains(mesh.triangles_center + 1e-4 * mesh.face_normals).any()
        assert mesh.contains(mesh.triangles_center - 1e-4 * mesh.face_normals).all()
    centre = [[0.0, 0.0, 0.0], [0.1, -0.2, 0.3]]
    assert not hollow.contains(centre).any()
    assert solid.contains(centre).all()
    assert hollow.contains([[0.0, 0.75, 0.0], [0.0, 0.0, -0.75], [0.75, 0.0, 0.0]]).all()


@pytest.mark.parametrize("wall", [1e-6, 1e-9, 1e-12])
@pytest.mark.parametrize("radius", [1.0, 3e-5, 7e3])
def test_thin_shells_mesh_closed(wall: float, radius: float) -> None:
    ball = rp.Ball(radius=radius, inner_radius=radius * (1 - wall))
    mesh = ball.mesh(sections=32)
    assert_closed_volume(mesh)
    assert mesh.body_count == 2
    # Two spheres 1e-12 apart: the mesh volume is their difference, with that cancellation.
    expected = polyhedron_volume(radius, radius * (1 - wall), 32)
    assert mesh.volume == pytest.approx(expected, rel=2e-16 / wall * 64)


def test_wall_below_the_float_limit_cannot_be_meshed() -> None:
    radius = 0.4
    inner = radius - 0.5 * MIN_RELATIVE_WALL * radius
    ball = rp.Ball(radius=radius, inner_radius=inner)
    assert ball.mass > 0.0  # the body itself is fine
    with pytest.raises(rp.ParameterError, match=r"inner_radius=.*too thin to mesh") as info:
        ball.mesh()
    assert info.value.parameter == "inner_radius"
    # Just above the limit: closed.
    assert_closed_volume(rp.Ball(radius=radius, inner_radius=radius * (1 - 2e-13)).mesh())


def test_cavity_below_the_float_limit_is_meshed_solid() -> None:
    tiny = rp.Ball(radius=1.0, inner_radius=0.5 * MIN_RELATIVE_TIP).mesh(sections=16)
    assert_closed_volume(tiny)
    assert tiny.body_count == 1
    assert tiny.volume == pytest.approx(polyhedron_volume(1.0, 0.0, 16), rel=1e-14)
    # A cavity of 1e-12 of the radius is still there (just above the limit).
    small = rp.Ball(radius=1.0, inner_radius=1e-12).mesh(sections=16)
    assert_closed_volume(small)
    assert small.body_count == 2


def test_primitive_only_when_solid() -> None:
    spec = SHAPES["ball"]
    assert spec.primitive({"radius": 0.2, "inner_radius": 0.0}) == Primitive(
        "sphere", (0.2,), (0.0, 0.0, 0.0)
    )
    assert spec.primitive({"radius": 0.2, "inner_radius": 0.1}) is None


@given(
    radius=st.floats(1e-3, 1e3),
    fraction=st.floats(0.0, 0.999999),
    sections=st.integers(3, 24),
)
def test_mesh_property(radius: float, fraction: float, sections: int) -> None:
    inner = radius * fraction
    mesh = rp.Ball(radius=radius, inner_radius=inner).mesh(sections=sections)
    assert_closed_volume(mesh)
    snapped = inner if inner >= MIN_RELATIVE_TIP * radius else 0.0
    assert mesh.volume == pytest.approx(polyhedron_volume(radius, snapped, sections), rel=1e-8)


# -- 5. rules, edge cases, mass=, frames --------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "parameter", "rule"),
    [
        ({"radius": 0.0}, "radius", "must be positive and finite"),
        ({"radius": -1.0}, "radius", "must be positive and finite"),
        ({"radius": math.nan}, "radius", "must be positive and finite"),
        ({"radius": math.inf}, "radius", "must be positive and finite"),
        ({"radius": "-5 mm"}, "radius", "must be positive and finite"),
        ({"radius": "1 kg"}, "radius", "expected a length"),
        ({"radius": "abc"}, "radius", "pint"),
        ({"radius": None}, "radius", "must be a number"),
        ({"radius": True}, "radius", "boolean"),
        ({"radius": [1.0]}, "radius", "must be a number"),
        ({"inner_radius": -1e-300}, "inner_radius", "must be non-negative and finite"),
        ({"inner_radius": math.nan}, "inner_radius", "must be non-negative and finite"),
        ({"inner_radius": math.inf}, "inner_radius", "must be non-negative and finite"),
        ({"inner_radius": 1.5}, "inner_radius", r"must not exceed radius=1.0 m"),
        ({"inner_radius": 1.0}, "inner_radius", "leaves no material"),
        ({"radius": "2 cm", "inner_radius": "20 mm"}, "inner_radius", "leaves no material"),
        ({"radius": 0.0, "inner_radius": -1.0}, "radius", "must be positive"),  # first rule wins
        ({"density": 0.0}, "density", "must be positive and finite"),
        ({"density": -7.0}, "density", "must be positive and finite"),
        ({"density": math.inf}, "density", "must be positive and finite"),
        ({"mass": 0.0}, "mass", "must be positive and finite"),
        ({"mass": math.nan}, "mass", "must be positive and finite"),
        ({"mass": "3 m"}, "mass", "mass"),
        ({"material": "unobtainium"}, "material", "unknown material"),
        ({"material": "steel", "mass": 1.0}, "mass", "give only one"),
        ({"density": 1000.0, "mass": 1.0}, "mass", "give only one"),
        ({"radius": 1e70}, "radius", "beyond what float64 holds"),
        ({"radius": 1e-120}, "radius", "beyond what float64 holds"),
    ],
)
def test_bad_input(kwargs: dict, parameter: str, rule: str) -> None:
    with pytest.raises(rp.ParameterError, match=rule) as info:
        rp.Ball(**kwargs)
    assert info.value.parameter == parameter
    assert str(info.value).startswith(f"{parameter}=")


@pytest.mark.parametrize("keyword", ["axis", "rotate90", "height_direction", "extra_frames"])
def test_no_axis_nor_extra_frames(keyword: str) -> None:
    with pytest.raises(TypeError, match=keyword):
        rp.Ball(**{keyword: (1, 0, 0)})


def test_every_rule_has_its_code() -> None:
    check = ball_kernel.check
    assert check(1.0, 0.0) == 0
    assert check(1.0, 0.999) == 0
    assert check(0.0, 0.0) == ball_kernel.RADIUS_POSITIVE
    assert check(math.nan, 0.0) == ball_kernel.RADIUS_POSITIVE
    assert check(1.0, -0.0) == 0
    assert check(1.0, -1.0) == ball_kernel.INNER_RADIUS_NON_NEGATIVE
    assert check(1.0, 2.0) == ball_kernel.INNER_RADIUS_FITS
    assert check(1.0, 1.0) == ball_kernel.SOME_MATERIAL
    assert ball_kernel.SOME_MATERIAL == len(ball_kernel.RULES)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"radius": 1.0, "inner_radius": math.nextafter(1.0, 0.0)},  # one ulp of wall
        {"radius": 1e-60},  # tiny, the moment still representable
        {"radius": 1e60, "density": 1e-3},
        {"radius": "250 mm", "inner_radius": "0.1 m"},
        {"radius": 1.0, "inner_radius": 0.0},
        {"radius": 1.0, "inner_radius": 5e-324},
    ],
)
def test_valid_edge_cases_stay_valid(kwargs: dict) -> None:
    ball = rp.Ball(**kwargs)
    assert 0.0 < ball.mass < math.inf
    assert 0.0 <= ball.inertia[0, 0] < math.inf
    assert ball.volume > 0.0


def test_one_ulp_shell_is_exact() -> None:
    """A wall of one ulp of the radius: mass and moment still to a few ulp."""
    radius, inner = 1.0, math.nextafter(1.0, 0.0)
    _, got = _library((radius, inner), 7860.0)
    ref = ball_reference(radius, inner, 7860.0, dps=80)
    for key in ("volume", "mass", "i_xx"):
        assert relative_error(got[key], ref[key]) <= PRECISION, key


def test_mass_round_trips_and_units() -> None:
    ball = rp.Ball(radius="300 mm", inner_radius="25 cm", mass="12 kg")
    assert ball.mass == 12.0
    assert ball.radius == 0.3 and ball.inner_radius == 0.25
    assert ball.density == 12.0 / ball.volume
    assert ball.material is None
    params = ball.parameters()
    assert params == {"shape": "ball", "radius": 0.3, "inner_radius": 0.25, "mass": 12.0}
    again = rp.Ball(**{k: v for k, v in params.items() if k != "shape"})
    assert again.inertia.tobytes() == ball.inertia.tobytes()
    by_density = rp.Ball(radius=0.3, inner_radius=0.25, density=ball.density)
    assert by_density.inertia[0, 0] == pytest.approx(ball.inertia[0, 0], rel=4e-16)
    # the mass model: I = (8/15) pi rho (R^5 - R_i^5) with rho = m / V
    assert ball.inertia[0, 0] == pytest.approx(
        0.4 * 12.0 * (0.3**5 - 0.25**5) / (0.3**3 - 0.25**3), rel=1e-13
    )


def test_frames_are_the_centre_only() -> None:
    ball = rp.Ball(radius=0.2, inner_radius=0.1)
    assert list(ball.frames) == ["frame_a", "frame_com"]
    for frame in ball.frames.values():
        np.testing.assert_array_equal(frame.position, np.zeros(3))
        np.testing.assert_array_equal(frame.rotation, np.eye(3))
    np.testing.assert_array_equal(ball.rotation_from_canonical, np.eye(3))
    assert ball.shape == "ball" and ball.spec is SHAPES["ball"]
    data = ball.to_dict()
    assert set(data["frames"]) == {"frame_a", "frame_com"}
    assert "axis" not in data["parameters"] and "extra_frames" not in data["parameters"]
    spec = SHAPES["ball"]
    assert (spec.axis, spec.cross_section, spec.end_frame, spec.extra_frames) == (
        False,
        False,
        None,
        None,
    )
    assert spec.tier == 1
    assert repr(ball) == "Ball(radius=0.2, inner_radius=0.1, material='steel')"


def test_body_class_and_top_level_name() -> None:
    assert rp.body_class("ball") is rp.Ball
    assert "Ball" in rp.__all__


@pytest.mark.parametrize("engine", ["numpy", "numba"])
def test_batch_rows_are_the_scalar_bodies(engine: str) -> None:
    """``rp.batch.ball`` runs the same closed form: every row is the scalar body's bits, thin
    shells included; a bad row names its rule."""
    if engine == "numba":
        pytest.importorskip("numba")
    from rigidparts import batch

    radius = np.array([1.0, 0.37, 2.5e3, 1e-3, 0.7])
    inner = np.array([0.0, 0.37 * (1 - 1e-12), 1e3, 1e-3 * (1 - 1e-9), 0.3])
    rows = batch.ball(radius=radius, inner_radius=inner, density=7860.0, engine=engine)
    for i in range(len(radius)):
        body = rp.Ball(radius=radius[i], inner_radius=inner[i], density=7860.0)
        assert rows.mass[i] == body.mass and rows.volume[i] == body.volume
        assert rows.inertia[i].tobytes() == body.inertia.tobytes()
        assert rows.center_of_mass[i].tobytes() == body.center_of_mass.tobytes()
    masked = batch.ball(
        radius=[1.0, 1.0], inner_radius=[0.5, 1.0], on_invalid="mask", engine=engine
    )
    assert list(masked.error_codes) == [0, ball_kernel.SOME_MATERIAL]
