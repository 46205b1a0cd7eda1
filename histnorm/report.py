"""The machine-readable report records: one JSON object per diagnostic, one per file or
record skipped because it is no transcript, and (for `fix`) one per fix applied.

`schemas/report.schema.json` is generated from `Record`, so the shape `--output-format
json` and `jsonl` print is a committed, drift-tested contract.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, TypeAdapter

from histnorm.diagnostic import Diagnostic, Severity


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class RecordLocation(_Strict):
    """Where the diagnostic points: line (when known), JSON Pointer and model indices."""

    line: int | None
    pointer: str | None
    transcript_index: int | None
    message_index: int | None
    part_index: int | None


class RecordFix(_Strict):
    """The fix offered: whether it is safe and what it does."""

    applicability: Literal["safe", "unsafe"]
    title: str


class Record(_Strict):
    """One diagnostic as printed by `--output-format json` (an array) and `jsonl`."""

    code: str
    name: str
    message: str
    severity: Literal["error", "warning", "info"]
    filename: str | None
    location: RecordLocation
    fix: RecordFix | None


class SkippedLocation(_Strict):
    """Where the skipped value is: line (JSONL), JSON Pointer and transcript index (a
    record of a JSON array); all null for a whole file."""

    line: int | None
    pointer: str | None
    transcript_index: int | None


class Skipped(_Strict):
    """A file or record skipped: valid JSON that holds no transcript (no error)."""

    skipped: Literal["not-a-transcript"]
    message: str
    filename: str | None
    location: SkippedLocation


class AppliedFix(_Strict):
    """The fix applied: its rule, whether it is safe and what it does."""

    code: str
    name: str
    applicability: Literal["safe", "unsafe"]
    title: str


class Applied(_Strict):
    """A fix `histnorm fix` applied (or, with `--check` or `--diff`, would apply): the
    diagnostic it fixed, where that was in the file as read."""

    applied: AppliedFix
    message: str
    filename: str | None
    location: RecordLocation


def skipped(
    filename: str | None,
    message: str,
    line: int | None = None,
    pointer: str | None = None,
    transcript_index: int | None = None,
) -> dict[str, Any]:
    """The report record of a skipped file (no location) or record, as plain JSON data."""
    return {
        "skipped": "not-a-transcript",
        "message": message,
        "filename": filename,
        "location": {"line": line, "pointer": pointer, "transcript_index": transcript_index},
    }


def record(diagnostic: Diagnostic) -> dict[str, Any]:
    """The report record of `diagnostic`, as plain JSON-ready data."""
    loc = diagnostic.location
    fix = diagnostic.fix
    return {
        "code": diagnostic.code,
        "name": diagnostic.name,
        "message": diagnostic.message,
        "severity": diagnostic.severity.value,
        "filename": loc.path,
        "location": {
            "line": loc.line,
            "pointer": loc.pointer,
            "transcript_index": loc.transcript_index,
            "message_index": loc.message_index,
            "part_index": loc.part_index,
        },
        "fix": None
        if fix is None
        else {"applicability": fix.applicability.value, "title": fix.title},
    }


def quarantined(remaining: Iterable[Diagnostic], *, strict: bool = False) -> bool:
    """Whether a quarantine sets aside a record with `remaining` left after its repair:
    when an error remains, or, if `strict`, a warning (`fix --quarantine` and the
    dataset adapters' `quarantine` all decide so)."""
    failing = (Severity.ERROR, Severity.WARNING) if strict else (Severity.ERROR,)
    return any(d.severity in failing for d in remaining)


def reason_record(diagnostic: Diagnostic) -> dict[str, Any]:
    """The short record of `diagnostic` that says why a record was set aside (a
    quarantine's reason): code, name, severity, message and pointer."""
    return {
        "code": diagnostic.code,
        "name": diagnostic.name,
        "severity": diagnostic.severity.value,
        "message": diagnostic.message,
        "pointer": diagnostic.location.pointer,
    }


def applied(diagnostic: Diagnostic) -> dict[str, Any]:
    """The report record of a fix applied for `diagnostic`, as plain JSON-ready data."""
    found = record(diagnostic)
    fix = found.pop("fix") or {"applicability": "safe", "title": "fixed"}
    del found["severity"]
    return {
        "applied": {"code": found.pop("code"), "name": found.pop("name"), **fix},
        **found,
    }


def report_schema() -> dict[str, Any]:
    """The JSON Schema of the `--output-format json` report (an array of records)."""
    schema = TypeAdapter(list[Record | Skipped | Applied]).json_schema()
    schema["title"] = "histnorm report"
    schema["description"] = (
        "Diagnostics printed by `histnorm lint --output-format json`, the files or "
        "records skipped because they hold no transcript, and the fixes `histnorm fix` "
        "applied (records with an `applied` key)."
    )
    return schema
