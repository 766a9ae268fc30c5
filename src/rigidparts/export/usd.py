"""USD export with UsdPhysics (Isaac Sim, Omniverse, NVIDIA Newton; needs ``usd-core``:
``pip install 'rigidparts[usd]'``).

**USD stores mass properties in single precision.** The UsdPhysics schema types ``mass`` as
``float``, ``centerOfMass`` as ``point3f``, ``diagonalInertia`` as ``float3`` and
``principalAxes`` as ``quatf``, and so are a joint's ``localPos``/``localRot`` and a mesh's
``points``: every one of them reaches the engine rounded to float32 (relative error up to
2^-24 = 6e-8), not bit for bit as in MJCF, URDF and SDFormat. Body poses (``xformOp``) are
written in double precision.

Conventions
-----------
- Stage metadata: ``metersPerUnit = 1``, ``kilogramsPerUnit = 1``, ``upAxis = "Z"``: SI
  units, angles in degrees where the schema says so (joint limits), radians nowhere.
- The default prim ``/<model>`` (an ``Xform`` with ``UsdPhysics.ArticulationRootAPI``) holds
  one ``Xform`` per body, side by side (rigid bodies are never nested), each **whose frame is
  its frame_a**, posed in the model frame at joint position zero (``X_WA``: ``xformOp:translate``
  (double3) and ``xformOp:orient`` (quatd)). ``/physicsScene`` carries the model's gravity.
- A body has ``UsdPhysics.RigidBodyAPI`` and ``UsdPhysics.MassAPI``: ``mass``,
  ``centerOfMass`` (frame_a), ``diagonalInertia`` = the principal moments (kg m^2, about the
  centre of mass) and ``principalAxes`` = the quaternion of the principal axes in frame_a
  (``I_A = R diag(moments) R^T``, ``R`` the quaternion's matrix). All four are authored, so no
  engine computes anything from the geometry.
- Geometry: the child prim ``geometry`` with ``UsdPhysics.CollisionAPI``: the shape
  specification's native primitive as a ``Cube`` (``size = 1`` scaled to the box's extents),
  ``Cylinder`` or ``Capsule`` (axis Z of its geometry frame; a capsule's ``height`` is its
  cylindrical part) or ``Sphere``, else (an ellipsoid too) a ``Mesh`` of the body's
  triangles (frame_a coordinates; ``MeshCollisionAPI`` approximation ``convexHull``, as
  MuJoCo collides meshes).
- Appearance (``Model.appearance``): the geometry prim's ``primvars:displayColor`` (linear
  Rec.709, USD's default colour space) and ``primvars:displayOpacity``; an invisible body's
  geometry has ``visibility = invisible``.
- Named frames: ``Xform`` prims ``frames/<frame>`` under the body, at ``X_AF``.
- Joints, under ``/<model>/joints``: ``revolute`` -> ``PhysicsRevoluteJoint``, ``prismatic``
  -> ``PhysicsPrismaticJoint`` (limits in degrees and metres; none: unlimited), ``fixed`` ->
  ``PhysicsFixedJoint``, ``ball`` -> ``PhysicsSphericalJoint``, ``free`` -> no joint (a body
  without a joint floats). ``body0`` is the parent body (none for the world), ``body1`` the
  child. UsdPhysics joints turn about their frame's X, Y or Z, so the joint frame is written
  turned by ``R_JK`` that takes X onto the joint's axis: ``localRot0 = R_BpJ R_JK``,
  ``localRot1 = R_AC R_JK``, with ``localPos0 = p_BpJ``, ``localPos1 = p_AC``, axis ``X``.
  Joint damping d becomes a force-type ``DriveAPI`` with stiffness 0 and damping d (per degree
  for a revolute joint: ``d * pi / 180``), which pulls the velocity towards 0 as ``-d qdot``.
- Names: prim names are the body, joint and frame names with characters USD does not allow
  (``-``) replaced by ``_`` (made unique); each prim keeps the rigidparts name in its
  ``customData["rigidparts:name"]``.
- The model's initial joint positions and velocities are not written (UsdPhysics has no joint
  state): the file holds the model at joint position zero, as the SDFormat export does.

Suffixes: ``.usda`` (text), ``.usdc`` (binary crate), ``.usd`` (crate). The returned text is
always the ``.usda`` form.
"""

from __future__ import annotations

import math
import os
from typing import Any

import numpy as np

from ..appearance import Appearance
from ..component import Component
from ..fileio import atomic_files
from ..model import Model
from ..model.joints import Joint
from ..model.rods import refuse_rods
from ..transforms import Transform, matrix_to_quaternion, rotation_about_axis
from ._common import (
    FORMAT_KINDS,
    Geometry,
    body_geometry,
    check_sections,
    distinct_meshes,
    mesh_folder,
)

__all__ = ["USD_SUFFIXES", "build_usd", "to_usd"]

#: The file suffixes USD reads (the format follows the suffix).
USD_SUFFIXES = (".usda", ".usdc", ".usd")


#: The native geometry written (an ellipsoid is a mesh: a non-uniformly scaled ``Sphere`` is
#: not a collision shape every USD physics engine reads).
USD_KINDS = FORMAT_KINDS["usd"]


def _pxr() -> Any:
    """The ``pxr`` modules, or a one-line ImportError naming the extra."""
    try:
        from pxr import Gf, Sdf, Tf, Usd, UsdGeom, UsdPhysics, Vt
    except ImportError as exc:
        raise ImportError(
            "USD export needs usd-core: pip install 'rigidparts[usd]'", name=exc.name
        ) from None
    return Gf, Sdf, Tf, Usd, UsdGeom, UsdPhysics, Vt


def to_usd(model: Model, path: str | os.PathLike[str] | None = None, *, sections: int = 64) -> str:
    """The USD text (``.usda``) of ``model``; with ``path`` (``.usda``, ``.usdc`` or ``.usd``),
    also written there, all or nothing (:func:`rigidparts.fileio.atomic_files`). Meshes are
    inside the file (``sections`` segments around round surfaces)."""
    stage = build_usd(model, sections=sections)
    layer = stage.GetRootLayer()
    text = layer.ExportToString()
    if path is None:
        return text
    with atomic_files(path, mesh_folder(path)[1]) as (staged_file, _):
        # the staged file keeps the target's name, so USD picks the format from its suffix
        if not layer.Export(os.fspath(staged_file)):
            raise OSError(f"usd-core could not write {os.fspath(path)}")
    return text


class _Names:
    """Valid, unique USD prim names for rigidparts names, one namespace per parent prim."""

    def __init__(self, tf: Any) -> None:
        self._tf = tf
        self._used: dict[str, set[str]] = {}

    def __call__(self, parent: str, name: str) -> str:
        used = self._used.setdefault(parent, set())
        base = self._tf.MakeValidIdentifier(name)
        chosen, count = base, 1
        while chosen in used:
            count += 1
            chosen = f"{base}_{count}"
        used.add(chosen)
        return chosen


def build_usd(model: Model, *, sections: int = 64) -> Any:
    """The in-memory ``Usd.Stage`` of ``model`` (see the module's conventions)."""
    gf, _sdf, tf, usd, usd_geom, usd_physics, _vt = _pxr()
    sections = check_sections(sections)
    model.check()
    refuse_rods(model.rods, "USD")  # no spring-damper element: a clear error
    shared, mesh_of = distinct_meshes(model, sections, native=USD_KINDS)
    meshes = {body: shared[name] for body, name in mesh_of.items()}
    stage = usd.Stage.CreateInMemory()
    usd_geom.SetStageMetersPerUnit(stage, 1.0)
    usd_physics.SetStageKilogramsPerUnit(stage, 1.0)
    usd_geom.SetStageUpAxis(stage, usd_geom.Tokens.z)

    names = _Names(tf)
    root_path = "/" + names("/", model.name)
    root = usd_geom.Xform.Define(stage, root_path).GetPrim()
    root.SetCustomDataByKey("rigidparts:name", model.name)
    stage.SetDefaultPrim(root)
    usd_physics.ArticulationRootAPI.Apply(root)
    _scene(stage, usd_physics, gf, names("/", "physicsScene"), np.asarray(model.gravity))

    poses = model.body_poses(model.zero_positions())
    body_paths: dict[str, str] = {}
    for joint in model.ordered_joints():
        name = joint.child_body
        path = f"{root_path}/{names(root_path, name)}"
        body_paths[name] = path
        body = model.bodies[name]
        prim = _xform(stage, usd_geom, gf, path, poses[name], name)
        usd_physics.RigidBodyAPI.Apply(prim)
        _mass(usd_physics.MassAPI.Apply(prim), gf, body)
        shape = _geometry(stage, usd_geom, usd_physics, gf, f"{path}/geometry",
                          body_geometry(body, USD_KINDS), meshes.get(name))  # fmt: skip
        _appearance(shape, gf, usd_geom, model.appearance(name))
        frames_path = f"{path}/frames"
        usd_geom.Scope.Define(stage, frames_path)
        for frame_name in body.frames:
            frame_path = f"{frames_path}/{names(frames_path, frame_name)}"
            _xform(stage, usd_geom, gf, frame_path, model.frame_in_body(name, frame_name),
                   f"{name}.{frame_name}")  # fmt: skip

    joints_path = f"{root_path}/{names(root_path, 'joints')}"
    usd_geom.Scope.Define(stage, joints_path)
    for joint in model.ordered_joints():
        if joint.type != "free":  # a body without a joint floats
            _joint(stage, usd_physics, gf, f"{joints_path}/{names(joints_path, joint.name)}",
                   joint, model, body_paths)  # fmt: skip
    return stage


def _scene(stage: Any, usd_physics: Any, gf: Any, name: str, gravity: np.ndarray) -> None:
    scene = usd_physics.Scene.Define(stage, f"/{name}")
    magnitude = float(np.linalg.norm(gravity))
    direction = gravity / magnitude if magnitude > 0 else np.array([0.0, 0.0, -1.0])
    scene.CreateGravityDirectionAttr(gf.Vec3f(*direction.tolist()))
    scene.CreateGravityMagnitudeAttr(magnitude)


def _quatd(gf: Any, rotation: np.ndarray) -> Any:
    w, x, y, z = matrix_to_quaternion(rotation).tolist()
    return gf.Quatd(w, gf.Vec3d(x, y, z))


def _quatf(gf: Any, rotation: np.ndarray) -> Any:
    w, x, y, z = matrix_to_quaternion(rotation).tolist()
    return gf.Quatf(w, gf.Vec3f(x, y, z))


def _xform(stage: Any, usd_geom: Any, gf: Any, path: str, pose: Transform, name: str) -> Any:
    """An ``Xform`` at ``pose`` (double precision) in its parent prim."""
    xform = usd_geom.Xform.Define(stage, path)
    _place(xform, gf, pose, usd_geom)
    prim = xform.GetPrim()
    prim.SetCustomDataByKey("rigidparts:name", name)
    return prim


def _place(xformable: Any, gf: Any, pose: Transform, usd_geom: Any) -> None:
    rotation, position = pose
    double = usd_geom.XformOp.PrecisionDouble
    xformable.AddTranslateOp(double).Set(gf.Vec3d(*np.asarray(position, dtype=float).tolist()))
    xformable.AddOrientOp(double).Set(_quatd(gf, rotation))


def _mass(mass_api: Any, gf: Any, body: Component) -> None:
    """Mass, centre of mass (frame_a), principal moments and the quaternion of their axes in
    frame_a (a proper rotation: the third axis is the cross product of the first two)."""
    props = body.mass_properties
    axes = np.array(props.principal_axes, dtype=float)
    if np.linalg.det(axes) < 0:
        axes[:, 2] = -axes[:, 2]  # same axes, right-handed: the quaternion needs a rotation
    mass_api.CreateMassAttr(float(props.mass))
    mass_api.CreateCenterOfMassAttr(gf.Vec3f(*props.center_of_mass.tolist()))
    mass_api.CreateDiagonalInertiaAttr(gf.Vec3f(*props.principal_moments.tolist()))
    mass_api.CreatePrincipalAxesAttr(_quatf(gf, axes))


def _geometry(
    stage: Any,
    usd_geom: Any,
    usd_physics: Any,
    gf: Any,
    path: str,
    geometry: Geometry,
    mesh: Any,
) -> Any:
    """The body's geometry prim at ``path`` (a ``UsdGeom`` Gprim), colliding; returned."""
    if geometry.kind == "box":
        shape = usd_geom.Cube.Define(stage, path)
        shape.CreateSizeAttr(1.0)
    elif geometry.kind == "cylinder":
        radius, length = geometry.size
        shape = usd_geom.Cylinder.Define(stage, path)
        shape.CreateRadiusAttr(float(radius))
        shape.CreateHeightAttr(float(length))
        shape.CreateAxisAttr(usd_geom.Tokens.z)
    elif geometry.kind == "capsule":  # height: the cylindrical part, between the hemispheres
        radius, length = geometry.size
        shape = usd_geom.Capsule.Define(stage, path)
        shape.CreateRadiusAttr(float(radius))
        shape.CreateHeightAttr(float(length))
        shape.CreateAxisAttr(usd_geom.Tokens.z)
    elif geometry.kind == "sphere":
        shape = usd_geom.Sphere.Define(stage, path)
        shape.CreateRadiusAttr(float(geometry.size[0]))
    else:
        shape = usd_geom.Mesh.Define(stage, path)
        vertices = np.asarray(mesh.vertices, dtype=float)
        faces = np.asarray(mesh.faces, dtype=int)
        shape.CreatePointsAttr([gf.Vec3f(*v) for v in vertices.tolist()])
        shape.CreateFaceVertexCountsAttr([3] * len(faces))
        shape.CreateFaceVertexIndicesAttr(faces.ravel().tolist())
        shape.CreateSubdivisionSchemeAttr(usd_geom.Tokens.none)
        low, high = vertices.min(axis=0), vertices.max(axis=0)
        shape.CreateExtentAttr([gf.Vec3f(*low.tolist()), gf.Vec3f(*high.tolist())])
    _place(shape, gf, (geometry.rotation, geometry.position), usd_geom)
    if geometry.kind == "box":
        scale = shape.AddScaleOp(usd_geom.XformOp.PrecisionDouble)
        scale.Set(gf.Vec3d(*[float(s) for s in geometry.size]))
    usd_physics.CollisionAPI.Apply(shape.GetPrim())
    if geometry.kind == "mesh":
        collision = usd_physics.MeshCollisionAPI.Apply(shape.GetPrim())
        collision.CreateApproximationAttr(usd_physics.Tokens.convexHull)
    return shape


def _appearance(shape: Any, gf: Any, usd_geom: Any, looks: Appearance) -> None:
    """The body's appearance on its geometry prim: the constant primvars ``displayColor``
    (one ``color3f``, in USD's default colour space, linear Rec.709: the sRGB colour decoded,
    :attr:`~rigidparts.appearance.Appearance.linear_color`, so that it displays as the same
    colour) and ``displayOpacity``; an invisible body has ``visibility = invisible``
    (rendering only: it still collides)."""
    shape.CreateDisplayColorAttr([gf.Vec3f(*looks.linear_color)])
    shape.CreateDisplayOpacityAttr([float(looks.opacity)])
    if not looks.visible:
        shape.CreateVisibilityAttr(usd_geom.Tokens.invisible)


def _axis_frame(axis: np.ndarray) -> np.ndarray:
    """``R_JK``: the shortest turn that takes X onto the unit ``axis`` (the joint then turns
    about K's X); the identity for +x, a half turn about Z for -x."""
    x = np.asarray(axis, dtype=float)
    normal = np.cross([1.0, 0.0, 0.0], x)
    sine = float(np.linalg.norm(normal))
    if sine == 0.0:
        return np.eye(3) if x[0] > 0 else np.diag([-1.0, -1.0, 1.0])
    return rotation_about_axis(normal / sine, math.atan2(sine, float(x[0])))


def _joint(
    stage: Any,
    usd_physics: Any,
    gf: Any,
    path: str,
    joint: Joint,
    model: Model,
    body_paths: dict[str, str],
) -> None:
    kinds = {
        "revolute": usd_physics.RevoluteJoint,
        "prismatic": usd_physics.PrismaticJoint,
        "fixed": usd_physics.FixedJoint,
        "ball": usd_physics.SphericalJoint,
    }
    element = kinds[joint.type].Define(stage, path)
    element.GetPrim().SetCustomDataByKey("rigidparts:name", joint.name)
    r_bpj, p_bpj = model.joint_frame_in_parent_body(joint)
    r_ac, p_ac = model.child_frame_in_body(joint)
    turn = np.eye(3)
    if joint.type in ("revolute", "prismatic"):
        turn = _axis_frame(joint.axis_in_joint)
        element.CreateAxisAttr("X")
    if joint.parent_body is not None:
        element.CreateBody0Rel().SetTargets([body_paths[joint.parent_body]])
    element.CreateBody1Rel().SetTargets([body_paths[joint.child_body]])
    element.CreateLocalPos0Attr(gf.Vec3f(*np.asarray(p_bpj, dtype=float).tolist()))
    element.CreateLocalRot0Attr(_quatf(gf, r_bpj @ turn))
    element.CreateLocalPos1Attr(gf.Vec3f(*np.asarray(p_ac, dtype=float).tolist()))
    element.CreateLocalRot1Attr(_quatf(gf, r_ac @ turn))
    if joint.type not in ("revolute", "prismatic"):
        return
    angular = joint.type == "revolute"
    if joint.limits is not None:
        lower, upper = (math.degrees(v) if angular else v for v in joint.limits)
        element.CreateLowerLimitAttr(float(lower))
        element.CreateUpperLimitAttr(float(upper))
    if joint.damping:
        drive = usd_physics.DriveAPI.Apply(element.GetPrim(), "angular" if angular else "linear")
        drive.CreateTypeAttr("force")
        drive.CreateStiffnessAttr(0.0)
        drive.CreateTargetVelocityAttr(0.0)
        drive.CreateDampingAttr(float(joint.damping * (math.pi / 180 if angular else 1.0)))
