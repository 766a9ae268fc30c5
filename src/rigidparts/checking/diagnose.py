"""Per-link checks and diagnosed causes: the declared inertial against the engines' rules and
against the link's own geometry (:mod:`.geometry`).

Comparison. ``I_c`` is the geometry's inertia at the declared mass (density ``m / V``), about
the geometry's centre of mass, in link axes; ``I_d`` the declared one about the declared centre
of mass, in link axes (``R_LI I_LIcm_I R_LI^T``). The declared residual is
``r_0 = |I_d - I_c|_F / |I_c|_F``; the ratios are the declared principal moments over the
computed ones, both ascending.

Grades. error: an engine refuses the inertial (:func:`~.findings.mujoco_rule`,
:func:`~.findings.drake_rule`) or no body could have it (:func:`~.findings.project_rule`), or
a moving link has none. warning: implausible against the geometry: a principal moment ratio
outside ``[1/3, 3]`` or ``r_0 > 0.75`` (:data:`WARN_RATIO`), an implied density outside
``[100, 25000]`` kg/m^3 (:data:`DENSITY_RANGE`), a centre of mass farther from the geometry's
than the geometry's size (twice its radius of gyration ``sqrt(tr I_c / 2m)``). note: a ratio
outside ``[1/1.5, 1.5]`` or ``r_0 > 0.2``.

Causes. Each hypothesis H is a corrected value ``I_H`` (or mass) with its residual ``r_H``
against the geometry, measured like ``r_0``. A cause is stated only when the best hypothesis
fits much better than the declared value: ``r_H <= 0.2`` and ``r_H <= r_0 / 8``
(:data:`FIT`, :data:`MUCH_BETTER`), the declared value itself not fitting (``r_0 > 0.2``);
both residuals are reported. Hypotheses that fit within a factor 2 of the best are named with
it (the evidence does not tell them apart: a permutation of a diagonal tensor's numbers is a
quarter turn of its frame, and then the dropped rotation is named first). The hypotheses:

- ``power-of-ten``: one of the file's inertia numbers (or the mass) is ``10^k`` times its true
  value, ``k`` in ``+-1..+-3`` (a typo, a missing decimal point); for the mass, the implied
  density ``10^-k m / V`` must then be plausible;
- ``units``: the whole tensor is ``10^k`` too large (``k`` = 4: kg cm^2, 6: kg mm^2,
  7: g cm^2, 9: g mm^2 given as kg m^2; or 1e-6 the other way), or the centre of mass is in
  millimetres (``p / 1000`` matches the geometry's), or the mass is ``10^9`` off (a volume in
  mm^3);
- ``slot-order``: the six numbers of a full tensor in another order (all 719 permutations);
- ``about-origin``: the inertia given about the link origin, not the centre of mass:
  ``I_H = I_d - m (|c|^2 1 - c c^T)`` (parallel-axis theorem, ``c`` the centre of mass);
- ``no-parallel-axis``: the pieces' central inertias summed without their shifts:
  ``I_H = I_d + sum_i m_i (|d_i|^2 1 - d_i d_i^T)``, ``d_i`` from the centre of mass to piece i's;
- ``rotated-frame``: the declared principal moments match the computed ones
  (``|lambda_d - lambda_c| / |lambda_c| <= 0.05``) but the axes do not: the inertial frame's
  rotation is missing (the file gives none) or wrong;
- ``implausible-density``: a mass far from the geometry's at any common density (no
  power-of-ten explains it);
- ``missing-inertial``: a moving link without an inertial (pybullet gives it 1 kg and a unit
  inertia silently; MuJoCo refuses it; Drake takes it massless).

MJCF bodies without ``<inertial>``: under MuJoCo's default ``compiler inertiafromgeom="auto"``
the compiler computes their inertial from the geoms (:func:`~.geometry.mujoco_from_geoms`:
every geom, visual ones too unless ``discardvisual``, at its own ``mass`` or ``density``
(1000 kg/m^3 by default), overlaps *summed*). A note states that value, which is then
checked as a declared one (layout :data:`FROM_GEOMS`) against the union at one density; the
cause ``geoms-summed`` names what makes them differ (overlaps, visual geoms, mixed
densities). A moving body with no geom that gives mass is an error (MuJoCo refuses it).
Under ``inertiagrouprange`` or ``settotalmass`` the check does not say what MuJoCo computes.
"""

from __future__ import annotations

import functools
import math
from itertools import permutations
from typing import Any

import numpy as np

from ..errors import ParameterError
from ..formats.description import Inertial
from ..inertia import parallel_axis_shift, tensor_from_entries
from ..materials import list_materials
from ..polyhedron import MeshDefect
from .findings import (
    Cause,
    Finding,
    LinkRecord,
    drake_rule,
    mujoco_rule,
    principal_moments,
    project_rule,
)
from .geometry import _NO_VOLUME, LinkGeometry, mujoco_from_geoms

__all__ = [
    "DENSITY_RANGE",
    "FIT",
    "MUCH_BETTER",
    "NOTE_RATIO",
    "WARN_RATIO",
    "diagnose_link",
    "nearest_material",
]

#: Implied densities (kg/m^3) outside this range are implausible for any solid part.
DENSITY_RANGE = (100.0, 25000.0)
#: Principal moment ratio (declared / computed) beyond which a warning, a note.
WARN_RATIO = 3.0
NOTE_RATIO = 1.5
#: Relative Frobenius distances that make a warning, a note.
WARN_RESIDUAL = 0.75
NOTE_RESIDUAL = 0.2
#: A hypothesis is a probable cause when its residual is at most FIT and at most
#: 1 / MUCH_BETTER of the declared value's.
FIT = 0.2
MUCH_BETTER = 8.0
#: Principal moments that match to this (relative) make "rotated frame" the test.
EIGEN_MATCH = 0.05

#: Layouts in which the file writes the six numbers of a full tensor, in this slot order
#: ``ixx iyy izz ixy ixz iyz``.
FULL_LAYOUTS = ("urdf", "sdf", "mjcf-full")
_SLOTS = ("ixx", "iyy", "izz", "ixy", "ixz", "iyz")
#: Every order of the six slots but the identity.
_ORDERS = np.array([p for p in permutations(range(6)) if p != tuple(range(6))])
#: The layout of an MJCF body's inertial that MuJoCo computes from its geoms (no <inertial>).
FROM_GEOMS = "mjcf-geoms"
_UNIT_NAMES = {4: "kg cm^2", 6: "kg mm^2", 7: "g cm^2", 9: "g mm^2", -6: "kg m^2 read as kg mm^2"}


@functools.cache
def _table() -> tuple[tuple[str, ...], np.ndarray]:
    materials = list_materials()
    return tuple(m.name for m in materials), np.log([m.density for m in materials])


def nearest_material(density: float) -> tuple[str, float]:
    """The material of the table nearest ``density`` (in ratio) and its density."""
    names, logs = _table()
    best = int(np.argmin(np.abs(logs - math.log(density))))
    return names[best], float(math.exp(logs[best]))


def _slots(tensor: np.ndarray) -> np.ndarray:
    return np.array(
        [tensor[0, 0], tensor[1, 1], tensor[2, 2], tensor[0, 1], tensor[0, 2], tensor[1, 2]]
    )


def _tensors(slots: np.ndarray) -> np.ndarray:
    """(n, 6) slot values, in the order :data:`_SLOTS` -> (n, 3, 3) symmetric tensors
    (:func:`rigidparts.inertia.tensor_from_entries`)."""
    return np.array([tensor_from_entries(row, _SLOTS) for row in slots]).reshape(-1, 3, 3)


def _residual(candidate: np.ndarray, reference: np.ndarray) -> Any:
    """``|candidate - reference|_F / |reference|_F`` (over the last two axes)."""
    difference = candidate - reference
    return np.sqrt(np.sum(difference * difference, axis=(-2, -1)) / np.sum(reference * reference))


class Tree:
    """The joint graph of a description, indexed once (a 10 000-link file stays linear):
    each link's parent joint kind and its children through fixed joints."""

    def __init__(self, description: Any):
        self.parent_kind: dict[str, str] = {}
        self.welded: dict[str, list[str]] = {}
        for joint in description.joints.values():
            self.parent_kind[joint.child] = joint.kind
            if joint.kind == "fixed":
                self.welded.setdefault(joint.parent, []).append(joint.child)
        self.links = description.links

    def moving(self, name: str) -> bool:
        """Whether the link has a joint that is not fixed (as ``Description.moving``)."""
        kind = self.parent_kind.get(name)
        return kind is not None and kind != "fixed"

    def welded_mass(self, name: str) -> float:
        """The declared mass of the links welded (fixed joints) below ``name``."""
        total = 0.0
        stack = list(self.welded.get(name, ()))
        while stack:
            child = stack.pop()
            link = self.links.get(child)
            if link is not None and link.inertial is not None:
                mass = float(link.inertial.mass)
                total += mass if math.isfinite(mass) and mass > 0 else 0.0
            stack.extend(self.welded.get(child, ()))
        return total


def _rotation_angle(r: np.ndarray) -> float:
    return math.degrees(math.acos(max(-1.0, min(1.0, (np.trace(r) - 1.0) / 2.0))))


def _turn_between(a: np.ndarray, b: np.ndarray) -> float:
    """The least angle (deg) that turns the principal axes of ``a`` onto those of ``b``,
    moments paired in order: over the axes' signs; for two equal moments, the angle between
    the axes of the third (the others are any in their plane)."""
    _, axes_a = np.linalg.eigh(a)
    moments_b, axes_b = np.linalg.eigh(b)
    scale = max(float(np.max(np.abs(moments_b))), 1e-300)
    gaps = np.diff(moments_b) / scale
    if np.all(gaps <= 1e-6):
        return 0.0
    if np.any(gaps <= 1e-6):
        unique = 2 if gaps[0] <= 1e-6 else 0
        cosine = abs(float(axes_a[:, unique] @ axes_b[:, unique]))
        return math.degrees(math.acos(min(1.0, cosine)))
    best = 180.0
    for signs in ((1, 1, 1), (1, -1, -1), (-1, 1, -1), (-1, -1, 1)):
        turn = axes_b @ np.diag(signs) @ axes_a.T
        if np.linalg.det(turn) < 0:
            turn = axes_b @ np.diag([-v for v in signs]) @ axes_a.T
        best = min(best, _rotation_angle(turn))
    return best


def diagnose_link(
    description: Any, link: Any, geometry: LinkGeometry, tree: Tree | None = None
) -> LinkRecord:
    """The :class:`LinkRecord` of one link: declared values, validity, computed values,
    ratios, graded findings and diagnosed causes (module docstring). ``tree``: the
    description's :class:`Tree` (made here when not given; give it for many links)."""
    tree = tree if tree is not None else Tree(description)
    moving = tree.moving(link.name)
    inertial = link.inertial
    record = LinkRecord(
        name=link.name,
        source=link.source,
        moving=moving,
        declared=None,
        validity={},
        computed=None,
        ratios=None,
        notes=list(geometry.skipped),
        link=link,
        geometry=geometry,
    )
    absent = inertial is None or inertial.layout == "absent"
    if absent:
        _missing(description, link, tree, record, moving)
    if inertial is None and description.format == "mjcf":
        inertial = _from_geoms(description, link, tree, record, moving)
        absent = inertial is None
    if inertial is None:
        return record
    from_geoms = inertial.layout == FROM_GEOMS
    mass = float(inertial.mass)
    local = np.asarray(inertial.inertia, dtype=np.float64)
    with np.errstate(all="ignore"):
        in_link = np.asarray(inertial.inertia_in_link, dtype=np.float64)
    com = np.asarray(inertial.center_of_mass, dtype=np.float64)
    record.declared = {
        "mass": mass,
        "center_of_mass": com,
        "inertia": in_link,
        "principal_moments": principal_moments(in_link),
        "layout": inertial.layout,
        "given": sorted(inertial.given),
    }
    if description.format == "usd" and not {"mass", "inertia"} <= set(inertial.given):
        # UsdPhysics: what the MassAPI leaves out, the engine computes from the colliders
        record.notes.append(
            f"{inertial.source}: the MassAPI gives only {', '.join(sorted(inertial.given))}; "
            "the engine computes the rest from the collision geometry (not checked)"
        )
        return record
    full = inertial.layout in FULL_LAYOUTS
    record.validity = {
        "mujoco": mujoco_rule(
            mass,
            local,
            full=full,
            moving=moving,
            welded_mass=tree.welded_mass(link.name),
        ),
        "drake": drake_rule(mass, local),
        "rigidparts": project_rule(mass, local),
    }
    where = inertial.source
    refused = [name for name, reason in record.validity.items() if reason is not None]
    validity_finding: Finding | None = None
    if refused and not absent:
        impossible = record.validity["rigidparts"]
        engines = [n for n in ("mujoco", "drake") if record.validity[n] is not None]
        if impossible is not None:
            text = f"impossible inertial: {impossible}"
            if engines:
                text += f"; refused by {', '.join(_ENGINE_NAMES[n] for n in engines)}"
            validity_finding = Finding("impossible", "error", link.name, text, where)
        else:
            reasons = "; ".join(
                f"{_ENGINE_NAMES[n]}: {record.validity[n]}{_CONSEQUENCE[n]}" for n in engines
            )
            validity_finding = Finding("refused", "error", link.name, reasons, where)
        record.findings.append(validity_finding)
    if geometry.unit is None or absent:
        return record
    usable = math.isfinite(mass) and mass > 0.0
    volume = geometry.volume
    density = mass / volume if usable else math.nan
    computed_mp = geometry.at_mass(mass) if usable else geometry.at_density(1000.0)
    i_c = np.asarray(computed_mp.inertia)
    material = nearest_material(density) if usable else (None, None)
    record.computed = {
        "role": geometry.role,
        "volume": volume,
        "density": density,
        "material": material[0],
        "material_density": material[1],
        "mass": computed_mp.mass,
        "center_of_mass": computed_mp.center_of_mass,
        "inertia": i_c,
        "principal_moments": principal_moments(i_c),
        "accuracy": geometry.accuracy,
        "overlaps": [list(o) for o in geometry.overlaps],
        "at": "declared mass" if usable else "1000 kg/m^3 (the declared mass is not usable)",
    }
    if not (usable and np.all(np.isfinite(in_link))):
        return record
    size = 2.0 * math.sqrt(max(float(np.trace(i_c)), 0.0) / (2.0 * mass))
    lam_d = principal_moments(in_link)
    lam_c = principal_moments(i_c)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = lam_d / lam_c
    r0 = float(_residual(in_link, i_c))
    offset = float(np.linalg.norm(com - computed_mp.center_of_mass))
    record.ratios = {
        "principal_moments": ratios,
        "inertia_residual": r0,
        "center_of_mass_offset": offset / size if size > 0 else math.inf,
    }
    findings: list[Finding] = []
    low, high = DENSITY_RANGE
    mass_finding = None
    if not low <= density <= high:
        mass_finding = Finding(
            "mass-implausible",
            "warning",
            link.name,
            f"mass {mass:.6g} kg over the geometry's volume {volume:.6g} m^3 is "
            f"{density:.6g} kg/m^3, outside [{low:g}, {high:g}] (nearest material "
            f"{material[0]}, {material[1]:g} kg/m^3)",
            where,
        )
        findings.append(mass_finding)
    worst = float(np.max(np.abs(np.log(np.abs(ratios))))) if np.all(ratios != 0) else math.inf
    if not math.isfinite(worst):
        worst = math.inf
    inertia_finding = None
    grade = None
    if worst > math.log(WARN_RATIO) or r0 > WARN_RESIDUAL:
        grade = "warning"
    elif worst > math.log(NOTE_RATIO) or r0 > NOTE_RESIDUAL:
        grade = "note"
    if grade is not None:
        inertia_finding = Finding(
            "inertia-mismatch",
            grade,  # type: ignore[arg-type]
            link.name,
            (
                "the inertia MuJoCo computes from the geoms differs from the geometry's (their "
                "union) at that mass"
                if from_geoms
                else "inertia differs from the geometry's at the declared mass"
            )
            + f": principal moments {_g(lam_d)} vs {_g(lam_c)} kg m^2 (ratios {_g(ratios)}; "
            f"relative distance {r0:.3g})",
            where,
        )
        findings.append(inertia_finding)
    com_finding = None
    if size > 0 and offset > size:
        com_finding = Finding(
            "com-far",
            "warning",
            link.name,
            f"centre of mass {_g(com)} m is {offset:.6g} m from the geometry's "
            f"{_g(computed_mp.center_of_mass)} m (the geometry's size is {size:.6g} m)",
            where,
        )
        findings.append(com_finding)
    record.findings.extend(findings)
    if not record.findings:
        return record
    if from_geoms:
        cause = _geoms_cause(description, link, geometry)
    else:
        cause = _best_cause(
            inertial, geometry, mass, com, in_link, local, i_c, computed_mp, density, r0, size
        )
    target = None
    if cause is not None:
        by_kind = {
            "mass": mass_finding,
            "com": com_finding,
        }
        target = by_kind.get(cause.detail.get("on", "")) or validity_finding or inertia_finding
        target = target or mass_finding or com_finding
    elif mass_finding is not None:
        cause = Cause(
            "implausible-density",
            f"a mass far from the geometry's at any common density ({density:.6g} kg/m^3; no "
            "power of ten explains it)",
        )
        target = mass_finding
    if cause is not None and target is not None:
        index = record.findings.index(target)
        record.findings[index] = Finding(
            target.code, target.severity, target.link, target.message, target.source, cause
        )
    return record


_ENGINE_NAMES = {"mujoco": "MuJoCo", "drake": "Drake", "rigidparts": "rigidparts"}
_CONSEQUENCE = {
    "mujoco": " (MuJoCo refuses to compile the file)",
    "drake": " (Drake's parser warns and puts a solid water sphere of the mass in its place)",
}


def _g(values: Any) -> str:
    return "(" + ", ".join(f"{float(v):.6g}" for v in np.ravel(values)) + ")"


def _missing(description: Any, link: Any, tree: Tree, record: LinkRecord, moving: bool) -> None:
    """A moving link without an inertial (URDF, SDFormat: the formats whose engines do not
    weigh the geometry instead)."""
    if not moving or description.format not in ("urdf", "sdf"):
        return
    if tree.welded_mass(link.name) > 0.0:
        return
    if description.format == "urdf":
        text = (
            "moves but has no <inertial>: pybullet gives it 1 kg and a unit inertia silently, "
            "MuJoCo refuses it (mjMINVAL), Drake takes it as massless"
        )
    else:
        text = "moves but has no <inertial>: SDFormat's default, 1 kg and a unit inertia, is used"
    cause = Cause("missing-inertial", "missing inertial on a moving link")
    severity = "error" if description.format == "urdf" else "warning"
    record.findings.append(
        Finding("missing-inertial", severity, link.name, text, link.source, cause)  # type: ignore[arg-type]
    )


def _compiler(description: Any, setting: str) -> bool:
    """Whether the reader noted ``compiler <setting>`` (:mod:`rigidparts.formats.mjcf`)."""
    return any(note.startswith(f"compiler {setting}") for note in description.notes)


def _from_geoms(description: Any, link: Any, tree: Tree, record: LinkRecord, moving: bool) -> Any:
    """An MJCF body without ``<inertial>``: what MuJoCo computes from its geoms
    (:func:`~.geometry.mujoco_from_geoms`), as an :class:`Inertial` of layout
    :data:`FROM_GEOMS` at the sum's centre of mass in link axes, with a note saying it; None
    (and a note or a finding) when MuJoCo computes nothing or the check cannot tell what."""
    if _compiler(description, "inertiafromgeom='false'"):
        mp = None
    elif _compiler(description, "inertiagrouprange") or _compiler(description, "settotalmass"):
        record.notes.append(
            f"{link.source}: no <inertial>: MuJoCo computes it from the geoms, under compiler "
            "settings (inertiagrouprange, settotalmass) the check does not model: not checked"
        )
        return None
    else:
        try:
            mp = mujoco_from_geoms(link, _compiler(description, "discardvisual='true'"))
        except (ParameterError, MeshDefect, OSError) as exc:
            record.notes.append(
                f"{link.source}: no <inertial>: what MuJoCo computes from the geoms is not "
                f"known ({exc})"
            )
            return None
    if mp is None:
        if moving and tree.welded_mass(link.name) <= 0.0:
            record.findings.append(
                Finding(
                    "missing-inertial",
                    "error",
                    link.name,
                    "moves but has no <inertial> and no geom that gives it mass: MuJoCo "
                    "refuses it (mass and inertia of moving bodies must be larger than "
                    "mjMINVAL)",
                    link.source,
                    Cause("missing-inertial", "missing inertial on a moving link"),
                )
            )
        return None
    record.notes.append(
        f"{link.source}: no <inertial>: MuJoCo computes mass {mp.mass:.6g} kg, centre of mass "
        f"{_g(mp.center_of_mass)} m, principal moments {_g(mp.principal_moments)} kg m^2 from "
        "the geoms (compiler inertiafromgeom='auto': the geoms summed, overlaps included, each "
        "at its own density or mass)"
    )
    return Inertial(
        mass=mp.mass,
        pose=(np.eye(3), np.asarray(mp.center_of_mass)),
        inertia=np.asarray(mp.inertia),
        layout=FROM_GEOMS,
        source=link.source,
        given=frozenset(),
    )


def _geoms_cause(description: Any, link: Any, geometry: LinkGeometry) -> Cause | None:
    """Why MuJoCo's sum of the geoms differs from their union at one density."""
    reasons = []
    if geometry.overlaps:
        reasons.append("MuJoCo sums overlapping geoms (their common volume counts twice)")
    counted = [*link.collisions]
    if not _compiler(description, "discardvisual='true'"):
        counted += link.visuals
    if (
        link.collisions
        and any(g.kind not in _NO_VOLUME for g in link.visuals)
        and (len(counted) > len(link.collisions))
    ):
        reasons.append("MuJoCo also weighs the visual-only geoms (contype=conaffinity=0)")
    if len({(g.density, g.mass) for g in counted}) > 1 or any(g.mass is not None for g in counted):
        reasons.append("the geoms have different densities or masses of their own")
    if not reasons:
        return None
    return Cause(
        "geoms-summed",
        "; ".join(reasons) + ": give the body an <inertial> (the union's, as --fix writes)",
    )


def _best_cause(
    inertial: Any,
    geometry: LinkGeometry,
    mass: float,
    com: np.ndarray,
    in_link: np.ndarray,
    local: np.ndarray,
    i_c: np.ndarray,
    computed_mp: Any,
    density: float,
    r0: float,
    size: float,
) -> Cause | None:
    """The hypothesis that fits best, when it fits much better than the declared value."""
    rotation = np.asarray(inertial.pose[0], dtype=np.float64)
    candidates: list[tuple[float, Cause]] = []
    low, high = DENSITY_RANGE

    def add(residual: float, code: str, text: str, **detail: Any) -> None:
        if math.isfinite(residual):
            candidates.append((residual, Cause(code, text, residual, r0, detail)))

    slots = _slots(local)
    layout = inertial.layout
    n_slots = 6 if layout in FULL_LAYOUTS else 3
    # power of ten in one number of the file (all slots and exponents at once)
    exponents = np.array([-3, -2, -1, 1, 2, 3])
    rows = []
    for s in range(n_slots):
        if slots[s] != 0.0:
            for k in exponents:
                rows.append((s, int(k)))
    if rows:
        fixed = np.repeat(slots[None], len(rows), axis=0)
        for n, (s, k) in enumerate(rows):
            fixed[n, s] = slots[s] * 10.0**-k
        residuals = _residual(rotation @ _tensors(fixed) @ rotation.T, i_c)
        n = int(np.argmin(residuals))
        s, k = rows[n]
        add(
            float(residuals[n]),
            "power-of-ten",
            f"{_SLOTS[s]} = {float(slots[s])!r} is 10^{k} times the geometry's value "
            f"(a power-of-ten or missing-decimal typo: {fixed[n, s]:.6g} fits)",
            slot=_SLOTS[s],
            exponent=k,
        )
    # the whole tensor in other units (the mass plausible), or a power of ten on the mass
    # (the mass implausible): the two fit alike, the density tells them apart
    plausible = low <= density <= high
    for k in (-6, -3, -2, -1, 1, 2, 3, 4, 6, 7, 9):
        scaled = in_link * 10.0**-k
        residual = float(_residual(scaled, i_c))
        name = _UNIT_NAMES.get(k)
        if name is not None and plausible:
            add(
                residual,
                "units",
                f"the inertia is 10^{k} times the geometry's: written in {name} as kg m^2",
                exponent=k,
            )
        # a mass typo: the tensor fits the geometry at 10^k times the declared mass
        if not plausible and (abs(k) <= 3 or k == 9):
            shifted = density * 10.0**k
            if low <= shifted <= high:
                residual_mass = float(_residual(in_link, i_c * 10.0**k))
                code = "units" if k == 9 else "power-of-ten"
                text = (
                    f"the mass {mass!r} kg is 10^{-k} times what the inertia implies "
                    f"({mass * 10.0**k:.6g} kg: density {shifted:.6g} kg/m^3)"
                )
                if k == 9:
                    text += "; a volume in mm^3 taken for m^3"
                add(residual_mass, code, text, exponent=-k, on="mass")
    # slot order
    if n_slots == 6:
        orders = _ORDERS
        tensors = _tensors(slots[orders])
        tensors = rotation @ tensors @ rotation.T
        residuals = _residual(tensors, i_c)
        best = int(np.argmin(residuals))
        order = [_SLOTS[i] for i in orders[best]]
        add(
            float(residuals[best]),
            "slot-order",
            f"the six inertia numbers are in the wrong order: read as {' '.join(_SLOTS)}, they "
            f"fit the geometry as {' '.join(order)}",
            order=order,
        )
    # about the link origin rather than the centre of mass
    for point_name, c in (("declared", com), ("geometry's", computed_mp.center_of_mass)):
        about = in_link - parallel_axis_shift(mass, c)
        add(
            float(_residual(about, i_c)),
            "about-origin",
            "the inertia is about the link origin, not the centre of mass (declared = "
            f"central + m (|c|^2 1 - c c^T) with the {point_name} centre of mass)",
        )
    # parts summed without the parallel-axis shift
    if len(geometry.pieces) > 1 and not geometry.overlaps:
        c = computed_mp.center_of_mass
        shift = sum(
            parallel_axis_shift(density * p.volume, p.unit.center_of_mass - c)
            for p in geometry.pieces
        )
        add(
            float(_residual(in_link + shift, i_c)),
            "no-parallel-axis",
            "the pieces' inertias were summed about their own centres of mass, without the "
            "parallel-axis shift to the link's",
        )
    # rotated or missing inertial frame
    lam_d, lam_c = principal_moments(in_link), principal_moments(i_c)
    eigen_residual = float(np.linalg.norm(lam_d - lam_c) / np.linalg.norm(lam_c))
    if eigen_residual <= EIGEN_MATCH:
        angle = _turn_between(in_link, i_c)
        identity = np.allclose(rotation, np.eye(3), atol=0, rtol=0)
        text = (
            "the inertial frame's rotation is missing: the tensor is right in its principal "
            f"axes, which are turned {angle:.3g} deg from the link's"
            if identity
            else f"the inertial frame is rotated wrongly (by {angle:.3g} deg): the principal "
            "moments match the geometry's, the axes do not"
        )
        add(eigen_residual, "rotated-frame", text, angle_deg=angle)
    # centre of mass in millimetres
    if size > 0:
        far = float(np.linalg.norm(com - computed_mp.center_of_mass)) / size
        scaled = float(np.linalg.norm(com * 1e-3 - computed_mp.center_of_mass)) / size
        if far > 1.0 and scaled * MUCH_BETTER <= far and scaled <= FIT:
            candidates.append(
                (
                    0.0,
                    Cause(
                        "units",
                        "the centre of mass is in millimetres (its value / 1000 is the geometry's)",
                        scaled,
                        far,
                        {"on": "com"},
                    ),
                )
            )
    if not candidates:
        return None
    residual, cause = min(candidates, key=lambda item: item[0])
    if cause.detail.get("on") == "com":
        return cause
    passing = sorted(
        (item for item in candidates if item[0] <= FIT and item[0] * MUCH_BETTER <= r0),
        key=lambda item: item[0],
    )
    if r0 <= FIT or not passing:
        return None
    residual, cause = passing[0]
    # Hypotheses that fit about as well are said too: the evidence does not tell them apart.
    # A permutation of a diagonal tensor's numbers is a quarter turn of its frame: the
    # dropped rotation is named first then (the usual cause), the order second.
    rivals = [c for r, c in passing[1:] if c.code != cause.code and r <= 2.0 * residual + 1e-12]
    rotated = [c for c in rivals if c.code == "rotated-frame"]
    if cause.code == "slot-order" and rotated:
        rivals = [cause] + [c for c in rivals if c is not rotated[0]]
        cause = rotated[0]
    seen: set[str] = {cause.code}
    others = []
    for rival in rivals:
        if rival.code not in seen:
            seen.add(rival.code)
            others.append(rival)
    if others:
        text = (
            cause.text
            + "; or, as consistent with the evidence: "
            + "; or: ".join(o.text for o in others)
        )
        detail = {**cause.detail, "alternatives": [o.code for o in others]}
        cause = Cause(cause.code, text, cause.residual, cause.declared_residual, detail)
    return cause
