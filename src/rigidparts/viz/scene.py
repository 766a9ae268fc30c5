"""What a picture shows: the scene (bodies at poses, joints, options), its colours, its checks,
its titles and the box that frames it. No matplotlib here.

A :class:`Scene` is built by :func:`make_scene` (which checks the drawing options of
:func:`rigidparts.viz.plot`), for one body (:class:`~.geometry.PlacedBody` at the identity) or a
model (:func:`placed_model`, :func:`joint_marks`); :func:`scene_limits` gives the world box
(m) that holds everything drawn, over one scene or all the scenes of an animation.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..appearance import Appearance, default_appearance, parse_color
from ..errors import ParameterError
from .geometry import BodyGeometry, PlacedBody, ellipsoid_surface

__all__ = [
    "AXIS_COLORS",
    "ELLIPSOID_COLOR",
    "JOINT_COLOR",
    "LABEL_SIZE",
    "SCENE_OPTIONS",
    "TEXT_WIDTH",
    "TITLE_LINES",
    "TRIAD_FRACTION",
    "JointMark",
    "Scene",
    "body_title",
    "joint_marks",
    "make_scene",
    "model_title",
    "placed_model",
    "scene_limits",
    "short_text",
]

#: Triad colours: x, y, z.
AXIS_COLORS = ("#d62728", "#2ca02c", "#1f77b4")
#: Colour of joint axes and their labels.
JOINT_COLOR = "#5a3e8c"
#: Colour of the inertia ellipsoid.
ELLIPSOID_COLOR = "#e07b00"
#: Font size of the frame labels, points.
LABEL_SIZE = 10.5
#: Triad length as a fraction of the scene's largest extent.
TRIAD_FRACTION = 0.15
#: The most characters of one line of a name, label or title shown, and the most lines of a
#: title: longer ones are cut (:func:`short_text`).
TEXT_WIDTH = 80
TITLE_LINES = 8
#: The drawing options a :class:`Scene` takes (besides ``size``, ``view`` and ``title``).
SCENE_OPTIONS = (
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


@dataclass
class JointMark:
    """A joint drawn in a model picture: ``origin`` (m) and unit ``axis`` in world
    coordinates (``axis`` None for joints without one); ``pivot`` when the joint turns freely
    about its origin (no axis, its position a quaternion alone: drawn as a ring)."""

    name: str
    type: str
    origin: np.ndarray
    axis: np.ndarray | None
    pivot: bool = False


@dataclass
class Scene:
    """What to draw, and the options of the drawing (see :func:`rigidparts.viz.plot`)."""

    bodies: list[PlacedBody]
    title: str | None = None
    sections: int = 48
    frames: bool | Iterable[str] = True
    labels: bool = True
    com: bool = True
    inertia: bool = False
    edges: bool = True
    alpha: float = 0.8
    colors: Sequence[Any] | None = None  # checked by make_scene: RGB tuples
    triad_length: float | None = None
    joints: list[JointMark] = field(default_factory=list)
    note: str | None = None  # top right, e.g. the time of an animation frame
    _geometry: dict[int, BodyGeometry] = field(default_factory=dict, repr=False)

    def geometry(self, body: Any) -> BodyGeometry:
        """The (cached) drawable mesh of ``body``."""
        key = id(body)
        if key not in self._geometry:
            self._geometry[key] = BodyGeometry(body, self.sections)
        return self._geometry[key]

    def appearance(self, index: int) -> Appearance:
        """How body ``index`` of the scene is drawn: its own appearance (a model's
        :meth:`~rigidparts.model.Model.appearance`, or the one given to ``plot(body,
        color=...)``), else the default for its index; the ``colors`` option, when given,
        replaces the colour by ``colors[index % len(colors)]``."""
        placed = self.bodies[index]
        looks = placed.appearance if placed.appearance is not None else default_appearance(index)
        if self.colors:
            looks = replace(looks, color=self.colors[index % len(self.colors)])
        return looks

    def frame_names(self, body: Any) -> list[str]:
        """The names of the frames of ``body`` to draw, in the body's order."""
        if self.frames is True:
            return list(body.frames)
        if self.frames is False:
            return []
        wanted = list(self.frames)  # type: ignore[arg-type]
        return [name for name in body.frames if name in wanted]

    def posed(
        self, bodies: list[PlacedBody], joints: list[JointMark], note: str | None = None
    ) -> Scene:
        """The same options (and the same mesh cache) with the bodies and joints at other
        poses: the frames of an animation."""
        return replace(self, bodies=bodies, joints=joints, note=note)


def make_scene(bodies: list[PlacedBody], title: Any, options: Mapping[str, Any]) -> Scene:
    """A :class:`Scene` of ``bodies`` with the drawing ``options`` (names in
    :data:`SCENE_OPTIONS`); :class:`ParameterError` for an unknown option or a bad ``alpha``."""
    unknown = sorted(set(options) - set(SCENE_OPTIONS))
    if unknown:
        raise ParameterError(
            unknown[0],
            options[unknown[0]],
            f"is not an option; known: size, view, title, {', '.join(SCENE_OPTIONS)}",
        )
    scene = Scene(bodies=bodies, title=title or None, **options)
    if not (isinstance(scene.alpha, int | float) and 0.0 < scene.alpha <= 1.0):
        raise ParameterError("alpha", scene.alpha, "must be a number in (0, 1]")
    scene.colors = _palette(scene.colors)
    return scene


def _palette(colors: Any) -> tuple[tuple[float, float, float], ...] | None:
    """The ``colors`` option checked: None, one colour, or a non-empty sequence of colours
    (each as :func:`rigidparts.appearance.parse_color` takes it), as RGB tuples."""
    if colors is None:
        return None
    if isinstance(colors, str):  # one colour for every body
        return (parse_color(colors, "colors"),)
    try:
        items = list(colors)
    except TypeError:
        raise ParameterError("colors", colors, "must be a colour or a list of colours") from None
    if not items:
        raise ParameterError("colors", colors, "must hold at least one colour")
    return tuple(parse_color(item, f"colors[{i}]") for i, item in enumerate(items))


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
        # Rotation about a point: 4 position coordinates (a quaternion), 3 angular velocities.
        pivot = joint.axis is None and (joint.nq, joint.nv) == (4, 3)
        marks.append(JointMark(joint.name, joint.type, r_wbp @ p_bpj + p_wbp, axis, pivot))
    return marks


def placed_model(model: Any, q: Any = None) -> list[PlacedBody]:
    """The bodies of ``model`` at the joint positions ``q`` (default: the initial ones), from
    ``model.body_poses(q)`` = ``{name: (R_WA, p_WAo)}``, each with its appearance
    (:meth:`~rigidparts.model.Model.appearance`)."""
    poses = model.body_poses(q) if q is not None else model.body_poses()
    return [
        PlacedBody(
            body,
            name,
            np.asarray(poses[name][0]),
            np.asarray(poses[name][1]),
            model.appearance(name),
        )
        for name, body in model.bodies.items()
    ]


def scene_limits(
    scenes: Iterable[Scene], points: Callable[[Any], np.ndarray] | None = None
) -> tuple[np.ndarray, np.ndarray, float]:
    """``(low (3,), high (3,), triad_length)``: a box (m) that holds every body, triad and
    ellipsoid (when the scene shows it) of all ``scenes`` (an animation passes every sampled
    time, so the camera stays put), and the triad length, :data:`TRIAD_FRACTION` of the
    bodies' largest extent (at any one time). ``points(body)`` gives frame_a points (m) whose
    box is the body's (default: the vertices of its drawn mesh; the HTML viewer passes its
    mesh's convex hull, the same box from fewer points)."""
    scenes = list(scenes)
    low, high = np.full(3, np.inf), np.full(3, -np.inf)
    origins, ellipsoids = [], []
    size = 0.0  # the largest extent of the bodies at any one time
    for scene in scenes:
        scene_low, scene_high = np.full(3, np.inf), np.full(3, -np.inf)
        for placed in scene.bodies:
            local = scene.geometry(placed.body).vertices if points is None else points(placed.body)
            world = placed.to_world(local)
            scene_low = np.minimum(scene_low, world.min(axis=0))
            scene_high = np.maximum(scene_high, world.max(axis=0))
            for frame in placed.body.frames.values():
                axes = np.asarray(placed.rotation) @ np.asarray(frame.rotation)  # R_WF
                origins.append((placed.to_world(frame.position), axes))
            if scene.inertia:
                ellipsoids.append(np.stack(ellipsoid_surface(placed), axis=-1).reshape(-1, 3))
        size = max(size, float(np.max(scene_high - scene_low)))
        low, high = np.minimum(low, scene_low), np.maximum(high, scene_high)
    triad = TRIAD_FRACTION * size
    given = [s.triad_length for s in scenes if s.triad_length is not None]
    reach = max([triad, *given])
    if origins:  # the origins and the tips of their triads' three arrows
        centres = np.array([origin for origin, _ in origins])  # (N, 3)
        arrows = np.array([axes.T for _, axes in origins])  # (N, 3 arrows, 3)
        tips = np.concatenate([centres, (centres[:, None, :] + reach * arrows).reshape(-1, 3)])
        low, high = np.minimum(low, tips.min(axis=0)), np.maximum(high, tips.max(axis=0))
    for surface in ellipsoids:
        low, high = np.minimum(low, surface.min(axis=0)), np.maximum(high, surface.max(axis=0))
    return low, high, triad


# -- titles -------------------------------------------------------------------------------------

ELLIPSIS = "\u2026"


def short_text(text: Any, width: int = TEXT_WIDTH, lines: int = TITLE_LINES) -> str:
    """``text`` as shown in a picture or the viewer: at most ``lines`` lines of at most
    ``width`` characters; a cut line, and the last line when more text was left out, end in
    an ellipsis; control characters (tabs, ...) shown as spaces. Only the first
    ``(width + 1) lines + 1`` characters are read, so a name of millions of characters costs
    no more than a short one."""
    text = str(text)
    head = text[: (width + 1) * lines + 1]
    cut = len(head) < len(text)
    rows = head.split("\n")
    if len(rows) > lines:
        rows, cut = rows[:lines], True
    out = []
    for row in rows:
        row = "".join(" " if ord(c) < 32 or ord(c) == 127 else c for c in row)
        out.append(row if len(row) <= width else row[: width - 1] + ELLIPSIS)
    if cut and not out[-1].endswith(ELLIPSIS):
        out[-1] = out[-1][: width - 1] + ELLIPSIS
    return "\n".join(out)


def _dimensions_text(body: Any) -> str:
    """The body's non-zero dimensions (a zero inner one says "solid"), from its shape's
    parameters: lengths in m, angles in degrees, others as they are."""
    dimensions = {
        p.name: p.plain(value) if p.plain is not None and value is not None else value
        for p, value in zip(body.spec.params, body.dimensions.values(), strict=True)
    }  # raw values (a tensor, a pose) as their plain numbers
    shown = [p for p in body.spec.params if _given(dimensions[p.name])]
    lengths = [f"{p.name} {dimensions[p.name]:.4g}" for p in shown if p.kind == "length"]
    others = [
        f"{p.name} {np.degrees(dimensions[p.name]):.4g} deg"
        if p.kind == "angle"
        else f"{p.name} {short_text(str(dimensions[p.name]), lines=1)}"
        for p in shown
        if p.kind != "length"
    ]
    return ", ".join(([", ".join(lengths) + " (m)"] if lengths else []) + others)


def _given(value: Any) -> bool:
    """Whether a dimension is worth showing: not zero, None or empty."""
    if isinstance(value, np.ndarray | list | tuple | dict):
        return len(value) > 0
    return bool(value)


def _material_text(body: Any) -> str:
    """The material's name, the given density, or "given mass" for a body with no volume."""
    if body.material:
        return body.material
    if body.density is None:
        return "given mass"
    return f"density {body.density:.6g} kg/m^3"


def body_title(body: Any) -> str:
    """Two lines: the body's class, material (or density) and mass in kg; its dimensions,
    its axis when not +x and ``rotate90`` when set."""
    material = _material_text(body)
    dims = _dimensions_text(body)
    extras = []
    parameters = body.parameters()
    axis = parameters.get("axis")
    if axis is not None and not np.array_equal(axis, [1.0, 0.0, 0.0]):
        extras.append("axis (" + ", ".join(f"{v:.3g}" for v in axis) + ")")
    if parameters.get("rotate90"):
        extras.append("rotate90")
    more = f"; {', '.join(extras)}" if extras else ""
    return f"{type(body).__name__}: {material}, mass {body.mass:.5g} kg\n{dims}{more}"


def model_title(model: Any) -> str:
    """Two lines: the model's name, numbers of bodies and joints and total mass in kg; the
    materials of its bodies."""
    name = short_text(getattr(model, "name", None) or "Model", lines=1)
    bodies = list(model.bodies.values())
    mass = sum(b.mass for b in bodies)
    materials = sorted(
        {b.material or ("given mass" if b.density is None else "given density") for b in bodies}
    )
    from ..report import counted

    return (
        f"{name}: {counted(len(bodies), 'body', 'bodies')}, {counted(len(model.joints), 'joint')}, "
        f"total mass {mass:.5g} kg\n"
        f"materials: {', '.join(materials)}"
    )
