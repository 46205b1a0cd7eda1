"""The outline of chat-template messages, read without building models (the lint hot path).

It mirrors `decode_message` for the plain subset only: `system`, `developer`, `user` and
`assistant` messages whose content is a string or null, with reasoning text and function
`tool_calls` (ids optional, any arguments, not a handoff), and `tool` messages with string
or null content. Anything else gives None, and the codec's `outline` decodes the value
instead; `tests/test_outline.py` holds the two equal.
"""

from __future__ import annotations

from typing import Any

from histnorm.analysis.outline import (
    EMPTY_TEXT_PART,
    ONE_TEXT,
    REASONING,
    TEXT,
    Outline,
    OutlinePart,
    Step,
    function_call,
    function_result,
    gathered,
    listed_messages,
)
from histnorm.call_keys import SPELLINGS
from histnorm.formats.chat_template.parts import (
    body_refused,
    sniff_message,
    unread,
    window_score,
)
from histnorm.formats.openai_chat.read import HANDOFF_PREFIX

_ROLES = frozenset({"system", "developer", "user", "assistant"})
_READ = frozenset({"tool_calls", "tool_call_id"})
_REASONING_KEYS = ("reasoning_content", "thinking", "reasoning")
"""`REASONING_KEYS` of the codec, in its order."""
_CALL_TYPES = (None, "function", "tool")
_new = tuple.__new__  # builds a named tuple as `_make` does, without its slower `__new__`
_TEXT_STEPS = {role: (Step(role, ONE_TEXT), Step(role, (EMPTY_TEXT_PART,))) for role in _ROLES}
"""The steps of a message of each role holding a text and nothing else (non-blank, blank):
steps are values, and every such message shares its role's."""
_PLAIN = frozenset(id(steps[0]) for steps in _TEXT_STEPS.values())
"""The shared steps with no tool part and no flag (`gathered` passes over them)."""
_SHARED = frozenset(id(step) for steps in _TEXT_STEPS.values() for step in steps)
"""Every shared step: the usual message, a role of `PLAIN_ROLES` and its text."""


def _plain_name(name: Any) -> bool:
    return name is None or (type(name) is str and not name.startswith(HANDOFF_PREFIX))


def _optional_str(value: Any) -> bool:
    return value is None or type(value) is str


def _unread_keys(message: dict[str, Any]) -> bool:
    """Whether a call key the codec does not read holds something (the decoded outline
    flags such a message `UNKNOWN`; the fast path leaves it to the decoder)."""
    if message.keys().isdisjoint(SPELLINGS):
        return False
    return any(
        key in SPELLINGS and key not in _READ and value not in (None, "", [], {})
        for key, value in message.items()
    )


def _calls(calls: Any) -> tuple[OutlinePart, ...] | None:
    if calls is None:
        return ()
    if type(calls) is not list:
        return None
    found: list[OutlinePart] = []
    for call in calls:
        if type(call) is not dict or call.get("type") not in _CALL_TYPES:
            return None
        body: Any = call
        if "function" in call or "name" not in call:
            body = call.get("function")
            if type(body) is not dict:
                return None
        call_id, name = call.get("id"), body.get("name")
        if not _optional_str(call_id) or not _plain_name(name):
            return None
        found.append(function_call(call_id, name, "function"))
    return tuple(found)


def _step(message: Any) -> Step | None:
    """The step of a message that is not the usual one (`read_outline` reads that), or
    None when the fast path does not read it."""
    if type(message) is not dict:
        return None
    if _unread_keys(message):
        return None
    role = message.get("role")
    content = message.get("content")
    if content is not None and type(content) is not str:
        return None
    if content is None and unread(message):
        return None  # its content lies where the reader does not look (`content_keys`)
    if role == "tool":
        key = "tool_name" if "name" not in message and "tool_name" in message else "name"
        call_id, name = message.get("tool_call_id"), message.get(key)
        if not _optional_str(call_id) or not _plain_name(name):
            return None
        return _new(Step, ("tool", (function_result(call_id, name, "tool"),), 0, None))
    if type(role) is not str or role not in _ROLES or not _optional_str(message.get("name")):
        return None
    parts: list[OutlinePart] = [
        REASONING for key in _REASONING_KEYS if type(message.get(key)) is str
    ]
    if content is not None:
        parts.append(TEXT if content.strip() else EMPTY_TEXT_PART)
    calls = _calls(message.get("tool_calls"))
    if calls is None:
        return None
    return _new(Step, (role, (*parts, *calls), 0, None))


def read_outline(data: Any) -> Outline | None:
    """The outline of a message list or `{"messages": [...]}` record, or None."""
    messages = listed_messages(data)
    if messages is None:
        return None
    steps: list[Step] = []
    append = steps.append
    for message in messages:
        if type(message) is dict and len(message) == 2:  # the usual message: a role and
            role, content = message.get("role"), message.get("content")  # its text
            shared = _TEXT_STEPS.get(role) if type(role) is str else None
            if shared is not None and type(content) is str:
                append(shared[0] if content.strip() else shared[1])
                continue
        step = _step(message)
        if step is None:
            return None
        append(step)
    return gathered(tuple(steps), "chat-template", _PLAIN, imageless=True)  # text content


def read_scored(data: Any) -> tuple[Outline, float] | None:
    """`read_outline(data)` and the codec's `sniff` score of `data`, or None when the
    reader does not read it. The score comes from what the walk found: the usual message
    (a shared step: a role and its text, blank or not) has no mark, so `sniff_message` is
    asked only of the others among the first 50, as `sniff` asks it."""
    outline = read_outline(data)
    if outline is None:
        return None
    messages = listed_messages(data)
    if not messages or body_refused(data):
        return outline, 0.0
    seen: set[str | None] = set()
    for message, step in zip(messages[:50], outline.messages, strict=False):
        if id(step) not in _SHARED:
            seen.add(sniff_message(message))
    return outline, window_score(messages, seen)
