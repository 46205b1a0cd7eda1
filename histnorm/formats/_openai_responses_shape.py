"""The plain shape of OpenAI Responses input items, read without building models.

Mirrors `decode_item` (`histnorm.formats._openai_responses_items`) for the plain subset
only: each item is one step. `message` items (full or easy form) with non-blank
`input_text`/`output_text` parts or string content keep their role; `reasoning` items
are assistant reasoning; `function_call` items are assistant calls by `call_id`;
`function_call_output` items are tool results. Anything else (another format's
`tool_calls` keys included) gives None (see `histnorm.shape`), and so does a message
without an `id` right after a reasoning item with one (HN103 reports it: the server
cannot match the message to the reasoning).
"""

from __future__ import annotations

from typing import Any

from histnorm.call_keys import unread_call_keys
from histnorm.formats._openai_responses_items import HANDOFF_PREFIX
from histnorm.shape import Shape, Step

_ROLES = frozenset({"system", "developer", "user", "assistant"})
_TEXT_TYPES = ("input_text", "output_text")  # a tuple: `in` never hashes an odd value
_USER_TEXT = Step("user", (), (), 1, 0)
_REASONING = Step("assistant", (), (), 1, 1)
_ONE_TEXT = {role: Step(role, (), (), 1, 0) for role in _ROLES}


def shape(data: Any) -> Shape | None:
    """The shape of an item list or `{"input": ...}` request body, or None."""
    if type(data) is dict:
        items = data.get("input")
        if type(items) is str:
            return (_USER_TEXT,) if items and not items.isspace() else None
    else:
        items = data
    if type(items) is not list:
        return None
    steps: list[Step] = []
    append = steps.append
    new = tuple.__new__  # Step(...) without the NamedTuple's Python-level __new__
    reasoning_id = False  # the previous item is reasoning with an id
    for item in items:
        if type(item) is not dict:
            return None
        get = item.get
        item_id = get("id")
        if item_id is not None and type(item_id) is not str:
            return None
        kind = get("type")
        after_reasoning_id, reasoning_id = reasoning_id, False
        if kind == "function_call":
            call_id, name = get("call_id"), get("name")
            if type(call_id) is not str or not call_id or type(name) is not str:
                return None
            if name.startswith(HANDOFF_PREFIX):
                return None
            append(new(Step, ("assistant", (call_id,), (), 0, 0)))
        elif kind == "function_call_output":
            call_id, name = get("call_id"), get("name")
            if type(call_id) is not str or not call_id:
                return None
            if name is not None and (type(name) is not str or name.startswith(HANDOFF_PREFIX)):
                return None
            append(new(Step, ("tool", (), (call_id,), 0, 0)))
        elif kind == "reasoning":
            summary = get("summary")
            if summary is not None and type(summary) is not list:
                return None
            append(_REASONING)
            reasoning_id = item_id is not None
        elif kind == "message" or (kind is None and "role" in item):
            role = get("role")
            if type(role) is not str or role not in _ROLES:
                return None
            if after_reasoning_id and item_id is None:
                return None
            if len(item) > 2 and unread_call_keys(item):
                return None  # another format's calls or results, which the codec does not read
            content = get("content")
            if type(content) is str:
                if not content or content.isspace():
                    return None
                count = 1
            elif type(content) is list and content:
                for part in content:
                    if type(part) is not dict or part.get("type") not in _TEXT_TYPES:
                        return None
                    text = part.get("text")
                    if type(text) is not str or not text or text.isspace():
                        return None
                count = len(content)
            else:
                return None
            append(_ONE_TEXT[role] if count == 1 else new(Step, (role, (), (), count, 0)))
        else:
            return None
    return tuple(steps)
