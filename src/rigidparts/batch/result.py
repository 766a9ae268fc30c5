"""The result of a batch call: :class:`BatchMassProperties`, and the error of one row.

One type for one body and for many, in the spirit of ``scipy.spatial.transform.Rotation``:
``len(result)`` rows; ``result[i]`` is row ``i`` as a :class:`rigidparts.MassProperties`
(bit for bit the scalar body's ``mass_properties``), ``result[i:j]`` (or any numpy index of
rows) a smaller :class:`BatchMassProperties`.

Exact principal moments and axes. The kernel keeps what the closed forms give: the canonical
moments ``(I_xx, I_yy, I_zz)`` about the centre of mass along the shape's canonical axes C,
which are principal, and the frame ``R_AC = [e | h | w]``. The principal moments are those
moments sorted (stable), the principal axes the columns of ``R_AC`` in the same order, the
third negated when the order is an odd permutation (so the axes stay a proper rotation): what
:meth:`MassProperties.from_principal` does for one body, here vectorised, so a thin rod's
small moment is exact rather than an eigen-solver's rounding of ``trace * 1e-16``.
"""

from __future__ import annotations

import functools
import numbers
from collections.abc import Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any

import numpy as np

from ..errors import ParameterError
from ..inertia import MassProperties
from ..shapes import Rule, ShapeSpec, unrepresentable_parameter

__all__ = ["BatchMassProperties", "row_error"]


def readonly(array: Any) -> Any:
    """``array`` made read-only in place (numpy arrays; dask arrays are left as they are)."""
    if isinstance(array, np.ndarray) and array.flags.writeable:
        array.setflags(write=False)
    return array


#: The per-row arrays of a :class:`BatchMassProperties` (every field but ``spec`` and
#: ``inputs``): what taking rows or computing a lazy result maps over.
ROW_ARRAYS = (
    "mass",
    "volume",
    "density",
    "center_of_mass",
    "inertia",
    "error_codes",
    "canonical_moments",
    "rotation_from_canonical",
)


@dataclass(frozen=True, eq=False, repr=False)
class BatchMassProperties:
    """Mass properties of N bodies of one shape, each expressed in its own frame_a.

    Attributes (read-only numpy arrays, or dask arrays when built from dask input)
    ----------
    spec : ShapeSpec
        The shape's specification (:attr:`shape` is its name).
    mass : (N,) float64
        kg (exactly the given mass when ``mass=`` was given).
    volume : (N,) float64
        m^3.
    density : (N,) float64
        kg/m^3: a broadcast view of the given density or the materials' (it may have stride
        0), or ``mass / volume`` per row when ``mass=`` was given.
    center_of_mass : (N, 3) float64
        ``p_AoBcm_A``, m.
    inertia : (N, 3, 3) float64
        ``I_BBcm_A``: about each body's centre of mass, in frame_a axes, kg m^2.
    error_codes : (N,) uint8
        0 for a valid row, else ``1 + i`` for the first broken rule ``rules[i]``
        (``spec.all_rules``: the shape's rules, then the density, mass, frame and
        unrepresentable-results rules).
    inputs : mapping name -> array
        Every argument in SI, broadcast to the rows (read-only views, not copies): the
        shape's dimensions, ``density`` or ``mass`` (N,), and as the shape takes them ``axis``
        and ``height_direction`` (N, 3) (zeros when not given: by the rule), ``rotate90`` (N,).
    canonical_moments : (N, 3) float64
        ``(I_xx, I_yy, I_zz)`` about the centre of mass along the canonical axes C (principal;
        unsorted), kg m^2.
    rotation_from_canonical : (N, 3, 3) float64
        ``R_AC = [e_axis | h | w]`` (columns) per row; a stride-0 view when every row shares
        one frame.

    Invalid rows (``on_invalid="mask"``) hold NaN in every result array (not in the inputs
    nor in ``rotation_from_canonical``).
    """

    spec: ShapeSpec
    mass: Any
    volume: Any
    density: Any
    center_of_mass: Any
    inertia: Any
    error_codes: Any
    inputs: Mapping[str, Any]
    canonical_moments: Any
    rotation_from_canonical: Any

    @property
    def shape(self) -> str:
        """The shape's name (``"cone"``)."""
        return self.spec.name

    @property
    def rules(self) -> tuple[Rule, ...]:
        """What each error code means: ``rules[code - 1]`` (``spec.all_rules``)."""
        return self.spec.all_rules

    @property
    def valid(self) -> Any:
        """(N,) bool: True where the row is a valid body."""
        return self.error_codes == 0

    @property
    def lazy(self) -> bool:
        """True when the arrays are dask arrays (call :meth:`compute`)."""
        return not isinstance(self.mass, np.ndarray)

    def __len__(self) -> int:
        return int(self.mass.shape[0])

    def __getitem__(self, index: Any) -> Any:
        """Row ``index`` (an integer) as a :class:`rigidparts.MassProperties` in that body's
        frame_a, bit for bit the scalar body's ``mass_properties`` (ParameterError for an
        invalid row); any other numpy index of rows (a slice, an integer or boolean array)
        gives a :class:`BatchMassProperties` of those rows."""
        if isinstance(index, bool | np.bool_):
            raise TypeError("batch index must be an integer, a slice or an array, not a bool")
        if not isinstance(index, numbers.Integral):
            return self._rows(index)
        n = len(self)
        if not -n <= index < n:
            raise IndexError(f"row {index} out of range for a batch of {n}")
        i = int(index) % n
        row, j = self._numpy_row(i)
        code = int(row.error_codes[j])
        if code:
            raise row_error(row, j, code, index=i)
        return MassProperties.from_principal(
            float(row.mass[j]),
            row.center_of_mass[j],
            row.canonical_moments[j],
            row.rotation_from_canonical[j],
        )

    def _rows(self, index: Any) -> BatchMassProperties:
        """The rows ``index`` (a slice or an index array) as a new result (views where numpy
        gives views)."""
        if isinstance(index, tuple):
            raise TypeError("index a batch by rows only (one index, not a tuple)")

        def take(array: Any) -> Any:
            return readonly(array[index])

        try:
            arrays = {name: take(getattr(self, name)) for name in ROW_ARRAYS}
        except IndexError as exc:
            raise IndexError(f"{exc} (a batch of {len(self)} rows)") from None
        inputs = MappingProxyType({name: take(a) for name, a in self.inputs.items()})
        return replace(self, inputs=inputs, **arrays)

    def _numpy_row(self, i: int) -> tuple[BatchMassProperties, int]:
        """``(result, j)``: row ``i`` (in range) is row ``j`` of ``result``, a numpy-backed
        result (this one, or the computed row of a lazy one)."""
        if self.lazy:
            return self._rows(slice(i, i + 1)).compute(), 0
        return self, i

    def error(self, i: int, index: int | None = None) -> ParameterError | None:
        """The ParameterError the shape's class raises for row ``i``'s arguments (``index``
        names the row in the message: default ``i``; a caller that computed a slice of a
        larger set passes the global index), or None for a valid row. Not raised: returned."""
        i = range(len(self))[i]  # IndexError beyond the rows
        row, j = self._numpy_row(i)
        code = int(row.error_codes[j])
        if not code:
            return None
        return row_error(row, j, code, index=i if index is None else index)

    def errors(self, limit: int | None = None) -> list[tuple[int, str, str]]:
        """``(index, parameter, rule)`` for each invalid row, in order (at most ``limit``)."""
        row = self.compute() if self.lazy else self
        bad = np.flatnonzero(row.error_codes)
        if limit is not None:
            bad = bad[:limit]
        out = []
        for i in bad.tolist():
            error = row_error(row, i, int(row.error_codes[i]))
            out.append((i, error.parameter, error.rule))
        return out

    def raise_if_invalid(self) -> None:
        """Raise ParameterError for the first invalid row, if any (as ``on_invalid="raise"``)."""
        row = self.compute() if self.lazy else self
        bad = np.flatnonzero(row.error_codes)
        if bad.size:
            i = int(bad[0])
            raise row_error(row, i, int(row.error_codes[i]))

    @functools.cached_property
    def principal_moments(self) -> Any:
        """(N, 3) principal moments about each centre of mass, ascending, kg m^2 (NaN rows
        for invalid bodies): the closed forms' canonical moments sorted, exactly (module
        docstring), bit for bit each body's ``principal_moments``."""
        if self.lazy:
            import dask.array as da

            return da.map_blocks(_sorted_moments, self.canonical_moments, dtype=np.float64)
        return readonly(_sorted_moments(self.canonical_moments))

    @functools.cached_property
    def principal_axes(self) -> Any:
        """(N, 3, 3) principal axes (columns, a proper rotation) in each frame_a, matching
        :attr:`principal_moments` (NaN rows for invalid bodies): bit for bit each body's
        ``principal_axes``."""
        if self.lazy:
            import dask.array as da

            rotation = self.rotation_from_canonical
            return da.map_blocks(
                _sorted_axes,
                self.canonical_moments[:, None, :],  # (N, 1, 3): blocks aligned with R_AC's
                rotation,
                dtype=np.float64,
                chunks=rotation.chunks,
            )
        return readonly(_sorted_axes(self.canonical_moments, self.rotation_from_canonical))

    def compute(self, **dask_options: Any) -> BatchMassProperties:
        """A numpy-backed copy of a dask-backed result (itself when already numpy)."""
        if not self.lazy:
            return self
        import dask

        # One compute of everything (shared graph pieces run once); inputs may share a name
        # with an output (``mass``), so the two groups are split by position.
        arrays = [getattr(self, name) for name in ROW_ARRAYS] + list(self.inputs.values())
        done = [readonly(np.asarray(a)) for a in dask.compute(*arrays, **dask_options)]
        outputs, given = done[: len(ROW_ARRAYS)], done[len(ROW_ARRAYS) :]
        inputs = MappingProxyType(dict(zip(self.inputs, given, strict=True)))
        return replace(self, inputs=inputs, **dict(zip(ROW_ARRAYS, outputs, strict=True)))

    def __repr__(self) -> str:
        kind = "dask" if self.lazy else "numpy"
        return f"BatchMassProperties(shape={self.shape!r}, n={len(self)}, arrays={kind})"


def _order(moments: np.ndarray) -> np.ndarray:
    # Rows are 3 moments: argsort's stable sort per row is MassProperties.from_principal's.
    return np.argsort(moments, axis=-1, kind="stable")


def _sorted_moments(moments: np.ndarray) -> np.ndarray:
    """(N, 3): each row of canonical moments in ascending order (NaN rows stay NaN)."""
    return np.take_along_axis(moments, _order(moments), axis=-1)


def _sorted_axes(moments: np.ndarray, rotation: np.ndarray) -> np.ndarray:
    """(N, 3, 3): the columns of each ``R_AC`` in the order of its sorted moments, the third
    negated for an odd order (``det(R_AC) = +1``, so this is ``from_principal``'s ``det < 0``
    test without a determinant); NaN for rows whose moments are NaN (invalid bodies)."""
    moments = moments.reshape(-1, 3)  # dask hands (rows, 1, 3) blocks
    order = _order(moments)
    axes = np.take_along_axis(rotation, order[:, None, :], axis=2)
    o0, o1, o2 = order[:, 0], order[:, 1], order[:, 2]
    odd = ((o0 > o1).astype(np.int8) + (o0 > o2) + (o1 > o2)) % 2 == 1
    axes[odd, :, 2] = -axes[odd, :, 2]
    axes[np.isnan(moments).any(axis=1)] = np.nan
    return axes


def row_error(
    result: BatchMassProperties, i: int, code: int, index: int | None = None
) -> ParameterError:
    """The ParameterError the shape's class raises for row ``i``'s arguments, with ``index``
    (default ``i``; a dask chunk passes the row's global index)."""
    spec = result.spec
    rule = spec.all_rules[code - 1]
    dims = {name: float(result.inputs[name][i]) for name in spec.parameter_names}
    parameter = rule.parameter
    if code == spec.common_code("unrepresentable"):
        # As Component._build: named after the largest dimension; the row's results (NaN in
        # the arrays) recomputed by the same scalar function for the message.
        parameter = unrepresentable_parameter(dims)
        value: Any = dims[parameter]
        closed_form = spec.closed_form
        assert closed_form is not None
        # np.float64 arithmetic, as the kernel's: a volume that underflows divides to inf
        # (Python floats would raise ZeroDivisionError).
        args = [np.float64(v) for v in dims.values()]
        with np.errstate(all="ignore"):
            if "mass" in result.inputs:
                mass = float(result.inputs["mass"][i])
                rho = np.float64(mass) / closed_form(*args, np.float64(1.0))[0]
                moments = closed_form(*args, rho)[3:]
            else:
                _, mass, _, *moments = closed_form(*args, np.float64(result.inputs["density"][i]))
        mass, moments = float(mass), tuple(float(m) for m in moments)
        text = rule.text.format(mass=mass, moments=moments)
    else:
        value = result.inputs[parameter][i]
        value = value.tolist() if isinstance(value, np.ndarray) else float(value)
        text = rule.text.format(**dims)
    return ParameterError(parameter, value, text, index=i if index is None else index)
