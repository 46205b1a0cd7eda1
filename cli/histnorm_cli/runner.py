"""Linting and fixing one file: JSON documents whole, JSONL streamed line by line."""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Literal

from histnorm import jsonio
from histnorm.diagnostic import Diagnostic
from histnorm.document import (
    BOM,
    Document,
    Layout,
    Record,
    looks_like_message,
    lost_by_rewrite,
    parse_line,
    pick_format,
    read_json,
    read_jsonl,
    read_value,
    single_value,
    write,
    write_line,
)
from histnorm.engine import FixDidNotConverge, fix, lint, proven_clean, unreadable
from histnorm.errors import HistnormError
from histnorm.linemap import lines_for
from histnorm.model import Transcript
from histnorm.settings import Settings
from histnorm_cli.files import STDIN, LazyWriter, write_atomically

READ_BUFFER = 1 << 20
"""Read JSONL in large blocks: a line often spans many of the default 8 KB ones."""


@dataclass(frozen=True)
class Job:
    """What to do with each file."""

    mode: Literal["lint", "fix"]
    settings: Settings
    format: str | None = None
    jsonl_mode: str = "auto"
    write: bool = False
    diff: bool = False
    output: str | None = None
    backup: bool = False


Hunk = tuple[int, bytes, bytes, bytes]
Sink = Callable[[bytes, bool], object]
"""Takes each line of the new content, and whether it is the line as read."""


@dataclass
class Outcome:
    """What happened to one file."""

    path: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    changed: bool = False
    applied: Counter[str] = field(default_factory=Counter)
    diff: str = ""
    error: str | None = None
    stdout: bytes | None = None
    transcripts: int = 0
    detected: str | None = None
    """The format of the last line read, tried first on the next line of a JSONL file."""
    lines: int = 0
    """Lines read (JSONL read line by line)."""
    hunks: list[Hunk] = field(default_factory=list)
    """Changed lines (number, old, new, line ending), for `--diff` of JSONL read by line."""
    part_file: str | None = None
    """Where a worker wrote its share of a split file's new content."""


def is_jsonl(path: str, data: bytes | None) -> bool:
    """JSONL by file name; for stdin, when the bytes are not one JSON document."""
    if path != STDIN:
        return Path(path).suffix.lower() == ".jsonl"
    assert data is not None
    try:
        jsonio.loads(data.removeprefix(BOM))
    except HistnormError:
        return b"\n" in data.strip()
    return False


def _handle(
    record: Record, job: Job, outcome: Outcome, raw: bytes, spliced: bool = False
) -> tuple[Transcript, list[Diagnostic]]:
    """Lint or fix one transcript; `raw` is the text it was read from (its own bytes, or
    the whole document) and is checked for repeated keys before any rewrite."""
    transcript = record.transcript
    assert transcript is not None
    if job.mode == "lint":
        return transcript, list(lint(transcript, job.settings))
    result = fix(transcript, job.settings)
    if result.changed:
        repeated = lost_by_rewrite(record, result.transcript, raw, spliced=spliced)
        if repeated is not None:
            refusal = HistnormError(
                f"the key at {repeated} appears twice in one object; the transcript is not "
                "rewritten, because a rewrite would keep only the last value",
                pointer=repeated,
            )
            return transcript, [unreadable(refusal), *lint(transcript, job.settings)]
    outcome.applied.update(result.applied)
    return result.transcript, list(result.remaining)


def run(path: str, job: Job, data: bytes | None = None) -> Outcome:
    """Lint or fix one file (or stdin, given as `data`); never raises for bad input."""
    return guarded(Outcome(path), lambda outcome: _run(outcome, job, data))


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
        with open(path, "rb", buffering=READ_BUFFER) as stream:
            first = stream.readline()
            if job.jsonl_mode == "transcript" or not message_line(first):
                stream.seek(0)
                _run_lines(stream, job, outcome)
                return
    if data is None:
        data = Path(path).read_bytes()
    if _plain_document(data, job, outcome):
        return
    if is_jsonl(path, data):
        document = read_jsonl(data, job.format, job.jsonl_mode)
    else:
        document = read_json(data, job.format)
    _run_document(document, data, job, outcome)


def _plain_document(data: bytes, job: Job, outcome: Outcome) -> bool:
    """Handle a one-transcript document proven clean without building models (nothing to
    report or change; a fix with an output still writes the copy). False: not proven."""
    value = single_value(data, is_jsonl(outcome.path, data), job.jsonl_mode)
    if value is None:
        return False
    format = pick_format(value, job.format)
    if format is None or not proven_clean(value, format, job.settings):
        return False
    outcome.transcripts += 1
    to_stdout = outcome.path == STDIN or job.output == STDIN
    if job.mode == "fix" and job.write and to_stdout:
        outcome.stdout = data
    elif job.mode == "fix" and job.write and job.output:
        write_atomically(Path(job.output), data, job.backup)
    return True


def message_line(line: bytes) -> bool:
    """Whether a JSONL line is one message or session event (not a whole transcript)."""
    try:
        value = jsonio.loads(line.removeprefix(BOM))
    except HistnormError:
        return False
    return looks_like_message(value)


def _run_lines(stream: BinaryIO, job: Job, outcome: Outcome) -> None:
    writer = None
    target = Path(job.output) if job.output and job.output != STDIN else Path(outcome.path)
    if job.mode == "fix" and job.write and outcome.path != STDIN and job.output != STDIN:
        writer = LazyWriter(Path(outcome.path), target)
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


def _run_line(content: bytes, number: int, job: Job, outcome: Outcome) -> bytes:
    outcome.transcripts += 1
    try:  # types and strings are all a plain shape needs; numbers are read exactly below
        value = jsonio.loads_typed(content)
    except HistnormError:
        record = parse_line(content, number)  # the exact reader says what is wrong
    else:
        format = pick_format(value, job.format, outcome.detected)
        if format is not None and job.format is None:
            outcome.detected = format  # tried first on the next line
        if format is not None and proven_clean(value, format, job.settings):
            return content  # nothing to report or fix: no models built
        if jsonio.has_long_number(content):
            value = parse_line(content, number)
        record = value if isinstance(value, Record) else read_value(value, number, format, content)
    if record.transcript is None:
        assert record.error is not None
        outcome.diagnostics.append(unreadable(record.error).at(path=outcome.path, line=number))
        return content
    fixed, found = _handle(record, job, outcome, content)
    for diagnostic in found:
        outcome.diagnostics.append(diagnostic.at(path=outcome.path, line=number))
    return write_line(record, fixed) if job.mode == "fix" else content


def render_hunks(path: str, hunks: Iterable[Hunk]) -> str:
    """One-line hunks that `patch` applies: same line endings, and the end-of-file marker."""
    out = []
    for number, old, new, ending in hunks:
        end = ending.decode() if ending else "\n\\ No newline at end of file\n"
        before = old.decode("utf-8", "replace")
        after = new.decode("utf-8", "replace")
        out.append(f"@@ -{number} +{number} @@\n-{before}{end}+{after}{end}")
    return f"--- {path}\n+++ {path}\n" + "".join(out) if out else ""


def _run_document(document: Document, data: bytes, job: Job, outcome: Outcome) -> None:
    results: list[Transcript | None] = []
    found: list[tuple[int, Diagnostic]] = []
    for index, record in enumerate(document.records):
        outcome.transcripts += 1
        if record.transcript is None:
            assert record.error is not None
            error = unreadable(record.error)
            found.append((index, error.at(line=record.error.line or record.line)))
            results.append(None)
            continue
        spliced = document.layout in (Layout.JSON, Layout.JSON_ARRAY)
        fixed, diagnostics = _handle(record, job, outcome, data, spliced)
        results.append(fixed)
        found.extend((index, d.at(line=record.line) if record.line else d) for d in diagnostics)
    new = write(document, results) if job.mode == "fix" else data
    outcome.changed = new != data
    _place(document, new, found, outcome)
    if job.mode == "fix" and job.diff and outcome.changed:
        outcome.diff = _unified(outcome.path, data, new)
    to_stdout = outcome.path == STDIN or job.output == STDIN
    if job.mode == "fix" and job.write and (outcome.changed or job.output or to_stdout):
        if to_stdout:
            outcome.stdout = new
        else:
            write_atomically(Path(job.output or outcome.path), new, job.backup)


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
        starts = [n for n, line in enumerate(text.splitlines(), 1) if line.strip()]
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
