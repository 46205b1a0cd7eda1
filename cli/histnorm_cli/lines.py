"""Transcript-per-line JSONL, streamed: each line proven plain, or read and handled."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import BinaryIO

from histnorm import jsonio
from histnorm.document import (
    BOM,
    WINDOW,
    Record,
    parse_line,
    pick_format,
    read_value,
    write_line,
)
from histnorm.engine import proven_clean, unreadable
from histnorm.errors import HistnormError, NotATranscript
from histnorm.formats import claims, common_format
from histnorm_cli.files import STDIN, LazyWriter
from histnorm_cli.job import Hunk, Job, Outcome, Sink, handle

HEAD_BYTES = 8 << 20
"""At most this much of a JSONL file is read ahead to settle its format."""


def head_format(stream: BinaryIO, job: Job) -> str | None:
    """The format of a transcript-per-line JSONL file, settled by its first transcripts
    (`histnorm.document.WINDOW`), read ahead from `stream`'s position, which is kept; None
    with an explicit format, per-line detection, or no transcript in the head."""
    if job.format is not None or job.detect != "file":
        return None
    start = stream.tell()
    found: list[Mapping[str, float]] = []
    read = 0
    for raw in stream:
        read += len(raw)
        body = raw.strip().removeprefix(BOM)
        if body:
            try:
                claimed = claims(jsonio.loads_typed(body))  # the claims alone are kept
            except HistnormError:
                claimed = {}
            if claimed:
                found.append(claimed)
        if len(found) >= WINDOW or read >= HEAD_BYTES:
            break
    stream.seek(start)
    return common_format(found)


def run_file_lines(stream: BinaryIO, job: Job, outcome: Outcome) -> None:
    outcome.detected = head_format(stream, job)
    writer = None
    target = Path(job.output) if job.output and job.output != STDIN else Path(outcome.path)
    if job.mode == "fix" and job.write and outcome.path != STDIN and job.output != STDIN:
        writer = LazyWriter(Path(outcome.path), target, stream, _verifier(stream, outcome))
    collected = bytearray() if job.mode == "fix" and job.write and job.output == STDIN else None
    sink: Sink | None = writer.write if writer is not None else None
    if collected is not None:
        sink = _collect_into(collected)
    try:
        run_lines(stream, job, outcome, sink)
        if writer is not None:
            writer.commit(always=bool(job.output), backup=job.backup)
    finally:
        if writer is not None:
            writer.discard()
    if collected is not None:
        outcome.stdout = bytes(collected)
    outcome.diff = render_hunks(outcome.path, outcome.hunks)


def _verifier(stream: BinaryIO, outcome: Outcome) -> Callable[[], None] | None:
    """A check that the file open as `stream` is still the one read and unwritten."""
    source = outcome.source
    if source is None:
        return None

    def verify() -> None:
        source.check_open(stream)
        source.check()

    return verify


def _collect_into(collected: bytearray) -> Sink:
    def collect(data: bytes, unchanged: bool) -> None:
        collected.extend(data)

    return collect


def run_lines(
    lines: Iterable[bytes],
    job: Job,
    outcome: Outcome,
    sink: Sink | None,
    file_start: bool = True,
) -> None:
    """Lint or fix each line of a transcript-per-line JSONL file (or of a byte range of
    one, numbered from 1; `file_start` says whether it starts the file, where a BOM may
    be), passing each line's new bytes to `sink`, and whether they are the line as read."""
    if outcome.detected is None:
        outcome.detected = job.file_format  # a share of a file: settled before it was cut
    for number, raw in enumerate(lines, start=1):
        body = raw.rstrip(b"\r\n")
        ending = raw[len(body) :]
        bom = file_start and number == 1 and body.startswith(BOM)
        content = body.removeprefix(BOM) if bom else body
        new = content
        if content and not content.isspace():
            new = _run_line(content, number, job, outcome)
        if new is not content and new != content:
            outcome.changed = True
            if job.diff:
                outcome.hunks.append((number, content, new, ending))
        if sink is not None:
            if new is content:
                sink(raw, True)
            else:
                sink((BOM if bom else b"") + new + ending, False)
        outcome.lines = number
        outcome.flush()  # findings go to the report as they are found


def _run_line(content: bytes, number: int, job: Job, outcome: Outcome) -> bytes:
    outcome.transcripts += 1
    try:  # types and strings are all a plain shape needs; numbers are read exactly below
        value = jsonio.loads_typed(content)
    except HistnormError:
        value = parse_line(content, number)  # the exact reader reads it, or says why not
    if isinstance(value, Record):
        record = value
    else:
        format = pick_format(value, job.format, outcome.detected, job.detect)
        if (
            format is not None
            and job.format is None
            and (job.detect == "per-line" or outcome.detected is None)
        ):
            outcome.detected = format  # per line: tried first on the next; else the file's
        if format is not None and proven_clean(value, format, job.settings):
            return content  # nothing to report or fix: no models built
        if jsonio.has_long_number(content):
            value = parse_line(content, number)
        file_format = outcome.detected if job.detect == "file" else None
        record = (
            value
            if isinstance(value, Record)
            else read_value(value, number, format, content, file_format)
        )
    if isinstance(record.error, NotATranscript):
        outcome.transcripts -= 1  # not one: counted as skipped
        outcome.skip(record.error, number)
        return content
    if record.transcript is None:
        assert record.error is not None
        outcome.diagnostics.append(unreadable(record.error).at(path=outcome.path, line=number))
        return content
    fixed, found = handle(record, job, outcome, content)
    for diagnostic in found:
        outcome.diagnostics.append(diagnostic.at(path=outcome.path, line=number))
    if job.mode == "lint":
        return content
    return write_line(record, fixed, repeats_checked=True)  # `handle` asked


def render_hunks(path: str, hunks: Iterable[Hunk]) -> str:
    """One-line hunks that `patch` applies: same line endings, and the end-of-file marker."""
    out = []
    for number, old, new, ending in hunks:
        end = ending.decode() if ending else "\n\\ No newline at end of file\n"
        before = old.decode("utf-8", "replace")
        after = new.decode("utf-8", "replace")
        out.append(f"@@ -{number} +{number} @@\n-{before}{end}+{after}{end}")
    return f"--- {path}\n+++ {path}\n" + "".join(out) if out else ""
