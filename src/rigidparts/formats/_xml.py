"""XML helpers shared by the readers of URDF, SDFormat and MJCF.

- :func:`parse`: a file into an :mod:`xml.etree.ElementTree` tree whose elements carry the
  1-based ``line`` where they start, through the standard library's expat parser. Safe by
  refusal: a document that declares an entity (internal or external, the "billion laughs" and
  XXE attacks) or refers to an external one is refused with a :class:`~rigidparts.ModelError`,
  and parameter entities are never parsed; a malformed document is a ``ModelError`` naming the
  line and expat's reason.
- :class:`XmlFile`: the parsed file with its error and note helpers: required attributes,
  numbers (a strict decimal grammar: ``1``, ``-2.5e-3``, ``.5``, ``inf``, ``nan``; never
  ``1_000`` or hex, which Python's ``float`` would take), fixed-length number lists, and
  unknown elements collected into one note per tag.
- :class:`PoseBatch`: poses from a position and roll-pitch-yaw angles
  (``R = Rz(yaw) Ry(pitch) Rx(roll)``, :func:`rigidparts.transforms.rpy_to_matrix`) whose
  rotations are computed together in one vectorised call when the reader is done (a file of
  10 000 links has tens of thousands of poses; one scipy call per pose would take seconds).
"""

from __future__ import annotations

import math
import os
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NoReturn
from xml.parsers import expat

import numpy as np

from ..errors import ModelError
from ..transforms import IDENTITY, Transform, rpy_to_matrix
from .description import JointDescription, Link, Source

__all__ = [
    "Element",
    "PoseBatch",
    "XmlFile",
    "check_tree",
    "find_package",
    "parse",
    "resolve_file",
]


class Element(ET.Element):
    """An ElementTree element that knows the line where it starts (1-based)."""

    __slots__ = ("line",)
    line: int


class _Refused(Exception):
    """An entity declaration or reference: refused, never expanded."""

    def __init__(self, what: str, line: int):
        super().__init__(what)
        self.what = what
        self.line = line


def parse(path: str | os.PathLike[str]) -> Element:
    """The root element of the XML file ``path``, each element with its ``line``.

    Raises :class:`~rigidparts.ModelError` (``source=path``, ``line``) for a file that cannot
    be read, malformed XML, and any entity declaration or external entity reference.
    """
    name = os.fspath(path)
    try:
        data = Path(name).read_bytes()
    except OSError as exc:
        raise ModelError("file", name, f"cannot be read ({exc.strerror or exc})") from None
    return _parse_guarded(data, name)


def _parse_guarded(data: bytes, name: str) -> Element:
    """expat with a handler per element (its line) and refusal of every entity."""
    parser = expat.ParserCreate()
    builder = ET.TreeBuilder(element_factory=Element)  # type: ignore[arg-type]

    def start(tag: str, attributes: dict[str, str]) -> None:
        element = builder.start(tag, attributes)
        element.line = parser.CurrentLineNumber  # type: ignore[attr-defined]

    def refuse_entity(*_: Any) -> NoReturn:
        raise _Refused("an entity declaration (<!ENTITY>)", parser.CurrentLineNumber)

    def refuse_external(*_: Any) -> NoReturn:
        raise _Refused("a reference to an external entity", parser.CurrentLineNumber)

    parser.StartElementHandler = start
    parser.EndElementHandler = builder.end
    parser.CharacterDataHandler = builder.data
    parser.EntityDeclHandler = refuse_entity
    parser.UnparsedEntityDeclHandler = refuse_entity
    parser.ExternalEntityRefHandler = refuse_external
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    try:
        parser.Parse(data, True)
    except expat.ExpatError as exc:
        reason = expat.errors.messages[exc.code]
        raise ModelError(
            "xml",
            reason,
            f"the file must be well-formed XML (column {exc.offset + 1})",
            source=name,
            line=exc.lineno,
        ) from None
    except _Refused as exc:
        raise ModelError(
            "xml",
            exc.what,
            "refused: entities are never expanded (they can read other files "
            "or grow without bound); write the values out",
            source=name,
            line=exc.line,
        ) from None
    return builder.close()  # type: ignore[return-value]


_NUMBER = re.compile(
    r"[+-]?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|inf|infinity|nan)", re.IGNORECASE | re.ASCII
)


def _parse_number(text: str | None) -> float | None:
    """``text`` as a float when it is a number of the strict grammar, else None. (An ASCII
    word without ``_`` that ``float`` takes is one: the test that costs nothing first.)"""
    if text is None:
        return None
    if text.isascii() and "_" not in text:
        try:
            return float(text)
        except ValueError:
            return None
    return float(text) if _NUMBER.fullmatch(text.strip()) else None


def _parse_numbers(text: str | None, words: list[str]) -> tuple[float, ...] | None:
    """The words of ``text`` as floats when each is a number of the strict grammar."""
    if text is not None and text.isascii() and "_" not in text:
        try:
            return tuple(map(float, words))
        except ValueError:
            return None
    parsed = [_parse_number(word) for word in words]
    return None if None in parsed else tuple(parsed)  # type: ignore[arg-type]


class XmlFile:
    """A parsed file and what its reader learns about it: errors that name the file, the
    line, the element and the rule; notes for the user (``notes``), with unknown elements
    gathered into one line per tag (:meth:`unknown`, written out by :meth:`finish_notes`)."""

    def __init__(self, path: str | os.PathLike[str]):
        self.path = os.fspath(path)
        self.root = parse(self.path)
        self.notes: list[str] = []
        self._unknown: dict[tuple[str, str], list[int]] = {}
        self._numbers: dict[str, float] = {}  # text -> value: files repeat their numbers
        self._lists: dict[tuple[str | None, int | tuple[int, ...], bool], tuple[float, ...]] = {}
        self._noted: set[str] = set()  # the keys of :meth:`note_once`

    # -- errors ------------------------------------------------------------------------------

    def error(self, element: Element | None, parameter: str, value: Any, rule: str) -> ModelError:
        """A :class:`ModelError` for ``parameter`` (an element path such as
        ``link[arm]/inertial/mass@value``) at ``element``'s line."""
        line = getattr(element, "line", None)
        return ModelError(parameter, value, rule, source=self.path, line=line)

    def source(self, element: Element, where: str) -> Source:
        """Where ``element`` (at path ``where``) was read."""
        return Source(self.path, getattr(element, "line", None), where)

    # -- values ------------------------------------------------------------------------------

    def attribute(self, element: Element, name: str, where: str) -> str:
        """The required attribute ``name`` of ``element`` (at path ``where``)."""
        value = element.get(name)
        if value is None:
            raise self.error(
                element,
                f"{where}@{name}",
                None,
                f"<{element.tag}> must have the attribute {name!r}",
            )
        return value

    def number(self, text: str | None, element: Element, parameter: str) -> float:
        """``text`` as a float; ``parameter`` names it in the error."""
        value = self._numbers.get(text)  # type: ignore[arg-type]
        if value is None:
            value = _parse_number(text)
            if value is None:
                raise self.error(element, parameter, text, "must be a number" + _hint(text))
            self._numbers[text] = value  # type: ignore[index]
        return value

    def numbers(
        self,
        text: str | None,
        count: int | tuple[int, ...],
        element: Element,
        parameter: str,
        *,
        finite: bool = False,
    ) -> tuple[float, ...]:
        """``text``: whitespace-separated numbers, as many as ``count`` (or one of the counts
        it lists); with ``finite``, none infinite or NaN (a pose's)."""
        key = (text, count, finite)
        values = self._lists.get(key)
        if values is not None:
            return values
        counts = (count,) if isinstance(count, int) else count
        words = (text or "").split()
        if len(words) not in counts:
            wanted = " or ".join(str(c) for c in counts)
            raise self.error(
                element,
                parameter,
                text,
                f"must be {wanted} numbers separated by spaces" + _hint(text),
            )
        values = _parse_numbers(text, words)
        if values is None:
            word = next(word for word in words if _parse_number(word) is None)
            raise self.error(element, parameter, text, f"{word!r} is not a number" + _hint(word))
        if finite and not all(map(math.isfinite, values)):
            raise self.error(element, parameter, text, "must be finite")
        self._lists[key] = values
        return values

    def unit_axis(self, text: str | None, element: Element, parameter: str) -> np.ndarray:
        """The axis ``text`` (three numbers) divided by its length ``sqrt(x^2 + y^2 + z^2)``;
        a note when that length is off 1 by more than 1e-9 (the file meant another vector),
        an error for a zero or non-finite one."""
        axis = np.array(self.numbers(text, 3, element, parameter))
        norm = float(np.linalg.norm(axis))
        if not math.isfinite(norm) or norm == 0.0:
            raise self.error(element, parameter, text, "must be a finite non-zero vector")
        if abs(norm - 1.0) > 1e-9:
            self.notes.append(f"{parameter} (line {element.line}): length {norm:g}, normalised")
        return axis / norm

    # -- notes -------------------------------------------------------------------------------

    def note_once(self, key: str, note: str) -> None:
        """Add ``note`` unless a note under ``key`` was added already (for this file)."""
        if key not in self._noted:
            self._noted.add(key)
            self.notes.append(note)

    def unknown(self, element: Element, context: str) -> None:
        """Record an element the reader does not read (one note per tag and context)."""
        self._unknown.setdefault((context, element.tag), []).append(element.line)

    def finish_notes(self) -> list[str]:
        """The notes, with one line per unknown tag appended."""
        for (context, tag), lines in self._unknown.items():
            count = f"{len(lines)} elements, first" if len(lines) > 1 else "line"
            self.notes.append(
                f"ignored <{tag}> in {context} ({count} {lines[0]}): not part of the format "
                f"rigidparts reads (engines ignore it too)"
            )
        self._unknown.clear()
        return self.notes


def _hint(text: str | None) -> str:
    if text is not None and ("${" in text or "$(" in text):
        return " (a xacro or launch-file expression: run xacro on the file first)"
    return ""


class PoseBatch:
    """Poses from ``xyz`` and roll-pitch-yaw whose rotation matrices are filled in by one
    vectorised :func:`~rigidparts.transforms.rpy_to_matrix` call in :meth:`flush`.

    :meth:`pose` returns ``(R, p)`` at once, read-only (equal values give the same arrays);
    ``R`` is the identity for zero angles, else an array that holds the rotation only after
    :meth:`flush` and NaN until then (call it before reading or composing any returned
    rotation). Angles must be
    finite (the reader checks them, where it can name the element).
    """

    def __init__(self) -> None:
        self._angles: list[tuple[float, ...]] = []
        self._targets: list[np.ndarray] = []
        self._rotations: dict[tuple[float, ...], np.ndarray] = {}
        self._positions: dict[tuple[float, ...], np.ndarray] = {}

    def pose(self, xyz: Iterable[float], rpy: Iterable[float]) -> Transform:
        """``X = (Rz(yaw) Ry(pitch) Rx(roll), xyz)``."""
        xyz, angles = tuple(xyz), tuple(rpy)
        position = self._positions.get(xyz)
        if position is None:
            position = self._positions[xyz] = _readonly(np.array(xyz, dtype=np.float64))
        if not any(angles):
            return IDENTITY[0], position
        rotation = self._rotations.get(angles)
        if rotation is None:
            # NaN until flush: a rotation read too early poisons what uses it, visibly
            rotation = self._rotations[angles] = np.full((3, 3), np.nan)
            self._angles.append(angles)
            self._targets.append(rotation)
        return rotation, position

    def flush(self) -> None:
        """Compute every pending rotation."""
        if not self._angles:
            return
        matrices = rpy_to_matrix(np.array(self._angles, dtype=np.float64))
        for target, matrix in zip(self._targets, matrices, strict=True):
            target[...] = matrix
            target.setflags(write=False)
        self._angles.clear()
        self._targets.clear()


def _readonly(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


# -- file references: package://, model://, file://, relative paths ------------------------------

_PACKAGE_NAMES: dict[Path, str | None] = {}


def _package_name(folder: Path) -> str | None:
    """The ``<name>`` in ``folder/package.xml`` (a ROS package), or None."""
    if folder not in _PACKAGE_NAMES:
        name = None
        manifest = folder / "package.xml"
        if manifest.is_file():
            try:
                found = parse(manifest).find("name")
                name = (found.text or "").strip() if found is not None else None
            except ModelError:
                name = None
        _PACKAGE_NAMES[folder] = name
    return _PACKAGE_NAMES[folder]


def find_package(
    name: str, search_path: Iterable[str | os.PathLike[str]], start: Path
) -> Path | None:
    """The folder of package (or Gazebo model) ``name``, looked for in each search-path entry
    in order, then in ``start`` (the folder of the file being read) and its parents: the
    entry itself when its name is ``name`` or its ``package.xml`` names it, else its
    sub-folder ``name`` (so ``package://meshes/a.obj`` beside the file is found, as pybullet
    finds it). None when not found."""
    for entry in (*search_path, start, *start.parents):
        folder = Path(entry)
        if folder.name == name or _package_name(folder) == name:
            return folder
        if (folder / name).is_dir():
            return folder / name
    return None


def resolve_file(
    uri: str, base: Path, search_path: Iterable[str | os.PathLike[str]]
) -> tuple[str | None, str | None]:
    """``(path, None)`` for the existing file ``uri`` names, else ``(None, what was looked
    for)``. ``package://pkg/rest`` and ``model://pkg/rest``: ``rest`` in the folder of
    package ``pkg`` (:func:`find_package`); ``file://path``: ``path``; anything else a path,
    relative to ``base`` (the folder of the file being read) unless absolute. Remote URIs
    (``http://`` ...) are never fetched."""
    text = uri.strip()
    scheme, sep, rest = text.partition("://")
    if sep and scheme in ("package", "model"):
        package, _, inner = rest.partition("/")
        folder = find_package(package, search_path, base)
        if folder is None:
            return None, f"{text} (no package {package!r} on the search path or above the file)"
        candidate = folder / inner
    elif sep and scheme == "file":
        candidate = Path(rest) if Path(rest).is_absolute() else base / rest
    elif sep:
        return None, f"{text} (a {scheme}:// address is not fetched)"
    else:
        candidate = Path(text) if Path(text).is_absolute() else base / text
    if candidate.is_file():
        return str(candidate), None
    return None, f"{text} (no file {candidate})"


# -- the joint graph ---------------------------------------------------------------------------


def check_tree(
    path: str, links: dict[str, Link], joints: dict[str, JointDescription], world: str | None = None
) -> None:
    """Every joint names existing links (or ``world`` as parent, when given), no link has two
    parents, and no chain of joints closes on itself; else a :class:`ModelError` at the
    offending joint's line."""
    parent_of: dict[str, JointDescription] = {}
    for joint in joints.values():
        for end, link in (("parent", joint.parent), ("child", joint.child)):
            if link not in links and not (end == "parent" and link == world):
                raise _joint_error(path, joint, end, link, f"no link is named {link!r}")
        previous = parent_of.get(joint.child)
        if previous is not None:
            raise _joint_error(
                path,
                joint,
                "child",
                joint.child,
                f"link {joint.child!r} is already the child of joint {previous.name!r} (line "
                f"{previous.source.line}): a link has one parent",
            )
        parent_of[joint.child] = joint
    done: set[str] = set()
    for start in parent_of:
        chain: list[str] = []
        on_chain: set[str] = set()
        link = start
        while link in parent_of and link not in done:
            if link in on_chain:
                cycle = [*chain[chain.index(link) :], link]
                joint = parent_of[link]
                raise _joint_error(
                    path,
                    joint,
                    None,
                    joint.name,
                    "the joints form a cycle ("
                    + " -> ".join(reversed(cycle))
                    + "): a model is a tree",
                )
            chain.append(link)
            on_chain.add(link)
            link = parent_of[link].parent
        done.update(chain)


def _joint_error(
    path: str, joint: JointDescription, end: str | None, value: Any, rule: str
) -> ModelError:
    parameter = joint.source.element + (f"/{end}" if end else "")
    return ModelError(parameter, value, rule, source=path, line=joint.source.line)
