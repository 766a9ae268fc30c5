"""Speed of reading robot description files (a benchmark, not a timed test).

Figures, each against ElementTree's C parser alone on the same file in the same run (so the
ratio does not depend on the machine's speed):

- a 10 000-link URDF chain and a 10 000-link SDFormat chain read into a Description
  (``rigidparts.formats.read_description``), CPU time, best of 3;
- ``rp.check`` over the URDF files pybullet ships (real files nobody here wrote), files per
  second, when pybullet is installed.

Run: ``.venv/bin/python benchmarks/read_files.py`` (figures recorded in docs/check.md).
"""

from __future__ import annotations

import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

LINK = (
    '<link name="l{i}"><inertial><origin xyz="0 0 0.05" rpy="0 0 0"/><mass value="1"/>'
    '<inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>'
    '<collision><geometry><box size="0.1 0.1 0.1"/></geometry></collision></link>'
)
JOINT = (
    '<joint name="j{i}" type="revolute"><parent link="l{p}"/><child link="l{i}"/>'
    '<origin xyz="0 0 0.1" rpy="0 0 0.1"/><axis xyz="0 1 0"/>'
    '<limit lower="-1" upper="1" effort="1" velocity="1"/></joint>'
)


def urdf_chain(n: int) -> str:
    parts = ['<robot name="chain">']
    for i in range(n):
        parts.append(LINK.format(i=i))
        if i:
            parts.append(JOINT.format(i=i, p=i - 1))
    return "\n".join([*parts, "</robot>"])


def sdf_chain(n: int) -> str:
    parts = ['<sdf version="1.9"><model name="chain">']
    for i in range(n):
        parts.append(
            f'<link name="l{i}"><pose>0 0 {0.1 * i!r} 0 0 0</pose><inertial><mass>1</mass>'
            "<inertia><ixx>0.01</ixx><iyy>0.01</iyy><izz>0.01</izz><ixy>0</ixy><ixz>0</ixz>"
            "<iyz>0</iyz></inertia></inertial><collision name='c'><geometry><box><size>0.1 0.1 "
            "0.1</size></box></geometry></collision></link>"
        )
        parent = "world" if i == 0 else f"l{i - 1}"
        parts.append(
            f'<joint name="j{i}" type="revolute"><parent>{parent}</parent><child>l{i}</child>'
            "<axis><xyz>0 1 0</xyz></axis></joint>"
        )
    return "\n".join([*parts, "</model></sdf>"])


def cpu(function, rounds: int = 3) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.process_time()
        function()
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    from rigidparts.formats import read_description
    from rigidparts.transforms import rpy_to_matrix

    rpy_to_matrix((0.1, 0.2, 0.3))  # scipy imported before the clock
    with tempfile.TemporaryDirectory() as folder:
        for name, text in (("urdf", urdf_chain(10_000)), ("sdf", sdf_chain(10_000))):
            path = Path(folder) / f"chain.{name}"
            path.write_text(text, encoding="utf-8")
            data = path.read_bytes()
            parse = cpu(lambda data=data: ET.fromstring(data))
            read = cpu(lambda path=path: read_description(path))
            print(
                f"10 000-link {name}: read {read:.2f} s CPU, ElementTree parse {parse:.3f} s, "
                f"ratio {read / parse:.1f}"
            )
    try:
        import pybullet_data
    except ImportError:
        return
    import warnings

    import rigidparts as rp

    files = sorted(Path(pybullet_data.getDataPath()).rglob("*.urdf"))[:300]
    warnings.simplefilter("ignore")
    for jobs in (1, 2):
        start = time.perf_counter()
        rp.check(files, jobs=jobs)
        elapsed = time.perf_counter() - start
        print(
            f"rp.check of {len(files)} pybullet URDF files, jobs={jobs}: {elapsed:.1f} s "
            f"({len(files) / elapsed:.0f} files/s)"
        )


if __name__ == "__main__":
    main()
