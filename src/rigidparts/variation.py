"""Domain randomization that stays physical: ``rp.randomize(model, spec, envs=, seed=, episode=)``.

Users who train policies in MuJoCo (or MJX, Newton, Isaac Lab) often randomize a link's mass
and leave its inertia and centre of mass unchanged: a body that no density and geometry
produce. Here each environment's bodies are *rebuilt* from the sampled parameters, so every
row is the mass, centre of mass and inertia of a real body of that shape.

>>> import rigidparts as rp
>>> model = rp.load_model("examples/serial_arm.toml")
>>> r = rp.randomize(model, {"upper_arm.length": "400 mm +- 2 %",
...                          "hand.mass": "+- 10 %",
...                          "*.density": "+- 1 %"}, envs=4096, seed=7, episode=0)
>>> r.body_mass.shape, r.body_inertia.shape          # (envs, nbody), (envs, nbody, 3)
((4096, 5), (4096, 5, 3))

Spec keys are ``BODY.PARAMETER``; ``BODY`` is a body name or an ``fnmatch`` pattern (``*``,
``?``, ``[..]``), split at the last dot. ``PARAMETER`` is a dimension of the body's shape
(tier-1 shapes: a length or an angle), ``density`` or ``mass``. Values are the spreads of
:func:`rigidparts.tolerancing.parse_tolerance` (``"1 m +- 2 %"``, ``"0.5 kg +0.1 kg -0 kg"``,
``"0.4 m +- 0.1 mm normal"``, ``"0.4 m sigma 0.03 mm"``) or a
:class:`~rigidparts.tolerancing.Tolerance` (SI). A spread without a nominal value (``"+- 1 %"``,
``"+- 10 kg/m^3"``, ``"sigma 1 %"``) is taken around each body's own value. A pattern applies
to every matching body that has the parameter (``applied`` lists them; a density key skips a
body given by its mass alone); a key naming one body wins over a pattern; two patterns on the
same body and parameter, density and mass on one body, a pattern matching nothing, an unknown
body or parameter: :class:`~rigidparts.ParameterError` naming the key. Each body draws its own
values (``*.density`` varies every body independently).

Random streams (bit-identical rows). Environments are cut into blocks of :data:`ENV_BLOCK`
(4096). Block ``b`` of episode ``e`` (attempt ``k``, 0 for the first draw, see below) draws from
``rigidparts.tolerancing.study.block_stream(seed, key)`` with ``key = ((e * 256 + k) << 32) |
b`` -- the keyed PCG64DXSM streams of ``rp.tolerance`` (SeedSequence(seed, spawn_key=(key,)));
episode 0, attempt 0 is exactly ``rp.tolerance``'s block stream ``b``. Each stream gives, for
every varied (body, parameter) in a fixed order (the bodies in MuJoCo order, then the shape's
parameters, then density, mass), :data:`ENV_BLOCK` values: uniform ``u`` in [0, 1) mapped to
``u (high - low) + low``, or standard normal ``z`` mapped to ``z sigma + nominal`` (the
mapping of ``rp.tolerance``). Row ``i`` is therefore a function of (seed, episode, i, spec) only:
whatever the number of environments, the env range or indices computed, the engine.
Environment rows are then rebuilt elementwise (no reduction across rows, no BLAS).

Bodies. A body with a varied parameter and closed forms (tier 1) goes through
``rp.batch.<shape>`` (bodies of one shape in one call): row ``i`` holds exactly the bits of
``rp.<Shape>(...)`` built with that row's values. Another body (a mesh, a ``rigid_body``) may
vary only its density or mass: its mass is ``density volume`` (or the sampled mass) and its
inertia the nominal one times ``m / m0``, exact for a pure density change (the geometry is
fixed). Bodies without a varied parameter repeat their nominal values.

MuJoCo layout (the MJCF that ``rp.export_model(model, "m.xml")`` writes,
:mod:`rigidparts.export.mjcf`; every body's MuJoCo frame is its frame_a). Shapes ``(n, nbody)``
etc. with ``n`` the environments computed and ``nbody`` = bodies + 1: column 0 is MuJoCo's
world body (zeros, ``iquat`` = (1, 0, 0, 0)), then the bodies in depth-first order of the tree
(:meth:`Model.ordered_joints`, MuJoCo's body ids):

- ``body_mass`` (n, nbody) kg;
- ``body_ipos`` (n, nbody, 3) m: the centre of mass ``p_AoBcm_A`` in the body frame (frame_a);
- ``body_iquat`` (n, nbody, 4) (w, x, y, z): the inertia frame in the body frame. For a tier-1
  body it is ``quat(R_AC)``, the shape's canonical axes (x along the shape's axis), fixed per
  body; for another body the principal axes of its nominal tensor;
- ``body_inertia`` (n, nbody, 3) kg m^2: the moments about the centre of mass along those axes,
  so ``R(iquat) diag(inertia) R(iquat)^T = I_BBcm_A``. Tier-1 rows hold the closed forms'
  canonical moments ``(I_xx, I_yy, I_zz)`` in canonical order (not sorted: MuJoCo accepts any
  order; the exported file writes the same tensor with sorted moments and permuted axes).
- ``body_pos`` (n, nbody, 3) m: frame_a in the parent body's frame_a, ``X_BpA = X_BpJ X_CA``
  (:mod:`rigidparts.export.mjcf`) with the joint's parent and child frames as moved by the
  row's dimensions (``body_quat`` does not change: frame rotations do not depend on lengths);
- ``jnt_pos`` (n, njnt, 3): the anchors (child frames) in their body of the MuJoCo joints
  whose anchor moves (``jnt_names``; the others keep the compiled model's);
- ``site_pos`` (n, nsite, 3): the sites ``BODY.FRAME`` of the frames that move
  (``site_names``; the others keep the compiled model's).

An array that is the same in every environment (``body_iquat`` always; ``body_ipos`` and
``body_pos`` when no dimension varies) is a read-only view of one row (stride 0 along the
environments); the others are new C-contiguous float64 arrays, or ``out``'s, refilled.

Frames. ``frame_b`` sits at ``L e_axis`` with the row's ``L`` (the shape's end dimension),
``frame_com`` at the row's centre of mass. Extra frames: with ``frames="scale"`` (default) an
axial extra frame's offset is scaled by ``L / L_model`` and a radial one's radius (a disk) by
``radius / radius_model`` (a mounting point keeps its place *relative* to the body); with
``frames="fixed"`` they stay where the model puts them. Named frames (mesh and rigid bodies)
never move (their geometry is fixed). Joint anchors and child bodies follow the frames they
are attached to.

What is NOT randomized (fixed at the model's nominal values): the collision and visual geometry
(``geom_size``, ``geom_pos``, ``geom_quat``, ``geom_rbound``, meshes), body and frame
rotations, joint axes, limits, damping, rods (tendon stiffness, damping, rest length), gravity
and the keyframe. After writing a row call ``mujoco.mj_setConst`` (the helper does) so the
quantities MuJoCo derives from masses (``body_subtreemass``, ``dof_invweight0``...) follow.

Validity (MuJoCo's strict rule, as ``rigidparts check`` states it, docs/check.md): every row
has a finite positive mass and positive moments (>= ``mjMINVAL`` = 1e-15 when the nominal body
has them) and ``A + B >= C`` for every ordering of the three moments, exactly, in float64.
Rounding alone can break the triangle of a very flat body by an ulp: the largest moment is then
set to the sum of the other two (as :func:`rigidparts.export.mjcf.mujoco_moments` does for
exports), counted in ``triangle_fixed``.

Bad spreads. Before drawing, each spread is checked: its band (3 sigma for a normal one) must
keep the parameter in its sign rule (:func:`~rigidparts.tolerancing.check_band`), and a body
whose dimensions vary must be valid at its nominal values, at each varied parameter's two band
ends (the others nominal) and with all spreads at their lows / highs; otherwise a one-line
ParameterError names the key, the value and the shape's rule.
Samples that are still invalid (an unlucky combination, a normal tail) are **resampled**
(``on_invalid="resample"``, default): the body's parameters of that environment are redrawn
from attempt ``k = 1, 2, ...`` of the keyed streams, at most :data:`MAX_ATTEMPTS` times, so a
row stays a function of (seed, episode, env) only; every invalid draw is counted in
``invalid`` (by body) and the first one described in ``first_invalid``. An environment still
invalid after the last attempt is a ParameterError naming the key. ``on_invalid="raise"``
refuses the first invalid sample instead (naming the key, the environment and the rule).

Other engines. :meth:`Randomization.write_newton` writes every row into a Newton ``Model``
replicated from the exported MJCF, one world per row (masses, centres of mass, full inertia
tensors :meth:`Randomization.full_inertia` and the joints' positions, float32). MJX's
``mjx.Model`` has the MuJoCo fields above with the same shapes, batched with ``jax.vmap`` over a
leading env axis. docs/randomize.md shows both.

Layer: over :mod:`rigidparts.model`, :mod:`rigidparts.batch`, :mod:`rigidparts.tolerancing` and
:mod:`rigidparts.export` (the MJCF conventions); below the command line.
"""

from __future__ import annotations

import fnmatch
import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .batch._pool import empty as pooled_empty
from .errors import ModelError, ParameterError
from .inertia import MUJOCO_MINVAL, mujoco_invalid_rows
from .model import Model
from .tolerancing.study import block_stream, draw_into
from .tolerancing.values import Tolerance, check_band, parse_tolerance
from .transforms import matrix_to_quaternion, quaternion_to_matrix

__all__ = ["ENV_BLOCK", "MAX_ATTEMPTS", "Randomization", "randomize"]

#: Environments per random block (the unit of the keyed streams).
ENV_BLOCK = 4096
#: Draws per environment and body at most (the first and the resamples).
MAX_ATTEMPTS = 16
#: The SI unit written before a spread given without a nominal value, by kind.
_SI_UNIT = {"length": "m", "angle": "rad", "density": "kg/m^3", "mass": "kg"}
#: Kinds of dimension that may vary on a tier-1 body.
_VARIABLE_KINDS = ("length", "angle")
#: A spread whose nominal value is the body's own.
_RELATIVE_STARTS = ("+", "±", "sigma", "σ")


@dataclass(frozen=True)
class _Varied:
    """One varied (body, parameter): its key in the spec, the value given and its Tolerance."""

    body: str
    parameter: str
    key: str
    given: Any
    tolerance: Tolerance


@dataclass
class _BodyPlan:
    """How one body's rows are made: ``"batch"`` (tier 1), ``"scale"`` or ``"fixed"``."""

    name: str
    column: int
    component: Any
    kind: str
    varied: list[_Varied] = field(default_factory=list)
    #: ``quat(R_AC)`` of a tier-1 body (its canonical axes: the inertia frame of its rows).
    quat: Any = None


@dataclass
class Randomization:
    """Per-environment mass properties and frame positions in MuJoCo's layout (module
    docstring). All arrays are float64 C-contiguous, rows = ``envs`` (environment indices)."""

    envs: np.ndarray
    seed: int
    episode: int
    body_names: tuple[str, ...]
    body_mass: np.ndarray
    body_ipos: np.ndarray
    body_iquat: np.ndarray
    body_inertia: np.ndarray
    body_pos: np.ndarray
    jnt_names: tuple[str, ...]
    jnt_pos: np.ndarray
    site_names: tuple[str, ...]
    site_pos: np.ndarray
    #: ``"BODY.PARAMETER" -> (n,)`` the values used (SI), after any resampling.
    samples: dict[str, np.ndarray]
    #: ``"BODY.PARAMETER" -> Tolerance`` (SI) drawn from.
    tolerances: dict[str, Tolerance]
    #: spec key -> the bodies it applied to.
    applied: dict[str, tuple[str, ...]]
    #: body -> invalid draws that were replaced by a resample (0 for none).
    invalid: dict[str, int]
    #: ``(env, body, rule)`` of the first invalid draw, or None.
    first_invalid: tuple[int, str, str] | None
    #: Rows whose largest moment was lowered by rounding to satisfy A + B >= C, by body.
    triangle_fixed: dict[str, int]

    def __len__(self) -> int:
        return len(self.envs)

    @property
    def invalid_total(self) -> int:
        """All invalid draws replaced by resampling."""
        return sum(self.invalid.values())

    def row(self, env: int) -> int:
        """The row of environment index ``env`` (ParameterError when it was not computed)."""
        hits = np.flatnonzero(self.envs == env)
        if not hits.size:
            raise ParameterError("env", env, "was not computed in this randomization")
        return int(hits[0])

    def full_inertia(self) -> np.ndarray:
        """(n, nbody, 3, 3) ``I_BBcm_A``: ``R(iquat) diag(inertia) R(iquat)^T`` kg m^2, about
        each body's centre of mass in its body frame (frame_a): the layout of engines that
        keep a full tensor (Newton's ``body_inertia``)."""
        r = quaternion_to_matrix(self.body_iquat.reshape(-1, 4)).reshape(
            *self.body_iquat.shape[:2], 3, 3
        )
        return np.einsum("nbij,nbj,nbkj->nbik", r, self.body_inertia, r)

    def write_mujoco(
        self, mj_model: Any, row: int, data: Any = None, set_const: bool = True
    ) -> None:
        """Write row ``row`` (an index into these arrays, :meth:`row` for an env index) into a
        ``mujoco.MjModel`` compiled from this model's MJCF export: ``body_mass``,
        ``body_ipos``, ``body_iquat``, ``body_inertia``, ``body_pos``, ``jnt_pos``,
        ``site_pos``; then ``mujoco.mj_setConst(mj_model, data)`` (a new ``MjData`` when
        ``data`` is None) unless ``set_const`` is False. The model's bodies must be these
        bodies in this order (ModelError otherwise); joints and sites are found by name."""
        import mujoco

        if not isinstance(row, numbers.Integral) or not -len(self) <= row < len(self):
            raise ParameterError("row", row, f"must be an integer row index below {len(self)}")
        names = tuple(mj_model.body(i).name for i in range(mj_model.nbody))
        if names[1:] != self.body_names[1:]:
            raise ModelError(
                "mj_model", f"{mj_model.nbody} bodies", "its bodies are not this model's in "
                f"MuJoCo order: expected {', '.join(self.body_names[1:6])}...; compile the "
                "MJCF that rp.export_model writes for this model",
            )  # fmt: skip
        mj_model.body_mass[:] = self.body_mass[row]
        mj_model.body_ipos[:] = self.body_ipos[row]
        mj_model.body_iquat[:] = self.body_iquat[row]
        mj_model.body_inertia[:] = self.body_inertia[row]
        mj_model.body_pos[:] = self.body_pos[row]
        joint, site = mujoco.mjtObj.mjOBJ_JOINT, mujoco.mjtObj.mjOBJ_SITE
        for j, name in enumerate(self.jnt_names):
            mj_model.jnt_pos[_id(mujoco, mj_model, joint, name)] = self.jnt_pos[row, j]
        for s, name in enumerate(self.site_names):
            mj_model.site_pos[_id(mujoco, mj_model, site, name)] = self.site_pos[row, s]
        if set_const:
            mujoco.mj_setConst(mj_model, mujoco.MjData(mj_model) if data is None else data)

    def write_newton(self, model: Any) -> None:
        """Write every row into a Newton ``Model`` (``newton`` 1.8) holding one world per row,
        in row order: ``ModelBuilder.add_mjcf`` of this model's MJCF export, replicated
        ``len(self)`` times (``ModelBuilder.replicate``), then ``finalize``. Per body (float32,
        Newton's precision): ``body_mass``, ``body_com`` (the centre of mass in the body
        frame), ``body_inertia`` (:meth:`full_inertia`, about it in the body frame) and their
        inverses; per joint, the positions of ``joint_X_p`` and ``joint_X_c`` (the joint in
        the parent and in the child body: ``X_p.p = body_pos + R(X_p.q) jnt_pos``, ``X_c.p =
        jnt_pos``; Newton keeps MJCF's ``body_pos`` / ``jnt_pos`` so, the rotations, which the
        randomization does not change, stay). A solver built before must be told:
        ``solver.notify_model_changed(newton.ModelFlags.BODY_INERTIAL_PROPERTIES |
        newton.ModelFlags.JOINT_PROPERTIES)``. ModelError when the model's bodies are not
        this model's, world by world, in MJCF order."""
        bodies = len(self.body_names) - 1
        n = len(self)
        if not all(hasattr(model, name) for name in ("body_label", "joint_X_p", "body_mass")):
            raise ModelError(
                "model", type(model).__name__, "must be a newton.Model (ModelBuilder.finalize)"
            )
        labels = [str(label).rsplit("/", 1)[-1] for label in model.body_label]
        if model.body_count != n * bodies or labels != list(self.body_names[1:]) * n:
            raise ModelError(
                "model", f"{model.body_count} bodies", f"must be a Newton model of {n} worlds "
                f"of this model's {bodies} bodies in MJCF order (ModelBuilder.add_mjcf of the "
                "export, replicated once per row)",
            )  # fmt: skip
        mass = self.body_mass[:, 1:].reshape(-1)
        inertia = self.full_inertia()[:, 1:].reshape(-1, 3, 3)
        model.body_mass.assign(mass.astype(np.float32))
        model.body_inv_mass.assign((1.0 / mass).astype(np.float32))
        model.body_com.assign(self.body_ipos[:, 1:].reshape(-1, 3).astype(np.float32))
        model.body_inertia.assign(inertia.astype(np.float32))
        model.body_inv_inertia.assign(np.linalg.inv(inertia).astype(np.float32))
        # joints: each body's (Newton adds a fixed one where the MJCF has none)
        # copies (on the CPU .numpy() is the model's own memory; on a GPU, a copy anyway)
        parent_pose = model.joint_X_p.numpy().copy()
        child_pose = model.joint_X_c.numpy().copy()
        child = model.joint_child.numpy()
        body = child % bodies + 1  # this model's column of each joint's child
        row = child // bodies
        anchor = child_pose[:, :3].astype(float)
        names = [str(label).rsplit("/", 1)[-1] for label in model.joint_label]
        moving = {name: j for j, name in enumerate(self.jnt_names)}
        for k, name in enumerate(names):
            if name in moving:
                anchor[k] = self.jnt_pos[row[k], moving[name]]
        rotation = quaternion_to_matrix(parent_pose[:, [6, 3, 4, 5]].astype(float))
        parent_pose[:, :3] = self.body_pos[row, body] + np.einsum("kij,kj->ki", rotation, anchor)
        child_pose[:, :3] = anchor
        model.joint_X_p.assign(parent_pose)
        model.joint_X_c.assign(child_pose)

    def summary(self) -> str:
        """A few lines: environments, varied parameters and the invalid draws replaced."""
        lines = [
            f"{len(self)} environments (seed {self.seed}, episode {self.episode}), "
            f"{len(self.body_names) - 1} bodies, {len(self.samples)} varied parameters",
            f"invalid draws resampled: {self.invalid_total}"
            + (f" (first: env {self.first_invalid[0]}, body {self.first_invalid[1]!r}: "
               f"{self.first_invalid[2]})" if self.first_invalid else ""),
        ]  # fmt: skip
        fixed = sum(self.triangle_fixed.values())
        if fixed:
            lines.append(f"rows whose largest moment was rounded down to A + B: {fixed}")
        return "\n".join(lines)


def _id(mujoco: Any, mj_model: Any, kind: Any, name: str) -> int:
    index = int(mujoco.mj_name2id(mj_model, kind, name))
    if index < 0:
        raise ModelError("mj_model", name, "is not in this MuJoCo model (compile the export)")
    return index


# -- arguments ---------------------------------------------------------------------------


def _non_negative_int(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise ParameterError(name, value, "must be a non-negative integer")
    return int(value)


def _env_indices(envs: Any) -> np.ndarray:
    """int64 (n,) environment indices from a count, a range or a sequence of indices."""
    if isinstance(envs, numbers.Integral) and not isinstance(envs, bool):
        if envs <= 0:
            raise ParameterError("envs", envs, "must be a positive number of environments")
        return np.arange(int(envs), dtype=np.int64)
    if isinstance(envs, range | Sequence | np.ndarray) and not isinstance(envs, str | bytes):
        try:
            indices = np.asarray(envs)
        except (TypeError, ValueError):
            indices = np.asarray([], dtype=object)
        if (
            indices.ndim == 1
            and indices.size
            and np.issubdtype(indices.dtype, np.integer)
            and indices.min() >= 0
            and indices.max() < ENV_BLOCK << 32
        ):
            return indices.astype(np.int64)
    raise ParameterError(
        "envs", envs, "must be a positive integer (environments 0..envs-1), a range or a "
        "non-empty sequence of non-negative integer environment indices",
    )  # fmt: skip


def _tolerance(key: str, given: Any, kind: str, nominal: float | None) -> Tolerance:
    """The Tolerance of a spec value for one body (``nominal``: its own value, for a spread
    given without one)."""
    if isinstance(given, Tolerance):
        return given
    if not isinstance(given, str):
        raise ParameterError(
            key, given, "must be a spread such as '1 m +- 2 %' or '+- 1 %' (text), or a "
            "rigidparts.tolerancing.Tolerance",
        )  # fmt: skip
    text = given.strip()
    if text.lower().startswith(_RELATIVE_STARTS):
        if nominal is None:
            raise ParameterError(key, given, "gives no nominal value and the body has none")
        text = f"{nominal!r} {_SI_UNIT[kind]} {text}"
    return parse_tolerance(key, text, kind)


def _resolve(model: Model, order: list[str], spec: Mapping[str, Any]) -> tuple[
    dict[str, list[_Varied]], dict[str, tuple[str, ...]]
]:  # fmt: skip
    """``(body -> its varied parameters in drawing order, key -> bodies)``; errors name the
    key."""
    if not isinstance(spec, Mapping) or not spec:
        raise ParameterError(
            "spec", spec, "must be a non-empty mapping 'BODY.PARAMETER' -> spread, such as "
            "{'arm.length': '1 m +- 2 %', '*.density': '+- 1 %'}",
        )  # fmt: skip
    chosen: dict[tuple[str, str], tuple[str, Any, bool]] = {}
    applied: dict[str, tuple[str, ...]] = {}
    for key, given in spec.items():
        if not isinstance(key, str) or "." not in key:
            raise ParameterError(
                "spec", key, "keys are 'BODY.PARAMETER' (a body name or pattern such as '*', "
                "a dot, a parameter): 'arm.length', '*.density'",
            )  # fmt: skip
        pattern, _, parameter = key.rpartition(".")
        is_pattern = any(c in pattern for c in "*?[")
        if is_pattern:
            bodies = [b for b in order if fnmatch.fnmatchcase(b, pattern)]
            if not bodies:
                raise ParameterError(key, given, f"matches no body (bodies: {', '.join(order)})")
        elif pattern not in model.bodies:
            raise ParameterError(key, given, f"names no body (bodies: {', '.join(order)})")
        else:
            bodies = [pattern]
        used = []
        for body in bodies:
            component = model.bodies[body]
            allowed = _allowed(component)
            if parameter not in allowed:
                if is_pattern:
                    continue
                raise ParameterError(
                    key, given, f"{parameter!r} cannot vary on body {body!r} (shape "
                    f"{component.shape!r}): its parameters that can are {', '.join(allowed)}",
                )  # fmt: skip
            previous = chosen.get((body, parameter))
            if previous is not None:
                if previous[2] and not is_pattern:
                    pass  # a key naming the body wins over a pattern
                elif not previous[2] and is_pattern:
                    continue
                else:
                    raise ParameterError(
                        key, given, f"varies {body}.{parameter} that key {previous[0]!r} "
                        "already varies: give each body's parameter once",
                    )  # fmt: skip
            chosen[(body, parameter)] = (key, given, is_pattern)
            used.append(body)
        if not used:
            raise ParameterError(
                key, given, f"matches no body that has the parameter {parameter!r}"
            )
        applied[key] = tuple(used)
    # drop bodies a pattern lost to a named key from ``applied``
    for key in applied:
        applied[key] = tuple(
            b for b in applied[key] if chosen[(b, key.rpartition(".")[2])][0] == key
        )

    by_body: dict[str, list[_Varied]] = {}
    for body in order:
        component = model.bodies[body]
        names = [*_allowed(component)]
        params = [(p, chosen[(body, p)]) for p in names if (body, p) in chosen]
        if not params:
            continue
        if {"density", "mass"} <= {p for p, _ in params}:
            density_pattern, mass_pattern = chosen[(body, "density")][2], chosen[(body, "mass")][2]
            if density_pattern != mass_pattern:  # a key naming the body wins over a pattern
                lost = "density" if density_pattern else "mass"
                lost_key = chosen[(body, lost)][0]
                applied[lost_key] = tuple(b for b in applied[lost_key] if b != body)
                params = [(p, c) for p, c in params if p != lost]
        if {"density", "mass"} <= {p for p, _ in params}:
            key = chosen[(body, "mass")][0]
            raise ParameterError(
                key, spec[key], f"body {body!r} also varies its density (key "
                f"{chosen[(body, 'density')][0]!r}): vary the density or the mass, not both",
            )  # fmt: skip
        varied = []
        for parameter, (key, given, _) in params:
            kind = _kind(component, parameter)
            nominal = _nominal(component, parameter)
            tolerance = _tolerance(key, given, kind, nominal)
            check_band(key, given, tolerance, component.spec.sign_rule(parameter))
            varied.append(_Varied(body, parameter, key, given, tolerance))
        by_body[body] = varied
    return by_body, applied


def _allowed(component: Any) -> list[str]:
    """The parameters of a body that may vary: a tier-1 shape's lengths and angles, then
    density (unless the body is given by its mass alone) and mass."""
    spec = component.spec
    names = []
    if spec.tier == 1:
        names = [p.name for p in spec.params if p.kind in _VARIABLE_KINDS]
    if component.density is not None:
        names.append("density")
    names.append("mass")
    return names


def _kind(component: Any, parameter: str) -> str:
    if parameter in ("density", "mass"):
        return parameter
    return next(p.kind for p in component.spec.params if p.name == parameter)


def _nominal(component: Any, parameter: str) -> float | None:
    if parameter == "density":
        return component.density
    if parameter == "mass":
        return component.mass
    return float(component.dimensions[parameter])


# -- the draws -----------------------------------------------------------------------------


def _stream_key(episode: int, attempt: int, block: int) -> int:
    return ((episode * 256 + attempt) << 32) | block


def _draw(
    varied: list[_Varied], envs: np.ndarray, seed: int, episode: int, attempt: int
) -> list[np.ndarray]:
    """The values of every varied parameter (in order) for environments ``envs``."""
    out = [np.empty(len(envs)) for _ in varied]
    blocks = envs // ENV_BLOCK
    if len(envs) and np.all(np.diff(blocks) >= 0):
        cuts = np.flatnonzero(np.diff(blocks)) + 1
        groups = np.split(np.arange(len(envs)), cuts)
    else:
        order = np.argsort(blocks, kind="stable")
        cuts = np.flatnonzero(np.diff(blocks[order])) + 1
        groups = np.split(order, cuts)
    buffer = np.empty(ENV_BLOCK)
    for rows in groups:
        b = int(blocks[rows[0]])
        rng = block_stream(seed, _stream_key(episode, attempt, b))
        positions = envs[rows] - b * ENV_BLOCK
        contiguous = positions[-1] - positions[0] == len(positions) - 1 and np.all(
            np.diff(positions) == 1
        )
        for values, item in zip(out, varied, strict=True):
            draw_into(rng, item.tolerance, buffer)  # the tolerance studies' sampling map
            if contiguous:
                values[rows] = buffer[positions[0] : positions[-1] + 1]
            else:
                values[rows] = buffer[positions]
    return out


# -- the rows ------------------------------------------------------------------------------


@dataclass
class _Rows:
    """One body's rows (or a batch group's, before they are split): mass (n,), com (n, 3),
    moments (n, 3) along the inertia frame whose quaternion is ``quat`` (4,), the invalid rows
    ``bad`` (n,) and ``rule(i)``, the rule row ``i`` breaks. Arrays may be read-only views."""

    mass: np.ndarray
    com: np.ndarray
    moments: np.ndarray
    quat: np.ndarray
    bad: np.ndarray
    rule: Callable[[int], str] = lambda i: _MUJOCO_RULE
    fixed: int = 0
    #: False for batch rows: the kernel already masks non-finite results (NaN rows).
    finite_check: bool = True
    #: bool (n,): the rows whose largest moment was lowered (None before any).
    fixed_rows: Any = None

    def part(self, start: int, stop: int, quat: np.ndarray) -> _Rows:
        """Rows ``start .. stop - 1`` (views) with the inertia frame ``quat``."""
        rows = slice(start, stop)
        return _Rows(
            self.mass[rows],
            self.com[rows],
            self.moments[rows],
            quat,
            self.bad[rows],
            lambda i: self.rule(start + i),
            int(np.count_nonzero(self.fixed_rows[rows])) if self.fixed else 0,
        )

    def writable(self) -> None:
        """Own writable copies of the arrays (before rows are replaced)."""
        for name in ("mass", "com", "moments", "bad"):
            array = getattr(self, name)
            if not array.flags.writeable or array.base is not None:
                setattr(self, name, np.array(array))


_MUJOCO_RULE = (
    "mass and principal moments must be positive (>= mjMINVAL 1e-15 when the nominal body's "
    "are) and satisfy A + B >= C (MuJoCo's rule)"
)


def _batch_keywords(component: Any, varied: set[str]) -> dict[str, Any]:
    """The batch keywords that rebuild ``component`` (SI; a material as its density), with
    the source of the mass switched to a varied density or mass."""
    keywords = component.parameters()
    keywords.pop("shape")
    keywords.pop("extra_frames", None)
    if "material" in keywords:
        keywords.pop("material")
        keywords["density"] = component.density
    if "mass" in varied:
        keywords.pop("density", None)
        keywords["mass"] = component.mass
    elif "density" in varied:
        keywords.pop("mass", None)
        keywords["density"] = component.density
    return keywords


def _group_key(plan: _BodyPlan) -> tuple[Any, ...]:
    """Bodies that one batch call holds: one shape, one mass source and one frame (axis,
    rotate90, height direction: one frame for all rows keeps the batch on its fast path)."""
    keywords = _batch_keywords(plan.component, {v.parameter for v in plan.varied})
    source = "mass" if "mass" in keywords else "density"
    frame = tuple(repr(keywords.get(name)) for name in ("axis", "rotate90", "height_direction"))
    return (plan.component.spec.name, source, *frame)


def _tier1_rows(
    plans: list[_BodyPlan],
    values: Mapping[tuple[str, str], np.ndarray],
    n: int,
    engine: str,
    floors: Mapping[str, float],
) -> dict[str, _Rows]:
    """The rows of tier-1 bodies of one group (:func:`_group_key`) from one
    ``rp.batch.<shape>`` call, body after body, ``n`` rows each (``values[(body,
    parameter)]`` (n,) SI), checked against MuJoCo's rule (:func:`_check_rows`)."""
    from . import batch
    from .batch.result import row_error

    per_body: dict[str, list[Any]] = {}
    shared: dict[str, Any] = {}
    for plan in plans:
        varied = {v.parameter for v in plan.varied}
        for name, value in _batch_keywords(plan.component, varied).items():
            if name in ("axis", "height_direction", "rotate90"):
                shared[name] = value  # one for the group (_group_key)
                continue
            per_body.setdefault(name, []).append(
                values[(plan.name, name)] if name in varied else float(value)
            )
    arguments: dict[str, Any] = dict(shared)
    for name, parts in per_body.items():
        if all(isinstance(part, float) for part in parts) and len(set(parts)) == 1:
            arguments[name] = parts[0]  # the same on every row: a scalar broadcasts
        else:
            arguments[name] = np.concatenate([np.broadcast_to(part, (n,)) for part in parts])
    function = getattr(batch, plans[0].component.spec.name)
    result = function(**arguments, on_invalid="mask", engine=engine, threads=False)
    if len(result) != n * len(plans):  # every argument a scalar: one row
        result = function(
            **{k: np.broadcast_to(v, (n * len(plans),)) if k in per_body else v
               for k, v in arguments.items()},
            on_invalid="mask", engine=engine, threads=False,
        )  # fmt: skip
    codes = np.asarray(result.error_codes)

    def rule(i: int) -> str:
        if codes[i]:
            error = row_error(result, i, int(codes[i]))
            return f"{error.parameter} {error.rule}"
        return _MUJOCO_RULE

    group = _Rows(
        np.asarray(result.mass),
        np.asarray(result.center_of_mass),
        np.asarray(result.canonical_moments),
        np.zeros(4),
        codes != 0,
        rule,
        finite_check=False,
    )
    values_of_floor = [floors[plan.name] for plan in plans]
    if len(set(values_of_floor)) == 1:
        _check_rows(group, values_of_floor[0])
    else:
        _check_rows(group, np.repeat(np.array(values_of_floor), n))
    return {plan.name: group.part(k * n, (k + 1) * n, plan.quat) for k, plan in enumerate(plans)}


def _scaled_rows(
    plan: _BodyPlan, values: Mapping[tuple[str, str], np.ndarray], floor: float
) -> _Rows:
    """A body without closed forms whose density or mass varies: mass ``density volume`` (or
    the sampled mass), inertia ``I0 m / m0``, centre of mass and axes unchanged."""
    body = plan.component
    (item,) = plan.varied  # density or mass (_allowed admits no other)
    drawn = values[(plan.name, item.parameter)]
    props = body.mass_properties
    if item.parameter == "density":
        factor = drawn / body.density
        mass = drawn * body.volume if body.volume is not None else body.mass * factor
    else:
        mass = drawn.copy()
        factor = drawn / body.mass
    moments = factor[:, None] * np.asarray(props.principal_moments)[None, :]
    com = np.broadcast_to(np.asarray(props.center_of_mass, dtype=float), (len(drawn), 3))
    quat = matrix_to_quaternion(np.asarray(props.principal_axes))
    rows = _Rows(mass, com, moments, quat, np.zeros(len(drawn), bool))
    _check_rows(rows, floor)
    return rows


def _fixed_rows(body: Any, n: int) -> _Rows:
    """A body that does not vary: its exported values (sorted moments, principal axes), as
    read-only views of one row."""
    from .export.mjcf import mujoco_moments

    props = body.mass_properties
    return _Rows(
        np.broadcast_to(float(props.mass), (n,)),
        np.broadcast_to(np.asarray(props.center_of_mass, dtype=float), (n, 3)),
        np.broadcast_to(mujoco_moments(props.principal_moments), (n, 3)),
        matrix_to_quaternion(np.asarray(props.principal_axes)),
        np.zeros(n, bool),
    )


def _check_rows(rows: _Rows, floor: float | np.ndarray) -> None:
    """Mark the rows MuJoCo's strict rule refuses (:func:`rigidparts.inertia.mujoco_invalid_rows`
    with ``floor``, a float or per row) in ``rows.bad``. A row that breaks the triangle by
    rounding only (at most 4 ulp of the largest moment) has the largest moment lowered to the
    sum of the other two, counted in ``rows.fixed``."""
    refused, rounding = mujoco_invalid_rows(
        rows.mass, rows.moments, floor, finite=rows.finite_check
    )
    rows.bad |= refused
    where = np.flatnonzero(rounding)
    if not where.size:
        return
    moments = rows.moments
    if not moments.flags.writeable or moments.base is not None:
        moments = rows.moments = np.array(moments)
    largest = np.argmax(moments[where], axis=1)
    # the sum of the other two, in float64 (what MuJoCo compares the largest with)
    first = moments[where, (largest + 1) % 3]
    second = moments[where, (largest + 2) % 3]
    moments[where, largest] = first + second
    rows.fixed += int(where.size)
    marks = rows.fixed_rows if rows.fixed_rows is not None else np.zeros(len(rows.mass), bool)
    marks[where] = True
    rows.fixed_rows = marks


# -- frames, anchors ---------------------------------------------------------------------


def _rotate(rotation: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    """``R v`` for a constant ``R`` and ``v`` (3,) or (n, 3), elementwise (no BLAS, so each
    row's bits do not depend on the number of rows)."""
    if vectors.ndim == 1:
        return rotation @ vectors
    x, y, z = vectors[:, 0:1], vectors[:, 1:2], vectors[:, 2:3]
    return (x * rotation[:, 0] + y * rotation[:, 1]) + z * rotation[:, 2]


def _frame_positions(
    plan: _BodyPlan, rows: _Rows, values: Mapping[tuple[str, str], np.ndarray], mode: str
) -> dict[str, np.ndarray]:
    """``frame -> position in frame_a``: (3,) when the frame stays where the model puts it,
    (n, 3) when it moves with the row's dimensions (module docstring)."""
    body = plan.component
    spec = body.spec
    frames = {name: np.array(frame.position, dtype=float) for name, frame in body.frames.items()}
    if plan.kind != "batch":
        return frames  # a density or mass change moves no frame
    varied = {v.parameter for v in plan.varied} - {"density", "mass"}
    if not varied:
        return frames
    if "frame_com" in frames:
        frames["frame_com"] = rows.com
    e = np.asarray(body.axis, dtype=float)
    end = spec.end_frame
    if end is not None and end in varied:
        frames["frame_b"] = values[(plan.name, end)][:, None] * e
    scale_by = end if spec.extra_frames == "axial" else "radius"
    if mode == "scale" and scale_by in varied and spec.extra_frames in ("axial", "radial"):
        factor = values[(plan.name, scale_by)] / float(body.dimensions[scale_by])
        for i in range(1, len(body.extra_frames) + 1):
            name = f"frame_c{i}"
            frames[name] = factor[:, None] * frames[name]
    return frames


# -- the entry point -----------------------------------------------------------------------


def randomize(
    model: Model,
    spec: Mapping[str, Any],
    *,
    envs: int | range | Sequence[int] = 4096,
    seed: int = 0,
    episode: int = 0,
    on_invalid: str = "resample",
    frames: str = "scale",
    engine: str = "auto",
    out: Randomization | None = None,
) -> Randomization:
    """Per-environment bodies of ``model`` with the parameters of ``spec`` drawn, as MuJoCo's
    ``body_mass``, ``body_ipos``, ``body_iquat``, ``body_inertia`` (and ``body_pos``,
    ``jnt_pos``, ``site_pos``) arrays (module docstring).

    Parameters
    ----------
    model : a :class:`rigidparts.Model` (``rp.load_model`` reads one from a file).
    spec : ``{"BODY.PARAMETER": spread}``; BODY a name or an fnmatch pattern.
    envs : the number of environments (0..envs-1), a range or a sequence of env indices: row
        ``i`` of env ``e`` is the same bits whatever else is computed.
    seed, episode : non-negative integers keying the random streams.
    on_invalid : ``"resample"`` (default: invalid samples are counted and redrawn from keyed
        streams, at most :data:`MAX_ATTEMPTS` draws) or ``"raise"``.
    frames : ``"scale"`` (extra frames keep their place relative to the varied length) or
        ``"fixed"``.
    engine : ``rp.batch``'s engine, ``"auto"``, ``"numba"`` or ``"numpy"`` (same bits).
    out : a previous Randomization whose arrays are refilled in place when their shapes fit
        (an episode loop then allocates nothing large: fresh arrays cost their page faults);
        the returned object shares them, so ``out``'s arrays hold the new rows.
    """
    if not isinstance(model, Model):
        raise ParameterError("model", type(model).__name__, "must be a rigidparts Model")
    indices = _env_indices(envs)
    seed = _non_negative_int("seed", seed)
    episode = _non_negative_int("episode", episode)
    if on_invalid not in ("resample", "raise"):
        raise ParameterError("on_invalid", on_invalid, "must be 'resample' or 'raise'")
    if frames not in ("scale", "fixed"):
        raise ParameterError("frames", frames, "must be 'scale' or 'fixed'")
    if engine not in ("auto", "numba", "numpy"):
        raise ParameterError("engine", engine, "must be 'auto', 'numba' or 'numpy'")
    if out is not None and not isinstance(out, Randomization):
        raise ParameterError("out", type(out).__name__, "must be a Randomization or None")
    joints = model.ordered_joints()
    order = [joint.child_body for joint in joints]
    by_body, applied = _resolve(model, order, spec)

    plans: dict[str, _BodyPlan] = {}
    for column, name in enumerate(order, start=1):
        body = model.bodies[name]
        varied = by_body.get(name, [])
        kind = "fixed" if not varied else "batch" if body.spec.tier == 1 else "scale"
        plans[name] = _BodyPlan(name, column, body, kind, varied)
    tier1 = [plan for plan in plans.values() if plan.kind == "batch"]
    if tier1:  # one conversion for all (scipy's per-call cost dominates 3x3 matrices)
        rotations = np.stack([np.asarray(p.component.rotation_from_canonical) for p in tier1])
        for plan, quat in zip(tier1, matrix_to_quaternion(rotations), strict=True):
            plan.quat = quat
    all_varied = [item for name in order for item in by_body.get(name, [])]
    floors = {name: _floor(plans[name].component) for name in order}
    # bodies whose dimensions vary (a density or a mass inside its band, checked by
    # check_band, cannot break a valid body's rules: its rows are still checked below)
    _check_corners(
        [p for p in plans.values() if p.kind == "batch" and _varies_geometry(p)], floors, engine
    )

    n = len(indices)
    drawn = _draw(all_varied, indices, seed, episode, 0)
    values = {(v.body, v.parameter): d for v, d in zip(all_varied, drawn, strict=True)}
    rows = _compute(list(plans.values()), values, n, engine, floors)

    invalid = dict.fromkeys(order, 0)
    first_invalid: tuple[int, str, str] | None = None
    for attempt in range(1, MAX_ATTEMPTS + 1):
        bad = {name: np.flatnonzero(r.bad) for name, r in rows.items() if r.bad.any()}
        if not bad:
            break
        for name, where in bad.items():
            invalid[name] += len(where)
            env = int(indices[where].min())
            if first_invalid is None or env < first_invalid[0]:
                first_invalid = (env, name, rows[name].rule(int(where[indices[where].argmin()])))
        if on_invalid == "raise" or attempt == MAX_ATTEMPTS:
            _invalid_error(first_invalid, plans, values, indices, spec, on_invalid)
        union = np.unique(np.concatenate(list(bad.values())))
        redrawn = _draw(all_varied, indices[union], seed, episode, attempt)
        position = np.searchsorted(union, np.arange(n))  # row -> its place in union
        for name, where in bad.items():
            plan = plans[name]
            take = position[where]
            sub = {}
            for v, d in zip(all_varied, redrawn, strict=True):
                if v.body == name:
                    values[(name, v.parameter)][where] = d[take]
                    sub[(name, v.parameter)] = d[take]
            fresh = _compute([plan], sub, len(where), engine, floors)[name]
            r = rows[name]
            r.writable()
            r.mass[where] = fresh.mass
            r.com[where] = fresh.com
            r.moments[where] = fresh.moments
            r.bad[where] = fresh.bad
            r.fixed += fresh.fixed
            r.rule = _replaced_rule(r.rule, where, fresh.rule)

    return _assemble(
        model, joints, plans, rows, values, indices, seed, episode, frames, applied, invalid,
        first_invalid, out,
    )  # fmt: skip


def _varies_geometry(plan: _BodyPlan) -> bool:
    """Whether a dimension of the body varies (not only its density or mass)."""
    return any(v.parameter not in ("density", "mass") for v in plan.varied)


def _floor(body: Any) -> float:
    """MuJoCo's mjMINVAL for a body whose nominal mass and moments reach it, else 0."""
    if body.mass >= MUJOCO_MINVAL and min(body.principal_moments) >= MUJOCO_MINVAL:
        return MUJOCO_MINVAL
    return 0.0


def _replaced_rule(
    old: Callable[[int], str], where: np.ndarray, fresh: Callable[[int], str]
) -> Callable[[int], str]:
    """``rule(i)`` after rows ``where`` were replaced by rows whose rule is ``fresh``."""
    places = {int(row): k for k, row in enumerate(where.tolist())}
    return lambda i: fresh(places[i]) if i in places else old(i)


def _invalid_error(
    first: tuple[int, str, str] | None,
    plans: Mapping[str, _BodyPlan],
    values: Mapping[tuple[str, str], np.ndarray],
    indices: np.ndarray,
    spec: Mapping[str, Any],
    on_invalid: str,
) -> None:
    """ParameterError for the first invalid environment, naming the body's first key."""
    assert first is not None
    env, name, rule = first
    row = int(np.flatnonzero(indices == env)[0])
    varied = plans[name].varied
    sample = ", ".join(f"{v.parameter}={float(values[(name, v.parameter)][row])!r}" for v in varied)
    after = "" if on_invalid == "raise" else f" in each of {MAX_ATTEMPTS} draws"
    # the key of the parameter the rule names, else the body's first
    culprit = next((v for v in varied if rule.split(" ", 1)[0] == v.parameter), varied[0])
    raise ParameterError(
        culprit.key, spec[culprit.key], f"gives an invalid body {name!r} in environment "
        f"{env}{after} ({sample}): {rule}",
    )  # fmt: skip


def _compute(
    plans: list[_BodyPlan],
    values: Mapping[tuple[str, str], np.ndarray],
    n: int,
    engine: str,
    floors: Mapping[str, float],
) -> dict[str, _Rows]:
    """Rows of every body (tier-1 bodies of a group in one batch call), checked."""
    out: dict[str, _Rows] = {}
    groups: dict[tuple[Any, ...], list[_BodyPlan]] = {}
    for plan in plans:
        if plan.kind == "batch":
            groups.setdefault(_group_key(plan), []).append(plan)
        elif plan.kind == "scale":
            out[plan.name] = _scaled_rows(plan, values, floors[plan.name])
        else:
            out[plan.name] = _fixed_rows(plan.component, n)
    for group in groups.values():
        out.update(_tier1_rows(group, values, n, engine, floors))
    return out


def _check_corners(plans: list[_BodyPlan], floors: Mapping[str, float], engine: str) -> None:
    """ParameterError naming the key when a tier-1 body is invalid at its nominal values, at a
    varied parameter's band ends (the others nominal) or at all lows / all highs (row 0, rows
    1 + 2j and 2 + 2j, the last two of ``2k + 3``; bodies with the same number k of varied
    parameters in one batch call per group)."""
    groups: dict[tuple[Any, ...], list[_BodyPlan]] = {}
    for plan in plans:
        groups.setdefault((*_group_key(plan), len(plan.varied)), []).append(plan)
    for (*_, k), group in groups.items():
        m = 2 * k + 3
        columns = {}
        for plan in group:
            for j, v in enumerate(plan.varied):
                t = v.tolerance
                column = np.full(m, t.nominal)
                column[1 + 2 * j], column[2 + 2 * j] = t.low, t.high
                column[-2], column[-1] = t.low, t.high
                columns[(plan.name, v.parameter)] = column
        computed = _tier1_rows(group, columns, m, engine, floors)
        for plan in group:
            rows = computed[plan.name]
            bad = np.flatnonzero(rows.bad)
            if bad.size:
                _corner_error(plan, columns, int(bad[0]), rows.rule(int(bad[0])))


def _corner_error(
    plan: _BodyPlan, columns: Mapping[tuple[str, str], np.ndarray], i: int, rule: str
) -> None:
    k = len(plan.varied)
    culprit = plan.varied[(i - 1) // 2] if 0 < i < 2 * k + 1 else plan.varied[0]
    at = ", ".join(
        f"{v.parameter}={float(columns[(plan.name, v.parameter)][i])!r}" for v in plan.varied
    )
    where = (
        "at its nominal values" if i == 0
        else "with every spread at its low end" if i == 2 * k + 1
        else "with every spread at its high end" if i == 2 * k + 2
        else "at an end of this spread"
    )  # fmt: skip
    raise ParameterError(
        culprit.key, culprit.given, f"makes body {plan.name!r} invalid {where} ({at}): {rule}"
    )


def _layout(
    out: Randomization | None,
    name: str,
    columns: list[np.ndarray],
    varies: list[bool],
    n: int,
    first: np.ndarray,
) -> np.ndarray:
    """The (n, nbody, ...) array of ``name``: column 0 ``first`` (the world body), then
    ``columns`` (each (n, ...) or a view of one row). When no column varies, a read-only view
    of one row (stride 0 along the environments); else ``out``'s array when its shape fits
    (refilled in place: no new memory to fault in), or a new one."""
    if not any(varies):
        row = np.stack([first, *(np.asarray(c)[0] for c in columns)])
        view = np.broadcast_to(row, (n, *row.shape))
        return view
    shape = (n, len(columns) + 1, *first.shape)
    array = getattr(out, name, None) if out is not None else None
    if not (
        isinstance(array, np.ndarray)
        and array.shape == shape
        and array.dtype == np.float64
        and array.flags.c_contiguous
        and array.flags.writeable
    ):
        array = pooled_empty(shape)  # a dropped result's memory: no pages to fault in
    _fill(array, [first, *columns])
    return array


def _fill(array: np.ndarray, columns: list[np.ndarray]) -> None:
    """``array[:, j] = columns[j]`` (each (n, ...) or one row, broadcast) through a
    column-major stack and one transposing copy: writing the columns of a row-major array one
    by one touches a cache line per element and is several times slower."""
    stack = pooled_empty((array.shape[1], array.shape[0], *array.shape[2:]))
    for j, column in enumerate(columns):
        stack[j] = column
    array[...] = np.moveaxis(stack, 0, 1)


def _assemble(
    model: Model,
    joints: list[Any],
    plans: Mapping[str, _BodyPlan],
    rows: Mapping[str, _Rows],
    values: Mapping[tuple[str, str], np.ndarray],
    indices: np.ndarray,
    seed: int,
    episode: int,
    mode: str,
    applied: dict[str, tuple[str, ...]],
    invalid: dict[str, int],
    first_invalid: tuple[int, str, str] | None,
    out: Randomization | None,
) -> Randomization:
    n = len(indices)
    positions = {
        name: _frame_positions(plan, rows[name], values, mode) for name, plan in plans.items()
    }
    # MuJoCo joints whose anchor moves; sites whose frame moves (the others keep the model's)
    anchors: list[tuple[str, np.ndarray]] = []
    offsets: list[np.ndarray] = []
    for joint in joints:
        child = positions[joint.child_body]
        r_ac = np.array(model.bodies[joint.child_body].frames[joint.child_frame].rotation)
        p_ac = child[joint.child_frame]
        if joint.parent_body is None:
            r_pf, p_pf = np.eye(3), np.zeros(3)
        else:
            frame = model.bodies[joint.parent_body].frames[joint.parent_frame]
            r_pf = np.array(frame.rotation)
            p_pf = positions[joint.parent_body][joint.parent_frame]
        # X_BpA = X_BpJ X_CA with X_BpJ = X_PF X_joint (rigidparts.export.mjcf)
        r_bpj = r_pf @ np.asarray(joint.rotation)
        p_bpj = r_pf @ np.asarray(joint.position) + p_pf
        offsets.append(_rotate(r_bpj, -_rotate(r_ac.T, p_ac)) + p_bpj)
        if joint.type in ("revolute", "prismatic", "ball") and p_ac.ndim == 2:
            anchors.append((joint.name, p_ac))
    sites = [
        (f"{name}.{frame}", position)
        for name in plans
        for frame, position in positions[name].items()
        if position.ndim == 2
    ]
    bodies = [rows[name] for name in plans]
    mass_varies = [plan.kind != "fixed" for plan in plans.values()]
    geometry_varies = [plan.kind == "batch" and _varies_geometry(plan) for plan in plans.values()]
    zero3 = np.zeros(3)
    arrays = {
        "body_mass": _layout(out, "body_mass", [r.mass for r in bodies], mass_varies, n,
                             np.zeros(())),
        "body_ipos": _layout(out, "body_ipos", [r.com for r in bodies], geometry_varies, n, zero3),
        "body_iquat": _layout(out, "body_iquat", [r.quat[None] for r in bodies],
                              [False] * len(bodies), n, np.array([1.0, 0.0, 0.0, 0.0])),
        "body_inertia": _layout(out, "body_inertia", [r.moments for r in bodies], mass_varies,
                                n, zero3),
        "body_pos": _layout(out, "body_pos", [np.atleast_2d(o) for o in offsets],
                            [o.ndim == 2 for o in offsets], n, zero3),
    }  # fmt: skip
    for name, items in (("jnt_pos", anchors), ("site_pos", sites)):
        array = getattr(out, name, None) if out is not None else None
        shape = (n, len(items), 3)
        if not (isinstance(array, np.ndarray) and array.shape == shape and array.flags.writeable):
            array = pooled_empty(shape)
        if items:
            _fill(array, [position for _, position in items])
        arrays[name] = array
    samples = {f"{b}.{p}": v for (b, p), v in values.items()}
    tolerances = {f"{v.body}.{v.parameter}": v.tolerance for p in plans.values() for v in p.varied}
    return Randomization(
        envs=indices,
        seed=seed,
        episode=episode,
        body_names=("world", *plans),
        jnt_names=tuple(name for name, _ in anchors),
        site_names=tuple(name for name, _ in sites),
        samples=samples,
        tolerances=tolerances,
        applied=applied,
        invalid=invalid,
        first_invalid=first_invalid,
        triangle_fixed={name: r.fixed for name, r in rows.items()},
        **arrays,
    )
