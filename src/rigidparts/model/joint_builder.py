"""Validation of a joint's own fields (type, axis, pose, initial state, limits, damping) into
a :class:`~rigidparts.model.joints.Joint`.

:meth:`Model.add_joint <rigidparts.model.Model.add_joint>` resolves the parent and child
frames and checks the tree; :func:`build_joint` checks everything that concerns the joint
alone. Every problem is a :class:`~rigidparts.ModelError` naming ``joints[i].<field>`` and the
joint.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..errors import ModelError
from .joints import JOINT_TYPES, Joint, position_value, velocity_value, zero_position
from .values import numbers
from .values import rotation as parse_rotation

__all__ = ["build_joint"]

#: Joint types that move along / about an axis (and take limits and damping).
AXIAL_TYPES = ("revolute", "prismatic")


def build_joint(
    *,
    index: int,
    name: Any,
    type: Any,
    parent: str,
    child: str,
    parent_body: str | None,
    parent_frame: str | None,
    child_body: str,
    child_frame: str,
    axis: Any,
    position: Any,
    rotation: Any,
    initial: Any,
    initial_velocity: Any,
    limits: Any,
    damping: Any,
) -> Joint:
    """The validated :class:`Joint` (see its attributes for units and frames)."""
    where = f"joints[{index}]"
    who = f"joint {name!r}"
    _check_type(where, who, type, parent)
    unit_axis = _unit_axis(where, who, type, axis)
    offset = np.zeros(3)
    if position is not None:
        rule = f"must be [x, y, z] (m or units; {who})"
        offset = numbers(f"{where}.position", position, 3, "length", rule)
    r_pj = np.eye(3) if rotation is None else parse_rotation(f"{where}.rotation", rotation)
    q0 = (
        zero_position(type)
        if initial is None
        else position_value(type, f"{where}.initial", initial, who)
    )
    v0 = (
        np.zeros(JOINT_TYPES[type][1])
        if initial_velocity is None
        else velocity_value(type, f"{where}.initial_velocity", initial_velocity, who)
    )
    bounds = _limits(where, who, type, limits, initial, q0)
    return Joint(
        name=name,
        type=type,
        parent=parent,
        child=child,
        parent_body=parent_body,
        parent_frame=parent_frame,
        child_body=child_body,
        child_frame=child_frame,
        axis=unit_axis,
        position=offset,
        rotation=r_pj,
        initial=q0,
        initial_velocity=v0,
        limits=bounds,
        damping=_damping(where, who, type, damping),
        index=index,
    )


def _check_type(where: str, who: str, kind: Any, parent: str) -> None:
    if not isinstance(kind, str) or kind not in JOINT_TYPES:
        raise ModelError(f"{where}.type", kind, f"must be one of {', '.join(JOINT_TYPES)} ({who})")
    if kind == "free" and parent != "world":
        raise ModelError(
            f"{where}.parent",
            parent,
            f"a free joint's parent must be 'world' (the engines float only root bodies; {who})",
        )


def _unit_axis(where: str, who: str, kind: str, axis: Any) -> np.ndarray | None:
    """The normalised axis of a revolute or prismatic joint (required); None for the others
    (which must not have one)."""
    if kind not in AXIAL_TYPES:
        if axis is not None:
            raise ModelError(f"{where}.axis", axis, f"a {kind} joint has no axis ({who})")
        return None
    if axis is None:
        raise ModelError(f"{where}.axis", axis, f"a {kind} joint needs an axis ({who})")
    vector = numbers(f"{where}.axis", axis, 3, None, f"must be a 3-vector of numbers ({who})")
    norm = float(np.linalg.norm(vector))
    if not norm > 0.0:
        raise ModelError(f"{where}.axis", axis, f"must be a non-zero vector ({who})")
    return vector / norm


def _limits(
    where: str, who: str, kind: str, limits: Any, initial: Any, q0: np.ndarray
) -> tuple[float, float] | None:
    """``(lower, upper)`` in rad or m, with the initial position inside; None when none."""
    if limits is None:
        return None
    if kind not in AXIAL_TYPES:
        raise ModelError(
            f"{where}.limits", limits, f"only revolute and prismatic joints take limits ({who})"
        )
    unit_kind = "angle" if kind == "revolute" else "length"
    rule = f"must be [lower, upper] ({who})"
    lower, upper = numbers(f"{where}.limits", limits, 2, unit_kind, rule)
    if not lower < upper:
        raise ModelError(f"{where}.limits", limits, f"lower must be below upper ({who})")
    if not lower <= q0[0] <= upper:
        shown = [float(lower), float(upper)]
        if initial is None:  # the user set no initial position: the default 0 is the problem
            raise ModelError(
                f"{where}.limits",
                limits,
                f"must contain the initial position 0 (no initial given) ({who}); give an "
                f"initial position within {shown}",
            )
        raise ModelError(f"{where}.initial", initial, f"must lie within limits {shown} ({who})")
    return float(lower), float(upper)


def _damping(where: str, who: str, kind: str, damping: Any) -> float:
    """Viscous damping >= 0 (N m s/rad or N s/m); only axial joints take a non-zero one."""
    if isinstance(damping, bool) or not isinstance(damping, int | float | np.floating):
        raise ModelError(f"{where}.damping", damping, f"must be a number ({who})")
    value = float(damping)
    if not (value >= 0.0 and math.isfinite(value)):
        raise ModelError(f"{where}.damping", value, f"must be non-negative and finite ({who})")
    if value and kind not in AXIAL_TYPES:
        raise ModelError(
            f"{where}.damping",
            value,
            f"only revolute and prismatic joints take damping (in every format; {who})",
        )
    return value
