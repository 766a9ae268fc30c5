"""The HTML viewer (rigidparts.viz.html, ``rp.view``, ``rigidparts view -o FILE.html``,
``rigidparts simulate --html``), without a browser (tests/test_html_browser.py opens the files).

The scene is read back from the written file with the standard library's HTML parser and
compared with independent values: the body's closed-form volume (from the file's triangles, by
the divergence theorem), the frames and poses of the body and the model, the simulation
result's own arrays at the sampled times (the quaternions also checked against the rotation
matrices through scipy), and a pinhole projection of every vertex for the camera framing.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation

import rigidparts as rp
from rigidparts import commands
from rigidparts.errors import ParameterError
from rigidparts.model import Model, load_model
from rigidparts.sim import simulate
from rigidparts.viz import html as viewer
from rigidparts.viz.html import POSE_BUDGET, keyframe_indices, write_html

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
MB = 1e6


class _SceneReader(HTMLParser):
    """Collects the text of ``<script id="rigidparts-scene">``, every tag's attributes and
    every script's text."""

    def __init__(self) -> None:
        super().__init__()
        self.scene_text: list[str] = []
        self.attributes: list[tuple[str, dict]] = []
        self.scripts: list[str] = []
        self._in: str | None = None

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        self.attributes.append((tag, attributes))
        if tag == "script":
            self._in = "scene" if attributes.get("id") == "rigidparts-scene" else "script"
            self.scripts.append("")

    def handle_endtag(self, tag):
        if tag == "script":
            self._in = None

    def handle_data(self, data):
        if self._in == "scene":
            self.scene_text.append(data)
        if self._in is not None:
            self.scripts[-1] += data


def read_page(path: Path) -> tuple[dict, _SceneReader, str]:
    text = path.read_text(encoding="utf-8")
    reader = _SceneReader()
    reader.feed(text)
    scene = json.loads("".join(reader.scene_text))
    return scene, reader, text


def commands_of(scene: dict, kind: str) -> list[dict]:
    return [c for c in scene["commands"] if c["type"] == kind]


def transform_at(scene: dict, path: str) -> np.ndarray:
    found = [c for c in commands_of(scene, "set_transform") if c["path"] == path]
    assert len(found) == 1, path
    return np.array(found[0]["matrix"]).reshape(4, 4).T  # column-major


def pendulum_model(color: str = "#ff8c00") -> Model:
    model = Model("swing")
    model.add_body("arm", rp.Box(length=0.5, width=0.06, height=0.06, axis=(0, 0, -1)), color=color)
    model.add_joint(
        "hinge",
        "revolute",
        "world",
        "arm.frame_a",
        axis=(0, 1, 0),
        position=(0, 0, 1.0),
        initial="60 deg",
    )
    return model


@pytest.fixture(scope="module")
def ten_second_run():
    """The shipped pendulum example for 10 s at 1 ms: 10 001 recorded samples."""
    model = load_model(EXAMPLES / "pendulum.toml")
    return model, simulate(model, duration=10.0, timestep=1e-3)


# -- the file: self-contained, licences kept ----------------------------------------------------


def test_no_network_reference_and_licences_kept(tmp_path, ten_second_run):
    model, result = ten_second_run
    for path in (tmp_path / "box.html", tmp_path / "run.html"):
        if path.name == "box.html":
            write_html(rp.Box(), path)
        else:
            write_html(model, path, result=result)
        scene, reader, text = read_page(path)
        # no address of any kind a browser could fetch
        assert not re.search(r"(?i)\b(?:https?|wss?|ftp)://", text)
        # meshcat's unused connect() keeps its default address, but split like the XHTML name
        assert '"ws:"+`//${location.host}`' in reader.scripts[1]
        # nor a scheme-relative one ("//host/..."), but for the XHTML namespace name
        # three.js passes to createElementNS (an identifier, never fetched)
        rest = text.replace('"http:"+"//www.w3.org/1999/xhtml"', "")
        assert not re.search(r"(?i)(?<![a-z:])//[a-z0-9-]+(?:\.[a-z0-9-]+)+/", rest)
        for tag, attributes in reader.attributes:
            assert "src" not in attributes and "href" not in attributes, (tag, attributes)
            assert tag not in ("link", "iframe", "img", "object", "embed")
        assert "@import" not in text and "url(http" not in text.lower()
        # the viewer is inlined (meshcat's bundle defines MeshCat.Viewer), its licences kept
        assert len(reader.scripts) == 3
        assert "MeshCat" in reader.scripts[1] and len(reader.scripts[1]) > 500_000
        for notice in (
            "Copyright 2010-2021 Three.js Authors",
            "SPDX-License-Identifier: MIT",
            "Copyright (c) 2018 Robin Deits",
            "ieee754. BSD-3-Clause License. Feross Aboukhadijeh",
            "== dat.gui 0.7.7 (Apache-2.0) ==",
            "Apache License",
            "== msgpack-lite",
        ):
            assert notice in reader.scripts[1], notice
        assert scene["format"] == "rigidparts-scene"


def test_meshcat_found_without_importing_it(tmp_path):
    import subprocess
    import sys

    code = (
        "import sys, rigidparts as rp\n"
        f"rp.view(rp.Cone(), {str(tmp_path / 'c.html')!r})\n"
        "assert 'meshcat' not in sys.modules and 'zmq' not in sys.modules, sorted(sys.modules)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# -- the scene: meshes, frames, appearance -----------------------------------------------------


def _volume(vertices: np.ndarray, faces: np.ndarray) -> float:
    """Divergence theorem: V = sum over triangles of det[a, b, c] / 6."""
    tri = vertices[faces]
    return float(np.sum(np.einsum("ij,ij->i", tri[:, 0], np.cross(tri[:, 1], tri[:, 2]))) / 6)


def test_body_mesh_frames_and_colour(tmp_path):
    box = rp.Box(
        length=0.3,
        width=0.2,
        height=0.1,
        inner_width=0.1,
        inner_height=0.05,
        axis=(0, 1, 1),
        extra_frames=[0.1],
    )
    path = tmp_path / "box.html"
    rp.view(box, path, color="tomato", opacity=0.5)
    scene, _, _ = read_page(path)
    mesh = next(c for c in commands_of(scene, "set_object") if c["path"] == "/Bodies/box/mesh")
    data = mesh["object"]
    geometry = {g["uuid"]: g for g in data["geometries"]}[data["object"]["geometry"]]
    vertices = np.array(geometry["data"]["attributes"]["position"]["array"]).reshape(-1, 3)
    faces = np.array(geometry["data"]["index"]["array"]).reshape(-1, 3)
    # a hollow box's volume L (H W - H_i W_i), from the written triangles (7 digits)
    assert _volume(vertices, faces) == pytest.approx(0.3 * (0.2 * 0.1 - 0.1 * 0.05), rel=1e-5)
    material = {m["uuid"]: m for m in data["materials"]}[data["object"]["material"]]
    assert material["color"] == 0xFF6347  # CSS tomato
    assert material["opacity"] == 0.5 and material["transparent"] is True
    assert scene["bodies"] == [
        {"name": "box", "path": "/Bodies/box", "color": "#ff6347", "opacity": 0.5, "visible": True}
    ]
    # every frame's triad sits at the frame, turned by its rotation; one label each
    for name, frame in box.frames.items():
        m = transform_at(scene, f"/Frames/box/{name}")
        np.testing.assert_allclose(m[:3, 3], frame.position, atol=1e-15)
        np.testing.assert_allclose(m[:3, :3], frame.rotation, atol=1e-15)
        labels = [lab for lab in scene["labels"] if lab["path"] == f"/Frames/box/{name}/label"]
        assert [lab["text"] for lab in labels] == [name]
    np.testing.assert_allclose(transform_at(scene, "/Bodies/box"), np.eye(4), atol=0)


def test_model_poses_appearance_and_hidden_parts(tmp_path):
    model = load_model(EXAMPLES / "serial_arm.toml")
    model.set_appearance(next(iter(model.bodies)), visible=False)
    path = tmp_path / "arm.html"
    rp.view(model, path, frames=["frame_com"], inertia=True, grid=False)
    scene, _, _ = read_page(path)
    poses = model.body_poses()
    hidden = {
        (c["path"], c["value"])
        for c in commands_of(scene, "set_property")
        if c["property"] == "visible"
    }
    first = next(iter(model.bodies))
    assert (f"/Bodies/{first}", False) in hidden
    assert ("/Grid", False) in hidden and ("/Inertia", False) not in hidden
    for name, body in model.bodies.items():
        r, p = poses[name]
        for folder in ("Bodies", "Frames", "Centres of mass", "Inertia"):
            m = transform_at(scene, f"/{folder}/{name}")
            np.testing.assert_allclose(m[:3, :3], r, atol=1e-12)
            np.testing.assert_allclose(m[:3, 3], p, atol=1e-12)
        looks = model.appearance(name)
        meta = next(b for b in scene["bodies"] if b["name"] == name)
        assert meta["color"] == looks.hex and meta["opacity"] == looks.opacity
        for frame in body.frames:
            shown = (f"/Frames/{name}/{frame}", False) not in hidden
            assert shown == (frame == "frame_com")
    # each joint's node follows its parent body; a root joint's stays in the world
    for joint in model.joints.values():
        path_ = f"/Joints/{joint.name}"
        if joint.parent_body is None:
            assert all(path_ not in v for v in scene["followers"].values())
        else:
            assert path_ in scene["followers"][f"/Bodies/{joint.parent_body}"]


def test_coincident_frames_share_a_label(tmp_path):
    model = load_model(EXAMPLES / "double_pendulum.toml")
    path = tmp_path / "dp.html"
    rp.view(model, path)
    scene, _, _ = read_page(path)
    texts = [lab["text"] for lab in scene["labels"]]
    # the elbow joins upper.frame_b and lower.frame_a: one label, two lines
    assert "upper.frame_b\nlower.frame_a" in texts
    assert "lower.frame_a" not in texts and "upper.frame_b" not in texts


# -- playback: keyframes are the simulation's poses ---------------------------------------------


def test_keyframes_are_the_simulation_poses(tmp_path, ten_second_run):
    model, result = ten_second_run
    path = tmp_path / "run.html"
    write_html(model, path, result=result)
    scene, _, _ = read_page(path)
    (animation,) = commands_of(scene, "set_animation")
    t0 = result.time[0]
    assert {a["path"] for a in animation["animations"]} == {f"/Bodies/{n}" for n in model.bodies}
    for clip in animation["animations"]:
        name = clip["path"].rsplit("/", 1)[1]
        tracks = {t["name"]: t for t in clip["clip"]["tracks"]}
        times = np.array(tracks[".position"]["times"])
        assert tracks[".quaternion"]["times"] == tracks[".position"]["times"]
        # every keyframe time is a recorded sample's time, exactly
        index = np.searchsorted(result.time - t0, times)
        np.testing.assert_array_equal(result.time[index] - t0, times)
        positions = np.array(tracks[".position"]["values"]).reshape(-1, 3)
        np.testing.assert_array_equal(positions, result.body_positions[name][index])
        xyzw = np.array(tracks[".quaternion"]["values"]).reshape(-1, 4)
        np.testing.assert_array_equal(xyzw[:, 3], result.body_quaternions[name][index, 0])
        np.testing.assert_array_equal(xyzw[:, :3], result.body_quaternions[name][index, 1:])
        # three.js's order (x, y, z, w) is scipy's: the rotations are R_WA
        np.testing.assert_allclose(
            Rotation.from_quat(xyzw).as_matrix(), result.body_rotations[name][index], atol=1e-9
        )
    # the run's start, length and sampling are stated
    meta = scene["animation"]
    assert meta["samples"] == len(result.time) == 10_001
    assert meta["duration"] == pytest.approx(10.0)


def test_sampling_at_most_30_per_second_and_size(tmp_path, ten_second_run):
    model, result = ten_second_run
    path = tmp_path / "run.html"
    write_html(model, path, result=result)
    scene, _, _ = read_page(path)
    times = np.array(scene["animation"]["times"])
    assert len(times) == 301  # 10 s at 30 per second, both ends included
    gaps = np.diff(times)
    assert gaps.min() >= 1 / 30 - 1e-3 and gaps.max() <= 1 / 30 + 1e-3
    assert times[0] == 0.0 and times[-1] == pytest.approx(10.0)
    assert path.stat().st_size < 2 * MB

    write_html(model, path, result=result, max_keyframes=50)
    scene, _, _ = read_page(path)
    times = np.array(scene["animation"]["times"])
    assert len(times) <= 50 and times[0] == 0.0 and times[-1] == pytest.approx(10.0)


@settings(max_examples=60, deadline=None)
@given(
    steps=st.lists(st.floats(1e-4, 1.0), min_size=1, max_size=400),
    fps=st.floats(0.1, 200.0),
    cap=st.integers(2, 500),
    bodies=st.integers(1, 5000),
)
def test_keyframe_indices_invariants(steps, fps, cap, bodies):
    time = np.concatenate([[0.0], np.cumsum(steps)])
    keep = keyframe_indices(time, fps, cap, bodies)
    assert np.all(np.diff(keep) > 0)  # increasing, no repeats
    assert keep[0] == 0 and keep[-1] == len(time) - 1  # the whole run
    assert len(keep) <= min(cap, max(2, POSE_BUDGET // bodies))
    # no more than fps keyframes per second, but both ends of a shorter run (the nearest
    # samples of instants >= 1/fps apart come closer by at most one recording step each)
    assert len(keep) <= max(2, math.floor(time[-1] * fps + 1e-9) + 1)
    step = max(steps)
    if len(keep) > 2:
        assert np.min(np.diff(time[keep])) >= 1 / fps - 2 * step - 1e-12


# -- the camera frames a 5 mm part and a 20 m crane ---------------------------------------------


def _camera_pixels(camera: dict, points: np.ndarray, width: int, height: int) -> np.ndarray:
    """A pinhole camera as the page sets it up (module docstring of rigidparts.viz.html):
    looking at ``target`` from ``direction``, the bounding sphere filling the narrower field of
    view; z up. Returns pixel coordinates (N, 2) and the depths."""
    fov = math.radians(camera["fov"])
    aspect = width / height
    half = min(fov / 2, math.atan(math.tan(fov / 2) * aspect))
    distance = camera["radius"] / math.sin(half)
    target = np.array(camera["target"])
    eye = target + distance * np.array(camera["direction"])
    forward = (target - eye) / np.linalg.norm(target - eye)
    right = np.cross(forward, [0.0, 0.0, 1.0])
    right /= np.linalg.norm(right)
    up = np.cross(right, forward)
    rel = points - eye
    depth = rel @ forward
    f = 1 / math.tan(fov / 2)
    x = (rel @ right) * f / aspect / depth
    y = (rel @ up) * f / depth
    return np.column_stack([(x + 1) / 2 * width, (1 - y) / 2 * height, depth])


def _clear_of_the_edges(pixels: np.ndarray, width: int, height: int, margin: float = 0.03) -> None:
    """Every point inside the window and at least ``margin`` of its size from each edge (the
    framing margin: an extreme point, such as a spring's anchor, is not cut by the edge)."""
    assert np.all((pixels[:, 0] >= margin * width) & (pixels[:, 0] <= (1 - margin) * width))
    assert np.all((pixels[:, 1] >= margin * height) & (pixels[:, 1] <= (1 - margin) * height))


@pytest.mark.parametrize("scale", [0.005, 20.0])
def test_camera_frames_small_and_large_models(tmp_path, scale):
    model = Model("crane")
    model.add_body(
        "mast", rp.Box(length=scale, width=scale / 20, height=scale / 20, axis=(0, 0, 1))
    )
    model.add_body("jib", rp.Box(length=0.8 * scale, width=scale / 30, height=scale / 30))
    model.add_joint("base", "fixed", "world", "mast.frame_a")
    model.add_joint(
        "slew", "revolute", "mast.frame_b", "jib.frame_a", axis=(0, 0, 1), initial="30 deg"
    )
    path = tmp_path / "crane.html"
    rp.view(model, path)
    scene, _, _ = read_page(path)
    poses = model.body_poses()
    points = np.vstack(
        [
            (np.asarray(body.mesh(sections=8).vertices) @ poses[name][0].T) + poses[name][1]
            for name, body in model.bodies.items()
        ]
    )
    for width, height in ((1200, 800), (600, 900)):
        pixels = _camera_pixels(scene["camera"], points, width, height)
        assert np.all(pixels[:, 2] > 0)  # in front of the camera
        _clear_of_the_edges(pixels, width, height)
        spread = np.ptp(pixels[:, :2], axis=0)
        assert max(spread[0] / width, spread[1] / height) > 0.3  # not lost in the distance
    assert scene["camera"]["radius"] == pytest.approx(scale, rel=0.6)
    # the grid's squares and the triads follow the size
    grid = transform_at(scene, "/Grid")
    cell = 0.5 * np.linalg.norm(grid[:3, 0])
    assert scale / 100 <= cell <= scale
    assert scene["triad_length"] == pytest.approx(0.15 * scale, rel=0.2)


# -- API and command-line errors; nothing half-written ------------------------------------------


@pytest.mark.parametrize(
    ("options", "name"),
    [
        ({"opacity": 1.5}, "opacity"),
        ({"color": "not-a-colour"}, "color"),
        ({"fps": 0}, "fps"),
        ({"max_keyframes": 1}, "max_keyframes"),
        ({"frames": "frame_a"}, "frames"),
        ({"sections": 2}, "sections"),
        ({"labels": "yes"}, "labels"),
        ({"speed": 2}, "speed"),
        ({"view": (1, 2, 3)}, "view"),
    ],
)
def test_bad_options_name_the_option(tmp_path, options, name):
    path = tmp_path / "x.html"
    with pytest.raises(ParameterError) as info:
        rp.view(rp.Cone(), path, **options)
    assert info.value.parameter == name
    assert not path.exists()


def test_bad_targets(tmp_path, ten_second_run):
    model, result = ten_second_run
    with pytest.raises(ParameterError, match="result"):
        rp.view(rp.Cone(), tmp_path / "x.html", result=result)
    with pytest.raises(ParameterError, match="color"):
        rp.view(model, tmp_path / "x.html", color="red")
    with pytest.raises(ParameterError, match="suffix"):
        rp.view(model, tmp_path / "x.txt")
    with pytest.raises(ParameterError, match="target"):
        rp.view("box", tmp_path / "x.html")
    other = pendulum_model()
    with pytest.raises(ParameterError, match="another model"):
        rp.view(other, tmp_path / "x.html", result=result)
    assert not list(tmp_path.iterdir())


def test_failure_leaves_nothing(tmp_path, monkeypatch):
    path = tmp_path / "x.html"
    path.write_text("old")

    def broken(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr("rigidparts.viz.html_page.page", broken)
    with pytest.raises(RuntimeError):
        rp.view(rp.Cone(), path)
    assert path.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["x.html"]


def test_command_line(tmp_path, capsys):
    out = tmp_path / "cone.html"
    assert (
        commands.main(["view", "cone", "--axis", "0,0,1", "--color", "#123456", "-o", str(out)])
        == 0
    )
    assert "wrote" in capsys.readouterr().out
    scene, _, _ = read_page(out)
    assert scene["bodies"][0]["color"] == "#123456" and scene["animation"] is None

    run = tmp_path / "run.html"
    csv = tmp_path / "run.csv"
    argv = [
        "simulate",
        str(EXAMPLES / "pendulum.toml"),
        "--duration",
        "1",
        "-o",
        str(csv),
        "--html",
        str(run),
        "--html-fps",
        "10",
        "-q",
    ]
    assert commands.main(argv) == 0
    scene, _, _ = read_page(run)
    assert scene["animation"]["keyframes"] == 11 and csv.exists()

    model_out = tmp_path / "arm.html"
    assert (
        commands.main(
            [
                "view",
                str(EXAMPLES / "serial_arm.toml"),
                "-o",
                str(model_out),
                "--no-frames",
                "--inertia",
            ]
        )
        == 0
    )
    scene, _, _ = read_page(model_out)
    hidden = {
        c["path"]
        for c in commands_of(scene, "set_property")
        if c["property"] == "visible" and c["value"] is False
    }
    assert "/Frames" in hidden and "/Inertia" not in hidden


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["view", "cone", "--color", "nope", "-o", "{tmp}/a.html"], "color"),
        (["view", "cone", "--opacity", "1.5", "-o", "{tmp}/a.html"], "--opacity"),
        (["view", "cone", "-o", "{tmp}/a.txt"], "output"),
        (["view", "{examples}/pendulum.toml", "--color", "red", "-o", "{tmp}/a.html"], "--color"),
        (["simulate", "{examples}/pendulum.toml", "--html", "{tmp}/a.txt"], "--html"),
        (
            [
                "simulate",
                "{examples}/pendulum.toml",
                "--html",
                "{tmp}/a.html",
                "-o",
                "{tmp}/a.html",
            ],
            "same file",
        ),
        (["simulate", "{examples}/pendulum.toml", "--html", "{tmp}", "-q"], "--html"),
        (
            ["simulate", "{examples}/pendulum.toml", "--html", "{tmp}/b.html", "--html-fps", "0"],
            "--html-fps",
        ),
    ],
)
def test_command_line_errors(tmp_path, capsys, argv, message):
    argv = [a.format(tmp=tmp_path, examples=EXAMPLES) for a in argv]
    before = sorted(os.listdir(tmp_path))
    assert commands.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert sorted(os.listdir(tmp_path)) == before


def test_read_only_output_is_kept(tmp_path, capsys):
    out = tmp_path / "a.html"
    out.write_text("mine")
    out.chmod(stat.S_IRUSR)
    try:
        assert commands.main(["view", "cone", "-o", str(out)]) == 2
        assert "read-only" in capsys.readouterr().err and out.read_text() == "mine"
        assert commands.main(["view", "cone", "-o", str(out), "--force"]) == 0
        assert stat.S_IMODE(out.stat().st_mode) == stat.S_IRUSR  # permissions kept
    finally:
        out.chmod(stat.S_IRUSR | stat.S_IWUSR)


# -- the shipped examples stay small ------------------------------------------------------------


@pytest.mark.parametrize("example", sorted(p.name for p in EXAMPLES.glob("*.toml")))
def test_shipped_examples_are_a_few_megabytes(tmp_path, example):
    model = load_model(EXAMPLES / example)
    still = tmp_path / "still.html"
    rp.view(model, still)
    assert still.stat().st_size < 2 * MB
    if model.joints and any(j.nv for j in model.joints.values()):
        result = simulate(model, duration=min(model.simulation.duration or 5.0, 10.0))
        run = tmp_path / "run.html"
        rp.view(model, run, result=result)
        assert run.stat().st_size < 3 * MB
        scene, _, _ = read_page(run)
        assert (
            scene["animation"]["keyframes"]
            <= math.floor(30 * scene["animation"]["duration"] + 1e-6) + 1
        )


@pytest.mark.parametrize(
    ("duration", "bodies", "keyframes"),
    [
        (10.0, 1, 301),  # the module docstring: 10 s at 1 ms, 30 per second, both ends
        (60.0, 1, 1800),  # docs/viewer.md: the cap of 1800 keyframes
        (2.0, 1, 61),
        (2.0, 300, 40),  # docs/viewer.md: a 300-body chain, 12 000 poses / 300 bodies
    ],
)
def test_documented_keyframe_counts(duration, bodies, keyframes):
    time = np.arange(round(duration / 1e-3) + 1) * 1e-3  # recorded every 1 ms
    keep = keyframe_indices(time, viewer.DEFAULT_FPS, viewer.DEFAULT_MAX_KEYFRAMES, bodies)
    assert len(keep) == keyframes
    assert keep[0] == 0 and keep[-1] == len(time) - 1


def test_view_picks_the_format_from_the_suffix(tmp_path, ten_second_run):
    from PIL import Image

    model, result = ten_second_run
    picture = rp.view(rp.Cone(), tmp_path / "cone.png", size=(400, 300))
    assert Image.open(picture).size == (400, 300)
    short = simulate(model, duration=0.5, timestep=1e-3)
    gif = rp.view(model, tmp_path / "swing.gif", result=short, fps=4, progress=False)
    assert Image.open(gif).n_frames == 3  # 0, 0.25 and 0.5 s
    with pytest.raises(ParameterError, match="result"):
        rp.view(model, tmp_path / "swing.png", result=result)
    with pytest.raises(ParameterError, match="result"):
        rp.view(model, tmp_path / "swing.gif")


def test_progress_names_each_body():
    class Recorder:
        def __init__(self):
            self.messages = []

        def update(self, message):
            self.messages.append(message)

    model = load_model(EXAMPLES / "serial_arm.toml")
    recorder = Recorder()
    viewer.html_scene(model, status=recorder)
    count = len(model.bodies)
    for i, name in enumerate(model.bodies, start=1):
        assert f"meshing body {i}/{count} ({name})" in recorder.messages
        assert f"writing body {i}/{count} ({name})" in recorder.messages


def test_command_line_colour_reaches_a_picture_too(tmp_path):
    from PIL import Image

    out = tmp_path / "cone.png"
    argv = ["view", "cone", "--color", "#00c000", "--opacity", "1", "-o", str(out)]
    assert commands.main([*argv, "--size", "400x300", "--no-frames", "--no-labels"]) == 0
    rgb = np.asarray(Image.open(out).convert("RGB"), dtype=int)
    green = (rgb[..., 1] > rgb[..., 0] + 60) & (rgb[..., 1] > rgb[..., 2] + 60)
    assert green.sum() > 2000  # the cone's faces, shaded, in the given green


# -- review fixes: escaping, diverged runs, one view(), per-scene identifiers, framing ----------

TRICKY_TITLE = "<!-- </script> & >"


def test_title_with_markup_stays_data(tmp_path):
    path = tmp_path / "t.html"
    write_html(rp.Cone(), path, title=TRICKY_TITLE)
    scene, reader, text = read_page(path)
    assert scene["heading"] == TRICKY_TITLE  # the JSON decodes to the very title
    start = text.index('id="rigidparts-scene">')
    embedded = text[start : text.index("</script>", start)]
    assert "<!--" not in embedded and "</" not in embedded[1:] and "&" not in embedded
    assert len(reader.scripts) == 3  # nothing closed a script early


def diverged(result, where: str, name: str, sample: int):
    """A copy of ``result`` (its arrays as a SimpleNamespace) with NaN in one array."""
    from types import SimpleNamespace

    copy = SimpleNamespace(
        time=result.time,
        body_rotations={n: np.array(v) for n, v in result.body_rotations.items()},
        body_positions={n: np.array(v) for n, v in result.body_positions.items()},
        body_quaternions={n: np.array(v) for n, v in result.body_quaternions.items()},
    )
    getattr(copy, where)[name][sample:] = np.nan
    return copy


@pytest.mark.parametrize("where", ["body_positions", "body_rotations", "body_quaternions"])
def test_diverged_run_is_a_clear_error(tmp_path, ten_second_run, where):
    model, result = ten_second_run
    name = next(iter(model.bodies))
    bad = diverged(result, where, name, 5000)
    path = tmp_path / "run.html"
    with pytest.raises(ParameterError) as info:
        rp.view(model, path, result=bad)
    assert info.value.parameter == f"result.{where}[{name!r}]"
    assert "must be finite (did the simulation diverge?)" in str(info.value)
    assert "sample 5000" in str(info.value)
    assert not path.exists()


def test_diverged_run_stops_a_gif_too(tmp_path, ten_second_run):
    model, result = ten_second_run
    name = next(iter(model.bodies))
    with pytest.raises(ParameterError, match=r"body_positions\['arm'\]|diverge"):
        rp.view(model, tmp_path / "run.gif", result=diverged(result, "body_positions", name, 3))
    assert not list(tmp_path.iterdir())


def test_view_takes_force_and_progress_for_every_format(tmp_path):
    model = pendulum_model()
    short = simulate(model, duration=0.2, timestep=1e-3)
    cases = [
        ("a.png", rp.Cone(), {"size": (200, 150)}),
        ("a.html", rp.Cone(), {}),
        ("a.gif", model, {"result": short, "fps": 5}),
    ]
    for name, target, extra in cases:
        path = tmp_path / name
        path.write_bytes(b"mine")
        path.chmod(stat.S_IRUSR)
        try:
            with pytest.raises(PermissionError):
                rp.view(target, path, force=False, progress=False, **extra)
            assert path.read_bytes() == b"mine"
            for bad in ("no", 1, "False"):
                with pytest.raises(ParameterError) as info:
                    rp.view(target, path, force=bad, progress=False, **extra)
                assert info.value.parameter == "force"
            with pytest.raises(ParameterError) as info:
                rp.view(target, path, force=True, progress="no", **extra)
            assert info.value.parameter == "progress"
            assert path.read_bytes() == b"mine"  # nothing clobbered by a bad flag
            rp.view(target, path, force=True, progress=False, **extra)
            assert path.read_bytes() != b"mine"
            assert stat.S_IMODE(path.stat().st_mode) == stat.S_IRUSR  # permissions kept
        finally:
            path.chmod(stat.S_IRUSR | stat.S_IWUSR)


def test_a_lone_body_cannot_be_animated(tmp_path, ten_second_run):
    _, result = ten_second_run
    for suffix in (".gif", ".mp4"):
        with pytest.raises(ParameterError) as info:
            rp.view(rp.Cone(), tmp_path / f"x{suffix}", result=result)
        assert info.value.parameter == "target"
        assert "an animation needs a Model and a result" in str(info.value)
    assert not list(tmp_path.iterdir())


def test_scenes_built_at_once_in_threads_keep_their_own_identifiers():
    import threading

    model = load_model(EXAMPLES / "serial_arm.toml")
    alone = viewer.html_scene(model)
    uuids = [
        o["uuid"]
        for c in commands_of(alone, "set_object")
        for key in ("geometries", "materials")
        for o in c["object"][key]
    ]
    assert len(uuids) == len(set(uuids))
    built: list[dict] = [None] * 4  # type: ignore[list-item]
    barrier = threading.Barrier(len(built))

    def build(k: int) -> None:
        barrier.wait()
        built[k] = viewer.html_scene(model)

    threads = [threading.Thread(target=build, args=(k,)) for k in range(len(built))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for scene in built:  # each as if built alone: unique, deterministic identifiers
        assert json.dumps(scene, sort_keys=True) == json.dumps(alone, sort_keys=True)


def test_inertia_ellipsoid_is_framed(tmp_path):
    """A thin ring's equivalent ellipsoid reaches beyond the ring and its triads: the box
    holds it when shown. Hollow cylinder (R, r, L) along z: I_z = m (R^2 + r^2) / 2, I_x =
    I_y = m (3 (R^2 + r^2) + L^2) / 12, so the semi-axis across is sqrt(5 / (2 m) (I_z + I_x
    - I_y)) = sqrt(5 (R^2 + r^2) / 4)."""
    big, small, length = 1.0, 0.99, 0.01
    ring = rp.Cylinder(length=length, radius=big, inner_radius=small, axis=(0, 0, 1))
    across = math.sqrt(5 * (big**2 + small**2) / 4)
    plain = viewer.html_scene(ring)
    shown = viewer.html_scene(ring, inertia=True)
    assert plain["bounds"]["high"][1] == pytest.approx(big, rel=1e-6)  # the ring itself
    # the surface is sampled every 2 pi / 32 around: within cos(pi / 32) of the semi-axis
    assert across * math.cos(math.pi / 32) <= shown["bounds"]["high"][1] <= across * (1 + 1e-9)
    assert shown["camera"]["radius"] > plain["camera"]["radius"]


def test_progress_names_the_framing_labels_and_page(tmp_path, monkeypatch, ten_second_run):
    class Recorder:
        def __init__(self, *args, **kwargs):
            self.messages = []
            seen.append(self)

        def update(self, message):
            self.messages.append(message)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return None

    seen: list[Recorder] = []
    model, result = ten_second_run
    monkeypatch.setattr("rigidparts.progress.Status", Recorder)
    write_html(model, tmp_path / "run.html", result=result, fps=2)
    (status,) = seen
    messages = status.messages
    assert "framing 21 keyframes" in messages and "placing the labels" in messages
    assert messages.index("framing 21 keyframes") < messages.index("placing the labels")
    assert "writing run.html: the page" in messages
    assert any(m.startswith("writing run.html:") and m.endswith("MB to disk") for m in messages)


def test_play_option_reaches_the_animation(tmp_path, ten_second_run):
    model, result = ten_second_run
    for play in (True, False):
        scene = viewer.html_scene(model, result=result, play=play, fps=1)
        (animation,) = commands_of(scene, "set_animation")
        assert animation["options"]["play"] is play


def test_keyframe_quaternions_from_rotations_when_the_result_has_none(ten_second_run):
    from types import SimpleNamespace

    model, result = ten_second_run
    bare = SimpleNamespace(
        time=result.time,
        body_rotations=result.body_rotations,
        body_positions=result.body_positions,
    )
    scene = viewer.html_scene(model, result=bare, fps=3)
    (animation,) = commands_of(scene, "set_animation")
    for clip in animation["animations"]:
        name = clip["path"].rsplit("/", 1)[1]
        tracks = {t["name"]: t for t in clip["clip"]["tracks"]}
        index = np.searchsorted(result.time - result.time[0], tracks[".quaternion"]["times"])
        xyzw = np.array(tracks[".quaternion"]["values"]).reshape(-1, 4)
        expected = Rotation.from_matrix(result.body_rotations[name][index]).as_quat()
        expected[expected[:, 3] < 0] *= -1  # the same rotation, w >= 0
        np.testing.assert_allclose(xyzw, expected, atol=1e-12)


def test_colour_numbers_of_the_three_js_objects():
    from rigidparts.viz.threejs import color_int

    assert color_int("#f80") == 0xFF8800  # '#rgb' doubles each digit
    assert color_int("steelblue") == 0x4682B4  # CSS3: steelblue is rgb(70, 130, 180)
    assert color_int((1.0, 0.0, 0.5)) == 0xFF0080  # 0.5 * 255 = 127.5 rounds to 128


def test_command_line_uses_the_one_opacity_and_fps_rules(tmp_path, capsys):
    out = tmp_path / "a.html"
    assert commands.main(["view", "cone", "--opacity", "nan", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --opacity") and "[0, 1]" in err and not out.exists()
    argv = ["simulate", str(EXAMPLES / "pendulum.toml"), "--html", str(out), "--html-fps"]
    assert commands.main([*argv, "1001"]) == 2
    assert "from 0.1 to 1000" in capsys.readouterr().err and not out.exists()


# -- rods ---------------------------------------------------------------------------------------


def _rod_node_ends(m: np.ndarray) -> np.ndarray:
    """The two ends of a rod drawn by a node of 4 x 4 matrix ``m`` over a unit cylinder along
    y centred on the origin: the node's origin -/+ half its (scaled) y column."""
    return np.stack([m[:3, 3] - 0.5 * m[:3, 1], m[:3, 3] + 0.5 * m[:3, 1]])


def _frame_origin(model: Model, frame: str, rotation, position) -> np.ndarray:
    """``p_WF = R_WA p_AF + p_WA`` of ``"BODY.FRAME"`` (the world origin for ``"world"``)."""
    if frame == "world":
        return np.zeros(3)
    body, name = frame.split(".")
    return np.asarray(rotation) @ np.asarray(model.frame_in_body(body, name)[1]) + position


def sprung_arm() -> Model:
    """The swinging bar with a spring from a world point to its far end (frame_b, 0.5 m from
    the hinge): a frame off frame_a, so frame_in_body matters."""
    model = pendulum_model()
    model.add_rod("spring", "arm.frame_b", "world", rest_length=0.2, stiffness=40.0, damping=0.5)
    return model


@pytest.mark.parametrize(
    "make", [lambda: load_model(EXAMPLES / "spring_pendulum.toml"), sprung_arm]
)
def test_a_still_rod_spans_its_two_frames(tmp_path, make):
    model = make()
    path = tmp_path / "still.html"
    write_html(model, path)
    scene, _, _ = read_page(path)
    frames = model.frame_poses()  # the model's own placement, "BODY.FRAME" -> (R, p)
    for rod in model.rods.values():
        ends = _rod_node_ends(transform_at(scene, f"/Rods/{rod.name}"))
        expected = [
            np.zeros(3) if f == "world" else frames[f][1] for f in (rod.frame_a, rod.frame_b)
        ]
        np.testing.assert_allclose(ends, np.stack(expected), rtol=0, atol=1e-12)
        (obj,) = [
            c
            for c in commands_of(scene, "set_object")
            if c["path"].startswith(f"/Rods/{rod.name}/")
        ]
        (geometry,) = obj["object"]["geometries"]
        assert geometry["type"] == "CylinderGeometry" and geometry["height"] == 1.0
        assert 0 < geometry["radiusTop"] == geometry["radiusBottom"] < 0.01 * rod.length(frames)
        (material,) = obj["object"]["materials"]
        assert material["color"] == int(viewer.ROD_COLOR[1:], 16)


def test_rod_folder_and_framing(tmp_path):
    """One node per rod in the folder "Rods" (none without rods); the camera's box holds the
    rod's ends, so a spring anchored at the world origin, 0.6 m above the ball, is in view."""
    model = load_model(EXAMPLES / "spring_pendulum.toml")
    path = tmp_path / "spring.html"
    write_html(model, path)
    scene, _, _ = read_page(path)
    rods = {c["path"] for c in scene["commands"] if c.get("path", "").startswith("/Rods/")}
    assert rods == {"/Rods/spring", "/Rods/spring/cylinder"}
    assert scene["bounds"]["high"][2] >= 0.0  # the anchor; the ball's top is at -0.59 m
    ends = _rod_node_ends(transform_at(scene, "/Rods/spring"))
    for width, height in ((1200, 800), (600, 900)):
        pixels = _camera_pixels(scene["camera"], ends, width, height)
        assert np.all(pixels[:, 2] > 0)
        _clear_of_the_edges(pixels, width, height)
    still = tmp_path / "plain.html"
    write_html(pendulum_model(), still)
    plain, _, _ = read_page(still)
    assert not [c for c in plain["commands"] if c.get("path", "").startswith("/Rods")]


@pytest.mark.parametrize(
    ("make", "duration"),
    [(lambda: load_model(EXAMPLES / "spring_pendulum.toml"), 0.4), (sprung_arm, 0.3)],
)
def test_rod_keyframes_follow_the_simulated_frames(tmp_path, make, duration):
    """At every keyframe the rod's ends (position -/+ half its scaled length along its y axis,
    the rotation from the keyframed quaternion through scipy) are the frames' origins computed
    from the result's own body poses (quaternions through scipy) and ``model.frame_in_body``."""
    model = make()
    result = simulate(model, duration=duration, timestep=1e-3)
    path = tmp_path / "run.html"
    write_html(model, path, result=result)
    scene, _, _ = read_page(path)
    (animation,) = commands_of(scene, "set_animation")
    clips = {a["path"]: a["clip"] for a in animation["animations"]}
    assert set(clips) == {f"/Bodies/{n}" for n in model.bodies} | {f"/Rods/{n}" for n in model.rods}
    t0 = result.time[0]
    for rod in model.rods.values():
        tracks = {t["name"]: t for t in clips[f"/Rods/{rod.name}"]["tracks"]}
        assert set(tracks) == {".position", ".quaternion", ".scale"}
        assert tracks[".scale"]["type"] == "vector3"
        times = np.array(tracks[".position"]["times"])
        assert tracks[".quaternion"]["times"] == tracks[".scale"]["times"] == list(times)
        index = np.searchsorted(result.time - t0, times)
        np.testing.assert_array_equal(result.time[index] - t0, times)
        assert len(index) == scene["animation"]["keyframes"] > 2
        middle = np.array(tracks[".position"]["values"]).reshape(-1, 3)
        axis = Rotation.from_quat(np.array(tracks[".quaternion"]["values"]).reshape(-1, 4))
        scale = np.array(tracks[".scale"]["values"]).reshape(-1, 3)
        np.testing.assert_array_equal(scale[:, [0, 2]], 1.0)
        half = 0.5 * scale[:, 1:2] * axis.as_matrix()[:, :, 1]
        for k, i in enumerate(index):
            expected = []
            for frame in (rod.frame_a, rod.frame_b):
                body = frame.split(".")[0]
                if frame == "world":
                    expected.append(np.zeros(3))
                    continue
                rotation = Rotation.from_quat(
                    result.body_quaternions[body][i], scalar_first=True
                ).as_matrix()
                expected.append(
                    _frame_origin(model, frame, rotation, result.body_positions[body][i])
                )
            np.testing.assert_allclose(middle[k] - half[k], expected[0], rtol=0, atol=1e-12)
            np.testing.assert_allclose(middle[k] + half[k], expected[1], rtol=0, atol=1e-12)
    # the rod moved: its length changed over the run
    lengths = np.array(tracks[".scale"]["values"]).reshape(-1, 3)[:, 1]
    assert np.ptp(lengths) > 1e-4


def test_a_zero_length_rod_is_drawn_finite(tmp_path):
    """A rod between two frames at one point: a finite, non-singular node a hair long at the
    point (three.js decomposes a singular matrix into NaN), still and keyframed."""
    model = Model("point")
    model.add_body("arm", rp.Box(length=0.5, width=0.06, height=0.06, axis=(0, 0, -1)))
    model.add_joint("hinge", "revolute", "world", "arm.frame_a", axis=(0, 1, 0), initial="30 deg")
    model.add_rod("nil", "world", "arm.frame_a", rest_length=0.0, stiffness=10.0)
    result = simulate(model, duration=0.05, timestep=1e-3)
    path = tmp_path / "nil.html"
    write_html(model, path, result=result)
    scene, _, _ = read_page(path)
    m = transform_at(scene, "/Rods/nil")
    assert np.all(np.isfinite(m))
    np.testing.assert_array_equal(m[:3, 3], 0.0)
    size = float(np.max(np.subtract(scene["bounds"]["high"], scene["bounds"]["low"])))
    assert 0.0 < abs(np.linalg.det(m[:3, :3])) and np.linalg.norm(m[:3, 1]) < 1e-6 * size
    (animation,) = commands_of(scene, "set_animation")
    (clip,) = [a["clip"] for a in animation["animations"] if a["path"] == "/Rods/nil"]
    for track in clip["tracks"]:
        values = np.array(track["values"])
        assert np.all(np.isfinite(values))
        if track["name"] == ".scale":
            assert np.all(values > 0)
        if track["name"] == ".position":
            np.testing.assert_allclose(values, 0.0, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(-1e3, 1e3), min_size=3, max_size=3),
    st.lists(st.floats(-1e3, 1e3), min_size=3, max_size=3),
    st.sampled_from([None, "y", "-y"]),
)
def test_rod_transforms_place_a_unit_cylinder_between_the_ends(start, end, along):
    from rigidparts.viz.threejs import rod_transforms

    start = np.array(start)
    if along is not None:  # the rod along +y or -y exactly: the axis of the turn degenerates
        end = start + np.array([0.0, 1.0 if along == "y" else -1.0, 0.0]) * (abs(end[1]) + 1e-3)
    end = np.array(end)
    middle, rotation, length, shown = rod_transforms(start, end, 1e-9)
    (r,) = rotation
    np.testing.assert_allclose(r @ r.T, np.eye(3), atol=1e-12)
    assert np.linalg.det(r) == pytest.approx(1.0)
    assert length[0] == pytest.approx(math.dist(start, end), rel=1e-12, abs=1e-300)
    tol = 1e-12 * max(1.0, float(np.max(np.abs([start, end]))))
    assert shown[0] == max(length[0], 1e-9)
    if length[0] > 1e-9:
        np.testing.assert_allclose(middle[0] - 0.5 * shown[0] * r[:, 1], start, atol=tol)
        np.testing.assert_allclose(middle[0] + 0.5 * shown[0] * r[:, 1], end, atol=tol)
    else:
        assert shown[0] == 1e-9  # shorter than the floor: drawn a hair long at its middle
        np.testing.assert_allclose(middle[0], 0.5 * (start + end), rtol=0, atol=tol)


def test_rod_transforms_of_tiny_and_zero_rods():
    """Lengths that would underflow a naive normalisation still give a unit axis; zero keeps
    the identity and the floor."""
    from rigidparts.viz.threejs import rod_transforms

    starts = np.zeros((3, 3))
    ends = np.array([[0.0, 0.0, 1e-310], [3e-320, 0.0, 0.0], [0.0, 0.0, 0.0]])
    middle, rotation, length, shown = rod_transforms(starts, ends, 1e-9)
    np.testing.assert_allclose(rotation[0][:, 1], [0, 0, 1], atol=1e-15)
    np.testing.assert_allclose(rotation[1][:, 1], [1, 0, 0], atol=1e-15)
    np.testing.assert_array_equal(rotation[2], np.eye(3))
    assert np.all(np.isfinite(middle)) and np.all(np.isfinite(rotation))
    np.testing.assert_array_equal(length, [1e-310, 3e-320, 0.0])
    np.testing.assert_array_equal(shown, 1e-9)  # drawn a hair long, never singular


# -- large models (issue 22): shared meshes, merged labels, every control kept ----------------


def chain(links: int, shape: str = "box") -> Model:
    """``links`` equal 0.1 m links hanging along -z, each hinged at the previous one's
    frame_b (boxes, or cones: triangle meshes of some 20 kB of JSON each)."""
    model = Model(f"chain{links}")
    parent = "world"
    for i in range(links):
        if shape == "box":
            body = rp.Box(length=0.1, width=0.02, height=0.02, axis=(0, 0, -1))
        else:
            body = rp.Cone(length=0.1, radius_a=0.02, radius_b=0.01, axis=(0, 0, -1))
        model.add_body(f"link{i}", body)
        model.add_joint(f"hinge{i}", "revolute", parent, f"link{i}.frame_a", axis=(0, 1, 0))
        parent = f"link{i}.frame_b"
    return model


def _buffer_geometries(scene: dict) -> dict[str, dict]:
    """uuid -> every BufferGeometry written in the scene (each must be written once)."""
    found: dict[str, dict] = {}
    for command in commands_of(scene, "set_object"):
        for geometry in command["object"].get("geometries", []):
            assert geometry["uuid"] not in found  # never written twice
            if geometry["type"] == "BufferGeometry":
                found[geometry["uuid"]] = geometry
    return found


def test_equal_meshes_are_written_once():
    """Ten equal cones and one other: two surface meshes in the file, each body's mesh node
    naming its geometry, the shared one written before its first use; the shared mesh is the
    body's own (its volume, by the divergence theorem, is the frustum's pi L (a^2 + a b +
    b^2) / 3 to the mesh's faceting)."""
    model = chain(10, "cone")
    model.add_body("odd", rp.Cone(length=0.2, radius_a=0.03, radius_b=0.0))
    model.add_joint("odd_joint", "fixed", "link9.frame_b", "odd.frame_a")
    scene = viewer.html_scene(model)
    geometries = _buffer_geometries(scene)
    surfaces = {}
    for command in commands_of(scene, "set_object"):
        if command["path"].startswith("/Bodies/"):
            node = command["object"]["object"]
            surfaces[command["path"]] = node["geometry"]
            assert node["geometry"] in geometries  # written at or before this command
    assert len(set(surfaces.values())) == 2
    assert len({surfaces[f"/Bodies/link{i}/mesh"] for i in range(10)}) == 1
    geometry = geometries[surfaces["/Bodies/link0/mesh"]]["data"]
    vertices = np.array(geometry["attributes"]["position"]["array"]).reshape(-1, 3)
    faces = np.array(geometry["index"]["array"]).reshape(-1, 3)
    frustum = math.pi * 0.1 * (0.02**2 + 0.02 * 0.01 + 0.01**2) / 3
    # 48 sides inscribed: the polygon's area is sin(2 pi / 48) 48 / (2 pi) of the circle's
    assert abs(_volume(vertices, faces)) == pytest.approx(
        frustum * math.sin(2 * math.pi / 48) * 48 / (2 * math.pi), rel=1e-5
    )


def test_file_size_grows_sub_linearly_with_repeated_bodies(tmp_path):
    """Adding equal bodies adds their poses, marks and labels, not their meshes: the mesh
    data of 20 and of 40 equal cones is one cone's, and each extra cone costs under half its
    mesh's JSON."""

    def mesh_bytes(scene):
        return sum(
            len(json.dumps(g["data"], separators=(",", ":")))
            for g in _buffer_geometries(scene).values()
            if "index" in g["data"]  # the surfaces (the edges and unit marks have none)
        )

    sizes, meshes = {}, {}
    for links in (20, 40):
        path = tmp_path / f"chain{links}.html"
        write_html(chain(links, "cone"), path, progress=False)
        sizes[links] = path.stat().st_size
        meshes[links] = mesh_bytes(read_page(path)[0])
    cone = rp.Cone(length=0.1, radius_a=0.02, radius_b=0.01, axis=(0, 0, -1))
    one = mesh_bytes(viewer.html_scene(cone))
    assert meshes[20] == meshes[40] == one
    per_body = (sizes[40] - sizes[20]) / 20
    assert per_body < one / 2, (per_body, one)


def _merge_reference(frames, tolerance):
    """The rule as stated, by brute force: in order, a frame joins the first earlier group
    whose first origin is within the tolerance on every coordinate."""
    groups = []
    for label, origin, _ in frames:
        origin = np.asarray(origin, dtype=np.float64).reshape(-1)
        for names, where in groups:
            if where.shape == origin.shape and np.max(np.abs(where - origin)) <= tolerance:
                names.append(label)
                break
        else:
            groups.append(([label], origin))
    return [("\n".join(names), where) for names, where in groups]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(-3, 3), st.integers(-3, 3), st.integers(-1, 1), st.integers(0, 4)),
        min_size=1,
        max_size=40,
    ),
    st.sampled_from([0.0, 1e-3, 0.5, 1.0]),
    st.integers(1, 3),
)
def test_label_merging_is_the_stated_rule(cells, tolerance, instants):
    """The grid-accelerated merge gives the brute-force rule's groups, in order, for points
    on and near cell borders (multiples of the tolerance, and a hair off them) and for tracks
    over several instants."""
    from rigidparts.viz.labels import merge_coincident

    frames = []
    for k, (x, y, z, jitter) in enumerate(cells):
        step = tolerance or 1.0
        base = np.array([x, y, z], dtype=np.float64) * 0.5 * step + jitter * 0.3 * step
        track = np.concatenate([base + 0.25 * step * i * (k % 2) for i in range(instants)])
        frames.append((f"f{k}", track, None))
    got = merge_coincident(frames, tolerance)
    want = _merge_reference(frames, tolerance)
    assert [text for text, _ in got] == [text for text, _ in want]
    for (_, a), (_, b) in zip(got, want, strict=True):
        np.testing.assert_array_equal(a, b)


def test_label_merging_of_many_frames_matches_the_rule():
    """3000 frames of a chain (pairs meeting at each joint) merge as the rule says."""
    from rigidparts.viz.labels import merge_coincident

    rng = np.random.default_rng(7)
    points = np.repeat(np.cumsum(rng.normal(size=(1500, 3)), axis=0), 2, axis=0)
    points += rng.normal(scale=1e-9, size=points.shape)
    frames = [(f"f{i}", p, None) for i, p in enumerate(points)]
    got = merge_coincident(frames, 1e-6)
    want = _merge_reference(frames, 1e-6)
    assert [t for t, _ in got] == [t for t, _ in want]
    assert len(got) == 1500


def test_a_large_model_keeps_every_control(tmp_path):
    """Past LARGE_MODEL bodies the file takes the compact form (shared poses, objects at the
    nodes): still a node per body in every folder, a triad per frame, a marker, an ellipsoid
    and a joint mark per body, a label per point; the page's Labels and Marks controls; the
    triads the links' own size (half a 0.1 m link), not the chain's."""
    links = viewer.LARGE_MODEL + 20
    model = chain(links)
    path = tmp_path / "chain.html"
    write_html(model, path, progress=False)
    scene, reader, _ = read_page(path)
    assert scene["shared_poses"] is True and scene["label_mode"] == "hover"
    assert scene["implied_followers"] == ["/Frames", "/Centres of mass", "/Inertia"]
    objects = {c["path"]: c["object"]["object"] for c in commands_of(scene, "set_object")}
    poses = model.body_poses()
    labelled = {label["path"] for label in scene["labels"]}
    for name, body in model.bodies.items():
        m = transform_at(scene, f"/Bodies/{name}")
        np.testing.assert_allclose(m[:3, :3], poses[name][0], atol=1e-12)
        np.testing.assert_allclose(m[:3, 3], poses[name][1], atol=1e-12)
        assert objects[f"/Bodies/{name}"]["type"] == "Mesh"
        # the body's marks follow it (implied), the joint it carries is listed
        carried = [f"/Joints/{j.name}" for j in model.joints.values() if j.parent_body == name]
        assert scene["followers"][f"/Bodies/{name}"] == carried
        assert objects[f"/Centres of mass/{name}"]["type"] == "Mesh"
        assert objects[f"/Inertia/{name}"]["type"] == "Mesh"
        for frame_name, frame in body.frames.items():
            triad = np.array(objects[f"/Frames/{name}/{frame_name}"]["matrix"]).reshape(4, 4).T
            np.testing.assert_allclose(triad[:3, 3], frame.position, atol=1e-7)
            np.testing.assert_allclose(triad[:3, :3], 0.05 * frame.rotation, atol=1e-9)
        assert f"/Frames/{name}/frame_com/label" in labelled
    for joint in model.joints.values():
        assert f"/Joints/{joint.name}" in objects
        assert f"/Joints/{joint.name}/label" in labelled
    # frame_b of one link and frame_a of the next share a label
    texts = [label["text"] for label in scene["labels"]]
    assert "link0.frame_b\nlink1.frame_a" in texts and "link1.frame_a" not in texts
    player = reader.scripts[2]
    assert '"Labels", ["pointed body", "all", "none"]' in player
    assert '"Marks", ["pointed body", "all", "none"]' in player
    # a few kB a body, the viewer's 0.9 MB apart
    assert path.stat().st_size < 1.0 * MB + links * 3000


def test_small_bodies_keep_small_triads():
    """A 5 mm ball on a 1 m bar: the ball's triads are at most half its size, the bar's the
    scene's 0.15 of its extent."""
    model = Model("bar and bead")
    model.add_body("bar", rp.Box(length=1.0, width=0.05, height=0.05))
    model.add_body("bead", rp.Ball(radius=0.0025))
    model.add_joint("base", "fixed", "world", "bar.frame_a")
    model.add_joint("weld", "fixed", "bar.frame_b", "bead.frame_a")
    scene = viewer.html_scene(model)
    objects = {c["path"]: c["object"]["object"] for c in commands_of(scene, "set_object")}

    def scale(path):
        return np.array(objects[path]["matrix"]).reshape(4, 4).T[0, 0]

    assert scale("/Frames/bead/frame_a/triad") == pytest.approx(0.5 * 0.005, rel=1e-6)
    assert scale("/Frames/bar/frame_a/triad") == pytest.approx(scene["triad_length"], rel=1e-6)


# -- long names and titles are cut for display (issue 23 item 5) --------------------------------


def test_a_name_of_millions_of_characters_is_cut(tmp_path):
    """A 2-million-character model name and a 1000-character body name: the page's title,
    heading and labels show at most TEXT_WIDTH characters a line (the cut marked by an
    ellipsis), and the names in the file's scene are whole where they identify (paths)."""
    from rigidparts.viz.scene import TEXT_WIDTH

    body = "b" * 1000
    model = Model("n" * 2_000_000)
    model.add_body(body, rp.Box())
    model.add_joint("j" * 500, "revolute", "world", f"{body}.frame_a", axis=(0, 0, 1))
    path = tmp_path / "long.html"
    write_html(model, path, progress=False)
    scene, _, text = read_page(path)
    assert len(text) < 2 * MB  # not the name written out in full
    assert scene["title"] == "n" * (TEXT_WIDTH - 1) + "\u2026"
    assert scene["heading"].startswith(scene["title"] + ": 1 body, 1 joint")
    assert len(scene["heading"]) < 3 * TEXT_WIDTH
    for label in scene["labels"]:
        assert all(len(line) <= TEXT_WIDTH for line in label["text"].split("\n"))
    assert f"/Bodies/{body}" in {c["path"] for c in commands_of(scene, "set_transform")}


@settings(max_examples=80, deadline=None)
@given(
    st.text(alphabet=st.sampled_from("ab \n\t\u00e9"), max_size=400),
    st.integers(2, 50),
    st.integers(1, 6),
)
def test_short_text_invariants(text, width, lines):
    """At most ``lines`` lines of at most ``width`` characters; text that fits is kept as it
    is (control characters shown as spaces); a cut is marked by an ellipsis; what is kept
    of each line is the line's beginning."""
    from rigidparts.viz.scene import short_text

    out = short_text(text, width, lines)
    rows = out.split("\n")
    assert len(rows) <= lines and all(len(r) <= width for r in rows)
    shown = text.replace("\t", " ")
    source = shown.split("\n")
    if len(source) <= lines and all(len(r) <= width for r in source):
        assert out == shown
    else:  # a cut line, or the last line when lines were left out, says so
        assert any(row.endswith("\u2026") for row in rows)
    for row, original in zip(rows, source, strict=False):
        assert original.startswith(row.rstrip("\u2026"))
