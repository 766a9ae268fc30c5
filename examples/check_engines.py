"""Export each example model and load it in MuJoCo, Pinocchio and Drake; print the largest
relative error of the mass properties each engine reads back, body by body.

    python examples/check_engines.py [MODEL.toml ...]

Errors: |m - m_ref| / m_ref; |c - c_ref| / body size (the larger of |c_ref| and the radius of
gyration sqrt(trace(I) / m)); max |I - I_ref| / trace(I_ref). Per body in its frame_a for MuJoCo
and Drake; for Pinocchio, which merges fixed joints into the parent joint, the composite of each
joint's rigid group in the joint frame, and each merged link's own inertia on its frame.
"""

from __future__ import annotations

import math
import sys
import tempfile
from pathlib import Path

import numpy as np
from scipy.spatial.transform import Rotation

import rigidparts as rp
from rigidparts.export import export
from rigidparts.model import load_model

HERE = Path(__file__).resolve().parent


def error(reference: rp.MassProperties, mass: float, com, inertia) -> float:
    size = max(math.sqrt(np.trace(reference.inertia) / reference.mass),
               float(np.max(np.abs(reference.center_of_mass))))  # fmt: skip
    return max(
        abs(mass - reference.mass) / reference.mass,
        float(np.max(np.abs(np.asarray(com) - reference.center_of_mass))) / size,
        float(np.max(np.abs(np.asarray(inertia) - reference.inertia)))
        / np.trace(reference.inertia),
    )


def mujoco_errors(model, path: Path) -> float:
    import mujoco

    mj = mujoco.MjModel.from_xml_path(str(path))
    worst = 0.0
    for name, body in model.bodies.items():
        b = mj.body(name)
        r = Rotation.from_quat(b.iquat, scalar_first=True).as_matrix()
        worst = max(worst, error(body.mass_properties, b.mass[0], b.ipos,
                                 r @ np.diag(b.inertia) @ r.T))  # fmt: skip
    return worst


def drake_errors(model, path: Path) -> float:
    from pydrake.multibody.parsing import Parser
    from pydrake.multibody.plant import AddMultibodyPlantSceneGraph
    from pydrake.systems.framework import DiagramBuilder

    plant, _ = AddMultibodyPlantSceneGraph(DiagramBuilder(), 0.0)
    Parser(plant).AddModels(str(path))
    plant.Finalize()
    worst = 0.0
    for name, body in model.bodies.items():
        spatial = plant.GetBodyByName(name).default_spatial_inertia()
        com = spatial.get_com()
        central = spatial.Shift(com).CalcRotationalInertia().CopyToFullMatrix3()
        worst = max(worst, error(body.mass_properties, spatial.get_mass(), com, central))
    return worst


def pinocchio_errors(model, path: Path) -> float:
    import pinocchio as pin

    pm = pin.buildModelFromUrdf(str(path))
    zero = model.zero_positions()
    world = model.body_mass_properties(zero)
    frames = model.frame_poses(zero)
    worst = 0.0
    for joint in model.joints.values():
        if joint.type == "fixed":
            continue
        group = [joint.child_body]
        for name in group:
            group += [j.child_body for j in model.child_joints(name) if j.type == "fixed"]
        composite = rp.MassProperties.combine([world[b] for b in group])
        r, p = frames[joint.child]
        reference = rp.MassProperties(composite.mass, r.T @ (composite.center_of_mass - p),
                                      r.T @ composite.inertia @ r)  # fmt: skip
        inertia = pm.inertias[pm.getJointId(joint.name)]
        worst = max(worst, error(reference, inertia.mass, inertia.lever, inertia.inertia))
    for frame in pm.frames:
        if frame.type == pin.FrameType.FIXED_JOINT and frame.inertia.mass > 0:
            body = (model.joints[frame.name].child_body if frame.name in model.joints
                    else frame.name.split(".")[0])  # fmt: skip
            worst = max(worst, error(model.bodies[body].mass_properties, frame.inertia.mass,
                                     frame.inertia.lever, frame.inertia.inertia))  # fmt: skip
    return worst


def main(paths: list[str]) -> int:
    files = [Path(p) for p in paths] or sorted(HERE.glob("*.toml"))
    print(f"{'model':<18}{'MuJoCo MJCF':>13}{'MuJoCo URDF':>13}{'Pinocchio':>13}"
          f"{'Drake URDF':>13}{'Drake SDF':>13}")  # fmt: skip
    overall = 0.0
    with tempfile.TemporaryDirectory() as folder:
        for file in files:
            model = load_model(file)
            if model.rods:  # URDF and SDFormat have no spring-damper element: MJCF only
                print(f"{model.name:<18}(has rods: URDF and SDF refuse it; skipped)")
                continue
            out = {fmt: Path(folder) / f"{model.name}.{fmt}" for fmt in ("xml", "urdf", "sdf")}
            for path in out.values():
                export(model, path)
            row = [
                mujoco_errors(model, out["xml"]),
                mujoco_errors(model, out["urdf"]),
                pinocchio_errors(model, out["urdf"]),
                drake_errors(model, out["urdf"]),
                drake_errors(model, out["sdf"]),
            ]
            overall = max(overall, *row)
            print(f"{model.name:<18}" + "".join(f"{e:>13.1e}" for e in row))
    print(f"largest relative error: {overall:.1e}")
    return 0 if overall <= 1e-12 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
