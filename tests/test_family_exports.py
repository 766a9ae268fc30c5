"""A model holding every registered shape, in every variant the shape takes, exports to MJCF,
URDF and SDFormat with the geometry the formats hold natively (box, cylinder, sphere) where the
body is solid and such a primitive, and a mesh otherwise; the Linkage's visual is its link mesh
(its mass model is a cuboid, its drawing is not).

The model is built from the registry (:data:`rigidparts.shapes.SHAPES`, :func:`rp.body_class`)
and each shape's specification, so a shape added later joins it with no edit here; the engine
checks of ``tests/test_export_engines.py`` load it ("every_shape") in MuJoCo, Pinocchio and
Drake. Run this file as a script for the worst relative inertial error per engine and format:

    .venv/bin/python tests/test_family_exports.py
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from itertools import cycle
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import rigidparts as rp
from rigidparts.export import export
from rigidparts.model import Model
from rigidparts.shapes import SHAPES

#: Every dimension of kind "length" is its default times this (floats with all their digits).
SCALE = 0.37
#: Bore / cavity / hole: ``inner_X = HOLLOW * X`` for every pair of parameters ``X``,
#: ``inner_X`` (how the registry's shapes name a bore).
HOLLOW = 0.6
#: Axes: one along a coordinate axis (then a cylinder needs no rotation), then skew ones.
AXES = [(0.0, 0.0, -1.0), (1.0, 2.0, 3.0), (-2.0, 1.0, 0.5), (0.3, -1.0, 2.0), (1.0, 1.0, -1.0)]
MATERIALS = ["steel", "aluminium", "brass"]


def scaled_defaults(spec) -> dict[str, Any]:
    """The shape's defaults with every length scaled by :data:`SCALE`."""
    return {
        p.name: p.default * SCALE if p.kind == "length" else p.default for p in spec.params
    }


def extra_frames(spec, dims: dict[str, Any]) -> list[Any]:
    """Extra frames for a shape that takes them: two offsets along the axis, or three
    ``(radius, angle)`` pairs (one at the centre) spread around the axis."""
    size = max(v for p, v in zip(spec.params, dims.values(), strict=True) if p.kind == "length")
    if spec.extra_frames == "axial":
        return [0.25 * size, -0.1 * size]
    if spec.extra_frames == "radial":
        return [(0.5 * size, 0.7), (0.8 * size, -2.0), (0.0, 3.0)]
    return []


def variants(name: str) -> dict[str, dict[str, Any]]:
    """The keyword sets of shape ``name``'s bodies in the model, by variant name:

    - ``solid``: the defaults (scaled), with the extra frames the shape takes;
    - ``hollow``: each ``inner_X`` set to :data:`HOLLOW` times ``X`` (shapes with a bore);
    - ``rotate90``: the section turned (shapes with a cross-section);
    - ``by_mass``: the body given by ``mass=`` (2.5 kg) instead of a material.

    Axes (skew but for one) and materials cycle over the bodies of the model.
    """
    spec = SHAPES[name]
    dims = scaled_defaults(spec)
    out = {"solid": {**dims}}
    if spec.extra_frames is not None:
        out["solid"]["extra_frames"] = extra_frames(spec, dims)
    bore = {
        p: HOLLOW * dims[p.removeprefix("inner_")]
        for p in dims
        if p.startswith("inner_") and p.removeprefix("inner_") in dims
    }
    if bore:
        out["hollow"] = {**dims, **bore}
    if spec.cross_section:
        out["rotate90"] = {**dims, "rotate90": True}
    out["by_mass"] = {**dims, "mass": 2.5}
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
            if "mass" not in keywords:
                keywords["material"] = next(materials)
            bodies[f"{name}_{variant}"] = cls(**keywords)
    return bodies


def every_shape_model() -> Model:
    """Every body of :func:`every_body` in one chain: the first hinged to the world, each next
    one hinged (turning axes cycle) at its frame_a to the previous body's centre of mass, a
    little off it; a body given by mass is welded (Pinocchio merges it, MuJoCo keeps it), and
    one joint is prismatic."""
    model = Model("every_shape")
    previous = None
    turning = cycle([(0, 0, 1), (1, 0, 0), (0, 1, 1), (1, -2, 0.5)])
    for i, (name, body) in enumerate(every_body().items()):
        model.add_body(name, body)
        if previous is None:
            model.add_joint("j_" + name, "revolute", "world", f"{name}.frame_a", axis=(0, 0, 1),
                            position=(0.0, 0.0, 2.0))  # fmt: skip
        elif name.endswith("_by_mass"):
            model.add_joint("j_" + name, "fixed", f"{previous}.frame_com", f"{name}.frame_a",
                            position=(0.05, 0.0, -0.02))  # fmt: skip
        else:
            kind = "prismatic" if i == 3 else "revolute"
            model.add_joint("j_" + name, kind, f"{previous}.frame_com", f"{name}.frame_a",
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
