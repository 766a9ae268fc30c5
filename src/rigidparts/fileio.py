"""Writing files safely: nothing is ever half written.

Every file rigidparts writes goes through :func:`atomic_write`: the content goes to a temporary
file in the same folder, is flushed to disk, and is then renamed over the target, so a reader
sees either the old file or the whole new one, never a partial one.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

__all__ = ["atomic_path", "atomic_write"]


@contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """A temporary path beside ``path``; renamed onto ``path`` if the block succeeds.

    For writers that want a file name (matplotlib, trimesh, imageio). The temporary keeps the
    target's suffix so format detection by suffix still works. On error it is removed.
    """
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise FileNotFoundError(f"{target}: folder {folder} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.stem}.", suffix=target.suffix, dir=folder)
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        os.chmod(tmp_path, 0o644)
        os.replace(tmp_path, target)
    except BaseException:
        tmp_path.unlink(missing_ok=True)
        raise


def atomic_write(path: str | os.PathLike[str], data: str | bytes) -> Path:
    """Write ``data`` (text as UTF-8, or bytes) to ``path`` atomically; returns the path."""
    target = Path(path)
    with atomic_path(target) as tmp:
        mode = "wb" if isinstance(data, bytes) else "w"
        kwargs = {} if isinstance(data, bytes) else {"encoding": "utf-8", "newline": "\n"}
        handle: IO
        with open(tmp, mode, **kwargs) as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
    return target
