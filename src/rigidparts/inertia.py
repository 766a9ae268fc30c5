"""MassProperties: the mass, centre of mass and inertia of a rigid body, as one valid value.

Notation follows Drake's monogram style. For a body B and a frame A:

- ``m``: mass in kg.
- ``p_AoBcm_A``: position of B's centre of mass Bcm from A's origin Ao, expressed in A, in m.
- ``I_BBcm_A``: inertia of B about Bcm, expressed in A's axes, in kg m^2:
  ``I = integral of (|r|^2 1 - r r^T) dm`` with ``r`` measured from Bcm.

A :class:`MassProperties` is always expressed in some frame A; it holds ``mass``,
``center_of_mass`` (``p_AoBcm_A``) and ``inertia`` (``I_BBcm_A``) and refuses to hold anything
that no rigid body could have.

Tolerance policy (the one place it is set): the tensor must be symmetric, and its principal
moments ``I_1 <= I_2 <= I_3`` must satisfy ``I_1 >= 0`` and ``I_1 + I_2 >= I_3``, each to within
``INERTIA_TOLERANCE * (I_1 + I_2 + I_3)``. A point mass (zero tensor) is valid.
"""

from __future__ import annotations

import math
import operator
import struct
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .errors import ParameterError

__all__ = [
    "INERTIA_TOLERANCE",
    "MUJOCO_MINVAL",
    "MassProperties",
    "canonical_inertia",
    "invalidity_report",
    "mujoco_invalid_rows",
    "mujoco_invalidity",
    "parallel_axis_shift",
    "rotate_principal_inertia",
    "rotate_with_products",
    "rotation_layout",
    "rotation_products",
    "tensor_from_entries",
]

#: Relative tolerance (of the trace) for symmetry, positivity and the triangle inequality.
#: Rounding in a rotation or a sum of bodies stays far below it (about 1e-15); a tensor that
#: breaks a rule by more than this is not physical.
INERTIA_TOLERANCE = 1e-12


#: The slot names :func:`tensor_from_entries` knows, with their (row, column) in the tensor.
_SLOTS = {
    "ixx": (0, 0),
    "iyy": (1, 1),
    "izz": (2, 2),
    "ixy": (0, 1),
    "ixz": (0, 2),
    "iyz": (1, 2),
}


def tensor_from_entries(values: Iterable[float], order: tuple[str, ...]) -> np.ndarray:
    """The symmetric 3x3 tensor ``[[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]]`` from
    six ``values`` named, in the same order, by ``order`` (a permutation of ``"ixx"``,
    ``"iyy"``, ``"izz"``, ``"ixy"``, ``"ixz"``, ``"iyz"``): URDF's and SDFormat's
    ``("ixx", "ixy", "ixz", "iyy", "iyz", "izz")``, MuJoCo's ``fullinertia``
    ``("ixx", "iyy", "izz", "ixy", "ixz", "iyz")``. The entries are taken as given (the
    products of inertia, not their negatives); about whichever point and in whichever axes
    the values are. ValueError for an ``order`` that is not such a permutation or a count of
    values that is not six."""
    entries = [float(v) for v in values]
    if sorted(order) != sorted(_SLOTS) or len(entries) != 6:
        raise ValueError(
            f"tensor_from_entries: order {order!r} with {len(entries)} values: needs six "
            f"values named by a permutation of {tuple(_SLOTS)}"
        )
    tensor = np.empty((3, 3))
    for slot, value in zip(order, entries, strict=True):
        row, column = _SLOTS[slot]
        tensor[row, column] = tensor[column, row] = value
    return tensor


def rotate_principal_inertia(
    i0: float,
    i1: float,
    i2: float,
    ax: float,
    ay: float,
    az: float,
    bx: float,
    by: float,
    bz: float,
    cx: float,
    cy: float,
    cz: float,
) -> tuple[float, float, float, float, float, float]:
    """The tensor ``R diag(i0, i1, i2) R^T`` for ``R = [a | b | c]`` (orthonormal columns).

    Written as ``sum_k i_k r_k r_k^T`` so that each diagonal entry is a sum of non-negative
    terms (no cancellation). Returns ``(Ixx, Iyy, Izz, Ixy, Ixz, Iyz)``. Plain float arithmetic:
    the batch path compiles this same function. It is :func:`rotate_with_products` of
    :func:`rotation_products`, so a caller that rotates many tensors by one ``R`` computes the
    products once and gets the same bits.
    """
    return rotate_with_products(
        i0, i1, i2, *rotation_products(ax, ay, az, bx, by, bz, cx, cy, cz)
    )


def rotation_products(
    ax: float,
    ay: float,
    az: float,
    bx: float,
    by: float,
    bz: float,
    cx: float,
    cy: float,
    cz: float,
) -> tuple[float, ...]:
    """The 18 products ``r_k[i] r_k[j]`` of the columns ``a, b, c`` of ``R`` that
    :func:`rotate_with_products` weighs by the moments: per tensor entry xx, yy, zz, xy, xz, yz,
    the products of a, b and c."""
    return (
        ax * ax, bx * bx, cx * cx,
        ay * ay, by * by, cy * cy,
        az * az, bz * bz, cz * cz,
        ax * ay, bx * by, cx * cy,
        ax * az, bx * bz, cx * cz,
        ay * az, by * bz, cy * cz,
    )  # fmt: skip


def rotate_with_products(
    i0: float,
    i1: float,
    i2: float,
    xx_a: float,
    xx_b: float,
    xx_c: float,
    yy_a: float,
    yy_b: float,
    yy_c: float,
    zz_a: float,
    zz_b: float,
    zz_c: float,
    xy_a: float,
    xy_b: float,
    xy_c: float,
    xz_a: float,
    xz_b: float,
    xz_c: float,
    yz_a: float,
    yz_b: float,
    yz_c: float,
) -> tuple[float, float, float, float, float, float]:
    """``(Ixx, Iyy, Izz, Ixy, Ixz, Iyz)`` of ``sum_k i_k r_k r_k^T`` from the moments and
    :func:`rotation_products` (``i0 * (ax * ax) + i1 * (bx * bx) + i2 * (cx * cx)``, ...)."""
    return (
        i0 * xx_a + i1 * xx_b + i2 * xx_c,
        i0 * yy_a + i1 * yy_b + i2 * yy_c,
        i0 * zz_a + i1 * zz_b + i2 * zz_c,
        i0 * xy_a + i1 * xy_b + i2 * xy_c,
        i0 * xz_a + i1 * xz_b + i2 * xz_c,
        i0 * yz_a + i1 * yz_b + i2 * yz_c,
    )


def _rotation_matrix(rotation: Any, name: str = "rotation") -> np.ndarray:
    """A 3x3 proper rotation from a matrix or a ``scipy.spatial.transform.Rotation``."""
    if hasattr(rotation, "as_matrix"):
        rotation = rotation.as_matrix()
    try:
        matrix = np.array(rotation, dtype=np.float64)
    except (TypeError, ValueError):
        raise ParameterError(name, rotation, "must be a 3x3 rotation matrix") from None
    if matrix.shape != (3, 3) or not np.all(np.isfinite(matrix)):
        raise ParameterError(name, rotation, "must be a finite 3x3 rotation matrix")
    if not np.allclose(matrix @ matrix.T, np.eye(3), atol=1e-9) or np.linalg.det(matrix) < 0:
        raise ParameterError(name, rotation, "must be orthonormal with determinant +1")
    return matrix


def _vector(value: Any, name: str) -> np.ndarray:
    try:
        vector = np.array(value, dtype=np.float64).reshape(3)
    except (TypeError, ValueError):
        raise ParameterError(name, value, "must be a 3-vector of numbers") from None
    if not np.all(np.isfinite(vector)):
        raise ParameterError(name, value, "must be finite")
    return vector


def readonly_state(state: dict[str, Any]) -> dict[str, Any]:
    """``state`` (an unpickled or deep-copied instance dict) with every array in it, or in a
    tuple in it, made read-only again: pickle and copy rebuild arrays writable."""
    for value in state.values():
        for item in value if isinstance(value, tuple) else (value,):
            if isinstance(item, np.ndarray):
                item.setflags(write=False)
    return state


def _readonly(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


def _skew_square(d: np.ndarray) -> np.ndarray:
    """``|d|^2 1 - d d^T``: the inertia of a unit point mass at offset ``d``."""
    dx, dy, dz = d
    return np.array(
        [
            [dy * dy + dz * dz, -dx * dy, -dx * dz],
            [-dx * dy, dx * dx + dz * dz, -dy * dz],
            [-dx * dz, -dy * dz, dx * dx + dy * dy],
        ]
    )


# Read-only arrays straight from packed floats: an ndarray over an immutable bytes object is
# read-only by construction (no setflags call), the cheapest way numpy has to make one.
_NDARRAY = np.ndarray  # called with positional arguments: numpy parses keywords slowly
_FLOAT64 = np.dtype(np.float64)  # a dtype, not the scalar type: numpy converts less
_SHAPE_3 = (3,)
_SHAPE_3X3 = (3, 3)
_PACK_3 = struct.Struct("=3d").pack
_PACK_9 = struct.Struct("=9d").pack


class _Canonical(tuple):
    """``(canonical moments, rows of R_AC^T)`` of a body whose principal moments and axes are
    not asked for yet (:meth:`MassProperties.from_canonical`)."""

    __slots__ = ()

    def decomposition(self) -> tuple[np.ndarray, np.ndarray]:
        """``(moments ascending, axes as columns, det +1)``: :meth:`MassProperties.from_principal`'s
        sort (stable, as ``argsort``) and handedness rule, on plain floats."""
        moments, rows = self
        order = sorted(range(3), key=moments.__getitem__)
        axes = np.array([rows[3 * k : 3 * k + 3] for k in order]).T
        if order not in ([0, 1, 2], [1, 2, 0], [2, 0, 1]):  # an odd permutation: det -1
            axes[:, 2] = -axes[:, 2]
        return (
            _readonly(np.array([moments[k] for k in order], dtype=np.float64)),
            _readonly(axes),
        )


def canonical_inertia(
    i0: float,
    i1: float,
    i2: float,
    products: tuple[float, ...],
    layout: Callable[[float, float, float], bytes] | None = None,
) -> np.ndarray:
    """The read-only tensor ``I = R diag(I_xx, I_yy, I_zz) R^T`` (kg m^2) of a body's closed
    forms, from its canonical moments ``i0, i1, i2`` and the :func:`rotation_products` of
    ``R_AC`` (and their :func:`rotation_layout`, when there is one), after checking the moments
    (ParameterError naming ``inertia`` with :func:`invalidity_report`'s reason). Plain floats
    and one small array: the per-body hot path."""
    # Positive finite moments obeying the triangle inequality (those sums as the rule forms
    # them, addition being commutative): valid, and what the layout needs. Otherwise the rule
    # decides, and the arithmetic rotates.
    if (
        0.0 < i0 < _INF
        and 0.0 < i1 < _INF
        and 0.0 < i2 < _INF
        and i0 + i1 >= i2
        and i0 + i2 >= i1
        and i1 + i2 >= i0
    ):
        if layout is not None:
            return _NDARRAY(_SHAPE_3X3, _FLOAT64, layout(i0, i1, i2))
    else:
        report = _report(*sorted((float(i0), float(i1), float(i2))), INERTIA_TOLERANCE)
        if report is not None:
            raise ParameterError("inertia", (i0, i1, i2), report)
    ixx, iyy, izz, ixy, ixz, iyz = rotate_with_products(i0, i1, i2, *products)
    return _NDARRAY(_SHAPE_3X3, _FLOAT64, _PACK_9(ixx, ixy, ixz, ixy, iyy, iyz, ixz, iyz, izz))


_INF = float("inf")
#: The tensor when ``R_AC`` is the identity (a body along +x, the default): the moments on the
#: diagonal in order and +0.0 elsewhere, three floats and 48 zero bytes.
_PACK_DIAGONAL = struct.Struct("=d24xd24xd").pack


def rotation_layout(products: tuple[float, ...]) -> Callable[[float, float, float], bytes] | None:
    """For a frame whose :func:`rotation_products` are all 1.0 or signed zeros (``R_AC`` a
    signed permutation: a body along +-x, +-y or +-z), ``pack(i0, i1, i2)``: the 9 entries
    (row by row, as float64 bytes) of the tensor :func:`rotate_with_products` makes of positive
    finite moments, without arithmetic. Each entry is ``(i0 p_a + i1 p_b) + i2 p_c``: with one
    product 1.0 and two zeros, exactly that moment (``i + 0.0 = i`` for ``i > 0``); with three
    zeros, the zero of their signs (``i * -0.0 = -0.0`` for ``i > 0``, and the sum of signed
    zeros as IEEE adds them). The moments land on the diagonal, the zeros off it. None for any
    other frame (``tests/test_speed_paths.py`` checks every signed permutation against the
    arithmetic)."""
    picks = []
    for a, b, c in zip(products[0::3], products[1::3], products[2::3], strict=True):
        ones = [k for k, p in enumerate((a, b, c)) if p == 1.0]
        if any(p != 0.0 and p != 1.0 for p in (a, b, c)) or len(ones) > 1:
            return None
        if ones:
            picks.append(ones[0])
        else:  # three signed zeros: their sum's sign, as the arithmetic would give it
            zero = (a + b) + c
            picks.append(4 if math.copysign(1.0, zero) < 0.0 else 3)
    xx, yy, zz, xy, xz, yz = picks
    if (xx, yy, zz) == (0, 1, 2) and (xy, xz, yz) == (3, 3, 3):
        return _PACK_DIAGONAL  # the canonical axes: no reordering at all
    entries = operator.itemgetter(xx, xy, xz, xy, yy, yz, xz, yz, zz)
    return lambda i0, i1, i2: _PACK_9(*entries((i0, i1, i2, 0.0, -0.0)))


@dataclass(frozen=True, eq=False)
class MassProperties:
    """Mass, centre of mass and central inertia of a rigid body, expressed in one frame A.

    Parameters
    ----------
    mass : float
        ``m`` in kg; positive and finite.
    center_of_mass : array_like, shape (3,)
        ``p_AoBcm_A`` in m.
    inertia : array_like, shape (3, 3)
        ``I_BBcm_A`` in kg m^2: about the centre of mass, in A's axes. Symmetric, principal
        moments non-negative and obeying the triangle inequality (module docstring).

    The arrays are stored read-only; every operation returns a new value.
    """

    mass: float
    center_of_mass: np.ndarray
    inertia: np.ndarray
    _principal: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        try:
            mass = float(self.mass)
        except (TypeError, ValueError):
            raise ParameterError("mass", self.mass, "must be a number (kg)") from None
        if not (mass > 0.0 and np.isfinite(mass)):
            raise ParameterError("mass", self.mass, "must be positive and finite (kg)")
        com = _vector(self.center_of_mass, "center_of_mass")
        try:
            inertia = np.array(self.inertia, dtype=np.float64).reshape(3, 3)
        except (TypeError, ValueError):
            raise ParameterError("inertia", self.inertia, "must be a 3x3 matrix") from None
        if not np.all(np.isfinite(inertia)):
            raise ParameterError("inertia", self.inertia, "must be finite")
        scale = abs(np.trace(inertia))
        if np.max(np.abs(inertia - inertia.T)) > INERTIA_TOLERANCE * scale:
            raise ParameterError("inertia", self.inertia, "must be symmetric")
        inertia = 0.5 * (inertia + inertia.T)
        if self._principal is not None:
            moments = np.asarray(self._principal[0], dtype=np.float64)
        else:
            moments = np.linalg.eigvalsh(inertia)
        _check_principal_moments(moments, self.inertia)
        object.__setattr__(self, "mass", mass)
        object.__setattr__(self, "center_of_mass", _readonly(com))
        object.__setattr__(self, "inertia", _readonly(inertia))

    # -- construction ------------------------------------------------------------------------

    @classmethod
    def from_principal(
        cls,
        mass: float,
        center_of_mass: Any,
        principal_moments: Any,
        principal_axes: Any,
    ) -> MassProperties:
        """Build from principal moments ``(I_1, I_2, I_3)`` about the centre of mass and the
        principal axes (columns of an orthonormal 3x3 matrix, expressed in A).

        The given moments are kept exactly and returned by :attr:`principal_moments`, so a thin
        rod's small moment is not lost to the rounding of an eigen-solver.
        """
        moments = np.array(principal_moments, dtype=np.float64).reshape(3)
        axes = _rotation_matrix(principal_axes, "principal_axes")
        # The tensor in the order given (a body's canonical axes), then the moments sorted:
        # a body's inertia is the same array however its moments compare.
        ixx, iyy, izz, ixy, ixz, iyz = rotate_principal_inertia(
            *moments, *axes[:, 0], *axes[:, 1], *axes[:, 2]
        )
        tensor = np.array((ixx, ixy, ixz, ixy, iyy, iyz, ixz, iyz, izz)).reshape(3, 3)
        order = np.argsort(moments, kind="stable")
        moments, axes = moments[order], axes[:, order]
        if np.linalg.det(axes) < 0:
            axes[:, 2] = -axes[:, 2]
        return cls(mass, center_of_mass, tensor, (_readonly(moments), _readonly(axes)))

    @classmethod
    def from_canonical(
        cls,
        mass: float,
        center_of_mass: tuple[float, float, float],
        canonical_moments: tuple[float, float, float],
        frame_rows: tuple[float, ...],
        inertia: np.ndarray | None = None,
    ) -> MassProperties:
        """:meth:`from_principal` for a body's closed forms, without numpy's per-call overhead
        (the per-body hot path): ``frame_rows`` are the 9 floats of the rows of ``R_AC^T``
        (``e``, ``h``, ``w``), orthonormal and right-handed by construction
        (:func:`rigidparts.frames.body_frame`), and ``canonical_moments`` the principal moments
        along them; ``inertia`` the tensor :func:`canonical_inertia` made of them, when the
        caller has it (a body made it on construction). The same bits as
        :meth:`from_principal`; the moments are checked. The sorted principal moments and axes
        are made when first asked for."""
        if inertia is None:
            inertia = canonical_inertia(*canonical_moments, rotation_products(*frame_rows))
        value = object.__new__(cls)
        value.__dict__.update(
            mass=float(mass),
            center_of_mass=_NDARRAY(_SHAPE_3, _FLOAT64, _PACK_3(*center_of_mass)),
            inertia=inertia,
            _principal=_Canonical((canonical_moments, frame_rows)),
        )
        return value

    @classmethod
    def point_mass(cls, mass: float, position: Any = (0.0, 0.0, 0.0)) -> MassProperties:
        """A particle of ``mass`` kg at ``position`` (zero central inertia)."""
        return cls(mass, position, np.zeros((3, 3)))

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(readonly_state(state))

    # -- queries -----------------------------------------------------------------------------

    @property
    def principal_moments(self) -> np.ndarray:
        """Principal moments of inertia about the centre of mass, ascending, kg m^2."""
        return self._decomposition()[0]

    @property
    def principal_axes(self) -> np.ndarray:
        """Principal axes as the columns of a proper rotation (det +1), in A's axes, matching
        :attr:`principal_moments`."""
        return self._decomposition()[1]

    def _decomposition(self) -> tuple[np.ndarray, np.ndarray]:
        principal = self._principal
        if type(principal) is _Canonical:
            object.__setattr__(self, "_principal", principal.decomposition())
        elif principal is None:
            moments, axes = np.linalg.eigh(self.inertia)
            if np.linalg.det(axes) < 0:
                axes[:, 2] = -axes[:, 2]
            object.__setattr__(self, "_principal", (_readonly(moments), _readonly(axes)))
        assert self._principal is not None
        return self._principal

    def inertia_about(self, point: Any) -> np.ndarray:
        """``I_BP_A``: the inertia about ``point`` (``p_AoP_A``, m), in A's axes.

        Parallel-axis theorem: ``I_BP = I_BBcm + m (|d|^2 1 - d d^T)`` with
        ``d = p_AoBcm - p_AoP``.
        """
        offset = self.center_of_mass - _vector(point, "point")
        return self.inertia + self.mass * _skew_square(offset)

    # -- changes of frame --------------------------------------------------------------------

    def rotated(self, rotation: Any) -> MassProperties:
        """Re-express in frame F whose orientation relative to A is ``R_AF`` (same origin).

        Returns ``p_FoBcm_F = R_AF^T p_AoBcm_A`` and ``I_BBcm_F = R_AF^T I_BBcm_A R_AF``.
        ``rotation`` is a 3x3 matrix or a ``scipy.spatial.transform.Rotation``.
        """
        r_af = _rotation_matrix(rotation)
        return self._transformed(r_af.T, np.zeros(3))

    def placed(self, rotation: Any = None, position: Any = (0.0, 0.0, 0.0)) -> MassProperties:
        """The same body, expressed in a parent frame P in which its frame A sits at
        orientation ``R_PA`` and origin ``p_PoAo_P``.

        Returns ``p_PoBcm_P = R_PA p_AoBcm_A + p_PoAo_P`` and
        ``I_BBcm_P = R_PA I_BBcm_A R_PA^T``.
        """
        r_pa = np.eye(3) if rotation is None else _rotation_matrix(rotation)
        return self._transformed(r_pa, _vector(position, "position"))

    def _transformed(self, r: np.ndarray, t: np.ndarray) -> MassProperties:
        principal = None
        if self._principal is not None:
            moments, axes = self._decomposition()
            principal = (moments, _readonly(r @ axes))
        return MassProperties(
            self.mass, r @ self.center_of_mass + t, r @ self.inertia @ r.T, principal
        )

    # -- combination -------------------------------------------------------------------------

    @classmethod
    def combine(cls, parts: Iterable[MassProperties]) -> MassProperties:
        """The composite of several bodies, all expressed in the same frame A.

        ``m = sum m_i``, ``c = sum m_i c_i / m``,
        ``I = sum (I_i + m_i (|d_i|^2 1 - d_i d_i^T))`` with ``d_i = c_i - c``.
        """
        parts = list(parts)
        if not parts:
            raise ParameterError("parts", parts, "needs at least one body to combine")
        for i, part in enumerate(parts):
            if not isinstance(part, MassProperties):
                raise ParameterError(f"parts[{i}]", part, "must be a MassProperties")
        mass = sum(p.mass for p in parts)
        com = sum(p.mass * p.center_of_mass for p in parts) / mass
        inertia = sum(p.inertia + p.mass * _skew_square(p.center_of_mass - com) for p in parts)
        return cls(mass, com, inertia)

    def __add__(self, other: object) -> MassProperties:
        if not isinstance(other, MassProperties):
            return NotImplemented
        return MassProperties.combine([self, other])

    def __radd__(self, other: object) -> MassProperties:
        if isinstance(other, int) and other == 0:  # lets sum(...) start from 0
            return self
        return NotImplemented

    # -- comparison and output ---------------------------------------------------------------

    def isclose(self, other: MassProperties, *, rtol: float = 1e-12) -> bool:
        """True when mass, centre of mass and inertia agree to ``rtol`` (relative to the size
        of each quantity: the mass, ``sqrt(trace(I) / m)`` for lengths, the trace of I)."""
        length = np.sqrt(max(np.trace(self.inertia), 1e-300) / self.mass)
        return bool(
            abs(self.mass - other.mass) <= rtol * self.mass
            and np.max(np.abs(self.center_of_mass - other.center_of_mass))
            <= rtol * max(length, np.max(np.abs(self.center_of_mass)))
            and np.max(np.abs(self.inertia - other.inertia)) <= rtol * np.trace(self.inertia)
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain floats: ``mass``, ``center_of_mass``, ``inertia``, ``principal_moments``,
        ``principal_axes`` (SI)."""
        return {
            "mass": self.mass,
            "center_of_mass": self.center_of_mass.tolist(),
            "inertia": self.inertia.tolist(),
            "principal_moments": self.principal_moments.tolist(),
            "principal_axes": self.principal_axes.tolist(),
        }

    def __repr__(self) -> str:
        return (
            f"MassProperties(mass={self.mass!r}, center_of_mass={self.center_of_mass.tolist()!r}, "
            f"inertia={self.inertia.tolist()!r})"
        )


def invalidity_report(
    principal_moments: Any, *, tolerance: float = INERTIA_TOLERANCE
) -> str | None:
    """Why principal moments ``I_1 <= I_2 <= I_3`` (any order) are not those of a rigid body,
    or None when they are: ``I_1 >= 0`` and ``I_1 + I_2 >= I_3``, each to within
    ``tolerance * (I_1 + I_2 + I_3)``.

    The one statement of the rule (as Drake's ``CreateInvalidityReport``): MassProperties
    raises it, and exporters ask it with a *negative* tolerance for moments that keep the rule
    with a margin to spare (engines that check it without tolerance).
    """
    i1, i2, i3 = sorted(float(moment) for moment in np.ravel(principal_moments))
    return _report(i1, i2, i3, tolerance)


def _report(i1: float, i2: float, i3: float, tolerance: float) -> str | None:
    """:func:`invalidity_report` of moments already sorted (``i1 <= i2 <= i3``, floats)."""
    allowed = tolerance * abs(i1 + i2 + i3)
    if i1 < -allowed:
        return f"has a negative principal moment {i1!r} (not positive definite)"
    if i1 + i2 < i3 - allowed:
        return (
            f"breaks the triangle inequality: principal moments {i1!r} + {i2!r} < {i3!r}"
        )
    return None


def _check_principal_moments(moments: np.ndarray, given: Any) -> None:
    report = invalidity_report(moments)
    if report is not None:
        raise ParameterError("inertia", given, report)


# -- the parallel-axis theorem, unvalidated --------------------------------------------------------


def parallel_axis_shift(mass: float, offset: Any) -> np.ndarray:
    """``m (|d|^2 1 - d d^T)`` (3, 3), kg m^2: what the parallel-axis (Huygens-Steiner)
    theorem adds to a body's inertia about its centre of mass to give its inertia about a
    point ``d = offset`` (m) away, in the same axes as ``d``. Unvalidated: any mass and
    offset (an engine's or a file's values, which :class:`MassProperties` would refuse);
    :meth:`MassProperties.combine` and :meth:`MassProperties.inertia_about` for valid ones."""
    return float(mass) * _skew_square(np.asarray(offset, dtype=np.float64))


# -- MuJoCo's rule ------------------------------------------------------------------------------

#: MuJoCo's ``mjMINVAL`` (``mjtype.h``): the least mass (kg) and principal moment (kg m^2) its
#: compiler accepts for a moving body (and the floor of its other size checks).
MUJOCO_MINVAL = 1e-15


def mujoco_invalidity(mass: float, moments: Any, moving: bool = True) -> str | None:
    """Why MuJoCo's compiler refuses a body of ``mass`` (kg) and principal ``moments``
    (kg m^2, any order, about the centre of mass), or None: mass and moments finite; the
    moments ``A <= B <= C`` with ``A + B >= C`` exactly, without tolerance ("inertia must
    satisfy A + B >= C", ``user_objects.cc``); a ``moving`` body (one with a joint that no
    welded body rescues) with mass and ``A`` at least :data:`MUJOCO_MINVAL` ("mass and inertia
    of moving bodies must be larger than mjMINVAL"). The one statement of the rule;
    :func:`mujoco_invalid_rows` is its vectorised form."""
    values = np.ravel(np.asarray(moments, dtype=np.float64))
    if not (math.isfinite(mass) and np.all(np.isfinite(values))):
        return "mass or inertia is not finite"
    a, b, c = sorted(float(v) for v in values)
    if a + b < c:
        return f"inertia must satisfy A + B >= C ({a!r} + {b!r} < {c!r})"
    if moving and (mass < MUJOCO_MINVAL or a < MUJOCO_MINVAL):
        return f"mass and inertia of moving bodies must be larger than mjMINVAL ({MUJOCO_MINVAL:g})"
    return None


def mujoco_invalid_rows(
    mass: np.ndarray, moments: np.ndarray, floor: Any = MUJOCO_MINVAL, *, finite: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`mujoco_invalidity` of ``n`` bodies at once, ``mass`` (n,) and ``moments``
    (n, 3) any order, with the floor ``floor`` (a float or (n,); ``> 0`` at least): returns
    ``(refused, rounding)``, (n,) booleans. ``refused``: a mass or a moment below the floor
    (or, with ``finite``, not finite), or ``A + B < C`` by more than rounding; ``rounding``:
    rows the rule refuses only because ``A + B < C`` by at most 4 ulp of ``C`` (rounding in
    how the moments were computed), left for the caller to repair or refuse.

    Only the largest moment can break the triangle (``x + z >= y`` when ``z >= y``, rounding
    being monotonic), and only where ``2 max >= (1 - 1e-12) (A + B + C)``: the exact test
    runs on those rows alone. Few temporaries (large arrays cost their page faults)."""
    floor = np.maximum(floor, 5e-324)  # the smallest positive double: ``x >= it`` is ``x > 0``
    # contiguous columns (one transposing copy: strided columns and reductions along a
    # length-3 axis are several times slower), worked on in place. NaN propagates through
    # minimum and maximum.
    columns = np.array(moments.T, order="C")
    a, b, c = columns
    extreme = np.minimum(a, b)
    np.minimum(extreme, c, out=extreme)
    rounding = np.zeros(len(mass), bool)
    with np.errstate(invalid="ignore"):
        ok = mass >= floor
        ok &= extreme >= floor
        if finite:
            ok &= mass < np.inf
        np.maximum(a, b, out=extreme)
        np.maximum(extreme, c, out=extreme)
        if finite:
            ok &= extreme < np.inf
        refused = ~ok
        # suspects: 2 max >= (1 - 1e-12) (A + B + C)
        np.add(a, b, out=a)
        np.add(a, c, out=a)
        a *= 1.0 - 1e-12
        extreme *= 2.0
        ok &= extreme >= a
        suspect = np.flatnonzero(ok)
    for i, j, k in ((0, 1, 2), (0, 2, 1), (1, 2, 0)):
        if not suspect.size:
            break
        x, y, z = moments[suspect, i], moments[suspect, j], moments[suspect, k]
        total = x + y
        broken = total < z
        small = broken & (z - total <= 4.0 * np.spacing(z))
        rounding[suspect[small]] = True
        refused[suspect[broken & ~small]] = True
    return refused, rounding
