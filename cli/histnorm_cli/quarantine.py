"""`fix --quarantine BAD.jsonl`: split JSONL datasets into the records fix makes clean
(kept where they were, in order) and those it cannot (appended to BAD.jsonl, in order).

A record is quarantined when, after the fix, it still has an error (a warning too with
`--strict`): a line that is not JSON, a record that cannot be read as a transcript, a fix
refused or not allowed. Records that are not a transcript stay where they are, as `fix`
leaves them. Each entry of BAD.jsonl is one JSON object: `reason` (`file`, 1-based
`line`, `diagnostics` with code, name, severity, message and pointer), then `record` (the
record's own bytes) or, for a line that is not JSON, `raw` (its text; `raw_base64` when
it is not UTF-8).

No record is lost: BAD.jsonl is written (atomically, with what it held kept) before the
file the records leave, and put back as it was if that file cannot be written. A run
stopped in between leaves a record in both places, never in neither.
"""

from __future__ import annotations

import base64
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

import histnorm.jsonio as jsonio
from histnorm.document import LineResult, check_lines, is_jsonl
from histnorm.document.layout import BOM
from histnorm.errors import HistnormError
from histnorm.report import quarantined, reason_record
from histnorm_cli.feed import shown
from histnorm_cli.files import STDIN, AtomicWriter, LazyWriter
from histnorm_cli.identity import Source, open_regular
from histnorm_cli.job import READ_BUFFER, Emit, Job, Outcome
from histnorm_cli.lines import head_format, verifier
from histnorm_cli.per_file import guarded, messages_first
from histnorm_cli.reporters import printable_data

if TYPE_CHECKING:
    from histnorm_cli.run import Request

Item = tuple[str, Job, bytes | None]


def refusal(request: Request, items: list[Item]) -> str | None:
    """Why `--quarantine` cannot run as asked (None: it can); checked before anything is
    read or written."""
    bad = request.quarantine
    assert bad is not None
    if bad == STDIN:
        return "--quarantine takes a file to write the quarantined records to, not -"
    for flag, given in (("--diff", request.diff), ("--check", request.check)):
        if given:
            return (
                f"--quarantine writes the records it moves to {shown(bad)}, and {flag} "
                "writes nothing: leave one of them out"
            )
    if STDIN in request.paths:
        return "--quarantine splits files in place, not standard input: name the files"
    if request.output == STDIN:
        return "--quarantine writes files, not standard output: give -o a file, or leave it out"
    if request.output is not None and _same(bad, request.output):
        return f"--quarantine {shown(bad)} is also the output (-o): name another file"
    for path, job, _ in items:
        problem = _not_dataset(path, job)
        if problem is not None:
            return problem
        if _same(bad, path):
            return (
                f"--quarantine {shown(bad)} is also an input: name another file, or leave "
                f"it out (--exclude {shown(bad)})"
            )
    return None


def _not_dataset(path: str, job: Job) -> str | None:
    """Why `path` is not a dataset of one record per line (None: it is)."""
    where = shown(path)
    if not is_jsonl(path, None):
        return (
            f"{where}: not a JSONL dataset: --quarantine splits files of one transcript per "
            "line (*.jsonl); fix this file without --quarantine"
        )
    if job.jsonl_mode == "message":
        return (
            f"{where}: --jsonl-mode message reads the file as one transcript, which "
            "--quarantine cannot split"
        )
    if job.jsonl_mode == "auto":
        try:
            with open_regular(path) as stream:
                if messages_first(stream):
                    return (
                        f"{where}: one transcript (its first line is a message), not a dataset "
                        "of one transcript per line: fix it without --quarantine, or say "
                        "--jsonl-mode transcript"
                    )
        except OSError:
            return None  # the run reports it, as for any file
    return None


def _same(one: str, other: str) -> bool:
    try:
        return os.path.samefile(one, other)
    except OSError:
        return os.path.abspath(one) == os.path.abspath(other)


class Quarantine:
    """The quarantine file, and each dataset's records split between it and the file."""

    def __init__(self, path: str, strict: bool) -> None:
        self.path = Path(path)
        self.strict = strict

    def process(self, task: Any, emit: Emit | None = None) -> Outcome:
        """Fix one dataset, moving the records fix cannot make clean; never raises for
        bad input (as `histnorm_cli.per_file.run_file`)."""
        path, job, _ = task
        return guarded(Outcome(path, emit=emit), lambda outcome: self._split(outcome, job))

    def _split(self, outcome: Outcome, job: Job) -> None:
        path = outcome.path
        with open_regular(path, READ_BUFFER) as stream:
            outcome.source = Source.of(path, stream)
            file_format = head_format(stream, job)
            target = Path(job.output or path)
            writer = LazyWriter(Path(path), target, stream, verifier(stream, outcome))
            moved: list[bytes] = []
            try:
                results = check_lines(
                    stream,
                    job.mode,
                    job.settings,
                    format=job.format,
                    detect=job.detect,
                    file_format=file_format,
                )
                for result in results:
                    if result.transcript and quarantined(result.diagnostics, strict=self.strict):
                        moved.append(entry(shown(path), result))
                        outcome.take_moved(result)
                        bom = result.number == 1 and result.raw.startswith(BOM)
                        writer.write(BOM if bom else b"", False)  # the file changes here
                    else:
                        outcome.take_line(result, False, job.show_fixes)
                        writer.write(result.new_bytes, result.output is None)
                    outcome.flush()
                mark = self._append(moved) if moved else None
                try:
                    writer.commit(always=bool(job.output), backup=job.backup)
                except BaseException:
                    if moved:
                        self._restore(mark)
                    raise
            finally:
                writer.discard()

    def _append(self, entries: list[bytes]) -> int | None:
        """Add `entries` to the quarantine file; how long it was (None: not there)."""
        length = self._length()
        with AtomicWriter(self.path) as writer:
            if length:
                self._copy(writer, length)
                if not self._ends_line(length):
                    writer.write(b"\n")
            for item in entries:
                writer.write(item)
            writer.commit()
        return length

    def _restore(self, length: int | None) -> None:
        """Put the quarantine file back as it was `length` bytes long (None: remove it)."""
        if length is None:
            self.path.unlink(missing_ok=True)
            return
        with AtomicWriter(self.path) as writer:
            self._copy(writer, length)
            writer.commit()

    def _length(self) -> int | None:
        try:
            return os.stat(self.path).st_size
        except FileNotFoundError:
            return None

    def _ends_line(self, length: int) -> bool:
        with open_regular(str(self.path)) as source:
            return os.pread(source.fileno(), 1, length - 1) == b"\n"

    def _copy(self, writer: AtomicWriter, length: int) -> None:
        with open_regular(str(self.path)) as source:
            offset = 0
            while offset < length:
                block = os.pread(source.fileno(), min(length - offset, 1 << 20), offset)
                if not block:
                    break
                writer.write(block)
                offset += len(block)


def entry(path: str, result: LineResult) -> bytes:
    """The quarantine's line for one record: its reason, then the record itself."""
    content = result.raw.rstrip(b"\r\n")
    if result.number == 1:
        content = content.removeprefix(BOM)
    content = content.strip()
    reason = {
        "file": path,
        "line": result.number,
        "diagnostics": [reason_record(d) for d in result.diagnostics],
    }
    head = b'{"reason":' + _dumps(reason)
    try:
        jsonio.loads(content)
    except HistnormError:
        try:
            return head + b',"raw":' + _dumps(content.decode("utf-8")) + b"}\n"
        except UnicodeDecodeError:
            return head + b',"raw_base64":' + _dumps(base64.b64encode(content).decode()) + b"}\n"
    return head + b',"record":' + content + b"}\n"


def _dumps(value: Any) -> bytes:
    try:
        return orjson.dumps(value)
    except TypeError:  # a lone surrogate (a file name that is not UTF-8)
        return orjson.dumps(printable_data(value))
