"""Exact partial derivatives of many bodies at once: ``rp.batch.sensitivities(...)``.

>>> import numpy as np, rigidparts as rp
>>> s = rp.batch.sensitivities("cone", length=0.5, radius_a=np.linspace(0.04, 0.06, 1000),
...                            radius_b=0.03, inner_radius_a=0.02, inner_radius_b=0.01)
>>> s.parameters, s.inertia.shape
(('length', 'radius_a', 'radius_b', 'inner_radius_a', 'inner_radius_b', 'density'), (1000, 6, 3, 3))

The same forward-mode dual numbers as one body (:mod:`rigidparts.sensitivity`), with values
(N,) and gradients (n, N) as numpy arrays, pushed through the very closed form of the shape
(numpy applies the same IEEE operations element by element as Python floats): row ``j``
equals ``body.sensitivities()`` of the body of row ``j`` bit for bit
(``tests/test_sensitivity.py``). Rows are evaluated in blocks of :data:`BLOCK`, so the
temporaries stay bounded whatever N (the outputs themselves are ``17 n N`` floats).

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


def batch_sensitivities(result: BatchMassProperties) -> BatchSensitivities:
    """The :class:`BatchSensitivities` of a numpy-backed batch result (its ``inputs`` and
    ``rotation_from_canonical`` are all it reads)."""
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
    return BatchSensitivities(
        result,
        (*(name for name, _ in named), source_name),
        (*(unit for _, unit in named), source_unit),
        readonly(values),
        *(readonly(outputs[name]) for name in OUTPUTS),
    )
