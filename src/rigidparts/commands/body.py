"""``rigidparts SHAPE [options] [--json]``: one command per shape of the registry.

Each prints the body's mass properties and frames as a table, or with ``--json`` one JSON object
(:meth:`rigidparts.component.Component.to_dict`, floats at full precision). The options come
from the shape's specification (:func:`._options.add_body_options`).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Collection
from typing import Any

from ..shapes import SHAPES
from ._options import add_body_options, body_epilog, body_from_args, format_table

__all__ = ["register", "run"]


def run(args: argparse.Namespace) -> int:
    """Print the body of ``args.shape`` as a table or JSON; returns the exit status 0."""
    body = body_from_args(args.shape, args)
    if args.json:
        print(json.dumps(body.to_dict(), indent=2))
    else:
        print(format_table(body))
    return 0


def register(subparsers: Any, reserved: Collection[str] = ()) -> None:
    """Add one subcommand per shape in :data:`~rigidparts.shapes.SHAPES`, in registry order,
    except the names in ``reserved`` (those of the other commands)."""
    for spec in SHAPES.values():
        if spec.name in reserved:  # a shape named like a command cannot shadow it
            continue
        parser = subparsers.add_parser(
            spec.name,
            help=f"mass properties and frames of {spec.summary}",
            description=f"Mass properties and frames of {spec.summary}.",
            epilog=body_epilog(spec),
        )
        add_body_options(parser, spec)
        parser.add_argument(
            "--json", action="store_true", help="print one JSON object (full precision)"
        )
        parser.set_defaults(handler=run, shape=spec.name)
