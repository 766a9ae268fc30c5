"""What each installed engine reads from a file, and the known causes of its disagreements
with the file (rigidparts.checking.engines).

Every known cause of the catalogue is reproduced here by a one-link fixture written to a
temporary folder, loaded in the real engines; the reference values are computed in this file
from the fixture's own numbers (URDF: ``I_L = R I R^T``, ``R = Rz(yaw) Ry(pitch) Rx(roll)``
through scipy; composites by the parallel-axis theorem written out by hand), never by the
module under test. Each engine's test skips when the engine is not installed.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation

from rigidparts.checking import engines as eng
from rigidparts.checking.engines import (
    KNOWN_CAUSES,
    EngineInertial,
    EngineReading,
    compare,
    engine_readings,
)


def installed(*modules: str) -> bool:
    import importlib.util

    return all(importlib.util.find_spec(m) is not None for m in modules)


HAVE = {
    "mujoco": installed("mujoco"),
    "drake": installed("pydrake"),
    "pinocchio": installed("pinocchio"),
    "pybullet": installed("pybullet"),
    "usd": installed("pxr"),
    "newton": installed("newton", "warp", "pxr"),
}


#: The engines compute these values in a handful of float64 operations (sums, products, one
#: division), each rounding by at most eps/2 of its result: 64 eps of the values' scale bounds
#: dozens of such roundings (the values are O(1), so no cancellation enlarges them).
TIGHT = 64 * np.finfo(np.float64).eps


def near(got, want) -> bool:
    """``got`` within :data:`TIGHT` of ``want``'s largest magnitude, entry by entry."""
    want = np.asarray(want, dtype=np.float64)
    return bool(np.allclose(got, want, rtol=0, atol=TIGHT * float(np.max(np.abs(want)))))


def need(*names: str) -> None:
    for name in names:
        if not HAVE[name]:
            pytest.skip(f"{name} is not installed")


# -- fixtures: one moving link on a revolute joint off the world -----------------------------

BOX = '<collision><geometry><box size="0.4 0.2 0.1"/></geometry></collision>'


def inertial(mass="1.0", xyz="0.1 0 0", rpy="0 0 0", six=("0.1", "0", "0", "0.2", "0", "0.25")):
    ixx, ixy, ixz, iyy, iyz, izz = six
    return (
        f'<inertial><origin xyz="{xyz}" rpy="{rpy}"/><mass value="{mass}"/>'
        f'<inertia ixx="{ixx}" ixy="{ixy}" ixz="{ixz}" iyy="{iyy}" iyz="{iyz}" izz="{izz}"/>'
        "</inertial>"
    )


def one_link_urdf(body: str, *, extra: str = "") -> str:
    """``world`` -- revolute ``j`` (1 m up, about y) -- ``link`` holding ``body``."""
    return (
        '<robot name="fixture">\n  <link name="world"/>\n'
        f'  <link name="link">{body}</link>\n'
        '  <joint name="j" type="revolute"><parent link="world"/><child link="link"/>'
        '<origin xyz="0 0 1"/><axis xyz="0 1 0"/>'
        '<limit lower="-1" upper="1" effort="1" velocity="1"/></joint>\n'
        f"{extra}</robot>\n"
    )


def urdf_reference(mass=1.0, xyz=(0.1, 0, 0), rpy=(0, 0, 0), six=(0.1, 0, 0, 0.2, 0, 0.25)):
    """The link's mass, centre of mass and central inertia in the link frame, from the file's
    numbers: the tensor is given in the inertial frame, turned by rpy."""
    ixx, ixy, ixz, iyy, iyz, izz = (float(v) for v in six)
    tensor = np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])
    r = Rotation.from_euler("xyz", rpy).as_matrix()
    return (float(mass), np.array(xyz, dtype=float), r @ tensor @ r.T)


FIXTURES: dict[str, tuple[str, str, dict]] = {
    # name: (suffix, text, reference)
    "valid": (".urdf", one_link_urdf(inertial(rpy="0.3 -0.2 1.1")),
              {"link": urdf_reference(rpy=(0.3, -0.2, 1.1))}),
    "triangle": (".urdf", one_link_urdf(inertial(six=("0.1", "0", "0", "0.1", "0", "0.3"))),
                 {"link": urdf_reference(six=(0.1, 0, 0, 0.1, 0, 0.3))}),
    "negative": (".urdf", one_link_urdf(inertial(six=("0.1", "0.2", "0", "0.1", "0", "0.15"))),
                 {"link": urdf_reference(six=(0.1, 0.2, 0, 0.1, 0, 0.15))}),
    "zero_mass": (".urdf", one_link_urdf(inertial(mass="0", six=("0",) * 6)),
                  {"link": urdf_reference(mass=0.0, six=(0,) * 6)}),
    "zero_mass_with_inertia": (".urdf", one_link_urdf(inertial(mass="0")),
                               {"link": urdf_reference(mass=0.0)}),
    # no <inertial>: rigidparts' reading is the file's, massless (the geometry is another check)
    "no_inertial": (".urdf", one_link_urdf(BOX),
                    {"link": (0.0, np.zeros(3), np.zeros((3, 3)))}),
    "tiny": (".urdf", one_link_urdf(inertial(mass="1e-3", six=("1e-12", "0", "0", "1e-12",
                                                                "0", "1e-12"))),
             {"link": urdf_reference(mass=1e-3, six=(1e-12, 0, 0, 1e-12, 0, 1e-12))}),
    # products of inertia just below pybullet's stopping threshold (1e-6 of the trace)
    "products": (".urdf", one_link_urdf(inertial(xyz="0 0 0",
                                                 six=("1", "5e-6", "4e-6", "2", "0", "3"))),
                 {"link": urdf_reference(xyz=(0, 0, 0), six=(1, 5e-6, 4e-6, 2, 0, 3))}),
    # a 0.5 kg tip on a fixed joint 0.6 m up the link's z axis
    "fixed_child": (".urdf", one_link_urdf(
        inertial(xyz="0 0 0.3", six=("0.1", "0", "0", "0.1", "0", "0.05")),
        extra='  <link name="tip">' + inertial(mass="0.5", xyz="0 0 0",
                                               six=("0.01", "0", "0", "0.01", "0", "0.01"))
        + '</link>\n  <joint name="f" type="fixed"><parent link="link"/><child link="tip"/>'
        '<origin xyz="0 0 0.6"/></joint>\n'),
        {"link": urdf_reference(xyz=(0, 0, 0.3), six=(0.1, 0, 0, 0.1, 0, 0.05)),
         "tip": urdf_reference(mass=0.5, xyz=(0, 0, 0), six=(0.01, 0, 0, 0.01, 0, 0.01))}),
    # the file asks MuJoCo to repair: balanceinertia, boundmass, boundinertia
    "mujoco_repairs": (".urdf", one_link_urdf(
        inertial(six=("0.1", "0", "0", "0.1", "0", "0.3")),
        extra='  <mujoco><compiler balanceinertia="true"/></mujoco>\n'),
        {"link": urdf_reference(six=(0.1, 0, 0, 0.1, 0, 0.3))}),
    "mujoco_bounds": (".urdf", one_link_urdf(
        inertial(mass="0.1", six=("0.001", "0", "0", "0.002", "0", "0.0025")),
        extra='  <mujoco><compiler boundmass="0.5" boundinertia="0.01"/></mujoco>\n'),
        {"link": urdf_reference(mass=0.1, six=(0.001, 0, 0, 0.002, 0, 0.0025))}),
    # SDFormat: the inertial pose turned by roll, pitch, yaw (0.3, -0.2, 1.1)
    "sdf": (".sdf", '<?xml version="1.0"?><sdf version="1.9"><model name="fixture">'
            '<link name="base"><inertial><mass>1</mass><inertia><ixx>0.1</ixx><iyy>0.1</iyy>'
            "<izz>0.1</izz><ixy>0</ixy><ixz>0</ixz><iyz>0</iyz></inertia></inertial></link>"
            '<link name="link"><pose>0 0 1 0 0 0</pose><inertial>'
            "<pose>0.1 0 0 0.3 -0.2 1.1</pose><mass>1</mass><inertia><ixx>0.1</ixx>"
            "<iyy>0.2</iyy><izz>0.25</izz><ixy>0</ixy><ixz>0</ixz><iyz>0</iyz></inertia>"
            '</inertial></link><joint name="j" type="revolute"><parent>base</parent>'
            "<child>link</child><axis><xyz>0 1 0</xyz><limit><lower>-1</lower>"
            "<upper>1</upper></limit></axis></joint></model></sdf>",
            {"base": urdf_reference(xyz=(0, 0, 0), six=(0.1, 0, 0, 0.1, 0, 0.1)),
             "link": urdf_reference(rpy=(0.3, -0.2, 1.1))}),
    "mjcf": (".xml", '<mujoco model="fixture"><worldbody><body name="link" pos="0 0 1">'
             '<joint name="j" type="hinge" axis="0 1 0"/>'
             '<inertial pos="0.1 0 0" mass="1" diaginertia="0.1 0.2 0.25"/>'
             "</body></worldbody></mujoco>",
             {"link": (1.0, np.array([0.1, 0, 0]), np.diag([0.1, 0.2, 0.25]))}),
}  # fmt: skip


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("engines")


_CACHE: dict[tuple[str, tuple[str, ...]], dict[str, EngineReading]] = {}


def readings(folder: Path, name: str, *engines: str) -> dict[str, EngineReading]:
    key = (name, engines)
    if key not in _CACHE:
        suffix, text, _ = FIXTURES[name]
        path = folder / f"{name}{suffix}"
        path.write_text(text, encoding="utf-8")
        _CACHE[key] = engine_readings(path, engines=engines)
    return _CACHE[key]


def disagreements(folder: Path, name: str, *engines: str):
    return compare(readings(folder, name, *engines), FIXTURES[name][2])


def causes(found, engine: str, link: str | None = "link") -> dict[str, str | None]:
    """quantity -> cause code of the disagreements of one engine and link."""
    return {d.quantity: d.cause_code for d in found if d.engine == engine and d.link == link}


# -- the readings themselves ------------------------------------------------------------------


@pytest.mark.parametrize("engine", ["mujoco", "drake", "pinocchio", "pybullet-inertia-from-file"])
def test_a_valid_link_reads_the_same_in_every_double_precision_engine(folder, engine):
    """A rotated inertial frame (rpy) and a full tensor: MuJoCo, Drake and Pinocchio hold
    exactly the file's values in the link frame; pybullet (inertia from file) within its
    diagonalisation's 1e-6 of the trace."""
    need(engine.split("-")[0])
    found = disagreements(folder, "valid", engine)
    reading = readings(folder, "valid", engine)[engine]
    assert reading.loaded and "link" in reading.links
    mass, com, inertia = FIXTURES["valid"][2]["link"]
    got = reading.links["link"]
    assert got.mass == mass
    assert np.max(np.abs(got.center_of_mass - com)) <= 1e-15
    assert np.max(np.abs(got.inertia - inertia)) <= 1e-6 * np.trace(inertia)
    for d in found:  # the only differences are pybullet's known diagonalisation loss
        assert d.cause_code == "pybullet-diagonalisation", str(d)


def test_a_refusal_is_a_result_not_an_exception(folder):
    need("mujoco")
    reading = readings(folder, "triangle", "mujoco")["mujoco"]
    assert not reading.loaded and "A + B >= C" in reading.error and not reading.links


def test_a_missing_engine_is_skipped_with_a_note(folder, monkeypatch):
    monkeypatch.setattr(eng, "_installed", lambda engine: engine != "drake")
    path = folder / "skip.urdf"
    path.write_text(FIXTURES["valid"][1], encoding="utf-8")
    found = engine_readings(path, engines=["drake"])
    assert found["drake"].skipped == "drake is not installed: pip install drake"
    assert compare(found, FIXTURES["valid"][2]) == []


def test_formats_and_engines_that_read_them(folder):
    path = folder / "robot.xml"
    path.write_text(FIXTURES["mjcf"][1], encoding="utf-8")
    assert eng.file_format(path) == "mjcf"
    urdf = folder / "robot_urdf.xml"
    urdf.write_text(FIXTURES["valid"][1], encoding="utf-8")
    assert eng.file_format(urdf) == "urdf"
    with pytest.raises(ValueError, match="unknown model file suffix"):
        eng.file_format(folder / "robot.obj")
    with pytest.raises(ValueError, match="unknown engine 'gazebo'"):
        engine_readings(path, engines=["gazebo"])
    with pytest.raises(FileNotFoundError, match="no such file"):
        engine_readings(folder / "absent.urdf")


def test_drake_warnings_are_captured_not_printed(folder, capfd):
    need("drake")
    path = folder / "drake_quiet.urdf"
    path.write_text(FIXTURES["triangle"][1], encoding="utf-8")
    reading = engine_readings(path, engines=["drake"])["drake"]
    out, err = capfd.readouterr()
    assert "While parsing inertia matrix" in reading.output
    assert "While parsing" not in out + err


# -- each known cause, reproduced ------------------------------------------------------------


def test_mujoco_refuses_the_triangle_inequality(folder):
    need("mujoco")
    found = disagreements(folder, "triangle", "mujoco")
    assert [(d.quantity, d.cause_code) for d in found] == [("refused", "mujoco-triangle")]


def test_mujoco_refuses_a_negative_eigenvalue(folder):
    need("mujoco")
    found = disagreements(folder, "negative", "mujoco")
    assert [(d.quantity, d.cause_code) for d in found] == [("refused", "mujoco-eigenvalue")]


def test_mujoco_refuses_a_massless_moving_link(folder):
    need("mujoco")
    found = disagreements(folder, "zero_mass", "mujoco")
    assert [(d.quantity, d.cause_code) for d in found] == [("refused", "mujoco-minval")]


def test_mujoco_repairs_the_file_asks_for(folder):
    """balanceinertia: (0.1 + 0.1 + 0.3) / 3 on each axis; boundmass 0.5 over 0.1 kg and
    boundinertia 0.01 over every moment."""
    need("mujoco")
    got = readings(folder, "mujoco_repairs", "mujoco")["mujoco"].links["link"]
    assert near(got.inertia, 0.5 / 3 * np.eye(3))
    found = disagreements(folder, "mujoco_repairs", "mujoco")
    assert causes(found, "mujoco") == {"inertia": "mujoco-balanceinertia"}
    got = readings(folder, "mujoco_bounds", "mujoco")["mujoco"].links["link"]
    assert got.mass == 0.5
    assert near(got.inertia, 0.01 * np.eye(3))
    found = disagreements(folder, "mujoco_bounds", "mujoco")
    assert causes(found, "mujoco") == {"mass": "mujoco-bounds", "inertia": "mujoco-bounds"}


@pytest.mark.parametrize(
    ("engine", "code"), [("mujoco", "mujoco-fusestatic"), ("pinocchio", "pinocchio-fixed-joint")]
)
def test_fixed_links_merged_into_the_parent(folder, engine, code):
    """The tip disappears; the link holds the composite: 1.5 kg, centre of mass at
    (1 * 0.3 + 0.5 * 0.6) / 1.5 = 0.4 m, Ixx = 0.1 + 0.01 + 1 * 0.1^2 + 0.5 * 0.2^2 = 0.14,
    Izz = 0.05 + 0.01 = 0.06 (parallel-axis theorem by hand)."""
    need(engine)
    reading = readings(folder, "fixed_child", engine)[engine]
    assert reading.merged["tip"].into == "link"
    assert near(reading.merged["tip"].position, [0, 0, 0.6])
    got = reading.links["link"]
    assert got.mass == pytest.approx(1.5, rel=TIGHT, abs=0)
    assert near(got.center_of_mass, [0, 0, 0.4])
    assert near(got.inertia, np.diag([0.14, 0.14, 0.06]))
    if engine == "mujoco":  # the tip's own values, compiled again with fusestatic off
        own = reading.merged["tip"].own
        assert own.mass == 0.5
        assert near(own.inertia, 0.01 * np.eye(3))
    found = disagreements(folder, "fixed_child", engine)
    assert causes(found, engine, "tip") == {"merged": code}
    assert set(causes(found, engine, "link").values()) == {code}
    assert set(causes(found, engine, "link")) == {"mass", "center_of_mass", "inertia"}


def test_missing_inertial_mass_from_geometry_at_water_density(folder):
    """MuJoCo and Newton: 0.4 x 0.2 x 0.1 m box at 1000 kg/m^3 = 8 kg."""
    engines = [e for e in ("mujoco", "newton") if HAVE[e]]
    if not engines:
        pytest.skip("neither MuJoCo nor Newton is installed")
    found = disagreements(folder, "no_inertial", *engines)
    for engine in engines:
        got = readings(folder, "no_inertial", *engines)[engine].links["link"]
        assert got.mass == pytest.approx(0.4 * 0.2 * 0.1 * 1000, rel=1e-6)
        assert causes(found, engine)["mass"] == "geometry-default-density"


@pytest.mark.parametrize("engine", ["drake", "pinocchio"])
def test_missing_inertial_is_massless(folder, engine):
    """Against the file (no inertial: massless) nothing differs; against the collision box's
    solid at 1000 kg/m^3 (8 kg, I = m (b^2 + c^2) / 12 ...) the engine's zero mass is
    explained."""
    need(engine)
    got = readings(folder, "no_inertial", engine)[engine].links["link"]
    assert got.mass == 0.0 and not np.any(got.inertia)
    assert disagreements(folder, "no_inertial", engine) == []  # the reference is massless too
    m, (a, b, c) = 8.0, (0.4, 0.2, 0.1)
    solid = (m, np.zeros(3), m / 12 * np.diag([b**2 + c**2, a**2 + c**2, a**2 + b**2]))
    found = compare(readings(folder, "no_inertial", engine), {"link": solid})
    assert set(causes(found, engine).values()) == {"massless-without-inertial"}


def test_pybullet_makes_a_link_without_inertial_1_kg(folder):
    need("pybullet")
    found = disagreements(folder, "no_inertial", "pybullet", "pybullet-inertia-from-file")
    raw = readings(folder, "no_inertial", "pybullet", "pybullet-inertia-from-file")
    assert raw["pybullet-inertia-from-file"].links["link"].mass == 1.0
    assert near(raw["pybullet-inertia-from-file"].links["link"].inertia, np.eye(3))
    assert "No inertial data for link" in raw["pybullet"].output
    for engine in ("pybullet", "pybullet-inertia-from-file"):
        assert causes(found, engine)["mass"] == "pybullet-1kg-default"


def test_pybullet_default_flags_recompute_the_inertia(folder):
    """No collision shape: pybullet's default inertia is a 2 mm box's at the declared mass,
    m (a^2 + b^2) / 12 = 1 * 8e-6 / 12 (measured)."""
    need("pybullet")
    found = disagreements(folder, "valid", "pybullet")
    got = readings(folder, "valid", "pybullet")["pybullet"].links["link"]
    assert np.allclose(got.inertia, 8e-6 / 12 * np.eye(3), rtol=1e-6, atol=1e-20)
    assert causes(found, "pybullet") == {"inertia": "pybullet-recomputes-inertia"}


def test_sdformat_readings(folder):
    """Drake reads the turned inertial pose exactly; pybullet's loadSDF (no flags) recomputes
    the inertia from the (absent) collision shapes; this Pinocchio build may lack SDFormat."""
    engines = [e for e in ("drake", "pybullet", "pinocchio") if HAVE[e]]
    if not engines:
        pytest.skip("no engine that reads SDFormat is installed")
    raw = readings(folder, "sdf", *engines)
    found = disagreements(folder, "sdf", *engines)
    if "drake" in raw:
        assert raw["drake"].loaded and not [d for d in found if d.engine == "drake"]
    if "pybullet" in raw:
        assert causes(found, "pybullet") == {"inertia": "pybullet-recomputes-inertia"}
    if "pinocchio" in raw:
        reading = raw["pinocchio"]
        assert reading.skipped or not [d for d in found if d.engine == "pinocchio"]


def test_pybullet_zeroes_an_invalid_tensor(folder):
    need("pybullet")
    found = disagreements(folder, "triangle", "pybullet-inertia-from-file")
    assert causes(found, "pybullet-inertia-from-file") == {
        "inertia": "pybullet-invalid-inertia-zeroed"
    }


def test_pybullet_mjcf_reader_drops_the_inertia(folder):
    need("pybullet")
    found = disagreements(folder, "mjcf", "pybullet-inertia-from-file")
    got = readings(folder, "mjcf", "pybullet-inertia-from-file")["pybullet-inertia-from-file"]
    assert not np.any(got.links["link"].inertia)
    assert causes(found, "pybullet-inertia-from-file") == {
        "inertia": "pybullet-mjcf-inertia-ignored",
        "center_of_mass": "float32",  # 0.1 read as the float 0.10000000149
    }


def test_pybullet_diagonalisation_drops_small_products(folder):
    """Products 5e-6 and 4e-6 on a trace of 6 (below Bullet's 1e-6-of-the-trace stop): the
    4e-6 product is lost, 6.7e-7 of the trace."""
    need("pybullet")
    found = disagreements(folder, "products", "pybullet-inertia-from-file")
    (d,) = found
    assert d.cause_code == "pybullet-diagonalisation"
    assert 1e-7 < d.relative <= 4e-6 / 6 * (1 + 1e-6)


def test_drake_substitutes_a_water_sphere_for_an_invalid_inertia(folder):
    """Mass 1 kg at 1000 kg/m^3: r = (3 / (4 pi) * 1e-3)^(1/3), I = 2/5 m r^2."""
    need("drake")
    for name in ("triangle", "negative", "zero_mass_with_inertia"):
        got = readings(folder, name, "drake")["drake"].links["link"]
        radius = (3 / (4 * math.pi) * 1e-3) ** (1 / 3)
        assert np.allclose(got.inertia, 0.4 * radius**2 * np.eye(3), rtol=1e-12, atol=0), name
        found = disagreements(folder, name, "drake")
        assert "drake-placeholder-sphere" in causes(found, "drake").values(), name


def test_pinocchio_keeps_an_invalid_tensor_and_drops_a_massless_centre_of_mass(folder):
    need("pinocchio")
    assert disagreements(folder, "triangle", "pinocchio") == []
    assert disagreements(folder, "negative", "pinocchio") == []
    found = disagreements(folder, "zero_mass_with_inertia", "pinocchio")
    assert causes(found, "pinocchio") == {"center_of_mass": "pinocchio-zero-mass"}


def test_newton_corrections_and_single_precision(folder):
    """One test (importing Newton costs seconds): tiny moments raised to Newton's minimum
    (1e-10 floor + 1e-6), the triangle inequality balanced, a zero mass's inertia zeroed,
    valid values rounded to float32."""
    need("newton")
    tiny = readings(folder, "tiny", "newton")["newton"].links["link"]
    assert np.allclose(tiny.inertia, (1e-10 + 1e-6) * np.eye(3), rtol=1e-6, atol=0)
    assert causes(disagreements(folder, "tiny", "newton"), "newton") == {
        "inertia": "newton-inertia-correction",
        "mass": "float32",
        "center_of_mass": "float32",
    }
    found = disagreements(folder, "triangle", "newton")
    assert causes(found, "newton")["inertia"] == "newton-inertia-correction"
    assert "triangle inequality" in next(d.detail for d in found if d.quantity == "inertia")
    found = disagreements(folder, "zero_mass_with_inertia", "newton")
    assert causes(found, "newton")["inertia"] == "newton-zero-mass"
    found = disagreements(folder, "valid", "newton")
    assert found and {d.cause_code for d in found} == {"float32"}


def _usd(path: Path, meters_per_unit: float, com, moments) -> None:
    from pxr import Gf, Usd, UsdGeom, UsdPhysics

    stage = Usd.Stage.CreateNew(str(path))
    UsdGeom.SetStageMetersPerUnit(stage, meters_per_unit)
    UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.z)
    root = UsdGeom.Xform.Define(stage, "/fixture")
    stage.SetDefaultPrim(root.GetPrim())
    UsdPhysics.ArticulationRootAPI.Apply(root.GetPrim())
    prim = UsdGeom.Xform.Define(stage, "/fixture/link").GetPrim()
    UsdPhysics.RigidBodyAPI.Apply(prim)
    api = UsdPhysics.MassAPI.Apply(prim)
    api.CreateMassAttr(1.0)
    api.CreateCenterOfMassAttr(Gf.Vec3f(*com))
    api.CreateDiagonalInertiaAttr(Gf.Vec3f(*moments))
    api.CreatePrincipalAxesAttr(Gf.Quatf(1, 0, 0, 0))
    joint = UsdPhysics.RevoluteJoint.Define(stage, "/fixture/j")
    joint.CreateBody1Rel().SetTargets(["/fixture/link"])
    joint.CreateAxisAttr("Y")
    stage.GetRootLayer().Save()


def test_usd_stage_units_are_not_converted(folder):
    """A stage in centimetres: centre of mass 10 cm, moments in kg cm^2; usd-core's authored
    values and Newton's reading are in stage units, 100x the SI centre of mass."""
    need("usd")
    path = folder / "centimetres.usda"
    _usd(path, 0.01, (10, 0, 0), (1000, 2000, 2500))
    engines = ["usd", "newton"] if HAVE["newton"] else ["usd"]
    found_readings = engine_readings(path, engines=engines)
    reference = {"link": (1.0, np.array([0.1, 0, 0]), np.diag([0.1, 0.2, 0.25]))}
    found = compare(found_readings, reference)
    for engine in engines:
        assert found_readings[engine].links["link"].center_of_mass[0] == 10.0
        assert causes(found, engine) == {
            "center_of_mass": "usd-stage-units", "inertia": "usd-stage-units"}  # fmt: skip


def test_usd_values_are_single_precision(folder):
    need("usd")
    path = folder / "metres.usda"
    _usd(path, 1.0, (0.1, 0, 0), (0.1, 0.2, 0.25))
    found = compare(engine_readings(path, engines=["usd"]),
                    {"link": (1.0, np.array([0.1, 0, 0]), np.diag([0.1, 0.2, 0.25]))})  # fmt: skip
    assert found and {d.cause_code for d in found} == {"float32"}
    assert all(d.relative < 1e-7 for d in found)


def test_every_catalogued_cause_is_reproduced_here():
    """No cause in the catalogue without a fixture above that shows it."""
    source = Path(__file__).read_text(encoding="utf-8")
    for code in KNOWN_CAUSES:
        assert source.count(f'"{code}"') >= 1, code


# -- compare's arithmetic, against hand-made readings ----------------------------------------


def test_compare_flags_exactly_what_exceeds_the_tolerance():
    ref = (2.0, np.array([0.1, 0.0, 0.0]), np.diag([0.1, 0.2, 0.25]))
    within = EngineInertial.of((2.0 * (1 + 5e-10), ref[1], ref[2]))
    beyond = EngineInertial.of((2.0 * (1 + 2e-9), ref[1], ref[2]))
    for got, count in ((within, 0), (beyond, 1)):
        reading = EngineReading("drake", "urdf", links={"link": got})
        assert len(compare({"drake": reading}, {"link": ref})) == count
    reading = EngineReading("mujoco", "urdf", links={})
    (d,) = compare({"mujoco": reading}, {"link": ref})
    assert d.quantity == "missing" and d.cause is None
    reading = EngineReading("mujoco", "urdf", error="Error: something new")
    (d,) = compare({"mujoco": reading}, {"link": ref})
    assert d.quantity == "refused" and d.cause is None and "something new" in str(d)


# -- real robot files nobody here wrote (pybullet_data, when installed) ----------------------


def urdf_file_reference(path: Path) -> dict[str, tuple]:
    """Every link's inertial from the URDF's own numbers (no <inertial>: massless)."""
    import xml.etree.ElementTree as ET

    reference = {}
    for link in ET.parse(path).getroot().iter("link"):
        element = link.find("inertial")
        if element is None:
            reference[link.get("name")] = (0.0, np.zeros(3), np.zeros((3, 3)))
            continue
        origin = element.find("origin")
        xyz = origin.get("xyz", "0 0 0") if origin is not None else "0 0 0"
        rpy = origin.get("rpy", "0 0 0") if origin is not None else "0 0 0"
        six = [element.find("inertia").get(k, "0")
               for k in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")]  # fmt: skip
        reference[link.get("name")] = urdf_reference(
            float(element.find("mass").get("value")),
            [float(v) for v in xyz.split()],
            [float(v) for v in rpy.split()],
            six,
        )
    return reference


@pytest.mark.parametrize("name", ["kuka_iiwa/model.urdf", "a1/a1.urdf", "r2d2.urdf"])
def test_real_robot_files_every_disagreement_has_a_known_cause(name):
    """KUKA iiwa (a massless base with an inertia: Drake's sphere, Pinocchio's lost centre of
    mass, Newton's zeroed inertia), Unitree A1 (products of inertia: pybullet's
    diagonalisation), R2-D2 (fixed links: MuJoCo's fusestatic, Pinocchio's merges)."""
    need("pybullet")
    import pybullet_data

    path = Path(pybullet_data.getDataPath()) / name
    if not path.is_file():
        pytest.skip(f"pybullet_data has no {name}")
    engines = [e for e in eng.ENGINES if e != "newton" or HAVE["newton"]]
    found = compare(engine_readings(path, engines=engines), urdf_file_reference(path))
    unexplained = [str(d) for d in found if d.cause is None]
    assert not unexplained
    codes = {d.cause_code for d in found}
    expected = {
        "kuka_iiwa/model.urdf": {"drake-placeholder-sphere", "pinocchio-zero-mass",
                                 "mujoco-fusestatic", "pybullet-recomputes-inertia"},
        "a1/a1.urdf": {"pybullet-diagonalisation", "pybullet-recomputes-inertia"},
        "r2d2.urdf": {"mujoco-fusestatic", "pinocchio-fixed-joint"},
    }[name]  # fmt: skip
    assert expected <= codes


@settings(max_examples=60, deadline=None)
@given(
    mass=st.floats(1e-6, 1e4),
    com=st.lists(st.floats(-10, 10), min_size=3, max_size=3),
    moments=st.lists(st.floats(1e-6, 1e3), min_size=2, max_size=2),
    angles=st.lists(st.floats(-3, 3), min_size=3, max_size=3),
    factor=st.floats(2.0, 1e3),
)
def test_compare_finds_nothing_in_an_equal_reading_and_the_mass_change_in_a_changed_one(
    mass, com, moments, angles, factor
):
    """Any valid inertial (moments a, b, a + b / 2 keep the triangle inequality) read back
    exactly gives no disagreement; a mass off by ``factor`` times the tolerance gives exactly
    one, a mass disagreement of that relative size."""
    a, b = moments
    r = Rotation.from_euler("xyz", angles).as_matrix()
    inertia = r @ np.diag([a, b, a + b / 2]) @ r.T
    reference = {"link": (mass, np.array(com), inertia)}
    same = EngineReading("drake", "urdf", links={"link": EngineInertial.of(reference["link"])})
    assert compare({"drake": same}, reference) == []
    changed = EngineInertial.of((mass * (1 + factor * 1e-9), com, inertia))
    (d,) = compare({"drake": EngineReading("drake", "urdf", links={"link": changed})}, reference)
    assert d.quantity == "mass" and d.cause is None
    assert d.relative == pytest.approx(factor * 1e-9 / (1 + factor * 1e-9), rel=1e-6)


def test_links_without_inertial_follow_mjcf_includes(tmp_path: Path) -> None:
    """The body without <inertial> is in an included file: the reader's description (not
    the including file's own XML) says so."""
    (tmp_path / "part.xml").write_text(
        '<mujoco>\n  <body name="inner">\n    <freejoint/>\n'
        '    <geom type="box" size="0.1 0.1 0.1"/>\n  </body>\n</mujoco>\n'
    )
    path = tmp_path / "main.xml"
    path.write_text(
        '<mujoco model="m">\n  <worldbody>\n    <include file="part.xml"/>\n'
        '    <body name="outer"><inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>'
        "<freejoint/></body>\n  </worldbody>\n</mujoco>\n"
    )
    assert eng._links_without_inertial(path, "mjcf", ()) == frozenset({"inner"})
