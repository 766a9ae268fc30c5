"""The readable report of a simulation (``rigidparts simulate`` without ``--quiet``) and the
period estimate it uses."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..model import Model
from ..report import counted

__all__ = ["estimate_period", "format_summary", "pendulum_period"]


def pendulum_period(model: Model) -> tuple[str, float] | None:
    """``(joint, T0)`` for a model whose only degree of freedom is one revolute joint hanging
    from the fixed world: the small-amplitude period of the compound pendulum,

        T0 = 2 pi sqrt(I_n / (m g_perp d)),

    with ``m`` the mass that swings (the joint's subtree), ``I_n`` its moment of inertia about
    the joint axis n, ``d`` the distance of its centre of mass from the axis and ``g_perp`` the
    part of gravity perpendicular to the axis. None for any other model, or when ``d`` or
    ``g_perp`` is zero (no restoring torque)."""
    moving = [j for j in model.joints.values() if j.nv]
    if len(moving) != 1 or moving[0].type != "revolute":
        return None
    joint = moving[0]
    q = model.zero_positions()
    frames = model.frame_poses(q)
    if joint.parent_body is None:
        r_wp, p_wp = np.eye(3), np.zeros(3)
    else:
        r_wp, p_wp = frames[joint.parent]
    p_wj = p_wp + r_wp @ joint.position
    axis = r_wp @ joint.axis  # the axis is given in the parent frame
    composite = model.subtree_mass_properties(q)[joint.child_body]
    offset = composite.center_of_mass - p_wj
    perpendicular = offset - np.dot(offset, axis) * axis
    distance = float(np.linalg.norm(perpendicular))
    gravity = np.asarray(model.gravity)
    g_perp = float(np.linalg.norm(gravity - np.dot(gravity, axis) * axis))
    if not (distance > 0.0 and g_perp > 0.0):
        return None
    moment = float(axis @ composite.inertia @ axis) + composite.mass * distance**2
    return joint.name, 2.0 * math.pi * math.sqrt(moment / (composite.mass * g_perp * distance))


def estimate_period(time: np.ndarray, signal: np.ndarray) -> float | None:
    """The period of an oscillating signal from its upward crossings of its mid-range level,
    located by linear interpolation; the mean spacing of the first and last crossings. None
    with fewer than two crossings."""
    time = np.asarray(time, dtype=np.float64)
    signal = np.asarray(signal, dtype=np.float64)
    if signal.ndim != 1 or len(signal) < 3:
        return None
    level = 0.5 * (signal.max() + signal.min())
    s = signal - level
    upward = np.nonzero((s[:-1] < 0.0) & (s[1:] >= 0.0))[0]
    if len(upward) < 2:
        return None
    fraction = -s[upward] / (s[upward + 1] - s[upward])
    crossings = time[upward] + fraction * (time[upward + 1] - time[upward])
    return float((crossings[-1] - crossings[0]) / (len(crossings) - 1))


def amplitude_factor(amplitude: float) -> float:
    """``T / T0`` of a pendulum swinging with amplitude ``theta0`` (rad), the series
    ``1 + theta0^2/16 + 11 theta0^4/3072 + 173 theta0^6/737280`` (exact: 2 K(sin(theta0/2))/pi)."""
    a2 = amplitude * amplitude
    return 1.0 + a2 / 16.0 + 11.0 * a2 * a2 / 3072.0 + 173.0 * a2**3 / 737280.0


def _value(x: float) -> str:
    return f"{x:.10g}"


def format_summary(result: Any, model: Model | None = None) -> str:
    """Model and run, each joint's final position/velocity and period, the energy drift."""
    import mujoco

    lines = []
    duration = float(result.time[-1] - result.time[0])
    if model is not None:
        lines.append(
            f"model {model.name!r}: {counted(len(model.bodies), 'body', 'bodies')}, "
            f"{counted(len(model.joints), 'joint')}, {counted(model.nv, 'degree')} of freedom, "
            f"gravity {list(map(float, model.gravity))} m/s^2"
        )
    lines.append(
        f"simulated {duration:g} s on MuJoCo {mujoco.__version__}: {result.integrator}, "
        f"timestep {result.timestep:g} s, {result.steps} steps, {len(result.time)} rows, "
        f"in {result.wall_time:.2f} s"
    )
    if result.joint_positions:
        lines += ["", f"  {'joint':<16}{'final position':>34}{'final velocity':>34}  period"]
    periods: dict[str, float] = {}
    for name, position in result.joint_positions.items():
        velocity = result.joint_velocities[name]
        period_text = ""
        if position.ndim == 1:
            period = estimate_period(result.time, position)
            if period is not None:
                periods[name] = period
                period_text = f"{period:.9g} s"
        final_q = ", ".join(_value(v) for v in np.atleast_1d(position[-1]))
        final_v = ", ".join(_value(v) for v in np.atleast_1d(velocity[-1]))
        lines.append(f"  {name:<16}{final_q:>34}{final_v:>34}  {period_text}")

    if model is not None:
        theory = pendulum_period(model)
        if theory is not None:
            name, t0 = theory
            position = result.joint_positions[name]
            amplitude = 0.5 * float(position.max() - position.min())
            expected = t0 * amplitude_factor(amplitude)
            line = (
                f"  compound pendulum {name!r}: T0 = 2 pi sqrt(I/(m g d)) = {t0:.9g} s; at the "
                f"amplitude {amplitude:.4g} rad, T = {expected:.9g} s; "
            )
            if name in periods:
                measured = periods[name]
                line += (
                    f"measured {measured:.9g} s (relative difference "
                    f"{abs(measured - expected) / expected:.1e})"
                )
            else:
                line += "simulate for more than two periods to measure it"
            lines += ["", line]

    energy = result.energy
    peak_kinetic = float(np.max(result.kinetic_energy))
    drift = float(np.max(np.abs(energy - energy[0])))
    relative = f" ({drift / peak_kinetic:.2e} of the peak kinetic energy)" if peak_kinetic else ""
    lines += [
        "",
        f"  energy: initial {energy[0]:.10g} J, final {energy[-1]:.10g} J, largest change "
        f"{drift:.3g} J{relative}",
    ]
    for body, positions in result.body_positions.items():
        lines.append(f"  {body:<16} final position (frame_a) {positions[-1].round(9).tolist()} m")
    return "\n".join(lines)
