"""Pictures and animations of bodies and models (matplotlib; needs the ``viz`` extra).

- :func:`rigidparts.viz.render.plot_body` / ``body.plot(ax=None, **options)``: one body, its
  frames, centre of mass and optionally its equivalent inertia ellipsoid, on a 3-D axes.
- :func:`rigidparts.viz.render.plot_model` / ``model.plot(...)``: every body of a model at a
  joint configuration.
- :func:`rigidparts.viz.animate.animate`: a GIF or MP4 of a simulation result.
- :mod:`rigidparts.viz.commands`: the ``rigidparts mesh`` and ``rigidparts view`` commands.

Importing this package imports nothing heavy; matplotlib loads with :mod:`.render`.
"""

from __future__ import annotations

__all__: list[str] = []
