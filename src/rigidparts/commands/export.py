"""``rigidparts export MODEL -o FILE [--format F]``: a model file to an engine's format, through
:func:`rigidparts.export.export` (which writes atomically, meshes first)."""

from __future__ import annotations

import argparse
from typing import Any

from ._options import MODEL_HELP, check_folder

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
    """Load the model, write it in the chosen format, report what was written; returns 0."""
    from ..export import export, format_from_suffix
    from ..export._common import body_geometry, mesh_folder
    from ..model import load_model

    model = load_model(args.model)
    chosen = args.format or format_from_suffix(args.output)
    check_folder(args.output, "-o")
    export(model, args.output, chosen, sections=args.sections)
    if not args.quiet:
        # The bodies the exporters wrote as meshes: those without a native primitive.
        meshes = sum(body_geometry(b).kind == "mesh" for b in model.bodies.values())
        note = f"; {meshes} meshes in {mesh_folder(args.output)[0]}" if meshes else ""
        print(
            f"wrote {args.output} ({chosen}: {len(model.bodies)} bodies, "
            f"{len(model.joints)} joints{note})"
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
            "the output) and the named frames. Written atomically."
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
        help="output format: {formats} (default: from the output's suffix)",
    )
    parser.add_argument("-o", "--output", required=True, metavar="PATH", help="the file to write")
    parser.add_argument(
        "--sections",
        type=int,
        default=64,
        metavar="N",
        help="segments around round surfaces of meshes (default 64)",
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="print nothing on success")
    parser.set_defaults(handler=run)
