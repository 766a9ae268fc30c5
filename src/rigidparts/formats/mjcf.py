"""Reading MJCF (MuJoCo's XML) into a :class:`~rigidparts.formats.description.Description`.

MuJoCo's own parser does the reading (:class:`mujoco.MjSpec`, MuJoCo 3.2 or later, extra
``sim``): it applies ``<default>`` classes and ``childclass`` exactly as MuJoCo does, expands
``<replicate>``, and reads every attribute with MuJoCo's grammar, without compiling (no mesh
is loaded, no inertia computed or repaired). Around it this module:

- parses the file and every ``<include file=>`` itself (:func:`._xml.parse`: lines, entities
  refused), splices the included files' children in place of each ``<include>`` (file names
  relative to the main file's folder, as MuJoCo resolves them; an include cycle is an error),
  and hands MuJoCo that one tree written with one element per line, so that the line MuJoCo
  records for each element (``info``) and names in each error leads back to the element, its
  own file and its own line;
- drops, with a note, elements and attributes MuJoCo's schema does not know (MuJoCo refuses
  such a file; reading it is the engine's business, not the checker's);
- brings MuJoCo's conventions to the description's (:mod:`.description`):

  * a body's frame is its link frame; its pose in its parent (``pos`` and ``quat`` /
    ``axisangle`` / ``euler`` / ``xyaxes`` / ``zaxis``, through any enclosing ``<frame>``\\ s) is
    resolved with the compiler's ``angle`` and ``eulerseq`` by MuJoCo's own
    ``resolve_orientation``;
  * ``<inertial pos quat.. mass diaginertia>``: ``X_LI = (R(iquat), ipos)`` and
    ``I_LIcm_I = diag(diaginertia)`` (layout ``"mjcf-diag"``); ``fullinertia="M11 M22 M33
    M12 M13 M23"``: the tensor about ``ipos`` in the *body* axes, so ``X_LI = (1, ipos)``
    (layout ``"mjcf-full"``);
  * geoms: MJCF sizes are half-sizes and half-lengths: ``box`` ``(2 sx, 2 sy, 2 sz)``,
    ``capsule`` / ``cylinder`` ``(r, 2 h)``, ``sphere`` ``(r,)``, ``ellipsoid`` ``(a, b, c)``,
    ``plane`` ``(2 sx, 2 sy)`` (0: infinite); ``fromto`` (capsule, cylinder, box, ellipsoid)
    as MuJoCo's compiler reads it: centre at the midpoint, geom z along ``from - to`` (the
    minimal rotation of z onto it, :func:`_z_to_vector`), half-length ``|to - from| / 2``, and
    for a box or an ellipsoid the x and y half-sizes both ``size[0]``. A geom is a collision
    geometry when its ``contype`` or ``conaffinity`` is non-zero, else visual. ``density``
    (every MJCF geom has one, 1000 by default) and ``mass`` (when given) are kept;
  * joints sit in the child body: for a joint at ``pos`` (body frame), the joint frame J has
    the body's axes and its origin there, ``X_PJ = X_PB (1, pos)`` and the child frame is
    ``X_JC = (1, -pos)`` (:attr:`JointDescription.child_pose`), the axis as given (body
    axes, normalised). A non-zero ``ref`` (the joint value at which the body sits where the
    file puts it) is folded into ``X_JC``. Where the same motion is described with the joint
    frame on the child's frame (a slide; a hinge whose axis passes through the body origin)
    the joint frame is moved there (:func:`.description.fold_child_pose`) and ``X_JC`` is the
    identity. ``hinge`` -> ``revolute`` when limited (``range``
    in the compiler's angle unit; ``limited="auto"`` follows ``autolimits``), else
    ``continuous``; ``slide`` -> ``prismatic``; ``ball`` -> ``ball``; ``free`` ->
    ``floating``. A body with no joint is welded to its parent (a ``fixed`` joint named
    ``<body>_weld``); bodies under ``<worldbody>`` have the parent ``"world"``. A body with
    several joints keeps the first, with a note.
  * meshes: ``<asset><mesh file scale>`` with the compiler's ``meshdir`` / ``assetdir`` and
    ``strippath``, then each ``search_path`` entry; a mesh given by its ``vertex``/``face``
    data is kept as vertices and faces.

Older MJCF and pybullet's dialect, which MuJoCo 3 refuses, are read where the meaning is plain,
with a note: ``<compiler coordinate="global">`` when no body is placed (global and local
coordinates then coincide; otherwise an error), pybullet's ``<joint type="fixed">`` (a weld),
an ``<inertial>`` without ``pos`` (at the body origin, as pybullet reads it).

Compiler settings that change what MuJoCo computes from the declared inertials
(``inertiafromgeom``, ``balanceinertia``, ``boundmass``, ``boundinertia``, ``settotalmass``,
``inertiagrouprange``, ``discardvisual``) are recorded in :attr:`Description.notes`.
Geoms of the world body itself (floors, static scenery) are not links: a note counts them.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.sax.saxutils import quoteattr

import numpy as np

from ..errors import ModelError, ParameterError
from ..inertia import tensor_from_entries
from ..transforms import (
    IDENTITY,
    Transform,
    compose,
    quaternion_to_matrix,
    rotation_about_axis,
)
from ._xml import Element, parse, resolve_file
from .description import (
    GEOMETRY_KINDS,
    Description,
    Geometry,
    Inertial,
    JointDescription,
    Link,
    Source,
    fold_child_pose,
)

__all__ = ["MjcfDocument", "read"]

BOX, CYLINDER, SPHERE, CAPSULE, ELLIPSOID, MESH, PLANE, HEIGHTFIELD, OTHER = GEOMETRY_KINDS

#: The world body's name: the parent of every body directly under ``<worldbody>``.
WORLD = "world"

#: Largest ``|axis|`` read as a zero axis (MuJoCo's mjMINVAL).
_ZERO_AXIS = 1e-15


@dataclass
class MjcfDocument:
    """The parsed file as read: the main file's tree with every ``<include>`` replaced by
    the included file's elements (each element keeps the ``line`` of its own file) and
    elements MuJoCo does not know removed; ``file_of`` names an element's file."""

    root: Element
    path: str
    files: dict[int, str] = field(default_factory=dict)

    def file_of(self, element: Element) -> str:
        """The file ``element`` was read from."""
        return self.files.get(id(element), self.path)


def read(
    path: str | os.PathLike[str], *, search_path: Iterable[str | os.PathLike[str]] = ()
) -> Description:
    """The :class:`Description` of the MJCF file ``path``; mesh files are looked for in the
    compiler's mesh folder, then in each folder of ``search_path``.

    Raises :class:`~rigidparts.ModelError` (file, line, element, rule) for what cannot be read:
    malformed XML, an ``<include>`` that is missing or includes itself, anything MuJoCo's
    parser refuses (a number that is not one, an unknown default class, a repeated name), a
    geom naming no mesh, a zero quaternion or joint axis. ``ImportError`` naming the extra
    when MuJoCo is not installed.
    """
    return _Reader(os.fspath(path), tuple(os.fspath(p) for p in search_path)).read()


def _mujoco() -> Any:
    try:
        import mujoco
    except ImportError:
        raise ImportError(
            "reading MJCF needs MuJoCo 3.2 or later: pip install 'rigidparts[sim]'"
        ) from None
    if not hasattr(mujoco, "MjSpec") or not hasattr(mujoco.MjSpec, "resolve_orientation"):
        raise ImportError(
            f"reading MJCF needs MuJoCo 3.2 or later (MjSpec), found {mujoco.__version__}: "
            "pip install -U 'rigidparts[sim]'"
        )
    return mujoco


_MUJOCO_ERROR = re.compile(
    r"(?s)^(?:XML Error: )?(?:Error: )?(.*?)\s*Element '([^']*)', line (\d+)"
)
_ATTRIBUTE = re.compile(r"attribute:? '([^']+)'")


class _Reader:
    def __init__(self, path: str, search_path: tuple[str, ...]):
        self.path = path
        self.search_path = search_path
        self.folder = Path(path).resolve().parent
        self.notes: list[str] = []
        self.files: dict[int, str] = {}
        self.elements: list[Element | None] = []
        self.parents: dict[int, Element] = {}

    # -- the document --------------------------------------------------------------------

    def read(self) -> Description:
        mujoco = _mujoco()
        self.mujoco = mujoco
        types = mujoco.mjtGeom
        #: MuJoCo geom type -> description kind
        self.kinds = {
            types.mjGEOM_BOX: BOX,
            types.mjGEOM_CYLINDER: CYLINDER,
            types.mjGEOM_SPHERE: SPHERE,
            types.mjGEOM_CAPSULE: CAPSULE,
            types.mjGEOM_ELLIPSOID: ELLIPSOID,
            types.mjGEOM_MESH: MESH,
            types.mjGEOM_PLANE: PLANE,
            types.mjGEOM_HFIELD: HEIGHTFIELD,
        }
        root = parse(self.path)
        if root.tag != "mujoco":
            raise ModelError(
                "root",
                f"<{root.tag}>",
                "an MJCF file's root element must be <mujoco>",
                source=self.path,
                line=root.line,
            )
        self._expand_includes(root, [str(Path(self.path).resolve())])
        self._legacy(root)
        spec = self._spec(root)
        self.spec = spec
        self.degree = bool(spec.compiler.degree)
        self.document = MjcfDocument(root, self.path, self.files)
        self._compiler_notes(spec)
        links: dict[str, Link] = {}
        joints: dict[str, JointDescription] = {}
        self._bodies(spec, links, joints)
        if spec.worldbody.geoms:
            count = len(spec.worldbody.geoms)
            self.notes.append(
                f"{count} geom{'s' if count > 1 else ''} of <worldbody> itself (static "
                "scenery: floors, walls) not read as links"
            )
        name = root.get("model") or Path(self.path).stem
        return Description(
            format="mjcf",
            path=self.path,
            name=name,
            links=links,
            joints=joints,
            notes=self.notes,
            document=self.document,
        )

    def _expand_includes(self, element: Element, chain: list[str]) -> None:
        """Replace each ``<include file>`` under ``element`` by the included file's children,
        recursively; ``chain``: the files being included (a repeat is a cycle)."""
        stack = [element]
        while stack:
            parent = stack.pop()
            children = list(parent)
            if not any(child.tag == "include" for child in children):
                stack.extend(children)
                continue
            for index in range(len(children) - 1, -1, -1):
                child = children[index]
                if child.tag != "include":
                    continue
                inserted = self._included(child, chain)
                parent.remove(child)
                for offset, new in enumerate(inserted):
                    parent.insert(index + offset, new)
            stack.extend(parent)

    def _included(self, include: Element, chain: list[str]) -> list[Element]:
        here = self.files.get(id(include), self.path)
        name = include.get("file")
        if name is None:
            raise ModelError(
                "include@file",
                None,
                "<include> must have the attribute 'file'",
                source=here,
                line=include.line,
            )
        target = Path(name) if Path(name).is_absolute() else self.folder / name
        resolved = str(target.resolve())
        if resolved in chain:
            cycle = " -> ".join(Path(f).name for f in [*chain[chain.index(resolved) :], resolved])
            raise ModelError(
                "include@file",
                name,
                f"the includes form a cycle ({cycle})",
                source=here,
                line=include.line,
            )
        if not target.is_file():
            raise ModelError(
                "include@file",
                name,
                f"no such file {target} (an include is relative to the main file's folder)",
                source=here,
                line=include.line,
            )
        included = parse(target)
        children = list(included)
        for child in children:
            for element in child.iter():
                self.files[id(element)] = str(target)
        holder = Element("included")
        holder.extend(children)
        self._expand_includes(holder, [*chain, resolved])
        return list(holder)

    def _serialize(self, root: Element) -> str:
        """The tree as MJCF text with every element's start tag on its own line:
        ``self.elements[n - 1]`` is the element MuJoCo reports at line ``n``."""
        lines: list[str] = []
        self.elements = []
        self.parents = {}
        stack: list[tuple[Element, bool]] = [(root, False)]
        while stack:
            element, closing = stack.pop()
            if closing:
                lines.append(f"</{element.tag}>")
                self.elements.append(None)
                continue
            attributes = "".join(f" {k}={quoteattr(v)}" for k, v in element.attrib.items())
            children = list(element)
            self.elements.append(element)
            if not children:
                lines.append(f"<{element.tag}{attributes}/>")
                continue
            lines.append(f"<{element.tag}{attributes}>")
            stack.append((element, True))
            for child in reversed(children):
                self.parents[id(child)] = element
                stack.append((child, False))
        return "\n".join(lines) + "\n"

    def _spec(self, root: Element) -> Any:
        """MuJoCo's reading of the tree; unknown elements and attributes are removed (with a
        note) until it reads, any other complaint is a ModelError at the element's line."""
        removed = 0
        limit = sum(1 + len(e.attrib) for e in root.iter())
        while True:
            text = self._serialize(root)
            try:
                return self.mujoco.MjSpec.from_string(text)
            except ValueError as exc:
                message = str(exc)
            found = _MUJOCO_ERROR.match(message)
            if found is None:
                raise self._unplaced(message) from None
            rule, tag, line = found.group(1), found.group(2), int(found.group(3))
            rule = " ".join(rule.split())
            element = self.elements[line - 1] if 0 < line <= len(self.elements) else None
            if element is None:
                raise ModelError(f"<{tag}>", None, rule, source=self.path) from None
            if "unrecognized element" in rule and removed < limit:
                self._drop_element(element)
            elif (
                tag == "inertial"
                and "required attribute missing: 'pos'" in rule
                and "pos" not in element.attrib
            ):
                element.set("pos", "0 0 0")
                self.notes.append(
                    f"<inertial> without pos ({self.document_file(element)}:{element.line}): "
                    "read as pos='0 0 0', as pybullet reads it (MuJoCo refuses the file)"
                )
            elif "unrecognized attribute" in rule and removed < limit:
                attribute = _ATTRIBUTE.search(rule)
                if attribute is None or attribute.group(1) not in element.attrib:
                    raise self.error(element, f"<{tag}>", None, rule)
                self._drop_attribute(element, attribute.group(1))
            else:
                attribute = _ATTRIBUTE.search(rule)
                name = attribute.group(1) if attribute else None
                parameter = self._where(element) + (f"@{name}" if name else "")
                value = element.get(name) if name else _start_tag(element)
                raise self.error(element, parameter, value, f"{rule} (MuJoCo's parser)")
            removed += 1

    def _unplaced(self, message: str) -> ModelError:
        """A MuJoCo error that names no element (tinyxml2's own: nesting too deep, ...), at
        the line it names when it names one."""
        text = " ".join(message.split())
        found = re.search(r"Line number=(\d+)", text)
        line = int(found.group(1)) if found else 0
        element = self.elements[line - 1] if 0 < line <= len(self.elements) else None
        if "DEPTH_EXCEEDED" in text:
            text = (
                "elements are nested too deeply for MuJoCo's XML parser (tinyxml2 stops at "
                "500 levels: a chain of about 500 bodies)"
            )
        else:
            text = f"MuJoCo cannot read it: {text}"
        if element is None:
            return ModelError("mjcf", self.path, text, source=self.path)
        return self.error(element, self._where(element), _start_tag(element), text)

    def _legacy(self, root: Element) -> None:
        """What older MJCF and pybullet's dialect write that MuJoCo 3 refuses, read where
        the meaning is plain: ``coordinate="global"`` when no body is moved or turned (global
        and local coordinates then coincide), pybullet's ``<joint type="fixed">`` (a weld:
        the joint is dropped). Each with a note."""
        placing = ("pos", "quat", "axisangle", "euler", "xyaxes", "zaxis")
        for compiler in root.iter("compiler"):
            if compiler.get("coordinate") != "global":
                continue
            where = f"{self.document_file(compiler)}:{compiler.line}"
            moved = next(
                (b for b in root.iter("body") if any(a in b.attrib for a in placing)), None
            )
            if moved is not None:
                raise self.error(
                    compiler,
                    "compiler@coordinate",
                    "global",
                    "global coordinates (MuJoCo 2.3.3 and older) are read only when no body "
                    f"is placed (<body> at line {moved.line} is): MuJoCo refuses them too; "
                    "convert the file (load and save it in MuJoCo 2.3.3)",
                )
            del compiler.attrib["coordinate"]
            self.notes.append(
                f"compiler coordinate='global' ({where}): no body is placed, so global and "
                "local coordinates coincide: read as local (MuJoCo 3 refuses the attribute)"
            )
        stack = [root]
        while stack:
            parent = stack.pop()
            for child in list(parent):
                if child.tag == "joint" and child.get("type") == "fixed":
                    parent.remove(child)
                    self.notes.append(
                        f"<joint type='fixed'> ({self.document_file(child)}:{child.line}): "
                        "pybullet's extension, read as a weld (no joint; MuJoCo refuses it)"
                    )
                else:
                    stack.append(child)

    def _drop_element(self, element: Element) -> None:
        parent = self.parents[id(element)]
        alike = [e for e in parent if e.tag == element.tag]
        for other in alike:
            parent.remove(other)
        where = f"{self.document_file(element)}:{element.line}"
        more = f" and {len(alike) - 1} more" if len(alike) > 1 else ""
        self.notes.append(
            f"<{element.tag}> in <{parent.tag}> ({where}{more}) is no MJCF element MuJoCo "
            "knows: not read (MuJoCo refuses the file)"
        )

    def _drop_attribute(self, element: Element, name: str) -> None:
        where = f"{self.document_file(element)}:{element.line}"
        del element.attrib[name]
        self.notes.append(
            f"attribute {name!r} of <{element.tag}> ({where}) is none MuJoCo knows: not read "
            "(MuJoCo refuses the file)"
        )

    def document_file(self, element: Element) -> str:
        return self.files.get(id(element), self.path)

    def error(self, element: Element | None, parameter: str, value: Any, rule: str) -> ModelError:
        if element is None:
            return ModelError(parameter, value, rule, source=self.path)
        return ModelError(
            parameter, value, rule, source=self.document_file(element), line=element.line
        )

    def _where(self, element: Element) -> str:
        """``body[arm]/geom[tip]``: the element (by name when it has one) in its nearest
        enclosing body, for messages."""
        name = element.get("name")
        here = f"{element.tag}[{name}]" if name else element.tag
        node = self.parents.get(id(element))
        while node is not None and node.tag != "body":
            node = self.parents.get(id(node))
        if node is None:
            return here
        body = node.get("name")
        return f"body[{body}]/{here}" if body else f"body/{here}"

    def element_of(self, item: Any) -> Element | None:
        """The element MuJoCo read ``item`` (a spec body, geom, joint, mesh) from."""
        info = getattr(item, "info", "")
        found = re.fullmatch(r"line (\d+)", info or "")
        if found is None:
            return None
        line = int(found.group(1))
        return self.elements[line - 1] if 0 < line <= len(self.elements) else None

    def source(self, element: Element | None, where: str, fallback: Source | None = None) -> Source:
        if element is None:
            if fallback is not None:
                return Source(fallback.file, fallback.line, where)
            return Source(self.path, None, where)
        return Source(self.document_file(element), element.line, where)

    # -- compiler ----------------------------------------------------------------------------

    def _compiler_notes(self, spec: Any) -> None:
        mujoco = self.mujoco
        compiler = spec.compiler
        fromgeom = compiler.inertiafromgeom
        if fromgeom == mujoco.mjtInertiaFromGeom.mjINERTIAFROMGEOM_TRUE:
            self.notes.append(
                "compiler inertiafromgeom='true': MuJoCo ignores every <inertial> and computes "
                "each body's mass and inertia from its geoms"
            )
        elif fromgeom == mujoco.mjtInertiaFromGeom.mjINERTIAFROMGEOM_FALSE:
            self.notes.append(
                "compiler inertiafromgeom='false': a body without <inertial> gets no mass from "
                "its geoms (MuJoCo refuses a moving one)"
            )
        if compiler.balanceinertia:
            self.notes.append(
                "compiler balanceinertia='true': MuJoCo replaces an inertia that breaks the "
                "triangle inequality by one it makes up"
            )
        if compiler.boundmass > 0:
            self.notes.append(
                f"compiler boundmass={compiler.boundmass:.17g}: MuJoCo raises smaller body "
                "masses to it"
            )
        if compiler.boundinertia > 0:
            self.notes.append(
                f"compiler boundinertia={compiler.boundinertia:.17g}: MuJoCo raises smaller "
                "principal moments to it"
            )
        if compiler.settotalmass > 0:
            self.notes.append(
                f"compiler settotalmass={compiler.settotalmass:.17g}: MuJoCo scales every "
                "mass and inertia so that the model weighs that"
            )
        low, high = (int(v) for v in compiler.inertiagrouprange)
        if (low, high) != (0, 5):
            self.notes.append(
                f"compiler inertiagrouprange='{low} {high}': only geoms of those groups "
                "count when MuJoCo computes inertia from geoms"
            )
        if compiler.discardvisual:
            self.notes.append(
                "compiler discardvisual='true': MuJoCo drops visual-only geoms (they then "
                "count for no inertia)"
            )

    # -- frames and orientations ---------------------------------------------------------

    def rotation(self, item: Any, where: str, element: Element | None) -> np.ndarray:
        """``R`` of an element's orientation (quat, or the alternative MuJoCo resolves)."""
        return self._orientation(item.quat, item.alt, f"{where}@quat", element)

    def _orientation(
        self, quat: Any, alt: Any, parameter: str, element: Element | None
    ) -> np.ndarray:
        """``R`` of ``quat`` ``(w, x, y, z)``, or of ``alt`` (euler, axisangle, xyaxes,
        zaxis) as MuJoCo's ``resolve_orientation`` turns it into a quaternion, through
        :func:`rigidparts.transforms.quaternion_to_matrix`; exactly the identity for
        ``(1, 0, 0, 0)``."""
        if alt.type != self.mujoco.mjtOrientation.mjORIENTATION_QUAT:
            quat = self.spec.resolve_orientation(self.degree, self.spec.compiler.eulerseq, alt)
        quat = np.array(quat, dtype=np.float64)
        if quat[0] == 1.0 and not quat[1:].any():
            return IDENTITY[0]
        try:
            return quaternion_to_matrix(quat, parameter)
        except ParameterError as exc:
            raise self.error(element, exc.parameter, exc.value, exc.rule) from None

    def pose(self, item: Any, where: str, element: Element | None) -> Transform:
        """``X_FE`` of an element in its enclosing frame (or body)."""
        return self.rotation(item, where, element), np.array(item.pos, dtype=np.float64)

    def in_body(self, item: Any, local: Transform, where: str) -> Transform:
        """``X_BE``: ``local`` (the pose in the element's innermost ``<frame>``) through every
        enclosing ``<frame>`` up to the body."""
        frame = item.frame
        pose = local
        while frame is not None:
            element = self.element_of(frame)
            scale = getattr(frame, "scale", None)
            if scale is not None and np.any(np.asarray(scale) != 1.0):
                self.notes.append(
                    f"{where}: <frame> scale {list(np.asarray(scale))} not applied (rigidparts "
                    "reads the unscaled values)"
                )
            pose = compose(self.pose(frame, f"{where}/frame", element), pose)
            frame = frame.frame
        return pose

    # -- bodies ------------------------------------------------------------------------------

    def _bodies(
        self, spec: Any, links: dict[str, Link], joints: dict[str, JointDescription]
    ) -> None:
        names = {body.name for body in spec.bodies if body.name}
        stack = [(child, WORLD) for child in reversed(list(spec.worldbody.bodies))]
        index = 0
        unnamed = 0
        while stack:
            body, parent = stack.pop()
            index += 1
            name = body.name
            if not name:
                name = f"body_{index}"
                while name in names:
                    name += "_"
                names.add(name)
                unnamed += 1
            self._body(body, name, parent, links, joints)
            stack.extend((child, name) for child in reversed(list(body.bodies)))
        if unnamed:
            self.notes.append(
                f"{unnamed} unnamed bod{'ies' if unnamed > 1 else 'y'} named body_<id> after "
                "MuJoCo's body id"
            )

    def _body(
        self,
        body: Any,
        name: str,
        parent: str,
        links: dict[str, Link],
        joints: dict[str, JointDescription],
    ) -> None:
        element = self.element_of(body)
        where = f"body[{name}]"
        source = self.source(element, where)
        link = Link(name=name, source=source)
        link.inertial = self._inertial(body, element, where, source)
        for number, geom in enumerate(body.geoms):
            geometry = self._geometry(geom, number, where, source)
            (link.collisions if geometry.role == "collision" else link.visuals).append(geometry)
        links[name] = link
        x_pb = self.in_body(body, self.pose(body, where, element), where)
        joint = self._joint(body, name, parent, x_pb, where, source)
        if joint.name in joints:
            joint.name = f"{joint.name}_{name}"
        joints[joint.name] = joint

    def _inertial(
        self, body: Any, element: Element | None, where: str, body_source: Source
    ) -> Inertial | None:
        if not body.explicitinertial:
            return None
        inertial = None
        if element is not None:
            inertial = next((child for child in element if child.tag == "inertial"), None)
        source = self.source(inertial, f"{where}/inertial", fallback=body_source)
        ipos = np.array(body.ipos, dtype=np.float64)
        given = {"mass", "center_of_mass"}
        if inertial is None or "diaginertia" in inertial.attrib or "fullinertia" in inertial.attrib:
            given.add("inertia")
        full = np.array(body.fullinertia, dtype=np.float64)
        if not math.isnan(full[0]):
            tensor = tensor_from_entries(full, ("ixx", "iyy", "izz", "ixy", "ixz", "iyz"))
            orientation = body.ialt.type != self.mujoco.mjtOrientation.mjORIENTATION_QUAT or (
                not np.array_equal(np.asarray(body.iquat), [1.0, 0.0, 0.0, 0.0])
            )
            if orientation:
                self.notes.append(
                    f"{source}: fullinertia with an inertial orientation (MuJoCo refuses both): "
                    "the orientation is not read, fullinertia is in the body axes"
                )
            return Inertial(
                mass=float(body.mass),
                pose=(IDENTITY[0], ipos),
                inertia=tensor,
                layout="mjcf-full",
                source=source,
                given=frozenset(given),
            )
        rotation = self._inertial_rotation(body, where, inertial)
        return Inertial(
            mass=float(body.mass),
            pose=(rotation, ipos),
            inertia=np.diag(np.array(body.inertia, dtype=np.float64)),
            layout="mjcf-diag",
            source=source,
            given=frozenset(given),
        )

    def _inertial_rotation(self, body: Any, where: str, element: Element | None) -> np.ndarray:
        return self._orientation(body.iquat, body.ialt, f"{where}/inertial@quat", element)

    # -- geometry ----------------------------------------------------------------------------

    def _geometry(self, geom: Any, number: int, body_where: str, body_source: Source) -> Geometry:
        mujoco = self.mujoco
        element = self.element_of(geom)
        label = geom.name or str(number)
        where = f"{body_where}/geom[{label}]"
        source = self.source(element, where, fallback=body_source)
        size = np.array(geom.size, dtype=np.float64)
        fromto = np.array(geom.fromto, dtype=np.float64)
        kind = self.kinds.get(geom.type, OTHER)
        if kind in (BOX, CYLINDER, CAPSULE, ELLIPSOID) and not math.isnan(fromto[0]):
            start, end = fromto[:3], fromto[3:]
            half = float(np.linalg.norm(end - start)) / 2.0
            local = (_z_to_vector(start - end), (start + end) / 2.0)
            if kind in (CYLINDER, CAPSULE):
                size = np.array([size[0], half, 0.0])
            else:
                size = np.array([size[0], size[0], half])
        else:
            local = self.pose(geom, where, element)
        pose = self.in_body(geom, local, where)
        if kind == BOX:
            dims: tuple[float, ...] = tuple(2.0 * float(v) for v in size)
        elif kind in (CYLINDER, CAPSULE):
            dims = (float(size[0]), 2.0 * float(size[1]))
        elif kind == SPHERE:
            dims = (float(size[0]),)
        elif kind == ELLIPSOID:
            dims = tuple(float(v) for v in size)
        elif kind == PLANE:
            dims = (2.0 * float(size[0]), 2.0 * float(size[1]))
        else:
            dims = ()
        role = "collision" if (geom.contype != 0 or geom.conaffinity != 0) else "visual"
        mass = None if math.isnan(geom.mass) or geom.mass < 0 else float(geom.mass)
        extra: dict[str, Any] = {}
        if geom.meshname and kind != MESH:
            self.notes.append(
                f"{source}: a {kind} fitted by MuJoCo to mesh {geom.meshname!r}: read as the mesh"
            )
            kind, dims = MESH, ()
        if kind == MESH:
            extra = self._mesh(geom.meshname, where, element)
        if geom.typeinertia == mujoco.mjtGeomInertia.mjINERTIA_SHELL:
            self.notes.append(f"{source}: shellinertia='true': MuJoCo takes it for a hollow shell")
        return Geometry(
            kind=kind,
            size=dims,
            pose=pose,
            role=role,
            source=source,
            name=geom.name or None,
            density=float(geom.density),
            mass=mass,
            rgba=tuple(float(v) for v in geom.rgba),  # type: ignore[arg-type]
            **extra,
        )

    def _mesh(self, name: str, where: str, element: Element | None) -> dict[str, Any]:
        mesh = self.spec.mesh(name) if name else None
        if mesh is None:
            raise self.error(
                element,
                f"{where}@mesh",
                name or None,
                "must name a <mesh> of <asset>" if name else "a mesh geom must name a mesh",
            )
        scale = tuple(float(v) for v in mesh.scale)
        if not mesh.file:
            vertices = np.asarray(mesh.uservert, dtype=np.float64).reshape(-1, 3) * scale
            faces = np.asarray(mesh.userface, dtype=np.int64).reshape(-1, 3)
            if len(vertices) == 0:
                self.notes.append(f"{where}: mesh {name!r} has neither a file nor vertices")
                return {"missing": f"mesh {name!r} (no file, no vertices)"}
            return {"vertices": vertices, "faces": faces, "inline_name": name}
        found, missing = self._mesh_file(mesh.file)
        return {"mesh": found, "missing": missing, "scale": scale}

    def _mesh_file(self, file: str) -> tuple[str | None, str | None]:
        name = os.path.basename(file) if self.spec.strippath else file
        meshdir = self.spec.meshdir or ""
        base = self.folder / meshdir if meshdir else self.folder
        found, missing = resolve_file(name, base, self.search_path)
        if found is None and not Path(name).is_absolute() and "://" not in name:
            for folder in self.search_path:
                candidate = Path(folder) / name
                if candidate.is_file():
                    return str(candidate), None
        return found, missing

    # -- joints ------------------------------------------------------------------------------

    def _joint(
        self, body: Any, name: str, parent: str, x_pb: Transform, where: str, body_source: Source
    ) -> JointDescription:
        mujoco = self.mujoco
        kinds = mujoco.mjtJoint
        found = list(body.joints)
        if not found:
            return JointDescription(
                name=f"{name}_weld",
                kind="fixed",
                parent=parent,
                child=name,
                pose=x_pb,
                source=body_source,
            )
        if len(found) > 1:
            listed = ", ".join(j.name or f"#{k}" for k, j in enumerate(found))
            self.notes.append(
                f"{body_source}: {len(found)} joints in one body ({listed}): only the first is "
                "read as the joint to its parent"
            )
        joint = found[0]
        element = self.element_of(joint)
        joint_name = joint.name or f"{name}_joint"
        jwhere = f"{where}/joint[{joint_name}]"
        source = self.source(element, jwhere, fallback=body_source)
        if joint.type == kinds.mjJNT_FREE:
            return JointDescription(
                name=joint_name,
                kind="floating",
                parent=parent,
                child=name,
                pose=x_pb,
                source=source,
            )
        x_bj = self.in_body(joint, (IDENTITY[0], np.array(joint.pos, dtype=np.float64)), jwhere)
        x_pj = compose(x_pb, x_bj)
        x_jc: Transform = (x_bj[0].T, -(x_bj[0].T @ x_bj[1]))
        if joint.type == kinds.mjJNT_BALL:
            limits = {}
            if self._limited(joint):
                limits = {"upper": self._angle(float(joint.range[1]))}
            x_pj, _, x_jc = fold_child_pose("ball", x_pj, None, x_jc)
            return JointDescription(
                name=joint_name,
                kind="ball",
                parent=parent,
                child=name,
                pose=x_pj,
                source=source,
                limits=limits,
                child_pose=x_jc,
            )
        # the axis in J's axes: J already carries the enclosing <frame>s' rotation
        axis = np.array(joint.axis, dtype=np.float64)
        norm = float(np.linalg.norm(axis))
        if not norm > _ZERO_AXIS or not math.isfinite(norm):
            raise self.error(element, f"{jwhere}@axis", list(joint.axis), "must not be zero")
        axis = axis / norm
        hinge = joint.type == kinds.mjJNT_HINGE
        convert = self._angle if hinge else float
        limits = {}
        limited = self._limited(joint)
        if limited:
            limits = {
                "lower": convert(float(joint.range[0])),
                "upper": convert(float(joint.range[1])),
            }
        ref = convert(float(joint.ref))
        if ref != 0.0:
            # the file places the body at q = ref: at q = 0 it sits moved back by ref
            if hinge:
                back: Transform = (rotation_about_axis(axis, -ref), np.zeros(3))
            else:
                back = (IDENTITY[0], -ref * axis)
            x_jc = compose(back, x_jc)
            self.notes.append(f"{source}: ref={float(joint.ref):g}: the body sits at q = ref")
        kind = ("revolute" if limited else "continuous") if hinge else "prismatic"
        x_pj, axis, x_jc = fold_child_pose(kind, x_pj, axis, x_jc)
        return JointDescription(
            name=joint_name,
            kind=kind,
            parent=parent,
            child=name,
            pose=x_pj,
            source=source,
            axis=axis,
            limits=limits,
            child_pose=x_jc,
        )

    def _limited(self, joint: Any) -> bool:
        limited = self.mujoco.mjtLimited
        if joint.limited == limited.mjLIMITED_TRUE:
            return True
        if joint.limited == limited.mjLIMITED_FALSE:
            return False
        has_range = bool(joint.range[0] != 0.0 or joint.range[1] != 0.0)
        return has_range and bool(self.spec.compiler.autolimits)

    def _angle(self, value: float) -> float:
        return value * (math.pi / 180.0) if self.degree else value


def _start_tag(element: Element) -> str:
    """The element as its start tag (``<body name="a" quat="0 0 0 0">``), for messages."""
    attributes = "".join(f" {k}={quoteattr(v)}" for k, v in element.attrib.items())
    return f"<{element.tag}{attributes}>"


def _z_to_vector(vector: np.ndarray) -> np.ndarray:
    """The rotation taking z onto ``vector`` as MuJoCo's compiler takes it for ``fromto``
    (``mjuu_z2quat``): about ``a = z x v / |z x v|`` (x when ``|z x v| < 1e-10``) by
    ``atan2(|z x v|, v_z)``, as the quaternion ``(cos(t/2), sin(t/2) a)``; Rodrigues'
    formula of the same angle and axis gives the matrix."""
    cross = np.array([-vector[1], vector[0], 0.0])
    sine = float(np.linalg.norm(cross))
    axis = cross / sine if sine >= 1e-10 else np.array([1.0, 0.0, 0.0])
    angle = math.atan2(sine, float(vector[2]))
    if angle == 0.0:
        return IDENTITY[0]
    return rotation_about_axis(axis, angle)
