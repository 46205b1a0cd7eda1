"""Output formats: each reporter turns diagnostics into text for people or machines."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import field
from importlib import import_module
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TextIO

from histnorm._record import record
from histnorm.diagnostic import Diagnostic, Severity, printable
from histnorm.document import Skip

if TYPE_CHECKING:
    from histnorm_cli.diffs import Hunk
    from histnorm_cli.job import Job
    from histnorm_cli.tally import Tally


@record
class Summary:
    """Totals for the end of a run."""

    mode: str
    files: int = 0
    """Files checked (not those that failed: they count in `errors`)."""
    transcripts: int = 0
    counts: Counter[Severity] = field(default_factory=Counter)
    by_code: Counter[str] = field(default_factory=Counter)
    names: dict[str, str] = field(default_factory=dict)
    fixable: int = 0
    unsafe_fixable: int = 0
    fixed: Counter[str] = field(default_factory=Counter)
    changed_files: int = 0
    skipped_files: int = 0
    """Files that hold no transcript at all (skipped: no error)."""
    skipped_records: int = 0
    """Records that are no transcript in files that hold transcripts too."""
    errors: int = 0
    check: bool = False
    datasets: dict[str, Tally] = field(default_factory=dict)
    """What became of the records of each JSONL file read record by record."""
    quarantine: str | None = None
    """Where `fix --quarantine` moved the records it could not make clean."""

    def add(self, diagnostic: Diagnostic, fix_allowed: bool) -> None:
        """Count one diagnostic."""
        self.counts[diagnostic.severity] += 1
        self.by_code[diagnostic.code] += 1
        self.names[diagnostic.code] = diagnostic.name
        if diagnostic.fix is not None:
            if fix_allowed:
                self.fixable += 1
            else:
                self.unsafe_fixable += 1


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def one_line(text: str) -> str:
    """`text` with each control character (a newline in a file name, say) written as a
    backslash escape, so that it stays on its line of a line-based report."""
    if text.isprintable():
        return text
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


def printable_data(value: Any) -> Any:
    """JSON data with every string made `printable` (keys too)."""
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, dict):
        return {printable_data(k): printable_data(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [printable_data(item) for item in value]
    return value


class Printable:
    """A text stream that writes each lone surrogate as a backslash escape: whatever a
    diagnostic quotes, the report stays UTF-8 (the last line of defence; messages are
    made printable where they are built)."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    def write(self, text: str) -> int:
        """Write `text`, lone surrogates escaped."""
        return self.out.write(printable(text))

    def flush(self) -> None:
        """Flush the stream."""
        self.out.flush()

    def isatty(self) -> bool:
        """Whether the stream is a terminal."""
        return self.out.isatty()


class Reporter:
    """Receives diagnostics file by file, then the summary."""

    lists_fixes = False
    """Whether the report lists each fix applied (`applied`) even without `show_fixes`."""
    closes = False
    """Whether the report ends with lines for people (the text report), where the
    `--statistics` table of datasets and the quarantine's count go; for the other formats
    they go to standard error."""
    draws_changes = False
    """Whether `fix --diff` hands the report each change (`changed`) instead of printing
    the diff."""

    def __init__(
        self,
        out: TextIO,
        *,
        color: bool = False,
        quiet: bool = False,
        statistics: bool = False,
        show_fixes: bool = False,
    ) -> None:
        self.out: TextIO = Printable(out)  # type: ignore[assignment]  # what print needs
        self.color = color
        self.quiet = quiet
        self.statistics = statistics
        self.show_fixes = show_fixes

    def plan(self, jobs: Mapping[str, Job]) -> None:
        """Told, before the run starts, each file it reads and how (its job)."""

    def file(self, diagnostics: list[Diagnostic]) -> None:
        """Report the diagnostics of one file."""

    def report(
        self, diagnostics: list[Diagnostic], path: str, skipped: Sequence[Skip], whole: bool
    ) -> None:
        """Report one file: its diagnostics, and what in it was skipped as no transcript
        (`whole`: the file itself). Only machine-readable formats list what was skipped;
        the summary counts it."""
        if diagnostics:
            self.file(diagnostics)

    def applied(self, fixes: list[Diagnostic], path: str) -> None:
        """Report the fixes applied to one file (each the diagnostic it fixed, where it
        was in the file as read), after its diagnostics."""

    def changed(self, path: str, versions: tuple[bytes, bytes] | None, hunks: list[Hunk]) -> None:
        """For `fix --diff` (when `draws_changes`): what a fix would change in one file,
        its bytes before and after (`versions`), or its changed lines (`hunks`, JSONL read
        by line)."""

    def finish(self, summary: Summary) -> None:
        """Report the end of the run."""


_CLASSES: Mapping[str, tuple[str, str]] = MappingProxyType(
    {
        "text": ("text", "TextReporter"),
        "json": ("jsonout", "JsonReporter"),
        "jsonl": ("jsonout", "JsonLinesReporter"),
        "github": ("github", "GithubReporter"),
        "sarif": ("sarif", "SarifReporter"),
        "gitlab": ("gitlab", "GitlabReporter"),
        "junit": ("junit", "JunitReporter"),
        "html": ("html", "HtmlReporter"),
    }
)
"""Each output format's reporter: its module under `histnorm_cli.reporters` and class
(a run imports the one it writes, not the others)."""


def reporter(name: str) -> type[Reporter]:
    """The reporter class for an output format name."""
    module, cls = _CLASSES[name]
    found: type[Reporter] = getattr(import_module(f"histnorm_cli.reporters.{module}"), cls)
    return found


FORMATS = tuple(_CLASSES)
