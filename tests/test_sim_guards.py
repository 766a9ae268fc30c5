"""What ``simulate`` and the MJCF export refuse, and how they say it (issues 12 and 14):

- a diverging run (MuJoCo resets the state and carries on) stops with a SimulationError at the
  simulated time MuJoCo itself reports, checked against a raw MuJoCo loop on the same file;
- bodies and meshes too small for MuJoCo's compiler are a ModelError naming the body, at export
  and at simulate; the rule is checked against MuJoCo's own verdict across the limit;
- contacts are opt-in (a model setting, ``--contacts``);
- nothing noisy off a terminal (no progress bar in a log, no MUJOCO_LOG.TXT), a status line on
  a terminal.
"""

from __future__ import annotations

import io
import math
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

import rigidparts as rp
from rigidparts.commands import main
from rigidparts.export.mjcf import MUJOCO_MINVAL, mjcf_files, mujoco_mesh_size, to_mjcf
from rigidparts.model import Model, load_model

mujoco = pytest.importorskip("mujoco")

from rigidparts.progress import Status  # noqa: E402
from rigidparts.sim import SimulationError, simulate  # noqa: E402
from rigidparts.sim.simulate import WARNINGS, _MuJoCoWarnings  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
DIVERGING = {"timestep": 0.05, "integrator": "Euler", "duration": 20.0}


# -- a diverging run -------------------------------------------------------------------------


def raw_reset_time(model: Model, timestep: float) -> float:
    """MuJoCo alone, Euler at ``timestep``, on the MJCF of ``model``: the time at the start of
    the first step after which the clock went back (MuJoCo's automatic reset)."""
    files = mjcf_files(model, folder_name="meshes")
    mj = mujoco.MjModel.from_xml_string(files.text, files.assets())
    mj.opt.timestep = timestep
    mj.opt.integrator = mujoco.mjtIntegrator.mjINT_EULER
    mj.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT)
    data = mujoco.MjData(mj)
    mujoco.mj_resetDataKeyframe(mj, data, 0)
    previous = mujoco.get_mju_user_warning()
    mujoco.set_mju_user_warning(lambda message: None)  # quiet: no MUJOCO_LOG.TXT
    try:
        for _ in range(10_000):
            before = data.time
            mujoco.mj_step(mj, data)
            if data.time < before:
                assert data.warning[mujoco.mjtWarning.mjWARN_BADQACC].number == 1
                return before
    finally:
        mujoco.set_mju_user_warning(previous)
    raise AssertionError("MuJoCo never reset the state")


def test_a_diverging_run_stops_at_mujocos_reset_time(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # MuJoCo would write MUJOCO_LOG.TXT here
    model = load_model(EXAMPLES / "double_pendulum.toml")
    expected = raw_reset_time(model, DIVERGING["timestep"])
    assert expected == pytest.approx(4.45, abs=1e-9)  # the report
    with pytest.raises(SimulationError) as info:
        simulate(model, **DIVERGING)
    error = info.value
    assert isinstance(error, ValueError) and isinstance(error, rp.ParameterError)
    assert error.parameter == "timestep" and error.value == 0.05
    assert error.time == pytest.approx(expected, abs=1e-9)
    message = str(error)
    for words in ("diverged", "t = 4.45 s", "Euler", "smaller timestep", "another integrator"):
        assert words in message
    assert list(tmp_path.iterdir()) == []  # no MUJOCO_LOG.TXT
    # the same model with the advice taken runs to the end
    result = simulate(model, duration=2.0, timestep=0.005, integrator="RK4")
    assert result.time[-1] == pytest.approx(2.0) and np.all(np.diff(result.time) > 0)


def test_the_command_line_exits_2_with_one_line_and_no_csv(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    argv = ["simulate", str(EXAMPLES / "double_pendulum.toml"), "--timestep", "0.05",
            "--integrator", "Euler", "--duration", "20", "-o", "run.csv"]  # fmt: skip
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: timestep=0.05: ")
    assert "t = 4.45 s" in lines[0]
    assert list(tmp_path.iterdir()) == []  # no CSV, no MUJOCO_LOG.TXT


def test_mujocos_warning_handler_is_put_back():
    sentinel: list[str] = []
    mujoco.set_mju_user_warning(sentinel.append)
    try:
        model = load_model(EXAMPLES / "double_pendulum.toml")
        simulate(model, duration=0.01)
        assert mujoco.get_mju_user_warning() == sentinel.append
        with pytest.raises(SimulationError):
            simulate(model, **DIVERGING)
        assert mujoco.get_mju_user_warning() == sentinel.append
        assert sentinel == []  # our run's warning went to simulate, not to the user's handler
    finally:
        mujoco.set_mju_user_warning(None)


def fake_data(name: str | None, info: int = 0) -> SimpleNamespace:
    """An MjData stand-in whose warning counters say that ``name`` fired once (None: none)."""
    count = int(mujoco.mjtWarning.mjNWARNING)
    counters = [SimpleNamespace(number=0, lastinfo=0) for _ in range(count)]
    if name is not None:
        counters[int(getattr(mujoco.mjtWarning, name))] = SimpleNamespace(number=1, lastinfo=info)
    return SimpleNamespace(warning=counters)


@pytest.mark.parametrize("name", list(WARNINGS))
def test_every_known_warning_names_what_to_change(name):
    watch = _MuJoCoWarnings(mujoco)
    with pytest.raises(SimulationError) as info:
        watch.check(fake_data(name, 7), 1.25, 1e-3, "RK4")
    what, parameter, _ = WARNINGS[name]
    assert info.value.parameter == parameter and info.value.time == 1.25
    assert what.format(info=7) in str(info.value) and "t = 1.25 s" in str(info.value)
    watch.check(fake_data(None), 0.0, 1e-3, "RK4")  # no warning: no error


def test_a_model_mujoco_refuses_is_a_simulation_error(monkeypatch):
    import importlib

    module = importlib.import_module("rigidparts.sim.simulate")  # the module, not the function
    real = module.mjcf_files

    def broken(model, **kwargs):
        files = real(model, **kwargs)
        return type(files)(files.text.replace('<inertial ', '<inertial bogus="1" '),
                           files.meshes, files.parts, files.mesh_of, files.folder_name)  # fmt: skip

    monkeypatch.setattr(module, "mjcf_files", broken)
    with pytest.raises(SimulationError) as info:
        simulate(load_model(EXAMPLES / "double_pendulum.toml"), duration=0.01)
    assert info.value.parameter == "model" and "MuJoCo refused the model" in str(info.value)


# -- bodies too small for MuJoCo -------------------------------------------------------------


def one_body(body: rp.Component, joint: str = "revolute") -> Model:
    model = Model("tiny")
    model.add_body("bit", body)
    axis = (0, 1, 0) if joint == "revolute" else None
    model.add_joint("hinge", joint, "world", "bit", axis=axis)
    return model


def mujoco_accepts(model: Model, monkeypatch) -> bool:
    """MuJoCo's own verdict on the MJCF, with rigidparts' check switched off."""
    import rigidparts.export.mjcf as mjcf

    with monkeypatch.context() as patch:
        patch.setattr(mjcf, "check_mujoco_limits", lambda *args: None)
        text = to_mjcf(model, sections=16)
    try:
        mujoco.MjModel.from_xml_string(text)
    except ValueError as exc:
        assert "mjMINVAL" in str(exc) or "too small" in str(exc), exc
        return False
    return True


def rigidparts_accepts(model: Model) -> bool:
    try:
        to_mjcf(model, sections=16)
    except rp.ModelError:
        return False
    return True


TINY = {
    "a 0.1 mm steel cube": rp.Box(length=1e-4, width=1e-4, height=1e-4),
    "a 0.1 mm x 10 um x 10 um steel box": rp.Box(length=1e-4, width=1e-5, height=1e-5),
}


@pytest.mark.parametrize("name", list(TINY))
def test_a_tiny_moving_body_is_a_clear_error_at_export_and_at_simulate(name, tmp_path):
    model = one_body(TINY[name])
    for attempt in (lambda: to_mjcf(model), lambda: rp.export_model(model, tmp_path / "t.xml"),
                    lambda: simulate(model, duration=0.01)):  # fmt: skip
        with pytest.raises(rp.ModelError) as info:
            attempt()
        message = str(info.value)
        assert info.value.parameter == "bodies.bit" and "moving body" in message
        assert "1e-15" in message and "MuJoCo" in message
    assert not list(tmp_path.iterdir())
    rp.export_model(model, tmp_path / "t.urdf")  # other engines take it: URDF is not checked


def test_the_command_line_names_the_body(tmp_path, capsys):
    path = tmp_path / "tiny.toml"
    path.write_text('[bodies.speck]\nshape = "box"\nlength = "0.1 mm"\nwidth = "0.1 mm"\n'
                    'height = "0.1 mm"\n\n[[joints]]\nname = "hinge"\ntype = "revolute"\n'
                    'parent = "world"\nchild = "speck"\naxis = [0, 1, 0]\n')  # fmt: skip
    for argv in (["simulate", str(path), "--duration", "0.01"],
                 ["export", str(path), "-o", str(tmp_path / "tiny.xml")]):  # fmt: skip
        assert main(argv) == 2
        lines = capsys.readouterr().err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and "bodies.speck" in lines[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tiny.toml"]


def test_the_moving_body_rule_is_mujocos_across_the_limit(monkeypatch):
    # steel cubes: I = m a^2 / 6 = 7860 a^5 / 6 crosses 1e-15 kg m^2 at a = 0.2585 mm
    limit = (6 * MUJOCO_MINVAL / 7860.0) ** 0.2
    verdicts = []
    for factor in (0.8, 0.95, 0.99, 1.01, 1.05, 1.5):
        side = factor * limit
        model = one_body(rp.Box(length=side, width=side, height=side))
        verdicts.append(rigidparts_accepts(model))
        assert verdicts[-1] == mujoco_accepts(model, monkeypatch), factor
    assert verdicts == [False, False, False, True, True, True]
    # a ball joint and a free joint move too; a fixed one does not
    for joint, moving in (("ball", True), ("free", True), ("fixed", False)):
        model = one_body(rp.Box(length=1e-4, width=1e-4, height=1e-4), joint)
        assert rigidparts_accepts(model) is not moving
        assert mujoco_accepts(model, monkeypatch) is not moving


def test_a_body_welded_to_a_tiny_moving_body_carries_it(monkeypatch):
    def model(big_below: bool) -> Model:
        m = Model("welded")
        m.add_body("speck", rp.Box(length=1e-4, width=1e-4, height=1e-4))
        m.add_body("plate", rp.Box(length=0.1, width=0.1, height=0.01))
        m.add_joint("hinge", "revolute", "world", "speck", axis=(0, 1, 0))
        m.add_joint("weld", "fixed" if big_below else "revolute", "speck.frame_b", "plate",
                    axis=None if big_below else (1, 0, 0))  # fmt: skip
        return m

    assert rigidparts_accepts(model(True)) and mujoco_accepts(model(True), monkeypatch)
    # on its own joint the plate no longer carries the speck
    assert not rigidparts_accepts(model(False))
    assert not mujoco_accepts(model(False), monkeypatch)


def tiny_cone(length: float) -> Model:
    model = Model("tip")
    model.add_body("base", rp.Box(length=0.1, width=0.1, height=0.1))
    model.add_body("tip", rp.Cone(length=length, radius_a=length / 2, radius_b=length / 5))
    model.add_joint("hinge", "revolute", "world", "base", axis=(0, 1, 0))
    model.add_joint("weld", "fixed", "base.frame_b", "tip")
    return model


def test_the_mesh_rule_is_mujocos_across_the_limit(monkeypatch):
    # a cone of length L, radii L/2 and L/5: V = pi L (r1^2 + r1 r2 + r2^2) / 3 = 0.1021 L^3,
    # 1e-15 m^3 at L = 21.4 um (the 16-sided mesh is a little smaller)
    limit = (MUJOCO_MINVAL / (math.pi * (0.25 + 0.1 + 0.04) / 3)) ** (1 / 3)
    verdicts = []
    for factor in (0.3, 0.9, 0.97, 1.1, 1.3, 3.0):
        model = tiny_cone(factor * limit)
        verdicts.append(rigidparts_accepts(model))
        assert verdicts[-1] == mujoco_accepts(model, monkeypatch), factor
    assert verdicts[0] is False and verdicts[-1] is True
    with pytest.raises(rp.ModelError) as info:
        to_mjcf(tiny_cone(1e-6))
    assert info.value.parameter == "bodies.tip" and "mesh" in str(info.value)
    assert "1e-15" in str(info.value)
    with pytest.raises(rp.ModelError, match="surface area"):
        to_mjcf(tiny_cone(1e-8))


def test_mesh_size_matches_the_exact_volume_and_area():
    trimesh = pytest.importorskip("trimesh")
    box = trimesh.creation.box(extents=(1.0, 2.0, 3.0))
    area, volume = mujoco_mesh_size(box.vertices, box.faces)
    assert area == pytest.approx(22.0, rel=1e-12) and volume == pytest.approx(6.0, rel=1e-12)


# -- contacts are opt-in -----------------------------------------------------------------------


def overlapping(contacts: bool | None = None) -> Model:
    """A fixed base, a hinged arm, and a block welded to the arm that overlaps the base: only
    a contact can move it (no gravity, no initial velocity)."""
    model = Model("overlap", gravity=(0, 0, 0))
    model.simulation.contacts = contacts
    model.add_body("base", rp.Box(length=0.2, width=0.2, height=0.2, axis=(0, 0, 1)))
    model.add_body("arm", rp.Box(length=0.3, width=0.02, height=0.02, axis=(1, 0, 0)))
    model.add_body("block", rp.Box(length=0.1, width=0.1, height=0.1, axis=(0, 0, -1)))
    model.add_joint("ground", "fixed", "world", "base")
    model.add_joint("hinge", "revolute", "base.frame_b", "arm", axis=(0, 1, 0))
    model.add_joint("weld", "fixed", "arm.frame_b", "block", position=(-0.2, 0, 0))
    return model


def test_contacts_are_off_unless_asked_for():
    assert np.all(simulate(overlapping(), duration=0.2).joint_positions["hinge"] == 0.0)
    assert np.all(
        simulate(overlapping(True), duration=0.2, contacts=False).joint_positions["hinge"] == 0.0
    )
    pushed = simulate(overlapping(True), duration=0.2).joint_positions["hinge"]
    assert np.max(np.abs(pushed)) > 1e-3
    pushed = simulate(overlapping(), duration=0.2, contacts=True).joint_positions["hinge"]
    assert np.max(np.abs(pushed)) > 1e-3
    with pytest.raises(rp.ParameterError) as info:
        simulate(overlapping(), duration=0.2, contacts="yes")
    assert info.value.parameter == "contacts"


def test_the_mjcf_file_carries_the_contact_setting():
    def flags(model: Model) -> list[str]:
        import xml.etree.ElementTree as ET

        return [f.get("contact") for f in ET.fromstring(to_mjcf(model)).iter("flag")]

    assert flags(overlapping()) == ["disable"] and flags(overlapping(False)) == ["disable"]
    assert flags(overlapping(True)) == []
    loaded = mujoco.MjModel.from_xml_string(to_mjcf(overlapping()))
    assert loaded.opt.disableflags & int(mujoco.mjtDisableBit.mjDSBL_CONTACT)


def test_contacts_in_the_model_file_and_on_the_command_line(tmp_path, capsys):
    text = (EXAMPLES / "pendulum.toml").read_text(encoding="utf-8")
    assert "[simulation]" in text
    on = tmp_path / "on.toml"
    on.write_text(text.replace("[simulation]", "[simulation]\ncontacts = true"), encoding="utf-8")
    assert load_model(on).simulation.contacts is True
    assert load_model(EXAMPLES / "pendulum.toml").simulation.contacts is None
    bad = tmp_path / "bad.toml"
    bad.write_text(text.replace("[simulation]", '[simulation]\ncontacts = "yes"'),
                   encoding="utf-8")  # fmt: skip
    with pytest.raises(rp.ModelError) as info:
        load_model(bad)
    assert info.value.parameter == "simulation.contacts" and "true or false" in str(info.value)
    for flag in ("--contacts", "--no-contacts"):
        assert main(["simulate", str(on), "--duration", "0.01", "-q", flag]) == 0
    assert main(["simulate", str(on), "--duration", "0.01", "-q"]) == 0
    assert capsys.readouterr().err == ""


def test_the_command_line_flags_reach_simulate(monkeypatch):
    import rigidparts.sim as sim

    seen = []
    real = sim.simulate
    monkeypatch.setattr(sim, "simulate", lambda model, **kw: seen.append(kw["contacts"]) or real(
        model, **kw))  # fmt: skip
    path = str(EXAMPLES / "pendulum.toml")
    for flags in ([], ["--contacts"], ["--no-contacts"]):
        assert main(["simulate", path, "--duration", "0.01", "-q", *flags]) == 0
    assert seen == [None, True, False]


# -- progress: a terminal only -----------------------------------------------------------------


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_status_line_shows_on_a_terminal_and_is_erased():
    stream = FakeTerminal()
    with Status("setting up", delay=0.0, interval=10.0, stream=stream) as status:
        assert status.shown.wait(10.0)
        status.update("compiling")
    text = stream.getvalue()
    assert text.startswith("\rsetting up (") and text.endswith("\r\x1b[K")


def test_nothing_off_a_terminal():
    stream = io.StringIO()
    with Status("setting up", delay=0.0, stream=stream) as status:
        status.update("compiling")
    assert stream.getvalue() == "" and not status.shown.is_set()
    with Status("setting up", enabled=False, delay=0.0, stream=FakeTerminal()) as status:
        pass
    assert not status.shown.is_set()


def test_the_animation_bar_stays_out_of_a_log(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    out = tmp_path / "swing.gif"
    argv = ["simulate", str(EXAMPLES / "pendulum.toml"), "--duration", "0.2", "--every", "20",
            "--animate", str(out)]  # fmt: skip
    assert main(argv) == 0
    assert out.stat().st_size > 0
    assert capsys.readouterr().err == ""  # stderr is not a terminal here: no bar


# -- too many steps (issue 23, item 6) ---------------------------------------------------------


@pytest.mark.parametrize("timestep", ["1e-300", "1e-320", "4e-13"])
def test_too_many_steps_is_said_in_words_not_digits(tmp_path, capsys, timestep):
    """5 s at 1e-300 s is 5e300 steps: one short line that says the steps are too many (no
    300-digit count; 1e-320 s makes duration / timestep overflow to inf)."""
    code = main(["simulate", str(EXAMPLES / "pendulum.toml"), "--duration", "5",
                 "--timestep", timestep, "-o", str(tmp_path / "run.csv")])  # fmt: skip
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: timestep={float(timestep)!r}: ")
    assert "too many steps" in lines[0] and "raise the timestep" in lines[0]
    assert len(lines[0]) < 250 and not any(len(word) > 20 for word in lines[0].split())
    assert list(tmp_path.iterdir()) == []


def test_too_many_rows_gives_a_readable_count():
    model = load_model(EXAMPLES / "pendulum.toml")
    with pytest.raises(rp.ParameterError, match=r"would record 50,000,000,001 rows") as info:
        simulate(model, duration=50.0, timestep=1e-9)
    assert info.value.parameter == "duration" and "raise record_every" in str(info.value)
    with pytest.raises(rp.ParameterError, match=r"would record 25,000,001 rows"):
        simulate(model, duration=25.0, timestep=1e-6)
