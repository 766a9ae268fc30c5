"""The model file: a TOML description of bodies and joints (format in ``docs/models.md``).

::

    name = "pendulum"                # optional (default: the file's stem)
    gravity = [0, 0, -9.81]          # optional, m/s^2

    [simulation]                     # optional defaults for `rigidparts simulate`
    duration = "10 s"
    timestep = 1e-4
    integrator = "RK4"

    [bodies.arm]                     # one table per body: `shape` + the body's keywords
    shape = "box"
    length = "1 m"
    ...

    [[joints]]                       # one entry per joint: Model.add_joint's arguments
    name = "hinge"
    type = "revolute"
    parent = "world"
    child = "arm.frame_a"
    axis = [0, 1, 0]
    rpy = ["0 deg", "0 deg", "90 deg"]   # or rotation = [[...], [...], [...]]

Every problem raises :class:`~rigidparts.ModelError` naming the file, the line (TOML's own for
syntax errors; otherwise found by scanning the text for the table and key) and the item at
fault, e.g. ``model.toml:9: bodies.arm.lenght='1 m': unknown key ...``.
"""

from __future__ import annotations

import inspect
import math
import os
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..component import Component
from ..errors import ModelError, ParameterError
from ..units import to_si
from .joints import parse_rpy
from .model import INTEGRATORS, Model

__all__ = ["body_classes", "load_model", "model_from_dict"]

TOP_LEVEL_KEYS = ("name", "gravity", "simulation", "bodies", "joints")
SIMULATION_KEYS = ("duration", "timestep", "integrator")
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


def body_classes() -> dict[str, type[Component]]:
    """``shape -> class`` for every body class (subclasses of Component with a ``shape``)."""
    from .. import bodies  # noqa: F401  (registers Box and Cone as subclasses)

    found: dict[str, type[Component]] = {}
    stack = list(Component.__subclasses__())
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        shape = cls.__dict__.get("shape")
        if isinstance(shape, str):
            found.setdefault(shape, cls)
    return dict(sorted(found.items()))


def body_keywords(cls: type[Component]) -> tuple[str, ...]:
    """The keyword arguments of a body class, in signature order."""
    return tuple(
        name
        for name, p in inspect.signature(cls).parameters.items()
        if p.kind is inspect.Parameter.KEYWORD_ONLY
    )


class LineIndex:
    """Best-effort line numbers of tables and keys in TOML text (tomllib gives none).

    Tracks the current ``[table]`` / ``[[array]]`` header (counting array entries) and records
    the first line of each ``key = ...``, skipping the continuation lines of multi-line arrays
    and inline tables.
    """

    _HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
    _KEY = re.compile(r"^\s*([A-Za-z0-9_\-\"'. ]+?)\s*=")

    def __init__(self, text: str) -> None:
        self.lines: dict[tuple[Any, ...], int] = {}
        table: tuple[Any, ...] = ()
        counts: dict[tuple[str, ...], int] = {}
        depth = 0
        for number, line in enumerate(text.splitlines(), start=1):
            code = _strip_comment(line)
            if depth == 0:
                header = self._HEADER.match(code)
                if header and code.lstrip().startswith("["):
                    parts = _split_key(header.group(2))
                    if header.group(1) == "[[":
                        index = counts.get(parts, 0)
                        counts[parts] = index + 1
                        table = (*parts, index)
                    else:
                        table = parts
                    self.lines.setdefault(table, number)
                    continue
                key = self._KEY.match(code)
                if key:
                    self.lines.setdefault((*table, *_split_key(key.group(1))), number)
            depth = max(0, depth + _bracket_balance(code))

    def line(self, *path: Any) -> int | None:
        """The line of ``path`` (e.g. ``("bodies", "arm", "length")``, ``("joints", 1)``), or of
        its nearest recorded ancestor; None when nothing matches."""
        while path:
            if path in self.lines:
                return self.lines[path]
            path = path[:-1]
        return None


def _strip_comment(line: str) -> str:
    out, quote = [], None
    for char in line:
        if quote:
            if char == quote:
                quote = None
        elif char in "\"'":
            quote = char
        elif char == "#":
            break
        out.append(char)
    return "".join(out)


def _split_key(text: str) -> tuple[str, ...]:
    return tuple(part.strip().strip("\"'") for part in text.split("."))


def _bracket_balance(code: str) -> int:
    balance, quote = 0, None
    _, _, value = code.partition("=")
    for char in value if "=" in code else code:
        if quote:
            if char == quote:
                quote = None
        elif char in "\"'":
            quote = char
        elif char in "[{":
            balance += 1
        elif char in "]}":
            balance -= 1
    return balance


def load_model(path: str | os.PathLike[str]) -> Model:
    """Load a model file; every problem is a :class:`~rigidparts.ModelError` with the file's
    path, the line where known, and the item at fault. Nothing is written."""
    source = str(path)
    raw = Path(path).read_bytes()  # OSError (missing file, ...) propagates as such
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ModelError("file", source, "is not UTF-8 text", source=source, line=line) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        found = re.search(r"line (\d+)", message)
        line = int(found.group(1)) if found else None
        lines = text.splitlines()
        shown = lines[line - 1].strip() if line and line <= len(lines) else ""
        raise ModelError(
            "toml", shown, f"is not valid TOML: {message}", source=source, line=line
        ) from None
    return model_from_dict(data, source=source, text=text, default_name=Path(path).stem)


def model_from_dict(
    data: Mapping[str, Any],
    *,
    source: str | None = None,
    text: str | None = None,
    default_name: str = "model",
) -> Model:
    """Build a :class:`Model` from parsed model-file content (see :func:`load_model`)."""
    index = LineIndex(text or "")

    def fail(path: tuple[Any, ...], parameter: str, value: Any, rule: str) -> ModelError:
        return ModelError(parameter, value, rule, source=source, line=index.line(*path))

    def relocate(exc: ParameterError, path: tuple[Any, ...], parameter: str) -> ModelError:
        return fail(path, parameter, exc.value, exc.rule)

    if not isinstance(data, Mapping):
        raise fail((), "file", data, "must hold TOML tables")
    for key in data:
        if key not in TOP_LEVEL_KEYS:
            raise fail(
                (key,),
                key,
                data[key],
                f"unknown top-level key (known: {', '.join(TOP_LEVEL_KEYS)})",
            )
    for key in ("bodies", "joints"):
        if key not in data:
            raise fail((), key, None, f"the model file needs '{key}'")

    name = data.get("name", default_name)
    try:
        model = Model(name=name, gravity=data.get("gravity", (0.0, 0.0, -9.81)))
    except ParameterError as exc:
        raise relocate(exc, (exc.parameter,), exc.parameter) from None

    settings = data.get("simulation", {})
    if not isinstance(settings, Mapping):
        raise fail(("simulation",), "simulation", settings, "must be a table")
    for key, value in settings.items():
        where = ("simulation", key)
        parameter = f"simulation.{key}"
        if key not in SIMULATION_KEYS:
            raise fail(
                where, parameter, value, f"unknown key (known: {', '.join(SIMULATION_KEYS)})"
            )
        if key == "integrator":
            choice = {i.lower(): i for i in INTEGRATORS}.get(str(value).lower())
            if not isinstance(value, str) or choice is None:
                raise fail(where, parameter, value, f"must be one of {', '.join(INTEGRATORS)}")
            model.simulation.integrator = choice
            continue
        try:
            seconds = to_si(parameter, value, "time")
        except ParameterError as exc:
            raise relocate(exc, where, parameter) from None
        if not (seconds > 0.0 and math.isfinite(seconds)):
            raise fail(where, parameter, value, "must be a positive, finite time (s)")
        setattr(model.simulation, key, seconds)

    bodies = data["bodies"]
    if not isinstance(bodies, Mapping) or not bodies:
        raise fail(("bodies",), "bodies", bodies, "must hold one table per body ([bodies.NAME])")
    classes = body_classes()
    for body_name, table in bodies.items():
        where = ("bodies", body_name)
        prefix = f"bodies.{body_name}"
        if not isinstance(table, Mapping):
            raise fail(where, prefix, table, "must be a table of the body's keywords")
        shape = table.get("shape")
        if not isinstance(shape, str) or shape not in classes:
            raise fail(
                (*where, "shape"),
                f"{prefix}.shape",
                shape,
                f"must be one of {', '.join(repr(s) for s in classes)}",
            )
        cls = classes[shape]
        keywords = body_keywords(cls)
        for key, value in table.items():
            if key != "shape" and key not in keywords:
                raise fail(
                    (*where, key),
                    f"{prefix}.{key}",
                    value,
                    f"unknown key for a {shape} (known: shape, {', '.join(keywords)})",
                )
        kwargs = {k: v for k, v in table.items() if k != "shape"}
        try:
            body = cls(**kwargs)
        except ParameterError as exc:
            key = exc.parameter.split("[")[0]
            raise relocate(exc, (*where, key), f"{prefix}.{exc.parameter}") from None
        except (TypeError, ValueError) as exc:  # a value of the wrong kind the body did not name
            raise fail(where, prefix, kwargs, f"is not a valid {shape}: {exc}") from None
        try:
            model.add_body(body_name, body)
        except ParameterError as exc:
            raise relocate(exc, where, exc.parameter) from None

    joints = data["joints"]
    if isinstance(joints, Mapping) or not isinstance(joints, list) or not joints:
        raise fail(("joints",), "joints", joints, "must be a list of joints ([[joints]] tables)")
    for i, entry in enumerate(joints):
        where = ("joints", i)
        prefix = f"joints[{i}]"
        if not isinstance(entry, Mapping):
            raise fail(where, prefix, entry, "must be a table (a [[joints]] entry)")
        for key, value in entry.items():
            if key not in JOINT_KEYS:
                raise fail(
                    (*where, key),
                    f"{prefix}.{key}",
                    value,
                    f"unknown joint key (known: {', '.join(JOINT_KEYS)})",
                )
        for key in REQUIRED_JOINT_KEYS:
            if key not in entry:
                raise fail(where, f"{prefix}.{key}", None, f"every joint needs '{key}'")
        kwargs = {k: v for k, v in entry.items() if k != "rpy"}
        if "rpy" in entry:
            if "rotation" in entry:
                raise fail(
                    (*where, "rpy"), f"{prefix}.rpy", entry["rpy"], "give rotation or rpy, not both"
                )
            try:
                kwargs["rotation"] = parse_rpy(f"{prefix}.rpy", entry["rpy"])
            except ParameterError as exc:
                raise relocate(exc, (*where, "rpy"), exc.parameter) from None
        try:
            model.add_joint(**kwargs)
        except ParameterError as exc:
            found = re.match(r"joints\[\d+\]\.([A-Za-z_]+)", exc.parameter)
            key = found.group(1) if found else None
            if key == "rotation" and "rpy" in entry:
                key = "rpy"
            path = (*where, key) if key else where
            raise relocate(exc, path, exc.parameter) from None

    try:
        model.check()
    except ParameterError as exc:
        found = re.match(r"bodies\.([A-Za-z0-9_\-]+)", exc.parameter)
        path = ("bodies", found.group(1)) if found else ("joints",)
        raise relocate(exc, path, exc.parameter) from None
    return model
