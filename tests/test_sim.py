"""Simulation on MuJoCo checked against physics written out here from textbooks:

- compound pendulums (hinged at frame_a and at an extra frame): T = 2 pi sqrt(I_pivot/(m g d))
  with the textbook box inertia, to 1e-4 (the box is fat enough that swapping its width and
  height would miss by more);
- a free, axisymmetric solid cone in zero gravity: constant angular momentum and the Euler
  precession of the body-frame angular velocity at (I3 - I1)/I1 * w3 (textbook cone moments);
- a double pendulum (box + cone): the textbook Lagrangian energy conserved to RK4's error,
  which shrinks like dt^4.

Runs are short (a few thousand steps each).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

import rigidparts as rp
from rigidparts.commands import main
from rigidparts.model import Model, load_model

mujoco = pytest.importorskip("mujoco")

from rigidparts.sim import SimulationResult, estimate_period, simulate  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
G = 9.81


def zero_crossing_period(time: np.ndarray, angle: np.ndarray) -> float:
    """Mean period from downward zero crossings (linear interpolation between samples)."""
    s = angle
    idx = np.nonzero((s[:-1] > 0) & (s[1:] <= 0))[0]
    t = time[idx] - s[idx] * (time[idx + 1] - time[idx]) / (s[idx + 1] - s[idx])
    assert len(t) >= 2
    return float(np.mean(np.diff(t)))


# -- compound pendulum ---------------------------------------------------------------------


@pytest.mark.parametrize("pivot_offset", [0.0, 0.15])
def test_compound_pendulum_period(pivot_offset):
    length, width, height, density = 0.8, 0.03, 0.12, 2700.0
    model = Model("pendulum")
    extra = [pivot_offset] if pivot_offset else []
    model.add_body(
        "bar",
        rp.Box(length=length, width=width, height=height, axis=(0, 0, -1), density=density,
               extra_frames=extra),
    )  # fmt: skip
    child = "bar.frame_c1" if pivot_offset else "bar.frame_a"
    model.add_joint("hinge", "revolute", "world", child, axis=(0, 1, 0), position=(0, 0, 2),
                    initial=0.001)  # fmt: skip

    # Textbook: the bar hangs along -z; its height lies along x (the axis rule), so swinging
    # about y it turns in the x-z plane: I_cm = m (L^2 + H^2) / 12; pivot d from the centre.
    mass = density * length * width * height
    d = length / 2 - pivot_offset
    i_pivot = mass * (length**2 + height**2) / 12 + mass * d**2
    expected = 2 * math.pi * math.sqrt(i_pivot / (mass * G * d))
    expected *= 1 + 0.001**2 / 16  # finite amplitude (negligible at 1 mrad)

    result = simulate(model, duration=3.2 * expected, timestep=1e-3, integrator="RK4")
    measured = zero_crossing_period(result.time, result.joint_positions["hinge"])
    assert abs(measured - expected) / expected <= 1e-4
    swapped = i_pivot + mass * (width**2 - height**2) / 12  # a width/height mix-up
    assert abs(2 * math.pi * math.sqrt(swapped / (mass * G * d)) - expected) / expected > 1e-3
    # the summary's own estimate and theory agree too
    assert estimate_period(result.time, result.joint_positions["hinge"]) == pytest.approx(
        measured, rel=1e-6
    )
    assert "compound pendulum 'hinge'" in result.summary(model)


def test_pendulum_example_runs_from_the_command_line(tmp_path, capsys):
    out = tmp_path / "trajectory.csv"
    status = main(
        ["simulate", str(EXAMPLES / "pendulum.toml"), "--duration", "2.5", "-o", str(out)]
    )
    assert status == 0
    printed = capsys.readouterr().out
    assert "compound pendulum 'hinge'" in printed and f"wrote {out}" in printed
    header = out.read_text(encoding="utf-8").splitlines()[0].split(",")
    assert header == [
        "time", "hinge", "hinge.velocity",
        "arm.x", "arm.y", "arm.z", "arm.qw", "arm.qx", "arm.qy", "arm.qz",
        "bob.x", "bob.y", "bob.z", "bob.qw", "bob.qx", "bob.qy", "bob.qz",
    ]  # fmt: skip
    table = np.loadtxt(out, delimiter=",", skiprows=1)
    assert table.shape == (2501, 17)
    assert table[0, 1] == pytest.approx(math.radians(5), rel=1e-15)
    # the bob hangs 1 m below the hinge: its frame_a swings on that circle
    theta = table[:, 1]
    np.testing.assert_allclose(table[:, 10], -np.sin(theta), atol=1e-12)
    np.testing.assert_allclose(table[:, 12], 1.5 - np.cos(theta), atol=1e-12)
    # and turns with the hinge about y: R_WA = Ry(theta) Rbob_0, as a quaternion (the bob is
    # welded with its axis along -z, frame_a's orientation the world's: q = (cos t/2, 0,
    # sin t/2, 0), w >= 0 at these small angles)
    for body in ("arm", "bob"):
        q = table[:, header.index(f"{body}.qw") : header.index(f"{body}.qz") + 1]
        expected = np.stack(
            [np.cos(theta / 2), np.zeros_like(theta), np.sin(theta / 2), np.zeros_like(theta)], 1
        )
        np.testing.assert_allclose(q, expected, atol=1e-12)
    assert main(["simulate", str(EXAMPLES / "pendulum.toml"), "--duration", "0.1", "-q"]) == 0
    assert capsys.readouterr().out == ""


# -- free body -------------------------------------------------------------------------------


def test_free_cone_conserves_angular_momentum_and_precesses_per_euler():
    radius, height, density = 0.1, 0.3, 1000.0
    model = Model("tumbler", gravity=(0, 0, 0))
    model.add_body("cone", rp.Cone(length=height, radius_a=radius, radius_b=0.0, axis=(0, 0, 1),
                                   density=density))  # fmt: skip
    w_perp, w3 = 0.5, 10.0
    model.add_joint("float", "free", "world", "cone.frame_com",
                    initial_velocity=[0.1, 0, 0, w_perp, 0, w3])  # fmt: skip
    result = simulate(model, duration=2.0, timestep=1e-3, integrator="RK4")

    # Textbook solid cone about its centre of mass: I3 = 3/10 m r^2, I1 = 3/20 m r^2 + 3/80 m h^2
    mass = density * math.pi * radius**2 * height / 3
    i1 = mass * (3 * radius**2 / 20 + 3 * height**2 / 80)
    i3 = 3 * mass * radius**2 / 10
    inertia = np.diag([i1, i1, i3])

    omega = result.joint_velocities["float"][:, 3:]  # in the child frame (the cone's axes)
    quat = result.joint_positions["float"][:, 3:]
    from scipy.spatial.transform import Rotation

    r_wc = Rotation.from_quat(quat, scalar_first=True).as_matrix()
    momentum = np.einsum("tij,jk,tk->ti", r_wc, inertia, omega)
    drift = np.max(np.linalg.norm(momentum - momentum[0], axis=1)) / np.linalg.norm(momentum[0])
    assert drift <= 1e-8
    # Euler's equations: (w1, w2) turns at (I3 - I1)/I1 w3 in the body frame; w3 stays
    rate = (i3 - i1) / i1 * w3
    phase = np.unwrap(np.arctan2(omega[:, 1], omega[:, 0]))
    slope = np.polyfit(result.time, phase, 1)[0]
    assert slope == pytest.approx(rate, rel=1e-6)
    np.testing.assert_allclose(omega[:, 2], w3, rtol=1e-9)
    np.testing.assert_allclose(np.hypot(omega[:, 0], omega[:, 1]), w_perp, rtol=1e-8)
    # the centre of mass drifts at its initial velocity
    np.testing.assert_allclose(result.joint_positions["float"][:, 0], 0.1 * result.time, atol=1e-12)
    # and the inertia shows: a cone with swapped moments would precess the other way round
    assert rate < 0 and (i1 - i3) / i3 * w3 > 0


# -- double pendulum -------------------------------------------------------------------------


def double_pendulum(length=0.5, width=0.02, height=0.04, radius=0.06, cone_height=0.3):
    model = Model("double")
    model.add_body("upper", rp.Box(length=length, width=width, height=height, axis=(0, 0, -1),
                                   density=7800.0))  # fmt: skip
    model.add_body("lower", rp.Cone(length=cone_height, radius_a=radius, radius_b=0.0,
                                    axis=(0, 0, -1), density=8500.0))  # fmt: skip
    model.add_joint("shoulder", "revolute", "world", "upper", axis=(0, 1, 0), position=(0, 0, 1),
                    initial=1.2)  # fmt: skip
    model.add_joint("elbow", "revolute", "upper.frame_b", "lower", axis=(0, 1, 0), initial=-0.7,
                    initial_velocity=2.0)  # fmt: skip
    return model


def textbook_energy(result, length=0.5, width=0.02, height=0.04, radius=0.06, cone_height=0.3):
    """Kinetic + potential energy of the planar box-and-cone double pendulum (Lagrangian
    mechanics by hand): angles about +y, each body hanging along -z at angle zero."""
    m1 = 7800.0 * length * width * height
    i1 = m1 * (length**2 + height**2) / 12  # about y: the height lies along x
    m2 = 8500.0 * math.pi * radius**2 * cone_height / 3
    d2 = cone_height / 4  # a solid cone's centre of mass, from its base
    i2 = m2 * (3 * radius**2 / 20 + 3 * cone_height**2 / 80)
    a = result.joint_positions["shoulder"]
    b = a + result.joint_positions["elbow"]
    da = result.joint_velocities["shoulder"]
    db = da + result.joint_velocities["elbow"]

    def direction(angle):  # R_y(angle) (0, 0, -1)
        return np.stack([-np.sin(angle), np.zeros_like(angle), -np.cos(angle)], axis=1)

    def tangent(angle):  # d/d angle of direction
        return np.stack([-np.cos(angle), np.zeros_like(angle), np.sin(angle)], axis=1)

    v1 = (length / 2) * tangent(a) * da[:, None]
    v2 = length * tangent(a) * da[:, None] + d2 * tangent(b) * db[:, None]
    z1 = 1 + (length / 2) * direction(a)[:, 2]
    z2 = 1 + length * direction(a)[:, 2] + d2 * direction(b)[:, 2]
    kinetic = 0.5 * (m1 * np.sum(v1**2, 1) + i1 * da**2 + m2 * np.sum(v2**2, 1) + i2 * db**2)
    return kinetic + G * (m1 * z1 + m2 * z2), kinetic


def test_double_pendulum_conserves_energy_to_rk4_error():
    errors = []
    for dt in (2e-3, 1e-3):
        result = simulate(double_pendulum(), duration=2.0, timestep=dt, integrator="RK4")
        energy, kinetic = textbook_energy(result)
        errors.append(np.max(np.abs(energy - energy[0])) / np.max(kinetic))
        # MuJoCo's own energy is the same function of the state
        np.testing.assert_allclose(result.energy, energy, rtol=0, atol=1e-9 * np.max(kinetic))
    assert errors[1] <= 1e-7
    assert errors[0] / errors[1] > 8  # RK4: the error falls like dt^4 (16x per halving)


def test_other_integrators_run_and_damping_drains_energy():
    model = double_pendulum()
    for integrator in ("Euler", "implicit", "implicitfast"):
        result = simulate(model, duration=0.2, timestep=1e-3, integrator=integrator)
        assert result.integrator == integrator and np.all(np.isfinite(result.energy))
    damped = load_model(EXAMPLES / "serial_arm.toml")
    result = simulate(damped, duration=1.0, timestep=1e-3)
    assert result.energy[-1] < result.energy[0]


# -- the result ------------------------------------------------------------------------------


def ball_and_free() -> Model:
    model = Model("mixed", gravity=(0, -3, -9.81))
    model.add_body("hull", rp.Cone(length=0.5, radius_a=0.1, radius_b=0.05, axis=(0, 0, 1)))
    model.add_body("mast", rp.Box(length=0.3, width=0.02, height=0.03, axis=(1, 0, 1)))
    model.add_body("flag", rp.Box(length=0.1, width=0.01, height=0.05, axis=(0, 1, 0)))
    model.add_joint("float", "free", "world", "hull.frame_com", position=(0, 0, 1),
                    initial=[0.1, 0.2, 0.3, 0.9, 0.1, 0.3, 0.2],
                    initial_velocity=[0.3, 0, 1, 1, -2, 3])  # fmt: skip
    model.add_joint("socket", "ball", "hull.frame_b", "mast.frame_com", initial=[1, 0.2, 0, 0.1],
                    initial_velocity=[1, 2, 3])  # fmt: skip
    model.add_joint("pin", "revolute", "mast.frame_b", "flag.frame_b", axis=(1, 0, 0),
                    limits=(-1, 1), damping=0.01)  # fmt: skip
    return model


def test_result_arrays_columns_and_kinematics_agree():
    model = ball_and_free()
    result = simulate(model, duration=0.5, timestep=1e-3, record_every=50, contacts=False)
    assert isinstance(result, SimulationResult)
    assert result.time.shape == (11,) and result.time[-1] == pytest.approx(0.5)
    assert result.joint_positions["float"].shape == (11, 7)
    assert result.joint_velocities["socket"].shape == (11, 3)
    assert result.joint_positions["pin"].shape == (11,)
    assert result.body_rotations["mast"].shape == (11, 3, 3)
    assert result.columns() == [
        "time",
        *[f"float.{s}" for s in ("x", "y", "z", "qw", "qx", "qy", "qz")],
        *[f"float.{s}" for s in ("vx", "vy", "vz", "wx", "wy", "wz")],
        "socket.qw", "socket.qx", "socket.qy", "socket.qz", "socket.wx", "socket.wy", "socket.wz",
        "pin", "pin.velocity",
        *[f"{b}.{c}" for b in ("hull", "mast", "flag")
          for c in ("x", "y", "z", "qw", "qx", "qy", "qz")],
    ]  # fmt: skip
    # the start is the model's initial state, in the model's own conventions
    np.testing.assert_allclose(result.joint_velocities["float"][0], [0.3, 0, 1, 1, -2, 3],
                               atol=1e-12)  # fmt: skip
    q0 = model.joints["socket"].initial
    np.testing.assert_allclose(result.joint_positions["socket"][0], q0, atol=1e-15)
    # MuJoCo's body poses equal rigidparts' kinematics of the recorded joint positions
    for row in range(len(result.time)):
        q = {name: values[row] for name, values in result.joint_positions.items()}
        for body, (r, p) in model.body_poses(q).items():
            np.testing.assert_allclose(result.body_positions[body][row], p, atol=1e-12)
            np.testing.assert_allclose(result.body_rotations[body][row], r, atol=1e-12)
            # the quaternion column is the same orientation (scipy's conversion, up to sign)
            q = result.body_quaternions[body][row]
            from scipy.spatial.transform import Rotation

            expected = Rotation.from_matrix(r).as_quat(scalar_first=True)
            sign = 1.0 if np.dot(q, expected) > 0 else -1.0
            np.testing.assert_allclose(q, sign * expected, atol=1e-12)
    # the joint stays within its limits (MuJoCo's limits are soft: a little give)
    assert np.all(np.abs(result.joint_positions["pin"]) <= 1.05)


def test_csv_round_trip_and_atomic_write(tmp_path):
    result = simulate(ball_and_free(), duration=0.05, timestep=1e-3, contacts=False)
    path = tmp_path / "run.csv"
    result.to_csv(path)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0].split(",") == result.columns()
    table = np.loadtxt(path, delimiter=",", skiprows=1)
    np.testing.assert_array_equal(table, result.to_array())  # %.17g: exact round trip
    assert [p.name for p in tmp_path.iterdir()] == ["run.csv"]


def test_estimate_period_of_a_known_sine():
    t = np.linspace(0, 10, 10001)
    assert estimate_period(t, 0.3 + 2 * np.sin(2 * math.pi * t / 1.7 + 0.4)) == pytest.approx(
        1.7, rel=1e-6
    )
    assert estimate_period(t, t) is None


@pytest.mark.parametrize(
    ("kwargs", "parameter"),
    [
        ({"duration": -1}, "duration"),
        ({"duration": "1 m"}, "duration"),
        ({"timestep": 0}, "timestep"),
        ({"timestep": 2.0, "duration": 1.0}, "timestep"),
        ({"integrator": "leapfrog"}, "integrator"),
        ({"record_every": 0}, "record_every"),
    ],
)
def test_bad_simulation_arguments(kwargs, parameter):
    with pytest.raises(rp.ParameterError) as info:
        simulate(double_pendulum(), **kwargs)
    assert info.value.parameter == parameter


def test_animate_without_the_viz_extra_exits_2(tmp_path, capsys, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "rigidparts.viz.animate", None)  # import fails
    status = main(["simulate", str(EXAMPLES / "pendulum.toml"), "--duration", "0.1",
                   "--animate", str(tmp_path / "a.gif")])  # fmt: skip
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1
    assert err[0].startswith("error: --animate needs the viz extra")
    assert not list(tmp_path.iterdir())
