"""`json` (one array) and `jsonl` (one object per line), shaped by schemas/report.schema.json."""

from __future__ import annotations

from typing import Any

import orjson

from histnorm.diagnostic import Diagnostic
from histnorm.report import record
from histnorm_cli.reporters import Reporter, Summary


class JsonReporter(Reporter):
    """All diagnostics as one JSON array."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.records: list[dict[str, Any]] = []

    def file(self, diagnostics: list[Diagnostic]) -> None:
        """Collect the records of one file."""
        self.records.extend(record(d) for d in diagnostics)

    def finish(self, summary: Summary) -> None:
        """Print the array."""
        self.out.write(orjson.dumps(self.records, option=orjson.OPT_INDENT_2).decode() + "\n")


class JsonLinesReporter(Reporter):
    """One JSON object per diagnostic per line, printed as soon as a file is done."""

    def file(self, diagnostics: list[Diagnostic]) -> None:
        """Print the records of one file."""
        for d in diagnostics:
            self.out.write(orjson.dumps(record(d)).decode() + "\n")
