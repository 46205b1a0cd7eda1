"""`histnorm.lint` and `histnorm.fix` given bytes that hold several transcripts.

A JSON array of transcripts, JSONL (one transcript, or one message, per line): such
bytes are a document, read as `lint_document` reads them, so `histnorm.lint` agrees
with `histnorm lint`; `histnorm.fix`, which returns one transcript, points to
`fix_document`, which returns the document's new bytes.
"""

from __future__ import annotations

from typing import Any

import histnorm.jsonio as jsonio
from histnorm.diagnostic import Diagnostic
from histnorm.document.layout import BOM, is_jsonl, is_transcript_array
from histnorm.document.run import check_document, first_line
from histnorm.engine import unreadable
from histnorm.errors import HistnormError, NotATranscript
from histnorm.formats import claims
from histnorm.settings import Settings

_MISSING: Any = object()


def _bytes(data: Any) -> bytes | None:
    if isinstance(data, bytes | bytearray | memoryview):
        return bytes(data)
    if isinstance(data, str):
        try:
            return data.encode("utf-8")
        except UnicodeEncodeError:
            return None  # lone surrogates: `jsonio` says why it is no JSON
    return None


def _document_bytes(data: Any, value: Any = _MISSING) -> bytes | None:
    """`data` as bytes when it is a document of several transcripts (or several lines)."""
    raw = _bytes(data)
    if raw is None:
        return None
    if value is not _MISSING:
        return raw if is_transcript_array(value) else None
    if not is_jsonl(None, raw):
        return None
    try:  # JSONL when its first line is a JSON value by itself (not broken pretty JSON)
        jsonio.loads_typed(first_line(raw).strip().removeprefix(BOM))
    except HistnormError:
        return None
    return raw


def _holds_transcripts(value: Any) -> bool:
    """Whether `value` is an array of transcripts, some of them in a format histnorm reads."""
    return is_transcript_array(value) and any(claims(item) for item in value)


def several_transcripts(
    data: Any, value: Any, settings: Settings, format: str | None
) -> tuple[Diagnostic, ...] | None:
    """The diagnostics of `data` read as a document of several transcripts (`value` is
    its parsed value, or `_MISSING` when it is no JSON document); None when it is not
    one. A parsed array of transcripts gives an HN000 that says what to pass instead;
    a document with no transcript raises `NotATranscript`, as one value does."""
    if value is not _MISSING and _bytes(data) is None and _holds_transcripts(value):
        error = HistnormError(
            f"a list of {len(value)} transcripts, not one: lint each, or pass the file's "
            "bytes to histnorm.lint_document",
            pointer="",
        )
        return (unreadable(error),)
    raw = _document_bytes(data, value)
    if raw is None:
        return None
    result = check_document(raw, "lint", settings, format=format)
    if result.skipped_file:
        skip = result.skipped[0]
        raise NotATranscript(skip.message, pointer=skip.pointer, line=skip.line)
    return result.diagnostics


def several_error(data: Any, error: HistnormError) -> HistnormError:
    """`error` (from loading `data` as one transcript), saying to use `fix_document`
    when `data` holds several transcripts."""
    try:
        value = jsonio.loads(_bytes(data) or b"") if _bytes(data) is not None else _MISSING
    except HistnormError:
        value = _MISSING
    if _document_bytes(data, value) is None:
        return error
    return type(error)(
        f"{error.message} (the input holds several transcripts, or one per line: "
        "histnorm.fix_document fixes them and returns the new bytes)",
        pointer=error.pointer,
        line=error.line,
        column=error.column,
    )


MISSING = _MISSING
"""The `value` to pass `several_transcripts` for input that is no JSON document."""
