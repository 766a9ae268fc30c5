"""Export a :class:`~rigidparts.model.Model` to the engines' formats: MJCF (MuJoCo), URDF
(MuJoCo, Pinocchio, Drake, pybullet), SDFormat (Drake, Gazebo) and USD (Isaac Sim, Newton;
single-precision mass properties: :mod:`.usd`).

>>> from rigidparts.export import export
>>> export(model, "robot.urdf")              # the format from the suffix, or format="urdf"
>>> from rigidparts.export.mjcf import to_mjcf
>>> xml = to_mjcf(model)                     # the text alone (meshes embedded)

Every format gets the mass properties exactly as rigidparts computes them (``repr`` floats, the
format's own reference point and ordering, nothing left for the engine to recompute), the native
box, cylinder or sphere of the body's shape specification where there is one, OBJ meshes beside
the file for every other body, and the named frames with their rotations. The model file and its
meshes are written all or nothing (staged, then moved into place). Conventions per format:
:mod:`.mjcf`, :mod:`.urdf`, :mod:`.sdf`, and ``docs/models.md``.

This package imports the model and the core only (never sim, viz or the command line).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from pathlib import Path

from ..errors import ParameterError, merged_warnings
from ..fileio import check_output, forcing
from ..model import Model
from ._common import (
    MUJOCO_MAX_BODY_DEPTH,
    MuJoCoDepthWarning,
    mesh_folder,
    mujoco_depth_error,
    too_deep_for_mujoco,
)
from .mjcf import to_mjcf
from .sdf import to_sdf
from .urdf import to_urdf
from .usd import to_usd

__all__ = [
    "FORMATS",
    "SUFFIXES",
    "MuJoCoDepthWarning",
    "check_format",
    "export",
    "format_from_suffix",
    "mujoco_depth_warning",
    "to_mjcf",
    "to_sdf",
    "to_urdf",
    "to_usd",
    "urdf_link_depth",
]

#: Format name -> writer ``(model, path, *, sections) -> XML text``.
WRITERS: dict[str, Callable[..., str]] = {
    "mjcf": to_mjcf,
    "urdf": to_urdf,
    "sdf": to_sdf,
    "usd": to_usd,  # returns the .usda text whatever the suffix
}

#: The formats, by name.
FORMATS = tuple(WRITERS)

#: File suffix -> format.
SUFFIXES = {".xml": "mjcf", ".mjcf": "mjcf", ".urdf": "urdf", ".sdf": "sdf", ".usda": "usd",
            ".usdc": "usd", ".usd": "usd"}  # fmt: skip


def format_from_suffix(path: str | os.PathLike[str]) -> str:
    """The format of ``path`` by its suffix (.xml/.mjcf, .urdf, .sdf, .usda/.usdc/.usd)."""
    suffix = Path(path).suffix.lower()
    if suffix not in SUFFIXES:
        raise ParameterError(
            "format",
            str(path),
            "cannot tell the format from the suffix (use .xml/.mjcf, .urdf, .sdf or "
            ".usda/.usdc/.usd, or give the format: mjcf, urdf, sdf, usd)",
        )
    return SUFFIXES[suffix]


def check_format(path: str | os.PathLike[str], format: str | None = None) -> str:
    """The format to write ``path`` in: ``format`` (checked), or the one of the suffix.
    :class:`ParameterError` for an unknown format, an unknown suffix without a format, or a
    suffix of another format (``robot.urdf`` with ``format="sdf"``)."""
    if format is None:
        return format_from_suffix(path)
    chosen = str(format).lower()
    if chosen not in WRITERS:
        raise ParameterError("format", format, f"must be one of {', '.join(FORMATS)}")
    implied = SUFFIXES.get(Path(path).suffix.lower())
    if implied is not None and implied != chosen:
        raise ParameterError(
            "format",
            format,
            f"contradicts the suffix of {os.fspath(path)} (a {implied} file): give the output "
            f"a suffix of {chosen} ({', '.join(s for s, f in SUFFIXES.items() if f == chosen)}) "
            "or leave the format out",
        )
    return chosen


def export(
    model: Model,
    path: str | os.PathLike[str],
    format: str | None = None,
    *,
    sections: int = 64,
    force: bool = False,
) -> str:
    """Write ``model`` to ``path`` as ``format`` (``"mjcf"``, ``"urdf"``, ``"sdf"``, ``"usd"``;
    default: from the suffix, which must not name another format), with the meshes of
    non-primitive bodies (``sections`` segments around round surfaces) in ``<stem>_meshes/``
    beside it (USD: inside the file). Returns the XML text written (USD: the ``.usda`` text).

    All or nothing (:func:`rigidparts.fileio.atomic_files`): the model file and its meshes are
    staged beside the target and moved into place last, so an error, Ctrl-C or SIGTERM leaves
    the old export as it was. A symlink is written through, a file keeps its permissions, a
    missing folder is created; a read-only file is refused (:class:`PermissionError`) unless
    ``force``.

    A tree deeper than MuJoCo builds (:data:`._common.MUJOCO_MAX_BODY_DEPTH` nested bodies) is
    checked first: as MJCF a :class:`~rigidparts.ModelError` naming the body (nothing is
    written); in the other formats (which MuJoCo reads too) a :class:`MuJoCoDepthWarning`, and
    the file is written for the engines without that limit. Warnings that merge (the capped
    holes of a STEP model's meshes, one per body) are issued once per file, at the end
    (:func:`rigidparts.errors.merged_warnings`)."""
    chosen = check_format(path, format)
    check_output(path, force=force, folder_too=mesh_folder(path)[1])
    depth_warning = mujoco_depth_warning(model, chosen)
    if depth_warning is not None:
        warnings.warn(MuJoCoDepthWarning(depth_warning), stacklevel=2)
    with forcing(force), merged_warnings():  # a STEP model's capped meshes: one warning
        return WRITERS[chosen](model, path, sections=sections)


def mujoco_depth_warning(model: Model, format: str) -> str | None:
    """MuJoCo's depth limit (:data:`._common.MUJOCO_MAX_BODY_DEPTH` nested bodies) for an
    export of ``model`` as ``format``: as ``"mjcf"`` a tree deeper than that is a
    :class:`~rigidparts.ModelError` (raised; nothing is written); in another format the one
    line of a warning is returned (the command line prints it, :func:`export` warns), None
    when MuJoCo builds the tree. A URDF nests deeper than the bodies, since each named frame is
    a link (:func:`urdf_link_depth`): MuJoCo refuses it already when that depth is over the
    limit."""
    if format == "mjcf":
        error = mujoco_depth_error(
            model,
            "MuJoCo cannot load it, so no MJCF is written: export URDF or SDF for engines "
            "without that limit, or shorten the chain",
        )
        if error is not None:
            raise error
        return None
    written = f"this {format.upper()} file is written for engines without that limit"
    found = too_deep_for_mujoco(model)
    if found is not None:
        body, _, words = found
        return f"body {body!r} {words} (MuJoCo refuses this model): {written}"
    if format == "urdf":
        link, depth = urdf_link_depth(model)
        if depth > MUJOCO_MAX_BODY_DEPTH:
            return (
                f"link {link!r} of the URDF lies {depth} links deep (each frame is a link); "
                f"MuJoCo builds at most {MUJOCO_MAX_BODY_DEPTH} nested bodies, so it refuses "
                f"this URDF (the MJCF export loads): {written}"
            )
    return None


def urdf_link_depth(model: Model) -> tuple[str, int]:
    """``(link, depth)``: the deepest link of the URDF export of ``model`` and its depth below
    the ``world`` link, from the layout :mod:`.urdf` writes: a body held by its joint at
    frame_a is one link below its parent body's link, one held at another frame C two (the
    frame link ``B.C``, then the body's link), and each body's named frames are links one
    below its link. One pass over the joints (parents first)."""
    depth: dict[str | None, int] = {None: 0}
    for joint in model.ordered_joints():
        step = 1 if joint.child_frame == "frame_a" else 2
        depth[joint.child_body] = depth[joint.parent_body] + step
    deepest = max(model.bodies, key=lambda name: depth[name])
    frames = [
        f for f in model.bodies[deepest].frames if f != model.parent_joint(deepest).child_frame
    ]
    if frames:
        return f"{deepest}.{frames[-1]}", depth[deepest] + 1
    return deepest, depth[deepest]
