"""Simulation on MuJoCo (the embedded engine: ``pip install 'rigidparts[sim]'``).

:func:`simulate` exports the model to MJCF in memory (:mod:`rigidparts.export.mjcf`: the very
file ``rigidparts export`` writes, meshes passed as assets), loads it with
``mujoco.MjModel.from_xml_string``, starts from the model's initial joint positions and
velocities, steps it, and records after every step (or every ``record_every`` steps):

- ``time`` (T,), s;
- ``joint_positions`` / ``joint_velocities``: joint name -> (T,) for one coordinate, (T, k) for
  a ball (qw, qx, qy, qz / wx, wy, wz) or free joint (x, y, z, qw, qx, qy, qz / vx, vy, vz,
  wx, wy, wz), in the conventions of :mod:`rigidparts.model.joints`;
- ``body_positions``: body -> (T, 3), the world position of frame_a's origin, m;
  ``body_rotations``: body -> (T, 3, 3), ``R_WA``;
- ``kinetic_energy``, ``potential_energy`` (T,), J (MuJoCo's, gravity only).

mujoco is imported inside the functions, so importing this module costs nothing.
"""

from __future__ import annotations

import math
import os
import time as _time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import ParameterError
from ..export.mjcf import build_mjcf, joint_state_from_mujoco, mesh_assets
from ..fileio import atomic_write
from ..model import INTEGRATORS, Model
from .summary import format_summary

__all__ = [
    "DEFAULT_DURATION",
    "DEFAULT_INTEGRATOR",
    "DEFAULT_TIMESTEP",
    "SimulationResult",
    "simulate",
]

DEFAULT_DURATION = 5.0
DEFAULT_TIMESTEP = 1e-3
DEFAULT_INTEGRATOR = "RK4"

#: Refuse runs that would record more than this many rows (raise record_every instead).
MAX_ROWS = 20_000_000


@dataclass
class SimulationResult:
    """A recorded trajectory (see the module docstring for shapes and units)."""

    model_name: str
    time: np.ndarray
    joint_positions: dict[str, np.ndarray]
    joint_velocities: dict[str, np.ndarray]
    body_positions: dict[str, np.ndarray]
    body_rotations: dict[str, np.ndarray]
    kinetic_energy: np.ndarray
    potential_energy: np.ndarray
    timestep: float
    integrator: str
    steps: int
    wall_time: float
    position_names: dict[str, tuple[str, ...]] = field(default_factory=dict)
    velocity_names: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def energy(self) -> np.ndarray:
        """Total mechanical energy (kinetic + gravitational potential), J, (T,)."""
        return self.kinetic_energy + self.potential_energy

    def columns(self) -> list[str]:
        """The CSV header: ``time``, then per joint its position coordinates and velocities
        (``hinge``, ``hinge.velocity``; ``ball.qw``, ..., ``ball.wx``, ...), then
        ``BODY.x``, ``BODY.y``, ``BODY.z`` per body."""
        names = ["time"]
        for joint in self.joint_positions:
            names += list(self.position_names[joint]) + list(self.velocity_names[joint])
        for body in self.body_positions:
            names += [f"{body}.x", f"{body}.y", f"{body}.z"]
        return names

    def to_array(self) -> np.ndarray:
        """All columns as one (T, len(columns())) array."""
        blocks = [self.time[:, None]]
        for joint, position in self.joint_positions.items():
            blocks.append(position.reshape(len(self.time), -1))
            blocks.append(self.joint_velocities[joint].reshape(len(self.time), -1))
        blocks += [p for p in self.body_positions.values()]
        return np.hstack(blocks)

    def to_csv(self, path: str | os.PathLike[str]) -> None:
        """Write the trajectory as CSV (header row; floats as Python's shortest round-trip
        repr, so full precision without noise digits), atomically."""
        import csv
        import io

        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(self.columns())
        writer.writerows(self.to_array().tolist())
        atomic_write(path, buffer.getvalue())

    def summary(self, model: Model | None = None) -> str:
        """A short readable report: final state, periods, energy drift."""
        return format_summary(self, model)


def _first(*values: Any) -> Any:
    return next(v for v in values if v is not None)


def _check_positive(name: str, value: Any) -> float:
    from ..units import to_si

    number = to_si(name, value, "time")
    if not (number > 0.0 and math.isfinite(number)):
        raise ParameterError(name, value, "must be a positive, finite time (s)")
    return number


def simulate(
    model: Model,
    duration: Any = None,
    timestep: Any = None,
    integrator: str | None = None,
    progress: bool = False,
    *,
    record_every: int = 1,
    contacts: bool = True,
) -> SimulationResult:
    """Simulate ``model`` on MuJoCo and record the trajectory.

    Parameters
    ----------
    model : rigidparts.model.Model
    duration, timestep : float or str, optional
        Simulated time and integration step, s (``"10 s"`` works). Default: the model's
        ``[simulation]`` values, else 5 s and 1 ms.
    integrator : {"RK4", "implicitfast", "implicit", "Euler"}, optional
        MuJoCo's integrator (default: the model's, else RK4, whose error is O(dt^4)).
    progress : bool
        Show a tqdm progress bar on stderr.
    record_every : int
        Record one state every this many steps (the first and last are always recorded).
    contacts : bool
        Keep MuJoCo's contacts between the bodies' geometry (parent-child and welded pairs
        never touch); False disables contact entirely.
    """
    settings = model.simulation
    duration = _check_positive("duration", _first(duration, settings.duration, DEFAULT_DURATION))
    timestep = _check_positive("timestep", _first(timestep, settings.timestep, DEFAULT_TIMESTEP))
    chosen = integrator or settings.integrator or DEFAULT_INTEGRATOR
    lookup = {name.lower(): name for name in INTEGRATORS}
    if not isinstance(chosen, str) or chosen.lower() not in lookup:
        raise ParameterError("integrator", integrator, f"must be one of {', '.join(INTEGRATORS)}")
    chosen = lookup[chosen.lower()]
    if timestep > duration:
        raise ParameterError("timestep", timestep, f"must not exceed duration={duration!r} s")
    if isinstance(record_every, bool) or not isinstance(record_every, int) or record_every < 1:
        raise ParameterError("record_every", record_every, "must be a positive integer")
    steps = round(duration / timestep)
    rows = steps // record_every + 2
    if rows > MAX_ROWS:
        raise ParameterError(
            "duration",
            duration,
            f"would record {rows} rows at timestep {timestep!r} s: raise record_every or the "
            "timestep",
        )

    mujoco = _import_mujoco()

    folder = "meshes"
    xml, meshes = build_mjcf(model, mesh_folder_name=folder)
    mj_model = mujoco.MjModel.from_xml_string(xml, mesh_assets(meshes, folder))
    mj_model.opt.timestep = timestep
    mj_model.opt.integrator = getattr(mujoco.mjtIntegrator, f"mjINT_{chosen.upper()}")
    mj_model.opt.enableflags |= int(mujoco.mjtEnableBit.mjENBL_ENERGY)
    if not contacts:
        mj_model.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT)
    data = mujoco.MjData(mj_model)
    if mj_model.nkey:
        mujoco.mj_resetDataKeyframe(mj_model, data, 0)
    mujoco.mj_forward(mj_model, data)

    body_names = list(model.bodies)
    body_ids = np.array([mj_model.body(name).id for name in body_names])
    recorded = [i for i in range(steps + 1) if i % record_every == 0 or i == steps]
    count = len(recorded)
    times = np.empty(count)
    qpos = np.empty((count, mj_model.nq))
    qvel = np.empty((count, mj_model.nv))
    xpos = np.empty((count, len(body_names), 3))
    xmat = np.empty((count, len(body_names), 9))
    energy = np.empty((count, 2))

    def record(row: int) -> None:
        times[row] = data.time
        qpos[row] = data.qpos
        qvel[row] = data.qvel
        xpos[row] = data.xpos[body_ids]
        xmat[row] = data.xmat[body_ids]
        energy[row] = data.energy

    bar = _progress_bar(steps, progress)
    started = _time.perf_counter()
    record(0)
    row = 1
    try:
        for step in range(1, steps + 1):
            mujoco.mj_step(mj_model, data)
            if step % record_every == 0 or step == steps:
                mujoco.mj_forward(mj_model, data)  # positions, energy at the new state
                record(row)
                row += 1
            if bar is not None and step % 1000 == 0:
                bar.update(1000)
        if not np.all(np.isfinite(data.qpos)):
            raise ParameterError(
                "timestep",
                timestep,
                "the simulation diverged (non-finite state): use a smaller one",
            )
    finally:
        if bar is not None:
            bar.close()
    wall = _time.perf_counter() - started

    positions, velocities = joint_state_from_mujoco(model, qpos, qvel)
    joints = model.joints
    return SimulationResult(
        model_name=model.name,
        time=times,
        joint_positions=positions,
        joint_velocities=velocities,
        body_positions={name: xpos[:, i, :].copy() for i, name in enumerate(body_names)},
        body_rotations={
            name: xmat[:, i, :].reshape(count, 3, 3).copy() for i, name in enumerate(body_names)
        },
        kinetic_energy=energy[:, 1].copy(),
        potential_energy=energy[:, 0].copy(),
        timestep=timestep,
        integrator=chosen,
        steps=steps,
        wall_time=wall,
        position_names={name: joints[name].position_names for name in positions},
        velocity_names={name: joints[name].velocity_names for name in positions},
    )


def _import_mujoco() -> Any:
    try:
        import mujoco
    except ModuleNotFoundError as exc:
        raise ModuleNotFoundError(
            "simulation needs MuJoCo: pip install 'rigidparts[sim]'", name=exc.name
        ) from None
    return mujoco


def _progress_bar(steps: int, enabled: bool) -> Any:
    if not enabled or steps < 1000:
        return None
    try:
        from tqdm import tqdm
    except ModuleNotFoundError:
        return None
    return tqdm(total=steps - steps % 1000, unit="step", unit_scale=True, desc="simulating")
