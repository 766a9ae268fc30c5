"""The entry points: :func:`plot` (a body or a model), :func:`plot_body`, :func:`plot_model`, and
:func:`draw_scene`, which puts the parts of a picture together.

What a picture shows (all lengths in metres, in world coordinates = frame_a of a single body):
each body's shaded, semi-transparent mesh in its colour (:mod:`rigidparts.appearance`; an
invisible body's mesh left out) with its sharp edges outlined (:mod:`.draw`); a triad
per frame along the frame's own axes (x red, y green, z blue; 0.15 of the scene's largest
extent), labelled with the frame's name (``body.frame`` in a model; :mod:`.labels`); the
centre of mass as a circled cross; optionally (``inertia=True``) the equivalent inertia
ellipsoid; a model's joint axes; a title with the body's class, material and mass (kg); a
legend of the symbols and units. The axes use one scale for x, y and z (:mod:`.figure`).

Importing this module imports no matplotlib; drawing does (``pip install 'rigidparts[viz]'``).
"""

from __future__ import annotations

from typing import Any

from ..appearance import appearance
from ..component import Component
from ..errors import ParameterError
from .draw import (
    draw_bodies,
    draw_centres_of_mass,
    draw_inertia_ellipsoids,
    draw_joints,
    draw_triads,
)
from .figure import (
    DEFAULT_SIZE,
    DEFAULT_VIEW,
    add_legend,
    add_title,
    check_axes,
    check_view,
    fit_axes,
    new_axes,
    require_matplotlib,
)
from .geometry import PlacedBody, frame_triads, screen_axes
from .labels import draw_labels, merge_coincident
from .scene import (
    TRIAD_FRACTION,
    Scene,
    body_title,
    joint_marks,
    make_scene,
    model_title,
    placed_model,
    scene_limits,
)

__all__ = ["draw_scene", "plot", "plot_body", "plot_model"]


def draw_scene(ax: Any, scene: Scene, *, limits: Any = None, view: Any = None) -> Any:
    """Draw ``scene`` on the 3-D axes ``ax`` (module docstring); returns ``ax``.

    ``limits`` = :func:`~.scene.scene_limits` output (computed from ``scene`` when None);
    ``view`` = ``(elevation, azimuth)`` in degrees (default :data:`~.figure.DEFAULT_VIEW`).
    Sets ``ax.computed_zorder = False``: the parts keep their own drawing order.
    """
    require_matplotlib()
    check_axes(ax)
    elev, azim = check_view(DEFAULT_VIEW if view is None else view)
    if limits is None:
        limits = scene_limits([scene])
    low, high, default_triad = limits
    triad = default_triad if scene.triad_length is None else float(scene.triad_length)
    ax.computed_zorder = False

    draw_bodies(ax, scene, elev, azim)
    if scene.inertia:
        draw_inertia_ellipsoids(ax, scene.bodies)
    joint_labels = draw_joints(ax, scene.joints, triad)
    frames = [
        item
        for placed in scene.bodies
        for item in frame_triads(placed, scene.frame_names(placed.body))
    ]
    draw_triads(ax, frames, triad)
    coms = draw_centres_of_mass(ax, scene.bodies) if scene.com else []

    fit_axes(ax, low, high, elev, azim)
    add_title(ax, scene.title, scene.note)
    legend = add_legend(
        ax,
        triad=triad if frames else None,
        com=scene.com,
        joint_axes=any(mark.axis is not None for mark in scene.joints),
        inertia=scene.inertia,
    )
    if scene.labels and (frames or joint_labels):
        right, up = screen_axes(elev, azim)
        draw_labels(
            ax,
            merge_coincident(frames, tolerance=1e-6 * triad / TRIAD_FRACTION),
            joint_labels,
            offset=0.12 * triad,
            right=right,
            up=up,
            obstacles=list(coms),
            legend=legend,
        )
    return ax


def plot_body(
    body: Any,
    ax: Any = None,
    *,
    size: tuple[int, int] = DEFAULT_SIZE,
    view: Any = None,
    title: str | bool = True,
    color: Any = None,
    opacity: Any = None,
    visible: Any = None,
    **options: Any,
) -> Any:
    """Draw one body in its frame_a with its frames and centre of mass; returns the axes.

    Parameters
    ----------
    body : a rigidparts body (any shape: drawn from ``body.mesh()`` and ``body.frames``).
    ax : a matplotlib 3-D axes to draw on, or None for a new pyplot figure of ``size`` pixels.
    view : ``(elevation, azimuth)`` in degrees (default :data:`~.figure.DEFAULT_VIEW`).
    title : True for the body's class, material and mass; a string; or False for none.
    color, opacity, visible : the body's appearance (:func:`rigidparts.appearance.appearance`:
        a CSS colour name, ``"#rrggbb"`` or three numbers in [0, 1]; opacity 0..1; None for
        the default: the first colour of the palette, opaque, visible). An invisible body's
        frames and centre of mass are still drawn.
    options : ``sections`` (48, segments around round surfaces), ``frames`` (True, False or
        names to draw), ``labels`` (True), ``com`` (True), ``inertia`` (False: the equivalent
        inertia ellipsoid), ``edges`` (True: outline sharp edges), ``alpha`` (0.8, the
        picture's face opacity, multiplied by each body's opacity), ``colors`` (a colour or a
        list of colours, in turn, replacing the bodies' own), ``triad_length`` (m; default
        0.15 of the extent).

    Returns the ``Axes3D``; ``ax.figure`` is its figure. Frame labels are the axes' texts.
    """
    looks = appearance(color, opacity, visible)  # checked before any figure is made
    if ax is None:
        ax = new_axes(size)
    text = body_title(body) if title is True else title
    scene = make_scene([PlacedBody(body, appearance=looks)], text, options)
    return draw_scene(ax, scene, view=view)


def plot_model(
    model: Any,
    ax: Any = None,
    q: Any = None,
    *,
    size: tuple[int, int] = DEFAULT_SIZE,
    view: Any = None,
    title: str | bool = True,
    **options: Any,
) -> Any:
    """Draw every body of ``model`` at the joint positions ``q`` (a mapping joint name ->
    value; default: the initial ones) with its joint axes; returns the axes. Options as
    :func:`plot_body` (each body drawn as :meth:`~rigidparts.model.Model.appearance` says; a
    ``color`` / ``opacity`` / ``visible`` option is refused: they belong to each body, set by
    ``Model.add_body`` / ``Model.set_appearance`` or the model file's body keys); frame
    labels read ``body.frame``."""
    for key in ("color", "opacity", "visible"):
        if key in options:
            raise ParameterError(
                key,
                options[key],
                "is set per body of a model: Model.add_body(..., color=...), "
                "Model.set_appearance(NAME, ...) or the body's 'color' key in the model file "
                "(or give colors=[...] for the picture)",
            )
    if ax is None:
        ax = new_axes(size)
    text = model_title(model) if title is True else title
    bodies = placed_model(model, q)
    scene = make_scene(bodies, text, options)
    scene.joints = joint_marks(model, {p.name: (p.rotation, p.position) for p in bodies})
    return draw_scene(ax, scene, view=view)


def plot(target: Any, ax: Any = None, **options: Any) -> Any:
    """Draw a body (any :class:`~rigidparts.component.Component`) or a
    :class:`~rigidparts.model.Model` on the 3-D axes ``ax`` (None: a new pyplot figure);
    returns the axes.

    Options: ``size``, ``view``, ``title`` and the drawing options of :func:`plot_body`; for a
    model also ``q`` (joint positions, :func:`plot_model`). Needs matplotlib: ``pip install
    'rigidparts[viz]'`` (an ImportError saying so otherwise).
    """
    require_matplotlib()
    if isinstance(target, Component):
        return plot_body(target, ax, **options)
    from ..model import Model  # only for a model: a body draws without the model package

    if isinstance(target, Model):
        return plot_model(target, ax, **options)
    raise ParameterError(
        "target", type(target).__name__, "must be a rigidparts body or a rigidparts.model.Model"
    )
