"""The outline of Anthropic messages, read without building models (the lint hot path).

It mirrors `decode_message` and `decode_block` for the plain subset only: `user`,
`assistant` and `system` messages whose content is a non-blank string or an array of
non-blank `text`, `thinking`, `redacted_thinking`, `tool_use` (an id, not a handoff) and
`tool_result` (an id) blocks. Anything else (server and MCP tools, media, unknown
blocks, blank text, empty content, wrong types, another format's `tool_calls`,
`tool_call_id` or `function_call` keys) gives None, and the codec decodes instead.
"""

from __future__ import annotations

from typing import Any

from histnorm.analysis.outline import (
    ONE_TEXT,
    REASONING,
    TEXT,
    Outline,
    OutlinePart,
    Step,
    function_call,
    function_result,
    listed_messages,
)
from histnorm.call_keys import unread_call_keys
from histnorm.formats.anthropic.blocks import HANDOFF_PREFIX

_TEXT_STEPS = {role: Step(role, ONE_TEXT) for role in ("user", "assistant", "system")}
"""The step of a message with non-blank string content and no id, by role."""

_new = tuple.__new__
"""Builds a `Step` without the Python-level `__new__` of a named tuple (hot path)."""


def read_outline(data: Any) -> Outline | None:
    """The outline of a message list or a request body holding `messages`, or None.

    Top-level request keys (`system`, `tools`, `model`, ...) are kept verbatim by the
    codec and never become messages, so they do not enter the outline.
    """
    messages = listed_messages(data)
    if messages is None:
        return None
    steps: list[Step] = []
    append = steps.append
    for message in messages:
        if type(message) is not dict:
            return None
        get = message.get
        role = get("role")
        if role != "user" and role != "assistant" and role != "system":
            return None  # roles are kept as written: only the lowercase ones are plain
        if len(message) > 2 and unread_call_keys(message):
            return None  # calls or results of another format, which the codec does not read
        message_id = get("id")
        if message_id is not None and type(message_id) is not str:
            return None
        content = get("content")
        if type(content) is str:
            if not content or content.isspace():  # `isspace` is `not strip()`, without a copy
                return None
            append(_TEXT_STEPS[role] if message_id is None else Step(role, ONE_TEXT, 0, message_id))
            continue
        if type(content) is not list or not content:
            return None
        parts: list[OutlinePart] = []
        for block in content:
            part = block_part(block)
            if part is None:
                return None
            parts.append(part)
        append(_new(Step, (role, tuple(parts), 0, message_id)))
    return Outline(tuple(steps), "anthropic")


def block_part(block: Any) -> OutlinePart | None:
    """The outline part of one plain content block (text, tool_use, tool_result, thinking,
    redacted_thinking), or None for anything else (the model must be built)."""
    if type(block) is not dict:
        return None
    kind = block.get("type")
    if kind == "text":
        text = block.get("text")
        if type(text) is not str or not text or text.isspace():
            return None
        return TEXT
    if kind == "tool_use":
        call_id, name = block.get("id"), block.get("name")
        if type(call_id) is not str or not call_id:
            return None
        if name is not None and (type(name) is not str or name.startswith(HANDOFF_PREFIX)):
            return None
        return function_call(call_id, name, "tool_use")
    if kind == "tool_result":
        call_id = block.get("tool_use_id")
        if type(call_id) is not str or not call_id:
            return None
        return function_result(call_id, None, "tool_result")
    if kind == "thinking":
        thought = block.get("thinking")
        return REASONING if thought is None or type(thought) is str else None
    return REASONING if kind == "redacted_thinking" else None
