"""Export a :class:`~rigidparts.model.Model` to the engines' formats: MJCF (MuJoCo), URDF
(MuJoCo, Pinocchio, Drake) and SDFormat (Drake, Gazebo).

>>> from rigidparts.export import export
>>> export(model, "robot.urdf")              # the format from the suffix, or format="urdf"
>>> from rigidparts.export.mjcf import to_mjcf
>>> xml = to_mjcf(model)                     # the text alone (meshes embedded)

Every format gets the mass properties exactly as rigidparts computes them (``repr`` floats, the
format's own reference point and ordering, nothing left for the engine to recompute), the native
box, cylinder or sphere of the body's shape specification where there is one, OBJ meshes beside
the file for every other body, and the named frames with their rotations. Files are written
atomically, meshes first. Conventions per format: :mod:`.mjcf`, :mod:`.urdf`, :mod:`.sdf`, and
``docs/models.md``.

This package imports the model and the core only (never sim, viz or the command line).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from ..errors import ParameterError
from ..model import Model
from .mjcf import to_mjcf
from .sdf import to_sdf
from .urdf import to_urdf

__all__ = ["FORMATS", "SUFFIXES", "export", "format_from_suffix", "to_mjcf", "to_sdf", "to_urdf"]

#: Format name -> writer ``(model, path, *, sections) -> XML text``.
WRITERS: dict[str, Callable[..., str]] = {"mjcf": to_mjcf, "urdf": to_urdf, "sdf": to_sdf}

#: The formats, by name.
FORMATS = tuple(WRITERS)

#: File suffix -> format.
SUFFIXES = {".xml": "mjcf", ".mjcf": "mjcf", ".urdf": "urdf", ".sdf": "sdf"}


def format_from_suffix(path: str | os.PathLike[str]) -> str:
    """The format of ``path`` by its suffix (.xml/.mjcf, .urdf, .sdf)."""
    suffix = Path(path).suffix.lower()
    if suffix not in SUFFIXES:
        raise ParameterError(
            "format",
            str(path),
            "cannot tell the format from the suffix (use .xml/.mjcf, .urdf or .sdf, or give "
            "the format: mjcf, urdf, sdf)",
        )
    return SUFFIXES[suffix]


def export(
    model: Model,
    path: str | os.PathLike[str],
    format: str | None = None,
    *,
    sections: int = 64,
) -> str:
    """Write ``model`` to ``path`` as ``format`` (``"mjcf"``, ``"urdf"``, ``"sdf"``; default:
    from the suffix), with the meshes of non-primitive bodies (``sections`` segments around
    round surfaces) in ``<stem>_meshes/`` beside it. Returns the XML text written."""
    chosen = format_from_suffix(path) if format is None else str(format).lower()
    if chosen not in WRITERS:
        raise ParameterError("format", format, f"must be one of {', '.join(FORMATS)}")
    return WRITERS[chosen](model, path, sections=sections)
