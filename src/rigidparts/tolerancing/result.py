"""The result of a tolerance study: :class:`ToleranceResult`.

Per output (:data:`.study.OUTPUTS`: mass, centre of mass x, y, z in frame_a, principal
moments 1 <= 2 <= 3 about the centre of mass, volume; SI units): the nominal body's value, the
Monte-Carlo mean, standard deviation (``sqrt(M2 / (n - 1))``), min, max and percentiles, and
beside them the first-order estimate from the exact sensitivities (``body.sensitivities()``):

    mean_1 = f(p_0) + sum_i (df/dp_i) (E[p_i] - p_0i)      (= f(p_0) for symmetric bands)
    std_1  = sqrt(sum_i (df/dp_i)^2 Var[p_i])

with ``Var = (minus + plus)^2 / 12`` for a uniform band and ``sigma^2`` for a normal one. For
small tolerances the two agree (the Monte-Carlo mean differs from ``mean_1`` by the curvature
term ``(1/2) sum_i f_ii Var[p_i]``, of second order).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ParameterError
from .study import OUTPUTS, UNITS
from .values import Tolerance

__all__ = ["ToleranceResult"]


@dataclass(frozen=True, eq=False)
class ToleranceResult:
    """A tolerance study's figures (module docstring); arrays are (outputs,) in the order of
    :attr:`outputs`, ``percentile_values`` (outputs, len(percentiles)).

    ``histogram`` (outputs, bins + 2) counts the valid samples: bin 0 below ``edges[:, 0]``,
    bins 1..bins between the edges, the last above ``edges[:, 1]``; ``percentile_resolution``
    is the bin width, the accuracy of every percentile (clipped to the exact min and max)."""

    shape: str
    parameters: Mapping[str, Any]
    tolerances: Mapping[str, Tolerance]
    samples: int
    seed: int
    valid: int
    invalid: int
    first_invalid: int | None
    on_invalid: str
    nominal: np.ndarray
    mean: np.ndarray
    std: np.ndarray
    min: np.ndarray
    max: np.ndarray
    percentiles: tuple[float, ...]
    percentile_values: np.ndarray
    percentile_resolution: np.ndarray
    first_order_mean: np.ndarray
    first_order_std: np.ndarray
    histogram: np.ndarray
    edges: np.ndarray
    block: int
    #: Wall time of the study (s); not part of :meth:`to_dict` (which is reproducible).
    elapsed: float = 0.0
    outputs: tuple[str, ...] = OUTPUTS
    units: tuple[str, ...] = UNITS

    def row(self, output: str) -> dict[str, Any]:
        """One output's figures by name (``"mass"``, ``"principal_moment_3"``...); a figure
        that does not exist (no valid sample; the standard deviation of one sample) is None,
        so the row is valid JSON."""
        try:
            j = self.outputs.index(output)
        except ValueError:
            raise KeyError(f"{output!r}: outputs are {', '.join(self.outputs)}") from None
        return {
            "unit": self.units[j],
            "nominal": _finite(self.nominal[j]),
            "mean": _finite(self.mean[j]),
            "std": _finite(self.std[j]),
            "min": _finite(self.min[j]),
            "max": _finite(self.max[j]),
            "percentiles": {
                _percent_key(q): _finite(v)
                for q, v in zip(self.percentiles, self.percentile_values[j], strict=True)
            },
            "percentile_resolution": _finite(self.percentile_resolution[j]),
            "first_order_mean": _finite(self.first_order_mean[j]),
            "first_order_std": _finite(self.first_order_std[j]),
        }

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data: the study (shape, parameters as given, each tolerance in SI,
        samples, seed, valid and invalid counts) and one entry per output (:meth:`row`);
        floats at full precision."""
        return {
            "shape": self.shape,
            "parameters": {k: _plain(v) for k, v in self.parameters.items()},
            "tolerances": {
                name: {
                    "nominal": t.nominal,
                    "minus": t.minus,
                    "plus": t.plus,
                    "distribution": t.distribution,
                    **({"sigma": t.sigma} if t.sigma is not None else {}),
                }
                for name, t in self.tolerances.items()
            },
            "samples": self.samples,
            "seed": self.seed,
            "valid": self.valid,
            "invalid": self.invalid,
            "first_invalid_sample": self.first_invalid,
            "on_invalid": self.on_invalid,
            "block": self.block,
            "outputs": {name: self.row(name) for name in self.outputs},
        }

    def __str__(self) -> str:
        lines = [
            f"Tolerance study of shape {self.shape!r}: {self.samples} samples (seed {self.seed}),"
            f" {self.valid} valid, {self.invalid} invalid (skipped)"
            if self.invalid
            else f"Tolerance study of shape {self.shape!r}: {self.samples} samples "
            f"(seed {self.seed}), all valid",
            "",
            "  tolerances (SI):",
        ]
        for name, t in self.tolerances.items():
            if t.distribution == "normal":
                text = f"normal, sigma {t.sigma:.6g}"
            elif t.minus == t.plus:
                text = f"+- {t.plus:.6g}, uniform"
            else:
                text = f"+{t.plus:.6g} -{t.minus:.6g}, uniform"
            lines.append(f"    {name:<18} {t.nominal:.9g} {text}")
        header = (
            f"  {'output':<20}{'unit':<8}{'nominal':>14}{'mean':>14}{'1st-order mean':>16}"
            f"{'std':>12}{'1st-order std':>15}"
        )
        lines += ["", header]
        for j, name in enumerate(self.outputs):
            lines.append(
                f"  {name:<20}{self.units[j]:<8}{self.nominal[j]:>14.8g}{self.mean[j]:>14.8g}"
                f"{self.first_order_mean[j]:>16.8g}{self.std[j]:>12.5g}"
                f"{self.first_order_std[j]:>15.5g}"
            )
        cols = ["min", *(f"p{_percent_key(q)}" for q in self.percentiles), "max"]
        lines += ["", f"  {'output':<20}" + "".join(f"{c:>14}" for c in cols)]
        for j, name in enumerate(self.outputs):
            values = [self.min[j], *self.percentile_values[j], self.max[j]]
            lines.append(f"  {name:<20}" + "".join(f"{v:>14.8g}" for v in values))
        lines.append(
            "  (percentiles from fixed-edge histograms: each within one bin width, about "
            f"1/{self.histogram.shape[1] - 2} of the histogram's range: twice the pilot "
            "block's, at least the first-order mean +- 8 sigma)"
        )
        return "\n".join(lines)

    def plot(self, path: Any, *, force: bool | None = None) -> Any:
        """Histograms of the outputs that vary (PNG, SVG or PDF by the suffix; written
        atomically) with the first-order normal density ``N(mean_1, std_1^2)`` over each;
        returns the path. Needs matplotlib (the ``viz`` extra). ParameterError when no sample
        was valid (nothing to plot)."""
        if self.valid == 0:
            raise ParameterError(
                "samples", self.samples, f"no valid sample to plot ({self.invalid} invalid)"
            )
        try:
            import matplotlib

            matplotlib.use("Agg", force=False)
            import matplotlib.pyplot as plt
            from matplotlib.ticker import MaxNLocator
        except ImportError as exc:
            raise ImportError(
                f"ToleranceResult.plot needs matplotlib: pip install 'rigidparts[viz]' ({exc})"
            ) from None
        from ..fileio import atomic_path

        varying = [j for j in range(len(self.outputs)) if self.max[j] > self.min[j]]
        varying = varying or [0]
        columns = min(4, len(varying))
        rows = -(-len(varying) // columns)
        figure, axes = plt.subplots(
            rows, columns, figsize=(3.6 * columns, 2.8 * rows), squeeze=False
        )
        try:
            for ax in axes.ravel()[len(varying) :]:
                ax.set_visible(False)
            for ax, j in zip(axes.ravel(), varying, strict=False):
                self._plot_one(ax, j, MaxNLocator)
            figure.suptitle(
                f"{self.shape}: {self.valid} valid samples (seed {self.seed}); "
                "line: first-order normal"
            )
            figure.tight_layout()
            with atomic_path(path, force=force) as tmp:
                figure.savefig(tmp, dpi=100)
        finally:
            plt.close(figure)
        return path

    def _plot_one(self, ax: Any, j: int, MaxNLocator: Any) -> None:
        """One output: the histogram regrouped to about 80 bars over [min, max], as a density
        (the last group padded with empty bins, so no bin is dropped)."""
        inner, first, group, width = _grouping(self.histogram[j], self.edges[j], self.min[j],
                                               self.max[j])  # fmt: skip
        grouped = _grouped(inner, group)
        lo = self.edges[j][0]
        left = lo + first * width + np.arange(grouped.shape[0]) * group * width
        total = max(1, self.valid)
        ax.bar(left, grouped / (total * group * width), width=group * width, align="edge",
               color="#7a9cc6", edgecolor="none")  # fmt: skip
        sigma, mu = self.first_order_std[j], self.first_order_mean[j]
        if sigma > 0 and math.isfinite(sigma):
            x = np.linspace(self.min[j], self.max[j], 200)
            ax.plot(x, np.exp(-0.5 * ((x - mu) / sigma) ** 2) / (sigma * math.sqrt(2 * math.pi)),
                    color="#c0392b", linewidth=1.2)  # fmt: skip
        ax.set_title(self.outputs[j].replace("_", " "), fontsize=9)
        ax.set_xlabel(self.units[j], fontsize=8)
        ax.tick_params(labelsize=7)
        ax.xaxis.set_major_locator(MaxNLocator(4))
        ax.ticklabel_format(axis="x", style="sci", scilimits=(-3, 4), useOffset=True)


def _grouping(
    counts: np.ndarray, edges: np.ndarray, low: float, high: float
) -> tuple[np.ndarray, int, int, float]:
    """``(counts of the bins from min to max, index of the first, bins per bar, bin width)``."""
    bins = counts.shape[0] - 2
    lo, hi = edges
    width = (hi - lo) / bins
    first = int(np.clip(math.floor((low - lo) / width), 0, bins - 1))
    last = int(np.clip(math.floor((high - lo) / width), 0, bins - 1))
    group = max(1, (last - first + 1) // 80)
    return counts[1 + first : 2 + last], first, group, width


def _grouped(inner: np.ndarray, group: int) -> np.ndarray:
    """Sums of ``group`` consecutive counts; the last group padded with zeros."""
    pad = -inner.shape[0] % group
    return np.concatenate([inner, np.zeros(pad, inner.dtype)]).reshape(-1, group).sum(axis=1)


def _finite(value: Any) -> float | None:
    """A float, or None for NaN or an infinity (not JSON)."""
    value = float(value)
    return value if math.isfinite(value) else None


def _percent_key(q: float) -> str:
    return f"{q:g}"


def _plain(value: Any) -> Any:
    if isinstance(value, Tolerance):
        return str(value)
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, str | int | float | bool | list | dict) or value is None:
        return value
    return str(value)
