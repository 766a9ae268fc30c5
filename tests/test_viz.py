"""Pictures and animations (rigidparts.viz, ``rigidparts view``, ``simulate --animate``).

Where things are drawn is checked against positions worked out here from the geometry (frame_b
at ``L e_axis``, the textbook centre of mass of a frustum, a joint at its file position),
through matplotlib's own projection; the equivalent inertia ellipsoid against trimesh's
integration of an ellipsoid mesh; pictures by their pixels (size, not blank, triad colours).
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import matplotlib

matplotlib.use("Agg")  # tests run headless

import numpy as np
import pytest
import trimesh
from matplotlib.colors import to_rgb
from mpl_toolkits.mplot3d import Axes3D, proj3d
from PIL import Image

import rigidparts as rp
from rigidparts import commands
from rigidparts.frames import Frame
from rigidparts.model import Model, load_model
from rigidparts.viz import animate as animation
from rigidparts.viz import new_axes, plot, plot_body, plot_model
from rigidparts.viz.geometry import inertia_ellipsoid
from rigidparts.viz.scene import AXIS_COLORS

PENDULUM_TOML = """\
name = "test_pendulum"

[bodies.arm]
shape = "box"
length = 0.8
width = 0.03
height = 0.05
axis = [0, 0, -1]
material = "aluminium"

[bodies.bob]
shape = "cone"
length = 0.2
radius_a = 0.06
radius_b = 0.0
axis = [0, 0, -1]

[[joints]]
name = "hinge"
type = "revolute"
parent = "world"
child = "arm.frame_a"
axis = [0, 1, 0]
position = [0, 0, 1.2]
initial = "20 deg"

[[joints]]
name = "weld"
type = "fixed"
parent = "arm.frame_b"
child = "bob.frame_a"
"""


@pytest.fixture
def model_file(tmp_path: Path) -> Path:
    path = tmp_path / "pendulum.toml"
    path.write_text(PENDULUM_TOML, encoding="utf-8")
    return path


def labels(ax: Axes3D) -> dict[str, np.ndarray]:
    """Frame label text -> the 3-D point it labels (one entry per name of a merged label):
    the start of its leader line when it was moved clear of others, else its anchor."""
    leaders = {}
    for line in ax.lines:
        if line.get_gid() == "label_leader":
            ends = np.column_stack(line.get_data_3d())
            leaders[tuple(np.round(ends[1], 12))] = ends[0]
    out = {}
    for text in ax.texts:
        if text.get_gid() == "label":
            anchor = np.array(text.get_position_3d())
            point = leaders.get(tuple(np.round(anchor, 12)), anchor)
            for name in text.get_text().split("\n"):
                out[name] = point
    return out


def frustum_com(length: float, ra: float, rb: float) -> float:
    """Textbook centre of mass of a solid frustum from its base a: L (Ra^2 + 2 Ra Rb + 3 Rb^2)
    / (4 (Ra^2 + Ra Rb + Rb^2))."""
    return length * (ra**2 + 2 * ra * rb + 3 * rb**2) / (4 * (ra**2 + ra * rb + rb**2))


def projected(ax: Axes3D, point: np.ndarray) -> np.ndarray:
    x, y, _ = proj3d.proj_transform(*point, ax.get_proj())
    return np.array([x, y])


# -- plot_body ------------------------------------------------------------------------------------


def test_plot_body_returns_axes_with_labelled_frames_where_they_belong() -> None:
    cone = rp.Cone(length=1.0, radius_a=0.4, radius_b=0.1, axis=(0, 1, 1), extra_frames=[0.3])
    ax = plot(cone)
    assert isinstance(ax, Axes3D)
    found = labels(ax)
    assert set(found) == {"frame_a", "frame_b", "frame_com", "frame_c1"}
    e = np.array([0.0, 1.0, 1.0]) / math.sqrt(2.0)
    expected = {
        "frame_a": np.zeros(3),
        "frame_b": 1.0 * e,
        "frame_com": frustum_com(1.0, 0.4, 0.1) * e,
        "frame_c1": 0.3 * e,
    }
    size = max(np.ptp(cone.mesh().vertices, axis=0))
    for name, where in expected.items():
        # The label's corner sits just below-left of its frame (0.12 triad lengths each way).
        assert np.linalg.norm(found[name] - where) < 0.05 * size, name
    assert "Cone" in ax.get_title() and "steel" in ax.get_title()
    assert f"{cone.mass:.5g} kg" in ax.get_title()
    ax.figure.clf()


def test_center_of_mass_marker_is_at_the_centre_of_mass() -> None:
    box = rp.Box(length=2.0, width=0.1, height=0.2, axis=(0, 0, 1), rotate90=True)
    ax = plot_body(box, ax=new_axes((600, 450), pyplot=False))
    ax.figure.canvas.draw()
    (marker,) = [c for c in ax.collections if c.get_gid() == "center_of_mass"]
    np.testing.assert_allclose(marker.get_offsets()[0], projected(ax, [0, 0, 1.0]), atol=1e-9)


def test_plot_body_on_a_given_axes_and_options() -> None:
    ax = new_axes((400, 300), pyplot=False)
    box = rp.Box(inner_width=0.05, inner_height=0.1, material="aluminium")
    out = plot(
        box,
        ax=ax,
        inertia=True,
        labels=False,
        frames=["frame_a", "frame_b"],
        title="my box",
        view=(10, 30),
        sections=8,
    )
    assert out is ax
    assert ax.get_title() == "my box"
    assert labels(ax) == {}
    assert any(c.get_gid() == "inertia_ellipsoid" for c in ax.collections)
    assert (ax.elev, ax.azim) == (10, 30)


def test_equal_scaling_on_all_axes() -> None:
    box = rp.Box(length=1.0, width=0.1, height=0.2, axis=(1, 1, 0))
    ax = plot_body(box, ax=new_axes((400, 300), pyplot=False))
    ranges = np.array([np.ptp(ax.get_xlim()), np.ptp(ax.get_ylim()), np.ptp(ax.get_zlim())])
    aspect = np.array(ax.get_box_aspect())
    np.testing.assert_allclose(aspect / aspect.max(), ranges / ranges.max(), rtol=1e-9)


@pytest.mark.parametrize(
    ("options", "parameter"),
    [
        ({"colour": "red"}, "colour"),
        ({"alpha": 0.0}, "alpha"),
        ({"size": (50, 50)}, "size"),
        ({"size": "big"}, "size"),
        ({"view": (10,)}, "view"),
        ({"view": (math.nan, 0)}, "view"),
        ({"sections": 2}, "sections"),
    ],
)
def test_plot_body_bad_options(options: dict, parameter: str) -> None:
    with pytest.raises(rp.ParameterError) as info:
        plot_body(
            rp.Cone(),
            ax=None if "size" in options else new_axes((200, 200), pyplot=False),
            **options,
        )
    assert info.value.parameter == parameter


def test_plot_body_needs_3d_axes() -> None:
    from matplotlib.figure import Figure

    flat = Figure().add_subplot()
    with pytest.raises(rp.ParameterError, match="3-D axes"):
        plot_body(rp.Cone(), ax=flat)


def test_inertia_ellipsoid_has_the_body_s_moments() -> None:
    # Independent check: trimesh integrates a fine ellipsoid mesh of those semi-axes.
    for body in (rp.Cone(inner_radius_a=0.2), rp.Box(length=0.5, width=0.1, height=0.3)):
        semi = inertia_ellipsoid(body.mass, body.principal_moments)
        sphere = trimesh.creation.icosphere(subdivisions=5)
        sphere.apply_scale(semi)
        sphere.density = body.mass / sphere.volume
        moments = np.sort(np.linalg.eigvalsh(sphere.moment_inertia))
        np.testing.assert_allclose(moments, body.principal_moments, rtol=2e-3)
    # A unit cube: I = m / 6 about every axis, so a = sqrt(5 / 12) on every axis.
    cube = rp.Box(length=1.0, width=1.0, height=1.0, density=1.0)
    np.testing.assert_allclose(
        inertia_ellipsoid(cube.mass, cube.principal_moments), [math.sqrt(5 / 12)] * 3, rtol=1e-14
    )


def test_library_does_not_pick_a_backend_and_cli_imports_nothing_heavy() -> None:
    code = textwrap.dedent(
        """
        import sys
        import rigidparts.commands as commands
        commands.build_parser()
        heavy = [m for m in ("matplotlib", "trimesh", "shapely", "PIL") if m in sys.modules]
        assert not heavy, heavy
        import matplotlib
        before = matplotlib.get_backend()
        import rigidparts as rp
        import rigidparts.viz
        rigidparts.viz.plot(rp.Cone(), sections=6)
        assert matplotlib.get_backend() == before, (before, matplotlib.get_backend())
        """
    )
    env = {**os.environ, "MPLBACKEND": "Agg"}
    subprocess.run([sys.executable, "-c", code], check=True, env=env)


def test_importing_viz_imports_no_matplotlib_and_a_missing_one_names_the_extra() -> None:
    code = textwrap.dedent(
        """
        import sys
        import rigidparts.viz as viz
        (viz.plot, viz.plot_body, viz.plot_model, viz.new_axes)  # the names load lazily
        assert "matplotlib" not in sys.modules, "imported matplotlib"
        import rigidparts as rp
        sys.modules["matplotlib"] = None  # as if not installed
        try:
            viz.plot(rp.Cone())
        except ImportError as exc:
            message = str(exc)
        else:
            raise AssertionError("no ImportError")
        assert "\\n" not in message and "pip install 'rigidparts[viz]'" in message, message
        """
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_rotated_frame_triad_is_drawn_along_its_rotated_axes() -> None:
    # R_AF: 30 deg about z, then 20 deg about y, then -50 deg about x (a frame turned as the
    # radial frames of a disk are).
    c, s = math.cos, math.sin
    a, b, g = math.radians(30.0), math.radians(20.0), math.radians(-50.0)
    r_z = np.array([[c(a), -s(a), 0], [s(a), c(a), 0], [0, 0, 1]])
    r_y = np.array([[c(b), 0, s(b)], [0, 1, 0], [-s(b), 0, c(b)]])
    r_x = np.array([[1, 0, 0], [0, c(g), -s(g)], [0, s(g), c(g)]])
    r_af = r_z @ r_y @ r_x
    origin = np.array([0.5, 0.1, 0.0])

    class TurnedFrame(rp.Cone):
        @property
        def frames(self) -> dict:
            return {**super().frames, "frame_t": Frame(position=origin, rotation=r_af)}

    length = 0.3
    ax = plot(
        TurnedFrame(), ax=new_axes((400, 300), pyplot=False), triad_length=length, labels=False
    )
    ax.figure.canvas.draw()  # projects the 3-D segments to the screen

    def drawn(segments: list, start: np.ndarray, end: np.ndarray) -> bool:
        ends = {tuple(np.round(projected(ax, p), 9)) for p in (start, end)}
        return any({tuple(np.round(p, 9)) for p in seg} == ends for seg in segments)

    for k, name in enumerate("xyz"):
        (arrows,) = [c for c in ax.collections if c.get_gid() == f"triad_{name}"]
        segments = arrows.get_segments()
        # The shaft runs from the frame's origin along R_AF's column k, not along e_k.
        assert drawn(segments, origin, origin + length * r_af[:, k]), name
        assert not drawn(segments, origin, origin + length * np.eye(3)[:, k]), name
        # The identity frames' triads are there too, along frame_a's axes.
        assert drawn(segments, np.zeros(3), length * np.eye(3)[:, k]), name


def test_plot_draws_a_body_or_a_model_and_refuses_anything_else() -> None:
    model = Model("swing")
    model.add_body("arm", rp.Box(length=1.0, width=0.05, height=0.05, axis=(0, 0, -1)))
    model.add_joint("hinge", "revolute", "world", "arm.frame_a", axis=(0, 1, 0))
    model.add_body("bob", rp.Cone(length=0.2, radius_a=0.05, radius_b=0.0, axis=(0, 0, -1)))
    model.add_joint("knuckle", "ball", "arm.frame_b", "bob.frame_a")
    ax = plot(model, ax=new_axes((400, 300), pyplot=False), q={"hinge": math.pi / 2})
    np.testing.assert_allclose(labels(ax)["arm.frame_b"], [-1.0, 0.0, 0.0], atol=0.1)
    assert "swing" in ax.get_title()
    # The ball joint (no axis) is a ring at its origin, arm.frame_b.
    (ring,) = [c for c in ax.collections if c.get_gid() == "joint_ball"]
    ax.figure.canvas.draw()
    np.testing.assert_allclose(ring.get_offsets()[0], projected(ax, [-1.0, 0, 0]), atol=1e-9)
    with pytest.raises(rp.ParameterError) as info:
        plot("cone", ax=new_axes((200, 200), pyplot=False))
    assert info.value.parameter == "target"


# -- plot_model -----------------------------------------------------------------------------------


def test_plot_model_places_bodies_frames_and_joints(model_file: Path) -> None:
    model = load_model(model_file)
    ax = plot_model(model, ax=new_axes((600, 450), pyplot=False))
    found = labels(ax)
    pivot = np.array([0.0, 0.0, 1.2])
    angle = math.radians(20.0)
    # Rotation about +y by 20 deg swings the hanging arm (-z) towards -x.
    down = np.array([-math.sin(angle), 0.0, -math.cos(angle)])
    expected = {
        "arm.frame_a": pivot,
        "arm.frame_b": pivot + 0.8 * down,
        "bob.frame_a": pivot + 0.8 * down,
        "bob.frame_b": pivot + 1.0 * down,
        "bob.frame_com": pivot + (0.8 + 0.2 / 4) * down,  # a solid cone's COM: L/4 from its base
    }
    for name, where in expected.items():
        assert np.linalg.norm(found[name] - where) < 0.12, name
    # frame_b of the arm and frame_a of the bob coincide: one label for both.
    merged = [t.get_text() for t in ax.texts if "arm.frame_b" in t.get_text()]
    assert merged == ["arm.frame_b\nbob.frame_a"]
    (axis_line,) = [line for line in ax.lines if line.get_gid() == "joint_axis"]
    xs, ys, zs = axis_line.get_data_3d()
    ends = np.column_stack([xs, ys, zs])
    direction = (ends[1] - ends[0]) / np.linalg.norm(ends[1] - ends[0])
    np.testing.assert_allclose(direction, [0, 1, 0], atol=1e-12)
    np.testing.assert_allclose(
        ends[0] + (pivot - ends[0]) @ direction * direction, pivot, atol=1e-12
    )
    assert any("hinge (revolute)" in t.get_text() for t in ax.texts)
    assert "test_pendulum" in ax.get_title()


def test_plot_model_at_given_joint_positions() -> None:
    model = Model("swing")
    model.add_body("arm", rp.Box(length=1.0, width=0.05, height=0.05, axis=(0, 0, -1)))
    model.add_joint("hinge", "revolute", "world", "arm.frame_a", axis=(0, 1, 0))
    ax = plot_model(model, ax=new_axes((400, 300), pyplot=False), q={"hinge": math.pi / 2})
    # A quarter turn about +y takes the hanging arm (-z) to -x.
    np.testing.assert_allclose(labels(ax)["arm.frame_b"], [-1.0, 0.0, 0.0], atol=0.1)


# -- rigidparts view ------------------------------------------------------------------------------


def picture_checks(path: Path, size: tuple[int, int]) -> None:
    image = Image.open(path)
    assert image.format == "PNG"
    assert image.size == size
    pixels = np.asarray(image.convert("RGB"), dtype=np.float64)
    assert pixels.std() > 20.0  # not blank
    assert (pixels.min(axis=2) < 200).mean() > 0.015  # a fair part of it is drawn on
    for color in AXIS_COLORS:  # the triads' colours are there
        rgb = np.array(to_rgb(color)) * 255
        assert (np.abs(pixels - rgb).max(axis=2) < 12).sum() > 50, color


@pytest.mark.parametrize(
    "args",
    [
        ["cone"],
        ["box", "--inner-width", "0.06", "--inner-height", "0.14", "--rotate90", "--inertia"],
        [
            "cone",
            "--radius-b",
            "0.1",
            "--inner-radius-a",
            "0.08",
            "--inner-radius-b",
            "0.08",
            "--axis",
            "0,0,1",
            "--view",
            "35,-60",
            "--extra-frame",
            "0.5",
        ],
    ],
)
def test_cli_view_body(tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list) -> None:
    out = tmp_path / "body.png"
    assert commands.main(["view", *args, "-o", str(out)]) == 0
    assert "wrote" in capsys.readouterr().out
    picture_checks(out, (1200, 900))


def test_cli_view_model_and_size(tmp_path: Path, model_file: Path) -> None:
    out = tmp_path / "model.png"
    assert commands.main(["view", str(model_file), "-o", str(out), "--size", "800x600"]) == 0
    picture_checks(out, (800, 600))


def test_cli_view_help_shows_both_usages(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        commands.main(["view", "--help"])
    assert info.value.code == 0
    text = capsys.readouterr().out
    assert "rigidparts view box" in text and "MODEL.toml" in text
    with pytest.raises(SystemExit):
        commands.main(["view", "cone", "--help"])
    assert "--inner-radius-a" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["view", "cone", "-o", "x.gif"], "output"),
        (["view", "cone"], "-o/--output"),
        (["view", "sphere", "-o", "x.png"], "TARGET"),
        (["view", "cone", "--size", "10x10", "-o", "x.png"], "--size"),
        (["view", "cone", "--view", "up", "-o", "x.png"], "--view"),
        (["view", "cone", "--radius-a", "-1", "-o", "x.png"], "radius_a"),
        (["view", "box", "--radius-a", "1", "-o", "x.png"], "--radius-a"),
    ],
)
def test_cli_view_errors(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: list,
    words: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    assert commands.main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:") and words in err[0]
    assert list(tmp_path.iterdir()) == []


def test_cli_view_bad_model_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(PENDULUM_TOML.replace("length = 0.8", "length = -0.8"), encoding="utf-8")
    assert commands.main(["view", str(bad), "-o", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and "length" in err
    assert not (tmp_path / "x.png").exists()


# -- animations -----------------------------------------------------------------------------------


def swing_result(model: Model, duration: float, samples: int) -> SimpleNamespace:
    """A made-up trajectory from the model's own kinematics: the hinge swings as a sine."""
    time = np.linspace(0.0, duration, samples)
    poses = [model.body_poses({"hinge": 0.5 * math.sin(2 * math.pi * t)}) for t in time]
    return SimpleNamespace(
        time=time,
        body_rotations={n: np.array([p[n][0] for p in poses]) for n in model.bodies},
        body_positions={n: np.array([p[n][1] for p in poses]) for n in model.bodies},
    )


def test_frame_samples() -> None:
    time = np.linspace(0.0, 1.0, 1001)
    indices, spacing = animation.frame_samples(time, 25.0, 250)
    np.testing.assert_array_equal(indices, np.arange(0, 1001, 40))
    assert spacing == pytest.approx(0.04)
    indices, spacing = animation.frame_samples(time, 25.0, 5)  # capped: spread, still real time
    np.testing.assert_array_equal(indices, [0, 250, 500, 750, 1000])
    assert spacing == pytest.approx(0.25)
    uneven = np.array([0.0, 0.03, 0.05, 0.11, 0.2])
    indices, _ = animation.frame_samples(uneven, 10.0, 100)  # nearest to 0, 0.1, 0.2
    np.testing.assert_array_equal(indices, [0, 3, 4])


def test_animate_gif(tmp_path: Path, model_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = load_model(model_file)
    result = swing_result(model, duration=0.4, samples=41)
    path = animation.animate(model, result, tmp_path / "swing.gif", fps=10, size=(320, 240))
    assert "rendering swing.gif" in capsys.readouterr().err  # the progress bar
    gif = Image.open(path)
    assert gif.size == (320, 240)
    assert gif.n_frames == 5
    assert gif.info["duration"] == 100
    frames = []
    for k in (0, 4):
        gif.seek(k)
        frames.append(np.asarray(gif.convert("RGB"), dtype=np.float64))
    assert frames[0].std() > 20.0
    assert np.abs(frames[0] - frames[1]).mean() > 0.5  # it moves
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pendulum.toml", "swing.gif"]


def test_animate_mp4(tmp_path: Path, model_file: Path) -> None:
    pytest.importorskip("imageio_ffmpeg")
    import imageio.v2 as imageio

    model = load_model(model_file)
    result = swing_result(model, duration=0.2, samples=21)
    path = animation.animate(
        model, result, tmp_path / "swing.mp4", fps=10, size=(320, 240), progress=False
    )
    reader = imageio.get_reader(path)
    assert reader.count_frames() == 3
    assert reader.get_data(0).shape == (240, 320, 3)
    reader.close()


def test_animate_errors(tmp_path: Path, model_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = load_model(model_file)
    result = swing_result(model, duration=0.2, samples=5)
    with pytest.raises(rp.ParameterError, match=r"\.gif or \.mp4"):
        animation.animate(model, result, tmp_path / "x.avi")
    with pytest.raises(rp.ParameterError, match="fps"):
        animation.animate(model, result, tmp_path / "x.gif", fps=0)
    with pytest.raises(rp.ParameterError, match="result"):
        animation.animate(model, SimpleNamespace(time=[0.0]), tmp_path / "x.gif")
    short = SimpleNamespace(time=result.time, body_rotations={}, body_positions={})
    with pytest.raises(rp.ParameterError, match="no poses"):
        animation.animate(model, short, tmp_path / "x.gif")
    monkeypatch.setattr(animation, "_mp4_writer_available", lambda: False)
    with pytest.raises(rp.ParameterError, match=r"imageio-ffmpeg, or write a \.gif"):
        animation.animate(model, result, tmp_path / "x.mp4")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pendulum.toml"]


def test_simulate_animate_end_to_end(tmp_path: Path, model_file: Path) -> None:
    pytest.importorskip("rigidparts.sim")
    pytest.importorskip("mujoco")
    out = tmp_path / "run.gif"
    argv = ["simulate", str(model_file), "--duration", "0.2", "--animate", str(out), "-q"]
    code = commands.main(argv)
    assert code == 0
    gif = Image.open(out)
    assert gif.n_frames == 6  # 0.2 s at 25 frames per second, both ends
    assert gif.size == animation.DEFAULT_ANIMATION_SIZE


# -- labels of frames at nearby points are not drawn over each other (issue 23 item 10) --------


def _label_boxes(ax: Axes3D) -> list:
    """The drawn boxes (pixels) of the frame and joint labels, as the renderer lays them out."""
    figure = ax.figure
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    boxes = []
    for text in ax.texts:
        if text.get_gid() in ("label", "joint_label"):
            boxes.append((text.get_text(), text.get_bbox_patch().get_window_extent(renderer)))
    return boxes


@pytest.mark.parametrize(
    ("example", "view"),
    [
        ("wheel_on_axle.toml", (18.0, 125.0)),  # docs/pictures.md's view
        ("wheel_on_axle.toml", (28.0, -56.0)),  # the default view
        ("wheel_on_axle.toml", (60.0, 45.0)),
        ("wheel_on_axle.toml", (0.0, 90.0)),
        ("double_pendulum.toml", (28.0, -56.0)),
        ("serial_arm.toml", (28.0, -56.0)),
    ],
)
def test_labels_of_nearby_frames_do_not_overlap(example: str, view: tuple) -> None:
    """Every pair of label boxes, measured after drawing, is apart (the wheel on its axle has
    six frames within a few centimetres of each other on the screen)."""
    import itertools

    model = load_model(Path(__file__).resolve().parents[1] / "examples" / example)
    ax = new_axes(pyplot=False)
    plot(model, ax=ax, view=view)
    boxes = _label_boxes(ax)
    assert len(boxes) >= 5
    for (a, box_a), (b, box_b) in itertools.combinations(boxes, 2):
        assert not box_a.overlaps(box_b), (a, b, box_a.bounds, box_b.bounds)


def test_a_title_of_millions_of_characters_is_cut() -> None:
    """The picture's title and a model name of 2 million characters are drawn cut to
    TEXT_WIDTH characters a line (not laid out in full: that took minutes)."""
    from rigidparts.viz.scene import TEXT_WIDTH

    ax = new_axes((400, 300), pyplot=False)
    plot(rp.Box(), ax=ax, title="t" * 2_000_000)
    assert ax.title.get_text() == "t" * (TEXT_WIDTH - 1) + "\u2026"
    model = Model("m" * 2_000_000)
    model.add_body("b" * 500, rp.Box())
    model.add_joint("j", "fixed", "world", "b" * 500 + ".frame_a")
    ax = new_axes((400, 300), pyplot=False)
    plot(model, ax=ax)
    assert all(len(line) < 2 * TEXT_WIDTH for line in ax.title.get_text().split("\n"))
    for _, box in _label_boxes(ax):
        assert box.width < 400  # a cut label, not a 500-character one
