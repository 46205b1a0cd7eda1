"""Transcript-per-line JSONL, streamed: each line proven clean, or read and checked.

`check_lines` takes the lines of a file (or of a byte range of one) one at a time and
yields a `LineResult` for each: the bytes to write and the line's diagnostics. Nothing
is kept from one line to the next but the format, so memory stays bounded however
large the file.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

import histnorm.document.check as check
import histnorm.jsonio as jsonio
from histnorm._record import copied
from histnorm.document.check import Mode
from histnorm.document.layout import BOM, Record
from histnorm.document.read import WINDOW, parse_line, pick_reading, read_value
from histnorm.document.result import LineResult, Skip
from histnorm.document.write import write_line
from histnorm.engine import unreadable
from histnorm.errors import HistnormError, NotATranscript
from histnorm.formats import claims, common_format
from histnorm.settings import Settings

if TYPE_CHECKING:
    from histnorm.analysis.outline import Outline

HEAD_BYTES = 8 << 20
"""At most this much of a JSONL file is read ahead to settle its format."""

_CLEAN = LineResult(0, b"", transcript=True)
"""What every line proven clean is, but for its number and bytes."""


def lines_format(
    lines: Iterable[bytes], format: str | None = None, detect: str = "file"
) -> str | None:
    """The format of a transcript-per-line JSONL file, settled by its first transcripts
    (`WINDOW` of them, within `HEAD_BYTES`), read from `lines` (only as far as needed);
    None with an explicit `format`, per-line detection, or no transcript in the head."""
    if format is not None or detect != "file":
        return None
    found: list[Mapping[str, float]] = []
    read = 0
    for raw in lines:
        read += len(raw)
        body = raw.strip().removeprefix(BOM)
        if body:
            try:
                claimed = claims(jsonio.loads_typed(body))  # the claims alone are kept
            except HistnormError:
                claimed = {}
            if claimed:
                found.append(claimed)
        if len(found) >= WINDOW or read >= HEAD_BYTES:
            break
    return common_format(found)


def check_lines(
    lines: Iterable[bytes],
    mode: Mode,
    settings: Settings,
    *,
    format: str | None = None,
    detect: str = "file",
    file_format: str | None = None,
    file_start: bool = True,
) -> Iterator[LineResult]:
    """Lint or fix each line of transcript-per-line JSONL (each with its ending), numbered
    from 1; `file_format` is the file's format when settled (`lines_format`), else the
    first line that has one settles it; `file_start` says whether the lines start the
    file, where a BOM may be."""
    state = _State(mode, settings, format, detect, file_format)
    for number, raw in enumerate(lines, start=1):
        if not (file_start and number == 1 and raw.startswith(BOM)):
            if not raw or raw.isspace():
                yield LineResult(number, raw)
                continue
            proven = state.proven(raw, number)  # parsed with its ending: no copy of it
            yield proven if proven is not None else state.line(raw, number)
            continue
        content = raw.rstrip(b"\r\n").removeprefix(BOM)
        if not content or content.isspace():
            yield LineResult(number, raw)
            continue
        yield state.line(raw, number, bom=True)


class _State:
    """What carries from line to line: the format, settled or last detected."""

    def __init__(
        self,
        mode: Mode,
        settings: Settings,
        format: str | None,
        detect: str,
        detected: str | None,
    ) -> None:
        self.mode = mode
        self.settings = settings
        self.format = format
        self.detect = detect
        self.detected = detected
        self._parsed: tuple[bytes, Any, str | None, Outline | None] | None = None
        """What `proven` read of the line it did not prove clean, for `line`."""

    def proven(self, raw: bytes, number: int) -> LineResult | None:
        """The result of a line (with its ending, no BOM) proven clean as it was read, made
        the cheap way; None when it is not proven (`line` reads it). JSON allows the
        ending as whitespace, and the checks take the text as a bound on sizes and search
        it for marks, which a line ending neither lengthens past the line nor holds."""
        try:
            value = jsonio.loads_typed(raw)
        except HistnormError:
            return None  # `line` reads it, or says why not
        clean, format, outline = self._reading(value, raw)
        if clean:
            proven: LineResult = copied(_CLEAN, {"number": number, "raw": raw})
            return proven
        self._parsed = (raw, value, format, outline)
        return None

    def line(self, raw: bytes, number: int, bom: bool = False) -> LineResult:
        """Lint or fix one line that is not blank (`raw`, with its ending)."""
        body = raw.rstrip(b"\r\n")
        ending = raw[len(body) :]
        content = body.removeprefix(BOM) if bom else body
        record = self._record(content, number, raw)
        if record is None:  # proven clean: the line as read, made the cheap way
            clean: LineResult = copied(_CLEAN, {"number": number, "raw": raw})
            return clean
        if isinstance(record.error, NotATranscript):
            return LineResult(
                number, raw, skip=Skip(record.error.message, number, record.error.pointer)
            )
        if record.transcript is None:
            assert record.error is not None
            error = unreadable(record.error).at(line=number)
            return LineResult(number, raw, diagnostics=(error,), transcript=True)
        checked = check.check_record(record, self.mode, self.settings, content)
        found = tuple(d.at(line=number) for d in checked.diagnostics)
        if self.mode == "lint":
            return LineResult(number, raw, diagnostics=found, transcript=True)
        new = write_line(record, checked.transcript, repeats_checked=True)  # checked asked
        fixes = tuple(d.at(line=number) for d in checked.fixes)
        if new is content or new == content:
            return LineResult(number, raw, None, found, None, checked.applied, True, fixes=fixes)
        output = (BOM if bom else b"") + new + ending
        hunk = (number, content, new, ending)
        return LineResult(number, raw, output, found, None, checked.applied, True, hunk, fixes)

    def _reading(self, value: Any, text: bytes) -> tuple[bool, str | None, Outline | None]:
        """Whether the parsed `value` of a line is proven clean, the format it is read in
        and the outline its reader read; `text`, the line's JSON text."""
        format, read = pick_reading(value, self.format, self.detected, self.detect)
        if (
            format is not None
            and self.format is None
            and (self.detect == "per-line" or self.detected is None)
        ):
            self.detected = format  # per line: tried first on the next; else the file's
        if format is None:
            return False, None, None
        clean, outline = check.checked_outline(value, format, self.settings, text, read)
        return clean, format, outline

    def _record(self, content: bytes, number: int, raw: bytes) -> Record | None:
        """The line's record, or None when it is proven clean without one; a line `proven`
        did not prove clean is not read again (`raw`, the line with its ending)."""
        parsed, self._parsed = self._parsed, None
        if parsed is not None and parsed[0] is raw:
            _, value, format, outline = parsed
        else:
            try:  # types and strings are all a plain shape needs; numbers read exactly below
                value = jsonio.loads_typed(content)
            except HistnormError:
                value = parse_line(content, number)  # the exact reader reads it, or says why
            if isinstance(value, Record):
                return value
            clean, format, outline = self._reading(value, content)
            if clean:
                return None  # nothing to report or fix: no models built
        if jsonio.read_inexactly(value, content):
            value = parse_line(content, number)
            if isinstance(value, Record):
                return value
        file_format = self.detected if self.detect == "file" else None
        record = read_value(value, number, format, content, file_format, outline)
        return record
