"""STEP files of this project's own shapes, written with OpenCascade (BRepPrimAPI, exported by
STEPControl_Writer / STEPCAFControl_Writer) for tests/test_step*.py and benchmarks/step.py."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

#: OpenCascade's unit names for STEPControl_Writer's "write.step.unit".
UNIT_NAMES = {"mm": "MM", "m": "M", "in": "INCH", "um": "UM"}


def _quiet() -> None:
    """OpenCascade's writers print statistics on stdout: send its messages nowhere."""
    from OCP.Message import Message

    messenger = Message.DefaultMessenger_s()
    printers = messenger.Printers()
    for _ in range(printers.Size()):
        messenger.RemovePrinters(printers.First().DynamicType())
        printers = messenger.Printers()
        if printers.Size() == 0:
            break


def _units(unit: str) -> None:
    from OCP.Interface import Interface_Static

    Interface_Static.SetCVal_s("xstep.cascade.unit", UNIT_NAMES[unit])
    Interface_Static.SetCVal_s("write.step.unit", UNIT_NAMES[unit])


def axis_frame(origin=(0.0, 0.0, 0.0), direction=(1.0, 0.0, 0.0)) -> Any:
    from OCP.gp import gp_Ax2, gp_Dir, gp_Pnt

    return gp_Ax2(gp_Pnt(*origin), gp_Dir(*direction))


def box(length: float, width: float, height: float) -> Any:
    """rp.Box's solid: frame_a at the centre of one end face, the length along x, the height
    along y, the width along z."""
    from OCP.BRepPrimAPI import BRepPrimAPI_MakeBox
    from OCP.gp import gp_Pnt

    return BRepPrimAPI_MakeBox(gp_Pnt(0.0, -height / 2, -width / 2), length, height, width).Shape()


def cylinder(length: float, radius: float, inner_radius: float = 0.0) -> Any:
    """rp.Cylinder's solid along x from the origin (a tube when inner_radius > 0)."""
    from OCP.BRepAlgoAPI import BRepAlgoAPI_Cut
    from OCP.BRepPrimAPI import BRepPrimAPI_MakeCylinder

    outer = BRepPrimAPI_MakeCylinder(axis_frame(), radius, length).Shape()
    if inner_radius <= 0.0:
        return outer
    inner = BRepPrimAPI_MakeCylinder(
        axis_frame((-length, 0.0, 0.0)), inner_radius, 3 * length
    ).Shape()
    return BRepAlgoAPI_Cut(outer, inner).Shape()


def cone(length: float, radius_a: float, radius_b: float) -> Any:
    """rp.Cone's solid along x (radius_a at frame_a, radius_b at frame_b)."""
    from OCP.BRepPrimAPI import BRepPrimAPI_MakeCone

    return BRepPrimAPI_MakeCone(axis_frame(), radius_a, radius_b, length).Shape()


def sphere(radius: float) -> Any:
    from OCP.BRepPrimAPI import BRepPrimAPI_MakeSphere

    return BRepPrimAPI_MakeSphere(radius).Shape()


def pinned_plate(radius: float, pins: int) -> Any:
    """A 40 x 40 x 10 plate (top face z = 0) with ``pins`` round-ended pins of ``radius``, 2
    long, along y = 0: features near the certificate's deflection (1e-3 of the 57 size), on
    which OpenCascade's mesher leaves holes and T-junctions in the tessellation."""
    from OCP.BRepAlgoAPI import BRepAlgoAPI_Fuse
    from OCP.BRepPrimAPI import BRepPrimAPI_MakeBox, BRepPrimAPI_MakeCylinder
    from OCP.gp import gp_Pnt

    shape = BRepPrimAPI_MakeBox(gp_Pnt(-20.0, -20.0, -10.0), 40.0, 40.0, 10.0).Shape()
    for k in range(pins):
        x = -15.0 + 30.0 * k / max(pins - 1, 1)
        pin = BRepPrimAPI_MakeCylinder(axis_frame((x, 0, -0.01), (0, 0, 1)), radius, 2.0).Shape()
        shape = BRepAlgoAPI_Fuse(shape, pin).Shape()
        shape = BRepAlgoAPI_Fuse(shape, sphere_at((x, 0.0, 1.99), radius)).Shape()
    return shape


def sphere_at(centre: tuple[float, float, float], radius: float) -> Any:
    from OCP.BRepPrimAPI import BRepPrimAPI_MakeSphere
    from OCP.gp import gp_Pnt

    return BRepPrimAPI_MakeSphere(gp_Pnt(*centre), radius).Shape()


def spline_profile(poles: Any, degree: int = 3) -> Any:
    """A planar face in z = 0 bounded by a clamped B-spline through ``poles`` (``(n, 2)``, its
    ends on y = 0, uniform knots 0..n-degree) and the segment of y = 0 closing it."""
    from OCP.BRepBuilderAPI import (
        BRepBuilderAPI_MakeEdge,
        BRepBuilderAPI_MakeFace,
        BRepBuilderAPI_MakeWire,
    )
    from OCP.Geom import Geom_BSplineCurve
    from OCP.gp import gp_Pnt
    from OCP.OCP.collections import Array1_double, Array1_gp_Pnt, Array1_int

    n = len(poles)
    points = Array1_gp_Pnt(1, n)
    for i, (x, y) in enumerate(poles):
        points.SetValue(i + 1, gp_Pnt(float(x), float(y), 0.0))
    count = n - degree + 1
    knots, multiplicities = Array1_double(1, count), Array1_int(1, count)
    for i in range(count):
        knots.SetValue(i + 1, float(i))
        multiplicities.SetValue(i + 1, degree + 1 if i in (0, count - 1) else 1)
    curve = Geom_BSplineCurve(points, knots, multiplicities, degree, False)
    arc = BRepBuilderAPI_MakeEdge(curve).Edge()
    (x0, y0), (x1, y1) = poles[0], poles[-1]
    close = BRepBuilderAPI_MakeEdge(gp_Pnt(x1, y1, 0.0), gp_Pnt(x0, y0, 0.0)).Edge()
    return BRepBuilderAPI_MakeFace(BRepBuilderAPI_MakeWire(arc, close).Wire(), True).Face()


def extruded(face: Any, height: float) -> Any:
    """``face`` swept along z by ``height`` (a surface of linear extrusion on each edge)."""
    from OCP.BRepPrimAPI import BRepPrimAPI_MakePrism
    from OCP.gp import gp_Vec

    return BRepPrimAPI_MakePrism(face, gp_Vec(0.0, 0.0, height)).Shape()


def revolved(face: Any, axis_x: float) -> Any:
    """``face`` revolved a full turn about the line x = ``axis_x`` parallel to y (a surface of
    revolution on each edge)."""
    from OCP.BRepPrimAPI import BRepPrimAPI_MakeRevol
    from OCP.gp import gp_Ax1, gp_Dir, gp_Pnt

    axis = gp_Ax1(gp_Pnt(axis_x, 0.0, 0.0), gp_Dir(0.0, 1.0, 0.0))
    return BRepPrimAPI_MakeRevol(face, axis).Shape()


def write_shape(shape: Any, path: Path, unit: str, name: str | None = None) -> Path:
    """``shape`` (coordinates in ``unit``) as an AP214 STEP file in ``unit``; its product
    called ``name`` (default: OpenCascade's placeholder, which the reader replaces by the
    file's stem)."""
    from OCP.STEPControl import STEPControl_AsIs, STEPControl_Writer

    _quiet()
    writer = STEPControl_Writer()  # first: creating it sets the defaults of the statics
    _units(unit)
    writer.Transfer(shape, STEPControl_AsIs)
    writer.Write(str(path))
    if name is not None:
        text = re.sub(r"'Open CASCADE STEP translator [^']*'", repr(name), path.read_text())
        path.write_text(text)
    return path


def write_assembly(parts: list[tuple[str, Any, tuple, float]], path: Path, unit: str) -> Path:
    """An assembly named ``robot`` of ``(name, shape, (x, y, z), angle about z)`` instances
    (coordinates in ``unit``), each part a named XCAF shape, as a STEP file in ``unit``."""
    from OCP.gp import gp_Ax1, gp_Dir, gp_Pnt, gp_Trsf, gp_Vec
    from OCP.STEPCAFControl import STEPCAFControl_Writer
    from OCP.STEPControl import STEPControl_AsIs
    from OCP.TCollection import TCollection_ExtendedString
    from OCP.TDataStd import TDataStd_Name
    from OCP.TDocStd import TDocStd_Document
    from OCP.TopLoc import TopLoc_Location
    from OCP.XCAFDoc import XCAFDoc_DocumentTool

    _quiet()
    STEPCAFControl_Writer()  # first: creating one sets the defaults of the statics
    _units(unit)
    doc = TDocStd_Document(TCollection_ExtendedString("XmlOcaf"))
    tool = XCAFDoc_DocumentTool.ShapeTool_s(doc.Main())
    root = tool.NewShape()
    TDataStd_Name.Set_s(root, TCollection_ExtendedString("robot"))
    labels: dict[int, Any] = {}
    for name, shape, offset, angle in parts:
        label = labels.get(id(shape))
        if label is None:
            label = tool.AddShape(shape, False)
            TDataStd_Name.Set_s(label, TCollection_ExtendedString(name))
            labels[id(shape)] = label
        rotate = gp_Trsf()
        rotate.SetRotation(gp_Ax1(gp_Pnt(0, 0, 0), gp_Dir(0, 0, 1)), angle)
        move = gp_Trsf()
        move.SetTranslation(gp_Vec(*offset))
        move.Multiply(rotate)
        tool.AddComponent(root, label, TopLoc_Location(move))
    tool.UpdateAssemblies()
    writer = STEPCAFControl_Writer()
    writer.Transfer(doc, STEPControl_AsIs)
    writer.Write(str(path))
    return path


__all__ = [
    "box",
    "cone",
    "cylinder",
    "extruded",
    "math",
    "revolved",
    "sphere",
    "spline_profile",
    "write_assembly",
    "write_shape",
]
