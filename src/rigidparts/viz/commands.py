"""The ``rigidparts mesh`` and ``rigidparts view`` commands.

``rigidparts mesh box|cone [body options] -o FILE.stl|.obj|.glb|.ply [--sections N]`` writes the
body's mesh (frame_a coordinates, metres; format from the suffix).

``rigidparts view box|cone [body options] -o FILE.png`` and ``rigidparts view MODEL.toml -o
FILE.png`` draw a body or a model (see :mod:`rigidparts.viz.render`) without a display.

Only argparse and the standard library are imported here; trimesh and matplotlib load in the
handlers. Files are written atomically (:func:`rigidparts.fileio.atomic_path`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

__all__ = ["register"]

#: Mesh formats by suffix (kept in step with rigidparts.mesh.MESH_FORMATS, which needs numpy).
MESH_SUFFIXES = (".stl", ".obj", ".glb", ".ply")
#: Picture formats by suffix.
PICTURE_SUFFIXES = (".png", ".svg", ".pdf", ".jpg", ".jpeg")
SHAPES = ("box", "cone")


def _sections(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer >= 3, got {text!r}") from None
    if not 3 <= value <= 65536:
        raise argparse.ArgumentTypeError(f"must be an integer from 3 to 65536, got {text!r}")
    return value


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


def _check_suffix(path: str, suffixes: tuple[str, ...], what: str) -> None:
    from ..errors import ParameterError

    if Path(path).suffix.lower() not in suffixes:
        raise ParameterError(
            "output", path, f"must end in {', '.join(suffixes)} (the {what} format is the suffix)"
        )


# -- mesh ---------------------------------------------------------------------------------------

MESH_EPILOG = """\
The mesh is in frame_a coordinates, in metres: frame_a at the origin, the axis from frame_a
to frame_b. Formats: .stl (binary, float32), .obj (text, 17 significant digits), .glb
(binary glTF, float32), .ply (binary, float32). Walls thinner than about 1e-7 of the body's
size do not survive float32 files; use .obj for those.

Examples:
  rigidparts mesh cone -o cone.stl
  rigidparts mesh cone --inner-radius-a 0.3 --inner-radius-b 0.05 --sections 128 -o tube.obj
  rigidparts mesh box --inner-width 0.06 --inner-height 0.14 --rotate90 -o hollow_box.glb
"""


def _cmd_mesh(args: argparse.Namespace) -> int:
    from ..cli import body_from_args
    from ..mesh import FLOAT32_FORMATS, body_mesh, export_mesh

    _check_suffix(args.output, MESH_SUFFIXES, "mesh")
    body = body_from_args(args.shape, args)
    mesh = body_mesh(body, sections=args.sections)
    suffix = Path(args.output).suffix.lower()
    export_mesh(mesh, args.output)
    error = mesh.volume / body.volume - 1.0
    print(
        f"wrote {args.output}: {len(mesh.faces)} triangles, {len(mesh.vertices)} vertices, "
        f"mesh volume {mesh.volume:.9g} m^3 (exact {body.volume:.9g} m^3, {error:+.3g} relative)"
    )
    if suffix in FLOAT32_FORMATS:
        shortest = float(mesh.edges_unique_length.min())
        if shortest < 1e-6 * float(mesh.scale):
            print(
                f"warning: {args.output} stores float32 vertices; the shortest edge "
                f"({shortest:.3g} m) is below 1e-6 of the body's size, so thin walls may collapse "
                "when the file is read back: use .obj (full float64 precision)",
                file=sys.stderr,
            )
    return 0


def _add_mesh(subparsers: Any) -> None:
    from ..cli import add_body_options

    parser = subparsers.add_parser(
        "mesh",
        help="write a body's surface mesh (.stl, .obj, .glb, .ply)",
        description="Write the watertight surface mesh of a box or a cone, in frame_a (m).",
        epilog=MESH_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    shapes = parser.add_subparsers(
        dest="shape", metavar="SHAPE", required=True, parser_class=type(parser)
    )
    for shape in SHAPES:
        p = shapes.add_parser(
            shape,
            help=f"the mesh of a {shape}",
            description=f"Write the surface mesh of a {shape} (frame_a coordinates, m).",
            epilog=MESH_EPILOG,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        out = p.add_argument_group("output")
        out.add_argument(
            "-o",
            "--output",
            required=True,
            metavar="FILE",
            help="the mesh file: .stl, .obj, .glb or .ply (format from the suffix)",
        )
        out.add_argument(
            "--sections",
            type=_sections,
            default=64,
            metavar="N",
            help="segments around round surfaces, integer >= 3 (default 64; the box ignores it)",
        )
        add_body_options(p, shape)
        p.set_defaults(handler=_cmd_mesh)


# -- view ---------------------------------------------------------------------------------------

VIEW_USAGE = """\
rigidparts view box  [box options]  -o FILE.png [picture options]
       rigidparts view cone [cone options] -o FILE.png [picture options]
       rigidparts view MODEL.toml          -o FILE.png [picture options]"""

VIEW_EPILOG = """\
TARGET comes first: 'box' or 'cone' (then the same options as 'rigidparts box' / 'rigidparts
cone'), or the path of a model file. See the options with
  rigidparts view box --help      rigidparts view cone --help      rigidparts view MODEL.toml --help

The picture shows the body (or every body of the model at its initial joint positions),
shaded and semi-transparent; a triad for every frame (x red, y green, z blue) labelled
frame_a, frame_b, frame_com, frame_c1, ... (BODY.FRAME in a model); the centre of mass
(circled cross); with --inertia, the equivalent inertia ellipsoid; a title with the mass and
material. Lengths in metres, one scale on all axes. No display is needed.

Examples:
  rigidparts view cone -o cone.png
  rigidparts view box --inner-width 0.06 --inner-height 0.14 --rotate90 -o box.png --inertia
  rigidparts view cone --radius-b 0.1 --inner-radius-a 0.08 --inner-radius-b 0.08 \\
      --axis 0,0,1 -o tube.png --view 35,-60 --size 1600x1200
  rigidparts view pendulum.toml -o pendulum.png
"""


def _add_picture_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("picture")
    group.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="FILE",
        help="the picture: .png (also .svg, .pdf, .jpg)",
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
        type=_sections,
        default=48,
        metavar="N",
        help="segments around round surfaces (default 48)",
    )
    group.add_argument("--no-labels", action="store_true", help="do not label the frames")
    group.add_argument("--no-frames", action="store_true", help="do not draw the frame triads")
    group.add_argument("--title", default=None, help="replace the title (default: mass, material)")


def _view_parser(args: argparse.Namespace) -> tuple[argparse.ArgumentParser, str]:
    """The second-stage parser of ``rigidparts view TARGET ...`` and the target's kind."""
    parser_class = args.view_parser_class
    target = args.target
    if target in SHAPES:
        from ..cli import EPILOG, add_body_options

        parser = parser_class(
            prog=f"rigidparts view {target}",
            description=f"Draw a {target} with its frames and centre of mass.",
            epilog=EPILOG,
        )
        _add_picture_options(parser)
        add_body_options(parser, target)
        return parser, target
    from ..errors import ParameterError

    if target.startswith("-"):
        raise ParameterError(
            "TARGET",
            target,
            "comes first: 'box', 'cone' or a model file (see 'rigidparts view -h')",
        )
    path = Path(target)
    if not path.is_file() and not {"-h", "--help"} & set(args.options):
        raise ParameterError(
            "TARGET", target, "must be 'box', 'cone' or an existing model file (.toml)"
        )
    parser = parser_class(
        prog=f"rigidparts view {target}",
        description="Draw every body of a model at its initial joint positions.",
    )
    _add_picture_options(parser)
    return parser, "model"


def _cmd_view(args: argparse.Namespace) -> int:
    parser, kind = _view_parser(args)
    options = parser.parse_args(args.options)
    _check_suffix(options.output, PICTURE_SUFFIXES, "picture")

    import matplotlib

    matplotlib.use("Agg")  # the command line never needs a display
    from ..fileio import atomic_path
    from .render import new_axes, plot_body, plot_model

    if kind == "model":
        from ..model import load_model

        subject = load_model(args.target)
        draw: Any = plot_model
    else:
        from ..cli import body_from_args

        subject = body_from_args(kind, options)
        draw = plot_body
    ax = new_axes(options.size, pyplot=False)
    draw(
        subject,
        ax=ax,
        view=options.view,
        title=True if options.title is None else options.title,
        sections=options.sections,
        inertia=options.inertia,
        labels=not options.no_labels,
        frames=not options.no_frames,
    )
    with atomic_path(options.output) as tmp:
        ax.figure.savefig(tmp, dpi="figure", format=Path(options.output).suffix.lower().lstrip("."))
    width, height = options.size
    print(f"wrote {options.output} ({width}x{height} px)")
    return 0


def _add_view(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "view",
        help="draw a body or a model to a picture (.png), headless",
        description="Draw a body (box, cone) or a model file to a picture, without a display.",
        usage=VIEW_USAGE,
        epilog=VIEW_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "target",
        metavar="TARGET",
        help="'box', 'cone', or the path of a model file (.toml)",
    )
    parser.add_argument(
        "options",
        nargs=argparse.REMAINDER,
        metavar="OPTIONS",
        help="the body options (for box/cone) and the picture options; see 'rigidparts view "
        "box --help'",
    )
    parser.set_defaults(handler=_cmd_view, view_parser_class=type(parser))


def register(subparsers: Any) -> None:
    """Add ``mesh`` and ``view`` to the ``rigidparts`` command line."""
    _add_mesh(subparsers)
    _add_view(subparsers)
