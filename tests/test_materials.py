"""Tests of the material table (rigidparts.materials and data/materials.toml)."""

from __future__ import annotations

import math
import types

import pytest

from rigidparts import materials
from rigidparts.errors import ParameterError
from rigidparts.materials import MATERIALS, Material, get_material, list_materials

# Independent published densities, kg/m^3, each with its source. The table must agree with them
# to within REFERENCE_TOLERANCE (relative).
REFERENCE_TOLERANCE = 0.02  # 2 %
REFERENCE_DENSITIES = {
    # CRC Handbook of Chemistry and Physics, 97th ed., "Properties of water in the range 0-100 C":
    # 0.99821 g/cm^3 at 20 C
    "water": 998.21,
    # CRC Handbook, "Physical constants of inorganic compounds": Pb 11.3 g/cm^3;
    # Kaye & Laby, Tables of Physical and Chemical Constants (NPL), lead 11 340 kg/m^3
    "lead": 11340.0,
    # CRC Handbook, Au 19.3 g/cm^3
    "gold": 19300.0,
    # CRC Handbook, W 19.3 g/cm^3; Kaye & Laby, tungsten 19 250 kg/m^3
    "tungsten": 19250.0,
    # CRC Handbook, Cu 8.96 g/cm^3
    "copper": 8960.0,
    # CRC Handbook, Ti 4.506 g/cm^3
    "titanium": 4506.0,
    # CRC Handbook, Al 2.70 g/cm^3
    "aluminium": 2700.0,
    # CRC Handbook, Fe 7.874 g/cm^3
    "iron": 7874.0,
    # ASM Handbook Vol. 2 / Aluminum Association: 6061 2.70 g/cm^3
    "aluminium_6061_t6": 2700.0,
    # ASM Materials Properties Handbook: Titanium Alloys (1994): Ti-6Al-4V 4.43 g/cm^3
    "ti_6al_4v": 4430.0,
}

# Broad physically plausible bands by material class, kg/m^3 (lightest wood to densest metal).
PLAUSIBLE = (50.0, 22_600.0)  # 22 590 kg/m^3 is osmium, the densest element


def test_table_size_and_types() -> None:
    assert isinstance(MATERIALS, types.MappingProxyType)
    assert len(MATERIALS) >= 30
    for name, material in MATERIALS.items():
        assert isinstance(material, Material)
        assert material.name == name
        assert isinstance(material.density, float)
        assert isinstance(material.aliases, tuple)


def test_materials_is_read_only() -> None:
    with pytest.raises(TypeError):
        MATERIALS["unobtainium"] = MATERIALS["steel"]  # type: ignore[index]
    with pytest.raises(AttributeError):
        MATERIALS["steel"].density = 1.0  # type: ignore[misc]


def test_loaded_once() -> None:
    assert materials.MATERIALS is materials.MATERIALS
    assert materials._load() is materials._load()


@pytest.mark.parametrize("name", sorted(MATERIALS))
def test_every_entry_has_positive_density_and_a_source(name: str) -> None:
    material = MATERIALS[name]
    assert math.isfinite(material.density)
    assert material.density > 0.0
    assert PLAUSIBLE[0] <= material.density <= PLAUSIBLE[1]
    assert material.source.strip()
    assert material.description.strip()


def test_required_materials_present() -> None:
    required = [
        "steel",
        "stainless 304",
        "stainless 316",
        "grey cast iron",
        "aluminium",
        "6061-T6",
        "7075-T6",
        "2024-T3",
        "titanium",
        "Ti-6Al-4V",
        "copper",
        "brass",
        "bronze",
        "lead",
        "tungsten",
        "gold",
        "silver",
        "nickel",
        "magnesium",
        "zinc",
        "ABS",
        "PLA",
        "PA6",
        "PEEK",
        "PMMA",
        "POM",
        "polycarbonate",
        "HDPE",
        "natural rubber",
        "soda-lime glass",
        "concrete",
        "oak",
        "pine",
        "balsa",
        "CFRP",
        "water",
    ]
    for name in required:
        assert isinstance(get_material(name), Material), name


def test_steel_is_the_original_default() -> None:
    assert MATERIALS["steel"].density == 7860.0
    assert get_material("steel").density == 7860.0
    assert get_material("Mild Steel") is MATERIALS["steel"]


@pytest.mark.parametrize("name", sorted(REFERENCE_DENSITIES))
def test_density_matches_published_value(name: str) -> None:
    expected = REFERENCE_DENSITIES[name]
    assert MATERIALS[name].density == pytest.approx(expected, rel=REFERENCE_TOLERANCE)


def test_class_ordering_is_physical() -> None:
    d = {name: m.density for name, m in MATERIALS.items()}
    # Wood and polymers around water, then light metals < steels < heavy metals.
    assert d["wood_balsa"] < d["wood_pine"] < d["wood_oak"] < d["water"]
    assert d["hdpe"] < d["water"] < d["nylon_pa6"] < d["pom"] < d["ptfe"]
    assert d["magnesium"] < d["aluminium"] < d["titanium"] < d["zinc"] < d["steel"]
    assert d["steel"] < d["copper"] < d["silver"] < d["lead"] < d["tungsten"] <= d["gold"]
    assert d["cfrp"] < d["aluminium"]
    assert d["water"] == pytest.approx(998.2, abs=0.1)  # stated as 20 C in the table
    assert "20 C" in MATERIALS["water"].description


@pytest.mark.parametrize(
    ("query", "canonical"),
    [
        ("aluminium", "aluminium"),
        ("Aluminum", "aluminium"),
        ("ALUMINIUM", "aluminium"),
        ("  aluminum  ", "aluminium"),
        ("stainless_steel_304", "stainless_steel_304"),
        ("Stainless-Steel 304", "stainless_steel_304"),
        ("SS304", "stainless_steel_304"),
        ("al6061", "aluminium_6061_t6"),
        ("Al 6061-T6", "aluminium_6061_t6"),
        ("ti64", "ti_6al_4v"),
        ("Ti-6Al-4V", "ti_6al_4v"),
        ("Delrin", "pom"),
        ("acetal", "pom"),
        ("Plexiglass", "pmma"),
        ("nylon", "nylon_pa6"),
        ("carbon fiber", "cfrp"),
        ("Carbon Fibre", "cfrp"),
    ],
)
def test_lookup_is_case_and_separator_insensitive(query: str, canonical: str) -> None:
    assert get_material(query) is MATERIALS[canonical]


def test_aliases_unique_across_table() -> None:
    seen: dict[str, str] = {}
    for material in MATERIALS.values():
        for label in (material.name, *material.aliases):
            key = materials._normalize(label)
            assert key not in seen, f"{label!r} of {material.name} clashes with {seen.get(key)}"
            seen[key] = material.name


def test_list_materials_sorted() -> None:
    listed = list_materials()
    assert [m.name for m in listed] == sorted(MATERIALS)
    assert all(isinstance(m, Material) for m in listed)


def test_unknown_material_suggests_close_names() -> None:
    with pytest.raises(ParameterError) as info:
        get_material("alumnium")
    err = info.value
    assert isinstance(err, ValueError)
    assert err.parameter == "material"
    assert err.value == "alumnium"
    assert "unknown material" in err.rule
    assert "'aluminium'" in err.rule
    assert "rigidparts materials" in err.rule
    assert str(err).startswith("material='alumnium':")


def test_unknown_material_names_the_callers_parameter() -> None:
    with pytest.raises(ParameterError) as info:
        get_material("aluminum 6016", parameter="link_material")
    assert info.value.parameter == "link_material"
    assert "'aluminum 6061'" in info.value.rule
    assert str(info.value).startswith("link_material=")


def test_unknown_material_without_close_match() -> None:
    with pytest.raises(ParameterError) as info:
        get_material("xyzzy")
    assert "did you mean" not in info.value.rule
    assert "see 'rigidparts materials'" in info.value.rule


@pytest.mark.parametrize("value", [None, 7860.0, 3, b"steel", ["steel"]])
def test_non_string_raises(value: object) -> None:
    with pytest.raises(ParameterError) as info:
        get_material(value)  # type: ignore[arg-type]
    assert isinstance(info.value, ValueError)
    assert info.value.parameter == "material"
    assert info.value.rule == "must be a material name (a string)"


@pytest.mark.parametrize(
    "raw",
    [
        {"density": 0.0, "source": "x"},
        {"density": -1.0, "source": "x"},
        {"density": math.inf, "source": "x"},
        {"density": math.nan, "source": "x"},
        {"density": "7860", "source": "x"},
        {"density": True, "source": "x"},
        {"density": 1000.0},
        {"density": 1000.0, "source": "  "},
        {"density": 1000.0, "source": "x", "aliases": "foo"},
        {"density": 1000.0, "source": "x", "colour": "red"},
    ],
)
def test_bad_data_entry_is_a_runtime_error_naming_it(raw: dict[str, object]) -> None:
    with pytest.raises(RuntimeError, match=r"\[bogus\]"):
        materials._parse_entry("bogus", raw)
