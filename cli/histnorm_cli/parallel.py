"""One large transcript-per-line JSONL file across several worker processes.

The file is cut into byte ranges at line starts; each worker lints or fixes its range
(numbering lines from 1) and, when fixing, writes its share of the new content to a
temporary file beside the target. The parent then shifts line numbers, joins the shares
into the target atomically, and removes the temporary files whatever happens.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import BinaryIO

from histnorm._record import record
from histnorm.document import is_jsonl
from histnorm_cli import stale
from histnorm_cli.diffs import render_hunks
from histnorm_cli.files import STDIN, AtomicWriter
from histnorm_cli.identity import SUFFIX, Source, open_regular
from histnorm_cli.job import READ_BUFFER, Emit, Job, Outcome
from histnorm_cli.lines import head_format, run_lines
from histnorm_cli.per_file import guarded, messages_first
from histnorm_cli.tally import Tally

MB = 1 << 20
MIN_PART = 4 * MB
"""A range smaller than this is not worth a worker of its own."""


@record(frozen=True)
class Part:
    """Bytes `start` to `end` of `path`, the `index`-th of `count` parts."""

    path: str
    job: Job
    start: int
    end: int
    index: int
    count: int


def parts(path: str, job: Job, wanted: int, min_part: int | None = None) -> list[Part] | None:
    """Up to `wanted` parts of a transcript-per-line JSONL file, cut at line starts, each
    about `min_part` bytes (default `MIN_PART`) or more; None when the file is not one,
    is too small to share, or goes to standard output."""
    if path == STDIN or job.output == STDIN or job.jsonl_mode == "message":
        return None
    if not is_jsonl(path, None):
        return None
    try:
        with open_regular(path) as stream:
            source = Source.of(path, stream)
            size = source.size
            count = min(wanted, size // (min_part or MIN_PART))
            if count < 2:
                return None
            if job.jsonl_mode != "transcript" and messages_first(stream):
                return None
            bounds = [0]
            for k in range(1, count):
                stream.seek(max(size * k // count - 1, bounds[-1]))
                stream.readline()
                if bounds[-1] < stream.tell() < size:
                    bounds.append(stream.tell())
            stream.seek(0)
            job = replace(job, file_format=head_format(stream, job), source=source)
    except OSError:
        return None  # the single-process run reports it
    bounds.append(size)
    n = len(bounds) - 1
    return [Part(path, job, bounds[i], bounds[i + 1], i, n) for i in range(n)] if n > 1 else None


def _range(stream: BinaryIO, length: int) -> Iterator[bytes]:
    left = length
    while left > 0:
        line = stream.readline(left)
        if not line:
            return
        left -= len(line)
        yield line


def _target(part: Part) -> Path:
    job = part.job
    return Path(job.output) if job.output else Path(part.path)


def run_part(part: Part, emit: Emit | None = None) -> Outcome:
    """Lint or fix one part (in a worker); never raises for bad input. Findings go to
    `emit` as they are found (see `Outcome.flush`)."""

    def work(outcome: Outcome) -> None:
        job = part.job
        writing = job.mode == "fix" and job.write
        with open_regular(part.path, READ_BUFFER) as stream:
            if writing and job.source is not None:
                job.source.check_open(stream)  # still the file that was cut
            stream.seek(part.start)
            lines = _range(stream, part.end - part.start)
            if not writing:
                run_lines(lines, job, outcome, None, file_start=part.start == 0)
                return
            target = _target(part)
            target = target.resolve() if target.is_symlink() else target
            import tempfile  # only a parallel fix writes parts

            handle, name = tempfile.mkstemp(
                dir=target.parent, prefix=stale.prefix(target, part.index), suffix=SUFFIX
            )
            outcome.part_file = name
            try:
                stale.lock(handle)
                with os.fdopen(handle, "wb") as out:
                    run_lines(lines, job, outcome, lambda data, _: out.write(data), part.start == 0)
            except BaseException:  # an error, or a signal that ends the run
                Path(name).unlink(missing_ok=True)
                outcome.part_file = None
                raise

    return guarded(Outcome(part.path, emit=emit), work)


def merge(path: str, job: Job, shares: list[Outcome]) -> Outcome:
    """The outcome of the whole file from its parts' outcomes, in order; writes the fixed
    file when a fix changed something (or an output was named)."""
    files = [s.part_file for s in shares if s.part_file is not None]
    try:
        return guarded(Outcome(path), lambda outcome: _merge(outcome, job, shares, files))
    finally:
        for name in files:
            Path(name).unlink(missing_ok=True)


def _merge(outcome: Outcome, job: Job, shares: list[Outcome], files: list[str]) -> None:
    offset = 0
    for share in shares:
        if share.error is not None:
            outcome.error = share.error
            return
        outcome.diagnostics.extend(
            d.at(line=d.location.line + offset) if d.location.line is not None else d
            for d in share.diagnostics
        )
        outcome.hunks.extend(
            (n + offset, old, new, end, codes) for n, old, new, end, codes in share.hunks
        )
        outcome.fixes.extend(
            d.at(line=d.location.line + offset) if d.location.line is not None else d
            for d in share.fixes
        )
        outcome.applied.update(share.applied)
        outcome.changed = outcome.changed or share.changed
        outcome.transcripts += share.transcripts
        outcome.skipped_count += share.skipped_count
        outcome.skipped.extend(
            replace(s, line=s.line + offset) if s.line is not None else s for s in share.skipped
        )
        if share.tally is not None:
            outcome.tally = outcome.tally or Tally()
            outcome.tally.add(share.tally)
        offset += share.lines
    outcome.lines = offset
    outcome.diff = render_hunks(outcome.path, outcome.hunks)
    if (
        job.mode == "fix"
        and job.write
        and (outcome.changed or job.output)
        and not outcome.skipped_file
    ):
        verify = job.source.check if job.source is not None else None
        with AtomicWriter(Path(job.output or outcome.path), verify) as writer:
            for name in files:
                with open(name, "rb") as share_file:
                    shutil.copyfileobj(share_file, writer.stream, 1 << 20)
            writer.commit(job.backup)
