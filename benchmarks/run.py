"""The rigidparts benchmark suite: one command, writes a table, a JSON file and plots.

    python benchmarks/run.py            # full: more rounds (a few minutes)
    python benchmarks/run.py --quick    # the same figures, fewer rounds (under two minutes)

Writes ``benchmarks/results/results.md`` (a summary table of issue 15's figures, each beside
its reference, with the machine; then the details), ``results.json`` (every figure) and
``throughput.png`` / ``accuracy.png``. Parts: ``per_body.py`` (one body against Drake, unit
strings against floats), ``startup.py`` (fresh processes against ``python -c pass``),
``first_call.py``, ``throughput.py`` (the compiled kernel and the numpy engine against
``np.copyto`` of the outputs, N = 1e3 .. 1e7, ~4 GB of RAM at 1e7; dask's memory),
``big_models.py`` (export and simulation set-up of a 1000-body chain), ``accuracy.py``.
Benchmark-only dependencies: drake, pin (Pinocchio), trimesh, mujoco, matplotlib, mpmath
(``pip install 'rigidparts[test]'``); a missing peer is skipped. Not part of the unit tests.

Timings depend on what else the machine is doing: run it on a quiet machine. Every figure is
a median over interleaved rounds and every ratio the median of per-round ratios to a
reference measured in the same round, so a busy machine disturbs the ratios much less than
the absolute times.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import time
from pathlib import Path

import accuracy
import per_body
import startup
import throughput
from common import ROOT, machine

from rigidparts.fileio import atomic_path, atomic_write

RESULTS = Path(__file__).resolve().parent / "results"
STARTUP_BOX = "rigidparts box --length '250 mm' --json"
STARTUP_NUMPY = "python -c 'import numpy'"


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


def _ratio(value: float | None, target: float | None = None) -> str:
    if value is None:
        return "-"
    text = f"{value:.2f}x"
    if target is not None:
        text += " (met)" if value <= target else f" (target {target:g}x)"
    return text


def _row(results: dict, case: str) -> dict | None:
    return next((r for r in results["per_body"]["rows"] if r["case"] == case), None)


def summary(results: dict) -> list[str]:
    """The issue's table: each figure beside its reference, from the same rounds."""
    lines = [
        "## Summary (issue 15)",
        "",
        "Medians over interleaved rounds; each ratio is the median of the per-round ratios of a "
        "figure to its reference, measured side by side in one run.",
        "",
        "| what | rigidparts | reference | ratio | target |",
        "|---|---:|---|---:|---:|",
    ]
    pb = results["per_body"]
    for case, target in (
        (per_body.CONE_FLOATS, 2.0),
        (per_body.BOX_FLOATS, 2.0),
        ("rp.Cone (cylinder) unit strings + .inertia", 1.5),
        ("rp.Box unit strings + .inertia", 1.5),
    ):
        row = _row(results, case)
        if row is None:
            continue
        reference = _row(results, row["reference"]) if row["reference"] else None
        ref_text = (
            f"{row['reference']}: {reference['us_per_body']:.2f} us" if reference else "-"
        )
        lines.append(
            f"| `{case}` | {row['us_per_body']:.2f} us | {ref_text} | "
            f"{_ratio(row['ratio'])} | {target:g}x |"
        )
    others = [
        r for r in pb["rows"]
        if r["case"].startswith("rp.") and "unit strings" not in r["case"]
        and r["case"] not in (per_body.CONE_FLOATS, per_body.BOX_FLOATS)
    ]  # fmt: skip
    for row in others:
        lines.append(
            f"| `{row['case']}` | {row['us_per_body']:.2f} us | {row['reference']} | "
            f"{_ratio(row['ratio'])} | 2x (ideally) |"
        )
    s = results["startup"]
    med = s["median_s"]
    python = med["python -c pass"]
    batch_import = med["import rigidparts.batch"]
    lines += [
        f"| `rigidparts box --length '250 mm' --json` start-up | "
        f"{med[STARTUP_BOX] * 1e3:.0f} ms | `python -c pass`: {python * 1e3:.0f} ms | "
        f"{med[STARTUP_BOX] / python:.2f}x | < 300 ms |",
        f"| `rigidparts box --json` start-up | {med['rigidparts box --json'] * 1e3:.0f} ms | "
        f"`python -c pass`: {python * 1e3:.0f} ms | "
        f"{med['rigidparts box --json'] / python:.2f}x | |",
        f"| `import rigidparts.batch` (numba cache warm) | {batch_import * 1e3:.0f} ms | "
        f"`import numpy`: {med[STARTUP_NUMPY] * 1e3:.0f} ms | "
        f"{batch_import / med[STARTUP_NUMPY]:.2f}x | < 1 s |",
    ]
    cpu = s.get("median_cpu_s", {})
    for name in ("first rp.batch.cone, 1000 rows", "rigidparts tolerance cone, 1000 samples"):
        if name in med:
            lines.append(
                f"| {name}, fresh process (wall; CPU) | {med[name] * 1e3:.0f} ms; "
                f"{cpu.get(name, math.nan) * 1e3:.0f} ms | `python -c pass`: "
                f"{python * 1e3:.0f} ms | {med[name] / python:.1f}x | < 1 s |"
            )
    f = results["first_call"]
    lines.append(
        f"| first `rp.batch.cone` call in a fresh process, N = {f['n']:.0e} (numba and the "
        f"cached kernel load) | {f['batch_first_s'] * 1e3:.0f} ms | warm copy "
        f"{f['copy_warm_best_s'] * 1e3:.1f} ms | {f['first_call_ratio_to_warm_copy']:.1f}x | |"
    )
    for r in results["throughput"]["rows"]:
        if "numpy engine ratio" in r and r["n"] >= 1_000_000:
            lines.append(
                f"| `rp.batch.cone`, N = {r['n']:.0e}, numpy engine (no numba) | "
                f"{r['numpy engine s'] * 1e3:.1f} ms | `np.copyto` of the outputs: "
                f"{r['copy s'] * 1e3:.2f} ms; plain numpy {r['plain numpy s'] * 1e3:.1f} ms | "
                f"{_ratio(r['numpy engine ratio'])} | 15x |"
            )
    for r in results["throughput"]["rows"]:
        if r["n"] >= 1_000_000:
            lines.append(
                f"| `rp.batch.cone`, N = {r['n']:.0e}, compiled kernel | "
                f"{r['batch s'] * 1e3:.1f} ms | `np.copyto` of the outputs: "
                f"{r['copy s'] * 1e3:.2f} ms | {_ratio(r['batch ratio'])} | 1.5x |"
            )
    d = results.get("dask_reduction")
    if d:
        lines.append(
            f"| dask: `result.mass.sum().compute()` over {d['n']:.0e} rows (chunks of "
            f"{d['chunk']:.0e}) | {d['seconds']:.1f} s, peak memory +"
            f"{d['peak_growth_bytes'] / 2**20:.0f} MiB | one float64 array of the rows: "
            f"{d['one_float64_array_bytes'] / 2**20:.0f} MiB | "
            f"{d['peak_growth_bytes'] / d['one_float64_array_bytes']:.2f}x | bounded |"
        )
    big = results.get("big_models")
    if big and big.get("medians"):
        m = big["medians"]
        compile_ = m.get("MuJoCo compiles the MJCF file")
        for name, value in m.items():
            if name.startswith("export"):
                lines.append(
                    f"| {name} of a {big['bodies']}-body chain | {value:.3f} s | | | < 1 s |"
                )
        setup = m.get("simulate set-up (1 step)")
        if setup is not None and compile_:
            lines.append(
                f"| `simulate` set-up of a {big['bodies']}-body chain | {setup:.3f} s | MuJoCo "
                f"compiles the exported MJCF: {compile_:.3f} s | {setup / compile_:.2f}x | "
                "< max(2 s, 3x compile) |"
            )
    elif big:
        lines.append(f"| big models | {big.get('error', 'not measured')} | | | |")
    return [*lines, ""]


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
        f"{' --quick' if results['quick'] else ''}` ({results['seconds']:.0f} s).",
        "",
        *summary(results),
        "## Batch throughput against the copy bound",
        "",
        "`rp.batch.cone` on N hollow frustums along the canonical axis (thin walls, default "
        "material) vs `np.copyto` of an (N, 14) float64 array (the outputs' size) into a "
        "preallocated one; medians of interleaved rounds, same process; ratios: medians of "
        f"the per-round ratios to the copy. Engine: {t['engine']}, {t['threads']} threads; "
        "non-temporal stores from "
        f"{t['streaming_threshold']} rows on (default). The variants are recorded for the "
        "gating of the non-temporal stores.",
        "",
        "| N | copy (ms) | batch (ms) | ratio | ns/body | non-temporal ratio | normal stores "
        "ratio | 1 thread ratio | numpy engine ratio | plain numpy ratio |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in t["rows"]:
        lines.append(
            f"| {r['n']:.0e} | {r['copy s'] * 1e3:.3f} | {r['batch s'] * 1e3:.3f} | "
            f"{r['batch ratio']:.2f} | {r['ns per body']:.1f} | "
            f"{_fmt(r.get('batch, non-temporal stores ratio'))} | "
            f"{_fmt(r.get('batch, normal stores ratio'))} | "
            f"{_fmt(r.get('batch, 1 thread ratio'))} | "
            f"{_fmt(r.get('numpy engine ratio'), 1)} | {_fmt(r.get('plain numpy ratio'), 1)} |"
        )
    f = results["first_call"]
    mem = results["memory"]
    lines += [
        "",
        f"Fresh process, N = {f['n']:.0e}: `import rigidparts` {f['import_rigidparts_s']:.2f} s, "
        f"`import rigidparts.batch` {f['import_rigidparts_batch_s']:.2f} s in all (numba loads "
        f"on the first call); first `rp.batch.cone` call {f['batch_first_s'] * 1e3:.1f} ms "
        "(numba's import and the cached kernel's load included) vs warm copy "
        f"{f['copy_warm_best_s'] * 1e3:.1f} ms (the first copy, into fresh memory, took "
        f"{f['copy_first_s'] * 1e3:.1f} ms); later calls {f['batch_warm_best_s'] * 1e3:.1f} ms "
        f"(ratio {f['warm_ratio']:.2f}).",
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
    s = results["startup"]
    lines += [
        "## Start-up",
        "",
        f"Fresh processes, {s['rounds']} interleaved rounds after a warm-up round; median and "
        "(min) wall time. Heavy modules the box command imported: "
        f"{s['heavy_modules_of_box_command'] or 'none'}.",
        "",
        "| command | median (ms) | min (ms) | over `python -c pass` (ms) | CPU, median (ms) |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, value in s["median_s"].items():
        lines.append(
            f"| `{name}` | {value * 1e3:.0f} | {s['min_s'][name] * 1e3:.0f} | "
            f"{s['over_python_s'][name] * 1e3:.0f} | "
            f"{s.get('median_cpu_s', {}).get(name, math.nan) * 1e3:.0f} |"
        )
    lines += [
        "",
        "## Per body",
        "",
        "One body per call, building it and reading its 3x3 inertia; medians over "
        f"{results['per_body']['rounds']} interleaved rounds; ratio: median of the per-round "
        "ratios to the reference. Drake and Pinocchio have a solid cylinder, box and sphere "
        "only (no cone, frustum, hollow body or I-beam: those stand against the nearest "
        "solid); trimesh primitives build a mesh.",
        "",
        "| case | us/body | min us/body | bodies/s | ratio | reference |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for r in results["per_body"]["rows"]:
        lines.append(
            f"| {r['case']} | {r['us_per_body']:.2f} | {r['min_us_per_body']:.2f} | "
            f"{r['bodies_per_s']:,.0f} | {_fmt(r['ratio'])} | {r['reference'] or '-'} |"
        )
    lines.append("")
    big = results.get("big_models")
    if big and big.get("table"):
        lines += ["## Big models", "", "`benchmarks/big_models.py` (run in a fresh process):", ""]
        lines += [big["table"], ""]
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
    left.loglog(n, [r["ns per body"] for r in rows], "o-", label="rp.batch.cone")
    left.loglog(n, [r["copy s"] / r["n"] * 1e9 for r in rows], "k:", label="np.copyto (N, 14)")
    for key, style, label in (
        ("numpy engine s", "^-", "numpy engine (no numba)"),
        ("plain numpy s", "v-", "plain numpy expressions"),
    ):
        pts = [(r["n"], r[key] / r["n"] * 1e9) for r in rows if key in r]
        if pts:
            left.loglog(*zip(*pts, strict=True), style, label=label)
    left.set_xlabel("N bodies")
    left.set_ylabel("ns per body")
    left.set_title("Batch cost per body (medians)")
    left.legend(fontsize=8)
    left.grid(True, which="both", alpha=0.3)
    right.loglog(n, [r["batch ratio"] for r in rows], "o-", label="batch / copy")
    for key, style, label in (
        ("batch, 1 thread ratio", "s--", "1 thread / copy"),
        ("batch, non-temporal stores ratio", "x:", "non-temporal stores / copy"),
        ("batch, normal stores ratio", "+:", "normal stores / copy"),
    ):
        pts = [(r["n"], r[key]) for r in rows if key in r]
        if pts:
            right.loglog(*zip(*pts, strict=True), style, label=label)
    right.axhline(1.5, color="g", ls=":", lw=1, label="target (1.5x)")
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


def big_models(bodies: int, rounds: int) -> dict[str, object]:
    """``benchmarks/big_models.py`` in a fresh process (its own figures and table)."""
    script = Path(__file__).resolve().parent / "big_models.py"
    if not script.exists():
        return {"error": "benchmarks/big_models.py is missing"}
    done = subprocess.run(
        [sys.executable, str(script), "--bodies", str(bodies), "--rounds", str(rounds),
         "--no-run", "--json"],
        capture_output=True, text=True, cwd=script.parent,
    )  # fmt: skip
    if done.returncode != 0:
        return {"error": f"failed: {done.stderr.strip().splitlines()[-1:]}"}
    out = done.stdout.strip().splitlines()
    figures = json.loads(out[-1])
    return {**figures, "table": "\n".join(out[:-1]).strip()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds (under two minutes)")
    options = parser.parse_args(argv)
    quick = options.quick
    started = time.perf_counter()
    sizes = [10**k for k in range(3, 8)]

    results: dict[str, object] = {"quick": quick, "machine": machine()}
    print("first call in a fresh process ...", file=sys.stderr)
    results["first_call"] = first_call(1_000_000)
    print("start-up ...", file=sys.stderr)
    results["startup"] = startup.measure(rounds=10)
    print("per body ...", file=sys.stderr)
    results["per_body"] = per_body.measure(rounds=11 if quick else 21)
    print("throughput ...", file=sys.stderr)
    results["throughput"] = throughput.measure(sizes, quick=quick)
    results["memory"] = throughput.memory()
    try:
        results["dask"] = throughput.dask_check()
        results["dask_reduction"] = throughput.dask_reduction(10**8)
    except ImportError:
        results["dask"] = results["dask_reduction"] = None
    print("big models ...", file=sys.stderr)
    results["big_models"] = big_models(1000, 2 if quick else 5)
    print("accuracy ...", file=sys.stderr)
    results["meshes"] = accuracy.meshes()
    results["thin_walls"] = accuracy.thin_walls()
    results["seconds"] = time.perf_counter() - started

    RESULTS.mkdir(parents=True, exist_ok=True)
    atomic_write(RESULTS / "results.json", json.dumps(results, indent=1, default=float) + "\n")
    atomic_write(RESULTS / "results.md", markdown(results))
    plots(results)
    print(
        f"wrote {(RESULTS / 'results.md').relative_to(ROOT)} (+ .json, .png) in "
        f"{results['seconds']:.0f} s",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
