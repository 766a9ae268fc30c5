"""Where things are in a picture: world-coordinate geometry, numpy only (no matplotlib).

World coordinates are frame_a of a single body, or the model's world frame W; lengths in m.

- :class:`PlacedBody`: a body at a world pose ``(R_WA, p_WAo)``;
- :class:`BodyGeometry`: a body's mesh in frame_a prepared for drawing (triangles, normals,
  sharp edges), built from ``body.mesh()`` whatever the shape;
- the equivalent inertia ellipsoid (:func:`inertia_ellipsoid`, :func:`ellipsoid_surface`,
  :func:`principal_ellipses`);
- the frames to draw as triads (:func:`frame_triads`: origin and ``R_WF`` per frame, so a
  frame's own rotation ``R_AF`` turns its triad);
- the camera: :func:`eye_direction`, :func:`screen_axes`, :func:`light_direction`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..appearance import Appearance

__all__ = [
    "SHARP_ANGLE",
    "BodyGeometry",
    "PlacedBody",
    "ellipsoid_surface",
    "eye_direction",
    "frame_triads",
    "inertia_ellipsoid",
    "light_direction",
    "principal_ellipses",
    "screen_axes",
]

#: Faces meeting at more than this angle (radians) get an outline.
SHARP_ANGLE = math.radians(20.0)


@dataclass
class PlacedBody:
    """A body at a world pose: ``rotation`` = ``R_WA``, ``position`` = ``p_WAo`` (m);
    ``name`` is the body's name in a model (None for a lone body); ``appearance`` its
    :class:`~rigidparts.appearance.Appearance` (None: the default for its index in the
    scene)."""

    body: Any
    name: str | None = None
    rotation: np.ndarray = field(default_factory=lambda: np.eye(3))
    position: np.ndarray = field(default_factory=lambda: np.zeros(3))
    appearance: Appearance | None = None

    def to_world(self, points: np.ndarray) -> np.ndarray:
        """Points (..., 3) in frame_a -> world: ``p_W = R_WA p_A + p_WAo``."""
        return np.asarray(points) @ np.asarray(self.rotation).T + np.asarray(self.position)


class BodyGeometry:
    """A body's mesh in frame_a, prepared for drawing: ``triangles`` (F, 3, 3), face
    ``normals`` (F, 3), sharp ``edges`` (E, 2, 3) and ``vertices`` (V, 3), all in m."""

    def __init__(self, body: Any, sections: int) -> None:
        mesh = body.mesh(sections=sections)
        # matplotlib paints faces back to front by their mean depth; long thin faces (a tube's
        # side) would sort wrongly against the bore, so split them into shorter ones.
        mesh = mesh.subdivide_to_size(max_edge=float(np.max(mesh.extents)) / 12.0, max_iter=12)
        self.triangles = np.asarray(mesh.vertices)[np.asarray(mesh.faces)]
        self.normals = np.asarray(mesh.face_normals)
        sharp = np.asarray(mesh.face_adjacency_angles) > SHARP_ANGLE
        self.edges = np.asarray(mesh.vertices)[np.asarray(mesh.face_adjacency_edges)[sharp]]
        self.vertices = np.asarray(mesh.vertices)


# -- the equivalent inertia ellipsoid -----------------------------------------------------------


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


def ellipsoid_surface(placed: PlacedBody, resolution: int = 16) -> tuple[np.ndarray, ...]:
    """World coordinates (X, Y, Z grids, (2 resolution + 1, resolution + 1) each, m) of a
    body's equivalent inertia ellipsoid, centred at its centre of mass along its principal
    axes."""
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


def principal_ellipses(placed: PlacedBody, points: int = 97) -> np.ndarray:
    """The ellipsoid's three principal ellipses as closed polylines, world coordinates (m),
    shape (3, points, 3)."""
    body = placed.body
    semi = inertia_ellipsoid(body.mass, body.principal_moments)
    axes = np.asarray(body.principal_axes)
    t = np.linspace(0.0, 2.0 * np.pi, points)[:, None]
    rings = []
    for i, j in ((0, 1), (1, 2), (2, 0)):
        local = np.cos(t) * semi[i] * axes[:, i] + np.sin(t) * semi[j] * axes[:, j]
        rings.append(placed.to_world(local + np.asarray(body.center_of_mass)))
    return np.array(rings)


# -- frames -------------------------------------------------------------------------------------


def frame_triads(
    placed: PlacedBody, names: Sequence[str]
) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """``(label, p_WFo (3,), R_WF (3, 3))`` for the frames ``names`` of one placed body:
    ``R_WF = R_WA R_AF``, so the triad's x, y, z arrows are the columns of ``R_WF`` (a frame
    turned relative to frame_a, such as a radial frame, draws turned). The label is the
    frame's name, ``body.frame`` in a model."""
    out = []
    for name in names:
        frame = placed.body.frames[name]
        origin = placed.to_world(frame.position)
        rotation = np.asarray(placed.rotation) @ np.asarray(frame.rotation)
        label = name if placed.name is None else f"{placed.name}.{name}"
        out.append((label, origin, rotation))
    return out


# -- the camera ---------------------------------------------------------------------------------


def eye_direction(elev: float, azim: float) -> np.ndarray:
    """Unit vector from the scene towards the viewer (matplotlib's elevation and azimuth,
    degrees)."""
    e, a = math.radians(elev), math.radians(azim)
    return np.array([math.cos(e) * math.cos(a), math.cos(e) * math.sin(a), math.sin(e)])


def screen_axes(elev: float, azim: float) -> tuple[np.ndarray, np.ndarray]:
    """World unit vectors ``(right, up)`` pointing right and up on the screen."""
    e, a = math.radians(elev), math.radians(azim)
    right = np.array([-math.sin(a), math.cos(a), 0.0])
    up = np.array([-math.sin(e) * math.cos(a), -math.sin(e) * math.sin(a), math.cos(e)])
    return right, up


def light_direction(elev: float, azim: float) -> np.ndarray:
    """A unit vector towards the light, fixed to the camera: from the viewer, about 35
    degrees up and to the left, so that round surfaces shade from bright to dark."""
    right, up = screen_axes(elev, azim)
    light = eye_direction(elev, azim) + 0.5 * up - 0.45 * right
    return light / np.linalg.norm(light)
