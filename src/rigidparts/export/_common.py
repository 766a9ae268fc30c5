"""What the three exporters share: number formatting, body geometry, inertia, mesh files, XML.

- Numbers are written with ``repr(float)``: the shortest text that reads back to the same
  float64, so every mass, centre of mass and inertia arrives in the engine bit for bit.
- Geometry comes from the shape's specification: ``body.spec.primitive(body.dimensions)`` is
  the native box, cylinder or sphere that is exactly the body (in the canonical frame C), placed
  in frame_a by ``R_AC = body.rotation_from_canonical`` (:func:`body_geometry`); every other body
  is a mesh from ``body.mesh(sections)`` (frame_a coordinates), written as Wavefront OBJ (read
  by MuJoCo, Drake and Pinocchio/coal) in ``<stem>_meshes/`` beside the model file and
  referenced by that relative path.
- Rotations are converted by :mod:`rigidparts.transforms` (quaternions, roll-pitch-yaw).
"""

from __future__ import annotations

import math
import os
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..component import Component
from ..fileio import atomic_files
from ..inertia import invalidity_report
from ..mesh import check_sections
from ..model import Model

__all__ = [
    "INERTIA_ENTRIES",
    "TRIANGLE_MARGIN",
    "Geometry",
    "body_geometry",
    "check_sections",
    "distinct_meshes",
    "exported_inertia",
    "fmt",
    "is_identity",
    "mesh_folder",
    "mesh_obj_bytes",
    "vec",
    "write_xml",
    "xml_text",
]

#: OBJ vertex coordinates: decimals after the point (1e-15 m; geometry only, never inertia).
OBJ_DIGITS = 15


def fmt(x: float) -> str:
    """``repr`` of the float (shortest round-trip text); ``-0.0`` is written ``0.0``."""
    value = float(x)
    if not math.isfinite(value):
        raise ValueError(f"cannot export the non-finite number {value!r}")
    return repr(value + 0.0)


def vec(values: Iterable[float]) -> str:
    """Numbers separated by spaces, each at full precision."""
    return " ".join(fmt(v) for v in values)


def is_identity(rotation: np.ndarray) -> bool:
    """True when ``rotation`` is exactly the identity (then formats omit it)."""
    return bool(np.array_equal(rotation, np.eye(3)))


@dataclass(frozen=True)
class Geometry:
    """A body's visual and collision shape, placed in its frame_a.

    ``kind`` is ``"box"`` (``size`` = full extents along the geometry frame's x, y, z),
    ``"cylinder"`` (``size`` = (radius, length), axis along the geometry frame's z, as in MJCF,
    URDF and SDFormat), ``"sphere"`` (``size`` = (radius,)) or ``"mesh"`` (vertices already in
    frame_a: identity pose). ``rotation`` / ``position`` are the geometry frame's pose in
    frame_a (``R_AG``, ``p_AoGo_A``, m); the primitives are centred on ``p_AoGo_A``.
    """

    kind: str
    size: tuple[float, ...]
    rotation: np.ndarray
    position: np.ndarray


#: The six entries of a symmetric inertia tensor, as URDF and SDFormat name them: tag ->
#: (row, column) of ``I`` (the entries as they are: ``ixy = I[0, 1]``, minus the product).
INERTIA_ENTRIES = {
    "ixx": (0, 0),
    "ixy": (0, 1),
    "ixz": (0, 2),
    "iyy": (1, 1),
    "iyz": (1, 2),
    "izz": (2, 2),
}

#: The triangle-inequality margin, as a multiple of ``eps * trace``, below which an exported
#: full tensor gets its smallest principal moment raised (see :func:`exported_inertia`).
TRIANGLE_MARGIN = 64


def exported_inertia(body: Component) -> np.ndarray:
    """The central inertia (frame_a axes, kg m^2) to write as a full tensor (URDF, SDFormat).

    That is ``body.inertia`` itself, unless its principal moments keep the rule of
    :func:`rigidparts.inertia.invalidity_report` (``I1 >= 0``, ``I1 + I2 >= I3``) by less than
    ``TRIANGLE_MARGIN * eps * trace`` (the report asked with that *negative* tolerance): bodies
    at the edge of the triangle inequality (a plate thinner than ~1e-8 of its width, a rod
    thinner than ~1e-8 of its length) satisfy it by less than the rounding of an engine's own
    eigen-decomposition, and MuJoCo, which re-diagonalises a URDF tensor and checks the
    inequality with no tolerance, would refuse the file. Then the smallest principal moment is
    raised by that margin (about 1.4e-14 of the trace, far below
    :data:`rigidparts.INERTIA_TOLERANCE`), which keeps every inequality with room to spare.
    """
    props = body.mass_properties
    margin = TRIANGLE_MARGIN * np.finfo(np.float64).eps
    moments = props.principal_moments
    if invalidity_report(moments, tolerance=-margin) is None:
        return np.array(body.inertia)
    i1, i2, i3 = moments
    delta = margin * (i1 + i2 + i3)
    axes = props.principal_axes
    return axes @ np.diag([i1 + delta, i2, i3]) @ axes.T


def _is_signed_permutation(rotation: np.ndarray) -> bool:
    return bool(np.array_equal(np.sort(np.abs(rotation), axis=None), [0.0] * 6 + [1.0] * 3))


#: Columns of ``R_AC`` that make a cylinder's geometry frame G: C's x (the cylinder's axis)
#: becomes G's z, and (y, z, x) stays right-handed.
_CYLINDER_AXES = [1, 2, 0]


def body_geometry(body: Component) -> Geometry:
    """The native primitive of the body's specification placed in frame_a, or a mesh.

    ``primitive = body.spec.primitive(body.dimensions)`` lies in the canonical frame C; with
    ``R_AC = body.rotation_from_canonical`` its centre is ``R_AC center_C``. A box aligned with
    frame_a's axes (``R_AC`` a signed permutation) is written unrotated with its extents
    permuted; any other box is rotated by ``R_AC``. A cylinder's geometry frame is ``R_AC``
    with C's x moved to z, and the identity when that axis is +-z (a cylinder is symmetric end
    to end). A sphere needs no rotation. No primitive: ``Geometry("mesh", ...)``.
    """
    spec = body.spec
    primitive = spec.primitive(body.dimensions) if spec.primitive is not None else None
    if primitive is None:
        return Geometry("mesh", (), np.eye(3), np.zeros(3))
    r_ac = np.array(body.rotation_from_canonical)
    cx, cy, cz = primitive.center
    centre = r_ac[:, 0] * cx + r_ac[:, 1] * cy + r_ac[:, 2] * cz + 0.0  # + 0.0: no -0.0
    if primitive.kind == "box":
        extents = np.array(primitive.size, dtype=np.float64)
        if _is_signed_permutation(r_ac):  # aligned with frame_a: no rotation needed
            return Geometry("box", tuple(np.abs(r_ac) @ extents), np.eye(3), centre)
        return Geometry("box", tuple(extents), r_ac, centre)
    if primitive.kind == "cylinder":
        r_ag = r_ac[:, _CYLINDER_AXES]
        if np.array_equal(np.abs(r_ag[:, 2]), [0.0, 0.0, 1.0]):
            r_ag = np.eye(3)  # the axis along +-z
        return Geometry("cylinder", tuple(primitive.size), r_ag, centre)
    if primitive.kind == "sphere":
        return Geometry("sphere", tuple(primitive.size), np.eye(3), centre)
    raise ValueError(f"shape {spec.name!r}: unknown primitive kind {primitive.kind!r}")


def mesh_folder(path: str | os.PathLike[str]) -> tuple[Path, str]:
    """``(folder on disk, its name relative to the model file)``: ``<stem>_meshes``."""
    target = Path(path)
    name = f"{target.stem}_meshes"
    return target.with_name(name), name


def mesh_obj_bytes(mesh: Any) -> bytes:
    """A ``trimesh.Trimesh`` as Wavefront OBJ text (vertices and faces only)."""
    from trimesh.exchange.obj import export_obj

    text = export_obj(
        mesh,
        include_normals=False,
        include_color=False,
        include_texture=False,
        digits=OBJ_DIGITS,
        header=None,
    )
    return text.encode("utf-8")


def distinct_meshes(
    model: Model, sections: int, geometries: dict[str, Geometry] | None = None
) -> tuple[dict[str, Any], dict[str, str]]:
    """``({mesh name: trimesh}, {body: mesh name})`` for the bodies drawn as meshes: one mesh
    per distinct shape, dimensions and axes (the first body's name), so a chain of 1000 equal
    links builds, writes and compiles one mesh. ``geometries``: each body's
    :func:`body_geometry`, when known."""
    meshes: dict[str, Any] = {}
    mesh_of: dict[str, str] = {}
    first: dict[tuple[Any, ...], str] = {}
    for name, body in model.bodies.items():
        geometry = body_geometry(body) if geometries is None else geometries[name]
        if geometry.kind != "mesh":
            continue
        key: tuple[Any, ...] = (
            body.spec.name,
            tuple(body.dimensions.items()),
            np.asarray(body.rotation_from_canonical).tobytes(),
        )
        try:
            hash(key)
        except TypeError:  # a dimension that is no plain value (a mesh object): its own mesh
            key = (name,)
        if key not in first:
            first[key] = name
            try:
                meshes[name] = body.mesh(sections)
            except ImportError as exc:
                raise ImportError(
                    f"body {name!r} ({body.spec.summary}) has no native primitive: exporting "
                    "it as a mesh needs trimesh: pip install 'rigidparts[mesh]'",
                    name=exc.name,
                ) from None
        mesh_of[name] = first[key]
    return meshes, mesh_of


def write_meshes(meshes: dict[str, Any], folder: Path) -> None:
    """Write each mesh as ``folder/<body>.obj`` (the folder is created; it is a staging
    folder of :func:`write_xml`, so plain writes suffice)."""
    if not meshes:
        return
    folder.mkdir(parents=True, exist_ok=True)
    for name, mesh in meshes.items():
        (folder / f"{name}.obj").write_bytes(mesh_obj_bytes(mesh))


def xml_text(root: ET.Element) -> str:
    """Indented XML with a declaration."""
    ET.indent(root, space="  ")
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def write_xml(
    text: str,
    path: str | os.PathLike[str] | None,
    meshes: dict[str, Any],
    *,
    force: bool | None = None,
) -> str:
    """Write the model file and its meshes all or nothing (:func:`rigidparts.fileio.atomic_files`):
    both are staged in a temporary folder beside the target, then the mesh folder
    ``<stem>_meshes/`` is moved into place and the model file last, so a failed or interrupted
    export leaves the old export as it was and never a model file with missing or mixed meshes.
    A symlink given as ``path`` is written through; a missing folder is created; a read-only
    file is refused unless ``force`` (default :func:`rigidparts.fileio.forcing`). Without
    ``path`` nothing is written. Returns ``text``."""
    if path is None:
        return text
    _, folder_name = mesh_folder(path)
    with atomic_files(path, folder_name, force=force) as (staged_file, staged_folder):
        write_meshes(meshes, staged_folder)
        staged_file.write_text(text, encoding="utf-8", newline="\n")
    return text
