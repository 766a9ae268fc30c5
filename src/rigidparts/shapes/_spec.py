"""What a shape specification is: :class:`Param`, :class:`Rule`, :class:`ShapeSpec`.

A shape is one module in :mod:`rigidparts.shapes` that builds one :class:`ShapeSpec` and
registers it. Every consumer (the public classes' shared base, the command line, the TOML
reader, ``rp.batch``, meshes, pictures, the exporters) loops over the registry and reads what it
needs from the specification; none of them names a shape.

Rules and error codes. A shape's ``check(*dimensions)`` returns 0 when the dimensions are valid,
else ``1 + i`` for the first broken rule ``rules[i]``. The codes are derived from the rule table
(:func:`rule_codes`), never numbered by hand. The rules every body shares (density, mass, axis,
height direction, results that float64 cannot hold) follow the shape's own in
:attr:`ShapeSpec.all_rules`; :meth:`ShapeSpec.common_code` gives their codes.

Two tiers of closed forms:

- tier 1, ``closed_form(*dimensions, density) -> (volume, mass, com_x, i_xx, i_yy, i_zz)``: the
  centre of mass on the axis at ``com_x`` and the canonical axes principal, in plain float
  arithmetic (numba compiles the same function for ``rp.batch``, which is therefore bit-identical
  to one body);
- tier 2, ``general_form(dimensions, density) -> (volume, MassProperties)``: the mass properties
  in the canonical frame C with any centre of mass and a full tensor (asymmetric sections, mesh
  bodies).

A shape gives tier 1 whenever it can.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

from ..materials import DEFAULT_MATERIAL

__all__ = [
    "COMMON_RULES",
    "PRIMITIVE_KINDS",
    "RAW_KINDS",
    "UNREPRESENTABLE_RULE",
    "FromPrimitive",
    "Param",
    "Primitive",
    "Rule",
    "ShapeSpec",
    "register",
    "registered",
    "results_representable",
    "rule_codes",
    "unrepresentable_parameter",
]

ParamKind = Literal[
    "length", "angle", "count", "path", "text", "vector", "tensor", "pose", "geometry"
]
ExtraFrames = Literal["axial", "radial", "named"]

#: Kinds of parameter that are not single quantities: passed to the shape as given (a path or
#: a ``trimesh.Trimesh``; a text such as a unit name; a 3-vector, an inertia tensor or a pose,
#: which a given-inertia body reads with their units), never converted by
#: :mod:`rigidparts.units` one by one. The shape's own ``check`` and general form validate
#: them.
RAW_KINDS = frozenset({"path", "text", "vector", "tensor", "pose", "geometry"})


@dataclass(frozen=True)
class Param:
    """One dimension of a shape: its keyword, kind of quantity, default (SI) and help line."""

    name: str
    default: Any
    help: str
    kind: ParamKind = "length"
    #: Other keys that mean this parameter in model files (``file`` for a mesh's ``mesh``).
    aliases: tuple[str, ...] = ()
    #: The command-line option, when ``--<name>`` is taken by a common option (a rigid body's
    #: ``frame``: ``--frame`` names extra frames); default ``--<name with dashes>``.
    option: str = ""
    #: For a raw kind: the value as plain SI numbers and lists (reports, JSON, model files).
    plain: Callable[[Any], Any] | None = None
    #: Whether the command line has an option for it (not for bodies placed in a body).
    command_line: bool = True


@dataclass(frozen=True)
class Rule:
    """A validity rule: the keyword it names and the rule in words.

    ``text`` may hold ``str.format`` fields naming dimensions (SI values), e.g.
    ``"must not exceed radius_a={radius_a!r} m"``.
    """

    parameter: str
    text: str


def rule_codes(rules: tuple[Rule, ...]) -> range:
    """The error codes of ``rules`` in order (``1 .. len(rules)``): unpack them into the names
    a ``check`` function returns, so that the codes follow the table."""
    return range(1, len(rules) + 1)


#: The rule broken when :func:`results_representable` is False (``str.format`` fields:
#: ``mass``, ``moments``); reported under :func:`unrepresentable_parameter`'s keyword.
UNREPRESENTABLE_RULE = (
    "give mass {mass!r} kg and inertia {moments!r} kg m^2: not finite, or beyond what float64 "
    "holds to full precision (dimensions or density far too large or small)"
)

#: Rules every body shares, after the shape's own (codes ``len(shape rules) + 1 + i``). The
#: frame rules match :data:`rigidparts.frames.FRAME_RULES` (checked by a test); the last is
#: reported under the name of the body's largest dimension.
COMMON_RULES: tuple[Rule, ...] = (
    Rule("density", "must be positive and finite (kg/m^3)"),
    Rule("mass", "must be positive and finite (kg)"),
    Rule("axis", "must be finite"),
    Rule("axis", "must be a non-zero vector"),
    Rule("height_direction", "must be finite"),
    Rule("height_direction", "must be non-zero and not parallel to axis"),
    Rule("dimensions", UNREPRESENTABLE_RULE),
)
#: Index of each common rule in :data:`COMMON_RULES`, by a short name.
COMMON = {"density": 0, "mass": 1, "frame": 2, "unrepresentable": 6}


#: The smallest positive normal float64.
SMALLEST_NORMAL = 2.2250738585072014e-308
#: Geometric integrals below this (2**-1000, 2**22 times the smallest normal float) may have
#: been summed from subnormal terms with fewer than 53 significant bits: not trusted.
SMALLEST_EXACT = 2.0**-1000


def results_representable(
    volume: float, mass: float, i_xx: float, i_yy: float, i_zz: float, density: float
) -> bool:
    """True when float64 holds the closed forms' results to full precision: the density and
    the mass finite and positive (the mass normal), the moments finite, and the geometry
    (``volume`` and ``moment / density``) at least :data:`SMALLEST_EXACT`. False when absurd
    dimensions or densities overflow float64 or underflow it into subnormal numbers, whose few
    remaining bits would no longer keep, for instance, the triangle inequality."""
    # Comparisons only, no isfinite or min calls (this runs once per body); NaN fails each.
    moment_sum = i_xx + i_yy + i_zz
    smallest = i_xx if i_xx < i_yy and i_xx < i_zz else (i_yy if i_yy < i_zz else i_zz)
    return (
        0.0 < density < math.inf
        and SMALLEST_EXACT <= volume
        and SMALLEST_NORMAL <= mass < math.inf
        and -math.inf < moment_sum < math.inf
        and SMALLEST_EXACT <= smallest / density
    )


def unrepresentable_parameter(dimensions: Mapping[str, Any]) -> str:
    """The keyword to blame for unrepresentable results: the largest dimension (SI), or the
    first keyword when none is a number (a mesh body's file)."""
    numbers = {name: value for name, value in dimensions.items() if type(value) is float}
    return max(numbers, key=numbers.__getitem__) if numbers else next(iter(dimensions))


#: Native primitive kinds (:class:`Primitive`) and how many numbers their ``size`` holds;
#: :func:`rigidparts.shapes.shape_for_primitive` maps each back to the shape that is exactly it.
PRIMITIVE_KINDS: Mapping[str, int] = MappingProxyType(
    {"box": 3, "cylinder": 2, "sphere": 1, "capsule": 2, "ellipsoid": 3}
)


@dataclass(frozen=True)
class Primitive:
    """A native geometric primitive, placed in the shape's canonical frame C.

    ``kind`` and ``size`` (m):

    - ``"box"``: full extents along C's x, y, z;
    - ``"cylinder"``: ``(radius, length)``, its axis along C's x;
    - ``"sphere"``: ``(radius,)``;
    - ``"capsule"``: ``(radius, length)``, its axis along C's x, ``length`` the cylindrical
      part (between the two hemispheres' centres; the whole capsule is ``length + 2 radius``
      long), as URDF's ``<capsule>``, SDFormat's and Drake's, and MJCF's ``size`` (radius,
      half of it);
    - ``"ellipsoid"``: ``(a, b, c)``, the semi-axes along C's x, y, z.

    ``center`` is the primitive's centre in C (m). MJCF, URDF, SDFormat and USD have box,
    cylinder and sphere; MJCF and SDFormat (1.8+) capsule and ellipsoid; USD a capsule (an
    ellipsoid as a scaled sphere); URDF neither (the exporters write those as meshes).
    """

    kind: Literal["box", "cylinder", "sphere", "capsule", "ellipsoid"]
    size: tuple[float, ...]
    center: tuple[float, float, float]


#: What a shape's ``from_primitive[kind](size)`` returns: ``(dimensions, options, X_GA)``. The
#: primitive is given as the robot formats place it in its geometry frame G: box centred on G
#: with full extents along x, y, z; cylinder and capsule centred, axis along z; sphere
#: centred; ellipsoid centred, semi-axes along x, y, z. ``dimensions`` are the shape's
#: dimension keywords (SI floats), ``options`` the keywords that orient it (``axis``, ...), and
#: ``X_GA = (R_GA, p_GoAo_G)`` the pose of the body's frame_a in G when built as
#: ``body_class(spec.name)(**dimensions, **options)``.
FromPrimitive = Callable[[tuple[float, ...]], tuple[dict[str, Any], dict[str, Any], Any]]


@dataclass(frozen=True, eq=False)
class ShapeSpec:
    """Everything about one shape (see the module docstring).

    Attributes
    ----------
    name : the registry key, the command-line command and TOML ``shape`` (``"box"``).
    summary : one line for help texts (``"a box (rectangular bar), solid or hollow"``).
    params : the dimensions, in the order ``check`` and the closed forms take them.
    rules : the shape's own validity rules; ``check`` returns their codes.
    check : ``check(*dimensions) -> int`` in plain float arithmetic (no early returns, so that
        the batch compiler vectorises it).
    closed_form : tier 1 (module docstring), or None.
    general_form : tier 2 (module docstring), or None.
    axis : whether the body takes ``axis`` (its canonical x in frame_a); without one the
        canonical frame is frame_a.
    cross_section : whether it takes ``rotate90`` and ``height_direction`` (a section that is
        not round: its canonical y and z are the height and width directions).
    end_frame : the parameter whose value places ``frame_b`` at ``value * e_axis``, or None for
        no frame_b.
    extra_frames : ``"axial"`` (offsets along the axis), ``"radial"`` (``(radius, angle)``
        pairs about the axis), ``"named"`` (the ``frames`` keyword: ``{name: position}`` or
        ``{name: {"position": ..., "rotation": ...}}`` in frame_a; needs no axis), or None.
    command : the command-line command (default ``name``; differs where the name is taken by
        another command, as ``mesh``).
    mesh : ``mesh(dimensions, sections) -> trimesh.Trimesh`` in C (imports trimesh itself).
    extent : ``extent(dimensions) -> float``, the body's largest extent along C's axes (m, at
        least the mesh's), where it is known without building the mesh (a STEP file's, whose
        tessellation takes seconds); None: the mesh's.
    primitive : ``primitive(dimensions) -> Primitive | None``: the native primitive that is
        exactly this body (a solid box or cylinder), None when it needs a mesh.
    from_primitive : the inverse, for the file readers: ``{kind: function}``, each function
        taking a native primitive's ``size`` as the robot formats place it and returning the
        body that is exactly it (:data:`FromPrimitive`); one shape per kind
        (:func:`rigidparts.shapes.shape_for_primitive`).
    example : the keywords of a representative body beyond the defaults (a mapping, or a
        function returning one, called only when asked, so that a shape may build a heavy value
        such as a ``trimesh.Trimesh`` lazily); needed where a parameter has no usable default
        (a mesh body's file). :meth:`example_kwargs` merges it over :attr:`defaults`.
    """

    name: str
    summary: str
    params: tuple[Param, ...]
    rules: tuple[Rule, ...]
    check: Callable[..., int]
    closed_form: Callable[..., tuple[float, float, float, float, float, float]] | None = None
    general_form: Callable[[Mapping[str, float], float], tuple[float, Any]] | None = None
    axis: bool = True
    cross_section: bool = False
    end_frame: str | None = "length"
    extra_frames: ExtraFrames | None = "axial"
    mesh: Callable[[Mapping[str, float], int], Any] | None = None
    extent: Callable[[Mapping[str, Any]], float] | None = None
    primitive: Callable[[Mapping[str, float]], Primitive | None] | None = None
    from_primitive: Mapping[str, FromPrimitive] | None = None
    command: str = ""
    example: Mapping[str, Any] | Callable[[], Mapping[str, Any]] | None = None
    #: A body given by its mass alone (no material, no density, no volume): the general form
    #: then takes the mass where it takes a density (``rp.RigidBody``).
    mass_only: bool = False
    #: Tier 2, optional: ``explain(*dimensions)`` raises the ParameterError of the first bad
    #: value more precisely than its rule (which parameter inside a mapping, what is wrong),
    #: called by the constructor when ``check`` returns a code; its rule's text otherwise.
    explain: Callable[..., None] | None = None
    all_rules: tuple[Rule, ...] = field(init=False)
    #: The dimensions' keywords, in kernel order (derived from ``params``).
    parameter_names: tuple[str, ...] = field(init=False)

    def __post_init__(self) -> None:
        if (self.closed_form is None) == (self.general_form is None):
            raise TypeError(f"shape {self.name!r}: give exactly one of closed_form, general_form")
        names = [p.name for p in self.params]
        if len(set(names)) != len(names):
            raise TypeError(f"shape {self.name!r}: repeated parameter names")
        for rule in self.rules:
            if rule.parameter not in names:
                raise TypeError(f"shape {self.name!r}: rule names unknown {rule.parameter!r}")
        if self.end_frame is not None and self.end_frame not in names:
            raise TypeError(f"shape {self.name!r}: end_frame {self.end_frame!r} is no parameter")
        for kind in self.from_primitive or ():
            if kind not in PRIMITIVE_KINDS:
                raise TypeError(f"shape {self.name!r}: unknown primitive kind {kind!r}")
        if self.extra_frames in ("axial", "radial") and not self.axis:
            raise TypeError(f"shape {self.name!r}: extra frames need an axis")
        object.__setattr__(self, "all_rules", self.rules + COMMON_RULES)
        object.__setattr__(self, "parameter_names", tuple(names))
        if not self.command:
            object.__setattr__(self, "command", self.name)

    # -- derived -----------------------------------------------------------------------------

    @property
    def defaults(self) -> dict[str, Any]:
        """The dimensions' defaults (SI), by keyword."""
        return {p.name: p.default for p in self.params}

    @property
    def tier(self) -> int:
        """1 for the axial closed forms (batch-compilable), 2 for the general form."""
        return 1 if self.closed_form is not None else 2

    @property
    def frames_keyword(self) -> str:
        """The keyword of the user's extra frames: ``frames`` (named) or ``extra_frames``."""
        return "frames" if self.extra_frames == "named" else "extra_frames"

    def example_kwargs(self) -> dict[str, Any]:
        """The dimensions of a representative body (SI, or as the shape takes them): the
        defaults with :attr:`example` over them. ``body_class(spec.name)(**spec.example_kwargs())``
        builds it for every registered shape; tests and documentation loop over it."""
        extra = self.example() if callable(self.example) else self.example
        return {**self.defaults, **dict(extra or {})}

    def sign_rule(self, name: str) -> str | None:
        """The "must be positive ..." / "must be non-negative ..." rule of parameter ``name``
        (a dimension: the shape's rules; density or mass: the common ones), or None: the
        rule a tolerance band must stay inside."""
        rules = self.rules if name in self.parameter_names else COMMON_RULES
        for rule in rules:
            if rule.parameter == name and rule.text.startswith(
                ("must be positive", "must be non-negative")
            ):
                return rule.text
        return None

    def common_code(self, name: str) -> int:
        """The error code of a common rule (:data:`COMMON`: ``"density"``, ``"mass"``,
        ``"frame"`` (the first frame rule), ``"unrepresentable"``)."""
        return len(self.rules) + 1 + COMMON[name]

    def options(self) -> dict[str, Any]:
        """The keywords beyond the dimensions and their defaults, in signature order: ``axis``,
        ``rotate90``, ``height_direction``, ``material``, ``density``, ``mass``,
        ``extra_frames`` (or ``frames``: named frames, default None) as this shape takes
        them."""
        out: dict[str, Any] = {}
        if self.axis:
            out["axis"] = (1, 0, 0)
        if self.cross_section:
            out["rotate90"] = False
            out["height_direction"] = None
        if self.mass_only:
            out.update(mass=1.0)
        else:
            out.update(material=DEFAULT_MATERIAL, density=None, mass=None)
        if self.extra_frames == "named":
            out["frames"] = None
        elif self.extra_frames is not None:
            out["extra_frames"] = ()
        return out

    def signature_defaults(self) -> dict[str, Any]:
        """Every keyword of the public class and its default, in signature order."""
        return {**self.defaults, **self.options()}

    def __repr__(self) -> str:
        return f"ShapeSpec({self.name!r}, tier {self.tier}, params={self.parameter_names})"


_registry: dict[str, ShapeSpec] = {}


def register(spec: ShapeSpec) -> ShapeSpec:
    """Add ``spec`` to the registry (once per name); returns it, for ``SPEC = register(...)``.
    :data:`rigidparts.shapes.SHAPES` is built from it once every shape module is imported."""
    if spec.name in _registry and _registry[spec.name] is not spec:
        raise RuntimeError(f"two shapes named {spec.name!r}")
    _registry[spec.name] = spec
    return spec


def registered() -> dict[str, ShapeSpec]:
    """A copy of the registry so far: name -> specification."""
    return dict(_registry)
