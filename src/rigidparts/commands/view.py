"""``rigidparts view SHAPE [body options] -o FILE.png`` and ``rigidparts view MODEL.toml -o
FILE.png``: draw a body or a model without a display (the :mod:`rigidparts.viz` package).
``SHAPE`` is the shape's command (``rigidparts view meshbody part.stl --units mm -o part.png``).
The format is the suffix: a picture (.png, .svg, .pdf, .jpg) or, for ``-o scene.html``, an
interactive 3-D viewer in one self-contained HTML file (:func:`rigidparts.viz.html.write_html`);
every format is written by the one :func:`rigidparts.viz.view`.

``TARGET`` comes first and decides the rest of the options, so parsing takes two stages: the
``view`` subcommand takes the target and the remaining words, and :func:`run` parses those with
the body options of the target's shape (any shape with a mesh builder) or with the picture
options only (a model file). matplotlib loads in :func:`run` only, with the Agg backend.
"""

from __future__ import annotations

import argparse
import textwrap
from pathlib import Path
from typing import Any

from ..shapes import SHAPES
from ._options import (
    UsageError,
    add_body_options,
    add_model_file_options,
    add_output_options,
    add_units_option,
    body_epilog,
    body_from_args,
    body_inputs,
    check_not_input,
    check_output,
    check_suffix,
    load_model_file,
    model_inputs,
    sections,
    warn_large_coordinates,
)

__all__ = ["register", "run"]


def _drawable() -> list[str]:
    """The commands of the shapes ``view`` draws: those whose specification has a mesh
    builder."""
    return [spec.command for spec in SHAPES.values() if spec.mesh is not None]


def _shape_of(command: str) -> str:
    return next(name for name, spec in SHAPES.items() if spec.command == command)


def _size(text: str) -> tuple[int, int]:
    parts = text.lower().replace("×", "x").split("x")
    try:
        width, height = (int(p) for p in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT in pixels, got {text!r}") from None
    if not (100 <= width <= 10000 and 100 <= height <= 10000):
        raise argparse.ArgumentTypeError(f"width and height must be 100..10000 px, got {text!r}")
    return width, height


def _view(text: str) -> tuple[float, float]:
    parts = [p for p in text.replace(",", " ").split() if p]
    try:
        elev, azim = (float(p) for p in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected ELEVATION,AZIMUTH in degrees such as 25,-60, got {text!r}"
        ) from None
    if not all(abs(v) < 1e6 for v in (elev, azim)):
        raise argparse.ArgumentTypeError(f"angles must be finite degrees, got {text!r}")
    return elev, azim


def _usage() -> str:
    return (
        "rigidparts view SHAPE [shape options] -o FILE.png|FILE.html [picture options]\n"
        "       rigidparts view MODEL.toml -o FILE.png|FILE.html [picture options]"
    )


def _epilog() -> str:
    names = _drawable()
    target = textwrap.fill(
        f"TARGET comes first: a shape ({', '.join(names)}), then the same options as "
        "'rigidparts SHAPE'; or the path of a model file. See the options with",
        width=92,
    )
    helps = [f"  rigidparts view {name} --help" for name in names]
    examples = [f"  rigidparts view {name} -o {name}.png" for name in names[:1]]
    examples += [
        f"  rigidparts view {name} --axis 0,0,1 -o {name}.png --inertia --view 35,-60 "
        "--size 1600x1200"
        for name in [n for n in names if SHAPES[_shape_of(n)].axis][:1]
    ]
    examples.append("  rigidparts view pendulum.toml -o pendulum.png")
    examples.append("  rigidparts view pendulum.toml -o pendulum.html")
    return "\n".join(
        [
            target,
            *helps,
            "  rigidparts view MODEL.toml --help",
            "",
            "The picture shows the body (or every body of the model at its initial joint "
            "positions),",
            "shaded and semi-transparent; a triad for every frame (x red, y green, z blue) "
            "labelled",
            "frame_a, frame_b, frame_com, frame_c1, ... (BODY.FRAME in a model); the centre of "
            "mass",
            "(circled cross); with --inertia, the equivalent inertia ellipsoid; a title with the "
            "mass and",
            "material. Lengths in metres, one scale on all axes. No display is needed.",
            "",
            "With -o FILE.html: an interactive 3-D viewer in one self-contained file (meshcat's",
            "viewer inlined; no network needed): turn, pan and zoom with the mouse, show or hide",
            "bodies, frames, centres of mass, the inertia ellipsoid and joints in its control "
            "panel.",
            "--size does not apply to it; 'rigidparts simulate MODEL --html run.html' plays a "
            "simulation.",
            "",
            "Examples:",
            *examples,
        ]
    )


def _add_picture_options(parser: argparse.ArgumentParser, spec: Any = None) -> None:
    group = parser.add_argument_group("picture")
    group.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="FILE",
        help="the picture: .png (also .svg, .pdf, .jpg), or .html for an interactive 3-D "
        "viewer in one self-contained file",
    )
    group.add_argument(
        "--size",
        type=_size,
        default=(1200, 900),
        metavar="WxH",
        help="picture size in pixels (default 1200x900)",
    )
    group.add_argument(
        "--view",
        type=_view,
        default=None,
        metavar="ELEV,AZIM",
        help="viewpoint: elevation and azimuth in degrees (default 28,-56)",
    )
    group.add_argument(
        "--inertia",
        action="store_true",
        help="draw the equivalent inertia ellipsoid (same mass and principal moments)",
    )
    group.add_argument(
        "--sections",
        type=sections,
        default=48,
        metavar="N",
        help="segments around round surfaces (default 48; a STEP body's mesh is its "
        "certificate's tessellation, within 1e-3 of its size)",
    )
    group.add_argument("--no-labels", action="store_true", help="do not label the frames")
    group.add_argument("--no-frames", action="store_true", help="do not draw the frame triads")
    group.add_argument("--title", default=None, help="replace the title (default: mass, material)")
    if spec is not None:  # a model's bodies take their colours from the model file
        group.add_argument(
            "--color",
            default=None,
            metavar="COLOUR",
            help="the body's colour: a CSS name (steelblue) or #rrggbb (default #8aa9c9)",
        )
        group.add_argument(
            "--opacity",
            type=float,
            default=None,
            metavar="A",
            help="the body's opacity, 0 (invisible) .. 1 (opaque, the default; a picture draws "
            "faces at 0.8 of it, to show the frames inside)",
        )
    add_units_option(
        group,
        spec,
        help="the printed report's units: a length and/or a mass unit, e.g. mm,g (default SI; "
        "the picture is in m and kg)",
    )
    add_output_options(group)


def _target_parser(args: argparse.Namespace) -> tuple[argparse.ArgumentParser, str | None]:
    """The second-stage parser of ``rigidparts view TARGET ...`` and the target's shape (None
    for a model file)."""
    from ..errors import ParameterError

    parser_class = args.view_parser_class
    target = args.target
    names = _drawable()
    if target in names:
        spec = SHAPES[_shape_of(target)]
        parser = parser_class(
            prog=f"rigidparts view {target}",
            description=f"Draw {spec.summary}, with its frames and centre of mass.",
            epilog=body_epilog(spec),
        )
        _add_picture_options(parser, spec)
        add_body_options(parser, spec)
        return parser, spec.name
    shapes = f"a shape ({', '.join(names)})"
    if target.startswith("-"):
        raise ParameterError(
            "TARGET", target, f"comes first: {shapes} or a model file (see 'rigidparts view -h')"
        )
    if not Path(target).is_file() and not {"-h", "--help"} & set(args.options):
        raise ParameterError(
            "TARGET", target, f"must be {shapes} or an existing model file (.toml)"
        )
    parser = parser_class(
        prog=f"rigidparts view {target}",
        description="Draw every body of a model at its initial joint positions.",
    )
    _add_picture_options(parser)
    add_model_file_options(parser)
    return parser, None


def run(args: argparse.Namespace) -> int:
    """Draw the target to ``-o`` (atomically; the format is the suffix) with the one
    :func:`rigidparts.viz.view`; print what was written, with the mass (and a body's centre
    of mass) in ``--units``. The output is checked before any work; a missing extra is the one
    ``error:`` line :func:`rigidparts.commands.main` prints for an ImportError. Returns 0."""
    import sys

    from ..viz.html import HTML_SUFFIXES, PICTURE_SUFFIXES

    parser, shape = _target_parser(args)
    options = parser.parse_args(args.options)
    check_suffix(options.output, PICTURE_SUFFIXES + HTML_SUFFIXES, "picture")
    if shape is None and _same_file(options.output, args.target):
        raise UsageError(f"-o {options.output}: is the model file itself: give another output")
    check_output(options.output, "-o", force=options.force)
    html = Path(options.output).suffix.lower() in HTML_SUFFIXES
    settings: dict[str, Any] = {
        "title": True if options.title is None else options.title,
        "view": options.view,
        "sections": options.sections,
        "inertia": options.inertia,
        "labels": not options.no_labels,
        "frames": not options.no_frames,
        "force": options.force,
        # a status line only on a terminal: in a log it would be a line per update
        "progress": sys.stderr.isatty(),
    }
    if not html:
        settings["size"] = options.size
    if shape is None:
        subject: Any = load_model_file(args.target, options)
        check_not_input(options.output, "-o", model_inputs(args.target, subject))
    else:
        check_not_input(options.output, "-o", body_inputs(SHAPES[shape], options))
        subject = body_from_args(shape, options)
        warn_large_coordinates(subject)
        # a lone body's appearance (a model's bodies take theirs from the model file)
        settings["color"] = options.color
        if options.opacity is not None:
            from ..appearance import parse_opacity

            settings["opacity"] = parse_opacity(options.opacity, "--opacity")
        else:
            settings["opacity"] = None
    from ..viz import view

    path = view(subject, options.output, **settings)
    summary = _summary(subject, options.report_units)
    if html:
        megabytes = path.stat().st_size / 1e6
        print(f"wrote {options.output} ({megabytes:.2f} MB, open it in a browser; {summary})")
    else:
        width, height = options.size
        print(f"wrote {options.output} ({width}x{height} px; {summary})")
    return 0


def _same_file(a: str, b: str) -> bool:
    from ..fileio import same_file

    return same_file(a, b)


def _summary(subject: Any, units: Any) -> str:
    """The mass (a model's total mass) and a body's centre of mass in ``units``."""
    from ..report import parse_units, report

    chosen = parse_units(units)
    if hasattr(subject, "bodies"):  # a model
        mass = chosen.masses(sum(b.mass for b in subject.bodies.values()))
        return f"total mass {mass:.9g} {chosen.mass}"
    data = report(subject, chosen)
    com = ", ".join(f"{x:.9g}" for x in data["center_of_mass"])
    return f"mass {data['mass']:.9g} {chosen.mass}, centre of mass [{com}] {chosen.length}"


def register(subparsers: Any) -> None:
    """Add ``view`` (the first parsing stage: the target and the words after it)."""
    parser = subparsers.add_parser(
        "view",
        help="draw a body or a model to a picture (.png) or a 3-D viewer (.html), headless",
        description="Draw a body or a model file to a picture, or write an interactive 3-D "
        "viewer in one HTML file, without a display.",
        usage=_usage(),
        epilog=_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "target",
        metavar="TARGET",
        help=f"a shape ({', '.join(_drawable())}), or the path of a model file (.toml)",
    )
    parser.add_argument(
        "options",
        nargs=argparse.REMAINDER,
        metavar="OPTIONS",
        help="the body options (for a shape) and the picture options; see 'rigidparts view "
        "SHAPE --help'",
    )
    parser.set_defaults(handler=run, view_parser_class=type(parser))
