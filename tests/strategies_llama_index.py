"""Hypothesis strategies for native LlamaIndex chat histories.

Shapes follow what llama-index-core 0.14 writes (llama_index/core/base/llms/types.py,
storage/chat_store/simple_chat_store.py; fixtures/formats/llama-index were written by it):
`ChatMessage.model_dump()` objects `{"role", "additional_kwargs", "blocks"}`. Blocks draw
text, thinking, tool_call (`tool_kwargs` an object or a string, `tool_call_id` null or
`""` too), image, document, cache and unknown block types; assistant messages may hold
OpenAI tool calls (and objects of other shapes) under `additional_kwargs.tool_calls`;
tool messages name their call under `additional_kwargs.tool_call_id` (with or without a
`name`) and hold text or other blocks. Unknown keys are drawn in messages, blocks and
`additional_kwargs`. Documents are a bare list, `{"messages": [...]}` or a
`SimpleChatStore` file with one to three keys (an empty key list included).

The values are JSON-safe: `orjson.loads(orjson.dumps(x))` gives back `x` exactly.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st
from strategies_json import JSON_OBJECTS, JSON_VALUES, damaged

TEXT = st.text(st.characters(codec="utf-8"), max_size=12)
NAMES = st.sampled_from(["get_weather", "lookup", "", "f"])
ROLES = st.sampled_from(["system", "user", "assistant", "developer", "chatbot", "model", "zz"])
EXTRA = st.dictionaries(st.sampled_from(["x_vendor", "", "a/b~c"]), JSON_VALUES, max_size=1)


def _ids(pool: list[str]) -> st.SearchStrategy[str]:
    fresh = st.sampled_from(["call_1", "call_2", "", "mock-tool-call-1"])
    return (st.sampled_from(pool) | fresh) if pool else fresh


@st.composite
def blocks(draw: st.DrawFn, pool: list[str]) -> dict[str, Any]:
    """One item of `blocks`; a call's id goes into `pool` for later results."""
    which = draw(st.integers(0, 7))
    if which in (0, 1):
        block: dict[str, Any] = {"block_type": "text", "text": draw(TEXT)}
    elif which == 2:
        block = {
            "block_type": "thinking",
            "content": draw(st.none() | TEXT),
            "num_tokens": draw(st.none() | st.integers(0, 99)),
            "additional_information": draw(JSON_OBJECTS),
        }
    elif which == 3:
        call_id = draw(st.none() | _ids(pool))
        if call_id is not None:
            pool.append(call_id)
        kwargs = draw(JSON_OBJECTS | st.just('{"city": "Paris"}') | TEXT)
        block = {
            "block_type": "tool_call",
            "tool_call_id": call_id,
            "tool_name": draw(NAMES),
            "tool_kwargs": kwargs,
        }
    elif which == 4:
        block = {
            "block_type": "image",
            "image": None,
            "path": None,
            "url": "https://example.com/cat.png",
            "image_mimetype": draw(st.none() | st.just("image/png")),
            "detail": None,
        }
    elif which == 5:
        url = "https://example.com/r.pdf"
        block = {"block_type": "document", "data": None, "path": None, "url": url}
        block |= {"title": "input_document", "document_mimetype": "application/pdf"}
    elif which == 6:
        block = {"block_type": "cache", "cache_control": {"type": "ephemeral", "ttl": "5m"}}
    else:
        block = {"block_type": draw(st.sampled_from(["x-new", "video"])), "v": draw(JSON_VALUES)}
    return block | draw(EXTRA)


@st.composite
def openai_calls(draw: st.DrawFn, pool: list[str]) -> Any:
    """One item of `additional_kwargs.tool_calls`: an OpenAI tool call, or another shape."""
    if draw(st.integers(0, 5)) == 0:
        return draw(JSON_VALUES)
    call_id = draw(_ids(pool))
    pool.append(call_id)
    args = draw(st.just('{"city": "Paris"}') | TEXT | JSON_OBJECTS)
    body = {"arguments": args, "name": draw(NAMES)}
    return {"id": call_id, "function": body, "type": "function"} | draw(EXTRA)


@st.composite
def messages(draw: st.DrawFn, pool: list[str]) -> dict[str, Any]:
    """One `ChatMessage.model_dump()`."""
    role = draw(st.sampled_from(["tool", "other"]))
    kwargs: dict[str, Any] = draw(
        st.dictionaries(st.sampled_from(["x", "usage"]), JSON_VALUES, max_size=1)
    )
    if role == "tool":
        kwargs["tool_call_id"] = draw(st.none() | _ids(pool))
        if draw(st.booleans()):
            kwargs["name"] = draw(NAMES)
        content = st.lists(st.builds(lambda t: {"block_type": "text", "text": t}, TEXT), max_size=2)
        found = draw(content | st.lists(blocks([]), max_size=2))
        message: dict[str, Any] = {"role": "tool", "additional_kwargs": kwargs, "blocks": found}
    else:
        role = draw(ROLES)
        found = draw(st.lists(blocks(pool), max_size=3))
        if role == "assistant" and draw(st.booleans()):
            kwargs["tool_calls"] = draw(st.lists(openai_calls(pool), max_size=2))
        message = {"role": role, "additional_kwargs": kwargs, "blocks": found}
    return message | draw(st.dictionaries(st.sampled_from(["zz"]), JSON_VALUES, max_size=1))


@st.composite
def transcripts(draw: st.DrawFn) -> Any:
    """A LlamaIndex history (at least one block somewhere): a bare list, a `messages`
    envelope or a chat store."""
    pool: list[str] = []
    lists = draw(st.lists(st.lists(messages(pool), max_size=4), min_size=1, max_size=3))
    every = [m for found in lists for m in found]
    if not any(m["blocks"] for m in every):
        first = {
            "role": "user",
            "additional_kwargs": {},
            "blocks": [{"block_type": "text", "text": "hi"}],
        }
        lists[0].insert(0, first)
    shape = draw(st.integers(0, 4))
    if shape == 0:
        keys = draw(
            st.lists(
                st.sampled_from(["alice", "bob", "a/b~c", ""]),
                min_size=len(lists),
                max_size=len(lists),
                unique=True,
            )
        )
        return {"store": dict(zip(keys, lists, strict=True)), "class_name": "SimpleChatStore"}
    merged = [m for found in lists for m in found]
    if shape == 1:
        return {"messages": merged, "x": 1}
    return merged


def damaged_transcripts() -> st.SearchStrategy[Any]:
    """Valid histories with one value anywhere replaced by an arbitrary JSON value."""
    return damaged(transcripts(), JSON_VALUES | st.sampled_from([[], {}, ["x"], {"a": 1}, None]))
