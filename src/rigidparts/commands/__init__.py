"""The ``rigidparts`` command line: one module per command, thin over the library.

- ``rigidparts SHAPE [options] [--json]`` (:mod:`.body`): one command per shape of the registry
  (:data:`rigidparts.shapes.SHAPES`), named by the specification's ``command`` (``meshbody``
  for the shape ``mesh``, whose name the ``mesh`` command holds), its options read from the
  shape's specification (:mod:`._options`: a parameter of kind ``path`` is a positional
  argument, ``rigidparts meshbody FILE --units mm``): a body's mass properties and frames;
- ``rigidparts materials`` (:mod:`.materials`): the material table;
- ``rigidparts export`` / ``simulate`` (:mod:`.export`, :mod:`.simulate`): model files;
- ``rigidparts mesh`` / ``view`` (:mod:`.mesh`, :mod:`.view`): meshes and pictures.
- ``rigidparts tolerance SHAPE`` (:mod:`.tolerance`): Monte-Carlo tolerance studies.

Each command module has ``register(subparsers)`` and a ``run(args) -> int`` handler, and imports
nothing heavy at module level: matplotlib, trimesh, mujoco, numba, scipy and pint load in the
handlers that need them, so ``rigidparts SHAPE --json`` starts fast.

Bad input: one line ``error: ...`` on stderr and exit status 2, never a traceback; a missing
extra (trimesh, matplotlib, mujoco) is one line naming what to install; Ctrl-C is one line and
exit status 130, SIGTERM one line and 143 (temporary files removed on both).
"""

from __future__ import annotations

import argparse
import contextlib
import re
import signal
import sys
import textwrap
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from .. import progress
from ..errors import ParameterError, merged_warnings
from ..fileio import (
    Terminated,
    clear_interrupt,
    forcing,
    interrupted,
    note_interrupt,
    signals_held,
    stop_if_interrupted,
    terminate_as_exception,
)
from ..shapes import SHAPES
from . import body, check, export, materials, mesh, simulate, tolerance, view
from ._options import Parser, UsageError, body_from_args, format_table

__all__ = [
    "COMMANDS",
    "EXIT_USAGE",
    "UsageError",
    "body_from_args",
    "build_parser",
    "format_table",
    "main",
]

#: Exit status for bad input or usage.
EXIT_USAGE = 2

#: The commands beside the shapes' own, in help order: name -> module with ``register``. A
#: shape may not take one of these names (its body command would shadow the command).
COMMANDS = {
    "materials": materials,
    "export": export,
    "simulate": simulate,
    "mesh": mesh,
    "view": view,
    "tolerance": tolerance,
    "check": check,
}


def _examples() -> str:
    """Example command lines; the shape ones use the first shapes' own options (shapes that
    need a file are shown with one)."""
    specs = [s for s in SHAPES.values() if all(p.default is not None for p in s.params)]
    lines = [f"  rigidparts {spec.command}" for spec in specs[:1]]
    for spec in specs[:1]:
        length = next((p.name for p in spec.params if p.kind == "length"), None)
        option = f"--{length.replace('_', '-')} '250 mm' " if length else ""
        lines.append(f"  rigidparts {spec.command} {option}--material aluminium --json")
    for spec in specs[1:2]:
        axis = " --axis 0,0,1" if spec.axis else ""
        lines.append(f"  rigidparts {spec.command} --mass '2.5 kg'{axis}")
    for spec in [s for s in SHAPES.values() if any(p.kind == "path" for p in s.params)][:1]:
        # the unit of the file's coordinates (its other options have defaults)
        units = " --units mm" if any(p.name == "units" for p in spec.params) else ""
        lines.append(f"  rigidparts {spec.command} part.stl{units} --json")
    lines += [
        "  rigidparts materials",
        "  rigidparts simulate examples/pendulum.toml",
        "  rigidparts export examples/pendulum.toml -o pendulum.urdf",
    ]
    lines += [f"  rigidparts view {spec.command} -o {spec.name}.png" for spec in specs[-1:]]
    return "Examples:\n" + "\n".join(lines)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The full argument parser: one command per shape, then :data:`COMMANDS`; with ``only``
    naming one of them, that command alone (start-up: argparse builds every option of every
    command it is given)."""
    if only not in COMMANDS and only not in {spec.command for spec in SHAPES.values()}:
        only = None
    parser = Parser(
        prog="rigidparts",
        description=textwrap.fill(
            "Exact mass, centre of mass, inertia and frames of parametric rigid bodies "
            f"({', '.join(SHAPES)}), for multibody models; models of them exported to the "
            "engines' formats and simulated on MuJoCo; pictures and meshes. SI units "
            "throughout.",
            width=90,
        ),
        epilog=_examples() + "\n\nRun 'rigidparts COMMAND --help' for a command's options.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"rigidparts {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    body.register(sub, reserved=COMMANDS, only=only)
    for name, module in COMMANDS.items():
        if only is None or name == only:
            module.register(sub)
    return parser


def _version() -> str:
    from .. import __version__

    return __version__


#: A value that starts with a minus sign: a number (``-1``, ``-.5``, ``-1,0,0``) or
#: ``-inf`` / ``-nan`` / ``-infinity`` (refused or accepted by the library, not by argparse).
_NEGATIVE_VALUE = re.compile(r"^-(\.?\d|inf(inity)?\b|nan\b)", re.IGNORECASE)


def _attach_negative_values(argv: Sequence[str]) -> list[str]:
    """``--axis -1,0,0`` -> ``--axis=-1,0,0``, ``--length -inf`` -> ``--length=-inf``:
    argparse would read a value starting with ``-`` as an option."""
    out: list[str] = []
    for token in argv:
        if out and _NEGATIVE_VALUE.match(token) and out[-1].startswith("--") and "=" not in out[-1]:
            out[-1] = f"{out[-1]}={token}"
        else:
            out.append(token)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: runs the command of ``argv`` (default ``sys.argv[1:]``); returns the exit
    status (0 ok, 2 bad input or usage, 130 interrupted). Bad input prints one ``error:`` line
    on stderr, never a traceback. A signal recorded during the command is forgotten when it
    returns: it stopped this command, not the library calls a program makes after it."""
    clear_interrupt()
    shown = warnings.showwarning
    warnings.showwarning = _show_warning  # one "warning: ..." line, not Python's two
    try:
        return _run(argv)
    finally:
        warnings.showwarning = shown
        clear_interrupt()


def _show_warning(message: Any, category: Any, *args: Any, **kwargs: Any) -> None:
    """A library warning on the command line: one line on stderr."""
    print(f"warning: {' '.join(str(message).split())}", file=sys.stderr)


def _run(argv: Sequence[str] | None) -> int:
    """:func:`main` between its two :func:`~rigidparts.fileio.clear_interrupt` calls."""
    try:
        with _signals_noted(), terminate_as_exception():
            argv = _attach_negative_values(sys.argv[1:] if argv is None else argv)
            parser = build_parser(only=argv[0] if argv else None)
            args = parser.parse_args(argv)
            if args.command is None:
                parser.print_help()
                return EXIT_USAGE
            handler: Callable[[argparse.Namespace], int] = args.handler
            with (
                forcing(bool(getattr(args, "force", False))),
                merged_warnings(),  # one warning per file for a model's meshes
                _terminal_progress(),
            ):
                status = handler(args)
        stop_if_interrupted()  # a signal that a library swallowed: never report success
        return status
    except (UsageError, ParameterError) as exc:
        _error(str(exc))
        return EXIT_USAGE
    except BrokenPipeError:  # the reader left (``rigidparts box | head``): nothing to say
        _quiet_stdout()
        return 0
    except OSError as exc:
        _error(f"{exc.filename or ''}: {exc.strerror or exc}".lstrip(": "))
        return EXIT_USAGE
    except ImportError as exc:  # a missing extra (the library's message names it)
        _error(_missing_extra(exc))
        return EXIT_USAGE
    except KeyboardInterrupt:
        _error("interrupted")
        return EXIT_INTERRUPTED
    except Terminated as exc:
        _error("terminated")
        return int(exc.code or 143)


@contextlib.contextmanager
def _terminal_progress() -> Iterator[None]:
    """The library's progress reports (:func:`rigidparts.progress.report`: the solids of a STEP
    assembly) as a :class:`~rigidparts.progress.Status` line, ``[3/15] arm.step: solid
    'Handle'``: on a terminal only, once the work has lasted a second, erased when it is done
    or fails."""
    shown: list[progress.Status] = []  # the status line of the work under way, if any

    def show(done: int, total: int, what: str) -> None:
        if done < total:
            if not shown:
                shown.append(progress.Status("").__enter__())
            shown[0].update(f"[{done + 1}/{total}] {what}")
        elif shown:
            shown.pop().__exit__(None, None, None)

    try:
        with progress.reporting(show):
            yield
    finally:
        if shown:  # an error or Ctrl-C mid-way: the line is erased before its message
            shown.pop().__exit__(None, None, None)


def _quiet_stdout() -> None:
    """Point stdout at /dev/null, so that Python's flush at exit finds no closed pipe."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no real stdout (tests capture it): nothing to flush
        pass


def _importing(frame: Any) -> bool:
    """Whether ``frame`` runs inside an import (a module half imported stays broken, and some
    libraries catch ``BaseException`` around their imports)."""
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            return True
        frame = frame.f_back
    return False


def _on_signal(signum: int, frame: Any) -> None:
    """Ctrl-C or SIGTERM: recorded, then :class:`KeyboardInterrupt` or
    :class:`~rigidparts.fileio.Terminated`, once no import is under way and no file operation
    that must not be cut (:func:`~rigidparts.fileio.signals_held`) is (until then it is
    retried every 20 ms)."""
    note_interrupt(signum)
    if _importing(frame) or signals_held():
        signal.setitimer(signal.ITIMER_REAL, 0.02)
        return
    stop_if_interrupted()


def _on_alarm(signum: int, frame: Any) -> None:
    pending = interrupted()
    if pending is not None:
        _on_signal(pending, frame)


@contextlib.contextmanager
def _signals_noted() -> Iterator[None]:
    """Ctrl-C and SIGTERM are recorded (:func:`rigidparts.fileio.note_interrupt`) as well as
    raised (after any import under way), so that one swallowed by a library still stops the
    command and commits no file; only where the default handling is in place (an ignored
    SIGINT stays ignored) and in the main thread."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    defaults = {
        signal.SIGINT: signal.default_int_handler,
        signal.SIGTERM: signal.SIG_DFL,
        signal.SIGALRM: signal.SIG_DFL,
    }
    previous = {signum: signal.getsignal(signum) for signum in defaults}
    if previous[signal.SIGALRM] is not signal.SIG_DFL:
        yield
        return
    signal.signal(signal.SIGALRM, _on_alarm)
    for signum in (signal.SIGINT, signal.SIGTERM):
        if previous[signum] is defaults[signum]:
            signal.signal(signum, _on_signal)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            if signum != signal.SIGALRM:
                signal.signal(signum, handler)
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous[signal.SIGALRM])


#: Exit status on Ctrl-C (128 + SIGINT), as shells report it.
EXIT_INTERRUPTED = 130

#: The extra that brings each optional module.
_EXTRAS = {
    "trimesh": "mesh",
    "shapely": "mesh",
    "mapbox_earcut": "mesh",
    "matplotlib": "viz",
    "imageio": "viz",
    "imageio_ffmpeg": "viz",
    "tqdm": "viz",
    "mujoco": "sim",
    "numba": "batch",
    "dask": "batch",
}


def _missing_extra(exc: ImportError) -> str:
    """One line for a missing optional module: the library's own message when it names the
    extra, else the extra that brings the module."""
    message = str(exc)
    if "pip install" in message:
        return message
    module = (exc.name or "").partition(".")[0]
    extra = _EXTRAS.get(module)
    if extra is None:
        return f"{message} (a module rigidparts needs is missing: reinstall rigidparts)"
    return f"this needs {module}: pip install 'rigidparts[{extra}]' ({message})"


def _error(message: str) -> None:
    print(f"error: {' '.join(message.split())}", file=sys.stderr)
