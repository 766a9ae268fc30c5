"""Colours, opacity and visibility per body (rigidparts.appearance, issue 11 item 4).

Colours are checked against values worked out here: ``#rrggbb`` pair ``k`` is ``k / 255``, the
CSS Color Module's published triples for named colours (steelblue = rgb(70, 130, 180)), the
sRGB transfer function's published values (sRGB 128/255 is linear 0.2158605); the exports by
what the engines themselves read back (MuJoCo's ``geom_rgba`` / ``geom_group`` and its own
renderer, Drake's illustration properties, SDFormat's checker, usd-core); the pictures by the
hue of the pixels where the body is (shading and alpha blending over white keep the hue).
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import matplotlib

matplotlib.use("Agg")  # tests run headless

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from mpl_toolkits.mplot3d import proj3d
from PIL import Image

import rigidparts as rp
from rigidparts.appearance import (
    BODY_PALETTE,
    Appearance,
    appearance,
    color_names,
    default_appearance,
    parse_color,
    parse_opacity,
    parse_visible,
)
from rigidparts.commands import main
from rigidparts.model import Model, load_model
from rigidparts.model.toml_format import model_from_dict

#: Published sRGB triples of CSS named colours (CSS Color Module Level 3, section 4.3).
CSS_TRIPLES = {
    "steelblue": (70, 130, 180),
    "goldenrod": (218, 165, 32),
    "darkorange": (255, 140, 0),
    "slategray": (112, 128, 144),
    "crimson": (220, 20, 60),
    "silver": (192, 192, 192),
}


def rgb255(*values: int) -> tuple[float, float, float]:
    return tuple(v / 255 for v in values)  # type: ignore[return-value]


# -- parsing -------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(CSS_TRIPLES))
def test_named_colours_have_their_published_values(name: str) -> None:
    expected = rgb255(*CSS_TRIPLES[name])
    assert parse_color(name) == expected
    assert parse_color(name.upper()) == expected  # case-insensitive
    assert parse_color(f"  {name.title()} ") == expected


def test_every_known_name_parses_and_names_are_css3() -> None:
    names = color_names()
    assert len(names) == 147  # the CSS3 extended colour keywords
    for name in names:
        color = parse_color(name)
        assert all(0.0 <= c <= 1.0 for c in color)


@given(st.tuples(*[st.integers(0, 255)] * 3), st.booleans())
def test_hex_round_trips_exactly(triple: tuple[int, int, int], upper: bool) -> None:
    text = "#" + "".join(f"{k:02x}" for k in triple)
    given_text = text.upper() if upper else text
    color = parse_color(given_text)
    assert color == tuple(k / 255 for k in triple)
    assert Appearance(color=given_text).hex == text
    assert Appearance(color=color).hex == text
    assert Appearance(color=color).to_dict()["color"] == text
    r, g, b = triple
    assert Appearance(color=given_text).rgb_int == (r << 16) | (g << 8) | b  # three.js's number


@given(st.tuples(*[st.integers(0, 15)] * 3))
def test_short_hex_doubles_each_digit(triple: tuple[int, int, int]) -> None:
    short = "#" + "".join(f"{k:x}" for k in triple)
    assert parse_color(short) == tuple(17 * k / 255 for k in triple)
    r, g, b = (17 * k for k in triple)  # '#f80' is '#ff8800', not 0xf80
    assert Appearance(color=short).rgb_int == (r << 16) | (g << 8) | b


@given(st.tuples(*[st.floats(0.0, 1.0)] * 3))
def test_numbers_are_kept_and_hex_rounds_to_the_nearest_level(rgb: tuple) -> None:
    looks = Appearance(color=rgb)
    assert looks.color == rgb
    levels = [int(looks.hex[i : i + 2], 16) for i in (1, 3, 5)]
    for level, c in zip(levels, rgb, strict=True):
        assert abs(level - 255 * c) <= 0.5 + 1e-9
    # a colour the hex code would round is written as numbers, and reads back the same
    written = looks.to_dict()["color"]
    assert parse_color(written) == rgb


def test_sequences_and_arrays_of_numbers() -> None:
    assert parse_color([0, 1, 0.5]) == (0.0, 1.0, 0.5)
    assert parse_color(np.array([0.25, 0.5, 0.75])) == (0.25, 0.5, 0.75)
    assert parse_color((np.float32(0.5), np.int64(1), 0)) == (0.5, 1.0, 0.0)


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("gren", "unknown colour name (did you mean 'green'"),
        ("stealblue", "did you mean 'steelblue'"),
        ("xyzzyq", "unknown colour name; give a CSS colour name, '#rrggbb'"),
        ("", "unknown colour name"),
        ("#12345", "'#' must be followed by 6 or 3 hex digits"),
        ("#ggg", "'#' must be followed by 6 or 3 hex digits"),
        ("#", "'#' must be followed by 6 or 3 hex digits"),
        ((255, 128, 0), "components must be in [0, 1] (for 0..255 values write '#rrggbb')"),
        ((-0.1, 0, 0), "components must be in [0, 1]"),
        ((math.nan, 0, 0), "components must be in [0, 1]"),
        ((math.inf, 0, 0), "components must be in [0, 1]"),
        ((0.1, 0.2), "must be three numbers (r, g, b) in [0, 1]"),
        ((0.1, 0.2, 0.3, 1.0), "give the opacity separately"),
        ((True, 0, 0), "components must be numbers"),
        (("1", 0, 0), "components must be numbers"),
        (5, "is not a colour"),
        (None, "is not a colour"),
        ({"r": 1}, "is not a colour"),
    ],
)
def test_bad_colours_name_the_parameter_and_the_rule(value, words: str) -> None:
    with pytest.raises(rp.ParameterError) as caught:
        parse_color(value, "bodies.arm.color")
    error = caught.value
    assert error.parameter == "bodies.arm.color"
    assert words in str(error)
    assert str(error).startswith("bodies.arm.color=")
    assert "\n" not in str(error)


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (1.5, "must be in [0, 1] (1 is opaque)"),
        (-0.01, "must be in [0, 1]"),
        (math.nan, "must be in [0, 1]"),
        ("0.5", "must be a number in [0, 1]"),
        (True, "must be a number in [0, 1]"),
        (None, "must be a number in [0, 1]"),
    ],
)
def test_bad_opacity(value, words: str) -> None:
    with pytest.raises(rp.ParameterError, match=r"^opacity=") as caught:
        parse_opacity(value)
    assert words in str(caught.value)


@pytest.mark.parametrize("value", [1, 0, "false", "true", None, 1.0])
def test_visible_is_a_boolean(value) -> None:
    with pytest.raises(rp.ParameterError, match="must be true or false"):
        parse_visible(value)
    assert parse_visible(np.bool_(False)) is False


def test_opacity_edges_are_allowed() -> None:
    assert parse_opacity(0) == 0.0 and parse_opacity(1) == 1.0
    assert parse_opacity(np.float32(0.25)) == 0.25


def test_appearance_is_frozen_and_validated_on_construction() -> None:
    looks = Appearance(color="red", opacity=0.5, visible=False)
    assert looks.rgba == (1.0, 0.0, 0.0, 0.5)
    assert looks.hex == "#ff0000"
    with pytest.raises(dataclasses.FrozenInstanceError):
        looks.opacity = 1.0  # type: ignore[misc]
    with pytest.raises(rp.ParameterError, match=r"^opacity=2"):
        Appearance(color="red", opacity=2)
    with pytest.raises(rp.ParameterError, match=r"^color="):
        Appearance(color="nocolour")
    assert looks == Appearance(color=(1, 0, 0), opacity=0.5, visible=False)


def test_linear_colour_follows_the_srgb_transfer_function() -> None:
    # Published: sRGB 128/255 -> linear 0.2158605; the two branches meet at 0.04045 (linear
    # 0.0031308); 0 and 1 are fixed points.
    looks = Appearance(color=(128 / 255, 0.04045, 1.0))
    low = Appearance(color=(0.0, 0.04045 + 1e-9, 0.0)).linear_color[1]
    r, g, b = looks.linear_color
    assert r == pytest.approx(0.2158605, abs=1e-7)
    assert g == pytest.approx(0.0031308, abs=1e-7) and low == pytest.approx(g, abs=1e-8)
    assert b == 1.0 and Appearance(color="black").linear_color == (0.0, 0.0, 0.0)


def test_defaults_cycle_through_the_palette_the_pictures_use() -> None:
    n = len(BODY_PALETTE)
    hexes = [default_appearance(i).hex for i in range(n)]
    assert hexes == list(BODY_PALETTE) and len(set(hexes)) == n
    assert default_appearance(n) == default_appearance(0)
    assert default_appearance(3).opacity == 1.0 and default_appearance(3).visible is True
    assert appearance(default_index=2) == default_appearance(2)
    partial = appearance(opacity=0.3, default_index=1)
    assert partial.color == default_appearance(1).color and partial.opacity == 0.3
    for bad in (-1, 1.5, True, "0"):
        with pytest.raises(rp.ParameterError, match="default_index"):
            default_appearance(bad)  # type: ignore[arg-type]


# -- the model and its file ----------------------------------------------------------------------

MODEL_TOML = """\
name = "colours"

[bodies.arm]
shape = "box"
length = 0.6
width = 0.1
height = 0.1
axis = [0, 0, -1]
color = "#ff8000"
opacity = 0.5

[bodies.bob]
shape = "cone"
length = 0.2
radius_a = 0.08
radius_b = 0.02
axis = [0, 0, -1]
color = "SteelBlue"

[bodies.ghost]
shape = "ball"
radius = 0.05
color = [0.1, 0.9, 0.2]
visible = false

[[joints]]
name = "hinge"
type = "revolute"
parent = "world"
child = "arm.frame_a"
axis = [0, 1, 0]
position = [0, 0, 1]

[[joints]]
name = "weld"
type = "fixed"
parent = "arm.frame_b"
child = "bob.frame_a"

[[joints]]
name = "weld2"
type = "fixed"
parent = "arm.frame_a"
child = "ghost.frame_a"
position = [0.4, 0, 0]
"""

#: What MODEL_TOML asks for: (r, g, b, opacity, visible), worked out by hand.
EXPECTED = {
    "arm": (1.0, 128 / 255, 0.0, 0.5, True),
    "bob": (70 / 255, 130 / 255, 180 / 255, 1.0, True),
    "ghost": (0.1, 0.9, 0.2, 1.0, False),
}


@pytest.fixture
def model_file(tmp_path: Path) -> Path:
    path = tmp_path / "model.toml"
    path.write_text(MODEL_TOML, encoding="utf-8")
    return path


def test_model_file_keys_reach_the_model(model_file: Path) -> None:
    model = load_model(model_file)
    for name, (r, g, b, opacity, visible) in EXPECTED.items():
        looks = model.appearance(name)
        assert looks.color == pytest.approx((r, g, b), abs=0) and looks.opacity == opacity
        assert looks.visible is visible


def test_model_defaults_and_python_keywords() -> None:
    model = Model("m")
    model.add_body("a", rp.Box())
    model.add_body("b", rp.Box(), color="navy")
    model.add_body("c", rp.Box(), opacity=0.25)
    assert model.appearance("a") == default_appearance(0)
    assert model.appearance("b").hex == "#000080"
    assert model.appearance("c").color == default_appearance(2).color  # by index
    changed = model.set_appearance("b", visible=False)
    assert changed.hex == "#000080" and changed.visible is False  # the colour is kept
    assert model.appearance("b") is changed
    with pytest.raises(rp.ModelError, match=r"^bodies\.d\.color='grean': unknown colour"):
        model.add_body("d", rp.Box(), color="grean")
    assert "d" not in model.bodies  # nothing half-added
    with pytest.raises(rp.ModelError, match=r"^bodies\.a\.opacity=-1: must be in \[0, 1\]"):
        model.set_appearance("a", opacity=-1)
    assert model.appearance("a") == default_appearance(0)  # unchanged
    with pytest.raises(rp.ModelError, match="names no body"):
        model.appearance("zz")


def test_to_dict_lists_the_given_keys_and_builds_back(model_file: Path) -> None:
    model = load_model(model_file)
    data = model.to_dict()
    assert data["bodies"]["arm"]["color"] == "#ff8000" and data["bodies"]["arm"]["opacity"] == 0.5
    assert data["bodies"]["ghost"]["color"] == [0.1, 0.9, 0.2]
    assert "opacity" not in data["bodies"]["bob"]  # not given: the default stays a default
    again = model_from_dict(json.loads(json.dumps(data)))
    for name in EXPECTED:
        assert again.appearance(name) == model.appearance(name)
    plain = Model("p")
    plain.add_body("x", rp.Box())
    assert set(plain.to_dict()["bodies"]["x"]).isdisjoint({"color", "opacity", "visible"})


@pytest.mark.parametrize(
    ("old", "new", "parameter", "words"),
    [
        ('color = "SteelBlue"', 'color = "gren"', "bodies.bob.color", "did you mean 'green'"),
        ('color = "SteelBlue"', 'color = "#12"', "bodies.bob.color", "6 or 3 hex digits"),
        ('color = "SteelBlue"', "color = [300, 0, 0]", "bodies.bob.color", "in [0, 1]"),
        ("opacity = 0.5", "opacity = 1.5", "bodies.arm.opacity", "must be in [0, 1]"),
        ("opacity = 0.5", 'opacity = "half"', "bodies.arm.opacity", "must be a number"),
        ("visible = false", 'visible = "no"', "bodies.ghost.visible", "must be true or false"),
        ("visible = false", "colour = 1", "bodies.ghost.colour", "unknown key"),
    ],
)
def test_model_file_errors_name_the_file_the_line_and_the_key(
    tmp_path: Path, old: str, new: str, parameter: str, words: str
) -> None:
    assert old in MODEL_TOML
    text = MODEL_TOML.replace(old, new)
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    line = text.splitlines().index(new) + 1
    with pytest.raises(rp.ModelError) as caught:
        load_model(path)
    error = caught.value
    assert (error.parameter, error.line, error.source) == (parameter, line, str(path))
    assert str(error).startswith(f"{path}:{line}: {parameter}=")
    assert words in str(error)


def test_command_line_bad_colour_is_one_line_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(MODEL_TOML.replace('"SteelBlue"', '"gren"'), encoding="utf-8")
    out = tmp_path / "out.xml"
    assert main(["export", str(path), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1
    assert "bodies.bob.color='gren': unknown colour name (did you mean 'green'" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.toml"]


# -- exports and the engines that read them ------------------------------------------------------


@pytest.fixture
def exported(model_file: Path, tmp_path: Path):
    model = load_model(model_file)

    def write(suffix: str) -> Path:
        path = tmp_path / f"colours{suffix}"
        rp.export_model(model, path)
        return path

    return write


def test_mjcf_geoms_carry_the_colours_and_hide_invisible_bodies(exported) -> None:
    mujoco = pytest.importorskip("mujoco")
    model = mujoco.MjModel.from_xml_path(str(exported(".xml")))
    hidden = np.flatnonzero(~np.asarray(mujoco.MjvOption().geomgroup, dtype=bool))
    for name, (r, g, b, opacity, visible) in EXPECTED.items():
        geom = model.geom(name)
        np.testing.assert_allclose(geom.rgba, [r, g, b, opacity], atol=1e-7)  # float32
        assert (int(geom.group[0]) in hidden) is (not visible), name


def test_urdf_materials_reach_mujoco_and_drake(exported) -> None:
    mujoco = pytest.importorskip("mujoco")
    path = exported(".urdf")
    model = mujoco.MjModel.from_xml_path(str(path))
    for name, (r, g, b, opacity, visible) in EXPECTED.items():
        alpha = opacity if visible else 0.0  # URDF has no visibility: alpha 0
        for part in ("visual", "collision"):
            rgba = model.geom(f"{name}_{part}").rgba
            np.testing.assert_allclose(rgba, [r, g, b, alpha], atol=1e-7)
    colours = drake_diffuse(path)
    for name, (r, g, b, opacity, visible) in EXPECTED.items():
        np.testing.assert_allclose(colours[name], [r, g, b, opacity if visible else 0.0])


def test_sdf_materials_pass_the_checker_and_reach_drake(exported) -> None:
    path = exported(".sdf")
    checker = next((t for t in ("gz", "ign") if shutil.which(t)), None)
    if checker is not None:
        result = subprocess.run([checker, "sdf", "-k", str(path)], capture_output=True, text=True)
        assert result.returncode == 0 and "Valid" in result.stdout, result.stdout + result.stderr
    # the text first: checked even where Drake (drake_diffuse skips without it) is missing
    text = path.read_text()
    assert text.count("<visibility_flags>0</visibility_flags>") == 1  # the ghost
    assert text.count("<transparency>") == 2  # the arm (0.5) and the ghost (1.0)
    colours = drake_diffuse(path)
    for name, (r, g, b, opacity, visible) in EXPECTED.items():
        np.testing.assert_allclose(colours[name], [r, g, b, opacity if visible else 0.0], atol=1e-7)
    if checker is None:
        pytest.skip("SDFormat's checker (gz sdf / ign sdf) is not installed; Drake checked")


def drake_diffuse(path: Path) -> dict[str, np.ndarray]:
    """Body name -> the ``("phong", "diffuse")`` RGBA of its illustration geometry, as Drake's
    parser reads the file."""
    pytest.importorskip("pydrake")
    from pydrake.geometry import Role
    from pydrake.multibody.parsing import Parser
    from pydrake.multibody.plant import AddMultibodyPlantSceneGraph
    from pydrake.systems.framework import DiagramBuilder

    builder = DiagramBuilder()
    plant, scene_graph = AddMultibodyPlantSceneGraph(builder, 0.0)
    Parser(plant).AddModels(str(path))
    plant.Finalize()
    inspector = scene_graph.model_inspector()
    out = {}
    for geometry in inspector.GetAllGeometryIds(Role.kIllustration):
        body = plant.GetBodyFromFrameId(inspector.GetFrameId(geometry)).name()
        rgba = inspector.GetIllustrationProperties(geometry).GetProperty("phong", "diffuse")
        out[body] = np.array([rgba.r(), rgba.g(), rgba.b(), rgba.a()])
    return out


def test_usd_display_colour_is_linear_and_invisible_is_invisible(exported) -> None:
    pytest.importorskip("pxr", reason="usd-core is not installed: pip install 'rigidparts[usd]'")
    from pxr import Usd, UsdGeom

    stage = Usd.Stage.Open(str(exported(".usda")))
    for name, (r, g, b, opacity, visible) in EXPECTED.items():
        gprim = UsdGeom.Gprim(stage.GetPrimAtPath(f"/colours/{name}/geometry"))
        (colour,) = gprim.GetDisplayColorAttr().Get()
        srgb = [((c + 0.055) / 1.055) ** 2.4 if c > 0.04045 else c / 12.92 for c in (r, g, b)]
        np.testing.assert_allclose(list(colour), srgb, rtol=1e-6)  # float32
        assert list(gprim.GetDisplayOpacityAttr().Get()) == [pytest.approx(opacity)]
        expected = UsdGeom.Tokens.inherited if visible else UsdGeom.Tokens.invisible
        assert gprim.ComputeVisibility() == expected


RENDER_SCRIPT = """
import sys, numpy as np, mujoco
files = sys.argv[1:]
counts = []
for path in files:
    model = mujoco.MjModel.from_xml_path(path)
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    with mujoco.Renderer(model, 240, 240) as renderer:
        renderer.update_scene(data)
        image = renderer.render().astype(int)
    r, g, b = image[..., 0], image[..., 1], image[..., 2]
    red = int(np.sum((r > g + 60) & (r > b + 60)))
    green = int(np.sum((g > r + 60) & (g > b + 60)))
    counts.append([red, green])
print(counts)
"""


def test_mujoco_draws_the_colours_and_not_the_invisible_body(tmp_path: Path) -> None:
    """MuJoCo's own renderer (offscreen, EGL) with its default options: a red body and a green
    one side by side; hidden, the green one leaves no green pixel, in MJCF (geom group 3) and in
    URDF (alpha 0); shown, it does (so the count can fail)."""
    pytest.importorskip("mujoco")
    text = textwrap.dedent(
        """\
        [bodies.red]
        shape = "box"
        length = 0.4
        color = "#e00000"
        [bodies.green]
        shape = "box"
        length = 0.4
        color = "#00d000"
        visible = VISIBLE
        [[joints]]
        name = "a"
        type = "fixed"
        parent = "world"
        child = "red"
        position = [-0.3, 0, 0]
        [[joints]]
        name = "b"
        type = "fixed"
        parent = "red"
        child = "green"
        position = [0.6, 0, 0]
        """
    )
    files = []
    for visible in ("true", "false"):
        model = model_from_dict(__import__("tomllib").loads(text.replace("VISIBLE", visible)))
        for suffix in (".xml", ".urdf"):
            path = tmp_path / f"{visible}{suffix}"
            rp.export_model(model, path)
            files.append(str(path))
    env = {**os.environ, "MUJOCO_GL": "egl"}
    run = subprocess.run(
        [sys.executable, "-c", RENDER_SCRIPT, *files], capture_output=True, text=True, env=env
    )
    if run.returncode != 0:
        pytest.skip(f"MuJoCo cannot render offscreen here (EGL): {run.stderr.strip()[-200:]}")
    counts = json.loads(run.stdout)
    (shown_mjcf, shown_urdf, hidden_mjcf, hidden_urdf) = counts
    for red, green in (shown_mjcf, shown_urdf):
        assert red > 300 and green > 300
    for red, green in (hidden_mjcf, hidden_urdf):
        assert red > 300 and green == 0


# -- pictures ------------------------------------------------------------------------------------


def hue(rgb) -> np.ndarray:
    """Hue in degrees of RGB triples (..., 3), 0..1 or 0..255 (matplotlib's HSV)."""
    from matplotlib.colors import rgb_to_hsv

    values = np.asarray(rgb, dtype=float)
    values = values / 255 if values.max() > 1 else values
    return 360.0 * rgb_to_hsv(values)[..., 0]


def hue_distance(a: float, b: float) -> float:
    return abs((a - b + 180.0) % 360.0 - 180.0)


def pixel_of(ax, point, height: int) -> tuple[int, int]:
    """(row, column) in the saved picture of the world point ``point``."""
    x, y, _ = proj3d.proj_transform(*point, ax.get_proj())
    column, up = ax.transData.transform((x, y))
    return round(float(height - up)), round(float(column))


def saved(ax, path: Path) -> np.ndarray:
    ax.figure.canvas.draw()
    ax.figure.savefig(path, dpi="figure")
    return np.asarray(Image.open(path).convert("RGB"), dtype=float)


def centre_patch(image: np.ndarray, row: int, column: int) -> np.ndarray:
    return image[row - 2 : row + 3, column - 2 : column + 3].reshape(-1, 3).mean(axis=0)


QUIET = {"frames": False, "com": False, "labels": False, "title": False, "size": (320, 320)}


@pytest.mark.parametrize("color", ["#2060c0", "seagreen", "#c03020"])
def test_plot_body_draws_it_in_its_colour(tmp_path: Path, color: str) -> None:
    body = rp.Box(length=0.5, width=0.3, height=0.3)
    ax = rp.plot(body, color=color, **QUIET)
    image = saved(ax, tmp_path / "body.png")
    row, column = pixel_of(ax, body.center_of_mass, image.shape[0])
    pixel = centre_patch(image, row, column)
    assert hue_distance(hue(pixel), hue(parse_color(color))) < 4.0
    assert np.ptp(pixel) > 40  # coloured, not grey or white
    ax.figure.clf()


def test_opacity_lightens_and_invisible_leaves_the_background(tmp_path: Path) -> None:
    body = rp.Box(length=0.5, width=0.3, height=0.3)
    whiteness = []
    for opacity in (1.0, 0.3):
        ax = rp.plot(body, color="#2060c0", opacity=opacity, **QUIET)
        image = saved(ax, tmp_path / "o.png")
        row, column = pixel_of(ax, body.center_of_mass, image.shape[0])
        whiteness.append(centre_patch(image, row, column).min())
        ax.figure.clf()
    assert whiteness[1] > whiteness[0] + 40  # more of the white background shows through
    ax = rp.plot(body, color="#2060c0", visible=False, **QUIET)
    image = saved(ax, tmp_path / "hidden.png")
    row, column = pixel_of(ax, body.center_of_mass, image.shape[0])
    assert np.ptp(centre_patch(image, row, column)) < 8  # nothing coloured: background, grid
    ax.figure.clf()
    # its frames still are: the triads' x axis colour appears, the body's colour does not
    ax = rp.plot(body, color="#2060c0", visible=False, **{**QUIET, "frames": True})
    image = saved(ax, tmp_path / "frames.png")
    red = (image[..., 0] > 180) & (image[..., 1] < 90) & (image[..., 2] < 90)
    assert red.sum() > 20
    assert np.sum(np.all(np.abs(image - [0x20, 0x60, 0xC0]) < 30, axis=-1)) == 0
    ax.figure.clf()


def test_model_picture_uses_each_body_s_appearance(tmp_path: Path, model_file: Path) -> None:
    model = load_model(model_file)
    model.set_appearance("arm", opacity=1.0)
    ax = rp.plot(model, **QUIET)
    image = saved(ax, tmp_path / "model.png")
    poses = model.body_poses()
    for name in ("arm", "bob", "ghost"):
        rotation, position = poses[name]
        point = rotation @ model.bodies[name].center_of_mass + position
        row, column = pixel_of(ax, point, image.shape[0])
        pixel = centre_patch(image, row, column)
        if model.appearance(name).visible:
            assert hue_distance(hue(pixel), hue(model.appearance(name).color)) < 4.0, name
        else:
            assert np.ptp(pixel) < 8, name  # the ghost is not drawn: background, grid
    ax.figure.clf()


def test_picture_options_for_colours(model_file: Path) -> None:
    model = load_model(model_file)
    with pytest.raises(rp.ParameterError, match=r"^color='red': is set per body of a model"):
        rp.plot(model, color="red")
    with pytest.raises(rp.ParameterError, match=r"^colors\[1\]='nope': unknown colour"):
        rp.plot(model, colors=["red", "nope"])
    with pytest.raises(rp.ParameterError, match=r"^opacity=3"):
        rp.plot(rp.Box(), opacity=3)


def test_animation_frames_show_the_colours_and_hide_the_invisible(
    tmp_path: Path, model_file: Path
) -> None:
    from rigidparts.viz.animate import animate

    model = load_model(model_file)
    model.set_appearance("arm", color="#c040c0", opacity=1.0)
    model.set_appearance("bob", color="#c040c0")
    poses = model.body_poses()
    steps = 3
    result = SimpleNamespace(
        time=np.linspace(0.0, 0.2, steps),
        body_rotations={n: np.repeat(r[None], steps, axis=0) for n, (r, _) in poses.items()},
        body_positions={n: np.repeat(p[None], steps, axis=0) for n, (_, p) in poses.items()},
    )
    counts = []
    for visible in (True, False):
        model.set_appearance("ghost", color="#30c0c0", visible=visible)
        path = animate(
            model,
            result,
            tmp_path / f"{visible}.gif",
            fps=10,
            size=(240, 240),
            progress=False,
            frames=False,
            labels=False,
        )
        pixels = np.asarray(Image.open(path).convert("RGB"), dtype=float).reshape(-1, 3)
        coloured = np.ptp(pixels, axis=1) > 60
        hues = hue(pixels)
        counts.append(
            [
                int(np.sum(coloured & (hue_distance(hues, hue((0xC0, 0x40, 0xC0))) < 6))),
                int(np.sum(coloured & (hue_distance(hues, hue((0x30, 0xC0, 0xC0))) < 6))),
            ]
        )
    (magenta, cyan), (magenta_hidden, cyan_hidden) = counts
    assert magenta > 100 and cyan > 100  # both drawn, in their colours
    assert magenta_hidden > 100 and cyan_hidden == 0  # the invisible one is not
