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
    "Cone",
    "Cylinder",
    "Disk",
    "IBeam",
    "Linkage",
    "MeshBody",
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
        for STL, OBJ, PLY, OFF and a Trimesh (they carry no unit), metres for glTF.
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
        material: Any = DEFAULT_MATERIAL,
        density: Any = None,
        mass: Any = None,
        frames: Any = None,
    ) -> None:
        """Build the body (keywords: the class docstring; the steps:
        :meth:`rigidparts.component.Component._build`)."""
        self._build((mesh, units), material, density, mass, extra_frames=frames)


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
