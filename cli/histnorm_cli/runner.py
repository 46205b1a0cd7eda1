"""Linting and fixing one file: JSON documents whole, JSONL streamed line by line."""

from __future__ import annotations

from collections.abc import Callable

from histnorm.document import read_json, read_jsonl
from histnorm.engine import FixDidNotConverge
from histnorm_cli.documents import plain_document, run_document
from histnorm_cli.identity import Source, open_regular, read_regular
from histnorm_cli.job import READ_BUFFER, Emit, Job, Outcome, is_jsonl, message_line
from histnorm_cli.lines import run_file_lines

__all__ = ["READ_BUFFER", "Job", "Outcome", "guarded", "is_jsonl", "message_line", "run"]


def run(path: str, job: Job, data: bytes | None = None, emit: Emit | None = None) -> Outcome:
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
        outcome.changed = False
    return outcome


def _run(outcome: Outcome, job: Job, data: bytes | None) -> None:
    path = outcome.path
    if data is None and is_jsonl(path, None) and job.jsonl_mode != "message":
        with open_regular(path, READ_BUFFER) as stream:
            outcome.source = Source.of(path, stream)
            first = stream.readline()
            if job.jsonl_mode == "transcript" or not message_line(first):
                stream.seek(0)
                run_file_lines(stream, job, outcome)
                return
    if data is None:
        data, outcome.source = read_regular(path)
    if plain_document(data, job, outcome):
        return
    if is_jsonl(path, data):
        document = read_jsonl(data, job.format, job.jsonl_mode, job.detect)
    else:
        document = read_json(data, job.format, job.detect)
    run_document(document, data, job, outcome)
