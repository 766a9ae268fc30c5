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
  ``body_rotations``: body -> (T, 3, 3), ``R_WA``; ``body_quaternions``: body -> (T, 4), the
  same orientation as a unit quaternion ``(qw, qx, qy, qz)``, its sign continuous in time (the
  first with ``qw >= 0``);
- ``kinetic_energy``, ``potential_energy`` (T,), J (MuJoCo's, gravity only).

Contacts between the bodies' geometry are off unless asked for (``contacts=True`` or the
model's ``[simulation] contacts = true``): bodies interact through their joints only.

MuJoCo resets a state that has diverged (NaN, infinite or huge accelerations, positions or
velocities) and carries on from the start; :func:`simulate` instead stops at the first such
warning with a :class:`SimulationError` that says at what simulated time, what happened and
what to try. MuJoCo's own printing of warnings (and its ``MUJOCO_LOG.TXT`` file in the current
folder) is suppressed during the run.

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
from ..export._common import mujoco_depth_error
from ..export.mjcf import joint_state_from_mujoco, mjcf_files
from ..fileio import atomic_write
from ..model import INTEGRATORS, Model
from ..progress import Status
from .summary import format_summary

__all__ = [
    "DEFAULT_DURATION",
    "DEFAULT_INTEGRATOR",
    "DEFAULT_TIMESTEP",
    "SimulationError",
    "SimulationResult",
    "simulate",
]

DEFAULT_DURATION = 5.0
DEFAULT_TIMESTEP = 1e-3
DEFAULT_INTEGRATOR = "RK4"

#: Refuse runs that would record more than this many rows (raise record_every instead).
MAX_ROWS = 20_000_000

#: Refuse runs of more steps than this: 1e12 steps of the smallest model take days (MuJoCo
#: steps a pendulum in about a microsecond), and ``duration / timestep`` beyond it is a typo
#: (``--timestep 1e-300``), not a run anyone waits for.
MAX_STEPS = 10**12


class SimulationError(ParameterError):
    """A run MuJoCo could not carry through (a diverging state, a full contact buffer, a model
    its compiler refuses): a :class:`~rigidparts.ParameterError` (so a ``ValueError``) naming
    the setting to change (``timestep``, ``contacts`` or ``model``), the simulated time ``time``
    at the start of the step that failed (s; None when the model did not compile) and what to
    try."""

    def __init__(self, parameter: str, value: Any, rule: str, *, time: float | None = None):
        self.time = time
        super().__init__(parameter, value, rule)


#: MuJoCo's warnings that stop a run: name -> (what happened, the parameter to change, what
#: to try). ``{info}`` is MuJoCo's index (the degree of freedom).
WARNINGS = {
    "mjWARN_BADQACC": (
        "the accelerations became NaN, infinite or huge (degree of freedom {info})",
        "timestep",
        "the simulation diverged",
    ),
    "mjWARN_BADQVEL": (
        "the velocities became NaN, infinite or huge (degree of freedom {info})",
        "timestep",
        "the simulation diverged",
    ),
    "mjWARN_BADQPOS": (
        "the positions became NaN, infinite or huge (coordinate {info})",
        "timestep",
        "the simulation diverged",
    ),
    "mjWARN_INERTIA": (
        "the mass matrix is too close to singular (degree of freedom {info})",
        "timestep",
        "the simulation cannot be trusted",
    ),
    "mjWARN_CONTACTFULL": (
        "MuJoCo's contact buffer is full ({info} contacts)",
        "contacts",
        "contacts were lost",
    ),
    "mjWARN_CNSTRFULL": (
        "MuJoCo's constraint buffer is full ({info} constraints)",
        "contacts",
        "constraints were lost",
    ),
    "mjWARN_BADCTRL": (
        "a control became NaN or huge (actuator {info})",
        "model",
        "the simulation cannot be trusted",
    ),
}


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
    body_quaternions: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def energy(self) -> np.ndarray:
        """Total mechanical energy (kinetic + gravitational potential), J, (T,)."""
        return self.kinetic_energy + self.potential_energy

    def columns(self) -> list[str]:
        """The CSV header: ``time``, then per joint its position coordinates and velocities
        (``hinge``, ``hinge.velocity``; ``ball.qw``, ..., ``ball.wx``, ...), then per body
        frame_a's position ``BODY.x``, ``BODY.y``, ``BODY.z`` and orientation ``BODY.qw``,
        ``BODY.qx``, ``BODY.qy``, ``BODY.qz`` (``R_WA`` as a unit quaternion)."""
        names = ["time"]
        for joint in self.joint_positions:
            names += list(self.position_names[joint]) + list(self.velocity_names[joint])
        for body in self.body_positions:
            names += [f"{body}.x", f"{body}.y", f"{body}.z"]
            if body in self.body_quaternions:
                names += [f"{body}.qw", f"{body}.qx", f"{body}.qy", f"{body}.qz"]
        return names

    def to_array(self) -> np.ndarray:
        """All columns as one (T, len(columns())) array."""
        blocks = [self.time[:, None]]
        for joint, position in self.joint_positions.items():
            blocks.append(position.reshape(len(self.time), -1))
            blocks.append(self.joint_velocities[joint].reshape(len(self.time), -1))
        for body, position in self.body_positions.items():
            blocks.append(position)
            if body in self.body_quaternions:
                blocks.append(self.body_quaternions[body])
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


def _about(number: float) -> str:
    """A count in words a reader takes in at a glance: ``20,000,001``, or ``about 5e+300`` (a
    count of many digits, or one past float64's range: ``more than 1.8e+308``)."""
    if not math.isfinite(number):
        return f"more than {np.finfo(np.float64).max:.2g}"
    if number < 1e12:
        return f"{int(number):,}"
    return f"about {float(number):.3g}"


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
    contacts: bool | None = None,
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
        Show progress on stderr: a tqdm bar while stepping and, on a terminal, a status line
        while a large model is set up (after a second).
    record_every : int
        Record one state every this many steps (the first and last are always recorded).
    contacts : bool, optional
        Let the bodies' geometry collide (parent-child and welded pairs never touch). Default:
        the model's ``[simulation] contacts``, else False (no contact).

    Raises
    ------
    SimulationError
        When MuJoCo warns during the run (a diverging state, which it would silently reset;
        a full contact buffer; a singular mass matrix): the message gives the simulated time,
        what happened and what to try. Also when MuJoCo's compiler refuses the model.
    """
    settings = model.simulation
    duration = _check_positive("duration", _first(duration, settings.duration, DEFAULT_DURATION))
    timestep = _check_positive("timestep", _first(timestep, settings.timestep, DEFAULT_TIMESTEP))
    chosen = integrator or settings.integrator or DEFAULT_INTEGRATOR
    lookup = {name.lower(): name for name in INTEGRATORS}
    if not isinstance(chosen, str) or chosen.lower() not in lookup:
        raise ParameterError("integrator", integrator, f"must be one of {', '.join(INTEGRATORS)}")
    chosen = lookup[chosen.lower()]
    if contacts is None:
        contacts = bool(settings.contacts)
    elif not isinstance(contacts, bool):
        raise ParameterError("contacts", contacts, "must be True or False")
    if timestep > duration:
        raise ParameterError("timestep", timestep, f"must not exceed duration={duration!r} s")
    if isinstance(record_every, bool) or not isinstance(record_every, int) or record_every < 1:
        raise ParameterError("record_every", record_every, "must be a positive integer")
    ratio = duration / timestep  # may overflow to inf (5 s / 1e-320 s)
    if ratio > MAX_STEPS:
        raise ParameterError(
            "timestep",
            timestep,
            f"makes too many steps for duration={duration!r} s ({_about(ratio)} steps, at "
            f"most {MAX_STEPS:,} in one run): raise the timestep or shorten the duration",
        )
    steps = round(ratio)
    count = steps // record_every + 1 + (1 if steps % record_every else 0)  # + the last step
    if count + 1 > MAX_ROWS:
        raise ParameterError(
            "duration",
            duration,
            f"would record {_about(count)} rows at timestep {timestep!r} s (at most "
            f"{MAX_ROWS:,}): raise record_every or the timestep",
        )

    too_deep = mujoco_depth_error(
        model, "MuJoCo cannot simulate it (export URDF or SDF for engines without that limit)"
    )
    if too_deep is not None:  # before any work: MuJoCo's compiler would say so minutes later
        raise too_deep

    mujoco = _import_mujoco()
    body_names = list(model.bodies)
    with (
        _MuJoCoWarnings(mujoco) as watch,
        Status(
            f"setting up the simulation of {len(body_names)} bodies", enabled=progress
        ) as status,
    ):
        files = mjcf_files(model, folder_name="meshes")  # the very files `export` writes
        status.update(f"MuJoCo compiles {len(body_names)} bodies")
        try:
            mj_model = mujoco.MjModel.from_xml_string(files.text, files.assets())
        except ValueError as exc:  # MuJoCo's compiler: a rule rigidparts does not check
            first = " ".join(str(exc).split())
            raise SimulationError(
                "model", model.name, f"MuJoCo refused the model: {first}"
            ) from None
        watch.pass_on()  # the compiler's warnings are not the run's: shown, not fatal
        mj_model.opt.timestep = timestep
        mj_model.opt.integrator = getattr(mujoco.mjtIntegrator, f"mjINT_{chosen.upper()}")
        mj_model.opt.enableflags |= int(mujoco.mjtEnableBit.mjENBL_ENERGY)
        contact_bit = int(mujoco.mjtDisableBit.mjDSBL_CONTACT)
        if contacts:
            mj_model.opt.disableflags &= ~contact_bit
        else:
            mj_model.opt.disableflags |= contact_bit
        data = mujoco.MjData(mj_model)
        if mj_model.nkey:
            mujoco.mj_resetDataKeyframe(mj_model, data, 0)
        mujoco.mj_forward(mj_model, data)
    watch.check(data, 0.0, timestep, chosen)

    body_ids = np.array([mj_model.body(name).id for name in body_names])
    times = np.empty(count)
    qpos = np.empty((count, mj_model.nq))
    qvel = np.empty((count, mj_model.nv))
    xpos = np.empty((count, len(body_names), 3))
    xmat = np.empty((count, len(body_names), 9))
    xquat = np.empty((count, len(body_names), 4))
    energy = np.empty((count, 2))

    def record(row: int) -> None:
        times[row] = data.time
        qpos[row] = data.qpos
        qvel[row] = data.qvel
        xpos[row] = data.xpos[body_ids]
        xmat[row] = data.xmat[body_ids]
        xquat[row] = data.xquat[body_ids]
        energy[row] = data.energy

    bar = _progress_bar(steps, progress)
    started = _time.perf_counter()
    record(0)
    row = 1
    try:
        with watch:
            for step in range(1, steps + 1):
                mujoco.mj_step(mj_model, data)
                if watch.messages:  # MuJoCo warned (and may have reset the state): stop
                    watch.check(data, (step - 1) * timestep, timestep, chosen)
                if step % record_every == 0 or step == steps:
                    mujoco.mj_forward(mj_model, data)  # positions, energy at the new state
                    record(row)
                    row += 1
                if bar is not None and step >= bar.next_step:
                    bar.advance(step)
            watch.check(data, (steps - 1) * timestep, timestep, chosen)
        if bar is not None:
            bar.advance(steps)
        if not np.all(np.isfinite(data.qpos)):
            raise SimulationError(
                "timestep",
                timestep,
                f"the simulation diverged (a non-finite state at t = {data.time:.6g} s): "
                f"{_advice(timestep, chosen)}",
                time=float(data.time),
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
        body_quaternions={
            name: continuous_quaternions(xquat[:, i, :]) for i, name in enumerate(body_names)
        },
    )


def continuous_quaternions(quats: np.ndarray) -> np.ndarray:
    """(T, 4) unit quaternions with their signs chosen so that each is the nearer of ``+-q``
    to the one before (no jumps to ``-q``), the first with ``qw >= 0``: row t is multiplied
    by the product of the signs of ``q_k . q_(k-1)`` for k <= t (vectorised)."""
    out = np.array(quats, dtype=np.float64)
    if len(out) == 0:
        return out
    flips = np.concatenate([[out[0, 0] < 0], np.einsum("ij,ij->i", out[1:], out[:-1]) < 0])
    signs = np.where(np.cumsum(flips) % 2 == 1, -1.0, 1.0)
    return out * signs[:, None] + 0.0  # + 0.0: no -0.0


def _advice(timestep: float, integrator: str) -> str:
    """What to try when a run diverges: a smaller step, another integrator."""
    others = {
        "Euler": "RK4 or implicitfast",
        "RK4": "implicitfast",
        "implicitfast": "implicit or RK4",
        "implicit": "RK4",
    }[integrator]
    return f"try a smaller timestep (e.g. {timestep / 10:g} s) or another integrator ({others})"


class _MuJoCoWarnings:
    """Collects MuJoCo's warnings while MuJoCo works (its warning callback, so nothing is
    printed and no ``MUJOCO_LOG.TXT`` is written; the previous callback is put back after),
    and turns them into a :class:`SimulationError` (:meth:`check`). Re-entrant: the callback
    is installed by the outermost ``with``."""

    def __init__(self, mujoco: Any) -> None:
        self._mujoco = mujoco
        self.messages: list[str] = []
        self._depth = 0
        self._previous: Any = None

    def __enter__(self) -> _MuJoCoWarnings:
        if self._depth == 0:
            self._previous = self._mujoco.get_mju_user_warning()
            self._mujoco.set_mju_user_warning(self.messages.append)
        self._depth += 1
        return self

    def __exit__(self, *exc: object) -> None:
        self._depth -= 1
        if self._depth == 0:
            self._mujoco.set_mju_user_warning(self._previous)

    def pass_on(self) -> None:
        """Hand the warnings so far (MuJoCo's compiler's) to Python's warnings, and forget
        them."""
        import warnings

        for message in self.messages:
            warnings.warn(f"MuJoCo: {' '.join(message.split())}", RuntimeWarning, stacklevel=3)
        self.messages.clear()

    def check(self, data: Any, time: float, timestep: float, integrator: str) -> None:
        """Raise :class:`SimulationError` when MuJoCo warned (its counters in ``data.warning``,
        or a message); ``time`` is the simulated time at the start of the step, s."""
        kinds = self._mujoco.mjtWarning
        fired = [
            (name, data.warning[int(getattr(kinds, name))])
            for name in WARNINGS
            if hasattr(kinds, name) and data.warning[int(getattr(kinds, name))].number
        ]
        if not fired and not self.messages:
            return
        said = " ".join(self.messages[0].split()) if self.messages else ""
        if not fired:  # a warning rigidparts does not know: MuJoCo's words
            raise SimulationError(
                "timestep",
                timestep,
                f"MuJoCo warned at t = {time:.6g} s: {said}; {_advice(timestep, integrator)}",
                time=time,
            )
        name, stat = fired[0]
        what, parameter, verdict = WARNINGS[name]
        what = what.format(info=stat.lastinfo)
        if parameter == "contacts":
            value: Any = True
            advice = "turn contacts off (the default), or keep the bodies apart"
        else:
            value = timestep
            advice = _advice(timestep, integrator)
        raise SimulationError(
            parameter,
            value,
            f"{verdict} at t = {time:.6g} s ({integrator}): {what}; MuJoCo would have reset "
            f"the state and carried on, so the run stops here; {advice}",
            time=time,
        )


def _import_mujoco() -> Any:
    try:
        import mujoco
    except ModuleNotFoundError as exc:
        raise ModuleNotFoundError(
            "simulation needs MuJoCo: pip install 'rigidparts[sim]'", name=exc.name
        ) from None
    return mujoco


def _progress_bar(steps: int, enabled: bool) -> _StepBar | None:
    """A tqdm bar over the steps, shown once the run has lasted a second (None: no bar)."""
    if not enabled:
        return None
    try:
        from tqdm import tqdm
    except ModuleNotFoundError:
        return None
    options: dict[str, Any] = {"total": steps, "unit": "step", "unit_scale": True}
    try:
        bar = tqdm(desc="simulating", delay=1.0, **options)
    except (TypeError, KeyError):  # a tqdm before 4.61 has no delay
        bar = tqdm(desc="simulating", **options)
    return _StepBar(bar)


class _StepBar:
    """Feeds a tqdm bar every ``chunk`` steps, the chunk doubling (up to 1000) while updates
    come faster than every 0.05 s: a small model steps in microseconds (updating each step
    would slow it), a 1000-body chain in a tenth of a second (it needs every step)."""

    def __init__(self, bar: Any) -> None:
        self._bar = bar
        self._shown = 0
        self._chunk = 1
        self._last = _time.perf_counter()
        self.next_step = 1

    def advance(self, step: int) -> None:
        self._bar.update(step - self._shown)
        self._shown = step
        now = _time.perf_counter()
        if now - self._last < 0.05:
            self._chunk = min(2 * self._chunk, 1000)
        self._last = now
        self.next_step = step + self._chunk

    def close(self) -> None:
        self._bar.close()
