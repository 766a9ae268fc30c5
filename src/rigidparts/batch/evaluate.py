"""Evaluation of N broadcast rows: the shared frame, the output buffers, the engine.

:func:`evaluate` takes the rows of one call (numpy arrays of their final shapes, from
:mod:`.arguments`), computes the frame once when every row shares it (the common case: one
axis) with the scalar path's own function, allocates the outputs (from :mod:`._pool`), and runs
the compiled kernel (:mod:`._numba`) or the numpy engine (:mod:`._numpy`) on them.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Mapping
from types import MappingProxyType, ModuleType
from typing import Any

import numpy as np

from .. import frames as _frames
from ..shapes import ShapeSpec
from . import _pool
from .arguments import rows_view
from .result import BatchMassProperties, readonly

__all__ = ["ENGINE", "compiled_engine", "evaluate", "resolve_engine", "shared_frame"]

#: The engine ``engine="auto"`` uses: ``"numba"`` when numba is installed, else ``"numpy"``.
#: (Found without importing numba: it loads on the first batch call, not at import.)
ENGINE: str = "numba" if importlib.util.find_spec("numba") is not None else "numpy"

_compiled: list[ModuleType | None] = []


def compiled_engine() -> ModuleType | None:
    """The compiled engine's module (:mod:`._numba`; numba is imported on the first call), or
    None when numba is not installed or cannot be imported."""
    if not _compiled:
        try:  # (import_module: the package's __getattr__ serves ``batch._numba`` from here)
            module: ModuleType | None = importlib.import_module(f"{__package__}._numba")
        except ImportError:
            module = None
        _compiled.append(module)
    return _compiled[0]

#: Rows e, h, w of the frame of a shape without an axis: C is frame_a.
_IDENTITY = readonly(np.eye(3))
_NO_DIRECTION = readonly(np.zeros(3))
_NO_TURN = readonly(np.zeros(1, dtype=np.bool_))


#: Below this many rows ``engine="auto"`` takes the numpy engine unless numba is already
#: loaded: importing numba and loading a cached kernel costs a fresh process 0.5 to 1 s, what
#: the numpy engine (about 0.1 us a row) spends on several million rows. Both engines give the
#: same bits, so the choice changes only the time.
AUTO_COMPILED_ROWS = 1_000_000


def resolve_engine(engine: str, rows: int | None = None) -> str:
    """``"numba"`` or ``"numpy"`` for ``engine`` and a batch of ``rows`` (None: as many as it
    takes, a dask array's). ``"auto"``: the numpy engine without numba, and for fewer than
    :data:`AUTO_COMPILED_ROWS` rows while numba is not yet imported; else the compiled one.
    ImportError when numba is asked for and missing."""
    if engine == "numpy" or (engine == "auto" and ENGINE == "numpy"):
        return "numpy"
    if (
        engine == "auto"
        and rows is not None
        and rows < AUTO_COMPILED_ROWS
        and "numba" not in sys.modules
    ):
        return "numpy"
    if compiled_engine() is None:
        if engine == "auto":  # installed but broken: the numpy engine gives the same bits
            return "numpy"
        raise ImportError(
            "rigidparts.batch engine='numba' needs numba: pip install 'rigidparts[batch]'"
        )
    return "numba"


def evaluate(
    spec: ShapeSpec,
    rows: Mapping[str, np.ndarray],
    *,
    engine: str,
    by_mass: bool,
    explicit_height: bool,
    threads: bool = True,
    pooled: bool = True,
) -> tuple[BatchMassProperties, int]:
    """Evaluate N rows (numpy arrays of the final shapes, by name): ``(result, invalid row
    count)``. ``engine`` is ``"numba"`` or ``"numpy"``; ``pooled=False`` takes the outputs from
    ``numpy.empty`` rather than the buffer pool (dask chunks: freed with the chunk)."""
    source = rows["mass" if by_mass else "density"]
    n = source.shape[0]
    # Arguments the shape does not take: the rule's zeros (stride 0, no copy).
    axis = rows.get("axis")
    axis = rows_view(_NO_DIRECTION, (n, 3)) if axis is None else axis
    height = rows.get("height_direction")
    height = rows_view(_NO_DIRECTION, (n, 3)) if height is None else height
    rotate90 = rows.get("rotate90")
    rotate90 = rows_view(_NO_TURN, (n,)) if rotate90 is None else rotate90

    # One frame for every row (the common case: a single axis) is computed once, here, by the
    # same scalar function.
    shared = (
        n <= 1
        or not spec.axis
        or (axis.strides[0] == 0 and height.strides[0] == 0 and rotate90.strides[0] == 0)
    )
    frame, frame_code = _IDENTITY, 0
    if shared and spec.axis and n:
        frame_code, frame = shared_frame(
            spec, axis[0], height[0], bool(rotate90[0]), explicit_height
        )

    empty = _pool.empty if pooled else np.empty
    volume = empty((n,))
    mass = empty((n,))
    center_of_mass = empty((n, 3))
    inertia = empty((n, 3, 3))
    moments = empty((n, 3))
    error_codes = empty((n,), np.uint8)
    density = empty((n,)) if by_mass else np.empty(0)
    frames = np.empty((0, 3, 3)) if shared else empty((n, 3, 3))
    inputs = (
        tuple(rows[name] for name in spec.parameter_names),
        source,
        by_mass,
        axis,
        height,
        rotate90,
        frame,
        frame_code,
        not shared,
        explicit_height,
    )
    outputs = (volume, mass, density, center_of_mass, inertia, moments, frames, error_codes)
    invalid = 0
    if n:
        if engine == "numba":
            compiled = compiled_engine()
            assert compiled is not None
            invalid = compiled.run(spec, inputs, outputs, threads=threads)
        else:
            from . import _numpy

            invalid = _numpy.run(spec, inputs, outputs)
    if shared:  # every row's R_AC: one matrix, repeated without a copy
        frames = rows_view(frame, (n, 3, 3))

    result = BatchMassProperties(
        spec,
        mass=readonly(mass),
        volume=readonly(volume),
        density=readonly(density) if by_mass else rows["density"],
        center_of_mass=readonly(center_of_mass),
        inertia=readonly(inertia),
        error_codes=readonly(error_codes),
        inputs=MappingProxyType(dict(rows)),
        canonical_moments=readonly(moments),
        rotation_from_canonical=readonly(frames.transpose(0, 2, 1)),
    )
    return result, invalid


def shared_frame(
    spec: ShapeSpec,
    axis: np.ndarray,
    height: np.ndarray,
    rotate90: bool,
    explicit_height: bool,
) -> tuple[int, np.ndarray]:
    """``(code, rows e, h, w)`` for one axis / height direction, as the scalar path computes
    them: code 0, or the code of the broken frame rule in ``spec.all_rules`` (frame NaN).

    Cached by the inputs' bytes (not their values: -0.0 and 0.0 are equal but can give
    differently signed zeros in the frame)."""
    first = spec.common_code("frame")
    key = (axis.tobytes(), height.tobytes(), rotate90, explicit_height)
    found = _FRAMES.get(key)
    if found is None:
        if len(_FRAMES) > 256:
            _FRAMES.clear()
        code, *vectors = _frames.body_frame(
            *axis.tolist(), rotate90, explicit_height, *height.tolist()
        )
        found = _FRAMES[key] = (code, readonly(np.array(vectors).reshape(3, 3)))
    code, frame = found
    return (first + code - 1 if code else 0), frame


_FRAMES: dict[tuple[Any, ...], tuple[int, np.ndarray]] = {}
