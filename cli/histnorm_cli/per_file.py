"""Linting and fixing one file: read it, hand its bytes (or, for JSONL, its lines) to
`histnorm.document`, and write what comes back."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import BinaryIO

from histnorm.document import check_document, is_jsonl, message_line
from histnorm.engine import FixDidNotConverge
from histnorm_cli.diffs import document_diff
from histnorm_cli.files import DATABASE_SUFFIXES, SQLITE_HEADER, STDIN, write_atomically
from histnorm_cli.identity import Source, open_regular, read_regular
from histnorm_cli.job import READ_BUFFER, Emit, Job, Outcome
from histnorm_cli.lines import run_file_lines

__all__ = ["guarded", "messages_first", "run_file"]


def run_file(path: str, job: Job, data: bytes | None = None, emit: Emit | None = None) -> Outcome:
    """Lint or fix one file (or stdin, given as `data`); never raises for bad input.
    With `emit`, findings are handed to it as they are found (see `Outcome.flush`); what
    is left at the end stays in the outcome."""
    return guarded(Outcome(path, emit=emit), lambda outcome: _run(outcome, job, data))


def guarded(outcome: Outcome, work: Callable[[Outcome], None]) -> Outcome:
    """Run `work`, turning any failure into `outcome.error` (no traceback, nothing applied)."""
    try:
        work(outcome)
    except OSError as exc:
        where = exc.filename if isinstance(exc.filename, str) else outcome.path
        outcome.error = f"{where}: {exc.strerror or exc}"
    except FixDidNotConverge as exc:
        outcome.error = f"{outcome.path}: internal error: {exc}"
    except Exception as exc:  # a bug must not stop the other files or print a traceback
        outcome.error = (
            f"{outcome.path}: internal error: {type(exc).__name__}: {exc} (please report)"
        )
    if outcome.error is not None:
        outcome.applied.clear()
        outcome.fixes.clear()
        outcome.changed = False
    return outcome


def messages_first(stream: BinaryIO) -> bool:
    """Whether the first line of JSONL that is not blank, read from `stream`, is one
    message or session event (the file is then one transcript, read whole)."""
    for line in stream:
        if line.strip():
            return message_line(line)
    return False


def _run(outcome: Outcome, job: Job, data: bytes | None) -> None:
    path = outcome.path
    if job.database is not None:
        from histnorm_cli.postgres import run_postgres  # the driver only when one is named

        run_postgres(outcome, job)
        return
    if data is None and path.lower().endswith(DATABASE_SUFFIXES):
        _run_database(outcome, job)
        return
    if data is None and is_jsonl(path, None) and job.jsonl_mode != "message":
        with open_regular(path, READ_BUFFER) as stream:
            outcome.source = Source.of(path, stream)
            if stream.read(len(SQLITE_HEADER)) == SQLITE_HEADER:
                _run_database(outcome, job)
                return
            stream.seek(0)
            if job.jsonl_mode == "transcript" or not messages_first(stream):
                stream.seek(0)
                run_file_lines(stream, job, outcome)
                return
    if data is None:
        data, outcome.source = read_regular(path)
    if data.startswith(SQLITE_HEADER):
        stdin = path == STDIN or job.stdin
        _run_database(outcome, job, stdin=stdin)
        if stdin:
            _deliver((data,), job, outcome)  # fix gives standard input back as it came
        return
    result = check_document(
        data,
        job.mode,
        job.settings,
        path_hint=None if path == STDIN else path,
        format=job.format,
        jsonl_mode=job.jsonl_mode,
        detect=job.detect,
        join=False,  # written out in pieces: a long session's text is never held twice
    )
    outcome.take_document(result, job.show_fixes)
    if job.mode == "fix" and job.diff and outcome.changed:
        new = result.new_bytes(data)
        outcome.diff = document_diff(path, data, new, result)
        if job.versions:
            outcome.versions = (data, new)
    _deliver(result.written(data), job, outcome)


def _run_database(outcome: Outcome, job: Job, stdin: bool = False) -> None:
    from histnorm_cli.databases import run_database  # sqlite3 only when a database comes

    run_database(outcome, job, stdin)


def _deliver(new: Sequence[bytes | memoryview], job: Job, outcome: Outcome) -> None:
    """Write a fix's result (`new`, in pieces) where it goes: standard output, the output
    path, or the file itself (only when it changed)."""
    to_stdout = job.output == STDIN or ((job.stdin or outcome.path == STDIN) and not job.output)
    if outcome.skipped_file and not to_stdout:
        return  # no transcript: never written (standard output still gets the input back)
    if job.mode == "fix" and job.write and (outcome.changed or job.output or to_stdout):
        if to_stdout:
            outcome.stdout = b"".join(new)
        else:
            verify = outcome.source.check if outcome.source is not None else None
            write_atomically(Path(job.output or outcome.path), new, job.backup, verify)
