"""What each installed engine actually reads from a model file, per link, and where it
disagrees with rigidparts' reading.

:func:`engine_readings` loads one URDF, MJCF, SDFormat or USD file in every installed engine
that reads its format, the way a user would by default (MuJoCo, Drake, Pinocchio, pybullet,
usd-core, NVIDIA Newton; pybullet twice: ``pybullet`` with its default flags, which recompute
the inertia from the collision shapes, and ``pybullet-inertia-from-file`` with
``URDF_USE_INERTIA_FROM_FILE``), and returns per link the mass ``m`` (kg), the centre of mass
``p_LoLcm_L`` (m, in the link frame L) and the inertia ``I_LLcm_L`` (kg m^2, about the centre
of mass, in L's axes) as that engine holds them after loading. An engine that refuses the file
gives its error message instead (a refusal is a result); a missing engine is skipped with a
note. Links an engine merges away (MuJoCo's ``fusestatic``, Pinocchio's fixed joints) are
listed with the link they went into and their pose there.

:func:`compare` lists every difference above a relative tolerance between those readings and
a reference (rigidparts' reading of the same file), each with its known cause where one of the
catalogue :data:`KNOWN_CAUSES` applies. Each cause was reproduced on the installed engines
(tests/test_check_engines.py has a one-link fixture for each).

Engine frames (read from each engine's documentation and checked by experiment):

- MuJoCo: ``body_mass``, ``body_ipos`` (centre of mass in the body frame), ``body_iquat``
  (principal axes in the body frame, ``(w, x, y, z)``) and ``body_inertia`` (principal
  moments): ``I_LLcm_L = R diag(I) R^T``. For URDF the body frame is the link frame.
- Drake: ``RigidBody.default_spatial_inertia()`` is ``M_BBo_B`` (about the body origin, in
  the body frame); shifted to the centre of mass: ``M_BBcm_B = M_BBo_B.Shift(p_BoBcm_B)``.
- Pinocchio: ``model.inertias[j]`` is the inertia of everything rigidly attached to joint
  ``j``, expressed in the joint frame (lever = centre of mass); a link's BODY frame has the
  placement ``X_JL`` in it: ``p_L = R^T (c - p)``, ``I_L = R^T I R``.
- pybullet: ``getDynamicsInfo(body, link)`` gives the mass, the principal moments
  ``localInertiaDiagonal`` and the inertial frame ``localInertialPos``/``Orn`` (``(x, y, z,
  w)``) in the link frame (link ``-1``: the base).
- usd-core: ``UsdPhysics.MassAPI``'s authored ``mass``, ``centerOfMass``, ``diagonalInertia``
  and ``principalAxes`` (``I = R diag(d) R^T``), in the prim's frame and the stage's units.
- Newton: ``Model.body_mass``, ``body_com`` and ``body_inertia`` (about the centre of mass,
  body frame), after ``ModelBuilder.add_urdf``/``add_mjcf``/``add_usd`` and ``finalize``.
"""

from __future__ import annotations

import contextlib
import io
import logging
import math
import os
import sys
import tempfile
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..inertia import mujoco_invalidity, parallel_axis_shift
from ..transforms import quaternion_to_matrix
from .findings import principal_moments as _moments

__all__ = [
    "ENGINES",
    "KNOWN_CAUSES",
    "Cause",
    "Disagreement",
    "EngineInertial",
    "EngineReading",
    "Merged",
    "combine",
    "compare",
    "differences",
    "engine_readings",
    "file_format",
]

#: Engine names, in the order they are tried.
ENGINES = ("mujoco", "drake", "pinocchio", "pybullet", "pybullet-inertia-from-file", "usd",
           "newton")  # fmt: skip
#: The formats each engine reads (an engine whose format does not match is not listed).
FORMATS = {
    "mujoco": ("urdf", "mjcf"),
    "drake": ("urdf", "sdf", "mjcf"),
    "pinocchio": ("urdf", "mjcf", "sdf"),
    "pybullet": ("urdf", "mjcf", "sdf"),
    "pybullet-inertia-from-file": ("urdf", "mjcf"),
    "usd": ("usd",),
    "newton": ("urdf", "mjcf", "usd"),
}
#: The install hint for each engine.
INSTALL = {
    "mujoco": "pip install mujoco",
    "drake": "pip install drake",
    "pinocchio": "pip install pin",
    "pybullet": "pip install pybullet",
    "pybullet-inertia-from-file": "pip install pybullet",
    "usd": "pip install usd-core",
    "newton": "pip install newton newton-usd-schemas",
}


# -- values ------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class EngineInertial:
    """One link's mass properties as an engine read them: ``mass`` (kg), ``center_of_mass``
    ``p_LoLcm_L`` (m, shape (3,)) and ``inertia`` ``I_LLcm_L`` (kg m^2, shape (3, 3), about
    the centre of mass, in the link frame's axes). Not validated: an engine may hold anything
    (so not a :class:`rigidparts.MassProperties`)."""

    mass: float
    center_of_mass: np.ndarray
    inertia: np.ndarray

    @classmethod
    def of(cls, value: Any) -> EngineInertial:
        """From a ``EngineInertial``, anything with ``mass``, ``center_of_mass`` and
        ``inertia`` (a :class:`rigidparts.MassProperties`), or a ``(mass, com, inertia)``
        tuple."""
        if isinstance(value, EngineInertial):
            return value
        if hasattr(value, "mass") and hasattr(value, "center_of_mass"):
            mass, com, inertia = value.mass, value.center_of_mass, value.inertia
        else:
            mass, com, inertia = value
        return cls(
            float(mass),
            np.asarray(com, dtype=np.float64).reshape(3),
            np.asarray(inertia, dtype=np.float64).reshape(3, 3),
        )

    @classmethod
    def principal(cls, mass: float, com: Any, moments: Any, axes: np.ndarray) -> EngineInertial:
        """From principal ``moments`` and the rotation ``axes`` whose columns are the
        principal axes in the link frame: ``I = R diag(moments) R^T``."""
        r = np.asarray(axes, dtype=np.float64)
        inertia = r @ np.diag(np.asarray(moments, dtype=np.float64)) @ r.T
        return cls.of((mass, com, 0.5 * (inertia + inertia.T)))

    def placed(self, rotation: np.ndarray, position: np.ndarray) -> EngineInertial:
        """The same body seen from a frame P in which this link's frame L has rotation
        ``R_PL`` and origin ``p_PoLo_P``: ``c_P = R c_L + p``, ``I_P = R I_L R^T``."""
        return EngineInertial(
            self.mass,
            rotation @ self.center_of_mass + position,
            rotation @ self.inertia @ rotation.T,
        )


def combine(parts: Iterable[EngineInertial]) -> EngineInertial:
    """The composite of parts expressed in one frame: masses add, the centre of mass is the
    mass-weighted mean, and each central inertia is shifted to the common centre of mass by
    the parallel-axis theorem, ``I += m (|d|^2 E - d d^T)``
    (:func:`rigidparts.inertia.parallel_axis_shift`; the parts are an engine's values, not
    validated: :meth:`rigidparts.MassProperties.combine` would refuse a massless or invalid
    one)."""
    parts = list(parts)
    mass = sum(p.mass for p in parts)
    if mass == 0.0:
        return EngineInertial(0.0, np.zeros(3), sum((p.inertia for p in parts), np.zeros((3, 3))))
    com = sum((p.mass * p.center_of_mass for p in parts), np.zeros(3)) / mass
    inertia = np.zeros((3, 3))
    for p in parts:
        inertia += p.inertia + parallel_axis_shift(p.mass, p.center_of_mass - com)
    return EngineInertial(mass, com, inertia)


@dataclass(frozen=True, eq=False)
class Merged:
    """A link an engine merged into another: ``into`` (a link name, or ``"world"``), and the
    merged link's frame L in that link's frame P: ``rotation`` ``R_PL``, ``position``
    ``p_PoLo_P`` (m); ``why``: what merged it."""

    into: str
    rotation: np.ndarray
    position: np.ndarray
    why: str
    #: The link's own values as the engine reads them when it does not merge (MuJoCo compiled
    #: again with fusestatic off), or None.
    own: EngineInertial | None = None


@dataclass
class EngineReading:
    """What one engine read from one file.

    ``links``: link name -> :class:`EngineInertial` as the engine holds it; ``merged``: links
    the engine merged into another (:class:`Merged`); ``error``: the engine's own message when
    it refused the file; ``skipped``: why the engine was not run (not installed); ``notes``:
    how the file was loaded and what the engine did to it; ``output``: what it printed.
    """

    engine: str
    format: str
    links: dict[str, EngineInertial] = field(default_factory=dict)
    merged: dict[str, Merged] = field(default_factory=dict)
    error: str | None = None
    skipped: str | None = None
    notes: list[str] = field(default_factory=list)
    output: str = ""
    version: str | None = None
    #: Links the file gives no inertial element (a fact of the file, read with an XML parser).
    without_inertial: frozenset[str] = frozenset()
    #: USD stage units: ``metersPerUnit`` and ``kilogramsPerUnit`` (1.0 for the XML formats).
    meters_per_unit: float = 1.0
    kilograms_per_unit: float = 1.0
    #: Loader settings that change values (MuJoCo's compiler: balanceinertia, boundmass, ...).
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def loaded(self) -> bool:
        return self.error is None and self.skipped is None


# -- the file's format -------------------------------------------------------------------------


def file_format(path: str | os.PathLike[str]) -> str:
    """``"urdf"``, ``"mjcf"``, ``"sdf"`` or ``"usd"`` (:func:`rigidparts.formats.format_of`:
    the suffix, and for ``.xml`` the root element)."""
    from ..formats import format_of

    return format_of(path)


# -- capturing what the engines print ----------------------------------------------------------


class _LogCollector(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(f"{record.levelname.lower()}: {record.getMessage()}")


@contextlib.contextmanager
def _captured(logger_names: tuple[str, ...] = ()) -> Iterator[list[str]]:
    """Everything written to the process's stdout and stderr (file descriptors 1 and 2, so C
    and C++ code too) and to the named Python loggers while the block runs, collected in the
    yielded list (filled when the block ends) instead of printed."""
    out: list[str] = []
    collector = _LogCollector()
    loggers = [logging.getLogger(name) for name in logger_names]
    saved_propagate = [lg.propagate for lg in loggers]
    for lg in loggers:
        lg.addHandler(collector)
        lg.propagate = False
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    saved: list[tuple[int, int]] = []
    with tempfile.TemporaryFile(mode="w+b") as sink:
        try:
            for fd in (1, 2):
                try:
                    saved.append((fd, os.dup(fd)))
                    os.dup2(sink.fileno(), fd)
                except OSError:  # no such descriptor (embedded interpreters)
                    continue
            with (
                contextlib.redirect_stdout(io.StringIO()) as py_out,
                contextlib.redirect_stderr(io.StringIO()) as py_err,
                warnings.catch_warnings(record=True) as caught,
            ):
                warnings.simplefilter("always")
                yield out
        finally:
            for fd, copy in saved:
                os.dup2(copy, fd)
                os.close(copy)
            for lg, propagate in zip(loggers, saved_propagate, strict=True):
                lg.removeHandler(collector)
                lg.propagate = propagate
            sink.seek(0)
            text = sink.read().decode("utf-8", "replace")
            text += py_out.getvalue() if "py_out" in locals() else ""
            text += py_err.getvalue() if "py_err" in locals() else ""
            out.extend(line for line in text.splitlines() if line.strip())
            out.extend(collector.lines)
            if "caught" in locals():
                out.extend(f"warning: {w.message}" for w in caught)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return " ".join(line.strip() for line in text.splitlines() if line.strip())


# -- MuJoCo ------------------------------------------------------------------------------------


def _mujoco_links(mj: Any) -> dict[str, EngineInertial]:
    links = {}
    for i in range(1, mj.nbody):
        name = mj.body(i).name
        axes = quaternion_to_matrix(mj.body_iquat[i])
        links[name] = EngineInertial.principal(
            float(mj.body_mass[i]), mj.body_ipos[i].copy(), mj.body_inertia[i].copy(), axes
        )
    return links


def _mujoco_pose_in(mj: Any, child: int, ancestor: int) -> tuple[np.ndarray, np.ndarray]:
    """``(R_AC, p_AoCo_A)`` of body ``child`` in its ancestor body ``ancestor`` at the
    model's reference pose, from ``body_pos``/``body_quat`` (each in the parent's frame)."""
    r, p = np.eye(3), np.zeros(3)
    body = child
    while body != ancestor:
        r_parent = quaternion_to_matrix(mj.body_quat[body])
        r, p = r_parent @ r, r_parent @ p + mj.body_pos[body]
        body = int(mj.body_parentid[body])
    return r, p


def _read_mujoco(path: Path, fmt: str, search_path: tuple[Path, ...]) -> EngineReading:
    import mujoco

    reading = EngineReading("mujoco", fmt, version=mujoco.__version__)
    reading.notes.append(
        "loaded as MjModel.from_xml_path(file), MuJoCo's defaults"
        + (" for URDF (fusestatic, discardvisual, inertiafromgeom auto)" if fmt == "urdf" else "")
    )
    with _captured() as output:
        try:
            mj = mujoco.MjModel.from_xml_path(str(path))
        except Exception as exc:  # MuJoCo's compile error: the engine refuses the file
            mj = None
            reading.error = _first_line(exc)
    reading.output = "\n".join(output)
    if mj is None:
        return reading
    reading.links = _mujoco_links(mj)
    # The bodies the default load fused away: compile again with fusestatic off to find them
    # and their pose in the body they went into.
    with _captured(), contextlib.suppress(Exception):
        spec = mujoco.MjSpec.from_file(str(path))
        compiler = spec.compiler
        reading.settings = {
            "fusestatic": bool(compiler.fusestatic),
            "balanceinertia": bool(compiler.balanceinertia),
            "boundmass": float(compiler.boundmass),
            "boundinertia": float(compiler.boundinertia),
        }
        if spec.compiler.fusestatic:
            spec.compiler.fusestatic = False
            whole = spec.compile()
            names = [whole.body(i).name for i in range(whole.nbody)]
            unfused = _mujoco_links(whole)
            kept = set(reading.links)
            for i in range(1, whole.nbody):
                if names[i] in kept:
                    continue
                owner = int(whole.body_parentid[i])
                while owner != 0 and names[owner] not in kept:
                    owner = int(whole.body_parentid[owner])
                r, p = _mujoco_pose_in(whole, i, owner)
                reading.merged[names[i]] = Merged(
                    names[owner] if owner else "world", r, p, "fusestatic", unfused[names[i]]
                )
    if reading.merged:
        reading.notes.append(
            "fusestatic fused the jointless bodies "
            + ", ".join(f"{k} (into {v.into})" for k, v in reading.merged.items())
        )
    return reading


# -- Drake -------------------------------------------------------------------------------------


def _read_drake(path: Path, fmt: str, search_path: tuple[Path, ...]) -> EngineReading:
    import pydrake
    from pydrake.multibody.parsing import Parser
    from pydrake.multibody.plant import MultibodyPlant
    from pydrake.multibody.tree import BodyIndex

    reading = EngineReading("drake", fmt, version=getattr(pydrake, "__version__", None))
    reading.notes.append("loaded as Parser(MultibodyPlant(0.0)).AddModels(file)")
    plant = MultibodyPlant(0.0)
    with _captured(("drake",)) as output:
        try:
            parser = Parser(plant)
            for folder in search_path:
                if (folder / "package.xml").is_file():
                    parser.package_map().AddPackageXml(str(folder / "package.xml"))
                else:
                    parser.package_map().PopulateFromFolder(str(folder))
            instances = set(parser.AddModels(str(path)))
        except Exception as exc:  # Drake's parser or SpatialInertia refused the file
            reading.error = _first_line(exc)
            instances = set()
    reading.output = "\n".join(output)
    if reading.error is not None:
        return reading
    for i in range(plant.num_bodies()):
        body = plant.get_body(BodyIndex(i))
        if body.model_instance() not in instances:
            continue
        m_bbo_b = body.default_spatial_inertia()
        mass = float(m_bbo_b.get_mass())
        com = np.array(m_bbo_b.get_com(), dtype=float)
        if math.isfinite(mass) and np.all(np.isfinite(com)):
            central = m_bbo_b.Shift(com).CalcRotationalInertia().CopyToFullMatrix3()
        else:
            central = np.full((3, 3), math.nan)
        reading.links[body.name()] = EngineInertial.of((mass, com, central))
    return reading


# -- Pinocchio ---------------------------------------------------------------------------------


def _pinocchio_parent_frame(frame: Any) -> int:
    """The frame's parent frame index (``parentFrame`` since Pinocchio 3, ``previousFrame``
    before)."""
    if hasattr(type(frame), "parentFrame"):
        return int(frame.parentFrame)
    return int(frame.previousFrame)


def _read_pinocchio(path: Path, fmt: str, search_path: tuple[Path, ...]) -> EngineReading:
    import pinocchio as pin

    reading = EngineReading("pinocchio", fmt, version=pin.__version__)
    builders = {"urdf": "buildModelFromUrdf", "mjcf": "buildModelFromMJCF",
                "sdf": "buildModelsFromSdf"}  # fmt: skip
    builder = getattr(pin, builders[fmt], None)
    if builder is None:
        reading.skipped = f"this pin build has no {builders[fmt]}"
        return reading
    reading.notes.append(f"loaded as pinocchio.{builders[fmt]}(file), no root joint")
    with _captured() as output:
        try:
            model = builder(str(path))
            if isinstance(model, tuple):
                model = model[0]
        except AttributeError as exc:  # a pin built without that parser (SDFormat)
            reading.skipped = f"this pin build cannot read {fmt.upper()} ({_first_line(exc)})"
            model = None
        except Exception as exc:
            reading.error = _first_line(exc)
            model = None
    reading.output = "\n".join(output)
    if model is None:
        return reading
    frames = list(model.frames)
    # The link owning each joint's inertia: the first BODY frame attached to the joint whose
    # previous frame is the joint itself (or the universe for the root link).
    owner: dict[int, int] = {}
    for k, frame in enumerate(frames):
        if frame.type != pin.FrameType.BODY:
            continue
        parent_frame = _pinocchio_parent_frame(frame)
        previous = frames[parent_frame] if parent_frame < len(frames) else None
        moving = previous is not None and previous.type == pin.FrameType.JOINT
        root = frame.parentJoint == 0 and parent_frame == 0
        if (moving or root) and frame.parentJoint not in owner:
            owner[frame.parentJoint] = k
    for k, frame in enumerate(frames):
        if frame.type != pin.FrameType.BODY:
            continue
        joint = frame.parentJoint
        x_jl = frame.placement
        r_jl, p_jl = np.array(x_jl.rotation), np.array(x_jl.translation)
        if owner.get(joint) == k:
            inertia = model.inertias[joint]
            r = r_jl.T
            reading.links[frame.name] = EngineInertial.of(
                (
                    float(inertia.mass),
                    r @ (np.array(inertia.lever) - p_jl),
                    r @ np.array(inertia.inertia) @ r.T,
                )
            )
        else:
            into = frames[owner[joint]] if joint in owner else None
            if into is None:
                continue
            r_jo, p_jo = np.array(into.placement.rotation), np.array(into.placement.translation)
            reading.merged[frame.name] = Merged(
                into.name, r_jo.T @ r_jl, r_jo.T @ (p_jl - p_jo), "fixed joint"
            )
    if reading.merged:
        reading.notes.append(
            "fixed joints merged "
            + ", ".join(f"{k} (into {v.into})" for k, v in reading.merged.items())
        )
    return reading


# -- pybullet ----------------------------------------------------------------------------------


def _bullet_link(client: Any, uid: int, link: int) -> EngineInertial:
    mass, _, moments, com, (x, y, z, w) = client.getDynamicsInfo(uid, link)[:5]
    return EngineInertial.principal(mass, com, moments, quaternion_to_matrix((w, x, y, z)))


def _read_pybullet(
    path: Path, fmt: str, search_path: tuple[Path, ...], *, from_file: bool = False
) -> EngineReading:
    import pybullet
    from pybullet_utils.bullet_client import BulletClient

    name = "pybullet-inertia-from-file" if from_file else "pybullet"
    reading = EngineReading(name, fmt, version=str(pybullet.getAPIVersion()))
    with _captured() as output:
        client = BulletClient(connection_mode=pybullet.DIRECT)
        try:
            for folder in search_path:
                client.setAdditionalSearchPath(str(folder))
            if fmt == "urdf":
                flags = pybullet.URDF_USE_INERTIA_FROM_FILE if from_file else 0
                reading.notes.append(
                    "loaded as loadURDF(file"
                    + (", flags=URDF_USE_INERTIA_FROM_FILE)" if from_file else ") (defaults)")
                )
                uids = [client.loadURDF(str(path), flags=flags)]
            elif fmt == "mjcf":
                flags = pybullet.URDF_USE_INERTIA_FROM_FILE if from_file else 0
                reading.notes.append(
                    "loaded as loadMJCF(file"
                    + (", flags=URDF_USE_INERTIA_FROM_FILE)" if from_file else ") (defaults)")
                )
                uids = list(client.loadMJCF(str(path), flags=flags))
            else:
                reading.notes.append("loaded as loadSDF(file)")
                uids = list(client.loadSDF(str(path)))
            for uid in uids:
                reading.links[client.getBodyInfo(uid)[0].decode()] = _bullet_link(client, uid, -1)
                for link in range(client.getNumJoints(uid)):
                    link_name = client.getJointInfo(uid, link)[12].decode()
                    reading.links[link_name] = _bullet_link(client, uid, link)
        except Exception as exc:  # pybullet.error: "Cannot load URDF file."
            reading.error = _first_line(exc)
        finally:
            client.disconnect()
    reading.output = "\n".join(output)
    if reading.error is not None and reading.output:
        detail = [line for line in output if "error" in line.lower()]
        if detail:
            reading.error += " (" + "; ".join(detail[:3]) + ")"
    return reading


# -- USD (usd-core) ----------------------------------------------------------------------------


def _read_usd(path: Path, fmt: str, search_path: tuple[Path, ...]) -> EngineReading:
    from pxr import Usd, UsdGeom, UsdPhysics

    reading = EngineReading("usd", fmt, version=".".join(map(str, Usd.GetVersion())))
    with _captured() as output:
        stage = Usd.Stage.Open(str(path))
    reading.output = "\n".join(output)
    if stage is None:
        reading.error = f"usd-core could not open the stage ({reading.output or 'no message'})"
        return reading
    meters = UsdGeom.GetStageMetersPerUnit(stage)
    kilograms = UsdPhysics.GetStageKilogramsPerUnit(stage)
    reading.meters_per_unit, reading.kilograms_per_unit = float(meters), float(kilograms)
    reading.notes.append(
        f"UsdPhysics.MassAPI values as authored, in the stage's units (metersPerUnit {meters!r}, "
        f"kilogramsPerUnit {kilograms!r})"
    )
    for prim in stage.Traverse():
        if not prim.HasAPI(UsdPhysics.RigidBodyAPI):
            continue
        if not prim.HasAPI(UsdPhysics.MassAPI):
            reading.notes.append(f"{prim.GetName()}: no MassAPI (the engine computes it)")
            continue
        api = UsdPhysics.MassAPI(prim)
        attributes = (api.GetMassAttr(), api.GetCenterOfMassAttr(),
                      api.GetDiagonalInertiaAttr(), api.GetPrincipalAxesAttr())  # fmt: skip
        unauthored = [a.GetName() for a in attributes if not a.HasAuthoredValue()]
        if unauthored:
            reading.notes.append(
                f"{prim.GetName()}: {', '.join(unauthored)} not authored (the engine computes it)"
            )
        mass, com, moments, axes = (a.Get() for a in attributes)
        rotation = np.eye(3)  # principalAxes' fallback (also for a zero quaternion)
        if axes is not None and axes.GetReal() ** 2 + axes.GetImaginary().GetLength() ** 2 > 0:
            rotation = quaternion_to_matrix((axes.GetReal(), *axes.GetImaginary()))
        reading.links[prim.GetName()] = EngineInertial.principal(
            float(mass or 0.0),
            np.array(com if com is not None else (0.0, 0.0, 0.0), dtype=float),
            np.array(moments if moments is not None else (0.0, 0.0, 0.0), dtype=float),
            rotation,
        )
    return reading


# -- Newton ------------------------------------------------------------------------------------


def _read_newton(path: Path, fmt: str, search_path: tuple[Path, ...]) -> EngineReading:
    import warp

    warp.config.quiet = True
    import newton

    reading = EngineReading("newton", fmt, version=getattr(newton, "__version__", None))
    method = {"urdf": "add_urdf", "mjcf": "add_mjcf", "usd": "add_usd"}[fmt]
    reading.notes.append(f"loaded as ModelBuilder().{method}(file).finalize('cpu')")
    with _captured(("newton", "warp")) as output:
        try:
            builder = newton.ModelBuilder()
            if fmt == "urdf" and search_path:
                builder.add_urdf(str(path), package_dirs=[str(p) for p in search_path])
            else:
                getattr(builder, method)(str(path))
            model = builder.finalize(device="cpu")
        except Exception as exc:
            reading.error = _first_line(exc)
            model = None
    reading.output = "\n".join(output)
    if model is None:
        return reading
    if fmt == "usd":
        with contextlib.suppress(Exception), _captured():
            from pxr import Usd, UsdGeom, UsdPhysics

            stage = Usd.Stage.Open(str(path))
            reading.meters_per_unit = float(UsdGeom.GetStageMetersPerUnit(stage))
            reading.kilograms_per_unit = float(UsdPhysics.GetStageKilogramsPerUnit(stage))
    labels = [label.rsplit("/", 1)[-1] for label in model.body_label]
    for label, mass, com, inertia in zip(
        labels,
        model.body_mass.numpy(),
        model.body_com.numpy(),
        model.body_inertia.numpy(),
        strict=True,
    ):
        reading.links[label] = EngineInertial.of(
            (float(mass), np.asarray(com, dtype=float), np.asarray(inertia, dtype=float))
        )
    return reading


# -- all engines -------------------------------------------------------------------------------

_MODULES = {
    "mujoco": ("mujoco",),
    "drake": ("pydrake",),
    "pinocchio": ("pinocchio",),
    "pybullet": ("pybullet",),
    "pybullet-inertia-from-file": ("pybullet",),
    "usd": ("pxr",),
    "newton": ("newton", "warp"),
}
_READERS: dict[str, Callable[[Path, str, tuple[Path, ...]], EngineReading]] = {
    "mujoco": _read_mujoco,
    "drake": _read_drake,
    "pinocchio": _read_pinocchio,
    "pybullet": _read_pybullet,
    "pybullet-inertia-from-file": lambda p, f, s: _read_pybullet(p, f, s, from_file=True),
    "usd": _read_usd,
    "newton": _read_newton,
}


def _installed(engine: str) -> bool:
    import importlib.util

    for module in _MODULES[engine]:
        try:
            if importlib.util.find_spec(module) is None:
                return False
        except (ImportError, ValueError):
            return False
    return True


def engine_readings(
    path: str | os.PathLike[str],
    *,
    search_path: Iterable[str | os.PathLike[str]] = (),
    engines: Iterable[str] | None = None,
    description: Any = None,
) -> dict[str, EngineReading]:
    """Load ``path`` in every installed engine that reads its format and return what each
    read, engine name -> :class:`EngineReading` (a missing engine: ``skipped`` says which
    package to install; a refusal: ``error`` holds the engine's message). ``description``:
    the file's :class:`~rigidparts.formats.description.Description` when it was read already.

    ``search_path``: folders for ``package://`` and relative mesh paths (Drake's package map,
    pybullet's additional search path, Newton's ``package_dirs``). ``engines``: a subset of
    :data:`ENGINES` (default: all). Every engine runs in this process; what it prints is
    captured into ``output``, never shown.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    fmt = file_format(path)
    folders = tuple(Path(p) for p in search_path)
    chosen = ENGINES if engines is None else tuple(engines)
    unknown = [e for e in chosen if e not in ENGINES]
    if unknown:
        raise ValueError(f"engines: unknown engine {unknown[0]!r} (known: {', '.join(ENGINES)})")
    readings: dict[str, EngineReading] = {}
    without = _links_without_inertial(path, fmt, folders, description)
    for engine in chosen:
        if fmt not in FORMATS[engine]:
            continue
        if not _installed(engine):
            readings[engine] = EngineReading(
                engine, fmt, skipped=f"{engine} is not installed: {INSTALL[engine]}"
            )
            continue
        try:
            readings[engine] = _READERS[engine](path, fmt, folders)
        except ImportError as exc:
            readings[engine] = EngineReading(
                engine, fmt, skipped=f"{engine} could not be imported ({_first_line(exc)})"
            )
        readings[engine].without_inertial = without
    return readings


def _links_without_inertial(
    path: Path, fmt: str, folders: tuple[Path, ...], description: Any = None
) -> frozenset[str]:
    """The links (URDF, SDFormat) or bodies (MJCF) of the file that have no inertial, as the
    format's reader reads the file (``link.inertial is None``: MJCF includes and nested
    SDFormat models included); ``description`` when it was read already. Empty for USD, or
    when the reader refuses the file (the engines then say what is wrong)."""
    if fmt == "usd":
        return frozenset()
    if description is None:
        from ..errors import ParameterError
        from ..formats import read_description

        try:
            description = read_description(path, search_path=folders)
        except (ParameterError, OSError, ImportError):
            return frozenset()
    return frozenset(name for name, link in description.links.items() if link.inertial is None)


# -- known causes ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cause:
    """A known reason for an engine to read other values than the file's: ``code``, the
    ``engines`` it applies to, and one ``summary`` line saying what the engine does."""

    code: str
    engines: tuple[str, ...]
    summary: str


def _causes(*causes: Cause) -> dict[str, Cause]:
    return {cause.code: cause for cause in causes}


_BULLET = ("pybullet", "pybullet-inertia-from-file")

#: The catalogue: every cause here was reproduced on the installed engines by a one-link
#: fixture in tests/test_check_engines.py (MuJoCo 4.0, Drake 1.51, Pinocchio 4.1, pybullet
#: 3.2.7, usd-core 26.11, Newton 1.8).
KNOWN_CAUSES: dict[str, Cause] = _causes(
    Cause("mujoco-triangle", ("mujoco",),
          "MuJoCo refuses principal moments A + B < C (no tolerance): 'inertia must satisfy "
          "A + B >= C' (compiler balanceinertia would average them instead)"),
    Cause("mujoco-eigenvalue", ("mujoco",),
          "MuJoCo refuses a full tensor whose smallest eigenvalue is below mjEPS = 1e-14: "
          "'inertia must have positive eigenvalues'"),
    Cause("mujoco-minval", ("mujoco",),
          "MuJoCo refuses a moving body whose mass or a principal moment is below mjMINVAL = "
          "1e-15 (a zero mass, or no <inertial> and no geometry)"),
    Cause("mujoco-balanceinertia", ("mujoco",),
          "the file sets MuJoCo's compiler balanceinertia: a tensor breaking the triangle "
          "inequality becomes isotropic, each principal moment (A + B + C) / 3"),
    Cause("mujoco-bounds", ("mujoco",),
          "the file sets MuJoCo's compiler boundmass / boundinertia: a smaller mass or "
          "principal moment is raised to the bound"),
    Cause("mujoco-fusestatic", ("mujoco",),
          "MuJoCo's URDF default fusestatic=true merges every link without a moving joint into "
          "its parent (a fixed root into the world): the link is gone and its parent holds the "
          "composite"),
    Cause("pinocchio-fixed-joint", ("pinocchio",),
          "Pinocchio merges links attached by fixed joints into the parent joint's inertia: the "
          "link is gone and its parent holds the composite"),
    Cause("geometry-default-density", ("mujoco", "newton"),
          "no <inertial>: the mass and inertia are computed from the collision geometry at "
          "1000 kg/m^3 (MuJoCo inertiafromgeom=auto; Newton's shape density)"),
    Cause("massless-without-inertial", ("drake", "pinocchio", "newton"),
          "no <inertial>: the link is massless (mass 0, zero inertia)"),
    Cause("pybullet-1kg-default", _BULLET,
          "no <inertial>: pybullet gives the link 1 kg, inertia diag(1, 1, 1) at the link "
          "origin ('No inertial data for link'), or with default flags the collision shapes' "
          "inertia at 1 kg"),
    Cause("pybullet-recomputes-inertia", ("pybullet",),
          "pybullet's loadURDF/loadMJCF without URDF_USE_INERTIA_FROM_FILE (and loadSDF, which "
          "has no flag) replace the file's inertia by the collision shapes' at the declared "
          "mass (a 2 mm box with no collision shape)"),
    Cause("pybullet-invalid-inertia-zeroed", ("pybullet-inertia-from-file",),
          "pybullet with URDF_USE_INERTIA_FROM_FILE keeps a zero inertia where the tensor "
          "breaks the triangle inequality or has a negative eigenvalue"),
    Cause("pybullet-mjcf-inertia-ignored", ("pybullet-inertia-from-file",),
          "pybullet's MJCF importer with URDF_USE_INERTIA_FROM_FILE reads no diaginertia or "
          "fullinertia: the inertia is zero"),
    Cause("pybullet-diagonalisation", ("pybullet-inertia-from-file",),
          "pybullet stores only principal moments from btMatrix3x3::diagonalize (Jacobi, "
          "stopped at off-diagonals below 1e-6 of the trace): a tensor with products of "
          "inertia loses up to ~1e-6 of its trace"),
    Cause("drake-placeholder-sphere", ("drake",),
          "Drake's parser warns ('While parsing inertia matrix' / 'While re-expressing as "
          "central inertia') and substitutes a solid water sphere (1000 kg/m^3) of the "
          "declared mass (1 kg if it is not positive) for an invalid inertia"),
    Cause("newton-inertia-correction", ("newton",),
          "Newton's validate_and_correct_inertia adds k*identity: a principal moment below "
          "max(1e-6 I_max, 1e-10 kg m^2) is raised to it plus 1e-6 kg m^2, a broken triangle "
          "inequality is balanced (balance_inertia=True) with the same 1e-6 extra"),
    Cause("newton-zero-mass", ("newton",),
          "Newton zeroes the inertia of a zero-mass body (it treats it as static)"),
    Cause("pinocchio-zero-mass", ("pinocchio",),
          "Pinocchio keeps no centre of mass (lever 0) for a zero-mass inertial"),
    Cause("usd-stage-units", ("usd", "newton"),
          "USD values are authored in the stage's units (metersPerUnit, kilogramsPerUnit) and "
          "read without converting them to SI (Newton's importer ignores metersPerUnit)"),
    Cause("float32", ("usd", "newton", "pybullet", "pybullet-inertia-from-file"),
          "stored in single precision (USD float attributes, Newton's warp float32 arrays, "
          "pybullet's MJCF reader): about 6e-8 relative"),
)  # fmt: skip


@dataclass(frozen=True, eq=False)
class Disagreement:
    """One difference between an engine's reading and the reference.

    ``quantity``: ``"mass"``, ``"center_of_mass"``, ``"inertia"``, ``"merged"`` (the engine
    merged the link into ``got``), ``"missing"`` (the engine has no such link) or
    ``"refused"`` (the engine refused the file: ``link`` is None, ``got`` its message).
    ``relative``: the size of the difference (see :func:`compare`); ``cause``: the known
    cause, or None; ``detail``: what exactly was found.
    """

    engine: str
    link: str | None
    quantity: str
    expected: Any
    got: Any
    relative: float
    cause: Cause | None
    detail: str = ""

    @property
    def cause_code(self) -> str | None:
        return None if self.cause is None else self.cause.code

    def __str__(self) -> str:
        where = f"{self.engine}: {self.link}" if self.link else self.engine
        why = f" [{self.cause.code}]" if self.cause else " [cause unknown]"
        size = "" if math.isnan(self.relative) else f" (relative {self.relative:.3g})"
        return f"{where}: {self.quantity}{size}{why} {self.detail}".rstrip()


# -- differences -------------------------------------------------------------------------------


def _scale_length(ref: EngineInertial) -> float:
    gyration = math.sqrt(max(np.trace(ref.inertia), 0.0) / ref.mass) if ref.mass > 0 else 0.0
    return max(gyration, float(np.max(np.abs(ref.center_of_mass))))


def _ratio(difference: float, scale: float) -> float:
    if difference == 0.0:
        return 0.0
    if not math.isfinite(difference):
        return math.inf
    return difference / scale if scale > 0 else 1.0


def differences(ref: EngineInertial, got: EngineInertial) -> dict[str, float]:
    """The size of each difference, relative: mass ``|dm| / max(|m_ref|, |m_got|)``; centre
    of mass ``max|dc| / L`` with ``L`` the larger of the reference's radius of gyration
    ``sqrt(tr I / m)`` and its largest coordinate; inertia ``max|dI| / tr(I_ref)`` (or the
    larger tensor's trace when the reference's is not positive). A zero scale with a non-zero
    difference counts 1; a non-finite value counts infinity."""
    dm = abs(got.mass - ref.mass)
    dc = float(np.max(np.abs(got.center_of_mass - ref.center_of_mass)))
    di = float(np.max(np.abs(got.inertia - ref.inertia)))
    trace = float(np.trace(ref.inertia))
    if not trace > 0:
        trace = max(float(np.trace(got.inertia)), 0.0) if np.all(np.isfinite(got.inertia)) else 0
    length = _scale_length(ref) or float(np.max(np.abs(got.center_of_mass)))
    return {
        "mass": _ratio(dm, max(abs(ref.mass), abs(got.mass))),
        "center_of_mass": _ratio(dc, length),
        "inertia": _ratio(di, trace),
    }


def _is_invalid(inertia: np.ndarray) -> bool:
    """Whether a finite tensor breaks MuJoCo's rule on its own (a negative moment breaks the
    triangle too), the mass aside (:func:`rigidparts.inertia.mujoco_invalidity`)."""
    moments = _moments(inertia)
    return bool(np.all(np.isfinite(moments))) and (
        mujoco_invalidity(1.0, moments, moving=False) is not None
    )


@dataclass(frozen=True)
class _Context:
    """The reading and the link a rule looks at."""

    reading: EngineReading
    link: str


# Each rule: (engine, context, quantity, reference, got) -> (cause code, detail) or None.
_F32 = 2.0**-24


def _float32_close(a: np.ndarray | float, b: np.ndarray | float, scale: float) -> bool:
    return bool(np.max(np.abs(np.asarray(a) - np.asarray(b))) <= 8 * _F32 * max(scale, 1e-300))


def _rule_missing_inertial(
    engine: str, context: _Context, quantity: str, ref: EngineInertial, got: EngineInertial
) -> tuple[str, str] | None:
    if context.link not in context.reading.without_inertial:
        return None
    if engine in _BULLET and got.mass == 1.0:
        return "pybullet-1kg-default", "no <inertial>: pybullet made it 1 kg"
    if engine in ("mujoco", "newton") and got.mass > 0:
        return "geometry-default-density", (
            f"no <inertial>: {got.mass!r} kg from the geometry at 1000 kg/m^3"
        )
    if engine in ("drake", "pinocchio", "newton") and got.mass == 0.0:
        return "massless-without-inertial", "no <inertial>: massless"
    return None


def _rule_mujoco_compiler(
    engine: str, context: _Context, quantity: str, ref: EngineInertial, got: EngineInertial
) -> tuple[str, str] | None:
    settings = context.reading.settings
    if engine != "mujoco" or not settings:
        return None
    bound_mass, bound_inertia = settings.get("boundmass", 0.0), settings.get("boundinertia", 0.0)
    if quantity == "mass" and bound_mass > ref.mass and got.mass == bound_mass:
        return "mujoco-bounds", f"mass {ref.mass!r} raised to boundmass {bound_mass!r}"
    if quantity != "inertia":
        return None
    moments = _moments(ref.inertia)
    trace = float(np.sum(moments))
    if (
        settings.get("balanceinertia")
        and _is_invalid(ref.inertia)
        and np.allclose(got.inertia, trace / 3 * np.eye(3), rtol=1e-12, atol=0)
    ):
        return "mujoco-balanceinertia", f"balanced to {trace / 3!r} * identity"
    if (
        bound_inertia > 0
        and np.any(moments < bound_inertia)
        and np.allclose(
            _moments(got.inertia), np.maximum(moments, bound_inertia), rtol=1e-12, atol=0
        )
    ):
        return "mujoco-bounds", f"principal moments raised to boundinertia {bound_inertia!r}"
    return None


def _rule_stage_units(
    engine: str, context: _Context, quantity: str, ref: EngineInertial, got: EngineInertial
) -> tuple[str, str] | None:
    meters, kilograms = context.reading.meters_per_unit, context.reading.kilograms_per_unit
    if context.reading.format != "usd" or (meters == 1.0 and kilograms == 1.0):
        return None
    si = EngineInertial(got.mass * kilograms, got.center_of_mass * meters,
                      got.inertia * kilograms * meters**2)  # fmt: skip
    if differences(ref, si)[quantity] <= 1e-6:
        return "usd-stage-units", (
            f"read in stage units (metersPerUnit {meters!r}, kilogramsPerUnit {kilograms!r}); "
            "converted to SI they agree"
        )
    return None


def _rule_drake_sphere(
    engine: str, context: _Context, quantity: str, ref: EngineInertial, got: EngineInertial
) -> tuple[str, str] | None:
    if engine != "drake" or "While " not in context.reading.output:
        return None
    mass = ref.mass if math.isfinite(ref.mass) and ref.mass > 0 else 1.0
    radius = (3.0 / (4.0 * math.pi) * mass / 1000.0) ** (1.0 / 3.0)
    sphere = 0.4 * mass * radius**2 * np.eye(3)
    same_mass = abs(got.mass - mass) <= 1e-12 * mass
    if same_mass and np.allclose(got.inertia, sphere, rtol=1e-9, atol=0):
        return "drake-placeholder-sphere", (
            f"the file's inertia is invalid for Drake: a {mass!r} kg water sphere "
            f"(radius {radius:.6g} m) instead"
        )
    return None


def _rule_newton(
    engine: str, context: _Context, quantity: str, ref: EngineInertial, got: EngineInertial
) -> tuple[str, str] | None:
    if engine != "newton" or quantity != "inertia":
        return None
    if ref.mass == 0.0 and not np.any(got.inertia):
        return "newton-zero-mass", "zero mass: Newton zeroed the inertia"
    shift = got.inertia - ref.inertia
    k = float(np.trace(shift)) / 3.0
    scale = float(np.max(np.abs(got.inertia)))
    noise = 8 * _F32 * scale  # a shift within float32 rounding is no correction
    if k > noise and _float32_close(shift, k * np.eye(3), scale):
        i1, i2, i3 = _moments(ref.inertia)
        floor = max(1e-6 * i3, 1e-10)
        if i1 < floor:
            why = f"smallest principal moment {i1:.6g} below Newton's minimum {floor:.6g}"
        elif i1 + i2 < i3:
            why = f"triangle inequality broken ({i1:.6g} + {i2:.6g} < {i3:.6g})"
        else:
            why = "corrected"
        return "newton-inertia-correction", f"{why}: Newton added {k:.6g} * identity"
    return None


def _rule_pinocchio_zero_mass(
    engine: str, context: _Context, quantity: str, ref: EngineInertial, got: EngineInertial
) -> tuple[str, str] | None:
    if (
        engine == "pinocchio"
        and ref.mass == 0.0
        and quantity == "center_of_mass"
        and not np.any(got.center_of_mass)
    ):
        return "pinocchio-zero-mass", "zero mass: Pinocchio dropped the centre of mass"
    return None


def _rule_bullet(
    engine: str, context: _Context, quantity: str, ref: EngineInertial, got: EngineInertial
) -> tuple[str, str] | None:
    if engine not in _BULLET or quantity != "inertia":
        return None
    if engine == "pybullet":
        if abs(got.mass - ref.mass) <= 1e-6 * max(abs(ref.mass), 1e-300):
            return "pybullet-recomputes-inertia", (
                "inertia from the collision shapes, not the file (default flags)"
            )
        return None
    if not np.any(got.inertia) and np.any(ref.inertia):
        if context.reading.format == "mjcf":
            return "pybullet-mjcf-inertia-ignored", "the MJCF inertia was not read: zero"
        if _is_invalid(ref.inertia):
            return "pybullet-invalid-inertia-zeroed", "invalid tensor: pybullet kept zero"
    trace = float(np.trace(ref.inertia))
    off_diagonal = np.any(ref.inertia - np.diag(np.diag(ref.inertia)))
    if off_diagonal and trace > 0 and np.max(np.abs(got.inertia - ref.inertia)) <= 2e-6 * trace:
        return "pybullet-diagonalisation", (
            "principal moments from a Jacobi diagonalisation stopped at 1e-6 of the trace"
        )
    return None


def _rule_float32(
    engine: str, context: _Context, quantity: str, ref: EngineInertial, got: EngineInertial
) -> tuple[str, str] | None:
    if engine not in KNOWN_CAUSES["float32"].engines:
        return None
    if engine in _BULLET and context.reading.format != "mjcf":
        return None
    pairs = {
        "mass": (ref.mass, got.mass, abs(ref.mass)),
        "center_of_mass": (ref.center_of_mass, got.center_of_mass, _scale_length(ref)),
        "inertia": (ref.inertia, got.inertia, float(np.max(np.abs(ref.inertia)))),
    }
    a, b, scale = pairs[quantity]
    if _float32_close(a, b, scale):
        return "float32", "single-precision rounding"
    return None


_RULES = (
    _rule_missing_inertial,
    _rule_mujoco_compiler,
    _rule_stage_units,
    _rule_drake_sphere,
    _rule_newton,
    _rule_pinocchio_zero_mass,
    _rule_bullet,
    _rule_float32,
)

_REFUSALS = (
    ("inertia must satisfy A + B >= C", "mujoco-triangle"),
    ("inertia must have positive eigenvalues", "mujoco-eigenvalue"),
    ("must be larger than mjMINVAL", "mujoco-minval"),
)


def _diagnose(
    engine: str, context: _Context, quantity: str, ref: EngineInertial, got: EngineInertial
) -> tuple[Cause | None, str]:
    """The first rule of :data:`_RULES` that explains the difference, or ``(None, "")``."""
    for rule in _RULES:
        found = rule(engine, context, quantity, ref, got)
        if found is not None:
            code, detail = found
            return KNOWN_CAUSES[code], detail
    return None, ""


def _value(link: EngineInertial, quantity: str) -> Any:
    values = {"mass": link.mass, "center_of_mass": link.center_of_mass, "inertia": link.inertia}
    return values[quantity]


def _link_disagreements(
    engine: str,
    context: _Context,
    ref: EngineInertial,
    got: EngineInertial,
    tolerance: float,
    *,
    composite: tuple[EngineInertial, Cause, str] | None = None,
    suffix: str = "",
) -> list[Disagreement]:
    """The differences above ``tolerance`` of one link, each diagnosed; where ``composite``
    ``(values, cause, detail)`` is given, a quantity that agrees with those values carries
    that cause instead."""
    found = []
    whole = differences(composite[0], got) if composite is not None else None
    for quantity, relative in differences(ref, got).items():
        if not relative > tolerance:
            continue
        if composite is not None and whole is not None and whole[quantity] <= tolerance:
            cause, detail = composite[1], composite[2]
        else:
            cause, detail = _diagnose(engine, context, quantity, ref, got)
        found.append(
            Disagreement(
                engine, context.link, quantity, _value(ref, quantity), _value(got, quantity),
                relative, cause, f"{detail}{suffix}".strip(),
            )
        )  # fmt: skip
    return found


def _reading_disagreements(
    engine: str, reading: EngineReading, refs: dict[str, EngineInertial], tolerance: float
) -> list[Disagreement]:
    """:func:`compare` for one engine's reading."""
    if reading.skipped is not None:
        return []
    if reading.error is not None:
        code = next((c for text, c in _REFUSALS if text in reading.error), None)
        cause = KNOWN_CAUSES[code] if code else None
        return [
            Disagreement(engine, None, "refused", None, reading.error, math.nan, cause,
                         reading.error)
        ]  # fmt: skip
    merge_cause = KNOWN_CAUSES[
        "mujoco-fusestatic" if engine == "mujoco" else "pinocchio-fixed-joint"
    ]
    held: dict[str, list[str]] = {}
    for name, merged in reading.merged.items():
        held.setdefault(merged.into, []).append(name)
    found: list[Disagreement] = []
    for name, ref in refs.items():
        context = _Context(reading, name)
        if name in reading.merged:
            merged = reading.merged[name]
            detail = f"merged into {merged.into} ({merged.why})"
            found.append(
                Disagreement(engine, name, "merged", None, merged.into, math.nan, merge_cause,
                             detail)
            )  # fmt: skip
            if merged.own is not None:  # its own values, read with the merging off
                found += _link_disagreements(
                    engine, context, ref, merged.own, tolerance,
                    suffix=f" (read with {merged.why} off)",
                )  # fmt: skip
            continue
        got = reading.links.get(name)
        if got is None:
            if name != "world":  # URDF's conventional world link is the engines' world
                found.append(
                    Disagreement(engine, name, "missing", None, None, math.nan, None,
                                 "the engine has no such link")
                )  # fmt: skip
            continue
        composite = None
        if name in held:
            parts = [ref]
            for child in held[name]:
                if child in refs:
                    m = reading.merged[child]
                    parts.append(refs[child].placed(m.rotation, m.position))
            detail = f"holds the merged links {', '.join(held[name])}: equals the composite"
            composite = (combine(parts), merge_cause, detail)
        found += _link_disagreements(engine, context, ref, got, tolerance, composite=composite)
    return found


def compare(
    readings: Mapping[str, EngineReading],
    reference: Mapping[str, Any],
    tolerance: float = 1e-9,
) -> list[Disagreement]:
    """Every difference above ``tolerance`` (relative, see :func:`differences`) between each
    engine's reading and ``reference`` (link name -> mass, centre of mass ``p_LoLcm_L`` and
    central inertia ``I_LLcm_L`` in the link frame: a :class:`EngineInertial`, a
    ``MassProperties`` or a ``(mass, com, inertia)`` tuple), each with its known cause
    (:data:`KNOWN_CAUSES`) where one applies.

    A refusal is one ``"refused"`` disagreement. A link the engine merged into another is one
    ``"merged"`` disagreement (plus its own values' differences where the engine can read them
    unmerged), and the link it went into is compared with its own reference: a difference that
    the composite of both explains (the merged link placed by the engine's own pose of it,
    parallel-axis theorem) carries the merge's cause. Skipped engines give nothing.
    """
    refs = {name: EngineInertial.of(value) for name, value in reference.items()}
    found: list[Disagreement] = []
    for engine, reading in readings.items():
        found += _reading_disagreements(engine, reading, refs, tolerance)
    return found
