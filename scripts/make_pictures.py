"""Make the example pictures of docs/pictures.md (into docs/images/).

Run from the repository's root:

    python scripts/make_pictures.py            # all pictures (about half a minute)
    python scripts/make_pictures.py --no-gif   # skip the animation

Every still picture is made by the ``rigidparts view`` command shown next to it in
docs/pictures.md (run through ``rigidparts.commands.main``, what the script runs), so what you
see there is what the command line gives; the animation uses ``rigidparts.simulate`` and
``rigidparts.viz.animate.animate`` (what ``rigidparts simulate MODEL.toml --animate FILE.gif``
runs, here smaller and shorter to keep the file light).

Beyond the fixed list, the script loops over the shape registry: every registered shape that no
picture of the list draws gets ``<shape>.png`` (its options from :data:`SHAPE_OPTIONS`, its
defaults for a shape not named there), and every example model in ``examples/`` that uses at
least :data:`MIN_EXAMPLE_SHAPES` shapes gets ``<stem>.png``.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: (file name, ``rigidparts`` arguments without ``-o``): the pictures of docs/pictures.md.
PICTURES: list[tuple[str, list[str]]] = [
    ("cone.png", ["view", "cone"]),
    (
        "hollow_box_rotate90.png",
        [
            "view",
            "box",
            "--inner-width",
            "0.06",
            "--inner-height",
            "0.14",
            "--rotate90",
            "--material",
            "aluminium",
            "--view",
            "22,-128",
        ],
    ),
    (
        "tube_inertia.png",
        [
            "view",
            "cone",
            "--radius-a",
            "0.1",
            "--radius-b",
            "0.1",
            "--inner-radius-a",
            "0.08",
            "--inner-radius-b",
            "0.08",
            "--axis",
            "0,0,1",
            "--extra-frame",
            "0.25",
            "--inertia",
            "--view",
            "38,-60",
        ],
    ),
    (
        "hollow_cone_inertia.png",
        [
            "view",
            "cone",
            "--inner-radius-a",
            "0.3",
            "--inner-radius-b",
            "0.05",
            "--axis",
            "1,1,1",
            "--material",
            "brass",
            "--inertia",
        ],
    ),
    ("double_pendulum.png", ["view", "examples/double_pendulum.toml"]),
    ("serial_arm.png", ["view", "examples/serial_arm.toml"]),
]

#: Options of each shape's own picture (``rigidparts view SHAPE ...``), chosen so that the
#: picture shows what is particular to the shape: a hollow ball as it is (its cavity shows
#: through), a disk's radial frames turned about its axis, the I-beam's section upright and
#: seen end on, the link's pin holes. A shape missing here is drawn with its defaults.
SHAPE_OPTIONS: dict[str, list[str]] = {
    "step": ["examples/parts/bracket.step"],
    "ball": ["--radius", "0.3", "--inner-radius", "0.24"],
    "cylinder": ["--length", "0.6", "--radius", "0.1", "--axis", "1,1,0", "--extra-frame", "0.2"],
    "disk": [
        "--radius",
        "0.5",
        "--inner-radius",
        "0.15",
        "--thickness",
        "0.08",
        "--axis",
        "0,0,1",
        "--extra-frame",
        "0.35,0",
        "--extra-frame",
        "0.35,120deg",
        "--extra-frame",
        "0.35,240deg",
        "--view",
        "40,-56",
    ],
    "ibeam": ["--rotate90", "--length", "0.6", "--view", "25,-35"],
    "linkage": ["--length", "0.5", "--width", "0.03", "--height", "0.1"],
    "mesh": ["examples/parts/bracket.stl", "--units", "mm", "--frame", "mount=2.5mm,20mm,45mm"],
    # given inertia, no geometry: drawn as its equivalent ellipsoid
    "rigid_body": "--mass 2 --inertia-tensor 0.02,0.03,0.025,0.004,-0.002,0 "
    "--center-of-mass 0,0,0.05 --frame tool=0,0,0.3".split(),
}

#: Example models drawn are those with bodies of at least this many shapes.
MIN_EXAMPLE_SHAPES = 3
#: Options of an example model's picture (a viewpoint from which every body shows).
EXAMPLE_OPTIONS: dict[str, list[str]] = {"wheel_on_axle": ["--view", "18,125"]}


def shape_pictures() -> list[tuple[str, list[str]]]:
    """``(<shape>.png, command)`` for every registered shape no picture of :data:`PICTURES`
    draws, in the registry's order."""
    from rigidparts.shapes import SHAPES

    drawn = {command[1] for _, command in PICTURES if command[0] == "view"}
    return [
        (f"{name}.png", ["view", spec.command, *SHAPE_OPTIONS.get(name, [])])
        for name, spec in SHAPES.items()
        if spec.command not in drawn
    ]


def example_pictures() -> list[tuple[str, list[str]]]:
    """``(<stem>.png, command)`` for every model in ``examples/`` not drawn by
    :data:`PICTURES` whose bodies have at least :data:`MIN_EXAMPLE_SHAPES` shapes."""
    from rigidparts import load_model

    drawn = {command[1] for _, command in PICTURES if command[0] == "view"}
    out = []
    for path in sorted((ROOT / "examples").glob("*.toml")):
        relative = path.relative_to(ROOT).as_posix()
        if relative in drawn:
            continue
        shapes = {body.spec.name for body in load_model(path).bodies.values()}
        if len(shapes) >= MIN_EXAMPLE_SHAPES:
            out.append(
                (f"{path.stem}.png", ["view", relative, *EXAMPLE_OPTIONS.get(path.stem, [])])
            )
    return out


def make_animation(out: Path) -> Path:
    """The double pendulum's first 2.4 s, 12.5 frames per second, 600 x 450 pixels."""
    from rigidparts import load_model, simulate
    from rigidparts.viz.animate import animate

    model = load_model(ROOT / "examples" / "double_pendulum.toml")
    result = simulate(model, duration=2.4, timestep=5e-4)
    return animate(model, result, out, fps=12.5, size=(600, 450), progress=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images")
    parser.add_argument("--no-gif", action="store_true", help="skip the animation")
    args = parser.parse_args(argv)

    from rigidparts import commands

    args.out.mkdir(parents=True, exist_ok=True)
    for name, command in [*PICTURES, *shape_pictures(), *example_pictures()]:
        start = time.perf_counter()
        target = args.out / name
        code = commands.main([*command, "-o", str(target)])
        if code != 0:
            print(f"failed: rigidparts {shlex.join(command)}", file=sys.stderr)
            return code
        print(f"  {time.perf_counter() - start:5.1f} s  rigidparts {shlex.join(command)}")
    if not args.no_gif:
        start = time.perf_counter()
        path = make_animation(args.out / "double_pendulum.gif")
        print(f"  {time.perf_counter() - start:5.1f} s  {path}")
    return 0


if __name__ == "__main__":
    import os

    os.chdir(ROOT)  # the model paths above are relative to the repository
    sys.exit(main())
