"""Monte-Carlo tolerance studies (tolerancing): ``rp.tolerance(shape, samples=..., **parameters)``.

>>> import rigidparts as rp
>>> study = rp.tolerance("cone", radius_a="0.4 m +- 0.1 mm", length="1 m +- 0.5 mm",
...                      density="7860 kg/m^3 +- 1 %", samples=1_000_000, seed=0)
>>> print(study)                      # mean, std, percentiles; first-order estimate beside
>>> study.plot("spread.png")          # histograms, the first-order normal over each

Each toleranced parameter (a dimension, the density or the mass; :mod:`.values` for the text
form and :class:`Tolerance`) is drawn from its distribution, every sample is computed with the
batch path (the shape's compiled kernel, :mod:`rigidparts.batch`), and the samples are reduced
block by block to mean, standard deviation, min, max and histogram percentiles of the mass,
the centre of mass (frame_a), the principal moments about the centre of mass and the volume
(:mod:`.study`), with the first-order estimate from the exact sensitivities beside them
(:mod:`.result`). Untoleranced parameters keep the values given, or the shape's defaults.

Reproducible and exact: a sample depends only on (seed, its index); blocks of 2^16 samples are
combined in block order by Chan's formulas, so the figures are the same to the last bit for
any ``chunk_size``, scheduler and worker count. Bounded memory: chunks of whole blocks are
dask tasks returning small statistics, a few per thread in flight, folded as they arrive
(:mod:`.run`): the merged state does not grow with N, so 10^9 samples run in a few hundred MB
(the chunks in flight). Layer: over :mod:`rigidparts.batch` and the core; below the
command line (``rigidparts tolerance SHAPE ...``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from ..errors import ParameterError
from ..shapes import SHAPES, ShapeSpec, get_shape
from .capability import limit_array, parse_limits, study_figures
from .result import ToleranceResult
from .run import Accumulator, chunk_ranges, run_chunks
from .study import (
    BLOCK,
    OUTPUTS,
    UNITS,
    Plan,
    add_histogram,
    check_samples,
    distribution,
    evaluate_pilot,
    histogram_edges,
)
from .values import Tolerance, check_band, is_tolerance_text, parse_tolerance

__all__ = [
    "BLOCK",
    "DEFAULT_CHUNK",
    "DEFAULT_PERCENTILES",
    "OUTPUTS",
    "Tolerance",
    "ToleranceResult",
    "parse_tolerance",
    "split_parameters",
    "tolerance",
]

#: Percentiles reported by default (in %).
DEFAULT_PERCENTILES = (0.1, 1.0, 50.0, 99.0, 99.9)
#: Samples per chunk (one dask task) by default: 16 blocks.
DEFAULT_CHUNK = 16 * BLOCK
ON_INVALID = ("skip", "error")
#: Keywords of a body that are never toleranced (passed through as given).
_PASSED = ("axis", "rotate90", "height_direction", "material")


def _shape(shape: Any) -> ShapeSpec:
    spec = shape if isinstance(shape, ShapeSpec) else None
    if spec is not None:
        from ..batch import check_registered

        check_registered(spec)  # dask workers look the shape up by its name
    else:
        by_command = {s.command: s for s in SHAPES.values()}
        spec = by_command.get(shape) if isinstance(shape, str) else None
        spec = spec or get_shape(shape)
    if spec.tier != 1:
        raise ParameterError(
            "shape", spec.name, "has no batch path (no closed forms): tolerance studies need a "
            f"shape with closed forms: {', '.join(s.name for s in SHAPES.values() if s.tier == 1)}",
        )  # fmt: skip
    return spec


def split_parameters(
    shape: str | ShapeSpec, parameters: Mapping[str, Any]
) -> tuple[dict[str, Any], dict[str, Tolerance]]:
    """``(fixed keywords, tolerances by name)`` from a study's body keywords (text tolerances
    parsed to :class:`Tolerance`, SI); ParameterError for a keyword the shape does not take or
    a tolerance on one that cannot carry it (only dimensions of a kind in
    :data:`rigidparts.sensitivity.DIFFERENTIABLE_KINDS`, the density and the mass can)."""
    from ..sensitivity import DIFFERENTIABLE_KINDS

    spec = _shape(shape)
    kinds = {p.name: p.kind for p in spec.params}
    kinds.update(density="density", mass="mass")
    allowed = [*spec.parameter_names, *(k for k in spec.options() if k in _PASSED)]
    allowed += ["density", "mass"]
    fixed: dict[str, Any] = {}
    tolerances: dict[str, Tolerance] = {}
    for name, value in parameters.items():
        if name not in allowed:
            raise ParameterError(
                name, value, f"is not a parameter of shape {spec.name!r}: its parameters are "
                f"{', '.join(allowed)}",
            )  # fmt: skip
        if value is None:
            continue
        if isinstance(value, Tolerance) or is_tolerance_text(value):
            kind = kinds.get(name)
            if kind not in (*DIFFERENTIABLE_KINDS, "density", "mass"):
                raise ParameterError(
                    name, value, "cannot carry a tolerance: only dimensions (lengths, angles), "
                    "the density and the mass can",
                )  # fmt: skip
            tolerances[name] = (
                value if isinstance(value, Tolerance) else parse_tolerance(name, value, kind)
            )
        else:
            fixed[name] = value
    return fixed, tolerances


def _percentiles(percentiles: Any) -> tuple[float, ...]:
    try:
        values = tuple(float(q) for q in percentiles)
    except (TypeError, ValueError):
        raise ParameterError(
            "percentiles", percentiles, "must be a sequence of numbers between 0 and 100"
        ) from None
    for q in values:
        if not 0.0 <= q <= 100.0:
            raise ParameterError("percentiles", percentiles, f"has {q!r}: must be in 0..100")
    return values


def _positive_int(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise ParameterError(name, value, "must be a positive integer")
    if value <= 0:
        raise ParameterError(name, value, "must be a positive integer")
    return int(value)


def _seed(seed: Any) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ParameterError("seed", seed, "must be a non-negative integer")
    return int(seed)


def tolerance(
    shape: str | ShapeSpec,
    *,
    samples: int = 100_000,
    seed: int = 0,
    percentiles: Sequence[float] = DEFAULT_PERCENTILES,
    on_invalid: str = "skip",
    chunk_size: int | None = None,
    scheduler: str | None = None,
    client: Any = None,
    progress: bool | Callable[[int, int], None] = False,
    engine: str = "auto",
    limits: Mapping[str, Any] | None = None,
    **parameters: Any,
) -> ToleranceResult:
    """A Monte-Carlo tolerance study of a body of ``shape`` (module docstring).

    Parameters
    ----------
    shape : a shape name with closed forms (``"cone"``, ``"box"``...) or its ShapeSpec.
    samples : number of samples, a positive integer (``1e8`` accepted).
    seed : a non-negative integer: the random streams (block ``b``'s is keyed by (seed, b)).
    percentiles : in %, reported per output (default 0.1, 1, 50, 99, 99.9).
    on_invalid : ``"skip"`` (invalid samples, such as an inner radius over the outer one, are
        counted and left out) or ``"error"`` (ParameterError naming the first invalid sample
        seen, its parameter and the shape's rule).
    chunk_size : samples per dask task, rounded up to whole blocks of 2^16 (default 2^20);
        changes nothing in the results.
    scheduler : None or ``"threads"`` (dask's local threaded scheduler), ``"synchronous"``
        (alias ``"sync"``: the calling thread), or a dask.distributed scheduler address
        ``"tcp://host:8786"`` (the ``cluster`` extra; its scheme is checked first, then the
        client waits at most 10 s, or dask's shorter ``distributed.comm.timeouts.connect``).
    client : a ``dask.distributed.Client`` to run on (instead of ``scheduler``).
    progress : True for a progress bar on stderr (tqdm; ``rigidparts tolerance`` passes True
        when stderr is a terminal), or ``callback(done, total)``.
    engine : the batch engine, ``"auto"``, ``"numba"`` or ``"numpy"`` (same bits).
    limits : specification limits on outputs, ``{"mass": ("1.2 kg", "1.3 kg")}`` (numbers in
        SI, text or pint quantities with units; None for a one-sided limit) or ``{"mass":
        "1.2 kg..1.3 kg"}``: the result then holds yield, ppm out of specification, Cp and
        Cpk with confidence intervals (:mod:`.capability`), counted exactly from the samples.
    **parameters : the body's keywords (as for its class: dimensions, ``axis``, ``material``
        / ``density`` / ``mass``...): a tolerance (text such as ``"0.4 m +- 0.1 mm"`` or a
        :class:`Tolerance` in SI) on dimensions, the density or the mass; exact values
        otherwise; the shape's defaults for the rest.

    Returns
    -------
    ToleranceResult
    """
    spec = _shape(shape)
    n = check_samples(samples)
    seed = _seed(seed)
    qs = _percentiles(percentiles)
    if on_invalid not in ON_INVALID:
        raise ParameterError("on_invalid", on_invalid, "must be 'skip' or 'error'")
    chunk = DEFAULT_CHUNK if chunk_size is None else _positive_int("chunk_size", chunk_size)
    chunk_blocks = -(-chunk // BLOCK)
    if scheduler is not None and (
        not isinstance(scheduler, str)
        or (scheduler not in ("threads", "sync", "synchronous") and "://" not in scheduler)
    ):
        raise ParameterError(
            "scheduler", scheduler, "must be 'threads', 'synchronous' or a dask.distributed "
            "scheduler address such as 'tcp://host:8786'",
        )  # fmt: skip
    if client is not None and scheduler is not None:
        raise ParameterError("scheduler", scheduler, "give a scheduler or a client, not both")
    if engine not in ("auto", "numba", "numpy"):
        raise ParameterError("engine", engine, "must be 'auto', 'numba' or 'numpy'")

    limit_table = parse_limits(limits, OUTPUTS, UNITS)
    fixed, tolerances = split_parameters(spec, parameters)
    if not tolerances:
        raise ParameterError(
            "parameters", ", ".join(parameters) or "(none)", "give at least one tolerance, "
            "such as radius_a='0.4 m +- 0.1 mm' (the shape's parameters: "
            f"{', '.join(spec.parameter_names)}, and density or mass)",
        )  # fmt: skip
    from ..bodies import body_class
    from ..density import material_source

    material_source(  # at most one of material, density and mass
        fixed.get("material"),
        tolerances.get("density", fixed.get("density")),
        tolerances.get("mass", fixed.get("mass")),
    )
    nominal_kwargs = {**fixed, **{name: t.nominal for name, t in tolerances.items()}}
    body = body_class(spec.name)(**nominal_kwargs)  # the nominal body: its rules, its values
    for name, t in tolerances.items():
        given = parameters[name]
        check_band(name, given, t, spec.sign_rule(name))

    order = [*spec.parameter_names, "density", "mass"]
    drawn = tuple((name, tolerances[name]) for name in order if name in tolerances)
    if engine == "auto":
        # A small study (under the batch's AUTO_COMPILED_ROWS, numba not imported yet) runs on
        # the numpy engine throughout, its batches and its reduction: importing numba would
        # cost more than the study. Otherwise "auto" stays, for each worker to resolve.
        from ..batch.evaluate import resolve_engine

        if resolve_engine("auto", n) == "numpy":
            engine = "numpy"
    plan = Plan(
        shape=spec.name,
        fixed=fixed,
        tolerances=drawn,
        samples=n,
        seed=seed,
        on_invalid=on_invalid,
        engine=engine,
        limits=limit_array(limit_table, OUTPUTS),
    )
    nominal = np.array(
        [body.mass, *body.center_of_mass, *body.principal_moments, body.volume], dtype=float
    )
    fo_mean, fo_std = _first_order(body, tolerances, nominal)
    gradient = _gradient(body, [name for name, _ in drawn])

    started = time.perf_counter()
    report = _progress(progress, n)
    try:
        # A deterministic pilot (block 0) fixes the histogram edges before the study (its
        # range united with the first-order mean +- 8 sigma); its statistics and columns are
        # kept, so block 0 is computed once.
        pilot, columns = evaluate_pilot(plan)
        if on_invalid == "error" and pilot.error is not None:
            raise pilot.error
        plan = replace(plan, edges=histogram_edges(pilot.stats[0], nominal, fo_mean, fo_std))
        pilot.histogram = np.zeros((len(OUTPUTS), plan.bins + 2), np.int64)
        if columns.shape[1]:
            add_histogram(columns, pilot.stats[0], plan, pilot.histogram)
        del columns
        acc = Accumulator.empty(plan)
        done = acc.add(pilot, plan)
        if report is not None:
            report(done)
        acc = run_chunks(
            plan,
            chunk_ranges(plan, chunk_blocks, first=1),
            scheduler=scheduler,
            client=client,
            progress=report,
            acc=acc,
        )
    finally:
        if report is not None:
            report.close()
    valid, combined = acc.result(plan)
    distributed, m2 = distribution(plan, valid, combined, acc.histogram, qs)
    figures = study_figures(
        outputs=OUTPUTS,
        nominal=nominal,
        gradient=gradient,
        tolerances=[t for _, t in drawn],
        cross=acc.cross,
        valid=valid,
        mean=distributed["mean"],
        std=distributed["std"],
        output_m2=m2,
        limits=limit_table,
        outside=acc.outside,
    )
    result = ToleranceResult(
        shape=spec.name,
        parameters=dict(parameters),
        tolerances=dict(drawn),
        samples=n,
        seed=seed,
        valid=valid,
        invalid=n - valid,
        first_invalid=None if acc.first_invalid is None else acc.first_invalid[0],
        on_invalid=on_invalid,
        nominal=nominal,
        first_order_mean=fo_mean,
        first_order_std=fo_std,
        elapsed=time.perf_counter() - started,
        inputs=tuple(name for name, _ in drawn),
        sensitivity_method="exact (dual numbers through the closed forms)",
        **distributed,
        **figures,
    )
    return result


def _gradient(body: Any, names: Sequence[str]) -> np.ndarray:
    """(inputs, outputs) exact ``d output / d input`` of the nominal body (its
    ``sensitivities()``), rows in the order of ``names``."""
    sens = body.sensitivities()
    rows = np.column_stack([sens.mass, sens.center_of_mass, sens.principal_moments, sens.volume])
    return np.array([rows[sens.index(name)] for name in names]).reshape(len(names), len(OUTPUTS))


def _first_order(
    body: Any, tolerances: Mapping[str, Tolerance], nominal: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``(mean_1, std_1)`` per output from the body's exact sensitivities
    (:mod:`.result`)."""
    sens = body.sensitivities()
    rows = np.column_stack(
        [sens.mass, sens.center_of_mass, sens.principal_moments, sens.volume]
    )  # (parameters, outputs)
    mean = nominal.copy()
    variance = np.zeros_like(nominal)
    for name, t in tolerances.items():
        # Every tolerance has a row: dimensions of a differentiable kind (split_parameters
        # admits no other), and the density or the mass, whichever the body was built with.
        d = rows[sens.index(name)]
        mean = mean + d * (t.mean - t.nominal)
        variance = variance + d * d * t.variance
    return mean, np.sqrt(variance)


class _Report:
    """A progress sink: ``report(n)`` adds n done samples."""

    def __init__(self, sink: Callable[[int, int], None], total: int) -> None:
        self.sink, self.total, self.done = sink, total, 0

    def __call__(self, n: int) -> None:
        self.done += n
        self.sink(self.done, self.total)

    def close(self) -> None:
        pass


class _Bar(_Report):
    def __init__(self, total: int) -> None:
        try:
            from tqdm import tqdm
        except ImportError as exc:
            raise ImportError(
                f"progress=True needs tqdm: pip install 'rigidparts[viz]' ({exc})"
            ) from None
        self.bar = tqdm(
            total=total, unit="sample", unit_scale=True, desc="tolerance study", delay=1.0
        )
        super().__init__(lambda done, total: self.bar.update(done - self.bar.n), total)

    def close(self) -> None:
        self.bar.close()


def _progress(progress: Any, total: int) -> _Report | None:
    if progress is True:
        return _Bar(total)
    if callable(progress):
        return _Report(progress, total)
    if progress in (False, None):
        return None
    raise ParameterError("progress", progress, "must be True, False or a callable(done, total)")
