"""The library's entry points: `load`, `encode`, `dump`, `lint` and `fix`.

`histnorm` re-exports these on first use (see its `__getattr__`), so `import histnorm`
loads none of the codecs, rules or models until a function is called.
"""

from __future__ import annotations

from typing import Any

import histnorm.engine as engine
import histnorm.jsonio as jsonio
from histnorm.convert import convert
from histnorm.diagnostic import Diagnostic
from histnorm.document.layout import is_transcript_array
from histnorm.document.several import MISSING, several_error, several_transcripts
from histnorm.engine import FixResult
from histnorm.errors import HistnormError, NotATranscript
from histnorm.formats import detect_format, get_codec
from histnorm.jsonio import Style
from histnorm.model import (
    JsonValue,
    Transcript,
)
from histnorm.native import native_json
from histnorm.settings import (
    Settings,
    with_options,
)


def _native(data: bytes | str | JsonValue) -> tuple[JsonValue, bool]:
    """The parsed value of `data`, and whether it is private (parsed here, not the caller's).
    A caller's value holding SDK objects (pydantic models) is read as the JSON they dump to."""
    if isinstance(data, bytes | bytearray | memoryview | str):
        return jsonio.loads(bytes(data) if not isinstance(data, str) else data), True
    return native_json(data), True


def _raw(data: bytes | str | JsonValue) -> bytes | None:
    """The JSON text `data` is, as bytes, when it is text (the fast path reads its size)."""
    if isinstance(data, str):
        return data.encode("utf-8", "surrogatepass")
    return bytes(data) if isinstance(data, bytes | bytearray | memoryview) else None


def load(data: bytes | str | JsonValue, format: str | None = None) -> Transcript:
    """Read one transcript from JSON bytes or text, or from an already parsed value.

    `format` names the codec (see `CODECS`); by default it is detected from the content.
    A parsed value is copied first, so later changes to it do not reach the transcript.
    Raises `HistnormError` (with a JSON Pointer and, for syntax errors, a line) on bad input,
    and its subclass `NotATranscript` for valid JSON that holds no transcript (without
    `format`).
    """
    value, private = _native(data)
    return _decode(value if private else jsonio.copy(value), format)


def _decode(value: JsonValue, format: str | None) -> Transcript:
    return get_codec(format if format is not None else detect_format(value)).decode(value)


def encode(transcript: Transcript, format: str | None = None) -> JsonValue:
    """The native JSON value of `transcript`, in `format` (default: the one it was read in)."""
    target = format or transcript.format
    if target is None:
        raise HistnormError("the transcript has no format; pass format=...")
    return get_codec(target).encode(convert(transcript, target))


def dump(transcript: Transcript, format: str | None = None, *, style: Style | None = None) -> bytes:
    """Serialise `transcript` to JSON bytes (compact unless `style` says otherwise)."""
    return jsonio.dumps(encode(transcript, format), style or jsonio.COMPACT)


def lint(
    data: Transcript | bytes | str | JsonValue,
    settings: Settings | None = None,
    *,
    format: str | None = None,
    **options: Any,
) -> tuple[Diagnostic, ...]:
    """Diagnose a transcript (or JSON bytes, text or value holding one).

    `options` override fields of `settings`, e.g. `lint(data, select=("HN001",))`.
    Unreadable input gives a single HN000 diagnostic instead of an exception; valid JSON
    that holds no transcript raises `NotATranscript` (without `format`: it is no error).
    Bytes or text holding several transcripts (a JSON array of them, or JSONL) are read
    as `lint_document` reads them: each diagnostic has its line, pointer and index. An
    unknown `format` name raises `HistnormError` listing the known ones.
    """
    if format is not None:
        get_codec(format)  # a name histnorm does not know is the caller's error, not HN000
    chosen = with_options(settings, options, "lint")
    if (type(data) is list or type(data) is dict) and not is_transcript_array(data):
        from histnorm.repair import read_as_passed

        if read_as_passed(data, format, chosen)[1]:
            return ()  # JSON data as passed, clean on its outline: not copied, no model
    if not isinstance(data, Transcript):
        try:
            value, private = _native(data)
        except HistnormError as error:
            found = several_transcripts(data, MISSING, chosen, format)
            return found if found is not None else (engine.unreadable(error),)
        found = several_transcripts(data, value, chosen, format)
        if found is not None:
            return found  # an array of transcripts, as `lint_document` reads it
        try:
            chosen_format = format if format is not None else detect_format(value)
            raw = _raw(data)
            if engine.proven_clean(value, chosen_format, chosen, raw):
                return ()  # clean on its outline: no model needed (engine.outline_clean)
            data = _decode(value if private else jsonio.copy(value), chosen_format)
        except NotATranscript:
            raise
        except HistnormError as error:
            return (engine.unreadable(error),)
    return engine.lint(data, chosen)


def fix(
    data: Transcript | bytes | str | JsonValue,
    settings: Settings | None = None,
    *,
    format: str | None = None,
    **options: Any,
) -> FixResult:
    """Repair a transcript: apply the allowed fixes, one rule at a time, to a fixed point.

    Raises `HistnormError` when `data` is not a readable transcript, and
    `FixDidNotConverge` (an internal error) if the fixes do not settle.
    """
    chosen = with_options(settings, options, "fix")
    if isinstance(data, Transcript):
        return engine.fix(data, chosen)
    try:
        transcript = load(data, format)
    except HistnormError as error:
        raise several_error(data, error) from None
    return engine.fix(transcript, chosen)
