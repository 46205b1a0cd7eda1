"""Transcript-per-line JSONL, streamed from a file through `histnorm.document.check_lines`
into a writer that starts at the first changed line."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import BinaryIO

from histnorm.document import check_lines, lines_format
from histnorm_cli.diffs import render_hunks
from histnorm_cli.files import STDIN, LazyWriter
from histnorm_cli.job import Job, Outcome, Sink


def head_format(stream: BinaryIO, job: Job) -> str | None:
    """The format of a transcript-per-line JSONL file, settled by its first transcripts
    (`histnorm.document.lines_format`), read ahead from `stream`'s position, which is kept."""
    start = stream.tell()
    try:
        return lines_format(stream, job.format, job.detect)
    finally:
        stream.seek(start)


def run_file_lines(stream: BinaryIO, job: Job, outcome: Outcome) -> None:
    file_format = head_format(stream, job)
    writer = None
    target = Path(job.output) if job.output and job.output != STDIN else Path(outcome.path)
    if job.mode == "fix" and job.write and outcome.path != STDIN and job.output != STDIN:
        writer = LazyWriter(Path(outcome.path), target, stream, verifier(stream, outcome))
    collected = bytearray() if job.mode == "fix" and job.write and job.output == STDIN else None
    sink: Sink | None = writer.write if writer is not None else None
    if collected is not None:
        sink = _collect_into(collected)
    try:
        run_lines(stream, job, outcome, sink, file_format=file_format)
        if writer is not None:
            writer.commit(always=bool(job.output), backup=job.backup)
    finally:
        if writer is not None:
            writer.discard()
    if collected is not None:
        outcome.stdout = bytes(collected)
    outcome.diff = render_hunks(outcome.path, outcome.hunks)


def verifier(stream: BinaryIO, outcome: Outcome) -> Callable[[], None] | None:
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
    file_format: str | None = None,
) -> None:
    """Lint or fix each line of a transcript-per-line JSONL file (or of a byte range of
    one, numbered from 1; `file_start` says whether it starts the file, where a BOM may
    be), passing each line's new bytes to `sink`, and whether they are the line as read.
    `file_format` is the file's format, when settled (else `job.file_format`)."""
    results = check_lines(
        lines,
        job.mode,
        job.settings,
        format=job.format,
        detect=job.detect,
        file_format=file_format if file_format is not None else job.file_format,
        file_start=file_start,
    )
    for result in results:
        outcome.take_line(result, job.diff, job.show_fixes)
        if sink is not None:
            sink(result.new_bytes, result.output is None)
        outcome.flush()  # findings go to the report as they are found
