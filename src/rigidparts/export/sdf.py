"""SDFormat 1.9 export (read by Drake and Gazebo).

Conventions
-----------
- One ``<model>``; each body is a ``<link>`` **whose frame is its frame_a**, posed in the model
  frame at joint position zero (``<pose>`` = ``X_WA``, x y z roll pitch yaw with
  ``R = Rz(yaw) Ry(pitch) Rx(roll)``).
- ``<inertial><pose>COM rpy</pose><mass/><inertia><ixx/>...</inertia></inertial>``: the
  centre of mass in frame_a and the inertia about it in its principal frame P (``rpy`` =
  ``R_AP``, the exact principal moments on the diagonal, zero products; a tensor already
  diagonal in frame_a as it is, with ``rpy = 0``): :mod:`rigidparts.export._inertial`, as
  in URDF but without MuJoCo's margin at the triangle edge. Drake reads it within 1e-15.
- Each named frame is ``<frame name="BODY.FRAME" attached_to="BODY">`` posed relative to the
  body's link (``X_AF``: position and roll-pitch-yaw of the frame's rotation).
- A joint's ``<pose>`` is relative to its child link (SDFormat's default): the child frame
  ``X_AC``; its ``<axis><xyz>`` is in the joint frame. ``revolute`` without limits ->
  ``continuous``; ``prismatic``, ``fixed`` and ``ball`` as such; ``free`` -> no joint at all
  (a link without a joint floats, in Drake and Gazebo). ``world`` is the parent of the root.
- Visual and collision: native ``<box>``/``<cylinder>``/``<sphere>``/``<capsule>``/
  ``<ellipsoid>`` (SDFormat 1.8+), else ``<mesh><uri>`` to
  ``<stem>_meshes/<body>.obj``, relative to the SDF file. The visual carries the body's
  appearance (``<material>`` ambient and diffuse, ``<transparency>``, and for an invisible
  body ``<visibility_flags>0``: :func:`_material`). Gravity belongs to an SDFormat
  world, not a model: it is not written.
- Roll-pitch-yaw angles rebuild every rotation to rounding, also within 1e-9 rad of pitch
  +-90 degrees (:func:`rigidparts.transforms.matrix_to_rpy`). Every export passes SDFormat's
  own checker (``ign sdf -k`` / ``gz sdf -k``; tests/test_engines_more.py).
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from typing import Any

from ..appearance import Appearance
from ..component import Component
from ..model import Model
from ..model.joints import Joint
from ..model.rods import refuse_rods
from ..transforms import Transform, matrix_to_rpy
from ._common import (
    INERTIA_ENTRIES,
    Geometry,
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

__all__ = ["SDF_VERSION", "build_sdf", "to_sdf"]

SDF_VERSION = "1.9"


def to_sdf(model: Model, path: str | os.PathLike[str] | None = None, *, sections: int = 64) -> str:
    """The SDFormat text of ``model``; with ``path``, written with its meshes (all atomic)."""
    folder_name = mesh_folder(path if path is not None else f"{model.name}.sdf")[1]
    text, meshes = build_sdf(model, sections=sections, mesh_folder_name=folder_name)
    return write_xml(text, path, meshes)


def _pose(parent: ET.Element, pose: Transform, relative_to: str | None = None) -> None:
    rotation, position = pose
    attributes = {} if relative_to is None else {"relative_to": relative_to}
    element = ET.SubElement(parent, "pose", attributes)
    element.text = vec([*position, *matrix_to_rpy(rotation)])


def _text(parent: ET.Element, tag: str, text: str) -> ET.Element:
    element = ET.SubElement(parent, tag)
    element.text = text
    return element


def build_sdf(
    model: Model, *, sections: int = 64, mesh_folder_name: str = "meshes"
) -> tuple[str, dict[str, Any]]:
    """``(xml text, {mesh name: trimesh})``; meshes referenced as ``<folder>/<name>.obj``, one
    per distinct body (:func:`distinct_meshes`: equal links share one file)."""
    sections = check_sections(sections)
    model.check()
    refuse_rods(model.rods, "SDFormat")  # no spring-damper element: a clear error
    meshes, mesh_of = distinct_meshes(model, sections)
    poses = model.body_poses(model.zero_positions())
    root = ET.Element("sdf", version=SDF_VERSION)
    element_model = ET.SubElement(root, "model", name=model.name)
    for joint in model.ordered_joints():
        name = joint.child_body
        body = model.bodies[name]
        mesh_uri = f"{mesh_folder_name}/{mesh_of.get(name, name)}.obj"
        _link(element_model, name, body, poses[name], mesh_uri, model.appearance(name))
        for frame_name in body.frames:
            frame = ET.SubElement(
                element_model, "frame", name=f"{name}.{frame_name}", attached_to=name
            )
            _pose(frame, model.frame_in_body(name, frame_name), relative_to=name)
        if joint.type != "free":  # a link without a joint floats
            _joint(element_model, joint, model.child_frame_in_body(joint))
    return xml_text(root), meshes


def _link(
    parent: ET.Element,
    name: str,
    body: Component,
    pose: Transform,
    mesh_uri: str,
    looks: Appearance,
) -> None:
    """The body's ``<link>`` (frame_a at ``pose`` in the model frame): inertial, visual (in
    the colours of ``looks``) and collision."""
    link = ET.SubElement(parent, "link", name=name)
    _pose(link, pose)
    _inertial(link, body)
    geometry = body_geometry(body)
    for tag in ("visual", "collision"):
        element = ET.SubElement(link, tag, name=tag)
        _pose(element, (geometry.rotation, geometry.position))
        _geometry(ET.SubElement(element, "geometry"), geometry, mesh_uri)
        if tag == "visual":
            _material(element, looks)


def _inertial(link: ET.Element, body: Component) -> None:
    """``<inertial>`` in the principal frame P (:func:`link_inertial`): ``<pose>`` = the centre
    of mass and ``rpy(R_AP)`` (relative to the link), the mass, and ``<inertia>`` with the
    moments in P's axes on the diagonal and zero products."""
    values = link_inertial(body.mass_properties)
    inertial = ET.SubElement(link, "inertial")
    _pose(inertial, (values.rotation, values.position))
    _text(inertial, "mass", fmt(values.mass))
    tensor = ET.SubElement(inertial, "inertia")
    moments = dict(zip(("ixx", "iyy", "izz"), values.moments, strict=True))
    for tag in INERTIA_ENTRIES:
        _text(tensor, tag, fmt(moments.get(tag, 0.0)))


def _material(visual: ET.Element, looks: Appearance) -> None:
    """The body's appearance in its ``<visual>``: ``<material>`` with ``<ambient>`` and
    ``<diffuse>`` = r g b a (alpha = opacity; Drake reads the diffuse colour, Gazebo both),
    ``<transparency>`` = 1 - opacity (SDFormat: 0 opaque, 1 fully transparent; written only
    for a translucent body, since Drake warns that it ignores the element). SDFormat has
    no visibility flag for a visual but ``<visibility_flags>``, which cameras AND with their
    mask: an invisible body gets 0 (no camera draws it), transparency 1 and alpha 0 (for
    readers that ignore the flags, such as Drake)."""
    opacity = looks.opacity if looks.visible else 0.0
    rgba = vec((*looks.color, opacity))
    if opacity < 1.0:  # only then: Drake warns that it ignores <transparency>
        _text(visual, "transparency", fmt(1.0 - opacity))
    if not looks.visible:
        _text(visual, "visibility_flags", "0")
    material = ET.SubElement(visual, "material")
    _text(material, "ambient", rgba)
    _text(material, "diffuse", rgba)


def _geometry(parent: ET.Element, geometry: Geometry, mesh_uri: str) -> None:
    if geometry.kind == "box":
        _text(ET.SubElement(parent, "box"), "size", vec(geometry.size))
    elif geometry.kind == "cylinder":
        radius, length = geometry.size
        cylinder = ET.SubElement(parent, "cylinder")
        _text(cylinder, "radius", fmt(radius))
        _text(cylinder, "length", fmt(length))
    elif geometry.kind == "sphere":
        _text(ET.SubElement(parent, "sphere"), "radius", fmt(geometry.size[0]))
    elif geometry.kind == "capsule":  # SDFormat 1.8+: length is the cylindrical part
        radius, length = geometry.size
        capsule = ET.SubElement(parent, "capsule")
        _text(capsule, "radius", fmt(radius))
        _text(capsule, "length", fmt(length))
    elif geometry.kind == "ellipsoid":  # SDFormat 1.8+
        _text(ET.SubElement(parent, "ellipsoid"), "radii", vec(geometry.size))
    else:
        _text(ET.SubElement(parent, "mesh"), "uri", mesh_uri)


def _joint(parent: ET.Element, joint: Joint, x_ac: Transform) -> None:
    """The ``<joint>``, posed at the child frame ``X_AC`` relative to the child link."""
    kind = joint.type
    if kind == "revolute" and joint.limits is None:
        kind = "continuous"
    element = ET.SubElement(parent, "joint", name=joint.name, type=kind)
    _text(element, "parent", "world" if joint.parent_body is None else joint.parent_body)
    _text(element, "child", joint.child_body)
    _pose(element, x_ac)
    if joint.type in ("revolute", "prismatic"):
        axis = ET.SubElement(element, "axis")
        _text(axis, "xyz", vec(joint.axis_in_joint))
        if joint.limits is not None:
            limit = ET.SubElement(axis, "limit")
            _text(limit, "lower", fmt(joint.limits[0]))
            _text(limit, "upper", fmt(joint.limits[1]))
        dynamics = ET.SubElement(axis, "dynamics")
        _text(dynamics, "damping", fmt(joint.damping))
