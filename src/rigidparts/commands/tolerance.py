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
    _check_plot(args)
    result = tolerance(
        spec.name,
        samples=args.samples,
        seed=args.seed,
        percentiles=args.percentiles,
        on_invalid=args.on_invalid,
        chunk_size=args.chunk_size,
        scheduler=args.scheduler,
        progress=_progress(),
        limits=dict(args.limit) if args.limit else None,
        **parameters,
    )
    return _show(result, args)


def _check_plot(args: argparse.Namespace) -> None:
    if getattr(args, "plot", None) is not None:
        from ._options import check_suffix

        check_suffix(args.plot, PICTURE_SUFFIXES, "picture")
        check_output(args.plot, "--plot", force=args.force)


def _show(result: Any, args: argparse.Namespace) -> int:
    """Write the pictures asked for, print the table or the JSON. Returns 0."""
    written = []
    if getattr(args, "output", None) is not None:
        written.append(result.plot(args.output, force=args.force))
    if getattr(args, "plot", None) is not None:
        written.append(result.plot_report(args.plot, force=args.force))
    if args.json:
        print(json.dumps(result.to_dict(), indent=2, allow_nan=False))
    else:
        print(result)
        for path in written:
            print(f"\nwrote {path}")
    return 0


def run_model(args: argparse.Namespace) -> int:
    """``rigidparts tolerance model FILE --vary KEY=SPREAD ... --of OUTPUT ...``."""
    from ..model_tolerance import model_tolerance

    if args.output is not None:
        from ._options import check_suffix

        check_suffix(args.output, PICTURE_SUFFIXES, "picture")
        check_output(args.output, "-o", force=args.force)
    _check_plot(args)
    from ..formats import load_model

    model = load_model(args.model)
    result = model_tolerance(
        model,
        dict(args.vary),
        outputs=args.of or ["total_mass"],
        samples=args.samples,
        seed=args.seed,
        percentiles=args.percentiles,
        on_invalid=args.on_invalid,
        limits=dict(args.limit) if args.limit else None,
    )
    return _show(result, args)


def _pair(what: str, example: str) -> Any:
    """An argparse type: ``NAME=TEXT`` -> (NAME, TEXT), split at the first '='."""

    def parse(text: str) -> tuple[str, str]:
        name, sep, value = text.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise argparse.ArgumentTypeError(f"expected {what} such as {example!r}, got {text!r}")
        return name.strip(), value.strip()

    return parse


_LIMIT = _pair("OUTPUT=LOW..HIGH", "mass=1.2 kg..1.3 kg")


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
        _add_sampling_options(
            study,
            "invalid samples (an inner radius over the outer one): counted and left out (skip, "
            "the default) or an error naming the first",
        )
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
        _study_options(study, p.add_argument_group("output"))
        add_body_options(p, spec, frames=False)
        p.set_defaults(handler=run, shape=spec.name)
    _model_parser(parser)


def _study_options(study: Any, out: Any) -> None:
    """``--limit``, ``-o``, ``--plot``, ``--json``, ``--force`` (shared by the shape and model
    studies)."""
    study.add_argument(
        "--limit", type=_LIMIT, action="append", default=[], metavar="OUTPUT=LOW..HIGH",
        help="specification limits on an output (repeatable): 'mass=1.2 kg..1.3 kg', "
        "one-sided 'mass=..1.3 kg' or 'mass=1.2 kg..'; adds yield, ppm out of spec, Cp, Cpk",
    )  # fmt: skip
    out.add_argument(
        "--plot", default=None, metavar="FILE",
        help="each output's distribution with the limits, worst-case and RSS stacks, and the "
        "contributions bar charts (.png, .svg, .pdf)",
    )  # fmt: skip
    out.add_argument(
        "-o", "--output", default=None, metavar="FILE",
        help="histograms of the outputs with the first-order normal (.png, .svg, .pdf)",
    )  # fmt: skip
    out.add_argument("--json", action="store_true", help="print one JSON object (full precision)")
    add_output_options(out)


MODEL_EPILOG = """\
Keys are BODY.PARAMETER as for rp.randomize: a body name or a pattern ('*.density'), then a
dimension, density or mass; a spread without a nominal value ('+- 1 %') is taken around each
body's own value. Outputs: total_mass, com:BODY (the centre of mass of BODY and its
descendants), period:JOINT (the compound pendulum below a revolute joint), at the reference
configuration (every joint at zero). Invalid draws are counted and redrawn.

  rigidparts tolerance model examples/double_pendulum.toml --vary 'upper.length=400 mm +- 1 %'
      --vary '*.density=+- 2 %' --of total_mass --of period:shoulder
      --limit 'period:shoulder=1.372 s..1.383 s' --plot report.png
"""


def _model_parser(parser: argparse.ArgumentParser) -> None:
    """``rigidparts tolerance model FILE``: a study of a model's derived quantities."""
    shapes = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    p = shapes.add_parser(
        "model",
        help="a tolerance study of a model's total mass, centre of mass, pendulum period",
        description="Monte-Carlo tolerance study of a model's derived quantities "
        "(rp.tolerance(model, spec, outputs=...)).",
        epilog=MODEL_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("model", metavar="MODEL", help="a model file (.toml, .urdf, .xml, .sdf...)")
    study = p.add_argument_group("study")
    study.add_argument(
        "--vary", type=_pair("KEY=SPREAD", "arm.length=1 m +- 2 %"), action="append",
        default=[], required=True, metavar="KEY=SPREAD",
        help="a toleranced parameter (repeatable): 'arm.length=1 m +- 2 %%', '*.density=+- 1 %%'",
    )  # fmt: skip
    study.add_argument(
        "--of", action="append", default=[], metavar="OUTPUT",
        help="an output (repeatable): total_mass (default), com:BODY, period:JOINT",
    )  # fmt: skip
    _add_sampling_options(
        study, "invalid draws: counted and redrawn (skip, the default) or an error naming the key"
    )
    _study_options(study, p.add_argument_group("output"))
    p.set_defaults(handler=run_model, shape="model")


def _add_sampling_options(group: Any, on_invalid_help: str) -> None:
    """``--samples``, ``--seed``, ``--percentiles`` and ``--on-invalid`` of a study."""
    group.add_argument(
        "--samples", type=_number, default=100_000, metavar="N",
        help="number of samples, a positive integer such as 1e8 (default 100000)",
    )  # fmt: skip
    group.add_argument(
        "--seed", type=int, default=0, metavar="N",
        help="random seed, a non-negative integer (default 0)",
    )  # fmt: skip
    group.add_argument(
        "--percentiles", type=_percentiles, default=[0.1, 1.0, 50.0, 99.0, 99.9],
        metavar="P,P,...", help="percentiles to report, in %% (default 0.1,1,50,99,99.9)",
    )  # fmt: skip
    group.add_argument(
        "--on-invalid", choices=("skip", "error"), default="skip", help=on_invalid_help
    )
