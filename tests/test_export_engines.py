"""The exports load in the real engines unchanged, and every body's mass, centre of mass and
inertia arrive as rigidparts computed them (relative error <= 1e-15 of the trace; MuJoCo
reading URDF, which re-diagonalises, 16 eps; composites an engine forms itself, 1e-12), as do
the poses at joint position zero and, moved, at other joint positions.

MuJoCo (MJCF and URDF), Pinocchio (URDF) and Drake (URDF and SDF). The traps: MuJoCo fusing
or welding a jointless root and fixed links, ``inertiafromgeom``, ``balanceinertia``, mesh
paths; Pinocchio merging fixed joints into their parent (compared as composites, and per
frame). The engine-reading code is written here, independently of the library.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rigidparts as rp
from family_model import every_shape_model, every_shape_moves
from rigidparts.export import export
from rigidparts.export.mjcf import to_mjcf
from rigidparts.export.urdf import to_urdf
from rigidparts.model import Model, load_model
from test_export import rotated_frames_model

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
#: A body's mass properties as an engine reads them from the file: the inertia is written in
#: its principal frame (export/_inertial.py), which an engine turns by the rpy / quaternion:
#: each rebuilt entry rounds by a few ulp of the trace (4.5 eps). Measured at most 6.1e-16
#: over 2400 turned bodies in Pinocchio, Drake (URDF and SDF), pybullet and MuJoCo (MJCF):
#: scripts/inertia_readback.py, docs/models.md "Inertia in the engines".
EXACT = 1e-15
#: MuJoCo reading a URDF: it rotates the tensor into the link frame and diagonalises it again
#: with its own Jacobi (mjuu_eig3), rounding at each sweep: 16 eps of the trace (measured at
#: most 1.7e-15 with the principal form, 1.8e-15 with the full tensor).
MUJOCO_URDF = 16 * np.finfo(float).eps
#: Composites an engine forms itself (Pinocchio merging welded bodies, shifted and turned to
#: the joint frame), compared with rigidparts' own sum: both sides' arithmetic.
TOLERANCE = 1e-12


def relative_error(reference: rp.MassProperties, mass, com, inertia) -> float:
    """Largest of: mass error / mass, centre-of-mass error / body size, inertia error / trace."""
    size = max(
        math.sqrt(np.trace(reference.inertia) / reference.mass),
        float(np.max(np.abs(reference.center_of_mass))),
    )
    return max(
        abs(float(mass) - reference.mass) / reference.mass,
        float(np.max(np.abs(np.asarray(com) - reference.center_of_mass))) / size,
        float(np.max(np.abs(np.asarray(inertia) - reference.inertia)))
        / np.trace(reference.inertia),
    )


def traps() -> Model:
    """A jointless (welded) root, a joint frame turned by rpy, a hinge at an extra frame, a flat
    plate at MuJoCo's triangle-inequality edge, hollow box and tube meshes, tilted axes (full
    tensors), a prismatic joint holding its body at frame_com."""
    model = Model("traps")
    model.add_body("base", rp.Box(length=0.2, width=0.3, height=0.3, axis=(0, 0, 1),
                                  material="steel"))  # fmt: skip
    model.add_body("arm", rp.Box(length=0.7, width=0.04, height=0.06, inner_width=0.03,
                                 inner_height=0.05, axis=(1, 1, 0), rotate90=True,
                                 extra_frames=[0.2, "500 mm"], material="aluminium"))  # fmt: skip
    model.add_body("plate", rp.Box(length=9.716916376527109e-10, width=0.10673527790199387,
                                   height=0.11732762412700279, axis=(0, 1, 0)))  # fmt: skip
    model.add_body("cone", rp.Cone(length=0.3, radius_a=0.05, radius_b=0.0, axis=(1, 2, 3),
                                   density=1234.5))  # fmt: skip
    model.add_body("tube", rp.Cone(length=0.4, radius_a=0.03, radius_b=0.02, inner_radius_a=0.025,
                                   inner_radius_b=0.015, axis=(0, 0, -1)))  # fmt: skip
    from scipy.spatial.transform import Rotation

    turn = Rotation.from_euler("xyz", [0.3, -0.2, 1.1]).as_matrix()
    model.add_joint("mount", "fixed", "world", "base", position=(0.5, -0.2, 0.1), rotation=turn)
    model.add_joint("shoulder", "revolute", "base.frame_b", "arm.frame_c1", axis=(0, 0, 1),
                    limits=(-2, 2), damping=0.3)  # fmt: skip
    model.add_joint("glue", "fixed", "arm.frame_c2", "plate.frame_com")
    model.add_joint("elbow", "revolute", "arm.frame_b", "cone.frame_a", axis=(1, 1, 1))
    model.add_joint("slide", "prismatic", "cone.frame_b", "tube.frame_com", axis=(0, 1, 0),
                    position=(0.01, 0.02, 0.03))  # fmt: skip
    return model


def floating() -> Model:
    """A free root held at its centre of mass, with a ball-jointed child (MJCF and SDF)."""
    model = Model("floating")
    model.add_body("hull", rp.Cone(length=0.5, radius_a=0.1, radius_b=0.05, axis=(0, 0, 1)))
    model.add_body("mast", rp.Box(length=0.3, width=0.02, height=0.03, axis=(1, 0, 1)))
    model.add_joint("float", "free", "world", "hull.frame_com", position=(0, 0, 1),
                    initial=[0.1, 0.2, 0.3, 0.9, 0.1, 0.3, 0.2])  # fmt: skip
    model.add_joint("socket", "ball", "hull.frame_b", "mast.frame_a", initial=[1, 0.2, 0, 0.1])
    return model


def floating_urdf() -> Model:
    model = Model("floating")
    model.add_body("hull", rp.Cone(length=0.5, radius_a=0.1, radius_b=0.05, axis=(0, 0, 1)))
    model.add_joint("float", "free", "world", "hull.frame_a")
    return model


MODELS = {
    "pendulum": lambda: load_model(EXAMPLES / "pendulum.toml"),
    "double_pendulum": lambda: load_model(EXAMPLES / "double_pendulum.toml"),
    "serial_arm": lambda: load_model(EXAMPLES / "serial_arm.toml"),
    "traps": traps,
    "rotated": rotated_frames_model,  # frames with rotations, a sphere, bodies given by mass
    "every_shape": every_shape_model,  # every registered shape, solid / hollow / turned / by mass
}
MOVES = {  # joint positions away from zero, to check each engine's joint conventions
    "pendulum": {"hinge": 0.4},
    "double_pendulum": {"shoulder": 0.4, "elbow": -1.1},
    "serial_arm": {"shoulder": 0.3, "elbow": -0.4, "wrist": 1.3},
    "traps": {"shoulder": 0.7, "elbow": -0.9, "slide": 0.05},
    "rotated": {"pivot": 0.8, "tilt": -0.6},
    "every_shape": every_shape_moves(every_shape_model()),
}


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """Every model written in every format it supports, in its own folder."""
    out = {}
    for name, build in [*MODELS.items(), ("floating", floating), ("floating_urdf", floating_urdf)]:
        folder = tmp_path_factory.mktemp(name)
        model = build()
        paths = {}
        for fmt, suffix in (("mjcf", ".xml"), ("urdf", ".urdf"), ("sdf", ".sdf")):
            if (name == "floating" and fmt == "urdf") or (
                name == "floating_urdf" and fmt != "urdf"
            ):
                continue
            paths[fmt] = folder / f"{name}{suffix}"
            export(model, paths[fmt])
        out[name] = (model, paths)
    return out


def assert_pose(r_ref, p_ref, r, p, what):
    assert np.max(np.abs(np.asarray(p) - p_ref)) <= 1e-12, what
    assert np.max(np.abs(np.asarray(r) - r_ref)) <= 1e-12, what


# -- MuJoCo ----------------------------------------------------------------------------------


def mujoco_body_errors(mujoco, mj, model):
    from scipy.spatial.transform import Rotation

    worst = 0.0
    for name, body in model.bodies.items():
        b = mj.body(name)
        w, x, y, z = b.iquat
        r = Rotation.from_quat([x, y, z, w]).as_matrix()
        inertia = r @ np.diag(b.inertia) @ r.T
        worst = max(worst, relative_error(body.mass_properties, b.mass[0], b.ipos, inertia))
    return worst


@pytest.mark.parametrize("name", [*MODELS, "floating"])
@pytest.mark.parametrize("fmt", ["mjcf", "urdf"])
def test_mujoco_loads_the_exact_mass_properties(exported, name, fmt):
    mujoco = pytest.importorskip("mujoco")
    if name == "floating" and fmt == "urdf":
        name = "floating_urdf"
    model, paths = exported[name]
    mj = mujoco.MjModel.from_xml_path(str(paths[fmt]))
    assert mujoco_body_errors(mujoco, mj, model) <= (EXACT if fmt == "mjcf" else MUJOCO_URDF)
    # no body fused away, no mass invented: the total is the model's
    assert mj.body_mass.sum() == pytest.approx(model.mass_properties().mass, rel=1e-14)
    # poses at joint position zero (qpos0), including the welded root and the frames
    data = mujoco.MjData(mj)
    mujoco.mj_kinematics(mj, data)
    zero = model.zero_positions()
    for body, (r, p) in model.body_poses(zero).items():
        assert_pose(r, p, data.body(body).xmat.reshape(3, 3), data.body(body).xpos, body)
    for frame, (r, p) in model.frame_poses(zero).items():
        body, frame_name = frame.split(".")
        if 0 < np.linalg.norm(model.bodies[body].frames[frame_name].position) < 1e-6:
            continue  # MuJoCo's kinematics snap sub-micrometre site offsets to the body origin
        element = data.site(frame) if fmt == "mjcf" else data.body(frame)
        assert_pose(r, p, element.xmat.reshape(3, 3), element.xpos, frame)
    assert mj.ngeom >= len(model.bodies)


@pytest.mark.parametrize("name", [*MODELS, "floating"])
def test_mujoco_moves_the_bodies_as_the_model_does(exported, name):
    """Joint conventions: MuJoCo's kinematics at the model's initial state (and at other
    positions) put every body where rigidparts' own kinematics put it."""
    mujoco = pytest.importorskip("mujoco")
    model, paths = exported[name]
    mj = mujoco.MjModel.from_xml_path(str(paths["mjcf"]))
    data = mujoco.MjData(mj)
    mujoco.mj_resetDataKeyframe(mj, data, 0)  # the exported initial state
    for q in (None, MOVES.get(name)):
        if q is not None:
            for joint, value in q.items():
                data.qpos[mj.joint(joint).qposadr[0]] = value
        mujoco.mj_kinematics(mj, data)
        full = model.joint_positions(q)
        for body, (r, p) in model.body_poses(full).items():
            assert_pose(r, p, data.body(body).xmat.reshape(3, 3), data.body(body).xpos, body)


@pytest.mark.parametrize("fmt", ["mjcf", "urdf"])
def test_mujoco_reads_the_given_mass_exactly(exported, fmt):
    mujoco = pytest.importorskip("mujoco")
    model, paths = exported["rotated"]
    mj = mujoco.MjModel.from_xml_path(str(paths[fmt]))
    assert mj.body("pebble").mass[0] == 2.5 and mj.body("cone").mass[0] == 0.75
    assert model.bodies["pebble"].mass == 2.5
    sphere = mj.geom("pebble" if fmt == "mjcf" else mj.body("pebble").geomadr[0])
    assert sphere.type[0] == mujoco.mjtGeom.mjGEOM_SPHERE and sphere.size[0] == 0.04


def test_the_traps_are_real(exported):
    """Without the exporter's settings MuJoCo would change the model: fused bodies (URDF's
    default fusestatic), inertia from geometry (a cone mesh and a solid-filled hollow tube)."""
    mujoco = pytest.importorskip("mujoco")
    model, paths = exported["traps"]
    text = paths["urdf"].read_text(encoding="utf-8")
    start, end = text.index("<mujoco>"), text.index("</mujoco>") + len("</mujoco>")
    plain = paths["urdf"].with_name("plain.urdf")
    plain.write_text(text[:start] + text[end:], encoding="utf-8")
    mj = mujoco.MjModel.from_xml_path(str(plain))
    names = {mj.body(i).name for i in range(mj.nbody)}
    assert not {"base", "arm", "plate"} & names  # welded bodies fused into others or the world
    assert mj.ngeom == len(model.bodies)  # only the collision geoms: the visuals discarded

    import xml.etree.ElementTree as ET

    tree = ET.parse(paths["mjcf"])
    tree.find("compiler").set("inertiafromgeom", "true")
    for body in tree.iter("body"):
        body.remove(body.find("inertial"))
    for geom in tree.iter("geom"):
        geom.set("density", "7860")
        del geom.attrib["mass"]
    from_geometry = paths["mjcf"].with_name("geometry.xml")
    tree.write(from_geometry)
    mj = mujoco.MjModel.from_xml_path(str(from_geometry))
    assert mujoco_body_errors(mujoco, mj, model) > 1e-3


# -- Pinocchio -------------------------------------------------------------------------------


def rigid_group(model: Model, body: str) -> list[str]:
    """``body`` and every body welded to it through fixed joints (what Pinocchio merges)."""
    group = [body]
    for name in group:
        group += [j.child_body for j in model.child_joints(name) if j.type == "fixed"]
    return group


def in_frame(props: rp.MassProperties, rotation, origin):
    """World-frame mass properties re-expressed in a frame at (rotation, origin)."""
    return rp.MassProperties(
        props.mass,
        rotation.T @ (props.center_of_mass - origin),
        rotation.T @ props.inertia @ rotation,
    )


@pytest.mark.parametrize("name", [*MODELS, "floating_urdf"])
def test_pinocchio_urdf_composites_and_frames(exported, name):
    pin = pytest.importorskip("pinocchio")
    model, paths = exported[name]
    pm = pin.buildModelFromUrdf(str(paths["urdf"]))
    zero = model.zero_positions()
    world = model.body_mass_properties(zero)
    frames = model.frame_poses(zero)
    checked = 0
    for joint in model.joints.values():
        if joint.type == "fixed":
            continue
        jid = pm.getJointId(joint.name)
        assert jid < pm.njoints, joint.name
        composite = rp.MassProperties.combine(
            [world[b] for b in rigid_group(model, joint.child_body)]
        )
        r, p = frames[joint.child]  # URDF puts the joint's child link at the child frame
        reference = in_frame(composite, r, p)
        inertia = pm.inertias[jid]
        assert relative_error(reference, inertia.mass, inertia.lever, inertia.inertia) <= TOLERANCE
        checked += 1
    # bodies welded to the world end up in the universe's inertia
    welded = [j.child_body for j in model.child_joints(None) if j.type == "fixed"]
    if welded:
        composite = rp.MassProperties.combine(
            [world[b] for root in welded for b in rigid_group(model, root)]
        )
        universe = pm.inertias[0]
        assert (
            relative_error(composite, universe.mass, universe.lever, universe.inertia) <= TOLERANCE
        )
        checked += 1
    # each merged link keeps its own inertia on its fixed-joint frame (Pinocchio 3)
    for frame in pm.frames:
        if frame.type != pin.FrameType.FIXED_JOINT or frame.inertia.mass == 0.0:
            continue
        if frame.name in model.joints:
            body = model.joints[frame.name].child_body
        else:  # "BODY.FRAME": the fixed joint from a joint's frame link down to its body
            body = frame.name.split(".")[0]
        inertia = frame.inertia
        error = relative_error(
            model.bodies[body].mass_properties, inertia.mass, inertia.lever, inertia.inertia
        )
        assert error <= EXACT, frame.name  # one body, read from the file
        checked += 1
    assert checked >= 1
    total = sum(pm.inertias[i].mass for i in range(pm.njoints))
    assert total == pytest.approx(model.mass_properties().mass, rel=1e-14)


@pytest.mark.parametrize("name", list(MODELS))
def test_pinocchio_moves_the_bodies_as_the_model_does(exported, name):
    pin = pytest.importorskip("pinocchio")
    model, paths = exported[name]
    pm = pin.buildModelFromUrdf(str(paths["urdf"]))
    data = pm.createData()
    q = pin.neutral(pm)
    for joint, value in MOVES[name].items():
        pin_joint = pm.joints[pm.getJointId(joint)]
        if pin_joint.nq == 2:  # URDF "continuous": an unbounded revolute, q = (cos, sin)
            q[pin_joint.idx_q : pin_joint.idx_q + 2] = math.cos(value), math.sin(value)
        else:
            q[pin_joint.idx_q] = value
    pin.forwardKinematics(pm, data, q)
    pin.updateFramePlacements(pm, data)
    for body, (r, p) in model.body_poses({**model.zero_positions(), **MOVES[name]}).items():
        placement = data.oMf[pm.getFrameId(body, pin.FrameType.BODY)]
        assert_pose(r, p, placement.rotation, placement.translation, body)


def test_pinocchio_reads_the_mesh_files(exported):
    pin = pytest.importorskip("pinocchio")
    model, paths = exported["serial_arm"]
    pm = pin.buildModelFromUrdf(str(paths["urdf"]))
    geometry = pin.buildGeomFromUrdf(
        pm, str(paths["urdf"]), pin.GeometryType.COLLISION, package_dirs=[str(paths["urdf"].parent)]
    )
    assert geometry.ngeoms == len(model.bodies)


# -- Drake -----------------------------------------------------------------------------------


def drake_plant(path: Path):
    pytest.importorskip("pydrake")
    from pydrake.multibody.parsing import Parser
    from pydrake.multibody.plant import AddMultibodyPlantSceneGraph
    from pydrake.systems.framework import DiagramBuilder

    builder = DiagramBuilder()
    plant, scene_graph = AddMultibodyPlantSceneGraph(builder, 0.0)
    Parser(plant).AddModels(str(path))  # with geometry: the meshes must load too
    plant.Finalize()
    return plant, scene_graph


DRAKE_CASES = [
    *[(name, fmt) for name in MODELS for fmt in ("urdf", "sdf")],
    ("floating", "sdf"),
    ("floating_urdf", "urdf"),
]


@pytest.mark.parametrize(("name", "fmt"), DRAKE_CASES)
def test_drake_loads_the_exact_mass_properties(exported, name, fmt):
    model, paths = exported[name]
    plant, scene_graph = drake_plant(paths[fmt])
    context = plant.CreateDefaultContext()
    zero = model.zero_positions()
    poses = model.body_poses(zero)
    for body_name, body in model.bodies.items():
        drake_body = plant.GetBodyByName(body_name)
        spatial = drake_body.default_spatial_inertia()  # about the body origin, body axes
        com = spatial.get_com()
        central = spatial.Shift(com).CalcRotationalInertia().CopyToFullMatrix3()
        error = relative_error(body.mass_properties, spatial.get_mass(), com, central)
        assert error <= EXACT, body_name
        if name == "floating_urdf":
            continue  # URDF's floating joint is read as a free body at the origin
        pose = plant.EvalBodyPoseInWorld(context, drake_body)
        r, p = poses[body_name]
        assert_pose(r, p, pose.rotation().matrix(), pose.translation(), body_name)
    for frame, (r, p) in model.frame_poses(zero).items():
        if name == "floating_urdf":
            break
        pose = plant.GetFrameByName(frame).CalcPoseInWorld(context)
        assert_pose(r, p, pose.rotation().matrix(), pose.translation(), frame)
    geometry_count = scene_graph.model_inspector().num_geometries()
    assert geometry_count == 2 * len(model.bodies)  # a visual and a collision each


@pytest.mark.parametrize("name", list(MODELS))
@pytest.mark.parametrize("fmt", ["urdf", "sdf"])
def test_drake_moves_the_bodies_as_the_model_does(exported, name, fmt):
    model, paths = exported[name]
    plant, _ = drake_plant(paths[fmt])
    context = plant.CreateDefaultContext()
    q = plant.GetPositions(context)
    for joint, value in MOVES[name].items():
        q[plant.GetJointByName(joint).position_start()] = value
    plant.SetPositions(context, q)
    for body, (r, p) in model.body_poses({**model.zero_positions(), **MOVES[name]}).items():
        pose = plant.EvalBodyPoseInWorld(context, plant.GetBodyByName(body))
        assert_pose(r, p, pose.rotation().matrix(), pose.translation(), body)
    damped = [j for j in model.joints.values() if j.damping]
    for joint in damped:
        assert plant.GetJointByName(joint.name).default_damping_vector()[0] == joint.damping


# -- any body, any axis ----------------------------------------------------------------------

axes = st.tuples(*[st.floats(-1, 1)] * 3).filter(lambda v: np.linalg.norm(v) > 0.1)
sizes = st.floats(0.01, 2.0)
fractions = st.floats(0.0, 0.95)


@st.composite
def bodies(draw):
    axis = draw(axes)
    density = draw(st.floats(100, 20000))
    if draw(st.booleans()):
        width, height = draw(sizes), draw(sizes)
        hollow = draw(st.booleans())
        return rp.Box(length=draw(sizes), width=width, height=height, axis=axis,
                      inner_width=width * draw(fractions) if hollow else 0.0,
                      inner_height=height * draw(fractions) if hollow else 0.0,
                      rotate90=draw(st.booleans()), density=density,
                      extra_frames=[draw(st.floats(-1, 1))])  # fmt: skip
    radius_a, radius_b = draw(sizes), draw(st.floats(0.0, 2.0))
    return rp.Cone(length=draw(sizes), radius_a=radius_a, radius_b=radius_b, axis=axis,
                   inner_radius_a=radius_a * draw(fractions),
                   inner_radius_b=radius_b * draw(fractions), density=density,
                   extra_frames=[draw(st.floats(-1, 1))])  # fmt: skip


@settings(max_examples=25)
@given(bodies(), bodies(), axes)
def test_any_two_bodies_arrive_exactly_in_mujoco_and_pinocchio(first, second, hinge_axis):
    mujoco = pytest.importorskip("mujoco")
    pin = pytest.importorskip("pinocchio")
    model = Model("random")
    model.add_body("first", first)
    model.add_body("second", second)
    model.add_joint("hinge", "revolute", "world", "first.frame_c1", axis=hinge_axis)
    model.add_joint("weld", "fixed", "first.frame_b", "second.frame_com")
    mj = mujoco.MjModel.from_xml_string(to_mjcf(model, sections=8))  # meshes embedded
    assert mujoco_body_errors(mujoco, mj, model) <= EXACT
    pm = pin.buildModelFromXML(to_urdf(model, sections=8))  # kinematics only: no mesh files
    zero = model.zero_positions()
    world = model.body_mass_properties(zero)
    r, p = model.frame_poses(zero)["first.frame_c1"]
    reference = in_frame(world["first"] + world["second"], r, p)
    inertia = pm.inertias[pm.getJointId("hinge")]
    assert relative_error(reference, inertia.mass, inertia.lever, inertia.inertia) <= TOLERANCE


# -- the inertial's principal frame, in every engine -----------------------------------------


def awkward_inertias() -> Model:
    """Bodies whose inertial frames are hard to write: turned boxes and cones, moments equal
    or nearly equal (1e-9 apart: ill-conditioned axes), a turned plate at the triangle edge
    (MuJoCo's margin in URDF) and the same plate along y (diagonal in frame_a), a turned mesh
    body (eigen-solver axes), each on a hinge at its frame_a so that every engine reports it
    alone, in frame_a."""
    plate = dict(length=9.716916376527109e-10, width=0.10673527790199387,
                 height=0.11732762412700279)  # fmt: skip
    bodies = {
        "tilted_box": rp.Box(length=0.4, width=0.07, height=0.11, axis=(1, 2, 3)),
        "square_box": rp.Box(length=0.3, width=0.1, height=0.1, axis=(-2, 1, 0.5)),
        "nearly_square": rp.Box(length=0.3, width=0.1, height=0.1 * (1 + 1e-9), axis=(1, -1, 2)),
        "cube": rp.Box(length=0.2, width=0.2, height=0.2 * (1 + 1e-12), axis=(3, 1, -1)),
        "tilted_cone": rp.Cone(
            length=0.3, radius_a=0.05, radius_b=0.02, axis=(0.3, -1, 2), inner_radius_a=0.03
        ),
        "turned_plate": rp.Box(**plate, axis=(0, 1, 1)),
        "plate": rp.Box(**plate, axis=(0, 1, 0)),
    }
    trimesh = pytest.importorskip("trimesh")
    from scipy.spatial.transform import Rotation

    solid = trimesh.creation.box(extents=(0.3, 0.2, 0.1))
    transform = np.eye(4)
    transform[:3, :3] = Rotation.from_euler("xyz", [0.3, -0.2, 1.1]).as_matrix()
    transform[:3, 3] = (0.05, -0.02, 0.1)
    solid.apply_transform(transform)
    bodies["mesh"] = rp.MeshBody(mesh=solid, units="m")
    model = Model("awkward_inertias")
    parent = "world"
    for name, body in bodies.items():
        model.add_body(name, body)
        model.add_joint(f"j_{name}", "revolute", parent, f"{name}.frame_a", axis=(0, 0, 1),
                        position=(0.0, 0.0, 0.5))  # fmt: skip
        parent = f"{name}.frame_a"
    return model


#: The URDF margin at the triangle edge (export/_inertial.py): 64 eps of the trace, raised.
EDGE_MARGIN = 65 * np.finfo(float).eps


@pytest.fixture(scope="module")
def awkward_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("awkward_inertias")
    model = awkward_inertias()
    paths = {fmt: folder / f"awkward{suffix}"
             for fmt, suffix in (("mjcf", ".xml"), ("urdf", ".urdf"), ("sdf", ".sdf"))}  # fmt: skip
    for path in paths.values():
        export(model, path)
    return model, paths


def inertia_bound(name: str, fmt: str, engine_bound: float = EXACT) -> float:
    """The turned edge plate carries the URDF margin; every other body reads back exactly."""
    return EDGE_MARGIN if name == "turned_plate" and fmt == "urdf" else engine_bound


def test_awkward_inertias_in_mujoco(awkward_files):
    mujoco = pytest.importorskip("mujoco")
    from scipy.spatial.transform import Rotation

    model, paths = awkward_files
    for fmt in ("mjcf", "urdf"):
        mj = mujoco.MjModel.from_xml_path(str(paths[fmt]))
        for name, body in model.bodies.items():
            b = mj.body(name)
            r = Rotation.from_quat(np.roll(b.iquat, -1)).as_matrix()
            error = relative_error(body.mass_properties, b.mass[0], b.ipos,
                                   r @ np.diag(b.inertia) @ r.T)  # fmt: skip
            bound = inertia_bound(name, fmt, EXACT if fmt == "mjcf" else MUJOCO_URDF)
            assert error <= bound, (fmt, name, error)


def test_awkward_inertias_in_pinocchio(awkward_files):
    pin = pytest.importorskip("pinocchio")
    model, paths = awkward_files
    pm = pin.buildModelFromUrdf(str(paths["urdf"]))
    for name, body in model.bodies.items():
        inertia = pm.inertias[pm.getJointId(f"j_{name}")]  # in the joint frame: frame_a
        error = relative_error(body.mass_properties, inertia.mass, inertia.lever, inertia.inertia)
        assert error <= inertia_bound(name, "urdf"), (name, error)


@pytest.mark.parametrize("fmt", ["urdf", "sdf"])
def test_awkward_inertias_in_drake(awkward_files, fmt):
    model, paths = awkward_files
    plant, _ = drake_plant(paths[fmt])
    for name, body in model.bodies.items():
        spatial = plant.GetBodyByName(name).default_spatial_inertia()
        com = spatial.get_com()
        central = spatial.Shift(com).CalcRotationalInertia().CopyToFullMatrix3()
        error = relative_error(body.mass_properties, spatial.get_mass(), com, central)
        assert error <= inertia_bound(name, fmt), (fmt, name, error)
