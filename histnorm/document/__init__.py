"""Documents: what `histnorm lint` and `histnorm fix` do to a file's bytes, from Python.

`lint_document` and `fix_document` take the bytes of one file and find its layout as
the command line does (one JSON transcript, a JSON array of them, transcript-per-line
JSONL, message-per-line JSONL), check every transcript in it, and give back the
diagnostics (each with its line and JSON Pointer in the document), the records that
hold no transcript, and, for a fix, the new bytes: every byte no fix touched stays as
it was, and a record whose rewrite would lose a repeated key's value is left alone.
`lint_lines` and `fix_lines` do the same line by line, for files too large to hold.

Nothing here opens a path, prints, or reads the environment: `path_hint` is a name,
used only to tell JSONL from JSON as the command line does.

The modules: `layout` (how transcripts sit in a document), `read` (records with their
bytes), `check` (the rules on one record), `write` (byte-exact write-back), `locate`
(pointers and lines), `lines` (streamed JSONL), `torn` (sessions with broken lines),
`run` (the two document functions; `read_document`, the records in the layout they
find), `result` (what they return), `prefix` (whether JSON that does not parse starts as
a transcript: JSONC configuration files are skipped, not HN000).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from histnorm.choices import DETECT_MODES, JSONL_MODES
from histnorm.document.layout import (
    Document,
    Layout,
    is_jsonl,
    looks_like_message,
    message_line,
    split_lines,
)
from histnorm.document.lines import check_lines, lines_format
from histnorm.document.read import (
    WINDOW,
    read_json,
    read_jsonl,
    single_value,
)
from histnorm.document.result import DocumentResult, LineResult, Skip
from histnorm.document.run import check_document, layout_for, read_document
from histnorm.document.write import encode_transcript, write
from histnorm.settings import Settings, with_options


def _data(data: object) -> bytes:
    if isinstance(data, bytes | bytearray | memoryview):
        return bytes(data)
    if isinstance(data, str):
        return data.encode("utf-8", "surrogatepass")
    raise TypeError(f"expected the file's bytes (or text), not {type(data).__name__}")


def lint_document(
    data: bytes | str,
    *,
    path_hint: str | None = None,
    settings: Settings | None = None,
    format: str | None = None,
    jsonl_mode: str = "auto",
    detect: str = "file",
    **options: Any,
) -> DocumentResult:
    """Lint every transcript in the bytes of one file, as `histnorm lint` does.

    `path_hint` (a file name) makes a `.jsonl` name JSONL; without it, bytes that are not
    one JSON document but several lines are. `format` names the codec (default: detected,
    one format per file unless `detect="per-line"`); `jsonl_mode` is `auto`, `transcript`
    or `message`; `options` override fields of `settings`. Unreadable records give HN000
    diagnostics, never an exception; `output` is always None.
    """
    chosen = with_options(settings, options, "lint_document")
    return check_document(
        _data(data),
        "lint",
        chosen,
        path_hint=path_hint,
        format=format,
        jsonl_mode=jsonl_mode,
        detect=detect,
    )


def fix_document(
    data: bytes | str,
    *,
    path_hint: str | None = None,
    settings: Settings | None = None,
    format: str | None = None,
    jsonl_mode: str = "auto",
    detect: str = "file",
    **options: Any,
) -> DocumentResult:
    """Fix every transcript in the bytes of one file, as `histnorm fix` does: `output` is
    the new bytes (None when nothing changed), `applied` the fixes per rule, and
    `diagnostics` what is left. Arguments as for `lint_document`."""
    chosen = with_options(settings, options, "fix_document")
    return check_document(
        _data(data),
        "fix",
        chosen,
        path_hint=path_hint,
        format=format,
        jsonl_mode=jsonl_mode,
        detect=detect,
    )


def lint_lines(
    lines: Iterable[bytes],
    *,
    settings: Settings | None = None,
    format: str | None = None,
    detect: str = "file",
    file_format: str | None = None,
    **options: Any,
) -> Iterator[LineResult]:
    """Lint transcript-per-line JSONL one line at a time (each line with its ending), as
    `histnorm lint` streams a `.jsonl` file. `file_format` is the file's format when
    already settled (see `lines_format`); else the first line that has one settles it."""
    chosen = with_options(settings, options, "lint_lines")
    return check_lines(lines, "lint", chosen, format=format, detect=detect, file_format=file_format)


def fix_lines(
    lines: Iterable[bytes],
    *,
    settings: Settings | None = None,
    format: str | None = None,
    detect: str = "file",
    file_format: str | None = None,
    **options: Any,
) -> Iterator[LineResult]:
    """Fix transcript-per-line JSONL one line at a time: write each result's `new_bytes`
    in order to get the fixed file. Arguments as for `lint_lines`."""
    chosen = with_options(settings, options, "fix_lines")
    return check_lines(lines, "fix", chosen, format=format, detect=detect, file_format=file_format)


__all__ = [
    "DETECT_MODES",
    "JSONL_MODES",
    "WINDOW",
    "Document",
    "DocumentResult",
    "Layout",
    "LineResult",
    "Skip",
    "check_document",
    "check_lines",
    "encode_transcript",
    "fix_document",
    "fix_lines",
    "is_jsonl",
    "layout_for",
    "lines_format",
    "lint_document",
    "lint_lines",
    "looks_like_message",
    "message_line",
    "read_document",
    "read_json",
    "read_jsonl",
    "single_value",
    "split_lines",
    "write",
]
