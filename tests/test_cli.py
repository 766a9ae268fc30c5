"""The command line: ``rigidparts SHAPE|materials`` in-process (main(argv) with capsys) and
in real subprocesses (exit status, stderr, no traceback); every shape's options read from its
specification; nothing in ``rigidparts.commands`` names a shape."""

from __future__ import annotations

import argparse
import ast
import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import rigidparts as rp
from rigidparts import commands
from rigidparts.bodies import body_class
from rigidparts.commands import main
from rigidparts.commands._options import (
    Parser,
    UsageError,
    add_body_options,
    format_table,
    radial_frame,
)
from rigidparts.frames import Frame
from rigidparts.materials import list_materials
from rigidparts.shapes import SHAPES, Param, ShapeSpec

JSON_KEYS = {
    "shape",
    "mass",
    "volume",
    "density",
    "material",
    "center_of_mass",
    "inertia",
    "principal_moments",
    "principal_axes",
    "frames",
}


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *argv: str) -> dict:
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0 and err == ""
    return json.loads(out)


def assert_matches_body(data: dict, body: rp.Component) -> None:
    """The JSON carries the body's results bit for bit (full precision floats)."""
    assert JSON_KEYS <= set(data)
    assert data["shape"] == body.shape
    assert data["mass"] == body.mass
    assert data["volume"] == body.volume
    assert data["density"] == body.density
    assert data["material"] == body.material
    assert data["center_of_mass"] == body.center_of_mass.tolist()
    assert data["inertia"] == body.inertia.tolist()
    assert data["principal_moments"] == body.principal_moments.tolist()
    assert data["principal_axes"] == body.principal_axes.tolist()
    assert list(data["frames"]) == list(body.frames)
    for name, frame in body.frames.items():
        assert data["frames"][name] == {
            "position": frame.position.tolist(),
            "rotation": frame.rotation.tolist(),
        }


# -- output -------------------------------------------------------------------------------------


def test_box_table(capsys) -> None:
    code, out, err = run(capsys, "box")
    assert code == 0 and err == ""
    body = rp.Box()
    assert out.startswith("Box")
    for text in (
        "mass",
        "kg",
        "kg/m^3",
        "m^3",
        "kg m^2",
        "steel",
        "frame_a",
        "frame_b",
        "frame_com",
    ):
        assert text in out
    assert f"{body.mass:.9g} kg" in out  # 157.2 kg
    assert "height direction" in out and "width direction" in out


def test_cone_table(capsys) -> None:
    code, out, err = run(capsys, "cone", "--inner-radius-a", "0.3", "--extra-frame", "0.25")
    assert code == 0 and err == ""
    body = rp.Cone(inner_radius_a=0.3)
    assert out.startswith("Cone")
    assert f"{body.mass:.9g} kg" in out
    assert "frame_c1" in out and "kg m^2" in out


@pytest.mark.parametrize(
    ("argv", "kwargs"),
    [
        ([], {}),
        (
            [
                "--length",
                "250 mm",
                "--width",
                "0.02",
                "--height",
                "0.04",
                "--material",
                "aluminium",
            ],
            {"length": 0.25, "width": 0.02, "height": 0.04, "material": "aluminium"},
        ),
        (
            ["--axis", "0,0,1", "--rotate90", "--inner-width", "0.05", "--inner-height", "0.1"],
            {"axis": (0, 0, 1), "rotate90": True, "inner_width": 0.05, "inner_height": 0.1},
        ),
        (
            ["--axis", "1 2 3", "--height-direction", "0,0,1", "--density", "7.85 g/cm^3"],
            {"axis": (1, 2, 3), "height_direction": (0, 0, 1), "density": "7.85 g/cm^3"},
        ),
        (
            ["--extra-frame", "0.25", "--extra-frame", "500 mm", "--extra-frame", "-0.1"],
            {"extra_frames": (0.25, 0.5, -0.1)},
        ),
    ],
)
def test_box_json_matches_library(capsys, argv, kwargs) -> None:
    assert_matches_body(run_json(capsys, "box", *argv), rp.Box(**kwargs))


@pytest.mark.parametrize(
    ("argv", "kwargs"),
    [
        ([], {}),
        (
            ["--inner-radius-a", "0.39", "--inner-radius-b", "0.09", "--axis", "0,0,1"],
            {"inner_radius_a": 0.39, "inner_radius_b": 0.09, "axis": (0, 0, 1)},
        ),
        (
            ["--radius-b", "0", "--length", "2 ft", "--density", "0.284 lb/in^3"],
            {"radius_b": 0.0, "length": "2 ft", "density": "0.284 lb/in^3"},
        ),
        (["--extra-frame", "0.25", "--extra-frame", "0.75"], {"extra_frames": [0.25, 0.75]}),
        (
            ["--axis", "-1,0,0", "--extra-frame", "-0.5"],
            {"axis": (-1, 0, 0), "extra_frames": [-0.5]},
        ),
        (["--axis", "0 -1 -1"], {"axis": (0, -1, -1)}),
    ],
)
def test_cone_json_matches_library(capsys, argv, kwargs) -> None:
    assert_matches_body(run_json(capsys, "cone", *argv), rp.Cone(**kwargs))


def test_json_content_is_physical(capsys) -> None:
    """Beyond matching the library: the numbers mean what they say."""
    data = run_json(capsys, "cone", "--axis", "0,0,1", "--extra-frame", "0.25", "--radius-b", "0")
    assert data["frames"]["frame_com"]["position"] == pytest.approx([0, 0, 0.25], abs=1e-16)
    assert data["frames"]["frame_c1"]["position"] == [0.0, 0.0, 0.25]
    assert data["frames"]["frame_b"]["position"] == [0.0, 0.0, 1.0]
    inertia = np.array(data["inertia"])
    mass, radius, length = data["mass"], 0.4, 1.0
    assert inertia[2, 2] == pytest.approx(0.3 * mass * radius**2, rel=1e-14)
    assert inertia[0, 0] == pytest.approx(3 / 80 * mass * (4 * radius**2 + length**2), rel=1e-14)
    data = run_json(capsys, "box", "--density", "7.85 g/cm^3")
    assert data["density"] == pytest.approx(7850.0, rel=1e-15) and data["material"] is None


def test_materials(capsys) -> None:
    rows = json.loads(run(capsys, "materials", "--json")[1])
    table = list_materials()
    assert [row["name"] for row in rows] == [m.name for m in table]
    steel = next(row for row in rows if row["name"] == "steel")
    assert steel["density"] == 7860.0 and steel["source"]
    assert {"name", "density", "aliases", "description", "source"} <= set(steel)
    code, out, err = run(capsys, "materials")
    assert code == 0 and err == ""
    assert "steel" in out and "7860" in out


# -- bad input: one line on stderr, exit status 2 ---------------------------------------------


BAD = [
    (["box", "--length", "-1"], "length"),
    (["box", "--width", "abc"], "width"),
    (["box", "--height", "5 kg"], "height"),
    (["box", "--inner-width", "0.2"], "inner_width"),
    (["box", "--inner-width", "0.1", "--inner-height", "0.2"], "inner_width"),
    (["box", "--density", "3 m"], "density"),
    (["box", "--density", "0"], "density"),
    (["box", "--material", "unobtainium"], "material"),
    (["box", "--material", "steel", "--density", "1000"], "density"),
    (["box", "--height-direction", "1,0,0"], "height_direction"),
    (["box", "--extra-frame", "nan"], "extra_frames[0]"),
    (["box", "--extra-frame", "0.1", "--extra-frame", "."], "extra_frames[1]"),
    (["cone", "--radius-a", "nan"], "radius_a"),
    (["cone", "--inner-radius-a", "0.5"], "inner_radius_a"),
    (["cone", "--radius-a", "0", "--radius-b", "0"], "radius_a"),
    (["cone", "--axis", "0,0,0"], "axis"),
    (["cone", "--axis", "0,0"], "--axis"),
    (["cone", "--axis", "a,b,c"], "axis"),
    (["cone", "--length"], "--length"),
    (["cone", "--rotate90"], "--rotate90"),  # a box option only
    (["cone", "--nonsense"], "--nonsense"),
    (["frob"], "frob"),
]


@pytest.mark.parametrize(("argv", "named"), BAD, ids=[" ".join(a) for a, _ in BAD])
def test_bad_input_in_process(capsys, argv, named: str) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ")
    assert named in lines[0]
    assert "Traceback" not in err


def test_no_command_prints_help(capsys) -> None:
    code, out, _ = run(capsys)
    assert code == 2 and "box" in out and "cone" in out


# -- real processes -----------------------------------------------------------------------------

PYTHON = sys.executable
SCRIPT = Path(sys.executable).with_name("rigidparts")


def _process(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)


def test_subprocess_json() -> None:
    argv = ["cone", "--json", "--inner-radius-a", "0.3"]
    done = _process(PYTHON, "-m", "rigidparts.commands", *argv)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert_matches_body(json.loads(done.stdout), rp.Cone(inner_radius_a=0.3))


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["box", "--length", "-1"], "length"),
        (["cone", "--extra-frame", "1/0 m"], "extra_frames[0]"),
    ],
)
def test_subprocess_bad_input(argv, named: str) -> None:
    done = _process(PYTHON, "-m", "rigidparts.commands", *argv)
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.splitlines()) == 1 and done.stderr.startswith("error: ")
    assert named in done.stderr and "Traceback" not in done.stderr


@pytest.mark.skipif(not SCRIPT.exists(), reason="console script not installed")
def test_console_script() -> None:
    done = _process(str(SCRIPT), "box", "--material", "steel", "--density", "1000")
    assert done.returncode == 2
    assert done.stderr.startswith("error: density=") and "Traceback" not in done.stderr
    done = _process(str(SCRIPT), "box", "--json")
    assert done.returncode == 0
    assert_matches_body(json.loads(done.stdout), rp.Box())


# -- options from the registry ------------------------------------------------------------------


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def _options(parser: argparse.ArgumentParser) -> dict[str, tuple[tuple[str, ...], Any]]:
    """dest -> (option strings, default) of every option but --help."""
    return {
        a.dest: (tuple(a.option_strings), a.default)
        for a in parser._actions
        if a.option_strings and a.dest != "help"
    }


def expected_body_options(spec: ShapeSpec) -> dict[str, tuple[tuple[str, ...], Any]]:
    """What the issue asks for: one option per Param with its default (a file, kind "path",
    is a positional argument instead), --axis when the shape has an axis, --rotate90 /
    --height-direction for a cross-section, the material options, --extra-frame when the
    shape takes axial or radial extra frames, --frame for named ones."""
    out: dict[str, tuple[tuple[str, ...], Any]] = {
        p.name: ((p.option or "--" + p.name.replace("_", "-"),), p.default)
        for p in spec.params
        if p.kind != "path" and p.command_line
    }
    if spec.axis:
        out["axis"] = (("--axis",), (1, 0, 0))
    if spec.cross_section:
        out["rotate90"] = (("--rotate90",), False)
        out["height_direction"] = (("--height-direction",), None)
    if spec.mass_only:  # a body given by its mass: no material, no density
        out["mass"] = (("--mass",), spec.options()["mass"])
    else:
        out["material"] = (("--material",), None)  # None: the default material
        out["density"] = (("--density",), None)
        out["mass"] = (("--mass",), None)
    if spec.extra_frames == "named":
        out["frames"] = (("--frame",), None)
    elif spec.extra_frames is not None:
        out["extra_frames"] = (("--extra-frame",), [])
    return out


def report_units_option(spec: ShapeSpec) -> tuple[tuple[str, ...], Any]:
    """The report's units: --report-units, also --units unless the shape's own parameter
    takes that name (a mesh body's unit of its file)."""
    taken = any(p.name == "units" for p in spec.params)
    return (("--report-units",) if taken else ("--report-units", "--units")), None


def example_argv(spec: ShapeSpec, folder: Path) -> tuple[list[str], dict[str, Any]]:
    """Command-line words for the specification's example body and the keywords that build
    the same body: nothing for a default, ``--name value`` for a plain value, the path of a
    file written in ``folder`` for a parameter of kind "path" given as a mesh object."""
    argv: list[str] = []
    kwargs: dict[str, Any] = {}
    for param in spec.params:
        value = spec.example_kwargs()[param.name]
        if value is param.default:
            continue
        if param.kind == "path":
            if not isinstance(value, str | Path):  # a mesh object: written to a file
                path = folder / f"{param.name}.stl"
                value.export(path)  # the example's coordinates are exact in float32
                value = str(path)
            argv.insert(0, str(value))
        else:
            argv += [param.option or "--" + param.name.replace("_", "-"), str(value)]
        kwargs[param.name] = value
    return argv, kwargs


@pytest.mark.parametrize("name", list(SHAPES))
def test_every_shape_has_a_command_with_its_specs_options(name: str, tmp_path: Path) -> None:
    spec = SHAPES[name]
    assert spec.command not in commands.COMMANDS, f"shape {name!r} is named like a command"
    parser = _subcommands(commands.build_parser())[spec.command]
    expected = expected_body_options(spec)
    assert _options(parser) == {
        **expected,
        "json": (("--json",), False),
        "report_units": report_units_option(spec),
        "sensitivities": (("--sensitivities",), False),
    }
    # every keyword of the public class comes from an option or a positional argument (a
    # file), and the example's words build the class's example body
    positional = {a.dest for a in parser._actions if not a.option_strings}
    assert positional == {p.name for p in spec.params if p.kind == "path"}
    library_only = {p.name for p in spec.params if not p.command_line}
    assert set(expected) | positional | library_only == set(spec.signature_defaults())
    argv, kwargs = example_argv(spec, tmp_path)
    args = parser.parse_args(argv)
    body = commands.body_from_args(name, args)
    assert type(body) is body_class(name)
    assert body.to_dict() == body_class(name)(**kwargs).to_dict()
    assert spec.summary in " ".join(parser.description.split())
    helps = " ".join(parser.format_help().split())
    for param in spec.params:
        if not param.command_line:
            continue
        unit = {"length": " m", "angle": " rad"}.get(param.kind, "")
        default = "none" if param.default is None else param.default
        if param.default is None and param.kind == "path":  # required: no default to show
            assert param.help in helps
        else:
            assert f"{param.help}; default {default}{unit}" in helps


@pytest.mark.parametrize("name", [n for n, spec in SHAPES.items() if spec.mesh is not None])
def test_mesh_and_view_take_the_same_body_options(name: str) -> None:
    top = _subcommands(commands.build_parser())
    command = SHAPES[name].command
    expected = expected_body_options(SHAPES[name])
    mesh = _options(_subcommands(top["mesh"])[command])
    assert {k: mesh[k] for k in expected} == expected
    assert set(mesh) - set(expected) == {"output", "sections", "force"}
    view_args = top["view"].parse_args([command, "-o", "x.png"])
    stage_two, shape = commands.view._target_parser(view_args)
    assert shape == name
    view = _options(stage_two)
    assert {k: view[k] for k in expected} == expected


def test_mass_gives_the_mass_exactly(capsys) -> None:
    data = run_json(capsys, "box", "--mass", "2")
    assert data["mass"] == 2.0
    assert data["density"] == 2 / data["volume"]
    assert data["material"] is None and data["parameters"]["mass"] == 2.0
    assert_matches_body(data, rp.Box(mass=2.0))
    with_units = run_json(capsys, "box", "--mass", "2 kg")
    assert with_units["mass"] == 2.0 and with_units == data
    grams = run_json(capsys, "cone", "--mass", "2500 g", "--axis", "0,0,1")
    assert grams["mass"] == 2.5
    assert_matches_body(grams, rp.Cone(mass="2.5 kg", axis=(0, 0, 1)))


@pytest.mark.parametrize("name", list(SHAPES))
def test_every_shape_takes_a_mass(capsys, name: str, tmp_path: Path) -> None:
    argv, kwargs = example_argv(SHAPES[name], tmp_path)
    data = run_json(capsys, SHAPES[name].command, *argv, "--mass", "2 kg")
    if SHAPES[name].mass_only:
        assert data["density"] is None and data["volume"] is None
    else:
        assert data["density"] == 2 / data["volume"]
    assert data["mass"] == 2.0
    assert_matches_body(data, body_class(name)(mass=2.0, **kwargs))


def test_table_names_the_source_of_the_density(capsys) -> None:
    code, out, err = run(capsys, "box", "--mass", "2")
    assert code == 0 and err == ""
    assert "(given mass)" in out and "2 kg" in out
    code, out, err = run(capsys, "cone", "--density", "1000")
    assert code == 0 and "(given density)" in out and "1000 kg/m^3" in out


MATERIAL_CLASHES = [
    (["box", "--mass", "2", "--density", "3"], ("mass", "density")),
    (["box", "--material", "steel", "--mass", "2"], ("material", "mass")),
    (["cone", "--material", "steel", "--density", "1000"], ("material", "density")),
    (["cone", "--material", "steel", "--density", "1000", "--mass", "1"], ("material", "density")),
    (["box", "--mass", "-1"], ("mass",)),
    (["box", "--mass", "0"], ("mass",)),
    (["box", "--mass", "2 m"], ("mass",)),
    (["cone", "--mass", "nan"], ("mass",)),
    (["cone", "--mass", "inf kg"], ("mass",)),
]


@pytest.mark.parametrize(
    ("argv", "named"), MATERIAL_CLASHES, ids=[" ".join(a) for a, _ in MATERIAL_CLASHES]
)
def test_one_of_material_density_mass(capsys, argv, named) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    for name in named:
        assert f"{name}=" in lines[0]
    assert "Traceback" not in err


# -- kinds of dimensions and radial frames, on a specification made here ----------------------

WHEEL = ShapeSpec(
    name="test_wheel",
    summary="a wheel made up for this test",
    params=(
        Param("radius", 1.0, "outer radius (m)"),
        Param("spokes", 6, "number of spokes", "count"),
        Param("twist", 0.0, "twist of the spokes (rad)", "angle"),
    ),
    rules=(),
    check=lambda *dimensions: 0,
    closed_form=lambda *arguments: (1.0, 1.0, 0.0, 1.0, 1.0, 1.0),
    end_frame=None,
    extra_frames="radial",
)


def test_options_follow_the_kinds_of_a_spec() -> None:
    parser = Parser(prog="test")
    add_body_options(parser, WHEEL)
    assert _options(parser) == expected_body_options(WHEEL)
    args = parser.parse_args(
        [
            *("--spokes", "8", "--twist", "10 deg"),
            *("--extra-frame", "0.2,30deg", "--extra-frame", "0.2 m, 30 deg"),
        ]
    )
    assert args.spokes == 8 and args.twist == "10 deg" and args.radius == 1.0
    assert args.extra_frames == [("0.2", "30deg"), ("0.2 m", "30 deg")]
    helps = " ".join(parser.format_help().split())
    assert (
        "number of spokes; default 6" in helps
        and "twist of the spokes (rad); default 0.0 rad" in helps
    )
    assert "R,ANGLE" in helps and "--rotate90" not in helps
    for bad, named in (
        (["--extra-frame", "0.2"], "--extra-frame"),
        (["--extra-frame", "0.2,30deg,1"], "--extra-frame"),
        (["--spokes", "six"], "--spokes"),
        (["--rotate90"], "--rotate90"),
    ):
        with pytest.raises(UsageError, match=named):
            parser.parse_args(bad)


@pytest.mark.parametrize(
    ("text", "pair"),
    [
        ("0.2,30deg", ("0.2", "30deg")),
        ("0.2, 30 deg", ("0.2", "30 deg")),
        (" 200 mm , 0.5 ", ("200 mm", "0.5")),
    ],
)
def test_radial_frame_pairs(text: str, pair: tuple[str, str]) -> None:
    assert radial_frame(text) == pair


@pytest.mark.parametrize("text", ["0.2", "0.2,", ",30deg", "1,2,3", ""])
def test_radial_frame_refuses(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="RADIUS,ANGLE"):
        radial_frame(text)


class _TurnedFrameBox(rp.Box):
    """A box with a frame turned 90 degrees about x (as a radial frame is)."""

    @property
    def frames(self):  # type: ignore[override]
        turn = [[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]]
        return {**super().frames, "frame_c1": Frame([0.0, 0.2, 0.0], turn)}


def test_table_shows_rotations_that_are_not_identity() -> None:
    text = format_table(_TurnedFrameBox())
    lines = text.splitlines()
    assert lines[0] == "_TurnedFrameBox"
    assert "rotation relative to frame_a where not identity" in text
    index = next(i for i, line in enumerate(lines) if line.strip().startswith("frame_c1"))
    assert "rotation" in lines[index + 1]
    assert [float(v) for v in lines[index + 1].split("[")[1].rstrip("]").split(",")] == [1, 0, 0]
    assert [float(v) for v in lines[index + 3].split("[")[1].rstrip("]").split(",")] == [0, 1, 0]
    assert "rotation" not in format_table(rp.Box())


# -- nothing in rigidparts.commands names a shape ------------------------------------------------

COMMAND_SOURCES = sorted(Path(commands.__file__).parent.glob("*.py"))


@pytest.mark.parametrize("path", COMMAND_SOURCES, ids=[p.name for p in COMMAND_SOURCES])
def test_no_command_module_names_a_shape(path: Path) -> None:
    literals = {
        node.value
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }
    # A command's own name is not a shape's, even if a shape were to share it (the test
    # above fails for such a shape).
    found = sorted(literals & (set(SHAPES) - set(commands.COMMANDS)))
    assert not found, f"{path.name} names the shape(s) {found}: read the registry instead"


# -- start-up: nothing heavy for a body ---------------------------------------------------------

HEAVY = ("matplotlib", "trimesh", "mujoco", "numba", "scipy", "pint", "shapely", "dask")


@pytest.mark.parametrize(
    ("argv", "allowed"),
    [
        (["box", "--json"], ()),
        (["cone", "--axis", "0,0,1", "--extra-frame", "0.5"], ()),
        (["materials", "--json"], ()),
        # pint itself imports scipy and dask when present (its compat module)
        (["box", "--length", "250 mm", "--json"], ("pint", "scipy", "dask")),
    ],
)
def test_body_commands_import_nothing_heavy(argv: list[str], allowed: tuple[str, ...]) -> None:
    code = textwrap.dedent(
        f"""
        import contextlib, io, sys
        from rigidparts.commands import main
        with contextlib.redirect_stdout(io.StringIO()):
            assert main({argv!r}) == 0
        heavy = [m for m in {HEAVY!r} if m in sys.modules and m not in {allowed!r}]
        assert not heavy, heavy
        """
    )
    done = _process(PYTHON, "-c", code)
    assert done.returncode == 0, done.stderr


# -- --version, --units, inertia about frame_a (issue 14, item 15) ------------------------------


def test_version(capsys) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.strip() == f"rigidparts {rp.__version__}"
    done = _process(PYTHON, "-m", "rigidparts.commands", "--version")
    assert done.returncode == 0 and done.stdout.strip() == f"rigidparts {rp.__version__}"


#: kg -> g, lb (the international pound, exactly 0.45359237 kg); m -> mm, in (0.0254 m).
GRAM, POUND, MM, INCH = 1e3, 1 / 0.45359237, 1e3, 1 / 0.0254


@pytest.mark.parametrize(
    ("units", "mass", "length", "names"),
    [
        ("mm,g", GRAM, MM, ("mm", "g")),
        ("mm kg", 1.0, MM, ("mm", "kg")),
        ("g, mm", GRAM, MM, ("mm", "g")),
        ("in,lb", POUND, INCH, ("in", "lb")),
        ("g", GRAM, 1.0, ("m", "g")),
        ("SI", 1.0, 1.0, ("m", "kg")),
    ],
)
def test_units_json(capsys, units, mass, length, names) -> None:
    """Every result in the chosen units: against the SI JSON times the exact factors."""
    argv = ["cone", "--inner-radius-a", "0.3", "--axis", "0,0,1", "--extra-frame", "0.25"]
    si = run_json(capsys, *argv)
    data = run_json(capsys, *argv, "--units", units)
    length_unit, mass_unit = names
    assert data["units"] == {
        "length": length_unit,
        "mass": mass_unit,
        "volume": f"{length_unit}^3",
        "density": f"{mass_unit}/{length_unit}^3",
        "inertia": f"{mass_unit} {length_unit}^2",
    }
    rel = 4e-16
    assert data["mass"] == pytest.approx(si["mass"] * mass, rel=rel)
    assert data["volume"] == pytest.approx(si["volume"] * length**3, rel=rel)
    assert data["density"] == pytest.approx(si["density"] * mass / length**3, rel=rel)
    np.testing.assert_allclose(
        data["center_of_mass"], np.array(si["center_of_mass"]) * length, rtol=rel
    )
    inertia = mass * length**2
    for key in ("inertia", "principal_moments", "inertia_about_frame_a"):
        np.testing.assert_allclose(data[key], np.array(si[key]) * inertia, rtol=rel, atol=0)
    assert data["principal_axes"] == si["principal_axes"]
    assert data["frames"]["frame_c1"]["position"] == pytest.approx([0, 0, 0.25 * length], rel=rel)
    assert data["parameters"]["length"] == pytest.approx(
        si["parameters"]["length"] * length, rel=rel
    )
    assert data["parameters"]["extra_frames"] == pytest.approx([0.25 * length], rel=rel)
    assert data["parameters"]["axis"] == si["parameters"]["axis"]  # a direction: no unit


def test_units_default_json_is_si(capsys) -> None:
    data = run_json(capsys, "box")
    assert data["units"] == {
        "length": "m",
        "mass": "kg",
        "volume": "m^3",
        "density": "kg/m^3",
        "inertia": "kg m^2",
    }
    assert_matches_body(data, rp.Box())


def test_inertia_about_frame_a(capsys) -> None:
    """The solid box about its end (frame_a at the centre of the end face): the textbook
    m (L^2/3 + w^2/12) about the transverse axes, m (w^2 + h^2)/12 about the axis."""
    data = run_json(capsys, "box", "--length", "2", "--width", "0.3", "--height", "0.4")
    m, length, width, height = data["mass"], 2.0, 0.3, 0.4
    about = np.array(data["inertia_about_frame_a"])
    expected = np.diag(
        [
            m * (width**2 + height**2) / 12,
            m * (length**2 / 3 + width**2 / 12),
            m * (length**2 / 3 + height**2 / 12),
        ]
    )
    np.testing.assert_allclose(about, expected, rtol=1e-14, atol=0)
    code, out, _ = run(capsys, "box", "--length", "2", "--width", "0.3", "--height", "0.4")
    assert code == 0
    assert "inertia about frame_a (its origin), frame_a axes (kg m^2):" in out
    assert f"{expected[1, 1]:13.6g}".strip() in out


def test_units_table(capsys) -> None:
    code, out, err = run(capsys, "box", "--units", "mm,g")
    assert code == 0 and err == ""
    body = rp.Box()
    assert f"mass              {body.mass * 1000:.9g} g" in out
    assert "length = 1000 mm" in out and "g mm^2" in out and "mm^3" in out
    assert "frames (position in frame_a, mm;" in out and "kg" not in out


@pytest.mark.parametrize("units", ["mm,cm", "furlong-ish", "s", "kg,g", ""])
def test_bad_units(capsys, units: str) -> None:
    code, out, err = run(capsys, "box", "--units", units)
    assert code == 2 and out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "--units" in lines[0]


def test_report_in_python() -> None:
    from rigidparts.report import parse_units, report

    cone = rp.Cone(inner_radius_a=0.1)
    data = report(cone, units="in,lb")
    assert data["mass"] == pytest.approx(cone.mass * POUND, rel=4e-16)
    np.testing.assert_allclose(data["inertia"], cone.inertia * POUND * INCH**2, rtol=4e-16)
    assert data["units"]["inertia"] == "lb in^2"
    props = report(cone.mass_properties, "mm,kg")
    assert set(props) == {
        "mass",
        "center_of_mass",
        "inertia",
        "principal_moments",
        "principal_axes",
        "inertia_about_frame_a",
        "units",
    }
    assert props["mass"] == cone.mass
    np.testing.assert_allclose(props["inertia"], cone.inertia * 1e6, rtol=4e-16)
    assert parse_units(None) == parse_units("SI") == parse_units("m kg")
    with pytest.raises(rp.ParameterError, match="units="):
        report(cone, "lightyears,s")


def test_export_and_view_reports_take_units(capsys, tmp_path) -> None:
    model = Path(__file__).resolve().parents[1] / "examples" / "pendulum.toml"
    total = sum(b.mass for b in rp.load_model(model).bodies.values())
    code, out, err = run(
        capsys, "export", str(model), "-o", str(tmp_path / "p.urdf"), "--units", "g"
    )
    assert code == 0, err
    assert f"total mass {total * 1000:.9g} g" in out
    code, out, err = run(
        capsys, "view", "box", "-o", str(tmp_path / "b.png"), "--size", "200x150", "--units", "mm,g"
    )
    assert code == 0, err
    assert f"mass {rp.Box().mass * 1000:.9g} g, centre of mass [500, 0, 0] mm" in out


# -- a core-only install (issue 14, item 8) -----------------------------------------------------

#: Hides the extras as if they were not installed (the import system finds nothing).
_CORE_ONLY = textwrap.dedent(
    """
    import sys
    BLOCKED = {"trimesh", "shapely", "mapbox_earcut", "matplotlib", "imageio",
               "imageio_ffmpeg", "tqdm", "mujoco", "numba", "dask"}

    class Hide:
        def __init__(self, inner):
            self.inner = inner
        def find_spec(self, name, path=None, target=None):
            if name.partition(".")[0] in BLOCKED:
                return None
            find = getattr(self.inner, "find_spec", None)
            return find(name, path, target) if find else None
        def __getattr__(self, attribute):
            return getattr(self.inner, attribute)

    sys.meta_path[:] = [Hide(finder) for finder in sys.meta_path]
    from rigidparts.commands import main
    sys.exit(main(sys.argv[1:]))
    """
)

PRIMITIVES_MODEL = """\
[bodies.a]
shape = "box"
[bodies.b]
shape = "cylinder"
[bodies.c]
shape = "ball"
radius = 0.1
[[joints]]
name = "j1"
type = "revolute"
parent = "world"
child = "a.frame_a"
axis = [0, 1, 0]
[[joints]]
name = "j2"
type = "revolute"
parent = "a.frame_b"
child = "b.frame_a"
axis = [0, 1, 0]
[[joints]]
name = "j3"
type = "fixed"
parent = "b.frame_b"
child = "c.frame_a"
"""


def _core_only(*argv: str) -> subprocess.CompletedProcess:
    return _process(PYTHON, "-c", _CORE_ONLY, *argv)


@pytest.mark.parametrize(
    ("argv", "extra"),
    [
        (["mesh", "box", "-o", "{tmp}/b.stl"], "mesh"),
        (["view", "box", "-o", "{tmp}/b.png"], "viz"),
        (["view", "{pendulum}", "-o", "{tmp}/p.png"], "viz"),
        (["export", "{pendulum}", "-o", "{tmp}/p.urdf"], "mesh"),
        (["simulate", "{pendulum}", "--duration", "0.01"], "sim"),
    ],
)
def test_core_only_install_says_which_extra(tmp_path, argv, extra) -> None:
    pendulum = Path(__file__).resolve().parents[1] / "examples" / "pendulum.toml"
    done = _core_only(*[a.format(tmp=tmp_path, pendulum=pendulum) for a in argv])
    assert done.returncode == 2, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    assert f"pip install 'rigidparts[{extra}]'" in lines[0]
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("suffix", [".urdf", ".xml", ".sdf"])
def test_core_only_install_exports_primitives(tmp_path, suffix: str) -> None:
    """A model of solid boxes, cylinders and balls needs no mesh library: the same file as
    with every extra installed."""
    model = tmp_path / "prims.toml"
    model.write_text(PRIMITIVES_MODEL, encoding="utf-8")
    done = _core_only("export", str(model), "-o", str(tmp_path / "core" / f"robot{suffix}"))
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    rp.export_model(rp.load_model(model), tmp_path / "full" / f"robot{suffix}")
    core = (tmp_path / "core" / f"robot{suffix}").read_bytes()
    assert core == (tmp_path / "full" / f"robot{suffix}").read_bytes()
    assert not (tmp_path / "core" / "robot_meshes").exists()


# -- bodies from files: rigidparts meshbody FILE --units mm ------------------------------------

#: A 10 x 20 x 30 cuboid with a corner at the origin (file units) and its outward triangles.
CUBOID_VERTICES = [(x, y, z) for z in (0, 30) for y in (0, 20) for x in (0, 10)]
CUBOID_FACES = [(0, 2, 3), (0, 3, 1), (4, 5, 7), (4, 7, 6), (0, 1, 5), (0, 5, 4),
                (1, 3, 7), (1, 7, 5), (3, 2, 6), (3, 6, 7), (2, 0, 4), (2, 4, 6)]  # fmt: skip


def write_stl(path: Path, vertices, faces) -> str:
    """An ASCII STL file of the triangles (written here: no mesh library involved)."""
    lines = ["solid test"]
    for face in faces:
        lines += [" facet normal 0 0 0", "  outer loop"]
        lines += ["   vertex " + " ".join(f"{c:.17g}" for c in vertices[i]) for i in face]
        lines += ["  endloop", " endfacet"]
    path.write_text("\n".join([*lines, "endsolid test", ""]), encoding="ascii")
    return str(path)


def mesh_body_command() -> str:
    """The command of the shape that takes a file (by kind, not by name)."""
    return next(s.command for s in SHAPES.values() if any(p.kind == "path" for p in s.params))


def test_a_body_from_a_file_takes_the_file_first_and_its_own_units(capsys, tmp_path) -> None:
    path = write_stl(tmp_path / "cuboid.stl", CUBOID_VERTICES, CUBOID_FACES)
    command = mesh_body_command()
    data = run_json(capsys, command, path, "--units", "mm", "--material", "aluminium")
    # independent: a 10 x 20 x 30 mm cuboid of aluminium (2700 kg/m^3), corner at frame_a
    assert data["volume"] == pytest.approx(6e-6, rel=1e-15)
    assert data["mass"] == pytest.approx(2700 * 6e-6, rel=1e-15)
    np.testing.assert_allclose(data["center_of_mass"], [0.005, 0.01, 0.015], rtol=1e-15)
    m = data["mass"]
    expected = np.diag([m * (0.02**2 + 0.03**2), m * (0.01**2 + 0.03**2),
                        m * (0.01**2 + 0.02**2)]) / 12  # fmt: skip
    np.testing.assert_allclose(data["inertia"], expected, rtol=1e-14, atol=1e-25)
    assert_matches_body(data, rp.MeshBody(mesh=path, units="mm", material="aluminium"))
    # --units is the file's unit here; the report's units are --report-units
    in_mm = run_json(capsys, command, path, "--units", "mm", "--report-units", "mm,g")
    assert in_mm["volume"] == pytest.approx(6000.0, rel=1e-15)
    assert in_mm["units"]["length"] == "mm"
    np.testing.assert_allclose(in_mm["center_of_mass"], [5, 10, 15], rtol=1e-15)
    # the same file in metres is a body 1000 times larger, and a warning (not an error)
    code, out, err = run(capsys, command, path, "--units", "m", "--json")
    assert code == 0 and json.loads(out)["volume"] == pytest.approx(6000.0, rel=1e-15)
    assert err == ""  # 30 m across: plausible
    big = write_stl(tmp_path / "big.stl", [tuple(10 * c for c in v) for v in CUBOID_VERTICES],
                    CUBOID_FACES)  # fmt: skip
    code, out, err = run(capsys, command, big, "--units", "m", "--json")
    assert code == 0 and json.loads(out)["volume"] == pytest.approx(6e6, rel=1e-15)
    (line,) = err.splitlines()
    assert line.startswith("warning: ") and big in line and "300 m across" in line
    assert "millimetres given as metres; check --units" in line
    code, out, err = run(capsys, command, big, "--units", "mm")
    assert code == 0 and err == ""


def test_report_units_is_also_spelt_units_where_the_shape_leaves_it_free(capsys) -> None:
    for name, spec in SHAPES.items():
        if any(p.kind == "path" for p in spec.params):
            continue
        assert run_json(capsys, spec.command, "--report-units", "mm,g") == run_json(
            capsys, spec.command, "--units", "mm,g"
        ), name


def test_named_frames_on_the_command_line(capsys, tmp_path) -> None:
    path = write_stl(tmp_path / "cuboid.stl", CUBOID_VERTICES, CUBOID_FACES)
    command = mesh_body_command()
    data = run_json(capsys, command, path, "--units", "mm", "--frame", "mount=0.01,0,0.03",
                    "--frame", "tip=5 mm, 20mm, -1 cm")  # fmt: skip
    assert list(data["frames"]) == ["frame_a", "frame_com", "mount", "tip"]
    assert data["frames"]["mount"]["position"] == [0.01, 0.0, 0.03]
    np.testing.assert_allclose(data["frames"]["tip"]["position"], [0.005, 0.02, -0.01],
                               rtol=1e-15)  # fmt: skip
    frames = {"mount": (0.01, 0, 0.03), "tip": ("5 mm", "20 mm", "-1 cm")}
    body = rp.MeshBody(mesh=path, units="mm", frames=frames)
    assert_matches_body(data, body)
    for bad, words in [
        (["--frame", "mount=1,2"], ["--frame", "NAME=X,Y,Z"]),
        (["--frame", "=1,2,3"], ["--frame", "NAME=X,Y,Z"]),
        (["--frame", "a=1,2,3", "--frame", "a=0,0,0"], ["'a'", "twice"]),
        (["--frame", "a=1,2,3 kg"], ["frames.a.position"]),
    ]:
        code, out, err = run(capsys, command, path, "--units", "mm", *bad)
        assert code == 2 and out == "", bad
        (line,) = err.splitlines()
        assert line.startswith("error: ") and all(w in line for w in words), line


FLAT_VERTICES = [(0, 0, 0), (10, 0, 0), (0, 10, 0), (10, 10, 0)]  # four points in one plane
BAD_FILES = {
    "open": (CUBOID_VERTICES, CUBOID_FACES[:-1], "not a closed surface"),
    # (an inward-facing file is flipped and reported now: tests/test_mesh_wild.py)
    "inconsistent": (
        CUBOID_VERTICES,
        [f[::-1] if i == 0 else f for i, f in enumerate(CUBOID_FACES)],
        "inconsistently wound",
    ),
    "degenerate": (FLAT_VERTICES, [(0, 2, 1), (0, 1, 3), (1, 2, 3), (0, 3, 2)], "volume"),
    "unreadable": (None, None, ("cannot be read as STL", "holds no triangles")),
}


@pytest.mark.parametrize("defect", list(BAD_FILES))
def test_a_bad_file_is_one_error_line_naming_file_and_defect(
    capsys, tmp_path, monkeypatch, defect
) -> None:
    vertices, faces, words = BAD_FILES[defect]
    words = (words,) if isinstance(words, str) else words
    monkeypatch.chdir(tmp_path)  # a short path: error lines cut values beyond 80 characters
    path = Path(f"{defect}.stl")
    if vertices is None:
        path.write_bytes(b"\x00\x01 not a mesh \xff" * 9)
    else:
        write_stl(path, vertices, faces)
    for argv in (
        [mesh_body_command(), str(path), "--units", "mm", "--json"],
        ["view", mesh_body_command(), str(path), "--units", "mm", "-o", "v.png"],
    ):
        code, out, err = run(capsys, *argv)
        assert code == 2 and out == "", argv
        (line,) = err.splitlines()
        assert line.startswith(f"error: mesh='{path}'"), line
        assert any(w in line for w in words), line
        assert "Traceback" not in err
    assert not (tmp_path / "v.png").exists()


def test_a_missing_file_or_unit_is_one_error_line(capsys, tmp_path, monkeypatch) -> None:
    command = mesh_body_command()
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, command, "none.stl", "--units", "mm")
    assert code == 2 and err.startswith("error: mesh=") and "none.stl" in err
    path = write_stl(tmp_path / "cuboid.stl", CUBOID_VERTICES, CUBOID_FACES)
    code, out, err = run(capsys, command, path)
    assert code == 2 and out == "" and err.startswith("error: units=") and "STL" in err
    code, _, err = run(capsys, command, "--units", "mm")
    assert code == 2 and err.startswith("error: ") and "FILE" in err


def test_a_truncated_stl_is_one_error_line(capsys, tmp_path) -> None:
    """The cuboid's 12 triangles as a binary STL (80-byte header, uint32 count, 50 bytes a
    triangle, written here), its last triangle cut off."""
    import struct

    triangles = b"".join(
        struct.pack("<12fH", 0, 0, 0, *(c for i in face for c in CUBOID_VERTICES[i]), 0)
        for face in CUBOID_FACES
    )
    whole = tmp_path / "whole.stl"
    whole.write_bytes(b"binary".ljust(80) + struct.pack("<I", 12) + triangles)
    assert run_json(capsys, mesh_body_command(), str(whole), "--units", "mm")["volume"] == (
        pytest.approx(6e-6, rel=1e-15)
    )
    cut = tmp_path / "cut.stl"
    cut.write_bytes(whole.read_bytes()[:-50])
    code, out, err = run(capsys, mesh_body_command(), str(cut), "--units", "mm")
    assert code == 2 and out == ""
    # (a long path is shortened in the line: its name is kept)
    assert err.startswith("error: mesh='") and err.count("\n") == 1
    assert err.endswith("cut.stl': is truncated: its header says 12 triangles, the file holds 11\n")


def test_the_help_of_a_file_body_states_each_default_once_and_truly(capsys, tmp_path) -> None:
    """The mesh body's --weld and --hull name one default each, and it is what leaving them
    out does: --weld's is the library's tolerance (1e-9), and --hull's is one of the values
    its help names."""
    import re

    from rigidparts.shapes._mesh_repair import DEFAULT_WELD

    command = mesh_body_command()
    parser = _subcommands(commands.build_parser())[command]
    path = write_stl(tmp_path / "cuboid.stl", CUBOID_VERTICES, CUBOID_FACES)
    plain = run_json(capsys, command, path, "--units", "mm")
    helps = {a.dest: " ".join(a.help.split()) for a in parser._actions if a.help}
    values = {}
    for name in ("weld", "hull"):
        (shown,) = re.findall(r"default (\S+)", helps[name])
        values[name] = shown
    assert float(values["weld"]) == DEFAULT_WELD == 1e-9
    words = re.search(r"\(([a-z]+/[a-z]+(?:, [a-z]+/[a-z]+)*)\)", helps["hull"]).group(1)
    assert values["hull"].lower() in re.split(r"[/, ]+", words)
    for name, value in values.items():
        given = run_json(capsys, command, path, "--units", "mm", f"--{name}", value)
        assert given["mass"] == plain["mass"] and given["inertia"] == plain["inertia"]
        assert given["mesh_report"] == plain["mesh_report"]


def test_the_top_level_example_of_a_file_body_runs(capsys, tmp_path, monkeypatch) -> None:
    """``rigidparts --help``'s example of the body from a file runs (it once gave --weld and
    --hull the unit, mm)."""
    code, out, _ = run(capsys)
    command = mesh_body_command()
    (line,) = [x.strip() for x in out.splitlines() if x.strip().startswith(f"rigidparts {command}")]
    monkeypatch.chdir(tmp_path)
    write_stl(tmp_path / "part.stl", CUBOID_VERTICES, CUBOID_FACES)
    argv = line.split()[1:]
    assert "part.stl" in argv
    code, out, err = run(capsys, *argv)
    assert code == 0 and err == "", err


def test_mesh_and_view_of_a_body_from_a_file(capsys, tmp_path) -> None:
    trimesh = pytest.importorskip("trimesh")
    pytest.importorskip("matplotlib")
    path = write_stl(tmp_path / "cuboid.stl", CUBOID_VERTICES, CUBOID_FACES)
    command = mesh_body_command()
    out_obj = tmp_path / "out.obj"
    code, out, err = run(capsys, "mesh", command, path, "--units", "mm", "-o", str(out_obj))
    assert code == 0 and err == "" and out.startswith(f"wrote {out_obj}: 12 triangles")
    written = trimesh.load(out_obj, force="mesh", process=False)
    # the file's own surface, in metres
    assert sorted(map(tuple, np.round(written.vertices * 1000, 9))) == sorted(CUBOID_VERTICES)
    assert written.volume == pytest.approx(6e-6, rel=1e-12)
    picture = tmp_path / "cuboid.png"
    code, out, err = run(capsys, "view", command, path, "--units", "mm", "-o", str(picture),
                         "--size", "200x150", "--report-units", "mm,g")  # fmt: skip
    assert code == 0 and err == "" and picture.stat().st_size > 0
    assert "centre of mass [5, 10, 15] mm" in out


def test_a_reader_that_leaves_early_is_no_error() -> None:
    """``rigidparts box --json | head -1``: the closed pipe ends the command quietly (status
    0, nothing on stderr). The reader's end is closed before the command writes, so every
    write meets the broken pipe."""
    import os
    import subprocess
    import sys

    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "rigidparts.commands", "box", "--json"],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
        )
    finally:
        os.close(write_end)
    assert done.stderr == ""
    assert done.returncode == 0
