"""The outline of Pydantic AI messages, read without building models (the lint hot path).

It mirrors `decode_message` and `decode_part` for the plain subset only: requests and
responses whose parts are `system-prompt`, `user-prompt` and `text` with string content,
`thinking`, `tool-call` and `tool-return` (an id, a string name or none). Anything else
(retries, builtin tools, files, multimodal prompts, bookkeeping or unknown parts, wrong
types, another format's call keys) gives None, and the codec decodes instead.
"""

from __future__ import annotations

from typing import Any

from histnorm.analysis.outline import (
    EMPTY_TEXT_PART,
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

_ROLES = {"request": "user", "response": "assistant"}
_TEXT = frozenset({"system-prompt", "user-prompt", "text"})


def read_outline(data: Any) -> Outline | None:
    """The outline of a message list or an object holding `messages`, or None."""
    messages = listed_messages(data)
    if messages is None:
        return None
    steps: list[Step] = []
    for message in messages:
        if type(message) is not dict:
            return None
        kind = message.get("kind")
        role = _ROLES.get(kind) if type(kind) is str else None
        parts = message.get("parts")
        if role is None or type(parts) is not list or unread_call_keys(message):
            return None
        found: list[OutlinePart] = []
        for part in parts:
            outlined = _part(part)
            if outlined is None:
                return None
            found.append(outlined)
        if role == "user" and found and all(_is_system(p) for p in parts):
            role = "system"
        steps.append(Step(role, tuple(found)))
    return Outline(tuple(steps), "pydantic-ai")


def _part(part: Any) -> OutlinePart | None:
    if type(part) is not dict:
        return None
    kind = part.get("part_kind")
    content = part.get("content")
    if kind in _TEXT:
        if type(content) is not str:
            return None
        return TEXT if content.strip() else EMPTY_TEXT_PART
    if kind == "thinking":
        return REASONING if content is None or type(content) is str else None
    if kind != "tool-call" and kind != "tool-return":
        return None
    call_id, name = part.get("tool_call_id"), part.get("tool_name")
    if type(call_id) is not str or (name is not None and type(name) is not str):
        return None
    if kind == "tool-call":
        return function_call(call_id, name, kind)
    return function_result(call_id, name, kind)


def _is_system(part: Any) -> bool:
    return part.get("part_kind") == "system-prompt"  # type: ignore[no-any-return]
