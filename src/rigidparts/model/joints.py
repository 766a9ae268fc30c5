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
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import ModelError
from ..units import to_si

__all__ = ["JOINT_TYPES", "Joint", "quaternion_to_matrix", "rotation_about_axis"]

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

#: Names of bodies and joints: a letter or underscore, then letters, digits, ``_`` or ``-``.
NAME_PATTERN = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*$")

#: A quaternion whose norm is further than this from 1 is normalised (any non-zero one is).
_ZERO_QUATERNION = 1e-12


def check_name(parameter: str, name: Any, what: str) -> str:
    """A valid body or joint name, else :class:`ModelError` naming ``parameter``."""
    if not isinstance(name, str) or not NAME_PATTERN.match(name):
        raise ModelError(
            parameter,
            name,
            f"a {what} name must start with a letter or '_' and hold only letters, digits, "
            "'_' and '-' (no dots: 'BODY.FRAME' names a frame)",
        )
    if name == "world":
        raise ModelError(parameter, name, f"'world' is reserved for the fixed world, not a {what}")
    return name


def rotation_about_axis(axis: np.ndarray, angle: float) -> np.ndarray:
    """Rodrigues' formula: ``R = 1 + sin(q) [a]x + (1 - cos(q)) [a]x^2`` for a unit axis a."""
    ax, ay, az = axis
    skew = np.array([[0.0, -az, ay], [az, 0.0, -ax], [-ay, ax, 0.0]])
    return np.eye(3) + math.sin(angle) * skew + (1.0 - math.cos(angle)) * (skew @ skew)


def quaternion_to_matrix(q: Any) -> np.ndarray:
    """The rotation matrix of the quaternion ``(qw, qx, qy, qz)`` (normalised first)."""
    from scipy.spatial.transform import Rotation

    return Rotation.from_quat(np.asarray(q, dtype=np.float64), scalar_first=True).as_matrix()


def matrix_to_quaternion(matrix: Any) -> np.ndarray:
    """The unit quaternion ``(qw, qx, qy, qz)`` of a rotation matrix, with ``qw >= 0``."""
    from scipy.spatial.transform import Rotation

    quat = Rotation.from_matrix(np.asarray(matrix, dtype=np.float64)).as_quat(scalar_first=True)
    return quat if quat[0] >= 0 else -quat


def _numbers(parameter: str, value: Any, count: int, kind: str | None, rule: str) -> np.ndarray:
    """``count`` finite floats; with ``kind``, each item may carry units (``"30 deg"``)."""
    if isinstance(value, str) or not hasattr(value, "__len__"):
        raise ModelError(parameter, value, rule)
    items = list(value)
    if len(items) != count:
        raise ModelError(parameter, value, rule)
    out = []
    for i, item in enumerate(items):
        if kind is None:
            if isinstance(item, bool) or not isinstance(item, int | float | np.floating):
                raise ModelError(parameter, value, rule)
            number = float(item)
        else:
            number = _si(f"{parameter}[{i}]", item, kind)
        if not math.isfinite(number):
            raise ModelError(parameter, value, "must be finite")
        out.append(number)
    return np.array(out)


def _si(parameter: str, value: Any, kind: str) -> float:
    """One number in SI (``kind`` as in :func:`rigidparts.units.to_si`), as a ModelError."""
    try:
        number = to_si(parameter, value, kind)  # type: ignore[arg-type]
    except ModelError:
        raise
    except ValueError as exc:  # a ParameterError: keep its words, make it a ModelError
        rule = getattr(exc, "rule", str(exc))
        raise ModelError(parameter, value, rule) from None
    if not math.isfinite(number):
        raise ModelError(parameter, value, "must be finite")
    return number


def parse_rotation(parameter: str, value: Any) -> np.ndarray:
    """A proper rotation matrix from a 3x3 matrix or a ``scipy`` ``Rotation``."""
    if hasattr(value, "as_matrix"):
        value = value.as_matrix()
    try:
        matrix = np.array(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ModelError(parameter, value, "must be a 3x3 rotation matrix (rows)") from None
    if matrix.shape != (3, 3) or not np.all(np.isfinite(matrix)):
        raise ModelError(parameter, value, "must be a finite 3x3 rotation matrix (rows)")
    if not np.allclose(matrix @ matrix.T, np.eye(3), rtol=0, atol=1e-9):
        raise ModelError(parameter, value, "must be orthonormal (R R^T = 1 within 1e-9)")
    if np.linalg.det(matrix) < 0:
        raise ModelError(parameter, value, "must be a proper rotation (determinant +1)")
    if np.max(np.abs(matrix @ matrix.T - np.eye(3))) <= 4e-16:
        return matrix
    # Re-orthonormalise (nearest rotation) so a matrix typed with 9 digits composes cleanly.
    u, _, vt = np.linalg.svd(matrix)
    return u @ vt


def parse_rpy(parameter: str, value: Any) -> np.ndarray:
    """Roll, pitch, yaw (rad, or with units such as ``"30 deg"``) -> ``R = Rz(y) Ry(p) Rx(r)``.

    The URDF / SDFormat convention: rotations about the fixed x, y, z axes in that order.
    """
    from scipy.spatial.transform import Rotation

    angles = _numbers(parameter, value, 3, "angle", "must be [roll, pitch, yaw] (rad or units)")
    return Rotation.from_euler("xyz", angles).as_matrix()


@dataclass(frozen=True, eq=False)
class Joint:
    """One joint of a :class:`~rigidparts.model.Model` (see the module docstring).

    Built by :meth:`Model.add_joint <rigidparts.model.Model.add_joint>`, which validates every
    field; all arrays are read-only and in SI units.

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
        zero = np.zeros(self.nq)
        if self.type == "ball":
            zero[0] = 1.0
        elif self.type == "free":
            zero[3] = 1.0
        return zero

    # -- kinematics --------------------------------------------------------------------------

    def check_position(self, value: Any, parameter: str | None = None) -> np.ndarray:
        """A joint position as an ndarray (nq,) (quaternions normalised), else ModelError."""
        parameter = parameter or f"q[{self.name!r}]"
        return _position_value(self.type, parameter, value, f"joint {self.name!r}")

    def transform(self, q: Any = None) -> tuple[np.ndarray, np.ndarray]:
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


def _position_value(kind: str, parameter: str, value: Any, who: str) -> np.ndarray:
    """Validate a position of a joint of type ``kind``: (nq,) floats, quaternions normalised."""
    nq = JOINT_TYPES[kind][0]
    if nq == 0:
        raise ModelError(parameter, value, f"{who} is fixed: it has no position")
    if nq == 1:
        value = _single(parameter, value, who)
        unit_kind = "angle" if kind == "revolute" else "length"
        return np.array([_si(parameter, value, unit_kind)])
    if kind == "ball":
        rule = f"{who} is a ball joint: give a quaternion [qw, qx, qy, qz]"
        quat = _numbers(parameter, value, 4, None, rule)
        return _unit_quaternion(parameter, value, quat)
    rule = f"{who} is a free joint: give [x, y, z, qw, qx, qy, qz] (m, then a quaternion)"
    if isinstance(value, str) or not hasattr(value, "__len__") or len(value) != 7:
        raise ModelError(parameter, value, rule)
    items = list(value)
    position = [_si(f"{parameter}[{i}]", items[i], "length") for i in range(3)]
    quat = _numbers(parameter, items[3:], 4, None, rule)
    return np.concatenate([position, _unit_quaternion(parameter, value, quat)])


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
    if not norm > _ZERO_QUATERNION:
        raise ModelError(parameter, value, "the quaternion must not be zero")
    return quat / norm


def _velocity_value(kind: str, parameter: str, value: Any, who: str) -> np.ndarray:
    nv = JOINT_TYPES[kind][1]
    if nv == 0:
        raise ModelError(parameter, value, f"{who} is fixed: it has no velocity")
    if nv == 1:
        value = _single(parameter, value, who)
        if isinstance(value, bool) or not isinstance(value, int | float | np.floating):
            unit = "rad/s" if kind == "revolute" else "m/s"
            raise ModelError(parameter, value, f"must be a number ({unit})")
        number = float(value)
        if not math.isfinite(number):
            raise ModelError(parameter, value, "must be finite")
        return np.array([number])
    names = ", ".join(VELOCITY_SUFFIXES[kind])
    return _numbers(parameter, value, nv, None, f"{who} is a {kind} joint: give [{names}]")


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
    """Validate the per-joint fields (the model checks the tree); see :class:`Joint`."""
    where = f"joints[{index}]"
    who = f"joint {name!r}"
    if not isinstance(type, str) or type not in JOINT_TYPES:
        raise ModelError(f"{where}.type", type, f"must be one of {', '.join(JOINT_TYPES)} ({who})")
    if type == "free" and parent != "world":
        raise ModelError(
            f"{where}.parent",
            parent,
            f"a free joint's parent must be 'world' (the engines float only root bodies; {who})",
        )

    unit_axis = None
    if type in ("revolute", "prismatic"):
        if axis is None:
            raise ModelError(f"{where}.axis", axis, f"a {type} joint needs an axis ({who})")
        vector = _numbers(f"{where}.axis", axis, 3, None, f"must be a 3-vector of numbers ({who})")
        norm = float(np.linalg.norm(vector))
        if not norm > 0.0:
            raise ModelError(f"{where}.axis", axis, f"must be a non-zero vector ({who})")
        unit_axis = vector / norm
    elif axis is not None:
        raise ModelError(f"{where}.axis", axis, f"a {type} joint has no axis ({who})")

    offset = np.zeros(3)
    if position is not None:
        offset = _numbers(
            f"{where}.position", position, 3, "length", f"must be [x, y, z] (m or units; {who})"
        )
    r_pj = np.eye(3) if rotation is None else parse_rotation(f"{where}.rotation", rotation)

    q0 = np.zeros(0)
    v0 = np.zeros(0)
    nq, nv = JOINT_TYPES[type]
    if initial is not None:
        q0 = _position_value(type, f"{where}.initial", initial, who)
    elif nq:
        q0 = np.zeros(nq)
        if type == "ball":
            q0[0] = 1.0
        elif type == "free":
            q0[3] = 1.0
    if initial_velocity is not None:
        v0 = _velocity_value(type, f"{where}.initial_velocity", initial_velocity, who)
    elif nv:
        v0 = np.zeros(nv)

    bounds = None
    if limits is not None:
        if type not in ("revolute", "prismatic"):
            raise ModelError(
                f"{where}.limits", limits, f"only revolute and prismatic joints take limits ({who})"
            )
        unit_kind = "angle" if type == "revolute" else "length"
        lower, upper = _numbers(
            f"{where}.limits", limits, 2, unit_kind, f"must be [lower, upper] ({who})"
        )
        if not lower < upper:
            raise ModelError(f"{where}.limits", limits, f"lower must be below upper ({who})")
        if not lower <= q0[0] <= upper:
            raise ModelError(
                f"{where}.initial", initial, f"must lie within limits {[lower, upper]} ({who})"
            )
        bounds = (float(lower), float(upper))

    if isinstance(damping, bool) or not isinstance(damping, int | float | np.floating):
        raise ModelError(f"{where}.damping", damping, f"must be a number ({who})")
    damping = float(damping)
    if not (damping >= 0.0 and math.isfinite(damping)):
        raise ModelError(f"{where}.damping", damping, f"must be non-negative and finite ({who})")
    if damping and type not in ("revolute", "prismatic"):
        raise ModelError(
            f"{where}.damping",
            damping,
            f"only revolute and prismatic joints take damping (in every format; {who})",
        )

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
        damping=damping,
        index=index,
    )
