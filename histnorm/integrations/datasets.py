"""histnorm for Hugging Face `datasets`: repair a message column with `Dataset.map`, keep
clean rows with `Dataset.filter`.

    from histnorm.integrations.datasets import is_clean, repairer
    ds = ds.map(repairer(applied_column="histnorm_fixed"), batched=True, num_proc=4)
    ds = ds.filter(is_clean(), batched=True)
    kept, quarantined = quarantine(ds)   # rows no repair makes clean, with a reason column

The column is `messages` or `conversations` (whichever the rows have; `column=` to name
it), each row read in its own detected format (`format=` to fix one). Rows are read as
they were written before Arrow unified them (`histnorm.integrations._arrow_rows`): the
None keys Arrow adds to messages that never had them are no defects, a `tool_calls` JSON
string is read as the calls it holds, and a repaired row is written back in the column's
schema. An assistant turn a fix leaves with nothing (its last call dropped, its content
the `""` datasets store for none) is removed, as `histnorm fix` removes one whose content
is null. Both callables pickle, so `num_proc` works. Needs `datasets`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

try:
    importlib.import_module("datasets")  # the package these callables are for
except ImportError as error:
    raise ImportError(
        "histnorm.integrations.datasets needs Hugging Face datasets: pip install datasets"
    ) from error

import histnorm.engine as engine
from histnorm.errors import HistnormError
from histnorm.formats import get_codec
from histnorm.integrations._arrow_rows import Place, strip
from histnorm.integrations._rows import COLUMNS as COLUMNS  # the columns looked for
from histnorm.integrations._rows import (
    Row,
    batch_shape,
    column_of,
    reason_text,
    reasons,
    repair_row,
)
from histnorm.settings import DEFAULT_SETTINGS, Settings, with_options


def _rows(value: Any) -> list[Any] | None:
    """The column's values when `value` is a batch's (a list of message lists), else None
    (one row's message list). An empty list is an empty batch."""
    if isinstance(value, list) and all(v is None or isinstance(v, list) for v in value):
        return value
    return None


@dataclass(frozen=True)
class Repairer:
    """A `Dataset.map` function that repairs each row's message list (see `repairer`)."""

    column: str | None = None
    format: str | None = None
    settings: Settings | None = None
    applied_column: str | None = None
    remaining_column: str | None = None

    def __call__(self, row: Mapping[str, Any]) -> dict[str, Any]:
        """The repaired column (and the code columns asked for) of a batch or of one row."""
        name = column_of(row, self.column)
        values = _rows(row[name])
        if values is None:
            one = self.repair(row[name], batch_shape([row[name]]))
            return self._out(name, [one], batched=False)
        shape = batch_shape(values)  # read from the batch only when a row must be written back
        return self._out(name, [self.repair(v, shape) for v in values], batched=True)

    def repair(self, value: Any, shape: Callable[[], Place]) -> Row:
        """One row's message list repaired; `shape` gives its batch's column schema (see
        `_rows.batch_shape`)."""
        return repair_row(value, self.settings, self.format, shape)

    def _out(self, name: str, rows: list[Row], *, batched: bool) -> dict[str, Any]:
        def codes(values: list[list[str]]) -> Any:
            # strings: a first batch of empty lists would make a list column null-typed
            joined = [",".join(v) for v in values]
            return joined if batched else joined[0]

        out = {name: [r.value for r in rows] if batched else rows[0].value}
        if self.applied_column is not None:
            out[self.applied_column] = codes([r.applied for r in rows])
        if self.remaining_column is not None:
            out[self.remaining_column] = codes([r.remaining for r in rows])
        return out


def repairer(
    column: str | None = None,
    *,
    format: str | None = None,
    settings: Settings | None = None,
    applied_column: str | None = None,
    remaining_column: str | None = None,
    **options: Any,
) -> Repairer:
    """A picklable function for `Dataset.map` (batched or not, any `num_proc`) that
    repairs the message list of each row, as `histnorm.repair` does.

    `column` is `messages` or `conversations` when not named; `format` skips detection
    (each row is detected on its own); `options` set fields of `Settings` over `settings`
    (an unknown name is a `TypeError`). `applied_column` adds a column with the codes of
    the fixes applied to each row, `remaining_column` one with the codes still reported
    (each a string, `"HN001,HN005"`, `""` for none; a column of lists would be typed
    null by Arrow when the first batch written has no codes). A
    row no fix touched is returned as it was; a row histnorm cannot read, or whose repair
    the column's schema has no place for (a key it lacks), is left as it was, with its
    codes in `remaining_column`.
    """
    chosen = with_options(settings, options, "repairer")
    return Repairer(column, format, chosen, applied_column, remaining_column)


def repair_batch(
    batch: Mapping[str, Any],
    *,
    column: str | None = None,
    format: str | None = None,
    settings: Settings | None = None,
    **options: Any,
) -> dict[str, Any]:
    """One batch (or row) of `Dataset.map` repaired: `repairer(...)(batch)`."""
    return repairer(column, format=format, settings=settings, **options)(batch)


@dataclass(frozen=True)
class Quarantiner:
    """A batched `Dataset.map` function (`with_indices=True`) for `quarantine`: each row
    repaired, or, when an error remains (a warning too if `strict`), left as it was with
    its reason in `reason_column` (`""` for a row kept)."""

    repairer: Repairer
    reason_column: str = "histnorm_reason"
    strict: bool = False

    def __call__(self, batch: Mapping[str, Any], indices: list[int] | int) -> dict[str, Any]:
        """The column (repaired, or as it was) and the reason column of a batch or row."""
        name = column_of(batch, self.repairer.column)
        values = _rows(batch[name])
        if values is None:
            row = self.repairer.repair(batch[name], batch_shape([batch[name]]))
            one = self._split(batch[name], row, indices)
            return {name: one[0], self.reason_column: one[1]}
        assert isinstance(indices, list)
        shape = batch_shape(values)
        rows = [self.repairer.repair(v, shape) for v in values]
        split = [self._split(v, r, i) for v, r, i in zip(values, rows, indices, strict=True)]
        return {name: [v for v, _ in split], self.reason_column: [r for _, r in split]}

    def _split(self, value: Any, row: Row, index: Any) -> tuple[Any, str]:
        records = reasons(row, self.strict)
        if records is None:
            return row.value, ""
        return value, reason_text(records, index)


class _Reasoned:
    """A batched `Dataset.filter` predicate: the rows with (`moved`) or without a reason."""

    def __init__(self, column: str, moved: bool) -> None:
        self.column = column
        self.moved = moved

    def __call__(self, batch: Mapping[str, Any]) -> list[bool]:
        return [bool(reason) is self.moved for reason in batch[self.column]]


def quarantine(
    dataset: Any,
    column: str | None = None,
    *,
    format: str | None = None,
    settings: Settings | None = None,
    reason_column: str = "histnorm_reason",
    strict: bool = False,
    num_proc: int | None = None,
    batch_size: int = 1000,
    **options: Any,
) -> tuple[Any, Any]:
    """`dataset` split into `(kept, quarantined)`, both in its order: `kept` holds each
    row a repair (as `repairer`'s) leaves with no error, repaired; `quarantined` each
    other row (one histnorm cannot read, a fix not allowed or refused, a repair the
    schema has no place for) as it was, with `reason_column`: JSON text
    `{"row": <index in dataset>, "diagnostics": [{code, name, severity, message,
    pointer}]}`. With `strict`, a warning left quarantines a row too. `options` as for
    `repairer`; `num_proc` and `batch_size` go to `Dataset.map` and `filter`."""
    chosen = with_options(settings, options, "quarantine")
    mapper = Quarantiner(Repairer(column, format, chosen), reason_column, strict)
    marked = dataset.map(
        mapper, with_indices=True, batched=True, batch_size=batch_size, num_proc=num_proc
    )
    common = {"batched": True, "batch_size": batch_size, "num_proc": num_proc}
    kept = marked.filter(_Reasoned(reason_column, moved=False), **common)
    moved = marked.filter(_Reasoned(reason_column, moved=True), **common)
    return kept.remove_columns(reason_column), moved


@dataclass(frozen=True)
class Linter:
    """A `Dataset.filter` predicate: whether each row's messages lint clean (see `is_clean`)."""

    column: str | None = None
    format: str | None = None
    settings: Settings | None = None

    def __call__(self, row: Mapping[str, Any]) -> bool | list[bool]:
        """True for a clean row; a list of them for a batch."""
        name = column_of(row, self.column)
        values = _rows(row[name])
        if values is None:
            return self.clean(row[name])
        return [self.clean(value) for value in values]

    def clean(self, value: Any) -> bool:
        """Whether one row's message list lints clean (an empty one does)."""
        if isinstance(value, list) and not value:
            return True
        plain = strip(value, {})
        settings = self.settings or DEFAULT_SETTINGS
        try:
            format, clean, _ = engine.detected_outline(plain, self.format or None, settings)
            if clean:
                return True  # on its outline, no models built
            return not engine.lint(get_codec(format).decode(plain), settings)
        except HistnormError:  # unreadable, or no transcript at all
            return False


def is_clean(
    column: str | None = None,
    *,
    format: str | None = None,
    settings: Settings | None = None,
    **options: Any,
) -> Linter:
    """A picklable predicate for `Dataset.filter` (batched or not): True for a row whose
    message list histnorm reports nothing on under the settings (`options` as for
    `repairer`); False for a row with findings, or one it cannot read."""
    chosen = with_options(settings, options, "is_clean")
    return Linter(column, format, chosen)
