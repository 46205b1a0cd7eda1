"""Sessions with broken lines: read around them, as the tool that wrote them does.

A session killed mid-write ends in a torn line; Claude Code skips any line it cannot
parse, and so does Codex when it loads a rollout (`READERS`). `histnorm.document` reads
such a session without its broken lines (only when the rest is a session of one of
these formats) and records them here: as notes on the record (reported as HN000 at
their lines), as the document's tail (written back as read), and, when one sits between
whole lines, as a record that is linted but never fixed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import histnorm.jsonio as jsonio
from histnorm.document.layout import BOM, Document, Layout, Record
from histnorm.errors import HistnormError

if TYPE_CHECKING:
    from histnorm.model import Transcript

READERS = {"claude-code": "Claude Code", "codex": "Codex"}
"""The formats read around broken lines, with the tool that skips them when it reads."""


def around_torn_lines(
    data: bytes,
    transcript: Transcript,
    lines: list[tuple[int, int, Any]],
    last: int,
    broken: list[tuple[HistnormError, int]],
    bom: bool,
) -> Document:
    """A session read without its broken lines, as its tool (`READERS`) reads it.

    Broken lines after the last whole one are what a write cut off leaves: they are
    reported and kept, and a fix writes them back, as read, at the end. A broken line
    between whole ones may have held a call, a result or a link, so the session is
    linted but never fixed (`Record.held`).
    """
    held = any((error.line or 0) < last for error, _ in broken)
    tool = READERS.get(transcript.format or "", "Claude Code")
    notes = tuple(_torn_note(error, held, (error.line or 0) < last, tool) for error, _ in broken)
    record = Record(transcript, None, 1, "", data, notes=notes, held=held)
    body = data[len(BOM) :] if bom else data
    tail = [(error.line or 0, start) for error, start in broken if (error.line or 0) > last]
    tail_line, start = tail[0] if tail else (0, len(body))
    return Document(
        Layout.JSONL_MESSAGES,
        (record,),
        data,
        jsonio.COMPACT,
        bom,
        tuple(lines),
        tail=body[start:],
        tail_line=tail_line,
    )


def _torn_note(error: HistnormError, held: bool, inside: bool, tool: str) -> HistnormError:
    if inside:
        why = (
            f"a broken line between whole ones; skipped when reading, as {tool} skips "
            "it, and the session is not fixed: the line may have held a call, a result or "
            "a link"
        )
    else:
        why = (
            f"a torn last line, as a write cut off when {tool} was stopped leaves; "
            f"skipped, as {tool} skips it, and kept as it is"
        )
        if held:
            why += " (the session is not fixed: a broken line sits between whole ones)"
    return HistnormError(f"{error.message}: {why}", line=error.line, column=error.column)


def torn_lines(document: Document, text: bytes) -> list[HistnormError]:
    """The broken lines a session was read around, at their line numbers in `text` (the
    document as read, or as written by a fix, which puts its tail at the very end)."""
    notes = [note for record in document.records for note in record.notes]
    if not document.tail or text == document.raw:
        return notes
    shift = text[: len(text) - len(document.tail)].count(b"\n") + 1 - document.tail_line
    return [note.at(line=(note.line or 0) + shift) for note in notes]
