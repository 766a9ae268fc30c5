"""What every body shares: axis, cross-section directions, material, frames and results.

A shape class (:class:`rigidparts.Box`, :class:`rigidparts.Cone`) declares its keyword-only
signature and hands its dimensions to :class:`Component`, which

1. converts every length and the density to SI floats (:mod:`rigidparts.units`),
2. resolves the material (:mod:`rigidparts.materials`) or takes the explicit density,
3. checks the dimensions against the shape's rules and evaluates its closed forms
   (``rigidparts.shapes.<shape>``) in the canonical frame C (axis +x),
4. rotates the result into frame_a with ``R_AC = [e_axis | h | w]`` (:mod:`rigidparts.frames`).

Results are read-only and expressed in frame_a, SI units: ``mass`` (kg), ``volume`` (m^3),
``density`` (kg/m^3), ``center_of_mass`` (m, ``p_AoBcm_A``), ``inertia`` (kg m^2, ``I_BBcm_A``:
about the centre of mass, frame_a axes), ``mass_properties`` and ``frames``.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Mapping
from types import MappingProxyType, ModuleType
from typing import Any, ClassVar

import numpy as np

from .errors import ParameterError
from .frames import FRAME_RULES, Frame, cached_body_frame
from .inertia import MassProperties, rotate_principal_inertia
from .materials import Material, get_material
from .shapes import UNREPRESENTABLE_RULE, results_representable, unrepresentable_parameter
from .units import to_si

__all__ = ["DEFAULT_MATERIAL", "Component"]


_BOOLS = (bool, np.bool_)
_NUMBERS = (float, int)


class _DefaultMaterial(str):
    """The default material name, told apart from the same name given explicitly."""

    __slots__ = ()


#: The default ``material`` ("steel"); only this very object counts as "not given".
DEFAULT_MATERIAL = _DefaultMaterial("steel")


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


def _resolve_density(material: Any, density: Any) -> tuple[float, str | None]:
    """``(density in kg/m^3, material name or None)``."""
    if density is not None:
        if material is not DEFAULT_MATERIAL and material is not None:
            raise ParameterError(
                "density",
                density,
                f"give either material ({material!r}) or density, not both",
            )
        return to_si("density", density, "density"), None
    if isinstance(material, Material):
        return material.density, material.name
    found = _material_named(material) if isinstance(material, str) else get_material(material)
    return found.density, found.name


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

    Subclasses set ``shape`` (the name) and ``kernel`` (the module of closed forms) and call
    :meth:`_build` from their keyword-only ``__init__``.
    """

    shape: ClassVar[str]
    kernel: ClassVar[ModuleType]
    _frozen: bool = False

    def _build(
        self,
        dimensions: Mapping[str, Any],
        *,
        axis: Any,
        material: Any,
        density: Any,
        extra_frames: Iterable[Any],
        rotate90: Any = False,
        height_direction: Any = None,
    ) -> None:
        kernel = self.kernel
        si = {name: to_si(name, dimensions[name], "length") for name in kernel.PARAMETERS}
        rho, material_name = _resolve_density(material, density)

        code = kernel.check(*si.values(), rho)
        if code:
            parameter, rule = kernel.RULES[code - 1]
            value = density if parameter == "density" else dimensions[parameter]
            raise ParameterError(parameter, value, rule.format(**si))

        ax = _vector3("axis", axis)
        if not isinstance(rotate90, _BOOLS):
            raise ParameterError("rotate90", rotate90, "must be True or False")
        explicit = height_direction is not None
        h = _vector3("height_direction", height_direction) if explicit else (0.0, 0.0, 0.0)
        code, *frame = cached_body_frame(*ax, bool(rotate90), explicit, *h)
        if code:
            parameter, rule = FRAME_RULES[code - 1]
            raise ParameterError(parameter, axis if parameter == "axis" else height_direction, rule)

        if isinstance(extra_frames, str) or not isinstance(extra_frames, Iterable):
            raise ParameterError(
                "extra_frames",
                extra_frames,
                "must be a sequence of offsets along the axis (m), e.g. [0.25, 0.5]",
            )
        offsets = []
        for i, offset in enumerate(extra_frames):
            value = to_si(f"extra_frames[{i}]", offset, "length")
            if not math.isfinite(value):
                raise ParameterError(f"extra_frames[{i}]", offset, "must be finite (m)")
            offsets.append(value)

        volume, mass, com_x, i_xx, i_yy, i_zz = kernel.closed_form(*si.values(), rho)
        if not results_representable(mass, i_xx, i_yy, i_zz):
            largest = unrepresentable_parameter(si)
            rule = UNREPRESENTABLE_RULE.format(mass=mass, moments=(i_xx, i_yy, i_zz))
            raise ParameterError(largest, dimensions[largest], rule)

        # One update instead of a dozen guarded setattr calls (this is the per-body hot path).
        self.__dict__.update(
            _dimensions=si,
            _density=rho,
            _material=material_name,
            _axis=tuple(frame[:3]),
            _height_width=tuple(frame[3:]),
            _rotate90=bool(rotate90),
            _explicit_height=explicit,
            _extra_frames=tuple(offsets),
            _volume=volume,
            _mass=mass,
            _com_on_axis=com_x,
            _canonical_moments=(i_xx, i_yy, i_zz),
            _frozen=True,
        )

    def __setattr__(self, name: str, value: Any) -> None:
        if self._frozen:
            raise AttributeError(f"{type(self).__name__} is immutable; build a new one")
        object.__setattr__(self, name, value)

    # -- scalar results ----------------------------------------------------------------------

    @property
    def mass(self) -> float:
        """Mass, kg."""
        return self._mass

    @property
    def volume(self) -> float:
        """Volume of material, m^3."""
        return self._volume

    @property
    def density(self) -> float:
        """Density, kg/m^3 (from the material table or given)."""
        return self._density

    @property
    def material(self) -> str | None:
        """The material's name in the table, or None when a density was given."""
        return self._material

    @property
    def length(self) -> float:
        """Length along the axis, m."""
        return self._dimensions["length"]

    @property
    def dimensions(self) -> Mapping[str, float]:
        """The shape's dimensions in SI (m), by keyword."""
        return MappingProxyType(self._dimensions)

    @property
    def extra_frames(self) -> tuple[float, ...]:
        """Offsets of the extra frames along the axis from frame_a, m."""
        return self._extra_frames

    @_cached
    def axis(self) -> np.ndarray:
        """``e_axis``: the unit axis in frame_a."""
        return _readonly(np.array(self._axis))

    @_cached
    def rotation_from_canonical(self) -> np.ndarray:
        """``R_AC = [e_axis | h | w]``: the canonical frame's axes (columns) in frame_a."""
        hx, hy, hz, wx, wy, wz = self._height_width
        return _readonly(np.array((*self._axis, hx, hy, hz, wx, wy, wz)).reshape(3, 3).T)

    # -- array results -----------------------------------------------------------------------

    @_cached
    def center_of_mass(self) -> np.ndarray:
        """``p_AoBcm_A``: the centre of mass in frame_a, m."""
        return _readonly(self._com_on_axis * np.array(self._axis) + 0.0)  # + 0.0: no -0.0

    @_cached
    def inertia(self) -> np.ndarray:
        """``I_BBcm_A``: the inertia about the centre of mass in frame_a axes, kg m^2."""
        ixx, iyy, izz, ixy, ixz, iyz = rotate_principal_inertia(
            *self._canonical_moments, *self._axis, *self._height_width
        )
        return _readonly(np.array((ixx, ixy, ixz, ixy, iyy, iyz, ixz, iyz, izz)).reshape(3, 3))

    @_cached
    def mass_properties(self) -> MassProperties:
        """The mass, centre of mass and inertia as one :class:`MassProperties` in frame_a,
        with the exact principal moments of the closed forms."""
        return MassProperties.from_principal(
            self._mass, self.center_of_mass, self._canonical_moments, self.rotation_from_canonical
        )

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
        """Ordered ``name -> Frame`` relative to frame_a: ``frame_a``, ``frame_b`` (at
        ``L e_axis``), ``frame_com`` (the centre of mass), ``frame_c1``, ... (at the extra
        frames' offsets along the axis). All have frame_a's orientation."""
        e = np.array(self._axis)
        frames = {
            "frame_a": Frame(np.zeros(3)),
            "frame_b": Frame(self.length * e),
            "frame_com": Frame(self._com_on_axis * e),
        }
        for i, offset in enumerate(self._extra_frames, start=1):
            frames[f"frame_c{i}"] = Frame(offset * e)
        return MappingProxyType(frames)

    # -- geometry and pictures (lazy: trimesh and matplotlib load only when asked) ----------

    def mesh(self, sections: int = 64) -> Any:
        """The body's surface as a watertight ``trimesh.Trimesh`` in frame_a coordinates (m).

        ``sections`` is the number of segments around round surfaces. Needs the ``mesh``
        extra (``pip install 'rigidparts[mesh]'``).
        """
        from .mesh import body_mesh

        return body_mesh(self, sections=sections)

    def plot(self, ax: Any = None, **options: Any) -> Any:
        """Draw the body with its frames and centre of mass on a matplotlib 3-D axes (a new
        figure when ``ax`` is None); returns the axes. Needs the ``viz`` extra."""
        from .viz.render import plot_body

        return plot_body(self, ax=ax, **options)

    # -- output ------------------------------------------------------------------------------

    def parameters(self) -> dict[str, Any]:
        """The keyword arguments that rebuild this body, in SI (for files and exports)."""
        out: dict[str, Any] = {"shape": self.shape, **self._dimensions}
        out["axis"] = list(self._axis)
        if self._material is not None:
            out["material"] = self._material
        else:
            out["density"] = self._density
        if self._extra_frames:
            out["extra_frames"] = list(self._extra_frames)
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
            "center_of_mass": self.center_of_mass.tolist(),
            "inertia": self.inertia.tolist(),
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
