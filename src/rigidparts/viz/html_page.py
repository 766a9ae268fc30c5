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
  // A large model lists only the followers that are not implied: add the implied ones
  // (FOLDER/<body> of each folder of implied_followers follows /Bodies/<body>).
  (scene.implied_followers || []).forEach(function (folder) {
    scene.bodies.forEach(function (meta) {
      var key = "/Bodies/" + meta.name;
      (scene.followers[key] = scene.followers[key] || []).push(folder + "/" + meta.name);
    });
  });
  var THREE = MeshCat.THREE;
  var viewer = new MeshCat.Viewer(document.getElementById("rigidparts-viewer"));
  window.rigidpartsViewer = viewer;

  // A large model (shared_poses): the control panel's folders below each part (Bodies,
  // Frames, ...) are made when their folder is first opened, not thousands at load. Until
  // then a folder is a stand-in that records what meshcat puts in it (its checkbox).
  function lazyFolders(folder) {
    var pending = [];
    var make = Object.getPrototypeOf(folder).addFolder;
    function standIn(name) {
      var stub = {name: name, real: null, pending: [], __folders: {},
                  div: document.createElement("div")};
      Object.defineProperty(stub, "domElement", {get: function () {
        return stub.real ? stub.real.domElement : stub.div;
      }});
      stub.addFolder = function (child) {
        if (stub.real) { return stub.real.addFolder(child); }
        var inner = standIn(child);
        stub.pending.push(inner);
        stub.__folders[child] = inner;
        return inner;
      };
      stub.add = function () { return realize(stub).add.apply(stub.real, arguments); };
      stub.remove = function (c) { if (stub.real) { stub.real.remove(c); } };
      stub.removeFolder = function (f) {
        if (stub.real && f.real) { stub.real.removeFolder(f.real); }
        stub.pending = stub.pending.filter(function (s) { return s !== f; });
        delete stub.__folders[f.name];
      };
      stub.parentFolder = null;
      return stub;
    }
    function realize(stub) {
      if (stub.real) { return stub.real; }
      var parent = stub.parentFolder;
      var real = make.call(parent, stub.name);
      while (stub.div.lastChild) { real.domElement.prepend(stub.div.lastChild); }
      stub.real = real;
      watch(real, stub.pending);
      return real;
    }
    function watch(real, stubs) {
      stubs.forEach(function (s) { s.parentFolder = real; });
      var list = stubs;
      real.addFolder = function (name) {
        var stub = standIn(name);
        stub.parentFolder = real;
        list.push(stub);
        if (!real.closed) { realize(stub); }
        return stub;
      };
      var title = real.domElement.querySelector("li.title");
      if (title) {
        title.addEventListener("click", function () {
          if (!real.closed) { list.forEach(realize); }
        });
      }
    }
    watch(folder, pending);
  }
  if (scene.shared_poses) {
    ["Bodies", "Frames", "Centres of mass", "Inertia", "Joints", "Rods"].forEach(function (name) {
      lazyFolders(viewer.scene_tree.find([name]).folder);
    });
  }

  // set_object: three.js JSON; a geometry or material written by an earlier command is
  // named by its uuid only (rigidparts.viz.threejs): parsed once, shared by every object.
  var loader = new THREE.ObjectLoader();
  var geometries = {}, materials = {};
  function split(path) { return path.split("/").filter(Boolean); }
  function setObject(command) {
    var json = command.object;
    Object.assign(geometries, loader.parseGeometries(json.geometries || [], {}));
    Object.assign(materials, loader.parseMaterials(json.materials || [], {}));
    var object = loader.parseObject(json.object, geometries, materials, {}, {});
    object.traverse(function (part) {
      var geometry = part.isMesh ? part.geometry : null;
      if (geometry && geometry.isBufferGeometry && !geometry.attributes.normal) {
        geometry.computeVertexNormals();  // once: the geometry is shared
      }
    });
    object.castShadow = true;
    object.receiveShadow = true;
    viewer.set_object(split(command.path), object);
  }

  // A set_animation command drives its own paths; "followers" move with a body (its frames,
  // centre of mass, ellipsoid, the joints it carries): they get the same clip.
  scene.commands.forEach(function (command) {
    if (command.type === "set_object") {
      setObject(command);
      return;
    }
    if (command.type === "set_transform" && scene.shared_poses) {
      (scene.followers[command.path] || []).forEach(function (path) {
        viewer.set_transform(split(path), command.matrix);
      });
    }
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
  viewer.set_dirty();

  // Labels: text sprites of a constant size on the screen, drawn over everything. A large
  // model (label_mode "hover") makes them when needed: those of the body under the mouse
  // pointer and of the body last clicked; the control panel's Labels switch shows all or none.
  var tanHalf = Math.tan(scene.camera.fov * Math.PI / 360);
  function makeLabel(label) {
    var pixels = 2 * (label.size || 12);
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
    context.fillStyle = label.color ||
      (label.path.indexOf("/Joints/") === 0 ? "#5a3e8c" : "#1d2430");
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
    if (label.at) { sprite.position.set(label.at[0], label.at[1], label.at[2]); }
    viewer.set_object(split(label.path), sprite);
    var node = viewer.scene_tree.find(split(label.path));
    var parent = node.object.parent;
    if (label.unscale && parent) {
      parent.updateMatrixWorld(true);
      var s = new THREE.Vector3();
      parent.getWorldScale(s);
      sprite.scale.divideScalar(s.x);
    }
    label.node = node;
    label.sprite = sprite;
    label.size2d = [canvas.width / 2, canvas.height / 2];  // pixels of a 900-pixel-high view
    return node;
  }

  // Labels of frames at nearby points are not drawn over each other: before each render the
  // shown labels, top of the screen first, keep their place or move down the screen (the
  // sprite's centre) just below the labels they would cover.
  var anchor = new THREE.Vector3();
  function shownInWorld(object) {
    for (var o = object; o; o = o.parent) { if (!o.visible) { return false; } }
    return true;
  }
  function declutter() {
    var element = viewer.renderer.domElement;
    var width = element.clientWidth || 1, height = element.clientHeight || 1;
    var camera = viewer.camera;
    camera.updateMatrixWorld();
    var items = [];
    scene.labels.forEach(function (label) {
      if (!label.sprite || !shownInWorld(label.sprite)) { return; }
      label.sprite.getWorldPosition(anchor);
      anchor.project(camera);
      if (anchor.z > 1) { return; }  // behind the camera
      var k = height / 900;
      items.push({label: label, x: (anchor.x + 1) / 2 * width, y: (anchor.y + 1) / 2 * height,
                  w: label.size2d[0] * k, h: label.size2d[1] * k});
    });
    if (items.length > 400) { return; }  // "all" labels of a huge model: left as they are
    items.sort(function (a, b) { return b.y - a.y; });
    var taken = [];
    items.forEach(function (item) {
      var cx = 0.08, cy = -0.1;  // the sprite's centre: right of and above its point
      var box;
      for (var step = 0; step < taken.length + 2; step++) {
        box = [item.x + cx * item.w, item.y - cy * item.h,
               item.x + (1 + cx) * item.w, item.y + (1 - cy) * item.h];
        var lowest = null;
        taken.forEach(function (b) {
          if (box[0] < b[2] && b[0] < box[2] && box[1] < b[3] && b[1] < box[3]) {
            lowest = lowest === null ? b[1] : Math.min(lowest, b[1]);
          }
        });
        if (lowest === null) { break; }
        cy = 1 - (lowest - 1 - item.y) / item.h;  // its top just below the lowest it meets
      }
      taken.push(box);
      item.label.sprite.center.set(-cx, cy);
    });
    // for tests: the boxes drawn (pixels, y up: x0, y0, x1, y1)
    body.setAttribute("data-rigidparts-label-boxes", JSON.stringify(taken.map(function (b) {
      return b.map(function (v) { return Math.round(v * 10) / 10; });
    })));
  }
  var render = viewer.render.bind(viewer);
  viewer.render = function () { declutter(); render(); };
  function showLabel(label, visible) {
    if (!label.node) {
      if (!visible) { return; }
      makeLabel(label);
    }
    label.node.object.visible = visible;
    label.node.vis_controller.updateDisplay();
  }
  var hover = scene.label_mode === "hover" || scene.shared_poses;
  // A large model also shows the triads, centre-of-mass markers and joints of the pointed
  // and clicked bodies only (Marks: all, none): thousands of them are a wall of arrows.
  var markState = {Marks: "all"};
  function marksOf(name) {
    var paths = [["Frames", name], ["Centres of mass", name]];
    (scene.followers["/Bodies/" + name] || []).forEach(function (path) {
      if (path.indexOf("/Joints/") === 0) { paths.push(split(path)); }
    });
    return paths.map(function (path) { return viewer.scene_tree.find(path); });
  }
  function refreshMarks() {
    if (!scene.shared_poses) { return; }
    var mode = markState.Marks;
    scene.bodies.forEach(function (meta) {
      var on = mode === "all" || (mode === "pointed body" &&
        (meta.name === pointed || meta.name === chosen));
      marksOf(meta.name).forEach(function (node) {
        if (node.object.visible !== on) {
          node.object.visible = on;
          node.vis_controller.updateDisplay();
        }
      });
    });
    viewer.set_dirty();
  }
  var byBody = {};
  scene.labels.forEach(function (label) {
    var path = split(label.path);  // a frame's label: /Frames/BODY/FRAME/label
    if (label.body === undefined) { label.body = path[0] === "Frames" ? path[1] : null; }
    if (label.body) { (byBody[label.body] = byBody[label.body] || []).push(label); }
  });
  var labelState = {Labels: "all"};
  if (hover) {
    labelState.Labels = scene.labels.some(function (l) { return l.visible !== false; }) ?
      "pointed body" : "none";
  }
  var pointed = null, chosen = null;
  function refreshLabels() {
    refreshMarks();
    var mode = labelState.Labels;
    scene.labels.forEach(function (label) {
      var on = mode === "all" ? true :
        mode === "pointed body" && label.body !== null &&
        (label.body === pointed || label.body === chosen);
      if (mode === "pointed body" && label.body === null) { on = label.visible !== false; }
      showLabel(label, on);
    });
    viewer.set_dirty();
  }
  if (hover) {
    viewer.gui.add(labelState, "Labels", ["pointed body", "all", "none"])
      .onChange(refreshLabels);
    if (scene.shared_poses) {
      markState.Marks = "pointed body";
      viewer.gui.add(markState, "Marks", ["pointed body", "all", "none"])
        .onChange(refreshLabels);
    }
    var raycaster = new THREE.Raycaster(), mouse = new THREE.Vector2();
    var bodies = viewer.scene_tree.find(["Bodies"]).object;
    var element = viewer.renderer.domElement;
    function bodyAt(event) {
      var box = element.getBoundingClientRect();
      mouse.set((event.clientX - box.left) / box.width * 2 - 1,
                -(event.clientY - box.top) / box.height * 2 + 1);
      raycaster.setFromCamera(mouse, viewer.camera);
      var hits = raycaster.intersectObject(bodies, true);
      for (var i = 0; i < hits.length; i++) {
        var part = hits[i].object, visible = true;
        for (var o = part; o; o = o.parent) { visible = visible && o.visible; }
        if (!visible) { continue; }
        while (part.parent && part.parent !== bodies) { part = part.parent; }
        if (part.parent === bodies) { return part.name; }
      }
      return null;
    }
    var waiting = false;
    element.addEventListener("pointermove", function (event) {
      if (waiting || (labelState.Labels !== "pointed body" &&
                      markState.Marks !== "pointed body")) { return; }
      waiting = true;
      requestAnimationFrame(function () {
        waiting = false;
        var name = bodyAt(event);
        if (name !== pointed) { pointed = name; refreshLabels(); }
      });
    });
    var down = null;
    element.addEventListener("pointerdown", function (event) {
      down = [event.clientX, event.clientY];
    });
    element.addEventListener("pointerup", function (event) {
      if (down && Math.abs(event.clientX - down[0]) + Math.abs(event.clientY - down[1]) < 4) {
        chosen = bodyAt(event);
        refreshLabels();
      }
      down = null;
    });
    window.rigidpartsLabels = function (name) { chosen = name; refreshLabels(); };
    refreshLabels();
  } else {
    scene.labels.forEach(function (label) {
      makeLabel(label);
      label.node.object.visible = label.visible !== false;
      label.node.vis_controller.updateDisplay();
    });
  }

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
    pointed = (
        "<br>Labels: of the body under the pointer or last clicked (Labels: all, none)"
        if scene.get("label_mode") == "hover"
        else ""
    )
    help_text = (
        "drag: turn &middot; right-drag: pan &middot; wheel: zoom<br>"
        "Controls (top right): show or hide bodies, frames, centres of mass, joints;"
        f"{pointed}<br>Animations: play, pause, reset, time, timeScale (speed)"
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
