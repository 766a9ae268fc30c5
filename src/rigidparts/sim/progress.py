"""A one-line status on a terminal for work that may take more than a second (model set-up,
MuJoCo's compile), and nothing at all in a log.

>>> with Status("setting up the simulation", enabled=True) as status:
...     build()
...     status.update("MuJoCo compiles 1000 bodies")
...     compile()

The line appears only when ``stream`` (default ``sys.stderr``) is a terminal and the work has
lasted ``delay`` seconds (1 s); a thread redraws it with the elapsed time every ``interval``
seconds (MuJoCo's compile releases the GIL, so the line moves while it runs) and erases it at
the end. Off a terminal (a pipe, a file, CI logs) nothing is written.
"""

from __future__ import annotations

import sys
import threading
import time
from types import TracebackType
from typing import IO

__all__ = ["Status"]


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
