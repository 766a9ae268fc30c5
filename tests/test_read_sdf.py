"""The SDFormat reader (rigidparts.formats.sdf): poses and frames, versions, what it refuses.

References that are not the reader: rotations built here from explicit Rz Ry Rx products;
Drake's parser (libsdformat underneath) on the same files, for the frame semantics of 1.4 to
1.9 (joint frames, child frames, axes, link poses, spatial inertias); mass properties from the
Model the file was exported from; numbers typed into the fixtures or read off real files.
"""

from __future__ import annotations

import importlib.util
import math
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import rigidparts as rp
from rigidparts.errors import ModelError
from rigidparts.formats import sdf
from rigidparts.transforms import IDENTITY, compose, invert

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

HAS_DRAKE = importlib.util.find_spec("pydrake") is not None
needs_drake = pytest.mark.skipif(not HAS_DRAKE, reason="pydrake absent")


def rpy(roll: float, pitch: float, yaw: float) -> np.ndarray:
    """``Rz(yaw) Ry(pitch) Rx(roll)`` written out (SDFormat's convention)."""
    cr, sr, cp, sp, cy, sy = (
        math.cos(roll), math.sin(roll), math.cos(pitch), math.sin(pitch),
        math.cos(yaw), math.sin(yaw),
    )  # fmt: skip
    rz = np.array([[cy, -sy, 0], [sy, cy, 0], [0, 0, 1]])
    ry = np.array([[cp, 0, sp], [0, 1, 0], [-sp, 0, cp]])
    rx = np.array([[1, 0, 0], [0, cr, -sr], [0, sr, cr]])
    return rz @ ry @ rx


def pose(x: float, y: float, z: float, r: float, p: float, w: float) -> tuple:
    return rpy(r, p, w), np.array([x, y, z])


def write(folder: Path, text: str, name: str = "model.sdf") -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def model(body: str, version: str = "1.9", name: str = "m") -> str:
    return (
        f'<?xml version="1.0"?>\n<sdf version="{version}">\n<model name="{name}">\n{body}\n'
        "</model>\n</sdf>\n"
    )


INERTIA = (
    "<inertia><ixx>1</ixx><ixy>0</ixy><ixz>0</ixz><iyy>1</iyy><iyz>0</iyz><izz>1</izz></inertia>"
)


def link(name: str, pose_text: str = "", extra: str = "") -> str:
    pose_element = f"<pose>{pose_text}</pose>" if pose_text else ""
    return (
        f'<link name="{name}">{pose_element}<inertial><mass>1</mass>{INERTIA}</inertial>'
        f"{extra}</link>"
    )


def link_poses(description) -> dict:
    """Each link's frame at zero position in the world: ``X_PJ X_JC`` down the tree."""
    poses = {}
    for name in description.links:
        chain, current = [], name
        while (joint := description.parent_joint(current)) is not None:
            chain.append(joint)
            current = joint.parent
        x = IDENTITY
        for joint in reversed(chain):
            x = compose(compose(x, joint.pose), joint.child_pose)
        poses[name] = x
    return poses


def close(a: tuple, b: tuple, atol: float = 1e-14) -> None:
    np.testing.assert_allclose(a[0], b[0], rtol=0, atol=atol)
    np.testing.assert_allclose(a[1], b[1], rtol=0, atol=atol)


def refused(tmp_path: Path, text: str, *, line: int | None, words: tuple[str, ...]) -> ModelError:
    path = write(tmp_path, text)
    with pytest.raises(ModelError) as info:
        sdf.read(path)
    error = info.value
    message = str(error)
    assert "\n" not in message
    assert error.source == str(path) and error.line == line, message
    for word in words:
        assert word in message, message
    return error


# -- features ----------------------------------------------------------------------------------


def test_inertial_as_declared(tmp_path: Path) -> None:
    text = model(
        """<link name="arm"><pose>1 2 3 0 0 0</pose>
<inertial>
  <pose>0.1 -0.2 0.3 0.4 -0.5 0.6</pose>
  <mass>2.5</mass>
  <inertia><ixx>0.11</ixx><ixy>-0.012</ixy><ixz>0.013</ixz><iyy>0.22</iyy><iyz>-0.023</iyz>
  <izz>0.33</izz></inertia>
</inertial></link>"""
    )
    description = sdf.read(write(tmp_path, text))
    inertial = description.links["arm"].inertial
    assert inertial is not None and inertial.mass == 2.5
    assert inertial.center_of_mass.tolist() == [0.1, -0.2, 0.3]  # in the link frame
    np.testing.assert_allclose(inertial.pose[0], rpy(0.4, -0.5, 0.6), atol=1e-15)
    assert inertial.inertia.tolist() == [
        [0.11, -0.012, 0.013], [-0.012, 0.22, -0.023], [0.013, -0.023, 0.33],
    ]  # fmt: skip
    assert inertial.layout == "sdf" and inertial.given == {"mass", "center_of_mass", "inertia"}
    assert inertial.source.line == 5 and inertial.source.element == "link[arm]/inertial"
    assert description.format == "sdf" and description.name == "m"
    # a link no joint holds floats: a floating joint from the world at its pose says so
    free = description.joints["arm_free"]
    assert (free.kind, free.parent, free.child) == ("floating", "world", "arm")
    assert free.pose[1].tolist() == [1, 2, 3]
    assert description.root == "arm" and description.moving("arm")
    assert "no parent joint; they float" in " | ".join(description.notes)


def test_inertial_defaults_and_absence(tmp_path: Path) -> None:
    text = model(
        """<link name="a"><inertial><mass>3</mass></inertial></link>
<link name="b"><inertial><inertia><ixx>2</ixx><iyy>3</iyy></inertia></inertial></link>
<link name="c"/>"""
    )
    description = sdf.read(write(tmp_path, text))
    a = description.links["a"].inertial
    assert a is not None and a.mass == 3.0 and np.array_equal(a.inertia, np.eye(3))
    assert a.given == {"mass", "center_of_mass"} and a.layout == "absent"
    b = description.links["b"].inertial
    assert b is not None and b.mass == 1.0  # SDFormat's default mass
    assert np.array_equal(b.inertia, np.diag([2.0, 3.0, 1.0])) and b.given == {"center_of_mass"}
    assert description.links["c"].inertial is None
    notes = " | ".join(description.notes)
    assert "4 of the six entries are absent" in notes
    assert "1 link(s) have no <inertial> (c)" in notes


def test_link_poses_relative_to_frames(tmp_path: Path) -> None:
    """relative_to a link, a <frame> (attached and posed relative to others), __model__,
    degrees and quaternions: each link's pose in the model frame, built here by hand."""
    q = (0.1, 0.2, 0.3, math.sqrt(1 - 0.14))  # x y z w
    text = model(
        f"""<frame name="f" attached_to="a"><pose relative_to="a">0.1 0 0 0 0 0.5</pose></frame>
{link("a", "1 0 0 0.1 0.2 0.3")}
<link name="b"><pose relative_to="f">0 0.2 0 0 0.3 0</pose></link>
<link name="c"><pose relative_to="b" degrees="true">0 0 0.3 90 0 0</pose></link>
<link name="d"><pose rotation_format="quat_xyzw">0.5 0.5 0.5 {q[0]} {q[1]} {q[2]} {q[3]}</pose>
</link>
<link name="e"><pose relative_to="__model__">0 0 1 0 0 0</pose></link>"""
    )
    poses = link_poses(sdf.read(write(tmp_path, text)))
    x_ma = pose(1, 0, 0, 0.1, 0.2, 0.3)
    x_mf = compose(x_ma, pose(0.1, 0, 0, 0, 0, 0.5))
    x_mb = compose(x_mf, pose(0, 0.2, 0, 0, 0.3, 0))
    close(poses["a"], x_ma)
    close(poses["b"], x_mb)
    close(poses["c"], compose(x_mb, pose(0, 0, 0.3, math.pi / 2, 0, 0)))
    x, y, z, w = q  # the rotation matrix of a unit quaternion, written out
    r_d = np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])  # fmt: skip
    close(poses["d"], (r_d, np.array([0.5, 0.5, 0.5])))
    close(poses["e"], (np.eye(3), np.array([0, 0, 1.0])))


def test_joint_frames_in_the_description_convention(tmp_path: Path) -> None:
    """SDFormat poses a joint in its child's frame; the description wants X_PJ (parent link
    frame) and X_JC (child link in the joint frame)."""
    text = model(
        f"""{link("p", "0.1 0.2 0.3 0.3 0.2 0.1")}
{link("c", "0.5 0.1 0.2 0.5 -0.4 0.3")}
<joint name="j" type="revolute"><parent>p</parent><child>c</child>
<pose>0.01 0.02 0.03 0.2 0.1 0.3</pose>
<axis><xyz>0 0 2</xyz><limit><lower>-1</lower><upper>2</upper><effort>3</effort>
<velocity>4</velocity></limit></axis></joint>
<joint name="weld" type="fixed"><parent>world</parent><child>p</child></joint>"""
    )
    description = sdf.read(write(tmp_path, text))
    joint = description.joints["j"]
    x_mp = pose(0.1, 0.2, 0.3, 0.3, 0.2, 0.1)
    x_mc = pose(0.5, 0.1, 0.2, 0.5, -0.4, 0.3)
    x_cj = pose(0.01, 0.02, 0.03, 0.2, 0.1, 0.3)
    close(joint.pose, compose(invert(x_mp), compose(x_mc, x_cj)))
    close(joint.child_pose, invert(x_cj))
    assert joint.axis.tolist() == [0, 0, 1]
    assert dict(joint.limits) == {"lower": -1.0, "upper": 2.0, "effort": 3.0, "velocity": 4.0}
    weld = description.joints["weld"]
    assert weld.parent == "world" and weld.kind == "fixed"
    close(weld.pose, x_mp)  # the joint sits at the child: the world-to-p pose
    assert description.roots == ["p"]
    assert "length 2, normalised" in " | ".join(description.notes)


def test_axis_frames(tmp_path: Path) -> None:
    """expressed_in (1.7+), use_parent_model_frame (1.5, 1.6) and 1.4's model frame: the axis
    brought into the joint frame, R_JM a_M."""
    x_mc = pose(0.5, 0.1, 0.2, 0.5, -0.4, 0.3)
    x_cj = pose(0, 0, 0, 0.2, 0.1, 0.3)
    r_jm = (x_mc[0] @ x_cj[0]).T
    body = (
        f"{link('p')}{link('c', '0.5 0.1 0.2 0.5 -0.4 0.3')}"
        '<joint name="j" type="revolute"><parent>p</parent><child>c</child>'
        "<pose>0 0 0 0.2 0.1 0.3</pose><axis>{axis}</axis></joint>"
    )
    cases = [
        ("1.9", '<xyz expressed_in="__model__">0 1 0</xyz>', r_jm @ [0, 1, 0]),
        ("1.9", '<xyz expressed_in="c">0 1 0</xyz>', x_cj[0].T @ [0, 1, 0]),
        ("1.9", "<xyz>0 1 0</xyz>", np.array([0, 1, 0])),
        ("1.6", "<xyz>0 1 0</xyz><use_parent_model_frame>true</use_parent_model_frame>",
         r_jm @ [0, 1, 0]),
        ("1.5", "<xyz>0 1 0</xyz><use_parent_model_frame>0</use_parent_model_frame>",
         np.array([0, 1, 0])),
        ("1.4", "<xyz>0 1 0</xyz>", r_jm @ [0, 1, 0]),
        ("1.9", "", np.array([0, 0, 1])),  # SDFormat's default axis: z
    ]  # fmt: skip
    for version, axis, expected in cases:
        path = write(tmp_path, model(body.format(axis=axis), version))
        np.testing.assert_allclose(
            sdf.read(path).joints["j"].axis, expected, rtol=0, atol=1e-15, err_msg=axis
        )


def test_nested_models_and_joint_to_a_frame(tmp_path: Path) -> None:
    text = model(
        f"""{link("base")}
<model name="hand"><pose relative_to="base">0 0 1 0 0 0</pose>
  {link("palm", "0.1 0 0 0 0 0")}
  <model name="finger">{link("tip", "0 0.1 0 0 0 0")}</model>
  <joint name="knuckle" type="fixed"><parent>palm</parent><child>finger::tip</child></joint>
  <frame name="grip" attached_to="palm"><pose>0 0 0.2 0 0 0</pose></frame>
</model>
<joint name="wrist" type="revolute"><parent>base</parent><child>hand::grip</child>
<axis><xyz>1 0 0</xyz></axis></joint>"""
    )
    description = sdf.read(write(tmp_path, text))
    assert list(description.links) == ["base", "hand::palm", "hand::finger::tip"]
    knuckle = description.joints["hand::knuckle"]
    assert (knuckle.parent, knuckle.child) == ("hand::palm", "hand::finger::tip")
    wrist = description.joints["wrist"]
    # a joint's child may be a frame: the link it is attached to is the child, and the joint
    # frame (in the frame `grip`, the default) sits at grip
    assert (wrist.parent, wrist.child) == ("base", "hand::palm")
    close(wrist.pose, (np.eye(3), np.array([0.1, 0, 1.2])))
    close(wrist.child_pose, (np.eye(3), np.array([0, 0, -0.2])))
    poses = link_poses(description)
    close(poses["hand::finger::tip"], (np.eye(3), np.array([0, 0.1, 1.0])))


def test_world_files_and_includes(tmp_path: Path) -> None:
    models = tmp_path / "models"
    write(
        models / "widget",
        '<?xml version="1.0"?><model><name>widget</name><sdf version="1.6">old.sdf</sdf>'
        '<sdf version="1.9">widget.sdf</sdf></model>',
        "model.config",
    )
    write(models / "widget", model(link("body", "0 0 0.1 0 0 0"), "1.9", "widget"), "widget.sdf")
    write(models / "widget" / "meshes", "v 0 0 0\n", "w.obj")
    mesh = (
        '<visual name="v"><geometry><mesh><uri>model://widget/meshes/w.obj</uri>'
        "<scale>2 2 2</scale></mesh></geometry></visual>"
    )
    text = f"""<?xml version="1.0"?>
<sdf version="1.9"><world name="w">
<physics type="ode"/><light name="sun" type="directional"/>
<model name="robot">{link("base", "1 0 0 0 0 0", mesh)}</model>
<include><uri>model://widget</uri><name>w1</name><pose>0 2 0 0 0 0</pose></include>
<include><uri>model://widget</uri><name>w2</name></include>
<include><uri>model://widget</uri><name>w3</name><static>true</static></include>
<joint name="glue" type="fixed"><parent>robot::base</parent><child>w1::body</child></joint>
</world></sdf>
"""
    description = sdf.read(write(tmp_path, text, "world.sdf"), search_path=[models])
    assert description.name == "w"
    assert list(description.links) == ["robot::base", "w1::body", "w2::body", "w3::body"]
    assert description.joints["w2::body_free"].kind == "floating"
    assert description.joints["w3::body_weld"].kind == "fixed"  # the include says static
    visual = description.links["robot::base"].visuals[0]
    assert visual.mesh == str(models / "widget" / "meshes" / "w.obj")
    assert visual.scale == (2.0, 2.0, 2.0)
    glue = description.joints["glue"]
    assert (glue.parent, glue.child) == ("robot::base", "w1::body")
    poses = link_poses(description)
    close(poses["w1::body"], (np.eye(3), np.array([0, 2, 0.1])))
    close(poses["w2::body"], (np.eye(3), np.array([0, 0, 0.1])))
    # without the search path the include is not found: a clear error at its line
    with pytest.raises(ModelError, match=r"model://widget.*no model found"):
        sdf.read(tmp_path / "world.sdf")


def test_geometry_of_every_kind_and_colour(tmp_path: Path) -> None:
    text = model(
        """<link name="a">
<collision name="b"><pose>0 0 0.5 0 1.5707963267948966 0</pose>
  <geometry><box><size>0.1 0.2 0.3</size></box></geometry></collision>
<collision name="c"><geometry><cylinder><radius>0.05</radius><length>0.4</length></cylinder>
  </geometry></collision>
<collision name="s"><geometry><sphere><radius>0.07</radius></sphere></geometry></collision>
<collision name="k"><geometry><capsule><radius>0.02</radius><length>0.3</length></capsule>
  </geometry></collision>
<collision name="e"><geometry><ellipsoid><radii>0.1 0.2 0.3</radii></ellipsoid></geometry>
  </collision>
<collision name="p"><geometry><plane><normal>0 0 1</normal><size>5 6</size></plane></geometry>
  </collision>
<collision name="h"><geometry><heightmap><uri>h.png</uri></heightmap></geometry></collision>
<collision name="n"><geometry><empty/></geometry></collision>
<visual name="v"><geometry><mesh><uri>absent.dae</uri></mesh></geometry>
  <material><ambient>0 0 1 1</ambient><diffuse>1 0 0 0.5</diffuse></material></visual>
<visual name="w"><geometry><sphere><radius>1</radius></sphere></geometry>
  <material><ambient>0 0 1</ambient></material></visual>
</link>"""
    )
    link_ = sdf.read(write(tmp_path, text)).links["a"]
    assert [(g.name, g.kind, g.size) for g in link_.collisions] == [
        ("b", "box", (0.1, 0.2, 0.3)),
        ("c", "cylinder", (0.05, 0.4)),
        ("s", "sphere", (0.07,)),
        ("k", sdf.CAPSULE, (0.02, 0.3)),
        ("e", sdf.ELLIPSOID, (0.1, 0.2, 0.3)),
        ("p", sdf.PLANE, (5.0, 6.0)),
        ("h", sdf.HEIGHTFIELD, ()),
    ]
    np.testing.assert_allclose(link_.collisions[0].pose[0], rpy(0, math.pi / 2, 0), atol=1e-15)
    mesh, ball = link_.visuals
    assert mesh.mesh is None and "absent.dae" in (mesh.missing or "")
    assert mesh.rgba == (1.0, 0.0, 0.0, 0.5) and ball.rgba == (0.0, 0.0, 1.0, 1.0)


def test_older_files_and_a_link_named_world(tmp_path: Path) -> None:
    """pybullet's SDF files (1.6) name a link `world` and weld to it: it is a link."""
    text = model(
        f"""{link("world")}{link("base", "0 0 1 0 0 0")}
<joint name="j" type="fixed"><parent>world</parent><child>base</child></joint>""",
        "1.6",
    )
    description = sdf.read(write(tmp_path, text))
    assert list(description.links) == ["world", "base"]
    assert description.joints["j"].parent == "world"
    assert description.roots == ["world"]


def test_static_models_are_welded(tmp_path: Path) -> None:
    text = model(f"<static>true</static>{link('slab', '0 0 -1 0 0 0')}")
    description = sdf.read(write(tmp_path, text))
    weld = description.joints["slab_weld"]
    assert (weld.kind, weld.parent) == ("fixed", "world") and weld.pose[1].tolist() == [0, 0, -1]
    assert not description.moving("slab")


def test_unknown_elements_are_noted(tmp_path: Path) -> None:
    text = model(
        f"""<plugin name="p" filename="x"/><drake:joint name="q"/>
{link("a", extra="<sensor name='s'/><bogus/>")}{link("b", extra="<bogus/>")}
<joint name="j" type="ball"><parent>a</parent><child>b</child><drake:x/></joint>"""
    )
    notes = sdf.read(write(tmp_path, text)).notes
    assert [n.split(":")[0] for n in notes if n.startswith("ignored")] == [
        "ignored <drake",
        "ignored <bogus> in <link> (2 elements, first 5)",
        "ignored <drake",
    ]


finite = st.floats(-3.0, 3.0, allow_nan=False)
poses = st.tuples(*[finite] * 6)


@given(parent=poses, child=poses, joint=poses)
def test_joint_conversion_keeps_every_frame(parent: tuple, child: tuple, joint: tuple) -> None:
    """Whatever the poses: X_MP X_PJ = X_MC X_CJ (the joint frame where the file puts it)
    and X_MP X_PJ X_JC = X_MC (the child where the file puts it), to rounding."""
    text = model(
        f"""{link("p", " ".join(map(repr, parent)))}{link("c", " ".join(map(repr, child)))}
<joint name="j" type="ball"><parent>p</parent><child>c</child>
<pose>{" ".join(map(repr, joint))}</pose></joint>"""
    )
    with tempfile.TemporaryDirectory() as folder:
        description = sdf.read(write(Path(folder), text))
    x_mp, x_mc, x_cj = pose(*parent), pose(*child), pose(*joint)
    found = description.joints["j"]
    close(compose(x_mp, found.pose), compose(x_mc, x_cj), atol=1e-14)
    close(compose(compose(x_mp, found.pose), found.child_pose), x_mc, atol=1e-14)


# -- refusals ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ('<sdf version="1.9">\n<model name="m">\n</sdf>\n', 3, ("mismatched tag",)),
        ('<sdf>\n<model name="m"/></sdf>\n', 1, ("sdf@version", "must have the attribute")),
        ('<sdf version="one">\n<model name="m"/></sdf>\n', 1, ("a version such as 1.9",)),
        ('<robot name="r"/>\n', 1, ("root must be <sdf>",)),
        ('<sdf version="1.9">\n<light name="l"/></sdf>\n', 1, ("must hold a <model>",)),
        ('<sdf version="1.9">\n<model name="m"/></sdf>\n', 1, ("the file has no <link>",)),
        (model(link("a") + "\n<link/>"), 5, ("link@name", "must have the attribute 'name'")),
        (
            model(link("a") + "\n" + link("a")),
            5,
            ("link[a]@name='a'", "the name is taken (by the link at line 4)"),
        ),
        (
            model('<link name="a"><inertial>\n<mass>heavy</mass></inertial></link>'),
            5,
            ("link[a]/inertial/mass='heavy'", "must be a number"),
        ),
        (
            model('<link name="a">\n<pose>0 0 0 0 0</pose></link>'),
            5,
            ("link[a]/pose", "must be 6 numbers"),
        ),
        (
            model('<link name="a">\n<pose>0 0 inf 0 0 0</pose></link>'),
            5,
            ("must be finite",),
        ),
        (
            model(
                '<link name="a"><collision name="c"><geometry>\n<box/></geometry></collision>'
                "</link>"
            ),
            5,
            ("link[a]/collision[c]/geometry/box/size", "must have a <size>"),
        ),
        (
            model(
                link("a") + link("b") + '\n<joint name="j" type="hinge"><parent>a</parent>'
                "<child>b</child></joint>"
            ),
            5,
            ("joint[j]@type='hinge'", "unknown joint type"),
        ),
        (
            model(
                link("a") + link("b") + '\n<joint name="j" type="universal"><parent>a</parent>'
                "<child>b</child></joint>"
            ),
            5,
            ("joint[j]@type='universal'", "no equivalent"),
        ),
        (
            model(
                link("a") + link("b") + '\n<joint name="j" type="fixed"><parent>a</parent></joint>'
            ),
            5,
            ("joint[j]/child", "must have a <child>"),
        ),
        (
            model(
                link("a") + '\n<joint name="j" type="fixed"><parent>a</parent>'
                "<child>ghost</child></joint>"
            ),
            5,
            ("joint[j]/child='ghost'", "names no frame"),
        ),
        (
            model(
                link("a")
                + link("b")
                + link("c")
                + '\n<joint name="j1" type="fixed"><parent>a</parent><child>c</child></joint>'
                + '\n<joint name="j2" type="fixed"><parent>b</parent><child>c</child></joint>'
            ),
            6,
            ("joint[j2]/child='c'", "already the child of joint 'j1' (line 5)"),
        ),
        (
            model(
                link("a")
                + link("b")
                + '\n<joint name="j1" type="fixed"><parent>a</parent><child>b</child></joint>'
                + '\n<joint name="j2" type="fixed"><parent>b</parent><child>a</child></joint>'
            ),
            5,
            ("the joints form a cycle (b -> a -> b)",),
        ),
        (
            model(
                '<link name="a">\n<pose relative_to="b">0 0 0 0 0 0</pose></link>'
                '\n<link name="b"><pose relative_to="a">0 0 0 0 0 0</pose></link>'
            ),
            4,
            ("relative_to form a cycle",),
        ),
        (
            model('<link name="a">\n<pose relative_to="nowhere">0 0 0 0 0 0</pose></link>'),
            4,
            ("link[a]/pose@relative_to='nowhere'", "names no frame"),
        ),
        (
            model(
                link("a") + '\n<joint name="j" type="fixed"><parent>a</parent>'
                "<child>world</child></joint>"
            ),
            5,
            ("the world cannot be a joint's child",),
        ),
        (
            model(
                link("a") + link("b") + '\n<joint name="j" type="revolute"><parent>a</parent>'
                "<child>b</child><axis><xyz>0 0 0</xyz></axis></joint>"
            ),
            5,
            ("joint[j]/axis/xyz", "non-zero"),
        ),
        (
            model('<link name="a">\n<pose rotation_format="quat_xyzw">0 0 0 0 0 0 0</pose></link>'),
            5,
            ("link[a]/pose", "the quaternion must not be zero"),
        ),
        (
            model("<include>\n<uri>model://nothing</uri></include>" + link("a")),
            5,
            ("include[model://nothing]", "no model found"),
        ),
    ],
)
def test_refusals(tmp_path: Path, text: str, line: int | None, words: tuple[str, ...]) -> None:
    refused(tmp_path, text, line=line, words=words)


def test_entities_are_refused(tmp_path: Path) -> None:
    text = (
        '<?xml version="1.0"?>\n<!DOCTYPE sdf [\n<!ENTITY x SYSTEM "file:///etc/hostname">\n]>\n'
        '<sdf version="1.9"><model name="&x;"><link name="a"/></model></sdf>\n'
    )
    refused(tmp_path, text, line=3, words=("entity declaration", "never expanded"))


def test_an_include_cycle_is_refused(tmp_path: Path) -> None:
    text = model("<include><uri>file://{}</uri><name>again</name></include>" + link("a"))
    path = tmp_path / "model.sdf"
    path.write_text(text.format(path))
    with pytest.raises(ModelError, match="includes itself"):
        sdf.read(path)


# -- Drake reads the same files ----------------------------------------------------------------

COMPLEX = """<?xml version="1.0"?>
<sdf version="1.9">
  <model name="robot">
    <pose>0.5 0 0.1 0 0 0.3</pose>
    <frame name="mount" attached_to="base">
      <pose relative_to="base">0.1 0.2 0.3 0.1 0.2 0.3</pose>
    </frame>
    <link name="base">
      <pose>0.1 -0.2 0.3 0.4 0.5 -0.6</pose>
      <inertial>
        <pose>0.01 0.02 0.03 0.2 -0.1 0.4</pose>
        <mass>3</mass>
        <inertia><ixx>0.3</ixx><ixy>0.01</ixy><ixz>-0.02</ixz><iyy>0.4</iyy><iyz>0.03</iyz>
        <izz>0.5</izz></inertia>
      </inertial>
      <collision name="c"><pose relative_to="mount">0 0 0.1 0 0 0</pose>
        <geometry><box><size>0.1 0.2 0.3</size></box></geometry></collision>
    </link>
    <link name="arm">
      <pose relative_to="mount" degrees="true">0.3 0 0 10 20 30</pose>
      <inertial>
        <pose>0 0 0.25 0 0.5 0</pose>
        <mass>1.5</mass>
        <inertia><ixx>0.03</ixx><ixy>0</ixy><ixz>0</ixz><iyy>0.03</iyy><iyz>0</iyz>
        <izz>0.01</izz></inertia>
      </inertial>
    </link>
    <joint name="shoulder" type="revolute">
      <parent>mount</parent>
      <child>arm</child>
      <pose>0.05 0.06 -0.07 0.3 0.2 0.1</pose>
      <axis><xyz expressed_in="__model__">1 2 2</xyz>
        <limit><lower>-1</lower><upper>1</upper></limit></axis>
    </joint>
    <model name="hand">
      <pose relative_to="arm">0 0 0.5 0 0 1.0</pose>
      <link name="palm">
        <pose rotation_format="quat_xyzw">0.01 0.02 0.03 0.1 0.2 0.3 0.9273618495495703</pose>
        <inertial><mass>0.5</mass><inertia><ixx>0.001</ixx><ixy>0</ixy><ixz>0</ixz>
        <iyy>0.002</iyy><iyz>0</iyz><izz>0.003</izz></inertia></inertial>
      </link>
      <link name="finger">
        <pose relative_to="palm">0.05 0 0 0 0 0</pose>
        <inertial><pose>0.01 0 0 0 0 0</pose><mass>0.1</mass><inertia><ixx>1e-5</ixx>
        <ixy>0</ixy><ixz>0</ixz><iyy>2e-5</iyy><iyz>0</iyz><izz>3e-5</izz></inertia></inertial>
      </link>
      <joint name="knuckle" type="prismatic">
        <parent>palm</parent><child>finger</child>
        <pose relative_to="palm">0.02 0 0 0 0.3 0</pose>
        <axis><xyz>0 1 0</xyz><limit><lower>0</lower><upper>0.04</upper></limit></axis>
      </joint>
    </model>
    <joint name="wrist" type="fixed">
      <parent>arm</parent><child>hand::palm</child>
    </joint>
    <joint name="anchor" type="fixed">
      <parent>world</parent><child>base</child>
      <pose relative_to="__model__">0 0 0 0 0 0</pose>
    </joint>
  </model>
</sdf>
"""


def _legacy(version: str) -> str:
    flag = "" if version == "1.4" else "<use_parent_model_frame>true</use_parent_model_frame>"
    return model(
        f"""{link("a", "0.1 0.2 0.3 0.3 0.2 0.1")}{link("b", "0.5 0.1 0.2 0.5 -0.4 0.3")}
{link("c", "0.9 0.1 0.2 0 0 0.7")}
<joint name="j1" type="revolute"><parent>a</parent><child>b</child>
<pose>0.01 0.02 0.03 0.2 0.1 0.3</pose><axis><xyz>0 1 0</xyz>{flag}</axis></joint>
<joint name="j2" type="revolute"><parent>b</parent><child>c</child><axis><xyz>1 0 0</xyz>
</axis></joint>
<joint name="j0" type="fixed"><parent>world</parent><child>a</child></joint>""",
        version,
    )


@needs_drake
@pytest.mark.parametrize(
    "text",
    [COMPLEX, _legacy("1.4"), _legacy("1.5"), _legacy("1.6")],
    ids=["1.9-frames", "1.4", "1.5", "1.6"],
)
def test_agrees_with_drake(tmp_path: Path, text: str) -> None:
    from pydrake.multibody.parsing import Parser
    from pydrake.multibody.plant import MultibodyPlant

    path = write(tmp_path, text)
    description = sdf.read(path)
    plant = MultibodyPlant(0.0)
    Parser(plant).AddModels(str(path))
    plant.Finalize()
    context = plant.CreateDefaultContext()
    poses = link_poses(description)
    for name, link_ in description.links.items():
        body = plant.GetBodyByName(name.split("::")[-1])
        x_wb = plant.EvalBodyPoseInWorld(context, body)
        close(poses[name], (x_wb.rotation().matrix(), x_wb.translation()), atol=1e-14)
        spatial = body.default_spatial_inertia()
        inertial = link_.inertial
        assert inertial.mass == spatial.get_mass()
        np.testing.assert_allclose(inertial.center_of_mass, spatial.get_com(), atol=1e-15)
        com = inertial.center_of_mass
        about_origin = inertial.inertia_in_link + inertial.mass * (
            com @ com * np.eye(3) - np.outer(com, com)
        )
        drake = spatial.CalcRotationalInertia().CopyToFullMatrix3()
        np.testing.assert_allclose(about_origin, drake, atol=1e-14 * np.abs(drake).max())
    for name, joint in description.joints.items():
        theirs = plant.GetJointByName(name.split("::")[-1])
        x_pj = theirs.frame_on_parent().GetFixedPoseInBodyFrame()
        x_cj = theirs.frame_on_child().GetFixedPoseInBodyFrame()
        close(joint.pose, (x_pj.rotation().matrix(), x_pj.translation()))
        close(joint.child_pose, invert((x_cj.rotation().matrix(), x_cj.translation())))
        if joint.kind == "revolute":
            np.testing.assert_allclose(joint.axis, theirs.revolute_axis(), atol=1e-15)
        elif joint.kind == "prismatic":
            np.testing.assert_allclose(joint.axis, theirs.translation_axis(), atol=1e-15)


# -- this project's exports --------------------------------------------------------------------


def _models() -> list[rp.Model]:
    from test_read_urdf import _mixed_model

    mixed = _mixed_model()
    mixed.add_body("bob", rp.Ball(radius=0.03))
    mixed.add_joint("swivel", "ball", "tool", "bob.frame_a", position=(0, 0, 0.1))
    models = [mixed]
    for path in sorted(EXAMPLES.glob("*.toml")):
        loaded = rp.load_model(path)
        if not loaded.rods:
            models.append(loaded)
    return models


@pytest.mark.parametrize("exported", _models(), ids=lambda m: m.name)
def test_own_export_reads_back(tmp_path: Path, exported: rp.Model) -> None:
    path = tmp_path / f"{exported.name}.sdf"
    rp.export_model(exported, path)
    description = sdf.read(path)
    zero = exported.zero_positions()
    reference = exported.body_mass_properties(zero)
    body_poses = exported.body_poses(zero)
    poses = link_poses(description)
    for name in exported.bodies:
        inertial = description.links[name].inertial
        assert inertial is not None and inertial.given == {"mass", "center_of_mass", "inertia"}
        r_wa, p_wa = body_poses[name]
        expected = reference[name]
        com = r_wa.T @ (expected.center_of_mass - p_wa)
        inertia = r_wa.T @ expected.inertia @ r_wa
        assert inertial.mass == pytest.approx(expected.mass, rel=4 * np.finfo(float).eps)
        np.testing.assert_allclose(inertial.center_of_mass, com, rtol=0, atol=1e-15)
        np.testing.assert_allclose(
            inertial.inertia_in_link, inertia, rtol=0, atol=1e-14 * np.abs(inertia).max()
        )
        close(poses[name], body_poses[name], atol=1e-13)
    moving = {j.name for j in exported.joints.values() if j.type != "fixed"}
    for name in moving:
        if name in description.joints:
            assert description.moving(description.joints[name].child)


# -- real files --------------------------------------------------------------------------------


def _package_folder(name: str) -> Path | None:
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent


PYBULLET_DATA = _package_folder("pybullet_data")
PYDRAKE = _package_folder("pydrake")


@pytest.mark.skipif(PYDRAKE is None, reason="pydrake absent")
def test_drake_acrobot_values_from_the_file() -> None:
    path = PYDRAKE / "share/drake/examples/acrobot/Acrobot.sdf"  # type: ignore[operator]
    if not path.is_file():
        pytest.skip("Drake's acrobot is not installed")
    description = sdf.read(path)
    upper = description.links["upper_link"].inertial  # the file's lines 24-36
    assert upper is not None and upper.mass == 1.0
    assert upper.center_of_mass.tolist() == [0, 0, -0.5]
    assert upper.inertia.tolist() == [[1, 0, 0], [0, 0.083, 0], [0, 0, 1]]
    assert description.links["base_link"].inertial is None


@pytest.mark.skipif(PYBULLET_DATA is None, reason="pybullet_data absent")
def test_pybullet_kuka_sdf_reads() -> None:
    description = sdf.read(PYBULLET_DATA / "kuka_iiwa" / "model.sdf")  # type: ignore[operator]
    assert len(description.links) == 8
    kinds = [j.kind for j in description.joints.values()]
    assert kinds.count("revolute") == 7


def test_every_installed_sdf_reads_or_is_refused_cleanly() -> None:
    files = []
    for folder in (PYBULLET_DATA, PYDRAKE):
        if folder is not None:
            files += sorted(folder.rglob("*.sdf"))
    if not files:
        pytest.skip("neither pybullet_data nor pydrake installed")
    refused = []
    for path in files:
        try:
            sdf.read(path)
        except ModelError as error:
            assert str(error).startswith(f"{path}:")
            refused.append(path.name)
    # pybullet's kuka_iiwa/model2.sdf has two top-level models of one name
    assert len(refused) <= 1, refused


# -- speed -------------------------------------------------------------------------------------


def big_sdf(links: int) -> str:
    parts = ['<sdf version="1.9"><model name="big">']
    for i in range(links):
        parts.append(
            f'<link name="l{i}"><pose>0 0 {i!r} 0 0 {i * 1e-4!r}</pose><inertial><pose>0.1 0 '
            f"{i * 1e-3!r} 0.1 0.2 0.3</pose><mass>{1 + i % 3}</mass><inertia><ixx>0.1</ixx>"
            "<ixy>0</ixy><ixz>0</ixz><iyy>0.1</iyy><iyz>0</iyz><izz>0.1</izz></inertia>"
            '</inertial><visual name="v"><pose>0 0 0.5 0 1.57 0</pose><geometry><cylinder>'
            "<radius>0.05</radius><length>1</length></cylinder></geometry></visual>"
            '<collision name="c"><pose>0 0 0.5 0 0 0</pose><geometry><box><size>0.1 0.1 1'
            "</size></box></geometry></collision></link>"
        )
        if i:
            parts.append(
                f'<joint name="j{i}" type="revolute"><parent>l{i - 1}</parent><child>l{i}'
                "</child><axis><xyz>0 1 0</xyz><limit><lower>-1</lower><upper>1</upper>"
                "</limit></axis></joint>"
            )
    parts.append("</model></sdf>")
    return "\n".join(parts)


def test_ten_thousand_links_are_read(tmp_path: Path) -> None:
    """Every link and joint of a 10 000-link file (its speed: benchmarks/read_files.py)."""
    path = write(tmp_path, big_sdf(10_000))
    description = sdf.read(path)
    assert len(description.links) == 10_000 and len(description.joints) == 10_000
