"""The batch path without numba: the same scalar functions, evaluated on numpy arrays.

``closed_form`` and ``rotate_principal_inertia`` use only ``+ - * /`` (and the constant
``math.pi``), so called with numpy arrays they compute every row with the same IEEE operations
in the same order as with Python floats: the same bits as the scalar path (numpy ufuncs do not
fuse multiply-adds). The functions with branches (``check``, ``results_representable`` and
``frames.body_frame`` when each row has its own axis) run once per row (``numpy.frompyfunc`` or
a loop) -- correct, and the reason
this engine is about 30x slower than the compiled one.

Rows are processed in chunks of :data:`CHUNK` so that the temporaries of each numpy
expression stay in cache and the extra memory stays small.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np

from .. import frames as _frames
from .. import inertia
from ..shapes import results_representable

__all__ = ["CHUNK", "run"]

#: Rows per chunk (each temporary is CHUNK float64: 64 KiB).
CHUNK = 8192

_representable = np.frompyfunc(results_representable, 4, 1)


def run(shape: ModuleType, inputs: tuple, outputs: tuple) -> int:
    """Same contract as :func:`rigidparts.batch._numba.run`; returns the invalid-row count."""
    (*dims, rho, axis, height, rotate90, frame, frame_code, per_row_frame, explicit_height,
     first_extra) = inputs  # fmt: skip
    out_volume, out_mass, out_com, out_inertia, out_code = outputs
    check = np.frompyfunc(shape.check, 6, 1)
    n = out_volume.shape[0]
    invalid = 0
    for start in range(0, n, CHUNK):
        rows = slice(start, min(start + CHUNK, n))
        x = [d[rows] for d in dims] + [rho[rows]]
        with np.errstate(all="ignore"):  # invalid rows may divide by zero: masked below
            codes = check(*x).astype(np.int64)
            volume, mass, com_x, i0, i1, i2 = shape.closed_form(*x)

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
                frame_codes = np.where(frame_codes > 0, frame_codes + first_extra - 1, 0)
                ex, ey, ez, hx, hy, hz, wx, wy, wz = found[:, 1:].T
            else:
                frame_codes = frame_code
                (ex, ey, ez), (hx, hy, hz), (wx, wy, wz) = (tuple(map(float, r)) for r in frame)
            codes = np.where(codes == 0, frame_codes, codes)

            # The scalar path's last guard (Component._build): finite, positive results.
            finite_results = _representable(mass, i0, i1, i2).astype(bool)
            codes = np.where((codes == 0) & ~finite_results, first_extra + 4, codes)
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
        out_volume[rows][bad] = np.nan
        out_mass[rows][bad] = np.nan
        out_com[rows][bad] = np.nan
        out_inertia[rows][bad] = np.nan
        out_code[rows] = codes
        invalid += int(bad.sum())
    return invalid
