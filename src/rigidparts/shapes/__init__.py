"""The shape registry: one specification module per shape, found here by itself.

Every module of this package whose name does not start with ``_`` is a shape: it builds one
:class:`~rigidparts.shapes._spec.ShapeSpec` (parameters, validity rules, closed forms, frames,
mesh builder, native primitive) and passes it to :func:`register`. :data:`SHAPES` maps each
shape's name to its specification, in alphabetical order; :func:`get_shape` looks one up with a
clear error. Consumers loop over :data:`SHAPES`; none names a shape, and adding one is adding a
module here (plus its public class in :mod:`rigidparts.bodies` and its tests).

The closed forms use plain float arithmetic only, so one body (Python floats) and a batch (the
same functions compiled by numba) run the same code and agree to the last bit.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import MappingProxyType
from typing import Any, NamedTuple

from ..errors import ParameterError
from ._spec import (
    COMMON_RULES,
    PRIMITIVE_KINDS,
    RAW_KINDS,
    UNREPRESENTABLE_RULE,
    Param,
    Primitive,
    Rule,
    ShapeSpec,
    register,
    registered,
    results_representable,
    rule_codes,
    unrepresentable_parameter,
)

__all__ = [
    "COMMON_RULES",
    "PRIMITIVE_KINDS",
    "RAW_KINDS",
    "SHAPES",
    "UNREPRESENTABLE_RULE",
    "Param",
    "Primitive",
    "PrimitiveShape",
    "Rule",
    "ShapeSpec",
    "get_shape",
    "register",
    "results_representable",
    "rule_codes",
    "shape_for_primitive",
    "unrepresentable_parameter",
]

for _module in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
    if not _module.name.startswith("_"):
        importlib.import_module(f"{__name__}.{_module.name}")

#: name -> :class:`ShapeSpec`, alphabetical (read-only).
SHAPES = MappingProxyType(dict(sorted(registered().items())))


def get_shape(name: str, parameter: str = "shape") -> ShapeSpec:
    """The specification of shape ``name``; :class:`ParameterError` naming ``parameter`` and
    the known shapes otherwise."""
    try:
        return SHAPES[name]
    except (KeyError, TypeError):
        raise ParameterError(parameter, name, f"must be one of {', '.join(SHAPES)}") from None


class PrimitiveShape(NamedTuple):
    """The registry body that is exactly a native primitive (:func:`shape_for_primitive`).

    ``body_class(spec.name)(**dimensions, **options, material=...)`` builds it, and its frame_a
    then has the pose ``pose = X_GA = (R_GA (3, 3), p_GoAo_G (3,))`` in the primitive's
    geometry frame G (m); ``R_GA`` is the identity for every native kind, so the body's
    frame_a axes are G's and its results need only the translation.
    """

    spec: ShapeSpec
    dimensions: dict[str, float]
    options: dict[str, Any]
    pose: tuple[Any, Any]


def _primitive_shapes() -> dict[str, ShapeSpec]:
    """kind -> the one shape whose ``from_primitive`` reads it (two would be a bug)."""
    found: dict[str, ShapeSpec] = {}
    for spec in SHAPES.values():
        for kind in spec.from_primitive or ():
            if kind in found:
                raise RuntimeError(
                    f"shapes {found[kind].name!r} and {spec.name!r} both read primitive {kind!r}"
                )
            found[kind] = spec
    return found


#: primitive kind -> the shape that reads it (``box``, ``cylinder``, ``sphere`` (the ball),
#: ``capsule``, ``ellipsoid``), read-only.
PRIMITIVE_SHAPES = MappingProxyType(_primitive_shapes())


def shape_for_primitive(kind: str, size: Any) -> PrimitiveShape:
    """The body that is exactly the native primitive ``kind`` of ``size`` (m, SI floats), as
    URDF, SDFormat and MJCF place it in its geometry frame G: ``box`` centred on G, full extents
    along x, y, z; ``cylinder`` and ``capsule`` ``(radius, length)`` centred, axis along z (a
    capsule's length is its cylindrical part); ``sphere`` ``(radius,)`` centred; ``ellipsoid``
    ``(a, b, c)`` centred, semi-axes along x, y, z.

    Returns a :class:`PrimitiveShape` ``(spec, dimensions, options, pose)``; the size's values
    are not checked here (the body's constructor checks them and names the keyword).
    :class:`ParameterError` naming ``kind`` for an unknown kind, ``size`` for a wrong count.
    """
    spec = PRIMITIVE_SHAPES.get(kind) if isinstance(kind, str) else None
    if spec is None or spec.from_primitive is None:
        raise ParameterError(
            "kind", kind, f"must be one of {', '.join(PRIMITIVE_KINDS)} (a native primitive)"
        )
    try:
        values = tuple(float(v) for v in size)
    except (TypeError, ValueError):
        values = ()
    count = PRIMITIVE_KINDS[kind]
    if len(values) != count:
        numbers = "1 number" if count == 1 else f"{count} numbers"
        raise ParameterError("size", size, f"must be {numbers} for a {kind} primitive")
    dimensions, options, pose = spec.from_primitive[kind](values)
    return PrimitiveShape(spec, dimensions, options, pose)
