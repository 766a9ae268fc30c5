"""rp.RigidBody: a body given by its mass properties, validated like every body.

References are independent of the code under test: scipy's Rotation for URDF's roll-pitch-yaw
(extrinsic x-y-z), the parallel-axis and rotation laws written out by hand, numpy's eigenvalue
solver for the principal moments, and trimesh's integrals of a fine ellipsoid mesh for the
equivalent ellipsoid.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation

import rigidparts as rp
from rigidparts.shapes.rigid_body import equivalent_ellipsoid

EPS = np.finfo(float).eps


def _tensor(moments, rotation) -> np.ndarray:
    return rotation @ np.diag(moments) @ rotation.T


def test_defaults_are_maplesims() -> None:
    body = rp.RigidBody()
    assert body.mass == 1.0
    np.testing.assert_array_equal(body.center_of_mass, np.zeros(3))
    np.testing.assert_array_equal(body.inertia, 0.001 * np.eye(3))
    assert body.volume is None and body.density is None and body.material is None
    assert list(body.frames) == ["frame_a", "frame_com"]


def test_inertia_given_in_a_rotated_and_moved_frame() -> None:
    """URDF's <inertial><origin xyz rpy>: I_A = R I_F R^T, p_A = p_AF + R p_F, with R from
    scipy (extrinsic x, y, z = URDF's Rz(yaw) Ry(pitch) Rx(roll))."""
    rpy = (0.3, -0.7, 1.9)
    position = np.array([0.1, -0.2, 0.05])
    com_f = np.array([0.01, 0.02, -0.03])
    in_f = np.array([[0.02, 0.001, -0.002], [0.001, 0.03, 0.0005], [-0.002, 0.0005, 0.025]])
    body = rp.RigidBody(
        mass=3.5,
        center_of_mass=com_f,
        inertia=in_f,
        frame={"position": position, "rpy": rpy},
    )
    rotation = Rotation.from_euler("xyz", rpy).as_matrix()
    np.testing.assert_allclose(
        body.center_of_mass, position + rotation @ com_f, rtol=0, atol=4 * EPS
    )
    # Two rotations and numpy's eigen-solver (LAPACK: its bits vary with the CPU) are each good
    # to a few ulp of the largest moment (0.03 kg m^2).
    bound = 16 * EPS * 0.03
    np.testing.assert_allclose(body.inertia, rotation @ in_f @ rotation.T, rtol=0, atol=bound)
    np.testing.assert_allclose(body.principal_moments, np.linalg.eigvalsh(in_f), rtol=0, atol=bound)
    # The same with a rotation matrix, and with six numbers in URDF's order.
    again = rp.RigidBody(
        mass=3.5,
        center_of_mass=com_f,
        inertia=(0.02, 0.03, 0.025, 0.001, -0.002, 0.0005),
        frame={"position": position, "rotation": rotation},
    )
    np.testing.assert_allclose(again.inertia, body.inertia, rtol=0, atol=bound)


def test_units_in_strings_and_quantities() -> None:
    body = rp.RigidBody(
        mass="2500 g",
        center_of_mass="0, 0, 25 mm",
        inertia=("1e4 g*cm^2", "1e4 g*cm^2", "2e4 g*cm^2", 0, 0, 0),
        frame={"position": ("10 mm", 0, 0), "rpy": (0, 0, "90 deg")},
    )
    assert body.mass == pytest.approx(2.5, rel=1e-15)
    np.testing.assert_allclose(body.center_of_mass, [0.01, 0.0, 0.025], rtol=1e-15, atol=1e-18)
    np.testing.assert_allclose(np.diag(body.inertia), [1e-3, 1e-3, 2e-3], rtol=1e-14)


@st.composite
def _valid_bodies(draw):
    """A mass, a physical tensor built as Q diag(moments) Q^T (moments obeying the triangle
    inequality with margin) and a frame."""
    mass = draw(st.floats(1e-3, 1e3))
    a = draw(st.floats(1e-6, 10.0))
    b = draw(st.floats(1e-6, 10.0))
    share = draw(st.floats(1e-3, 1.0))  # c strictly inside the triangle inequality's range
    c = abs(a - b) + share * (a + b - abs(a - b))
    quaternion = draw(st.lists(st.floats(-1, 1), min_size=4, max_size=4).filter(
        lambda q: np.linalg.norm(q) > 0.1))  # fmt: skip
    rpy = draw(st.lists(st.floats(-math.pi, math.pi), min_size=3, max_size=3))
    position = draw(st.lists(st.floats(-10, 10), min_size=3, max_size=3))
    com = draw(st.lists(st.floats(-1, 1), min_size=3, max_size=3))
    q = Rotation.from_quat(quaternion).as_matrix()
    return mass, np.array([a, b, c]), q, np.array(rpy), np.array(position), np.array(com)


@settings(max_examples=200, deadline=None)
@given(_valid_bodies())
def test_any_physical_tensor_in_any_frame(case) -> None:
    """Symmetric, positive definite, the triangle inequality, and the rotation law: the
    principal moments do not depend on the frame they were given in."""
    mass, moments, q, rpy, position, com = case
    in_f = _tensor(moments, q)
    body = rp.RigidBody(
        mass=mass, center_of_mass=com, inertia=in_f, frame={"position": position, "rpy": rpy}
    )
    tensor = body.inertia
    assert np.array_equal(tensor, tensor.T)
    scale = moments.max()
    principal = np.sort(body.principal_moments)
    # Each step (Q diag Q^T, R I R^T) rounds each entry by a few ulp of the largest moment.
    np.testing.assert_allclose(principal, np.sort(moments), rtol=0, atol=64 * EPS * scale)
    assert principal[0] > 0
    assert principal[0] + principal[1] >= principal[2] * (1 - 64 * EPS)
    rotation = Rotation.from_euler("xyz", rpy).as_matrix()
    np.testing.assert_allclose(
        body.center_of_mass, position + rotation @ com, rtol=0, atol=64 * EPS * 10
    )


@pytest.mark.parametrize(
    ("kwargs", "parameter", "words"),
    [
        ({"inertia": (1.0, 1.0, 3.0, 0, 0, 0)}, "inertia", "triangle inequality"),
        ({"inertia": (1.0, 1.0, 1.0, 2.0, 0, 0)}, "inertia", "not positive definite"),
        ({"inertia": (-1.0, 1.0, 1.0, 0, 0, 0)}, "inertia", "negative principal moment"),
        ({"inertia": (1.0, 1.0, math.nan, 0, 0, 0)}, "inertia", "finite"),
        ({"inertia": (1.0, 1.0)}, "inertia", "six numbers"),
        ({"inertia": [[1, 0.5, 0], [0, 1, 0], [0, 0, 1]]}, "inertia", "symmetric"),
        ({"inertia": ("1 kg", 1, 1, 0, 0, 0)}, "inertia", "kg m^2"),
        ({"center_of_mass": (0, 0)}, "center_of_mass", "three finite lengths"),
        ({"center_of_mass": (0, 0, math.inf)}, "center_of_mass", "three finite lengths"),
        ({"center_of_mass": "1, 2, 3 kg"}, "center_of_mass", "expected a length"),
        ({"frame": {"position": (0, 0, 0), "rpy": (0, 0)}}, "frame.rpy", "three finite angles"),
        ({"frame": {"position": (0, 0, 0), "spin": 1}}, "frame", "rotation"),
        ({"frame": {"rotation": [[1, 0, 0], [0, 1, 0], [0, 0, -1]]}}, "frame.rotation",
         "proper rotation"),
        ({"mass": 0.0}, "mass", "positive"),
        ({"mass": "3 m"}, "mass", "expected a mass"),
        ({"mass": None}, "mass", "must be given"),
    ],
)
def test_bad_input_names_the_parameter(kwargs, parameter, words) -> None:
    with pytest.raises(rp.ParameterError) as info:
        rp.RigidBody(**kwargs)
    assert info.value.parameter == parameter, str(info.value)
    assert words in str(info.value)
    assert "\n" not in str(info.value)


def test_material_and_density_are_not_keywords() -> None:
    with pytest.raises(TypeError):
        rp.RigidBody(material="steel")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        rp.RigidBody(density=1000.0)  # type: ignore[call-arg]


def test_parameters_rebuild_the_body_and_are_plain() -> None:
    import json

    body = rp.RigidBody(
        mass=2.0,
        center_of_mass="0, 0, 25 mm",
        inertia=(0.01, 0.02, 0.025, 0.001, 0.0, 0.0),
        frame={"position": (1, 0, 0), "rpy": (0.1, 0.2, 0.3)},
        frames={"tool": (0, 0, 0.1)},
    )
    data = body.to_dict()
    json.dumps(data, allow_nan=False)
    again = rp.RigidBody(**{k: v for k, v in data["parameters"].items() if k != "shape"})
    np.testing.assert_allclose(again.inertia, body.inertia, rtol=0, atol=1e-17)
    np.testing.assert_allclose(again.center_of_mass, body.center_of_mass, rtol=0, atol=1e-16)
    assert again.mass == body.mass and list(again.frames) == list(body.frames)


def test_equivalent_ellipsoid_has_the_same_inertia() -> None:
    """The semi-axes from I_i = m (a_j^2 + a_k^2) / 5 give back the moments; the mesh, filled
    at density m / V, has the body's mass properties to its discretisation (trimesh's own
    integrals of a fine icosphere)."""
    moments = np.array([0.01, 0.02, 0.025])
    mass = 2.0
    a = equivalent_ellipsoid(mass, moments)
    back = (
        mass * np.array([a[1] ** 2 + a[2] ** 2, a[0] ** 2 + a[2] ** 2, a[0] ** 2 + a[1] ** 2]) / 5
    )
    np.testing.assert_allclose(back, moments, rtol=1e-14)
    rotation = Rotation.from_euler("xyz", (0.4, 0.1, -0.6)).as_matrix()
    body = rp.RigidBody(
        mass=mass, inertia=_tensor(moments, rotation), center_of_mass=(0.1, 0.2, 0.3)
    )
    mesh = body.mesh(sections=128)
    assert mesh.is_watertight and mesh.is_winding_consistent and mesh.volume > 0
    mesh.density = mass / mesh.volume
    np.testing.assert_allclose(mesh.center_mass, body.center_of_mass, atol=1e-12)
    np.testing.assert_allclose(mesh.moment_inertia, body.inertia, rtol=0, atol=2e-2 * 0.025)


def test_model_file_and_exports_keep_the_given_inertia(tmp_path) -> None:
    """A rigid body in a model file, exported to MJCF and read back by MuJoCo: the mass, centre
    of mass and inertia MuJoCo holds are the given ones (MuJoCo is the independent reader)."""
    mujoco = pytest.importorskip("mujoco")
    model_file = tmp_path / "m.toml"
    model_file.write_text(
        """
[bodies.payload]
shape = "rigid_body"
mass = "2.5 kg"
center_of_mass = [0.0, 0.0, 0.05]
inertia = [0.02, 0.03, 0.025, 0.001, -0.002, 0.0005]
frame = { position = [0.1, 0, 0], rpy = [0.3, -0.7, 1.9] }

[[joints]]
name = "hinge"
type = "revolute"
parent = "world"
child = "payload.frame_a"
axis = [0, 1, 0]
""",
        encoding="utf-8",
    )
    model = rp.load_model(model_file)
    body = model.bodies["payload"]
    out = tmp_path / "m.xml"
    rp.export_model(model, out)
    compiled = mujoco.MjModel.from_xml_path(str(out))
    index = mujoco.mj_name2id(compiled, mujoco.mjtObj.mjOBJ_BODY, "payload")
    assert compiled.body_mass[index] == pytest.approx(2.5, rel=1e-15)
    moments = np.sort(compiled.body_inertia[index])
    np.testing.assert_allclose(moments, np.sort(body.principal_moments), rtol=1e-12)
    np.testing.assert_allclose(compiled.body_ipos[index], body.center_of_mass, rtol=0, atol=1e-15)


def test_geometry_draws_the_body_and_leaves_its_mass_properties_alone() -> None:
    """The mesh is the placed bodies' meshes (two disjoint boxes: the volume is the sum of
    theirs, L W H each, and the centroid where they are placed); the mass properties are the
    given ones."""
    box = rp.Box(length=0.2, width=0.1, height=0.05)
    body = rp.RigidBody(
        mass=3.0,
        inertia=(0.01, 0.02, 0.025, 0, 0, 0),
        geometry=[
            (box, {"position": (0.0, 0.0, 0.5)}),
            {"shape": "box", "length": 0.2, "width": 0.1, "height": 0.05,
             "position": (0.0, 0.0, -0.5), "rpy": (0.0, 0.0, math.pi / 2)},
        ],
    )  # fmt: skip
    mesh = body.mesh()
    assert mesh.is_watertight and mesh.is_winding_consistent
    assert mesh.volume == pytest.approx(2 * 0.2 * 0.1 * 0.05, rel=1e-12)
    # box 1's centroid (0.1, 0, 0.5); box 2 turned 90 degrees about z: (0, 0.1, -0.5)
    np.testing.assert_allclose(mesh.center_mass, [0.05, 0.05, 0.0], atol=1e-12)
    np.testing.assert_array_equal(body.inertia, np.diag([0.01, 0.02, 0.025]))
    assert body.mass == 3.0


@pytest.mark.parametrize(
    ("geometry", "parameter"),
    [("box", "geometry"), ([1.0], "geometry[0]"), ([(1.0, None)], "geometry[0]"),
     ([{"shape": "boxx"}], "geometry[0].shape"),
     ([(rp.Box(), {"rpy": (0, 0)})], "geometry[0].rpy")],
)  # fmt: skip
def test_bad_geometry_names_the_entry(geometry, parameter) -> None:
    with pytest.raises(rp.ParameterError) as info:
        rp.RigidBody(geometry=geometry)
    assert info.value.parameter == parameter, str(info.value)


def test_sensitivities_move_the_mass_alone() -> None:
    """The inertia is given, not made of the mass: d mass / d mass = 1, the rest 0."""
    table = rp.RigidBody(mass=2.0, inertia=(0.01, 0.02, 0.025, 0, 0, 0)).sensitivities()
    assert table.parameters == ("mass",)
    assert table.mass.tolist() == [1.0]
    assert not table.inertia.any() and not table.principal_moments.any()


@pytest.mark.parametrize(
    "text", ["0 mm, 0 mm, 25 mm", "0, 0, 25 mm", "0 0 25 mm", "0 0 0.025", "0,0,0.025"]
)
def test_a_position_as_text(text: str) -> None:
    np.testing.assert_array_equal(rp.RigidBody(center_of_mass=text).center_of_mass, [0, 0, 0.025])
