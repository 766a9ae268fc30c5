"""Native primitives both ways: ``shape_for_primitive`` (what the file readers use) and the
exporters' native capsule and ellipsoid.

1. For box, cylinder, sphere, capsule and ellipsoid given as URDF / SDFormat / MJCF place them
   in a geometry frame G, the body built from :func:`rigidparts.shapes.shape_for_primitive`,
   moved by its ``X_GA``, has the mass properties of the primitive computed independently:
   textbook closed forms written here (to rounding) and a fine trimesh primitive mesh centred
   on G (trimesh.creation.box / cylinder / capsule / icosphere stretched; to its faceting).
2. Round trip: the body's own ``spec.primitive``, placed by the exporters' ``body_geometry``,
   is the primitive given, centred on G's origin with its axis along G's z.
3. Bad kinds and sizes; the registry reads each kind with one shape.
4. Export: capsules and ellipsoids are native in MJCF and SDFormat (1.9), a capsule in USD,
   meshes in URDF (and an ellipsoid in USD); MuJoCo, Drake, Pinocchio and pybullet load the
   files; the primitive each engine got has exactly the body's mass properties; ``ign sdf -k``
   accepts the SDFormat file when installed.
"""

from __future__ import annotations

import math
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
import trimesh
from hypothesis import given
from hypothesis import strategies as st

import rigidparts as rp
from rigidparts.export import export
from rigidparts.export._common import FORMAT_KINDS, body_geometry
from rigidparts.model import Model
from rigidparts.shapes import (
    PRIMITIVE_KINDS,
    PRIMITIVE_SHAPES,
    SHAPES,
    ShapeSpec,
    shape_for_primitive,
)

DENSITY = 1000.0

#: kind -> sizes (SI) as the formats give them.
SIZES = {
    "box": [(0.4, 0.1, 0.25), (1e-3, 2.0, 0.3)],
    "cylinder": [(0.05, 0.6), (0.3, 0.01)],
    "sphere": [(0.2,)],
    "capsule": [(0.05, 0.6), (0.3, 0.01)],
    "ellipsoid": [(0.3, 0.2, 0.1), (0.05, 0.4, 0.4)],
}


def textbook(kind: str, size: tuple[float, ...], density: float):
    """Mass, centre of mass and central inertia of the primitive centred on G, in G's axes
    (axis of cylinder and capsule along z), from textbook formulas."""
    if kind == "box":
        a, b, c = size
        mass = density * a * b * c
        moments = [mass * (b * b + c * c) / 12, mass * (a * a + c * c) / 12,
                   mass * (a * a + b * b) / 12]  # fmt: skip
    elif kind == "cylinder":
        r, h = size
        mass = density * math.pi * r * r * h
        across = mass * (3 * r * r + h * h) / 12
        moments = [across, across, mass * r * r / 2]
    elif kind == "sphere":
        (r,) = size
        mass = density * 4 / 3 * math.pi * r**3
        moments = [0.4 * mass * r * r] * 3
    elif kind == "capsule":  # the cylinder plus two hemispheres (centroid 3r/8, 83/320 m r^2)
        r, h = size
        m_c = density * math.pi * r * r * h
        m_h = density * 2 / 3 * math.pi * r**3
        across = m_c * (3 * r * r + h * h) / 12 + 2 * (
            83 / 320 * m_h * r * r + m_h * (h / 2 + 3 * r / 8) ** 2
        )
        mass = m_c + 2 * m_h
        moments = [across, across, m_c * r * r / 2 + 2 * 0.4 * m_h * r * r]
    else:  # ellipsoid
        a, b, c = size
        mass = density * 4 / 3 * math.pi * a * b * c
        moments = [mass * (b * b + c * c) / 5, mass * (a * a + c * c) / 5,
                   mass * (a * a + b * b) / 5]  # fmt: skip
    return mass, np.zeros(3), np.diag(moments)


def fine_mesh(kind: str, size: tuple[float, ...]) -> trimesh.Trimesh:
    """The primitive as a fine trimesh mesh centred on G (trimesh's cylinder and capsule run
    along z; its capsule's ``height`` is the cylindrical part)."""
    if kind == "box":
        return trimesh.creation.box(extents=size)
    if kind == "cylinder":
        return trimesh.creation.cylinder(radius=size[0], height=size[1], sections=1024)
    if kind == "capsule":  # made at radius 1 (trimesh merges vertices closer than 1e-8)
        mesh = trimesh.creation.capsule(height=size[1] / size[0], radius=1.0, count=[256, 256])
        mesh.apply_scale(size[0])
        return mesh
    mesh = trimesh.creation.icosphere(subdivisions=6, radius=1.0)
    mesh.apply_scale(size * 3 if kind == "sphere" else size)
    return mesh


def body_in_g(kind: str, size: tuple[float, ...]):
    """The body of ``shape_for_primitive`` and its mass properties in G (mass, centre, central
    inertia in G's axes) through ``X_GA``."""
    spec, dimensions, options, (r_ga, p_ga) = shape_for_primitive(kind, size)
    body = rp.body_class(spec.name)(**dimensions, **options, density=DENSITY)
    com = r_ga @ body.center_of_mass + p_ga
    inertia = r_ga @ body.inertia @ r_ga.T
    return body, body.mass, com, inertia


CASES = [(kind, size) for kind, sizes in SIZES.items() for size in sizes]


@pytest.mark.parametrize(("kind", "size"), CASES)
def test_body_from_primitive_is_the_textbook_primitive(kind, size) -> None:
    _body, mass, com, inertia = body_in_g(kind, size)
    ref_mass, ref_com, ref_inertia = textbook(kind, size, DENSITY)
    scale = float(np.trace(ref_inertia))
    length = math.sqrt(scale / ref_mass)
    assert mass == pytest.approx(ref_mass, rel=1e-14)
    np.testing.assert_allclose(com, ref_com, rtol=0, atol=1e-15 * length)
    np.testing.assert_allclose(inertia, ref_inertia, rtol=0, atol=4e-15 * scale)
    # frame_a's axes are G's: the inertia needs no rotation.
    assert np.array_equal(shape_for_primitive(kind, size).pose[0], np.eye(3))


@given(
    kind=st.sampled_from(list(PRIMITIVE_KINDS)),
    numbers=st.lists(st.floats(1e-3, 1e3), min_size=3, max_size=3),
)
def test_random_primitives_are_the_textbook_primitive(kind, numbers) -> None:
    size = tuple(numbers[: PRIMITIVE_KINDS[kind]])
    _, mass, com, inertia = body_in_g(kind, size)
    ref_mass, _, ref_inertia = textbook(kind, size, DENSITY)
    scale = float(np.trace(ref_inertia))
    assert mass == pytest.approx(ref_mass, rel=1e-14)
    np.testing.assert_allclose(com, 0.0, rtol=0, atol=1e-15 * math.sqrt(scale / ref_mass))
    np.testing.assert_allclose(inertia, ref_inertia, rtol=0, atol=1e-14 * scale)


@pytest.mark.parametrize(("kind", "size"), CASES)
def test_body_from_primitive_is_a_fine_trimesh_primitive(kind, size) -> None:
    """The faceted meshes are inscribed: their volume is short by about 2 pi^2 / (3 N^2) for
    N segments around (1024: 6e-6; trimesh's capsule 256: 1e-4; icosphere of 6 subdivisions:
    about 4e-4)."""
    _, mass, com, inertia = body_in_g(kind, size)
    mesh = fine_mesh(kind, size)
    assert mesh.is_watertight
    mesh.density = DENSITY
    rel = 1e-12 if kind == "box" else 1e-3
    scale = float(np.trace(inertia))
    assert mesh.mass == pytest.approx(mass, rel=rel)
    np.testing.assert_allclose(mesh.center_mass, com, rtol=0, atol=1e-9 * math.sqrt(scale / mass))
    np.testing.assert_allclose(mesh.moment_inertia, inertia, rtol=0, atol=2 * rel * scale)


@pytest.mark.parametrize(("kind", "size"), CASES)
def test_round_trip_through_the_exporters_geometry(kind, size) -> None:
    """The body's native primitive, as the exporters place it in frame_a, is the primitive
    given, at G's origin, its axis along G's z."""
    body, *_ = body_in_g(kind, size)
    r_ga, p_ga = shape_for_primitive(kind, size).pose
    geometry = body_geometry(body)
    assert geometry.kind == kind
    assert geometry.size == pytest.approx(size, rel=0, abs=0)
    np.testing.assert_allclose(r_ga @ geometry.position + p_ga, 0.0, rtol=0, atol=1e-16)
    if kind in ("cylinder", "capsule"):
        np.testing.assert_array_equal(np.abs(r_ga @ geometry.rotation[:, 2]), [0, 0, 1])
    else:
        np.testing.assert_array_equal(r_ga @ geometry.rotation, np.eye(3))


def test_each_kind_is_read_by_one_shape() -> None:
    assert set(PRIMITIVE_SHAPES) == set(PRIMITIVE_KINDS)
    assert {k: s.name for k, s in PRIMITIVE_SHAPES.items()} == {
        "box": "box", "cylinder": "cylinder", "sphere": "ball", "capsule": "capsule",
        "ellipsoid": "ellipsoid",
    }  # fmt: skip


def test_two_shapes_reading_one_kind_is_a_bug(monkeypatch) -> None:
    import rigidparts.shapes as shapes

    fake = ShapeSpec(
        name="other_box", summary="", params=SHAPES["box"].params, rules=(),
        check=SHAPES["box"].check, closed_form=SHAPES["box"].closed_form,
        from_primitive={"box": SHAPES["box"].from_primitive["box"]},
    )  # fmt: skip
    monkeypatch.setattr(shapes, "SHAPES", {**SHAPES, "other_box": fake})
    with pytest.raises(RuntimeError, match="both read primitive 'box'"):
        shapes._primitive_shapes()
    with pytest.raises(TypeError, match="unknown primitive kind 'torus'"):
        ShapeSpec(name="t", summary="", params=SHAPES["box"].params, rules=(),
                  check=SHAPES["box"].check, closed_form=SHAPES["box"].closed_form,
                  from_primitive={"torus": lambda size: ({}, {}, None)})  # fmt: skip


@pytest.mark.parametrize(
    ("kind", "size", "parameter", "rule"),
    [
        ("torus", (1.0,), "kind", "must be one of box, cylinder, sphere, capsule, ellipsoid"),
        (None, (1.0,), "kind", "must be one of"),
        ("box", (1.0, 2.0), "size", "must be 3 numbers for a box primitive"),
        ("capsule", (1.0,), "size", "must be 2 numbers"),
        ("sphere", "abc", "size", "must be 1 number for a sphere"),
        ("ellipsoid", None, "size", "must be 3 numbers"),
    ],
)
def test_bad_kind_or_size(kind, size, parameter, rule) -> None:
    with pytest.raises(rp.ParameterError, match=rule) as info:
        shape_for_primitive(kind, size)
    assert info.value.parameter == parameter


@pytest.mark.parametrize(
    ("kind", "size", "parameter"),
    [("cylinder", (-0.1, 1.0), "radius"), ("capsule", (0.1, -1.0), "length"),
     ("box", (1.0, math.nan, 1.0), "height"), ("ellipsoid", (1.0, 1.0, 0.0), "radius_z"),
     ("sphere", (math.inf,), "radius")],
)  # fmt: skip
def test_bad_values_are_the_constructors_to_refuse(kind, size, parameter) -> None:
    spec, dimensions, options, _ = shape_for_primitive(kind, size)
    with pytest.raises(rp.ParameterError) as info:
        rp.body_class(spec.name)(**dimensions, **options)
    assert info.value.parameter == parameter


def test_a_zero_length_capsule_is_a_ball() -> None:
    spec, dimensions, options, _pose = shape_for_primitive("capsule", (0.2, 0.0))
    body = rp.body_class(spec.name)(**dimensions, **options)
    assert body.mass == rp.Ball(radius=0.2).mass
    assert body_geometry(body).kind == "sphere"


# -- 4. export ----------------------------------------------------------------------------------


def primitives_model() -> Model:
    """A chain: solid capsules along z and along a skew axis, a hollow capsule, a ball-like
    capsule (L = 0), ellipsoids, one given by mass."""
    model = Model("primitives")
    bodies = {
        "capsule_z": rp.Capsule(length=0.4, radius=0.05, axis=(0, 0, 1)),
        "capsule_skew": rp.Capsule(length=0.3, radius=0.04, axis=(1.0, 2.0, 3.0),
                                   material="aluminium"),
        "capsule_hollow": rp.Capsule(length=0.3, radius=0.04, inner_radius=0.03),
        "capsule_ball": rp.Capsule(length=0.0, radius=0.06),
        "ellipsoid": rp.Ellipsoid(radius_x=0.1, radius_y=0.07, radius_z=0.05),
        "ellipsoid_mass": rp.Ellipsoid(radius_x=0.05, radius_y=0.12, radius_z=0.08, mass=2.5),
    }  # fmt: skip
    previous = None
    for i, (name, body) in enumerate(bodies.items()):
        model.add_body(name, body)
        if previous is None:
            model.add_joint("j_" + name, "revolute", "world", f"{name}.frame_a",
                            axis=(0, 1, 0), position=(0.0, 0.0, 1.0))  # fmt: skip
        else:
            model.add_joint("j_" + name, "revolute", f"{previous}.frame_com", f"{name}.frame_a",
                            axis=(1, 0, i % 2), position=(0.1, 0.02, -0.05))  # fmt: skip
        previous = name
    return model


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    model = primitives_model()
    folder = tmp_path_factory.mktemp("primitives")
    paths = {}
    for fmt, suffix in (("mjcf", ".xml"), ("urdf", ".urdf"), ("sdf", ".sdf"), ("usd", ".usda")):
        if fmt == "usd":
            pytest.importorskip("pxr")
        paths[fmt] = folder / f"primitives{suffix}"
        export(model, paths[fmt], fmt)
    return model, paths


def expected_kind(body: rp.Component, fmt: str) -> str:
    primitive = body.spec.primitive(body.dimensions)
    if primitive is None or primitive.kind not in FORMAT_KINDS[fmt]:
        return "mesh"
    return primitive.kind


def test_expected_kinds() -> None:
    model = primitives_model()
    table = {name: {fmt: expected_kind(b, fmt) for fmt in FORMAT_KINDS}
             for name, b in model.bodies.items()}  # fmt: skip
    assert table["capsule_z"] == {"mjcf": "capsule", "sdf": "capsule", "urdf": "mesh",
                                  "usd": "capsule"}  # fmt: skip
    assert table["capsule_hollow"] == dict.fromkeys(FORMAT_KINDS, "mesh")
    assert table["capsule_ball"] == dict.fromkeys(FORMAT_KINDS, "sphere")
    assert table["ellipsoid"] == {"mjcf": "ellipsoid", "sdf": "ellipsoid", "urdf": "mesh",
                                  "usd": "mesh"}  # fmt: skip


@pytest.mark.parametrize("fmt", ["mjcf", "urdf", "sdf"])
def test_files_hold_the_native_kinds(files, fmt) -> None:
    model, paths = files
    root = ET.parse(paths[fmt]).getroot()
    for name, body in model.bodies.items():
        if fmt == "mjcf":
            kinds = [g.get("type") for g in root.iter("geom") if g.get("name") == name]
        else:
            link = next(k for k in root.iter("link") if k.get("name") == name)
            kinds = [next(iter(e.find("geometry"))).tag for t in ("visual", "collision")
                     for e in link.findall(t)]  # fmt: skip
        assert kinds and set(kinds) == {expected_kind(body, fmt)}, (name, fmt, kinds)
    if fmt == "sdf":
        version = tuple(int(part) for part in root.get("version").split("."))
        assert version >= (1, 8)  # capsule and ellipsoid
        capsule = next(k for k in root.iter("link") if k.get("name") == "capsule_z")
        assert capsule.find("collision/geometry/capsule/length").text == "0.4"
        assert capsule.find("collision/geometry/capsule/radius").text == "0.05"
        ellipsoid = next(k for k in root.iter("link") if k.get("name") == "ellipsoid")
        assert ellipsoid.find("visual/geometry/ellipsoid/radii").text == "0.1 0.07 0.05"


def primitive_properties(kind, size, rotation, position, density):
    """A primitive placed at (rotation, position) in the body frame: mass, centre, inertia."""
    mass, _, inertia = textbook(kind, tuple(size), density)
    rotation = np.asarray(rotation)
    return mass, np.asarray(position), rotation @ inertia @ rotation.T


def assert_is_the_body(body, kind, size, rotation, position) -> None:
    mass, com, inertia = primitive_properties(kind, size, rotation, position, body.density)
    scale = float(np.trace(body.inertia))
    assert mass == pytest.approx(body.mass, rel=1e-12)
    np.testing.assert_allclose(com, body.center_of_mass, rtol=0, atol=1e-12)
    np.testing.assert_allclose(inertia, body.inertia, rtol=0, atol=1e-12 * scale)


def test_mujoco_loads_native_capsules_and_ellipsoids(files) -> None:
    mujoco = pytest.importorskip("mujoco")
    from scipy.spatial.transform import Rotation

    model, paths = files
    for fmt in ("mjcf", "urdf"):
        mj = mujoco.MjModel.from_xml_path(str(paths[fmt]))
        types = {mujoco.mjtGeom.mjGEOM_CAPSULE: "capsule", mujoco.mjtGeom.mjGEOM_SPHERE:
                 "sphere", mujoco.mjtGeom.mjGEOM_ELLIPSOID: "ellipsoid",
                 mujoco.mjtGeom.mjGEOM_MESH: "mesh"}  # fmt: skip
        for name, body in model.bodies.items():
            b = mj.body(name)
            assert b.mass[0] == pytest.approx(body.mass, rel=1e-15)
            geoms = np.flatnonzero(mj.geom_bodyid == b.id)
            assert geoms.size >= 1
            for g in geoms:
                kind = types[int(mj.geom_type[g])]
                assert kind == expected_kind(body, fmt), (name, fmt)
                if kind == "mesh":
                    continue
                half = mj.geom_size[g]
                size = {"capsule": (half[0], 2 * half[1]), "sphere": half[:1],
                        "ellipsoid": half}[kind]  # fmt: skip
                w, x, y, z = mj.geom_quat[g]
                rotation = Rotation.from_quat([x, y, z, w]).as_matrix()
                assert_is_the_body(body, kind, size, rotation, mj.geom_pos[g])


def test_drake_loads_the_sdformat_and_urdf_files(files) -> None:
    pytest.importorskip("pydrake")
    from pydrake.geometry import Capsule, Convex, Ellipsoid, Mesh, Role, Sphere
    from pydrake.multibody.parsing import Parser
    from pydrake.multibody.plant import AddMultibodyPlantSceneGraph
    from pydrake.systems.framework import DiagramBuilder

    model, paths = files
    for fmt in ("sdf", "urdf"):
        builder = DiagramBuilder()
        plant, scene_graph = AddMultibodyPlantSceneGraph(builder, 0.0)
        Parser(plant).AddModels(str(paths[fmt]))
        plant.Finalize()
        inspector = scene_graph.model_inspector()
        for name, body in model.bodies.items():
            frame = plant.GetBodyFrameIdOrThrow(plant.GetBodyByName(name).index())
            for role in (Role.kIllustration, Role.kProximity):
                (gid,) = inspector.GetGeometries(frame, role)
                shape = inspector.GetShape(gid)
                if isinstance(shape, Mesh | Convex):
                    assert expected_kind(body, fmt) == "mesh", (name, fmt)
                    continue
                if isinstance(shape, Capsule):
                    kind, size = "capsule", (shape.radius(), shape.length())
                elif isinstance(shape, Ellipsoid):
                    kind, size = "ellipsoid", (shape.a(), shape.b(), shape.c())
                else:
                    assert isinstance(shape, Sphere), shape
                    kind, size = "sphere", (shape.radius(),)
                assert kind == expected_kind(body, fmt), (name, fmt)
                pose = inspector.GetPoseInFrame(gid)
                assert_is_the_body(body, kind, size, pose.rotation().matrix(), pose.translation())


def test_pinocchio_and_pybullet_load_the_urdf(files) -> None:
    model, paths = files
    pin = pytest.importorskip("pinocchio")
    pm = pin.buildModelFromUrdf(str(paths["urdf"]))
    geometry = pin.buildGeomFromUrdf(pm, str(paths["urdf"]), pin.GeometryType.COLLISION,
                                     package_dirs=[str(paths["urdf"].parent)])  # fmt: skip
    assert len(geometry.geometryObjects) == len(model.bodies)
    pybullet = pytest.importorskip("pybullet")
    client = pybullet.connect(pybullet.DIRECT)
    try:
        robot = pybullet.loadURDF(str(paths["urdf"]), physicsClientId=client)
        assert pybullet.getNumJoints(robot, physicsClientId=client) >= len(model.bodies)
    finally:
        pybullet.disconnect(client)


def test_usd_holds_a_native_capsule(files) -> None:
    pytest.importorskip("pxr")
    from pxr import Usd, UsdGeom

    _model, paths = files
    stage = Usd.Stage.Open(str(paths["usd"]))
    found = {}
    for prim in stage.Traverse():
        if prim.GetName() == "geometry":
            found[prim.GetParent().GetName()] = prim
    capsule = UsdGeom.Capsule(found["capsule_z"])
    assert capsule and capsule.GetHeightAttr().Get() == 0.4
    assert capsule.GetRadiusAttr().Get() == 0.05 and capsule.GetAxisAttr().Get() == "Z"
    assert UsdGeom.Mesh(found["ellipsoid"]) and UsdGeom.Mesh(found["capsule_hollow"])
    assert UsdGeom.Sphere(found["capsule_ball"])


def test_sdformat_checker_accepts_the_file(files) -> None:
    ign = shutil.which("ign") or shutil.which("gz")
    if ign is None:
        pytest.skip("the SDFormat checker (ign sdf -k) is not installed")
    _, paths = files
    done = subprocess.run([ign, "sdf", "-k", str(paths["sdf"])], capture_output=True,
                          text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Valid" in done.stdout


def test_pictures_and_command_line_come_from_the_registry(tmp_path: Path) -> None:
    """The command line and TOML pick the new shapes up with no edit."""
    from rigidparts.commands import main

    for argv in (["capsule", "--length", "0.2", "--radius", "50 mm", "--json"],
                 ["ellipsoid", "--radius-x", "0.3", "--json"]):  # fmt: skip
        assert main(argv) == 0
