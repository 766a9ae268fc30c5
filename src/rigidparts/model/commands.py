"""``rigidparts export`` and ``rigidparts simulate``: the command line over models.

Imports nothing heavy at module level (the CLI imports this module to build its parser).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

__all__ = ["register"]

MODEL_HELP = "the model file (TOML; format in docs/models.md)"


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``export`` and ``simulate`` subcommands."""
    p = subparsers.add_parser(
        "export",
        help="export a model file to MJCF (MuJoCo), URDF or SDF",
        description=(
            "Export a model file to MJCF (MuJoCo), URDF (MuJoCo, Pinocchio, Drake) or SDFormat "
            "(Drake, Gazebo), with exact inertials, native boxes/cylinders, OBJ meshes for cones "
            "and hollow bodies (in STEM_meshes/ beside the output) and the named frames. "
            "Written atomically."
        ),
        epilog="Example: rigidparts export examples/pendulum.toml -o pendulum.urdf",
    )
    p.add_argument("model", metavar="MODEL.toml", help=MODEL_HELP)
    p.add_argument(
        "-f",
        "--format",
        choices=("mjcf", "urdf", "sdf"),
        default=None,
        help="output format (default: from the suffix: .xml/.mjcf, .urdf, .sdf)",
    )
    p.add_argument("-o", "--output", required=True, metavar="PATH", help="the file to write")
    p.add_argument(
        "--sections",
        type=int,
        default=64,
        metavar="N",
        help="segments around round surfaces of meshes (default 64)",
    )
    p.add_argument("-q", "--quiet", action="store_true", help="print nothing on success")
    p.set_defaults(handler=_cmd_export)

    p = subparsers.add_parser(
        "simulate",
        help="simulate a model file on MuJoCo; summary and/or CSV trajectory",
        description=(
            "Simulate a model file on MuJoCo from its initial joint positions and velocities. "
            "Prints a summary (final state, periods, energy drift); with -o writes the "
            "trajectory as CSV: time, each joint's coordinates and velocities (hinge, "
            "hinge.velocity, ball.qw, ...), each body's frame_a position (arm.x, arm.y, arm.z)."
        ),
        epilog=(
            "Example: rigidparts simulate examples/pendulum.toml --duration 10 --timestep 1e-4 "
            "-o trajectory.csv"
        ),
    )
    p.add_argument("model", metavar="MODEL.toml", help=MODEL_HELP)
    p.add_argument(
        "--duration", default=None, metavar="T", help="simulated time, s (default 5 or the file's)"
    )
    p.add_argument(
        "--timestep", default=None, metavar="DT", help="integration step, s (default 1e-3)"
    )
    p.add_argument(
        "--integrator",
        default=None,
        type=_integrator,
        metavar="NAME",
        help="RK4 (default), implicitfast, implicit or Euler",
    )
    p.add_argument("-o", "--output", default=None, metavar="CSV", help="write the trajectory here")
    p.add_argument(
        "--every",
        type=_positive_int,
        default=1,
        metavar="N",
        help="record every N-th step (default 1: every step)",
    )
    p.add_argument(
        "--no-contacts", action="store_true", help="disable contacts between the bodies' geometry"
    )
    p.add_argument(
        "--animate",
        default=None,
        metavar="FILE",
        help="also render an animation (.gif or .mp4; needs the viz extra)",
    )
    p.add_argument("-q", "--quiet", action="store_true", help="no summary, no progress bar")
    p.set_defaults(handler=_cmd_simulate)


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: must be a positive integer")
    return value


def _integrator(text: str) -> str:
    from .model import INTEGRATORS

    lookup = {name.lower(): name for name in INTEGRATORS}
    if text.lower() not in lookup:
        raise argparse.ArgumentTypeError(f"{text!r}: choose one of {', '.join(INTEGRATORS)}")
    return lookup[text.lower()]


def _check_folder(path: str, option: str) -> None:
    from ..cli import UsageError

    folder = Path(path).parent
    if not folder.is_dir():
        raise UsageError(f"{option} {path}: the folder {folder} does not exist")


def _cmd_export(args: argparse.Namespace) -> int:
    from ..export import export, format_from_suffix
    from ..export._common import body_geometry, mesh_folder
    from .toml_format import load_model

    model = load_model(args.model)
    chosen = args.format or format_from_suffix(args.output)
    _check_folder(args.output, "-o")
    export(model, args.output, chosen, sections=args.sections)
    if not args.quiet:
        meshes = sum(body_geometry(b).kind == "mesh" for b in model.bodies.values())
        note = f"; {meshes} meshes in {mesh_folder(args.output)[0]}" if meshes else ""
        print(
            f"wrote {args.output} ({chosen}: {len(model.bodies)} bodies, "
            f"{len(model.joints)} joints{note})"
        )
    return 0


def _cmd_simulate(args: argparse.Namespace) -> int:
    from ..cli import UsageError
    from .toml_format import load_model

    model = load_model(args.model)
    animate = None
    if args.animate is not None:
        _check_folder(args.animate, "--animate")
        try:
            from rigidparts.viz.animate import animate, check_animation_path
        except ModuleNotFoundError as exc:
            raise UsageError(
                f"--animate needs the viz extra: pip install 'rigidparts[viz]' ({exc})"
            ) from None
        check_animation_path(args.animate)  # a bad suffix or no encoder fails before the run
    if args.output is not None:
        _check_folder(args.output, "-o")
    try:
        import mujoco  # noqa: F401

        from ..sim import simulate
    except ModuleNotFoundError as exc:
        raise UsageError(f"simulate needs MuJoCo: pip install 'rigidparts[sim]' ({exc})") from None

    result = simulate(
        model,
        duration=args.duration,
        timestep=args.timestep,
        integrator=args.integrator,
        progress=not args.quiet and sys.stderr.isatty(),
        record_every=args.every,
        contacts=not args.no_contacts,
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
        animate(model, result, args.animate, progress=not args.quiet)
        if not args.quiet:
            print(f"wrote {args.animate}")
    return 0
