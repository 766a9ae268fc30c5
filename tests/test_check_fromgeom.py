"""MJCF bodies without <inertial>: ``check`` reports what MuJoCo computes from the geoms
(``compiler inertiafromgeom="auto"``) and compares it with the geometry's union; the values are
verified against MuJoCo compiling the same file (an independent implementation)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rigidparts.checking import check

mujoco = pytest.importorskip("mujoco")

#: Overlapping boxes, a capsule at its own density, a cylinder at its own mass, a visual
#: sphere (MuJoCo weighs it too).
SUMMED = """<mujoco model="m">
  <worldbody>
    <body name="b" pos="0 0 1">
      <freejoint/>
      <geom type="box" size="0.1 0.2 0.3" pos="0.05 0 0"/>
      <geom type="box" size="0.1 0.2 0.3" pos="0.1 0 0" euler="0 0 30"/>
      <geom type="capsule" size="0.05" fromto="0 0 0 0.3 0 0.2" density="500"/>
      <geom type="cylinder" size="0.05 0.1" pos="0 0.3 0" mass="2"/>
      <geom type="sphere" size="0.1" pos="0 0 0.5" contype="0" conaffinity="0"/>
    </body>
  </worldbody>
</mujoco>
"""

#: A collision box and a visual-only sphere half a metre above it.
VISUAL = """<mujoco model="m">
  <worldbody>
    <body name="b" pos="0 0 1">
      <freejoint/>
      <geom type="box" size="0.1 0.1 0.1"/>
      <geom type="sphere" size="0.1" pos="0 0 0.5" contype="0" conaffinity="0"/>
    </body>
  </worldbody>
</mujoco>
"""

EMPTY = """<mujoco model="m">
  <worldbody>
    <body name="b" pos="0 0 1">
      <freejoint/>
    </body>
  </worldbody>
</mujoco>
"""


def _record(tmp_path: Path, text: str):
    path = tmp_path / "m.xml"
    path.write_text(text)
    report = check(path).files[0]
    assert report.error is None
    return path, report.links[0]


@pytest.mark.parametrize("text", [SUMMED, VISUAL], ids=["summed", "visual"])
def test_mujoco_from_geoms_matches_mujoco(tmp_path: Path, text: str) -> None:
    path, record = _record(tmp_path, text)
    model = mujoco.MjModel.from_xml_path(str(path))
    body = model.body("b").id
    declared = record.declared
    assert declared is not None and declared["layout"] == "mjcf-geoms"
    # MuJoCo's own arithmetic differs in the order of its sums: a few ulp of the largest term
    assert declared["mass"] == pytest.approx(model.body_mass[body], rel=1e-12)
    np.testing.assert_allclose(declared["center_of_mass"], model.body_ipos[body], atol=1e-12)
    np.testing.assert_allclose(
        np.sort(declared["principal_moments"]), np.sort(model.body_inertia[body]), rtol=1e-10
    )
    assert any("MuJoCo computes mass" in note for note in record.notes)


def test_visual_geoms_counted_by_mujoco_is_a_warning(tmp_path: Path) -> None:
    _, record = _record(tmp_path, VISUAL)
    (finding,) = [f for f in record.findings if f.code == "inertia-mismatch"]
    assert finding.severity == "warning"
    assert finding.cause is not None and "visual-only" in finding.cause.text


def test_fix_writes_the_union_for_mujoco(tmp_path: Path) -> None:
    from rigidparts.commands import main

    path, _ = _record(tmp_path, VISUAL)
    out = tmp_path / "fixed.xml"
    assert main(["check", str(path), "--fix", "-o", str(out)]) in (0, 1)
    model = mujoco.MjModel.from_xml_path(str(out))
    # the mass MuJoCo had (kept: box (0.2 m)^3 and sphere 4/3 pi (0.1 m)^3 at 1000 kg/m^3),
    # spread as the union, the box alone: m (b^2 + c^2) / 12 (textbook)
    mass = 1000.0 * (0.2**3 + 4.0 / 3.0 * np.pi * 0.1**3)
    assert model.body_mass[1] == pytest.approx(mass, rel=1e-12)
    np.testing.assert_allclose(model.body_inertia[1], mass * 0.08 / 12.0, rtol=1e-12)


def test_moving_body_without_mass_is_an_error_mujoco_agrees(tmp_path: Path) -> None:
    path, record = _record(tmp_path, EMPTY)
    assert [f.code for f in record.findings] == ["missing-inertial"]
    assert record.findings[0].severity == "error"
    with pytest.raises(ValueError, match="mjMINVAL"):
        mujoco.MjModel.from_xml_path(str(path))
