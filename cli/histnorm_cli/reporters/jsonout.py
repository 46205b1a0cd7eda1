"""`json` (one array) and `jsonl` (one object per line), shaped by schemas/report.schema.json."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TextIO

import orjson

from histnorm.diagnostic import Diagnostic
from histnorm.document import Skip
from histnorm.report import applied, record, skipped
from histnorm_cli.reporters import Reporter, Summary, printable_data


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


def dumps(value: Any, option: int | None = None) -> str:
    """`value` as orjson writes it; a string orjson refuses (a lone surrogate, which no
    UTF-8 can carry) is written with the surrogate as a backslash escape."""
    try:
        return orjson.dumps(value, option=option).decode()
    except TypeError:
        return orjson.dumps(printable_data(value), option=option).decode()


def indented(value: Any, depth: int) -> str:
    """`value` as orjson writes it with two-space indentation when it sits `depth` levels
    deep in a document (no JSON string holds a raw newline, so each line just moves)."""
    pad = "  " * depth
    return pad + dumps(value, orjson.OPT_INDENT_2).replace("\n", "\n" + pad)


class ArrayWriter:
    """Writes a JSON array item by item, byte for byte as `orjson.dumps(items,
    option=OPT_INDENT_2)` would at `depth`, without holding the items."""

    def __init__(self, out: TextIO, depth: int = 0) -> None:
        self.out = out
        self.depth = depth
        self.count = 0

    def add(self, value: Any) -> None:
        """Write one item."""
        self.out.write(("[\n" if not self.count else ",\n") + indented(value, self.depth + 1))
        self.count += 1

    def close(self) -> None:
        """End the array."""
        self.out.write("\n" + "  " * self.depth + "]" if self.count else "[]")


class JsonReporter(Reporter):
    """All diagnostics as one JSON array, written as they come; for `fix`, each fix
    applied too."""

    lists_fixes = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.array = ArrayWriter(self.out)

    def file(self, diagnostics: list[Diagnostic]) -> None:
        """Write the records of one file."""
        for d in diagnostics:
            self.array.add(record(d))

    def report(
        self, diagnostics: list[Diagnostic], path: str, skipped: Sequence[Skip], whole: bool
    ) -> None:
        """Write the records of one file, what was skipped included."""
        for item in file_records(diagnostics, path, skipped, whole):
            self.array.add(item)

    def applied(self, fixes: list[Diagnostic], path: str) -> None:
        """Write a record per fix applied."""
        for d in fixes:
            self.array.add(applied(d))

    def finish(self, summary: Summary) -> None:
        """End the array."""
        self.array.close()
        self.out.write("\n")


class JsonLinesReporter(Reporter):
    """One JSON object per diagnostic per line, printed as soon as a file is done; for
    `fix`, one per fix applied too."""

    lists_fixes = True

    def applied(self, fixes: list[Diagnostic], path: str) -> None:
        """Print a record per fix applied."""
        for d in fixes:
            self.out.write(dumps(applied(d)) + "\n")

    def file(self, diagnostics: list[Diagnostic]) -> None:
        """Print the records of one file."""
        for d in diagnostics:
            self.out.write(dumps(record(d)) + "\n")

    def report(
        self, diagnostics: list[Diagnostic], path: str, skipped: Sequence[Skip], whole: bool
    ) -> None:
        """Print the records of one file, what was skipped included."""
        for item in file_records(diagnostics, path, skipped, whole):
            self.out.write(dumps(item) + "\n")
