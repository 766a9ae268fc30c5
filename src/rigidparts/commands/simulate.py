"""``rigidparts simulate MODEL [-o CSV] [--animate FILE] [--html FILE]``: a model file on MuJoCo,
through :func:`rigidparts.sim.simulate`; a summary, the trajectory as CSV, an animation, an
interactive 3-D playback in one HTML file (:func:`rigidparts.viz.html.write_html`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ._options import (
    MODEL_HELP,
    UsageError,
    add_model_file_options,
    add_output_options,
    check_not_input,
    check_output,
    load_model_file,
    model_inputs,
)

__all__ = ["register", "run"]


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: must be a positive integer")
    return value


def _fps(text: str) -> float:
    """``--html-fps``: the viewer's own rule (:func:`.viz.trajectory.check_keyframe_fps`)."""
    from ..viz.trajectory import check_keyframe_fps

    try:
        return check_keyframe_fps(float(text), "--html-fps")
    except ValueError as exc:  # not a number, or a ParameterError (a ValueError) with the rule
        rule = getattr(exc, "rule", "must be a number")
        raise argparse.ArgumentTypeError(f"{text!r}: {rule}") from None


def _integrator(text: str) -> str:
    from ..model import INTEGRATORS

    lookup = {name.lower(): name for name in INTEGRATORS}
    if text.lower() not in lookup:
        raise argparse.ArgumentTypeError(f"{text!r}: choose one of {', '.join(INTEGRATORS)}")
    return lookup[text.lower()]


def run(args: argparse.Namespace) -> int:
    """Simulate the model file; print the summary, write the CSV and the animation as asked.
    Every output (not a folder, not read-only unless --force, the animation's format) is
    checked before the model is read. Returns 0."""
    from ..fileio import same_file

    named = ((args.output, "-o"), (args.animate, "--animate"), (args.html, "--html"))
    outputs = [(o, name) for o, name in named if o]
    for path, option in outputs:
        if same_file(path, args.model):
            raise UsageError(f"{option} {path}: is the model file itself: give another output")
        check_output(path, option, force=args.force)
    for i, (first, option) in enumerate(outputs):
        for second, other in outputs[i + 1 :]:
            if same_file(first, second):
                raise UsageError(f"{option} and {other} name the same file {first}: give two files")
    if args.html is not None:
        from ..viz.html import HTML_SUFFIXES, require_viewer

        if Path(args.html).suffix.lower() not in HTML_SUFFIXES:
            raise UsageError(f"--html {args.html}: must end in .html (or .htm)")
        require_viewer()  # a missing extra is one error line (commands.main), before the run
    try:
        import mujoco  # noqa: F401

        from ..sim import simulate
    except ModuleNotFoundError as exc:
        raise UsageError(f"simulate needs MuJoCo: pip install 'rigidparts[sim]' ({exc})") from None
    animate = None
    if args.animate is not None:
        check_output(args.animate, "--animate", force=args.force)
        try:
            from ..viz.animate import animate, check_animation_path
        except ModuleNotFoundError as exc:
            raise UsageError(
                f"--animate needs the viz extra: pip install 'rigidparts[viz]' ({exc})"
            ) from None
        check_animation_path(args.animate)  # a bad suffix or no encoder fails before the run
    model = load_model_file(args.model, args)
    for path, option in outputs:  # nor a file the model's bodies are read from
        check_not_input(path, option, model_inputs(args.model, model))

    result = simulate(
        model,
        duration=args.duration,
        timestep=args.timestep,
        integrator=args.integrator,
        progress=not args.quiet and sys.stderr.isatty(),
        record_every=args.every,
        contacts=args.contacts,
    )
    if args.output is not None:
        result.to_csv(args.output)
    if not args.quiet:
        print(result.summary(model))
        if args.output is not None:
            print(
                f"\nwrote {args.output} ({len(result.time)} rows, {len(result.columns())} columns)"
            )
    if animate is not None:
        # a progress bar only on a terminal: in a log it would be a line per update
        animate(model, result, args.animate, progress=not args.quiet and sys.stderr.isatty())
        if not args.quiet:
            print(f"wrote {args.animate}")
    if args.html is not None:
        from ..viz import view

        path = view(
            model,
            args.html,
            result=result,
            fps=args.html_fps,
            force=args.force,
            progress=not args.quiet and sys.stderr.isatty(),
        )
        if not args.quiet:
            print(f"wrote {args.html} ({path.stat().st_size / 1e6:.2f} MB; open it in a browser)")
    return 0


def register(subparsers: Any) -> None:
    """Add the ``simulate`` subcommand."""
    parser = subparsers.add_parser(
        "simulate",
        help="simulate a model file on MuJoCo; summary, CSV trajectory, GIF, HTML playback",
        description=(
            "Simulate a model file on MuJoCo from its initial joint positions and velocities. "
            "Prints a summary (final state, periods, energy drift); with -o writes the "
            "trajectory as CSV: time, each joint's coordinates and velocities (hinge, "
            "hinge.velocity, ball.qw, ...), each body's frame_a position (arm.x, arm.y, arm.z) "
            "and orientation (arm.qw, arm.qx, arm.qy, arm.qz). Contacts between the bodies' "
            "geometry are off unless the model or --contacts turns them on."
        ),
        epilog=(
            "Example: rigidparts simulate examples/pendulum.toml --duration 10 --timestep 1e-4 "
            "-o trajectory.csv --html pendulum.html"
        ),
    )
    parser.add_argument("model", metavar="MODEL.toml", help=MODEL_HELP)
    parser.add_argument(
        "--duration", default=None, metavar="T", help="simulated time, s (default 5 or the file's)"
    )
    parser.add_argument(
        "--timestep", default=None, metavar="DT", help="integration step, s (default 1e-3)"
    )
    parser.add_argument(
        "--integrator",
        default=None,
        type=_integrator,
        metavar="NAME",
        help="RK4 (default), implicitfast, implicit or Euler",
    )
    parser.add_argument(
        "-o", "--output", default=None, metavar="CSV", help="write the trajectory here"
    )
    parser.add_argument(
        "--every",
        type=_positive_int,
        default=1,
        metavar="N",
        help="record every N-th step (default 1: every step)",
    )
    parser.add_argument(
        "--contacts",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="let the bodies' geometry collide (default: the model's [simulation] contacts, "
        "else off); --no-contacts turns them off",
    )
    parser.add_argument(
        "--animate",
        default=None,
        metavar="FILE",
        help="also render an animation (.gif or .mp4; needs the viz extra)",
    )
    parser.add_argument(
        "--html",
        default=None,
        metavar="FILE",
        help="also write an interactive 3-D playback in one self-contained HTML file (needs the "
        "viz extra): the recorded poses nearest every 1/FPS s become keyframes (at most 1800, "
        "and 12000 poses over all bodies: longer runs are spread evenly): a 10 s run at 1 ms "
        "makes about 1 MB; open FILE.html#t=1.5 to start paused at t = 1.5 s",
    )
    parser.add_argument(
        "--html-fps",
        type=_fps,
        default=30.0,
        metavar="FPS",
        help="keyframes per simulated second in --html (default 30; the viewer interpolates "
        "between them)",
    )
    add_model_file_options(parser)
    add_output_options(parser)
    parser.add_argument("-q", "--quiet", action="store_true", help="no summary, no progress bar")
    parser.set_defaults(handler=run)
