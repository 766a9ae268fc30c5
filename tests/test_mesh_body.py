"""``rp.MeshBody``: files in several formats and units, the exact polyhedron against rp.Box
(a box with a box-shaped hole), trimesh's and Drake's mesh inertia, convergence to rp.Cone,
named frames, and every defect a clear ParameterError naming the file."""

from __future__ import annotations

import numpy as np
import pytest

import rigidparts as rp

trimesh = pytest.importorskip("trimesh")

STEEL = 7860.0


def hollow_box_mesh(length=0.3, width=0.1, height=0.2, inner_width=0.04, inner_height=0.06):
    """The rp.Box with a centred hole as a mesh in frame_a (the Box's own builder)."""
    box = rp.Box(length=length, width=width, height=height, inner_width=inner_width,
                 inner_height=inner_height)  # fmt: skip
    return box, box.mesh()


def assert_same_properties(found, expected, rtol=1e-12) -> None:
    size = float(np.sqrt(np.trace(expected.inertia) / expected.mass))  # a length of the body
    assert found.mass == pytest.approx(expected.mass, rel=rtol)
    np.testing.assert_allclose(found.center_of_mass, expected.center_of_mass, rtol=0,
                               atol=rtol * size)  # fmt: skip
    scale = np.max(np.abs(expected.inertia))
    np.testing.assert_allclose(found.inertia, expected.inertia, rtol=0, atol=rtol * scale)


FORMATS = ["stl", "stl_ascii", "obj", "ply", "off", "glb"]
UNITS = {"m": 1.0, "mm": 1e-3, "in": 0.0254}


def write(mesh, folder, kind: str) -> str:
    suffix = "stl" if kind == "stl_ascii" else kind
    path = folder / f"part_{kind}.{suffix}"
    if kind == "stl_ascii":
        path.write_text(trimesh.exchange.stl.export_stl_ascii(mesh))
    else:
        mesh.export(path)
    return str(path)


@pytest.mark.parametrize("kind", FORMATS)
@pytest.mark.parametrize("unit", list(UNITS))
def test_formats_and_units_give_the_box_with_a_hole(tmp_path, kind, unit) -> None:
    """A hollow Box drawn in ``unit`` (dyadic dimensions, so that STL's float32 and the text
    formats keep every coordinate exactly), written in each format, equals rp.Box's closed
    forms for the same dimensions with units."""
    if kind == "glb" and unit != "m":
        pytest.skip("glTF is in metres")
    dims = {"length": 0.5, "width": 0.125, "height": 0.25, "inner_width": 0.0625,
            "inner_height": 0.09375}  # fmt: skip
    drawing = rp.Box(**dims).mesh()  # the numbers of the file
    box = rp.Box(**{k: f"{v!r} {unit}" for k, v in dims.items()})
    path = write(drawing, tmp_path, kind)
    body = rp.MeshBody(mesh=path, units=None if kind == "glb" else unit, material="steel")
    assert body.volume == pytest.approx(box.volume, rel=1e-12)
    assert_same_properties(body, box)
    assert body.frames["frame_com"].position.tolist() == body.center_of_mass.tolist()


@pytest.mark.parametrize("offset", [(0.0, 0.0, 0.0), (1000.25, -999.75, 1000.125)])
def test_placement_moves_only_the_centre_of_mass(offset) -> None:
    box, mesh = hollow_box_mesh()
    moved = mesh.copy()
    moved.vertices = np.asarray(mesh.vertices) + offset  # exact: dyadic offset, small body
    body = rp.MeshBody(mesh=moved, units="m")
    assert body.mass == pytest.approx(box.mass, rel=1e-12)
    np.testing.assert_allclose(body.center_of_mass, box.center_of_mass + offset, rtol=0,
                               atol=1e-12 * 0.3)  # fmt: skip
    np.testing.assert_allclose(body.inertia, box.inertia, rtol=0, atol=1e-12 * box.inertia.max())


def test_agrees_with_trimesh_on_an_irregular_mesh() -> None:
    sphere = trimesh.creation.icosphere(subdivisions=3)
    rng = np.random.default_rng(7)
    sphere.vertices = sphere.vertices * rng.uniform(0.7, 1.3, size=(len(sphere.vertices), 1))
    sphere.vertices = sphere.vertices @ np.diag([2.0, 1.0, 0.5]) + [0.3, -0.2, 0.1]
    body = rp.MeshBody(mesh=sphere, units="m", density=1.0)
    props = sphere.mass_properties  # density 1
    assert body.volume == pytest.approx(props["volume"], rel=1e-12)
    np.testing.assert_allclose(body.center_of_mass, props["center_mass"], rtol=0, atol=1e-12)
    scale = np.max(np.abs(body.inertia))
    np.testing.assert_allclose(body.inertia, props["inertia"], rtol=0, atol=1e-12 * scale)
    assert abs(body.inertia[0, 1]) > 1e-3 * scale  # a full tensor, off the axes


def test_agrees_with_drake(tmp_path) -> None:
    pytest.importorskip("pydrake")
    from pydrake.geometry import Mesh
    from pydrake.multibody.tree import CalcSpatialInertia

    _, mesh = hollow_box_mesh()
    shifted = mesh.copy()
    shifted.vertices = np.asarray(mesh.vertices) * 1000.0 + [10.0, 20.0, -5.0]  # mm, moved
    path = tmp_path / "part.obj"
    shifted.export(path)
    body = rp.MeshBody(mesh=str(path), units="mm", density=2700.0)
    spatial = CalcSpatialInertia(Mesh(str(path), 1e-3), 2700.0)
    assert spatial.get_mass() == pytest.approx(body.mass, rel=1e-12)
    np.testing.assert_allclose(spatial.get_com(), body.center_of_mass, rtol=0, atol=1e-13)
    about_com = spatial.Shift(spatial.get_com()).CalcRotationalInertia().CopyToFullMatrix3()
    scale = np.max(np.abs(body.inertia))
    np.testing.assert_allclose(about_com, body.inertia, rtol=0, atol=1e-11 * scale)


def test_a_fine_cone_mesh_converges_to_the_cone_at_second_order() -> None:
    cone = rp.Cone(length=0.5, radius_a=0.2, radius_b=0.05, inner_radius_a=0.1,
                   inner_radius_b=0.02, axis=(0, 0, 1))  # fmt: skip
    errors = []
    for sections in (64, 128, 256, 512):
        body = rp.MeshBody(mesh=cone.mesh(sections=sections), units="m", material="steel")
        errors.append(
            max(
                abs(body.mass - cone.mass) / cone.mass,
                np.max(np.abs(body.inertia - cone.inertia)) / np.max(cone.inertia),
            )
        )
        # the inscribed polygon: always a little light
        assert body.mass < cone.mass
    ratios = [errors[i] / errors[i + 1] for i in range(3)]
    assert all(3.9 < r < 4.1 for r in ratios), ratios
    assert errors[-1] < 1e-4


def test_named_frames_and_results() -> None:
    _, mesh = hollow_box_mesh()
    tool = [[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    body = rp.MeshBody(
        mesh=mesh,
        units="m",
        material="aluminium",
        frames={"mount": ("10 mm", 0, 0), "tool": {"position": (0, 0, "5 cm"), "rotation": tool}},
    )
    assert list(body.frames) == ["frame_a", "frame_com", "mount", "tool"]
    assert body.frames["mount"].position.tolist() == [0.01, 0.0, 0.0]
    assert body.frames["tool"].position.tolist() == [0.0, 0.0, 0.05]
    assert body.frames["tool"].rotation.tolist() == tool
    assert body.material == "aluminium" and body.shape == "mesh"
    assert body.inertia is body.mass_properties.inertia
    given = rp.MeshBody(mesh=mesh, units="m", mass="2 kg")
    assert given.mass == 2.0 and given.density == 2.0 / given.volume
    params = body.parameters()
    assert params["frames"]["tool"]["rotation"] == tool
    surface = body.mesh()
    assert surface.is_watertight and surface.volume == pytest.approx(body.volume, rel=1e-12)


@pytest.mark.parametrize(
    ("frames", "match"),
    [
        ([1, 2, 3], "must be a mapping"),
        ({"frame_x": (0, 0, 0)}, "not starting with 'frame_'"),
        ({"a": (0, 0)}, "three lengths"),
        ({"a": ("1 kg", 0, 0)}, "length"),
        ({"a": {"position": (0, 0, 0), "rotation": [[1, 0, 0], [0, 1, 0], [0, 0, -1]]}},
         "determinant"),
        ({"a": {"rotation": np.eye(3)}}, "'position'"),
    ],
)  # fmt: skip
def test_bad_frames_are_named(frames, match) -> None:
    _, mesh = hollow_box_mesh()
    with pytest.raises(rp.ParameterError, match=match):
        rp.MeshBody(mesh=mesh, units="m", frames=frames)


def cube(tmp_path):
    return trimesh.creation.box(extents=(1.0, 2.0, 3.0))


DEFECTS = {
    "open": (lambda m: trimesh.Trimesh(m.vertices, m.faces[1:], process=False), "not watertight"),
    "inconsistent": (
        lambda m: trimesh.Trimesh(m.vertices, np.vstack([m.faces[:1, ::-1], m.faces[1:]]),
                                  process=False),
        "inconsistently wound",
    ),
    "degenerate": (lambda m: trimesh.Trimesh(m.vertices * [1, 1, 0], m.faces, process=False),
                   "encloses no volume|not watertight"),
}  # fmt: skip


@pytest.mark.parametrize("defect", list(DEFECTS))
def test_defective_files_are_clear_errors(tmp_path, defect) -> None:
    make, match = DEFECTS[defect]
    path = tmp_path / f"{defect}.ply"
    make(cube(tmp_path)).export(path)
    with pytest.raises(rp.ParameterError, match=match) as info:
        rp.MeshBody(mesh=str(path), units="mm")
    assert info.value.parameter == "mesh" and info.value.value == str(path)


def test_unreadable_missing_and_unitless_files(tmp_path) -> None:
    corrupt = tmp_path / "corrupt.stl"
    corrupt.write_bytes(b"\x00\x01 not an stl at all" * 3)
    with pytest.raises(rp.ParameterError, match=r"holds no triangles|cannot be read") as info:
        rp.MeshBody(mesh=str(corrupt), units="mm")
    assert info.value.parameter == "mesh" and info.value.value == str(corrupt)
    empty = tmp_path / "empty.obj"
    empty.write_text("")
    with pytest.raises(rp.ParameterError, match=r"holds no triangles|cannot be read") as info:
        rp.MeshBody(mesh=str(empty), units="mm")
    assert info.value.value == str(empty)
    with pytest.raises(rp.ParameterError, match="No such file"):
        rp.MeshBody(mesh=str(tmp_path / "missing.stl"), units="mm")
    with pytest.raises(rp.ParameterError, match=r"must be a file ending in \.stl"):
        rp.MeshBody(mesh=str(tmp_path / "part.step"), units="mm")
    good = tmp_path / "good.stl"
    cube(tmp_path).export(good)
    with pytest.raises(rp.ParameterError, match="STL carries no length unit") as info:
        rp.MeshBody(mesh=str(good))
    assert info.value.parameter == "units"
    with pytest.raises(rp.ParameterError, match="must be a length unit") as info:
        rp.MeshBody(mesh=str(good), units="kg")
    with pytest.raises(rp.ParameterError, match="no default") as info:
        rp.MeshBody()
    assert info.value.parameter == "mesh"
    nan = cube(tmp_path)
    nan.vertices[0, 0] = np.nan
    with pytest.raises(rp.ParameterError, match="non-finite"):
        rp.MeshBody(mesh=nan, units="m")
    with pytest.raises(rp.ParameterError, match=r"carry no unit|carries no unit"):
        rp.MeshBody(mesh=cube(tmp_path))


def test_a_truncated_binary_stl_is_named_so(tmp_path) -> None:
    """A binary STL is an 80-byte header, the triangle count (uint32 at byte 80), then 50
    bytes a triangle: the cube's 12 triangles cut to 11 (and to 11 and a part) are named
    truncated; a header that starts with ``solid`` is still binary, and an ASCII STL (which
    starts with ``solid`` too) is no truncated binary one."""
    import struct

    whole = cube(tmp_path).export(file_type="stl")
    assert len(whole) == 84 + 50 * 12 and struct.unpack("<I", whole[80:84]) == (12,)
    for cut in (50, 20):
        path = tmp_path / f"cut{cut}.stl"
        path.write_bytes(whole[:-cut])
        with pytest.raises(rp.ParameterError) as info:
            rp.MeshBody(mesh=str(path), units="mm")
        assert info.value.parameter == "mesh" and info.value.value == str(path)
        assert info.value.rule == "is truncated: its header says 12 triangles, the file holds 11"
    solid_header = b"solid made by a tool that writes binary".ljust(80) + whole[80:]
    (tmp_path / "binary.stl").write_bytes(solid_header)
    assert rp.MeshBody(mesh=str(tmp_path / "binary.stl"), units="m").volume == pytest.approx(6.0)
    (tmp_path / "binary_cut.stl").write_bytes(solid_header[:-50])
    with pytest.raises(rp.ParameterError, match="is truncated: its header says 12 triangles"):
        rp.MeshBody(mesh=str(tmp_path / "binary_cut.stl"), units="mm")
    ascii_stl = tmp_path / "ascii.stl"
    ascii_stl.write_bytes(cube(tmp_path).export(file_type="stl_ascii").encode())
    assert rp.MeshBody(mesh=str(ascii_stl), units="m").volume == pytest.approx(6.0)


def test_a_file_is_read_once(tmp_path, monkeypatch) -> None:
    from rigidparts.shapes import mesh_body

    path = tmp_path / "part.stl"
    cube(tmp_path).export(path)
    calls = []
    original = mesh_body._read_file
    monkeypatch.setattr(mesh_body, "_read_file", lambda *a: calls.append(1) or original(*a))
    first = rp.MeshBody(mesh=str(path), units="mm", mass=1.0)  # general form twice
    second = rp.MeshBody(mesh=str(path), units="mm")
    first.mesh()
    assert len(calls) == 1 and second.volume == first.volume


def test_the_bracket_model_loads_and_exports(tmp_path) -> None:
    """examples/bracket.toml: ``file =`` (the ``mesh`` parameter's alias) relative to the model
    file; the exact values are the sum of the bracket's boxes (scripts/make_bracket.py)."""
    import importlib.util
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    spec = importlib.util.spec_from_file_location("make_bracket", root / "scripts/make_bracket.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    model = rp.load_model(root / "examples" / "bracket.toml")
    body = model.bodies["bracket"]
    exact = script.box_sum("aluminium")
    assert_same_properties(body, exact, rtol=1e-14)
    assert body.frames["mount"].position == pytest.approx([0.0025, 0.02, 0.045], abs=1e-18)
    out = tmp_path / "bracket.xml"
    rp.export_model(model, out)
    mujoco = pytest.importorskip("mujoco")
    loaded = mujoco.MjModel.from_xml_path(str(out))
    assert loaded.body_mass[1] == pytest.approx(body.mass, rel=1e-12)


def test_to_dict_is_json_ready_for_a_mesh_object_or_a_path(tmp_path) -> None:
    """A Trimesh is written as a placeholder naming its triangles, a Path as its text; the
    body still rebuilds from ``parameters()`` (which keeps the object)."""
    import json
    from pathlib import Path

    trimesh = pytest.importorskip("trimesh")
    from rigidparts.report import report

    solid = trimesh.creation.box(extents=(1.0, 2.0, 3.0))
    body = rp.MeshBody(mesh=solid, units="m")
    data = json.loads(json.dumps(body.to_dict()))
    assert data["parameters"]["mesh"] == "<trimesh.Trimesh: 12 triangles>"
    assert json.loads(json.dumps(report(body, "mm,g")))["parameters"]["units"] == "m"
    assert body.parameters()["mesh"] is solid
    path = tmp_path / "box.stl"
    solid.export(path)
    by_path = rp.MeshBody(mesh=Path(path), units="m")
    assert json.loads(json.dumps(by_path.to_dict()))["parameters"]["mesh"] == str(path)
    assert json.loads(json.dumps(report(by_path)))["parameters"]["mesh"] == str(path)


@pytest.mark.parametrize(("keyword", "value"), [("density", 1e-310), ("density", 1e308),
                                                ("mass", 1e-310)])  # fmt: skip
def test_unrepresentable_results_name_the_mesh(tmp_path, keyword, value) -> None:
    # A mesh body has no numeric dimension to blame: the file is named, with the rule.
    path = tmp_path / "cube.stl"
    cube(tmp_path).export(path)
    with pytest.raises(rp.ParameterError, match="far too large or small") as info:
        rp.MeshBody(mesh=str(path), units="m", **{keyword: value})
    assert info.value.parameter == "mesh" and info.value.value == str(path)


def test_units_in_capitals_and_a_gltf_override(tmp_path) -> None:
    """``units='MM'`` as files and users write it is millimetres (pint's ``Mm``, a megametre,
    stays one); a unit given for a glTF file, which is in metres by its specification, is an
    override: read so, and said."""
    import warnings

    mesh = cube(tmp_path)  # 1 x 2 x 3: 6 in the file's unit
    stl = tmp_path / "cube.stl"
    mesh.export(stl)
    assert rp.MeshBody(mesh=str(stl), units="MM").volume == pytest.approx(6e-9, rel=1e-15)
    assert rp.MeshBody(mesh=str(stl), units="Mm").volume == pytest.approx(6e18, rel=1e-15)
    glb = tmp_path / "cube.glb"
    mesh.export(glb)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # metres, as the file states: nothing said
        assert rp.MeshBody(mesh=str(glb), units="m").volume == pytest.approx(6.0, rel=1e-15)
    with pytest.warns(UserWarning, match=r"units='mm' overrides the unit glTF \(GLB\) states"):
        assert rp.MeshBody(mesh=str(glb), units="mm").volume == pytest.approx(6e-9, rel=1e-15)
