"""Start-up: fresh processes, side by side (issue 15 item 3).

Each round runs every command once, in the same order, as a fresh interpreter (the operating
system's file cache warm after the first round); the figure is the median over the rounds:

- ``python -c pass`` (the interpreter itself, the reference) and ``python -c "import numpy"``;
- ``rigidparts box --length "250 mm" --json`` and ``rigidparts box --json`` (the console script
  beside the interpreter, or ``python -m rigidparts.commands``);
- ``python -c "import rigidparts"`` and ``python -c "import rigidparts.batch"`` (numba's cache
  warm: the kernels are compiled once before the rounds, when ``--compile`` is not given).

Also records which heavy modules the box command imported (none of pint, numba, scipy,
matplotlib, dask, trimesh, mujoco is expected). ``python benchmarks/startup.py [--rounds 10]``
prints a table; ``run.py`` calls :func:`measure`.
"""

from __future__ import annotations

import argparse
import json
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
    }  # fmt: skip


def _run(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


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
    for _ in range(rounds):
        for name, argv in todo.items():
            times[name].append(_run(argv))
    medians = {name: statistics.median(values) for name, values in times.items()}
    reference = medians["python -c pass"]
    return {
        "rounds": rounds,
        "median_s": medians,
        "min_s": {name: min(values) for name, values in times.items()},
        "over_python_s": {name: value - reference for name, value in medians.items()},
        "heavy_modules_of_box_command": heavy_modules_of_the_box_command(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=10)
    options = parser.parse_args(argv)
    result = measure(options.rounds)
    for name, value in result["median_s"].items():  # type: ignore[union-attr]
        print(f"{value * 1e3:8.1f} ms  {name}")
    print("heavy modules of the box command:", result["heavy_modules_of_box_command"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
