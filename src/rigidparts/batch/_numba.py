"""The compiled batch kernel: a shape's own scalar functions, compiled by numba, any arity.

Nothing here restates a formula. ``numba.njit`` compiles the very functions the scalar path
calls with Python floats -- the specification's ``check`` and ``closed_form``,
``shapes.results_representable``, ``frames.body_frame``, ``inertia.rotate_principal_inertia``
-- and :func:`build_kernel` makes one fused loop per shape that evaluates them row by row,
reading the (broadcast) inputs and writing the outputs in place. No ``fastmath``: LLVM then
keeps every IEEE operation as written (no FMA contraction, no reassociation), so each row is
bit-for-bit what the shape's class gives; ``tests/test_batch.py`` checks that on random bodies.

``error_model="numpy"`` only removes the Python-style zero-division checks: the kernel calls
the closed forms on invalid rows too (so that the loops stay branch-free and vectorise) and
overwrites those rows with NaN afterwards.

Any number of dimensions. The kernel is one Python function, built per specification with the
arity ``K = len(spec.params)`` as a closure constant: the dimensions arrive as a homogeneous
tuple of K contiguous arrays (``UniTuple``; a loop over it gathers them; a value repeated for
every row arrives as one element, :func:`_contiguous`), each chunk's rows are gathered
into a ``(K + 1, CHUNK)`` scratch (the K dimensions, then the density), and the shape's
functions are called on one scratch column as a tuple of plain loads
(``closed_form(*_columns_6(x, j))``, ``check(*_columns_5(x, j))``: adapters generated once
per arity, :func:`_columns`). ``mass=`` runs the closed form once more per row at unit density
first (``density = mass / volume``, as a body's constructor does).

Layout of the loop (measured in ``benchmarks/``): rows are processed in chunks of
:data:`CHUNK` that stay in L1 cache. Per chunk the inputs are gathered into contiguous
scratch (unit-stride copies; a repeated value is filled in once), then the validity checks,
the per-row frames (only when rows have their own axis), the closed forms with the rotation
into frame_a, and the stores run as separate short loops, so that LLVM vectorises the
branch-free ones (the closed forms: 8 rows per AVX-512 instruction). A shape's ``check``
vectorises too if it is written without early returns. Per-row work that does not depend on
the row is hoisted: with one frame for every row (the common case), its axis and its
rotation products are loop invariants (:func:`rigidparts.inertia.rotation_products`, computed
once per call; loading them per row stops LLVM from vectorising the loop: 5x slower), and rows
with axes of their own get their centre of mass and tensor in a second loop. Array indices
inside a chunk count from 0 (a view of the chunk's rows): ``column[start + j]`` might be
negative for all LLVM knows, and numba's negative-index wraparound then turns the unit-stride
copy into AVX-512 gathers (a quarter of the time per row on Zen 4).

Outputs of :data:`STREAMING_THRESHOLD` rows and more are written with non-temporal stores:
they bypass the caches, which saves reading every output line before writing it (measured
faster on this project's machine at every N from 1e5 on: ``benchmarks/throughput.py`` records
both). Two ways, the same bits (:data:`SCALAR_STREAMING`): where the CPU has a scalar one
(AMD's SSE4a), straight from each output's loop (:func:`_stream_store`); elsewhere -- every
Intel CPU, where LLVM silently made those normal stores -- each output's rows of a chunk are
transposed into row-major scratch in L1 and written as whole 64-byte cache lines
(:func:`_write`; the buffer pool hands out arrays that start on a line). The kernel releases
the GIL (``nogil``); a large batch
is cut into blocks of rows that the calling thread and a small thread pool (:data:`THREADS`)
take in turn -- thread-safe whatever numba's threading layer, and it composes with dask's own
threads.

Compilation happens once per shape, on its first batch call (explicit signature; announced
on stderr when it is a terminal, :class:`_CompileNotice`), and is cached on disk for
registered shapes (``cache=True``: ``__pycache__`` beside this file, or numba's user cache
directory when that is read-only, or ``NUMBA_CACHE_DIR``). numba only
checks the timestamp of the file that defines a cached function, not of the functions it
calls, so the kernel's name carries a digest of the sources it compiles: editing a closed
form gives a new name and a fresh compilation.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import inspect
import marshal
import math
import sys
import threading
import types as pytypes
from collections.abc import Callable
from typing import Any

import numba
import numba.core.event
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils

from .. import frames, inertia
from ..shapes import SHAPES, ShapeSpec, _spec

__all__ = ["CHUNK", "THREADS", "build_kernel", "kernel_for", "run"]

#: Rows per inner chunk: the scratch (about 30 float64 per row) stays in L1.
CHUNK = 128
#: Doubles per cache line, the unit of :func:`_write`'s non-temporal stores.
LINE = 8
#: Threads for one large batch (numba's default: the number of CPUs).
THREADS = max(1, numba.config.NUMBA_NUM_THREADS)
#: Below this many rows a batch runs in the calling thread (a thread hand-off costs more).
THREAD_THRESHOLD = 32_768
#: From this many rows on (outputs of 4 MB and more: beyond a core's L2 cache) the outputs
#: are written with non-temporal stores (measured faster from about 30 000 rows on, and at
#: N = 1e6 and 1e7 in every run: ``benchmarks/results/results.md``).
STREAMING_THRESHOLD = 1 << 15

_JIT = {"error_model": "numpy", "nogil": True}
_CORE = (
    frames.normalized_axis,
    frames.cross_section_rotation,
    frames.body_frame,
    _spec.results_representable,
    inertia.rotate_principal_inertia,
)
_jitable: set[Callable[..., Any]] = set()
_jitable_lock = threading.Lock()


_SHAPES_PACKAGE = "rigidparts.shapes."


def _make_jitable(function: Callable[..., Any]) -> set[Callable[..., Any]]:
    """Tell numba how to compile ``function`` where jitted code calls it, and the plain Python
    functions it calls by global name from its own module or from the shapes package (a closed
    form's helpers, another shape's closed form it reuses); returns them all. They stay
    ordinary functions for every other caller."""
    found: set[Callable[..., Any]] = set()
    pending = [function]
    while pending:
        f = pending.pop()
        if f in found:
            continue
        found.add(f)
        for name in f.__code__.co_names:
            value = f.__globals__.get(name)
            # The project's own helpers only: never a library's function (numba may have its
            # own implementation of it).
            if isinstance(value, pytypes.FunctionType) and (
                value.__module__ == f.__module__ or value.__module__.startswith(_SHAPES_PACKAGE)
            ):
                pending.append(value)
    with _jitable_lock:
        for f in found - _jitable:
            numba.extending.register_jitable(**_JIT)(f)
            _jitable.add(f)
    return found


for _function in _CORE:
    _make_jitable(_function)


def _item_pointer(context, builder, signature, args, position):  # type: ignore[no-untyped-def]
    """The LLVM pointer to ``array[index]`` (arguments ``position``, ``position + 1``), without
    the negative-index wraparound: its select per access would make the address non-affine."""
    ary_type = signature.args[position]
    ary = context.make_array(ary_type)(context, builder, args[position])
    return cgutils.get_item_pointer(
        context, builder, ary_type, ary, [args[position + 1]], wraparound=False, boundscheck=False
    )


@numba.extending.intrinsic
def _stream_store(typingctx, array, index, value):
    """``array[index] = value`` with a scalar non-temporal store (AMD's SSE4a ``movntsd``;
    LLVM turns it into a normal store where the target has none: :data:`SCALAR_STREAMING`)."""
    if not (isinstance(array, types.Array) and array.ndim == 1):
        return None

    def codegen(context, builder, signature, args):
        pointer = _item_pointer(context, builder, signature, args, 0)
        value = context.cast(builder, args[2], signature.args[2], signature.args[0].dtype)
        store = builder.store(value, pointer)
        store.set_metadata("nontemporal", builder.module.add_metadata([ir.IntType(32)(1)]))
        return context.get_dummy_value()

    return types.void(array, types.intp, value), codegen


@numba.extending.intrinsic
def _store(typingctx, array, index, value):
    """``array[index] = value`` as one scalar store that LLVM keeps as it is (an "unordered"
    atomic store: a plain ``mov`` on x86). The row-major transposition of the results is
    written with it: vectorised, its strided stores become AVX-512 scatters, measured 7-11 %
    slower per row than scalar stores on Zen 4 (``benchmarks/results/cpu_targets.md``)."""
    if not (isinstance(array, types.Array) and array.ndim == 1):
        return None

    def codegen(context, builder, signature, args):
        pointer = _item_pointer(context, builder, signature, args, 0)
        value = context.cast(builder, args[2], signature.args[2], signature.args[0].dtype)
        size = context.get_abi_sizeof(value.type)
        builder.store_atomic(value, pointer, "unordered", size)
        return context.get_dummy_value()

    return types.void(array, types.intp, value), codegen


@numba.extending.intrinsic
def _address(typingctx, array, index):
    """The address of ``array[index]``, an integer (to find the next cache-line boundary)."""
    if not (isinstance(array, types.Array) and array.ndim == 1):
        return None

    def codegen(context, builder, signature, args):
        pointer = _item_pointer(context, builder, signature, args, 0)
        return builder.ptrtoint(pointer, context.get_value_type(types.intp))

    return types.intp(array, types.intp), codegen


@numba.extending.intrinsic
def _stream_line(typingctx, target, at, source, start):
    """``target[at:at + LINE] = source[start:start + LINE]``: one cache line, as a vector
    load and a non-temporal vector store (two 32-byte stores with AVX2, one with AVX-512);
    ``&target[at]`` must be 64-byte aligned. Every x86-64 CPU has these (SSE2 ``movntpd``)."""
    if not (
        isinstance(target, types.Array)
        and isinstance(source, types.Array)
        and target.ndim == source.ndim == 1
        and target.dtype == source.dtype == types.float64
    ):
        return None

    def codegen(context, builder, signature, args):
        line = ir.VectorType(ir.DoubleType(), LINE).as_pointer()
        value = builder.load(
            builder.bitcast(_item_pointer(context, builder, signature, args, 2), line), align=8
        )
        pointer = builder.bitcast(_item_pointer(context, builder, signature, args, 0), line)
        store = builder.store(value, pointer, align=8 * LINE)
        store.set_metadata("nontemporal", builder.module.add_metadata([ir.IntType(32)(1)]))
        return context.get_dummy_value()

    return types.void(target, types.intp, source, types.intp), codegen


@numba.extending.intrinsic
def _store_fence(typingctx):
    """A full memory fence: orders the non-temporal stores before what follows."""

    def codegen(context, builder, signature, args):
        builder.fence("seq_cst")
        return context.get_dummy_value()

    return types.void(), codegen


@numba.extending.register_jitable(inline="always")
def _put(array, index, value, streaming):
    """``array[index] = value``: a scalar non-temporal store with ``streaming``."""
    if streaming:
        _stream_store(array, index, value)
    else:
        _store(array, index, value)


@numba.extending.register_jitable(**_JIT)
def _write(target, at, source, count):
    """``target[at:at + count] = source[:count]``, every whole cache line of the target with a
    non-temporal store (:func:`_stream_line`), the partial lines at either end (an unaligned
    array; the rows of another thread) with normal ones."""
    head = count
    if _address(target, at) % 8 == 0:
        head = min(count, -(_address(target, at) >> 3) % LINE)
    for i in range(head):
        target[at + i] = source[i]
    i = head
    while i + LINE <= count:
        _stream_line(target, at + i, source, i)
        i += LINE
    for k in range(i, count):
        target[at + k] = source[k]


def _scalar_streaming() -> bool:
    """Whether numba's target has a scalar non-temporal store of a double: AMD's SSE4a
    (``movntsd``; no Intel CPU has it). numba's rule: ``NUMBA_CPU_FEATURES`` when set, else
    the host's features."""
    features = numba.config.CPU_FEATURES
    if features is None:
        import llvmlite.binding

        features = llvmlite.binding.get_host_cpu_features().flatten()
    return "+sse4a" in features.split(",")


#: Scalar non-temporal stores straight from the kernel's per-output loops (the target has
#: them: :func:`_scalar_streaming`); else each chunk's rows are staged row-major in L1 and
#: written as whole cache lines (:func:`_write`). Measured on Zen 4
#: (``benchmarks/results/cpu_targets.md``): the staging costs 7-8 % per row where scalar ones
#: exist; where they do not, LLVM silently writes normal stores instead, which read every
#: output line first (the batch took 1.8x the copy of its outputs instead of 1.3x).
SCALAR_STREAMING = _scalar_streaming()


def _source_digest(functions: set[Callable[..., Any]]) -> str:
    """A digest of the source of every module the kernel compiles code from (the code object
    where a module has no source file)."""
    modules = {inspect.getmodule(f) for f in functions} | {frames, inertia, _spec}
    modules.add(inspect.getmodule(_source_digest))
    parts = []
    for module in sorted(modules, key=lambda m: getattr(m, "__name__", "")):
        try:
            parts.append(inspect.getsource(module).encode())
        except (OSError, TypeError):
            parts += [
                marshal.dumps(f.__code__) for f in functions if inspect.getmodule(f) is module
            ]
    return hashlib.sha256(b"".join(parts)).hexdigest()[:16]


def _columns(count: int) -> Callable[..., Any]:
    """``_columns_<count>(x, j) -> (x[0, j], ..., x[count - 1, j])``: one scratch column as a
    tuple of ``count`` plain loads, to call a shape's function as ``f(*_columns_5(x, j))``.

    Generated once per arity and kept as an attribute of this module under its own name, so
    that it pickles by reference (numba hashes the kernel's closure into its cache key). Plain
    loads matter: LLVM vectorises the closed-form loop over ``j`` through them (a view such as
    ``to_fixed_tuple(x[:, j], count)`` stops it)."""
    name = f"_columns_{count}"
    found = globals().get(name)
    if found is None:
        items = "".join(f"x[{k}, j], " for k in range(count))
        namespace: dict[str, Any] = {}
        exec(f"def {name}(x, j):\n    return ({items})\n", namespace)
        found = namespace[name]
        found.__module__ = __name__
        found.__qualname__ = name
        found.__doc__ = f"Column ``j`` of the scratch ``x``: its first {count} values."
        numba.extending.register_jitable(**_JIT)(found)
        globals()[name] = found
    return found


def build_kernel(
    spec: ShapeSpec, *, cache: bool | None = None, scalar_streaming: bool | None = None
) -> Any:
    """The compiled fused row loop of a tier-1 ``spec`` (any number of dimensions).

    ``cache``: keep the compiled code in numba's on-disk cache (default: when ``spec`` is the
    registered shape of its name; a throwaway specification compiles in memory).
    ``scalar_streaming``: how the outputs are written (default :data:`SCALAR_STREAMING`; the
    same bits either way). Call it as :func:`run` does; see the module docstring for what it
    computes.
    """
    closed_form_function = spec.closed_form
    if closed_form_function is None:
        raise ValueError(f"shape {spec.name!r} has no closed form (tier 2): no batch kernel")
    compiled = _make_jitable(spec.check) | _make_jitable(closed_form_function)
    # Plain functions (not dispatchers) and numbers as closure variables: numba hashes the
    # closure into the cache key, and these pickle by reference, the same in every process.
    check = spec.check
    closed_form = closed_form_function
    body_frame = frames.body_frame
    results_representable = _spec.results_representable
    rotation_products = inertia.rotation_products
    rotate_with_products = inertia.rotate_with_products
    arity = len(spec.params)
    width = arity + 1  # the dimensions, then the density
    density_code = spec.common_code("density")
    mass_code = spec.common_code("mass")
    first_frame_code = spec.common_code("frame")
    unrepresentable_code = spec.common_code("unrepresentable")
    columns = _columns(width)  # a row's dimensions and density
    dimensions = _columns(arity)
    products_of = _columns(18)  # a row's rotation products
    chunk = CHUNK
    staged = not (SCALAR_STREAMING if scalar_streaming is None else scalar_streaming)
    nan = math.nan
    inf = math.inf

    def kernel(
        dims, source, by_mass,  # K arrays (N,) in kernel order; density or mass (N,); which
        axis, height, rotate90,  # (N, 3), (N, 3) (zeros if not explicit: the rule), (N,)
        frame, frame_code, per_row_frame, explicit_height,  # shared frame: rows e, h, w
        out_volume, out_mass, out_density, out_com, out_inertia, out_moments, out_frame,
        out_code, row_start, row_stop, streaming,  # this call's rows; non-temporal stores
    ):  # fmt: skip
        x = np.empty((width, chunk))  # gathered dimensions, then the density
        g = np.empty(chunk)  # the given density or mass
        unit = np.empty(chunk)  # volume (the closed form at unit density), mass path
        # volume, mass, com (3), Ixx Iyy Izz Ixy Ixz Iyz, I_C (3), rho, com_x
        z = np.empty((16, chunk))
        # staged: one output's rows of the chunk, row-major, as they go to memory
        r = np.empty(9 * chunk if staged else 0)
        stage = staged and streaming  # (outputs that fit in a cache: stored as computed)
        direct = streaming and not staged  # scalar non-temporal stores
        f = np.empty((3, chunk))  # e per row (rows with axes of their own)
        p = np.empty((18, chunk))  # the rotation products of R_AC per row (rotation_products)
        codes = np.empty(chunk, np.int64)
        flat_com = out_com.reshape(-1)
        flat_inertia = out_inertia.reshape(-1)
        flat_moments = out_moments.reshape(-1)
        flat_frame = out_frame.reshape(-1)
        # One frame for all rows: its axis and rotation products, once (hoisted).
        e0, e1, e2 = frame[0, 0], frame[0, 1], frame[0, 2]
        shared = rotation_products(
            e0, e1, e2, frame[1, 0], frame[1, 1], frame[1, 2], frame[2, 0], frame[2, 1],
            frame[2, 2],
        )  # fmt: skip
        # One value for every row (a scalar density or mass, passed as one element): fill once.
        constant_source = source.shape[0] == 1
        if constant_source:
            g[:] = source[0]
            if not by_mass:
                x[arity, :] = source[0]
        source_code = mass_code if by_mass else density_code
        invalid = 0
        for start in range(row_start, row_stop, chunk):
            m = min(chunk, row_stop - start)
            for k in range(arity):
                column = dims[k]  # contiguous: a plain vectorised copy
                if column.shape[0] == 1:  # one value for every row: filled once
                    if start == row_start:
                        x[k, :] = column[0]
                else:
                    # A view of the chunk's rows: indices from 0, which LLVM sees are never
                    # negative (``column[start + j]`` might be, for all it knows: numba's
                    # negative-index wraparound then makes it gather the rows one by one).
                    rows = column[start : start + m]
                    for j in range(m):
                        x[k, j] = rows[j]
            if not constant_source:
                rows = source[start : start + m]
                for j in range(m):
                    g[j] = rows[j]
            if by_mass:  # density = mass / volume, as Component._build
                for j in range(m):
                    x[arity, j] = 1.0
                for j in range(m):
                    unit[j] = closed_form(*columns(x, j))[0]
                for j in range(m):
                    x[arity, j] = g[j] / unit[j]
            elif not constant_source:
                for j in range(m):
                    x[arity, j] = g[j]
            # The scalar path's order: the shape's rules, then the density (or mass), then
            # the frame (a shared frame's code is known already).
            for j in range(m):
                code = check(*dimensions(x, j))
                value = g[j]
                code = code if code != 0 or (0.0 < value and value < inf) else source_code
                codes[j] = code if code != 0 else frame_code
            if per_row_frame:
                for j in range(m):
                    i = start + j
                    code, ex, ey, ez, h0, h1, h2, w0, w1, w2 = body_frame(
                        axis[i, 0], axis[i, 1], axis[i, 2], rotate90[i], explicit_height,
                        height[i, 0], height[i, 1], height[i, 2],
                    )  # fmt: skip
                    if code:
                        code += first_frame_code - 1
                    f[0, j], f[1, j], f[2, j] = ex, ey, ez
                    row = rotation_products(ex, ey, ez, h0, h1, h2, w0, w1, w2)
                    for k in range(18):
                        p[k, j] = row[k]
                    if codes[j] == 0:
                        codes[j] = code
                    # R_AC^T's rows as they are (the result keeps R_AC)
                    target, t = (r, 9 * j) if stage else (flat_frame, 9 * i)
                    _put(target, t, ex, direct)
                    _put(target, t + 1, ey, direct)
                    _put(target, t + 2, ez, direct)
                    _put(target, t + 3, h0, direct)
                    _put(target, t + 4, h1, direct)
                    _put(target, t + 5, h2, direct)
                    _put(target, t + 6, w0, direct)
                    _put(target, t + 7, w1, direct)
                    _put(target, t + 8, w2, direct)
                if stage:
                    _write(flat_frame, 9 * start, r, 9 * m)
            # Branch-free, so that LLVM vectorises it: invalid rows are computed too, then NaN.
            # The frame's axis and rotation products are loop invariants here (a loop that
            # loads them per row does not vectorise: 5x slower); rows with axes of their own
            # get their centre of mass and tensor in the loop after this one.
            for j in range(m):
                v, mass, com_x, i0, i1, i2 = closed_form(*columns(x, j))
                rho = x[arity, j]
                mass = g[j] if by_mass else mass  # the given mass, exactly
                code = codes[j]
                # The scalar path's last guard (Component._build): finite, positive results.
                representable = results_representable(v, mass, i0, i1, i2, rho)
                if code == 0 and not representable:
                    code = unrepresentable_code
                codes[j] = code
                # rotate_principal_inertia with the frame's products hoisted (the same bits)
                ixx, iyy, izz, ixy, ixz, iyz = rotate_with_products(i0, i1, i2, *shared)
                bad = code != 0
                z[0, j] = nan if bad else v
                z[1, j] = nan if bad else mass
                # As Component.center_of_mass: com_x e_axis, + 0.0 turns -0.0 into +0.0.
                z[2, j] = nan if bad else com_x * e0 + 0.0
                z[3, j] = nan if bad else com_x * e1 + 0.0
                z[4, j] = nan if bad else com_x * e2 + 0.0
                z[5, j] = nan if bad else ixx
                z[6, j] = nan if bad else iyy
                z[7, j] = nan if bad else izz
                z[8, j] = nan if bad else ixy
                z[9, j] = nan if bad else ixz
                z[10, j] = nan if bad else iyz
                z[11, j] = nan if bad else i0
                z[12, j] = nan if bad else i1
                z[13, j] = nan if bad else i2
                z[14, j] = nan if bad else rho
                z[15, j] = com_x
            if per_row_frame:  # the same two results, with each row's own frame
                for j in range(m):
                    bad = codes[j] != 0
                    com_x = z[15, j]
                    ixx, iyy, izz, ixy, ixz, iyz = rotate_with_products(
                        z[11, j], z[12, j], z[13, j], *products_of(p, j)
                    )
                    z[2, j] = nan if bad else com_x * f[0, j] + 0.0
                    z[3, j] = nan if bad else com_x * f[1, j] + 0.0
                    z[4, j] = nan if bad else com_x * f[2, j] + 0.0
                    z[5, j] = nan if bad else ixx
                    z[6, j] = nan if bad else iyy
                    z[7, j] = nan if bad else izz
                    z[8, j] = nan if bad else ixy
                    z[9, j] = nan if bad else ixz
                    z[10, j] = nan if bad else iyz
            # One loop per output: each writes one contiguous run per chunk, so the
            # non-temporal stores fill whole write-combining lines (interleaving five outputs
            # row by row costs a third more at N = 1e6). Staged: the rows go to the scratch
            # ``r`` (in L1), then to memory as whole cache lines.
            if stage:
                _write(out_volume, start, z[0], m)
                _write(out_mass, start, z[1], m)
            else:
                for j in range(m):
                    _put(out_volume, start + j, z[0, j], streaming)
                for j in range(m):
                    _put(out_mass, start + j, z[1, j], streaming)
            target, at = (r, 0) if stage else (flat_com, 3 * start)
            for j in range(m):
                c = at + 3 * j  # an index per row, not a running one: LLVM vectorises it
                _put(target, c, z[2, j], direct)
                _put(target, c + 1, z[3, j], direct)
                _put(target, c + 2, z[4, j], direct)
            if stage:
                _write(flat_com, 3 * start, r, 3 * m)
            target, at = (r, 0) if stage else (flat_inertia, 9 * start)
            for j in range(m):
                t = at + 9 * j
                _put(target, t, z[5, j], direct)
                _put(target, t + 1, z[8, j], direct)
                _put(target, t + 2, z[9, j], direct)
                _put(target, t + 3, z[8, j], direct)
                _put(target, t + 4, z[6, j], direct)
                _put(target, t + 5, z[10, j], direct)
                _put(target, t + 6, z[9, j], direct)
                _put(target, t + 7, z[10, j], direct)
                _put(target, t + 8, z[7, j], direct)
            if stage:
                _write(flat_inertia, 9 * start, r, 9 * m)
            target, at = (r, 0) if stage else (flat_moments, 3 * start)
            for j in range(m):
                c = at + 3 * j
                _put(target, c, z[11, j], direct)
                _put(target, c + 1, z[12, j], direct)
                _put(target, c + 2, z[13, j], direct)
            if stage:
                _write(flat_moments, 3 * start, r, 3 * m)
            code_rows = out_code[start : start + m]
            for j in range(m):
                code_rows[j] = codes[j]
                invalid += codes[j] != 0
            if by_mass:
                if stage:
                    _write(out_density, start, z[14], m)
                else:
                    for j in range(m):
                        _put(out_density, start + j, z[14, j], streaming)
        if streaming:
            _store_fence()  # make the non-temporal stores visible before returning
        return invalid

    registered = SHAPES.get(spec.name) is spec
    if registered:
        kernel.__qualname__ = f"{spec.name}_rows_{_source_digest(compiled)}"
    else:
        kernel.__qualname__ = f"{spec.name}_rows_unregistered"
    kernel.__name__ = kernel.__qualname__

    c64_1d = types.Array(types.float64, 1, "C", readonly=True)
    f64_2d = types.Array(types.float64, 2, "A", readonly=True)
    bool_1d = types.Array(types.boolean, 1, "A", readonly=True)
    signature = types.int64(
        types.UniTuple(c64_1d, arity), c64_1d, types.boolean,
        f64_2d, f64_2d, bool_1d,
        types.Array(types.float64, 2, "C", readonly=True), types.int64, types.boolean,
        types.boolean,
        types.float64[::1], types.float64[::1], types.float64[::1], types.float64[:, ::1],
        types.float64[:, :, ::1], types.float64[:, ::1], types.float64[:, :, ::1],
        types.uint8[::1], types.int64, types.int64, types.boolean,
    )  # fmt: skip
    dispatcher = None
    if registered if cache is None else cache:
        try:
            dispatcher = numba.njit(cache=True, **_JIT)(kernel)
        except RuntimeError:  # no writable cache directory anywhere: compile in memory
            pass
    if dispatcher is None:
        dispatcher = numba.njit(cache=False, **_JIT)(kernel)
    # As numba.njit(signature) does (compile now, then no other signature), with a word on a
    # terminal when this is a compilation and not a load from the disk cache.
    with numba.core.event.install_listener("numba:compile", _CompileNotice(dispatcher, spec)):
        dispatcher.compile(signature)
    dispatcher.disable_compile()
    return dispatcher


class _CompileNotice(numba.core.event.Listener):
    """Says once, on stderr when it is a terminal, that a shape's kernel is being compiled
    (the first batch call of a shape after installing or editing rigidparts waits for it)."""

    def __init__(self, dispatcher: Any, spec: ShapeSpec) -> None:
        self.dispatcher = dispatcher
        self.spec = spec

    def on_start(self, event: Any) -> None:
        if event.data.get("dispatcher") is not self.dispatcher or not _terminal():
            return
        print(
            f"rigidparts.batch: compiling the kernel of shape {self.spec.name!r} for its first "
            "use (once: it is kept in numba's cache; 10-30 s) ...",
            file=sys.stderr,
            flush=True,
        )

    def on_end(self, event: Any) -> None:
        pass


def _terminal() -> bool:
    try:
        return sys.stderr is not None and sys.stderr.isatty()
    except (AttributeError, ValueError):  # replaced or closed
        return False


#: spec -> its compiled kernel (compiled, or loaded from the disk cache, on first use).
_KERNELS: dict[ShapeSpec, Any] = {}
_kernels_lock = threading.Lock()


def kernel_for(spec: ShapeSpec) -> Any:
    """The compiled kernel of ``spec``, built on first use (once, whatever the threads)."""
    found = _KERNELS.get(spec)
    if found is None:
        with _kernels_lock:
            found = _KERNELS.get(spec)
            if found is None:
                found = _KERNELS[spec] = build_kernel(spec)
    return found


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


def _contiguous(column: np.ndarray) -> np.ndarray:
    """``column`` (N,) as the kernel takes it: itself when contiguous, its one value when it
    repeats one (stride 0), else a contiguous copy (a strided view of a larger array)."""
    if column.shape[0] > 1 and column.strides[0] == 0:
        return column[:1]
    if column.flags.c_contiguous:
        return column
    copy = np.ascontiguousarray(column)
    copy.setflags(write=False)
    return copy


def run(spec: ShapeSpec, inputs: tuple, outputs: tuple, *, threads: bool = True) -> int:
    """Evaluate ``inputs`` (see :func:`rigidparts.batch.evaluate.evaluate`) into
    ``outputs``; returns the number of invalid rows. ``threads=False`` keeps to the calling
    thread (dask tasks, which run in parallel already)."""
    compiled = kernel_for(spec)
    n = outputs[0].shape[0]
    # The dimensions and the density or mass as the kernel reads them: contiguous (unit-stride
    # loads vectorise), one element for a value broadcast to every row (stride 0).
    dims, source = inputs[0], inputs[1]
    inputs = (tuple(_contiguous(d) for d in dims), _contiguous(source), *inputs[2:])
    streaming = n >= STREAMING_THRESHOLD
    if not threads or THREADS == 1 or n < THREAD_THRESHOLD:
        return int(compiled(*inputs, *outputs, 0, n, streaming))
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
            invalid += compiled(*inputs, *outputs, start, min(start + step, n), streaming)

    pool = _thread_pool()
    helpers = [pool.submit(work) for _ in range(THREADS - 1)]
    invalid = work()
    return invalid + sum(helper.result() for helper in helpers)
