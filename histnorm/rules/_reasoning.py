"""What the reasoning rules (HN116-HN118) share: where a history keeps reasoning, and
where the current turn of a tool loop starts."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from histnorm.analysis.outline import Outline, Step

if TYPE_CHECKING:
    from histnorm.model import Message

ASSISTANT = ("assistant", "model")
"""The roles of the model's own turns (`model` in Gemini)."""

CHAT_REASONING_KEYS = ("reasoning_content", "reasoning")
"""Reasoning keys of an OpenAI-compatible Chat message, which the `openai-chat` codec
keeps verbatim on the message rather than as parts."""


def chat_reasoning_keys(message: Message) -> tuple[str, ...]:
    """The reasoning keys with a value on a native OpenAI Chat `message`."""
    native: Any = message.native
    if not isinstance(native, dict):
        return ()
    return tuple(key for key in CHAT_REASONING_KEYS if native.get(key) is not None)


def keeps_keys(outline: Outline) -> bool:
    """Whether reasoning may sit in message keys the outline does not show."""
    return outline.format == "openai-chat"


def has_reasoning(step: Step) -> bool:
    """Whether a message holds a reasoning part."""
    return any(part.kind == "reasoning" for part in step.parts)


def has_call(step: Step) -> bool:
    """Whether a message holds a tool call."""
    return any(part.kind == "tool_call" for part in step.parts)


def turn_start(outline: Outline) -> int:
    """The index of the first message of the current turn: the one after the last user
    message holding more than tool results (0 when there is none)."""
    messages = outline.messages
    for index in range(len(messages) - 1, -1, -1):
        step = messages[index]
        if step.role_is("user") and any(p.kind != "tool_result" for p in step.parts):
            return index + 1
    return 0


def loop_is_open(outline: Outline) -> bool:
    """Whether the history ends inside a tool loop: on tool calls or tool results, so the
    next request continues the same assistant turn."""
    if not outline.messages:
        return False
    return any(p.kind in ("tool_call", "tool_result") for p in outline.messages[-1].parts)
