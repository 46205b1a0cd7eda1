"""`histnorm convert`: the same conversation in another stored format.

The input is read in the layout lint finds for it (`histnorm.document.read_document`); the
output keeps it (a JSON document, an array, a transcript per line), except that a
message-per-line session becomes one JSON document (or event-per-line JSONL in
`claude-code` and `codex`). What the target has no place for is noted (CV001, a warning), what it
cannot write at all is an error (CV002), a ShareGPT record LLaMA-Factory would skip is a
warning (CV003); the output is then linted under the target's profile, and its errors fail
the run as in `lint`.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import typer

from histnorm import jsonio
from histnorm.convert import conversion
from histnorm.diagnostic import Diagnostic, Location, Severity
from histnorm.document import (
    JSONL_MODES,
    Document,
    Layout,
    encode_transcript,
    lint_document,
    read_document,
)
from histnorm.document.locate import place
from histnorm.engine import has_errors, unreadable
from histnorm.errors import HistnormError
from histnorm.formats import CODECS
from histnorm.formats.sharegpt import alternation
from histnorm.profiles import get_profile
from histnorm_cli.exitcodes import ExitCode
from histnorm_cli.files import STDIN, write_atomically
from histnorm_cli.identity import read_regular
from histnorm_cli.reporters.text import TextReporter

ERROR = Severity.ERROR
PRETTY = jsonio.Style(indent=2, key_separator=": ", final_newline=True)
"""The layout of a JSON document written from a message-per-line session."""
STDOUT = "<stdout>"


def _fail(message: str) -> typer.Exit:
    typer.echo(f"histnorm: error: {message}", err=True)
    return typer.Exit(ExitCode.ERROR)


def convert(
    path: str,
    to: str,
    source: str | None,
    output: str | None,
    jsonl_mode: str,
    profile: str | None,
) -> None:
    """`histnorm convert` (see `histnorm_cli.convert`): read, convert, write, lint."""
    if to not in CODECS or (source is not None and source not in CODECS):
        raise _fail(f"known formats: {', '.join(CODECS)}")
    if jsonl_mode not in JSONL_MODES:
        raise _fail(f"--jsonl-mode must be one of {', '.join(JSONL_MODES)}, not {jsonl_mode!r}")
    try:
        profile = get_profile(profile).name if profile is not None else None
    except HistnormError as exc:
        raise _fail(f"--profile: {exc.message}") from None
    try:
        data = sys.stdin.buffer.read() if path == STDIN else read_regular(path)[0]
    except OSError as exc:
        raise _fail(f"{path}: {exc.strerror or exc}") from None
    hint = None if path == STDIN else path
    document = read_document(data, path_hint=hint, format=source, jsonl_mode=jsonl_mode)
    found: list[Diagnostic] = []
    values = _convert(document, to, path, found)
    if values:  # nothing converted: nothing written, an -o file is left as it was
        body, layout = _body(document, values, to)
        target = output if output and output != STDIN else None
        if target is not None:
            try:
                write_atomically(Path(target), body)
            except OSError as exc:
                raise _fail(f"{target}: {exc.strerror or exc}") from None
        else:
            sys.stdout.buffer.write(body)
        found.extend(_lint(body, layout, to, profile, target or STDOUT))
    TextReporter(sys.stderr).file(found)
    raise typer.Exit(ExitCode.FAILED if has_errors(found) else ExitCode.OK)


def _convert(document: Document, to: str, path: str, found: list[Diagnostic]) -> list[Any]:
    """The converted native value of each readable record; what stood in the way goes to
    `found` (HN000 for unreadable records, CV001 notes, CV002 for what cannot be written,
    CV003, a warning, for a ShareGPT record LLaMA-Factory's loader would skip)."""
    values = []
    notes: list[tuple[int, Diagnostic]] = []
    for index, record in enumerate(document.records):
        for note in record.notes:  # broken lines a session was read around, as lint says
            torn = unreadable(note).at(path=path)
            found.append(torn if record.held else replace(torn, severity=Severity.WARNING))
        if record.transcript is None:
            assert record.error is not None
            line = record.error.line or record.line
            found.append(unreadable(record.error).at(path=path, line=line))
            continue
        where = Location(line=record.line, pointer=record.pointer or None)
        try:
            converted = conversion(record.transcript, to)
            value = encode_transcript(converted.transcript)
        except HistnormError as exc:
            message = f"transcript {index} cannot be written as {to}: {exc}"
            notes.append((index, Diagnostic("CV002", "cannot-write", message, ERROR, where)))
            continue
        values.append(value)
        problem = alternation(value) if to == "sharegpt" else None
        if problem is not None:
            message = (
                f"LLaMA-Factory would skip the record written for transcript {index}: {problem}"
            )
            warning = Diagnostic("CV003", "out-of-turn", message, Severity.WARNING, where)
            notes.append((index, warning))
        notes.extend((index, note.at(line=record.line)) for note in converted.notes)
    placed = place(document, document.raw, notes)
    found.extend(sorted((d.at(path=path) for d in placed), key=Diagnostic.sort_key))
    return values


def _body(document: Document, values: list[Any], to: str) -> tuple[bytes, Layout]:
    """The output bytes and their layout."""
    if document.layout is Layout.JSONL:
        return b"".join(jsonio.dumps(v) + b"\n" for v in values), Layout.JSONL
    if document.layout is Layout.JSON_ARRAY:
        body = jsonio.dumps(values, document.style)
        return _ended(body), Layout.JSON_ARRAY
    if document.layout is Layout.JSONL_MESSAGES:
        value = values[0]
        if to in ("claude-code", "codex") and isinstance(value, list):
            return b"".join(jsonio.dumps(v) + b"\n" for v in value), Layout.JSONL_MESSAGES
        return jsonio.dumps(value, PRETTY), Layout.JSON
    return _ended(jsonio.dumps(values[0], document.style)), Layout.JSON


def _ended(body: bytes) -> bytes:
    return body if body.endswith(b"\n") else body + b"\n"


def _lint(body: bytes, layout: Layout, to: str, profile: str | None, name: str) -> list[Diagnostic]:
    """The diagnostics of the output under the target's profile, located in it."""
    jsonl = layout in (Layout.JSONL, Layout.JSONL_MESSAGES)
    mode = "message" if layout is Layout.JSONL_MESSAGES else "transcript" if jsonl else "auto"
    result = lint_document(
        body,
        path_hint="output.jsonl" if jsonl else "output.json",
        format=to,
        jsonl_mode=mode,
        profile=profile,
    )
    return [d.at(path=name) for d in result.diagnostics]
