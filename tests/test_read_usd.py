"""Reading USD stages (rigidparts.formats.usd) against independent references.

- Hand-derived values for a stage written here (stage units, MassAPI, every primitive with its
  scale and axis, a mesh with a quad, joints with limits in degrees, a joint written from its
  child's side, a free body).
- USD's own UsdPhysics parser (``UsdPhysicsLoadStageFromPrimRange``, usd-core): the rigid
  bodies' world poses, the collision shapes' sizes and poses in their body and the joints'
  local frames, bodies and limits as the schema's reference implementation reads them. Both
  read single-precision attributes: the bound is 1e-6 relative (float32 rounding is 6e-8; the
  products of a few such values stay well inside it).
- This project's own export read back: every link's declared mass, centre of mass and inertia
  in the link frame against ``model.body_mass_properties()`` (the export writes float32, so
  within 1e-6 relative), and the joints placing every link where the model puts it.
"""

from __future__ import annotations

import glob
import math
import os
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation

import rigidparts as rp
from rigidparts.transforms import compose, invert

pxr = pytest.importorskip("pxr")
from pxr import Usd, UsdPhysics  # noqa: E402

from rigidparts.formats import usd  # noqa: E402

RELATIVE = 1e-6


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return path


def close(a: object, b: object, scale: float | None = None) -> bool:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    size = scale if scale is not None else max(np.abs(b).max(), np.abs(a).max(), 1e-300)
    return bool(np.abs(a - b).max() <= RELATIVE * size)


def quat(value: object) -> np.ndarray:
    """A Gf quaternion as a rotation matrix (scipy, scalar last)."""
    w, (x, y, z) = value.GetReal(), value.GetImaginary()
    return Rotation.from_quat(np.array([x, y, z, w], dtype=float)).as_matrix()


def world_poses(description) -> dict:
    """``X_WL`` of every link from the joints at zero position: ``X_WP X_PJ X_JC``."""
    poses: dict = {}
    pending = list(description.joints.values())
    while pending:
        joint = pending.pop(0)
        if joint.parent != "world" and joint.parent not in poses:
            pending.append(joint)
            continue
        parent = (np.eye(3), np.zeros(3)) if joint.parent == "world" else poses[joint.parent]
        poses[joint.child] = compose(compose(parent, joint.pose), joint.child_pose)
    return poses


def compare_with_usd_physics(path: Path | str, *, chain: bool = True) -> None:
    """Bodies, shapes and joints against USD's own UsdPhysics parser; ``chain``: also each
    body's world pose through the joints (files whose joint frames agree with the bodies'
    poses: not every real file's do, to single precision)."""
    description = usd.read(path)
    stage = Usd.Stage.Open(str(path))
    meters = pxr.UsdGeom.GetStageMetersPerUnit(stage)
    load = getattr(UsdPhysics, "UsdPhysicsLoadStageFromPrimRange", None)
    parsed = (load or UsdPhysics.LoadUsdPhysicsFromRange)(stage, ["/"])
    found = {
        str(kind).rsplit(".", 1)[-1]: dict(zip(*value, strict=True))
        for kind, value in parsed.items()
    }
    links = {link.source.element: link for link in description.links.values()}
    for prim, body in found.get("RigidBody", {}).items() if chain else ():
        link = links[str(prim)]
        x_wl = world_poses(description)[link.name]
        assert close(x_wl[1], np.array(body.position, dtype=float) * meters, scale=max(1.0, meters))
        assert close(x_wl[0], quat(body.rotation), scale=1.0)
    geometry = {g.source.element: g for link in description.links.values() for g in link.collisions}
    for kind, shapes in found.items():
        if not kind.endswith("Shape") or kind in ("MeshShape", "PlaneShape"):
            continue
        for prim, shape in shapes.items():
            if str(shape.rigidBody) not in links:
                continue
            ours = geometry[str(prim)]
            assert close(ours.pose[1], np.array(shape.localPos, dtype=float) * meters, scale=meters)
            if kind == "CubeShape":
                assert close(ours.size, 2 * np.array(shape.halfExtents, dtype=float) * meters)
                assert close(ours.pose[0], quat(shape.localRot), scale=1.0)
            elif kind == "SphereShape" and ours.kind == "ellipsoid":
                # a known difference: UsdPhysics (and PhysX) take a sphere of the largest
                # scaled radius, rigidparts the ellipsoid the scale makes
                assert close(max(ours.size), shape.radius * meters)
            elif kind == "SphereShape":
                assert close(ours.size, [shape.radius * meters])
            elif kind in ("CapsuleShape", "CylinderShape"):
                assert close(ours.size, [shape.radius * meters, 2 * shape.halfHeight * meters])
                axis = "XYZ".index(str(shape.axis).rsplit(".", 1)[-1])
                assert close(ours.pose[0][:, 2], quat(shape.localRot)[:, axis], scale=1.0)
    joints = {j.source.element: j for j in description.joints.values()}
    for kind in ("RevoluteJoint", "PrismaticJoint", "FixedJoint", "SphericalJoint"):
        for prim, joint in found.get(kind, {}).items():
            ours = joints.get(str(prim))
            if ours is None or not joint.body0.pathString:
                continue
            turned = links[str(joint.body0)].name != ours.parent
            pose0 = (
                quat(joint.localPose0Orientation),
                np.array(joint.localPose0Position, dtype=float),
            )
            pose1 = (
                quat(joint.localPose1Orientation),
                np.array(joint.localPose1Position, dtype=float),
            )
            parent_side, child_side = (pose1, pose0) if turned else (pose0, pose1)
            parent_side = (parent_side[0], parent_side[1] * meters)
            child_side = (child_side[0], child_side[1] * meters)
            # the child's frame in the parent's at zero position: X_PJ X_JC both ways
            expected = compose(parent_side, invert(child_side))
            placed = compose(ours.pose, ours.child_pose)
            assert close(placed[1], expected[1], scale=max(meters, 1e-3))
            assert close(placed[0], expected[0], scale=1.0)
            if kind in ("RevoluteJoint", "PrismaticJoint"):
                # the axis in the parent's axes; a revolute one through the same point
                token = "XYZ".index(str(joint.axis).rsplit(".", 1)[-1])
                axis = parent_side[0][:, token]
                assert close(ours.pose[0] @ ours.axis, axis, scale=1.0)
                if kind == "RevoluteJoint":
                    offset = ours.pose[1] - parent_side[1]
                    assert close(np.cross(offset, axis), np.zeros(3), scale=max(meters, 1e-3))
            if kind in ("RevoluteJoint", "PrismaticJoint") and joint.limit.enabled:
                unit = math.pi / 180 if kind == "RevoluteJoint" else meters
                limits = [joint.limit.lower * unit, joint.limit.upper * unit]
                if turned:
                    limits = [-limits[1], -limits[0]]
                assert close([ours.limits["lower"], ours.limits["upper"]], limits)


STAGE = """
#usda 1.0
(
    defaultPrim = "robot"
    metersPerUnit = 0.01
    kilogramsPerUnit = 0.001
    upAxis = "Z"
)

def Xform "robot"
{
    def Xform "base" (
        prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"]
    )
    {
        float physics:mass = 2000
        point3f physics:centerOfMass = (1, 2, 3)
        float3 physics:diagonalInertia = (100, 200, 250)
        quatf physics:principalAxes = (0.5, 0.5, 0.5, 0.5)
        double3 xformOp:translate = (10, 0, 50)
        uniform token[] xformOpOrder = ["xformOp:translate"]

        def Cube "block" (
            prepend apiSchemas = ["PhysicsCollisionAPI"]
        )
        {
            double size = 2
            double3 xformOp:translate = (0, 0, 5)
            float3 xformOp:scale = (1, 2, 3)
            uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:scale"]
            color3f[] primvars:displayColor = [(1, 0, 0)]
            float[] primvars:displayOpacity = [0.5]
        }

        def Cube "look"
        {
            double size = 4
        }

        def Cylinder "axle" (
            prepend apiSchemas = ["PhysicsCollisionAPI", "PhysicsMassAPI"]
        )
        {
            uniform token axis = "X"
            double radius = 3
            double height = 20
            float physics:density = 7.85
        }
    }

    def Xform "arm" (
        prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"]
    )
    {
        float physics:mass = 500
        double3 xformOp:translate = (10, 0, 70)
        float3 xformOp:rotateXYZ = (0, 0, 90)
        uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:rotateXYZ"]

        def Capsule "link" (
            prepend apiSchemas = ["PhysicsCollisionAPI"]
        )
        {
            uniform token axis = "Y"
            double radius = 2
            double height = 30
            double3 xformOp:translate = (0, 15, 0)
            uniform token[] xformOpOrder = ["xformOp:translate"]
        }

        def Sphere "ball" (
            prepend apiSchemas = ["PhysicsCollisionAPI"]
        )
        {
            double radius = 4
            float3 xformOp:scale = (1, 1, 2)
            uniform token[] xformOpOrder = ["xformOp:scale"]
        }

        def Mesh "roof" (
            prepend apiSchemas = ["PhysicsCollisionAPI"]
        )
        {
            point3f[] points = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0.5, 0.5, 1)]
            int[] faceVertexCounts = [4, 3, 3, 3, 3]
            int[] faceVertexIndices = [0, 3, 2, 1, 0, 1, 4, 1, 2, 4, 2, 3, 4, 3, 0, 4]
        }
    }

    def Xform "tip" (
        prepend apiSchemas = ["PhysicsRigidBodyAPI"]
    )
    {
        double3 xformOp:translate = (10, 30, 70)
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }

    def Sphere "loose" (
        prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI", "PhysicsMassAPI"]
    )
    {
        float physics:mass = 100
        double radius = 5
        double3 xformOp:translate = (100, 0, 0)
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }

    def Scope "joints"
    {
        def PhysicsFixedJoint "mount"
        {
            rel physics:body1 = </robot/base>
            point3f physics:localPos0 = (10, 0, 50)
        }

        def PhysicsRevoluteJoint "shoulder"
        {
            uniform token physics:axis = "Z"
            rel physics:body0 = </robot/base>
            rel physics:body1 = </robot/arm>
            point3f physics:localPos0 = (0, 0, 20)
            quatf physics:localRot0 = (0.70710678, 0, 0, 0.70710678)
            float physics:lowerLimit = -90
            float physics:upperLimit = 45
        }

        def PhysicsPrismaticJoint "slide"
        {
            uniform token physics:axis = "Y"
            rel physics:body0 = </robot/tip>
            rel physics:body1 = </robot/arm>
            quatf physics:localRot0 = (0.70710678, 0, 0, 0.70710678)
            point3f physics:localPos1 = (30, 0, 0)
            float physics:lowerLimit = -5
            float physics:upperLimit = 10
        }
    }
}
"""


def test_stage_units_inertials_geometry_and_joints(tmp_path):
    path = write(tmp_path, "robot.usda", STAGE)
    description = usd.read(path)
    assert description.name == "robot" and description.format == "usd"
    base, arm, tip, loose = (description.links[n] for n in ("base", "arm", "tip", "loose"))
    # units: cm and g
    inertial = base.inertial
    assert inertial.mass == pytest.approx(2.0, rel=1e-15)
    assert close(inertial.center_of_mass, [0.01, 0.02, 0.03])
    assert close(np.diag(inertial.inertia), [1e-5, 2e-5, 2.5e-5])
    assert close(inertial.pose[0], Rotation.from_quat([0.5, 0.5, 0.5, 0.5]).as_matrix(), 1.0)
    assert inertial.layout == "usd" and inertial.source.element == "/robot/base"
    assert arm.inertial.given == {"mass"} and arm.inertial.mass == pytest.approx(0.5)
    assert tip.inertial is None
    block, axle = base.collisions
    (look,) = base.visuals
    assert block.kind == "box" and close(block.size, [0.02, 0.04, 0.06])
    assert close(block.pose[1], [0, 0, 0.05], scale=1.0) and block.rgba == (1.0, 0.0, 0.0, 0.5)
    assert look.kind == "box" and close(look.size, [0.04, 0.04, 0.04])
    assert axle.kind == "cylinder" and close(axle.size, [0.03, 0.2])
    assert close(axle.pose[0][:, 2], [1, 0, 0], scale=1.0)
    assert axle.density == pytest.approx(7850.0, rel=1e-6)  # 7.85 g/cm^3
    capsule, ball, roof = arm.collisions
    assert capsule.kind == "capsule" and close(capsule.size, [0.02, 0.3])
    assert close(capsule.pose[0][:, 2], [0, 1, 0], scale=1.0)
    assert close(capsule.pose[1], [0, 0.15, 0], scale=1.0)
    assert ball.kind == "ellipsoid" and close(ball.size, [0.04, 0.04, 0.08])
    assert roof.kind == "mesh" and roof.mesh is None
    assert roof.vertices.shape == (5, 3) and close(roof.vertices[4], [0.005, 0.005, 0.01])
    assert roof.faces.tolist()[:2] == [[0, 3, 2], [0, 2, 1]]  # the quad, fan-triangulated
    assert len(roof.faces) == 6
    (sphere,) = loose.collisions  # the body prim itself is its geometry
    assert sphere.kind == "sphere" and close(sphere.size, [0.05])
    # joints
    joints = description.joints
    assert joints["mount"].kind == "fixed" and joints["mount"].parent == "world"
    shoulder = joints["shoulder"]
    assert (shoulder.kind, shoulder.parent, shoulder.child) == ("revolute", "base", "arm")
    assert shoulder.limits == {
        "lower": pytest.approx(-math.pi / 2),
        "upper": pytest.approx(math.pi / 4),
    }
    assert np.array_equal(shoulder.axis, [0.0, 0.0, 1.0])
    slide = joints["slide"]  # written from the child's side: turned round
    assert (slide.kind, slide.parent, slide.child) == ("prismatic", "arm", "tip")
    assert slide.limits == {"lower": pytest.approx(-0.1), "upper": pytest.approx(0.05)}
    assert joints["loose_free"].kind == "floating" and description.moving("loose")
    notes = "\n".join(description.notes)
    assert "turned round" in notes and "metersPerUnit=0.01" in notes
    # every link where the stage puts it
    poses = world_poses(description)
    assert close(poses["arm"][1], [0.1, 0, 0.7], scale=1.0)
    assert close(poses["arm"][0], Rotation.from_euler("z", 90, degrees=True).as_matrix(), 1.0)
    assert close(poses["tip"][1], [0.1, 0.3, 0.7], scale=1.0)
    assert close(poses["tip"][0], np.eye(3), scale=1.0)
    compare_with_usd_physics(path)


def test_stage_without_meters_per_unit_takes_usds_centimetres(tmp_path):
    text = """
    #usda 1.0
    def Cube "box" (
        prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI", "PhysicsMassAPI"]
    )
    {
        double size = 10
        float physics:mass = 3
    }
    """
    description = usd.read(write(tmp_path, "bare.usda", text))
    assert close(description.links["box"].collisions[0].size, [0.1, 0.1, 0.1])
    assert description.links["box"].inertial.mass == 3.0
    assert any("fallback 0.01" in note for note in description.notes)


def test_binary_crate_reads_like_text(tmp_path):
    text_path = write(tmp_path, "robot.usda", STAGE)
    crate = tmp_path / "robot.usdc"
    Usd.Stage.Open(str(text_path)).Export(str(crate))
    a, b = usd.read(text_path), usd.read(crate)
    assert list(a.links) == list(b.links) and list(a.joints) == list(b.joints)
    for name in a.links:
        if a.links[name].inertial is not None:
            assert np.array_equal(
                a.links[name].inertial.inertia_in_link, b.links[name].inertial.inertia_in_link
            )


def test_mirrored_mesh_keeps_its_faces_outward(tmp_path):
    text = """
    #usda 1.0
    (
        metersPerUnit = 1
    )
    def Xform "body" (
        prepend apiSchemas = ["PhysicsRigidBodyAPI"]
    )
    {
        def Mesh "tet" (
            prepend apiSchemas = ["PhysicsCollisionAPI"]
        )
        {
            point3f[] points = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)]
            int[] faceVertexCounts = [3, 3, 3, 3]
            int[] faceVertexIndices = [0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3]
            float3 xformOp:scale = (-1, 1, 1)
            uniform token[] xformOpOrder = ["xformOp:scale"]
        }
    }
    """
    (tet,) = usd.read(write(tmp_path, "mirror.usda", text)).links["body"].collisions
    world = (tet.pose[0] @ tet.vertices.T).T + tet.pose[1]
    assert close(np.sort(world[:, 0]), [-1, 0, 0, 0], scale=1.0)
    a, b, c = (world[tet.faces[:, k]] for k in range(3))
    volume = np.einsum("ij,ij->i", a, np.cross(b, c)).sum() / 6
    assert volume == pytest.approx(1 / 6)  # outward faces: positive volume


@pytest.mark.parametrize(
    ("text", "match"),
    [
        (
            '#usda 1.0\ndef Xform "a" {\n  double3 xformOp:translate = (1, 2\n}\n',
            r"bad\.usda:4: usd=.*usd-core cannot parse the layer \(column \d+\)",
        ),
        (
            '#usda 1.0\ndef Xform "a" (prepend apiSchemas = ["PhysicsRigidBodyAPI"]) {}\n'
            'def PhysicsRevoluteJoint "j" {\n rel physics:body0 = </nowhere>\n'
            " rel physics:body1 = </a>\n}\n",
            r"bad\.usda: /j\.physics:body0='/nowhere': names no prim of the stage",
        ),
        (
            '#usda 1.0\ndef Xform "a" (prepend apiSchemas = ["PhysicsRigidBodyAPI"]) {\n'
            ' def Cube "c" (prepend apiSchemas = ["PhysicsCollisionAPI"]) {\n'
            "  matrix4d xformOp:transform = ((1, 0, 0, 0), (0.5, 1, 0, 0), (0, 0, 1, 0),"
            " (0, 0, 0, 1))\n"
            '  uniform token[] xformOpOrder = ["xformOp:transform"]\n }\n}\n',
            r"bad\.usda: /a/c=.*a transform with a shear is not read",
        ),
        (
            '#usda 1.0\ndef Xform "a" (prepend apiSchemas = ["PhysicsRigidBodyAPI"]) {}\n'
            'def PhysicsRevoluteJoint "j" {\n rel physics:body1 = </a>\n'
            ' uniform token physics:axis = "W"\n}\n',
            r"bad\.usda: /j\.physics:axis='W'",
        ),
    ],
)
def test_bad_stages_are_one_model_error(tmp_path, text, match):
    path = tmp_path / "bad.usda"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(rp.ModelError, match=match) as info:
        usd.read(path)
    assert "\n" not in str(info.value)


def test_missing_file(tmp_path):
    with pytest.raises(rp.ModelError, match="no such file"):
        usd.read(tmp_path / "none.usda")


def test_missing_extras_name_the_extra(tmp_path, monkeypatch):
    from rigidparts.formats import mjcf

    monkeypatch.setitem(sys.modules, "pxr", None)
    with pytest.raises(ImportError, match=r"rigidparts\[usd\]"):
        usd.read(write(tmp_path, "robot.usda", STAGE))
    monkeypatch.setitem(sys.modules, "mujoco", None)
    (tmp_path / "m.xml").write_text("<mujoco/>")
    with pytest.raises(ImportError, match=r"rigidparts\[sim\]"):
        mjcf.read(tmp_path / "m.xml")


# -- this project's exports -----------------------------------------------------------------------


def test_own_export_reads_back_the_models_mass_properties(tmp_path):
    example = Path(__file__).resolve().parents[1] / "examples" / "serial_arm.toml"
    model = rp.load_model(example)
    path = tmp_path / "m.usda"
    rp.export_model(model, path)
    description = usd.read(path)
    world = model.body_mass_properties()
    poses = model.body_poses()
    zero = model.body_poses(
        {
            joint.name: 0.0
            for joint in model.ordered_joints()
            if joint.child_body in description.links
            and description.parent_joint(joint.child_body).kind != "fixed"
        }
    )
    placed = world_poses(description)
    for name, properties in world.items():
        rotation, origin = poses[name]
        inertial = description.links[name].inertial
        assert inertial.mass == pytest.approx(properties.mass, rel=RELATIVE)
        com = rotation.T @ (properties.center_of_mass - origin)
        inertia = rotation.T @ properties.inertia @ rotation
        assert close(inertial.center_of_mass, com, scale=max(1.0, np.abs(com).max()))
        assert close(inertial.inertia_in_link, inertia)
        assert close(placed[name][1], zero[name][1], scale=1.0)
        assert close(placed[name][0], zero[name][0], scale=1.0)
    compare_with_usd_physics(path)


# -- real files nobody here wrote ---------------------------------------------------------------


def _installed(package: str, pattern: str) -> list[str]:
    try:
        module = __import__(package)
    except ImportError:
        return []
    return sorted(glob.glob(os.path.join(Path(module.__file__).parent, pattern), recursive=True))


#: Newton's USD assets (its joint-type unit tests and ant_multi, 64 copies of ant.usda, left out
#: for time).
REAL = [
    p
    for p in _installed("newton", "**/assets/**/*.usd*")
    if "kamino/testing" not in p and "ant_multi" not in p
]


@pytest.mark.skipif(not REAL, reason="no package with USD robot files installed")
@pytest.mark.parametrize("path", REAL, ids=[Path(p).name for p in REAL])
def test_real_files_read_as_usd_physics_reads_them(path):
    if Path(path).stat().st_size > 2_000_000:
        pytest.skip("large scene")
    compare_with_usd_physics(path, chain=False)


@settings(max_examples=20, deadline=None)
@given(
    angles=st.lists(st.floats(-180.0, 180.0), min_size=3, max_size=3),
    scale=st.lists(st.floats(0.2, 5.0), min_size=3, max_size=3),
    body_angles=st.lists(st.floats(-180.0, 180.0), min_size=3, max_size=3),
    axis=st.sampled_from(["X", "Y", "Z"]),
)
def test_any_transform_reads_as_usd_physics_reads_it(
    tmp_path_factory, angles, scale, body_angles, axis
):
    """Random rotations and scales on a body and its cube and capsule: poses and sizes as
    UsdPhysics' parser gives them; the cube's size against the hand-computed one."""
    a, s, b = (", ".join(repr(float(v)) for v in x) for x in (angles, scale, body_angles))
    text = f"""
    #usda 1.0
    (
        metersPerUnit = 1
    )
    def Xform "body" (
        prepend apiSchemas = ["PhysicsRigidBodyAPI"]
    )
    {{
        double3 xformOp:translate = (1, 2, 3)
        double3 xformOp:rotateXYZ = ({b})
        uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:rotateXYZ"]
        def Cube "cube" (
            prepend apiSchemas = ["PhysicsCollisionAPI"]
        )
        {{
            double size = 0.5
            double3 xformOp:translate = (0.1, -0.2, 0.3)
            double3 xformOp:rotateXYZ = ({a})
            double3 xformOp:scale = ({s})
            uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:rotateXYZ",
                                            "xformOp:scale"]
        }}
        def Capsule "capsule" (
            prepend apiSchemas = ["PhysicsCollisionAPI"]
        )
        {{
            uniform token axis = "{axis}"
            double radius = 0.1
            double height = 0.4
            double3 xformOp:rotateXYZ = ({a})
            uniform token[] xformOpOrder = ["xformOp:rotateXYZ"]
        }}
    }}
    """
    path = write(tmp_path_factory.mktemp("u"), "t.usda", text)
    compare_with_usd_physics(path)
    cube, capsule = usd.read(path).links["body"].collisions
    assert close(cube.size, 0.5 * np.array(scale))
    # rotateXYZ: x first, then y, then z, about fixed axes
    expected = Rotation.from_euler("xyz", angles, degrees=True).as_matrix()
    assert close(cube.pose[0], expected, scale=1.0)
    assert close(capsule.pose[0][:, 2], expected[:, "XYZ".index(axis)], scale=1.0)
