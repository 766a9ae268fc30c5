"""Throughput of the batch path against the copy bound, and its memory.

For each N: the best time of ``rp.batch.cone`` on N hollow frustums along the canonical axis
(the issue's case), next to the best time of ``np.copyto`` of an (N, 14) float64 array into a
preallocated one -- the time to write an array as large as the outputs. Measured side by side,
interleaved, best of several rounds. Also: the kernel on one thread, the numpy engine, and the
"plain numpy expressions" baseline (the same closed forms on whole arrays: one memory pass per
operation).
"""

from __future__ import annotations

import gc
import tracemalloc

import numpy as np
from common import best_time, hollow_cones

import rigidparts as rp
from rigidparts import batch
from rigidparts.inertia import rotate_principal_inertia
from rigidparts.shapes import cone as cone_shape

OUTPUT_FLOATS = 14  # mass, volume, centre of mass (3), inertia (9)


def _repeats(n: int) -> int:
    return 30 if n <= 10_000 else 15 if n <= 100_000 else 9 if n <= 1_000_000 else 5


def plain_numpy_cone(inputs: dict[str, np.ndarray], density: float) -> tuple:
    """The naive array version: the closed forms and the rotation evaluated on whole arrays
    (every operation a full pass over memory), outputs assembled with numpy. No validation."""
    n = inputs["length"].shape[0]
    volume, mass, com_x, i0, i1, i2 = cone_shape.closed_form(
        *(inputs[k] for k in cone_shape.SPEC.parameter_names), density
    )
    ixx, iyy, izz, ixy, ixz, iyz = rotate_principal_inertia(
        i0, i1, i2, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0
    )
    com = np.zeros((n, 3))
    com[:, 0] = com_x
    inertia = np.stack([ixx, ixy, ixz, ixy, iyy, iyz, ixz, iyz, izz], axis=1).reshape(n, 3, 3)
    return volume, mass, com, inertia


def _measure_one(n: int, threads: int, with_numpy_engine: bool) -> dict[str, object]:
    inputs = hollow_cones(n)
    source = np.ones((n, OUTPUT_FLOATS))
    target = np.empty_like(source)
    np.copyto(target, source)
    repeat = _repeats(n)

    def copy() -> None:
        np.copyto(target, source)

    def call() -> None:
        batch.cone(**inputs)

    call()  # warm (and fill the buffer pool)
    copy_s = batch_s = float("inf")
    for _ in range(repeat):  # interleaved, so both see the same machine state
        copy_s = min(copy_s, best_time(copy, repeat=1))
        batch_s = min(batch_s, best_time(call, repeat=1))
    row: dict[str, object] = {
        "n": n,
        "copy_s": copy_s,
        "batch_s": batch_s,
        "ratio": batch_s / copy_s,
        "bodies_per_s": n / batch_s,
        "ns_per_body": batch_s / n * 1e9,
    }
    if batch._numba is not None and threads > 1:
        batch._numba.THREADS = 1
        try:
            one = best_time(call, repeat=repeat)
        finally:
            batch._numba.THREADS = threads
        row["batch_1_thread_s"] = one
        row["ratio_1_thread"] = one / copy_s
    if n <= 1_000_000:
        plain = best_time(lambda: plain_numpy_cone(inputs, 7860.0), repeat=max(3, repeat // 3))
        row["plain_numpy_s"] = plain
        row["plain_numpy_ratio"] = plain / copy_s
    if with_numpy_engine and n <= 100_000:
        slow = best_time(lambda: batch.cone(**inputs, engine="numpy"), repeat=3)
        row["numpy_engine_s"] = slow
        row["numpy_engine_ratio"] = slow / copy_s
    return row


def measure(sizes: list[int], *, with_numpy_engine: bool = True) -> dict[str, object]:
    threads = batch._numba.THREADS if batch._numba is not None else 1
    rows = []
    for n in sizes:
        rows.append(_measure_one(n, threads, with_numpy_engine))
        gc.collect()
    return {"threads": threads, "engine": batch.ENGINE, "rows": rows}


def memory(n: int = 1_000_000) -> dict[str, object]:
    """Peak memory numpy allocates during one call, beyond the outputs (tracemalloc tracks
    numpy's allocations). Pool emptied first, so the outputs are allocated inside the call."""
    inputs = hollow_cones(n)
    batch.release_memory()
    gc.collect()
    tracemalloc.start()
    tracemalloc.reset_peak()
    result = batch.cone(**inputs)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    outputs = sum(
        getattr(result, name).nbytes
        for name in (
            "mass",
            "volume",
            "center_of_mass",
            "inertia",
            "canonical_moments",
            "error_codes",
        )
    )
    return {
        "n": n,
        "peak_bytes": peak,
        "output_bytes": outputs,
        "temporary_bytes": peak - outputs,
        "temporary_over_output": (peak - outputs) / outputs,
    }


def dask_check(n: int = 200_000, chunk: int = 50_000) -> dict[str, object]:
    """A dask sweep equals the numpy one bit for bit (also tested in tests/test_batch.py)."""
    import dask.array as da

    inputs = hollow_cones(n)
    eager = batch.cone(**inputs)
    lazy = batch.cone(**{k: da.from_array(v, chunks=chunk) for k, v in inputs.items()})
    done = best_time(lambda: lazy.compute(), repeat=3)
    computed = lazy.compute()
    same = all(
        np.asarray(getattr(computed, k)).tobytes() == getattr(eager, k).tobytes()
        for k in ("mass", "volume", "center_of_mass", "inertia")
    )
    return {"n": n, "chunk": chunk, "compute_s": done, "bitwise_equal_to_numpy": same}


if __name__ == "__main__":
    import json

    print(json.dumps(measure([1000, 100_000, 1_000_000]), indent=1))
    print(json.dumps(memory(), indent=1))
    print(rp.__name__, "ok")
