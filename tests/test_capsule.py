"""The Capsule against independent computations.

1. Symbolic: direct sympy integration over the hollow capsule (the tube in cylindrical
   coordinates, each cap in spherical coordinates about its own centre) equals the library's
   ``shapes.capsule.closed_form`` *as written* (run on exact symbolic numbers, the ball's code
   it calls included), the textbook solid capsule (cylinder plus two hemispheres, each with its
   own centroid ``3R/8`` and central moment ``83/320 m R^2``, moved by parallel axes), and the
   module docstring's forms.
2. Precision: rp.Capsule vs 50-digit references (outer capsule minus inner capsule from the
   textbook forms) on solid, hollow and thin-walled capsules (walls to 1e-12 of the radius),
   balls (L = 0), needles and discs, scales 1e-3..1e3 m, densities to 1e8 kg/m^3, skew axes;
   outer minus inner in float64 fails on the same walls.
3. Limits: L = 0 is rp.Ball bit for bit; R -> 0 the thin rod; the thin shell; hypothesis
   invariants.
4. The mesh: watertight, outward, the inscribed polyhedron's volume, second-order convergence of
   volume and inertia (Richardson to the closed forms), thin walls, float limits.
5. Primitive, frames, rules, ``mass=``, batch rows.
"""

from __future__ import annotations

import itertools
import math
import re

import mpmath
import numpy as np
import pytest
import sympy as sp
import trimesh
from hypothesis import given
from hypothesis import strategies as st

import rigidparts as rp
from reference import (
    QUANTITIES,
    REFERENCE_DPS,
    Exact,
    relative_error,
    rule_directions,
    symbolic_equal,
    tensor_relative_error,
)
from rigidparts.inertia import invalidity_report
from rigidparts.shapes import SHAPES, Primitive
from rigidparts.shapes import capsule as capsule_kernel
from rigidparts.shapes._meshing import MIN_RELATIVE_TIP, MIN_RELATIVE_WALL

# Largest relative error allowed against the 50-digit references (observed: <= 3.9e-16 on the
# named cases, <= 5.8e-16 over 3000 random capsules); a skew axis adds the rotation's rounding.
PRECISION = 8e-16
RANDOM_PRECISION = 1.2e-15
SKEW_PRECISION = 1.5e-15

L, R, RI, RHO = sp.symbols("L R R_i rho", positive=True)


# -- independent references (textbook solid capsule; hollow = outer minus inner) ----------------


def solid_capsule(length, radius, density, pi) -> dict:
    """Solid capsule, cylinder part L, radius R, about its centre (textbook): the cylinder
    (``m_c R^2 / 2``, ``m_c (3 R^2 + L^2) / 12``) plus two solid hemispheres, each of mass
    ``m_h = (2/3) pi rho R^3``, axial moment ``(2/5) m_h R^2``, transverse moment
    ``(83/320) m_h R^2`` about its own centroid, which lies ``3R/8`` from its flat face, i.e.
    ``L/2 + 3R/8`` from the capsule's centre."""
    m_c = density * pi * radius**2 * length
    m_h = 2 * density * pi * radius**3 / 3
    offset = length / 2 + 3 * radius / 8
    transverse = m_c * (3 * radius**2 + length**2) / 12 + 2 * (
        83 * m_h * radius**2 / 320 + m_h * offset**2
    )
    return {
        "volume": (m_c + 2 * m_h) / density,
        "mass": m_c + 2 * m_h,
        "i_xx": m_c * radius**2 / 2 + 2 * (2 * m_h * radius**2 / 5),
        "i_yy": transverse,
        "i_zz": transverse,
    }


def capsule_formulas(length, radius, inner_radius, density, pi) -> dict:
    """Hollow capsule = solid outer capsule minus the concentric solid inner one (same centre,
    so the moments subtract); frame_a at one hemisphere's centre: com_x = L / 2."""
    outer = solid_capsule(length, radius, density, pi)
    inner = solid_capsule(length, inner_radius, density, pi)
    out = {key: outer[key] - inner[key] for key in outer}
    out["com_x"] = length / 2
    return out


def capsule_reference(length, radius, inner_radius, density, *, dps=REFERENCE_DPS) -> dict:
    """:func:`capsule_formulas` at ``dps`` digits from the exact values of the float inputs."""
    with mpmath.workdps(dps):
        args = [mpmath.mpf(float(v)) for v in (length, radius, inner_radius, density)]
        return {key: +value for key, value in capsule_formulas(*args, mpmath.pi).items()}


# -- 1. symbolic proofs -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def direct() -> dict[str, sp.Expr]:
    """Direct integration of rho over the hollow capsule, frame_a at the lower cap's centre:
    the tube x in [0, L], r in [R_i, R]; the lower cap x = r cos(t) with t in [pi/2, pi], the
    upper cap x = L + r cos(t) with t in [0, pi/2] (t from +x, r in [R_i, R]); moments about
    the centre of mass (c, 0, 0)."""
    x, r, th, ph = sp.symbols("x r theta phi", real=True)
    c = sp.Symbol("c", real=True)

    def integral(f) -> sp.Expr:
        # f(x, y, z) as a function
        tube = sp.integrate(
            sp.expand(RHO * f(x, r * sp.cos(ph), r * sp.sin(ph)) * r),
            (ph, 0, 2 * sp.pi),
            (r, RI, R),
            (x, 0, L),
        )
        caps = 0
        for centre, (t0, t1) in ((0, (sp.pi / 2, sp.pi)), (L, (0, sp.pi / 2))):
            point = (
                centre + r * sp.cos(th),
                r * sp.sin(th) * sp.cos(ph),
                r * sp.sin(th) * sp.sin(ph),
            )
            caps += sp.integrate(
                sp.expand(RHO * f(*point) * r**2 * sp.sin(th)),
                (ph, 0, 2 * sp.pi),
                (th, t0, t1),
                (r, RI, R),
            )
        return sp.simplify(tube + caps)

    mass = integral(lambda x, y, z: 1)
    com_x = sp.cancel(integral(lambda x, y, z: x) / mass)

    def about_com(f) -> sp.Expr:
        return sp.expand(integral(f).subs(c, com_x))

    return {
        "volume": mass / RHO,
        "mass": mass,
        "com_x": com_x,
        "com_y": integral(lambda x, y, z: y),
        "i_xx": integral(lambda x, y, z: y**2 + z**2),
        "i_yy": about_com(lambda x, y, z: (x - c) ** 2 + z**2),
        "i_zz": about_com(lambda x, y, z: (x - c) ** 2 + y**2),
        "i_xy": about_com(lambda x, y, z: (x - c) * y),
        "i_yz": integral(lambda x, y, z: y * z),
    }


def test_direct_integration_centre_and_products(direct) -> None:
    assert sp.simplify(direct["com_x"] - L / 2) == 0
    for key in ("com_y", "i_xy", "i_yz"):
        assert sp.simplify(direct[key]) == 0, key
    assert symbolic_equal(direct["i_yy"], direct["i_zz"])


def test_library_closed_form_equals_direct_integration(direct) -> None:
    """shapes/capsule.py's closed form (and the ball's it calls) on exact symbolic numbers,
    float constants and math.pi converted exactly; pi is a factor, divided out of both."""
    result = capsule_kernel.closed_form(*(Exact(s) for s in (L, R, RI, RHO)))
    got = dict(zip(QUANTITIES, (value.expr for value in result), strict=True))
    float_pi = sp.Rational(math.pi)
    assert symbolic_equal(got["com_x"], direct["com_x"])
    for key in ("volume", "mass", "i_xx", "i_yy", "i_zz"):
        assert symbolic_equal(got[key] / float_pi, direct[key] / sp.pi), key


def test_reference_formulas_equal_direct_integration(direct) -> None:
    reference = capsule_formulas(L, R, RI, RHO, sp.pi)
    for key in QUANTITIES:
        assert symbolic_equal(reference[key], direct[key]), key


def test_docstring_forms_equal_direct_integration(direct) -> None:
    """sigma = R^2 - R_i^2, rho2 = R^2 + R_i^2; the ball's V_b, m_b, I_b (spec/family.md)."""
    sigma, rho2 = R**2 - RI**2, R**2 + RI**2
    d = R - RI
    v_b = sp.Rational(4, 3) * sp.pi * d * (R**2 + R * RI + RI**2)
    s4 = R**4 + R**3 * RI + R**2 * RI**2 + R * RI**3 + RI**4
    i_b = sp.Rational(8, 15) * sp.pi * RHO * d * s4
    assert symbolic_equal(sp.pi * L * sigma + v_b, direct["volume"])
    assert symbolic_equal(RHO * sp.pi * L * sigma * rho2 / 2 + i_b, direct["i_xx"])
    i_yy = RHO * sp.pi * L * sigma * (3 * rho2 / 4 + L**2 / 12) + i_b + RHO * v_b * L**2 / 4
    assert symbolic_equal(i_yy, direct["i_yy"])


# -- 2. precision against 50-digit references ---------------------------------------------------


def _walls(t: float) -> dict[str, tuple[float, float, float]]:
    return {
        f"wall_{t:g}": (1.0, 0.3, 0.3 * (1 - t)),
        f"pipe_wall_{t:g}": (10.0, 0.01, 0.01 * (1 - t)),
        f"ball_wall_{t:g}": (0.0, 0.5, 0.5 * (1 - t)),
    }


CASES: dict[str, tuple[float, float, float]] = {
    "defaults": (1.0, 0.1, 0.0),
    "fat": (0.3, 0.7, 0.0),
    "hollow": (1.0, 0.3, 0.2),
    "thick_wall": (0.5, 0.3, 0.01),
    "ball": (0.0, 0.4, 0.0),
    "hollow_ball": (0.0, 0.4, 0.1),
    "needle": (2.0, 1e-6, 0.0),
    "hollow_needle": (2.0, 1e-6, 5e-7),
    "almost_a_ball": (1e-9, 1.0, 0.0),
    "pin_hole": (1.0, 0.3, 1e-9),
    **_walls(1e-3),
    **_walls(1e-6),
    **_walls(1e-9),
    **_walls(1e-12),
}
SCALES = (1e-3, 1.0, 1e3)
DENSITIES = (1.0, 7860.0, 1e8)


def _capsule(dims: tuple[float, ...], **options) -> rp.Capsule:
    return rp.Capsule(
        **dict(zip(capsule_kernel.SPEC.parameter_names, dims, strict=True)), **options
    )


def _quantities(body: rp.Capsule) -> dict[str, float]:
    return {
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
        body = _capsule(dims, density=density)
        got = _quantities(body)
        ref = capsule_reference(*dims, density)
        for key in QUANTITIES:
            worst[key] = max(worst[key], relative_error(got[key], ref[key]))
        expected = sorted([ref["i_xx"], ref["i_yy"], ref["i_zz"]])
        for moment, exact in zip(body.principal_moments, expected, strict=True):
            assert relative_error(moment, exact) <= PRECISION
        assert np.count_nonzero(body.inertia - np.diag(np.diag(body.inertia))) == 0
        assert body.center_of_mass[1] == body.center_of_mass[2] == 0.0
    assert max(worst.values()) <= PRECISION, worst


@pytest.mark.parametrize("name", ["hollow", "wall_1e-12", "needle", "almost_a_ball"])
@pytest.mark.parametrize("axis", [(1.0, 2.0, 3.0), (0.0, -1.0, 1e-3), (0.0, 0.0, 1.0)])
def test_precision_on_skew_axes(name: str, axis) -> None:
    dims, density = CASES[name], 2700.0
    body = _capsule(dims, density=density, axis=axis)
    ref = capsule_reference(*dims, density)
    e, h, w = rule_directions(axis)
    with mpmath.workdps(50):
        rotation = mpmath.matrix([[mpmath.mpf(float(v)) for v in col] for col in (e, h, w)]).T
        tensor = rotation * mpmath.diag([ref["i_xx"], ref["i_yy"], ref["i_zz"]]) * rotation.T
    assert tensor_relative_error(body.inertia, tensor) <= SKEW_PRECISION
    for got, unit in zip(body.center_of_mass, e, strict=True):
        assert abs(got - dims[0] / 2 * unit) <= PRECISION * dims[0] / 2


def test_reference_is_converged_at_50_digits() -> None:
    for name in ("wall_1e-12", "pipe_wall_1e-12", "ball_wall_1e-12"):
        at50 = capsule_reference(*CASES[name], 7860.0)
        at80 = capsule_reference(*CASES[name], 7860.0, dps=80)
        with mpmath.workdps(80):
            for key in ("volume", "mass", "i_xx", "i_yy"):
                assert abs(at50[key] - at80[key]) <= mpmath.mpf("1e-30") * abs(at80[key])


def test_outer_minus_inner_in_float64_fails_on_thin_walls() -> None:
    for t, at_least in ((1e-9, 1e-9), (1e-12, 1e-6)):
        dims = (1.0, 0.3, 0.3 * (1 - t))
        ref = capsule_reference(*dims, 7860.0)
        naive = capsule_formulas(*dims, 7860.0, math.pi)
        library = _quantities(_capsule(dims, density=7860.0))
        for key in ("mass", "i_xx", "i_yy"):
            assert relative_error(naive[key], ref[key]) > at_least, key
            assert relative_error(library[key], ref[key]) <= PRECISION, key


@given(
    length=st.one_of(st.just(0.0), st.floats(1e-3, 1e3)),
    radius=st.floats(1e-3, 1e3),
    fraction=st.floats(0.0, 1.0, exclude_max=True),
    density=st.floats(1.0, 1e5),
)
def test_random_capsules_against_50_digits(length, radius, fraction, density) -> None:
    inner = radius * fraction
    if inner >= radius:
        return
    got = _quantities(_capsule((length, radius, inner), density=density))
    ref = capsule_reference(length, radius, inner, density)
    for key in QUANTITIES:
        assert relative_error(got[key], ref[key]) <= RANDOM_PRECISION, key


# -- 3. limits and invariants -------------------------------------------------------------------


@given(radius=st.floats(1e-3, 1e3), fraction=st.floats(0.0, 1.0, exclude_max=True))
def test_zero_length_is_the_ball_bit_for_bit(radius: float, fraction: float) -> None:
    inner = radius * fraction
    if inner >= radius:
        return
    capsule = rp.Capsule(length=0.0, radius=radius, inner_radius=inner)
    ball = rp.Ball(radius=radius, inner_radius=inner)
    assert capsule.volume == ball.volume and capsule.mass == ball.mass
    assert capsule.inertia.tobytes() == ball.inertia.tobytes()
    assert capsule.center_of_mass.tobytes() == ball.center_of_mass.tobytes()


def test_physical_limits() -> None:
    """Thin rod (R -> 0): I_yy -> m L^2 / 12, I_xx = m R^2 / 2 to O(R/L). Solid ball (L = 0):
    (2/5) m R^2. Thin shell ball: (2/3) m R^2. Long thin tube: I_xx -> m R^2."""
    rod = rp.Capsule(length=3.0, radius=1e-9)
    assert rod.inertia[1, 1] == pytest.approx(rod.mass * 9.0 / 12, rel=1e-8)
    assert rod.inertia[0, 0] == pytest.approx(rod.mass * 1e-18 / 2, rel=1e-8)
    ball = rp.Capsule(length=0.0, radius=0.2)
    assert ball.inertia[1, 1] == pytest.approx(0.4 * ball.mass * 0.04, rel=4e-16)
    shell = rp.Capsule(length=0.0, radius=0.2, inner_radius=0.2 * (1 - 1e-12))
    assert shell.inertia[0, 0] == pytest.approx(2 / 3 * shell.mass * 0.04, rel=2e-12)
    tube = rp.Capsule(length=1e6, radius=0.05, inner_radius=0.05 * (1 - 1e-12))
    assert tube.inertia[0, 0] == pytest.approx(tube.mass * 0.05**2, rel=2e-12)
    # The solid capsule's axial moment lies between the cylinder's m R^2 / 2 and the ball's.
    solid = rp.Capsule(length=0.4, radius=0.1)
    assert 0.4 * solid.mass * 0.01 < solid.inertia[0, 0] < 0.5 * solid.mass * 0.01


def test_sum_of_tube_and_ball_by_parallel_axes() -> None:
    """The capsule's mass properties = the library's tube plus its two half-balls, the latter
    as a ball at the centre plus the caps' offsets written out independently in mpmath."""
    length, radius, inner, rho = 0.7, 0.2, 0.15, 2700.0
    body = rp.Capsule(length=length, radius=radius, inner_radius=inner, density=rho)
    tube = rp.Cylinder(length=length, radius=radius, inner_radius=inner, density=rho)
    ball = rp.Ball(radius=radius, inner_radius=inner, density=rho)
    with mpmath.workdps(50):
        ell, r, ri = (mpmath.mpf(v) for v in (length, radius, inner))
        first = rho * mpmath.pi * (r**4 - ri**4) / 4  # one cap: int u dm about its flat face
        shift = mpmath.mpf(ball.mass) * ell**2 / 4 + ell * 2 * first
        caps_yy = mpmath.mpf(ball.inertia[1, 1]) + shift
        i_yy = mpmath.mpf(tube.inertia[1, 1]) + caps_yy
        i_xx = mpmath.mpf(tube.inertia[0, 0]) + mpmath.mpf(ball.inertia[0, 0])
        mass = mpmath.mpf(tube.mass) + mpmath.mpf(ball.mass)
    assert relative_error(body.mass, mass) <= 2e-15
    assert relative_error(body.inertia[0, 0], i_xx) <= 2e-15
    assert relative_error(body.inertia[1, 1], i_yy) <= 2e-15


@given(
    length=st.floats(0.0, 1e3),
    radius=st.floats(1e-3, 1e3),
    fraction=st.floats(0.0, 1.0, exclude_max=True),
    axis=st.sampled_from([(1, 0, 0), (0, 1, 0), (0, 0, -1), (1.0, -2.0, 0.5)]),
)
def test_invariants(length, radius, fraction, axis) -> None:
    body = rp.Capsule(length=length, radius=radius, inner_radius=radius * fraction, axis=axis)
    tensor = body.inertia
    assert np.array_equal(tensor, tensor.T)
    assert invalidity_report(body.principal_moments, tolerance=0.0) is None
    i1, i2, i3 = body.principal_moments
    assert 0 < i1 <= i2 <= i3
    np.testing.assert_allclose(np.linalg.eigvalsh(tensor), body.principal_moments, atol=4e-15 * i3)
    # The transverse moment is at least the ball's part plus the tube's (both positive).
    assert body.inertia is body.mass_properties.inertia


# -- 4. the mesh --------------------------------------------------------------------------------


def polyhedron_volume(length: float, radius: float, inner: float, sections: int) -> float:
    """The mesh's volume by plane geometry: the polygonal profile (each quarter circle of
    ``ceil(sections / 2)`` inscribed segments, the straight side) revolved as a stack of
    frusta (V = pi h (a^2 + a b + b^2) / 3), each circular section replaced by the inscribed
    N-gon (factor N sin(2 pi / N) / (2 pi))."""
    quarter = (sections + 1) // 2

    def revolved(r: float) -> float:
        if r == 0.0:
            return 0.0
        phi = np.linspace(0.0, math.pi / 2, quarter + 1)
        rho = r * np.sin(phi)
        low_x = -r * np.cos(phi)
        a, b, h = rho[:-1], rho[1:], np.diff(low_x)
        cap = float(np.sum(math.pi * h * (a * a + a * b + b * b) / 3.0))
        return 2 * cap + math.pi * r * r * length

    factor = sections * math.sin(2 * math.pi / sections) / (2 * math.pi)
    return factor * (revolved(radius) - revolved(inner))


MESH_CASES = {
    "defaults": (1.0, 0.1, 0.0),
    "hollow": (0.5, 0.3, 0.2),
    "ball": (0.0, 0.3, 0.0),
    "hollow_ball": (0.0, 0.3, 0.1),
    "fat": (0.01, 2.0, 0.5),
    "micro": (2e-7, 1.5e-7, 1e-7),
    "huge": (3e4, 1e4, 5e3),
}


@pytest.mark.parametrize("case", list(MESH_CASES))
@pytest.mark.parametrize("sections", [3, 4, 7, 16, 64])
def test_mesh_is_the_inscribed_polyhedron(case: str, sections: int) -> None:
    length, radius, inner = MESH_CASES[case]
    body = rp.Capsule(length=length, radius=radius, inner_radius=inner)
    mesh = body.mesh(sections=sections)
    assert mesh.is_watertight and mesh.is_winding_consistent and mesh.is_volume
    assert mesh.body_count == (1 if inner == 0.0 else 2)
    expected = polyhedron_volume(length, radius, inner, sections)
    assert mesh.volume == pytest.approx(expected, rel=1e-12)
    # The tips reach R beyond frame_a and frame_b along the axis, exactly.
    np.testing.assert_array_equal(mesh.bounds[:, 0], [-radius, length + radius])
    assert mesh.metadata["shape"] == "capsule"


def test_mesh_mass_properties_converge_at_second_order() -> None:
    body = rp.Capsule(length=0.6, radius=0.2, inner_radius=0.12, axis=(0, 1, 1), density=2700.0)
    scale = np.abs(body.inertia).max()
    results, errors = {}, []
    for n in (32, 64, 128):
        mesh = body.mesh(sections=n)
        mesh.density = body.density
        results[n] = (mesh.mass, mesh.moment_inertia)
        errors.append(np.abs(mesh.moment_inertia - body.inertia).max() / scale)
        np.testing.assert_allclose(mesh.center_mass, body.center_of_mass, rtol=0, atol=1e-12)
    assert 3.9 < errors[0] / errors[1] < 4.1 and 3.9 < errors[1] / errors[2] < 4.1
    # Richardson extrapolation of N = 64 and 128 (seen: 2.9e-7 and 5.7e-7; O(1/N^4) left).
    mass = (4 * results[128][0] - results[64][0]) / 3
    inertia = (4 * results[128][1] - results[64][1]) / 3
    assert abs(mass / body.mass - 1) < 2e-6
    assert np.abs(inertia - body.inertia).max() / scale < 2e-6


def test_trimesh_capsule_agrees() -> None:
    """trimesh's own capsule (``height`` = the cylindrical part) of many facets, placed by
    frame_a at a hemisphere's centre: its mass properties approach the closed forms."""
    length, radius = 0.5, 0.1
    body = rp.Capsule(length=length, radius=radius, axis=(0, 0, 1), density=1000.0)
    mesh = trimesh.creation.capsule(height=length, radius=radius, count=[256, 256])
    mesh.apply_translation([0.0, 0.0, length / 2])
    mesh.density = 1000.0
    assert mesh.mass == pytest.approx(body.mass, rel=2e-4)
    np.testing.assert_allclose(mesh.center_mass, body.center_of_mass, atol=1e-12)
    np.testing.assert_allclose(mesh.moment_inertia, body.inertia, rtol=5e-4, atol=1e-12)


def test_mesh_normals_point_outwards_and_the_cavity_is_empty() -> None:
    hollow = rp.Capsule(length=0.5, radius=0.2, inner_radius=0.1).mesh(sections=10)
    assert not hollow.contains(hollow.triangles_center + 1e-4 * hollow.face_normals).any()
    assert hollow.contains(hollow.triangles_center - 1e-4 * hollow.face_normals).all()
    assert not hollow.contains([[0.25, 0.0, 0.0], [-0.05, 0.0, 0.0], [0.55, 0.0, 0.0]]).any()
    assert hollow.contains([[0.25, 0.15, 0.0], [-0.15, 0.0, 0.0], [0.65, 0.0, 0.0]]).all()


def test_features_below_float_reach() -> None:
    thin = rp.Capsule(radius=0.1, inner_radius=0.1 * (1 - 0.5 * MIN_RELATIVE_WALL))
    assert thin.mass > 0
    with pytest.raises(rp.ParameterError, match=r"^inner_radius=.*too thin to mesh") as info:
        thin.mesh()
    assert info.value.parameter == "inner_radius"
    needle = rp.Capsule(length=1.0, radius=0.5 * MIN_RELATIVE_TIP)
    with pytest.raises(rp.ParameterError, match=r"^radius=.*of length=1.0 m: too thin to mesh"):
        needle.mesh()
    # A side below the reach is meshed as a ball, a cavity below it as none.
    short = rp.Capsule(length=0.25 * MIN_RELATIVE_TIP, radius=1.0).mesh(sections=8)
    ball = rp.Capsule(length=0.0, radius=1.0).mesh(sections=8)
    assert np.array_equal(short.vertices, ball.vertices)
    pin = rp.Capsule(radius=0.1, inner_radius=1e-14).mesh(sections=8)
    assert pin.body_count == 1


# -- 5. primitive, frames, rules ----------------------------------------------------------------


def test_primitive() -> None:
    spec = SHAPES["capsule"]
    body = rp.Capsule(length=0.5, radius=0.1)
    assert spec.primitive(body.dimensions) == Primitive("capsule", (0.1, 0.5), (0.25, 0.0, 0.0))
    assert spec.primitive({"length": 0.0, "radius": 0.1, "inner_radius": 0.0}) == Primitive(
        "sphere", (0.1,), (0.0, 0.0, 0.0)
    )
    assert spec.primitive({"length": 0.5, "radius": 0.1, "inner_radius": 0.05}) is None
    assert spec.end_frame == "length" and spec.extra_frames == "axial" and spec.axis


@pytest.mark.parametrize("axis", [(1, 0, 0), (0, 0, 1), (1.0, 2.0, 3.0)])
def test_frames(axis) -> None:
    body = rp.Capsule(length="250 mm", radius="2 cm", axis=axis, extra_frames=[0.1, "-2 cm"])
    e = np.asarray(axis, float) / np.linalg.norm(axis)
    frames = body.frames
    assert list(frames) == ["frame_a", "frame_b", "frame_com", "frame_c1", "frame_c2"]
    np.testing.assert_array_equal(frames["frame_a"].position, np.zeros(3))
    np.testing.assert_allclose(frames["frame_b"].position, 0.25 * e, rtol=0, atol=1e-16)
    np.testing.assert_allclose(frames["frame_com"].position, 0.125 * e, rtol=0, atol=1e-16)
    np.testing.assert_allclose(frames["frame_c2"].position, -0.02 * e, rtol=0, atol=1e-16)
    for frame in frames.values():
        np.testing.assert_array_equal(frame.rotation, np.eye(3))
    assert body.length == 0.25 and body.radius == 0.02 and body.inner_radius == 0.0


def test_defaults_and_class() -> None:
    body = rp.Capsule()
    assert (body.length, body.radius, body.inner_radius, body.material) == (1.0, 0.1, 0.0, "steel")
    assert rp.body_class("capsule") is rp.Capsule
    assert "Capsule" in rp.__all__
    assert SHAPES["capsule"].tier == 1


BAD = [
    ({"length": -1.0}, "length", "must be non-negative and finite"),
    ({"length": math.nan}, "length", "must be non-negative and finite"),
    ({"length": math.inf}, "length", "must be non-negative and finite"),
    ({"length": "3 kg"}, "length", "has dimension"),
    ({"radius": 0.0}, "radius", "must be positive and finite"),
    ({"radius": -0.1}, "radius", "must be positive and finite"),
    ({"radius": math.nan}, "radius", "must be positive and finite"),
    ({"radius": math.inf}, "radius", "must be positive and finite"),
    ({"inner_radius": -1e-3}, "inner_radius", "must be non-negative and finite"),
    ({"inner_radius": math.nan}, "inner_radius", "must be non-negative and finite"),
    ({"inner_radius": 0.2}, "inner_radius", r"must not exceed radius=0\.1 m"),
    ({"inner_radius": "100 mm"}, "inner_radius", "leaves no material"),
    ({"axis": (0, 0, 0)}, "axis", "must be a non-zero vector"),
    ({"density": -1.0}, "density", "must be positive and finite"),
    ({"mass": 0.0}, "mass", "must be positive and finite"),
    ({"density": 1000, "mass": 2}, "mass", "give only one of"),
    ({"extra_frames": [math.nan]}, "extra_frames[0]", "must be finite"),
    ({"length": 1e300, "radius": 1e300, "density": 1e10}, "length", "beyond what float64"),
    ({"length": 0.0, "radius": 1e-120}, "radius", "beyond what float64 holds"),
]


@pytest.mark.parametrize(("kwargs", "parameter", "rule"), BAD)
def test_bad_input_names_the_parameter_and_the_rule(kwargs, parameter, rule) -> None:
    with pytest.raises(rp.ParameterError) as info:
        rp.Capsule(**kwargs)
    assert info.value.parameter == parameter
    assert str(info.value).startswith(f"{parameter}=")
    assert "\n" not in str(info.value)
    assert info.value.rule and re.search(rule, info.value.rule), info.value


def test_rules_are_checked_in_table_order() -> None:
    check = capsule_kernel.check
    assert check(0.0, 0.1, 0.0) == 0
    assert check(1.0, 0.1, math.nextafter(0.1, 0.0)) == 0
    assert check(-1.0, -1.0, -1.0) == capsule_kernel.LENGTH_NON_NEGATIVE
    assert check(1.0, math.nan, 2.0) == capsule_kernel.RADIUS_POSITIVE
    assert check(1.0, 0.1, math.inf) == capsule_kernel.INNER_RADIUS_NON_NEGATIVE
    assert check(1.0, 0.1, 0.2) == capsule_kernel.INNER_RADIUS_FITS
    assert check(1.0, 0.1, 0.1) == capsule_kernel.SOME_MATERIAL == len(capsule_kernel.RULES)


def test_mass_round_trip() -> None:
    body = rp.Capsule(length=0.3, radius=0.05, inner_radius="40 mm", mass="2500 g")
    assert body.mass == 2.5 and body.material is None
    again = rp.Capsule(**{k: v for k, v in body.parameters().items() if k != "shape"})
    assert again.mass == 2.5 and again.inertia.tobytes() == body.inertia.tobytes()
    by_density = rp.Capsule(length=0.3, radius=0.05, inner_radius=0.04, density=body.density)
    np.testing.assert_allclose(by_density.inertia, body.inertia, rtol=8e-16, atol=0)


@pytest.mark.parametrize("engine", ["numpy", "numba"])
def test_batch_rows_are_the_scalar_bodies(engine: str) -> None:
    if engine == "numba":
        pytest.importorskip("numba")
    from rigidparts import batch

    length = np.array([1.0, 0.0, 2.5e3, 1e-3, 0.7])
    radius = np.array([0.1, 0.37, 2.5e3, 1e-3, 0.7])
    inner = np.array([0.0, 0.37 * (1 - 1e-12), 1e3, 1e-3 * (1 - 1e-9), 0.3])
    rows = batch.capsule(length=length, radius=radius, inner_radius=inner, density=7860.0,
                         engine=engine)  # fmt: skip
    for i in range(len(radius)):
        body = rp.Capsule(length=length[i], radius=radius[i], inner_radius=inner[i], density=7860.0)
        assert rows.mass[i] == body.mass and rows.volume[i] == body.volume
        assert rows.inertia[i].tobytes() == body.inertia.tobytes()
    masked = batch.capsule(length=[1.0, -1.0], on_invalid="mask", engine=engine)
    assert list(masked.error_codes) == [0, capsule_kernel.LENGTH_NON_NEGATIVE]
