"""Rods: the original tool's massless spring-damper between two frames of a model.

A rod joins frame A (``frame_a``) and frame B (``frame_b``), each ``"BODY.FRAME"`` (a plain
``"BODY"`` means ``"BODY.frame_a"``) or ``"world"`` (the world frame's origin). With ``L`` the
distance between the two frames' origins and ``dL/dt`` its rate, the rod pulls the origins
towards each other with the tension

    f = K_d dL/dt + K_s (L - L0)          (N; negative: it pushes them apart)

along the line between them (no force when ``L = 0``, where that line is undefined). ``L0`` is
the rest length (m), ``K_s`` the stiffness (N/m), ``K_d`` the damping (N s/m); the defaults are
the original's, 1 m, 1e6 N/m and 1e4 N s/m. A rod has no mass, no inertia and no degree of
freedom: it is a force element, not a body, and it does not take part in the tree of joints.

Exports: MJCF writes a rod as a spatial tendon between two sites (``springlength`` = L0,
``stiffness`` = K_s, ``damping`` = K_d), so :func:`rigidparts.sim.simulate` runs it; URDF and
SDFormat have no such element and refuse a model with a rod (:func:`refuse_rods`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ModelError
from ..transforms import Transform
from .values import check_name, si_number

#: ``(parameter, text, who, allow_world) -> (body or None, frame or None)``: the model's frame
#: lookup (:meth:`Model._resolve_frame`), which names the item at fault on error.
FrameResolver = Callable[[str, Any, str, bool], tuple[str | None, str | None]]

__all__ = [
    "DEFAULT_DAMPING",
    "DEFAULT_REST_LENGTH",
    "DEFAULT_STIFFNESS",
    "Rod",
    "build_rod",
    "refuse_rods",
]

#: The original tool's defaults: rest length (m), stiffness (N/m), damping (N s/m).
DEFAULT_REST_LENGTH = 1.0
DEFAULT_STIFFNESS = 1e6
DEFAULT_DAMPING = 1e4


@dataclass(frozen=True)
class Rod:
    """A validated massless spring-damper between two frames (build it with
    :meth:`Model.add_rod <rigidparts.model.Model.add_rod>`).

    Attributes
    ----------
    index : int
        Position among the model's rods (``rods[index]`` in messages and the model file).
    name : str
    frame_a, frame_b : str
        The two ends as given, ``"BODY.FRAME"`` (completed: ``"BODY"`` -> ``"BODY.frame_a"``)
        or ``"world"``.
    body_a, frame_name_a, body_b, frame_name_b : str or None
        The ends split into body and frame; None for ``"world"``.
    rest_length : float
        L0, m (>= 0).
    stiffness : float
        K_s, N/m (>= 0).
    damping : float
        K_d, N s/m (>= 0).
    """

    index: int
    name: str
    frame_a: str
    frame_b: str
    body_a: str | None
    frame_name_a: str | None
    body_b: str | None
    frame_name_b: str | None
    rest_length: float
    stiffness: float
    damping: float

    def tension(self, length: Any, rate: Any = 0.0) -> Any:
        """``f = K_d dL/dt + K_s (L - L0)``, N, pulling the ends together when positive.

        ``length`` (m) and ``rate`` (m/s) may be floats or arrays (broadcast)."""
        return self.damping * np.asarray(rate) + self.stiffness * (
            np.asarray(length) - self.rest_length
        )

    def length(self, frame_poses: Mapping[str, Transform]) -> float:
        """L, the distance between the two frames' origins, m, given the world pose of every
        frame: ``rod.length(model.frame_poses(q))``."""
        ends = [
            np.zeros(3) if frame == "world" else np.asarray(frame_poses[frame][1])
            for frame in (self.frame_a, self.frame_b)
        ]
        return float(np.linalg.norm(ends[1] - ends[0]))

    def to_dict(self) -> dict[str, Any]:
        """The rod as the keys of a ``[[rods]]`` entry (SI units)."""
        return {
            "name": self.name,
            "frame_a": self.frame_a,
            "frame_b": self.frame_b,
            "rest_length": self.rest_length,
            "stiffness": self.stiffness,
            "damping": self.damping,
        }


def build_rod(
    index: int,
    name: Any,
    frame_a: Any,
    frame_b: Any,
    *,
    resolve: FrameResolver,
    taken: Collection[str],
    rest_length: Any = DEFAULT_REST_LENGTH,
    stiffness: Any = DEFAULT_STIFFNESS,
    damping: Any = DEFAULT_DAMPING,
) -> Rod:
    """The validated :class:`Rod` number ``index`` of a model whose frames ``resolve`` finds
    and whose bodies, joints and rods hold the names ``taken``. Every problem is a
    :class:`~rigidparts.ModelError` naming ``rods[index].<field>`` and the rod."""
    where = f"rods[{index}]"
    check_name(f"{where}.name", name, "rod")
    who = f"rod {name!r}"
    if name in taken:
        raise ModelError(f"{where}.name", name, "the name is already used in the model")
    ends = []
    for key, text in (("frame_a", frame_a), ("frame_b", frame_b)):
        body, frame = resolve(f"{where}.{key}", text, who, True)
        ends.append((body, frame, "world" if body is None else f"{body}.{frame}"))
    (body_a, name_a, full_a), (body_b, name_b, full_b) = ends
    if body_a == body_b:  # both on one body, or both the world: no relative motion
        what = "the world" if body_a is None else f"body {body_a!r}"
        raise ModelError(
            f"{where}.frame_b",
            frame_b,
            f"both ends are on {what}, which holds the rod's length fixed (a pointless rod); "
            f"join two bodies, or a body and 'world' ({who})",
        )
    return Rod(
        index=index,
        name=name,
        frame_a=full_a,
        frame_b=full_b,
        body_a=body_a,
        frame_name_a=name_a,
        body_b=body_b,
        frame_name_b=name_b,
        rest_length=_non_negative(where, who, "rest_length", rest_length, "length", "m"),
        stiffness=_non_negative(where, who, "stiffness", stiffness, "stiffness", "N/m"),
        damping=_non_negative(where, who, "damping", damping, "damping", "N s/m"),
    )


def _non_negative(where: str, who: str, key: str, value: Any, kind: str, unit: str) -> float:
    """A finite number >= 0 in SI (units allowed: ``"500 mm"``, ``"2 kN/m"``)."""
    number = si_number(f"{where}.{key}", value, kind)
    if not (number >= 0.0 and math.isfinite(number)):
        rule = f"must be non-negative and finite ({unit}; {who})"
        raise ModelError(f"{where}.{key}", value, rule)
    return number


def refuse_rods(rods: Mapping[str, Rod], format_name: str) -> None:
    """Raise :class:`~rigidparts.ModelError` naming the first of a model's ``rods`` when there
    is one: ``format_name`` (URDF, SDFormat) has no spring-damper between two frames."""
    for rod in rods.values():
        raise ModelError(
            f"rods[{rod.index}]",
            rod.name,
            f"{format_name} has no element for a spring-damper between two frames, so rod "
            f"{rod.name!r} ({rod.frame_a} to {rod.frame_b}) cannot be exported to it; export "
            "MJCF (a spatial tendon), or remove the rod",
        )
