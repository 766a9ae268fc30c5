"""One compiled pass per block: gather, statistics and histogram (numba).

The numpy path of :func:`.study.evaluate_chunk` gathers a block's outputs into an (outputs,
m) array, drops the invalid rows, then reduces each row with numpy (``sum``, two passes for
M2, ``min``, ``max``) and histograms it: about five passes over the block and several
temporaries. This module does the same work in one compiled loop per block, **with the same
bits**: every float operation is the numpy path's, in the same order --

- sums are numpy's pairwise summation of a contiguous row (``pairwise_sum`` in numpy's
  ``loops_utils.h``: fewer than 8 values added in order; up to 128 in 8 interleaved partial
  sums combined as ``((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))``, then the rest; more
  than 128 split at ``n/2`` rounded down to a multiple of 8), added to numpy's identity 0.0;
- the principal moments are sorted by the same three-element network of min / max;
- a value's bin is ``1 + (x - low) * scale`` clipped to ``[0, bins + 1]`` and truncated, the
  numpy path's elementwise arithmetic (numba does not contract ``a * b + c`` into a fused
  multiply-add without ``fastmath``);
- min and max do not depend on the order (the study adds ``+ 0.0`` to both in either path, so
  a ``-0.0`` / ``0.0`` tie cannot tell the paths apart).

``tests/test_tolerance.py`` checks the two paths bit for bit on random blocks (short ones,
invalid rows, constant outputs, signed zeros), so a study gives the same figures with and
without numba, on every worker. Compiled on first use (numba's disk cache).
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["reduce_blocks"]

_PAIRWISE_BLOCK = 128  # numpy's PW_BLOCKSIZE


@numba.njit(cache=True, nogil=True)
def _leaf(a: np.ndarray, lo: int, n: int) -> float:  # pragma: no cover (compiled)
    """numpy's pairwise sum of ``a[lo : lo + n]`` for n <= 128 (no split)."""
    if n < 8:
        res = -0.0
        for i in range(lo, lo + n):
            res += a[i]
        return res
    r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
    r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
    end = lo + n - (n % 8)
    i = lo + 8
    while i < end:
        r0 += a[i]
        r1 += a[i + 1]
        r2 += a[i + 2]
        r3 += a[i + 3]
        r4 += a[i + 4]
        r5 += a[i + 5]
        r6 += a[i + 6]
        r7 += a[i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < lo + n:
        res += a[i]
        i += 1
    return res


@numba.njit(cache=True, nogil=True)
def _pairwise(a: np.ndarray, lo: int, n: int) -> float:  # pragma: no cover (compiled)
    """numpy's pairwise sum of ``a[lo : lo + n]``: ``sum(left) + sum(right)``, split at
    ``n/2`` rounded down to a multiple of 8 while n > 128. Written with an explicit stack (a
    recursive function breaks numba's disk cache); the additions are the recursion's."""
    # Operations: kind 0 = sum of (lo, n) onto the value stack; kind 1 = add the top two.
    kinds = np.empty(128, np.int64)
    starts = np.empty(128, np.int64)
    sizes = np.empty(128, np.int64)
    values = np.empty(64)
    top = 0
    depth = 0
    kinds[0], starts[0], sizes[0] = 0, lo, n
    top = 1
    while top > 0:
        top -= 1
        kind, start, size = kinds[top], starts[top], sizes[top]
        if kind == 1:
            right = values[depth - 1]
            left = values[depth - 2]
            depth -= 1
            values[depth - 1] = left + right
        elif size <= _PAIRWISE_BLOCK:
            values[depth] = _leaf(a, start, size)
            depth += 1
        else:
            half = size // 2
            half -= half % 8
            kinds[top], starts[top], sizes[top] = 1, 0, 0  # then add them
            kinds[top + 1], starts[top + 1], sizes[top + 1] = 0, start + half, size - half
            kinds[top + 2], starts[top + 2], sizes[top + 2] = 0, start, half  # left first
            top += 3
    return values[0]


@numba.njit(cache=True, nogil=True)
def reduce_blocks(
    mass: np.ndarray,
    center_of_mass: np.ndarray,
    moments: np.ndarray,
    volume: np.ndarray,
    codes: np.ndarray,
    block: int,
    low: np.ndarray,
    scale: np.ndarray,
    bins: int,
    histogram: np.ndarray,
    with_histogram: bool,
    counts: np.ndarray,
    stats: np.ndarray,
) -> None:  # pragma: no cover (compiled)
    """Blocks of ``block`` rows of a chunk's batch outputs (the last may be short): valid
    counts into ``counts`` (blocks,), mean, M2, min, max into ``stats`` (blocks, 8, 4), and,
    with ``with_histogram``, each valid value's bin into ``histogram`` (8, bins + 2)."""
    n = mass.shape[0]
    buffer = np.empty((8, block))
    squares = np.empty(block)
    top = float(bins + 1)
    for k in range(counts.shape[0]):
        start = k * block
        stop = min(n, start + block)
        c = 0
        for i in range(start, stop):
            if codes[i] != 0:
                continue
            buffer[0, c] = mass[i]
            buffer[1, c] = center_of_mass[i, 0]
            buffer[2, c] = center_of_mass[i, 1]
            buffer[3, c] = center_of_mass[i, 2]
            a, b, d = moments[i, 0], moments[i, 1], moments[i, 2]
            small = min(a, b)
            high = max(a, b)
            middle = max(small, d)
            small = min(small, d)
            buffer[4, c] = small
            buffer[5, c] = min(high, middle)
            buffer[6, c] = max(high, middle)
            buffer[7, c] = volume[i]
            c += 1
        counts[k] = c
        if c == 0:
            stats[k, :, :] = np.nan
            continue
        for j in range(8):
            row = buffer[j]
            mean = (0.0 + _pairwise(row, 0, c)) / c
            smallest = row[0]
            largest = row[0]
            for i in range(c):
                x = row[i]
                deviation = x - mean
                squares[i] = deviation * deviation
                if x < smallest:
                    smallest = x
                if x > largest:
                    largest = x
            stats[k, j, 0] = mean
            stats[k, j, 1] = 0.0 + _pairwise(squares, 0, c)
            stats[k, j, 2] = smallest + 0.0
            stats[k, j, 3] = largest + 0.0
            if not with_histogram:
                continue
            if smallest == largest:  # a constant output: its count into its one bin
                x = (stats[k, j, 2] - low[j]) * scale[j] + 1.0
                histogram[j, int(min(max(x, 0.0), top))] += c
                continue
            for i in range(c):
                x = (row[i] - low[j]) * scale[j] + 1.0
                histogram[j, int(min(max(x, 0.0), top))] += 1
