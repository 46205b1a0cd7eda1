"""Repairing the bytes of one JSON or JSONL document, for `histnorm.repair`.

The one place `repair` reads bytes: it stands in for `histnorm.document.fix_document`
(one transcript, a JSON array of them, transcript-per-line or message-per-line JSONL),
with the command line's rules: untouched bytes are kept, a record holding a repeated key
is not rewritten, and a record that is no transcript is kept as it was.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from histnorm import engine, jsonio
from histnorm.diagnostic import Diagnostic, Severity
from histnorm.document import (
    BOM,
    Document,
    Layout,
    Record,
    lost_by_rewrite,
    pick_format,
    read_json,
    read_jsonl,
    single_value,
    torn_lines,
    write,
)
from histnorm.errors import HistnormError
from histnorm.linemap import lines_for
from histnorm.model import Transcript
from histnorm.settings import Settings

_ENVELOPE_KEYS = ("messages", "contents", "input", "conversations")
"""Keys that hold the message list of a request body or dataset record."""


def repair_document(
    data: bytes, format: str | None, settings: Settings
) -> tuple[bytes | None, Mapping[str, int], tuple[Diagnostic, ...]]:
    """The repaired bytes of `data` (None: unchanged), the fixes applied, and the
    diagnostics left (located by line, pointer and, in an array, transcript index)."""
    value = single_value(data, jsonl=False)
    if value is not None and empty_history(value):
        return None, MappingProxyType({}), ()
    if value is not None:
        found = pick_format(value, format)
        if found is not None and engine.proven_clean(value, found, settings):
            return None, MappingProxyType({}), ()
    jsonl = _is_jsonl(data)
    document = read_jsonl(data, format) if jsonl else read_json(data, format)
    applied: Counter[str] = Counter()
    results: list[Transcript | None] = []
    found_: list[tuple[int, Diagnostic]] = []
    whole = data[: len(data) - len(document.tail)]
    spliced = document.layout in (Layout.JSON, Layout.JSON_ARRAY)
    for index, record in enumerate(document.records):
        fixed, diagnostics = _repair_record(record, settings, whole, spliced, applied)
        results.append(fixed)
        found_.extend((index, d.at(line=record.line) if record.line else d) for d in diagnostics)
    new = write(document, results)
    held = any(record.held for record in document.records)
    for note in torn_lines(document, new):
        torn = engine.unreadable(note)
        found_.append((0, torn if held else replace(torn, severity=Severity.WARNING)))
    remaining = tuple(sorted(_place(document, new, found_), key=Diagnostic.sort_key))
    if new == data:
        return None, MappingProxyType({}), remaining
    return new, MappingProxyType(dict(sorted(applied.items()))), remaining


def _repair_record(
    record: Record, settings: Settings, whole: bytes, spliced: bool, applied: Counter[str]
) -> tuple[Transcript | None, list[Diagnostic]]:
    """The repaired transcript of one record (None: keep its bytes) and what is left."""
    transcript = record.transcript
    if transcript is None:
        assert record.error is not None
        return None, [engine.unreadable(record.error).at(line=record.error.line or record.line)]
    if record.held:  # a broken line between whole ones: never rewritten
        return None, list(engine.lint(transcript, settings))
    result = engine.fix(transcript, settings)
    if result.changed:
        repeated = lost_by_rewrite(record, result.transcript, whole, spliced=spliced)
        if repeated is not None:
            refusal = HistnormError(
                f"the key at {repeated} appears twice in one object; the transcript is not "
                "rewritten, because a rewrite would keep only the last value",
                pointer=repeated,
            )
            return None, [engine.unreadable(refusal), *engine.lint(transcript, settings)]
    applied.update(result.applied)
    return result.transcript, list(result.remaining)


def empty_history(value: Any) -> bool:
    """Whether `value` is an empty history: no messages, bare or in an envelope."""
    if isinstance(value, list):
        return not value
    return isinstance(value, dict) and any(value.get(key) == [] for key in _ENVELOPE_KEYS)


def _is_jsonl(data: bytes) -> bool:
    """JSONL when the bytes are not one JSON document but hold more than one line."""
    try:
        jsonio.loads_typed(data.removeprefix(BOM))
    except HistnormError:
        return b"\n" in data.strip()
    return False


def _place(
    document: Document, text: bytes, found: list[tuple[int, Diagnostic]]
) -> list[Diagnostic]:
    """Each diagnostic with its document pointer, transcript index and line in `text`."""
    array = document.layout is Layout.JSON_ARRAY
    placed = []
    for index, diagnostic in found:
        pointer = diagnostic.location.pointer
        if array and pointer is not None:
            pointer = document.records[index].pointer + pointer
        placed.append(diagnostic.at(pointer=pointer, transcript_index=index if array else None))
    if document.layout is Layout.JSONL_MESSAGES:
        torn = {note.line for note in torn_lines(document, text)}
        starts = [n for n, line in enumerate(text.splitlines(), 1) if line.strip()]
        starts = [n for n in starts if n not in torn]
        for i, diagnostic in enumerate(placed):
            head, _, rest = (diagnostic.location.pointer or "")[1:].partition("/")
            if head.isdigit() and int(head) < len(starts):
                placed[i] = diagnostic.at(
                    line=starts[int(head)], pointer="/" + rest if rest else ""
                )
        return placed
    wanted = [d.location.pointer for d in placed if d.location.line is None]
    lines = lines_for(text.removeprefix(BOM), [p for p in wanted if p is not None])
    return [
        d.at(line=lines[d.location.pointer])
        if d.location.line is None and d.location.pointer in lines
        else d
        for d in placed
    ]
