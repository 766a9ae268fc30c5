"""MuJoCo MJCF export.

Conventions
-----------
- Each body is an MJCF ``<body>`` whose frame **is its frame_a**, nested as the tree; its
  ``pos``/``quat`` are frame_a's pose in the parent body's frame_a (in the world for the root)
  at joint position zero: ``X_BpA = X_BpJ X_CA``.
- The joint sits in the body at the child frame: ``pos = p_AC``, ``axis = R_AC axis_J`` (body
  coordinates). A fixed joint is no joint (the body is welded to its parent); ``free`` is a
  ``<freejoint>`` (MuJoCo floats only bodies of the world body: the model enforces it).
- Inertia: ``<inertial pos=COM mass=m diaginertia="I1 I2 I3" quat=...>``, the *principal*
  form, from the closed forms' exact principal moments and their axes, so MuJoCo neither
  re-diagonalises nor recomputes anything; the body's centre of mass and central inertia
  arrive as ``body_ipos`` and ``R(body_iquat) diag(body_inertia) R^T``. (One exception, at
  rounding level: :func:`mujoco_moments`.)
- The compiler is told never to touch them: ``inertiafromgeom="false"`` (geometry never
  makes inertia), ``balanceinertia="false"``, ``boundmass="0"``, ``boundinertia="0"``,
  ``fusestatic="false"`` (a welded body, even the root, stays a body with its own mass),
  ``angle="radian"``. Geoms also carry ``mass="0"``, in case the file is included elsewhere.
- Geometry: one geom per body (MuJoCo's geoms are both visual and collision; contype =
  conaffinity = 1; meshes collide by their convex hull): ``box`` (half extents), ``cylinder``
  (radius, half length), ``sphere`` (radius) or ``mesh``. The two bodies of every joint are a
  ``<contact><exclude>`` pair: MuJoCo's own parent filter lapses when the parent is welded to
  the world, and a fixed base would collide with its first link. Each named frame is a
  ``<site name="BODY.FRAME">`` with the frame's position and, unless it is the identity, its
  rotation as ``quat``.
- The initial joint positions and velocities are the keyframe ``initial``.

Joint coordinates map to MuJoCo's ``qpos``/``qvel`` one to one for revolute and prismatic
joints; for ball and free joints through the child frame's offset in the body
(:func:`mujoco_state`, :func:`joint_state_from_mujoco`), which is the identity when the child
frame is frame_a.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from typing import Any

import numpy as np

from ..component import Component
from ..model import Model
from ..model.joints import Joint
from ..transforms import Transform, compose, invert, matrix_to_quaternion, quaternion_to_matrix
from ._common import (
    Geometry,
    body_geometry,
    body_meshes,
    check_sections,
    fmt,
    is_identity,
    mesh_folder,
    mesh_obj_bytes,
    vec,
    write_xml,
    xml_text,
)

__all__ = ["build_mjcf", "joint_state_from_mujoco", "mujoco_state", "to_mjcf"]

#: The compiler settings that keep every mass property exactly as written.
COMPILER = {
    "angle": "radian",
    "inertiafromgeom": "false",
    "balanceinertia": "false",
    "boundmass": "0",
    "boundinertia": "0",
    "fusestatic": "false",
    "autolimits": "true",
}

#: MuJoCo's names of the integrators.
MUJOCO_INTEGRATORS = {"RK4": "RK4", "implicitfast": "implicitfast", "implicit": "implicit",
                      "Euler": "Euler"}  # fmt: skip


def to_mjcf(model: Model, path: str | os.PathLike[str] | None = None, *, sections: int = 64) -> str:
    """The MJCF text of ``model``; with ``path``, also written (meshes first, all atomic).

    Without ``path`` the meshes are embedded (``<mesh vertex=... face=...>``), so the text
    loads on its own with ``mujoco.MjModel.from_xml_string``.
    """
    folder_name = None if path is None else mesh_folder(path)[1]
    text, meshes = build_mjcf(model, sections=sections, mesh_folder_name=folder_name)
    return write_xml(text, path, meshes)


def build_mjcf(
    model: Model, *, sections: int = 64, mesh_folder_name: str | None = None
) -> tuple[str, dict[str, Any]]:
    """``(xml text, {body: trimesh})``. With ``mesh_folder_name`` meshes are referenced as
    ``<folder>/<body>.obj`` files; without, embedded in the XML."""
    sections = check_sections(sections)
    model.check()
    meshes = body_meshes(model, sections)
    root = ET.Element("mujoco", model=model.name)
    ET.SubElement(root, "compiler", COMPILER)
    ET.SubElement(root, "option", _option_attributes(model))
    if meshes:
        _assets(ET.SubElement(root, "asset"), meshes, mesh_folder_name)

    joints = model.ordered_joints()
    elements: dict[str | None, ET.Element] = {None: ET.SubElement(root, "worldbody")}
    for joint in joints:
        x_ac = model.child_frame_in_body(joint)
        x_bpa = compose(model.joint_frame_in_parent_body(joint), invert(x_ac))
        element = _body_element(elements[joint.parent_body], joint.child_body, x_bpa)
        elements[joint.child_body] = element
        _joint_element(element, joint, x_ac)
        _body_contents(element, joint.child_body, model.bodies[joint.child_body])

    pairs = [j for j in joints if j.parent_body is not None]
    if pairs:
        # MuJoCo filters parent-child contacts only while the parent moves; a parent welded to
        # the world (a fixed base) would collide with its child at the joint.
        contact = ET.SubElement(root, "contact")
        for joint in pairs:
            ET.SubElement(
                contact, "exclude", name=joint.name, body1=joint.parent_body, body2=joint.child_body
            )

    qpos, qvel = mujoco_state(model, model.initial_positions(), model.initial_velocities())
    if qpos.size:
        keyframe = ET.SubElement(root, "keyframe")
        ET.SubElement(keyframe, "key", name="initial", qpos=vec(qpos), qvel=vec(qvel))
    return xml_text(root), meshes


def _option_attributes(model: Model) -> dict[str, str]:
    """Gravity, and the model's timestep and integrator when it has them."""
    option = {"gravity": vec(model.gravity)}
    if model.simulation.timestep is not None:
        option["timestep"] = fmt(model.simulation.timestep)
    if model.simulation.integrator is not None:
        option["integrator"] = MUJOCO_INTEGRATORS[model.simulation.integrator]
    return option


def _assets(asset: ET.Element, meshes: dict[str, Any], folder_name: str | None) -> None:
    """One ``<mesh>`` per body: a file in ``folder_name``, or embedded when it is None."""
    for name, mesh in meshes.items():
        if folder_name is None:
            ET.SubElement(
                asset,
                "mesh",
                name=name,
                vertex=vec(np.asarray(mesh.vertices).ravel()),
                face=" ".join(str(int(i)) for i in np.asarray(mesh.faces).ravel()),
            )
        else:
            ET.SubElement(asset, "mesh", name=name, file=f"{folder_name}/{name}.obj")


def _body_element(parent: ET.Element, name: str, x_bpa: Transform) -> ET.Element:
    """The ``<body>``: frame_a at ``X_BpA`` in the parent body's frame_a (or the world)."""
    rotation, position = x_bpa
    attributes = {"name": name, "pos": vec(position)}
    if not is_identity(rotation):
        attributes["quat"] = vec(matrix_to_quaternion(rotation))
    return ET.SubElement(parent, "body", attributes)


def _body_contents(element: ET.Element, name: str, body: Component) -> None:
    """The body's principal-form ``<inertial>``, its ``<geom>`` and a ``<site>`` per frame."""
    props = body.mass_properties
    ET.SubElement(
        element,
        "inertial",
        pos=vec(props.center_of_mass),
        mass=fmt(props.mass),
        diaginertia=vec(mujoco_moments(props.principal_moments)),
        quat=vec(matrix_to_quaternion(props.principal_axes)),
    )
    ET.SubElement(element, "geom", _geom_attributes(name, body_geometry(body)))
    for frame_name, frame in body.frames.items():
        site = {"name": f"{name}.{frame_name}", "pos": vec(frame.position)}
        if not is_identity(frame.rotation):
            site["quat"] = vec(matrix_to_quaternion(frame.rotation))
        ET.SubElement(element, "site", site)


def mujoco_moments(moments: np.ndarray) -> np.ndarray:
    """The principal moments (ascending) as MuJoCo accepts them.

    MuJoCo refuses ``I1 + I2 < I3`` with no tolerance, which rounding alone can produce for a
    flat body (a plate whose thickness is below ~1e-8 of its width), where the exact moments
    satisfy ``I1 + I2 = I3 + (tiny)``. Then ``I3`` is set to ``fl(I1 + I2)``: a change of a
    few ulp, far below :data:`rigidparts.INERTIA_TOLERANCE` (the tensor was validated with
    it). Any other tensor is written untouched.
    """
    i1, i2, i3 = (float(m) for m in moments)
    if i1 + i2 < i3:
        i3 = i1 + i2
    return np.array([i1, i2, i3])


def _geom_attributes(name: str, geometry: Geometry) -> dict[str, str]:
    """The ``<geom>`` of a body: massless, colliding, native where MuJoCo has the primitive."""
    geom = {"name": name, "mass": "0", "contype": "1", "conaffinity": "1"}
    if geometry.kind == "mesh":
        geom.update(type="mesh", mesh=name)
        return geom
    if geometry.kind == "box":
        geom.update(type="box", size=vec(0.5 * np.array(geometry.size)))
    elif geometry.kind == "cylinder":
        radius, length = geometry.size
        geom.update(type="cylinder", size=vec((radius, 0.5 * length)))
    else:  # sphere
        geom.update(type="sphere", size=vec(geometry.size))
    geom["pos"] = vec(geometry.position)
    if not is_identity(geometry.rotation):
        geom["quat"] = vec(matrix_to_quaternion(geometry.rotation))
    return geom


def _joint_element(body: ET.Element, joint: Joint, x_ac: Transform) -> None:
    r_ac, p_ac = x_ac
    if joint.type == "fixed":
        return
    if joint.type == "free":
        ET.SubElement(body, "freejoint", name=joint.name)
        return
    attributes = {"name": joint.name, "pos": vec(p_ac)}
    if joint.type in ("revolute", "prismatic"):
        attributes["type"] = "hinge" if joint.type == "revolute" else "slide"
        attributes["axis"] = vec(r_ac @ joint.axis_in_joint)
        if joint.limits is not None:
            attributes["limited"] = "true"
            attributes["range"] = vec(joint.limits)
        if joint.damping:
            attributes["damping"] = fmt(joint.damping)
    else:
        attributes["type"] = "ball"
    ET.SubElement(body, "joint", attributes)


def mujoco_state(
    model: Model, q: dict[str, np.ndarray], v: dict[str, np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """MuJoCo's ``(qpos, qvel)`` for joint positions ``q`` and velocities ``v`` (every moving
    joint, in the order of :meth:`Model.ordered_joints`, which is the MJCF's).

    - ball: ``quat(R_AC R_JC R_CA)``; angular velocity ``R_AC w_C`` (body coordinates).
    - free: frame_a's world pose ``X_WA = X_WJ X_JC X_CA`` (position, quaternion); the
      velocity of frame_a's origin in world axes, ``v_WA = R_WJ v_J + w_W x (p_WA - p_WC)``,
      and the angular velocity in body coordinates, ``R_AC w_C``.
    """
    qpos: list[float] = []
    qvel: list[float] = []
    for joint in model.ordered_joints():
        if joint.nq == 0:
            continue
        position = np.asarray(q[joint.name], dtype=np.float64)
        velocity = np.asarray(v[joint.name], dtype=np.float64)
        r_ac, p_ac = model.child_frame_in_body(joint)
        if joint.type in ("revolute", "prismatic"):
            qpos += [float(position[0])]
            qvel += [float(velocity[0])]
        elif joint.type == "ball":
            r_jc = quaternion_to_matrix(position)
            qpos += list(matrix_to_quaternion(r_ac @ r_jc @ r_ac.T))
            qvel += list(r_ac @ velocity)
        else:  # free
            r_wj, p_wj = model.joint_frame_in_parent_body(joint)
            r_jc = quaternion_to_matrix(position[3:])
            r_wc, p_wc = compose((r_wj, p_wj), (r_jc, position[:3]))
            r_wa, p_wa = compose((r_wc, p_wc), invert((r_ac, p_ac)))
            omega_c = velocity[3:]
            omega_w = r_wc @ omega_c
            v_wc = r_wj @ velocity[:3]
            v_wa = v_wc + np.cross(omega_w, p_wa - p_wc)
            qpos += list(p_wa) + list(matrix_to_quaternion(r_wa))
            qvel += list(v_wa) + list(r_ac @ omega_c)
    return np.array(qpos), np.array(qvel)


def joint_state_from_mujoco(
    model: Model, qpos: np.ndarray, qvel: np.ndarray
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """The inverse of :func:`mujoco_state` for a time series: ``qpos (T, nq)``, ``qvel (T,
    nv)`` -> ``joint -> (T,)`` for one coordinate, ``(T, k)`` for several."""
    qpos = np.atleast_2d(qpos)
    qvel = np.atleast_2d(qvel)
    positions: dict[str, np.ndarray] = {}
    velocities: dict[str, np.ndarray] = {}
    iq = iv = 0
    for joint in model.ordered_joints():
        if joint.nq == 0:
            continue
        p = qpos[:, iq : iq + joint.nq]
        w = qvel[:, iv : iv + joint.nv]
        iq += joint.nq
        iv += joint.nv
        r_ac, p_ac = model.child_frame_in_body(joint)
        if joint.type in ("revolute", "prismatic"):
            positions[joint.name] = p[:, 0].copy()
            velocities[joint.name] = w[:, 0].copy()
        elif joint.type == "ball":
            r_mj = quaternion_to_matrix(p)
            r_jc = np.einsum("ji,tjk,kl->til", r_ac, r_mj, r_ac)  # R_CA R_mj R_AC
            positions[joint.name] = _quaternions(r_jc)
            velocities[joint.name] = w @ r_ac  # rows: R_CA w_A
        else:  # free
            r_wj, p_wj = model.joint_frame_in_parent_body(joint)
            r_wa = quaternion_to_matrix(p[:, 3:])
            p_wa = p[:, :3]
            r_wc = r_wa @ r_ac
            offset_w = np.einsum("tij,j->ti", r_wa, p_ac)  # R_WA p_AC
            p_wc = p_wa + offset_w
            p_jc = (p_wc - p_wj) @ r_wj  # rows: R_WJ^T (p_WC - p_WJ)
            r_jc = np.einsum("ji,tjk->tik", r_wj, r_wc)
            omega_a = w[:, 3:]
            omega_w = np.einsum("tij,tj->ti", r_wa, omega_a)
            v_wc = w[:, :3] + np.cross(omega_w, offset_w)
            positions[joint.name] = np.hstack([p_jc, _quaternions(r_jc)])
            velocities[joint.name] = np.hstack([v_wc @ r_wj, omega_a @ r_ac])
    return positions, velocities


def _quaternions(matrices: np.ndarray) -> np.ndarray:
    """(T, 3, 3) -> (T, 4) wxyz quaternions with a continuous sign (no jumps to -q), the
    first with ``qw >= 0``."""
    quats = matrix_to_quaternion(matrices)
    for t in range(1, len(quats)):
        if np.dot(quats[t], quats[t - 1]) < 0:
            quats[t] = -quats[t]
    return quats


def mesh_assets(meshes: dict[str, Any], folder_name: str) -> dict[str, bytes]:
    """``{"<folder>/<body>.obj": OBJ bytes}``: the ``assets`` of ``MjModel.from_xml_string``."""
    return {f"{folder_name}/{name}.obj": mesh_obj_bytes(mesh) for name, mesh in meshes.items()}
