"""Roll-pitch-yaw near gimbal lock: the angles written to URDF joint origins and SDFormat poses
rebuild every rotation to rounding, including within 1e-9 .. 1e-5 rad of pitch +-90 degrees,
where scipy's ``as_euler`` (used before) lost up to 2e-7.

The rebuild is written here from the URDF / SDFormat definition, ``R = Rz(yaw) Ry(pitch)
Rx(roll)`` with explicit matrices, independently of the library.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import rigidparts as rp
from rigidparts.export.sdf import to_sdf
from rigidparts.export.urdf import to_urdf
from rigidparts.model import Model
from rigidparts.transforms import matrix_to_rpy


def rot_x(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def rot_y(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


def rot_z(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def rebuild(roll: float, pitch: float, yaw: float) -> np.ndarray:
    """URDF's and SDFormat's convention: fixed axes x, y, z in that order."""
    return rot_z(yaw) @ rot_y(pitch) @ rot_x(roll)


def band(count: int = 120, seed: int = 12) -> list[np.ndarray]:
    """Rotations with pitch +-(90 deg - d), d from 1e-9 to 1e-5 rad (log-spaced), random roll
    and yaw."""
    rng = np.random.default_rng(seed)
    rotations = []
    for d in np.geomspace(1e-9, 1e-5, count):
        for sign in (1.0, -1.0):
            roll, yaw = rng.uniform(-math.pi, math.pi, 2)
            rotations.append(rebuild(roll, sign * (math.pi / 2 - d), yaw))
    return rotations


def numbers(text: str) -> list[float]:
    return [float(x) for x in text.split()]


def rebuild_error(rotation: np.ndarray, angles) -> float:
    return float(np.abs(rebuild(*angles) - rotation).max())


def test_the_written_angles_rebuild_the_rotation_in_the_singular_band():
    worst = max(rebuild_error(r, matrix_to_rpy(r)) for r in band())
    assert worst <= 2e-15


def test_stacks_convert_like_single_matrices():
    rotations = np.array(band(count=10))
    stacked = matrix_to_rpy(rotations)
    assert stacked.shape == (len(rotations), 3)
    for rotation, angles in zip(rotations, stacked, strict=True):
        assert angles.tolist() == matrix_to_rpy(rotation).tolist()
    assert matrix_to_rpy(rotations.reshape(4, 5, 3, 3)).shape == (4, 5, 3)


def one_body(rotation: np.ndarray) -> Model:
    """A box hinged to the world at a joint frame turned by ``rotation``."""
    model = Model("turned")
    model.add_body("bar", rp.Box(length=0.3, width=0.02, height=0.03))
    model.add_joint("hinge", "revolute", "world", "bar", axis=(0, 1, 0), position=(0.1, 0, 1),
                    rotation=rotation)  # fmt: skip
    return model


def test_urdf_joint_origins_and_sdf_poses_rebuild_the_rotation_in_the_singular_band():
    worst_urdf = worst_sdf = 0.0
    for rotation in band():
        model = one_body(rotation)
        r_pj = model.joint_frame_in_parent_body(model.joints["hinge"])[0]  # as the model holds it
        assert np.abs(r_pj - rotation).max() <= 1e-15
        urdf = ET.fromstring(to_urdf(model))
        origin = next(j for j in urdf.iter("joint") if j.get("name") == "hinge").find("origin")
        worst_urdf = max(worst_urdf, rebuild_error(r_pj, numbers(origin.get("rpy"))))
        sdf = ET.fromstring(to_sdf(model))
        link = next(link for link in sdf.iter("link") if link.get("name") == "bar")
        r_wa = model.body_poses(model.zero_positions())["bar"][0]
        worst_sdf = max(worst_sdf, rebuild_error(r_wa, numbers(link.find("pose").text)[3:]))
    assert worst_urdf <= 1e-13 and worst_sdf <= 1e-13


def test_at_the_singularity_and_on_the_axes():
    exact = [
        np.array([[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]]),  # pitch +90 exactly
        np.array([[0.0, 0.0, -1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]),  # pitch -90 exactly
        np.array([[0.0, -1.0, 0.0], [0.0, 0.0, -1.0], [1.0, 0.0, 0.0]]),  # -90 with a twist
        np.diag([1.0, -1.0, -1.0]),  # half turns about x, y, z
        np.diag([-1.0, 1.0, -1.0]),
        np.diag([-1.0, -1.0, 1.0]),
    ]
    for rotation in exact:
        angles = matrix_to_rpy(rotation)
        assert rebuild_error(rotation, angles) <= 4e-16, rotation
        assert abs(angles[1]) <= math.pi / 2 and np.all(np.abs(angles) <= math.pi)
    assert matrix_to_rpy(np.eye(3)).tolist() == [0.0, 0.0, 0.0]
    roll, pitch, yaw = matrix_to_rpy(exact[2])
    assert pitch == -math.pi / 2 and yaw == 0.0  # the whole turn about z is in the roll
    assert roll == pytest.approx(math.pi / 2, abs=1e-15)


@pytest.mark.parametrize("seed", range(4))
def test_round_trips_away_from_the_band(seed):
    """Angles inside the ranges come back as given; any rotation is rebuilt to rounding."""
    rng = np.random.default_rng(seed)
    for _ in range(500):
        roll, yaw = rng.uniform(-math.pi, math.pi, 2)
        pitch = rng.uniform(-1, 1) * (math.pi / 2 - 1e-3)
        rotation = rebuild(roll, pitch, yaw)
        angles = matrix_to_rpy(rotation)
        np.testing.assert_allclose(angles, [roll, pitch, yaw], rtol=0, atol=1e-12)
        assert rebuild_error(rotation, angles) <= 2e-15
    # uniformly random rotations (the axes of a random matrix's QR)
    for _ in range(500):
        q, r = np.linalg.qr(rng.normal(size=(3, 3)))
        q = q @ np.diag(np.sign(np.diag(r)))
        q *= np.linalg.det(q)  # a proper rotation
        assert rebuild_error(q, matrix_to_rpy(q)) <= 2e-15
