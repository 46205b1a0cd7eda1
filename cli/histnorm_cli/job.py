"""What to do with a file and what happened to it, shared by the readers of each layout."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from histnorm import jsonio
from histnorm.diagnostic import Diagnostic
from histnorm.document import BOM, Record, looks_like_message, lost_by_rewrite
from histnorm.engine import fix, lint, unreadable
from histnorm.errors import HistnormError
from histnorm.model import Transcript
from histnorm.settings import Settings
from histnorm_cli.files import STDIN
from histnorm_cli.identity import Source

READ_BUFFER = 1 << 20
"""Read JSONL in large blocks: a line often spans many of the default 8 KB ones."""


@dataclass(frozen=True)
class Job:
    """What to do with each file."""

    mode: Literal["lint", "fix"]
    settings: Settings
    format: str | None = None
    jsonl_mode: str = "auto"
    detect: str = "file"
    """`file` (one format per file) or `per-line` (see `histnorm.document.DETECT_MODES`)."""
    file_format: str | None = None
    """The file's format, settled before a share of a large JSONL file is read."""
    write: bool = False
    diff: bool = False
    output: str | None = None
    backup: bool = False
    source: Source | None = None
    """The file as it was when a share of it was cut: it must be so when it is written."""


@dataclass(frozen=True)
class Skip:
    """A record (or a whole file) skipped: valid JSON that holds no transcript."""

    message: str
    line: int | None = None
    pointer: str | None = None
    transcript_index: int | None = None


Hunk = tuple[int, bytes, bytes, bytes]
Emit = Callable[[list[Diagnostic], list[Skip]], object]
"""Takes a chunk of one file's diagnostics and skipped records, in order."""
CHUNK = 1000
"""Diagnostics and skips gathered before `Outcome.flush` hands them on."""
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
    """The file's format (per-line detection: the last line's, tried first on the next)."""
    skipped: list[Skip] = field(default_factory=list)
    """Records that are no transcript (not read, never written)."""
    lines: int = 0
    """Lines read (JSONL read line by line)."""
    hunks: list[Hunk] = field(default_factory=list)
    """Changed lines (number, old, new, line ending), for `--diff` of JSONL read by line."""
    part_file: str | None = None
    """Where a worker wrote its share of a split file's new content."""
    source: Source | None = None
    """The file as it was read: it must still be so when its new content replaces it."""
    skipped_count: int = 0
    """Records skipped so far, those already handed to `emit` included."""
    emit: Emit | None = field(default=None, repr=False, compare=False)
    """Where `flush` hands the diagnostics and skips found so far (None: they are kept)."""

    @property
    def skipped_file(self) -> bool:
        """Whether the whole file is no transcript: every record in it was skipped."""
        return self.skipped_count > 0 and self.transcripts == 0 and self.error is None

    def skip(self, error: HistnormError, line: int | None = None, index: int | None = None) -> None:
        """Count one record that is no transcript."""
        self.skipped.append(Skip(error.message, line, error.pointer, index))
        self.skipped_count += 1

    def flush(self, force: bool = False) -> None:
        """Hand what was found so far to `emit`, once `CHUNK` items are waiting (or
        `force`); call it only between records, so that each record's findings travel
        together. Skips wait until a transcript is seen: a file of nothing but skipped
        records is reported as one skipped file."""
        waiting = len(self.diagnostics) + (len(self.skipped) if self.transcripts else 0)
        if self.emit is None or not waiting or (waiting < CHUNK and not force):
            return
        diagnostics, self.diagnostics = self.diagnostics, []
        skipped: list[Skip] = []
        if self.transcripts:
            skipped, self.skipped = self.skipped, []
        self.emit(diagnostics, skipped)


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


def message_line(line: bytes) -> bool:
    """Whether a JSONL line is one message or session event (not a whole transcript)."""
    try:
        value = jsonio.loads_typed(line.removeprefix(BOM))  # keys and types are enough
    except HistnormError:
        return False
    return looks_like_message(value)


def handle(
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
