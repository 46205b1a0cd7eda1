"""`gitlab`: a GitLab Code Quality report (a JSON array of issues) for merge requests."""

from __future__ import annotations

from typing import Any

from histnorm.diagnostic import Diagnostic, Severity
from histnorm_cli.reporters import Reporter, Summary
from histnorm_cli.reporters.fingerprint import fingerprint
from histnorm_cli.reporters.jsonout import ArrayWriter

SEVERITIES = {Severity.ERROR: "major", Severity.WARNING: "minor", Severity.INFO: "info"}
"""histnorm's severities on GitLab's scale (info, minor, major, critical, blocker)."""


def issue(diagnostic: Diagnostic) -> dict[str, Any]:
    """One Code Quality issue."""
    loc = diagnostic.location
    pointer = f" (at {loc.pointer or '/'})" if loc.pointer is not None else ""
    return {
        "description": f"{diagnostic.code} {diagnostic.name}: {diagnostic.message}{pointer}",
        "check_name": diagnostic.code,
        "fingerprint": fingerprint(diagnostic, with_path=True),
        "severity": SEVERITIES[diagnostic.severity],
        "location": {"path": loc.path or "<stdin>", "lines": {"begin": loc.line or 1}},
    }


class GitlabReporter(Reporter):
    """All diagnostics as one array of Code Quality issues, written as they come."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.array = ArrayWriter(self.out)

    def file(self, diagnostics: list[Diagnostic]) -> None:
        """Write the issues of one file."""
        for d in diagnostics:
            self.array.add(issue(d))

    def finish(self, summary: Summary) -> None:
        """End the array."""
        self.array.close()
        self.out.write("\n")
