"""`json` (one array) and `jsonl` (one object per line), shaped by schemas/report.schema.json."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson

from histnorm.diagnostic import Diagnostic
from histnorm.report import record, skipped
from histnorm_cli.job import Skip
from histnorm_cli.reporters import Reporter, Summary


def skipped_records(path: str, items: Sequence[Skip], whole: bool) -> list[dict[str, Any]]:
    """One record for a skipped file, or one per skipped record of a file."""
    if whole:
        return [skipped(path, items[0].message)]
    return [skipped(path, s.message, s.line, s.pointer, s.transcript_index) for s in items]


class JsonReporter(Reporter):
    """All diagnostics as one JSON array."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.records: list[dict[str, Any]] = []

    def file(self, diagnostics: list[Diagnostic]) -> None:
        """Collect the records of one file."""
        self.records.extend(record(d) for d in diagnostics)

    def skipped(self, path: str, items: Sequence[Skip], *, whole: bool) -> None:
        """Collect the records of what was skipped."""
        self.records.extend(skipped_records(path, items, whole))

    def finish(self, summary: Summary) -> None:
        """Print the array."""
        self.out.write(orjson.dumps(self.records, option=orjson.OPT_INDENT_2).decode() + "\n")


class JsonLinesReporter(Reporter):
    """One JSON object per diagnostic per line, printed as soon as a file is done."""

    def file(self, diagnostics: list[Diagnostic]) -> None:
        """Print the records of one file."""
        for d in diagnostics:
            self.out.write(orjson.dumps(record(d)).decode() + "\n")

    def skipped(self, path: str, items: Sequence[Skip], *, whole: bool) -> None:
        """Print the records of what was skipped."""
        for item in skipped_records(path, items, whole):
            self.out.write(orjson.dumps(item).decode() + "\n")
