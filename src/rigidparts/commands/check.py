"""``rigidparts check FILE... [--json] [--fix -o OUT | --in-place] [--keep mass|geometry |
--from-geometry] [--density D | --material M] [--search-path DIR ...] [--engines]``: the
inertials of URDF, MJCF, SDFormat and USD files against the engines' rules and the links' own
geometry (:func:`rigidparts.checking.check`), and a repaired copy
(:func:`rigidparts.checking.fix.fix`). ``--keep geometry`` is ``--from-geometry``; the repair
options (``--keep``, ``--from-geometry``, ``--density``, ``--material``) are refused without
``--fix`` or ``--in-place``; ``-o`` is refused before any work when it is the input, or in
another folder than a file with relative references. JSON: NaN is ``null``, an infinity the
string ``"inf"``.

Exit status: 0 nothing found, 1 findings, 2 a file that cannot be read (one line naming the
file, the element and the rule; nothing is written then). Progress goes to stderr when more
than one file is checked.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from ._options import (
    UsageError,
    add_output_options,
    add_search_path_option,
    check_not_input,
    check_output,
)

__all__ = ["register", "run"]


def _g(value: Any, digits: int = 4) -> str:
    try:
        return f"{float(value):.{digits}g}"
    except (TypeError, ValueError):
        return "-"


def _vector(values: Any) -> str:
    if values is None:
        return "-"
    return " ".join(_g(v) for v in values)


def _table(file: Any) -> str:
    """One table per file: per link declared mass, centre of mass, principal moments,
    validity by MuJoCo and Drake, the geometry's moments, the ratios and the findings."""
    counts = {s: sum(f.severity == s for f in file.findings) for s in ("error", "warning", "note")}
    notes = [*file.notes, *(note for link in file.links for note in link.notes)]
    counts["note"] += len(notes)  # the notes printed below the table, as the note findings
    head = (
        f"{file.path} ({file.format}): {len(file.links)} links, {counts['error']} errors, "
        f"{counts['warning']} warnings, {counts['note']} notes"
    )
    columns = ("link", "mass kg", "COM m", "moments kg m^2", "MuJoCo", "Drake",
               "geometry moments", "ratio", "findings")  # fmt: skip
    rows = []
    for link in file.links:
        declared = link.declared or {}
        computed = link.computed or {}
        ratios = (link.ratios or {}).get("principal_moments")
        validity = link.validity
        rows.append(
            (
                link.name,
                _g(declared.get("mass")) if declared else "none",
                _vector(declared.get("center_of_mass")) if declared else "-",
                _vector(declared.get("principal_moments")) if declared else "-",
                ("ok" if validity.get("mujoco") is None else "REFUSED") if validity else "-",
                ("ok" if validity.get("drake") is None else "INVALID") if validity else "-",
                _vector(computed.get("principal_moments")) if computed else "-",
                _vector(ratios) if ratios is not None else "-",
                ", ".join(f"{f.severity}:{f.code}" for f in link.findings) or "-",
            )
        )
    widths = [max(len(c), *(len(r[i]) for r in rows)) if rows else len(c)
              for i, c in enumerate(columns)]  # fmt: skip
    lines = [head, "  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)).rstrip()]
    for row in rows:
        lines.append("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
    for finding in file.findings:
        lines.append(str(finding))
        if finding.cause is not None and finding.cause.residual is not None:
            lines.append(
                f"    residual {finding.cause.residual:.3g} with the cause, "
                f"{finding.cause.declared_residual:.3g} as declared"
            )
    for note in notes:
        lines.append(f"note: {note}")
    if file.engines is not None:
        for engine, reading in file.engines["readings"].items():
            state = reading["error"] or reading["skipped"] or f"{len(reading['links'])} links"
            lines.append(f"engine {engine}: {state}")
        for disagreement in file.engines["disagreements"]:
            lines.append(f"  {disagreement['text']}")
    return "\n".join(lines)


def _check_output_folder(path: str, output: str) -> None:
    """UsageError when the repaired copy ``output`` of ``path`` would sit in another folder
    than a file with relative references (:func:`~rigidparts.checking.fix.check_output_folder`);
    a file that cannot be read is left to the check, which says why."""
    from ..checking.fix import check_output_folder
    from ..errors import ModelError, ParameterError
    from ..formats import format_of

    try:
        why = check_output_folder(path, format_of(path), output)
    except (ModelError, ParameterError, OSError):
        return
    if why is not None:
        raise UsageError(f"-o {output}: {why} (--in-place)")


def run(args: argparse.Namespace) -> int:
    """Check the files, print the tables (or JSON), repair when asked; returns the status."""
    from ..checking import check
    from ..checking.findings import plain
    from ..checking.fix import fix

    fixing = args.fix or args.in_place
    if args.fix and not (args.output or args.in_place):
        raise UsageError("--fix needs -o OUT (or --in-place)")
    if args.output and not args.fix:
        raise UsageError("-o is the repaired copy's path: give it with --fix")
    if args.output and args.in_place:
        raise UsageError("give -o OUT or --in-place, not both")
    if args.output and len(args.files) != 1:
        raise UsageError("--fix -o OUT takes one FILE (use --in-place for several)")
    if args.jobs is not None and args.jobs < 1:
        raise UsageError(f"--jobs {args.jobs}: give at least 1 worker process")
    if args.density is not None and args.material is not None:
        raise UsageError("give --density or --material, not both")
    if not fixing:
        given = [
            option
            for option, value in (
                ("--density", args.density),
                ("--material", args.material),
                ("--from-geometry", args.from_geometry or None),
                ("--keep", args.keep),
            )
            if value is not None
        ]
        if given:
            raise UsageError(f"{given[0]} sets how --fix repairs: give it with --fix or --in-place")
    if args.output:
        check_not_input(args.output, "-o", [(path, "the input") for path in args.files])
        check_output(args.output, "-o", force=args.force)
        _check_output_folder(args.files[0], args.output)

    def progress(index: int, count: int, path: str) -> None:
        if count > 1:
            print(f"[{index + 1}/{count}] {path}", file=sys.stderr)

    # several files, nothing to repair: one worker process per core (files are independent)
    jobs = args.jobs or (min(os.cpu_count() or 1, 8) if len(args.files) >= 8 else 1)
    report = check(args.files, search_path=args.search_path, engines=args.engines,
                   progress=progress, jobs=1 if fixing else jobs)  # fmt: skip
    if report.unreadable:
        for file in report.unreadable:
            print(f"error: {file.error}", file=sys.stderr)
        return 2
    results = []
    if fixing:
        keep = "geometry" if args.from_geometry or args.keep == "geometry" else "mass"
        for file in report.files:
            results.append(
                fix(
                    file,
                    args.output,
                    keep=keep,
                    density=args.density,
                    material=args.material,
                    in_place=args.in_place,
                )
            )
    if args.json:
        out = report.to_dict()
        if fixing:
            out["fixed"] = [r.to_dict() for r in results]
        print(json.dumps(plain(out), indent=1, allow_nan=False))
    else:
        print("\n\n".join(_table(file) for file in report.files))
        for result in results:
            changed = ", ".join(result.changed) or "none"
            if result.written:
                print(f"wrote {result.path}: repaired {changed}")
            else:
                print(f"nothing written to {result.path}: no link could be repaired")
            for name, why in result.unfixed.items():
                print(f"  left {name}: {why}")
            for note in result.notes:
                print(f"  note: {note}")
    return report.status


def register(subparsers: Any) -> None:
    """Add the ``check`` subcommand."""
    parser = subparsers.add_parser(
        "check",
        help="check (and repair) the inertials of URDF, MJCF, SDFormat and USD files",
        description=(
            "Check the declared inertials of robot description files: validity by MuJoCo's "
            "and Drake's rules, and the mass, centre of mass and inertia computed exactly from "
            "each link's own geometry, with graded findings and diagnosed causes. Exit status "
            "0: nothing found, 1: findings, 2: unreadable input."
        ),
        epilog="Example: rigidparts check robot.urdf --fix -o robot_fixed.urdf",
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="URDF, MJCF, SDF or USD files")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--fix", action="store_true", help="write a repaired copy (with -o)")
    parser.add_argument("-o", "--output", metavar="OUT", help="the repaired copy's path")
    parser.add_argument(
        "--in-place", action="store_true", help="repair the files themselves (atomically)"
    )
    policy = parser.add_mutually_exclusive_group()
    policy.add_argument(
        "--keep",
        choices=("mass", "geometry"),
        default=None,
        help="what the repair keeps: 'mass' (the default) the declared mass, the geometry's "
        "inertia scaled to it; 'geometry' the geometry's mass too (as --from-geometry)",
    )
    policy.add_argument(
        "--from-geometry",
        action="store_true",
        help="the mass too from the geometry, with --density or --material",
    )
    parser.add_argument("--density", metavar="D", help="kg/m^3 (or with units: '2.7 g/cm^3')")
    parser.add_argument("--material", metavar="M", help="a material of the table")
    add_search_path_option(parser)
    parser.add_argument(
        "--engines", action="store_true", help="also load the file in every installed engine"
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="check the files in N worker processes (default: one per core, up to 8, for 8 "
        "files or more; 1 with --fix or --in-place)",
    )
    add_output_options(parser)
    parser.set_defaults(handler=run)
