"""Where a document's diagnostics are: the document's JSON Pointer, its line, its record."""

from __future__ import annotations

import re
from collections.abc import Sequence

from histnorm.diagnostic import Diagnostic
from histnorm.document.layout import BOM, Document, Layout, line_spans
from histnorm.document.torn import torn_lines
from histnorm.linemap import lines_for

_INK = re.compile(rb"[^ \t\n\r\x0b\x0c]")
"""A byte `bytes.strip` keeps: a line holding one is not blank."""


def place(
    document: Document, text: bytes, found: Sequence[tuple[int, Diagnostic]]
) -> list[Diagnostic]:
    """Each (record index, diagnostic) of `found` with its pointer in the document, its
    transcript index (in an array of transcripts) and its line in `text` (the document as
    read, or as a fix wrote it)."""
    array = document.layout is Layout.JSON_ARRAY
    placed: list[Diagnostic] = []
    for index, diagnostic in found:
        pointer = diagnostic.location.pointer
        if array:
            if pointer is not None:
                pointer = document.records[index].pointer + pointer
            diagnostic = diagnostic.at(pointer=pointer, transcript_index=index)
        placed.append(diagnostic)
    if document.layout is Layout.JSONL_MESSAGES:
        return _message_lines(document, text, placed)
    body = text.removeprefix(BOM)
    wanted = {d.location.pointer for d in placed if d.location.line is None}
    lines = lines_for(body, [p for p in wanted if p is not None])
    return [
        d
        if d.location.line is not None or d.location.pointer not in lines
        else d.at(line=lines[d.location.pointer])
        for d in placed
    ]


def _message_lines(document: Document, text: bytes, placed: list[Diagnostic]) -> list[Diagnostic]:
    """In message-per-line JSONL, a pointer `/N/...` into the message list is the line of the
    N-th message, and `/...` within it."""
    torn = {note.line for note in torn_lines(document, text)}
    starts = [
        number
        for number, start, end, _ in line_spans(text)
        if _INK.search(text, start, end) is not None and number not in torn
    ]
    for i, diagnostic in enumerate(placed):
        pointer = diagnostic.location.pointer or ""
        head, _, rest = pointer[1:].partition("/")
        if head.isdigit() and int(head) < len(starts):
            placed[i] = diagnostic.at(line=starts[int(head)], pointer="/" + rest if rest else "")
    return placed
