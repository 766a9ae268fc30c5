"""Units: rigidparts.units.to_si / to_si_array against exact definitions of the units, and
their use through the bodies (strings with units, pint Quantities, plain numeric strings)."""

from __future__ import annotations

import math
import struct
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pint
import pytest

import rigidparts as rp
from rigidparts import units
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


# -- the common forms without pint, each string parsed once --------------------------------------

#: Numbers as users write them: ints (pint keeps them exact: "123456789012345678 h" is the exact
#: product, rounded once), floats, exponents, signs, signed zeros, huge and tiny values.
FAST_NUMBERS = (
    "250", "0", "-0", "-0.0", "7.85", "2.5e-3", "1E3", ".5", "1.", "+3", "-250",
    "123456789012345678", "99999999999999999999", "1e300", "0.1", "1e-320",
)  # fmt: skip


def _same_bits(a: float, b: float) -> bool:
    return struct.pack("<d", a) == struct.pack("<d", b)


@pytest.mark.parametrize("kind", sorted(units._FACTORS))
def test_fast_path_is_pint_bit_for_bit(kind: str) -> None:
    """Every unit of the fast path's table, with every number form, spacing and operator
    spelling: the same float as pint's conversion, to the last bit."""
    ureg = registry()
    si_unit = units._KINDS[kind][0]
    checked = 0
    for unit, factor in units._FACTORS[kind].items():
        # The table's factor is pint's own (an exact int where pint keeps one).
        assert ureg.Quantity(1, unit).to(si_unit).magnitude == factor
        assert type(ureg.Quantity(1, unit).to(si_unit).magnitude) is type(factor), unit
        spellings = {unit, unit.replace("^", "**"), unit.replace("/", " / ").replace("^", " ^ ")}
        for number in FAST_NUMBERS:
            for spelling in spellings:
                for space in (" ", "", "  "):
                    text = f"{number}{space}{spelling}"
                    fast = units._fast_to_si(text, kind)
                    assert fast is not None, text
                    expected = float(ureg.Quantity(text).to(si_unit).magnitude)
                    assert _same_bits(fast, expected), (text, fast, expected)
                    checked += 1
    assert checked > 100


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("1 kg m^-3", "density"),  # another form of a known unit
        ("7.85 g cm^-3", "density"),
        ("1_000 mm", "length"),  # Python-style digit groups
        ("0250 mm", "length"),  # leading zero: pint reads "0" then "250"
        ("250 MM", "length"),  # not a unit of the table (pint decides)
        ("3 yd + 1 ft", "length"),
        ("(250) mm", "length"),
        ("2 * 3 mm", "length"),
        ("1 lightyear", "length"),
        ("5 grain", "mass"),
        ("1 day", "time"),
        ("1 arcmin", "angle"),
        ("1 kg/m3", "density"),  # pint refuses it
        ("250 mm", "mass"),  # a length given as a mass: pint's dimension error
        ("1" + "0" * 400 + " mm", "length"),  # beyond float64: pint's path says so
    ],
)
def test_other_forms_go_to_pint(text: str, kind: str) -> None:
    """Anything else is pint's: the fast path declines, and to_si gives pint's answer or its
    error."""
    assert units._fast_to_si(text, kind) is None
    try:
        expected: float | None = float(
            registry().Quantity(text).to(units._KINDS[kind][0]).magnitude
        )
    except Exception:
        expected = None
    if expected is None or not math.isfinite(expected):
        try:
            got = to_si("x", text, kind)
        except rp.ParameterError:
            return
        assert expected is not None and _same_bits(got, expected)
    else:
        assert _same_bits(to_si("x", text, kind), expected)


def test_each_distinct_string_is_parsed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    fast, slow = units._fast_to_si, units._quantity_to_si

    def counted_fast(text: str, kind: str) -> float | None:
        calls.append(text)
        return fast(text, kind)

    def counted_slow(name: str, value: object, kind: str) -> object:
        calls.append(str(value))
        return slow(name, value, kind)

    monkeypatch.setattr(units, "_fast_to_si", counted_fast)
    monkeypatch.setattr(units, "_quantity_to_si", counted_slow)
    monkeypatch.setattr(units, "_PARSED", {})
    for _ in range(3):
        assert to_si("a", "251 mm") == 251 * 0.001
        assert to_si("c", "3 yd + 1 ft") == pytest.approx(3 * 0.9144 + 0.3048, rel=1e-15)
    # The fast form once; the pint form once by the fast path (declined), once by pint.
    assert calls == ["251 mm", "3 yd + 1 ft", "3 yd + 1 ft"]
    # The key holds the kind: the same text as another kind is parsed (and checked) anew.
    with pytest.raises(rp.ParameterError):
        to_si("m", "251 mm", "mass")
    # Errors are not remembered: a bad string raises every time.
    for _ in range(2):
        with pytest.raises(rp.ParameterError):
            to_si("x", "12 parsecs per fortnight")


def test_common_unit_strings_do_not_import_pint() -> None:
    """A body from unit strings of the common forms builds without pint (start-up)."""
    code = (
        "import sys, rigidparts as rp\n"
        "rp.Cone(length='250 mm', radius_a='40 mm', radius_b='1.5 in', density='7.85 g/cm^3')\n"
        "rp.Disk(radius='0.2 m', thickness='10 mm', mass='2.5 kg', "
        "extra_frames=[('100 mm', '30 deg')])\n"
        "assert 'pint' not in sys.modules, 'pint was imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_unit_string_bodies_equal_float_bodies_bit_for_bit() -> None:
    text = rp.Cone(length="250 mm", radius_a="40 mm", radius_b="10 mm", density="7.85 g/cm^3")
    floats = rp.Cone(
        length=250 * 0.001, radius_a=40 * 0.001, radius_b=10 * 0.001,
        density=7.85 * units._FACTORS["density"]["g/cm^3"],
    )  # fmt: skip
    assert text.dimensions == floats.dimensions
    assert _same_bits(text.density, floats.density)
    assert text.inertia.tobytes() == floats.inertia.tobytes()
