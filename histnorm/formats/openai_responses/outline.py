"""The outline of OpenAI Responses input items, read without building models (hot path).

Mirrors `decode_item` (`histnorm.formats.openai_responses.items`) for the plain subset
only: each item is one step (its `id` is the step's). `message` items (full or easy
form) with `input_text`/`output_text` parts (a blank one marked empty, as the model's
outline marks it) or non-blank string content keep their role; `reasoning` items are
assistant reasoning; `function_call` items are assistant calls by `call_id`;
`function_call_output` items are tool results. Anything else (another format's
`tool_calls` keys included) gives None, and the codec decodes instead. With no media part
in the subset, an image can be only in a result whose output is a list: the outline
tells when none is (`Outline.imageless`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from histnorm.analysis.outline import (
    EMPTY_TEXT_PART,
    ONE_TEXT,
    REASONING,
    TEXT,
    Other,
    Outline,
    Step,
    function_call,
    function_result,
)
from histnorm.call_keys import unread_call_keys
from histnorm.formats.openai_responses.items import HANDOFF_PREFIX, server_state

_ROLES = frozenset({"system", "developer", "user", "assistant"})
_TEXT_TYPES = ("input_text", "output_text")  # a tuple: `in` never hashes an odd value
_ONE_TEXT: tuple[Other, ...] = ONE_TEXT


def _text_parts(content: list[Any]) -> tuple[Other, ...] | None:
    """The parts of a content list of text parts only (an empty or blank one marked so),
    else None."""
    blank = False
    for part in content:
        if type(part) is not dict or part.get("type") not in _TEXT_TYPES:
            return None
        text = part.get("text")
        if type(text) is not str:
            return None
        if not text or text.isspace():
            blank = True
    if not blank:
        return (TEXT,) * len(content)
    return tuple(TEXT if text.strip() else EMPTY_TEXT_PART for text in (p["text"] for p in content))


def read_outline(data: Any) -> Outline | None:
    """The outline of an item list or `{"input": ...}` request body, or None."""
    state = None
    if type(data) is dict:
        items = data.get("input")
        state = server_state(data)
        if type(items) is str:
            if not items or items.isspace():
                return None
            return Outline((Step("user", _ONE_TEXT),), "openai-responses", state)
    else:
        items = data
    if type(items) is not list:
        return None
    return read_items(items, state)


def read_items(items: Iterable[Any], state: Any = None) -> Outline | None:
    """`read_outline` of an item list (`state`: the request's server state), each item
    read once in order and not held (a rollout's items can be read a line at a time)."""
    steps: list[Step] = []
    append = steps.append
    listed = False  # a result whose output is a list, where an image may be
    new = tuple.__new__  # Step(...) without the NamedTuple's Python-level __new__
    for item in items:
        if type(item) is not dict:
            return None
        get = item.get
        item_id = get("id")
        if item_id is not None and type(item_id) is not str:
            return None
        kind = get("type")
        if kind == "function_call":
            call_id, name = get("call_id"), get("name")
            if type(call_id) is not str or not call_id or type(name) is not str:
                return None
            if name.startswith(HANDOFF_PREFIX):
                return None
            append(new(Step, ("assistant", (function_call(call_id, name, kind),), 0, item_id)))
        elif kind == "function_call_output":
            call_id, name = get("call_id"), get("name")
            if type(call_id) is not str or not call_id:
                return None
            if name is not None and (type(name) is not str or name.startswith(HANDOFF_PREFIX)):
                return None
            if type(get("output")) is list:
                listed = True
            append(new(Step, ("tool", (function_result(call_id, name, kind),), 0, item_id)))
        elif kind == "reasoning":
            summary = get("summary")
            if summary is not None and type(summary) is not list:
                return None
            append(new(Step, ("assistant", (REASONING,), 0, item_id)))
        elif kind == "message" or (kind is None and "role" in item):
            role = get("role")
            if type(role) is not str or role not in _ROLES:
                return None
            if len(item) > 2 and unread_call_keys(item):
                return None  # another format's calls or results, which the codec does not read
            content = get("content")
            if type(content) is str:
                if not content or content.isspace():
                    return None
                parts = _ONE_TEXT
            elif type(content) is list and content:
                listed_parts = _text_parts(content)
                if listed_parts is None:
                    return None
                parts = listed_parts
            else:
                return None
            append(new(Step, (role, parts, 0, item_id)))
        else:
            return None
    # text parts and results only: an image can be only in a result's list output
    return Outline(tuple(steps), "openai-responses", state, imageless=not listed)
