"""The model file: every key, units, the shipped examples, and errors that name the file, the
line and the item (and exit 2 with one ``error:`` line on the command line)."""

from __future__ import annotations

import math
import textwrap
import tomllib
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rigidparts as rp
from rigidparts.commands import main
from rigidparts.model import Model, load_model
from rigidparts.model.toml_format import model_from_dict

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

ISSUE_EXAMPLE = """\
name = "pendulum"
gravity = [0, 0, -9.81]

[bodies.arm]
shape = "box"
length = "1 m"
width = 0.02
height = 0.02
axis = [0, 0, -1]
material = "aluminium"

[bodies.bob]
shape = "cone"
length = 0.1
radius_a = 0.05
radius_b = 0.02
material = "steel"

[[joints]]
name = "hinge"
type = "revolute"
parent = "world"
child = "arm.frame_a"
axis = [0, 1, 0]
position = [0, 0, 1.5]
initial = 0.01

[[joints]]
name = "weld"
type = "fixed"
parent = "arm.frame_b"
child = "bob.frame_a"
"""


def write(tmp_path: Path, text: str, name: str = "model.toml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_the_issue_example_equals_the_same_model_built_in_python(tmp_path):
    model = load_model(write(tmp_path, ISSUE_EXAMPLE))
    assert model.name == "pendulum"
    expected = Model("pendulum")
    expected.add_body(
        "arm", rp.Box(length=1.0, width=0.02, height=0.02, axis=(0, 0, -1), material="aluminium")
    )
    expected.add_body("bob", rp.Cone(length=0.1, radius_a=0.05, radius_b=0.02))
    expected.add_joint(
        "hinge", "revolute", "world", "arm.frame_a", axis=(0, 1, 0), position=(0, 0, 1.5),
        initial=0.01,
    )  # fmt: skip
    expected.add_joint("weld", "fixed", "arm.frame_b", "bob.frame_a")
    for name, body in expected.bodies.items():
        assert model.bodies[name].mass_properties.isclose(body.mass_properties, rtol=0)
    assert model.mass_properties().isclose(expected.mass_properties(), rtol=0)
    assert load_model(tmp_path / "model.toml").joints["hinge"].initial[0] == 0.01


def test_every_joint_key_with_units(tmp_path):
    path = write(
        tmp_path,
        """\
        gravity = [0, 0, "-1.62"]
        [simulation]
        duration = "2 min"
        timestep = "0.5 ms"
        integrator = "implicitfast"
        [bodies.base]
        shape = "box"
        length = "250 mm"
        axis = [0, 0, 1]
        rotate90 = true
        density = "2.7 g/cm^3"
        extra_frames = ["100 mm", 0.2]
        [bodies.slider]
        shape = "cone"
        length = 0.1
        radius_a = 0.02
        radius_b = 0.02
        inner_radius_a = "10 mm"
        inner_radius_b = "10 mm"
        [[joints]]
        name = "turn"
        type = "revolute"
        parent = "world"
        child = "base.frame_a"
        axis = [0, 0, 2]
        position = ["1 cm", 0, "2 m"]
        rpy = [0, 0, "90 deg"]
        initial = "10 deg"
        initial_velocity = 0.5
        limits = ["-90 deg", "1 rad"]
        damping = 0.25
        [[joints]]
        name = "rail"
        type = "prismatic"
        parent = "base.frame_c2"
        child = "slider.frame_com"
        axis = [1, 0, 0]
        rotation = [[0, -1, 0],
                    [1, 0, 0],
                    [0, 0, 1]]
        initial = "5 mm"
        limits = [-0.1, "10 cm"]
        """,
        name="every_key.toml",
    )
    model = load_model(path)
    assert model.name == "every_key"  # the file's stem
    assert model.gravity.tolist() == [0, 0, -1.62]
    assert (model.simulation.duration, model.simulation.timestep) == (120.0, 0.0005)
    assert model.simulation.integrator == "implicitfast"
    base = model.bodies["base"]
    assert base.density == pytest.approx(2700.0, rel=1e-15) and base.rotate90
    assert base.extra_frames == (0.1, 0.2)
    turn, rail = model.joints["turn"], model.joints["rail"]
    np.testing.assert_allclose(turn.rotation, [[0, -1, 0], [1, 0, 0], [0, 0, 1]], atol=1e-15)
    np.testing.assert_array_equal(rail.rotation, [[0, -1, 0], [1, 0, 0], [0, 0, 1]])
    assert turn.axis.tolist() == [0, 0, 1]
    assert turn.position.tolist() == pytest.approx([0.01, 0, 2], rel=1e-15)
    assert turn.initial[0] == pytest.approx(math.radians(10), rel=1e-15)
    assert turn.limits == pytest.approx((-math.pi / 2, 1.0), rel=1e-15)
    assert turn.initial_velocity.tolist() == [0.5] and turn.damping == 0.25
    assert rail.initial[0] == pytest.approx(0.005, rel=1e-15)
    assert rail.limits == pytest.approx((-0.1, 0.1), rel=1e-15)
    assert rail.child_frame == "frame_com"


@pytest.mark.parametrize("name", ["pendulum", "double_pendulum", "serial_arm"])
def test_the_shipped_examples_load(name):
    model = load_model(EXAMPLES / f"{name}.toml")
    model.check()
    assert model.name == name
    assert model.simulation.duration is not None
    assert model.mass_properties().mass > 0


def error_of(tmp_path: Path, text: str) -> rp.ModelError:
    path = write(tmp_path, text)
    with pytest.raises(rp.ModelError) as info:
        load_model(path)
    error = info.value
    assert error.source == str(path)
    assert str(error).startswith(f"{path}:")
    return error


def with_line(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new, 1)


@pytest.mark.parametrize(
    ("old", "new", "parameter", "line", "words"),
    [
        ('length = "1 m"', 'lenght = "1 m"', "bodies.arm.lenght", 6, "unknown key for a box"),
        ('length = "1 m"', 'length = "-1 m"', "bodies.arm.length", 6, "must be positive"),
        ('length = "1 m"', 'length = "1 kg"', "bodies.arm.length", 6, "expected a length"),
        ('material = "steel"', 'material = "unobtainium"', "bodies.bob.material", 17, ""),
        ('shape = "cone"', 'shape = "sphere"', "bodies.bob.shape", 13, "must be one of"),
        ("radius_b = 0.02", "radius_b = 0.02\ninner_radius_a = 0.06", "bodies.bob.inner_radius_a",
         17, "must not exceed"),
        ('type = "revolute"', 'type = "hinge"', "joints[0].type", 21, "must be one of"),
        ("axis = [0, 1, 0]", "axis = [0, 0, 0]", "joints[0].axis", 24, "non-zero"),
        ("axis = [0, 1, 0]", "axes = [0, 1, 0]", "joints[0].axes", 24, "unknown joint key"),
        ("initial = 0.01", 'initial = "1 m"', "joints[0].initial", 26, "expected an angle"),
        ('child = "bob.frame_a"', 'child = "bob.frame_z"', "joints[1].child", 32,
         "has no frame 'frame_z'"),
        ('parent = "arm.frame_b"', 'parent = "arm2.frame_b"', "joints[1].parent", 31,
         "names no body 'arm2'"),
        ('child = "bob.frame_a"', 'child = "arm.frame_a"', "joints[1].child", 32,
         "already has the parent joint 'hinge'"),
        ('parent = "arm.frame_b"', 'parent = "world"', "joints[1].parent", 31, "a second root"),
        ('name = "weld"', 'name = "hinge"', "joints[1].name", 29, "already used"),
        ('name = "weld"\n', "", "joints[1].name", 28, "every joint needs 'name'"),
        ("gravity = [0, 0, -9.81]", "gravity = [0, -9.81]", "gravity", 2, "3-vector"),
        ("gravity = [0, 0, -9.81]", "gravity = [0, 0, -9.81]\nunits = 1", "units", 3,
         "unknown top-level key"),
    ],
)  # fmt: skip
def test_errors_name_the_line_and_the_item(tmp_path, old, new, parameter, line, words):
    error = error_of(tmp_path, with_line(ISSUE_EXAMPLE, old, new))
    assert error.parameter == parameter
    assert error.line == line
    assert words in str(error)


def test_the_keys_of_a_body_table_come_from_its_specification(tmp_path):
    error = error_of(tmp_path, with_line(ISSUE_EXAMPLE, 'length = "1 m"', "radius_a = 1"))
    assert error.parameter == "bodies.arm.radius_a" and error.line == 6
    known = str(error).split("(known: ")[1]
    # the shape's keywords, then the appearance keys every body takes
    keys = ["shape", *rp.SHAPES["box"].signature_defaults(), "color", "opacity", "visible"]
    assert known.rstrip(")").split(", ") == keys


@pytest.mark.parametrize("mass", ["2.5", '"2.5 kg"', '"2500 g"'])
def test_a_body_given_by_mass_round_trips(tmp_path, mass):
    text = with_line(ISSUE_EXAMPLE, 'material = "aluminium"', f"mass = {mass}")
    model = load_model(write(tmp_path, text))
    arm = model.bodies["arm"]
    assert arm.mass == 2.5 and arm.material is None
    assert arm.mass_properties.isclose(
        rp.Box(length=1.0, width=0.02, height=0.02, axis=(0, 0, -1), mass=2.5).mass_properties,
        rtol=0,
    )
    data = model.to_dict()
    assert data["bodies"]["arm"]["mass"] == 2.5 and "material" not in data["bodies"]["arm"]
    rebuilt = model_from_dict(data)
    assert rebuilt.bodies["arm"].mass == 2.5
    assert rebuilt.mass_properties().isclose(model.mass_properties(), rtol=0)


@pytest.mark.parametrize(
    ("old", "new", "parameter", "line", "first"),
    [
        ('material = "aluminium"', 'material = "aluminium"\nmass = 2', "bodies.arm.mass", 11,
         "material='aluminium'"),
        ('material = "aluminium"', 'density = 2700\nmass = "2 kg"', "bodies.arm.mass", 11,
         "density=2700"),
        ('material = "steel"', 'density = 7000\nmaterial = "steel"', "bodies.bob.density", 17,
         "material='steel'"),
    ],
)  # fmt: skip
def test_two_of_material_density_and_mass_name_both(tmp_path, old, new, parameter, line, first):
    error = error_of(tmp_path, with_line(ISSUE_EXAMPLE, old, new))
    assert error.parameter == parameter and error.line == line
    assert "give only one of material, density and mass" in str(error)
    assert first in str(error)


def test_radial_extra_frames_pass_through_as_pairs(tmp_path):
    radial = [name for name, spec in rp.SHAPES.items() if spec.extra_frames == "radial"]
    if not radial:
        pytest.skip("no shape with radial extra frames is registered")
    text = f"""\
        [bodies.wheel]
        shape = "{radial[0]}"
        extra_frames = [[0.2, "30 deg"], ["50 mm", 1.5]]
        [[joints]]
        name = "axle"
        type = "revolute"
        parent = "world"
        child = "wheel.frame_c1"
        axis = [0, 0, 1]
        """
    wheel = load_model(write(tmp_path, text)).bodies["wheel"]
    np.testing.assert_allclose(wheel.extra_frames, [(0.2, math.radians(30)), (0.05, 1.5)],
                               rtol=1e-15)  # fmt: skip
    assert not np.array_equal(wheel.frames["frame_c1"].rotation, np.eye(3))
    error = error_of(tmp_path, text.replace('["50 mm", 1.5]', '["50 mm", "1 kg"]'))
    assert error.parameter == "bodies.wheel.extra_frames[1].angle" and error.line == 3


def test_an_unattached_body_is_named_with_its_table_line(tmp_path):
    text = ISSUE_EXAMPLE.split('[[joints]]\nname = "weld"')[0]
    error = error_of(tmp_path, text)
    assert error.parameter == "bodies.bob" and error.line == 12
    assert "attached by no joint" in str(error)


def test_syntax_errors_carry_tomls_line(tmp_path):
    error = error_of(tmp_path, with_line(ISSUE_EXAMPLE, "width = 0.02", "width 0.02"))
    assert error.line == 7 and "is not valid TOML" in str(error)
    assert "width 0.02" in str(error)


@pytest.mark.parametrize(
    ("extra", "parameter", "words"),
    [
        ("[simulation]\nduration = -1\n", "simulation.duration", "positive"),
        ("[simulation]\ntimestep = '1 m'\n", "simulation.timestep", "expected a time"),
        ("[simulation]\nintegrator = 'leapfrog'\n", "simulation.integrator", "must be one of"),
        ("[simulation]\nsteps = 10\n", "simulation.steps", "unknown key"),
    ],
)
def test_simulation_table_errors(tmp_path, extra, parameter, words):
    error = error_of(tmp_path, ISSUE_EXAMPLE.replace("[bodies.arm]", extra + "[bodies.arm]"))
    assert error.parameter == parameter and words in str(error)
    assert error.line is not None


def test_rpy_and_rotation_together_and_bad_rpy(tmp_path):
    text = with_line(ISSUE_EXAMPLE, "initial = 0.01", "rpy = [0, 0, 0]\nrotation = [[1,0,0]]")
    assert "not both" in str(error_of(tmp_path, text))
    text = with_line(ISSUE_EXAMPLE, "initial = 0.01", "rpy = [0, '1 mm', 0]")
    error = error_of(tmp_path, text)
    assert error.parameter == "joints[0].rpy[1]" and error.line == 26


@pytest.mark.parametrize(
    "text",
    [
        "bodies = 1\njoints = []\n",
        "[bodies]\n[[joints]]\nname='j'\n",
        "joints = []\n",
        "[bodies.a]\nshape='box'\n",
        "[bodies.a]\nshape='box'\n[joints]\nname='j'\n",
        "[bodies]\na = 3\n[[joints]]\nname='j'\n",
    ],
)
def test_malformed_structure(tmp_path, text):
    error_of(tmp_path, text)


def test_a_file_that_is_not_utf8(tmp_path):
    path = tmp_path / "model.toml"
    path.write_bytes(b'name = "x"\n\xff\xfe = 1\n')
    with pytest.raises(rp.ModelError, match="not UTF-8") as info:
        load_model(path)
    assert info.value.line == 2


# -- the command line: exit 2, one `error:` line, nothing written ---------------------------


@pytest.mark.parametrize("command", ["export", "simulate"])
def test_bad_model_files_exit_2_with_one_error_line(tmp_path, capsys, command):
    path = write(tmp_path, with_line(ISSUE_EXAMPLE, 'length = "1 m"', 'length = "-1 m"'))
    out = tmp_path / ("out.urdf" if command == "export" else "out.csv")
    status = main([command, str(path), "-o", str(out)])
    captured = capsys.readouterr()
    assert status == 2
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    assert f"{path}:6: bodies.arm.length" in lines[0]
    assert "Traceback" not in captured.err and captured.out == ""
    assert not out.exists() and list(tmp_path.iterdir()) == [path]


@pytest.mark.parametrize(
    "argv",
    [
        ["export", "{missing}", "-o", "{out}"],
        ["export", "{good}", "-o", "{good}/x.urdf"],
        ["export", "{good}", "-o", "{tmp}/x.txt"],
        ["export", "{good}", "-o", "{tmp}/x.urdf", "--sections", "2"],
        ["simulate", "{good}", "--duration", "-1"],
        ["simulate", "{good}", "--timestep", "1 kg"],
        ["simulate", "{good}", "--integrator", "leapfrog"],
        ["simulate", "{good}", "--every", "0"],
        ["simulate", "{good}", "-o", "{good}/x.csv"],
    ],
)
def test_bad_command_lines_exit_2(tmp_path, capsys, argv):
    good = write(tmp_path, ISSUE_EXAMPLE, "good.toml")
    values = {"missing": tmp_path / "missing.toml", "out": tmp_path / "o.urdf", "good": good}
    values["tmp"] = tmp_path
    status = main([a.format(**values) for a in argv])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2
    assert len(err) == 1 and err[0].startswith("error: ")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["good.toml"]


# -- any value in any place: a ModelError or a model, never another exception ---------------

toml_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**20), 10**20)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.sampled_from(["", "1 m", "-3 deg", "steel", "world", "arm.frame_b", "x", "5 kg"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=6,
)
PLACES = [
    ("gravity",),
    ("name",),
    ("bodies",),
    ("joints",),
    ("bodies", "arm"),
    *[("bodies", "arm", k) for k in ("length", "axis", "material", "extra_frames", "rotate90")],
    *[("bodies", "bob", k) for k in ("shape", "radius_a", "density", "inner_radius_b")],
    *[("joints", 0, k) for k in ("name", "type", "parent", "child", "axis", "position",
                                 "rotation", "rpy", "initial", "initial_velocity", "limits",
                                 "damping")],
    ("joints", 1),
]  # fmt: skip


@settings(max_examples=150)
@given(st.sampled_from(PLACES), toml_values)
def test_any_value_anywhere_is_a_model_error_or_a_model(place, value):
    data = tomllib.loads(ISSUE_EXAMPLE)
    target = data
    for key in place[:-1]:
        target = target[key]
    target[place[-1]] = value
    try:
        model_from_dict(data, source="fuzz.toml", text=ISSUE_EXAMPLE)
    except rp.ModelError as error:
        assert str(error).startswith("fuzz.toml")


def test_a_file_given_under_two_keys_is_refused(tmp_path):
    """``file`` is another name of a mesh body's ``mesh`` (a STEP body's ``step``): both in one
    table would drop one silently; refused, naming the alias and its line."""
    mesh = tmp_path / "cube.stl"
    rp.Box(length=0.1, width=0.1, height=0.1).mesh().export(mesh)
    text = (
        'gravity = [0, 0, -9.81]\n\n[bodies.part]\nshape = "mesh"\nmesh = "cube.stl"\n'
        'file = "other.stl"\nunits = "m"\n\n[[joints]]\nname = "fix"\ntype = "fixed"\n'
        'parent = "world"\nchild = "part.frame_a"\n'
    )
    error = error_of(tmp_path, text)
    assert error.parameter == "bodies.part.file" and error.line == 6
    assert "names the same parameter as 'mesh'" in str(error)
