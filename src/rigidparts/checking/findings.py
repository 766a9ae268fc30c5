"""The structured results of ``check``: validity rules, findings, per-link records, reports.

Validity of a declared inertial, by three rules (each a function returning None when the
inertial passes, else the reason in words):

- :func:`mujoco_rule` (MuJoCo's compiler, strict, measured on MuJoCo 3.x/4.x): the moments
  are the eigenvalues of the tensor (a diagonal tensor: its diagonal as given; negative mass
  and diagonal moments clamped to 0, as MuJoCo 4 does); each must be
  at least :data:`MJ_EPS` = 1e-14 when the file gives a full tensor (URDF, SDFormat, MJCF
  ``fullinertia``: "inertia must have positive eigenvalues", a tensor of zeros excepted), and
  ``A + B >= C`` exactly, without tolerance ("inertia must satisfy A + B >= C"); a moving body
  needs mass and every moment at least ``mjMINVAL`` = 1e-15 ("mass and inertia of moving bodies
  must be larger than mjMINVAL"), unless bodies welded to it below carry mass.
- :func:`drake_rule` (Drake's ``RotationalInertia::CouldBePhysicallyValid``): principal moments
  ``p1 <= p2 <= p3`` with ``p_i + eps >= 0`` and ``p1 + p2 + eps >= p3`` for
  ``eps = 16 machine-epsilon max(1, trace / 2)`` (an absolute floor of 3.6e-15 kg m^2), the mass
  non-negative, and a positive mass wherever the inertia is not zero (Drake's parser warns and
  goes on where this fails).
- :func:`rigidparts.inertia.invalidity_report`, the project's own rule (relative 1e-12 of the
  trace), which says whether the inertia is *possible* at all.

A :class:`Finding` is graded ``error`` (an engine refuses the file or the value is
impossible), ``warning`` (implausible against the link's geometry) or ``note``; its
:class:`Cause` is a diagnosis only where a test of the hypothesis fits much better than the
declared value (:mod:`.diagnose` states the residuals).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from ..inertia import MUJOCO_MINVAL, invalidity_report, mujoco_invalidity

__all__ = [
    "DRAKE_PRECISION",
    "MJ_EPS",
    "MJ_MINVAL",
    "Cause",
    "CheckReport",
    "FileReport",
    "Finding",
    "LinkRecord",
    "drake_rule",
    "mujoco_rule",
    "plain",
    "principal_moments",
    "project_rule",
]

Severity = Literal["error", "warning", "note"]
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "note")

#: MuJoCo's ``mjMINVAL``: the least mass and moment of a moving body
#: (:data:`rigidparts.inertia.MUJOCO_MINVAL`).
MJ_MINVAL = MUJOCO_MINVAL
#: The least eigenvalue MuJoCo accepts for a full inertia tensor (measured: 9.99e-15 is
#: refused, 1e-14 accepted).
MJ_EPS = 1e-14
#: Drake's ``CouldBePhysicallyValid`` precision (16 machine epsilon, Drake 1.51; older
#: versions used 10).
DRAKE_PRECISION = 16 * np.finfo(np.float64).eps


def _finite(inertia: np.ndarray) -> bool:
    return bool(np.all(np.isfinite(inertia)))


def principal_moments(inertia: np.ndarray) -> np.ndarray:
    """Ascending principal moments: the diagonal as given when the tensor is diagonal (as the
    engines take it), else the eigenvalues of its symmetric part (numpy's symmetric solver);
    NaN for a tensor that is not finite."""
    inertia = np.asarray(inertia, dtype=np.float64)
    if not _finite(inertia):
        return np.full(3, math.nan)
    if inertia[0, 1] == 0.0 and inertia[0, 2] == 0.0 and inertia[1, 2] == 0.0:
        return np.sort(np.diag(inertia).copy())
    return np.linalg.eigvalsh(0.5 * (inertia + inertia.T))


def mujoco_rule(
    mass: float,
    inertia: np.ndarray,
    *,
    full: bool,
    moving: bool,
    welded_mass: float = 0.0,
) -> str | None:
    """Why MuJoCo's compiler refuses this inertial, or None. ``full``: the file gives a full
    tensor (URDF, SDFormat, MJCF ``fullinertia``); ``moving``: the body has a joint;
    ``welded_mass``: the mass of the bodies welded below it (they rescue a massless body).
    A negative mass or diagonal moment is clamped to 0 first (MuJoCo 4)."""
    if not (math.isfinite(mass) and _finite(inertia)):
        return "mass or inertia is not finite"
    mass = max(mass, 0.0)
    moments = principal_moments(inertia)
    zero = not np.any(inertia)
    if full and not zero and moments[0] < MJ_EPS:
        return f"inertia must have positive eigenvalues (least {float(moments[0])!r} < {MJ_EPS!r})"
    rescued = welded_mass >= MJ_MINVAL
    return mujoco_invalidity(mass, np.maximum(moments, 0.0), moving=moving and not rescued)


def drake_rule(mass: float, inertia: np.ndarray) -> str | None:
    """Why Drake's ``CouldBePhysicallyValid`` (and its mass checks) refuse this inertial, or
    None (module docstring)."""
    if not (math.isfinite(mass) and _finite(inertia)):
        return "mass or inertia is not finite (NaN)"
    if mass < 0.0:
        return f"mass {mass!r} is negative"
    if mass == 0.0 and np.any(inertia):
        return "a zero mass with a non-zero inertia (condition 'mass > 0' failed)"
    moments = principal_moments(inertia)
    epsilon = DRAKE_PRECISION * max(1.0, 0.5 * abs(float(np.trace(inertia))))
    p1, p2, p3 = (float(v) for v in moments)
    if p1 + epsilon < 0.0:
        return f"principal moment {p1!r} is negative"
    if p1 + p2 + epsilon < p3:
        return f"principal moments {p1!r} + {p2!r} < {p3!r} (triangle inequality)"
    return None


def project_rule(mass: float, inertia: np.ndarray) -> str | None:
    """rigidparts' own rule (:func:`rigidparts.inertia.invalidity_report`) and a positive
    finite mass: whether any rigid body could have this inertial."""
    if not (math.isfinite(mass) and _finite(inertia)):
        return "mass or inertia is not finite"
    if mass == 0.0 and not np.any(inertia):
        return None  # a massless frame (a link that only places a frame)
    if mass <= 0.0:
        return f"mass {mass!r} is not positive"
    if np.max(np.abs(inertia - inertia.T)) > 1e-12 * abs(float(np.trace(inertia))):
        return "inertia is not symmetric"
    return invalidity_report(principal_moments(inertia))


@dataclass(frozen=True)
class Cause:
    """A diagnosed cause: ``code`` (``power-of-ten``, ``slot-order``, ``about-origin``,
    ``rotated-frame``, ``missing-inertial``, ``implausible-density``, ``no-parallel-axis``,
    ``units``), the explanation, and the residuals of the test: ``residual`` of the
    hypothesis and ``declared_residual`` of the value as declared (relative Frobenius distance
    to the geometry's inertia), and what the hypothesis says the value should be."""

    code: str
    text: str
    residual: float | None = None
    declared_residual: float | None = None
    detail: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """Plain values for JSON."""
        return {
            "code": self.code,
            "text": self.text,
            "residual": self.residual,
            "declared_residual": self.declared_residual,
            "detail": _plain(self.detail),
        }


@dataclass(frozen=True)
class Finding:
    """One finding on one link: ``code`` (what is wrong), ``severity``, ``message``, where
    (``source``, the inertial element or the link), and the diagnosed ``cause`` (or None)."""

    code: str
    severity: Severity
    link: str
    message: str
    source: Any = None
    cause: Cause | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain values for JSON."""
        return {
            "code": self.code,
            "severity": self.severity,
            "link": self.link,
            "message": self.message,
            "source": _source(self.source),
            "cause": None if self.cause is None else self.cause.to_dict(),
        }

    def __str__(self) -> str:
        where = f"{self.source}: " if self.source is not None else ""
        cause = f" (probable cause: {self.cause.text})" if self.cause is not None else ""
        return f"{where}{self.severity}: link {self.link!r}: {self.message}{cause}"


def _source(source: Any) -> dict[str, Any] | None:
    if source is None:
        return None
    return {"file": source.file, "line": source.line, "element": source.element}


def plain(value: Any) -> Any:
    """``value`` as strict JSON values: arrays as lists, NaN as None (JSON ``null``: no value),
    an infinity as the string ``"inf"`` or ``"-inf"`` (JSON has no infinities)."""
    if isinstance(value, np.ndarray):
        return plain(value.tolist())
    if isinstance(value, np.generic):
        return plain(value.item())
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None if math.isnan(value) else repr(value)
    return value


_plain = plain


@dataclass
class LinkRecord:
    """Everything ``check`` says about one link.

    declared : ``mass`` (kg), ``center_of_mass`` (link frame, m), ``inertia`` (about the
        centre of mass, link axes, kg m^2), ``principal_moments``, ``layout``, or None when the
        link has no inertial.
    validity : rule name (``mujoco``, ``drake``, ``rigidparts``) -> None (passes) or reason.
    computed : the geometry's ``role``, ``volume`` (m^3), ``density`` implied by the declared
        mass (kg/m^3), ``material`` nearest to it, ``mass`` / ``center_of_mass`` /
        ``inertia`` / ``principal_moments`` at the declared mass (or at the fix's density),
        ``accuracy`` (relative, 0 when exact), ``overlaps``; None without geometry.
    ratios : declared / computed principal moments (ascending, paired in order) and the centre
        of mass offset over the geometry's size.
    """

    name: str
    source: Any
    moving: bool
    declared: dict[str, Any] | None
    validity: dict[str, str | None]
    computed: dict[str, Any] | None
    ratios: dict[str, Any] | None
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: The link as read and its :class:`~.geometry.LinkGeometry` (for the repair; not in JSON).
    link: Any = field(default=None, repr=False)
    geometry: Any = field(default=None, repr=False)

    def to_dict(self) -> dict[str, Any]:
        """Plain values for JSON."""
        return {
            "name": self.name,
            "source": _source(self.source),
            "moving": self.moving,
            "declared": _plain(self.declared),
            "validity": dict(self.validity),
            "computed": _plain(self.computed),
            "ratios": _plain(self.ratios),
            "findings": [f.to_dict() for f in self.findings],
            "notes": list(self.notes),
        }


@dataclass
class FileReport:
    """``check`` of one file: its ``path``, ``format``, per-link records in file order, the
    reader's ``notes``, and ``error`` (one line) when the file could not be read."""

    path: str
    format: str | None
    links: list[LinkRecord] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    error: str | None = None
    description: Any = None
    engines: Any = None

    @property
    def findings(self) -> list[Finding]:
        """Every finding of every link, in file order."""
        return [finding for link in self.links for finding in link.findings]

    def to_dict(self) -> dict[str, Any]:
        """Plain values for JSON."""
        out = {
            "path": self.path,
            "format": self.format,
            "error": self.error,
            "notes": list(self.notes),
            "links": [link.to_dict() for link in self.links],
            "counts": _counts(self.findings),
        }
        if self.engines is not None:
            out["engines"] = _plain(
                self.engines.to_dict() if hasattr(self.engines, "to_dict") else self.engines
            )
        return out


def _counts(findings: list[Finding]) -> dict[str, int]:
    return {s: sum(f.severity == s for f in findings) for s in SEVERITIES}


@dataclass
class CheckReport:
    """``rp.check`` of one or more files: one :class:`FileReport` each."""

    files: list[FileReport]

    @property
    def findings(self) -> list[Finding]:
        """Every finding, file by file."""
        return [finding for file in self.files for finding in file.findings]

    @property
    def errors(self) -> list[Finding]:
        """The findings graded ``error``."""
        return [f for f in self.findings if f.severity == "error"]

    @property
    def unreadable(self) -> list[FileReport]:
        """The files that could not be read."""
        return [file for file in self.files if file.error is not None]

    @property
    def status(self) -> int:
        """The command's exit status: 2 when a file could not be read, 1 when anything was
        found, 0 otherwise."""
        if self.unreadable:
            return 2
        return 1 if self.findings else 0

    def to_dict(self) -> dict[str, Any]:
        """Plain values for JSON: ``files`` and the total ``counts`` by severity."""
        return {
            "files": [file.to_dict() for file in self.files],
            "counts": _counts(self.findings),
            "status": self.status,
        }
