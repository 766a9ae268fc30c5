"""Meshes as found in the wild (``rp.MeshBody``, :mod:`rigidparts.shapes._mesh_repair`): each
class (closed, inside-out, welded, several shells nested / disjoint / overlapping, small
holes, refused, convex hull) against closed forms of rp.Box and trimesh's own integrals, the
report naming the class and the action, the command line, and real meshes that pybullet_data
ships (some not closed)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rigidparts as rp
from mesh_fixtures import rotated_triangle, t_junction_cube

trimesh = pytest.importorskip("trimesh")


def box(extents, at=(0.0, 0.0, 0.0)):
    mesh = trimesh.creation.box(extents=extents)
    mesh.apply_translation(at)
    return mesh


def joined(*meshes, flip=()):
    vertices, faces, offset = [], [], 0
    for k, mesh in enumerate(meshes):
        f = np.asarray(mesh.faces)
        vertices.append(np.asarray(mesh.vertices))
        faces.append((f[:, ::-1] if k in flip else f) + offset)
        offset += len(mesh.vertices)
    return trimesh.Trimesh(np.vstack(vertices), np.vstack(faces), process=False)


def soup(mesh, jitter=0.0, seed=0):
    """Every triangle with its own copy of its corners (as an STL has them), each corner moved
    by up to ``jitter`` (absolute) at random."""
    corners = np.asarray(mesh.vertices)[np.asarray(mesh.faces)].reshape(-1, 3)
    rng = np.random.default_rng(seed)
    corners = corners + rng.uniform(-jitter, jitter, size=corners.shape)
    return trimesh.Trimesh(corners, np.arange(len(corners)).reshape(-1, 3), process=False)


def rp_box(x, y, z, **kw):
    return rp.Box(length=x, width=z, height=y, **kw)


def test_closed_is_used_as_it_is() -> None:
    body = rp.MeshBody(mesh=box((3.0, 2.0, 1.0)), units="m")
    report = body.mesh_report
    assert report["class"] == "closed" and report["actions"] == [] and report["exact"]
    assert body.volume == pytest.approx(6.0, rel=1e-15)


def test_inside_out_is_flipped_and_exact() -> None:
    mesh = box((0.3, 0.2, 0.1))
    body = rp.MeshBody(mesh=joined(mesh, flip=(0,)), units="m")
    assert body.mesh_report["class"] == "inside-out" and body.mesh_report["exact"]
    assert any("flipped" in a for a in body.mesh_report["actions"])
    expected = rp_box(0.3, 0.2, 0.1)
    assert body.mass == pytest.approx(expected.mass, rel=1e-14)
    np.testing.assert_allclose(body.inertia, expected.inertia, atol=1e-14 * expected.inertia.max())


@pytest.mark.parametrize("relative_jitter", [1e-15, 1e-12, 2e-10])
def test_closed_up_to_rounding_is_welded(relative_jitter) -> None:
    """A triangle soup whose copies of a corner differ by up to 2e-10 of the size (under the
    default 1e-9): welded, and the integrals are those of the clean mesh to the jitter's
    order (trimesh's integrals of the clean sphere: an independent implementation)."""
    clean = trimesh.creation.icosphere(subdivisions=3, radius=0.05)
    size = float(np.linalg.norm(clean.extents))
    body = rp.MeshBody(mesh=soup(clean, relative_jitter * size / 4), units="m", density=1.0)
    report = body.mesh_report
    assert report["class"] == "welded" and report["exact"]
    assert report["welded_vertices"] > 0 and report["triangles"] == len(clean.faces)
    assert body.volume == pytest.approx(clean.volume, rel=100 * relative_jitter + 1e-14)
    tolerance = (100 * relative_jitter + 1e-14) * clean.moment_inertia.max()
    np.testing.assert_allclose(body.inertia, clean.moment_inertia, rtol=0, atol=tolerance)


def test_gaps_over_the_tolerance_are_refused_unless_weld_allows_them() -> None:
    clean = trimesh.creation.icosphere(subdivisions=2, radius=1.0)
    size = float(np.linalg.norm(clean.extents))
    rough = soup(clean, 1e-7 * size)
    with pytest.raises(rp.ParameterError, match="not a closed") as info:
        rp.MeshBody(mesh=rough, units="m")
    assert info.value.parameter == "mesh"
    body = rp.MeshBody(mesh=rough, units="m", weld=1e-5)
    assert body.mesh_report["class"] == "welded"
    assert body.volume == pytest.approx(clean.volume, rel=1e-5)
    with pytest.raises(rp.ParameterError, match="not a closed"):
        rp.MeshBody(mesh=soup(clean, 1e-12 * size), units="m", weld=0)
    with pytest.raises(rp.ParameterError, match="welding tolerance") as info:
        rp.MeshBody(mesh=clean, units="m", weld=0.5)
    assert info.value.parameter == "weld"


def test_overlapping_shells_are_unioned_never_summed(tmp_path) -> None:
    """Two 20 x 15 x 20 mm boxes 10 mm apart: 12000 mm^3 summed, 9000 mm^3 the solid (the
    30 x 15 x 20 mm box)."""
    path = tmp_path / "overlap.stl"
    joined(box((20, 15, 20)), box((20, 15, 20), (10, 0, 0))).export(path)
    body = rp.MeshBody(mesh=str(path), units="mm", material="aluminium")
    expected = rp_box(0.03, 0.015, 0.02, material="aluminium")
    assert body.volume == pytest.approx(9000e-9, rel=1e-12)
    assert body.mass == pytest.approx(expected.mass, rel=1e-12)
    np.testing.assert_allclose(body.inertia, expected.inertia, atol=1e-12 * expected.inertia.max())
    report = body.mesh_report
    assert report["class"] == "shells" and not report["exact"]
    assert "unioned" in report["summary"] and "12000" in report["summary"]


@pytest.mark.parametrize("inner_flipped", [False, True])
def test_nested_shells_are_cavities(inner_flipped) -> None:
    """A 20 mm cube with a centred 10 mm cubic cavity, the inner shell wound either way:
    the big cube's closed form minus the small one's (same centre)."""
    mesh = joined(box((20, 20, 20)), box((10, 10, 10)), flip=(1,) if inner_flipped else ())
    body = rp.MeshBody(mesh=mesh, units="mm", density=1000.0)
    big = rp_box(0.02, 0.02, 0.02, density=1000.0)
    small = rp_box(0.01, 0.01, 0.01, density=1000.0)
    assert body.mass == pytest.approx(big.mass - small.mass, rel=1e-13)
    np.testing.assert_allclose(body.inertia, big.inertia - small.inertia,
                               atol=1e-13 * big.inertia.max())  # fmt: skip
    report = body.mesh_report
    assert report["class"] == "shells" and report["exact"] and report["shells"] == 2
    assert "cavit" in report["summary"] or inner_flipped


def test_disjoint_shells_are_summed_exactly() -> None:
    body = rp.MeshBody(mesh=joined(box((1, 1, 1)), box((1, 1, 1), (3, 0, 0))), units="m")
    assert body.volume == pytest.approx(2.0, rel=1e-15)
    np.testing.assert_allclose(body.center_of_mass, [1.5, 0, 0], atol=1e-15)
    assert body.mesh_report["exact"] and "disjoint" in body.mesh_report["summary"]


def test_a_small_hole_is_capped_within_its_bound() -> None:
    sphere = trimesh.creation.icosphere(subdivisions=4, radius=1.0)
    holed = trimesh.Trimesh(sphere.vertices, sphere.faces[1:], process=False)
    body = rp.MeshBody(mesh=holed, units="m", density=1.0)
    report = body.mesh_report
    assert report["class"] == "holes" and report["holes_capped"] == 1 and not report["exact"]
    assert 0.0 < report["volume_bound"] < 1e-3
    # the capped triangle is the missing one (a flat hole): the closed sphere's volume
    assert abs(body.volume / sphere.volume - 1) <= report["volume_bound"]


def test_a_bore_is_never_filled() -> None:
    """A tube's surface without its end caps (two large holes): refused, naming them."""
    tube = trimesh.creation.cylinder(radius=0.1, height=1.0, sections=64)
    # keep the side only: triangles whose normals are radial
    side = np.abs(tube.face_normals[:, 2]) < 1e-9
    open_tube = trimesh.Trimesh(tube.vertices, tube.faces[side], process=False)
    with pytest.raises(rp.ParameterError, match="not filled") as info:
        rp.MeshBody(mesh=open_tube, units="m")
    assert "hull=True" in str(info.value)


def test_hull_on_request_states_the_difference() -> None:
    cube = box((1, 1, 1))
    open_cube = trimesh.Trimesh(cube.vertices, cube.faces[2:], process=False)  # a face missing
    with pytest.raises(rp.ParameterError, match="not filled"):
        rp.MeshBody(mesh=open_cube, units="m")
    body = rp.MeshBody(mesh=open_cube, units="m", hull=True)
    assert body.volume == pytest.approx(1.0, rel=1e-15)
    report = body.mesh_report
    assert report["class"] == "hull" and not report["exact"]
    # the open cube's signed volume about its centre: 5 of the 6 pyramids, 5/6
    assert report["hull_difference"] == pytest.approx(1 / 6, rel=1e-12)


def test_non_manifold_and_inconsistent_are_refused_with_the_reason() -> None:
    cube = box((1, 1, 1))
    twisted = trimesh.Trimesh(cube.vertices, np.vstack([cube.faces[:1, ::-1], cube.faces[1:]]),
                              process=False)  # fmt: skip
    with pytest.raises(rp.ParameterError, match="inconsistently wound"):
        rp.MeshBody(mesh=twisted, units="m")
    doubled = trimesh.Trimesh(cube.vertices, np.vstack([cube.faces, cube.faces[:1]]),
                              process=False)  # fmt: skip
    with pytest.raises(rp.ParameterError, match="non-manifold"):
        rp.MeshBody(mesh=doubled, units="m")


@settings(max_examples=25, deadline=None)
@given(
    angles=st.tuples(*[st.floats(-math.pi, math.pi)] * 3),
    offset=st.tuples(*[st.floats(-100, 100)] * 3),
    flip=st.booleans(),
    jitter=st.floats(0.0, 2e-10),
)
def test_a_moved_flipped_jittered_box_keeps_its_volume(angles, offset, flip, jitter) -> None:
    """Invariant: whatever the placement, the winding and sub-tolerance jitter, the volume
    is the box's (1 x 2 x 3) to the jitter's order."""
    from scipy.spatial.transform import Rotation

    mesh = box((1.0, 2.0, 3.0))
    vertices = Rotation.from_euler("xyz", angles).apply(mesh.vertices) + offset
    moved = trimesh.Trimesh(vertices, mesh.faces[:, ::-1] if flip else mesh.faces,
                            process=False)  # fmt: skip
    size = math.sqrt(14.0)
    body = rp.MeshBody(mesh=soup(moved, jitter * size / 4, seed=1), units="m")
    assert body.volume == pytest.approx(6.0, rel=1e-9)
    assert body.mesh_report["class"] in ("closed", "inside-out", "welded")


def test_command_line_reports_the_class_and_the_action(tmp_path, capsys) -> None:
    from rigidparts.commands import main

    path = tmp_path / "overlap.stl"
    joined(box((20, 15, 20)), box((20, 15, 20), (10, 0, 0))).export(path)
    assert main(["meshbody", str(path), "--units", "mm", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["volume"] == pytest.approx(9e-6, rel=1e-12)
    assert data["mesh_report"]["class"] == "shells" and "unioned" in data["mesh_report"][
        "summary"]  # fmt: skip
    assert main(["meshbody", str(path), "--units", "mm"]) == 0
    assert "unioned with manifold3d" in capsys.readouterr().out
    cube = box((10, 10, 10))
    open_path = tmp_path / "open.stl"
    trimesh.Trimesh(cube.vertices, cube.faces[2:], process=False).export(open_path)
    assert main(["meshbody", str(open_path), "--units", "mm"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: mesh='") and "open.stl" in err and "not filled" in err
    assert main(["meshbody", str(open_path), "--units", "mm", "--hull", "yes", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["mesh_report"]["class"] == "hull"
    assert data["volume"] == pytest.approx(1e-6, rel=1e-12)
    sphere = trimesh.creation.icosphere(subdivisions=2)
    rough = tmp_path / "rough.ply"
    soup(sphere, 1e-7).export(rough)
    assert main(["meshbody", str(rough), "--units", "m"]) == 2
    capsys.readouterr()
    assert main(["meshbody", str(rough), "--units", "m", "--weld", "1e-5", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["mesh_report"]["class"] == "welded"


def pybullet_meshes(limit: int = 40) -> list[str]:
    pybullet_data = pytest.importorskip("pybullet_data")
    from pathlib import Path

    root = Path(pybullet_data.getDataPath())
    found = sorted(
        p for p in [*root.rglob("*.stl"), *root.rglob("*.obj")]
        if p.stat().st_size < 400_000 and "random_urdfs" not in p.parts
    )  # fmt: skip
    return [str(p) for p in found[:: max(1, len(found) // limit)]][:limit]


def test_real_meshes_from_pybullet_data_are_classified_or_refused_with_a_reason() -> None:
    """Every mesh is either a body whose report names its class (and, for a closed one, whose
    volume is trimesh's) or one ParameterError line naming the file and the defect."""
    paths = pybullet_meshes()
    if not paths:
        pytest.skip("pybullet_data ships no meshes here")
    classes = set()
    for path in paths:
        try:
            body = rp.MeshBody(mesh=path, units="m")
        except rp.ParameterError as exc:
            assert exc.parameter == "mesh" and exc.value == path and "\n" not in str(exc)
            continue
        report = body.mesh_report
        classes.add(report["class"])
        assert report["class"] in ("closed", "inside-out", "welded", "shells", "holes")
        if report["class"] == "closed":
            loaded = trimesh.load(path, force="mesh")
            if loaded.is_watertight and loaded.is_winding_consistent and loaded.is_volume:
                assert body.volume == pytest.approx(abs(loaded.volume), rel=1e-9)
    assert classes  # at least one real mesh was taken


@pytest.mark.parametrize("offset", [0.0, 1e-3])
def test_a_t_junction_is_split_and_closed(offset) -> None:
    """The top triangle (a, b, c) = (4, 5, 6) is split at m = 8 into (4, 8, 6), (8, 5, 6): the
    surface closed, no vertex moved, the triangles those written by hand, the volume the
    closed form's and trimesh's of that surface."""
    from rigidparts.polyhedron import edge_defects, integrals
    from rigidparts.shapes._mesh_repair import split_t_junctions

    v, f = t_junction_cube(offset)
    assert edge_defects(f, len(v)) == (3, 0, 0)
    split_faces, count = split_t_junctions(v, f, tolerance=2e-3)
    assert count == 1 and edge_defects(split_faces, len(v)) == (0, 0, 0)

    by_hand = [t for t in f.tolist() if t != [4, 5, 6]] + [[4, 8, 6], [8, 5, 6]]
    assert sorted(map(rotated_triangle, split_faces)) == sorted(map(rotated_triangle, by_hand))
    # the cube and the pyramid over its front face with apex m (height offset): 1 + offset / 3
    volume = integrals(v, split_faces).volume
    assert volume == pytest.approx(1.0 + offset / 3.0, rel=1e-14)
    assert volume == pytest.approx(trimesh.Trimesh(v, np.array(by_hand)).volume, rel=1e-14)


def test_a_node_off_the_chord_by_more_than_the_tolerance_is_no_t_junction() -> None:
    from rigidparts.polyhedron import edge_defects
    from rigidparts.shapes._mesh_repair import split_t_junctions

    v, f = t_junction_cube(1e-2)
    split_faces, count = split_t_junctions(v, f, tolerance=1e-3)
    assert count == 0 and edge_defects(split_faces, len(v)) == (3, 0, 0)
    cube = box((1.0, 1.0, 1.0))  # closed: nothing to split
    same, count = split_t_junctions(np.asarray(cube.vertices), np.asarray(cube.faces), 0.1)
    assert count == 0 and np.array_equal(same, np.asarray(cube.faces))


@settings(max_examples=60, deadline=None)
@given(
    triangle=st.integers(0, 79),
    corner=st.integers(0, 2),
    along=st.lists(st.floats(0.05, 0.95), min_size=1, max_size=5, unique=True),
    off=st.floats(0.0, 0.9),
    turn=st.floats(0.0, 2.0 * math.pi),
)
def test_any_t_junction_on_a_closed_mesh_is_split_back(triangle, corner, along, off, turn):
    """An icosphere's edge a b discretised twice: one triangle (a, b, c) replaced by the fan
    through nodes m on the chord (moved off it by up to 0.9 of the tolerance), its neighbour
    (b, a, d) left whole: a T-junction. Split, the neighbour is the fan (b, mk, d), ...,
    (m1, a, d) written by hand: closed, no vertex moved, trimesh's volume of that surface."""
    from rigidparts.polyhedron import edge_defects, integrals
    from rigidparts.shapes._mesh_repair import split_t_junctions

    sphere = trimesh.creation.icosphere(subdivisions=1)
    v, f = np.asarray(sphere.vertices), np.asarray(sphere.faces)
    a, b, c = (int(f[triangle, (corner + i) % 3]) for i in range(3))
    (neighbour,) = [t for t in range(len(f)) if {a, b} <= set(f[t]) and t != triangle]
    d = int(next(x for x in f[neighbour] if x not in (a, b)))
    chord = v[b] - v[a]
    normal = np.cross(chord, np.eye(3)[np.argmin(np.abs(chord))])  # the axis least along it
    normal /= np.linalg.norm(normal)
    binormal = np.cross(chord, normal) / np.linalg.norm(chord)
    tolerance = 1e-3
    shift = off * tolerance * (math.cos(turn) * normal + math.sin(turn) * binormal)
    nodes = [v[a] + s * chord + shift for s in sorted(along)]
    m = list(range(len(v), len(v) + len(nodes)))
    v = np.vstack([v, nodes])
    chain = [a, *m, b]
    fine = [[chain[i], chain[i + 1], c] for i in range(len(chain) - 1)]
    keep = [t.tolist() for i, t in enumerate(f) if i != triangle]
    faces = np.array(keep + fine)
    assert edge_defects(faces, len(v))[0] == len(chain)  # the crack's open edges

    split_faces, count = split_t_junctions(v, faces, tolerance)
    back = chain[::-1]
    by_hand = (
        [t for t in keep if t != f[neighbour].tolist()]
        + fine
        + [[back[i], back[i + 1], d] for i in range(len(back) - 1)]
    )

    assert count == 1 and edge_defects(split_faces, len(v)) == (0, 0, 0)
    assert sorted(map(rotated_triangle, split_faces)) == sorted(map(rotated_triangle, by_hand))
    expected = trimesh.Trimesh(v, np.array(by_hand), process=False).volume
    assert integrals(v, split_faces).volume == pytest.approx(expected, rel=1e-13)


# -- refusals that say what would work (hull of flat points, the hull's difference, welds) ------


def test_coplanar_points_have_no_hull_either(tmp_path, capsys) -> None:
    """Four triangles in one plane (a folded square): refused, and with hull=True too, as one
    ParameterError naming the mesh (Qhull's own error is a page long)."""
    from rigidparts.commands import main

    flat = trimesh.Trimesh([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]],
                           [[0, 1, 2], [1, 3, 2], [0, 2, 1], [1, 2, 3]], process=False)  # fmt: skip
    with pytest.raises(rp.ParameterError, match="its points are coplanar") as info:
        rp.MeshBody(mesh=flat, units="mm", hull=True)
    assert info.value.parameter == "mesh" and "convex hull has no volume" in str(info.value)
    path = tmp_path / "flat.stl"
    flat.export(path)
    assert main(["meshbody", str(path), "--units", "mm", "--hull", "yes"]) == 2
    out, err = capsys.readouterr()
    (line,) = err.splitlines()
    # (a long path is shortened in the line: its name is kept)
    assert out == "" and line.startswith("error: mesh='") and "flat.stl'" in line
    assert "coplanar" in line


def open_prism(sections=64):
    """A cylinder's side without its end caps (radius 5, height 20): an open bore."""
    cylinder = trimesh.creation.cylinder(radius=5.0, height=20.0, sections=sections)
    side = np.abs(cylinder.face_normals[:, 2]) < 1e-9
    return cylinder, trimesh.Trimesh(cylinder.vertices, cylinder.faces[side], process=False)


def test_the_hull_difference_is_a_fraction_of_the_hull_and_says_so() -> None:
    """``hull_difference = (V_hull - |V_mesh|) / V_hull``. An open prism's side about its
    centre spans the prism less the two cap pyramids (each A h / 6): V_mesh = 2/3 V, so 1/3
    (the hull is 50 % more than the mesh: 1/3 of the hull); a box given twice: V_mesh = 2 V,
    -1. Volumes from trimesh (its convex hull, its closed meshes)."""
    closed, side = open_prism()
    body = rp.MeshBody(mesh=side, units="mm", hull=True)
    report = body.mesh_report
    v_hull = closed.convex_hull.volume
    expected = (v_hull - 2.0 / 3.0 * closed.volume) / v_hull
    assert expected == pytest.approx(1.0 / 3.0, rel=1e-12)
    assert report["hull_difference"] == pytest.approx(expected, rel=1e-12)
    assert "(hull - |mesh|) / hull = 33.3 %" in report["summary"]
    cube = box((1, 1, 1))
    twice = rp.MeshBody(mesh=joined(cube, cube), units="m", hull=True).mesh_report
    expected = (cube.convex_hull.volume - 2.0 * cube.volume) / cube.convex_hull.volume
    assert twice["hull_difference"] == pytest.approx(expected, rel=1e-12)
    assert "(hull - |mesh|) / hull = -100 %" in twice["summary"]


def float32_soup(tmp_path, jitter):
    """A sphere (radius 10 mm) as a binary STL of loose triangles, each corner moved by about
    ``jitter`` (absolute), then rounded to float32 by the format."""
    sphere = trimesh.creation.icosphere(subdivisions=4, radius=10.0)
    corners = np.asarray(sphere.vertices)[np.asarray(sphere.faces)].reshape(-1, 3)
    corners = corners + np.random.default_rng(0).normal(scale=jitter, size=corners.shape)
    path = tmp_path / f"soup_{jitter:g}.stl"
    trimesh.Trimesh(corners, np.arange(len(corners)).reshape(-1, 3), process=False).export(path)
    return sphere, str(path)


@pytest.mark.parametrize("jitter", [4e-7, 2e-4])
def test_a_slightly_open_soup_names_the_weld_that_closes_it(tmp_path, jitter) -> None:
    """Corners that differ by float32 rounding (4e-7 mm: about 1e-8 of the 35 mm size, under
    a unit in the last place) or by jitter (2e-4 mm: each triangle its own hole): refused,
    the message naming a weld that closes the surface, and that weld gives the sphere
    (trimesh's volume of the clean mesh). The holes' bound is stated against the volume the
    capped soup encloses (about zero), not as an absurd ratio: sum (2/3) pi r^3 over the
    triangles, r the farthest corner from a triangle's centroid."""
    import re

    sphere, path = float32_soup(tmp_path, jitter)
    with pytest.raises(rp.ParameterError, match="welding within") as info:
        rp.MeshBody(mesh=path, units="mm")
    text = str(info.value)
    value = float(re.search(r"--weld (\S+) /", text).group(1))
    assert value <= 1e-4
    body = rp.MeshBody(mesh=path, units="mm", weld=value, density=1.0)
    assert body.mesh_report["class"] == "welded"
    # the surface moved by about the jitter: 3 jitter / R of the volume (R = 10 mm)
    assert body.volume == pytest.approx(sphere.volume * 1e-9, rel=3 * jitter / 10.0 + 1e-7)
    # 2e-4 mm: every triangle loose, each its own hole; 4e-7: rounding, no hole to bound
    assert ("could reach" in text) == (jitter > 1e-5)
    if jitter > 1e-5:  # the bound against the capped volume, not as a ratio
        assert "of the volume" not in text
        stated = float(re.search(r"could reach (\S+) file units\^3, more than", text).group(1))
        loaded = trimesh.load(path, process=False)
        corners = np.asarray(loaded.vertices)[np.asarray(loaded.faces)]
        r = np.linalg.norm(corners - corners.mean(axis=1, keepdims=True), axis=2).max(axis=1)
        assert stated == pytest.approx(float(np.sum(2.0 / 3.0 * np.pi * r**3)), rel=0.05)


def test_a_float32_stl_suggests_its_weld_on_the_command_line(tmp_path, capsys) -> None:
    from rigidparts.commands import main

    _, path = float32_soup(tmp_path, 2e-8)
    assert main(["meshbody", path, "--units", "mm"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert "--weld 1e-07 /" in line
    assert main(["meshbody", path, "--units", "mm", "--weld", "1e-07", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["mesh_report"]["class"] == "welded"


def cubes_with_a_tiny_hole(gap):
    """Two unit cubes ``gap`` apart along x, the first with a hole of about 1e-3 by its corner
    ``i`` in one face ``(i, j, k)``: that face as (i, j, p), (p, j, k), (p, k, q), (q, k, i)
    around the missing (i, p, q), p and q inside it near i. Accepted, the hole capped (flat)."""
    a = box((1, 1, 1))
    v, f = np.asarray(a.vertices), np.asarray(a.faces)
    face = np.flatnonzero(np.all(np.isclose(v[f][:, :, 0], -0.5), axis=1))[0]
    i, j, k = f[face]
    p = v[i] + 1e-3 * (0.6 * (v[j] - v[i]) + 0.2 * (v[k] - v[i]))
    q = v[i] + 1e-3 * (0.2 * (v[j] - v[i]) + 0.6 * (v[k] - v[i]))
    v = np.vstack([v, p, q])
    p, q = len(v) - 2, len(v) - 1
    fan = [[i, j, p], [p, j, k], [p, k, q], [q, k, i]]
    holed = trimesh.Trimesh(v, np.vstack([np.delete(f, face, axis=0), fan]), process=False)
    return joined(holed, box((1, 1, 1), (1 + gap, 0, 0)))


def test_a_weld_too_large_is_named_in_the_refusal() -> None:
    """Welding within 1e-3 of the size (2.4e-3) closes the tiny hole but also joins the two
    cubes across their 1e-3 gap (non-manifold edges): the refusal says it is after welding,
    the distance, and that unwelded the mesh is accepted (two unit cubes, the hole flat)."""
    mesh = cubes_with_a_tiny_hole(1e-3)
    body = rp.MeshBody(mesh=mesh, units="m")
    assert body.mesh_report["holes_capped"] == 1
    assert body.volume == pytest.approx(2.0, rel=1e-12)
    size = float(np.linalg.norm(mesh.vertices.max(axis=0) - mesh.vertices.min(axis=0)))
    with pytest.raises(rp.ParameterError, match="non-manifold") as info:
        rp.MeshBody(mesh=mesh, units="m", weld=1e-3)
    text = str(info.value)
    assert f"after welding 6 vertices lying within {1e-3 * size:.3g} file units (0.001 of" in text
    assert "unwelded it is accepted: give a smaller weld" in text
    assert rp.MeshBody(mesh=mesh, units="m", weld=0).volume == pytest.approx(2.0, rel=1e-12)


def test_the_default_weld_never_refuses_a_mesh_accepted_as_given(monkeypatch) -> None:
    """The weld nobody asked for (the default) that would break a mesh accepted as given: the
    mesh as given, the report saying the weld was not applied. The same two cubes as above
    (a weld of 1e-3 joins them), the default taken as 1e-3 for the test: accepted, two unit
    cubes; a weld the user gives is theirs: refused, as above."""
    from rigidparts.shapes import _mesh_repair as R

    mesh = cubes_with_a_tiny_hole(1e-3)
    v, f = np.asarray(mesh.vertices), np.asarray(mesh.faces)
    monkeypatch.setattr(R, "DEFAULT_WELD", 1e-3)
    _, _, found, report = R.classify(v, f, weld_tolerance=1e-3)
    assert found.volume == pytest.approx(2.0, rel=1e-12) and report.holes == 1
    assert report.actions[0].startswith("not welded: the default weld (0.001 of the size)")
    assert "non-manifold" in report.actions[0]
    with pytest.raises(R.MeshDefect, match="unwelded it is accepted"):
        R.classify(v, f, weld_tolerance=2e-3)
