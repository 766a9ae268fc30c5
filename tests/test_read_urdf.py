"""The URDF reader (rigidparts.formats.urdf): what it reads, what it refuses, how fast.

References that are not the reader: rotations built here from explicit Rz Ry Rx products of
cosines and sines; mass properties from the Model the file was exported from
(``body_mass_properties`` and ``body_poses``, computed by the bodies' closed forms); numbers
typed into the fixtures; for real files, values read off the files' text; Drake's own URDF
parser where it is installed.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import rigidparts as rp
from rigidparts.errors import ModelError
from rigidparts.formats import urdf
from rigidparts.transforms import IDENTITY, compose, invert

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def rpy(roll: float, pitch: float, yaw: float) -> np.ndarray:
    """``Rz(yaw) Ry(pitch) Rx(roll)`` written out (the URDF convention)."""
    cr, sr, cp, sp, cy, sy = (
        math.cos(roll), math.sin(roll), math.cos(pitch), math.sin(pitch),
        math.cos(yaw), math.sin(yaw),
    )  # fmt: skip
    rz = np.array([[cy, -sy, 0], [sy, cy, 0], [0, 0, 1]])
    ry = np.array([[cp, 0, sp], [0, 1, 0], [-sp, 0, cp]])
    rx = np.array([[1, 0, 0], [0, cr, -sr], [0, sr, cr]])
    return rz @ ry @ rx


def write(folder: Path, text: str, name: str = "robot.urdf") -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def robot(body: str) -> str:
    return f'<?xml version="1.0"?>\n<robot name="r">\n{body}\n</robot>\n'


def refused(tmp_path: Path, text: str, *, line: int | None, words: tuple[str, ...]) -> ModelError:
    path = write(tmp_path, text)
    with pytest.raises(ModelError) as info:
        urdf.read(path)
    error = info.value
    message = str(error)
    assert "\n" not in message
    assert error.source == str(path)
    assert message.startswith(f"{path}:{line}: " if line is not None else f"{path}: ")
    assert error.line == line
    for word in words:
        assert word in message, message
    return error


# -- features ----------------------------------------------------------------------------------


INERTIAL = robot(
    """<link name="arm">
  <inertial>
    <origin xyz="0.1 -0.2 0.3" rpy="0.4 -0.5 0.6"/>
    <mass value="2.5"/>
    <inertia ixx="0.11" ixy="-0.012" ixz="0.013" iyy="0.22" iyz="-0.023" izz="0.33"/>
  </inertial>
</link>"""
)


def test_inertial_as_declared(tmp_path: Path) -> None:
    description = urdf.read(write(tmp_path, INERTIAL))
    inertial = description.links["arm"].inertial
    assert inertial is not None
    assert inertial.mass == 2.5
    assert inertial.center_of_mass.tolist() == [0.1, -0.2, 0.3]
    np.testing.assert_allclose(inertial.pose[0], rpy(0.4, -0.5, 0.6), rtol=0, atol=1e-15)
    # ixy is the tensor's entry I[0, 1] (URDF's slots), symmetric
    expected = [[0.11, -0.012, 0.013], [-0.012, 0.22, -0.023], [0.013, -0.023, 0.33]]
    assert inertial.inertia.tolist() == expected
    assert inertial.layout == "urdf"
    assert inertial.given == {"mass", "center_of_mass", "inertia"}
    assert inertial.source.line == 4
    assert inertial.source.element == "link[arm]/inertial"
    r = rpy(0.4, -0.5, 0.6)
    np.testing.assert_allclose(inertial.inertia_in_link, r @ np.array(expected) @ r.T, atol=1e-15)
    assert description.format == "urdf" and description.name == "r"
    assert description.root == "arm" and description.roots == ["arm"]
    assert description.notes == []


def test_missing_origin_is_identity_and_missing_inertial_is_none(tmp_path: Path) -> None:
    text = robot(
        """<link name="a"><inertial><mass value="1"/>
<inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
<link name="b"/>
<joint name="j" type="fixed"><parent link="a"/><child link="b"/></joint>"""
    )
    description = urdf.read(write(tmp_path, text))
    inertial = description.links["a"].inertial
    assert inertial is not None
    assert np.array_equal(inertial.pose[0], np.eye(3))
    assert np.array_equal(inertial.pose[1], np.zeros(3))
    assert description.links["b"].inertial is None
    joint = description.joints["j"]
    assert np.array_equal(joint.pose[0], np.eye(3)) and np.array_equal(joint.pose[1], np.zeros(3))
    assert joint.axis is None
    assert joint.child_pose is IDENTITY


def test_inertial_without_mass_or_inertia_reads_zero_with_a_note(tmp_path: Path) -> None:
    text = robot(
        """<link name="a"><inertial><origin xyz="1 2 3"/></inertial></link>
<link name="b"><inertial><mass value="2"/><inertia ixx="1" iyy="2" izz="3"/></inertial></link>"""
    )
    description = urdf.read(write(tmp_path, text))
    a = description.links["a"].inertial
    assert a is not None and a.mass == 0.0 and not a.inertia.any()
    assert a.given == {"center_of_mass"} and a.layout == "absent"
    b = description.links["b"].inertial
    assert b is not None and b.given == {"mass", "center_of_mass"}
    assert np.array_equal(b.inertia, np.diag([1.0, 2.0, 3.0]))
    notes = " | ".join(description.notes)
    assert "no <mass value>" in notes and "no <inertia>" in notes
    assert "no ixy, ixz, iyz" in notes


def test_geometry_of_every_kind(tmp_path: Path) -> None:
    (tmp_path / "parts").mkdir()
    (tmp_path / "parts" / "a.stl").write_text("solid a\nendsolid a\n")
    text = robot(
        """<material name="steel"><color rgba="0.5 0.5 0.6 1"/></material>
<link name="a">
  <collision><origin xyz="0 0 0.5" rpy="0 1.5707963267948966 0"/>
    <geometry><box size="0.1 0.2 0.3"/></geometry></collision>
  <collision name="c2"><geometry><cylinder radius="0.05" length="0.4"/></geometry></collision>
  <collision><geometry><sphere radius="0.07"/></geometry></collision>
  <collision><geometry><capsule radius="0.02" length="0.3"/></geometry></collision>
  <collision><geometry><drake:ellipsoid a="0.1" b="0.2" c="0.3"/></geometry></collision>
  <visual><geometry><mesh filename="parts/a.stl" scale="0.001 0.001 0.001"/></geometry>
    <material name="steel"/></visual>
  <visual><geometry><mesh filename="parts/a.stl" scale="2"/></geometry>
    <material name="red"><color rgba="1 0 0 0.5"/></material></visual>
  <visual><geometry><mesh filename="parts/absent.stl"/></geometry>
    <material name="painted_later"/></visual>
</link>
<material name="painted_later"><color rgba="0 1 0 1"/></material>"""
    )
    link = urdf.read(write(tmp_path, text)).links["a"]
    kinds = [(g.kind, g.size) for g in link.collisions]
    assert kinds == [
        ("box", (0.1, 0.2, 0.3)),
        ("cylinder", (0.05, 0.4)),
        ("sphere", (0.07,)),
        (urdf.CAPSULE, (0.02, 0.3)),
        (urdf.ELLIPSOID, (0.1, 0.2, 0.3)),
    ]
    box = link.collisions[0]
    np.testing.assert_allclose(box.pose[0], rpy(0, math.pi / 2, 0), atol=1e-15)
    assert box.pose[1].tolist() == [0, 0, 0.5] and box.role == "collision"
    assert link.collisions[1].name == "c2"
    first, second, third = link.visuals
    assert first.kind == "mesh" and first.mesh == str(tmp_path / "parts" / "a.stl")
    assert first.scale == (0.001, 0.001, 0.001) and first.rgba == (0.5, 0.5, 0.6, 1.0)
    assert second.scale == (2.0, 2.0, 2.0) and second.rgba == (1.0, 0.0, 0.0, 0.5)
    assert third.mesh is None and "parts/absent.stl" in (third.missing or "")
    assert third.rgba == (0.0, 1.0, 0.0, 1.0)  # a named material defined after its use
    assert link.geometry == link.collisions


def test_package_and_file_uris(tmp_path: Path) -> None:
    # a package found three ways: a folder named after it under an entry, an entry with that
    # name, an entry whose package.xml names it
    for folder in ("share/alpha/meshes", "beta/meshes", "gamma_src/meshes"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "m.obj").write_text("v 0 0 0\n")
    (tmp_path / "gamma_src" / "package.xml").write_text(
        "<package format='3'><name>gamma</name></package>"
    )
    absolute = tmp_path / "beta" / "meshes" / "m.obj"
    text = robot(
        f"""<link name="a">
<visual><geometry><mesh filename="package://alpha/meshes/m.obj"/></geometry></visual>
<visual><geometry><mesh filename="package://beta/meshes/m.obj"/></geometry></visual>
<visual><geometry><mesh filename="package://gamma/meshes/m.obj"/></geometry></visual>
<visual><geometry><mesh filename="file://{absolute}"/></geometry></visual>
<visual><geometry><mesh filename="package://delta/m.obj"/></geometry></visual>
<visual><geometry><mesh filename="https://example.com/m.obj"/></geometry></visual>
</link>"""
    )
    path = write(tmp_path / "robot", text)
    search = [tmp_path / "share", tmp_path / "beta", str(tmp_path / "gamma_src")]
    visuals = urdf.read(path, search_path=search).links["a"].visuals
    assert [v.mesh for v in visuals[:4]] == [
        str(tmp_path / "share/alpha/meshes/m.obj"),
        str(tmp_path / "beta/meshes/m.obj"),
        str(tmp_path / "gamma_src/meshes/m.obj"),
        str(absolute),
    ]
    assert visuals[4].mesh is None and "no package 'delta'" in (visuals[4].missing or "")
    assert visuals[5].mesh is None and "not fetched" in (visuals[5].missing or "")
    # without the search path the packages are not found (nothing above the file has them)
    assert urdf.read(path).links["a"].visuals[0].mesh is None


def test_joints(tmp_path: Path) -> None:
    text = robot(
        """<link name="base"/><link name="a"/><link name="b"/><link name="c"/>
<link name="d"/><link name="e"/><link name="f"/>
<joint name="j_rev" type="revolute"><parent link="base"/><child link="a"/>
  <origin xyz="0 0 1" rpy="0.1 0.2 0.3"/><axis xyz="0 3 4"/>
  <limit lower="-1.5" upper="2" effort="30" velocity="4"/></joint>
<joint name="j_cont" type="continuous"><parent link="a"/><child link="b"/></joint>
<joint name="j_pri" type="prismatic"><parent link="b"/><child link="c"/>
  <axis xyz="0 0 1"/><limit lower="0" upper="0.5"/><mimic joint="j_rev"/></joint>
<joint name="j_fix" type="fixed"><parent link="c"/><child link="d"/></joint>
<joint name="j_float" type="floating"><parent link="d"/><child link="e"/></joint>
<joint name="j_ball" type="spherical"><parent link="e"/><child link="f"/></joint>"""
    )
    description = urdf.read(write(tmp_path, text))
    joints = description.joints
    assert [(j.kind, j.parent, j.child) for j in joints.values()] == [
        ("revolute", "base", "a"),
        ("continuous", "a", "b"),
        ("prismatic", "b", "c"),
        ("fixed", "c", "d"),
        ("floating", "d", "e"),
        ("ball", "e", "f"),
    ]
    rev = joints["j_rev"]
    np.testing.assert_allclose(rev.pose[0], rpy(0.1, 0.2, 0.3), atol=1e-15)
    assert rev.pose[1].tolist() == [0, 0, 1]
    # (0, 3, 4) / 5: the norm and each quotient round once (half an ulp each, relative), so
    # the unit entries are within a few ulps of 0.6 and 0.8; 4 eps bounds that
    np.testing.assert_allclose(rev.axis, [0, 0.6, 0.8], rtol=0, atol=4 * np.finfo(float).eps)
    assert dict(rev.limits) == {"lower": -1.5, "upper": 2.0, "effort": 30.0, "velocity": 4.0}
    assert joints["j_cont"].axis.tolist() == [1.0, 0.0, 0.0]  # the URDF default
    assert dict(joints["j_pri"].limits) == {"lower": 0.0, "upper": 0.5}
    assert joints["j_fix"].axis is None and joints["j_ball"].axis is None
    assert rev.source.line == 5 and rev.source.element == "joint[j_rev]"
    assert description.root == "base"
    assert description.parent_joint("c") is joints["j_pri"]
    assert description.moving("a") and not description.moving("d")
    notes = " | ".join(description.notes)
    assert "length 5, normalised" in notes
    assert "<mimic> is not read" in notes
    assert "spherical" in notes
    assert "continuous" not in notes  # a continuous joint needs no <limit>


def test_world_parent_and_several_roots_are_noted(tmp_path: Path) -> None:
    text = robot(
        """<link name="a"/><link name="b"/><link name="c"/>
<joint name="weld" type="fixed"><parent link="world"/><child link="a"/></joint>"""
    )
    description = urdf.read(write(tmp_path, text))
    assert description.joints["weld"].parent == "world"
    assert description.roots == ["a", "b", "c"] and description.root == "a"  # a: to the world
    notes = " | ".join(description.notes)
    assert "read as the world" in notes and "2 links are no joint's child (b, c)" in notes


def test_unknown_elements_are_noted_once_per_tag(tmp_path: Path) -> None:
    text = robot(
        """<link name="a"><contact/><inertial><mass value="1"/>
<inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
<link name="b"><contact/></link>
<joint name="j" type="revolute"><parent link="a"/><child link="b"/><limit effort="1"
 velocity="1"/><dynamics damping="1"/><drake:rotor_inertia value="1"/></joint>
<transmission name="t"/><gazebo/><mujoco><compiler/></mujoco>
<ros2_control name="x"/>"""
    )
    notes = urdf.read(write(tmp_path, text)).notes
    assert notes == [
        "ignored <contact> in <link> (2 elements, first 3): not part of the format rigidparts "
        "reads (engines ignore it too)",
        "ignored <drake:rotor_inertia> in <joint> (line 7): not part of the format rigidparts "
        "reads (engines ignore it too)",
        "ignored <ros2_control> in <robot> (line 9): not part of the format rigidparts reads "
        "(engines ignore it too)",
    ]


def test_a_xacro_file_is_noted(tmp_path: Path) -> None:
    text = robot('<xacro:property name="l" value="1"/><xacro:macro name="m"/><link name="a"/>')
    notes = urdf.read(write(tmp_path, text)).notes
    assert any("run xacro on it first" in note for note in notes)


@given(
    values=st.lists(
        st.floats(allow_nan=False, allow_infinity=False, width=64), min_size=13, max_size=13
    ),
    angles=st.lists(st.floats(-math.pi, math.pi), min_size=3, max_size=3),
)
def test_numbers_are_read_exactly(values: list[float], angles: list[float]) -> None:
    """Every float written at repr precision reads back bit for bit, and the inertial frame's
    rotation is Rz Ry Rx of the angles (to rounding)."""
    m, x, y, z, *six = values[:10]
    ixx, ixy, ixz, iyy, iyz, izz = [*six, *values[10:]][:6]
    text = robot(
        f"""<link name="a"><inertial><origin xyz="{x!r} {y!r} {z!r}"
 rpy="{angles[0]!r} {angles[1]!r} {angles[2]!r}"/><mass value="{m!r}"/>
<inertia ixx="{ixx!r}" ixy="{ixy!r}" ixz="{ixz!r}" iyy="{iyy!r}" iyz="{iyz!r}" izz="{izz!r}"/>
</inertial></link>"""
    )
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        inertial = urdf.read(write(Path(folder), text)).links["a"].inertial
    assert inertial is not None
    assert inertial.mass == m
    assert inertial.center_of_mass.tolist() == [x, y, z]
    assert inertial.inertia[0].tolist() == [ixx, ixy, ixz]
    assert inertial.inertia[1].tolist() == [ixy, iyy, iyz]
    assert inertial.inertia[2].tolist() == [ixz, iyz, izz]
    # Each entry of the product of three rotations is within a few ulp of 1.
    np.testing.assert_allclose(inertial.pose[0], rpy(*angles), rtol=0, atol=8e-16)


# -- refusals ----------------------------------------------------------------------------------


def test_malformed_xml(tmp_path: Path) -> None:
    refused(
        tmp_path,
        '<robot name="r">\n<link name="a">\n</robot>\n',
        line=3,
        words=("mismatched tag", "well-formed XML"),
    )


def test_entities_are_refused(tmp_path: Path) -> None:
    laughs = (
        '<?xml version="1.0"?>\n<!DOCTYPE robot [\n<!ENTITY a "aaaaaaaaaa">\n'
        '<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">\n]>\n<robot name="&b;"><link name="l"/></robot>\n'
    )
    refused(tmp_path, laughs, line=3, words=("entity declaration", "never expanded"))
    external = (
        '<?xml version="1.0"?>\n<!DOCTYPE robot [\n<!ENTITY secret SYSTEM "file:///etc/passwd">'
        '\n]>\n<robot name="&secret;"><link name="l"/></robot>\n'
    )
    refused(tmp_path, external, line=3, words=("entity declaration",))


def test_an_unreadable_file(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="cannot be read"):
        urdf.read(tmp_path / "absent.urdf")


@pytest.mark.parametrize(
    ("body", "line", "words"),
    [
        ('<link name="a"/>\n<link/>', 4, ("link@name", "must have the attribute 'name'")),
        (
            '<link name="a"/>\n<link name="a"/>',
            4,
            ("link@name='a'", "two links are named 'a' (line 3)"),
        ),
        (
            '<link name="a"><inertial><mass value="1,5"/></inertial></link>',
            3,
            ("link[a]/inertial/mass@value='1,5'", "must be a number"),
        ),
        (
            '<link name="a"><inertial><mass value="1_000"/></inertial></link>',
            3,
            ("must be a number",),
        ),
        (
            '<link name="a"><inertial>\n<origin xyz="0 0"/></inertial></link>',
            4,
            ("link[a]/inertial/origin@xyz='0 0'", "must be 3 numbers"),
        ),
        (
            '<link name="a"><inertial>\n<origin rpy="0 nan 0"/></inertial></link>',
            4,
            ("origin@rpy", "must be finite"),
        ),
        (
            '<link name="a"><visual><origin xyz="${x} 0 0"/></visual></link>',
            3,
            ("run xacro",),
        ),
        (
            '<link name="a"><collision><geometry><box/></geometry></collision></link>',
            3,
            ("link[a]/collision[1]/geometry/box@size", "must have the attribute 'size'"),
        ),
        (
            '<link name="a"><collision><geometry><cylinder radius="1"/></geometry></collision>'
            "</link>",
            3,
            ("cylinder@length",),
        ),
        (
            '<link name="a"><visual><geometry><mesh/></geometry></visual></link>',
            3,
            ("mesh@filename",),
        ),
        ('<link name="a"><visual/></link>', 3, ("link[a]/visual[1]", "must contain a <geometry>")),
        (
            '<link name="a"/><link name="b"/>\n<joint name="j" type="hinge"><parent link="a"/>'
            '<child link="b"/></joint>',
            4,
            ("joint[j]@type='hinge'", "unknown joint type"),
        ),
        (
            '<link name="a"/><link name="b"/>\n<joint name="j"><parent link="a"/>'
            '<child link="b"/></joint>',
            4,
            ("joint[j]@type", "must have the attribute 'type'"),
        ),
        (
            '<link name="a"/><link name="b"/>\n<joint name="j" type="fixed"><parent link="a"/>'
            "</joint>",
            4,
            ("joint[j]/child", "must have a <child link>"),
        ),
        (
            '<link name="a"/>\n<joint name="j" type="fixed"><parent link="a"/>'
            '<child link="ghost"/></joint>',
            4,
            ("joint[j]/child='ghost'", "no link is named 'ghost'"),
        ),
        (
            '<link name="a"/><link name="b"/><link name="c"/>\n'
            '<joint name="j1" type="fixed"><parent link="a"/><child link="c"/></joint>\n'
            '<joint name="j2" type="fixed"><parent link="b"/><child link="c"/></joint>',
            5,
            ("joint[j2]/child='c'", "already the child of joint 'j1' (line 4)", "one parent"),
        ),
        (
            '<link name="a"/><link name="b"/>\n'
            '<joint name="j1" type="fixed"><parent link="a"/><child link="b"/></joint>\n'
            '<joint name="j2" type="fixed"><parent link="b"/><child link="a"/></joint>',
            4,
            ("joint[j1]='j1'", "the joints form a cycle (b -> a -> b)", "a model is a tree"),
        ),
        (
            '<link name="a"/>\n<joint name="j" type="fixed"><parent link="a"/>'
            '<child link="a"/></joint>',
            4,
            ("cycle (a -> a)",),
        ),
        (
            '<link name="a"/><link name="b"/>\n'
            '<joint name="j" type="revolute"><parent link="a"/><child link="b"/>\n'
            '<axis xyz="0 0 0"/></joint>',
            5,
            ("joint[j]/axis@xyz='0 0 0'", "non-zero"),
        ),
        (
            '<link name="a"/><link name="b"/><link name="c"/>\n'
            '<joint name="j" type="fixed"><parent link="a"/><child link="b"/></joint>\n'
            '<joint name="j" type="fixed"><parent link="b"/><child link="c"/></joint>',
            5,
            ("two joints are named 'j' (line 4)",),
        ),
        ("", 2, ("at least one <link>",)),
    ],
)
def test_refusals(tmp_path: Path, body: str, line: int | None, words: tuple[str, ...]) -> None:
    refused(tmp_path, robot(body), line=line, words=words)


def test_root_element_must_be_robot(tmp_path: Path) -> None:
    refused(tmp_path, "<sdf version='1.9'/>\n", line=1, words=("must be <robot>",))


# -- this project's exports --------------------------------------------------------------------


def _mixed_model() -> rp.Model:
    """Rotated joint frames, a body held at a frame other than frame_a, every URDF joint type
    the exporter writes."""
    from scipy.spatial.transform import Rotation

    model = rp.Model("mixed")
    model.add_body("base", rp.Box(length=0.4, width=0.3, height=0.1, axis=(0, 0, 1)))
    model.add_body("arm", rp.Cone(length=0.5, radius_a=0.05, radius_b=0.03, axis=(1, 0, 0),
                                  extra_frames=(0.25,)))  # fmt: skip
    model.add_body("slider", rp.Cylinder(length=0.2, radius=0.02, inner_radius=0.01,
                                         axis=(0, 1, 0)))  # fmt: skip
    model.add_body("tool", rp.Ball(radius=0.04, material="aluminium"))
    model.add_joint("root", "free", "world", "base")
    model.add_joint(
        "shoulder", "revolute", "base.frame_b", "arm.frame_c1", axis=(0, 1, 0),
        rotation=Rotation.from_euler("xyz", [0.3, -0.2, 0.9]), limits=(-1, 1),
    )  # fmt: skip
    model.add_joint(
        "slide", "prismatic", "arm.frame_b", "slider", axis=(1, 1, 0),
        position=(0.01, 0.02, 0.03), limits=(0, 0.1),
    )  # fmt: skip
    model.add_joint("weld", "fixed", "slider.frame_b", "tool",
                    rotation=Rotation.from_euler("z", 0.7))  # fmt: skip
    return model


def _models() -> list[rp.Model]:
    models = [_mixed_model()]
    for path in sorted(EXAMPLES.glob("*.toml")):
        model = rp.load_model(path)
        if not model.rods and all(j.type != "ball" for j in model.joints.values()):
            models.append(model)
    return models


def link_poses(description) -> dict:
    """Each link's frame at zero position in the root's frame: ``X_PJ X_JC`` down the tree."""
    poses = {}
    for name in description.links:
        chain, current = [], name
        while (joint := description.parent_joint(current)) is not None:
            chain.append(joint)
            current = joint.parent
        pose = IDENTITY
        for joint in reversed(chain):
            pose = compose(compose(pose, joint.pose), joint.child_pose)
        poses[name] = pose
    return poses


@pytest.mark.parametrize("model", _models(), ids=lambda m: m.name)
def test_own_export_reads_back(tmp_path: Path, model: rp.Model) -> None:
    path = tmp_path / f"{model.name}.urdf"
    rp.export_model(model, path)
    description = urdf.read(path)
    assert description.notes == []
    zero = model.zero_positions()
    reference = model.body_mass_properties(zero)
    poses = model.body_poses(zero)
    read_poses = link_poses(description)
    x_world = read_poses["world"]
    for name in model.bodies:
        inertial = description.links[name].inertial
        assert inertial is not None and inertial.given == {"mass", "center_of_mass", "inertia"}
        r_wa, p_wa = poses[name]
        expected = reference[name]
        # the model's world values brought into the body's frame_a (the link frame)
        com = r_wa.T @ (expected.center_of_mass - p_wa)
        inertia = r_wa.T @ expected.inertia @ r_wa
        scale = np.abs(inertia).max()
        assert inertial.mass == pytest.approx(expected.mass, rel=4 * np.finfo(float).eps)
        np.testing.assert_allclose(inertial.center_of_mass, com, rtol=0, atol=1e-15)
        np.testing.assert_allclose(inertial.inertia_in_link, inertia, rtol=0, atol=1e-14 * scale)
        # the joints' frames put each link where the model puts its body at zero position
        r, p = compose(invert(x_world), read_poses[name])
        np.testing.assert_allclose(r, r_wa, rtol=0, atol=1e-14)
        np.testing.assert_allclose(p, p_wa, rtol=0, atol=1e-14)
    kinds = {j.kind for j in description.joints.values()}
    assert kinds <= set(urdf.JOINT_TYPES.values())


# -- real files --------------------------------------------------------------------------------


def _package_folder(name: str) -> Path | None:
    import importlib.util

    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent


PYBULLET_DATA = _package_folder("pybullet_data")
needs_pybullet_data = pytest.mark.skipif(PYBULLET_DATA is None, reason="pybullet_data absent")


@needs_pybullet_data
def test_kuka_iiwa_values_from_the_file() -> None:
    path = PYBULLET_DATA / "kuka_iiwa" / "model.urdf"  # type: ignore[operator]
    description = urdf.read(path)
    assert len(description.links) == 8 and len(description.joints) == 7
    assert description.root == "lbr_iiwa_link_0"
    # the file's text, lines 122-126 and 114-121
    link = description.links["lbr_iiwa_link_2"].inertial
    assert link is not None and link.mass == 4.0
    assert link.center_of_mass.tolist() == [0.0003, 0.059, 0.042]
    assert link.inertia.tolist() == [[0.05, 0, 0], [0, 0.018, 0], [0, 0, 0.044]]
    joint = description.joints["lbr_iiwa_joint_2"]
    assert (joint.parent, joint.child, joint.kind) == (
        "lbr_iiwa_link_1",
        "lbr_iiwa_link_2",
        "revolute",
    )
    assert joint.pose[1].tolist() == [0, 0, 0.2025]
    np.testing.assert_allclose(joint.pose[0], rpy(1.57079632679, 0, 3.14159265359), atol=1e-15)
    assert joint.axis.tolist() == [0, 0, 1]
    assert dict(joint.limits) == {
        "lower": -2.09439510239, "upper": 2.09439510239, "effort": 300.0, "velocity": 10.0,
    }  # fmt: skip
    meshes = [g for link in description.links.values() for g in link.geometry if g.kind == "mesh"]
    assert meshes and all(g.mesh is not None and Path(g.mesh).is_file() for g in meshes)


@needs_pybullet_data
def test_r2d2_values_from_the_file() -> None:
    description = urdf.read(PYBULLET_DATA / "r2d2.urdf")  # type: ignore[operator]
    base = description.links["base_link"]
    visual = base.visuals[0]
    assert (visual.kind, visual.size, visual.rgba) == ("cylinder", (0.2, 0.6), (0, 0, 0.8, 1))
    assert base.inertial is not None and base.inertial.mass == 10.0
    assert len(description.links) == 16  # grep -c '<link name'


@needs_pybullet_data
def test_every_pybullet_urdf_reads_or_is_refused_cleanly() -> None:
    """Each of pybullet_data's ~1100 URDF files reads, or is refused with a ModelError naming
    its file and line; the refused ones are the few that break XML or URDF's grammar."""
    refused: list[str] = []
    files = sorted(PYBULLET_DATA.rglob("*.urdf"))  # type: ignore[union-attr]
    for path in files:
        try:
            urdf.read(path)
        except ModelError as error:
            assert str(error).startswith(f"{path}:"), str(error)
            refused.append(path.relative_to(PYBULLET_DATA).as_posix())  # type: ignore[arg-type]
    assert len(files) > 1000
    # known bad: a comma in a number, a second XML declaration, a NUL byte after the root,
    # a roslaunch expression, four rpy angles, four scale factors, a file without links
    assert len(refused) <= 10, refused
    assert "kuka_iiwa/model.urdf" not in refused and "r2d2.urdf" not in refused


def _drake() -> object | None:
    try:
        from pydrake.multibody.parsing import Parser  # noqa: F401
    except ImportError:
        return None
    return True


@pytest.mark.skipif(_drake() is None, reason="pydrake absent")
def test_agrees_with_drake(tmp_path: Path) -> None:
    """Drake parses the same rotated, offset file: its joints' frames and its bodies' spatial
    inertias agree with the description."""
    from pydrake.multibody.parsing import Parser
    from pydrake.multibody.plant import MultibodyPlant

    text = robot(
        """<link name="base"><inertial><origin xyz="0.1 0.2 0.3" rpy="0.3 0.2 0.1"/>
<mass value="3"/><inertia ixx="0.3" ixy="0.01" ixz="-0.02" iyy="0.4" iyz="0.03" izz="0.5"/>
</inertial></link>
<link name="arm"><inertial><origin xyz="0 0 0.25" rpy="0 0.5 0"/><mass value="1.5"/>
<inertia ixx="0.03" ixy="0" ixz="0" iyy="0.03" iyz="0" izz="0.01"/></inertial></link>
<joint name="shoulder" type="revolute"><parent link="base"/><child link="arm"/>
<origin xyz="0.2 -0.1 0.4" rpy="0.7 -0.4 1.1"/><axis xyz="1 2 2"/>
<limit lower="-1" upper="1" effort="1" velocity="1"/></joint>"""
    )
    path = write(tmp_path, text)
    description = urdf.read(path)
    plant = MultibodyPlant(0.0)
    Parser(plant).AddModels(str(path))
    plant.Finalize()
    joint = plant.GetJointByName("shoulder")
    x_pj = joint.frame_on_parent().GetFixedPoseInBodyFrame()
    ours = description.joints["shoulder"]
    np.testing.assert_allclose(ours.pose[0], x_pj.rotation().matrix(), atol=1e-15)
    np.testing.assert_allclose(ours.pose[1], x_pj.translation(), atol=1e-15)
    np.testing.assert_allclose(ours.axis, joint.revolute_axis(), atol=1e-15)
    for name in ("base", "arm"):
        inertia = plant.GetBodyByName(name).default_spatial_inertia()
        inertial = description.links[name].inertial
        assert inertial.mass == inertia.get_mass()
        np.testing.assert_allclose(inertial.center_of_mass, inertia.get_com(), atol=1e-15)
        # Drake holds the unit inertia about the body origin: shift ours there
        com = inertial.center_of_mass
        about_origin = inertial.inertia_in_link + inertial.mass * (
            com @ com * np.eye(3) - np.outer(com, com)
        )
        np.testing.assert_allclose(
            about_origin, inertia.CalcRotationalInertia().CopyToFullMatrix3(), atol=1e-14
        )


# -- speed -------------------------------------------------------------------------------------


def big_urdf(links: int) -> str:
    """A chain of ``links`` links, each with an inertial, a visual and a collision, all posed
    with distinct offsets and angles, joined by revolute joints."""
    parts = ['<robot name="big">']
    for i in range(links):
        parts.append(
            f'<link name="l{i}"><inertial><origin xyz="0.1 0 {i * 1e-3!r}" rpy="0.1 0.2 '
            f'{i * 1e-4!r}"/><mass value="{1 + i % 3}"/><inertia ixx="0.1" ixy="0" ixz="0" '
            'iyy="0.1" iyz="0" izz="0.1"/></inertial><visual><origin xyz="0 0 0.5" '
            f'rpy="0 {i * 1e-4!r} 0"/><geometry><cylinder radius="0.05" length="1"/></geometry>'
            '</visual><collision><origin xyz="0 0 0.5"/><geometry><box size="0.1 0.1 1"/>'
            "</geometry></collision></link>"
        )
        if i:
            parts.append(
                f'<joint name="j{i}" type="revolute"><parent link="l{i - 1}"/><child '
                f'link="l{i}"/><origin xyz="0 0 1" rpy="0 0 {i * 1e-4!r}"/><axis xyz="0 1 0"/>'
                '<limit lower="-1" upper="1" effort="10" velocity="1"/></joint>'
            )
    parts.append("</robot>")
    return "\n".join(parts)


def test_ten_thousand_links_are_read(tmp_path: Path) -> None:
    """Every link and joint of a 10 000-link file (its speed: benchmarks/read_files.py)."""
    path = write(tmp_path, big_urdf(10_000))
    description = urdf.read(path)
    assert len(description.links) == 10_000 and len(description.joints) == 9_999


def test_pose_batch_rotations_are_nan_until_flush() -> None:
    """A rotation read before :meth:`PoseBatch.flush` is NaN (never stale memory); after it,
    roll-pitch-yaw as scipy's extrinsic ``xyz`` Euler angles."""
    from scipy.spatial.transform import Rotation

    from rigidparts.formats._xml import PoseBatch

    batch = PoseBatch()
    rotation, position = batch.pose((1.0, 2.0, 3.0), (0.1, -0.2, 0.3))
    assert np.isnan(rotation).all() and position.tolist() == [1.0, 2.0, 3.0]
    batch.flush()
    expected = Rotation.from_euler("xyz", [0.1, -0.2, 0.3]).as_matrix()
    np.testing.assert_allclose(rotation, expected, rtol=0, atol=8 * np.finfo(float).eps)
