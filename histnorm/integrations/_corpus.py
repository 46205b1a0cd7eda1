"""What the corpus engines (Ray Data, Dask) share: what `histnorm lint` and `histnorm fix`
do to one file, as functions over its bytes or over a run of its lines, and the report
records `--output-format json` prints. Imports no engine.

A file is read line by line when the command line streams it (a `.jsonl` name whose
first line that is not blank holds a whole transcript), and whole otherwise (a JSON
file, or a message-per-line session such as Claude Code's, where a line is no
transcript and per-line work would be wrong).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from histnorm.diagnostic import Diagnostic
from histnorm.document import (
    Skip,
    check_document,
    check_lines,
    is_jsonl,
    lines_format,
    message_line,
)
from histnorm.report import record, skipped
from histnorm.settings import Settings

Mode = Literal["lint", "fix"]

FLAT = (
    "filename",
    "code",
    "name",
    "severity",
    "message",
    "line",
    "pointer",
    "transcript_index",
    "message_index",
    "part_index",
    "fix_applicability",
    "fix_title",
    "skipped",
)
"""The columns of a flat report record (`flat`): a record's fields, `location` and `fix`
spread out."""


@dataclass(frozen=True)
class Checked:
    """What one file, or a run of its lines, gave: the bytes to write (one item per line,
    or one for a whole file), the report records, and whether a fix changed a byte."""

    outputs: list[bytes]
    records: list[dict[str, Any]]
    changed: bool


def read_whole(path: str, lines: Iterable[bytes]) -> bool:
    """Whether the command line reads the file `path` whole rather than line by line,
    judged by its name and its first line that is not blank (from `lines`)."""
    if not is_jsonl(path, None):
        return True
    for line in lines:
        if line.strip():
            return message_line(line)
    return False


def check_file(path: str, data: bytes, mode: Mode, settings: Settings) -> Checked:
    """Lint or fix the whole file `path` (its bytes `data`) as the command line does."""
    result = check_document(data, mode, settings, path_hint=path)
    diagnostics = [d.at(path=path) for d in result.diagnostics]
    found = _records(path, diagnostics, result.skipped, result.skipped_file)
    return Checked([result.new_bytes(data)], found, result.changed)


def check_run(
    path: str,
    lines: Sequence[bytes],
    first: int,
    file_format: str | None,
    mode: Mode,
    settings: Settings,
) -> Checked:
    """Lint or fix a run of lines of the transcript-per-line file `path` (each with its
    ending), the first of them line `first`; `file_format` is the file's format, settled
    by its head (`histnorm.document.lines_format`), as the command line settles it."""
    offset = first - 1
    outputs: list[bytes] = []
    diagnostics: list[Diagnostic] = []
    skips: list[Skip] = []
    changed = False
    results = check_lines(lines, mode, settings, file_format=file_format, file_start=first == 1)
    for result in results:
        outputs.append(result.new_bytes)
        changed = changed or result.output is not None
        diagnostics.extend(
            d.at(path=path, line=(d.location.line or 0) + offset) for d in result.diagnostics
        )
        if result.skip is not None:
            skip = result.skip
            skips.append(Skip(skip.message, (skip.line or 0) + offset, skip.pointer))
    return Checked(outputs, _records(path, diagnostics, skips, False), changed)


def check_lines_of(path: str, lines: Sequence[bytes], mode: Mode, settings: Settings) -> Checked:
    """Lint or fix the file `path`, given as all its lines, as the command line does: line
    by line, or whole (see `read_whole`; then `outputs` holds one item)."""
    if not lines or read_whole(path, lines):
        return check_file(path, b"".join(lines), mode, settings)
    return check_run(path, lines, 1, lines_format(lines), mode, settings)


def _records(
    path: str, diagnostics: list[Diagnostic], skips: Sequence[Skip], whole: bool
) -> list[dict[str, Any]]:
    """The report records of a file, as `--output-format json` orders them: one for a file
    that holds no transcript, else its diagnostics and one per skipped record, by line."""
    if whole:
        return [skipped(path, skips[0].message)]
    found = [record(d) for d in diagnostics]
    found += [skipped(path, s.message, s.line, s.pointer, s.transcript_index) for s in skips]
    return sorted(found, key=_line) if skips else found


def _line(found: dict[str, Any]) -> tuple[int, int]:
    location = found["location"]
    return (location["line"] or 0, location["transcript_index"] or 0)


def flat(found: dict[str, Any]) -> dict[str, Any]:
    """A report record with `location` and `fix` spread into columns (`FLAT`): one shape
    for diagnostics and skipped records, as a table wants."""
    location = found["location"]
    fix = found.get("fix") or {}
    return {
        "filename": found["filename"],
        "code": found.get("code"),
        "name": found.get("name"),
        "severity": found.get("severity"),
        "message": found["message"],
        "line": location["line"],
        "pointer": location["pointer"],
        "transcript_index": location["transcript_index"],
        "message_index": location.get("message_index"),
        "part_index": location.get("part_index"),
        "fix_applicability": fix.get("applicability"),
        "fix_title": fix.get("title"),
        "skipped": found.get("skipped"),
    }


def nested(row: dict[str, Any]) -> dict[str, Any]:
    """The report record, as `--output-format json` prints it, of a flat row (`flat`)."""
    place = {"line": row["line"], "pointer": row["pointer"]}
    place["transcript_index"] = row["transcript_index"]
    if row["skipped"] is not None:
        return {
            "skipped": row["skipped"],
            "message": row["message"],
            "filename": row["filename"],
            "location": place,
        }
    fix = None
    if row["fix_applicability"] is not None:
        fix = {"applicability": row["fix_applicability"], "title": row["fix_title"]}
    return {
        "code": row["code"],
        "name": row["name"],
        "message": row["message"],
        "severity": row["severity"],
        "filename": row["filename"],
        "location": {
            **place,
            "message_index": row["message_index"],
            "part_index": row["part_index"],
        },
        "fix": fix,
    }
