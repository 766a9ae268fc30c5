"""STEP files through OpenCascade: every solid's exact mass properties, certified.

A STEP file (ISO 10303-21, AP203/AP214/AP242) is read with OpenCascade's XCAF reader
(``STEPCAFControl_Reader``: names, assembly structure and placements through
``XCAFDoc_ShapeTool``). Each solid's geometric integrals come from its exact boundary
representation, ``BRepGProp.VolumeProperties_s`` (Gauss integration over the B-rep faces
through the divergence theorem), about the centre of the solid's bounding box (no
cancellation in the parallel-axis shift):

- volume ``V = int dV``, centroid ``c = int x dV / V``,
- ``J = int (|x - c|^2 1 - (x - c)(x - c)^T) dV``: the inertia per unit density about the
  centroid, in the solid's own axes (OpenCascade's ``MatrixOfInertia``, the usual sign
  convention, products of inertia ``-int x y dV``).

Solids of planes, cylinders, cones and spheres bounded by lines and circles take the fixed
Gauss rule, exact to rounding; the others the adaptive rule asked for :data:`INTEGRATION_EPS`,
whose own estimate of its error the certificate reports (``integration_error``). Surfaces of
extrusion and of revolution are first converted to B-spline surfaces of the same geometry
(:func:`_swept_as_bsplines`): on them OpenCascade's rule was 1 % off and its mesher failed.
What the adaptive rule achieves on free-form faces is OpenCascade's, measured against closed
forms (``tests/test_step.py``): volumes 1e-9 and inertias 5e-8 off on rational B-spline
spheres and tubes (where its estimate says 1e-16), 2e-7 on a revolved B-spline profile (where
its estimate is right), and on an extruded one the volume exact and the centroid 2e-10 of
the size off.

Units: the file's own unit (its ``SI_UNIT`` / ``CONVERSION_BASED_UNIT`` in the
representation context, read with ``STEPControl_Reader.FileUnits``) is the document's, so
that OpenCascade holds the coordinates as written and its fixed precision (1e-7 of the unit)
keeps the scale the part was drawn at; results are scaled to SI. A solid too small for that
precision to leave room for the certificate's tessellation is refused. A file that states no
unit needs ``units``; a ``units`` that differs from the file's overrides it (the coordinates
are reinterpreted).

Every solid is certified: it is tessellated (``BRepMesh_IncrementalMesh``, linear deflection
``delta = DEFLECTION * size``) and the exact integrals of that polyhedron (OpenCascade's own
over the triangles, which agree with :mod:`rigidparts.polyhedron`'s to rounding) are compared
with the B-rep's. The polyhedron lies within ``delta`` of the surface, so its volume differs
from the solid's by at most ``A delta`` (``A`` the surface area): a larger difference means a
broken B-rep (refused). A tessellation with a face missing, a hole or a crack
(:func:`_faulty_faces`) proves nothing: the result stands with a warning that it is not
certified. Walls thinner than :data:`THIN_WALL`
of the part (estimated as ``2 V / A``, the thickness of a sheet) are refused: OpenCascade's
integrals lose them (a wall of 1e-6 of the radius measured several per cent off, one of 1e-7
lost entirely).

Everything returned is SI (metres) and per unit density; densities are the caller's.
"""

from __future__ import annotations

import functools
import math
import os
import re
import warnings
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from .. import progress
from ..errors import ParameterError
from ..units import length_unit_metres

__all__ = [
    "AREA_EPS",
    "DEFLECTION",
    "INTEGRATION_EPS",
    "NOT_NAME",
    "THIN_WALL",
    "Certificate",
    "StepFile",
    "StepSolid",
    "read_step",
    "require_ocp",
    "same_name",
]

#: OpenCascade's geometric precision (``Precision::Confusion``), in the document's unit: its
#: mesher refuses a deflection below it.
_PRECISION = 1e-7

#: Relative error asked of OpenCascade's adaptive integration.
INTEGRATION_EPS = 1e-12
#: ... and of the area, which only sizes the wall estimate and the certificate's bound.
AREA_EPS = 1e-6
#: The certificate's tessellation: linear deflection as a fraction of the solid's size.
DEFLECTION = 1e-3
#: The mesher's angular deflection (rad): it only caps facets on small radii.
MESH_ANGLE = 0.5
#: Walls (``2 V / A``) thinner than this fraction of the part's size are refused.
THIN_WALL = 1e-5

EXTRA_HINT = "pip install 'rigidparts[cad]' (the cadquery-ocp wheels: OpenCascade)"


def require_ocp(parameter: str, value: Any) -> None:
    """ParameterError naming ``parameter`` unless OpenCascade (``OCP``) imports."""
    try:
        import OCP  # noqa: F401
    except ImportError:
        raise ParameterError(
            parameter, value, f"needs the optional extra 'cad' to read STEP files: {EXTRA_HINT}"
        ) from None


@dataclass(frozen=True)
class Certificate:
    """The B-rep's integrals against those of its tessellation (SI).

    triangles : the tessellation's size; ``deflection`` its linear deflection (m).
    volume : ``|V_brep - V_mesh| / V_brep``; ``volume_bound``: ``A delta / V_brep``, what a
        tessellation within ``delta`` of the surface may differ by.
    center_of_mass : ``|c_brep - c_mesh| / size``.
    inertia : ``max |J_brep - J_mesh| / max |J_brep|``.
    agrees : the comparison is complete and the volume difference within its bound (1.5
        times, for rounding): the result is certified.
    complete : every face was triangulated, meeting its edges without a hole or a crack
        (:func:`_faulty_faces`), and no swept face was left unconverted
        (:func:`_swept_as_bsplines`): else the comparison proves nothing.
    integration_error : OpenCascade's estimate of its adaptive rule's relative error (0: the
        fixed rule on analytic faces, exact to rounding).
    unmeshed_faces, faulty_faces : the faces left without triangles, and with a hole or a
        crack.
    swept_unconverted : OpenCascade could not convert the solid's swept faces to B-splines.
    left_out : (property; ``to_dict`` too) what left the comparison incomplete, in words.
    """

    triangles: int
    deflection: float
    volume: float
    volume_bound: float
    center_of_mass: float
    inertia: float
    agrees: bool
    complete: bool = True
    integration_error: float = 0.0
    unmeshed_faces: int = 0
    faulty_faces: int = 0
    swept_unconverted: bool = False

    @property
    def left_out(self) -> list[str]:
        """What left the comparison incomplete, as phrases (none: it is complete)."""
        if self.complete:
            return []
        counts = [
            f"{count} face{'s' * (count != 1)} {what}"
            for count, what in (
                (self.unmeshed_faces, "untriangulated"),
                (self.faulty_faces, "with a hole or a crack"),
            )
            if count
        ]
        why = [f"the mesher left {' and '.join(counts)}"] if counts else []
        if self.swept_unconverted:
            why.append("OpenCascade could not convert its swept faces, whose integrals it does "
                       "not compute reliably")  # fmt: skip
        return why

    @property
    def within_bound(self) -> bool:
        """Whether the volume difference is within its bound (a planar solid: both exact, so
        a little slack for rounding)."""
        return self.volume <= 1.5 * self.volume_bound + 1e-9

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready values."""
        return {
            "triangles": self.triangles,
            "deflection": self.deflection,
            "volume_difference": self.volume,
            "volume_bound": self.volume_bound,
            "center_of_mass_difference": self.center_of_mass,
            "inertia_difference": self.inertia,
            "agrees": self.agrees,
            "complete": self.complete,
            "integration_error": self.integration_error,
            "unmeshed_faces": self.unmeshed_faces,
            "faulty_faces": self.faulty_faces,
            "swept_unconverted": self.swept_unconverted,
            "left_out": self.left_out,
        }


@dataclass(frozen=True)
class StepSolid:
    """One solid of a STEP file, SI, per unit density.

    name : unique in the file (the XCAF label's name, made unique with ``_2``, ``_3``...).
    path : the assembly names from the root down to the solid.
    rotation, position : its placement, ``x_file = rotation @ x_local + position``.
    volume : m^3. centroid : m, local frame. inertia : ``J`` (m^5) about the centroid, local
    axes. area : m^2 (exact on analytic solids, else to about 1e-4: it sizes ``wall`` and the
    certificate's bound). size : its (optimal) bounding box's diagonal, m; low, high : that
    box's corners, m, local frame. wall : ``2 V / A``, m.
    """

    name: str
    path: tuple[str, ...]
    rotation: np.ndarray
    position: np.ndarray
    volume: float
    centroid: np.ndarray
    inertia: np.ndarray
    area: float
    size: float
    low: np.ndarray
    high: np.ndarray
    wall: float
    certificate: Certificate
    shape: Any = field(repr=False, compare=False)  # TopoDS_Solid, local, triangulated
    #: the shape's coordinates per document unit (1: the file's; another when the certificate
    #: meshed a scaled copy, :func:`_certify`)
    shape_scale: float = 1.0


@dataclass(frozen=True)
class StepFile:
    """A read STEP file: its solids, the unit it states and the one used (metres per unit)."""

    path: str
    stated_unit: str | None
    unit: str
    factor: float
    solids: tuple[StepSolid, ...]

    def solid(self, name: str) -> StepSolid:
        """The solid called ``name`` in the file, or in a model's body names when that is one
        solid (:func:`same_name`); ParameterError listing the names otherwise."""
        for solid in self.solids:
            if solid.name == name:
                return solid
        found = [solid for solid in self.solids if same_name(name, solid.name)]
        if len(found) == 1:
            return found[0]
        names = ", ".join(repr(s.name) for s in self.solids)
        raise ParameterError("solid", name, f"must name a solid of {self.path}: one of {names}")


#: The characters a body name cannot hold: a model's body names have ``_`` for them
#: (:func:`rigidparts.formats.step.model_name`).
NOT_NAME = re.compile(r"[^A-Za-z0-9_-]")


def same_name(given: str, name: str) -> bool:
    """Whether ``given`` is ``name`` as the file writes it or as a model's body name spells it
    (``base plate`` as ``base_plate``, ``9 x`` as ``_9_x``)."""
    return given == name or given.lstrip("_") == NOT_NAME.sub("_", name).lstrip("_")


_CACHE: OrderedDict[tuple[Any, ...], StepFile] = OrderedDict()
_CACHE_SIZE = 8


def read_step(source: str | os.PathLike[str], units: str | None = None) -> StepFile:
    """The solids of STEP file ``source`` (cached by path, size, modification time and
    ``units``). ParameterError naming ``step`` (the file and its defect) or ``units``."""
    shown = os.fspath(source)
    path = Path(source)
    if path.suffix.lower() not in (".step", ".stp"):
        raise ParameterError("step", shown, "must be a STEP file ending in .step or .stp")
    try:
        stat = path.stat()
    except OSError as exc:
        raise ParameterError("step", shown, f"cannot be read: {exc.strerror or exc}") from None
    if not path.is_file():
        raise ParameterError("step", shown, "is not a file")
    key = (str(path.resolve()), stat.st_mtime_ns, stat.st_size, units)
    found = _CACHE.get(key)
    if found is not None:
        _CACHE.move_to_end(key)
        return found
    require_ocp("step", shown)
    result = _read(path, shown, units)
    _CACHE[key] = result
    if len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return result


@contextmanager
def _silent() -> Iterator[None]:
    """OpenCascade's default messenger without its printers (restored after)."""
    from OCP.Message import Message

    messenger = Message.DefaultMessenger_s()
    printers = messenger.Printers()
    saved = (
        [printers.Value(i) for i in range(1, len(printers) + 1)]
        if hasattr(printers, "Value")
        else list(printers)
    )
    for printer in saved:
        messenger.RemovePrinter(printer)
    try:
        yield
    finally:
        for printer in saved:
            messenger.AddPrinter(printer)


@functools.lru_cache(maxsize=64)
def _unit_metres(name: str) -> float | None:
    """Metres per unit ``name`` (:func:`rigidparts.units.length_unit_metres`: as OpenCascade
    reports a STEP file's unit, ``INCH`` and ``MICRON`` too); None for no length unit."""
    return length_unit_metres(name)


def _read(path: Path, shown: str, units: str | None) -> StepFile:
    from OCP.IFSelect import IFSelect_RetDone
    from OCP.OCP import collections as occ
    from OCP.STEPCAFControl import STEPCAFControl_Reader
    from OCP.TCollection import TCollection_ExtendedString
    from OCP.TDocStd import TDocStd_Document
    from OCP.XCAFDoc import XCAFDoc_DocumentTool

    def defect(text: str) -> ParameterError:
        return ParameterError("step", shown, text)

    if units is not None and (not isinstance(units, str) or _unit_metres(units) is None):
        raise ParameterError(
            "units", units, "must be a length unit such as 'mm', 'm' or 'in' (the file's unit)"
        )
    with path.open("rb") as handle:
        head = handle.read(64)
    if not head.lstrip().startswith(b"ISO-10303-21"):
        raise defect("is not a STEP file: it does not start with 'ISO-10303-21;'")
    reader = STEPCAFControl_Reader()
    reader.SetNameMode(True)
    reader.SetColorMode(False)
    reader.SetLayerMode(False)
    try:
        with _silent():  # the parser prints its complaints: ours is the one-line error
            status = reader.ReadFile(str(path))
    except Exception as exc:  # OpenCascade's exceptions for a corrupt file
        raise defect(f"cannot be read as STEP: {type(exc).__name__}") from None
    if status != IFSelect_RetDone:
        raise defect(f"cannot be read as STEP (OpenCascade: {status.name})")
    # (len() of an OCP sequence: 0.3 us; its overloaded Length(): 0.1 ms a call)
    lengths = occ.Sequence_TCollection_AsciiString()
    angles = occ.Sequence_TCollection_AsciiString()
    solid_angles = occ.Sequence_TCollection_AsciiString()
    reader.Reader().FileUnits(lengths, angles, solid_angles)
    stated = sorted({lengths.Value(i).ToCString() for i in range(1, len(lengths) + 1)})
    stated = [s for s in stated if s]
    if len(stated) > 1:
        raise defect(f"states several length units ({', '.join(stated)}): give one part per file")
    stated_unit = stated[0] if stated else None
    stated_m = None
    if stated_unit is not None:
        stated_m = _unit_metres(stated_unit)  # SolidWorks, Pro/E and Inventor write 'INCH'
        if stated_m is None:
            raise defect(f"states a length unit rigidparts does not know: {stated_unit!r}")
    if stated_unit is None and units is None:
        raise ParameterError(
            "units",
            None,
            f"must be given for {shown}: the file states no length unit (give the unit the "
            "part was drawn in: units='mm'; on the command line --units mm, or --step-units mm "
            "for export, view and simulate)",
        )
    doc = TDocStd_Document(TCollection_ExtendedString("XmlOcaf"))
    # The document in the file's own unit: its coordinates as written, so that OpenCascade's
    # fixed tolerances (1e-7 of the document's unit: its mesher refuses a smaller deflection)
    # keep the size the part's author drew in (a 0.01 mm part in metres was below them). A
    # file stating no unit: its numbers as they are.
    read_as = stated_m if stated_m is not None else 1.0  # metres per document unit
    XCAFDoc_DocumentTool.SetLengthUnit_s(doc, read_as)
    try:
        if not reader.Transfer(doc):
            raise defect("holds nothing OpenCascade can transfer (no shapes)")
    except ParameterError:
        raise
    except Exception as exc:
        raise defect(f"cannot be transferred by OpenCascade: {type(exc).__name__}") from None
    if units is not None:
        given = _unit_metres(units)
        assert given is not None
        factor = given  # the file's numbers reinterpreted in the given unit
        unit = units
        if stated_m is not None and not math.isclose(given, stated_m, rel_tol=1e-12):
            ratio = given / stated_m
            warnings.warn(
                f"{shown}: units={units!r} overrides the unit the file states ({stated_unit}): "
                f"its coordinates are read as {units}, its lengths "
                f"{max(ratio, 1 / ratio):.6g} times {'larger' if ratio > 1 else 'smaller'}",
                stacklevel=3,
            )
    else:
        factor = read_as
        unit = stated_unit or ""
    leaves = _leaves(doc, shown, path.stem)
    loose = _loose_surfaces(doc)
    if not leaves:
        what = f": only {loose}" if loose else ""
        raise defect(f"holds no solids{what}; a STEP part must hold at least one closed solid")
    if loose:  # measured are the solids: what lies beside them is said, never dropped silently
        warnings.warn(
            f"{shown}: left out: {loose} beside its solids, in none of them (only solids are "
            "measured)",
            stacklevel=3,
        )
    solids = []
    taken: set[str] = set()
    measured: dict[int, list[tuple[Any, tuple[Any, ...]]]] = {}  # instances measured once
    for k, (name, names, shape, trsf) in enumerate(leaves):
        unique, count = name, 1
        while unique in taken:  # a second instance: arm_2 (unless a solid is called so)
            count += 1
            unique = f"{name}_{count}"
        taken.add(unique)
        if len(leaves) > 1:  # a real part takes seconds: an assembly says where it is
            progress.report(k, len(leaves), f"{path.name}: solid {unique!r}")
        solids.append(_solid(unique, names, shape, trsf, factor, shown, measured))
    if len(leaves) > 1:
        progress.report(len(leaves), len(leaves))
    uncertified = _uncertified(shown, solids)
    if uncertified:  # the comparison proves nothing: said, never silent
        warnings.warn(uncertified, stacklevel=3)
    copies = _coincident(solids)
    if copies:
        pairs = ", ".join(f"{a!r} and {b!r}" for a, b in copies[:3])
        more = f" and {len(copies) - 3} more pairs" if len(copies) > 3 else ""
        warnings.warn(
            f"{shown}: solids {pairs}{more} are one part placed twice at the same place: both "
            "are counted (the part's mass twice); remove the copy in the CAD tool",
            stacklevel=3,
        )
    return StepFile(shown, stated_unit, unit, factor, tuple(solids))


def _coincident(solids: list[StepSolid]) -> list[tuple[str, str]]:
    """The pairs of solids that are instances of one part (one measured shape) at the same
    placement, to 1e-9 of its size (and in one cell of the grid below): a copy pasted in
    place, counted twice. (Overlaps of
    different solids are not looked for: OpenCascade's boolean took 13 s for the 24 pairs of
    a 162-solid board whose boxes meet, more than reading it.)"""
    # the candidates: one shape, positions in one cell of a grid 1e-6 of the part's size (a
    # copy pasted in place lands on its original's position exactly)
    cells: dict[tuple[Any, ...], list[StepSolid]] = {}
    for solid in solids:
        cell = tuple(np.round(solid.position / (1e-6 * solid.size)).astype(np.int64).tolist())
        cells.setdefault((id(solid.shape), *cell), []).append(solid)
    pairs = []
    for instances in cells.values():
        for i, a in enumerate(instances):
            for b in instances[i + 1 :]:
                if np.allclose(a.rotation, b.rotation, rtol=0.0, atol=1e-9) and np.allclose(
                    a.position, b.position, rtol=0.0, atol=1e-9 * a.size
                ):
                    pairs.append((a.name, b.name))
    return pairs


def _uncertified(shown: str, solids: list[StepSolid]) -> str | None:
    """The one warning for a file's solids whose tessellation could not check them (None: all
    checked). Every such solid is counted and named (the instances of a part share its
    certificate), the reasons with the number of solids each applies to."""
    left = [(s, s.certificate.left_out) for s in solids]
    left = [(s, why) for s, why in left if why]
    if not left:
        return None
    off = max(s.certificate.volume for s, _ in left)
    if len(left) == 1:
        ((solid, why),) = left
        return (
            f"{shown}: solid {solid.name!r}: {' and '.join(why)}, so its tessellation (volume "
            f"{off:.2e} off the B-rep's) cannot check the B-rep's integrals: the result is not "
            "certified"
        )
    names = ", ".join(repr(s.name) for s, _ in left[:3])
    more = f" and {len(left) - 3} more" if len(left) > 3 else ""
    counts = [
        f"{what} in {n}"
        for what, n in (
            ("faces untriangulated", sum(s.certificate.unmeshed_faces > 0 for s, _ in left)),
            ("faces with a hole or a crack", sum(s.certificate.faulty_faces > 0 for s, _ in left)),
        )
        if n
    ]
    why = [f"the mesher left {' and '.join(counts)}"] if counts else []
    swept = sum(s.certificate.swept_unconverted for s, _ in left)
    if swept:
        why.append(f"OpenCascade could not convert the swept faces of {swept}")
    return (
        f"{shown}: {len(left)} of {len(solids)} solids are not certified ({names}{more}): "
        f"{'; '.join(why)}, so their tessellations (volumes up to {off:.2e} off the B-rep's) "
        "cannot check the B-rep's integrals; each solid's certificate gives its counts"
    )


#: OpenCascade's writer names an unnamed product so: no name of the user's.
_DEFAULT_NAME = "Open CASCADE STEP translator"


def _placeholder(name: str) -> bool:
    """Whether ``name`` is OpenCascade's placeholder, also as another tool passed it on
    (Creo: ``OPEN_CASCADE_STEP_TRANSLATO-247``, upper case, cut and numbered)."""
    return name.replace("_", " ").upper().startswith(_DEFAULT_NAME.upper()[:26])


def _name(label: Any) -> str | None:
    from OCP.TDataStd import TDataStd_Name

    attribute = TDataStd_Name()
    if label.FindAttribute(TDataStd_Name.GetID_s(), attribute):
        text = attribute.Get().ToExtString().strip()
        if text and not _placeholder(text) and not text.startswith("=>"):
            return text
    return None


def _leaves(doc: Any, shown: str, stem: str) -> list[tuple[str, tuple[str, ...], Any, Any]]:
    """``(name, assembly path, solid, gp_Trsf in the file)`` for every solid in the file."""
    from OCP.gp import gp_Trsf
    from OCP.OCP import collections as occ
    from OCP.TDF import TDF_Label
    from OCP.TopAbs import TopAbs_SOLID
    from OCP.TopExp import TopExp_Explorer
    from OCP.XCAFDoc import XCAFDoc_DocumentTool

    tool = XCAFDoc_DocumentTool.ShapeTool_s(doc.Main())
    free = occ.Sequence_TDF_Label()
    tool.GetFreeShapes(free)
    out: list[tuple[str, tuple[str, ...], Any, Any]] = []

    def walk(label: Any, trsf: Any, names: tuple[str, ...], depth: int) -> None:
        if depth > 64:
            raise ParameterError("step", shown, "nests assemblies more than 64 deep (a cycle?)")
        if tool.IsAssembly_s(label):
            components = occ.Sequence_TDF_Label()
            tool.GetComponents_s(label, components, False)
            for i in range(1, len(components) + 1):
                component = components.Value(i)
                referred = TDF_Label()
                tool.GetReferredShape_s(component, referred)
                placed = trsf.Multiplied(tool.GetLocation_s(component).Transformation())
                # an instance's own name when its part has none, unless it is the file's
                # instance id (a number: '1', '2' from OpenCascade's writer, not stable)
                instance = _name(component)
                if instance is not None and instance.isdigit():
                    instance = None
                own = _name(referred) or instance or f"{stem}_{len(out) + 1}"
                walk(referred, placed, (*names, own), depth + 1)
            return
        shape = tool.GetShape_s(label)
        label_name = names[-1] if names else (_name(label) or stem)
        if depth == 0:
            names = (label_name,)
        found = []
        explorer = TopExp_Explorer(shape, TopAbs_SOLID)
        while explorer.More():
            found.append(explorer.Current())
            explorer.Next()
        for k, solid in enumerate(found):
            inner = trsf.Multiplied(solid.Location().Transformation())
            name = label_name if len(found) == 1 else f"{label_name}_{k + 1}"
            out.append((name, names, solid, inner))

    for i in range(1, len(free) + 1):
        walk(free.Value(i), gp_Trsf(), (), 0)
    return out


def _loose_surfaces(doc: Any) -> str:
    """The shells and faces of the document's free shapes that are in no solid, in words
    (``"1 open shell of 5 faces"``, ``"2 faces"``; empty: none)."""
    from OCP.BRep import BRep_Tool
    from OCP.OCP import collections as occ
    from OCP.TopAbs import TopAbs_FACE, TopAbs_SHELL, TopAbs_SOLID
    from OCP.TopExp import TopExp_Explorer
    from OCP.XCAFDoc import XCAFDoc_DocumentTool

    tool = XCAFDoc_DocumentTool.ShapeTool_s(doc.Main())
    free = occ.Sequence_TDF_Label()
    tool.GetFreeShapes(free)
    shells = open_shells = faces = 0
    for i in range(1, len(free) + 1):
        shape = tool.GetShape_s(free.Value(i))
        explorer = TopExp_Explorer(shape, TopAbs_SHELL, TopAbs_SOLID)  # not inside a solid
        while explorer.More():
            shells += 1
            open_shells += not BRep_Tool.IsClosed_s(explorer.Current())
            explorer.Next()
        explorer = TopExp_Explorer(shape, TopAbs_FACE, TopAbs_SOLID)
        while explorer.More():
            faces += 1
            explorer.Next()
    if not faces:
        return ""
    face_words = f"{faces} face{'s' * (faces != 1)}"
    if not shells:
        return face_words
    kind = "open " if open_shells == shells else ""
    return f"{shells} {kind}shell{'s' * (shells != 1)} of {face_words}"


def _solid(
    name: str,
    names: tuple[str, ...],
    solid: Any,
    trsf: Any,
    factor: float,
    shown: str,
    measured: dict[int, list[tuple[Any, tuple[Any, ...]]]],
) -> StepSolid:
    """One solid: placed, checked, measured (once per distinct geometry: the instances of a
    part share it) and certified."""
    from OCP.TopLoc import TopLoc_Location

    local = solid.Located(TopLoc_Location())
    matrix = np.array([[trsf.Value(i, j) for j in (1, 2, 3, 4)] for i in (1, 2, 3)])
    rotation, position = matrix[:, :3], matrix[:, 3] * factor
    if abs(trsf.ScaleFactor() - 1.0) > 1e-12 or np.linalg.det(rotation) < 0.0:
        from OCP.BRepBuilderAPI import BRepBuilderAPI_Transform

        # a scaled or mirrored instance: its geometry is transformed, placed at the origin
        local = BRepBuilderAPI_Transform(solid, trsf, True).Shape()
        rotation, position = np.eye(3), np.zeros(3)
    key = hash(local)
    same = [found for other, found in measured.get(key, ()) if other.IsEqual(local)]
    if same:
        result = same[0]
    else:
        result = _measure(name, local, factor, shown)
        measured.setdefault(key, []).append((local, result))
    volume, centroid, inertia, area, (low, high), wall, certificate, meshed, scale = result
    f = factor
    return StepSolid(
        name=name,
        path=names,
        rotation=rotation,
        position=position,
        volume=volume * f**3,
        centroid=centroid * f,
        inertia=inertia * f**5,
        area=area * f**2,
        size=float(np.linalg.norm(high - low)) * f,
        low=low * f,
        high=high * f,
        wall=wall * f,
        certificate=replace(certificate, deflection=certificate.deflection * f),  # m
        shape=meshed,
        shape_scale=scale,
    )


def _measure(name: str, local: Any, factor: float, shown: str) -> tuple[Any, ...]:
    """``(V, c, J, A, (low, high), wall, certificate, shape, scale)`` of a solid in its own
    frame (document unit; ``low``, ``high`` its bounding box's corners); ``shape`` the solid
    measured (swept faces as B-splines: :func:`_swept_as_bsplines`), triangulated by the
    certificate, at ``scale`` times the document's unit; ParameterError for an open shell, no
    volume, a thin wall or a failed certificate."""
    from OCP.BRep import BRep_Tool
    from OCP.TopAbs import TopAbs_SHELL
    from OCP.TopExp import TopExp_Explorer

    def defect(text: str) -> ParameterError:
        return ParameterError("step", shown, f"solid {name!r} {text}")

    explorer = TopExp_Explorer(local, TopAbs_SHELL)
    shells = 0
    while explorer.More():
        shells += 1
        if not BRep_Tool.IsClosed_s(explorer.Current()):
            raise defect("has an open shell (free edges): it bounds no volume")
        explorer.Next()
    if shells == 0:
        raise defect("has no shell")
    local, swept = _swept_as_bsplines(local)  # swept: faces left whose integrals are suspect
    volume, centroid, inertia, area, lo, hi, error = _brep_integrals(local)
    size = float(np.linalg.norm(hi - lo))
    if not (volume > 0.0 and math.isfinite(volume)) or not size > 0.0:
        raise defect(f"encloses no volume (OpenCascade: {volume!r}): a broken or inside-out B-rep")
    wall = 2.0 * volume / area
    if wall < THIN_WALL * size:
        raise defect(
            f"has walls about {wall * factor:.3g} m thick ({wall / size:.1e} of its "
            f"{size * factor:.3g} m size, estimated as 2 V / A): OpenCascade's integrals lose "
            f"walls thinner than {THIN_WALL:g} of the part; model the wall as a thin shell "
            "(rp.RigidBody) or thicken it"
        )
    # the scales to mesh at: the document's, then, should the mesher leave a face out or
    # faulty, metres (as read before the document took the file's unit), or millimetres for a
    # file in metres; each only where its deflection is above the mesher's precision
    rescale = factor if factor != 1.0 else 1e3
    scales = [k for k in (1.0, rescale) if DEFLECTION * size * k > 2.0 * _PRECISION]
    if not scales:
        raise defect(
            f"is {size * factor:.3g} m across, {size:.3g} of the file's unit: OpenCascade's "
            f"precision ({_PRECISION:g} of the unit) leaves no room for the certificate's "
            f"tessellation (within {DEFLECTION:g} of the size); write the part in a smaller unit"
        )
    certificate, meshed, scale = _certify(
        local, volume, centroid, inertia, area, size, error, swept, scales
    )
    if certificate.unmeshed_faces == 0 and not certificate.within_bound:
        # every face meshed, the volumes further apart than a tessellation may be: the B-rep's
        # integrals are wrong (or a hole the mesher left is as large: either way, refused)
        raise defect(
            f"is not measured reliably: the B-rep's volume differs from its tessellation's by "
            f"{certificate.volume:.2e} (a tessellation within its deflection may differ by "
            f"{certificate.volume_bound:.2e}); a wall or feature OpenCascade loses, or a broken "
            "B-rep (check the part in its CAD tool)"
        )
    return volume, centroid, inertia, area, (lo, hi), wall, certificate, meshed, scale


def _bounds(shape: Any) -> tuple[np.ndarray, np.ndarray]:
    """The corners of the solid's bounding box: the optimal one (``AddOptimal``), whose diagonal
    is the solid's size (the certificate's deflection, the thin-wall threshold). The quick box
    bounds B-spline control points and tolerances: 4x the part on an SO-101 part (its
    certificate 4x coarser), 1.44x on a rational B-spline sphere (``tests/test_step.py``).
    The optimal box costs 0.01-0.2 ms on solids of planes, cylinders, cones and spheres (where
    the two are the same) and 0.1-0.6 s on real parts of B-spline faces."""
    from OCP.Bnd import Bnd_Box
    from OCP.BRepBndLib import BRepBndLib

    box = Bnd_Box()
    BRepBndLib.AddOptimal_s(shape, box, False, False)  # no triangulation, no tolerances
    low, high = box.CornerMin(), box.CornerMax()
    return np.array(low.Coord()), np.array(high.Coord())


def _brep_integrals(
    shape: Any,
) -> tuple[float, np.ndarray, np.ndarray, float, np.ndarray, np.ndarray, float]:
    """``(V, c, J, A, low, high, error)`` in the document's unit (module docstring), the
    integrals taken about the bounding box's centre; ``error`` OpenCascade's estimate of the
    adaptive rule's relative error (0 for the fixed rule on analytic faces, exact to
    rounding)."""
    from OCP.BRepGProp import BRepGProp
    from OCP.gp import gp_Pnt
    from OCP.GProp import GProp_GProps

    lo, hi = _bounds(shape)
    middle = gp_Pnt(*(0.5 * (lo + hi)).tolist())
    props = GProp_GProps(middle)
    surface = GProp_GProps(middle)
    error = 0.0
    if _analytic(shape):
        # planes, cylinders, cones, spheres bounded by lines and circles: OpenCascade's
        # fixed-order Gauss rule integrates them exactly to rounding (and is 10x faster)
        BRepGProp.VolumeProperties_s(shape, props)
        BRepGProp.SurfaceProperties_s(shape, surface)
    else:
        error = BRepGProp.VolumeProperties_s(shape, props, INTEGRATION_EPS, False)
        # The area sizes only the wall estimate and the certificate's bound: the adaptive rule
        # asked for 1e-6 (2.4e-4 off at worst on the SO-101 parts; at 1e-12 it took as long as
        # the volume), not the fixed one (10 % off on a plane bounded by a B-spline)
        BRepGProp.SurfaceProperties_s(shape, surface, AREA_EPS)
    volume = props.Mass()
    c = props.CentreOfMass()
    m = props.MatrixOfInertia()
    inertia = np.array([[m.Value(i, j) for j in (1, 2, 3)] for i in (1, 2, 3)])
    inertia = 0.5 * (inertia + inertia.T)
    return volume, np.array([c.X(), c.Y(), c.Z()]), inertia, surface.Mass(), lo, hi, error


def _surface_types(shape: Any) -> set[Any]:
    """The kinds of surface (``GeomAbs_SurfaceType``) of the faces of ``shape``."""
    from OCP.BRepAdaptor import BRepAdaptor_Surface
    from OCP.TopAbs import TopAbs_FACE
    from OCP.TopExp import TopExp_Explorer
    from OCP.TopoDS import TopoDS

    kinds = set()
    explorer = TopExp_Explorer(shape, TopAbs_FACE)
    while explorer.More():
        kinds.add(BRepAdaptor_Surface(TopoDS.Face(explorer.Current()), False).GetType())
        explorer.Next()
    return kinds


def _swept_as_bsplines(shape: Any) -> tuple[Any, bool]:
    """``(shape, left)``: ``shape`` with its surfaces of linear extrusion and of revolution
    converted to B-spline surfaces of the same geometry (``ShapeCustom.ConvertToBSpline``,
    OpenCascade's exact conversion of such sweeps), the edges shared; ``shape`` itself when it
    has none. OpenCascade's adaptive rule is not to be trusted on swept faces and its mesher
    fails on them: an extruded B-spline profile (61 spans) integrated 1 % off and was left
    unmeshed; converted, its volume is exact to rounding (``tests/test_step.py``). ``left``:
    the conversion failed, the swept faces are as they were (their result is never
    certified). Offset surfaces are left as they are: their conversion is an approximation
    (within 1e-6 of the document's unit)."""
    from OCP.GeomAbs import GeomAbs_SurfaceOfExtrusion, GeomAbs_SurfaceOfRevolution
    from OCP.ShapeCustom import ShapeCustom

    if not _surface_types(shape) & {GeomAbs_SurfaceOfExtrusion, GeomAbs_SurfaceOfRevolution}:
        return shape, False
    try:
        return ShapeCustom.ConvertToBSpline_s(shape, True, True, False, False), False
    except Exception:  # OpenCascade's failure: the swept faces as they are, not certified
        return shape, True


def _analytic(shape: Any) -> bool:
    """Whether every face of ``shape`` is a plane, cylinder, cone or sphere bounded by lines and
    circles: OpenCascade's fixed-order rule is then exact to rounding. A B-spline edge (two
    cylinders' intersection, say) is not: the fixed rule measured 4.5e-7 off on two fused
    cylinders of radii 10 and 7 (``tests/test_step.py``), the adaptive one 3e-12."""
    from OCP.BRepAdaptor import BRepAdaptor_Curve
    from OCP.GeomAbs import (
        GeomAbs_Circle,
        GeomAbs_Cone,
        GeomAbs_Cylinder,
        GeomAbs_Line,
        GeomAbs_Plane,
        GeomAbs_Sphere,
    )
    from OCP.TopAbs import TopAbs_EDGE
    from OCP.TopExp import TopExp_Explorer
    from OCP.TopoDS import TopoDS

    if not _surface_types(shape) <= {GeomAbs_Plane, GeomAbs_Cylinder, GeomAbs_Cone, GeomAbs_Sphere}:
        return False
    explorer = TopExp_Explorer(shape, TopAbs_EDGE)
    while explorer.More():
        edge = TopoDS.Edge(explorer.Current())
        if BRepAdaptor_Curve(edge).GetType() not in (GeomAbs_Line, GeomAbs_Circle):
            return False
        explorer.Next()
    return True


def _face_meshes(shape: Any) -> Iterator[tuple[Any, Any, Any]]:
    """``(face, triangulation, location)`` of each face of ``shape``, the triangulation None
    where the face has no triangles."""
    from OCP.BRep import BRep_Tool
    from OCP.TopAbs import TopAbs_FACE
    from OCP.TopExp import TopExp_Explorer
    from OCP.TopLoc import TopLoc_Location
    from OCP.TopoDS import TopoDS

    explorer = TopExp_Explorer(shape, TopAbs_FACE)
    while explorer.More():
        face = TopoDS.Face(explorer.Current())
        explorer.Next()
        location = TopLoc_Location()
        mesh = BRep_Tool.Triangulation_s(face, location)
        yield face, (mesh if mesh is not None and mesh.NbTriangles() > 0 else None), location


def tessellate(shape: Any, deflection: float) -> tuple[np.ndarray, np.ndarray]:
    """The surface as triangles (:func:`tessellate_faces`; faces not triangulated skipped)."""
    vertices, faces, _ = tessellate_faces(shape, deflection)
    return vertices, faces


def tessellate_faces(shape: Any, deflection: float) -> tuple[np.ndarray, np.ndarray, int]:
    """``(vertices, faces)``: the shape's surface triangulated by ``BRepMesh_IncrementalMesh``
    (linear deflection ``deflection``, document unit), outward-wound (reversed faces flipped),
    and the number of faces left without triangles."""
    from OCP.TopAbs import TopAbs_REVERSED

    _mesh(shape, deflection)
    points: list[np.ndarray] = []
    triangles: list[np.ndarray] = []
    offset = 0
    missing = 0
    for face, mesh, location in _face_meshes(shape):
        if mesh is None:
            missing += 1
            continue
        trsf = location.Transformation()
        nodes = np.array(
            [mesh.Node(i).Transformed(trsf).Coord() for i in range(1, mesh.NbNodes() + 1)]
        )
        tris = np.array([mesh.Triangle(i).Get() for i in range(1, mesh.NbTriangles() + 1)])
        tris = tris.astype(np.int64) - 1 + offset
        if face.Orientation() == TopAbs_REVERSED:
            tris = tris[:, [0, 2, 1]]
        points.append(nodes)
        triangles.append(tris)
        offset += len(nodes)
    if not points:
        return np.zeros((0, 3)), np.zeros((0, 3), dtype=np.int64), missing
    return np.concatenate(points), np.concatenate(triangles), missing


def _certify(
    shape: Any,
    volume: float,
    centroid: np.ndarray,
    inertia: np.ndarray,
    area: float,
    size: float,
    error: float = 0.0,
    swept: bool = False,
    scales: tuple[float, ...] | list[float] = (1.0,),
) -> tuple[Certificate, Any, float]:
    """The B-rep's integrals against its tessellation's (module docstring); ``swept``: swept
    faces were left unconverted (the comparison is then incomplete). The shape is meshed at the
    first of ``scales`` (a copy scaled by it, unless 1) and, should the mesher leave a face out
    or faulty, at the next (its fixed tolerances, 1e-7 of the document's unit, then mean
    another size: on real parts each of metres and millimetres meshed some whole that the
    other did not); the better mesh is compared. Returns ``(certificate, the shape meshed, its
    scale)``.
    The polyhedron's integrals are OpenCascade's own over the triangles
    (``BRepGProp.VolumeProperties_s`` with ``UseTriangulation``: Gauss cubature on each
    triangle, exact for the degree-3 integrands of the divergence theorem; it agrees with
    :func:`rigidparts.polyhedron.integrals` on the same triangles to rounding,
    ``tests/test_step.py``), computed in C++ without reading the nodes back into Python: the
    certificate costs the mesher's time and its check of faulty faces (:func:`_faulty_faces`,
    0.1-1 ms on simple solids)."""
    from OCP.BRepGProp import BRepGProp
    from OCP.gp import gp_Pnt
    from OCP.GProp import GProp_GProps

    delta = DEFLECTION * size  # the document's unit, in the certificate too: _solid makes it m
    meshed, k = None, 1.0  # the shape whose mesh is compared, and its scale
    triangles = unmeshed = faulty = 0
    for scale in scales:
        copy = shape if scale == 1.0 else _scaled(shape, scale)
        found = _mesh(copy, delta * scale)
        if meshed is None or found[1:] < (unmeshed, faulty):  # fewer unmeshed, then faulty
            meshed, k = copy, scale
            triangles, unmeshed, faulty = found
        if not (unmeshed or faulty):
            break
    complete = unmeshed == 0 and faulty == 0 and not swept
    bound = area * delta / volume
    props = GProp_GProps(gp_Pnt(*(k * centroid).tolist()))
    BRepGProp.VolumeProperties_s(meshed, props, False, False, True)
    mesh_volume = props.Mass() / k**3
    if triangles == 0 or not (mesh_volume > 0.0 and math.isfinite(mesh_volume)):
        return Certificate(
            triangles, delta, math.inf, bound, math.inf, math.inf, False,
            complete and triangles > 0, error, unmeshed, faulty, swept,
        ), meshed, k  # fmt: skip
    c = props.CentreOfMass()
    matrix = props.MatrixOfInertia()  # about the polyhedron's centroid
    mesh_inertia = np.array([[matrix.Value(i, j) for j in (1, 2, 3)] for i in (1, 2, 3)]) / k**5
    dv = abs(mesh_volume - volume) / volume
    dc = float(np.linalg.norm(np.array([c.X(), c.Y(), c.Z()]) / k - centroid)) / size
    scale = float(np.max(np.abs(inertia)))
    di = float(np.max(np.abs(mesh_inertia - inertia))) / scale
    found = Certificate(triangles, delta, dv, bound, dc, di, False, complete, error)
    # an incomplete comparison agrees with nothing, whatever its volume
    certificate = replace(
        found,
        agrees=complete and found.within_bound,
        unmeshed_faces=unmeshed,
        faulty_faces=faulty,
        swept_unconverted=swept,
    )
    return certificate, meshed, k


def _scaled(shape: Any, k: float) -> Any:
    """A copy of ``shape`` scaled by ``k`` about the origin."""
    from OCP.BRepBuilderAPI import BRepBuilderAPI_Transform
    from OCP.gp import gp_Pnt, gp_Trsf

    trsf = gp_Trsf()
    trsf.SetScale(gp_Pnt(0.0, 0.0, 0.0), k)
    return BRepBuilderAPI_Transform(shape, trsf, True).Shape()


def _mesh(shape: Any, deflection: float) -> tuple[int, int, int]:
    """Triangulate ``shape`` in place (``BRepMesh_IncrementalMesh``, linear deflection
    ``deflection``, document unit); ``(triangles, faces unmeshed, faces faulty)``. The angular
    deflection (0.5 rad) only caps facets on small radii: the certificate's bound is the
    linear deflection's.

    Delabella's Delaunay first: the same triangles' deviation (the same volume differences on
    this project's shapes), meshed 2-3 times faster than the default (Watson's). On real parts
    it sometimes leaves a hole inside a face (a CATIA part: 0.12 of a 1.95 mm^2 B-spline face)
    or a face that does not meet its edges' nodes (tiny spheres of a SolidWorks part): such a
    solid is meshed again with Watson's, which met them on those parts (Delabella's is kept
    where Watson's leaves more faces unmeshed or faulty). A face still faulty
    (:func:`_faulty_faces`) leaves the certificate incomplete."""
    from OCP.BRepMesh import BRepMesh_IncrementalMesh
    from OCP.BRepTools import BRepTools
    from OCP.IMeshTools import (
        IMeshTools_MeshAlgoType_Delabella,
        IMeshTools_MeshAlgoType_Watson,
        IMeshTools_Parameters,
    )

    parameters = IMeshTools_Parameters()
    parameters.Deflection = deflection
    parameters.Angle = MESH_ANGLE
    parameters.Relative = False
    parameters.InParallel = True
    parameters.MeshAlgo = IMeshTools_MeshAlgoType_Delabella
    BRepMesh_IncrementalMesh(shape, parameters)
    found = _faulty_faces(shape)
    if found[1] or found[2]:  # a face unmeshed or faulty
        BRepTools.Clean_s(shape)  # the mesher does nothing on a shape it has meshed
        parameters.MeshAlgo = IMeshTools_MeshAlgoType_Watson
        BRepMesh_IncrementalMesh(shape, parameters)
        watson = _faulty_faces(shape)
        if watson[1:] <= found[1:]:  # fewer faces unmeshed, then fewer faulty
            return watson
        BRepTools.Clean_s(shape)
        parameters.MeshAlgo = IMeshTools_MeshAlgoType_Delabella
        BRepMesh_IncrementalMesh(shape, parameters)
        return _faulty_faces(shape)  # counted again: the mesh the certificate integrates
    return found


def _faulty_faces(shape: Any) -> tuple[int, int, int]:
    """``(triangles, unmeshed faces, faulty faces)`` of a triangulated ``shape``: a face is
    faulty when its triangulation's open edges are not its edges' segments. Counted in
    C++, no node read into Python: a face's open edges are ``2 L - 3 T`` (its ``L`` distinct
    edges, ``T`` triangles, each inner edge in two triangles), its edges' segments those of their
    polygons on the triangulation (a seam's twice); a hole inside the face adds open edges, a
    boundary node the edge does not have (one side of a T-junction) one more."""
    from OCP.BRep import BRep_Tool
    from OCP.Poly import Poly_CoherentTriangulation
    from OCP.TopAbs import TopAbs_EDGE
    from OCP.TopExp import TopExp_Explorer
    from OCP.TopoDS import TopoDS

    triangles = unmeshed = faulty = 0
    for face, mesh, location in _face_meshes(shape):
        if mesh is None:
            unmeshed += 1
            continue
        triangles += mesh.NbTriangles()
        links = Poly_CoherentTriangulation(mesh)
        open_edges = 2 * links.ComputeLinks() - 3 * links.NTriangles()
        segments = 0
        edges = TopExp_Explorer(face, TopAbs_EDGE)
        while edges.More():
            edge = TopoDS.Edge(edges.Current())
            edges.Next()
            polygon = BRep_Tool.PolygonOnTriangulation_s(edge, mesh, location)
            segments += 0 if polygon is None else polygon.NbNodes() - 1
        faulty += open_edges != segments
    return triangles, unmeshed, faulty
