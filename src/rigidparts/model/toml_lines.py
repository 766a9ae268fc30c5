"""Line numbers of tables and keys in TOML text, for error messages (:mod:`tomllib` gives
none): the model file reader (:mod:`.toml_format`) reports ``model.toml:9: bodies.arm.lenght``.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["LineIndex"]


class LineIndex:
    """Best-effort line numbers of tables and keys in TOML text (tomllib gives none).

    Tracks the current ``[table]`` / ``[[array]]`` header (counting array entries) and records
    the first line of each ``key = ...``, skipping the continuation lines of multi-line arrays
    and inline tables.
    """

    _HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
    _KEY = re.compile(r"^\s*([A-Za-z0-9_\-\"'. ]+?)\s*=")

    def __init__(self, text: str) -> None:
        self.lines: dict[tuple[Any, ...], int] = {}
        table: tuple[Any, ...] = ()
        counts: dict[tuple[str, ...], int] = {}
        depth = 0
        for number, line in enumerate(text.splitlines(), start=1):
            code = _strip_comment(line)
            if depth == 0:
                header = self._HEADER.match(code)
                if header and code.lstrip().startswith("["):
                    parts = _split_key(header.group(2))
                    if header.group(1) == "[[":
                        index = counts.get(parts, 0)
                        counts[parts] = index + 1
                        table = (*parts, index)
                    else:
                        table = parts
                    self.lines.setdefault(table, number)
                    continue
                key = self._KEY.match(code)
                if key:
                    self.lines.setdefault((*table, *_split_key(key.group(1))), number)
            depth = max(0, depth + _bracket_balance(code))

    def line(self, *path: Any) -> int | None:
        """The line of ``path`` (e.g. ``("bodies", "arm", "length")``, ``("joints", 1)``), or of
        its nearest recorded ancestor; None when nothing matches."""
        while path:
            if path in self.lines:
                return self.lines[path]
            path = path[:-1]
        return None


def _strip_comment(line: str) -> str:
    out, quote = [], None
    for char in line:
        if quote:
            if char == quote:
                quote = None
        elif char in "\"'":
            quote = char
        elif char == "#":
            break
        out.append(char)
    return "".join(out)


def _split_key(text: str) -> tuple[str, ...]:
    return tuple(part.strip().strip("\"'") for part in text.split("."))


def _bracket_balance(code: str) -> int:
    balance, quote = 0, None
    _, _, value = code.partition("=")
    for char in value if "=" in code else code:
        if quote:
            if char == quote:
                quote = None
        elif char in "\"'":
            quote = char
        elif char in "[{":
            balance += 1
        elif char in "]}":
            balance -= 1
    return balance
