"""Sensitivities: accuracy against 60-digit derivatives, and speed, one body and a batch.

    python benchmarks/sensitivity.py            # 100 random bodies per shape
    python benchmarks/sensitivity.py --bodies 20 --rows 50000

Accuracy. For every tier-1 shape, random valid bodies (``tests/test_sensitivity.py``'s
``random_kwargs``: thin walls down to 1e-9, solid and hollow, random axes, density or mass)
and the test file's hard cases (thin walls, small cavities, pointed cones, square sections,
bodies far from 1 m): the worst error of ``body.sensitivities()`` relative to the norm of each
reference row (one output, one parameter), against complex-step derivatives of the closed
form at 60 digits (principal moments: a one-sided difference of the sorted moments). Rows
whose reference is zero (below 1e-20 of the output's scale) are left out (the library gives
them as 0 or within that floor; the unit tests check it).

Speed. ``body.sensitivities()`` of a hollow cone (best of rounds), and
``rp.batch.sensitivities`` of N hollow cones beside ``rp.batch.cone`` of the same rows.

Writes ``benchmarks/results/sensitivity.md`` (the table ``docs/sensitivities.md`` quotes).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path

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


def speed(rows: int) -> dict[str, float]:
    body = rp.Cone(
        length=0.5, radius_a=0.05, radius_b=0.03, inner_radius_a=0.04, inner_radius_b=0.02,
        axis=(1, 2, 3),
    )  # fmt: skip
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(50):
            body.sensitivities()
        best = min(best, (time.perf_counter() - start) / 50)
    print(f"one body (hollow cone, 6 parameters): {best * 1e3:.2f} ms")
    rng = np.random.default_rng(0)
    kwargs = dict(
        length=rng.uniform(0.4, 0.6, rows), radius_a=0.05, radius_b=0.03,
        inner_radius_a=rng.uniform(0.03, 0.049, rows), inner_radius_b=0.02, axis=(1, 2, 3),
    )  # fmt: skip
    result = rp.batch.cone(**kwargs)
    rp.batch.sensitivities(result[:100])
    times, plain = [], []
    for _ in range(3):
        start = time.perf_counter()
        rp.batch.sensitivities(result)
        times.append(time.perf_counter() - start)
        start = time.perf_counter()
        rp.batch.cone(**kwargs)
        plain.append(time.perf_counter() - start)
    print(
        f"batch ({rows} hollow cones): {rows / min(times):,.0f} rows/s "
        f"(the mass properties alone: {rows / min(plain):,.0f} rows/s)"
    )
    return {
        "body_ms": best * 1e3,
        "rows": rows,
        "batch_rows_per_s": rows / min(times),
        "plain_rows_per_s": rows / min(plain),
    }


def write(
    bodies: int, errors: dict[str, tuple[float, float, int]], rates: dict[str, float]
) -> None:
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    m = machine()
    lines = [
        "# Sensitivities: accuracy and speed",
        "",
        f"`python benchmarks/sensitivity.py --bodies {bodies} --rows {rates['rows']}` "
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
        f"Speed: one body (hollow cone, 6 parameters) {rates['body_ms']:.2f} ms; a batch of "
        f"{rates['rows']} hollow cones {rates['batch_rows_per_s']:,.0f} rows/s, against "
        f"{rates['plain_rows_per_s']:,.0f} rows/s for the mass properties alone.",
        "",
    ]
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "sensitivity.md").write_text("\n".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bodies", type=int, default=100, help="random bodies per shape")
    parser.add_argument("--rows", type=int, default=200_000, help="rows of the batch")
    args = parser.parse_args()
    errors = accuracy(args.bodies)
    rates = speed(args.rows)
    write(args.bodies, errors, rates)


if __name__ == "__main__":
    main()
