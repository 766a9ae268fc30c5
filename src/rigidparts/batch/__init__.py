"""Mass properties of many bodies at once: ``rp.batch.box(...)`` and ``rp.batch.cone(...)``.

>>> import numpy as np, rigidparts as rp
>>> wall = np.geomspace(1e-9, 1e-2, 1_000_000)
>>> tubes = rp.batch.cone(length=0.5, radius_a=0.05, radius_b=0.05,
...                       inner_radius_a=0.05 - wall, inner_radius_b=0.05 - wall)
>>> tubes.mass.shape, tubes.center_of_mass.shape, tubes.inertia.shape
((1000000,), (1000000, 3), (1000000, 3, 3))

Arguments are those of :class:`rigidparts.Box` / :class:`rigidparts.Cone`, keyword-only, each
a scalar or a 1-D array; they broadcast together to N rows. Lengths and the density may be
numbers (SI), strings with units (``"250 mm"``), sequences of such strings, or pint Quantities
wrapping arrays. ``axis`` and ``height_direction`` are (3,) or (N, 3); ``rotate90`` is a bool or
a bool array; ``material`` is one name or an array of N names (or give ``density``, not both).
``height_direction=None`` applies the axis rule to every row; an explicit one must be valid on
every row (a zero row is an error, as ``(0, 0, 0)`` is for one body).
``extra_frames`` is not supported: a frame at offset ``s`` is ``s * axis``.

The result, :class:`BatchMassProperties`, holds read-only arrays in frame_a, SI units:
``mass`` (N,) kg, ``volume`` (N,) m^3, ``density`` (N,) kg/m^3, ``center_of_mass`` (N, 3) m
(``p_AoBcm_A``), ``inertia`` (N, 3, 3) kg m^2 (``I_BBcm_A``: about each body's centre of mass,
in frame_a axes), and ``error_codes`` / ``valid`` for the rows that break a rule.

Invalid rows. Validation is per row and vectorised. With ``on_invalid="raise"`` (default) the
first invalid row raises :class:`~rigidparts.ParameterError` naming the parameter, the row
(``error.index``) and the rule, as ``rp.Cone`` would for that body. With ``on_invalid="mask"``
invalid rows hold NaN, ``valid`` is False there, and :meth:`BatchMassProperties.errors` says
why.

One kernel. Every row goes through the very functions the scalar path uses
(``rigidparts.shapes.<shape>.check``/``closed_form``, ``rigidparts.frames``,
``rigidparts.inertia.rotate_principal_inertia``), compiled by numba with IEEE semantics
(engine ``"numba"``, the default when numba is installed), so ``batch.cone(...).inertia[i]`` is
bit-for-bit ``rp.Cone(...).inertia`` for the same arguments, thin walls included. Without numba
the same functions run on numpy arrays in cache-sized chunks (engine ``"numpy"``): the same
bits, about 30x slower (the validity rules are evaluated one row at a time in Python).

Dask. If any argument is a dask array, the result holds lazy dask arrays computed chunk by
chunk (``result.compute()`` gives a numpy-backed result); an invalid row raises at compute
time, naming its global index (the first invalid row of the chunk that failed first).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType, ModuleType
from typing import Any, Literal

import numpy as np

from .. import frames as _frames
from ..component import DEFAULT_MATERIAL
from ..errors import ParameterError
from ..inertia import MassProperties
from ..shapes import UNREPRESENTABLE_RULE, unrepresentable_parameter
from ..shapes import box as _box
from ..shapes import cone as _cone
from ..units import to_si_array
from . import _pool

__all__ = ["ENGINE", "EXTRA_RULES", "BatchMassProperties", "box", "cone", "release_memory"]

OnInvalid = Literal["raise", "mask"]
Engine = Literal["auto", "numba", "numpy"]

#: Rules checked beyond the shape's own ``RULES``; error code ``len(RULES) + 1 + i``. The
#: last one ("dimensions": results that overflow float64) is reported, as by the scalar path,
#: under the name of the row's largest dimension.
EXTRA_RULES: tuple[tuple[str, str], ...] = (
    *_frames.FRAME_RULES,
    ("dimensions", UNREPRESENTABLE_RULE),
)

_SHAPES: dict[str, ModuleType] = {"box": _box, "cone": _cone}

try:  # compiles (or loads from numba's on-disk cache) both kernels once, here
    from . import _numba
except ImportError:  # numba missing: the numpy engine
    _numba = None  # type: ignore[assignment]

#: The engine ``engine="auto"`` uses: ``"numba"`` when numba is installed, else ``"numpy"``.
ENGINE: str = "numba" if _numba is not None else "numpy"


# -- the result --------------------------------------------------------------------------------


def _readonly(array: Any) -> Any:
    if isinstance(array, np.ndarray) and array.flags.writeable:
        array.setflags(write=False)
    return array


@dataclass(frozen=True, eq=False, repr=False)
class BatchMassProperties:
    """Mass properties of N bodies of one shape, each expressed in its own frame_a.

    Attributes (read-only numpy arrays, or dask arrays when built from dask input)
    ----------
    shape : str
        ``"box"`` or ``"cone"``.
    mass : (N,) float64
        kg.
    volume : (N,) float64
        m^3.
    density : (N,) float64
        kg/m^3 (a broadcast view of the input: it may have stride 0).
    center_of_mass : (N, 3) float64
        ``p_AoBcm_A``, m.
    inertia : (N, 3, 3) float64
        ``I_BBcm_A``: about each body's centre of mass, in frame_a axes, kg m^2.
    error_codes : (N,) uint8
        0 for a valid row, else ``1 + i`` for the first broken rule ``rules[i]``.
    inputs : mapping name -> array
        Every argument in SI, broadcast to the rows (read-only views, not copies): the
        shape's dimensions and ``density`` (N,), ``axis`` and ``height_direction`` (N, 3)
        (zeros when not given: by the rule), ``rotate90`` (N,) bool.
    rules : tuple of (parameter, rule)
        The shape's ``RULES`` followed by :data:`EXTRA_RULES`.

    Invalid rows (``on_invalid="mask"``) hold NaN in every float array.
    """

    shape: str
    mass: Any
    volume: Any
    density: Any
    center_of_mass: Any
    inertia: Any
    error_codes: Any
    inputs: Mapping[str, Any]
    rules: tuple[tuple[str, str], ...]

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

    def __getitem__(self, index: int) -> MassProperties:
        """Row ``index`` as a :class:`rigidparts.MassProperties` (in that body's frame_a);
        raises ParameterError for an invalid row."""
        if not isinstance(index, numbers.Integral) or isinstance(index, bool):
            raise TypeError(f"batch index must be an integer, not {type(index).__name__}")
        n = len(self)
        if not -n <= index < n:
            raise IndexError(f"row {index} out of range for a batch of {n}")
        row = self.compute() if self.lazy else self
        i = int(index) % n
        code = int(row.error_codes[i])
        if code:
            raise _row_error(row, i, code)
        return MassProperties(row.mass[i], row.center_of_mass[i], row.inertia[i])

    def errors(self, limit: int | None = None) -> list[tuple[int, str, str]]:
        """``(index, parameter, rule)`` for each invalid row, in order (at most ``limit``)."""
        row = self.compute() if self.lazy else self
        bad = np.flatnonzero(row.error_codes)
        if limit is not None:
            bad = bad[:limit]
        out = []
        for i in bad.tolist():
            error = _row_error(row, i, int(row.error_codes[i]))
            out.append((i, error.parameter, error.rule))
        return out

    def raise_if_invalid(self) -> None:
        """Raise ParameterError for the first invalid row, if any (as ``on_invalid="raise"``)."""
        row = self.compute() if self.lazy else self
        bad = np.flatnonzero(row.error_codes)
        if bad.size:
            i = int(bad[0])
            raise _row_error(row, i, int(row.error_codes[i]))

    @property
    def principal_moments(self) -> Any:
        """(N, 3) principal moments about each centre of mass, ascending, kg m^2 (NaN rows for
        invalid bodies). Computed on demand with a batched symmetric eigen-solver."""
        if self.lazy:
            import dask.array as da

            return da.map_blocks(_eigvalsh, self.inertia, dtype=np.float64, drop_axis=2)
        return _readonly(_eigvalsh(self.inertia))

    def compute(self, **dask_options: Any) -> BatchMassProperties:
        """A numpy-backed copy of a dask-backed result (itself when already numpy)."""
        if not self.lazy:
            return self
        import dask

        names = list(self.inputs)
        arrays = (
            self.mass,
            self.volume,
            self.density,
            self.center_of_mass,
            self.inertia,
            self.error_codes,
            *self.inputs.values(),
        )
        done = [_readonly(np.asarray(a)) for a in dask.compute(*arrays, **dask_options)]
        return BatchMassProperties(
            self.shape,
            *done[:6],
            inputs=MappingProxyType(dict(zip(names, done[6:], strict=True))),
            rules=self.rules,
        )

    def __repr__(self) -> str:
        kind = "dask" if self.lazy else "numpy"
        return f"BatchMassProperties(shape={self.shape!r}, n={len(self)}, arrays={kind})"


def _eigvalsh(inertia: np.ndarray) -> np.ndarray:
    finite = np.isfinite(inertia).all(axis=(1, 2))
    out = np.full(inertia.shape[:2], np.nan)
    if finite.any():
        out[finite] = np.linalg.eigvalsh(inertia[finite])
    return out


def _row_error(
    result: BatchMassProperties, i: int, code: int, index: int | None = None
) -> ParameterError:
    """The ParameterError rp.Box/rp.Cone would raise for row ``i``, with ``index`` (default
    ``i``; a dask chunk passes the row's global index)."""
    parameter, rule = result.rules[code - 1]
    dims = {
        name: float(result.inputs[name][i])
        for name in (*_SHAPES[result.shape].PARAMETERS, "density")
    }
    fields = dict(dims)
    if parameter == "dimensions":
        # As Component._build: named after the largest dimension; the row's results (NaN in
        # the arrays) recomputed by the same scalar function for the message.
        lengths = {k: v for k, v in dims.items() if k != "density"}
        parameter = unrepresentable_parameter(lengths)
        value: Any = lengths[parameter]
        _, mass, _, *moments = _SHAPES[result.shape].closed_form(*dims.values())
        fields.update(mass=mass, moments=tuple(moments))
    else:
        value = result.inputs[parameter][i]
        value = value.tolist() if isinstance(value, np.ndarray) else float(value)
    return ParameterError(
        parameter, value, rule.format(**fields), index=i if index is None else index
    )


# -- argument parsing --------------------------------------------------------------------------


def _is_dask(value: Any) -> bool:
    return hasattr(value, "dask") and hasattr(value, "chunks")


def _direction_array(name: str, value: Any) -> Any:
    if _is_dask(value):
        array = value.astype(np.float64)
    else:
        try:
            array = np.asarray(value, dtype=np.float64)
        except (TypeError, ValueError):
            raise ParameterError(
                name, value, "must be a 3-vector or an (N, 3) array of numbers"
            ) from None
    if array.ndim not in (1, 2) or array.shape[-1] != 3:
        raise ParameterError(
            name, value, f"must have shape (3,) or (N, 3), got {tuple(array.shape)}"
        )
    return array


def _bool_array(name: str, value: Any) -> Any:
    array = value if _is_dask(value) else np.asarray(value)
    if array.dtype != np.bool_:
        raise ParameterError(name, value, "must be True or False (or an array of booleans)")
    return array


def _density_array(material: Any, density: Any) -> Any:
    """Per-row density (kg/m^3) from ``density`` or ``material`` (names)."""
    from ..materials import Material, get_material

    if density is not None:
        if material is not DEFAULT_MATERIAL and material is not None:
            raise ParameterError(
                "density", density, f"give either material ({material!r}) or density, not both"
            )
        return to_si_array("density", density, "density")
    if isinstance(material, Material):
        return np.asarray(material.density)
    if isinstance(material, str):
        return np.asarray(get_material(material).density)
    if _is_dask(material):
        raise ParameterError(
            "material", material, "must be a name or a numpy array of names, not a dask array"
        )
    names = np.asarray(material, dtype=object)
    if names.ndim != 1:
        raise ParameterError("material", material, "must be a name or a 1-D array of names")
    # One lookup per distinct name (a dict, in Python: pass densities for speed).
    densities = np.empty(names.shape[0])
    known: dict[str, float] = {}
    for i, item in enumerate(names.tolist()):
        if isinstance(item, Material):
            densities[i] = item.density
            continue
        if not isinstance(item, str):
            raise ParameterError("material", item, "must be a material name (a string)", index=i)
        value = known.get(item)
        if value is None:
            try:
                value = known[item] = get_material(item).density
            except ParameterError as exc:
                raise ParameterError("material", item, exc.rule, index=i) from None
        densities[i] = value
    return densities


def _row_count(arrays: Mapping[str, Any]) -> int:
    """N: the broadcast length of every input's rows; names the first one that disagrees."""
    n = None
    for name, array in arrays.items():
        rows = array.shape[:-1] if name in ("axis", "height_direction") else array.shape
        if len(rows) > 1:
            raise ParameterError(
                name, f"<array of shape {tuple(array.shape)}>", "must be a scalar or 1-D "
                "(flatten a grid with .ravel() and reshape the results)"
            )  # fmt: skip
        if not rows or rows[0] == 1:
            continue
        length = rows[0]
        if isinstance(length, float) and math.isnan(length):
            raise ParameterError(name, "<dask array>", "must have known chunk sizes")
        if n is None:
            n = int(length)
            first = name
        elif int(length) != n:
            raise ParameterError(
                name,
                f"<array of length {int(length)}>",
                f"does not broadcast with {first} (length {n})",
            )
    return 1 if n is None else n


def _prepare(
    shape: str,
    dimensions: Mapping[str, Any],
    *,
    material: Any,
    density: Any,
    axis: Any,
    rotate90: Any,
    height_direction: Any,
    extra_frames: Any,
    on_invalid: Any,
    engine: Any,
) -> BatchMassProperties:
    if on_invalid not in ("raise", "mask"):
        raise ParameterError("on_invalid", on_invalid, "must be 'raise' or 'mask'")
    if engine not in ("auto", "numba", "numpy"):
        raise ParameterError("engine", engine, "must be 'auto', 'numba' or 'numpy'")
    if engine == "numba" and _numba is None:
        raise ImportError(
            "rigidparts.batch engine='numba' needs numba: pip install 'rigidparts[batch]'"
        )
    engine = ENGINE if engine == "auto" else engine
    if extra_frames is not None and len(extra_frames) > 0:
        raise ParameterError(
            "extra_frames",
            extra_frames,
            "is not supported by the batch functions (a frame at offset s is s * axis)",
        )

    kernel = _SHAPES[shape]
    inputs: dict[str, Any] = {
        name: to_si_array(name, dimensions[name], "length") for name in kernel.PARAMETERS
    }
    inputs["density"] = _density_array(material, density)
    inputs["axis"] = _direction_array("axis", axis)
    inputs["height_direction"] = (
        np.zeros(3)
        if height_direction is None
        else _direction_array("height_direction", height_direction)
    )
    inputs["rotate90"] = _bool_array("rotate90", rotate90)
    n = _row_count(inputs)

    if any(_is_dask(value) for value in inputs.values()):
        from . import _dask

        return _dask.evaluate(
            shape,
            inputs,
            n,
            on_invalid=on_invalid,
            engine=engine,
            explicit_height=height_direction is not None,
        )

    rows = _broadcast_rows(inputs, n)
    result, invalid = _evaluate(
        shape, rows, engine=engine, explicit_height=height_direction is not None
    )
    if invalid and on_invalid == "raise":
        result.raise_if_invalid()
    return result


def _broadcast_rows(inputs: Mapping[str, np.ndarray], n: int) -> dict[str, np.ndarray]:
    """Read-only (N,) / (N, 3) views of every input (no copies: scalars get stride 0)."""
    rows = {}
    for name, array in inputs.items():
        target = (n, 3) if name in ("axis", "height_direction") else (n,)
        rows[name] = _rows_view(array, target)
    return rows


def _rows_view(array: np.ndarray, target: tuple[int, ...]) -> np.ndarray:
    """``np.broadcast_to(array, target)`` (read-only, no copy) for the two cases here -- an
    array of the target's shape, or one row to repeat -- at a fraction of its cost."""
    if array.shape == target:
        view = array.view()
    else:
        row = array.reshape(target[1:])
        if not row.flags.c_contiguous:
            row = row.copy()
        view = np.ndarray(target, row.dtype, buffer=row, strides=(0, *row.strides))
    view.flags.writeable = False
    return view


def _evaluate(
    shape: str,
    rows: Mapping[str, np.ndarray],
    *,
    engine: str,
    explicit_height: bool,
    threads: bool = True,
) -> tuple[BatchMassProperties, int]:
    """Evaluate N rows (numpy arrays of the final shapes): ``(result, invalid row count)``."""
    kernel = _SHAPES[shape]
    n = rows["density"].shape[0]
    axis, height, rotate90 = rows["axis"], rows["height_direction"], rows["rotate90"]
    first_extra = len(kernel.RULES) + 1

    # One frame for every row (the common case: a single axis) is computed once, here, by the
    # same scalar functions.
    shared = n <= 1 or (
        axis.strides[0] == 0 and height.strides[0] == 0 and rotate90.strides[0] == 0
    )
    frame = np.full((3, 3), np.nan)
    frame_code = 0
    if shared and n:
        frame_code, frame = _shared_frame(
            axis[0], height[0], bool(rotate90[0]), explicit_height, first_extra
        )

    volume = _pool.empty((n,))
    mass = _pool.empty((n,))
    center_of_mass = _pool.empty((n, 3))
    inertia = _pool.empty((n, 3, 3))
    error_codes = _pool.empty((n,), np.uint8)
    inputs = (
        *(rows[name] for name in kernel.PARAMETERS),
        rows["density"],
        axis,
        height,
        rotate90,
        frame,
        frame_code,
        not shared,
        explicit_height,
        first_extra,
    )
    outputs = (volume, mass, center_of_mass, inertia, error_codes)
    invalid = 0
    if n:
        if engine == "numba":
            invalid = _numba.run(shape, inputs, outputs, threads=threads)
        else:
            from . import _numpy

            invalid = _numpy.run(kernel, inputs, outputs)

    result = BatchMassProperties(
        shape,
        mass=_readonly(mass),
        volume=_readonly(volume),
        density=rows["density"],
        center_of_mass=_readonly(center_of_mass),
        inertia=_readonly(inertia),
        error_codes=_readonly(error_codes),
        inputs=MappingProxyType(
            {
                k: v
                for k, v in rows.items()
                if shape == "box" or k in (*kernel.PARAMETERS, "density", "axis")
            }
        ),
        rules=tuple(kernel.RULES) + EXTRA_RULES,
    )
    return result, invalid


def _shared_frame(
    axis: np.ndarray, height: np.ndarray, rotate90: bool, explicit_height: bool, first_extra: int
) -> tuple[int, np.ndarray]:
    """``(code, rows e, h, w)`` for one axis / height direction, as the scalar path does.

    Cached by the inputs' bytes (not their values: -0.0 and 0.0 are equal but can give
    differently signed zeros in the frame)."""
    key = (axis.tobytes(), height.tobytes(), rotate90, explicit_height, first_extra)
    found = _FRAMES.get(key)
    if found is None:
        if len(_FRAMES) > 256:
            _FRAMES.clear()
        found = _FRAMES[key] = _frame_of(
            *axis.tolist(), *height.tolist(), rotate90, explicit_height, first_extra
        )
    return found


_FRAMES: dict[tuple, tuple[int, np.ndarray]] = {}


def _frame_of(
    ax: float,
    ay: float,
    az: float,
    hx: float,
    hy: float,
    hz: float,
    rotate90: bool,
    explicit_height: bool,
    first_extra: int,
) -> tuple[int, np.ndarray]:
    code, *vectors = _frames.body_frame(ax, ay, az, rotate90, explicit_height, hx, hy, hz)
    frame = np.array(vectors).reshape(3, 3)  # rows e, h, w (NaN when invalid)
    frame.flags.writeable = False
    return (first_extra + code - 1 if code else 0), frame


# -- the public functions ----------------------------------------------------------------------


def release_memory() -> None:
    """Free the output buffers kept for reuse (see :mod:`rigidparts.batch._pool`: the batch
    functions keep up to 1 GiB of buffers of results nobody references any more, so that a
    repeated sweep does not pay the system's page zeroing on every call)."""
    _pool.release()


def box(
    *,
    length: Any = 1.0,
    width: Any = 0.1,
    height: Any = 0.2,
    inner_width: Any = 0.0,
    inner_height: Any = 0.0,
    axis: Any = (1.0, 0.0, 0.0),
    rotate90: Any = False,
    height_direction: Any = None,
    material: Any = DEFAULT_MATERIAL,
    density: Any = None,
    extra_frames: Any = (),
    on_invalid: OnInvalid = "raise",
    engine: Engine = "auto",
) -> BatchMassProperties:
    """Mass properties of N boxes (the arguments of :class:`rigidparts.Box`, broadcast).

    Each length is a scalar or an (N,) array (m, or with units); ``axis`` and
    ``height_direction`` are (3,) or (N, 3); ``rotate90`` a bool or (N,) bools; ``material``
    a name or (N,) names, or ``density`` a scalar or (N,) array (kg/m^3, or with units).
    Row ``i`` equals ``rp.Box(...)`` of row ``i``'s arguments bit for bit.

    ``on_invalid="raise"``: ParameterError for the first invalid row (``error.index``);
    ``"mask"``: invalid rows are NaN and ``valid`` is False there. ``engine``: ``"auto"``
    (numba when installed), ``"numba"`` or ``"numpy"`` (same results, slower).
    """
    return _prepare(
        "box",
        {
            "length": length,
            "width": width,
            "height": height,
            "inner_width": inner_width,
            "inner_height": inner_height,
        },
        material=material,
        density=density,
        axis=axis,
        rotate90=rotate90,
        height_direction=height_direction,
        extra_frames=extra_frames,
        on_invalid=on_invalid,
        engine=engine,
    )


def cone(
    *,
    length: Any = 1.0,
    radius_a: Any = 0.4,
    radius_b: Any = 0.1,
    inner_radius_a: Any = 0.0,
    inner_radius_b: Any = 0.0,
    axis: Any = (1.0, 0.0, 0.0),
    material: Any = DEFAULT_MATERIAL,
    density: Any = None,
    extra_frames: Any = (),
    on_invalid: OnInvalid = "raise",
    engine: Engine = "auto",
) -> BatchMassProperties:
    """Mass properties of N cones / frustums (the arguments of :class:`rigidparts.Cone`,
    broadcast; see :func:`box` for the conventions). Row ``i`` equals ``rp.Cone(...)`` of
    row ``i``'s arguments bit for bit."""
    return _prepare(
        "cone",
        {
            "length": length,
            "radius_a": radius_a,
            "radius_b": radius_b,
            "inner_radius_a": inner_radius_a,
            "inner_radius_b": inner_radius_b,
        },
        material=material,
        density=density,
        axis=axis,
        rotate90=False,
        height_direction=None,
        extra_frames=extra_frames,
        on_invalid=on_invalid,
        engine=engine,
    )
