"""`quarantine`: a Dask bag of records with a message column split into the records a
repair makes clean (repaired) and those it cannot (as they were, with a reason field),
as `histnorm.integrations.datasets.quarantine` splits a Hugging Face dataset."""

from __future__ import annotations

import operator
from collections.abc import Iterable, Mapping
from typing import Any

from histnorm.integrations._rows import column_of, reason_text, reasons, repair_row
from histnorm.settings import Settings, with_options

Marked = tuple[Any, list[dict[str, Any]] | None]
"""A record as `quarantine` marks it: repaired, with None; or as it was, with its reason
records."""


def quarantine(
    bag: Any,
    column: str | None = None,
    *,
    format: str | None = None,
    settings: Settings | None = None,
    reason_field: str = "histnorm_reason",
    strict: bool = False,
    **options: Any,
) -> tuple[Any, Any]:
    """`bag` (a `dask.bag.Bag` of records: dicts with a `messages` or `conversations`
    field, or `column`; `db.read_text(...).map(json.loads)`) split into two bags `(kept,
    quarantined)`, both in the bag's order: `kept` holds each record a repair (as
    `histnorm.repair`'s) leaves with no error, repaired (a new dict; the others are the
    records given); `quarantined` each other record as it was, with `reason_field`: JSON
    text `{"row": <index in the bag>, "diagnostics": [{code, name, severity, message,
    pointer}]}`, as the `datasets` adapter writes it. With `strict`, a warning left
    quarantines a record too; `options` set fields of `Settings` over `settings`.

    One `map_partitions` repairs each partition; both bags are lazy and read it. Compute
    them together (`dask.compute(kept, quarantined)`, or `persist` them) and each record
    is repaired once; computed one after the other, every record is repaired for each.
    A quarantined record's `row` counts the records of the partitions before it
    (`Bag.accumulate` over their sizes), so a partition of `quarantined` waits for the
    repair of those before it.
    """
    chosen = with_options(settings, options, "quarantine")
    marked = bag.map_partitions(_mark, column, format, chosen, strict)
    ends = marked.map_partitions(_size).accumulate(operator.add)
    return marked.map_partitions(_kept), marked.map_partitions(_moved, ends, reason_field)


def _mark(
    partition: Iterable[Any],
    column: str | None,
    format: str | None,
    settings: Settings,
    strict: bool,
) -> list[Marked]:
    marked: list[Marked] = []
    for record in partition:
        if not isinstance(record, Mapping):
            raise TypeError(
                "histnorm: quarantine takes a bag of records (dicts with a messages column), "
                f"not of {type(record).__name__}: read JSONL with "
                "db.read_text(paths).map(json.loads)"
            )
        name = column_of(record, column)
        row = repair_row(record[name], settings, format, None)
        records = reasons(row, strict)
        if records is not None:
            marked.append((record, records))
        elif row.value is record[name]:
            marked.append((record, None))
        else:
            marked.append(({**record, name: row.value}, None))
    return marked


def _size(partition: list[Marked]) -> list[int]:
    return [len(partition)]


def _kept(partition: list[Marked]) -> list[Any]:
    return [record for record, why in partition if why is None]


def _moved(partition: list[Marked], ends: Iterable[int], reason_field: str) -> list[Any]:
    """The quarantined records of a partition, each with its reason; `ends` holds the
    number of records up to the end of this partition."""
    first = next(iter(ends)) - len(partition)
    return [
        {**record, reason_field: reason_text(why, first + index)}
        for index, (record, why) in enumerate(partition)
        if why is not None
    ]
