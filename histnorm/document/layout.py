"""Layouts: how transcripts sit in a document, and the records read from it."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import field
from enum import StrEnum
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

import histnorm.jsonio as jsonio
from histnorm._record import record
from histnorm.errors import HistnormError

if TYPE_CHECKING:
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


@record(frozen=True, slots=True)
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


@record(frozen=True, slots=True)
class Document:
    """The records of one file and what is needed to write it back."""

    layout: Layout
    records: tuple[Record, ...]
    raw: bytes
    style: jsonio.Style = jsonio.COMPACT
    bom: bool = False
    lines: Sequence[tuple[int, int, Any]] = field(default=())
    """Message-per-line JSONL: each message line's start and end (its text, without its
    ending) in the body after any BOM, and its parsed value."""
    tail: bytes = b""
    """The broken lines at the end of a session and all after them, written back as read."""
    tail_line: int = 0
    """The line number the tail starts at."""


def split_lines(data: bytes) -> Iterator[tuple[int, bytes, bytes]]:
    """Yield (1-based line number, line without its ending, ending) for each line."""
    for number, start, end, stop in line_spans(data):
        yield number, data[start:end], data[end:stop]


def line_spans(data: bytes) -> Iterator[tuple[int, int, int, int]]:
    """Yield (1-based line number, start, end of its text, end of its ending) for each
    line of `data`, as `split_lines` splits it, without copying any."""
    start, number, size = 0, 0, len(data)
    while start < size:
        number += 1
        end = data.find(b"\n", start)
        if end < 0:
            yield number, start, size, size
            return
        content_end = end - 1 if end > start and data[end - 1] == 13 else end  # b"\r"
        yield number, start, content_end, end + 1
        start = end + 1


ENVELOPE_KEYS = {"messages", "contents", "input", "conversations"}
"""Keys that hold the message list of a request body or dataset record."""


def is_transcript_array(value: Any) -> bool:
    """Whether `value` is a JSON array of transcripts (not one transcript's messages)."""
    if not isinstance(value, list) or not value:
        return False
    return all(
        isinstance(item, list)
        or (
            isinstance(item, dict)
            and not {"role", "Role"} & item.keys()
            and (bool(ENVELOPE_KEYS & item.keys()) or _is_record(item))
        )
        for item in value
    )


_EVENT_KEYS = {"uuid", "parentUuid", "sessionId", "leafUuid", "messageId"}


def looks_like_message(value: Any) -> bool:
    """Whether a JSONL line is one message or session event rather than a transcript."""
    if not isinstance(value, dict) or "messages" in value:
        return False
    if isinstance(value.get("type"), str) and _EVENT_KEYS & value.keys():
        return True  # a session-log event (Claude Code)
    if isinstance(value.get("type"), str) and isinstance(value.get("payload"), dict):
        return "timestamp" in value  # a rollout line (Codex CLI)
    return any(key.casefold() == "role" for key in value)


def is_jsonl(path_hint: str | None, data: bytes | None = None) -> bool:
    """JSONL by the name `path_hint` (`.jsonl`); without one, when `data` is not one JSON
    document but several lines, the first of which (not blank) is a JSON object or array
    on its own (pretty-printed JSON that does not parse stays one document)."""
    return jsonl_or_value(path_hint, data)[0]


UNREAD: Any = object()
"""A document's value not parsed yet (`jsonl_or_value`, `read.read_json`)."""


def jsonl_or_value(path_hint: str | None, data: bytes | None = None) -> tuple[bool, Any]:
    """`is_jsonl`, and the document parsed whole (`jsonio.loads`) when telling took that
    (no `path_hint`, and `data` is one JSON document), else `UNREAD`."""
    if path_hint is not None:
        return PurePath(path_hint).suffix.lower() == ".jsonl", UNREAD
    if data is None:
        return False, UNREAD
    body = data.removeprefix(BOM)
    try:
        value = jsonio.loads(body)
    except HistnormError:
        if b"\n" not in body.strip():
            return False, UNREAD
        first = next((line for line in body.split(b"\n") if line.strip()), b"")
        try:
            return isinstance(jsonio.loads_typed(first), dict | list), UNREAD
        except HistnormError:
            return False, UNREAD
    return False, value


def message_line(line: bytes) -> bool:
    """Whether a JSONL line is one message or session event (not a whole transcript)."""
    try:
        value = jsonio.loads_typed(line.removeprefix(BOM))  # keys and types are enough
    except HistnormError:
        return False
    return looks_like_message(value)


def _is_record(item: Any) -> bool:
    """Whether `item` is a TRL record (`histnorm.formats.trl`, loaded only when asked)."""
    from histnorm.formats.trl import is_record

    return is_record(item)
