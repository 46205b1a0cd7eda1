"""Hypothesis strategies for the dialects of tests/test_dialects.py.

LLaMA-Factory v1 records (`content` as `{"type", "value"}` parts: text, reasoning, tool
calls whose value is `{"name", "arguments"}` JSON, sometimes malformed, and unknown part
types; `tool` messages of text parts; `loss_weight` on messages, `tools` as a JSON
string), TRL chat-template documents with `"type": "tool"` calls, and OpenAI Responses
request bodies that continue server-side state or hold client-run tool searches.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st
from strategies_json import JSON_VALUES
from strategies_openai_responses import (
    easy_messages,
    function_call_outputs,
    function_calls,
    tool_searches,
)
from strategies_sharegpt import NAMES, SHORT_TEXT, TEXT, with_extras

OBJECTS = st.dictionaries(SHORT_TEXT, JSON_VALUES, max_size=2)
ARGUMENTS = OBJECTS | st.just('{"q": 1}')


@st.composite
def v1_parts(draw: st.DrawFn, *, assistant: bool) -> dict[str, Any]:
    kinds = ["text", "text", "reasoning", "tool_call", "tool_call", "x_other"]
    kind = draw(st.sampled_from(kinds if assistant else ["text", "text", "image_url", "x_other"]))
    value: Any = draw(TEXT)
    if kind == "tool_call":
        body = {"name": draw(NAMES), "arguments": draw(ARGUMENTS)}
        value = draw(st.just(json.dumps(body)) | st.just("not json") | st.just("[]"))
    elif kind == "x_other":
        value = draw(JSON_VALUES)
    return draw(with_extras({"type": kind, "value": value}, {"type", "value", "text"}, 1))


@st.composite
def v1_messages(draw: st.DrawFn, weights: bool) -> dict[str, Any]:
    role = draw(st.sampled_from(["system", "user", "user", "assistant", "assistant", "tool"]))
    parts = v1_parts(assistant=role == "assistant")
    if role == "tool":
        text = st.builds(lambda v: {"type": "text", "value": v}, TEXT)
        content = draw(st.lists(text, min_size=1, max_size=2))
    else:
        content = draw(st.lists(parts, min_size=1, max_size=3))
    fields: dict[str, Any] = {"role": role, "content": content}
    if weights:
        fields["loss_weight"] = 1.0 if role == "assistant" else 0.0
    return fields


@st.composite
def v1_records(draw: st.DrawFn) -> dict[str, Any]:
    """A LLaMA-Factory v1 record: `{"messages": [...], "tools"?: str}`."""
    weights = draw(st.booleans())
    messages = draw(st.lists(v1_messages(weights), min_size=1, max_size=6))
    record: dict[str, Any] = {"messages": messages}
    if draw(st.booleans()):
        record["tools"] = json.dumps([{"name": "get_weather", "parameters": {}}])
    return record


@st.composite
def trl_documents(draw: st.DrawFn) -> dict[str, Any]:
    """TRL's tool-calling literal: id-less `"type": "tool"` calls, named tool messages."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": draw(TEXT)}]
    for _ in range(draw(st.integers(1, 3))):
        names = draw(st.lists(NAMES, min_size=1, max_size=2))
        calls = [
            {"type": "tool", "function": {"name": n, "arguments": draw(OBJECTS)}} for n in names
        ]
        messages.append({"role": "assistant", "tool_calls": calls})
        answered = draw(st.integers(0, len(names)))
        messages += [{"role": "tool", "name": n, "content": draw(TEXT)} for n in names[:answered]]
        messages.append({"role": "assistant", "content": draw(TEXT)})
    return {"messages": messages}


@st.composite
def server_state_bodies(draw: st.DrawFn) -> dict[str, Any]:
    """A Responses request body continuing server-side state (or not), with function
    calls and outputs and client-run tool searches."""
    pool: list[str] = []
    builders = [
        lambda: function_calls(pool),
        lambda: function_call_outputs(pool),
        lambda: function_call_outputs(pool),
        lambda: tool_searches(pool),
        lambda: easy_messages(),
    ]
    items = [draw(draw(st.sampled_from(builders))()) for _ in range(draw(st.integers(1, 5)))]
    body: dict[str, Any] = {"model": "gpt-5", "input": items}
    state = draw(st.sampled_from([None, "previous_response_id", "conversation"]))
    if state == "previous_response_id":
        body["previous_response_id"] = "resp_1"
    elif state == "conversation":
        body["conversation"] = draw(st.sampled_from(["conv_1", {"id": "conv_2"}]))
    return body
