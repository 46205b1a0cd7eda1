"""Documents read whole: JSON files (one transcript or an array) and message-per-line JSONL."""

from __future__ import annotations

import difflib
from dataclasses import replace
from pathlib import Path

from histnorm.diagnostic import Diagnostic, Severity
from histnorm.document import BOM, Document, Layout, pick_format, single_value, torn_lines, write
from histnorm.engine import proven_clean, unreadable
from histnorm.errors import NotATranscript
from histnorm.linemap import lines_for
from histnorm.model import Transcript
from histnorm_cli.files import STDIN, write_atomically
from histnorm_cli.job import Job, Outcome, handle, is_jsonl


def plain_document(data: bytes, job: Job, outcome: Outcome) -> bool:
    """Handle a one-transcript document proven clean without building models (nothing to
    report or change; a fix with an output still writes the copy). False: not proven."""
    value = single_value(data, is_jsonl(outcome.path, data), job.jsonl_mode)
    if value is None:
        return False
    format = pick_format(value, job.format)
    if format is None or not proven_clean(value, format, job.settings):
        return False
    outcome.transcripts += 1
    _deliver(data, job, outcome)
    return True


def run_document(document: Document, data: bytes, job: Job, outcome: Outcome) -> None:
    results: list[Transcript | None] = []
    found: list[tuple[int, Diagnostic]] = []
    array = document.layout is Layout.JSON_ARRAY
    for index, record in enumerate(document.records):
        if isinstance(record.error, NotATranscript):
            outcome.skip(record.error, record.line, index if array else None)
            results.append(None)  # never written: its bytes are kept
            continue
        outcome.transcripts += 1
        if record.transcript is None:
            assert record.error is not None
            error = unreadable(record.error)
            found.append((index, error.at(line=record.error.line or record.line)))
            results.append(None)
            continue
        spliced = document.layout in (Layout.JSON, Layout.JSON_ARRAY)
        whole = data[: len(data) - len(document.tail)]  # torn last lines are no JSON
        fixed, diagnostics = handle(
            record, replace(job, mode="lint") if record.held else job, outcome, whole, spliced
        )
        results.append(fixed)
        found.extend((index, d.at(line=record.line) if record.line else d) for d in diagnostics)
    new = write(document, results) if job.mode == "fix" and not outcome.skipped_file else data
    outcome.changed = new != data
    held = any(record.held for record in document.records)
    for note in torn_lines(document, new):  # a session read around its broken lines
        torn = unreadable(note)
        found.append((0, torn if held else replace(torn, severity=Severity.WARNING)))
    _place(document, new, found, outcome)
    if job.mode == "fix" and job.diff and outcome.changed:
        outcome.diff = _unified(outcome.path, data, new)
    _deliver(new, job, outcome)


def _deliver(new: bytes, job: Job, outcome: Outcome) -> None:
    """Write a fix's result where it goes: standard output, the output path, or the file
    itself (only when it changed)."""
    to_stdout = job.output == STDIN or (outcome.path == STDIN and not job.output)
    if outcome.skipped_file and not to_stdout:
        return  # no transcript: never written (standard output still gets the input back)
    if job.mode == "fix" and job.write and (outcome.changed or job.output or to_stdout):
        if to_stdout:
            outcome.stdout = new
        else:
            verify = outcome.source.check if outcome.source is not None else None
            write_atomically(Path(job.output or outcome.path), new, job.backup, verify)


def _place(
    document: Document, text: bytes, found: list[tuple[int, Diagnostic]], outcome: Outcome
) -> None:
    """Give each diagnostic its path, transcript index, document pointer and line."""
    array = document.layout is Layout.JSON_ARRAY
    messages = document.layout is Layout.JSONL_MESSAGES
    placed: list[Diagnostic] = []
    for index, diagnostic in found:
        pointer = diagnostic.location.pointer
        if array and pointer is not None:
            pointer = document.records[index].pointer + pointer
        placed.append(
            diagnostic.at(
                path=outcome.path, pointer=pointer, transcript_index=index if array else None
            )
        )
    if messages:
        torn = {note.line for note in torn_lines(document, text)}
        starts = [n for n, line in enumerate(text.splitlines(), 1) if line.strip()]
        starts = [n for n in starts if n not in torn]
        for i, diagnostic in enumerate(placed):
            pointer = diagnostic.location.pointer or ""
            head, _, rest = pointer[1:].partition("/")
            if head.isdigit() and int(head) < len(starts):
                placed[i] = diagnostic.at(
                    line=starts[int(head)], pointer="/" + rest if rest else ""
                )
    else:
        body = text.removeprefix(BOM)
        wanted = {d.location.pointer for d in placed if d.location.line is None}
        lines = lines_for(body, [p for p in wanted if p is not None])
        placed = [
            d
            if d.location.line is not None or d.location.pointer not in lines
            else d.at(line=lines[d.location.pointer])
            for d in placed
        ]
    outcome.diagnostics.extend(placed)


def _unified(path: str, old: bytes, new: bytes) -> str:
    before = old.decode("utf-8", "replace").splitlines(keepends=True)
    after = new.decode("utf-8", "replace").splitlines(keepends=True)
    lines = difflib.unified_diff(before, after, fromfile=path, tofile=path)
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )
