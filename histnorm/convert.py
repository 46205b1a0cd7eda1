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
    target = get_codec(to)  # fail early on an unknown name
    if transcript.format == to:
        return transcript
    messages = tuple(_detach_message(m) for m in transcript.messages)
    source = get_codec(transcript.format) if transcript.format else None
    if source is not None and source.items_are_messages and not target.items_are_messages:
        messages = _join_assistant_items(messages)
    return Transcript(messages=messages, format=to, native=None)


def _join_assistant_items(messages: tuple[Message, ...]) -> tuple[Message, ...]:
    """One assistant message per run of assistant items (reasoning, text, parallel calls)."""
    out: list[Message] = []
    for message in messages:
        previous = out[-1] if out else None
        if previous is not None and previous.role_is("assistant") and message.role_is("assistant"):
            out[-1] = previous.evolve(parts=previous.parts + message.parts)
        else:
            out.append(message)
    return tuple(out)
