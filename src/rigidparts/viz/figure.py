"""The figure and its 3-D axes: creation (:func:`new_axes`), size and viewpoint checks, and the
axes' dressing once the scene is drawn (limits on one scale, ticks, view, title, legend).

Nothing here picks a matplotlib backend: :func:`new_axes` makes a pyplot figure (shown inline
in a notebook) or a standalone figure on an Agg canvas (the command line, animations). Save a
picture with ``ax.figure.savefig(path, dpi="figure")`` to keep its size in pixels.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..errors import ParameterError
from .scene import AXIS_COLORS, ELLIPSOID_COLOR, JOINT_COLOR

__all__ = [
    "DEFAULT_SIZE",
    "DEFAULT_VIEW",
    "DPI",
    "add_legend",
    "add_title",
    "check_axes",
    "check_size",
    "check_view",
    "fit_axes",
    "new_axes",
    "picture_dpi",
    "require_matplotlib",
]

#: Default picture size, pixels (width, height), at :data:`DPI` (other sizes scale the dpi).
DEFAULT_SIZE = (1200, 900)
DPI = 100
#: Default viewpoint ``(elevation, azimuth)``, degrees (matplotlib's convention).
DEFAULT_VIEW = (28.0, -56.0)


def require_matplotlib() -> None:
    """Nothing when matplotlib imports; else a one-line ImportError naming the extra."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise ImportError("drawing needs matplotlib: pip install 'rigidparts[viz]'") from None


def picture_dpi(size: tuple[int, int]) -> float:
    """Dots per inch for a picture of ``size`` pixels: 100 at 1200 x 900 and in proportion,
    so that every size has the layout (and relative font sizes) of the 1200 x 900 one."""
    width, height = size
    return DPI * min(width / DEFAULT_SIZE[0], height / DEFAULT_SIZE[1])


def check_size(size: Any) -> tuple[int, int]:
    """``(width, height)`` in pixels, or :class:`ParameterError` naming ``size``."""
    rule = "must be two whole numbers of pixels from 100 to 10000, e.g. (1200, 900)"
    try:
        width, height = (int(v) for v in size)
        if (width, height) != tuple(size):
            raise ValueError
    except (TypeError, ValueError):
        raise ParameterError("size", size, rule) from None
    if not (100 <= width <= 10000 and 100 <= height <= 10000):
        raise ParameterError("size", size, rule)
    return width, height


def check_view(view: Any) -> tuple[float, float]:
    """``(elevation, azimuth)`` in degrees, or :class:`ParameterError` naming ``view``."""
    rule = "must be two finite angles in degrees (elevation, azimuth), e.g. (24, -56)"
    try:
        elev, azim = (float(v) for v in view)
    except (TypeError, ValueError):
        raise ParameterError("view", view, rule) from None
    if not (math.isfinite(elev) and math.isfinite(azim)):
        raise ParameterError("view", view, rule)
    return elev, azim


def check_axes(ax: Any) -> None:
    """Nothing when ``ax`` is a matplotlib 3-D axes; else :class:`ParameterError`."""
    from mpl_toolkits.mplot3d import Axes3D

    if not isinstance(ax, Axes3D):
        raise ParameterError("ax", ax, "must be a 3-D axes (add_subplot(projection='3d'))")


def new_axes(size: tuple[int, int] = DEFAULT_SIZE, *, pyplot: bool = True) -> Any:
    """A new figure of ``size`` pixels with one 3-D axes; returns the axes. Save it with
    ``ax.figure.savefig(path, dpi="figure")`` to keep the size.

    ``pyplot=True`` registers the figure with pyplot (so a notebook shows it); ``False``
    gives a standalone figure on an Agg canvas (the command line, animations).
    """
    width, height = check_size(size)
    require_matplotlib()
    dpi = picture_dpi((width, height))
    figsize = (width / dpi, height / dpi)
    if pyplot:
        import matplotlib.pyplot as plt

        fig = plt.figure(figsize=figsize, dpi=dpi)
    else:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        fig = Figure(figsize=figsize, dpi=dpi)
        FigureCanvasAgg(fig)
    # The 3-D box fills the figure; the title and the legend sit in its top corners.
    ax = fig.add_axes((0.02, 0.03, 0.96, 0.85), projection="3d")
    return ax


def fit_axes(ax: Any, low: np.ndarray, high: np.ndarray, elev: float, azim: float) -> None:
    """Limits that hold the box ``low`` .. ``high`` (m) on one scale for x, y and z (each
    range at least 30 % of the largest; ``set_box_aspect`` proportional to the ranges), ticks
    in proportion, the viewpoint ``(elev, azim)`` (degrees) and the axis labels."""
    from matplotlib.ticker import MaxNLocator

    centre = 0.5 * (low + high)
    half = 0.5 * (high - low)
    half = np.maximum(half, 0.3 * half.max()) * 1.04
    ax.set_xlim(centre[0] - half[0], centre[0] + half[0])
    ax.set_ylim(centre[1] - half[1], centre[1] + half[1])
    ax.set_zlim(centre[2] - half[2], centre[2] + half[2])
    ax.set_box_aspect(tuple(half / half.max()), zoom=0.92)
    for axis, extent in zip((ax.xaxis, ax.yaxis, ax.zaxis), half / half.max(), strict=True):
        axis.set_major_locator(
            MaxNLocator(nbins=max(2, round(7 * extent)), steps=[1, 2, 2.5, 5, 10])
        )
    ax.view_init(elev=elev, azim=azim)
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    ax.set_zlabel("z (m)")
    for axis in (ax.xaxis, ax.yaxis, ax.zaxis):
        axis.pane.set_alpha(0.25)


def add_title(ax: Any, title: str | None, note: str | None) -> None:
    """The title at the top centre and the ``note`` (e.g. the simulated time) at the top right
    (gid ``"note"``), when given; each cut for display (:func:`.scene.short_text`: a title of
    millions of characters is drawn as quickly as a short one)."""
    from .scene import short_text

    if title:
        ax.set_title(short_text(title), fontsize=14, pad=12)
    if note:
        ax.text2D(
            0.98,
            0.98,
            short_text(note),
            transform=ax.transAxes,
            ha="right",
            va="top",
            fontsize=14,
            family="monospace",
        ).set_gid("note")


def add_legend(ax: Any, *, triad: float | None, com: bool, joint_axes: bool, inertia: bool) -> Any:
    """The legend of the symbols drawn, top left: the triad's x, y, z colours and length
    (``triad`` in m, None when no frames are drawn), the centre-of-mass marker, the joint
    axes, the inertia ellipsoid; its title says the lengths are in m. Returns the legend."""
    from matplotlib.lines import Line2D

    handles = []
    if triad is not None:
        handles += [
            Line2D([], [], color=color, lw=2.5, label=name)
            for name, color in zip("xyz", AXIS_COLORS, strict=True)
        ]
    if com:
        handles.append(
            Line2D(
                [],
                [],
                ls="none",
                marker="o",
                ms=10,
                mfc="white",
                mec="black",
                mew=1.6,
                label="centre of mass",
            )
        )
    if joint_axes:
        handles.append(Line2D([], [], color=JOINT_COLOR, lw=1.8, ls="-.", label="joint axis"))
    if inertia:
        handles.append(Line2D([], [], color=ELLIPSOID_COLOR, lw=1.2, label="inertia ellipsoid"))
    # Smaller in a small axes (a subplot of the user's figure); 10 pt in the default picture.
    ax_height = ax.get_position().height * ax.figure.get_figheight() * 72.0  # points
    legend_size = 10.0 * min(1.0, max(0.65, ax_height / 550.0))
    heading = f"frame axes (length {triad:.3g} m)\n" if triad is not None else ""
    return ax.legend(
        handles=handles,
        loc="upper left",
        title=heading + "lengths in m",
        fontsize=legend_size,
        title_fontsize=legend_size,
        framealpha=0.9,
    )
