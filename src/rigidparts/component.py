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
import operator
import os
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any, ClassVar, NamedTuple

import numpy as np

from .errors import ParameterError
from .frames import Frame, cached_body_frame, named_frames
from .inertia import MassProperties, canonical_inertia, rotation_layout, rotation_products
from .materials import DEFAULT_MATERIAL, Material, get_material
from .shapes import RAW_KINDS, ShapeSpec, results_representable, unrepresentable_parameter
from .shapes._meshing import canonical_mesh, mesh_in_frame_a
from .units import to_si

__all__ = ["DEFAULT_MATERIAL", "Component"]


_BOOLS = (bool, np.bool_)
_NUMBERS = (float, int)
#: Rows of ``R_AC`` for a shape without an axis: C is frame_a.
_NO_AXIS = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)
_NO_AXIS_PRODUCTS = rotation_products(*_NO_AXIS)
_NO_AXIS_LAYOUT = rotation_layout(_NO_AXIS_PRODUCTS)


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


class _Plan(NamedTuple):
    """What :meth:`Component._build` reads of a specification, read once per specification."""

    names: tuple[str, ...]  # the dimensions' keywords, in kernel order
    kinds: tuple[str, ...]  # their kinds of quantity
    values: Any  # arguments -> the dimensions' values, as a tuple (one C call)
    check: Any
    closed_form: Any
    frame_key: Any  # arguments -> (axis, rotate90, height_direction) as given, or None
    frames_keyword: str | None  # the keyword of the extra frames, or None
    cross_section: bool  # the body takes rotate90 and height_direction
    #: ``[(axis, frame, products, layout)]`` of the last cacheable axis given without rotate90
    #: or a height direction: the same axis tuple over and over (a class's default) skips the
    #: key. One tuple, read and replaced whole: threads building bodies see a consistent one.
    recent: list[tuple[Any, ...]]


#: spec -> its :class:`_Plan`.
_PLANS: dict[ShapeSpec, _Plan] = {}


def _plan(spec: ShapeSpec) -> _Plan:
    names = tuple(p.name for p in spec.params)
    getter = operator.itemgetter(*names)
    if not spec.axis:
        frame_key = None
    elif spec.cross_section:
        frame_key = operator.itemgetter("axis", "rotate90", "height_direction")
    else:
        frame_key = lambda arguments: (arguments["axis"], False, None)  # noqa: E731
    plan = _Plan(
        names,
        tuple(p.kind for p in spec.params),
        getter if len(names) > 1 else lambda arguments: (getter(arguments),),
        spec.check,
        spec.closed_form,
        frame_key,
        None if spec.extra_frames is None else spec.frames_keyword,
        spec.cross_section,
        [(_NOT_AN_AXIS, None, None, None)],
    )
    _PLANS[spec] = plan
    return plan


_SOURCES = operator.itemgetter("material", "density", "mass")
_NOT_AN_AXIS = object()  # no axis is this object: an empty ``_Plan.recent``


_default: tuple[float, str] | None = None


def _default_density() -> tuple[float, str]:
    """The default material's density (kg/m^3) and name (read from the table once)."""
    global _default
    if _default is None:
        found = _material_named(DEFAULT_MATERIAL)
        _default = (found.density, found.name)
    return _default


#: ``(axis, rotate90, height_direction)`` as given -> (that axis object, the 9 floats of the
#: valid frame, their :func:`rigidparts.inertia.rotation_products` and ``rotation_layout``). Bodies
#: are built along a few axes over and over; each is checked once (:meth:`Component._axis_frame`)
#: and only keys of plain floats and ints are kept, so equal keys give equal frames (-0.0 and
#: 0.0 too: :func:`rigidparts.frames.normalized_axis` adds 0.0 first).
_FRAMES: dict[tuple[Any, Any, Any], tuple[Any, tuple[float, ...], tuple[float, ...], Any]] = {}
_FRAMES_MAX = 1024
_PLAIN = (float, int)


def _plain_vector(value: Any) -> bool:
    return (
        type(value) is tuple
        and len(value) == 3
        and type(value[0]) in _PLAIN
        and type(value[1]) in _PLAIN
        and type(value[2]) in _PLAIN
    )


def _cacheable_frame_key(key: tuple[Any, Any, Any]) -> bool:
    axis, rotate90, height_direction = key
    return (
        _plain_vector(axis)
        and type(rotate90) is bool
        and (height_direction is None or _plain_vector(height_direction))
    )


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


class _Inertia:
    """``Component.inertia``: ``I_BBcm_A``, the inertia about the centre of mass in frame_a
    axes, kg m^2 -- the very array of ``mass_properties``, made without it when read first, in
    one step (the per-body hot path), then a plain attribute."""

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        if instance is None:
            return self
        state = instance.__dict__
        # Tier 2 keeps ``_canonical_properties`` in the instance's dict (tier 1 never does).
        if "mass_properties" in state or "_canonical_properties" in state:
            value = instance.mass_properties.inertia
        else:
            value = canonical_inertia(state["_results"][3:], state["_products"], state["_layout"])
        state["inertia"] = value
        return value


class Component:
    """Base of every body: shared parsing, frames and results (see module docstring).

    Subclasses set ``spec`` (their :class:`~rigidparts.shapes.ShapeSpec`) and call
    :meth:`_build` with their keyword arguments from their keyword-only ``__init__``.
    """

    spec: ClassVar[ShapeSpec]

    @property
    def shape(self) -> str:
        """The shape's name in the registry (``"box"``)."""
        return self.spec.name

    #: Defaults of the per-body state that most bodies share (set per instance otherwise).
    _mass_given: bool = False
    _rotate90: bool = False
    _explicit_height: bool = False
    _extra_frames: tuple[Any, ...] = ()
    _canonical_properties: MassProperties | None = None

    def _build(self, arguments: Mapping[str, Any]) -> None:
        # The per-body hot path: what can be checked once (per specification, per axis) is;
        # plain floats throughout, no numpy (the arrays are made when first read).
        spec = self.spec
        plan = _PLANS.get(spec)
        if plan is None:
            plan = _plan(spec)
        names, kinds, values, check, closed_form, frame_key, frames_keyword, cross, recent = plan
        si = values(arguments)
        for value in si:
            if type(value) is not float:  # not all floats already: convert (units, ints, ...)
                si = tuple(
                    [
                        v if type(v) is float or kind in RAW_KINDS else to_si(name, v, kind)
                        for name, v, kind in zip(names, si, kinds, strict=True)
                    ]
                )
                break

        try:
            material, density, given = _SOURCES(arguments)
        except KeyError:  # a caller's own arguments (every public class has the three)
            material, density, given = map(arguments.get, ("material", "density", "mass"))
        by_mass = False
        if material is DEFAULT_MATERIAL and given is None:  # material_source's common cases
            if density is None:
                rho, material_name = _default or _default_density()
            else:
                rho = density if type(density) is float else to_si("density", density, "density")
                material_name = None
        else:
            rho, material_name, by_mass = resolve_density(material, density, given)
            if by_mass:
                rho, given = math.nan, rho

        code = check(*si)
        if code:
            rule = spec.rules[code - 1]
            dimensions = dict(zip(names, si, strict=True))
            raise ParameterError(
                rule.parameter, arguments[rule.parameter], rule.text.format(**dimensions)
            )
        if by_mass:
            if not 0.0 < given < math.inf:
                raise ParameterError("mass", arguments["mass"], "must be positive and finite (kg)")
        elif not 0.0 < rho < math.inf:
            shown = arguments["density"] if material_name is None else rho
            raise ParameterError("density", shown, "must be positive and finite (kg/m^3)")

        state = self.__dict__
        last = recent[0]
        if frame_key is not None and arguments["axis"] is last[0] and (
            not cross or (arguments["rotate90"] is False and arguments["height_direction"] is None)
        ):  # the very tuple checked last time, nothing else: its frame
            axis_given, frame, products, layout = last
        elif frame_key is not None:
            key = frame_key(arguments)
            axis, rotate90, height_direction = key
            try:
                found = _FRAMES.get(key)
            except TypeError:  # unhashable
                found = None
            # A hit counts only for plain values (equal keys then give equal frames): the very
            # tuple that was checked, or one of floats and ints (not 1+0j == 1, nor 1 == True).
            if (
                found is not None
                and (found[0] is axis or _plain_vector(axis))
                and (rotate90 is False or rotate90 is True)
                and (height_direction is None or _plain_vector(height_direction))
            ):
                _, frame, products, layout = found
                axis_given = axis  # floats and ints, converted when read
            else:  # check it all
                frame, axis_given, _, _ = self._axis_frame(arguments)
                products = rotation_products(*frame)
                layout = rotation_layout(products)
                if _cacheable_frame_key(key):
                    if len(_FRAMES) >= _FRAMES_MAX:
                        _FRAMES.clear()
                    _FRAMES[key] = axis, frame, products, layout
            if rotate90 is False and height_direction is None and _cacheable_frame_key(key):
                recent[0] = (axis, frame, products, layout)
            if rotate90:
                state["_rotate90"] = True
            if height_direction is not None:
                state["_explicit_height"] = True
        else:
            frame, axis_given = _NO_AXIS, _NO_AXIS[:3]
            products, layout = _NO_AXIS_PRODUCTS, _NO_AXIS_LAYOUT
        if frames_keyword is not None:
            extra_frames = arguments.get(frames_keyword, ())
            if type(extra_frames) is not tuple or extra_frames:
                extra = self._parse_extra_frames(extra_frames)
                if extra:
                    state["_extra_frames"] = extra

        if closed_form is not None:
            if by_mass:  # density = mass / volume; the mass is kept exactly as given
                rho = _divide(given, closed_form(*si, 1.0)[0])
            results = closed_form(*si, rho)
        else:
            dimensions = dict(zip(names, si, strict=True))
            if by_mass:
                rho = _divide(given, spec.general_form(dimensions, 1.0)[0])
            volume, canonical = spec.general_form(dimensions, rho)
            results = (volume, canonical.mass, math.nan, *np.diag(canonical.inertia).tolist())
            state["_canonical_properties"] = canonical
        if by_mass:
            results = (results[0], given, *results[2:])
            state["_mass_given"] = True
        volume, mass, _, i_xx, i_yy, i_zz = results
        if not results_representable(volume, mass, i_xx, i_yy, i_zz, rho):
            dimensions = dict(zip(names, si, strict=True))
            largest = unrepresentable_parameter(dimensions)
            rule = spec.all_rules[spec.common_code("unrepresentable") - 1].text
            raise ParameterError(
                largest,
                arguments[largest],
                rule.format(mass=mass, moments=(i_xx, i_yy, i_zz)),
            )

        # Straight into the instance's dict (no guarded setattr calls); _results last: the body
        # counts as built from then on (__setattr__).
        state["_si"] = si
        state["_density"] = rho
        state["_material"] = material_name
        state["_frame"] = frame
        state["_products"] = products
        state["_layout"] = layout
        state["_axis_given"] = axis_given
        state["_results"] = results

    @property
    def _mass(self) -> float:
        return self._results[1]

    @property
    def _canonical_moments(self) -> tuple[float, float, float]:
        # (I_xx, I_yy, I_zz) about the centre of mass along C's axes, kg m^2.
        return self._results[3:]

    @_cached
    def _dimensions(self) -> dict[str, float]:
        # The SI dimensions by keyword (made on first use: the hot path keeps a tuple).
        return dict(zip(self.spec.parameter_names, self._si, strict=True))

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

    def _parse_extra_frames(self, extra_frames: Any) -> tuple[Any, ...]:
        """The extra frames in SI: offsets along the axis, or ``(radius, angle)`` pairs."""
        kind = self.spec.extra_frames
        if kind is None:
            return ()
        if kind == "named":  # ((name, Frame), ...)
            return named_frames(extra_frames)
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
        if "_results" in self.__dict__:  # built
            raise AttributeError(f"{type(self).__name__} is immutable; build a new one")
        object.__setattr__(self, name, value)

    # -- scalar results ----------------------------------------------------------------------

    @property
    def mass(self) -> float:
        """Mass, kg (exactly the given ``mass`` when one was given)."""
        return self._results[1]

    @property
    def volume(self) -> float:
        """Volume of material, m^3."""
        return self._results[0]

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
        if "_si" in self.__dict__:  # built (the dimensions are made from it on first use)
            dimensions = self._dimensions
            if name in dimensions:
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
        com_x = self._results[2]
        ex, ey, ez = self._frame[:3]
        com = (com_x * ex + 0.0, com_x * ey + 0.0, com_x * ez + 0.0)  # + 0.0: no -0.0
        return MassProperties.from_canonical(
            self._mass,
            com,
            self._canonical_moments,
            self._frame,
            self._products,
            self.__dict__.get("inertia"),  # the very array, when it was read first
        )

    @property
    def center_of_mass(self) -> np.ndarray:
        """``p_AoBcm_A``: the centre of mass in frame_a, m."""
        return self.mass_properties.center_of_mass

    inertia = _Inertia()

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
            if spec.extra_frames == "named":
                frames[extra[0]] = extra[1]
                continue
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
            # As given (floats; rebuilds the same bits).
            out["axis"] = [float(value) for value in self._axis_given]
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
        if self._extra_frames and spec.extra_frames == "named":
            out["frames"] = {name: frame.to_dict() for name, frame in self._extra_frames}
        elif self._extra_frames:
            out["extra_frames"] = [
                list(item) if isinstance(item, tuple) else item for item in self._extra_frames
            ]
        return out

    def to_dict(self) -> dict[str, Any]:
        """Everything as plain JSON-ready values (the command line's ``--json`` object)."""
        props = self.mass_properties
        return {
            "shape": self.shape,
            "parameters": _json_ready_parameters(self.spec, self.parameters()),
            "mass": self._mass,
            "volume": self._results[0],
            "density": self._density,
            "material": self._material,
            "center_of_mass": props.center_of_mass.tolist(),
            "inertia": props.inertia.tolist(),
            "principal_moments": props.principal_moments.tolist(),
            "principal_axes": props.principal_axes.tolist(),
            "frames": {name: frame.to_dict() for name, frame in self.frames.items()},
        }

    def sensitivities(self) -> Any:
        """Exact partial derivatives of the mass, volume, centre of mass, inertia (frame_a,
        about the centre of mass) and principal moments with respect to every dimension and the
        density (or the mass, when one was given), SI: a
        :class:`rigidparts.sensitivity.Sensitivities` table (forward-mode dual numbers through
        the very closed forms; tier-2 shapes: the density or mass only)."""
        from .sensitivity import body_sensitivities

        return body_sensitivities(self)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.parameters().items() if k != "shape")
        return f"{type(self).__name__}({args})"


def _json_ready_parameters(spec: ShapeSpec, parameters: dict[str, Any]) -> dict[str, Any]:
    """``parameters`` with each raw value (kind ``path``/``text``) that JSON cannot hold
    written as text: a path as its text, a mesh object as ``"<trimesh.Trimesh: N triangles>"``
    (a placeholder: the mesh itself is in no report)."""
    out = dict(parameters)
    for param in spec.params:
        value = out.get(param.name)
        if param.kind not in RAW_KINDS or value is None or isinstance(value, str | int | float):
            continue
        if isinstance(value, os.PathLike):
            out[param.name] = os.fspath(value)
            continue
        kind = f"{type(value).__module__.partition('.')[0]}.{type(value).__name__}"
        faces = getattr(value, "faces", None)
        count = f": {len(faces)} triangles" if faces is not None else ""
        out[param.name] = f"<{kind}{count}>"
    return out


def _readonly(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array
