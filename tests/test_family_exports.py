"""A model holding every registered shape, in every variant the shape takes, exports to MJCF,
URDF and SDFormat with the geometry the formats hold natively (box, cylinder, sphere; capsule and
ellipsoid in MJCF and SDFormat) where the body is solid and such a primitive, and a mesh
otherwise; the Linkage's visual is its link mesh
(its mass model is a cuboid, its drawing is not).

The model is built from the registry (:data:`rigidparts.shapes.SHAPES`, :func:`rp.body_class`)
and each shape's specification, so a shape added later joins it with no edit here; the engine
checks of ``tests/test_export_engines.py`` load it ("every_shape") in MuJoCo, Pinocchio and
Drake. Run this file as a script for the worst relative inertial error per engine and format:

    .venv/bin/python tests/test_family_exports.py
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, reject, settings
from hypothesis import strategies as st

import rigidparts as rp
from family_model import GIVEN_MASS, every_shape_model, extra_frames, variants
from rigidparts.export import export
from rigidparts.export._common import FORMAT_KINDS
from rigidparts.model import Model
from rigidparts.shapes import SHAPES
from test_export_engines import (
    EXACT,
    MUJOCO_URDF,
    TOLERANCE,
    drake_plant,
    in_frame,
    mujoco_body_errors,
    relative_error,
    rigid_group,
)

# -- what geometry each body gets ------------------------------------------------------------

#: The geometry each body of the model must get in every format, for the shapes known today
#: (a shape added later is checked by the rules of the tests alone): a native primitive where
#: the body is solid and is one, a mesh otherwise. The Linkage's mass model is a cuboid but
#: its drawing is a link with rounded ends and pin holes: always a mesh.
EXPECTED = {
    "ball_solid": "sphere",
    "ball_hollow": "mesh",
    "ball_thin": "mesh",
    "ball_by_mass": "sphere",
    "box_solid": "box",
    "box_hollow": "mesh",
    "box_thin": "mesh",
    "box_rotate90": "box",
    "box_by_mass": "box",
    "cone_solid": "mesh",
    "cone_hollow": "mesh",
    "cone_thin": "mesh",
    "cone_by_mass": "mesh",
    "cone_equal_radii": "cylinder",
    "cylinder_solid": "cylinder",
    "cylinder_hollow": "mesh",
    "cylinder_thin": "mesh",
    "cylinder_by_mass": "cylinder",
    "disk_solid": "cylinder",
    "disk_hollow": "mesh",
    "disk_thin": "mesh",
    "disk_by_mass": "cylinder",
    "ibeam_solid": "mesh",
    "ibeam_rotate90": "mesh",
    "ibeam_by_mass": "mesh",
    "ibeam_no_fillet": "mesh",
    "ibeam_web_as_wide": "box",
    "linkage_solid": "mesh",
    "linkage_rotate90": "mesh",
    "linkage_by_mass": "mesh",
}
#: Shapes whose drawing is not their mass model (no primitive, and the mesh's volume differs).
DRAWING_IS_NOT_MASS_MODEL = {"linkage"}
SUFFIXES = {"mjcf": ".xml", "urdf": ".urdf", "sdf": ".sdf"}
#: Relative volume error a 64-section mesh may have: a round section loses (2 pi / 64)^2 / 6 =
#: 1.6e-3, a sphere (polygonal around and along) about twice that; planar bodies are exact.
MESH_VOLUME = 4e-3


def shape_of(body_name: str) -> str:
    """The shape of a body of the model, from its name ``<shape>_<variant>``."""
    return max((s for s in SHAPES if body_name.startswith(s + "_")), key=len)


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> tuple[Model, dict[str, Path]]:
    """The every-shape model written in each format (64 sections), meshes beside it."""
    folder = tmp_path_factory.mktemp("every_shape")
    model = every_shape_model()
    # One folder per format: their mesh folders differ (URDF draws capsules as meshes).
    paths = {fmt: folder / fmt / f"every_shape{suffix}" for fmt, suffix in SUFFIXES.items()}
    for path in paths.values():
        export(model, path)
    return model, paths


def test_the_model_holds_every_registered_shape_in_every_variant():
    model = every_shape_model()
    for name, spec in SHAPES.items():
        mine = {b: body for b, body in model.bodies.items() if shape_of(b) == name}
        assert {f"{name}_{v}" for v in variants(name)} == set(mine)
        assert all(type(body) is rp.body_class(name) for body in mine.values())
        assert mine[f"{name}_by_mass"].mass == GIVEN_MASS
        if any(p.startswith("inner_") for p in spec.parameter_names):
            assert {f"{name}_hollow", f"{name}_thin"} <= set(mine)
        if spec.cross_section:
            assert mine[f"{name}_rotate90"].rotate90
        if spec.axis:  # skew axes turn the section off frame_a's axes
            turned = [np.count_nonzero(np.abs(b.rotation_from_canonical) > 1e-9) > 3
                      for b in mine.values()]  # fmt: skip
            assert sum(turned) >= len(mine) - 1, name
        if spec.extra_frames == "radial":  # each radial frame turned about the axis
            solid = mine[f"{name}_solid"]
            axis = solid.rotation_from_canonical[:, 0]
            for i, (radius, angle) in enumerate(solid.extra_frames, start=1):
                frame = solid.frames[f"frame_c{i}"]
                np.testing.assert_allclose(frame.rotation @ axis, axis, atol=1e-15)
                assert math.isclose(np.trace(frame.rotation), 1 + 2 * math.cos(angle),
                                    abs_tol=1e-15)  # fmt: skip
                assert math.isclose(np.linalg.norm(frame.position), radius, abs_tol=1e-15)
    assert set(EXPECTED) <= set(model.bodies)  # the table names no body the model lacks
    kinds = [joint.type for joint in model.joints.values()]
    assert {"revolute", "prismatic", "fixed"} <= set(kinds)
    assert sum(j.child.endswith(".frame_c1") for j in model.joints.values()) >= 2


def file_geometry(fmt: str, path: Path) -> dict[str, list[str]]:
    """body -> the geometry kinds its file gives it (MJCF: the geom; URDF, SDFormat: visual
    and collision), read from the XML."""
    root = ET.parse(path).getroot()
    out: dict[str, list[str]] = {}
    if fmt == "mjcf":
        for geom in root.iter("geom"):
            out.setdefault(geom.get("name"), []).append(geom.get("type"))
        return out
    links = root.iter("link")
    for link in links:
        for tag in ("visual", "collision"):
            for element in link.findall(tag):
                (shape,) = list(element.find("geometry"))
                out.setdefault(link.get("name"), []).append(shape.tag)
    return out


@pytest.mark.parametrize("fmt", list(SUFFIXES))
def test_each_file_holds_native_primitives_for_solid_bodies_and_meshes_otherwise(files, fmt):
    model, paths = files
    found = file_geometry(fmt, paths[fmt])
    for name, body in model.bodies.items():
        kinds = found[name]
        assert len(kinds) == (1 if fmt == "mjcf" else 2), name  # URDF, SDF: visual, collision
        assert len(set(kinds)) == 1, name  # the visual is what collides
        expected = EXPECTED.get(name)
        if expected is None:  # a shape the table does not know yet: its own specification
            primitive = body.spec.primitive
            native = primitive is not None and primitive(body.dimensions) is not None
            expected = primitive(body.dimensions).kind if native else "mesh"
            expected = expected if expected in FORMAT_KINDS[fmt] else "mesh"
        assert kinds[0] == expected, (name, fmt)
    # One file per distinct mesh: bodies of equal shape, size and axes share the first one's.
    meshes = {p.stem for p in (paths[fmt].parent / "every_shape_meshes").glob("*.obj")}
    drawn = {n for n, kinds in found.items() if kinds[0] == "mesh" and n in model.bodies}
    assert meshes <= drawn and meshes
    for name in drawn - meshes:
        twin = [m for m in meshes if _same_mesh(model.bodies[m], model.bodies[name])]
        assert twin, f"{name} is drawn as a mesh but has no file of its own mesh"


def _same_mesh(a: rp.Component, b: rp.Component) -> bool:
    mesh_a, mesh_b = a.mesh(64), b.mesh(64)
    return bool(
        np.array_equal(mesh_a.vertices, mesh_b.vertices)
        and np.array_equal(mesh_a.faces, mesh_b.faces)
    )


def primitive_mass_properties(kind: str, size, rotation, position, density: float):
    """A homogeneous box (full extents along the geometry frame's x, y, z), cylinder (radius,
    length; axis along z) or sphere (radius) at ``(rotation, position)`` in the body frame:
    mass (kg), centre of mass (m) and central inertia (kg m^2) in the body frame."""
    if kind == "box":
        a, b, c = size
        mass = density * a * b * c
        moments = mass / 12 * np.array([b * b + c * c, a * a + c * c, a * a + b * b])
    elif kind == "cylinder":
        r, length = size
        mass = density * math.pi * r * r * length
        across = mass * (3 * r * r + length * length) / 12
        moments = np.array([across, across, mass * r * r / 2])
    elif kind == "sphere":
        (r,) = size
        mass = density * 4 / 3 * math.pi * r**3
        moments = np.full(3, 0.4 * mass * r * r)
    elif kind == "capsule":  # (radius, cylindrical part) along z: cylinder + two hemispheres
        r, length = size
        m_c = density * math.pi * r * r * length
        m_h = density * 2 / 3 * math.pi * r**3  # centroid 3r/8 off its face, 83/320 m r^2
        across = m_c * (3 * r * r + length * length) / 12 + 2 * m_h * (
            83 * r * r / 320 + (length / 2 + 3 * r / 8) ** 2
        )
        mass = m_c + 2 * m_h
        moments = np.array([across, across, m_c * r * r / 2 + 0.8 * m_h * r * r])
    elif kind == "ellipsoid":
        a, b, c = size
        mass = density * 4 / 3 * math.pi * a * b * c
        moments = mass / 5 * np.array([b * b + c * c, a * a + c * c, a * a + b * b])
    else:
        raise AssertionError(kind)
    rotation = np.asarray(rotation)
    return mass, np.asarray(position), rotation @ np.diag(moments) @ rotation.T


def mujoco_geometries(path: Path, bodies) -> dict[str, list[tuple]]:
    """body -> [(kind, size, rotation, position in the body frame)] as MuJoCo loaded them."""
    mujoco = pytest.importorskip("mujoco")
    from scipy.spatial.transform import Rotation

    mj = mujoco.MjModel.from_xml_path(str(path))
    geom = mujoco.mjtGeom
    kinds = {geom.mjGEOM_BOX: "box", geom.mjGEOM_CYLINDER: "cylinder",
             geom.mjGEOM_SPHERE: "sphere", geom.mjGEOM_MESH: "mesh",
             geom.mjGEOM_CAPSULE: "capsule", geom.mjGEOM_ELLIPSOID: "ellipsoid"}  # fmt: skip
    out: dict[str, list[tuple]] = {}
    for name in bodies:
        body_id = mj.body(name).id
        for g in np.flatnonzero(mj.geom_bodyid == body_id):
            kind = kinds[int(mj.geom_type[g])]
            half = mj.geom_size[g]
            size = {"box": 2 * half, "cylinder": (half[0], 2 * half[1]), "sphere": half[:1],
                    "capsule": (half[0], 2 * half[1]), "ellipsoid": half,
                    "mesh": ()}[kind]  # fmt: skip
            w, x, y, z = mj.geom_quat[g]
            rotation = Rotation.from_quat([x, y, z, w]).as_matrix()
            out.setdefault(name, []).append((kind, tuple(size), rotation, mj.geom_pos[g].copy()))
    return out


def drake_geometries(path: Path, bodies) -> dict[str, list[tuple]]:
    """body -> [(kind, size, rotation, position)] of its illustration and proximity geometry
    in Drake's scene graph."""
    pytest.importorskip("pydrake")
    from pydrake.geometry import Box, Capsule, Convex, Cylinder, Ellipsoid, Mesh, Role, Sphere

    plant, scene_graph = drake_plant(path)
    inspector = scene_graph.model_inspector()
    out: dict[str, list[tuple]] = {}
    for name in bodies:
        frame = plant.GetBodyFrameIdOrThrow(plant.GetBodyByName(name).index())
        for role in (Role.kIllustration, Role.kProximity):
            for gid in inspector.GetGeometries(frame, role):
                shape = inspector.GetShape(gid)
                if isinstance(shape, Box):
                    kind, size = "box", (shape.width(), shape.depth(), shape.height())
                elif isinstance(shape, Cylinder):
                    kind, size = "cylinder", (shape.radius(), shape.length())
                elif isinstance(shape, Sphere):
                    kind, size = "sphere", (shape.radius(),)
                elif isinstance(shape, Capsule):
                    kind, size = "capsule", (shape.radius(), shape.length())
                elif isinstance(shape, Ellipsoid):
                    kind, size = "ellipsoid", (shape.a(), shape.b(), shape.c())
                else:
                    assert isinstance(shape, Mesh | Convex), (name, shape)
                    kind, size = "mesh", (Path(shape.source().path()).name,)
                pose = inspector.GetPoseInFrame(gid)
                out.setdefault(name, []).append(
                    (kind, size, pose.rotation().matrix(), pose.translation())
                )
    return out


def pinocchio_geometries(path: Path, bodies) -> dict[str, list[tuple]]:
    """body -> [(kind, size, rotation, position in the body's frame)] of its visual and
    collision geometry objects as Pinocchio (coal) loaded them."""
    pin = pytest.importorskip("pinocchio")
    import coal

    pm = pin.buildModelFromUrdf(str(path))
    out: dict[str, list[tuple]] = {}
    for role in (pin.GeometryType.VISUAL, pin.GeometryType.COLLISION):
        geometry = pin.buildGeomFromUrdf(pm, str(path), role, package_dirs=[str(path.parent)])
        for obj in geometry.geometryObjects:
            frame = pm.frames[obj.parentFrame]
            if frame.name not in bodies:
                continue
            shape = obj.geometry
            if isinstance(shape, coal.Box):
                kind, size = "box", tuple(2 * shape.halfSide)
            elif isinstance(shape, coal.Cylinder):
                kind, size = "cylinder", (shape.radius, 2 * shape.halfLength)
            elif isinstance(shape, coal.Sphere):
                kind, size = "sphere", (shape.radius,)
            else:
                kind, size = "mesh", (Path(obj.meshPath).name,)
            # the object is placed in its joint's frame; the link's frame is frame.placement
            placement = frame.placement.actInv(obj.placement)
            out.setdefault(frame.name, []).append(
                (kind, size, placement.rotation, placement.translation)
            )
    return out


ENGINES = {
    ("mujoco", "mjcf"): mujoco_geometries,
    ("mujoco", "urdf"): mujoco_geometries,
    ("pinocchio", "urdf"): pinocchio_geometries,
    ("drake", "urdf"): drake_geometries,
    ("drake", "sdf"): drake_geometries,
}


@pytest.mark.parametrize(("engine", "fmt"), list(ENGINES))
def test_the_engines_get_each_bodys_geometry_and_primitives_are_the_body(files, engine, fmt):
    """What each engine loaded: every geometry of a body is of the expected kind (MuJoCo's
    URDF reader and Drake keep a visual and a collision copy); a native primitive, with the
    body's density, has exactly the body's mass, centre of mass and inertia (so it is the body,
    placed right); a mesh is the body's own file."""

    model, paths = files
    loaded = ENGINES[engine, fmt](paths[fmt], model.bodies)
    for name, body in model.bodies.items():
        geometries = loaded[name]
        assert len(geometries) == (1 if fmt == "mjcf" else 2), (name, engine, fmt)
        for kind, size, rotation, position in geometries:
            assert kind == EXPECTED.get(name, kind), (name, engine, fmt)
            if kind == "mesh":
                if engine != "mujoco":  # MuJoCo keeps no file name
                    (filename,) = size  # the body's own file, or that of an equal body
                    owner = model.bodies[filename.removesuffix(".obj")]
                    assert _same_mesh(owner, body), (name, engine, fmt)
                continue
            assert shape_of(name) not in DRAWING_IS_NOT_MASS_MODEL, name
            props = primitive_mass_properties(kind, size, rotation, position, body.density)
            error = relative_error(body.mass_properties, *props)
            assert error <= TOLERANCE, (name, engine, fmt, error)


def test_mesh_files_are_the_bodies_own_meshes(files):
    """Each OBJ beside the files is ``body.mesh(64)`` (vertices to the 1e-15 m the file
    keeps), closed, and for a body drawn as it is, of the body's volume (64 sections)."""
    trimesh = pytest.importorskip("trimesh")
    model, paths = files
    folder = paths["urdf"].parent / "every_shape_meshes"
    for obj in sorted(folder.glob("*.obj")):
        body = model.bodies[obj.stem]
        loaded = trimesh.load(obj, process=False, force="mesh")
        own = body.mesh(64)
        np.testing.assert_allclose(loaded.vertices, own.vertices, rtol=0, atol=1e-15)
        np.testing.assert_array_equal(loaded.faces, own.faces)
        assert own.is_watertight, obj.stem
        drawn_as_it_is = (
            body.volume is not None and shape_of(obj.stem) not in DRAWING_IS_NOT_MASS_MODEL
        )
        if drawn_as_it_is and body.volume > 1e-9:  # (a body given by its mass: no volume)
            assert abs(own.volume / body.volume - 1) <= MESH_VOLUME, obj.stem


def test_the_linkage_is_drawn_as_a_link_not_as_its_mass_model():
    """Its mass properties are the solid Box's with the same arguments, bit for bit, yet its
    file geometry is a mesh with two pin holes reaching past frame_a and frame_b by H/2."""
    if "linkage" not in SHAPES:
        pytest.skip("no linkage registered")
    for name, keywords in variants("linkage").items():
        link = rp.body_class("linkage")(**keywords, axis=(1, 2, 3))
        box = rp.body_class("box")(**keywords, axis=(1, 2, 3))
        assert np.array_equal(link.inertia, box.inertia) and link.mass == box.mass, name
        mesh = link.mesh(64)
        assert mesh.euler_number == -2  # a closed surface with two holes through it (genus 2)
        along = mesh.vertices @ link.rotation_from_canonical[:, 0]
        reach = 0.5 * link.dimensions["height"]
        assert math.isclose(along.min(), -reach, rel_tol=1e-12)
        assert math.isclose(along.max(), link.dimensions["length"] + reach, rel_tol=1e-12)


# -- any registered body, any axis -----------------------------------------------------------

axes = st.tuples(*[st.floats(-1, 1)] * 3).filter(lambda v: np.linalg.norm(v) > 0.1)


@st.composite
def registered_bodies(draw) -> rp.Component:
    """Any registered shape: its lengths the defaults times one scale and a jitter each, bores
    a fraction of their outer dimension, any axis, section turned or not, extra frames."""
    name = draw(st.sampled_from(list(SHAPES)))
    spec = SHAPES[name]
    scale = draw(st.floats(0.05, 3.0))
    example = spec.example_kwargs()
    dims = {p.name: example[p.name] * scale * draw(st.floats(0.8, 1.25)) if p.kind == "length"
            else example[p.name] for p in spec.params}  # fmt: skip
    for p in list(dims):
        outer = p.removeprefix("inner_")
        if p != outer and outer in dims:
            dims[p] = dims[outer] * draw(st.sampled_from([0.0, 0.5, 0.95, 1.0 - 1e-9]))
    keywords: dict[str, Any] = (
        {"mass": draw(st.floats(0.01, 100))}
        if spec.mass_only
        else {"density": draw(st.floats(100, 20000))}
    )
    if spec.axis:
        keywords["axis"] = draw(axes)
    if spec.cross_section:
        keywords["rotate90"] = draw(st.booleans())
    if spec.extra_frames is not None:
        keywords[spec.frames_keyword] = extra_frames(spec, dims)
    try:
        return rp.body_class(name)(**dims, **keywords)
    except rp.ParameterError:  # a jitter that broke one of the shape's rules
        reject()


@settings(max_examples=40, deadline=None)
@given(registered_bodies(), registered_bodies(), axes, st.data())
def test_any_two_registered_bodies_arrive_exactly_in_mujoco_and_pinocchio(
    first, second, hinge_axis, data
):
    mujoco = pytest.importorskip("mujoco")
    pin = pytest.importorskip("pinocchio")
    from rigidparts.export.mjcf import to_mjcf
    from rigidparts.export.urdf import to_urdf

    hinge = "first." + data.draw(st.sampled_from(sorted(first.frames)))
    weld = "first." + data.draw(st.sampled_from(sorted(first.frames)))
    model = Model("random")
    model.add_body("first", first)
    model.add_body("second", second)
    model.add_joint("hinge", "revolute", "world", hinge, axis=hinge_axis)
    model.add_joint("weld", "fixed", weld,
                    "second." + data.draw(st.sampled_from(sorted(second.frames))))  # fmt: skip
    mj = mujoco.MjModel.from_xml_string(to_mjcf(model, sections=8))  # meshes embedded
    assert mujoco_body_errors(mujoco, mj, model) <= EXACT
    pm = pin.buildModelFromXML(to_urdf(model, sections=8))  # kinematics only: no mesh files
    zero = model.zero_positions()
    world = model.body_mass_properties(zero)
    r, p = model.frame_poses(zero)[hinge]
    reference = in_frame(world["first"] + world["second"], r, p)
    inertia = pm.inertias[pm.getJointId("hinge")]
    assert relative_error(reference, inertia.mass, inertia.lever, inertia.inertia) <= TOLERANCE


# -- the figures: worst relative inertial error per engine and format ------------------------


def worst_errors(model: Model, paths: dict[str, Path]) -> dict[tuple[str, str], float]:
    """Worst relative error (``test_export_engines.relative_error``: mass / mass, centre of
    mass / body size, inertia / trace) over every body of ``model`` as each engine loads each
    format: MuJoCo per body, Drake per body, Pinocchio per merged body (its fixed-joint
    frame), and, as ``("pinocchio", "urdf composites")``, per joint (its moving link with the
    bodies welded to it, about the joint frame: sums Pinocchio forms itself)."""
    import mujoco
    import pinocchio as pin

    out = {}
    for fmt in ("mjcf", "urdf"):
        mj = mujoco.MjModel.from_xml_path(str(paths[fmt]))
        out["mujoco", fmt] = mujoco_body_errors(mujoco, mj, model)
    pm = pin.buildModelFromUrdf(str(paths["urdf"]))
    zero = model.zero_positions()
    world, frames = model.body_mass_properties(zero), model.frame_poses(zero)
    worst = 0.0
    for joint in model.joints.values():
        if joint.type == "fixed":
            continue
        group = rigid_group(model, joint.child_body)
        composite = rp.MassProperties.combine([world[b] for b in group])
        reference = in_frame(composite, *frames[joint.child])
        rid = pm.inertias[pm.getJointId(joint.name)]
        worst = max(worst, relative_error(reference, rid.mass, rid.lever, rid.inertia))
    out["pinocchio", "urdf composites"] = worst
    worst = 0.0
    for frame in pm.frames:
        if frame.type == pin.FrameType.FIXED_JOINT and frame.inertia.mass != 0.0:
            if frame.name in model.joints:
                body = model.joints[frame.name].child_body
            else:  # "BODY.FRAME": the fixed joint from a joint's frame link down to its body
                body = frame.name.split(".")[0]
            i = frame.inertia
            error = relative_error(model.bodies[body].mass_properties, i.mass, i.lever, i.inertia)
            worst = max(worst, error)
    out["pinocchio", "urdf"] = worst
    for fmt in ("urdf", "sdf"):
        plant, _ = drake_plant(paths[fmt])
        worst = 0.0
        for name, body in model.bodies.items():
            spatial = plant.GetBodyByName(name).default_spatial_inertia()
            com = spatial.get_com()
            central = spatial.Shift(com).CalcRotationalInertia().CopyToFullMatrix3()
            error = relative_error(body.mass_properties, spatial.get_mass(), com, central)
            worst = max(worst, error)
        out["drake", fmt] = worst
    return out


def test_every_engine_and_format_within_the_tolerance(files):
    pytest.importorskip("mujoco")
    pytest.importorskip("pinocchio")
    pytest.importorskip("pydrake")

    errors = worst_errors(*files)
    assert set(errors) == {*ENGINES, ("pinocchio", "urdf composites")}
    for key, error in errors.items():
        assert error <= BOUNDS.get(key, EXACT), (key, errors)


#: What each engine may differ by (test_export_engines.py): a body read from a file, EXACT;
#: MuJoCo re-diagonalising a URDF tensor, MUJOCO_URDF; sums an engine forms itself, TOLERANCE.
BOUNDS = {("mujoco", "urdf"): MUJOCO_URDF, ("pinocchio", "urdf composites"): TOLERANCE}


if __name__ == "__main__":  # the figures of the report: worst error per engine and format
    import sys
    import tempfile

    sys.path.insert(0, str(Path(__file__).parent))
    with tempfile.TemporaryDirectory() as folder:
        model = every_shape_model()
        paths = {fmt: Path(folder) / f"every_shape{s}" for fmt, s in SUFFIXES.items()}
        for path in paths.values():
            export(model, path)
        print(f"{len(model.bodies)} bodies ({len(SHAPES)} shapes), {len(model.joints)} joints")
        print("| engine | format | worst relative error |\n|---|---|---|")
        for (engine, fmt), error in worst_errors(model, paths).items():
            print(f"| {engine} | {fmt} | {error:.2e} |")


# -- the pictures ----------------------------------------------------------------------------


def test_every_registered_shape_has_its_picture_in_the_docs():
    """``scripts/make_pictures.py`` draws every registered shape (its fixed list, then one
    picture per shape the list leaves out) and every example model with several shapes; each
    picture is in docs/images and docs/pictures.md shows it with the command that makes it."""
    import importlib.util
    import shlex

    root = Path(__file__).resolve().parents[1]
    spec = importlib.util.spec_from_file_location(
        "make_pictures", root / "scripts" / "make_pictures.py"
    )
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    pictures = [*script.PICTURES, *script.shape_pictures(), *script.example_pictures()]
    drawn = {command[1] for _, command in pictures}
    # every shape's command (the box and the cone by the fixed list's pictures)
    assert {spec.command for spec in SHAPES.values()} <= drawn
    page = (root / "docs" / "pictures.md").read_text(encoding="utf-8")
    for file, command in pictures:
        assert (root / "docs" / "images" / file).is_file(), file
        assert f"(images/{file})" in page, file
        assert f"`rigidparts {shlex.join(command)}`" in page, command
