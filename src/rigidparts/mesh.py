"""Surface meshes of the bodies: watertight, outward-facing ``trimesh.Trimesh`` in frame_a.

``body_mesh(body, sections=64)`` (also ``body.mesh(sections=...)``) builds the body's surface
in its canonical frame C (axis +x from frame_a at x = 0 to frame_b at x = L; the Box's height
along +y, width along +z) with trimesh's own constructors, then maps it into frame_a with
``R_AC = body.rotation_from_canonical`` (so the axis, the height/width directions and
``rotate90`` show in the mesh exactly as in the mass properties). Coordinates are in metres.

- Box: ``trimesh.creation.box`` when solid; ``trimesh.creation.extrude_polygon`` of a shapely
  polygon with a rectangular hole when hollow (two separate slabs when the hole spans the whole
  width or height). The faces are planar, so the mesh volume equals the exact volume
  ``L (H W - H_i W_i)`` to rounding.
- Cone: ``trimesh.creation.revolve`` of the closed (r, x) profile
  ``(R_a, 0) -> (R_b, L) -> (R_bi, L) -> (R_ai, 0)`` (counter-clockwise, so normals point out),
  with ``sections`` segments around. A point (zero radius) closes the surface there; a zero
  wall at one end gives a knife edge; a bore gives a real hole. Each cross-section is a regular
  ``sections``-gon inscribed in the circle, so the mesh volume is exactly
  ``V N sin(2 pi / N) / (2 pi) = V (1 - (2 pi / N)^2 / 6 + ...)`` for ``N = sections``:
  second-order convergence, always slightly below the exact volume.

Robustness. trimesh's constructors merge vertices closer than ``trimesh.tol.merge`` (1e-8) and
``revolve`` drops triangles with an area below it, which would tear the surface of small bodies
or thin walls. So the profile is scaled by a power of two (exact in binary floating point) until
its smallest triangle is far above that tolerance, trimesh's processing is switched off, and only
vertices that are bitwise identical (the closing profile point, points on the axis, the shared
edges of an extrusion) are merged. A wall down to :data:`MIN_RELATIVE_WALL` of the radius
keeps both of its surfaces; a cone end whose wall is thinner than that fraction of its radius
(but not zero) is meshed as a knife edge, since its two surfaces could round onto each other,
and a cone radius below :data:`MIN_RELATIVE_TIP` (a box hole's side below
:data:`MIN_RELATIVE_RADIUS`) of the body's size as a point. A cone whose
walls are that thin at both ends raises :class:`ParameterError`. The body's mass properties
stay exact whatever the mesh does.

Exporting (:func:`export_mesh`): STL, GLB and PLY (as trimesh writes them) store vertices as
float32 (about 7 digits), so walls thinner than about 1e-7 of the body's size do not survive the
file; OBJ is written with 17 significant digits, which keeps float64 exactly.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .errors import ParameterError

if TYPE_CHECKING:  # pragma: no cover
    import trimesh

__all__ = [
    "MAX_SECTIONS",
    "MESH_FORMATS",
    "MIN_RELATIVE_RADIUS",
    "MIN_RELATIVE_TIP",
    "MIN_RELATIVE_WALL",
    "MIN_SECTIONS",
    "body_mesh",
    "canonical_mesh",
    "check_sections",
    "cone_volume_factor",
    "export_mesh",
]

#: Fewest and most segments around round surfaces.
MIN_SECTIONS = 3
MAX_SECTIONS = 65536

#: A cone end whose wall is thinner than this fraction of its radius is meshed as a knife edge.
MIN_RELATIVE_WALL = 2.0**-44  # ~ 5.7e-14, about 256 ulp
#: A box hole's side below this fraction of the body's size is meshed as 0.
MIN_RELATIVE_RADIUS = 2.0**-100  # ~ 7.9e-31
#: A cone radius below this fraction of the body's size is meshed as 0 (a point). Smaller tips
#: make revolve's ring of vertices collapse unevenly and leave the mesh open (a tip of 1e-17
#: of the size did); at this size the volume changes by < 1e-24 of itself.
MIN_RELATIVE_TIP = 2.0**-40  # ~ 9.1e-13

#: Mesh file formats written by ``rigidparts mesh`` (by suffix), with what they store.
MESH_FORMATS: Mapping[str, str] = {
    ".stl": "binary STL (float32 vertices, no connectivity)",
    ".obj": "Wavefront OBJ (text, 17 significant digits: float64 exactly)",
    ".glb": "binary glTF 2.0 (float32 vertices)",
    ".ply": "binary PLY (float32 vertices)",
}

#: The formats that store float32 vertices.
FLOAT32_FORMATS = (".stl", ".glb", ".ply")

# The area, after scaling, below which no triangle of a revolve may fall (trimesh drops
# triangles under ``tol.merge`` = 1e-8); a factor 100 of margin.
_MIN_TRIANGLE_AREA = 1e-6

# Maps the constructors' coordinates (u, v, z) to the canonical frame C: the axis (z of
# revolve/extrude) becomes x, u becomes y (the Box's height), v becomes z (its width).
# A cyclic permutation: a proper rotation, so the winding (outward normals) is kept.
_TO_CANONICAL = np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])


def _trimesh() -> Any:
    try:
        import trimesh
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "meshes need trimesh, shapely and mapbox-earcut: pip install 'rigidparts[mesh]'"
        ) from exc
    return trimesh


def check_sections(sections: Any) -> int:
    """``sections`` as an int, or :class:`ParameterError` unless an integer in
    [:data:`MIN_SECTIONS`, :data:`MAX_SECTIONS`]."""
    rule = f"must be an integer from {MIN_SECTIONS} to {MAX_SECTIONS}"
    if isinstance(sections, bool) or not isinstance(sections, int | np.integer):
        raise ParameterError("sections", sections, rule)
    if not MIN_SECTIONS <= int(sections) <= MAX_SECTIONS:
        raise ParameterError("sections", sections, rule)
    return int(sections)


def export_mesh(mesh: trimesh.Trimesh, path: Any) -> Path:
    """Write ``mesh`` to ``path`` atomically, in the format of its suffix
    (:data:`MESH_FORMATS`); :class:`ParameterError` for another suffix. Returns the path.

    OBJ coordinates are written with 17 significant digits (trimesh writes a fixed number of
    decimals, 8 by default, which would round a millimetre-sized body to 1e-8 m)."""
    from .fileio import atomic_path

    target = Path(path)
    suffix = target.suffix.lower()
    if suffix not in MESH_FORMATS:
        raise ParameterError(
            "output",
            str(path),
            f"must end in {', '.join(MESH_FORMATS)} (the mesh format is taken from the suffix)",
        )
    options: dict[str, Any] = {}
    if suffix == ".obj":
        largest = float(np.max(np.abs(mesh.vertices))) or 1.0
        options["digits"] = int(min(60, max(8, 17 - math.floor(math.log10(largest)))))
    with atomic_path(target) as tmp:
        mesh.export(tmp, file_type=suffix.lstrip("."), **options)
    return target


def cone_volume_factor(sections: int) -> float:
    """``mesh volume / exact volume`` of a revolved body with ``sections`` segments:
    ``N sin(2 pi / N) / (2 pi)``, the area of the inscribed regular N-gon over the circle's."""
    return sections * math.sin(2.0 * math.pi / sections) / (2.0 * math.pi)


def body_mesh(body: Any, *, sections: int = 64) -> trimesh.Trimesh:
    """The body's surface as a watertight, outward-facing ``trimesh.Trimesh`` in frame_a (m).

    Parameters
    ----------
    body : a rigidparts body (``rp.Box``, ``rp.Cone``, ...).
    sections : segments around round surfaces (3 .. 65536); ignored by the Box.

    The mesh's ``metadata`` holds ``shape`` and ``parameters`` (the body's SI keyword
    arguments). Vertices ``p_A = R_AC p_C``, with ``p_C`` the canonical-frame mesh of
    :func:`canonical_mesh`.
    """
    trimesh = _trimesh()
    sections = check_sections(sections)
    canonical = canonical_mesh(body.shape, body.dimensions, sections=sections)
    r_ac = np.asarray(body.rotation_from_canonical, dtype=np.float64)
    # By hand, not Trimesh.apply_transform: that skips matrices within 1e-8 of the identity,
    # which would drop an axis tilted by less than 1e-8 rad.
    return trimesh.Trimesh(
        vertices=np.asarray(canonical.vertices) @ r_ac.T,
        faces=np.asarray(canonical.faces),
        process=False,
        metadata={"shape": body.shape, "parameters": body.parameters()},
    )


def canonical_mesh(
    shape: str, dimensions: Mapping[str, float], *, sections: int = 64
) -> trimesh.Trimesh:
    """The mesh of a shape in its canonical frame C (axis +x from x = 0 to x = L), metres.

    ``dimensions`` are the shape's SI dimensions by keyword (``body.dimensions``).
    """
    try:
        builder = _BUILDERS[shape]
    except KeyError:
        raise ParameterError("shape", shape, f"has no mesh; known: {sorted(_BUILDERS)}") from None
    sections = check_sections(sections)
    mesh = builder(dimensions, sections)
    if not (mesh.is_watertight and mesh.is_winding_consistent and mesh.volume > 0.0):
        raise RuntimeError(  # pragma: no cover - a bug, not a user error
            f"internal error: the {shape} mesh of {dict(dimensions)} is not a closed volume"
        )
    return mesh


# -- helpers ------------------------------------------------------------------------------------


def _power_of_two_at_least(value: float) -> float:
    """The smallest ``2**k >= value`` (``value > 0``); multiplying by it is exact."""
    mantissa, exponent = math.frexp(value)
    return math.ldexp(1.0, exponent - 1 if mantissa == 0.5 else exponent)


def _scale_to_unit(size: float) -> float:
    """A power of two ``s`` with ``s * size`` in [0.5, 1)."""
    return math.ldexp(1.0, -math.frexp(size)[1])


def _exact_merge(vertices: np.ndarray, faces: np.ndarray, scale: float) -> Any:
    """A Trimesh in C from raw constructor output (coordinates (u, v, z), scaled by
    ``scale``): merge bitwise-identical vertices only (``+ 0.0`` makes -0.0 equal to 0.0), drop
    faces that then repeat a vertex, map (u, v, z) to C (a permutation: exact) and undo the
    power-of-two scale (exact)."""
    trimesh = _trimesh()
    unique, inverse = np.unique(vertices + 0.0, axis=0, return_inverse=True)
    faces = inverse.reshape(-1)[faces]
    keep = (
        (faces[:, 0] != faces[:, 1]) & (faces[:, 1] != faces[:, 2]) & (faces[:, 0] != faces[:, 2])
    )
    canonical = (unique @ _TO_CANONICAL.T) / scale
    mesh = trimesh.Trimesh(vertices=canonical, faces=faces[keep], process=False)
    mesh.remove_unreferenced_vertices()
    return mesh


# -- Box ----------------------------------------------------------------------------------------


def _box_mesh(dimensions: Mapping[str, float], sections: int) -> Any:
    """Box in C: x in [0, L], height along y in [-H/2, H/2], width along z in [-W/2, W/2]."""
    trimesh = _trimesh()
    length = dimensions["length"]
    width, height = dimensions["width"], dimensions["height"]
    inner_width, inner_height = dimensions["inner_width"], dimensions["inner_height"]
    scale = _scale_to_unit(max(length, width, height))
    ell, w, h = length * scale, width * scale, height * scale
    wi, hi = inner_width * scale, inner_height * scale
    # A hole side below float64's reach (as the cone's radii) is no hole.
    if min(wi, hi) < MIN_RELATIVE_RADIUS * max(ell, w, h):
        wi = hi = 0.0

    def slab(h0: float, h1: float, w0: float, w1: float) -> Any:
        # A solid cuboid over heights [h0, h1] x widths [w0, w1] x axis [0, L] (u, v, z).
        return trimesh.creation.box(bounds=[[h0, w0, 0.0], [h1, w1, ell]])

    if wi == 0.0 or hi == 0.0:  # no hole (a hole of zero area is no hole)
        parts = [slab(-h / 2, h / 2, -w / 2, w / 2)]
    elif wi == w:  # the hole spans the whole width: two slabs, above and below it
        parts = [slab(hi / 2, h / 2, -w / 2, w / 2), slab(-h / 2, -hi / 2, -w / 2, w / 2)]
    elif hi == h:  # the hole spans the whole height: two slabs, beside it
        parts = [slab(-h / 2, h / 2, wi / 2, w / 2), slab(-h / 2, h / 2, -w / 2, -wi / 2)]
    else:
        from shapely.geometry import Polygon, box

        section = Polygon(
            box(-h / 2, -w / 2, h / 2, w / 2).exterior.coords,
            [box(-hi / 2, -wi / 2, hi / 2, wi / 2).exterior.coords],
        )
        # Extruded by 1 and then stretched to L (z is 0 or 1: exact), since extrude_polygon
        # refuses heights below trimesh.tol.merge (a 1 nm plate of a 1 m section).
        prism = trimesh.creation.extrude_polygon(section, height=1.0, process=False)
        vertices = np.array(prism.vertices)
        vertices[:, 2] *= ell
        return _exact_merge(vertices, np.asarray(prism.faces), scale)
    raw = trimesh.util.concatenate(parts) if len(parts) > 1 else parts[0]
    return _exact_merge(np.asarray(raw.vertices), np.asarray(raw.faces), scale)


# -- Cone ---------------------------------------------------------------------------------------


def cone_profile(dimensions: Mapping[str, float]) -> np.ndarray:
    """The closed (r, x) profile of a cone, counter-clockwise, consecutive duplicates removed:
    ``(R_a, 0) -> (R_b, L) -> (R_bi, L) -> (R_ai, 0) -> (R_a, 0)`` (m).

    Features below float64's reach are closed: a radius under :data:`MIN_RELATIVE_TIP` of
    the body's size is taken as 0 (a point), and an end whose wall ``R - R_i`` is under
    :data:`MIN_RELATIVE_WALL` of its radius ``R`` as a knife edge (``R_i = R``).
    """
    length = dimensions["length"]
    ra, rb = dimensions["radius_a"], dimensions["radius_b"]
    rai, rbi = dimensions["inner_radius_a"], dimensions["inner_radius_b"]
    tiny = MIN_RELATIVE_TIP * max(length, ra, rb)
    ra, rb, rai, rbi = (r if r >= tiny else 0.0 for r in (ra, rb, rai, rbi))
    if ra - rai < MIN_RELATIVE_WALL * ra:
        rai = ra
    if rb - rbi < MIN_RELATIVE_WALL * rb:
        rbi = rb
    if ra == rai and rb == rbi:
        raise ParameterError(
            "inner_radius_a",
            dimensions["inner_radius_a"],
            f"the walls at both ends are thinner than {MIN_RELATIVE_WALL:.2g} of the radius: "
            "too thin to mesh in float64 (the mass properties are still exact)",
        )
    points = [(ra, 0.0), (rb, length), (rbi, length), (rai, 0.0), (ra, 0.0)]
    profile = [points[0]]
    for point in points[1:]:
        if point != profile[-1]:
            profile.append(point)
    return np.array(profile, dtype=np.float64)


def _cone_mesh(dimensions: Mapping[str, float], sections: int) -> Any:
    trimesh = _trimesh()
    profile = cone_profile(dimensions)
    scale = _scale_to_unit(float(np.max(profile)))
    profile = profile * scale
    # A lower bound of the smallest triangle revolve will make:
    # 0.5 * segment length * (smallest non-zero radius at its ends) * sin(2 pi / N).
    segment = np.hypot(*np.diff(profile, axis=0).T)
    radii = np.where(profile[:, 0] > 0.0, profile[:, 0], np.inf)
    reach = np.minimum(radii[:-1], radii[1:])
    reach = np.where(np.isfinite(reach), reach, np.maximum(profile[:-1, 0], profile[1:, 0]))
    areas = 0.5 * segment * reach * math.sin(2.0 * math.pi / sections)
    smallest = float(np.min(areas[areas > 0.0]))
    boost = _power_of_two_at_least(math.sqrt(_MIN_TRIANGLE_AREA / smallest))
    boost = max(boost, 1.0)
    raw = trimesh.creation.revolve(profile * boost, sections=sections, process=False)
    return _exact_merge(np.asarray(raw.vertices), np.asarray(raw.faces), scale * boost)


_BUILDERS: dict[str, Callable[[Mapping[str, float], int], Any]] = {
    "box": _box_mesh,
    "cone": _cone_mesh,
}
