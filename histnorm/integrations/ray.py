"""histnorm on Ray Data: lint or fix a corpus of files across a cluster, each file as
`histnorm lint` and `histnorm fix` would.

    from histnorm.integrations.ray import LineDatasink, fix_dataset, read_lines
    fix_dataset(read_lines("corpus/")).write_datasink(LineDatasink("fixed/", root="corpus/"))

`read_lines` reads every line with its bytes and ending as they are (`ray.data.read_text`
decodes, splits at Unicode line breaks and drops the endings, so it cannot give the
file back); a file the command line reads whole (a JSON file, a message-per-line
session) comes as one row. `lint_files` / `fix_files` do the same per file over
`ray.data.read_binary_files(..., include_paths=True)`. `quarantine(dataset)` splits a
dataset of rows with a message column (`read_json`, `read_parquet`, `from_huggingface`)
into repaired rows and the rows no repair makes clean, with a reason column, as
`histnorm.integrations.datasets.quarantine` does. Needs `ray[data]`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

try:
    import pyarrow as pa  # type: ignore[import-untyped]
    import ray.data
    from ray.data.datasource import FileBasedDatasource
except ImportError as error:
    raise ImportError(
        "histnorm.integrations.ray needs Ray Data: pip install 'ray[data]'"
    ) from error

from histnorm.document import lines_format
from histnorm.integrations._corpus import (
    FLAT,
    Mode,
    check_file,
    check_run,
    flat,
    nested,
    read_whole,
)
from histnorm.integrations._ray_quarantine import quarantine
from histnorm.integrations._ray_sink import LineDatasink
from histnorm.settings import Settings, with_options

__all__ = [
    "LineDatasink",
    "as_record",
    "fix_dataset",
    "fix_files",
    "lint_dataset",
    "lint_files",
    "quarantine",
    "read_lines",
]

STAMP = pa.struct(
    [("dev", pa.int64()), ("ino", pa.int64()), ("size", pa.int64()), ("mtime_ns", pa.int64())]
)
"""A file's device, inode, size and mtime when it was read (null where it has none: a
path no local file system knows)."""

LINES = pa.schema(
    [
        ("path", pa.string()),
        ("line", pa.int64()),
        ("last", pa.bool_()),
        ("whole", pa.bool_()),
        ("format", pa.string()),
        ("bytes", pa.large_binary()),
        ("read", STAMP),
    ]
)
"""A row of `read_lines`: a line of `path` (numbered from 1, with its ending; `last` for
its last line) or, when `whole`, the whole file; `format` is the file's, as settled by its
first transcripts; `read` the file as it was read (`STAMP`)."""

FIXED = pa.schema(
    [
        ("path", pa.string()),
        ("line", pa.int64()),
        ("last", pa.bool_()),
        ("bytes", pa.large_binary()),
        ("changed", pa.bool_()),
        ("read", STAMP),
    ]
)
"""A row of `fix_dataset` and `fix_files`: the new bytes of a line (or whole file), and
the file as it was read (`LineDatasink` replaces it only if it is still so)."""

_INTEGERS = {"line", "transcript_index", "message_index", "part_index"}
RECORDS = pa.schema([(n, pa.int64() if n in _INTEGERS else pa.string()) for n in FLAT])
"""A row of `lint_dataset` and `lint_files`: a report record of `histnorm lint
--output-format json`, its `location` and `fix` spread into columns."""

BLOCK_BYTES = 16 << 20
"""About this many bytes of lines go into one block of `read_lines`."""


class _Lines(FileBasedDatasource):
    """Each file's lines, as `read_lines` gives them, in blocks of about `block_bytes`."""

    def __init__(self, paths: str | list[str], *, block_bytes: int, **options: Any) -> None:
        super().__init__(paths, **options)
        self.block_bytes = block_bytes

    def _read_stream(self, f: Any, path: str) -> Iterator[pa.Table]:
        read = _stamp(path)  # before the bytes: a write after it shows at the check
        data: bytes = f.readall()
        pieces = data.split(b"\n")
        lines = [piece + b"\n" for piece in pieces[:-1]]
        if pieces[-1]:
            lines.append(pieces[-1])
        if not lines or read_whole(path, lines):
            yield _block([(path, 1, True, True, None, data, read)])
            return
        file_format = lines_format(lines)
        rows: list[tuple[Any, ...]] = []
        size = 0
        for number, line in enumerate(lines, start=1):
            rows.append((path, number, number == len(lines), False, file_format, line, read))
            size += len(line)
            if size >= self.block_bytes:
                yield _block(rows)
                rows, size = [], 0
        if rows or not lines:
            yield _block(rows)


def _stamp(path: str, size: int | None = None) -> dict[str, int] | None:
    """`path` as it is now (`STAMP`), with `size` for its size when given; None when no
    local file has that name."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    found = st.st_size if size is None else size
    return {"dev": st.st_dev, "ino": st.st_ino, "size": found, "mtime_ns": st.st_mtime_ns}


def _block(rows: list[tuple[Any, ...]]) -> pa.Table:
    columns: list[Any] = list(zip(*rows, strict=True)) if rows else [[] for _ in LINES]
    return pa.table(columns, schema=LINES)


def read_lines(paths: str | list[str], *, block_bytes: int = BLOCK_BYTES, **read_args: Any) -> Any:
    """A `ray.data.Dataset` of the lines of the files at `paths` (files or folders), one
    row per line with its bytes as they are (`LINES`), about `block_bytes` of them to a
    block; `read_args` go to
    `FileBasedDatasource` (`filesystem`, `file_extensions`, `partition_filter`, ...) and
    `ray.data.read_datasource` (`concurrency`, `override_num_blocks`, ...)."""
    source_keys = {
        "filesystem",
        "open_stream_args",
        "partition_filter",
        "partitioning",
        "ignore_missing_paths",
        "shuffle",
        "file_extensions",
    }
    source = {k: v for k, v in read_args.items() if k in source_keys}
    rest = {k: v for k, v in read_args.items() if k not in source_keys}
    return ray.data.read_datasource(_Lines(paths, block_bytes=block_bytes, **source), **rest)


def as_record(row: dict[str, Any]) -> dict[str, Any]:
    """A row of `lint_dataset` or `lint_files` as `histnorm lint --output-format json`
    prints the record (`location` and `fix` nested again)."""
    return nested(row)


def lint_dataset(dataset: Any, settings: Settings | None = None, **options: Any) -> Any:
    """The report records (`RECORDS`) of the lines of `read_lines`, as `histnorm lint
    --output-format json` gives them; `options` set fields of `Settings` over `settings`."""
    chosen = with_options(settings, options, "lint_dataset")
    return dataset.map_batches(
        _lines_batch, fn_args=("lint", chosen), batch_format="pyarrow", batch_size=None
    )


def fix_dataset(dataset: Any, settings: Settings | None = None, **options: Any) -> Any:
    """The lines of `read_lines` fixed (`FIXED`): a line no fix touched keeps its bytes;
    write them with `LineDatasink`. `options` as for `lint_dataset`."""
    chosen = with_options(settings, options, "fix_dataset")
    return dataset.map_batches(
        _lines_batch, fn_args=("fix", chosen), batch_format="pyarrow", batch_size=None
    )


def lint_files(dataset: Any, settings: Settings | None = None, **options: Any) -> Any:
    """The report records of whole files: `dataset` is `ray.data.read_binary_files(paths,
    include_paths=True)` (columns `bytes` and `path`). Right for any file, and the only
    right way for a message-per-line session read without `read_lines`."""
    chosen = with_options(settings, options, "lint_files")
    return dataset.map_batches(
        _files_batch, fn_args=("lint", chosen), batch_format="pyarrow", batch_size=None
    )


def fix_files(dataset: Any, settings: Settings | None = None, **options: Any) -> Any:
    """Whole files fixed, as `fix_dataset` gives lines (`FIXED`, one row per file, `line`
    1 and `last`), from `ray.data.read_binary_files(paths, include_paths=True)`."""
    chosen = with_options(settings, options, "fix_files")
    return dataset.map_batches(
        _files_batch, fn_args=("fix", chosen), batch_format="pyarrow", batch_size=None
    )


def _lines_batch(batch: pa.Table, mode: Mode, settings: Settings) -> pa.Table:
    rows = batch.to_pylist()
    records: list[dict[str, Any]] = []
    fixed: list[dict[str, Any]] = []
    start = 0
    while start < len(rows):
        end = start + 1
        if not rows[start]["whole"]:
            while end < len(rows) and _follows(rows[end - 1], rows[end]):
                end += 1
        run = rows[start:end]
        row = run[0]
        if row["whole"]:
            checked = check_file(row["path"], row["bytes"], mode, settings)
        else:
            lines = [r["bytes"] for r in run]
            checked = check_run(row["path"], lines, row["line"], row["format"], mode, settings)
        records += checked.records
        for r, new in zip(run, checked.outputs, strict=True):
            changed = checked.changed and new != r["bytes"]
            fixed.append({**r, "bytes": new, "changed": changed})
        start = end
    return _results(mode, records, fixed)


def _follows(before: dict[str, Any], row: dict[str, Any]) -> bool:
    """Whether `row` is the next line of the file of `before`."""
    return not row["whole"] and row["path"] == before["path"] and row["line"] == before["line"] + 1


def _files_batch(batch: pa.Table, mode: Mode, settings: Settings) -> pa.Table:
    records: list[dict[str, Any]] = []
    fixed: list[dict[str, Any]] = []
    for row in batch.select(["path", "bytes"]).to_pylist():
        checked = check_file(row["path"], row["bytes"], mode, settings)
        records += checked.records
        new = checked.outputs[0]
        # read_binary_files keeps no stamp: the file as it is now, if it still has the size
        # of the bytes read (else the sink sees the change)
        read = _stamp(row["path"], len(row["bytes"]))
        values = {"line": 1, "last": True, "bytes": new, "changed": checked.changed, "read": read}
        fixed.append({"path": row["path"], **values})
    return _results(mode, records, fixed)


def _results(mode: Mode, records: list[dict[str, Any]], fixed: list[dict[str, Any]]) -> pa.Table:
    if mode == "lint":
        return pa.Table.from_pylist([flat(r) for r in records], schema=RECORDS)
    return pa.Table.from_pylist(fixed, schema=FIXED)
