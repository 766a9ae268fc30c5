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
from ..errors import ModelError
from ..fileio import atomic_files
from ..mesh import check_sections
from ..model import Model

__all__ = [
    "FORMAT_KINDS",
    "INERTIA_ENTRIES",
    "MUJOCO_MAX_BODY_DEPTH",
    "NATIVE_KINDS",
    "Geometry",
    "MuJoCoDepthWarning",
    "body_geometry",
    "check_sections",
    "distinct_meshes",
    "fmt",
    "is_identity",
    "mesh_folder",
    "mesh_obj_bytes",
    "mujoco_depth_error",
    "too_deep_for_mujoco",
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
    URDF and SDFormat), ``"sphere"`` (``size`` = (radius,)), ``"capsule"`` (``size`` = (radius,
    length of the cylindrical part), axis along z), ``"ellipsoid"`` (``size`` = the semi-axes
    along x, y, z) or ``"mesh"`` (vertices already in frame_a: identity pose). ``rotation`` /
    ``position`` are the geometry frame's pose in frame_a (``R_AG``, ``p_AoGo_A``, m); the
    primitives are centred on ``p_AoGo_A``.
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


def _is_signed_permutation(rotation: np.ndarray) -> bool:
    return bool(np.array_equal(np.sort(np.abs(rotation), axis=None), [0.0] * 6 + [1.0] * 3))


#: Columns of ``R_AC`` that make a cylinder's geometry frame G: C's x (the cylinder's axis)
#: becomes G's z, and (y, z, x) stays right-handed.
_CYLINDER_AXES = [1, 2, 0]


#: Every native geometry kind a :class:`Geometry` may have (besides ``"mesh"``).
NATIVE_KINDS = frozenset({"box", "cylinder", "sphere", "capsule", "ellipsoid"})
#: The native kinds each format is written with (the rest as meshes): URDF has no capsule nor
#: ellipsoid; USD has a ``Capsule``, and an ellipsoid would be a non-uniformly scaled
#: ``Sphere``, which not every USD physics engine collides with, so it is a mesh.
FORMAT_KINDS = {
    "mjcf": NATIVE_KINDS,
    "sdf": NATIVE_KINDS,
    "urdf": frozenset({"box", "cylinder", "sphere"}),
    "usd": frozenset({"box", "cylinder", "sphere", "capsule"}),
}


def body_geometry(body: Component, native: frozenset[str] = NATIVE_KINDS) -> Geometry:
    """The native primitive of the body's specification placed in frame_a, or a mesh.

    ``primitive = body.spec.primitive(body.dimensions)`` lies in the canonical frame C; with
    ``R_AC = body.rotation_from_canonical`` its centre is ``R_AC center_C``. A box aligned with
    frame_a's axes (``R_AC`` a signed permutation) is written unrotated with its extents
    permuted; any other box is rotated by ``R_AC``. A cylinder's geometry frame is ``R_AC``
    with C's x moved to z, and the identity when that axis is +-z (a cylinder is symmetric end
    to end). A capsule as a cylinder; an ellipsoid as a box (its semi-axes permuted, or
    rotated). A sphere needs no rotation. No primitive, or one whose kind is not in ``native``
    (the kinds the format has: URDF has no capsule nor ellipsoid): ``Geometry("mesh", ...)``.
    """
    spec = body.spec
    primitive = spec.primitive(body.dimensions) if spec.primitive is not None else None
    if primitive is None or primitive.kind not in native:
        return Geometry("mesh", (), np.eye(3), np.zeros(3))
    r_ac = np.array(body.rotation_from_canonical)
    cx, cy, cz = primitive.center
    centre = r_ac[:, 0] * cx + r_ac[:, 1] * cy + r_ac[:, 2] * cz + 0.0  # + 0.0: no -0.0
    if primitive.kind in ("box", "ellipsoid"):
        extents = np.array(primitive.size, dtype=np.float64)
        if _is_signed_permutation(r_ac):  # aligned with frame_a: no rotation needed
            return Geometry(primitive.kind, tuple(np.abs(r_ac) @ extents), np.eye(3), centre)
        return Geometry(primitive.kind, tuple(extents), r_ac, centre)
    if primitive.kind in ("cylinder", "capsule"):
        r_ag = r_ac[:, _CYLINDER_AXES]
        if np.array_equal(np.abs(r_ag[:, 2]), [0.0, 0.0, 1.0]):
            r_ag = np.eye(3)  # the axis along +-z
        return Geometry(primitive.kind, tuple(primitive.size), r_ag, centre)
    if primitive.kind == "sphere":
        return Geometry("sphere", tuple(primitive.size), np.eye(3), centre)
    raise ValueError(f"shape {spec.name!r}: unknown primitive kind {primitive.kind!r}")


def mesh_folder(path: str | os.PathLike[str]) -> tuple[Path, str]:
    """``(folder on disk, its name relative to the model file)``: ``<stem>_meshes`` beside the
    file that is written. A symlink given as ``path`` is resolved (the file it points to is
    the one written, :func:`rigidparts.fileio.atomic_files`): ``out/robot.urdf -> ../real/
    arm.urdf`` puts the meshes in ``real/arm_meshes``, beside the file that names them."""
    target = Path(path)
    if target.is_symlink():
        target = Path(os.path.realpath(target))
    name = f"{target.stem}_meshes"
    return target.with_name(name), name


# -- MuJoCo's depth limit ----------------------------------------------------------------------

#: The deepest chain of bodies below the world that MuJoCo builds. Every compile signs the
#: model's tree (``mjCModel::Signature``, ``src/user/user_model.cc``), walking it with
#: ``PrintTree``, which throws "depth limit exceeded in signature computation" at a body 1024
#: deep (the world is 0 deep), whatever the file format (MJCF, URDF, a spec built in code).
#: So 1023 nested bodies compile and 1024 do not (checked in ``tests/test_big_models.py``).
MUJOCO_MAX_BODY_DEPTH = 1023


class MuJoCoDepthWarning(UserWarning):
    """An export in a format MuJoCo also reads (URDF, SDF, USD) of a tree deeper than
    :data:`MUJOCO_MAX_BODY_DEPTH`: written (other engines load it), but MuJoCo refuses it."""


def too_deep_for_mujoco(model: Model) -> tuple[str, int, str] | None:
    """``(body, depth, words)`` for the deepest body of ``model`` when it lies deeper than
    :data:`MUJOCO_MAX_BODY_DEPTH` below the world, else None. ``words`` say it in one line:
    the body, its depth, the last bodies of its chain and the limit. One pass over the joints
    (parents first), no recursion."""
    depth: dict[str | None, int] = {None: 0}
    for joint in model.ordered_joints():
        depth[joint.child_body] = depth[joint.parent_body] + 1
    deepest = max(model.bodies, key=lambda name: depth[name])
    if depth[deepest] <= MUJOCO_MAX_BODY_DEPTH:
        return None
    chain = [deepest]
    while len(chain) < 3:
        parent = model.parent_joint(chain[-1]).parent_body
        if parent is None:
            break
        chain.append(parent)
    path = " -> ".join(["world", "...", *reversed(chain)])
    words = (
        f"lies {depth[deepest]} bodies deep ({path}); MuJoCo builds at most "
        f"{MUJOCO_MAX_BODY_DEPTH} nested bodies"
    )
    return deepest, depth[deepest], words


def mujoco_depth_error(model: Model, what: str) -> ModelError | None:
    """The :class:`~rigidparts.ModelError` for a tree MuJoCo cannot build
    (:func:`too_deep_for_mujoco`), naming the body, its depth and the limit, then ``what``
    (what to do instead); None when the tree is not too deep."""
    found = too_deep_for_mujoco(model)
    if found is None:
        return None
    body, _, words = found
    return ModelError(f"bodies.{body}", body, f"{words}: {what}")


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
    model: Model,
    sections: int,
    geometries: dict[str, Geometry] | None = None,
    native: frozenset[str] = NATIVE_KINDS,
) -> tuple[dict[str, Any], dict[str, str]]:
    """``({mesh name: trimesh}, {body: mesh name})`` for the bodies drawn as meshes: one mesh
    per distinct shape, dimensions and axes (the first body's name), so a chain of 1000 equal
    links builds, writes and compiles one mesh. ``geometries``: each body's
    :func:`body_geometry`, when known; ``native``: the format's native kinds."""
    meshes: dict[str, Any] = {}
    mesh_of: dict[str, str] = {}
    first: dict[tuple[Any, ...], str] = {}
    for name, body in model.bodies.items():
        geometry = body_geometry(body, native) if geometries is None else geometries[name]
        if geometry.kind != "mesh":
            continue
        key = body.mesh_key() or (name,)  # None: a mesh object, its own mesh
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
