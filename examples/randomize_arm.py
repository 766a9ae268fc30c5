"""Domain randomization of the serial arm: 4096 MuJoCo models stepping with physical bodies.

    python examples/randomize_arm.py [--envs 4096] [--steps 100] [--seed 0] [--episode 0]

Trains nothing. It randomizes the upper arm's length (2 %), the hand's mass (10 %) and every
body's density (1 %) with ``rp.randomize``, writes each environment's row (masses, centres of
mass, inertia frames and moments, the moved joint anchors and frames) into its own copy of the
MuJoCo model compiled from ``rp.export_model``, and steps all of them at once with
``mujoco.rollout`` (one C call over the 4096 models). It prints how the randomization spreads
the bodies and the arm's motion after ``--steps`` steps, and checks that every model compiled
from the same file took its row (``mj_setConst`` refreshed the derived masses).
"""

from __future__ import annotations

import argparse
import copy
import tempfile
import time
from pathlib import Path

import numpy as np

import rigidparts as rp

HERE = Path(__file__).resolve().parent
SPEC = {
    "upper_arm.length": "400 mm +- 2 %",  # frame_b, the elbow and the forearm move with it
    "hand.mass": "+- 10 %",  # the hand's inertia scales with it (a density change)
    "*.density": "+- 1 %",  # every other body: its own draw
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--envs", type=int, default=4096)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--episode", type=int, default=0)
    args = parser.parse_args()

    import mujoco
    from mujoco import rollout

    model = rp.load_model(HERE / "serial_arm.toml")
    started = time.perf_counter()
    r = rp.randomize(model, SPEC, envs=args.envs, seed=args.seed, episode=args.episode)
    print(f"rp.randomize: {args.envs} environments in {time.perf_counter() - started:.3f} s")
    print(r.summary())
    for key, values in r.samples.items():
        print(f"  {key:22s} {values.min():.6g} .. {values.max():.6g}")

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "serial_arm.xml"
        rp.export_model(model, path)
        nominal = mujoco.MjModel.from_xml_path(str(path))
    data = mujoco.MjData(nominal)
    models = []
    started = time.perf_counter()
    for row in range(len(r)):
        m = copy.copy(nominal)
        r.write_mujoco(m, row, data)  # the row's arrays, then mj_setConst
        models.append(m)
    print(f"{len(models)} MuJoCo models written in {time.perf_counter() - started:.2f} s")
    hand = nominal.body("hand").id
    total = np.array([m.body_subtreemass[0] for m in models])
    np.testing.assert_allclose(total, r.body_mass.sum(axis=1), rtol=1e-12)

    mujoco.mj_resetDataKeyframe(nominal, data, 0)
    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
    state = np.empty(mujoco.mj_stateSize(nominal, spec))
    mujoco.mj_getState(nominal, data, state, spec)
    started = time.perf_counter()
    states, _ = rollout.rollout(models, [mujoco.MjData(nominal)], state[None], nstep=args.steps)
    elapsed = time.perf_counter() - started
    print(f"mujoco.rollout: {len(models)} models x {args.steps} steps in {elapsed:.2f} s")
    qpos = states[:, -1, 1 : 1 + nominal.nq]  # FULLPHYSICS: time, qpos, qvel, ...
    elbow = qpos[:, nominal.joint("elbow").qposadr[0]]
    print(f"elbow angle after {args.steps * nominal.opt.timestep:.3g} s: "
          f"{np.degrees(elbow.mean()):.3f} deg, spread (std) {np.degrees(elbow.std()):.4f} deg, "
          f"range {np.degrees(elbow.min()):.3f} .. {np.degrees(elbow.max()):.3f} deg")  # fmt: skip
    mass, largest = r.body_mass[:, hand], r.body_inertia[:, hand].max(axis=1)
    print(f"hand mass: {mass.min():.4f} .. {mass.max():.4f} kg; its largest moment "
          f"{largest.min():.3e} .. {largest.max():.3e} kg m^2 (scaled with the mass)")  # fmt: skip


if __name__ == "__main__":
    main()
