"""The HTML viewer's file sizes and write times (docs/viewer.md, "Sizes and times").

    python benchmarks/viewer.py

For every shipped example: the still viewer (``rp.view(model, "x.html")``) and, for a model
that moves, its run with the file's own ``[simulation]`` settings played back; then the
pendulum for 60 s at 1 ms (60 001 samples) and a 300-body chain (the keyframe budget at work).
Prints a Markdown table: file size (MB), samples, keyframes, best write time of 3 (s).

    python benchmarks/viewer.py --large        # only the large models (issue 22)

Large models: chains of 1000 and 3000 equal links (``big_models.chain``: boxes, and 1000
cones, whose meshes are triangle meshes): the still viewer's best write time of 3 in one warm
process (imports excluded), its size, the bytes of mesh data in it (the ``BufferGeometry``
arrays, written once per distinct mesh), and the time headless Chromium takes to open the file
and run its player to the end (``data-rigidparts-ready``; the command line of
tests/test_html_browser.py, SwiftShader, 5 s of virtual time; skipped without a Chromium).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
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


def _mesh_bytes(path: Path) -> int:
    """Bytes of the BufferGeometry arrays (positions, indices) in the written file."""
    text = path.read_text(encoding="utf-8")
    start = text.index('id="rigidparts-scene">') + len('id="rigidparts-scene">')
    scene = json.loads(text[start : text.index("</script>", start)])
    total = 0
    for command in scene["commands"]:
        for geometry in command.get("object", {}).get("geometries", []):
            if geometry.get("type") == "BufferGeometry":
                total += len(json.dumps(geometry["data"], separators=(",", ":")))
    return total


def _open_seconds(path: Path, folder: Path) -> str:
    """Seconds until headless Chromium has run the page's player (or why not)."""
    browser = next(
        (
            shutil.which(b)
            for b in ("chromium", "chromium-browser", "google-chrome")
            if shutil.which(b)
        ),
        None,
    )
    if browser is None:
        return "no Chromium"
    command = [
        browser, "--headless", "--no-sandbox", "--disable-gpu",
        "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:9",
        "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
        f"--user-data-dir={folder / 'profile'}", "--window-size=800,600",
        "--virtual-time-budget=5000", "--dump-dom", path.as_uri(),
    ]  # fmt: skip
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    seconds = time.perf_counter() - start
    if 'data-rigidparts-ready="1"' not in done.stdout:
        return f"not ready after {seconds:.1f} s"
    return f"{seconds:.1f}"


def large() -> None:
    """The large models' table (module docstring)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from big_models import chain

    rows = []
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder)
        rp.view(rp.Box(), out / "warm.html", progress=False)  # imports, first calls
        for bodies, shape in ((1000, "box"), (1000, "cone"), (3000, "box")):
            model = chain(bodies, shape)
            path = out / f"chain{bodies}{shape}.html"
            seconds = _write(model, path)
            opened = _open_seconds(path, out) if bodies == 3000 else ""
            rows.append(
                f"| {bodies} {shape}{'es' if shape == 'box' else 's'} | "
                f"{path.stat().st_size / 1e6:.2f} | "
                f"{_mesh_bytes(path) / 1e6:.3f} | {seconds:.2f} | {opened} |"
            )
    print("| chain | MB | mesh data (MB) | write (s) | opens in Chromium (s) |")
    print("|---|---|---|---|---|")
    print("\n".join(rows))


def main() -> None:
    if "--large" in sys.argv[1:]:
        large()
        return
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
    print()
    large()


if __name__ == "__main__":
    main()
