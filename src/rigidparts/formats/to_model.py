"""A :class:`Description` (a robot file as read) as a :class:`~rigidparts.Model`.

Each link with a declared inertial becomes a :class:`~rigidparts.RigidBody` with exactly the
declared mass, centre of mass and inertia (``frame`` = the inertial frame ``X_LI``), so that an
export of the model gives every engine the values the original gave it. A declared inertial
that no engine could accept (a mass that is not positive, a tensor that is not physical) is a
:class:`~rigidparts.ModelError` naming the file, line and link, with the rule: ``rigidparts
check --fix`` repairs such files.

Links without mass (no ``<inertial>``, or a zero mass) are what URDF uses for frames: such a
link joined to its parent by a fixed joint (or the root, when it has one child) is folded into
its parent as a named frame (its children hang from the parent through the composed pose); on
a moving joint it is refused, as MuJoCo and Drake refuse it. The root link is joined to the
world by a fixed joint (URDF's and SDFormat's convention; MJCF's bodies say it with their own
joints: a ``floating`` root joint is a free joint).

Geometry: each body is drawn with its links' visual geometry (else their collision geometry),
each piece a rigidparts body (:func:`rigidparts.formats.geometry.piece_body`: the registry's
exact primitives, mesh files as MeshBody) placed in the body's ``geometry``; a piece that
cannot be made (a missing or open mesh file, a format trimesh cannot read) is left out, and one
warning per file says which. The geometry draws the body and goes into its exports; the
declared inertial stays its mass model.

Joints: ``revolute`` and ``continuous`` -> revolute (limits kept for revolute), ``prismatic``,
``fixed``, ``floating`` -> free, ``ball``; ``planar`` has no counterpart (ModelError).
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from ..appearance import Appearance
from ..errors import ModelError, ParameterError
from ..transforms import IDENTITY, Transform, compose, invert
from .description import Description, JointDescription, Link

__all__ = ["model_from_description"]

#: Description joint kind -> Model joint type.
_JOINT_TYPES = {
    "revolute": "revolute",
    "continuous": "revolute",
    "prismatic": "prismatic",
    "fixed": "fixed",
    "floating": "free",
    "ball": "ball",
}
_NAME = re.compile(r"[^A-Za-z0-9_-]")


def _model_name(name: str, used: set[str]) -> str:
    """``name`` as a Model name (letters, digits, ``_``, ``-``; not starting with a digit or a
    ``-``; not ``world``), made unique among ``used``."""
    clean = _NAME.sub("_", name) or "_"
    if not (clean[0].isalpha() or clean[0] == "_") or clean == "world":
        clean = f"_{clean}"
    out, k = clean, 2
    while out in used:
        out, k = f"{clean}_{k}", k + 1
    used.add(out)
    return out


def _frame_name(name: str) -> str:
    """A link name as a body's named frame (an identifier not starting with ``frame_``)."""
    clean = _NAME.sub("_", name).replace("-", "_")
    if not clean.isidentifier() or clean.startswith("frame_"):
        clean = f"link_{clean}"
    return clean


def _massless(link: Link) -> bool:
    return link.inertial is None or link.inertial.mass == 0.0


def model_from_description(description: Description) -> Any:
    """The :class:`~rigidparts.Model` of ``description`` (module docstring)."""
    from ..bodies import RigidBody
    from ..model import Model

    file = description.path
    model = Model(name=_model_name(description.name, set()))
    children: dict[str, list[JointDescription]] = {name: [] for name in description.links}
    parent_of: dict[str, JointDescription] = {}
    for joint in description.joints.values():
        children.setdefault(joint.parent, []).append(joint)
        parent_of[joint.child] = joint
    roots = description.roots

    # Each link: the body it belongs to and its pose in that body's frame_a (X_BL).
    owner: dict[str, tuple[str | None, Transform]] = {}
    used: set[str] = set()
    bodies: dict[str, str] = {}  # link -> body name

    def fold(link: str, into: str | None, pose: Transform) -> None:
        owner[link] = (into, pose)

    order: list[str] = []  # links in tree order (parents first)
    stack = list(reversed(roots))
    while stack:
        name = stack.pop()
        order.append(name)
        stack.extend(reversed([j.child for j in children.get(name, [])]))

    frames: dict[str, dict[str, Any]] = {}
    for name in order:
        link = description.links[name]
        joint = parent_of.get(name)
        # A massless link welded to the world sits in it at its joint's pose (the world folds)
        welded = IDENTITY
        if joint is not None and joint.parent not in description.links:
            if joint.kind == "fixed" and _massless(link):
                welded, joint = compose(joint.pose, joint.child_pose), None
        if _massless(link):
            if joint is None:
                if len(children.get(name, [])) > 1 and not (
                    description.format == "mjcf" and name == "world"
                ):
                    kids = ", ".join(j.child for j in children[name])
                    raise ModelError(
                        f"link {name!r}",
                        name,
                        f"a root link without mass joins several links ({kids}) to the world: "
                        "a model has one root",
                        source=file,
                        line=link.source.line,
                    )
                fold(name, None, welded)
                continue
            if joint.kind == "fixed":
                into, at = owner[joint.parent]
                pose = compose(at, compose(joint.pose, joint.child_pose))
                fold(name, into, pose)
                if into is not None:
                    frames.setdefault(into, {})[_frame_name(name)] = {
                        "position": pose[1],
                        "rotation": pose[0],
                    }
                continue
            raise ModelError(
                f"link {name!r}",
                name,
                f"moves on the {joint.kind} joint {joint.name!r} but has no mass (no "
                "<inertial>, or mass 0): engines refuse it or give it a default; declare its "
                "inertial ('rigidparts check --fix' computes one from its geometry)",
                source=file,
                line=link.source.line,
            )
        body_name = _model_name(name, used)
        bodies[name] = body_name
        fold(name, body_name, IDENTITY)

    # A joint whose frame is not the child link's frame at zero position (SDFormat, MJCF):
    # the joint frame becomes a named frame of the child body, X_CJ = X_JC^-1.
    joint_frames: dict[str, str] = {}
    for name, body_name in bodies.items():
        joint = parent_of.get(name)
        if joint is None or _is_identity(joint.child_pose):
            continue
        frame = _frame_name(f"joint_{joint.name}")
        named = frames.setdefault(body_name, {})
        while frame in named:
            frame += "_"
        x_cj = invert(joint.child_pose)
        named[frame] = {"position": x_cj[1], "rotation": x_cj[0]}
        joint_frames[name] = frame

    drawn, left_out = _geometry(description, owner)
    if left_out:
        warnings.warn(
            f"{file}: {len(left_out)} of its geometries not drawn, e.g. {left_out[0]}",
            stacklevel=3,
        )
    for name, body_name in bodies.items():
        link = description.links[name]
        inertial = link.inertial
        assert inertial is not None
        try:
            body = RigidBody(  # the inertial frame I is F: its origin the centre of mass
                mass=inertial.mass,
                center_of_mass=(0.0, 0.0, 0.0),
                inertia=inertial.inertia,
                frame={"position": inertial.pose[1], "rotation": inertial.pose[0]},
                geometry=drawn.get(body_name, ()),
                frames=frames.get(body_name) or None,
            )
        except ParameterError as exc:
            raise ModelError(
                f"link {name!r} inertial {exc.parameter}",
                exc.value,
                f"{exc.rule} ('rigidparts check' says why, '--fix' repairs it)",
                source=file,
                line=inertial.source.line,
            ) from None
        model.add_body(body_name, body, **_looks(link))

    _add_joints(model, description, owner, bodies, parent_of, joint_frames)
    return model


def _geometry(
    description: Description, owner: dict[str, tuple[str | None, Transform]]
) -> tuple[dict[str, list[tuple[Any, dict[str, Any]]]], list[str]]:
    """Per body, the placed bodies that draw it (``(body, pose of its frame_a in the body's
    frame_a)``) from its links' visual geometry (else collision geometry); and what could not
    be made, one short line each."""
    from .geometry import piece_body

    drawn: dict[str, list[tuple[Any, dict[str, Any]]]] = {}
    left_out: list[str] = []
    for name, link in description.links.items():
        body_name, x_bl = owner.get(name, (None, IDENTITY))
        if body_name is None:
            continue
        for geometry in link.visuals or link.collisions:
            try:
                piece, x_ga = piece_body(geometry)
            except (ParameterError, ImportError, OSError, ValueError) as exc:
                what = Path(geometry.mesh).name if geometry.mesh else geometry.kind
                reason = exc.rule if isinstance(exc, ParameterError) else str(exc)
                left_out.append(f"link {name!r} {what}: {reason.splitlines()[0][:80]}")
                continue
            rotation, position = compose(x_bl, compose(geometry.pose, x_ga))
            drawn.setdefault(body_name, []).append(
                (piece, {"position": position, "rotation": rotation})
            )
    return drawn, left_out


def _is_identity(pose: Transform) -> bool:
    return bool(np.array_equal(pose[0], IDENTITY[0]) and not np.any(pose[1]))


def _looks(link: Link) -> dict[str, Any]:
    """The link's colour and opacity from its first visual with one."""
    for geometry in link.visuals:
        if geometry.rgba is not None:
            r, g, b, a = geometry.rgba
            try:
                Appearance(color=(r, g, b), opacity=a)
            except (ParameterError, TypeError, ValueError):
                return {}
            return {"color": [float(r), float(g), float(b)], "opacity": float(a)}
    return {}


def _add_joints(
    model: Any,
    description: Description,
    owner: dict[str, tuple[str | None, Transform]],
    bodies: dict[str, str],
    parent_of: dict[str, JointDescription],
    joint_frames: dict[str, str],
) -> None:
    file = description.path
    used = set(model.bodies)
    for name, body_name in bodies.items():
        joint = parent_of.get(name)
        if joint is None:  # a root with mass: fixed to the world
            model.add_joint(_model_name(f"world_to_{name}", used), "fixed", "world", body_name)
            continue
        parent_body, at = owner.get(joint.parent, (None, IDENTITY))  # not a link: the world
        x_bj = compose(at, joint.pose)  # the joint frame in the parent body's frame_a
        kind = _JOINT_TYPES.get(joint.kind)
        if kind is None:
            raise ModelError(
                f"joint {joint.name!r}",
                joint.kind,
                f"a {joint.kind} joint has no counterpart in rigidparts models (revolute, "
                "prismatic, fixed, ball, free)",
                source=file,
                line=joint.source.line,
            )
        keywords: dict[str, Any] = {"position": x_bj[1], "rotation": x_bj[0]}
        if kind in ("revolute", "prismatic"):
            axis = joint.axis if joint.axis is not None else np.array([1.0, 0.0, 0.0])
            keywords["axis"] = x_bj[0] @ axis  # the model's axis is in the parent frame
            lower, upper = joint.limits.get("lower"), joint.limits.get("upper")
            if joint.kind != "continuous" and lower is not None and upper is not None:
                keywords["limits"] = (lower, upper)  # the model's rule checks them
        parent = "world" if parent_body is None else parent_body
        child = bodies[joint.child]
        if joint.child in joint_frames:  # the joint sits at a frame of the child body
            child = f"{child}.{joint_frames[joint.child]}"
        try:
            model.add_joint(_model_name(joint.name, used), kind, parent, child, **keywords)
        except ParameterError as exc:
            raise ModelError(
                f"joint {joint.name!r} {exc.parameter}",
                exc.value,
                exc.rule,
                source=file,
                line=joint.source.line,
            ) from None
