"""Reading URDF files into a :class:`~rigidparts.formats.description.Description`.

What is read (the URDF specification, wiki.ros.org/urdf/XML, and its reference parser
urdfdom; Drake's and pybullet's readers where they go beyond it):

- ``<link name>``: ``<inertial>`` with ``<origin xyz rpy>`` (``X_LI``: the centre of mass and
  the inertia's axes in the link frame), ``<mass value>`` and ``<inertia ixx ixy ixz iyy iyz
  izz>``: the entries of ``I_LIcm_I``, the tensor about the centre of mass in the inertial
  frame's axes (``ixy`` is the tensor's entry, the negative product of inertia). A link
  without ``<inertial>`` has ``inertial=None``. An ``<inertial>`` without ``<mass>`` or
  ``<inertia>`` (or some of its six attributes) is read with zeros where it is silent, as
  Drake does (urdfdom refuses such a file; pybullet's default is 1 kg): ``Inertial.given`` and
  a note say so.
- ``<collision>`` and ``<visual>``: ``<origin>`` (``X_LG``) and ``<geometry>`` with ``<box
  size>``, ``<cylinder radius length>`` and the non-standard ``<capsule radius length>``
  (pybullet, Drake; both along the geometry's z), ``<sphere radius>``, ``<mesh filename
  scale>``; Drake's ``<drake:capsule>`` and ``<drake:ellipsoid a b c>`` too. Mesh file names
  (``package://``, ``file://``, relative to the URDF's folder) are resolved with
  :func:`._xml.resolve_file`; one that cannot be found is kept with ``missing`` set.
  Visual colour: the ``<material>``'s ``<color rgba>``, in place or by name from the
  robot-level ``<material>`` elements (defined anywhere in the file, as urdfdom reads them).
- ``<joint name type>``: ``revolute``, ``continuous``, ``prismatic``, ``fixed``,
  ``floating``, ``planar`` (and pybullet's ``spherical``, read as ``ball``); ``<origin>``
  (``X_PJ``; the child link's frame is the joint frame at zero position), ``<parent link>``,
  ``<child link>``, ``<axis xyz>`` (default ``1 0 0``, in the joint frame; normalised, with a
  note when it was not of unit length), ``<limit lower upper effort velocity>`` (the
  attributes the file gives). ``<mimic>`` is not read (a note says so).
- Defaults: a missing ``<origin>``, ``xyz`` or ``rpy`` is zero; angles in radians,
  ``R = Rz(yaw) Ry(pitch) Rx(roll)`` (:func:`rigidparts.transforms.rpy_to_matrix`).

Refused with one :class:`~rigidparts.ModelError` naming the file, the line, the element and
the rule: malformed XML and entities (:func:`._xml.parse`), a root that is not ``<robot>``, a
missing required attribute (link and joint names, joint type, parent and child, geometry
sizes, a mesh's filename), a number that is not one, an unknown joint type, two links or two
joints of one name, a joint naming an unknown link, a link with two parents, a cycle of
joints. Elements the format does not define are ignored with a note (engines ignore them too);
its own elements that do not bear on the model (``<transmission>``, ``<gazebo>``,
``<dynamics>``, ``<calibration>``, ``<safety_controller>``, and MuJoCo's ``<mujoco>``
extension) are skipped silently. A link no joint holds stays without a joint (whether it is
fixed or free is the loader's choice in every engine); a joint whose parent is ``world`` when
no link has that name is a joint to the world, as Drake reads it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from ..inertia import tensor_from_entries
from ..transforms import IDENTITY, Transform
from ._xml import Element, PoseBatch, XmlFile, check_tree, resolve_file
from .description import (
    GEOMETRY_KINDS,
    Description,
    Geometry,
    Inertial,
    JointDescription,
    Link,
)

__all__ = ["read"]

BOX, CYLINDER, SPHERE, CAPSULE, ELLIPSOID, MESH, _PLANE, _HEIGHTFIELD, OTHER = GEOMETRY_KINDS

#: URDF joint type -> description kind.
JOINT_TYPES = {
    "revolute": "revolute",
    "continuous": "continuous",
    "prismatic": "prismatic",
    "fixed": "fixed",
    "floating": "floating",
    "planar": "planar",
    "spherical": "ball",  # pybullet's extension
}

#: Joint kinds that have an axis.
_AXIAL = ("revolute", "continuous", "prismatic", "planar")

#: Elements of the format that carry nothing rigidparts reads: skipped without a note.
_SILENT = {
    "robot": {"transmission", "gazebo", "mujoco"},  # mujoco: MuJoCo's URDF extension
    "link": set(),
    "joint": {"dynamics", "calibration", "safety_controller"},
}

#: The parent name Drake reads as the world when no link has it (urdfdom refuses it).
WORLD = "world"

_INERTIA_SLOTS = ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")


def read(
    path: str | os.PathLike[str], *, search_path: Iterable[str | os.PathLike[str]] = ()
) -> Description:
    """The :class:`Description` of the URDF file ``path``.

    ``search_path``: folders where ``package://NAME/...`` mesh files are looked for
    (:func:`._xml.find_package`: the entry itself when its name is NAME or its
    ``package.xml`` names it, else its sub-folder NAME; after the entries, the URDF's own
    folder and its parents the same way, so a package the file sits in, or a ``meshes``
    folder beside it as pybullet resolves ``package://meshes/...``, is found without one).
    """
    return _UrdfReader(path, tuple(search_path)).read()


class _UrdfReader:
    def __init__(
        self, path: str | os.PathLike[str], search_path: tuple[str | os.PathLike[str], ...]
    ):
        self.xml = XmlFile(path)
        self.base = Path(self.xml.path).resolve().parent
        self.search_path = search_path
        self.poses = PoseBatch()
        self.materials: dict[str, tuple[float, float, float, float] | None] = {}
        self.meshes: dict[str, tuple[str | None, str | None]] = {}
        self.origins: dict[tuple[str | None, str | None], Transform] = {}

    # -- the whole file --------------------------------------------------------------------

    def read(self) -> Description:
        xml, root = self.xml, self.xml.root
        if root.tag != "robot":
            raise xml.error(
                root, "root element", root.tag, "a URDF file's root element must be <robot>"
            )
        name = root.get("name")
        if name is None:
            name = Path(xml.path).stem
            xml.notes.append(f"<robot> has no name (urdfdom requires one): named {name!r}")
        for element in root.iterfind("material"):
            self._named_material(element)
        links: dict[str, Link] = {}
        joints: dict[str, JointDescription] = {}
        for element in root:
            tag = element.tag
            if tag == "link":
                link = self._link(element)
                if link.name in links:
                    raise xml.error(
                        element,
                        "link@name",
                        link.name,
                        f"two links are named {link.name!r} (line {links[link.name].source.line})",
                    )
                links[link.name] = link
            elif tag == "joint":
                joint = self._joint(element)
                if joint.name in joints:
                    raise xml.error(
                        element,
                        "joint@name",
                        joint.name,
                        f"two joints are named {joint.name!r} "
                        f"(line {joints[joint.name].source.line})",
                    )
                joints[joint.name] = joint
            elif tag != "material" and tag not in _SILENT["robot"]:
                xml.unknown(element, "<robot>")
                if tag.startswith("xacro:"):
                    self.xml.note_once(
                        "xacro",
                        "the file holds xacro macros, which are not expanded here: run "
                        "xacro on it first and read its output",
                    )
        if not links:
            raise xml.error(root, "robot", name, "a URDF file must have at least one <link>")
        self.poses.flush()
        check_tree(xml.path, links, joints, world=WORLD)
        self._world_parents(joints, links)
        description = Description(
            format="urdf",
            path=xml.path,
            name=name,
            links=links,
            joints=joints,
            notes=xml.notes,
            document=root,
        )
        children = {joint.child for joint in joints.values()}
        roots = [link for link in links if link not in children]
        if len(roots) > 1:
            xml.notes.append(
                f"{len(roots)} links are no joint's child ({', '.join(roots[:5])}"
                f"{', ...' if len(roots) > 5 else ''}): urdfdom refuses a URDF with several roots"
            )
        xml.finish_notes()
        return description

    def _world_parents(self, joints: dict[str, JointDescription], links: dict[str, Link]) -> None:
        if WORLD in links:
            return
        named = [joint.name for joint in joints.values() if joint.parent == WORLD]
        if named:
            self.xml.notes.append(
                f"joint {named[0]!r}{' and others' if len(named) > 1 else ''}: parent "
                f"{WORLD!r} is no link of the file: read as the world, as Drake does (urdfdom "
                "refuses it)"
            )

    # -- poses and colours -----------------------------------------------------------------

    def _origin(self, parent: Element, where: str) -> Transform:
        """``<origin xyz rpy>`` of ``parent`` (identity when absent). Equal texts give the
        same (read-only) pose."""
        element = parent.find("origin")
        if element is None:
            return IDENTITY
        key = (element.get("xyz"), element.get("rpy"))
        pose = self.origins.get(key)
        if pose is None:
            values = []
            for name, text in zip(("xyz", "rpy"), key, strict=True):
                if text is None:
                    values.append((0.0, 0.0, 0.0))
                    continue
                triple = self.xml.numbers(text, 3, element, f"{where}/origin@{name}", finite=True)
                values.append(triple)
            pose = self.origins[key] = self.poses.pose(values[0], values[1])
        return pose

    def _rgba(self, element: Element, where: str) -> tuple[float, float, float, float] | None:
        color = element.find("color")
        if color is None:
            return None
        rgba = self.xml.numbers(
            self.xml.attribute(color, "rgba", f"{where}/color"), 4, color, f"{where}/color@rgba"
        )
        return rgba  # type: ignore[return-value]

    def _named_material(self, element: Element) -> None:
        name = self.xml.attribute(element, "name", "material")
        self.materials[name] = self._rgba(element, f"material[{name}]")

    # -- links -----------------------------------------------------------------------------

    def _link(self, element: Element) -> Link:
        xml = self.xml
        name = xml.attribute(element, "name", "link")
        where = f"link[{name}]"
        link = Link(name=name, source=xml.source(element, where))
        counts = {"collision": 0, "visual": 0}
        for child in element:
            tag = child.tag
            if tag == "inertial":
                if link.inertial is not None:
                    xml.notes.append(
                        f"{where}: a second <inertial> (line {child.line}) is ignored, as urdfdom "
                        "reads the first"
                    )
                    continue
                link.inertial = self._inertial(child, f"{where}/inertial")
            elif tag in counts:
                counts[tag] += 1
                geometry = self._geometry(child, f"{where}/{tag}[{counts[tag]}]", tag)
                (link.collisions if tag == "collision" else link.visuals).append(geometry)
            elif tag not in _SILENT["link"]:
                xml.unknown(child, "<link>")
        return link

    def _inertial(self, element: Element, where: str) -> Inertial:
        xml = self.xml
        pose = self._origin(element, where)
        given = {"center_of_mass"}
        mass = 0.0
        mass_element = element.find("mass")
        if mass_element is None or mass_element.get("value") is None:
            xml.notes.append(
                f"{where} (line {element.line}): no <mass value>: read as 0 kg, as Drake does "
                "(urdfdom refuses it; pybullet takes 1 kg)"
            )
        else:
            mass = xml.number(mass_element.get("value"), mass_element, f"{where}/mass@value")
            given.add("mass")
        slots = dict.fromkeys(_INERTIA_SLOTS, 0.0)
        inertia_element = element.find("inertia")
        if inertia_element is None:
            xml.notes.append(
                f"{where} (line {element.line}): no <inertia>: read as zero, as Drake does "
                "(urdfdom refuses it)"
            )
        else:
            absent = []
            for slot in _INERTIA_SLOTS:
                text = inertia_element.get(slot)
                if text is None:
                    absent.append(slot)
                else:
                    slots[slot] = xml.number(text, inertia_element, f"{where}/inertia@{slot}")
            if absent:
                xml.notes.append(
                    f"{where}/inertia (line {inertia_element.line}): no {', '.join(absent)}: "
                    "read as 0, as Drake does (urdfdom refuses it)"
                )
            else:
                given.add("inertia")
        inertia = tensor_from_entries([slots[s] for s in _INERTIA_SLOTS], _INERTIA_SLOTS)
        return Inertial(
            mass=mass,
            pose=pose,
            inertia=inertia,
            layout="urdf" if inertia_element is not None else "absent",
            source=xml.source(element, where),
            given=frozenset(given),
        )

    def _geometry(self, element: Element, where: str, role: str) -> Geometry:
        xml = self.xml
        pose = self._origin(element, where)
        holder = element.find("geometry")
        if holder is None:
            raise xml.error(element, where, None, f"<{role}> must contain a <geometry>")
        shapes = list(holder)
        if not shapes:
            raise xml.error(holder, f"{where}/geometry", None, "<geometry> must contain a shape")
        shape = shapes[0]
        tag = shape.tag
        at = f"{where}/geometry/{tag}"
        size: tuple[float, ...] = ()
        mesh = missing = None
        scale = (1.0, 1.0, 1.0)
        kind = tag
        if tag == BOX:
            size = xml.numbers(xml.attribute(shape, "size", at), 3, shape, f"{at}@size")
        elif tag in (CYLINDER, CAPSULE, "drake:capsule"):
            kind = CYLINDER if tag == CYLINDER else CAPSULE
            size = (self._attr_number(shape, "radius", at), self._attr_number(shape, "length", at))
            if tag == CAPSULE:
                self.xml.note_once(
                    CAPSULE,
                    "<capsule> is not standard URDF (pybullet and Drake read it; "
                    "urdfdom and MuJoCo do not)",
                )
        elif tag == SPHERE:
            size = (self._attr_number(shape, "radius", at),)
        elif tag == "drake:ellipsoid":
            kind = ELLIPSOID
            size = tuple(self._attr_number(shape, axis, at) for axis in ("a", "b", "c"))
        elif tag == MESH:
            filename = xml.attribute(shape, "filename", at)
            text = shape.get("scale")
            if text is not None:
                values = xml.numbers(text, (1, 3), shape, f"{at}@scale")
                scale = values * 3 if len(values) == 1 else values  # type: ignore[assignment]
            if filename not in self.meshes:
                self.meshes[filename] = resolve_file(filename, self.base, self.search_path)
            mesh, missing = self.meshes[filename]
        else:
            kind = OTHER
            xml.notes.append(
                f"{at} (line {shape.line}): <{tag}> is not a URDF geometry: kept without volume"
            )
        if len(shapes) > 1:
            xml.notes.append(
                f"{where}/geometry (line {holder.line}): more than one shape: the first, "
                f"<{tag}>, is read"
            )
        rgba = None
        if role == "visual":
            material = element.find("material")
            if material is not None:
                rgba = self._rgba(material, f"{where}/material")
                if rgba is None:
                    rgba = self.materials.get(material.get("name", ""))
        return Geometry(
            kind=kind,
            size=size,
            pose=pose,
            role=role,  # type: ignore[arg-type]
            source=xml.source(element, where),
            name=element.get("name"),
            mesh=mesh,
            scale=scale,
            missing=missing,
            rgba=rgba,
        )

    def _attr_number(self, element: Element, name: str, where: str) -> float:
        return self.xml.number(self.xml.attribute(element, name, where), element, f"{where}@{name}")

    # -- joints ----------------------------------------------------------------------------

    def _joint(self, element: Element) -> JointDescription:
        xml = self.xml
        name = xml.attribute(element, "name", "joint")
        where = f"joint[{name}]"
        kind_text = xml.attribute(element, "type", where)
        kind = JOINT_TYPES.get(kind_text)
        if kind is None:
            raise xml.error(
                element,
                f"{where}@type",
                kind_text,
                f"unknown joint type (URDF's are {', '.join(list(JOINT_TYPES)[:-1])})",
            )
        if kind_text == "spherical":
            self.xml.note_once(
                "spherical", "joint type 'spherical' is pybullet's extension: read as a ball joint"
            )
        ends = []
        for end in ("parent", "child"):
            found = element.find(end)
            if found is None:
                raise xml.error(
                    element, f"{where}/{end}", None, f"<joint> must have a <{end} link>"
                )
            ends.append(xml.attribute(found, "link", f"{where}/{end}"))
        pose = self._origin(element, where)
        axis = None
        limits: dict[str, float] = {}
        for child in element:
            tag = child.tag
            if tag in ("origin", "parent", "child"):
                continue
            if tag == "axis":
                pass  # below
            elif tag == "limit":
                for key in ("lower", "upper", "effort", "velocity"):
                    text = child.get(key)
                    if text is not None:
                        limits[key] = xml.number(text, child, f"{where}/limit@{key}")
            elif tag == "mimic":
                xml.notes.append(
                    f"{where} (line {child.line}): <mimic> is not read (the joint is "
                    "independent here)"
                )
            elif tag not in _SILENT["joint"]:
                xml.unknown(child, "<joint>")
        if kind in _AXIAL:
            axis = self._axis(element, where)
            if kind in ("revolute", "prismatic") and element.find("limit") is None:
                xml.notes.append(
                    f"{where} (line {element.line}): a {kind} joint without <limit> (URDF "
                    "requires one; urdfdom refuses the file)"
                )
        return JointDescription(
            name=name,
            kind=kind,
            parent=ends[0],
            child=ends[1],
            pose=pose,
            source=xml.source(element, where),
            axis=axis,
            limits=limits,
        )

    def _axis(self, element: Element, where: str) -> np.ndarray:
        found = element.find("axis")
        if found is None or found.get("xyz") is None:
            return np.array([1.0, 0.0, 0.0])
        return self.xml.unit_axis(found.get("xyz"), found, f"{where}/axis@xyz")
