"""``rigidparts simulate MODEL [-o CSV] [--animate FILE]``: a model file on MuJoCo, through
:func:`rigidparts.sim.simulate`; a summary, the trajectory as CSV, an animation."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ._options import MODEL_HELP, UsageError, add_output_options, check_output

__all__ = ["register", "run"]


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: must be a positive integer")
    return value


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
    from ..model import load_model

    outputs = [(o, name) for o, name in ((args.output, "-o"), (args.animate, "--animate")) if o]
    for path, option in outputs:
        if same_file(path, args.model):
            raise UsageError(f"{option} {path}: is the model file itself: give another output")
        check_output(path, option, force=args.force)
    if len(outputs) == 2 and same_file(args.output, args.animate):
        raise UsageError(f"-o and --animate name the same file {args.output}: give two files")
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
    model = load_model(args.model)

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
    return 0


def register(subparsers: Any) -> None:
    """Add the ``simulate`` subcommand."""
    parser = subparsers.add_parser(
        "simulate",
        help="simulate a model file on MuJoCo; summary and/or CSV trajectory",
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
            "-o trajectory.csv"
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
    add_output_options(parser)
    parser.add_argument("-q", "--quiet", action="store_true", help="no summary, no progress bar")
    parser.set_defaults(handler=run)
