"""Documents: the transcripts held in the bytes of one JSON or JSONL file.

Reading keeps each record's original bytes; writing gives those bytes back for every
record (and, in message-per-line JSONL, every line) that no rule changed, so an
untouched file or line stays byte-identical. Functions take and return bytes; opening
files is the caller's job.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from histnorm import jsonio
from histnorm.errors import HistnormError, join_pointer
from histnorm.formats import detect_format, get_codec
from histnorm.linemap import duplicate_key
from histnorm.model import Transcript
from histnorm.splice import splice_array

_ENVELOPE_KEYS = {"messages", "contents", "input", "conversations"}
"""Keys that hold the message list of a request body or dataset record."""
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


@dataclass(frozen=True, slots=True)
class Document:
    """The records of one file and what is needed to write it back."""

    layout: Layout
    records: tuple[Record, ...]
    raw: bytes
    style: jsonio.Style = jsonio.COMPACT
    bom: bool = False
    lines: tuple[tuple[bytes, Any], ...] = field(default=())


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


_EVENT_KEYS = {"uuid", "parentUuid", "sessionId", "leafUuid", "messageId"}


def looks_like_message(value: Any) -> bool:
    """Whether a JSONL line is one message or session event rather than a transcript."""
    if not isinstance(value, dict) or "messages" in value:
        return False
    if isinstance(value.get("type"), str) and _EVENT_KEYS & value.keys():
        return True  # a session-log event (Claude Code)
    return any(key.casefold() == "role" for key in value)


def read_line(
    line: bytes, number: int, format: str | None = None, likely: str | None = None
) -> Record:
    """Read one JSONL line holding one transcript.

    `likely` (the format of the previous line) is tried first when its codec is sure of
    the line, which spares detecting the format of every line of a large file.
    """
    try:
        value = jsonio.loads(line)
    except HistnormError as exc:
        return Record(None, exc.at(line=number), number, "", line)
    if format is None and likely is not None and get_codec(likely).sniff(value) >= 0.9:
        format = likely
    return _record(value, format, line=number, pointer="", raw=line)


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
    for number, line, _ in rows:
        if not line.strip():
            continue
        try:
            value = jsonio.loads(line)
        except HistnormError as exc:
            record = Record(None, exc.at(line=number), number, "", data)
            return Document(Layout.JSONL_MESSAGES, (record,), data, jsonio.COMPACT, bom)
        values.append(value)
        lines.append((line, value))
    try:
        transcript = decode_value(values, format)
    except HistnormError as exc:
        index = _pointer_index(exc.pointer)
        line_no = rows_for_values(rows)[index] if index is not None else None
        error = HistnormError(exc.message, pointer=_strip_index(exc.pointer), line=line_no)
        return Document(
            Layout.JSONL_MESSAGES,
            (Record(None, error, line_no, "", data),),
            data,
            jsonio.COMPACT,
            bom,
        )
    record = Record(transcript, None, 1, "", data)
    return Document(Layout.JSONL_MESSAGES, (record,), data, jsonio.COMPACT, bom, tuple(lines))


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


def encode_transcript(transcript: Transcript) -> Any:
    """The native value of `transcript` in its own format."""
    if transcript.format is None:
        raise HistnormError("the transcript has no format to write it in")
    return get_codec(transcript.format).encode(transcript)


def write_line(record: Record, transcript: Transcript | None) -> bytes:
    """The bytes of one JSONL line: the original if nothing changed, else compact JSON.

    A line with a key repeated in one object keeps its original bytes: a rewrite would
    keep only the last value (see `lost_by_rewrite`).
    """
    if transcript is None or transcript == record.transcript:
        return record.raw
    if lost_by_rewrite(record, transcript) is not None:
        return record.raw
    return jsonio.dumps(encode_transcript(transcript))


def lost_by_rewrite(
    record: Record, transcript: Transcript, raw: bytes | None = None, spliced: bool = False
) -> str | None:
    """The pointer of a repeated key that rewriting `record` as `transcript` would lose.

    JSON parsers keep the last value of a repeated key, so a record whose rewritten part
    holds one cannot be written back without losing data. When only changed messages are
    re-serialised (`spliced`, JSON documents), a repeat inside an untouched message is
    safe. `raw` is the text the record sits in when it is not `record.raw`.
    """
    text = raw if raw is not None else record.raw
    repeated = duplicate_key(text.removeprefix(BOM))
    if repeated is None or record.transcript is None or not spliced:
        return repeated
    base = record.pointer
    kept = {id(m) for m in transcript.messages}
    for index, message in enumerate(record.transcript.messages):
        at = base + get_codec(record.transcript.format or "").message_pointer(
            record.transcript, index
        )
        if repeated == at or repeated.startswith(at + "/"):
            return None if id(message) in kept else repeated
    return repeated


def write(document: Document, transcripts: Sequence[Transcript | None]) -> bytes:
    """Write `document` with each record's transcript replaced by the one in `transcripts`."""
    if len(transcripts) != len(document.records):
        raise ValueError("write() needs one transcript (or None) per record")
    changed = [
        t is not None and t != r.transcript
        for r, t in zip(document.records, transcripts, strict=True)
    ]
    if not any(changed):
        return document.raw
    prefix = BOM if document.bom else b""
    if document.layout in (Layout.JSON, Layout.JSON_ARRAY):
        return prefix + _write_json(document, transcripts)
    if document.layout is Layout.JSONL:
        return prefix + _write_jsonl(document, transcripts)
    return prefix + _write_message_lines(document, _only(transcripts))


def _native(transcript: Transcript) -> Any:
    """The native document a decoded transcript came from (its envelope, or its messages)."""
    if transcript.native is not None:
        return transcript.native
    return [m.native for m in transcript.messages]


def _messages_pointer(transcript: Transcript) -> str | None:
    if not transcript.messages or transcript.format is None:
        return None
    return get_codec(transcript.format).message_pointer(transcript, 0).rsplit("/", 1)[0]


def _write_json(document: Document, transcripts: Sequence[Transcript | None]) -> bytes:
    """Rewrite changed transcripts, splicing only their message arrays where possible."""
    body = document.raw[len(BOM) :] if document.bom else document.raw
    array = document.layout is Layout.JSON_ARRAY
    for i, (record, transcript) in enumerate(zip(document.records, transcripts, strict=True)):
        if transcript is None or record.transcript is None or transcript == record.transcript:
            continue
        if lost_by_rewrite(record, transcript, body, spliced=True) is not None:
            continue  # keep this transcript's bytes: a rewrite would drop a repeated key
        old, new = _native(record.transcript), encode_transcript(transcript)
        pointer = _messages_pointer(record.transcript)
        if array:
            whole = jsonio.loads(body)
            old_whole, new_whole = list(whole), list(whole)
            old_whole[i], new_whole[i] = old, new
            old, new = old_whole, new_whole
            pointer = None if pointer is None else record.pointer + pointer
        spliced = None if pointer is None else splice_array(body, old, new, pointer, document.style)
        if spliced is None:
            return _rewrite_all(document, transcripts)
        body = spliced
    return body


def _rewrite_all(document: Document, transcripts: Sequence[Transcript | None]) -> bytes:
    body = document.raw[len(BOM) :] if document.bom else document.raw
    if duplicate_key(body) is not None:
        return body  # a full rewrite would drop a repeated key's first value
    if document.layout is Layout.JSON:
        return jsonio.dumps(encode_transcript(_only(transcripts)), document.style)
    value = jsonio.loads(document.raw[len(BOM) :] if document.bom else document.raw)
    for i, (record, transcript) in enumerate(zip(document.records, transcripts, strict=True)):
        if transcript is not None and transcript != record.transcript:
            value[i] = encode_transcript(transcript)
    return jsonio.dumps(value, document.style)


def _only(transcripts: Sequence[Transcript | None]) -> Transcript:
    transcript = transcripts[0]
    assert transcript is not None
    return transcript


def _ending(document: Document) -> bytes:
    return b"\r\n" if b"\r\n" in document.raw else b"\n"


def _write_jsonl(document: Document, transcripts: Sequence[Transcript | None]) -> bytes:
    body = document.raw[len(BOM) :] if document.bom else document.raw
    replacements = {
        r.line: write_line(r, t) for r, t in zip(document.records, transcripts, strict=True)
    }
    out = bytearray()
    for number, line, end in split_lines(body):
        out += replacements.get(number, line) + end
    return bytes(out)


def _write_message_lines(document: Document, transcript: Transcript) -> bytes:
    encoded = encode_transcript(transcript)
    originals = {id(value): line for line, value in document.lines}
    ending = _ending(document)
    body = document.raw[len(BOM) :] if document.bom else document.raw
    out = bytearray()
    for value in encoded:
        line = originals.get(id(value))
        out += (line if line is not None else jsonio.dumps(value)) + ending
    if not body.endswith(b"\n") and out.endswith(ending):
        del out[len(out) - len(ending) :]
    return bytes(out)
