"""The page around a viewer scene: meshcat's bundled viewer inlined, its licence notices, and
the small script that plays the scene into it (:func:`page`).

The viewer is ``meshcat/viewer/dist/main.min.js`` of the ``meshcat`` package (three.js r132,
dat.gui, msgpack-lite, bundled by webpack; MIT, Apache-2.0 and BSD licences). It is read as a
file from the installed package, found with :func:`importlib.util.find_spec` without
importing meshcat (whose ``__init__`` pulls in its zmq/tornado server). Two edits make the
file self-contained and free of network addresses:

- the XHTML namespace name three.js passes to ``document.createElementNS`` is written as the
  concatenation ``"http:" + "//www.w3.org/1999/xhtml"`` (the same string at run time; a
  namespace name is an identifier, never fetched), so that the file holds no ``http://``
  text at all;
- the default address of meshcat's ``connect()`` (a WebSocket to the server that serves
  meshcat's own page; the file never calls it), ``ws://${location.host}``, is written
  ``"ws:"+`//${location.host}```, the same string at run time, so that no ``ws://`` appears
  either;
- the licence notices (``main.min.js.LICENSE.txt``, meshcat's own ``LICENSE`` and the licence
  texts of ``main.min.js.THIRD_PARTY_LICENSES.json``) are kept in a comment with the scheme of
  their web addresses left out (``github.com/...`` for ``https://github.com/...``).

No ``</script`` may appear inside an inline script: the bundle has none (checked), and the scene
JSON writes every ``<``, ``>`` and ``&`` as ``\\u003c``, ``\\u003e`` and ``\\u0026`` (the same
strings to a JSON reader), so no text of the scene (a title, a body's name) can close the
element or open a comment.
"""

from __future__ import annotations

import functools
import json
import re
from importlib.util import find_spec
from pathlib import Path
from typing import Any

__all__ = ["MESHCAT_EXTRA", "meshcat_bundle", "page"]

MESHCAT_EXTRA = "the HTML viewer needs meshcat's bundled viewer: pip install 'rigidparts[viz]'"

_XHTML = '"http://www.w3.org/1999/xhtml"'
_XHTML_SPLIT = '"http:"+"//www.w3.org/1999/xhtml"'
_SOCKET = "`ws://${location.host}`"
_SOCKET_SPLIT = '"ws:"+`//${location.host}`'
_SCHEME = re.compile(r"\b(?:https?|ftp)://", re.IGNORECASE)


def _dist() -> Path:
    """The folder of meshcat's built viewer; ImportError naming the extra when missing."""
    try:
        spec = find_spec("meshcat")
    except (ImportError, ValueError):
        spec = None
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    for location in locations:
        dist = Path(location) / "viewer" / "dist"
        if (dist / "main.min.js").is_file():
            return dist
    raise ImportError(MESHCAT_EXTRA)


def _without_schemes(text: str) -> str:
    return _SCHEME.sub("", text)


@functools.cache
def meshcat_bundle() -> tuple[str, str]:
    """``(javascript, licence comment)``: the viewer's code (edited as the module docstring
    says) and its licence notices as the text of a ``/* ... */`` comment."""
    dist = _dist()
    code = (dist / "main.min.js").read_text(encoding="utf-8")
    code = code.replace(_XHTML, _XHTML_SPLIT).replace(_SOCKET, _SOCKET_SPLIT)
    if "</script" in code.lower() or "<!--" in code:
        raise ImportError(f"{dist / 'main.min.js'}: cannot be inlined in an HTML page")
    notices = ["meshcat viewer (meshcat-dev/meshcat), bundled with three.js and others.", ""]
    licence = dist.parent / "LICENSE"
    if licence.is_file():
        notices += ["== meshcat: LICENSE ==", licence.read_text(encoding="utf-8").strip(), ""]
    bundled = dist / "main.min.js.LICENSE.txt"
    if bundled.is_file():
        notices += ["== main.min.js.LICENSE.txt ==", bundled.read_text(encoding="utf-8").strip()]
        notices.append("")
    third = dist / "main.min.js.THIRD_PARTY_LICENSES.json"
    if third.is_file():
        for item in json.loads(third.read_text(encoding="utf-8")):
            head = f"== {item.get('name')} {item.get('version', '')} ({item.get('license')}) =="
            notices += [head, str(item.get("author") or ""), str(item.get("licenseText") or "")]
            notices.append("")
    text = _without_schemes("\n".join(notices))
    # Nothing in the comment may close it or the script around it.
    text = text.replace("*/", "* /").replace("</", "< /")
    return code, text


_STYLE = """
html, body { margin: 0; height: 100%; overflow: hidden; font-family: sans-serif; }
#rigidparts-viewer { position: absolute; inset: 0; width: 100vw; height: 100vh; }
#rigidparts-title { position: absolute; left: 12px; top: 10px; color: #1d2430;
  font: 14px/1.35 sans-serif; white-space: pre; pointer-events: none;
  text-shadow: 0 0 3px #fff, 0 0 3px #fff; }
#rigidparts-time { position: absolute; left: 12px; bottom: 12px; color: #1d2430;
  font: bold 18px/1 monospace; background: rgba(255, 255, 255, 0.75); padding: 6px 9px;
  border-radius: 4px; pointer-events: none; }
#rigidparts-help { position: absolute; right: 12px; bottom: 10px; color: #39414f;
  font: 12px/1.3 sans-serif; text-align: right; pointer-events: none;
  text-shadow: 0 0 3px #fff, 0 0 3px #fff; }
"""

# The player: runs the scene's meshcat commands, adds the labels, frames the camera, opens
# the control panel, and honours #t=SECONDS (open paused at that simulated time).
_SCRIPT = r"""
(function () {
  "use strict";
  var body = document.body;
  window.addEventListener("error", function (event) {
    body.setAttribute("data-rigidparts-error", String(event.message));
    var title = document.getElementById("rigidparts-title");
    title.textContent += "\n\nThe viewer could not start (" + event.message + ").\n" +
      "It needs a browser with WebGL (any current Chrome, Firefox, Safari or Edge).";
  });
  var scene = JSON.parse(document.getElementById("rigidparts-scene").textContent);
  var THREE = MeshCat.THREE;
  var viewer = new MeshCat.Viewer(document.getElementById("rigidparts-viewer"));
  window.rigidpartsViewer = viewer;

  // A set_animation command drives its own paths; "followers" move with a body (its frames,
  // centre of mass, ellipsoid, the joints it carries): they get the same clip.
  scene.commands.forEach(function (command) {
    if (command.type === "set_animation") {
      var extra = [];
      command.animations.forEach(function (animation) {
        (scene.followers[animation.path] || []).forEach(function (path) {
          extra.push({path: path, clip: animation.clip});
        });
      });
      command.animations = command.animations.concat(extra);
      if (command.options && command.options.loop) {
        command.options.repetitions = Infinity;
      }
    }
    viewer.handle_command(command);
  });

  // Labels: text sprites of a constant size on the screen, drawn over everything.
  var tanHalf = Math.tan(scene.camera.fov * Math.PI / 360);
  scene.labels.forEach(function (label) {
    var pixels = 2 * label.size;
    var lines = label.text.split("\n");
    var canvas = document.createElement("canvas");
    var context = canvas.getContext("2d");
    var font = "600 " + pixels + "px sans-serif";
    context.font = font;
    var widest = Math.max.apply(null, lines.map(function (line) {
      return context.measureText(line).width;
    }));
    canvas.width = Math.ceil(widest + pixels);
    canvas.height = Math.ceil((0.4 + 1.2 * lines.length) * pixels);
    context.font = font;
    context.textBaseline = "middle";
    context.lineJoin = "round";
    context.lineWidth = pixels / 4;
    context.strokeStyle = "rgba(255, 255, 255, 0.9)";
    context.fillStyle = label.color;
    lines.forEach(function (line, i) {
      var y = (0.8 + 1.2 * i) * pixels;
      context.strokeText(line, pixels / 2, y);
      context.fillText(line, pixels / 2, y);
    });
    var texture = new THREE.CanvasTexture(canvas);
    var material = new THREE.SpriteMaterial({map: texture, depthTest: false,
                                             transparent: true, sizeAttenuation: false});
    var sprite = new THREE.Sprite(material);
    // A sprite without size attenuation covers scale / (2 tan(fov/2)) of the view's height;
    // the canvas is drawn at twice the size for sharpness: canvas.height / 2 pixels of a
    // nominal 900-pixel-high view.
    var height = 2 * tanHalf * (canvas.height / 2) / 900;
    sprite.scale.set(height * canvas.width / canvas.height, height, 1);
    sprite.center.set(-0.08, -0.1);
    sprite.renderOrder = 10;
    viewer.set_object(label.path.split("/").filter(Boolean), sprite);
    var node = viewer.scene_tree.find(label.path.split("/").filter(Boolean));
    node.object.visible = label.visible;
    node.vis_controller.updateDisplay();
    var parent = node.object.parent;
    if (label.unscale && parent) {
      parent.updateMatrixWorld(true);
      var s = new THREE.Vector3();
      parent.getWorldScale(s);
      sprite.scale.divideScalar(s.x);
    }
  });

  // The camera: the sphere of scene.camera (everything drawn, with a margin) fills the
  // narrower field of view.
  function frameCamera() {
    var c = scene.camera, camera = viewer.camera;
    camera.fov = c.fov;
    var aspect = camera.aspect || 1;
    var vertical = c.fov * Math.PI / 360;  // half the field of view, radians
    var half = Math.min(vertical, Math.atan(Math.tan(vertical) * aspect));
    var distance = c.radius / Math.sin(half);
    var e = c.direction, t = c.target;
    // meshcat's scene turns z up: a world point (x, y, z) is (x, z, -y) for the camera.
    camera.position.set(t[0] + distance * e[0], t[2] + distance * e[2], -(t[1] + distance * e[1]));
    camera.near = distance / 1000;
    camera.far = distance * 100;
    camera.updateProjectionMatrix();
    viewer.controls.target.set(t[0], t[2], -t[1]);
    viewer.controls.update();
    viewer.set_dirty();
  }
  viewer.set_3d_pane_size();
  frameCamera();
  viewer.gui.open();

  var animator = viewer.animator;
  var readout = document.getElementById("rigidparts-time");
  var start = scene.animation ? scene.animation.start : 0;
  function clipTime() {
    return animator.actions.reduce(function (t, action) { return Math.max(t, action.time); }, 0);
  }
  function seekFromHash() {
    if (!scene.animation) { return; }
    var match = /(?:^|[#&])t=([^&]*)/.exec(window.location.hash);
    if (!match) { return; }
    var t = parseFloat(decodeURIComponent(match[1]));
    if (!isFinite(t)) { return; }
    var local = Math.max(0, Math.min(scene.animation.duration, t - start));
    animator.pause();
    animator.actions.forEach(function (action) { action.paused = false; action.enabled = true; });
    animator.seek(local);
    animator.display_progress(local);
  }
  seekFromHash();
  window.addEventListener("hashchange", seekFromHash);
  function tick() {
    if (scene.animation) {
      var t = start + clipTime();
      var end = start + scene.animation.duration;
      readout.textContent = "t = " + t.toFixed(3) + " s / " + end.toFixed(3) + " s" +
        (animator.playing ? "" : "  (paused)");
      body.setAttribute("data-rigidparts-time", t.toFixed(6));
    }
    requestAnimationFrame(tick);
  }
  if (!scene.animation) { readout.style.display = "none"; }
  tick();
  body.setAttribute("data-rigidparts-ready", "1");
})();
"""


def _escape_json(data: Any) -> str:
    # Compact JSON; "</" could close the script element, "<!--" open a comment: JSON's
    # \uXXXX escapes of <, > and & are the same characters to JSON.parse, and no markup.
    text = json.dumps(data, separators=(",", ":"), allow_nan=False, ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _escape_html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def page(scene: dict[str, Any], title: str, heading: str) -> str:
    """The whole HTML document: ``scene`` (the JSON of :mod:`.html`) in
    ``<script type="application/json" id="rigidparts-scene">``, the viewer, the player."""
    code, notices = meshcat_bundle()
    help_text = (
        "drag: turn &middot; right-drag: pan &middot; wheel: zoom<br>"
        "Controls (top right): show or hide bodies, frames, centres of mass, joints;"
        "<br>Animations: play, pause, reset, time, timeScale (speed)"
    )
    return "".join(
        [
            '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n',
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n',
            f"<title>{_escape_html(title)}</title>\n",
            '<meta name="generator" content="rigidparts">\n',
            f"<style>{_STYLE}</style>\n</head>\n<body>\n",
            '<div id="rigidparts-viewer"></div>\n',
            f'<div id="rigidparts-title">{_escape_html(heading)}</div>\n',
            '<div id="rigidparts-time"></div>\n',
            f'<div id="rigidparts-help">{help_text}</div>\n',
            '<script type="application/json" id="rigidparts-scene">',
            _escape_json(scene),
            "</script>\n<script>\n/*\n",
            notices,
            "\n*/\n",
            code,
            "\n</script>\n<script>",
            _SCRIPT,
            "</script>\n</body>\n</html>\n",
        ]
    )
