"""URDF export (read by MuJoCo, Pinocchio, Drake and pybullet).

Conventions
-----------
- A link named ``world`` is the root (Drake and MuJoCo take it for the world; Pinocchio for
  its universe). Each body is a link **whose frame is its frame_a**, carrying
  ``<inertial><origin xyz=COM rpy=.../><mass/><inertia ixx iyy izz, ixy=ixz=iyz=0/>``: the
  centre of mass in frame_a (URDF's reference point is the ``<inertial><origin>``, never the
  link origin) and the inertia about it in its principal frame P (``rpy`` = ``R_AP``, the
  exact principal moments on the diagonal; a tensor already diagonal in frame_a as it is, with
  ``rpy = 0``): :mod:`rigidparts.export._inertial`. pybullet keeps only the diagonal of its
  own Jacobi of a full tensor (up to ~2e-7 of the trace lost); this form arrives within
  1e-15 in pybullet, Pinocchio and Drake, and within ~2e-15 in MuJoCo (which rotates it into
  the link frame and re-diagonalises it).
- Every named frame F of body B is a massless link ``B.F`` on a fixed joint ``B.F`` whose
  ``<origin>`` is the frame's pose ``X_AF`` (position and roll-pitch-yaw of its rotation). The
  link says so: ``<inertial><mass value="0.0"/><inertia .../></inertial>`` with a zero
  tensor, because pybullet (DART, Isaac Lab) gives a link without ``<inertial>`` 1 kg and unit
  inertia; MuJoCo, Pinocchio and Drake read zero either way.
- Roll-pitch-yaw angles rebuild every rotation to rounding, also within 1e-9 rad of pitch
  +-90 degrees (:func:`rigidparts.transforms.matrix_to_rpy`).
- URDF puts a joint's child link frame at the joint. When a joint holds a body at frame_a
  its child is the body's link; when it holds it at another frame C, its child is the frame
  link ``B.C`` and the body's link hangs from that by the fixed joint ``B.C`` (``X_CA``),
  so the body link stays at frame_a in every case. Joint ``<origin>`` = ``X_BpJ``, the joint
  frame in the parent body's frame_a; ``<axis>`` in the joint frame.
- ``revolute`` with limits -> ``revolute``; without -> ``continuous``; ``prismatic`` ->
  ``prismatic`` (URDF requires limits: none given -> +-1e16 m, SDFormat's "unlimited"); a
  ``<limit>`` also needs effort and velocity, written as 1e16 ("unlimited"; 0 would mean a
  zero velocity limit in Drake); ``fixed``; ``free`` -> ``floating`` (MuJoCo and Pinocchio
  make it a free joint; Drake warns and leaves the body free). ``ball`` has no URDF type
  that the three engines read: export MJCF or SDF.
- ``<mujoco><compiler .../></mujoco>`` keeps MuJoCo from fusing fixed links
  (``fusestatic``), dropping visuals, stripping mesh paths, balancing or recomputing
  inertias; Pinocchio and Drake ignore it.
- Visual and collision: native ``<box>``/``<cylinder>``/``<sphere>``, else (capsules and
  ellipsoids too: URDF has neither) ``<mesh filename="<stem>_meshes/<name>.obj"/>`` relative
  to the URDF file (equal bodies share one).
  The visual carries the body's appearance as ``<material name="BODY_material"><color
  rgba=.../>`` (alpha = opacity; 0 for an invisible body: :func:`_material`).
  URDF has no gravity.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from typing import Any

from ..appearance import Appearance
from ..component import Component
from ..errors import ModelError
from ..model import Model
from ..model.joints import Joint
from ..model.rods import refuse_rods
from ..transforms import Transform, invert, matrix_to_rpy
from ._common import (
    FORMAT_KINDS,
    INERTIA_ENTRIES,
    body_geometry,
    check_sections,
    distinct_meshes,
    fmt,
    mesh_folder,
    vec,
    write_xml,
    xml_text,
)
from ._inertial import link_inertial

__all__ = ["UNLIMITED", "build_urdf", "to_urdf"]

#: The "unlimited" value for limits URDF requires (SDFormat's default joint limit).
UNLIMITED = 1e16

MUJOCO_COMPILER = {
    "angle": "radian",
    "fusestatic": "false",
    "discardvisual": "false",
    "strippath": "false",
    "inertiafromgeom": "false",
    "balanceinertia": "false",
    "boundmass": "0",
    "boundinertia": "0",
}


#: The native geometry URDF has (no capsule, no ellipsoid: those bodies are written as meshes).
URDF_KINDS = FORMAT_KINDS["urdf"]


def to_urdf(model: Model, path: str | os.PathLike[str] | None = None, *, sections: int = 64) -> str:
    """The URDF text of ``model``; with ``path``, written with its meshes (all atomic)."""
    folder_name = mesh_folder(path if path is not None else f"{model.name}.urdf")[1]
    text, meshes = build_urdf(model, sections=sections, mesh_folder_name=folder_name)
    return write_xml(text, path, meshes)


def _origin(parent: ET.Element, pose: Transform) -> None:
    rotation, position = pose
    ET.SubElement(parent, "origin", xyz=vec(position), rpy=vec(matrix_to_rpy(rotation)))


def build_urdf(
    model: Model, *, sections: int = 64, mesh_folder_name: str = "meshes"
) -> tuple[str, dict[str, Any]]:
    """``(xml text, {mesh name: trimesh})``; meshes referenced as ``<folder>/<name>.obj``, one
    per distinct body (:func:`distinct_meshes`: equal links share one file)."""
    sections = check_sections(sections)
    model.check()
    refuse_rods(model.rods, "URDF")  # no spring-damper element: a clear error
    for joint in model.joints.values():
        if joint.type == "ball":
            raise ModelError(
                f"joints[{joint.index}].type",
                "ball",
                f"URDF has no ball joint that MuJoCo, Pinocchio and Drake all read (joint "
                f"{joint.name!r}); export MJCF or SDF",
            )
    meshes, mesh_of = distinct_meshes(model, sections, native=URDF_KINDS)
    robot = ET.Element("robot", name=model.name)
    ET.SubElement(ET.SubElement(robot, "mujoco"), "compiler", MUJOCO_COMPILER)
    ET.SubElement(robot, "link", name="world")

    for joint in model.ordered_joints():
        body_name = joint.child_body
        body = model.bodies[body_name]
        _joint(robot, joint, model.joint_frame_in_parent_body(joint))
        _body_link(robot, body_name, body, mesh_of, mesh_folder_name, model.appearance(body_name))
        for frame_name in body.frames:
            x_af = model.frame_in_body(body_name, frame_name)
            holds_joint = frame_name == joint.child_frame and frame_name != "frame_a"
            _frame_link(robot, body_name, frame_name, x_af, holds_joint)
    return xml_text(robot), meshes


def _joint(robot: ET.Element, joint: Joint, x_bpj: Transform) -> None:
    """The ``<joint>`` at ``X_BpJ`` in the parent link; its child is the body's link when it
    holds the body at frame_a, else the link of the frame it holds."""
    parent_link = "world" if joint.parent_body is None else joint.parent_body
    child_link = (
        joint.child_body
        if joint.child_frame == "frame_a"
        else f"{joint.child_body}.{joint.child_frame}"
    )
    element = ET.SubElement(robot, "joint", name=joint.name, type=_joint_type(joint))
    _origin(element, x_bpj)
    ET.SubElement(element, "parent", link=parent_link)
    ET.SubElement(element, "child", link=child_link)
    if joint.type not in ("revolute", "prismatic"):
        return
    ET.SubElement(element, "axis", xyz=vec(joint.axis_in_joint))
    if joint.limits is not None or joint.type == "prismatic":
        lower, upper = joint.limits or (-UNLIMITED, UNLIMITED)
        ET.SubElement(
            element,
            "limit",
            lower=fmt(lower),
            upper=fmt(upper),
            effort=fmt(UNLIMITED),
            velocity=fmt(UNLIMITED),
        )
    ET.SubElement(element, "dynamics", damping=fmt(joint.damping), friction="0.0")


def _frame_link(
    robot: ET.Element, body: str, frame: str, x_af: Transform, holds_joint: bool
) -> None:
    """The massless link ``BODY.FRAME`` and its fixed joint: from the body's link at ``X_AF``,
    or, for the frame that holds the body's joint, the body's link hanging from it at
    ``X_FA = X_AF^-1``."""
    frame_link = f"{body}.{frame}"
    _massless_inertial(ET.SubElement(robot, "link", name=frame_link))
    weld = ET.SubElement(robot, "joint", name=frame_link, type="fixed")
    if holds_joint:
        _origin(weld, invert(x_af))
        ET.SubElement(weld, "parent", link=frame_link)
        ET.SubElement(weld, "child", link=body)
    else:
        _origin(weld, x_af)
        ET.SubElement(weld, "parent", link=body)
        ET.SubElement(weld, "child", link=frame_link)


def _massless_inertial(link: ET.Element) -> None:
    """An explicit zero mass and inertia: a link without ``<inertial>`` is 1 kg with unit
    inertia in pybullet (and DART, Isaac Lab); MuJoCo, Pinocchio and Drake read zero either way."""
    inertial = ET.SubElement(link, "inertial")
    ET.SubElement(inertial, "mass", value="0.0")
    ET.SubElement(inertial, "inertia", dict.fromkeys(INERTIA_ENTRIES, "0.0"))


def _inertial(link: ET.Element, body: Component) -> None:
    """``<inertial>`` in the principal frame P (:func:`link_inertial`, with the margin MuJoCo's
    re-diagonalisation needs): ``<origin xyz=p_AoBcm_A rpy=rpy(R_AP)/>``, the mass, and
    ``<inertia>`` with the moments in P's axes on the diagonal and zero products."""
    values = link_inertial(body.mass_properties, margin=True)
    inertial = ET.SubElement(link, "inertial")
    _origin(inertial, (values.rotation, values.position))
    ET.SubElement(inertial, "mass", value=fmt(values.mass))
    ixx, iyy, izz = values.moments
    ET.SubElement(inertial, "inertia", ixx=fmt(ixx), ixy="0.0", ixz="0.0", iyy=fmt(iyy),
                  iyz="0.0", izz=fmt(izz))  # fmt: skip


def _joint_type(joint: Joint) -> str:
    if joint.type == "revolute":
        return "revolute" if joint.limits is not None else "continuous"
    if joint.type == "free":
        return "floating"
    return joint.type


def _body_link(
    robot: ET.Element,
    name: str,
    body: Component,
    mesh_of: dict[str, str],
    folder: str,
    looks: Appearance,
) -> None:
    link = ET.SubElement(robot, "link", name=name)
    _inertial(link, body)
    geometry = body_geometry(body, URDF_KINDS)
    for tag in ("visual", "collision"):
        element = ET.SubElement(link, tag, name=f"{name}_{tag}")
        _origin(element, (geometry.rotation, geometry.position))
        shape = ET.SubElement(element, "geometry")
        if geometry.kind == "box":
            ET.SubElement(shape, "box", size=vec(geometry.size))
        elif geometry.kind == "cylinder":
            radius, length = geometry.size
            ET.SubElement(shape, "cylinder", radius=fmt(radius), length=fmt(length))
        elif geometry.kind == "sphere":
            ET.SubElement(shape, "sphere", radius=fmt(geometry.size[0]))
        else:
            ET.SubElement(shape, "mesh", filename=f"{folder}/{mesh_of[name]}.obj")
        if tag == "visual":
            _material(element, name, looks)


def _material(visual: ET.Element, name: str, looks: Appearance) -> None:
    """``<material name="BODY"><color rgba="r g b a"/></material>`` in the body's visual:
    the colour and the opacity as alpha. URDF has no visibility flag: an invisible body's alpha
    is 0 (MuJoCo gives the material's rgba to all the link's geoms; Drake, pybullet and RViz
    draw alpha 0 as nothing), so it stays a collision shape but shows nowhere. Each body names
    its own material: URDF materials are global by name, and two bodies may differ."""
    alpha = looks.opacity if looks.visible else 0.0
    material = ET.SubElement(visual, "material", name=f"{name}_material")
    ET.SubElement(material, "color", rgba=vec((*looks.color, alpha)))
