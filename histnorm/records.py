"""The records of a document: what was read, where from, and its original bytes."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import histnorm.jsonio as jsonio
from histnorm.errors import HistnormError
from histnorm.model import Transcript

BOM = b"\xef\xbb\xbf"


class Layout(StrEnum):
    """How transcripts sit in a document."""

    JSON = "json"
    """One transcript in one JSON document."""
    JSON_ARRAY = "json-array"
    """A JSON array of transcripts."""
    JSONL = "jsonl"
    """One transcript per line (dataset style)."""
    JSONL_MESSAGES = "jsonl-messages"
    """One message per line; the whole file is one transcript (session-log style)."""


@dataclass(frozen=True, slots=True)
class Record:
    """One transcript of a document, or the error that kept it from being read."""

    transcript: Transcript | None
    error: HistnormError | None = None
    line: int | None = None
    pointer: str = ""
    raw: bytes = b""
    notes: tuple[HistnormError, ...] = ()
    """Broken lines the transcript was read around (a Claude Code session's torn lines)."""
    held: bool = False
    """Lint only: a broken line sits between whole ones, so no fix may rewrite the file."""


@dataclass(frozen=True, slots=True)
class Document:
    """The records of one file and what is needed to write it back."""

    layout: Layout
    records: tuple[Record, ...]
    raw: bytes
    style: jsonio.Style = jsonio.COMPACT
    bom: bool = False
    lines: tuple[tuple[bytes, Any], ...] = field(default=())
    tail: bytes = b""
    """The broken lines at the end of a session and all after them, written back as read."""
    tail_line: int = 0
    """The line number the tail starts at."""


def split_lines(data: bytes) -> Iterator[tuple[int, bytes, bytes]]:
    """Yield (1-based line number, line without its ending, ending) for each line."""
    start, number = 0, 0
    while start < len(data):
        number += 1
        end = data.find(b"\n", start)
        if end < 0:
            yield number, data[start:], b""
            return
        content_end = end - 1 if end > start and data[end - 1 : end] == b"\r" else end
        yield number, data[start:content_end], data[content_end : end + 1]
        start = end + 1
