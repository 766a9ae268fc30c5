"""rigidparts' own exports give zero findings: every example model exported to every format
its content allows, then checked."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

import rigidparts as rp
from rigidparts.checking import check

EXAMPLES = sorted((Path(__file__).resolve().parents[1] / "examples").glob("*.toml"))
SUFFIXES = ["urdf", "xml", "sdf", "usda"]



@pytest.mark.parametrize("suffix", SUFFIXES)
@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_exports_have_no_findings(tmp_path: Path, example: Path, suffix: str) -> None:
    if suffix == "usda" and importlib.util.find_spec("pxr") is None:
        pytest.skip("usd-core is not installed")
    model = rp.load_model(example)
    out = tmp_path / f"{example.stem}.{suffix}"
    try:
        rp.export_model(model, out)
    except rp.ModelError as exc:
        if "cannot be exported" in str(exc):
            pytest.skip(f"{suffix} cannot hold this example: {exc}")
        raise
    report = check(out)
    assert report.unreadable == []
    assert [(f.link, f.code) for f in report.findings] == []
    # a primitive is exact; a body exported as a mesh (64 segments around) is its inscribed
    # polygon: the mesh's volume is N sin(2 pi / N) / (2 pi) = 1 - 1.6e-3 of the solid's, and
    # the linkage's rounded ends with their bores differ by 2.4 % (far below any finding)
    for file in report.files:
        for link in file.links:
            if link.computed is not None and link.ratios is not None:
                assert link.ratios["inertia_residual"] < 0.05, link.name
