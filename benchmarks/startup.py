"""Start-up: fresh processes, side by side (issue 15 item 3).

Each round runs every command once, in the same order, as a fresh interpreter (the operating
system's file cache warm after the first round); the figure is the median over the rounds:

- ``python -c pass`` (the interpreter itself, the reference) and ``python -c "import numpy"``;
- ``rigidparts box --length "250 mm" --json`` and ``rigidparts box --json`` (the console script
  beside the interpreter, or ``python -m rigidparts.commands``);
- ``python -c "import rigidparts"`` and ``python -c "import rigidparts.batch"`` (numba's cache
  warm: the kernels are compiled once before the rounds, when ``--compile`` is not given);
- a fresh process's first ``rp.batch.cone`` call on 1000 rows, and ``rigidparts tolerance cone
  --radius-a "0.4 m +- 0.1 mm" --samples 1000`` (issue 22: each under 1 s).

Each figure is given as wall time and as the child's CPU time (user + system), the latter
being what a quiet machine shows as wall time for these single-threaded runs.

Also records which heavy modules the box command imported (none of pint, numba, scipy,
matplotlib, dask, trimesh, mujoco is expected). ``python benchmarks/startup.py [--rounds 10]``
prints a table; ``run.py`` calls :func:`measure`.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HEAVY = ("pint", "numba", "scipy", "matplotlib", "dask", "trimesh", "mujoco", "llvmlite")


def _command() -> list[str]:
    script = Path(sys.executable).parent / "rigidparts"
    return [str(script)] if script.exists() else [sys.executable, "-m", "rigidparts.commands"]


def cases() -> dict[str, list[str]]:
    """Name -> argv of each measured process."""
    python = sys.executable
    command = _command()
    return {
        "python -c pass": [python, "-c", "pass"],
        "python -c 'import numpy'": [python, "-c", "import numpy"],
        "rigidparts box --length '250 mm' --json": [*command, "box", "--length", "250 mm",
                                                     "--json"],
        "rigidparts box --json": [*command, "box", "--json"],
        "import rigidparts": [python, "-c", "import rigidparts"],
        "import rigidparts.batch": [python, "-c", "import rigidparts.batch"],
        "first rp.batch.cone, 1000 rows": [python, "-c", FIRST_BATCH],
        "rigidparts tolerance cone, 1000 samples": [*command, "tolerance", "cone",
                                                     "--radius-a", "0.4 m +- 0.1 mm",
                                                     "--samples", "1000"],
    }  # fmt: skip


#: A fresh process's first batch call on 1000 rows (numpy engine: numba not imported).
FIRST_BATCH = (
    "import numpy as np, rigidparts as rp\n"
    "rp.batch.cone(length=np.linspace(0.5, 1.0, 1000), radius_a=0.05, radius_b=0.03,"
    " inner_radius_a=0.04, inner_radius_b=0.02)"
)


def _run(argv: list[str]) -> tuple[float, float]:
    """(wall s, CPU s: user + system of the child) of one fresh process. The CPU time is what
    a quiet machine would show as wall time for a single-threaded start-up; on a loaded
    machine the wall time also counts waiting for a core."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def heavy_modules_of_the_box_command() -> list[str]:
    """The heavy modules ``rigidparts box --length '250 mm' --json`` imports (expected: none)."""
    code = (
        "import sys, io, contextlib\n"
        "from rigidparts.commands import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['box', '--length', '250 mm', '--json'])\n"
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r})))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1].replace("'", '"'))


def measure(rounds: int = 10) -> dict[str, object]:
    """Median wall time (s) of each case over ``rounds`` interleaved rounds, after one warm-up
    round (which also compiles or loads numba's cached kernels)."""
    todo = cases()
    for argv in todo.values():  # warm-up: file cache, numba's disk cache, .pyc files
        _run(argv)
    times: dict[str, list[float]] = {name: [] for name in todo}
    cpu: dict[str, list[float]] = {name: [] for name in todo}
    for _ in range(rounds):
        for name, argv in todo.items():
            wall, used = _run(argv)
            times[name].append(wall)
            cpu[name].append(used)
    medians = {name: statistics.median(values) for name, values in times.items()}
    reference = medians["python -c pass"]
    return {
        "rounds": rounds,
        "median_s": medians,
        "median_cpu_s": {name: statistics.median(values) for name, values in cpu.items()},
        "min_s": {name: min(values) for name, values in times.items()},
        "over_python_s": {name: value - reference for name, value in medians.items()},
        "heavy_modules_of_box_command": heavy_modules_of_the_box_command(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=10)
    options = parser.parse_args(argv)
    result = measure(options.rounds)
    used = result["median_cpu_s"]
    for name, value in result["median_s"].items():  # type: ignore[union-attr]
        print(f"{value * 1e3:8.1f} ms wall {used[name] * 1e3:8.1f} ms CPU  {name}")  # type: ignore[index]
    print("heavy modules of the box command:", result["heavy_modules_of_box_command"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
