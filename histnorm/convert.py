"""Moving a transcript between formats."""

from __future__ import annotations

from typing import Any

from histnorm.formats import get_codec
from histnorm.model import ApprovalRequestPart, ApprovalResponsePart, Message, Transcript


def _detach_part(part: Any) -> Any:
    changes: dict[str, Any] = {"native": None, "slot": None}
    if isinstance(part, ApprovalRequestPart | ApprovalResponsePart) and part.tool_call is not None:
        changes["tool_call"] = _detach_part(part.tool_call)
    return part.evolve(**changes)


def _detach_message(message: Message) -> Message:
    parts = tuple(_detach_part(p) for p in message.parts)
    result: Message = message.evolve(parts=parts, native=None)
    return result


def convert(transcript: Transcript, to: str) -> Transcript:
    """The same conversation, detached from its native source and set to be written as `to`.

    Unknown native parts have no meaning in another format and are kept as they are; the
    target codec raises `HistnormError` for anything it cannot express.
    """
    get_codec(to)  # fail early on an unknown name
    if transcript.format == to:
        return transcript
    messages = tuple(_detach_message(m) for m in transcript.messages)
    return Transcript(messages=messages, format=to, native=None)
