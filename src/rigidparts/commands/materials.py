"""``rigidparts materials [--json]``: the material table (name, density, description, source)."""

from __future__ import annotations

import argparse
import json
from typing import Any

__all__ = ["register", "run"]


def run(args: argparse.Namespace) -> int:
    """Print the material table (densities in kg/m^3) as text or a JSON list; returns 0."""
    from ..materials import list_materials

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


def register(subparsers: Any) -> None:
    """Add the ``materials`` subcommand."""
    parser = subparsers.add_parser(
        "materials",
        help="list the material table (density and source)",
        description="List the material table: name, density (kg/m^3), description and source.",
    )
    parser.add_argument("--json", action="store_true", help="print a JSON list")
    parser.set_defaults(handler=run)
