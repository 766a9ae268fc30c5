"""Progress of long work deep inside the library, told to whoever asked for it.

Reading a STEP assembly of real parts takes seconds per solid (OpenCascade's adaptive
integration over B-spline faces), and it happens inside a body's construction, far below the
code that could show anything. That code reports each step with :func:`report`; a caller that
wants to see it (the command line: one line on a terminal's stderr, rewritten in place) sets a
reporter for a block with :func:`reporting`. Without one, :func:`report` does nothing.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["Reporter", "report", "reporting"]

#: ``reporter(done, total, what)``: ``done`` of ``total`` steps are finished and ``what`` is
#: under way; called once more with ``done == total`` and ``what == ""`` when all are.
Reporter = Callable[[int, int, str], None]

_REPORTER: contextvars.ContextVar[Reporter | None] = contextvars.ContextVar(
    "rigidparts_progress", default=None
)


@contextmanager
def reporting(reporter: Reporter | None) -> Iterator[None]:
    """Within the block, :func:`report` calls ``reporter`` (None: nothing is reported)."""
    token = _REPORTER.set(reporter)
    try:
        yield
    finally:
        _REPORTER.reset(token)


def report(done: int, total: int, what: str = "") -> None:
    """Tell the block's reporter (if any) that ``done`` of ``total`` steps are finished and
    ``what`` is under way (``""`` when ``done == total``)."""
    reporter = _REPORTER.get()
    if reporter is not None:
        reporter(done, total, what)
