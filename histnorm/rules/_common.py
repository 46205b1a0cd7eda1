"""Helpers the rule modules share: descriptions and the tail predicate."""

from __future__ import annotations

from collections.abc import Sequence

from histnorm.diagnostic import Diagnostic
from histnorm.edit import open_at_end, rewrite
from histnorm.model import (
    ApprovalRequestPart,
    Part,
    ToolCallPart,
    ToolResultPart,
    Transcript,
)
from histnorm.pairing import Position
from histnorm.settings import Settings, TailMode


def part_at(transcript: Transcript, position: Position) -> Part:
    """The part at (message index, part index)."""
    mi, pi = position
    return transcript.messages[mi].parts[pi]


def show_id(value: str | None) -> str:
    """An id for messages: quoted, `""` for the empty string, or "without an id"."""
    return "without an id" if value is None else repr(value) if value else '""'


def describe(part: Part) -> str:
    """A short human description of a call, result or approval request."""
    if isinstance(part, ToolCallPart):
        name = f" ({part.name})" if part.name else ""
        return f"tool call {show_id(part.call_id)}{name}"
    if isinstance(part, ToolResultPart):
        return f"tool result {show_id(part.call_id)}"
    if isinstance(part, ApprovalRequestPart):
        wrapped = f" for {describe(part.tool_call)}" if part.tool_call else ""
        return f"approval request {show_id(part.request_id)}{wrapped}"
    return f"{part.kind} part"


def left_open(transcript: Transcript, position: Position, settings: Settings) -> bool:
    """Whether an unanswered item at `position` is a tail state to leave alone (tail=keep)."""
    return settings.tail is TailMode.KEEP and open_at_end(transcript.messages, position[0])


def reported(diagnostics: Sequence[Diagnostic]) -> list[Position]:
    """The (message index, part index) each diagnostic points at."""
    return [(d.location.message_index or 0, d.location.part_index or 0) for d in diagnostics]


def remove_reported(
    transcript: Transcript, diagnostics: Sequence[Diagnostic], settings: Settings
) -> Transcript:
    """The fix that removes the part each diagnostic points at."""
    return rewrite(transcript, remove=reported(diagnostics))
