"""Moving a transcript between formats."""

from __future__ import annotations

import hashlib
from typing import Any

from histnorm.formats import get_codec
from histnorm.model import (
    ApprovalRequestPart,
    ApprovalResponsePart,
    Message,
    ToolCallPart,
    Transcript,
)


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
    converted = Transcript(messages=messages, format=to, native=None)
    if target.needs_call_ids:
        converted = _give_call_ids(converted)
    return converted


def _give_call_ids(transcript: Transcript) -> Transcript:
    """Deterministic ids for calls without one (paired by position in the source format),
    carried to the results paired with them."""
    from histnorm.edit import rewrite
    from histnorm.pairing import pair_transcript

    missing = [
        (mi, pi)
        for mi, message in enumerate(transcript.messages)
        for pi, part in enumerate(message.parts)
        if isinstance(part, ToolCallPart) and part.call_id is None
    ]
    if not missing:
        return transcript
    pairing = pair_transcript(transcript)
    replace: dict[tuple[int, int], tuple[Any, ...]] = {}
    for mi, pi in missing:
        call = transcript.messages[mi].parts[pi]
        assert isinstance(call, ToolCallPart)
        digest = hashlib.sha256(f"{call.name}\x00{mi}\x00{pi}".encode()).hexdigest()
        new_id = "call_" + digest[:24]
        replace[(mi, pi)] = (call.evolve(call_id=new_id),)
        result = pairing.call_results.get((mi, pi))
        if result is not None:
            part = transcript.messages[result[0]].parts[result[1]]
            replace[result] = (part.evolve(call_id=new_id),)
    result_transcript: Transcript = rewrite(transcript, replace=replace)
    return result_transcript


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
