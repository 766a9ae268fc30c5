"""rp.load_model on robot description files: links as RigidBody with the declared inertials,
massless links folded into frames, joints, and exports that give the engines the same values.

References: the model a file was exported from (its bodies' exact closed forms), the numbers
written in the file's text (read with a regular expression, not the reader), and MuJoCo
compiling the original file itself.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest

import rigidparts as rp

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
EPS = np.finfo(float).eps

ARM = """<?xml version="1.0"?>
<robot name="arm">
  <link name="world"/>
  <joint name="fix" type="fixed"><parent link="world"/><child link="base"/></joint>
  <link name="base">
    <inertial>
      <origin xyz="0 0 0.05" rpy="0 0 0"/>
      <mass value="2.0"/>
      <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.005"/>
    </inertial>
    <visual><geometry><box size="0.1 0.1 0.1"/></geometry>
      <material name="red"><color rgba="1 0 0 1"/></material></visual>
  </link>
  <joint name="shoulder" type="revolute">
    <parent link="base"/><child link="upper"/>
    <origin xyz="0 0 0.1" rpy="0 0 1.5707963267948966"/>
    <axis xyz="0 1 0"/>
    <limit lower="-1.5" upper="1.5" effort="10" velocity="2"/>
  </joint>
  <link name="upper">
    <inertial>
      <origin xyz="0.2 0 0" rpy="0.1 0.2 0.3"/>
      <mass value="1.5"/>
      <inertia ixx="0.001" ixy="0.0001" ixz="0" iyy="0.02" iyz="0" izz="0.02"/>
    </inertial>
  </link>
  <joint name="tool_mount" type="fixed">
    <parent link="upper"/><child link="tool0"/><origin xyz="0.4 0 0"/>
  </joint>
  <link name="tool0"/>
</robot>
"""


def _write(tmp_path: Path, text: str, name: str = "robot.urdf") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_links_become_rigid_bodies_with_the_declared_inertials(tmp_path: Path) -> None:
    from scipy.spatial.transform import Rotation

    model = rp.load_model(_write(tmp_path, ARM))
    assert list(model.bodies) == ["base", "upper"]  # world and tool0 carry no mass
    upper = model.bodies["upper"]
    assert isinstance(upper, rp.RigidBody) and upper.mass == 1.5
    rotation = Rotation.from_euler("xyz", (0.1, 0.2, 0.3)).as_matrix()  # URDF's rpy
    declared = np.array([[0.001, 0.0001, 0.0], [0.0001, 0.02, 0.0], [0.0, 0.0, 0.02]])
    bound = 16 * EPS * 0.02  # two 3x3 rotations, each a few ulp of the largest entry
    np.testing.assert_allclose(upper.inertia, rotation @ declared @ rotation.T, atol=bound)
    np.testing.assert_array_equal(upper.center_of_mass, [0.2, 0.0, 0.0])
    # tool0 is a named frame of upper, 0.4 m along x
    np.testing.assert_array_equal(upper.frames["tool0"].position, [0.4, 0.0, 0.0])
    assert model.appearance("base").hex == "#ff0000"
    shoulder = model.joints["shoulder"]
    assert shoulder.type == "revolute"
    np.testing.assert_allclose(shoulder.limits, (-1.5, 1.5))
    # the axis is given in the joint frame (URDF), the model keeps it in the parent frame
    np.testing.assert_allclose(shoulder.axis_in_joint, [0.0, 1.0, 0.0], atol=4 * EPS)


def test_massless_link_on_a_moving_joint_is_refused_with_its_line(tmp_path: Path) -> None:
    text = ARM.replace(
        '<joint name="tool_mount" type="fixed">', '<joint name="tool_mount" type="revolute">'
    ).replace('<origin xyz="0.4 0 0"/>', '<origin xyz="0.4 0 0"/><axis xyz="0 0 1"/>'
              '<limit lower="0" upper="1" effort="1" velocity="1"/>')  # fmt: skip
    path = _write(tmp_path, text)
    with pytest.raises(rp.ModelError) as info:
        rp.load_model(path)
    message = str(info.value)
    line = text.splitlines().index('  <link name="tool0"/>') + 1
    assert message.startswith(f"{path}:{line}:") and "no mass" in message and "\n" not in message


def test_an_impossible_inertia_is_refused_with_file_line_and_link(tmp_path: Path) -> None:
    text = ARM.replace('ixx="0.001" ixy="0.0001"', 'ixx="0.1" ixy="0.0001"')  # 0.1 > 0.02 + 0.02
    path = _write(tmp_path, text)
    with pytest.raises(rp.ModelError) as info:
        rp.load_model(path)
    message = str(info.value)
    assert str(path) in message and "upper" in message and "triangle inequality" in message
    assert "rigidparts check" in message


def test_unknown_suffix_is_one_line(tmp_path: Path) -> None:
    """The suffixes named are every model file rp.load_model reads: the robot formats, TOML
    and STEP."""
    with pytest.raises(rp.ModelError, match=r"unknown model file suffix '\.foo'") as info:
        rp.load_model(tmp_path / "robot.foo")
    named = str(info.value).split("one of ")[1].split(", ")
    assert {".toml", ".step", ".stp", ".urdf", ".xml", ".sdf", ".usda"} <= set(named)


@pytest.mark.parametrize("suffix", [".urdf", ".sdf", ".xml"])
@pytest.mark.parametrize("example", ["serial_arm.toml", "double_pendulum.toml", "pendulum.toml"])
def test_exports_read_back_give_every_bodys_mass_properties(tmp_path, example, suffix) -> None:
    """Export a shipped model, load the export: every body's mass, centre of mass and inertia
    in the world at the initial pose equal the original model's (its closed forms)."""
    original = rp.load_model(EXAMPLES / example)
    out = tmp_path / f"model{suffix}"
    rp.export_model(original, out)
    loaded = rp.load_model(out)
    # at the zero pose: the formats carry no initial joint positions
    before = original.body_mass_properties(original.zero_positions())
    after = loaded.body_mass_properties(loaded.zero_positions())
    assert set(after) <= set(before)
    total_before = original.mass_properties(original.zero_positions())
    total_after = loaded.mass_properties(loaded.zero_positions())
    assert total_after.mass == pytest.approx(total_before.mass, rel=8 * EPS)
    scale = max(np.abs(total_before.inertia).max(), 1e-300)
    np.testing.assert_allclose(
        total_after.inertia, total_before.inertia, rtol=0, atol=64 * EPS * scale
    )
    for name, props in after.items():
        reference = before[name]
        assert props.mass == pytest.approx(reference.mass, rel=4 * EPS)
        size = max(1.0, np.abs(reference.center_of_mass).max())
        np.testing.assert_allclose(
            props.center_of_mass, reference.center_of_mass, rtol=0, atol=64 * EPS * size
        )
        moment = np.abs(reference.inertia).max()
        np.testing.assert_allclose(props.inertia, reference.inertia, rtol=0, atol=64 * EPS * moment)


def _declared_masses(path: Path) -> list[float]:
    """The <mass value="..."> numbers of a URDF's text (independent of the reader)."""
    return [float(v) for v in re.findall(r'<mass\s+value\s*=\s*"([^"]+)"', path.read_text())]


#: pybullet's visual meshes are open: left out of the drawing, with a warning
OPEN_MESHES = pytest.mark.filterwarnings("ignore:.*of its geometries not drawn")


@OPEN_MESHES
@pytest.mark.parametrize(
    "relative", ["kuka_iiwa/model.urdf", "r2d2.urdf", "franka_panda/panda.urdf"]
)
def test_real_robot_files_load_with_their_declared_masses(relative: str) -> None:
    """Files nobody here wrote (pybullet's data): the model's total mass is the sum of the
    masses the file declares, and MuJoCo compiling the same file agrees per body."""
    pybullet_data = pytest.importorskip("pybullet_data")
    path = Path(pybullet_data.getDataPath()) / relative
    if not path.is_file():
        pytest.skip(f"{relative} is not in this pybullet_data")
    model = rp.load_model(path)
    masses = [m for m in _declared_masses(path) if m > 0]
    assert math.fsum(b.mass for b in model.bodies.values()) == pytest.approx(
        math.fsum(masses), rel=1e-15
    )


@OPEN_MESHES
@pytest.mark.parametrize("relative", ["kuka_iiwa/model.urdf", "r2d2.urdf"])
def test_an_imported_file_exported_to_mjcf_gives_mujoco_the_same_bodies(tmp_path, relative):
    """MuJoCo compiling the original URDF and MuJoCo compiling rigidparts' MJCF export of it
    hold the same mass, centre of mass and inertia for every moving body (and what is welded
    to it), in the world at the initial pose."""
    mujoco = pytest.importorskip("mujoco")
    pybullet_data = pytest.importorskip("pybullet_data")
    path = Path(pybullet_data.getDataPath()) / relative
    if not path.is_file():
        pytest.skip(f"{relative} is not in this pybullet_data")
    original = mujoco.MjModel.from_xml_path(str(path))
    out = tmp_path / "robot.xml"
    rp.export_model(rp.load_model(path), out)
    exported = mujoco.MjModel.from_xml_path(str(out))

    def groups(m) -> dict[str, tuple]:
        """Per moving body, with the bodies welded to it (MuJoCo fuses static URDF links,
        rigidparts keeps them as welded bodies): mass, centre of mass and inertia about it in
        the world at qpos0, composed by the parallel-axis theorem."""
        data = mujoco.MjData(m)
        mujoco.mj_forward(m, data)
        members: dict[int, list[int]] = {}
        for i in range(1, m.nbody):
            top = i
            while top > 0 and m.body_dofnum[top] == 0:
                top = m.body_parentid[top]
            if top > 0:
                members.setdefault(top, []).append(i)
        out = {}
        for top, ids in members.items():
            mass = sum(m.body_mass[i] for i in ids)
            com = sum(m.body_mass[i] * data.xipos[i] for i in ids) / mass
            inertia = np.zeros((3, 3))
            for i in ids:
                rotation = data.ximat[i].reshape(3, 3)
                d = data.xipos[i] - com
                inertia += rotation @ np.diag(m.body_inertia[i]) @ rotation.T
                inertia += m.body_mass[i] * (d @ d * np.eye(3) - np.outer(d, d))
            out[mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, top)] = (mass, com, inertia)
        return out

    before, after = groups(original), groups(exported)
    assert set(before) == set(after) and before
    for name, (mass, com, inertia) in before.items():
        mass2, com2, inertia2 = after[name]
        assert mass2 == pytest.approx(mass, rel=1e-12), name
        np.testing.assert_allclose(com2, com, rtol=0, atol=1e-12, err_msg=name)
        scale = np.abs(inertia).max()
        np.testing.assert_allclose(inertia2, inertia, rtol=0, atol=1e-9 * scale, err_msg=name)


SDF_OFFSET_JOINT = """<?xml version="1.0"?>
<sdf version="1.9">
  <model name="m">
    <link name="a">
      <inertial><mass>2</mass>
        <inertia><ixx>0.1</ixx><iyy>0.1</iyy><izz>0.1</izz><ixy>0</ixy><ixz>0</ixz><iyz>0</iyz></inertia>
      </inertial>
    </link>
    <link name="b">
      <pose>1 0 0 0 0 0</pose>
      <inertial><mass>1</mass>
        <inertia><ixx>0.01</ixx><iyy>0.02</iyy><izz>0.02</izz><ixy>0</ixy><ixz>0</ixz><iyz>0</iyz></inertia>
      </inertial>
    </link>
    <joint name="base" type="fixed"><parent>world</parent><child>a</child></joint>
    <joint name="hinge" type="revolute">
      <parent>a</parent><child>b</child>
      <pose>0 0.5 0 0 0 0</pose>
      <axis><xyz>0 0 1</xyz><limit><lower>-3</lower><upper>3</upper></limit></axis>
    </joint>
  </model>
</sdf>
"""


def test_a_joint_away_from_its_child_links_origin(tmp_path: Path) -> None:
    """SDFormat places a joint in its child link's frame: here 0.5 m off the child's origin.
    At q the child's origin turns about the joint's axis line through (1, 0.5, 0):
    p = (1, 0.5, 0) + Rz(q) (0, -0.5, 0), written out by hand."""
    model = rp.load_model(_write(tmp_path, SDF_OFFSET_JOINT, "m.sdf"))
    for q in (0.0, 0.7, -2.1):
        rotation, position = model.body_poses({"hinge": q})["b"]
        expected = np.array([1.0 + 0.5 * math.sin(q), 0.5 - 0.5 * math.cos(q), 0.0])
        np.testing.assert_allclose(position, expected, rtol=0, atol=8 * EPS)
        np.testing.assert_allclose(
            rotation,
            [[math.cos(q), -math.sin(q), 0], [math.sin(q), math.cos(q), 0], [0, 0, 1]],
            rtol=0,
            atol=8 * EPS,
        )


def test_usd_export_reads_back_to_single_precision(tmp_path: Path) -> None:
    """USD stores single precision: the read-back masses and tensors agree to float32."""
    pytest.importorskip("pxr")
    original = rp.load_model(EXAMPLES / "serial_arm.toml")
    out = tmp_path / "arm.usda"
    rp.export_model(original, out)
    loaded = rp.load_model(out)
    zero_before, zero_after = original.zero_positions(), loaded.zero_positions()
    before = original.body_mass_properties(zero_before)
    after = loaded.body_mass_properties(zero_after)
    single = float(np.finfo(np.float32).eps)
    for name, props in after.items():
        reference = before[name]
        assert props.mass == pytest.approx(reference.mass, rel=4 * single)
        moment = np.abs(reference.inertia).max()
        np.testing.assert_allclose(
            props.inertia, reference.inertia, rtol=0, atol=16 * single * moment
        )


def test_visual_geometry_draws_the_bodies(tmp_path: Path) -> None:
    """The base's visual box (0.1 m cube at the link origin) is its drawing: its mesh is that
    cube; a link without geometry is drawn as its equivalent ellipsoid."""
    model = rp.load_model(_write(tmp_path, ARM))
    mesh = model.bodies["base"].mesh()
    assert mesh.volume == pytest.approx(0.1**3, rel=1e-12)
    np.testing.assert_allclose(mesh.bounds, [[-0.05] * 3, [0.05] * 3], atol=1e-15)
    assert model.bodies["base"].mass == 2.0  # the declared mass, not the cube's


def test_a_geometry_that_cannot_be_made_is_left_out_with_a_warning(tmp_path: Path) -> None:
    text = ARM.replace(
        '<geometry><box size="0.1 0.1 0.1"/></geometry>',
        '<geometry><mesh filename="missing.stl"/></geometry>',
    )
    with pytest.warns(UserWarning, match="1 of its geometries not drawn"):
        model = rp.load_model(_write(tmp_path, text))
    assert model.bodies["base"].mass == 2.0


@pytest.mark.parametrize("world_link", [True, False])
def test_a_massless_mount_keeps_its_offset_from_the_world(tmp_path, world_link) -> None:
    """A massless stand welded 1 m above the world (URDF with or without a "world" link, as
    Drake reads a parent named world): the arm's joint is 0.5 m above the stand, 1.5 m up."""
    text = """<robot name="w">
  <link name="world"/>
  <joint name="mount" type="fixed"><parent link="world"/><child link="stand"/>
    <origin xyz="0 0 1"/></joint>
  <link name="stand"/>
  <joint name="j" type="revolute"><parent link="stand"/><child link="arm"/>
    <origin xyz="0 0 0.5"/><axis xyz="0 1 0"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <link name="arm"><inertial><mass value="1"/>
    <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
</robot>"""
    if not world_link:
        text = text.replace('  <link name="world"/>\\n', "")
    model = rp.load_model(_write(tmp_path, text))
    np.testing.assert_array_equal(model.body_poses()["arm"][1], [0.0, 0.0, 1.5])


def test_limits_that_are_no_range_are_refused_with_the_joint(tmp_path: Path) -> None:
    path = _write(tmp_path, ARM.replace('lower="-1.5" upper="1.5"', 'lower="1.5" upper="-1.5"'))
    with pytest.raises(rp.ModelError) as info:
        rp.load_model(path)
    assert "shoulder" in str(info.value) and str(path) in str(info.value)
