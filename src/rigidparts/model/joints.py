"""Joints: how a child body's frame moves relative to its parent frame.

A joint connects a *parent frame* P (``world``, or ``BODY.FRAME`` such as ``arm.frame_b``) to a
*child frame* C (``BODY.FRAME``). The joint frame J sits in P at ``position`` (``p_PoJo_P``, m)
with orientation ``rotation`` (``R_PJ``; identity by default). At joint position zero C
coincides with J; the joint position q moves C relative to J:

================  ==  ==  ==================================================================
type              nq  nv  ``X_JC(q)``
================  ==  ==  ==================================================================
``revolute``       1   1  rotation by q (rad) about ``axis`` (right-handed), through Jo
``prismatic``      1   1  translation by q (m) along ``axis``
``fixed``          0   0  identity
``ball``           4   3  rotation by the unit quaternion q = (qw, qx, qy, qz); velocity: the
                          angular velocity of C relative to J, expressed in C (rad/s)
``free``           7   6  q = (x, y, z, qw, qx, qy, qz): C's origin in J (m) and C's
                          orientation; velocity (vx, vy, vz, wx, wy, wz): the velocity of C's
                          origin in J's axes (m/s) and C's angular velocity in C's axes (rad/s)
================  ==  ==  ==================================================================

``axis`` is given in the parent frame P (as in the file format) and stored normalised; since J
and C coincide at q = 0 the same axis, re-expressed in J (``R_PJ^T axis``), is the axis in C.
The velocity conventions of ``ball`` and ``free`` are MuJoCo's, so simulation results map
one to one.

This module holds the joint types, the :class:`Joint` value type (its coordinates and its
motion ``X_JC(q)``) and the validation of joint coordinates; the other fields are validated by
:mod:`.joint_builder`, the poses composed with :mod:`rigidparts.transforms`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import ModelError
from ..transforms import ZERO_QUATERNION, Transform, quaternion_to_matrix, rotation_about_axis
from .values import numbers, plain_number, si_number

__all__ = [
    "JOINT_TYPES",
    "POSITION_SUFFIXES",
    "VELOCITY_SUFFIXES",
    "Joint",
    "position_value",
    "velocity_value",
    "zero_position",
]

#: Joint type -> (number of position coordinates nq, number of velocity coordinates nv).
JOINT_TYPES: dict[str, tuple[int, int]] = {
    "revolute": (1, 1),
    "prismatic": (1, 1),
    "fixed": (0, 0),
    "ball": (4, 3),
    "free": (7, 6),
}

#: Suffixes of the position and velocity coordinates of multi-coordinate joints.
POSITION_SUFFIXES = {
    "ball": ("qw", "qx", "qy", "qz"),
    "free": ("x", "y", "z", "qw", "qx", "qy", "qz"),
}
VELOCITY_SUFFIXES = {
    "ball": ("wx", "wy", "wz"),
    "free": ("vx", "vy", "vz", "wx", "wy", "wz"),
}


@dataclass(frozen=True, eq=False)
class Joint:
    """One joint of a :class:`~rigidparts.model.Model` (see the module docstring).

    Built by :meth:`Model.add_joint <rigidparts.model.Model.add_joint>` (through
    :func:`rigidparts.model.joint_builder.build_joint`, which validates every field); all
    arrays are read-only and in SI units.

    Attributes
    ----------
    name, type : str
    parent : str
        ``"world"`` or ``"BODY.FRAME"``.
    child : str
        ``"BODY.FRAME"``.
    axis : ndarray (3,) or None
        Unit axis in the parent frame (revolute and prismatic joints only).
    position : ndarray (3,)
        ``p_PoJo_P``: the joint frame's origin in the parent frame, m.
    rotation : ndarray (3, 3)
        ``R_PJ``: the joint frame's orientation in the parent frame.
    initial, initial_velocity : ndarray (nq,), (nv,)
        Initial position and velocity (the identity quaternion / zero by default).
    limits : tuple (lower, upper) or None
        Position limits (rad or m) of a revolute or prismatic joint.
    damping : float
        Viscous damping, N m s/rad or N s/m.
    """

    name: str
    type: str
    parent: str
    child: str
    parent_body: str | None
    parent_frame: str | None
    child_body: str
    child_frame: str
    axis: np.ndarray | None
    position: np.ndarray
    rotation: np.ndarray
    initial: np.ndarray
    initial_velocity: np.ndarray
    limits: tuple[float, float] | None = None
    damping: float = 0.0
    index: int = field(default=0, repr=False)

    def __post_init__(self) -> None:
        for name in ("axis", "position", "rotation", "initial", "initial_velocity"):
            value = getattr(self, name)
            if value is not None:
                array = np.array(value, dtype=np.float64)
                array.setflags(write=False)
                object.__setattr__(self, name, array)

    # -- sizes and names ---------------------------------------------------------------------

    @property
    def nq(self) -> int:
        """Number of position coordinates (1, 0, 4 or 7)."""
        return JOINT_TYPES[self.type][0]

    @property
    def nv(self) -> int:
        """Number of velocity coordinates (1, 0, 3 or 6)."""
        return JOINT_TYPES[self.type][1]

    @property
    def position_names(self) -> tuple[str, ...]:
        """Column names of the position coordinates: ``hinge``; ``ball.qw``, ...; none."""
        if self.nq == 1:
            return (self.name,)
        return tuple(f"{self.name}.{s}" for s in POSITION_SUFFIXES.get(self.type, ()))

    @property
    def velocity_names(self) -> tuple[str, ...]:
        """Column names of the velocity coordinates: ``hinge.velocity``; ``ball.wx``, ..."""
        if self.nv == 1:
            return (f"{self.name}.velocity",)
        return tuple(f"{self.name}.{s}" for s in VELOCITY_SUFFIXES.get(self.type, ()))

    @property
    def axis_in_joint(self) -> np.ndarray | None:
        """The axis in J's (and, at q = 0, C's) coordinates: ``R_PJ^T axis``."""
        return None if self.axis is None else self.rotation.T @ self.axis

    @property
    def zero_position(self) -> np.ndarray:
        """The joint position at which C coincides with J (identity quaternion for rotations)."""
        return zero_position(self.type)

    # -- kinematics --------------------------------------------------------------------------

    def check_position(self, value: Any, parameter: str | None = None) -> np.ndarray:
        """A joint position as an ndarray (nq,) (quaternions normalised), else ModelError."""
        parameter = parameter or f"q[{self.name!r}]"
        return position_value(self.type, parameter, value, f"joint {self.name!r}")

    def transform(self, q: Any = None) -> Transform:
        """``(R_JC, p_JoCo_J)``: the child frame's pose in the joint frame at position ``q``
        (default: zero)."""
        if self.type == "fixed" or q is None:
            return np.eye(3), np.zeros(3)
        q = self.check_position(q)
        if self.type == "revolute":
            return rotation_about_axis(self.axis_in_joint, float(q[0])), np.zeros(3)
        if self.type == "prismatic":
            return np.eye(3), float(q[0]) * self.axis_in_joint
        if self.type == "ball":
            return quaternion_to_matrix(q), np.zeros(3)
        return quaternion_to_matrix(q[3:]), q[:3].copy()  # free

    def to_dict(self) -> dict[str, Any]:
        """The joint as the keys of the model file (SI units)."""
        out: dict[str, Any] = {
            "name": self.name,
            "type": self.type,
            "parent": self.parent,
            "child": self.child,
        }
        if self.axis is not None:
            out["axis"] = self.axis.tolist()
        if np.any(self.position):
            out["position"] = self.position.tolist()
        if not np.array_equal(self.rotation, np.eye(3)):
            out["rotation"] = self.rotation.tolist()
        if self.nq and not np.array_equal(self.initial, self.zero_position):
            out["initial"] = self.initial[0] if self.nq == 1 else self.initial.tolist()
        if self.nv and np.any(self.initial_velocity):
            velocity = self.initial_velocity
            out["initial_velocity"] = velocity[0] if self.nv == 1 else velocity.tolist()
        if self.limits is not None:
            out["limits"] = list(self.limits)
        if self.damping:
            out["damping"] = self.damping
        return out


# -- joint coordinates ---------------------------------------------------------------------


def zero_position(kind: str) -> np.ndarray:
    """The position (nq,) of a ``kind`` joint at which C coincides with J: zeros, with the
    identity quaternion for ball and free joints."""
    zero = np.zeros(JOINT_TYPES[kind][0])
    if kind == "ball":
        zero[0] = 1.0
    elif kind == "free":
        zero[3] = 1.0
    return zero


def position_value(kind: str, parameter: str, value: Any, who: str) -> np.ndarray:
    """A position of a ``kind`` joint as an ndarray (nq,): one number (rad or m, units
    allowed), a quaternion (ball) or ``[x, y, z, qw, qx, qy, qz]`` (free), quaternions
    normalised; ModelError naming ``parameter`` and ``who`` else."""
    nq = JOINT_TYPES[kind][0]
    if nq == 0:
        raise ModelError(parameter, value, f"{who} is fixed: it has no position")
    if nq == 1:
        value = _single(parameter, value, who)
        unit_kind = "angle" if kind == "revolute" else "length"
        return np.array([si_number(parameter, value, unit_kind)])
    if kind == "ball":
        rule = f"{who} is a ball joint: give a quaternion [qw, qx, qy, qz]"
        quat = numbers(parameter, value, 4, None, rule)
        return _unit_quaternion(parameter, value, quat)
    rule = f"{who} is a free joint: give [x, y, z, qw, qx, qy, qz] (m, then a quaternion)"
    if isinstance(value, str) or not hasattr(value, "__len__") or len(value) != 7:
        raise ModelError(parameter, value, rule)
    items = list(value)
    position = [si_number(f"{parameter}[{i}]", items[i], "length") for i in range(3)]
    quat = numbers(parameter, items[3:], 4, None, rule)
    return np.concatenate([position, _unit_quaternion(parameter, value, quat)])


def velocity_value(kind: str, parameter: str, value: Any, who: str) -> np.ndarray:
    """A velocity of a ``kind`` joint as an ndarray (nv,) of plain numbers (rad/s or m/s; the
    conventions of the module docstring); ModelError naming ``parameter`` else."""
    nv = JOINT_TYPES[kind][1]
    if nv == 0:
        raise ModelError(parameter, value, f"{who} is fixed: it has no velocity")
    if nv == 1:
        value = _single(parameter, value, who)
        unit = "rad/s" if kind == "revolute" else "m/s"
        return np.array([plain_number(parameter, value, f"must be a number ({unit})")])
    names = ", ".join(VELOCITY_SUFFIXES[kind])
    return numbers(parameter, value, nv, None, f"{who} is a {kind} joint: give [{names}]")


def _single(parameter: str, value: Any, who: str) -> Any:
    """A one-coordinate joint's value: a number, or a one-element sequence unwrapped."""
    if hasattr(value, "__len__") and not isinstance(value, str):
        items = list(value)
        if len(items) != 1:
            raise ModelError(parameter, value, f"{who} has one coordinate: give one number")
        return items[0]
    return value


def _unit_quaternion(parameter: str, value: Any, quat: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(quat))
    if not norm > ZERO_QUATERNION:
        raise ModelError(parameter, value, "the quaternion must not be zero")
    return quat / norm
