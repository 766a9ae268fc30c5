"""Progress of long work: a status line on a terminal, and the reports of work deep inside
the library.

:class:`Status` is a one-line status on a terminal for work that may take more than a second
(model set-up, MuJoCo's compile, writing a page, reading a STEP assembly), and nothing at all
in a log:

>>> with Status("setting up the simulation", enabled=True) as status:
...     build()
...     status.update("MuJoCo compiles 1000 bodies")
...     compile()

The line appears only when ``stream`` (default ``sys.stderr``) is a terminal and the work has
lasted ``delay`` seconds (1 s); a thread redraws it with the elapsed time every ``interval``
seconds (MuJoCo's compile releases the GIL, so the line moves while it runs) and erases it at
the end. Off a terminal (a pipe, a file, CI logs) nothing is written.

Work deep inside the library (a STEP assembly's solids, measured inside a body's
construction, seconds each for real parts) cannot reach a status line: it calls
:func:`report` for each step, and a caller that wants to follow it (the command line: a
:class:`Status`) sets a reporter for a block with :func:`reporting`. Without one, :func:`report`
does nothing.
"""

from __future__ import annotations

import contextvars
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import TracebackType
from typing import IO

__all__ = ["Reporter", "Status", "report", "reporting"]

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


class Status:
    """A status line (see the module docstring); a context manager."""

    def __init__(
        self,
        message: str,
        *,
        enabled: bool = True,
        delay: float = 1.0,
        interval: float = 0.5,
        stream: IO[str] | None = None,
    ) -> None:
        self.message = message
        self._stream = sys.stderr if stream is None else stream
        self._active = enabled and _is_terminal(self._stream)
        self._delay = delay
        self._interval = interval
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._started = 0.0
        #: Set once the line has been drawn (tests wait on it).
        self.shown = threading.Event()

    def update(self, message: str) -> None:
        """Change the text (the next redraw shows it)."""
        with self._lock:
            self.message = message

    def __enter__(self) -> Status:
        if self._active:
            self._started = time.monotonic()
            self._thread = threading.Thread(target=self._run, name="rigidparts-status", daemon=True)
            self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._thread is None:
            return
        self._stop.set()
        self._thread.join()
        if self.shown.is_set():
            with self._lock:
                self._stream.write("\r\x1b[K")  # erase the line
                self._stream.flush()

    def _run(self) -> None:
        if self._stop.wait(self._delay):
            return
        while True:
            with self._lock:
                elapsed = time.monotonic() - self._started
                self._stream.write(f"\r{self.message} ({elapsed:.0f} s)\x1b[K")
                self._stream.flush()
            self.shown.set()
            if self._stop.wait(self._interval):
                return


def _is_terminal(stream: IO[str]) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False
