"""Hypothesis strategies for native Hugging Face chat-template documents (formats.md §7c).

Every strategy draws plain JSON values in the shapes the `chat-template` codec reads:
system/user/assistant/tool messages with spelling variants and other roles, string /
array / null / absent content with text, image, video, audio and unknown items, assistant
reasoning under `reasoning_content`, `thinking` or `reasoning`, `tool_calls` in the
wrapped (`{"type": "function", "function": {...}}`) and flat forms, with and without ids
(including `""`), object arguments (and string or missing arguments on calls without an
id), calls of an unknown `type`, tool messages with and without `tool_call_id` and
`name`, unknown keys at every level, and both envelopes (a bare list, or a record with
`messages`, `tools` and other columns).

Every generated document is one the codec's sniffer claims: an assistant message with
calls holds at least one call with object arguments, a call with an id always has object
arguments, and a tool message carries `tool_call_id` only after such a call (string
arguments, or a `tool_call_id`, with nothing else distinctive mark an OpenAI Chat
document).
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st
from strategies_json import JSON_VALUES, damaged
from strategies_sharegpt import NAMES, SHORT_TEXT, TEXT, with_extras

ROLES = {
    "system": ["system", "System"],
    "user": ["user", "user", "User"],
    "assistant": ["assistant", "assistant", "Assistant"],
    "tool": ["tool", "tool", "Tool"],
    "other": ["developer", "ipython", "observer"],
}
# Keys a message never has: the codec's own, plus those that mark another format.
MESSAGE_KEYS = {
    "role",
    "content",
    "name",
    "tool_calls",
    "tool_call_id",
    "reasoning_content",
    "thinking",
    "reasoning",
    "function_call",
    "refusal",
    "audio",
    "weight",
    "annotations",
    "contents",
    "parts",
    "type",
}
ITEM_TYPES = {"text", "image", "video", "audio"}
FOREIGN_ITEM_TYPES = {
    "image_url",
    "input_audio",
    "file",
    "refusal",
    "tool_use",
    "tool_result",
    "thinking",
    "redacted_thinking",
    "document",
    "search_result",
}


@st.composite
def text_items(draw: st.DrawFn) -> dict[str, Any]:
    return draw(with_extras({"type": "text", "text": draw(TEXT)}, {"type", "text"}, 1))


@st.composite
def media_items(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["image", "video", "audio"]))
    fields: dict[str, Any] = {"type": kind}
    where = draw(st.sampled_from(["url", "path", kind, None]))
    if where is not None:
        fields[where] = draw(
            st.sampled_from(["https://example.com/a.png", "data:image/png;base64,iVBORw0K"])
            | TEXT.map(lambda s: "media/" + s)
        )
    return draw(with_extras(fields, {"type", "url", "path", "source", kind}, 1))


@st.composite
def unknown_items(draw: st.DrawFn) -> Any:
    if draw(st.integers(0, 4)) == 0:
        return draw(TEXT)  # a bare string item
    kind = draw(
        st.sampled_from(["x_widget", "output_text", "input_video"])
        | SHORT_TEXT.filter(lambda t: t not in ITEM_TYPES | FOREIGN_ITEM_TYPES)
    )
    return draw(with_extras({"type": kind}, {"type", "source"}, 2))


def contents() -> st.SearchStrategy[Any]:
    """A `content` value: a string, an array of items or null."""
    items = st.one_of(text_items(), text_items(), media_items(), unknown_items())
    return st.one_of(TEXT, TEXT, st.lists(items, max_size=3), st.none())


@st.composite
def call_ids(draw: st.DrawFn, pool: list[str]) -> str:
    if pool and draw(st.integers(0, 4)) == 0:
        return draw(st.sampled_from(pool))
    new = draw(
        st.sampled_from(["", "call_1", "0"]) | st.from_regex(r"[A-Za-z0-9]{9}", fullmatch=True)
    )
    pool.append(new)
    return new


@st.composite
def tool_calls(draw: st.DrawFn, pool: list[str]) -> dict[str, Any]:
    """One `tool_calls` entry, wrapped or flat; a call with an id has object arguments."""
    if draw(st.integers(0, 9)) == 0:
        kind = draw(st.sampled_from(["code_interpreter", "x_custom"]))
        return draw(with_extras({"type": kind, kind: {"input": draw(TEXT)}}, {"type"}, 1))
    with_id = draw(st.booleans())
    args: Any = draw(st.dictionaries(SHORT_TEXT, JSON_VALUES, max_size=3))
    if not with_id and draw(st.integers(0, 3)) == 0:
        args = draw(st.sampled_from([json.dumps(args), None, "not json", 7]))
    body: dict[str, Any] = {"name": draw(NAMES)}
    if args is not None or draw(st.booleans()):
        body["arguments"] = args
    fields: dict[str, Any] = {}
    if draw(st.integers(0, 4)) == 0:  # the flat form
        fields.update(body)
        reserved = {"id", "type", "function", "name", "arguments"}
    else:
        if draw(st.integers(0, 5)) > 0:
            fields["type"] = "function"
        fields["function"] = draw(with_extras(body, {"name", "arguments"}, 1))
        reserved = {"id", "type", "function", "name"}
    if with_id:
        fields["id"] = draw(call_ids(pool))
    return draw(with_extras(fields, reserved, 1))


def _has_object_arguments(call: dict[str, Any]) -> bool:
    function = call.get("function")
    body = function if isinstance(function, dict) else call
    return isinstance(body.get("arguments"), dict)


@st.composite
def object_calls(draw: st.DrawFn) -> dict[str, Any]:
    """A call without an id whose arguments are an object (what marks this format)."""
    args = draw(st.dictionaries(SHORT_TEXT, JSON_VALUES, max_size=2))
    return {"type": "function", "function": {"name": draw(NAMES), "arguments": args}}


_CONTENT = ("content", "tool_calls", "reasoning_content", "thinking", "reasoning")


def _message(draw: st.DrawFn, fields: dict[str, Any]) -> dict[str, Any]:
    message = draw(with_extras(fields, MESSAGE_KEYS, 2))
    if any(fields.get(key) not in (None, "", [], {}) for key in _CONTENT):
        return message
    # no content: an array or object under an unknown key would be content the reader
    # cannot see (HN013, `histnorm.content_keys`), another format's message
    return {k: v for k, v in message.items() if k in fields or not isinstance(v, list | dict)}


@st.composite
def plain_messages(draw: st.DrawFn) -> dict[str, Any]:
    """A system, user or other-role message."""
    role = draw(st.sampled_from(ROLES[draw(st.sampled_from(["system", "user", "user", "other"]))]))
    fields: dict[str, Any] = {"role": role}
    if draw(st.integers(0, 9)) > 0:
        fields["content"] = draw(contents())
    if draw(st.integers(0, 5)) == 0:
        fields["name"] = draw(NAMES | st.none())
    return _message(draw, fields)


@st.composite
def assistant_messages(draw: st.DrawFn, pool: list[str]) -> dict[str, Any]:
    """An assistant message: content, reasoning and/or tool calls."""
    fields: dict[str, Any] = {"role": draw(st.sampled_from(ROLES["assistant"]))}
    calls = draw(st.lists(tool_calls(pool), max_size=3))
    if calls and not any(_has_object_arguments(call) for call in calls):
        calls.insert(draw(st.integers(0, len(calls))), draw(object_calls()))
    if not calls or draw(st.booleans()):
        fields["content"] = draw(contents())
    if draw(st.integers(0, 3)) == 0:
        key = draw(st.sampled_from(["reasoning_content", "thinking", "reasoning"]))
        fields[key] = draw(TEXT | JSON_VALUES)
    if calls or draw(st.integers(0, 5)) == 0:
        fields["tool_calls"] = calls if calls or draw(st.booleans()) else None
    return _message(draw, fields)


@st.composite
def tool_messages(draw: st.DrawFn, pool: list[str]) -> dict[str, Any]:
    """A tool result; `tool_call_id` only when an id-carrying call came before."""
    fields: dict[str, Any] = {"role": draw(st.sampled_from(ROLES["tool"]))}
    if draw(st.integers(0, 7)) > 0:
        fields["content"] = draw(TEXT | st.lists(text_items(), max_size=2) | JSON_VALUES)
    if pool and draw(st.booleans()):
        fields["tool_call_id"] = draw(st.sampled_from(pool))
    if draw(st.booleans()):
        fields["name"] = draw(NAMES | st.none())
    return _message(draw, fields)


@st.composite
def messages(draw: st.DrawFn, min_size: int = 1, max_size: int = 7) -> list[dict[str, Any]]:
    """A message list in which tool messages answer earlier calls by id, name or position."""
    pool: list[str] = []
    out: list[dict[str, Any]] = []
    for _ in range(draw(st.integers(min_size, max_size))):
        kind = draw(st.sampled_from(["plain", "plain", "assistant", "assistant", "tool"]))
        if kind == "plain":
            out.append(draw(plain_messages()))
        elif kind == "assistant":
            out.append(draw(assistant_messages(pool)))
        else:
            out.append(draw(tool_messages(pool)))
    return out


TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Current weather for a city.",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
]


@st.composite
def transcripts(draw: st.DrawFn, min_messages: int = 1, max_messages: int = 7) -> Any:
    """A native chat-template document: a bare list or a record with `messages`. Unknown
    roles alone are no mark of the format (positive detection), so a document of only
    those starts with a user message."""
    body = draw(messages(min_messages, max_messages))
    if all(m.get("role") in ("observer",) for m in body):
        body = [{"role": "user", "content": "Weather in Oslo?"}, *body]
    if draw(st.integers(0, 2)) == 0:
        return body
    fields: dict[str, Any] = {"messages": body}
    if draw(st.booleans()):
        fields["tools"] = TOOLS
    if draw(st.integers(0, 3)) == 0:
        fields["images"] = ["a.png"]
    return draw(with_extras(fields, {"messages", "model"}, 1))


def damaged_transcripts() -> st.SearchStrategy[Any]:
    """A valid document with one value (anywhere) replaced by an arbitrary JSON value."""
    return damaged(transcripts(max_messages=5))
