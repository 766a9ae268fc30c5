"""The exports in the other engines users load them into: pybullet (URDF), SDFormat's own
checker (Gazebo's ``gz sdf -k`` / ``ign sdf -k``) and USD read back by usd-core and by NVIDIA
Newton. Every shipped example without rods and a model with every shape of the registry.

- pybullet: every link's mass, centre of mass and inertia within 1e-15 (the inertial in its
  principal frame; a full tensor loses up to ~2e-7 in Bullet's Jacobi, the trap test shows;
  frame links massless: without an explicit zero inertial pybullet makes each 1 kg); the pendulum's
  period within 1e-4 of the textbook one; short runs of each example agree with MuJoCo's once
  pybullet's first-order integrator error is extrapolated away (Richardson).
- SDFormat: the checker accepts every SDF export, and rejects a broken one (it is real).
- USD: stage units, rigid bodies with every mass property within single precision (USD's
  float), body and frame poses in double, joints whose two frames coincide at joint position
  zero and turn about the model's axis; Newton reads the same masses and moves the bodies as
  the model does.

The engine-reading code is written here, independently of the library.
"""

from __future__ import annotations

import math
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import rigidparts as rp
from rigidparts.commands import main
from rigidparts.export import export, format_from_suffix
from rigidparts.model import Model, load_model
from rigidparts.shapes import SHAPES
from test_export_engines import EDGE_MARGIN, awkward_inertias

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
TOLERANCE = 1e-12
#: Inertia written in its principal frame (export/_inertial.py) and read by pybullet or
#: SDFormat's reader: a few ulp of the trace (the rpy -> R rounding of each entry, ~2 eps, and
#: the products R D R^T): 4.5 eps. Measured at most 5.2e-16 over 2400 turned bodies
#: (scripts/inertia_readback.py).
EXACT = 1e-15
#: USD's float: a value rounded to float32 is within 2^-24 = 6e-8 of it, relatively.
SINGLE = 1e-7


def shipped_examples() -> dict[str, Model]:
    """Every ``examples/*.toml`` without rods (URDF, SDFormat and USD have no rod element)."""
    models = {}
    for path in sorted(EXAMPLES.glob("*.toml")):
        model = load_model(path)
        if not getattr(model, "rods", None):
            models[path.stem] = model
    return models


def relative_error(reference: rp.MassProperties, mass, com, inertia) -> float:
    """Largest of: mass error / mass, centre-of-mass error / body size, inertia error / trace
    (as in test_export_engines.py)."""
    size = max(
        math.sqrt(np.trace(reference.inertia) / reference.mass),
        float(np.max(np.abs(reference.center_of_mass))),
    )
    return max(
        abs(float(mass) - reference.mass) / reference.mass,
        float(np.max(np.abs(np.asarray(com, dtype=float) - reference.center_of_mass))) / size,
        float(np.max(np.abs(np.asarray(inertia, dtype=float) - reference.inertia)))
        / np.trace(reference.inertia),
    )


#: Tilted axes, so that every body's tensor is full in frame_a.
AXES = [(1, 2, 3), (0, 1, 1), (-1, 0.5, 2), (2, -1, 1), (1, 1, -1), (0.3, -2, 1), (1, 0, 2)]
#: A turned frame (roll, pitch, yaw 0.3, -0.2, 1.1).
TURN = Rotation.from_euler("xyz", [0.3, -0.2, 1.1]).as_matrix()


def sample_solid():
    """A closed, outward-wound solid for shapes built from a mesh: a 0.3 x 0.2 x 0.1 m box,
    turned and moved off the origin (full tensor, centre of mass away from frame_a)."""
    trimesh = pytest.importorskip("trimesh")
    solid = trimesh.creation.box(extents=(0.3, 0.2, 0.1))
    transform = np.eye(4)
    transform[:3, :3], transform[:3, 3] = TURN, (0.05, -0.02, 0.1)
    solid.apply_transform(transform)
    return solid


def shape_options(k: int, spec) -> dict:
    """Keywords for one body of ``spec``: its defaults, a tilted axis, one extra frame of the
    shape's kind, and a solid for a parameter that is a file (with its unit)."""
    options: dict = {}
    example = spec.example_kwargs() if spec.example is not None else {}
    raw = [p for p in spec.params if p.kind in ("path", "text")]
    if any(p.kind == "path" and isinstance(example.get(p.name), str) for p in raw):
        # a shape read from a file of its own format (STEP): its example's file and options
        options.update({p.name: example[p.name] for p in raw})
    for param in [] if options else spec.params:
        if param.default is None and param.kind == "path":
            options[param.name] = sample_solid()
        elif param.default is None and param.name == "units":
            options[param.name] = "m"  # the unit of the sample solid's coordinates
    if spec.axis:
        options["axis"] = AXES[k % len(AXES)]
    if spec.extra_frames == "axial":
        options["extra_frames"] = [0.3]
    elif spec.extra_frames == "radial":
        options["extra_frames"] = [(0.2, "30 deg")]
    elif spec.extra_frames == "named":
        options["frames"] = {"tool": {"position": (0.1, 0.05, 0.02), "rotation": TURN.tolist()}}
    return options


def every_shape() -> Model:
    """One body of every registered shape (defaults, tilted axes, an extra frame each), in a
    chain of revolute, prismatic and fixed joints with tilted axes."""
    model = Model("every_shape")
    previous = None
    for k, (name, spec) in enumerate(SHAPES.items()):
        model.add_body(name, rp.body_class(name)(**shape_options(k, spec)))
        if previous is None:
            parent = "world"
        elif "frame_b" in model.bodies[previous].frames:
            parent = f"{previous}.frame_b"
        else:
            parent = f"{previous}.frame_a"
        kind = ("revolute", "prismatic", "fixed")[k % 3]
        axis = {} if kind == "fixed" else {"axis": AXES[(k + 2) % len(AXES)]}
        model.add_joint(f"j_{name}", kind, parent, f"{name}.frame_a", **axis)
        previous = name
    return model


def varied() -> Model:
    """The other joint cases: a root welded to the world through a turned joint frame, a hinge
    at an extra frame (limits, damping), a hollow tilted body, a prismatic joint holding its
    body at frame_com, a ball joint (SDF and USD only)."""
    model = Model("varied")
    model.add_body("base", rp.Box(length=0.2, width=0.3, height=0.3, axis=(0, 0, 1)))
    model.add_body("arm", rp.Box(length=0.7, width=0.04, height=0.06, inner_width=0.03,
                                 inner_height=0.05, axis=(1, 1, 0), rotate90=True,
                                 extra_frames=[0.2, 0.5], material="aluminium"))  # fmt: skip
    model.add_body("cone", rp.Cone(length=0.3, radius_a=0.05, radius_b=0.0, axis=(1, 2, 3),
                                   density=1234.5))  # fmt: skip
    model.add_body("tube", rp.Cone(length=0.4, radius_a=0.03, radius_b=0.02, inner_radius_a=0.025,
                                   inner_radius_b=0.015, axis=(0, 0, -1)))  # fmt: skip
    model.add_body("knob", rp.Box(length=0.1, width=0.05, height=0.05, axis=(1, -1, 2)))
    model.add_joint("mount", "fixed", "world", "base", position=(0.5, -0.2, 0.1), rotation=TURN)
    model.add_joint("shoulder", "revolute", "base.frame_b", "arm.frame_c1", axis=(0, 0, 1),
                    limits=(-2, 2), damping=0.3)  # fmt: skip
    model.add_joint("elbow", "revolute", "arm.frame_b", "cone.frame_a", axis=(1, 1, 1))
    model.add_joint("slide", "prismatic", "cone.frame_b", "tube.frame_com", axis=(0, 1, 0),
                    position=(0.01, 0.02, 0.03), limits=(-0.1, 0.2), damping=0.5)  # fmt: skip
    model.add_joint("socket", "ball", "arm.frame_c2", "knob.frame_a")
    return model


def floating() -> Model:
    """A free root held at its centre of mass, with a ball-jointed child."""
    model = Model("floating")
    model.add_body("hull", rp.Cone(length=0.5, radius_a=0.1, radius_b=0.05, axis=(0, 0, 1)))
    model.add_body("mast", rp.Box(length=0.3, width=0.02, height=0.03, axis=(1, 0, 1)))
    model.add_joint("float", "free", "world", "hull.frame_com", position=(0, 0, 1))
    model.add_joint("socket", "ball", "hull.frame_b", "mast.frame_a")
    return model


MODELS = {**shipped_examples(), "every_shape": every_shape}
#: More joint cases, for the formats that hold them (SDF and USD: ball and free).
MORE = {"varied": varied, "floating": floating}
#: Joint positions away from zero, to check an engine's joint conventions.
MOVES = {
    "serial_arm": {"shoulder": 0.3, "elbow": -0.4, "wrist": 1.3},
    "varied": {"shoulder": 0.7, "elbow": -0.9, "slide": 0.05},
    "every_shape": {f"j_{name}": 0.1 * (k + 1) for k, name in enumerate(SHAPES) if k % 3 != 2},
}


def build(name: str) -> Model:
    made = {**MODELS, **MORE}[name]
    return made() if callable(made) else made


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """name -> (model, folder): each model written on demand as URDF, SDF and USD."""
    cache: dict[str, tuple[Model, Path]] = {}

    def get(name: str, suffix: str) -> tuple[Model, Path]:
        if name not in cache:
            cache[name] = (build(name), tmp_path_factory.mktemp(name))
        model, folder = cache[name]
        path = folder / f"{name}{suffix}"
        if not path.exists():
            export(model, path)
        return model, path

    return get


def test_the_examples_and_shapes_are_all_here():
    assert {"pendulum", "double_pendulum", "serial_arm"} <= set(MODELS)
    assert set(every_shape().bodies) == set(SHAPES)


# -- pybullet --------------------------------------------------------------------------------


def test_urdf_frame_links_have_an_explicit_zero_inertial():
    """What pybullet needs (a link without <inertial> is 1 kg there), read from the XML."""
    model = every_shape()
    from rigidparts.export.urdf import to_urdf

    links = {link.get("name"): link for link in ET.fromstring(to_urdf(model)).iter("link")}
    frames = [f"{b}.{f}" for b, body in model.bodies.items() for f in body.frames]
    assert set(links) == {"world", *model.bodies, *frames}
    for frame in frames:
        inertial = links[frame].find("inertial")
        assert float(inertial.find("mass").get("value")) == 0.0, frame
        assert {k: float(v) for k, v in inertial.find("inertia").attrib.items()} == dict.fromkeys(
            ("ixx", "ixy", "ixz", "iyy", "iyz", "izz"), 0.0
        )
    for body_name, body in model.bodies.items():
        mass = float(links[body_name].find("inertial").find("mass").get("value"))
        assert mass == body.mass


@pytest.fixture(scope="module")
def bullet():
    pybullet = pytest.importorskip("pybullet")
    from pybullet_utils.bullet_client import BulletClient

    client = BulletClient(connection_mode=pybullet.DIRECT)
    yield pybullet, client
    client.disconnect()


def load_in_bullet(bullet, path: Path):
    """The URDF as a fixed-base multibody, inertia as written (pybullet's default would
    recompute it from the collision shapes), no damping and no joint motors."""
    pybullet, client = bullet
    client.resetSimulation()
    uid = client.loadURDF(str(path), useFixedBase=True, flags=pybullet.URDF_USE_INERTIA_FROM_FILE)
    for link in range(-1, client.getNumJoints(uid)):
        client.changeDynamics(uid, link, linearDamping=0.0, angularDamping=0.0)
    for joint in range(client.getNumJoints(uid)):
        client.setJointMotorControl2(uid, joint, pybullet.VELOCITY_CONTROL, force=0.0)
    return uid


def bullet_links(client, uid) -> dict[str, tuple[float, np.ndarray, np.ndarray]]:
    """link name -> (mass, centre of mass, central inertia) in the URDF link frame."""
    links = {}
    for index in range(client.getNumJoints(uid)):
        name = client.getJointInfo(uid, index)[12].decode()
        mass, _, moments, com, (x, y, z, w) = client.getDynamicsInfo(uid, index)[:5]
        r = Rotation.from_quat([x, y, z, w]).as_matrix()
        links[name] = (mass, np.array(com), r @ np.diag(moments) @ r.T)
    return links


def bullet_diagonalize(tensor: np.ndarray, threshold: float = 1e-6, steps: int = 30):
    """Bullet's ``btMatrix3x3::diagonalize`` (LinearMath/btMatrix3x3.h), which pybullet's URDF
    importer applies to a URDF ``<inertia>`` (threshold 1e-6, 30 steps): cyclic Jacobi on the
    largest off-diagonal entry, stopped one rotation after that entry falls below ``threshold``
    times the trace. Returns ``(diagonal, axes, residual)``: the moments pybullet keeps, the
    rotation, and the largest off-diagonal entry it drops (kg m^2)."""
    m = np.array(tensor, dtype=float)
    rot = np.eye(3)
    eps = np.finfo(float).eps
    step = steps
    while step > 0:
        p, q, r = 0, 1, 2
        largest = abs(m[0, 1])
        if abs(m[0, 2]) > largest:
            q, r, largest = 2, 1, abs(m[0, 2])
        if abs(m[1, 2]) > largest:
            p, q, r, largest = 1, 2, 0, abs(m[1, 2])
        t = threshold * (abs(m[0, 0]) + abs(m[1, 1]) + abs(m[2, 2]))
        if largest <= t:
            if largest <= eps * t:
                break
            step = 1
        mpq = m[p, q]
        theta = (m[q, q] - m[p, p]) / (2 * mpq)
        theta2 = theta * theta
        if theta2 * theta2 < 10 / eps:
            t = (
                1 / (theta + math.sqrt(1 + theta2))
                if theta >= 0
                else 1 / (theta - math.sqrt(1 + theta2))
            )
            cos = 1 / math.sqrt(1 + t * t)
        else:
            t = 1 / (theta * (2 + 0.5 / theta2))
            cos = 1 - 0.5 * t * t
        sin = cos * t
        m[p, q] = m[q, p] = 0.0
        m[p, p] -= t * mpq
        m[q, q] += t * mpq
        mrp, mrq = m[r, p], m[r, q]
        m[r, p] = m[p, r] = cos * mrp - sin * mrq
        m[r, q] = m[q, r] = cos * mrq + sin * mrp
        for i in range(3):
            mrp, mrq = rot[i, p], rot[i, q]
            rot[i, p] = cos * mrp - sin * mrq
            rot[i, q] = cos * mrq + sin * mrp
        step -= 1
    return np.diag(m).copy(), rot, float(np.max(np.abs(m - np.diag(np.diag(m)))))


def written_inertia(path: Path, link: str) -> np.ndarray:
    """The ``<inertia>`` of ``link`` as the URDF file says it."""
    element = ET.parse(path).getroot().find(f"link[@name='{link}']/inertial/inertia")
    e = {key: float(value) for key, value in element.attrib.items()}
    return np.array([[e["ixx"], e["ixy"], e["ixz"]], [e["ixy"], e["iyy"], e["iyz"]],
                     [e["ixz"], e["iyz"], e["izz"]]])  # fmt: skip


@pytest.mark.parametrize("name", list(MODELS))
def test_pybullet_reads_every_mass_exactly_and_frame_links_massless(bullet, files, name):
    """Mass, centre of mass and inertia of every body within 1e-15 (:data:`EXACT`), frame
    links 0 kg. The ``<inertial>`` is in its principal frame (zero products): pybullet keeps
    such a tensor as written and turns it by the ``rpy`` of its origin."""
    _, client = bullet
    model, path = files(name, ".urdf")
    uid = load_in_bullet(bullet, path)
    links = bullet_links(client, uid)
    frames = {f"{b}.{f}" for b, body in model.bodies.items() for f in body.frames}
    assert set(links) == set(model.bodies) | frames
    for body_name, body in model.bodies.items():
        mass, com, inertia = links[body_name]
        assert relative_error(body.mass_properties, mass, com, inertia) <= EXACT, body_name
    for frame in frames:
        mass, _, inertia = links[frame]
        assert mass == 0.0 and not inertia.any(), frame
    base = client.getDynamicsInfo(uid, -1)[0]  # the world link
    total = base + sum(mass for mass, _, _ in links.values())
    reference = model.mass_properties().mass
    assert abs(total - reference) <= TOLERANCE * reference


def full_tensor_urdf(path: Path, model: Model, out: Path) -> Path:
    """The URDF at ``path`` with each body's ``<inertial>`` rewritten as the full tensor in
    frame_a (``rpy = 0``, the six entries of ``body.inertia``): the form written before."""
    tree = ET.parse(path)
    for link in tree.getroot().iter("link"):
        body = model.bodies.get(link.get("name"))
        if body is None:
            continue
        inertial = link.find("inertial")
        inertial.find("origin").set("rpy", "0 0 0")
        i = body.inertia
        entries = {"ixx": i[0, 0], "ixy": i[0, 1], "ixz": i[0, 2], "iyy": i[1, 1],
                   "iyz": i[1, 2], "izz": i[2, 2]}  # fmt: skip
        for key, value in entries.items():
            inertial.find("inertia").set(key, repr(float(value)))
    tree.write(out)
    meshes = path.with_name(f"{path.stem}_meshes")
    if meshes.exists():
        shutil.copytree(meshes, out.parent / meshes.name)  # the URDF names this folder
    return out


def test_pybullet_loses_the_products_of_a_full_tensor(bullet, files, tmp_path):
    """Why the principal frame: the same bodies written as full tensors (``rpy = 0``). pybullet
    diagonalises those with Bullet's Jacobi (emulated above, matched to 1e-15) and keeps its
    diagonal, dropping what the Jacobi leaves off the diagonal: up to 1e-10 of the trace and
    more, ~1e5 times the principal form's error."""
    _, client = bullet
    model, path = files("every_shape", ".urdf")
    full = full_tensor_urdf(path, model, tmp_path / path.name)
    uid = load_in_bullet(bullet, full)
    links = bullet_links(client, uid)
    worst = 0.0
    for index in range(client.getNumJoints(uid)):
        body_name = client.getJointInfo(uid, index)[12].decode()
        if body_name not in model.bodies:
            continue
        props = model.bodies[body_name].mass_properties
        trace = np.trace(props.inertia)
        moments, axes, dropped = bullet_diagonalize(written_inertia(full, body_name))
        _, _, bullet_moments, _, (x, y, z, w) = client.getDynamicsInfo(uid, index)[:5]
        assert np.abs(np.array(bullet_moments) - moments).max() <= 1e-15 * trace, body_name
        bullet_axes = Rotation.from_quat([x, y, z, w]).as_matrix()
        assert np.abs(bullet_axes - axes).max() <= 1e-15, body_name
        error = np.abs(links[body_name][2] - props.inertia).max()
        assert error <= TOLERANCE * trace + 3 * dropped, body_name
        worst = max(worst, error / trace)
    assert worst > 1e-11


def test_pybullet_reads_hard_inertial_frames_exactly(bullet, tmp_path):
    """Nearly equal moments, a cube, a turned mesh body, plates at the triangle edge (turned:
    the URDF margin of 64 eps; along y: exact), each on its own hinge: every tensor within
    :data:`EXACT` of the trace (the turned plate within its margin)."""
    _, client = bullet
    model = awkward_inertias()
    path = tmp_path / "awkward.urdf"
    export(model, path)
    links = bullet_links(client, load_in_bullet(bullet, path))
    for name, body in model.bodies.items():
        mass, com, inertia = links[name]
        bound = EDGE_MARGIN if name == "turned_plate" else EXACT
        assert relative_error(body.mass_properties, mass, com, inertia) <= bound, name


def test_pybullet_gives_a_frame_link_without_inertial_1_kg(bullet, files, tmp_path):
    """The trap: the same URDF without the frame links' zero inertials."""
    _, path = files("pendulum", ".urdf")
    tree = ET.parse(path)
    for link in tree.getroot().iter("link"):
        if "." in link.get("name"):
            link.remove(link.find("inertial"))
    plain = tmp_path / "plain.urdf"
    tree.write(plain)
    shutil.copytree(path.with_name("pendulum_meshes"), tmp_path / "pendulum_meshes")
    _, client = bullet
    links = bullet_links(client, load_in_bullet(bullet, plain))
    frames = [name for name in links if "." in name]
    assert frames and all(links[name][0] == 1.0 for name in frames)


def gauss(f, a: float, b: float) -> float:
    """Gauss-Legendre with 8 nodes on [a, b]: exact for the polynomials integrated here."""
    nodes, weights = np.polynomial.legendre.leggauss(8)
    s = (a + b) / 2 + (b - a) / 2 * nodes
    return float((b - a) / 2 * np.sum(weights * f(s)))


def pendulum_textbook(model: Model) -> tuple[float, float, float]:
    """examples/pendulum.toml from the textbook: (mass, first moment m d, moment of inertia)
    about the hinge axis y. The arm is a 1 m x 20 mm x 20 mm bar hanging from the hinge
    (I_cm = m (L^2 + w^2) / 12); the bob a solid frustum from 1 m to 1.1 m below it, radius
    50 mm to 20 mm, integrated in discs (a disc of radius r at depth s: r^2 / 4 + s^2 per kg)."""
    rho_arm, rho_bob = model.bodies["arm"].density, model.bodies["bob"].density
    m_arm = rho_arm * 1.0 * 0.02 * 0.02
    i_arm = m_arm * (1.0 + 0.02**2) / 12 + m_arm * 0.5**2

    def radius(s):
        return 0.05 + (0.02 - 0.05) * (s - 1.0) / 0.1

    def disc_mass(s):
        return rho_bob * math.pi * radius(s) ** 2

    m_bob = gauss(disc_mass, 1.0, 1.1)
    first_bob = gauss(lambda s: disc_mass(s) * s, 1.0, 1.1)
    i_bob = gauss(lambda s: disc_mass(s) * (radius(s) ** 2 / 4 + s**2), 1.0, 1.1)
    return m_arm + m_bob, m_arm * 0.5 + first_bob, i_arm + i_bob


def zero_crossing_period(time: np.ndarray, angle: np.ndarray) -> float:
    """Mean period from downward zero crossings (linear interpolation between samples)."""
    s = angle
    idx = np.nonzero((s[:-1] > 0) & (s[1:] <= 0))[0]
    t = time[idx] - s[idx] * (time[idx + 1] - time[idx]) / (s[idx + 1] - s[idx])
    assert len(t) >= 2
    return float(np.mean(np.diff(t)))


def bullet_joints(client, uid) -> dict[str, int]:
    return {client.getJointInfo(uid, j)[1].decode(): j for j in range(client.getNumJoints(uid))}


def test_pybullet_pendulum_period_is_the_textbook_one(bullet, files):
    _, client = bullet
    model, path = files("pendulum", ".urdf")
    mass, first_moment, inertia = pendulum_textbook(model)
    assert mass == pytest.approx(model.mass_properties().mass, rel=1e-14)  # the same pendulum
    g = -model.gravity[2]
    amplitude = 1e-3
    expected = 2 * math.pi * math.sqrt(inertia / (first_moment * g))
    expected *= 1 + amplitude**2 / 16  # finite amplitude (6e-8)

    uid = load_in_bullet(bullet, path)
    dt = 1e-3  # symplectic Euler: period error ~ (omega dt)^2 / 24 = 4e-7
    client.setGravity(*model.gravity)
    client.setTimeStep(dt)
    client.setPhysicsEngineParameter(numSubSteps=0)
    hinge = bullet_joints(client, uid)["hinge"]
    client.resetJointState(uid, hinge, amplitude, 0.0)
    steps = int(3.2 * expected / dt)
    angle = np.empty(steps + 1)
    angle[0] = amplitude
    for i in range(steps):
        client.stepSimulation()
        angle[i + 1] = client.getJointState(uid, hinge)[0]
    measured = zero_crossing_period(dt * np.arange(steps + 1), angle)
    assert abs(measured - expected) / expected <= 1e-4
    assert abs(2.607 - expected) / expected > 0.3  # the period with 1 kg frame links


@pytest.mark.parametrize("name", list(shipped_examples()))
def test_pybullet_runs_the_examples_as_mujoco_does(bullet, files, name):
    """0.5 s from each example's initial state. pybullet integrates with first-order
    (semi-implicit Euler) steps, so q(dt) = q + c dt + O(dt^2); the extrapolation
    2 q(dt/2) - q(dt) removes c dt and agrees with MuJoCo's RK4 (error O(dt^4)) to ~1e-8 rad,
    while each pybullet run alone is off by ~1e-5."""
    pytest.importorskip("mujoco")
    from rigidparts.sim import simulate

    _, client = bullet
    model, path = files(name, ".urdf")
    duration = 0.5
    reference = simulate(model, duration=duration, timestep=1e-4, integrator="RK4")
    moving = [j for j in model.joints.values() if j.type in ("revolute", "prismatic")]
    assert moving and all(j.type in ("revolute", "prismatic", "fixed")
                          for j in model.joints.values())  # fmt: skip
    q0, v0 = model.initial_positions(), model.initial_velocities()
    runs = []
    for dt in (1e-4, 5e-5):
        uid = load_in_bullet(bullet, path)
        client.setGravity(*model.gravity)
        client.setTimeStep(dt)
        client.setPhysicsEngineParameter(numSubSteps=0)
        index = bullet_joints(client, uid)
        for joint in moving:
            client.resetJointState(uid, index[joint.name], float(q0[joint.name][0]),
                                   float(v0[joint.name][0]))  # fmt: skip
        for _ in range(round(duration / dt)):
            client.stepSimulation()
        runs.append({j.name: client.getJointState(uid, index[j.name])[0] for j in moving})
    for joint in moving:
        mujoco_q = reference.joint_positions[joint.name][-1]
        coarse, fine = runs[0][joint.name], runs[1][joint.name]
        assert abs(2 * fine - coarse - mujoco_q) <= 1e-6, joint.name
        assert abs(fine - mujoco_q) <= 1e-3, joint.name  # first order, not a different model


# -- SDFormat's checker (Gazebo) -------------------------------------------------------------


def sdf_checker() -> list[str]:
    """``gz sdf -k`` or ``ign sdf -k``, or a skip saying what to install."""
    for tool in ("gz", "ign"):
        if shutil.which(tool):
            probe = subprocess.run([tool, "sdf", "--help"], capture_output=True, text=True)
            if probe.returncode == 0 and "--check" in probe.stdout + probe.stderr:
                return [tool, "sdf", "-k"]
    pytest.skip(
        "SDFormat's checker (gz sdf / ign sdf) is not installed: apt-get install "
        "ignition-tools libsdformat-dev (or gz-tools2 libsdformat14-dev); .ci/run does"
    )


def check_sdf(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([*sdf_checker(), str(path)], capture_output=True, text=True)


@pytest.mark.parametrize("name", [*MODELS, *MORE])
def test_sdformat_checker_accepts_every_sdf_export(files, name):
    _, path = files(name, ".sdf")
    result = check_sdf(path)
    assert result.returncode == 0 and "Valid" in result.stdout, result.stdout + result.stderr
    assert "Error" not in result.stdout + result.stderr


def test_sdformat_checker_accepts_hard_inertial_frames(tmp_path):
    """Principal frames of nearly equal moments and a cube, and plates at the triangle edge
    with their exact moments (``I3 = fl(I1 + I2)`` at most): the checker's inertia rules pass."""
    path = tmp_path / "awkward.sdf"
    export(awkward_inertias(), path)
    result = check_sdf(path)
    assert result.returncode == 0 and "Valid" in result.stdout, result.stdout + result.stderr
    assert "Error" not in result.stdout + result.stderr
    # the check is close: the turned plate with I3 = (I1 + I2)(1 + 1e-13) is refused
    tree = ET.parse(path)
    tensor = tree.getroot().find("model/link[@name='turned_plate']/inertial/inertia")
    moments = {key: float(tensor.find(key).text) for key in ("ixx", "iyy", "izz")}
    largest = max(moments, key=moments.get)
    rest = sum(value for key, value in moments.items() if key != largest)
    tensor.find(largest).text = repr(rest * (1 + 1e-13))
    tree.write(path)
    result = check_sdf(path)
    assert result.returncode != 0 and "invalid inertia" in result.stdout + result.stderr


def test_sdformat_checker_rejects_a_broken_file(files, tmp_path):
    """The checker is real: a frame attached to no link and a negative mass are refused."""
    _, path = files("pendulum", ".sdf")
    text = path.read_text(encoding="utf-8")
    for old, new in (('attached_to="arm"', 'attached_to="nothing"'),
                     ("<mass>1.08</mass>", "<mass>-1.08</mass>")):  # fmt: skip
        assert old in text
        broken = tmp_path / "broken.sdf"
        broken.write_text(text.replace(old, new), encoding="utf-8")
        result = check_sdf(broken)
        assert result.returncode != 0 and "Error" in result.stdout + result.stderr


# -- USD (usd-core) --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pxr():
    pytest.importorskip("pxr", reason="usd-core is not installed: pip install 'rigidparts[usd]'")
    from pxr import Usd, UsdGeom, UsdPhysics

    return Usd, UsdGeom, UsdPhysics


def usd_pose(usd, usd_geom, prim) -> tuple[np.ndarray, np.ndarray]:
    """``(R, p)`` of a prim in the world. Gf matrices act on row vectors: the rotation is the
    transpose of the upper-left block, the translation the last row."""
    matrix = usd_geom.Xformable(prim).ComputeLocalToWorldTransform(usd.TimeCode.Default())
    m = np.array(matrix)
    return m[:3, :3].T, m[3, :3]


def quat_matrix(q) -> np.ndarray:
    """A Gf quaternion (real, imaginary) as a rotation matrix."""
    x, y, z = q.GetImaginary()
    return Rotation.from_quat([x, y, z, q.GetReal()]).as_matrix()


def body_prim(stage, model: Model, name: str):
    prim = stage.GetPrimAtPath(f"/{model.name}/{name}")
    assert prim.IsValid(), name
    return prim


@pytest.mark.parametrize("name", [*MODELS, *MORE])
@pytest.mark.parametrize("suffix", [".usda", ".usdc"])
def test_usd_mass_properties_read_back_within_single_precision(pxr, files, name, suffix):
    usd, usd_geom, usd_physics = pxr
    model, path = files(name, suffix)
    stage = usd.Stage.Open(str(path))
    assert usd_geom.GetStageMetersPerUnit(stage) == 1.0
    assert usd_physics.GetStageKilogramsPerUnit(stage) == 1.0
    assert usd_geom.GetStageUpAxis(stage) == usd_geom.Tokens.z
    assert stage.GetDefaultPrim().GetPath() == f"/{model.name}"
    for body_name, body in model.bodies.items():
        prim = body_prim(stage, model, body_name)
        assert prim.HasAPI(usd_physics.RigidBodyAPI) and prim.HasAPI(usd_physics.MassAPI)
        api = usd_physics.MassAPI(prim)
        mass = api.GetMassAttr().Get()
        com = np.array(api.GetCenterOfMassAttr().Get(), dtype=float)
        moments = np.array(api.GetDiagonalInertiaAttr().Get(), dtype=float)
        axes = quat_matrix(api.GetPrincipalAxesAttr().Get())
        props = body.mass_properties
        # each value is the float32 nearest to rigidparts' double
        assert mass == float(np.float32(props.mass)), body_name
        assert com.tolist() == props.center_of_mass.astype(np.float32).tolist(), body_name
        assert abs(mass - props.mass) <= SINGLE * props.mass
        assert np.all(np.abs(moments - props.principal_moments) <= SINGLE * props.principal_moments)
        inertia = axes @ np.diag(moments) @ axes.T  # frame_a axes, about the centre of mass
        assert relative_error(props, mass, com, inertia) <= SINGLE, body_name


def test_usd_read_back_worst_error_is_float_rounding(pxr, files):
    """Across every model and body, the worst relative error of mass, moments and rebuilt
    tensor stays at float32's rounding (2^-24 = 6e-8), far above float64's."""
    usd, _, usd_physics = pxr
    worst = 0.0
    for name in [*MODELS, *MORE]:
        model, path = files(name, ".usdc")
        stage = usd.Stage.Open(str(path))
        for body_name, body in model.bodies.items():
            api = usd_physics.MassAPI(body_prim(stage, model, body_name))
            axes = quat_matrix(api.GetPrincipalAxesAttr().Get())
            moments = np.array(api.GetDiagonalInertiaAttr().Get(), dtype=float)
            error = relative_error(body.mass_properties, api.GetMassAttr().Get(),
                                   api.GetCenterOfMassAttr().Get(),
                                   axes @ np.diag(moments) @ axes.T)  # fmt: skip
            worst = max(worst, error)
    assert 1e-9 < worst <= SINGLE


@pytest.mark.parametrize("name", [*MODELS, *MORE])
def test_usd_poses_geometry_and_joints(pxr, files, name):
    usd, usd_geom, usd_physics = pxr
    model, path = files(name, ".usda")
    stage = usd.Stage.Open(str(path))
    zero = model.zero_positions()
    poses = model.body_poses(zero)
    for body_name, body in model.bodies.items():
        prim = body_prim(stage, model, body_name)
        r, p = usd_pose(usd, usd_geom, prim)
        assert np.abs(r - poses[body_name][0]).max() <= 1e-15
        assert np.abs(p - poses[body_name][1]).max() <= 1e-15
        geometry = prim.GetChild("geometry")
        assert geometry.HasAPI(usd_physics.CollisionAPI)
        assert geometry.GetTypeName() in ("Cube", "Cylinder", "Capsule", "Sphere", "Mesh")
        if geometry.GetTypeName() == "Mesh":
            points = usd_geom.Mesh(geometry).GetPointsAttr().Get()
            assert len(points) == len(body.mesh(64).vertices)
    for frame, (r, p) in model.frame_poses(zero).items():
        body_name, frame_name = frame.split(".")
        prim = body_prim(stage, model, body_name).GetChild("frames").GetChild(frame_name)
        fr, fp = usd_pose(usd, usd_geom, prim)
        assert np.abs(fr - r).max() <= 1e-15 and np.abs(fp - p).max() <= 1e-15, frame

    kinds = {"revolute": "PhysicsRevoluteJoint", "prismatic": "PhysicsPrismaticJoint",
             "fixed": "PhysicsFixedJoint", "ball": "PhysicsSphericalJoint"}  # fmt: skip
    joints = stage.GetPrimAtPath(f"/{model.name}/joints")
    assert {p.GetName() for p in joints.GetChildren()} == {
        j.name for j in model.joints.values() if j.type != "free"
    }
    world_frames = model.frame_poses(zero)
    for joint in model.joints.values():
        if joint.type == "free":
            continue
        prim = joints.GetChild(joint.name)
        assert prim.GetTypeName() == kinds[joint.type]
        api = usd_physics.Joint(prim)
        targets = [api.GetBody0Rel().GetTargets(), api.GetBody1Rel().GetTargets()]
        parent = [] if joint.parent_body is None else [f"/{model.name}/{joint.parent_body}"]
        child = [f"/{model.name}/{joint.child_body}"]
        assert [[str(t) for t in ts] for ts in targets] == [parent, child]
        # at joint position zero both joint frames are the child frame, up to float rounding
        ends = []
        for side, body in ((0, joint.parent_body), (1, joint.child_body)):
            r_b, p_b = (np.eye(3), np.zeros(3)) if body is None else poses[body]
            local_p = np.array(prim.GetAttribute(f"physics:localPos{side}").Get(), dtype=float)
            local_r = quat_matrix(prim.GetAttribute(f"physics:localRot{side}").Get())
            ends.append((r_b @ local_r, r_b @ local_p + p_b))
        r_c, p_c = world_frames[joint.child]
        for _, p_k in ends:
            assert np.abs(p_k - p_c).max() <= 1e-6, joint.name
        assert np.abs(ends[0][0] - ends[1][0]).max() <= 1e-6, joint.name
        if joint.type in ("revolute", "prismatic"):
            # the joint turns (slides) about X of its frame: the model's axis, in the world
            assert prim.GetAttribute("physics:axis").Get() == "X"
            assert np.abs(ends[0][0][:, 0] - r_c @ joint.axis_in_joint).max() <= 1e-6, joint.name
            if joint.limits is not None:
                scale = 180 / math.pi if joint.type == "revolute" else 1.0
                lower = prim.GetAttribute("physics:lowerLimit").Get()
                upper = prim.GetAttribute("physics:upperLimit").Get()
                assert lower == pytest.approx(joint.limits[0] * scale, rel=SINGLE)
                assert upper == pytest.approx(joint.limits[1] * scale, rel=SINGLE)
            if joint.damping:
                drive = "angular" if joint.type == "revolute" else "linear"
                damping = prim.GetAttribute(f"drive:{drive}:physics:damping").Get()
                scale = math.pi / 180 if joint.type == "revolute" else 1.0  # per degree
                assert damping == pytest.approx(joint.damping * scale, rel=SINGLE)
                assert prim.GetAttribute(f"drive:{drive}:physics:stiffness").Get() == 0.0


def test_usd_physics_parser_finds_the_bodies_and_joints(pxr, files):
    """usd-core's own UsdPhysics parser reads the stage as one articulation of rigid bodies
    with colliders and joints, the joint limits in degrees and the damping drives."""
    usd, _, usd_physics = pxr
    model, path = files("serial_arm", ".usda")
    stage = usd.Stage.Open(str(path))
    parsed = usd_physics.UsdPhysicsLoadStageFromPrimRange(stage, [f"/{model.name}"])
    kinds = usd_physics.ObjectType
    found = {kind: len(paths) for kind, (paths, _) in parsed.items()}
    assert found[kinds.Articulation] == 1
    assert found[kinds.RigidBody] == len(model.bodies) == found[kinds.MeshShape]
    assert found[kinds.RevoluteJoint] == 3 and found[kinds.FixedJoint] == 1
    paths, descs = parsed[kinds.RevoluteJoint]
    elbow = descs[[p.name for p in paths].index("elbow")]
    assert (elbow.limit.lower, elbow.limit.upper) == (-150.0, 150.0)  # degrees
    assert str(elbow.body0) == f"/{model.name}/upper_arm"
    assert elbow.drive.damping == pytest.approx(0.01 * math.pi / 180, rel=SINGLE)


@pytest.mark.parametrize("suffix", [".usda", ".usdc", ".usd"])
def test_usd_format_from_the_suffix_and_the_command_line(pxr, tmp_path, capsys, suffix):
    usd, _, _ = pxr
    assert format_from_suffix(f"model{suffix}") == "usd"
    model = load_model(EXAMPLES / "pendulum.toml")
    path = tmp_path / f"pendulum{suffix}"
    text = export(model, path)
    assert text.startswith("#usda 1.0")
    head = path.read_bytes()[:8]
    assert head == (b"#usda 1." if suffix == ".usda" else b"PXR-USDC")
    assert not (tmp_path / "pendulum_meshes").exists()  # meshes are inside the file
    out = tmp_path / f"cli{suffix}"
    assert main(["export", str(EXAMPLES / "pendulum.toml"), "--format", "usd", "-o", str(out)]) == 0
    assert "inside the file" in capsys.readouterr().out
    stage = usd.Stage.Open(str(out))
    assert stage.GetPrimAtPath("/pendulum/bob").IsValid()


def test_usd_prim_names_are_made_valid_and_keep_the_rigidparts_name(pxr, tmp_path):
    usd, _, _ = pxr
    model = Model("my-robot")
    model.add_body("upper-arm", rp.Box(length=0.3, width=0.02, height=0.03))
    model.add_body("upper_arm", rp.Box(length=0.3, width=0.02, height=0.03))
    model.add_joint("hinge-1", "revolute", "world", "upper-arm", axis=(0, 1, 0))
    model.add_joint("weld", "fixed", "upper-arm.frame_b", "upper_arm")
    path = tmp_path / "robot.usda"
    export(model, path)
    stage = usd.Stage.Open(str(path))
    root = stage.GetDefaultPrim()
    names = {p.GetName(): p.GetCustomDataByKey("rigidparts:name") for p in root.GetChildren()}
    assert root.GetCustomDataByKey("rigidparts:name") == "my-robot"
    assert set(names.values()) == {"upper-arm", "upper_arm", None}  # + the joints' scope
    assert len(names) == 3


def test_usd_refuses_a_model_with_rods_and_writes_nothing(pxr, tmp_path):
    """UsdPhysics has no spring-damper between two frames: a clear error naming the rod."""
    with_rods = [p for p in sorted(EXAMPLES.glob("*.toml")) if load_model(p).rods]
    assert with_rods
    path = tmp_path / "model.usda"
    with pytest.raises(rp.ModelError, match=r"^rods\[0\]=.*USD has no element"):
        export(load_model(with_rods[0]), path)
    assert not path.exists()


def test_usd_needs_usd_core_says_so(monkeypatch):
    import builtins

    from rigidparts.export.usd import to_usd

    real_import = builtins.__import__

    def no_pxr(name, *args, **kwargs):
        if name == "pxr" or name.startswith("pxr."):
            raise ImportError("No module named 'pxr'", name="pxr")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pxr)
    with pytest.raises(ImportError, match=r"pip install 'rigidparts\[usd\]'"):
        to_usd(load_model(EXAMPLES / "pendulum.toml"))


# -- NVIDIA Newton (reads the USD file) ------------------------------------------------------


@pytest.fixture(scope="module")
def newton():
    pytest.importorskip("pxr", reason="usd-core is not installed: pip install 'rigidparts[usd]'")
    pytest.importorskip("newton_usd_schemas", reason="pip install newton newton-usd-schemas")
    warp = pytest.importorskip("warp", reason="pip install newton newton-usd-schemas")
    warp.config.quiet = True
    newton = pytest.importorskip("newton", reason="pip install newton newton-usd-schemas")
    return newton


def newton_model(newton, path: Path, **finalize):
    builder = newton.ModelBuilder()
    builder.add_usd(str(path))
    return builder.finalize(device="cpu", **finalize)


def slender_and_small() -> Model:
    """Bodies Newton's default inertia check "corrects": a steel rod 0.1 mm in radius and 1 m
    long (axial moment m r^2 / 2 = 1.2e-12 kg m^2, below 1e-6 of its transverse moment), along
    x and turned, a 1 mm steel cube (moments 1.3e-12 kg m^2, below the absolute floor 1e-10),
    and an ordinary bar."""
    model = Model("slender")
    model.add_body("rod", rp.Cylinder(length=1.0, radius=1e-4, material="steel"))
    model.add_body("turned_rod", rp.Cylinder(length=1.0, radius=1e-4, axis=(1, 2, 3)))
    model.add_body("grain", rp.Box(length=1e-3, width=1e-3, height=1e-3, axis=(0, 0, 1)))
    model.add_body("bar", rp.Box(length=0.5, width=0.05, height=0.02, axis=(0, 1, 1)))
    model.add_joint("j_rod", "revolute", "world", "rod.frame_a", axis=(0, 0, 1))
    model.add_joint("j_turned", "revolute", "rod.frame_b", "turned_rod.frame_a", axis=(0, 0, 1))
    model.add_joint("j_grain", "fixed", "turned_rod.frame_b", "grain.frame_a")
    model.add_joint("j_bar", "revolute", "grain.frame_b", "bar.frame_a", axis=(0, 1, 0))
    return model


#: The settings that keep the USD's inertia (docs/models.md, "USD"): no validation at all, or
#: validation whose thresholds no valid body reaches.
NEWTON_KEEPS = {
    "skip the check": ({}, {"skip_validation_inertia": True}),
    "no relative floor": (
        {
            "inertia_relative_tolerance": 0.0,
            "inertia_absolute_tolerance": 1e-35,
            "inertia_correction": 0.0,
        },
        {},
    ),
}


def test_newton_keeps_small_and_slender_inertias_with_its_settings(newton, tmp_path):
    """The default ModelBuilder raises the rod's axial moment 1.2e-12 to about 1e-6 kg m^2 and
    the grain's moments likewise (and warns); with either documented setting every tensor is
    USD's float: along an axis each moment within float32 rounding (2^-24, relative), turned
    within :data:`NEWTON_INERTIA` of the trace (float32 arithmetic, which for the turned rod
    leaves its smallest moment uncertain by ~1e-7 of the largest)."""
    import warnings

    model = slender_and_small()
    rod = model.bodies["rod"]
    density = rod.density
    mass = density * math.pi * 1e-4**2 * 1.0  # independent: the solid cylinder's closed form
    axial = mass * 1e-4**2 / 2
    assert rod.principal_moments[0] == pytest.approx(axial, rel=1e-14)
    assert axial == pytest.approx(1.2e-12, rel=0.05)  # the figure in the docs
    path = tmp_path / "slender.usda"
    export(model, path)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        engine = newton_model(newton, path)  # the default: the trap
    assert any("corrected" in str(w.message) for w in caught)
    labels = [label.rsplit("/", 1)[-1] for label in engine.body_label]
    defaults = dict(zip(labels, engine.body_inertia.numpy(), strict=True))
    assert np.linalg.eigvalsh(defaults["rod"].astype(float))[0] > 0.5e-6  # 1.2e-12 raised
    assert np.linalg.eigvalsh(defaults["grain"].astype(float))[0] > 0.5e-6

    for label, (attributes, finalize) in NEWTON_KEEPS.items():
        builder = newton.ModelBuilder()
        for key, value in attributes.items():
            setattr(builder, key, value)
        builder.add_usd(str(path))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            engine = builder.finalize(device="cpu", **finalize)
        assert not [w for w in caught if "nertia" in str(w.message)], label
        names = [name.rsplit("/", 1)[-1] for name in engine.body_label]
        for name, inertia in zip(names, engine.body_inertia.numpy(), strict=True):
            body = model.bodies[name]
            what = f"{label}: {name}"
            got = inertia.astype(float)
            if not np.any(body.inertia - np.diag(np.diag(body.inertia))):  # along the axes
                assert (
                    np.abs(np.diag(got) - np.diag(body.inertia)).max()
                    <= 2**-24 * np.abs(np.diag(body.inertia)).max()
                ), what
                moments = np.sort(np.diag(got))
                assert np.all(np.abs(moments - body.principal_moments)
                              <= 2**-24 * body.principal_moments), what  # fmt: skip
            else:
                error = np.abs(got - body.inertia).max() / np.trace(body.inertia)
                assert error <= NEWTON_INERTIA, what


#: Newton rebuilds the tensor from USD's float moments and quaternion in float32 arithmetic
#: (warp): up to 4e-7 of the trace measured (a tilted cylinder), a few float32 roundings.
NEWTON_INERTIA = 1e-6


def test_newton_reads_the_masses_and_moves_the_bodies_as_the_model_does(newton, files):
    """One test (importing Newton costs seconds): every example and the model of every shape
    read with USD's float masses, centres of mass and tensors; the bodies where the model puts
    them at joint position zero and moved."""
    for name in MODELS:
        model, path = files(name, ".usda")
        engine = newton_model(newton, path)
        labels = [label.rsplit("/", 1)[-1] for label in engine.body_label]
        assert sorted(labels) == sorted(model.bodies), name
        masses = engine.body_mass.numpy()
        coms = engine.body_com.numpy()
        inertias = engine.body_inertia.numpy()
        for label, mass, com, inertia in zip(labels, masses, coms, inertias, strict=True):
            props = model.bodies[label].mass_properties
            what = f"{name}: {label}"
            assert float(mass) == float(np.float32(props.mass)), what  # USD's float, unchanged
            assert abs(float(mass) - props.mass) <= SINGLE * props.mass, what
            size = max(math.sqrt(np.trace(props.inertia) / props.mass),
                       float(np.max(np.abs(props.center_of_mass))))  # fmt: skip
            assert np.abs(com.astype(float) - props.center_of_mass).max() <= SINGLE * size, what
            error = np.abs(inertia.astype(float) - props.inertia).max() / np.trace(props.inertia)
            assert error <= NEWTON_INERTIA, what
        total = float(np.sum(masses, dtype=np.float64))
        assert abs(total - model.mass_properties().mass) <= SINGLE * model.mass_properties().mass

    for name in MOVES:
        model, path = files(name, ".usda")
        engine = newton_model(newton, path)
        state = engine.state()
        starts = engine.joint_q_start.numpy()
        index = {label.rsplit("/", 1)[-1]: i for i, label in enumerate(engine.joint_label)}
        for q in ({}, MOVES[name]):
            coordinates = engine.joint_q.numpy().copy()  # zero angles, unit quaternions
            for joint, value in q.items():
                coordinates[starts[index[joint]]] = value
            state.joint_q.assign(coordinates)
            newton.eval_fk(engine, state.joint_q, state.joint_qd, state)
            reference = model.body_poses({**model.zero_positions(), **q})
            # Newton's kinematics run in float32: a few 1e-7 of the model's reach
            reach = max(1.0, *(float(np.linalg.norm(p)) for _, p in reference.values()))
            for label, x in zip(engine.body_label, state.body_q.numpy(), strict=True):
                r, p = reference[label.rsplit("/", 1)[-1]]
                what = f"{name}: {label} at {q}"
                assert np.abs(x[:3] - p).max() <= 1e-6 * reach, what
                assert np.abs(Rotation.from_quat(x[3:]).as_matrix() - r).max() <= 2e-6, what
