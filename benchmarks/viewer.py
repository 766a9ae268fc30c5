"""The HTML viewer's file sizes and write times (docs/viewer.md, "Sizes and times").

    python benchmarks/viewer.py

For every shipped example: the still viewer (``rp.view(model, "x.html")``) and, for a model
that moves, its run with the file's own ``[simulation]`` settings played back; then the
pendulum for 60 s at 1 ms (60 001 samples) and a 300-body chain (the keyframe budget at work).
Prints a Markdown table: file size (MB), samples, keyframes, best write time of 3 (s).
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import rigidparts as rp
from rigidparts.model import Model
from rigidparts.sim import simulate

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _write(model, path: Path, result=None) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        rp.view(model, path, result=result, progress=False)
        best = min(best, time.perf_counter() - start)
    return best


def _chain(bodies: int) -> Model:
    model = Model("chain")
    for i in range(bodies):
        model.add_body(f"link{i}", rp.Box(length=0.1, width=0.02, height=0.02, axis=(0, 0, -1)))
        parent = "world" if i == 0 else f"link{i - 1}.frame_b"
        model.add_joint(
            f"j{i}",
            "revolute",
            parent,
            f"link{i}.frame_a",
            axis=(0, 1, 0),
            initial="5 deg" if i == 0 else 0.0,
        )
    return model


def main() -> None:
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder)
        cases = []
        for toml in sorted(EXAMPLES.glob("*.toml")):
            model = rp.load_model(toml)
            cases.append((toml.name + " (still)", model, None))
            if any(j.nv for j in model.joints.values()):
                cases.append((toml.name + " (run)", model, simulate(model)))
        pendulum = rp.load_model(EXAMPLES / "pendulum.toml")
        cases.append(
            (
                "pendulum.toml, 60 s at 1 ms",
                pendulum,
                simulate(pendulum, duration=60.0, timestep=1e-3),
            )
        )
        chain = _chain(300)
        cases.append(
            ("300-body chain, 2 s at 1 ms", chain, simulate(chain, duration=2.0, timestep=1e-3))
        )
        for name, model, result in cases:
            path = out / "x.html"
            seconds = _write(model, path, result)
            samples = "" if result is None else f"{len(result.time):,}"
            text = path.read_text(encoding="utf-8")
            keyframes = ""
            if result is not None:
                keyframes = text.split('"keyframes":', 1)[1].split(",", 1)[0]
            rows.append(
                f"| {name} | {path.stat().st_size / 1e6:.2f} | {samples} | {keyframes} | "
                f"{seconds:.2f} |"
            )
    print("| case | MB | samples | keyframes | write (s) |")
    print("|---|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
