"""`json` (one array) and `jsonl` (one object per line), shaped by schemas/report.schema.json."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson

from histnorm.diagnostic import Diagnostic
from histnorm.report import record, skipped
from histnorm_cli.job import Skip
from histnorm_cli.reporters import Reporter, Summary


def file_records(
    diagnostics: list[Diagnostic], path: str, items: Sequence[Skip], whole: bool
) -> list[dict[str, Any]]:
    """The records of one file: one for a skipped file, else its diagnostics and one per
    skipped record, in line order."""
    if whole:
        return [skipped(path, items[0].message)]
    found = [record(d) for d in diagnostics]
    found += [skipped(path, s.message, s.line, s.pointer, s.transcript_index) for s in items]
    return sorted(found, key=_line) if items else found


def _line(found: dict[str, Any]) -> tuple[int, int]:
    location = found["location"]
    return (location["line"] or 0, location["transcript_index"] or 0)


class JsonReporter(Reporter):
    """All diagnostics as one JSON array."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.records: list[dict[str, Any]] = []

    def file(self, diagnostics: list[Diagnostic]) -> None:
        """Collect the records of one file."""
        self.records.extend(record(d) for d in diagnostics)

    def report(
        self, diagnostics: list[Diagnostic], path: str, skipped: Sequence[Skip], whole: bool
    ) -> None:
        """Collect the records of one file, what was skipped included."""
        self.records.extend(file_records(diagnostics, path, skipped, whole))

    def finish(self, summary: Summary) -> None:
        """Print the array."""
        self.out.write(orjson.dumps(self.records, option=orjson.OPT_INDENT_2).decode() + "\n")


class JsonLinesReporter(Reporter):
    """One JSON object per diagnostic per line, printed as soon as a file is done."""

    def file(self, diagnostics: list[Diagnostic]) -> None:
        """Print the records of one file."""
        for d in diagnostics:
            self.out.write(orjson.dumps(record(d)).decode() + "\n")

    def report(
        self, diagnostics: list[Diagnostic], path: str, skipped: Sequence[Skip], whole: bool
    ) -> None:
        """Print the records of one file, what was skipped included."""
        for item in file_records(diagnostics, path, skipped, whole):
            self.out.write(orjson.dumps(item).decode() + "\n")
