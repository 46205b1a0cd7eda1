"""How many bytes each line of a Claude Code session takes (HN018).

A session read from a file is measured by the file's own bytes: the document layer, which
splits the file into lines anyway, hands the length of each (without its line ending)
to `keep_line_sizes` with the parsed lines, and `line_sizes` gives them back for that
very list. Any other list of lines (parsed by the caller, or written by a fix) is
measured as Claude Code writes a line: its compact JSON encoding (`JSON.stringify`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import histnorm.jsonio as jsonio
from histnorm.settings import CLAUDE_CODE_LINE_LIMIT

_KEPT: list[tuple[object, tuple[int, ...]]] = []
"""The parsed lines last read from a file, and the byte length of each (one entry)."""


def keep_line_sizes(lines: object, sizes: Sequence[int]) -> None:
    """Remember the byte length of each of `lines` (the parsed lines of a file) as the
    file holds it."""
    _KEPT[:] = [(lines, tuple(sizes))]


def line_sizes(lines: Sequence[Any]) -> tuple[int, ...]:
    """The size of each line in bytes: as its file holds it when `lines` is the list the
    document layer read (`keep_line_sizes`), else its compact JSON encoding."""
    if _KEPT and _KEPT[0][0] is lines and len(_KEPT[0][1]) == len(lines):
        return _KEPT[0][1]
    return tuple(len(jsonio.dumps(line)) for line in lines)


def has_long_line(lines: Sequence[Any]) -> bool:
    """Whether a line is longer than the default `Settings.claude_code_line_limit`."""
    return any(size > CLAUDE_CODE_LINE_LIMIT for size in line_sizes(lines))
