"""The outline of OpenAI Chat messages, read without building models (the lint hot path).

It mirrors `decode_message` for the plain subset only: `system`, `developer`, `user`
and `assistant` messages with non-blank text content and function `tool_calls` (an id,
not a handoff), and `tool` messages (an id). Anything else gives None, and the codec's
`outline` decodes the value instead.

One walk reads every message and hands the rules what it found on the way: the calls
and results with their positions, the flags (none: the subset has no empty, unknown or
partial part) and, while no call id repeats a pending one, the pairing. In this subset
every call and result is a function part with a non-empty id, so `pair()` pairs each
result with the pending call of its id, and the walk does the same (the representation
test holds the two equal on every fixture, the corpus and fuzzed damage); a repeated id
leaves the pairing to `pair()`.

The same walk tells whether the history carries OpenAI Chat's marks so plainly that
detection picks this format (`read`): then detection need not look again.
"""

from __future__ import annotations

from typing import Any

from histnorm.analysis.outline import (
    ONE_TEXT,
    TEXT,
    Call,
    Located,
    Other,
    Outline,
    Result,
    Step,
    listed_messages,
)
from histnorm.analysis.paired import Pairing, Position
from histnorm.formats.openai_chat.read import HANDOFF_PREFIX, unread
from histnorm.model_terms import ToolFamily

_ROLES = frozenset({"system", "developer", "user", "assistant"})
_new = tuple.__new__  # builds a named tuple as `_make` does, without its slower `__new__`
_ONE_TEXT = ONE_TEXT
_FUNCTION = ToolFamily.FUNCTION
_TEXT_STEPS = {role: Step(role, _ONE_TEXT) for role in _ROLES}
"""The step of a message of each role holding one non-blank text and nothing else (steps
are values: every such message shares its role's)."""
_UNPAIRED = Pairing()
"""The pairing of a history with no call and no result."""
_PAIRING_REST = Pairing()[6:]
"""The fields of `Pairing` after `duplicate_results`, which this subset never has."""
_PLAIN_KEYS = frozenset(
    {"role", "content", "name", "tool_calls", "tool_call_id"}
    | {"refusal", "function_call", "audio", "annotations", "weight", "reasoning_content"}
)
"""Message keys that mark no other format (`histnorm.formats.signature`): a message with
others leaves detection to `detect_format`."""
_BODY_KEYS = frozenset(
    {"messages", "model", "tools", "tool_choice", "parallel_tool_calls", "functions"}
    | {"temperature", "top_p", "n", "stop", "seed", "max_tokens", "max_completion_tokens"}
    | {"stream", "stream_options", "response_format", "logit_bias", "logprobs"}
    | {"top_logprobs", "frequency_penalty", "presence_penalty", "reasoning_effort"}
    | {"user", "metadata", "service_tier", "modalities", "prediction", "verbosity"}
    | {"store", "prompt_cache_key", "safety_identifier", "web_search_options", "audio"}
)
"""Top-level keys of a Chat Completions request body or fine-tuning line that mark no
other format: a record with others leaves detection to `detect_format`."""
_WINDOW = 50
"""How many messages detection reads (`histnorm.formats.signature`)."""
_SHARED_STEPS = frozenset(map(id, _TEXT_STEPS.values()))
"""The steps of the usual message (string content), by `id`."""


def _texts(content: Any) -> tuple[Other, ...] | None:
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


def read_outline(data: Any) -> Outline | None:
    """The outline of a message list or `{"messages": [...]}` record, or None."""
    return read(data, detect=False)[0]


def read(data: Any, detect: bool = True) -> tuple[Outline | None, bool]:
    """`read_outline(data)`, and (asked with `detect`) whether `data` is OpenAI Chat
    beyond doubt: every message read, none with a key of another format (`_PLAIN_KEYS`),
    array content only of this format's text items and no object `arguments` (no mark
    of chat-template's), and among the first 50 a string content and a call or result
    (this format's own marks); a record has only request keys (`_BODY_KEYS`). Then
    `detect_format`'s signature rules out every other codec and this one's `sniff` is
    sure, so `detect_format(data)` is "openai-chat" (`tests/test_detect_reading.py` holds
    the two to that on every fixture and on generated histories)."""
    messages = listed_messages(data)
    if messages is None:
        return None, False
    steps: list[Step] = []
    located: list[Located] = []
    pending: dict[str, Position] = {}
    answered: dict[str, Position] = {}
    call_results: dict[Position, Position] = {}
    orphans: list[Position] = []
    duplicates: list[tuple[Position, Position]] = []
    paired = True  # no call id has repeated a pending one: the pairing below is `pair()`'s
    items = False  # a tool message's content is a list
    text = False  # a message among the first 50 read the slow way has string content
    plain = detect and (type(data) is not dict or data.keys() <= _BODY_KEYS)  # no other
    # format's mark in what was read so far (a question asked only to `detect`)
    append = steps.append
    plain_keys = _PLAIN_KEYS.issuperset
    for message in messages:
        if type(message) is not dict:
            return None, False
        if len(message) == 2 and "content" in message:  # the usual message: a role and
            role, content = message.get("role"), message["content"]  # non-blank text
            if (
                type(role) is str
                and role in _TEXT_STEPS
                and type(content) is str
                and content.strip()
            ):
                append(_TEXT_STEPS[role])
                continue
        get = message.get
        role = get("role")
        if plain and not plain_keys(message):
            plain = False
        mi = len(steps)  # one step a message: the index of this one
        if role == "tool":
            call_id, name = get("tool_call_id"), get("name")
            if type(call_id) is not str or not call_id:
                return None, False
            if name is not None and (type(name) is not str or name.startswith(HANDOFF_PREFIX)):
                return None, False
            content = get("content")
            if content is None and unread(message):  # its content lies where the reader
                return None, False  # does not look (`content_keys`)
            if type(content) is list:
                items = True  # a result of items, where an image may be
                if plain and not _text_items(content):
                    plain = False
            result = _new(Result, (call_id, name, _FUNCTION, "tool", "tool_result"))
            append(_new(Step, ("tool", (result,), 0, None)))
            at = (mi, 0)
            located.append((at, result))
            call_at = pending.pop(call_id, None)
            if call_at is not None:
                call_results[call_at] = answered[call_id] = at
            elif call_id in answered:
                duplicates.append((at, answered[call_id]))
            else:
                orphans.append(at)
            continue
        if type(role) is not str or role not in _ROLES:
            return None, False
        if get("refusal") is not None or get("function_call") is not None:
            return None, False
        if get("audio") is not None:
            return None, False
        name = get("name")
        if name is not None and type(name) is not str:
            return None, False
        content = get("content")
        texts = _texts(content)
        if texts is None:
            return None, False
        if plain:
            if type(content) is str:
                text = text or mi < _WINDOW
            elif type(content) is list and not _text_items(content):
                plain = False
        calls = get("tool_calls")
        if not calls:
            if calls is not None and type(calls) is not list:
                return None, False
            if not texts:
                return None, False
            append(_new(Step, (role, texts, 0, None)))
            continue
        if type(calls) is not list:
            return None, False
        parts: list[Any] = list(texts)
        for call in calls:
            if type(call) is not dict:
                return None, False
            kind = call.get("type", "function" if "function" in call else None)
            if kind != "function":
                return None, False
            call_id, body = call.get("id"), call.get("function")
            if type(call_id) is not str or not call_id or type(body) is not dict:
                return None, False
            name = body.get("name")
            if name is not None and (type(name) is not str or name.startswith(HANDOFF_PREFIX)):
                return None, False
            if plain and type(body.get("arguments")) is dict:
                plain = False  # chat-template's object arguments
            part = _new(Call, (call_id, name, _FUNCTION, "function", False, "tool_call"))
            at = (mi, len(parts))
            parts.append(part)
            located.append((at, part))
            if call_id in pending:
                paired = False  # a repeat: `pair()` tells which copy stays pending
            else:
                pending[call_id] = at
                answered.pop(call_id, None)
        append(_new(Step, (role, tuple(parts), 0, None)))
    pairing = None
    if paired:
        if not located:
            pairing = _UNPAIRED
        else:  # built as `_make` does (positional, in field order), without its `__new__`
            backwards = {result: call for call, result in call_results.items()}
            unmatched = tuple(sorted(pending.values()))
            fields = (call_results, backwards, unmatched, tuple(orphans), (), tuple(duplicates))
            pairing = _new(Pairing, fields + _PAIRING_REST)
    outline = Outline(
        tuple(steps),
        "openai-chat",
        None,
        0,
        tool_parts=tuple(located),
        seen=0,
        pairing=pairing,
        imageless=not items,  # text content and no media part: images only in results
    )
    return outline, plain and _marked(steps, located, text)


def _text_items(content: list[Any]) -> bool:
    """Whether `content` is a non-empty array of `{"type": "text", "text": ...}` items with
    no other key: text items of this format, no other's (chat-template's `value`)."""
    for item in content:
        if type(item) is not dict or len(item) != 2 or item.get("type") != "text":
            return False
        if type(item.get("text")) is not str:
            return False
    return bool(content)


def _marked(steps: list[Step], located: list[Located], text: bool) -> bool:
    """Whether the first 50 messages hold a call or a result, and a string content (`text`
    for those read the slow way; the usual message's shared step for the others)."""
    if not located or located[0][0][0] >= _WINDOW:
        return False
    return text or any(id(step) in _SHARED_STEPS for step in steps[:_WINDOW])
