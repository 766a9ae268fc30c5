"""Units: rigidparts.units.to_si / to_si_array against exact definitions of the units, and
their use through the bodies (strings with units, pint Quantities, plain numeric strings)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pint
import pytest

import rigidparts as rp
from rigidparts.units import registry, to_si, to_si_array

# Exact definitions (international yard and pound agreement, 1959).
INCH = Fraction(254, 10000)  # m
POUND = Fraction(45359237, 100000000)  # kg


@pytest.mark.parametrize(
    ("value", "kind", "expected"),
    [
        ("250 mm", "length", 0.25),
        ("1.5 km", "length", 1500.0),
        ("3 in", "length", float(3 * INCH)),
        ("2 ft", "length", float(24 * INCH)),
        ("7.85 g/cm^3", "density", 7850.0),
        ("7.85 g/cm**3", "density", 7850.0),
        ("1 kg/L", "density", 1000.0),
        ("0.284 lb/in^3", "density", float(Fraction("0.284") * POUND / INCH**3)),
        ("2.5 kg", "mass", 2.5),
        ("3 lb", "mass", float(3 * POUND)),
        ("10 ms", "time", 0.01),
        ("180 deg", "angle", math.pi),
        ("0.5", "length", 0.5),
        (" 0.5 ", "length", 0.5),
        ("1e-3", "density", 1e-3),
        (3, "length", 3.0),
        (0.25, "length", 0.25),
        (np.float32(0.5), "length", 0.5),
        (np.int64(2), "length", 2.0),
    ],
)
def test_to_si(value, kind, expected: float) -> None:
    got = to_si("x", value, kind)
    assert type(got) is float
    assert got == pytest.approx(expected, rel=1e-15)


def test_imperial_density_value() -> None:
    """0.284 lb/in^3 (a common handbook figure for steel) is 7861.09 kg/m^3."""
    assert to_si("density", "0.284 lb/in^3", "density") == pytest.approx(7861.0929377, rel=1e-10)


def test_pint_quantities_from_any_registry() -> None:
    own = registry()
    other = pint.UnitRegistry()  # a caller's separate registry
    for ureg in (own, other):
        assert to_si("length", ureg.Quantity(250, "mm")) == pytest.approx(0.25, rel=1e-15)
        assert to_si("density", 7.85 * ureg("g/cm^3"), "density") == pytest.approx(7850, rel=1e-15)
        with pytest.raises(rp.ParameterError) as info:
            to_si("length", ureg.Quantity(5, "kg"))
        assert info.value.parameter == "length"


@pytest.mark.parametrize(
    ("value", "kind", "words"),
    [
        ("5 kg", "length", "dimension"),
        ("3 m", "density", "dimension"),
        ("1 m^2", "length", "dimension"),
        ("10 %", "length", "dimension"),
        ("abc", "length", "length"),
        ("", "length", "empty"),
        (True, "length", "boolean"),
        (np.bool_(False), "density", "boolean"),
        (None, "length", "number"),
        ([1.0], "length", "number"),
        (1 + 0j, "length", "number"),
        # pint's own parser fails on these with AssertionError / TokenError / ZeroDivisionError
        (".", "length", "pint"),
        ("-", "length", "pint"),
        ("(", "length", "pint"),
        ("1/0 m", "length", "pint"),
        ("1 +", "density", "pint"),
    ],
)
def test_to_si_errors(value, kind: str, words: str) -> None:
    with pytest.raises(rp.ParameterError) as info:
        to_si("my_param", value, kind)
    assert info.value.parameter == "my_param"
    assert str(info.value).startswith("my_param=")
    assert words in str(info.value)


def test_to_si_array() -> None:
    ureg = registry()
    np.testing.assert_allclose(to_si_array("r", ureg.Quantity([1, 2], "cm")), [0.01, 0.02])
    np.testing.assert_array_equal(to_si_array("r", [1, 2]), [1.0, 2.0])
    assert to_si_array("r", "250 mm").shape == ()
    assert float(to_si_array("r", "250 mm")) == pytest.approx(0.25)
    with pytest.raises(rp.ParameterError) as info:
        to_si_array("r", ["a", "b"])
    assert info.value.parameter == "r[0]"  # the item at fault
    with pytest.raises(rp.ParameterError) as info:
        to_si_array("r", [True, False])
    assert info.value.parameter == "r"


def test_bodies_accept_units_everywhere() -> None:
    ureg = registry()
    box = rp.Box(
        length="250 mm",
        width=ureg.Quantity(4, "cm"),
        height="0.06",
        inner_width="2 cm",
        inner_height=0.03,
        density="7.85 g/cm^3",
        extra_frames=["100 mm", 0.2],
    )
    assert box.dimensions == {
        "length": 0.25,
        "width": 0.04,
        "height": 0.06,
        "inner_width": 0.02,
        "inner_height": 0.03,
    }
    assert box.density == pytest.approx(7850.0, rel=1e-15)  # pint's factor: 1 ulp off
    assert box.extra_frames == (0.1, 0.2)
    plain = rp.Box(
        length=0.25, width=0.04, height=0.06, inner_width=0.02, inner_height=0.03, density=7850.0
    )
    assert box.mass == pytest.approx(plain.mass, rel=1e-15)
    np.testing.assert_allclose(box.inertia, plain.inertia, rtol=1e-15)
    cone = rp.Cone(length="1 ft", radius_a="2 in", radius_b="1 in", density="0.284 lb/in^3")
    assert cone.length == pytest.approx(float(12 * INCH), rel=1e-15)
    assert cone.radius_a == pytest.approx(float(2 * INCH), rel=1e-15)
    assert cone.density == pytest.approx(7861.0929377, rel=1e-10)
    assert cone.parameters()["density"] == cone.density  # SI in parameters()
