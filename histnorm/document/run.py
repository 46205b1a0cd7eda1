"""`lint_document` and `fix_document`: one document's bytes in, diagnostics and bytes out."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any, NamedTuple

import histnorm.document.check as check
import histnorm.jsonio as jsonio
from histnorm.choices import DETECT_MODES, JSONL_MODES
from histnorm.diagnostic import Diagnostic, Severity
from histnorm.document.check import Mode
from histnorm.document.layout import (
    BOM,
    UNREAD,
    Document,
    Layout,
    is_transcript_array,
    jsonl_or_value,
    message_line,
)
from histnorm.document.lines import check_lines, lines_format
from histnorm.document.locate import place
from histnorm.document.read import (
    exactly,
    parse_message_lines,
    pick_reading,
    read_held_lines,
    read_json,
    read_jsonl,
    read_message_lines,
)
from histnorm.document.result import DocumentResult, Skip
from histnorm.document.streamed import streamed_read
from histnorm.document.torn import torn_lines
from histnorm.document.write import Chunk, joined, write_chunks
from histnorm.engine import unreadable
from histnorm.errors import HistnormError, NotATranscript
from histnorm.held_lines import HeldSpans
from histnorm.settings import Settings

if TYPE_CHECKING:
    from histnorm.analysis.outline import Outline
    from histnorm.model import Transcript


def check_document(
    data: bytes,
    mode: Mode,
    settings: Settings,
    *,
    path_hint: str | None = None,
    format: str | None = None,
    jsonl_mode: str = "auto",
    detect: str = "file",
    join: bool = True,
) -> DocumentResult:
    """Lint or fix the document `data` (see `lint_document`). Not `join`: a fixed
    document's text is handed back in `DocumentResult.pieces` where nothing is located in
    it (no diagnostic is left, no line was torn), not joined into `output`."""
    if jsonl_mode not in JSONL_MODES:
        raise HistnormError(
            f"unknown JSONL mode {jsonl_mode!r}; expected auto, transcript or message"
        )
    if detect not in DETECT_MODES:
        raise HistnormError(f"unknown detection {detect!r}; expected {' or '.join(DETECT_MODES)}")
    layout, whole = _layout(data, path_hint, jsonl_mode)
    if layout is Layout.JSONL:
        return _lines(data, mode, settings, format, detect)
    if layout is Layout.JSONL_MESSAGES:
        checked = _message_lines(data, mode, settings, format)
    else:
        checked = _json(data, whole, mode, settings, format, detect)
        del whole
    # the frames that held the parsed values and the models are gone: the fixed text is
    # joined without them (`write_chunks`)
    return checked if isinstance(checked, DocumentResult) else _result(checked, data, join)


def _message_lines(
    data: bytes, mode: Mode, settings: Settings, format: str | None
) -> DocumentResult | _Checked:
    """Check message-per-line JSONL: a long session read a line at a time when that
    proves it clean (`streamed_clean`), else parsed once: the fast path reads the lines,
    and when it does not prove the transcript clean they are decoded with the format and
    outline it found (`loads_typed`: types and strings are all the fast path reads;
    numbers beyond 64 bits are read exactly before decoding)."""
    streamed = streamed_read(data, format, settings)
    if streamed.clean:
        return DocumentResult(Layout.JSONL_MESSAGES, transcripts=1)  # no line held
    if streamed.held is not None and streamed.format and streamed.outline is not None:
        document = read_held_lines(data, streamed.format, streamed.held, streamed.outline)
        return _checked(document, data, mode, settings)
    body = data.removeprefix(BOM)
    parsed = parse_message_lines(body, exact=False)
    values = parsed.values if parsed.values and not parsed.broken else None
    clean, chosen, outline = _proven_clean(values, data, format, settings)
    if clean:
        return DocumentResult(Layout.JSONL_MESSAGES, transcripts=1)  # no models built
    exact = exactly(parsed, body)
    if len(exact.values) != len(parsed.values) or any(
        a is not b for a, b in zip(exact.values, parsed.values, strict=True)
    ):
        outline = None  # read from lines some of which are read again, exactly
    return _checked(read_message_lines(data, chosen, exact, outline), data, mode, settings)


def _json(
    data: bytes,
    whole: Any,
    mode: Mode,
    settings: Settings,
    format: str | None,
    detect: str,
) -> DocumentResult | _Checked:
    """Check a JSON document, parsed once (`whole`, when telling the layout parsed it)."""
    body = data.removeprefix(BOM)
    try:  # parsed already (exactly) when the layout was told without a file name
        value = jsonio.loads_typed(body) if whole is UNREAD else whole
    except HistnormError:
        return _checked(read_json(data, format, detect), data, mode, settings)  # says why
    one = None if is_transcript_array(value) else value
    clean, chosen, outline = _proven_clean(one, data, format, settings)
    if clean:
        return DocumentResult(Layout.JSON, transcripts=1)
    if whole is UNREAD and jsonio.read_inexactly(value, body):
        value, outline = UNREAD, None  # `read_json` reads it exactly
    return _checked(read_json(data, chosen, detect, value, outline), data, mode, settings)


def _proven_clean(
    value: Any | None, data: bytes, format: str | None, settings: Settings
) -> tuple[bool, str | None, Outline | None]:
    """Whether the parsed `value` of a document holding one transcript (None: not read
    here) is proven clean without models; the format it is read in (`format`, else the
    detected one, else None) and the outline the fast path read, for decoding it."""
    chosen, read = (None, None) if value is None else pick_reading(value, format)
    if chosen is None:
        return False, format, None
    # the size and media checks read the text the value was parsed from: the JSON text of
    # a document, or the lines of message-per-line JSONL, which hold the JSON text of every
    # line (a bound on each string and on every message's size, and "image" wherever an
    # image is), so the session is not serialised again to be measured
    clean, outline = check.checked_outline(value, chosen, settings, data, read)
    return clean, chosen, outline


def layout_for(data: bytes, path_hint: str | None, jsonl_mode: str = "auto") -> Layout:
    """The layout lint and fix read `data` in: `JSONL` (a transcript per line),
    `JSONL_MESSAGES` (a message per line), else `JSON` (`read_json` tells one transcript
    from an array of them)."""
    return _layout(data, path_hint, jsonl_mode)[0]


def _layout(data: bytes, path_hint: str | None, jsonl_mode: str) -> tuple[Layout, Any]:
    """`layout_for`, and `data` parsed whole when telling the layout took that (else
    `UNREAD`: see `jsonl_or_value`)."""
    if jsonl_mode not in JSONL_MODES:
        raise HistnormError(
            f"unknown JSONL mode {jsonl_mode!r}; expected auto, transcript or message"
        )
    jsonl, whole = jsonl_or_value(path_hint, data)
    if not jsonl:
        return Layout.JSON, whole
    if jsonl_mode == "message" or (jsonl_mode == "auto" and message_line(first_line(data))):
        return Layout.JSONL_MESSAGES, UNREAD
    return Layout.JSONL, UNREAD


def read_document(
    data: bytes,
    *,
    path_hint: str | None = None,
    format: str | None = None,
    jsonl_mode: str = "auto",
    detect: str = "file",
) -> Document:
    """The records of `data`, read in the layout lint and fix find for it (`layout_for`);
    arguments as for `lint_document`."""
    layout = layout_for(data, path_hint, jsonl_mode)
    if layout is Layout.JSON:
        return read_json(data, format, detect)
    mode = "message" if layout is Layout.JSONL_MESSAGES else "transcript"
    return read_jsonl(data, format, mode, detect)


def first_line(data: bytes) -> bytes:
    """The first line of `data` that is not blank (empty if none is)."""
    return next((line for line in _split(data) if line.strip()), b"")


def _split(data: bytes) -> Iterator[bytes]:
    """The lines of `data`, each with its ending (only `\\n` ends a line)."""
    start = 0
    while start < len(data):
        end = data.find(b"\n", start)
        stop = len(data) if end < 0 else end + 1
        yield data[start:stop]
        start = stop


def _lines(
    data: bytes, mode: Mode, settings: Settings, format: str | None, detect: str
) -> DocumentResult:
    file_format = lines_format(_split(data), format, detect)
    lines = check_lines(
        _split(data), mode, settings, format=format, detect=detect, file_format=file_format
    )
    found: list[Diagnostic] = []
    skipped: list[Skip] = []
    applied: Counter[str] = Counter()
    fixes: list[Diagnostic] = []
    out: list[bytes] = []
    changed = False
    transcripts = 0
    for line in lines:
        found.extend(line.diagnostics)
        fixes.extend(line.fixes)
        if line.skip is not None:
            skipped.append(line.skip)
        applied.update(line.applied)
        transcripts += line.transcript
        changed = changed or line.output is not None
        out.append(line.new_bytes)
    output = b"".join(out) if changed else None
    return DocumentResult(
        Layout.JSONL, tuple(found), output, tuple(skipped), dict(applied), transcripts, tuple(fixes)
    )


class _Checked(NamedTuple):
    """A document after the rules ran on each record, holding no model and no parsed
    value: the chunks of the text a fix wrote, and what `_result` places in it."""

    document: Document
    """The document, its records without transcripts and its lines without values."""
    found: list[tuple[int, Diagnostic]]
    fixes: list[tuple[int, Diagnostic]]
    skipped: tuple[Skip, ...]
    applied: dict[str, int]
    transcripts: int
    chunks: list[Chunk] | None
    """The text written (`write_chunks`), or None: the document as read."""


def _checked(document: Document, data: bytes, mode: Mode, settings: Settings) -> _Checked:
    """Check each record of a document read whole and write it back."""
    results: list[Transcript | None] = []
    found: list[tuple[int, Diagnostic]] = []
    fixes: list[tuple[int, Diagnostic]] = []
    skipped: list[Skip] = []
    applied: Counter[str] = Counter()
    array = document.layout is Layout.JSON_ARRAY
    spliced = document.layout in (Layout.JSON, Layout.JSON_ARRAY)
    whole = data[: len(data) - len(document.tail)]  # torn last lines are no JSON
    transcripts = 0
    for index, record in enumerate(document.records):
        if isinstance(record.error, NotATranscript):
            error = record.error
            skipped.append(
                Skip(error.message, record.line, error.pointer, index if array else None)
            )
            results.append(None)  # never written: its bytes are kept
            continue
        transcripts += 1
        if record.transcript is None:
            assert record.error is not None
            error_line = record.error.line or record.line
            found.append((index, unreadable(record.error).at(line=error_line)))
            results.append(None)
            continue
        checked = check.check_record(record, mode, settings, whole, spliced, document.lines)
        applied.update(checked.applied)
        results.append(checked.transcript)
        found.extend(
            (index, d.at(line=record.line) if record.line else d) for d in checked.diagnostics
        )
        fixes.extend((index, d.at(line=record.line) if record.line else d) for d in checked.fixes)
    skipped_file = bool(skipped) and not transcripts
    chunks = write_chunks(document, results) if mode == "fix" and not skipped_file else None
    light = replace(
        document,
        records=tuple(replace(r, transcript=None) for r in document.records),
        lines=document.lines if isinstance(document.lines, HeldSpans) else _unvalued(document),
    )
    return _Checked(light, found, fixes, tuple(skipped), dict(applied), transcripts, chunks)


def _unvalued(document: Document) -> tuple[tuple[int, int, None], ...]:
    """Where each message line starts and ends, without its value."""
    return tuple((start, end, None) for start, end, _ in document.lines)


def _result(checked: _Checked, data: bytes, join: bool = True) -> DocumentResult:
    """The result of a checked document: its text joined, and the findings placed in it;
    not `join`, its text in pieces when nothing is to be placed in it (`check_document`)."""
    document, found, chunks = checked.document, checked.found, checked.chunks
    around = bool(document.tail) or any(record.notes for record in document.records)
    if chunks is not None and not join and not found and not around:  # torn lines: none
        fixes = tuple(place(document, data, checked.fixes))
        pieces = () if _same_text(chunks, data) else tuple(chunks)
        return DocumentResult(
            document.layout,
            (),
            None,
            checked.skipped,
            checked.applied,
            checked.transcripts,
            fixes,
            pieces,
        )
    new = data if chunks is None else joined(chunks)
    held = any(record.held for record in document.records)
    for note in torn_lines(document, new):  # a session read around its broken lines
        torn = unreadable(note)
        found.append((0, torn if held else replace(torn, severity=Severity.WARNING)))
    return DocumentResult(
        document.layout,
        tuple(place(document, new, found)),
        new if new != data else None,
        checked.skipped,
        checked.applied,
        checked.transcripts,
        tuple(place(document, data, checked.fixes)),  # where each fix was, in the bytes as read
    )


def _same_text(chunks: list[Chunk], data: bytes) -> bool:
    """Whether `chunks` make the very text `data` (compared piece by piece, not joined)."""
    view = memoryview(data)
    at = 0
    for chunk in chunks:
        size = len(chunk)
        if view[at : at + size] != chunk:
            return False
        at += size
    return at == len(data)
