"""Rods: the massless spring-damper between two frames (``Model.add_rod``, TOML ``[[rods]]``),
its MJCF tendon, the URDF / SDFormat refusal, and its physics on MuJoCo checked against the
textbook:

- ``examples/spring_pendulum.toml`` (a 1 kg ball hanging from the world by a 100 N/m rod, free
  joint): the vertical oscillation is exactly harmonic, ``z(t) = z_eq + A cos(sqrt(k/m) t)``
  with ``z_eq = -(L0 + m g / k)``; with damping c the amplitude decays as ``exp(-c t / 2m)``
  at ``omega_d = sqrt(k/m - (c/2m)^2)``; pushed sideways it swings at ``sqrt(g / l_eq)``;
- MuJoCo's force on the bob is ``-(c dL/dt + k (L - L0))`` along the rod, at any state;
- ``examples/wheel_on_axle.toml`` (six shapes and a rod) loads, exports and runs.
"""

from __future__ import annotations

import math
import textwrap
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rigidparts as rp
from rigidparts.commands import main
from rigidparts.export import export
from rigidparts.export.mjcf import to_mjcf
from rigidparts.export.sdf import to_sdf
from rigidparts.export.urdf import to_urdf
from rigidparts.model import Model, Rod, load_model, model_from_dict
from rigidparts.model.toml_format import ROD_KEYS

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
G = 9.81


def two_bodies() -> Model:
    """A bar hinged to the world and a ball welded below it (frames to hang rods on)."""
    model = Model("two")
    model.add_body("arm", rp.Box(length=1, width=0.02, height=0.02, axis=(0, 0, -1)))
    model.add_body("bob", rp.Ball(radius=0.05))
    model.add_joint("hinge", "revolute", "world", "arm.frame_a", axis=(0, 1, 0),
                    position=(0, 0, 1.5), initial=0.3)  # fmt: skip
    model.add_joint("weld", "fixed", "arm.frame_b", "bob")
    return model


# -- the Python API --------------------------------------------------------------------------


def test_defaults_are_the_originals_and_frames_are_completed():
    model = two_bodies()
    rod = model.add_rod("spring", "world", "arm")
    assert isinstance(rod, Rod) and model.rods == {"spring": rod}
    assert (rod.rest_length, rod.stiffness, rod.damping) == (1.0, 1e6, 1e4)
    assert (rod.frame_a, rod.frame_b) == ("world", "arm.frame_a")
    assert (rod.body_a, rod.frame_name_a, rod.body_b, rod.frame_name_b) == (
        None, None, "arm", "frame_a",
    )  # fmt: skip
    second = model.add_rod("other", "arm.frame_b", "bob.frame_com", rest_length=0)
    assert second.index == 1 and list(model.rods) == ["spring", "other"]


@pytest.mark.parametrize(
    ("keyword", "given", "expected"),
    [
        ("rest_length", "500 mm", 0.5),
        ("rest_length", 2, 2.0),
        ("stiffness", "2 kN/m", 2000.0),
        ("stiffness", "3 N/mm", 3000.0),
        ("damping", "50 N*s/m", 50.0),
        ("damping", "0.5 kN s/m", 500.0),
        ("damping", "7 kg/s", 7.0),
        ("damping", 0, 0.0),
    ],
)
def test_units(keyword, given, expected):
    rod = two_bodies().add_rod("spring", "world", "bob", **{keyword: given})
    assert getattr(rod, keyword) == pytest.approx(expected, rel=1e-15)


@pytest.mark.parametrize(
    ("frames", "kwargs", "parameter", "words"),
    [
        (("world", "bob"), {"rest_length": -0.1}, "rods[0].rest_length", "non-negative"),
        (("world", "bob"), {"stiffness": float("nan")}, "rods[0].stiffness", "finite"),
        (("world", "bob"), {"damping": float("inf")}, "rods[0].damping", "finite"),
        (("world", "bob"), {"damping": "-1 N*s/m"}, "rods[0].damping", "non-negative"),
        (("world", "bob"), {"stiffness": True}, "rods[0].stiffness", "boolean"),
        (("world", "bob"), {"stiffness": "2 kN"}, "rods[0].stiffness", "expected a stiffness"),
        (("world", "bob"), {"damping": "2 N/m"}, "rods[0].damping", "expected a damping"),
        (("world", "bob"), {"rest_length": "1 kg"}, "rods[0].rest_length", "expected a length"),
        (("world", "bob"), {"rest_length": [1]}, "rods[0].rest_length", "must be a number"),
        (("world", "nobody.frame_a"), {}, "rods[0].frame_b", "names no body 'nobody'"),
        (("arm.frame_z", "bob"), {}, "rods[0].frame_a", "has no frame 'frame_z'"),
        (("world", 3), {}, "rods[0].frame_b", "must be a frame name"),
        (("arm.frame_a", "arm.frame_b"), {}, "rods[0].frame_b", "both ends are on body 'arm'"),
        (("world", "world"), {}, "rods[0].frame_b", "both ends are on the world"),
    ],
)
def test_bad_rods_are_model_errors_naming_the_field_and_the_rod(frames, kwargs, parameter, words):
    model = two_bodies()
    with pytest.raises(rp.ModelError) as info:
        model.add_rod("spring", *frames, **kwargs)
    assert info.value.parameter == parameter
    assert words in str(info.value)
    assert model.rods == {}


@pytest.mark.parametrize("name", ["arm", "hinge", "spring", "a.b", "world", "", 7])
def test_rod_names_are_valid_and_unique_among_bodies_joints_and_rods(name):
    model = two_bodies()
    model.add_rod("spring", "world", "bob")
    with pytest.raises(rp.ModelError) as info:
        model.add_rod(name, "world", "arm")
    assert info.value.parameter == "rods[1].name"
    assert list(model.rods) == ["spring"]


def test_bodies_and_joints_cannot_take_a_rods_name():
    model = two_bodies()
    model.add_rod("spring", "world", "bob")
    with pytest.raises(rp.ModelError, match="already used"):
        model.add_body("spring", rp.Ball())
    with pytest.raises(rp.ModelError, match="already used"):
        model.add_joint("spring", "fixed", "bob", "arm")


def test_tension_is_the_originals_law():
    rod = two_bodies().add_rod("s", "world", "bob", rest_length=0.5, stiffness=200, damping=3)
    # f = K_d dL/dt + K_s (L - L0), written out: 3 * 0.25 + 200 * (0.7 - 0.5) = 40.75 N
    assert rod.tension(0.7, 0.25) == pytest.approx(40.75, rel=1e-15)
    assert rod.tension(0.4) == pytest.approx(-20.0, rel=1e-15)  # compressed: pushes
    lengths = np.array([0.5, 0.6, 0.3])
    assert rod.tension(lengths, -1.0).tolist() == pytest.approx([-3.0, 17.0, -43.0], rel=1e-15)


def test_length_is_the_distance_between_the_frames_at_q():
    model = two_bodies()
    rod = model.add_rod("s", "world", "arm.frame_b")
    for angle in (0.0, 0.3, -1.1):
        # arm.frame_b is 1 m down the bar from the hinge at (0, 0, 1.5), turned about y
        end = np.array([0, 0, 1.5]) + np.array([-math.sin(angle), 0, -math.cos(angle)])
        got = rod.length(model.frame_poses({"hinge": angle}))
        assert got == pytest.approx(float(np.linalg.norm(end)), rel=1e-15)
    hang = model.add_rod("h", "arm.frame_a", "bob.frame_a")
    assert hang.length(model.frame_poses()) == pytest.approx(1.0, rel=1e-15)


def test_to_dict_round_trips_and_models_without_rods_are_unchanged():
    model = two_bodies()
    assert "rods" not in model.to_dict()
    model.add_rod("s", "world", "bob", rest_length="20 cm", stiffness="1 kN/m", damping=5)
    data = model.to_dict()
    assert data["rods"] == [
        {"name": "s", "frame_a": "world", "frame_b": "bob.frame_a", "rest_length": 0.2,
         "stiffness": 1000.0, "damping": 5.0}
    ]  # fmt: skip
    assert model_from_dict(data).rods["s"] == model.rods["s"]


# -- the model file ----------------------------------------------------------------------------

ROD_MODEL = """\
name = "rods"

[bodies.arm]
shape = "box"
length = 1
width = 0.02
height = 0.02
axis = [0, 0, -1]

[bodies.bob]
shape = "ball"
radius = 0.05

[[joints]]
name = "hinge"
type = "revolute"
parent = "world"
child = "arm.frame_a"
axis = [0, 1, 0]

[[joints]]
name = "weld"
type = "fixed"
parent = "arm.frame_b"
child = "bob.frame_a"

[[rods]]
name = "spring"
frame_a = "world"
frame_b = "arm.frame_b"
rest_length = "500 mm"
stiffness = "2 kN/m"
damping = "50 N*s/m"

[[rods]]
name = "strap"
frame_a = "arm"
frame_b = "bob.frame_com"
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "model.toml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_the_rods_table_with_units_and_defaults(tmp_path):
    model = load_model(write(tmp_path, ROD_MODEL))
    spring, strap = model.rods.values()
    assert (spring.rest_length, spring.stiffness, spring.damping) == (0.5, 2000.0, 50.0)
    assert (spring.frame_a, spring.frame_b) == ("world", "arm.frame_b")
    assert (strap.rest_length, strap.stiffness, strap.damping) == (1.0, 1e6, 1e4)
    assert (strap.frame_a, strap.frame_b, strap.index) == ("arm.frame_a", "bob.frame_com", 1)


@pytest.mark.parametrize(
    ("old", "new", "parameter", "line", "words"),
    [
        ('damping = "50 N*s/m"', 'dampng = "50 N*s/m"', "rods[0].dampng", 33, "unknown rod key"),
        ('stiffness = "2 kN/m"', 'stiffness = "-2 kN/m"', "rods[0].stiffness", 32, "non-neg"),
        ('stiffness = "2 kN/m"', 'stiffness = "2 kN"', "rods[0].stiffness", 32, "a stiffness"),
        ('rest_length = "500 mm"', "rest_length = nan", "rods[0].rest_length", 31, "finite"),
        ('frame_b = "arm.frame_b"', 'frame_b = "arm.frame_q"', "rods[0].frame_b", 30, "no frame"),
        ('frame_b = "arm.frame_b"', 'frame_b = "world"', "rods[0].frame_b", 30, "pointless"),
        ('frame_b = "arm.frame_b"', "", "rods[0].frame_b", 27, "every rod needs 'frame_b'"),
        ('name = "strap"', 'name = "weld"', "rods[1].name", 36, "already used"),
        ('frame_b = "bob.frame_com"', 'frame_b = "arm.frame_b"', "rods[1].frame_b", 38, "arm"),
    ],
)
def test_rod_errors_name_the_file_the_line_and_the_item(tmp_path, old, new, parameter, line, words):
    assert ROD_MODEL.count(old) == 1
    path = write(tmp_path, ROD_MODEL.replace(old, new))
    with pytest.raises(rp.ModelError) as info:
        load_model(path)
    error = info.value
    assert (error.parameter, error.line, error.source) == (parameter, line, str(path))
    assert words in str(error)
    assert str(error).startswith(f"{path}:{line}: {parameter}=")


def test_rods_must_be_a_list_of_tables(tmp_path):
    data = tomllib.loads(ROD_MODEL)
    data["rods"] = [data["rods"][0], 5]
    with pytest.raises(rp.ModelError, match=r"rods\[1\]=5: must be a table"):
        model_from_dict(data)
    table = ROD_MODEL.split("[[rods]]")[0] + '[rods.spring]\nframe_a = "world"\n'
    path = write(tmp_path, table)
    with pytest.raises(rp.ModelError) as info:
        load_model(path)
    assert (info.value.parameter, info.value.line) == ("rods", 27)
    assert "must be a list of rods ([[rods]] tables)" in str(info.value)


toml_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**20), 10**20)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.sampled_from(["", "1 m", "2 kN/m", "-3 N*s/m", "world", "arm.frame_b", "bob", "5 kg"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=6,
)
PLACES = [
    ("rods",),
    ("rods", 0),
    *[("rods", 0, key) for key in ROD_KEYS],
    ("rods", 1, "x"),
]


@settings(max_examples=150)
@given(st.sampled_from(PLACES), toml_values)
def test_any_value_in_a_rod_is_a_model_error_or_a_model(place, value):
    data = tomllib.loads(ROD_MODEL)
    target = data
    for key in place[:-1]:
        target = target[key]
    target[place[-1]] = value
    try:
        model_from_dict(data, source="fuzz.toml", text=ROD_MODEL)
    except rp.ModelError as error:
        assert str(error).startswith("fuzz.toml")


# -- export --------------------------------------------------------------------------------


def test_mjcf_writes_each_rod_as_a_spatial_tendon_between_two_sites():
    model = load_model(EXAMPLES / "wheel_on_axle.toml")
    root = ET.fromstring(to_mjcf(model))
    (spatial,) = root.findall("tendon/spatial")
    assert spatial.attrib == {
        "name": "spring", "springlength": "0.6", "stiffness": "300.0", "damping": "2.0",
        "width": "0.01",
    }  # fmt: skip
    assert [s.get("site") for s in spatial] == ["beam.frame_b", "bob.frame_a"]
    sites = {s.get("name") for s in root.iter("site")}
    assert {"beam.frame_b", "bob.frame_a"} <= sites and "world" not in sites
    pendulum = ET.fromstring(to_mjcf(load_model(EXAMPLES / "spring_pendulum.toml")))
    (world_site,) = pendulum.findall("worldbody/site")
    assert world_site.attrib == {"name": "world", "pos": "0.0 0.0 0.0"}
    plain = ET.fromstring(to_mjcf(two_bodies()))
    assert plain.find("tendon") is None and plain.find("worldbody/site") is None


@pytest.mark.parametrize(("writer", "name"), [(to_urdf, "URDF"), (to_sdf, "SDFormat")])
def test_urdf_and_sdf_refuse_a_model_with_a_rod_by_name(writer, name):
    model = load_model(EXAMPLES / "wheel_on_axle.toml")
    with pytest.raises(rp.ModelError) as info:
        writer(model)
    assert info.value.parameter == "rods[0]" and info.value.value == "spring"
    assert f"{name} has no element for a spring-damper" in str(info.value)
    assert "export MJCF" in str(info.value)


@pytest.mark.parametrize("suffix", [".urdf", ".sdf"])
def test_the_command_line_refuses_with_exit_2_and_writes_nothing(tmp_path, capsys, suffix):
    out = tmp_path / f"wheel{suffix}"
    status = main(["export", str(EXAMPLES / "wheel_on_axle.toml"), "-o", str(out)])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2
    assert len(err) == 1 and err[0].startswith("error: rods[0]='spring': ")
    assert list(tmp_path.iterdir()) == []


def test_the_wheel_without_its_rod_exports_to_every_format(tmp_path):
    data = tomllib.loads((EXAMPLES / "wheel_on_axle.toml").read_text(encoding="utf-8"))
    del data["rods"]
    model = model_from_dict(data)
    for suffix in (".xml", ".urdf", ".sdf"):
        export(model, tmp_path / f"wheel{suffix}")
        assert (tmp_path / f"wheel{suffix}").stat().st_size > 0


# -- on MuJoCo -------------------------------------------------------------------------------

mujoco = pytest.importorskip("mujoco")

from rigidparts.sim import simulate  # noqa: E402


def mujoco_model(model: Model):
    return mujoco.MjModel.from_xml_string(to_mjcf(model))


def test_mujocos_tendon_length_is_the_rods_length():
    model = load_model(EXAMPLES / "wheel_on_axle.toml")
    mj = mujoco_model(model)
    data = mujoco.MjData(mj)
    rod = model.rods["spring"]
    for bearing, crank in [(0.0, 0.0), (0.7, -1.2), (2.5, 0.4)]:
        data.qpos[:] = [bearing, crank]
        mujoco.mj_forward(mj, data)
        expected = rod.length(model.frame_poses({"bearing": bearing, "crank": crank}))
        assert data.ten_length[0] == pytest.approx(expected, rel=1e-14)


def test_mujocos_force_on_the_bob_is_the_rods_tension_along_it():
    model = load_model(EXAMPLES / "spring_pendulum.toml")
    data_file = tomllib.loads((EXAMPLES / "spring_pendulum.toml").read_text(encoding="utf-8"))
    data_file["rods"][0]["damping"] = 3.0
    model = model_from_dict(data_file)
    mj = mujoco_model(model)
    data = mujoco.MjData(mj)
    k, c, rest = 100.0, 3.0, 0.5
    rng = np.random.default_rng(9)
    for _ in range(5):
        p = rng.uniform(-0.8, 0.8, 3)
        v = rng.uniform(-2.0, 2.0, 3)
        data.qpos[:] = [*p, 1, 0, 0, 0]
        data.qvel[:] = [*v, 0, 0, 0]
        mujoco.mj_forward(mj, data)
        length = float(np.linalg.norm(p))
        u = p / length  # from the anchor (world origin) to the bob
        tension = c * float(u @ v) + k * (length - rest)  # f = K_d dL/dt + K_s (L - L0)
        np.testing.assert_allclose(data.qfrc_passive[:3], -tension * u, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(data.qfrc_passive[3:], 0, atol=1e-15)


def spring_pendulum(damping: float = 0.0, initial: list[float] | None = None) -> Model:
    """The shipped example, optionally with another damping or initial state."""
    data = tomllib.loads((EXAMPLES / "spring_pendulum.toml").read_text(encoding="utf-8"))
    data["rods"][0]["damping"] = damping
    if initial is not None:
        data["joints"][0]["initial"] = initial
    return model_from_dict(data, default_name="spring_pendulum")


# The example's figures, stated here independently of the file (and checked against it).
MASS, STIFFNESS, REST, Z0 = 1.0, 100.0, 0.5, -0.61
OMEGA = math.sqrt(STIFFNESS / MASS)  # 10 rad/s
Z_EQ = -(REST + MASS * G / STIFFNESS)  # -0.5981 m


def test_the_example_is_what_the_analysis_assumes():
    model = load_model(EXAMPLES / "spring_pendulum.toml")
    rod = model.rods["spring"]
    assert (rod.rest_length, rod.stiffness, rod.damping) == (REST, STIFFNESS, 0.0)
    assert model.bodies["bob"].mass == MASS
    assert model.bodies["bob"].center_of_mass.tolist() == [0, 0, 0]  # the rod acts at the COM
    assert model.joints["float"].initial[:3].tolist() == [0, 0, Z0]
    assert model.simulation.timestep == 1e-3 and model.simulation.integrator == "RK4"


def crossing_times(t: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Upward zero crossings of ``y``, linearly interpolated between samples."""
    i = np.flatnonzero((y[:-1] < 0) & (y[1:] >= 0))
    return t[i] - y[i] * (t[i + 1] - t[i]) / (y[i + 1] - y[i])


def test_the_spring_pendulum_bobs_at_sqrt_k_over_m():
    """Tolerance 3 (omega h)^4 / 120 = 2.5e-10 relative: RK4 shifts a harmonic oscillator's
    frequency by -(omega h)^4 / 120 (8.3e-11 at omega h = 0.01, h = 1 ms); the least-squares
    fit adds about 1e-11. A 1e-9 error in the mass or stiffness would fail it."""
    from scipy.optimize import curve_fit

    result = simulate(load_model(EXAMPLES / "spring_pendulum.toml"))  # 5 s, 1 ms, RK4
    t = result.time
    y = result.body_positions["bob"][:, 2] - Z_EQ
    assert np.abs(result.body_positions["bob"][:, :2]).max() == 0  # straight up and down
    crossings = crossing_times(t, y)
    guess = 2 * math.pi / np.mean(np.diff(crossings))  # the fit starts from the data

    def harmonic(t, a, b, omega, offset):
        return a * np.cos(omega * t) + b * np.sin(omega * t) + offset

    (a, b, omega, offset), _ = curve_fit(harmonic, t, y, p0=[y[0], 0.0, guess, 0.0])
    error = omega / OMEGA - 1
    assert abs(error) <= 3 * (OMEGA * 1e-3) ** 4 / 120, error
    assert error == pytest.approx(-((OMEGA * 1e-3) ** 4) / 120, rel=0.1)  # all of it is RK4's
    assert abs(offset) <= 1e-9  # the equilibrium is L0 + m g / k below the anchor, to 1 nm
    assert a == pytest.approx(Z0 - Z_EQ, rel=1e-8) and abs(b) <= 1e-9
    # the whole trajectory is the textbook one, to RK4's accumulated phase error
    expected = (Z0 - Z_EQ) * np.cos(OMEGA * t)
    assert np.abs(y - expected).max() <= 1e-8 * abs(Z0 - Z_EQ)
    # energy (MuJoCo's includes the spring's k (L - L0)^2 / 2) is conserved
    assert np.ptp(result.energy) <= 1e-11 * abs(result.energy[0])


def test_damping_decays_the_amplitude_as_exp_minus_c_t_over_2m():
    """c = 0.4 N s/m: gamma = c / 2m = 0.2 1/s, omega_d = sqrt(k/m - gamma^2). Tolerance 1e-8
    relative on gamma: RK4 moves the eigenvalue -gamma +- i omega_d by |lambda| (|lambda|
    h)^4 / 120 = 8.3e-10 1/s, 4.2e-9 of gamma."""
    from scipy.optimize import curve_fit

    c = 0.4
    gamma = c / (2 * MASS)
    omega_d = math.sqrt(OMEGA**2 - gamma**2)
    result = simulate(spring_pendulum(damping=c), duration=5)
    t = result.time
    y = result.body_positions["bob"][:, 2] - Z_EQ
    guess_omega = 2 * math.pi / np.mean(np.diff(crossing_times(t, y)))
    peaks = np.flatnonzero((y[1:-1] > y[:-2]) & (y[1:-1] >= y[2:])) + 1
    guess_gamma = -np.log(y[peaks[-1]] / y[peaks[0]]) / (t[peaks[-1]] - t[peaks[0]])

    def decaying(t, a, b, omega, rate):
        return np.exp(-rate * t) * (a * np.cos(omega * t) + b * np.sin(omega * t))

    p0 = [y[0], 0.0, guess_omega, guess_gamma]
    (_, _, omega, rate), _ = curve_fit(decaying, t, y, p0=p0)
    assert abs(rate / gamma - 1) <= 1e-8, rate
    assert abs(omega / omega_d - 1) <= 1e-9, omega
    assert abs(gamma / (c / MASS) - 1) > 0.4  # a c t / m decay would be twice as fast
    # started at rest: y = A exp(-gamma t) (cos omega_d t + gamma / omega_d sin omega_d t)
    amplitude = Z0 - Z_EQ
    wt = omega_d * t
    expected = amplitude * np.exp(-gamma * t) * (np.cos(wt) + gamma / omega_d * np.sin(wt))
    assert np.abs(y - expected).max() <= 1e-8 * abs(amplitude)


def test_pushed_sideways_it_swings_at_sqrt_g_over_the_stretched_length():
    """Small-oscillation theory of the elastic pendulum: the swing is a pendulum of the
    equilibrium length l = L0 + m g / k, at sqrt(g / l) (the rod's force is along the line to
    the anchor, not vertical). At 1 mrad the finite-amplitude correction is O(theta^2) = 1e-6;
    using L0 instead of l would miss by 9 %."""
    ell = -Z_EQ
    theta = 1e-3
    model = spring_pendulum(initial=[ell * math.sin(theta), 0, -ell * math.cos(theta), 1, 0, 0, 0])
    result = simulate(model, duration=8)
    crossings = crossing_times(result.time, -result.body_positions["bob"][:, 0])
    period = float(np.mean(np.diff(crossings)))
    expected = 2 * math.pi * math.sqrt(ell / G)
    assert len(crossings) >= 4
    assert abs(period / expected - 1) <= 1e-6
    assert abs(2 * math.pi * math.sqrt(REST / G) / expected - 1) > 0.08


def test_the_wheel_on_its_axle_loads_exports_and_runs(tmp_path):
    model = load_model(EXAMPLES / "wheel_on_axle.toml")
    shapes = {type(body).__name__ for body in model.bodies.values()}
    assert shapes == {"IBeam", "Box", "Cylinder", "Disk", "Linkage", "Ball"}
    assert list(model.rods) == ["spring"]
    export(model, tmp_path / "wheel.xml")
    mj = mujoco.MjModel.from_xml_path(str(tmp_path / "wheel.xml"))
    assert mj.ntendon == 1 and mj.nbody == 7 and mj.nv == 2
    result = simulate(model, duration=1.0)
    assert result.time[-1] == pytest.approx(1.0, rel=1e-12)
    for values in (*result.joint_positions.values(), result.energy):
        assert np.all(np.isfinite(values))
    # the spring does work on the bob: without it the same start ends elsewhere
    data = tomllib.loads((EXAMPLES / "wheel_on_axle.toml").read_text(encoding="utf-8"))
    del data["rods"]
    free = simulate(model_from_dict(data), duration=1.0)
    assert abs(free.joint_positions["crank"][-1] - result.joint_positions["crank"][-1]) > 1e-3
