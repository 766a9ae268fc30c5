"""User values of models as validated SI numbers and arrays, every problem a
:class:`~rigidparts.ModelError` naming the item (``joints[0].axis``, ``bodies.arm``, ...).

Numbers may carry units where a kind is given (``"30 deg"``, ``"5 mm"``; see
:func:`rigidparts.units.to_si`); rotations follow the one matrix policy of
:mod:`rigidparts.transforms`.
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np

from ..errors import ModelError, ParameterError
from ..transforms import as_rotation, rpy_to_matrix
from ..units import to_si

__all__ = ["NAME_PATTERN", "check_name", "numbers", "rotation", "rpy", "si_number"]

#: Names of bodies and joints: a letter or underscore, then letters, digits, ``_`` or ``-``.
NAME_PATTERN = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*$")


def check_name(parameter: str, name: Any, what: str) -> str:
    """``name`` when it is a valid ``what`` (body or joint) name, else ModelError naming
    ``parameter``."""
    if not isinstance(name, str) or not NAME_PATTERN.match(name):
        raise ModelError(
            parameter,
            name,
            f"a {what} name must start with a letter or '_' and hold only letters, digits, "
            "'_' and '-' (no dots: 'BODY.FRAME' names a frame)",
        )
    if name == "world":
        raise ModelError(parameter, name, f"'world' is reserved for the fixed world, not a {what}")
    return name


def as_model_error(exc: ParameterError) -> ModelError:
    """A ParameterError as a ModelError with the same parameter, value and rule."""
    if isinstance(exc, ModelError):
        return exc
    return ModelError(exc.parameter, exc.value, exc.rule)


def si_number(parameter: str, value: Any, kind: str) -> float:
    """One finite number in SI (``kind`` as in :func:`rigidparts.units.to_si`: ``"length"``,
    ``"angle"``, ...)."""
    try:
        number = to_si(parameter, value, kind)  # type: ignore[arg-type]
    except ParameterError as exc:
        raise as_model_error(exc) from None
    except ValueError as exc:  # any other refusal of the unit parser: keep its words
        raise ModelError(parameter, value, str(exc)) from None
    if not math.isfinite(number):
        raise ModelError(parameter, value, "must be finite")
    return number


def plain_number(parameter: str, value: Any, rule: str) -> float:
    """A finite int or float without units (not a bool); ModelError with ``rule`` else."""
    if not _is_plain_number(value):
        raise ModelError(parameter, value, rule)
    number = float(value)
    if not math.isfinite(number):
        raise ModelError(parameter, value, "must be finite")
    return number


def _is_plain_number(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, int | float | np.floating)


def numbers(parameter: str, value: Any, count: int, kind: str | None, rule: str) -> np.ndarray:
    """``count`` finite floats as an ndarray (count,); with ``kind`` each item may carry units
    (item ``i`` is reported as ``parameter[i]``), without, each must be a plain number.
    ``rule`` says what was expected when the value has the wrong form."""
    if isinstance(value, str) or not hasattr(value, "__len__"):
        raise ModelError(parameter, value, rule)
    items = list(value)
    if len(items) != count:
        raise ModelError(parameter, value, rule)
    if kind is None:
        if not all(_is_plain_number(item) for item in items):
            raise ModelError(parameter, value, rule)
        out = np.array([float(item) for item in items])
        if not np.all(np.isfinite(out)):
            raise ModelError(parameter, value, "must be finite")
        return out
    return np.array([si_number(f"{parameter}[{i}]", item, kind) for i, item in enumerate(items)])


def rotation(parameter: str, value: Any) -> np.ndarray:
    """A proper rotation matrix (3, 3) from a 3x3 matrix (rows) or a scipy ``Rotation``, under
    the policy of :func:`rigidparts.transforms.as_rotation`."""
    try:
        matrix = as_rotation(value, parameter)
    except ParameterError as exc:
        raise as_model_error(exc) from None
    if matrix.shape != (3, 3):
        raise ModelError(parameter, value, "must be a finite 3x3 rotation matrix (rows)")
    return matrix


def rpy(parameter: str, value: Any) -> np.ndarray:
    """Roll, pitch, yaw (rad, or with units such as ``"30 deg"``) -> ``R = Rz(y) Ry(p) Rx(r)``
    (the URDF / SDFormat convention: about the fixed x, y, z axes in that order)."""
    angles = numbers(parameter, value, 3, "angle", "must be [roll, pitch, yaw] (rad or units)")
    return rpy_to_matrix(angles)
