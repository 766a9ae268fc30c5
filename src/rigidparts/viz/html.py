"""An interactive 3-D viewer in one self-contained HTML file: a body, a model, or a model's
simulation played back (:func:`write_html`; :func:`view` picks the format from the suffix).

The file holds everything: meshcat's bundled viewer (three.js; read from the installed
``meshcat`` package, see :mod:`.html_page`), the scene and the animation. It refers to nothing
on the network and opens from a file on a machine without one, in any browser with WebGL.

What the scene shows (meshcat's control panel, top right, shows or hides each part):

- ``Bodies/<body>``: each body's exact mesh (``body.mesh(sections)``, split at edges sharper
  than 20 degrees for shading, with those edges outlined) in its colour, opacity and visibility
  (:mod:`rigidparts.appearance`: ``model.appearance(name)``, or the ``color``, ``opacity`` and
  ``visible`` options for a lone body);
- ``Frames/<body>/<frame>``: each named frame as a triad (x red, y green, z blue, 0.15 of the
  bodies' largest extent, at most :data:`BODY_TRIAD_FRACTION` of the body's own) turned by
  the frame's own rotation, labelled ``body.frame``;
- ``Centres of mass/<body>``: the centre-of-mass symbol; ``Inertia/<body>``: the equivalent
  inertia ellipsoid (same mass and principal moments; hidden unless ``inertia=True``);
- ``Joints/<joint>``: a model's joint axes (:func:`~.scene.joint_marks`);
- ``Rods/<rod>``: a model's rods (massless spring-dampers, :mod:`rigidparts.model.rods`), each
  a thin cylinder in :data:`ROD_COLOR` from its frame_a's origin to its frame_b's (the world
  origin for ``"world"``), :data:`ROD_RADIUS_FRACTION` of the scene's largest extent thick;
- meshcat's own ``Axes`` (the world frame, scaled to the triads) and ``Grid`` (the ground: a
  grid of 1, 2 or 5 x 10^k m squares in the plane z = min(0, lowest point)).

The camera looks at the centre of the box that holds everything drawn (at every sampled time)
from the direction of ``view`` = (elevation, azimuth) in degrees, far enough that the box's
bounding sphere, :data:`FRAMING_MARGIN` times larger, fills the narrower field of view; near
and far planes at 1/1000 and 100 times that distance. So a 5 mm part and a 20 m crane both
open framed.

Playback (``result``, a :class:`rigidparts.sim.SimulationResult` of the model): each body's
simulated frame_a pose (``result.body_positions`` and ``result.body_quaternions``, as MuJoCo
computed them, not re-derived) becomes a keyframe of a meshcat ``set_animation`` clip, and
three.js interpolates between keyframes (linearly and by slerp) as it plays. Keyframes are the
recorded samples nearest ``t_0 + k / fps`` (``fps`` 30 by default; no interpolation), at most
``max_keyframes`` (1800) of them and at most ``POSE_BUDGET`` (12 000) poses over all bodies
and rods: beyond that the keyframes spread evenly over the run. Each rod's node is animated too
(``.position``, ``.quaternion`` and ``.scale`` tracks): its ends at a keyframe are the
keyframed body poses composed with its frames' offsets in their bodies (``model.frame_in_body``;
:func:`_rod_ends`, the same placement as the still scene's), the unit cylinder turned and
stretched between them by :func:`.threejs.rod_transforms`. A 10 s run recorded every 1 ms (10 001
samples) becomes 301 keyframes. The file is about 0.9 MB of viewer, each pose about 180 bytes
of JSON, and the meshes: a few MB for the shipped examples, more for large models, which grow
with their meshes (a 300-body chain: 6.4 MB; docs/viewer.md). meshcat's Animations panel
plays, pauses, resets, scrubs (``time``) and sets the speed (``timeScale``); the simulated
time shows at the bottom left. The page opens playing (``play=True``) in a loop
(``loop=True``); ``page.html#t=1.25`` opens it paused at t = 1.25 s.

Large models: equal meshes are made and written once (:func:`_mesh_key`; three.js JSON
naming a geometry written by an earlier command, :mod:`.threejs`), a triad, marker or joint
arrow is one mesh of a shared unit geometry, frame labels are merged in expected linear time
(:func:`.labels.merge_coincident`), and a body's triads are at most
:data:`BODY_TRIAD_FRACTION` of its own extent. Past :data:`LARGE_MODEL` bodies the file
takes a compact form (``shared_poses``: a body's frames, marker and ellipsoid take its pose
in the page; objects at the nodes themselves; ``implied_followers``), the page makes the
control panel's folders below Bodies, Frames, ... when they are opened, and it shows the
triads, markers, joints and labels of the body under the pointer and of the body last
clicked (the panel's Labels and Marks switches: all, none). Past :data:`HOVER_LABELS` labels
the labels are shown that way too. A 1000-body chain: under 3 MB, written in about 2 s
(docs/viewer.md). Names and titles are cut for display (:func:`.scene.short_text`). The page
moves a label down the screen, before each render, when it would cover another.

The scene is also stored as JSON in ``<script type="application/json" id="rigidparts-scene">``:
``commands`` (meshcat's ``set_object``, ``set_transform``, ``set_property`` and
``set_animation`` messages, three.js JSON), ``followers`` (the paths that move with each
body), ``labels``, ``label_mode``, ``shared_poses``, ``implied_followers``, ``camera``,
``bounds``, ``bodies`` and ``animation``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..component import Component
from ..errors import ParameterError, merged_warnings
from ..transforms import matrix_to_quaternion
from .geometry import SHARP_ANGLE, PlacedBody, eye_direction, frame_triads, inertia_ellipsoid
from .labels import merge_coincident
from .scene import (
    AXIS_COLORS,
    ELLIPSOID_COLOR,
    JOINT_COLOR,
    TITLE_LINES,
    TRIAD_FRACTION,
    body_title,
    joint_marks,
    make_scene,
    model_title,
    placed_model,
    scene_limits,
    short_text,
)
from .threejs import ObjectBuilder, matrix, rod_transforms, rounded
from .trajectory import check_keyframe_fps, check_number, result_arrays, sample_indices

__all__ = [
    "ANIMATION_SUFFIXES",
    "BODY_TRIAD_FRACTION",
    "DEFAULT_FPS",
    "DEFAULT_MAX_KEYFRAMES",
    "HOVER_LABELS",
    "HTML_OPTIONS",
    "HTML_SUFFIXES",
    "LARGE_MODEL",
    "PICTURE_SUFFIXES",
    "POSE_BUDGET",
    "ROD_COLOR",
    "ROD_RADIUS_FRACTION",
    "html_scene",
    "keyframe_indices",
    "require_viewer",
    "view",
    "write_html",
]

#: Suffixes of the HTML viewer.
HTML_SUFFIXES = (".html", ".htm")
#: Keyframes per second of simulated time.
DEFAULT_FPS = 30.0
#: The most keyframes (instants) of an animation.
DEFAULT_MAX_KEYFRAMES = 1800
#: The most poses (keyframes x bodies) of an animation: about 180 bytes each in the file.
POSE_BUDGET = 12_000
#: The vertical field of view of the camera, degrees.
FIELD_OF_VIEW = 40.0
#: The sphere the camera frames is the bounding sphere this much larger: the model's extreme
#: points (a spring's anchor, a crane's tip) stay clear of the window's edges and labels.
FRAMING_MARGIN = 1.1
#: The colour of the rods (teal: apart from the triads' red, green and blue, the joints' purple
#: and the ellipsoids' orange).
ROD_COLOR = "#0b8f8a"
#: A rod's radius as a fraction of the largest extent of the box that holds the scene.
ROD_RADIUS_FRACTION = 0.004
#: A body's triads are at most this fraction of the body's own largest extent (and at most
#: the scene's triad length): small bodies in a large model keep small triads.
BODY_TRIAD_FRACTION = 0.5
#: More labels than this: the page shows the labels of the body under the mouse pointer and
#: of the body last clicked, not all at once (a large model is not a wall of text); the
#: control panel's ``Labels`` switch shows all of them or none.
HOVER_LABELS = 64
#: In a large model (shared poses) the nodes ``FOLDER/<body>`` of these folders follow the
#: body ``/Bodies/<body>`` without being listed in ``followers`` (the scene says so in
#: ``implied_followers``): only the joints a body carries are listed.
IMPLIED_FOLLOWERS = ("/Frames/", "/Centres of mass/", "/Inertia/")
#: The labels' colour and size (CSS pixels) unless given: the page's defaults.
LABEL_COLOR = "#1d2430"
LABEL_PIXELS = 12
#: More bodies than this: a body's followers (its frames, marks and the joints it carries)
#: take their first pose from the body's in the page rather than from a ``set_transform``
#: each (``"shared_poses": true``): a large model's file stays small.
LARGE_MODEL = 100
#: Light, grey-blue background (top, bottom), RGB in [0, 1]: dark labels and edges read on it.
BACKGROUND = ((0.97, 0.975, 0.98), (0.80, 0.83, 0.87))

#: The options of :func:`write_html` and their defaults.
HTML_OPTIONS: dict[str, Any] = {
    "title": True,
    "view": None,
    "sections": 48,
    "frames": True,
    "labels": True,
    "com": True,
    "inertia": False,
    "joints": True,
    "world": True,
    "grid": True,
    "edges": True,
    "triad_length": None,
    "color": None,
    "opacity": None,
    "visible": None,
    "fps": DEFAULT_FPS,
    "max_keyframes": DEFAULT_MAX_KEYFRAMES,
    "play": True,
    "loop": True,
    "progress": True,
    "force": None,
}

_FLAGS = (
    "labels",
    "com",
    "inertia",
    "joints",
    "world",
    "grid",
    "edges",
    "play",
    "loop",
    "progress",
)


# -- options ------------------------------------------------------------------------------------


def _options(given: Mapping[str, Any]) -> dict[str, Any]:
    """The options with their defaults, checked: :class:`ParameterError` names the option."""
    unknown = sorted(set(given) - set(HTML_OPTIONS))
    if unknown:
        raise ParameterError(
            unknown[0], given[unknown[0]], f"is not an option; known: {', '.join(HTML_OPTIONS)}"
        )
    options = {**HTML_OPTIONS, **given}
    for flag in _FLAGS:
        if not isinstance(options[flag], bool | np.bool_):
            raise ParameterError(flag, options[flag], "must be True or False")
        options[flag] = bool(options[flag])
    frames = options["frames"]
    if not isinstance(frames, bool):
        if isinstance(frames, str) or not all(isinstance(f, str) for f in _iterable(frames)):
            raise ParameterError("frames", frames, "must be True, False or a list of frame names")
        options["frames"] = frozenset(frames)
    title = options["title"]
    if not isinstance(title, bool | str):
        raise ParameterError("title", title, "must be True (the default), False or a string")
    sections = options["sections"]
    if isinstance(sections, bool) or not isinstance(sections, int) or not 3 <= sections <= 4096:
        raise ParameterError("sections", sections, "must be an integer from 3 to 4096")
    options["fps"] = check_keyframe_fps(options["fps"])
    if options["force"] is not None and not isinstance(options["force"], bool | np.bool_):
        raise ParameterError("force", options["force"], "must be True, False or None")
    keyframes = options["max_keyframes"]
    if (
        isinstance(keyframes, bool)
        or not isinstance(keyframes, int | np.integer)
        or not 2 <= keyframes <= 100_000
    ):
        raise ParameterError("max_keyframes", keyframes, "must be an integer from 2 to 100000")
    if options["triad_length"] is not None:
        options["triad_length"] = check_number(
            "triad_length", options["triad_length"], 1e-300, 1e300, "must be a positive length (m)"
        )
    if options["view"] is not None:
        view = options["view"]
        try:
            elev, azim = (float(v) for v in view)
        except (TypeError, ValueError):
            raise ParameterError(
                "view", view, "must be (elevation, azimuth) in degrees, e.g. (28, -56)"
            ) from None
        if not (math.isfinite(elev) and math.isfinite(azim)):
            raise ParameterError("view", view, "must be finite angles in degrees")
        options["view"] = (elev, azim)
    return options


def _iterable(value: Any) -> list[Any]:
    try:
        return list(value)
    except TypeError:
        return [value]


# -- sampling -----------------------------------------------------------------------------------


def keyframe_indices(
    time: np.ndarray, fps: float, max_keyframes: int, bodies: int = 1
) -> np.ndarray:
    """The indices of the recorded samples that become keyframes (module docstring):
    :func:`.trajectory.sample_indices` with at least 2 instants (both ends of a run shorter
    than ``1 / fps``) and at most ``min(max_keyframes, POSE_BUDGET // bodies)`` (``bodies``:
    the animated nodes, bodies and rods); increasing,
    without repeats (a sparse record may give the same nearest sample twice), the first and
    the last sample always included."""
    time = np.asarray(time, dtype=np.float64).reshape(-1)
    cap = min(int(max_keyframes), max(2, POSE_BUDGET // max(1, bodies)))
    nearest, _ = sample_indices(time, fps, cap, minimum=2)
    if len(nearest):
        nearest[0], nearest[-1] = 0, len(time) - 1
    return np.unique(nearest)


# -- rods -------------------------------------------------------------------------------------


def _rod_ends(model: Any, poses: Mapping[str, PlacedBody]) -> dict[str, np.ndarray]:
    """``rod name -> (2, 3)``: the world origins of each rod's two frames (m) with the bodies
    at ``poses`` (their frame_a poses ``R_WA``, ``p_WAo``): ``X_WF = X_WA X_AF``
    (:func:`rigidparts.transforms.compose` with ``model.frame_in_body``), the world origin for
    ``"world"``. The still scene passes the model's initial poses, playback each keyframe's
    simulated ones."""
    from ..transforms import compose

    def origin(frame: str) -> np.ndarray:
        if frame == "world":
            return np.zeros(3)
        body, name = frame.split(".", 1)
        placed = poses[body]
        x_wa = (np.asarray(placed.rotation), np.asarray(placed.position))
        return np.asarray(compose(x_wa, model.frame_in_body(body, name))[1], dtype=np.float64)

    return {
        rod.name: np.stack([origin(rod.frame_a), origin(rod.frame_b)])
        for rod in model.rods.values()
    }


# -- the scene ----------------------------------------------------------------------------------


def _nice(value: float) -> float:
    """The smallest of 1, 2, 5 x 10^k at least ``value``."""
    exponent = math.floor(math.log10(value))
    for step in (1.0, 2.0, 5.0, 10.0):
        if step * 10.0**exponent >= value * (1 - 1e-12):
            return step * 10.0**exponent
    return 10.0 ** (exponent + 1)


class _Scene:
    """The JSON of one viewer scene, built command by command."""

    def __init__(self, share_poses: bool = False) -> None:
        # The scene's own identifiers (0, 1, 2, ...): the same scene gives the same file, and
        # scenes built at the same time in other threads do not share the count.
        self._ids = itertools.count()
        self._shared: dict[Any, str] = {}  # geometries and materials written so far
        self.commands: list[dict[str, Any]] = []
        self.followers: dict[str, list[str]] = {}
        self.labels: list[dict[str, Any]] = []
        self.share_poses = share_poses

    def follow(self, body_path: str, path: str, pose: tuple[Any, Any]) -> None:
        """The node ``path`` follows the body at ``body_path`` (it gets the body's animation
        clip) and starts at ``pose``, the body's own: written as its ``set_transform``, or,
        when the scene shares poses (a large model), set by the page from the body's."""
        followers = self.followers.setdefault(body_path, [])
        if not self.share_poses:
            followers.append(path)
            self.set_transform(path, *pose)
        elif not path.startswith(IMPLIED_FOLLOWERS):  # a body's own marks are implied
            followers.append(path)

    def part(self, path: str, leaf: str) -> str:
        """Where a node's object goes: ``path/leaf``, or in a large model (shared poses) the
        node ``path`` itself (meshcat puts an object at ``path/<object>``: one folder less in
        the control panel per part, a shorter line)."""
        return path if self.share_poses else f"{path}/{leaf}"

    def builder(self) -> ObjectBuilder:
        """A builder of one three.js object tree, numbering from the scene's counter and
        naming the geometries and materials earlier builders of the scene wrote."""
        return ObjectBuilder(self._ids, self._shared)

    def set_object(self, path: str, builder: ObjectBuilder, root: dict[str, Any]) -> None:
        if self.share_poses:  # a large model: no names, no empty lists (short lines)
            root = {key: value for key, value in root.items() if key != "name"}
        data = builder.build(root)
        if self.share_poses:
            data = {key: value for key, value in data.items() if value != []}
        self.commands.append({"type": "set_object", "path": path, "object": data})

    def set_transform(
        self, path: str, rotation: Any = None, position: Any = None, scale: Any = None
    ) -> None:
        self.commands.append(
            {"type": "set_transform", "path": path, "matrix": matrix(rotation, position, scale)}
        )

    def set_property(self, path: str, name: str, value: Any) -> None:
        self.commands.append(
            {"type": "set_property", "path": path, "property": name, "value": value}
        )

    def label(
        self,
        path: str,
        text: str,
        *,
        body: str | None = None,
        color: str = LABEL_COLOR,
        visible: bool = True,
        size: int = LABEL_PIXELS,
        unscale: bool = False,
        at: Any = None,
    ) -> None:
        """A text label at the node ``path`` (drawn by the page's player); ``body``: the body
        it belongs to (a large model shows the labels of the body under the mouse); ``at``:
        its position in the node ``path`` is in (default its origin)."""
        label: dict[str, Any] = {"path": path, "text": text}
        if body is not None and not path.startswith(f"/Frames/{body}/"):
            label["body"] = body  # a frame's label names its body in its path
        if not (visible and self.share_poses):  # visible unless said: the page's default
            label["visible"] = visible
        default = JOINT_COLOR if path.startswith("/Joints/") else LABEL_COLOR
        if color != default:  # the defaults are the page's: a short line per label
            label["color"] = color
        if size != LABEL_PIXELS:
            label["size"] = size
        if unscale:
            label["unscale"] = True
        if at is not None:  # the sprite's place in its node, when the node carries none
            label["at"] = rounded(at)
        self.labels.append(label)


def _mesh_key(body: Any) -> Any:
    """A key equal for bodies whose meshes are equal (same shape, dimensions and placement
    of the canonical shape in frame_a), so that the mesh is made and written once; the body's
    identity when its dimensions cannot be compared (a mesh given as an object)."""
    try:
        dimensions = tuple(sorted((k, v) for k, v in body.dimensions.items()))
        hash(dimensions)
        turn = np.asarray(body.rotation_from_canonical, dtype=np.float64).tobytes()
        mass = float(body.mass) if getattr(body.spec, "mass_only", False) else None
        return (type(body).__name__, body.spec.name, dimensions, turn, mass)
    except Exception:  # an unhashable dimension: each body its own mesh
        return ("body", id(body))


def _mesh_parts(body: Any, sections: int, edges: bool) -> tuple[np.ndarray, ...]:
    """``(vertices, faces, sharp edges (E, 2, 3), hull vertices)`` of ``body`` in frame_a: the
    mesh split at edges sharper than :data:`~.geometry.SHARP_ANGLE` so that the viewer's
    vertex normals shade flat faces flat and round ones round."""
    from trimesh.graph import smooth_shade

    mesh = body.mesh(sections=sections)
    shaded = smooth_shade(mesh, angle=SHARP_ANGLE)
    lines = np.zeros((0, 2, 3))
    if edges:
        sharp = np.asarray(mesh.face_adjacency_angles) > SHARP_ANGLE
        lines = np.asarray(mesh.vertices)[np.asarray(mesh.face_adjacency_edges)[sharp]]
    try:
        hull = np.asarray(mesh.convex_hull.vertices)
    except Exception:  # qhull refuses a flat mesh: its vertices bound it as well
        hull = np.asarray(mesh.vertices)
    return np.asarray(shaded.vertices), np.asarray(shaded.faces), lines, hull


def _subject(target: Any, options: Mapping[str, Any]) -> tuple[Any, list[tuple[str, Any, Any]]]:
    """``(model or None, [(name, body, appearance)])``."""
    from ..appearance import appearance

    looks = {key: options[key] for key in ("color", "opacity", "visible")}
    if isinstance(target, Component):
        name = type(target).__name__.lower()
        return None, [(name, target, appearance(**looks))]
    from ..model import Model

    if isinstance(target, Model):
        given = [key for key, value in looks.items() if value is not None]
        if given:
            raise ParameterError(
                given[0],
                looks[given[0]],
                "is a lone body's option: a model's bodies take theirs from the model "
                "(add_body(..., color=...) or set_appearance; color = ... in the model file)",
            )
        target.check()
        return target, [(n, b, target.appearance(n)) for n, b in target.bodies.items()]
    raise ParameterError(
        "target", type(target).__name__, "must be a rigidparts body or a rigidparts.model.Model"
    )


# -- the scene, job by job ----------------------------------------------------------------------


@dataclass
class _Timeline:
    """The poses drawn: ``poses_at`` (one ``{name: PlacedBody}`` per instant: the still pose,
    or each keyframe), ``samples`` (``name -> (positions (K, 3), wxyz quaternions (K, 4))`` of
    the keyframes) and ``animation`` (the scene's ``animation`` entry; None when still)."""

    poses_at: list[dict[str, PlacedBody]]
    samples: dict[str, tuple[np.ndarray, np.ndarray]]
    animation: dict[str, Any] | None


@dataclass
class _Framing:
    """The box that holds everything drawn at every instant (``low``, ``high``, m), the
    scene's triad length (m) and the rods' ends at every instant (``rod name -> (2, 3)``)."""

    low: np.ndarray
    high: np.ndarray
    triad: float
    rod_ends: list[dict[str, np.ndarray]]


def _timeline(
    model: Any, placed: dict[str, PlacedBody], result: Any, opts: Mapping[str, Any]
) -> _Timeline:
    """The poses over time: the still pose, or the keyframes of the simulation ``result``
    (:func:`keyframe_indices`: the recorded samples, never interpolated)."""
    if result is None:
        return _Timeline([placed], {}, None)
    run = result_arrays(model, result, quaternions=True)
    time = run.time
    keep = keyframe_indices(
        time, opts["fps"], opts["max_keyframes"], len(model.bodies) + len(model.rods)
    )
    times = time[keep] - time[0]
    animation = {
        "start": float(time[0]),
        "duration": float(times[-1]),
        "keyframes": len(keep),
        "samples": len(time),
        "fps": opts["fps"],
        "times": [float(t) for t in times],
        "play": opts["play"],
        "loop": opts["loop"],
    }
    samples = {n: (run.positions[n][keep], run.quaternions[n][keep]) for n in model.bodies}
    poses_at = [
        {
            name: PlacedBody(p.body, name, run.rotations[name][k], run.positions[name][k])
            for name, p in placed.items()
        }
        for k in keep
    ]
    return _Timeline(poses_at, samples, animation)


def _meshes(
    subjects: list[tuple[str, Any, Any]], opts: Mapping[str, Any], step: Any
) -> dict[str, tuple[Any, tuple[np.ndarray, ...]]]:
    """``body name -> (mesh key, parts of _mesh_parts)``: each distinct mesh made once
    (:func:`_mesh_key`), however many bodies share it."""
    made: dict[Any, tuple[np.ndarray, ...]] = {}
    out = {}
    for index, (name, body, _) in enumerate(subjects, start=1):
        step(f"meshing body {index}/{len(subjects)} ({name})")
        key = _mesh_key(body)
        if key not in made:
            made[key] = _mesh_parts(body, opts["sections"], opts["edges"])
        out[name] = (key, made[key])
    return out


def _framing(
    model: Any,
    subjects: list[tuple[str, Any, Any]],
    meshes: Mapping[str, tuple[Any, tuple[np.ndarray, ...]]],
    poses_at: list[dict[str, PlacedBody]],
    opts: Mapping[str, Any],
) -> _Framing:
    """The box that holds everything drawn at every keyframe (bodies, triads, ellipsoids when
    shown), by the pictures' own rule (:func:`.scene.scene_limits`), each body bounded by its
    hull, widened to the rods' ends at every keyframe (a spring anchored in the world stays in
    view); and the triad length (the option, else the pictures' fraction of the extent)."""
    hulls = {id(body): meshes[name][1][3] for name, body, _ in subjects}
    template = make_scene(
        [],
        None,
        {
            "sections": opts["sections"],
            "inertia": opts["inertia"],
            "triad_length": opts["triad_length"],
        },
    )
    scenes = [template.posed(list(poses.values()), []) for poses in poses_at]
    low, high, fraction = scene_limits(scenes, points=lambda body: hulls[id(body)])
    rod_ends = [_rod_ends(model, poses) for poses in poses_at] if model is not None else []
    ends = [e for instant in rod_ends for e in instant.values()]
    if ends:
        points = np.concatenate(ends)
        low, high = np.minimum(low, points.min(axis=0)), np.maximum(high, points.max(axis=0))
    triad = opts["triad_length"] or fraction
    if not triad > 0.0:  # a body without extent: any visible length
        triad = TRIAD_FRACTION * max(float(np.max(high - low)), 1e-3)
    return _Framing(low, high, float(triad), rod_ends)


def _label_texts(model: Any, poses_at: list[dict[str, PlacedBody]], size: float) -> dict[str, str]:
    """``frame label -> label text``: frames at the same point at every instant (a joint's
    two frames) share one label, their names on separate lines, as in the pictures
    (:func:`.labels.merge_coincident`, within 1e-6 of the scene's ``size``); the first frame
    of each group carries it. Body names are cut for display (:func:`.scene.short_text`)."""
    tracks: dict[str, list[np.ndarray]] = {}  # frame label -> its origin at every instant
    for poses in poses_at:
        for p in poses.values():
            for label, origin, _ in frame_triads(p, list(p.body.frames)):
                tracks.setdefault(label, []).append(origin)
    if model is not None:  # the world frame's label joins a frame at the world's origin
        tracks["world"] = [np.zeros(3)] * len(poses_at)
    merged = merge_coincident(
        [(label, np.concatenate(origins), None) for label, origins in tracks.items()],
        tolerance=1e-6 * size,
    )
    out = {}
    for text, _ in merged:
        names = text.split("\n")
        out[names[0]] = "\n".join(short_text(name, lines=1) for name in names)
    return out


def _body_triad(body: Any, hull: np.ndarray, triad: float, given: bool) -> float:
    """The triad length of one body's frames: the scene's ``triad``, but at most
    :data:`BODY_TRIAD_FRACTION` of the body's own largest extent (its ``hull``) unless the
    length was ``given``: in a model of many small bodies each body's triads stay its own
    size (a 1000-link chain is not a wall of arrows)."""
    if given or not len(hull):
        return triad
    extent = float(np.max(np.ptp(hull, axis=0)))
    return triad if extent <= 0.0 else min(triad, BODY_TRIAD_FRACTION * extent)


def _add_bodies(
    scene: _Scene,
    model: Any,
    subjects: list[tuple[str, Any, Any]],
    meshes: Mapping[str, tuple[Any, tuple[np.ndarray, ...]]],
    first: dict[str, PlacedBody],
    framing: _Framing,
    label_text: Mapping[str, str],
    opts: Mapping[str, Any],
    step: Any,
) -> list[dict[str, Any]]:
    """Each body's mesh, frames (triads and labels), centre-of-mass marker and inertia
    ellipsoid at its pose ``first`` (the first instant); returns the ``bodies`` entries."""
    lone = model is None
    bodies_meta = []
    for index, (name, body, looks) in enumerate(subjects, start=1):
        step(f"writing body {index}/{len(subjects)} ({name})")
        key, (vertices, faces, lines, hull) = meshes[name]
        pose = (first[name].rotation, first[name].position)
        body_path = f"/Bodies/{name}"
        scene.set_transform(body_path, *pose)
        builder = scene.builder()
        root = builder.mesh(
            vertices, faces, looks, looks.opacity, lines if opts["edges"] else None, key=key
        )
        scene.set_object(scene.part(body_path, "mesh"), builder, root)
        if not looks.visible:
            scene.set_property(body_path, "visible", False)
        meta = {
            "name": name,
            "path": body_path,
            "color": looks.hex,
            "opacity": looks.opacity,
            "visible": looks.visible,
        }
        if scene.share_poses:  # a large model: the path is /Bodies/<name>
            del meta["path"]
        bodies_meta.append(meta)
        scene.followers.setdefault(body_path, [])
        triad = _body_triad(body, hull, framing.triad, opts["triad_length"] is not None)
        _add_frames(scene, name, body, pose, triad, label_text, opts, lone)
        _add_mass_marks(scene, name, body, pose, triad)
    return bodies_meta


def _add_frames(
    scene: _Scene,
    name: str,
    body: Any,
    pose: tuple[np.ndarray, np.ndarray],
    triad: float,
    label_text: Mapping[str, str],
    opts: Mapping[str, Any],
    lone: bool,
) -> None:
    """One body's frames: a node carrying the body's pose, and per frame a node at the
    frame (turned by its rotation) holding its triad and, for the first frame of each point,
    its label; frames not asked for (``frames=[...]``) hidden."""
    frames_path = f"/Frames/{name}"
    scene.follow(f"/Bodies/{name}", frames_path, pose)
    names = list(body.frames)
    triads = frame_triads(PlacedBody(body, None if lone else name), names)
    shown = opts["frames"]
    for frame_name, (label, origin, rotation) in zip(names, triads, strict=True):
        path = f"{frames_path}/{frame_name}"  # frame names are identifiers
        builder = scene.builder()
        if scene.share_poses:  # a large model: the triad's own matrix places it, one command
            root = builder.triad(triad, AXIS_COLORS)
            root["matrix"] = rounded(matrix(rotation, origin, [triad] * 3))
            scene.set_object(path, builder, root)
            at = origin
        else:
            scene.set_transform(path, rotation, origin)
            scene.set_object(f"{path}/triad", builder, builder.triad(triad, AXIS_COLORS))
            at = None
        if label in label_text:
            scene.label(
                f"{path}/label", label_text[label], body=name, visible=opts["labels"], at=at
            )
        if isinstance(shown, frozenset) and not {frame_name, label} & shown:
            scene.set_property(path, "visible", False)


def _add_mass_marks(
    scene: _Scene, name: str, body: Any, pose: tuple[np.ndarray, np.ndarray], triad: float
) -> None:
    """One body's centre-of-mass marker (0.12 of its triad across) and equivalent inertia
    ellipsoid (:func:`.geometry.inertia_ellipsoid`), each on a node carrying the body's pose
    (they follow the body)."""
    com_path = f"/Centres of mass/{name}"
    scene.follow(f"/Bodies/{name}", com_path, pose)
    builder = scene.builder()
    scene.set_object(
        scene.part(com_path, "marker"),
        builder,
        builder.com_marker(0.12 * triad, body.center_of_mass),
    )
    inertia_path = f"/Inertia/{name}"
    scene.follow(f"/Bodies/{name}", inertia_path, pose)
    builder = scene.builder()
    semi = inertia_ellipsoid(body.mass, body.principal_moments)
    scene.set_object(
        scene.part(inertia_path, "ellipsoid"),
        builder,
        builder.ellipsoid(semi, body.principal_axes, body.center_of_mass, ELLIPSOID_COLOR),
    )


def _add_joints(
    scene: _Scene,
    model: Any,
    first: dict[str, PlacedBody],
    triad: float,
    opts: Mapping[str, Any],
) -> None:
    """A model's joints: marks in the parent body's frame_a (:func:`.scene.joint_marks` with
    every body at the origin) on a node that carries the parent's pose and follows it; the
    label at the arrow's tip, clear of the frames' labels at the joint's origin."""
    if model is None or not model.joints:
        return
    origin_poses = {n: (np.eye(3), np.zeros(3)) for n in model.bodies}
    for joint, mark in zip(model.joints.values(), joint_marks(model, origin_poses), strict=True):
        path = f"/Joints/{joint.name}"
        if joint.parent_body is not None:
            parent = first[joint.parent_body]
            scene.follow(f"/Bodies/{joint.parent_body}", path, (parent.rotation, parent.position))
        builder = scene.builder()
        scene.set_object(
            scene.part(path, "axis"),
            builder,
            builder.joint(mark.origin, mark.axis, 1.3 * triad, JOINT_COLOR, mark.pivot),
        )
        tip = mark.origin if mark.axis is None else mark.origin + 1.3 * triad * mark.axis
        if scene.share_poses:  # the label's own position places it
            label_path, at = f"{path}/label", tip
        else:
            scene.set_transform(f"{path}/label", None, tip)
            label_path, at = f"{path}/label/text", None
        scene.label(
            label_path,
            short_text(joint.name, lines=1),
            body=joint.parent_body or joint.child_body,  # the body that carries it
            color=JOINT_COLOR,
            visible=opts["labels"],
            at=at,
        )


def _add_rods(scene: _Scene, framing: _Framing) -> float:
    """A model's rods at the first instant: one node per rod in the world, a unit cylinder
    along its y axis stretched between the two frames' origins (:func:`.threejs.rod_transforms`);
    returns the shortest length drawn (a zero-length rod is drawn a hair long)."""
    low, high = framing.low, framing.high
    rod_radius = ROD_RADIUS_FRACTION * float(np.max(high - low))
    rod_floor = 1e-6 * rod_radius
    for rod_name, (start, end) in (framing.rod_ends[0] if framing.rod_ends else {}).items():
        middle, rotation, _, shown = rod_transforms(start, end, rod_floor)
        path = f"/Rods/{rod_name}"
        scene.set_transform(path, rotation[0], middle[0], [1.0, float(shown[0]), 1.0])
        builder = scene.builder()
        scene.set_object(f"{path}/cylinder", builder, builder.rod(rod_radius, ROD_COLOR))
    return rod_floor


def _add_world(
    scene: _Scene, model: Any, framing: _Framing, label_text: Mapping[str, str], opts: Any
) -> tuple[np.ndarray, float]:
    """The folders hidden at opening, meshcat's world axes (scaled to the triads) and ground
    grid (1, 2 or 5 x 10^k m squares, :func:`_nice`, in the plane z = min(0, lowest point)),
    and the lights moved with the model's size; returns the box's centre and the camera's
    sphere radius (:data:`FRAMING_MARGIN` times the box's bounding sphere)."""
    low, high, triad = framing.low, framing.high, framing.triad
    for folder, flag in (
        ("/Frames", "frames"),
        ("/Centres of mass", "com"),
        ("/Inertia", "inertia"),
        ("/Joints", "joints"),
        ("/Axes", "world"),
        ("/Grid", "grid"),
    ):
        if opts[flag] is False:
            scene.set_property(folder, "visible", False)

    # meshcat's world axes (0.5 m long) and ground grid (20 m, 0.5 m squares), rescaled
    scene.set_transform("/Axes", None, None, [triad / 0.5] * 3)
    if "world" in label_text:
        scene.label("/Axes/label", label_text["world"], visible=opts["labels"], unscale=True)
    extent = float(max(high[0] - low[0], high[1] - low[1], 1e-300))
    cell = _nice(extent / 8.0)
    centre = np.round(0.5 * (low[:2] + high[:2]) / cell) * cell
    ground = min(0.0, float(low[2]))  # the lowest point drawn
    scene.set_transform("/Grid", None, [centre[0], centre[1], ground], [cell / 0.5] * 3)

    # lights: meshcat's point lights sit 2 m away and fade out at 10 m; move them with the
    # model's size and let them reach everywhere (distance 0: no fading)
    middle = 0.5 * (low + high)
    bounding = 0.5 * float(np.linalg.norm(high - low))
    for light, offset in (
        ("PointLightNegativeX", (1.5, 1.5, 2.0)),
        ("PointLightPositiveX", (-1.5, -1.5, 2.0)),
    ):
        path = f"/Lights/{light}/<object>"
        scene.set_property(path, "position", list(middle + bounding * np.asarray(offset)))
        scene.set_property(path, "distance", 0.0)
    return middle, FRAMING_MARGIN * bounding


def _track(name: str, kind: str, times: list[float], values: np.ndarray) -> dict[str, Any]:
    """One keyframe track of a three.js animation clip (``values`` flattened)."""
    return {
        "name": name,
        "type": kind,
        "times": times,
        "values": [float(v) for v in values.reshape(-1)],
    }


def _add_animation(
    scene: _Scene,
    model: Any,
    timeline: _Timeline,
    framing: _Framing,
    rod_floor: float,
    opts: Mapping[str, Any],
) -> None:
    """The ``set_animation`` command of a run: per body its keyframed frame_a positions and
    quaternions (x, y, z, w as three.js orders them); per rod its node's position, rotation
    and stretch between its frames at each keyframe (:func:`.threejs.rod_transforms`)."""
    animation = timeline.animation
    if animation is None:
        return
    times = animation["times"]

    def clip(path: str, tracks: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "path": path,
            "clip": {
                "name": "default",
                "fps": 1.0,  # times in seconds
                "duration": animation["duration"],
                "tracks": tracks,
            },
        }

    clips = []
    for name in model.bodies:
        positions, quaternions = timeline.samples[name]
        xyzw = quaternions[:, [1, 2, 3, 0]]  # three.js orders a quaternion x, y, z, w
        clips.append(
            clip(
                f"/Bodies/{name}",
                [
                    _track(".position", "vector3", times, positions),
                    _track(".quaternion", "quaternion", times, xyzw),
                ],
            )
        )
    for rod_name in model.rods:
        ends_k = np.stack([instant[rod_name] for instant in framing.rod_ends])  # (K, 2, 3)
        middles, rotations, _, shown = rod_transforms(ends_k[:, 0], ends_k[:, 1], rod_floor)
        xyzw = matrix_to_quaternion(rotations)[:, [1, 2, 3, 0]]
        scales = np.stack([np.ones_like(shown), shown, np.ones_like(shown)], axis=1)
        clips.append(
            clip(
                f"/Rods/{rod_name}",
                [
                    _track(".position", "vector3", times, middles),
                    _track(".quaternion", "quaternion", times, xyzw),
                    _track(".scale", "vector3", times, scales),  # three.js animates .scale
                ],
            )
        )
    scene.commands.append(
        {
            "type": "set_animation",
            "animations": clips,
            "options": {"play": opts["play"], "repetitions": 1, "loop": opts["loop"]},
            "path": "",
        }
    )


def _heading(model: Any, subjects: list, animation: Any, opts: Mapping[str, Any]) -> str:
    """The title shown at the top left: the body's or model's title (and the simulated span),
    or the ``title`` option; cut for display (:func:`.scene.short_text`)."""
    if opts["title"] is not True:
        return short_text(opts["title"] or "", lines=TITLE_LINES)
    heading = model_title(model) if model is not None else body_title(subjects[0][1])
    if animation is not None:
        heading += (
            f"\nsimulation: {animation['start']:.6g} .. "
            f"{animation['start'] + animation['duration']:.6g} s, "
            f"{animation['keyframes']} keyframes of {animation['samples']} samples"
        )
    return heading


def html_scene(target: Any, *, result: Any = None, status: Any = None, **options: Any) -> dict:
    """The scene JSON that :func:`write_html` embeds (module docstring; options as there):
    the poses over time (:func:`_timeline`), the meshes (:func:`_meshes`), the framing box
    (:func:`_framing`), the labels (:func:`_label_texts`), then the commands: bodies, frames
    and mass marks (:func:`_add_bodies`), joints, rods, the world (axes, grid, lights), the
    animation; the camera and the title."""
    opts = _options(options)
    model, subjects = _subject(target, opts)
    if result is not None and model is None:
        raise ParameterError(
            "result", type(result).__name__, "plays back a model: give the model it came from"
        )
    if model is not None:
        placed = {p.name: p for p in placed_model(model)}
    else:
        placed = {subjects[0][0]: PlacedBody(subjects[0][1])}

    def step(text: str) -> None:
        if status is not None:
            status.update(text)

    timeline = _timeline(model, placed, result, opts)
    meshes = _meshes(subjects, opts, step)
    count = len(timeline.poses_at)
    step(f"framing {count} keyframe{'s' if count != 1 else ''}")
    framing = _framing(model, subjects, meshes, timeline.poses_at, opts)
    step("placing the labels")
    label_text = _label_texts(model, timeline.poses_at, float(np.max(framing.high - framing.low)))

    scene = _Scene(share_poses=len(subjects) > LARGE_MODEL)
    scene.set_property("/Background", "top_color", list(BACKGROUND[0]))
    scene.set_property("/Background", "bottom_color", list(BACKGROUND[1]))
    first = timeline.poses_at[0]
    bodies_meta = _add_bodies(
        scene, model, subjects, meshes, first, framing, label_text, opts, step
    )
    _add_joints(scene, model, first, framing.triad, opts)
    rod_floor = _add_rods(scene, framing)
    middle, radius = _add_world(scene, model, framing, label_text, opts)
    _add_animation(scene, model, timeline, framing, rod_floor, opts)

    elev, azim = opts["view"] or (28.0, -56.0)
    camera = {
        "target": [float(v) for v in middle],
        "direction": [float(v) for v in eye_direction(elev, azim)],
        "radius": radius,
        "fov": FIELD_OF_VIEW,
        "up": [0.0, 0.0, 1.0],
    }
    name = getattr(model, "name", None) if model is not None else subjects[0][0]
    return {
        "format": "rigidparts-scene",
        "version": 1,
        "title": short_text(str(name or "rigidparts"), lines=1),
        "heading": _heading(model, subjects, timeline.animation, opts),
        "commands": scene.commands,
        "followers": scene.followers,
        "labels": scene.labels,
        "label_mode": (
            "all" if len(scene.labels) <= HOVER_LABELS and not scene.share_poses else "hover"
        ),
        "shared_poses": scene.share_poses,
        "implied_followers": [f.rstrip("/") for f in IMPLIED_FOLLOWERS]
        if scene.share_poses
        else [],
        "camera": camera,
        "bounds": {
            "low": [float(v) for v in framing.low],
            "high": [float(v) for v in framing.high],
        },
        "triad_length": float(framing.triad),
        "bodies": bodies_meta,
        "animation": timeline.animation,
    }


# -- writing ------------------------------------------------------------------------------------


def require_viewer() -> None:
    """ImportError naming the ``viz`` extra unless the viewer can be written (meshcat's
    bundled viewer and trimesh are installed): the one check of :func:`write_html` and of the
    command line before a long run (``simulate --html``)."""
    from .html_page import meshcat_bundle

    meshcat_bundle()
    try:
        import trimesh  # noqa: F401
    except ImportError:
        raise ImportError("the HTML viewer needs trimesh: pip install 'rigidparts[viz]'") from None


def write_html(target: Any, path: Any, *, result: Any = None, **options: Any) -> Path:
    """Write the viewer of ``target`` (a body or a :class:`~rigidparts.model.Model`), playing
    ``result`` (a :class:`~rigidparts.sim.SimulationResult` of that model) when given, to
    ``path`` (.html or .htm); returns the path.

    Options (module docstring for what they mean):

    - ``title``: True (the body's or model's title), a string, or False;
    - ``view``: (elevation, azimuth) of the initial camera, degrees (default (28, -56), as
      :func:`rigidparts.viz.plot`);
    - ``sections`` (48): segments around round surfaces;
    - ``frames`` (True, False or frame names: ``"frame_b"`` or ``"arm.frame_b"``), ``labels``,
      ``com``, ``joints``, ``world`` (meshcat's axes), ``grid``, ``edges`` (all True) and
      ``inertia`` (False): what is shown when the page opens (everything can be shown or
      hidden in the page's control panel);
    - ``triad_length``: m (default 0.15 of the bodies' largest extent);
    - ``color``, ``opacity``, ``visible``: a lone body's appearance (a model's bodies take
      theirs from the model);
    - ``fps`` (30), ``max_keyframes`` (1800): keyframe sampling (module docstring);
      ``play`` (True): start playing when opened; ``loop`` (True): play in a loop;
    - ``progress`` (True): a status line on a terminal while a large scene is written;
    - ``force``: replace a read-only file (default: the command line's ``--force``).

    The file is written atomically (:mod:`rigidparts.fileio`): an error leaves no file and an
    existing one untouched. Needs the ``viz`` extra (meshcat's viewer, trimesh).
    """
    from ..fileio import atomic_write, check_output
    from ..progress import Status
    from .html_page import page

    target_path = Path(path)
    if target_path.suffix.lower() not in HTML_SUFFIXES:
        raise ParameterError(
            "path", str(path), "must end in .html or .htm (the format is taken from the suffix)"
        )
    opts = _options(options)
    require_viewer()  # a missing extra fails before any work
    check_output(target_path, force=opts["force"])
    # (merged_warnings: a STEP model's capped meshes, one warning per body: one per file)
    with (
        merged_warnings(),
        Status(f"writing {target_path.name}", enabled=opts["progress"]) as status,
    ):
        scene = html_scene(target, result=result, status=status, **options)
        status.update(f"writing {target_path.name}: the page")
        text = page(scene, scene["title"], scene["heading"])
        status.update(f"writing {target_path.name}: {len(text) / 1e6:.1f} MB to disk")
        atomic_write(target_path, text, force=opts["force"])
    return target_path


#: The suffixes of :func:`view`'s still pictures (matplotlib writes them all) and animations.
PICTURE_SUFFIXES = (".png", ".svg", ".pdf", ".jpg", ".jpeg")
ANIMATION_SUFFIXES = (".gif", ".mp4")


def view(target: Any, path: Any, *, result: Any = None, **options: Any) -> Path:
    """Write ``target`` (a body or a model) to ``path``, the format taken from the suffix;
    returns the path.

    - ``.html`` / ``.htm``: the interactive viewer, :func:`write_html` (with ``result``: the
      simulation played back);
    - ``.png``, ``.svg``, ``.pdf``, ``.jpg``: a picture, :func:`rigidparts.viz.plot`
      (options ``size``, ``view``, ``title`` and its drawing options; ``q`` for a model);
    - ``.gif``, ``.mp4``: an animation of ``result`` (``target`` its model),
      :func:`rigidparts.viz.animate.animate`.

    Every format takes ``force`` (True, False or None: replace a read-only file; default the
    command line's ``--force``) and ``progress`` (True or False: a progress display on a
    terminal; a still picture is quick and shows none).
    """
    suffix = Path(path).suffix.lower()
    force = options.pop("force", None)
    if force is not None and not isinstance(force, bool | np.bool_):
        raise ParameterError("force", force, "must be True, False or None")
    progress = options.pop("progress", True)
    if not isinstance(progress, bool | np.bool_):
        raise ParameterError("progress", progress, "must be True or False")
    force = None if force is None else bool(force)
    progress = bool(progress)
    if suffix in HTML_SUFFIXES:
        return write_html(target, path, result=result, force=force, progress=progress, **options)
    if suffix in ANIMATION_SUFFIXES:
        from ..model import Model

        if not isinstance(target, Model):
            raise ParameterError(
                "target", type(target).__name__, "an animation needs a Model and a result"
            )
        if result is None:
            raise ParameterError("result", None, f"is needed for a {suffix} animation")
        from .animate import animate

        return animate(target, result, path, force=force, progress=progress, **options)
    if suffix in PICTURE_SUFFIXES:
        if result is not None:
            raise ParameterError(
                "result",
                type(result).__name__,
                f"cannot be shown in a {suffix} picture: "
                "write .html (interactive) or .gif / .mp4 (an animation)",
            )
        from ..fileio import atomic_path, check_output
        from .figure import new_axes
        from .plotting import plot

        check_output(path, force=force)  # a read-only file fails before any drawing
        size = options.pop("size", None)
        ax = new_axes(size, pyplot=False) if size is not None else new_axes(pyplot=False)
        plot(target, ax=ax, **options)
        with atomic_path(path, force=force) as tmp:
            ax.figure.savefig(tmp, dpi="figure", format=suffix.lstrip("."))
        return Path(path)
    raise ParameterError(
        "path",
        str(path),
        "must end in .html (viewer), .png, .svg, .pdf, .jpg (picture), .gif or .mp4 "
        "(animation): the format is taken from the suffix",
    )
