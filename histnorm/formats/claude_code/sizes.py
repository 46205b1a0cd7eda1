"""How many bytes each line of a Claude Code session takes (HN018).

A session read from a file is measured by the file's own bytes: the document layer, which
splits the file into lines anyway, reads them as `ReadLines`, which carry the length of
each (without its line ending). Any other list of lines (parsed by the caller, or written
by a fix) is measured as Claude Code writes a line: its compact JSON encoding
(`JSON.stringify`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import histnorm.jsonio as jsonio
from histnorm.last_answer import ReadLines
from histnorm.settings import CLAUDE_CODE_LINE_LIMIT


def line_sizes(lines: Sequence[Any]) -> tuple[int, ...]:
    """The size of each line in bytes: as its file holds it when `lines` is the list the
    document layer read (`ReadLines`), else its compact JSON encoding."""
    if isinstance(lines, ReadLines) and len(lines.sizes) == len(lines):
        return lines.sizes
    return tuple(len(jsonio.dumps(line)) for line in lines)


def has_long_line(lines: Sequence[Any]) -> bool:
    """Whether a line is longer than the default `Settings.claude_code_line_limit`."""
    return long_size(line_sizes(lines))


def long_size(sizes: Iterable[int]) -> bool:
    """Whether one of the line sizes `sizes` is over the default limit (HN018)."""
    return any(size > CLAUDE_CODE_LINE_LIMIT for size in sizes)
