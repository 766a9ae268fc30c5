"""The Ellipsoid against independent computations.

1. Symbolic: direct sympy integration over the ellipsoid (stretched spherical coordinates,
   Jacobian ``a b c r^2 sin(theta)``) equals the library's ``shapes.ellipsoid.closed_form`` as
   written (on exact symbolic numbers) and the textbook ``m (b^2 + c^2) / 5``.
2. Precision: 50-digit references over proportions from spheres to needles and plates, scales
   1e-3..1e3 m, densities to 1e8 kg/m^3; hypothesis.
3. Limits: a = b = c is the solid ball (bit for bit in the moments' formula); a flat disc
   (c -> 0) and a needle; scipy quadrature over slices.
4. The mesh: watertight, the stretched inscribed polyhedron's volume, second-order
   convergence, trimesh's icosphere stretched agrees.
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
from scipy import integrate

import rigidparts as rp
from reference import QUANTITIES, REFERENCE_DPS, Exact, relative_error, symbolic_equal
from rigidparts.inertia import invalidity_report
from rigidparts.shapes import SHAPES, Primitive
from rigidparts.shapes import ellipsoid as ellipsoid_kernel
from rigidparts.shapes._meshing import MIN_RELATIVE_TIP

# Observed <= 5.9e-16 against the 50-digit references (named cases and 3000 random ones).
PRECISION = 8e-16

A, B, C, RHO = sp.symbols("a b c rho", positive=True)


def ellipsoid_formulas(a, b, c, density, pi) -> dict:
    """Textbook solid ellipsoid: V = 4/3 pi a b c, I_xx = m (b^2 + c^2) / 5, ..."""
    volume = 4 * pi * a * b * c / 3
    mass = density * volume
    return {
        "volume": volume,
        "mass": mass,
        "com_x": 0 * a,
        "i_xx": mass * (b * b + c * c) / 5,
        "i_yy": mass * (a * a + c * c) / 5,
        "i_zz": mass * (a * a + b * b) / 5,
    }


def ellipsoid_reference(a, b, c, density, *, dps=REFERENCE_DPS) -> dict:
    with mpmath.workdps(dps):
        args = [mpmath.mpf(float(v)) for v in (a, b, c, density)]
        return {key: +value for key, value in ellipsoid_formulas(*args, mpmath.pi).items()}


# -- 1. symbolic --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def direct() -> dict[str, sp.Expr]:
    r, th, ph = sp.symbols("r theta phi", real=True)
    x = A * r * sp.sin(th) * sp.cos(ph)
    y = B * r * sp.sin(th) * sp.sin(ph)
    z = C * r * sp.cos(th)
    jacobian = A * B * C * r**2 * sp.sin(th)

    def integral(f: sp.Expr) -> sp.Expr:
        return sp.integrate(
            sp.expand(RHO * f * jacobian), (ph, 0, 2 * sp.pi), (th, 0, sp.pi), (r, 0, 1)
        )

    mass = integral(sp.Integer(1))
    return {
        "volume": mass / RHO,
        "mass": mass,
        "com": [integral(v) / mass for v in (x, y, z)],
        "i_xx": integral(y**2 + z**2),
        "i_yy": integral(x**2 + z**2),
        "i_zz": integral(x**2 + y**2),
        "products": [integral(x * y), integral(x * z), integral(y * z)],
    }


def test_direct_integration_centre_and_products(direct) -> None:
    for value in direct["com"] + direct["products"]:
        assert sp.simplify(value) == 0


def test_library_closed_form_equals_direct_integration(direct) -> None:
    result = ellipsoid_kernel.closed_form(*(Exact(s) for s in (A, B, C, RHO)))
    assert result[2] == 0.0
    got = dict(zip(QUANTITIES, (getattr(v, "expr", v) for v in result), strict=True))
    float_pi = sp.Rational(math.pi)
    for key in ("volume", "mass", "i_xx", "i_yy", "i_zz"):
        assert symbolic_equal(got[key] / float_pi, direct[key] / sp.pi), key


def test_textbook_formulas_equal_direct_integration(direct) -> None:
    reference = ellipsoid_formulas(A, B, C, RHO, sp.pi)
    for key in ("volume", "mass", "i_xx", "i_yy", "i_zz"):
        assert symbolic_equal(reference[key], direct[key]), key


# -- 2. precision -------------------------------------------------------------------------------

CASES = {
    "defaults": (0.3, 0.2, 0.1),
    "sphere": (0.5, 0.5, 0.5),
    "prolate": (1.0, 0.1, 0.1),
    "oblate": (1.0, 1.0, 0.01),
    "needle": (1.0, 1e-6, 2e-6),
    "plate": (1e-9, 1.0, 0.7),
    "odd": (0.37, 1.3, 0.011),
}


@pytest.mark.parametrize("name", list(CASES))
def test_precision_against_50_digit_reference(name: str) -> None:
    for scale, density in itertools.product((1e-3, 1.0, 1e3), (1.0, 7860.0, 1e8)):
        dims = tuple(scale * d for d in CASES[name])
        names = ("radius_x", "radius_y", "radius_z")
        body = rp.Ellipsoid(**dict(zip(names, dims, strict=True)), density=density)
        ref = ellipsoid_reference(*dims, density)
        assert relative_error(body.volume, ref["volume"]) <= PRECISION
        assert relative_error(body.mass, ref["mass"]) <= PRECISION
        for i, key in enumerate(("i_xx", "i_yy", "i_zz")):
            assert relative_error(body.inertia[i, i], ref[key]) <= PRECISION, key
        assert np.count_nonzero(body.inertia - np.diag(np.diag(body.inertia))) == 0
        np.testing.assert_array_equal(body.center_of_mass, np.zeros(3))


@given(
    a=st.floats(1e-3, 1e3), b=st.floats(1e-3, 1e3), c=st.floats(1e-3, 1e3),
    density=st.floats(1.0, 1e5),
)  # fmt: skip
def test_random_ellipsoids(a, b, c, density) -> None:
    body = rp.Ellipsoid(radius_x=a, radius_y=b, radius_z=c, density=density)
    ref = ellipsoid_reference(a, b, c, density)
    for i, key in enumerate(("i_xx", "i_yy", "i_zz")):
        assert relative_error(body.inertia[i, i], ref[key]) <= PRECISION, key
    assert invalidity_report(body.principal_moments, tolerance=0.0) is None
    assert np.all(np.linalg.eigvalsh(body.inertia) > 0)


# -- 3. limits ----------------------------------------------------------------------------------


def test_equal_semi_axes_are_the_solid_ball() -> None:
    ellipsoid = rp.Ellipsoid(radius_x=0.3, radius_y=0.3, radius_z=0.3, density=2700.0)
    ball = rp.Ball(radius=0.3, density=2700.0)
    assert ellipsoid.mass == pytest.approx(ball.mass, rel=4e-16)
    np.testing.assert_allclose(ellipsoid.inertia, ball.inertia, rtol=8e-16, atol=0)


def test_flat_disc_and_needle() -> None:
    """c -> 0: an elliptic disc, I_zz -> I_xx + I_yy (perpendicular axes); a needle:
    I_yy = I_zz -> m a^2 / 5."""
    disc = rp.Ellipsoid(radius_x=1.0, radius_y=0.5, radius_z=1e-12)
    i = np.diag(disc.inertia)
    assert i[2] == pytest.approx(i[0] + i[1], rel=1e-15)
    needle = rp.Ellipsoid(radius_x=1.0, radius_y=1e-9, radius_z=1e-9)
    assert needle.inertia[1, 1] == pytest.approx(needle.mass / 5, rel=1e-15)


def test_scipy_quadrature_over_slices() -> None:
    """Slices normal to x: ellipses of semi-axes b s, c s (s = sqrt(1 - x^2/a^2)), area
    pi b c s^2; I_xx of a slice = dm (b^2 + c^2) s^2 / 4; int x^2 dm for I_yy."""
    a, b, c, rho = 0.7, 0.4, 0.25, 1200.0
    body = rp.Ellipsoid(radius_x=a, radius_y=b, radius_z=c, density=rho)

    def area(x):
        return math.pi * b * c * (1 - x * x / (a * a))

    mass, _ = integrate.quad(lambda x: rho * area(x), -a, a, epsrel=1e-14)
    i_xx, _ = integrate.quad(
        lambda x: rho * area(x) * (b * b + c * c) * (1 - x * x / (a * a)) / 4, -a, a, epsrel=1e-14
    )
    i_yy, _ = integrate.quad(
        lambda x: rho * area(x) * (x * x + c * c * (1 - x * x / (a * a)) / 4), -a, a, epsrel=1e-14
    )
    assert body.mass == pytest.approx(mass, rel=1e-13)
    assert body.inertia[0, 0] == pytest.approx(i_xx, rel=1e-13)
    assert body.inertia[1, 1] == pytest.approx(i_yy, rel=1e-13)


# -- 4. the mesh --------------------------------------------------------------------------------


def unit_polyhedron_volume(sections: int) -> float:
    phi = np.linspace(0.0, math.pi, sections + 1)
    rho, x = np.sin(phi), -np.cos(phi)
    a, b, h = rho[:-1], rho[1:], np.diff(x)
    factor = sections * math.sin(2 * math.pi / sections) / (2 * math.pi)
    return factor * float(np.sum(math.pi * h * (a * a + a * b + b * b) / 3.0))


@pytest.mark.parametrize("dims", [(0.3, 0.2, 0.1), (1.0, 1.0, 1.0), (2e-6, 3e-7, 1e-6),
                                  (3e3, 1e3, 2e4)])  # fmt: skip
@pytest.mark.parametrize("sections", [3, 8, 32])
def test_mesh_is_the_stretched_inscribed_polyhedron(dims, sections: int) -> None:
    body = rp.Ellipsoid(radius_x=dims[0], radius_y=dims[1], radius_z=dims[2])
    mesh = body.mesh(sections=sections)
    assert mesh.is_watertight and mesh.is_winding_consistent and mesh.is_volume
    expected = dims[0] * dims[1] * dims[2] * unit_polyhedron_volume(sections)
    assert mesh.volume == pytest.approx(expected, rel=1e-12)
    np.testing.assert_array_equal(mesh.bounds[:, 0], [-dims[0], dims[0]])
    assert mesh.metadata["shape"] == "ellipsoid"


def test_mesh_converges_at_second_order() -> None:
    body = rp.Ellipsoid(radius_x=0.5, radius_y=0.3, radius_z=0.2, density=1000.0)
    scale = body.inertia.max()
    results, errors = {}, []
    for n in (32, 64, 128):
        mesh = body.mesh(sections=n)
        mesh.density = body.density
        results[n] = mesh.moment_inertia
        errors.append(np.abs(mesh.moment_inertia - body.inertia).max() / scale)
    assert 3.9 < errors[0] / errors[1] < 4.1 and 3.9 < errors[1] / errors[2] < 4.1
    extrapolated = (4 * results[128] - results[64]) / 3  # seen: 1.1e-6
    assert np.abs(extrapolated - body.inertia).max() / scale < 3e-6


def test_trimesh_icosphere_stretched_agrees() -> None:
    a, b, c = 0.5, 0.3, 0.2
    mesh = trimesh.creation.icosphere(subdivisions=6, radius=1.0)
    mesh.apply_scale([a, b, c])
    mesh.density = 1000.0
    body = rp.Ellipsoid(radius_x=a, radius_y=b, radius_z=c, density=1000.0)
    assert mesh.mass == pytest.approx(body.mass, rel=1e-3)
    np.testing.assert_allclose(mesh.moment_inertia, body.inertia, rtol=2e-3, atol=1e-12)


def test_too_flat_to_mesh() -> None:
    flat = rp.Ellipsoid(radius_x=1.0, radius_y=1.0, radius_z=0.5 * MIN_RELATIVE_TIP)
    assert flat.mass > 0
    with pytest.raises(rp.ParameterError, match=r"^radius_z=.*too thin to mesh"):
        flat.mesh()


# -- 5. primitive, frames, rules ----------------------------------------------------------------


def test_primitive() -> None:
    spec = SHAPES["ellipsoid"]
    assert spec.primitive(rp.Ellipsoid().dimensions) == Primitive(
        "ellipsoid", (0.3, 0.2, 0.1), (0.0, 0.0, 0.0)
    )
    sphere = {"radius_x": 0.2, "radius_y": 0.2, "radius_z": 0.2}
    assert spec.primitive(sphere) == Primitive("sphere", (0.2,), (0.0, 0.0, 0.0))


def test_frames_and_class() -> None:
    body = rp.Ellipsoid(radius_x="30 cm", radius_y=0.2, radius_z=0.1, material="aluminium")
    assert list(body.frames) == ["frame_a", "frame_com"]
    for frame in body.frames.values():
        np.testing.assert_array_equal(frame.position, np.zeros(3))
        np.testing.assert_array_equal(frame.rotation, np.eye(3))
    assert body.radius_x == 0.3
    assert rp.body_class("ellipsoid") is rp.Ellipsoid and "Ellipsoid" in rp.__all__
    spec = SHAPES["ellipsoid"]
    assert (spec.axis, spec.end_frame, spec.extra_frames, spec.tier) == (False, None, None, 1)


@pytest.mark.parametrize("keyword", ["axis", "rotate90", "height_direction", "extra_frames"])
def test_no_axis_nor_extra_frames(keyword: str) -> None:
    with pytest.raises(TypeError, match=keyword):
        rp.Ellipsoid(**{keyword: (1, 0, 0)})


@pytest.mark.parametrize(
    ("kwargs", "parameter", "rule"),
    [
        ({"radius_x": 0.0}, "radius_x", "must be positive and finite"),
        ({"radius_y": -1.0}, "radius_y", "must be positive and finite"),
        ({"radius_z": math.nan}, "radius_z", "must be positive and finite"),
        ({"radius_z": math.inf}, "radius_z", "must be positive and finite"),
        ({"radius_x": "2 s"}, "radius_x", "has dimension"),
        ({"radius_x": 0.0, "radius_z": -1.0}, "radius_x", "must be positive"),
        ({"density": 0.0}, "density", "must be positive and finite"),
        ({"material": "steel", "mass": 1.0}, "mass", "give only one"),
        ({"radius_x": 1e-120, "radius_y": 1e-120, "radius_z": 1e-120}, "radius_x",
         "beyond what float64"),
    ],
)  # fmt: skip
def test_bad_input(kwargs, parameter, rule) -> None:
    with pytest.raises(rp.ParameterError) as info:
        rp.Ellipsoid(**kwargs)
    assert info.value.parameter == parameter
    assert str(info.value).startswith(f"{parameter}=")
    assert re.search(rule, info.value.rule)


def test_rules_in_table_order() -> None:
    check = ellipsoid_kernel.check
    assert check(1.0, 2.0, 3.0) == 0
    assert check(0.0, 0.0, 0.0) == ellipsoid_kernel.RADIUS_X_POSITIVE
    assert check(1.0, math.nan, 0.0) == ellipsoid_kernel.RADIUS_Y_POSITIVE
    assert check(1.0, 1.0, -1.0) == ellipsoid_kernel.RADIUS_Z_POSITIVE


def test_mass_round_trip() -> None:
    body = rp.Ellipsoid(mass=3.0)
    assert body.mass == 3.0
    np.testing.assert_allclose(np.diag(body.inertia), [3.0 * 0.05 / 5, 3.0 * 0.1 / 5,
                                                       3.0 * 0.13 / 5], rtol=1e-15)  # fmt: skip
    again = rp.Ellipsoid(**{k: v for k, v in body.parameters().items() if k != "shape"})
    assert again.inertia.tobytes() == body.inertia.tobytes()


@pytest.mark.parametrize("engine", ["numpy", "numba"])
def test_batch_rows_are_the_scalar_bodies(engine: str) -> None:
    if engine == "numba":
        pytest.importorskip("numba")
    from rigidparts import batch

    a = np.array([0.3, 1.0, 1e-3, 2.0])
    b = np.array([0.2, 1.0, 5e-4, 1e-6])
    c = np.array([0.1, 1.0, 7e-3, 3.0])
    rows = batch.ellipsoid(radius_x=a, radius_y=b, radius_z=c, density=7860.0, engine=engine)
    for i in range(len(a)):
        body = rp.Ellipsoid(radius_x=a[i], radius_y=b[i], radius_z=c[i], density=7860.0)
        assert rows.mass[i] == body.mass
        assert rows.inertia[i].tobytes() == body.inertia.tobytes()
