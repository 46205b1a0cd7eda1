"""Hypothesis strategies for native Bedrock Converse message lists and request bodies.

Shapes follow botocore's `bedrock-runtime` service model (`Converse` input: `Message`
`{role, content}`, `ContentBlock` a union of one key) and Strands Agents' `Message`
TypedDicts: blocks `text`, `toolUse`, `toolResult` (content `text` / `json` blocks,
`status`), `reasoningContent` (`reasoningText` or `redactedContent`), `image`,
`document`, `cachePoint`, and blocks histnorm does not model (`guardContent`, new keys,
blocks of several keys). Repeated and `""` call ids are drawn too, and both envelopes (a
bare list, a request body with `system`, `inferenceConfig`, `toolConfig`, ...).

Every document holds a Converse mark (a modelled block in some message, or a body key),
as a real history does. Values are JSON-safe; no object is shared between two places.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st
from strategies_json import JSON_OBJECTS, JSON_VALUES, damaged

TEXT = st.text(st.characters(codec="utf-8"), max_size=12)
NAMES = st.sampled_from(["get_weather", "top_song", "handoff_to_billing", ""]) | st.from_regex(
    r"[A-Za-z_][A-Za-z0-9_\-]{0,11}", fullmatch=True
)
ROLES = st.sampled_from(["user", "user", "assistant", "assistant", "system"])


@st.composite
def call_ids(draw: st.DrawFn, pool: list[str]) -> str:
    """A call id: sometimes one already used, sometimes `""`."""
    if pool and draw(st.integers(0, 3)) == 0:
        return draw(st.sampled_from(pool))
    new = draw(st.sampled_from(["", "tooluse_1", "tooluse_ZQEZysOVRqitr"]) | TEXT)
    pool.append(new)
    return new


def result_content() -> st.SearchStrategy[Any]:
    """A `toolResult.content`: `text` and `json` blocks (or, rarely, anything)."""
    block = st.builds(lambda t: {"text": t}, TEXT) | st.builds(lambda j: {"json": j}, JSON_OBJECTS)
    return st.lists(block, max_size=3) | JSON_VALUES


@st.composite
def blocks(draw: st.DrawFn, pool: list[str]) -> dict[str, Any]:
    """One content block."""
    kind = draw(st.integers(0, 11))
    if kind <= 2:
        return {"text": draw(TEXT)}
    if kind <= 4:
        body: dict[str, Any] = {"toolUseId": draw(call_ids(pool)), "name": draw(NAMES)}
        body["input"] = draw(JSON_OBJECTS | JSON_VALUES)
        if draw(st.integers(0, 5)) == 0:
            body["type"] = "server_tool_use"
        return {"toolUse": body}
    if kind <= 6:
        body = {"toolUseId": draw(call_ids(pool)), "content": draw(result_content())}
        status = draw(st.sampled_from([None, "success", "error"]))
        if status is not None:
            body["status"] = status
        return {"toolResult": body}
    if kind == 7:
        if draw(st.booleans()):
            return {"reasoningContent": {"redactedContent": draw(TEXT)}}
        inner: dict[str, Any] = {"text": draw(TEXT)}
        if draw(st.booleans()):
            inner["signature"] = draw(TEXT)
        return {"reasoningContent": {"reasoningText": inner}}
    if kind == 8:
        media = draw(st.sampled_from(["image", "document", "video"]))
        fmt = draw(st.sampled_from(["png", "pdf", "txt", "mp4", "x"]))
        source = draw(st.sampled_from([{"bytes": "aGk="}, {"s3Location": {"uri": "s3://b/k"}}, {}]))
        return {media: {"format": fmt, "source": source}}
    if kind == 9:
        return {"cachePoint": {"type": "default"}}
    if kind == 10:
        return {"guardContent": {"text": {"text": draw(TEXT)}}}
    key = draw(st.sampled_from(["futureBlock", "text"]))
    return {key: draw(JSON_OBJECTS), "extra": draw(JSON_VALUES)}


@st.composite
def messages(draw: st.DrawFn, pool: list[str]) -> dict[str, Any]:
    """One message: `{role, content}`."""
    content = draw(st.lists(blocks(pool), max_size=4))
    if draw(st.booleans()):
        return {"role": draw(ROLES), "content": content}
    return {"content": content, "role": draw(ROLES)}


BODY_KEYS = st.fixed_dictionaries(
    {},
    optional={
        "modelId": st.sampled_from(["anthropic.claude-3-5-sonnet-20240620-v1:0", "m"]),
        "system": st.lists(st.builds(lambda t: {"text": t}, TEXT), max_size=2),
        "inferenceConfig": st.fixed_dictionaries(
            {}, optional={"maxTokens": st.integers(1, 4096), "temperature": st.floats(0, 1)}
        ),
        "toolConfig": st.just(
            {"tools": [{"toolSpec": {"name": "f", "inputSchema": {"json": {}}}}]}
        ),
    },
)


@st.composite
def transcripts(draw: st.DrawFn, max_messages: int = 6) -> Any:
    """A bare message list or a request body holding one, with a Converse mark."""
    pool: list[str] = []
    items = draw(st.lists(messages(pool), min_size=1, max_size=max_messages))
    first = items[draw(st.integers(0, len(items) - 1))]
    first["content"].insert(0, {"text": draw(TEXT)})  # the mark every history has
    if draw(st.booleans()):
        return items
    body = draw(BODY_KEYS)
    body["messages"] = items
    if draw(st.booleans()):
        body = {"messages": items, **{k: v for k, v in body.items() if k != "messages"}}
    return body


def damaged_transcripts() -> st.SearchStrategy[Any]:
    """A valid transcript with one value (anywhere) replaced by an arbitrary JSON value."""
    return damaged(transcripts(max_messages=4))
