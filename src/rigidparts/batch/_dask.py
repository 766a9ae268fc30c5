"""Dask input: the same kernel, chunk by chunk, lazily.

Every input is broadcast to the N rows and rechunked to one common row chunking (that of the
first dask input); :func:`dask.array.blockwise` then calls :func:`_block` once per row chunk.
``_block`` evaluates the chunk with the numpy-level batch function (single-threaded kernel:
dask already runs chunks in parallel) and packs the outputs into one ``(rows, 15)`` float64
block -- volume, mass, centre of mass (3), inertia (9), error code -- from which the result's
arrays are lazy slices. A row index array travels with the inputs, so an invalid row raises
with its global index. Nothing is computed until the caller asks (``.compute()``,
``dask.compute(...)``, ``da.to_zarr``...), so sweeps larger than memory, or spread over a
cluster with ``dask.distributed``, need no other code.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

import dask.array as da
import numpy as np

__all__ = ["evaluate"]

_VECTORS = ("axis", "height_direction")
_WIDTH = 15


def _block(index: np.ndarray, *columns: np.ndarray, names: tuple[str, ...], shape: str,
           on_invalid: str, engine: str, explicit_height: bool) -> np.ndarray:  # fmt: skip
    from . import _evaluate

    rows = dict(zip(names, columns, strict=True))
    result, invalid = _evaluate(
        shape, rows, engine=engine, explicit_height=explicit_height, threads=False
    )
    if invalid and on_invalid == "raise":
        bad = np.flatnonzero(result.error_codes)
        if bad.size:
            from . import _row_error

            local = int(bad[0])
            raise _row_error(result, local, int(result.error_codes[local]), int(index[local]))
    out = np.empty((index.shape[0], _WIDTH))
    out[:, 0] = result.volume
    out[:, 1] = result.mass
    out[:, 2:5] = result.center_of_mass
    out[:, 5:14] = result.inertia.reshape(-1, 9)
    out[:, 14] = result.error_codes
    return out


def evaluate(
    shape: str,
    inputs: dict[str, Any],
    n: int,
    *,
    on_invalid: str,
    engine: str,
    explicit_height: bool,
):
    """A dask-backed :class:`~rigidparts.batch.BatchMassProperties` for ``inputs``."""
    from . import _SHAPES, EXTRA_RULES, BatchMassProperties

    row_chunks = None
    for name, value in inputs.items():
        if hasattr(value, "dask"):
            rows = value.shape[:-1] if name in _VECTORS else value.shape
            if rows and rows[0] == n:
                row_chunks = value.chunks[0]
                break
    if row_chunks is None:  # only length-1 dask inputs: one chunk
        row_chunks = (n,)

    names = tuple(inputs)
    arrays = []
    for name in names:
        value = inputs[name]
        target = (n, 3) if name in _VECTORS else (n,)
        array = da.broadcast_to(da.asarray(value), target)
        arrays.append(array.rechunk((row_chunks, 3) if name in _VECTORS else (row_chunks,)))
    index = da.arange(n, chunks=(row_chunks,))

    pairs: list[Any] = [index, "i"]
    for name, array in zip(names, arrays, strict=True):
        pairs += [array, "ij" if name in _VECTORS else "i"]
    packed = da.blockwise(
        _block,
        "ik",
        *pairs,
        new_axes={"k": _WIDTH},
        concatenate=True,
        dtype=np.float64,
        meta=np.empty((0, _WIDTH)),
        names=names,
        shape=shape,
        on_invalid=on_invalid,
        engine=engine,
        explicit_height=explicit_height,
    )
    kernel = _SHAPES[shape]
    by_name = dict(zip(names, arrays, strict=True))
    kept = (*kernel.PARAMETERS, "density", "axis") + (
        ("height_direction", "rotate90") if shape == "box" else ()
    )
    return BatchMassProperties(
        shape,
        mass=packed[:, 1],
        volume=packed[:, 0],
        density=by_name["density"],
        center_of_mass=packed[:, 2:5],
        inertia=packed[:, 5:14].reshape((n, 3, 3)),
        error_codes=packed[:, 14].astype(np.uint8),
        inputs=MappingProxyType({name: by_name[name] for name in kept}),
        rules=tuple(kernel.RULES) + EXTRA_RULES,
    )
