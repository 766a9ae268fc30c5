"""The geometry's mass properties (rigidparts.checking.geometry) against independent
computations: closed forms of solids, quadrature of the union of two spheres slice by slice,
a hollow mesh's difference of two cubes."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from scipy.integrate import quad

from rigidparts.checking.geometry import link_geometry
from rigidparts.formats.description import Geometry, Link, Source

pytest.importorskip("manifold3d")
trimesh = pytest.importorskip("trimesh")

SOURCE = Source("fixture", 1, "link[a]")
EYE = np.eye(3)


def piece(kind: str, size, position=(0, 0, 0), rotation=EYE, **extra) -> Geometry:
    return Geometry(
        kind, tuple(size), (np.asarray(rotation, float), np.asarray(position, float)),
        "collision", SOURCE, **extra,
    )  # fmt: skip


def link(*pieces: Geometry) -> Link:
    return Link("a", SOURCE, None, list(pieces))


def box_central(x: float, y: float, z: float) -> np.ndarray:
    v = x * y * z
    return v / 12 * np.diag([y * y + z * z, x * x + z * z, x * x + y * y])


def test_overlapping_boxes_are_unioned_not_summed() -> None:
    # two unit cubes overlapping by half: the 1.5 x 1 x 1 box, exactly (planar faces)
    result = link_geometry(link(piece("box", (1, 1, 1)), piece("box", (1, 1, 1), (0.5, 0, 0))))
    assert result.volume == pytest.approx(1.5, rel=1e-12)
    np.testing.assert_allclose(result.unit.center_of_mass, [0.25, 0, 0], atol=1e-12)
    np.testing.assert_allclose(result.unit.inertia, box_central(1.5, 1, 1), atol=1e-12)
    assert result.overlaps and result.overlaps[0][2] == pytest.approx(0.5, rel=1e-12)
    assert result.accuracy < 1e-12


def test_separate_pieces_are_the_exact_sum() -> None:
    a, b = np.array([0.0, 0, 0]), np.array([2.0, 0, 0])
    result = link_geometry(link(piece("box", (1, 1, 1), a), piece("sphere", (0.5,), b)))
    sphere = 4 / 3 * math.pi * 0.125
    volume = 1 + sphere
    com = (a * 1 + b * sphere) / volume
    inertia = box_central(1, 1, 1) + np.eye(3) * 2 / 5 * sphere * 0.25
    for mass, c in ((1.0, a), (sphere, b)):
        d = c - com
        inertia = inertia + mass * (d @ d * np.eye(3) - np.outer(d, d))
    assert result.overlaps == () and result.accuracy == 0.0
    assert result.volume == pytest.approx(volume, rel=1e-14)
    np.testing.assert_allclose(result.unit.inertia, inertia, rtol=0, atol=1e-14)


def test_touching_boxes_do_not_overlap() -> None:
    result = link_geometry(link(piece("box", (1, 1, 1)), piece("box", (1, 1, 1), (1, 0, 0))))
    assert result.overlaps == ()
    np.testing.assert_allclose(result.unit.inertia, box_central(2, 1, 1), atol=1e-13)


def _sphere_union_by_slices(radius: float, distance: float) -> tuple[float, float, float]:
    """Volume, axial and transverse central moments (density 1) of two spheres of
    ``radius`` centred at z = 0 and z = distance, by quadrature of the circular slices."""

    def r2(z: float) -> float:
        return max(radius**2 - z**2, radius**2 - (z - distance) ** 2, 0.0)

    lo, hi, mid = -radius, distance + radius, distance / 2
    opts = {"points": [mid], "epsabs": 0, "epsrel": 1e-13, "limit": 200}
    volume = quad(lambda z: math.pi * r2(z), lo, hi, **opts)[0]
    axial = quad(lambda z: math.pi * r2(z) ** 2 / 2, lo, hi, **opts)[0]
    transverse = quad(
        lambda z: math.pi * r2(z) ** 2 / 4 + math.pi * r2(z) * (z - mid) ** 2, lo, hi, **opts
    )[0]
    return volume, axial, transverse


def test_overlapping_spheres_within_the_stated_accuracy() -> None:
    result = link_geometry(link(piece("sphere", (1,)), piece("sphere", (1,), (0, 0, 1))))
    volume, axial, transverse = _sphere_union_by_slices(1.0, 1.0)
    assert volume == pytest.approx(2 * 4 / 3 * math.pi - math.pi * 5 / 12, rel=1e-12)
    bound = result.accuracy
    assert 0 < bound < 1e-3
    assert abs(result.volume - volume) <= bound * volume
    np.testing.assert_allclose(result.unit.center_of_mass, [0, 0, 0.5], atol=1e-12)
    inertia = result.unit.inertia
    scale = np.trace(inertia)
    assert abs(inertia[2, 2] - axial) <= bound * scale
    assert abs(inertia[0, 0] - transverse) <= bound * scale
    assert abs(inertia[1, 1] - transverse) <= bound * scale


def _cube(size: float, inward: bool = False):
    mesh = trimesh.creation.box(extents=(size, size, size))
    if inward:
        mesh.invert()
    return mesh


def test_mesh_with_an_inner_shell_is_hollow(tmp_path: Path) -> None:
    outer, inner = _cube(1.0), _cube(0.5, inward=True)
    hollow = trimesh.util.concatenate([outer, inner])
    path = tmp_path / "hollow.stl"
    hollow.export(path)
    result = link_geometry(link(piece("mesh", (), mesh=str(path))))
    assert result.volume == pytest.approx(1 - 0.125, rel=1e-12)
    np.testing.assert_allclose(
        result.unit.inertia, box_central(1, 1, 1) - box_central(0.5, 0.5, 0.5), atol=1e-13
    )


@pytest.mark.parametrize("scale", [(0.001, 0.001, 0.001), (2.0, 1.0, 0.5), (-1.0, 1.0, 1.0)])
def test_mesh_scale_per_axis(tmp_path: Path, scale) -> None:
    mesh = trimesh.creation.box(extents=(1.0, 2.0, 3.0))
    mesh.apply_translation((0.5, 0, 0))
    path = tmp_path / "part.stl"
    mesh.export(path)
    result = link_geometry(link(piece("mesh", (), mesh=str(path), scale=scale)))
    sx, sy, sz = (abs(s) for s in scale)
    assert result.volume == pytest.approx(6 * sx * sy * sz, rel=1e-12)
    np.testing.assert_allclose(result.unit.center_of_mass, [0.5 * scale[0], 0, 0], atol=1e-15)
    expected = box_central(sx, 2 * sy, 3 * sz)
    np.testing.assert_allclose(
        result.unit.inertia, expected, rtol=1e-12, atol=1e-14 * np.trace(expected)
    )


def test_collision_first_then_visual_and_planes_skipped() -> None:
    visual = Geometry("box", (1, 1, 1), (EYE, np.zeros(3)), "visual", SOURCE)
    plane = piece("plane", (0, 0))
    only_visual = Link("a", SOURCE, None, [], [visual])
    result = link_geometry(only_visual)
    assert result.role == "visual" and result.volume == pytest.approx(1.0)
    with_plane = Link("a", SOURCE, None, [plane, piece("sphere", (1,))], [visual])
    result = link_geometry(with_plane)
    assert result.role == "collision"
    assert result.volume == pytest.approx(4 / 3 * math.pi, rel=1e-14)
    assert any("no volume" in line for line in result.skipped)


def test_a_missing_mesh_is_said_and_not_weighed() -> None:
    missing = piece("mesh", (), mesh=None, missing="package://robot/meshes/arm.stl")
    result = link_geometry(link(missing, piece("box", (1, 1, 1))))
    assert result.unit is None
    assert any("arm.stl" in line for line in result.skipped)


def test_rotated_cylinder_placed_by_its_pose() -> None:
    # a cylinder along the link's x (its z turned by 90 deg about y), radius 0.1, length 1
    turn = np.array([[0.0, 0, 1], [0, 1, 0], [-1, 0, 0]])
    result = link_geometry(link(piece("cylinder", (0.1, 1.0), (0.5, 0, 0), turn)))
    v = math.pi * 0.01
    expected = np.diag([v * 0.01 / 2, v * (3 * 0.01 + 1) / 12, v * (3 * 0.01 + 1) / 12])
    np.testing.assert_allclose(result.unit.center_of_mass, [0.5, 0, 0], atol=1e-15)
    np.testing.assert_allclose(result.unit.inertia, expected, rtol=1e-13, atol=1e-17)
