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
  conaffinity = 1; meshes collide by their convex hull), coloured by the body's appearance
  (``Model.appearance``: ``rgba`` = colour and opacity; an invisible body's geom in group 3,
  which MuJoCo's viewers hide by default): ``box`` (half extents), ``cylinder``
  (radius, half length), ``sphere`` (radius), ``capsule`` (radius, half the cylindrical
  part), ``ellipsoid`` (semi-axes) or ``mesh``. The two bodies of every joint are a
  ``<contact><exclude>`` pair: MuJoCo's own parent filter lapses when the parent is welded to
  the world, and a fixed base would collide with its first link. Each named frame is a
  ``<site name="BODY.FRAME">`` with the frame's position and, unless it is the identity, its
  rotation as ``quat``. Bodies of one shape, size and axes share one ``<mesh>`` (named after
  the first of them). Contacts are off unless the model's ``simulation.contacts`` is True:
  ``<option><flag contact="disable"/></option>``.
- The initial joint positions and velocities are the keyframe ``initial``.
- Deep trees: one file nests at most :data:`MUJOCO_MAX_DEPTH` bodies (MuJoCo's XML parser);
  deeper subtrees go to included parts (:func:`mjcf_files`).
- MuJoCo's compiler refuses tiny moving bodies and meshes: :func:`check_mujoco_limits` says so
  first, naming the body.
- Each rod (:mod:`rigidparts.model.rods`) is a ``<tendon><spatial>`` between the sites of its
  two frames (``site="world"`` at the world origin when an end is the world) with
  ``springlength`` = rest length, ``stiffness`` and ``damping``.

Joint coordinates map to MuJoCo's ``qpos``/``qvel`` one to one for revolute and prismatic
joints; for ball and free joints through the child frame's offset in the body
(:func:`mujoco_state`, :func:`joint_state_from_mujoco`), which is the identity when the child
frame is frame_a.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..appearance import Appearance
from ..component import Component
from ..errors import ModelError
from ..fileio import atomic_files
from ..inertia import MUJOCO_MINVAL as _MINVAL
from ..inertia import mujoco_invalidity
from ..model import Model
from ..model.joints import Joint
from ..transforms import Transform, compose, invert, matrix_to_quaternion, quaternion_to_matrix
from ._common import (
    MUJOCO_MAX_BODY_DEPTH,
    Geometry,
    body_geometry,
    check_sections,
    distinct_meshes,
    fmt,
    mesh_folder,
    mesh_obj_bytes,
    mujoco_depth_error,
    vec,
    write_meshes,
    write_xml,
)
from ._inertial import edge_moments

__all__ = [
    "MUJOCO_MAX_DEPTH",
    "MUJOCO_MINVAL",
    "MjcfFiles",
    "build_mjcf",
    "joint_state_from_mujoco",
    "mjcf_files",
    "mujoco_state",
    "to_mjcf",
]

#: The deepest nesting of bodies below ``<worldbody>`` that MuJoCo's XML parser reads in one
#: file. tinyxml2 refuses the element that reaches depth 500 (``TINYXML2_MAX_ELEMENT_DEPTH``),
#: counting the document, ``<mujoco>`` and ``<worldbody>``; self-closing elements do not
#: count. So 496 bodies load and 497 do not (checked in ``tests/test_big_models.py``).
MUJOCO_MAX_DEPTH = 496

#: MuJoCo's ``mjMINVAL`` (``mjtype.h``; :data:`rigidparts.inertia.MUJOCO_MINVAL`), the floor
#: of its compiler's size checks: a moving body's mass (kg) and each principal moment
#: (kg m^2, :func:`rigidparts.inertia.mujoco_invalidity`), a mesh's volume (m^3) and surface
#: area (m^2); a mesh triangle whose doubled area (m^2) is below it counts as no triangle.
MUJOCO_MINVAL = _MINVAL

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
    """The MJCF text of ``model``; with ``path``, also written with its meshes, all or nothing.

    Without ``path`` the meshes are embedded (``<mesh vertex=... face=...>``), so the text
    loads on its own with ``mujoco.MjModel.from_xml_string``. A tree deeper than
    :data:`MUJOCO_MAX_DEPTH` bodies is written as the model file plus parts it includes
    (``<stem>_meshes/<body>.xml``, see :func:`mjcf_files`); without ``path`` it is a
    :class:`~rigidparts.ModelError`.
    """
    folder_name = None if path is None else mesh_folder(path)[1]
    files = mjcf_files(model, sections=sections, folder_name=folder_name)
    if not files.parts:
        return write_xml(files.text, path, files.meshes)
    assert path is not None and folder_name is not None  # parts need a folder
    with atomic_files(path, folder_name) as (staged_file, staged_folder):
        write_meshes(files.meshes, staged_folder)
        staged_folder.mkdir(parents=True, exist_ok=True)
        for name, text in files.parts.items():
            (staged_folder / name).write_text(text, encoding="utf-8", newline="\n")
        staged_file.write_text(files.text, encoding="utf-8", newline="\n")
    return files.text


def build_mjcf(
    model: Model, *, sections: int = 64, mesh_folder_name: str | None = None
) -> tuple[str, dict[str, Any]]:
    """``(xml text, {mesh name: trimesh})`` of a model at most :data:`MUJOCO_MAX_DEPTH`
    bodies deep (:func:`mjcf_files` for any depth). With ``mesh_folder_name`` meshes are
    referenced as ``<folder>/<name>.obj`` files; without, embedded in the XML."""
    files = mjcf_files(model, sections=sections, folder_name=mesh_folder_name, split=False)
    return files.text, files.meshes


@dataclass(frozen=True)
class MjcfFiles:
    """An MJCF export: the model file's text, its meshes and the parts it includes.

    ``meshes`` maps a mesh's name (the first body drawn with it) to its ``trimesh``, written as
    ``<folder>/<name>.obj``; ``mesh_of`` maps every body drawn as a mesh to that name (bodies
    of one shape, size and axis share one mesh). ``parts`` maps a file name in the folder to
    the XML text of a subtree that the model file (or another part) includes.
    """

    text: str
    meshes: dict[str, Any]
    parts: dict[str, str] = field(default_factory=dict)
    mesh_of: dict[str, str] = field(default_factory=dict)
    folder_name: str | None = None

    def assets(self) -> dict[str, bytes]:
        """``{"<folder>/<file>": bytes}``: the files the text refers to, as the ``assets`` of
        ``mujoco.MjModel.from_xml_string`` (OBJ meshes and XML parts)."""
        if self.folder_name is None:
            return {}
        out = mesh_assets(self.meshes, self.folder_name)
        for name, text in self.parts.items():
            out[f"{self.folder_name}/{name}"] = text.encode("utf-8")
        return out


def mjcf_files(
    model: Model,
    *,
    sections: int = 64,
    folder_name: str | None = None,
    split: bool = True,
) -> MjcfFiles:
    """The MJCF export of ``model`` (see the module docstring), checked against MuJoCo's
    limits (:func:`check_mujoco_limits`).

    MuJoCo's XML parser reads at most :data:`MUJOCO_MAX_DEPTH` nested bodies per file. A deeper
    tree is cut there: each body at depth ``k * MUJOCO_MAX_DEPTH + 1`` (k >= 1) and its subtree
    go to the part ``<folder>/<body>.xml`` (a ``<mujoco>`` holding that ``<body>``), which its
    parent body includes with ``<include file="<folder>/<body>.xml"/>``; MuJoCo resolves the
    path from the model file's folder, parts included by parts too. Without ``folder_name``,
    or with ``split=False``, such a tree is a :class:`~rigidparts.ModelError` naming the depth
    and the limit.
    """
    sections = check_sections(sections)
    model.check()
    joints = model.ordered_joints()
    depth: dict[str | None, int] = {None: 0}
    for joint in joints:  # parents come first: one pass
        depth[joint.child_body] = depth[joint.parent_body] + 1
    deepest = max(model.bodies, key=lambda name: depth[name])
    if depth[deepest] > MUJOCO_MAX_BODY_DEPTH:  # no file layout helps: MuJoCo cannot build it
        raise mujoco_depth_error(  # type: ignore[misc]
            model, "no MJCF can hold it; export URDF or SDF for engines without that limit"
        )
    if depth[deepest] > MUJOCO_MAX_DEPTH and (folder_name is None or not split):
        raise _too_deep(model, deepest, depth[deepest])
    geometries = {name: body_geometry(body) for name, body in model.bodies.items()}
    meshes, mesh_of = distinct_meshes(model, sections, geometries)
    check_mujoco_limits(model, meshes, mesh_of)

    root = ET.Element("mujoco", model=model.name)
    ET.SubElement(root, "compiler", COMPILER)
    option = ET.SubElement(root, "option", _option_attributes(model))
    if not model.simulation.contacts:  # contacts are opt-in (the model's setting)
        ET.SubElement(option, "flag", contact="disable")
    if meshes:
        _assets(ET.SubElement(root, "asset"), meshes, folder_name)

    quaternions = _Quaternions()
    elements: dict[str | None, ET.Element] = {None: ET.SubElement(root, "worldbody")}
    parts: dict[str, ET.Element] = {}
    for joint in joints:
        x_ac = model.child_frame_in_body(joint)
        x_bpa = compose(model.joint_frame_in_parent_body(joint), invert(x_ac))
        parent = elements[joint.parent_body]
        if depth[joint.child_body] % MUJOCO_MAX_DEPTH == 1 and depth[joint.child_body] > 1:
            file_name = f"{joint.child_body}.xml"
            ET.SubElement(parent, "include", file=f"{folder_name}/{file_name}")
            parent = parts[file_name] = ET.Element("mujoco")
        name = joint.child_body
        element = _body_element(parent, name, x_bpa, quaternions)
        elements[name] = element
        _joint_element(element, joint, x_ac)
        _body_contents(
            element,
            name,
            model.bodies[name],
            geometries[name],
            mesh_of,
            quaternions,
            model.appearance(name),
        )
    quaternions.write()

    pairs = [j for j in joints if j.parent_body is not None]
    if pairs:
        # MuJoCo filters parent-child contacts only while the parent moves; a parent welded to
        # the world (a fixed base) would collide with its child at the joint.
        contact = ET.SubElement(root, "contact")
        for joint in pairs:
            ET.SubElement(
                contact, "exclude", name=joint.name, body1=joint.parent_body, body2=joint.child_body
            )
    if model.rods:
        _tendons(root, elements[None], model)

    qpos, qvel = mujoco_state(model, model.initial_positions(), model.initial_velocities())
    if qpos.size:
        keyframe = ET.SubElement(root, "keyframe")
        ET.SubElement(keyframe, "key", name="initial", qpos=vec(qpos), qvel=vec(qvel))
    return MjcfFiles(
        text=xml_text(root),
        meshes=meshes,
        parts={name: xml_text(part) for name, part in parts.items()},
        mesh_of=mesh_of,
        folder_name=folder_name,
    )


def _too_deep(model: Model, body: str, depth: int) -> ModelError:
    """The error for a tree too deep for one MJCF text: names the body, its depth, the limit."""
    chain = [body]
    while len(chain) < 3 and model.parent_joint(chain[-1]).parent_body is not None:
        chain.append(model.parent_joint(chain[-1]).parent_body)  # type: ignore[arg-type]
    path = " -> ".join(["world", "...", *reversed(chain)])
    return ModelError(
        f"bodies.{body}",
        body,
        f"lies {depth} bodies deep ({path}); MuJoCo's XML parser reads at most "
        f"{MUJOCO_MAX_DEPTH} nested bodies in one file: export to a file (the deeper parts "
        "go to files it includes), or to URDF or SDF, which do not nest",
    )


_EYE = np.eye(3)


def is_identity(rotation: np.ndarray) -> bool:
    """True when ``rotation`` is exactly the identity (then MJCF omits it): the test of
    :func:`rigidparts.export._common.is_identity`, without ``np.array_equal``'s overhead."""
    return not (rotation != _EYE).any()


class _Quaternions:
    """``quat`` attributes written in one conversion at the end: converting a stack of
    rotation matrices costs ~3 us a matrix, one at a time ~0.4 ms (a 1000-body model has
    thousands). The attribute is created at once, so the attributes keep their order."""

    def __init__(self) -> None:
        self._elements: list[ET.Element] = []
        self._matrices: list[np.ndarray] = []

    def add(self, element: ET.Element, rotation: np.ndarray) -> None:
        if is_identity(rotation):
            element.set("quat", "1.0 0.0 0.0 0.0")  # exactly, as matrix_to_quaternion gives
            return
        element.set("quat", "")
        self._elements.append(element)
        self._matrices.append(rotation)

    def write(self) -> None:
        if not self._matrices:
            return
        for element, quat in zip(
            self._elements, matrix_to_quaternion(np.array(self._matrices)), strict=True
        ):
            element.set("quat", vec(quat))


def xml_text(root: ET.Element) -> str:
    """The XML text of ``root`` with a declaration, indented by two spaces: the text of
    ``ET.indent`` then ``ET.tostring``, written without recursion (those recurse once per
    level, and an MJCF file nests as deep as :data:`MUJOCO_MAX_DEPTH` bodies)."""
    out = ['<?xml version="1.0" encoding="utf-8"?>\n']
    stack: list[tuple[ET.Element, int, bool]] = [(root, 0, False)]
    while stack:
        element, level, closing = stack.pop()
        pad = "  " * level
        if closing:
            out.append(f"{pad}</{element.tag}>\n")
            continue
        attributes = "".join(f' {k}="{_escape(v)}"' for k, v in element.attrib.items())
        children = list(element)
        if not children:
            out.append(f"{pad}<{element.tag}{attributes} />\n")
            continue
        out.append(f"{pad}<{element.tag}{attributes}>\n")
        stack.append((element, level, True))
        stack.extend((child, level + 1, False) for child in reversed(children))
    return "".join(out)


#: ElementTree's escapes of attribute values.
_ESCAPES = str.maketrans(
    {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "\r": "&#13;", "\n": "&#10;",
     "\t": "&#09;"}
)  # fmt: skip


def _escape(value: str) -> str:
    return value.translate(_ESCAPES)


# -- meshes and MuJoCo's size limits -------------------------------------------------------


def check_mujoco_limits(model: Model, meshes: dict[str, Any], mesh_of: dict[str, str]) -> None:
    """Raise :class:`~rigidparts.ModelError` naming the body where MuJoCo's compiler would
    refuse the model for its size (its own rules, with ``mjMINVAL`` = :data:`MUJOCO_MINVAL`):

    - a moving body (on a joint that is not ``fixed``) needs mass >= 1e-15 kg and each
      principal moment >= 1e-15 kg m^2, or a body welded to it (by fixed joints, not through
      another moving joint) that has both: a 0.2 mm steel cube alone is refused;
    - a mesh needs a surface area >= 1e-15 m^2 and a volume >= 1e-15 m^3 (a cube of 10 um),
      counted as MuJoCo does (:func:`mujoco_mesh_size`).
    """
    for joint in model.ordered_joints():
        if joint.type == "fixed" or _carries_mass(model, joint.child_body):
            continue
        body = model.bodies[joint.child_body]
        moments = mujoco_moments(body.principal_moments)
        raise ModelError(
            f"bodies.{joint.child_body}",
            float(f"{min(body.mass, *moments):.3g}"),
            f"too small for MuJoCo: a moving body (joint {joint.name!r}) of mass "
            f"{body.mass:.3g} kg and principal moments {', '.join(f'{m:.3g}' for m in moments)}"
            f" kg m^2; MuJoCo refuses a moving body whose mass or any principal moment is below "
            f"{MUJOCO_MINVAL:g} (kg, kg m^2), unless a body welded to it reaches that: make it "
            "larger or denser, or weld it to a larger body",
        )
    for mesh_name, mesh in meshes.items():
        area, volume = mujoco_mesh_size(mesh.vertices, mesh.faces)
        if area >= MUJOCO_MINVAL and volume >= MUJOCO_MINVAL:
            continue
        users = [body for body, used in mesh_of.items() if used == mesh_name]
        what = (
            f"surface area {area:.3g} m^2" if area < MUJOCO_MINVAL else f"volume {volume:.3g} m^3"
        )
        raise ModelError(
            f"bodies.{users[0]}",
            users[0],
            f"its mesh is too small for MuJoCo: {what}, below MuJoCo's limit of "
            f"{MUJOCO_MINVAL:g} (m^2 for the area, m^3 for the volume: a cube of 10 um); "
            "make the body larger",
        )


def _carries_mass(model: Model, body: str) -> bool:
    """MuJoCo's test of a moving body: it, or a body welded below it, has mass and principal
    moments >= :data:`MUJOCO_MINVAL`."""
    stack = [body]
    while stack:
        name = stack.pop()
        component = model.bodies[name]
        moments = mujoco_moments(component.principal_moments)
        if mujoco_invalidity(component.mass, moments) is None:
            return True
        stack.extend(j.child_body for j in model.child_joints(name) if j.type == "fixed")
    return False


def mujoco_mesh_size(vertices: Any, faces: Any) -> tuple[float, float]:
    """``(surface area m^2, volume m^3)`` of a mesh as MuJoCo's compiler counts them (its
    default, "legacy" mesh inertia): vertices in single precision; a triangle whose doubled
    area is below :data:`MUJOCO_MINVAL` counts as none; the volume is the sum of the
    pyramids from the area-weighted centre of the faces, each taken positive."""
    v = np.asarray(vertices, dtype=np.float32).astype(np.float64)
    tri = v[np.asarray(faces)]
    cross = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    doubled = np.sqrt(np.einsum("ij,ij->i", cross, cross))
    kept = doubled >= MUJOCO_MINVAL
    area = 0.5 * doubled[kept]
    total = float(area.sum())
    if total < MUJOCO_MINVAL:
        return total, 0.0
    centres = tri[kept].sum(axis=1) / 3
    centroid = (area[:, None] * centres).sum(axis=0) / total
    normals = cross[kept] / doubled[kept, None]
    heights = np.abs(np.einsum("ij,ij->i", centres - centroid, normals))
    return total, float(np.sum(heights * area) / 3)


def _option_attributes(model: Model) -> dict[str, str]:
    """Gravity, and the model's timestep and integrator when it has them."""
    option = {"gravity": vec(model.gravity)}
    if model.simulation.timestep is not None:
        option["timestep"] = fmt(model.simulation.timestep)
    if model.simulation.integrator is not None:
        option["integrator"] = MUJOCO_INTEGRATORS[model.simulation.integrator]
    return option


def _assets(asset: ET.Element, meshes: dict[str, Any], folder_name: str | None) -> None:
    """One ``<mesh>`` per distinct mesh: a file in ``folder_name``, or embedded when it is
    None."""
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


def _body_element(
    parent: ET.Element, name: str, x_bpa: Transform, quaternions: _Quaternions
) -> ET.Element:
    """The ``<body>``: frame_a at ``X_BpA`` in the parent body's frame_a (or the world)."""
    rotation, position = x_bpa
    element = ET.SubElement(parent, "body", {"name": name, "pos": vec(position)})
    if not is_identity(rotation):
        quaternions.add(element, rotation)
    return element


def _body_contents(
    element: ET.Element,
    name: str,
    body: Component,
    geometry: Geometry,
    mesh_of: dict[str, str],
    quaternions: _Quaternions,
    looks: Appearance,
) -> None:
    """The body's principal-form ``<inertial>``, its ``<geom>`` (``mesh_of``: the name of each
    body's mesh; coloured by ``looks``) and a ``<site>`` per frame."""
    props = body.mass_properties
    inertial = ET.SubElement(
        element,
        "inertial",
        pos=vec(props.center_of_mass),
        mass=fmt(props.mass),
        diaginertia=vec(mujoco_moments(props.principal_moments)),
    )
    quaternions.add(inertial, props.principal_axes)
    geom = ET.SubElement(element, "geom", _geom_attributes(name, geometry, mesh_of.get(name)))
    _appearance(geom, looks)
    if geometry.kind != "mesh" and not is_identity(geometry.rotation):
        quaternions.add(geom, geometry.rotation)
    for frame_name, frame in body.frames.items():
        site = ET.SubElement(
            element, "site", {"name": f"{name}.{frame_name}", "pos": vec(frame.position)}
        )
        if not is_identity(frame.rotation):
            quaternions.add(site, frame.rotation)


def mujoco_moments(moments: np.ndarray) -> np.ndarray:
    """The principal moments (ascending) as MuJoCo accepts them.

    MuJoCo refuses ``I1 + I2 < I3`` with no tolerance, which rounding alone can produce for a
    flat body (a plate whose thickness is below ~1e-8 of its width), where the exact moments
    satisfy ``I1 + I2 = I3 + (tiny)``. Then ``I3`` is set to ``fl(I1 + I2)``: a change of a
    few ulp, far below :data:`rigidparts.INERTIA_TOLERANCE` (the tensor was validated with
    it). Any other tensor is written untouched (:func:`rigidparts.export._inertial.edge_moments`,
    the rule the URDF and SDFormat writers use too).
    """
    return edge_moments(moments)


def _geom_attributes(name: str, geometry: Geometry, mesh: str | None = None) -> dict[str, str]:
    """The ``<geom>`` of a body: massless, colliding, native where MuJoCo has the primitive,
    else the mesh ``mesh`` (default: the body's name). Its ``quat`` is left to the caller."""
    geom = {"name": name, "mass": "0", "contype": "1", "conaffinity": "1"}
    if geometry.kind == "mesh":
        geom.update(type="mesh", mesh=mesh or name)
        return geom
    if geometry.kind == "box":
        geom.update(type="box", size=vec(0.5 * np.array(geometry.size)))
    elif geometry.kind in ("cylinder", "capsule"):  # size: radius, half the cylinder part
        radius, length = geometry.size
        geom.update(type=geometry.kind, size=vec((radius, 0.5 * length)))
    else:  # sphere (radius), ellipsoid (the three semi-axes)
        geom.update(type=geometry.kind, size=vec(geometry.size))
    geom["pos"] = vec(geometry.position)
    return geom


#: The geom group of an invisible body: MuJoCo's viewers draw groups 0, 1 and 2 by default
#: (``mjvOption.geomgroup = [1, 1, 1, 0, 0, 0]``), so group 3 is hidden until switched on.
HIDDEN_GROUP = "3"


def _appearance(geom: ET.Element, looks: Appearance) -> None:
    """The body's colour and opacity as the geom's ``rgba``; an invisible body's geom goes to
    :data:`HIDDEN_GROUP` (hidden in MuJoCo's viewers, still colliding when contacts are on,
    and shown in its colour when the group is switched on)."""
    geom.set("rgba", vec(looks.rgba))
    if not looks.visible:
        geom.set("group", HIDDEN_GROUP)


def _tendons(root: ET.Element, worldbody: ET.Element, model: Model) -> None:
    """Each rod as a ``<spatial>`` tendon from the site of its frame_a to that of its frame_b
    (``site="world"`` at the world origin): MuJoCo's passive force ``-stiffness (L -
    springlength) - damping dL/dt`` along it is the rod's tension ``f``; ``width`` is the
    original's drawing radius, 0.01 m."""
    if any("world" in (rod.frame_a, rod.frame_b) for rod in model.rods.values()):
        ET.SubElement(worldbody, "site", name="world", pos="0.0 0.0 0.0")
    tendon = ET.SubElement(root, "tendon")
    for rod in model.rods.values():
        spatial = ET.SubElement(
            tendon,
            "spatial",
            name=rod.name,
            springlength=fmt(rod.rest_length),  # one value: the rest length
            stiffness=fmt(rod.stiffness),
            damping=fmt(rod.damping),
            width="0.01",
        )
        for frame in (rod.frame_a, rod.frame_b):
            ET.SubElement(spatial, "site", site=frame)


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
    # row t flips when an odd number of neighbours k <= t point away (q_k . q_(k-1) < 0)
    flips = np.cumsum(np.einsum("ij,ij->i", quats[1:], quats[:-1]) < 0) % 2
    quats[1:] *= np.where(flips == 1, -1.0, 1.0)[:, None]
    return quats


def mesh_assets(meshes: dict[str, Any], folder_name: str) -> dict[str, bytes]:
    """``{"<folder>/<body>.obj": OBJ bytes}``: the ``assets`` of ``MjModel.from_xml_string``."""
    return {f"{folder_name}/{name}.obj": mesh_obj_bytes(mesh) for name, mesh in meshes.items()}
