"""Mass properties of many bodies at once: ``rp.batch.<shape>(...)`` for every tier-1 shape.

>>> import numpy as np, rigidparts as rp
>>> wall = np.geomspace(1e-9, 1e-2, 1_000_000)
>>> tubes = rp.batch.cone(length=0.5, radius_a=0.05, radius_b=0.05,
...                       inner_radius_a=0.05 - wall, inner_radius_b=0.05 - wall)
>>> tubes.mass.shape, tubes.center_of_mass.shape, tubes.inertia.shape
((1000000,), (1000000, 3), (1000000, 3, 3))

One function per shape of the registry (:data:`rigidparts.shapes.SHAPES`) that has closed
forms (tier 1), named after it and built from its specification here, at import: its
keywords and defaults are those of the shape's public class (``rp.batch.box`` those of
:class:`rigidparts.Box`), plus ``on_invalid``, ``engine`` and ``threads``. A shape whose mass
properties come from a general form (tier 2, e.g. a mesh body) has no batch function.

Arguments are keyword-only, each a scalar or a 1-D array; they broadcast together to N rows.
Dimensions, the density and the mass may be numbers (SI), strings with units (``"250 mm"``),
sequences of such strings, or pint Quantities wrapping arrays. ``axis`` and
``height_direction`` are (3,) or (N, 3); ``rotate90`` is a bool or a bool array; ``material``
is one name or an array of N names, or give ``density`` or ``mass`` instead (at most one of
the three; with ``mass`` the density is mass / volume per row, as for one body).
``height_direction=None`` applies the axis rule to every row; an explicit one must be valid on
every row (a zero row is an error, as ``(0, 0, 0)`` is for one body). ``extra_frames`` is not
supported (it does not change the mass properties).

The result, :class:`BatchMassProperties`, holds read-only arrays in frame_a, SI units:
``mass`` (N,) kg, ``volume`` (N,) m^3, ``density`` (N,) kg/m^3, ``center_of_mass`` (N, 3) m
(``p_AoBcm_A``), ``inertia`` (N, 3, 3) kg m^2 (``I_BBcm_A``: about each body's centre of mass,
in frame_a axes), the exact ``principal_moments`` (N, 3) and ``principal_axes`` (N, 3, 3), and
``error_codes`` / ``valid`` for the rows that break a rule. ``result[i]`` is row i as a
:class:`rigidparts.MassProperties`, ``result[i:j]`` a smaller batch.

Invalid rows. Validation is per row and vectorised. With ``on_invalid="raise"`` (default) the
first invalid row raises :class:`~rigidparts.ParameterError` naming the parameter, the row
(``error.index``) and the rule, as the shape's class would for that body. With
``on_invalid="mask"`` invalid rows hold NaN, ``valid`` is False there, and
:meth:`BatchMassProperties.errors` says why.

One kernel. Every row goes through the very functions the scalar path uses (the shape's
``check`` and ``closed_form``, ``rigidparts.frames``,
``rigidparts.inertia.rotate_principal_inertia``), compiled by numba with IEEE semantics
(engine ``"numba"``, the default when numba is installed; one kernel per shape, compiled or
loaded from numba's disk cache on the shape's first call), so ``batch.cone(...).inertia[i]``
is bit-for-bit ``rp.Cone(...).inertia`` for the same arguments, thin walls included.
``import rigidparts.batch`` does not import numba: the first call does (a compilation, the
first time, is announced on a terminal; ``python -m rigidparts.batch`` compiles ahead).
Without numba the same functions run on numpy arrays in cache-sized blocks (engine
``"numpy"``; the rules rewritten for arrays from their own source, :mod:`._numpy`): the same
bits, a few times slower than the compiled kernel (about 8.5x the copy of the outputs).

Dask. If any argument is a dask array, the result holds lazy dask arrays computed chunk by
chunk (``result.compute()`` gives a numpy-backed result), scalars staying scalars, in memory
bounded by the chunks (:mod:`._dask`); an invalid row raises at compute time, naming its
global index (the first invalid row of the chunk that failed first).

Layout: :mod:`.result` (the result type and row errors), :mod:`.arguments` (parsing and
broadcasting), :mod:`.evaluate` (shared frame, buffers, engines), :mod:`._numba` (the compiled
kernel), :mod:`._numpy`, :mod:`._dask`, :mod:`._pool` (output buffer reuse); this module builds
the public functions.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any

from ..errors import ParameterError
from ..shapes import SHAPES, ShapeSpec
from . import _pool
from .arguments import broadcast_rows, is_dask, parse, row_count
from .evaluate import ENGINE, compiled_engine, evaluate, resolve_engine
from .result import BatchMassProperties
from .sensitivity import BatchSensitivities, batch_sensitivities

__all__ = [
    "ENGINE",
    "BatchMassProperties",
    "BatchSensitivities",
    "batch_function",
    "check_registered",
    "release_memory",
    "sensitivities",
    *(name for name, spec in SHAPES.items() if spec.tier == 1),
]

#: The batch-only keywords and their defaults, after the shape's own.
OPTIONS: Mapping[str, Any] = {"on_invalid": "raise", "engine": "auto", "threads": True}


def release_memory() -> None:
    """Free the output buffers kept for reuse (see :mod:`rigidparts.batch._pool`: the batch
    functions keep up to 1 GiB of buffers of results nobody references any more, so that a
    repeated sweep does not pay the system's page zeroing on every call)."""
    _pool.release()


def _compute(spec: ShapeSpec, arguments: Mapping[str, Any]) -> BatchMassProperties:
    """The batch of ``spec`` for ``arguments`` (every keyword of its batch function)."""
    parsed = parse(spec, arguments)
    n = row_count(parsed.inputs)
    lazy = any(is_dask(value) for value in parsed.inputs.values())
    engine = resolve_engine(parsed.engine, None if lazy else n)
    if lazy:
        from . import _dask

        return _dask.evaluate(
            spec,
            parsed.inputs,
            n,
            by_mass=parsed.by_mass,
            on_invalid=parsed.on_invalid,
            engine=engine,
            explicit_height=parsed.explicit_height,
        )
    result, invalid = evaluate(
        spec,
        broadcast_rows(parsed.inputs, n),
        engine=engine,
        by_mass=parsed.by_mass,
        explicit_height=parsed.explicit_height,
        threads=parsed.threads,
    )
    if invalid and parsed.on_invalid == "raise":
        result.raise_if_invalid()
    return result


def batch_function(spec: ShapeSpec) -> Callable[..., BatchMassProperties]:
    """The batch function of a tier-1 ``spec`` (registered or not): keyword-only, with the
    keywords and defaults of ``spec.signature_defaults()`` plus :data:`OPTIONS`; returns a
    :class:`BatchMassProperties`."""
    if spec.tier != 1:
        raise ParameterError("shape", spec.name, _NO_BATCH)
    defaults = {**spec.signature_defaults(), **OPTIONS}
    allowed = frozenset(defaults)

    def function(**arguments: Any) -> BatchMassProperties:
        for name in arguments:
            if name not in allowed:
                raise TypeError(f"{spec.name}() got an unexpected keyword argument {name!r}")
        return _compute(spec, {**defaults, **arguments})

    function.__name__ = function.__qualname__ = spec.name
    function.__module__ = __name__
    function.__doc__ = _docstring(spec)
    function.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [
            inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=value, annotation=Any)
            for name, value in defaults.items()
        ],
        return_annotation=BatchMassProperties,
    )
    return function


def sensitivities(
    shape: str | ShapeSpec | BatchMassProperties, /, **arguments: Any
) -> BatchSensitivities:
    """Exact partial derivatives of many bodies' mass properties (:mod:`.sensitivity`): of the
    batch ``rp.batch.<shape>(**arguments)`` (a shape name or its registered ShapeSpec, as
    ``rp.tolerance`` takes), or of a batch result already computed (then no arguments but
    ``engine``). Row ``j`` is bit for bit ``body.sensitivities()`` of row ``j``'s body.
    ``engine``: ``"auto"``, ``"numba"`` (the compiled closed forms on dual numbers) or
    ``"numpy"`` (the Python dual numbers on arrays): the same bits."""
    engine = arguments.get("engine", "auto")
    if isinstance(shape, BatchMassProperties):
        if set(arguments) - {"engine"}:
            raise TypeError("sensitivities(result) takes no other arguments (but engine=)")
        return batch_sensitivities(shape, engine=engine)
    if isinstance(shape, ShapeSpec):
        check_registered(shape)
        shape = shape.name
    spec = SHAPES.get(shape) if isinstance(shape, str) else None
    if spec is None or spec.tier != 1:
        tier1 = ", ".join(name for name, s in SHAPES.items() if s.tier == 1)
        raise ParameterError("shape", shape, f"must be one of {tier1} (or a batch result)")
    return batch_sensitivities(batch_function(spec)(**arguments), engine=engine)


def check_registered(spec: ShapeSpec) -> None:
    """ParameterError unless ``spec`` is the registry's own specification of its name: the
    shape functions (and a tolerance study's dask workers) look shapes up by name."""
    if SHAPES.get(spec.name) is not spec:
        raise ParameterError(
            "shape", spec.name, "is a ShapeSpec that is not in the shape registry "
            "(rigidparts.shapes.SHAPES): shapes are looked up by name (by dask workers too); "
            "register it (docs/architecture.md: how a shape is added) or give a registered "
            "shape's name",
        )  # fmt: skip


_NO_BATCH = (
    "has no batch path: its mass properties come from a general form (tier 2), not closed "
    "forms the batch kernel compiles; build its bodies one by one"
)

#: Each option's line in the generated docstrings.
_OPTION_HELP = {
    "axis": "(3,) or (N, 3): the axis in frame_a, any non-zero length",
    "rotate90": "bool or (N,) bools: turn the cross-section 90 degrees about the axis",
    "height_direction": "None (the axis rule, every row), (3,) or (N, 3)",
    "material": "a name, or (N,) names (looked up once per distinct name)",
    "density": "scalar or (N,), kg/m^3 or with units; replaces the material",
    "mass": "scalar or (N,), kg or with units; the density is then mass / volume per row",
    "extra_frames": "must be empty: frames do not change the mass properties",
    "on_invalid": '"raise": ParameterError for the first invalid row (``error.index``); '
    '"mask": invalid rows are NaN and ``valid`` is False there',
    "engine": '"auto" (numba when installed), "numba" or "numpy" (same bits, slower)',
    "threads": "True: the compiled kernel may use its thread pool on large batches; False: "
    "the calling thread only (for callers that run batches in parallel themselves)",
}


def _docstring(spec: ShapeSpec) -> str:
    lines = [
        f"Mass properties of N bodies of shape {spec.name!r} at once: {spec.summary}.",
        "",
        "The keywords of the shape's class, each a scalar or an array, broadcast to N rows;",
        "row ``i`` equals the body built from row ``i``'s arguments, bit for bit.",
        "",
        "Parameters (keyword-only)",
        "----------",
    ]
    for p in spec.params:
        lines.append(f"{p.name} : scalar or (N,), default {p.default!r}: {p.help}")
    for name in (*spec.options(), *OPTIONS):
        lines.append(f"{name} : {_OPTION_HELP[name]}")
    lines += [
        "",
        "At most one of material, density and mass is given (the default material: steel).",
        "",
        "Returns",
        "-------",
        "BatchMassProperties: (N,) mass, volume, density; (N, 3) center_of_mass; (N, 3, 3)",
        "inertia about each centre of mass in frame_a axes; exact principal moments and axes.",
    ]
    return "\n".join(lines)


for _name, _shape in SHAPES.items():
    if _shape.tier == 1:
        globals()[_name] = batch_function(_shape)
del _name, _shape


def __getattr__(name: str) -> Any:
    if name == "_numba":  # the compiled engine's module (imports numba), or None
        return compiled_engine()
    spec = SHAPES.get(name)
    if spec is not None and spec.tier != 1:
        raise AttributeError(f"rigidparts.batch has no {name!r}: shape {name!r} {_NO_BATCH}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
