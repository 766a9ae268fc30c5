"""Dask input: the same kernel, chunk by chunk, lazily, in memory bounded by the chunks.

Only the arguments that vary along the rows travel as dask arrays: a dask input, or a numpy
array of N rows (wrapped lazily, no copy), rechunked to one common row chunking (that of the
first dask input). Scalars and single rows -- a density, a material's density, one axis --
stay what they are: plain values bound into each task and broadcast there without a copy
(stride 0), so no full-size array is ever made for them, and one frame shared by all rows is
computed once. A dask scalar or single row is computed when the call is made.

One task per row chunk (:func:`_block`) evaluates the chunk with :func:`.evaluate.evaluate`
(single-threaded kernel: dask runs chunks in parallel; outputs from ``numpy.empty``, not the
buffer pool, so they are freed with the chunk) and returns its result arrays as a tuple; each
lazy output (mass, volume, centre of mass, inertia, canonical moments, error codes, and the
density and frames when they vary by row) is one small task per chunk that picks its array out
of that tuple. So ``result.mass.sum().compute()`` over 10^9 rows holds a few chunks at a time,
and never copies the outputs it does not use. A row index array travels with the inputs, so an
invalid row raises with its global index. Nothing is computed until the caller asks
(``.compute()``, ``dask.compute(...)``, ``da.to_zarr``...).
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

import dask.array as da
import numpy as np

from ..shapes import ShapeSpec
from .arguments import VECTORS, is_dask, rows_view
from .evaluate import evaluate as evaluate_rows
from .evaluate import shared_frame
from .result import BatchMassProperties, row_error

__all__ = ["evaluate"]

#: The arguments that place the frame.
_FRAME_INPUTS = ("axis", "height_direction", "rotate90")
#: The outputs a chunk's tuple holds, in order (then the density, then the frames, when
#: they vary by row).
_OUTPUTS = ("mass", "volume", "center_of_mass", "inertia", "canonical_moments", "error_codes")


def _block(
    index: np.ndarray,
    *columns: np.ndarray,
    names: tuple[str, ...],
    constants: dict[str, np.ndarray],
    spec: ShapeSpec,
    on_invalid: str,
    engine: str,
    by_mass: bool,
    explicit_height: bool,
    per_row_density: bool,
    per_row_frame: bool,
) -> tuple[np.ndarray, ...]:
    """One row chunk: ``(mass, volume, centre of mass, inertia, canonical moments, codes[,
    density][, R_AC])``; raises for its first invalid row when ``on_invalid="raise"``."""
    m = index.shape[0]
    rows = dict(zip(names, columns, strict=True))
    for name, value in constants.items():  # a scalar or one row, repeated without a copy
        rows[name] = rows_view(value, (m, 3) if name in VECTORS else (m,))
    result, invalid = evaluate_rows(
        spec, rows, engine=engine, by_mass=by_mass, explicit_height=explicit_height,
        threads=False, pooled=False,
    )  # fmt: skip
    if invalid and on_invalid == "raise":
        local = int(np.flatnonzero(result.error_codes)[0])
        raise row_error(result, local, int(result.error_codes[local]), int(index[local]))
    out = [getattr(result, name) for name in _OUTPUTS]
    if per_row_density:
        out.append(result.density)
    if per_row_frame:
        out.append(result.rotation_from_canonical)
    return tuple(out)


def _pick(block: tuple[np.ndarray, ...], k: int) -> np.ndarray:
    return block[k]


def _single(name: str, value: Any) -> bool:
    """A scalar or a single row (3-vectors: one row of 3): one value for every row."""
    rows = value.shape[:-1] if name in VECTORS else value.shape
    return not rows or rows[0] == 1


def evaluate(
    spec: ShapeSpec,
    inputs: dict[str, Any],
    n: int,
    *,
    by_mass: bool,
    on_invalid: str,
    engine: str,
    explicit_height: bool,
) -> BatchMassProperties:
    """A dask-backed :class:`~rigidparts.batch.BatchMassProperties` for ``inputs``."""
    row_chunks = None
    for name, value in inputs.items():
        if is_dask(value):
            rows = value.shape[:-1] if name in VECTORS else value.shape
            if rows and rows[0] == n:
                row_chunks = value.chunks[0]
                break
    if row_chunks is None:  # only single-row dask inputs: one chunk
        row_chunks = (n,)

    # Scalars and single rows stay plain values (dask ones computed now: a few numbers).
    constants: dict[str, np.ndarray] = {}
    lazy: dict[str, Any] = {}
    for name, value in inputs.items():
        if _single(name, value):
            one = np.asarray(value.compute() if is_dask(value) else value)
            constants[name] = one.reshape(3 if name in VECTORS else ())
        else:
            chunks = (row_chunks, 3) if name in VECTORS else (row_chunks,)
            array = value if is_dask(value) else da.from_array(value, chunks=chunks, name=False)
            lazy[name] = array.rechunk(chunks)
    index = da.arange(n, chunks=(row_chunks,))

    per_row_frame = any(name in lazy for name in _FRAME_INPUTS)
    source = "mass" if by_mass else "density"
    per_row_density = by_mass  # mass / volume varies by row even for one mass
    names = tuple(lazy)
    pairs: list[Any] = [index, "i"]
    for name in names:
        pairs += [lazy[name], "ij" if name in VECTORS else "i"]
    blocks = da.blockwise(
        _block,
        "i",
        *pairs,
        dtype=object,
        meta=np.empty((0,), dtype=object),
        concatenate=True,
        names=names,
        constants=constants,
        spec=spec,
        on_invalid=on_invalid,
        engine=engine,
        by_mass=by_mass,
        explicit_height=explicit_height,
        per_row_density=per_row_density,
        per_row_frame=per_row_frame,
    )

    def output(k: int, tail: tuple[int, ...], dtype: Any = np.float64) -> Any:
        return da.map_blocks(
            _pick,
            blocks,
            k,
            dtype=dtype,
            chunks=(row_chunks, *((size,) for size in tail)),
            new_axis=list(range(1, 1 + len(tail))) or None,
            meta=np.empty((0, *tail), dtype=dtype),
        )

    mass, volume = output(0, ()), output(1, ())
    center_of_mass, inertia = output(2, (3,)), output(3, (3, 3))
    moments, codes = output(4, (3,)), output(5, (), np.uint8)
    k = len(_OUTPUTS)
    if per_row_density:
        density = output(k, ())
        k += 1
    elif source in lazy:
        density = lazy[source]
    else:
        density = da.broadcast_to(constants[source], (n,), chunks=(row_chunks,))
    if per_row_frame:
        rotation = output(k, (3, 3))
    else:  # one frame for all rows: computed here, once, and repeated lazily
        frame = np.eye(3)
        if spec.axis:
            _, frame = shared_frame(
                spec,
                constants["axis"],
                constants.get("height_direction", np.zeros(3)),
                bool(constants.get("rotate90", np.False_)),
                explicit_height,
            )
        rotation = da.broadcast_to(frame.T, (n, 3, 3), chunks=(row_chunks, 3, 3))
    by_name = {
        name: lazy[name]
        if name in lazy
        else da.broadcast_to(
            constants[name],
            (n, 3) if name in VECTORS else (n,),
            chunks=(row_chunks, 3) if name in VECTORS else (row_chunks,),
        )
        for name in inputs
    }
    return BatchMassProperties(
        spec,
        mass=mass,
        volume=volume,
        density=density,
        center_of_mass=center_of_mass,
        inertia=inertia,
        error_codes=codes,
        inputs=MappingProxyType(by_name),
        canonical_moments=moments,
        rotation_from_canonical=rotation,
    )
