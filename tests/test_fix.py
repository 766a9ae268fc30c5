"""rigidparts check --fix: only the findings' inertials change (every other byte stays), the
repaired file reads back with the geometry's values, has no errors, and loads in the engines."""

from __future__ import annotations

import difflib
import math
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from rigidparts.checking import check
from rigidparts.checking.fix import fix
from rigidparts.commands import main
from rigidparts.errors import ParameterError
from test_check import (
    CENTER,
    MASS,
    RPY,
    SIZE,
    TRUE,
    arm,
    box_collision,
    inertial,
    urdf,
)

BAD = inertial(MASS, CENTER, TRUE * np.diag([10.0, 1, 1])) + box_collision(SIZE, CENTER, RPY)
GOOD = inertial(MASS, CENTER, TRUE) + box_collision(SIZE, CENTER, RPY)


def robot(tmp_path: Path) -> Path:
    """A URDF with one bad link (a typo), one good link, one missing inertial with geometry."""
    text = urdf(arm(BAD, "bad") + arm(GOOD, "good") + arm(box_collision(SIZE, CENTER), "bare"))
    path = tmp_path / "robot.urdf"
    path.write_text(text)
    return path


def changed_lines(before: str, after: str) -> list[str]:
    return [
        line
        for line in difflib.unified_diff(before.splitlines(), after.splitlines(), n=0)
        if line.startswith(("-", "+")) and not line.startswith(("---", "+++"))
    ]


def test_only_the_findings_inertials_change(tmp_path: Path) -> None:
    path = robot(tmp_path)
    before = path.read_text()
    out = tmp_path / "fixed.urdf"
    result = fix(check(path), out)
    assert sorted(result.changed) == ["bad", "bare"]
    after = out.read_text()
    assert path.read_text() == before  # the input is untouched
    assert "<!-- fixture: keep this comment -->" in after
    changed = changed_lines(before, after)
    assert all(
        any(tag in line for tag in ("inertia", "origin", "mass", "</link>", "<link"))
        for line in changed
    ), changed
    # the good link's inertial is byte for byte the same
    good = before[before.index('<link name="good">') : before.index('<link name="bare">')]
    assert good in after
    report = check(out)
    assert report.errors == []
    assert [f for f in report.findings if f.severity == "warning"] == []


def test_repaired_values_are_the_geometrys_at_17_digits(tmp_path: Path) -> None:
    out = tmp_path / "fixed.urdf"
    fix(check(robot(tmp_path)), out)
    (bad,) = [link for link in check(out).files[0].links if link.name == "bad"]
    assert bad.declared["mass"] == MASS
    np.testing.assert_allclose(bad.declared["center_of_mass"], CENTER, rtol=0, atol=1e-16)
    np.testing.assert_allclose(bad.declared["inertia"], TRUE, rtol=0, atol=1e-14 * MASS)
    (bare,) = [link for link in check(out).files[0].links if link.name == "bare"]
    assert bare.declared["mass"] == pytest.approx(1000.0 * 0.1 * 0.2 * 0.4, rel=1e-15)


def test_from_geometry_with_a_material(tmp_path: Path) -> None:
    out = tmp_path / "fixed.urdf"
    fix(check(robot(tmp_path)), out, keep="geometry", material="steel")
    (bad,) = [link for link in check(out).files[0].links if link.name == "bad"]
    assert bad.declared["mass"] == pytest.approx(7860.0 * 0.1 * 0.2 * 0.4, rel=1e-15)
    with pytest.raises(ParameterError, match="density or a material"):
        fix(check(robot(tmp_path)), tmp_path / "x.urdf", keep="geometry")


def test_never_over_the_input_unless_in_place(tmp_path: Path) -> None:
    path = robot(tmp_path)
    before = path.read_bytes()
    with pytest.raises(ParameterError, match="in_place"):
        fix(check(path), path)
    assert path.read_bytes() == before
    fix(check(path), in_place=True)
    assert check(path).errors == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["robot.urdf"]  # no temporary left


def test_command_fix_and_in_place(tmp_path: Path, capsys) -> None:
    path = robot(tmp_path)
    out = tmp_path / "out.urdf"
    assert main(["check", str(path), "--fix", "-o", str(out)]) == 1
    assert "wrote" in capsys.readouterr().out
    assert main(["check", str(out)]) == 0
    assert main(["check", str(path), "--fix"]) == 2
    assert "needs -o" in capsys.readouterr().err
    assert main(["check", str(path), "--in-place"]) == 1
    assert main(["check", str(path)]) == 0


def test_repaired_urdf_loads_in_the_engines(tmp_path: Path) -> None:
    path = robot(tmp_path)
    out = tmp_path / "fixed.urdf"
    fix(check(path), out)
    mujoco = pytest.importorskip("mujoco")
    with pytest.raises(ValueError):
        mujoco.MjModel.from_xml_path(str(path))  # the original: refused
    model = mujoco.MjModel.from_xml_path(str(out))
    assert model.nbody == 4
    parsing = pytest.importorskip("pydrake.multibody.parsing")
    plant_module = pytest.importorskip("pydrake.multibody.plant")
    plant = plant_module.MultibodyPlant(0.0)
    parser = parsing.Parser(plant)
    parser.SetStrictParsing()
    parser.AddModels(str(out))
    plant.Finalize()
    pinocchio = pytest.importorskip("pinocchio")
    assert pinocchio.buildModelFromUrdf(str(out)).nq == 3


MJCF = """<mujoco model="m">
  <!-- keep -->
  <worldbody>
    <body name="a">
      <joint type="hinge" axis="0 0 1"/>
      <inertial pos="0 0 0" mass="{mass}" diaginertia="{diag}"/>
      <geom type="box" size="0.05 0.1 0.2"/>
    </body>
    <body name="b" pos="1 0 0">
      <joint type="hinge" axis="0 0 1"/>
      <inertial pos="0 0 0" mass="{mass}" fullinertia="{full}"/>
      <geom type="box" size="0.05 0.1 0.2"/>
    </body>
  </worldbody>
</mujoco>
"""


def test_mjcf_repair_keeps_its_layout(tmp_path: Path) -> None:
    pytest.importorskip("mujoco")
    mass = MASS
    moments = mass / 12 * np.array([0.2**2 + 0.4**2, 0.1**2 + 0.4**2, 0.1**2 + 0.2**2])
    diag = " ".join(repr(float(v)) for v in moments * [1, 1, 100])
    full = " ".join(repr(float(v)) for v in [*(moments * [10, 1, 1]), 0, 0, 0])
    path = tmp_path / "m.xml"
    path.write_text(MJCF.format(mass=repr(mass), diag=diag, full=full))
    out = tmp_path / "fixed.xml"
    result = fix(check(path), out)
    assert sorted(result.changed) == ["a", "b"]
    text = out.read_text()
    assert "diaginertia=" in text and "fullinertia=" in text and "<!-- keep -->" in text
    assert check(out).findings == []
    import mujoco

    model = mujoco.MjModel.from_xml_path(str(out))
    np.testing.assert_allclose(np.sort(model.body_inertia[1]), np.sort(moments), rtol=1e-12)


SDF = """<?xml version="1.0"?>
<sdf version="1.9">
  <model name="m">
    <link name="base"/>
    <link name="arm">
      <inertial>
        <pose>0 0 0 0 0 0</pose>
        <mass>{mass}</mass>
        <inertia><ixx>{ixx}</ixx><ixy>0</ixy><ixz>0</ixz><iyy>{iyy}</iyy><iyz>0</iyz><izz>{izz}</izz></inertia>
      </inertial>
      <collision name="c"><geometry><box><size>0.1 0.2 0.4</size></box></geometry></collision>
    </link>
    <joint name="w" type="fixed"><parent>world</parent><child>base</child></joint>
    <joint name="j" type="revolute"><parent>base</parent><child>arm</child>
      <axis><xyz>0 0 1</xyz></axis></joint>
  </model>
</sdf>
"""


def test_sdf_repair(tmp_path: Path) -> None:
    moments = MASS / 12 * np.array([0.2**2 + 0.4**2, 0.1**2 + 0.4**2, 0.1**2 + 0.2**2])
    path = tmp_path / "m.sdf"
    path.write_text(
        SDF.format(mass=repr(MASS), ixx=moments[0], iyy=moments[1] * 1000, izz=moments[2])
    )
    assert check(path).errors
    out = tmp_path / "fixed.sdf"
    assert sorted(fix(check(path), out).changed) == ["arm"]
    assert check(out).findings == []
    tool = shutil.which("ign") or shutil.which("gz")
    if tool is not None:
        run = subprocess.run([tool, "sdf", "-k", str(out)], capture_output=True, text=True)
        assert run.returncode == 0, run.stdout + run.stderr
    pinocchio = pytest.importorskip("pydrake.multibody.parsing")
    plant_module = pytest.importorskip("pydrake.multibody.plant")
    plant = plant_module.MultibodyPlant(0.0)
    pinocchio.Parser(plant).AddModels(str(out))


def test_nan_mass_is_repaired_at_the_default_density(tmp_path: Path) -> None:
    body = inertial(math.nan, CENTER, TRUE) + box_collision(SIZE, CENTER, RPY)
    path = tmp_path / "nan.urdf"
    path.write_text(urdf(arm(body)))
    result = fix(check(path), tmp_path / "fixed.urdf")
    assert "1000" in result.notes[0]
    assert check(tmp_path / "fixed.urdf").errors == []


def test_usd_repair_authors_the_mass_api(tmp_path: Path) -> None:
    pytest.importorskip("pxr")
    from pxr import Usd, UsdPhysics

    import rigidparts as rp

    model = rp.load_model(Path(__file__).resolve().parents[1] / "examples" / "serial_arm.toml")
    good = tmp_path / "arm.usda"
    rp.export_model(model, good)
    stage = Usd.Stage.Open(str(good))
    prim = stage.GetPrimAtPath("/serial_arm/base")
    attribute = UsdPhysics.MassAPI(prim).GetDiagonalInertiaAttr()
    d = attribute.Get()
    attribute.Set(type(d)(d[0] * 10, d[1], d[2]))
    bad = tmp_path / "bad.usda"
    stage.GetRootLayer().Export(str(bad))
    assert check(bad).errors
    out = tmp_path / "fixed.usda"
    result = fix(check(bad), out)
    assert list(result.changed) == ["base"]
    assert check(out).findings == []
    # the other prims' authored values are unchanged
    fixed = Usd.Stage.Open(str(out))
    for path in ("/serial_arm/upper_arm", "/serial_arm/forearm"):
        before = UsdPhysics.MassAPI(stage.GetPrimAtPath(path))
        after = UsdPhysics.MassAPI(fixed.GetPrimAtPath(path))
        assert before.GetMassAttr().Get() == after.GetMassAttr().Get()
        assert before.GetDiagonalInertiaAttr().Get() == after.GetDiagonalInertiaAttr().Get()


SDF_NO_INERTIAL = """<?xml version="1.0"?>
<sdf version="1.9">
  <model name="m">
    <link name="base"/>
    <link name="arm">
      <collision name="c"><geometry><box><size>0.1 0.2 0.4</size></box></geometry></collision>
    </link>
    <link name="tip"><collision name="c"><geometry><sphere><radius>0.05</radius></sphere>\
</geometry></collision></link>
    <joint name="w" type="fixed"><parent>world</parent><child>base</child></joint>
    <joint name="j" type="revolute"><parent>base</parent><child>arm</child>
      <axis><xyz>0 0 1</xyz></axis></joint>
    <joint name="k" type="revolute"><parent>arm</parent><child>tip</child>
      <axis><xyz>0 0 1</xyz></axis></joint>
  </model>
</sdf>
"""


def test_sdf_missing_inertials_are_inserted(tmp_path: Path) -> None:
    path = tmp_path / "m.sdf"
    path.write_text(SDF_NO_INERTIAL)
    report = check(path)
    assert sorted(f.link for f in report.findings if f.code == "missing-inertial") == [
        "arm",
        "tip",
    ]
    out = tmp_path / "fixed.sdf"
    fix(report, out, keep="geometry", density="1.2 g/cm^3")
    after = check(out)
    assert after.findings == []
    masses = {link.name: link.declared["mass"] for link in after.files[0].links if link.declared}
    assert masses["arm"] == pytest.approx(1200 * 0.1 * 0.2 * 0.4, rel=1e-15)
    assert masses["tip"] == pytest.approx(1200 * 4 / 3 * math.pi * 0.05**3, rel=1e-15)
    # the one-line link stays one line
    assert len(out.read_text().splitlines()) == len(SDF_NO_INERTIAL.splitlines()) + 12
    tool = shutil.which("ign") or shutil.which("gz")
    if tool is not None:
        run = subprocess.run([tool, "sdf", "-k", str(out)], capture_output=True, text=True)
        assert run.returncode == 0, run.stdout + run.stderr


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, capsys) -> None:
    other = tmp_path / "notes.txt"
    other.write_text("hello")
    assert main(["check", str(other)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "notes.txt" in err and len(err.splitlines()) == 1
    assert main(["check", str(tmp_path)]) == 2
    assert "folder" in capsys.readouterr().err
    path = robot(tmp_path)
    assert (
        main(["check", str(path), "--fix", "-o", str(tmp_path / "o.urdf"), "--from-geometry"]) == 2
    )
    assert "density or a material" in capsys.readouterr().err
    assert not (tmp_path / "o.urdf").exists()


def test_windows_line_endings_are_kept(tmp_path: Path) -> None:
    text = urdf(arm(BAD, "bad") + arm(GOOD, "good")).replace("\n", "\r\n")
    path = tmp_path / "crlf.urdf"
    path.write_bytes(text.encode())
    out = tmp_path / "fixed.urdf"
    fix(check(path), out)
    data = out.read_bytes()
    assert data.count(b"\n") == data.count(b"\r\n")
    assert check(out).findings == []


def test_nothing_is_written_when_the_repair_does_not_read_back(tmp_path: Path, monkeypatch) -> None:
    import rigidparts.checking.fix as fix_module

    path = robot(tmp_path)
    out = tmp_path / "fixed.urdf"
    # a repair whose text says another mass than intended: the read-back refuses it
    monkeypatch.setattr(fix_module, "_num", lambda value: repr(float(value) * 1.5 or 0.0))
    with pytest.raises(ParameterError, match=r"not the repaired one|changed"):
        fix(check(path), out)
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["robot.urdf"]


def _mesh_robot(tmp_path: Path) -> Path:
    """A URDF whose one link has a mesh given relative to the file's folder (a unit cube)."""
    (tmp_path / "meshes").mkdir()
    (tmp_path / "meshes" / "cube.obj").write_text(
        "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n"
        "f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 2 3 7 6\nf 3 4 8 7\nf 4 1 5 8\n"
    )
    links = (
        '  <link name="cube">\n    <inertial><mass value="1"/>'
        '<inertia ixx="10" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial>\n'
        '    <collision><geometry><mesh filename="meshes/cube.obj"/></geometry></collision>\n'
        "  </link>\n"
    )
    joints = (
        '  <joint name="j" type="revolute"><parent link="base"/><child link="cube"/>'
        '<axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>\n'
    )
    path = tmp_path / "mesh.urdf"
    path.write_text(urdf(links, joints))
    return path


def test_output_in_another_folder_with_relative_references_is_refused(
    tmp_path: Path, capsys
) -> None:
    path = _mesh_robot(tmp_path)
    other = tmp_path / "elsewhere"
    other.mkdir()
    out = other / "fixed.urdf"
    assert main(["check", str(path), "--fix", "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and err.startswith("error: -o ")
    assert "meshes/cube.obj" in err and "--in-place" in err
    assert not out.exists()
    with pytest.raises(ParameterError, match="relative references"):
        fix(check(path), out)
    # beside the input the references still hold: written
    beside = tmp_path / "fixed.urdf"
    assert main(["check", str(path), "--fix", "-o", str(beside)]) == 1
    assert beside.exists()


def test_output_elsewhere_without_relative_references_is_fine(tmp_path: Path) -> None:
    path = robot(tmp_path)
    other = tmp_path / "elsewhere"
    other.mkdir()
    assert main(["check", str(path), "--fix", "-o", str(other / "fixed.urdf")]) == 1
    assert (other / "fixed.urdf").exists()


def test_inertial_in_an_included_mjcf_file_is_said_not_copied(tmp_path: Path, capsys) -> None:
    (tmp_path / "part.xml").write_text(
        '<mujoco>\n  <body name="b">\n    <freejoint/>\n'
        '    <inertial pos="0 0 0" mass="1" diaginertia="10 1 1"/>\n'
        '    <geom type="box" size="0.1 0.1 0.1"/>\n  </body>\n</mujoco>\n'
    )
    path = tmp_path / "main.xml"
    path.write_text(
        '<mujoco model="m">\n  <worldbody>\n    <include file="part.xml"/>\n'
        "  </worldbody>\n</mujoco>\n"
    )
    out = tmp_path / "fixed.xml"
    assert main(["check", str(path), "--fix", "-o", str(out)]) == 1
    text = capsys.readouterr().out
    assert "cannot be repaired in the including file" in text
    assert "nothing written to" in text
    assert not out.exists()
