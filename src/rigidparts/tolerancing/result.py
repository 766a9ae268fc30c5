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
    #: The toleranced inputs, in the order of the rows below (a body's keywords; for a model
    #: study ``"BODY.PARAMETER"``).
    inputs: tuple[str, ...] = ()
    #: How ``gradient`` was obtained.
    sensitivity_method: str = ""
    #: (inputs, outputs) ``d output / d input`` at the nominal inputs (SI).
    gradient: np.ndarray | None = None
    #: (inputs,) the inputs' variances (SI^2).
    input_variance: np.ndarray | None = None
    #: (inputs, outputs) first-order shares of each output's variance (:mod:`.capability`).
    contributions: np.ndarray | None = None
    #: (inputs, outputs) squared correlations of the samples (:mod:`.capability`).
    sample_contributions: np.ndarray | None = None
    #: (outputs, 2) linearised worst-case low, high.
    worst_case: np.ndarray | None = None
    #: (outputs, 2) root-sum-square low, high.
    rss: np.ndarray | None = None
    #: output -> (low, high) SI (-inf / inf for a one-sided limit).
    limits: Mapping[str, tuple[float, float]] | None = None
    #: output -> yield, ppm, Cp, Cpk and their intervals (:func:`.capability.capability`).
    capability: Mapping[str, Mapping[str, Any]] | None = None
    #: (parameter, value, rule) of the first invalid sample, or None; for a model study.
    invalid_detail: str | None = None

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
            **self._extra_row(j),
        }

    def _extra_row(self, j: int) -> dict[str, Any]:
        """The contributions, stacks and capability of output ``j`` (when computed)."""
        out: dict[str, Any] = {}
        if self.gradient is not None and self.contributions is not None:
            out["contributions"] = {
                name: {
                    "sensitivity": _finite(self.gradient[i, j]),
                    "first_order": _finite(self.contributions[i, j]),
                    "samples": None
                    if self.sample_contributions is None
                    else _finite(self.sample_contributions[i, j]),
                }
                for i, name in enumerate(self.inputs)
            }
        if self.worst_case is not None and self.rss is not None:
            out["worst_case"] = [_finite(v) for v in self.worst_case[j]]
            out["rss"] = [_finite(v) for v in self.rss[j]]
        name = self.outputs[j]
        if self.capability and name in self.capability:
            out["specification"] = {
                k: (_finite(v) if isinstance(v, float) else
                    [_finite(x) for x in v] if isinstance(v, list) else v)
                for k, v in self.capability[name].items()
            }  # fmt: skip
        return out

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
            **({"inputs": list(self.inputs), "sensitivity_method": self.sensitivity_method}
               if self.inputs else {}),
            **({"first_invalid": self.invalid_detail} if self.invalid_detail else {}),
            "outputs": {name: self.row(name) for name in self.outputs},
        }  # fmt: skip

    def __str__(self) -> str:
        subject = self.shape if self.shape.startswith("model ") else f"shape {self.shape!r}"
        if self.on_invalid == "resample":  # a model study: invalid draws redrawn
            head = (
                f"Tolerance study of {subject}: {self.samples} samples (seed {self.seed}), "
                f"{self.invalid} invalid draws redrawn"
                + (f" (first: {self.invalid_detail})" if self.invalid_detail else "")
            )
        elif self.invalid:
            head = (
                f"Tolerance study of {subject}: {self.samples} samples (seed {self.seed}),"
                f" {self.valid} valid, {self.invalid} invalid (skipped)"
            )
        else:
            head = (
                f"Tolerance study of {subject}: {self.samples} samples (seed {self.seed}), "
                "all valid"
            )
        lines = [
            head,
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
        lines += self._extra_lines()
        return "\n".join(lines)

    def _varying(self) -> list[int]:
        """The indices of the outputs whose samples vary (the first alone if none does)."""
        return [j for j in range(len(self.outputs)) if self.max[j] > self.min[j]] or [0]

    def _extra_lines(self) -> list[str]:
        """Tables of the stacks, the contributions and the specification limits."""
        lines: list[str] = []
        if self.worst_case is not None and self.rss is not None:
            lines += [
                "",
                "  stacks (linearised at the nominal values; sensitivities "
                f"{self.sensitivity_method}):",
                f"  {'output':<20}{'unit':<8}{'worst-case low':>16}{'worst-case high':>16}"
                f"{'RSS low':>14}{'RSS high':>14}{'MC min':>14}{'MC max':>14}",
            ]
            for j in self._varying():
                lines.append(
                    f"  {self.outputs[j]:<20}{self.units[j]:<8}{self.worst_case[j, 0]:>16.8g}"
                    f"{self.worst_case[j, 1]:>16.8g}{self.rss[j, 0]:>14.8g}{self.rss[j, 1]:>14.8g}"
                    f"{self.min[j]:>14.8g}{self.max[j]:>14.8g}"
                )
            lines.append(
                "  (worst case: y0 + sum max/min(g plus, -g minus); RSS: y0 + sum g c +- "
                "sqrt(sum (g t)^2), t the half-band, c its centre offset)"
            )
        if self.contributions is not None and self.inputs:
            lines += [
                "",
                "  contributions to each output's variance, % (first order g^2 var / sum | "
                "samples: squared correlation r^2):",
            ]
            width = max(12, *(len(n) + 2 for n in self.inputs))
            for j in self._varying():
                lines.append(f"  {self.outputs[j]} ({self.units[j]}):")
                for i, name in enumerate(self.inputs):
                    fo = self.contributions[i, j]
                    mc = np.nan if self.sample_contributions is None else (
                        self.sample_contributions[i, j])  # fmt: skip
                    lines.append(
                        f"    {name:<{width}}{_pct(fo):>9} | {_pct(mc):>7}"
                        f"    d/d{name} = {self.gradient[i, j]:.6g}"  # type: ignore[index]
                    )
                if self.sample_contributions is not None:
                    total = np.nansum(self.sample_contributions[:, j])
                    lines.append(
                        f"    {'sum of r^2':<{width}}{'':>9} | {_pct(total):>7}    "
                        "(off 100 %: curvature, interactions, sampling noise)"
                    )
        if self.capability:
            lines += [
                "",
                f"  specification limits ({self.valid} valid samples; intervals "
                f"{100 * next(iter(self.capability.values()))['confidence']:g} %: yield "
                "Clopper-Pearson, Cp chi-square, Cpk Bissell 1990):",
                f"  {'output':<20}{'unit':<8}{'low':>12}{'high':>12}{'yield %':>12}"
                f"{'ppm out':>11}{'Cp':>8}{'Cpk':>8}  {'Cpk interval':<18}{'yield % interval'}",
            ]
            for j, name in enumerate(self.outputs):
                c = self.capability.get(name)
                if c is None:
                    continue
                low = "-" if c["low"] is None else f"{c['low']:.6g}"
                high = "-" if c["high"] is None else f"{c['high']:.6g}"
                y = c["yield"]
                yi = c["yield_interval"]
                cpk_i = c["cpk_interval"]
                lines.append(
                    f"  {name:<20}{self.units[j]:<8}{low:>12}{high:>12}"
                    f"{_num(None if y is None else 100 * y, '.6g'):>12}"
                    f"{_num(c['ppm'], '.5g'):>11}{_num(c['cp'], '.3f'):>8}"
                    f"{_num(c['cpk'], '.3f'):>8}  "
                    f"{'-' if cpk_i is None else f'{cpk_i[0]:.3f}..{cpk_i[1]:.3f}':<18}"
                    f"{'-' if yi is None else f'{100 * yi[0]:.7g}..{100 * yi[1]:.7g}'}"
                )
        return lines

    def plot(self, path: Any, *, force: bool | None = None) -> Any:
        """Histograms of the outputs that vary (PNG, SVG or PDF by the suffix; written
        atomically) with the first-order normal density ``N(mean_1, std_1^2)`` over each;
        returns the path. Needs matplotlib (the ``viz`` extra). ParameterError when no sample
        was valid (nothing to plot)."""
        plt, MaxNLocator = self._pyplot("plot")
        from ..fileio import atomic_path

        varying = self._varying()
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

    def _pyplot(self, method: str) -> tuple[Any, Any]:
        """``(pyplot, MaxNLocator)`` for a picture of the samples: ParameterError when no
        sample was valid (nothing to draw), ImportError naming the ``viz`` extra without
        matplotlib."""
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
                f"ToleranceResult.{method} needs matplotlib: pip install 'rigidparts[viz]' "
                f"({exc})"
            ) from None
        return plt, MaxNLocator

    def _mark_limits(self, ax: Any, j: int, legend: bool = False) -> None:
        """The specification limits of output ``j`` (dashed black), its worst-case (dotted red)
        and RSS (dash-dot green) stacks as vertical lines; the x range widened to show them."""
        name = self.outputs[j]
        marks: list[tuple[float, str, str, str]] = []
        if self.limits and name in self.limits:
            for value in self.limits[name]:
                if math.isfinite(value):
                    marks.append((value, "black", "--", "limit"))
        if self.worst_case is not None and self.rss is not None:
            for value in self.worst_case[j]:
                marks.append((float(value), "#c0392b", ":", "worst case"))
            for value in self.rss[j]:
                marks.append((float(value), "#27ae60", "-.", "RSS"))
        seen: set[str] = set()
        for value, color, style, label in marks:
            ax.axvline(value, color=color, linestyle=style, linewidth=1.1,
                       label=label if legend and label not in seen else None)  # fmt: skip
            seen.add(label)
        if marks:
            values = [v for v, *_ in marks] + [float(self.min[j]), float(self.max[j])]
            lo, hi = min(values), max(values)
            pad = 0.05 * (hi - lo) if hi > lo else 1e-12 + abs(hi) * 1e-9
            ax.set_xlim(lo - pad, hi + pad)

    def plot_report(self, path: Any, *, force: bool | None = None) -> Any:
        """The tolerance engineer's picture (PNG, SVG or PDF by the suffix; written
        atomically): one panel per output that varies, its histogram (density) with the
        specification limits (dashed), the worst-case (dotted) and RSS (dash-dot) stacks and
        the yield / Cpk in the title; then one panel per output of each input's contribution
        to its variance, first order (from the sensitivities) beside the samples' squared
        correlation. Returns the path. Needs matplotlib (the ``viz`` extra)."""
        plt, MaxNLocator = self._pyplot("plot_report")
        from ..fileio import atomic_path

        varying = self._varying()
        columns = min(3, len(varying))
        rows = -(-len(varying) // columns)
        bars = self.contributions is not None and bool(self.inputs)
        total_rows = rows * (2 if bars else 1)
        figure, axes = plt.subplots(
            total_rows, columns, figsize=(4.6 * columns, 3.3 * total_rows), squeeze=False
        )
        try:
            for ax in axes.ravel():
                ax.set_visible(False)
            for k, j in enumerate(varying):
                ax = axes[k // columns, k % columns]
                ax.set_visible(True)
                self._plot_one(ax, j, MaxNLocator)
                self._mark_limits(ax, j, legend=k == 0)
                title = f"{self.outputs[j]} ({self.units[j]})"
                c = (self.capability or {}).get(self.outputs[j])
                if c is not None and c["yield"] is not None:
                    cpk = "-" if c["cpk"] is None else f"{c['cpk']:.2f}"
                    title += f"\nyield {100 * c['yield']:.4g} %, Cpk {cpk}"
                ax.set_title(title, fontsize=9)
                if k == 0:
                    ax.legend(fontsize=7, loc="upper right", framealpha=0.8)
            if bars:
                for k, j in enumerate(varying):
                    ax = axes[rows + k // columns, k % columns]
                    ax.set_visible(True)
                    self._plot_bars(ax, j, legend=k == 0)
            figure.suptitle(
                f"{self.shape}: {self.valid} samples (seed {self.seed}); red curve: first-order "
                "normal",
                fontsize=10,
            )
            figure.tight_layout()
            with atomic_path(path, force=force) as tmp:
                figure.savefig(tmp, dpi=100)
        finally:
            plt.close(figure)
        return path

    def _plot_bars(self, ax: Any, j: int, legend: bool) -> None:
        """Horizontal bars: each input's share of output ``j``'s variance, in %."""
        assert self.contributions is not None
        y = np.arange(len(self.inputs))
        first = 100 * np.nan_to_num(self.contributions[:, j])
        bars = [ax.barh(y - 0.2, first, height=0.4, color="#34495e", label="first order")]
        if self.sample_contributions is not None:
            sampled = 100 * np.nan_to_num(self.sample_contributions[:, j])
            bars.append(ax.barh(y + 0.2, sampled, height=0.4, color="#e67e22",
                                label="samples (r²)"))  # fmt: skip
        for container in bars:
            ax.bar_label(container, fmt="%.1f", fontsize=6, padding=2)
        ax.set_yticks(y, [name for name in self.inputs], fontsize=8)
        ax.invert_yaxis()
        ax.set_xlim(0, 118)
        ax.set_xlabel("% of variance", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.set_title(f"contributions to {self.outputs[j]}", fontsize=9)
        if legend:
            ax.legend(fontsize=7, loc="best")

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
        self._mark_limits(ax, j)
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


def _pct(value: float) -> str:
    return "-" if value is None or not math.isfinite(value) else f"{100 * value:.2f}"


def _num(value: Any, form: str) -> str:
    return "-" if value is None or not math.isfinite(value) else format(value, form)
