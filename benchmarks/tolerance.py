"""Tolerance studies (issue 13 items 2 and 3): samples per second, and 10^9 samples in bounded
memory.

``python benchmarks/tolerance.py`` measures, in interleaved rounds (the figure is the median
over rounds; ratios are medians of per-round ratios), on a hollow cone with a tolerance on all
five dimensions and the density:

- ``batch``: ``rp.batch.cone(...)`` on the very rows a study draws (drawn beforehand, not
  timed), invalid rows masked, the kernel on both threads as it runs by default: the batch
  path's own rate, the reference;
- ``local``: ``rp.tolerance("cone", ..., samples=N)`` on dask's local threaded scheduler
  (drawing, the kernel, per-block statistics and histograms, the ordered fold);
- ``cluster``: the same on a ``dask.distributed.LocalCluster(n_workers=2,
  threads_per_worker=1)`` (processes; its start-up not timed).

``python benchmarks/tolerance.py --billion`` runs one study of 10^9 samples of the same hollow
cone (local threaded scheduler, default chunks) in a fresh process and records its wall time
and peak resident set (``getrusage``: ``ru_maxrss``). Both write
``benchmarks/results/tolerance.json`` (merged) and ``benchmarks/results/tolerance.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from common import machine

import rigidparts as rp
from rigidparts.tolerancing import BLOCK, split_parameters
from rigidparts.tolerancing.study import Plan, draw_blocks

RESULTS = Path(__file__).resolve().parent / "results"
SHAPE = "cone"
CASE = {
    "length": "1 m +- 0.5 mm",
    "radius_a": "50 mm +- 0.05 mm",
    "radius_b": "30 mm +- 0.05 mm",
    "inner_radius_a": "45 mm +- 0.05 mm",
    "inner_radius_b": "25 mm +- 0.05 mm",
    "density": "7860 kg/m^3 +- 1 %",
}


def _plan(n: int, seed: int = 0) -> Plan:
    """The plan of a study of ``n`` samples of the case (no histogram edges yet)."""
    from rigidparts.shapes import SHAPES

    spec = SHAPES[SHAPE]
    _, tolerances = split_parameters(SHAPE, CASE)
    order = [*spec.parameter_names, "density"]
    return Plan(
        shape=SHAPE,
        fixed={},
        tolerances=tuple((k, tolerances[k]) for k in order if k in tolerances),
        samples=n,
        seed=seed,
        on_invalid="skip",
        engine="auto",
    )


def _rows(n: int, seed: int) -> dict[str, np.ndarray]:
    """The rows a study of ``n`` samples draws (the same streams, via the study's own
    drawing function)."""
    plan = _plan(n, seed)
    return draw_blocks(plan, 0, plan.blocks)


def rates(n: int, rounds: int) -> dict[str, object]:
    from distributed import Client, LocalCluster

    rows = _rows(n, seed=0)
    rp.batch.cone(**{k: v[:1000] for k, v in rows.items()}, on_invalid="mask")  # load numba
    rp.tolerance(SHAPE, samples=BLOCK, **CASE)
    times: dict[str, list[float]] = {"batch": [], "local": [], "cluster": []}
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        Client(cluster) as client,
    ):
        rp.tolerance(SHAPE, samples=4 * BLOCK, client=client, **CASE)  # workers load numba
        for _ in range(rounds):
            start = time.perf_counter()
            result = rp.batch.cone(**rows, on_invalid="mask")
            times["batch"].append(time.perf_counter() - start)
            del result
            start = time.perf_counter()
            rp.tolerance(SHAPE, samples=n, **CASE)
            times["local"].append(time.perf_counter() - start)
            start = time.perf_counter()
            rp.tolerance(SHAPE, samples=n, client=client, **CASE)
            times["cluster"].append(time.perf_counter() - start)
    out: dict[str, object] = {"n": n, "rounds": rounds, "load_1min_after": os.getloadavg()[0]}
    for name, values in times.items():
        out[f"{name}_s"] = statistics.median(values)
        out[f"{name}_samples_per_s"] = n / statistics.median(values)
    for name in ("local", "cluster"):
        out[f"{name}_over_batch"] = statistics.median(
            t / b for t, b in zip(times[name], times["batch"], strict=True)
        )
    return out


def stages(rounds: int) -> dict[str, float]:
    """Single-threaded cost per sample (ns) of each stage of one chunk of 2^20 samples: the
    best of ``rounds`` (the least disturbed by other work on the machine)."""
    from dataclasses import replace

    from rigidparts.tolerancing import study

    blocks = 16
    rows = _rows(blocks * BLOCK, seed=0)
    plan = _plan(blocks * BLOCK)
    pilot = study.evaluate_chunk(plan, 0, 1)
    plan = replace(plan, edges=study.histogram_edges(pilot.stats[0], np.zeros(8)))
    n = blocks * BLOCK
    result = study.batch_rows(plan, rows)
    buffer = np.empty((len(study.OUTPUTS), BLOCK))
    histogram = np.zeros((len(study.OUTPUTS), plan.bins + 2), np.int64)

    def columns() -> None:
        for k in range(blocks):
            study.gather_columns(result, k * BLOCK, BLOCK, buffer)

    def statistics() -> None:
        for _ in range(blocks):
            study.block_stats(buffer)

    def histograms() -> None:
        for _ in range(blocks):
            study.add_histogram(buffer, study.block_stats(buffer), plan, histogram)

    reduce_blocks = study.compiled_reduction("auto")

    def compiled() -> None:
        if reduce_blocks is None:
            return
        edges = np.asarray(plan.edges)
        reduce_blocks(
            result.mass, result.center_of_mass, result.canonical_moments, result.volume,
            np.asarray(result.error_codes), BLOCK, np.ascontiguousarray(edges[:, 0]),
            plan.bins / (edges[:, 1] - edges[:, 0]), plan.bins, histogram, True,
            np.empty(blocks, np.int64), np.empty((blocks, len(study.OUTPUTS), 4)),
        )  # fmt: skip

    work = {
        "draw": lambda: study.draw_blocks(plan, 0, blocks),
        "kernel": lambda: study.batch_rows(plan, rows),
        "gather_and_sort": columns,
        "block_statistics": statistics,
        "histograms_incl_statistics": histograms,
        "compiled_one_pass_gather_statistics_histograms": compiled,
        "whole_chunk": lambda: study.evaluate_chunk(plan, 0, blocks),
    }
    out = {}
    for name, function in work.items():
        best = float("inf")
        for _ in range(rounds):
            start = time.perf_counter()
            function()
            best = min(best, time.perf_counter() - start)
        out[name] = best / n * 1e9
    return out


def billion_child(samples: int) -> None:
    """In a fresh process: one study, then its wall time and peak RSS as JSON on stdout."""
    start = time.perf_counter()
    result = rp.tolerance(SHAPE, samples=samples, **CASE)
    wall = time.perf_counter() - start
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(
        json.dumps(
            {
                "samples": samples,
                "wall_s": wall,
                "peak_rss_gib": peak_kib / 2**20,
                "valid": result.valid,
                "mass_mean": float(result.mean[0]),
                "mass_std": float(result.std[0]),
                "mass_first_order_std": float(result.first_order_std[0]),
            }
        )
    )


def _load() -> dict[str, object]:
    path = RESULTS / "tolerance.json"
    return json.loads(path.read_text()) if path.exists() else {}


def _write(data: dict[str, object]) -> None:
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "tolerance.json").write_text(json.dumps(data, indent=2) + "\n")
    lines = [
        "# Tolerance studies: throughput and memory",
        "",
        "Hollow cone, tolerances on all five dimensions and the density: "
        + ", ".join(f"{k} `{v}`" for k, v in CASE.items())
        + ". `python benchmarks/tolerance.py` (rates) and `--billion` (10^9 samples).",
        "",
    ]
    m = data.get("machine")
    if m:
        lines += [f"Machine: {m}", ""]
    r = data.get("rates")
    if isinstance(r, dict):
        lines += [
            f"Samples per second, N = {r['n']:.3g}, median of {r['rounds']} interleaved rounds "
            f"(measured {r.get('when', '?')}; 1-minute load average "
            f"{r.get('load_1min_before', float('nan')):.1f} before, "
            f"{r.get('load_1min_after', float('nan')):.1f} after, on 2 vCPUs):",
            "",
            "| path | time (s) | samples / s | time / batch |",
            "|---|---:|---:|---:|",
            f"| batch path on the same rows (reference) | {r['batch_s']:.3f} | "
            f"{r['batch_samples_per_s']:.3g} | 1 |",
            f"| tolerance study, local threaded scheduler | {r['local_s']:.3f} | "
            f"{r['local_samples_per_s']:.3g} | {r['local_over_batch']:.2f} |",
            f"| tolerance study, LocalCluster 2 workers x 1 thread | {r['cluster_s']:.3f} | "
            f"{r['cluster_samples_per_s']:.3g} | {r['cluster_over_batch']:.2f} |",
            "",
        ]
    st = data.get("stages")
    if isinstance(st, dict):
        lines += [
            "Single-threaded cost per sample of one chunk of 2^20 samples (ns, best of "
            f"several runs; measured {st.get('when', '?')}):",
            "",
            "| stage | ns / sample |",
            "|---|---:|",
            *(f"| {k.replace('_', ' ')} | {v:.1f} |" for k, v in st.items() if k != "when"),
            "",
        ]
    b = data.get("billion")
    if isinstance(b, dict):
        lines += [
            f"10^9 samples (local threaded scheduler, default chunks; measured "
            f"{b.get('when', '?')}; 1-minute load average at the end "
            f"{b.get('load_1min_after', float('nan')):.1f} on 2 vCPUs): wall time "
            f"{b['wall_s']:.0f} s "
            f"({b['samples'] / b['wall_s']:.3g} samples/s), peak resident set "
            f"{b['peak_rss_gib']:.2f} GiB (limit 4 GiB); mass mean {b['mass_mean']:.9g} kg, "
            f"std {b['mass_std']:.6g} kg (first order {b['mass_first_order_std']:.6g} kg).",
            "",
        ]
    (RESULTS / "tolerance.md").write_text("\n".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--billion", action="store_true", help="the 10^9-sample run only")
    parser.add_argument("--child", type=float, default=None, help=argparse.SUPPRESS)
    parser.add_argument("-n", type=float, default=2**22, help="samples of the rate runs")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    if args.child is not None:
        billion_child(int(args.child))
        return
    data = _load()
    data["machine"] = (
        f"{machine().get('cpu', '?')}, {machine().get('logical_cpus', '?')} CPUs, "
        f"Python {sys.version.split()[0]}, numpy {np.__version__}"
    )
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    if args.billion:
        done = subprocess.run(
            [sys.executable, __file__, "--child", "1e9"],
            check=True,
            capture_output=True,
            text=True,
        )
        data["billion"] = {
            **json.loads(done.stdout.strip().splitlines()[-1]),
            "when": when,
            "load_1min_after": os.getloadavg()[0],
        }
    else:
        before = os.getloadavg()[0]
        data["rates"] = {
            **rates(int(args.n), args.rounds),
            "when": when,
            "load_1min_before": before,
        }
        data["stages"] = {**stages(2 * args.rounds + 1), "when": when}
    _write(data)
    print((RESULTS / "tolerance.md").read_text())


if __name__ == "__main__":
    main()
