"""The model holding every registered shape in every variant (used by
``tests/test_family_exports.py`` and the engine checks of ``tests/test_export_engines.py``).

Built from the registry (:data:`rigidparts.shapes.SHAPES`, :func:`rp.body_class`) and each
shape's specification, so a shape added later joins it with no edit here. A plain module (no
tests) so that both test modules import it at the top, without importing each other.
"""

from __future__ import annotations

from itertools import cycle
from typing import Any

import rigidparts as rp
from rigidparts.model import Model
from rigidparts.shapes import SHAPES

#: Every dimension of kind "length" is its default times this (floats with all their digits).
SCALE = 0.37
#: Bore / cavity / hole: ``inner_X = HOLLOW * X`` for every pair of parameters ``X``,
#: ``inner_X`` (how the registry's shapes name a bore); a thin wall leaves ``THIN * X``.
HOLLOW = 0.6
THIN = 1e-12
#: Axes: one along a coordinate axis (then a cylinder needs no rotation), then skew ones.
AXES = [(0.0, 0.0, -1.0), (1.0, 2.0, 3.0), (-2.0, 1.0, 0.5), (0.3, -1.0, 2.0), (1.0, 1.0, -1.0)]
MATERIALS = ["steel", "aluminium", "brass"]
#: Bodies given by mass (kg).
GIVEN_MASS = 2.5
#: Variants a shape's parameters alone do not reveal (applied when the shape is registered):
#: the special cases where a shape *is* a native primitive, and a fillet-free I-beam.
SPECIAL_VARIANTS: dict[str, dict[str, dict[str, Any]]] = {
    "cone": {"equal_radii": {"radius_b": 0.4 * SCALE}},  # a solid cylinder
    "ibeam": {
        "no_fillet": {"root_radius": 0.0},
        "web_as_wide": {"root_radius": 0.0, "web_thickness": 0.1 * SCALE},  # a solid box
    },
    # declared in a moved and turned frame, with products of inertia
    "rigid_body": {
        "rotated": {
            "center_of_mass": (0.01, -0.02, 0.03),
            "inertia": (0.02, 0.03, 0.025, 0.001, -0.002, 0.0005),
            "frame": {"position": (0.1, 0.0, -0.05), "rpy": (0.3, -0.7, 1.9)},
        }
    },
}


def scaled_defaults(spec) -> dict[str, Any]:
    """The shape's example body (:meth:`~rigidparts.shapes.ShapeSpec.example_kwargs`: its
    defaults, and a value for a parameter without one, such as a mesh body's mesh) with every
    length scaled by :data:`SCALE`."""
    example = spec.example_kwargs()
    return {p.name: example[p.name] * SCALE if p.kind == "length" else example[p.name]
            for p in spec.params}  # fmt: skip


def extra_frames(spec, dims: dict[str, Any]) -> Any:
    """Extra frames for a shape that takes them: two offsets along the axis, or three
    ``(radius, angle)`` pairs (one at the centre) spread around the axis."""
    if spec.extra_frames == "named":  # positions in frame_a, one of them with units
        return {"mount": (0.1, -0.05, 0.02), "tool": ("30 mm", "0 mm", "-40 mm")}
    size = max(dims[p.name] for p in spec.params if p.kind == "length")
    if spec.extra_frames == "axial":
        return [0.25 * size, -0.1 * size]
    if spec.extra_frames == "radial":
        return [(0.5 * size, 0.7), (0.8 * size, -2.0), (0.0, 3.0)]
    return []


def variants(name: str) -> dict[str, dict[str, Any]]:
    """The keyword sets of shape ``name``'s bodies in the model, by variant name:

    - ``solid``: the defaults (scaled), with the extra frames the shape takes;
    - ``hollow`` and ``thin``: each ``inner_X`` set to :data:`HOLLOW` times ``X``, or a wall of
      :data:`THIN` times ``X`` (shapes with a bore);
    - ``rotate90``: the section turned (shapes with a cross-section);
    - ``by_mass``: the body given by ``mass=`` (:data:`GIVEN_MASS`) instead of a material;
    - :data:`SPECIAL_VARIANTS` of the shape.

    Axes (skew but for one) and materials cycle over the bodies of the model.
    """
    spec = SHAPES[name]
    dims = scaled_defaults(spec)
    out = {"solid": {**dims}}
    if spec.extra_frames is not None:
        out["solid"][spec.frames_keyword] = extra_frames(spec, dims)
    outer = {p: p.removeprefix("inner_") for p in dims if p.startswith("inner_")}
    outer = {inner: o for inner, o in outer.items() if o in dims}
    if outer:
        out["hollow"] = {**dims, **{p: HOLLOW * dims[o] for p, o in outer.items()}}
        out["thin"] = {**dims, **{p: dims[o] * (1.0 - THIN) for p, o in outer.items()}}
    if spec.cross_section:
        out["rotate90"] = {**dims, "rotate90": True}
    out["by_mass"] = {**dims, "mass": GIVEN_MASS}
    for variant, changes in SPECIAL_VARIANTS.get(name, {}).items():
        out[variant] = {**dims, **changes}
    return out


def every_body() -> dict[str, rp.Component]:
    """``"<shape>_<variant>" -> body`` over the registry, in registry order."""
    axes, materials = cycle(AXES), cycle(MATERIALS)
    bodies = {}
    for name, spec in SHAPES.items():
        cls = rp.body_class(name)
        for variant, keywords in variants(name).items():
            keywords = dict(keywords)
            if spec.axis:
                keywords["axis"] = next(axes)
            # (a STEP body's per-solid materials are its material: the two are refused)
            if "mass" not in keywords and not spec.mass_only and not keywords.get("materials"):
                keywords["material"] = next(materials)
            bodies[f"{name}_{variant}"] = cls(**keywords)
    return bodies


def every_shape_model() -> Model:
    """Every body of :func:`every_body` in one chain: the first hinged to the world, each next
    one hinged (turning axes cycle; every seventh joint prismatic) to the previous body's
    centre of mass, a little off it, at the child's first extra frame where it has one (a
    disk's is turned about the disk's axis) and else at its frame_a; a body given by mass is
    welded instead (Pinocchio merges it, MuJoCo keeps it)."""
    model = Model("every_shape")
    previous = None
    turning = cycle([(0, 0, 1), (1, 0, 0), (0, 1, 1), (1, -2, 0.5)])
    for i, (name, body) in enumerate(every_body().items()):
        model.add_body(name, body)
        child = f"{name}.frame_c1" if "frame_c1" in body.frames else f"{name}.frame_a"
        if previous is None:
            model.add_joint("j_" + name, "revolute", "world", child, axis=(0, 0, 1),
                            position=(0.0, 0.0, 2.0))  # fmt: skip
        elif name.endswith("_by_mass"):
            model.add_joint("j_" + name, "fixed", f"{previous}.frame_com", child,
                            position=(0.05, 0.0, -0.02))  # fmt: skip
        else:
            kind = "prismatic" if i % 7 == 4 else "revolute"
            model.add_joint("j_" + name, kind, f"{previous}.frame_com", child,
                            axis=next(turning), position=(0.02, -0.03, 0.1))  # fmt: skip
        previous = name
    return model


def every_shape_moves(model: Model) -> dict[str, float]:
    """Joint positions away from zero for every moving joint of :func:`every_shape_model`."""
    return {
        name: 0.3 * (-1) ** i + 0.05 * i
        for i, (name, joint) in enumerate(model.joints.items())
        if joint.type != "fixed"
    }
