"""The Cylinder (and tube) against independent computations.

1. Symbolic: direct sympy integration of the hollow cylinder (canonical frame, cylindrical
   coordinates) equals the library's ``shapes.cylinder.closed_form`` *as written* (run on exact
   symbolic numbers, so the cone's code it calls is covered too) and both textbook references
   (outer minus inner; the thick-walled cylinder's own form).
2. Precision: rp.Cylinder vs 50-digit references: solid, hollow, thin walls down to 1e-12,
   needles, short cylinders, scales 1e-3..1e3 m, densities to 1e8 kg/m^3, skew axes; the
   outer-minus-inner formulas in float64 fail on the same walls.
3. The cylinder is the Cone with equal radii, bit for bit (mass properties, frames, mesh).
4. Known limits, frames, meshes (closed, converging at second order), native primitive,
   hypothesis invariants, bad input of every kind, valid edge cases, ``mass=``, numba.
"""

from __future__ import annotations

import itertools
import math
import re
import subprocess
import sys
import textwrap

import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import given
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
from reference_cylinder import (
    cylinder_formulas,
    cylinder_reference,
    thick_cylinder_textbook,
)
from rigidparts.inertia import invalidity_report
from rigidparts.shapes import SHAPES, Primitive
from rigidparts.shapes import cylinder as cylinder_kernel
from rigidparts.shapes._meshing import MIN_RELATIVE_TIP, MIN_RELATIVE_WALL

# Largest relative error allowed against the 50-digit references (observed: <= 6.3e-16 for
# the canonical quantities and principal moments; <= 7.0e-16 for a skew axis's tensor, relative
# to its largest entry, which adds the rotation's rounding).
PRECISION = 8e-16
SKEW_PRECISION = 1e-15

L, R, RI, RHO = sp.symbols("L R R_i rho", positive=True)


def _cylinder(dims: tuple[float, ...], **options) -> rp.Cylinder:
    return rp.Cylinder(
        **dict(zip(cylinder_kernel.SPEC.parameter_names, dims, strict=True)), **options
    )


# -- 1. symbolic proofs -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def direct() -> dict[str, sp.Expr]:
    """Direct integration of rho over the tube x in [0, L], r in [R_i, R], theta in [0, 2 pi];
    y = r cos(theta), z = r sin(theta); moments about the centre of mass."""
    x, r, th = sp.symbols("x r theta", real=True)

    def integral(f: sp.Expr) -> sp.Expr:
        return sp.integrate(sp.expand(RHO * f * r), (th, 0, 2 * sp.pi), (r, RI, R), (x, 0, L))

    y, z = r * sp.cos(th), r * sp.sin(th)
    mass = integral(sp.Integer(1))
    com_x = sp.cancel(integral(x) / mass)
    c = sp.Symbol("c", real=True)  # moments about (c, 0, 0), then c := the centre of mass

    def about_com(f: sp.Expr) -> sp.Expr:
        return integral(f).subs(c, com_x)

    return {
        "volume": mass / RHO,
        "mass": mass,
        "com_x": com_x,
        "com_y": integral(y) / mass,
        "com_z": integral(z) / mass,
        "i_xx": integral(y**2 + z**2),
        "i_yy": about_com((x - c) ** 2 + z**2),
        "i_zz": about_com((x - c) ** 2 + y**2),
        "i_xy": -about_com((x - c) * y),
        "i_xz": -about_com((x - c) * z),
        "i_yz": -integral(y * z),
    }


def test_direct_integration_centre_and_products(direct) -> None:
    assert direct["com_x"] == L / 2
    for key in ("com_y", "com_z", "i_xy", "i_xz", "i_yz"):
        assert sp.simplify(direct[key]) == 0, key
    assert symbolic_equal(direct["i_yy"], direct["i_zz"])


def test_library_closed_form_equals_direct_integration(direct) -> None:
    """shapes/cylinder.py's closed form (which calls the cone's) run on exact symbolic numbers,
    float constants and math.pi converted exactly; pi only enters as a factor, so the float pi
    is divided out of the code's results and sympy.pi out of the integrals."""
    result = cylinder_kernel.closed_form(*(Exact(s) for s in (L, R, RI, RHO)))
    got = dict(zip(QUANTITIES, (value.expr for value in result), strict=True))
    float_pi = sp.Rational(math.pi)
    assert symbolic_equal(got["com_x"], direct["com_x"])
    for key in ("volume", "mass", "i_xx", "i_yy", "i_zz"):
        assert symbolic_equal(got[key] / float_pi, direct[key] / sp.pi), key


@pytest.mark.parametrize("formulas", [cylinder_formulas, thick_cylinder_textbook])
def test_reference_formulas_equal_direct_integration(direct, formulas) -> None:
    reference = formulas(L, R, RI, RHO, sp.pi)
    for key in QUANTITIES:
        assert symbolic_equal(reference[key], direct[key]), key


def test_cancellation_free_form_of_the_docstring_equals_direct_integration(direct) -> None:
    """The module docstring's form: d = R - R_i, S = R + R_i, m = rho pi L d S, ..."""
    d, s = R - RI, R + RI
    assert symbolic_equal(RHO * sp.pi * L * d * s, direct["mass"])
    assert symbolic_equal(RHO * sp.pi * L * d * s * (s**2 + d**2) / 4, direct["i_xx"])
    transverse = RHO * sp.pi * L * d * s * ((s**2 + d**2) / 8 + L**2 / 12)
    assert symbolic_equal(transverse, direct["i_yy"])


# -- 2. precision against 50-digit references ---------------------------------------------------


def _walls(t: float) -> dict[str, tuple[float, float, float]]:
    """Thin walls: inner = outer * (1 - t) in float64 (the same floats feed both sides)."""
    return {
        f"tube_wall_{t:g}": (1.0, 0.3, 0.3 * (1 - t)),
        f"pipe_wall_{t:g}": (10.0, 0.01, 0.01 * (1 - t)),
        f"short_ring_wall_{t:g}": (1e-3, 0.5, 0.5 * (1 - t)),
    }


CASES: dict[str, tuple[float, float, float]] = {
    "defaults": (1.0, 0.1, 0.0),
    "solid_fat": (0.3, 0.7, 0.0),
    "hollow": (1.0, 0.3, 0.2),
    "thick_wall": (0.5, 0.3, 0.01),
    "needle": (2.0, 1e-6, 0.0),
    "hollow_needle": (2.0, 1e-6, 5e-7),
    "coin": (1e-9, 1.0, 0.0),
    "pin_hole": (1.0, 0.3, 1e-9),
    **_walls(1e-3),
    **_walls(1e-6),
    **_walls(1e-9),
    **_walls(1e-12),
}
SCALES = (1e-3, 1.0, 1e3)
DENSITIES = (1.0, 7860.0, 1e8)
SKEW_AXES = ((1.0, 2.0, 3.0), (-0.3, 0.1, 1.0), (0.0, -1.0, 1e-3), (1.0, 1.0, 1.0))


def _quantities(body: rp.Cylinder) -> dict[str, float]:
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
        body = _cylinder(dims, density=density)
        got = _quantities(body)
        ref = cylinder_reference(*dims, density)
        for key in QUANTITIES:
            worst[key] = max(worst[key], relative_error(got[key], ref[key]))
        expected = sorted([ref["i_xx"], ref["i_yy"], ref["i_zz"]])
        for moment, exact in zip(body.principal_moments, expected, strict=True):
            assert relative_error(moment, exact) <= PRECISION
        # +x axis: the tensor is exactly diagonal, the centre exactly on the axis
        assert np.count_nonzero(body.inertia - np.diag(np.diag(body.inertia))) == 0
        assert body.center_of_mass[1] == body.center_of_mass[2] == 0.0
    assert max(worst.values()) <= PRECISION, worst


@pytest.mark.parametrize("name", ["hollow", "tube_wall_1e-12", "needle", "coin"])
@pytest.mark.parametrize("axis", SKEW_AXES)
def test_precision_on_skew_axes(name: str, axis: tuple[float, float, float]) -> None:
    """The tensor in frame_a against R diag(I) R^T at 50 digits, with R = [e | h | w] from an
    independent statement of the axis rule; the centre of mass at (L/2) e."""
    dims, density = CASES[name], 2700.0
    body = _cylinder(dims, density=density, axis=axis)
    ref = cylinder_reference(*dims, density)
    e, h, w = rule_directions(axis)
    with mpmath.workdps(50):
        rotation = mpmath.matrix([[mpmath.mpf(float(v)) for v in col] for col in (e, h, w)]).T
        tensor = rotation * mpmath.diag([ref["i_xx"], ref["i_yy"], ref["i_zz"]]) * rotation.T
    assert tensor_relative_error(body.inertia, tensor) <= SKEW_PRECISION
    expected = sorted([ref["i_xx"], ref["i_yy"], ref["i_zz"]])
    for moment, exact in zip(body.principal_moments, expected, strict=True):
        assert relative_error(moment, exact) <= PRECISION
    for got, unit in zip(body.center_of_mass, e, strict=True):
        assert abs(got - dims[0] / 2 * unit) <= PRECISION * dims[0] / 2
    assert relative_error(body.mass, ref["mass"]) <= PRECISION


def test_reference_is_converged_at_50_digits() -> None:
    for name in ("tube_wall_1e-12", "pipe_wall_1e-12", "short_ring_wall_1e-12"):
        at50 = cylinder_reference(*CASES[name], 7860.0)
        at80 = cylinder_reference(*CASES[name], 7860.0, dps=80)
        with mpmath.workdps(80):
            for key in QUANTITIES:
                assert abs(at50[key] - at80[key]) <= mpmath.mpf("1e-30") * abs(at80[key])


def test_outer_minus_inner_in_float64_fails_on_thin_walls() -> None:
    """The cancellation the library avoids: outer minus inner in float64 loses about 7 digits
    at a 1e-9 wall and about 4 at 1e-12 are left; the library keeps all of them."""
    for t, at_least in ((1e-9, 1e-9), (1e-12, 1e-6)):
        dims = (1.0, 0.3, 0.3 * (1 - t))
        ref = cylinder_reference(*dims, 7860.0)
        naive = cylinder_formulas(*dims, 7860.0, math.pi)
        library = _quantities(_cylinder(dims, density=7860.0))
        for key in ("mass", "i_xx", "i_yy"):
            assert relative_error(naive[key], ref[key]) > at_least, key
            assert relative_error(library[key], ref[key]) <= PRECISION, key


# -- 3. the cone with equal radii, bit for bit --------------------------------------------------


@given(
    length=st.floats(1e-6, 1e6),
    radius=st.floats(1e-6, 1e6),
    fraction=st.floats(0.0, 1.0, exclude_max=True),
    axis=st.sampled_from([(1, 0, 0), (0, 1, 0), (0, 0, -1), (1.0, -2.0, 0.5)]),
    density=st.floats(1e-3, 1e8),
)
def test_cylinder_is_the_cone_with_equal_radii_bit_for_bit(
    length, radius, fraction, axis, density
) -> None:
    inner = radius * fraction
    cylinder = rp.Cylinder(
        length=length, radius=radius, inner_radius=inner, axis=axis, density=density,
        extra_frames=[0.25 * length, -1.0],
    )  # fmt: skip
    cone = rp.Cone(
        length=length, radius_a=radius, radius_b=radius, inner_radius_a=inner,
        inner_radius_b=inner, axis=axis, density=density, extra_frames=[0.25 * length, -1.0],
    )  # fmt: skip
    assert cylinder.volume == cone.volume and cylinder.mass == cone.mass
    assert cylinder.inertia.tobytes() == cone.inertia.tobytes()
    assert cylinder.center_of_mass.tobytes() == cone.center_of_mass.tobytes()
    assert cylinder.principal_moments.tobytes() == cone.principal_moments.tobytes()
    assert dict(cylinder.frames) == dict(cone.frames)
    by_mass = rp.Cylinder(length=length, radius=radius, inner_radius=inner, mass=3.0)
    assert by_mass.density == rp.Cone(
        length=length, radius_a=radius, radius_b=radius, inner_radius_a=inner,
        inner_radius_b=inner, mass=3.0,
    ).density  # fmt: skip


def test_cylinder_mesh_is_the_cone_mesh() -> None:
    for inner in (0.0, 0.07, 0.1 * (1 - 1e-12)):
        cylinder = rp.Cylinder(length=0.6, radius=0.1, inner_radius=inner, axis=(1, 1, 0))
        cone = rp.Cone(
            length=0.6, radius_a=0.1, radius_b=0.1, inner_radius_a=inner, inner_radius_b=inner,
            axis=(1, 1, 0),
        )  # fmt: skip
        a, b = cylinder.mesh(sections=24), cone.mesh(sections=24)
        assert np.array_equal(a.vertices, b.vertices) and np.array_equal(a.faces, b.faces)


# -- 4. known limits ----------------------------------------------------------------------------

LIMIT_CASES = {
    "solid": (0.75, 0.2, 0.0),
    "thick_tube": (0.75, 0.2, 0.15),
    "thin_tube": (2.0, 0.05, 0.05 * (1 - 1e-9)),
    "long_rod": (3.0, 1e-4, 0.0),
    "coin": (1e-6, 0.2, 0.1),
}


@pytest.mark.parametrize("name", list(LIMIT_CASES))
def test_thick_walled_cylinder_textbook_form_at_50_digits(name: str) -> None:
    """m = rho pi L (R^2 - R_i^2), I_xx = m (R^2 + R_i^2) / 2,
    I_yy = I_zz = m (3 (R^2 + R_i^2) + L^2) / 12, evaluated at 50 digits."""
    dims, rho = LIMIT_CASES[name], 2700.0
    body = _quantities(_cylinder(dims, density=rho))
    ref = cylinder_reference(*dims, rho, formulas=thick_cylinder_textbook)
    for key in QUANTITIES:
        assert relative_error(body[key], ref[key]) <= PRECISION, key


def test_physical_limits() -> None:
    """Thin tube: I_xx -> m R^2, I_yy -> m (6 R^2 + L^2) / 12. Solid: I_xx = m R^2 / 2. Long
    rod: I_yy -> m L^2 / 12. Coin (L -> 0): I_yy -> m R^2 / 4 = I_xx / 2."""
    tube = rp.Cylinder(length=2.0, radius=0.05, inner_radius=0.05 * (1 - 1e-12))
    assert tube.inertia[0, 0] == pytest.approx(tube.mass * 0.05**2, rel=2e-12)
    assert tube.inertia[1, 1] == pytest.approx(tube.mass * (6 * 0.05**2 + 4.0) / 12, rel=2e-12)
    solid = rp.Cylinder(length=2.0, radius=0.05)
    assert solid.inertia[0, 0] == pytest.approx(solid.mass * 0.05**2 / 2, rel=4e-16)
    rod = rp.Cylinder(length=3.0, radius=1e-9)
    assert rod.inertia[1, 1] == pytest.approx(rod.mass * 9.0 / 12, rel=1e-15)
    assert rod.inertia[0, 0] == pytest.approx(rod.mass * 1e-18 / 2, rel=1e-15)
    coin = rp.Cylinder(length=1e-10, radius=0.2)
    assert coin.inertia[1, 1] == pytest.approx(coin.mass * 0.04 / 4, rel=1e-15)
    assert coin.inertia[1, 1] == pytest.approx(coin.inertia[0, 0] / 2, rel=1e-15)
    assert invalidity_report(coin.principal_moments) is None


def test_hollow_equals_outer_minus_inner_in_exact_arithmetic() -> None:
    dims, rho = (0.9, 0.35, 0.25), 4430.0
    hollow = _cylinder(dims, density=rho)
    outer = rp.Cylinder(length=dims[0], radius=dims[1], density=rho)
    inner = rp.Cylinder(length=dims[0], radius=dims[2], density=rho)
    amplification = outer.mass / hollow.mass
    with mpmath.workdps(50):
        for got, a, b in [
            (hollow.mass, outer.mass, inner.mass),
            (hollow.volume, outer.volume, inner.volume),
            *[(hollow.inertia[i, i], outer.inertia[i, i], inner.inertia[i, i]) for i in range(3)],
        ]:
            assert relative_error(got, mpmath.mpf(a) - mpmath.mpf(b)) <= 4e-16 * amplification
    np.testing.assert_array_equal(hollow.center_of_mass, outer.center_of_mass)


# -- 5. frames, parameters, primitive -----------------------------------------------------------


@pytest.mark.parametrize("axis", [(1, 0, 0), (0, 1, 0), (0, 0, 1), (0, 0, -2), (1.0, 2.0, 3.0)])
def test_frames_are_the_boxs(axis) -> None:
    body = rp.Cylinder(length="250 mm", radius="2 cm", axis=axis, extra_frames=[0.1, "-5 cm"])
    e = np.asarray(axis, float) / np.linalg.norm(axis)
    frames = body.frames
    assert list(frames) == ["frame_a", "frame_b", "frame_com", "frame_c1", "frame_c2"]
    np.testing.assert_array_equal(frames["frame_a"].position, np.zeros(3))
    np.testing.assert_allclose(frames["frame_b"].position, 0.25 * e, rtol=0, atol=1e-16)
    np.testing.assert_allclose(frames["frame_com"].position, 0.125 * e, rtol=0, atol=1e-16)
    np.testing.assert_array_equal(frames["frame_com"].position, body.center_of_mass)
    np.testing.assert_allclose(frames["frame_c1"].position, 0.1 * e, rtol=0, atol=1e-16)
    np.testing.assert_allclose(frames["frame_c2"].position, -0.05 * e, rtol=0, atol=1e-16)
    for frame in frames.values():
        np.testing.assert_array_equal(frame.rotation, np.eye(3))
    np.testing.assert_allclose(body.axis, e, rtol=0, atol=2e-16)
    assert body.length == 0.25 and body.radius == 0.02 and body.inner_radius == 0.0


def test_parameters_round_trip_and_to_dict() -> None:
    body = rp.Cylinder(length=0.4, radius=0.03, inner_radius="25 mm", axis=(0, 3, 4),
                       material="aluminium", extra_frames=[0.1])  # fmt: skip
    parameters = body.parameters()
    assert parameters["shape"] == "cylinder"
    assert parameters["inner_radius"] == 0.025 and parameters["material"] == "aluminium"
    again = rp.Cylinder(**{k: v for k, v in parameters.items() if k != "shape"})
    # The stored axis is the normalised one; normalising it again may move an ulp.
    np.testing.assert_allclose(again.inertia, body.inertia, rtol=0, atol=4e-16 * body.inertia.max())
    assert again.mass == body.mass and again.dimensions == body.dimensions
    assert rp.body_class("cylinder") is rp.Cylinder
    assert body.to_dict()["frames"]["frame_b"]["position"] == pytest.approx([0, 0.24, 0.32])


def test_primitive() -> None:
    spec = SHAPES["cylinder"]
    assert spec.primitive(rp.Cylinder(length=0.5, radius=0.1).dimensions) == Primitive(
        "cylinder", (0.1, 0.5), (0.25, 0.0, 0.0)
    )
    assert spec.primitive(rp.Cylinder(length=0.5, radius=0.1, inner_radius=0.05).dimensions) is None
    assert spec.end_frame == "length" and spec.extra_frames == "axial" and spec.axis


# -- 6. meshes ----------------------------------------------------------------------------------


def _inscribed(sections: int) -> float:
    return sections * math.sin(2 * math.pi / sections) / (2 * math.pi)


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"inner_radius": 0.05},
        {"inner_radius": 0.1 * (1 - 1e-12)},
        {"length": 1e-12, "radius": 1.0, "inner_radius": 0.5},
        {"length": 1e3, "radius": 1e-3},
        {"length": 2e-6, "radius": 3e-7, "inner_radius": 2e-7, "axis": (1, -1, 2)},
    ],
    ids=["solid", "tube", "wall_1e-12", "thin_ring", "needle", "micro_tilted"],
)
@pytest.mark.parametrize("sections", [3, 16, 64])
def test_mesh_is_closed_with_the_inscribed_polygon_volume(kwargs, sections: int) -> None:
    body = rp.Cylinder(**kwargs)
    mesh = body.mesh(sections=sections)
    assert mesh.is_watertight and mesh.is_winding_consistent and mesh.volume > 0
    assert mesh.body_count == 1
    rel = 1e-3 if "1e-12" in str(kwargs) or body.inner_radius > 0.099 else 1e-12
    assert mesh.volume == pytest.approx(body.volume * _inscribed(sections), rel=rel)
    along = mesh.vertices @ body.axis
    assert along.min() == pytest.approx(0.0, abs=1e-15 * body.length)
    assert along.max() == pytest.approx(body.length, rel=1e-15)


def test_mesh_mass_properties_converge_at_second_order() -> None:
    """Inscribed polygons: the error falls as 1/N^2; Richardson extrapolation of N = 512 and
    1024 agrees with the closed forms to 1e-9."""
    body = rp.Cylinder(length=0.8, radius=0.3, inner_radius=0.2, axis=(0, 1, 1), density=2700.0)
    scale = np.abs(body.inertia).max()
    results, errors = {}, []
    for n in (256, 512, 1024):
        mesh = body.mesh(sections=n)
        mesh.density = body.density
        results[n] = (mesh.mass, mesh.moment_inertia)
        errors.append(np.abs(mesh.moment_inertia - body.inertia).max() / scale)
        np.testing.assert_allclose(mesh.center_mass, body.center_of_mass, rtol=0, atol=1e-12)
    assert 3.9 < errors[0] / errors[1] < 4.1 and 3.9 < errors[1] / errors[2] < 4.1
    mass = (4 * results[1024][0] - results[512][0]) / 3
    inertia = (4 * results[1024][1] - results[512][1]) / 3
    assert abs(mass / body.mass - 1) < 1e-9
    assert np.abs(inertia - body.inertia).max() / scale < 1e-9


def test_tube_has_its_bore() -> None:
    tube = rp.Cylinder(length=1.0, radius=0.1, inner_radius=0.08).mesh()
    on_axis = np.array([[x, 0.0, 0.0] for x in np.linspace(0.05, 0.95, 5)])
    assert not tube.contains(on_axis).any()
    assert tube.contains(np.array([[0.5, 0.09, 0.0], [0.5, 0.0, -0.09]])).all()
    probes = tube.triangles_center + 1e-4 * tube.face_normals
    assert not tube.contains(probes).any()  # outward normals


def test_features_below_float_reach() -> None:
    """A bore below MIN_RELATIVE_TIP of the size is meshed as none; a wall below
    MIN_RELATIVE_WALL of the radius or a radius below MIN_RELATIVE_TIP of the length cannot be
    meshed: ParameterError naming the parameter (the body itself stays valid and exact)."""
    pin = rp.Cylinder(length=1.0, radius=0.1, inner_radius=1e-14)
    solid = rp.Cylinder(length=1.0, radius=0.1)
    assert np.array_equal(pin.mesh(sections=8).vertices, solid.mesh(sections=8).vertices)
    thin = rp.Cylinder(radius=0.1, inner_radius=0.1 * (1 - 0.5 * MIN_RELATIVE_WALL))
    assert thin.mass > 0 and thin.inner_radius < thin.radius
    with pytest.raises(rp.ParameterError, match=r"^inner_radius=.*wall thinner.*too thin to mesh"):
        thin.mesh()
    needle = rp.Cylinder(length=1.0, radius=0.5 * MIN_RELATIVE_TIP)
    assert needle.mass > 0
    with pytest.raises(rp.ParameterError, match=r"^radius=.*of length=1.0 m: too thin to mesh"):
        needle.mesh()


# -- 7. invariants ------------------------------------------------------------------------------


@given(
    length=st.floats(1e-4, 1e4),
    radius=st.floats(1e-4, 1e4),
    fraction=st.floats(0.0, 1.0, exclude_max=True),
    axis=st.tuples(*(st.floats(-1.0, 1.0) for _ in range(3))).filter(
        lambda v: max(abs(x) for x in v) > 1e-3
    ),
)
def test_invariants(length, radius, fraction, axis) -> None:
    body = rp.Cylinder(length=length, radius=radius, inner_radius=radius * fraction, axis=axis)
    tensor = body.inertia
    assert np.array_equal(tensor, tensor.T)
    # Without tolerance: 2 I_yy >= I_xx holds exactly in float64 (the cone's I_yy is
    # rho pi L (J/8 + a non-negative term) and I_xx = rho pi L J/4, power-of-two scalings).
    assert invalidity_report(body.principal_moments, tolerance=0.0) is None
    i1, i2, i3 = body.principal_moments
    assert 0 < i1 <= i2 <= i3 and i1 + i2 >= i3
    # positive definite: the exact principal moments; the tensor's eigenvalues to rounding
    eigenvalues = np.linalg.eigvalsh(tensor)
    np.testing.assert_allclose(eigenvalues, body.principal_moments, rtol=0, atol=4e-15 * i3)
    # axial and transverse moments along the axis, via the tensor
    e = body.axis  # (relative to the largest moment: e I e cancels for a long thin rod)
    assert abs(e @ tensor @ e - body._canonical_moments[0]) <= 2e-15 * i3
    # mass = ((rho pi) L) c / 3 and density * volume = rho ((pi L) c / 3): four roundings
    # each (c shared), so they may differ by up to 8 units of 2**-53 (seen: 4.4e-16).
    assert body.mass == pytest.approx(body.density * body.volume, rel=8 * 2.0**-53)


@given(
    length=st.floats(1e-3, 1e3),
    radius=st.floats(1e-3, 1e3),
    fraction=st.floats(1e-3, 0.999),
)
def test_hollow_is_outer_minus_inner(length, radius, fraction) -> None:
    """In exact arithmetic over the library's own solid results (same centre): the tube's mass
    and moments are the outer's minus the inner's, to the amplification of their rounding."""
    inner_radius = radius * fraction
    hollow = rp.Cylinder(length=length, radius=radius, inner_radius=inner_radius, density=1000)
    outer = rp.Cylinder(length=length, radius=radius, density=1000)
    inner = rp.Cylinder(length=length, radius=inner_radius, density=1000)
    tol = 6e-16 * outer.mass / hollow.mass
    with mpmath.workdps(50):
        assert relative_error(hollow.mass, mpmath.mpf(outer.mass) - inner.mass) <= tol
        for i in range(3):
            exact = mpmath.mpf(outer.inertia[i, i]) - mpmath.mpf(inner.inertia[i, i])
            assert relative_error(hollow.inertia[i, i], exact) <= 2 * tol


# -- 8. bad input -------------------------------------------------------------------------------

BAD = [
    ({"length": 0.0}, "length", "must be positive and finite"),
    ({"length": -1.0}, "length", "must be positive and finite"),
    ({"length": math.nan}, "length", "must be positive and finite"),
    ({"length": math.inf}, "length", "must be positive and finite"),
    ({"length": "3 kg"}, "length", "has dimension"),
    ({"length": "abc"}, "length", "is not a length pint can read"),
    ({"length": None}, "length", "must be a number or a length"),
    ({"radius": 0.0}, "radius", "must be positive and finite"),
    ({"radius": -0.1}, "radius", "must be positive and finite"),
    ({"radius": math.nan}, "radius", "must be positive and finite"),
    ({"radius": math.inf, "inner_radius": 0.0}, "radius", "must be positive and finite"),
    ({"inner_radius": -1e-3}, "inner_radius", "must be non-negative and finite"),
    ({"inner_radius": math.nan}, "inner_radius", "must be non-negative and finite"),
    ({"inner_radius": math.inf}, "inner_radius", "must be non-negative and finite"),
    ({"inner_radius": 0.2}, "inner_radius", r"must not exceed radius=0\.1 m"),
    ({"inner_radius": "101 mm"}, "inner_radius", r"must not exceed radius=0\.1 m"),
    ({"inner_radius": 0.1}, "inner_radius", r"leaves no material \(zero volume\)"),
    ({"inner_radius": "100 mm"}, "inner_radius", "leaves no material"),
    ({"inner_radius": "5 s"}, "inner_radius", "has dimension"),
    ({"axis": (0, 0, 0)}, "axis", "must be a non-zero vector"),
    ({"axis": (math.nan, 0, 1)}, "axis", "must be finite"),
    ({"axis": (1, 0)}, "axis", "3-vector"),
    ({"axis": "x"}, "axis", "3-vector"),
    ({"density": 0.0}, "density", "must be positive and finite"),
    ({"density": -7860.0}, "density", "must be positive and finite"),
    ({"density": "7 m"}, "density", "has dimension"),
    ({"mass": 0.0}, "mass", "must be positive and finite"),
    ({"mass": math.inf}, "mass", "must be positive and finite"),
    ({"material": "unobtainium"}, "material", "unknown material"),
    ({"material": "steel", "density": 1000}, "density", "give only one of"),
    ({"density": 1000, "mass": 2}, "mass", "give only one of"),
    ({"extra_frames": [math.nan]}, "extra_frames[0]", "must be finite"),
    ({"extra_frames": [0.1, "2 kg"]}, "extra_frames[1]", "has dimension"),
    ({"extra_frames": "0.5"}, "extra_frames", "must be a sequence"),
    ({"extra_frames": [(0.1, 0.2)]}, "extra_frames[0]", "must be a number or a length"),
    ({"length": 1e300, "radius": 1e300, "density": 1e10}, "length", "beyond what float64 holds"),
    ({"length": 1e-320, "radius": 1e-5}, "radius", "beyond what float64 holds"),
    ({"radius": 1e-200}, "radius", r"too small for float64: .* rounds to 0"),
    ({"radius": 1e-170, "inner_radius": 9e-171}, "radius", "too small for float64"),
]


@pytest.mark.parametrize(("kwargs", "parameter", "rule"), BAD)
def test_bad_input_names_the_parameter_and_the_rule(kwargs, parameter, rule) -> None:
    with pytest.raises(rp.ParameterError) as info:
        rp.Cylinder(**kwargs)
    assert info.value.parameter == parameter
    assert str(info.value).startswith(f"{parameter}=")
    assert "\n" not in str(info.value)
    assert info.value.rule and re.search(rule, info.value.rule), info.value


def test_unknown_keyword_and_positional_arguments_are_type_errors() -> None:
    with pytest.raises(TypeError):
        rp.Cylinder(radius_a=0.1)
    with pytest.raises(TypeError):
        rp.Cylinder(1.0, 0.1)  # keyword-only


def test_rules_are_checked_in_table_order() -> None:
    """The first broken rule wins (check runs last to first, branch-free)."""
    check = cylinder_kernel.check
    assert check(1.0, 0.1, 0.0) == 0
    assert check(-1.0, -1.0, -1.0) == cylinder_kernel.LENGTH_POSITIVE
    assert check(1.0, math.nan, 2.0) == cylinder_kernel.RADIUS_POSITIVE
    assert check(1.0, 0.1, math.inf) == cylinder_kernel.INNER_RADIUS_NON_NEGATIVE
    assert check(1.0, 0.1, 0.2) == cylinder_kernel.INNER_RADIUS_FITS
    assert check(1.0, 0.1, 0.1) == cylinder_kernel.SOME_MATERIAL
    assert check(1.0, 1e-200, 1e-200) == cylinder_kernel.SOME_MATERIAL
    assert check(1.0, 1e-200, 0.0) == cylinder_kernel.SECTION_REPRESENTABLE
    assert check(1.0, 1e-150, 0.0) == 0
    assert [r.parameter for r in cylinder_kernel.RULES] == [
        "length", "radius", "inner_radius", "inner_radius", "inner_radius", "radius",
    ]  # fmt: skip


# -- 9. valid edge cases and mass= --------------------------------------------------------------


@pytest.mark.parametrize(
    "dims",
    [
        (1.0, 0.3, math.nextafter(0.3, 0.0)),  # a wall of one ulp
        (1.0, 0.3, 0.3 * (1 - 1e-12)),
        (1.0, 0.3, 5e-324),  # the smallest bore
        (1e-9, 1.0, 0.0),  # thinner than 1e-9 of its radius
        (1.0, 1e-9, 0.0),  # a needle
        (1e-5, 1e-5, 1e-6),
        (1e5, 1e5, 9e4),
    ],
)
def test_valid_edge_cases_stay_valid_and_exact(dims) -> None:
    body = _cylinder(dims, density=7860.0)
    ref = cylinder_reference(*dims, 7860.0)
    got = _quantities(body)
    for key in QUANTITIES:
        assert relative_error(got[key], ref[key]) <= PRECISION, key
    assert invalidity_report(body.principal_moments) is None


@pytest.mark.parametrize("dims", [(1.0, 0.1, 0.0), (2.0, 0.3, 0.3 * (1 - 1e-12))])
def test_mass_round_trip(dims) -> None:
    body = _cylinder(dims, mass="2500 g")
    assert body.mass == 2.5 and body.material is None
    assert body.density == 2.5 / body.volume
    by_density = _cylinder(dims, density=body.density)
    np.testing.assert_allclose(by_density.inertia, body.inertia, rtol=4e-16, atol=0)
    again = rp.Cylinder(**{k: v for k, v in body.parameters().items() if k != "shape"})
    assert again.mass == 2.5 and again.inertia.tobytes() == body.inertia.tobytes()


def test_compiled_closed_form_gives_the_same_bits() -> None:
    """The batch path compiles check and closed_form with numba (the cone's closed form made
    jitable as rp.batch does); a fresh interpreter so that nothing is registered twice."""
    pytest.importorskip("numba")
    script = textwrap.dedent(
        """
        import random
        import numba
        from rigidparts.shapes import cone, cylinder
        for f in (cone.closed_form, cylinder.check, cylinder.closed_form):
            numba.extending.register_jitable(error_model="numpy")(f)
        check = numba.njit(lambda n, r, i: cylinder.check(n, r, i))
        closed = numba.njit(lambda n, r, i, rho: cylinder.closed_form(n, r, i, rho))
        rng = random.Random(9)
        cases = [(1.0, 0.3, 0.3 * (1 - 1e-12), 7860.0), (1.0, 0.1, 0.2, 1.0)]
        for _ in range(500):
            r = 10 ** rng.uniform(-4, 4)
            cases.append((10 ** rng.uniform(-4, 4), r, r * rng.random(), 10 ** rng.uniform(0, 8)))
        for *dims, rho in cases:
            assert check(*dims) == cylinder.check(*dims), dims
            if check(*dims) == 0:
                assert closed(*dims, rho) == cylinder.closed_form(*dims, rho), dims
        print("ok", len(cases))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ok")
