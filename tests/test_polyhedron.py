"""The polyhedral integrals (:mod:`rigidparts.polyhedron`) against closed forms at 50 digits.

References are the textbook closed forms of the cuboid and the right tetrahedron, evaluated in
mpmath at 50 digits and placed (rotated, moved up to a kilometre) in 50-digit arithmetic; the
meshes are built here by hand (no trimesh), so nothing is shared with the code under test but
the float vertices.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

from rigidparts.polyhedron import MeshDefect, check_closed, integrals, merge_exact

mpmath.mp.dps = 50

# A cuboid [0, a] x [0, b] x [0, c]: 8 corners, 12 outward triangles.
CUBOID_FACES = np.array(
    [
        [0, 2, 1], [0, 3, 2],  # z = 0, normal -z
        [4, 5, 6], [4, 6, 7],  # z = c, normal +z
        [0, 1, 5], [0, 5, 4],  # y = 0, normal -y
        [3, 7, 6], [3, 6, 2],  # y = b, normal +y
        [0, 4, 7], [0, 7, 3],  # x = 0, normal -x
        [1, 2, 6], [1, 6, 5],  # x = a, normal +x
    ]
)  # fmt: skip
TETRA_FACES = np.array([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])


def cuboid_vertices(a: float, b: float, c: float) -> np.ndarray:
    return np.array(
        [[0, 0, 0], [a, 0, 0], [a, b, 0], [0, b, 0], [0, 0, c], [a, 0, c], [a, b, c], [0, b, c]],
        dtype=np.float64,
    )


def cuboid_reference(a, b, c):
    """(V, centroid, S about the centroid) of the cuboid, 50 digits."""
    a, b, c = (mpmath.mpf(x) for x in (a, b, c))
    v = a * b * c
    s = mpmath.diag([v * a**2 / 12, v * b**2 / 12, v * c**2 / 12])
    return v, mpmath.matrix([a / 2, b / 2, c / 2]), s


def tetra_reference(a, b, c):
    """The right tetrahedron (0, a e_x, b e_y, c e_z): V = abc/6, centroid (a, b, c)/4,
    int x^2 = a^3 b c / 60, int x y = a^2 b^2 c / 120 (central: minus V c_x c_y)."""
    a, b, c = (mpmath.mpf(x) for x in (a, b, c))
    v = a * b * c / 6
    centroid = mpmath.matrix([a / 4, b / 4, c / 4])
    raw = mpmath.matrix(
        [
            [a**3 * b * c / 60, a**2 * b**2 * c / 120, a**2 * b * c**2 / 120],
            [a**2 * b**2 * c / 120, a * b**3 * c / 60, a * b**2 * c**2 / 120],
            [a**2 * b * c**2 / 120, a * b**2 * c**2 / 120, a * b * c**3 / 60],
        ]
    )
    return v, centroid, raw - v * centroid * centroid.T


def placed(reference, rotation: np.ndarray, offset: np.ndarray):
    v, centroid, s = reference
    r = mpmath.matrix(rotation.tolist())
    return v, r * centroid + mpmath.matrix(offset.tolist()), r * s * r.T


def assert_matches(found, reference, rtol: float) -> None:
    v, centroid, s = reference
    size = float(mpmath.cbrt(v))
    assert abs(found.volume - float(v)) <= rtol * float(v)
    for i in range(3):
        assert abs(found.centroid[i] - float(centroid[i])) <= rtol * size
    scale = float(max(abs(s[i, i]) for i in range(3)))
    for i in range(3):
        for j in range(3):
            assert abs(found.second_moment[i, j] - float(s[i, j])) <= rtol * scale, (i, j)


def rotation(seed: int) -> np.ndarray:
    q, r = np.linalg.qr(np.random.default_rng(seed).normal(size=(3, 3)))
    q = q * np.sign(np.diag(r))
    return q if np.linalg.det(q) > 0 else -q


OFFSETS = [np.zeros(3), np.array([0.3, -1.7, 2.2]), np.array([1000.25, -999.75, 1000.125])]


@pytest.mark.parametrize("offset", OFFSETS, ids=["origin", "near", "1 km"])
@pytest.mark.parametrize("seed", [None, 1, 2])
def test_cuboid_matches_the_closed_form(offset, seed) -> None:
    dims = (0.5, 1.25, 3.0)
    r = np.eye(3) if seed is None else rotation(seed)
    if seed is not None and offset[0] > 100:
        pytest.skip("rotated corners 1 km away are rounded: the tetrahedron test covers it")
    vertices = cuboid_vertices(*dims) @ r.T + offset  # exact unless rotated
    reference = placed(cuboid_reference(*dims), r, offset)
    check_closed(CUBOID_FACES, 8)
    assert_matches(integrals(vertices, CUBOID_FACES), reference, 1e-13)


def general_tetra_reference(points: np.ndarray):
    """Any tetrahedron p0..p3 (the float vertices as given, 50 digits): V = det / 6, centroid
    the vertices' mean, and the central second moment V/20 sum_i d_i d_i^T with d_i = p_i - c
    (Tonon 2004; valid since sum_i d_i = 0)."""
    p = [mpmath.matrix([mpmath.mpf(float(x)) for x in row]) for row in points]
    e = mpmath.matrix(3, 3)
    for k in range(3):
        for i in range(3):
            e[i, k] = p[k + 1][i] - p[0][i]
    v = mpmath.det(e) / 6
    centroid = (p[0] + p[1] + p[2] + p[3]) / 4
    s = mpmath.matrix(3, 3)
    for q in p:
        d = q - centroid
        s += d * d.T
    return v, centroid, s * v / 20


@pytest.mark.parametrize("offset", OFFSETS, ids=["origin", "near", "1 km"])
@pytest.mark.parametrize("seed", [None, 3, 4])
def test_tetrahedron_matches_the_closed_form(offset, seed) -> None:
    a, b, c = 0.7, 1.9, 0.4
    base = np.array([[0, 0, 0], [a, 0, 0], [0, b, 0], [0, 0, c]], dtype=np.float64)
    r = np.eye(3) if seed is None else rotation(seed)
    vertices = base @ r.T + offset
    check_closed(TETRA_FACES, 4)
    found = integrals(vertices, TETRA_FACES)
    assert_matches(found, general_tetra_reference(vertices), 1e-13)
    if seed is None and not offset.any():  # the right tetrahedron's textbook closed form
        assert_matches(found, tetra_reference(a, b, c), 1e-14)
        assert found.second_moment[0, 1] != 0.0  # a full tensor


def test_inertia_is_trace_minus_second_moment() -> None:
    found = integrals(cuboid_vertices(1.0, 2.0, 3.0), CUBOID_FACES)
    s = found.second_moment
    np.testing.assert_allclose(found.inertia(2.0), 2.0 * (np.trace(s) * np.eye(3) - s), rtol=1e-15)
    # I_xx = m (b^2 + c^2) / 12 for m = 6 rho
    assert found.inertia(2.0)[0, 0] == pytest.approx(12.0 * (4 + 9) / 12, rel=1e-15)


def test_many_small_triangles_sum_accurately() -> None:
    """A cuboid whose faces are split into 2 * 200^2 triangles each (480 000 in all) sums to
    the closed form: the pairwise sums keep the error near eps, not n eps."""
    n = 200
    a, b, c = 1.0, 2.0, 3.0
    grid = np.linspace(0.0, 1.0, n + 1)
    vertices, faces = [], []
    # each face of the unit cube as an (n x n) grid, then stretched
    for axis in range(3):
        for side in (0.0, 1.0):
            u, v = np.meshgrid(grid, grid, indexing="ij")
            p = np.zeros((n + 1, n + 1, 3))
            p[..., axis] = side
            p[..., (axis + 1) % 3] = u
            p[..., (axis + 2) % 3] = v
            start = sum(len(x) for x in vertices)
            vertices.append(p.reshape(-1, 3))
            idx = start + np.arange((n + 1) ** 2).reshape(n + 1, n + 1)
            q = np.stack([idx[:-1, :-1], idx[1:, :-1], idx[1:, 1:], idx[:-1, 1:]], -1).reshape(
                -1, 4
            )
            tri = np.concatenate([q[:, [0, 1, 2]], q[:, [0, 2, 3]]])
            faces.append(tri if side == 1.0 else tri[:, ::-1])  # outward
    v, f = merge_exact(np.concatenate(vertices) * [a, b, c], np.concatenate(faces))
    assert len(f) == 6 * 2 * n * n
    check_closed(f, len(v))
    offset = np.array([1000.25, -999.75, 1000.125])
    reference = placed(cuboid_reference(a, b, c), np.eye(3), offset)
    assert_matches(integrals(v + offset, f), reference, 1e-13)


def test_defects_are_named() -> None:
    with pytest.raises(MeshDefect, match=r"watertight\): 3 edges belong to one triangle"):
        check_closed(CUBOID_FACES[1:], 8)
    flipped = CUBOID_FACES.copy()
    flipped[0] = flipped[0, ::-1]
    with pytest.raises(MeshDefect, match="inconsistently wound"):
        check_closed(flipped, 8)
    with pytest.raises(MeshDefect, match=r"faces inward.*flip them"):
        integrals(cuboid_vertices(1, 1, 1), CUBOID_FACES[:, ::-1])
    pillow = np.array([[0, 1, 2], [0, 2, 1]])
    with pytest.raises(MeshDefect, match="at least 4"):
        check_closed(pillow, 3)
    flat = cuboid_vertices(1, 1, 0)  # every corner on z = 0: a closed but flat surface
    with pytest.raises(MeshDefect, match="encloses no volume"):
        integrals(flat, CUBOID_FACES)
    doubled = np.concatenate([CUBOID_FACES, CUBOID_FACES])
    with pytest.raises(MeshDefect, match="more than two triangles"):
        check_closed(doubled, 8)


def test_merge_exact_joins_identical_vertices_only() -> None:
    soup = cuboid_vertices(1, 2, 3)[CUBOID_FACES].reshape(-1, 3)  # as an STL stores it
    v, f = merge_exact(soup, np.arange(len(soup)).reshape(-1, 3))
    assert len(v) == 8 and len(f) == 12
    check_closed(f, 8)
    near = soup.copy()
    near[0, 0] += 1e-12  # not identical: stays apart (and opens the surface)
    v, f = merge_exact(near, np.arange(len(soup)).reshape(-1, 3))
    assert len(v) == 9
    with pytest.raises(MeshDefect, match="not a closed surface"):
        check_closed(f, len(v))


def _reference_merge(vertices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Merged vertices in first-occurrence order and the inverse, by a Python dictionary."""
    seen: dict[tuple[float, ...], int] = {}
    inverse = [seen.setdefault(tuple(row + 0.0), len(seen)) for row in vertices]
    return np.array(list(seen)), np.array(inverse)


@pytest.mark.parametrize("collide", [False, True])
def test_merge_exact_matches_a_dictionary(collide, monkeypatch) -> None:
    """Many repeats, -0.0 against 0.0, near misses one ulp apart: the same vertices (first
    occurrence order) and triangles as a dictionary of exact tuples; with a hash that puts
    every row in one group (``collide``) the exact comparison catches it and the result is
    still exact."""
    import rigidparts.polyhedron as polyhedron

    rng = np.random.default_rng(3)
    points = rng.integers(-3, 4, size=(200, 3)).astype(float) * 0.25
    points[::7] = np.nextafter(points[::7], np.inf)  # one ulp from a grid point
    points[::11] *= -1.0  # -0.0 where a coordinate was 0.0
    soup = points[rng.integers(0, len(points), size=(900, 3))].reshape(-1, 3)
    faces = np.arange(len(soup)).reshape(-1, 3)
    if collide:

        def one_group(bits, seed):
            n = len(bits[0])
            return np.arange(n), np.r_[True, np.zeros(n - 1, dtype=bool)]

        monkeypatch.setattr(polyhedron, "_hash_order", one_group)
    expected_v, inverse = _reference_merge(soup)
    expected_f = inverse[faces]
    keep = np.array([len(set(t)) == 3 for t in expected_f])
    v, f = merge_exact(soup, faces)
    np.testing.assert_array_equal(v, expected_v)
    assert not np.any(np.signbit(v) & (v == 0.0))
    np.testing.assert_array_equal(f, expected_f[keep])


def test_merge_exact_keeps_a_mesh_without_repeats() -> None:
    v = cuboid_vertices(1, 2, 3)
    merged, faces = merge_exact(v, CUBOID_FACES)
    np.testing.assert_array_equal(merged, v)
    np.testing.assert_array_equal(faces, CUBOID_FACES)


def test_an_edge_twice_each_way_is_non_manifold() -> None:
    """Two cuboids sharing an edge (1-2): it is traversed twice each way, which the fast pair
    test must not take for two good edges."""
    second = CUBOID_FACES.copy()
    second[second >= 3] += 5  # corners 0, 1, 2 shared, the others new
    with pytest.raises(MeshDefect, match=r"shared by more than two triangles"):
        check_closed(np.concatenate([CUBOID_FACES, second]), 13)
