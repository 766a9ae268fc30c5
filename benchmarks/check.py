"""Speed of ``rigidparts check`` without engines (a benchmark, not a timed test).

Files: a 100-link URDF chain written here (revolute joints; each link a box, a cylinder or a
sphere of collision geometry, every fifth link two separate pieces, every tenth link two
overlapping pieces, which are unioned with manifold3d; every seventh link with a typo in its
inertia so that the diagnosis runs too). Figures:

- ``check()`` of the file in a warm process (imports done), best and median of 7 runs;
- one cold ``rigidparts check FILE --json`` process (imports included);
- a 100-link file without overlaps (the common case: pure closed forms).

Run: ``.venv/bin/python benchmarks/check.py`` (figures are recorded in docs/check.md).
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

KINDS = ("box", "cylinder", "sphere")


def _geometry(kind: str, z: float) -> str:
    shapes = {
        "box": '<box size="0.05 0.06 0.2"/>',
        "cylinder": '<cylinder radius="0.03" length="0.2"/>',
        "sphere": '<sphere radius="0.05"/>',
    }
    return f'<collision><origin xyz="0 0 {z!r}"/><geometry>{shapes[kind]}</geometry></collision>'


def pieces_of(i: int, overlaps: bool) -> list[str]:
    kinds = [KINDS[i % 3]]
    if i % 5 == 0:
        kinds.append(KINDS[(i + 1) % 3])
    if overlaps and i % 10 == 0:
        kinds.append(KINDS[(i + 2) % 3])
    return kinds


def _declared(kind: str, kinds: list[str], typo: bool) -> str:
    """An inertial: the first piece's (textbook closed forms, 2700 kg/m^3) when the link has
    one piece, a rough one otherwise; ``typo`` multiplies ixx by 10."""
    rho = 2700.0
    if kind == "box":
        m = rho * 0.05 * 0.06 * 0.2
        i = [m / 12 * (0.06**2 + 0.2**2), m / 12 * (0.05**2 + 0.2**2), m / 12 * (0.05**2 + 0.06**2)]
    elif kind == "cylinder":
        m = rho * 3.141592653589793 * 0.03**2 * 0.2
        i = [m / 12 * (3 * 0.03**2 + 0.2**2)] * 2 + [m * 0.03**2 / 2]
    else:
        m = rho * 4 / 3 * 3.141592653589793 * 0.05**3
        i = [2 / 5 * m * 0.05**2] * 3
    if typo:
        i[0] *= 10
    return (
        f'    <inertial><origin xyz="0 0 0.1"/><mass value="{m!r}"/><inertia ixx="{i[0]!r}" '
        f'iyy="{i[1]!r}" izz="{i[2]!r}" ixy="0" ixz="0" iyz="0"/></inertial>\n'
    )


def robot(links: int = 100, overlaps: bool = True, worst: bool = False) -> str:
    """The URDF text of a chain of ``links`` links (module docstring)."""
    parts = ['<?xml version="1.0"?>\n<robot name="bench">\n']
    for i in range(links):
        kind = KINDS[i % 3]
        pieces = [_geometry(kind, 0.1)]
        if i % 5 == 0:
            pieces.append(_geometry(KINDS[(i + 1) % 3], 0.45))
        if overlaps and i % 10 == 0:
            pieces.append(_geometry(KINDS[(i + 2) % 3], 0.15))
        inertial = _declared(kind, pieces_of(i, overlaps), typo=(i % 7 == 3) or worst)
        parts.append(f'  <link name="l{i}">\n{inertial}    {"".join(pieces)}\n  </link>\n')
        if i:
            parts.append(
                f'  <joint name="j{i}" type="revolute"><parent link="l{i - 1}"/>'
                f'<child link="l{i}"/><origin xyz="0 0 0.3"/><axis xyz="0 1 0"/>'
                '<limit lower="-1" upper="1" effort="1" velocity="1"/></joint>\n'
            )
    parts.append("</robot>\n")
    return "".join(parts)


def main() -> None:
    from rigidparts.checking import check

    with tempfile.TemporaryDirectory() as folder:
        cases = (
            ("100 links, no overlaps (typical)", False, False),
            ("100 links, 10 with overlaps", True, False),
            ("100 links, every inertial wrong (worst case)", False, True),
        )
        for name, overlaps, worst in cases:
            path = Path(folder) / "bench.urdf"
            path.write_text(robot(100, overlaps, worst))
            check(path)  # warm: imports, mesh caches
            times = []
            for _ in range(7):
                start = time.perf_counter()
                report = check(path)
                times.append(time.perf_counter() - start)
            print(
                f"{name}: check() best {min(times) * 1e3:.0f} ms, median "
                f"{statistics.median(times) * 1e3:.0f} ms ({len(report.findings)} findings)"
            )
            start = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "rigidparts.commands", "check", str(path), "--json"],
                capture_output=True,
                check=False,
            )
            print(f"{name}: cold process {(time.perf_counter() - start) * 1e3:.0f} ms")


if __name__ == "__main__":
    main()
