"""`text`: one line per diagnostic (`path:line: CODE [*] message`), then a summary."""

from __future__ import annotations

from typing import Any

from histnorm.diagnostic import Diagnostic, Severity
from histnorm_cli.reporters import Reporter, Summary, one_line
from histnorm_cli.tally import dataset_lines, records_line

_COLORS = {Severity.ERROR: "31", Severity.WARNING: "33", Severity.INFO: "36"}


def where(diagnostic: Diagnostic) -> str:
    """`path:line`, `path`, or `<input>` when nothing is known."""
    loc = diagnostic.location
    path = one_line(loc.path or "<input>")
    return f"{path}:{loc.line}" if loc.line is not None else path


def fix_line(diagnostic: Diagnostic) -> str:
    """What one fix did: `CODE path:line /pointer: action (the diagnostic it fixed)`."""
    pointer = diagnostic.location.pointer
    at = f" {pointer or '/'}" if pointer is not None else ""
    title = diagnostic.fix.title if diagnostic.fix is not None else "fixed"
    return one_line(f"  {diagnostic.code} {where(diagnostic)}{at}: {title} ({diagnostic.message})")


class TextReporter(Reporter):
    """Human-readable lines, coloured on a terminal."""

    closes = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fixes: list[str] = []

    def _paint(self, text: str, code: str) -> str:
        return f"\033[{code}m{text}\033[0m" if self.color else text

    def file(self, diagnostics: list[Diagnostic]) -> None:
        """Print one line per diagnostic (none with `--statistics`: counts only)."""
        if self.statistics:
            return
        for d in diagnostics:
            mark = " [*]" if d.fix is not None else ""
            pointer = f" (at {d.location.pointer or '/'})" if d.location.pointer is not None else ""
            code = self._paint(d.code, "1;" + _COLORS[d.severity])
            text = one_line(f"{d.message}{pointer}")
            print(f"{self._paint(where(d), '1')}: {code}{mark} {text}", file=self.out)

    def applied(self, fixes: list[Diagnostic], path: str) -> None:
        """With `--show-fixes`, keep a line per fix for the end of the run."""
        if self.show_fixes:
            self.fixes.extend(fix_line(d) for d in fixes)

    def finish(self, summary: Summary) -> None:
        """Print statistics (if asked), the fixes (with `--show-fixes`) and the totals."""
        if self.statistics:
            for code, count in sorted(summary.by_code.items()):
                print(f"{count:>6}  {code}  {summary.names[code]}", file=self.out)
            for line in dataset_lines(summary):
                print(one_line(line), file=self.out)
        if self.fixes:
            heading = "Fixes that would be applied:" if summary.check else "Applied fixes:"
            print(heading, *self.fixes, sep="\n", file=self.out)
        if self.quiet:
            return
        for line in summary_lines(summary):
            print(line, file=self.out)


def summary_lines(summary: Summary) -> list[str]:
    """The closing lines: what was found, fixed and could still be fixed."""
    total = sum(summary.counts.values())
    lines = []
    fixed = sum(summary.fixed.values())
    if summary.mode == "fix" and fixed:
        verb = "Would fix" if summary.check else "Fixed"
        files = f" in {summary.changed_files} file{'s' if summary.changed_files != 1 else ''}"
        lines.append(f"{verb} {fixed} diagnostic{'s' if fixed != 1 else ''}{files}.")
    if total == 0 and fixed:
        if not summary.check:  # with --check/--diff nothing was written
            lines.append("No diagnostics remain.")
    elif total == 0 and summary.errors and not summary.files:
        pass  # no path could be checked: the errors line says so
    elif total == 0 and not summary.errors:  # a path that failed was not checked
        lines.append("All checks passed!")
    elif total == 0 and summary.files:
        files = f"{summary.files} file{'s' if summary.files != 1 else ''}"
        lines.append(f"No diagnostics in the {files} checked.")
    else:
        parts = [
            f"{summary.counts[s]} {s.value}{'s' if summary.counts[s] != 1 else ''}"
            for s in Severity
            if summary.counts[s]
        ]
        lines.append(
            f"Found {total} diagnostic{'s' if total != 1 else ''} ({', '.join(parts)}) "
            f"in {summary.transcripts} transcript{'s' if summary.transcripts != 1 else ''}."
        )
        if summary.fixable and summary.mode == "lint":
            lines.append(f"[*] {summary.fixable} fixable with `histnorm fix`.")
        if summary.unsafe_fixable:
            lines.append(f"{summary.unsafe_fixable} more fixable with `--unsafe-fixes`.")
    if summary.quarantine is not None:
        lines.append(one_line(records_line(summary, summary.quarantine)))
    for count, what in ((summary.skipped_files, "file"), (summary.skipped_records, "record")):
        if count:
            lines.append(f"{count} {what}{'s' if count != 1 else ''} skipped: not a transcript.")
    if summary.errors:
        lines.append(
            f"{summary.errors} path{'s' if summary.errors != 1 else ''} could not be processed."
        )
    return lines
