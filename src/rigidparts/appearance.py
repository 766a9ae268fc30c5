"""How a body looks: its colour, opacity and visibility (the original tool's Color, Transparent
and Show visualization on every element).

One value type, :class:`Appearance`, used by every consumer: the PNG/GIF pictures, the HTML
viewer and the exporters (MJCF ``rgba``, URDF and SDF ``<material>``, USD ``displayColor``), so
all of them show the same colours. A body without a colour of its own takes the default palette
entry for its index in the model (:func:`default_appearance`), the same in every output.

Colours are sRGB components in [0, 1] (what matplotlib, MuJoCo ``rgba``, URDF ``<color rgba>``
and SDF ``<diffuse>`` take; :attr:`Appearance.linear_color` for USD, whose colours are
linear); written as a CSS colour name (CSS Color Module Level 3 extended keywords, the 147
names of :mod:`webcolors`, case-insensitive), ``#rrggbb`` / ``#rgb``, or three numbers in
[0, 1]. Opacity is alpha in [0, 1]: 1 opaque, 0 fully transparent. ``visible = False`` hides
the body's surface; its mass still counts.
"""

from __future__ import annotations

import difflib
import functools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from numbers import Real
from typing import Any

from .errors import ParameterError

__all__ = [
    "BODY_PALETTE",
    "Appearance",
    "appearance",
    "color_names",
    "default_appearance",
    "parse_color",
    "parse_opacity",
    "parse_visible",
]

#: The default body colours, in turn (body ``i`` of a model takes ``BODY_PALETTE[i % 7]``):
#: muted blue, ochre, green, mauve, sand, teal, rose, light enough for dark edges and labels.
BODY_PALETTE = (
    "#8aa9c9",
    "#d9a36a",
    "#9cc58f",
    "#c99ac9",
    "#d6cc7a",
    "#9ad0d0",
    "#d69a9a",
)

_HEX = re.compile(r"#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})")
_FORMS = "a CSS colour name, '#rrggbb', '#rgb' or three numbers (r, g, b) in [0, 1]"


def color_names() -> tuple[str, ...]:
    """The colour names :func:`parse_color` knows (CSS3 extended keywords, lower case)."""
    import webcolors

    return tuple(webcolors.names(webcolors.CSS3))


def _from_hex(text: str) -> tuple[float, float, float]:
    import webcolors

    rgb = webcolors.hex_to_rgb(text)  # expands '#rgb' to '#rrggbb'
    return (rgb.red / 255.0, rgb.green / 255.0, rgb.blue / 255.0)


def _is_number(value: Any) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool)


def parse_color(value: Any, parameter: str = "color") -> tuple[float, float, float]:
    """The sRGB components (r, g, b), each in [0, 1], of ``value``: a CSS colour name
    (case-insensitive, e.g. ``"SteelBlue"``), ``"#rrggbb"`` or ``"#rgb"`` (each hex pair
    ``k`` gives ``k / 255``), or a sequence of three numbers in [0, 1].

    Raises :class:`ParameterError` naming ``parameter`` and the rule: an unknown name (with the
    nearest known names, by :func:`difflib.get_close_matches`), a malformed hex code, a
    component outside [0, 1] or not finite, or anything else.
    """
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("#"):
            if not _HEX.fullmatch(text):
                raise ParameterError(
                    parameter,
                    value,
                    "is not a hex colour: '#' must be followed by 6 or 3 hex digits "
                    "('#rrggbb' or '#rgb')",
                )
            return _from_hex(text)
        import webcolors

        name = text.lower()
        try:
            return _from_hex(webcolors.name_to_hex(name, spec=webcolors.CSS3))
        except ValueError:
            pass
        close = difflib.get_close_matches(name, color_names(), n=3, cutoff=0.6)
        hint = (
            " (did you mean " + " or ".join(repr(c) for c in close) + "?)"
            if close
            else f"; give {_FORMS}"
        )
        raise ParameterError(parameter, value, f"unknown colour name{hint}")
    if _is_sequence(value):
        items = list(value)
        if len(items) != 3:
            rule = (
                "must be three numbers (r, g, b); give the opacity separately (opacity = ...)"
                if len(items) == 4
                else "must be three numbers (r, g, b) in [0, 1]"
            )
            raise ParameterError(parameter, value, rule)
        if not all(_is_number(v) for v in items):
            raise ParameterError(parameter, value, "components must be numbers in [0, 1]")
        components = tuple(float(v) for v in items)
        if not all(math.isfinite(c) and 0.0 <= c <= 1.0 for c in components):
            rule = "components must be in [0, 1]"
            if all(math.isfinite(c) and 0.0 <= c <= 255.0 for c in components):
                rule += " (for 0..255 values write '#rrggbb')"
            raise ParameterError(parameter, value, rule)
        return components  # type: ignore[return-value]
    raise ParameterError(parameter, value, f"is not a colour: give {_FORMS}")


def _is_sequence(value: Any) -> bool:
    """A list, tuple or 1-D array (numpy's ndarray is no registered Sequence)."""
    if isinstance(value, str | bytes):
        return False
    return isinstance(value, Sequence) or (
        type(value).__name__ == "ndarray" and getattr(value, "ndim", None) == 1
    )


def parse_opacity(value: Any, parameter: str = "opacity") -> float:
    """``value`` as an opacity: a number in [0, 1] (1 opaque, 0 fully transparent)."""
    if not _is_number(value):
        raise ParameterError(parameter, value, "must be a number in [0, 1] (1 is opaque)")
    number = float(value)
    if not (math.isfinite(number) and 0.0 <= number <= 1.0):
        raise ParameterError(parameter, value, "must be in [0, 1] (1 is opaque)")
    return number


def parse_visible(value: Any, parameter: str = "visible") -> bool:
    """``value`` as a visibility flag: ``True`` or ``False`` (numpy booleans too; not 0 / 1,
    not strings, which would hide typos such as ``visible = "false"``)."""
    if type(value).__module__ == "numpy" and type(value).__name__ in ("bool", "bool_"):
        return bool(value)
    if not isinstance(value, bool):
        raise ParameterError(parameter, value, "must be true or false")
    return value


@dataclass(frozen=True)
class Appearance:
    """How one body is shown: ``color`` (sRGB, each component in [0, 1]), ``opacity`` (alpha
    in [0, 1], 1 opaque) and ``visible``.

    Validated on construction; ``color`` may be given in any form :func:`parse_color` takes
    (``Appearance(color="steelblue")``) and is stored as a tuple of three floats.
    """

    color: tuple[float, float, float]
    opacity: float = 1.0
    visible: bool = True

    def __post_init__(self) -> None:
        # Normalise in place: a frozen dataclass is set through object.__setattr__.
        object.__setattr__(self, "color", parse_color(self.color, "color"))
        object.__setattr__(self, "opacity", parse_opacity(self.opacity, "opacity"))
        object.__setattr__(self, "visible", parse_visible(self.visible, "visible"))

    @property
    def hex(self) -> str:
        """The colour as ``"#rrggbb"`` (each component rounded to the nearest of 256 levels)."""
        return "#" + "".join(f"{round(c * 255):02x}" for c in self.color)

    @property
    def rgb_int(self) -> int:
        """The colour as the integer ``0xRRGGBB`` of :attr:`hex` (three.js's colour number)."""
        return int(self.hex[1:], 16)

    @property
    def linear_color(self) -> tuple[float, float, float]:
        """The colour in linear Rec.709 (what USD's ``displayColor`` and three.js's linear
        workflow take): each sRGB component ``c`` decoded by the sRGB transfer function of IEC
        61966-2-1, ``c / 12.92`` for ``c <= 0.04045``, else ``((c + 0.055) / 1.055) ** 2.4``."""
        return tuple(  # type: ignore[return-value]
            c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in self.color
        )

    @property
    def rgba(self) -> tuple[float, float, float, float]:
        """``(r, g, b, opacity)``, each in [0, 1]; what MJCF ``rgba`` and URDF ``<color>``
        take. (An invisible body keeps its opacity here; each consumer decides how to hide
        it.)"""
        return (*self.color, self.opacity)

    def to_dict(self) -> dict[str, Any]:
        """``{"color": "#rrggbb" (or [r, g, b] when the hex code would round it), "opacity",
        "visible"}``: the TOML keys of a body, readable back by :func:`appearance`."""
        exact = _from_hex(self.hex) == self.color
        return {
            "color": self.hex if exact else list(self.color),
            "opacity": self.opacity,
            "visible": self.visible,
        }


def default_appearance(index: int) -> Appearance:
    """The appearance of the ``index``-th body (0-based, in the model's order) that gives none
    of its own: ``BODY_PALETTE[index % len(BODY_PALETTE)]``, opaque, visible."""
    if not (isinstance(index, int) and not isinstance(index, bool)) or index < 0:
        raise ParameterError("default_index", index, "must be an integer >= 0")
    return _palette_entry(index % len(BODY_PALETTE))


@functools.cache
def _palette_entry(k: int) -> Appearance:
    """Palette entry ``k`` (immutable, so one instance serves every body of a big model)."""
    return Appearance(color=BODY_PALETTE[k])


def appearance(
    color: Any = None,
    opacity: Any = None,
    visible: Any = None,
    *,
    default_index: int = 0,
) -> Appearance:
    """An :class:`Appearance` from optional ``color``, ``opacity`` and ``visible``; each one
    left ``None`` takes its value from :func:`default_appearance` ``(default_index)``."""
    default = default_appearance(default_index)
    if color is None and opacity is None and visible is None:
        return default  # immutable: shared
    return Appearance(  # checked by Appearance itself
        color=default.color if color is None else color,
        opacity=default.opacity if opacity is None else opacity,
        visible=default.visible if visible is None else visible,
    )
