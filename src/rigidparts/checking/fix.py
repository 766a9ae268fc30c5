"""Repairing a checked file: only the inertials of the links with findings change.

:func:`fix` writes a copy of a checked file in which each link that has an error or a warning
(and a geometry with a volume) gets the inertial its geometry gives: the centre of mass and the
inertia computed exactly (:mod:`.geometry`) in the link frame, and

- ``keep="mass"`` (the default): the declared mass, the geometry's inertia scaled to it
  (density ``m / V``); a link without a usable declared mass (none, zero, negative, NaN) takes
  ``density`` (or ``material``'s), else 1000 kg/m^3 (MuJoCo's default density), and says so;
- ``keep="geometry"`` (``--from-geometry``): the mass too, ``m = rho V`` with ``density`` or
  ``material``'s density (one of them is required).

Everything else stays byte for byte: the file's text is edited at the located elements (the
line the reader recorded for each ``<inertial>``, or for the ``<link>`` that lacks one), each
``<inertial>`` element replaced whole by one in the same format (URDF ``origin``/``mass``/
``inertia``; SDFormat ``pose``/``mass``/``inertia``; MJCF ``pos``/``mass`` with ``quat`` and
``diaginertia``, or ``fullinertia``, as the file had it), with the file's indentation and line
endings, numbers at 17 significant digits (``repr``-exact). The new text is read back with the
format's reader before anything is written: every link's inertial must be as before except the
repaired ones, which must be the new values, and the links, joints and geometry must be the
same; otherwise nothing is written.

USD (usd-core, extra ``usd``): the repaired values are authored as ``PhysicsMassAPI``
attributes (``mass``, ``centerOfMass``, ``diagonalInertia``, ``principalAxes``) on the same
prims, in the stage's units (``metersPerUnit``, ``kilogramsPerUnit``), in the root layer, and
the root layer is exported to the output. Byte for byte is not possible there: usd-core writes
the whole layer again (a ``.usdc`` crate has no text to keep; a ``.usda`` is re-printed in
usd-core's own layout), and the MassAPI's attributes are single precision (float32, about 7
significant digits), so the values read back to 1e-6 relative, not 17 digits. A body prim with
a non-uniform scale is left as it is (its centre of mass would be authored in scaled space).

The output is written atomically (:mod:`rigidparts.fileio`) and never over the input unless
``in_place=True``. A copy in another folder than a file with relative references (mesh files,
MJCF includes: :func:`relative_references`) is refused (they would not resolve there). An
inertial that sits in an included MJCF file is not repaired in the including file (it says
so in ``unfixed``); when no link can be repaired, nothing is written (``written`` False).
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any, Literal

import numpy as np

from ..errors import ParameterError
from ..fileio import atomic_path, same_file
from ..inertia import MassProperties
from ..transforms import matrix_to_quaternion
from .findings import CheckReport, FileReport

__all__ = ["DEFAULT_DENSITY", "FixResult", "check_output_folder", "fix", "relative_references"]

#: kg/m^3 for a link that has no usable mass and no density given (MuJoCo's default).
DEFAULT_DENSITY = 1000.0

#: The formats repaired by editing their text.
TEXT_FORMATS = ("urdf", "sdf", "mjcf")


@dataclass
class FixResult:
    """What :func:`fix` did: the ``path`` written, per repaired link the inertial ``before``
    and ``after`` (dicts of mass, centre of mass, inertia in link axes), the links with
    findings that were left as they were and why (``unfixed``), and ``notes`` (a density
    assumed, ...)."""

    path: str
    changed: dict[str, dict[str, Any]] = field(default_factory=dict)
    unfixed: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    written: bool = True

    def to_dict(self) -> dict[str, Any]:
        """Plain values for JSON."""

        def plain(d: dict[str, Any]) -> dict[str, Any]:
            return {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in d.items()}

        return {
            "path": self.path,
            "changed": {
                name: {
                    "before": plain(c["before"]) if c["before"] else None,
                    "after": plain(c["after"]),
                }
                for name, c in self.changed.items()
            },
            "unfixed": dict(self.unfixed),
            "notes": list(self.notes),
            "written": self.written,
        }


#: MJCF elements whose ``file`` names another file, and the compiler folder it is under.
_MJCF_FILES = {
    "include": (),
    "model": (),
    "mesh": ("meshdir", "assetdir"),
    "skin": ("meshdir", "assetdir"),
    "texture": ("texturedir", "assetdir"),
    "hfield": ("texturedir", "assetdir"),
}


def _relative(reference: str) -> bool:
    """Whether a file reference is resolved against the referring file's folder: not a
    ``package://``, ``model://`` or other address, not absolute (``file://`` included)."""
    text = reference.strip()
    scheme, sep, rest = text.partition("://")
    if sep:
        return scheme == "file" and not Path(rest).is_absolute()
    return bool(text) and not Path(text).is_absolute()


def relative_references(path: str | os.PathLike[str], fmt: str) -> list[str]:
    """The references of a URDF (``mesh@filename``), SDFormat (``uri``) or MJCF (``file`` of
    ``include``, ``mesh``, ``texture``, ...; under a relative or no compiler ``meshdir``/
    ``texturedir``/``assetdir``) file that are relative to its folder, in file order (for
    other formats: none). A copy of the file in another folder would not find them."""
    if fmt not in TEXT_FORMATS:
        return []
    from ..formats._xml import parse

    root = parse(path)
    found: list[str] = []
    if fmt == "urdf":
        found = [e.get("filename", "") for e in root.iter("mesh")]
    elif fmt == "sdf":
        found = [e.text or "" for e in root.iter("uri")]
    else:
        folders: dict[str, str] = {}
        for compiler in root.iter("compiler"):
            folders.update({k: v for k, v in compiler.attrib.items() if k.endswith("dir")})
        for element in root.iter():
            under = _MJCF_FILES.get(str(element.tag))
            if under is None or "file" not in element.attrib:
                continue
            folder = next((folders[k] for k in under if k in folders), None)
            if folder is None or not Path(folder).is_absolute():
                found.append(element.get("file", ""))
    return [reference for reference in found if _relative(reference)]


def check_output_folder(
    source: str | os.PathLike[str], fmt: str, out_path: str | os.PathLike[str]
) -> str | None:
    """None when a repaired copy of ``source`` may be written at ``out_path``, else why not:
    the copy is in another folder and the file refers to other files relative to its own
    (:func:`relative_references`), which the copy would not find."""
    here = os.path.realpath(os.path.dirname(os.path.abspath(source)))
    there = os.path.realpath(os.path.dirname(os.path.abspath(out_path)))
    if here == there:
        return None
    references = relative_references(source, fmt)
    if not references:
        return None
    more = f" and {len(references) - 1} more" if len(references) > 1 else ""
    return (
        f"is in another folder than {os.fspath(source)}, whose relative references "
        f"({references[0]!r}{more}) the copy would not find: write it beside the input, or "
        "repair the input in place"
    )


def _num(value: float) -> str:
    """17 significant digits (exact round trip); ``0`` for a zero of either sign."""
    value = float(value)
    if value == 0.0:
        return "0"
    return f"{value:.17g}"


def _nums(values: Any) -> str:
    return " ".join(_num(v) for v in np.ravel(values))


def _density(density: Any, material: Any) -> float | None:
    if density is not None and material is not None:
        raise ParameterError("density", density, "give density or material, not both")
    if material is not None:
        from ..materials import get_material

        return get_material(material).density
    if density is None:
        return None
    from ..units import to_si

    value = to_si("density", density, "density")
    if not (value > 0.0 and math.isfinite(value)):
        raise ParameterError("density", density, "must be positive and finite (kg/m^3)")
    return value


def _target(record: Any, keep: str, density: float | None, notes: list[str]) -> MassProperties:
    """The repaired mass properties of one link (module docstring)."""
    geometry = record.geometry
    declared = record.declared
    if keep == "geometry":
        assert density is not None
        return geometry.at_density(density)
    mass = declared["mass"] if declared is not None else math.nan
    if math.isfinite(mass) and mass > 0.0:
        return geometry.at_mass(mass)
    rho = density if density is not None else DEFAULT_DENSITY
    if density is None:
        notes.append(
            f"link {record.name!r}: no usable declared mass; density {DEFAULT_DENSITY:g} "
            "kg/m^3 assumed (MuJoCo's default; give --density or --material)"
        )
    return geometry.at_density(rho)


# -- locating elements in the text ----------------------------------------------------------------

_COMMENT = re.compile(r"<!--.*?-->|<!\[CDATA\[.*?\]\]>|<\?.*?\?>", re.DOTALL)


def _masked(text: str) -> str:
    """``text`` with comments, CDATA and processing instructions blanked (same offsets)."""
    return _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def _line_starts(text: str) -> list[int]:
    starts = [0]
    for match in re.finditer("\n", text):
        starts.append(match.end())
    return starts


def _start_tag(masked: str, starts: list[int], line: int, tag: str, ordinal: int) -> int:
    """The offset of the ``ordinal``-th ``<tag`` that starts on ``line`` (1-based)."""
    begin = starts[line - 1]
    end = starts[line] if line < len(starts) else len(masked)
    found = [m.start() for m in re.finditer(rf"<{re.escape(tag)}(?=[\s/>])", masked[begin:end])]
    if ordinal >= len(found):
        raise ParameterError(
            "fix", f"line {line}", f"found no <{tag}> element there to edit (the file changed?)"
        )
    return begin + found[ordinal]


def _element_end(masked: str, start: int, tag: str) -> tuple[int, bool]:
    """``(end offset, self-closing)`` of the element whose start tag is at ``start``."""
    close = masked.index(">", start)
    if masked[close - 1] == "/":
        return close + 1, True
    match = re.compile(rf"</{re.escape(tag)}\s*>").search(masked, close)
    if match is None:
        raise ParameterError("fix", tag, "has no end tag")
    return match.end(), False


def _indent(text: str, start: int) -> str:
    line_start = text.rfind("\n", 0, start) + 1
    prefix = text[line_start:start]
    return prefix if prefix.strip() == "" else ""


def _step(text: str) -> str:
    """The file's indentation step (two spaces unless the file shows another)."""
    widths = [len(m.group(1)) for m in re.finditer(r"\n( +)<", text[:20000])]
    steps = sorted({w for w in widths if w > 0})
    return " " * (steps[0] if steps else 2) if "\n\t" not in text else "\t"


# -- the formats' inertial elements -------------------------------------------------------------


def _urdf_inertial(mp: MassProperties, indent: str, step: str, nl: str) -> str:
    i = mp.inertia
    inner = indent + step
    return nl.join(
        [
            "<inertial>",
            f'{inner}<origin xyz="{_nums(mp.center_of_mass)}" rpy="0 0 0"/>',
            f'{inner}<mass value="{_num(mp.mass)}"/>',
            f'{inner}<inertia ixx="{_num(i[0, 0])}" ixy="{_num(i[0, 1])}" '
            f'ixz="{_num(i[0, 2])}" iyy="{_num(i[1, 1])}" iyz="{_num(i[1, 2])}" '
            f'izz="{_num(i[2, 2])}"/>',
            f"{indent}</inertial>",
        ]
    )


def _sdf_inertial(mp: MassProperties, indent: str, step: str, nl: str) -> str:
    i = mp.inertia
    inner = indent + step
    slots = (("ixx", i[0, 0]), ("ixy", i[0, 1]), ("ixz", i[0, 2]),
             ("iyy", i[1, 1]), ("iyz", i[1, 2]), ("izz", i[2, 2]))  # fmt: skip
    return nl.join(
        [
            "<inertial>",
            f"{inner}<pose>{_nums(mp.center_of_mass)} 0 0 0</pose>",
            f"{inner}<mass>{_num(mp.mass)}</mass>",
            f"{inner}<inertia>",
            *[f"{inner}{step}<{k}>{_num(v)}</{k}>" for k, v in slots],
            f"{inner}</inertia>",
            f"{indent}</inertial>",
        ]
    )


def _mjcf_inertial(mp: MassProperties, layout: str) -> str:
    pos = _nums(mp.center_of_mass)
    if layout == "mjcf-full":
        i = mp.inertia
        full = _nums([i[0, 0], i[1, 1], i[2, 2], i[0, 1], i[0, 2], i[1, 2]])
        return f'<inertial pos="{pos}" mass="{_num(mp.mass)}" fullinertia="{full}"/>'
    moments, axes = np.linalg.eigh(mp.inertia)
    if np.linalg.det(axes) < 0:
        axes[:, 2] = -axes[:, 2]
    quat = matrix_to_quaternion(axes)
    return (
        f'<inertial pos="{pos}" quat="{_nums(quat)}" mass="{_num(mp.mass)}" '
        f'diaginertia="{_nums(moments)}"/>'
    )


def _element_text(fmt: str, mp: MassProperties, layout: str, indent: str, step: str,
                  nl: str, compact: bool) -> str:  # fmt: skip
    if fmt == "mjcf":
        return _mjcf_inertial(mp, layout)
    text = (_urdf_inertial if fmt == "urdf" else _sdf_inertial)(mp, indent, step, nl)
    if compact:
        text = re.sub(r"\n\s*|\r\n\s*", "", text)
    return text


# -- the repair -----------------------------------------------------------------------------------


def _file_report(report: CheckReport | FileReport) -> FileReport:
    if isinstance(report, FileReport):
        return report
    if len(report.files) != 1:
        raise ParameterError("report", len(report.files), "fix takes the report of one file")
    return report.files[0]


def _ordinal(records: list[Any], record: Any, source: Any, key: str) -> int:
    """How many earlier links have their ``key`` element on the same line of the same file."""
    count = 0
    for other in records:
        if other is record:
            return count
        where = other.link.source if key == "link" else getattr(other.link.inertial, "source", None)
        if where is not None and where.file == source.file and where.line == source.line:
            count += 1
    return count


def fix(
    report: CheckReport | FileReport,
    out_path: str | os.PathLike[str] | None = None,
    *,
    keep: Literal["mass", "geometry"] = "mass",
    density: Any = None,
    material: Any = None,
    in_place: bool = False,
) -> FixResult:
    """Write a repaired copy of the checked file (module docstring); returns what was done.

    ``out_path`` is required unless ``in_place`` (then the input is replaced atomically); it
    may not be the input otherwise. ParameterError (nothing written) for an unreadable report,
    a policy without its density, a format that cannot be repaired, or a repaired text that
    does not read back as intended.
    """
    file = _file_report(report)
    if file.error is not None:
        raise ParameterError("report", file.path, f"the file could not be read: {file.error}")
    if keep not in ("mass", "geometry"):
        raise ParameterError("keep", keep, "must be 'mass' or 'geometry'")
    rho = _density(density, material)
    if keep == "geometry" and rho is None:
        raise ParameterError(
            "keep", keep, "'geometry' (--from-geometry) needs a density or a material"
        )
    source_path = file.path
    if in_place:
        if out_path is not None and not same_file(out_path, source_path):
            raise ParameterError("out_path", os.fspath(out_path), "is not the input (in_place)")
        out_path = source_path
    elif out_path is None:
        raise ParameterError("out_path", None, "is required (or in_place=True)")
    elif same_file(out_path, source_path):
        raise ParameterError(
            "out_path", os.fspath(out_path), "is the input file: give in_place=True to replace it"
        )
    fmt = file.format
    if not in_place:
        why = check_output_folder(source_path, fmt, out_path)
        if why is not None:
            raise ParameterError("out_path", os.fspath(out_path), why)
    result = FixResult(os.fspath(out_path))
    if fmt == "usd":
        return _fix_usd(file, out_path, keep, rho, result)
    if fmt not in TEXT_FORMATS:
        raise ParameterError("file", source_path, f"{fmt} files cannot be repaired")
    raw = Path(source_path).read_bytes()
    text = raw.decode("utf-8")
    nl = "\r\n" if "\r\n" in text else "\n"
    masked = _masked(text)
    starts = _line_starts(text)
    step = _step(text)
    edits: list[tuple[int, int, str]] = []
    targets: dict[str, MassProperties] = {}
    for record in file.links:
        serious = [f for f in record.findings if f.severity in ("error", "warning")]
        if not serious:
            continue
        geometry = record.geometry
        if geometry is None or geometry.unit is None:
            result.unfixed[record.name] = "no geometry with a volume to compute it from"
            continue
        inertial = record.link.inertial
        where = inertial.source if inertial is not None else record.link.source
        if os.path.abspath(where.file) != os.path.abspath(source_path) or where.line is None:
            result.unfixed[record.name] = (
                f"its element is in the included file {where.file}: it cannot be repaired in "
                "the including file (repair that file)"
            )
            continue
        mp = _target(record, keep, rho, result.notes)
        layout = inertial.layout if inertial is not None else ""
        if inertial is not None and layout != "absent":
            start = _start_tag(masked, starts, where.line, "inertial",
                               _ordinal(file.links, record, where, "inertial"))  # fmt: skip
            end, _ = _element_end(masked, start, "inertial")
            compact = "\n" not in text[start:end]
            indent = _indent(text, start)
            new = _element_text(fmt, mp, layout, indent, step, nl, compact)
            edits.append((start, end, new))
        else:
            tag = "body" if fmt == "mjcf" else "link"
            start = _start_tag(masked, starts, where.line, tag,
                               _ordinal(file.links, record, where, "link"))  # fmt: skip
            close = masked.index(">", start)
            indent = _indent(text, start)
            inner = indent + step
            rest = text[close + 1 : text.find("\n", close) if "\n" in text[close:] else None]
            compact = masked[close - 1] != "/" and rest.strip() != ""
            new = _element_text(fmt, mp, "mjcf-diag", inner, step, nl, compact)
            if compact:  # a link written on one line: the inertial joins it there
                edits.append((close + 1, close + 1, new))
            elif masked[close - 1] == "/":
                head = text[start : close - 1].rstrip()
                edits.append((start, close + 1,
                              f"{head}>{nl}{inner}{new}{nl}{indent}</{tag}>"))  # fmt: skip
            else:
                edits.append((close + 1, close + 1, f"{nl}{inner}{new}"))
        targets[record.name] = mp
        before = record.declared
        result.changed[record.name] = {
            "before": None
            if before is None
            else {k: before[k] for k in ("mass", "center_of_mass", "inertia")},
            "after": {
                "mass": mp.mass,
                "center_of_mass": mp.center_of_mass,
                "inertia": mp.inertia,
            },
        }
    if not edits and result.unfixed:
        result.written = False  # an unchanged copy would look like a repair
        return result
    edits.sort()
    for (_, end_a, _), (start_b, _, _) in pairwise(edits):
        if start_b < end_a:
            raise ParameterError("fix", source_path, "two repairs overlap (the file changed?)")
    out = text
    for start, end, new in reversed(edits):
        out = out[:start] + new + out[end:]
    data = out.encode("utf-8")
    with atomic_path(out_path) as tmp:
        tmp.write_bytes(data)
        _verify(file, tmp, source_path, targets)
    return result


def _verify(
    file: FileReport,
    written: Path,
    original: str,
    targets: dict[str, Any],
    relative: float = 1e-12,
) -> None:
    """Read the repaired text back: the same links, joints and geometry; every inertial as
    before except the repaired ones, which hold the new values (to 1e-12 relative: MJCF's
    quaternion rounds)."""
    from importlib import import_module

    reader = import_module(f"rigidparts.formats.{file.format}").read
    folder = os.path.dirname(os.path.abspath(original))
    before = file.description
    try:
        after = reader(written, search_path=(folder,))
    except ParameterError as exc:
        raise ParameterError(
            "fix", original, f"the repaired text does not read back: {exc}"
        ) from None

    def bad(link: str, what: str) -> ParameterError:
        return ParameterError("fix", original, f"link {link!r}: {what} after the repair")

    if list(after.links) != list(before.links) or list(after.joints) != list(before.joints):
        raise ParameterError("fix", original, "the links or joints changed in the repair")
    for name, link in before.links.items():
        new = after.links[name]
        if [g.kind for g in new.collisions] != [g.kind for g in link.collisions] or [
            g.kind for g in new.visuals
        ] != [g.kind for g in link.visuals]:
            raise bad(name, "the geometry changed")
        if name in targets:
            mp = targets[name]
            got = new.inertial
            if got is None:
                raise bad(name, "no inertial")
            scale = float(np.trace(mp.inertia))
            length = math.sqrt(scale / mp.mass) if mp.mass > 0 else 1.0
            ok = (
                abs(got.mass - mp.mass) <= relative * mp.mass
                and np.max(np.abs(got.center_of_mass - mp.center_of_mass))
                <= relative * max(length, float(np.max(np.abs(mp.center_of_mass))))
                and np.max(np.abs(got.inertia_in_link - mp.inertia)) <= relative * scale
            )
            if not ok:
                raise bad(name, "the inertial is not the repaired one")
            continue
        old = link.inertial
        got = new.inertial
        if (old is None) != (got is None):
            raise bad(name, "the inertial appeared or vanished")
        if old is not None and got is not None:
            same = (
                _same(old.mass, got.mass)
                and np.array_equal(old.pose[0], got.pose[0])
                and np.array_equal(old.pose[1], got.pose[1])
                and np.array_equal(old.inertia, got.inertia, equal_nan=True)
            )
            if not same:
                raise bad(name, "an inertial that was not to change changed")


def _same(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


def _serious(record: Any) -> bool:
    return any(f.severity in ("error", "warning") for f in record.findings)


def _fix_usd(
    file: FileReport, out_path: Any, keep: str, rho: float | None, result: FixResult
) -> FixResult:
    """The USD repair (module docstring)."""
    try:
        from pxr import Gf, Usd, UsdGeom, UsdPhysics
    except ImportError as exc:
        raise ImportError("repairing USD needs usd-core: pip install 'rigidparts[usd]'") from exc
    from scipy.linalg import polar

    stage = Usd.Stage.Open(file.path)
    meters = float(UsdGeom.GetStageMetersPerUnit(stage))
    kilograms = float(UsdPhysics.GetStageKilogramsPerUnit(stage))
    targets: dict[str, MassProperties] = {}
    for record in file.links:
        if not _serious(record):
            continue
        if record.geometry is None or record.geometry.unit is None:
            result.unfixed[record.name] = "no geometry with a volume to compute it from"
            continue
        prim = stage.GetPrimAtPath(record.link.source.element)
        matrix = np.array(
            UsdGeom.Xformable(prim).ComputeLocalToWorldTransform(Usd.TimeCode.Default())
        )
        _, stretch = polar(matrix[:3, :3].T)  # USD's row vectors: the linear part is M^T
        scales = np.linalg.eigvalsh(stretch)
        if scales.max() - scales.min() > 1e-9 * scales.max():
            result.unfixed[record.name] = "its prim has a non-uniform scale"
            continue
        mp = _target(record, keep, rho, result.notes)
        moments, axes = np.linalg.eigh(mp.inertia)
        if np.linalg.det(axes) < 0:
            axes[:, 2] = -axes[:, 2]
        w, x, y, z = matrix_to_quaternion(axes)
        com = mp.center_of_mass / (meters * float(scales.mean()))
        api = UsdPhysics.MassAPI.Apply(prim)
        api.CreateMassAttr().Set(float(mp.mass / kilograms))
        api.CreateCenterOfMassAttr().Set(Gf.Vec3f(*(float(v) for v in com)))
        api.CreateDiagonalInertiaAttr().Set(
            Gf.Vec3f(*(float(v) for v in moments / (kilograms * meters**2)))
        )
        api.CreatePrincipalAxesAttr().Set(Gf.Quatf(float(w), float(x), float(y), float(z)))
        targets[record.name] = mp
        result.changed[record.name] = {
            "before": None
            if record.declared is None
            else {k: record.declared[k] for k in ("mass", "center_of_mass", "inertia")},
            "after": {
                "mass": mp.mass,
                "center_of_mass": mp.center_of_mass,
                "inertia": mp.inertia,
            },
        }
    result.notes.append(
        "USD: the MassAPI attributes are float32 (about 7 significant digits); the layer is "
        "written again by usd-core (not byte for byte)"
    )
    with atomic_path(out_path) as tmp:
        if not stage.GetRootLayer().Export(os.fspath(tmp)):
            raise OSError(f"{out_path}: usd-core could not write the layer")
        _verify(file, tmp, file.path, targets, relative=1e-6)
    return result
