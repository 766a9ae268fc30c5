"""The compiled batch kernel: the core's own scalar functions, compiled by numba.

Nothing here restates a formula. ``numba.njit`` compiles the very functions the scalar path
calls with Python floats -- ``shapes.<shape>.check`` and ``closed_form``,
``shapes.results_representable``, ``frames.body_frame``, ``inertia.rotate_principal_inertia``
-- and one fused loop per shape evaluates them row by row, reading the (broadcast) inputs and
writing the outputs in place. No ``fastmath``: LLVM then keeps every IEEE operation as written
(no FMA contraction, no reassociation), so each row is bit-for-bit what ``rp.Cone(...)`` /
``rp.Box(...)`` gives; ``tests/test_batch.py`` checks that on random bodies.

``error_model="numpy"`` only removes the Python-style zero-division checks: the kernel calls
the closed forms on invalid rows too (so that the loops stay branch-free and vectorise) and
overwrites those rows with NaN afterwards.

Layout of the loop (measured in ``benchmarks/``): rows are processed in chunks of
:data:`CHUNK` that stay in L1 cache. Per chunk the inputs are gathered into contiguous
scratch (any stride, including the 0-stride of a broadcast scalar), then the validity checks,
the per-row frames (only when rows have their own axis), the closed forms with the rotation
into frame_a, and the stores run as separate short loops, so that LLVM vectorises the
branch-free ones (the closed forms: 8 rows per AVX-512 instruction). A shape's ``check``
vectorises too if it is written without early returns. Large outputs are written with
non-temporal stores (:func:`_stream_store`): they bypass the caches, which saves reading
every output line before writing it. The kernel releases the GIL (``nogil``); a large batch
is cut into blocks of rows that the calling thread and a small thread pool (:data:`THREADS`)
take in turn -- thread-safe whatever numba's threading layer, and it composes with dask's own
threads.

Compilation happens once, at import (explicit signatures), and is cached on disk
(``cache=True``: ``__pycache__`` beside this file, or numba's user cache directory when that is
read-only, or ``NUMBA_CACHE_DIR``). numba only checks the timestamp of the file that defines a
cached function, not of the functions it calls, so the kernel's name carries a digest of the
sources it compiles: editing a closed form gives a new name and a fresh compilation.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import inspect
import math
import threading
from types import ModuleType

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils

from .. import frames, inertia, shapes
from ..shapes import box as _box
from ..shapes import cone as _cone

__all__ = ["CHUNK", "KERNELS", "run"]

#: Rows per inner chunk: the scratch (about 25 float64 per row) stays in L1.
CHUNK = 128
#: Threads for one large batch (numba's default: the number of CPUs).
THREADS = max(1, numba.config.NUMBA_NUM_THREADS)
#: Below this many rows a batch runs in the calling thread (a thread hand-off costs more).
THREAD_THRESHOLD = 32_768
#: From this many rows on (outputs of 3.6 MB and more: beyond a core's L2 cache) the outputs
#: are written with non-temporal stores (measured faster from about 30 000 rows on).
STREAMING_THRESHOLD = 1 << 15

_JIT = {"error_model": "numpy", "nogil": True}

# Make the core's scalar functions compile where jitted code calls them. They stay ordinary
# Python functions for every other caller; this only tells numba how to compile them (and
# lets cross_section_rotation call normalized_axis by its global name).
for _function in (
    frames.normalized_axis,
    frames.cross_section_rotation,
    frames.body_frame,
    shapes.results_representable,
    inertia.rotate_principal_inertia,
    _box.check,
    _box.closed_form,
    _cone.check,
    _cone.closed_form,
):
    numba.extending.register_jitable(**_JIT)(_function)


@numba.extending.intrinsic
def _stream_store(typingctx, array, index, value):
    """``array[index] = value`` with a non-temporal store (bypasses the caches: a large
    output is written once and not read back soon, so reading its lines first -- what a
    normal store does -- would only double the memory traffic)."""
    if not (isinstance(array, types.Array) and array.ndim == 1):
        return None

    def codegen(context, builder, signature, args):
        ary_type = signature.args[0]
        ary = context.make_array(ary_type)(context, builder, args[0])
        pointer = cgutils.get_item_pointer(
            context, builder, ary_type, ary, [args[1]], wraparound=False, boundscheck=False
        )
        value = context.cast(builder, args[2], signature.args[2], ary_type.dtype)
        store = builder.store(value, pointer)
        store.set_metadata("nontemporal", builder.module.add_metadata([ir.IntType(32)(1)]))
        return context.get_dummy_value()

    return types.void(array, types.intp, value), codegen


@numba.extending.intrinsic
def _store_fence(typingctx):
    """A full memory fence: orders the non-temporal stores before what follows."""

    def codegen(context, builder, signature, args):
        builder.fence("seq_cst")
        return context.get_dummy_value()

    return types.void(), codegen


@numba.extending.register_jitable(inline="always")
def _put(array, index, value, streaming):
    if streaming:
        _stream_store(array, index, value)
    else:
        array[index] = value


def _source_digest(*modules: ModuleType) -> str:
    text = "".join(inspect.getsource(module) for module in modules)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _make_kernel(shape: ModuleType):
    """The fused row loop for one shape module (see the module docstring)."""
    # Plain functions (not dispatchers) as closure variables: numba hashes the closure into the
    # cache key, and these pickle by reference, the same in every process.
    check = shape.check
    closed_form = shape.closed_form
    body_frame = frames.body_frame
    results_representable = shapes.results_representable
    rotate_principal_inertia = inertia.rotate_principal_inertia
    chunk = CHUNK
    nan = math.nan

    def kernel(
        d0, d1, d2, d3, d4, rho,  # the shape's dimensions (kernel order) and density, (N,)
        axis, height, rotate90,  # (N, 3), (N, 3) (zeros if not explicit: the rule), (N,)
        frame, frame_code, per_row_frame, explicit_height, first_extra,  # frame: e, h, w rows
        out_volume, out_mass, out_com, out_inertia, out_code,
        row_start, row_stop, streaming,  # this call's rows; non-temporal stores
    ):  # fmt: skip
        x = np.empty((6, chunk))  # gathered inputs
        z = np.empty((14, chunk))  # results: volume, mass, com (3), Ixx Iyy Izz Ixy Ixz Iyz
        f = np.empty((9, chunk))  # e, h, w per row
        codes = np.empty(chunk, np.int64)
        flat_com = out_com.reshape(-1)
        flat_inertia = out_inertia.reshape(-1)
        if not per_row_frame:  # one frame for all rows: fill the scratch once
            for k in range(9):
                f[k, :] = frame[k // 3, k % 3]
        constant_density = rho.strides[0] == 0
        if constant_density:  # a scalar density, broadcast: fill once as well
            x[5, :] = rho[0]
        invalid = 0
        for start in range(row_start, row_stop, chunk):
            m = min(chunk, row_stop - start)
            for j in range(m):
                i = start + j
                x[0, j] = d0[i]
                x[1, j] = d1[i]
                x[2, j] = d2[i]
                x[3, j] = d3[i]
                x[4, j] = d4[i]
            if not constant_density:
                for j in range(m):
                    x[5, j] = rho[start + j]
            for j in range(m):
                codes[j] = check(x[0, j], x[1, j], x[2, j], x[3, j], x[4, j], x[5, j]) or frame_code
            if per_row_frame:
                for j in range(m):
                    i = start + j
                    code, ex, ey, ez, h0, h1, h2, w0, w1, w2 = body_frame(
                        axis[i, 0], axis[i, 1], axis[i, 2], rotate90[i], explicit_height,
                        height[i, 0], height[i, 1], height[i, 2],
                    )  # fmt: skip
                    if code:
                        code += first_extra - 1
                    f[0, j], f[1, j], f[2, j] = ex, ey, ez
                    f[3, j], f[4, j], f[5, j] = h0, h1, h2
                    f[6, j], f[7, j], f[8, j] = w0, w1, w2
                    if codes[j] == 0:
                        codes[j] = code
            # Branch-free, so that LLVM vectorises it: invalid rows are computed too, then NaN.
            for j in range(m):
                v, mass, com_x, i0, i1, i2 = closed_form(
                    x[0, j], x[1, j], x[2, j], x[3, j], x[4, j], x[5, j]
                )
                code = codes[j]
                # The scalar path's last guard (Component._build): finite, positive results.
                if code == 0 and not results_representable(mass, i0, i1, i2):
                    code = first_extra + 4
                codes[j] = code
                ex, ey, ez = f[0, j], f[1, j], f[2, j]
                ixx, iyy, izz, ixy, ixz, iyz = rotate_principal_inertia(
                    i0, i1, i2, ex, ey, ez, f[3, j], f[4, j], f[5, j], f[6, j], f[7, j], f[8, j]
                )
                bad = code != 0
                z[0, j] = nan if bad else v
                z[1, j] = nan if bad else mass
                # As Component.center_of_mass: com_x e_axis, + 0.0 turns -0.0 into +0.0.
                z[2, j] = nan if bad else com_x * ex + 0.0
                z[3, j] = nan if bad else com_x * ey + 0.0
                z[4, j] = nan if bad else com_x * ez + 0.0
                z[5, j] = nan if bad else ixx
                z[6, j] = nan if bad else iyy
                z[7, j] = nan if bad else izz
                z[8, j] = nan if bad else ixy
                z[9, j] = nan if bad else ixz
                z[10, j] = nan if bad else iyz
            for j in range(m):
                i = start + j
                c = 3 * i
                t = 9 * i
                _put(out_volume, i, z[0, j], streaming)
                _put(out_mass, i, z[1, j], streaming)
                _put(flat_com, c, z[2, j], streaming)
                _put(flat_com, c + 1, z[3, j], streaming)
                _put(flat_com, c + 2, z[4, j], streaming)
                _put(flat_inertia, t, z[5, j], streaming)
                _put(flat_inertia, t + 1, z[8, j], streaming)
                _put(flat_inertia, t + 2, z[9, j], streaming)
                _put(flat_inertia, t + 3, z[8, j], streaming)
                _put(flat_inertia, t + 4, z[6, j], streaming)
                _put(flat_inertia, t + 5, z[10, j], streaming)
                _put(flat_inertia, t + 6, z[9, j], streaming)
                _put(flat_inertia, t + 7, z[10, j], streaming)
                _put(flat_inertia, t + 8, z[7, j], streaming)
                out_code[i] = codes[j]
                invalid += codes[j] != 0
        if streaming:
            _store_fence()  # make the non-temporal stores visible before returning
        return invalid

    digest = _source_digest(shape, shapes, frames, inertia, inspect.getmodule(_make_kernel))
    kernel.__qualname__ = f"{shape.__name__.rsplit('.', 1)[-1]}_rows_{digest}"
    kernel.__name__ = kernel.__qualname__

    f64_1d = types.Array(types.float64, 1, "A", readonly=True)
    f64_2d = types.Array(types.float64, 2, "A", readonly=True)
    bool_1d = types.Array(types.boolean, 1, "A", readonly=True)
    signature = types.int64(
        f64_1d, f64_1d, f64_1d, f64_1d, f64_1d, f64_1d,
        f64_2d, f64_2d, bool_1d,
        types.Array(types.float64, 2, "C", readonly=True), types.int64, types.boolean,
        types.boolean, types.int64,
        types.float64[::1], types.float64[::1], types.float64[:, ::1], types.float64[:, :, ::1],
        types.uint8[::1], types.int64, types.int64, types.boolean,
    )  # fmt: skip
    try:
        return numba.njit(signature, cache=True, **_JIT)(kernel)
    except RuntimeError:  # no writable cache directory anywhere: compile in memory
        return numba.njit(signature, cache=False, **_JIT)(kernel)


#: shape name -> compiled kernel (compiled, or loaded from the disk cache, at import).
KERNELS = {"box": _make_kernel(_box), "cone": _make_kernel(_cone)}

_pool: concurrent.futures.ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _thread_pool() -> concurrent.futures.ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = concurrent.futures.ThreadPoolExecutor(
                THREADS, thread_name_prefix="rigidparts-batch"
            )
        return _pool


def run(shape: str, inputs: tuple, outputs: tuple, *, threads: bool = True) -> int:
    """Evaluate ``inputs`` (see :func:`rigidparts.batch._evaluate`) into ``outputs``; returns
    the number of invalid rows. ``threads=False`` keeps to the calling thread (dask tasks,
    which run in parallel already)."""
    kernel = KERNELS[shape]
    n = outputs[0].shape[0]
    streaming = n >= STREAMING_THRESHOLD
    if not threads or THREADS == 1 or n < THREAD_THRESHOLD:
        return int(kernel(*inputs, *outputs, 0, n, streaming))
    # Blocks of rows (whole chunks) taken in turn by the pool's threads and this one, so a
    # thread slowed down by other work on the machine does not hold the others up.
    step = max(CHUNK, -(-n // (4 * THREADS * CHUNK)) * CHUNK)
    blocks = iter(range(0, n, step))
    lock = threading.Lock()

    def work() -> int:
        invalid = 0
        while True:
            with lock:
                start = next(blocks, None)
            if start is None:
                return invalid
            invalid += kernel(*inputs, *outputs, start, min(start + step, n), streaming)

    pool = _thread_pool()
    helpers = [pool.submit(work) for _ in range(THREADS - 1)]
    invalid = work()
    return invalid + sum(helper.result() for helper in helpers)
