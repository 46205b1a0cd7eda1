"""What to do with a file and what happened to it: the CLI's side of `histnorm.document`."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import field
from typing import Literal

from histnorm._record import record
from histnorm.diagnostic import Diagnostic
from histnorm.document import DocumentResult, LineResult, Skip
from histnorm.settings import Settings
from histnorm_cli.diffs import Hunk
from histnorm_cli.identity import Source
from histnorm_cli.tally import Tally

READ_BUFFER = 1 << 20
"""Read JSONL in large blocks: a line often spans many of the default 8 KB ones."""


@record(frozen=True)
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
    show_fixes: bool = False
    """Keep each fix applied, with its place (`Outcome.fixes`), for the report."""
    source: Source | None = None
    """The file as it was when a share of it was cut: it must be so when it is written."""
    versions: bool = False
    """Keep a changed document's bytes as read and as fixed (`Outcome.versions`), for a
    report that draws the change (`fix --diff --output-format html`)."""
    stdin: bool = False
    """The bytes come from standard input: the path only names them (`--stdin-filename`),
    and `fix` writes to standard output."""
    database: str | None = None
    """The connection string of a PostgreSQL database (`histnorm_cli.postgres`), password
    and all; the path names it without its password."""


Emit = Callable[[list[Diagnostic], list[Skip]], object]
"""Takes a chunk of one file's diagnostics and skipped records, in order."""
CHUNK = 1000
"""Diagnostics and skips gathered before `Outcome.flush` hands them on."""
Sink = Callable[[bytes, bool], object]
"""Takes each line of the new content, and whether it is the line as read."""


@record
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
    skipped: list[Skip] = field(default_factory=list)
    """Records that are no transcript (not read, never written)."""
    lines: int = 0
    """Lines read (JSONL read line by line)."""
    hunks: list[Hunk] = field(default_factory=list)
    """Changed lines (number, old, new, line ending, rules), for `--diff` of JSONL read by
    line."""
    fixes: list[Diagnostic] = field(default_factory=list)
    """Each fix applied, where it was (kept when the job says `show_fixes`)."""
    part_file: str | None = None
    """Where a worker wrote its share of a split file's new content."""
    source: Source | None = None
    """The file as it was read: it must still be so when its new content replaces it."""
    versions: tuple[bytes, bytes] | None = None
    """A changed document's bytes as read and as fixed (kept when the job says
    `versions`; JSONL read by line keeps its changed lines in `hunks` instead)."""
    skipped_count: int = 0
    """Records skipped so far, those already handed to `emit` included."""
    tally: Tally | None = None
    """What became of each record, for a file read record by record (a dataset)."""
    emit: Emit | None = field(default=None, repr=False, compare=False)
    """Where `flush` hands the diagnostics and skips found so far (None: they are kept)."""

    @property
    def skipped_file(self) -> bool:
        """Whether the whole file is no transcript: every record in it was skipped."""
        return self.skipped_count > 0 and self.transcripts == 0 and self.error is None

    def take_document(self, result: DocumentResult, fixes: bool = False) -> None:
        """Count what `histnorm.document` found in the whole file (and keep its `fixes`)."""
        self.transcripts += result.transcripts
        self.skipped.extend(result.skipped)
        self.skipped_count += len(result.skipped)
        self.diagnostics.extend(d.at(path=self.path) for d in result.diagnostics)
        self.applied.update(result.applied)
        self.changed = result.changed
        if fixes:
            self.fixes.extend(d.at(path=self.path) for d in result.fixes)

    def take_line(self, result: LineResult, diff: bool, fixes: bool = False) -> None:
        """Count what `histnorm.document` found in one line of JSONL (and keep its `fixes`)."""
        self.lines = result.number
        if self.tally is None:
            self.tally = Tally()
        self.tally.line(result)
        if result.skip is not None:
            self.skipped.append(result.skip)
            self.skipped_count += 1
        elif result.transcript:
            self.transcripts += 1
        if result.diagnostics:
            self.diagnostics.extend(d.at(path=self.path) for d in result.diagnostics)
        self.applied.update(result.applied)
        if fixes and result.fixes:
            self.fixes.extend(d.at(path=self.path) for d in result.fixes)
        if result.output is not None:
            self.changed = True
            if diff and result.hunk is not None:
                self.hunks.append((*result.hunk, tuple(sorted(result.applied))))

    def take_moved(self, result: LineResult) -> None:
        """Count a record of JSONL that `fix --quarantine` moved out of the file: its
        diagnostics and fixes go with it (see `histnorm_cli.quarantine`)."""
        self.lines = result.number
        self.transcripts += 1
        self.changed = True
        if self.tally is None:
            self.tally = Tally()
        self.tally.moved(result)

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
