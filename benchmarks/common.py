"""Shared helpers of the benchmark suite: timing, inputs, the machine description."""

from __future__ import annotations

import datetime
import importlib.metadata
import os
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
# The independent references of the unit tests (textbook formulas, 50-digit mpmath).
sys.path.insert(0, str(ROOT / "tests"))


def best_time(function: Callable[[], object], *, repeat: int, number: int = 1) -> float:
    """Best wall time of ``number`` calls, over ``repeat`` rounds, per call (s)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            function()
        best = min(best, (time.perf_counter() - start) / number)
    return best


def calls_per_round(function: Callable[[], object], target: float = 0.02) -> int:
    """How many calls make a round of about ``target`` seconds."""
    start = time.perf_counter()
    function()
    once = max(time.perf_counter() - start, 1e-7)
    return max(1, int(target / once))


def hollow_cones(n: int, seed: int = 0) -> dict[str, np.ndarray]:
    """``n`` hollow frustums along the canonical axis: the issue's benchmark case."""
    rng = np.random.default_rng(seed)
    radius_a = rng.uniform(0.02, 0.2, n)
    radius_b = rng.uniform(0.02, 0.2, n)
    wall = 10.0 ** rng.uniform(-6, -1, n)  # wall / radius
    return {
        "length": rng.uniform(0.1, 2.0, n),
        "radius_a": radius_a,
        "radius_b": radius_b,
        "inner_radius_a": radius_a * (1.0 - wall),
        "inner_radius_b": radius_b * (1.0 - wall),
    }


def _version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def machine() -> dict[str, object]:
    """CPU model, cores, memory, OS, Python and library versions, date."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                memory = f"{int(line.split()[1]) / 2**20:.1f} GiB"
    except OSError:
        pass
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = None
    return {
        "cpu": cpu,
        "logical_cpus": os.cpu_count(),
        "memory": memory,
        "load_average_1min_at_start": load,
        "os": platform.platform(),
        "python": platform.python_version(),
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "versions": {
            name: _version(name)
            for name in (
                "rigidparts",
                "numpy",
                "numba",
                "dask",
                "drake",
                "pin",
                "trimesh",
                "mujoco",
                "mpmath",
            )
        },
    }
