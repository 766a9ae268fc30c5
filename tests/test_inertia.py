"""MassProperties against independent computations: sympy integration about a corner, point
clouds summed directly, scipy's Rotation, textbook boxes; and its validation policy, just
inside and just outside INERTIA_TOLERANCE."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
import sympy as sp
from scipy.spatial.transform import Rotation

import rigidparts as rp
from rigidparts import INERTIA_TOLERANCE, MassProperties


def _cloud_properties(
    masses: np.ndarray, points: np.ndarray
) -> tuple[float, np.ndarray, np.ndarray]:
    """Mass, centre and central inertia of point masses, summed directly:
    I = sum m_i (|r_i|^2 1 - r_i r_i^T), r_i from the centre of mass."""
    mass = masses.sum()
    com = (masses[:, None] * points).sum(axis=0) / mass
    r = points - com
    inertia = np.einsum("i,ij->", masses, r * r) * np.eye(3) - np.einsum(
        "i,ij,ik->jk", masses, r, r
    )
    return mass, com, inertia


@pytest.fixture(scope="module")
def cloud() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(20240601)
    return rng.uniform(0.1, 2.0, 40), rng.normal(size=(40, 3)) * [1.0, 0.5, 2.0] + [0.3, -1, 2]


def test_parallel_axis_against_sympy_integration_about_a_corner() -> None:
    """A box [0, a] x [0, b] x [0, c], inertia about the corner by direct integration (products
    of inertia included), vs inertia_about() of its central MassProperties."""
    x, y, z = sp.symbols("x y z", real=True)
    a, b, c, rho = sp.Rational(3, 10), sp.Rational(1, 5), sp.Rational(7, 10), 2700
    r = sp.Matrix([x, y, z])
    integrand = rho * ((r.T * r)[0] * sp.eye(3) - r * r.T)
    corner = integrand.applyfunc(lambda f: sp.integrate(f, (x, 0, a), (y, 0, b), (z, 0, c)))
    corner = np.array(corner.evalf(30).tolist(), dtype=float)
    assert corner[0, 1] < 0  # non-trivial products of inertia about the corner

    mass = float(rho * a * b * c)
    fa, fb, fc = float(a), float(b), float(c)
    central = np.diag([fb**2 + fc**2, fa**2 + fc**2, fa**2 + fb**2]) * mass / 12
    props = MassProperties(mass, [fa / 2, fb / 2, fc / 2], central)
    np.testing.assert_allclose(props.inertia_about([0, 0, 0]), corner, rtol=1e-14, atol=0)
    # and back: about the centre of mass itself nothing changes
    np.testing.assert_array_equal(props.inertia_about(props.center_of_mass), props.inertia)


def test_inertia_about_matches_point_cloud(cloud) -> None:
    masses, points = cloud
    mass, com, inertia = _cloud_properties(masses, points)
    props = MassProperties(mass, com, inertia)
    p = np.array([1.0, 2.0, -0.5])
    r = points - p
    direct = np.einsum("i,ij->", masses, r * r) * np.eye(3) - np.einsum("i,ij,ik->jk", masses, r, r)
    np.testing.assert_allclose(props.inertia_about(p), direct, rtol=1e-13)


def test_rotated_and_placed_match_a_rotated_point_cloud(cloud) -> None:
    """Rotate the points themselves with scipy, recompute directly, compare."""
    masses, points = cloud
    props = MassProperties(*_cloud_properties(masses, points))
    rotation = Rotation.from_euler("zyx", [30, -50, 110], degrees=True)  # R_AF, or R_PA
    # rotated(R_AF): coordinates in F are R_AF^T p_A
    in_f = rotation.apply(points, inverse=True)
    expected = MassProperties(*_cloud_properties(masses, in_f))
    for arg in (rotation, rotation.as_matrix()):
        assert props.rotated(arg).isclose(expected, rtol=1e-13)
    # placed(R_PA, p): coordinates in P are R_PA p_A + p
    offset = np.array([0.5, -2.0, 7.0])
    in_p = rotation.apply(points) + offset
    expected = MassProperties(*_cloud_properties(masses, in_p))
    assert props.placed(rotation=rotation, position=offset).isclose(expected, rtol=1e-13)
    assert props.placed(position=offset).isclose(
        MassProperties(*_cloud_properties(masses, points + offset)), rtol=1e-13
    )


def test_rotation_keeps_exact_principal_moments() -> None:
    box = rp.Box(length=2.0, width=1e-4, height=1e-4)  # a thin rod: tiny axial moment
    turned = box.mass_properties.rotated(Rotation.from_rotvec([0.3, -1.2, 0.4]))
    np.testing.assert_array_equal(turned.principal_moments, box.principal_moments)


def test_combine_two_boxes_side_by_side_is_one_box_of_double_width() -> None:
    """Two W-wide boxes whose centres are W/2 either side of the axis == one 2W-wide box."""
    length, width, height, rho = 1.3, 0.2, 0.3, 7860.0
    half = rp.Box(length=length, width=width, height=height, density=rho).mass_properties
    # width lies along +z for axis +x: shift the halves by -+ W/2 along z
    left = half.placed(position=[0, 0, -width / 2])
    right = half.placed(position=[0, 0, width / 2])
    both = MassProperties.combine([left, right])
    mass = 2 * rho * length * width * height
    expected = np.diag(
        [
            mass * (height**2 + (2 * width) ** 2) / 12,
            mass * (length**2 + (2 * width) ** 2) / 12,
            mass * (length**2 + height**2) / 12,
        ]
    )
    assert both.mass == pytest.approx(mass, rel=1e-15)
    np.testing.assert_allclose(both.center_of_mass, [length / 2, 0, 0], rtol=1e-15, atol=1e-17)
    np.testing.assert_allclose(both.inertia, expected, rtol=1e-14, atol=1e-14 * expected.max())
    assert (left + right).isclose(both, rtol=1e-15)
    assert sum([left, right]).isclose(both, rtol=1e-15)
    wide = rp.Box(length=length, width=2 * width, height=height, density=rho)
    assert both.isclose(wide.mass_properties, rtol=1e-14)


def test_combine_hollow_box_from_its_four_walls() -> None:
    """A hollow box is the sum of its four wall plates (independent textbook cuboids)."""
    length, width, height, inner_width, inner_height, rho = 1.0, 0.12, 0.2, 0.08, 0.15, 7860.0
    t_h, t_w = (height - inner_height) / 2, (width - inner_width) / 2

    def plate(h: float, w: float, y: float, z: float) -> MassProperties:
        mass = rho * length * h * w
        central = np.diag([h**2 + w**2, length**2 + w**2, length**2 + h**2]) * mass / 12
        return MassProperties(mass, [length / 2, y, z], central)

    walls = [
        plate(t_h, width, (height - t_h) / 2, 0),
        plate(t_h, width, -(height - t_h) / 2, 0),
        plate(inner_height, t_w, 0, (width - t_w) / 2),
        plate(inner_height, t_w, 0, -(width - t_w) / 2),
    ]
    box = rp.Box(
        length=length,
        width=width,
        height=height,
        inner_width=inner_width,
        inner_height=inner_height,
        density=rho,
    )
    assert MassProperties.combine(walls).isclose(box.mass_properties, rtol=1e-14)


def test_combine_errors() -> None:
    with pytest.raises(rp.ParameterError) as info:
        MassProperties.combine([])
    assert info.value.parameter == "parts"
    with pytest.raises(rp.ParameterError) as info:
        MassProperties.combine([MassProperties.point_mass(1.0), "box"])
    assert info.value.parameter == "parts[1]"
    with pytest.raises(TypeError):
        MassProperties.point_mass(1.0) + 3


def test_point_mass_and_from_principal() -> None:
    point = MassProperties.point_mass(2.0, [1, 2, 3])
    np.testing.assert_array_equal(point.inertia, np.zeros((3, 3)))
    np.testing.assert_allclose(point.inertia_about([0, 0, 0])[0, 0], 2.0 * (4 + 9))
    axes = Rotation.from_euler("xyz", [10, 20, 30], degrees=True).as_matrix()
    props = MassProperties.from_principal(3.0, [0, 0, 0], [3.0, 1.0, 2.5], axes)
    np.testing.assert_array_equal(props.principal_moments, [1.0, 2.5, 3.0])
    np.testing.assert_allclose(
        props.inertia, axes @ np.diag([3.0, 1.0, 2.5]) @ axes.T, rtol=0, atol=1e-15
    )


# -- principal axes -----------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(5))
def test_principal_axes_right_handed_and_diagonalize(seed: int) -> None:
    rng = np.random.default_rng(seed)
    axes = Rotation.random(random_state=rng).as_matrix()
    moments = np.sort(rng.uniform(1.0, 2.0, 3))
    tensor = axes @ np.diag(moments) @ axes.T
    props = MassProperties(1.5, rng.normal(size=3), tensor)
    found = props.principal_axes
    assert np.linalg.det(found) == pytest.approx(1.0, abs=1e-14)
    np.testing.assert_allclose(found.T @ found, np.eye(3), atol=1e-14)
    np.testing.assert_allclose(found.T @ props.inertia @ found, np.diag(moments), atol=1e-14)
    np.testing.assert_allclose(props.principal_moments, moments, rtol=1e-14)
    assert np.all(np.diff(props.principal_moments) >= 0)


def test_body_principal_axes() -> None:
    box = rp.Box(axis=(1, 2, 3), height_direction=(0, 0, 1), rotate90=True)
    axes, moments = box.principal_axes, box.principal_moments
    assert np.linalg.det(axes) == pytest.approx(1.0, abs=1e-15)
    np.testing.assert_allclose(
        axes.T @ box.inertia @ axes, np.diag(moments), atol=1e-14 * moments.max()
    )


# -- validation ---------------------------------------------------------------------------------


@pytest.mark.parametrize("mass", [0.0, -1.0, math.nan, math.inf, -math.inf, "abc", None])
def test_invalid_mass(mass) -> None:
    with pytest.raises(rp.ParameterError) as info:
        MassProperties(mass, [0, 0, 0], np.eye(3))
    assert info.value.parameter == "mass"
    assert "mass" in str(info.value)


@pytest.mark.parametrize(
    ("com", "inertia", "parameter"),
    [
        ([0, 0, math.nan], np.eye(3), "center_of_mass"),
        ([0, 0], np.eye(3), "center_of_mass"),
        ("abc", np.eye(3), "center_of_mass"),
        ([0, 0, 0], np.eye(2), "inertia"),
        ([0, 0, 0], np.diag([1, 1, math.inf]), "inertia"),
        ([0, 0, 0], [[1, 0.5, 0], [0, 1, 0], [0, 0, 1]], "inertia"),  # not symmetric
        ([0, 0, 0], np.diag([-1.0, 2.0, 2.0]), "inertia"),  # negative moment
        ([0, 0, 0], np.diag([1.0, 1.0, 3.0]), "inertia"),  # 1 + 1 < 3
    ],
)
def test_invalid_values(com, inertia, parameter: str) -> None:
    with pytest.raises(rp.ParameterError) as info:
        MassProperties(1.0, com, inertia)
    assert info.value.parameter == parameter
    assert parameter in str(info.value)


def _rotated(tensor: np.ndarray) -> np.ndarray:
    r = Rotation.from_rotvec([0.4, 0.2, -0.7]).as_matrix()
    return r @ tensor @ r.T


@pytest.mark.parametrize("turned", [False, True])
def test_triangle_inequality_just_inside_and_outside(turned: bool) -> None:
    """I_1 + I_2 >= I_3 to within INERTIA_TOLERANCE * trace."""
    base = np.array([1.0, 1.0, 2.0])  # a flat plate: exactly on the boundary
    trace = 4.0
    transform = _rotated if turned else (lambda t: t)
    MassProperties(1.0, [0, 0, 0], transform(np.diag(base)))
    inside = base + np.array([0, 0, 0.5 * INERTIA_TOLERANCE * trace])
    MassProperties(1.0, [0, 0, 0], transform(np.diag(inside)))
    outside = base + np.array([0, 0, 2.0 * INERTIA_TOLERANCE * trace])
    with pytest.raises(rp.ParameterError, match="triangle"):
        MassProperties(1.0, [0, 0, 0], transform(np.diag(outside)))


@pytest.mark.parametrize("turned", [False, True])
def test_negative_moment_just_inside_and_outside(turned: bool) -> None:
    transform = _rotated if turned else (lambda t: t)
    MassProperties(1.0, [0, 0, 0], transform(np.diag([0.0, 1.0, 1.0])))  # a thin rod
    MassProperties(1.0, [0, 0, 0], transform(np.diag([-0.5 * INERTIA_TOLERANCE * 2, 1.0, 1.0])))
    with pytest.raises(rp.ParameterError, match="negative"):
        MassProperties(1.0, [0, 0, 0], transform(np.diag([-2 * INERTIA_TOLERANCE * 2, 1.0, 1.0])))


def test_symmetry_just_inside_and_outside() -> None:
    trace = 6.0
    inside = np.diag([2.0, 2.0, 2.0])
    inside[0, 1] += 0.5 * INERTIA_TOLERANCE * trace
    props = MassProperties(1.0, [0, 0, 0], inside)
    np.testing.assert_array_equal(props.inertia, props.inertia.T)  # stored symmetrised
    outside = np.diag([2.0, 2.0, 2.0])
    outside[0, 1] += 2 * INERTIA_TOLERANCE * trace
    with pytest.raises(rp.ParameterError, match="symmetric"):
        MassProperties(1.0, [0, 0, 0], outside)


@pytest.mark.parametrize(
    "rotation",
    [np.diag([1.0, 1.0, -1.0]), 2 * np.eye(3), np.eye(2), "abc", np.full((3, 3), np.nan)],
)
def test_invalid_rotation(rotation) -> None:
    props = MassProperties.point_mass(1.0)
    with pytest.raises(rp.ParameterError) as info:
        props.rotated(rotation)
    assert info.value.parameter == "rotation"


def test_immutable() -> None:
    props = rp.Cone().mass_properties
    for array in (
        props.center_of_mass,
        props.inertia,
        props.principal_moments,
        props.principal_axes,
    ):
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 1.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        props.mass = 2.0  # type: ignore[misc]
    # the caller's arrays are copied, not aliased
    inertia = np.eye(3)
    value = MassProperties(1.0, np.zeros(3), inertia)
    inertia[0, 0] = 5.0
    assert value.inertia[0, 0] == 1.0


def test_body_results_are_read_only() -> None:
    for body in (rp.Box(), rp.Cone(extra_frames=[0.5])):
        for array in (body.center_of_mass, body.inertia, body.axis, body.rotation_from_canonical):
            with pytest.raises(ValueError, match="read-only"):
                array.flat[0] = 1.0
        with pytest.raises(AttributeError):
            body.length = 2.0  # type: ignore[misc]
        with pytest.raises(AttributeError):
            body._mass = 2.0
        with pytest.raises(TypeError):
            body.frames["frame_x"] = rp.Frame([0, 0, 0])  # type: ignore[index]
        with pytest.raises(TypeError):
            body.dimensions["length"] = 3.0  # type: ignore[index]


def test_to_dict_and_isclose() -> None:
    props = rp.Box().mass_properties
    data = props.to_dict()
    assert set(data) == {"mass", "center_of_mass", "inertia", "principal_moments", "principal_axes"}
    assert data["mass"] == props.mass and data["inertia"] == props.inertia.tolist()
    nudged = MassProperties(props.mass * (1 + 1e-9), props.center_of_mass, props.inertia)
    assert props.isclose(nudged, rtol=1e-8)
    assert not props.isclose(nudged, rtol=1e-10)


def test_tensor_from_entries_every_order():
    """Each slot lands at its place (and its mirror) for all 720 orders of the six names;
    the expected tensor is written out by hand from the definition of the slots."""
    from itertools import permutations

    from rigidparts.inertia import tensor_from_entries

    named = {"ixx": 2.0, "iyy": 3.0, "izz": 5.0, "ixy": -7.0, "ixz": 11.0, "iyz": -13.0}
    expected = np.array([[2.0, -7.0, 11.0], [-7.0, 3.0, -13.0], [11.0, -13.0, 5.0]])
    for order in permutations(named):
        tensor = tensor_from_entries([named[s] for s in order], order)
        assert np.array_equal(tensor, expected), order
    urdf = tensor_from_entries([1, 2, 3, 4, 5, 6], ("ixx", "ixy", "ixz", "iyy", "iyz", "izz"))
    assert urdf.tolist() == [[1, 2, 3], [2, 4, 5], [3, 5, 6]]


@pytest.mark.parametrize(
    ("values", "order"),
    [
        ([1, 2, 3, 4, 5], ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")),
        ([1, 2, 3, 4, 5, 6], ("ixx", "ixx", "ixz", "iyy", "iyz", "izz")),
        ([1, 2, 3, 4, 5, 6], ("ixx", "iyx", "ixz", "iyy", "iyz", "izz")),
    ],
)
def test_tensor_from_entries_refuses_a_bad_order(values, order):
    from rigidparts.inertia import tensor_from_entries

    with pytest.raises(ValueError, match="permutation"):
        tensor_from_entries(values, order)


# -- MuJoCo's rule (rigidparts.inertia.mujoco_invalidity) --------------------------------------

_MUJOCO_CASES = [
    # (mass, diaginertia, moving): MuJoCo 3.x/4.x compiles it or not (balanceinertia off)
    (1.0, (0.5, 0.5, 1.0), True),
    (1.0, (0.5, 0.5, 1.0000000000000002), True),  # one ulp over: refused
    (1.0, (0.2, 0.3, 0.4), True),
    (1e-16, (0.2, 0.3, 0.4), True),  # below mjMINVAL, moving: refused
    (1e-16, (0.2, 0.3, 0.4), False),  # welded to the world: accepted
    (1.0, (1e-16, 0.3, 0.3), True),
    (1.0, (1e-15, 0.3, 0.3), True),
]


@pytest.mark.parametrize(("mass", "moments", "moving"), _MUJOCO_CASES)
def test_mujoco_invalidity_is_what_mujoco_refuses(mass, moments, moving) -> None:
    from rigidparts.inertia import mujoco_invalid_rows, mujoco_invalidity

    mujoco = pytest.importorskip("mujoco")
    joint = "<freejoint/>" if moving else ""
    xml = (
        "<mujoco><compiler balanceinertia='false'/><worldbody><body>"
        f"{joint}<inertial pos='0 0 0' mass='{mass!r}' "
        f"diaginertia='{' '.join(map(repr, moments))}'/><geom type='sphere' size='0.1' "
        "contype='0' conaffinity='0' mass='0'/></body></worldbody></mujoco>"
    )
    try:
        mujoco.MjModel.from_xml_string(xml)
        refused = False
    except ValueError:
        refused = True
    assert (mujoco_invalidity(mass, moments, moving=moving) is not None) == refused
    floor = 1e-15 if moving else 5e-324
    bad, rounding = mujoco_invalid_rows(np.array([mass]), np.array([moments]), floor)
    assert bool(bad[0] or rounding[0]) == refused


def test_mujoco_invalid_rows_is_the_scalar_rule() -> None:
    """The vectorised form against the scalar one on random rows (finite, flat, negative,
    NaN, tiny): refused or rounding exactly where the scalar rule refuses."""
    from rigidparts.inertia import mujoco_invalid_rows, mujoco_invalidity

    rng = np.random.default_rng(7)
    n = 4000
    moments = rng.uniform(-0.1, 1.0, (n, 3))
    moments[::7, 2] = moments[::7, 0] + moments[::7, 1]  # on the boundary
    moments[::11] *= 1e-16
    moments[::13, 1] = math.nan
    mass = rng.uniform(-1e-15, 3e-15, n)
    bad, rounding = mujoco_invalid_rows(mass, moments, 1e-15)
    expected = [
        mujoco_invalidity(float(m), row) is not None for m, row in zip(mass, moments, strict=True)
    ]
    assert ((bad | rounding) == np.array(expected)).all()
    assert not (bad & rounding).any()
