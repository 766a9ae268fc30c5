"""rigidparts.transforms: poses, quaternions and roll-pitch-yaw, checked against rotation
matrices written out by hand, round trips, and the one policy for non-orthonormal input."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import rigidparts as rp
from rigidparts.transforms import (
    EXACT_TOLERANCE,
    IDENTITY,
    ORTHONORMAL_TOLERANCE,
    as_rotation,
    compose,
    invert,
    matrix_to_quaternion,
    matrix_to_rpy,
    quaternion_to_matrix,
    rotation_about_axis,
    rpy_to_matrix,
)


def rot_x(t: float) -> np.ndarray:
    c, s = math.cos(t), math.sin(t)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def rot_y(t: float) -> np.ndarray:
    c, s = math.cos(t), math.sin(t)
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])


def rot_z(t: float) -> np.ndarray:
    c, s = math.cos(t), math.sin(t)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


angles = st.floats(-math.pi, math.pi)
quaternions = st.lists(st.floats(-1, 1), min_size=4, max_size=4).filter(
    lambda q: np.linalg.norm(q) > 0.1
)


# -- poses -----------------------------------------------------------------------------------


@given(angles, angles, angles)
def test_compose_and_invert_by_hand(a, b, c):
    x_ab = (rot_z(a), np.array([1.0, 2.0, 3.0]))
    x_bc = (rot_x(b) @ rot_y(c), np.array([-0.5, 0.25, 2.0]))
    r_ac, p_ac = compose(x_ab, x_bc)
    np.testing.assert_allclose(r_ac, rot_z(a) @ rot_x(b) @ rot_y(c), atol=1e-15)
    np.testing.assert_allclose(p_ac, rot_z(a) @ [-0.5, 0.25, 2.0] + [1, 2, 3], atol=1e-14)
    r, p = compose(x_ab, invert(x_ab))
    np.testing.assert_allclose(r, np.eye(3), atol=1e-15)
    np.testing.assert_allclose(p, 0.0, atol=1e-15)
    r, p = compose(IDENTITY, x_bc)
    np.testing.assert_array_equal(r, x_bc[0])
    np.testing.assert_array_equal(p, x_bc[1])


def test_identity_is_read_only():
    with pytest.raises(ValueError):
        IDENTITY[0][0, 0] = 2.0


# -- quaternions -----------------------------------------------------------------------------


def test_quaternions_by_hand():
    half = math.sqrt(0.5)
    np.testing.assert_allclose(quaternion_to_matrix([half, 0, half, 0]), rot_y(math.pi / 2),
                               atol=1e-15)  # fmt: skip
    # any non-zero quaternion is normalised
    np.testing.assert_allclose(quaternion_to_matrix([2, 0, 2, 0]), rot_y(math.pi / 2), atol=1e-15)
    q = matrix_to_quaternion(rot_x(0.5))
    np.testing.assert_allclose(q, [math.cos(0.25), math.sin(0.25), 0, 0], atol=1e-16)
    # the identity is exact both ways
    assert matrix_to_quaternion(np.eye(3)).tolist() == [1.0, 0.0, 0.0, 0.0]
    assert quaternion_to_matrix([1, 0, 0, 0]).tolist() == np.eye(3).tolist()


@given(quaternions)
def test_quaternion_round_trip_with_a_non_negative_w(q):
    q = np.array(q) / np.linalg.norm(q)
    matrix = quaternion_to_matrix(q)
    back = matrix_to_quaternion(matrix)
    assert back[0] >= 0.0
    # q and -q are the same rotation (both are returned when w = 0)
    np.testing.assert_allclose(back, q if np.dot(back, q) >= 0 else -q, atol=1e-15)
    np.testing.assert_allclose(quaternion_to_matrix(back), matrix, atol=1e-15)


def test_quaternion_stacks():
    stack = np.array([rot_x(0.1), rot_y(-2.0), rot_z(3.0), np.eye(3)])
    quats = matrix_to_quaternion(stack)
    assert quats.shape == (4, 4) and np.all(quats[:, 0] >= 0)
    for matrix, quat in zip(stack, quats, strict=True):
        np.testing.assert_allclose(quat, matrix_to_quaternion(matrix), atol=1e-16)
    np.testing.assert_allclose(quaternion_to_matrix(quats), stack, atol=1e-15)
    assert quaternion_to_matrix(np.tile([1.0, 0, 0, 0], (2, 3, 1))).shape == (2, 3, 3, 3)


@pytest.mark.parametrize(
    ("value", "words"),
    [([0, 0, 0, 0], "must not be zero"), ([1, 0, 0], "[qw, qx, qy, qz]"),
     ([1, math.nan, 0, 0], "finite")],
)  # fmt: skip
def test_bad_quaternions_are_named(value, words):
    with pytest.raises(rp.ParameterError, match=r"^spin=") as info:
        quaternion_to_matrix(value, "spin")
    assert words in str(info.value)


# -- roll, pitch, yaw ------------------------------------------------------------------------


@given(st.floats(-3.14, 3.14), st.floats(-1.5, 1.5), st.floats(-3.14, 3.14))
def test_rpy_is_rz_ry_rx_and_round_trips(roll, pitch, yaw):
    # (angles inside (-pi, pi) and pitch inside (-pi/2, pi/2): the range the conversion returns)
    matrix = rpy_to_matrix([roll, pitch, yaw])
    np.testing.assert_allclose(matrix, rot_z(yaw) @ rot_y(pitch) @ rot_x(roll), atol=1e-15)
    np.testing.assert_allclose(matrix_to_rpy(matrix), [roll, pitch, yaw], atol=1e-12)


def test_rpy_identity_is_exact_and_gimbal_lock_still_gives_the_matrix():
    assert matrix_to_rpy(np.eye(3)).tolist() == [0.0, 0.0, 0.0]
    assert rpy_to_matrix([0, 0, 0]).tolist() == np.eye(3).tolist()
    locked = rot_z(0.3) @ rot_y(math.pi / 2) @ rot_x(0.2)
    np.testing.assert_allclose(rpy_to_matrix(matrix_to_rpy(locked)), locked, atol=1e-15)


# -- Rodrigues -------------------------------------------------------------------------------


@given(angles)
def test_rotation_about_the_coordinate_axes(t):
    np.testing.assert_allclose(rotation_about_axis((1, 0, 0), t), rot_x(t), atol=1e-15)
    np.testing.assert_allclose(rotation_about_axis((0, 1, 0), t), rot_y(t), atol=1e-15)
    np.testing.assert_allclose(rotation_about_axis((0, 0, 1), t), rot_z(t), atol=1e-15)
    axis = np.array([1.0, 2.0, 2.0]) / 3.0
    matrix = rotation_about_axis(axis, t)
    np.testing.assert_allclose(matrix @ axis, axis, atol=1e-15)
    assert np.trace(matrix) == pytest.approx(1 + 2 * math.cos(t), abs=1e-14)


# -- the policy for rotation matrices --------------------------------------------------------


def test_an_orthonormal_matrix_is_used_bit_for_bit():
    turn = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    np.testing.assert_array_equal(as_rotation(turn), turn)
    # Rz Rx from Pythagorean triples (7, 24, 25), (20, 21, 29): each entry one IEEE division or
    # product, so the same bits on every CPU (no BLAS, no libm). Exactly (fractions), its
    # R R^T - 1 is within 0.63 u on the diagonal and 0.41 u off it; any BLAS computes each
    # entry of R R^T to gamma_3 sum|r_ik r_jk| <= 3.01 u (rows of unit norm), so the code sees
    # at most 3.7 u < EXACT_TOLERANCE = 4 u: orthonormal to rounding on every machine.
    c1, s1, c2, s2 = 7 / 25, 24 / 25, 20 / 29, 21 / 29
    computed = np.array([[c1, -s1 * c2, s1 * s2], [s1, c1 * c2, -c1 * s2], [0.0, s2, c2]])
    exact = [[sum(Fraction(computed[i, k]) * Fraction(computed[j, k]) for k in range(3)) - (i == j)
              for j in range(3)] for i in range(3)]  # fmt: skip
    assert max(abs(exact[i][i]) for i in range(3)) <= Fraction(63, 100) * Fraction(U)
    assert max(abs(exact[i][j]) for i in range(3) for j in range(3) if i != j) <= 0.41 * U
    np.testing.assert_array_equal(as_rotation(computed), computed)


#: Unit roundoff u (2^-53) and machine epsilon (2u: LAPACK's "precision", its ulp).
U = np.finfo(np.float64).eps / 2
ULP = np.finfo(np.float64).eps

#: What any conforming LAPACK guarantees of the singular vectors of a 3x3 matrix: its own SVD
#: driver tests (``TESTING/svd.in``, threshold 35; ``ddrvbd``: ``|I - U^T U|_1 / (n ulp)``)
#: pass only when ``|I - U^T U|_1 <= 35 n ulp``, here 105 ulp = 2.3e-14, a bound on every entry
#: of ``U^T U - I`` and, U being square, of ``U U^T - I`` (the same eigenvalues). A CPU or a
#: BLAS chooses where in that range its bits land (6.7e-16 to 7.8e-16 seen on an AMD EPYC).
LAPACK_ORTHOGONALITY = 35 * 3 * ULP

#: ``F = fl(U V^T)``: ``F F^T - 1 = U (V^T V - 1) U^T + (U U^T - 1)`` plus the rounding of the
#: product (``|fl(U V^T) - U V^T| <= gamma_3 |U| |V^T|``, ``|U| |V^T| <= 3`` per entry, which
#: enters twice) and of the test's own ``F F^T`` (gamma_3 times 3 per entry): with gamma_3 <=
#: 3.01 u every entry of ``F F^T - 1`` is within 2 LAPACK_ORTHOGONALITY (1 +
#: LAPACK_ORTHOGONALITY) + 28 u (27.1 u rounded up), 4.8e-14 in all.
SVD_ORTHONORMAL = 2 * LAPACK_ORTHOGONALITY * (1 + LAPACK_ORTHOGONALITY) + 28 * U


def test_within_the_tolerance_a_matrix_is_re_orthonormalised():
    nine_digits = np.round(rot_z(0.7) @ rot_x(-1.2), 9)
    assert np.max(np.abs(nine_digits @ nine_digits.T - np.eye(3))) > 1e-12
    fixed = as_rotation(nine_digits)  # replaced by the nearest rotation, U V^T of its SVD
    deviation = np.max(np.abs(fixed @ fixed.T - np.eye(3)))
    assert deviation <= SVD_ORTHONORMAL  # derived above: the bits themselves are LAPACK's
    # F F^T's eigenvalues lie within 3 deviation of 1 (Gershgorin: 3 entries a row), so
    # |det F - 1| = |s1 s2 s3 - 1| <= (1 + 3 deviation)^(3/2) - 1 <= 4.6 deviation; LAPACK's LU
    # (partial pivoting, growth <= 4 at n = 3) adds at most 3 gamma_3 * 4 <= 37 u
    assert abs(np.linalg.det(fixed) - 1.0) <= 4.6 * deviation + 37 * U
    # the nearest rotation Q to M is nearer to M than the rotation R that M rounds to 9 digits
    # (each entry within 5e-10): |Q - M|_max <= |Q - M|_F <= |R - M|_F <= 3 * 5e-10
    np.testing.assert_allclose(fixed, nine_digits, rtol=0, atol=1.5e-9 + SVD_ORTHONORMAL)
    # a second pass: kept bit for bit when orthonormal to rounding (EXACT_TOLERANCE), else
    # replaced by its polar factor, within |F F^T - 1|_2 <= 3 deviation of it, rounded as above
    again = as_rotation(fixed)
    np.testing.assert_allclose(again, fixed, rtol=0, atol=3 * deviation + SVD_ORTHONORMAL)
    if deviation <= EXACT_TOLERANCE:
        np.testing.assert_array_equal(again, fixed)
    # the conversions follow the same policy: F through a unit quaternion (scipy: from the
    # entries, then back, each entry within 8 u) is the rotation nearest F (within 3 deviation)
    round_trip = quaternion_to_matrix(matrix_to_quaternion(nine_digits))
    np.testing.assert_allclose(round_trip, fixed, rtol=0, atol=3 * deviation + 16 * U)


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (np.diag([1.0, 1.0, 1.0 + 10 * ORTHONORMAL_TOLERANCE]), "must be orthonormal"),
        (np.ones((3, 3)), "must be orthonormal"),
        (np.diag([1.0, 1.0, -1.0]), "must be a proper rotation"),
        (np.eye(2), "3x3"),
        ([[1, 0, 0], [0, 1, 0], [0, 0, math.nan]], "finite"),
        ("x", "3x3"),
    ],
)
def test_non_rotations_are_a_parameter_error_naming_the_parameter(value, words):
    for convert in (as_rotation, matrix_to_quaternion, matrix_to_rpy):
        with pytest.raises(rp.ParameterError, match=r"^joint_rotation=") as info:
            convert(value, "joint_rotation")
        assert words in str(info.value)
        assert info.value.parameter == "joint_rotation"


def test_just_inside_and_just_outside_the_tolerance():
    inside = np.diag([1.0, 1.0, 1.0 + 0.4 * ORTHONORMAL_TOLERANCE])
    np.testing.assert_allclose(as_rotation(inside), np.eye(3), atol=1e-15)
    outside = np.diag([1.0, 1.0, 1.0 + 0.6 * ORTHONORMAL_TOLERANCE])  # R R^T - 1 = 1.2e-9
    with pytest.raises(rp.ParameterError, match="orthonormal"):
        as_rotation(outside)


def test_a_scipy_rotation_and_stacks_are_accepted():
    from scipy.spatial.transform import Rotation

    turn = Rotation.from_euler("z", 0.4)
    np.testing.assert_allclose(as_rotation(turn), rot_z(0.4), atol=1e-15)
    stack = np.array([rot_x(0.1), np.round(rot_y(0.2), 9)])
    fixed = as_rotation(stack)
    # rot_x(0.1) is kept bit for bit when the code finds R R^T - 1 within EXACT_TOLERANCE, a
    # verdict that hangs on libm's cos and sin and on the BLAS's rounding: the policy is what
    # is tested (otherwise its polar factor, within 3 deviation + SVD_ORTHONORMAL of it)
    deviation = np.max(np.abs(stack[0] @ stack[0].T - np.eye(3)))
    if deviation <= EXACT_TOLERANCE:
        np.testing.assert_array_equal(fixed[0], stack[0])
    np.testing.assert_allclose(fixed[0], stack[0], rtol=0, atol=3 * deviation + SVD_ORTHONORMAL)
    assert np.max(np.abs(fixed[1] @ fixed[1].T - np.eye(3))) <= SVD_ORTHONORMAL  # see above
    bad = np.array([np.eye(3), np.diag([1.0, 1.0, -1.0])])
    with pytest.raises(rp.ParameterError, match="proper rotation"):
        as_rotation(bad)
