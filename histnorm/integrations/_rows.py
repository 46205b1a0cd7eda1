"""Rows with a message column, as the dataset adapters hold them (Hugging Face `datasets`,
Ray Data, Dask bags): which column holds the messages, one row's message list repaired
with `histnorm.repair`, and the reason a quarantine gives for a row it sets aside.

Rows read from Arrow (`datasets`, Ray Data) go through `_arrow_rows`: repaired as they
were written before Arrow unified them, written back in the column's schema. Plain Python
rows (a bag of JSON records) are repaired as they are.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from histnorm.diagnostic import Diagnostic
from histnorm.integrations._arrow_rows import Place, SchemaConflict, restore, shape_of, strip
from histnorm.repair import repair
from histnorm.report import quarantined, reason_record
from histnorm.settings import Settings

COLUMNS = ("messages", "conversations")
"""The columns looked for, in order, when no `column` is named."""


def column_of(row: Mapping[str, Any], column: str | None) -> str:
    """The column of `row` (a row, a batch, or a mapping of column names) holding the
    messages: `column`, else the first of `COLUMNS` it has; a `KeyError` naming what it
    has when there is none."""
    if column is not None:
        if column not in row:
            raise KeyError(f"histnorm: no column {column!r}; the rows have {sorted(row)}")
        return column
    for name in COLUMNS:
        if name in row:
            return name
    raise KeyError(
        f"histnorm: the rows have no 'messages' or 'conversations' column ({sorted(row)}); "
        "pass column="
    )


@dataclass(frozen=True)
class Row:
    """One row's message list after its repair."""

    value: Any
    """The message list to write: repaired, or the row's own when no fix was written."""
    applied: list[str]
    """The codes of the fixes written."""
    remaining: list[str]
    """The codes still reported (those of a fix not written included)."""
    reasons: tuple[Diagnostic, ...] = ()
    """What is still reported on the row as returned (a fix not written included)."""


def codes(found: tuple[Diagnostic, ...]) -> list[str]:
    """The distinct codes of `found`, sorted."""
    return sorted({d.code for d in found})


def batch_shape(values: list[Any]) -> Callable[[], Place]:
    """The schema of a batch's column (`values`, its rows' message lists), read from the
    values the first time it is asked for: only a repaired row needs it."""
    found: list[Place] = []

    def shape() -> Place:
        if not found:
            found.append(shape_of(values))
        return found[0]

    return shape


def repair_row(
    value: Any, settings: Settings | None, format: str | None, shape: Callable[[], Place] | None
) -> Row:
    """One row's message list repaired as `histnorm.repair` repairs it. `shape` gives the
    column's schema when the row was read from Arrow (see `batch_shape`); None for a plain
    Python row. A value that is no list, or an empty one, holds no history: kept as it is,
    with nothing reported."""
    if not isinstance(value, list) or not value:
        return Row(value, [], [])
    if shape is None:
        result = repair(value, settings, format=format)
        return Row(result.value, sorted(result.applied), codes(result.remaining), result.remaining)
    originals: dict[int, Any] = {}
    plain = strip(value, originals)
    result = repair(plain, settings, format=format)
    if not result.changed:
        return Row(value, [], codes(result.remaining), result.remaining)
    left = codes(result.remaining)
    repaired = _without_emptied_turns(result.value, plain)
    try:
        written = restore(repaired, shape(), originals)
    except SchemaConflict:  # the column has no place for the repair: left as it was
        reasons = (*result.remaining, *result.fixes)
        return Row(value, [], sorted({*left, *codes(result.fixes)}), reasons)
    return Row(written, sorted(result.applied), left, result.remaining)


def _without_emptied_turns(value: Any, before: Any) -> Any:
    """`value` (a repaired message list) without the assistant turns a fix left with
    nothing: no calls and `content: ""`, which Arrow datasets store where a tool-call turn
    has no text. `histnorm fix` removes such a turn whose content is null; a turn that was
    in `before` as it is (the same object: no fix touched it) stays."""
    if not isinstance(value, list) or not isinstance(before, list):
        return value
    untouched = {id(m) for m in before}
    kept = [m for m in value if id(m) in untouched or not _emptied(m)]
    return kept if len(kept) != len(value) else value


def _emptied(message: Any) -> bool:
    if not isinstance(message, dict) or message.get("role") != "assistant":
        return False
    if message.get("content") not in ("", None):
        return False
    rest = {k for k, v in message.items() if v not in (None, [], "")}
    return rest <= {"role"}


def reasons(row: Row, strict: bool) -> list[dict[str, Any]] | None:
    """Why a quarantine sets `row` aside (`histnorm.report.reason_record` of each
    diagnostic left), or None when it keeps the row."""
    if not quarantined(row.reasons, strict=strict):
        return None
    return [reason_record(d) for d in row.reasons]


def reason_text(records: list[dict[str, Any]], index: int | None) -> str:
    """A quarantined row's reason, as every adapter's reason column holds it: JSON text
    `{"row": <index in the input, or null>, "diagnostics": [...]}`."""
    return json.dumps({"row": index, "diagnostics": records})
