"""Documents: the transcripts held in the bytes of one JSON or JSONL file.

Reading keeps each record's original bytes; writing gives those bytes back for every
record (and, in message-per-line JSONL, every line) that no rule changed, so an
untouched file or line stays byte-identical. Functions take and return bytes; opening
files is the caller's job.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from histnorm import jsonio
from histnorm.errors import HistnormError, join_pointer
from histnorm.formats import detect_format, get_codec
from histnorm.model import Transcript
from histnorm.records import BOM, Document, Layout, Record, split_lines
from histnorm.torn import around_torn_lines, torn_lines
from histnorm.writing import encode_transcript, lost_by_rewrite, write, write_line

_ENVELOPE_KEYS = {"messages", "contents", "input", "conversations"}
"""Keys that hold the message list of a request body or dataset record."""


def decode_value(value: Any, format: str | None = None) -> Transcript:
    """Decode a parsed native value with `format`, or the detected one."""
    codec = get_codec(format if format is not None else detect_format(value))
    return codec.decode(value)


def _record(
    value: Any, format: str | None, *, line: int | None, pointer: str, raw: bytes
) -> Record:
    try:
        transcript = decode_value(value, format)
    except HistnormError as exc:
        return Record(None, exc.at(line=line, prefix=pointer), line, pointer, raw)
    return Record(transcript, None, line, pointer, raw)


def _is_transcript_array(value: Any) -> bool:
    if not isinstance(value, list) or not value:
        return False
    return all(
        isinstance(item, list)
        or (
            isinstance(item, dict)
            and not {"role", "Role"} & item.keys()
            and bool(_ENVELOPE_KEYS & item.keys())
        )
        for item in value
    )


def read_json(data: bytes, format: str | None = None) -> Document:
    """Read a JSON document holding one transcript or an array of transcripts."""
    bom = data.startswith(BOM)
    body = data[len(BOM) :] if bom else data
    style = jsonio.detect_style(body)
    try:
        value = jsonio.loads(body)
    except HistnormError as exc:
        return Document(Layout.JSON, (Record(None, exc, exc.line, "", data),), data, style, bom)
    if _is_transcript_array(value):
        records = tuple(
            _record(item, format, line=None, pointer=join_pointer("", i), raw=b"")
            for i, item in enumerate(value)
        )
        return Document(Layout.JSON_ARRAY, records, data, style, bom)
    return Document(
        Layout.JSON, (_record(value, format, line=None, pointer="", raw=data),), data, style, bom
    )


_EVENT_KEYS = {"uuid", "parentUuid", "sessionId", "leafUuid", "messageId"}


def looks_like_message(value: Any) -> bool:
    """Whether a JSONL line is one message or session event rather than a transcript."""
    if not isinstance(value, dict) or "messages" in value:
        return False
    if isinstance(value.get("type"), str) and _EVENT_KEYS & value.keys():
        return True  # a session-log event (Claude Code)
    return any(key.casefold() == "role" for key in value)


def pick_format(value: Any, format: str | None = None, likely: str | None = None) -> str | None:
    """The format to read `value` with: `format` if given, else `likely` (the format of the
    previous line) when its codec is sure of `value`, else the detected one; None when
    nothing matches (decoding then reports why)."""
    if format is not None:
        return format
    if likely is not None and get_codec(likely).sniff(value) >= 0.9:
        return likely
    try:
        return detect_format(value)
    except HistnormError:
        return None


def parse_line(line: bytes, number: int) -> Any | Record:
    """The parsed value of one JSONL line, or an unreadable `Record` saying why not."""
    try:
        return jsonio.loads(line)
    except HistnormError as exc:
        return Record(None, exc.at(line=number), number, "", line)


def read_value(value: Any, number: int, format: str | None, raw: bytes) -> Record:
    """The record of one line's parsed `value` (see `pick_format` for `format`)."""
    return _record(value, format, line=number, pointer="", raw=raw)


def read_line(
    line: bytes, number: int, format: str | None = None, likely: str | None = None
) -> Record:
    """Read one JSONL line holding one transcript.

    `likely` (the format of the previous line) is tried first when its codec is sure of
    the line, which spares detecting the format of every line of a large file.
    """
    value = parse_line(line, number)
    if isinstance(value, Record):
        return value
    return read_value(value, number, pick_format(value, format, likely), line)


def read_jsonl(data: bytes, format: str | None = None, mode: str = "auto") -> Document:
    """Read JSONL: one transcript per line, or (`mode="message"`) one message per line."""
    bom = data.startswith(BOM)
    body = data[len(BOM) :] if bom else data
    rows = [(n, line, end) for n, line, end in split_lines(body)]
    if mode == "auto":
        first = next((line for _, line, _ in rows if line.strip()), b"")
        try:
            mode = "message" if looks_like_message(jsonio.loads(first)) else "transcript"
        except HistnormError:
            mode = "transcript"
    if mode == "transcript":
        records = tuple(read_line(line, n, format) for n, line, _ in rows if line.strip())
        return Document(Layout.JSONL, records, data, jsonio.COMPACT, bom)
    if mode != "message":
        raise HistnormError(f"unknown JSONL mode {mode!r}; expected auto, transcript or message")
    return _read_message_lines(data, rows, format, bom)


def _read_message_lines(
    data: bytes, rows: list[tuple[int, bytes, bytes]], format: str | None, bom: bool
) -> Document:
    values: list[Any] = []
    lines: list[tuple[bytes, Any]] = []
    numbers: list[int] = []
    broken: list[tuple[HistnormError, int]] = []
    offset = 0
    for number, line, end in rows:
        start, offset = offset, offset + len(line) + len(end)
        if not line.strip():
            continue
        try:
            value = jsonio.loads(line)
        except HistnormError as exc:
            broken.append((exc.at(line=number), start))
            continue
        values.append(value)
        lines.append((line, value))
        numbers.append(number)
    try:
        transcript = decode_value(values, format) if values else None
    except HistnormError as exc:
        if broken:
            transcript = None
        else:
            index = _pointer_index(exc.pointer)
            line_no = numbers[index] if index is not None else None
            error = HistnormError(exc.message, pointer=_strip_index(exc.pointer), line=line_no)
            return _unreadable_lines(data, error, bom)
    if not broken:
        assert transcript is not None
        record = Record(transcript, None, 1, "", data)
        return Document(Layout.JSONL_MESSAGES, (record,), data, jsonio.COMPACT, bom, tuple(lines))
    if transcript is None or transcript.format != "claude-code":
        return _unreadable_lines(data, broken[0][0], bom)
    return around_torn_lines(data, transcript, lines, numbers[-1], broken, bom)


def _unreadable_lines(data: bytes, error: HistnormError, bom: bool) -> Document:
    record = Record(None, error, error.line, "", data)
    return Document(Layout.JSONL_MESSAGES, (record,), data, jsonio.COMPACT, bom)


def single_value(data: bytes, jsonl: bool, mode: str = "auto") -> Any | None:
    """The native value of a document holding exactly one transcript (a JSON document that
    is not an array of transcripts, or message-per-line JSONL), parsed by
    `jsonio.loads_typed` (so only for decisions on types and strings, like a plain shape);
    None for anything else, including unreadable input (`read_json` / `read_jsonl` say why)."""
    body = data.removeprefix(BOM)
    try:
        if not jsonl:
            value = jsonio.loads_typed(body)
            return None if _is_transcript_array(value) else value
        lines = body.split(b"\n")
        values = [jsonio.loads_typed(line) for line in lines if line and not line.isspace()]
    except HistnormError:
        return None
    message = mode == "message" or (
        mode == "auto" and bool(values) and looks_like_message(values[0])
    )
    return values if message else None


def rows_for_values(rows: Iterable[tuple[int, bytes, bytes]]) -> list[int]:
    """Line numbers of the non-blank rows, in order."""
    return [n for n, line, _ in rows if line.strip()]


def _pointer_index(pointer: str | None) -> int | None:
    if not pointer:
        return None
    head = pointer.split("/")[1]
    return int(head) if head.isdigit() else None


def _strip_index(pointer: str | None) -> str | None:
    if not pointer:
        return pointer
    rest = pointer.split("/", 2)
    return "/" + rest[2] if len(rest) > 2 else ""


__all__ = [
    "BOM",
    "Document",
    "Layout",
    "Record",
    "decode_value",
    "encode_transcript",
    "looks_like_message",
    "lost_by_rewrite",
    "parse_line",
    "pick_format",
    "read_json",
    "read_jsonl",
    "read_line",
    "read_value",
    "single_value",
    "split_lines",
    "torn_lines",
    "write",
    "write_line",
]
