"""The Disk (and ring) against independent computations.

1. Symbolic: direct sympy integration of the ring centred on frame_a (x in [-T/2, T/2]) equals
   ``shapes.disk.closed_form`` as written (run on exact symbolic numbers: the cylinder's and the
   cone's code it calls are covered too); the centre of mass is frame_a's origin.
2. A disk is a short cylinder: the same volume, mass and moments bit for bit, the centre moved
   by T/2 along the axis.
3. Precision: rp.Disk vs 50-digit references: solid, rings down to a 1e-12 relative wall, disks
   thinner than 1e-9 of their radius, scales 1e-3..1e3 m, densities to 1e8 kg/m^3, skew axes.
4. Known limits, radial frames (positions and rotations for +x, +y, +z and skew axes, angles
   with units), meshes, the native primitive, invariants, bad input, edge cases, ``mass=``.
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
    AXIS_BOUND,
    DIRECTION_BOUND,
    QUANTITIES,
    Exact,
    relative_error,
    rule_directions,
    symbolic_equal,
    tensor_relative_error,
)
from reference_cylinder import disk_reference, thick_cylinder_textbook
from rigidparts.inertia import invalidity_report
from rigidparts.shapes import SHAPES, Primitive
from rigidparts.shapes import disk as disk_kernel
from rigidparts.shapes._meshing import MIN_RELATIVE_TIP, MIN_RELATIVE_WALL

# Largest relative error allowed against the 50-digit references (observed: <= 5.1e-16 for
# the canonical quantities and principal moments, <= 6.9e-16 for a skew axis's tensor relative
# to its largest entry).
PRECISION = 8e-16
SKEW_PRECISION = 1e-15

R, RI, T, RHO = sp.symbols("R R_i T rho", positive=True)


def _disk(dims: tuple[float, ...], **options) -> rp.Disk:
    return rp.Disk(**dict(zip(disk_kernel.SPEC.parameter_names, dims, strict=True)), **options)


def _quantities(body: rp.Disk | rp.Cylinder) -> dict[str, float]:
    return {
        "volume": body.volume,
        "mass": body.mass,
        "com_x": float(body.center_of_mass[0]),
        "i_xx": float(body.inertia[0, 0]),
        "i_yy": float(body.inertia[1, 1]),
        "i_zz": float(body.inertia[2, 2]),
    }


# -- 1. symbolic proofs -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def direct() -> dict[str, sp.Expr]:
    """Direct integration of rho over the ring x in [-T/2, T/2], r in [R_i, R], theta in
    [0, 2 pi]; moments about frame_a's origin (which the integrals show is the centre)."""
    x, r, th = sp.symbols("x r theta", real=True)

    def integral(f: sp.Expr) -> sp.Expr:
        return sp.integrate(
            sp.expand(RHO * f * r), (th, 0, 2 * sp.pi), (r, RI, R), (x, -T / 2, T / 2)
        )

    y, z = r * sp.cos(th), r * sp.sin(th)
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


def test_direct_integration_centre_is_frame_a(direct) -> None:
    for key in ("com_x", "com_y", "com_z", "i_xy", "i_xz", "i_yz"):
        assert sp.simplify(direct[key]) == 0, key
    assert symbolic_equal(direct["i_yy"], direct["i_zz"])


def test_library_closed_form_equals_direct_integration(direct) -> None:
    """shapes/disk.py's closed form on exact symbolic numbers (float constants and math.pi
    converted exactly; pi divided out of both sides)."""
    result = disk_kernel.closed_form(*(Exact(s) for s in (R, RI, T, RHO)))
    got = dict(zip(QUANTITIES, result, strict=True))
    assert got.pop("com_x") == 0.0  # a plain float zero: the centre is frame_a's origin
    got = {key: value.expr for key, value in got.items()}
    float_pi = sp.Rational(math.pi)
    for key in ("volume", "mass", "i_xx", "i_yy", "i_zz"):
        assert symbolic_equal(got[key] / float_pi, direct[key] / sp.pi), key


def test_textbook_form_equals_direct_integration(direct) -> None:
    """m = rho pi T (R^2 - R_i^2), I_xx = m (R^2 + R_i^2) / 2,
    I_yy = I_zz = m (3 (R^2 + R_i^2) + T^2) / 12 (the reference of the limits below)."""
    textbook = thick_cylinder_textbook(T, R, RI, RHO, sp.pi)
    for key in ("volume", "mass", "i_xx", "i_yy", "i_zz"):
        assert symbolic_equal(textbook[key], direct[key]), key


# -- 2. a disk is a short cylinder --------------------------------------------------------------


@given(
    radius=st.floats(1e-6, 1e6),
    fraction=st.floats(0.0, 1.0, exclude_max=True),
    thickness=st.floats(1e-6, 1e6),
    axis=st.sampled_from([(1, 0, 0), (0, 1, 0), (0, 0, 1), (-1.0, 2.0, 0.5)]),
    density=st.floats(1e-3, 1e8),
)
def test_disk_is_a_short_cylinder(radius, fraction, thickness, axis, density) -> None:
    inner = radius * fraction
    disk = rp.Disk(
        radius=radius, inner_radius=inner, thickness=thickness, axis=axis, density=density
    )
    cylinder = rp.Cylinder(
        length=thickness, radius=radius, inner_radius=inner, axis=axis, density=density
    )
    assert disk.volume == cylinder.volume and disk.mass == cylinder.mass
    assert disk.inertia.tobytes() == cylinder.inertia.tobytes()
    assert disk.principal_moments.tobytes() == cylinder.principal_moments.tobytes()
    np.testing.assert_array_equal(disk.center_of_mass, np.zeros(3))
    np.testing.assert_allclose(
        cylinder.center_of_mass - disk.center_of_mass,
        0.5 * thickness * disk.axis,
        rtol=0,
        atol=1e-15 * thickness,
    )
    assert "frame_b" not in disk.frames and "frame_b" in cylinder.frames


def test_disk_mesh_is_the_cylinder_mesh_moved_by_half_the_thickness() -> None:
    for inner in (0.0, 0.3, 1.0 - 1e-12):
        disk = rp.Disk(radius=1.0, inner_radius=inner, thickness=0.1, axis=(0, 1, 0))
        cylinder = rp.Cylinder(length=0.1, radius=1.0, inner_radius=inner, axis=(0, 1, 0))
        a, b = disk.mesh(sections=20), cylinder.mesh(sections=20)
        np.testing.assert_array_equal(a.faces, b.faces)
        np.testing.assert_array_equal(a.vertices + 0.05 * np.array([0, 1, 0]), b.vertices)


# -- 3. precision against 50-digit references ---------------------------------------------------


def _rings(t: float) -> dict[str, tuple[float, float, float]]:
    """Thin rings: inner = outer * (1 - t) in float64 (the same floats feed both sides)."""
    return {
        f"ring_wall_{t:g}": (1.0, 1.0 * (1 - t), 0.1),
        f"washer_wall_{t:g}": (0.02, 0.02 * (1 - t), 0.002),
        f"band_wall_{t:g}": (0.3, 0.3 * (1 - t), 2.0),
    }


CASES: dict[str, tuple[float, float, float]] = {
    "defaults": (1.0, 0.0, 0.1),
    "washer": (0.05, 0.02, 0.003),
    "thick": (0.1, 0.0, 0.5),
    "foil_1e-9": (1.0, 0.0, 1e-9),
    "foil_1e-12": (1.0, 0.0, 1e-12),
    "foil_ring_1e-10": (1.0, 0.5, 1e-10),
    "pin_hole": (1.0, 1e-9, 0.1),
    **_rings(1e-3),
    **_rings(1e-6),
    **_rings(1e-9),
    **_rings(1e-12),
}
SCALES = (1e-3, 1.0, 1e3)
DENSITIES = (1.0, 7860.0, 1e8)
SKEW_AXES = ((1.0, 2.0, 3.0), (-0.3, 0.1, 1.0), (0.0, -1.0, 1e-3), (1.0, 1.0, 1.0))


@pytest.mark.parametrize("name", list(CASES))
def test_precision_against_50_digit_reference(name: str) -> None:
    worst = dict.fromkeys(QUANTITIES, 0.0)
    for scale, density in itertools.product(SCALES, DENSITIES):
        dims = tuple(scale * d for d in CASES[name])
        body = _disk(dims, density=density)
        got = _quantities(body)
        ref = disk_reference(*dims, density)
        for key in QUANTITIES:
            worst[key] = max(worst[key], relative_error(got[key], ref[key]))
        expected = sorted([ref["i_xx"], ref["i_yy"], ref["i_zz"]])
        for moment, exact in zip(body.principal_moments, expected, strict=True):
            assert relative_error(moment, exact) <= PRECISION
        assert np.count_nonzero(body.inertia - np.diag(np.diag(body.inertia))) == 0
        np.testing.assert_array_equal(body.center_of_mass, np.zeros(3))
    assert max(worst.values()) <= PRECISION, worst


@pytest.mark.parametrize("name", ["washer", "ring_wall_1e-12", "foil_1e-9", "thick"])
@pytest.mark.parametrize("axis", SKEW_AXES)
def test_precision_on_skew_axes(name: str, axis: tuple[float, float, float]) -> None:
    """The tensor in frame_a against R diag(I) R^T at 50 digits (R from an independent
    statement of the axis rule); the centre of mass stays exactly at frame_a's origin."""
    dims, density = CASES[name], 2700.0
    body = _disk(dims, density=density, axis=axis)
    ref = disk_reference(*dims, density)
    e, h, w = rule_directions(axis)
    with mpmath.workdps(50):
        rotation = mpmath.matrix([[mpmath.mpf(float(v)) for v in col] for col in (e, h, w)]).T
        tensor = rotation * mpmath.diag([ref["i_xx"], ref["i_yy"], ref["i_zz"]]) * rotation.T
    assert tensor_relative_error(body.inertia, tensor) <= SKEW_PRECISION
    expected = sorted([ref["i_xx"], ref["i_yy"], ref["i_zz"]])
    for moment, exact in zip(body.principal_moments, expected, strict=True):
        assert relative_error(moment, exact) <= PRECISION
    np.testing.assert_array_equal(body.center_of_mass, np.zeros(3))


def test_reference_is_converged_at_50_digits() -> None:
    for name in ("ring_wall_1e-12", "washer_wall_1e-12", "foil_1e-12"):
        at50 = disk_reference(*CASES[name], 7860.0)
        at80 = disk_reference(*CASES[name], 7860.0, dps=80)
        with mpmath.workdps(80):
            for key in QUANTITIES:
                assert abs(at50[key] - at80[key]) <= mpmath.mpf("1e-30") * abs(at80[key])


# -- 4. known limits ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["defaults", "washer", "thick", "foil_1e-9", "ring_wall_1e-09"])
def test_textbook_form_at_50_digits(name: str) -> None:
    dims, rho = CASES[name], 7860.0
    got = _quantities(_disk(dims, density=rho))
    ref = disk_reference(*dims, rho, formulas=thick_cylinder_textbook)
    for key in QUANTITIES:
        assert relative_error(got[key], ref[key]) <= PRECISION, key


def test_physical_limits() -> None:
    """Thin disk: I_xx = m R^2 / 2, I_yy -> m R^2 / 4 (the perpendicular-axis theorem). Thin
    ring: I_xx -> m R^2, I_yy -> m R^2 / 2. A thin disk keeps the triangle inequality."""
    foil = rp.Disk(radius=0.5, thickness=1e-10)
    assert foil.inertia[0, 0] == pytest.approx(foil.mass * 0.25 / 2, rel=4e-16)
    assert foil.inertia[1, 1] == pytest.approx(foil.mass * 0.25 / 4, rel=1e-15)
    assert invalidity_report(foil.principal_moments) is None
    ring = rp.Disk(radius=0.5, inner_radius=0.5 * (1 - 1e-12), thickness=1e-12)
    assert ring.inertia[0, 0] == pytest.approx(ring.mass * 0.25, rel=2e-12)
    assert ring.inertia[1, 1] == pytest.approx(ring.mass * 0.25 / 2, rel=2e-12)
    assert invalidity_report(ring.principal_moments) is None
    # a long disk is a rod: I_yy -> m T^2 / 12
    rod = rp.Disk(radius=1e-9, thickness=2.0)
    assert rod.inertia[1, 1] == pytest.approx(rod.mass * 4.0 / 12, rel=1e-15)


def test_hollow_equals_outer_minus_inner_in_exact_arithmetic() -> None:
    dims, rho = (0.35, 0.25, 0.04), 2700.0
    ring = _disk(dims, density=rho)
    outer = rp.Disk(radius=dims[0], thickness=dims[2], density=rho)
    inner = rp.Disk(radius=dims[1], thickness=dims[2], density=rho)
    amplification = outer.mass / ring.mass
    with mpmath.workdps(50):
        for got, a, b in [
            (ring.mass, outer.mass, inner.mass),
            (ring.volume, outer.volume, inner.volume),
            *[(ring.inertia[i, i], outer.inertia[i, i], inner.inertia[i, i]) for i in range(3)],
        ]:
            assert relative_error(got, mpmath.mpf(a) - mpmath.mpf(b)) <= 4e-16 * amplification


# -- 5. frames ----------------------------------------------------------------------------------


def _rodrigues(axis: np.ndarray, angle: float) -> np.ndarray:
    """The right-handed rotation by ``angle`` about the unit ``axis`` (Rodrigues' formula)."""
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return (
        math.cos(angle) * np.eye(3)
        + math.sin(angle) * k
        + (1 - math.cos(angle)) * np.outer(axis, axis)
    )


RADIAL = [(0.5, "30 deg"), (0.25, 0.0), ("100 mm", math.pi), (1.0, "-45 deg"), (0.0, 1.0),
          (2.0, "1 rad"), (0.3, "0.25 turn"), (0.7, 2 * math.pi + 0.1)]  # fmt: skip
ANGLES = [math.pi / 6, 0.0, math.pi, -math.pi / 4, 1.0, 1.0, math.pi / 2, 2 * math.pi + 0.1]
RADII = [0.5, 0.25, 0.1, 1.0, 0.0, 2.0, 0.3, 0.7]


@pytest.mark.parametrize(
    ("axis", "reference"),
    [
        ((1, 0, 0), (0, 1, 0)),  # +x: the reference direction is +y
        ((0, 1, 0), (0, 0, 1)),  # +y: +z
        ((0, 0, 1), (1, 0, 0)),  # +z: +x
        ((0, 0, -3), (1, 0, 0)),
        ((1.0, 2.0, 3.0), None),  # skew: the Box's height-direction rule
        ((-0.2, 0.9, 0.1), None),
    ],
)
def test_radial_frames(axis, reference) -> None:
    disk = rp.Disk(radius=1.0, thickness=0.1, axis=axis, extra_frames=RADIAL)
    frames = disk.frames
    assert list(frames) == ["frame_a", "frame_com"] + [f"frame_c{i}" for i in range(1, 9)]
    np.testing.assert_array_equal(frames["frame_a"].position, np.zeros(3))
    np.testing.assert_array_equal(frames["frame_com"].position, np.zeros(3))
    np.testing.assert_array_equal(frames["frame_com"].rotation, np.eye(3))
    e, h, w = rule_directions(axis)
    if reference is not None:
        np.testing.assert_array_equal(h, reference)
    for i, (radius, angle) in enumerate(zip(RADII, ANGLES, strict=True), start=1):
        frame = frames[f"frame_c{i}"]
        stored_radius, stored_angle = disk.extra_frames[i - 1]
        assert stored_radius == pytest.approx(radius, rel=1e-15)
        assert stored_angle == pytest.approx(angle, rel=1e-15)
        # e, h, w here are numpy's (BLAS norms and dots): within AXIS_BOUND and
        # DIRECTION_BOUND of the body's (tests/reference.py), so a point r (cos h + sin w) is
        # within r (|cos| + |sin|) DIRECTION_BOUND <= 1.5 r DIRECTION_BOUND of the body's, and
        # a rotation made of either set (Rodrigues: c 1 + s [e]x + (1 - c) e e^T; the body's
        # from its e, h, w) within 3 DIRECTION_BOUND per entry, which also bounds R R^T - 1
        # (rows of norm 1 within that; the BLAS's gamma_3 is far below it)
        scale = max(radius, 1)
        expected = radius * (math.cos(angle) * h + math.sin(angle) * w)
        near = 1.5 * DIRECTION_BOUND * scale
        np.testing.assert_allclose(frame.position, expected, rtol=0, atol=near)
        assert abs(frame.position @ e) <= near + AXIS_BOUND * scale  # in the plane of the COM
        rotation = frame.rotation
        turned = 3 * DIRECTION_BOUND  # the body's e, h, w are the rotation's columns
        np.testing.assert_allclose(rotation, _rodrigues(e, angle), rtol=0, atol=turned)
        np.testing.assert_allclose(rotation @ rotation.T, np.eye(3), rtol=0, atol=turned)
        assert np.linalg.det(rotation) == pytest.approx(1.0, abs=5 * turned)
        # rotate frame_a by the angle, then move `radius` along the rotated reference axis
        np.testing.assert_allclose(frame.position, radius * (rotation @ h), rtol=0,
                                   atol=2 * turned * scale)  # fmt: skip
        np.testing.assert_allclose(rotation @ e, e, rtol=0, atol=turned)


def test_radial_frames_at_zero_angle_keep_frame_as_orientation() -> None:
    disk = rp.Disk(extra_frames=[(0.4, 0), (0.4, "0 deg")])
    for name in ("frame_c1", "frame_c2"):
        np.testing.assert_array_equal(disk.frames[name].rotation, np.eye(3))
        np.testing.assert_array_equal(disk.frames[name].position, [0.0, 0.4, 0.0])


def test_thirty_degrees() -> None:
    """The original's example: a frame at (R_add, theta_add) = (0.2 m, 30 deg), axis +x."""
    frame = rp.Disk(extra_frames=[("200 mm", "30 deg")]).frames["frame_c1"]
    np.testing.assert_allclose(frame.position, [0.0, 0.1 * math.sqrt(3), 0.1], rtol=2e-16, atol=0)
    c, s = math.sqrt(3) / 2, 0.5
    np.testing.assert_allclose(
        frame.rotation, [[1, 0, 0], [0, c, -s], [0, s, c]], rtol=0, atol=2e-16
    )


def test_parameters_round_trip_with_radial_frames() -> None:
    body = rp.Disk(
        radius="30 cm",
        inner_radius=0.1,
        thickness="5 mm",
        axis=(0, 0, 1),
        material="aluminium",
        extra_frames=[(0.2, "30 deg"), (0.25, "150 deg")],
    )
    parameters = body.parameters()
    assert parameters["shape"] == "disk" and "length" not in parameters
    assert parameters["extra_frames"][0] == [0.2, pytest.approx(math.pi / 6, rel=1e-15)]
    again = rp.Disk(**{k: v for k, v in parameters.items() if k != "shape"})
    assert again.inertia.tobytes() == body.inertia.tobytes()
    assert dict(again.frames) == dict(body.frames)
    assert rp.body_class("disk") is rp.Disk
    data = body.to_dict()
    assert list(data["frames"]) == ["frame_a", "frame_com", "frame_c1", "frame_c2"]
    assert data["center_of_mass"] == [0.0, 0.0, 0.0]


def test_specification() -> None:
    spec = SHAPES["disk"]
    assert spec.end_frame is None and spec.extra_frames == "radial" and spec.axis
    assert spec.parameter_names == ("radius", "inner_radius", "thickness")
    assert spec.primitive(rp.Disk(radius=0.3, thickness=0.02).dimensions) == Primitive(
        "cylinder", (0.3, 0.02), (0.0, 0.0, 0.0)
    )
    assert spec.primitive(rp.Disk(radius=0.3, inner_radius=0.1).dimensions) is None


# -- 6. meshes ----------------------------------------------------------------------------------


def _inscribed(sections: int) -> float:
    return sections * math.sin(2 * math.pi / sections) / (2 * math.pi)


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"inner_radius": 0.4},
        {"inner_radius": 1.0 - 1e-12},
        {"thickness": 1e-9},
        {"thickness": 1e-12, "inner_radius": 0.5},
        {"radius": 1e-3, "thickness": 10.0},
        {"radius": 3e-7, "inner_radius": 1e-7, "thickness": 2e-8, "axis": (1, -1, 2)},
    ],
    ids=["solid", "ring", "ring_wall_1e-12", "foil_1e-9", "foil_ring_1e-12", "rod", "micro"],
)
@pytest.mark.parametrize("sections", [3, 16, 64])
def test_mesh_is_closed_centred_with_the_inscribed_polygon_volume(kwargs, sections) -> None:
    body = rp.Disk(**kwargs)
    mesh = body.mesh(sections=sections)
    assert mesh.is_watertight and mesh.is_winding_consistent and mesh.volume > 0
    assert mesh.body_count == 1
    rel = 1e-3 if body.inner_radius > 0.99 * body.radius else 1e-9
    assert mesh.volume == pytest.approx(body.volume * _inscribed(sections), rel=rel)
    along = mesh.vertices @ body.axis
    half = 0.5 * body.thickness
    assert along.min() == pytest.approx(-half, rel=1e-15)
    assert along.max() == pytest.approx(half, rel=1e-15)


def test_mesh_in_c_is_exactly_centred() -> None:
    mesh = SHAPES["disk"].mesh({"radius": 1.0, "inner_radius": 0.5, "thickness": 0.3}, 12)
    assert set(np.unique(mesh.vertices[:, 0])) == {-0.15, 0.15}


def test_mesh_mass_properties_converge_at_second_order() -> None:
    body = rp.Disk(radius=0.3, inner_radius=0.1, thickness=0.05, axis=(1, 2, 2), density=7860.0)
    scale = np.abs(body.inertia).max()
    results, errors = {}, []
    for n in (256, 512, 1024):
        mesh = body.mesh(sections=n)
        mesh.density = body.density
        results[n] = (mesh.mass, mesh.moment_inertia)
        errors.append(np.abs(mesh.moment_inertia - body.inertia).max() / scale)
        np.testing.assert_allclose(mesh.center_mass, np.zeros(3), rtol=0, atol=1e-14)
    assert 3.9 < errors[0] / errors[1] < 4.1 and 3.9 < errors[1] / errors[2] < 4.1
    mass = (4 * results[1024][0] - results[512][0]) / 3
    inertia = (4 * results[1024][1] - results[512][1]) / 3
    assert abs(mass / body.mass - 1) < 1e-9
    assert np.abs(inertia - body.inertia).max() / scale < 1e-9


def test_ring_has_its_hole() -> None:
    ring = rp.Disk(radius=0.3, inner_radius=0.2, thickness=0.05).mesh()
    assert not ring.contains(np.array([[0.0, 0.0, 0.0], [0.0, 0.1, 0.1]])).any()
    assert ring.contains(np.array([[0.0, 0.25, 0.0], [0.01, 0.0, -0.25]])).all()
    probes = ring.triangles_center + 1e-4 * ring.face_normals
    assert not ring.contains(probes).any()  # outward normals


def test_features_below_float_reach() -> None:
    """A wall below MIN_RELATIVE_WALL of the radius, or a radius below MIN_RELATIVE_TIP of the
    thickness, cannot be meshed: ParameterError naming the parameter (the body stays valid)."""
    thin = rp.Disk(radius=1.0, inner_radius=1.0 - 0.5 * MIN_RELATIVE_WALL)
    assert thin.mass > 0
    with pytest.raises(rp.ParameterError, match=r"^inner_radius=.*too thin to mesh"):
        thin.mesh()
    needle = rp.Disk(radius=0.5 * MIN_RELATIVE_TIP, thickness=1.0)
    assert needle.mass > 0
    with pytest.raises(rp.ParameterError, match=r"^radius=.*of thickness=1.0 m: too thin"):
        needle.mesh()


# -- 7. invariants ------------------------------------------------------------------------------


@given(
    radius=st.floats(1e-4, 1e4),
    fraction=st.floats(0.0, 1.0, exclude_max=True),
    thickness=st.floats(1e-4, 1e4),
    axis=st.tuples(*(st.floats(-1.0, 1.0) for _ in range(3))).filter(
        lambda v: max(abs(x) for x in v) > 1e-3
    ),
    angle=st.floats(-10.0, 10.0),
)
def test_invariants(radius, fraction, thickness, axis, angle) -> None:
    body = rp.Disk(
        radius=radius, inner_radius=radius * fraction, thickness=thickness, axis=axis,
        extra_frames=[(radius, angle)],
    )  # fmt: skip
    tensor = body.inertia
    assert np.array_equal(tensor, tensor.T)
    i1, i2, i3 = body.principal_moments
    assert 0 < i1 <= i2 <= i3
    # without tolerance: 2 I_yy >= I_xx holds exactly in float64 (see test_cylinder.py)
    assert invalidity_report(body.principal_moments, tolerance=0.0) is None
    assert i1 + i2 >= i3
    eigenvalues = np.linalg.eigvalsh(tensor)
    np.testing.assert_allclose(eigenvalues, body.principal_moments, rtol=0, atol=4e-15 * i3)
    # mass = ((rho pi) L) c / 3 and density * volume = rho ((pi L) c / 3): four roundings
    # each (c shared), so they may differ by up to 8 units of 2**-53 (seen: 4.4e-16).
    assert body.mass == pytest.approx(body.density * body.volume, rel=8 * 2.0**-53)
    frame = body.frames["frame_c1"]
    assert np.linalg.norm(frame.position) == pytest.approx(radius, rel=1e-15)
    assert abs(frame.position @ body.axis) <= 1e-15 * radius


@given(
    radius=st.floats(1e-3, 1e3),
    fraction=st.floats(1e-3, 0.999),
    thickness=st.floats(1e-3, 1e3),
)
def test_hollow_is_outer_minus_inner(radius, fraction, thickness) -> None:
    inner_radius = radius * fraction
    ring = rp.Disk(radius=radius, inner_radius=inner_radius, thickness=thickness, density=1000)
    outer = rp.Disk(radius=radius, thickness=thickness, density=1000)
    inner = rp.Disk(radius=inner_radius, thickness=thickness, density=1000)
    tol = 6e-16 * outer.mass / ring.mass
    with mpmath.workdps(50):
        assert relative_error(ring.mass, mpmath.mpf(outer.mass) - inner.mass) <= tol
        for i in range(3):
            exact = mpmath.mpf(outer.inertia[i, i]) - mpmath.mpf(inner.inertia[i, i])
            assert relative_error(ring.inertia[i, i], exact) <= 2 * tol


# -- 8. bad input -------------------------------------------------------------------------------

BAD = [
    ({"radius": 0.0}, "radius", "must be positive and finite"),
    ({"radius": -1.0}, "radius", "must be positive and finite"),
    ({"radius": math.nan}, "radius", "must be positive and finite"),
    ({"radius": math.inf}, "radius", "must be positive and finite"),
    ({"radius": "1 kg"}, "radius", "has dimension"),
    ({"inner_radius": -0.1}, "inner_radius", "must be non-negative and finite"),
    ({"inner_radius": math.nan}, "inner_radius", "must be non-negative and finite"),
    ({"inner_radius": math.inf}, "inner_radius", "must be non-negative and finite"),
    ({"inner_radius": 1.5}, "inner_radius", r"must not exceed radius=1\.0 m"),
    ({"inner_radius": 1.0}, "inner_radius", r"leaves no material \(zero volume\)"),
    ({"inner_radius": "1000 mm"}, "inner_radius", "leaves no material"),
    ({"thickness": 0.0}, "thickness", "must be positive and finite"),
    ({"thickness": -0.1}, "thickness", "must be positive and finite"),
    ({"thickness": math.nan}, "thickness", "must be positive and finite"),
    ({"thickness": math.inf}, "thickness", "must be positive and finite"),
    ({"thickness": "2 s"}, "thickness", "has dimension"),
    ({"radius": 1e-200}, "radius", r"too small for float64"),
    ({"thickness": 1e-320, "radius": 1e-5}, "radius", "beyond what float64 holds"),
    ({"axis": (0, 0, 0)}, "axis", "must be a non-zero vector"),
    ({"axis": (0, math.inf, 0)}, "axis", "must be finite"),
    ({"axis": "z"}, "axis", "3-vector"),
    ({"density": 0}, "density", "must be positive and finite"),
    ({"density": math.nan}, "density", "must be positive and finite"),
    ({"mass": -2.0}, "mass", "must be positive and finite"),
    ({"mass": "2 m"}, "mass", "has dimension"),
    ({"material": "kryptonite"}, "material", "unknown material"),
    ({"material": "steel", "mass": 1}, "mass", "give only one of"),
    ({"extra_frames": [0.5]}, "extra_frames[0]", r"must be a \(radius, angle\) pair"),
    ({"extra_frames": [(0.5,)]}, "extra_frames[0]", r"must be a \(radius, angle\) pair"),
    ({"extra_frames": [(0.5, 0.1, 0.2)]}, "extra_frames[0]", r"\(radius, angle\) pair"),
    ({"extra_frames": [(0.1, 0), "ab"]}, "extra_frames[1]", r"\(radius, angle\) pair"),
    ({"extra_frames": [(-0.5, 0.0)]}, "extra_frames[0].radius", "must be finite and >= 0"),
    ({"extra_frames": [(math.inf, 0.0)]}, "extra_frames[0].radius", "finite"),
    ({"extra_frames": [(0.5, math.nan)]}, "extra_frames[0].angle", "must be finite"),
    ({"extra_frames": [(0.5, "3 m")]}, "extra_frames[0].angle", "has dimension"),
    ({"extra_frames": [("3 s", 0.0)]}, "extra_frames[0].radius", "has dimension"),
    ({"extra_frames": "0.5"}, "extra_frames", "must be a sequence"),
    ({"extra_frames": 0.5}, "extra_frames", "must be a sequence"),
]


@pytest.mark.parametrize(("kwargs", "parameter", "rule"), BAD)
def test_bad_input_names_the_parameter_and_the_rule(kwargs, parameter, rule) -> None:
    with pytest.raises(rp.ParameterError) as info:
        rp.Disk(**kwargs)
    assert info.value.parameter == parameter
    assert str(info.value).startswith(f"{parameter}=")
    assert "\n" not in str(info.value)
    assert re.search(rule, info.value.rule), info.value


def test_unknown_keywords_are_type_errors() -> None:
    for bad in ({"length": 1.0}, {"rotate90": True}, {"height_direction": (0, 1, 0)}):
        with pytest.raises(TypeError):
            rp.Disk(**bad)


def test_rules_are_checked_in_table_order() -> None:
    check = disk_kernel.check
    assert check(1.0, 0.0, 0.1) == 0
    assert check(-1.0, -1.0, -1.0) == disk_kernel.RADIUS_POSITIVE
    assert check(1.0, math.nan, -1.0) == disk_kernel.INNER_RADIUS_NON_NEGATIVE
    assert check(1.0, 2.0, 0.0) == disk_kernel.THICKNESS_POSITIVE
    assert check(1.0, 2.0, 0.1) == disk_kernel.INNER_RADIUS_FITS
    assert check(1.0, 1.0, 0.1) == disk_kernel.SOME_MATERIAL
    assert check(1e-200, 0.0, 0.1) == disk_kernel.SECTION_REPRESENTABLE
    assert [r.parameter for r in disk_kernel.RULES] == [
        "radius", "inner_radius", "thickness", "inner_radius", "inner_radius", "radius",
    ]  # fmt: skip


# -- 9. valid edge cases and mass= --------------------------------------------------------------


@pytest.mark.parametrize(
    "dims",
    [
        (1.0, 0.0, 1e-10),  # thinner than 1e-9 of its radius
        (1.0, 0.0, 1e-15),
        (1.0, 1.0 * (1 - 1e-12), 0.1),  # a ring of 1e-12 relative wall
        (1.0, math.nextafter(1.0, 0.0), 0.1),  # a wall of one ulp
        (1.0, 5e-324, 0.1),
        (1e-9, 0.0, 1.0),  # a needle
        (1e5, 9.9e4, 1e-5),
    ],
)
def test_valid_edge_cases_stay_valid_and_exact(dims) -> None:
    body = _disk(dims, density=7860.0)
    ref = disk_reference(*dims, 7860.0)
    got = _quantities(body)
    for key in QUANTITIES:
        assert relative_error(got[key], ref[key]) <= PRECISION, key
    assert invalidity_report(body.principal_moments) is None


@pytest.mark.parametrize("dims", [(1.0, 0.0, 0.1), (0.5, 0.5 * (1 - 1e-12), 1e-10)])
def test_mass_round_trip(dims) -> None:
    body = _disk(dims, mass="750 g", extra_frames=[(0.1, "90 deg")])
    assert body.mass == 0.75 and body.material is None
    assert body.density == 0.75 / body.volume
    by_density = _disk(dims, density=body.density)
    np.testing.assert_allclose(by_density.inertia, body.inertia, rtol=4e-16, atol=0)
    again = rp.Disk(**{k: v for k, v in body.parameters().items() if k != "shape"})
    assert again.mass == 0.75 and again.inertia.tobytes() == body.inertia.tobytes()
    assert dict(again.frames) == dict(body.frames)


def test_compiled_closed_form_gives_the_same_bits() -> None:
    """The batch path compiles check and closed_form with numba (the cylinder's and the cone's
    closed forms made jitable as rp.batch does); a fresh interpreter so that nothing is
    registered twice."""
    pytest.importorskip("numba")
    script = textwrap.dedent(
        """
        import random
        import numba
        from rigidparts.shapes import cone, cylinder, disk
        for f in (cone.closed_form, cylinder.closed_form, disk.check, disk.closed_form):
            numba.extending.register_jitable(error_model="numpy")(f)
        check = numba.njit(lambda r, i, t: disk.check(r, i, t))
        closed = numba.njit(lambda r, i, t, rho: disk.closed_form(r, i, t, rho))
        rng = random.Random(9)
        cases = [(1.0, 1.0 - 1e-12, 1e-10, 7860.0), (1.0, 2.0, 0.1, 1.0), (1e-200, 0, 1, 1.0)]
        for _ in range(500):
            r = 10 ** rng.uniform(-4, 4)
            cases.append((r, r * rng.random(), 10 ** rng.uniform(-6, 4), 10 ** rng.uniform(0, 8)))
        for *dims, rho in cases:
            assert check(*dims) == disk.check(*dims), dims
            if check(*dims) == 0:
                assert closed(*dims, rho) == disk.closed_form(*dims, rho), dims
        print("ok", len(cases))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ok")
