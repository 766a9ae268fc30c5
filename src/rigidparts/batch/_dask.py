"""Dask input: the same kernel, chunk by chunk, lazily.

Every input is broadcast to the N rows and rechunked to one common row chunking (that of the
first dask input); :func:`dask.array.blockwise` then calls :func:`_block` once per row chunk.
``_block`` evaluates the chunk with :func:`.evaluate.evaluate` (single-threaded kernel: dask
already runs chunks in parallel) and packs the outputs into one ``(rows, width)`` float64
block -- volume, mass, centre of mass (3), inertia (9), canonical moments (3), error code, then
the density when ``mass=`` was given and the frame rows (9) when rows have their own axis --
from which the result's arrays are lazy slices. A row index array travels with the inputs, so
an invalid row raises with its global index. Nothing is computed until the caller asks
(``.compute()``, ``dask.compute(...)``, ``da.to_zarr``...), so sweeps larger than memory, or
spread over a cluster with ``dask.distributed``, need no other code.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

import dask.array as da
import numpy as np

from ..shapes import ShapeSpec
from .arguments import VECTORS, is_dask
from .evaluate import evaluate as evaluate_rows
from .evaluate import shared_frame
from .result import BatchMassProperties, row_error

__all__ = ["evaluate"]

#: Columns of a packed block (before the optional density and frame columns).
_VOLUME, _MASS, _COM, _INERTIA, _MOMENTS, _CODE, _FIXED = 0, 1, 2, 5, 14, 17, 18
#: The arguments that place the frame.
_FRAME_INPUTS = ("axis", "height_direction", "rotate90")


def _block(
    index: np.ndarray,
    *columns: np.ndarray,
    names: tuple[str, ...],
    spec: ShapeSpec,
    on_invalid: str,
    engine: str,
    by_mass: bool,
    explicit_height: bool,
    pack_frames: bool,
) -> np.ndarray:
    rows = dict(zip(names, columns, strict=True))
    result, invalid = evaluate_rows(
        spec, rows, engine=engine, by_mass=by_mass, explicit_height=explicit_height,
        threads=False,
    )  # fmt: skip
    if invalid and on_invalid == "raise":
        bad = np.flatnonzero(result.error_codes)
        if bad.size:
            local = int(bad[0])
            raise row_error(result, local, int(result.error_codes[local]), int(index[local]))
    out = np.empty((index.shape[0], _width(by_mass, pack_frames)))
    out[:, _VOLUME] = result.volume
    out[:, _MASS] = result.mass
    out[:, _COM : _COM + 3] = result.center_of_mass
    out[:, _INERTIA : _INERTIA + 9] = result.inertia.reshape(-1, 9)
    out[:, _MOMENTS : _MOMENTS + 3] = result.canonical_moments
    out[:, _CODE] = result.error_codes
    column = _FIXED
    if by_mass:
        out[:, column] = result.density
        column += 1
    if pack_frames:  # rows e, h, w: R_AC transposed
        out[:, column : column + 9] = result.rotation_from_canonical.transpose(0, 2, 1).reshape(
            -1, 9
        )
    return out


def _width(by_mass: bool, pack_frames: bool) -> int:
    return _FIXED + int(by_mass) + 9 * int(pack_frames)


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
    if row_chunks is None:  # only length-1 dask inputs: one chunk
        row_chunks = (n,)

    names = tuple(inputs)
    arrays = []
    for name in names:
        target = (n, 3) if name in VECTORS else (n,)
        array = da.broadcast_to(da.asarray(inputs[name]), target)
        arrays.append(array.rechunk((row_chunks, 3) if name in VECTORS else (row_chunks,)))
    index = da.arange(n, chunks=(row_chunks,))

    # One frame for all rows (numpy axis and height direction of one row): computed here,
    # once, and repeated lazily; otherwise each block packs its rows' frames.
    shared = all(
        not is_dask(inputs[name])
        and np.shape(inputs[name])[: -1 if name in VECTORS else None] in ((), (1,))
        for name in _FRAME_INPUTS
        if name in inputs
    )
    pairs: list[Any] = [index, "i"]
    for name, array in zip(names, arrays, strict=True):
        pairs += [array, "ij" if name in VECTORS else "i"]
    width = _width(by_mass, not shared)
    packed = da.blockwise(
        _block,
        "ik",
        *pairs,
        new_axes={"k": width},
        concatenate=True,
        dtype=np.float64,
        meta=np.empty((0, width)),
        names=names,
        spec=spec,
        on_invalid=on_invalid,
        engine=engine,
        by_mass=by_mass,
        explicit_height=explicit_height,
        pack_frames=not shared,
    )
    by_name = dict(zip(names, arrays, strict=True))
    if shared:
        frame = np.eye(3)
        if spec.axis:
            height = inputs.get("height_direction", np.zeros(3))
            rotate90 = inputs.get("rotate90", np.False_)
            _, frame = shared_frame(
                spec,
                np.asarray(inputs["axis"], dtype=np.float64).reshape(3),
                np.asarray(height, dtype=np.float64).reshape(3),
                bool(np.asarray(rotate90).reshape(())),
                explicit_height,
            )
        frames = da.broadcast_to(frame, (n, 3, 3), chunks=(row_chunks, 3, 3))
    else:
        first = _FIXED + int(by_mass)
        frames = packed[:, first : first + 9].reshape((n, 3, 3))
    return BatchMassProperties(
        spec,
        mass=packed[:, _MASS],
        volume=packed[:, _VOLUME],
        density=packed[:, _FIXED] if by_mass else by_name["density"],
        center_of_mass=packed[:, _COM : _COM + 3],
        inertia=packed[:, _INERTIA : _INERTIA + 9].reshape((n, 3, 3)),
        error_codes=packed[:, _CODE].astype(np.uint8),
        inputs=MappingProxyType(by_name),
        canonical_moments=packed[:, _MOMENTS : _MOMENTS + 3],
        rotation_from_canonical=frames.transpose(0, 2, 1),
    )
