"""Running a study's chunks on dask: the local threaded scheduler, or a dask.distributed
cluster, in bounded memory.

A chunk is a whole number of blocks (:mod:`.study`) computed by one task,
:func:`.study.evaluate_chunk`, which returns only small per-block statistics and one
histogram. Neither scheduler ever holds all chunks' results: the local scheduler computes
``dask.delayed`` chunk tasks in waves of a few per thread (each wave's results merged, then
dropped), the distributed one keeps a sliding
window of submitted tasks and takes each result as it completes. Each result is merged at once:
its blocks' statistics are stored by block index (about 260 bytes per block: 4 MB for 10^9
samples) and its histogram added (integers: exact in any order), so the order in which chunks
finish changes nothing; :func:`.study.combine_blocks` then folds the blocks in index order.

dask is imported here, inside the functions; ``dask.distributed`` only when a scheduler address
or a client is given (the ``cluster`` extra).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ParameterError
from .study import OUTPUTS, ChunkStats, Plan, evaluate_chunk

__all__ = ["Accumulator", "chunk_ranges", "run_chunks"]

#: Chunks in flight per worker thread (a wave locally, the window on a cluster).
IN_FLIGHT = 4


def chunk_ranges(plan: Plan, chunk_blocks: int) -> list[tuple[int, int]]:
    """``(first block, block count)`` of every chunk, in order."""
    total = plan.blocks
    return [(first, min(chunk_blocks, total - first)) for first in range(0, total, chunk_blocks)]


@dataclass
class Accumulator:
    """The merged results so far: per-block counts and statistics by block index, the summed
    histogram, and the first invalid sample seen (lowest index)."""

    counts: np.ndarray
    stats: np.ndarray
    histogram: np.ndarray
    first_invalid: tuple[int, int] | None = None
    error: ParameterError | None = None
    done: int = 0

    @classmethod
    def empty(cls, plan: Plan) -> Accumulator:
        return cls(
            counts=np.zeros(plan.blocks, np.int64),
            stats=np.full((plan.blocks, len(OUTPUTS), 4), np.nan),
            histogram=np.zeros((len(OUTPUTS), plan.bins + 2), np.int64),
        )

    def add(self, chunk: ChunkStats, plan: Plan) -> int:
        """Merge ``chunk``; returns its number of samples."""
        k = chunk.counts.shape[0]
        self.counts[chunk.first : chunk.first + k] = chunk.counts
        self.stats[chunk.first : chunk.first + k] = chunk.stats
        if chunk.histogram is not None:
            self.histogram += chunk.histogram
        if chunk.first_invalid is not None and (
            self.first_invalid is None or chunk.first_invalid[0] < self.first_invalid[0]
        ):
            self.first_invalid = chunk.first_invalid
            self.error = chunk.error
        start, _ = plan.block_rows(chunk.first)
        end, n = plan.block_rows(chunk.first + k - 1)
        self.done += end + n - start
        return end + n - start


def _check_error(acc: Accumulator, plan: Plan) -> None:
    if plan.on_invalid == "error" and acc.error is not None:
        raise acc.error


def run_chunks(
    plan: Plan,
    chunks: list[tuple[int, int]],
    *,
    scheduler: str | None,
    client: Any,
    progress: Callable[[int], None] | None,
) -> Accumulator:
    """Compute every chunk and merge the results (module docstring). ``progress(n)`` is
    called with each chunk's sample count as it completes."""
    acc = Accumulator.empty(plan)
    if client is not None or (scheduler is not None and "://" in scheduler):
        _run_distributed(plan, chunks, acc, scheduler, client, progress)
    else:
        _run_local(plan, chunks, acc, scheduler, progress)
    _check_error(acc, plan)
    return acc


def _run_local(
    plan: Plan,
    chunks: list[tuple[int, int]],
    acc: Accumulator,
    scheduler: str | None,
    progress: Callable[[int], None] | None,
) -> None:
    try:
        import dask
        from dask.callbacks import Callback
    except ImportError as exc:
        raise ImportError(
            f"rigidparts.tolerancing needs dask: pip install 'rigidparts[batch]' ({exc})"
        ) from None
    name = "synchronous" if scheduler in ("sync", "synchronous") else "threads"
    workers = 1 if name == "synchronous" else max(1, os.cpu_count() or 1)
    wave = IN_FLIGHT * workers
    # Our tasks' keys carry this study's token: the progress callback (global to dask's local
    # schedulers while it is active) ignores any other computation's tasks.
    prefix = f"rigidparts-tolerance-{uuid.uuid4().hex}-"

    def posttask(key: Any, result: Any, dsk: Any, state: Any, worker_id: Any) -> None:
        if progress is not None and isinstance(key, str) and key.startswith(prefix):
            first, count = chunks[int(key[len(prefix) :])]
            start, _ = plan.block_rows(first)
            end, n = plan.block_rows(first + count - 1)
            progress(end + n - start)

    with Callback(posttask=posttask):
        for i in range(0, len(chunks), wave):
            tasks = [
                dask.delayed(evaluate_chunk, pure=False)(
                    plan, first, count, dask_key_name=f"{prefix}{i + k}"
                )
                for k, (first, count) in enumerate(chunks[i : i + wave])
            ]
            for chunk in dask.compute(*tasks, scheduler=name, num_workers=workers):
                acc.add(chunk, plan)
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


def _run_distributed(
    plan: Plan,
    chunks: list[tuple[int, int]],
    acc: Accumulator,
    scheduler: str | None,
    client: Any,
    progress: Callable[[int], None] | None,
) -> None:
    distributed = _distributed()
    own = client is None
    if own:
        try:
            client = distributed.Client(scheduler, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as exc:
            raise ParameterError(
                "scheduler", scheduler, f"cannot connect to a dask scheduler there ({exc})"
            ) from None
    try:
        threads = max(1, sum(client.nthreads().values()))
        pending = iter(chunks)

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
