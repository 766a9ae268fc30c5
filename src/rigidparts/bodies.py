"""The public bodies: thin keyword-only front ends over :class:`~rigidparts.component.Component`.

Each class only states its signature and documentation; the closed forms live in
``rigidparts.shapes.<shape>`` and everything shared (units, material, axis, frames) in
:mod:`rigidparts.component`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from .component import DEFAULT_MATERIAL, Component, _cached, _readonly
from .shapes import box as _box
from .shapes import cone as _cone

__all__ = ["Box", "Cone"]

Length = float | str | Any  # a float in m, a string with units, or a pint Quantity


class Box(Component):
    """A homogeneous box (rectangular bar), solid or with a centred rectangular hole.

    Parameters (keyword-only; lengths in m, or strings / pint Quantities with units)
    ----------
    length : the extent along ``axis``, from frame_a to frame_b (> 0).
    width, height : the outer cross-section (> 0). ``height`` lies along
        :attr:`height_direction`, ``width`` along :attr:`width_direction`.
    inner_width, inner_height : the hole through the whole length (0 = solid; at most the
        outer size; not both equal to it).
    axis : any non-zero 3-vector in frame_a; normalised.
    rotate90 : turn the cross-section 90 degrees about the axis.
    height_direction : an explicit height direction (not parallel to the axis), replacing the
        rule of :mod:`rigidparts.frames`.
    material : a name from the material table (default ``"steel"``, 7860 kg/m^3).
    density : kg/m^3 or with units (``"7.85 g/cm^3"``); replaces the material (not both).
    extra_frames : offsets along the axis of extra frames ``frame_c1``, ``frame_c2``, ...

    With the canonical axis +x: height along +y, width along +z; centre of mass at
    ``(L/2) e_axis``; closed forms and the corrected ``I_yy``/``I_zz`` in
    :mod:`rigidparts.shapes.box`.
    """

    shape = "box"
    kernel = _box

    def __init__(
        self,
        *,
        length: Length = 1.0,
        width: Length = 0.1,
        height: Length = 0.2,
        inner_width: Length = 0.0,
        inner_height: Length = 0.0,
        axis: Any = (1, 0, 0),
        rotate90: bool = False,
        height_direction: Any = None,
        material: Any = DEFAULT_MATERIAL,
        density: Any = None,
        extra_frames: Iterable[Length] = (),
    ) -> None:
        self._build(
            {
                "length": length,
                "width": width,
                "height": height,
                "inner_width": inner_width,
                "inner_height": inner_height,
            },
            axis=axis,
            rotate90=rotate90,
            height_direction=height_direction,
            material=material,
            density=density,
            extra_frames=extra_frames,
        )

    @property
    def width(self) -> float:
        """Outer width along :attr:`width_direction`, m."""
        return self._dimensions["width"]

    @property
    def height(self) -> float:
        """Outer height along :attr:`height_direction`, m."""
        return self._dimensions["height"]

    @property
    def inner_width(self) -> float:
        """Width of the hole, m (0 when solid)."""
        return self._dimensions["inner_width"]

    @property
    def inner_height(self) -> float:
        """Height of the hole, m (0 when solid)."""
        return self._dimensions["inner_height"]

    @property
    def rotate90(self) -> bool:
        """Whether the cross-section is turned 90 degrees about the axis."""
        return self._rotate90

    @_cached
    def height_direction(self) -> np.ndarray:
        """``h``: the unit vector along which the height lies, in frame_a."""
        return _readonly(np.array(self._height_width[:3]))

    @_cached
    def width_direction(self) -> np.ndarray:
        """``w = e_axis x h``: the unit vector along which the width lies, in frame_a."""
        return _readonly(np.array(self._height_width[3:]))

    def parameters(self) -> dict[str, Any]:
        out = super().parameters()
        out["rotate90"] = self._rotate90
        if self._explicit_height:  # the direction before rotate90 turned it: h = -w_turned
            out["height_direction"] = (
                [-v for v in self._height_width[3:]]
                if self._rotate90
                else list(self._height_width[:3])
            )
        return out


class Cone(Component):
    """A homogeneous cone or frustum, solid or with a coaxial frustum-shaped bore.

    Parameters (keyword-only; lengths in m, or strings / pint Quantities with units)
    ----------
    length : the extent along ``axis``, from frame_a to frame_b (> 0).
    radius_a, radius_b : outer radii at frame_a and frame_b (>= 0; one may be 0: pointed).
    inner_radius_a, inner_radius_b : the bore's radii at frame_a and frame_b (0 = solid; at
        most the outer radius at the same end; the body must keep some volume).
    axis : any non-zero 3-vector in frame_a; normalised.
    material : a name from the material table (default ``"steel"``, 7860 kg/m^3).
    density : kg/m^3 or with units (``"7.85 g/cm^3"``); replaces the material (not both).
    extra_frames : offsets along the axis of extra frames ``frame_c1``, ``frame_c2``, ...

    Centre of mass on the axis at ``L_com`` (a solid pointed cone: ``L/4`` from its base);
    cancellation-free closed forms in :mod:`rigidparts.shapes.cone`.
    """

    shape = "cone"
    kernel = _cone

    def __init__(
        self,
        *,
        length: Length = 1.0,
        radius_a: Length = 0.4,
        radius_b: Length = 0.1,
        inner_radius_a: Length = 0.0,
        inner_radius_b: Length = 0.0,
        axis: Any = (1, 0, 0),
        material: Any = DEFAULT_MATERIAL,
        density: Any = None,
        extra_frames: Iterable[Length] = (),
    ) -> None:
        self._build(
            {
                "length": length,
                "radius_a": radius_a,
                "radius_b": radius_b,
                "inner_radius_a": inner_radius_a,
                "inner_radius_b": inner_radius_b,
            },
            axis=axis,
            material=material,
            density=density,
            extra_frames=extra_frames,
        )

    @property
    def radius_a(self) -> float:
        """Outer radius at frame_a, m."""
        return self._dimensions["radius_a"]

    @property
    def radius_b(self) -> float:
        """Outer radius at frame_b, m."""
        return self._dimensions["radius_b"]

    @property
    def inner_radius_a(self) -> float:
        """Bore radius at frame_a, m (0 when solid)."""
        return self._dimensions["inner_radius_a"]

    @property
    def inner_radius_b(self) -> float:
        """Bore radius at frame_b, m (0 when solid)."""
        return self._dimensions["inner_radius_b"]
