"""Writing files safely: nothing is ever half written, clobbered or opened up.

Every file rigidparts writes goes through :func:`atomic_path` (or :func:`atomic_write`, or
:func:`atomic_files` for a model file with a folder of meshes):

- :func:`check_output` first, before any work: the path is not a folder, not read-only (unless
  ``force``), and its folder exists or can be made (a missing parent folder is created);
- the content goes to a temporary file in the target's folder, is flushed to disk and then
  renamed over the target, so a reader sees either the old file or the whole new one;
- a symlink given as the output is written through (its target is replaced, the link stays);
  an existing file keeps its permissions (a 0600 file stays 0600), a new one gets the usual
  ``0666 & ~umask``;
- temporary files are removed on any error, on Ctrl-C and on SIGTERM (turned into
  :class:`Terminated` while a write is under way, where the default would kill the process);
- an :class:`OSError` names the user's path, never the temporary one
  (``out.stl: No space left on device``).

:func:`atomic_files` stages a model file and its companion folder (``robot.urdf`` and
``robot_meshes/``) in one temporary folder beside the target and moves them into place with
Ctrl-C and SIGTERM held back: the folder first (swapped in one step where the system can,
Linux's ``renameat2(RENAME_EXCHANGE)``), the model file last, so a failed or interrupted export
leaves the old export untouched.

Temporary files and staging folders are named ``.<name>.rigidparts-partial.XXXXXXXX.tmp``
(a file keeps its suffix after ``.tmp``) and locked (``flock``) by the process writing them, for
as long as it does. A process killed outright (SIGKILL, a power cut) cannot remove them; the
next write into the same folder does (:func:`remove_stale_partials`): only entries with that
name, owned by this user, older than the running process and locked by no one.
"""

from __future__ import annotations

import contextvars
import errno
import os
import re
import shutil
import signal
import stat
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

__all__ = [
    "Terminated",
    "atomic_files",
    "atomic_path",
    "atomic_write",
    "check_output",
    "clear_interrupt",
    "forcing",
    "interrupted",
    "note_interrupt",
    "remove_stale_partials",
    "same_file",
    "stop_if_interrupted",
    "terminate_as_exception",
]

#: Whether writes may replace read-only files (``--force`` on the command line): the default
#: of every ``force=None`` below.
_FORCE: contextvars.ContextVar[bool] = contextvars.ContextVar("rigidparts_force", default=False)

_READ_ONLY = "is read-only: not replaced (give --force, or force=True, to replace it)"


#: The signal (SIGINT or SIGTERM) the command line's handlers recorded: one that a library
#: swallowed (trimesh catches ``BaseException`` around some imports) still stops every later
#: write, and the command.
_PENDING: list[int] = []


def note_interrupt(signum: int = signal.SIGINT) -> None:
    """Record Ctrl-C (or SIGTERM): no file is committed after it (the command line's signal
    handlers call it before raising)."""
    if not _PENDING:
        _PENDING.append(int(signum))


def interrupted() -> int | None:
    """The signal recorded by :func:`note_interrupt` (None when none)."""
    return _PENDING[0] if _PENDING else None


def clear_interrupt() -> None:
    """Forget a recorded signal (at the start of a command)."""
    _PENDING.clear()


def stop_if_interrupted() -> None:
    """Raise :class:`KeyboardInterrupt` (or :class:`Terminated` for SIGTERM) when a signal was
    recorded by :func:`note_interrupt`."""
    if _PENDING:
        raise KeyboardInterrupt if _PENDING[0] == signal.SIGINT else Terminated(_PENDING[0])


class Terminated(SystemExit):
    """SIGTERM received while rigidparts was writing (exit status 143): raised instead of the
    default instant death so that temporary files are cleaned up."""

    def __init__(self, signum: int = signal.SIGTERM) -> None:
        super().__init__(128 + int(signum))


@contextmanager
def forcing(force: bool = True) -> Iterator[None]:
    """Within the block, writes without an explicit ``force`` may replace read-only files."""
    token = _FORCE.set(bool(force))
    try:
        yield
    finally:
        _FORCE.reset(token)


def _raise_terminated(signum: int, frame: Any) -> None:
    raise Terminated(signum)


@contextmanager
def terminate_as_exception() -> Iterator[None]:
    """Within the block, SIGTERM raises :class:`Terminated` (so ``finally`` clauses run)
    instead of killing the process; only in the main thread and only where SIGTERM has its
    default action (a handler of the caller's is left alone)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    try:
        previous = signal.getsignal(signal.SIGTERM)
    except (ValueError, OSError):  # pragma: no cover - no signals here
        yield
        return
    if previous is not signal.SIG_DFL:
        yield
        return
    signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextmanager
def _signals_held() -> Iterator[None]:
    """Ctrl-C and SIGTERM wait until the block is done (a commit of several renames, the
    creation of a temporary file and its name, a clean-up are not cut in the middle); they are
    delivered when it ends. So does SIGALRM, by which the command line delivers a Ctrl-C that
    came during an import: it may fire after the interrupt was raised some other way, and must
    not cut the clean-up that interrupt started."""
    held = {signal.SIGINT, signal.SIGTERM, signal.SIGALRM}
    can = (
        hasattr(signal, "pthread_sigmask") and threading.current_thread() is threading.main_thread()
    )
    if not can:  # pragma: no cover - not POSIX
        yield
        return
    # The mask holds the signals from this thread; the kernel may still hand one to another
    # thread (numpy's BLAS threads, say), whose Python handler then runs here anyway: the
    # command line's handlers also read signals_held() and defer while it is true.
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    _HELD.append(True)
    try:
        yield
    finally:
        _HELD.pop()
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


#: One entry per :func:`_signals_held` block under way (main thread only).
_HELD: list[bool] = []


def signals_held() -> bool:
    """True inside a block that Ctrl-C and SIGTERM must not cut (a commit, the creation of a
    temporary file, a clean-up): a signal handler should record the signal and deliver it
    after (the command line retries every 20 ms)."""
    return bool(_HELD)


def _user_error(exc: OSError, user: str | os.PathLike[str], ours: tuple[Path, ...]) -> OSError:
    """``exc`` with the user's path as its file name when it names none, or one of ``ours``
    (the target, a temporary file or folder, or anything inside one): the user never sees a
    temporary name."""
    named = exc.filename
    if named is not None:
        where = Path(os.path.abspath(os.fsdecode(named)))
        if not any(where == p or where.is_relative_to(p) for p in ours):
            return exc
    if exc.errno is None:
        return OSError(f"{os.fspath(user)}: {exc}")
    return OSError(exc.errno, exc.strerror or os.strerror(exc.errno), os.fspath(user))


def _is_read_only(info: os.stat_result, path: Path) -> bool:
    # No write bit at all counts even for root (whom os.access always lets write).
    return not (info.st_mode & 0o222) or not os.access(path, os.W_OK)


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """True when ``a`` and ``b`` are the same file (symlinks resolved; hard links too)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def check_output(
    path: str | os.PathLike[str], *, force: bool | None = None, folder_too: str | None = None
) -> Path:
    """Check, before any work, that ``path`` can be written; returns the path to write (a
    symlink's target). Raises an :class:`OSError` naming ``path``:

    - ``IsADirectoryError`` when it is a folder;
    - ``PermissionError`` when it is a read-only file (no write bit, or not writable by this
      user) and ``force`` is false (default: :func:`forcing`), or its folder is not writable;
    - ``NotADirectoryError`` when a part of its folder is a file.

    A missing folder is fine: the write creates it. ``folder_too`` names a companion folder
    beside the target (``robot_meshes``) that must be a folder if it exists.
    """
    force = _FORCE.get() if force is None else force
    user = os.fspath(path)
    if not user:
        raise FileNotFoundError(errno.ENOENT, "an empty file name", user)
    target = Path(os.path.realpath(user))
    try:
        info = target.stat()
    except (FileNotFoundError, NotADirectoryError):  # the folder part is checked below
        info = None
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, user) from None
    if info is not None:
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(errno.EISDIR, "is a folder: give a file name", user)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, "is not a regular file (not replaced)", user)
        if not force and _is_read_only(info, target):
            raise PermissionError(errno.EACCES, _READ_ONLY, user)
    folder = target.parent
    existing = folder
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, f"{existing} is not a folder", user)
    if not os.access(existing, os.W_OK | os.X_OK):
        raise PermissionError(errno.EACCES, f"cannot write in the folder {existing}", user)
    if folder_too is not None:
        companion = folder / folder_too
        if companion.exists() and not companion.is_dir():
            raise NotADirectoryError(
                errno.ENOTDIR, f"{companion} (for its meshes) is not a folder", user
            )
    return target


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _new_mode(target: Path) -> tuple[int, tuple[int, int] | None]:
    """The mode (and owner) the written file gets: the existing file's, or ``0666 & ~umask``."""
    try:
        info = target.stat()
    except OSError:
        return 0o666 & ~_umask(), None
    return stat.S_IMODE(info.st_mode), (info.st_uid, info.st_gid)


def _apply_mode(tmp: Path, target: Path) -> None:
    mode, owner = _new_mode(target)
    if owner is not None and hasattr(os, "chown"):
        info = tmp.stat()
        if (info.st_uid, info.st_gid) != owner:
            try:
                os.chown(tmp, *owner)
            except OSError:
                pass  # not allowed to give it away: it stays ours
    os.chmod(tmp, mode)


def _fsync(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # pragma: no cover
        return
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.EBADF):  # some file systems cannot sync
            raise
    finally:
        os.close(fd)


#: The mark in the name of every temporary file and staging folder (module docstring).
PARTIAL_MARK = "rigidparts-partial"

#: The names :func:`_temporary_file` gives (tempfile's 8 random characters); nothing else
#: is ever removed by :func:`remove_stale_partials`.
_PARTIAL_NAME = re.compile(
    r"^\..+\." + re.escape(PARTIAL_MARK) + r"\.[a-z0-9_]{8}\.tmp(\.[^./]*)?$", re.DOTALL
)

#: Characters of the target's name kept in a temporary name (a 255-byte name limit).
_NAME_KEPT = 100


def _process_start() -> float:
    """When this process started (s since the epoch), never later than it did: on Linux from
    ``/proc/self/stat`` (field 22: clock ticks from boot to the start, rounded down) and the
    clock since boot now (``CLOCK_BOOTTIME``), so to a tick (10 ms); elsewhere, when this
    module was imported."""
    try:
        with open("/proc/self/stat", encoding="ascii") as handle:
            fields = handle.read().rpartition(")")[2].split()
        ticks = int(fields[19])  # field 22 of the whole line: starttime
        since_boot = time.clock_gettime(time.CLOCK_BOOTTIME) - ticks / os.sysconf("SC_CLK_TCK")
        return min(time.time() - since_boot, _IMPORTED)
    except (OSError, ValueError, IndexError, AttributeError):
        return _IMPORTED


_IMPORTED = time.time()


def _lock(path: Path) -> int | None:
    """An open descriptor of ``path`` (a file or a folder) holding an exclusive ``flock``
    (None where the system has none): the mark of a temporary in use. Closing it (also when
    the process dies) releases the lock."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return None
    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise
    return fd


def _unlock(fd: int | None) -> None:
    if fd is not None:
        os.close(fd)


#: Folders already cleaned by this process (once is enough: what a killed process left there
#: before this one started is gone after the first clean-up).
_CLEANED: set[str] = set()


def remove_stale_partials(folder: str | os.PathLike[str]) -> list[Path]:
    """Remove what killed rigidparts processes left in ``folder``: temporary files and staging
    folders named as :func:`_temporary_file` names them (``.<name>.rigidparts-partial.
    XXXXXXXX.tmp...``), owned by this user, last changed before this process started, and
    locked by no one (a process writing one holds its lock; a dead one holds none). Anything
    else is left alone, and so is anything that cannot be checked. Best effort, never an
    error; once per folder per process. Returns what was removed."""
    where = os.path.realpath(folder)
    if where in _CLEANED:
        return []
    _CLEANED.add(where)
    try:
        import fcntl  # noqa: F401  (no locks, no way to tell a live writer: leave it all)
    except ImportError:  # pragma: no cover - not POSIX
        return []
    started = _process_start()
    removed: list[Path] = []
    try:
        entries = [e for e in os.scandir(where) if _PARTIAL_NAME.match(e.name)]
    except OSError:
        return removed
    for entry in entries:
        try:
            info = entry.stat(follow_symlinks=False)
            if stat.S_ISLNK(info.st_mode) or info.st_mtime >= started:
                continue
            if hasattr(os, "getuid") and info.st_uid != os.getuid():
                continue
            path = Path(entry.path)
            with _signals_held():
                fd = _lock(path)  # BlockingIOError: a live writer holds it
                try:
                    if stat.S_ISDIR(info.st_mode):
                        shutil.rmtree(path)
                    else:
                        path.unlink()
                finally:
                    _unlock(fd)
            removed.append(path)
        except OSError:
            continue
    return removed


def _temporary_file(target: Path, *, folder: bool = False) -> tuple[Path, int | None]:
    """A new hidden temporary file (or folder) beside ``target`` and the descriptor holding
    its lock (:func:`_lock`; close it with :func:`_unlock` once the temporary is gone or
    renamed): ``.<stem>.rigidparts-partial.XXXXXXXX.tmp<suffix>`` (the suffix kept for writers
    that read the format from it), a folder ``.<name>.rigidparts-partial.XXXXXXXX.tmp``. Stale
    ones of killed processes in that folder are removed first
    (:func:`remove_stale_partials`)."""
    remove_stale_partials(target.parent)
    try:
        if folder:
            name = tempfile.mkdtemp(
                prefix=f".{target.name[:_NAME_KEPT]}.{PARTIAL_MARK}.",
                suffix=".tmp",
                dir=target.parent,
            )
        else:
            fd, name = tempfile.mkstemp(
                prefix=f".{target.stem[:_NAME_KEPT]}.{PARTIAL_MARK}.",
                suffix=f".tmp{target.suffix[:_NAME_KEPT]}",
                dir=target.parent,
            )
            os.close(fd)
    except OSError as exc:  # the error would name a temporary name the user never gave
        raise OSError(exc.errno, exc.strerror, os.fspath(target)) from None
    try:
        return Path(name), _lock(Path(name))
    except OSError:
        if folder:
            shutil.rmtree(name, ignore_errors=True)
        else:
            Path(name).unlink(missing_ok=True)
        raise


@contextmanager
def atomic_path(path: str | os.PathLike[str], *, force: bool | None = None) -> Iterator[Path]:
    """A temporary path beside ``path`` (beside its target for a symlink), renamed onto it if
    the block succeeds; removed on error, Ctrl-C or SIGTERM.

    For writers that want a file name (matplotlib, trimesh, imageio). The temporary keeps the
    target's suffix so format detection by suffix still works. ``path`` is checked first
    (:func:`check_output`; ``force`` allows replacing a read-only file); its folder is created
    when missing. The file keeps an existing file's mode. An :class:`OSError` names ``path``.
    """
    target = check_output(path, force=force)
    tmp: Path | None = None
    lock: int | None = None
    try:
        with terminate_as_exception():
            target.parent.mkdir(parents=True, exist_ok=True)
            with _signals_held():  # created and named, or neither
                tmp, lock = _temporary_file(target)
            yield tmp
            stop_if_interrupted()
            _fsync(tmp)
            _apply_mode(tmp, target)
            os.replace(tmp, target)
            tmp = None
    except OSError as exc:
        ours = (target, tmp) if tmp is not None else (target,)
        raise _user_error(exc, path, ours) from None
    finally:
        with _signals_held():
            if tmp is not None:
                tmp.unlink(missing_ok=True)
            _unlock(lock)


def atomic_write(
    path: str | os.PathLike[str], data: str | bytes, *, force: bool | None = None
) -> Path:
    """Write ``data`` (text as UTF-8, or bytes) to ``path`` atomically (:func:`atomic_path`);
    returns the path."""
    with atomic_path(path, force=force) as tmp:
        mode = "wb" if isinstance(data, bytes) else "w"
        kwargs = {} if isinstance(data, bytes) else {"encoding": "utf-8", "newline": "\n"}
        handle: IO
        with open(tmp, mode, **kwargs) as handle:
            handle.write(data)
    return Path(path)


# -- a model file and its folder, all or nothing ------------------------------------------------


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one step (Linux ``renameat2(RENAME_EXCHANGE)``); False where the
    system cannot."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    result = renameat2(
        at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), ctypes.c_uint(rename_exchange)
    )
    if result == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
        return False
    raise OSError(code, os.strerror(code), os.fspath(b))


def _keep_other_entries(old: Path, new: Path) -> None:
    """Hard-link (or copy) into ``new`` every entry of ``old`` it does not have: files the user
    put in the folder, meshes of bodies no longer in the model, stay as they were."""
    for entry in old.iterdir():
        destination = new / entry.name
        if destination.exists() or destination.is_symlink():
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.copytree(entry, destination, symlinks=True, copy_function=_link_or_copy)
        else:
            _link_or_copy(entry, destination)


def _link_or_copy(source: Any, destination: Any) -> None:
    if os.path.islink(source):
        os.symlink(os.readlink(source), destination)
        return
    try:
        os.link(source, destination)
    except OSError:
        shutil.copy2(source, destination)


def _commit(file: Path, target: Path, folder: Path | None, companion: Path) -> None:
    """Move a staged folder (if any) onto ``companion``, then the staged file onto ``target``;
    if the file cannot be moved, the old folder is put back (nothing changes)."""
    undo: Callable[[], None] = lambda: None  # noqa: E731
    if folder is not None:
        old = folder.with_name(folder.name + ".old")
        if not companion.exists():
            os.rename(folder, companion)
            undo = lambda: os.rename(companion, folder)  # noqa: E731
        elif _exchange(folder, companion):
            undo = lambda: _exchange(folder, companion) or None  # noqa: E731
        else:
            os.rename(companion, old)
            try:
                os.rename(folder, companion)
            except OSError:
                os.rename(old, companion)
                raise

            def undo() -> None:
                os.rename(companion, folder)
                os.rename(old, companion)

    try:
        os.replace(file, target)
    except OSError:
        undo()
        raise


@contextmanager
def atomic_files(
    path: str | os.PathLike[str], folder_name: str, *, force: bool | None = None
) -> Iterator[tuple[Path, Path]]:
    """Stage a file and a companion folder; both replace the old ones only if the block
    succeeds (nothing changes on error, Ctrl-C or SIGTERM).

    Yields ``(file, folder)``: temporary paths in one staging folder beside the target (a
    symlink's target), to be written by the block. When the block leaves ``folder`` missing
    or empty, the existing companion folder (``target.parent / folder_name``) is left alone;
    otherwise it is replaced by the new one, keeping every entry of the old one that the new
    one does not have. Then the file is renamed over the target, last. ``path`` is checked
    first (:func:`check_output`); the folder of the target is created when missing; the file
    keeps an existing file's mode; an :class:`OSError` names ``path``.
    """
    target = check_output(path, force=force, folder_too=folder_name)
    companion = Path(os.path.realpath(target.parent / folder_name))  # a symlink: its target
    staging: Path | None = None
    lock: int | None = None
    try:
        with terminate_as_exception():
            target.parent.mkdir(parents=True, exist_ok=True)
            with _signals_held():  # created and named, or neither
                staging, lock = _temporary_file(target, folder=True)
            staged_file = staging / target.name
            staged_folder = staging / folder_name
            yield staged_file, staged_folder
            if not staged_file.exists():
                raise FileNotFoundError(errno.ENOENT, "nothing was written", os.fspath(path))
            stop_if_interrupted()
            _fsync(staged_file)
            _apply_mode(staged_file, target)
            has_folder = staged_folder.is_dir() and any(staged_folder.iterdir())
            if has_folder and companion.is_dir():
                _keep_other_entries(companion, staged_folder)
            with _signals_held():
                _commit(staged_file, target, staged_folder if has_folder else None, companion)
    except OSError as exc:
        ours = (target, companion) + ((staging,) if staging is not None else ())
        raise _user_error(exc, path, ours) from None
    finally:
        with _signals_held():  # the whole folder goes, whatever signal comes meanwhile
            if staging is not None:
                shutil.rmtree(staging, ignore_errors=True)
            _unlock(lock)
