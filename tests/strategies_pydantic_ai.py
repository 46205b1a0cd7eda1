"""Hypothesis strategies for native Pydantic AI message histories.

Shapes follow what `ModelMessagesTypeAdapter.dump_json` writes in pydantic-ai-slim
(pydantic_ai/messages.py, and the real runs in tests/pydantic_ai_runs.py): a list of
`{"parts": [...], "kind": "request" | "response", ...}` objects. Requests draw
system-prompt, user-prompt (string or multimodal list), tool-return (every `outcome`),
retry-prompt (with and without `tool_name`), retry-feedback and the bookkeeping kinds;
responses draw text, thinking, tool-call (`args` a string, an object or null),
builtin-tool-call / builtin-tool-return, file and compaction parts. Unknown part kinds and
unknown keys are drawn at every level; ids include `""`; both envelopes are drawn.

The values are JSON-safe: `orjson.loads(orjson.dumps(x))` gives back `x` exactly.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st
from strategies_json import JSON_OBJECTS, JSON_VALUES, damaged

TEXT = st.text(st.characters(codec="utf-8"), max_size=12)
NAMES = st.sampled_from(["get_weather", "lookup", "final_result", "web_search", "", "f"])
STAMP = st.sampled_from(["2026-12-01T21:12:00.036953Z", "2025-01-01T00:00:00Z"])
OUTCOMES = st.sampled_from(["success", "failed", "denied", "interrupted", "retried"])
EXTRA_KEYS = st.dictionaries(
    st.sampled_from(["x_vendor", "provider_details", "id", "", "a/b~c"]), JSON_VALUES, max_size=2
)


def _ids(pool: list[str]) -> st.SearchStrategy[str]:
    fresh = st.sampled_from(["call_1", "call_2", "pyd_ai_x", "", "srv_1"])
    return (st.sampled_from(pool) | fresh) if pool else fresh


@st.composite
def _part(draw: st.DrawFn, fields: dict[str, Any], kind: str) -> dict[str, Any]:
    return {**fields, **draw(EXTRA_KEYS), "part_kind": kind}


@st.composite
def request_parts(draw: st.DrawFn, pool: list[str]) -> dict[str, Any]:
    """One part of a `ModelRequest`."""
    which = draw(st.integers(0, 7))
    if which == 0:
        return draw(_part({"content": draw(TEXT), "timestamp": draw(STAMP)}, "system-prompt"))
    if which == 1:
        content = draw(TEXT | st.lists(TEXT | st.just({"kind": "image-url", "url": "u"})))
        return draw(_part({"content": content, "timestamp": draw(STAMP)}, "user-prompt"))
    if which in (2, 3):
        fields = {
            "tool_name": draw(NAMES),
            "content": draw(JSON_VALUES),
            "tool_call_id": draw(_ids(pool)),
            "metadata": None,
            "timestamp": draw(STAMP),
            "outcome": draw(OUTCOMES),
        }
        return draw(_part(fields, "tool-return"))
    if which == 4:
        fields = {
            "content": draw(TEXT),
            "tool_name": draw(st.none() | NAMES),
            "tool_call_id": draw(_ids(pool)),
            "timestamp": draw(STAMP),
        }
        return draw(_part(fields, "retry-prompt"))
    if which == 5:
        fields = {"content": draw(TEXT), "retry": {"cause": "model_retry"}}
        return draw(_part(fields, "retry-feedback"))
    kind = draw(st.sampled_from(["instruction-delta", "tool-availability-delta", "x-new"]))
    return draw(_part({"value": draw(JSON_VALUES)}, kind))


@st.composite
def response_parts(draw: st.DrawFn, pool: list[str]) -> dict[str, Any]:
    """One part of a `ModelResponse`; a call's id goes into `pool` for later results."""
    which = draw(st.integers(0, 7))
    if which == 0:
        return draw(_part({"content": draw(TEXT), "id": None}, "text"))
    if which == 1:
        fields = {"content": draw(TEXT), "signature": draw(st.none() | TEXT)}
        return draw(_part(fields, "thinking"))
    if which in (2, 3):
        call_id = draw(_ids(pool))
        pool.append(call_id)
        args = draw(st.none() | JSON_OBJECTS | st.just('{"city": "Paris"}') | TEXT)
        fields = {"tool_name": draw(NAMES), "args": args, "tool_call_id": call_id}
        return draw(_part(fields, "tool-call"))
    if which == 4:
        fields = {"tool_name": "web_search", "args": draw(JSON_OBJECTS), "tool_call_id": "srv_1"}
        return draw(_part({**fields, "provider_name": "x"}, "builtin-tool-call"))
    if which == 5:
        fields = {"tool_name": "web_search", "content": draw(JSON_VALUES), "tool_call_id": "srv_1"}
        return draw(_part({**fields, "provider_name": "x"}, "builtin-tool-return"))
    if which == 6:
        content = {"data": "iVBORw0KGgo=", "media_type": "image/png", "kind": "binary"}
        return draw(_part({"content": content}, "file"))
    return draw(_part({"content": draw(JSON_VALUES)}, draw(st.sampled_from(["compaction", "zz"]))))


@st.composite
def messages(draw: st.DrawFn, pool: list[str]) -> dict[str, Any]:
    """One `ModelRequest` or `ModelResponse`."""
    response = draw(st.booleans())
    drawn = response_parts(pool) if response else request_parts(pool)
    parts = draw(st.lists(drawn, max_size=3))
    message: dict[str, Any] = {"parts": parts, "timestamp": draw(STAMP)}
    if response:
        message |= {"usage": {"input_tokens": 1}, "model_name": draw(st.none() | NAMES)}
    message |= {"kind": "response" if response else "request", "run_id": draw(st.none() | TEXT)}
    extra = st.dictionaries(st.sampled_from(["state", "zz"]), JSON_VALUES, max_size=1)
    return message | draw(extra)


@st.composite
def transcripts(draw: st.DrawFn) -> Any:
    """A Pydantic AI history (at least one part somewhere), bare or under `messages`."""
    pool: list[str] = []
    found = draw(st.lists(messages(pool), min_size=1, max_size=5))
    if not any(m["parts"] for m in found):
        found[0]["parts"] = [{"content": "hi", "part_kind": "user-prompt"}]
        found[0]["kind"] = "request"
    if draw(st.integers(0, 4)) == 0:
        return {"messages": found, "model": "test"}
    return found


def damaged_transcripts() -> st.SearchStrategy[Any]:
    """Valid histories with one value anywhere replaced by an arbitrary JSON value."""
    return damaged(transcripts(), JSON_VALUES | st.sampled_from([[], {}, ["x"], {"a": 1}, None]))
