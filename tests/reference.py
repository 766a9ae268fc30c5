"""Independent references for the core tests: textbook closed forms written from scratch.

Nothing here imports rigidparts. Every formula is the plain "outer body minus inner body" of
textbook solids, so it is independent of the library's cancellation-free forms (and it is itself
proved equal to direct sympy integration in ``test_box.py`` / ``test_cone.py``).

The formula functions (``box_formulas``, ``cone_formulas``, ``printed_*``) use only ``+ - * /``
and take ``pi`` as an argument, so one function serves three purposes:

- with sympy symbols and ``sympy.pi``: symbolic proofs;
- with :mod:`mpmath` numbers at 50 digits (:func:`box_reference`, :func:`cone_reference`): the
  precision references, from the *same* float64 inputs converted exactly;
- with Python floats: the naive float64 evaluation whose cancellation the tests document.

Conventions (spec/NOTES.md): canonical frame C, axis +x from frame_a (x = 0) to frame_b (x = L);
box height H along +y, width W along +z; inertias about the centre of mass along C's axes.
"""

from __future__ import annotations

import math
from typing import Any

import mpmath
import numpy as np

#: Decimal digits of the precision references.
REFERENCE_DPS = 50

QUANTITIES = ("volume", "mass", "com_x", "i_xx", "i_yy", "i_zz")


# -- formulas (generic arithmetic) ------------------------------------------------------------


def cuboid(length: Any, height: Any, width: Any, density: Any) -> dict[str, Any]:
    """Solid cuboid L (x) by H (y) by W (z): mass, and moments about its centre (textbook)."""
    mass = density * length * height * width
    return {
        "volume": length * height * width,
        "mass": mass,
        "i_xx": mass * (height**2 + width**2) / 12,
        "i_yy": mass * (length**2 + width**2) / 12,
        "i_zz": mass * (length**2 + height**2) / 12,
    }


def box_formulas(
    length: Any, width: Any, height: Any, inner_width: Any, inner_height: Any, density: Any
) -> dict[str, Any]:
    """Hollow box = outer cuboid minus the coaxial, concentric hole (same centre (L/2, 0, 0))."""
    outer = cuboid(length, height, width, density)
    hole = cuboid(length, inner_height, inner_width, density)
    out = {key: outer[key] - hole[key] for key in outer}
    out["com_x"] = length / 2
    return out


def printed_box(
    length: Any, width: Any, height: Any, inner_width: Any, inner_height: Any, density: Any
) -> dict[str, Any]:
    """The formulas exactly as printed in spec/box.txt (I_yy and I_zz with the typo)."""
    rho, L, W, H, Wi, Hi = density, length, width, height, inner_width, inner_height
    return {
        "mass": rho * L * (H * W - Hi * Wi),
        "i_xx": rho * L / 12 * (H * W * (H**2 + W**2) - Hi * Wi * (Hi**2 + Wi**2)),
        "i_yy": rho * L / 12 * (W * L * (W**2 + L**2) - Hi * Wi * (Wi**2 + L**2)),
        "i_zz": rho * L / 12 * (H * L * (H**2 + L**2) - Hi * Wi * (Hi**2 + L**2)),
    }


def solid_frustum_moments(length: Any, r_a: Any, r_b: Any, density: Any, pi: Any) -> dict:
    """Axial moments of a solid frustum, radius r_a at x = 0 to r_b at x = L (textbook).

    With R(x) = r_a + (r_b - r_a) x / L and slices of mass dm = pi rho R^2 dx:
    ``m = int dm``, ``first = int x dm``, ``second = int x^2 dm``,
    ``radial = int R^2 / 2 dm`` (= I_xx; and int y^2 dm = radial / 2).
    """
    a, b, L = r_a, r_b, length
    k = pi * density
    return {
        "volume": pi * L * (a * a + a * b + b * b) / 3,
        "mass": k * L * (a * a + a * b + b * b) / 3,
        "first": k * L**2 * (a * a + 2 * a * b + 3 * b * b) / 12,
        "second": k * L**3 * (a * a + 3 * a * b + 6 * b * b) / 30,
        "radial": k * L * (a**4 + a**3 * b + a**2 * b**2 + a * b**3 + b**4) / 10,
    }


def cone_formulas(
    length: Any,
    radius_a: Any,
    radius_b: Any,
    inner_radius_a: Any,
    inner_radius_b: Any,
    density: Any,
    pi: Any,
) -> dict[str, Any]:
    """Hollow frustum = outer solid frustum minus inner solid frustum; central moments."""
    outer = solid_frustum_moments(length, radius_a, radius_b, density, pi)
    inner = solid_frustum_moments(length, inner_radius_a, inner_radius_b, density, pi)
    net = {key: outer[key] - inner[key] for key in outer}
    com_x = net["first"] / net["mass"]
    # about the COM: int (x - x_c)^2 dm + int y^2 dm
    i_yy = net["second"] - net["first"] * com_x + net["radial"] / 2
    return {
        "volume": net["volume"],
        "mass": net["mass"],
        "com_x": com_x,
        "i_xx": net["radial"],
        "i_yy": i_yy,
        "i_zz": i_yy,
    }


def printed_cone(
    length: Any,
    radius_a: Any,
    radius_b: Any,
    inner_radius_a: Any,
    inner_radius_b: Any,
    density: Any,
    pi: Any,
) -> dict[str, Any]:
    """The formulas exactly as printed in spec/cone.txt (L_com, m, I_xx, the long I_yy)."""
    L, Ra, Rb, Rai, Rbi, rho = (
        length,
        radius_a,
        radius_b,
        inner_radius_a,
        inner_radius_b,
        density,
    )
    l_com = (
        L
        * (Ra**2 + 2 * Ra * Rb - Rai**2 - 2 * Rai * Rbi + 3 * Rb**2 - 3 * Rbi**2)
        / (4 * Ra**2 + 4 * Ra * Rb - 4 * Rai**2 - 4 * Rai * Rbi + 4 * Rb**2 - 4 * Rbi**2)
    )
    mass = pi * L * rho * (Ra**2 + Ra * Rb - Rai**2 - Rai * Rbi + Rb**2 - Rbi**2) / 3
    i_xx = (
        pi
        * rho
        * L
        * (
            Ra**4
            + Ra**3 * Rb
            + Ra**2 * Rb**2
            + Ra * Rb**3
            - Rai**4
            - Rai**3 * Rbi
            - Rai**2 * Rbi**2
            - Rai * Rbi**3
            + Rb**4
            - Rbi**4
        )
        / 10
    )
    L2 = L**2
    numerator = (
        4 * Rai**6
        + 8 * Rai**5 * Rbi
        + (L2 - 4 * Ra**2 - 4 * Ra * Rb - 4 * Rb**2 + 12 * Rbi**2) * Rai**4
        + 4 * Rbi * (L2 - Ra**2 - Ra * Rb - Rb**2 + 3 * Rbi**2) * Rai**3
        + (
            12 * Rbi**4
            + (10 * L2 - 4 * Ra**2 - 4 * Ra * Rb - 4 * Rb**2) * Rbi**2
            - 4 * Ra**4
            - 4 * Ra**3 * Rb
            + (-2 * L2 - 4 * Rb**2) * Ra**2
            + (-4 * L2 * Rb - 4 * Rb**3) * Ra
            - 4 * Rb**4
            - 26 * L2 * Rb**2 / 3
        )
        * Rai**2
        - 4
        * Rbi
        * (
            -2 * Rbi**4
            + (-L2 + Ra**2 + Ra * Rb + Rb**2) * Rbi**2
            + Ra**4
            + Ra**3 * Rb
            + (L2 + Rb**2) * Ra**2
            + (2 * L2 * Rb / 3 + Rb**3) * Ra
            + L2 * Rb**2
            + Rb**4
        )
        * Rai
        + 4 * Rbi**6
        + (L2 - 4 * Ra**2 - 4 * Ra * Rb - 4 * Rb**2) * Rbi**4
        + (
            -4 * Ra**4
            - 4 * Ra**3 * Rb
            + (-4 * Rb**2 - 26 * L2 / 3) * Ra**2
            + (-4 * L2 * Rb - 4 * Rb**3) * Ra
            - 2 * L2 * Rb**2
            - 4 * Rb**4
        )
        * Rbi**2
        + 4 * Ra**6
        + 8 * Ra**5 * Rb
        + (L2 + 12 * Rb**2) * Ra**4
        + (4 * L2 * Rb + 12 * Rb**3) * Ra**3
        + (10 * L2 * Rb**2 + 12 * Rb**4) * Ra**2
        + (4 * L2 * Rb**3 + 8 * Rb**5) * Ra
        + L2 * Rb**4
        + 4 * Rb**6
    )
    denominator = (
        240 * Ra**2 + 240 * Ra * Rb - 240 * Rai**2 - 240 * Rai * Rbi + 240 * Rb**2 - 240 * Rbi**2
    )
    i_yy = 3 * L * rho * pi * numerator / denominator
    return {"mass": mass, "com_x": l_com, "i_xx": i_xx, "i_yy": i_yy, "i_zz": i_yy}


# -- 50-digit references from float64 inputs ----------------------------------------------------


def _exact(values: tuple[float, ...]) -> list[mpmath.mpf]:
    """Each float64 converted exactly (mpf of a float is exact)."""
    return [mpmath.mpf(float(v)) for v in values]


def box_reference(
    length: float,
    width: float,
    height: float,
    inner_width: float,
    inner_height: float,
    density: float,
    *,
    dps: int = REFERENCE_DPS,
) -> dict[str, mpmath.mpf]:
    """The box's quantities at ``dps`` digits from the exact values of the float inputs."""
    with mpmath.workdps(dps):
        args = _exact((length, width, height, inner_width, inner_height, density))
        return {key: +value for key, value in box_formulas(*args).items()}


def cone_reference(
    length: float,
    radius_a: float,
    radius_b: float,
    inner_radius_a: float,
    inner_radius_b: float,
    density: float,
    *,
    dps: int = REFERENCE_DPS,
) -> dict[str, mpmath.mpf]:
    """The cone's quantities at ``dps`` digits from the exact values of the float inputs."""
    with mpmath.workdps(dps):
        args = _exact((length, radius_a, radius_b, inner_radius_a, inner_radius_b, density))
        return {key: +value for key, value in cone_formulas(*args, mpmath.pi).items()}


def relative_error(got: float, reference: mpmath.mpf) -> float:
    """``|got - reference| / |reference|`` computed in high precision (0 when both are 0)."""
    with mpmath.workdps(REFERENCE_DPS):
        ref = mpmath.mpf(reference)
        diff = abs(mpmath.mpf(float(got)) - ref)
        if ref == 0:
            return 0.0 if diff == 0 else math.inf
        return float(diff / abs(ref))


def tensor_relative_error(got: np.ndarray, reference: Any) -> float:
    """Max entry-wise error of a 3x3 tensor relative to its largest entry, in high precision."""
    with mpmath.workdps(REFERENCE_DPS):
        ref = mpmath.matrix(reference)
        scale = max(abs(ref[i, j]) for i in range(3) for j in range(3))
        worst = max(
            abs(mpmath.mpf(float(got[i, j])) - ref[i, j]) for i in range(3) for j in range(3)
        )
        return float(worst / scale)


# -- frames (the NOTES.md rule, written independently of rigidparts.frames) ---------------------


#: Unit roundoff (2^-53).
U = np.finfo(np.float64).eps / 2

#: Between a body's axis and :func:`rule_directions`' (numpy: its norm is a BLAS
#: dot product, whose order and FMA use are the library's): each side computes |v|^2 as a sum of
#: three non-negative products (relative error <= gamma_3 <= 3.01 u in any order), its square
#: root (half that, + u) and the quotient (+ u): each entry within 3.52 u |e_i| of the exact
#: unit vector, so the two within 7.04 u |e_i| <= 8 u of each other.
AXIS_BOUND = 8 * U

#: Between a body's height and width directions and :func:`rule_directions`'. Height: h = u -
#: (u . e) e normalised, u a unit world axis (then u . e = e_k exactly) or the explicit
#: direction (normalised: 3.52 u; its dot with e: gamma_3 + 2 * 3.52 u). Unnormalised, each
#: entry is within 20 u of the exact one, and |h| >= 0.7 (the world axis after the largest
#: component: |h|^2 = 1 - e_k^2 >= 1/2; the explicit directions of the tests: |h| >= 0.82);
#: normalising at most doubles the relative error and adds 3.52 u: 2 * 20 u / 0.7 + 3.52 u <=
#: 61 u per side. Width w = e x h: 2 * (3.52 + 61) u + 3 u <= 172 u per side. Both sides:
#: 344 u < 384 u (4.3e-14, far below any error of the rule itself, which is O(1)).
DIRECTION_BOUND = 384 * U


def rule_directions(
    axis: Any, rotate90: bool = False, height_direction: Any = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(e, h, w)`` by the NOTES.md rule, with numpy: e = axis / |axis|; h = the world axis
    cyclically after the largest |e_i| (ties: the earlier), or the explicit height direction,
    made orthogonal to e (Gram-Schmidt) and normalised; w = e x h; rotate90: (h, w) -> (w, -h).
    """
    e = np.asarray(axis, dtype=float)
    e = e / np.linalg.norm(e)
    if height_direction is None:
        largest = int(np.argmax(np.abs(e)))  # argmax returns the first of ties
        u = np.eye(3)[(largest + 1) % 3]
    else:
        u = np.asarray(height_direction, dtype=float)
        u = u / np.linalg.norm(u)
    h = u - np.dot(u, e) * e
    h = h / np.linalg.norm(h)
    w = np.cross(e, h)
    if rotate90:
        h, w = w, -h
    return e, h, w


# -- exact symbolic evaluation of the library's float code --------------------------------------


class Exact:
    """A sympy expression whose arithmetic with Python floats converts each float *exactly*
    (``sympy.Rational(0.5) == 1/2``, ``Rational(math.pi)`` is pi's float64 value as a fraction).

    Passing these to a function written in plain float arithmetic (the shapes' ``closed_form``)
    turns the function itself into an exact symbolic expression, float constants included, so
    a symbolic proof covers the very code that runs (no re-typed copy of it).
    """

    __slots__ = ("expr",)

    def __init__(self, expr: Any) -> None:
        import sympy

        self.expr = sympy.sympify(expr)

    @staticmethod
    def lift(other: Any) -> Any:
        import sympy

        if isinstance(other, Exact):
            return other.expr
        if isinstance(other, bool):
            return NotImplemented
        if isinstance(other, int):
            return sympy.Integer(other)
        if isinstance(other, float):
            return sympy.Rational(other)
        return NotImplemented

    def _apply(self, other: Any, op: Any) -> Any:
        value = self.lift(other)
        return NotImplemented if value is NotImplemented else Exact(op(self.expr, value))

    def __add__(self, other: Any) -> Any:
        return self._apply(other, lambda a, b: a + b)

    def __radd__(self, other: Any) -> Any:
        return self._apply(other, lambda a, b: b + a)

    def __sub__(self, other: Any) -> Any:
        return self._apply(other, lambda a, b: a - b)

    def __rsub__(self, other: Any) -> Any:
        return self._apply(other, lambda a, b: b - a)

    def __mul__(self, other: Any) -> Any:
        return self._apply(other, lambda a, b: a * b)

    def __rmul__(self, other: Any) -> Any:
        return self._apply(other, lambda a, b: b * a)

    def __truediv__(self, other: Any) -> Any:
        return self._apply(other, lambda a, b: a / b)

    def __rtruediv__(self, other: Any) -> Any:
        return self._apply(other, lambda a, b: b / a)

    def __neg__(self) -> Exact:
        return Exact(-self.expr)

    def __pow__(self, other: Any) -> Any:
        return self._apply(other, lambda a, b: a**b)


def symbolic_equal(a: Any, b: Any) -> bool:
    """Exact equality of two rational functions (sympy), by clearing denominators."""
    import sympy

    numerator, _ = sympy.fraction(sympy.together(sympy.sympify(a) - sympy.sympify(b)))
    return sympy.expand(numerator) == 0
