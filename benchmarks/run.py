"""The rigidparts benchmark suite: one command, writes a table, a JSON file and plots.

    python benchmarks/run.py            # full: N = 1e3 .. 1e7 (a few minutes, ~2 GB of RAM)
    python benchmarks/run.py --quick    # N = 1e3 .. 1e6, fewer rounds (about a minute)

Writes ``benchmarks/results/results.md`` (the tables the README quotes, with the machine),
``results.json`` (every figure) and ``throughput.png`` / ``accuracy.png``. Benchmark-only
dependencies: drake, pin (Pinocchio), trimesh, mujoco, matplotlib, mpmath (``pip install
'rigidparts[test]'``); a missing peer is skipped. Not part of the unit tests.

Timings depend on what else the machine is doing: run it on a quiet machine. Every ratio is
measured side by side (interleaved rounds, best of each), so a busy machine disturbs the
ratios much less than the absolute times.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from pathlib import Path

import accuracy
import per_body
import throughput
from common import ROOT, machine

from rigidparts.fileio import atomic_path, atomic_write

RESULTS = Path(__file__).resolve().parent / "results"


def first_call(n: int) -> dict[str, object]:
    """``benchmarks/first_call.py`` in a fresh interpreter (numba loads its cached kernel)."""
    script = Path(__file__).resolve().parent / "first_call.py"
    done = subprocess.run(
        [sys.executable, str(script), str(n)],
        capture_output=True,
        text=True,
        check=True,
        cwd=script.parent,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def _fmt(value: float | None, digits: int = 2) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value:.{digits}f}"


def _sci(value: float) -> str:
    if value == 0.0:
        return "0"
    if math.isinf(value):
        return "inf"
    return f"{value:.1e}"


def markdown(results: dict) -> str:
    m = results["machine"]
    t = results["throughput"]
    lines = [
        "# rigidparts benchmarks",
        "",
        f"Machine: {m['cpu']}, {m['logical_cpus']} logical CPUs, {m['memory']}; {m['os']}; "
        f"Python {m['python']}; numpy {m['versions']['numpy']}, numba "
        f"{m['versions']['numba']}; {m['date']} (1-min load at start: "
        f"{_fmt(m['load_average_1min_at_start'])}). Command: `python benchmarks/run.py"
        f"{' --quick' if results['quick'] else ''}`.",
        "",
        "## Batch throughput against the copy bound",
        "",
        "`rp.batch.cone` on N hollow frustums along the canonical axis (thin walls, default "
        "material) vs `np.copyto` of an (N, 14) float64 array (the outputs' size) into a "
        "preallocated one; best of interleaved rounds, same process. Ratio = batch / copy "
        f"(required <= 3, aim 1.5). Engine: {t['engine']}, {t['threads']} threads.",
        "",
        "| N | batch (ms) | copy (ms) | ratio | 1 thread ratio | M bodies/s | ns/body "
        "| plain numpy ratio | numpy engine ratio |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in t["rows"]:
        lines.append(
            f"| {r['n']:.0e} | {r['batch_s'] * 1e3:.3f} | {r['copy_s'] * 1e3:.3f} | "
            f"{r['ratio']:.2f} | {_fmt(r.get('ratio_1_thread'))} | "
            f"{r['bodies_per_s'] / 1e6:.1f} | {r['ns_per_body']:.1f} | "
            f"{_fmt(r.get('plain_numpy_ratio'), 1)} | {_fmt(r.get('numpy_engine_ratio'), 0)} |"
        )
    f = results["first_call"]
    mem = results["memory"]
    lines += [
        "",
        f"Fresh process, N = {f['n']:.0e}: `import rigidparts` {f['import_rigidparts_s']:.2f} s, "
        f"`import rigidparts.batch` (numba and the cached kernels) "
        f"{f['import_rigidparts_batch_s']:.2f} s in all; first `rp.batch.cone` call "
        f"{f['batch_first_s'] * 1e3:.1f} ms vs warm copy {f['copy_warm_best_s'] * 1e3:.1f} ms "
        f"(ratio {f['first_call_ratio_to_warm_copy']:.2f}; the first copy, into fresh memory, "
        f"took {f['copy_first_s'] * 1e3:.1f} ms); later calls {f['batch_warm_best_s'] * 1e3:.1f}"
        f" ms (ratio {f['warm_ratio']:.2f}).",
        "",
        f"Memory, N = {mem['n']:.0e}: outputs {mem['output_bytes'] / 2**20:.1f} MiB; peak "
        f"allocated during the call {mem['peak_bytes'] / 2**20:.1f} MiB, i.e. temporaries "
        f"{mem['temporary_bytes'] / 2**20:.2f} MiB = {mem['temporary_over_output']:.3f} x the "
        "outputs (tracemalloc).",
        "",
    ]
    d = results.get("dask")
    if d:
        lines += [
            f"Dask, N = {d['n']:.0e} in chunks of {d['chunk']}: computed in "
            f"{d['compute_s'] * 1e3:.1f} ms, bitwise equal to the numpy result: "
            f"{d['bitwise_equal_to_numpy']}.",
            "",
        ]
    lines += [
        "## Per body",
        "",
        "One body per call, building it and reading its 3x3 inertia; best of interleaved "
        "rounds. Drake and Pinocchio have a solid cylinder and box only (no cone, frustum or "
        "hollow body); trimesh primitives build a mesh.",
        "",
        "| case | shape | us/body | bodies/s | vs Drake |",
        "|---|---|---:|---:|---:|",
    ]
    for r in results["per_body"]["rows"]:
        lines.append(
            f"| {r['case']} | {r['shape']} | {r['us_per_body']:.2f} | "
            f"{r['bodies_per_s']:,.0f} | {_fmt(r['vs_drake'])} |"
        )
    lines.append("")
    lines += _mesh_summary(results["meshes"]["rows"])
    lines += _thin_wall_summary(results["thin_walls"]["rows"])
    lines += [
        "## Details",
        "",
        "Mesh inertia, every tool and mode (relative errors):",
        "",
        "| body | sections | tool | mass | I transverse | I axial |",
        "|---|---:|---|---:|---:|---:|",
    ]
    for r in results["meshes"]["rows"]:
        lines.append(
            f"| {r['body']} | {r['sections']} | {r['tool']} | "
            f"{r['mass_relative_error'] * 100:+.3f} % | "
            f"{r['i_transverse_relative_error'] * 100:+.3f} % | "
            f"{r['i_axial_relative_error'] * 100:+.3f} % |"
        )
    lines += [
        "",
        "Thin walls, every method (relative errors against 50 digits):",
        "",
        "| body | wall | method | mass | I_xx | I_yy |",
        "|---|---:|---|---:|---:|---:|",
    ]
    for r in results["thin_walls"]["rows"]:
        lines.append(
            f"| {r['body']} | {r['wall']:.0e} | {r['method']} | "
            f"{_sci(r['mass_relative_error'])} | {_sci(r['i_xx_relative_error'])} | "
            f"{_sci(r['i_yy_relative_error'])} |"
        )
    return "\n".join(lines) + "\n"


def _mesh_summary(rows: list[dict]) -> list[str]:
    def error(body: str, tool: str, n: int, key: str = "mass_relative_error") -> str:
        for r in rows:
            if r["body"] == body and r["tool"] == tool and r["sections"] == n:
                return f"{r[key] * 100:+.2f} %"
        return "-"

    lines = [
        "## Accuracy of mesh inertia",
        "",
        "Relative error of the mass (and of the cone's axial moment) against the exact closed "
        "forms: steel; solid cone R = 0.1 m, L = 1 m; tube R = 0.1 m, r = 0.09 m, L = 1 m; "
        "meshes by trimesh with `sections` segments around (its default for a cone: 32), "
        "inertia by trimesh and by MuJoCo (`<mesh inertia=...>`; MuJoCo agrees with trimesh "
        "on the solid cone in every mode). All moments: Details below.",
        "",
        "| sections | cone mass | cone I axial | tube mass, trimesh | tube mass, MuJoCo "
        "default (legacy) | MuJoCo convex | MuJoCo exact |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for n in sorted({r["sections"] for r in rows}):
        lines.append(
            f"| {n} | {error('solid cone', 'trimesh', n)} | "
            f"{error('solid cone', 'trimesh', n, 'i_axial_relative_error')} | "
            f"{error('tube', 'trimesh', n)} | "
            f"{error('tube', 'MuJoCo inertia=default (legacy)', n)} | "
            f"{error('tube', 'MuJoCo inertia=convex', n)} | "
            f"{error('tube', 'MuJoCo inertia=exact', n)} |"
        )
    return [*lines, ""]


def _thin_wall_summary(rows: list[dict]) -> list[str]:
    def error(body: str, method: str, wall: float, key: str) -> str:
        for r in rows:
            if r["body"] == body and r["method"].startswith(method) and r["wall"] == wall:
                if key == "max":
                    return _sci(max(r[k] for k in r if k.endswith("_relative_error")))
                return _sci(r[key])
        return "-"

    lines = [
        "## Thin walls: the printed formulas in float64",
        "",
        "Relative error against mpmath at 50 digits (tests/reference.py) for a tube "
        "(R = 0.05 m, L = 0.7 m) and a hollow box (0.2 x 0.1 m, L = 1.3 m) whose walls are "
        "`wall` times the outer size. Printed: spec/cone.txt, spec/box.txt as written (box "
        "I_xx: its I_yy and I_zz carry the typo NOTES.md describes, wrong at any wall); "
        "outer - inner: the textbook subtraction; rigidparts: the largest error of mass, "
        "I_xx and I_yy.",
        "",
        "| wall | tube I_yy, printed | tube I_yy, outer - inner | tube, rigidparts | "
        "box I_xx, printed | box I_xx, outer - inner | box, rigidparts |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for wall in sorted({r["wall"] for r in rows}, reverse=True):
        lines.append(
            f"| {wall:.0e} | {error('tube', 'printed', wall, 'i_yy_relative_error')} | "
            f"{error('tube', 'outer', wall, 'i_yy_relative_error')} | "
            f"{error('tube', 'rigidparts', wall, 'max')} | "
            f"{error('hollow box', 'printed', wall, 'i_xx_relative_error')} | "
            f"{error('hollow box', 'outer', wall, 'i_xx_relative_error')} | "
            f"{error('hollow box', 'rigidparts', wall, 'max')} |"
        )
    return [*lines, ""]


def plots(results: dict) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = results["throughput"]["rows"]
    n = [r["n"] for r in rows]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    left.loglog(n, [r["ns_per_body"] for r in rows], "o-", label="rp.batch.cone")
    if all("batch_1_thread_s" in r for r in rows):
        left.loglog(n, [r["batch_1_thread_s"] / r["n"] * 1e9 for r in rows], "s--",
                    label="rp.batch.cone, 1 thread")  # fmt: skip
    left.loglog(n, [r["copy_s"] / r["n"] * 1e9 for r in rows], "k:", label="np.copyto (N, 14)")
    plain = [(r["n"], r["plain_numpy_s"] / r["n"] * 1e9) for r in rows if "plain_numpy_s" in r]
    if plain:
        left.loglog(*zip(*plain, strict=True), "^-", label="plain numpy expressions")
    left.set_xlabel("N bodies")
    left.set_ylabel("ns per body")
    left.set_title("Batch cost per body")
    left.legend(fontsize=8)
    left.grid(True, which="both", alpha=0.3)
    right.loglog(n, [r["ratio"] for r in rows], "o-", label="batch / copy")
    if all("ratio_1_thread" in r for r in rows):
        right.loglog(n, [r["ratio_1_thread"] for r in rows], "s--", label="1 thread / copy")
    right.axhline(3.0, color="r", ls="--", lw=1, label="required (3x)")
    right.axhline(1.5, color="g", ls=":", lw=1, label="aim (1.5x)")
    right.set_xlabel("N bodies")
    right.set_ylabel("time / copy time")
    right.set_title("Against the copy bound")
    right.set_ylim(0.5, 50)
    right.legend(fontsize=8)
    right.grid(True, which="both", alpha=0.3)
    fig.suptitle(results["machine"]["cpu"], fontsize=9)
    fig.tight_layout()
    with atomic_path(RESULTS / "throughput.png") as path:
        fig.savefig(path, format="png", dpi=110)
    plt.close(fig)

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for ax, body in zip(axes, ("solid cone", "tube"), strict=True):
        tools = sorted({r["tool"] for r in results["meshes"]["rows"] if r["body"] == body})
        for tool in tools:
            pts = [
                (r["sections"], abs(r["mass_relative_error"]))
                for r in results["meshes"]["rows"]
                if r["body"] == body and r["tool"] == tool
            ]
            ax.loglog(*zip(*pts, strict=True), "o-", label=tool)
        ax.set_xlabel("sections (segments around)")
        ax.set_ylabel("|relative error of mass|")
        ax.set_title(f"Mesh mass vs exact: {body}")
        ax.legend(fontsize=7)
        ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    with atomic_path(RESULTS / "accuracy.png") as path:
        fig.savefig(path, format="png", dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="N up to 1e6, fewer rounds")
    options = parser.parse_args(argv)
    sizes = [10**k for k in range(3, 7 if options.quick else 8)]

    results: dict[str, object] = {"quick": options.quick, "machine": machine()}
    print("first call in a fresh process ...", file=sys.stderr)
    results["first_call"] = first_call(1_000_000)
    print("throughput ...", file=sys.stderr)
    results["throughput"] = throughput.measure(sizes)
    results["memory"] = throughput.memory()
    try:
        results["dask"] = throughput.dask_check()
    except ImportError:
        results["dask"] = None
    print("per body ...", file=sys.stderr)
    results["per_body"] = per_body.measure(rounds=5 if options.quick else 9)
    print("accuracy ...", file=sys.stderr)
    results["meshes"] = accuracy.meshes()
    results["thin_walls"] = accuracy.thin_walls()

    RESULTS.mkdir(parents=True, exist_ok=True)
    atomic_write(RESULTS / "results.json", json.dumps(results, indent=1, default=float) + "\n")
    atomic_write(RESULTS / "results.md", markdown(results))
    plots(results)
    print(f"wrote {(RESULTS / 'results.md').relative_to(ROOT)} (+ .json, .png)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
