"""Drawing the parts of a scene on a matplotlib 3-D axes, in world coordinates (m).

- :func:`draw_bodies`: every body's mesh (:class:`~.geometry.BodyGeometry`) in its colour
  (the body's :class:`~rigidparts.appearance.Appearance`), its faces shaded by a light that sits
  above and to the left of the viewer (two-sided Lambert shading, :func:`shade`),
  semi-transparent (the picture's ``alpha`` times the body's opacity) so that frames inside a
  body and the bore of a hollow one stay visible, with its sharp edges outlined; an invisible
  body's mesh is left out (its frames and centre of mass are still drawn);
- :func:`draw_inertia_ellipsoids`: each body's equivalent inertia ellipsoid;
- :func:`draw_joints`: joint axes and pivots (joints that turn about a point) of a model;
- :func:`draw_triads`: a triad per frame (x red, y green, z blue) along the frame's own axes
  ``R_WF`` (its rotation relative to frame_a applied);
- :func:`draw_centres_of_mass`: a circled cross at each centre of mass.

The callers set ``ax.computed_zorder = False``: each part has its own zorder (bodies, then
outlines, ellipsoids, joints, triads, markers), as matplotlib's per-artist depth sort would
hide frames inside the bodies. Artists carry gids (``"bodies"``, ``"inertia_ellipsoid"``,
``"joint_axis"``, ``"joint_ball"``, ``"triad_x"`` / ``_y`` / ``_z``, ``"center_of_mass"``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .geometry import (
    PlacedBody,
    ellipsoid_surface,
    eye_direction,
    light_direction,
    principal_ellipses,
)
from .scene import AXIS_COLORS, ELLIPSOID_COLOR, JOINT_COLOR, JointMark, Scene

__all__ = [
    "draw_bodies",
    "draw_centres_of_mass",
    "draw_inertia_ellipsoids",
    "draw_joints",
    "draw_triads",
    "shade",
]


def shade(
    color: Any, normals: np.ndarray, light: np.ndarray, eye: np.ndarray, alpha: float
) -> np.ndarray:
    """RGBA per face (F, 4) for unit face ``normals`` (F, 3). Faces towards the viewer:
    ``base (0.28 + 0.8 |n . l|)`` (Lambert, two-sided); faces away from the viewer (seen
    through the body or into a bore) darker, ``base (0.18 + 0.3 |n . l|)``, which gives the
    depth cue."""
    from matplotlib.colors import to_rgb

    base = np.array(to_rgb(color))
    lambert = np.abs(normals @ light)
    front = normals @ eye >= 0.0
    intensity = np.where(front, 0.28 + 0.8 * lambert, 0.18 + 0.3 * lambert)
    rgb = np.clip(base[None, :] * intensity[:, None], 0.0, 1.0)
    return np.column_stack([rgb, np.full(len(rgb), alpha)])


#: Colour of the bodies' sharp edges, and its alpha for an opaque body.
EDGE_COLOR = "#2b3440"
EDGE_ALPHA = 0.75


def draw_bodies(ax: Any, scene: Scene, elev: float, azim: float) -> None:
    """Every visible body's faces, shaded for the viewpoint ``(elev, azim)`` (degrees) in its
    colour (:meth:`Scene.appearance`) with face alpha ``scene.alpha * opacity``, and
    (``scene.edges``) its sharp edges, their alpha scaled by the opacity too. An invisible body
    (``visible=False``) is not drawn; its frames, centre of mass and ellipsoid still are."""
    from matplotlib.colors import to_rgba
    from mpl_toolkits.mplot3d.art3d import Line3DCollection, Poly3DCollection

    light = light_direction(elev, azim)
    eye = eye_direction(elev, azim)
    # All bodies' faces in one collection, so matplotlib depth-sorts them together.
    polygons, face_colors, outlines, outline_colors = [], [], [], []
    edge_rgb = to_rgba(EDGE_COLOR)[:3]
    for i, placed in enumerate(scene.bodies):
        looks = scene.appearance(i)
        if not looks.visible:
            continue
        geometry = scene.geometry(placed.body)
        polygons.append(placed.to_world(geometry.triangles))
        normals = geometry.normals @ np.asarray(placed.rotation).T
        alpha = scene.alpha * looks.opacity
        face_colors.append(shade(looks.color, normals, light, eye, alpha))
        if scene.edges and len(geometry.edges):
            outlines.append(placed.to_world(geometry.edges))
            edge = (*edge_rgb, EDGE_ALPHA * looks.opacity)
            outline_colors.append(np.tile(edge, (len(geometry.edges), 1)))
    if not polygons:
        return
    faces = Poly3DCollection(
        np.concatenate(polygons), facecolors=np.concatenate(face_colors), edgecolors="none"
    )
    faces.set_zorder(1)
    faces.set_gid("bodies")
    ax.add_collection3d(faces)
    if outlines:
        edges = Line3DCollection(
            np.concatenate(outlines), colors=np.concatenate(outline_colors), linewidths=0.9
        )
        edges.set_zorder(2)
        ax.add_collection3d(edges)


def draw_inertia_ellipsoids(ax: Any, bodies: list[PlacedBody]) -> None:
    """Each body's equivalent inertia ellipsoid: a sparse wireframe, and its three principal
    ellipses drawn boldly."""
    from mpl_toolkits.mplot3d.art3d import Line3DCollection

    for placed in bodies:
        x, y, z = ellipsoid_surface(placed, resolution=8)
        wire = ax.plot_wireframe(x, y, z, color=ELLIPSOID_COLOR, linewidth=0.5, alpha=0.45)
        wire.set_zorder(3)
        wire.set_gid("inertia_ellipsoid")
        rings = Line3DCollection(
            principal_ellipses(placed), colors=ELLIPSOID_COLOR, linewidths=1.6, alpha=0.95
        )
        rings.set_zorder(3.1)
        ax.add_collection3d(rings)


def draw_joints(ax: Any, joints: list[JointMark], triad: float) -> list[tuple[str, np.ndarray]]:
    """Revolute axes dash-dotted, prismatic axes dotted (from 0.8 to 1.3 triad lengths, m,
    either side of the joint's origin), pivots (``mark.pivot``) as rings. Returns ``(label,
    point)`` for each drawn axis: ``"NAME (TYPE)"`` at the axis' far end."""
    joint_labels: list[tuple[str, np.ndarray]] = []
    for mark in joints:
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
        elif mark.pivot:
            ax.scatter(
                *mark.origin,
                s=120,
                facecolors="none",
                edgecolors=JOINT_COLOR,
                linewidths=1.8,
                depthshade=False,
                zorder=3.5,
            ).set_gid("joint_ball")
    return joint_labels


def draw_triads(ax: Any, frames: list[tuple[str, np.ndarray, np.ndarray]], triad: float) -> None:
    """A triad per frame of ``frames`` = ``(label, p_WFo, R_WF)``: arrows of ``triad`` m along
    the columns of ``R_WF`` (x red, y green, z blue; one quiver per colour, gid
    ``"triad_x"`` ...), and a dot at each origin."""
    if not frames:
        return
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


def draw_centres_of_mass(ax: Any, bodies: list[PlacedBody]) -> np.ndarray:
    """A circled cross (gid ``"center_of_mass"``) at each body's centre of mass; returns the
    centres in world coordinates (B, 3), m."""
    coms = np.array([p.to_world(p.body.center_of_mass) for p in bodies])
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
    return coms
