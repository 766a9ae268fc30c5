"""The Linkage: the mass model of the solid Box, drawn as a link.

1. Mass model: bit for bit the solid ``rp.Box`` with the same arguments (mass, volume,
   density, centre of mass, inertia, principal data, frames, directions), on named cases and
   random bodies; the kernel calls the Box's closed form; direct sympy integration of the
   cuboid; 50-digit references.
2. The drawing: a watertight, outward link whose bounding box, pin holes and volume are the
   documented ones (plane geometry written out here), in C and placed by axis / rotate90 /
   height_direction; the holes merge into one slot when they would overlap; thin plates, tiny
   and huge lengths; and it is not the mass model.
3. Rules: bad input of every kind, valid edge cases, ``mass=``.
"""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest
import sympy as sp
import trimesh
from hypothesis import given
from hypothesis import strategies as st

import rigidparts as rp
from reference import QUANTITIES, Exact, box_reference, relative_error, symbolic_equal
from rigidparts.inertia import invalidity_report
from rigidparts.shapes import SHAPES
from rigidparts.shapes import box as box_kernel
from rigidparts.shapes import linkage as linkage_kernel

# Largest relative error against the 50-digit references (the Box's: observed <= 3.4e-16).
PRECISION = 5e-16

L, W, H, RHO = sp.symbols("L W H rho", positive=True)


# -- 1. the mass model is the solid Box -------------------------------------------------------

SAME_AS_BOX = {
    "defaults": {},
    "plate": {"length": 0.3, "width": 1e-3, "height": 0.05},
    "units": {"length": "250 mm", "width": "1 cm", "height": "0.04 m"},
    "tilted": {"axis": (1, 2, -3), "extra_frames": [0.1, "-5 cm", 2.0]},
    "rotate90": {"axis": (0, 1, 0), "rotate90": True, "density": 2700.0},
    "height_direction": {"axis": (0, 1, 1), "height_direction": (1, 0, 0), "material": "brass"},
    "by_mass": {"length": 0.5, "width": 0.02, "height": 0.03, "mass": "1.5 kg"},
    "tiny_tilt": {"axis": (1.0, 1e-9, 0.0), "rotate90": True},
    "thin_rod": {"length": 5.0, "width": 1e-9, "height": 2e-9, "axis": (0, 0, -1)},
}


def assert_same_as_box(kwargs: dict) -> None:
    link = rp.Linkage(**kwargs)
    box = rp.Box(**kwargs)
    for name in ("mass", "volume", "density", "material"):
        assert getattr(link, name) == getattr(box, name), name
    for name in (
        "center_of_mass",
        "inertia",
        "principal_moments",
        "principal_axes",
        "axis",
        "rotation_from_canonical",
        "height_direction",
        "width_direction",
    ):
        assert getattr(link, name).tobytes() == getattr(box, name).tobytes(), name
    assert link.rotate90 == box.rotate90
    assert list(link.frames) == list(box.frames)
    for name, frame in link.frames.items():
        assert frame.position.tobytes() == box.frames[name].position.tobytes(), name
        assert frame.rotation.tobytes() == box.frames[name].rotation.tobytes(), name
    expected = box.to_dict()
    got = link.to_dict()
    assert got["shape"] == "linkage"
    for key in ("mass", "volume", "density", "material", "center_of_mass", "inertia", "frames"):
        assert got[key] == expected[key], key
    box_parameters = dict(expected["parameters"], shape="linkage")
    del box_parameters["inner_width"], box_parameters["inner_height"]
    assert got["parameters"] == box_parameters


@pytest.mark.parametrize("case", list(SAME_AS_BOX))
def test_mass_properties_and_frames_bit_identical_to_the_solid_box(case: str) -> None:
    assert_same_as_box(SAME_AS_BOX[case])


positive = st.floats(1e-4, 1e4)
axes = st.tuples(*(st.floats(-1.0, 1.0) for _ in range(3))).filter(
    lambda v: max(abs(x) for x in v) > 1e-3
)


@given(
    length=positive,
    width=positive,
    height=positive,
    density=st.floats(1.0, 1e5),
    axis=axes,
    rotate90=st.booleans(),
)
def test_random_linkages_are_the_solid_box(length, width, height, density, axis, rotate90) -> None:
    assert_same_as_box(
        {
            "length": length,
            "width": width,
            "height": height,
            "density": density,
            "axis": axis,
            "rotate90": rotate90,
        }
    )


def test_kernel_calls_the_box_closed_form() -> None:
    """The Box's closed form is called, not restated; same bits for the same floats."""
    source = inspect.getsource(linkage_kernel.closed_form)
    assert "_box_closed_form(length, width, height, 0.0, 0.0, density)" in source
    assert linkage_kernel._box_closed_form is box_kernel.closed_form
    rng = np.random.default_rng(9)
    for _ in range(500):
        length, width, height = (float(x) for x in rng.lognormal(0.0, 3.0, size=3))
        density = float(rng.uniform(1.0, 2e4))
        assert linkage_kernel.closed_form(length, width, height, density) == (
            box_kernel.closed_form(length, width, height, 0.0, 0.0, density)
        )


def test_closed_form_equals_direct_integration_of_the_cuboid() -> None:
    """The code run on exact symbolic numbers equals rho integrated over [0, L] x
    [-H/2, H/2] x [-W/2, W/2] (moments about the centre of mass)."""
    x, y, z = sp.symbols("x y z", real=True)

    def integral(f: sp.Expr) -> sp.Expr:
        return sp.integrate(RHO * f, (x, 0, L), (y, -H / 2, H / 2), (z, -W / 2, W / 2))

    mass = integral(sp.Integer(1))
    com_x = integral(x) / mass
    dx = x - com_x
    direct = {
        "volume": mass / RHO,
        "mass": mass,
        "com_x": com_x,
        "i_xx": integral(y**2 + z**2),
        "i_yy": integral(dx**2 + z**2),
        "i_zz": integral(dx**2 + y**2),
    }
    result = linkage_kernel.closed_form(Exact(L), Exact(W), Exact(H), Exact(RHO))
    for key, value in zip(QUANTITIES, result, strict=True):
        assert symbolic_equal(value.expr, direct[key]), key
    for f in (x * y, x * z, y * z):
        assert sp.simplify(integral(f.subs(x, x - com_x))) == 0


@pytest.mark.parametrize(
    "dims",
    [
        (1.0, 0.1, 0.2),
        (0.37, 0.011, 0.023),
        (1e-3, 2.0, 3.0),
        (5.0, 1e-3, 2e-3),
        (1.0, 1e-12, 0.2),
        (1e-12, 1.0, 1.0),
    ],
)
def test_precision_against_50_digit_reference(dims: tuple[float, float, float]) -> None:
    for scale in (1e-3, 1.0, 1e3):
        for density in (1.0, 7860.0, 1e8):
            length, width, height = (scale * d for d in dims)
            link = rp.Linkage(length=length, width=width, height=height, density=density)
            ref = box_reference(length, width, height, 0.0, 0.0, density)
            got = {
                "volume": link.volume,
                "mass": link.mass,
                "com_x": link.center_of_mass[0],
                "i_xx": link.inertia[0, 0],
                "i_yy": link.inertia[1, 1],
                "i_zz": link.inertia[2, 2],
            }
            for key in QUANTITIES:
                assert relative_error(got[key], ref[key]) <= PRECISION, (key, scale, density)


def test_textbook_cuboid_and_invariants() -> None:
    length, width, height, rho = 0.7, 0.11, 0.3, 2700.0
    link = rp.Linkage(length=length, width=width, height=height, density=rho)
    mass = rho * length * width * height
    assert link.mass == pytest.approx(mass, rel=1e-15)
    np.testing.assert_array_equal(link.center_of_mass, [length / 2, 0.0, 0.0])
    np.testing.assert_allclose(
        np.diag(link.inertia),
        [
            mass * (height**2 + width**2) / 12,
            mass * (width**2 + length**2) / 12,
            mass * (height**2 + length**2) / 12,
        ],
        rtol=1e-15,
    )
    tilted = rp.Linkage(length=length, width=width, height=height, axis=(1, -2, 0.5))
    np.testing.assert_array_equal(tilted.inertia, tilted.inertia.T)
    assert invalidity_report(tilted.principal_moments, tolerance=0.0) is None
    assert np.all(np.linalg.eigvalsh(tilted.inertia) > 0.0)


# -- 2. the drawing -----------------------------------------------------------------------------


def end_segments(sections: int) -> int:
    """Segments of each rounded end (documented in shapes/linkage.py: ``sections`` rounded up
    to a multiple of 4 per full turn, so half as many per semicircle)."""
    return 2 * max(1, math.ceil(sections / 4))


def hole_sides(sections: int) -> int:
    return 2 * end_segments(sections)


def polygon_area(sides: int, radius: float) -> float:
    """The regular polygon of ``sides`` sides inscribed in a circle (plane geometry)."""
    return 0.5 * sides * radius * radius * math.sin(2.0 * math.pi / sides)


def stadium_area(length: float, radius: float, sections: int) -> float:
    """A rectangle ``length x 2 radius`` and two inscribed half-polygons of ``k`` segments
    (together the regular ``2k``-gon)."""
    return 2.0 * radius * length + polygon_area(2 * end_segments(sections), radius)


def link_area(length: float, height: float, sections: int) -> float:
    """The outline's area: the stadium of radius H/2 less two holes of radius H/4, or less one
    slot (the stadium of radius H/4) when the holes would meet."""
    outer = stadium_area(length, height / 2, sections)
    if length < height / 2 + linkage_kernel.MIN_RELATIVE_GAP * height:
        return outer - stadium_area(length, height / 4, sections)
    return outer - 2.0 * polygon_area(hole_sides(sections), height / 4)


def assert_closed_volume(mesh: trimesh.Trimesh) -> None:
    assert mesh.is_watertight
    assert mesh.is_winding_consistent
    assert mesh.is_volume
    assert mesh.volume > 0.0
    assert mesh.body_count == 1


def canonical(length: float, width: float, height: float, sections: int = 64):
    return SHAPES["linkage"].mesh({"length": length, "width": width, "height": height}, sections)


MESH_CASES = {
    "defaults": (1.0, 0.1, 0.2),
    "square": (0.3, 0.3, 0.3),
    "long": (20.0, 0.05, 0.5),
    "holes_touch": (0.1, 0.1, 0.2),
    "holes_overlap": (0.05, 0.1, 0.2),
    "holes_almost_touch": (0.1 * (1 + 1e-9), 0.1, 0.2),
    "short": (1e-12, 0.1, 0.2),
    "thin_plate": (1.0, 1e-12, 0.2),
    "micro": (3e-7, 1e-8, 4e-8),
    "huge": (4e4, 300.0, 700.0),
    "very_long": (1e6, 1.0, 1.0),
}


@pytest.mark.parametrize("case", list(MESH_CASES))
@pytest.mark.parametrize("sections", [3, 4, 5, 16, 64])
def test_link_mesh_is_closed_with_the_documented_area(case: str, sections: int) -> None:
    length, width, height = MESH_CASES[case]
    mesh = canonical(length, width, height, sections)
    assert_closed_volume(mesh)
    expected = width * link_area(length, height, sections)
    assert mesh.volume == pytest.approx(expected, rel=1e-11)


@pytest.mark.parametrize("case", list(MESH_CASES))
def test_bounding_box_reaches_half_the_height_beyond_both_frames(case: str) -> None:
    """x from -H/2 (beyond frame_a) to L + H/2 (beyond frame_b), y = +-H/2, z = +-W/2:
    exactly (the ends have vertices on the axis and at +-H/2; the scaling is by powers of 2)."""
    length, width, height = MESH_CASES[case]
    for sections in (3, 64):
        mesh = canonical(length, width, height, sections)
        np.testing.assert_array_equal(
            mesh.bounds,
            [[-height / 2, -height / 2, -width / 2], [length + height / 2, height / 2, width / 2]],
        )


def test_pin_holes_at_frame_a_and_frame_b() -> None:
    length, width, height, n = 1.0, 0.1, 0.2, 64
    link = rp.Linkage(length=length, width=width, height=height)
    mesh = link.mesh(sections=n)
    hole = height / 4
    for centre in (0.0, length):
        # The hole: its centre and points inside its inscribed polygon are empty.
        inside = [[centre, 0.0, 0.0], [centre + 0.9 * hole, 0.0, 0.02], [centre, -0.9 * hole, 0]]
        assert not mesh.contains(inside).any()
        # Material around it, up to the rounded end (radius H/2).
        ring = [[centre, 0.375 * height, 0.0], [centre, -0.375 * height, 0.0]]
        ring += [[centre + s * 0.375 * height, 0.0, 0.04] for s in (-1, 1)]
        assert mesh.contains(ring).all()
        # A ray along the width direction through the hole's centre meets nothing.
        assert not mesh.ray.intersects_any([[centre, 0.0, -1.0]], [[0.0, 0.0, 1.0]]).any()
        assert mesh.ray.intersects_any([[centre, 0.3 * height, -1.0]], [[0.0, 0.0, 1.0]]).all()
        # The hole's vertices: a regular 64-gon of radius H/4 around the centre, on both faces.
        planar = np.hypot(mesh.vertices[:, 0] - centre, mesh.vertices[:, 1])
        on_hole = np.abs(planar - hole) < 1e-12 * height
        assert on_hole.sum() == 2 * n
        np.testing.assert_array_equal(
            np.sort(np.unique(mesh.vertices[on_hole, 2])), [-width / 2, width / 2]
        )
    # Between the holes and beyond the rounded ends.
    assert mesh.contains([[length / 2, 0.0, 0.0], [-0.4 * height, 0.0, 0.0]]).all()
    outside = [[-0.6 * height, 0.0, 0.0], [length + 0.6 * height, 0.0, 0.0], [0.5, 0.0, 0.06]]
    assert not mesh.contains(outside).any()


def test_holes_that_would_overlap_are_one_slot() -> None:
    length, width, height = 0.05, 0.1, 0.2
    mesh = canonical(length, width, height, 32)
    assert_closed_volume(mesh)
    along = [[x, 0.0, 0.0] for x in np.linspace(-0.2 * height, length + 0.2 * height, 9)]
    assert not mesh.contains(along).any()  # one slot from frame_a to frame_b
    assert mesh.contains([[length / 2, 0.375 * height, 0.0]]).all()

    # Exactly touching holes are a slot too; just beyond the gap, two holes again: only
    # then is hole a's vertex (H/4, 0) on the axis (inside the slot there is none).
    def has_vertex_of_hole_a(mesh) -> bool:
        return bool(np.any(np.all(mesh.vertices[:, :2] == [height / 4, 0.0], axis=1)))

    touching = canonical(0.1, width, height, 32)
    assert not touching.contains([[0.05, 0.0, 0.0]]).any()
    assert not has_vertex_of_hole_a(touching)
    apart = 0.1 + 2 * linkage_kernel.MIN_RELATIVE_GAP * height
    assert has_vertex_of_hole_a(canonical(apart, width, height, 32))
    assert not has_vertex_of_hole_a(mesh)


def test_outward_normals() -> None:
    for length in (1.0, 0.05):
        mesh = canonical(length, 0.1, 0.2, 24)
        offset = 1e-5
        assert not mesh.contains(mesh.triangles_center + offset * mesh.face_normals).any()
        assert mesh.contains(mesh.triangles_center - offset * mesh.face_normals).all()


def test_volume_converges_at_second_order_to_the_round_link() -> None:
    """With round ends and holes the drawing's volume is W (L H + pi H^2 / 8)."""
    length, width, height = 0.8, 0.05, 0.2
    exact = width * (length * height + math.pi * height**2 / 8)
    errors = [abs(canonical(length, width, height, n).volume / exact - 1) for n in (16, 64, 256)]
    orders = [math.log(errors[i] / errors[i + 1]) / math.log(4.0) for i in range(2)]
    assert orders == pytest.approx([2.0, 2.0], abs=0.05)


@pytest.mark.parametrize(
    ("options", "bounds"),
    [
        # axis +z: h = +x, w = +y
        ({"axis": (0, 0, 1)}, [[-0.1, -0.05, -0.1], [0.1, 0.05, 1.1]]),
        # axis +x, rotate90: h = +z, w = -y
        ({"rotate90": True}, [[-0.1, -0.05, -0.1], [1.1, 0.05, 0.1]]),
        # axis +y, explicit height along +x: w = e x h = -z
        (
            {"axis": (0, 1, 0), "height_direction": (1, 0, 0)},
            [[-0.1, -0.1, -0.05], [0.1, 1.1, 0.05]],
        ),
    ],
)
def test_mesh_in_frame_a_follows_axis_and_section(options: dict, bounds: list) -> None:
    link = rp.Linkage(**options)
    mesh = link.mesh(sections=16)
    assert_closed_volume(mesh)
    np.testing.assert_allclose(mesh.bounds, bounds, rtol=0, atol=1e-15)
    assert mesh.metadata["shape"] == "linkage"
    # The holes sit at frame_a and frame_b, whatever the axis.
    assert not mesh.contains([link.frames["frame_a"].position]).any()
    assert not mesh.contains([link.frames["frame_b"].position]).any()


def test_the_drawing_is_not_the_mass_model() -> None:
    """The mesh reaches H/2 beyond frame_a and frame_b and has holes; the mass properties are
    the full cuboid's from frame_a to frame_b."""
    link = rp.Linkage()
    mesh = link.mesh(sections=128)
    assert mesh.volume != pytest.approx(link.volume, rel=1e-3)
    assert link.volume == link.dimensions["length"] * 0.1 * 0.2
    assert mesh.bounds[0, 0] == -0.1 and mesh.bounds[1, 0] == 1.1  # beyond [0, L]
    mesh.density = link.density
    assert mesh.mass != pytest.approx(link.mass, rel=1e-3)
    assert SHAPES["linkage"].primitive(link.dimensions) is None
    for doc in (linkage_kernel.__doc__, rp.Linkage.__doc__):
        assert "not the mass model" in " ".join(doc.lower().split())


@given(
    ratio=st.floats(-12.0, 8.0),
    width=st.floats(-6.0, 3.0),
    height=st.floats(-3.0, 3.0),
    sections=st.integers(3, 40),
)
def test_mesh_property(ratio: float, width: float, height: float, sections: int) -> None:
    """Log-uniform L / H, W and H: always closed, with the documented area."""
    h = 10.0**height
    length, w = h * 10.0**ratio, 10.0**width
    mesh = canonical(length, w, h, sections)
    assert_closed_volume(mesh)
    assert mesh.volume == pytest.approx(w * link_area(length, h, sections), rel=1e-9)


def test_too_slender_to_mesh() -> None:
    """Holes whose segments fall below float64's resolution at frame_b: refused, naming the
    height; the body itself is fine (its mass properties are exact)."""
    link = rp.Linkage(length=1e13, width=1.0, height=1.0)
    assert link.mass > 0.0
    with pytest.raises(rp.ParameterError, match=r"height=1.0: .*too slender to mesh") as info:
        link.mesh(sections=64)
    assert info.value.parameter == "height"
    assert_closed_volume(rp.Linkage(length=1e9, width=1.0, height=1.0).mesh(sections=64))


@pytest.mark.parametrize("delta", [-2, -1, 0, 1, 2])
def test_mesh_closed_at_the_slot_threshold(delta: int) -> None:
    height = 0.2
    length = height / 2 + linkage_kernel.MIN_RELATIVE_GAP * height
    for _ in range(abs(delta)):
        length = math.nextafter(length, math.copysign(math.inf, delta))
    for sections in (3, 4, 64):
        assert_closed_volume(canonical(length, 0.1, height, sections))


# -- 3. rules, edge cases, mass= ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "parameter", "rule"),
    [
        ({"length": 0.0}, "length", "must be positive and finite"),
        ({"length": -1.0}, "length", "must be positive and finite"),
        ({"length": math.nan}, "length", "must be positive and finite"),
        ({"length": "2 kg"}, "length", "expected a length"),
        ({"width": 0.0}, "width", "must be positive and finite"),
        ({"width": math.inf}, "width", "must be positive and finite"),
        ({"width": None}, "width", "must be a number"),
        ({"height": -1e-9}, "height", "must be positive and finite"),
        ({"height": math.nan}, "height", "must be positive and finite"),
        ({"height": "abc"}, "height", "pint"),
        ({"length": 0.0, "height": -1.0}, "length", "must be positive"),  # first rule wins
        ({"width": -1.0, "height": -1.0}, "width", "must be positive"),
        ({"axis": (0, 0, 0)}, "axis", "non-zero"),
        ({"axis": (math.nan, 0, 1)}, "axis", "finite"),
        ({"axis": "x"}, "axis", "3-vector"),
        ({"height_direction": (2, 0, 0)}, "height_direction", "not parallel"),
        ({"height_direction": (0, math.inf, 0)}, "height_direction", "finite"),
        ({"rotate90": "yes"}, "rotate90", "True or False"),
        ({"extra_frames": "0.5"}, "extra_frames", "sequence"),
        ({"extra_frames": [0.5, math.nan]}, "extra_frames[1]", "finite"),
        ({"density": 0.0}, "density", "must be positive and finite"),
        ({"mass": -2.0}, "mass", "must be positive and finite"),
        ({"material": "unobtainium"}, "material", "unknown material"),
        ({"material": "steel", "density": 1.0}, "density", "give only one"),
        ({"length": 1e200, "width": 1e200, "height": 1e200}, "length", "beyond what float64 holds"),
    ],
)
def test_bad_input(kwargs: dict, parameter: str, rule: str) -> None:
    with pytest.raises(rp.ParameterError, match=rule) as info:
        rp.Linkage(**kwargs)
    assert info.value.parameter == parameter


@pytest.mark.parametrize("keyword", ["inner_width", "inner_height", "radius"])
def test_no_hole_dimensions(keyword: str) -> None:
    with pytest.raises(TypeError, match=keyword):
        rp.Linkage(**{keyword: 0.01})


def test_rule_codes() -> None:
    check = linkage_kernel.check
    assert check(1.0, 0.1, 0.2) == 0
    assert check(0.0, 0.1, 0.2) == linkage_kernel.LENGTH_POSITIVE
    assert check(1.0, math.nan, 0.2) == linkage_kernel.WIDTH_POSITIVE
    assert check(1.0, 0.1, math.inf) == linkage_kernel.HEIGHT_POSITIVE
    assert check(-1.0, -1.0, -1.0) == linkage_kernel.LENGTH_POSITIVE
    assert linkage_kernel.HEIGHT_POSITIVE == len(linkage_kernel.RULES)
    spec = SHAPES["linkage"]
    assert (spec.axis, spec.cross_section, spec.end_frame, spec.extra_frames) == (
        True,
        True,
        "length",
        "axial",
    )


@pytest.mark.parametrize(
    "kwargs",
    [
        {"length": 1e-12},
        {"width": 1e-12, "height": 1e-12},
        {"length": 1e100, "width": 1e-60, "height": 1e-60, "density": 1.0},
        {"extra_frames": [-0.5, 0.0, 3.0]},
        {"axis": (1e-300, 0, 0)},
    ],
)
def test_valid_edge_cases_stay_valid(kwargs: dict) -> None:
    assert_same_as_box(kwargs)
    link = rp.Linkage(**kwargs)
    assert 0.0 < link.mass < math.inf


def test_mass_round_trips() -> None:
    link = rp.Linkage(
        length=0.4, width=0.02, height=0.05, axis=(0, 1, 1), height_direction=(1, 0, 0),
        rotate90=True, mass=3, extra_frames=[0.1],
    )  # fmt: skip
    assert link.mass == 3.0
    params = link.parameters()
    assert params["shape"] == "linkage" and params["mass"] == 3.0
    again = rp.Linkage(**{k: v for k, v in params.items() if k != "shape"})
    assert again.inertia.tobytes() == link.inertia.tobytes()
    assert again.height_direction.tobytes() == link.height_direction.tobytes()
    assert again.frames["frame_c1"].position.tobytes() == link.frames["frame_c1"].position.tobytes()


def test_frames_as_the_box() -> None:
    link = rp.Linkage(length=2.0, axis=(0, 0, 3), extra_frames=[0.5, 1.5])
    assert list(link.frames) == ["frame_a", "frame_b", "frame_com", "frame_c1", "frame_c2"]
    np.testing.assert_array_equal(link.frames["frame_b"].position, [0.0, 0.0, 2.0])
    np.testing.assert_array_equal(link.frames["frame_com"].position, [0.0, 0.0, 1.0])
    np.testing.assert_array_equal(link.frames["frame_c2"].position, [0.0, 0.0, 1.5])
    for frame in link.frames.values():
        np.testing.assert_array_equal(frame.rotation, np.eye(3))
    assert rp.body_class("linkage") is rp.Linkage
    assert "Linkage" in rp.__all__


def test_batch_rows_are_the_scalar_bodies() -> None:
    """``rp.batch.linkage`` (numpy engine: the same scalar functions on arrays) gives the
    scalar bodies' bits, which are the solid Box's."""
    from rigidparts import batch

    length = np.array([1.0, 0.25, 3.0])
    rows = batch.linkage(
        length=length, width=0.02, height=0.05, axis=(0, 1, 1), rotate90=True, engine="numpy"
    )
    for i in range(len(length)):
        body = rp.Linkage(length=length[i], width=0.02, height=0.05, axis=(0, 1, 1), rotate90=True)
        assert rows.mass[i] == body.mass
        assert rows.inertia[i].tobytes() == body.inertia.tobytes()
        assert rows.center_of_mass[i].tobytes() == body.center_of_mass.tobytes()
