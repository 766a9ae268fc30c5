"""The ``rigidparts`` command line: one module per command, thin over the library.

- ``rigidparts SHAPE [options] [--json]`` (:mod:`.body`): one command per shape of the registry
  (:data:`rigidparts.shapes.SHAPES`), its options read from the shape's specification
  (:mod:`._options`): a body's mass properties and frames;
- ``rigidparts materials`` (:mod:`.materials`): the material table;
- ``rigidparts export`` / ``simulate`` (:mod:`.export`, :mod:`.simulate`): model files;
- ``rigidparts mesh`` / ``view`` (:mod:`.mesh`, :mod:`.view`): meshes and pictures.

Each command module has ``register(subparsers)`` and a ``run(args) -> int`` handler, and imports
nothing heavy at module level: matplotlib, trimesh, mujoco, numba, scipy and pint load in the
handlers that need them, so ``rigidparts SHAPE --json`` starts fast.

Bad input: one line ``error: ...`` on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import re
import sys
import textwrap
from collections.abc import Callable, Sequence

from ..errors import ParameterError
from ..shapes import SHAPES
from . import body, export, materials, mesh, simulate, view
from ._options import Parser, UsageError, body_from_args, format_table

__all__ = [
    "COMMANDS",
    "EXIT_USAGE",
    "UsageError",
    "body_from_args",
    "build_parser",
    "format_table",
    "main",
]

#: Exit status for bad input or usage.
EXIT_USAGE = 2

#: The commands beside the shapes' own, in help order: name -> module with ``register``. A
#: shape may not take one of these names (its body command would shadow the command).
COMMANDS = {
    "materials": materials,
    "export": export,
    "simulate": simulate,
    "mesh": mesh,
    "view": view,
}


def _examples() -> str:
    """Example command lines; the shape ones use the first shapes' own options."""
    specs = list(SHAPES.values())
    lines = [f"  rigidparts {spec.name}" for spec in specs[:1]]
    for spec in specs[:1]:
        length = next((p.name for p in spec.params if p.kind == "length"), None)
        option = f"--{length.replace('_', '-')} '250 mm' " if length else ""
        lines.append(f"  rigidparts {spec.name} {option}--material aluminium --json")
    for spec in specs[1:2]:
        axis = " --axis 0,0,1" if spec.axis else ""
        lines.append(f"  rigidparts {spec.name} --mass '2.5 kg'{axis}")
    lines += [
        "  rigidparts materials",
        "  rigidparts simulate examples/pendulum.toml",
        "  rigidparts export examples/pendulum.toml -o pendulum.urdf",
    ]
    lines += [f"  rigidparts view {spec.name} -o {spec.name}.png" for spec in specs[-1:]]
    return "Examples:\n" + "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser: one command per shape, then :data:`COMMANDS`."""
    parser = Parser(
        prog="rigidparts",
        description=textwrap.fill(
            "Exact mass, centre of mass, inertia and frames of parametric rigid bodies "
            f"({', '.join(SHAPES)}), for multibody models; models of them exported to the "
            "engines' formats and simulated on MuJoCo; pictures and meshes. SI units "
            "throughout.",
            width=90,
        ),
        epilog=_examples() + "\n\nRun 'rigidparts COMMAND --help' for a command's options.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    body.register(sub, reserved=COMMANDS)
    for module in COMMANDS.values():
        module.register(sub)
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
    """Entry point: runs the command of ``argv`` (default ``sys.argv[1:]``); returns the exit
    status (0 ok, 2 bad input or usage, 130 interrupted). Bad input prints one ``error:`` line
    on stderr, never a traceback."""
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
