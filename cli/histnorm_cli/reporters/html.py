"""`html`: one self-contained page for people: the corpus summary, then each transcript
with findings drawn as a conversation (for `fix --diff`, before and after the fix).

The page is built from the same report records as `--output-format json` (see
`jsonout.file_records`); the messages are read back from the files the run read (only
the transcripts with findings), never checked again.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import field
from typing import Any

from histnorm._record import record
from histnorm.diagnostic import Diagnostic
from histnorm.document import Layout, Skip
from histnorm.model import Transcript
from histnorm.report import applied
from histnorm_cli.catalog import describe
from histnorm_cli.diffs import Hunk
from histnorm_cli.job import Job
from histnorm_cli.reporters import Reporter, Summary
from histnorm_cli.reporters.html_changes import change_marks
from histnorm_cli.reporters.html_conversation import conversation
from histnorm_cli.reporters.html_page import Totals, View, build_page
from histnorm_cli.reporters.html_source import (
    Key,
    Reading,
    changed_pairs,
    key_of,
    layout_of,
    transcripts,
)
from histnorm_cli.reporters.jsonout import file_records

CAP = 30_000_000
"""Characters of conversation drawn at most; past it, transcripts list their findings
without their conversation (the page says so)."""


@record
class _File:
    path: str
    findings: list[dict[str, Any]] = field(default_factory=list)
    applied: list[dict[str, Any]] = field(default_factory=list)
    versions: tuple[bytes, bytes] | None = None
    hunks: list[Hunk] = field(default_factory=list)


class HtmlReporter(Reporter):
    """Collects the records of each file, draws its transcripts once the next file
    starts, and writes the page at the end."""

    lists_fixes = True
    draws_changes = True

    def __init__(self, *args: Any, cap: int = CAP, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.cap = cap
        self.drawn = 0
        self.capped = 0
        self.readings: dict[str, Reading | None] = {}
        self.current: _File | None = None
        self.views: list[View] = []
        self.skipped: list[dict[str, Any]] = []
        self.fixed_names: dict[str, str] = {}
        self.written = False
        """Whether `fix` writes the files (their conversation is then drawn as fixed)."""
        self.flag = ""

    def plan(self, jobs: Mapping[str, Job]) -> None:
        """Note how each file is read (standard input cannot be read again)."""
        kept = [job for job in jobs.values() if not job.write]
        self.written = len(kept) < len(jobs)
        if kept:
            self.flag = " --diff" if any(job.diff for job in kept) else " --check"
        self.readings = {
            path: None if job.stdin else Reading(job.format, job.jsonl_mode, job.detect)
            for path, job in jobs.items()
        }

    def _file(self, path: str) -> _File:
        if self.current is None or self.current.path != path:
            self._draw()
            self.current = _File(path)
        return self.current

    def report(
        self, diagnostics: list[Diagnostic], path: str, skipped: Sequence[Skip], whole: bool
    ) -> None:
        """Keep the records of one file."""
        for item in file_records(diagnostics, path, skipped, whole):
            if "skipped" in item:
                self.skipped.append(item)
            else:
                self._file(path).findings.append(item)

    def applied(self, fixes: list[Diagnostic], path: str) -> None:
        """Keep a record per fix applied."""
        entry = self._file(path)
        for d in fixes:
            entry.applied.append(applied(d))
            self.fixed_names[d.code] = d.name

    def changed(self, path: str, versions: tuple[bytes, bytes] | None, hunks: list[Hunk]) -> None:
        """Keep what the fix would change in one file, to draw it before and after."""
        entry = self._file(path)
        entry.versions, entry.hunks = versions, list(hunks)

    def finish(self, summary: Summary) -> None:
        """Write the page."""
        self._draw()
        codes = {c for view in self.views for c in view.codes}
        codes |= set(summary.by_code) | set(summary.fixed)
        docs = {code: text for code in codes if (text := describe(code)) is not None}
        totals = Totals(
            mode=summary.mode,
            files=summary.files,
            transcripts=summary.transcripts,
            skipped=summary.skipped_files + summary.skipped_records,
            by_code=summary.by_code,
            names={**self.fixed_names, **summary.names},
            fixed=summary.fixed,
            errors=summary.errors,
            command=f"histnorm {summary.mode}" + (self.flag if summary.mode == "fix" else ""),
        )
        notes = []
        if self.capped:
            notes.append(
                f"The page reached its size cap ({self.cap:,} characters of conversation): "
                f"{self.capped:,} transcripts list their findings without their conversation."
            )
        self.out.write(build_page(totals, self.views, docs, notes, self.skipped))

    def _draw(self) -> None:
        """Draw the transcripts of the file done (records grouped per transcript)."""
        entry, self.current = self.current, None
        if entry is None:
            return
        reading = self.readings.get(entry.path)
        data = _read(entry.path) if reading is not None and self.drawn < self.cap else None
        layout = None
        if data is not None and reading is not None:
            layout = layout_of(data, entry.path, reading)
        groups: dict[Key, tuple[list[dict[str, Any]], list[dict[str, Any]]]] = defaultdict(
            lambda: ([], [])
        )
        for found in entry.findings:
            groups[key_of(found, layout)][0].append(found)
        for done in entry.applied:
            groups[key_of(done, layout)][1].append(done)
        pairs: dict[Key, tuple[Transcript | None, Transcript | None]] = {}
        if reading is not None and (entry.versions is not None or entry.hunks):
            pairs = changed_pairs(entry.path, entry.versions, entry.hunks, reading)
            if entry.versions is not None:
                data = entry.versions[0]
        for key in pairs:
            groups[key]
        plain = [key for key in groups if key not in pairs]
        read: dict[Key, Transcript] = {}
        if data is not None and reading is not None and plain:
            read = transcripts(data, entry.path, reading, plain)[1]
        array = layout is Layout.JSON and any(k != ("index", 0) for k in groups)
        for key in sorted(groups):
            findings, fixes = groups[key]
            view = View(entry.path, _label(key, array), findings, fixes)
            prefix = f"t{len(self.views)}"
            if self.drawn >= self.cap:
                self.capped += 1
            elif key in pairs:
                view.body = _before_after(pairs[key], findings, fixes, prefix)
                view.split = True
            elif key in read:
                placed = self._placed(findings, fixes)
                view.body = conversation(read[key], placed, prefix)
                if fixes and findings:
                    view.unplaced = "applied" if placed is findings else "findings"
            self.drawn += len(view.body)
            self.views.append(view)

    def _placed(
        self, findings: list[dict[str, Any]], fixes: list[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        """The records whose places are in the file as it is now: the fixes point into
        the file as read, what is left into the file as fixed (the others are listed
        above the conversation only)."""
        if not fixes:
            return findings
        return findings if self.written else fixes


def _label(key: Key, array: bool) -> str:
    kind, number = key
    if kind == "line":
        return f"line {number}"
    return f"transcript {number}" if array else ""


def _read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as stream:
            return stream.read()
    except OSError:
        return None


def _before_after(
    pair: tuple[Transcript | None, Transcript | None],
    findings: list[dict[str, Any]],
    fixes: list[dict[str, Any]],
    prefix: str,
) -> str:
    """The transcript before the fix (the fixes at their places) and after it (what is
    left), messages removed, moved, changed and added marked."""
    before, after = pair
    left: dict[int, tuple[str, str]] = {}
    right: dict[int, tuple[str, str]] = {}
    if before is not None and after is not None:
        left, right = change_marks(before, after)
    first = conversation(before, fixes, f"{prefix}b", left) if before else "(unreadable)"
    second = conversation(after, findings, f"{prefix}", right) if after else "(unreadable)"
    return (
        f'<div class="split"><div class="side before"><h4>Before</h4>{first}</div>'
        f'<div class="side after"><h4>After the fix</h4>{second}</div></div>'
    )
