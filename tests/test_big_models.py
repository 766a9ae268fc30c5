"""Models of 500+ bodies (issues 14 and 15): no recursion and no quadratic walk in the model,
the MJCF writer or the simulation; MJCF files that MuJoCo's parser reads at any depth (parts
included below 496 nested bodies, a limit checked here against MuJoCo itself); meshes built
once per distinct body. Speed is measured by ``benchmarks/big_models.py``, not here.
"""

from __future__ import annotations

import ast
import importlib
import random
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

import rigidparts as rp
from rigidparts.commands import main
from rigidparts.export import MuJoCoDepthWarning, export, mujoco_depth_warning, urdf_link_depth
from rigidparts.export._common import MUJOCO_MAX_BODY_DEPTH
from rigidparts.export.mjcf import MUJOCO_MAX_DEPTH, mjcf_files, to_mjcf, xml_text
from rigidparts.model import Model, load_model

SRC = Path(__file__).resolve().parents[1] / "src" / "rigidparts"
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def chain(n: int, shape: str = "box") -> Model:
    """``n`` equal links hinged end to end, hanging along -z."""
    model = Model(f"chain{n}")
    parent = "world"
    for i in range(n):
        if shape == "box":
            body = rp.Box(length=0.1, width=0.02, height=0.02, axis=(0, 0, -1))
        else:
            body = rp.Cone(length=0.1, radius_a=0.02, radius_b=0.01, axis=(0, 0, -1))
        model.add_body(f"link{i}", body)
        model.add_joint(f"hinge{i}", "revolute", parent, f"link{i}", axis=(0, 1, 0),
                        initial=0.01 * (i % 3))  # fmt: skip
        parent = f"link{i}.frame_b"
    return model


# -- no recursion ------------------------------------------------------------------------------

MODULES = [
    *sorted((SRC / "model").glob("*.py")),
    SRC / "export" / "mjcf.py",
    *sorted((SRC / "sim").glob("*.py")),
]


def self_calls(function: ast.FunctionDef | ast.AsyncFunctionDef, method: bool) -> list[int]:
    """Lines where ``function`` calls itself: a function by its name, a method as ``self.``
    or ``cls.`` (in a method a bare name is the module's function of that name)."""
    lines = []
    for call in ast.walk(function):
        if not isinstance(call, ast.Call):
            continue
        func = call.func
        if not method and isinstance(func, ast.Name) and func.id == function.name:
            lines.append(call.lineno)
        elif (
            method
            and isinstance(func, ast.Attribute)
            and func.attr == function.name
            and isinstance(func.value, ast.Name)
            and func.value.id in ("self", "cls")
        ):
            lines.append(call.lineno)
    return lines


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_no_function_calls_itself(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    methods = {
        id(item)
        for cls in ast.walk(tree)
        if isinstance(cls, ast.ClassDef)
        for item in cls.body
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            calls = self_calls(node, id(node) in methods)
            assert not calls, f"{path.name}: {node.name} calls itself (lines {calls})"


def test_the_recursion_check_sees_recursion():
    tree = ast.parse(
        "def walk(n):\n    return walk(n - 1)\nclass A:\n    def f(self):\n"
        "        return self.f()\n    def g(self):\n        return super().g()\n"
    )
    functions = [f for f in ast.walk(tree) if isinstance(f, ast.FunctionDef)]
    found = {f.name: self_calls(f, f.name != "walk") for f in functions}
    assert found == {"walk": [2], "f": [5], "g": []}


def test_a_1000_body_chain_exports_to_every_format(tmp_path):
    model = chain(1000)
    for suffix in ("xml", "urdf", "sdf"):
        rp.export_model(model, tmp_path / f"chain.{suffix}")
    parts = sorted(p.name for p in (tmp_path / "chain_meshes").iterdir())
    assert parts == ["link496.xml", "link992.xml"]  # bodies 497 and 993 deep start parts
    root = ET.parse(tmp_path / "chain.urdf").getroot()
    assert len(root.findall("joint")) >= 1000


def test_a_1000_body_chain_simulates():
    pytest.importorskip("mujoco")
    model = chain(1000)
    result = rp.simulate(model, duration=2e-3, timestep=1e-3, integrator="Euler")
    assert result.time.shape == (3,) and len(result.joint_positions) == 1000
    # the initial state is the model's, in the bodies' poses too (rigidparts' kinematics)
    poses = model.body_poses()
    for name in ("link0", "link500", "link999"):
        np.testing.assert_allclose(result.body_positions[name][0], poses[name][1], atol=1e-12)
        np.testing.assert_allclose(result.body_rotations[name][0], poses[name][0], atol=1e-12)


# -- MuJoCo's nesting limit --------------------------------------------------------------------


def nested(n: int) -> str:
    """n bodies nested in one MJCF text, written by hand (no rigidparts)."""
    opening = "".join(
        f'<body name="b{i}"><joint axis="0 1 0"/><inertial pos="0 0 0" mass="1" '
        'diaginertia="1 1 1"/>'
        for i in range(n)
    )
    return f"<mujoco><worldbody>{opening}{'</body>' * n}</worldbody></mujoco>"


def test_the_depth_limit_is_mujocos():
    mujoco = pytest.importorskip("mujoco")
    assert mujoco.MjModel.from_xml_string(nested(MUJOCO_MAX_DEPTH)).nbody == MUJOCO_MAX_DEPTH + 1
    with pytest.raises(ValueError, match="too deep"):
        mujoco.MjModel.from_xml_string(nested(MUJOCO_MAX_DEPTH + 1))


@pytest.mark.parametrize("n", [MUJOCO_MAX_DEPTH, MUJOCO_MAX_DEPTH + 1, 2 * MUJOCO_MAX_DEPTH + 1])
def test_parts_begin_below_the_limit_and_mujoco_reads_them(n, tmp_path):
    mujoco = pytest.importorskip("mujoco")
    model = chain(n)
    text = to_mjcf(model, tmp_path / "c.xml")
    folder = tmp_path / "c_meshes"
    expected = [
        f"link{k * MUJOCO_MAX_DEPTH}.xml" for k in range(1, (n - 1) // MUJOCO_MAX_DEPTH + 1)
    ]
    found = sorted(p.name for p in folder.iterdir()) if folder.exists() else []
    assert found == expected
    assert text.count("<include ") == (1 if expected else 0)
    loaded = mujoco.MjModel.from_xml_path(str(tmp_path / "c.xml"))
    assert loaded.nbody == n + 1 and loaded.njnt == n
    # every body where rigidparts' own kinematics puts it, at the initial keyframe
    data = mujoco.MjData(loaded)
    mujoco.mj_resetDataKeyframe(loaded, data, 0)
    mujoco.mj_kinematics(loaded, data)
    poses = model.body_poses()
    for i in range(n):
        rotation, position = poses[f"link{i}"]
        np.testing.assert_allclose(data.xpos[i + 1], position, atol=1e-12)
        np.testing.assert_allclose(data.xmat[i + 1].reshape(3, 3), rotation, atol=1e-12)
    body = model.bodies["link0"]
    np.testing.assert_array_equal(loaded.body_mass[1:], body.mass)
    np.testing.assert_array_equal(loaded.body_inertia[-1], body.principal_moments)


def test_one_text_says_when_the_tree_is_too_deep():
    with pytest.raises(rp.ModelError) as info:
        to_mjcf(chain(MUJOCO_MAX_DEPTH + 1))
    message = str(info.value)
    assert info.value.parameter == f"bodies.link{MUJOCO_MAX_DEPTH}"
    assert f"{MUJOCO_MAX_DEPTH + 1} bodies deep" in message and str(MUJOCO_MAX_DEPTH) in message
    assert "URDF or SDF" in message
    to_mjcf(chain(MUJOCO_MAX_DEPTH))  # at the limit: one text


def test_a_deep_export_is_all_or_nothing(tmp_path, monkeypatch):
    path = tmp_path / "c.xml"
    to_mjcf(chain(600), path)
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    import rigidparts.export.mjcf as mjcf

    def fail(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(mjcf, "write_meshes", fail)
    with pytest.raises(OSError):
        to_mjcf(chain(1000), path)
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before


# -- the writer --------------------------------------------------------------------------------


def elementtree_text(root: ET.Element) -> str:
    """The text ElementTree writes (what the exporters wrote before: recursive)."""
    ET.indent(root, space="  ")
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


@pytest.mark.parametrize("name", ["pendulum", "double_pendulum", "serial_arm"])
def test_the_iterative_writer_writes_elementtrees_text(name):
    text = to_mjcf(load_model(EXAMPLES / f"{name}.toml"), sections=8)
    assert xml_text(ET.fromstring(text)) == text
    assert elementtree_text(ET.fromstring(text)) == text


def test_the_writer_escapes_attributes_as_elementtree_does():
    root = ET.Element("mujoco", model="a&b")
    ET.SubElement(root, "x", value='<"tab\there"\n>')
    ET.SubElement(ET.SubElement(root, "y"), "z")
    assert xml_text(root) == elementtree_text(root)


# -- meshes once per distinct body -------------------------------------------------------------


def test_equal_bodies_share_one_mesh(tmp_path):
    pytest.importorskip("trimesh")
    model = chain(50, "cone")
    model.add_body("other", rp.Cone(length=0.2, radius_a=0.02, radius_b=0.01, axis=(0, 0, -1)))
    model.add_joint("weld", "fixed", "link49.frame_b", "other")
    files = mjcf_files(model, sections=8, folder_name="m")
    assert sorted(files.meshes) == ["link0", "other"]
    assert files.mesh_of["link37"] == "link0" and files.mesh_of["other"] == "other"
    root = ET.fromstring(files.text)
    geoms = {g.get("name"): g.get("mesh") for g in root.iter("geom")}
    assert geoms["link37"] == "link0" and geoms["other"] == "other"
    to_mjcf(model, tmp_path / "m.xml", sections=8)
    assert sorted(p.name for p in (tmp_path / "m_meshes").iterdir()) == ["link0.obj", "other.obj"]
    mujoco = pytest.importorskip("mujoco")
    loaded = mujoco.MjModel.from_xml_path(str(tmp_path / "m.xml"))
    assert loaded.nmesh == 2
    # the same cone turned another way is another mesh
    model.add_body("turned", rp.Cone(length=0.1, radius_a=0.02, radius_b=0.01, axis=(1, 0, 0)))
    model.add_joint("weld2", "fixed", "other.frame_b", "turned")
    assert len(mjcf_files(model, sections=8).meshes) == 3


# -- no quadratic walk -------------------------------------------------------------------------


class CountingDict(dict):
    """A dict that counts its lookups."""

    lookups = 0

    def __getitem__(self, key):
        CountingDict.lookups += 1
        return super().__getitem__(key)


def test_adding_joints_to_a_chain_does_not_walk_to_the_root():
    model = Model("counted")
    model._up = CountingDict()  # the union-find behind add_joint's cycle check
    parent = "world"
    n = 2000
    for i in range(n):
        model.add_body(f"b{i}", rp.Box())
        model.add_joint(f"j{i}", "revolute", parent, f"b{i}", axis=(0, 1, 0))
        parent = f"b{i}.frame_b"
    assert CountingDict.lookups < 10 * n  # a walk to the root per joint: n^2 / 2 = 2e6


def naive_cycle(parents: dict[str, str | None], parent: str | None, child: str) -> bool:
    """Would joining ``child`` below ``parent`` close a cycle? Walk up from the parent."""
    node = parent
    while node is not None:
        if node == child:
            return True
        node = parents.get(node)
    return False


def test_cycle_checks_agree_with_a_walk_to_the_root():
    rng = random.Random(20260815)
    for _ in range(30):
        n = rng.randint(2, 40)
        model = Model("random")
        names = [f"b{i}" for i in range(n)]
        for name in names:
            model.add_body(name, rp.Box())
        parents: dict[str, str | None] = {}
        has_root = False
        for _ in range(3 * n):
            child = rng.choice(names)
            parent = rng.choice([None, *names]) if not has_root else rng.choice(names)
            if child in parents or parent == child:
                continue
            expected = naive_cycle(parents, parent, child)
            try:
                model.add_joint(f"j{len(model.joints)}", "fixed",
                                "world" if parent is None else parent, child)  # fmt: skip
            except rp.ModelError as exc:
                assert expected and "closes a cycle" in str(exc)
                continue
            assert not expected
            parents[child] = parent
            has_root = has_root or parent is None


def test_a_deep_cycle_names_its_loop():
    model = Model("loop")
    for i in range(600):
        model.add_body(f"b{i}", rp.Box())
    for i in range(1, 600):
        model.add_joint(f"j{i}", "fixed", f"b{i - 1}", f"b{i}")
    with pytest.raises(rp.ModelError) as info:
        model.add_joint("back", "fixed", "b599", "b0")
    assert "closes a cycle b0 -> b1 -> " in str(info.value) and "b599 -> b0" in str(info.value)


# -- MuJoCo's depth limit: 1023 nested bodies (issue 23, item 3) --------------------------------


def spec_chain(mujoco, n: int):
    """``n`` bodies nested below the world, built with MuJoCo's own model editing API (no
    rigidparts, no XML). Welded (no joints): the limit is on the nesting, and a chain of 1000
    hinges takes seconds to compile."""
    spec = mujoco.MjSpec()
    parent = spec.worldbody
    for i in range(n):
        parent = parent.add_body(name=f"b{i}", pos=[0, 0, -0.1], mass=1, inertia=[1e-3] * 3)
    return spec


def test_the_body_depth_limit_is_mujocos():
    mujoco = pytest.importorskip("mujoco")
    if not hasattr(mujoco, "MjSpec"):
        pytest.skip("MuJoCo before 3.2 has no MjSpec")
    built = spec_chain(mujoco, MUJOCO_MAX_BODY_DEPTH).compile()
    assert built.nbody == MUJOCO_MAX_BODY_DEPTH + 1
    with pytest.raises(ValueError, match="depth limit"):
        spec_chain(mujoco, MUJOCO_MAX_BODY_DEPTH + 1).compile()


def chain_toml(n: int) -> str:
    """The model file of :func:`chain` (boxes: no meshes to write)."""
    parts = [
        f'[bodies.link{i}]\nshape = "box"\nlength = 0.1\nwidth = 0.02\nheight = 0.02\n'
        "axis = [0, 0, -1]\n"
        for i in range(n)
    ]
    for i in range(n):
        parent = "world" if i == 0 else f"link{i - 1}.frame_b"
        parts.append(
            f'[[joints]]\nname = "hinge{i}"\ntype = "revolute"\nparent = "{parent}"\n'
            f'child = "link{i}.frame_a"\naxis = [0, 1, 0]\n'
        )
    return "\n".join(parts)


@pytest.fixture(scope="module")
def too_deep(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("deep") / "deep.toml"
    path.write_text(chain_toml(MUJOCO_MAX_BODY_DEPTH + 1), encoding="utf-8")
    return path


def test_export_refuses_mjcf_of_a_tree_too_deep_for_mujoco(too_deep, tmp_path, capsys):
    deepest = f"link{MUJOCO_MAX_BODY_DEPTH}"
    for name in ("deep.xml", "deep.mjcf"):
        assert main(["export", str(too_deep), "-o", str(tmp_path / name)]) == 2
        out, err = capsys.readouterr()
        assert out == "" and len(err.splitlines()) == 1, err
        assert err.startswith(f"error: bodies.{deepest}=")
        assert f"{MUJOCO_MAX_BODY_DEPTH + 1} bodies deep" in err
        assert f"at most {MUJOCO_MAX_BODY_DEPTH} nested bodies" in err and "URDF" in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("suffix", [".urdf", ".sdf"])
def test_export_warns_and_writes_the_other_formats(too_deep, tmp_path, capsys, suffix):
    out = tmp_path / f"deep{suffix}"
    assert main(["export", str(too_deep), "-o", str(out)]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith(f"wrote {out}")
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"warning: {too_deep}: "), captured.err
    assert f"{MUJOCO_MAX_BODY_DEPTH + 1} bodies deep" in lines[0]
    assert f"at most {MUJOCO_MAX_BODY_DEPTH} nested bodies" in lines[0]
    assert out.stat().st_size > 0


def test_the_library_refuses_mjcf_and_warns_for_the_rest(tmp_path):
    model = chain(MUJOCO_MAX_BODY_DEPTH + 1)
    for call in (
        lambda: export(model, tmp_path / "c.xml"),
        lambda: to_mjcf(model, tmp_path / "c.xml"),
    ):
        with pytest.raises(rp.ModelError, match="at most 1023 nested bodies") as info:
            call()
        assert info.value.parameter == f"bodies.link{MUJOCO_MAX_BODY_DEPTH}"
    assert list(tmp_path.iterdir()) == []
    with pytest.warns(MuJoCoDepthWarning, match="1024 bodies deep"):
        export(model, tmp_path / "c.sdf")
    assert (tmp_path / "c.sdf").exists()


def test_usd_is_written_with_the_same_warning():
    """(USD is written like URDF and SDF: its writer is slow on 1000 bodies, so the rule is
    checked here, and the writing by the other formats.)"""
    words = mujoco_depth_warning(chain(MUJOCO_MAX_BODY_DEPTH + 1), "usd")
    assert words is not None and "1024 bodies deep" in words and "USD file is written" in words


def test_a_chain_at_the_limit_has_no_word_but_its_urdf():
    model = chain(MUJOCO_MAX_BODY_DEPTH)
    for format in ("mjcf", "sdf", "usd"):
        assert mujoco_depth_warning(model, format) is None
    assert "1024 links deep" in mujoco_depth_warning(model, "urdf")
    assert mujoco_depth_warning(chain(MUJOCO_MAX_BODY_DEPTH - 1), "urdf") is None


def urdf_tree_depth(text: str) -> tuple[str, int]:
    """The deepest link of a URDF text below its ``world`` link, read from its joints."""
    root = ET.fromstring(text)
    parent = {j.find("child").get("link"): j.find("parent").get("link") for j in root.iter("joint")}
    depth: dict[str, int] = {"world": 0}
    for link in parent:
        chain_up = [link]
        while chain_up[-1] not in depth:
            chain_up.append(parent[chain_up[-1]])
        for below, above in zip(reversed(chain_up[:-1]), reversed(chain_up[1:]), strict=True):
            depth[below] = depth[above] + 1
    deepest = max(depth.values())
    return next(k for k, v in depth.items() if v == deepest), deepest


def test_the_urdf_link_depth_is_the_written_files():
    """Frames are links in a URDF (and a body held at another frame hangs below that frame's
    link), so MuJoCo meets its limit sooner on the URDF than on the MJCF; the depth the
    warning uses is the one of the text the URDF writer writes."""
    from rigidparts.export.urdf import to_urdf

    held_by_b = Model("held")
    parent = "world"
    for i in range(6):
        held_by_b.add_body(f"b{i}", rp.Box(length=0.1, width=0.02, height=0.02))
        held_by_b.add_joint(f"j{i}", "revolute", parent, f"b{i}.frame_b" if i % 2 else f"b{i}",
                            axis=(0, 1, 0))  # fmt: skip
        parent = f"b{i}.frame_com"
    for model in (chain(7), held_by_b, load_model(EXAMPLES / "serial_arm.toml")):
        assert urdf_link_depth(model)[1] == urdf_tree_depth(to_urdf(model, sections=8))[1]


def test_a_urdf_too_deep_for_mujoco_is_written_with_a_warning(tmp_path):
    """chain(1023): its MJCF loads, its URDF is 1024 links deep (its frames below the last
    body). MuJoCo's verdict on the URDFs of chain(1022) and chain(1023), 10 s each to load,
    was checked by hand: 1022 loads, 1023 does not."""
    with pytest.warns(MuJoCoDepthWarning, match="1024 links deep"):
        export(chain(MUJOCO_MAX_BODY_DEPTH), tmp_path / "deep.urdf")
    assert (tmp_path / "deep.urdf").exists()


def test_simulate_refuses_a_too_deep_tree_before_any_work(too_deep, tmp_path, capsys, monkeypatch):
    pytest.importorskip("mujoco")
    sim = importlib.import_module("rigidparts.sim.simulate")  # the package's name is the function

    def no_work(*args, **kwargs):
        raise AssertionError("the MJCF was built: the depth was not checked first")

    monkeypatch.setattr(sim, "mjcf_files", no_work)
    with pytest.raises(rp.ModelError, match="1024 bodies deep"):
        rp.simulate(chain(MUJOCO_MAX_BODY_DEPTH + 1), duration=2e-3, timestep=1e-3)
    csv = tmp_path / "run.csv"
    assert main(["simulate", str(too_deep), "-o", str(csv)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1
    assert err.startswith(f"error: bodies.link{MUJOCO_MAX_BODY_DEPTH}=") and "simulate" in err
    assert not csv.exists()
