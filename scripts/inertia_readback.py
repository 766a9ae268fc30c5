"""Measure how exactly each engine reads back the inertia rigidparts writes (docs/models.md,
"Inertia in the engines").

For families of bodies (turned boxes and cones of random sizes; turned boxes with two moments
1e-15 to 1e-3 apart; turned box-shaped mesh bodies; boxes along the axes; plates at the
triangle edge), the model is exported to URDF, SDFormat and MJCF and loaded in MuJoCo,
Pinocchio, Drake and pybullet; printed is the worst ``|I_engine - I| / trace(I)`` per engine
and format, and whether SDFormat's checker (``ign sdf -k`` / ``gz sdf -k``) accepts each SDF
file. With ``--full`` the URDF and SDF inertials are rewritten as the full tensor in frame_a
(``rpy = 0``, the six entries; the form written before), for comparison.

    .venv/bin/python scripts/inertia_readback.py                 # principal frame (written)
    .venv/bin/python scripts/inertia_readback.py --full          # full tensors, rpy = 0
    .venv/bin/python scripts/inertia_readback.py --seed 1 --count 200

Needs the test extras (mujoco, pinocchio, drake, pybullet, trimesh).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import numpy as np

import rigidparts as rp
from rigidparts.export import export
from rigidparts.export._inertial import edge_moments
from rigidparts.model import Model

FAMILIES = ("random", "near_degenerate", "mesh", "axis_aligned", "edge")


def family(kind: str, count: int, rng: np.random.Generator) -> list[Any]:
    """``count`` bodies of one family (see the module docstring)."""
    import trimesh
    from scipy.spatial.transform import Rotation

    out: list[Any] = []
    for _ in range(count):
        axis = rng.normal(size=3)
        if kind == "random" and rng.random() < 0.5:
            out.append(rp.Box(length=rng.uniform(0.01, 2), width=rng.uniform(0.01, 2),
                              height=rng.uniform(0.01, 2), axis=axis,
                              rotate90=bool(rng.random() < 0.5)))  # fmt: skip
        elif kind == "random":
            radius = rng.uniform(0.01, 2)
            bore = radius * rng.uniform(0, 0.9) * (rng.random() < 0.5)
            out.append(rp.Cone(length=rng.uniform(0.01, 2), radius_a=radius,
                               radius_b=rng.uniform(0, 2), inner_radius_a=bore,
                               axis=axis))  # fmt: skip
        elif kind == "near_degenerate":
            apart = 10.0 ** rng.uniform(-15, -3)
            out.append(rp.Box(length=0.3, width=0.1, height=0.1 * (1 + apart), axis=axis))
        elif kind == "mesh":
            solid = trimesh.creation.box(extents=rng.uniform(0.05, 0.5, 3))
            transform = np.eye(4)
            transform[:3, :3] = Rotation.random(random_state=int(rng.integers(1 << 30))).as_matrix()
            transform[:3, 3] = rng.normal(size=3) * 0.1
            solid.apply_transform(transform)
            out.append(rp.MeshBody(mesh=solid, units="m"))
        elif kind == "axis_aligned":
            along = np.eye(3)[rng.integers(3)] * rng.choice([-1, 1])
            out.append(rp.Box(length=rng.uniform(0.01, 2), width=rng.uniform(0.01, 2),
                              height=rng.uniform(0.01, 2), axis=along))  # fmt: skip
        else:  # edge: plates 1e-10..1e-6 of their width thick, 70 % turned
            along = axis if rng.random() < 0.7 else np.eye(3)[rng.integers(3)]
            out.append(rp.Box(length=10.0 ** rng.uniform(-10, -6), width=rng.uniform(0.05, 0.2),
                              height=rng.uniform(0.05, 0.2), axis=along))  # fmt: skip
    return out


def full_tensor(body: Any) -> np.ndarray:
    """The full tensor in frame_a as written before: ``body.inertia``, or at the triangle edge
    the smallest moment raised by the URDF margin (MuJoCo refuses the file otherwise)."""
    props = body.mass_properties
    raised = edge_moments(props.principal_moments, margin=True)
    if np.array_equal(raised, props.principal_moments):
        return np.array(body.inertia)
    return props.principal_axes @ np.diag(raised) @ props.principal_axes.T


def rewrite_full(path: Path, model: Model, sdf: bool) -> None:
    """Rewrite each body's ``<inertial>`` of the URDF / SDF file as :func:`full_tensor`."""
    tree = ET.parse(path)
    links = tree.getroot().iter("link")
    keys = {"ixx": (0, 0), "ixy": (0, 1), "ixz": (0, 2), "iyy": (1, 1), "iyz": (1, 2),
            "izz": (2, 2)}  # fmt: skip
    for link in links:
        body = model.bodies.get(link.get("name"))
        if body is None:
            continue
        inertial, tensor = link.find("inertial"), full_tensor(body)
        com = " ".join(repr(float(x)) for x in body.center_of_mass)
        if sdf:
            inertial.find("pose").text = f"{com} 0 0 0"
            for key, (row, column) in keys.items():
                inertial.find(f"inertia/{key}").text = repr(float(tensor[row, column]))
        else:
            inertial.find("origin").set("rpy", "0 0 0")
            for key, (row, column) in keys.items():
                inertial.find("inertia").set(key, repr(float(tensor[row, column])))
    tree.write(path)


def error(body: Any, inertia: Any) -> float:
    return float(np.max(np.abs(np.asarray(inertia) - body.inertia)) / np.trace(body.inertia))


def measure(bodies: list[Any], folder: Path, full: bool) -> dict[str, float]:
    """Worst inertia error / trace per engine and format for one chain of ``bodies``."""
    import mujoco
    import pinocchio as pin
    import pybullet
    from pybullet_utils.bullet_client import BulletClient
    from pydrake.multibody.parsing import Parser
    from pydrake.multibody.plant import MultibodyPlant
    from scipy.spatial.transform import Rotation

    model = Model("readback")
    for k, body in enumerate(bodies):
        model.add_body(f"b{k}", body)
        parent = "world" if k == 0 else f"b{k - 1}.frame_a"
        model.add_joint(f"j{k}", "revolute", parent, f"b{k}.frame_a", axis=(0, 0, 1))
    paths = {fmt: folder / f"readback{suffix}"
             for fmt, suffix in (("urdf", ".urdf"), ("sdf", ".sdf"), ("mjcf", ".xml"))}  # fmt: skip
    for fmt, path in paths.items():
        export(model, path)
        if full and fmt != "mjcf":
            rewrite_full(path, model, sdf=fmt == "sdf")
    out: dict[str, float] = {}
    for fmt in ("mjcf", "urdf"):
        mj = mujoco.MjModel.from_xml_path(str(paths[fmt]))
        worst = 0.0
        for name, body in model.bodies.items():
            b = mj.body(name)
            r = Rotation.from_quat(np.roll(b.iquat, -1)).as_matrix()
            worst = max(worst, error(body, r @ np.diag(b.inertia) @ r.T))
        out[f"mujoco {fmt}"] = worst
    pm = pin.buildModelFromUrdf(str(paths["urdf"]))
    out["pinocchio urdf"] = max(
        error(body, pm.inertias[pm.getJointId(f"j{name[1:]}")].inertia)
        for name, body in model.bodies.items()
    )
    client = BulletClient(connection_mode=pybullet.DIRECT)
    uid = client.loadURDF(str(paths["urdf"]), useFixedBase=True,
                          flags=pybullet.URDF_USE_INERTIA_FROM_FILE)  # fmt: skip
    worst = 0.0
    for index in range(client.getNumJoints(uid)):
        name = client.getJointInfo(uid, index)[12].decode()
        if name in model.bodies:
            _, _, moments, _, quaternion = client.getDynamicsInfo(uid, index)[:5]
            r = Rotation.from_quat(quaternion).as_matrix()
            worst = max(worst, error(model.bodies[name], r @ np.diag(moments) @ r.T))
    client.disconnect()
    out["pybullet urdf"] = worst
    for fmt in ("urdf", "sdf"):
        plant = MultibodyPlant(0.0)
        Parser(plant).AddModels(str(paths[fmt]))
        plant.Finalize()
        worst = 0.0
        for name, body in model.bodies.items():
            spatial = plant.GetBodyByName(name).default_spatial_inertia()
            central = spatial.Shift(spatial.get_com()).CalcRotationalInertia()
            worst = max(worst, error(body, central.CopyToFullMatrix3()))
        out[f"drake {fmt}"] = worst
    checker = shutil.which("gz") or shutil.which("ign")
    if checker:
        result = subprocess.run([checker, "sdf", "-k", str(paths["sdf"])], capture_output=True,
                                text=True)  # fmt: skip
        out["sdf checker ok"] = float(result.returncode == 0 and "Valid" in result.stdout)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="write full tensors, rpy = 0")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--count", type=int, default=200, help="bodies per family")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    with tempfile.TemporaryDirectory() as folder:
        for kind in FAMILIES:
            figures = measure(family(kind, args.count, rng), Path(folder), args.full)
            print(f"{kind:16s}", "  ".join(f"{k}={v:.2e}" for k, v in figures.items()), flush=True)


if __name__ == "__main__":
    main()
