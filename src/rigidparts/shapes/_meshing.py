"""Helpers the shapes' mesh builders share (trimesh is imported only when a mesh is built).

Robustness. trimesh's constructors merge vertices closer than ``trimesh.tol.merge`` (1e-8) and
``revolve`` drops triangles with an area below it, which would tear the surface of small bodies
or thin walls. So a builder scales its profile by a power of two (exact in binary floating
point) until its smallest triangle is far above that tolerance, switches trimesh's processing
off, and merges only vertices that are bitwise identical (:func:`exact_merge`). Features below
float64's reach are closed: see :data:`MIN_RELATIVE_WALL`, :data:`MIN_RELATIVE_TIP`,
:data:`MIN_RELATIVE_RADIUS`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..errors import ParameterError

__all__ = [
    "MAX_SECTIONS",
    "MIN_RELATIVE_RADIUS",
    "MIN_RELATIVE_TIP",
    "MIN_RELATIVE_WALL",
    "MIN_SECTIONS",
    "MIN_TRIANGLE_AREA",
    "canonical_mesh",
    "check_sections",
    "exact_merge",
    "power_of_two_at_least",
    "scale_to_unit",
    "trimesh_module",
    "unit_semicircle",
]

#: Fewest and most segments around round surfaces.
MIN_SECTIONS = 3
MAX_SECTIONS = 65536

#: A wall thinner than this fraction of its radius is meshed as a knife edge.
MIN_RELATIVE_WALL = 2.0**-44  # ~ 5.7e-14, about 256 ulp
#: A hole's side below this fraction of the body's size is meshed as 0.
MIN_RELATIVE_RADIUS = 2.0**-100  # ~ 7.9e-31
#: A radius below this fraction of the body's size is meshed as 0 (a point). Smaller tips
#: make revolve's ring of vertices collapse unevenly and leave the mesh open (a tip of 1e-17
#: of the size did); at this size the volume changes by < 1e-24 of itself.
MIN_RELATIVE_TIP = 2.0**-40  # ~ 9.1e-13

#: The area, after scaling, below which no triangle of a revolve may fall (trimesh drops
#: triangles under ``tol.merge`` = 1e-8); a factor 100 of margin.
MIN_TRIANGLE_AREA = 1e-6

# Maps the constructors' coordinates (u, v, z) to the canonical frame C: the axis (z of
# revolve/extrude) becomes x, u becomes y (the height), v becomes z (the width).
# A cyclic permutation: a proper rotation, so the winding (outward normals) is kept.
_TO_CANONICAL = np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])


def trimesh_module() -> Any:
    """``import trimesh``, or an ImportError naming the extra to install."""
    try:
        import trimesh
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "meshes need trimesh, shapely and mapbox-earcut: pip install 'rigidparts[mesh]'"
        ) from exc
    return trimesh


def power_of_two_at_least(value: float) -> float:
    """The smallest ``2**k >= value`` (``value > 0``); multiplying by it is exact."""
    mantissa, exponent = math.frexp(value)
    return math.ldexp(1.0, exponent - 1 if mantissa == 0.5 else exponent)


def scale_to_unit(size: float) -> float:
    """A power of two ``s`` with ``s * size`` in [0.5, 1)."""
    return math.ldexp(1.0, -math.frexp(size)[1])


def exact_merge(vertices: np.ndarray, faces: np.ndarray, scale: float) -> Any:
    """A Trimesh in C from raw constructor output (coordinates (u, v, z), scaled by
    ``scale``): merge bitwise-identical vertices only (``+ 0.0`` makes -0.0 equal to 0.0), drop
    faces that then repeat a vertex, map (u, v, z) to C (a permutation: exact) and undo the
    power-of-two scale (exact)."""
    trimesh = trimesh_module()
    unique, inverse = np.unique(vertices + 0.0, axis=0, return_inverse=True)
    faces = inverse.reshape(-1)[faces]
    keep = (
        (faces[:, 0] != faces[:, 1]) & (faces[:, 1] != faces[:, 2]) & (faces[:, 0] != faces[:, 2])
    )
    canonical = (unique @ _TO_CANONICAL.T) / scale
    mesh = trimesh.Trimesh(vertices=canonical, faces=faces[keep], process=False)
    mesh.remove_unreferenced_vertices()
    return mesh


def revolve_profile(profile: np.ndarray, sections: int) -> Any:
    """The closed (r, x) ``profile`` (counter-clockwise, m) revolved about C's x axis into a
    watertight mesh in C, scaled so that no triangle falls under trimesh's merge tolerance."""
    trimesh = trimesh_module()
    scale = scale_to_unit(float(np.max(profile)))
    profile = profile * scale
    # A lower bound of the smallest triangle revolve will make:
    # 0.5 * segment length * (smallest non-zero radius at its ends) * sin(2 pi / N).
    segment = np.hypot(*np.diff(profile, axis=0).T)
    radii = np.where(profile[:, 0] > 0.0, profile[:, 0], np.inf)
    reach = np.minimum(radii[:-1], radii[1:])
    reach = np.where(np.isfinite(reach), reach, np.maximum(profile[:-1, 0], profile[1:, 0]))
    areas = 0.5 * segment * reach * math.sin(2.0 * math.pi / sections)
    smallest = float(np.min(areas[areas > 0.0]))
    boost = max(power_of_two_at_least(math.sqrt(MIN_TRIANGLE_AREA / smallest)), 1.0)
    raw = trimesh.creation.revolve(profile * boost, sections=sections, process=False)
    return exact_merge(np.asarray(raw.vertices), np.asarray(raw.faces), scale * boost)


def check_sections(sections: Any) -> int:
    """``sections`` as an int, or :class:`ParameterError` unless an integer in
    [:data:`MIN_SECTIONS`, :data:`MAX_SECTIONS`]."""
    rule = f"must be an integer from {MIN_SECTIONS} to {MAX_SECTIONS}"
    if isinstance(sections, bool) or not isinstance(sections, int | np.integer):
        raise ParameterError("sections", sections, rule)
    if not MIN_SECTIONS <= int(sections) <= MAX_SECTIONS:
        raise ParameterError("sections", sections, rule)
    return int(sections)


def canonical_mesh(shape: str, dimensions: Mapping[str, float], *, sections: int = 64) -> Any:
    """The mesh of shape ``shape`` in its canonical frame C, metres, from its specification's
    builder. ``dimensions`` are the shape's SI dimensions by keyword (``body.dimensions``).
    """
    from . import get_shape

    spec = get_shape(shape)
    if spec.mesh is None:
        raise ParameterError("shape", shape, "has no mesh builder")
    sections = check_sections(sections)
    mesh = spec.mesh(dimensions, sections)
    if not (mesh.is_watertight and mesh.is_winding_consistent and mesh.volume > 0.0):
        raise RuntimeError(  # pragma: no cover - a bug, not a user error
            f"internal error: the {shape} mesh of {dict(dimensions)} is not a closed volume"
        )
    return mesh


def mesh_in_frame_a(canonical: Any, r_ac: np.ndarray, metadata: Mapping[str, Any]) -> Any:
    """``canonical`` (a mesh in C) with vertices ``p_A = R_AC p_C``, carrying ``metadata``.

    By hand, not ``Trimesh.apply_transform``: that skips matrices within 1e-8 of the identity,
    which would drop an axis tilted by less than 1e-8 rad."""
    trimesh = trimesh_module()
    return trimesh.Trimesh(
        vertices=np.asarray(canonical.vertices) @ np.asarray(r_ac, dtype=np.float64).T,
        faces=np.asarray(canonical.faces),
        process=False,
        metadata=dict(metadata),
    )


def unit_semicircle(segments: int) -> tuple[np.ndarray, np.ndarray]:
    """``(sin phi_j, cos phi_j)`` for ``phi_j = j pi / segments``, ``j = 0 .. segments``.

    Exactly symmetric about ``phi = pi / 2`` (``sin`` mirrored, ``cos`` negated), with the exact
    values 0 and +-1 at the ends and ``cos = 0`` at ``pi / 2`` (float ``sin(pi)`` is 1.2e-16, not
    0): a meshed semicircle ends on its diameter and reaches exactly the radius.
    """
    phi = np.pi * np.arange(segments + 1) / segments
    sin, cos = np.sin(phi), np.cos(phi)
    half = segments // 2 + 1
    sin[segments - np.arange(half)] = sin[:half]
    cos[segments - np.arange(half)] = -cos[:half]
    if segments % 2 == 0:
        cos[segments // 2] = 0.0
    sin[0] = sin[-1] = 0.0
    cos[0], cos[-1] = 1.0, -1.0
    return sin, cos
