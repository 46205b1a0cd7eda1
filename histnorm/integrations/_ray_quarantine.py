"""`quarantine`: a Ray Data dataset of rows with a message column split into the rows a
repair makes clean (repaired) and those it cannot (as they were, with a reason column),
as `histnorm.integrations.datasets.quarantine` splits a Hugging Face dataset."""

from __future__ import annotations

from typing import Any

from histnorm.integrations._arrow_rows import Shape
from histnorm.integrations._rows import column_of, reason_text, reasons, repair_row
from histnorm.settings import Settings, with_options

try:
    import pyarrow as pa  # type: ignore[import-untyped]
    from ray.data.expressions import col
except ImportError as error:
    raise ImportError(
        "histnorm.integrations.ray needs Ray Data: pip install 'ray[data]'"
    ) from error


def quarantine(
    dataset: Any,
    column: str | None = None,
    *,
    format: str | None = None,
    settings: Settings | None = None,
    reason_column: str = "histnorm_reason",
    strict: bool = False,
    materialize: bool = True,
    **options: Any,
) -> tuple[Any, Any]:
    """`dataset` (a `ray.data.Dataset` with a `messages` or `conversations` column, or
    `column`) split into `(kept, quarantined)`: `kept` holds each row a repair leaves with
    no error, repaired (the rows read as `histnorm.integrations.datasets` reads Arrow
    rows); `quarantined` each other row as it was, with `reason_column`: JSON text
    `{"row": null, "diagnostics": [{code, name, severity, message, pointer}]}`, as the
    `datasets` adapter writes it (`row` is null: Ray Data numbers no rows, so identify a
    row by its own columns). A row whose repair the column's Arrow type has no place for
    (a key it lacks) stays as it was, quarantined. With `strict`, a warning left
    quarantines a row too; `options` set fields of `Settings` over `settings`.

    One `map_batches` repairs each row and writes its reason, and two expression filters
    split the result. With `materialize` (the default, as `Dataset.train_test_split`
    does) that result is materialized here, so each row is repaired once, now, and held
    in the object store; without it both datasets stay lazy and each repairs every row
    of `dataset` when it is consumed (twice in all). Both keep the order of `dataset`
    when Ray keeps order (`DataContext.execution_options.preserve_order`, set before the
    dataset is created), as any Ray Data transform does.
    """
    chosen = with_options(settings, options, "quarantine")
    marked = dataset.map_batches(
        _mark, fn_args=(column, format, chosen, reason_column, strict), batch_format="pyarrow"
    )
    if materialize:
        marked = marked.materialize()
    kept = marked.filter(expr=col(reason_column) == "").drop_columns([reason_column])
    return kept, marked.filter(expr=col(reason_column) != "")


def _mark(
    batch: pa.Table,
    column: str | None,
    format: str | None,
    settings: Settings,
    reason_column: str,
    strict: bool,
) -> pa.Table:
    """The batch with each kept row's messages repaired and a reason column (`""` for a
    row kept); a reason column the batch has already is replaced."""
    name = column_of(dict.fromkeys(batch.column_names), column)
    field = batch.schema.field(name)
    values = batch.column(name).to_pylist()
    shape = arrow_shape(field.type)
    out: list[Any] = []
    why: list[str] = []
    for value in values:
        row = repair_row(value, settings, format, lambda: shape)
        records = reasons(row, strict)
        out.append(row.value if records is None else value)
        why.append("" if records is None else reason_text(records, None))
    if any(new is not old for new, old in zip(out, values, strict=True)):
        repaired = pa.array(out, type=field.type)
        batch = batch.set_column(batch.schema.get_field_index(name), field, repaired)
    if reason_column in batch.column_names:
        batch = batch.drop_columns([reason_column])
    return batch.append_column(reason_column, pa.array(why, pa.string()))


def arrow_shape(type: pa.DataType) -> Shape:
    """The `Shape` of a place of an Arrow column of type `type`, for `restore`: a repaired
    row is written back only with the keys and kinds of value the type has (Arrow would
    drop a key its struct lacks without a word); one that does not fit is left as it was.
    A place of null type holds nothing but null; a list of fixed size is no list a repair
    may write."""
    shape = Shape()
    if pa.types.is_null(type):
        shape.kinds.add("null")
    elif pa.types.is_struct(type):
        shape.kinds.add("object")
        shape.keys = {field.name: arrow_shape(field.type) for field in type.fields}
    elif any(test(type) for test in _LISTS):
        shape.kinds.add("array")
        shape.item = arrow_shape(type.value_type)
    elif any(test(type) for test in _STRINGS):
        shape.kinds.add("string")
    else:
        shape.kinds.add("scalar")
    return shape


_LISTS = (
    pa.types.is_list,
    pa.types.is_large_list,
    pa.types.is_list_view,
    pa.types.is_large_list_view,
)
_STRINGS = (pa.types.is_string, pa.types.is_large_string, pa.types.is_string_view)
