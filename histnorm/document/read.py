"""Reading documents: the transcripts held in the bytes of one JSON or JSONL file.

Reading keeps each record's original bytes, so that `histnorm.document.write` gives them
back for every record (and, in message-per-line JSONL, every line) that no rule
changed. Functions take bytes; opening files is the caller's job.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, NamedTuple

import histnorm.jsonio as jsonio
from histnorm.choices import DETECT_MODES
from histnorm.document.layout import (
    BOM,
    UNREAD,
    Document,
    Layout,
    Record,
    is_transcript_array,
    line_spans,
    looks_like_message,
    split_lines,
)
from histnorm.document.prefix import looks_like_transcript
from histnorm.document.torn import READERS, around_torn_lines
from histnorm.errors import HistnormError, NotATranscript, join_pointer
from histnorm.formats import (
    CODECS,
    SURE_READER,
    claims,
    common_format,
    detect_format,
    get_codec,
    in_file_format,
    kin,
    seed_read,
)
from histnorm.held_lines import HeldLines, HeldSpans, pooled
from histnorm.last_answer import ReadLines

if TYPE_CHECKING:
    from histnorm.analysis.outline import Outline
    from histnorm.model import Transcript

NO_TRANSCRIPT = "what can be read of it is no transcript (JSONC, a configuration file?)"
"""Why a document that is no valid JSON is skipped (see `histnorm.document.prefix`)."""

WINDOW = 32
"""How many of a file's first transcripts settle its format."""


def decode_value(
    value: Any,
    format: str | None = None,
    file_format: str | None = None,
    outline: Outline | None = None,
) -> Transcript:
    """Decode a parsed native value with `format`, or in the file's format `file_format`
    (raising if another format or none claims it), or in the detected one. Raises
    `NotATranscript` for valid JSON that holds no transcript (only without `format`).
    `outline`: what the fast reader of its format read of it (`Codec.decode_read`)."""
    if format is None:
        format = detect_format(value) if file_format is None else in_file_format(value, file_format)
    return get_codec(format).decode_read(value, outline)


def settle_format(values: Iterable[Any]) -> str | None:
    """The format of a file from (up to `WINDOW` of) its transcripts' values; None when
    none of them is claimed by any codec."""
    found = []
    for value in values:
        claimed = claims(value)
        if claimed:
            found.append(claimed)
            if len(found) >= WINDOW:
                break
    return common_format(found)


def _formats(values: list[Any], format: str | None, detect: str) -> str | None:
    """The file format records are held to, or None (explicit format, or per-line)."""
    if detect not in DETECT_MODES:
        raise HistnormError(f"unknown detection {detect!r}; expected {' or '.join(DETECT_MODES)}")
    if format is not None or detect == "per-line":
        return None
    return settle_format(values)


def _record(
    value: Any,
    format: str | None,
    *,
    line: int | None,
    pointer: str,
    raw: bytes,
    file_format: str | None = None,
    outline: Outline | None = None,
) -> Record:
    try:
        transcript = decode_value(value, format, file_format, outline)
    except HistnormError as exc:
        return Record(None, exc.at(line=line, prefix=pointer), line, pointer, raw)
    if raw:  # the size and media checks measure the text it was read from
        seed_read(transcript, outline, value, raw)
    return Record(transcript, None, line, pointer, raw)


def read_json(
    data: bytes,
    format: str | None = None,
    detect: str = "file",
    value: Any = UNREAD,
    outline: Outline | None = None,
) -> Document:
    """Read a JSON document holding one transcript or an array of transcripts (read in one
    format unless `detect="per-line"`). `value` is `data` parsed by `jsonio.loads`, and
    `outline` the outline of that one transcript in `format`, when the caller has them
    (`histnorm.formats.seed_read`)."""
    bom = data.startswith(BOM)
    body = data[len(BOM) :] if bom else data
    style = jsonio.detect_style(body)
    try:
        value = jsonio.loads(body) if value is UNREAD else value
    except HistnormError as exc:
        if format is None and not looks_like_transcript(body):
            exc = NotATranscript(f"{exc.message}; {NO_TRANSCRIPT}", pointer="")
        return Document(Layout.JSON, (Record(None, exc, exc.line, "", data),), data, style, bom)
    if is_transcript_array(value):
        file_format = _formats(value, format, detect)
        records = tuple(
            _record(
                item,
                format,
                line=None,
                pointer=join_pointer("", i),
                raw=b"",
                file_format=file_format,
            )
            for i, item in enumerate(value)
        )
        return Document(Layout.JSON_ARRAY, records, data, style, bom)
    record = _record(value, format, line=None, pointer="", raw=data, outline=outline)
    return Document(Layout.JSON, (record,), data, style, bom)


def pick_format(
    value: Any,
    format: str | None = None,
    likely: str | None = None,
    detect: str = "file",
    score: float | None = None,
) -> str | None:
    """The format to read `value` with: `format` if given; else, in one-format-per-file
    detection, `likely` (the file's format) when its codec claims `value` (None when it
    does not: decoding says why); else the detected one (per line, `likely` is the
    previous line's format, tried first when its codec is sure); None when nothing
    matches (decoding then reports why). `score`: the `sniff` score of `value` by the
    codec of `likely`, when the caller has it (`pick_reading`)."""
    if format is not None:
        return format
    if likely is not None:
        sure = 0.9 if detect == "per-line" else 0.0
        if (get_codec(likely).sniff(value) if score is None else score) > sure:
            return likely
        if detect != "per-line":
            return kin(likely, claims(value))  # None: another format (decoding says so)
    try:
        return detect_format(value)
    except HistnormError:
        return None


def pick_reading(
    value: Any, format: str | None = None, likely: str | None = None, detect: str = "file"
) -> tuple[str | None, Any]:
    """`pick_format`, and the outline of `value` its format's fast reader read on the way
    (None: it reads none), else `UNREAD`. Where the format is detected (no `format`) and
    OpenAI Chat's may be it (`likely` is None or that one), its reader is asked first: a
    history it proves OpenAI Chat's (`histnorm.formats.detect_reading`) takes no sniff, and
    is read once. Where the file's format is another whose reader tells its `sniff` score
    in the walk that reads the outline (`Codec.read_scored`), that walk is the sniff."""
    if format is not None:
        return format, UNREAD
    if likely is not None and likely != SURE_READER:
        scored = CODECS[likely].read_scored(value)
        if scored is None:
            return pick_format(value, format, likely, detect), UNREAD
        found = pick_format(value, format, likely, detect, scored[1])
        return found, scored[0] if found == likely else UNREAD
    outline, sure = CODECS[SURE_READER].read_detected(value)
    if sure:  # `detect_format` gives it, and so does the file's format: its sniff is sure
        return SURE_READER, outline
    found = pick_format(value, format, likely, detect)
    return found, outline if found == SURE_READER else UNREAD


def parse_line(line: bytes, number: int) -> Any | Record:
    """The parsed value of one JSONL line, or an unreadable `Record` saying why not."""
    try:
        return jsonio.loads(line)
    except HistnormError as exc:
        return Record(None, exc.at(line=number), number, "", line)


def read_value(
    value: Any,
    number: int,
    format: str | None,
    raw: bytes,
    file_format: str | None = None,
    outline: Outline | None = None,
) -> Record:
    """The record of one line's parsed `value` (see `pick_format` for `format`), held to
    the file's format `file_format` when `format` is None; `outline`, what the fast reader
    of its format read of `value`, when the caller has it (`seed_read`)."""
    return _record(
        value, format, line=number, pointer="", raw=raw, file_format=file_format, outline=outline
    )


def read_jsonl(
    data: bytes, format: str | None = None, mode: str = "auto", detect: str = "file"
) -> Document:
    """Read JSONL: one transcript per line (in one format unless `detect="per-line"`), or
    (`mode="message"`) one message per line."""
    bom = data.startswith(BOM)
    body = data[len(BOM) :] if bom else data
    if mode == "auto":
        first = next((line for _, line, _ in split_lines(body) if line.strip()), b"")
        try:
            mode = "message" if looks_like_message(jsonio.loads(first)) else "transcript"
        except HistnormError:
            mode = "transcript"
    if mode == "transcript":
        rows = split_lines(body)
        parsed = [(n, line, parse_line(line, n)) for n, line, _ in rows if line.strip()]
        good = [v for _, _, v in parsed if not isinstance(v, Record)]
        file_format = _formats(good, format, detect)
        records = tuple(
            value if isinstance(value, Record) else read_value(value, n, format, line, file_format)
            for n, line, value in parsed
        )
        return Document(Layout.JSONL, records, data, jsonio.COMPACT, bom)
    if mode != "message":
        raise HistnormError(f"unknown JSONL mode {mode!r}; expected auto, transcript or message")
    return read_message_lines(data, format)


class MessageLines(NamedTuple):
    """The message lines of message-per-line JSONL, each parsed once (`parse_message_lines`)."""

    values: ReadLines
    """The parsed lines, with the length of each (HN018)."""
    lines: list[tuple[int, int, Any]]
    """Each line's start and end in the body (after any BOM), and its value."""
    numbers: list[int]
    """Each line's number."""
    broken: list[tuple[HistnormError, int]]
    """The lines that are no JSON: why, and where each starts."""


def parse_message_lines(body: bytes, exact: bool = True) -> MessageLines:
    """Parse each line of `body` (message-per-line JSONL after any BOM) that is not blank,
    its short strings shared between lines (`pooled`). Not `exact`: each line as
    `jsonio.loads_typed` reads it, nothing shared (what the fast path reads; `exactly`
    makes it what decoding reads)."""
    values: list[Any] = []
    lines: list[tuple[int, int, Any]] = []
    numbers: list[int] = []
    broken: list[tuple[HistnormError, int]] = []
    pool: dict[str, str] = {}
    for number, start, end, _ in line_spans(body):
        line = body[start:end]
        if not line.strip():
            continue
        try:
            value = pooled(jsonio.loads(line), pool) if exact else jsonio.loads_typed(line)
        except HistnormError as exc:
            broken.append((exc.at(line=number), start))
            continue
        values.append(value)
        lines.append((start, end, value))
        numbers.append(number)
    read = ReadLines(values, tuple(end - start for start, end, _ in lines))
    return MessageLines(read, lines, numbers, broken)


def exactly(parsed: MessageLines, body: bytes) -> MessageLines:
    """`parse_message_lines(body)` from what `parse_message_lines(body, exact=False)`
    gave: the lines with an integer beyond 64 bits parsed again (exactly), and every
    line's short strings shared (`pooled`, in place: the values are the reader's own)."""
    pool: dict[str, str] = {}
    values: list[Any] = []
    lines: list[tuple[int, int, Any]] = []
    long = jsonio.has_long_number(body)  # one look at the whole file first
    for start, end, value in parsed.lines:
        if long and jsonio.read_inexactly(value, line := body[start:end]):
            try:
                value = jsonio.loads(line)
            except HistnormError:  # a line only the exact reader finds broken
                return parse_message_lines(body)
        values.append(pooled(value, pool))
        lines.append((start, end, value))
    read = ReadLines(values, parsed.values.sizes)
    return MessageLines(read, lines, parsed.numbers, parsed.broken)


def read_message_lines(
    data: bytes,
    format: str | None = None,
    parsed: MessageLines | None = None,
    outline: Outline | None = None,
) -> Document:
    """The one transcript of message-per-line JSONL, its lines held as offsets into the
    body (a copy of each would hold the file twice). `parsed` is `parse_message_lines` of
    the body and `outline` the transcript's outline in `format`, when the caller has them."""
    bom = data.startswith(BOM)
    body = data[len(BOM) :] if bom else data
    values, lines, numbers, broken = parsed if parsed is not None else parse_message_lines(body)
    if not values and not broken:  # no line holds anything: no transcript, as in JSONL
        return Document(Layout.JSONL, (), data, jsonio.COMPACT, bom)
    try:
        transcript = decode_value(values, format, None, outline) if values else None
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
        seed_read(transcript, outline, values, data)  # lines hold the text of every value
        record = Record(transcript, None, 1, "", data)
        return Document(Layout.JSONL_MESSAGES, (record,), data, jsonio.COMPACT, bom, tuple(lines))
    if transcript is None or transcript.format not in READERS:
        return _unreadable_lines(data, broken[0][0], bom)
    return around_torn_lines(data, transcript, lines, numbers[-1], broken, bom)


def read_held_lines(data: bytes, format: str, held: HeldLines, outline: Outline) -> Document:
    """The one transcript of message-per-line JSONL whose lines were read a line at a time
    and are held as text (`histnorm.document.streamed.streamed_read`): decoded with the
    outline its reader read then, each message built from its line unread."""
    bom = data.startswith(BOM)
    transcript = decode_value(held, format, None, outline)
    seed_read(transcript, outline, held, data)
    record = Record(transcript, None, 1, "", data)
    spans = HeldSpans(held)
    return Document(Layout.JSONL_MESSAGES, (record,), data, jsonio.COMPACT, bom, spans)


def _unreadable_lines(data: bytes, error: HistnormError, bom: bool) -> Document:
    record = Record(None, error, error.line, "", data)
    return Document(Layout.JSONL_MESSAGES, (record,), data, jsonio.COMPACT, bom)


def single_value(data: bytes, jsonl: bool, mode: str = "auto") -> Any | None:
    """The native value of a document holding exactly one transcript (a JSON document that
    is not an array of transcripts, or message-per-line JSONL), parsed by
    `jsonio.loads_typed` (so only for decisions on types and strings, like a plain shape);
    None for anything else, including unreadable input (`read_json` / `read_jsonl` say why)."""
    body = data.removeprefix(BOM)
    if not jsonl:
        try:
            value = jsonio.loads_typed(body)
        except HistnormError:
            return None
        return None if is_transcript_array(value) else value
    parsed = parse_message_lines(body, exact=False)
    values = parsed.values  # with each line's size, which HN018 measures
    message = mode == "message" or (
        mode == "auto" and bool(values) and looks_like_message(values[0])
    )
    return values if message and not parsed.broken else None


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
