"""The command line: ``rigidparts box|cone|materials`` in-process (main(argv) with capsys) and
in real subprocesses (exit status, stderr, no traceback)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import rigidparts as rp
from rigidparts.cli import main
from rigidparts.materials import list_materials

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
    done = _process(PYTHON, "-m", "rigidparts.cli", "cone", "--json", "--inner-radius-a", "0.3")
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
    done = _process(PYTHON, "-m", "rigidparts.cli", *argv)
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
