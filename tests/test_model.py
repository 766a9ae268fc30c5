"""The Model: tree rules, joint kinematics and composite mass properties.

Independent references: rotation matrices and textbook box formulas written out by hand here,
and composites that are themselves single bodies (two bars welded end to end are one bar of
twice the length).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import rigidparts as rp
from rigidparts.export.mjcf import to_mjcf
from rigidparts.model import JOINT_TYPES, Joint, Model, model_from_dict


def rot_x(t: float) -> np.ndarray:
    c, s = math.cos(t), math.sin(t)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def rot_y(t: float) -> np.ndarray:
    c, s = math.cos(t), math.sin(t)
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])


def rot_z(t: float) -> np.ndarray:
    c, s = math.cos(t), math.sin(t)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def box_textbook(length: float, width: float, height: float, density: float):
    """A solid box along its own x: mass and central moments (m (b^2 + c^2) / 12)."""
    mass = density * length * width * height
    return mass, np.diag(
        [
            mass * (width**2 + height**2) / 12,
            mass * (length**2 + width**2) / 12,  # about y: extents along x and z (= width)
            mass * (length**2 + height**2) / 12,
        ]
    )


def pendulum(initial: float = 0.0) -> Model:
    model = Model("pendulum")
    model.add_body("arm", rp.Box(length=1.0, width=0.02, height=0.03, axis=(0, 0, -1)))
    model.add_body("bob", rp.Cone(length=0.1, radius_a=0.05, radius_b=0.02, axis=(0, 0, -1)))
    model.add_joint(
        "hinge", "revolute", "world", "arm.frame_a", axis=(0, 1, 0), position=(0, 0, 1.5),
        initial=initial,
    )  # fmt: skip
    model.add_joint("weld", "fixed", "arm.frame_b", "bob.frame_a")
    return model


# -- building and the tree rules -----------------------------------------------------------


def test_add_body_returns_the_body_and_keeps_order():
    model = Model("m", gravity=(0, 0, -1.62))
    a = rp.Box()
    assert model.add_body("a", a) is a
    model.add_body("b", rp.Cone())
    assert list(model.bodies) == ["a", "b"]
    assert model.gravity.tolist() == [0, 0, -1.62]
    with pytest.raises(TypeError):
        model.bodies["c"] = rp.Box()  # a read-only view


def test_joint_fields_and_defaults():
    model = pendulum(initial="30 deg")
    hinge = model.joints["hinge"]
    assert isinstance(hinge, Joint)
    assert (hinge.type, hinge.parent, hinge.child) == ("revolute", "world", "arm.frame_a")
    assert hinge.parent_body is None and hinge.child_body == "arm"
    assert hinge.initial[0] == pytest.approx(math.pi / 6, rel=1e-15)
    assert hinge.position.tolist() == [0, 0, 1.5]
    assert hinge.position_names == ("hinge",) and hinge.velocity_names == ("hinge.velocity",)
    weld = model.joints["weld"]
    assert weld.nq == 0 and weld.position_names == () and weld.parent_body == "arm"
    assert model.nq == 1 and model.nv == 1


def test_a_bare_body_name_means_frame_a():
    model = Model()
    model.add_body("a", rp.Box())
    joint = model.add_joint("j", "fixed", "world", "a")
    assert joint.child == "a.frame_a"


def test_coordinate_names_of_multi_coordinate_joints():
    model = Model()
    model.add_body("a", rp.Box())
    model.add_body("b", rp.Box())
    model.add_joint("float", "free", "world", "a.frame_com")
    model.add_joint("ball", "ball", "a.frame_b", "b")
    assert model.joints["float"].position_names == tuple(
        f"float.{s}" for s in ("x", "y", "z", "qw", "qx", "qy", "qz")
    )
    assert model.joints["float"].velocity_names[-1] == "float.wz"
    assert model.joints["ball"].position_names[0] == "ball.qw"
    assert model.joints["ball"].velocity_names == ("ball.wx", "ball.wy", "ball.wz")
    assert model.nq == 11 and model.nv == 9
    assert JOINT_TYPES["free"] == (7, 6)


def two_bars() -> Model:
    model = Model()
    model.add_body("a", rp.Box(extra_frames=[0.5]))
    model.add_body("b", rp.Box())
    return model


@pytest.mark.parametrize(
    ("parent", "child", "words"),
    [
        ("world", "c.frame_a", "names no body 'c'"),
        ("world", "a.frame_x", "has no frame 'frame_x'"),
        ("a.frame_c2", "b", "has no frame 'frame_c2'"),
        ("nobody.frame_b", "b", "names no body 'nobody'"),
        ("a.frame_b", "world", "the world cannot be a child"),
        ("a.frame_b", "a.frame_a", "closes a cycle a -> a"),
    ],
)
def test_unknown_frames_and_self_loops_are_named(parent, child, words):
    model = two_bars()
    with pytest.raises(rp.ModelError, match="joints\\[0\\]") as info:
        model.add_joint("j", "fixed", parent, child)
    assert words in str(info.value)
    assert not model.joints  # nothing half-built


def test_two_parents_a_cycle_and_a_second_root_are_refused():
    model = two_bars()
    model.add_joint("j1", "revolute", "world", "a", axis=(0, 0, 1))
    model.add_joint("j2", "fixed", "a.frame_b", "b")
    with pytest.raises(rp.ModelError, match="already has the parent joint 'j2'"):
        model.add_joint("j3", "fixed", "a.frame_c1", "b")
    with pytest.raises(rp.ModelError, match="already has the parent joint 'j1'"):
        model.add_joint("j4", "fixed", "b.frame_b", "a")
    with pytest.raises(rp.ModelError, match="second root: joint 'j1' already attaches 'a'"):
        model.add_body("c", rp.Box())
        model.add_joint("j5", "fixed", "world", "c")
    assert list(model.joints) == ["j1", "j2"]


def test_a_cycle_among_bodies_not_yet_rooted_is_refused():
    model = two_bars()
    model.add_body("c", rp.Box())
    model.add_joint("j1", "fixed", "a.frame_b", "b")
    model.add_joint("j2", "fixed", "b.frame_b", "c")
    with pytest.raises(rp.ModelError, match="closes a cycle a -> b -> c -> a"):
        model.add_joint("j3", "fixed", "c.frame_b", "a")


def test_an_unattached_body_is_named_when_the_model_is_used():
    model = two_bars()
    model.add_joint("j1", "revolute", "world", "a", axis=(0, 0, 1))
    with pytest.raises(rp.ModelError, match=r"bodies.b=.*attached by no joint"):
        model.body_poses()
    with pytest.raises(rp.ModelError, match="attached by no joint"):
        to_mjcf(model)
    with pytest.raises(rp.ModelError, match="no bodies"):
        Model().check()
    lonely = Model()
    lonely.add_body("a", rp.Box())
    with pytest.raises(rp.ModelError, match="no joint attaches a body to 'world'"):
        lonely.check()


def test_a_passed_check_is_forgotten_when_the_model_changes():
    model = two_bars()
    model.add_joint("j1", "revolute", "world", "a", axis=(0, 0, 1))
    model.add_joint("j2", "fixed", "a.frame_b", "b")
    model.check()  # passes, and is remembered
    model.add_body("c", rp.Box())
    with pytest.raises(rp.ModelError, match=r"bodies.c=.*attached by no joint"):
        model.check()
    model.add_joint("j3", "fixed", "b.frame_b", "c")
    model.check()
    assert [j.name for j in model.ordered_joints()] == ["j1", "j2", "j3"]


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"type": "hinge"}, "joints[0].type='hinge': must be one of revolute"),
        ({"type": "revolute"}, "a revolute joint needs an axis"),
        ({"type": "revolute", "axis": (0, 0, 0)}, "must be a non-zero vector"),
        ({"type": "revolute", "axis": (0, 1)}, "must be a 3-vector"),
        ({"type": "revolute", "axis": (0, float("nan"), 1)}, "must be finite"),
        ({"type": "fixed", "axis": (0, 0, 1)}, "a fixed joint has no axis"),
        ({"type": "ball", "limits": (-1, 1)}, "only revolute and prismatic joints take limits"),
        ({"type": "revolute", "axis": (1, 0, 0), "limits": (1, -1)}, "lower must be below"),
        (
            {"type": "revolute", "axis": (1, 0, 0), "limits": (0, 1), "initial": 2},
            "must lie within limits",
        ),
        (  # no initial given: the limits are at fault, not a None nobody wrote (issue 14)
            {"type": "revolute", "axis": (1, 0, 0), "limits": (0.5, 1)},
            "joints[0].limits=(0.5, 1): must contain the initial position 0 (no initial given)",
        ),
        ({"type": "prismatic", "axis": (1, 0, 0), "damping": -1}, "non-negative"),
        ({"type": "fixed", "damping": 0.5}, "only revolute and prismatic joints take damping"),
        ({"type": "fixed", "initial": 0.5}, "is fixed: it has no position"),
        ({"type": "ball", "initial": (0, 0, 0, 0)}, "the quaternion must not be zero"),
        ({"type": "ball", "initial": (1, 0, 0)}, "give a quaternion"),
        ({"type": "free", "initial": (0, 0, 0)}, "give [x, y, z, qw, qx, qy, qz]"),
        ({"type": "revolute", "axis": (1, 0, 0), "initial": "3 mm"}, "expected an angle"),
        ({"type": "prismatic", "axis": (1, 0, 0), "initial": "3 deg"}, "expected a length"),
        ({"type": "revolute", "axis": (1, 0, 0), "initial_velocity": "x"}, "must be a number"),
        ({"type": "fixed", "position": (0, 0)}, "must be [x, y, z]"),
        ({"type": "fixed", "rotation": np.diag([1, 1, -1])}, "proper rotation"),
        ({"type": "fixed", "rotation": np.ones((3, 3))}, "orthonormal"),
    ],
)
def test_bad_joint_fields_are_named(kwargs, words):
    model = two_bars()
    kind = kwargs.pop("type")
    with pytest.raises(rp.ModelError) as info:
        model.add_joint("j", kind, "world", "a", **kwargs)
    assert words in str(info.value)
    assert "joints[0]" in str(info.value)


def test_free_joints_only_float_from_the_world():
    model = two_bars()
    model.add_joint("j1", "revolute", "world", "a", axis=(0, 0, 1))
    with pytest.raises(rp.ModelError, match="free joint's parent must be 'world'"):
        model.add_joint("j2", "free", "a.frame_b", "b")


@pytest.mark.parametrize("name", ["", "a.b", "world", "1st", "has space", None])
def test_bad_names(name):
    model = Model()
    with pytest.raises(rp.ModelError):
        model.add_body(name, rp.Box())
    model.add_body("a", rp.Box())
    with pytest.raises(rp.ModelError):
        model.add_joint(name, "fixed", "world", "a")


def test_names_are_unique_across_bodies_and_joints():
    model = Model()
    model.add_body("a", rp.Box())
    with pytest.raises(rp.ModelError, match="already used"):
        model.add_body("a", rp.Box())
    with pytest.raises(rp.ModelError, match="already used"):
        model.add_joint("a", "fixed", "world", "a")
    with pytest.raises(rp.ModelError, match="must be a rigidparts body"):
        model.add_body("b", "box")


@pytest.mark.parametrize(
    ("gravity", "name"), [((0, 0), "m"), ((0, 0, math.inf), "m"), ("0 0 1", "m"), ((0, 0, 1), "")]
)
def test_bad_model_arguments(gravity, name):
    with pytest.raises(rp.ModelError):
        Model(name, gravity=gravity)


def test_bad_joint_positions_in_queries():
    model = pendulum()
    with pytest.raises(rp.ModelError, match="names no joint"):
        model.body_poses({"elbow": 0.1})
    with pytest.raises(rp.ModelError, match="is fixed"):
        model.body_poses({"weld": 0.1})
    with pytest.raises(rp.ModelError, match="one coordinate"):
        model.body_poses({"hinge": [0.1, 0.2]})


# -- kinematics ------------------------------------------------------------------------------


@given(st.floats(-7, 7))
def test_revolute_pendulum_pose_by_hand(theta):
    model = pendulum()
    poses = model.body_poses({"hinge": theta})
    r_arm, p_arm = poses["arm"]
    np.testing.assert_allclose(r_arm, rot_y(theta), atol=1e-15)
    np.testing.assert_allclose(p_arm, [0, 0, 1.5], atol=0)
    # The bob hangs at the bar's far end: 1 m along the rotated -z axis.
    _, p_bob = poses["bob"]
    np.testing.assert_allclose(p_bob, [-math.sin(theta), 0, 1.5 - math.cos(theta)], atol=1e-15)
    frames = model.frame_poses({"hinge": theta})
    np.testing.assert_allclose(frames["arm.frame_b"][1], p_bob, atol=1e-15)


def test_initial_positions_are_the_default():
    model = pendulum(initial=0.3)
    np.testing.assert_allclose(model.body_poses()["arm"][0], rot_y(0.3), atol=1e-15)
    np.testing.assert_array_equal(model.body_poses({"hinge": 0.0})["arm"][0], np.eye(3))


def test_hinge_at_an_extra_frame_keeps_that_frame_on_the_axis():
    model = Model()
    model.add_body("bar", rp.Box(length=1.0, axis=(1, 0, 0), extra_frames=[0.3]))
    model.add_joint(
        "pivot", "revolute", "world", "bar.frame_c1", axis=(0, 0, 1), position=(1, 2, 3)
    )
    for theta in (0.0, 0.7, -2.0):
        r, p = model.body_poses({"pivot": theta})["bar"]
        np.testing.assert_allclose(r, rot_z(theta), atol=1e-15)
        # frame_a is 0.3 m behind the pivot along the rotated bar axis
        expected = np.array([1, 2, 3]) - 0.3 * np.array([math.cos(theta), math.sin(theta), 0])
        np.testing.assert_allclose(p, expected, atol=1e-15)


def test_joint_frame_rotation_and_axis_in_the_parent_frame():
    # The joint frame is turned 90 deg about z; the axis is given in the parent (world) frame.
    model = Model()
    model.add_body("bar", rp.Box(axis=(1, 0, 0)))
    model.add_joint(
        "j", "revolute", "world", "bar", axis=(1, 0, 0), rotation=rot_z(math.pi / 2),
        position=(0, 0, 1),
    )  # fmt: skip
    r, _ = model.body_poses({"j": 0.4})["bar"]
    # X_WA = R_WJ R_about(axis_J) with axis_J = R_WJ^T x: equals rot_x(0.4) R_WJ
    np.testing.assert_allclose(r, rot_x(0.4) @ rot_z(math.pi / 2), atol=1e-15)
    np.testing.assert_allclose(model.joints["j"].axis_in_joint, [0, -1, 0], atol=1e-16)


def test_prismatic_ball_and_free_motion():
    model = Model()
    model.add_body("slider", rp.Box(length=0.2, axis=(1, 0, 0)))
    model.add_body("head", rp.Cone(length=0.1, axis=(0, 0, 1)))
    model.add_joint("rail", "prismatic", "world", "slider", axis=(0, 3, 4), position=(1, 0, 0))
    model.add_joint("neck", "ball", "slider.frame_b", "head.frame_a")
    poses = model.body_poses({"rail": "50 mm"})
    np.testing.assert_allclose(poses["slider"][1], [1, 0.03, 0.04], atol=1e-16)
    half = math.sqrt(0.5)
    poses = model.body_poses({"rail": 0.0, "neck": [half, 0, half, 0]})  # 90 deg about y
    np.testing.assert_allclose(poses["head"][0], rot_y(math.pi / 2), atol=1e-15)
    np.testing.assert_allclose(poses["head"][1], [1.2, 0, 0], atol=1e-15)
    # A quaternion needs no unit norm: it is normalised.
    np.testing.assert_allclose(
        model.body_poses({"neck": [2, 0, 2, 0]})["head"][0], rot_y(math.pi / 2), atol=1e-15
    )

    floating = Model()
    floating.add_body("body", rp.Cone(length=0.4, axis=(0, 0, 1)))
    floating.add_joint("float", "free", "world", "body.frame_com", position=(0, 0, 1))
    com = floating.bodies["body"].center_of_mass
    q = [0.1, 0.2, 0.3, math.cos(0.25), math.sin(0.25), 0, 0]  # 0.5 rad about x
    r, p = floating.body_poses({"float": q})["body"]
    np.testing.assert_allclose(r, rot_x(0.5), atol=1e-15)
    # frame_com sits at (0.1, 0.2, 1.3); frame_a is -com away from it in body axes
    np.testing.assert_allclose(p, np.array([0.1, 0.2, 1.3]) - rot_x(0.5) @ com, atol=1e-15)


@given(
    st.lists(st.floats(-math.pi, math.pi), min_size=3, max_size=3),
    st.lists(st.sampled_from([(1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 0)]), min_size=3, max_size=3),
)
def test_a_chain_keeps_each_child_frame_on_its_joint(angles, axes):
    """For any angles, each joint's child frame sits at its parent frame (same origin) and is
    rotated about the joint axis only: the axis, seen from both frames, is the same vector."""
    model = Model()
    for i in range(3):
        model.add_body(f"b{i}", rp.Box(length=0.3 + 0.1 * i, axis=axes[i], extra_frames=[0.1]))
    model.add_joint("j0", "revolute", "world", "b0.frame_c1", axis=(0, 0, 1))
    model.add_joint("j1", "revolute", "b0.frame_b", "b1.frame_a", axis=axes[1])
    model.add_joint("j2", "revolute", "b1.frame_b", "b2.frame_c1", axis=axes[2])
    q = {f"j{i}": angles[i] for i in range(3)}
    frames = model.frame_poses(q)
    for joint in model.joints.values():
        r_c, p_c = frames[joint.child]
        r_p, p_p = (np.eye(3), np.zeros(3)) if joint.parent == "world" else frames[joint.parent]
        np.testing.assert_allclose(p_c, p_p, atol=1e-14)
        axis = np.asarray(joint.axis)
        np.testing.assert_allclose(r_c @ axis, r_p @ axis, atol=1e-14)
        angle = q[joint.name]
        relative = r_p.T @ r_c  # must be the rotation by `angle` about `axis`
        assert np.trace(relative) == pytest.approx(1 + 2 * math.cos(angle), abs=1e-13)


# -- composite mass properties ---------------------------------------------------------------


@given(st.floats(-math.pi, math.pi))
def test_two_bars_welded_end_to_end_are_one_bar_of_twice_the_length(theta):
    length, width, height, density = 0.6, 0.02, 0.05, 2700.0
    model = Model()
    bar = {"length": length, "width": width, "height": height, "density": density}
    model.add_body("a", rp.Box(axis=(0, 0, -1), **bar))
    model.add_body("b", rp.Box(axis=(0, 0, -1), **bar))
    model.add_joint("hinge", "revolute", "world", "a", axis=(0, 1, 0), position=(0.1, 0.2, 2.0))
    model.add_joint("weld", "fixed", "a.frame_b", "b")
    composite = model.subtree_mass_properties({"hinge": theta})["a"]

    # Textbook: one bar of length 2L hanging from the hinge, turned by theta about y.
    mass, central = box_textbook(2 * length, width, height, density)
    # Bar axis -z: height along x (the frames rule), width along y, length along z.
    central_a = np.diag([central[1, 1], central[2, 2], central[0, 0]])
    r = rot_y(theta)
    assert composite.mass == pytest.approx(mass, rel=1e-14)
    np.testing.assert_allclose(
        composite.center_of_mass,
        np.array([0.1, 0.2, 2.0]) + r @ np.array([0, 0, -length]),
        rtol=0,
        atol=1e-15,
    )
    np.testing.assert_allclose(
        composite.inertia, r @ central_a @ r.T, rtol=0, atol=1e-14 * np.trace(central)
    )
    assert model.mass_properties({"hinge": theta}).isclose(composite, rtol=1e-15)
    # The world-frame single-body values: b alone, its centre at 1.5 L along the bar.
    part = model.body_mass_properties({"hinge": theta})["b"]
    assert part.mass == pytest.approx(mass / 2, rel=1e-14)
    np.testing.assert_allclose(
        part.center_of_mass, np.array([0.1, 0.2, 2.0]) + r @ [0, 0, -1.5 * length], atol=1e-15
    )


def test_subtree_of_a_leaf_is_the_body_and_of_the_root_is_the_model():
    model = pendulum(initial=0.2)
    subtree = model.subtree_mass_properties()
    bodies = model.body_mass_properties()
    assert subtree["bob"].isclose(bodies["bob"], rtol=1e-15)
    total_mass = sum(b.mass for b in model.bodies.values())
    assert subtree["arm"].mass == pytest.approx(total_mass, rel=1e-15)
    # the composite centre of mass by hand, from the world positions of the parts
    com = sum(b.mass * b.center_of_mass for b in bodies.values()) / total_mass
    np.testing.assert_allclose(subtree["arm"].center_of_mass, com, atol=1e-15)
    assert model.mass_properties().isclose(subtree["arm"], rtol=1e-15)


def test_to_dict_rebuilds_the_same_model():
    model = pendulum(initial=0.25)
    rebuilt = model_from_dict(model.to_dict())
    assert list(rebuilt.bodies) == list(model.bodies)
    for name, body in model.bodies.items():
        assert rebuilt.bodies[name].mass_properties.isclose(body.mass_properties, rtol=1e-15)
    assert rebuilt.joints["hinge"].initial[0] == 0.25
    for name, (_, p) in model.body_poses().items():
        np.testing.assert_array_equal(rebuilt.body_poses()[name][1], p)
