"""One file's findings on their way to the reporter, chunk by chunk as they are found."""

from __future__ import annotations

import sys
from dataclasses import replace

from histnorm.diagnostic import Diagnostic, printable
from histnorm.document import Skip
from histnorm.engine import fix_allowed
from histnorm.settings import Settings
from histnorm_cli.job import Outcome
from histnorm_cli.reporters import Reporter, Summary, one_line


class PipeClosed(BaseException):
    """Standard output was closed by its reader (`histnorm lint | head`): the run ends.
    A BaseException, so that the per-file error handling does not take it for an
    unreadable file."""


def shown(path: str) -> str:
    """`path` as it can be printed: bytes that are not UTF-8 (kept by the file system
    encoding as surrogates) are written as backslash escapes, e.g. `bad\\xff.json`."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return path


def shifted(
    diagnostics: list[Diagnostic], skipped: list[Skip], offset: int
) -> tuple[list[Diagnostic], list[Skip]]:
    """The findings of a share of a file whose lines start after line `offset`."""
    if not offset:
        return diagnostics, skipped
    return (
        [
            d.at(line=d.location.line + offset) if d.location.line is not None else d
            for d in diagnostics
        ],
        [replace(s, line=s.line + offset) if s.line is not None else s for s in skipped],
    )


class Feed:
    """Counts one file's findings in the summary and passes them to the reporter as they
    come. Skips wait until the file is known to hold a transcript (a file of nothing but
    skipped records is reported once, as a skipped file); with `hold` (`fix --diff`, which
    prints the diff instead of the diagnostics when there is one) everything waits for
    the end of the file."""

    def __init__(
        self, path: str, report: Reporter, summary: Summary, settings: Settings, hold: bool
    ) -> None:
        self.path = path
        self.shown = shown(path)
        self.report = report
        self.summary = summary
        self.settings = settings
        self.hold = hold
        self.waiting: list[Skip] = []
        self.held: list[Diagnostic] = []
        self.held_skips: list[Skip] = []

    def take(self, diagnostics: list[Diagnostic], skipped: list[Skip]) -> None:
        """Report a chunk of findings of a part of the file known to hold a transcript."""
        diagnostics = sorted(diagnostics, key=lambda d: d.sort_key())
        for diagnostic in diagnostics:
            self.summary.add(diagnostic, fix_allowed(diagnostic, self.settings))
        skipped = self.waiting + skipped
        self.waiting = []
        self.summary.skipped_records += len(skipped)
        if self.hold:
            self.held.extend(diagnostics)
            self.held_skips.extend(skipped)
            return
        self._report(diagnostics, skipped, whole=False)

    def share(self, outcome: Outcome, offset: int = 0) -> None:
        """What a share of the file (a part, or all of it) kept back at its end."""
        diagnostics, skipped = shifted(outcome.diagnostics, outcome.skipped, offset)
        outcome.diagnostics, outcome.skipped = [], []
        if outcome.transcripts or diagnostics:
            self.take(diagnostics, skipped)
        else:
            self.waiting.extend(skipped)

    def finish(self, outcome: Outcome) -> None:
        """The end of the file: totals, error, what was kept back, diff, output."""
        summary = self.summary
        summary.files += outcome.error is None  # a file that failed was not checked
        summary.transcripts += outcome.transcripts
        if outcome.error is not None:
            error = one_line(printable(outcome.error.replace(self.path, self.shown)))
            print(f"histnorm: error: {error}", file=sys.stderr)
            summary.errors += 1
        if outcome.skipped_file:
            summary.skipped_files += 1
            whole, self.waiting = self.waiting + outcome.skipped, []
            outcome.skipped = []
            if not outcome.diff:
                self._report([], whole, whole=True)
        else:
            self.share(outcome)
            if self.waiting:
                self.take([], [])
        summary.fixed.update(outcome.applied)
        if outcome.tally is not None and outcome.error is None and not outcome.skipped_file:
            summary.datasets[self.shown] = outcome.tally
        fixes, outcome.fixes = outcome.fixes, []
        if outcome.changed:
            summary.changed_files += 1
        try:
            if outcome.diff and not self.report.draws_changes:
                sys.stdout.flush()
                sys.stdout.buffer.write(outcome.diff.encode("utf-8", "surrogateescape"))
            else:
                self._report(self.held, self.held_skips, whole=False)
            if outcome.diff and self.report.draws_changes:
                self.report.changed(self.shown, outcome.versions, outcome.hunks)
            if fixes:
                if self.shown != self.path:
                    fixes = [d.at(path=self.shown) for d in fixes]
                self.report.applied(fixes, self.shown)
            if outcome.stdout is not None:
                sys.stdout.flush()
                sys.stdout.buffer.write(outcome.stdout)
                sys.stdout.flush()
        except BrokenPipeError:
            raise PipeClosed from None

    def _report(self, diagnostics: list[Diagnostic], skipped: list[Skip], whole: bool) -> None:
        if not diagnostics and not skipped:
            return
        if self.shown != self.path:
            diagnostics = [d.at(path=self.shown) for d in diagnostics]
        try:
            self.report.report(diagnostics, self.shown, skipped, whole)
        except BrokenPipeError:
            raise PipeClosed from None
