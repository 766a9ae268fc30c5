"""Sensitivities: accuracy against 60-digit derivatives, and speed, one body and a batch.

    python benchmarks/sensitivity.py            # 100 random bodies per shape
    python benchmarks/sensitivity.py --bodies 20 --rows 100000 --rounds 3

Accuracy. For every tier-1 shape, random valid bodies (``tests/test_sensitivity.py``'s
``random_kwargs``: thin walls down to 1e-9, solid and hollow, random axes, density or mass)
and the test file's hard cases (thin walls, small cavities, pointed cones, square sections,
bodies far from 1 m): the worst error of ``body.sensitivities()`` relative to the norm of each
reference row (one output, one parameter), against complex-step derivatives of the closed
form at 60 digits (principal moments: a one-sided difference of the sorted moments). Rows
whose reference is zero (below 1e-20 of the output's scale) are left out (the library gives
them as 0 or within that floor; the unit tests check it).

Speed. ``body.sensitivities()`` of a hollow cone (best of rounds, beside building it), and, in
interleaved rounds, ``rp.batch.sensitivities`` of N hollow cones (compiled; the numpy path on
N / 20 rows) and forward differences through the batch (7 batches), each as a ratio to
``rp.batch.cone`` of the same rows in the same round (medians over rounds); the peak memory
tracemalloc sees during each call.

Writes ``benchmarks/results/sensitivity.md`` (the table ``docs/sensitivities.md`` quotes).
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import statistics
import sys
import time
import timeit
import tracemalloc
from pathlib import Path
from typing import Any

import common  # noqa: F401  (puts tests/ on sys.path)
import mpmath
import numpy as np
from common import machine

import rigidparts as rp
from rigidparts.bodies import body_class
from test_sensitivity import (
    DPS,
    FIXED,
    TIER1,
    in_frame_a,
    output_scale,
    random_kwargs,
    reference_canonical,
    reference_principal,
)


def worst_error(body: object) -> float:
    """The largest error relative to its reference row's norm, over every row."""
    s = body.sensitivities()  # type: ignore[attr-defined]
    expected = in_frame_a(body, reference_canonical(body))
    expected["principal_moments"] = reference_principal(body)
    size = max(v for v in body.dimensions.values() if isinstance(v, float))  # type: ignore[attr-defined]
    worst = 0.0
    for name, rows in expected.items():
        for i in range(len(s.parameters)):
            ref = np.ravel(rows[i])
            got = np.ravel(getattr(s, name)[i])
            with mpmath.workdps(DPS):
                norm = mpmath.sqrt(sum(x * x for x in ref))
                err = mpmath.sqrt(
                    sum((mpmath.mpf(float(g)) - x) ** 2 for g, x in zip(got, ref, strict=True))
                )
            q = abs(float(s.values[i])) or size
            if norm <= 1e-20 * output_scale(body, name) / q:
                continue
            worst = max(worst, float(err / norm))
    return worst


RESULTS = Path(__file__).resolve().parent / "results"


def accuracy(bodies: int) -> dict[str, tuple[float, float, int]]:
    """shape -> (worst over random bodies, worst over the hard cases, number of hard cases)."""
    print(f"worst relative error per row (random: {bodies} bodies per shape)")
    out = {}
    for name in TIER1:
        cls = body_class(name)
        rng_worst = max(
            worst_error(cls(**random_kwargs(name, np.random.default_rng(seed))))
            for seed in range(bodies)
        )
        cases = FIXED.get(name, [])
        hard = max((worst_error(cls(**kwargs)) for kwargs in cases), default=math.nan)
        print(f"  {name:10s} random {rng_worst:.2e}   hard cases ({len(cases)}) {hard:.2e}")
        out[name] = (rng_worst, hard, len(cases))
    return out


def finite_differences(kwargs: dict, step: float = 1e-7) -> dict[str, np.ndarray]:
    """Forward differences through the batch, what a user would write without
    ``rp.batch.sensitivities``: the batch at the nominal rows, then once more per parameter
    with that parameter moved by ``step`` of itself; (N, n) and (N, n, ...) arrays."""
    names = [p.name for p in rp.shapes.SHAPES["cone"].params] + ["density"]
    full = {"density": 7850.0, **kwargs}
    base = rp.batch.cone(**full)
    outputs = {}
    for name in names:
        moved = dict(full)
        h = step * np.asarray(full[name])
        moved[name] = np.asarray(full[name]) + h
        other = rp.batch.cone(**moved)
        for key in ("mass", "volume", "center_of_mass", "inertia", "principal_moments"):
            a, b = getattr(base, key), getattr(other, key)
            hh = h.reshape(h.shape + (1,) * (a.ndim - 1)) if np.ndim(h) else h
            outputs.setdefault(key, []).append((b - a) / hh)
    return {key: np.stack(v, axis=1) for key, v in outputs.items()}


def _timed(function: Any) -> tuple[float, int]:
    """(seconds, peak bytes traced by tracemalloc) of one call."""
    gc.collect()
    tracemalloc.start()
    start = time.perf_counter()
    function()
    elapsed = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return elapsed, peak


def speed(rows: int, rounds: int) -> dict[str, float]:
    """Interleaved rounds: the batch (the reference), forward differences through it, the
    compiled sensitivities, and the numpy path (on rows // 20 rows, its time scaled to rows);
    medians of the per-round ratios to the batch of the same round."""
    body = rp.Cone(
        length=0.5, radius_a=0.05, radius_b=0.03, inner_radius_a=0.04, inner_radius_b=0.02,
        axis=(1, 2, 3),
    )  # fmt: skip
    build = min(
        timeit.repeat(lambda: rp.Cone(length=0.5, radius_a=0.05, radius_b=0.03,
                                      inner_radius_a=0.04, inner_radius_b=0.02, axis=(1, 2, 3)),
                      number=200, repeat=5)
    ) / 200  # fmt: skip
    one = min(timeit.repeat(body.sensitivities, number=20, repeat=5)) / 20
    print(f"one body (hollow cone, 6 parameters): {one * 1e3:.2f} ms ({one / build:.0f}x building)")
    rng = np.random.default_rng(0)
    kwargs = dict(
        length=rng.uniform(0.4, 0.6, rows), radius_a=0.05, radius_b=0.03,
        inner_radius_a=rng.uniform(0.03, 0.049, rows), inner_radius_b=0.02, axis=(1, 2, 3),
    )  # fmt: skip
    small = {k: (v[: rows // 20] if isinstance(v, np.ndarray) else v) for k, v in kwargs.items()}
    result = rp.batch.cone(**kwargs)
    small_result = rp.batch.cone(**small)
    rp.batch.sensitivities(result[:100], engine="numba")  # compiled (or loaded) before timing
    ratios: dict[str, list[float]] = {"fd": [], "numba": [], "numpy": []}
    batch_times, peaks = [], {}
    for _ in range(rounds):
        t_batch, _ = _timed(lambda: rp.batch.cone(**kwargs))
        t_fd, peaks["fd"] = _timed(lambda: finite_differences(kwargs))
        t_numba, peaks["numba"] = _timed(lambda: rp.batch.sensitivities(result, engine="numba"))
        t_numpy, _ = _timed(lambda: rp.batch.sensitivities(small_result, engine="numpy"))
        batch_times.append(t_batch)
        ratios["fd"].append(t_fd / t_batch)
        ratios["numba"].append(t_numba / t_batch)
        ratios["numpy"].append(t_numpy * (rows / len(small_result)) / t_batch)
        print(
            f"  round: batch {t_batch * 1e3:.0f} ms; finite differences {t_fd / t_batch:.1f}x, "
            f"compiled sensitivities {t_numba / t_batch:.0f}x, "
            f"numpy path {ratios['numpy'][-1]:.0f}x"
        )
    out = {
        "rows": rows,
        "rounds": rounds,
        "body_ms": one * 1e3,
        "body_to_build": one / build,
        "batch_s": statistics.median(batch_times),
        "fd_to_batch": statistics.median(ratios["fd"]),
        "numba_to_batch": statistics.median(ratios["numba"]),
        "numpy_to_batch": statistics.median(ratios["numpy"]),
        "numba_to_fd": statistics.median(
            [a / b for a, b in zip(ratios["numba"], ratios["fd"], strict=True)]
        ),
        "numba_peak_bytes": peaks["numba"],
        "fd_peak_bytes": peaks["fd"],
        "output_bytes": rows * 6 * 17 * 8,
    }
    print(
        f"batch of {rows}: finite differences {out['fd_to_batch']:.1f}x the batch, compiled "
        f"sensitivities {out['numba_to_batch']:.0f}x ({out['numba_to_fd']:.1f}x the finite "
        f"differences), numpy path {out['numpy_to_batch']:.0f}x; peak memory "
        f"{peaks['numba'] / 2**20:.0f} MiB for {out['output_bytes'] / 2**20:.0f} MiB of output"
    )
    return out


def write(
    bodies: int, errors: dict[str, tuple[float, float, int]], rates: dict[str, float]
) -> None:
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    m = machine()
    lines = [
        "# Sensitivities: accuracy and speed",
        "",
        f"`python benchmarks/sensitivity.py --bodies {bodies} --rows {rates['rows']} "
        f"--rounds {rates['rounds']}` "
        f"(measured {when}; {m.get('cpu', '?')}, {m.get('logical_cpus', '?')} CPUs, Python "
        f"{sys.version.split()[0]}, numpy {np.__version__}; 1-minute load average "
        f"{os.getloadavg()[0]:.1f}).",
        "",
        "Worst error of any row (one output with respect to one parameter) relative to that "
        "row's norm, against 60-digit complex-step derivatives of the closed forms (principal "
        "moments: one-sided 60-digit differences of the sorted moments):",
        "",
        f"| shape | {bodies} random bodies | hard cases |",
        "|---|---|---|",
        *(
            f"| {name} | {worst:.1e} | {hard:.1e} ({count}) |"
            for name, (worst, hard, count) in errors.items()
        ),
        "",
        f"Speed (interleaved rounds, median of per-round ratios to `rp.batch.cone` of the same "
        f"rows in the same round; {rates['rounds']} rounds): one body (hollow cone, 6 "
        f"parameters) {rates['body_ms']:.2f} ms, {rates['body_to_build']:.0f}x building it. A "
        f"batch of {rates['rows']:,} hollow cones (the batch itself: {rates['batch_s'] * 1e3:.0f} "
        f"ms in the median round):",
        "",
        "| | time / the batch |",
        "|---|---|",
        f"| forward differences through the batch (7 batches) | {rates['fd_to_batch']:.1f} |",
        f"| `rp.batch.sensitivities`, compiled (`engine=\"numba\"`) | "
        f"{rates['numba_to_batch']:.0f} ({rates['numba_to_fd']:.1f}x the differences) |",
        f"| `rp.batch.sensitivities`, numpy path (timed on {rates['rows'] // 20:,} rows, scaled) | "
        f"{rates['numpy_to_batch']:.0f} |",
        "",
        f"Peak memory traced during the compiled call: {rates['numba_peak_bytes'] / 2**20:.0f} "
        f"MiB, for {rates['output_bytes'] / 2**20:.0f} MiB of derivatives (finite differences: "
        f"{rates['fd_peak_bytes'] / 2**20:.0f} MiB).",
        "",
    ]
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "sensitivity.md").write_text("\n".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bodies", type=int, default=100, help="random bodies per shape")
    parser.add_argument("--rows", type=int, default=1_000_000, help="rows of the batch")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds")
    args = parser.parse_args()
    errors = accuracy(args.bodies)
    rates = speed(args.rows, args.rounds)
    write(args.bodies, errors, rates)


if __name__ == "__main__":
    main()
