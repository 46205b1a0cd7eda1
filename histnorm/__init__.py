"""histnorm: find and repair what makes a stored LLM chat history unreplayable.

The core is pure: functions take values (bytes, strings, parsed JSON, model objects) and
return new values. Nothing here reads files, the environment or the terminal.
"""

from __future__ import annotations

import copy

from histnorm import jsonio
from histnorm.convert import convert
from histnorm.errors import HistnormError
from histnorm.formats import CODECS, detect_format, get_codec
from histnorm.jsonio import Style
from histnorm.model import (
    ApprovalRequestPart,
    ApprovalResponsePart,
    JsonValue,
    MediaPart,
    Message,
    Part,
    ReasoningPart,
    RefusalPart,
    TextPart,
    ToolCallPart,
    ToolFamily,
    ToolResultPart,
    Transcript,
    UnknownPart,
    UsagePart,
)

__version__ = "0.1.0"


def load(data: bytes | str | JsonValue, format: str | None = None) -> Transcript:
    """Read one transcript from JSON bytes or text, or from an already parsed value.

    `format` names the codec (see `CODECS`); by default it is detected from the content.
    A parsed value is copied first, so later changes to it do not reach the transcript.
    Raises `HistnormError` (with a JSON Pointer and, for syntax errors, a line) on bad input.
    """
    if isinstance(data, bytes | bytearray | memoryview | str):
        value = jsonio.loads(bytes(data) if not isinstance(data, str) else data)
    else:
        value = copy.deepcopy(data)
    codec = get_codec(format if format is not None else detect_format(value))
    return codec.decode(value)


def encode(transcript: Transcript, format: str | None = None) -> JsonValue:
    """The native JSON value of `transcript`, in `format` (default: the one it was read in)."""
    target = format or transcript.format
    if target is None:
        raise HistnormError("the transcript has no format; pass format=...")
    return get_codec(target).encode(convert(transcript, target))


def dump(transcript: Transcript, format: str | None = None, *, style: Style | None = None) -> bytes:
    """Serialise `transcript` to JSON bytes (compact unless `style` says otherwise)."""
    return jsonio.dumps(encode(transcript, format), style or jsonio.COMPACT)


__all__ = [
    "CODECS",
    "ApprovalRequestPart",
    "ApprovalResponsePart",
    "HistnormError",
    "JsonValue",
    "MediaPart",
    "Message",
    "Part",
    "ReasoningPart",
    "RefusalPart",
    "Style",
    "TextPart",
    "ToolCallPart",
    "ToolFamily",
    "ToolResultPart",
    "Transcript",
    "UnknownPart",
    "UsagePart",
    "__version__",
    "convert",
    "detect_format",
    "dump",
    "encode",
    "get_codec",
    "load",
]
