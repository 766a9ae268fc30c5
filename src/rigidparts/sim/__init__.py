"""Simulation of :class:`~rigidparts.model.Model` on MuJoCo.

``rp.simulate(model, duration=10, timestep=1e-4, integrator="RK4")`` returns a
:class:`SimulationResult` (time, joint positions and velocities, body poses, energy) that writes
itself as CSV (``result.to_csv(path)``); a run MuJoCo cannot carry through (a diverging state)
is a :class:`SimulationError`. mujoco is imported only when a simulation runs.
"""

from .simulate import (
    DEFAULT_DURATION,
    DEFAULT_INTEGRATOR,
    DEFAULT_TIMESTEP,
    SimulationError,
    SimulationResult,
    simulate,
)
from .summary import estimate_period

__all__ = [
    "DEFAULT_DURATION",
    "DEFAULT_INTEGRATOR",
    "DEFAULT_TIMESTEP",
    "SimulationError",
    "SimulationResult",
    "estimate_period",
    "simulate",
]
