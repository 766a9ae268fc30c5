"""What every body shares: parsing, material, axis, frames and results, driven by the shape's
specification (:class:`rigidparts.shapes.ShapeSpec`).

A public class (:class:`rigidparts.Box`, ...) declares its keyword-only signature, names its
specification (``spec``) and hands its arguments to :meth:`Component._build`, which

1. converts every dimension to an SI float (:mod:`rigidparts.units`),
2. takes the density from the material table, the given density, or the given mass
   (``density = mass / volume``): exactly one of the three, the default material when none,
3. checks the dimensions against the shape's rules, then the density or mass, then the axis,
4. evaluates the closed forms in the canonical frame C (tier 1: axis along +x, the centre of mass
   on it, C's axes principal; tier 2: a full :class:`MassProperties` in C),
5. rotates the result into frame_a with ``R_AC = [e_axis | h | w]`` (:mod:`rigidparts.frames`).

Results are read-only and expressed in frame_a, SI units: ``mass`` (kg), ``volume`` (m^3),
``density`` (kg/m^3), ``center_of_mass`` (m, ``p_AoBcm_A``), ``inertia`` (kg m^2, ``I_BBcm_A``:
about the centre of mass, frame_a axes), ``mass_properties`` and ``frames``. ``inertia`` *is*
``mass_properties.inertia`` (one array, so every exporter writes the same bits).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any, ClassVar

import numpy as np

from .errors import ParameterError
from .frames import Frame, cached_body_frame
from .inertia import MassProperties
from .materials import DEFAULT_MATERIAL, Material, get_material
from .shapes import ShapeSpec, results_representable, unrepresentable_parameter
from .shapes._meshing import canonical_mesh, mesh_in_frame_a
from .units import to_si

__all__ = ["DEFAULT_MATERIAL", "Component"]


_BOOLS = (bool, np.bool_)
_NUMBERS = (float, int)
#: Rows of ``R_AC`` for a shape without an axis: C is frame_a.
_NO_AXIS = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)


def _vector3(name: str, value: Any) -> tuple[float, float, float]:
    """Three floats from a 3-sequence of numbers (finiteness is a rule of :func:`body_frame`)."""
    if type(value) is tuple and len(value) == 3:  # fast path for the common (x, y, z)
        x, y, z = value
        if type(x) in _NUMBERS and type(y) in _NUMBERS and type(z) in _NUMBERS:
            return float(x), float(y), float(z)
    try:
        items = [float(v) for v in value]  # type: ignore[union-attr]
    except (TypeError, ValueError):
        raise ParameterError(name, value, "must be a 3-vector of numbers, e.g. (0, 0, 1)") from None
    if len(items) != 3 or isinstance(value, str):
        raise ParameterError(name, value, "must be a 3-vector of numbers, e.g. (0, 0, 1)")
    return items[0], items[1], items[2]


@functools.lru_cache(maxsize=256)
def _material_named(name: str) -> Material:
    # Materials are immutable and a few names are used over and over: skip the lookup.
    return get_material(name)


def material_source(material: Any, density: Any, mass: Any) -> str:
    """Which of ``material``, ``density``, ``mass`` gives the density: the one given
    explicitly (the default material counts as not given); ParameterError naming both when
    two or three are given."""
    given = [
        name
        for name, value in (("material", material), ("density", density), ("mass", mass))
        if value is not None and value is not DEFAULT_MATERIAL
    ]
    if len(given) > 1:
        values = {"material": material, "density": density, "mass": mass}
        first, second = given[0], given[1]
        raise ParameterError(
            second,
            values[second],
            f"give only one of material, density and mass: {first}={values[first]!r} was "
            f"given too",
        )
    return given[0] if given else "material"


def resolve_density(material: Any, density: Any, mass: Any) -> tuple[float, str | None, bool]:
    """``(value, material name or None, by_mass)``: the density in kg/m^3 (from the table or
    given), or, when ``by_mass``, the given mass in kg (see :func:`material_source`)."""
    source = material_source(material, density, mass)
    if source == "density":
        return to_si("density", density, "density"), None, False
    if source == "mass":
        return to_si("mass", mass, "mass"), None, True
    if isinstance(material, Material):
        return material.density, material.name, False
    found = _material_named(material) if isinstance(material, str) else get_material(material)
    return found.density, found.name, False


def _divide(numerator: float, denominator: float) -> float:
    """``numerator / denominator`` as float64 divides (inf for a volume that underflowed to 0,
    as in the compiled batch path), not Python's ZeroDivisionError."""
    return numerator / denominator if denominator != 0.0 else math.inf


class _cached:
    """``functools.cached_property`` without Python 3.11's per-access lock (a body's results
    are read on the per-body hot path): computed on first access, then a plain attribute."""

    def __init__(self, function: Any) -> None:
        self.function = function
        self.__doc__ = function.__doc__
        self.name = function.__name__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        if instance is None:
            return self
        value = instance.__dict__[self.name] = self.function(instance)
        return value


class Component:
    """Base of every body: shared parsing, frames and results (see module docstring).

    Subclasses set ``spec`` (their :class:`~rigidparts.shapes.ShapeSpec`) and call
    :meth:`_build` with their keyword arguments from their keyword-only ``__init__``.
    """

    spec: ClassVar[ShapeSpec]
    _frozen: bool = False

    @property
    def shape(self) -> str:
        """The shape's name in the registry (``"box"``)."""
        return self.spec.name

    def _build(self, arguments: Mapping[str, Any]) -> None:
        spec = self.spec
        dimensions = {p.name: arguments[p.name] for p in spec.params}
        si = {p.name: to_si(p.name, dimensions[p.name], p.kind) for p in spec.params}
        value, material_name, by_mass = resolve_density(
            arguments.get("material"), arguments.get("density"), arguments.get("mass")
        )
        rho, given_mass = (math.nan, value) if by_mass else (value, math.nan)

        code = spec.check(*si.values())
        if code:
            rule = spec.rules[code - 1]
            raise ParameterError(rule.parameter, dimensions[rule.parameter], rule.text.format(**si))
        if by_mass and not 0.0 < given_mass < math.inf:
            raise ParameterError("mass", arguments["mass"], "must be positive and finite (kg)")
        if not by_mass and not 0.0 < rho < math.inf:
            shown = arguments["density"] if material_name is None else rho
            raise ParameterError("density", shown, "must be positive and finite (kg/m^3)")

        frame, axis, rotate90, explicit = self._axis_frame(arguments)
        extra = self._extra_frames(arguments.get("extra_frames", ()))

        if spec.closed_form is not None:
            if by_mass:  # density = mass / volume; the mass is kept exactly as given
                rho = _divide(given_mass, spec.closed_form(*si.values(), 1.0)[0])
            volume, mass, com_x, i_xx, i_yy, i_zz = spec.closed_form(*si.values(), rho)
            mass = given_mass if by_mass else mass
            moments = (i_xx, i_yy, i_zz)
            canonical = None
        else:
            if by_mass:
                rho = _divide(given_mass, spec.general_form(si, 1.0)[0])
            volume, canonical = spec.general_form(si, rho)
            mass = given_mass if by_mass else canonical.mass
            com_x, moments = math.nan, tuple(np.diag(canonical.inertia))
        if not results_representable(volume, mass, *moments, rho):
            largest = unrepresentable_parameter(si)
            rule = spec.all_rules[spec.common_code("unrepresentable") - 1].text
            raise ParameterError(
                largest, dimensions[largest], rule.format(mass=mass, moments=moments)
            )

        # One update instead of a dozen guarded setattr calls (this is the per-body hot path).
        self.__dict__.update(
            _dimensions=si,
            _density=rho,
            _material=material_name,
            _mass_given=by_mass,
            _frame=frame,
            _axis_given=axis,
            _rotate90=rotate90,
            _explicit_height=explicit,
            _extra_frames=extra,
            _volume=volume,
            _mass=mass,
            _com_on_axis=com_x,
            _canonical_moments=moments,
            _canonical_properties=canonical,
            _frozen=True,
        )

    def _axis_frame(
        self, arguments: Mapping[str, Any]
    ) -> tuple[tuple[float, ...], tuple[float, ...], bool, bool]:
        """``(rows e, h, w of R_AC^T as 9 floats, the axis as given (3 floats), rotate90,
        explicit height)``."""
        spec = self.spec
        if not spec.axis:
            return _NO_AXIS, _NO_AXIS[:3], False, False
        axis = arguments["axis"]
        ax = _vector3("axis", axis)
        rotate90 = arguments.get("rotate90", False)
        if not isinstance(rotate90, _BOOLS):
            raise ParameterError("rotate90", rotate90, "must be True or False")
        height_direction = arguments.get("height_direction")
        explicit = height_direction is not None
        h = _vector3("height_direction", height_direction) if explicit else (0.0, 0.0, 0.0)
        code, *frame = cached_body_frame(*ax, bool(rotate90), explicit, *h)
        if code:
            rule = spec.all_rules[spec.common_code("frame") + code - 2]
            value = axis if rule.parameter == "axis" else height_direction
            raise ParameterError(rule.parameter, value, rule.text)
        return tuple(frame), ax, bool(rotate90), explicit

    def _extra_frames(self, extra_frames: Any) -> tuple[Any, ...]:
        """The extra frames in SI: offsets along the axis, or ``(radius, angle)`` pairs."""
        kind = self.spec.extra_frames
        if kind is None:
            return ()
        example = "[0.25, 0.5]" if kind == "axial" else "[(0.2, '30 deg'), (0.2, '150 deg')]"
        what = "offsets along the axis (m)" if kind == "axial" else "(radius, angle) pairs"
        if isinstance(extra_frames, str) or not isinstance(extra_frames, Iterable):
            raise ParameterError(
                "extra_frames", extra_frames, f"must be a sequence of {what}, e.g. {example}"
            )
        out: list[Any] = []
        for i, item in enumerate(extra_frames):
            name = f"extra_frames[{i}]"
            if kind == "axial":
                value = to_si(name, item, "length")
                if not math.isfinite(value):
                    raise ParameterError(name, item, "must be finite (m)")
                out.append(value)
                continue
            if isinstance(item, str) or not isinstance(item, Iterable) or len(list(item)) != 2:
                raise ParameterError(name, item, f"must be a (radius, angle) pair, e.g. {example}")
            radius_value, angle_value = list(item)
            radius = to_si(f"{name}.radius", radius_value, "length")
            angle = to_si(f"{name}.angle", angle_value, "angle")
            if not (0.0 <= radius < math.inf):
                raise ParameterError(f"{name}.radius", radius_value, "must be finite and >= 0 (m)")
            if not math.isfinite(angle):
                raise ParameterError(f"{name}.angle", angle_value, "must be finite (rad)")
            out.append((radius, angle))
        return tuple(out)

    def __setattr__(self, name: str, value: Any) -> None:
        if self._frozen:
            raise AttributeError(f"{type(self).__name__} is immutable; build a new one")
        object.__setattr__(self, name, value)

    # -- scalar results ----------------------------------------------------------------------

    @property
    def mass(self) -> float:
        """Mass, kg (exactly the given ``mass`` when one was given)."""
        return self._mass

    @property
    def volume(self) -> float:
        """Volume of material, m^3."""
        return self._volume

    @property
    def density(self) -> float:
        """Density, kg/m^3 (from the material table, given, or mass / volume)."""
        return self._density

    @property
    def material(self) -> str | None:
        """The material's name in the table, or None when a density or a mass was given."""
        return self._material

    @property
    def dimensions(self) -> Mapping[str, float]:
        """The shape's dimensions in SI, by keyword."""
        return MappingProxyType(self._dimensions)

    @property
    def extra_frames(self) -> tuple[Any, ...]:
        """The extra frames in SI: offsets along the axis (m), or ``(radius m, angle rad)``."""
        return self._extra_frames

    def __getattr__(self, name: str) -> Any:
        # Each dimension reads as an attribute (``cone.radius_a``), from the specification.
        dimensions = self.__dict__.get("_dimensions")
        if dimensions is not None and name in dimensions:
            return dimensions[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @_cached
    def axis(self) -> np.ndarray:
        """``e_axis``: the unit axis in frame_a (+x for a shape without an axis)."""
        return _readonly(np.array(self._frame[:3]))

    @_cached
    def rotation_from_canonical(self) -> np.ndarray:
        """``R_AC = [e_axis | h | w]``: the canonical frame's axes (columns) in frame_a."""
        return _readonly(np.array(self._frame).reshape(3, 3).T)

    # -- array results -----------------------------------------------------------------------

    @_cached
    def mass_properties(self) -> MassProperties:
        """The mass, centre of mass and inertia as one :class:`MassProperties` in frame_a.

        Tier 1: ``p_AoBcm_A = com_x e_axis`` and ``I_BBcm_A = R_AC diag(I_xx, I_yy, I_zz)
        R_AC^T``, with the closed forms' exact principal moments kept (a thin rod's small moment
        is not lost to an eigen-solver). Tier 2: the general form's properties in C, rotated by
        ``R_AC``."""
        if self._canonical_properties is not None:
            return self._canonical_properties.placed(self.rotation_from_canonical)
        com_x = self._com_on_axis
        ex, ey, ez = self._frame[:3]
        com = (com_x * ex + 0.0, com_x * ey + 0.0, com_x * ez + 0.0)  # + 0.0: no -0.0
        return MassProperties.from_canonical(self._mass, com, self._canonical_moments, self._frame)

    @property
    def center_of_mass(self) -> np.ndarray:
        """``p_AoBcm_A``: the centre of mass in frame_a, m."""
        return self.mass_properties.center_of_mass

    @property
    def inertia(self) -> np.ndarray:
        """``I_BBcm_A``: the inertia about the centre of mass in frame_a axes, kg m^2 (the very
        array of :attr:`mass_properties`)."""
        return self.mass_properties.inertia

    @property
    def principal_moments(self) -> np.ndarray:
        """Principal moments about the centre of mass, ascending, kg m^2."""
        return self.mass_properties.principal_moments

    @property
    def principal_axes(self) -> np.ndarray:
        """Principal axes (columns, right-handed) in frame_a, matching the moments."""
        return self.mass_properties.principal_axes

    @_cached
    def frames(self) -> Mapping[str, Frame]:
        """Ordered ``name -> Frame`` relative to frame_a: ``frame_a``; ``frame_b`` at
        ``L e_axis`` (shapes with an end frame); ``frame_com`` at the centre of mass;
        ``frame_c1``, ... for the extra frames: axial ones at their offsets along the axis with
        frame_a's orientation, radial ones ``(r, angle)`` rotated about the axis by the angle
        and placed at ``r (cos(angle) h + sin(angle) w)``."""
        spec = self.spec
        e = np.array(self._frame[:3])
        frames = {"frame_a": Frame(np.zeros(3))}
        if spec.end_frame is not None:
            frames["frame_b"] = Frame(self._dimensions[spec.end_frame] * e)
        frames["frame_com"] = Frame(self.center_of_mass)
        r_ac = self.rotation_from_canonical
        for i, extra in enumerate(self._extra_frames, start=1):
            if spec.extra_frames == "axial":
                frames[f"frame_c{i}"] = Frame(extra * e)
                continue
            radius, angle = extra
            c, s = math.cos(angle), math.sin(angle)
            turn = np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])  # about C's x
            r_af = r_ac @ turn @ r_ac.T
            frames[f"frame_c{i}"] = Frame(radius * (c * r_ac[:, 1] + s * r_ac[:, 2]), r_af)
        return MappingProxyType(frames)

    # -- geometry (lazy: trimesh loads only when asked) -----------------------------------

    def mesh(self, sections: int = 64) -> Any:
        """The body's surface as a watertight, outward-facing ``trimesh.Trimesh`` in frame_a
        coordinates (m): the shape's canonical mesh (its specification's builder) mapped by
        ``p_A = R_AC p_C``. ``sections`` (3 .. 65536) is the number of segments around round
        surfaces. ``metadata`` holds ``shape`` and ``parameters``. Needs the ``mesh`` extra
        (``pip install 'rigidparts[mesh]'``).
        """
        canonical = canonical_mesh(self.spec.name, self._dimensions, sections=sections)
        metadata = {"shape": self.spec.name, "parameters": self.parameters()}
        return mesh_in_frame_a(canonical, self.rotation_from_canonical, metadata)

    # -- output ------------------------------------------------------------------------------

    def parameters(self) -> dict[str, Any]:
        """The keyword arguments that rebuild this body, in SI (for files and exports)."""
        spec = self.spec
        out: dict[str, Any] = {"shape": spec.name, **self._dimensions}
        if spec.axis:
            out["axis"] = list(self._axis_given)  # as given: rebuilds the same bits
        if spec.cross_section:
            out["rotate90"] = self._rotate90
            if self._explicit_height:  # the direction before rotate90 turned it: h = -w_turned
                h, w = self._frame[3:6], self._frame[6:9]
                out["height_direction"] = [-v for v in w] if self._rotate90 else list(h)
        if self._mass_given:
            out["mass"] = self._mass
        elif self._material is not None:
            out["material"] = self._material
        else:
            out["density"] = self._density
        if self._extra_frames:
            out["extra_frames"] = [
                list(item) if isinstance(item, tuple) else item for item in self._extra_frames
            ]
        return out

    def to_dict(self) -> dict[str, Any]:
        """Everything as plain JSON-ready values (the command line's ``--json`` object)."""
        props = self.mass_properties
        return {
            "shape": self.shape,
            "parameters": self.parameters(),
            "mass": self._mass,
            "volume": self._volume,
            "density": self._density,
            "material": self._material,
            "center_of_mass": props.center_of_mass.tolist(),
            "inertia": props.inertia.tolist(),
            "principal_moments": props.principal_moments.tolist(),
            "principal_axes": props.principal_axes.tolist(),
            "frames": {name: frame.to_dict() for name, frame in self.frames.items()},
        }

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.parameters().items() if k != "shape")
        return f"{type(self).__name__}({args})"


def _readonly(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array
