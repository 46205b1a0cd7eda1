"""The plain shape of OpenAI Chat messages, read without building models (`histnorm.shape`)."""

from __future__ import annotations

from typing import Any

from histnorm.formats._openai_chat_read import HANDOFF_PREFIX
from histnorm.shape import Shape, Step

_ROLES = frozenset({"system", "developer", "user", "assistant"})
_new = tuple.__new__  # builds a Step as `Step._make` does, without its slower `__new__`


def _plain_name(name: Any) -> bool:
    return name is None or (type(name) is str and not name.startswith(HANDOFF_PREFIX))


def _texts(content: Any) -> int | None:
    """How many non-empty text parts `content` holds; None for anything else."""
    if content is None:
        return 0
    if type(content) is str:
        return 1 if content.strip() else None
    if type(content) is not list:
        return None
    for item in content:
        if type(item) is not dict or item.get("type") != "text":
            return None
        text = item.get("text")
        if type(text) is not str or not text.strip():
            return None
    return len(content)


def _call_ids(calls: Any) -> tuple[str, ...] | None:
    if calls is None:
        return ()
    if type(calls) is not list:
        return None
    ids = []
    for call in calls:
        if type(call) is not dict or call.get("type", "function") != "function":
            return None
        call_id, body = call.get("id"), call.get("function")
        if type(call_id) is not str or not call_id or type(body) is not dict:
            return None
        if not _plain_name(body.get("name")):
            return None
        ids.append(call_id)
    return tuple(ids)


def _step(message: Any) -> Step | None:
    if type(message) is not dict:
        return None
    role = message.get("role")
    if role == "tool":
        call_id = message.get("tool_call_id")
        if type(call_id) is not str or not call_id or not _plain_name(message.get("name")):
            return None
        return _new(Step, ("tool", (), (call_id,), 0, 0))
    if type(role) is not str or role not in _ROLES:
        return None
    get = message.get
    if get("refusal") is not None or get("function_call") is not None or get("audio") is not None:
        return None
    name = message.get("name")
    if name is not None and type(name) is not str:
        return None
    texts = _texts(message.get("content"))
    calls = _call_ids(message.get("tool_calls"))
    if texts is None or calls is None or not (texts or calls):
        return None
    return _new(Step, (role, calls, (), texts, 0))


def shape(data: Any) -> Shape | None:
    """The shape of a message list or `{"messages": [...]}` record, or None."""
    messages = data.get("messages") if type(data) is dict else data
    if type(messages) is not list:
        return None
    steps = []
    for message in messages:
        step = _step(message)
        if step is None:
            return None
        steps.append(step)
    return tuple(steps)
