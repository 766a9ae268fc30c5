"""Reading MJCF (rigidparts.formats.mjcf) against independent references.

- MuJoCo's compiler (``MjModel.from_xml_path`` with ``inertiafromgeom="false"``): the same file
  compiled gives ``body_mass``, ``body_ipos``, ``body_iquat``, ``body_inertia`` (the declared
  inertial as the engine takes it), ``body_pos``/``body_quat`` (the body in its parent), the
  joints' ``jnt_pos``/``jnt_axis``/``jnt_range`` and the primitive geoms' ``geom_size``,
  ``geom_pos``, ``geom_quat``; the reader must agree within 1e-12 relative (MuJoCo's quaternion
  to matrix products and its 3x3 eigensolver for ``fullinertia`` round to a few 1e-16; the
  bound leaves two orders of magnitude for that).
- scipy's ``Rotation.from_euler`` for ``euler`` under ``eulerseq`` (MJCF's lower-case letters
  are axes that move with the frame: scipy's upper-case, intrinsic, sequence), hand-derived
  sizes for defaults, ``childclass`` and ``fromto``.
- This project's own export read back: every link's declared mass, centre of mass and inertia
  in the link frame against ``model.body_mass_properties()``.
"""

from __future__ import annotations

import glob
import math
import os
import textwrap
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation

import rigidparts as rp
from rigidparts.formats import mjcf
from rigidparts.transforms import compose

mujoco = pytest.importorskip("mujoco")

RELATIVE = 1e-12


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return path


def quat_matrix(quat: np.ndarray) -> np.ndarray:
    """MuJoCo's (w, x, y, z) through scipy (scalar last)."""
    w, x, y, z = quat
    return Rotation.from_quat([x, y, z, w]).as_matrix()


def close(a: object, b: object, scale: float | None = None) -> bool:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    size = scale if scale is not None else max(np.abs(b).max(), np.abs(a).max(), 1e-300)
    return bool(np.abs(a - b).max() <= RELATIVE * size)


def link_pose_in_parent(joint) -> tuple[np.ndarray, np.ndarray]:
    """``X_PC = X_PJ X_JC`` at zero joint position."""
    return compose(joint.pose, joint.child_pose)


def compare_with_mujoco(path: Path) -> None:
    """Everything MuJoCo's compiler keeps of the declared values, against the reading."""
    description = mjcf.read(path)
    model = mujoco.MjModel.from_xml_path(str(path))
    for body_id in range(1, model.nbody):
        name = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_BODY, body_id)
        link = description.links[name]
        inertial = link.inertial
        assert inertial is not None
        assert inertial.mass == pytest.approx(model.body_mass[body_id], rel=RELATIVE)
        assert close(inertial.center_of_mass, model.body_ipos[body_id])
        tensor = quat_matrix(model.body_iquat[body_id])
        tensor = tensor @ np.diag(model.body_inertia[body_id]) @ tensor.T
        assert close(inertial.inertia_in_link, tensor)
        # the diagonalised tensor: MuJoCo's principal moments
        moments = np.linalg.eigvalsh(inertial.inertia_in_link)
        assert close(np.sort(moments), np.sort(model.body_inertia[body_id]))
        joint = description.parent_joint(name)
        rotation, position = link_pose_in_parent(joint)
        assert close(position, model.body_pos[body_id], scale=1.0)
        assert close(rotation, quat_matrix(model.body_quat[body_id]), scale=1.0)
        assert joint.parent == (
            "world"
            if model.body_parentid[body_id] == 0
            else mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_BODY, model.body_parentid[body_id])
        )
        if model.body_jntnum[body_id]:
            jid = model.body_jntadr[body_id]
            # int(): ``numpy.int32 in (enum, ...)`` compares enum == int32, which is False
            kind = int(model.jnt_type[jid])
            if kind in (int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE)):
                # the joint's axis in the child body, through MuJoCo's joint position for a
                # hinge (the reader may move the joint frame along the axis line)
                x_cj = (joint.child_pose[0].T, -(joint.child_pose[0].T @ joint.child_pose[1]))
                axis = x_cj[0] @ joint.axis
                assert close(axis, model.jnt_axis[jid], scale=1.0)
                if kind == int(mujoco.mjtJoint.mjJNT_HINGE):
                    offset = x_cj[1] - model.jnt_pos[jid]
                    assert close(np.cross(offset, axis), np.zeros(3), scale=1.0)
                if model.jnt_limited[jid]:
                    assert close(
                        [joint.limits["lower"], joint.limits["upper"]], model.jnt_range[jid]
                    )
        primitives = [g for g in link.collisions + link.visuals if g.kind != "mesh"]
        geom_ids = [
            g
            for g in range(model.ngeom)
            if model.geom_bodyid[g] == body_id and model.geom_type[g] != mujoco.mjtGeom.mjGEOM_MESH
        ]
        assert len(primitives) == len(geom_ids)
        for geometry, gid in zip(primitives, geom_ids, strict=True):
            half = model.geom_size[gid]
            expected = {
                "box": 2 * half,
                "sphere": half[:1],
                "capsule": [half[0], 2 * half[1]],
                "cylinder": [half[0], 2 * half[1]],
                "ellipsoid": half,
            }[geometry.kind]
            assert close(geometry.size, expected)
            assert close(geometry.pose[1], model.geom_pos[gid], scale=1.0)
            assert close(geometry.pose[0], quat_matrix(model.geom_quat[gid]), scale=1.0)


# -- fixtures ---------------------------------------------------------------------------------

DEFAULTS = """
<mujoco model="defaults">
  <compiler angle="radian" inertiafromgeom="false"/>
  <default>
    <geom type="capsule" size="0.05 0.2" contype="1" conaffinity="1"/>
    <joint type="hinge" axis="0 1 0"/>
    <default class="arm">
      <geom type="box" size="0.1 0.2 0.3"/>
      <default class="thin">
        <geom size="0.01 0.02 0.03"/>
        <joint axis="1 0 0" range="-1 2"/>
      </default>
    </default>
    <default class="ghost">
      <geom type="ellipsoid" size="0.3 0.2 0.1" contype="0" conaffinity="0" group="2"/>
    </default>
  </default>
  <worldbody>
    <body name="base" pos="0.1 0.2 0.3">
      <inertial pos="0 0 0.1" mass="2" diaginertia="0.1 0.2 0.25"/>
      <geom name="plain"/>
      <body name="arm" childclass="arm" pos="0 0 0.5" quat="0.9 0.1 0.3 0.2">
        <joint name="shoulder" pos="0.01 0.02 0.03"/>
        <inertial pos="0.1 0 0" quat="1 2 3 4" mass="1.5" diaginertia="0.01 0.02 0.025"/>
        <geom name="block" pos="0.1 0 0"/>
        <geom name="small" class="thin" pos="0 0.1 0"/>
        <geom name="shadow" class="ghost"/>
        <body name="hand" childclass="thin" pos="0.4 0 0">
          <joint name="wrist"/>
          <inertial pos="0 0 0" mass="0.5" fullinertia="0.004 0.005 0.006 0.001 -0.0005 0.0002"/>
          <geom name="finger" type="sphere" size="0.04"/>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>
"""


def test_defaults_and_childclass_give_types_and_sizes(tmp_path):
    path = write(tmp_path, "defaults.xml", DEFAULTS)
    description = mjcf.read(path)
    base, arm, hand = (description.links[n] for n in ("base", "arm", "hand"))
    (plain,) = base.collisions
    assert (plain.kind, plain.size) == ("capsule", (0.05, 0.4))  # main default, half-length
    block, small = arm.collisions
    assert (block.kind, block.size) == ("box", (0.2, 0.4, 0.6))  # childclass arm
    assert (small.kind, small.size) == ("box", (0.02, 0.04, 0.06))  # class thin
    (shadow,) = arm.visuals  # contype = conaffinity = 0: visual
    assert (shadow.kind, shadow.size) == ("ellipsoid", (0.3, 0.2, 0.1))
    (finger,) = hand.collisions
    assert (finger.kind, finger.size) == ("sphere", (0.04,))
    # joints: the thin class's axis and range (radian), hinge by the main default
    wrist = description.joints["wrist"]
    assert wrist.kind == "revolute" and wrist.limits == {"lower": -1.0, "upper": 2.0}
    assert np.array_equal(wrist.axis, [1.0, 0.0, 0.0])
    shoulder = description.joints["shoulder"]
    assert shoulder.kind == "continuous" and np.array_equal(shoulder.axis, [0.0, 1.0, 0.0])
    assert description.joints["base_weld"].kind == "fixed"
    assert description.joints["base_weld"].parent == "world"
    assert not description.moving("base") and description.moving("arm")
    # sources: the file's own lines
    text = path.read_text().splitlines()
    assert 'name="arm"' in text[arm.source.line - 1]
    assert "<inertial" in text[arm.inertial.source.line - 1]
    assert 'name="small"' in text[small.source.line - 1]
    compare_with_mujoco(path)


def test_fullinertia_and_diaginertia_with_quat_agree(tmp_path):
    """One tensor written both ways: fullinertia in the body axes, and its eigen-decomposition
    as diaginertia with the principal axes' quaternion."""
    full = np.array([[0.04, 0.003, -0.002], [0.003, 0.05, 0.001], [-0.002, 0.001, 0.06]])
    moments, axes = np.linalg.eigh(full)
    if np.linalg.det(axes) < 0:
        axes[:, 0] *= -1
    x, y, z, w = (float(v) for v in Rotation.from_matrix(axes).as_quat())
    f = [[float(v) for v in row] for row in full]
    m = [float(v) for v in moments]
    text = f"""
    <mujoco>
      <compiler inertiafromgeom="false"/>
      <worldbody>
        <body name="full"><freejoint/>
          <inertial pos="0.1 0.2 0.3" mass="3" fullinertia="{f[0][0]!r} {f[1][1]!r}
              {f[2][2]!r} {f[0][1]!r} {f[0][2]!r} {f[1][2]!r}"/>
        </body>
        <body name="diag"><freejoint/>
          <inertial pos="0.1 0.2 0.3" mass="3" quat="{w!r} {x!r} {y!r} {z!r}"
              diaginertia="{m[0]!r} {m[1]!r} {m[2]!r}"/>
        </body>
      </worldbody>
    </mujoco>
    """
    path = write(tmp_path, "inertia.xml", text)
    description = mjcf.read(path)
    full_read = description.links["full"].inertial
    diag_read = description.links["diag"].inertial
    assert full_read.layout == "mjcf-full" and diag_read.layout == "mjcf-diag"
    assert np.array_equal(full_read.inertia, full)
    assert np.array_equal(full_read.pose[0], np.eye(3))
    assert np.array_equal(np.diag(diag_read.inertia), moments)
    assert close(diag_read.inertia_in_link, full)
    assert close(full_read.inertia_in_link, diag_read.inertia_in_link)
    assert description.joints["full_joint"].kind == "floating"
    compare_with_mujoco(path)


@pytest.mark.parametrize(
    ("angle", "sequence", "scipy_sequence", "degrees"),
    [
        ("degree", "xyz", "XYZ", True),
        ("radian", "xyz", "XYZ", False),
        ("degree", "zyx", "ZYX", True),
        ("radian", "XYZ", "xyz", False),
        ("degree", "ZXZ", "zxz", True),
        ("radian", "zYx", None, False),  # mixed: checked against MuJoCo only
    ],
)
def test_euler_under_compiler_angle_and_eulerseq(
    tmp_path, angle, sequence, scipy_sequence, degrees
):
    angles = (30.0, -50.0, 75.0) if degrees else (0.3, -0.9, 1.2)
    text = f"""
    <mujoco>
      <compiler angle="{angle}" eulerseq="{sequence}" inertiafromgeom="false"/>
      <worldbody>
        <body name="b" euler="{angles[0]} {angles[1]} {angles[2]}">
          <joint type="hinge" range="-10 20"/>
          <inertial pos="0 0 0" mass="1" euler="{angles[2]} {angles[0]} {angles[1]}"
              diaginertia="1 2 2.5"/>
          <geom type="box" size="0.1 0.2 0.3" euler="{angles[1]} {angles[2]} {angles[0]}"/>
        </body>
      </worldbody>
    </mujoco>
    """
    path = write(tmp_path, "euler.xml", text)
    description = mjcf.read(path)
    rotation = link_pose_in_parent(description.joints["b_joint"])[0]
    if scipy_sequence is not None:
        expected = Rotation.from_euler(scipy_sequence, angles, degrees=degrees).as_matrix()
        assert close(rotation, expected, scale=1.0)
        inertial = Rotation.from_euler(scipy_sequence, angles[2:] + angles[:2], degrees=degrees)
        assert close(description.links["b"].inertial.pose[0], inertial.as_matrix(), scale=1.0)
    unit = math.pi / 180 if angle == "degree" else 1.0
    assert description.joints["b_joint"].limits == {"lower": -10 * unit, "upper": 20 * unit}
    compare_with_mujoco(path)


def test_fromto_capsule_cylinder_box_ellipsoid(tmp_path):
    text = """
    <mujoco>
      <compiler inertiafromgeom="false"/>
      <worldbody>
        <body name="b">
          <freejoint/>
          <inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>
          <geom type="capsule" size="0.05" fromto="0.1 0.2 0.3 0.4 -0.2 0.9"/>
          <geom type="cylinder" size="0.05" fromto="0 0 0 0 0 1"/>
          <geom type="box" size="0.05 0.07 0.3" fromto="0 0 0 0 0 -1"/>
          <geom type="ellipsoid" size="0.05 0.07 0.3" fromto="0 0 0 1 1 0"/>
        </body>
      </worldbody>
    </mujoco>
    """
    path = write(tmp_path, "fromto.xml", text)
    geoms = mjcf.read(path).links["b"].collisions
    capsule = geoms[0]
    start, end = np.array([0.1, 0.2, 0.3]), np.array([0.4, -0.2, 0.9])
    length = float(np.linalg.norm(end - start))
    assert capsule.kind == "capsule"
    assert capsule.size == pytest.approx((0.05, length), rel=1e-15)
    assert close(capsule.pose[1], (start + end) / 2, scale=1.0)
    # z along from - to (MuJoCo's compiler)
    assert close(capsule.pose[0][:, 2], (start - end) / length, scale=1.0)
    assert geoms[2].size == pytest.approx((0.1, 0.1, 1.0))  # box: x and y half-sizes both size[0]
    assert geoms[3].size == pytest.approx((0.05, 0.05, math.sqrt(2) / 2))
    compare_with_mujoco(path)


def test_joint_away_from_the_body_origin_and_ref(tmp_path):
    text = """
    <mujoco>
      <compiler angle="degree" inertiafromgeom="false"/>
      <worldbody>
        <body name="p" pos="0 0 1"><freejoint/>
          <inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>
          <body name="c" pos="0.5 0 0" euler="0 0 30">
            <joint name="h" type="hinge" pos="0.1 0.2 0.3" axis="0 0 2" ref="10"/>
            <inertial pos="0.2 0 0" mass="1" diaginertia="1 1 1"/>
            <body name="s" pos="0.3 0 0">
              <joint name="slider" type="slide" pos="-0.1 0 0" axis="1 1 0" range="0 0.5"/>
              <inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>
              <body name="b">
                <joint name="ball" type="ball" pos="0 0 0.1" range="0 45"/>
                <inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>
              </body>
            </body>
          </body>
        </body>
      </worldbody>
    </mujoco>
    """
    path = write(tmp_path, "joints.xml", text)
    description = mjcf.read(path)
    hinge = description.joints["h"]
    # the joint frame in the parent: the child's pose then the joint's position in it
    rotation = Rotation.from_euler("XYZ", [0, 0, 30], degrees=True).as_matrix()
    assert close(hinge.pose[1], np.array([0.5, 0, 0]) + rotation @ [0.1, 0.2, 0.3], scale=1.0)
    assert np.array_equal(hinge.axis, [0.0, 0.0, 1.0])
    # at q = ref the child sits where the file puts it
    turn = Rotation.from_rotvec(np.radians(10) * hinge.axis).as_matrix()
    placed = compose(compose(hinge.pose, (turn, np.zeros(3))), hinge.child_pose)
    assert close(placed[1], [0.5, 0, 0], scale=1.0)
    assert close(placed[0], rotation, scale=1.0)
    assert any("ref=10" in note for note in description.notes)
    slider = description.joints["slider"]
    assert slider.kind == "prismatic" and slider.limits == {"lower": 0.0, "upper": 0.5}
    # a slide's joint frame moves onto the child's frame; the off-axis hinge's cannot
    assert np.array_equal(slider.child_pose[0], np.eye(3))
    assert not np.any(slider.child_pose[1]) and np.any(hinge.child_pose[1])
    assert close(link_pose_in_parent(slider)[1], [0.3, 0, 0], scale=1.0)
    assert close(slider.axis, np.array([1, 1, 0]) / math.sqrt(2), scale=1.0)
    ball = description.joints["ball"]
    assert ball.kind == "ball" and ball.limits == {"upper": pytest.approx(math.pi / 4)}
    assert close(link_pose_in_parent(ball)[1], [0, 0, 0], scale=1.0)


def test_several_joints_in_one_body_keep_the_first_with_a_note(tmp_path):
    text = """
    <mujoco>
      <worldbody>
        <body name="b"><joint name="x" type="slide" axis="1 0 0"/>
          <joint name="y" type="slide" axis="0 1 0"/><geom size="0.1"/></body>
      </worldbody>
    </mujoco>
    """
    description = mjcf.read(write(tmp_path, "two.xml", text))
    assert list(description.joints) == ["x"]
    assert any("2 joints in one body (x, y)" in note for note in description.notes)
    assert description.links["b"].inertial is None


def test_includes_keep_their_own_file_and_line(tmp_path):
    write(
        tmp_path,
        "parts/arm.xml",
        """
    <mujoco>
      <body name="arm" pos="0 0 1">
        <joint name="j"/>
        <inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>
        <geom type="box" size="0.1 0.1 0.1"/>
      </body>
    </mujoco>
    """,
    )
    write(
        tmp_path,
        "defaults.xml",
        """
    <mujoco><default><geom rgba="1 0 0 1"/></default></mujoco>
    """,
    )
    main = write(
        tmp_path,
        "main.xml",
        """
    <mujoco>
      <include file="defaults.xml"/>
      <worldbody>
        <body name="base">
          <include file="parts/arm.xml"/>
        </body>
      </worldbody>
    </mujoco>
    """,
    )
    description = mjcf.read(main)
    arm = description.links["arm"]
    assert arm.source.file == str(tmp_path / "parts/arm.xml") and arm.source.line == 2
    assert arm.inertial.source.line == 4
    assert arm.collisions[0].rgba == (1.0, 0.0, 0.0, 1.0)
    assert description.joints["j"].parent == "base"


def test_include_errors(tmp_path):
    write(tmp_path, "a.xml", '<mujoco><include file="b.xml"/></mujoco>')
    write(tmp_path, "b.xml", '<mujoco>\n<include file="a.xml"/></mujoco>')
    main = write(tmp_path, "main.xml", '<mujoco>\n<include file="a.xml"/></mujoco>')
    with pytest.raises(rp.ModelError, match=r"b\.xml:2: .*cycle \(a\.xml -> b\.xml -> a\.xml\)"):
        mjcf.read(main)
    missing = write(tmp_path, "missing.xml", '<mujoco>\n\n<include file="nope.xml"/></mujoco>')
    with pytest.raises(rp.ModelError, match=r"missing\.xml:3: include@file='nope\.xml'"):
        mjcf.read(missing)


def test_meshes_with_scale_meshdir_and_search_path(tmp_path):
    trimesh = pytest.importorskip("trimesh")
    (tmp_path / "assets").mkdir()
    trimesh.creation.box((1, 1, 1)).export(tmp_path / "assets" / "cube.stl")
    (tmp_path / "elsewhere").mkdir()
    trimesh.creation.box((1, 1, 1)).export(tmp_path / "elsewhere" / "other.stl")
    text = """
    <mujoco>
      <compiler meshdir="assets"/>
      <asset>
        <mesh file="cube.stl" scale="0.001 0.002 0.003"/>
        <mesh name="far" file="other.stl"/>
        <mesh name="gone" file="gone.stl"/>
        <mesh name="inline" vertex="0 0 0 1 0 0 0 1 0 0 0 1" face="0 2 1 0 1 3 0 3 2 1 2 3"
              scale="2 2 2"/>
      </asset>
      <worldbody>
        <body name="b">
          <geom type="mesh" mesh="cube" pos="1 2 3"/>
          <geom type="mesh" mesh="far"/>
          <geom type="mesh" mesh="gone" contype="0" conaffinity="0"/>
          <geom type="mesh" mesh="inline"/>
        </body>
      </worldbody>
    </mujoco>
    """
    path = write(tmp_path, "meshes.xml", text)
    description = mjcf.read(path, search_path=[tmp_path / "elsewhere"])
    cube, far, inline = description.links["b"].collisions
    (gone,) = description.links["b"].visuals
    assert cube.kind == "mesh" and Path(cube.mesh) == tmp_path / "assets" / "cube.stl"
    assert cube.scale == (0.001, 0.002, 0.003) and np.array_equal(cube.pose[1], [1, 2, 3])
    assert Path(far.mesh) == tmp_path / "elsewhere" / "other.stl"
    assert gone.mesh is None and "gone.stl" in gone.missing
    assert inline.mesh is None and inline.vertices.shape == (4, 3) and inline.faces.shape == (4, 3)
    assert np.array_equal(inline.vertices[1], [2.0, 0.0, 0.0])
    assert not mjcf.read(path).links["b"].collisions[1].mesh  # without the search path


def test_an_inline_mesh_is_named_by_its_mjcf_name(tmp_path):
    """An inline mesh that bounds no solid (three triangles, one face of the tetrahedron
    missing) is named in the error by its ``<mesh name>``, not as an in-memory surface."""
    pytest.importorskip("trimesh")
    from rigidparts.formats.geometry import piece_body

    text = """
    <mujoco>
      <asset><mesh name="wedge" vertex="0 0 0 1 0 0 0 1 0 0 0 1" face="0 2 1 0 1 3 0 3 2"/></asset>
      <worldbody><body name="b"><geom type="mesh" mesh="wedge"/></body></worldbody>
    </mujoco>
    """
    (inline,) = mjcf.read(write(tmp_path, "open.xml", text)).links["b"].collisions
    assert inline.inline_name == "wedge"
    with pytest.raises(rp.ParameterError, match=r"^mesh='wedge': .*closed surface") as caught:
        piece_body(inline)
    assert "Trimesh" not in str(caught.value)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        (
            "<mujoco><worldbody>\n<body><geom size='1'></body></worldbody></mujoco>",
            r"bad\.xml:2: xml=.*mismatched tag",
        ),
        (
            "<mujoco><worldbody>\n<body name='a'>\n<geom size='1 x'/></body></worldbody></mujoco>",
            r"bad\.xml:3: body\[a\]/geom@size='1 x': bad format in attribute 'size'",
        ),
        (
            "<mujoco><worldbody>\n<body>\n<geom class='nope'/></body></worldbody></mujoco>",
            r"bad\.xml:3: .*unknown default class name 'nope'",
        ),
        (
            "<mujoco><worldbody>\n<body name='a'>\n<geom type='mesh' mesh='m'/></body></worldbody>"
            "</mujoco>",
            r"bad\.xml:3: body\[a\]/geom\[0\]@mesh='m': must name a <mesh>",
        ),
        (
            "<mujoco><worldbody><body name='a'/>\n<body name='a'/></worldbody></mujoco>",
            r"bad\.xml:2: .*repeated name 'a'",
        ),
        (
            "<mujoco><worldbody><body name='a'>\n<joint axis='0 0 0'/><geom size='1'/></body>"
            "</worldbody></mujoco>",
            r"bad\.xml:2: body\[a\]/joint\[a_joint\]@axis=.*must not be zero",
        ),
        ("<robot name='x'/>", r"bad\.xml:1: root='<robot>'"),
        (
            "<mujoco><worldbody><body name='a' quat='0 0 0 0'>\n</body></worldbody></mujoco>",
            r"bad\.xml:1: body\[a\]='<body name=\"a\" quat=\"0 0 0 0\">': zero quaternion",
        ),
    ],
)
def test_bad_files_are_one_model_error_with_file_and_line(tmp_path, text, match):
    path = write(tmp_path, "bad.xml", text)
    with pytest.raises(rp.ModelError, match=match) as info:
        mjcf.read(path)
    assert "\n" not in str(info.value)


def test_unknown_elements_and_attributes_are_noted_not_fatal(tmp_path):
    text = """
    <mujoco>
      <worldbody>
        <body name="a" colour="red">
          <sparkle/>
          <sparkle/>
          <geom size="0.1"/>
        </body>
      </worldbody>
      <gazebo/>
    </mujoco>
    """
    description = mjcf.read(write(tmp_path, "unknown.xml", text))
    assert "a" in description.links
    notes = "\n".join(description.notes)
    assert "<sparkle> in <body>" in notes and "and 1 more" in notes
    assert "attribute 'colour' of <body>" in notes and "<gazebo>" in notes


def test_compiler_settings_that_change_the_engines_values_are_noted(tmp_path):
    text = """
    <mujoco>
      <compiler inertiafromgeom="true" balanceinertia="true" boundmass="0.01"
                boundinertia="1e-6" settotalmass="5" inertiagrouprange="0 3"/>
      <worldbody><body name="a"><geom size="0.1"/></body><geom type="plane" size="1 1 1"/>
      </worldbody>
    </mujoco>
    """
    notes = "\n".join(mjcf.read(write(tmp_path, "c.xml", text)).notes)
    for word in (
        "inertiafromgeom",
        "balanceinertia",
        "boundmass",
        "boundinertia",
        "settotalmass",
        "inertiagrouprange",
        "1 geom of <worldbody>",
    ):
        assert word in notes


def test_geoms_inside_frames(tmp_path):
    text = """
    <mujoco>
      <compiler angle="radian" inertiafromgeom="false"/>
      <worldbody>
        <frame pos="1 0 0" euler="0 0 1.5">
          <body name="a" pos="0 1 0">
            <freejoint/>
            <inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>
            <frame pos="0 0 1" axisangle="1 0 0 0.5">
              <geom type="box" size="0.1 0.2 0.3" pos="0.1 0 0" euler="0.1 0.2 0.3"/>
              <geom type="capsule" size="0.1" fromto="0 0 0 0 1 0"/>
            </frame>
          </body>
        </frame>
      </worldbody>
    </mujoco>
    """
    compare_with_mujoco(write(tmp_path, "frames.xml", text))


def test_joints_inside_rotated_frames(tmp_path):
    """A joint's axis inside rotated ``<frame>``s (and a body inside one) against MuJoCo's
    ``jnt_axis`` (in the body), and one by hand."""
    text = """
    <mujoco>
      <compiler angle="degree" inertiafromgeom="false"/>
      <worldbody>
        <body name="base">
          <inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>
          <frame euler="0 0 90">
            <body name="a" pos="0.5 0 0">
              <joint type="hinge" axis="1 0 0"/>
              <inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>
            </body>
          </frame>
          <body name="b" pos="0 0 1">
            <frame pos="0 0.2 0" euler="30 0 0">
              <frame axisangle="0 1 0 45">
                <joint type="hinge" axis="0 0 2" pos="0.1 0 0" range="-30 40"/>
              </frame>
            </frame>
            <inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>
          </body>
          <body name="c" pos="1 0 0">
            <frame euler="0 90 0">
              <joint type="slide" axis="0 1 1"/>
            </frame>
            <inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>
          </body>
        </body>
      </worldbody>
    </mujoco>
    """
    path = write(tmp_path, "joint_frames.xml", text)
    compare_with_mujoco(path)
    joint = mjcf.read(path).parent_joint("c")
    x_cj = joint.child_pose[0].T
    # by hand: euler="0 90 0" turns (0, 1, 1) about y into (1, 1, 0)
    assert close(x_cj @ joint.axis, np.array([1.0, 1.0, 0.0]) / math.sqrt(2.0), scale=1.0)


@settings(max_examples=25, deadline=None)
@given(
    angles=st.lists(st.floats(-179.0, 179.0), min_size=3, max_size=3),
    sequence=st.sampled_from(["xyz", "zyx", "xzx", "yxz", "XYZ", "ZYX", "ZXZ"]),
    full=st.lists(st.floats(-1.0, 1.0), min_size=3, max_size=3),
)
def test_any_euler_and_fullinertia_match_mujoco(tmp_path_factory, angles, sequence, full):
    """Random orientations and full tensors (made physical: a diagonal that dominates)."""
    m11, m22, m33 = 4.0 + full[0], 5.0 + full[1], 6.0 + full[2]
    text = f"""
    <mujoco>
      <compiler angle="degree" eulerseq="{sequence}" inertiafromgeom="false"/>
      <worldbody>
        <body name="a" euler="{angles[0]!r} {angles[1]!r} {angles[2]!r}">
          <freejoint/>
          <inertial pos="0.1 0.2 0.3" mass="2" fullinertia="{m11!r} {m22!r} {m33!r}
              {full[0] / 3!r} {full[1] / 3!r} {full[2] / 3!r}"/>
          <geom type="box" size="0.1 0.2 0.3" euler="{angles[2]!r} {angles[0]!r} {angles[1]!r}"/>
        </body>
      </worldbody>
    </mujoco>
    """
    path = write(tmp_path_factory.mktemp("h"), "h.xml", text)
    compare_with_mujoco(path)
    scipy_sequence = sequence.swapcase()
    expected = Rotation.from_euler(scipy_sequence, angles, degrees=True).as_matrix()
    rotation = link_pose_in_parent(mjcf.read(path).joints["a_joint"])[0]
    assert close(rotation, expected, scale=1.0)


# -- this project's exports -----------------------------------------------------------------------

EXAMPLES = sorted(Path(__file__).resolve().parents[1].glob("examples/*.toml"))


@pytest.mark.parametrize("example", [p for p in EXAMPLES if p.stem == "serial_arm"] or EXAMPLES[:1])
def test_own_export_reads_back_the_models_mass_properties(tmp_path, example):
    model = rp.load_model(example)
    path = tmp_path / "m.xml"
    rp.export_model(model, path)
    description = mjcf.read(path)
    world = model.body_mass_properties()
    poses = model.body_poses()
    for name, properties in world.items():
        rotation, origin = poses[name]
        inertial = description.links[name].inertial
        assert inertial.mass == pytest.approx(properties.mass, rel=1e-15)
        com = rotation.T @ (properties.center_of_mass - origin)
        inertia = rotation.T @ properties.inertia @ rotation
        assert close(inertial.center_of_mass, com, scale=max(1.0, np.abs(origin).max()))
        assert close(inertial.inertia_in_link, inertia)
    compare_with_mujoco(path)


# -- real files nobody here wrote ---------------------------------------------------------------


def _installed(package: str, pattern: str) -> list[str]:
    try:
        module = __import__(package)
    except ImportError:
        return []
    root = (
        Path(module.__file__).parent if package != "pybullet_data" else Path(module.getDataPath())
    )
    return sorted(glob.glob(os.path.join(root, pattern), recursive=True))


REAL = (
    _installed("pybullet_data", "mjcf/*.xml")
    + _installed("mujoco", "testdata/*.xml")
    + _installed("newton", "**/assets/*.xml")
)


@pytest.mark.skipif(not REAL, reason="no package with MJCF files installed")
@pytest.mark.parametrize("path", REAL, ids=[Path(p).name for p in REAL])
def test_real_files_read(path):
    description = mjcf.read(path)
    for joint in description.joints.values():
        assert joint.child in description.links
        assert joint.parent == "world" or joint.parent in description.links


def test_older_mjcf_and_pybullets_dialect(tmp_path):
    text = """
    <mujoco>
      <compiler coordinate="global"/>
      <worldbody>
        <body name="a">
          <joint name="weld" type="fixed"/>
          <inertial mass="2" diaginertia="1 1 1"/>
          <geom type="capsule" size="0.1" fromto="0 0 0 0 0 1"/>
        </body>
      </worldbody>
    </mujoco>
    """
    description = mjcf.read(write(tmp_path, "old.xml", text))
    assert description.joints["a_weld"].kind == "fixed"
    assert np.array_equal(description.links["a"].inertial.center_of_mass, [0.0, 0.0, 0.0])
    notes = "\n".join(description.notes)
    assert "coordinate='global'" in notes and "type='fixed'" in notes and "without pos" in notes
    placed = text.replace('<body name="a">', '<body name="a" pos="0 0 1">')
    with pytest.raises(rp.ModelError, match=r"old\.xml:2: compiler@coordinate='global'"):
        mjcf.read(write(tmp_path, "old.xml", placed))


def test_a_chain_deeper_than_mujocos_parser_takes_is_one_error(tmp_path):
    body = '<body name="b{i}" pos="0 0 0.1"><joint/><geom size="0.02"/>\n'
    depth = 600
    text = (
        "<mujoco><worldbody>\n"
        + "".join(body.format(i=i) for i in range(depth))
        + "</body>" * depth
        + "</worldbody></mujoco>"
    )
    path = tmp_path / "deep.xml"
    path.write_text(text)
    with pytest.raises(rp.ModelError, match=r"deep\.xml:\d+: .*nested too deeply") as info:
        mjcf.read(path)
    assert "\n" not in str(info.value)


def test_a_thousand_bodies_read_in_bounded_time(tmp_path):
    """Not a timing assertion (the machine is shared): it reads, every body is there."""
    body = (
        '<body name="b{i}" pos="0 0 0.1"><joint axis="0 1 0" range="-1 1"/>'
        '<inertial pos="0 0 0.05" mass="1" diaginertia="0.1 0.1 0.01"/>'
        '<geom type="capsule" fromto="0 0 0 0 0 0.1" size="0.02"/></body>\n'
    )
    text = "<mujoco><worldbody>\n" + "".join(body.format(i=i) for i in range(1000))
    path = tmp_path / "many.xml"
    path.write_text(text + "</worldbody></mujoco>")
    description = mjcf.read(path)
    assert len(description.links) == 1000
    assert description.links["b999"].source.line == 1001


@settings(max_examples=40, deadline=None)
@given(
    kind=st.sampled_from(["fixed", "prismatic", "revolute", "continuous", "ball"]),
    angles=st.lists(st.floats(-3.0, 3.0), min_size=6, max_size=6),
    offsets=st.lists(st.floats(-1.0, 1.0), min_size=3, max_size=3),
    q=st.floats(-2.0, 2.0),
    along=st.one_of(st.just(0.0), st.floats(1e-6, 1.0), st.floats(-1.0, -1e-6)),
    off=st.one_of(st.just(0.0), st.floats(1e-6, 1.0)),
    turn=st.floats(0.0, 2.0 * math.pi),
)
def test_folding_the_child_pose_keeps_the_motion(kind, angles, offsets, q, along, off, turn):
    """``X_PJ J(q) X_JC`` before and after :func:`fold_child_pose`, for every q; folded only
    where it is exact (and then X_J'C is the identity). The child's origin is either exactly
    on the axis line or at least 1e-6 off it (``off``), and either at J's origin or at least
    1e-6 along the axis, far from the reader's 1e-12 folding tolerance either way."""
    from rigidparts.formats.description import fold_child_pose

    x_pj = (Rotation.from_rotvec(angles[:3]).as_matrix(), np.array(offsets))
    axis = np.array([0.6, 0.0, 0.8])
    across = math.cos(turn) * np.array([0.0, 1.0, 0.0]) + math.sin(turn) * np.array(
        [-0.8, 0.0, 0.6]
    )  # a unit vector perpendicular to the axis
    r_jc = Rotation.from_rotvec(angles[3:]).as_matrix()
    p_jc = along * axis + off * across
    x_jc = (r_jc, p_jc)

    def motion(pose, axis_, child, q_):
        if kind == "prismatic":
            step = (np.eye(3), q_ * axis_)
        elif kind in ("revolute", "continuous"):
            step = (Rotation.from_rotvec(q_ * axis_).as_matrix(), np.zeros(3))
        else:
            step = (np.eye(3), np.zeros(3))
        return compose(compose(pose, step), child)

    pose, moved_axis, child = fold_child_pose(kind, x_pj, None if kind == "ball" else axis, x_jc)
    if kind == "ball":
        moved_axis = axis  # no motion modelled here: only the placement must agree
    before = motion(x_pj, axis, x_jc, q)
    after = motion(pose, moved_axis, child, q)
    assert close(after[0], before[0], scale=1.0)
    assert close(after[1], before[1], scale=1.0)
    folded = np.array_equal(child[0], np.eye(3)) and not np.any(child[1])
    if kind in ("revolute", "continuous"):  # the child's origin on the axis line
        exact = off == 0.0
    elif kind == "ball":
        exact = off == 0.0 and along == 0.0
    else:
        exact = True
    assert folded == exact
