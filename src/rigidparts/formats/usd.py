"""Reading USD stages (``.usd``, ``.usda``, ``.usdc``) into a
:class:`~rigidparts.formats.description.Description`, through usd-core (extra ``usd``).

What is read (the UsdPhysics schema, openusd.org/release/api/usd_physics_page_front.html, and
UsdGeom's):

- Units: every length is multiplied by the stage's ``metersPerUnit`` (UsdGeom; USD's fallback
  when the stage does not author it is 0.01, centimetres: applied, with a note), every mass by
  ``kilogramsPerUnit`` (UsdPhysics; fallback 1). A density is in ``kilogramsPerUnit /
  metersPerUnit^3``, an inertia in ``kilogramsPerUnit metersPerUnit^2``.
- Links: prims with ``PhysicsRigidBodyAPI`` (instance proxies included: instanced parts are
  read). The link frame L is the prim's world transform without its scale (``M = R S``, the
  columns' lengths; a shear is an error, a mirror a negative scale; transforms written in
  single precision are brought to the nearest rotation and a scale within 1e-6 of 1 read as
  1); positions authored in the prim's own space (``centerOfMass``, a joint's ``localPos``,
  its geometry) are mapped through ``S``, as PhysX and UsdPhysics' parser do.
- Inertial (``PhysicsMassAPI`` on the body): ``physics:mass``, ``physics:centerOfMass``
  (``p_LoLcm_L``), ``physics:diagonalInertia`` with ``physics:principalAxes`` (``X_LI =
  (R(principalAxes), centerOfMass)``, ``I_LIcm_I = diag(diagonalInertia)``, layout ``"usd"``).
  UsdPhysics' sentinels mean "not given, the engine computes it": mass 0, centre of mass at
  ``-inf``, inertia ``(0, 0, 0)``, principal axes ``(0, 0, 0, 0)`` (identity);
  :attr:`Inertial.given` lists what the stage does give (none: no inertial). ``physics:density``
  on the body becomes the density of each of its colliders that has none of its own.
- Geometry: every ``UsdGeom.Gprim`` under the body (the body prim itself included) down to
  the next rigid body: ``Cube`` (``size``, edge length, times the scale per axis: a box),
  ``Sphere`` (``radius``; an ellipsoid under a non-uniform scale), ``Cylinder`` and
  ``Capsule`` (``radius``, ``height``, ``axis`` ``"X"``/``"Y"``/``"Z"``: the geometry frame is
  turned so that its z is that axis; the capsule's height is its cylindrical part), ``Plane``,
  ``Mesh`` (``points``, ``faceVertexCounts``, ``faceVertexIndices``: kept as vertices and
  fan-triangulated faces in :attr:`Geometry.vertices` / :attr:`Geometry.faces`, scale applied).
  A prim with ``PhysicsCollisionAPI`` is collision geometry, any other visual.
  ``primvars:displayColor`` / ``displayOpacity`` give the colour. ``PhysicsMassAPI`` on a
  collider gives its ``mass`` / ``density``.
- Joints (``UsdPhysics.Joint`` prims): ``PhysicsRevoluteJoint`` (``lowerLimit`` /
  ``upperLimit`` in *degrees*; unlimited when infinite: ``continuous``),
  ``PhysicsPrismaticJoint`` (limits in stage lengths), ``PhysicsFixedJoint``,
  ``PhysicsSphericalJoint`` (``ball``); ``physics:body0`` is the parent, ``physics:body1`` the
  child (a missing body0 is the world). ``X_PJ = (R(localRot0), S0 localPos0)`` and the child
  frame ``X_JC = (R(localRot1), S1 localPos1)^-1``; the axis token is a unit vector of the
  joint frame. Rigid bodies that no joint attaches are free: a ``floating`` joint to the world.
  The joint graph is made a tree from the world: a joint met from its body1 side is turned
  round (parent and child, the two local frames, and the limits' sign swapped), a joint that
  closes a loop is left out; both with a note.

Refused with one :class:`~rigidparts.ModelError` naming the file, the prim and the rule: a
stage usd-core cannot open, a joint naming a prim the stage does not have, a transform with a
shear, non-finite units. A joint type UsdPhysics defines but this reader does not (a D6
``PhysicsJoint``, distance joints) is noted and read as a ``floating`` joint or left out.
USD files carry no line numbers: :attr:`Source.line` is None and ``Source.element`` is the
prim path.
"""

from __future__ import annotations

import math
import os
import re
from collections import deque
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ModelError
from ..transforms import (
    EXACT_TOLERANCE,
    IDENTITY,
    ZERO_QUATERNION,
    Transform,
    invert,
    quaternion_to_matrix,
)
from .description import (
    GEOMETRY_KINDS,
    Description,
    Geometry,
    Inertial,
    JointDescription,
    Link,
    Source,
    fold_child_pose,
)

__all__ = ["read"]

BOX, CYLINDER, SPHERE, CAPSULE, ELLIPSOID, MESH, PLANE, _HEIGHTFIELD, OTHER = GEOMETRY_KINDS

#: The parent name of joints to the world.
WORLD = "world"

#: Largest deviation from orthogonality of a transform's columns read as no shear (single
#: precision rounding is ~6e-8).
_SHEAR = 1e-6

#: A scale factor this close to 1 is read as 1 (a rotation matrix in single precision).
_UNIT_SCALE = 1e-6

#: Relative difference under which two scale factors are read as equal.
_SAME_SCALE = 1e-6

#: The rotation taking the geometry frame's z onto a USD ``axis`` token.
_AXIS_TURN = {
    "X": np.array([[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]]),
    "Y": np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, 0.0]]),
    "Z": np.eye(3),
}

_UNIT_AXIS = {"X": (1.0, 0.0, 0.0), "Y": (0.0, 1.0, 0.0), "Z": (0.0, 0.0, 1.0)}


def read(
    path: str | os.PathLike[str], *, search_path: Iterable[str | os.PathLike[str]] = ()
) -> Description:
    """The :class:`Description` of the USD stage ``path`` (``search_path`` is unused: a
    stage's references are resolved by USD itself).

    Raises :class:`~rigidparts.ModelError` for what cannot be read, ``ImportError`` naming the
    extra when usd-core is not installed.
    """
    del search_path
    return _Reader(os.fspath(path)).read()


def _pxr() -> Any:
    try:
        import pxr
        from pxr import Gf, Sdf, Tf, Usd, UsdGeom, UsdPhysics  # noqa: F401
    except ImportError:
        raise ImportError("reading USD needs usd-core: pip install 'rigidparts[usd]'") from None
    return pxr


class _Reader:
    def __init__(self, path: str):
        self.path = path
        self.notes: list[str] = []
        #: link name -> (X_WL, the body prim's own scale)
        self.frames: dict[str, tuple[Transform, np.ndarray]] = {}

    def error(self, prim: str, value: Any, rule: str) -> ModelError:
        return ModelError(prim, value, rule, source=self.path)

    def source(self, prim_path: str) -> Source:
        return Source(self.path, None, prim_path)

    # -- the stage ---------------------------------------------------------------------------

    def read(self) -> Description:
        pxr = _pxr()
        self.Usd, self.UsdGeom, self.UsdPhysics = pxr.Usd, pxr.UsdGeom, pxr.UsdPhysics
        if not Path(self.path).is_file():
            raise ModelError("file", self.path, "no such file")
        try:
            stage = pxr.Usd.Stage.Open(self.path)
        except pxr.Tf.ErrorException as exc:
            reason = " ".join(str(exc).split())
            # a text layer's syntax error names its file, line and column
            found = re.search(r"'([^']+?):(\d+):(\d+): ([^']*)'", reason)
            if found is not None:
                raise ModelError(
                    "usd",
                    found.group(4).strip()[:200],
                    f"usd-core cannot parse the layer (column {found.group(3)})",
                    source=found.group(1),
                    line=int(found.group(2)),
                ) from None
            raise ModelError(
                "usd", self.path, f"usd-core cannot open it: {reason[:300]}", source=self.path
            ) from None
        if stage is None:
            raise ModelError("usd", self.path, "usd-core cannot open it", source=self.path)
        self.stage = stage
        #: instanced prims (a robot's parts shared between copies) are read through
        self.proxies = pxr.Usd.TraverseInstanceProxies()
        self._units(stage)
        self.time = pxr.Usd.TimeCode.Default()
        self.cache = pxr.UsdGeom.XformCache(self.time)
        bodies = self._bodies(stage)
        links = {name: self._link(prim, name) for prim, name in bodies}
        joints = self._joints(stage, bodies, links)
        default = stage.GetDefaultPrim()
        name = default.GetName() if default and default.IsValid() else Path(self.path).stem
        return Description(
            format="usd",
            path=self.path,
            name=name,
            links=links,
            joints=joints,
            notes=self.notes,
            document=stage,
        )

    def _units(self, stage: Any) -> None:
        UsdGeom, UsdPhysics = self.UsdGeom, self.UsdPhysics
        self.meters = float(UsdGeom.GetStageMetersPerUnit(stage))
        self.kilograms = float(UsdPhysics.GetStageKilogramsPerUnit(stage))
        for name, value in (("metersPerUnit", self.meters), ("kilogramsPerUnit", self.kilograms)):
            if not (math.isfinite(value) and value > 0):
                raise self.error(name, value, "the stage's unit must be a positive number")
        if not UsdGeom.StageHasAuthoredMetersPerUnit(stage):
            self.notes.append(
                "the stage does not author metersPerUnit: USD's fallback 0.01 (centimetres) "
                "applied to every length (engines that assume metres read it 100x larger)"
            )
        elif self.meters != 1.0:
            self.notes.append(f"stage metersPerUnit={self.meters:g}: lengths scaled to metres")
        if self.kilograms != 1.0:
            self.notes.append(f"stage kilogramsPerUnit={self.kilograms:g}: masses scaled to kg")

    def _bodies(self, stage: Any) -> list[tuple[Any, str]]:
        RigidBodyAPI = self.UsdPhysics.RigidBodyAPI
        prims = [p for p in stage.Traverse(self.proxies) if p.HasAPI(RigidBodyAPI)]
        counts: dict[str, int] = {}
        for prim in prims:
            counts[prim.GetName()] = counts.get(prim.GetName(), 0) + 1
        out = []
        for prim in prims:
            name = prim.GetName()
            if counts[name] > 1:
                name = str(prim.GetPath()).strip("/").replace("/", "_")
            api = RigidBodyAPI(prim)
            if api.GetRigidBodyEnabledAttr().Get() is False:
                self.notes.append(f"{prim.GetPath()}: physics:rigidBodyEnabled is false")
            if api.GetKinematicEnabledAttr().Get():
                self.notes.append(
                    f"{prim.GetPath()}: kinematic (moved by its animation, not by forces: "
                    "engines do not use its mass)"
                )
            out.append((prim, name))
        return out

    # -- transforms --------------------------------------------------------------------------

    def world(self, prim: Any) -> np.ndarray:
        """The prim's local-to-world matrix (4x4, USD's row-vector convention, stage units)."""
        return np.array(self.cache.GetLocalToWorldTransform(prim), dtype=np.float64)

    def split(self, linear: np.ndarray, where: str) -> tuple[np.ndarray, np.ndarray]:
        """``A = R diag(s)`` (column-vector convention): the rotation and the per-axis scale
        (a mirror is a negative ``s[0]``); a shear is an error. Transforms are often written
        in single precision: a scale within :data:`_UNIT_SCALE` of 1 is read as 1 and ``R`` is
        the nearest rotation (``U V^T`` of the SVD) when its columns are orthonormal only
        to that precision."""
        if not np.all(np.isfinite(linear)):
            raise self.error(where, linear.tolist(), "a transform must be finite")
        scale = np.linalg.norm(linear, axis=0)
        if not np.all(scale > 0):
            raise self.error(where, scale.tolist(), "a transform must not scale to zero")
        rotation = linear / scale
        deviation = np.abs(rotation.T @ rotation - np.eye(3)).max()
        if deviation > _SHEAR:
            raise self.error(where, linear.tolist(), "a transform with a shear is not read")
        if np.linalg.det(rotation) < 0:  # a mirror: one negative scale, a proper rotation
            rotation[:, 0] *= -1.0
            scale[0] *= -1.0
        if deviation > EXACT_TOLERANCE:
            u, _, vt = np.linalg.svd(rotation)
            rotation = u @ vt
        unit = np.abs(np.abs(scale) - 1.0) <= _UNIT_SCALE
        scale[unit] = np.sign(scale[unit])
        return rotation, scale

    def body_frame(self, prim: Any) -> tuple[Transform, np.ndarray]:
        """``X_WL`` (m) and the body prim's own scale."""
        matrix = self.world(prim)
        rotation, scale = self.split(matrix[:3, :3].T, str(prim.GetPath()))
        return (rotation, matrix[3, :3] * self.meters), scale

    # -- links -------------------------------------------------------------------------------

    def _link(self, prim: Any, name: str) -> Link:
        where = str(prim.GetPath())
        link = Link(name=name, source=self.source(where))
        x_wl, scale = self.body_frame(prim)
        self.frames[name] = (x_wl, scale)
        link.inertial = self._inertial(prim, where, scale)
        density = None
        if prim.HasAPI(self.UsdPhysics.MassAPI):
            value = self.UsdPhysics.MassAPI(prim).GetDensityAttr().Get()
            if value:
                density = float(value) * self.kilograms / self.meters**3
        # stage coordinates -> link frame (rotation and translation only: the body prim's
        # scale stays with its geometry, as PhysX applies it)
        to_link = np.eye(4)
        to_link[:3, :3] = x_wl[0].T
        to_link[:3, 3] = -(x_wl[0].T @ x_wl[1]) / self.meters
        for child in self._geometry_prims(prim):
            geometry = self._geometry(child, to_link, density)
            if geometry is not None:
                (link.collisions if geometry.role == "collision" else link.visuals).append(geometry)
        return link

    @staticmethod
    def _column(matrix: np.ndarray) -> np.ndarray:
        """USD's row-vector 4x4 as a column-vector one (``p' = M p``)."""
        return matrix.T

    def _inertial(self, prim: Any, where: str, scale: np.ndarray) -> Inertial | None:
        MassAPI = self.UsdPhysics.MassAPI
        if not prim.HasAPI(MassAPI):
            return None
        api = MassAPI(prim)
        mass = api.GetMassAttr().Get()
        com = api.GetCenterOfMassAttr().Get()
        diagonal = api.GetDiagonalInertiaAttr().Get()
        axes = api.GetPrincipalAxesAttr().Get()
        given = set()
        if mass is not None and float(mass) != 0.0:
            given.add("mass")
        if com is not None and all(math.isfinite(float(v)) for v in com):
            given.add("center_of_mass")
        if diagonal is not None and any(float(v) != 0.0 for v in diagonal):
            given.add("inertia")
        if not given:
            return None
        position = (
            scale * np.array([float(v) for v in com]) * self.meters
            if "center_of_mass" in given
            else np.zeros(3)
        )
        rotation = IDENTITY[0]
        if axes is not None and (axes.GetReal() != 0.0 or any(axes.GetImaginary())):
            rotation = self.rotation(axes, f"{where}.physics:principalAxes")
        moments = (
            np.array([float(v) for v in diagonal]) * self.kilograms * self.meters**2
            if "inertia" in given
            else np.zeros(3)
        )
        return Inertial(
            mass=float(mass) * self.kilograms if "mass" in given else 0.0,
            pose=(rotation, position),
            inertia=np.diag(moments),
            layout="usd",
            source=self.source(where),
            given=frozenset(given),
        )

    def _geometry_prims(self, body: Any) -> list[Any]:
        """The gprims of ``body`` (itself included), not descending into other rigid bodies."""
        Gprim, RigidBodyAPI = self.UsdGeom.Gprim, self.UsdPhysics.RigidBodyAPI
        found = []
        iterator = iter(self.Usd.PrimRange(body, self.proxies))
        for prim in iterator:
            if prim != body and prim.HasAPI(RigidBodyAPI):
                iterator.PruneChildren()
                continue
            if prim.IsA(Gprim):
                found.append(prim)
        return found

    def _geometry(self, prim: Any, to_link: np.ndarray, density: float | None) -> Geometry | None:
        UsdGeom = self.UsdGeom
        where = str(prim.GetPath())
        relative = to_link @ self._column(self.world(prim))
        rotation, signed = self.split(relative[:3, :3], where)
        scale = np.abs(signed)  # the primitives are symmetric about their own planes
        position = relative[:3, 3] * self.meters
        role = "collision" if prim.HasAPI(self.UsdPhysics.CollisionAPI) else "visual"
        extra: dict[str, Any] = {}
        m = self.meters
        if prim.IsA(UsdGeom.Cube):
            edge = float(UsdGeom.Cube(prim).GetSizeAttr().Get())
            kind, size = BOX, tuple(float(v) for v in edge * scale * m)
        elif prim.IsA(UsdGeom.Sphere):
            radius = float(UsdGeom.Sphere(prim).GetRadiusAttr().Get())
            if np.ptp(scale) <= _SAME_SCALE * scale.max():
                kind, size = SPHERE, (radius * float(scale[0]) * m,)
            else:
                kind, size = ELLIPSOID, tuple(float(v) for v in radius * scale * m)
                self.notes.append(
                    f"{where}: a Sphere scaled unequally: read as the ellipsoid it is (PhysX "
                    "and UsdPhysics' parser take a sphere of the largest scaled radius)"
                )
        elif prim.IsA(UsdGeom.Cylinder) or prim.IsA(UsdGeom.Capsule):
            cylinder = prim.IsA(UsdGeom.Cylinder)
            schema = UsdGeom.Cylinder(prim) if cylinder else UsdGeom.Capsule(prim)
            axis = str(schema.GetAxisAttr().Get())
            turn = _AXIS_TURN[axis]
            along = "XYZ".index(axis)
            across = [scale[i] for i in range(3) if i != along]
            radius = float(schema.GetRadiusAttr().Get())
            height = float(schema.GetHeightAttr().Get())
            if abs(across[0] - across[1]) > _SAME_SCALE * max(across):
                self.notes.append(
                    f"{where}: scaled unequally across its axis (an elliptic cross-section): "
                    "not read as a solid"
                )
                kind, size = OTHER, ()
            else:
                kind = CYLINDER if cylinder else CAPSULE
                size = (radius * float(across[0]) * m, height * float(scale[along]) * m)
                if not cylinder and abs(scale[along] - across[0]) > _SAME_SCALE * scale.max():
                    self.notes.append(
                        f"{where}: a capsule scaled unequally along and across its axis: its "
                        "caps are read as hemispheres of the scaled radius"
                    )
            rotation = rotation @ turn
        elif prim.IsA(UsdGeom.Plane):
            plane = UsdGeom.Plane(prim)
            kind = PLANE
            size = (float(plane.GetWidthAttr().Get()) * m, float(plane.GetLengthAttr().Get()) * m)
        elif prim.IsA(UsdGeom.Mesh):
            kind, size = MESH, ()
            extra = self._mesh(prim, where, signed)
        else:
            kind, size = OTHER, ()
            self.notes.append(f"{where}: a {prim.GetTypeName()} is not read as a solid")
        mass = None
        own_density = density if role == "collision" else None
        if prim.HasAPI(self.UsdPhysics.MassAPI):
            api = self.UsdPhysics.MassAPI(prim)
            value = api.GetMassAttr().Get()
            if value:
                mass = float(value) * self.kilograms
            value = api.GetDensityAttr().Get()
            if value:
                own_density = float(value) * self.kilograms / self.meters**3
        return Geometry(
            kind=kind,
            size=size,
            pose=(rotation, position),
            role=role,
            source=self.source(where),
            name=prim.GetName(),
            density=own_density,
            mass=mass,
            rgba=self._colour(prim),
            **extra,
        )

    def _mesh(self, prim: Any, where: str, scale: np.ndarray) -> dict[str, Any]:
        mesh = self.UsdGeom.Mesh(prim)
        points = mesh.GetPointsAttr().Get()
        counts = mesh.GetFaceVertexCountsAttr().Get()
        indices = mesh.GetFaceVertexIndicesAttr().Get()
        if points is None or counts is None or indices is None or len(points) == 0:
            return {"missing": f"{where} (a Mesh without points or faces)"}
        vertices = np.array(points, dtype=np.float64).reshape(-1, 3) * scale * self.meters
        counts_array = np.array(counts, dtype=np.int64)
        index_array = np.array(indices, dtype=np.int64)
        if counts_array.sum() != len(index_array) or np.any(counts_array < 3):
            raise self.error(
                f"{where}.faceVertexCounts",
                int(counts_array.sum()),
                f"must add up to the {len(index_array)} faceVertexIndices, each face at least 3",
            )
        if len(index_array) and (index_array.min() < 0 or index_array.max() >= len(vertices)):
            raise self.error(
                f"{where}.faceVertexIndices",
                int(index_array.max()),
                f"must index the {len(vertices)} points",
            )
        if np.prod(np.sign(scale)) < 0:  # mirrored: keep the faces' winding outward
            index_array = _reverse_polygons(index_array, counts_array)
        starts = np.concatenate([[0], np.cumsum(counts_array)[:-1]])
        if np.all(counts_array == 3):
            faces = index_array.reshape(-1, 3)
        else:  # fan triangulation of each polygon
            first = np.repeat(starts, counts_array - 2)
            offsets = np.concatenate([np.arange(1, c - 1) for c in counts_array])
            faces = np.stack(
                [
                    index_array[first],
                    index_array[first + offsets],
                    index_array[first + offsets + 1],
                ],
                axis=1,
            )
        return {"vertices": vertices, "faces": faces}

    def _colour(self, prim: Any) -> tuple[float, float, float, float] | None:
        gprim = self.UsdGeom.Gprim(prim)
        colours = gprim.GetDisplayColorAttr().Get()
        if not colours:
            return None
        opacities = gprim.GetDisplayOpacityAttr().Get()
        alpha = float(opacities[0]) if opacities else 1.0
        red, green, blue = (float(v) for v in colours[0])
        return (red, green, blue, alpha)

    # -- joints ------------------------------------------------------------------------------

    def _joints(
        self, stage: Any, bodies: list[tuple[Any, str]], links: dict[str, Link]
    ) -> dict[str, JointDescription]:
        UsdPhysics = self.UsdPhysics
        by_path = {str(prim.GetPath()): name for prim, name in bodies}
        raw = []
        for prim in stage.Traverse(self.proxies):
            if not prim.IsA(UsdPhysics.Joint):
                continue
            joint = self._joint(prim, by_path)
            if joint is not None:
                raw.append(joint)
        return self._tree(raw, links)

    def _body_of(self, rel: Any, where: str, by_path: dict[str, str]) -> str:
        targets = rel.GetTargets()
        if not targets:
            return WORLD
        target = self.stage.GetPrimAtPath(targets[0])
        if not target or not target.IsValid():
            raise self.error(
                f"{where}.{rel.GetName()}", str(targets[0]), "names no prim of the stage"
            )
        prim = target
        while prim and prim.IsValid() and not prim.IsPseudoRoot():
            name = by_path.get(str(prim.GetPath()))
            if name is not None:
                return name
            prim = prim.GetParent()
        self.notes.append(
            f"{where}.{rel.GetName()}: {targets[0]} is in no rigid body: read as the world"
        )
        return WORLD

    def _joint(self, prim: Any, by_path: dict[str, str]) -> dict[str, Any] | None:
        UsdPhysics = self.UsdPhysics
        where = str(prim.GetPath())
        joint = UsdPhysics.Joint(prim)
        body0 = self._body_of(joint.GetBody0Rel(), where, by_path)
        body1 = self._body_of(joint.GetBody1Rel(), where, by_path)
        if joint.GetJointEnabledAttr().Get() is False:
            self.notes.append(f"{where}: physics:jointEnabled is false: left out")
            return None
        frame0 = self._local_frame(joint, 0, body0, where)
        frame1 = self._local_frame(joint, 1, body1, where)
        axis = None
        limits: dict[str, float] = {}
        if prim.IsA(UsdPhysics.RevoluteJoint) or prim.IsA(UsdPhysics.PrismaticJoint):
            revolute = prim.IsA(UsdPhysics.RevoluteJoint)
            schema = UsdPhysics.RevoluteJoint(prim) if revolute else UsdPhysics.PrismaticJoint(prim)
            token = str(schema.GetAxisAttr().Get())
            if token not in _UNIT_AXIS:
                raise self.error(f"{where}.physics:axis", token, 'must be "X", "Y" or "Z"')
            axis = np.array(_UNIT_AXIS[token])
            unit = math.pi / 180.0 if revolute else self.meters
            lower, upper = schema.GetLowerLimitAttr().Get(), schema.GetUpperLimitAttr().Get()
            if (
                lower is not None
                and upper is not None
                and math.isfinite(lower)
                and (math.isfinite(upper))
            ):
                limits = {"lower": float(lower) * unit, "upper": float(upper) * unit}
            kind = "prismatic" if not revolute else ("revolute" if limits else "continuous")
        elif prim.IsA(UsdPhysics.FixedJoint):
            kind = "fixed"
        elif prim.IsA(UsdPhysics.SphericalJoint):
            kind = "ball"
            cone = UsdPhysics.SphericalJoint(prim)
            angles = [cone.GetConeAngle0LimitAttr().Get(), cone.GetConeAngle1LimitAttr().Get()]
            if all(a is not None and a >= 0 for a in angles):
                limits = {"upper": min(float(a) for a in angles) * math.pi / 180.0}
        elif prim.GetTypeName() == "PhysicsJoint":
            kind = "floating"
            self.notes.append(
                f"{where}: a generic (D6) PhysicsJoint: read as floating (its per-axis "
                "limits are not read)"
            )
        else:
            self.notes.append(f"{where}: a {prim.GetTypeName()} is not read (no tree joint)")
            return None
        if body1 == WORLD and body0 != WORLD:
            body0, body1, frame0, frame1 = body1, body0, frame1, frame0
            limits = _reversed(limits, kind)
        if body0 == body1:
            self.notes.append(f"{where}: joins {body0!r} to itself: left out")
            return None
        return {
            "name": prim.GetName(),
            "path": where,
            "kind": kind,
            "body0": body0,
            "body1": body1,
            "frame0": frame0,
            "frame1": frame1,
            "axis": axis,
            "limits": limits,
        }

    def _local_frame(self, joint: Any, side: int, body: str, where: str) -> Transform:
        """``X_BJ``: the joint frame in body ``side``'s link frame (world frame for the world),
        m."""
        position = (joint.GetLocalPos0Attr() if side == 0 else joint.GetLocalPos1Attr()).Get()
        rotation = (joint.GetLocalRot0Attr() if side == 0 else joint.GetLocalRot1Attr()).Get()
        p = np.array([float(v) for v in position]) if position is not None else np.zeros(3)
        if body != WORLD:
            p = p * self.frames[body][1]
        p = p * self.meters
        r = IDENTITY[0]
        if rotation is not None:
            r = self.rotation(rotation, f"{where}.physics:localRot{side}")
        return r, p

    def rotation(self, quat: Any, parameter: str) -> np.ndarray:
        """``R`` (column-vector convention) of a Gf quaternion ``(real, imaginary)``,
        normalised first (engines normalise it), through
        :func:`rigidparts.transforms.quaternion_to_matrix` (the same ``R`` as the transpose of
        USD's row-vector ``GfMatrix3d.SetRotate``); a zero or non-finite one is an error."""
        real, imaginary = float(quat.GetReal()), [float(v) for v in quat.GetImaginary()]
        if real == 1.0 and not any(imaginary):
            return IDENTITY[0]
        values = [real, *imaginary]
        if not all(map(math.isfinite, values)) or math.hypot(*values) <= ZERO_QUATERNION:
            raise self.error(parameter, values, "the quaternion must be finite, not zero")
        return quaternion_to_matrix(values, parameter)

    def _tree(
        self, raw: list[dict[str, Any]], links: dict[str, Link]
    ) -> dict[str, JointDescription]:
        """The joints oriented from the world outwards (breadth first): first from the joints
        to the world, then from each body no joint reaches, in file order, given a floating
        joint to the world (a rigid body no joint holds is free)."""
        touching: dict[str, list[int]] = {name: [] for name in links}
        for index, joint in enumerate(raw):
            for end in ("body0", "body1"):
                if joint[end] != WORLD:
                    touching[joint[end]].append(index)
        joints: dict[str, JointDescription] = {}
        placed: dict[str, JointDescription] = {}  # each body in the tree -> the joint holding it
        used: set[int] = set()
        for index, joint in enumerate(raw):
            if joint["body0"] != WORLD:
                continue
            used.add(index)
            if joint["body1"] in placed:
                self.notes.append(f"{joint['path']}: a second joint to the world: left out")
                continue
            placed[joint["body1"]] = self._add(joints, joint, reverse=False)
        self._walk(deque(placed), raw, touching, joints, placed, used)
        for name in links:
            if name in placed:
                continue
            free = _unique(joints, f"{name}_free")
            joints[free] = placed[name] = JointDescription(
                name=free,
                kind="floating",
                parent=WORLD,
                child=name,
                pose=self.frames[name][0],
                source=links[name].source,
            )
            self._walk(deque([name]), raw, touching, joints, placed, used)
        return joints

    def _walk(
        self,
        queue: deque[str],
        raw: list[dict[str, Any]],
        touching: dict[str, list[int]],
        joints: dict[str, JointDescription],
        placed: dict[str, JointDescription],
        used: set[int],
    ) -> None:
        """Breadth first from the bodies in ``queue``: each joint not yet ``used`` that
        touches a body already in the tree (``placed``: body -> the joint holding it) hangs
        the body at its other end below it, unless that one is in the tree already."""
        while queue:
            here = queue.popleft()
            for index in touching[here]:
                if index in used:
                    continue
                used.add(index)
                joint = raw[index]
                reverse = joint["body1"] == here
                child = joint["body0"] if reverse else joint["body1"]
                if child in placed:
                    parent_joint = placed[child]
                    if parent_joint.parent == here:
                        self.notes.append(
                            f"{joint['path']}: a second joint between {here!r} and {child!r} "
                            f"(a compound joint): only {parent_joint.name!r} is read"
                        )
                    else:
                        self.notes.append(
                            f"{joint['path']}: closes a kinematic loop: left out of the tree"
                        )
                    continue
                if reverse:
                    self.notes.append(
                        f"{joint['path']}: its body0 is the child in the tree from the world: "
                        "read turned round"
                    )
                placed[child] = self._add(joints, joint, reverse)
                queue.append(child)

    def _add(
        self, joints: dict[str, JointDescription], joint: dict[str, Any], reverse: bool
    ) -> JointDescription:
        """A joint (added to ``joints`` and returned): ``X_PJ`` the parent side's local frame,
        ``X_JC`` the inverse of the child side's."""
        parent, child = joint["body0"], joint["body1"]
        frame_parent, frame_child = joint["frame0"], joint["frame1"]
        limits = joint["limits"]
        if reverse:
            parent, child = child, parent
            frame_parent, frame_child = frame_child, frame_parent
            limits = _reversed(limits, joint["kind"])
        name = _unique(joints, joint["name"])
        pose, axis, child_pose = fold_child_pose(
            joint["kind"], frame_parent, joint["axis"], invert(frame_child)
        )
        joints[name] = JointDescription(
            name=name,
            kind=joint["kind"],
            parent=parent,
            child=child,
            pose=pose,
            source=self.source(joint["path"]),
            axis=axis,
            limits=limits,
            child_pose=child_pose,
        )
        return joints[name]


def _reverse_polygons(indices: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Each polygon's vertex order reversed (a mirrored mesh's faces turned outward)."""
    ends = np.cumsum(counts)
    starts = ends - counts
    polygon = np.repeat(np.arange(len(counts)), counts)
    position = np.arange(len(indices)) - starts[polygon]
    return indices[ends[polygon] - 1 - position]


def _reversed(limits: dict[str, float], kind: str) -> dict[str, float]:
    """The limits of a joint seen from its other side: ``q' = -q``."""
    if kind in ("revolute", "prismatic") and limits:
        return {"lower": -limits["upper"], "upper": -limits["lower"]}
    return dict(limits)


def _unique(taken: dict[str, Any], name: str) -> str:
    candidate, number = name, 1
    while candidate in taken:
        number += 1
        candidate = f"{name}_{number}"
    return candidate
