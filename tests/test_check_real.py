"""rp.check on real robot files nobody here wrote (pybullet_data, installed with pybullet):
its MuJoCo and Drake verdicts are those engines' own, file by file.
Skipped when pybullet_data is not installed."""

from __future__ import annotations

import glob
import os

import pytest

from rigidparts.checking import check

pybullet_data = pytest.importorskip("pybullet_data")
ROOT = pybullet_data.getDataPath()
FILES = sorted(
    [
        *glob.glob(os.path.join(ROOT, "*.urdf")),
        os.path.join(ROOT, "kuka_iiwa", "model.urdf"),
        os.path.join(ROOT, "xarm", "xarm6_robot.urdf"),
        *sorted(glob.glob(os.path.join(ROOT, "random_urdfs", "*", "*.urdf")))[:10],
    ]
)


def _inertia_refusal(message: str | None) -> bool:
    return message is not None and any(
        text in message
        for text in ("inertia must", "mjMINVAL", "CouldBePhysicallyValid", "mass > 0")
    )


def test_mujocos_verdict_file_by_file() -> None:
    mujoco = pytest.importorskip("mujoco")
    compared = 0
    for path in FILES:
        try:
            mujoco.MjModel.from_xml_path(path)
            refusal = None
        except ValueError as exc:
            refusal = str(exc)
        file = check(path, search_path=[ROOT]).files[0]
        if file.error is not None or (refusal is not None and not _inertia_refusal(refusal)):
            continue  # unreadable, or refused for something else (a mesh MuJoCo cannot open)
        ours = [link.name for link in file.links if link.validity.get("mujoco")]
        ours += [f.link for f in file.findings if f.code == "missing-inertial"]
        assert bool(ours) == (refusal is not None), (path, refusal, ours)
        compared += 1
    assert compared >= 25


def test_drakes_verdict_file_by_file() -> None:
    parsing = pytest.importorskip("pydrake.multibody.parsing")
    plant_module = pytest.importorskip("pydrake.multibody.plant")
    compared = 0
    for path in FILES[::2]:
        plant = plant_module.MultibodyPlant(0.0)
        parser = parsing.Parser(plant)
        parser.package_map().PopulateFromFolder(ROOT)
        parser.SetStrictParsing()  # its inertia warnings become errors
        try:
            parser.AddModels(path)
            refusal = None
        except (RuntimeError, ValueError, SystemExit) as exc:  # SystemExit: DRAKE_DEMAND
            refusal = str(exc)
        file = check(path, search_path=[ROOT]).files[0]
        if file.error is not None or (refusal is not None and not _inertia_refusal(refusal)):
            continue
        ours = [link.name for link in file.links if link.validity.get("drake")]
        assert bool(ours) == (refusal is not None), (path, refusal, ours)
        compared += 1
    assert compared >= 15
