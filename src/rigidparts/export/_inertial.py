"""The ``<inertial>`` of a URDF or SDFormat link: the centre of mass, and the central inertia
written in its principal frame.

A body B's central inertia ``I_BBcm_A`` (kg m^2, about the centre of mass Bcm, in frame_a's
axes) is written as ``(R_AP, diag(I_P))``: the inertial frame P at Bcm turned by ``R_AP``
(URDF ``<inertial><origin rpy>``, SDFormat ``<inertial><pose>``), and the tensor in P's axes,
diagonal (``ixy = ixz = iyz = 0``), so that

    I_BBcm_A = R_AP diag(I_P) R_AP^T.

Why not the full tensor with ``rpy = 0``: pybullet diagonalises a URDF tensor with products
by Bullet's own Jacobi (``btMatrix3x3::diagonalize``, threshold 1e-6 of the trace, at most 30
sweeps) and keeps only its diagonal, which loses up to ~2e-7 of the trace for a turned body
(measured: ``docs/models.md``, "Inertia in the engines", ``scripts/inertia_readback.py``). A
diagonal tensor it keeps as written. The other engines (MuJoCo, Pinocchio, Drake, SDFormat)
read either form; with the principal one each arrives within about 1e-15 of the trace
(MuJoCo, which rotates a URDF tensor into the link frame and re-diagonalises it with its own
eigen-solver, within ~2e-15).

The rules, in order:

1. A tensor diagonal in frame_a (its three products exactly zero: a body along a coordinate
   axis) is written as it is, with ``R_AP = 1``: the numbers every engine reads are the
   tensor's own (pybullet keeps them bit for bit). A principal frame that permutes the axes
   would need angles of +-90 degrees, whose cosine is 6e-17, not 0.
2. Otherwise P is spanned by the body's exact principal axes
   (:attr:`~rigidparts.MassProperties.principal_axes`: for the registry's shapes the closed
   forms' own, not an eigen-solver's) with its exact principal moments. Of the 24 proper
   signed permutations of those axes (the same tensor), the one nearest to frame_a (largest
   ``trace(R_AP)``) is taken, which is at most 62.8 degrees from it (Mackenzie, Biometrika 45,
   1958: the largest disorientation under cubic symmetry): no inertial frame lies near
   roll-pitch-yaw's gimbal lock (pitch +-90 degrees), and a slightly turned body gets a
   slightly turned frame.
3. The triangle inequality at its edge (:func:`edge_moments`): a body whose exact moments
   satisfy ``I1 + I2 >= I3`` by less than rounding (a plate thinner than ~1e-8 of its width)
   gets ``I3 = fl(I1 + I2)`` (a few ulp), or, when P is turned in a file MuJoCo reads (URDF,
   ``margin=True``), its smallest moment raised by :data:`TRIANGLE_MARGIN` ``* eps * trace``
   (~1.4e-14 of the trace): MuJoCo rotates that tensor into the link frame and diagonalises
   it again, and its rounding would otherwise find ``I1 + I2 < I3`` and refuse the file
   (measured: 147 of 600 turned plates 1e-12..1e-7 thick refused with no margin, 1 with
   2 eps, none with 4 eps or more; 64 keeps a factor of 16).

Roll-pitch-yaw angles of ``R_AP`` come from :func:`rigidparts.transforms.matrix_to_rpy`,
which rebuilds the matrix to a few ulp.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from ..inertia import MassProperties, invalidity_report

__all__ = ["TRIANGLE_MARGIN", "LinkInertial", "edge_moments", "link_inertial"]

#: The triangle-inequality margin, as a multiple of ``eps * trace``, kept by a tensor that
#: MuJoCo re-diagonalises (URDF), for bodies at the edge of the inequality.
TRIANGLE_MARGIN = 64

_EPS = float(np.finfo(np.float64).eps)


def _proper_signed_permutations() -> list[np.ndarray]:
    """The 24 signed permutation matrices with determinant +1 (the cube's rotations)."""
    out = []
    for order in itertools.permutations(range(3)):
        for signs in itertools.product((1.0, -1.0), repeat=3):
            p = np.zeros((3, 3))
            p[list(order), range(3)] = signs
            if np.linalg.det(p) > 0:
                out.append(p)
    return out


_SYMMETRIES = _proper_signed_permutations()


@dataclass(frozen=True)
class LinkInertial:
    """What a link's ``<inertial>`` holds: ``mass`` (kg), the inertial frame P (``rotation``
    = ``R_AP``, ``position`` = ``p_AoBcm_A``, m, both in frame_a) and ``moments``, the
    diagonal of the central inertia in P's axes (kg m^2; products zero)."""

    mass: float
    rotation: np.ndarray
    position: np.ndarray
    moments: np.ndarray

    def tensor(self) -> np.ndarray:
        """``I_BBcm_A = R_AP diag(moments) R_AP^T`` (kg m^2), as an engine rebuilds it."""
        return self.rotation @ np.diag(self.moments) @ self.rotation.T


def link_inertial(props: MassProperties, *, margin: bool = False) -> LinkInertial:
    """The principal-frame ``<inertial>`` of a body with mass properties ``props`` (in its
    frame_a), by the rules of the module docstring; ``margin``: keep :data:`TRIANGLE_MARGIN`
    at the triangle edge when P is turned (MuJoCo rotates such a URDF tensor into the link
    frame and re-diagonalises it; a tensor diagonal in frame_a it reads exactly, so that one
    only needs ``I3 = fl(I1 + I2)``)."""
    inertia = props.inertia
    if not (inertia[0, 1] or inertia[0, 2] or inertia[1, 2]):
        rotation, moments = np.eye(3), np.diag(inertia).copy()
        margin = False  # read as written: no engine re-diagonalises a diagonal tensor
    else:
        axes = np.asarray(props.principal_axes)
        turned = [axes @ p for p in _SYMMETRIES]
        best = max(range(len(turned)), key=lambda k: float(np.trace(turned[k])))
        # column j of axes @ p is +-axes[:, k] where p[k, j] != 0: its moment is moments[k]
        order = np.abs(_SYMMETRIES[best]).argmax(axis=0)
        rotation, moments = turned[best], np.asarray(props.principal_moments)[order]
    return LinkInertial(
        mass=float(props.mass),
        rotation=rotation,
        position=np.asarray(props.center_of_mass),
        moments=edge_moments(moments, margin=margin),
    )


def edge_moments(moments: np.ndarray, *, margin: bool = False) -> np.ndarray:
    """The principal moments (any order) at the edge of the triangle inequality made safe.

    Without ``margin``: where rounding alone made the largest exceed the sum of the other two
    (``I1 + I2 < I3``, a flat body), the largest becomes ``fl(I1 + I2)``, a change of a few
    ulp (MuJoCo's and SDFormat's checks then pass with no tolerance). With ``margin``: when
    the moments keep the rule of :func:`rigidparts.inertia.invalidity_report` by less than
    ``TRIANGLE_MARGIN * eps * trace`` (the report asked with that *negative* tolerance), the
    smallest is raised by that amount (about 1.4e-14 of the trace, far below
    :data:`rigidparts.INERTIA_TOLERANCE`), which keeps every inequality with room to spare
    for an engine's own eigen-decomposition. Any other moments are returned unchanged.
    """
    out = np.array(moments, dtype=np.float64)
    small, middle, large = np.argsort(out, kind="stable")
    if margin:
        allowance = TRIANGLE_MARGIN * _EPS
        if invalidity_report(out, tolerance=-allowance) is not None:
            out[small] += allowance * float(out.sum())
    elif out[small] + out[middle] < out[large]:
        out[large] = out[small] + out[middle]
    return out
