"""RigidBody: a body given by its mass properties (MapleSim's "Rigid Body"), tier 2.

What a robot description file declares for a link, or what a data sheet gives: a mass, the
centre of mass and the inertia about it, both expressed in some frame F placed in frame_a.
Nothing is computed from geometry; everything is validated as for every body (the mass
positive, finite and normal; the tensor symmetric, finite, positive definite and obeying the
triangle inequality within :data:`rigidparts.inertia.INERTIA_TOLERANCE`, by
:class:`rigidparts.MassProperties`' one invalidity report).

Parameters (kinds ``vector``, ``tensor``, ``pose``: read here, with units where they are
strings or pint Quantities):

- ``center_of_mass``: ``p_FoBcm_F``, the centre of mass in F (three lengths, m; a string
  ``"0, 0, 25 mm"`` too);
- ``inertia``: ``I_BBcm_F``, about the centre of mass, in F's axes (kg m^2): a symmetric 3x3
  matrix, or the six entries ``(ixx, iyy, izz, ixy, ixz, iyz)`` (MuJoCo's ``fullinertia`` order;
  URDF names the same entries but lists them ixx ixy ixz iyy iyz izz; the tensor's
  own entries: ``ixy = -integral of rho x y dV``);
- ``frame``: ``X_AF``, F in frame_a: None (F is frame_a), a position ``(x, y, z)``, or a
  mapping with ``position`` and ``rotation`` (``R_AF``, a 3x3 rotation, rows) or ``rpy``
  (URDF's roll, pitch, yaw about the fixed x, y, z axes, rad or with units).

The body's own results are in frame_a, as for every body: ``p_AoBcm_A = p_AoFo_A + R_AF
p_FoBcm_F`` and ``I_BBcm_A = R_AF I_BBcm_F R_AF^T`` (:meth:`MassProperties.placed`). The
canonical frame C is frame_a; there is no axis, no frame_b, no volume and no density
(``volume`` and ``density`` are None); ``mass`` is the one way to give the amount of matter
(default 1 kg, as MapleSim's). Named frames through ``frames=``.

``geometry`` (kind ``geometry``, Python and model files only): the shapes that draw the body
(a robot file's visual or collision geometry), a sequence of ``(body, X_AG)``: any rigidparts
body placed by the pose of its frame_a in frame_a of this one. They are drawn and exported;
their own mass properties are not used (the given ones are the body's).

Mesh: the geometry's meshes, placed; without geometry, the equivalent ellipsoid, the
homogeneous solid ellipsoid with the same mass, centre of mass and inertia (unique: its
semi-axes are ``a_1^2 = 5 (I_2 + I_3 - I_1) / (2 m)`` and cyclically, along the principal
axes), which is what a viewer shows for an inertia.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..errors import ParameterError
from ..inertia import MassProperties, tensor_from_entries
from ._spec import Param, Rule, ShapeSpec, register, rule_codes

__all__ = [
    "SPEC",
    "check",
    "equivalent_ellipsoid",
    "general_form",
    "read_frame",
    "read_geometry",
    "read_inertia",
    "read_values",
    "read_vector",
]

RULES = (
    Rule(
        "center_of_mass",
        "must be three finite lengths (x, y, z) in frame (m, or with units, e.g. '0, 0, 25 mm')",
    ),
    Rule(
        "inertia",
        "must be a symmetric 3x3 matrix or six numbers (ixx, iyy, izz, ixy, ixz, iyz), finite, "
        "kg m^2 (or with units), about the centre of mass in frame's axes",
    ),
    Rule(
        "frame",
        "must be None, a position (x, y, z), or a mapping with 'position' and either 'rotation' "
        "(3x3 rows) or 'rpy' (roll, pitch, yaw)",
    ),
    Rule(
        "geometry",
        "must be a sequence of (body, pose) pairs: a rigidparts body and the pose of its frame_a "
        "(a position, or a mapping of 'position' and 'rotation' or 'rpy')",
    ),
)
COM_VALID, INERTIA_VALID, FRAME_VALID, GEOMETRY_VALID = rule_codes(RULES)


def _numbers(value: Any, kind: str, name: str) -> list[float]:
    """The numbers of a sequence or of a comma- or space-separated string, each in SI
    (``kind``: a :mod:`rigidparts.units` kind, or ``"inertia"``, kg m^2)."""
    from ..units import registry, to_si

    if isinstance(value, str):
        if "," in value:  # "0 mm, 0 mm, 25 mm" or "0, 0, 25 mm": each item may hold a unit
            items: list[Any] = [item.strip() for item in value.split(",")]
        else:  # "0 0 0.025"
            items = value.split()
        # "0, 0, 25 mm" and "0 0 25 mm": a unit after the last number applies to all of them
        *numbers, last = items or [""]
        parts = last.split()
        if len(parts) == 2 and _is_number(parts[0]) and all(_is_number(i) for i in numbers):
            items = [f"{item} {parts[1]}" for item in numbers] + [last]
        elif items and not _is_number(last) and all(_is_number(i) for i in numbers):
            items = [f"{item} {last}" for item in numbers]
    else:
        items = list(np.asarray(value, dtype=object).reshape(-1))
    if kind != "inertia":
        return [to_si(name, item, kind) for item in items]  # type: ignore[arg-type]
    out = []
    for item in items:
        if isinstance(item, str) and _is_number(item):
            out.append(float(item))
        elif isinstance(item, str) or hasattr(item, "magnitude"):
            quantity = registry().Quantity(item) if isinstance(item, str) else item
            out.append(float(quantity.to("kg * m**2").magnitude))
        else:
            out.append(float(item))
    return out


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def read_vector(value: Any, name: str = "center_of_mass") -> np.ndarray:
    """Three finite lengths (m) from a sequence or a string; ParameterError naming ``name``."""
    try:
        xyz = _numbers(value, "length", name)
    except (TypeError, ValueError) as exc:
        if isinstance(exc, ParameterError):
            raise
        raise ParameterError(name, value, RULES[COM_VALID - 1].text) from None
    if len(xyz) != 3 or not all(math.isfinite(v) for v in xyz):
        raise ParameterError(name, value, RULES[COM_VALID - 1].text)
    return np.array(xyz)


def read_inertia(value: Any, name: str = "inertia") -> np.ndarray:
    """The symmetric 3x3 tensor (kg m^2) from a 3x3 matrix or the six entries (ixx, iyy,
    izz, ixy, ixz, iyz); ParameterError naming ``name`` for anything else, including a 3x3
    matrix that is not symmetric (to within 1e-12 of its largest entry: a typo, not rounding)
    or a value that is not finite. Physical validity is :class:`MassProperties`' to check."""
    rule = RULES[INERTIA_VALID - 1].text
    try:
        entries = _numbers(value, "inertia", name)
    except ParameterError:
        raise
    except Exception:  # pint's and numpy's many kinds of "not a number"
        raise ParameterError(name, value, rule) from None
    if not all(math.isfinite(v) for v in entries):
        raise ParameterError(name, value, rule)
    if len(entries) == 6:
        return tensor_from_entries(entries, ("ixx", "iyy", "izz", "ixy", "ixz", "iyz"))
    if len(entries) != 9:
        raise ParameterError(name, value, rule)
    tensor = np.array(entries).reshape(3, 3)
    scale = np.abs(tensor).max()
    if np.abs(tensor - tensor.T).max() > 1e-12 * scale:
        raise ParameterError(name, value, "must be symmetric (I_xy = I_yx, ...): " + rule)
    return 0.5 * (tensor + tensor.T)


def read_frame(value: Any, name: str = "frame") -> tuple[np.ndarray, np.ndarray]:
    """``X_AF = (R_AF, p_AoFo_A)`` from None, a position, or ``{"position", "rotation" |
    "rpy"}``; ParameterError naming ``name`` (or ``name.rotation`` ...) otherwise."""
    from ..transforms import as_rotation, rpy_to_matrix

    if value is None:
        return np.eye(3), np.zeros(3)
    if not isinstance(value, Mapping):
        try:
            return np.eye(3), read_vector(value, f"{name}.position")
        except ParameterError:
            raise ParameterError(name, value, RULES[FRAME_VALID - 1].text) from None
    unknown = set(value) - {"position", "rotation", "rpy"}
    if unknown or ("rotation" in value and "rpy" in value):
        raise ParameterError(name, value, RULES[FRAME_VALID - 1].text)
    position = read_vector(value.get("position", (0.0, 0.0, 0.0)), f"{name}.position")
    if "rpy" in value:
        angles = _numbers(value["rpy"], "angle", f"{name}.rpy")
        if len(angles) != 3 or not all(math.isfinite(a) for a in angles):
            raise ParameterError(f"{name}.rpy", value["rpy"], "must be three finite angles")
        return rpy_to_matrix(np.array(angles)), position
    if "rotation" in value:
        return as_rotation(value["rotation"], f"{name}.rotation"), position
    return np.eye(3), position


def _plain_frame(value: Any) -> dict[str, Any] | None:
    """The frame as plain SI lists (``position``, ``rotation`` rows), None for frame_a."""
    if value is None:
        return None
    rotation, position = read_frame(value)
    return {"position": position.tolist(), "rotation": rotation.tolist()}


def read_geometry(value: Any, name: str = "geometry") -> tuple[tuple[Any, Any], ...]:
    """``((body, X_AG), ...)`` from a sequence of pairs (a body: anything with ``mesh`` and
    ``mass_properties``; a pose as :func:`read_frame` takes it); ParameterError otherwise."""
    if isinstance(value, str | bytes) or not hasattr(value, "__iter__"):
        raise ParameterError(name, value, RULES[GEOMETRY_VALID - 1].text)
    out = []
    for i, item in enumerate(value):
        if isinstance(item, str | bytes) or not hasattr(item, "__len__") or len(item) != 2:
            raise ParameterError(f"{name}[{i}]", item, RULES[GEOMETRY_VALID - 1].text)
        body, pose = item
        if not (hasattr(body, "mesh") and hasattr(body, "mass_properties")):
            raise ParameterError(f"{name}[{i}]", item, RULES[GEOMETRY_VALID - 1].text)
        out.append((body, read_frame(pose, f"{name}[{i}]")))
    return tuple(out)


def _plain_geometry(value: Any) -> list[dict[str, Any]]:
    """Each placed body as its plain parameters with ``position`` and ``rotation``."""
    return [
        {**body.to_dict()["parameters"], "position": p.tolist(), "rotation": r.tolist()}
        for body, (r, p) in read_geometry(value)
    ]


def check(center_of_mass: Any, inertia: Any, frame: Any, geometry: Any) -> int:
    """0, or the code of the first rule of :data:`RULES` the values break (Python only: a
    tier-2 shape is never compiled). :func:`read_values` says more precisely what is wrong."""
    for code, reader, value in (
        (COM_VALID, read_vector, center_of_mass),
        (INERTIA_VALID, read_inertia, inertia),
        (FRAME_VALID, read_frame, frame),
        (GEOMETRY_VALID, read_geometry, geometry),
    ):
        try:
            reader(value)
        except ParameterError:
            return code
    return 0


def read_values(center_of_mass: Any, inertia: Any, frame: Any, geometry: Any) -> None:
    """Read every value; the first bad one's own ParameterError, which names the parameter
    (``frame.rotation``, ``geometry[2]``, ...) and what is wrong with it (a matrix not
    symmetric, a rotation not orthonormal) more precisely than its rule in :data:`RULES`
    (the shape's ``explain``: the constructor calls it when :func:`check` refuses)."""
    read_vector(center_of_mass)
    read_inertia(inertia)
    read_frame(frame)
    read_geometry(geometry)


def general_form(dimensions: Mapping[str, Any], mass: float) -> tuple[None, MassProperties]:
    """``(None, MassProperties in frame_a)``: no volume; ``mass`` (kg) at ``p_AoBcm_A = p_AoFo_A
    + R_AF p_FoBcm_F``, ``I_BBcm_A = R_AF I_BBcm_F R_AF^T`` (module docstring). A tensor that
    is not physical is a ParameterError naming ``inertia`` (the rule of
    :func:`rigidparts.inertia.invalidity_report`)."""
    r_af, p_af = read_frame(dimensions["frame"])
    com_f = read_vector(dimensions["center_of_mass"])
    tensor_f = read_inertia(dimensions["inertia"])
    try:
        in_f = MassProperties(mass, com_f, tensor_f)
    except ParameterError as exc:
        shown = dimensions["inertia"] if exc.parameter == "inertia" else exc.value
        raise ParameterError(exc.parameter, shown, exc.rule) from None
    return None, in_f.placed(r_af, p_af)


def equivalent_ellipsoid(mass: float, moments: np.ndarray, smallest: float = 1e-9) -> np.ndarray:
    """The semi-axes (m) of the homogeneous solid ellipsoid of ``mass`` (kg) whose principal
    moments are ``moments`` (kg m^2): ``a_i^2 = 5 (I_j + I_k - I_i) / (2 m)`` (from
    ``I_1 = m (a_2^2 + a_3^2) / 5`` and cyclically). A semi-axis that the triangle inequality's
    equality makes zero is drawn as ``smallest`` of the largest (a flat body stays visible)."""
    i1, i2, i3 = (float(m) for m in moments)
    squares = np.array([i2 + i3 - i1, i1 + i3 - i2, i1 + i2 - i3]) * 2.5 / mass
    axes = np.sqrt(np.clip(squares, 0.0, None))
    return np.maximum(axes, smallest * axes.max())


def mesh(dimensions: Mapping[str, Any], sections: int) -> Any:
    """The geometry's meshes placed in frame_a (``p_A = R_AG p_G + p_AoGo_A``), or without
    geometry the equivalent ellipsoid (:func:`equivalent_ellipsoid`): a unit sphere of about
    ``sections`` segments scaled along the principal axes and centred on the centre of mass.
    ``dimensions`` carries the body's ``mass`` besides its parameters."""
    from ._meshing import trimesh_module

    trimesh = trimesh_module()
    placed = read_geometry(dimensions["geometry"])
    if placed:
        parts = []
        for body, (rotation, position) in placed:
            own = body.mesh(sections)
            vertices = np.asarray(own.vertices) @ rotation.T + position
            parts.append(trimesh.Trimesh(vertices, np.asarray(own.faces), process=False))
        return trimesh.util.concatenate(parts)
    _, props = general_form(dimensions, dimensions["mass"])
    axes = equivalent_ellipsoid(props.mass, props.principal_moments)
    # an icosphere is closed and consistently wound; about `sections` segments around
    subdivisions = min(max(round(math.log2(max(sections, 4) / 4)), 1), 5)
    sphere = trimesh.creation.icosphere(subdivisions=subdivisions)
    points = (sphere.vertices * axes) @ props.principal_axes.T + props.center_of_mass
    return trimesh.Trimesh(points, sphere.faces, process=False)


SPEC = register(
    ShapeSpec(
        name="rigid_body",
        summary="a body given by its mass, centre of mass and inertia (no geometry)",
        params=(
            Param(
                "center_of_mass",
                (0.0, 0.0, 0.0),
                "centre of mass in frame (m)",
                "vector",
                plain=lambda value: read_vector(value).tolist(),
            ),
            Param(
                "inertia",
                (0.001, 0.001, 0.001, 0.0, 0.0, 0.0),
                "inertia about the centre of mass in frame's axes (kg m^2): ixx, iyy, izz, "
                "ixy, ixz, iyz or a 3x3 matrix",
                "tensor",
                option="--inertia-tensor",  # --inertia is the viewer's (draw the ellipsoid)
                plain=lambda value: read_inertia(value).tolist(),
            ),
            Param(
                "frame",
                None,
                "the frame F of center_of_mass and inertia in frame_a: a position, or "
                "{position, rotation | rpy} (default: frame_a)",
                "pose",
                option="--inertial-frame",  # --frame names extra frames
                plain=_plain_frame,
            ),
            Param(
                "geometry",
                (),
                "shapes that draw the body: (body, pose) pairs (not its mass model)",
                "geometry",
                plain=_plain_geometry,
                command_line=False,
            ),
        ),
        rules=RULES,
        check=check,
        explain=read_values,
        general_form=general_form,
        axis=False,
        end_frame=None,
        extra_frames="named",
        mesh=mesh,
        mass_only=True,
    )
)
