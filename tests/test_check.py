"""rp.check: validity rules against the engines, each diagnosed cause on a fixture that
reproduces it, no diagnosis where the evidence does not support one, the command line.

The declared values of the fixtures come from textbook closed forms (a solid box
``m (b^2 + c^2) / 12``, the parallel-axis theorem) and scipy's rotations, not from the code
under test."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from rigidparts.checking import check
from rigidparts.checking.findings import MJ_EPS, drake_rule, mujoco_rule, project_rule
from rigidparts.commands import main

DENSITY = 2700.0


def box_inertia(mass: float, x: float, y: float, z: float) -> np.ndarray:
    """Central inertia of a solid box, box axes (textbook)."""
    return mass / 12.0 * np.diag([y * y + z * z, x * x + z * z, x * x + y * y])


def skew_square(d: np.ndarray) -> np.ndarray:
    return float(d @ d) * np.eye(3) - np.outer(d, d)


def urdf(links: str, joints: str = "") -> str:
    return (
        '<?xml version="1.0"?>\n<!-- fixture: keep this comment -->\n<robot name="r">\n'
        '  <link name="base"/>\n' + links + joints + "</robot>\n"
    )


def inertial(mass: float, com, inertia: np.ndarray, rpy=(0, 0, 0), slots=None) -> str:
    i = inertia
    values = slots if slots is not None else (i[0, 0], i[1, 1], i[2, 2], i[0, 1], i[0, 2], i[1, 2])
    ixx, iyy, izz, ixy, ixz, iyz = (repr(float(v)) for v in values)
    return (
        "    <inertial>\n"
        f'      <origin xyz="{" ".join(repr(float(c)) for c in com)}" '
        f'rpy="{" ".join(repr(float(a)) for a in rpy)}"/>\n'
        f'      <mass value="{float(mass)!r}"/>\n'
        f'      <inertia ixx="{ixx}" iyy="{iyy}" izz="{izz}" ixy="{ixy}" ixz="{ixz}" '
        f'iyz="{iyz}"/>\n'
        "    </inertial>\n"
    )


def box_collision(size, xyz=(0, 0, 0), rpy=(0, 0, 0)) -> str:
    return (
        f'    <collision><origin xyz="{" ".join(map(repr, map(float, xyz)))}" '
        f'rpy="{" ".join(map(repr, map(float, rpy)))}"/>'
        f'<geometry><box size="{" ".join(map(repr, map(float, size)))}"/></geometry>'
        "</collision>\n"
    )


def arm(body: str, name: str = "arm") -> str:
    return (
        f'  <link name="{name}">\n{body}  </link>\n'
        f'  <joint name="j_{name}" type="revolute"><parent link="base"/><child link="{name}"/>'
        '<axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>\n'
    )


SIZE = (0.1, 0.2, 0.4)
MASS = DENSITY * 0.1 * 0.2 * 0.4
RPY = (0.3, -0.2, 0.5)
R = Rotation.from_euler("xyz", RPY).as_matrix()  # URDF rpy: fixed axes x, y, z
CENTER = np.array([0.05, -0.02, 0.2])
TRUE = R @ box_inertia(MASS, *SIZE) @ R.T  # about the centre, link axes


def write(tmp_path: Path, text: str, name: str = "robot.urdf") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def only_link(path: Path, name: str = "arm"):
    report = check(path)
    (record,) = [link for link in report.files[0].links if link.name == name]
    return record


def causes(record) -> list[str]:
    return [f.cause.code for f in record.findings if f.cause is not None]


def test_a_correct_file_has_no_findings(tmp_path: Path) -> None:
    body = inertial(MASS, CENTER, TRUE) + box_collision(SIZE, CENTER, RPY)
    path = write(tmp_path, urdf(arm(body)))
    report = check(path)
    assert report.findings == []
    assert report.status == 0
    record = only_link(path)
    assert record.computed["density"] == pytest.approx(DENSITY, rel=1e-12)
    assert record.computed["material"].startswith("aluminium")
    np.testing.assert_allclose(record.computed["inertia"], TRUE, rtol=0, atol=1e-14 * MASS)


@pytest.mark.parametrize("slot", range(6))
@pytest.mark.parametrize("exponent", [1, -2, 3])
def test_power_of_ten_in_one_number(tmp_path: Path, slot: int, exponent: int) -> None:
    slots = [TRUE[0, 0], TRUE[1, 1], TRUE[2, 2], TRUE[0, 1], TRUE[0, 2], TRUE[1, 2]]
    slots[slot] *= 10.0**exponent
    body = inertial(MASS, CENTER, TRUE, slots=slots) + box_collision(SIZE, CENTER, RPY)
    record = only_link(write(tmp_path, urdf(arm(body))))
    if slot >= 3 and exponent < 0:
        # a product made smaller moves the tensor by a few per cent: within what a real
        # part's mass distribution does, so no finding and no cause
        assert causes(record) in ([], ["power-of-ten"])
        return
    assert record.findings
    cause = next(f.cause for f in record.findings if f.cause is not None)
    assert cause.code == "power-of-ten"
    assert cause.detail["slot"] == ("ixx", "iyy", "izz", "ixy", "ixz", "iyz")[slot]
    assert cause.detail["exponent"] == exponent
    assert cause.residual < 1e-12 < cause.declared_residual


def test_power_of_ten_on_the_mass(tmp_path: Path) -> None:
    body = inertial(MASS * 100, CENTER, TRUE) + box_collision(SIZE, CENTER, RPY)
    record = only_link(write(tmp_path, urdf(arm(body))))
    assert "mass-implausible" in [f.code for f in record.findings]
    (cause,) = [f.cause for f in record.findings if f.cause is not None]
    assert cause.code == "power-of-ten" and cause.detail["on"] == "mass"
    assert cause.detail["exponent"] == 2


def test_slot_order(tmp_path: Path) -> None:
    # the six numbers written in the row order of the upper triangle, xx xy xz yy yz zz
    row_order = (TRUE[0, 0], TRUE[0, 1], TRUE[0, 2], TRUE[1, 1], TRUE[1, 2], TRUE[2, 2])
    body = inertial(MASS, CENTER, TRUE, slots=row_order) + box_collision(SIZE, CENTER, RPY)
    record = only_link(write(tmp_path, urdf(arm(body))))
    assert causes(record) == ["slot-order"]
    assert record.findings[0].cause.residual < 1e-12


def test_inertia_about_the_link_origin(tmp_path: Path) -> None:
    about_origin = TRUE + MASS * skew_square(CENTER)
    body = inertial(MASS, CENTER, about_origin) + box_collision(SIZE, CENTER, RPY)
    record = only_link(write(tmp_path, urdf(arm(body))))
    assert causes(record) == ["about-origin"]


def test_missing_inertial_frame_rotation(tmp_path: Path) -> None:
    principal = box_inertia(MASS, *SIZE)  # right in the box's axes, the rpy dropped
    body = inertial(MASS, CENTER, principal) + box_collision(SIZE, CENTER, (0.9, 0.4, 1.1))
    record = only_link(write(tmp_path, urdf(arm(body))))
    assert causes(record) == ["rotated-frame"]
    assert "missing" in record.findings[0].cause.text


def test_wrongly_rotated_inertial_frame(tmp_path: Path) -> None:
    principal = box_inertia(MASS, *SIZE)
    body = inertial(MASS, CENTER, principal, rpy=(0.9, 0.1, 0.0)) + box_collision(SIZE, CENTER, RPY)
    record = only_link(write(tmp_path, urdf(arm(body))))
    assert causes(record) == ["rotated-frame"]


def test_missing_inertial_on_a_moving_link(tmp_path: Path) -> None:
    record = only_link(write(tmp_path, urdf(arm(box_collision(SIZE, CENTER, RPY)))))
    (finding,) = record.findings
    assert finding.severity == "error" and finding.cause.code == "missing-inertial"
    assert "1 kg" in finding.message


def test_mass_far_from_any_density(tmp_path: Path) -> None:
    body = inertial(MASS * 17, CENTER, TRUE) + box_collision(SIZE, CENTER, RPY)
    record = only_link(write(tmp_path, urdf(arm(body))))
    assert "mass-implausible" in [f.code for f in record.findings]
    assert "implausible-density" in causes(record)


def test_parts_summed_without_the_parallel_axis_shift(tmp_path: Path) -> None:
    a, b = np.array([0.0, 0.0, 0.1]), np.array([0.0, 0.0, 0.5])
    size = (0.1, 0.1, 0.2)
    part = DENSITY * 0.1 * 0.1 * 0.2
    no_shift = 2 * box_inertia(part, *size)
    body = (
        inertial(2 * part, (a + b) / 2, no_shift) + box_collision(size, a) + box_collision(size, b)
    )
    record = only_link(write(tmp_path, urdf(arm(body))))
    assert causes(record) == ["no-parallel-axis"]


def test_lengths_in_millimetres(tmp_path: Path) -> None:
    body = inertial(MASS, CENTER * 1000, TRUE * 1e6) + box_collision(SIZE, CENTER, RPY)
    record = only_link(write(tmp_path, urdf(arm(body))))
    assert "units" in causes(record)


@pytest.mark.parametrize("factor", [1.3, 0.7])
def test_no_cause_when_no_hypothesis_fits(tmp_path: Path, factor: float) -> None:
    # a tensor 30 % off in one principal direction: a note or warning, never a cause
    stretched = R @ (box_inertia(MASS, *SIZE) @ np.diag([factor, 1.0, 1.0])) @ R.T
    stretched = 0.5 * (stretched + stretched.T)
    body = inertial(MASS, CENTER, stretched) + box_collision(SIZE, CENTER, RPY)
    record = only_link(write(tmp_path, urdf(arm(body))))
    assert causes(record) == []


# -- validity rules against the engines themselves -----------------------------------------------

CASES = {
    "boundary": (1.0, (1, 1, 2)),
    "above boundary by 4e-16": (1.0, (1, 1, 2 + 4e-16)),
    "above boundary by 1e-14": (1.0, (1, 1, 2 + 1e-14)),
    "triangle broken": (1.0, (1, 1, 2.0001)),
    "zero moment": (1.0, (0, 1, 1)),
    "tiny": (1.0, (1e-16, 1e-16, 1e-16)),
    "just under mjEPS": (1.0, (9.9e-15, 1, 1)),
    "at mjEPS": (1.0, (MJ_EPS, 1, 1)),
    "zero mass": (0.0, (1, 1, 1)),
    "negative product": (1.0, (1, 1, 1, 2, 0, 0)),
    "negative moment": (1.0, (-1e-14, 1, 1)),
    "small part, 15 eps over": (1.0, (0.1, 0.1, 0.2 + 15 * 2.0**-52)),
    "small part, 25 eps over": (1.0, (0.1, 0.1, 0.2 + 25 * 2.0**-52)),
    "small negative moment": (1.0, (-3e-15, 1e-3, 1e-3)),
    "negative mass": (-1.0, (1, 1, 1)),
}


def _tensor(values) -> np.ndarray:
    ixx, iyy, izz, *products = values
    ixy, ixz, iyz = products or (0, 0, 0)
    return np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]], dtype=float)


def _one_link(mass: float, values) -> str:
    ixx, iyy, izz, *products = values
    ixy, ixz, iyz = products or (0, 0, 0)
    body = (
        f'    <inertial><mass value="{mass!r}"/><inertia ixx="{ixx!r}" iyy="{iyy!r}" '
        f'izz="{izz!r}" ixy="{ixy!r}" ixz="{ixz!r}" iyz="{iyz!r}"/></inertial>\n'
    )
    return urdf(arm(body))


@pytest.mark.parametrize("case", sorted(CASES))
def test_mujoco_rule_is_mujocos(case: str) -> None:
    mujoco = pytest.importorskip("mujoco")
    mass, values = CASES[case]
    try:
        mujoco.MjModel.from_xml_string(_one_link(mass, values))
        refused = False
    except ValueError:
        refused = True
    ours = mujoco_rule(mass, _tensor(values), full=True, moving=True)
    assert (ours is not None) == refused, ours


@pytest.mark.parametrize("case", sorted(CASES))
def test_drake_rule_is_drakes(case: str) -> None:
    # strict parsing turns the parser's warning (CouldBePhysicallyValid failed) into an error
    parsing = pytest.importorskip("pydrake.multibody.parsing")
    plant_module = pytest.importorskip("pydrake.multibody.plant")
    mass, values = CASES[case]
    plant = plant_module.MultibodyPlant(0.0)  # kept alive: the parser holds no reference
    parser = parsing.Parser(plant)
    parser.SetStrictParsing()
    try:
        parser.AddModelsFromString(_one_link(mass, values), "urdf")
        refused = False
    except RuntimeError:
        refused = True
    ours = drake_rule(mass, _tensor(values))
    assert (ours is not None) == refused, ours


def test_massless_frame_is_possible() -> None:
    assert project_rule(0.0, np.zeros((3, 3))) is None
    assert project_rule(0.0, np.eye(3)) is not None
    assert project_rule(-1.0, np.eye(3)) is not None


# -- the command line ---------------------------------------------------------------------------


def test_command_table_json_and_status(tmp_path: Path, capsys) -> None:
    good = write(
        tmp_path,
        urdf(arm(inertial(MASS, CENTER, TRUE) + box_collision(SIZE, CENTER, RPY))),
        "good.urdf",
    )
    bad = write(
        tmp_path,
        urdf(arm(inertial(MASS, CENTER, TRUE * 10) + box_collision(SIZE, CENTER, RPY))),
        "bad.urdf",
    )
    assert main(["check", str(good)]) == 0
    out = capsys.readouterr().out
    assert "good.urdf (urdf): 2 links, 0 errors" in out
    assert main(["check", str(bad), "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == 1 and data["counts"]["warning"] >= 1
    (link,) = [link for link in data["files"][0]["links"] if link["name"] == "arm"]
    assert link["findings"][0]["source"]["line"] == 6  # the <inertial> line


def test_command_unreadable_input(tmp_path: Path, capsys) -> None:
    broken = write(tmp_path, "<robot name='r'><link name='a'>\n</robot>", "broken.urdf")
    out = tmp_path / "out.urdf"
    assert main(["check", str(broken), "--fix", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "broken.urdf" in err and len(err.splitlines()) == 1
    assert not out.exists()
    assert main(["check", str(tmp_path / "absent.urdf")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_progress_on_stderr_for_many_files(tmp_path: Path, capsys) -> None:
    text = urdf(arm(inertial(MASS, CENTER, TRUE) + box_collision(SIZE, CENTER, RPY)))
    paths = [str(write(tmp_path, text, f"r{i}.urdf")) for i in range(3)]
    assert main(["check", *paths]) == 0
    assert "[3/3]" in capsys.readouterr().err


def test_density_report_is_finite_json(tmp_path: Path) -> None:
    path = write(tmp_path, urdf(arm(inertial(math.nan, CENTER, TRUE) + box_collision(SIZE))))
    report = check(path)
    assert report.errors
    json.dumps(report.to_dict(), allow_nan=False)


# -- invariants ---------------------------------------------------------------------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

sizes = st.floats(min_value=0.01, max_value=2.0)
angles = st.floats(min_value=-math.pi, max_value=math.pi)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    size=st.tuples(sizes, sizes, sizes),
    density=st.floats(min_value=200.0, max_value=20000.0),
    rpy=st.tuples(angles, angles, angles),
    offset=st.tuples(sizes, sizes, sizes),
)
def test_any_correct_box_has_no_findings_and_a_typo_is_found(
    tmp_path: Path, size, density, rpy, offset
) -> None:
    """Whatever its size, density, pose: a box declared right has no finding; the same box
    with ixx ten times too large has one, and it is never diagnosed as another cause."""
    mass = density * size[0] * size[1] * size[2]
    rotation = Rotation.from_euler("xyz", rpy).as_matrix()
    true = rotation @ box_inertia(mass, *size) @ rotation.T
    geometry = box_collision(size, offset, rpy)
    path = write(tmp_path, urdf(arm(inertial(mass, offset, true) + geometry)), "h.urdf")
    assert check(path).findings == []
    typo = true.copy()
    typo[0, 0] *= 10.0
    path = write(tmp_path, urdf(arm(inertial(mass, offset, typo) + geometry)), "t.urdf")
    record = only_link(path)
    assert record.findings
    assert set(causes(record)) <= {"power-of-ten"}


def test_the_worked_example_of_the_docs(tmp_path: Path) -> None:
    """docs/check.md's example says what the checker says: its URDF, causes and repair."""
    doc = (Path(__file__).resolve().parents[1] / "docs" / "check.md").read_text()
    text = doc.split("```xml\n", 1)[1].split("```", 1)[0]
    path = write(tmp_path, text)
    report = check(path)
    found = {f.link: f.cause.code for f in report.findings if f.cause is not None}
    assert found == {
        "upper_arm": "about-origin",
        "forearm": "power-of-ten",
        "hand": "missing-inertial",
    }
    from rigidparts.checking.fix import fix

    fix(report, tmp_path / "robot_fixed.urdf", material="aluminium")
    assert check(tmp_path / "robot_fixed.urdf").findings == []


def test_a_quarter_turn_of_a_diagonal_tensor_names_both_readings(tmp_path: Path) -> None:
    # a rod along the link's x whose inertia is written for a rod along z (vision60's lower
    # legs in pybullet_data): a dropped rotation, or equally the diagonal numbers swapped
    radius, length, mass = 0.011, 0.28, 0.2
    axial, transverse = mass * radius**2 / 2, mass * (3 * radius**2 + length**2) / 12
    along_z = np.diag([transverse, transverse, axial])
    rod = (
        f'    <collision><origin xyz="0 0 0" rpy="0 {math.pi / 2!r} 0"/><geometry>'
        f'<cylinder radius="{radius!r}" length="{length!r}"/></geometry></collision>\n'
    )
    record = only_link(write(tmp_path, urdf(arm(inertial(mass, (0, 0, 0), along_z) + rod))))
    (cause,) = [f.cause for f in record.findings if f.cause is not None]
    assert cause.code == "rotated-frame"
    assert cause.detail["angle_deg"] == pytest.approx(90.0, abs=1e-6)
    assert cause.detail["alternatives"] == ["slot-order"]


# -- the command line's options --------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [["--density", "2700"], ["--material", "aluminium"], ["--from-geometry"], ["--keep", "mass"]],
)
def test_repair_options_without_fix_are_refused(tmp_path: Path, capsys, options) -> None:
    path = write(tmp_path, urdf(arm(inertial(MASS, CENTER, TRUE) + box_collision(SIZE))))
    assert main(["check", str(path), *options]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and options[0] in err and "--fix" in err


def test_keep_geometry_is_from_geometry(tmp_path: Path) -> None:
    path = write(tmp_path, urdf(arm(inertial(MASS, CENTER, TRUE) + box_collision(SIZE))))
    out = tmp_path / "a.urdf"
    # an implausible mass (1000 kg in a small box) is a warning: the repair takes rho V
    text = urdf(arm(inertial(1000.0, CENTER, TRUE) + box_collision(SIZE)))
    path.write_text(text)
    args = ["check", str(path), "--fix", "-o", str(out), "--density", "1000", "--json"]
    assert main([*args, "--keep", "geometry"]) == 1
    volume = float(np.prod(SIZE))
    fixed = check(out).files[0].links[-1].declared
    assert fixed["mass"] == pytest.approx(1000.0 * volume, rel=1e-15)


def test_output_equal_to_the_input_is_refused_before_the_check(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    path = write(tmp_path, urdf(arm(inertial(MASS, CENTER, TRUE) + box_collision(SIZE))))
    import rigidparts.checking as checking

    def never(*args, **kwargs):
        raise AssertionError("the check ran")

    monkeypatch.setattr(checking, "check", never)
    assert main(["check", str(path), "--fix", "-o", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: -o ") and "input" in err and err.count("\n") == 0


def test_json_has_null_for_nan(tmp_path: Path, capsys) -> None:
    path = write(tmp_path, urdf(arm(inertial(math.nan, CENTER, TRUE) + box_collision(SIZE))))
    main(["check", str(path), "--json"])
    out = json.loads(capsys.readouterr().out, parse_constant=lambda c: pytest.fail(c))
    link = out["files"][0]["links"][-1]
    assert link["declared"]["mass"] is None


def test_table_header_counts_the_notes_it_prints(tmp_path: Path, capsys) -> None:
    path = tmp_path / "m.xml"
    path.write_text(
        '<mujoco model="m">\n  <worldbody>\n    <body name="b">\n      <freejoint/>\n'
        '      <geom type="box" size="0.1 0.1 0.1"/>\n    </body>\n  </worldbody>\n</mujoco>\n'
    )
    main(["check", str(path)])
    out = capsys.readouterr().out
    printed = sum(line.startswith("note: ") or ": note: " in line for line in out.splitlines())
    assert printed >= 1
    assert f", {printed} notes" in out.splitlines()[0]


def test_worker_processes_give_the_same_reports(tmp_path) -> None:
    """Files checked in two worker processes: the same reports, in the files' order."""
    import rigidparts as rp

    paths = []
    for k in range(3):
        path = tmp_path / f"r{k}.urdf"
        path.write_text(
            f"""<robot name="r{k}"><link name="a"><inertial><mass value="{k + 1}"/>
            <inertia ixx="{0.01 * (k + 1)}" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/>
            </inertial><collision><geometry><box size="0.1 0.1 0.1"/></geometry></collision>
            </link></robot>""",
            encoding="utf-8",
        )
        paths.append(path)
    paths.append(tmp_path / "missing.urdf")
    one = rp.check(paths).to_dict()
    two = rp.check(paths, jobs=2).to_dict()
    assert one == two and len(one["files"]) == 4
