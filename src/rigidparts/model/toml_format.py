"""The model file: a TOML description of bodies and joints (format in ``docs/models.md``).

::

    name = "pendulum"                # optional (default: the file's stem)
    gravity = [0, 0, -9.81]          # optional, m/s^2

    [simulation]                     # optional defaults for `rigidparts simulate`
    duration = "10 s"
    timestep = 1e-4
    integrator = "RK4"

    [bodies.arm]                     # one table per body: `shape` + the body's keywords
    shape = "box"                    # a name in rigidparts.shapes.SHAPES
    length = "1 m"
    material = "aluminium"           # or density = ..., or mass = "2.5 kg" (one of the three)
    color = "steelblue"              # optional: a CSS colour name, "#rrggbb" or [r, g, b]
    opacity = 0.8                    # optional: 0..1 (1 opaque)
    visible = true                   # optional
    ...

    [[joints]]                       # one entry per joint: Model.add_joint's arguments
    name = "hinge"
    type = "revolute"
    parent = "world"
    child = "arm.frame_a"
    axis = [0, 1, 0]
    rpy = ["0 deg", "0 deg", "90 deg"]   # or rotation = [[...], [...], [...]]

    [[rods]]                         # optional: massless spring-dampers (Model.add_rod)
    name = "spring"
    frame_a = "arm.frame_b"          # BODY.FRAME, BODY or world
    frame_b = "world"
    rest_length = "500 mm"           # defaults: 1 m, 1e6 N/m, 1e4 N s/m
    stiffness = "2 kN/m"
    damping = "50 N*s/m"

Every problem raises :class:`~rigidparts.ModelError` naming the file, the line (TOML's own for
syntax errors; otherwise found by scanning the text for the table and key) and the item at
fault, e.g. ``model.toml:9: bodies.arm.lenght='1 m': unknown key ...``.

A body table's keys are ``shape``, the keywords of that shape's public class, read from its
specification (:meth:`~rigidparts.shapes.ShapeSpec.signature_defaults`), and the appearance
keys ``color``, ``opacity``, ``visible`` (:meth:`Model.add_body`); the class's values go to
the class (:func:`rigidparts.bodies.body_class`) unchanged, so units, ``mass``, and radial
``extra_frames = [[0.2, "30 deg"], ...]`` pairs work as in Python.
"""

from __future__ import annotations

import math
import os
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..bodies import body_class
from ..component import Component
from ..errors import ModelError, ParameterError
from ..shapes import SHAPES, ShapeSpec
from ..units import to_si
from .model import INTEGRATORS, Model, SimulationSettings
from .toml_lines import LineIndex
from .values import rpy

__all__ = ["load_model", "model_from_dict"]

TOP_LEVEL_KEYS = ("name", "gravity", "simulation", "bodies", "joints", "rods")
REQUIRED_TOP_LEVEL_KEYS = ("bodies", "joints")
SIMULATION_KEYS = ("duration", "timestep", "integrator", "contacts")
JOINT_KEYS = (
    "name",
    "type",
    "parent",
    "child",
    "axis",
    "position",
    "rotation",
    "rpy",
    "initial",
    "initial_velocity",
    "limits",
    "damping",
)
REQUIRED_JOINT_KEYS = ("name", "type", "parent", "child")
ROD_KEYS = ("name", "frame_a", "frame_b", "rest_length", "stiffness", "damping")
REQUIRED_ROD_KEYS = ("name", "frame_a", "frame_b")
#: Keys of every body table that say how it is shown, not what it is (Model.add_body).
APPEARANCE_KEYS = ("color", "opacity", "visible")

#: A key path in the file: ``("bodies", "arm", "length")``, ``("joints", 0, "axis")``.
KeyPath = tuple[Any, ...]


# -- the file ----------------------------------------------------------------------------


def load_model(path: str | os.PathLike[str]) -> Model:
    """Load a model file; every problem is a :class:`~rigidparts.ModelError` with the file's
    path, the line where known, and the item at fault. Nothing is written."""
    source = str(path)
    raw = Path(path).read_bytes()  # OSError (missing file, ...) propagates as such
    text = _decode(raw, source)
    data = _parse(text, source)
    return model_from_dict(data, source=source, text=text, default_name=Path(path).stem)


def _decode(raw: bytes, source: str) -> str:
    try:
        return raw.decode("utf-8-sig")  # a byte-order mark (Windows editors) is dropped
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ModelError("file", source, "is not UTF-8 text", source=source, line=line) from None


def _parse(text: str, source: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except RecursionError:  # tomllib recurses into nested arrays and inline tables
        raise ModelError(
            "toml",
            source,
            "is nested too deeply (arrays or inline tables inside one another, far beyond "
            "what a model file needs)",
            source=source,
        ) from None
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        found = re.search(r"line (\d+)", message)
        line = int(found.group(1)) if found else None
        lines = text.splitlines()
        shown = lines[line - 1].strip() if line and line <= len(lines) else ""
        raise ModelError(
            "toml", shown, f"is not valid TOML: {message}", source=source, line=line
        ) from None


class _Errors:
    """Makes :class:`ModelError` s that carry the file and the line of a key path."""

    def __init__(self, source: str | None, text: str | None) -> None:
        self.source = source
        self.index = LineIndex(text or "")

    def __call__(self, path: KeyPath, parameter: str, value: Any, rule: str) -> ModelError:
        """The error about ``parameter`` (at ``path`` in the file)."""
        return ModelError(parameter, value, rule, source=self.source, line=self.index.line(*path))

    def relocate(self, exc: ParameterError, path: KeyPath, parameter: str) -> ModelError:
        """``exc`` (value and rule kept) reported as ``parameter`` at ``path``."""
        return self(path, parameter, exc.value, exc.rule)


def model_from_dict(
    data: Mapping[str, Any],
    *,
    source: str | None = None,
    text: str | None = None,
    default_name: str = "model",
) -> Model:
    """Build a :class:`Model` from parsed model-file content (the tables of
    :meth:`Model.to_dict`, or ``tomllib`` output). ``source`` and ``text`` are the file's path
    and text, for the file and line in error messages; ``default_name`` the name when the data
    gives none."""
    errors = _Errors(source, text)
    _check_top_level(data, errors)
    model = _new_model(data, default_name, errors)
    _read_simulation(data.get("simulation", {}), model.simulation, errors)
    _read_bodies(data["bodies"], model, errors)
    _read_joints(data["joints"], model, errors)
    _check_tree(model, errors)
    _read_rods(data.get("rods", []), model, errors)
    return model


# -- the top level and [simulation] --------------------------------------------------------


def _check_top_level(data: Any, errors: _Errors) -> None:
    if not isinstance(data, Mapping):
        raise errors((), "file", data, "must hold TOML tables")
    for key in data:
        if key not in TOP_LEVEL_KEYS:
            known = ", ".join(TOP_LEVEL_KEYS)
            raise errors((key,), key, data[key], f"unknown top-level key (known: {known})")
    for key in REQUIRED_TOP_LEVEL_KEYS:
        if key not in data:
            raise errors((), key, None, f"the model file needs '{key}'")


def _new_model(data: Mapping[str, Any], default_name: str, errors: _Errors) -> Model:
    try:
        return Model(
            name=data.get("name", default_name), gravity=data.get("gravity", (0.0, 0.0, -9.81))
        )
    except ParameterError as exc:
        raise errors.relocate(exc, (exc.parameter,), exc.parameter) from None


def _read_simulation(settings: Any, target: SimulationSettings, errors: _Errors) -> None:
    """Fill ``target`` from the ``[simulation]`` table: times in s, an integrator's name."""
    if not isinstance(settings, Mapping):
        raise errors(("simulation",), "simulation", settings, "must be a table")
    for key, value in settings.items():
        path = ("simulation", key)
        parameter = f"simulation.{key}"
        if key not in SIMULATION_KEYS:
            known = ", ".join(SIMULATION_KEYS)
            raise errors(path, parameter, value, f"unknown key (known: {known})")
        if key == "integrator":
            target.integrator = _integrator(path, parameter, value, errors)
        elif key == "contacts":  # opt-in collisions between the bodies' geometry
            if not isinstance(value, bool):
                raise errors(path, parameter, value, "must be true or false")
            target.contacts = value
        else:
            setattr(target, key, _seconds(path, parameter, value, errors))


def _integrator(path: KeyPath, parameter: str, value: Any, errors: _Errors) -> str:
    """One of :data:`INTEGRATORS`, matched without regard to case."""
    choice = {i.lower(): i for i in INTEGRATORS}.get(str(value).lower())
    if not isinstance(value, str) or choice is None:
        raise errors(path, parameter, value, f"must be one of {', '.join(INTEGRATORS)}")
    return choice


def _seconds(path: KeyPath, parameter: str, value: Any, errors: _Errors) -> float:
    """A positive, finite time in s (units allowed)."""
    try:
        seconds = to_si(parameter, value, "time")
    except ParameterError as exc:
        raise errors.relocate(exc, path, parameter) from None
    if not (seconds > 0.0 and math.isfinite(seconds)):
        raise errors(path, parameter, value, "must be a positive, finite time (s)")
    return seconds


# -- [bodies.NAME] ---------------------------------------------------------------------------


def _read_bodies(bodies: Any, model: Model, errors: _Errors) -> None:
    if not isinstance(bodies, Mapping) or not bodies:
        raise errors(("bodies",), "bodies", bodies, "must hold one table per body ([bodies.NAME])")
    for name, table in bodies.items():
        body = _read_body(name, table, errors)
        looks = {key: table[key] for key in APPEARANCE_KEYS if key in table}
        try:
            model.add_body(name, body, **looks)
        except ParameterError as exc:
            key = exc.parameter.rpartition(".")[2]
            path = ("bodies", name, key) if key in looks else ("bodies", name)
            raise errors.relocate(exc, path, exc.parameter) from None


def _read_body(name: str, table: Any, errors: _Errors) -> Component:
    """The body of table ``[bodies.<name>]``: its shape's class called with its keys."""
    path = ("bodies", name)
    prefix = f"bodies.{name}"
    if not isinstance(table, Mapping):
        raise errors(path, prefix, table, "must be a table of the body's keywords")
    spec = _body_spec(table.get("shape"), path, prefix, errors)
    _check_body_keys(table, spec, path, prefix, errors)
    kwargs = _body_keywords(table, spec, errors.source)
    try:
        return body_class(spec.name)(**kwargs)
    except ParameterError as exc:
        key = exc.parameter.split("[")[0].split(".")[0]
        raise errors.relocate(exc, (*path, key), f"{prefix}.{exc.parameter}") from None
    except (TypeError, ValueError) as exc:  # a value of the wrong kind the body did not name
        raise errors(path, prefix, kwargs, f"is not a valid {spec.name}: {exc}") from None


def _body_keywords(table: Mapping[str, Any], spec: ShapeSpec, source: str | None) -> dict[str, Any]:
    """The class's keywords from a body table: a parameter's alias (``file`` for ``mesh``)
    becomes its keyword, and a relative path (a parameter of kind ``path``) is taken relative
    to the model file's folder."""
    aliases = {alias: p.name for p in spec.params for alias in p.aliases}
    paths = {p.name for p in spec.params if p.kind == "path"}
    kwargs: dict[str, Any] = {}
    for key, value in table.items():
        if key == "shape" or key in APPEARANCE_KEYS:
            continue
        key = aliases.get(key, key)
        if key in paths and isinstance(value, str) and source is not None:
            value = str(Path(source).parent / value)  # an absolute value stays as it is
        kwargs[key] = value
    return kwargs


def _body_spec(shape: Any, path: KeyPath, prefix: str, errors: _Errors) -> ShapeSpec:
    """The registered specification of ``shape``, else the error listing the shapes."""
    if not isinstance(shape, str) or shape not in SHAPES:
        known = ", ".join(repr(name) for name in SHAPES)
        raise errors((*path, "shape"), f"{prefix}.shape", shape, f"must be one of {known}")
    return SHAPES[shape]


def _check_body_keys(
    table: Mapping[str, Any], spec: ShapeSpec, path: KeyPath, prefix: str, errors: _Errors
) -> None:
    """Every key is ``shape``, a keyword of the shape's class or an appearance key."""
    keywords = spec.signature_defaults()
    keywords.update({alias: None for p in spec.params for alias in p.aliases})
    for key, value in table.items():
        if key != "shape" and key not in keywords and key not in APPEARANCE_KEYS:
            known = ", ".join(["shape", *keywords, *APPEARANCE_KEYS])
            rule = f"unknown key for a {spec.name} (known: {known})"
            raise errors((*path, key), f"{prefix}.{key}", value, rule)
    for p in spec.params:  # an alias beside its parameter: one would be dropped
        for alias in p.aliases:
            if alias in table and p.name in table:
                rule = f"names the same parameter as {p.name!r}: give one of them"
                raise errors((*path, alias), f"{prefix}.{alias}", table[alias], rule)


# -- [[joints]] ------------------------------------------------------------------------------


def _read_joints(joints: Any, model: Model, errors: _Errors) -> None:
    if isinstance(joints, Mapping) or not isinstance(joints, list) or not joints:
        raise errors(("joints",), "joints", joints, "must be a list of joints ([[joints]] tables)")
    for index, entry in enumerate(joints):
        _read_joint(index, entry, model, errors)


def _read_joint(index: int, entry: Any, model: Model, errors: _Errors) -> None:
    """Add the joint of ``[[joints]]`` entry ``index`` to ``model``."""
    path = ("joints", index)
    kwargs = _joint_arguments(index, entry, errors)
    try:
        model.add_joint(**kwargs)
    except ParameterError as exc:
        found = re.match(r"joints\[\d+\]\.([A-Za-z_]+)", exc.parameter)
        key = found.group(1) if found else None
        if key == "rotation" and "rpy" in entry:
            key = "rpy"
        raise errors.relocate(exc, (*path, key) if key else path, exc.parameter) from None


def _check_entry(
    what: str,
    path: tuple[str, int],
    entry: Any,
    known: Any,
    required: Any,
    errors: _Errors,
) -> None:
    """One entry of a ``[[joints]]`` or ``[[rods]]`` list (``what``: "joint", "rod") is a
    table of ``known`` keys holding every ``required`` one, else the error at its line."""
    prefix = f"{path[0]}[{path[1]}]"
    if not isinstance(entry, Mapping):
        raise errors(path, prefix, entry, f"must be a table (a [[{path[0]}]] entry)")
    for key, value in entry.items():
        if key not in known:
            rule = f"unknown {what} key (known: {', '.join(known)})"
            raise errors((*path, key), f"{prefix}.{key}", value, rule)
    for key in required:
        if key not in entry:
            raise errors(path, f"{prefix}.{key}", None, f"every {what} needs '{key}'")


def _joint_arguments(index: int, entry: Any, errors: _Errors) -> dict[str, Any]:
    """The keyword arguments of :meth:`Model.add_joint` from a ``[[joints]]`` entry (its
    ``rpy`` turned into a ``rotation``)."""
    path = ("joints", index)
    prefix = f"joints[{index}]"
    _check_entry("joint", path, entry, JOINT_KEYS, REQUIRED_JOINT_KEYS, errors)
    kwargs = {key: value for key, value in entry.items() if key != "rpy"}
    if "rpy" in entry:
        where = (*path, "rpy")
        if "rotation" in entry:
            raise errors(where, f"{prefix}.rpy", entry["rpy"], "give rotation or rpy, not both")
        try:
            kwargs["rotation"] = rpy(f"{prefix}.rpy", entry["rpy"])
        except ParameterError as exc:
            raise errors.relocate(exc, where, exc.parameter) from None
    return kwargs


def _check_tree(model: Model, errors: _Errors) -> None:
    """The model is one complete tree, else the error at the body's table or the joints."""
    try:
        model.check()
    except ParameterError as exc:
        found = re.match(r"bodies\.([A-Za-z0-9_\-]+)", exc.parameter)
        path = ("bodies", found.group(1)) if found else ("joints",)
        raise errors.relocate(exc, path, exc.parameter) from None


# -- [[rods]] --------------------------------------------------------------------------------


def _read_rods(rods: Any, model: Model, errors: _Errors) -> None:
    """Add the rods of the ``[[rods]]`` entries (optional) to ``model``."""
    if isinstance(rods, Mapping) or not isinstance(rods, list):
        first = next(iter(rods), None) if isinstance(rods, Mapping) else None
        path = ("rods",) if first is None else ("rods", first)  # [rods.x] has no line of its own
        raise errors(path, "rods", rods, "must be a list of rods ([[rods]] tables)")
    for index, entry in enumerate(rods):
        path = ("rods", index)
        _check_entry("rod", path, entry, ROD_KEYS, REQUIRED_ROD_KEYS, errors)
        try:
            model.add_rod(**entry)
        except ParameterError as exc:
            found = re.match(r"rods\[\d+\]\.([A-Za-z_]+)", exc.parameter)
            key = found.group(1) if found else None
            raise errors.relocate(exc, (*path, key) if key else path, exc.parameter) from None
