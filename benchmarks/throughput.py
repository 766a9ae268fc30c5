"""Throughput of the batch path against the copy bound (issue 15 items 4 and 6), its memory.

For each N, in interleaved rounds (each round runs every variant once, in the same order; the
figure is the median over the rounds): ``np.copyto`` of an (N, 14) float64 array into a
preallocated one (the time to write an array as large as the outputs: the reference),
``rp.batch.cone`` on N hollow frustums along the canonical axis (the issue's case) as it runs
by default, and for the record its variants -- non-temporal stores forced on and off, one
thread -- and, up to N = 1e6, the numpy engine (no numba) and the "plain numpy" version (the
same closed forms on whole arrays: one memory pass per operation). Ratios are medians of the
per-round ratios to the copy of the same round.

Run alone (``python benchmarks/throughput.py --help``) it measures given sizes, optionally for
another CPU than this one: ``--cpu haswell`` compiles the kernel for that CPU's instruction
set (numba's ``NUMBA_CPU_NAME``, with that CPU's own features: no AVX-512, no SSE4a for
``haswell``), kept in a cache directory of its own so that the normal cache is not touched.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable

import numpy as np
from common import hollow_cones

from rigidparts import batch
from rigidparts.inertia import rotate_principal_inertia
from rigidparts.shapes import cone as cone_shape

OUTPUT_FLOATS = 14  # mass, volume, centre of mass (3), inertia (9)


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


def _timed(function: Callable[[], object]) -> float:
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def _with(settings: dict[str, object], function: Callable[[], object]) -> Callable[[], object]:
    """``function`` run with module constants of the compiled engine set to ``settings``."""
    compiled = batch._numba

    def run() -> object:
        saved = {name: getattr(compiled, name) for name in settings}
        for name, value in settings.items():
            setattr(compiled, name, value)
        try:
            return function()
        finally:
            for name, value in saved.items():
                setattr(compiled, name, value)

    return run


def _rounds(n: int, quick: bool, rounds: int | None = None) -> int:
    if rounds is not None:
        return rounds
    if n <= 100_000:
        return 15 if quick else 31
    return 7 if quick else 15


def _measure_one(
    n: int, quick: bool, rounds: int | None = None, batch_only: bool = False
) -> dict[str, object]:
    inputs = hollow_cones(n)
    source = np.ones((n, OUTPUT_FLOATS))
    target = np.empty_like(source)
    np.copyto(target, source)

    def copy() -> None:
        np.copyto(target, source)

    def call() -> None:
        batch.cone(**inputs)

    variants: dict[str, Callable[[], object]] = {"copy": copy, "batch": call}
    compiled = batch._numba if batch.ENGINE == "numba" else None
    if compiled is not None and n >= 100_000 and batch_only:
        variants["batch, 1 thread"] = _with({"THREADS": 1}, call)
    elif compiled is not None and n >= 100_000:
        variants["batch, non-temporal stores"] = _with({"STREAMING_THRESHOLD": 0}, call)
        variants["batch, normal stores"] = _with({"STREAMING_THRESHOLD": 1 << 62}, call)
        variants["batch, 1 thread"] = _with({"THREADS": 1}, call)
    if n <= 1_000_000 and not batch_only:
        variants["numpy engine"] = lambda: batch.cone(**inputs, engine="numpy")
        variants["plain numpy"] = lambda: plain_numpy_cone(inputs, 7860.0)
    for function in variants.values():  # warm: kernels, buffer pool, page faults
        function()
    times: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(_rounds(n, quick, rounds)):
        for name, function in variants.items():
            times[name].append(_timed(function))
    row: dict[str, object] = {"n": n, "rounds": _rounds(n, quick, rounds)}
    for name, values in times.items():
        row[f"{name} s"] = statistics.median(values)
        if name != "copy":
            ratios = [a / b for a, b in zip(values, times["copy"], strict=True)]
            row[f"{name} ratio"] = statistics.median(ratios)
    row["ns per body"] = row["batch s"] / n * 1e9  # type: ignore[operator]
    return row


def measure(
    sizes: list[int],
    *,
    quick: bool = False,
    rounds: int | None = None,
    batch_only: bool = False,
) -> dict[str, object]:
    compiled = batch._numba if batch.ENGINE == "numba" else None
    rows = []
    for n in sizes:
        rows.append(_measure_one(n, quick, rounds, batch_only))
        gc.collect()
    load = os.getloadavg()
    return {
        "engine": batch.ENGINE,
        "threads": compiled.THREADS if compiled is not None else 1,
        "streaming_threshold": compiled.STREAMING_THRESHOLD if compiled is not None else None,
        "target": _target(compiled),
        "load_average_after": [round(x, 2) for x in load],
        "rows": rows,
    }


def _target(compiled: object) -> dict[str, object] | None:
    """The CPU numba compiles for and how the kernel writes its outputs there."""
    if compiled is None:
        return None
    import llvmlite.binding
    import numba

    return {
        "cpu": numba.config.CPU_NAME or llvmlite.binding.get_host_cpu_name(),
        "features": "host" if numba.config.CPU_FEATURES is None else "the CPU's own",
        "scalar_streaming": getattr(compiled, "SCALAR_STREAMING", None),
    }


def use_cpu(name: str) -> None:
    """Compile for CPU ``name`` (LLVM's name: ``haswell``, ``skylake-avx512``, ``znver3``) with
    its own features, and cache those kernels apart. Before numba's import only."""
    if "numba" in sys.modules:
        raise RuntimeError("use_cpu() must run before numba is imported")
    os.environ["NUMBA_CPU_NAME"] = name
    os.environ["NUMBA_CPU_FEATURES"] = ""  # the CPU's own features, not the host's
    import tempfile

    os.environ["NUMBA_CACHE_DIR"] = os.path.join(
        tempfile.gettempdir(), f"rigidparts-benchmarks-numba-{name}"
    )


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
    done = statistics.median(_timed(lazy.compute) for _ in range(3))
    computed = lazy.compute()
    same = all(
        np.asarray(getattr(computed, k)).tobytes() == getattr(eager, k).tobytes()
        for k in ("mass", "volume", "center_of_mass", "inertia")
    )
    return {"n": n, "chunk": chunk, "compute_s": done, "bitwise_equal_to_numpy": same}


def dask_reduction(n: int, chunk: int = 1_000_000) -> dict[str, object]:
    """``result.mass.sum().compute()`` over ``n`` lazy rows (random lengths, the rest scalars),
    in a fresh process: wall time and how much the peak resident memory grew (issue 14 item 12:
    bounded by the chunks, not the rows)."""
    import json
    import subprocess
    import sys

    code = (
        "import json, time, dask.array as da, rigidparts as rp\n"
        # The peak resident memory of this process's own memory map (VmHWM: ru_maxrss would
        # carry the parent's peak over the exec).
        "def peak():\n"
        "    for line in open('/proc/self/status'):\n"
        "        if line.startswith('VmHWM:'):\n"
        "            return int(line.split()[1]) * 1024\n"
        f"length = da.random.uniform(0.5, 1.5, size={n}, chunks={chunk})\n"
        "cones = rp.batch.cone(length=length, radius_a=0.05, radius_b=0.02)\n"
        "rp.batch.cone(length=[1.0])\n"
        "before = peak()\n"
        "start = time.perf_counter()\n"
        "cones.mass.sum().compute()\n"
        "seconds = time.perf_counter() - start\n"
        "print(json.dumps({'seconds': seconds, 'peak_growth_bytes': peak() - before}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    return {"n": n, "chunk": chunk, **figures, "one_float64_array_bytes": 8 * n}


def main(argv: list[str] | None = None) -> None:
    import json

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=float, nargs="+", default=[1e3, 1e5, 1e6])
    parser.add_argument("--rounds", type=int, help="interleaved rounds (default: by size)")
    parser.add_argument("--cpu", help="compile for this CPU (LLVM's name, e.g. haswell)")
    parser.add_argument(
        "--batch-only", action="store_true", help="the copy, the batch and one thread only"
    )
    parser.add_argument("--output", help="also write the figures to this JSON file")
    options = parser.parse_args(argv)
    if options.cpu:
        use_cpu(options.cpu)
    figures = measure(
        [int(n) for n in options.sizes],
        quick=options.rounds is None,
        rounds=options.rounds,
        batch_only=options.batch_only,
    )
    text = json.dumps(figures, indent=1)
    print(text)
    if options.output:
        from rigidparts.fileio import atomic_write

        atomic_write(options.output, text + "\n")


if __name__ == "__main__":
    main()
