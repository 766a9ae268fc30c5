"""The arithmetic of a tolerance study: blocks, their random streams, their statistics, and
the exact combination of blocks.

Blocks. The samples ``0 .. N-1`` are cut into blocks of :data:`BLOCK` (2^16) samples, the last
one possibly short. Block ``b`` draws its samples from its own stream,
``numpy.random.Generator(numpy.random.PCG64DXSM(numpy.random.SeedSequence(seed,
spawn_key=(b,))))`` (child ``b`` of ``SeedSequence(seed).spawn``; PCG64DXSM is numpy's
generator for many parallel streams), one toleranced parameter after the other in the order
of the shape's parameters, then the density or mass: ``n_b`` uniform doubles ``u`` in [0, 1)
each, mapped to ``low + (high - low) u`` (uniform), or ``n_b`` standard normals ``z`` mapped
to ``nominal + sigma z`` (normal). A sample therefore depends on (seed, its index, the
tolerances) only: not on the chunk it is computed in, the scheduler or the number of workers.

Statistics. Every block gives, for each output (:data:`OUTPUTS`: the mass, the centre of mass
x, y, z in frame_a, the principal moments 1 <= 2 <= 3 about the centre of mass, the volume),
its count of valid samples, mean (pairwise sum / count), M2 (sum of squared deviations from
that mean, two passes) and min and max, from the same contiguous arrays whatever the chunk;
invalid samples (NaN rows from the batch kernel's validity codes) are counted and left out.
:class:`Fold` (and :func:`combine_blocks`) folds the blocks in block-index order with Chan,
Golub and LeVeque's pairwise update (1979; ``delta = mean_b - mean``, ``mean += delta n_b /
n``, ``M2 += M2_b + delta^2 n_a n_b / n``): the result is the same to the last bit whatever
the chunking.

Percentiles come from fixed-edge histograms (:data:`BINS` bins per output between edges chosen
before sampling, from block 0 as a deterministic pilot: its range united with the first-order
mean +- :data:`SPREAD` first-order sigma, widened by half its width on each side; under- and
overflow counted apart), whose integer counts add exactly in any order. A percentile is
interpolated linearly within the bin that holds it, so it is exact to within one bin width
(1/8192 of the histogram's range), clipped to the exact min and max.

With numba installed, :mod:`._numba` gathers, reduces and histograms each block in one
compiled pass with the same bits as the numpy functions here (same summation order).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ParameterError
from .values import Tolerance

__all__ = [
    "BINS",
    "BLOCK",
    "OUTPUTS",
    "UNITS",
    "ChunkStats",
    "CrossFold",
    "Fold",
    "Plan",
    "batch_rows",
    "block_cross",
    "block_stream",
    "combine_blocks",
    "count_outside",
    "distribution",
    "draw_into",
    "draw_table",
    "evaluate_chunk",
    "evaluate_pilot",
    "percentiles_from_histogram",
]

#: Samples per block (the unit of the random stream and of the partial statistics).
BLOCK = 1 << 16
#: Histogram bins per output between the edges (plus one underflow and one overflow bin).
BINS = 8192
#: The outputs, in order, and their SI units.
OUTPUTS = (
    "mass",
    "center_of_mass_x",
    "center_of_mass_y",
    "center_of_mass_z",
    "principal_moment_1",
    "principal_moment_2",
    "principal_moment_3",
    "volume",
)
UNITS = ("kg", "m", "m", "m", "kg m^2", "kg m^2", "kg m^2", "m^3")
#: Columns of a block's statistics.
MEAN, M2, MIN, MAX = range(4)


@dataclass(frozen=True)
class Plan:
    """Everything a chunk needs (picklable: it travels to dask workers).

    ``shape`` is the registry name; ``fixed`` the batch keywords that do not vary (SI values,
    the axis, the material...); ``tolerances`` the toleranced keywords in drawing order;
    ``edges`` the (len(OUTPUTS), 2) histogram low and high edges (None for the pilot)."""

    shape: str
    fixed: Mapping[str, Any]
    tolerances: tuple[tuple[str, Tolerance], ...]
    samples: int
    seed: int
    on_invalid: str
    engine: str
    edges: Any = None
    bins: int = BINS
    block: int = BLOCK
    #: (outputs, 2) specification limits low, high (SI; -inf / inf where none), or None.
    limits: Any = None

    @property
    def blocks(self) -> int:
        """Number of blocks (the last may be short)."""
        return -(-self.samples // self.block)

    def block_rows(self, b: int) -> tuple[int, int]:
        """``(first sample, count)`` of block ``b``."""
        start = b * self.block
        return start, min(self.block, self.samples - start)

    def chunk_rows(self, first: int, count: int) -> tuple[int, int]:
        """``(first sample, sample count)`` of blocks ``first .. first + count - 1``."""
        start = first * self.block
        return start, min(self.samples, (first + count) * self.block) - start


def block_stream(seed: int, b: int) -> np.random.Generator:
    """The random stream of block ``b`` (module docstring): keyed by (seed, b) only."""
    return np.random.Generator(np.random.PCG64DXSM(np.random.SeedSequence(seed, spawn_key=(b,))))


def draw_blocks(plan: Plan, first: int, count: int) -> dict[str, np.ndarray]:
    """The toleranced inputs of blocks ``first .. first + count - 1`` (SI arrays by name)."""
    table = draw_table(plan, first, count)
    return {name: table[i] for i, (name, _) in enumerate(plan.tolerances)}


def draw_table(plan: Plan, first: int, count: int) -> np.ndarray:
    """:func:`draw_blocks` as one (inputs, samples) array, a row per toleranced input in
    ``plan.tolerances`` order (what :func:`block_cross` reads, without a stack)."""
    start, n = plan.chunk_rows(first, count)
    table = np.empty((len(plan.tolerances), n))
    for b in range(first, first + count):
        rng = block_stream(plan.seed, b)
        s, m = plan.block_rows(b)
        lo = s - start
        for i, (_, tolerance) in enumerate(plan.tolerances):
            draw_into(rng, tolerance, table[i, lo : lo + m])
    return table


def draw_into(rng: np.random.Generator, tolerance: Tolerance, out: np.ndarray) -> None:
    """Fill ``out`` with the next ``len(out)`` values of ``tolerance`` from ``rng`` (module
    docstring): uniform doubles ``u`` mapped to ``low + (high - low) u`` (computed as ``u
    (high - low) + low``), or standard normals ``z`` mapped to ``z sigma + nominal``. The one
    sampling map of the tolerance studies and of :func:`rigidparts.randomize`."""
    if tolerance.distribution == "normal":
        rng.standard_normal(out=out)
        assert tolerance.sigma is not None
        out *= tolerance.sigma
        out += tolerance.nominal
    else:
        rng.random(out=out)
        out *= tolerance.high - tolerance.low
        out += tolerance.low


@dataclass
class ChunkStats:
    """What one chunk (whole blocks ``first .. first + len(counts) - 1``) returns: small.

    ``counts`` (blocks,) valid samples per block; ``stats`` (blocks, outputs, 4): mean, M2,
    min, max; ``histogram`` (outputs, bins + 2) int64 (underflow, bins, overflow);
    ``first_invalid``: (sample index, error code) of the chunk's first invalid sample, or
    None."""

    first: int
    counts: np.ndarray
    stats: np.ndarray
    histogram: np.ndarray | None
    first_invalid: tuple[int, int] | None
    #: ``(parameter, value, rule, index)`` of the first invalid sample's error (plain data: a
    #: ParameterError does not survive pickling to and from a dask worker).
    error_args: tuple[str, Any, str, int] | None = None
    #: (blocks, inputs, 2 + outputs): each block's input mean, M2 and input-output co-moments
    #: (:func:`block_cross`), over its valid samples.
    cross: np.ndarray | None = None
    #: (outputs, 2) int64: valid samples below the low and above the high limit.
    outside: np.ndarray | None = None

    @property
    def error(self) -> ParameterError | None:
        """The ParameterError of the chunk's first invalid sample, or None."""
        if self.error_args is None:
            return None
        parameter, value, rule, index = self.error_args
        return ParameterError(parameter, value, rule, index=index)


def batch_rows(plan: Plan, sampled: Mapping[str, np.ndarray]) -> Any:
    """The batch path's result for the drawn rows ``sampled`` (SI arrays by name): the
    public ``rp.batch.<shape>`` with ``on_invalid="mask"`` and ``threads=False`` (dask runs
    the chunks in parallel; the kernel keeps to the task's thread)."""
    from .. import batch

    function = getattr(batch, plan.shape)
    return function(**plan.fixed, **sampled, on_invalid="mask", engine=plan.engine, threads=False)


def gather_columns(result: Any, lo: int, m: int, out: np.ndarray) -> np.ndarray:
    """Rows ``lo .. lo + m - 1`` of the outputs as ``out`` (outputs, m), C-contiguous. The
    principal moments are the canonical moments sorted by a three-element sorting network
    (min / max: exactly the values of a sort, without an argsort per row)."""
    rows = slice(lo, lo + m)
    out[0] = result.mass[rows]
    out[1:4] = result.center_of_mass[rows].T
    moments = result.canonical_moments[rows]
    a, b, c = moments[:, 0], moments[:, 1], moments[:, 2]
    low, middle, high = out[4], out[5], out[6]
    np.minimum(a, b, out=low)
    np.maximum(a, b, out=high)  # (low, high) = sorted (a, b)
    np.maximum(low, c, out=middle)
    np.minimum(low, c, out=low)  # low = min(a, b, c); middle = max(min(a, b), c)
    largest = np.maximum(high, middle)
    np.minimum(high, middle, out=middle)
    high[:] = largest
    out[7] = result.volume[rows]
    return out


def evaluate_chunk(plan: Plan, first: int, count: int) -> ChunkStats:
    """Blocks ``first .. first + count - 1``: draw, compute through the batch path, reduce.

    Invalid samples are counted and left out; the first one's error (the ParameterError the
    shape's class gives for it, naming the sample's index) travels in the result. Each block
    is reduced on its own (its columns stay in cache)."""
    return _evaluate(plan, first, count)[0]


def evaluate_pilot(plan: Plan) -> tuple[ChunkStats, np.ndarray]:
    """Block 0 without a histogram (``plan.edges`` is None) and its valid columns
    (outputs, m): the study adds them to the histogram once the edges are fixed, so block 0
    is computed once."""
    stats, columns = _evaluate(plan, 0, 1, keep=True)
    assert columns is not None
    return stats, columns


def compiled_reduction(engine: str) -> Any:
    """The compiled one-pass reduction (:mod:`._numba`, the same bits as the numpy path) for
    the batch ``engine`` (``"auto"``: when numba is installed), or None for numpy."""
    from ..batch import ENGINE

    if engine == "numpy" or (engine == "auto" and ENGINE != "numba"):
        return None
    try:
        from ._numba import reduce_blocks
    except ImportError:
        if engine == "numba":
            raise ImportError(
                "engine='numba' needs numba: pip install 'rigidparts[batch]'"
            ) from None
        return None
    return reduce_blocks


def _evaluate(
    plan: Plan, first: int, count: int, keep: bool = False, compiled: bool = True
) -> tuple[ChunkStats, np.ndarray | None]:
    table = draw_table(plan, first, count)
    start, _ = plan.chunk_rows(first, count)
    result = batch_rows(plan, {name: table[i] for i, (name, _) in enumerate(plan.tolerances)})
    inputs = table if len(table) else None
    cross = np.empty((count, len(plan.tolerances), 2 + len(OUTPUTS)))
    scratch: dict[str, np.ndarray] = {}  # block_cross's deviations, reused block to block
    outside = np.zeros((len(OUTPUTS), 2), np.int64)
    codes = np.asarray(result.error_codes)
    bad = np.flatnonzero(codes)
    first_invalid = error_args = None
    if bad.size:
        local = int(bad[0])
        first_invalid = (start + local, int(codes[local]))
        error = invalid_sample_error(result, local, start + local)
        error_args = (error.parameter, error.value, error.rule, start + local)
    counts = np.empty(count, np.int64)
    stats = np.empty((count, len(OUTPUTS), 4))
    histogram = None
    if plan.edges is not None:
        histogram = np.zeros((len(OUTPUTS), plan.bins + 2), np.int64)
    reduce_blocks = None if keep or not compiled else compiled_reduction(plan.engine)
    if reduce_blocks is not None:  # one compiled pass per block, the same bits
        edges = np.zeros((len(OUTPUTS), 2)) if plan.edges is None else np.asarray(plan.edges)
        with np.errstate(divide="ignore"):
            scale = plan.bins / (edges[:, 1] - edges[:, 0])
        reduce_blocks(
            np.asarray(result.mass),
            np.asarray(result.center_of_mass),
            np.asarray(result.canonical_moments),
            np.asarray(result.volume),
            codes,
            plan.block,
            np.ascontiguousarray(edges[:, 0]),
            scale,
            plan.bins,
            np.zeros((1, 1), np.int64) if histogram is None else histogram,
            histogram is not None,
            counts,
            stats,
        )
        # the cross moments and limit counts (numpy, same bits)
        for k, block, x in _valid_blocks(plan, first, count, result, inputs, codes):
            cross[k] = block_cross(x, block, stats[k, :, MEAN], scratch)
            count_outside(block, plan.limits, outside)
        return ChunkStats(
            first, counts, stats, histogram, first_invalid, error_args, cross, outside
        ), None
    kept = None
    for k, block, x in _valid_blocks(plan, first, count, result, inputs, codes):
        counts[k] = block.shape[1]
        stats[k] = block_stats(block)
        cross[k] = block_cross(x, block, stats[k, :, MEAN], scratch)
        count_outside(block, plan.limits, outside)
        if histogram is not None and block.shape[1]:
            add_histogram(block, stats[k], plan, histogram)
        if keep:
            kept = block.copy()
    return ChunkStats(
        first, counts, stats, histogram, first_invalid, error_args, cross, outside
    ), kept


def block_cross(
    inputs: np.ndarray,
    outputs: np.ndarray,
    output_mean: np.ndarray,
    scratch: dict[str, np.ndarray] | None = None,
) -> np.ndarray:
    """(inputs, 2 + outputs): each input row's mean (pairwise sum / m), M2 (sum of squared
    deviations, second pass) and co-moments ``C_ij = sum_s (x_is - mean x_i)(y_js - mean
    y_j)`` with each output row of ``outputs`` (outputs, m) about ``output_mean`` (the block's
    mean, :func:`block_stats`). M2 and the co-moments are numpy's ``einsum`` sums of products
    (its own C loop, no BLAS: the bits depend on the block only, with or without numba, in
    any thread). The deviations go into ``scratch``'s arrays, reused from block to block: a
    fresh 3-4 MB temporary per block cost a page fault per 4 KB (more system time than the
    arithmetic). Outputs constant over the block get co-moment 0. NaN for an empty block."""
    k, m = inputs.shape[0], outputs.shape[1]
    out = np.full((k, 2 + outputs.shape[0]), np.nan)
    if m == 0 or k == 0:
        return out
    x = np.asarray(inputs, dtype=float)
    y = np.asarray(outputs, dtype=float)
    mean = x.sum(axis=1) / m
    dx = np.subtract(x, mean[:, None], out=_scratch(scratch, "dx", (k, m)))
    dy = np.subtract(y, np.asarray(output_mean)[:, None], out=_scratch(scratch, "dy", y.shape))
    out[:, 0] = mean
    out[:, 1] = np.einsum("is,is->i", dx, dx)
    out[:, 2:] = np.einsum("is,js->ij", dx, dy)
    # an output constant over the block (a centre of mass on the axis) has no co-moment:
    # exactly 0 (its mean, a rounded sum / m, may differ from the constant in the last bit)
    out[:, 2:][:, y.min(axis=1) == y.max(axis=1)] = 0.0
    return out


def _scratch(scratch: dict[str, np.ndarray] | None, name: str, shape: tuple[int, ...]) -> Any:
    """``scratch[name]`` viewed as ``shape`` (grown when too small), or a new array."""
    if scratch is None:
        return np.empty(shape)
    size = int(np.prod(shape))
    buffer = scratch.get(name)
    if buffer is None or buffer.size < size:
        buffer = scratch[name] = np.empty(size)
    return buffer[:size].reshape(shape)


def count_outside(block: np.ndarray, limits: Any, outside: np.ndarray) -> None:
    """Add to ``outside`` (outputs, 2) the values of ``block`` (outputs, m) strictly below
    ``limits[:, 0]`` and strictly above ``limits[:, 1]`` (a value on a limit is in
    specification); nothing when ``limits`` is None. Integer counts: exact in any order."""
    if limits is None or not block.shape[1]:
        return
    limits = np.asarray(limits)
    outside[:, 0] += np.count_nonzero(block < limits[:, :1], axis=1)
    outside[:, 1] += np.count_nonzero(block > limits[:, 1:], axis=1)


def _valid_blocks(
    plan: Plan, first: int, count: int, result: Any, inputs: np.ndarray | None, codes: Any
) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
    """``(k, outputs (outputs, m), inputs (inputs, m))`` of each block ``first + k`` of the
    chunk, its invalid samples left out (the outputs gathered into one reused buffer)."""
    start, _ = plan.chunk_rows(first, count)
    buffer = np.empty((len(OUTPUTS), plan.block))
    all_valid = not np.any(codes)
    for k in range(count):
        s, m = plan.block_rows(first + k)
        lo = s - start
        block = gather_columns(
            result, lo, m, buffer if m == plan.block else np.empty((len(OUTPUTS), m))
        )
        x = inputs[:, lo : lo + m] if inputs is not None else np.empty((0, m))
        if not all_valid:
            valid = codes[lo : lo + m] == 0
            if not valid.all():
                block = np.ascontiguousarray(block[:, valid])
                x = x[:, valid]
        yield k, block, x


def block_stats(block: np.ndarray) -> np.ndarray:
    """(outputs, 4): mean, M2, min, max of each row of ``block`` (outputs, m), m >= 0; two
    passes (mean, then squared deviations) for accuracy; NaN for an empty block."""
    out = np.full((block.shape[0], 4), np.nan)
    m = block.shape[1]
    if m == 0:
        return out
    # Rows of a C-contiguous array: numpy sums each pairwise, the same way for every chunk.
    block = np.ascontiguousarray(block)
    mean = block.sum(axis=1) / m
    deviation = block - mean[:, None]
    deviation *= deviation
    out[:, MEAN] = mean
    out[:, M2] = deviation.sum(axis=1)
    # + 0.0: no -0.0, so a 0.0 / -0.0 tie gives the same bits whatever the order (and in the
    # compiled pass, :mod:`._numba`)
    out[:, MIN] = block.min(axis=1) + 0.0
    out[:, MAX] = block.max(axis=1) + 0.0
    return out


#: The histogram range covers at least the first-order mean +- this many first-order sigmas.
SPREAD = 8.0


def histogram_edges(
    stats: np.ndarray,
    nominal: np.ndarray,
    first_order_mean: np.ndarray | None = None,
    first_order_std: np.ndarray | None = None,
) -> np.ndarray:
    """(outputs, 2) low and high edges from a pilot's min and max (``stats`` (outputs, 4)),
    united with ``first_order_mean +- SPREAD first_order_std`` (so a pilot whose valid samples
    are few, or none, or all equal, does not collapse the range), then widened by half its
    width each side; around the nominal value when neither gives a range, and a tiny width
    around a constant output."""
    low, high = stats[:, MIN].copy(), stats[:, MAX].copy()
    empty = ~np.isfinite(low)
    low[empty] = high[empty] = nominal[empty]
    if first_order_mean is not None and first_order_std is not None:
        spread = SPREAD * first_order_std
        usable = np.isfinite(first_order_mean) & np.isfinite(spread) & (spread > 0)
        low = np.where(usable, np.minimum(low, first_order_mean - spread), low)
        high = np.where(usable, np.maximum(high, first_order_mean + spread), high)
    width = high - low
    pad = np.where(width > 0, 0.5 * width, np.maximum(np.abs(low) * 1e-9, 1e-300))
    return np.stack([low - pad, high + pad], axis=1)


def add_histogram(block: np.ndarray, stats: np.ndarray, plan: Plan, histogram: np.ndarray) -> None:
    """Add the block's (outputs, m) values to ``histogram`` (outputs, bins + 2) int64: bin 0
    underflow, 1..bins the bins, bins+1 overflow. A value's bin is ``1 + floor((x - low) bins
    / (high - low))`` clipped to [0, bins + 1], elementwise (the same for every chunking);
    after the clip the value is >= 0, so truncation to an integer is the floor. An output
    that is constant over the block (its min equals its max in ``stats``: a centre of mass
    that stays on the axis) adds its count to its one bin."""
    edges = np.asarray(plan.edges)
    bins = plan.bins
    scale = bins / (edges[:, 1] - edges[:, 0])
    constant = stats[:, MIN] == stats[:, MAX]
    rows = np.flatnonzero(~constant)
    for j in np.flatnonzero(constant).tolist():
        x = (stats[j, MIN] - edges[j, 0]) * scale[j] + 1.0
        histogram[j, int(min(max(x, 0.0), float(bins + 1)))] += block.shape[1]
    if not rows.size:
        return
    index = block[rows] - edges[rows, :1]
    index *= scale[rows, None]
    index += 1.0
    np.clip(index, 0.0, float(bins + 1), out=index)
    flat = index.astype(np.intp)
    flat += (bins + 2) * np.arange(rows.size)[:, None]
    counts = np.bincount(flat.ravel(), minlength=(bins + 2) * rows.size)
    histogram[rows] += counts.reshape(rows.size, bins + 2)


class Fold:
    """Blocks' statistics folded one after the other, in block-index order, by Chan's update
    (module docstring): the caller feeds block 0, 1, 2... so the result is bit for bit the
    same for any chunking. Holds one block's worth of state, whatever the number of blocks."""

    def __init__(self, outputs: int) -> None:
        self.n = 0
        self.mean = np.full(outputs, np.nan)
        self.m2 = np.full(outputs, np.nan)
        self.low = np.full(outputs, np.inf)
        self.high = np.full(outputs, -np.inf)

    def add(self, nb: int, block: np.ndarray) -> None:
        """Fold the next block: ``nb`` valid samples, ``block`` (outputs, 4) statistics."""
        if nb == 0:
            return
        n = self.n
        if n == 0:
            self.mean, self.m2 = block[:, MEAN].copy(), block[:, M2].copy()
        else:
            total = n + nb
            delta = block[:, MEAN] - self.mean
            self.mean = self.mean + delta * (nb / total)
            self.m2 = self.m2 + block[:, M2] + delta * delta * (float(n) * nb / total)
        self.n = n + nb
        self.low = np.minimum(self.low, block[:, MIN])
        self.high = np.maximum(self.high, block[:, MAX])

    def result(self) -> tuple[int, np.ndarray]:
        """``(count, (outputs, 4))``: mean, M2, min, max (NaN when no sample was valid)."""
        low, high = self.low.copy(), self.high.copy()
        if self.n == 0:
            low[:] = high[:] = np.nan
        return self.n, np.stack([self.mean, self.m2, low, high], axis=1)


class CrossFold:
    """The input-output co-moments of blocks folded in block-index order (as :class:`Fold`):
    Chan et al.'s pairwise update extended to co-moments (Pebay, "Formulas for robust,
    one-pass parallel computation of covariances and arbitrary-order statistical moments",
    Sandia SAND2008-6212, eq. 3.12): ``C = C_a + C_b + dx dy n_a n_b / n`` with ``dx``, ``dy``
    the differences of the blocks' input and output means. Bit for bit the same for any
    chunking; holds (inputs, outputs) numbers whatever the number of blocks."""

    def __init__(self, inputs: int, outputs: int) -> None:
        self.n = 0
        self.mean_x = np.full(inputs, np.nan)
        self.m2_x = np.full(inputs, np.nan)
        self.mean_y = np.full(outputs, np.nan)
        self.c = np.full((inputs, outputs), np.nan)

    def add(self, nb: int, cross: np.ndarray, mean_y: np.ndarray) -> None:
        """Fold the next block: ``nb`` valid samples, ``cross`` (inputs, 2 + outputs) from
        :func:`block_cross`, ``mean_y`` the block's output means."""
        if nb == 0:
            return
        n = self.n
        if n == 0:
            self.mean_x, self.m2_x = cross[:, 0].copy(), cross[:, 1].copy()
            self.mean_y, self.c = mean_y.copy(), cross[:, 2:].copy()
        else:
            total = n + nb
            weight = float(n) * nb / total
            dx = cross[:, 0] - self.mean_x
            dy = mean_y - self.mean_y
            self.c = self.c + cross[:, 2:] + (dx[:, None] * dy[None, :]) * weight
            self.m2_x = self.m2_x + cross[:, 1] + dx * dx * weight
            self.mean_x = self.mean_x + dx * (nb / total)
            self.mean_y = self.mean_y + dy * (nb / total)
        self.n = n + nb


def combine_blocks(counts: np.ndarray, stats: np.ndarray) -> tuple[int, np.ndarray]:
    """``(count, (outputs, 4))``: all blocks' mean, M2, min and max, folded in block-index
    order by Chan's update (:class:`Fold`): bit for bit the same for any chunking."""
    fold = Fold(stats.shape[1])
    for b in range(counts.shape[0]):
        fold.add(int(counts[b]), stats[b])
    return fold.result()


def percentiles_from_histogram(
    histogram: np.ndarray, edges: np.ndarray, low: float, high: float, q: np.ndarray
) -> np.ndarray:
    """Percentiles ``q`` (in %) of one output from its counts (bins + 2: under, bins, over) on
    ``edges`` (low, high), interpolated linearly within the bin holding rank ``q/100 * n``
    (the under- and overflow bins span the exact ``low`` / ``high`` to the edges), clipped to
    [low, high]."""
    total = int(histogram.sum())
    if total == 0:
        return np.full(q.shape, np.nan)
    bins = histogram.shape[0] - 2
    inner = np.linspace(edges[0], edges[1], bins + 1)
    bounds = np.concatenate([[min(low, edges[0])], inner, [max(high, edges[1])]])
    cumulative = np.concatenate([[0], np.cumsum(histogram)])
    out = np.empty(q.shape)
    for i, p in enumerate(q):
        rank = p / 100.0 * total
        k = int(np.searchsorted(cumulative, rank, side="left"))
        k = min(max(k, 1), histogram.shape[0])  # bin k - 1 holds the rank
        inside = histogram[k - 1]
        fraction = 0.0 if inside == 0 else (rank - cumulative[k - 1]) / inside
        out[i] = bounds[k - 1] + fraction * (bounds[k] - bounds[k - 1])
    return np.clip(out, low, high)


def distribution(
    plan: Plan, valid: int, combined: np.ndarray, histogram: np.ndarray, percentiles: Any
) -> tuple[dict[str, Any], np.ndarray]:
    """A study's distribution from its folded blocks (``combined``: (outputs, 4) mean, M2,
    min, max) and histogram: ``(fields, M2)``, the fields of
    :class:`~rigidparts.tolerancing.ToleranceResult` (``mean``, ``std`` with ``n - 1``,
    ``min``, ``max``, the ``percentiles`` read from the histogram and their resolution, one
    bin, ``histogram``, ``edges``, ``block``) and the outputs' M2 (for the contributions)."""
    mean, m2, low, high = combined.T
    outputs = combined.shape[0]
    std = np.sqrt(m2 / (valid - 1)) if valid > 1 else np.full(outputs, np.nan)
    q = np.array(percentiles)
    values = np.array(
        [
            percentiles_from_histogram(histogram[j], plan.edges[j], low[j], high[j], q)
            for j in range(outputs)
        ]
    ).reshape(outputs, len(q))
    fields = {
        "mean": mean,
        "std": std,
        "min": low,
        "max": high,
        "percentiles": percentiles,
        "percentile_values": values,
        "percentile_resolution": (plan.edges[:, 1] - plan.edges[:, 0]) / plan.bins,
        "histogram": histogram,
        "edges": plan.edges,
        "block": BLOCK,
    }
    return fields, m2


def invalid_sample_error(result: Any, local: int, index: int) -> ParameterError:
    """The ParameterError for row ``local`` of a chunk's batch ``result``: the shape's rule,
    named after its parameter, with the sample's global ``index``."""
    error = result.error(local, index=index)
    return ParameterError(
        error.parameter,
        error.value,
        f"{error.rule} (sample {index} of the tolerance study; with on_invalid 'skip' such "
        "samples are counted and left out)",
        index=index,
    )


def check_samples(samples: Any) -> int:
    """``samples`` as a positive int (``1e8`` allowed); ParameterError otherwise."""
    if isinstance(samples, bool):
        raise ParameterError("samples", samples, "must be a positive integer, not a boolean")
    if isinstance(samples, str):
        try:
            samples = float(samples.strip()) if not samples.strip().isdigit() else int(samples)
        except ValueError:
            raise ParameterError("samples", samples, "must be a positive integer") from None
    try:
        value = float(samples)
    except (TypeError, ValueError, OverflowError):
        raise ParameterError("samples", samples, "must be a positive integer") from None
    if not np.isfinite(value) or value != int(value):
        raise ParameterError("samples", samples, "must be a positive integer")
    if int(samples) <= 0:
        raise ParameterError("samples", samples, "must be a positive integer (at least 1)")
    if int(samples) > 2**53:
        raise ParameterError("samples", samples, "must be at most 2^53")
    return int(samples)
