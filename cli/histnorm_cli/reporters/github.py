"""`github`: GitHub Actions workflow commands that annotate the files in a pull request."""

from __future__ import annotations

from histnorm.diagnostic import Diagnostic, Severity
from histnorm_cli.reporters import Reporter, Summary
from histnorm_cli.reporters.text import summary_lines

_LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


class GithubReporter(Reporter):
    """`::error file=…,line=…,title=…::message`, one per diagnostic, grouped per file."""

    def file(self, diagnostics: list[Diagnostic]) -> None:
        """Print the annotations of one file."""
        for d in diagnostics:
            loc = d.location
            fields = [
                f"file={_property(loc.path or '')}",
                f"line={loc.line or 1}",
                f"title={_property(f'{d.code} {d.name}')}",
            ]
            pointer = f" (at {loc.pointer or '/'})" if loc.pointer is not None else ""
            print(
                f"::{_LEVELS[d.severity]} {','.join(fields)}::{_data(d.message + pointer)}",
                file=self.out,
            )

    def finish(self, summary: Summary) -> None:
        """Print the totals as plain lines (GitHub shows them in the log)."""
        if not self.quiet:
            for line in summary_lines(summary):
                print(line, file=self.out)
