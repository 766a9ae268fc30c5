"""Axis, cross-section directions and frames of the bodies, against the NOTES.md rule written
independently (tests/reference.py, numpy; and an exact mpmath version here), scipy's Rotation
and the 50-digit inertia references."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import rigidparts as rp
from reference import (
    AXIS_BOUND,
    DIRECTION_BOUND,
    U,
    box_reference,
    cone_reference,
    rule_directions,
    tensor_relative_error,
)
from rigidparts.frames import PARALLEL_SINE

X, Y, Z = np.eye(3)


# The table of NOTES.md: axis -> (h, w), rotate90 unchecked.
RULE_TABLE = [
    (X, Y, Z),
    (Y, Z, X),
    (Z, X, Y),
    (-X, Y, -Z),  # largest |component| is x -> h = +y; w = (-x) x y = -z
    (-Y, Z, -X),
    (-Z, X, -Y),
]

AXES = {
    "+x": (1, 0, 0),
    "+y": (0, 1, 0),
    "+z": (0, 0, 1),
    "-x": (-1, 0, 0),
    "-y": (0, -2, 0),
    "-z": (0, 0, -0.5),
    "skew_123": (1, 2, 3),
    "skew_neg": (-0.3, 0.9, -0.1),
    "tie_xy": (1, 1, 0),
    "tie_xyz": (1, 1, 1),
    "tie_yz": (0, -1, 1),
    "nearly_z": (1e-9, 0, 1),
    "tiny": (1e-300, 2e-300, 0),
    "huge": (1e300, 0, -1e300),
}


@pytest.mark.parametrize(("e", "h", "w"), RULE_TABLE)
@pytest.mark.parametrize("rotate90", [False, True])
def test_rule_table(e: np.ndarray, h: np.ndarray, w: np.ndarray, rotate90: bool) -> None:
    box = rp.Box(axis=tuple(3.5 * e), rotate90=rotate90)  # any length: normalised
    if rotate90:
        h, w = w, -h
    np.testing.assert_array_equal(box.axis, e)
    np.testing.assert_array_equal(box.height_direction, h)
    np.testing.assert_array_equal(box.width_direction, w)
    np.testing.assert_array_equal(box.rotation_from_canonical, np.column_stack([e, h, w]))


@pytest.mark.parametrize("name", list(AXES))
@pytest.mark.parametrize("rotate90", [False, True])
def test_directions_follow_the_rule(name: str, rotate90: bool) -> None:
    box = rp.Box(axis=AXES[name], rotate90=rotate90)
    e, h, w = rule_directions(np.array(AXES[name], dtype=float) / max(np.abs(AXES[name])), rotate90)
    np.testing.assert_allclose(box.axis, e, rtol=0, atol=AXIS_BOUND)
    np.testing.assert_allclose(box.height_direction, h, rtol=0, atol=DIRECTION_BOUND)
    np.testing.assert_allclose(box.width_direction, w, rtol=0, atol=DIRECTION_BOUND)
    r_ac = box.rotation_from_canonical
    # columns within DIRECTION_BOUND / 2 of exact orthonormal ones: R^T R - 1 within 3 of
    # that, + the BLAS product's gamma_3; |det - 1| within 4.6 times that + LU's 37 u
    orthonormal = 1.5 * DIRECTION_BOUND + 4 * U
    np.testing.assert_allclose(r_ac.T @ r_ac, np.eye(3), rtol=0, atol=orthonormal)
    assert np.linalg.det(r_ac) == pytest.approx(1.0, abs=4.6 * orthonormal + 37 * U)
    # scipy finds the rotation taking the canonical x, y onto e, h (an SVD: LAPACK's singular
    # vectors are orthonormal within 105 ulp = 210 u by its own driver tests): it must be R_AC
    rotation, _ = Rotation.align_vectors([e, h], [X, Y])
    np.testing.assert_allclose(
        rotation.as_matrix(), r_ac, rtol=0, atol=2 * DIRECTION_BOUND + 2 * 210 * U
    )
    # the cone uses the same rule for its (irrelevant) section axes
    cone = rp.Cone(axis=AXES[name])
    np.testing.assert_allclose(cone.axis, e, rtol=0, atol=AXIS_BOUND)


@pytest.mark.parametrize(
    ("axis", "height_direction", "expected_h"),
    [
        ((1, 0, 0), (0, 0, 1), Z),
        ((1, 0, 0), (0, 0, -3), -Z),
        ((0, 0, 1), (1, 1, 1), np.array([1, 1, 0]) / np.sqrt(2)),  # made orthogonal to e
        ((1, 1, 0), (0, 0, 1), Z),
        ((1, 2, 3), (1, 0, 0), None),
    ],
)
@pytest.mark.parametrize("rotate90", [False, True])
def test_explicit_height_direction(axis, height_direction, expected_h, rotate90: bool) -> None:
    box = rp.Box(axis=axis, height_direction=height_direction, rotate90=rotate90)
    e, h, w = rule_directions(axis, rotate90, height_direction)
    np.testing.assert_allclose(box.axis, e, rtol=0, atol=AXIS_BOUND)
    if expected_h is not None:
        np.testing.assert_allclose(h if not rotate90 else -w, expected_h, atol=DIRECTION_BOUND)
    np.testing.assert_allclose(box.height_direction, h, rtol=0, atol=DIRECTION_BOUND)
    np.testing.assert_allclose(box.width_direction, w, rtol=0, atol=DIRECTION_BOUND)
    assert box.parameters()["height_direction"] == pytest.approx(list(h if not rotate90 else -w))


@pytest.mark.parametrize("rotate90", [False, True])
@pytest.mark.parametrize("height_direction", [None, (0, 0, 1), (0.3, 0.2, -1)])
def test_parameters_rebuild_the_same_orientation(rotate90: bool, height_direction) -> None:
    """parameters() must rebuild the body: the explicit height direction it records is the
    one before rotate90 turns the section (regression: it recorded the turned one)."""
    box = rp.Box(axis=(1, 2, 3), height_direction=height_direction, rotate90=rotate90)
    params = box.parameters()
    assert params.pop("shape") == "box"
    again = rp.Box(**params)
    np.testing.assert_allclose(
        again.rotation_from_canonical, box.rotation_from_canonical, rtol=0, atol=3e-16
    )
    # R I_C R^T through the BLAS with R within 3e-16 of the first one: 2 * 3 * 3e-16 from R,
    # and each of the two products' rounding (gamma_3 * 3 |I|max on each side): < 8e-15 |I|max
    np.testing.assert_allclose(again.inertia, box.inertia, rtol=0, atol=8e-15 * box.inertia.max())


def test_height_direction_parallel_threshold() -> None:
    """A height direction counts as parallel to the axis below a sine of PARALLEL_SINE."""
    assert PARALLEL_SINE == 1e-9
    rp.Box(height_direction=(1, 2 * PARALLEL_SINE, 0))  # just valid
    with pytest.raises(rp.ParameterError) as info:
        rp.Box(height_direction=(1, PARALLEL_SINE / 2, 0))
    assert info.value.parameter == "height_direction"


# -- inertia in frame_a: R_AC I_C R_AC^T, exactly --------------------------------------------


def _exact_directions(axis, rotate90: bool, height_direction=None) -> list[mpmath.matrix]:
    """The NOTES.md rule at 50 digits from the exact float inputs."""
    with mpmath.workdps(50):
        a = mpmath.matrix([mpmath.mpf(float(v)) for v in axis])
        e = a / mpmath.norm(a)
        if height_direction is None:
            largest = max(range(3), key=lambda i: (abs(e[i]), -i))
            u = mpmath.matrix([1 if i == (largest + 1) % 3 else 0 for i in range(3)])
        else:
            u = mpmath.matrix([mpmath.mpf(float(v)) for v in height_direction])
        dot = sum(u[i] * e[i] for i in range(3))
        h = u - dot * e
        h = h / mpmath.norm(h)
        w = mpmath.matrix(
            [e[1] * h[2] - e[2] * h[1], e[2] * h[0] - e[0] * h[2], e[0] * h[1] - e[1] * h[0]]
        )
        if rotate90:
            h, w = w, -h
        return [e, h, w]


def _exact_tensor(moments, directions) -> mpmath.matrix:
    with mpmath.workdps(50):
        out = mpmath.zeros(3, 3)
        for moment, v in zip(moments, directions, strict=True):
            out += moment * (v * v.T)
        return out


@pytest.mark.parametrize("name", list(AXES))
@pytest.mark.parametrize("rotate90", [False, True])
def test_box_inertia_in_frame_a(name: str, rotate90: bool) -> None:
    dims, rho = (0.9, 0.12, 0.2, 0.08, 0.15), 7860.0
    box = rp.Box(
        length=dims[0],
        width=dims[1],
        height=dims[2],
        inner_width=dims[3],
        inner_height=dims[4],
        density=rho,
        axis=AXES[name],
        rotate90=rotate90,
    )
    ref = box_reference(*dims, rho)
    directions = _exact_directions(AXES[name], rotate90)
    exact = _exact_tensor([ref["i_xx"], ref["i_yy"], ref["i_zz"]], directions)
    assert tensor_relative_error(box.inertia, exact) <= 2e-15
    np.testing.assert_array_equal(box.inertia, box.inertia.T)
    # and the same with scipy's rotation of the canonical tensor (independent arithmetic)
    r_ac = Rotation.align_vectors(
        [
            np.array(directions[0], dtype=float).ravel(),
            np.array(directions[1], dtype=float).ravel(),
        ],
        [X, Y],
    )[0].as_matrix()
    canonical = np.diag([float(ref[k]) for k in ("i_xx", "i_yy", "i_zz")])
    np.testing.assert_allclose(box.inertia, r_ac @ canonical @ r_ac.T, rtol=0, atol=1e-14 * 30)
    # frames: positions along the axis, orientation of frame_a
    e = np.array(directions[0], dtype=float).ravel()
    np.testing.assert_allclose(box.center_of_mass, dims[0] / 2 * e, rtol=0, atol=3e-16)


@pytest.mark.parametrize("name", list(AXES))
def test_cone_inertia_in_frame_a(name: str) -> None:
    """Axisymmetric: I = I_t (1 - e e^T) + I_a e e^T, whatever the section axes."""
    dims, rho = (0.8, 0.3, 0.1, 0.2, 0.06), 2700.0
    cone = rp.Cone(
        length=dims[0],
        radius_a=dims[1],
        radius_b=dims[2],
        inner_radius_a=dims[3],
        inner_radius_b=dims[4],
        density=rho,
        axis=AXES[name],
    )
    ref = cone_reference(*dims, rho)
    e = _exact_directions(AXES[name], False)[0]
    with mpmath.workdps(50):
        exact = ref["i_yy"] * mpmath.eye(3) + (ref["i_xx"] - ref["i_yy"]) * (e * e.T)
        com = ref["com_x"] * e
    assert tensor_relative_error(cone.inertia, exact) <= 2e-15
    for i in range(3):
        assert abs(cone.center_of_mass[i] - float(com[i])) <= 2e-16 * float(ref["com_x"])


# -- frames -------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["+x", "-y", "skew_123", "tie_xyz"])
def test_box_frames(name: str) -> None:
    box = rp.Box(length="0.6 m", axis=AXES[name], extra_frames=(0.25, "100 mm", -0.5, 2.0))
    e = np.array(AXES[name], dtype=float) / np.linalg.norm(AXES[name])  # the BLAS's norm
    assert list(box.frames) == [
        "frame_a",
        "frame_b",
        "frame_com",
        "frame_c1",
        "frame_c2",
        "frame_c3",
        "frame_c4",
    ]
    expected = {
        "frame_a": 0.0,
        "frame_b": 0.6,
        "frame_com": 0.3,
        "frame_c1": 0.25,
        "frame_c2": 0.1,
        "frame_c3": -0.5,
        "frame_c4": 2.0,
    }
    for frame_name, offset in expected.items():
        frame = box.frames[frame_name]
        # offset * e on both sides (e's within AXIS_BOUND of each other, the products rounded:
        # 2 u) and "100 mm" read as 100 * 0.001 (2 u)
        bound = abs(offset) * (AXIS_BOUND + 4 * U)
        np.testing.assert_allclose(frame.position, offset * e, rtol=0, atol=bound)
        np.testing.assert_array_equal(frame.rotation, np.eye(3))
    assert box.extra_frames == (0.25, 0.1, -0.5, 2.0)
    # rotate90 turns only the section, never the frames (box.txt)
    turned = rp.Box(length=0.6, axis=AXES[name], rotate90=True, extra_frames=(0.25,))
    for frame_name in ("frame_a", "frame_b", "frame_com", "frame_c1"):
        assert turned.frames[frame_name] == box.frames[frame_name]


@pytest.mark.parametrize(
    ("dims", "com_fraction"),
    [
        ((1.2, 0.3, 0.0, 0.0, 0.0), 0.25),  # solid pointed cone: L/4 from the base
        ((1.2, 0.0, 0.3, 0.0, 0.0), 0.75),
        ((1.2, 0.2, 0.2, 0.1, 0.1), 0.5),
        ((1.2, 0.4, 0.1, 0.3, 0.05), None),
    ],
)
def test_cone_frames(dims, com_fraction) -> None:
    axis = (0.3, -0.4, 1.2)
    e = np.array(axis) / np.linalg.norm(axis)
    cone = rp.Cone(
        length=dims[0],
        radius_a=dims[1],
        radius_b=dims[2],
        inner_radius_a=dims[3],
        inner_radius_b=dims[4],
        axis=axis,
        extra_frames=[0.5, 1.0],
    )
    l_com = float(cone_reference(*dims, 7860.0)["com_x"])
    if com_fraction is not None:
        assert l_com == pytest.approx(com_fraction * dims[0], rel=1e-15)
    assert list(cone.frames) == ["frame_a", "frame_b", "frame_com", "frame_c1", "frame_c2"]
    for frame_name, offset in [
        ("frame_a", 0.0),
        ("frame_b", dims[0]),
        ("frame_com", l_com),
        ("frame_c1", 0.5),
        ("frame_c2", 1.0),
    ]:
        np.testing.assert_allclose(cone.frames[frame_name].position, offset * e, atol=2e-16)
        np.testing.assert_array_equal(cone.frames[frame_name].rotation, np.eye(3))
    np.testing.assert_array_equal(cone.frames["frame_com"].position, cone.center_of_mass)


def test_frame_value() -> None:
    frame = rp.Frame([1, 2, 3], Rotation.from_euler("z", 90, degrees=True).as_matrix())
    assert frame.position.dtype == np.float64 and frame.position.shape == (3,)
    with pytest.raises(ValueError, match="read-only"):
        frame.position[0] = 5.0
    with pytest.raises(ValueError, match="read-only"):
        frame.rotation[0, 0] = 5.0
    with pytest.raises(AttributeError):
        frame.position = np.zeros(3)  # type: ignore[misc]
    transform = frame.transform
    np.testing.assert_allclose(transform @ [1, 0, 0, 1], [1, 3, 3, 1], atol=1e-15)
    assert frame.to_dict() == {
        "position": [1.0, 2.0, 3.0],
        "rotation": frame.rotation.tolist(),
    }
    assert rp.Frame([0, 0, 0]).rotation.tolist() == np.eye(3).tolist()
    assert frame == rp.Frame((1.0, 2.0, 3.0), frame.rotation)
    assert frame != rp.Frame((1.0, 2.0, 3.5), frame.rotation)
