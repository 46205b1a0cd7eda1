"""Hypothesis strategies for native Semantic Kernel chat histories.

Shapes follow what `ChatHistory.serialize()` writes in semantic-kernel 1.x
(python/semantic_kernel/contents/*.py; tests/semantic_kernel_histories.py builds the
fixtures the same way): `{"messages": [...]}` (or a bare list) of `ChatMessageContent`
dumps with `role` and `items`. Items draw text, reasoning, function_call (`arguments` a
string, an object or absent; `id` and/or `call_id`; `name` with or without
`plugin_name` / `function_name`), function_result, and the types histnorm keeps as
unknown parts (image, audio, annotation, file_reference, streaming ones, anything newer).
Unknown keys are drawn at every level; ids include `""`; messages draw `name`,
`ai_model_id`, `encoding`, `finish_reason`, `status`, and null for any of them.

The values are JSON-safe: `orjson.loads(orjson.dumps(x))` gives back `x` exactly.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st
from strategies_json import JSON_OBJECTS, JSON_VALUES, damaged

TEXT = st.text(st.characters(codec="utf-8"), max_size=12)
NAMES = st.sampled_from(["weather-get", "get", "math-add", "", "a-b-c", "search"])
ROLES = st.sampled_from(["system", "developer", "user", "assistant", "tool"])
EXTRA_KEYS = st.dictionaries(
    st.sampled_from(["x_vendor", "index", "", "a/b~c", "inner"]), JSON_VALUES, max_size=2
)
METADATA = st.just({}) | JSON_OBJECTS
UNKNOWN_TYPES = st.sampled_from(
    ["image", "audio", "binary", "annotation", "file_reference", "streaming_annotation", "zz"]
)


def _ids(pool: list[str]) -> st.SearchStrategy[str]:
    fresh = st.sampled_from(["call_1", "call_2", "fc_1", "", "legacy_function_call"])
    return (st.sampled_from(pool) | fresh) if pool else fresh


@st.composite
def _item(draw: st.DrawFn, kind: str, fields: dict[str, Any]) -> dict[str, Any]:
    head: dict[str, Any] = {}
    if draw(st.booleans()):
        head["ai_model_id"] = draw(st.none() | st.just("gpt-4o"))
    if draw(st.integers(0, 5)):
        head["metadata"] = draw(METADATA)
    return {**head, "content_type": kind, **fields, **draw(EXTRA_KEYS)}


@st.composite
def _tool_fields(draw: st.DrawFn, call_id: str) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    which = draw(st.integers(0, 3))
    if which != 1:
        fields["id"] = call_id
    if which in (1, 2):
        fields["call_id"] = draw(st.just(call_id) | st.just("call_x"))
    name = draw(NAMES)
    if draw(st.integers(0, 3)):
        fields["name"] = name
    plugin, _, function = name.partition("-") if "-" in name else ("", "", name)
    fields["function_name"] = function
    if plugin:
        fields["plugin_name"] = plugin
    return fields


@st.composite
def items(draw: st.DrawFn, pool: list[str]) -> dict[str, Any]:
    """One item of a message; a call's id goes into `pool` for later results."""
    which = draw(st.integers(0, 7))
    if which == 0:
        fields = {"text": draw(TEXT)}
        if draw(st.booleans()):
            fields["encoding"] = draw(st.sampled_from(["utf-8", None]))
        return draw(_item("text", fields))
    if which == 1:
        return draw(_item("reasoning", {"text": draw(st.none() | TEXT)}))
    if which in (2, 3):
        call_id = draw(_ids(pool))
        pool.append(call_id)
        fields = draw(_tool_fields(call_id))
        args = draw(st.none() | JSON_OBJECTS | st.just('{"city": "Paris"}') | TEXT)
        if args is not None or draw(st.booleans()):
            fields["arguments"] = args
        return draw(_item("function_call", fields))
    if which in (4, 5):
        fields = draw(_tool_fields(draw(_ids(pool))))
        fields["result"] = draw(TEXT | JSON_VALUES)
        return draw(_item("function_result", fields))
    if which == 6:
        fields = {"uri": "https://example.com/a.png", "data_uri": draw(st.sampled_from(["", "x"]))}
        return draw(_item(draw(UNKNOWN_TYPES), fields))
    return draw(_item(draw(UNKNOWN_TYPES), {"value": draw(JSON_VALUES)}))


@st.composite
def messages(draw: st.DrawFn, pool: list[str]) -> dict[str, Any]:
    """One `ChatMessageContent` dump."""
    message: dict[str, Any] = {}
    if draw(st.booleans()):
        message["ai_model_id"] = draw(st.none() | st.just("gpt-4o"))
    message["metadata"] = draw(METADATA)
    if draw(st.integers(0, 5)):
        message["content_type"] = "message"
    message["role"] = draw(ROLES)
    if draw(st.integers(0, 3)) == 0:
        message["name"] = draw(st.none() | st.sampled_from(["Writer", "", "Reviewer"]))
    message["items"] = draw(st.lists(items(pool), max_size=3))
    for key, values in (
        ("encoding", ["utf-8"]),
        ("finish_reason", ["stop", "tool_calls", "length"]),
        ("status", ["completed", "incomplete"]),
    ):
        if draw(st.integers(0, 3)) == 0:
            message[key] = draw(st.none() | st.sampled_from(values))
    return message | draw(EXTRA_KEYS)


@st.composite
def transcripts(draw: st.DrawFn) -> Any:
    """A Semantic Kernel history (at least one item somewhere), under `messages` or bare."""
    pool: list[str] = []
    found = draw(st.lists(messages(pool), min_size=1, max_size=5))
    if not any(m["items"] for m in found):
        found[0]["items"] = [{"metadata": {}, "content_type": "text", "text": "hi"}]
    if draw(st.integers(0, 4)) == 0:
        return found
    envelope: dict[str, Any] = {"messages": found}
    if draw(st.integers(0, 3)) == 0:
        envelope["system_message"] = None
    return envelope


def damaged_transcripts() -> st.SearchStrategy[Any]:
    """Valid histories with one value anywhere replaced by an arbitrary JSON value."""
    return damaged(transcripts(), JSON_VALUES | st.sampled_from([[], {}, ["x"], {"a": 1}, None]))
