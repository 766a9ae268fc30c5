"""A simulation result as the viewers read it: its arrays checked once (:func:`result_arrays`),
the recorded samples a GIF frame or an HTML keyframe shows (:func:`sample_indices`), and the
number rule of their options (:func:`check_number`, :func:`check_keyframe_fps`).

Used by :mod:`.animate` (GIF, MP4), :mod:`.html` (the viewer's keyframes) and the command line
(``simulate --html-fps``), so that every consumer samples and checks a run the same way.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy as np

from ..errors import ParameterError

__all__ = [
    "KEYFRAME_FPS",
    "Trajectory",
    "check_keyframe_fps",
    "check_number",
    "result_arrays",
    "sample_indices",
]

#: The range of the HTML viewer's keyframes per simulated second (``fps``, ``--html-fps``).
KEYFRAME_FPS = (0.1, 1000.0)

_DIVERGED = "must be finite (did the simulation diverge?)"


def check_number(name: str, value: Any, low: float, high: float, rule: str) -> float:
    """``value`` as a float in ``[low, high]`` (a real number, not a bool, finite), else
    :class:`ParameterError` naming ``name`` with ``rule``."""
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise ParameterError(name, value, rule)
    number = float(value)
    if not (math.isfinite(number) and low <= number <= high):
        raise ParameterError(name, value, rule)
    return number


def check_keyframe_fps(value: Any, name: str = "fps") -> float:
    """The HTML viewer's keyframes per second: a number in :data:`KEYFRAME_FPS`."""
    low, high = KEYFRAME_FPS
    return check_number(name, value, low, high, f"must be a number from {low:g} to {high:g}")


class Trajectory(NamedTuple):
    """A result's arrays: ``time`` (T,) s; per body of the model ``rotations`` (T, 3, 3)
    ``R_WA``, ``positions`` (T, 3) ``p_WAo`` m, and (when asked for) ``quaternions`` (T, 4)
    ``(qw, qx, qy, qz)`` of ``R_WA``."""

    time: np.ndarray
    rotations: dict[str, np.ndarray]
    positions: dict[str, np.ndarray]
    quaternions: dict[str, np.ndarray]


def _finite(name: str, array: np.ndarray) -> np.ndarray:
    finite = np.isfinite(array.reshape(len(array), -1)).all(axis=1)
    if not finite.all():
        first = int(np.flatnonzero(~finite)[0])
        raise ParameterError(name, f"not finite from sample {first} on", _DIVERGED)
    return array


def result_arrays(model: Any, result: Any, *, quaternions: bool = False) -> Trajectory:
    """The arrays of ``result`` (a :class:`rigidparts.sim.SimulationResult` of ``model``, or
    anything with ``time``, ``body_rotations``, ``body_positions`` and optionally
    ``body_quaternions``), checked: increasing finite times; for every body of the model poses
    of the right shapes, all finite (a diverged run is a :class:`ParameterError` naming e.g.
    ``result.body_positions['arm']``, not a broken file); no body the model has not.

    With ``quaternions``: the result's own ``body_quaternions`` (as MuJoCo computed them), or
    for a result without them the rotations converted by
    :func:`rigidparts.transforms.matrix_to_quaternion`."""
    try:
        time = np.asarray(result.time, dtype=np.float64).reshape(-1)
        given_rot: Mapping[str, Any] = result.body_rotations
        given_pos: Mapping[str, Any] = result.body_positions
    except (AttributeError, TypeError, ValueError):
        raise ParameterError(
            "result",
            type(result).__name__,
            "must have time (T,), body_rotations and body_positions (a SimulationResult)",
        ) from None
    if len(time) == 0 or not np.all(np.isfinite(time)) or np.any(np.diff(time) < 0):
        raise ParameterError("result.time", f"{len(time)} samples", "must be finite, increasing")
    others = sorted(set(given_pos) - set(model.bodies))
    if others:
        raise ParameterError(
            "result",
            getattr(result, "model_name", type(result).__name__),
            f"is a run of another model: it has bodies the model has not ({', '.join(others)})",
        )
    given_quat: Mapping[str, Any] = getattr(result, "body_quaternions", None) or {}
    rot, pos, quat = {}, {}, {}
    for name in model.bodies:
        if name not in given_rot or name not in given_pos:
            raise ParameterError("result", name, "has no poses for this body of the model")
        r = np.asarray(given_rot[name], dtype=np.float64)
        p = np.asarray(given_pos[name], dtype=np.float64)
        if r.shape != (len(time), 3, 3) or p.shape != (len(time), 3):
            raise ParameterError(
                f"result.body_rotations[{name!r}]",
                f"shapes {r.shape}, {p.shape}",
                f"must be ({len(time)}, 3, 3) and ({len(time)}, 3)",
            )
        rot[name] = _finite(f"result.body_rotations[{name!r}]", r)
        pos[name] = _finite(f"result.body_positions[{name!r}]", p)
        if quaternions:
            if name in given_quat:
                q = np.asarray(given_quat[name], dtype=np.float64)
                if q.shape != (len(time), 4):
                    raise ParameterError(
                        f"result.body_quaternions[{name!r}]", q.shape, f"must be ({len(time)}, 4)"
                    )
                quat[name] = _finite(f"result.body_quaternions[{name!r}]", q)
            else:
                from ..transforms import matrix_to_quaternion

                quat[name] = matrix_to_quaternion(r, f"result.body_rotations[{name!r}]")
    return Trajectory(time, rot, pos, quat)


def sample_indices(
    time: np.ndarray, fps: float, cap: int, minimum: int = 1
) -> tuple[np.ndarray, float]:
    """``(indices (n,), seconds between them)``: the recorded samples of ``time`` nearest ``n``
    evenly spaced instants from the first sample to the last (no interpolation), ``n =
    floor(duration fps) + 1`` (so the instants are at least ``1 / fps`` apart and playback at
    that spacing is real time) but at least ``minimum`` and at most ``cap`` (a longer run
    spreads its instants evenly). A sparse record may give the same sample twice."""
    time = np.asarray(time, dtype=np.float64).reshape(-1)
    if len(time) < 2:
        return np.arange(len(time)), 1.0 / fps
    t0, t1 = float(time[0]), float(time[-1])
    duration = t1 - t0
    count = min(int(cap), max(int(minimum), math.floor(duration * fps + 1e-9) + 1))
    if count <= 1:
        return np.array([0]), 1.0 / fps
    spacing = duration / (count - 1)
    targets = np.minimum(t0 + spacing * np.arange(count), t1)
    right = np.clip(np.searchsorted(time, targets), 1, len(time) - 1)
    left = right - 1
    nearest = np.where(targets - time[left] <= time[right] - targets, left, right)
    return nearest, spacing
