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
    """What the issue asks for: one option per Param with its default, --axis when the shape
    has an axis, --rotate90 / --height-direction for a cross-section, the material options,
    --extra-frame when the shape takes extra frames."""
    out: dict[str, tuple[tuple[str, ...], Any]] = {
        p.name: (("--" + p.name.replace("_", "-"),), p.default) for p in spec.params
    }
    if spec.axis:
        out["axis"] = (("--axis",), (1, 0, 0))
    if spec.cross_section:
        out["rotate90"] = (("--rotate90",), False)
        out["height_direction"] = (("--height-direction",), None)
    out["material"] = (("--material",), None)  # None: the default material
    out["density"] = (("--density",), None)
    out["mass"] = (("--mass",), None)
    if spec.extra_frames is not None:
        out["extra_frames"] = (("--extra-frame",), [])
    return out


@pytest.mark.parametrize("name", list(SHAPES))
def test_every_shape_has_a_command_with_its_specs_options(name: str) -> None:
    spec = SHAPES[name]
    assert name not in commands.COMMANDS, f"shape {name!r} is named like a command"
    parser = _subcommands(commands.build_parser())[name]
    expected = expected_body_options(spec)
    assert _options(parser) == {**expected, "json": (("--json",), False)}
    # every keyword of the public class comes from an option, and the defaults build the
    # class's default body
    assert set(expected) == set(spec.signature_defaults())
    args = parser.parse_args([])
    body = commands.body_from_args(name, args)
    assert type(body) is body_class(name)
    assert body.to_dict() == body_class(name)().to_dict()
    assert spec.summary in " ".join(parser.description.split())
    helps = " ".join(parser.format_help().split())
    for param in spec.params:
        unit = {"length": " m", "angle": " rad"}.get(param.kind, "")
        assert f"{param.help}; default {param.default}{unit}" in helps


@pytest.mark.parametrize("name", [n for n, spec in SHAPES.items() if spec.mesh is not None])
def test_mesh_and_view_take_the_same_body_options(name: str) -> None:
    top = _subcommands(commands.build_parser())
    expected = expected_body_options(SHAPES[name])
    mesh = _options(_subcommands(top["mesh"])[name])
    assert {k: mesh[k] for k in expected} == expected
    assert set(mesh) - set(expected) == {"output", "sections"}
    view_args = top["view"].parse_args([name, "-o", "x.png"])
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
def test_every_shape_takes_a_mass(capsys, name: str) -> None:
    data = run_json(capsys, name, "--mass", "2 kg")
    assert data["mass"] == 2.0 and data["density"] == 2 / data["volume"]
    assert_matches_body(data, body_class(name)(mass=2.0))


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
