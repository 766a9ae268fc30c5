"""The HTML viewer in a real browser: headless Chromium opens the written file from disk (no
network), at two playback times (``#t=...``), and its screenshots are read pixel by pixel.

- the page ran (``data-rigidparts-ready``), without a JavaScript error, at the asked time;
- the body is drawn: pixels of its colour (an orange no other part of the scene has), where a
  pinhole camera set up by the documented rule (rigidparts.viz.html: the bounding sphere fills
  the narrower field of view) projects the body's centre of mass at that time;
- it moved between the two times, by about as much as the projection says.

- a 5 mm and a 20 m body both open framed: drawn, inside the window, not lost in the distance;
- a title holding ``<!--``, ``</script>``, ``&`` and ``>`` breaks nothing.

Chromium renders WebGL in software (SwiftShader) and is waited for on virtual time
(``--virtual-time-budget``), not on the wall clock. It runs offline: every host name resolves
to nothing and every proxied request goes to a closed local port. Without a Chromium, or with
one that cannot start here (probed once with ``--dump-dom about:blank``), the tests skip and
say why (``.ci/run`` installs Debian's ``chromium``).
"""

from __future__ import annotations

import colorsys
import json
import math
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

import rigidparts as rp
from rigidparts.sim import simulate
from test_html import pendulum_model

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
BROWSER = next((path for path in map(shutil.which, BROWSERS) if path), None)
pytestmark = pytest.mark.skipif(
    BROWSER is None,
    reason="no Chromium on this machine (apt-get install chromium; .ci/run does): the HTML "
    "viewer's browser tests need one",
)

WIDTH, HEIGHT = 800, 600


ORANGE = "#ff8c00"
TIMES = (0.0, 0.55)
TRICKY_TITLE = "<!-- </script> & >"

#: No network: no name resolves, and anything sent through the proxy meets a closed port.
OFFLINE = ("--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:9")


@pytest.fixture(scope="module", autouse=True)
def _browser_starts(tmp_path_factory):
    """Skip (saying why) when the Chromium found cannot run here (no sandbox support, a
    broken install, a missing library): probed once on an empty page."""
    profile = tmp_path_factory.mktemp("probe")
    command = [
        BROWSER,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        *OFFLINE,
        f"--user-data-dir={profile}",
        "--dump-dom",
        "about:blank",
    ]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as exc:
        pytest.skip(f"{BROWSER} cannot start here: {exc}")
    if done.returncode != 0 or "<html" not in done.stdout.lower():
        tail = " ".join((done.stderr or done.stdout).split())[-300:]
        pytest.skip(f"{BROWSER} cannot start here (exit {done.returncode}): {tail}")


def _chromium(tmp_path: Path, url: str, *extra: str) -> subprocess.CompletedProcess:
    command = [
        BROWSER,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        *OFFLINE,
        "--disable-background-networking",
        "--disable-extensions",
        "--no-first-run",
        "--use-angle=swiftshader",
        "--enable-unsafe-swiftshader",
        f"--user-data-dir={tmp_path / 'profile'}",
        f"--window-size={WIDTH},{HEIGHT}",
        "--hide-scrollbars",
        "--virtual-time-budget=5000",
        *extra,
        url,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=180, check=True)


class _Body(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.attributes: dict[str, str | None] = {}

    def handle_starttag(self, tag, attrs):
        if tag == "body":
            self.attributes = dict(attrs)


@pytest.fixture(scope="module")
def swing(tmp_path_factory):
    """A 0.5 m orange bar hinged at 1 m height, let go at 60 degrees, 1 s simulated; the
    viewer with nothing else in orange (no frames, centre of mass, joints or world axes)."""
    model = pendulum_model(ORANGE)  # the very model tests/test_html.py checks without a browser
    result = simulate(model, duration=1.0, timestep=1e-3)
    folder = tmp_path_factory.mktemp("viewer")
    path = folder / "swing.html"
    rp.view(
        model,
        path,
        result=result,
        frames=False,
        com=False,
        joints=False,
        world=False,
        labels=False,
        title=TRICKY_TITLE,  # markup in the title must not break the page
    )
    scene = _scene_of(path)
    assert scene["heading"] == TRICKY_TITLE
    return model, result, path, scene


def _scene_of(path: Path) -> dict:
    text = path.read_text(encoding="utf-8")
    start = text.index('id="rigidparts-scene">') + len('id="rigidparts-scene">')
    return json.loads(text[start : text.index("</script>", start)])


def _projected_com(model, result, scene, t: float) -> np.ndarray:
    """The pixel where the bar's centre of mass is at time ``t`` (the recorded sample at
    ``t``; the keyframes are samples)."""
    k = int(np.argmin(np.abs(result.time - t)))
    body = model.bodies["arm"]
    com = result.body_rotations["arm"][k] @ body.center_of_mass + result.body_positions["arm"][k]
    return _projected(scene, com)


def _projected(scene, point) -> np.ndarray:
    """The pixel of the world ``point``, by a pinhole camera built here from the scene's
    camera (target, direction, radius, vertical field of view) and the window's size."""
    camera = scene["camera"]
    fov = math.radians(camera["fov"])
    aspect = WIDTH / HEIGHT
    half = min(fov / 2, math.atan(math.tan(fov / 2) * aspect))
    target = np.array(camera["target"])
    eye = target + camera["radius"] / math.sin(half) * np.array(camera["direction"])
    forward = (target - eye) / np.linalg.norm(target - eye)
    right = np.cross(forward, [0.0, 0.0, 1.0])
    right /= np.linalg.norm(right)
    up = np.cross(right, forward)
    rel = np.asarray(point, dtype=np.float64) - eye
    f = 1 / math.tan(fov / 2)
    x = (rel @ right) * f / aspect / (rel @ forward)
    y = (rel @ up) * f / (rel @ forward)
    return np.array([(x + 1) / 2 * WIDTH, (1 - y) / 2 * HEIGHT])


def _orange_pixels(path: Path) -> np.ndarray:
    """(N, 2) pixel coordinates (x, y) whose hue is the body's orange (shading changes the
    brightness, not the hue), saturated: nothing else in the scene has that colour."""
    image = np.asarray(Image.open(path).convert("RGB"), dtype=np.float64) / 255.0
    assert image.shape[:2] == (HEIGHT, WIDTH)
    target_hue = colorsys.rgb_to_hsv(1.0, 140 / 255, 0.0)[0]
    r, g, b = image[..., 0], image[..., 1], image[..., 2]
    top, low = image.max(axis=-1), image.min(axis=-1)
    chroma = top - low
    with np.errstate(invalid="ignore", divide="ignore"):
        hue = (
            np.where(
                top == r,
                ((g - b) / chroma) % 6,
                np.where(top == g, (b - r) / chroma + 2, (r - g) / chroma + 4),
            )
            / 6
        )
        saturation = np.where(top > 0, chroma / top, 0)
    mask = (np.abs(hue - target_hue) < 0.04) & (saturation > 0.6) & (top > 0.35)
    ys, xs = np.nonzero(mask)
    return np.column_stack([xs, ys])


def test_page_runs_at_the_asked_time(tmp_path, swing):
    _, _, path, _ = swing
    done = _chromium(tmp_path, f"{path.as_uri()}#t={TIMES[1]}", "--dump-dom")
    body = _Body()
    body.feed(done.stdout)
    assert body.attributes.get("data-rigidparts-ready") == "1", done.stdout[-2000:]
    assert "data-rigidparts-error" not in body.attributes, body.attributes
    assert float(body.attributes["data-rigidparts-time"]) == pytest.approx(TIMES[1], abs=1e-9)


def test_body_drawn_where_it_is_and_moves(tmp_path, swing):
    model, result, path, scene = swing
    centroids = []
    for t in TIMES:
        shot = tmp_path / f"t{t}.png"
        _chromium(tmp_path, f"{path.as_uri()}#t={t}", f"--screenshot={shot}")
        pixels = _orange_pixels(shot)
        # the bar is some 20 x 100 pixels on this screen: clearly drawn, not everywhere
        assert 400 < len(pixels) < 0.2 * WIDTH * HEIGHT, (t, len(pixels))
        centroid = pixels.mean(axis=0)
        expected = _projected_com(model, result, scene, t)
        # the centroid of the visible surface is near the projected centre of mass
        assert np.linalg.norm(centroid - expected) < 0.05 * WIDTH, (t, centroid, expected)
        centroids.append((centroid, expected))
    (first, first_expected), (second, second_expected) = centroids
    moved = np.linalg.norm(second - first)
    assert moved > 60  # pixels
    assert moved == pytest.approx(np.linalg.norm(second_expected - first_expected), rel=0.25)


@pytest.mark.parametrize("scale", [0.005, 20.0])
def test_small_and_large_bodies_open_framed(tmp_path, scale):
    """A 5 mm and a 20 m orange bar (the same shape): drawn, whole, where the camera rule
    puts its centre, and filling a good part of the window."""
    bar = rp.Box(length=scale, width=scale / 8, height=scale / 8)
    path = tmp_path / "bar.html"
    rp.view(bar, path, color=ORANGE, frames=False, com=False, world=False, labels=False)
    scene = _scene_of(path)
    shot = tmp_path / "bar.png"
    _chromium(tmp_path, path.as_uri(), f"--screenshot={shot}")
    pixels = _orange_pixels(shot)
    assert len(pixels) > 2000, len(pixels)
    spread = np.ptp(pixels, axis=0)
    assert spread[0] > 0.3 * WIDTH  # framed, not a speck in the distance
    inside = (pixels.min(axis=0) > 0) & (pixels.max(axis=0) < [WIDTH - 1, HEIGHT - 1])
    assert inside.all()  # and not cut off by the window's edges
    centre = _projected(scene, bar.center_of_mass)
    assert np.linalg.norm(pixels.mean(axis=0) - centre) < 0.05 * WIDTH


def test_rod_drawn_between_its_frames(tmp_path):
    """The spring pendulum's rod (a spring from the world origin to the ball): pixels of the
    rods' teal (nothing else is teal) along the projection of the segment between its two
    frames, covering most of it: the anchor in the world is in view."""
    from rigidparts.viz.html import ROD_COLOR

    model = rp.load_model(Path(__file__).resolve().parents[1] / "examples/spring_pendulum.toml")
    path = tmp_path / "spring.html"
    rp.view(model, path, frames=False, com=False, joints=False, world=False, labels=False)
    scene = _scene_of(path)
    shot = tmp_path / "spring.png"
    _chromium(tmp_path, path.as_uri(), f"--screenshot={shot}")
    image = np.asarray(Image.open(shot).convert("RGB"), dtype=np.float64) / 255.0
    hsv = np.apply_along_axis(lambda p: colorsys.rgb_to_hsv(*p), -1, image)
    rgb = [int(ROD_COLOR[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    hue = colorsys.rgb_to_hsv(*rgb)[0]
    mask = (np.abs(hsv[..., 0] - hue) < 0.04) & (hsv[..., 1] > 0.5) & (hsv[..., 2] > 0.15)
    ys, xs = np.nonzero(mask)
    pixels = np.column_stack([xs, ys]).astype(np.float64)
    assert len(pixels) > 200, len(pixels)
    a = _projected(scene, np.zeros(3))
    b = _projected(scene, model.frame_poses()["bob.frame_a"][1])
    along = b - a
    s = (pixels - a) @ along / (along @ along)  # 0 at the anchor, 1 at the ball's centre
    off = np.abs((pixels - a) @ np.array([-along[1], along[0]])) / np.linalg.norm(along)
    assert np.all(off < 0.02 * WIDTH), off.max()  # on the segment's line
    assert s.min() < 0.05 and s.max() > 0.9, (s.min(), s.max())  # from the anchor to the ball


def test_a_large_model_opens(tmp_path):
    """A chain past LARGE_MODEL bodies (the compact file: shared meshes and poses, folders of
    the control panel made when opened, marks and labels of the pointed body) runs its player
    to the end without a JavaScript error, and draws the links (grey-blue pixels of the
    default palette where the chain hangs, not an empty page)."""
    from rigidparts.viz.html import LARGE_MODEL
    from test_html import chain

    model = chain(LARGE_MODEL + 50)
    path = tmp_path / "chain.html"
    rp.view(model, path, progress=False, world=False, grid=False)
    scene = _scene_of(path)
    assert scene["shared_poses"] is True
    done = _chromium(tmp_path, path.as_uri(), "--dump-dom")
    body = _Body()
    body.feed(done.stdout)
    assert body.attributes.get("data-rigidparts-ready") == "1", done.stdout[-2000:]
    assert "data-rigidparts-error" not in body.attributes, body.attributes
    shot = tmp_path / "chain.png"
    _chromium(tmp_path, path.as_uri(), f"--screenshot={shot}")
    image = np.asarray(Image.open(shot).convert("RGB"), dtype=np.float64)
    spread = image.max(axis=-1) - image.min(axis=-1)
    assert (spread > 60).sum() > 500  # coloured bodies drawn on the grey background


def test_viewer_labels_of_nearby_frames_do_not_overlap(tmp_path):
    """The wheel on its axle (fourteen labels, several frames within centimetres): the boxes
    of the labels the page drew, as it reports them (pixels), are apart, and every label of
    the scene is among them."""
    import itertools
    import json

    model = rp.load_model(Path(__file__).resolve().parents[1] / "examples/wheel_on_axle.toml")
    path = tmp_path / "wheel.html"
    rp.view(model, path, progress=False)
    scene = _scene_of(path)
    done = _chromium(tmp_path, path.as_uri(), "--dump-dom")
    body = _Body()
    body.feed(done.stdout)
    assert body.attributes.get("data-rigidparts-ready") == "1", done.stdout[-2000:]
    boxes = json.loads(body.attributes["data-rigidparts-label-boxes"])
    assert len(boxes) == len(scene["labels"])
    for a, b in itertools.combinations(boxes, 2):
        apart = a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]
        assert apart, (a, b)
