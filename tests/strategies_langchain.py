"""Hypothesis strategies for native LangChain message lists (formats.md §6).

Both stored forms are drawn, often mixed in one list:

- `messages_to_dict`: `{"type": <type>, "data": <model_dump>}` with every field LangChain
  writes, in its order (`content`, `additional_kwargs`, `response_metadata`, `type`, `name`,
  `id`, then the type's own fields);
- `dumpd`: `{"lc": 1, "type": "constructor", "id": [..., <class>], "kwargs": {...}}` with
  default-valued fields left out.

Message types: human, ai, system, chat (with `role`), tool (`tool_call_id`, `artifact`,
`status`), function, remove and the chunk types. Content is a string
(also `""`) or a list of strings and blocks: text, thinking, redacted_thinking, reasoning,
image_url / image / file / input_audio, refusal, tool_use / tool_call / function_call
blocks (copies of `tool_calls` entries or calls of their own), v1 server_tool_call /
server_tool_result, Anthropic tool_result, and unknown blocks. AI messages carry
`tool_calls`, `invalid_tool_calls`, `usage_metadata`, and `additional_kwargs` with raw
OpenAI-form `tool_calls` (copies or not), `function_call` and `refusal`; chunks carry
`tool_call_chunks`. Unknown keys appear at every level, ids include `""`, and both
envelopes (a bare list, `{"messages": [...]}`) are drawn.

The values are JSON-safe: `orjson.loads(orjson.dumps(x))` gives back `x` exactly.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from hypothesis import strategies as st
from strategies_json import JSON_OBJECTS, JSON_VALUES

Form = Literal["dict", "dumpd"]

TEXT = st.text(st.characters(codec="utf-8"), max_size=12)
SHORT_TEXT = st.text(st.characters(codec="utf-8"), max_size=6)

NAMES = st.sampled_from(
    ["get_weather", "search", "handoff_to_billing", "handoff_to_", "run_sql", "", "f"]
) | st.from_regex(r"[A-Za-z_][A-Za-z0-9_\-]{0,11}", fullmatch=True)

BODY_KEYS = {
    "content",
    "additional_kwargs",
    "response_metadata",
    "type",
    "name",
    "id",
    "tool_calls",
    "invalid_tool_calls",
    "usage_metadata",
    "tool_call_id",
    "artifact",
    "status",
    "role",
    "tool_call_chunks",
    "chunk_position",
    "example",
}
VENDOR_KEYS = ["x_vendor", "lc_extra", "x-trace-id", "", "a/b~c", "~0"]

CLASSES = {
    "human": "HumanMessage",
    "ai": "AIMessage",
    "system": "SystemMessage",
    "chat": "ChatMessage",
    "tool": "ToolMessage",
    "function": "FunctionMessage",
    "remove": "RemoveMessage",
}
CHUNK_TYPES = {
    "human": "HumanMessageChunk",
    "ai": "AIMessageChunk",
    "system": "SystemMessageChunk",
    "chat": "ChatMessageChunk",
    "tool": "ToolMessageChunk",
    "function": "FunctionMessageChunk",
}
CHAT_ROLES = st.sampled_from(["critic", "user", "assistant", "developer", "Tool", ""])


def extra_keys(reserved: set[str]) -> st.SearchStrategy[str]:
    """Unknown keys, never one the codec reads."""
    return (st.sampled_from(VENDOR_KEYS) | SHORT_TEXT.map(lambda s: "x_" + s)).filter(
        lambda key: key not in reserved
    )


@st.composite
def with_extras(draw: st.DrawFn, obj: dict[str, Any], reserved: set[str], most: int = 1) -> Any:
    """`obj` with up to `most` unknown keys added at random places."""
    items = list(obj.items())
    for _ in range(draw(st.integers(0, most))):
        key = draw(extra_keys(reserved | {k for k, _ in items}))
        items.insert(draw(st.integers(0, len(items))), (key, draw(JSON_VALUES)))
    return dict(items)


@st.composite
def call_ids(draw: st.DrawFn, pool: list[str]) -> str:
    """A call id: often one already used in this transcript, sometimes `""`."""
    if pool and draw(st.integers(0, 2)) == 0:
        return draw(st.sampled_from(pool))
    new = draw(
        st.sampled_from(["", "call_1", "toolu_01", "run-7"])
        | st.from_regex(r"call_[A-Za-z0-9]{1,10}", fullmatch=True)
        | TEXT
    )
    pool.append(new)
    return new


def arguments_string(args: dict[str, Any]) -> str:
    """`args` as the JSON string OpenAI writes."""
    return json.dumps(args)


# --- content blocks -----------------------------------------------------------------------


@st.composite
def plain_blocks(draw: st.DrawFn) -> Any:
    """A content item that is not a call: text, reasoning, media, refusal, unknown."""
    which = draw(st.integers(0, 10))
    if which == 0:
        return draw(TEXT)
    if which == 1:
        block: dict[str, Any] = {"type": "text", "text": draw(TEXT)}
        if draw(st.booleans()):
            block["annotations"] = draw(st.lists(JSON_OBJECTS, max_size=1))
    elif which == 2:
        block = {"type": "thinking", "thinking": draw(TEXT), "signature": draw(TEXT)}
    elif which == 3:
        block = {"type": "redacted_thinking", "data": draw(st.sampled_from(["EqQBCkg=", ""]))}
    elif which == 4:
        block = {"type": "reasoning", "reasoning": draw(TEXT | st.none())}
        if draw(st.booleans()):
            block["extras"] = {"signature": draw(TEXT)}
        if draw(st.booleans()):
            block["id"] = "rs_" + draw(SHORT_TEXT)
    elif which == 5:
        url = draw(st.sampled_from(["https://example.com/a.png", "data:image/png;base64,AAAA"]))
        block = {"type": "image_url", "image_url": draw(st.sampled_from([url, {"url": url}]))}
    elif which == 6:
        block = {"type": "image", "url": "https://example.com/" + draw(SHORT_TEXT)}
        if draw(st.booleans()):
            block["mime_type"] = draw(st.sampled_from(["image/png", "image/jpeg"]))
    elif which == 7:
        source = {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0="}
        block = draw(
            st.sampled_from(
                [
                    {"type": "file", "base64": "JVBERi0=", "mime_type": "application/pdf"},
                    {"type": "document", "source": source},
                    {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}},
                ]
            )
        )
    elif which == 8:
        block = {"type": "refusal", "refusal": draw(TEXT)}
    elif which == 9:
        block = {"type": draw(st.sampled_from(["non_standard", "citation", "x_widget"]))}
        block["value"] = draw(JSON_VALUES)
    else:
        block = {"type": "text", "text": None}  # not a text block after all: kept as unknown
    return draw(with_extras(block, set(block) | {"type"}))


@st.composite
def call_blocks(draw: st.DrawFn, call_id: str | None, name: str, args: dict[str, Any]) -> Any:
    """A provider-native call block with `call_id` (Anthropic, v1 or Responses style)."""
    kind = draw(st.sampled_from(["tool_use", "tool_use", "tool_call", "function_call"]))
    if kind == "tool_use":
        block: dict[str, Any] = {"type": "tool_use", "id": call_id, "name": name, "input": args}
    elif kind == "tool_call":
        block = {"type": "tool_call", "id": call_id, "name": name, "args": args}
    else:
        block = {"type": "function_call", "name": name, "arguments": arguments_string(args)}
        block["call_id"] = call_id
        block["id"] = "fc_" + draw(SHORT_TEXT)
    return block


@st.composite
def hosted_blocks(draw: st.DrawFn, pool: list[str]) -> dict[str, Any]:
    """A v1 server-side tool call or result, or an Anthropic tool_result block."""
    call_id = draw(call_ids(pool))
    which = draw(st.integers(0, 2))
    if which == 0:
        block: dict[str, Any] = {"type": "server_tool_call", "id": call_id, "name": draw(NAMES)}
        block["args"] = draw(JSON_OBJECTS)
    elif which == 1:
        block = {"type": "server_tool_result", "tool_call_id": call_id}
        block["status"] = draw(st.sampled_from(["success", "error"]))
        block["output"] = draw(JSON_VALUES)
    else:
        block = {"type": "tool_result", "tool_use_id": call_id, "content": draw(TEXT)}
        if draw(st.booleans()):
            block["is_error"] = draw(st.booleans())
    return block


# --- calls ----------------------------------------------------------------------------------


@st.composite
def tool_calls(draw: st.DrawFn, pool: list[str]) -> dict[str, Any]:
    call_id = draw(call_ids(pool) | st.none()) if draw(st.integers(0, 9)) else None
    args = draw(JSON_OBJECTS)
    return {"name": draw(NAMES), "args": args, "id": call_id, "type": "tool_call"}


@st.composite
def invalid_tool_calls(draw: st.DrawFn, pool: list[str]) -> dict[str, Any]:
    return {
        "type": "invalid_tool_call",
        "id": draw(call_ids(pool) | st.none()),
        "name": draw(NAMES | st.none()),
        "args": draw(st.sampled_from(['{"city": "Os', "not json", ""]) | st.none()),
        "error": draw(
            st.sampled_from(["Function get_weather arguments are not valid JSON"]) | st.none()
        ),
    }


def raw_call(call_id: str | None, name: str | None, args: Any) -> dict[str, Any]:
    """An OpenAI-form call as older langchain-openai keeps it in `additional_kwargs`."""
    arguments = args if isinstance(args, str) or args is None else arguments_string(args)
    return {"id": call_id, "function": {"arguments": arguments, "name": name}, "type": "function"}


# --- messages -------------------------------------------------------------------------------


@st.composite
def contents(draw: st.DrawFn, pool: list[str], calls: list[dict[str, Any]]) -> Any:
    """String content, or list content mixing blocks with copies of `calls`."""
    if draw(st.integers(0, 3)) == 0:
        return draw(st.sampled_from(["", "Let me check.", "  "]) | TEXT)
    items: list[Any] = draw(st.lists(plain_blocks(), max_size=3))
    for call in calls:
        if call["id"] is not None and draw(st.booleans()):
            args = call["args"] if isinstance(call["args"], dict) else {}
            copy = draw(call_blocks(call["id"], call["name"] or "", args))
            items.insert(draw(st.integers(0, len(items))), copy)
    for _ in range(draw(st.integers(0, 1))):
        own = draw(call_blocks(draw(call_ids(pool)), draw(NAMES), draw(JSON_OBJECTS)))
        items.insert(draw(st.integers(0, len(items))), own)
    if draw(st.integers(0, 3)) == 0:
        items.insert(draw(st.integers(0, len(items))), draw(hosted_blocks(pool)))
    return items


@st.composite
def additional_kwargs(
    draw: st.DrawFn, pool: list[str], calls: list[dict[str, Any]], ai: bool
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if ai and draw(st.integers(0, 2)) == 0:
        raw = [raw_call(c["id"], c["name"], c["args"]) for c in calls if c["id"] is not None]
        raw += [
            raw_call(draw(call_ids(pool)), draw(NAMES), draw(JSON_OBJECTS))
            for _ in range(draw(st.integers(0, 1)))
        ]
        if draw(st.integers(0, 4)) == 0:
            raw.append(draw(st.sampled_from(["raw", {"id": 5}, {"index": 0}])))
        out["tool_calls"] = draw(st.permutations(raw))
    if ai and draw(st.integers(0, 4)) == 0:
        out["function_call"] = {"arguments": '{"id": 8}', "name": draw(NAMES)}
    if ai and draw(st.integers(0, 5)) == 0:
        out["refusal"] = draw(TEXT)
    if draw(st.integers(0, 4)) == 0:
        out["reasoning_content"] = draw(TEXT)
    return out


def usage() -> st.SearchStrategy[dict[str, Any]]:
    counts = st.integers(0, 2**31)
    return st.fixed_dictionaries(
        {"input_tokens": counts, "output_tokens": counts, "total_tokens": counts},
        optional={"input_token_details": st.fixed_dictionaries({"cache_read": counts})},
    )


@st.composite
def fields(draw: st.DrawFn, kind: str, pool: list[str]) -> dict[str, Any]:
    """Every field LangChain dumps for a message of `kind`, in its order, with values."""
    ai = kind == "ai"
    calls = draw(st.lists(tool_calls(pool), max_size=2)) if ai else []
    invalid = draw(st.lists(invalid_tool_calls(pool), max_size=1)) if ai else []
    if kind in ("tool", "function"):
        content: Any = draw(TEXT | st.lists(plain_blocks(), max_size=2))
    elif kind == "remove":
        content = ""
    else:
        content = draw(contents(pool, calls + invalid))
    out: dict[str, Any] = {
        "content": content,
        "additional_kwargs": draw(additional_kwargs(pool, calls, ai)),
        "response_metadata": draw(
            st.just({})
            | st.dictionaries(
                st.sampled_from(["model_name", "finish_reason", "x"]), JSON_VALUES, max_size=2
            )
        ),
        "type": kind,
        "name": draw(st.none() | NAMES) if kind != "function" else draw(NAMES),
        "id": draw(
            (st.none() if kind != "remove" else st.nothing())
            | st.sampled_from(["run-1", "", "msg_01"])
            | TEXT
        ),
    }
    if ai:
        out |= {"tool_calls": calls, "invalid_tool_calls": invalid}
        out["usage_metadata"] = draw(st.none() | usage())
    elif kind == "tool":
        out["tool_call_id"] = draw(call_ids(pool))
        out["artifact"] = draw(st.none() | JSON_VALUES)
        out["status"] = draw(st.sampled_from(["success", "error"]))
    elif kind == "chat":
        out["role"] = draw(CHAT_ROLES)
    return out


DUMPD_DEFAULTS: dict[str, Any] = {
    "additional_kwargs": {},
    "response_metadata": {},
    "name": None,
    "id": None,
    "tool_calls": [],
    "invalid_tool_calls": [],
    "usage_metadata": None,
    "artifact": None,
    "status": "success",
}


@st.composite
def messages(draw: st.DrawFn, form: Form, pool: list[str]) -> dict[str, Any]:
    """One message item in `form`."""
    kind = draw(
        st.sampled_from(
            [
                *("human", "human", "ai", "ai", "ai", "system", "chat"),
                *("tool", "tool", "function", "remove", "chunk"),
            ]
        )
    )
    chunk = kind == "chunk"
    if chunk:
        kind = draw(st.sampled_from(["ai", "ai", "human", "tool", "chat"]))
    body = draw(fields(kind, pool))
    ltype = CHUNK_TYPES[kind] if chunk else kind
    body["type"] = ltype
    if chunk and kind == "ai":
        chunks = [
            {
                "name": c["name"],
                "args": arguments_string(c["args"]),
                "id": c["id"],
                "index": i,
                "type": "tool_call_chunk",
            }
            for i, c in enumerate(body["tool_calls"])
        ]
        body["tool_call_chunks"] = chunks
        body["chunk_position"] = draw(st.sampled_from([None, "last"]))
    if form == "dumpd":
        body = {
            k: v
            for k, v in body.items()
            if k in ("content", "type")
            or k not in DUMPD_DEFAULTS
            or v != DUMPD_DEFAULTS[k]
            or draw(st.integers(0, 5)) == 0
        }
    body = draw(with_extras(body, BODY_KEYS, most=1))
    if form == "dict":
        item: dict[str, Any] = {"type": ltype, "data": body}
        return (
            draw(with_extras(item, {"type", "data", "lc", "id", "kwargs"}, most=1))
            if draw(st.integers(0, 9)) == 0
            else item
        )
    cls = CHUNK_TYPES[kind] if chunk else CLASSES[kind]
    path = draw(
        st.sampled_from([["langchain", "schema", "messages"], ["langchain_core", "messages"]])
    )
    return {"lc": 1, "type": "constructor", "id": [*path, cls], "kwargs": body}


@st.composite
def message_lists(
    draw: st.DrawFn, form: Form | None = None, min_size: int = 1, max_size: int = 5
) -> list[dict[str, Any]]:
    """A message list (mixed forms unless `form` is given) whose results reuse call ids."""
    pool: list[str] = []
    out = []
    for _ in range(draw(st.integers(min_size, max_size))):
        chosen: Form = form or draw(st.sampled_from(["dict", "dict", "dumpd"]))
        out.append(draw(messages(chosen, pool)))
    return out


@st.composite
def transcripts(draw: st.DrawFn, form: Form | st.SearchStrategy[Form | None] | None = None) -> Any:
    """A native LangChain document: a bare list or `{"messages": [...]}` with other keys.

    `form` (or a strategy for it) fixes the form of every message; by default they mix."""
    chosen = draw(form) if isinstance(form, st.SearchStrategy) else form
    body = draw(message_lists(chosen))
    if draw(st.booleans()):
        return body
    items: list[tuple[str, Any]] = [("messages", body)]
    if draw(st.booleans()):
        items.append(("thread_id", draw(st.sampled_from(["t-1", "thread-42"]))))
    if draw(st.booleans()):
        items.append((draw(extra_keys({"messages"})), draw(JSON_VALUES)))
    order = draw(st.permutations(range(len(items))))
    return dict(items[i] for i in order)
