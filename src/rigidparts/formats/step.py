"""A STEP assembly as a :class:`~rigidparts.Model`: each solid a body, placed.

Every solid of the file (:mod:`rigidparts.cad.step`: the XCAF labels' names and the
assembly placements) becomes a :class:`~rigidparts.StepBody` of that solid alone, in its own
frame, exact; a ``fixed`` joint from the world places its frame_a where the assembly puts it
(``x_file = R x_local + p``). A model has one root: the first solid is fixed to the world
at its placement ``X_1``, every other solid ``i`` to the first at ``X_1^-1 X_i``. The model's mass
properties (:meth:`Model.mass_properties`) are then those of ``rp.StepBody(step=path)``, the
file as one body. Solid names become body names (characters other than letters, digits,
``_`` and ``-`` replaced by ``_``; made unique). ``as_one_body=True`` (the command line's
``--as-one-body``) gives instead one body, the assembly fused (``rp.StepBody(step=path)``),
named after the file and fixed to the world at the file's origin.

The assembly is loaded straight into a Model (not through the neutral
:class:`~rigidparts.formats.description.Description` of the robot formats): its bodies keep
their exact B-rep integrals instead of declared inertials.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from ..errors import ModelError, ParameterError
from ..transforms import compose, invert

__all__ = ["load_model", "model_name"]

def model_name(name: str, used: set[str]) -> str:
    """``name`` as a valid, unused body name (added to ``used``)."""
    from ..cad.step import NOT_NAME

    text = NOT_NAME.sub("_", name) or "solid"
    if not (text[0].isalpha() or text[0] == "_"):
        text = f"_{text}"
    if text == "world":
        text = "world_"
    out, k = text, 1
    while out in used:
        k += 1
        out = f"{text}_{k}"
    used.add(out)
    return out


def load_model(
    path: str | os.PathLike[str],
    *,
    units: str | None = None,
    material: Any = None,
    search_path: Any = (),
    as_one_body: bool = False,
) -> Any:
    """The :class:`~rigidparts.Model` of STEP file ``path``: one body per solid, each fixed to
    the world at its assembly placement (``as_one_body``: one body, the solids fused).
    ``units`` when the file states none; ``material`` a material for all, or ``{solid or
    part name: material or density}`` (``*`` for the others) or that map as text
    (``"plate=aluminium,*=steel"``); default steel. ``search_path`` is accepted for
    :func:`rigidparts.formats.load_model`'s signature (a STEP file names no other files).
    ModelError naming the file and the rule."""
    from ..bodies import StepBody
    from ..cad.step import read_step
    from ..materials import DEFAULT_MATERIAL
    from ..model import Model

    del search_path
    shown = os.fspath(path)
    try:
        found = read_step(path, units)
    except ParameterError as exc:
        raise ModelError(exc.parameter, exc.value, exc.rule) from None
    stem = os.path.splitext(os.path.basename(shown))[0]
    model = Model(name=model_name(stem, set()))
    used: set[str] = set()
    per_solid = isinstance(material, Mapping) or (isinstance(material, str) and "=" in material)
    from ..shapes.step_body import material_kind  # a material or a density, as the body's

    one = DEFAULT_MATERIAL if material is None else material
    for_all = {material_kind(one): one}
    if as_one_body:  # the solids fused: the file's whole mass properties, at its origin
        chosen = for_all
        if per_solid:
            key = "materials" if isinstance(material, str) else "material"  # text or mapping
            chosen = {key: material}
        try:
            whole = StepBody(step=path, units=units, **chosen)
        except ParameterError as exc:
            raise ModelError(exc.parameter, exc.value, f"{exc.rule} (in {shown})") from None
        name = model_name(stem, used)
        model.add_body(name, whole)
        model.add_joint(model_name(f"world_to_{name}", used), "fixed", "world", name)
        return model
    entries: dict[str, Any] = {}
    if per_solid:  # looked up as rp.StepBody does: solids, parts, '*'
        from ..shapes.step_body import solid_materials

        dims = {"step": path, "units": units, "solid": None, "materials": None}
        try:
            looked_up = solid_materials(dims, material, keyword="material")
            entries = {s.name: value for s, _, value in looked_up}
        except ParameterError as exc:
            raise ModelError(exc.parameter, exc.value, f"{exc.rule} (in {shown})") from None
    root: tuple[str, Any] | None = None
    for solid in found.solids:
        chosen = for_all
        if entries:
            value = entries[solid.name]
            chosen = {material_kind(value): value}
        try:
            body = StepBody(step=path, units=units, solid=solid.name, **chosen)
        except ParameterError as exc:
            raise ModelError(exc.parameter, exc.value, f"{exc.rule} (in {shown})") from None
        name = model_name(solid.name, used)
        model.add_body(name, body)
        placement = (solid.rotation, solid.position)
        if root is None:  # the first solid is the root, fixed to the world
            root = (name, placement)
            parent, pose = "world", placement
        else:  # the others fixed to it: X_root^-1 X_solid
            parent, pose = root[0], compose(invert(root[1]), placement)
        model.add_joint(
            model_name(f"{parent}_to_{name}", used),
            "fixed",
            parent,
            name,
            position=pose[1].tolist(),
            rotation=pose[0].tolist(),
        )
    if not found.solids:  # read_step refuses this before; kept for the model's sake
        raise ModelError("path", shown, "holds no solids")
    return model
