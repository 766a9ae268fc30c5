"""``rigidparts export MODEL -o FILE [--format F]``: a model file to an engine's format, through
:func:`rigidparts.export.export` (all or nothing: the model file and its meshes are staged
beside the target and moved into place last).

Every check comes before the model is read: the output is not the model file itself (symlinks
resolved), its suffix does not name another format than ``--format``, it is not a folder or a
read-only file (unless ``--force``), and its folder exists or can be made.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path
from typing import Any

from ._options import (
    MODEL_HELP,
    UsageError,
    add_model_file_options,
    add_output_options,
    add_units_option,
    check_not_input,
    check_output,
    load_model_file,
    model_inputs,
    sections,
)

__all__ = ["register", "run"]


class _FormatsHelp(argparse.HelpFormatter):
    """Fills ``{formats}`` in option helps with :data:`rigidparts.export.FORMATS`, only when
    help is printed (so building the parser imports no exporter)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = super()._get_help_string(action)
        if text and "{formats}" in text:
            from ..export import FORMATS

            text = text.replace("{formats}", ", ".join(FORMATS))
        return text


def _format(text: str) -> str:
    from ..export import FORMATS

    if text.lower() not in FORMATS:
        raise argparse.ArgumentTypeError(f"{text!r}: choose one of {', '.join(FORMATS)}")
    return text.lower()


def run(args: argparse.Namespace) -> int:
    """Check the output, load the model, write it in the chosen format, report what was
    written (with the total mass in ``--units``); returns 0."""
    from ..export import MuJoCoDepthWarning, check_format, export, mujoco_depth_warning
    from ..export._common import FORMAT_KINDS, body_geometry, mesh_folder
    from ..fileio import same_file

    chosen = check_format(args.output, args.format)
    if same_file(args.output, args.model) or same_file(mesh_folder(args.output)[0], args.model):
        raise UsageError(
            f"-o {args.output}: is the model file {args.model} itself: give another output"
        )
    check_output(args.output, "-o", force=args.force, folder_too=mesh_folder(args.output)[1])
    if not Path(args.model).is_file() and Path(args.model).exists():
        raise UsageError(f"{args.model}: is not a file (give the model file, .toml)")

    model = load_model_file(args.model, args)
    # the files the model's bodies are read from: neither the output nor in its mesh folder
    folder = mesh_folder(args.output)[0] if chosen != "usd" else None  # USD holds its meshes
    check_not_input(args.output, "-o", model_inputs(args.model, model), folder=folder)
    # MuJoCo's depth limit, before any work: MJCF refused, other formats written with a warning
    depth_warning = mujoco_depth_warning(model, chosen)
    if depth_warning is not None:
        print(f"warning: {args.model}: {depth_warning}", file=sys.stderr)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MuJoCoDepthWarning)  # said above, once
        export(model, args.output, chosen, sections=args.sections, force=args.force)
    if not args.quiet:
        from ..report import counted, parse_units

        # The bodies the exporters wrote as meshes: those without a native primitive.
        kinds = FORMAT_KINDS[chosen]
        meshes = sum(body_geometry(b, kinds).kind == "mesh" for b in model.bodies.values())
        # USD holds its meshes; the other formats write OBJ files beside the model file
        where = "inside the file" if chosen == "usd" else f"in {mesh_folder(args.output)[0]}"
        note = f"; {counted(meshes, 'mesh', 'meshes')} {where}" if meshes else ""

        units = parse_units(args.report_units)
        mass = units.masses(sum(b.mass for b in model.bodies.values()))
        print(
            f"wrote {args.output} ({chosen}: {counted(len(model.bodies), 'body', 'bodies')}, "
            f"{counted(len(model.joints), 'joint')}, total mass {mass:.9g} "
            f"{units.mass}{note})"
        )
    return 0


def register(subparsers: Any) -> None:
    """Add the ``export`` subcommand."""
    parser = subparsers.add_parser(
        "export",
        help="export a model file to an engine's format (MJCF, URDF, SDF, ...)",
        description=(
            "Export a model file to an engine's format: MJCF (MuJoCo), URDF (MuJoCo, Pinocchio, "
            "Drake), SDFormat (Drake, Gazebo), ..., with exact inertials, native primitives "
            "where the format has them, OBJ meshes for the other bodies (in STEM_meshes/ beside "
            "the output) and the named frames. All or nothing: the model file and its meshes "
            "replace the old ones only once all are written. The files are always in SI."
        ),
        epilog="Example: rigidparts export examples/pendulum.toml -o pendulum.urdf",
        formatter_class=_FormatsHelp,
    )
    parser.add_argument("model", metavar="MODEL.toml", help=MODEL_HELP)
    parser.add_argument(
        "-f",
        "--format",
        type=_format,
        default=None,
        metavar="FORMAT",
        help="output format: {formats} (default: from the output's suffix, which must not "
        "name another format)",
    )
    parser.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="PATH",
        help="the file to write (its folder is created when missing; not the model file)",
    )
    parser.add_argument(
        "--sections",
        type=sections,
        default=64,
        metavar="N",
        help="segments around round surfaces of meshes (default 64; a STEP body's mesh is its "
        "certificate's tessellation, within 1e-3 of its size)",
    )
    add_model_file_options(parser)
    add_output_options(parser)
    add_units_option(parser)
    parser.add_argument("-q", "--quiet", action="store_true", help="print nothing on success")
    parser.set_defaults(handler=run)
