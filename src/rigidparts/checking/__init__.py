"""Checking and repairing the inertials of robot description files (URDF, MJCF, SDFormat, USD).

``rp.check(path)`` reads each file with its reader (:mod:`rigidparts.formats`) and returns a
:class:`~.findings.CheckReport`: per link the declared mass, centre of mass and inertia, their
validity by MuJoCo's, Drake's and rigidparts' rules, the same quantities computed exactly from
the link's own geometry (:mod:`.geometry`: collision, else visual; overlapping pieces unioned),
their ratios, and graded findings with diagnosed causes (:mod:`.diagnose`). ``engines=True``
also loads the file in every installed engine (:mod:`.engines`) and lists what each got.
:func:`.fix.fix` writes a repaired copy.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ..errors import ParameterError
from ..formats import read_description
from .findings import CheckReport, FileReport, Finding, LinkRecord

__all__ = ["CheckReport", "FileReport", "Finding", "LinkRecord", "check", "check_description"]


def check_description(description: Any) -> FileReport:
    """The :class:`FileReport` of a description already read."""
    from .diagnose import Tree, diagnose_link
    from .geometry import link_geometry

    report = FileReport(
        description.path, description.format, notes=list(description.notes),
        description=description,
    )  # fmt: skip
    tree = Tree(description)
    for link in description.links.values():
        report.links.append(diagnose_link(description, link, link_geometry(link), tree))
    return report


def check(
    path: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    *,
    search_path: Iterable[str | os.PathLike[str]] = (),
    engines: bool = False,
    progress: Callable[[int, int, str], None] | None = None,
    jobs: int = 1,
) -> CheckReport:
    """Check the inertials of one file or several (module docstring).

    A file that cannot be read is in the report with ``error`` set (one line naming the file,
    the element and the rule) and no links; the report's ``status`` is then 2. ``progress``,
    when given, is called as ``progress(index, count, path)`` before each file. ``jobs > 1``
    checks the files in that many worker processes (files are independent; the reports come
    back in the files' order, without their parsed ``description``, so they cannot be repaired
    from: :func:`.fix.fix` takes a report made with ``jobs=1``).
    """
    paths = [path] if isinstance(path, str | os.PathLike) else list(path)
    folders = tuple(search_path)
    if jobs > 1 and len(paths) > 1:
        return CheckReport(_in_processes(paths, folders, engines, progress, jobs))
    files: list[FileReport] = []
    for index, item in enumerate(paths):
        if progress is not None:
            progress(index, len(paths), os.fspath(item))
        files.append(_check_file(item, folders, engines))
    return CheckReport(files)


def _check_file(item: Any, folders: tuple[Any, ...], engines: bool) -> FileReport:
    """One file's report (an unreadable file: its one-line error)."""
    try:
        description = read_description(item, search_path=folders)  # formats' one reader
    except (ParameterError, OSError, ImportError) as exc:
        message = str(exc) if isinstance(exc, ParameterError) else f"{item}: {exc}"
        return FileReport(os.fspath(item), None, error=" ".join(message.split()))
    report = check_description(description)
    if engines:
        report.engines = _engines(item, folders, report)
    return report


def _check_file_in_worker(item: Any, folders: tuple[Any, ...], engines: bool) -> FileReport:
    """:func:`_check_file` in a worker process: the report without its parsed description
    (the parse tree stays in the worker)."""
    import warnings

    warnings.simplefilter("ignore")  # the parent says what matters, once
    report = _check_file(item, folders, engines)
    report.description = None
    return report


def _in_processes(
    paths: list[Any],
    folders: tuple[Any, ...],
    engines: bool,
    progress: Callable[[int, int, str], None] | None,
    jobs: int,
) -> list[FileReport]:
    """The files' reports from ``jobs`` worker processes, in the files' order."""
    from concurrent.futures import ProcessPoolExecutor
    from functools import partial

    work = partial(_check_file_in_worker, folders=folders, engines=engines)
    files: list[FileReport] = []
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for index, report in enumerate(pool.map(work, paths, chunksize=4)):
            if progress is not None:
                progress(index, len(paths), os.fspath(paths[index]))
            files.append(report)
    return files


def _engines(path: Any, folders: tuple[Any, ...], report: FileReport) -> Any:
    """What every installed engine read, against rigidparts' reading (:mod:`.engines`)."""
    from .engines import compare, engine_readings

    readings = engine_readings(path, search_path=folders, description=report.description)
    reference = {}
    for link in report.links:
        declared = link.declared
        if declared is None:
            continue
        reference[link.name] = (
            declared["mass"],
            declared["center_of_mass"],
            declared["inertia"],
        )
    disagreements = compare(readings, reference)
    return {
        "readings": {
            engine: {
                "error": reading.error,
                "skipped": reading.skipped,
                "version": reading.version,
                "notes": list(reading.notes),
                "links": {
                    name: {
                        "mass": got.mass,
                        "center_of_mass": got.center_of_mass.tolist(),
                        "inertia": got.inertia.tolist(),
                    }
                    for name, got in reading.links.items()
                },
                "merged": {name: merged.into for name, merged in reading.merged.items()},
            }
            for engine, reading in readings.items()
        },
        "disagreements": [
            {
                "engine": d.engine,
                "link": d.link,
                "quantity": d.quantity,
                "relative": d.relative,
                "cause": d.cause_code,
                "text": str(d),
            }
            for d in disagreements
        ],
    }
