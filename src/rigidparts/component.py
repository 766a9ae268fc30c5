"""What every body shares: parsing, material, axis, frames and results, driven by the shape's
specification (:class:`rigidparts.shapes.ShapeSpec`).

A public class (:class:`rigidparts.Box`, ...) names its specification (``spec``) and writes a
keyword-only ``__init__`` that hands its keywords to :meth:`Component._build`, plain Python
that calls the shape's own functions: it converts the dimensions to SI, resolves the density
(:mod:`rigidparts.density`), checks the shape's rules (``spec.check``) and the axis, evaluates
the closed forms (``spec.closed_form``) in the canonical frame C and rotates them into frame_a
with ``R_AC = [e_axis | h | w]`` (:mod:`rigidparts.frames`).

Results are read-only and expressed in frame_a, SI units: ``mass`` (kg), ``volume`` (m^3),
``density`` (kg/m^3), ``center_of_mass`` (m, ``p_AoBcm_A``), ``inertia`` (kg m^2, ``I_BBcm_A``:
about the centre of mass, frame_a axes), ``mass_properties`` and ``frames``. ``inertia`` *is*
``mass_properties.inertia`` (one array, so every exporter writes the same bits).
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any, ClassVar

import numpy as np

from .density import DEFAULT_MATERIAL, density_from_mass, resolve_density
from .errors import ParameterError
from .frames import Frame, cached_body_frame, named_frames
from .inertia import (
    MassProperties,
    canonical_inertia,
    readonly_state,
    rotation_layout,
    rotation_products,
)
from .shapes import (
    RAW_KINDS,
    UNREPRESENTABLE_RULE,
    ShapeSpec,
    results_representable,
    unrepresentable_parameter,
)
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


_FLOAT_ONLY = frozenset({float})
_NO_AXIS_FRAME = (_NO_AXIS[:3], _NO_AXIS, _NO_AXIS_PRODUCTS, _NO_AXIS_LAYOUT)
_NOT_AN_AXIS = object()  # no axis is this object: the last axis before the first body


def _frame_of(
    body: Component, recent: list[tuple[Any, ...]], axis: Any, rotate90: Any, height_direction: Any
) -> tuple[Any, tuple[float, ...], tuple[float, ...], Any]:
    """Constructor step 4 for any request but the axis tuple given last time: ``(the axis as
    given, the 9 floats of the frame's rows, their rotation_products and rotation_layout)``,
    from :data:`_FRAMES` for a key of plain values, else checked by the rule (and cached).
    Sets ``body``'s ``_rotate90`` and ``_explicit_height``; a plain axis alone becomes
    ``recent[0]`` (one tuple, read and replaced whole: threads see a consistent one)."""
    key = (axis, rotate90, height_direction)
    try:
        found = _FRAMES.get(key)
    except TypeError:  # unhashable
        found = None
    # A hit counts only for plain values (equal keys then give equal frames): the very tuple
    # that was checked, or one of floats and ints (not 1+0j == 1, nor 1 == True).
    if (
        found is not None
        and (found[0] is axis or _plain_vector(axis))
        and (rotate90 is False or rotate90 is True)
        and (height_direction is None or _plain_vector(height_direction))
    ):
        _, frame, products, layout = found
        axis_given = axis  # floats and ints, converted when read
    else:  # check it all
        frame, axis_given, _, _ = body._axis_frame(axis, rotate90, height_direction)
        products = rotation_products(*frame)
        layout = rotation_layout(products)
        if _cacheable_frame_key(key):
            if len(_FRAMES) >= _FRAMES_MAX:
                _FRAMES.clear()
            _FRAMES[key] = axis, frame, products, layout
    if rotate90 is False and height_direction is None and _cacheable_frame_key(key):
        recent[0] = (axis, frame, products, layout)
    state = body.__dict__
    if rotate90:
        state["_rotate90"] = True
    if height_direction is not None:
        state["_explicit_height"] = True
    return axis_given, frame, products, layout


def _refusal(
    spec: ShapeSpec,
    code: int,
    si: tuple[float, ...],
    value: float,
    by_mass: bool,
    material_name: str | None,
    given: Mapping[str, Any],
) -> ParameterError:
    """Constructor step 3's error: the first broken rule of the shape (``code``), else the
    density or mass ``value`` that is not positive and finite."""
    if code:
        if spec.explain is not None:
            spec.explain(*si)  # raises the value's own error
        rule = spec.rules[code - 1]
        dimensions = dict(zip(spec.parameter_names, si, strict=True))
        return ParameterError(rule.parameter, given[rule.parameter], rule.text.format(**dimensions))
    if by_mass:
        return ParameterError("mass", given["mass"], "must be positive and finite (kg)")
    shown = given["density"] if material_name is None else value
    return ParameterError("density", shown, "must be positive and finite (kg/m^3)")


def _unrepresentable(
    spec: ShapeSpec, si: tuple[Any, ...], results: tuple[float, ...], given: Mapping[str, Any]
) -> ParameterError:
    """Constructor step 6's error: results float64 cannot hold, blamed on the largest
    dimension."""
    # not an option given as text (a mesh's relative weld is a number, but no dimension)
    dimensions = {p.name: v for p, v in zip(spec.params, si, strict=True) if p.kind != "text"}
    largest = unrepresentable_parameter(dimensions)
    _, mass, _, i_xx, i_yy, i_zz = results
    return ParameterError(
        largest, given[largest], UNREPRESENTABLE_RULE.format(mass=mass, moments=(i_xx, i_yy, i_zz))
    )


class _SetOnConstruction:
    """A body attribute the constructor puts in the instance's dict (read there at full
    speed); on the class, its documentation."""

    def __init__(self, doc: str) -> None:
        self.__doc__ = doc

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        if instance is None:
            return self
        raise AttributeError(f"{self.name} is set on construction; this body was not built")


class Component:
    """Base of every body: shared parsing, frames and results (see module docstring).

    Subclasses set ``spec`` (their :class:`~rigidparts.shapes.ShapeSpec`) and write a
    keyword-only ``__init__`` with ``spec.signature_defaults()`` that calls :meth:`_build`
    (or :meth:`_build_from` with its ``locals()``).
    """

    spec: ClassVar[ShapeSpec]

    inertia = _SetOnConstruction(
        """``I_BBcm_A``: the inertia about the centre of mass in frame_a's axes, kg m^2, made
        and checked on construction (read-only; the very array of ``mass_properties``)."""
    )

    def __setstate__(self, state: dict[str, Any]) -> None:
        # Unpickled or copied: the arrays read-only again, as built.
        self.__dict__.update(readonly_state(state))

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

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # The frame of the axis tuple given last (_frame_of), per class: one tuple, read and
        # replaced whole, so threads see a consistent one.
        cls._recent_axis = [(_NOT_AN_AXIS, None, None, None)]

    _recent_axis: ClassVar[list[tuple[Any, ...]]]

    def _build(
        self,
        dimensions: tuple[Any, ...],
        material: Any,
        density: Any,
        mass: Any,
        axis: Any = None,
        rotate90: Any = False,
        height_direction: Any = None,
        extra_frames: Any = (),
    ) -> None:
        """Build the body: the public class's ``__init__`` passes its keywords, the dimensions
        in ``spec.params`` order (``tests/test_shapes.py`` checks each class). Plain Python
        over the shape's own functions, in seven steps:

        1. every dimension to an SI float (:mod:`rigidparts.units`; a float as it is);
        2. the density from the material table, the given density, or the given mass
           (``density = mass / volume``): exactly one of the three, the default material when
           none (:func:`rigidparts.density.resolve_density`);
        3. the shape's rules (``spec.check``), then the density or mass, then (step 4) the axis;
        4. the frame ``R_AC = [e_axis | h | w]`` (:mod:`rigidparts.frames`), each axis
           checked once (:func:`_frame_of`);
        5. the extra frames (``extra_frames``: the ``extra_frames`` or ``frames`` keyword);
        6. the closed forms in the canonical frame C (tier 1, ``spec.closed_form``: the centre
           of mass on C's x axis, C's axes principal; tier 2, ``spec.general_form``: a full
           :class:`MassProperties` in C) and whether float64 holds them
           (:func:`rigidparts.shapes.results_representable`);
        7. the inertia rotated into frame_a, ``I_BBcm_A = R_AC diag(I_xx, I_yy, I_zz) R_AC^T``,
           checked against the triangle inequality (:func:`rigidparts.inertia.canonical_inertia`).
        """
        spec = self.spec
        state = self.__dict__
        # 1. The dimensions in SI (raw kinds, a mesh's path or unit, as given).
        si = dimensions
        if not _FLOAT_ONLY.issuperset(map(type, si)):
            si = tuple(
                value if type(value) is float or param.kind in RAW_KINDS
                else to_si(param.name, value, param.kind)
                for param, value in zip(spec.params, dimensions, strict=True)
            )  # fmt: skip
        # 2. The density (with a mass: rho is the mass until step 6).
        rho, material_name, by_mass = resolve_density(material, density, mass)
        # 3. The shape's rules, then the density (or the mass).
        code = spec.check(*si)
        if code or not 0.0 < rho < math.inf:
            given = {
                **dict(zip(spec.parameter_names, dimensions, strict=True)),
                "density": density,
                "mass": mass,
            }
            raise _refusal(spec, code, si, rho, by_mass, material_name, given)
        # 4. The frame: that of the axis tuple given last time, else _frame_of's.
        if not spec.axis:
            axis, frame, products, layout = _NO_AXIS_FRAME
        else:
            last = self._recent_axis[0]
            if axis is last[0] and rotate90 is False and height_direction is None:
                axis, frame, products, layout = last
            else:
                axis, frame, products, layout = _frame_of(
                    self, self._recent_axis, axis, rotate90, height_direction
                )
        # 5. The extra frames, when there are some.
        if type(extra_frames) is not tuple or extra_frames:
            parsed = self._parse_extra_frames(extra_frames)
            if parsed:
                state["_extra_frames"] = parsed
        # 6. The mass properties in C, and whether float64 holds them.
        closed_form = spec.closed_form
        if closed_form is None:
            results, rho = self._general_results(si, rho, by_mass)
        elif by_mass:  # density = mass / volume; the mass kept exactly as given
            given_mass = rho
            rho = density_from_mass(given_mass, closed_form(*si, 1.0)[0])
            volume, _, com_x, i0, i1, i2 = closed_form(*si, rho)
            results = (volume, given_mass, com_x, i0, i1, i2)
            state["_mass_given"] = True
        else:
            results = closed_form(*si, rho)
        volume, mass_kg, _, i0, i1, i2 = results
        if not (spec.mass_only or results_representable(volume, mass_kg, i0, i1, i2, rho)):
            raise _unrepresentable(
                spec, si, results, dict(zip(spec.parameter_names, dimensions, strict=True))
            )
        # 7. The state; _results last: the body counts as built from then on (__setattr__).
        state["_si"] = si
        state["_density"] = rho
        state["_material"] = material_name
        state["_frame"] = frame
        state["_axis_given"] = axis
        if closed_form is None:
            state["inertia"] = self.mass_properties.inertia
        else:
            state["inertia"] = canonical_inertia(i0, i1, i2, products, layout)
        state["_results"] = results

    def _build_from(self, keywords: Mapping[str, Any]) -> None:
        """:meth:`_build` from a mapping of keywords (``locals()`` of a subclass that writes
        its own ``__init__``): keywords left out take ``spec.signature_defaults()``, other
        names are not read."""
        spec = self.spec
        given = {**spec.signature_defaults(), **keywords}
        self._build(
            tuple(given[name] for name in spec.parameter_names),
            given["material"],
            given["density"],
            given["mass"],
            given.get("axis"),
            given.get("rotate90", False),
            given.get("height_direction"),
            given.get(spec.frames_keyword, ()),
        )

    def _general_results(
        self, si: tuple[Any, ...], value: float, by_mass: bool
    ) -> tuple[tuple[Any, ...], float | None]:
        """Constructor step 6 of tier 2: ``(results, density)`` from the general form, with
        ``value`` the density, or the mass when ``by_mass`` (density = mass / volume, the mass
        kept as given); keeps the properties in C as ``_canonical_properties``. A mass-only
        shape (``spec.mass_only``) takes the mass itself and has no volume and no density."""
        spec = self.spec
        dimensions = dict(zip(spec.parameter_names, si, strict=True))
        state = self.__dict__
        if spec.mass_only:
            if not by_mass:
                raise ParameterError("mass", None, "must be given (kg): this body has no volume")
            volume, canonical = spec.general_form(dimensions, value)
            rho = None
        elif by_mass:  # one general form, at density 1, scaled: the mass kept as given
            volume, unit = spec.general_form(dimensions, 1.0)
            rho = density_from_mass(value, volume)
            if 0.0 < rho < math.inf:
                canonical = MassProperties(value, unit.center_of_mass, unit.inertia * rho)
            else:  # the general form's own refusal of such a density
                volume, canonical = spec.general_form(dimensions, rho)
        else:
            rho = value
            volume, canonical = spec.general_form(dimensions, rho)
        state["_canonical_properties"] = canonical
        mass = canonical.mass
        if by_mass:
            mass = value
            state["_mass_given"] = True
        return (volume, mass, math.nan, *np.diag(canonical.inertia).tolist()), rho

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
        self, axis: Any, rotate90: Any, height_direction: Any
    ) -> tuple[tuple[float, ...], tuple[float, ...], bool, bool]:
        """``(rows e, h, w of R_AC^T as 9 floats, the axis as given (3 floats), rotate90,
        explicit height)``, each checked by the rule."""
        spec = self.spec
        if not spec.axis:
            return _NO_AXIS, _NO_AXIS[:3], False, False
        ax = _vector3("axis", axis)
        if not isinstance(rotate90, _BOOLS):
            raise ParameterError("rotate90", rotate90, "must be True or False")
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
    def volume(self) -> float | None:
        """Volume of material, m^3 (None for a body given by its mass alone)."""
        return self._results[0]

    @property
    def density(self) -> float | None:
        """Density, kg/m^3 (from the material table, given, or mass / volume; None for a body
        given by its mass alone)."""
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
            inertia=self.inertia,  # the very array
        )

    @property
    def center_of_mass(self) -> np.ndarray:
        """``p_AoBcm_A``: the centre of mass in frame_a, m."""
        return self.mass_properties.center_of_mass

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
        dimensions = self._dimensions
        if self.spec.mass_only:  # no geometry: the mesh is drawn from the mass properties
            dimensions = {**dimensions, "mass": self.mass}
        canonical = canonical_mesh(self.spec.name, dimensions, sections=sections)
        metadata = {"shape": self.spec.name, "parameters": self.parameters()}
        return mesh_in_frame_a(canonical, self.rotation_from_canonical, metadata)

    def mesh_key(self) -> tuple[Any, ...] | None:
        """What :meth:`mesh` depends on, as a hashable key (equal keys: equal meshes, so an
        exporter or viewer makes and writes one): the shape, its dimensions, ``R_AC``, and the
        mass of a body drawn from its mass properties (``spec.mass_only``). None when a
        dimension is no plain value (a mesh object: the body's own mesh)."""
        key = (
            self.spec.name,
            tuple(self._dimensions.items()),
            np.asarray(self.rotation_from_canonical).tobytes(),
            self.mass if self.spec.mass_only else None,
        )
        try:
            hash(key)
        except TypeError:
            return None
        return key

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
        if param.plain is not None and value is not None:
            out[param.name] = param.plain(value)
            continue
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
