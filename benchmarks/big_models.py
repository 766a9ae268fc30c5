"""Big models (issue 15 item 5): a chain of N bodies on revolute joints, exported to MJCF, URDF
and SDF, and set up for simulation, side by side with MuJoCo's own compile of the exported files.

    python benchmarks/big_models.py                  # 1000 boxes, 5 interleaved rounds
    python benchmarks/big_models.py --shape cone     # meshes (one shared mesh)
    python benchmarks/big_models.py --bodies 400 --rounds 3 --json

Every figure is the median over interleaved rounds (each round runs every step once, in the
same order), in one process after a warm-up round (imports and first-call costs excluded: the
start-up is measured by ``first_call.py``). Targets: export under 1 s in every format;
``simulate`` set-up under 2 s or within 3x MuJoCo's compile of the exported MJCF, whichever is
larger. "simulate set-up" is ``rp.simulate`` of one step (its set-up: the MJCF in memory,
MuJoCo's compile of it, the initial state; one step of the chain costs about a millisecond).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import rigidparts as rp
from rigidparts.model import Model


def chain(n: int, shape: str = "box") -> Model:
    """``n`` equal links, each hinged at the previous one's frame_b (about y), hanging along
    -z: 0.1 m steel boxes (native primitives) or cones (meshes)."""
    model = Model(f"chain{n}")
    parent = "world"
    for i in range(n):
        if shape == "box":
            body = rp.Box(length=0.1, width=0.02, height=0.02, axis=(0, 0, -1))
        else:
            body = rp.Cone(length=0.1, radius_a=0.02, radius_b=0.01, axis=(0, 0, -1))
        model.add_body(f"link{i}", body)
        model.add_joint(f"hinge{i}", "revolute", parent, f"link{i}", axis=(0, 1, 0),
                        initial=0.01 if i == 0 else 0.0)  # fmt: skip
        parent = f"link{i}.frame_b"
    return model


def steps(n: int, shape: str, folder: Path) -> dict[str, Callable[[], object]]:
    """The measured steps, by name (each a callable; the model is built once, outside)."""
    import mujoco

    model = chain(n, shape)
    paths = {fmt: folder / f"chain.{suffix}" for fmt, suffix in
             (("mjcf", "xml"), ("urdf", "urdf"), ("sdf", "sdf"))}  # fmt: skip
    for path in paths.values():  # the files MuJoCo compiles below
        rp.export_model(model, path)
    return {
        "build the model": lambda: chain(n, shape),
        "export MJCF": lambda: rp.export_model(model, paths["mjcf"]),
        "export URDF": lambda: rp.export_model(model, paths["urdf"]),
        "export SDF": lambda: rp.export_model(model, paths["sdf"]),
        "simulate set-up (1 step)": lambda: rp.simulate(model, duration=1e-3, timestep=1e-3),
        "MuJoCo compiles the MJCF file": lambda: mujoco.MjModel.from_xml_path(str(paths["mjcf"])),
    }


def measure(n: int, shape: str, rounds: int) -> dict[str, float]:
    """Median wall time of each step (s) over ``rounds`` interleaved rounds, after a warm-up."""
    with tempfile.TemporaryDirectory() as tmp:
        named = steps(n, shape, Path(tmp))
        times: dict[str, list[float]] = {name: [] for name in named}
        for round_ in range(rounds + 1):
            for name, step in named.items():
                start = time.perf_counter()
                step()
                if round_:  # round 0 warms up
                    times[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in times.items()}


def simulate_one_second(n: int, shape: str) -> float:
    """Wall time of ``rp.simulate`` of 1 s of the chain (RK4, 1 ms), s."""
    model = chain(n, shape)
    start = time.perf_counter()
    rp.simulate(model, duration=1.0, timestep=1e-3, record_every=100)
    return time.perf_counter() - start


def table(n: int, shape: str, medians: dict[str, float], one_second: float | None) -> str:
    compile_ = medians["MuJoCo compiles the MJCF file"]
    setup = medians["simulate set-up (1 step)"]
    lines = [
        f"A chain of {n} {shape} links (medians, s):",
        "",
        "| step | time | target |",
        "|---|---:|---|",
    ]
    for name, value in medians.items():
        target = ""
        if name.startswith("export"):
            target = "< 1 s"
        elif name.startswith("simulate"):
            target = f"< max(2 s, 3 x compile = {3 * compile_:.2f} s)"
        lines.append(f"| {name} | {value:.3f} | {target} |")
    lines.append(f"| simulate set-up / MuJoCo's compile | {setup / compile_:.2f}x | <= 3x |")
    if one_second is not None:
        lines.append(f"| simulate 1 s (RK4, 1 ms, set-up included) | {one_second:.2f} | |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bodies", type=int, default=1000)
    parser.add_argument("--shape", choices=("box", "cone"), default="box")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--no-run", action="store_true", help="skip the 1 s simulation")
    parser.add_argument("--json", action="store_true", help="also print the figures as JSON")
    args = parser.parse_args(argv)
    medians = measure(args.bodies, args.shape, args.rounds)
    one_second = None if args.no_run else simulate_one_second(args.bodies, args.shape)
    print(table(args.bodies, args.shape, medians, one_second))
    if args.json:
        print(json.dumps({"bodies": args.bodies, "shape": args.shape, "medians": medians,
                          "simulate_1s": one_second}))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
