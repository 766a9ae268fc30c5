"""I-Beam: a homogeneous, doubly symmetric I-section (with root fillets) extruded along +x.

Geometry (``spec/family.md``): length ``L`` along the axis from frame_a (x = 0) to frame_b
(x = L); overall height ``h`` along +y (the height direction) and flange width ``b`` along +z
(the width direction) of the canonical frame C; two flanges of thickness ``t_f`` joined by a web
of thickness ``t_w``; the four re-entrant web-flange corners rounded by root fillets of radius
``r >= 0`` (a quarter circle tangent to the web and to the flange). The section's centroid is on
the axis. Default: IPE 200 (h 200, b 100, t_w 5.6, t_f 8.5, r 12 mm).

Each fillet adds a *spandrel*: an ``r x r`` square less a quarter disc, of area ``A_s``, whose
centroid lies ``c`` from each of its straight edges, with second moment ``I_s`` about its own
centroid (about either axis through it parallel to an edge; by direct integration)::

    A_s = K_A r^2,   K_A = 1 - pi/4
    c   = K_C r,     K_C = (10 - 3 pi) / (3 (4 - pi))
    I_s = K_I r^4,   K_I = (16 - 5 pi)/16 - (10 - 3 pi)^2 / (36 (4 - pi))

``K_A``, ``K_C``, ``K_I`` are correctly rounded float64 literals of their 50-digit values:
evaluated in float64 at run time, ``K_I`` would be 29 ulp off and ``K_C`` 4 (``16 - 5 pi`` and
``10 - 3 pi`` cancel math.pi's digits). ``4 K_A`` is ``4 - pi`` correctly rounded (``4 -
math.pi`` is not: it keeps math.pi's error).

Section, with ``g = h - 2 t_f`` the web's clear height between the flanges (``g >= 2 r``)::

    A   = 2 b t_f + g t_w + (4 - pi) r^2
    S_h = integral of y^2 dA   (y: height coordinate)
        = [b h^3 - (b - t_w) g^3] / 12 + 4 I_s + (4 - pi) r^2 (g/2 - c)^2
    S_w = integral of z^2 dA   (z: width coordinate)
        = [2 t_f b^3 + g t_w^3] / 12 + 4 I_s + (4 - pi) r^2 (t_w/2 + c)^2

Cancellation-free: ``b h^3 - (b - t_w) g^3`` subtracts nearly equal cubes for thin flanges, so it
is written ``t_w h^3 + (b - t_w)(h^3 - g^3)`` with ``h^3 - g^3 = 2 t_f (h^2 + h g + g^2)``; every
term of ``A``, ``S_h`` and ``S_w`` is then non-negative under the validity rules
(``b - t_w >= 2 r >= 0``, ``g >= 2 r``, and ``g/2 - c >= (1 - K_C) r > 0``), and the only
subtractions (``h - 2 t_f``, ``b - t_w``, ``g/2 - c``) act on exact inputs or on a term at most
``K_C / (1 - K_C) < 0.29`` of the other, so the relative error stays at a few ulp however thin
the flanges and the web.

Beam (a prism: ``x`` separates), about the centre of mass ``(L/2, 0, 0)``, along C's axes::

    m = rho A L,   I_xx = rho L (S_h + S_w),
    I_yy = m L^2 / 12 + rho L S_w   (about the height direction: integrates x^2 + z^2)
    I_zz = m L^2 / 12 + rho L S_h   (about the width direction: integrates x^2 + y^2)

``tests/test_ibeam.py`` proves this very code equal to direct integration (sympy, the spandrels
as square minus quarter disc), checks the constants against mpmath and the results against
50-digit "outer rectangle minus side voids plus spandrels" references and the IPE 300 tables.

Limits: ``r = 0`` is the plain I; ``t_w = b`` with ``r = 0``, or ``2 t_f = h`` with ``r = 0``
(no web left), is a solid ``b x h`` box. With ``r > 0`` and ``2 t_f + 2 r = h`` the upper and
lower fillets meet at the web's mid-height (each void is a half disc and a rectangle): valid,
the spandrels only touch at a point, so the integrals stay exact. Likewise ``t_w + 2 r = b``
(the fillets reach the flange tips) is valid.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..errors import ParameterError
from ._meshing import (
    MIN_RELATIVE_TIP,
    MIN_RELATIVE_WALL,
    exact_merge,
    scale_to_unit,
    trimesh_module,
)
from ._spec import Param, Primitive, Rule, ShapeSpec, register, rule_codes

__all__ = [
    "SPANDREL_AREA",
    "SPANDREL_CENTROID",
    "SPANDREL_INERTIA",
    "SPEC",
    "check",
    "closed_form",
    "outline",
]

#: ``K_A = 1 - pi/4``: a spandrel's area over r^2 (correctly rounded; tests/test_ibeam.py).
SPANDREL_AREA = 0.21460183660255169038433915
#: ``K_C = (10 - 3 pi) / (3 (4 - pi))``: its centroid's distance from each straight edge over r.
SPANDREL_CENTROID = 0.22336793894575205092021546
#: ``K_I = (16 - 5 pi)/16 - (10 - 3 pi)^2 / (36 (4 - pi))``: its second moment about its own
#: centroid over r^4.
SPANDREL_INERTIA = 0.0075451156415965977494540311

RULES = (
    Rule("length", "must be positive and finite (m)"),
    Rule("height", "must be positive and finite (m)"),
    Rule("flange_width", "must be positive and finite (m)"),
    Rule("flange_thickness", "must be positive and finite (m)"),
    Rule("web_thickness", "must be positive and finite (m)"),
    Rule("root_radius", "must be non-negative and finite (m; 0: sharp corners)"),
    Rule(
        "web_thickness",
        "must not exceed flange_width={flange_width!r} m (the web cannot be wider than the "
        "flanges)",
    ),
    Rule(
        "web_thickness",
        "leaves no room for the fillets: web_thickness + 2 root_radius must not exceed "
        "flange_width={flange_width!r} m with root_radius={root_radius!r} m (the web and its "
        "fillets must fit within the flange width)",
    ),
    Rule(
        "flange_thickness",
        "must not exceed half of height={height!r} m (the two flanges cannot overlap)",
    ),
    Rule(
        "flange_thickness",
        "leaves no room for the fillets: 2 flange_thickness + 2 root_radius must not exceed "
        "height={height!r} m with root_radius={root_radius!r} m (the flanges and fillets must "
        "fit within the height)",
    ),
)
(
    LENGTH_POSITIVE,
    HEIGHT_POSITIVE,
    FLANGE_WIDTH_POSITIVE,
    FLANGE_THICKNESS_POSITIVE,
    WEB_THICKNESS_POSITIVE,
    ROOT_RADIUS_NON_NEGATIVE,
    WEB_FITS,
    WEB_AND_FILLETS_FIT,
    FLANGES_FIT,
    FLANGES_AND_FILLETS_FIT,
) = rule_codes(RULES)


def check(
    length: float,
    height: float,
    flange_width: float,
    flange_thickness: float,
    web_thickness: float,
    root_radius: float,
) -> int:
    """0 if the I-beam is valid, else the code of the first broken rule of :data:`RULES`.

    Rules are tested last to first, each overwriting ``code``, so the first broken rule wins;
    with no early return the batch compiler vectorises it. (NaN fails every ``<`` test, so it
    is caught by the positivity rules, which come first.)
    """
    code = FLANGES_AND_FILLETS_FIT if 2.0 * flange_thickness + 2.0 * root_radius > height else 0
    code = FLANGES_FIT if 2.0 * flange_thickness > height else code
    code = WEB_AND_FILLETS_FIT if web_thickness + 2.0 * root_radius > flange_width else code
    code = WEB_FITS if web_thickness > flange_width else code
    code = code if 0.0 <= root_radius < math.inf else ROOT_RADIUS_NON_NEGATIVE
    code = code if 0.0 < web_thickness < math.inf else WEB_THICKNESS_POSITIVE
    code = code if 0.0 < flange_thickness < math.inf else FLANGE_THICKNESS_POSITIVE
    code = code if 0.0 < flange_width < math.inf else FLANGE_WIDTH_POSITIVE
    code = code if 0.0 < height < math.inf else HEIGHT_POSITIVE
    return code if 0.0 < length < math.inf else LENGTH_POSITIVE


def closed_form(
    length: float,
    height: float,
    flange_width: float,
    flange_thickness: float,
    web_thickness: float,
    root_radius: float,
    density: float,
) -> tuple[float, float, float, float, float, float]:
    """``(volume, mass, com_x, i_xx, i_yy, i_zz)`` of a valid I-beam (module docstring).

    Units: m^3, kg, m, kg m^2. Inertias about the centre of mass along the canonical axes
    (x: axis, y: height direction, z: width direction).
    """
    h = height
    b = flange_width
    t_f = flange_thickness
    t_w = web_thickness
    r = root_radius
    g = h - 2.0 * t_f  # the web's clear height, >= 2 r
    overhang = b - t_w  # both flange overhangs together, >= 2 r
    r2 = r * r
    fillets = 4.0 * SPANDREL_AREA * r2  # (4 - pi) r^2, the four spandrels
    area = 2.0 * b * t_f + g * t_w + fillets
    fillet_own = 4.0 * SPANDREL_INERTIA * (r2 * r2)
    c = SPANDREL_CENTROID * r
    arm_h = 0.5 * g - c  # spandrel centroid's height coordinate, >= (1 - K_C) r
    arm_w = 0.5 * t_w + c  # and its width coordinate
    cubes = 2.0 * t_f * (h * h + h * g + g * g)  # h^3 - g^3
    s_h = (t_w * (h * h * h) + overhang * cubes) / 12.0 + fillet_own + fillets * (arm_h * arm_h)
    s_w = (
        (2.0 * t_f * (b * b * b) + g * (t_w * t_w * t_w)) / 12.0
        + fillet_own
        + fillets * (arm_w * arm_w)
    )
    volume = length * area
    mass = density * volume
    rho_l = density * length
    axial = area * (length * length) / 12.0
    i_xx = rho_l * (s_h + s_w)
    i_yy = rho_l * (s_w + axial)
    i_zz = rho_l * (s_h + axial)
    return volume, mass, 0.5 * length, i_xx, i_yy, i_zz


# -- geometry --------------------------------------------------------------------------------


def _clean(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """A closed ring without repeated points, axis-aligned collinear points or spikes: drop
    consecutive duplicates and every vertex that shares its u (or its v) with both neighbours,
    until nothing changes. Exact comparisons only (axis-aligned lines are exact in floats)."""
    while True:
        ring: list[tuple[float, float]] = []
        for point in points:
            if not ring or point != ring[-1]:
                ring.append(point)
        while len(ring) > 1 and ring[0] == ring[-1]:
            ring.pop()
        n = len(ring)
        kept = [
            ring[i]
            for i in range(n)
            if not (
                ring[i - 1][0] == ring[i][0] == ring[(i + 1) % n][0]
                or ring[i - 1][1] == ring[i][1] == ring[(i + 1) % n][1]
            )
        ]
        if len(kept) == len(points):
            return kept
        points = kept


def outline(dimensions: Mapping[str, float], segments: int) -> np.ndarray:
    """The section's outline as an (n, 2) array of (u, v) = (height, width) coordinates (m),
    counter-clockwise, not repeating its first point, without duplicate or axis-aligned
    collinear vertices; each fillet an inscribed polyline of ``segments`` chords (exact
    straight corners when ``root_radius`` is 0).

    A fillet below ``MIN_RELATIVE_TIP`` of the section is drawn as a sharp corner (its area
    ``(4 - pi) r^2`` is then under 1e-24 of the section's square); a flange or web thinner than
    ``MIN_RELATIVE_WALL`` of the section is a :class:`ParameterError` (too thin to mesh in
    float64; the mass properties are still exact).
    """
    h, b = dimensions["height"], dimensions["flange_width"]
    t_f, t_w = dimensions["flange_thickness"], dimensions["web_thickness"]
    r = dimensions["root_radius"]
    size = max(h, b)
    for name, wall in (("flange_thickness", t_f), ("web_thickness", t_w)):
        if wall < MIN_RELATIVE_WALL * size:
            raise ParameterError(
                name,
                wall,
                f"is thinner than {MIN_RELATIVE_WALL:.2g} of the section: too thin to mesh in "
                "float64 (the mass properties are still exact)",
            )
    if r < MIN_RELATIVE_TIP * size:
        r = 0.0
    top, tip = 0.5 * h, 0.5 * b
    face = 0.5 * t_w  # the web's face, v
    under = 0.5 * (h - 2.0 * t_f)  # the flanges' undersides, u
    # The web's straight face ends where the fillet starts; max(): rounding must not let the
    # upper and lower fillets cross when they meet at mid-height (2 t_f + 2 r = h).
    straight = max(under - r, 0.0)
    # The first quadrant (u >= 0, v >= 0), from the web's mid-height to the top's middle.
    quadrant = [(0.0, face), (straight, face)]
    if r > 0.0:
        reach = min(face + r, tip)  # the fillet's end on the underside (<= tip by the rules)
        phi = np.linspace(0.0, 0.5 * math.pi, segments + 1)[1:-1]
        # Rounded points, clipped to the fillet's box and made monotone in both coordinates:
        # a staircase at worst, never a self-intersection.
        u = np.maximum.accumulate(np.clip(straight + r * np.sin(phi), straight, under))
        v = np.maximum.accumulate(np.clip(reach - r * np.cos(phi), face, reach))
        quadrant += [(float(a), float(c)) for a, c in zip(u, v, strict=True)]
        quadrant.append((under, reach))
    else:
        quadrant.append((under, face))
    quadrant += [(under, tip), (top, tip), (top, 0.0)]
    # Mirror into the other quadrants (negation is exact): Q1, Q4 reversed, Q3, Q2 reversed.
    ring = (
        quadrant
        + [(u, -v) for u, v in reversed(quadrant)]
        + [(-u, -v) for u, v in quadrant]
        + [(-u, v) for u, v in reversed(quadrant)]
    )
    # The walk above is clockwise in (u, v) (down the right side u = h/2): reverse it.
    cleaned = _clean([(u + 0.0, v + 0.0) for u, v in ring])
    return np.array(cleaned[::-1], dtype=np.float64)


def mesh(dimensions: Mapping[str, float], sections: int) -> Any:
    """The I-beam in C: its section (:func:`outline`, ``max(1, sections // 4)`` chords per
    fillet) in the (y, z) plane extruded along x from 0 to L."""
    from shapely.geometry import Polygon

    trimesh = trimesh_module()
    segments = max(1, sections // 4)
    section = outline(dimensions, segments)
    scale = scale_to_unit(max(dimensions["height"], dimensions["flange_width"]))
    polygon = Polygon(section * scale)
    if not polygon.is_valid:  # pragma: no cover - a bug, not a user error
        raise RuntimeError(f"internal error: the I-section of {dict(dimensions)} is not simple")
    # Extruded by 1 and then stretched to L (z is 0 or 1: exact), since extrude_polygon
    # refuses heights below trimesh.tol.merge.
    prism = trimesh.creation.extrude_polygon(polygon, height=1.0, process=False)
    vertices = np.array(prism.vertices)
    vertices[:, 2] *= dimensions["length"] * scale
    return exact_merge(vertices, np.asarray(prism.faces), scale)


def primitive(dimensions: Mapping[str, float]) -> Primitive | None:
    """Without fillets and with no web left (``2 t_f = h``) or a web as wide as the flanges
    (``t_w = b``), the I-beam is a solid box centred at ``(L/2, 0, 0)``; else it needs a mesh."""
    h, b = dimensions["height"], dimensions["flange_width"]
    solid = dimensions["root_radius"] == 0.0 and (
        2.0 * dimensions["flange_thickness"] == h or dimensions["web_thickness"] == b
    )
    if not solid:
        return None
    length = dimensions["length"]
    return Primitive("box", (length, h, b), (0.5 * length, 0.0, 0.0))


SPEC = register(
    ShapeSpec(
        name="ibeam",
        summary="an I-beam: a doubly symmetric I-section with root fillets, along the axis",
        params=(
            Param("length", 1.0, "extent along the axis, frame_a to frame_b (m)"),
            Param("height", 0.2, "overall height of the section, along the height direction (m)"),
            Param("flange_width", 0.1, "width of the flanges, along the width direction (m)"),
            Param("flange_thickness", 0.0085, "thickness of each flange (m)"),
            Param("web_thickness", 0.0056, "thickness of the web (m)"),
            Param(
                "root_radius",
                0.012,
                "radius of the four web-flange root fillets (m; 0: sharp corners)",
            ),
        ),
        rules=RULES,
        check=check,
        closed_form=closed_form,
        cross_section=True,
        mesh=mesh,
        primitive=primitive,
    )
)
