"""What the three exporters share: number formatting, poses, body geometry, mesh files, XML.

- Numbers are written with ``repr(float)``: the shortest text that reads back to the same
  float64, so every mass, centre of mass and inertia arrives in the engine bit for bit.
- Geometry: a solid box is a native box, a solid cylinder (a cone with equal radii) a native
  cylinder; cones and hollow bodies are meshes from ``body.mesh(sections)`` (frame_a
  coordinates), written as Wavefront OBJ (read by MuJoCo, Drake and Pinocchio/coal) in
  ``<stem>_meshes/`` beside the model file and referenced by that relative path.
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

from ..fileio import atomic_write

__all__ = [
    "Geometry",
    "body_geometry",
    "exported_inertia",
    "fmt",
    "mesh_folder",
    "mesh_obj_bytes",
    "quaternion",
    "rpy",
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
    return bool(np.array_equal(rotation, np.eye(3)))


def rpy(rotation: np.ndarray) -> np.ndarray:
    """Roll, pitch, yaw of ``R = Rz(yaw) Ry(pitch) Rx(roll)`` (the URDF / SDFormat
    convention); exactly zero for the identity."""
    if is_identity(rotation):
        return np.zeros(3)
    import warnings

    from scipy.spatial.transform import Rotation

    with warnings.catch_warnings():  # at pitch = +-90 deg any split of roll/yaw is exact enough
        warnings.simplefilter("ignore", UserWarning)
        return Rotation.from_matrix(rotation).as_euler("xyz")


def quaternion(rotation: np.ndarray) -> np.ndarray:
    """The unit quaternion ``(w, x, y, z)`` of ``rotation`` (MuJoCo's order), ``w >= 0``."""
    if is_identity(rotation):
        return np.array([1.0, 0.0, 0.0, 0.0])
    from ..model.joints import matrix_to_quaternion

    return matrix_to_quaternion(rotation)


@dataclass(frozen=True)
class Geometry:
    """A body's visual and collision shape, placed in its frame_a.

    ``kind`` is ``"box"`` (``size`` = full extents along the geometry frame's x, y, z),
    ``"cylinder"`` (``size`` = (radius, length), axis along the geometry frame's z) or
    ``"mesh"`` (vertices already in frame_a: identity pose). ``rotation`` / ``position`` are
    the geometry frame's pose in frame_a (``R_AG``, ``p_AoGo_A``).
    """

    kind: str
    size: tuple[float, ...]
    rotation: np.ndarray
    position: np.ndarray


#: The triangle-inequality margin, as a multiple of ``eps * trace``, below which an exported
#: full tensor gets its smallest principal moment raised (see :func:`exported_inertia`).
TRIANGLE_MARGIN = 64


def exported_inertia(body: Any) -> np.ndarray:
    """The central inertia (frame_a axes) to write as a full tensor (URDF, SDFormat).

    That is ``body.inertia`` itself, except for bodies at the edge of the triangle inequality
    (a plate thinner than ~1e-8 of its width, a rod thinner than ~1e-8 of its length): their
    exact moments satisfy ``I1 + I2 >= I3`` by less than the rounding of an engine's own
    eigen-decomposition, and MuJoCo, which re-diagonalises a URDF tensor and checks the
    inequality with no tolerance, would refuse the file. Then the smallest principal moment is
    raised by ``TRIANGLE_MARGIN * eps * trace`` (about 1.4e-14 of the trace, far below
    :data:`rigidparts.INERTIA_TOLERANCE`), which keeps every inequality with room to spare.
    """
    props = body.mass_properties
    i1, i2, i3 = props.principal_moments
    trace = i1 + i2 + i3
    delta = TRIANGLE_MARGIN * np.finfo(np.float64).eps * trace
    if i1 + i2 - i3 >= delta and i1 >= delta:
        return np.array(body.inertia)
    axes = props.principal_axes
    return axes @ np.diag([i1 + delta, i2, i3]) @ axes.T


def _is_signed_permutation(rotation: np.ndarray) -> bool:
    return bool(np.array_equal(np.sort(np.abs(rotation), axis=None), [0.0] * 6 + [1.0] * 3))


def body_geometry(body: Any) -> Geometry:
    """Native primitive when the format has one (solid box, solid cylinder), else a mesh."""
    r_ac = np.array(body.rotation_from_canonical)
    centre = 0.5 * body.length * np.array(body.axis)
    dims = body.dimensions
    if body.shape == "box" and dims["inner_width"] == 0.0 and dims["inner_height"] == 0.0:
        # Canonical frame C: the axis along x, the height along y, the width along z.
        extents = np.array([dims["length"], dims["height"], dims["width"]])
        if _is_signed_permutation(r_ac):  # aligned with frame_a: no rotation needed
            return Geometry("box", tuple(np.abs(r_ac) @ extents), np.eye(3), centre)
        return Geometry("box", tuple(extents), r_ac, centre)
    if (
        body.shape == "cone"
        and dims["radius_a"] == dims["radius_b"]
        and dims["inner_radius_a"] == 0.0
        and dims["inner_radius_b"] == 0.0
    ):
        # A cylinder's axis is its frame's z: columns (h, w, e) of R_AC, right-handed.
        r_ag = r_ac[:, [1, 2, 0]]
        if np.array_equal(np.abs(r_ag[:, 2]), [0.0, 0.0, 1.0]):
            r_ag = np.eye(3)  # the axis along +-z: a cylinder is symmetric end to end
        return Geometry("cylinder", (dims["radius_a"], dims["length"]), r_ag, centre)
    return Geometry("mesh", (), np.eye(3), np.zeros(3))


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


def body_meshes(model: Any, sections: int) -> dict[str, Any]:
    """``body name -> trimesh`` for every body drawn as a mesh (``body.mesh(sections)``)."""
    return {
        name: body.mesh(sections)
        for name, body in model.bodies.items()
        if body_geometry(body).kind == "mesh"
    }


def write_meshes(meshes: dict[str, Any], folder: Path) -> None:
    """Write each mesh as ``folder/<body>.obj`` (atomically)."""
    if not meshes:
        return
    folder.mkdir(exist_ok=True)
    for name, mesh in meshes.items():
        atomic_write(folder / f"{name}.obj", mesh_obj_bytes(mesh))


def xml_text(root: ET.Element) -> str:
    """Indented XML with a declaration."""
    ET.indent(root, space="  ")
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def write_xml(text: str, path: str | os.PathLike[str] | None, meshes: dict[str, Any]) -> str:
    """Write the meshes, then the model file (both atomically), so that the file never
    references a missing mesh. Without ``path`` nothing is written. Returns ``text``."""
    if path is None:
        return text
    parent = Path(path).parent
    if not parent.is_dir():
        raise FileNotFoundError(2, f"the folder {parent} does not exist", str(path))
    folder, _ = mesh_folder(path)
    write_meshes(meshes, folder)
    atomic_write(path, text)
    return text


def check_sections(sections: Any) -> int:
    """The number of segments around round surfaces, validated by the mesh module when it
    is present (an int >= 3)."""
    try:
        from ..mesh import check_sections as check
    except ModuleNotFoundError:  # the mesh extra is missing: body.mesh() will say so
        if isinstance(sections, bool) or not isinstance(sections, int) or sections < 3:
            from ..errors import ParameterError

            raise ParameterError("sections", sections, "must be an integer >= 3") from None
        return sections
    return check(sections)
