"""Pictures and animations of bodies and models (matplotlib; needs the ``viz`` extra).

- :func:`plot` ``(target, ax=None, **options)``: draw a body or a model on a 3-D axes (a new
  figure when ``ax`` is None); returns the axes. :func:`plot_body` and :func:`plot_model` are
  the two cases; :func:`new_axes` makes a figure of a given size in pixels.
- :func:`rigidparts.viz.animate.animate`: a GIF or MP4 of a simulation result.
- :func:`view` ``(target, path, *, result=None, **options)``: write a body or a model to
  ``path``, the format from the suffix: ``.html`` an interactive 3-D viewer in one
  self-contained file (:func:`write_html`, :mod:`.html`; with ``result`` the simulation plays
  back), ``.png`` / ``.svg`` / ``.pdf`` / ``.jpg`` a picture, ``.gif`` / ``.mp4`` an animation.

The package, one job per module: :mod:`.geometry` (world-coordinate geometry: placed bodies,
drawable meshes, the inertia ellipsoid, frame triads, the camera), :mod:`.scene` (what a picture
shows, its options, colours, titles and framing box), :mod:`.draw` (the parts on the axes),
:mod:`.labels` (label placement), :mod:`.figure` (figure and axes), :mod:`.plotting` (the entry
points), :mod:`.animate`; the HTML viewer: :mod:`.html` (the scene), :mod:`.threejs` (its
three.js objects), :mod:`.html_page` (the page and meshcat's inlined viewer).

Importing this package imports nothing heavy: the names above load :mod:`.plotting` on first
use, and matplotlib loads when something is drawn.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

__all__ = ["new_axes", "plot", "plot_body", "plot_model", "view", "write_html"]

#: Public name -> the module that defines it (imported on first use).
_LAZY = {
    "plot": ".plotting",
    "plot_body": ".plotting",
    "plot_model": ".plotting",
    "new_axes": ".figure",
    "view": ".html",
    "write_html": ".html",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(import_module(_LAZY[name], __name__), name)
        globals()[name] = value  # later look-ups skip this function
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
