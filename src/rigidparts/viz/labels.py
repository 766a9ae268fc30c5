"""Frame and joint labels: where they go on the screen, and drawing them.

Each label sits below and to the left of its point on the screen, clear of the triad's arrows,
joined to it by a thin leader (gid ``"label_leader"``); frames at the same point share one label
(names on separate lines); labels that would overlap each other, a centre-of-mass marker or the
legend move to another corner, further out, or down the screen (:func:`place_labels`). Frame
labels have gid ``"label"``, joint labels ``"joint_label"``.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

from .scene import JOINT_COLOR, LABEL_SIZE, short_text

__all__ = ["LABEL_PLACES", "draw_labels", "legend_box", "merge_coincident", "place_labels"]

#: Where a label may sit relative to its point, in order of preference: screen directions
#: (right, up) of the offset, and the text alignment that keeps the box on that side.
LABEL_PLACES = (
    ((-1.0, -1.0), "right", "top"),
    ((1.0, -1.0), "left", "top"),
    ((-1.0, 1.0), "right", "bottom"),
    ((1.0, 1.0), "left", "bottom"),
)

Rect = tuple[float, float, float, float]  # x0, y0, x1, y1 on the screen, pixels


#: The box drawn round a label: matplotlib's ``round`` box style with this pad, in font sizes.
LABEL_PAD = 0.2
#: The least gap between two labels' boxes, pixels.
LABEL_GAP = 2.0


def _text_size_px(ax: Any, text: str, fontsize: float) -> tuple[float, float, float]:
    """``(width, height, pad)`` in pixels of ``text`` (lines) at ``fontsize`` points on the
    figure of ``ax``: the text as matplotlib lays it out (measured by the canvas' renderer;
    estimated from the glyphs' widths and 1.2 font sizes a line without one) and the pad of
    the box drawn round it (:data:`LABEL_PAD` font sizes on each side)."""
    scale = ax.figure.dpi / 72.0
    pad = LABEL_PAD * fontsize * scale
    try:
        renderer = ax.figure.canvas.get_renderer()
    except AttributeError:  # pragma: no cover - backends without a renderer at hand
        renderer = None
    if renderer is not None:
        from matplotlib.text import Text

        probe = Text(0.0, 0.0, text, fontsize=fontsize, figure=ax.figure)
        extent = probe.get_window_extent(renderer)
        return float(extent.width), float(extent.height), pad
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextToPath

    prop = FontProperties(size=fontsize)
    measure = TextToPath()
    lines = text.split("\n")
    width = max(
        measure.get_text_width_height_descent(line, prop, ismath=False)[0] for line in lines
    )
    return width * scale, 1.2 * fontsize * len(lines) * scale, pad


def legend_box(ax: Any, legend: Any) -> list[Rect]:
    """The legend's box on the screen (pixels), when the canvas can measure it; else none."""
    try:
        renderer = ax.figure.canvas.get_renderer()
    except AttributeError:  # pragma: no cover - backends without a renderer at hand
        return []
    ax.apply_aspect()  # the legend sits in the axes' final box
    extent = legend.get_window_extent(renderer)
    return [(extent.x0, extent.y0, extent.x1, extent.y1)]


def place_labels(
    ax: Any,
    labels: list[str],
    points: list[np.ndarray],
    offset: float,
    right: np.ndarray,
    up: np.ndarray,
    fontsize: float,
    obstacles: Sequence[np.ndarray] = (),
    avoid: Sequence[Rect] = (),
) -> list[tuple[np.ndarray, str, str]]:
    """``(3-D anchor, ha, va)`` per label so that no two boxes overlap on the screen nor
    cover a point of ``obstacles`` (centre-of-mass markers) or a box of ``avoid`` (pixels:
    the legend).

    Greedy, top of the screen first: each label takes the first free corner of
    :data:`LABEL_PLACES` at ``offset`` (m) from its point, then at 2.5 and 4 times that; when
    all are taken it goes below-left and moves down the screen (along ``-up``) until clear.
    """
    from mpl_toolkits.mplot3d import proj3d

    ax.apply_aspect()  # the axes' final position, as drawing would set it
    projection = ax.get_proj()

    def to_pixels(point: np.ndarray) -> np.ndarray:
        x, y, _ = proj3d.proj_transform(*point, projection)
        return np.asarray(ax.transData.transform((x, y)))

    def box(x: float, y: float, w: float, h: float, ha: str, va: str) -> Rect:
        # The drawn box: the text beside the anchor, the pad round it on every side (so the
        # box reaches ``pad`` past the anchor too), and half the gap to the next box.
        x0 = x - w if ha == "right" else x
        y0 = y - h if va == "top" else y
        grow = pad + 0.5 * LABEL_GAP
        return (x0 - grow, y0 - grow, x0 + w + grow, y0 + h + grow)

    def overlaps(a: Rect, b: Rect) -> bool:
        return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]

    marker = 9.0  # half the size of a centre-of-mass marker, pixels
    taken: list[Rect] = [tuple(b) for b in avoid]  # type: ignore[misc]
    for point in obstacles:
        px, py = to_pixels(point)
        taken.append((px - marker, py - marker, px + marker, py + marker))
    out: list[tuple[np.ndarray, str, str]] = [(p, "right", "top") for p in points]
    pad = 0.0
    for i in sorted(range(len(labels)), key=lambda i: -to_pixels(points[i])[1]):
        width, height, pad = _text_size_px(ax, labels[i], fontsize)
        for reach, ((sx, sy), ha, va) in itertools.product((1.0, 2.5, 4.0), LABEL_PLACES):
            anchor = points[i] + reach * offset * (sx * right + sy * up)
            candidate = box(*to_pixels(anchor), width, height, ha, va)
            if not any(overlaps(candidate, b) for b in taken):
                break
        else:
            anchor = points[i] - offset * (right + up)
            ha, va = "right", "top"
            # Down the screen until clear: each step moves the box's top just below the
            # lowest box it meets, through the local rate of pixels per metre along -up;
            # the box is then measured again where the anchor projects (a perspective view
            # is not linear), so it ends clear, not a pixel short.
            for _ in range(2 * len(taken) + 8):
                x, y = to_pixels(anchor)
                candidate = box(x, y, width, height, ha, va)
                hit = [b for b in taken if overlaps(candidate, b)]
                if not hit:
                    break
                shift = candidate[3] - min(b[1] for b in hit) + 1.0
                step = 1e-3 * offset
                rate = float(np.linalg.norm(to_pixels(anchor - step * up) - (x, y))) / step
                anchor = anchor - up * (shift / max(rate, 1e-300))
        taken.append(candidate)
        out[i] = (anchor, ha, va)
    return out


def merge_coincident(
    frames: list[tuple[str, np.ndarray, np.ndarray]], tolerance: float
) -> list[tuple[str, np.ndarray]]:
    """``(label, point)``: frames ``(label, origin, R_WF)`` whose origins are within
    ``tolerance`` (m, on each coordinate; an origin may be a track, the origins at several
    instants one after the other) share one label, their names on separate lines.

    Greedy in the given order: a frame joins the first group (in order of creation) whose
    first origin is within ``tolerance`` of its own, else starts a group. The candidates are
    found through a grid of cells ``tolerance`` wide over the first point's three coordinates
    (two points within ``tolerance`` lie in the same or neighbouring cells): expected time
    linear in the number of frames, not quadratic."""
    names: list[list[str]] = []
    wheres: list[np.ndarray] = []
    cells: dict[tuple[int, ...], list[int]] = {}
    near = np.array(list(itertools.product((-1, 0, 1), repeat=3)), dtype=np.int64)
    for label, origin, _ in frames:
        point = np.asarray(origin, dtype=np.float64).reshape(-1)
        if tolerance > 0.0 and np.all(np.isfinite(point[:3])):
            base = np.floor(point[:3] / tolerance)
            if np.all(np.abs(base) < 2.0**62):
                keys = list(map(tuple, (base.astype(np.int64) + near).tolist()))
            else:  # beyond int64: Python's integers
                whole = [int(v) for v in base]
                keys = [
                    tuple(c + int(d) for c, d in zip(whole, step, strict=True)) for step in near
                ]
            cell = keys[13]  # the middle of the 27: the point's own cell
        else:  # no width: only equal points meet
            cell = ("exact", *point[:3].tolist())  # type: ignore[assignment]
            keys = [cell]
        candidates = sorted(i for key in keys for i in cells.get(key, ()))
        for i in candidates:
            where = wheres[i]
            if where.shape == point.shape and float(np.max(np.abs(where - point))) <= tolerance:
                names[i].append(label)
                break
        else:
            cells.setdefault(cell, []).append(len(names))
            names.append([label])
            wheres.append(point)
    return [("\n".join(group), where) for group, where in zip(names, wheres, strict=True)]


def draw_labels(
    ax: Any,
    frame_labels: list[tuple[str, np.ndarray]],
    joint_labels: list[tuple[str, np.ndarray]],
    *,
    offset: float,
    right: np.ndarray,
    up: np.ndarray,
    obstacles: Sequence[np.ndarray] = (),
    legend: Any = None,
) -> None:
    """Draw the ``(label, point)`` frame and joint labels with their leaders, placed by
    :func:`place_labels` at ``offset`` (m) from their points, clear of ``obstacles`` (points,
    m) and of the ``legend``. Call it after the axes' limits and view are set."""

    def shown(label: str) -> str:  # each name on its line, cut for display
        return "\n".join(short_text(name, lines=1) for name in short_text(label).split("\n"))

    items = [(shown(label), point, "label") for label, point in frame_labels]
    items += [(shown(label), point, "joint_label") for label, point in joint_labels]
    placed = place_labels(
        ax,
        [label for label, _, _ in items],
        [point for _, point, _ in items],
        offset,
        right,
        up,
        LABEL_SIZE,
        obstacles=obstacles,
        avoid=legend_box(ax, legend) if legend is not None else (),
    )
    for (label, point, kind), (position, ha, va) in zip(items, placed, strict=True):
        joint = kind == "joint_label"
        (leader,) = ax.plot(
            *np.array([point, position]).T,
            color=JOINT_COLOR if joint else "#444444",
            linewidth=1.0,
            zorder=5.5,
        )
        leader.set_gid("label_leader")
        text = ax.text(
            *position,
            label,
            ha=ha,
            va=va,
            fontsize=LABEL_SIZE,
            color=JOINT_COLOR if joint else "#111111",
            style="italic" if joint else "normal",
            zorder=6,
            bbox={
                "boxstyle": f"round,pad={LABEL_PAD}",
                "fc": "white",
                "ec": JOINT_COLOR if joint else "#999999",
                "alpha": 0.85,
            },
        )
        text.set_gid(kind)
