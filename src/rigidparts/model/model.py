"""The multibody model: named bodies joined into a tree by joints.

Notation (Drake's monogram style, as in :mod:`rigidparts.inertia`): ``X_AB = (R_AB, p_AoBo_A)``
is the pose of frame B in frame A, composed as ``X_AC = X_AB X_BC``. W is the world, A a
body's frame_a, P a joint's parent frame, J its joint frame and C its child frame.

The pose of each body follows from its parent's along the tree::

    X_WA = X_WBp  X_BpP  X_PJ  X_JC(q)  X_CA

with ``X_BpP`` the parent frame in the parent body (identity for ``world``), ``X_PJ`` the joint's
``position`` / ``rotation``, ``X_JC(q)`` the joint's motion (:mod:`.joints`) and
``X_CA = X_AC^-1`` the child frame in the child body, inverted (poses compose with
:mod:`rigidparts.transforms`).

Each body has an :class:`~rigidparts.appearance.Appearance` (colour, opacity, visibility):
the one given to :meth:`Model.add_body` (or :meth:`Model.set_appearance`), else the default
palette entry for its index, so every picture, viewer and export shows the same colours.

Rules (trees only), each a :class:`~rigidparts.ModelError` naming the item at fault: a joint's
frames must exist, a body has at most one parent joint, no cycles, exactly one joint attaches to
``world`` (the root), every body is attached by a joint, names are unique across bodies and
joints.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np

from ..appearance import Appearance, appearance
from ..component import Component
from ..errors import ModelError, ParameterError
from ..inertia import MassProperties
from ..transforms import IDENTITY, Transform, compose, invert
from .joint_builder import build_joint
from .joints import Joint
from .rods import DEFAULT_DAMPING, DEFAULT_REST_LENGTH, DEFAULT_STIFFNESS, Rod, build_rod
from .values import check_name

__all__ = ["INTEGRATORS", "Model", "SimulationSettings"]

#: MuJoCo's integrators, by the names the model file and the command line accept.
INTEGRATORS = ("RK4", "implicitfast", "implicit", "Euler")


@dataclass
class SimulationSettings:
    """Defaults for :func:`rigidparts.sim.simulate` stored with the model (``[simulation]``).

    ``duration`` and ``timestep`` in s; ``integrator`` one of :data:`INTEGRATORS`;
    ``contacts``: True to let the bodies' geometry collide (off by default: bodies interact
    only through their joints, as in the original tool). None means "use simulate's default".
    """

    duration: float | None = None
    timestep: float | None = None
    integrator: str | None = None
    contacts: bool | None = None


class Model:
    """A multibody model: named bodies (``rp.Box``, ``rp.Cone``, ...) and the joints that tie
    them into a tree rooted at the world.

    Parameters
    ----------
    name : str
        The model's name (used in the exported files).
    gravity : 3-vector
        The gravitational acceleration in world coordinates, m/s^2.

    Example
    -------
    >>> model = rp.Model("pendulum")
    >>> arm = model.add_body("arm", rp.Box(length=1, width=0.02, height=0.02, axis=(0, 0, -1)))
    >>> model.add_joint("hinge", "revolute", "world", "arm.frame_a", axis=(0, 1, 0),
    ...                 position=(0, 0, 1.5), initial=0.01)

    A model is library data only: load one with :func:`rigidparts.model.load_model`, write it
    with :func:`rigidparts.export.export`, run it with :func:`rigidparts.sim.simulate`.
    """

    def __init__(self, name: str = "model", gravity: Any = (0.0, 0.0, -9.81)) -> None:
        if not isinstance(name, str) or not name.strip():
            raise ModelError("name", name, "must be a non-empty string")
        if any(c in name for c in "<>&\"'") or name != name.strip():
            raise ModelError("name", name, "must not hold XML special characters or edge spaces")
        self.name = name
        try:
            g = np.array(gravity, dtype=np.float64).reshape(3)
        except (TypeError, ValueError):
            raise ModelError("gravity", gravity, "must be a 3-vector of numbers (m/s^2)") from None
        if isinstance(gravity, str) or not np.all(np.isfinite(g)):
            raise ModelError("gravity", gravity, "must be a finite 3-vector (m/s^2)")
        g.setflags(write=False)
        self.gravity = g
        self.simulation = SimulationSettings()
        self._bodies: dict[str, Component] = {}
        self._joints: dict[str, Joint] = {}
        self._parent_joint: dict[str, Joint] = {}
        self._children: dict[str | None, list[Joint]] = {None: []}
        self._up: dict[str, str | None] = {}  # union-find of the trees (see _top)
        self._checked = False  # check() passed since the last change
        self._rods: dict[str, Rod] = {}
        self._appearances: dict[str, Appearance] = {}
        self._given_looks: dict[str, dict[str, Any]] = {}  # the keys given, for to_dict

    # -- building ----------------------------------------------------------------------------

    @property
    def bodies(self) -> Mapping[str, Component]:
        """Ordered ``name -> body`` (read-only view)."""
        return MappingProxyType(self._bodies)

    @property
    def joints(self) -> Mapping[str, Joint]:
        """Ordered ``name -> Joint`` (read-only view)."""
        return MappingProxyType(self._joints)

    def add_body(
        self,
        name: str,
        body: Component,
        *,
        color: Any = None,
        opacity: Any = None,
        visible: Any = None,
    ) -> Component:
        """Add ``body`` under ``name``; returns the body.

        ``color`` (a CSS colour name, ``"#rrggbb"`` or three numbers in [0, 1]), ``opacity``
        (0..1, 1 opaque) and ``visible`` say how pictures, the viewer and the exports show it;
        each one left None takes the default for the body's index
        (:func:`rigidparts.appearance.default_appearance`). See :meth:`appearance`.
        """
        check_name(f"bodies.{name}", name, "body")
        if not isinstance(body, Component):
            raise ModelError(
                f"bodies.{name}", body, "must be a rigidparts body such as rp.Box(...) or rp.Cone()"
            )
        if name in self._bodies or name in self._joints or name in self._rods:
            raise ModelError(f"bodies.{name}", name, "the name is already used in the model")
        looks = self._looks(name, len(self._bodies), color, opacity, visible)
        self._bodies[name] = body
        self._children[name] = []
        self._up[name] = name  # a tree of its own until a joint attaches it
        self._appearances[name], self._given_looks[name] = looks
        self._checked = False
        return body

    def _looks(
        self, name: str, index: int, color: Any = None, opacity: Any = None, visible: Any = None
    ) -> tuple[Appearance, dict[str, Any]]:
        """The appearance of body ``name`` (the ``index``-th) and the keys given, checked;
        a bad value is a :class:`ModelError` naming ``bodies.NAME.KEY``."""
        given = {"color": color, "opacity": opacity, "visible": visible}
        given = {key: value for key, value in given.items() if value is not None}
        try:
            looks = appearance(**given, default_index=index)
        except ParameterError as exc:
            raise ModelError(f"bodies.{name}.{exc.parameter}", exc.value, exc.rule) from None
        return looks, {key: getattr(looks, key) for key in given}

    def appearance(self, name: str) -> Appearance:
        """How body ``name`` is shown: the colour, opacity and visibility given to
        :meth:`add_body` / :meth:`set_appearance`, each missing one the default for the body's
        index in the model (:func:`rigidparts.appearance.default_appearance`)."""
        if name not in self._bodies:
            known = ", ".join(self._bodies) or "none"
            raise ModelError("body", name, f"names no body (bodies: {known})")
        return self._appearances[name]

    def set_appearance(
        self, name: str, *, color: Any = None, opacity: Any = None, visible: Any = None
    ) -> Appearance:
        """Change how body ``name`` is shown (the keys given replace the previous ones; the
        others are kept); returns the new :class:`Appearance`."""
        self.appearance(name)  # the body exists
        given = dict(self._given_looks[name])
        given.update(
            {
                key: value
                for key, value in (("color", color), ("opacity", opacity), ("visible", visible))
                if value is not None
            }
        )
        index = list(self._bodies).index(name)
        self._appearances[name], self._given_looks[name] = self._looks(name, index, **given)
        return self._appearances[name]

    def add_joint(
        self,
        name: str,
        type: str,
        parent: str,
        child: str,
        *,
        axis: Any = None,
        position: Any = None,
        rotation: Any = None,
        initial: Any = None,
        initial_velocity: Any = None,
        limits: Any = None,
        damping: Any = 0.0,
    ) -> Joint:
        """Join ``child`` (``"BODY.FRAME"``) to ``parent`` (``"world"`` or ``"BODY.FRAME"``).

        Parameters
        ----------
        name : str
            Unique among bodies and joints.
        type : {"revolute", "prismatic", "fixed", "ball", "free"}
        parent, child : str
            Frames; ``"BODY"`` alone means ``"BODY.frame_a"``. At position zero the child frame
            coincides with the joint frame.
        axis : 3-vector, optional
            Revolute / prismatic axis, in the parent frame (required for those, else refused).
        position : 3-vector, optional
            The joint frame's origin in the parent frame (m, or strings with units).
        rotation : 3x3 matrix or scipy Rotation, optional
            The joint frame's orientation in the parent frame, ``R_PJ``.
        initial : float or array, optional
            Initial position: rad (or ``"5 deg"``) / m, a quaternion ``[qw, qx, qy, qz]`` for a
            ball, ``[x, y, z, qw, qx, qy, qz]`` for a free joint.
        initial_velocity : float or array, optional
            rad/s or m/s; ``[wx, wy, wz]`` (ball), ``[vx, vy, vz, wx, wy, wz]`` (free).
        limits : (lower, upper), optional
            Position limits of a revolute / prismatic joint.
        damping : float
            Viscous damping of a revolute / prismatic joint (N m s/rad or N s/m).
        """
        index = len(self._joints)
        where = f"joints[{index}]"
        check_name(f"{where}.name", name, "joint")
        who = f"joint {name!r}"
        if name in self._joints or name in self._bodies or name in self._rods:
            raise ModelError(f"{where}.name", name, "the name is already used in the model")
        parent_body, parent_frame = self._resolve_frame(f"{where}.parent", parent, who, True)
        child_body, child_frame = self._resolve_frame(f"{where}.child", child, who, False)
        assert child_body is not None and child_frame is not None
        if child_body in self._parent_joint:
            other = self._parent_joint[child_body]
            raise ModelError(
                f"{where}.child",
                child,
                f"body {child_body!r} already has the parent joint {other.name!r}: a body has "
                f"one parent (trees only; {who})",
            )
        if parent_body is None and self._children[None]:
            root = self._children[None][0]
            raise ModelError(
                f"{where}.parent",
                parent,
                f"a second root: joint {root.name!r} already attaches {root.child_body!r} to "
                f"world; a model has one root ({who})",
            )
        if parent_body is not None and self._top(parent_body) == child_body:
            raise ModelError(
                f"{where}.child",
                child,
                f"closes a cycle {self._loop(parent_body, child_body)} (trees only; {who})",
            )
        joint = build_joint(
            index=index,
            name=name,
            type=type,
            parent="world" if parent_body is None else f"{parent_body}.{parent_frame}",
            child=f"{child_body}.{child_frame}",
            parent_body=parent_body,
            parent_frame=parent_frame,
            child_body=child_body,
            child_frame=child_frame,
            axis=axis,
            position=position,
            rotation=rotation,
            initial=initial,
            initial_velocity=initial_velocity,
            limits=limits,
            damping=damping,
        )
        self._joints[name] = joint
        self._parent_joint[child_body] = joint
        self._children[parent_body].append(joint)
        # the child's tree hangs below the parent's now: its top is the parent's top
        self._up[child_body] = None if parent_body is None else self._top(parent_body)
        self._checked = False
        return joint

    def _top(self, body: str) -> str | None:
        """The top of ``body``'s tree: the highest body above it, or None when that is attached
        to the world. A union-find over ``_up`` (each body points to some body above it, to
        itself at a top, or to None under the world) with path compression, so that building
        a chain of n bodies costs O(n log n), not the O(n^2) of walking to the root per joint."""
        node: str | None = body
        while node is not None and self._up[node] != node:
            node = self._up[node]
        top, node = node, body
        while node is not None and node != top:  # compress: point the path at the top
            above = self._up[node]
            self._up[node] = top
            node = above
        return top

    def _loop(self, parent_body: str, child_body: str) -> str:
        """``"child -> ... -> parent -> child"``: the cycle a joint from ``parent_body`` to
        ``child_body`` would close (the parent lies below the child: walk up from it)."""
        chain = [parent_body]
        while chain[-1] != child_body:
            chain.append(self._parent_joint[chain[-1]].parent_body)  # type: ignore[arg-type]
        return " -> ".join([*reversed(chain), child_body])

    @property
    def rods(self) -> Mapping[str, Rod]:
        """Ordered ``name -> Rod`` (read-only view)."""
        return MappingProxyType(self._rods)

    def add_rod(
        self,
        name: str,
        frame_a: str,
        frame_b: str,
        *,
        rest_length: Any = DEFAULT_REST_LENGTH,
        stiffness: Any = DEFAULT_STIFFNESS,
        damping: Any = DEFAULT_DAMPING,
    ) -> Rod:
        """Add a massless spring-damper (:mod:`.rods`) between ``frame_a`` and ``frame_b``
        (``"BODY.FRAME"``, ``"BODY"`` for its frame_a, or ``"world"``, two different bodies):
        tension ``f = damping dL/dt + stiffness (L - rest_length)`` along the line between the
        frames' origins. ``rest_length`` m, ``stiffness`` N/m, ``damping`` N s/m, each >= 0
        (units allowed: ``"500 mm"``, ``"2 kN/m"``); defaults 1 m, 1e6 N/m, 1e4 N s/m."""
        rod = build_rod(
            len(self._rods),
            name,
            frame_a,
            frame_b,
            resolve=self._resolve_frame,
            taken=(*self._bodies, *self._joints, *self._rods),
            rest_length=rest_length,
            stiffness=stiffness,
            damping=damping,
        )
        self._rods[name] = rod
        return rod

    def _resolve_frame(
        self, parameter: str, text: Any, who: str, allow_world: bool
    ) -> tuple[str | None, str | None]:
        """``"world"`` -> (None, None); ``"arm.frame_b"`` -> ("arm", "frame_b")."""
        if not isinstance(text, str) or not text:
            raise ModelError(parameter, text, f"must be a frame name such as 'arm.frame_b' ({who})")
        if text == "world":
            if not allow_world:
                raise ModelError(parameter, text, f"the world cannot be a child ({who})")
            return None, None
        body_name, _, frame_name = text.partition(".")
        frame_name = frame_name or "frame_a"
        if body_name not in self._bodies:
            known = ", ".join(self._bodies) or "none yet"
            hint = " or 'world'" if allow_world else ""
            raise ModelError(
                parameter,
                text,
                f"names no body {body_name!r} (bodies: {known}; give 'BODY.FRAME'{hint}; {who})",
            )
        frames = self._bodies[body_name].frames
        if frame_name not in frames:
            raise ModelError(
                parameter,
                text,
                f"body {body_name!r} has no frame {frame_name!r} (frames: "
                f"{', '.join(frames)}; {who})",
            )
        return body_name, frame_name

    # -- structure ---------------------------------------------------------------------------

    def check(self) -> None:
        """Raise :class:`~rigidparts.ModelError` unless the model is one complete tree (the
        answer is kept until the next body or joint, so that queries stay O(1))."""
        if self._checked:
            return
        if not self._bodies:
            raise ModelError("bodies", {}, "the model has no bodies")
        if not self._children[None]:
            raise ModelError("joints", list(self._joints), "no joint attaches a body to 'world'")
        for name in self._bodies:
            if name not in self._parent_joint:
                raise ModelError(
                    f"bodies.{name}",
                    name,
                    "is attached by no joint (every body needs a parent joint; use a 'fixed' "
                    "joint to weld it)",
                )
        self._checked = True

    @property
    def root_joint(self) -> Joint:
        """The joint that attaches the tree to the world."""
        self.check()
        return self._children[None][0]

    def parent_joint(self, body: str) -> Joint:
        """The joint whose child is ``body``."""
        if body not in self._bodies:
            raise ModelError("body", body, f"names no body (bodies: {', '.join(self._bodies)})")
        self.check()
        return self._parent_joint[body]

    def child_joints(self, body: str | None) -> list[Joint]:
        """The joints whose parent is ``body`` (None: the world), in the order added."""
        return list(self._children.get(body, ()))

    def ordered_joints(self) -> list[Joint]:
        """All joints, each after its parent body's joint (depth first from the root)."""
        self.check()
        order: list[Joint] = []
        stack = list(reversed(self._children[None]))
        while stack:
            joint = stack.pop()
            order.append(joint)
            stack.extend(reversed(self._children[joint.child_body]))
        return order

    def subtree(self, body: str) -> list[str]:
        """``body`` and all its descendants, parent first."""
        out = [body]
        for name in out:
            out.extend(j.child_body for j in self._children[name])
        return out

    @property
    def nq(self) -> int:
        """Total number of position coordinates."""
        return sum(j.nq for j in self._joints.values())

    @property
    def nv(self) -> int:
        """Total number of velocity coordinates (degrees of freedom)."""
        return sum(j.nv for j in self._joints.values())

    # -- joint positions ---------------------------------------------------------------------

    def initial_positions(self) -> dict[str, np.ndarray]:
        """``joint -> initial position (nq,)`` for every moving joint."""
        return {n: j.initial.copy() for n, j in self._joints.items() if j.nq}

    def initial_velocities(self) -> dict[str, np.ndarray]:
        """``joint -> initial velocity (nv,)`` for every moving joint."""
        return {n: j.initial_velocity.copy() for n, j in self._joints.items() if j.nv}

    def zero_positions(self) -> dict[str, np.ndarray]:
        """``joint -> the position at which its child frame coincides with its joint frame``."""
        return {n: j.zero_position for n, j in self._joints.items() if j.nq}

    def joint_positions(self, q: Mapping[str, Any] | None = None) -> dict[str, np.ndarray]:
        """Complete and validate ``q``: given entries checked, the rest the initial positions."""
        out = self.initial_positions()
        if q is None:
            return out
        if not isinstance(q, Mapping):
            raise ModelError("q", q, "must be a mapping of joint name -> position")
        for name, value in q.items():
            if name not in self._joints:
                raise ModelError("q", name, f"names no joint (joints: {', '.join(self._joints)})")
            joint = self._joints[name]
            if joint.nq == 0:
                raise ModelError(f"q[{name!r}]", value, f"joint {name!r} is fixed")
            out[name] = joint.check_position(value)
        return out

    # -- kinematics --------------------------------------------------------------------------

    def frame_in_body(self, body: str, frame: str | None) -> Transform:
        """``X_AF``: frame ``frame`` of ``body`` relative to its frame_a."""
        if frame is None:
            return IDENTITY
        f = self._bodies[body].frames[frame]
        return np.array(f.rotation), np.array(f.position)

    def joint_frame_in_parent_body(self, joint: Joint) -> Transform:
        """``X_BpJ``: the joint frame in the parent body's frame_a (in the world for a root)."""
        x_bp_p = (
            IDENTITY
            if joint.parent_body is None
            else self.frame_in_body(joint.parent_body, joint.parent_frame)
        )
        return compose(x_bp_p, (np.array(joint.rotation), np.array(joint.position)))

    def child_frame_in_body(self, joint: Joint) -> Transform:
        """``X_AC``: the joint's child frame in the child body's frame_a."""
        return self.frame_in_body(joint.child_body, joint.child_frame)

    def body_poses(self, q: Mapping[str, Any] | None = None) -> dict[str, Transform]:
        """World pose of each body's frame_a: ``name -> (R_WA (3, 3), p_WAo (3,))``.

        ``q`` maps joint names to positions (float; quaternion wxyz for a ball joint; 7 values
        x, y, z, qw, qx, qy, qz for a free joint); missing joints take their initial position.
        """
        positions = self.joint_positions(q)
        poses: dict[str, Transform] = {}
        for joint in self.ordered_joints():
            x_w_bp = IDENTITY if joint.parent_body is None else poses[joint.parent_body]
            x_w_j = compose(x_w_bp, self.joint_frame_in_parent_body(joint))
            x_w_c = compose(x_w_j, joint.transform(positions.get(joint.name)))
            poses[joint.child_body] = compose(x_w_c, invert(self.child_frame_in_body(joint)))
        return {name: poses[name] for name in self._bodies}

    def frame_poses(self, q: Mapping[str, Any] | None = None) -> dict[str, Transform]:
        """World pose of every named frame: ``"BODY.FRAME" -> (R_WF, p_WFo)``."""
        out: dict[str, Transform] = {}
        for name, pose in self.body_poses(q).items():
            for frame in self._bodies[name].frames:
                out[f"{name}.{frame}"] = compose(pose, self.frame_in_body(name, frame))
        return out

    # -- mass properties ---------------------------------------------------------------------

    def body_mass_properties(self, q: Mapping[str, Any] | None = None) -> dict[str, MassProperties]:
        """Each body's mass, centre of mass and central inertia in world coordinates at ``q``:
        ``p_WBcm_W = R_WA p_ABcm_A + p_WA``, ``I_BBcm_W = R_WA I_BBcm_A R_WA^T``."""
        return {
            name: self._bodies[name].mass_properties.placed(rotation=r, position=p)
            for name, (r, p) in self.body_poses(q).items()
        }

    def subtree_mass_properties(
        self, q: Mapping[str, Any] | None = None
    ) -> dict[str, MassProperties]:
        """For each body, the composite of it and all its descendants, in world coordinates at
        ``q`` (mass, centre of mass, inertia about that centre of mass in world axes)."""
        parts = self.body_mass_properties(q)
        out: dict[str, MassProperties] = {}
        for joint in reversed(self.ordered_joints()):  # children before parents
            body = joint.child_body
            children = [out[j.child_body] for j in self._children[body]]
            out[body] = (
                MassProperties.combine([parts[body], *children]) if children else parts[body]
            )
        return {name: out[name] for name in self._bodies}

    def mass_properties(self, q: Mapping[str, Any] | None = None) -> MassProperties:
        """The whole model's composite mass properties in world coordinates at ``q``."""
        return self.subtree_mass_properties(q)[self.root_joint.child_body]

    # -- output ------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The model as the tables of a model file (SI units), for :func:`json.dumps` etc.;
        :func:`rigidparts.model.toml_format.model_from_dict` builds it back."""
        out: dict[str, Any] = {"name": self.name, "gravity": self.gravity.tolist()}
        settings = {k: v for k, v in vars(self.simulation).items() if v is not None}
        if settings:
            out["simulation"] = settings
        out["bodies"] = {
            name: {**body.parameters(), **self._appearance_keys(name)}
            for name, body in self._bodies.items()
        }
        out["joints"] = [joint.to_dict() for joint in self._joints.values()]
        if self._rods:
            out["rods"] = [rod.to_dict() for rod in self._rods.values()]
        return out

    def _appearance_keys(self, name: str) -> dict[str, Any]:
        """The appearance keys given for body ``name``, as a model file writes them (the
        colour as ``"#rrggbb"`` when that is exact, else three numbers)."""
        given = self._given_looks[name]
        keys = self._appearances[name].to_dict()
        return {key: keys[key] for key in given}

    def __repr__(self) -> str:
        bodies = ", ".join(f"{n}={type(b).__name__}" for n, b in self._bodies.items())
        joints = ", ".join(f"{n}:{j.type}" for n, j in self._joints.items())
        return f"Model({self.name!r}, bodies=[{bodies}], joints=[{joints}])"
