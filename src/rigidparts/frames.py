"""Frames and the axis / cross-section rule.

A body's own frame is ``frame_a``. Its axis ``e_axis`` and, for shapes with a non-round section,
the height and width directions ``h`` and ``w`` are unit vectors expressed in frame_a; together
``R_AC = [e_axis | h | w]`` (columns) is the rotation from the shape's canonical frame C (axis
along +x, height along +y, width along +z) to frame_a. The rule (``NOTES.md``):

- ``e_axis`` is the given axis, normalised; it must be finite and non-zero.
- ``h``: take the world axis that cyclically follows the largest-magnitude component of
  ``e_axis`` (x -> y, y -> z, z -> x; ties go to the earlier of x, y, z), remove its component
  along ``e_axis`` and normalise. So +x gives h = +y, w = +z; +y gives h = +z, w = +x; +z gives
  h = +x, w = +y.
- ``w = e_axis x h``.
- ``rotate90`` replaces ``(h, w)`` by ``(w, -h)``: the section turns 90 degrees about the axis.
- An explicit ``height_direction`` (not parallel to the axis) replaces the rule for ``h``;
  ``rotate90`` then still turns the section.

The functions here take and return plain floats and use only arithmetic and ``math.sqrt``, so
the batch path compiles the very same code (see :mod:`rigidparts.batch`).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = [
    "FRAME_RULES",
    "Frame",
    "body_frame",
    "cached_body_frame",
    "cross_section_rotation",
    "named_frames",
    "normalized_axis",
]

#: A height direction within this angle's sine of the axis counts as parallel to it.
PARALLEL_SINE = 1e-9


@dataclass(frozen=True)
class Frame:
    """A frame attached to a body, relative to the body's frame_a.

    Attributes
    ----------
    position : ndarray, shape (3,)
        The frame's origin, in metres, expressed in frame_a (``p_AoFo_A``).
    rotation : ndarray, shape (3, 3)
        The frame's orientation ``R_AF``: its columns are the frame's x, y, z axes expressed in
        frame_a. All frames of the seed shapes share frame_a's orientation (identity).
    """

    position: np.ndarray
    rotation: np.ndarray = field(default_factory=lambda: np.eye(3))

    def __post_init__(self) -> None:
        position = np.array(self.position, dtype=np.float64).reshape(3) + 0.0  # no -0.0
        rotation = np.array(self.rotation, dtype=np.float64).reshape(3, 3)
        position.setflags(write=False)
        rotation.setflags(write=False)
        object.__setattr__(self, "position", position)
        object.__setattr__(self, "rotation", rotation)

    @property
    def transform(self) -> np.ndarray:
        """The 4x4 homogeneous transform ``X_AF`` (rotation and position)."""
        out = np.eye(4)
        out[:3, :3] = self.rotation
        out[:3, 3] = self.position
        return out

    def to_dict(self) -> dict[str, list]:
        """``{"position": [x, y, z], "rotation": [[...], [...], [...]]}`` as plain floats."""
        return {"position": self.position.tolist(), "rotation": self.rotation.tolist()}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Frame):
            return NotImplemented
        return bool(
            np.array_equal(self.position, other.position)
            and np.array_equal(self.rotation, other.rotation)
        )

    __hash__ = None  # type: ignore[assignment]  # holds arrays: not hashable


def normalized_axis(ax: float, ay: float, az: float) -> tuple[float, float, float]:
    """The unit vector along ``(ax, ay, az)``; ``(nan, nan, nan)`` for a zero or non-finite one.

    Scaled by the largest component first, so neither tiny nor huge vectors under/overflow,
    and an exact axis such as ``(0, 5, 0)`` gives exactly ``(0, 1, 0)``.
    """
    ax, ay, az = ax + 0.0, ay + 0.0, az + 0.0  # -0.0 -> +0.0: equal inputs, equal bits
    scale = max(abs(ax), abs(ay), abs(az))
    if not (scale > 0.0 and scale < math.inf):
        return math.nan, math.nan, math.nan
    x, y, z = ax / scale, ay / scale, az / scale
    norm = math.sqrt(x * x + y * y + z * z)
    return x / norm, y / norm, z / norm


def cross_section_rotation(
    ex: float,
    ey: float,
    ez: float,
    rotate90: bool,
    hx: float,
    hy: float,
    hz: float,
) -> tuple[float, float, float, float, float, float]:
    """The height and width directions ``h`` and ``w`` for the unit axis ``e``.

    ``(hx, hy, hz)`` is an explicit height direction, or ``(0, 0, 0)`` for the rule of the
    module docstring. Returns ``(hx, hy, hz, wx, wy, wz)``; NaNs when the explicit height
    direction is zero, non-finite or parallel to the axis (sine of the angle below
    :data:`PARALLEL_SINE`).
    """
    if hx == 0.0 and hy == 0.0 and hz == 0.0:
        # The world axis cyclically after the largest |component| (ties: the earlier one).
        if abs(ex) >= abs(ey) and abs(ex) >= abs(ez):
            ux, uy, uz = 0.0, 1.0, 0.0
        elif abs(ey) >= abs(ez):
            ux, uy, uz = 0.0, 0.0, 1.0
        else:
            ux, uy, uz = 1.0, 0.0, 0.0
    else:
        ux, uy, uz = normalized_axis(hx, hy, hz)
    along = ux * ex + uy * ey + uz * ez
    px, py, pz = ux - along * ex, uy - along * ey, uz - along * ez
    sine = math.sqrt(px * px + py * py + pz * pz)
    if not sine >= PARALLEL_SINE:
        return math.nan, math.nan, math.nan, math.nan, math.nan, math.nan
    hx, hy, hz = normalized_axis(px, py, pz)
    wx, wy, wz = ey * hz - ez * hy, ez * hx - ex * hz, ex * hy - ey * hx
    if rotate90:
        hx, hy, hz, wx, wy, wz = wx, wy, wz, -hx, -hy, -hz
    return hx, hy, hz, wx, wy, wz


#: ``(parameter, rule)`` for the codes of :func:`body_frame` (code ``1 + index``).
FRAME_RULES = (
    ("axis", "must be finite"),
    ("axis", "must be a non-zero vector"),
    ("height_direction", "must be finite"),
    ("height_direction", "must be non-zero and not parallel to axis"),
)


def body_frame(
    ax: float,
    ay: float,
    az: float,
    rotate90: bool,
    explicit_height: bool,
    hx: float,
    hy: float,
    hz: float,
) -> tuple[int, float, float, float, float, float, float, float, float, float]:
    """``(code, e, h, w)`` for a raw axis, ``rotate90`` and, when ``explicit_height``, the
    height direction ``(hx, hy, hz)``: code 0 and the unit vectors (9 floats), or ``1 + i`` for
    the first broken rule ``FRAME_RULES[i]`` and NaNs. Rules are checked in the order axis
    finite, height finite, height non-zero, axis non-zero, height not parallel."""
    nan = math.nan
    if not (abs(ax) < math.inf and abs(ay) < math.inf and abs(az) < math.inf):
        return 1, nan, nan, nan, nan, nan, nan, nan, nan, nan
    if not explicit_height:
        hx, hy, hz = 0.0, 0.0, 0.0  # the rule's marker
    elif not (abs(hx) < math.inf and abs(hy) < math.inf and abs(hz) < math.inf):
        return 3, nan, nan, nan, nan, nan, nan, nan, nan, nan
    elif hx == 0.0 and hy == 0.0 and hz == 0.0:
        return 4, nan, nan, nan, nan, nan, nan, nan, nan, nan
    ex, ey, ez = normalized_axis(ax, ay, az)
    if math.isnan(ex):
        return 2, nan, nan, nan, nan, nan, nan, nan, nan, nan
    h0, h1, h2, w0, w1, w2 = cross_section_rotation(ex, ey, ez, rotate90, hx, hy, hz)
    if math.isnan(h0):
        return 4, nan, nan, nan, nan, nan, nan, nan, nan, nan
    return 0, ex, ey, ez, h0, h1, h2, w0, w1, w2


#: :func:`body_frame`, cached: models and sweeps build many bodies along the same few axes,
#: and this is a third of a body's construction time. (``normalized_axis`` maps -0.0 to +0.0
#: first, so equal keys such as -0.0 and 0.0 give bit-identical frames.)
cached_body_frame = functools.lru_cache(maxsize=1024)(body_frame)


def named_frames(value: Any, parameter: str = "frames") -> tuple[tuple[str, Frame], ...]:
    """User-named frames, ``((name, Frame), ...)`` in the given order, from ``value``: None, or
    a mapping ``name -> position`` or ``name -> {"position": ..., "rotation": ...}``, with
    ``position`` three lengths in frame_a (m, or with units: ``("10 mm", 0, 0)``) and
    ``rotation`` ``R_AF`` (a 3x3 proper rotation, rows; default identity). Names are
    identifiers not starting with ``frame_`` (the body's own frames). ParameterError naming
    ``frames.<name>`` otherwise."""
    from collections.abc import Mapping

    from .errors import ParameterError
    from .transforms import as_rotation
    from .units import to_si

    if value is None:
        return ()
    if not isinstance(value, Mapping):
        raise ParameterError(
            parameter,
            value,
            "must be a mapping of frame names to positions in frame_a, e.g. "
            "{'mount': ('10 mm', 0, 0)} or {'tool': {'position': ..., 'rotation': ...}}",
        )
    out: list[tuple[str, Frame]] = []
    for name, spec in value.items():
        where = f"{parameter}.{name}"
        if not isinstance(name, str) or not name.isidentifier() or name.startswith("frame_"):
            raise ParameterError(
                parameter, name, "frame names must be identifiers not starting with 'frame_'"
            )
        rotation: Any = None
        if isinstance(spec, Mapping):
            unknown = set(spec) - {"position", "rotation"}
            if unknown or "position" not in spec:
                raise ParameterError(
                    where, spec, "must have a 'position' and optionally a 'rotation', nothing else"
                )
            position, rotation = spec["position"], spec.get("rotation")
        else:
            position = spec
        if isinstance(position, str) or not hasattr(position, "__len__") or len(position) != 3:
            raise ParameterError(f"{where}.position", position, "must be three lengths (x, y, z)")
        xyz = [to_si(f"{where}.position[{i}]", v, "length") for i, v in enumerate(position)]
        if not all(math.isfinite(v) for v in xyz):
            raise ParameterError(f"{where}.position", position, "must be finite (m)")
        r_af = np.eye(3) if rotation is None else as_rotation(rotation, f"{where}.rotation")
        out.append((name, Frame(np.array(xyz), r_af)))
    return tuple(out)
