"""Domain randomization (issue 24 part 1): 4096 environments x 30 bodies resampled.

``python benchmarks/randomize.py`` builds a 30-body serial chain (10 hollow cones, 10 hollow
boxes, 10 cylinders on revolute joints, three axes) and times ``rp.randomize`` on it, pinned to
one core (``os.sched_setaffinity``), best of 30 rounds after a warm-up (numba's kernels
compiled or loaded from its cache), for these specs:

- ``density``: ``{"*.density": "+- 1 %"}`` (30 bodies rebuilt through ``rp.batch``);
- ``issue``: the issue's example: one length, one mass, every density;
- ``all``: every body's length and density (60 parameters).

Each with engine ``numba`` (when installed) and ``numpy``, fresh (new arrays: their page faults
are part of the time) and refilling the previous result's arrays (``out=``, an episode loop).
For scale, the batch kernel alone on the same 122,880 rows (``rp.batch.cone``, one call).
Writes
``benchmarks/results/randomize.json`` and prints a Markdown table (docs/randomize.md quotes it).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from common import best_time, machine

import rigidparts as rp

ENVS = 4096
BODIES = 30


def chain(bodies: int = BODIES) -> rp.Model:
    """A serial chain: cone, box, cylinder, ... on revolute joints about z, y, x in turn."""
    model = rp.Model(name="chain")
    previous = None
    for i in range(bodies):
        name = f"link{i}"
        if i % 3 == 0:
            body = rp.Cone(length=0.3, radius_a=0.04, radius_b=0.03, inner_radius_a=0.035,
                           inner_radius_b=0.025, material="aluminium")  # fmt: skip
        elif i % 3 == 1:
            body = rp.Box(length=0.25, width=0.05, height=0.04, inner_width=0.04,
                          inner_height=0.03, material="aluminium")  # fmt: skip
        else:
            body = rp.Cylinder(length=0.2, radius=0.03, material="steel")
        model.add_body(name, body)
        parent = "world" if previous is None else f"{previous}.frame_b"
        axis = [(0, 0, 1), (0, 1, 0), (1, 0, 0)][i % 3]
        kind = "fixed" if previous is None else "revolute"
        model.add_joint(f"j{i}", kind, parent, f"{name}.frame_a", axis=axis if kind != "fixed"
                        else None)  # fmt: skip
        previous = name
    return model


SPECS = {
    "density": {"*.density": "+- 1 %"},
    "issue": {"link3.length": "0.25 m +- 2 %", "link29.mass": "+- 10 %", "*.density": "+- 1 %"},
    "all": {"*.length": "+- 2 %", "*.density": "+- 1 %"},
}


def main() -> None:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    import numpy as np

    model = chain()
    rows = []
    engines = ["numpy"]
    try:
        import numba  # noqa: F401

        engines.insert(0, "numba")
    except ImportError:
        pass
    for label, spec in SPECS.items():
        for engine in engines:
            previous = rp.randomize(model, spec, envs=ENVS, seed=1, engine=engine)

            def fresh(spec=spec, engine=engine) -> object:
                return rp.randomize(model, spec, envs=ENVS, seed=1, episode=0, engine=engine)

            def refill(spec=spec, engine=engine, previous=previous) -> object:
                return rp.randomize(model, spec, envs=ENVS, seed=1, episode=1, engine=engine,
                                    out=previous)  # fmt: skip

            rows.append({"spec": label, "engine": engine, "envs": ENVS, "bodies": BODIES,
                         "parameters": len(previous.samples),
                         "ms_fresh": best_time(fresh, repeat=30) * 1e3,
                         "ms_out": best_time(refill, repeat=30) * 1e3})  # fmt: skip
    length = np.random.default_rng(0).uniform(0.29, 0.31, ENVS * BODIES)
    for engine in engines:

        def kernel(engine=engine) -> object:
            return rp.batch.cone(length=length, radius_a=0.04, radius_b=0.03,
                                 inner_radius_a=0.035, inner_radius_b=0.025, density=2700.0,
                                 engine=engine, threads=False)  # fmt: skip

        kernel()
        ms = best_time(kernel, repeat=30) * 1e3
        rows.append({"spec": "batch kernel alone", "engine": engine, "envs": ENVS,
                     "bodies": BODIES, "parameters": 1, "ms_fresh": ms, "ms_out": ms})  # fmt: skip
    out = {"machine": machine(), "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
           "results": rows}  # fmt: skip
    path = Path(__file__).resolve().parent / "results" / "randomize.json"
    path.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    print("| spec | engine | varied parameters | fresh arrays (ms) | out= (ms) |")
    print("|---|---|---|---|---|")
    for row in rows:
        print(f"| {row['spec']} | {row['engine']} | {row['parameters']} | "
              f"{row['ms_fresh']:.1f} | {row['ms_out']:.1f} |")  # fmt: skip
    print(f"(written to {path})", file=sys.stderr)


if __name__ == "__main__":
    main()
