"""Exact partial derivatives of many bodies at once: ``rp.batch.sensitivities(...)``.

>>> import numpy as np, rigidparts as rp
>>> s = rp.batch.sensitivities("cone", length=0.5, radius_a=np.linspace(0.04, 0.06, 1000),
...                            radius_b=0.03, inner_radius_a=0.02, inner_radius_b=0.01)
>>> s.parameters, s.inertia.shape
(('length', 'radius_a', 'radius_b', 'inner_radius_a', 'inner_radius_b', 'density'), (1000, 6, 3, 3))

The same forward-mode dual numbers as one body (:mod:`rigidparts.sensitivity`), pushed through
the very closed form of the shape, by one of two engines that give the same bits (row ``j``
equals ``body.sensitivities()`` of the body of row ``j`` bit for bit,
``tests/test_sensitivity.py``):

- ``"numba"`` (:mod:`._sensitivity`): the closed form compiled by numba on a dual-number type
  whose arithmetic is the core's rules of differentiation, one pass per parameter, row by row,
  straight into the outputs (no temporaries: memory is the outputs, ``17 n N`` floats);
- ``"numpy"``: the Python :class:`~rigidparts.sensitivity.Dual` with values (N,) and gradients
  (n, N) as numpy arrays (numpy applies the same IEEE operations element by element as Python
  floats), in blocks of :data:`BLOCK` rows so the temporaries stay bounded whatever N.

``engine="auto"`` takes the compiled one when numba is installed, unless the batch has fewer
than :data:`COMPILED_ROWS` rows and numba is not imported yet (importing it costs more than
the numpy path spends on them).

Arrays are (N, n, ...): body index first, then the parameter (``parameters[i]``), then the
output's own axes, as ``rp.batch`` puts the body first. Invalid rows of a batch computed with
``on_invalid="mask"`` hold NaN. Dask-backed (lazy) batches are refused: compute them (or a
chunk of them) first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ParameterError
from ..sensitivity import (
    DIFFERENTIABLE_KINDS,
    OUTPUTS,
    DerivativeTable,
    Sensitivities,
    SensitivityRow,
    closed_form_derivatives,
    differentiable_parameters,
    frame_derivatives,
)
from .result import BatchMassProperties, readonly

__all__ = ["BLOCK", "BatchSensitivities", "batch_sensitivities"]

#: Rows per block of evaluation (the Duals' temporaries are about 100 n BLOCK floats).
BLOCK = 2**14


@dataclass(frozen=True, eq=False, repr=False)
class BatchSensitivities(DerivativeTable):
    """Exact partial derivatives of N bodies' mass properties (module docstring).

    Attributes (read-only numpy arrays, SI units, frame_a of each body)
    ----------
    result : the :class:`BatchMassProperties` they belong to.
    parameters, units : as :class:`rigidparts.sensitivity.Sensitivities` (one tuple for all
        rows).
    values : (N, n) each row's parameter values.
    mass, volume : (N, n).
    center_of_mass : (N, n, 3).
    inertia : (N, n, 3, 3) about each centre of mass, frame_a axes.
    principal_moments : (N, n, 3) of the ascending principal moments.
    """

    result: BatchMassProperties
    parameters: tuple[str, ...]
    units: tuple[str, ...]
    values: np.ndarray
    mass: np.ndarray
    volume: np.ndarray
    center_of_mass: np.ndarray
    inertia: np.ndarray
    principal_moments: np.ndarray

    @property
    def shape(self) -> str:
        """The shape's name."""
        return self.result.spec.name

    @property
    def valid(self) -> np.ndarray:
        """(N,) True where the row is a valid body (NaN derivatives elsewhere)."""
        return np.asarray(self.result.valid)

    def __len__(self) -> int:
        return int(self.mass.shape[0])

    def __getitem__(self, key: Any) -> Any:
        """``s[j]`` (an integer): row ``j`` as a :class:`Sensitivities`, bit for bit the
        body's (ParameterError for an invalid row, as the batch would raise). ``s[name]``: the
        derivatives with respect to one parameter over every row, a
        :class:`~rigidparts.sensitivity.SensitivityRow` of arrays ((N,), (N, 3), (N, 3, 3))."""
        if isinstance(key, str):
            i = self.index(key)
            return SensitivityRow(
                key,
                self.units[i],
                self.values[:, i],
                self.mass[:, i],
                self.volume[:, i],
                self.center_of_mass[:, i],
                self.inertia[:, i],
                self.principal_moments[:, i],
            )
        if isinstance(key, bool | np.bool_) or not isinstance(key, int | np.integer):
            raise TypeError("index batch sensitivities by a row (an integer) or a parameter name")
        j = range(len(self))[int(key)]  # IndexError beyond the rows
        error = self.result.error(j)
        if error is not None:
            raise error
        return Sensitivities(
            self.shape,
            self.parameters,
            self.units,
            self.values[j],
            self.mass[j],
            self.volume[j],
            self.center_of_mass[j],
            self.inertia[j],
            self.principal_moments[j],
        )

    def __repr__(self) -> str:
        return (
            f"BatchSensitivities(shape={self.shape!r}, n={len(self)}, parameters={self.parameters})"
        )


#: From this many rows on, ``rp.batch.sensitivities`` runs the compiled kernel even when numba is
#: not imported yet (importing it and loading the cached kernel cost a fresh process about
#: 0.5 to 1 s, what the numpy path, ~100 000 rows/s, spends on this many rows). Below, and
#: without numba, the numpy path: the same bits.
COMPILED_ROWS = 50_000


def _compiled(spec: Any, rows: int, engine: str = "auto") -> bool:
    """Whether the compiled kernel computes these rows (:data:`COMPILED_ROWS`): ``engine``
    ``"numba"`` (ImportError without numba), ``"numpy"``, or ``"auto"``."""
    from .evaluate import resolve_engine

    if engine not in ("auto", "numba", "numpy"):
        raise ParameterError("engine", engine, "must be 'auto', 'numba' or 'numpy'")
    if any(p.kind not in DIFFERENTIABLE_KINDS for p in spec.params):
        return False  # (none so far: every tier-1 dimension is a length)
    return resolve_engine(engine, rows if rows < COMPILED_ROWS else None) == "numba"


def _numpy_sensitivities(
    result: BatchMassProperties, n_rows: int, n: int, source_name: str, by_mass: bool
) -> dict[str, np.ndarray]:
    """The outputs by the Python :class:`~rigidparts.sensitivity.Dual` on numpy arrays, in
    blocks of :data:`BLOCK` rows (NaN in invalid rows)."""
    spec = result.spec
    inputs = result.inputs
    outputs = {
        "mass": np.full((n_rows, n), np.nan),
        "volume": np.full((n_rows, n), np.nan),
        "center_of_mass": np.full((n_rows, n, 3), np.nan),
        "inertia": np.full((n_rows, n, 3, 3), np.nan),
        "principal_moments": np.full((n_rows, n, 3), np.nan),
    }
    valid = np.flatnonzero(np.asarray(result.error_codes) == 0)
    rotation = result.rotation_from_canonical
    for start in range(0, valid.size, BLOCK):
        rows = valid[start : start + BLOCK]
        dimensions = [np.asarray(inputs[p.name])[rows] for p in spec.params]
        source = np.asarray(inputs[source_name])[rows]
        with np.errstate(all="ignore"):  # valid rows; overflow shows as inf, as in the batch
            canonical = closed_form_derivatives(spec, dimensions, source, by_mass)
            columns = frame_derivatives(
                canonical, np.asarray(rotation)[rows], np.asarray(result.canonical_moments)[rows]
            )
        for name in OUTPUTS:
            outputs[name][rows] = getattr(columns, name)
    return outputs


def batch_sensitivities(
    result: BatchMassProperties, *, engine: str = "auto"
) -> BatchSensitivities:
    """The :class:`BatchSensitivities` of a numpy-backed batch result (its ``inputs``,
    ``error_codes``, ``canonical_moments`` and ``rotation_from_canonical`` are all it reads),
    by the compiled kernel or the numpy path (``engine``: :func:`_compiled`)."""
    if not isinstance(result, BatchMassProperties):
        raise ParameterError(
            "result", result, "must be a rp.batch result (BatchMassProperties) or a shape name"
        )
    if result.lazy:
        raise ParameterError(
            "result",
            result,
            "is a lazy (dask) batch: call .compute() first, or compute sensitivities per chunk",
        )
    spec = result.spec
    inputs = result.inputs
    by_mass = "mass" in inputs
    source_name, source_unit = ("mass", "kg") if by_mass else ("density", "kg/m^3")
    named = differentiable_parameters(spec)
    n_rows, n = len(result), len(named) + 1
    values = np.empty((n_rows, n))
    for i, name in enumerate((*(name for name, _ in named), source_name)):
        values[:, i] = inputs[name]
    if _compiled(spec, n_rows, engine):
        outputs = {
            "mass": np.empty((n_rows, n)),
            "volume": np.empty((n_rows, n)),
            "center_of_mass": np.empty((n_rows, n, 3)),
            "inertia": np.empty((n_rows, n, 3, 3)),
            "principal_moments": np.empty((n_rows, n, 3)),
        }
        from . import _sensitivity

        _sensitivity.run(
            spec,
            (
                tuple(np.asarray(inputs[p.name], dtype=np.float64) for p in spec.params),
                np.asarray(inputs[source_name], dtype=np.float64),
                by_mass,
                np.asarray(result.error_codes),
                np.asarray(result.rotation_from_canonical),
                np.asarray(result.canonical_moments),
            ),
            tuple(outputs[name] for name in OUTPUTS),
        )
    else:
        outputs = _numpy_sensitivities(result, n_rows, n, source_name, by_mass)
    return BatchSensitivities(
        result,
        (*(name for name, _ in named), source_name),
        (*(unit for _, unit in named), source_unit),
        readonly(values),
        *(readonly(outputs[name]) for name in OUTPUTS),
    )
