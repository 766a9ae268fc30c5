"""What the exported files say: inertials at full precision in each format's reference point
and order, the compiler flags that keep MuJoCo's hands off, geometry, frames, meshes beside
the file, atomic writes. (Loading in the real engines: test_export_engines.py.)"""

from __future__ import annotations

import dataclasses
import math
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given as given_examples
from hypothesis import settings
from hypothesis import strategies as st

import rigidparts as rp
from rigidparts.commands import main
from rigidparts.export import export, format_from_suffix
from rigidparts.export._common import body_geometry
from rigidparts.export._inertial import link_inertial
from rigidparts.export.mjcf import to_mjcf
from rigidparts.export.sdf import to_sdf
from rigidparts.export.urdf import to_urdf
from rigidparts.model import Model, load_model
from rigidparts.shapes import SHAPES, Param, Primitive, Rule, ShapeSpec

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def numbers(text: str) -> list[float]:
    return [float(x) for x in text.split()]


def awkward_model() -> Model:
    """Dimensions whose floats have all 17 digits, rotated axes, a hinge at an extra frame."""
    model = Model("awkward")
    model.add_body(
        "bar",
        rp.Box(length=1 / 3, width=0.1 / 7, height=0.2 / 3, axis=(1, 2, 3), density=2700.1,
               extra_frames=[1 / 9]),
    )  # fmt: skip
    model.add_body("tip", rp.Cone(length=0.1 / 3, radius_a=0.05, radius_b=0.02 / 3, axis=(0, 1, 1)))
    model.add_body("tube", rp.Cone(length=0.3, radius_a=0.02, radius_b=0.02, inner_radius_a=0.015,
                                   inner_radius_b=0.015))  # fmt: skip
    model.add_joint("hinge", "revolute", "world", "bar.frame_c1", axis=(0, 1, 0),
                    position=(0, 0, 1.5), rotation=[[0, -1, 0], [1, 0, 0], [0, 0, 1]])  # fmt: skip
    model.add_joint("weld", "fixed", "bar.frame_b", "tip")
    model.add_joint("rail", "prismatic", "tip.frame_b", "tube.frame_com", axis=(1, 0, 0),
                    limits=(-0.1, 0.2), damping=0.5)  # fmt: skip
    return model


# -- throwaway shapes (built here, never registered): a ball and a box with radial frames -----


def _pebble_check(radius: float) -> int:
    return 0 if 0.0 < radius < math.inf else 1


def _pebble_closed_form(radius: float, density: float):
    volume = 4.0 / 3.0 * math.pi * radius**3
    mass = density * volume
    moment = 0.4 * mass * radius * radius
    return volume, mass, 0.0, moment, moment, moment


PEBBLE = ShapeSpec(
    name="pebble",
    summary="a solid ball (test only)",
    params=(Param("radius", 0.1, "radius (m)"),),
    rules=(Rule("radius", "must be positive and finite (m)"),),
    check=_pebble_check,
    closed_form=_pebble_closed_form,
    axis=False,
    end_frame=None,
    extra_frames=None,
    primitive=lambda dims: Primitive("sphere", (dims["radius"],), (0.0, 0.0, 0.0)),
)


class Pebble(rp.Component):
    """A ball whose native primitive is a sphere: frame_a at its centre."""

    spec = PEBBLE

    def __init__(self, **kwargs) -> None:
        self._build_from({**PEBBLE.signature_defaults(), **kwargs})


#: The box's specification with radial extra frames (``(radius, angle)`` pairs, rotated).
SPINNER = dataclasses.replace(SHAPES["box"], name="spinner", extra_frames="radial")


class Spinner(rp.Component):
    spec = SPINNER

    def __init__(self, **kwargs) -> None:
        self._build_from({**SPINNER.signature_defaults(), **kwargs})


def rotated_frames_model() -> Model:
    """Frames with rotations (a hinge held at one of them), a sphere, bodies given by mass."""
    model = Model("rotated")
    model.add_body("spinner", Spinner(length=0.3, width=0.05, height=0.08, axis=(1, 2, 3),
                                      extra_frames=[(0.1, "30 deg"), (0.05, 2.5)]))  # fmt: skip
    model.add_body("pebble", Pebble(radius=0.04, mass="2.5 kg"))
    model.add_body("cone", rp.Cone(length=0.2, radius_a=0.03, radius_b=0.01, axis=(0, 1, 0),
                                   mass=0.75))  # fmt: skip
    model.add_joint("pivot", "revolute", "world", "spinner.frame_c1", axis=(0, 0, 1),
                    position=(0, 0, 1))  # fmt: skip
    model.add_joint("knob", "fixed", "spinner.frame_c2", "pebble")
    model.add_joint("tilt", "revolute", "spinner.frame_b", "cone", axis=(1, 0, 0))
    return model


def test_format_from_suffix():
    assert [format_from_suffix(f"m{s}") for s in (".xml", ".MJCF", ".urdf", ".sdf")] == [
        "mjcf", "mjcf", "urdf", "sdf",
    ]  # fmt: skip
    with pytest.raises(rp.ParameterError, match="suffix"):
        format_from_suffix("m.yaml")


# -- MJCF ------------------------------------------------------------------------------------


def test_mjcf_compiler_never_lets_mujoco_touch_the_inertia():
    root = ET.fromstring(to_mjcf(awkward_model()))
    compiler = root.find("compiler").attrib
    assert compiler["inertiafromgeom"] == "false"
    assert compiler["balanceinertia"] == "false"
    assert compiler["boundmass"] == "0" and compiler["boundinertia"] == "0"
    assert compiler["fusestatic"] == "false" and compiler["angle"] == "radian"
    for geom in root.iter("geom"):
        assert geom.get("mass") == "0"


def test_mjcf_inertials_are_the_exact_principal_form():
    model = awkward_model()
    root = ET.fromstring(to_mjcf(model))
    for name, body in model.bodies.items():
        element = root.find(f".//body[@name='{name}']")
        inertial = element.find("inertial").attrib
        props = body.mass_properties
        assert float(inertial["mass"]) == body.mass  # bit for bit: repr round-trips
        assert numbers(inertial["pos"]) == body.center_of_mass.tolist()
        assert numbers(inertial["diaginertia"]) == props.principal_moments.tolist()
        assert "fullinertia" not in inertial
        # the quaternion's rotation puts the moments back into the body's tensor
        w, x, y, z = numbers(inertial["quat"])
        from scipy.spatial.transform import Rotation

        r = Rotation.from_quat([x, y, z, w]).as_matrix()
        tensor = r @ np.diag(props.principal_moments) @ r.T
        assert np.max(np.abs(tensor - body.inertia)) <= 1e-15 * np.trace(body.inertia)


def test_mjcf_full_precision_is_repr_not_6_digits():
    text = to_mjcf(awkward_model())
    bar = rp.Box(length=1 / 3, width=0.1 / 7, height=0.2 / 3, axis=(1, 2, 3), density=2700.1)
    assert repr(bar.mass) in text and len(repr(bar.mass)) >= 16


def test_mjcf_joints_sites_geoms_and_keyframe():
    model = awkward_model()
    root = ET.fromstring(to_mjcf(model))
    bar = root.find(".//body[@name='bar']")
    hinge = bar.find("joint").attrib
    assert hinge["type"] == "hinge"
    assert numbers(hinge["pos"]) == model.bodies["bar"].frames["frame_c1"].position.tolist()
    # the axis in the joint frame: R_PJ^T (0, 1, 0) with R_PJ a quarter turn about z
    np.testing.assert_allclose(numbers(hinge["axis"]), [1, 0, 0], atol=1e-16)
    rail = root.find(".//body[@name='tube']/joint").attrib
    assert rail["type"] == "slide" and numbers(rail["range"]) == [-0.1, 0.2]
    assert float(rail["damping"]) == 0.5 and rail["limited"] == "true"
    assert root.find(".//body[@name='tip']/joint") is None  # welded: no joint
    sites = {s.get("name"): numbers(s.get("pos")) for s in root.iter("site")}
    for name, body in model.bodies.items():
        for frame, value in body.frames.items():
            assert sites[f"{name}.{frame}"] == value.position.tolist()
    kinds = {g.get("name"): g.get("type") for g in root.iter("geom")}
    assert kinds == {"bar": "box", "tip": "mesh", "tube": "mesh"}
    key = root.find("keyframe/key").attrib
    assert numbers(key["qpos"]) == [0.0, 0.0]
    excluded = {(e.get("body1"), e.get("body2")) for e in root.iter("exclude")}
    assert excluded == {("bar", "tip"), ("tip", "tube")}


def test_mjcf_native_box_and_cylinder_sizes():
    model = Model()
    model.add_body("box", rp.Box(length=0.5, width=0.1, height=0.2, axis=(0, 0, -1)))
    model.add_body("cyl", rp.Cone(length=0.4, radius_a=0.03, radius_b=0.03, axis=(0, 1, 0)))
    model.add_joint("j", "fixed", "world", "box")
    model.add_joint("k", "fixed", "box.frame_b", "cyl")
    root = ET.fromstring(to_mjcf(model))
    box = root.find(".//geom[@name='box']").attrib
    # axis -z: the height lies along x, the width along y (the axis rule): half extents
    assert numbers(box["size"]) == [0.1, 0.05, 0.25] and "quat" not in box
    assert numbers(box["pos"]) == [0, 0, -0.25]
    cyl = root.find(".//geom[@name='cyl']").attrib
    assert cyl["type"] == "cylinder" and numbers(cyl["size"]) == [0.03, 0.2]
    w, x, y, z = numbers(cyl["quat"])
    from scipy.spatial.transform import Rotation

    # the cylinder's z axis must point along the cone's axis, +y
    np.testing.assert_allclose(Rotation.from_quat([x, y, z, w]).apply([0, 0, 1]), [0, 1, 0],
                               atol=1e-15)  # fmt: skip


def test_mjcf_relaxes_a_flat_plate_by_an_ulp_only():
    plate = rp.Box(length=9.716916376527109e-10, width=0.10673527790199387,
                   height=0.11732762412700279)  # fmt: skip
    i1, i2, i3 = plate.principal_moments
    assert i1 + i2 < i3  # the rounding MuJoCo would refuse
    model = Model()
    model.add_body("plate", plate)
    model.add_joint("j", "revolute", "world", "plate", axis=(1, 0, 0))
    written = numbers(ET.fromstring(to_mjcf(model)).find(".//inertial").get("diaginertia"))
    assert written[:2] == [i1, i2] and written[2] == i1 + i2
    assert abs(written[2] - i3) <= 4 * math.ulp(i3)


# -- URDF ------------------------------------------------------------------------------------


def written_inertial(inertial: ET.Element, sdf: bool = False):
    """``(centre of mass, R_AP, the six entries)`` of a URDF or SDFormat ``<inertial>``, the
    rotation rebuilt by scipy from the roll-pitch-yaw angles (``Rz Ry Rx``, fixed axes)."""
    from scipy.spatial.transform import Rotation

    if sdf:
        pose = numbers(inertial.find("pose").text)
        entries = {e.tag: float(e.text) for e in inertial.find("inertia")}
    else:
        origin = inertial.find("origin").attrib
        pose = numbers(origin["xyz"]) + numbers(origin["rpy"])
        entries = {k: float(v) for k, v in inertial.find("inertia").attrib.items()}
    return pose[:3], Rotation.from_euler("xyz", pose[3:]).as_matrix(), entries


def check_principal_inertial(body, com, r_ap, entries, rpy) -> None:
    """The ``<inertial>`` rules (export/_inertial.py): the centre of mass bit for bit; zero
    products; a tensor diagonal in frame_a as it is (rpy exactly 0); any other in a principal
    frame with the exact principal moments, within 63 degrees of frame_a (Mackenzie's 62.8,
    the largest angle from the nearest of the cube's 24 rotations), whose rebuilt tensor is the
    body's within 1e-15 of the trace (a few ulp: rpy -> R rounds each entry by ~2 eps)."""
    assert com == body.center_of_mass.tolist()
    assert entries["ixy"] == entries["ixz"] == entries["iyz"] == 0.0
    moments = [entries["ixx"], entries["iyy"], entries["izz"]]
    tensor = body.inertia
    if not (tensor[0, 1] or tensor[0, 2] or tensor[1, 2]):
        assert rpy == [0.0, 0.0, 0.0] and moments == np.diag(tensor).tolist()
        return
    assert sorted(moments) == body.principal_moments.tolist()
    angle = math.degrees(math.acos(min(1.0, (np.trace(r_ap) - 1) / 2)))
    assert angle <= 62.81
    rebuilt = r_ap @ np.diag(moments) @ r_ap.T
    assert np.max(np.abs(rebuilt - tensor)) <= 1e-15 * np.trace(tensor)


def test_urdf_inertial_at_the_centre_of_mass_in_its_principal_frame():
    model = awkward_model()
    root = ET.fromstring(to_urdf(model))
    for name, body in model.bodies.items():
        inertial = root.find(f"link[@name='{name}']/inertial")
        assert float(inertial.find("mass").get("value")) == body.mass
        com, r_ap, entries = written_inertial(inertial)
        rpy = numbers(inertial.find("origin").get("rpy"))
        check_principal_inertial(body, com, r_ap, entries, rpy)
    # the tilted bar really is turned (its frame_a tensor is full): rpy carries its axes
    assert numbers(root.find("link[@name='bar']/inertial/origin").get("rpy")) != [0, 0, 0]
    # the tube along x is diagonal in frame_a: written as it is
    assert numbers(root.find("link[@name='tube']/inertial/origin").get("rpy")) == [0, 0, 0]


axes = st.tuples(*[st.floats(-1, 1)] * 3).filter(lambda v: np.linalg.norm(v) > 0.1)


@settings(max_examples=60, deadline=None)
@given_examples(axes, st.floats(0.01, 2), st.floats(0.01, 2), st.floats(0.01, 2), st.booleans())
def test_any_turned_body_gets_an_exact_principal_inertial(axis, length, width, height, cone):
    """Any axis, box or cone: URDF and SDFormat write the same principal frame, and it
    rebuilds the body's tensor to 1e-15 of the trace (scipy's rpy, not the library's)."""
    body = (rp.Cone(length=length, radius_a=width, radius_b=height, axis=axis) if cone
            else rp.Box(length=length, width=width, height=height, axis=axis))  # fmt: skip
    model = Model("one")
    model.add_body("b", body)
    model.add_joint("j", "revolute", "world", "b", axis=(0, 0, 1))
    urdf = ET.fromstring(to_urdf(model)).find("link[@name='b']/inertial")
    sdf = ET.fromstring(to_sdf(model)).find("model/link[@name='b']/inertial")
    com, r_ap, entries = written_inertial(urdf)
    check_principal_inertial(body, com, r_ap, entries, numbers(urdf.find("origin").get("rpy")))
    sdf_com, sdf_r, sdf_entries = written_inertial(sdf, sdf=True)
    assert (sdf_com, sdf_entries) == (com, entries) and np.array_equal(sdf_r, r_ap)
    # the angles rebuild the frame the exporter chose: each entry within 8 eps (one rounding
    # per angle in matrix_to_rpy's atan2, then scipy's sines, cosines and two products)
    chosen = link_inertial(body.mass_properties, margin=True).rotation
    assert np.abs(r_ap - chosen).max() <= 8 * np.finfo(float).eps


def test_a_mesh_body_gets_its_eigen_axes():
    """A body without closed forms (principal axes from an eigen-decomposition): the same
    rules, the moments those of ``numpy.linalg.eigvalsh`` of its tensor."""
    trimesh = pytest.importorskip("trimesh")
    from scipy.spatial.transform import Rotation

    solid = trimesh.creation.box(extents=(0.3, 0.2, 0.1))
    transform = np.eye(4)
    transform[:3, :3] = Rotation.from_euler("xyz", [0.3, -0.2, 1.1]).as_matrix()
    transform[:3, 3] = (0.05, -0.02, 0.1)
    solid.apply_transform(transform)
    body = rp.MeshBody(mesh=solid, units="m")
    model = Model("mesh")
    model.add_body("b", body)
    model.add_joint("j", "revolute", "world", "b", axis=(0, 0, 1))
    inertial = ET.fromstring(to_urdf(model)).find("link[@name='b']/inertial")
    com, r_ap, entries = written_inertial(inertial)
    check_principal_inertial(body, com, r_ap, entries, numbers(inertial.find("origin").get("rpy")))
    reference = np.linalg.eigvalsh(body.inertia)
    written = sorted([entries["ixx"], entries["iyy"], entries["izz"]])
    assert np.max(np.abs(np.array(written) - reference)) <= 1e-15 * reference.sum()


def test_urdf_structure_frames_and_mujoco_extension():
    model = awkward_model()
    root = ET.fromstring(to_urdf(model))
    compiler = root.find("mujoco/compiler").attrib
    assert compiler["fusestatic"] == "false" and compiler["discardvisual"] == "false"
    assert compiler["strippath"] == "false" and compiler["inertiafromgeom"] == "false"
    joints = {j.get("name"): j for j in root.findall("joint")}
    hinge = joints["hinge"]
    assert hinge.get("type") == "continuous"
    assert hinge.find("parent").get("link") == "world"
    # held at frame_c1: the joint's child is that frame's link, the body hangs from it
    assert hinge.find("child").get("link") == "bar.frame_c1"
    hang = joints["bar.frame_c1"]
    assert (hang.find("parent").get("link"), hang.find("child").get("link")) == (
        "bar.frame_c1", "bar",
    )  # fmt: skip
    offset = -model.bodies["bar"].frames["frame_c1"].position
    assert numbers(hang.find("origin").get("xyz")) == offset.tolist()
    rail = joints["rail"]
    limit = rail.find("limit").attrib
    assert rail.get("type") == "prismatic" and numbers(limit["lower"]) == [-0.1]
    assert float(limit["velocity"]) == 1e16 and float(limit["effort"]) == 1e16
    assert float(rail.find("dynamics").get("damping")) == 0.5
    links = {link.get("name") for link in root.findall("link")}
    for name, body in model.bodies.items():
        assert {f"{name}.{f}" for f in body.frames} <= links
    assert joints["weld"].get("type") == "fixed"
    meshes = {m.get("filename") for m in root.iter("mesh")}
    assert meshes == {"awkward_meshes/tip.obj", "awkward_meshes/tube.obj"}


def test_urdf_floating_and_the_ball_joint_it_cannot_hold():
    model = Model("f")
    model.add_body("b", rp.Box())
    model.add_body("c", rp.Box())
    model.add_joint("float", "free", "world", "b")
    model.add_joint("ball", "ball", "b.frame_b", "c")
    with pytest.raises(rp.ModelError, match=r"URDF has no ball joint.*'ball'.*MJCF or SDF"):
        to_urdf(model)
    model = Model("f")
    model.add_body("b", rp.Box())
    model.add_joint("float", "free", "world", "b")
    assert ET.fromstring(to_urdf(model)).find("joint[@name='float']").get("type") == "floating"


# -- SDF -------------------------------------------------------------------------------------


def test_sdf_links_frames_and_joints():
    model = awkward_model()
    root = ET.fromstring(to_sdf(model))
    assert root.get("version") == "1.9"
    poses = model.body_poses(model.zero_positions())
    for name, body in model.bodies.items():
        link = root.find(f"model/link[@name='{name}']")
        pose = numbers(link.find("pose").text)
        np.testing.assert_allclose(pose[:3], poses[name][1], atol=1e-15)
        inertial = link.find("inertial")
        assert float(inertial.find("mass").text) == body.mass
        com, r_ap, entries = written_inertial(inertial, sdf=True)
        check_principal_inertial(body, com, r_ap, entries, numbers(inertial.find("pose").text)[3:])
        for frame in body.frames:
            element = root.find(f"model/frame[@name='{name}.{frame}']")
            assert element.get("attached_to") == name
            assert element.find("pose").get("relative_to") == name
    hinge = root.find("model/joint[@name='hinge']")
    assert hinge.get("type") == "continuous" and hinge.find("parent").text == "world"
    rail = root.find("model/joint[@name='rail']")
    assert numbers(rail.find("axis/limit/upper").text) == [0.2]
    # the joint sits at the child frame, relative to the child link
    assert numbers(rail.find("pose").text)[:3] == model.bodies["tube"].center_of_mass.tolist()


def test_sdf_a_free_body_has_no_joint():
    model = Model("f")
    model.add_body("b", rp.Box())
    model.add_body("c", rp.Box())
    model.add_joint("float", "free", "world", "b", position=(0, 0, 2))
    model.add_joint("ball", "ball", "b.frame_b", "c")
    root = ET.fromstring(to_sdf(model))
    assert [j.get("name") for j in root.iter("joint")] == ["ball"]
    assert root.find("model/joint").get("type") == "ball"
    assert numbers(root.find("model/link[@name='b']/pose").text) == [0, 0, 2, 0, 0, 0]


# -- geometry from the registry, spheres, rotated frames, bodies given by mass --------------


@pytest.mark.parametrize("name", list(SHAPES))
def test_geometry_is_the_specifications_primitive_placed_in_frame_a(name):
    spec = SHAPES[name]
    if spec.primitive is None:
        pytest.skip("no native primitive")
    body = rp.body_class(name)(**({"axis": (0, 1, 1)} if spec.axis else {}))
    primitive = spec.primitive(body.dimensions)
    geometry = body_geometry(body)
    if primitive is None:
        assert geometry.kind == "mesh"
        return
    assert geometry.kind == primitive.kind
    r_ac = body.rotation_from_canonical
    np.testing.assert_allclose(geometry.position, r_ac @ primitive.center, atol=1e-16)
    if primitive.kind == "cylinder":  # C's x (the cylinder's axis) is the geometry's z
        np.testing.assert_allclose(geometry.rotation[:, 2], r_ac[:, 0], atol=1e-16)
        assert geometry.size == primitive.size
    elif primitive.kind == "box":  # the extents along C's axes, turned with them
        np.testing.assert_allclose(np.abs(geometry.rotation @ np.diag(geometry.size)),
                                   np.abs(r_ac @ np.diag(primitive.size)), atol=1e-16)  # fmt: skip


def test_a_sphere_is_native_in_every_format():
    model = Model("ball")
    model.add_body("pebble", Pebble(radius=0.04, density=1000.0))
    model.add_joint("float", "free", "world", "pebble", position=(0, 0, 1))
    geom = ET.fromstring(to_mjcf(model)).find(".//geom[@name='pebble']").attrib
    assert geom["type"] == "sphere" and numbers(geom["size"]) == [0.04]
    assert numbers(geom["pos"]) == [0, 0, 0] and "quat" not in geom
    urdf = ET.fromstring(to_urdf(model))
    for tag in ("visual", "collision"):
        assert urdf.find(f"link[@name='pebble']/{tag}/geometry/sphere").get("radius") == "0.04"
    sdf = ET.fromstring(to_sdf(model))
    radii = [float(r.text) for r in sdf.iter("radius")]
    assert radii == [0.04, 0.04] and not list(sdf.iter("mesh"))


def test_rotated_frames_are_written_with_their_rotations():
    from scipy.spatial.transform import Rotation

    model = rotated_frames_model()
    frames = model.bodies["spinner"].frames
    turned = [name for name, frame in frames.items() if not np.array_equal(frame.rotation,
                                                                           np.eye(3))]  # fmt: skip
    assert turned == ["frame_c1", "frame_c2"]
    sites = {s.get("name"): s for s in ET.fromstring(to_mjcf(model)).iter("site")}
    urdf = {j.get("name"): j for j in ET.fromstring(to_urdf(model)).findall("joint")}
    sdf = {f.get("name"): f for f in ET.fromstring(to_sdf(model)).iter("frame")}
    for name in turned:
        frame = frames[name]
        w, x, y, z = numbers(sites[f"spinner.{name}"].get("quat"))
        np.testing.assert_allclose(Rotation.from_quat([x, y, z, w]).as_matrix(), frame.rotation,
                                   atol=1e-15)  # fmt: skip
        pose = numbers(sdf[f"spinner.{name}"].find("pose").text)
        assert pose[:3] == frame.position.tolist()
        np.testing.assert_allclose(Rotation.from_euler("xyz", pose[3:]).as_matrix(),
                                   frame.rotation, atol=1e-15)  # fmt: skip
    # frame_c2 hangs from the body's link; frame_c1 holds the hinge, the body hangs from it
    origin = urdf["spinner.frame_c2"].find("origin").attrib
    assert numbers(origin["xyz"]) == frames["frame_c2"].position.tolist()
    np.testing.assert_allclose(Rotation.from_euler("xyz", numbers(origin["rpy"])).as_matrix(),
                               frames["frame_c2"].rotation, atol=1e-15)  # fmt: skip
    hang = urdf["spinner.frame_c1"]
    assert hang.find("child").get("link") == "spinner"
    r_hang = Rotation.from_euler("xyz", numbers(hang.find("origin").get("rpy"))).as_matrix()
    np.testing.assert_allclose(r_hang, frames["frame_c1"].rotation.T, atol=1e-15)


def test_bodies_given_by_mass_export_like_any_other():
    model = rotated_frames_model()
    mjcf, urdf, sdf = (ET.fromstring(f(model)) for f in (to_mjcf, to_urdf, to_sdf))
    for name, given in (("pebble", 2.5), ("cone", 0.75)):
        body = model.bodies[name]
        assert body.mass == given
        inertial = mjcf.find(f".//body[@name='{name}']/inertial").attrib
        assert float(inertial["mass"]) == given
        assert numbers(inertial["diaginertia"]) == body.principal_moments.tolist()
        assert float(urdf.find(f"link[@name='{name}']/inertial/mass").get("value")) == given
        written = urdf.find(f"link[@name='{name}']/inertial/inertia").attrib
        assert sorted(float(written[k]) for k in ("ixx", "iyy", "izz")) == sorted(
            np.diag(body.inertia) if name == "pebble" else body.principal_moments
        )
        assert float(sdf.find(f"model/link[@name='{name}']/inertial/mass").text) == given


EPS = np.finfo(float).eps


def test_a_turned_plate_at_the_triangle_edge_keeps_a_margin_in_urdf_only():
    """A plate 1e-8 of its width thick, turned: its exact moments keep I1 + I2 >= I3 by less
    than rounding. URDF (MuJoCo re-diagonalises it) raises the smallest by 64 eps trace, so
    any eigen-solver still finds the inequality; SDFormat keeps the exact moments, with I3 at
    most fl(I1 + I2)."""
    plate = rp.Box(length=9.716916376527109e-10, width=0.10673527790199387,
                   height=0.11732762412700279, axis=(0, 1, 1))  # fmt: skip
    model = Model("edge")
    model.add_body("plate", plate)
    model.add_joint("j", "revolute", "world", "plate", axis=(0, 0, 1))
    trace = float(plate.principal_moments.sum())
    urdf = ET.fromstring(to_urdf(model)).find("link[@name='plate']/inertial/inertia").attrib
    raised = sorted(float(urdf[k]) for k in ("ixx", "iyy", "izz"))
    i1, i2, i3 = plate.principal_moments
    assert raised[1:] == [i2, i3]
    assert raised[0] == pytest.approx(i1 + 64 * EPS * trace, rel=0, abs=2 * EPS * trace)
    assert raised[0] + raised[1] - raised[2] >= 32 * EPS * trace
    sdf = ET.fromstring(to_sdf(model)).find("model/link[@name='plate']/inertial/inertia")
    exact = sorted(float(sdf.find(k).text) for k in ("ixx", "iyy", "izz"))
    assert exact[:2] == [i1, i2] and exact[2] in (i3, i1 + i2) and exact[2] <= i1 + i2


def test_a_plate_along_an_axis_is_written_as_it_is_up_to_an_ulp():
    """The same plate along y: diagonal in frame_a, read exactly by every engine, so no
    margin: only I3 = fl(I1 + I2) where rounding broke the inequality (a few ulp)."""
    plate = rp.Box(length=9.716916376527109e-10, width=0.10673527790199387,
                   height=0.11732762412700279, axis=(0, 1, 0))  # fmt: skip
    model = Model("edge")
    model.add_body("plate", plate)
    model.add_joint("j", "revolute", "world", "plate", axis=(0, 0, 1))
    urdf = ET.fromstring(to_urdf(model)).find("link[@name='plate']/inertial/inertia")
    sdf = ET.fromstring(to_sdf(model)).find("model/link[@name='plate']/inertial/inertia")
    keys = ("ixx", "iyy", "izz")
    for written in (np.array([float(urdf.get(k)) for k in keys]),
                    np.array([float(sdf.find(k).text) for k in keys])):  # fmt: skip
        diagonal = np.diag(plate.inertia)
        assert np.max(np.abs(written - diagonal)) <= 4 * EPS * diagonal.max()
        order = np.argsort(written)
        assert written[order[0]] + written[order[1]] >= written[order[2]]


# -- files -----------------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".xml", ".urdf", ".sdf"])
def test_files_and_meshes_beside_them(tmp_path, suffix):
    import trimesh

    model = awkward_model()
    path = tmp_path / f"robot{suffix}"
    text = export(model, path)
    assert path.read_text(encoding="utf-8") == text
    folder = tmp_path / "robot_meshes"
    assert sorted(p.name for p in folder.iterdir()) == ["tip.obj", "tube.obj"]
    assert "robot_meshes/tube.obj" in text
    tube = trimesh.load(folder / "tube.obj", force="mesh")
    assert tube.is_watertight
    exact = model.bodies["tube"].volume  # a 64-gon tube: (64 / 2 pi) sin(2 pi / 64) of it
    assert tube.volume == pytest.approx(exact * 64 * math.sin(2 * math.pi / 64) / (2 * math.pi),
                                        rel=1e-9)  # fmt: skip
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporaries left


def test_a_failed_export_leaves_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / "robot.urdf"
    path.write_text("old", encoding="utf-8")

    def broken(self, sections=64):
        raise RuntimeError("mesh failed")

    monkeypatch.setattr(rp.Component, "mesh", broken)
    with pytest.raises(RuntimeError):
        to_urdf(awkward_model(), path)
    assert path.read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["robot.urdf"]


def test_inline_meshes_without_a_path_load_in_mujoco():
    mujoco = pytest.importorskip("mujoco")
    text = to_mjcf(awkward_model())
    assert "vertex=" in text and "file=" not in text
    assert mujoco.MjModel.from_xml_string(text).nmesh == 2


@pytest.mark.parametrize("fmt", ["mjcf", "urdf", "sdf"])
def test_cli_export_writes_what_the_library_writes(tmp_path, capsys, fmt):
    out = tmp_path / "cli" / "pendulum.model"
    out.parent.mkdir()
    status = main(["export", str(EXAMPLES / "pendulum.toml"), "--format", fmt, "-o", str(out)])
    assert status == 0
    assert f"wrote {out}" in capsys.readouterr().out
    model = load_model(EXAMPLES / "pendulum.toml")
    (tmp_path / "lib").mkdir()
    expected = export(model, tmp_path / "lib" / "pendulum.model", fmt)
    assert out.read_text(encoding="utf-8") == expected
    assert (tmp_path / "cli" / "pendulum_meshes" / "bob.obj").read_bytes() == (
        tmp_path / "lib" / "pendulum_meshes" / "bob.obj"
    ).read_bytes()
