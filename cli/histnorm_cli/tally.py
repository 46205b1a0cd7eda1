"""What became of each record of a JSONL dataset, for `--statistics`' table and the
closing line of `fix --quarantine`."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import field
from typing import TYPE_CHECKING

from histnorm._record import record
from histnorm.document import LineResult

if TYPE_CHECKING:
    from histnorm_cli.reporters import Summary


@record
class Tally:
    """The records of one dataset (a JSONL file read record by record), by what became
    of them. Each record that is not blank counts once: `clean` (no diagnostic, kept as
    read), `repaired` (changed by fix, no diagnostic left), `flagged` (kept with
    diagnostics), `quarantined` (moved out by `fix --quarantine`) or `skipped` (not a
    transcript). `rules` counts each rule's diagnostics: for `fix`, those fixed and those
    left (in quarantined records too)."""

    records: int = 0
    clean: int = 0
    repaired: int = 0
    flagged: int = 0
    quarantined: int = 0
    skipped: int = 0
    rules: Counter[str] = field(default_factory=Counter)

    def line(self, result: LineResult) -> None:
        """Count one line that stays in the dataset."""
        if result.skip is not None:
            self.records += 1
            self.skipped += 1
            return
        if not result.transcript:
            return  # a blank line
        self.records += 1
        self._rules(result)
        if result.diagnostics:
            self.flagged += 1
        elif result.output is not None:
            self.repaired += 1
        else:
            self.clean += 1

    def moved(self, result: LineResult) -> None:
        """Count one record moved to the quarantine (its fixes were not kept)."""
        self.records += 1
        self.quarantined += 1
        self.rules.update(d.code for d in result.diagnostics)

    def _rules(self, result: LineResult) -> None:
        self.rules.update(d.code for d in result.diagnostics)
        if result.applied:
            self.rules.update(result.applied)

    def add(self, other: Tally) -> None:
        """Count `other`'s records too (a later share of the same file, or another file)."""
        self.records += other.records
        self.clean += other.clean
        self.repaired += other.repaired
        self.flagged += other.flagged
        self.quarantined += other.quarantined
        self.skipped += other.skipped
        self.rules.update(other.rules)


def table(datasets: Mapping[str, Tally], mode: str, quarantine: bool) -> list[str]:
    """The `--statistics` table: a row per dataset (and a total row for several), with
    `repaired` for fix and `quarantined` with `--quarantine`."""
    columns = ["records", "clean"]
    if mode == "fix":
        columns.append("repaired")
    columns.append("flagged")
    if quarantine:
        columns.append("quarantined")
    columns.append("skipped")
    rows = list(datasets.items())
    if len(rows) > 1:
        rows.append(("total", totals(datasets.values())))
    width = max(len("dataset"), *(len(name) for name, _ in rows))
    lines = ["  ".join([*columns, "dataset".ljust(width), "rules"]).rstrip()]
    for name, tally in rows:
        cells = [str(getattr(tally, column)).rjust(len(column)) for column in columns]
        lines.append("  ".join([*cells, name.ljust(width), _rules(tally.rules)]).rstrip())
    return lines


def _rules(rules: Counter[str]) -> str:
    return " ".join(f"{code}={count}" for code, count in sorted(rules.items()) if count)


def totals(tallies: Iterable[Tally]) -> Tally:
    """All the datasets' records together."""
    total = Tally()
    for tally in tallies:
        total.add(tally)
    return total


def dataset_lines(summary: Summary) -> list[str]:
    """The `--statistics` table of the run's datasets (none: no lines)."""
    if not summary.datasets:
        return []
    return table(summary.datasets, summary.mode, summary.quarantine is not None)


def records_line(summary: Summary, quarantine: str) -> str:
    """Where `fix --quarantine` put the records: kept (clean, repaired, with diagnostics)
    or quarantined."""
    total = totals(summary.datasets.values())
    flagged = f"{total.flagged} kept with diagnostics, " if total.flagged else ""
    return (
        f"Records: {total.clean} clean, {total.repaired} repaired, {flagged}"
        f"{total.quarantined} quarantined to {quarantine}."
    )
