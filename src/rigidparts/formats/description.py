"""What a robot description file says, as read: the neutral form every reader produces.

The four readers (:mod:`.urdf`, :mod:`.mjcf`, :mod:`.sdf`, :mod:`.usd`) turn a file into one
:class:`Description`: its links (bodies), each with the *declared* inertial (mass, centre of
mass, inertia, exactly as the file states them: nothing validated, nothing repaired) and its
collision and visual geometry, and the joints between them. Everything downstream reads this
form only: :func:`rigidparts.formats.load_model` turns it into a :class:`~rigidparts.Model`,
:mod:`rigidparts.checking` compares the declared inertials with the geometry's and repairs
them. No reader validates physics: an impossible inertia is read as it is (that is what
``check`` is for); a reader refuses only what it cannot read (malformed XML, a missing required
attribute, a number that is not one), with a :class:`~rigidparts.ModelError` naming the file,
the line where known, the element and the rule.

Frames and units (Drake's monogram notation, :mod:`rigidparts.transforms`): every pose is
``X_LG`` (a geometry G in its link L), ``X_LI`` (the inertial frame I in L) or ``X_PJ`` (a
joint frame J in its parent link P), as ``(R (3, 3), p (3,))`` in metres, with the file's own
conventions (degrees, euler sequences, USD stage units and ``metersPerUnit``, SDFormat's
``relative_to``) already resolved by the reader. The declared inertia is ``I_LIcm_I``: about
the centre of mass (the inertial frame's origin), expressed in the inertial frame's axes, as a
symmetric 3x3 array built from the file's six numbers; :attr:`Inertial.layout` records how the
file wrote them, so that a repair writes the same form back.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from ..transforms import IDENTITY, Transform

__all__ = [
    "GEOMETRY_KINDS",
    "JOINT_KINDS",
    "Description",
    "Geometry",
    "Inertial",
    "JointDescription",
    "Link",
    "Source",
    "fold_child_pose",
]

#: Geometry kinds a reader produces. ``size`` per kind (SI, m): ``box``: ``(x, y, z)`` full
#: extents; ``cylinder`` and ``capsule``: ``(radius, length)`` along the geometry frame's z (the
#: capsule's length is that of its cylindrical part, between the hemispheres' centres);
#: ``sphere``: ``(radius,)``; ``ellipsoid``: ``(a, b, c)`` semi-axes along x, y, z; ``mesh``:
#: ``()`` with :attr:`Geometry.mesh` and :attr:`Geometry.scale`; ``plane``, ``heightfield``
#: and ``other``: kept for drawing and for the report, no volume.
GEOMETRY_KINDS = (
    "box",
    "cylinder",
    "sphere",
    "capsule",
    "ellipsoid",
    "mesh",
    "plane",
    "heightfield",
    "other",
)

#: Joint kinds: ``fixed``, ``revolute`` (with limits), ``continuous`` (revolute, unlimited),
#: ``prismatic``, ``floating`` (6 dof), ``planar``, ``ball`` (3 rotational dof).
JOINT_KINDS = ("fixed", "revolute", "continuous", "prismatic", "floating", "planar", "ball")


@dataclass(frozen=True)
class Source:
    """Where a value was read: the file, its 1-based line (None when the format gives none,
    as USD's binary crate) and the element's path in the file (``"link[arm]/inertial"``,
    ``"/World/robot/arm"``)."""

    file: str
    line: int | None
    element: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line is not None else self.file
        return f"{where}: {self.element}"


@dataclass(frozen=True, eq=False)
class Inertial:
    """A link's declared inertial, as the file states it (not validated).

    mass : kg (may be zero, negative or not finite: that is for ``check`` to say).
    pose : ``X_LI``, the inertial frame in the link frame; its origin is the centre of mass.
    inertia : ``I_LIcm_I`` (3, 3), kg m^2: about the centre of mass, in the inertial frame's
        axes (symmetric: built from the six values the file gives).
    layout : how the file wrote it: ``"urdf"`` (ixx iyy izz ixy ixz iyz attributes),
        ``"sdf"`` (ixx .. iyz elements), ``"mjcf-diag"`` (``diaginertia`` with ``quat``),
        ``"mjcf-full"`` (``fullinertia`` M11 M22 M33 M12 M13 M23), ``"usd"``
        (``physics:diagonalInertia`` with ``physics:principalAxes``), ``"absent"`` (a value
        the file left out and the reader took from the format's default).
    source : where it was read.
    given : which of ``mass``, ``center_of_mass``, ``inertia`` the file actually states (a
        USD MassAPI or an MJCF inertial may give some and leave the rest to the engine).
    """

    mass: float
    pose: Transform
    inertia: np.ndarray
    layout: str
    source: Source
    given: frozenset[str] = frozenset({"mass", "center_of_mass", "inertia"})

    @property
    def center_of_mass(self) -> np.ndarray:
        """``p_LoLcm_L``: the centre of mass in the link frame, m."""
        return self.pose[1]

    @property
    def inertia_in_link(self) -> np.ndarray:
        """``I_LLcm_L = R_LI I_LIcm_I R_LI^T``: about the centre of mass, link axes."""
        rotation = self.pose[0]
        return rotation @ self.inertia @ rotation.T


@dataclass(frozen=True, eq=False)
class Geometry:
    """One collision or visual geometry of a link.

    kind : one of :data:`GEOMETRY_KINDS`; size : its dimensions (SI, see there).
    pose : ``X_LG``, the geometry's frame in the link frame.
    role : ``"collision"`` or ``"visual"``.
    mesh : for ``kind == "mesh"``: the resolved file path (None when it could not be found:
        ``missing`` then says what was looked for); scale : per-axis factor to metres.
    density : a density the file gives this geometry (MJCF ``density``), kg/m^3, or None;
        mass : likewise a mass (MJCF geom ``mass``).
    rgba : colour and opacity when the file gives one.
    vertices, faces : for a ``mesh`` the file holds itself (a USD ``Mesh`` prim, an MJCF
        ``<mesh vertex= face=>``): the vertices (n, 3), m, in the geometry frame (``scale``
        already applied: it is then ``(1, 1, 1)``), and the faces as triangles (k, 3) of vertex
        indices (polygons fan-triangulated); ``mesh`` is then None. None otherwise.
    inline_name : what the file calls such a mesh (MJCF's ``<mesh name>``), for messages.
    """

    kind: str
    size: tuple[float, ...]
    pose: Transform
    role: Literal["collision", "visual"]
    source: Source
    name: str | None = None
    mesh: str | None = None
    scale: tuple[float, float, float] = (1.0, 1.0, 1.0)
    missing: str | None = None
    density: float | None = None
    mass: float | None = None
    rgba: tuple[float, float, float, float] | None = None
    vertices: np.ndarray | None = None
    faces: np.ndarray | None = None
    inline_name: str | None = None


@dataclass(eq=False)
class Link:
    """A link (MJCF body, USD rigid body): its declared inertial (None when the file gives
    none), collision and visual geometry in the link frame."""

    name: str
    source: Source
    inertial: Inertial | None = None
    collisions: list[Geometry] = field(default_factory=list)
    visuals: list[Geometry] = field(default_factory=list)

    @property
    def geometry(self) -> list[Geometry]:
        """The geometry that stands for the solid: the collision geometry, else the visual."""
        return self.collisions or self.visuals


@dataclass(eq=False)
class JointDescription:
    """A joint between two links.

    pose : ``X_PJ``, the joint frame in the parent link's frame; the child link's frame is the
        joint frame at zero position (URDF's convention; readers of the other formats bring
        theirs to it).
    axis : the unit axis in the joint frame (None for fixed, floating, ball).
    limits : ``lower``, ``upper`` (rad or m), ``effort``, ``velocity`` where the file gives
        them.
    child_pose : ``X_JC``, the child link's frame in the joint frame at zero position: the
        identity in URDF (and wherever the child frame is the joint frame); SDFormat poses a
        joint and its child link independently, so its reader records the child link's frame
        here instead of moving the link's contents (its inertial and geometry stay as the
        file states them, in the link's own frame). The child link frame in the parent's is
        ``X_PC = X_PJ X_J(q) X_JC``.
    """

    name: str
    kind: str
    parent: str
    child: str
    pose: Transform
    source: Source
    axis: np.ndarray | None = None
    limits: Mapping[str, float] = field(default_factory=dict)
    child_pose: Transform = IDENTITY


@dataclass(eq=False)
class Description:
    """A whole file as read.

    format : ``"urdf"``, ``"mjcf"``, ``"sdf"`` or ``"usd"``; path : the file.
    links, joints : by name, in file order. root : the link no joint has as child (attached
        to the world; for MJCF, bodies directly under ``worldbody``: see ``world_joints``).
    world_joints : joints whose parent is the world (named ``"world"`` as parent).
    notes : what the reader did that the user should know (a default applied, an element it
        does not read), one line each.
    document : the reader's parsed document (for a repair that edits the file in place).
    """

    format: str
    path: str
    name: str
    links: dict[str, Link]
    joints: dict[str, JointDescription]
    notes: list[str] = field(default_factory=list)
    document: Any = None
    _by_child: tuple[int, dict[str, JointDescription]] | None = field(
        default=None, init=False, repr=False
    )

    @property
    def roots(self) -> list[str]:
        """The links at the top of the tree, in file order: those no joint has as child, and
        those whose joint's parent is the world (``"world"`` when no link has that name)."""
        parent = {joint.child: joint.parent for joint in self.joints.values()}
        world = "world" not in self.links
        return [
            name for name in self.links if name not in parent or (world and parent[name] == "world")
        ]

    @property
    def root(self) -> str | None:
        """The first of :attr:`roots` (None when every link is some joint's child)."""
        roots = self.roots
        return roots[0] if roots else None

    def parent_joint(self, link: str) -> JointDescription | None:
        """The joint whose child is ``link``, or None for a root (a map from child to joint,
        made once per set of joints: a call per link stays linear in the file's size)."""
        if self._by_child is None or self._by_child[0] != len(self.joints):
            self._by_child = (len(self.joints), {j.child: j for j in self.joints.values()})
        return self._by_child[1].get(link)

    def moving(self, link: str) -> bool:
        """Whether ``link`` moves relative to its parent: it has a parent joint and that joint
        is not ``fixed``. A link no joint holds (a root) counts as not moving; a reader that
        makes a body free gives it a ``floating`` joint to the world (USD's rigid body no
        joint holds, MJCF's ``<freejoint>``), and MJCF's jointless body has a ``fixed`` one."""
        joint = self.parent_joint(link)
        return joint is not None and joint.kind != "fixed"


#: ``|p_CoJo x a| <= FOLD_TOLERANCE |p_CoJo|`` (or ``|p_CoJo|`` below it, m): the joint's
#: origin is on the axis line through the child's origin (see :func:`fold_child_pose`).
FOLD_TOLERANCE = 1e-12


def fold_child_pose(
    kind: str, pose: Transform, axis: np.ndarray | None, child_pose: Transform
) -> tuple[Transform, np.ndarray | None, Transform]:
    """``(X_PJ', axis', X_J'C)``: the joint frame moved onto the child link's frame at zero
    position (``J' = C``, so ``X_J'C`` is the identity, URDF's convention) wherever that
    describes the same motion exactly; otherwise the arguments unchanged.

    With ``X_JC = (R, p)``: ``X_PJ' = X_PJ X_JC`` and ``axis' = R^T axis`` (the axis in C's
    axes). Exact for ``fixed`` and ``floating`` joints (no motion to preserve, or any), for
    ``prismatic`` ones (a translation commutes: ``T(q a) X_JC = X_JC T(q R^T a)``), for
    ``revolute`` and ``continuous`` ones whose origin lies on the axis line through C's
    origin (``p_CoJo = -R^T p`` parallel to ``axis'``), for ``ball`` ones at C's origin. A
    revolute axis that does not pass through the child's origin keeps its ``X_JC``.
    """
    rotation, position = child_pose
    if np.array_equal(rotation, IDENTITY[0]) and not np.any(position):
        return pose, axis, IDENTITY
    p_cj = -(rotation.T @ position)
    moved_axis = None if axis is None else rotation.T @ axis
    offset = float(np.linalg.norm(p_cj))
    if kind in ("fixed", "floating", "prismatic"):
        exact = True
    elif kind in ("revolute", "continuous") and moved_axis is not None:
        exact = (
            offset <= FOLD_TOLERANCE
            or float(np.linalg.norm(np.cross(p_cj, moved_axis))) <= FOLD_TOLERANCE * offset
        )
    elif kind == "ball":
        exact = offset <= FOLD_TOLERANCE
    else:
        exact = False
    if not exact:
        return pose, axis, child_pose
    moved = (pose[0] @ rotation, pose[0] @ position + pose[1])
    return moved, moved_axis, IDENTITY
