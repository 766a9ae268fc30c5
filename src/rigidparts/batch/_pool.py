"""Reuse of large output buffers between batch calls.

Fresh memory from the operating system arrives zeroed, page by page, on first touch: for the
113 bytes per row a batch writes, that zeroing alone costs about as much as copying the
outputs once (``benchmarks/``). A sweep that calls the batch functions again and again (Monte
Carlo, optimisation) would pay it on every call. So, as CuPy's and PyTorch's allocators do,
the buffers of results that nobody references any more are kept and handed out again.

A buffer is reused only when no array refers to it (its reference count shows that only the
pool holds it), so a result that is still alive is never overwritten. Of the buffers no
result uses, the pool keeps at most :data:`LIMIT` bytes (checked at every request; least
recently used first out); :func:`release` empties it.
Buffers smaller than :data:`MINIMUM` bytes go straight to numpy (its own small-block cache
serves them). Pooled arrays start on a cache-line boundary (:data:`ALIGNMENT`): the compiled
kernel writes them in whole lines with non-temporal stores, and a line it can only partly
write costs it a read of that line from memory (``batch/_numba.py``).
"""

from __future__ import annotations

import math
import sys
import threading

import numpy as np

__all__ = ["ALIGNMENT", "LIMIT", "MAX_BUFFERS", "MINIMUM", "empty", "release", "retained_bytes"]

#: Most bytes of unused buffers the pool keeps. Set ``rigidparts.batch._pool.LIMIT`` to change.
LIMIT = 1 << 30
#: Smaller buffers are not pooled.
MINIMUM = 1 << 16
#: Most buffers the pool tracks.
MAX_BUFFERS = 64
#: Pooled arrays start at a multiple of this many bytes (a cache line).
ALIGNMENT = 64

_buffers: list[np.ndarray] = []  # least recently used first
_lock = threading.Lock()


def _unused(index: int) -> bool:
    # References: the list slot and getrefcount's own argument -- nothing else.
    return sys.getrefcount(_buffers[index]) == 2


def empty(shape: tuple[int, ...], dtype: type = np.float64) -> np.ndarray:
    """An uninitialised array like ``np.empty(shape, dtype)``, from a reusable buffer."""
    nbytes = math.prod(shape) * np.dtype(dtype).itemsize
    if nbytes < MINIMUM:
        return np.empty(shape, dtype)
    size = nbytes + ALIGNMENT  # room to start on a boundary
    with _lock:
        for index in reversed(range(len(_buffers))):  # most recently used (warmest) first
            if _buffers[index].nbytes == size and _unused(index):
                _buffers.append(_buffers.pop(index))
                return _aligned(_buffers[-1], nbytes, dtype, shape)
        _trim(LIMIT)
        buffer = np.empty(size, np.uint8)
        _buffers.append(buffer)
        # Forget the oldest beyond MAX_BUFFERS (those still in use live on with their results).
        del _buffers[:-MAX_BUFFERS]
        return _aligned(buffer, nbytes, dtype, shape)


def _aligned(buffer: np.ndarray, nbytes: int, dtype: type, shape: tuple[int, ...]) -> np.ndarray:
    """The array of ``shape`` in ``buffer`` from its first :data:`ALIGNMENT` boundary (a view
    whose base is ``buffer`` itself, so that :func:`_unused` counts it)."""
    start = -buffer.ctypes.data % ALIGNMENT
    return buffer[start : start + nbytes].view(dtype).reshape(shape)


def _trim(limit: int) -> None:
    """Drop the least recently used unused buffers until they hold at most ``limit`` bytes."""
    unused = [i for i in range(len(_buffers)) if _unused(i)]
    spare = sum(_buffers[i].nbytes for i in unused)
    dropped = set()
    for i in unused:  # least recently used first
        if spare <= limit:
            break
        spare -= _buffers[i].nbytes
        dropped.add(i)
    if dropped:
        _buffers[:] = [b for i, b in enumerate(_buffers) if i not in dropped]


def release() -> None:
    """Forget every pooled buffer (memory of dead results returns to the system)."""
    with _lock:
        _buffers.clear()


def retained_bytes() -> int:
    """Bytes the pool currently holds (including buffers still in use by results)."""
    with _lock:
        return sum(b.nbytes for b in _buffers)
