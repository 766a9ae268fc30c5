"""Running a study's chunks on dask: the local threaded scheduler, or a dask.distributed
cluster, in bounded memory.

A chunk is a whole number of blocks (:mod:`.study`) computed by one task,
:func:`.study.evaluate_chunk`, which returns only small per-block statistics and one
histogram. Neither scheduler ever holds all chunks' results, nor a list of all chunks (the
ranges are generated as they are submitted): the local scheduler computes ``dask.delayed``
chunk tasks in waves of a few per thread (each wave's results merged, then dropped), the
distributed one keeps a sliding window of submitted tasks and takes each result as it
completes. Each result is merged at once (:class:`Accumulator`): its histogram is added
(integers: exact in any order) and its blocks' statistics are folded in block-index order
(:class:`.study.Fold`), a block that arrives before its predecessors waiting in a small table
until they are in. Only the chunks in flight can be early, so that table holds at most a
window of chunks' blocks (about 260 bytes each), whatever N; the order in which chunks finish
changes nothing.

A study of one chunk (up to ``chunk_size`` samples, 2**20 by default), or one run with
``scheduler="synchronous"``, is computed in the calling thread without dask (:func:`_run_here`:
the same chunks in the same order, what dask's synchronous scheduler would do): importing dask
would cost a fresh process about as long as such a study. Otherwise dask is imported here,
inside the functions; ``dask.distributed`` only when a scheduler address or a client is given
(the ``cluster`` extra).
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import ParameterError
from .study import MEAN, OUTPUTS, ChunkStats, CrossFold, Fold, Plan, evaluate_chunk

__all__ = ["Accumulator", "chunk_ranges", "run_chunks"]

#: Chunks in flight per worker thread (a wave locally, the window on a cluster).
IN_FLIGHT = 4
#: Longest wait for a dask scheduler to answer when connecting (s), unless dask's
#: ``distributed.comm.timeouts.connect`` is set shorter.
CONNECT_TIMEOUT = 10.0


def chunk_ranges(plan: Plan, chunk_blocks: int, first: int = 0) -> Iterator[tuple[int, int]]:
    """``(first block, block count)`` of every chunk from block ``first`` on, in order,
    generated lazily (nothing proportional to N is held)."""
    total = plan.blocks
    for start in range(first, total, chunk_blocks):
        yield start, min(chunk_blocks, total - start)


@dataclass
class Accumulator:
    """The merged results so far: the statistics of blocks ``0 .. next_block - 1`` folded in
    order (:class:`.study.Fold`), the blocks that arrived before their predecessors
    (``early``: block -> (count, stats)), the summed histogram, and the first invalid sample
    seen (lowest index)."""

    fold: Fold
    histogram: np.ndarray
    next_block: int = 0
    early: dict[int, tuple[int, np.ndarray, Any]] = field(default_factory=dict)
    first_invalid: tuple[int, int] | None = None
    error: ParameterError | None = None
    done: int = 0
    #: The input-output co-moments folded in block order (None without inputs).
    cross: CrossFold | None = None
    #: (outputs, 2) int64: valid samples below / above the limits.
    outside: np.ndarray | None = None

    @classmethod
    def empty(cls, plan: Plan) -> Accumulator:
        return cls(
            fold=Fold(len(OUTPUTS)),
            histogram=np.zeros((len(OUTPUTS), plan.bins + 2), np.int64),
            cross=CrossFold(len(plan.tolerances), len(OUTPUTS)),
            outside=np.zeros((len(OUTPUTS), 2), np.int64),
        )

    def add(self, chunk: ChunkStats, plan: Plan) -> int:
        """Merge ``chunk``; returns its number of samples."""
        for k in range(chunk.counts.shape[0]):
            cross = None if chunk.cross is None else chunk.cross[k]
            self.early[chunk.first + k] = (int(chunk.counts[k]), chunk.stats[k], cross)
        while self.next_block in self.early:
            nb, stats, cross = self.early.pop(self.next_block)
            self.fold.add(nb, stats)
            if self.cross is not None and cross is not None:
                self.cross.add(nb, cross, stats[:, MEAN])
            self.next_block += 1
        if chunk.outside is not None and self.outside is not None:
            self.outside += chunk.outside
        if chunk.histogram is not None:
            self.histogram += chunk.histogram
        if chunk.first_invalid is not None and (
            self.first_invalid is None or chunk.first_invalid[0] < self.first_invalid[0]
        ):
            self.first_invalid = chunk.first_invalid
            self.error = chunk.error
        _, n = plan.chunk_rows(chunk.first, chunk.counts.shape[0])
        self.done += n
        return n

    def result(self, plan: Plan) -> tuple[int, np.ndarray]:
        """``(valid count, (outputs, 4))`` of every block (all must have been merged)."""
        assert self.next_block == plan.blocks and not self.early, "blocks missing"
        return self.fold.result()


def _check_error(acc: Accumulator, plan: Plan) -> None:
    if plan.on_invalid == "error" and acc.error is not None:
        raise acc.error


def run_chunks(
    plan: Plan,
    chunks: Iterable[tuple[int, int]],
    *,
    scheduler: str | None,
    client: Any,
    progress: Callable[[int], None] | None,
    acc: Accumulator | None = None,
) -> Accumulator:
    """Compute every chunk and merge the results into ``acc`` (a new one by default; module
    docstring). ``progress(n)`` is called with each chunk's sample count as it completes."""
    acc = Accumulator.empty(plan) if acc is None else acc
    if client is not None or (scheduler is not None and "://" in scheduler):
        _run_distributed(plan, chunks, acc, scheduler, client, progress)
    else:
        _run_local(plan, chunks, acc, scheduler, progress)
    _check_error(acc, plan)
    return acc


def _run_local(
    plan: Plan,
    chunks: Iterable[tuple[int, int]],
    acc: Accumulator,
    scheduler: str | None,
    progress: Callable[[int], None] | None,
) -> None:
    pending = iter(chunks)
    head = list(itertools.islice(pending, 2))
    if len(head) < 2 or scheduler in ("sync", "synchronous"):
        # One chunk, or the calling thread asked for: no scheduler to pay for (importing dask
        # costs a fresh process about as long as a small study).
        _run_here(plan, itertools.chain(head, pending), acc, progress)
        return
    pending = itertools.chain(head, pending)
    try:
        import dask
        from dask.callbacks import Callback
    except ImportError as exc:
        raise ImportError(
            f"rigidparts.tolerancing needs dask: pip install 'rigidparts[batch]' ({exc})"
        ) from None
    from dask.system import CPU_COUNT

    name = "synchronous" if scheduler in ("sync", "synchronous") else "threads"
    # dask's own worker count: its configured num_workers, else the CPUs it may use
    # (CPU_COUNT respects cgroup quotas and affinity, unlike os.cpu_count()).
    configured = dask.config.get("num_workers", None)
    workers = 1 if name == "synchronous" else max(1, int(configured or CPU_COUNT))
    wave = IN_FLIGHT * workers
    # Our tasks' keys carry this study's token: the progress callback (global to dask's local
    # schedulers while it is active) ignores any other computation's tasks.
    prefix = f"rigidparts-tolerance-{uuid.uuid4().hex}-"
    samples: dict[str, int] = {}  # this wave's task keys -> their sample counts

    def posttask(key: Any, result: Any, dsk: Any, state: Any, worker_id: Any) -> None:
        if progress is not None and isinstance(key, str) and key in samples:
            progress(samples[key])

    with Callback(posttask=posttask):
        for i in itertools.count(0, wave):
            items = list(itertools.islice(pending, wave))
            if not items:
                break
            samples.clear()
            tasks = []
            for k, (first, count) in enumerate(items):
                key = f"{prefix}{i + k}"
                samples[key] = plan.chunk_rows(first, count)[1]
                tasks.append(
                    dask.delayed(evaluate_chunk, pure=False)(plan, first, count, dask_key_name=key)
                )
            for chunk in dask.compute(*tasks, scheduler=name, num_workers=workers):
                acc.add(chunk, plan)
            _check_error(acc, plan)


def _run_here(
    plan: Plan,
    chunks: Iterable[tuple[int, int]],
    acc: Accumulator,
    progress: Callable[[int], None] | None,
) -> None:
    """The chunks in order in the calling thread (what dask's synchronous scheduler does),
    without importing dask."""
    for first, count in chunks:
        n = acc.add(evaluate_chunk(plan, first, count), plan)
        if progress is not None:
            progress(n)
        _check_error(acc, plan)


def _distributed() -> Any:
    try:
        import distributed
    except ImportError as exc:
        raise ImportError(
            "a dask.distributed scheduler needs the cluster extra: pip install "
            f"'rigidparts[cluster]' ({exc})"
        ) from None
    return distributed


def connect(scheduler: str) -> Any:
    """A ``dask.distributed.Client`` of the scheduler at address ``scheduler``. The address
    is checked first (its scheme must be one distributed knows: ``tcp://``, ``tls://``...), so
    a malformed one is a ParameterError at once, before any client exists; an unreachable one
    is a ParameterError after :data:`CONNECT_TIMEOUT` (or dask's shorter
    ``distributed.comm.timeouts.connect``)."""
    distributed = _distributed()
    import dask
    from dask.utils import parse_timedelta
    from distributed.comm import parse_address
    from distributed.comm.registry import get_backend

    try:
        scheme, location = parse_address(scheduler)
        get_backend(scheme)
        if not location:
            raise ValueError("no host")
    except (ValueError, TypeError) as exc:
        raise ParameterError(
            "scheduler", scheduler, f"is not a dask scheduler address ({exc}): write "
            "SCHEME://HOST:PORT such as 'tcp://host:8786'",
        ) from None  # fmt: skip
    configured = parse_timedelta(dask.config.get("distributed.comm.timeouts.connect"), "s")
    timeout = min(CONNECT_TIMEOUT, configured or CONNECT_TIMEOUT)
    try:
        return distributed.Client(scheduler, set_as_default=False, timeout=timeout)
    except (OSError, TimeoutError, ValueError) as exc:
        raise ParameterError(
            "scheduler", scheduler, f"cannot connect to a dask scheduler there ({exc})"
        ) from None


def _run_distributed(
    plan: Plan,
    chunks: Iterable[tuple[int, int]],
    acc: Accumulator,
    scheduler: str | None,
    client: Any,
    progress: Callable[[int], None] | None,
) -> None:
    distributed = _distributed()
    own = client is None
    if own:
        client = connect(scheduler or "")
    try:
        threads = max(1, sum(client.nthreads().values()))
        pending = iter(chunks)  # generated as submitted

        def start(item: tuple[int, int]) -> Any:
            return client.submit(evaluate_chunk, plan, *item, pure=False)

        first = [start(item) for _, item in zip(range(IN_FLIGHT * threads), pending, strict=False)]
        futures = distributed.as_completed(first, loop=client.loop)

        def submit() -> None:
            item = next(pending, None)
            if item is not None:
                futures.add(start(item))

        for future in futures:
            chunk = future.result()
            future.release()
            n = acc.add(chunk, plan)
            if progress is not None:
                progress(n)
            # After an invalid sample (on_invalid="error") nothing more is submitted, but the
            # chunks in flight are still merged: chunks are submitted in order, so every chunk
            # before the failing one is among them and the error names the first invalid
            # sample of the whole study, whichever chunk finished first.
            if not (plan.on_invalid == "error" and acc.error is not None):
                submit()
    finally:
        if own:
            client.close()
