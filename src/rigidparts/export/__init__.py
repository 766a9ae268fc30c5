"""Export a :class:`~rigidparts.model.Model` to the engines' formats: MJCF (MuJoCo), URDF
(MuJoCo, Pinocchio, Drake) and SDFormat (Drake, Gazebo).

Every format gets the mass properties exactly as rigidparts computes them (``repr`` floats, the
format's own reference point and ordering, nothing left for the engine to recompute), native
boxes and cylinders where the format has them, OBJ meshes beside the file for cones and hollow
bodies, and the named frames. Files are written atomically, meshes first. Conventions per
format: :mod:`.mjcf`, :mod:`.urdf`, :mod:`.sdf`, and ``docs/models.md``.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import ParameterError

__all__ = ["FORMATS", "SUFFIXES", "export", "format_from_suffix"]

#: The formats, by name.
FORMATS = ("mjcf", "urdf", "sdf")

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


def export(model, path, format=None, *, sections: int = 64) -> str:  # type: ignore[no-untyped-def]
    """Write ``model`` to ``path`` as ``format`` (default: from the suffix); returns the XML."""
    chosen = format_from_suffix(path) if format is None else str(format).lower()
    if chosen not in FORMATS:
        raise ParameterError("format", format, f"must be one of {', '.join(FORMATS)}")
    if chosen == "mjcf":
        from .mjcf import to_mjcf

        return to_mjcf(model, path, sections=sections)
    if chosen == "urdf":
        from .urdf import to_urdf

        return to_urdf(model, path, sections=sections)
    from .sdf import to_sdf

    return to_sdf(model, path, sections=sections)
