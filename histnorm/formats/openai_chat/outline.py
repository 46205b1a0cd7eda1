"""The outline of OpenAI Chat messages, read without building models (the lint hot path).

It mirrors `decode_message` for the plain subset only: `system`, `developer`, `user`
and `assistant` messages with non-blank text content and function `tool_calls` (an id,
not a handoff), and `tool` messages (an id). Anything else gives None, and the codec's
`outline` decodes the value instead.
"""

from __future__ import annotations

from typing import Any

from histnorm.analysis.outline import (
    TEXT,
    Outline,
    OutlinePart,
    Step,
    function_call,
    function_result,
    read_steps,
)
from histnorm.formats.openai_chat.read import HANDOFF_PREFIX, unread

_ROLES = frozenset({"system", "developer", "user", "assistant"})
_new = tuple.__new__  # builds a named tuple as `_make` does, without its slower `__new__`
_ONE_TEXT = (TEXT,)


def _plain_name(name: Any) -> bool:
    return name is None or (type(name) is str and not name.startswith(HANDOFF_PREFIX))


def _texts(content: Any) -> tuple[OutlinePart, ...] | None:
    """The parts of `content` when it is nothing but non-blank text; None otherwise."""
    if content is None:
        return ()
    if type(content) is str:
        return _ONE_TEXT if content.strip() else None
    if type(content) is not list:
        return None
    for item in content:
        if type(item) is not dict or item.get("type") != "text":
            return None
        text = item.get("text")
        if type(text) is not str or not text.strip():
            return None
    return (TEXT,) * len(content)


def _calls(calls: Any) -> tuple[OutlinePart, ...] | None:
    if calls is None:
        return ()
    if type(calls) is not list:
        return None
    found: list[OutlinePart] = []
    for call in calls:
        if type(call) is not dict:
            return None
        kind = call.get("type", "function" if "function" in call else None)
        if kind != "function":
            return None
        call_id, body = call.get("id"), call.get("function")
        if type(call_id) is not str or not call_id or type(body) is not dict:
            return None
        name = body.get("name")
        if not _plain_name(name):
            return None
        found.append(function_call(call_id, name, "function"))
    return tuple(found)


def _step(message: Any) -> Step | None:
    if type(message) is not dict:
        return None
    role = message.get("role")
    if role == "tool":
        call_id, name = message.get("tool_call_id"), message.get("name")
        if type(call_id) is not str or not call_id or not _plain_name(name):
            return None
        if message.get("content") is None and unread(message):
            return None  # its content lies where the reader does not look (`content_keys`)
        return _new(Step, ("tool", (function_result(call_id, name, "tool"),), 0, None))
    if type(role) is not str or role not in _ROLES:
        return None
    get = message.get
    if get("refusal") is not None or get("function_call") is not None or get("audio") is not None:
        return None
    name = get("name")
    if name is not None and type(name) is not str:
        return None
    texts = _texts(get("content"))
    calls = _calls(get("tool_calls"))
    if texts is None or calls is None or not (texts or calls):
        return None
    return _new(Step, (role, texts + calls if calls else texts, 0, None))


def read_outline(data: Any) -> Outline | None:
    """The outline of a message list or `{"messages": [...]}` record, or None."""
    return read_steps(data, _step, "openai-chat")
