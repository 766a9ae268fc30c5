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
from collections.abc import Callable
from pathlib import Path

from ..errors import ParameterError
from ..fileio import check_output, forcing
from ..model import Model
from ._common import mesh_folder
from .mjcf import to_mjcf
from .sdf import to_sdf
from .urdf import to_urdf
from .usd import to_usd

__all__ = [
    "FORMATS",
    "SUFFIXES",
    "check_format",
    "export",
    "format_from_suffix",
    "to_mjcf",
    "to_sdf",
    "to_urdf",
    "to_usd",
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
    ``force``."""
    chosen = check_format(path, format)
    check_output(path, force=force, folder_too=mesh_folder(path)[1])
    with forcing(force):
        return WRITERS[chosen](model, path, sections=sections)
