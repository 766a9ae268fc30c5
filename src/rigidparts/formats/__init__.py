"""Reading robot description files (URDF, MJCF, SDFormat, USD) into the neutral
:class:`~rigidparts.formats.description.Description`, and from it into a Model.

:func:`load_model` is ``rp.load_model``: a rigidparts model file (``.toml``) or a robot
description file, chosen by the suffix (``.urdf``; ``.xml`` / ``.mjcf`` for MJCF; ``.sdf`` /
``.world``; ``.usd``, ``.usda``, ``.usdc``); :func:`read_description` gives the file as read
(declared inertials, geometry, joints), which ``rigidparts check`` compares and repairs.
"""

from __future__ import annotations

import os
from importlib import import_module
from pathlib import Path
from typing import Any

from ..errors import ModelError

__all__ = ["FORMATS", "format_of", "load_model", "read_description"]

#: Suffix -> reader module (``rigidparts.formats.<name>``), whose ``read(path, *,
#: search_path=())`` returns a :class:`~rigidparts.formats.description.Description`.
FORMATS = {
    ".urdf": "urdf",
    ".xml": "mjcf",
    ".mjcf": "mjcf",
    ".sdf": "sdf",
    ".world": "sdf",
    ".usd": "usd",
    ".usda": "usd",
    ".usdc": "usd",
}


def format_of(path: str | os.PathLike[str]) -> str:
    """The reader's name for ``path``'s suffix; ModelError naming the file otherwise."""
    suffix = Path(path).suffix.lower()
    try:
        return FORMATS[suffix]
    except KeyError:
        known = ", ".join(sorted({".toml", *FORMATS}))
        raise ModelError(
            "path", os.fspath(path), f"unknown model file suffix {suffix!r}: one of {known}"
        ) from None


def read_description(path: str | os.PathLike[str], *, search_path: Any = ()) -> Any:
    """The :class:`~rigidparts.formats.description.Description` of a URDF, MJCF, SDFormat or
    USD file (by its suffix), as declared: nothing validated, nothing repaired."""
    reader = import_module(f"{__name__}.{format_of(path)}")
    return reader.read(path, search_path=tuple(search_path))


def load_model(path: str | os.PathLike[str], *, search_path: Any = ()) -> Any:
    """A :class:`~rigidparts.Model` from a rigidparts model file (``.toml``) or a robot
    description file (URDF, MJCF, SDFormat, USD: :mod:`rigidparts.formats.to_model`).
    ``search_path``: folders where ``package://`` and ``model://`` meshes are looked for."""
    if Path(path).suffix.lower() == ".toml":
        from ..model import load_model as load_toml

        return load_toml(path)
    from .to_model import model_from_description

    return model_from_description(read_description(path, search_path=search_path))
