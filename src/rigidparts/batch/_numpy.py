"""The batch path without numba: the same scalar functions, evaluated on numpy arrays.

A tier-1 ``closed_form`` and ``rotate_principal_inertia`` use only ``+ - * /`` (and constants
such as ``math.pi``), so called with numpy arrays they compute every row with the same IEEE
operations in the same order as with Python floats: the same bits as the scalar path (numpy
ufuncs do not fuse multiply-adds). The functions with branches (the shape's ``check``,
``results_representable`` and ``frames.body_frame`` when each row has its own axis) run once
per row (``numpy.frompyfunc`` or a loop) -- correct, and the reason this engine is about 30x
slower than the compiled one.

Rows are processed in chunks of :data:`CHUNK` so that the temporaries of each numpy
expression stay in cache and the extra memory stays small.
"""

from __future__ import annotations

import functools

import numpy as np

from .. import frames as _frames
from .. import inertia
from ..shapes import ShapeSpec, results_representable

__all__ = ["CHUNK", "run"]

#: Rows per chunk (each temporary is CHUNK float64: 64 KiB).
CHUNK = 8192

_representable = np.frompyfunc(results_representable, 6, 1)


@functools.lru_cache(maxsize=64)
def _row_check(check, arity: int) -> np.ufunc:
    return np.frompyfunc(check, arity, 1)


def run(spec: ShapeSpec, inputs: tuple, outputs: tuple) -> int:
    """Same contract as :func:`rigidparts.batch._numba.run`; returns the invalid-row count."""
    (dims, source, by_mass, axis, height, rotate90, frame, frame_code, per_row_frame,
     explicit_height) = inputs  # fmt: skip
    (out_volume, out_mass, out_density, out_com, out_inertia, out_moments, out_frame,
     out_code) = outputs  # fmt: skip
    closed_form = spec.closed_form
    assert closed_form is not None
    check = _row_check(spec.check, len(dims))
    source_code = spec.common_code("mass" if by_mass else "density")
    first_frame_code = spec.common_code("frame")
    unrepresentable_code = spec.common_code("unrepresentable")
    n = out_volume.shape[0]
    invalid = 0
    for start in range(0, n, CHUNK):
        rows = slice(start, min(start + CHUNK, n))
        x = [d[rows] for d in dims]
        given = source[rows]
        size = given.shape[0]
        with np.errstate(all="ignore"):  # invalid rows may divide by zero: masked below
            codes = np.asarray(check(*x), dtype=np.int64).reshape(-1)
            codes = np.broadcast_to(codes, (size,))
            codes = np.where((codes == 0) & ~((0.0 < given) & (given < np.inf)), source_code, codes)
            if by_mass:  # density = mass / volume, as Component._build
                rho = given / closed_form(*x, 1.0)[0]
            else:
                rho = given
            volume, mass, com_x, i0, i1, i2 = closed_form(*x, rho)
            if by_mass:
                mass = given  # the given mass, exactly

            if per_row_frame:  # the scalar path's own function, row by row (slow, but exact)
                found = np.array(
                    [
                        _frames.body_frame(*a, r, explicit_height, *h)
                        for a, r, h in zip(
                            axis[rows].tolist(),
                            rotate90[rows].tolist(),
                            height[rows].tolist(),
                            strict=True,
                        )
                    ],
                    dtype=np.float64,
                ).reshape(-1, 10)
                frame_codes = found[:, 0].astype(np.int64)
                frame_codes = np.where(frame_codes > 0, frame_codes + first_frame_code - 1, 0)
                out_frame[rows] = found[:, 1:].reshape(-1, 3, 3)
                ex, ey, ez, hx, hy, hz, wx, wy, wz = found[:, 1:].T
            else:
                frame_codes = frame_code
                (ex, ey, ez), (hx, hy, hz), (wx, wy, wz) = (tuple(map(float, r)) for r in frame)
            codes = np.where(codes == 0, frame_codes, codes)

            # The scalar path's last guard (Component._build): finite, positive results.
            representable = np.asarray(_representable(volume, mass, i0, i1, i2, rho), dtype=bool)
            codes = np.where((codes == 0) & ~representable, unrepresentable_code, codes)
            ixx, iyy, izz, ixy, ixz, iyz = inertia.rotate_principal_inertia(
                i0, i1, i2, ex, ey, ez, hx, hy, hz, wx, wy, wz
            )
            bad = codes != 0
            out_volume[rows] = volume
            out_mass[rows] = mass
            # As Component.center_of_mass: com_x e_axis, + 0.0 turns -0.0 into +0.0.
            out_com[rows, 0] = com_x * ex + 0.0
            out_com[rows, 1] = com_x * ey + 0.0
            out_com[rows, 2] = com_x * ez + 0.0
            tensor = out_inertia[rows]
            tensor[:, 0, 0] = ixx
            tensor[:, 1, 1] = iyy
            tensor[:, 2, 2] = izz
            tensor[:, 0, 1] = tensor[:, 1, 0] = ixy
            tensor[:, 0, 2] = tensor[:, 2, 0] = ixz
            tensor[:, 1, 2] = tensor[:, 2, 1] = iyz
            out_moments[rows, 0] = i0
            out_moments[rows, 1] = i1
            out_moments[rows, 2] = i2
            if by_mass:
                out_density[rows] = rho
        out_volume[rows][bad] = np.nan
        out_mass[rows][bad] = np.nan
        out_com[rows][bad] = np.nan
        out_inertia[rows][bad] = np.nan
        out_moments[rows][bad] = np.nan
        if by_mass:
            out_density[rows][bad] = np.nan
        out_code[rows] = codes
        invalid += int(bad.sum())
    return invalid
