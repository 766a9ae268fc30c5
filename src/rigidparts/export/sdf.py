"""SDFormat 1.9 export (read by Drake and Gazebo).

Conventions
-----------
- One ``<model>``; each body is a ``<link>`` **whose frame is its frame_a**, posed in the model
  frame at joint position zero (``<pose>`` = ``X_WA``, x y z roll pitch yaw with
  ``R = Rz(yaw) Ry(pitch) Rx(roll)``).
- ``<inertial><pose>COM 0 0 0</pose><mass/><inertia><ixx/>...</inertia></inertial>``: the
  centre of mass in frame_a, the tensor about it in frame_a's axes (entries as they are,
  ``ixy = I[0, 1]``).
- Each named frame is ``<frame name="BODY.FRAME" attached_to="BODY">`` posed relative to the
  body's link.
- A joint's ``<pose>`` is relative to its child link (SDFormat's default): the child frame
  ``X_AC``; its ``<axis><xyz>`` is in the joint frame. ``revolute`` without limits ->
  ``continuous``; ``prismatic``, ``fixed`` and ``ball`` as such; ``free`` -> no joint at all
  (a link without a joint floats, in Drake and Gazebo). ``world`` is the parent of the root.
- Visual and collision: native ``<box>``/``<cylinder>``, else ``<mesh><uri>`` to
  ``<stem>_meshes/<body>.obj``, relative to the SDF file. Gravity belongs to an SDFormat
  world, not a model: it is not written.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from typing import Any

import numpy as np

from ..model.model import Model
from ._common import (
    body_geometry,
    body_meshes,
    check_sections,
    exported_inertia,
    fmt,
    mesh_folder,
    rpy,
    vec,
    write_xml,
    xml_text,
)

__all__ = ["SDF_VERSION", "build_sdf", "to_sdf"]

SDF_VERSION = "1.9"


def to_sdf(model: Model, path: str | os.PathLike[str] | None = None, *, sections: int = 64) -> str:
    """The SDFormat text of ``model``; with ``path``, written with its meshes (all atomic)."""
    folder_name = mesh_folder(path if path is not None else f"{model.name}.sdf")[1]
    text, meshes = build_sdf(model, sections=sections, mesh_folder_name=folder_name)
    return write_xml(text, path, meshes)


def _pose(
    parent: ET.Element, pose: tuple[np.ndarray, np.ndarray], relative_to: str | None = None
) -> None:
    rotation, position = pose
    attributes = {} if relative_to is None else {"relative_to": relative_to}
    element = ET.SubElement(parent, "pose", attributes)
    element.text = vec([*position, *rpy(rotation)])


def _text(parent: ET.Element, tag: str, text: str) -> ET.Element:
    element = ET.SubElement(parent, tag)
    element.text = text
    return element


def build_sdf(
    model: Model, *, sections: int = 64, mesh_folder_name: str = "meshes"
) -> tuple[str, dict[str, Any]]:
    """``(xml text, {body: trimesh})``; meshes referenced as ``<folder>/<body>.obj``."""
    sections = check_sections(sections)
    model.check()
    meshes = body_meshes(model, sections)
    zero = model.zero_positions()
    poses = model.body_poses(zero)
    root = ET.Element("sdf", version=SDF_VERSION)
    element_model = ET.SubElement(root, "model", name=model.name)
    for joint in model.ordered_joints():
        body_name = joint.child_body
        body = model.bodies[body_name]
        link = ET.SubElement(element_model, "link", name=body_name)
        _pose(link, poses[body_name])
        inertial = ET.SubElement(link, "inertial")
        _pose(inertial, (np.eye(3), body.center_of_mass))
        _text(inertial, "mass", fmt(body.mass))
        tensor = ET.SubElement(inertial, "inertia")
        i = exported_inertia(body)
        for tag, value in (
            ("ixx", i[0, 0]),
            ("ixy", i[0, 1]),
            ("ixz", i[0, 2]),
            ("iyy", i[1, 1]),
            ("iyz", i[1, 2]),
            ("izz", i[2, 2]),
        ):
            _text(tensor, tag, fmt(value))
        geometry = body_geometry(body)
        for tag in ("visual", "collision"):
            element = ET.SubElement(link, tag, name=tag)
            _pose(element, (geometry.rotation, geometry.position))
            shape = ET.SubElement(element, "geometry")
            if geometry.kind == "box":
                _text(ET.SubElement(shape, "box"), "size", vec(geometry.size))
            elif geometry.kind == "cylinder":
                radius, length = geometry.size
                cylinder = ET.SubElement(shape, "cylinder")
                _text(cylinder, "radius", fmt(radius))
                _text(cylinder, "length", fmt(length))
            else:
                _text(ET.SubElement(shape, "mesh"), "uri", f"{mesh_folder_name}/{body_name}.obj")

        for frame_name in body.frames:
            frame = ET.SubElement(
                element_model, "frame", name=f"{body_name}.{frame_name}", attached_to=body_name
            )
            _pose(frame, model.frame_in_body(body_name, frame_name), relative_to=body_name)

        if joint.type == "free":
            continue  # a link without a joint floats
        kind = joint.type
        if kind == "revolute" and joint.limits is None:
            kind = "continuous"
        element = ET.SubElement(element_model, "joint", name=joint.name, type=kind)
        _text(element, "parent", "world" if joint.parent_body is None else joint.parent_body)
        _text(element, "child", body_name)
        _pose(element, model.child_frame_in_body(joint))
        if joint.type in ("revolute", "prismatic"):
            axis = ET.SubElement(element, "axis")
            _text(axis, "xyz", vec(joint.axis_in_joint))
            if joint.limits is not None:
                limit = ET.SubElement(axis, "limit")
                _text(limit, "lower", fmt(joint.limits[0]))
                _text(limit, "upper", fmt(joint.limits[1]))
            dynamics = ET.SubElement(axis, "dynamics")
            _text(dynamics, "damping", fmt(joint.damping))
    return xml_text(root), meshes
