"""Rigid transforms and rotation conversions, written once for the whole package.

Notation (Drake's monogram style, as in :mod:`rigidparts.inertia`): a pose is the pair
``X_AB = (R_AB, p_AoBo_A)``: the orientation of frame B in frame A (an ndarray (3, 3) whose
columns are B's axes in A) and the position of B's origin in A (an ndarray (3,), m). Poses
compose as ``X_AC = X_AB X_BC`` (:func:`compose`) and invert as ``X_BA = X_AB^-1``
(:func:`invert`).

Conversions (scipy's :class:`~scipy.spatial.transform.Rotation` underneath):

- quaternions are ``(w, x, y, z)`` (scalar first, MuJoCo's order); :func:`matrix_to_quaternion`
  returns the one with ``w >= 0``; :func:`quaternion_to_matrix` normalises any non-zero one;
- roll, pitch, yaw are the URDF / SDFormat convention ``R = Rz(yaw) Ry(pitch) Rx(roll)``
  (rotations about the fixed x, y, z axes in that order), rad; :func:`matrix_to_rpy` reads
  them from the matrix entries directly (not through scipy), so that they rebuild the matrix
  to rounding even within 1e-9 rad of gimbal lock;
- :func:`rotation_about_axis` is Rodrigues' formula for a unit axis.

Both conversions accept one value or a stack (``(..., 4)``, ``(..., 3, 3)``). The identity
converts exactly (quaternion ``(1, 0, 0, 0)``, angles ``(0, 0, 0)``).

The one policy for rotation-matrix input (:func:`as_rotation`, applied by every function here
that takes a matrix): a finite 3x3 matrix whose ``R R^T`` differs from the identity by at most
:data:`ORTHONORMAL_TOLERANCE` (1e-9) in every entry and whose determinant is positive is
accepted. If it is orthonormal to rounding (every entry of ``R R^T - 1`` within
:data:`EXACT_TOLERANCE`, two ulp of 1) it is used as given, bit for bit; otherwise it is
replaced by the nearest rotation (``U V^T`` of its singular value decomposition), so that a
matrix typed with nine digits composes cleanly. Anything else is a
:class:`~rigidparts.ParameterError` naming the parameter.

This module imports only numpy, scipy (inside the conversions, so importing it costs nothing)
and :mod:`rigidparts.errors`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .errors import ParameterError

__all__ = [
    "EXACT_TOLERANCE",
    "IDENTITY",
    "ORTHONORMAL_TOLERANCE",
    "ZERO_QUATERNION",
    "Transform",
    "as_rotation",
    "compose",
    "invert",
    "matrix_to_quaternion",
    "matrix_to_rpy",
    "quaternion_to_matrix",
    "rotation_about_axis",
    "rpy_to_matrix",
]

#: A pose ``X_AB = (R_AB (3, 3), p_AoBo_A (3,))``.
Transform = tuple[np.ndarray, np.ndarray]

#: Largest ``|R R^T - 1|`` entry of an accepted rotation matrix.
ORTHONORMAL_TOLERANCE = 1e-9

#: Largest ``|R R^T - 1|`` entry of a matrix used as given (below it: rounding only).
EXACT_TOLERANCE = 2 * np.finfo(np.float64).eps

#: Below this norm a quaternion is taken for zero (any larger one is normalised).
ZERO_QUATERNION = 1e-12


def _readonly(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


#: The identity pose (read-only arrays).
IDENTITY: Transform = (_readonly(np.eye(3)), _readonly(np.zeros(3)))


def compose(x_ab: Transform, x_bc: Transform) -> Transform:
    """``X_AC = X_AB X_BC = (R_AB R_BC, R_AB p_BoCo_B + p_AoBo_A)``."""
    return x_ab[0] @ x_bc[0], x_ab[0] @ x_bc[1] + x_ab[1]


def invert(x_ab: Transform) -> Transform:
    """``X_BA = X_AB^-1 = (R_AB^T, -R_AB^T p_AoBo_A)``."""
    return x_ab[0].T, -(x_ab[0].T @ x_ab[1])


def as_rotation(value: Any, parameter: str = "rotation") -> np.ndarray:
    """``value`` (a 3x3 matrix of rows, a stack ``(..., 3, 3)`` of them, or a scipy
    ``Rotation``) as a float64 rotation matrix under the module's policy: used as given when
    orthonormal to rounding, re-orthonormalised within :data:`ORTHONORMAL_TOLERANCE`, else a
    :class:`ParameterError` naming ``parameter``. Returns a new ndarray of ``value``'s shape."""
    if hasattr(value, "as_matrix"):
        value = value.as_matrix()
    try:
        matrix = np.array(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ParameterError(parameter, value, "must be a 3x3 rotation matrix (rows)") from None
    if matrix.ndim < 2 or matrix.shape[-2:] != (3, 3) or not np.all(np.isfinite(matrix)):
        raise ParameterError(parameter, value, "must be a finite 3x3 rotation matrix (rows)")
    deviation = np.abs(matrix @ np.swapaxes(matrix, -1, -2) - np.eye(3)).max(axis=(-2, -1))
    if np.any(deviation > ORTHONORMAL_TOLERANCE):
        raise ParameterError(
            parameter, value, f"must be orthonormal (R R^T = 1 within {ORTHONORMAL_TOLERANCE:g})"
        )
    if np.any(np.linalg.det(matrix) < 0):
        raise ParameterError(parameter, value, "must be a proper rotation (determinant +1)")
    inexact = deviation > EXACT_TOLERANCE
    if matrix.ndim == 2 and inexact:
        u, _, vt = np.linalg.svd(matrix)
        matrix = u @ vt
    elif matrix.ndim > 2 and np.any(inexact):
        u, _, vt = np.linalg.svd(matrix[inexact])
        matrix[inexact] = u @ vt
    return matrix


def _rotation_class() -> Any:
    from scipy.spatial.transform import Rotation

    return Rotation


def quaternion_to_matrix(quaternion: Any, parameter: str = "quaternion") -> np.ndarray:
    """The rotation matrix ``(3, 3)`` (or ``(..., 3, 3)``) of the quaternion
    ``(qw, qx, qy, qz)`` (or ``(..., 4)``), normalised first; a zero or non-finite one is a
    :class:`ParameterError` naming ``parameter``."""
    quat = np.asarray(quaternion, dtype=np.float64)
    if quat.shape[-1:] != (4,) or not np.all(np.isfinite(quat)):
        raise ParameterError(parameter, quaternion, "must be finite [qw, qx, qy, qz]")
    if np.any(np.linalg.norm(quat, axis=-1) <= ZERO_QUATERNION):
        raise ParameterError(parameter, quaternion, "the quaternion must not be zero")
    flat = _rotation_class().from_quat(quat.reshape(-1, 4), scalar_first=True).as_matrix()
    return flat.reshape(*quat.shape[:-1], 3, 3)


def matrix_to_quaternion(matrix: Any, parameter: str = "rotation") -> np.ndarray:
    """The unit quaternion ``(qw, qx, qy, qz)`` with ``qw >= 0`` of a rotation matrix (or
    ``(..., 4)`` of a stack), under the module's matrix policy; exactly ``(1, 0, 0, 0)`` for
    the identity."""
    rotation = as_rotation(matrix, parameter)
    if rotation.ndim == 2 and np.array_equal(rotation, np.eye(3)):
        return np.array([1.0, 0.0, 0.0, 0.0])
    flat = _rotation_class().from_matrix(rotation.reshape(-1, 3, 3)).as_quat(scalar_first=True)
    flat[flat[:, 0] < 0] *= -1.0
    return flat.reshape(*rotation.shape[:-2], 4)


def rpy_to_matrix(angles: Any) -> np.ndarray:
    """``R = Rz(yaw) Ry(pitch) Rx(roll)`` for ``angles = (roll, pitch, yaw)``, rad (finite
    floats: parse units first)."""
    return _rotation_class().from_euler("xyz", np.asarray(angles, dtype=np.float64)).as_matrix()


def matrix_to_rpy(matrix: Any, parameter: str = "rotation") -> np.ndarray:
    """``(roll, pitch, yaw)``, rad, with ``R = Rz(yaw) Ry(pitch) Rx(roll)``, under the module's
    matrix policy (``(..., 3)`` for a stack); exactly zero for the identity. Ranges: pitch in
    [-pi/2, pi/2], roll and yaw in [-pi, pi].

    The angles rebuild ``R`` to rounding at every pitch, gimbal lock included. With
    ``R = [r_ij]``: ``cos(pitch) = hypot(r00, r10)`` and ``sin(pitch) = -r20``, so
    ``pitch = atan2(-r20, hypot(r00, r10))`` is accurate to rounding even where the cosine is
    tiny (an arcsine of ``-r20`` would not be); ``yaw = atan2(r10, r00)``; and roll comes from
    row 1 of ``Rz(yaw)^T R = Ry(pitch) Rx(roll)``, which is ``(0, cos roll, -sin roll)``:
    ``roll = atan2(sy r02 - cy r12, cy r11 - sy r01)`` from entries that stay of order one.
    Near pitch +-90 degrees yaw alone is ill-determined (its entries are of order
    ``cos(pitch)``), but roll is computed *from* that yaw, so the well-determined combination
    (roll - yaw at +90, roll + yaw at -90) is exact and ``R`` is rebuilt to ~1e-16. (Roll and
    yaw taken each from its own small entries, ``atan2(r21, r22)`` and ``atan2(r10, r00)``,
    would lose up to ``eps / cos(pitch)`` in that combination; scipy's ``as_euler``, used before,
    rebuilt ``R`` only to about 2e-7 within 1e-7 rad of the singularity.) At the singularity
    itself (``r00 = r10 = 0``) yaw is 0 and roll carries the whole rotation about z.
    """
    rotation = as_rotation(matrix, parameter)
    if rotation.ndim == 2 and np.array_equal(rotation, np.eye(3)):
        return np.zeros(3)
    r = rotation + 0.0  # + 0.0: no -0.0 entries (atan2(0, -0) would be pi)
    r00, r01, r02 = r[..., 0, 0], r[..., 0, 1], r[..., 0, 2]
    r10, r11, r12 = r[..., 1, 0], r[..., 1, 1], r[..., 1, 2]
    r20 = r[..., 2, 0]
    pitch = np.arctan2(-r20, np.hypot(r00, r10))
    yaw = np.arctan2(r10, r00)
    sy, cy = np.sin(yaw), np.cos(yaw)
    roll = np.arctan2(sy * r02 - cy * r12, cy * r11 - sy * r01)
    return np.stack([roll, pitch, yaw], axis=-1) + 0.0


def rotation_about_axis(axis: Any, angle: float) -> np.ndarray:
    """Rodrigues' formula ``R = 1 + sin(q) [a]x + (1 - cos(q)) [a]x^2``: the rotation by
    ``angle`` (rad, right-handed) about the *unit* vector ``axis``."""
    ax, ay, az = axis
    skew = np.array([[0.0, -az, ay], [az, 0.0, -ax], [-ay, ax, 0.0]])
    return np.eye(3) + math.sin(angle) * skew + (1.0 - math.cos(angle)) * (skew @ skew)
