"""three.js JSON objects (the Object format 4 that ``THREE.ObjectLoader`` reads, as meshcat's
``set_object`` command carries it) for the parts of a viewer scene: a body's mesh with its
sharp edges, frame triads, the centre-of-mass marker, the inertia ellipsoid, joint axes, rods
(a unit cylinder placed between two points by :func:`rod_transforms`).

Numbers only, no three.js here. Lengths in m, in the coordinates of the node the object is set
on; 4 x 4 matrices are written column-major (three.js ``Matrix4.fromArray``). Identifiers are
deterministic (a counter each scene owns and passes to its builders), so the same scene gives
the same file.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

__all__ = [
    "AXIS_LENGTH_RATIO",
    "ObjectBuilder",
    "arrow_children",
    "color_int",
    "matrix",
    "rod_transforms",
    "rounded",
]

#: The shaft radius of an arrow, as a fraction of its length.
AXIS_LENGTH_RATIO = 0.035

#: Significant digits of mesh coordinates (float32, which the GPU uses, holds about 7.2).
MESH_DIGITS = 7


def color_int(color: Any) -> int:
    """``0xRRGGBB`` of any colour :func:`rigidparts.appearance.parse_color` takes (a name,
    ``"#rrggbb"``, ``"#rgb"``, (r, g, b) in [0, 1]): :attr:`Appearance.rgb_int`."""
    from ..appearance import Appearance

    return (color if isinstance(color, Appearance) else Appearance(color=color)).rgb_int


def rounded(values: Any, digits: int = MESH_DIGITS) -> list[float]:
    """A flat list of floats written with ``digits`` significant digits (shorter JSON)."""
    array = np.asarray(values, dtype=np.float64).reshape(-1)
    return [float(text) for text in np.char.mod(f"%.{digits}g", array)]


def matrix(
    rotation: Any = None, position: Any = None, scale: Sequence[float] | None = None
) -> list[float]:
    """The column-major 4 x 4 ``[R diag(scale) | p]`` as 16 floats."""
    m = np.eye(4)
    if rotation is not None:
        m[:3, :3] = np.asarray(rotation, dtype=np.float64)
    if scale is not None:
        m[:3, :3] = m[:3, :3] * np.asarray(scale, dtype=np.float64)[None, :]
    if position is not None:
        m[:3, 3] = np.asarray(position, dtype=np.float64)
    return [float(v) for v in m.T.reshape(-1)]


def _rotation_y_to(direction: Any) -> np.ndarray:
    """A rotation taking +y (three.js's cylinder axis) to the unit vector ``direction``."""
    d = np.asarray(direction, dtype=np.float64)
    d = d / np.linalg.norm(d)
    # Any vector not parallel to d completes the basis.
    helper = np.array([1.0, 0.0, 0.0]) if abs(d[0]) < 0.9 else np.array([0.0, 0.0, 1.0])
    x = np.cross(d, helper)
    x /= np.linalg.norm(x)
    z = np.cross(x, d)
    return np.column_stack([x, d, z])


def rod_transforms(
    start: Any, end: Any, min_length: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(midpoints (N, 3), rotations (N, 3, 3), lengths (N,), shown (N,))`` that place a
    unit cylinder along +y (three.js's ``CylinderGeometry`` of height 1, centred on the origin)
    between the points ``start`` and ``end`` (``(3,)`` or ``(N, 3)``, m): the node's matrix is
    ``[R diag(1, shown, 1) | midpoint]``, so the cylinder's ends are ``midpoint -/+ shown / 2
    R e_y`` = ``start`` and ``end``.

    ``R`` is the smallest rotation taking +y to ``u = (end - start) / L``, ``L = |end -
    start|``: Rodrigues' formula (:func:`rigidparts.transforms.rotation_about_axis`) about
    ``e_y x u`` by ``atan2(|e_y x u|, e_y . u)``, turning smoothly as ``u`` moves (slerp between
    keyframes then follows the rod); half a turn about x when ``u = -e_y``. ``u`` is normalised
    after dividing by its largest component, so a tiny ``L`` neither underflows nor overflows.
    ``shown = max(L, min_length)``: a rod shorter than ``min_length`` (> 0; zero keeps
    ``R = 1``) is drawn that long, since a zero scale would make the node's matrix singular and
    three.js's decomposition of it NaN (and float32 flushes a subnormal scale to zero)."""
    from ..transforms import rotation_about_axis

    a = np.atleast_2d(np.asarray(start, dtype=np.float64))
    b = np.atleast_2d(np.asarray(end, dtype=np.float64))
    a, b = np.broadcast_arrays(a, b)
    delta = b - a
    midpoints = a + 0.5 * delta
    lengths = np.zeros(len(delta))
    rotations = np.repeat(np.eye(3)[None], len(delta), axis=0)
    y = np.array([0.0, 1.0, 0.0])
    for k, d in enumerate(delta):
        big = float(np.max(np.abs(d)))
        if big == 0.0:
            continue
        u = d / big
        lengths[k] = big * float(np.linalg.norm(u))
        u /= np.linalg.norm(u)
        axis = np.cross(y, u)
        sine = float(np.linalg.norm(axis))
        if sine == 0.0:
            if u[1] < 0.0:
                rotations[k] = rotation_about_axis((1.0, 0.0, 0.0), np.pi)
            continue
        rotations[k] = rotation_about_axis(axis / sine, math.atan2(sine, float(u[1])))
    shown = np.maximum(lengths, float(min_length))
    return midpoints, rotations, lengths, shown


class ObjectBuilder:
    """Collects the geometries and materials of one three.js object tree (one ``set_object``)
    and writes its JSON. ``ids`` numbers its objects: the scene's own counter, shared by the
    builders of one scene (identifiers are unique within the scene), never by two scenes."""

    def __init__(self, ids: Iterator[int] | None = None) -> None:
        self.geometries: list[dict[str, Any]] = []
        self.materials: list[dict[str, Any]] = []
        self._ids = itertools.count() if ids is None else ids

    def uuid(self, kind: str) -> str:
        return f"{kind[0]}{next(self._ids)}"  # short: a model has thousands

    def geometry(self, data: dict[str, Any]) -> str:
        uuid = self.uuid("geometry")
        self.geometries.append({"uuid": uuid, **data})
        return uuid

    def material(self, data: dict[str, Any]) -> str:
        uuid = self.uuid("material")
        self.materials.append({"uuid": uuid, **data})
        return uuid

    def node(
        self,
        kind: str,
        geometry: str | None = None,
        material: str | None = None,
        *,
        name: str | None = None,
        matrix_: list[float] | None = None,
        children: list[dict[str, Any]] | None = None,
        **extra: Any,
    ) -> dict[str, Any]:
        out: dict[str, Any] = {"uuid": self.uuid("object"), "type": kind}
        if name is not None:
            out["name"] = name
        if geometry is not None:
            out["geometry"] = geometry
        if material is not None:
            out["material"] = material
        if matrix_ is not None:
            out["matrix"] = rounded(matrix_)  # float32 on the GPU: 7 digits are plenty
        if children:
            out["children"] = children
        out.update(extra)
        return out

    def build(self, root: dict[str, Any]) -> dict[str, Any]:
        """The JSON of the tree with ``root`` on top."""
        return {
            "metadata": {"version": 4.5, "type": "Object"},
            "geometries": self.geometries,
            "materials": self.materials,
            "object": root,
        }

    # -- parts ----------------------------------------------------------------------------------

    def phong(self, color: Any, opacity: float = 1.0, **extra: Any) -> str:
        data = {
            "type": "MeshPhongMaterial",
            "color": color_int(color),
            "shininess": 30,
            "side": 2,  # THREE.DoubleSide: open meshes and bores show both faces
            "transparent": opacity < 1.0,
            "opacity": float(opacity),
        }
        data.update(extra)
        return self.material(data)

    def buffer_geometry(self, vertices: Any, faces: Any = None) -> str:
        data: dict[str, Any] = {
            "attributes": {
                "position": {
                    "itemSize": 3,
                    "type": "Float32Array",
                    "array": rounded(vertices),
                    "normalized": False,
                }
            }
        }
        if faces is not None:
            index = np.asarray(faces, dtype=np.int64).reshape(-1)
            data["index"] = {
                "type": "Uint32Array" if index.size and index.max() > 65535 else "Uint16Array",
                "array": [int(i) for i in index],
            }
        return self.geometry({"type": "BufferGeometry", "data": data})

    def mesh(
        self,
        vertices: np.ndarray,
        faces: np.ndarray,
        color: Any,
        opacity: float,
        edges: np.ndarray | None,
        edge_color: Any = "#30343b",
    ) -> dict[str, Any]:
        """A body's surface (normals computed by the viewer from shared vertices: split the
        mesh at sharp edges first) with its sharp ``edges`` (E, 2, 3) as lines."""
        children = []
        if edges is not None and len(edges):
            line = self.material(
                {
                    "type": "LineBasicMaterial",
                    "color": color_int(edge_color),
                    "transparent": opacity < 1.0,
                    "opacity": float(min(1.0, 0.2 + opacity)),
                }
            )
            children.append(
                self.node("LineSegments", self.buffer_geometry(edges), line, name="edges")
            )
        surface = self.phong(
            color, opacity, polygonOffset=True, polygonOffsetFactor=1.0, polygonOffsetUnits=1.0
        )
        return self.node(
            "Mesh",
            self.buffer_geometry(vertices, faces),
            surface,
            name="surface",
            children=children,
        )

    def triad(self, length: float, colors: Sequence[Any]) -> dict[str, Any]:
        """Three arrows of ``length`` along the node's x, y and z axes, coloured ``colors``."""
        shaft, head = _arrow_geometries(self, length)
        children = []
        for axis, color in zip(np.eye(3), colors, strict=True):
            children += arrow_children(self, shaft, head, self.phong(color), axis, length)
        return self.node("Group", name="triad", children=children)

    def rod(self, radius: float, color: Any) -> dict[str, Any]:
        """A rod: a cylinder of ``radius`` and height 1 along the node's y axis, centred on its
        origin (the node's matrix, :func:`rod_transforms`, stretches it between the ends)."""
        cylinder = self.geometry(
            {
                "type": "CylinderGeometry",
                "radiusTop": radius,
                "radiusBottom": radius,
                "height": 1.0,
                "radialSegments": 12,
            }
        )
        return self.node("Mesh", cylinder, self.phong(color), name="rod")

    def com_marker(self, radius: float, center: Any) -> dict[str, Any]:
        """The centre-of-mass symbol: a sphere of ``radius`` in black and white octants."""
        octant = self.geometry(
            {
                "type": "SphereGeometry",
                "radius": radius,
                "widthSegments": 8,
                "heightSegments": 6,
                "phiStart": 0.0,
                "phiLength": np.pi / 2,
                "thetaStart": 0.0,
                "thetaLength": np.pi / 2,
            }
        )
        black = self.phong("#1a1a1a", shininess=60)
        white = self.phong("#f4f4f4", shininess=60)
        children = []
        for upper in (True, False):
            for quarter in range(4):
                angle = quarter * np.pi / 2
                c, s = np.cos(angle), np.sin(angle)
                turn = np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])  # about y (up)
                flip = np.eye(3) if upper else np.diag([1.0, -1.0, -1.0])
                colour = black if (quarter % 2 == 0) == upper else white
                children.append(self.node("Mesh", octant, colour, matrix_=matrix(flip @ turn)))
        # three.js spheres have y up; turn y to the body's z.
        up = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]])
        return self.node(
            "Group", name="centre of mass", matrix_=matrix(up, center), children=children
        )

    def ellipsoid(
        self, semi_axes: Any, axes: Any, center: Any, color: Any, opacity: float = 0.35
    ) -> dict[str, Any]:
        """A unit sphere scaled to ``semi_axes`` along the columns of ``axes``, at ``center``
        (a zero semi-axis is drawn a hair thick: a flat ellipsoid stays a valid transform)."""
        semi = np.asarray(semi_axes, dtype=np.float64)
        semi = np.maximum(semi, 1e-6 * max(float(semi.max()), 1e-300))
        sphere = self.geometry(
            {"type": "SphereGeometry", "radius": 1.0, "widthSegments": 32, "heightSegments": 16}
        )
        material = self.phong(color, opacity, depthWrite=False)
        return self.node(
            "Mesh",
            sphere,
            material,
            name="ellipsoid",
            matrix_=matrix(np.asarray(axes, dtype=np.float64), center, semi),
        )

    def joint(
        self, origin: Any, axis: Any, length: float, color: Any, pivot: bool
    ) -> dict[str, Any]:
        """A joint's axis as a double-length arrow through ``origin`` (a ring for a joint
        that turns about a point, a small sphere for one without an axis)."""
        material = self.phong(color)
        if axis is not None:
            shaft, head = _arrow_geometries(self, 2.0 * length)
            start = np.asarray(origin, dtype=np.float64) - length * np.asarray(axis)
            children = arrow_children(self, shaft, head, material, axis, 2.0 * length, start)
            return self.node("Group", name="joint axis", children=children)
        if pivot:
            ring = self.geometry(
                {
                    "type": "TorusGeometry",
                    "radius": 0.5 * length,
                    "tube": AXIS_LENGTH_RATIO * length,
                    "radialSegments": 8,
                    "tubularSegments": 48,
                }
            )
            return self.node("Mesh", ring, material, name="joint", matrix_=matrix(None, origin))
        dot = self.geometry(
            {
                "type": "SphereGeometry",
                "radius": 0.12 * length,
                "widthSegments": 12,
                "heightSegments": 8,
            }
        )
        return self.node("Mesh", dot, material, name="joint", matrix_=matrix(None, origin))


def _arrow_geometries(builder: ObjectBuilder, length: float) -> tuple[str, str]:
    """The shaft (80 % of ``length``) and head (20 %, 2.5 shaft radii wide) geometries of an
    arrow along +y from the origin (three.js cylinders are centred on the origin, along y)."""
    radius = AXIS_LENGTH_RATIO * length
    shaft = builder.geometry(
        {
            "type": "CylinderGeometry",
            "radiusTop": radius,
            "radiusBottom": radius,
            "height": 0.8 * length,
            "radialSegments": 12,
        }
    )
    head = builder.geometry(
        {
            "type": "CylinderGeometry",
            "radiusTop": 0.0,
            "radiusBottom": 2.5 * radius,
            "height": 0.2 * length,
            "radialSegments": 16,
        }
    )
    return shaft, head


def arrow_children(
    builder: ObjectBuilder,
    shaft: str,
    head: str,
    material: str,
    direction: Any,
    length: float,
    start: Any = (0.0, 0.0, 0.0),
) -> list[dict[str, Any]]:
    """The shaft and head meshes of an arrow of ``length`` from ``start`` along ``direction``
    (made with :func:`_arrow_geometries` of the same length)."""
    rotation = _rotation_y_to(direction)
    d = rotation[:, 1]
    s = np.asarray(start, dtype=np.float64)
    return [
        builder.node("Mesh", shaft, material, matrix_=matrix(rotation, s + 0.4 * length * d)),
        builder.node("Mesh", head, material, matrix_=matrix(rotation, s + 0.9 * length * d)),
    ]
