"""Tolerance studies of a model's derived quantities, and ``rp.tolerance`` for bodies and models.

>>> import rigidparts as rp
>>> model = rp.load_model("examples/double_pendulum.toml")
>>> study = rp.tolerance(model, {"upper.length": "400 mm +- 1 %", "*.density": "+- 2 %"},
...                      outputs=["total_mass", "com:upper", "period:shoulder"],
...                      limits={"period:shoulder": "1.2 s..1.3 s"}, samples=200_000, seed=1)
>>> print(study)

``rp.tolerance(model, spec, ...)`` draws the model's parameters exactly as
:func:`rigidparts.randomize` does (the same keys ``"BODY.PARAMETER"``, patterns such as
``"*.density"``, spreads with or without a nominal value, the same keyed streams: sample ``i``
is environment ``i`` of episode 0, so it is the same bits whatever the number of samples), and
reduces each block of :data:`~rigidparts.tolerancing.BLOCK` samples with the shape study's
exact, order-fixed statistics (:mod:`rigidparts.tolerancing.study`: Chan's fold, co-moments,
fixed-edge histograms, exact counts against the limits), one block at a time: memory does not
grow with the number of samples. Blocks run one after the other in the calling thread.

Outputs (``outputs=``), each evaluated at the model's reference configuration (every joint at
its zero position, where a joint's child frame coincides with its joint frame: MuJoCo's
``qpos0`` of the exported MJCF), in world coordinates:

- ``"total_mass"`` (kg): the sum of the bodies' masses;
- ``"com:BODY"`` (m): the centre of mass of ``BODY`` and all its descendants, three outputs
  ``com:BODY.x``, ``.y``, ``.z``;
- ``"period:JOINT"`` (s): the small-oscillation period of the compound pendulum formed by the
  child body of revolute ``JOINT`` and all its descendants, held rigid, swinging about the
  joint's axis through its anchor under the model's gravity ``g = |model.gravity|``:
  ``T = 2 pi sqrt(I_O / (m g d))`` (the physical pendulum for small amplitudes: e.g. Halliday,
  Resnick & Walker, *Fundamentals of Physics*, chapter "Oscillations", the physical pendulum),
  ``I_O = sum_b (e^T I_b e + m_b |r_b x e|^2)`` the subtree's moment of inertia about the axis
  (each body's central tensor plus the parallel-axis term of its centre's distance ``r_b``
  from the anchor, ``e`` the unit axis), ``m`` its mass and ``d`` the distance of its centre
  of mass from the axis. The formula assumes the axis horizontal (perpendicular to gravity).

Each sample is rebuilt by :func:`rigidparts.randomize` (MuJoCo's body arrays: masses,
centres, inertia frames, ``body_pos`` moved with the lengths) and composed down the tree
elementwise. Invalid draws (a body the shape's rules or MuJoCo's refuse) are redrawn from
the keyed streams (``randomize``'s rejection, so the samples follow the spreads conditioned on
valid bodies, as skipping does) and **counted**: ``invalid`` in the result, the first one
described; ``on_invalid="error"`` refuses the first instead.

Sensitivities of model outputs (contributions, worst-case and RSS stacks) are central
differences of that same composition, Richardson-extrapolated (step ``1e-3`` of each input's
nominal value, then half of it: truncation error ``O(h^4)``, about 1e-10 relative), not the
shape study's exact dual numbers: ``result.sensitivity_method`` says so.

Layer: over :mod:`rigidparts.variation` (and below it model, batch, tolerancing); below the
command line.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from .errors import ParameterError
from .tolerancing import DEFAULT_PERCENTILES, ToleranceResult
from .tolerancing import tolerance as shape_tolerance
from .tolerancing.capability import limit_array, parse_limits, study_figures
from .tolerancing.study import (
    BLOCK,
    MEAN,
    CrossFold,
    Fold,
    Plan,
    add_histogram,
    block_cross,
    block_stats,
    check_samples,
    count_outside,
    distribution,
    histogram_edges,
)
from .tolerancing.values import Tolerance
from .transforms import quaternion_to_matrix

if TYPE_CHECKING:
    from .model import Model
    from .variation import Randomization

__all__ = ["model_tolerance", "tolerance"]

#: Relative step of the central differences (then halved: Richardson).
STEP = 1e-3


def tolerance(subject: Any, spec: Mapping[str, Any] | None = None, /, **keywords: Any) -> Any:
    """``rp.tolerance``: a study of one body, ``tolerance(shape, samples=..., **parameters)``
    (:func:`rigidparts.tolerancing.tolerance`), or of a model's derived quantities,
    ``tolerance(model, spec, outputs=[...], ...)`` (:func:`model_tolerance`)."""
    # A Model exists only once rigidparts.model is imported: a body's study does not import
    # the model and randomization layers (about 0.2 s).
    models = sys.modules.get("rigidparts.model")
    if models is not None and isinstance(subject, models.Model):
        return model_tolerance(subject, spec, **keywords)
    if spec is not None:
        raise ParameterError(
            "spec", spec, "is for a model study (rp.tolerance(model, spec, ...)); a body's "
            "tolerances are keywords: rp.tolerance('cone', radius_a='0.4 m +- 0.1 mm')",
        )  # fmt: skip
    return shape_tolerance(subject, **keywords)


@dataclass(frozen=True)
class _Output:
    kind: str  # "total_mass", "com", "period"
    target: str  # body or joint ("" for total_mass)
    names: tuple[str, ...]
    units: tuple[str, ...]


def _outputs(model: Model, outputs: Any) -> list[_Output]:
    if isinstance(outputs, str):
        outputs = [outputs]
    if not isinstance(outputs, Sequence) or not outputs:
        raise ParameterError(
            "outputs", outputs, "must be a non-empty list such as ['total_mass', 'com:BODY', "
            "'period:JOINT']",
        )  # fmt: skip
    out: list[_Output] = []
    for item in outputs:
        if not isinstance(item, str):
            raise ParameterError("outputs", item, "each output is text: 'total_mass', "
                                 "'com:BODY' or 'period:JOINT'")  # fmt: skip
        kind, _, target = item.partition(":")
        if item == "total_mass":
            out.append(_Output("total_mass", "", ("total_mass",), ("kg",)))
        elif kind == "com" and target:
            if target not in model.bodies:
                raise ParameterError(
                    "outputs", item, f"names no body (bodies: {', '.join(model.bodies)})"
                )
            out.append(_Output("com", target, tuple(f"com:{target}.{a}" for a in "xyz"),
                               ("m", "m", "m")))  # fmt: skip
        elif kind == "period" and target:
            joint = model.joints.get(target)
            if joint is None:
                raise ParameterError(
                    "outputs", item, f"names no joint (joints: {', '.join(model.joints)})"
                )
            if joint.type != "revolute":
                raise ParameterError(
                    "outputs", item, f"joint {target!r} is {joint.type}: a pendulum's period "
                    "needs a revolute joint",
                )  # fmt: skip
            if not np.any(model.gravity):
                raise ParameterError("outputs", item, "the model has no gravity: no period")
            out.append(_Output("period", target, (item,), ("s",)))
        else:
            raise ParameterError(
                "outputs", item, "is not an output: write 'total_mass', 'com:BODY' or "
                "'period:JOINT'",
            )  # fmt: skip
    names = [n for o in out for n in o.names]
    if len(set(names)) != len(names):
        raise ParameterError("outputs", outputs, "names an output twice")
    return out


class _Composer:
    """The outputs of a model's samples from :func:`randomize`'s rows (module docstring).
    Constant per model: the body order, each body's parent column, world rotations at the
    reference configuration, inertia axes in the world, joint axes."""

    def __init__(self, model: Model, outputs: list[_Output]) -> None:
        self.model = model
        self.outputs = outputs
        joints = model.ordered_joints()
        self.order = [j.child_body for j in joints]
        self.column = {name: c for c, name in enumerate(self.order, start=1)}
        self.parent = [0] * (len(self.order) + 1)
        self.r_wa = [np.eye(3)] * (len(self.order) + 1)
        for joint in joints:
            c = self.column[joint.child_body]
            p = 0 if joint.parent_body is None else self.column[joint.parent_body]
            self.parent[c] = p
            r_bpj = np.asarray(model.joint_frame_in_parent_body(joint)[0])
            r_ac = np.asarray(model.child_frame_in_body(joint)[0])
            self.r_wa[c] = self.r_wa[p] @ (r_bpj @ r_ac.T)  # R_WA = R_WBp R_BpJ R_CA^T
        self.g = float(np.linalg.norm(model.gravity))

    @staticmethod
    def _rotate(r: np.ndarray, v: np.ndarray) -> np.ndarray:
        """``R v`` for (n, 3) ``v``, elementwise (no BLAS: each row's bits its own)."""
        x, y, z = v[:, 0:1], v[:, 1:2], v[:, 2:3]
        return (x * r[:, 0] + y * r[:, 1]) + z * r[:, 2]

    def __call__(self, r: Randomization) -> np.ndarray:
        """(outputs, n) values of the rows of ``r``."""
        n = len(r)
        nb = len(self.order) + 1
        p_wa = [np.zeros((n, 3))] * nb
        com = [np.zeros((n, 3))] * nb
        for c in range(1, nb):
            p = self.parent[c]
            pos = np.broadcast_to(r.body_pos[:, c], (n, 3))
            p_wa[c] = p_wa[p] + self._rotate(self.r_wa[p], pos)
            com[c] = p_wa[c] + self._rotate(
                self.r_wa[c], np.broadcast_to(r.body_ipos[:, c], (n, 3))
            )
        mass = r.body_mass
        rows: list[np.ndarray] = []
        for output in self.outputs:
            if output.kind == "total_mass":
                total = np.array(mass[:, 1], dtype=float)
                for c in range(2, nb):
                    total = total + mass[:, c]
                rows.append(total)
                continue
            root = output.target if output.kind == "com" else self.model.joints[
                output.target].child_body  # fmt: skip
            bodies = [self.column[b] for b in self.model.subtree(root)]
            m = np.array(mass[:, bodies[0]], dtype=float)
            first = com[bodies[0]] * mass[:, bodies[0], None]
            weighted = first
            for c in bodies[1:]:
                m = m + mass[:, c]
                weighted = weighted + com[c] * mass[:, c, None]
            centre = weighted / m[:, None]
            if output.kind == "com":
                rows.extend(centre.T)
                continue
            rows.append(self._period(output.target, r, bodies, p_wa, com, m, centre))
        return np.ascontiguousarray(np.stack(rows))

    def _period(
        self,
        joint_name: str,
        r: Randomization,
        bodies: list[int],
        p_wa: list[np.ndarray],
        com: list[np.ndarray],
        m: np.ndarray,
        centre: np.ndarray,
    ) -> np.ndarray:
        """``2 pi sqrt(I_O / (m g d))`` about the joint's axis (module docstring)."""
        joint = self.model.joints[joint_name]
        c = self.column[joint.child_body]
        r_ac, p_ac = self.model.child_frame_in_body(joint)
        n = len(r)
        if joint_name in r.jnt_names:
            p_ac = r.jnt_pos[:, r.jnt_names.index(joint_name)]
        anchor = p_wa[c] + self._rotate(self.r_wa[c], np.broadcast_to(p_ac, (n, 3)))
        e = self.r_wa[c] @ np.asarray(r_ac) @ np.asarray(joint.axis_in_joint)
        e = e / np.linalg.norm(e)
        inertia = np.zeros(n)
        for b in bodies:
            axes = self.r_wa[b] @ quaternion_to_matrix(np.asarray(r.body_iquat[0, b]))
            along = (e @ axes) ** 2  # (e . u_k)^2 for the inertia frame's axes u_k
            moments = np.broadcast_to(r.body_inertia[:, b], (n, 3))
            offset = com[b] - anchor
            axial = offset[:, 0] * e[0] + offset[:, 1] * e[1] + offset[:, 2] * e[2]
            square = offset[:, 0] ** 2 + offset[:, 1] ** 2 + offset[:, 2] ** 2
            inertia = (
                inertia
                + ((moments[:, 0] * along[0] + moments[:, 1] * along[1]) + moments[:, 2] * along[2])
                + r.body_mass[:, b] * (square - axial * axial)
            )
        offset = centre - anchor
        axial = offset[:, 0] * e[0] + offset[:, 1] * e[1] + offset[:, 2] * e[2]
        d2 = offset[:, 0] ** 2 + offset[:, 1] ** 2 + offset[:, 2] ** 2 - axial * axial
        d = np.sqrt(np.maximum(d2, 0.0))
        with np.errstate(divide="ignore", invalid="ignore"):
            return 2 * math.pi * np.sqrt(inertia / (m * self.g * d))


def _point_spec(inputs: Sequence[str], values: Sequence[float]) -> dict[str, Tolerance]:
    return {name: Tolerance(float(v), 0.0, 0.0) for name, v in zip(inputs, values, strict=True)}


def model_tolerance(
    model: Model,
    spec: Mapping[str, Any] | None,
    *,
    outputs: Any = ("total_mass",),
    samples: int = 100_000,
    seed: int = 0,
    limits: Mapping[str, Any] | None = None,
    percentiles: Sequence[float] = DEFAULT_PERCENTILES,
    on_invalid: str = "skip",
    engine: str = "auto",
) -> ToleranceResult:
    """A Monte-Carlo tolerance study of ``model``'s derived quantities (module docstring).

    Parameters
    ----------
    model : a :class:`rigidparts.Model`.
    spec : ``{"BODY.PARAMETER": spread}`` as for :func:`rigidparts.randomize`
        (``"arm.length": "1 m +- 2 %"``, ``"*.density": "+- 1 %"``).
    outputs : ``"total_mass"``, ``"com:BODY"``, ``"period:JOINT"`` (a list).
    samples, seed, percentiles : as for the shape study.
    limits : ``{output name: (low, high)}`` or ``"LOW..HIGH"`` (``"com:arm.z"``, units allowed).
    on_invalid : ``"skip"`` (invalid draws counted and redrawn) or ``"error"``.
    engine : ``rp.batch``'s engine (same bits).
    """
    from .model import Model
    from .tolerancing import _percentiles, _seed
    from .variation import randomize

    if not isinstance(model, Model):
        raise ParameterError("model", type(model).__name__, "must be a rigidparts Model")
    n = check_samples(samples)
    seed = _seed(seed)
    qs = _percentiles(percentiles)
    if on_invalid not in ("skip", "error"):
        raise ParameterError("on_invalid", on_invalid, "must be 'skip' or 'error'")
    chosen = _outputs(model, outputs)
    names = tuple(x for o in chosen for x in o.names)
    units = tuple(u for o in chosen for u in o.units)
    limit_table = parse_limits(limits, names, units)
    compose = _Composer(model, chosen)
    mode = "resample" if on_invalid == "skip" else "raise"

    def rows(first: int, count: int) -> Randomization:
        return randomize(model, spec, envs=range(first, first + count), seed=seed, episode=0,
                         on_invalid=mode, engine=engine)  # fmt: skip

    started = time.perf_counter()
    pilot = rows(0, min(BLOCK, n))
    inputs = tuple(pilot.tolerances)
    tolerances = [pilot.tolerances[k] for k in inputs]
    nominal_values = [t.nominal for t in tolerances]

    def at(values: Sequence[float]) -> np.ndarray:
        return compose(randomize(model, _point_spec(inputs, values), envs=1, engine="numpy"))[:, 0]

    nominal = at(nominal_values)
    if not np.all(np.isfinite(nominal)):
        bad = [names[j] for j in np.flatnonzero(~np.isfinite(nominal))]
        raise ParameterError(
            "outputs", ", ".join(bad), "is not finite at the nominal values (a pendulum whose "
            "centre of mass is on its axis has no period)",
        )  # fmt: skip
    gradient = np.empty((len(inputs), len(names)))
    for i, x0 in enumerate(nominal_values):
        h = STEP * (abs(x0) or tolerances[i].high - tolerances[i].low or 1.0)

        def diff(step: float, i: int = i) -> np.ndarray:
            up, down = list(nominal_values), list(nominal_values)
            up[i] += step
            down[i] -= step
            return (at(up) - at(down)) / (2 * step)

        gradient[i] = (4 * diff(h / 2) - diff(h)) / 3
    variance = np.array([t.variance for t in tolerances])
    shift = np.array([t.mean - t.nominal for t in tolerances])
    fo_mean = nominal + shift @ gradient
    fo_std = np.sqrt((gradient * gradient * variance[:, None]).sum(axis=0))

    plan = Plan(
        shape="model",
        fixed={},
        tolerances=(),
        samples=n,
        seed=seed,
        on_invalid=on_invalid,
        engine=engine,
        limits=limit_array(limit_table, names),
    )
    fold, cross = Fold(len(names)), CrossFold(len(inputs), len(names))
    outside = np.zeros((len(names), 2), np.int64)
    histogram = np.zeros((len(names), plan.bins + 2), np.int64)
    invalid = 0
    first_invalid: tuple[int, str, str] | None = None
    scratch: dict[str, np.ndarray] = {}  # block_cross's deviations, reused block to block
    for b in range(plan.blocks):
        start, m = plan.block_rows(b)
        r = pilot if b == 0 else rows(start, m)
        y = compose(r)
        x = np.stack([r.samples[k] for k in inputs]) if inputs else np.empty((0, m))
        stats = block_stats(y)
        if b == 0:
            plan = replace(plan, edges=histogram_edges(stats, nominal, fo_mean, fo_std))
        fold.add(m, stats)
        cross.add(m, block_cross(x, y, stats[:, MEAN], scratch), stats[:, MEAN])
        count_outside(y, plan.limits, outside)
        add_histogram(y, stats, plan, histogram)
        invalid += r.invalid_total
        if r.first_invalid is not None and first_invalid is None:
            first_invalid = r.first_invalid
    valid, combined = fold.result()
    distributed, m2 = distribution(plan, valid, combined, histogram, qs)
    figures = study_figures(
        outputs=names, nominal=nominal, gradient=gradient, tolerances=tolerances, cross=cross,
        valid=valid, mean=distributed["mean"], std=distributed["std"], output_m2=m2,
        limits=limit_table, outside=outside,
    )  # fmt: skip
    detail = None
    if first_invalid is not None:
        detail = f"env {first_invalid[0]}, body {first_invalid[1]!r}: {first_invalid[2]}"
    return ToleranceResult(
        shape=f"model {model.name}",
        parameters=dict(spec or {}),
        tolerances=dict(zip(inputs, tolerances, strict=True)),
        samples=n,
        seed=seed,
        valid=valid,
        invalid=invalid,
        first_invalid=None if first_invalid is None else first_invalid[0],
        on_invalid="resample" if on_invalid == "skip" else on_invalid,
        nominal=nominal,
        first_order_mean=fo_mean,
        first_order_std=fo_std,
        elapsed=time.perf_counter() - started,
        outputs=names,
        units=units,
        inputs=inputs,
        sensitivity_method="central differences, Richardson-extrapolated",
        invalid_detail=detail,
        **distributed,
        **figures,
    )
