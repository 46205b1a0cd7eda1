"""histnorm on Dask: lint or fix a corpus of files with `dask.bag`, each file as `histnorm
lint` and `histnorm fix` would, every line no fix touched written back byte for byte.

    import dask.bag as db
    from histnorm.integrations import dask as hd
    lines = db.read_text(paths, **hd.READ_TEXT)      # one partition per file
    outputs = hd.targets(paths, "fixed/", root="corpus/")
    lines.map_partitions(hd.fix_partition).to_textfiles(outputs, encoding=None)

`READ_TEXT` makes `read_text` keep every byte (Latin-1 maps each byte to one character
and back), split at "\\n" only (no newline translation, so "\\r\\n" stays) and carry each
line's path. A partition is a whole file, so a file the command line reads whole (a JSON
file, a message-per-line session such as Claude Code's) is fixed whole. `lint_file` and
`fix_file` do the same one file at a time (`db.from_sequence(paths).map(hd.lint_file)`).
`quarantine(bag)` splits a bag of records with a message column into repaired records and
the records no repair makes clean, with a reason field, as
`histnorm.integrations.datasets.quarantine` does. Needs `dask[bag]`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

try:
    import dask.bag  # noqa: F401  (what the recipes use; checked here so the error says so)
    import fsspec  # type: ignore[import-untyped]
except ImportError as error:
    raise ImportError("histnorm.integrations.dask needs Dask: pip install 'dask[bag]'") from error

from histnorm.integrations._corpus import Checked, Mode, check_file, check_lines_of
from histnorm.integrations._dask_quarantine import quarantine
from histnorm.settings import Settings, with_options

__all__ = [
    "READ_TEXT",
    "fix_file",
    "fix_partition",
    "lint_file",
    "lint_partition",
    "quarantine",
    "targets",
]

READ_TEXT: Mapping[str, Any] = MappingProxyType(
    {"encoding": "latin-1", "linedelimiter": "\n", "include_path": True}
)
"""The arguments of `dask.bag.read_text` that keep each line's bytes, ending and path."""


def lint_partition(
    partition: Iterable[tuple[str, str]], settings: Settings | None = None, **options: Any
) -> list[dict[str, Any]]:
    """The report records of one file read with `READ_TEXT`, as `histnorm lint
    --output-format json` prints them (`bag.map_partitions(lint_partition)`); `options`
    set fields of `Settings` over `settings`."""
    chosen = with_options(settings, options, "lint_partition")
    return _check(partition, "lint", chosen).records


def fix_partition(
    partition: Iterable[tuple[str, str]], settings: Settings | None = None, **options: Any
) -> list[bytes]:
    """One file read with `READ_TEXT`, fixed, as the items `to_textfiles(...,
    encoding=None)` writes back to the file's bytes: it puts "\\n" between items, so each
    item but the last is a line without its final "\\n" (the last is kept as it is, with
    or without one). `options` as for `lint_partition`."""
    chosen = with_options(settings, options, "fix_partition")
    outputs = _check(partition, "fix", chosen).outputs
    if len(outputs) == 1 and not outputs[0]:
        return []  # an empty file stays empty
    return [line.removesuffix(b"\n") for line in outputs[:-1]] + outputs[-1:]


def _check(partition: Iterable[tuple[str, str]], mode: Mode, settings: Settings) -> Checked:
    items = list(partition)
    if not items:
        return Checked([b""], [], False)
    if not all(isinstance(item, tuple) and len(item) == 2 for item in items):
        raise ValueError(
            "histnorm needs each line with its path: read the files with "
            "dask.bag.read_text(paths, **histnorm.integrations.dask.READ_TEXT)"
        )
    paths = {path for _, path in items}
    if len(paths) > 1:
        raise ValueError(
            f"a partition holds lines of {len(paths)} files; read one partition per file "
            "(no blocksize or files_per_partition)"
        )
    try:
        lines = [line.encode("latin-1") for line, _ in items]
    except UnicodeEncodeError as error:
        raise ValueError(
            "the lines were not read as Latin-1: read the files with "
            "dask.bag.read_text(paths, **histnorm.integrations.dask.READ_TEXT)"
        ) from error
    return check_lines_of(items[0][1], lines, mode, settings)


def targets(
    urlpath: str | list[str], output: str, *, root: str, **storage_options: Any
) -> list[str]:
    """Where `to_textfiles` writes each file `read_text(urlpath)` reads, in its order: the
    file's path relative to `root`, under the folder `output`."""
    files = fsspec.open_files(urlpath, mode="rb", **storage_options)
    base = Path(root).absolute()
    out: list[str] = []
    for found in files:
        source = Path(found.path).absolute()
        if not source.is_relative_to(base):
            raise ValueError(f"{found.path}: not under the root {base}")
        out.append(str(Path(output) / source.relative_to(base)))
    return out


def lint_file(path: str, settings: Settings | None = None, **options: Any) -> list[dict[str, Any]]:
    """The report records of the file at `path` (any fsspec URL), read whole."""
    chosen = with_options(settings, options, "lint_file")
    with fsspec.open(path, "rb") as stream:
        data = stream.read()
    return check_file(path, data, "lint", chosen).records


def fix_file(
    path: str, target: str, settings: Settings | None = None, **options: Any
) -> dict[str, Any]:
    """Fix the file at `path` whole and write it to `target` (byte-identical when no fix
    changed it); gives the path, the target, whether a fix changed it and what is left
    (report records)."""
    chosen = with_options(settings, options, "fix_file")
    with fsspec.open(path, "rb") as stream:
        data = stream.read()
    checked = check_file(path, data, "fix", chosen)
    with fsspec.open(target, "wb", auto_mkdir=True) as out:
        out.write(checked.outputs[0])
    return {"path": path, "target": target, "changed": checked.changed, "records": checked.records}
