"""What the commands share: the one-line error, body options read from a shape's specification,
the body they describe, and the human-readable table of a body.

Every body option comes from the registry (:data:`rigidparts.shapes.SHAPES`): one option per
:class:`~rigidparts.shapes.Param` (``--inner-radius-a``, dest = the keyword, default = the
specification's default), except that a parameter of kind ``path`` is a positional argument
(``rigidparts meshbody FILE``); ``--axis`` when the shape has an axis, ``--rotate90`` and
``--height-direction`` when it has a cross-section, ``--material`` / ``--density`` / ``--mass``,
``--extra-frame`` when it takes axial or radial extra frames and ``--frame NAME=X,Y,Z``
(repeatable) when it takes named frames. No shape is named here.

The report's units (:func:`add_units_option`) are ``--report-units`` on every command, also
spelt ``--units`` wherever no option of the shape's own takes that name: a shape's parameter
(a mesh body's ``units``, the length unit of its file) keeps its own option name, and the
report's option gives way, by name, not by shape.

Only argparse, the standard library and the core's light modules are imported at module level;
values keep their text (``"250 mm"``) and the library converts and checks them.
"""

from __future__ import annotations

import argparse
import functools
from pathlib import Path
from typing import Any, NoReturn

from ..shapes import Param, ShapeSpec, get_shape

__all__ = [
    "MODEL_HELP",
    "UNITS",
    "Parser",
    "UsageError",
    "add_body_options",
    "add_model_file_options",
    "add_output_options",
    "add_search_path_option",
    "add_units_option",
    "body_epilog",
    "body_from_args",
    "body_inputs",
    "check_not_input",
    "check_output",
    "check_suffix",
    "file_extent",
    "format_table",
    "load_model_file",
    "model_inputs",
    "named_frame",
    "radial_frame",
    "sections",
    "vector3",
    "warn_large_coordinates",
]


class UsageError(Exception):
    """A command-line problem to report as one ``error:`` line (exit status 2)."""


class Parser(argparse.ArgumentParser):
    """argparse with a one-line ``error: ...`` (raised as :class:`UsageError`) instead of usage
    and message on stderr and ``SystemExit``."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.prog} --help')")


#: The SI unit of each kind of dimension, as printed in helps and tables ("" for none).
UNITS = {
    "length": "m", "angle": "rad", "count": "", "path": "", "text": "",
    "vector": "m", "tensor": "kg m^2", "pose": "m", "geometry": "",
}  # fmt: skip
_METAVARS = {
    "length": "LEN", "angle": "ANGLE", "count": "N", "path": "FILE", "text": "TEXT",
    "vector": "X,Y,Z", "tensor": "IXX,IYY,IZZ,IXY,IXZ,IYZ", "pose": "X,Y,Z",
}  # fmt: skip
_UNIT_EXAMPLES = {"length": "'250 mm'", "angle": "'30 deg'"}


# -- argparse value types -----------------------------------------------------------------------


def vector3(text: str) -> list[str]:
    """``"0,0,1"`` or ``"0 0 1"`` -> three items (converted and checked by the library)."""
    parts = [p for p in text.replace(",", " ").split() if p]
    if len(parts) != 3:
        raise argparse.ArgumentTypeError(f"expected three numbers like 0,0,1, got {text!r}")
    return parts


def radial_frame(text: str) -> tuple[str, str]:
    """``"0.2,30deg"`` or ``"0.2 m, 30 deg"`` -> ``(radius, angle)`` texts (units allowed;
    converted and checked by the library)."""
    radius, comma, angle = text.partition(",")
    if not comma or not radius.strip() or not angle.strip() or "," in angle:
        raise argparse.ArgumentTypeError(
            f"expected RADIUS,ANGLE such as 0.2,30deg or '0.2 m, 30 deg', got {text!r}"
        )
    return radius.strip(), angle.strip()


def named_frame(text: str) -> tuple[str, list[str]]:
    """``--frame NAME=X,Y,Z`` -> ``(name, [x, y, z])`` texts (units allowed in each, as
    ``mount=10mm,0,-5mm`` or ``'mount=10 mm, 0, -5 mm'``; converted and checked by the
    library)."""
    name, equals, position = text.partition("=")
    parts = [p.strip() for p in position.split(",")]
    if not equals or not name.strip() or len(parts) != 3 or not all(parts):
        raise argparse.ArgumentTypeError(
            f"expected NAME=X,Y,Z such as mount=0.1,0,0.02 or 'mount=10 mm,0,5 mm', got {text!r}"
        )
    return name.strip(), parts


def count(text: str) -> int:
    """An integer dimension (a number of teeth, holes, ...)."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None


def sections(text: str) -> int:
    """``--sections``: segments around round surfaces (the range of
    :func:`rigidparts.mesh.check_sections`)."""
    from ..mesh import MAX_SECTIONS, MIN_SECTIONS

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be an integer >= {MIN_SECTIONS}, got {text!r}"
        ) from None
    if not MIN_SECTIONS <= value <= MAX_SECTIONS:
        raise argparse.ArgumentTypeError(
            f"must be an integer from {MIN_SECTIONS} to {MAX_SECTIONS}, got {text!r}"
        )
    return value


# -- checks before anything is computed or written -----------------------------------------------


def check_output(
    path: str, option: str, *, force: bool = False, folder_too: str | None = None
) -> str:
    """Check before any work that ``path`` (given as ``option``) can be written
    (:func:`rigidparts.fileio.check_output`: not a folder, not read-only unless ``force``, its
    folder exists or can be made); :class:`UsageError` naming the option and the path.
    Returns ``path``."""
    from ..fileio import check_output as check

    try:
        check(path, force=force, folder_too=folder_too)
    except OSError as exc:
        raise UsageError(f"{option} {path}: {exc.strerror or exc}") from None
    return path


def check_not_input(output: str, option: str, inputs: Any, *, folder: Any = None) -> None:
    """:class:`UsageError` when ``output`` (given as ``option``) is one of ``inputs``, pairs
    ``(path, what)`` (:func:`body_inputs`, :func:`model_inputs`): the same file also through a
    symlink or a hard link (:func:`rigidparts.fileio.same_file`). No command writes over what
    it reads, ``--force`` or not (``--force`` replaces read-only outputs, never inputs).
    ``folder``: a companion folder the command replaces (an export's meshes), which must not
    hold an input either."""
    import os

    from ..fileio import same_file

    inside = None if folder is None else Path(os.path.realpath(folder))
    for path, what in inputs:
        if not isinstance(path, str | os.PathLike):
            continue  # an object standing for a file (a trimesh): nothing on disk
        if same_file(output, path):
            raise UsageError(
                f"{option} {output}: is {what} {os.fspath(path)}, which this command reads: "
                "give another output (--force never replaces an input)"
            )
        if inside is not None and Path(os.path.realpath(path)).is_relative_to(inside):
            raise UsageError(
                f"{option} {output}: its mesh folder {inside} holds {what} "
                f"{os.fspath(path)}, which this command reads and the export would replace: "
                "give another output"
            )


def body_inputs(spec: ShapeSpec, args: argparse.Namespace) -> list[tuple[Any, str]]:
    """The files a body command reads: ``(path, what)`` for each parameter of kind ``path``
    given on the command line (``rigidparts mesh meshbody part.stl``)."""
    return [
        (getattr(args, p.name), f"the {p.name} file")
        for p in spec.params
        if p.kind == "path" and getattr(args, p.name, None) is not None
    ]


def model_inputs(path: str, model: Any) -> list[tuple[Any, str]]:
    """The files a command on a model file reads: the model file and every file its bodies
    are read from (a parameter of kind ``path``, ``bodies.NAME.file``)."""
    inputs: list[tuple[Any, str]] = [(path, "the model file")]
    for name, body in model.bodies.items():
        for param in body.spec.params:
            if param.kind == "path":
                inputs.append((body.dimensions.get(param.name), f"the file of bodies.{name}"))
    return inputs


def add_output_options(parser: argparse.ArgumentParser) -> None:
    """``--force``: replace read-only output files (a command's outputs are checked before
    any work, written atomically, keep an existing file's permissions)."""
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace read-only output files (otherwise refused before any work)",
    )


def report_units(text: str) -> Any:
    """``--units``: a length and/or a mass unit (``mm,g``, ``"mm kg"``, ``in,lb``)."""
    from ..errors import ParameterError
    from ..report import parse_units

    try:
        return parse_units(text)
    except ParameterError as exc:
        raise argparse.ArgumentTypeError(exc.rule) from None


#: The report's units option, and the short name it also takes where that is free.
REPORT_UNITS_OPTION = "--report-units"
REPORT_UNITS_ALIAS = "--units"

REPORT_UNITS_HELP = (
    "report lengths and masses in these units, e.g. mm,g or 'mm kg' or in,lb (volume, "
    "density and inertia follow: mm^3, g/mm^3, g mm^2); default SI (m, kg)"
)


def _option_name(param: Param) -> str:
    return param.option or "--" + param.name.replace("_", "-")


def report_units_flags(spec: ShapeSpec | None = None) -> list[str]:
    """The option strings of the report's units: ``--report-units``, and ``--units`` unless a
    parameter of ``spec`` takes that name (module docstring)."""
    taken = {_option_name(p) for p in spec.params} if spec is not None else set()
    flags = [REPORT_UNITS_OPTION]
    if REPORT_UNITS_ALIAS not in taken:
        flags.append(REPORT_UNITS_ALIAS)
    return flags


def add_units_option(parser: Any, spec: ShapeSpec | None = None, help: str | None = None) -> None:
    """The report's units (:func:`rigidparts.report.parse_units`), dest ``report_units``:
    ``--report-units``, also ``--units`` where the body of ``spec`` leaves that name free."""
    parser.add_argument(
        *report_units_flags(spec),
        dest="report_units",
        type=report_units,
        default=None,
        metavar="UNITS",
        help=help or REPORT_UNITS_HELP,
    )


def check_suffix(path: str, suffixes: Any, what: str) -> None:
    """:class:`~rigidparts.errors.ParameterError` naming ``output`` unless ``path`` ends in
    one of ``suffixes`` (the file's format is its suffix)."""
    from ..errors import ParameterError

    if Path(path).suffix.lower() not in suffixes:
        raise ParameterError(
            "output", path, f"must end in {', '.join(suffixes)} (the {what} format is the suffix)"
        )


#: The help of a command's model-file argument.
MODEL_HELP = (
    "the model file: TOML (format in docs/models.md), URDF, MJCF, SDFormat, USD or STEP (each "
    "solid a body)"
)


def add_search_path_option(parser: argparse.ArgumentParser) -> None:
    """``--search-path DIR`` (repeatable): where the meshes robot files name are looked for."""
    parser.add_argument(
        "--search-path",
        action="append",
        default=[],
        metavar="DIR",
        help="folder for package://, model:// and relative mesh paths (repeatable)",
    )


def add_model_file_options(parser: argparse.ArgumentParser) -> None:
    """The options of a command that reads a model file (:func:`load_model_file`):
    ``--search-path`` for the meshes robot files name, ``--as-one-body``, ``--step-units`` and
    ``--step-material`` for a STEP assembly."""
    add_search_path_option(parser)
    parser.add_argument(
        "--as-one-body",
        action="store_true",
        help="a STEP assembly as one body, its solids fused (default: a body per solid)",
    )
    parser.add_argument(
        "--step-units",
        metavar="UNIT",
        help="the length unit of a STEP file that states none (mm, m, in, ...; one that "
        "differs from the file's overrides it, with a warning)",
    )
    parser.add_argument(
        "--step-material",
        metavar="MATERIAL",
        help="a STEP file's material: one for all its solids, or per solid or part "
        "'NAME=MATERIAL,NAME=MATERIAL' ('*' for the others; a density such as 2700 or "
        "'2.7 g/cm^3' in place of a material); default steel",
    )


def load_model_file(path: str, args: argparse.Namespace) -> Any:
    """The model of file ``path`` with the options of :func:`add_model_file_options`."""
    from ..formats import load_model

    model = load_model(
        path,
        search_path=args.search_path,
        as_one_body=args.as_one_body,
        units=args.step_units,
        material=args.step_material,
    )
    large = [(name, extent) for name, body in model.bodies.items()
             if (extent := file_extent(body)) is not None and extent > LARGE_EXTENT]  # fmt: skip
    if large:  # one line for the model (a STEP assembly in the wrong unit: every solid)
        names = ", ".join(repr(name) for name, _ in large[:3])
        more = f" and {len(large) - 3} more" if len(large) > 3 else ""
        widest = max(e for _, e in large)
        which = (
            f"bodies {names}{more} (read from files) are up to {widest:.6g} m across"
            if len(large) > 1
            else f"body {names} (read from a file) is {widest:.6g} m across"
        )
        _say_too_large(path, which, "check the units (--step-units for a STEP file)")
    return model


def _say_too_large(shown: Any, what: str, check: str) -> None:
    """The one-line warning (stderr) that ``what`` (a body, a model's bodies) read from files
    is over :data:`LARGE_EXTENT` across."""
    import sys

    print(
        f"warning: {shown}: {what} (over {LARGE_EXTENT:g} m): coordinates look like "
        f"millimetres given as metres{'; ' + check if check else ''}",
        file=sys.stderr,
    )


# -- body options -------------------------------------------------------------------------------


def body_epilog(spec: ShapeSpec) -> str:
    """The note on units under a body command's help (its examples use the shape's own
    options)."""
    length = next((p.name for p in spec.params if p.kind == "length"), None)
    example = f'--{length.replace("_", "-")} "250 mm", ' if length else ""
    return (
        "Lengths are in metres, angles in radians, densities in kg/m^3 and masses in kg unless "
        f'you give units: {example}--density "7.85 g/cm^3" or "0.284 lb/in^3", --mass "2.5 kg". '
        "Results are in SI, expressed in frame_a: the inertia is about the centre of mass, in "
        "frame_a's axes."
    )


@functools.cache
def _default_material_text() -> str:
    from ..materials import DEFAULT_MATERIAL, get_material

    return f"{DEFAULT_MATERIAL}, {get_material(DEFAULT_MATERIAL).density:g} kg/m^3"


class _DefaultMaterialHelp(str):
    """The ``--material`` help, which names the default material's density: formatted only
    when help is printed (reading the material table is not needed to parse arguments)."""

    def __mod__(self, params: Any) -> str:
        return f"{self} (default {_default_material_text()})"


def _show_default(value: Any, kind: str) -> str:
    if value is None:
        return "none"
    unit = UNITS.get(kind, "")
    return f"{value} {unit}".rstrip()


def _dimension_help(param: Param) -> str:
    if param.default is None and param.kind == "path":  # a required argument has no default
        return param.help.replace("%", "%%")
    return f"{param.help}; default {_show_default(param.default, param.kind)}".replace("%", "%%")


def add_body_options(
    parser: argparse.ArgumentParser, spec: ShapeSpec, *, frames: bool = True
) -> None:
    """Add the options of one body of shape ``spec`` to ``parser`` (the shape's command, and
    ``mesh SHAPE`` / ``view SHAPE``); :func:`body_from_args` builds the body from them.
    ``frames=False`` leaves out the extra frames (a tolerance study: frames do not change the
    mass properties)."""
    kinds = [p.kind for p in spec.params]
    with_units = [UNITS[k] for k in dict.fromkeys(kinds) if k in _UNIT_EXAMPLES]
    examples = [_UNIT_EXAMPLES[k] for k in dict.fromkeys(kinds) if k in _UNIT_EXAMPLES]
    title = "dimensions"
    if with_units:
        title += f" ({', '.join(with_units)}, or with units such as {' or '.join(examples)})"
    dims = parser.add_argument_group(title)
    for param in spec.params:
        if not param.command_line:  # bodies placed in a body: Python and model files only
            continue
        if param.kind == "path":  # a file is named first, as in 'rigidparts meshbody FILE'
            dims.add_argument(
                param.name,
                nargs=None if param.default is None else "?",
                default=param.default,
                metavar=_METAVARS["path"],
                help=_dimension_help(param),
            )
            continue
        dims.add_argument(
            _option_name(param),
            dest=param.name,
            default=param.default,
            type=count if param.kind == "count" else None,
            metavar=_METAVARS.get(param.kind, "VALUE"),
            help=_dimension_help(param),
        )
    options = spec.options()
    if spec.axis or spec.cross_section:
        orient = parser.add_argument_group("orientation")
    if spec.axis:
        default_axis = ",".join(f"{v:g}" for v in options["axis"])
        orient.add_argument(
            "--axis",
            type=vector3,
            default=options["axis"],
            metavar="X,Y,Z",
            help=f"axis direction in frame_a, any non-zero vector (default {default_axis})",
        )
    if spec.cross_section:
        orient.add_argument(
            "--rotate90",
            action="store_true",
            default=options["rotate90"],
            help="turn the cross-section 90 degrees about the axis",
        )
        orient.add_argument(
            "--height-direction",
            type=vector3,
            default=options["height_direction"],
            metavar="X,Y,Z",
            help="explicit height direction, not parallel to the axis (default: the rule in "
            "the README: the world axis that cyclically follows the axis' largest component)",
        )
    if spec.mass_only:  # no volume: the mass is the one way to give the amount of matter
        parser.add_argument_group("mass").add_argument(
            "--mass",
            default=options["mass"],
            metavar="MASS",
            help=f"mass in kg or with units ('2.5 kg'); default {options['mass']:g} kg",
        )
    else:
        mat = parser.add_argument_group("material (one of)")
        mat.add_argument(
            "--material",
            default=None,
            metavar="NAME",
            help=_DefaultMaterialHelp("name from 'rigidparts materials'"),
        )
        mat.add_argument(
            "--density",
            default=options["density"],
            metavar="RHO",
            help="density in kg/m^3 or with units ('7.85 g/cm^3'); replaces the material",
        )
        mat.add_argument(
            "--mass",
            default=options["mass"],
            metavar="MASS",
            help="mass in kg or with units ('2.5 kg'); the density is then mass / volume",
        )
    kind = spec.extra_frames if frames else None
    if kind is not None:
        group = parser.add_argument_group("extra frames")
    if kind == "axial":
        group.add_argument(
            "--extra-frame",
            dest="extra_frames",
            action="append",
            default=list(options["extra_frames"]),
            metavar="OFFSET",
            help="an extra frame at this offset along the axis, m or with units (repeatable: "
            "frame_c1, frame_c2, ...; frame_a's orientation)",
        )
    elif kind == "radial":
        group.add_argument(
            "--extra-frame",
            dest="extra_frames",
            action="append",
            type=radial_frame,
            default=list(options["extra_frames"]),
            metavar="R,ANGLE",
            help="an extra frame at radius R (m) and angle ANGLE (rad) about the axis, units "
            "allowed: 0.2,30deg or '0.2 m, 30 deg'; the frame is turned by the angle about the "
            "axis (repeatable: frame_c1, frame_c2, ...)",
        )
    elif kind == "named":
        group.add_argument(
            "--frame",
            dest=spec.frames_keyword,
            action="append",
            type=named_frame,
            default=options[spec.frames_keyword],
            metavar="NAME=X,Y,Z",
            help="a named frame at this position in frame_a, m or with units per coordinate: "
            "mount=0.1,0,0.02 or 'tool=10 mm,0,-5 mm' (repeatable; frame_a's orientation; "
            "rotated frames through the library or a model file)",
        )


def body_from_args(shape: str | ShapeSpec, args: argparse.Namespace) -> Any:
    """The body described by the options of :func:`add_body_options` for ``shape`` (a name or
    a specification): ``body_class(spec.name)(**keywords)``, every keyword of the public
    signature taken from ``args``; the default material when ``--material`` is not given."""
    from ..bodies import body_class
    from ..materials import DEFAULT_MATERIAL

    spec = shape if isinstance(shape, ShapeSpec) else get_shape(shape)
    kwargs = {
        name: getattr(args, name, default) for name, default in spec.signature_defaults().items()
    }
    if "material" in kwargs and kwargs["material"] is None:  # only the sentinel: "not given"
        kwargs["material"] = DEFAULT_MATERIAL
    if spec.extra_frames == "named" and kwargs[spec.frames_keyword] is not None:
        named: dict[str, list[str]] = {}
        for name, position in kwargs[spec.frames_keyword]:
            if name in named:
                raise UsageError(f"--frame {name}=...: the frame {name!r} is given twice")
            named[name] = position
        kwargs[spec.frames_keyword] = named
    return body_class(spec.name)(**kwargs)


#: A mesh wider than this (m) probably holds millimetres read as metres.
LARGE_EXTENT = 100.0


def file_extent(body: Any) -> float | None:
    """The largest extent (m) along frame_a's axes of a body read from a file (a shape with a
    parameter of kind ``path``): the shape's own where it has one (a STEP file's B-rep boxes:
    its tessellation is not built for this), else its mesh's; None for other bodies."""
    import numpy as np

    spec = body.spec
    if not any(p.kind == "path" for p in spec.params):
        return None
    if spec.extent is not None:
        return float(spec.extent(body.dimensions))
    if spec.mesh is None:
        return None
    vertices = np.asarray(spec.mesh(body.dimensions, 3).vertices)
    return float(np.max(np.ptp(vertices, axis=0)))


def warn_large_coordinates(body: Any) -> None:
    """A warning on stderr (not an error: the user may mean it) when a body read from a file
    (a shape with a parameter of kind ``path``) is over :data:`LARGE_EXTENT` across: its
    coordinates look like millimetres given as metres (the extent: :func:`file_extent`)."""
    spec = body.spec
    files = [p for p in spec.params if p.kind == "path"]
    extent = file_extent(body)
    if extent is not None and extent > LARGE_EXTENT:
        source = body.dimensions[files[0].name]
        shown = str(source) if isinstance(source, str | Path) else type(source).__name__
        units = [_option_name(p) for p in spec.params if p.kind == "text"]
        check = f"check {units[0]}" if units else ""
        _say_too_large(shown, f"the body is {extent:.6g} m across", check)


# -- the table ----------------------------------------------------------------------------------


def _fmt(x: float) -> str:
    return f"{x:.9g}"


def _vec(v: Any) -> str:
    return "[" + ", ".join(f"{x:>13.6g}" for x in v) + "]"


def _show_dimension(param: Param, value: Any, length_unit: str = "m") -> str:
    if isinstance(value, float | int) and not isinstance(value, bool):
        unit = length_unit if param.kind == "length" else UNITS.get(param.kind, "")
        shown = str(int(value)) if param.kind == "count" and float(value).is_integer() else None
        return f"{param.name} = {shown or _fmt(value)}{' ' + unit if unit else ''}"
    return f"{param.name} = {value}"


def _pack(items: list[str], width: int) -> list[str]:
    """``items`` joined by ", " into rows of at most ``width`` characters (an item is never
    split; one longer than ``width`` gets a row of its own)."""
    rows: list[str] = []
    for item in items:
        if rows and len(rows[-1]) + 2 + len(item) <= width:
            rows[-1] += ", " + item
        else:
            if rows:
                rows[-1] += ","
            rows.append(item)
    return rows or [""]


def _is_identity(rotation: Any) -> bool:
    return all(rotation[i][j] == (1.0 if i == j else 0.0) for i in range(3) for j in range(3))


def format_table(body: Any, units: Any = None) -> str:
    """The human-readable report of one body: dimensions with units, the axis (and the height
    and width directions of a cross-section), the material or "(given density)" / "(given
    mass)", density, volume, mass, centre of mass, inertia about the centre of mass and about
    frame_a, principal moments and axes (frame_a) and the frames (position in frame_a; the
    rotation too when it is not identity). In SI, or in ``units``
    (:func:`rigidparts.report.parse_units`: ``"mm,g"``)."""
    from ..report import report

    spec = body.spec
    data = report(body, units)
    unit = data["units"]
    length = unit["length"]
    params = data["parameters"]
    lines = [type(body).__name__]
    rows = _pack([_show_dimension(p, params.get(p.name), length) for p in spec.params], width=80)
    lines += [f"  {'dimensions' if i == 0 else '':<18}{row}" for i, row in enumerate(rows)]
    if spec.axis:
        lines.append(f"  axis (frame_a)    {_vec(body.axis)}")
    if spec.cross_section:
        r_ac = body.rotation_from_canonical  # columns: e_axis, h, w
        lines.append(f"  height direction  {_vec(r_ac[:, 1])}")
        lines.append(f"  width direction   {_vec(r_ac[:, 2])}")
    if data["material"] is not None:
        material = data["material"]
    elif getattr(body, "material_label", None):  # a body's own words (per-solid materials)
        material = body.material_label
    else:
        material = "(given mass)" if "mass" in params else "(given density)"
    lines.append("")
    if not spec.mass_only:  # a body given by its mass has no material, density or volume
        lines += [
            f"  material          {material}",
            f"  density           {_fmt(data['density'])} {unit['density']}",
            f"  volume            {_fmt(data['volume'])} {unit['volume']}",
        ]
    lines += [
        f"  mass              {_fmt(data['mass'])} {unit['mass']}",
        f"  centre of mass    {_vec(data['center_of_mass'])} {length}   (in frame_a)",
        "",
        f"  inertia about the centre of mass, frame_a axes ({unit['inertia']}):",
    ]
    lines += [f"      {_vec(row)}" for row in data["inertia"]]
    lines.append(f"  inertia about frame_a (its origin), frame_a axes ({unit['inertia']}):")
    lines += [f"      {_vec(row)}" for row in data["inertia_about_frame_a"]]
    lines.append(f"  principal moments {_vec(data['principal_moments'])} {unit['inertia']}")
    lines.append("  principal axes (columns):")
    lines += [f"      {_vec(row)}" for row in data["principal_axes"]]
    frames = data["frames"]
    if all(_is_identity(f["rotation"]) for f in frames.values()):
        lines += [
            "",
            f"  frames (position in frame_a, {length}; all with frame_a's orientation):",
        ]
    else:
        lines += [
            "",
            f"  frames (position in frame_a, {length}; rotation relative to frame_a where not "
            "identity):",
        ]
    for name, frame in frames.items():
        lines.append(f"      {name:<10} {_vec(frame['position'])}")
        if not _is_identity(frame["rotation"]):
            rows = [_vec(row) for row in frame["rotation"]]
            lines.append(f"      {'':<10} rotation {rows[0]}")
            lines += [f"      {'':<10}          {row}" for row in rows[1:]]
    extra = getattr(body, "report_lines", None)  # a body read from a file: what was done
    if extra is not None:
        lines += ["", *extra()]
    return "\n".join(lines)


def shape_parsers(
    parser: argparse.ArgumentParser,
    specs: list[ShapeSpec],
    *,
    help_text: str,
    description: str,
    epilog: str,
) -> list[tuple[ShapeSpec, argparse.ArgumentParser]]:
    """One sub-parser of ``parser`` per shape of ``specs``, named by its command (``rigidparts
    mesh SHAPE``, ``rigidparts tolerance SHAPE``): ``help_text`` and ``description`` are
    formatted with ``summary`` (the shape's one-line summary). Returns ``(spec, sub-parser)``
    pairs for the command to add its own options."""
    shapes = parser.add_subparsers(
        dest="shape_command", metavar="SHAPE", required=True, parser_class=type(parser)
    )
    return [
        (
            spec,
            shapes.add_parser(
                spec.command,
                help=help_text.format(summary=spec.summary),
                description=description.format(summary=spec.summary),
                epilog=epilog,
                formatter_class=argparse.RawDescriptionHelpFormatter,
            ),
        )
        for spec in specs
    ]
