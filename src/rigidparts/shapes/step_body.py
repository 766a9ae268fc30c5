"""A body from a STEP file: its solids' exact B-rep mass properties (tier 2).

Parameters: ``step`` (kind ``path``: a ``.step`` / ``.stp`` file, read through OpenCascade by
:mod:`rigidparts.cad.step`, the optional extra ``cad``), ``units`` (kind ``text``: the length
unit, needed only when the file states none; a unit that differs from the file's overrides it),
``solid`` (kind ``text``: one solid of the file by its name, in its own frame; default all of
them, in the file's frame) and ``materials`` (kind ``text``: per-solid densities, ``(name,
kg/m^3)`` pairs made by :class:`rigidparts.StepBody` from ``material={name: material}``).

The canonical frame C is frame_a: the file's origin and axes (or the chosen solid's own).
Each solid's integrals (volume ``V_i``, centroid ``c_i``, ``J_i`` the inertia per unit
density about ``c_i``, the solid's axes) are exact integrals over its B-rep
(:mod:`rigidparts.cad.step`); the body is their sum, each placed by its assembly placement
``(R_i, p_i)`` (:meth:`MassProperties.placed`, :meth:`MassProperties.combine`, exact):
``m = sum rho_i V_i``, ``c = sum m_i (R_i c_i + p_i) / m``, ``I = sum R_i rho_i J_i R_i^T +
m_i (|d_i|^2 1 - d_i d_i^T)`` about ``c`` (``d_i`` from ``c`` to the placed ``c_i``), frame_a
axes. Every solid is certified against a fine tessellation (``body.certificate``).
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from ..errors import MergeableWarning, ParameterError
from ..inertia import MassProperties
from ._spec import UNREPRESENTABLE_RULE, Param, Rule, ShapeSpec, register, rule_codes

__all__ = [
    "SPEC",
    "CappedHolesWarning",
    "certificate",
    "check",
    "extent",
    "general_form",
    "material_density",
    "material_kind",
    "mesh",
    "per_solid_densities",
    "selected",
    "solid_materials",
    "step_file",
]

RULES = (
    Rule("step", "must be a STEP file (a path ending in .step or .stp); it has no default"),
    Rule("units", "must be a length unit such as 'mm', 'm' or 'in' (the file's coordinates)"),
    Rule("solid", "must be the name of one solid of the file (text), or None for all"),
    Rule("materials", "must be (solid name, density kg/m^3) pairs, densities positive"),
)
STEP_GIVEN, UNITS_VALID, SOLID_VALID, MATERIALS_VALID = rule_codes(RULES)


def _valid_materials(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, str) or not isinstance(value, tuple | list):
        return False
    for item in value:
        if not (isinstance(item, tuple | list) and len(item) == 2 and isinstance(item[0], str)):
            return False
        density = item[1]
        if isinstance(density, bool) or not isinstance(density, float | int):
            return False
        if not 0.0 < float(density) < math.inf:
            return False
    return True


def check(step: Any, units: Any, solid: Any, materials: Any) -> int:
    """0, or the code of the first broken rule (the file itself is checked when read)."""
    if not isinstance(step, str | os.PathLike) or os.fspath(step) == "":
        return STEP_GIVEN
    if units is not None and (not isinstance(units, str) or not units.strip()):
        return UNITS_VALID
    if solid is not None and (not isinstance(solid, str) or not solid):
        return SOLID_VALID
    if not _valid_materials(materials):
        return MATERIALS_VALID
    return 0


def step_file(dimensions: Mapping[str, Any]) -> Any:
    """The read :class:`rigidparts.cad.step.StepFile` of a step body's dimensions."""
    from ..cad.step import read_step

    return read_step(dimensions["step"], dimensions["units"])


def selected(dimensions: Mapping[str, Any]) -> list[Any]:
    """The solids the body holds: the named one, or all of them."""
    found = step_file(dimensions)
    name = dimensions["solid"]
    return [found.solid(name)] if name is not None else list(found.solids)


def _weights(dimensions: Mapping[str, Any], solids: list[Any]) -> list[float]:
    """``rho_i / rho_mean`` per solid (all 1 without per-solid materials)."""
    pairs = dimensions["materials"]
    if not pairs:
        return [1.0] * len(solids)
    given = {name: float(rho) for name, rho in pairs}
    unknown = sorted(set(given) - {s.name for s in step_file(dimensions).solids})
    if unknown:
        names = ", ".join(repr(s.name) for s in step_file(dimensions).solids)
        raise ParameterError(
            "material", unknown[0], f"must name solids of the file: one of {names}"
        )
    missing = [s.name for s in solids if s.name not in given]
    if missing:
        raise ParameterError(
            "material", missing[0], "needs a material for every solid (a missing solid)"
        )
    rho = [given[s.name] for s in solids]
    volume = sum(s.volume for s in solids)
    mean = sum(r * s.volume for r, s in zip(rho, solids, strict=True)) / volume
    return [r / mean for r in rho]


def general_form(dimensions: Mapping[str, Any], density: float) -> tuple[float, MassProperties]:
    """``(volume m^3, MassProperties in C = frame_a)``: the sum of the solids' exact B-rep
    integrals, each placed (module docstring). With per-solid materials ``density`` is their
    volume-weighted mean and each solid keeps its own."""
    solids = selected(dimensions)
    weights = _weights(dimensions, solids)
    single = dimensions["solid"] is not None
    parts = []
    volume = 0.0
    for solid, weight in zip(solids, weights, strict=True):
        rho = density * weight
        part = MassProperties(rho * solid.volume, solid.centroid, rho * solid.inertia)
        if not single:
            part = part.placed(solid.rotation, solid.position)
        parts.append(part)
        volume += solid.volume
    total = parts[0] if len(parts) == 1 else MassProperties.combine(parts)
    if not (0.0 < total.mass < math.inf and np.isfinite(total.inertia).all()):
        moments = tuple(np.diag(total.inertia).tolist())
        raise ParameterError(
            "step",
            dimensions["step"],
            UNREPRESENTABLE_RULE.format(mass=total.mass, moments=moments),
        )
    return volume, total


def certificate(dimensions: Mapping[str, Any]) -> dict[str, Any]:
    """The certificate of a step body (JSON-ready): per solid, the B-rep's integrals against
    a fine tessellation's (:class:`rigidparts.cad.step.Certificate`), and the worst of them."""
    found = step_file(dimensions)
    solids = selected(dimensions)
    rows = {s.name: {**s.certificate.to_dict(), "wall": s.wall, "size": s.size} for s in solids}
    return {
        "file": found.path,
        "stated_unit": found.stated_unit,
        "unit": found.unit,
        "solids": rows,
        "volume_difference": max(s.certificate.volume for s in solids),
        "center_of_mass_difference": max(s.certificate.center_of_mass for s in solids),
        "inertia_difference": max(s.certificate.inertia for s in solids),
        "agrees": all(s.certificate.agrees for s in solids),
    }


def extent(dimensions: Mapping[str, Any]) -> float:
    """The body's largest extent along frame_a's axes (m) from its solids' B-rep bounding boxes
    (OpenCascade's optimal boxes, in each solid's axes), their corners placed: at least the
    extent of the solids and of their mesh (within the deflection), at most sqrt(3) times it
    for a solid turned in its assembly; no tessellation built."""
    single = dimensions["solid"] is not None
    corners = []
    for solid in selected(dimensions):
        box = np.array(
            [[(solid.low, solid.high)[k >> i & 1][i] for i in range(3)] for k in range(8)]
        )
        corners.append(box if single else box @ solid.rotation.T + solid.position)
    points = np.concatenate(corners)
    return float(np.max(np.ptp(points, axis=0)))


class CappedHolesWarning(MergeableWarning):
    """OpenCascade's tessellation of solids of STEP file ``path`` left holes, capped in the
    mesh drawn and exported: ``capped`` holds (solid name, holes, largest radius in m) per
    solid. :meth:`merged` makes one warning per file of several (the command line's: a STEP
    model's bodies are meshed one by one)."""

    def __init__(self, path: str, capped: Sequence[tuple[str, int, float]]) -> None:
        self.path = path
        self.capped = tuple(dict.fromkeys(capped))  # a solid meshed twice: said once
        names = ", ".join(repr(name) for name, _, _ in self.capped[:3])
        more = f" and {len(self.capped) - 3} more" if len(self.capped) > 3 else ""
        holes = sum(count for _, count, _ in self.capped)
        super().__init__(
            f"{path}: OpenCascade's tessellation of solid {names}{more} left {holes} "
            f"hole{'s' * (holes != 1)} (radius up to {max(r for _, _, r in self.capped):.3g} "
            "m), capped in the mesh drawn and exported; the mass properties are the B-rep's, "
            "not this mesh's"
        )

    @classmethod
    def merged(cls, found: Iterable[CappedHolesWarning]) -> list[CappedHolesWarning]:
        """One warning per file for the solids of all of ``found``."""
        by_path: dict[str, list[tuple[str, int, float]]] = {}
        for warning in found:
            by_path.setdefault(warning.path, []).extend(warning.capped)
        return [cls(path, capped) for path, capped in by_path.items()]


def mesh(dimensions: Mapping[str, Any], sections: int) -> Any:
    """The solids' tessellation as one ``trimesh.Trimesh`` in C = frame_a, metres, a closed
    shell per solid (``sections`` is unused: the deflection is the certificate's). A solid
    whose tessellation had holes is drawn with them capped, and one warning names them."""
    from ..cad.step import DEFLECTION, tessellate
    from ._meshing import trimesh_module

    trimesh = trimesh_module()
    found = step_file(dimensions)
    single = dimensions["solid"] is not None
    vertices, faces, offset = [], [], 0
    capped: list[tuple[str, int, float]] = []
    for solid in selected(dimensions):
        # the certificate's triangles (a scaled copy's, when it meshed one: shape_scale)
        k = solid.shape_scale
        v, f = tessellate(solid.shape, DEFLECTION * solid.size / found.factor * k)
        v = v * (found.factor / k)
        if not single:
            v = v @ solid.rotation.T + solid.position
        v, f, holes, radius = _closed(v, f, DEFLECTION * solid.size, found.path, solid.name)
        if holes:
            capped.append((solid.name, holes, radius))
        vertices.append(v)
        faces.append(f + offset)
        offset += len(v)
    if capped:
        import warnings

        warnings.warn(CappedHolesWarning(found.path, capped), stacklevel=4)
    return trimesh.Trimesh(np.concatenate(vertices), np.concatenate(faces), process=False)


def _closed(
    vertices: np.ndarray, faces: np.ndarray, deflection: float, shown: str, name: str
) -> tuple[np.ndarray, np.ndarray, int, float]:
    """One solid's face-by-face tessellation made one closed surface, ``(vertices, faces, holes
    capped, largest hole radius)``. Each face's triangulation repeats the nodes of its edges
    (merged exactly; nodes that differ by rounding welded within 1e-9 of the size). Where
    OpenCascade's mesher discretised a shared edge differently for its two faces (tiny spheres
    and cylinders of real parts), the T-junctions are split (:func:`split_t_junctions`, within
    the deflection); where it left a hole (inside a B-spline face, or a face of a small
    component of a KiCad board), the hole is capped by a fan. ParameterError naming the file
    and the solid if the surface still is not closed."""
    from ..polyhedron import MeshDefect, edge_defects, merge_exact
    from ._mesh_repair import cap_holes, split_t_junctions, weld

    vertices, faces = merge_exact(vertices, faces)
    holes, radius = 0, 0.0
    if any(edge_defects(faces, len(vertices))):
        size = float(np.linalg.norm(vertices.max(axis=0) - vertices.min(axis=0)))
        vertices, faces, _ = weld(vertices, faces, 1e-9 * size)
    if any(edge_defects(faces, len(vertices))):
        faces, _ = split_t_junctions(vertices, faces, deflection)
    if any(edge_defects(faces, len(vertices))):
        try:
            vertices, faces, holes, _, radius = cap_holes(vertices, faces)
        except MeshDefect:
            pass  # not simple loops: reported below
    single, many, same = edge_defects(faces, len(vertices))
    if single or many or same:
        raise ParameterError(
            "step",
            shown,
            f"solid {name!r}: its tessellation is not closed ({single} open, {many} "
            f"non-manifold, {same} misoriented edges): no mesh to draw or export (its mass "
            "properties stand: they are the B-rep's)",
        )
    return vertices, faces, holes, radius


def example() -> dict[str, Any]:
    """A representative step body: the 1 m x 0.5 m x 0.25 m box centred on frame_a that the
    package ships as ``data/example_box.step`` (written by OpenCascade, in metres)."""
    from importlib.resources import files

    return {
        "step": str(files("rigidparts") / "data" / "example_box.step"),
        "units": "m",
        "solid": "box",
        "materials": "box=7860",
    }


SPEC = register(
    ShapeSpec(
        name="step",
        summary="a body from a STEP file: its solids' exact B-rep mass properties",
        params=(
            Param(
                "step",
                None,
                "the STEP file (.step, .stp), read through OpenCascade (extra 'cad')",
                kind="path",
                aliases=("file",),
            ),
            Param(
                "units",
                None,
                "length unit of the file's coordinates, when the file states none (mm, m, in; "
                "one that differs from the file's overrides it, with a warning)",
                kind="text",
            ),
            Param("solid", None, "one solid of the file by name (default: all)", kind="text"),
            Param(
                "materials",
                None,
                "per-solid materials: 'NAME=MATERIAL,NAME=MATERIAL' (material names or "
                "densities in kg/m^3)",
                kind="text",
                plain=lambda value: None if value is None else dict(value),
            ),
        ),
        rules=RULES,
        check=check,
        general_form=general_form,
        axis=False,
        end_frame=None,
        extra_frames="named",
        mesh=mesh,
        extent=extent,
        primitive=None,
        command="stepbody",
        example=example,
    )
)


def _part(solid: Any) -> str:
    """The name of the part ``solid`` is an instance of (its XCAF label's: ``arm`` for the
    solids ``arm`` and ``arm_2``)."""
    return solid.path[-1] if solid.path else solid.name


def solid_materials(
    dimensions: Mapping[str, Any], materials: Any, keyword: str | None = None
) -> list[tuple[Any, str, Any]]:
    """``[(solid, key, value), ...]`` for every solid the body holds: ``materials`` (a mapping,
    or the text ``'NAME=MATERIAL,NAME=MATERIAL'``) looked up for it. A key names a solid, or a
    part for all its instances (``arm``: the solids ``arm`` and ``arm_2``; a solid's own name
    first), as the file writes it or as a model's body name spells it (``base_plate`` for
    ``base plate``: :func:`rigidparts.cad.step.same_name`); ``*`` gives the solids not named.
    ParameterError named ``keyword`` (default ``materials`` for the text, ``material`` for a
    mapping) for a key that names nothing, a solid given twice, or a solid left without a
    material."""
    if keyword is None:
        keyword = "materials" if isinstance(materials, str) else "material"
    given = materials
    if isinstance(materials, str):
        pairs = {}
        for item in materials.split(","):
            name, sep, value = item.partition("=")
            if not sep or not name.strip() or not value.strip():
                raise ParameterError(
                    keyword, given, "must be 'NAME=MATERIAL,NAME=MATERIAL' (solid names)"
                )
            if name.strip() in pairs:
                raise ParameterError(keyword, given, f"names solid {name.strip()!r} twice")
            pairs[name.strip()] = value.strip()
        materials = pairs
    if not isinstance(materials, Mapping) or not materials:
        raise ParameterError(keyword, given, "must map solid names to materials")
    from ..cad.step import same_name

    every = step_file(dimensions).solids
    names = {s.name for s in every} | {_part(s) for s in every}
    by_name: dict[str, Any] = {}
    for key, value in materials.items():
        name = key
        if key != "*" and key not in names:  # a model's body name for it?
            found = [n for n in names if same_name(key, n)]
            if len(found) != 1:
                shown = ", ".join(repr(n) for n in sorted(names))
                raise ParameterError(
                    keyword, given, f"names {key!r}, no solid or part of the file: one of {shown}"
                )
            name = found[0]
        if name in by_name:
            raise ParameterError(keyword, given, f"names solid {name!r} twice")
        by_name[name] = value
    materials = by_name
    found = []
    for solid in selected(dimensions):
        key = next((k for k in (solid.name, _part(solid), "*") if k in materials), None)
        if key is None:
            raise ParameterError(
                keyword,
                given,
                f"gives solid {solid.name!r} no material: name it (or its part), or give '*' "
                "for the others",
            )
        found.append((solid, key, materials[key]))
    return found


def material_kind(value: Any) -> str:
    """``"material"`` or ``"density"``: what a material entry ``value`` is. A material of the
    table (``al6061`` too, digits and all), else a density (a number, or a quantity such as
    ``"2.7 g/cm^3"``: digits), else a material (a word: the table's error names it, did you
    mean ...?)."""
    from ..density import resolve_density

    if isinstance(value, int | float) and not isinstance(value, bool):
        return "density"
    try:
        resolve_density(value, None, None)
    except (ParameterError, TypeError):
        return "density" if any(c.isdigit() for c in str(value)) else "material"
    return "material"


def material_density(key: str, value: Any) -> float:
    """The density (kg/m^3) of a material entry ``value`` (:func:`material_kind`) given under
    ``key``; ParameterError naming ``material[key]``."""
    from ..density import resolve_density
    from ..units import to_si

    if isinstance(value, bool):
        raise ParameterError(f"material[{key!r}]", value, "must be a material or a density")
    if material_kind(value) == "material":
        try:
            rho = resolve_density(value, None, None)[0]
        except ParameterError as exc:  # the table's error (did you mean ...?)
            raise ParameterError(f"material[{key!r}]", value, exc.rule) from None
    elif isinstance(value, int | float):
        rho = float(value)
    else:
        rho = to_si(f"material[{key!r}]", value, "density")
    if not 0.0 < rho < math.inf:
        raise ParameterError(f"material[{key!r}]", value, "must give a positive density")
    return rho


def per_solid_densities(
    dimensions: Mapping[str, Any], materials: Any
) -> tuple[tuple[tuple[str, float], ...], float]:
    """``((solid name, density kg/m^3), ...), mean density`` for every solid the body holds
    (:func:`solid_materials`, :func:`material_density`). The mean is
    ``sum rho_i V_i / sum V_i``."""
    entries = solid_materials(dimensions, materials)
    solids = [solid for solid, _, _ in entries]
    resolved = [(solid.name, material_density(key, value)) for solid, key, value in entries]
    volume = sum(s.volume for s in solids)
    mean = sum(rho * s.volume for (_, rho), s in zip(resolved, solids, strict=True)) / volume
    return tuple(resolved), mean
