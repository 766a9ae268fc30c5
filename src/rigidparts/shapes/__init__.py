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

from ..errors import ParameterError
from ._spec import (
    COMMON_RULES,
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
    "RAW_KINDS",
    "SHAPES",
    "UNREPRESENTABLE_RULE",
    "Param",
    "Primitive",
    "Rule",
    "ShapeSpec",
    "get_shape",
    "register",
    "results_representable",
    "rule_codes",
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
        raise ParameterError(
            parameter, name, f"must be one of {', '.join(SHAPES)}"
        ) from None
