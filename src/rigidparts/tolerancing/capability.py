"""What a tolerance engineer reads off a study: variance contributions, worst-case and
root-sum-square stacks, and process capability against specification limits.

Pure functions on small arrays, shared by the shape study (:func:`rigidparts.tolerance` of a
body) and the model study (:mod:`rigidparts.model_tolerance`). Notation: ``g`` (inputs,
outputs) the sensitivities ``dy_j/dx_i`` at the nominal inputs; ``var_x`` (inputs,) the input
variances; a tolerance's band ``[nominal - minus, nominal + plus]`` (3 sigma for a normal
one, :mod:`.values`).

- First-order contributions (the "variance budget" of the linearised model, e.g. Fortini,
  *Dimensioning for Interchangeable Manufacture*, 1967; Saltelli et al., *Global Sensitivity
  Analysis: The Primer*, 2008, sec. 1.2.5): ``S_ij = g_ij^2 var_i / sum_k g_kj^2 var_k``; they
  sum to 1 over the inputs for each output that varies.
- Contributions from the samples: the squared correlation of output ``j`` with input ``i``,
  ``r_ij^2 = C_ij^2 / (M2x_i M2y_j)`` (``C`` the co-moment ``sum (x - mean x)(y - mean y)``).
  For independent inputs (every study here draws them independently) ``r_ij`` is the
  standardised regression coefficient of ``y`` on ``x_i`` (Saltelli et al. 2008, sec. 1.2.5),
  so for a linear output the ``r^2`` sum to 1 and equal the first-order shares; their sum falls
  below 1 by the part of the variance no linear term explains (curvature, interactions).
- Worst case (linearised, "arithmetic" stack): ``y_0 + sum_i min/max(g_ij plus_i, -g_ij
  minus_i)``, i.e. ``y_0 +- sum_i |g_ij| t_i`` for symmetric bands of half-width ``t_i``.
- Root sum square (Fortini 1967; ASME Y14.5 practice, the "statistical" stack):
  ``y_0 + sum_i g_ij c_i +- sqrt(sum_i (g_ij t_i)^2)`` with ``c_i = (plus_i - minus_i) / 2``
  the band's centre offset and ``t_i = (plus_i + minus_i) / 2`` its half-width (3 sigma for
  a normal tolerance).
- Capability (Montgomery, *Introduction to Statistical Quality Control*, 7th ed., 2013, sec.
  8.3): ``Cp = (USL - LSL) / (6 s)``, ``Cpk = min(USL - mean, mean - LSL) / (3 s)`` (one term
  for a one-sided limit); Cp's confidence interval from the chi-square distribution of
  ``(n - 1) s^2 / sigma^2`` (Montgomery eq. 8.19), Cpk's by Bissell's normal approximation
  (A. F. Bissell, "How reliable is your capability index?", Applied Statistics 39 (1990)
  331-340): ``Cpk +- z sqrt(1 / (9 n) + Cpk^2 / (2 (n - 1)))``.
- Yield: the fraction of valid samples inside the limits (counted exactly while streaming),
  with the Clopper-Pearson interval (Clopper & Pearson, Biometrika 26 (1934) 404-413: exact,
  at least the nominal coverage), ppm out of specification ``1e6 (n - inside) / n``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..errors import ParameterError

__all__ = [
    "Limit",
    "capability",
    "clopper_pearson",
    "first_order_contributions",
    "parse_limits",
    "rss_stack",
    "sample_contributions",
    "worst_case_stack",
]

#: Confidence level of the intervals (two-sided).
CONFIDENCE = 0.95

Limit = tuple[float, float]  # (low, high) SI; -inf / +inf for a one-sided limit


def first_order_contributions(gradient: np.ndarray, variance: np.ndarray) -> np.ndarray:
    """(inputs, outputs) shares ``g_ij^2 var_i / sum_k g_kj^2 var_k`` (module docstring); NaN
    for an output the linearised model says does not vary."""
    g = np.asarray(gradient, dtype=float)
    parts = g * g * np.asarray(variance, dtype=float)[:, None]
    total = parts.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, parts / np.where(total > 0, total, 1.0), np.nan)


def sample_contributions(
    comoment: np.ndarray, input_m2: np.ndarray, output_m2: np.ndarray
) -> np.ndarray:
    """(inputs, outputs) squared correlations ``C_ij^2 / (M2x_i M2y_j)`` (module docstring),
    clipped to [0, 1]; NaN for an output (or input) without spread."""
    c = np.asarray(comoment, dtype=float)
    denominator = np.asarray(input_m2, dtype=float)[:, None] * np.asarray(output_m2, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        r2 = np.where(denominator > 0, c * c / np.where(denominator > 0, denominator, 1.0), np.nan)
    return np.clip(r2, 0.0, 1.0)


def worst_case_stack(
    nominal: np.ndarray, gradient: np.ndarray, minus: np.ndarray, plus: np.ndarray
) -> np.ndarray:
    """(outputs, 2) linearised worst-case low and high: ``y_0 + sum_i min/max(g_ij plus_i,
    -g_ij minus_i)`` (module docstring)."""
    g = np.asarray(gradient, dtype=float)
    up = g * np.asarray(plus, dtype=float)[:, None]
    down = -g * np.asarray(minus, dtype=float)[:, None]
    low = np.asarray(nominal, dtype=float) + np.minimum(up, down).sum(axis=0)
    high = np.asarray(nominal, dtype=float) + np.maximum(up, down).sum(axis=0)
    return np.stack([low, high], axis=1)


def rss_stack(
    nominal: np.ndarray, gradient: np.ndarray, minus: np.ndarray, plus: np.ndarray
) -> np.ndarray:
    """(outputs, 2) root-sum-square low and high: ``y_0 + sum g c +- sqrt(sum (g t)^2)`` with
    each band's centre offset ``c`` and half-width ``t`` (module docstring)."""
    g = np.asarray(gradient, dtype=float)
    minus, plus = np.asarray(minus, dtype=float), np.asarray(plus, dtype=float)
    centre = np.asarray(nominal, dtype=float) + (g * ((plus - minus) / 2)[:, None]).sum(axis=0)
    half = np.sqrt(((g * ((plus + minus) / 2)[:, None]) ** 2).sum(axis=0))
    return np.stack([centre - half, centre + half], axis=1)


def clopper_pearson(k: int, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The Clopper-Pearson interval of a proportion ``k / n`` (module docstring):
    ``(B(a/2; k, n-k+1), B(1-a/2; k+1, n-k))`` quantiles of the beta distribution, 0 and 1 at
    the ends; (nan, nan) for n = 0."""
    from scipy.stats import beta

    if n <= 0:
        return math.nan, math.nan
    alpha = 1.0 - confidence
    low = 0.0 if k <= 0 else float(beta.ppf(alpha / 2, k, n - k + 1))
    high = 1.0 if k >= n else float(beta.ppf(1 - alpha / 2, k + 1, n - k))
    return low, high


def capability(
    limit: Limit,
    n: int,
    mean: float,
    std: float,
    below: int,
    above: int,
    confidence: float = CONFIDENCE,
) -> dict[str, Any]:
    """Yield, ppm out of specification, Cp and Cpk with their confidence intervals for one
    output with limits ``(low, high)`` (module docstring), from ``n`` valid samples, their
    mean and standard deviation and the exact counts below and above the limits. Cp (and its
    interval) is None for a one-sided limit; Cp, Cpk None when the output does not vary."""
    from scipy.stats import chi2, norm

    low, high = limit
    inside = n - below - above
    out: dict[str, Any] = {
        "low": None if math.isinf(low) else low,
        "high": None if math.isinf(high) else high,
        "below": below,
        "above": above,
        "yield": inside / n if n else None,
        "yield_interval": list(clopper_pearson(inside, n, confidence)) if n else None,
        "ppm": 1e6 * (below + above) / n if n else None,
        "confidence": confidence,
        "cp": None,
        "cp_interval": None,
        "cpk": None,
        "cpk_interval": None,
    }
    if n < 2 or not (std > 0 and math.isfinite(std)):
        return out
    z = float(norm.ppf(0.5 + confidence / 2))
    if math.isfinite(low) and math.isfinite(high):
        cp = (high - low) / (6 * std)
        alpha = 1 - confidence
        out["cp"] = cp
        out["cp_interval"] = [
            cp * math.sqrt(chi2.ppf(alpha / 2, n - 1) / (n - 1)),
            cp * math.sqrt(chi2.ppf(1 - alpha / 2, n - 1) / (n - 1)),
        ]
    cpk = min(high - mean, mean - low) / (3 * std)
    half = z * math.sqrt(1 / (9 * n) + cpk * cpk / (2 * (n - 1)))
    out["cpk"] = cpk
    out["cpk_interval"] = [cpk - half, cpk + half]
    return out


_RANGE = re.compile(r"^(?P<low>.*?)\s*\.\.\s*(?P<high>.*)$")


def _value(name: str, text: Any, unit: str) -> float:
    """A limit in SI: a number, or text / a pint Quantity with units of ``unit``'s dimension
    (through :func:`rigidparts.units.registry`, pint's registry)."""
    from ..units import registry

    if isinstance(text, bool):
        raise ParameterError(name, text, "must be a number or a quantity, not a boolean")
    if isinstance(text, int | float | np.floating | np.integer):
        value = float(text)
    else:
        ureg = registry()
        try:
            quantity = ureg.Quantity(text.strip()) if isinstance(text, str) else text
            if hasattr(quantity, "dimensionality"):
                expected = ureg.Quantity(1, unit.replace(" ", " * "))
                if quantity.dimensionality != expected.dimensionality:
                    raise ParameterError(
                        name, text, f"has dimension {quantity.dimensionality}, expected that of "
                        f"{unit}",
                    )  # fmt: skip
                value = float(quantity.to(expected.units).magnitude)
            else:
                value = float(quantity)
        except ParameterError:
            raise
        except Exception as exc:  # pint's parser raises many kinds
            raise ParameterError(
                name, text, f"is not a quantity ({str(exc) or type(exc).__name__}): write e.g. "
                f"'1.2 {unit}'",
            ) from None  # fmt: skip
    if not math.isfinite(value):
        raise ParameterError(name, text, "must be finite")
    return value


def parse_limits(
    limits: Mapping[str, Any] | None, outputs: Sequence[str], units: Sequence[str]
) -> dict[str, Limit]:
    """``output -> (low, high)`` SI from ``{"mass": (lo, hi)}`` (numbers in SI, text with
    units, None for a one-sided limit) or ``{"mass": "1.2 kg..1.3 kg"}`` (``"..1.3 kg"``,
    ``"1.2 kg.."`` one-sided). ParameterError naming ``limits[OUTPUT]`` for an unknown output,
    a wrong unit, no bound at all, or low > high."""
    if limits is None:
        return {}
    if not isinstance(limits, Mapping):
        raise ParameterError(
            "limits", limits, "must be a mapping output -> (low, high), such as "
            "{'mass': ('1.2 kg', '1.3 kg')} or {'mass': '1.2 kg..1.3 kg'}",
        )  # fmt: skip
    out: dict[str, Limit] = {}
    for output, given in limits.items():
        name = f"limits[{output!r}]"
        if output not in outputs:
            raise ParameterError(name, given, f"names no output (outputs: {', '.join(outputs)})")
        unit = units[list(outputs).index(output)]
        if isinstance(given, str):
            match = _RANGE.match(given.strip())
            if match is None:
                raise ParameterError(
                    name, given, f"write LOW..HIGH such as '1.2 {unit}..1.3 {unit}' (one side "
                    "may be empty)",
                )  # fmt: skip
            pair: Any = (match["low"] or None, match["high"] or None)
        else:
            pair = given
        if not isinstance(pair, Sequence) or isinstance(pair, str) or len(pair) != 2:
            raise ParameterError(name, given, "must be a pair (low, high); None for no bound")
        low = -math.inf if pair[0] is None else _value(name, pair[0], unit)
        high = math.inf if pair[1] is None else _value(name, pair[1], unit)
        if pair[0] is None and pair[1] is None:
            raise ParameterError(name, given, "gives no bound: give a low, a high or both")
        if low > high:
            raise ParameterError(name, given, f"has low {low!r} above high {high!r} ({unit})")
        out[output] = (low, high)
    return out


def study_figures(
    *,
    outputs: Sequence[str],
    nominal: np.ndarray,
    gradient: np.ndarray,
    tolerances: Sequence[Any],
    cross: Any,
    valid: int,
    mean: np.ndarray,
    std: np.ndarray,
    output_m2: np.ndarray,
    limits: Mapping[str, Limit],
    outside: np.ndarray | None,
) -> dict[str, Any]:
    """The new :class:`~.result.ToleranceResult` fields of a study: ``gradient`` (inputs,
    outputs), ``input_variance``, first-order and sample ``contributions``, ``worst_case`` and
    ``rss`` stacks (outputs, 2), ``limits`` and ``capability`` (output -> :func:`capability`).
    ``tolerances`` are the inputs' :class:`~.values.Tolerance` in gradient row order, ``cross``
    the folded :class:`~.study.CrossFold` (or None)."""
    variance = np.array([t.variance for t in tolerances], dtype=float)
    minus = np.array([t.minus for t in tolerances], dtype=float)
    plus = np.array([t.plus for t in tolerances], dtype=float)
    g = np.asarray(gradient, dtype=float).reshape(len(tolerances), len(outputs))
    if cross is not None and cross.n > 1:
        sampled = sample_contributions(cross.c, cross.m2_x, output_m2)
    else:
        sampled = np.full(g.shape, np.nan)
    table = {}
    for j, name in enumerate(outputs):
        if name in limits:
            below, above = (0, 0) if outside is None else (int(outside[j, 0]), int(outside[j, 1]))
            table[name] = capability(
                limits[name], valid, float(mean[j]), float(std[j]), below, above
            )
    return {
        "gradient": g,
        "input_variance": variance,
        "contributions": first_order_contributions(g, variance),
        "sample_contributions": sampled,
        "worst_case": worst_case_stack(nominal, g, minus, plus),
        "rss": rss_stack(nominal, g, minus, plus),
        "limits": dict(limits),
        "capability": table,
    }


def limit_array(limits: Mapping[str, Limit], outputs: Sequence[str]) -> np.ndarray | None:
    """(outputs, 2) low, high (-inf / inf where none) for the streaming counts, or None when
    no output has limits."""
    if not limits:
        return None
    out = np.tile([-math.inf, math.inf], (len(outputs), 1))
    for j, name in enumerate(outputs):
        if name in limits:
            out[j] = limits[name]
    return out
