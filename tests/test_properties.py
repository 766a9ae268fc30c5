"""Property-based tests (hypothesis) over random valid Boxes and Cones: thin walls down to
1e-12 of the size (log-uniform), pointed ends, random axes, rotate90, scales 1e-3..1e3 m.

Invariants: a symmetric tensor with positive principal moments obeying the triangle
inequality; agreement with the 50-digit outer-minus-inner references; the rotation law
(axis R e gives R I R^T); the translation law (inertia about frame_b); the centre of mass on
the axis within [0, L].
"""

from __future__ import annotations

import mpmath
import numpy as np
from hypothesis import assume, given
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation

import rigidparts as rp
from reference import box_reference, cone_reference, relative_error, solid_frustum_moments

PRECISION = 1e-15  # against the 50-digit references
ROTATION_TOLERANCE = 1e-14  # the rotation law, relative to the largest moment

log_scale = st.floats(min_value=-3.0, max_value=3.0).map(lambda e: 10.0**e)
log_ratio = st.floats(min_value=-2.0, max_value=2.0).map(lambda e: 10.0**e)
densities = st.floats(min_value=0.0, max_value=8.0).map(lambda e: 10.0**e)
# the wall as a fraction of the outer size: none (solid), thin (log-uniform to 1e-12), or zero
wall_fractions = st.one_of(
    st.just(1.0),
    st.floats(min_value=-12.0, max_value=0.0).map(lambda e: 10.0**e),
    st.just(0.0),
)
axes = st.tuples(*[st.floats(min_value=-1.0, max_value=1.0)] * 3).filter(
    lambda v: np.linalg.norm(v) > 1e-3
)
rotations = st.integers(min_value=0, max_value=2**32 - 1).map(
    lambda seed: Rotation.random(random_state=seed)
)


@st.composite
def box_dimensions(draw) -> tuple[float, ...]:
    scale = draw(log_scale)
    length = scale * draw(log_ratio)
    width = scale * draw(log_ratio)
    height = scale * draw(log_ratio)
    inner_width = width * (1.0 - draw(wall_fractions))
    inner_height = height * (1.0 - draw(wall_fractions))
    assume(not (inner_width == width and inner_height == height))
    return length, width, height, inner_width, inner_height


@st.composite
def cone_dimensions(draw) -> tuple[float, ...]:
    scale = draw(log_scale)
    length = scale * draw(log_ratio)
    radius_a = scale * draw(st.one_of(log_ratio, st.just(0.0)))
    radius_b = scale * draw(st.one_of(log_ratio, st.just(0.0)))
    inner_a = radius_a * (1.0 - draw(wall_fractions))
    inner_b = radius_b * (1.0 - draw(wall_fractions))
    dims = (length, radius_a, radius_b, inner_a, inner_b)
    with mpmath.workdps(50):  # exact: the body keeps some volume
        exact = [mpmath.mpf(d) for d in dims]
        outer = solid_frustum_moments(exact[0], exact[1], exact[2], 1, mpmath.pi)
        inner = solid_frustum_moments(exact[0], exact[3], exact[4], 1, mpmath.pi)
        assume(outer["volume"] > inner["volume"])
    return dims


def _box(dims, density, **kwargs) -> rp.Box:
    names = ("length", "width", "height", "inner_width", "inner_height")
    return rp.Box(**dict(zip(names, dims, strict=True)), density=density, **kwargs)


def _cone(dims, density, **kwargs) -> rp.Cone:
    names = ("length", "radius_a", "radius_b", "inner_radius_a", "inner_radius_b")
    return rp.Cone(**dict(zip(names, dims, strict=True)), density=density, **kwargs)


def _check_physical(body: rp.Component, reference: dict) -> None:
    inertia = body.inertia
    np.testing.assert_array_equal(inertia, inertia.T)
    assert body.mass > 0 and body.volume > 0
    moments = body.principal_moments
    assert np.all(np.diff(moments) >= 0)
    assert moments[0] > 0  # positive definite
    assert moments[0] + moments[1] >= moments[2] * (1 - 4e-16)  # triangle inequality
    expected = sorted([reference["i_xx"], reference["i_yy"], reference["i_zz"]])
    for got, exact in zip(moments, expected, strict=True):
        assert relative_error(got, exact) <= PRECISION
    assert relative_error(body.mass, reference["mass"]) <= PRECISION
    assert relative_error(body.volume, reference["volume"]) <= PRECISION
    # the centre of mass lies on the axis, between frame_a and frame_b
    e = body.axis
    along = float(body.center_of_mass @ e)
    assert relative_error(along, reference["com_x"]) <= PRECISION
    assert 0.0 <= along <= body.length
    # com = c e (each entry rounded once), |e|^2 = 1 within 7.04 u (entries within 3.52 u);
    # along = com . e is a BLAS dot (gamma_3 in any order): c (1 +- 10.1 u); along * e rounds
    # once more: |com - along e| <= (10.1 + 2) u c <= 13 u L
    unit = np.finfo(np.float64).eps / 2
    np.testing.assert_allclose(body.center_of_mass, along * e, rtol=0, atol=13 * unit * body.length)


@given(box_dimensions(), densities, axes, st.booleans())
def test_box_is_physical_and_exact(dims, density, axis, rotate90) -> None:
    body = _box(dims, density, axis=axis, rotate90=rotate90)
    _check_physical(body, box_reference(*dims, density))


@given(cone_dimensions(), densities, axes)
def test_cone_is_physical_and_exact(dims, density, axis) -> None:
    body = _cone(dims, density, axis=axis)
    _check_physical(body, cone_reference(*dims, density))


def _rotation_error(tensor: np.ndarray, expected: np.ndarray) -> float:
    return float(np.abs(tensor - expected).max() / np.abs(expected).max())


@given(cone_dimensions(), rotations)
def test_cone_rotation_law(dims, rotation) -> None:
    """The cone along R e_x has inertia R I R^T (I: along +x), for any rotation R."""
    r = rotation.as_matrix()
    along_x = _cone(dims, 7860.0)
    turned = _cone(dims, 7860.0, axis=tuple(r[:, 0]))
    assert _rotation_error(turned.inertia, r @ along_x.inertia @ r.T) <= ROTATION_TOLERANCE
    np.testing.assert_allclose(
        turned.center_of_mass, r @ along_x.center_of_mass, rtol=0, atol=1e-15 * dims[0]
    )


@given(box_dimensions(), rotations, st.booleans())
def test_box_rotation_law(dims, rotation, rotate90) -> None:
    """The box along R e_x with height direction R e_y has inertia R I R^T."""
    r = rotation.as_matrix()
    along_x = _box(dims, 7860.0, rotate90=rotate90)
    turned = _box(
        dims, 7860.0, axis=tuple(r[:, 0]), height_direction=tuple(r[:, 1]), rotate90=rotate90
    )
    assert _rotation_error(turned.inertia, r @ along_x.inertia @ r.T) <= ROTATION_TOLERANCE
    np.testing.assert_allclose(turned.height_direction, r @ along_x.height_direction, atol=1e-15)
    for name, frame in along_x.frames.items():
        np.testing.assert_allclose(
            turned.frames[name].position, r @ frame.position, rtol=0, atol=1e-15 * dims[0]
        )


@given(st.one_of(box_dimensions(), cone_dimensions()), st.data())
def test_translation_law_about_frame_b(dims, data) -> None:
    """Inertia about frame_b (at L e) = the canonical moments about x = L, rotated into frame_a:
    I_yy,b = I_yy + m (L - x_c)^2 (and I_zz alike), I_xx,b = I_xx, computed in mpmath."""
    is_box = data.draw(st.booleans()) if len(dims) == 5 else True
    axis = data.draw(axes)
    try:
        body = _box(dims, 2700.0, axis=axis) if is_box else _cone(dims, 2700.0, axis=axis)
        ref = (box_reference if is_box else cone_reference)(*dims, 2700.0)
    except rp.ParameterError:  # box dimensions that make no valid cone, or the reverse
        assume(False)
    with mpmath.workdps(50):
        shift = ref["mass"] * (mpmath.mpf(dims[0]) - ref["com_x"]) ** 2
        moments = [ref["i_xx"], ref["i_yy"] + shift, ref["i_zz"] + shift]
        r_ac = body.rotation_from_canonical
        expected = np.array(
            [
                [
                    float(sum(moments[k] * r_ac[i, k] * r_ac[j, k] for k in range(3)))
                    for j in range(3)
                ]
                for i in range(3)
            ]
        )
    got = body.mass_properties.inertia_about(body.frames["frame_b"].position)
    assert _rotation_error(got, expected) <= 1e-13
