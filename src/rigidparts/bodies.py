"""The public bodies: explicit keyword-only front ends over :class:`.component.Component`.

Each class states only its signature and documentation (IDEs and documentation need real
signatures) and names its specification in :mod:`rigidparts.shapes`; the closed forms, rules,
frames and meshes live there and everything shared in :mod:`rigidparts.component`.
``tests/test_shapes.py`` checks that every class's signature and defaults equal its
specification's. Each dimension also reads as an attribute (``cone.radius_a``, SI).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from .component import Component, _cached, _readonly
from .errors import ParameterError
from .materials import DEFAULT_MATERIAL
from .shapes import SHAPES

__all__ = ["Box", "Cone", "body_class"]

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
    density : kg/m^3 or with units (``"7.85 g/cm^3"``); replaces the material.
    mass : kg or with units (``"2.5 kg"``); the density is then mass / volume. At most one of
        material, density and mass is given.
    extra_frames : offsets along the axis of extra frames ``frame_c1``, ``frame_c2``, ...

    With the canonical axis +x: height along +y, width along +z; centre of mass at
    ``(L/2) e_axis``; closed forms and the corrected ``I_yy``/``I_zz`` in
    :mod:`rigidparts.shapes.box`.
    """

    spec = SHAPES["box"]

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
        mass: Any = None,
        extra_frames: Iterable[Length] = (),
    ) -> None:
        self._build(locals())

    @property
    def rotate90(self) -> bool:
        """Whether the cross-section is turned 90 degrees about the axis."""
        return self._rotate90

    @_cached
    def height_direction(self) -> np.ndarray:
        """``h``: the unit vector along which the height lies, in frame_a."""
        return _readonly(np.array(self._frame[3:6]))

    @_cached
    def width_direction(self) -> np.ndarray:
        """``w = e_axis x h``: the unit vector along which the width lies, in frame_a."""
        return _readonly(np.array(self._frame[6:9]))


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
    density : kg/m^3 or with units (``"7.85 g/cm^3"``); replaces the material.
    mass : kg or with units; the density is then mass / volume. At most one of material,
        density and mass is given.
    extra_frames : offsets along the axis of extra frames ``frame_c1``, ``frame_c2``, ...

    Centre of mass on the axis at ``L_com`` (a solid pointed cone: ``L/4`` from its base);
    cancellation-free closed forms in :mod:`rigidparts.shapes.cone`.
    """

    spec = SHAPES["cone"]

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
        mass: Any = None,
        extra_frames: Iterable[Length] = (),
    ) -> None:
        self._build(locals())


def body_class(shape: str, parameter: str = "shape") -> type[Component]:
    """The public class of shape ``shape`` (``"box"`` -> :class:`Box`); ParameterError naming
    ``parameter`` and the known shapes otherwise."""
    classes = {cls.spec.name: cls for cls in _public_classes()}
    try:
        return classes[shape]
    except (KeyError, TypeError):
        raise ParameterError(parameter, shape, f"must be one of {', '.join(classes)}") from None


def _public_classes() -> list[type[Component]]:
    """Every public body class, in registry order (each shape has exactly one)."""
    found = {cls.spec.name: cls for cls in globals().values() if _is_body_class(cls)}
    return [found[name] for name in SHAPES if name in found]


def _is_body_class(value: Any) -> bool:
    return isinstance(value, type) and issubclass(value, Component) and "spec" in vars(value)
