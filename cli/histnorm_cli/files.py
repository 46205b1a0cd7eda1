"""Reading documents from paths: the shell's side of the pure `histnorm.document` API."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from histnorm.document import Document, read_json, read_jsonl

SUFFIXES = (".json", ".jsonl")


def expand(paths: list[Path]) -> Iterator[Path]:
    """Yield the files named by `paths`, walking directories for *.json and *.jsonl, sorted."""
    for path in paths:
        if path.is_dir():
            yield from sorted(p for p in path.rglob("*") if p.suffix in SUFFIXES and p.is_file())
        else:
            yield path


def read_document(path: Path, data: bytes, format: str | None = None) -> Document:
    """Read `data` (the bytes of `path`) as JSONL or JSON depending on the file name."""
    if path.suffix == ".jsonl":
        return read_jsonl(data, format)
    return read_json(data, format)
