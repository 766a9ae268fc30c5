"""``rigidparts tolerance SHAPE --DIMENSION "NOMINAL +- BAND" ... --samples N``: a Monte-Carlo
tolerance study (:func:`rigidparts.tolerancing.tolerance`).

One subcommand per shape with closed forms (the batch path), its options those of the shape's
body command (:func:`._options.add_body_options`): each dimension, ``--density`` or
``--mass`` takes an exact value or a tolerance (``"0.4 m +- 0.1 mm"``, ``"7860 kg/m^3 +- 1 %"``,
``"1 m +0.2 mm -0.1 mm"``, ``"0.4 m +- 0.09 mm normal"``, ``"0.4 m sigma 0.03 mm"``). Prints
the table of mean, standard deviation, percentiles and the first-order estimate, or with
``--json`` :meth:`~rigidparts.tolerancing.ToleranceResult.to_dict`; ``-o spread.png`` writes the
histograms. On a terminal the study's own progress bar (``progress=True``: tqdm, when
installed), nothing in a log. dask, numba and matplotlib load in the handler.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from typing import Any

from ..shapes import SHAPES
from ._options import (
    add_body_options,
    add_output_options,
    check_output,
    shape_parsers,
)

__all__ = ["register", "run"]

#: Picture formats of ``-o``.
PICTURE_SUFFIXES = (".png", ".svg", ".pdf")

EPILOG = """\
A tolerance is NOMINAL +- BAND (also written with ± or +/-; uniform in the band), NOMINAL
+PLUS -MINUS (asymmetric), NOMINAL +- BAND normal (normal, the band is 3 sigma) or NOMINAL
sigma SIGMA (normal); the band may be a percentage of the nominal value ('7860 kg/m^3 +- 1 %').
Dimensions, --density and --mass take a tolerance or an exact value; the rest keep their
defaults. Samples are drawn per block of 65536 from streams keyed by (seed, block), computed
with the batch path and reduced block by block: the figures are the same for any
--chunk-size and scheduler. Invalid samples (an inner radius over the outer one) are counted
and left out (--on-invalid skip) or stop the study (--on-invalid error).
"""


def _percentiles(text: str) -> list[float]:
    try:
        return [float(p) for p in text.replace(",", " ").split()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected numbers in 0..100 such as 0.1,1,50,99,99.9, got {text!r}"
        ) from None


def _progress() -> bool:
    """Whether to ask the study for its progress bar (``progress=True``, tqdm): on a
    terminal, when tqdm is installed; nothing in a log or a pipe."""
    return sys.stderr.isatty() and importlib.util.find_spec("tqdm") is not None


def run(args: argparse.Namespace) -> int:
    """Run the study of ``args.shape`` and print it (table or JSON); write ``-o``. Returns 0."""
    from ..tolerancing import tolerance

    if args.output is not None:
        from ._options import check_suffix

        check_suffix(args.output, PICTURE_SUFFIXES, "picture")
        check_output(args.output, "-o", force=args.force)
    spec = SHAPES[args.shape]
    parameters: dict[str, Any] = {name: getattr(args, name) for name in spec.parameter_names}
    for name in ("axis", "rotate90", "height_direction"):
        if name in spec.options():
            parameters[name] = getattr(args, name)
    for name in ("material", "density", "mass"):
        if getattr(args, name) is not None:
            parameters[name] = getattr(args, name)
    result = tolerance(
        spec.name,
        samples=args.samples,
        seed=args.seed,
        percentiles=args.percentiles,
        on_invalid=args.on_invalid,
        chunk_size=args.chunk_size,
        scheduler=args.scheduler,
        progress=_progress(),
        **parameters,
    )
    if args.output is not None:
        result.plot(args.output, force=args.force)
    if args.json:
        print(json.dumps(result.to_dict(), indent=2, allow_nan=False))
    else:
        print(result)
        if args.output is not None:
            print(f"\nwrote {args.output}")
    return 0


def _number(text: str) -> Any:
    """``1e8`` or ``100000000`` (checked by the library: a positive integer)."""
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None


def register(subparsers: Any) -> None:
    """Add ``tolerance`` with one subcommand per shape that has closed forms."""
    parser = subparsers.add_parser(
        "tolerance",
        help="Monte-Carlo tolerance study of a body's mass properties",
        description="Monte-Carlo tolerance study: mean, spread and percentiles of the mass, "
        "centre of mass, principal moments and volume for tolerances on the dimensions, the "
        "density or the mass, beside the first-order estimate from the exact sensitivities.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    for spec, p in shape_parsers(
        parser,
        [spec for spec in SHAPES.values() if spec.tier == 1],
        help_text="a tolerance study of {summary}",
        description="Monte-Carlo tolerance study of {summary}.",
        epilog=EPILOG,
    ):
        study = p.add_argument_group("study")
        study.add_argument(
            "--samples", type=_number, default=100_000, metavar="N",
            help="number of samples, a positive integer such as 1e8 (default 100000)",
        )  # fmt: skip
        study.add_argument(
            "--seed", type=int, default=0, metavar="N",
            help="random seed, a non-negative integer (default 0)",
        )  # fmt: skip
        study.add_argument(
            "--percentiles", type=_percentiles, default=[0.1, 1.0, 50.0, 99.0, 99.9],
            metavar="P,P,...", help="percentiles to report, in %% (default 0.1,1,50,99,99.9)",
        )  # fmt: skip
        study.add_argument(
            "--on-invalid", choices=("skip", "error"), default="skip",
            help="invalid samples (an inner radius over the outer one): counted and left out "
            "(skip, the default) or an error naming the first",
        )  # fmt: skip
        study.add_argument(
            "--scheduler", default=None, metavar="ADDRESS",
            help="a dask.distributed scheduler (tcp://host:8786; the cluster extra); default: "
            "dask's local threaded scheduler",
        )  # fmt: skip
        study.add_argument(
            "--chunk-size", type=_number, default=None, metavar="N",
            help="samples per dask task, rounded up to blocks of 65536 (default 1048576); "
            "the results do not depend on it",
        )  # fmt: skip
        out = p.add_argument_group("output")
        out.add_argument(
            "-o", "--output", default=None, metavar="FILE",
            help="histograms of the outputs with the first-order normal (.png, .svg, .pdf)",
        )  # fmt: skip
        out.add_argument(
            "--json", action="store_true", help="print one JSON object (full precision)"
        )
        add_output_options(out)
        add_body_options(p, spec, frames=False)
        p.set_defaults(handler=run, shape=spec.name)
