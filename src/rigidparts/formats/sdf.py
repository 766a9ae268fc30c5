"""Reading SDFormat files (1.4 to 1.11) into a :class:`~rigidparts.formats.description.Description`.

What is read (the specification at sdformat.org, its pose frame semantics tutorial and
libsdformat's version converters; Drake's reader where it differs):

- A model file (``<sdf><model>``) or a world file (``<sdf><world>``, or several top-level
  models): models, nested models and included ones (``<include><uri>model://NAME``: the
  folder found on the search path, its ``model.config`` naming the SDFormat file, else
  ``model.sdf``; ``<name>`` and ``<pose>`` override the included model's), with names
  flattened as SDFormat does (``outer::inner::link``; in a world every name starts with its
  model's). A model file's links keep their own names.
- Poses: ``<pose>x y z roll pitch yaw</pose>`` (radians, ``R = Rz(yaw) Ry(pitch) Rx(roll)``;
  ``degrees="true"`` and ``rotation_format="quat_xyzw"`` of 1.9+), ``relative_to`` (1.7+)
  naming any frame of the scope: a link, a joint, a ``<frame>``, a nested model (``N`` or
  ``N::link``), ``__model__`` or, in a world, ``world``. Defaults: a link, a nested model and
  a ``<frame>`` without ``attached_to`` are posed in their model's frame; a ``<frame>`` in the
  frame it is attached to; a joint in its child's frame (before 1.7: the child link's);
  an inertial, collision or visual in its link's frame. A top-level model's own pose places it
  in the world.
- ``<link>``: ``<inertial>`` with ``<pose>`` (``X_LI``; a ``relative_to`` is resolved too, and
  noted, since libsdformat before 1.11 and Drake refuse it), ``<mass>`` and ``<inertia>`` with
  ``<ixx>`` .. ``<iyz>`` (the tensor's entries about the centre of mass in the inertial frame's
  axes: ``I_LIcm_I``). The format's defaults fill what an ``<inertial>`` leaves out (mass 1 kg,
  ``ixx = iyy = izz = 1``, products 0; ``Inertial.given`` says what the file states). A link
  without ``<inertial>`` has ``inertial=None`` (engines then give it SDFormat's 1 kg and unit
  inertia; a note says so).
- ``<collision>`` and ``<visual>``: ``<pose>`` and ``<geometry>`` with ``<box><size>``,
  ``<cylinder>`` and ``<capsule>`` (``<radius>``, ``<length>``, along z), ``<sphere>``,
  ``<ellipsoid><radii>``, ``<mesh><uri><scale>`` (resolved like URDF's, ``model://`` through
  the search path), ``<plane>`` (size; no volume), ``<heightmap>``; a visual's colour is its
  ``<material><diffuse>``.
- ``<joint>``: ``revolute``, ``continuous``, ``prismatic``, ``fixed``, ``ball``; ``<parent>``
  and ``<child>`` (a link, or any frame of the scope: the link it is attached to is taken;
  ``world``), ``<axis><xyz>`` (default ``0 0 1``; in the joint frame, or in the frame
  ``expressed_in`` names (1.7+), or in the model frame with ``use_parent_model_frame`` (1.5,
  1.6) and always in 1.4, as libsdformat's converters say), ``<limit>`` ``<lower>``,
  ``<upper>``, ``<effort>``, ``<velocity>`` where given.

A link that no joint holds floats in SDFormat (Drake, Gazebo), or is fixed to the world when
its model is static: the reader adds a ``floating`` joint ``<link>_free`` (``fixed``,
``<link>_weld``) from ``world`` posed at the link's pose ``X_WL``, and a note says so. A link
named ``world`` (files before 1.7 may declare one, as pybullet's do) is the world's stand-in,
as in URDF: joints to ``world`` then name it, and it gets no such joint.

The description's joint convention (URDF's): ``pose`` is ``X_PJ``, the joint frame J in the
parent link's frame P, and ``child_pose`` is ``X_JC``, the child link's frame in J at zero
position, both from the poses of all frames in the file's top frame at zero position:
``X_PJ = X_TP^-1 X_TJ``, ``X_JC = X_TJ^-1 X_TC``. Each link's inertial and geometry stay in
that link's own frame, as the file states them.

Refused with a :class:`~rigidparts.ModelError` naming the file, the line, the element and the
rule: malformed XML, a missing ``version`` or required element or attribute, a number that is
not one, a pose or axis that is not finite, joint types SDFormat does not define and those it
defines but rigidparts cannot represent (``universal``, ``revolute2``, ``screw``,
``gearbox``), two elements of one name, a ``relative_to``, ``attached_to``, parent or child
that names no frame, cycles of poses, attachments or joints, a link with two parents.
Elements the format does not define are ignored with a note, and so, with a note each, are
what the description cannot hold: a model's ``placement_frame``, the 1.5/1.6 ``frame``
attribute of ``<pose>`` (never given semantics), ``<frame>`` before 1.7, ``<submesh>``,
``<axis2>``, ``<inertial auto="true">`` (libsdformat then computes the inertial).
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import ModelError
from ..inertia import tensor_from_entries
from ..transforms import IDENTITY, Transform, compose, invert, quaternion_to_matrix
from ._xml import Element, PoseBatch, XmlFile, check_tree, find_package, resolve_file
from .description import (
    GEOMETRY_KINDS,
    Description,
    Geometry,
    Inertial,
    JointDescription,
    Link,
)

__all__ = ["read"]

BOX, CYLINDER, SPHERE, CAPSULE, ELLIPSOID, MESH, PLANE, HEIGHTFIELD, OTHER = GEOMETRY_KINDS

#: The world frame's name (reserved by SDFormat since 1.7; older files may name a link so).
WORLD = "world"
#: The world frame's key among the frames (no XML name contains a NUL).
_TOP = "\0world"
#: A model's own frame inside its scope.
MODEL = "__model__"

#: SDFormat joint type -> description kind.
JOINT_TYPES = {
    "revolute": "revolute",
    "continuous": "continuous",
    "prismatic": "prismatic",
    "fixed": "fixed",
    "ball": "ball",
}
#: Joint types SDFormat defines that the description cannot hold.
UNSUPPORTED_JOINTS = ("universal", "revolute2", "screw", "gearbox")

#: Elements of the format that carry nothing rigidparts reads: skipped without a note.
_SILENT = {
    "sdf": {"light", "actor"},
    "world": {
        "audio",
        "wind",
        "gravity",
        "magnetic_field",
        "atmosphere",
        "gui",
        "physics",
        "scene",
        "light",
        "actor",
        "plugin",
        "road",
        "spherical_coordinates",
        "state",
        "population",
    },
    "model": {
        "static",
        "self_collide",
        "allow_auto_disable",
        "enable_wind",
        "plugin",
        "gripper",
        "canonical_link",
        "placement_frame",
        "pose",
    },
    "link": {
        "pose",
        "gravity",
        "enable_wind",
        "self_collide",
        "kinematic",
        "must_be_base_link",
        "velocity_decay",
        "sensor",
        "projector",
        "audio_sink",
        "audio_source",
        "battery",
        "light",
        "particle_emitter",
        "frame",
    },
    "joint": {
        "pose",
        "parent",
        "child",
        "axis",
        "axis2",
        "thread_pitch",
        "screw_thread_pitch",
        "gearbox_ratio",
        "gearbox_reference_body",
        "physics",
        "sensor",
    },
}

_INERTIA_SLOTS = ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")
_INERTIA_DEFAULTS = {"ixx": 1.0, "ixy": 0.0, "ixz": 0.0, "iyy": 1.0, "iyz": 0.0, "izz": 1.0}


def read(
    path: str | os.PathLike[str], *, search_path: Iterable[str | os.PathLike[str]] = ()
) -> Description:
    """The :class:`Description` of the SDFormat file ``path`` (a model or a world).

    ``search_path``: folders where ``model://NAME/...`` (and ``package://NAME/...``) files and
    included models are looked for (:func:`._xml.find_package`: the entry itself when its
    name is NAME or its ``package.xml`` names it, else its sub-folder NAME; then the file's
    own folder and its parents the same way).
    """
    return _SdfReader(path, tuple(search_path)).read()


@dataclass
class _Frame:
    """A frame of the file: its pose ``pose`` relative to frame ``relative_to`` (a full
    name; None for the top frame) and what it is attached to (a full name; for a link,
    itself)."""

    name: str
    kind: str  # "link", "joint", "frame", "model", "world"
    relative_to: str | None
    pose: Transform | None
    attached_to: str | None
    element: Element | None
    where: str


@dataclass
class _Scope:
    """A world or model scope: names in it are ``prefix + name``; ``frame`` is its own frame's
    full name; ``version`` the SDFormat version of the file it comes from; ``xml`` that
    file."""

    prefix: str
    frame: str
    version: tuple[int, int]
    xml: XmlFile
    base: Path
    is_world: bool = False
    static: bool = False

    def name(self, reference: str) -> str:
        """The full name of ``reference`` as written in this scope."""
        if reference == MODEL:
            return self.frame
        return self.prefix + reference


class _SdfReader:
    def __init__(
        self, path: str | os.PathLike[str], search_path: tuple[str | os.PathLike[str], ...]
    ):
        self.xml = XmlFile(path)
        self.search_path = search_path
        self.poses = PoseBatch()
        self.frames: dict[str, _Frame] = {
            _TOP: _Frame(_TOP, "world", None, None, None, None, WORLD)
        }
        self.links: dict[str, Link] = {}
        self.joints: dict[str, tuple[_Scope, Element, str]] = {}
        self.geometry_refs: list[tuple[_Scope, Link, int, str, Element, str, str]] = []
        self.inertial_refs: list[tuple[_Scope, Link, str, Element, str]] = []
        self.resolved: dict[str, Transform] = {_TOP: IDENTITY}
        self.including: list[str] = [os.path.realpath(self.xml.path)]
        self.without_inertial: list[str] = []
        self.static: set[str] = set()  # links of static models: fixed to the world
        self.meshes: dict[tuple[str, Path], tuple[str | None, str | None]] = {}

    # -- the whole file --------------------------------------------------------------------

    def read(self) -> Description:
        xml, root = self.xml, self.xml.root
        if root.tag != "sdf":
            raise xml.error(root, "root element", root.tag, "an SDFormat file's root must be <sdf>")
        version = self._version(root, xml)
        base = Path(xml.path).resolve().parent
        models = [child for child in root if child.tag == "model"]
        worlds = [child for child in root if child.tag == "world"]
        for child in root:
            if child.tag not in ("model", "world") and child.tag not in _SILENT["sdf"]:
                xml.unknown(child, "<sdf>")
        if worlds:
            world = worlds[0]
            name = world.get("name", Path(xml.path).stem)
            if len(worlds) > 1 or models:
                xml.notes.append("more than one world or model at the top: the first world is read")
            scope = _Scope("", _TOP, version, xml, base, is_world=True)
            self._world(world, scope)
        elif len(models) == 1:
            name = xml.attribute(models[0], "name", "model")
            scope = _Scope("", _TOP, version, xml, base, is_world=True)
            self._model(models[0], scope, top=True)
        elif models:
            name = Path(xml.path).stem
            scope = _Scope("", _TOP, version, xml, base, is_world=True)
            for model in models:
                self._model(model, scope)
        else:
            raise xml.error(root, "sdf", None, "an SDFormat file must hold a <model> or a <world>")
        if not self.links:
            raise xml.error(root, "sdf", None, "the file has no <link>")
        self.poses.flush()
        self._finish_links()
        joints = self._finish_joints()
        check_tree(xml.path, self.links, joints, world=WORLD)
        self._free_links(joints)
        if self.without_inertial:
            shown = ", ".join(self.without_inertial[:5])
            more = ", ..." if len(self.without_inertial) > 5 else ""
            xml.notes.append(
                f"{len(self.without_inertial)} link(s) have no <inertial> ({shown}{more}): "
                "inertial=None; engines give them SDFormat's default, 1 kg and unit inertia"
            )
        description = Description(
            format="sdf",
            path=xml.path,
            name=name,
            links=self.links,
            joints=joints,
            notes=xml.notes,
            document=root,
        )
        xml.finish_notes()
        return description

    def _version(self, root: Element, xml: XmlFile) -> tuple[int, int]:
        text = xml.attribute(root, "version", "sdf")
        major, _, minor = text.strip().partition(".")
        if not (major.isdigit() and minor.isdigit()):
            raise xml.error(root, "sdf@version", text, "must be a version such as 1.9")
        version = (int(major), int(minor))
        if version < (1, 4):
            xml.notes.append(f"SDFormat {text} is older than 1.4: read with 1.4's rules")
        elif version > (1, 11):
            xml.notes.append(f"SDFormat {text} is newer than 1.11: read with 1.11's rules")
        return version

    # -- scopes ----------------------------------------------------------------------------

    def _add_frame(self, frame: _Frame, scope: _Scope) -> None:
        previous = self.frames.get(frame.name)
        if previous is not None:
            line = previous.element.line if previous and previous.element is not None else None
            raise scope.xml.error(
                frame.element,
                f"{frame.where}@name",
                frame.name,
                f"the name is taken (by the {previous.kind} at line {line}): names in a "
                "scope must be unique",
            )
        self.frames[frame.name] = frame

    def _world(self, element: Element, scope: _Scope) -> None:
        for child in element:
            tag = child.tag
            if tag == "model":
                self._model(child, scope)
            elif tag == "include":
                self._include(child, scope)
            elif tag == "frame":
                self._frame(child, scope)
            elif tag == "joint":
                self._joint(child, scope)
            elif tag not in _SILENT["world"]:
                scope.xml.unknown(child, "<world>")

    def _model(
        self,
        element: Element,
        parent: _Scope,
        *,
        top: bool = False,
        name: str | None = None,
        pose_element: Element | None = None,
        xml: XmlFile | None = None,
        base: Path | None = None,
        version: tuple[int, int] | None = None,
        static: bool = False,
    ) -> None:
        """A ``<model>``: its frame, then its contents in its own scope. ``top``: the single
        model of a model file (its names are not prefixed). ``name``, ``pose_element``,
        ``static``: an include's overrides; ``xml``, ``base``, ``version``: the included
        file's."""
        xml = xml or parent.xml
        own = name or xml.attribute(element, "name", f"{parent.prefix}model")
        full = MODEL if top else parent.prefix + own
        where = f"model[{full if not top else own}]"
        scope = _Scope(
            "" if top else full + "::",
            full,
            version or parent.version,
            xml,
            base or parent.base,
        )
        pose_holder = pose_element if pose_element is not None else element.find("pose")
        pose_scope = parent
        if pose_element is None and xml is not parent.xml:  # the included file's own pose
            pose_scope = _Scope(parent.prefix, parent.frame, scope.version, xml, scope.base)
        pose, relative_to = self._pose(pose_holder, pose_scope, where)
        frame = _Frame(full, "model", relative_to or parent.frame, pose, None, element, where)
        self._add_frame(frame, parent)
        placement = element.get("placement_frame")
        if placement:
            xml.note_once(
                "placement",
                f"{where}: placement_frame is not applied (the model's pose places its own frame)",
            )
        scope.static = parent.static or static or _true(element.find("static"))
        first_link: str | None = None
        for child in element:
            tag = child.tag
            if tag == "link":
                link_name = self._link(child, scope)
                first_link = first_link or link_name
            elif tag == "joint":
                self._joint(child, scope)
            elif tag == "frame":
                self._frame(child, scope)
            elif tag == "model":
                self._model(child, scope)
            elif tag == "include":
                self._include(child, scope)
            elif tag not in _SILENT["model"]:
                xml.unknown(child, "<model>")
        canonical = element.get("canonical_link")
        if canonical:
            frame.attached_to = scope.name(canonical)
        elif first_link is not None:
            frame.attached_to = first_link
        else:
            nested = next((c for c in element if c.tag == "model"), None)
            if nested is not None:
                frame.attached_to = scope.prefix + nested.get("name", "")

    def _include(self, element: Element, scope: _Scope) -> None:
        xml = scope.xml
        uri_element = element.find("uri")
        if uri_element is None or not (uri_element.text or "").strip():
            raise xml.error(element, "include/uri", None, "<include> must have a <uri>")
        uri = (uri_element.text or "").strip()
        where = f"include[{uri}]"
        target = self._included_file(uri, scope.base)
        if target is None:
            raise xml.error(
                uri_element,
                where,
                uri,
                "no model found for it (searched the search path, the file's folder and above)",
            )
        real = os.path.realpath(target)
        if real in self.including:
            raise xml.error(
                uri_element, where, uri, "the model includes itself (a cycle of <include>)"
            )
        included = XmlFile(target)
        version = self._version(included.root, included) if included.root.tag == "sdf" else None
        model = included.root.find("model") if included.root.tag == "sdf" else None
        if model is None or version is None:
            raise xml.error(uri_element, where, target, "must be an SDFormat file with a <model>")
        name_element = element.find("name")
        name = (name_element.text or "").strip() if name_element is not None else None
        self.including.append(real)
        try:
            self._model(
                model,
                scope,
                name=name or None,
                pose_element=element.find("pose"),
                xml=included,
                base=Path(target).resolve().parent,
                version=version,
                static=_true(element.find("static")),
            )
        finally:
            self.including.pop()
        xml.notes.extend(f"{target}: {note}" for note in included.finish_notes())

    def _included_file(self, uri: str, base: Path) -> str | None:
        """The SDFormat file an ``<include><uri>`` names: a file, or a model folder's
        ``model.config`` ``<sdf>`` (the highest version) or ``model.sdf``."""
        scheme, sep, rest = uri.partition("://")
        if sep and scheme in ("model", "package"):
            package, _, inner = rest.partition("/")
            folder = find_package(package, self.search_path, base)
            if folder is None:
                return None
            candidate = folder / inner if inner else folder
        elif sep and scheme == "file":
            candidate = Path(rest)
        elif sep:
            return None
        else:
            candidate = Path(uri)
        if not candidate.is_absolute():
            candidate = base / candidate
        if candidate.is_file():
            return str(candidate)
        if not candidate.is_dir():
            return None
        config = candidate / "model.config"
        if config.is_file():
            try:
                names = [e for e in XmlFile(config).root.iter("sdf") if (e.text or "").strip()]
            except ModelError:
                names = []
            if names:
                best = max(names, key=lambda e: _version_key(e.get("version", "0")))
                return str(candidate / (best.text or "").strip())
        fallback = candidate / "model.sdf"
        return str(fallback) if fallback.is_file() else None

    # -- poses -----------------------------------------------------------------------------

    def _pose(
        self, element: Element | None, scope: _Scope, where: str
    ) -> tuple[Transform, str | None]:
        """``(X, relative_to full name or None)`` of a ``<pose>`` element (identity when
        absent)."""
        if element is None:
            return IDENTITY, None
        xml = scope.xml
        at = f"{where}/pose"
        if element.get("frame"):
            xml.note_once(
                "frame-attribute",
                f"{at} (line {element.line}): the 1.5/1.6 attribute frame= is not read (it "
                "never had defined semantics; libsdformat ignores it)",
            )
        text = element.text or ""
        quaternion = element.get("rotation_format", "euler_rpy").strip() == "quat_xyzw"
        if not text.strip():
            values: tuple[float, ...] = (0.0,) * (7 if quaternion else 6)
        else:
            values = xml.numbers(text, 7 if quaternion else 6, element, at, finite=True)
        if quaternion:
            qx, qy, qz, qw = values[3:]
            try:
                rotation = quaternion_to_matrix((qw, qx, qy, qz))
            except ValueError:
                raise xml.error(element, at, text, "the quaternion must not be zero") from None
            pose: Transform = (rotation, np.array(values[:3]))
        else:
            angles = values[3:]
            if element.get("degrees", "false").strip() in ("true", "1"):
                angles = tuple(math.radians(a) for a in angles)
            pose = self.poses.pose(values[:3], angles)
        relative_to = element.get("relative_to")
        if relative_to is not None and relative_to.strip():
            return pose, scope.name(relative_to.strip())
        return pose, None

    def _key(self, name: str) -> str:
        """The frame ``name`` refers to: ``world`` (or ``scope::world``) is the world unless a
        link of that name was declared (as files before SDFormat 1.7 may do)."""
        if name in self.frames:
            return name
        if name == WORLD or name.endswith("::" + WORLD):
            return _TOP
        return name

    def _world_pose(
        self, name: str, xml: XmlFile, element: Element | None, where: str
    ) -> Transform:
        """``X_TF``: frame ``name`` in the top frame, at zero position."""
        name = self._key(name)
        if name in self.resolved:
            return self.resolved[name]
        if name not in self.frames:
            raise xml.error(
                element, where, name.replace(MODEL, "__model__"), "names no frame in its scope"
            )
        chain: list[str] = []
        seen: set[str] = set()
        current = name
        while current not in self.resolved:
            if current in seen:
                frame = self.frames[current]
                cycle = " -> ".join([*chain[chain.index(current) :], current])
                raise xml.error(
                    frame.element,
                    frame.where,
                    current,
                    f"the poses' relative_to form a cycle ({cycle})",
                )
            seen.add(current)
            chain.append(current)
            frame = self.frames[current]
            parent = None if frame.relative_to is None else self._key(frame.relative_to)
            if parent is None or parent not in self.frames:
                raise xml.error(
                    frame.element,
                    f"{frame.where}/pose@relative_to",
                    parent,
                    "names no frame in its scope",
                )
            current = parent
        pose = self.resolved[current]
        for key in reversed(chain):
            frame = self.frames[key]
            pose = compose(pose, frame.pose) if frame.pose is not None else pose
            self.resolved[key] = pose
        return pose

    def _body(self, name: str, xml: XmlFile, element: Element | None, where: str) -> str:
        """The link (or ``world``) frame ``name`` is attached to."""
        seen: set[str] = set()
        current = self._key(name)
        while True:
            frame = self.frames.get(current)
            if frame is None:
                raise xml.error(element, where, current, "names no frame in its scope")
            if frame.kind in ("link", "world"):
                return current
            if current in seen:
                raise xml.error(
                    frame.element, frame.where, current, "the frames' attached_to form a cycle"
                )
            seen.add(current)
            if frame.attached_to is None:
                raise xml.error(
                    frame.element, frame.where, current, "is attached to no link (an empty model?)"
                )
            current = self._key(frame.attached_to)

    # -- frames, links -----------------------------------------------------------------------

    def _frame(self, element: Element, scope: _Scope) -> None:
        xml = scope.xml
        name = xml.attribute(element, "name", f"{scope.prefix}frame")
        full = scope.name(name)
        where = f"frame[{full}]"
        if scope.version < (1, 7):
            xml.notes.append(
                f"{where} (line {element.line}): <frame> before SDFormat 1.7 is not read"
            )
            return
        attached = element.get("attached_to", "").strip()
        attached_to = scope.name(attached) if attached else scope.frame
        pose, relative_to = self._pose(element.find("pose"), scope, where)
        self._add_frame(
            _Frame(full, "frame", relative_to or attached_to, pose, attached_to, element, where),
            scope,
        )

    def _link(self, element: Element, scope: _Scope) -> str:
        xml = scope.xml
        name = xml.attribute(element, "name", f"{scope.prefix}link")
        full = scope.name(name)
        where = f"link[{full}]"
        pose, relative_to = self._pose(element.find("pose"), scope, where)
        self._add_frame(
            _Frame(full, "link", relative_to or scope.frame, pose, full, element, where), scope
        )
        link = Link(name=full, source=xml.source(element, where))
        self.links[full] = link
        if scope.static:
            self.static.add(full)
        counts = {"collision": 0, "visual": 0}
        for child in element:
            tag = child.tag
            if tag == "inertial":
                if link.inertial is not None:
                    xml.notes.append(f"{where}: a second <inertial> (line {child.line}) is ignored")
                    continue
                self._inertial(child, scope, link, f"{where}/inertial")
            elif tag in counts:
                counts[tag] += 1
                self._geometry(
                    child, scope, link, f"{where}/{tag}[{child.get('name', counts[tag])}]", tag
                )
            elif tag not in _SILENT["link"]:
                xml.unknown(child, "<link>")
        if link.inertial is None:
            self.without_inertial.append(full)
        return full

    def _child_text(self, element: Element, tag: str) -> tuple[str | None, Element | None]:
        found = element.find(tag)
        return (None, None) if found is None else (found.text or "", found)

    def _inertial(self, element: Element, scope: _Scope, link: Link, where: str) -> None:
        xml = scope.xml
        given = set()
        found = element.find("mass")
        text = None if found is None else found.text
        mass = 1.0
        if found is not None:
            mass = xml.number(text, found, f"{where}/mass")
            given.add("mass")
        holder = element.find("inertia")
        slots = dict(_INERTIA_DEFAULTS)
        if holder is not None:
            stated = 0
            for slot in _INERTIA_SLOTS:
                found = holder.find(slot)
                if found is not None:
                    text = found.text
                    slots[slot] = xml.number(text, found, f"{where}/inertia/{slot}")
                    stated += 1
            if stated == len(_INERTIA_SLOTS):
                given.add("inertia")
            else:
                xml.notes.append(
                    f"{where}/inertia (line {holder.line}): {len(_INERTIA_SLOTS) - stated} of the "
                    "six entries are absent: SDFormat's defaults (ixx = iyy = izz = 1, products 0)"
                )
        if element.get("auto", "").strip() in ("true", "1"):
            xml.notes.append(
                f'{where} (line {element.line}): auto="true": libsdformat computes this '
                "inertial from the collision geometry and ignores the values stated"
            )
        pose_element = element.find("pose")
        pose, relative_to = self._pose(pose_element, scope, where)
        given.add("center_of_mass")  # absent: at the link origin, as the format says
        if relative_to is not None:
            xml.notes.append(
                f"{where}/pose (line {pose_element.line}): relative_to on an inertial's pose is "  # type: ignore[union-attr]
                "resolved here; libsdformat before SDFormat 1.11 and Drake refuse it"
            )
        link.inertial = Inertial(
            mass=mass,
            pose=pose,
            inertia=tensor_from_entries([slots[s] for s in _INERTIA_SLOTS], _INERTIA_SLOTS),
            layout="sdf" if holder is not None else "absent",
            source=xml.source(element, where),
            given=frozenset(given),
        )
        self.inertial_refs.append((scope, link, relative_to or "", element, where))

    def _geometry(self, element: Element, scope: _Scope, link: Link, where: str, role: str) -> None:
        xml = scope.xml
        pose, relative_to = self._pose(element.find("pose"), scope, where)
        holder = element.find("geometry")
        if holder is None:
            raise xml.error(element, where, None, f"<{role}> must contain a <geometry>")
        shapes = [child for child in holder]
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
            size = self._numbers(shape, "size", 3, at, xml)
        elif tag in (CYLINDER, CAPSULE):
            size = (
                self._numbers(shape, "radius", 1, at, xml)[0],
                self._numbers(shape, "length", 1, at, xml)[0],
            )
        elif tag == SPHERE:
            size = self._numbers(shape, "radius", 1, at, xml)
        elif tag == ELLIPSOID:
            size = self._numbers(shape, "radii", 3, at, xml)
        elif tag == MESH:
            text, found = self._child_text(shape, "uri")
            if found is None or not (text or "").strip():
                raise xml.error(shape, f"{at}/uri", None, "<mesh> must have a <uri>")
            uri = (text or "").strip()
            scale_text, scale_element = self._child_text(shape, "scale")
            if scale_element is not None:
                scale = xml.numbers(scale_text, 3, scale_element, f"{at}/scale")  # type: ignore[assignment]
            key = (uri, scope.base)
            if key not in self.meshes:
                self.meshes[key] = resolve_file(uri, scope.base, self.search_path)
            mesh, missing = self.meshes[key]
            if shape.find("submesh") is not None:
                xml.notes.append(
                    f"{at} (line {shape.line}): <submesh> is not read: the whole mesh is"
                )
        elif tag == PLANE:
            text, found = self._child_text(shape, "size")
            size = xml.numbers(text, 2, found, f"{at}/size") if found is not None else (1.0, 1.0)
        elif tag == "heightmap":
            kind = HEIGHTFIELD
        elif tag == "empty":
            return
        else:
            kind = OTHER
            xml.notes.append(f"{at} (line {shape.line}): <{tag}> is kept without volume")
        rgba = None
        if role == "visual":
            material = element.find("material")
            if material is not None:
                for channel in ("diffuse", "ambient"):
                    text, found = self._child_text(material, channel)
                    if found is not None:
                        values = xml.numbers(text, (3, 4), found, f"{where}/material/{channel}")
                        rgba = values if len(values) == 4 else (*values, 1.0)
                        break
        geometry = Geometry(
            kind=kind,
            size=size,
            pose=pose,
            role=role,  # type: ignore[arg-type]
            source=xml.source(element, where),
            name=element.get("name"),
            mesh=mesh,
            scale=scale,
            missing=missing,
            rgba=rgba,  # type: ignore[arg-type]
        )
        bucket = link.collisions if role == "collision" else link.visuals
        bucket.append(geometry)
        if relative_to is not None:
            self.geometry_refs.append(
                (scope, link, len(bucket) - 1, role, element, where, relative_to)
            )

    def _numbers(
        self, element: Element, tag: str, count: int, at: str, xml: XmlFile
    ) -> tuple[float, ...]:
        text, found = self._child_text(element, tag)
        if found is None:
            raise xml.error(element, f"{at}/{tag}", None, f"<{element.tag}> must have a <{tag}>")
        return xml.numbers(text, count, found, f"{at}/{tag}")

    # -- joints ----------------------------------------------------------------------------

    def _joint(self, element: Element, scope: _Scope) -> None:
        xml = scope.xml
        name = xml.attribute(element, "name", f"{scope.prefix}joint")
        full = scope.name(name)
        where = f"joint[{full}]"
        kind_text = xml.attribute(element, "type", where)
        if kind_text in UNSUPPORTED_JOINTS:
            raise xml.error(
                element,
                f"{where}@type",
                kind_text,
                f"rigidparts reads the joint types {', '.join(JOINT_TYPES)}; this one has no "
                "equivalent in its models",
            )
        if kind_text not in JOINT_TYPES:
            raise xml.error(
                element,
                f"{where}@type",
                kind_text,
                "unknown joint type (SDFormat's are "
                + ", ".join((*JOINT_TYPES, *UNSUPPORTED_JOINTS))
                + ")",
            )
        ends = []
        for end in ("parent", "child"):
            text, found = self._child_text(element, end)
            if found is None or not (text or "").strip():
                raise xml.error(element, f"{where}/{end}", None, f"<joint> must have a <{end}>")
            ends.append(scope.name((text or "").strip()))
        pose, relative_to = self._pose(element.find("pose"), scope, where)
        self._add_frame(
            _Frame(full, "joint", relative_to or ends[1], pose, ends[1], element, where), scope
        )
        self.joints[full] = (scope, element, kind_text)
        for child in element:
            if child.tag not in _SILENT["joint"]:
                xml.unknown(child, "<joint>")
        if element.find("axis2") is not None:
            xml.notes.append(f"{where} (line {element.line}): <axis2> is not read")

    def _free_links(self, joints: dict[str, JointDescription]) -> None:
        """A link no joint holds floats (Drake, Gazebo), or is fixed to the world when its
        model (or a model around it) is static: a ``floating`` joint ``<link>_free`` (or a
        ``fixed`` one, ``<link>_weld``) from the world, posed where the file puts the link
        (``X_WL`` at zero position), says so, with a note."""
        children = {joint.child for joint in joints.values()}
        free, welded = [], []
        for name, link in self.links.items():
            if name in children or name == WORLD:  # a link named world: the world, as in URDF
                continue
            static = name in self.static
            suffix, kind = ("_weld", "fixed") if static else ("_free", "floating")
            joint_name = name + suffix
            while joint_name in joints or joint_name in self.links:
                joint_name += "_"
            joints[joint_name] = JointDescription(
                name=joint_name,
                kind=kind,
                parent=WORLD,
                child=name,
                pose=self._world_pose(name, self.xml, None, link.source.element),
                source=link.source,
            )
            (welded if static else free).append(joint_name)
        for names, what in (
            (free, "they float (as in Drake and Gazebo): added floating joints"),
            (welded, "their models are static: added fixed joints"),
        ):
            if names:
                shown = ", ".join(names[:5]) + (", ..." if len(names) > 5 else "")
                self.xml.notes.append(
                    f"{len(names)} link(s) have no parent joint; {what} from the world at "
                    f"the links' poses ({shown})"
                )

    def _finish_links(self) -> None:
        """Inertials and geometry posed relative to other frames: brought into their link."""
        for scope, link, relative_to, element, where in self.inertial_refs:
            if relative_to and link.inertial is not None:
                x_lr = self._relative(link.name, relative_to, scope.xml, element, where)
                inertial = link.inertial
                link.inertial = Inertial(
                    mass=inertial.mass,
                    pose=compose(x_lr, inertial.pose),
                    inertia=inertial.inertia,
                    layout=inertial.layout,
                    source=inertial.source,
                    given=inertial.given,
                )
        for scope, link, index, role, element, where, relative_to in self.geometry_refs:
            bucket = link.collisions if role == "collision" else link.visuals
            geometry = bucket[index]
            x_lr = self._relative(link.name, relative_to, scope.xml, element, where)
            bucket[index] = Geometry(
                kind=geometry.kind,
                size=geometry.size,
                pose=compose(x_lr, geometry.pose),
                role=geometry.role,
                source=geometry.source,
                name=geometry.name,
                mesh=geometry.mesh,
                scale=geometry.scale,
                missing=geometry.missing,
                density=geometry.density,
                mass=geometry.mass,
                rgba=geometry.rgba,
            )

    def _relative(
        self, frame_a: str, frame_b: str, xml: XmlFile, element: Element, where: str
    ) -> Transform:
        """``X_AB`` from the poses of both in the top frame."""
        x_ta = self._world_pose(frame_a, xml, element, where)
        x_tb = self._world_pose(frame_b, xml, element, f"{where}/pose@relative_to")
        return compose(invert(x_ta), x_tb)

    def _finish_joints(self) -> dict[str, JointDescription]:
        joints: dict[str, JointDescription] = {}
        for full, (scope, element, kind_text) in self.joints.items():
            xml = scope.xml
            where = f"joint[{full}]"
            frame = self.frames[full]
            parent_frame = scope.name((element.find("parent").text or "").strip())  # type: ignore[union-attr]
            child_frame = frame.attached_to or ""
            parent = self._body(parent_frame, xml, element, f"{where}/parent")
            child = self._body(child_frame, xml, element, f"{where}/child")
            if child == _TOP:
                raise xml.error(
                    element, f"{where}/child", child_frame, "the world cannot be a joint's child"
                )
            x_tj = self._world_pose(full, xml, element, where)
            x_tp = self._world_pose(parent, xml, element, f"{where}/parent")
            x_tc = self._world_pose(child, xml, element, f"{where}/child")
            x_jc = compose(invert(x_tj), x_tc)
            if frame.relative_to == child and frame.pose is not None:
                x_jc = invert(frame.pose)  # the file's own pose, without a round trip
            kind = JOINT_TYPES[kind_text]
            axis, limits = None, {}
            if kind in ("revolute", "continuous", "prismatic"):
                axis, limits = self._axis(element, scope, where, x_tj)
            joints[full] = JointDescription(
                name=full,
                kind=kind,
                parent=WORLD if parent == _TOP else parent,
                child=child,
                pose=compose(invert(x_tp), x_tj),
                source=xml.source(element, where),
                axis=axis,
                limits=limits,
                child_pose=x_jc,
            )
        return joints

    def _axis(
        self, element: Element, scope: _Scope, where: str, x_tj: Transform
    ) -> tuple[np.ndarray, dict[str, float]]:
        """The unit axis in the joint frame and the limits the file gives."""
        xml = scope.xml
        holder = element.find("axis")
        axis = np.array([0.0, 0.0, 1.0])
        limits: dict[str, float] = {}
        if holder is None:
            return axis, limits
        text, found = self._child_text(holder, "xyz")
        expressed_in: str | None = None
        if found is not None:
            axis = xml.unit_axis(text, found, f"{where}/axis/xyz")
            named = found.get("expressed_in", "").strip()
            if named:
                expressed_in = scope.name(named)
            elif scope.version < (1, 5):
                expressed_in = (
                    scope.frame
                )  # 1.4: the model frame (libsdformat's 1.4 -> 1.5 converter)
        if scope.version < (1, 7):
            flag_text, flag = self._child_text(holder, "use_parent_model_frame")
            if flag is not None:
                expressed_in = scope.frame if (flag_text or "").strip() in ("1", "true") else None
        if expressed_in is not None:
            x_tf = self._world_pose(expressed_in, xml, found, f"{where}/axis/xyz@expressed_in")
            axis = x_tj[0].T @ (x_tf[0] @ axis)
        limit = holder.find("limit")
        if limit is not None:
            for key in ("lower", "upper", "effort", "velocity"):
                text, found = self._child_text(limit, key)
                if found is not None:
                    limits[key] = xml.number(text, found, f"{where}/axis/limit/{key}")
        return axis, limits


def _true(element: Element | None) -> bool:
    """Whether a boolean element says true (SDFormat writes ``true`` or ``1``)."""
    return element is not None and (element.text or "").strip().lower() in ("1", "true")


def _version_key(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(part) for part in text.split("."))
    except ValueError:
        return (0,)
