"""Pictures of bodies and models on a matplotlib 3-D axes.

What a picture shows (all lengths in metres, in world coordinates = frame_a of a single body):

- each body's mesh (:func:`rigidparts.mesh.body_mesh`), its faces shaded by a light that sits
  above and to the left of the viewer (two-sided Lambert shading), semi-transparent so that
  frames inside a body and the bore of a hollow one stay visible, with its sharp edges (faces
  meeting at more than 20 degrees) outlined;
- a triad per frame (x red, y green, z blue; length 0.15 of the scene's largest extent),
  labelled with the frame's name (``frame_a``, ``frame_b``, ``frame_com``, ``frame_c1``, ...;
  ``body.frame`` in a model; frames at the same point share one label);
- the centre of mass, marked with a circled cross;
- optionally (``inertia=True``) the equivalent inertia ellipsoid (:func:`inertia_ellipsoid`);
- a title with the shape, the material and the mass (kg); a legend of the symbols and units.

The axes use one scale for x, y and z (``set_box_aspect`` proportional to equal-unit ranges).
Nothing here picks a matplotlib backend: in a notebook the figure shows inline; the command
line and :mod:`rigidparts.viz.animate` draw on Agg canvases, so no display is needed.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import ParameterError

__all__ = [
    "AXIS_COLORS",
    "DEFAULT_SIZE",
    "DEFAULT_VIEW",
    "JointMark",
    "PlacedBody",
    "Scene",
    "draw_scene",
    "inertia_ellipsoid",
    "joint_marks",
    "new_axes",
    "picture_dpi",
    "placed_model",
    "plot_body",
    "plot_model",
    "scene_limits",
]

#: Default picture size, pixels (width, height), at :data:`DPI` (other sizes scale the dpi).
DEFAULT_SIZE = (1200, 900)
DPI = 100
#: Default viewpoint ``(elevation, azimuth)``, degrees (matplotlib's convention).
DEFAULT_VIEW = (28.0, -56.0)
#: Triad colours: x, y, z.
AXIS_COLORS = ("#d62728", "#2ca02c", "#1f77b4")
#: Body colours, in turn.
BODY_COLORS = ("#8aa9c9", "#d9a36a", "#9cc58f", "#c99ac9", "#d6cc7a", "#9ad0d0", "#d69a9a")
#: Colour of joint axes and their labels.
JOINT_COLOR = "#5a3e8c"
#: Colour of the inertia ellipsoid.
ELLIPSOID_COLOR = "#e07b00"
#: Faces meeting at more than this angle (radians) get an outline.
SHARP_ANGLE = math.radians(20.0)
#: Font size of the frame labels, points.
LABEL_SIZE = 10.5
#: Triad length as a fraction of the scene's largest extent.
TRIAD_FRACTION = 0.15


# -- geometry -----------------------------------------------------------------------------------


def inertia_ellipsoid(mass: float, principal_moments: Sequence[float]) -> np.ndarray:
    """Semi-axes (m) of the uniform solid ellipsoid with the same mass and principal moments.

    A solid ellipsoid of mass ``m`` and semi-axes ``a_x, a_y, a_z`` has ``I_x = m (a_y^2 +
    a_z^2) / 5`` (and cyclically), so ``a_i = sqrt(5 / (2 m) (I_j + I_k - I_i))``. Its axes are
    the principal axes and its centre the centre of mass. A negative radicand (rounding at the
    triangle-inequality limit of a flat body) gives 0.
    """
    moments = np.asarray(principal_moments, dtype=np.float64).reshape(3)
    radicand = 5.0 / (2.0 * mass) * (moments.sum() - 2.0 * moments)
    return np.sqrt(np.maximum(radicand, 0.0))


class _BodyGeometry:
    """A body's mesh in frame_a, prepared for drawing: triangles, normals, sharp edges."""

    def __init__(self, body: Any, sections: int) -> None:
        mesh = body.mesh(sections=sections)
        # matplotlib paints faces back to front by their mean depth; long thin faces (a tube's
        # side) would sort wrongly against the bore, so split them into shorter ones.
        mesh = mesh.subdivide_to_size(max_edge=float(np.max(mesh.extents)) / 12.0, max_iter=12)
        self.triangles = np.asarray(mesh.vertices)[np.asarray(mesh.faces)]  # (F, 3, 3)
        self.normals = np.asarray(mesh.face_normals)  # (F, 3)
        sharp = np.asarray(mesh.face_adjacency_angles) > SHARP_ANGLE
        self.edges = np.asarray(mesh.vertices)[np.asarray(mesh.face_adjacency_edges)[sharp]]
        self.vertices = np.asarray(mesh.vertices)


@dataclass
class PlacedBody:
    """A body at a world pose: ``rotation`` = ``R_WA``, ``position`` = ``p_WAo`` (m)."""

    body: Any
    name: str | None = None
    rotation: np.ndarray = field(default_factory=lambda: np.eye(3))
    position: np.ndarray = field(default_factory=lambda: np.zeros(3))

    def to_world(self, points: np.ndarray) -> np.ndarray:
        """Points (..., 3) in frame_a -> world: ``p_W = R_WA p_A + p_WAo``."""
        return np.asarray(points) @ np.asarray(self.rotation).T + np.asarray(self.position)


@dataclass
class Scene:
    """What to draw, and the options of the drawing (see :func:`plot_body`)."""

    bodies: list[PlacedBody]
    title: str | None = None
    sections: int = 48
    frames: bool | Iterable[str] = True
    labels: bool = True
    com: bool = True
    inertia: bool = False
    edges: bool = True
    alpha: float = 0.8
    colors: Sequence[Any] | None = None
    triad_length: float | None = None
    joints: list[JointMark] = field(default_factory=list)
    note: str | None = None  # top right, e.g. the time of an animation frame
    _geometry: dict[int, _BodyGeometry] = field(default_factory=dict, repr=False)

    def geometry(self, body: Any) -> _BodyGeometry:
        """The (cached) drawable mesh of ``body``."""
        key = id(body)
        if key not in self._geometry:
            self._geometry[key] = _BodyGeometry(body, self.sections)
        return self._geometry[key]

    def frame_names(self, body: Any) -> list[str]:
        if self.frames is True:
            return list(body.frames)
        if self.frames is False:
            return []
        wanted = list(self.frames)  # type: ignore[arg-type]
        return [name for name in body.frames if name in wanted]


@dataclass
class JointMark:
    """A joint drawn in a model picture: ``origin`` (m) and unit ``axis`` in world
    coordinates (``axis`` None for joints without one)."""

    name: str
    type: str
    origin: np.ndarray
    axis: np.ndarray | None


def joint_marks(model: Any, poses: Mapping[str, Any]) -> list[JointMark]:
    """Where each joint of ``model`` is, for the body poses ``poses`` = ``{name: (R_WA,
    p_WAo)}``: its joint frame J, fixed in the parent, ``X_WJ = X_WBp X_BpJ``, and its axis
    ``R_WJ axis_J``."""
    marks = []
    for joint in model.joints.values():
        if joint.parent_body is None:
            r_wbp, p_wbp = np.eye(3), np.zeros(3)
        else:
            r_wbp, p_wbp = (np.asarray(v) for v in poses[joint.parent_body])
        r_bpj, p_bpj = model.joint_frame_in_parent_body(joint)
        r_wj = r_wbp @ r_bpj
        axis = None if joint.axis is None else r_wj @ np.asarray(joint.axis_in_joint)
        marks.append(JointMark(joint.name, joint.type, r_wbp @ p_bpj + p_wbp, axis))
    return marks


def placed_model(model: Any, q: Any = None) -> list[PlacedBody]:
    """The bodies of ``model`` at the joint positions ``q`` (default: the initial ones), from
    ``model.body_poses(q)`` = ``{name: (R_WA, p_WAo)}``."""
    poses = model.body_poses(q) if q is not None else model.body_poses()
    return [
        PlacedBody(body, name, np.asarray(poses[name][0]), np.asarray(poses[name][1]))
        for name, body in model.bodies.items()
    ]


def _ellipsoid_points(placed: PlacedBody, resolution: int = 16) -> tuple[np.ndarray, ...]:
    """World coordinates (X, Y, Z grids) of a body's equivalent inertia ellipsoid."""
    body = placed.body
    semi = inertia_ellipsoid(body.mass, body.principal_moments)
    u = np.linspace(0.0, 2.0 * np.pi, 2 * resolution + 1)
    v = np.linspace(0.0, np.pi, resolution + 1)
    unit = np.stack(
        [
            np.outer(np.cos(u), np.sin(v)),
            np.outer(np.sin(u), np.sin(v)),
            np.outer(np.ones_like(u), np.cos(v)),
        ],
        axis=-1,
    )
    local = (unit * semi) @ np.asarray(body.principal_axes).T + np.asarray(body.center_of_mass)
    world = placed.to_world(local)
    return world[..., 0], world[..., 1], world[..., 2]


def _principal_ellipses(placed: PlacedBody, points: int = 97) -> np.ndarray:
    """The ellipsoid's three principal ellipses as polylines, world coordinates (3, P, 3)."""
    body = placed.body
    semi = inertia_ellipsoid(body.mass, body.principal_moments)
    axes = np.asarray(body.principal_axes)
    t = np.linspace(0.0, 2.0 * np.pi, points)[:, None]
    rings = []
    for i, j in ((0, 1), (1, 2), (2, 0)):
        local = np.cos(t) * semi[i] * axes[:, i] + np.sin(t) * semi[j] * axes[:, j]
        rings.append(placed.to_world(local + np.asarray(body.center_of_mass)))
    return np.array(rings)


def scene_limits(scenes: Iterable[Scene]) -> tuple[np.ndarray, np.ndarray, float]:
    """``(low (3,), high (3,), triad_length)``: a box (m) that holds every body, triad and
    ellipsoid of all ``scenes`` (an animation passes every sampled time, so the camera stays
    put), and the triad length, :data:`TRIAD_FRACTION` of the bodies' largest extent (at any
    one time)."""
    scenes = list(scenes)
    low, high = np.full(3, np.inf), np.full(3, -np.inf)
    origins, ellipsoids = [], []
    size = 0.0  # the largest extent of the bodies at any one time
    for scene in scenes:
        scene_low, scene_high = np.full(3, np.inf), np.full(3, -np.inf)
        for placed in scene.bodies:
            points = placed.to_world(scene.geometry(placed.body).vertices)
            scene_low = np.minimum(scene_low, points.min(axis=0))
            scene_high = np.maximum(scene_high, points.max(axis=0))
            for frame in placed.body.frames.values():
                axes = np.asarray(placed.rotation) @ np.asarray(frame.rotation)  # R_WF
                origins.append((placed.to_world(frame.position), axes))
            if scene.inertia:
                ellipsoids.append(np.stack(_ellipsoid_points(placed), axis=-1).reshape(-1, 3))
        size = max(size, float(np.max(scene_high - scene_low)))
        low, high = np.minimum(low, scene_low), np.maximum(high, scene_high)
    triad = TRIAD_FRACTION * size
    given = [s.triad_length for s in scenes if s.triad_length is not None]
    reach = max([triad, *given])
    for origin, axes in origins:  # the origin and the tips of its triad's three arrows
        points = np.vstack([origin, origin + reach * axes.T])
        low, high = np.minimum(low, points.min(axis=0)), np.maximum(high, points.max(axis=0))
    for points in ellipsoids:
        low, high = np.minimum(low, points.min(axis=0)), np.maximum(high, points.max(axis=0))
    return low, high, triad


# -- drawing ------------------------------------------------------------------------------------


def picture_dpi(size: tuple[int, int]) -> float:
    """Dots per inch for a picture of ``size`` pixels: 100 at 1200 x 900 and in proportion,
    so that every size has the layout (and relative font sizes) of the 1200 x 900 one."""
    width, height = size
    return DPI * min(width / DEFAULT_SIZE[0], height / DEFAULT_SIZE[1])


def new_axes(size: tuple[int, int] = DEFAULT_SIZE, *, pyplot: bool = True) -> Any:
    """A new figure of ``size`` pixels with one 3-D axes; returns the axes. Save it with
    ``ax.figure.savefig(path, dpi="figure")`` to keep the size.

    ``pyplot=True`` registers the figure with pyplot (so a notebook shows it); ``False``
    gives a standalone figure on an Agg canvas (the command line, animations).
    """
    width, height = _check_size(size)
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


def _check_size(size: Any) -> tuple[int, int]:
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


def _check_view(view: Any) -> tuple[float, float]:
    rule = "must be two finite angles in degrees (elevation, azimuth), e.g. (24, -56)"
    try:
        elev, azim = (float(v) for v in view)
    except (TypeError, ValueError):
        raise ParameterError("view", view, rule) from None
    if not (math.isfinite(elev) and math.isfinite(azim)):
        raise ParameterError("view", view, rule)
    return elev, azim


def _light_direction(elev: float, azim: float) -> np.ndarray:
    """A unit vector towards the light, fixed to the camera: from the viewer, about 35
    degrees up and to the left, so that round surfaces shade from bright to dark."""
    right, up = _screen_axes(elev, azim)
    light = _eye_direction(elev, azim) + 0.5 * up - 0.45 * right
    return light / np.linalg.norm(light)


def _shade(
    color: Any, normals: np.ndarray, light: np.ndarray, eye: np.ndarray, alpha: float
) -> np.ndarray:
    """RGBA per face. Faces towards the viewer: ``base (0.28 + 0.8 |n . l|)`` (Lambert, two-
    sided); faces away from the viewer (seen through the body or into a bore) darker,
    ``base (0.18 + 0.3 |n . l|)``, which gives the depth cue."""
    from matplotlib.colors import to_rgb

    base = np.array(to_rgb(color))
    lambert = np.abs(normals @ light)
    front = normals @ eye >= 0.0
    intensity = np.where(front, 0.28 + 0.8 * lambert, 0.18 + 0.3 * lambert)
    rgb = np.clip(base[None, :] * intensity[:, None], 0.0, 1.0)
    return np.column_stack([rgb, np.full(len(rgb), alpha)])


def _eye_direction(elev: float, azim: float) -> np.ndarray:
    """Unit vector from the scene towards the viewer (matplotlib's elevation and azimuth)."""
    e, a = math.radians(elev), math.radians(azim)
    return np.array([math.cos(e) * math.cos(a), math.cos(e) * math.sin(a), math.sin(e)])


def _screen_axes(elev: float, azim: float) -> tuple[np.ndarray, np.ndarray]:
    """World vectors pointing right and up on the screen."""
    e, a = math.radians(elev), math.radians(azim)
    right = np.array([-math.sin(a), math.cos(a), 0.0])
    up = np.array([-math.sin(e) * math.cos(a), -math.sin(e) * math.sin(a), math.cos(e)])
    return right, up


def _frame_points(placed: PlacedBody, names: list[str]) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """``(label, origin_W, R_WF)`` for the frames ``names`` of one placed body."""
    out = []
    for name in names:
        frame = placed.body.frames[name]
        origin = placed.to_world(frame.position)
        rotation = np.asarray(placed.rotation) @ np.asarray(frame.rotation)
        label = name if placed.name is None else f"{placed.name}.{name}"
        out.append((label, origin, rotation))
    return out


def draw_scene(
    ax: Any,
    scene: Scene,
    *,
    limits: tuple[np.ndarray, np.ndarray, float] | None = None,
    view: Any = None,
) -> Any:
    """Draw ``scene`` on the 3-D axes ``ax`` (module docstring); returns ``ax``.

    ``limits`` = :func:`scene_limits` output (computed from ``scene`` when None); ``view`` =
    ``(elevation, azimuth)`` in degrees (default :data:`DEFAULT_VIEW`).
    """
    from matplotlib.lines import Line2D
    from matplotlib.ticker import MaxNLocator
    from mpl_toolkits.mplot3d import Axes3D
    from mpl_toolkits.mplot3d.art3d import Line3DCollection, Poly3DCollection

    if not isinstance(ax, Axes3D):
        raise ParameterError("ax", ax, "must be a 3-D axes (add_subplot(projection='3d'))")
    elev, azim = _check_view(DEFAULT_VIEW if view is None else view)
    if limits is None:
        limits = scene_limits([scene])
    low, high, default_triad = limits
    triad = default_triad if scene.triad_length is None else float(scene.triad_length)
    colors = list(scene.colors) if scene.colors else list(BODY_COLORS)
    light = _light_direction(elev, azim)
    eye = _eye_direction(elev, azim)
    right, up = _screen_axes(elev, azim)
    # Our own drawing order (bodies, then outlines, ellipsoids, triads, markers, labels):
    # matplotlib's per-artist depth sort would hide frames inside the bodies.
    ax.computed_zorder = False

    # All bodies' faces in one collection, so matplotlib depth-sorts them together.
    polygons, face_colors, outlines = [], [], []
    for i, placed in enumerate(scene.bodies):
        geometry = scene.geometry(placed.body)
        polygons.append(placed.to_world(geometry.triangles))
        normals = geometry.normals @ np.asarray(placed.rotation).T
        face_colors.append(_shade(colors[i % len(colors)], normals, light, eye, scene.alpha))
        if scene.edges and len(geometry.edges):
            outlines.append(placed.to_world(geometry.edges))
    faces = Poly3DCollection(
        np.concatenate(polygons), facecolors=np.concatenate(face_colors), edgecolors="none"
    )
    faces.set_zorder(1)
    faces.set_gid("bodies")
    ax.add_collection3d(faces)
    if outlines:
        edges = Line3DCollection(
            np.concatenate(outlines), colors="#2b3440", linewidths=0.9, alpha=0.75
        )
        edges.set_zorder(2)
        ax.add_collection3d(edges)

    if scene.inertia:
        for placed in scene.bodies:
            # A sparse wireframe, and the three principal ellipses drawn boldly.
            x, y, z = _ellipsoid_points(placed, resolution=8)
            wire = ax.plot_wireframe(x, y, z, color=ELLIPSOID_COLOR, linewidth=0.5, alpha=0.45)
            wire.set_zorder(3)
            wire.set_gid("inertia_ellipsoid")
            rings = Line3DCollection(
                _principal_ellipses(placed), colors=ELLIPSOID_COLOR, linewidths=1.6, alpha=0.95
            )
            rings.set_zorder(3.1)
            ax.add_collection3d(rings)

    # Joints: revolute axes dash-dotted, prismatic axes dotted, ball joints as rings.
    joint_labels: list[tuple[str, np.ndarray]] = []
    for mark in scene.joints:
        if mark.axis is not None:
            style = "-." if mark.type == "revolute" else ":"
            ends = np.array(
                [mark.origin - 0.8 * triad * mark.axis, mark.origin + 1.3 * triad * mark.axis]
            )
            (line,) = ax.plot(
                *ends.T, linestyle=style, color=JOINT_COLOR, linewidth=2.2, zorder=3.5
            )
            line.set_gid("joint_axis")
            joint_labels.append((f"{mark.name} ({mark.type})", ends[1]))
        elif mark.type == "ball":
            ax.scatter(
                *mark.origin,
                s=120,
                facecolors="none",
                edgecolors=JOINT_COLOR,
                linewidths=1.8,
                depthshade=False,
                zorder=3.5,
            ).set_gid("joint_ball")

    # Triads: one quiver per axis colour, for all frames at once.
    frames: list[tuple[str, np.ndarray, np.ndarray]] = []
    for placed in scene.bodies:
        frames += _frame_points(placed, scene.frame_names(placed.body))
    if frames:
        origins = np.array([origin for _, origin, _ in frames])
        for k, color in enumerate(AXIS_COLORS):
            directions = np.array([rotation[:, k] for _, _, rotation in frames]) * triad
            arrows = ax.quiver(
                *origins.T,
                *directions.T,
                color=color,
                linewidth=2.0,
                arrow_length_ratio=0.22,
            )
            arrows.set_zorder(4)
            arrows.set_gid("triad_" + "xyz"[k])
        ax.scatter(*origins.T, s=14, color="black", depthshade=False, zorder=4.5)

    if scene.com:
        coms = np.array([p.to_world(p.body.center_of_mass) for p in scene.bodies])
        ax.scatter(
            *coms.T,
            s=150,
            facecolors="white",
            edgecolors="black",
            linewidths=1.6,
            depthshade=False,
            zorder=5,
            label="_com",
        ).set_gid("center_of_mass")
        ax.scatter(
            *coms.T, s=150, marker="+", color="black", linewidths=1.6, depthshade=False, zorder=5.1
        )

    # One scale on all three axes: ranges at least 30 % of the largest, equal units.
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
    if scene.title:
        ax.set_title(scene.title, fontsize=14, pad=12)
    if scene.note:
        ax.text2D(
            0.98,
            0.98,
            scene.note,
            transform=ax.transAxes,
            ha="right",
            va="top",
            fontsize=14,
            family="monospace",
        ).set_gid("note")

    handles = []
    if frames:
        handles += [
            Line2D([], [], color=color, lw=2.5, label=name)
            for name, color in zip("xyz", AXIS_COLORS, strict=True)
        ]
    if scene.com:
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
    if any(mark.axis is not None for mark in scene.joints):
        handles.append(Line2D([], [], color=JOINT_COLOR, lw=1.8, ls="-.", label="joint axis"))
    if scene.inertia:
        handles.append(Line2D([], [], color=ELLIPSOID_COLOR, lw=1.2, label="inertia ellipsoid"))
    # Smaller in a small axes (a subplot of the user's figure); 10 pt in the default picture.
    ax_height = ax.get_position().height * ax.figure.get_figheight() * 72.0  # points
    legend_size = 10.0 * min(1.0, max(0.65, ax_height / 550.0))
    legend = ax.legend(
        handles=handles,
        loc="upper left",
        title=(f"frame axes (length {triad:.3g} m)\n" if frames else "") + "lengths in m",
        fontsize=legend_size,
        title_fontsize=legend_size,
        framealpha=0.9,
    )
    if scene.labels and (frames or joint_labels):
        # Each label sits below and to the left of its point on screen, clear of the triad's
        # arrows, joined to it by a thin leader; labels that would overlap are pushed down.
        groups = _merge_coincident(frames, tolerance=1e-6 * triad / TRIAD_FRACTION)
        items = [(label, point, "label") for label, point in groups]
        items += [(label, point, "joint_label") for label, point in joint_labels]
        coms = [p.to_world(p.body.center_of_mass) for p in scene.bodies] if scene.com else []
        placed = _place_labels(
            ax,
            [label for label, _, _ in items],
            [point for _, point, _ in items],
            0.12 * triad,
            right,
            up,
            LABEL_SIZE,
            obstacles=coms,
            avoid=_legend_box(ax, legend),
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
                    "boxstyle": "round,pad=0.2",
                    "fc": "white",
                    "ec": JOINT_COLOR if joint else "#999999",
                    "alpha": 0.85,
                },
            )
            text.set_gid(kind)

    return ax


def _text_size_px(text: str, fontsize: float, dpi: float) -> tuple[float, float]:
    """Width and height (pixels) of a text box of ``text`` (lines) at ``fontsize`` points."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextToPath

    prop = FontProperties(size=fontsize)
    measure = TextToPath()
    lines = text.split("\n")
    width = max(
        measure.get_text_width_height_descent(line, prop, ismath=False)[0] for line in lines
    )
    height = 1.2 * fontsize * len(lines)
    pad = 2 * 0.2 * fontsize + 2  # the bbox's pad on both sides, and a gap
    return (width + pad) * dpi / 72.0, (height + pad) * dpi / 72.0


#: Where a label may sit relative to its point, in order of preference: screen directions
#: (right, up) of the offset, and the text alignment that keeps the box on that side.
_LABEL_PLACES = (
    ((-1.0, -1.0), "right", "top"),
    ((1.0, -1.0), "left", "top"),
    ((-1.0, 1.0), "right", "bottom"),
    ((1.0, 1.0), "left", "bottom"),
)


def _legend_box(ax: Any, legend: Any) -> list[tuple[float, float, float, float]]:
    """The legend's box on the screen (pixels), when the canvas can measure it."""
    try:
        renderer = ax.figure.canvas.get_renderer()
    except AttributeError:  # pragma: no cover - backends without a renderer at hand
        return []
    ax.apply_aspect()  # the legend sits in the axes' final box
    extent = legend.get_window_extent(renderer)
    return [(extent.x0, extent.y0, extent.x1, extent.y1)]


def _place_labels(
    ax: Any,
    labels: list[str],
    points: list[np.ndarray],
    offset: float,
    right: np.ndarray,
    up: np.ndarray,
    fontsize: float,
    obstacles: Sequence[np.ndarray] = (),
    avoid: Sequence[tuple[float, float, float, float]] = (),
) -> list[tuple[np.ndarray, str, str]]:
    """``(3-D anchor, ha, va)`` per label so that no two boxes overlap on the screen nor
    cover a point of ``obstacles`` (centre-of-mass markers) or a box of ``avoid`` (pixels:
    the legend).

    Greedy, top of the screen first: each label takes the first free corner of
    :data:`_LABEL_PLACES` at ``offset`` (m) from its point, then at 2.5 and 4 times that; when
    all are taken it goes below-left and moves down the screen (along ``-up``) until clear.
    """
    from mpl_toolkits.mplot3d import proj3d

    ax.apply_aspect()  # the axes' final position, as drawing would set it
    projection = ax.get_proj()

    def to_pixels(point: np.ndarray) -> np.ndarray:
        x, y, _ = proj3d.proj_transform(*point, projection)
        return np.asarray(ax.transData.transform((x, y)))

    def box(x: float, y: float, w: float, h: float, ha: str, va: str) -> tuple[float, ...]:
        x0 = x - w if ha == "right" else x
        y0 = y - h if va == "top" else y
        return (x0, y0, x0 + w, y0 + h)

    def overlaps(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
        return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]

    dpi = ax.figure.dpi
    marker = 9.0  # half the size of a centre-of-mass marker, pixels
    taken: list[tuple[float, ...]] = [tuple(b) for b in avoid]
    for point in obstacles:
        px, py = to_pixels(point)
        taken.append((px - marker, py - marker, px + marker, py + marker))
    out: list[tuple[np.ndarray, str, str]] = [(p, "right", "top") for p in points]
    for i in sorted(range(len(labels)), key=lambda i: -to_pixels(points[i])[1]):
        width, height = _text_size_px(labels[i], fontsize, dpi)
        for reach, ((sx, sy), ha, va) in itertools.product((1.0, 2.5, 4.0), _LABEL_PLACES):
            anchor = points[i] + reach * offset * (sx * right + sy * up)
            candidate = box(*to_pixels(anchor), width, height, ha, va)
            if not any(overlaps(candidate, b) for b in taken):
                break
        else:
            anchor = points[i] - offset * (right + up)
            ha, va = "right", "top"
            x, y = to_pixels(anchor)
            shift = 0.0
            for _ in range(len(taken) + 1):
                candidate = box(x, y - shift, width, height, ha, va)
                hit = [b for b in taken if overlaps(candidate, b)]
                if not hit:
                    break
                shift = y - min(b[1] for b in hit) + 1.0
            if shift > 0.0:
                # Pixels per metre along -up, here (the projection is smooth).
                step = 1e-3 * offset
                rate = float(np.linalg.norm(to_pixels(anchor - step * up) - (x, y))) / step
                anchor = anchor - up * (shift / rate)
        taken.append(candidate)
        out[i] = (anchor, ha, va)
    return out


def _merge_coincident(
    frames: list[tuple[str, np.ndarray, np.ndarray]], tolerance: float
) -> list[tuple[str, np.ndarray]]:
    """Frames at the same point share one label (names on separate lines)."""
    groups: list[tuple[list[str], np.ndarray]] = []
    for label, origin, _ in frames:
        for names, where in groups:
            if np.max(np.abs(where - origin)) <= tolerance:
                names.append(label)
                break
        else:
            groups.append(([label], origin))
    return [("\n".join(names), where) for names, where in groups]


# -- public entry points ------------------------------------------------------------------------


def _body_title(body: Any) -> str:
    material = body.material or f"density {body.density:.6g} kg/m^3"
    dims = ", ".join(f"{k} {v:.4g}" for k, v in body.dimensions.items() if v or k == "length")
    extras = []
    if not np.array_equal(body.axis, [1.0, 0.0, 0.0]):
        extras.append("axis (" + ", ".join(f"{v:.3g}" for v in body.axis) + ")")
    if getattr(body, "rotate90", False):
        extras.append("rotate90")
    more = f"; {', '.join(extras)}" if extras else ""
    return f"{body.shape.capitalize()}: {material}, mass {body.mass:.5g} kg\n{dims} (m){more}"


def _model_title(model: Any) -> str:
    name = getattr(model, "name", None) or "Model"
    bodies = list(model.bodies.values())
    mass = sum(b.mass for b in bodies)
    materials = sorted({b.material or "given density" for b in bodies})
    plural = "body" if len(bodies) == 1 else "bodies"
    return (
        f"{name}: {len(bodies)} {plural}, {len(model.joints)} joints, total mass {mass:.5g} kg\n"
        f"materials: {', '.join(materials)}"
    )


_SCENE_OPTIONS = (
    "sections",
    "frames",
    "labels",
    "com",
    "inertia",
    "edges",
    "alpha",
    "colors",
    "triad_length",
)


def _make_scene(bodies: list[PlacedBody], title: Any, options: Mapping[str, Any]) -> Scene:
    unknown = sorted(set(options) - set(_SCENE_OPTIONS))
    if unknown:
        raise ParameterError(
            unknown[0],
            options[unknown[0]],
            f"is not an option; known: size, view, title, {', '.join(_SCENE_OPTIONS)}",
        )
    scene = Scene(bodies=bodies, title=title or None, **options)
    if not (isinstance(scene.alpha, int | float) and 0.0 < scene.alpha <= 1.0):
        raise ParameterError("alpha", scene.alpha, "must be a number in (0, 1]")
    return scene


def plot_body(
    body: Any,
    ax: Any = None,
    *,
    size: tuple[int, int] = DEFAULT_SIZE,
    view: Any = None,
    title: str | bool = True,
    **options: Any,
) -> Any:
    """Draw one body in its frame_a with its frames and centre of mass; returns the axes.

    Parameters
    ----------
    body : a rigidparts body.
    ax : a matplotlib 3-D axes to draw on, or None for a new figure of ``size`` pixels.
    view : ``(elevation, azimuth)`` in degrees (default :data:`DEFAULT_VIEW`).
    title : True for the shape, material and mass; a string; or False for none.
    options : ``sections`` (48, segments around round surfaces), ``frames`` (True, False or
        names to draw), ``labels`` (True), ``com`` (True), ``inertia`` (False: the equivalent
        inertia ellipsoid), ``edges`` (True: outline sharp edges), ``alpha`` (0.8, face
        opacity), ``colors`` (body colours), ``triad_length`` (m; default 0.15 of the extent).

    Returns the ``Axes3D``; ``ax.figure`` is its figure. Frame labels are the axes' texts.
    """
    if ax is None:
        ax = new_axes(size)
    text = _body_title(body) if title is True else title
    scene = _make_scene([PlacedBody(body)], text, options)
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
    """Draw every body of ``model`` at the joint positions ``q`` (default: the initial ones);
    returns the axes. Options as :func:`plot_body`; frame labels read ``body.frame``."""
    if ax is None:
        ax = new_axes(size)
    text = _model_title(model) if title is True else title
    bodies = placed_model(model, q)
    scene = _make_scene(bodies, text, options)
    scene.joints = joint_marks(model, {p.name: (p.rotation, p.position) for p in bodies})
    return draw_scene(ax, scene, view=view)
