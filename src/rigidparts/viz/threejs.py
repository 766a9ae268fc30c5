"""three.js JSON objects (the Object format 4 that ``THREE.ObjectLoader`` reads, as meshcat's
``set_object`` command carries it) for the parts of a viewer scene: a body's mesh with its
sharp edges, frame triads, the centre-of-mass marker, the inertia ellipsoid, joint axes, rods
(a unit cylinder placed between two points by :func:`rod_transforms`).

Numbers only, no three.js here. Lengths in m, in the coordinates of the node the object is set
on; 4 x 4 matrices are written column-major (three.js ``Matrix4.fromArray``). Identifiers are
deterministic (a counter each scene owns and passes to its builders), so the same scene gives
the same file.

Equal geometries and materials are written once per scene: the builders of one scene share a
registry (``shared``: key -> identifier), so the first ``set_object`` that uses a geometry
(a body's mesh, the unit triad, an arrow) carries its JSON and every later one names it by its
identifier only (the viewer's player keeps what it parsed; :mod:`.html_page`). A frame's triad,
a centre-of-mass marker and a joint's arrow are each one mesh of a shared unit geometry (the
triad's and the marker's colours per vertex) scaled by its node's matrix: one draw call each,
a hundred bytes of JSON each.
"""

from __future__ import annotations

import functools
import itertools
import json
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

    if isinstance(color, Appearance):
        return color.rgb_int
    if isinstance(color, str):
        return _color_int_of_text(color)
    return Appearance(color=color).rgb_int


@functools.cache
def _color_int_of_text(color: str) -> int:
    from ..appearance import Appearance

    return Appearance(color=color).rgb_int


def short_numbers(values: Any) -> list[float]:
    """A flat list of the floats ``values``, whole numbers as ints (``0``, not ``0.0``: the
    same number to a JSON reader, shorter), others at full precision."""
    array = np.asarray(values, dtype=np.float64).reshape(-1)
    return [int(v) if v.is_integer() and abs(v) < 2.0**53 else v for v in array.tolist()]


def rounded(values: Any, digits: int = MESH_DIGITS) -> list[float]:
    """A flat list of floats written with ``digits`` significant digits (shorter JSON)."""
    array = np.asarray(values, dtype=np.float64).reshape(-1)
    if len(array) <= 64:  # a node's matrix: plain Python is quicker than numpy's strings
        form = f".{digits}g"
        return short_numbers([float(format(v, form)) for v in array.tolist()])
    return short_numbers(np.char.mod(f"%.{digits}g", array).astype(np.float64))


def matrix(
    rotation: Any = None, position: Any = None, scale: Sequence[float] | None = None
) -> list[float]:
    """The column-major 4 x 4 ``[R diag(scale) | p]`` as 16 numbers (:func:`short_numbers`)."""
    m = np.eye(4)
    if rotation is not None:
        m[:3, :3] = np.asarray(rotation, dtype=np.float64)
    if scale is not None:
        m[:3, :3] = m[:3, :3] * np.asarray(scale, dtype=np.float64)[None, :]
    if position is not None:
        m[:3, 3] = np.asarray(position, dtype=np.float64)
    return short_numbers(m.T)


def _rotation_y_to(direction: Any) -> np.ndarray:
    """A rotation taking +y (three.js's cylinder axis) to the unit vector ``direction``."""
    return _rotation_y_to_cached(tuple(np.asarray(direction, dtype=np.float64).tolist())).copy()


@functools.cache
def _rotation_y_to_cached(direction: tuple[float, ...]) -> np.ndarray:
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


def _data_key(data: dict[str, Any]) -> Any:
    """A hashable key equal for equal JSON ``data`` (a geometry's or material's numbers)."""
    try:
        key = tuple(sorted(data.items()))
        hash(key)
        return key
    except TypeError:  # lists inside: their JSON
        return json.dumps(data, sort_keys=True)


class ObjectBuilder:
    """Collects the geometries and materials of one three.js object tree (one ``set_object``)
    and writes its JSON. ``ids`` numbers its objects: the scene's own counter, shared by the
    builders of one scene (identifiers are unique within the scene), never by two scenes.
    ``shared`` (key -> identifier), the scene's registry of what earlier builders wrote: a
    geometry or material already there is named, not written again (module docstring)."""

    def __init__(
        self, ids: Iterator[int] | None = None, shared: dict[Any, str] | None = None
    ) -> None:
        self.geometries: list[dict[str, Any]] = []
        self.materials: list[dict[str, Any]] = []
        self._ids = itertools.count() if ids is None else ids
        self._shared = {} if shared is None else shared

    def uuid(self, kind: str) -> str:
        return f"{kind[0]}{next(self._ids)}"  # short: a model has thousands

    def known(self, key: Any) -> str | None:
        """The identifier of the geometry or material written under ``key``, else None."""
        return self._shared.get(key)

    def geometry(self, data: dict[str, Any], key: Any = None) -> str:
        """The identifier of the geometry ``data``: written here, or named when one with the
        same ``key`` (default: the data itself) was written before in the scene."""
        key = ("geometry", _data_key(data)) if key is None else key
        if key in self._shared:
            return self._shared[key]
        uuid = self.uuid("geometry")
        self.geometries.append({"uuid": uuid, **data})
        self._shared[key] = uuid
        return uuid

    def material(self, data: dict[str, Any]) -> str:
        """The identifier of the material ``data``, written once per scene."""
        key = ("material", _data_key(data))
        if key in self._shared:
            return self._shared[key]
        uuid = self.uuid("material")
        self.materials.append({"uuid": uuid, **data})
        self._shared[key] = uuid
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
        out: dict[str, Any] = {"type": kind}  # three.js makes the nodes' own uuids
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
        """The JSON of the tree with ``root`` on top (the geometries and materials written
        here; those only named, written by an earlier object of the scene, are not repeated,
        and an object that writes none has no metadata: a short line each)."""
        out: dict[str, Any] = {}
        if self.geometries or self.materials:
            out["metadata"] = {"version": 4.5, "type": "Object"}
        out.update(geometries=self.geometries, materials=self.materials, object=root)
        return out

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

    def buffer_geometry(
        self, vertices: Any, faces: Any = None, *, key: Any = None, **attributes: Any
    ) -> str:
        """A ``BufferGeometry`` of ``vertices`` (N, 3), indexed by ``faces`` (F, 3) when given,
        with further float attributes (``normal``, ``color``: (N, 3)); ``key`` names it for
        sharing (a body's mesh: written once however many bodies use it)."""
        if key is not None and self.known(key) is not None:
            return self.known(key)  # type: ignore[return-value]
        data: dict[str, Any] = {
            "attributes": {
                name: {
                    "itemSize": 3,
                    "type": "Float32Array",
                    "array": rounded(values),
                    "normalized": False,
                }
                for name, values in {"position": vertices, **attributes}.items()
            }
        }
        if faces is not None:
            index = np.asarray(faces, dtype=np.int64).reshape(-1)
            data["index"] = {
                "type": "Uint32Array" if index.size and index.max() > 65535 else "Uint16Array",
                "array": [int(i) for i in index],
            }
        return self.geometry({"type": "BufferGeometry", "data": data}, key=key or object())

    def mesh(
        self,
        vertices: np.ndarray,
        faces: np.ndarray,
        color: Any,
        opacity: float,
        edges: np.ndarray | None,
        edge_color: Any = "#30343b",
        *,
        key: Any = None,
    ) -> dict[str, Any]:
        """A body's surface (normals computed by the viewer from shared vertices: split the
        mesh at sharp edges first) with its sharp ``edges`` (E, 2, 3) as lines; ``key``
        identifies equal meshes (their geometry is written once per scene)."""
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
            lines = self.buffer_geometry(edges, key=None if key is None else ("edges", key))
            children.append(self.node("LineSegments", lines, line, name="edges"))
        surface = self.phong(
            color, opacity, polygonOffset=True, polygonOffsetFactor=1.0, polygonOffsetUnits=1.0
        )
        return self.node(
            "Mesh",
            self.buffer_geometry(vertices, faces, key=None if key is None else ("surface", key)),
            surface,
            name="surface",
            children=children,
        )

    def vertex_coloured(self) -> str:
        """The material of the meshes coloured per vertex (triads, centre-of-mass markers)."""
        return self.phong("#ffffff", vertexColors=True)

    def unit_geometry(self, name: str, arrays: tuple[np.ndarray, ...]) -> str:
        """A non-indexed geometry of ``arrays`` = (positions, normals[, colours]) under the
        scene-wide key ``name`` (written once)."""
        key = ("unit", name)
        if self.known(key) is not None:
            return self.known(key)  # type: ignore[return-value]
        extra = {"normal": arrays[1]}
        if len(arrays) > 2:
            extra["color"] = arrays[2]
        return self.buffer_geometry(arrays[0], key=key, **extra)

    def triad(self, length: float, colors: Sequence[Any]) -> dict[str, Any]:
        """Three arrows of ``length`` along the node's x, y and z axes, coloured ``colors``:
        one mesh of the shared unit triad (:func:`triad_arrays`) scaled by ``length``."""
        numbers = tuple(color_int(c) for c in colors)
        geometry = self.unit_geometry(f"triad {numbers}", triad_arrays(numbers))
        return self.node(
            "Mesh",
            geometry,
            self.vertex_coloured(),
            name="triad",
            matrix_=matrix(None, None, [length] * 3),
        )

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
        """The centre-of-mass symbol: a sphere of ``radius`` at ``center`` in black and white
        octants (one mesh of the shared unit marker, :func:`marker_arrays`)."""
        geometry = self.unit_geometry("centre of mass", marker_arrays())
        return self.node(
            "Mesh",
            geometry,
            self.vertex_coloured(),
            name="centre of mass",
            matrix_=matrix(None, center, [radius] * 3),
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
            start = np.asarray(origin, dtype=np.float64) - length * np.asarray(axis)
            geometry = self.unit_geometry("arrow", arrow_arrays())
            turn = _rotation_y_to(axis)
            return self.node(
                "Mesh",
                geometry,
                material,
                name="joint axis",
                matrix_=matrix(turn, start, [2.0 * length] * 3),
            )
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


# -- shared unit geometries (non-indexed triangles: positions, normals[, colours]) -----------


@functools.cache
def arrow_arrays(segments: int = 16) -> tuple[np.ndarray, np.ndarray]:
    """An arrow of length 1 along +y from the origin: a shaft of radius
    :data:`AXIS_LENGTH_RATIO` up to y = 0.8 and a cone head 2.5 times as wide from 0.8 to 1
    (the proportions of :func:`_arrow_geometries`); ``(positions (N, 3), normals (N, 3))``,
    smooth around, flat on the caps."""
    radius, head, neck = AXIS_LENGTH_RATIO, 2.5 * AXIS_LENGTH_RATIO, 0.8
    angle = np.linspace(0.0, 2.0 * np.pi, segments + 1)
    c, s = np.cos(angle), np.sin(angle)
    slope = np.hypot(head, 1.0 - neck)
    points, normals = [], []

    def add(tri: list[tuple[float, ...]], nrm: list[tuple[float, ...]]) -> None:
        points.extend(tri)
        normals.extend(nrm)

    for k in range(segments):
        a, b = k, k + 1
        side_a, side_b = (c[a], 0.0, s[a]), (c[b], 0.0, s[b])
        ring = [(radius * c[i], y, radius * s[i]) for i in (a, b) for y in (0.0, neck)]
        add([ring[0], ring[1], ring[3]], [side_a, side_a, side_b])  # shaft side
        add([ring[0], ring[3], ring[2]], [side_a, side_b, side_b])
        down = (0.0, -1.0, 0.0)
        add([(0.0, 0.0, 0.0), ring[0], ring[2]], [down] * 3)  # bottom cap
        brim = [(head * c[i], neck, head * s[i]) for i in (a, b)]
        add([(0.0, neck, 0.0), brim[1], brim[0]], [down] * 3)  # under the head
        cone = [(c[i] * (1.0 - neck) / slope, head / slope, s[i] * (1.0 - neck) / slope)
                for i in (a, b)]  # fmt: skip
        tip = tuple(0.5 * (u + v) for u, v in zip(cone[0], cone[1], strict=True))
        add([brim[0], brim[1], (0.0, 1.0, 0.0)], [cone[0], cone[1], tip])  # head
    # counter-clockwise seen from outside: flip the winding where the normal disagrees
    tri = np.asarray(points, dtype=np.float64).reshape(-1, 3, 3)
    nrm = np.asarray(normals, dtype=np.float64).reshape(-1, 3, 3)
    facing = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    flip = np.einsum("ij,ij->i", facing, nrm.mean(axis=1)) < 0.0
    tri[flip] = tri[flip][:, ::-1]
    nrm[flip] = nrm[flip][:, ::-1]
    return tri.reshape(-1, 3), nrm.reshape(-1, 3)


@functools.cache
def triad_arrays(colors: tuple[int, int, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Three unit arrows (:func:`arrow_arrays`) along x, y and z, coloured ``colors``
    (0xRRGGBB each): ``(positions, normals, colours in [0, 1])``, (N, 3) each."""
    points, normals = arrow_arrays()
    out = ([], [], [])
    for axis, color in zip(np.eye(3), colors, strict=True):
        turn = _rotation_y_to(axis)
        rgb = np.array([(color >> 16) & 255, (color >> 8) & 255, color & 255]) / 255.0
        out[0].append(points @ turn.T)
        out[1].append(normals @ turn.T)
        out[2].append(np.tile(rgb, (len(points), 1)))
    return tuple(np.concatenate(part) for part in out)  # type: ignore[return-value]


@functools.cache
def marker_arrays(rings: int = 8, around: int = 16) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The unit sphere in black (#1a1a1a) and white (#f4f4f4) octants, the centre-of-mass
    symbol: ``(positions, normals, colours)`` (N, 3) each; ``rings`` and ``around`` are even
    and a multiple of 4, so the grid's lines hold the octants' borders."""
    polar = np.linspace(0.0, np.pi, rings + 1)
    azimuth = np.linspace(0.0, 2.0 * np.pi, around + 1)
    grid = np.stack(
        [
            np.outer(np.sin(polar), np.cos(azimuth)),
            np.outer(np.sin(polar), np.sin(azimuth)),
            np.outer(np.cos(polar), np.ones_like(azimuth)),
        ],
        axis=-1,
    )  # (rings + 1, around + 1, 3)
    a, b = grid[:-1, :-1], grid[:-1, 1:]
    c, d = grid[1:, :-1], grid[1:, 1:]
    tri = np.concatenate([np.stack([a, c, d], -2), np.stack([a, d, b], -2)]).reshape(-1, 3, 3)
    area = np.linalg.norm(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]), axis=1)
    tri = tri[area > 1e-12]  # the poles' degenerate triangles
    centre = tri.mean(axis=1)
    black = (np.sum(centre < 0.0, axis=1) % 2) == 0
    rgb = np.where(black[:, None], 0x1A / 255.0, 0xF4 / 255.0) * np.ones((1, 3))
    colours = np.repeat(rgb, 3, axis=0)
    positions = tri.reshape(-1, 3)
    return positions, positions.copy(), colours
