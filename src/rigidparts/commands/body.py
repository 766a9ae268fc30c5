"""``rigidparts COMMAND [options] [--json]``: one command per shape of the registry.

The command is the specification's ``command`` (its name, unless that is taken by another
command: ``rigidparts meshbody FILE --units mm``). Each prints the body's mass properties and
frames as a table, or with ``--json`` one JSON object (:func:`rigidparts.report.report`: the
keys of :meth:`rigidparts.component.Component.to_dict`, ``inertia_about_frame_a`` and
``units``; floats at full precision), in SI or in ``--report-units`` (``mm,g``; also spelt
``--units`` where the shape has no parameter of that name). The options come from the shape's
specification (:func:`._options.add_body_options`). A body read from a file over 100 m across
gets a warning on stderr (:func:`._options.warn_large_coordinates`). ``--sensitivities`` adds
the exact partial derivatives of the mass properties (:mod:`rigidparts.sensitivity`, SI) after
the table, or as ``sensitivities`` in the JSON object.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Collection
from typing import Any

from ..shapes import SHAPES
from ._options import (
    add_body_options,
    add_units_option,
    body_epilog,
    body_from_args,
    format_table,
    warn_large_coordinates,
)

__all__ = ["register", "run"]


def run(args: argparse.Namespace) -> int:
    """Print the body of ``args.shape`` as a table or JSON; returns the exit status 0."""
    from ..report import report

    body = body_from_args(args.shape, args)
    warn_large_coordinates(body)
    # --sensitivities: the exact derivatives (rigidparts.sensitivity), always in SI.
    sensitivities = body.sensitivities() if getattr(args, "sensitivities", False) else None
    if args.json:
        data = report(body, args.report_units)
        if sensitivities is not None:
            data["sensitivities"] = sensitivities.to_dict()
        print(json.dumps(data, indent=2))
    else:
        print(format_table(body, args.report_units))
        if sensitivities is not None:
            print(f"\n{sensitivities}")
    return 0


def register(subparsers: Any, reserved: Collection[str] = (), only: str | None = None) -> None:
    """Add one subcommand per shape in :data:`~rigidparts.shapes.SHAPES`, in registry order,
    named by the specification's ``command``, except the names in ``reserved`` (those of the
    other commands); only command ``only`` when one is named."""
    for spec in SHAPES.values():
        if spec.command in reserved:  # a shape named like a command cannot shadow it
            continue
        if only is not None and spec.command != only:
            continue
        parser = subparsers.add_parser(
            spec.command,
            help=f"mass properties and frames of {spec.summary}",
            description=f"Mass properties and frames of {spec.summary}.",
            epilog=body_epilog(spec),
        )
        add_body_options(parser, spec)
        parser.add_argument(
            "--json", action="store_true", help="print one JSON object (full precision)"
        )
        add_units_option(parser, spec)
        parser.add_argument(
            "--sensitivities",
            action="store_true",
            help="also print the exact partial derivatives of the mass properties with respect "
            "to every dimension and the density (or mass), in SI",
        )
        parser.set_defaults(handler=run, shape=spec.name)
