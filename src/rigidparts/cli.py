"""The ``rigidparts`` command line: thin over the library.

``rigidparts box ...`` / ``rigidparts cone ...`` print a body's mass properties and frames (a
table, or ``--json``); ``rigidparts materials`` lists the material table. Other subpackages add
their commands through a ``register(subparsers)`` function in the modules of
:data:`COMMAND_MODULES` (each must import nothing heavy at module level).

Bad input: one line ``error: ...`` on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import json
import re
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from .errors import ParameterError

__all__ = ["COMMAND_MODULES", "add_body_options", "body_from_args", "main"]

#: Modules that add subcommands (``register(subparsers)``), in help order.
COMMAND_MODULES: tuple[str, ...] = (
    "rigidparts.model.commands",
    "rigidparts.viz.commands",
)

EXIT_USAGE = 2


class UsageError(Exception):
    """A command-line problem to report as one ``error:`` line (exit status 2)."""


class _Parser(argparse.ArgumentParser):
    """argparse with a one-line ``error: ...`` instead of usage + message."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.prog} --help')")


EPILOG = """\
Lengths are in metres and densities in kg/m^3 unless you give units: --length "250 mm",
--density "7.85 g/cm^3" or "0.284 lb/in^3". Results are in SI, expressed in frame_a: the
inertia is about the centre of mass, in frame_a's axes.
"""


def _float_list(text: str) -> list[str]:
    """``"0,0,1"`` or ``"0 0 1"`` -> three items (converted and checked by the library)."""
    parts = [p for p in text.replace(",", " ").split() if p]
    if len(parts) != 3:
        raise argparse.ArgumentTypeError(f"expected three numbers like 0,0,1, got {text!r}")
    return parts


def add_body_options(parser: argparse.ArgumentParser, shape: str) -> None:
    """The options of ``rigidparts box`` / ``rigidparts cone`` (reused by ``mesh``/``view``)."""
    from .bodies import Box, Cone

    cls = {"box": Box, "cone": Cone}[shape]
    kernel = cls.kernel
    dims = parser.add_argument_group("dimensions (m, or with units such as '250 mm')")
    helps = {
        "length": "length along the axis, frame_a to frame_b",
        "width": "outer width (along the width direction)",
        "height": "outer height (along the height direction)",
        "inner_width": "width of the rectangular hole (0 = solid)",
        "inner_height": "height of the rectangular hole (0 = solid)",
        "radius_a": "outer radius at frame_a",
        "radius_b": "outer radius at frame_b",
        "inner_radius_a": "bore radius at frame_a (0 = solid)",
        "inner_radius_b": "bore radius at frame_b (0 = solid)",
    }
    for name in kernel.PARAMETERS:
        default = kernel.DEFAULTS[name]
        dims.add_argument(
            "--" + name.replace("_", "-"),
            dest=name,
            default=default,
            metavar="LEN",
            help=f"{helps[name]} (default {default} m)",
        )
    orient = parser.add_argument_group("orientation")
    orient.add_argument(
        "--axis",
        type=_float_list,
        default=["1", "0", "0"],
        metavar="X,Y,Z",
        help="axis direction in frame_a, any non-zero vector (default 1,0,0)",
    )
    if shape == "box":
        orient.add_argument(
            "--rotate90",
            action="store_true",
            help="turn the cross-section 90 degrees about the axis",
        )
        orient.add_argument(
            "--height-direction",
            type=_float_list,
            default=None,
            metavar="X,Y,Z",
            help="explicit height direction (default: the rule in the README)",
        )
    mat = parser.add_argument_group("material (one of)")
    mat.add_argument(
        "--material",
        default=None,
        help="name from 'rigidparts materials' (default steel, 7860 kg/m^3)",
    )
    mat.add_argument(
        "--density",
        default=None,
        metavar="RHO",
        help="density in kg/m^3 or with units ('7.85 g/cm^3'); replaces the material",
    )
    parser.add_argument(
        "--extra-frame",
        dest="extra_frames",
        action="append",
        default=[],
        metavar="OFFSET",
        help="an extra frame at this offset along the axis (repeatable: frame_c1, frame_c2, ...)",
    )


def body_from_args(shape: str, args: argparse.Namespace) -> Any:
    """Build the body described by the options of :func:`add_body_options`."""
    from .bodies import Box, Cone
    from .component import DEFAULT_MATERIAL

    cls = {"box": Box, "cone": Cone}[shape]
    kwargs: dict[str, Any] = {name: getattr(args, name) for name in cls.kernel.PARAMETERS}
    kwargs["axis"] = args.axis
    kwargs["material"] = DEFAULT_MATERIAL if args.material is None else args.material
    kwargs["density"] = args.density
    kwargs["extra_frames"] = args.extra_frames
    if shape == "box":
        kwargs["rotate90"] = args.rotate90
        kwargs["height_direction"] = args.height_direction
    return cls(**kwargs)


def _fmt(x: float) -> str:
    return f"{x:.9g}"


def _vec(v: Any) -> str:
    return "[" + ", ".join(f"{x:>13.6g}" for x in v) + "]"


def format_table(body: Any) -> str:
    """The human-readable report of one body."""
    data = body.to_dict()
    params = data["parameters"]
    lines = [f"{body.shape.capitalize()}"]
    dims = ", ".join(f"{k} = {_fmt(params[k])} m" for k in body.kernel.PARAMETERS)
    lines.append(f"  dimensions        {dims}")
    lines.append(f"  axis (frame_a)    {_vec(body.axis)}")
    if body.shape == "box":
        lines.append(f"  height direction  {_vec(body.height_direction)}")
        lines.append(f"  width direction   {_vec(body.width_direction)}")
    material = data["material"] or "(given density)"
    lines += [
        "",
        f"  material          {material}",
        f"  density           {_fmt(data['density'])} kg/m^3",
        f"  volume            {_fmt(data['volume'])} m^3",
        f"  mass              {_fmt(data['mass'])} kg",
        f"  centre of mass    {_vec(data['center_of_mass'])} m   (in frame_a)",
        "",
        "  inertia about the centre of mass, frame_a axes (kg m^2):",
    ]
    lines += [f"      {_vec(row)}" for row in data["inertia"]]
    lines.append(f"  principal moments {_vec(data['principal_moments'])} kg m^2")
    lines.append("  principal axes (columns):")
    lines += [f"      {_vec(row)}" for row in data["principal_axes"]]
    lines += ["", "  frames (position in frame_a, m; all with frame_a's orientation):"]
    for name, frame in data["frames"].items():
        lines.append(f"      {name:<10} {_vec(frame['position'])}")
    return "\n".join(lines)


def _cmd_body(args: argparse.Namespace) -> int:
    body = body_from_args(args.command, args)
    if args.json:
        print(json.dumps(body.to_dict(), indent=2))
    else:
        print(format_table(body))
    return 0


def _cmd_materials(args: argparse.Namespace) -> int:
    from .materials import list_materials

    materials = list_materials()
    if args.json:
        rows = [
            {
                "name": m.name,
                "density": m.density,
                "aliases": list(m.aliases),
                "description": m.description,
                "source": m.source,
            }
            for m in materials
        ]
        print(json.dumps(rows, indent=2))
        return 0
    width = max(len(m.name) for m in materials)
    print(f"{'name':<{width}}  {'density kg/m^3':>14}  description (source)")
    for m in materials:
        print(f"{m.name:<{width}}  {m.density:>14.6g}  {m.description} ({m.source})")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser, with the commands of :data:`COMMAND_MODULES`."""
    parser = _Parser(
        prog="rigidparts",
        description=(
            "Exact mass, centre of mass, inertia and frames of parametric rigid bodies "
            "(Box, Cone), for multibody models; models of them exported to MJCF, URDF and SDF "
            "and simulated on MuJoCo; pictures and meshes. SI units throughout."
        ),
        epilog=(
            "Examples:\n  rigidparts cone\n  rigidparts box --length '250 mm' --width 0.02 "
            "--height 0.04 --material aluminium --json\n  rigidparts cone --inner-radius-a 0.39 "
            "--inner-radius-b 0.09 --axis 0,0,1\n  rigidparts materials\n"
            "  rigidparts simulate examples/pendulum.toml\n"
            "  rigidparts export examples/pendulum.toml -o pendulum.urdf\n"
            "  rigidparts view cone -o cone.png\n\n"
            "Run 'rigidparts COMMAND --help' for a command's options."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for shape, text in (
        ("box", "a box (rectangular bar), solid or hollow"),
        ("cone", "a cone or frustum, solid or hollow"),
    ):
        p = sub.add_parser(
            shape,
            help=f"mass properties and frames of {text}",
            description=f"Mass properties and frames of {text}.",
            epilog=EPILOG,
        )
        add_body_options(p, shape)
        p.add_argument("--json", action="store_true", help="print one JSON object (full precision)")
        p.set_defaults(handler=_cmd_body)
    p = sub.add_parser(
        "materials",
        help="list the material table (density and source)",
        description="List the material table: name, density (kg/m^3), description and source.",
    )
    p.add_argument("--json", action="store_true", help="print a JSON list")
    p.set_defaults(handler=_cmd_materials)
    for module_name in COMMAND_MODULES:
        importlib.import_module(module_name).register(sub)
    return parser


_NEGATIVE_VALUE = re.compile(r"^-\.?\d")


def _attach_negative_values(argv: Sequence[str]) -> list[str]:
    """``--axis -1,0,0`` -> ``--axis=-1,0,0``: argparse would read ``-1,0,0`` as an option."""
    out: list[str] = []
    for token in argv:
        if out and _NEGATIVE_VALUE.match(token) and out[-1].startswith("--") and "=" not in out[-1]:
            out[-1] = f"{out[-1]}={token}"
        else:
            out.append(token)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: returns the exit status (0 ok, 2 bad input or usage, 1 other failure)."""
    parser = build_parser()
    argv = _attach_negative_values(sys.argv[1:] if argv is None else argv)
    try:
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help()
            return EXIT_USAGE
        handler: Callable[[argparse.Namespace], int] = args.handler
        return handler(args)
    except (UsageError, ParameterError) as exc:
        _error(str(exc))
        return EXIT_USAGE
    except OSError as exc:
        _error(f"{exc.filename or ''}: {exc.strerror or exc}".lstrip(": "))
        return EXIT_USAGE
    except KeyboardInterrupt:
        _error("interrupted")
        return 130


def _error(message: str) -> None:
    print(f"error: {' '.join(message.split())}", file=sys.stderr)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
