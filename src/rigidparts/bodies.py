"""The public bodies: explicit keyword-only front ends over :class:`.component.Component`.

Each class states only its signature and documentation (IDEs and documentation need real
signatures) and names its specification in :mod:`rigidparts.shapes`; the closed forms, rules,
frames and meshes live there and everything shared in :mod:`rigidparts.component`. The
signature's keywords and defaults are the specification's (``spec.signature_defaults()``,
checked by ``tests/test_shapes.py``); its body hands them to
:meth:`rigidparts.component.Component._build`, plain Python over the shape's functions.
Each dimension also reads as an attribute (``cone.radius_a``, SI).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from .component import Component, _cached, _readonly
from .errors import ParameterError
from .materials import DEFAULT_MATERIAL
from .shapes import SHAPES

__all__ = [
    "Ball",
    "Box",
    "Capsule",
    "Cone",
    "Cylinder",
    "Disk",
    "Ellipsoid",
    "IBeam",
    "Linkage",
    "MeshBody",
    "RigidBody",
    "StepBody",
    "body_class",
]

Length = float | str | Any  # a float in m, a string with units, or a pint Quantity


class _CrossSection(Component):
    """A body whose section is not round: its height and width directions (the Box's rule,
    :mod:`rigidparts.frames`) and ``rotate90``."""

    @property
    def rotate90(self) -> bool:
        """Whether the cross-section is turned 90 degrees about the axis."""
        return self._rotate90

    @_cached
    def height_direction(self) -> np.ndarray:
        """``h``: the unit vector along which the height lies, in frame_a."""
        return _readonly(np.array(self._frame[3:6]))

    @_cached
    def width_direction(self) -> np.ndarray:
        """``w = e_axis x h``: the unit vector along which the width lies, in frame_a."""
        return _readonly(np.array(self._frame[6:9]))


class Box(_CrossSection):
    """A homogeneous box (rectangular bar), solid or with a centred rectangular hole.

    Parameters (keyword-only; lengths in m, or strings / pint Quantities with units)
    ----------
    length : the extent along ``axis``, from frame_a to frame_b (> 0).
    width, height : the outer cross-section (> 0). ``height`` lies along
        :attr:`height_direction`, ``width`` along :attr:`width_direction`.
    inner_width, inner_height : the hole through the whole length (0 = solid; at most the
        outer size; not both equal to it).
    axis : any non-zero 3-vector in frame_a; normalised.
    rotate90 : turn the cross-section 90 degrees about the axis.
    height_direction : an explicit height direction (not parallel to the axis), replacing the
        rule of :mod:`rigidparts.frames`.
    material : a name from the material table (default ``"steel"``, 7860 kg/m^3).
    density : kg/m^3 or with units (``"7.85 g/cm^3"``); replaces the material.
    mass : kg or with units (``"2.5 kg"``); the density is then mass / volume. At most one of
        material, density and mass is given.
    extra_frames : offsets along the axis of extra frames ``frame_c1``, ``frame_c2``, ...

    With the canonical axis +x: height along +y, width along +z; centre of mass at
    ``(L/2) e_axis``; closed forms and the corrected ``I_yy``/``I_zz`` in
    :mod:`rigidparts.shapes.box`.
    """

    spec = SHAPES["box"]

    def __init__(
        self,
        *,
        length: Length = 1.0,
        width: Length = 0.1,
        height: Length = 0.2,
        inner_width: Length = 0.0,
        inner_height: Length = 0.0,
        axis: Any = (1, 0, 0),
        rotate90: bool = False,
        height_direction: Any = None,
        material: Any = DEFAULT_MATERIAL,
        density: Any = None,
        mass: Any = None,
        extra_frames: Iterable[Length] = (),
    ) -> None:
        """Build the body (keywords: the class docstring; the steps:
        :meth:`rigidparts.component.Component._build`)."""
        self._build(
            (length, width, height, inner_width, inner_height),
            material,
            density,
            mass,
            axis,
            rotate90,
            height_direction,
            extra_frames=extra_frames,
        )


class Cone(Component):
    """A homogeneous cone or frustum, solid or with a coaxial frustum-shaped bore.

    Parameters (keyword-only; lengths in m, or strings / pint Quantities with units)
    ----------
    length : the extent along ``axis``, from frame_a to frame_b (> 0).
    radius_a, radius_b : outer radii at frame_a and frame_b (>= 0; one may be 0: pointed).
    inner_radius_a, inner_radius_b : the bore's radii at frame_a and frame_b (0 = solid; at
        most the outer radius at the same end; the body must keep some volume).
    axis : any non-zero 3-vector in frame_a; normalised.
    material : a name from the material table (default ``"steel"``, 7860 kg/m^3).
    density : kg/m^3 or with units (``"7.85 g/cm^3"``); replaces the material.
    mass : kg or with units; the density is then mass / volume. At most one of material,
        density and mass is given.
    extra_frames : offsets along the axis of extra frames ``frame_c1``, ``frame_c2``, ...

    Centre of mass on the axis at ``L_com`` (a solid pointed cone: ``L/4`` from its base);
    cancellation-free closed forms in :mod:`rigidparts.shapes.cone`.
    """

    spec = SHAPES["cone"]

    def __init__(
        self,
        *,
        length: Length = 1.0,
        radius_a: Length = 0.4,
        radius_b: Length = 0.1,
        inner_radius_a: Length = 0.0,
        inner_radius_b: Length = 0.0,
        axis: Any = (1, 0, 0),
        material: Any = DEFAULT_MATERIAL,
        density: Any = None,
        mass: Any = None,
        extra_frames: Iterable[Length] = (),
    ) -> None:
        """Build the body (keywords: the class docstring; the steps:
        :meth:`rigidparts.component.Component._build`)."""
        self._build(
            (length, radius_a, radius_b, inner_radius_a, inner_radius_b),
            material,
            density,
            mass,
            axis,
            extra_frames=extra_frames,
        )


class Cylinder(Component):
    """A homogeneous cylinder (rod), solid or a tube with a coaxial bore.

    Parameters (keyword-only; lengths in m, or strings / pint Quantities with units)
    ----------
    length : the extent along ``axis``, from frame_a to frame_b (> 0).
    radius : the outer radius (> 0).
    inner_radius : the bore's radius (0 = solid; less than ``radius``).
    axis : any non-zero 3-vector in frame_a; normalised.
    material : a name from the material table (default ``"steel"``, 7860 kg/m^3).
    density : kg/m^3 or with units (``"7.85 g/cm^3"``); replaces the material.
    mass : kg or with units; the density is then mass / volume. At most one of material,
        density and mass is given.
    extra_frames : offsets along the axis of extra frames ``frame_c1``, ``frame_c2``, ...

    Frames as the Box: frame_a at one end of the axis, frame_b at ``L e_axis``, frame_com at
    ``(L/2) e_axis``, all with frame_a's orientation. Mass properties: the thick-walled
    cylinder, ``m = rho pi L (R^2 - R_i^2)``, ``I_axial = m (R^2 + R_i^2) / 2``,
    ``I_transverse = m (3 (R^2 + R_i^2) + L^2) / 12``, about the centre of mass, expressed in
    frame_a; computed by the cone's cancellation-free closed form with equal radii
    (:mod:`rigidparts.shapes.cylinder`), so a thin-walled tube keeps every digit.
    """

    spec = SHAPES["cylinder"]

    def __init__(
        self,
        *,
        length: Length = 1.0,
        radius: Length = 0.1,
        inner_radius: Length = 0.0,
        axis: Any = (1, 0, 0),
        material: Any = DEFAULT_MATERIAL,
        density: Any = None,
        mass: Any = None,
        extra_frames: Iterable[Length] = (),
    ) -> None:
        """Build the body (keywords: the class docstring; the steps:
        :meth:`rigidparts.component.Component._build`)."""
        self._build(
            (length, radius, inner_radius), material, density, mass, axis, extra_frames=extra_frames
        )


class Disk(Component):
    """A homogeneous disk centred on frame_a, solid or a ring with a coaxial hole.

    Parameters (keyword-only; lengths in m, angles in rad, or strings / pint Quantities with
    units)
    ----------
    radius : the outer radius (> 0).
    inner_radius : the hole's radius (0 = solid; less than ``radius``).
    thickness : the extent along ``axis``, centred on frame_a (> 0).
    axis : any non-zero 3-vector in frame_a; normalised.
    material : a name from the material table (default ``"steel"``, 7860 kg/m^3).
    density : kg/m^3 or with units (``"7.85 g/cm^3"``); replaces the material.
    mass : kg or with units; the density is then mass / volume. At most one of material,
        density and mass is given.
    extra_frames : ``(radius, angle)`` pairs (``[(0.2, "30 deg"), (0.2, "150 deg")]``): frame
        ``frame_ck`` is frame_a rotated about the axis by ``angle`` (right-handed) and placed
        at ``radius (cos(angle) h + sin(angle) w)`` in the plane of the centre of mass, with
        ``h``, ``w`` the Box's height and width directions for the axis (for +x: +y and +z).

    frame_a is at the centre (the centre of mass; frame_com is the same point); there is no
    frame_b. Mass properties: the cylinder of length ``T`` (:mod:`rigidparts.shapes.disk`),
    ``m = rho pi T (R^2 - R_i^2)``, ``I_axial = m (R^2 + R_i^2) / 2``,
    ``I_transverse = m (3 (R^2 + R_i^2) + T^2) / 12``, about the centre of mass, expressed in
    frame_a.
    """

    spec = SHAPES["disk"]

    def __init__(
        self,
        *,
        radius: Length = 1.0,
        inner_radius: Length = 0.0,
        thickness: Length = 0.1,
        axis: Any = (1, 0, 0),
        material: Any = DEFAULT_MATERIAL,
        density: Any = None,
        mass: Any = None,
        extra_frames: Iterable[tuple[Length, Any]] = (),
    ) -> None:
        """Build the body (keywords: the class docstring; the steps:
        :meth:`rigidparts.component.Component._build`)."""
        self._build(
            (radius, inner_radius, thickness),
            material,
            density,
            mass,
            axis,
            extra_frames=extra_frames,
        )


class IBeam(_CrossSection):
    """A homogeneous I-beam: a doubly symmetric I-section with root fillets along the axis.

    Parameters (keyword-only; lengths in m, or strings / pint Quantities with units)
    ----------
    length : the extent along ``axis``, from frame_a to frame_b (> 0).
    height : the section's overall height ``h``, along :attr:`height_direction` (> 0).
    flange_width : the flanges' width ``b``, along :attr:`width_direction` (> 0).
    flange_thickness : each flange's thickness ``t_f`` (> 0; ``2 t_f + 2 r <= h``).
    web_thickness : the web's thickness ``t_w`` (> 0; ``t_w + 2 r <= b``).
    root_radius : the radius ``r`` of the four web-flange root fillets (>= 0; 0: sharp).
        Defaults: IPE 200 (h 200, b 100, t_f 8.5, t_w 5.6, r 12 mm).
    axis : any non-zero 3-vector in frame_a; normalised.
    rotate90 : turn the cross-section 90 degrees about the axis.
    height_direction : an explicit height direction (not parallel to the axis), replacing the
        rule of :mod:`rigidparts.frames`.
    material : a name from the material table (default ``"steel"``, 7860 kg/m^3).
    density : kg/m^3 or with units (``"7.85 g/cm^3"``); replaces the material.
    mass : kg or with units; the density is then mass / volume. At most one of material,
        density and mass is given.
    extra_frames : offsets along the axis of extra frames ``frame_c1``, ``frame_c2``, ...

    Frames as the Box: frame_a at one end of the axis, frame_b at ``L e_axis``, the centre of
    mass at ``(L/2) e_axis``. The inertia is about the centre of mass in frame_a's axes; with
    the canonical axis +x (height along +y, width along +z) it is diagonal. Closed forms
    (section area and second moments with the fillets' exact spandrels, derived in
    ``spec/family.md`` and proved by integration in the tests) in
    :mod:`rigidparts.shapes.ibeam`.
    """

    spec = SHAPES["ibeam"]

    def __init__(
        self,
        *,
        length: Length = 1.0,
        height: Length = 0.2,
        flange_width: Length = 0.1,
        flange_thickness: Length = 0.0085,
        web_thickness: Length = 0.0056,
        root_radius: Length = 0.012,
        axis: Any = (1, 0, 0),
        rotate90: bool = False,
        height_direction: Any = None,
        material: Any = DEFAULT_MATERIAL,
        density: Any = None,
        mass: Any = None,
        extra_frames: Iterable[Length] = (),
    ) -> None:
        """Build the body (keywords: the class docstring; the steps:
        :meth:`rigidparts.component.Component._build`)."""
        self._build(
            (length, height, flange_width, flange_thickness, web_thickness, root_radius),
            material,
            density,
            mass,
            axis,
            rotate90,
            height_direction,
            extra_frames=extra_frames,
        )


class Ball(Component):
    """A homogeneous ball (sphere), solid or hollow (a spherical shell).

    Parameters (keyword-only; lengths in m, or strings / pint Quantities with units)
    ----------
    radius : the outer radius (> 0).
    inner_radius : the radius of the concentric spherical cavity (0 = solid; less than
        ``radius``).
    material : a name from the material table (default ``"steel"``, 7860 kg/m^3).
    density : kg/m^3 or with units (``"7.85 g/cm^3"``); replaces the material.
    mass : kg or with units; the density is then mass / volume. At most one of material,
        density and mass is given.

    No axis: frame_a is at the centre, which is the centre of mass (frame_com is the same
    point); there is no frame_b and no extra frame. Mass properties about the centre of mass,
    expressed in frame_a (the same about every axis): ``m = rho (4/3) pi (R^3 - R_i^3)``,
    ``I = rho (8/15) pi (R^5 - R_i^5)`` (solid: ``(2/5) m R^2``; thin shell: ``(2/3) m R^2``),
    computed in the cancellation-free form of :mod:`rigidparts.shapes.ball` (with the wall
    ``R - R_i`` as a factor), so a thin shell keeps every digit.
    """

    spec = SHAPES["ball"]

    def __init__(
        self,
        *,
        radius: Length = 1.0,
        inner_radius: Length = 0.0,
        material: Any = DEFAULT_MATERIAL,
        density: Any = None,
        mass: Any = None,
    ) -> None:
        """Build the body (keywords: the class docstring; the steps:
        :meth:`rigidparts.component.Component._build`)."""
        self._build((radius, inner_radius), material, density, mass)


class Linkage(_CrossSection):
    """A linkage: the original's "rigid cuboid with link visualization".

    Parameters (keyword-only; lengths in m, or strings / pint Quantities with units)
    ----------
    length : the extent along ``axis``, from frame_a to frame_b (> 0).
    width, height : the cross-section (> 0). ``height`` lies along :attr:`height_direction`,
        ``width`` along :attr:`width_direction`.
    axis : any non-zero 3-vector in frame_a; normalised.
    rotate90 : turn the cross-section 90 degrees about the axis.
    height_direction : an explicit height direction (not parallel to the axis), replacing the
        rule of :mod:`rigidparts.frames`.
    material : a name from the material table (default ``"steel"``, 7860 kg/m^3).
    density : kg/m^3 or with units (``"7.85 g/cm^3"``); replaces the material.
    mass : kg or with units; the density is then mass / volume. At most one of material,
        density and mass is given.
    extra_frames : offsets along the axis of extra frames ``frame_c1``, ``frame_c2``, ...

    Frames as the Box: frame_a at one end, frame_b at ``L e_axis``, frame_com at
    ``(L/2) e_axis``, all with frame_a's orientation. Mass properties: those of the solid
    cuboid ``L x W x H`` from frame_a to frame_b, bit for bit the solid :class:`Box` with the
    same arguments (its closed form, :mod:`rigidparts.shapes.linkage`), about the centre of
    mass, expressed in frame_a.

    The drawing is not the mass model: :meth:`mesh` draws a link whose rounded ends (radius
    ``H/2``) reach ``H/2`` beyond frame_a and frame_b and which has a pin hole of radius
    ``H/4`` at each of them; the mass properties are the full cuboid's, holes and rounded ends
    notwithstanding.
    """

    spec = SHAPES["linkage"]

    def __init__(
        self,
        *,
        length: Length = 1.0,
        width: Length = 0.1,
        height: Length = 0.2,
        axis: Any = (1, 0, 0),
        rotate90: bool = False,
        height_direction: Any = None,
        material: Any = DEFAULT_MATERIAL,
        density: Any = None,
        mass: Any = None,
        extra_frames: Iterable[Length] = (),
    ) -> None:
        """Build the body (keywords: the class docstring; the steps:
        :meth:`rigidparts.component.Component._build`)."""
        self._build(
            (length, width, height),
            material,
            density,
            mass,
            axis,
            rotate90,
            height_direction,
            extra_frames=extra_frames,
        )


class MeshBody(Component):
    """A homogeneous body from a CAD file: the solid bounded by a closed triangle mesh.

    Parameters (keyword-only)
    ----------
    mesh : a path to an STL (binary or ASCII), OBJ, PLY, OFF or glTF/GLB file, or a
        ``trimesh.Trimesh``. It must bound a solid: closed, consistently wound, facing outward,
        with a volume (each defect is a ParameterError naming the file and what is wrong).
    units : the length unit of the file's coordinates (``"mm"``, ``"m"``, ``"in"``); required
        for STL, OBJ, PLY, OFF and a Trimesh (they carry no unit), metres for glTF (a unit
        given for it overrides that, with a warning).
    weld : welding tolerance relative to the part's size (default 1e-9; None too; 0: none): a mesh
        closed up to it is welded (``mesh_report`` says what was done).
    hull : whether a mesh that bounds no solid is replaced by its convex hull (the volume
        difference stated in ``mesh_report``) instead of refused.
    material, density, mass : as for every body (at most one; default steel).
    frames : named frames, ``{"mount": ("10 mm", 0, 0), "tool": {"position": (0, 0, 0.05),
        "rotation": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}}``: positions in frame_a (m or with
        units), rotations ``R_AF`` (rows; default identity).

    frame_a is the file's origin and axes; ``frame_com`` the centre of mass, then the named
    frames. The volume, centre of mass and inertia are the exact integrals over the polyhedron
    (:mod:`rigidparts.polyhedron`), in frame_a, SI. :meth:`mesh` is the checked surface in
    metres.
    """

    spec = SHAPES["mesh"]

    def __init__(
        self,
        *,
        mesh: Any = None,
        units: str | None = None,
        weld: Any = 1e-9,  # DEFAULT_WELD (tests/test_shapes.py: the class's and the spec's agree)
        hull: Any = False,
        material: Any = DEFAULT_MATERIAL,
        density: Any = None,
        mass: Any = None,
        frames: Any = None,
    ) -> None:
        """Build the body (keywords: the class docstring; the steps:
        :meth:`rigidparts.component.Component._build`)."""
        self._build((mesh, units, weld, hull), material, density, mass, extra_frames=frames)

    @property
    def mesh_report(self) -> dict[str, Any]:
        """What the mesh is and what was done to it (:mod:`rigidparts.shapes._mesh_repair`):
        ``class`` (closed, inside-out, welded, shells, holes, hull), ``actions`` in words,
        ``exact``, counts, the bound on capping's effect, the hull's volume difference."""
        from .shapes.mesh_body import report

        return report(self._dimensions)

    def report_extras(self, units: Any = None) -> dict[str, Any]:
        """What ``--json`` adds: ``{"mesh_report": ...}`` (its lengths in the file's units,
        as it says, whatever the report's ``units``)."""
        return {"mesh_report": self.mesh_report}

    def report_lines(self) -> list[str]:
        """The mesh report for the command line's table."""
        found = self.mesh_report
        exact = "exact" if found["exact"] else "not exact"
        return [f"  mesh              {found['summary']} ({exact})"]


class RigidBody(Component):
    """A body given by its mass properties, with no geometry (MapleSim's "Rigid Body"): what a
    robot description file declares for a link, or a data sheet gives for a part.

    Parameters (keyword-only)
    ----------
    center_of_mass : ``p_FoBcm_F``, the centre of mass in ``frame`` (three lengths, m, or with
        units: ``("0 mm", 0, "25 mm")``, ``"0, 0, 25 mm"``).
    inertia : ``I_BBcm_F``, about the centre of mass, in ``frame``'s axes, kg m^2: a symmetric
        3x3 matrix, or the six entries ``(ixx, iyy, izz, ixy, ixz, iyz)`` (MuJoCo's
        ``fullinertia`` order). It must be
        physical: positive definite and obeying the triangle inequality (within
        :data:`rigidparts.INERTIA_TOLERANCE`), else a ParameterError naming ``inertia``.
    frame : ``X_AF``, the frame F those two are given in, placed in frame_a: None (frame_a
        itself), a position, or ``{"position": ..., "rotation": 3x3 rows}`` or
        ``{"position": ..., "rpy": (roll, pitch, yaw)}`` (URDF's ``<inertial><origin>``).
    geometry : the shapes that draw the body (a robot file's visual geometry): ``(body,
        pose)`` pairs, any rigidparts body placed by the pose of its frame_a (as ``frame``); or
        mappings ``{"shape": "box", "length": ..., "position": ..., "rotation": ...}``. Drawn
        and exported; their mass properties are not the body's.
    mass : kg, or with units (default 1 kg). There is no material or density: the body has
        no volume (``volume`` and ``density`` are None).
    frames : named frames, as for :class:`MeshBody`.

    Results in frame_a, as for every body: ``p_AoBcm_A = p_AoFo_A + R_AF p_FoBcm_F``,
    ``I_BBcm_A = R_AF I_BBcm_F R_AF^T`` (:mod:`rigidparts.shapes.rigid_body`). :meth:`mesh` is
    the geometry's, or without geometry the equivalent ellipsoid: the homogeneous solid
    ellipsoid with the same mass, centre of mass and inertia.
    """

    spec = SHAPES["rigid_body"]

    def __init__(
        self,
        *,
        center_of_mass: Any = (0.0, 0.0, 0.0),
        inertia: Any = (0.001, 0.001, 0.001, 0.0, 0.0, 0.0),
        frame: Any = None,
        geometry: Any = (),
        mass: Any = 1.0,
        frames: Any = None,
    ) -> None:
        """Build the body (keywords: the class docstring; the steps:
        :meth:`rigidparts.component.Component._build`)."""
        self._build(
            (center_of_mass, inertia, frame, _placed_bodies(geometry)),
            DEFAULT_MATERIAL,
            None,
            mass,
            extra_frames=frames,
        )


def _placed_bodies(geometry: Any) -> Any:
    """``geometry`` with each entry given as a mapping (a model file's table: ``shape`` and the
    body's keywords, ``position``, ``rotation`` or ``rpy``) built into ``(body, pose)``; other
    entries as given (the shape's rule checks them)."""
    if isinstance(geometry, str | bytes) or not isinstance(geometry, Iterable):
        return geometry
    out = []
    for i, item in enumerate(geometry):
        if isinstance(item, dict) and "shape" in item:
            keywords = dict(item)
            pose = {k: keywords.pop(k) for k in ("position", "rotation", "rpy") if k in keywords}
            body = body_class(keywords.pop("shape"), f"geometry[{i}].shape")(**keywords)
            item = (body, pose or None)
        out.append(item)
    return tuple(out)


class Capsule(Component):
    """A homogeneous capsule: a cylinder with a hemispherical cap on each end, solid or with a
    concentric capsular cavity.

    Parameters (keyword-only; lengths in m, or strings / pint Quantities with units)
    ----------
    length : the cylindrical part's length, from the centre of one hemisphere to the centre of
        the other: frame_a to frame_b along ``axis`` (>= 0; 0: a ball). The whole capsule is
        ``length + 2 radius`` long.
    radius : the radius of the cylinder and of both hemispheres (> 0).
    inner_radius : the radius of the concentric cavity, a capsule of the same ``length`` (0 =
        solid; less than ``radius``).
    axis : any non-zero 3-vector in frame_a; normalised.
    material : a name from the material table (default ``"steel"``, 7860 kg/m^3).
    density : kg/m^3 or with units (``"7.85 g/cm^3"``); replaces the material.
    mass : kg or with units; the density is then mass / volume. At most one of material,
        density and mass is given.
    extra_frames : offsets along the axis of extra frames ``frame_c1``, ``frame_c2``, ...

    frame_a is at the centre of one hemisphere, frame_b at the centre of the other
    (``L e_axis``: MuJoCo's ``fromto`` end points), frame_com at ``(L/2) e_axis``, all with
    frame_a's orientation; the surface reaches ``radius`` beyond frame_a and frame_b. Mass
    properties about the centre of mass, expressed in frame_a: the tube plus the two
    hemispherical shells moved by parallel axes, ``I_xx = rho pi L sigma rho2 / 2 + I_b``,
    ``I_transverse = rho pi L sigma (3 rho2 / 4 + L^2 / 12) + I_b + m_b L^2 / 4`` with
    ``sigma = R^2 - R_i^2``, ``rho2 = R^2 + R_i^2`` and the ball's ``m_b``, ``I_b``, in the
    cancellation-free form of :mod:`rigidparts.shapes.capsule`.
    """

    spec = SHAPES["capsule"]

    def __init__(
        self,
        *,
        length: Length = 1.0,
        radius: Length = 0.1,
        inner_radius: Length = 0.0,
        axis: Any = (1, 0, 0),
        material: Any = DEFAULT_MATERIAL,
        density: Any = None,
        mass: Any = None,
        extra_frames: Iterable[Length] = (),
    ) -> None:
        """Build the body (keywords: the class docstring; the steps:
        :meth:`rigidparts.component.Component._build`)."""
        self._build(
            (length, radius, inner_radius), material, density, mass, axis, extra_frames=extra_frames
        )


class Ellipsoid(Component):
    """A homogeneous solid ellipsoid centred on frame_a, its semi-axes along frame_a's axes.

    Parameters (keyword-only; lengths in m, or strings / pint Quantities with units)
    ----------
    radius_x, radius_y, radius_z : the semi-axes ``a``, ``b``, ``c`` along frame_a's x, y and
        z (> 0), as MJCF's ``size``, SDFormat's ``<radii>`` and Drake's ``a b c`` place them.
    material : a name from the material table (default ``"steel"``, 7860 kg/m^3).
    density : kg/m^3 or with units (``"7.85 g/cm^3"``); replaces the material.
    mass : kg or with units; the density is then mass / volume. At most one of material,
        density and mass is given.

    No axis: frame_a is at the centre, which is the centre of mass (frame_com is the same
    point); there is no frame_b and no extra frame. Mass properties about the centre of mass,
    expressed in frame_a (whose axes are principal): ``m = rho (4/3) pi a b c``,
    ``I_xx = m (b^2 + c^2) / 5``, ``I_yy = m (a^2 + c^2) / 5``, ``I_zz = m (a^2 + b^2) / 5``
    (:mod:`rigidparts.shapes.ellipsoid`).
    """

    spec = SHAPES["ellipsoid"]

    def __init__(
        self,
        *,
        radius_x: Length = 0.3,
        radius_y: Length = 0.2,
        radius_z: Length = 0.1,
        material: Any = DEFAULT_MATERIAL,
        density: Any = None,
        mass: Any = None,
    ) -> None:
        """Build the body (keywords: the class docstring; the steps:
        :meth:`rigidparts.component.Component._build`)."""
        self._build((radius_x, radius_y, radius_z), material, density, mass)


class StepBody(Component):
    """A body from a STEP file: its solids' exact B-rep mass properties (OpenCascade).

    Parameters (keyword-only)
    ----------
    step : a path to a STEP file (``.step`` / ``.stp``), read through OpenCascade (the
        optional extra ``cad``): one solid, several, or an assembly.
    units : the length unit of the file's coordinates, needed only when the file states none
        (a unit that differs from the file's overrides it: the file's numbers reinterpreted).
    solid : one solid of the file by name, in its own frame; default all of them, composed
        in the file's frame (an assembly as one body).
    material, density, mass : as for every body (at most one; default steel); ``material``
        may also map solid names to materials or densities (``{"arm": "aluminium",
        "*": "steel"}``; a part's name for all its instances, ``*`` for the others), then
        each solid keeps its own density and
        :attr:`density` is their volume-weighted mean (a ``mass`` given too sets the total
        mass, the map the ratios; a ``density`` or another ``material`` too is refused).
    materials : the same per-solid map as text, ``"arm=aluminium,*=steel"`` (the command
        line's ``--materials``).
    frames : named frames, as for :class:`MeshBody`.

    frame_a is the file's origin and axes (a chosen solid's own); ``frame_com`` the centre of
    mass. The volume, centre of mass and inertia are the exact integrals over the B-rep,
    composed over the solids (:mod:`rigidparts.shapes.step_body`), in frame_a, SI; every
    solid is certified against a fine tessellation (:attr:`certificate`); walls thinner than
    1e-5 of the part are refused (OpenCascade's integrals lose them).
    """

    spec = SHAPES["step"]

    def __init__(
        self,
        *,
        step: Any = None,
        units: str | None = None,
        solid: str | None = None,
        materials: Any = None,
        material: Any = DEFAULT_MATERIAL,
        density: Any = None,
        mass: Any = None,
        frames: Any = None,
    ) -> None:
        """Build the body (keywords: the class docstring; the steps:
        :meth:`rigidparts.component.Component._build`)."""
        from collections.abc import Mapping

        if isinstance(materials, tuple | list):  # (name, material or density) pairs: a map
            from .shapes.step_body import MATERIALS_VALID, RULES

            try:
                materials = {str(name): value for name, value in materials}
            except (TypeError, ValueError):
                rule = RULES[MATERIALS_VALID - 1].text
                raise ParameterError("materials", materials, rule) from None
        if isinstance(material, Mapping) or isinstance(materials, str | Mapping):
            from .shapes.step_body import per_solid_densities

            given = materials if materials is not None else material
            if materials is not None and material is not DEFAULT_MATERIAL:
                raise ParameterError(
                    "materials",
                    materials,
                    f"gives every solid its material: give it or material={material!r}, not both",
                )
            if density is not None:  # a density for all is a material for all
                raise ParameterError(
                    "density",
                    density,
                    "is the solids' own with per-solid materials: give the map or one density "
                    "for all, not both (a mass with the map sets the total)",
                )
            if self.spec.check(step, units, solid, None):
                self._build((step, units, solid, None), DEFAULT_MATERIAL, None, None)
            dims = {"step": step, "units": units, "solid": solid, "materials": None}
            materials, mean = per_solid_densities(dims, given)
            if mass is None:  # else it sets the total, the map the ratios
                density = mean
            material = DEFAULT_MATERIAL
        self._build((step, units, solid, materials), material, density, mass, extra_frames=frames)

    @property
    def certificate(self) -> dict[str, Any]:
        """The B-rep's integrals against a fine tessellation's, per solid and the worst
        (:func:`rigidparts.shapes.step_body.certificate`): relative differences of volume,
        centre of mass (over the solid's size) and inertia, the bound a tessellation within
        its deflection may differ by, and whether every solid agrees."""
        from .shapes.step_body import certificate

        return certificate(self._dimensions)

    @property
    def solids(self) -> list[str]:
        """The names of the solids the body holds."""
        from .shapes.step_body import selected

        return [s.name for s in selected(self._dimensions)]

    @property
    def material_label(self) -> str | None:
        """The table's words for the material when it is per solid (None otherwise)."""
        if not self._dimensions["materials"]:
            return None
        return "(per solid: materials above; the density is their volume-weighted mean)"

    def report_extras(self, units: Any = None) -> dict[str, Any]:
        """What ``--json`` adds: ``{"certificate": ...}``, its solids' lengths (``size``,
        ``wall``, ``deflection``) in the report's ``units`` (a :class:`~rigidparts.report.
        ReportUnits`; None: metres); its differences are relative."""
        found = self.certificate
        if units is None:
            return {"certificate": found}
        solids = {
            name: {
                **row,
                **{key: units.lengths(row[key]) for key in ("size", "wall", "deflection")},
            }
            for name, row in found["solids"].items()
        }
        return {"certificate": {**found, "solids": solids}}

    def report_lines(self) -> list[str]:
        """The certificate for the command line's table."""
        found = self.certificate
        lines = [
            f"  STEP file unit    {found['stated_unit'] or '(none stated)'}; used "
            f"{found['unit']}",
            "  certificate (B-rep against its tessellation; relative differences):",
        ]
        for name, row in found["solids"].items():
            # a solid whose every face was meshed agrees, or is refused: only an incomplete
            # comparison is left to disagree
            verdict = "agrees" if row["agrees"] else f"not certified ({'; '.join(row['left_out'])})"
            lines.append(
                f"      {name}: volume {row['volume_difference']:.1e} (bound "
                f"{row['volume_bound']:.1e}), centre of mass "
                f"{row['center_of_mass_difference']:.1e}, inertia "
                f"{row['inertia_difference']:.1e}, {row['triangles']} triangles: {verdict}"
            )
        return lines


def body_class(shape: str, parameter: str = "shape") -> type[Component]:
    """The public class of shape ``shape`` (``"box"`` -> :class:`Box`); ParameterError naming
    ``parameter`` and the known shapes otherwise."""
    classes = {cls.spec.name: cls for cls in _public_classes()}
    try:
        return classes[shape]
    except (KeyError, TypeError):
        raise ParameterError(parameter, shape, f"must be one of {', '.join(classes)}") from None


def _public_classes() -> list[type[Component]]:
    """Every public body class, in registry order (each shape has exactly one)."""
    found = {cls.spec.name: cls for cls in globals().values() if _is_body_class(cls)}
    return [found[name] for name in SHAPES if name in found]


def _is_body_class(value: Any) -> bool:
    return isinstance(value, type) and issubclass(value, Component) and "spec" in vars(value)
