"""Hypothesis strategies for native Anthropic Messages API transcripts (formats.md §3).

Every strategy draws plain JSON values in the shapes the `anthropic` codec reads: user,
assistant and (with `tool_addition` / `tool_removal` blocks) system messages; string or
block-array content; every block type (`text` with `citations` / `cache_control`,
`image`, `document`, `search_result`, `thinking`, `redacted_thinking`, `tool_use`,
`tool_result`, `server_tool_use` with its `*_tool_result` blocks, `mcp_tool_use`,
`mcp_tool_result`, `container_upload`, `mid_conv_system`, `compaction`) plus unknown
ones; unknown keys on messages and blocks; ids reused from earlier calls or empty; and
three envelopes (a bare list, `{"messages": [...]}`, a request body with `system`).

The values are JSON-safe: `orjson.loads(orjson.dumps(x))` gives back `x` exactly.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st
from strategies_json import JSON_OBJECTS as OBJECTS
from strategies_json import JSON_VALUES, damaged

TEXT = st.text(st.characters(codec="utf-8"), max_size=12)
SHORT_TEXT = st.text(st.characters(codec="utf-8"), max_size=6)
NAMES = st.sampled_from(
    ["get_weather", "search", "lookup_order", "handoff_to_billing", "run_sql", "", "f"]
) | st.from_regex(r"[A-Za-z_][A-Za-z0-9_\-]{0,11}", fullmatch=True)

# Message keys the codec reads, and keys that make the sniffer say "not mine" (they belong
# to OpenAI Chat, MEAI or Gemini messages).
MESSAGE_KEYS = {"role", "content", "id", "type"}
SNIFF_POISON_KEYS = {
    "tool_calls",
    "tool_call_id",
    "function_call",
    "refusal",
    "name",
    "weight",
    "audio",
    "contents",
    "parts",
}
MESSAGE_VENDOR_KEYS = ["x_vendor", "stop_reason", "usage", "model", "x-trace-id", "", "a/b~c"]
BLOCK_VENDOR_KEYS = ["cache_control", "citations", "x_vendor", "", "a/b~c"]
KNOWN_TYPES = {
    "text",
    "image",
    "document",
    "search_result",
    "thinking",
    "redacted_thinking",
    "tool_use",
    "tool_result",
    "server_tool_use",
    "mcp_tool_use",
    "mcp_tool_result",
}
# Block types of other formats: the sniffer rejects them.
FOREIGN_TYPES = {
    "image_url",
    "input_audio",
    "file",
    "refusal",
    "input_text",
    "output_text",
    "input_image",
    "input_file",
}
SERVER_TOOLS = [
    ("web_search", "web_search_tool_result"),
    ("web_fetch", "web_fetch_tool_result"),
    ("code_execution", "code_execution_tool_result"),
    ("bash_code_execution", "bash_code_execution_tool_result"),
    ("text_editor_code_execution", "text_editor_code_execution_tool_result"),
    ("tool_search_tool_regex", "tool_search_tool_result"),
    ("advisor", "advisor_tool_result"),
]


def extra_keys(pool: list[str], reserved: set[str]) -> st.SearchStrategy[str]:
    """Unknown keys a writer may add, never one in `reserved`."""
    return (st.sampled_from(pool) | SHORT_TEXT.map(lambda s: "x_" + s)).filter(
        lambda key: key not in reserved
    )


def vendor_value(key: str) -> st.SearchStrategy[Any]:
    """A plausible value for a vendor key (falls back to any JSON value)."""
    if key == "cache_control":
        return st.sampled_from([{"type": "ephemeral"}, {"type": "ephemeral", "ttl": "1h"}, None])
    if key == "citations":
        return st.just([{"type": "char_location", "cited_text": "x", "start_char_index": 0}])
    return JSON_VALUES


@st.composite
def with_extras(
    draw: st.DrawFn,
    fields: dict[str, Any],
    reserved: set[str],
    max_extra: int = 2,
    pool: list[str] = BLOCK_VENDOR_KEYS,
) -> dict[str, Any]:
    """`fields` plus up to `max_extra` unknown keys, in a drawn key order."""
    items = list(fields.items())
    taken = set(reserved) | set(fields)
    for _ in range(draw(st.integers(0, max_extra))):
        key = draw(extra_keys(pool, taken))
        taken.add(key)
        items.append((key, draw(vendor_value(key))))
    order = draw(st.permutations(range(len(items))))
    return {items[i][0]: items[i][1] for i in order}


@st.composite
def call_ids(draw: st.DrawFn, pool: list[str], prefix: str = "toolu_") -> str:
    """A call id: sometimes one already used in this transcript, sometimes empty."""
    if pool and draw(st.integers(0, 4)) == 0:
        return draw(st.sampled_from(pool))
    new = draw(
        st.sampled_from(["", prefix + "01A", prefix + "01B"])
        | st.from_regex(prefix + r"[A-Za-z0-9]{1,12}", fullmatch=True)
        | TEXT
    )
    pool.append(new)
    return new


def answered_id(draw: st.DrawFn, pool: list[str], prefix: str = "toolu_") -> str:
    """A result's `tool_use_id`: usually an earlier call's id."""
    if pool and draw(st.integers(0, 3)) > 0:
        return draw(st.sampled_from(pool))
    return draw(call_ids(pool, prefix))


# --- blocks ----------------------------------------------------------------------------


def block(kind: str, **fields: Any) -> st.SearchStrategy[dict[str, Any]]:
    """A block of type `kind` with `fields` and up to two unknown keys."""
    return with_extras({"type": kind, **fields}, {"type", *fields})


@st.composite
def text_blocks(draw: st.DrawFn) -> dict[str, Any]:
    return draw(block("text", text=draw(TEXT)))


@st.composite
def image_blocks(draw: st.DrawFn) -> dict[str, Any]:
    source = draw(
        st.sampled_from(
            [
                {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="},
                {"type": "url", "url": "https://example.com/cat.jpg"},
                {"type": "file", "file_id": "file_011CNha8iCJcU1wXNR6q4V8w"},
            ]
        )
    )
    return draw(block("image", source=source))


@st.composite
def document_blocks(draw: st.DrawFn) -> dict[str, Any]:
    source = draw(
        st.sampled_from(
            [
                {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0="},
                {"type": "text", "media_type": "text/plain", "data": "Plain notes."},
                {"type": "url", "url": "https://example.com/report.pdf"},
                {"type": "content", "content": [{"type": "text", "text": "Chunk"}]},
            ]
        )
    )
    fields: dict[str, Any] = {"source": source}
    if draw(st.booleans()):
        fields["title"] = draw(TEXT)
    return draw(block("document", **fields))


@st.composite
def search_result_blocks(draw: st.DrawFn) -> dict[str, Any]:
    return draw(
        block(
            "search_result",
            source="https://docs.example.com/" + draw(SHORT_TEXT),
            title=draw(TEXT),
            content=[{"type": "text", "text": draw(TEXT)}],
        )
    )


@st.composite
def tool_result_blocks(draw: st.DrawFn, pool: list[str], kind: str = "tool_result") -> Any:
    """A `tool_result` (or `mcp_tool_result`): string, block array or no content."""
    prefix = "mcptoolu_" if kind == "mcp_tool_result" else "toolu_"
    fields: dict[str, Any] = {"tool_use_id": answered_id(draw, pool, prefix)}
    shape = draw(st.sampled_from(["string", "blocks", "absent"]))
    if shape == "string":
        fields["content"] = draw(TEXT)
    elif shape == "blocks":
        fields["content"] = draw(
            st.lists(text_blocks() | image_blocks() | search_result_blocks(), max_size=2)
        )
    if draw(st.booleans()):
        fields["is_error"] = draw(st.booleans())
    return draw(block(kind, **fields))


@st.composite
def unknown_blocks(draw: st.DrawFn) -> dict[str, Any]:
    """A block of a type the codec does not model (or models as unknown)."""
    kind = draw(
        st.sampled_from(
            ["container_upload", "mid_conv_system", "compaction", "fallback", "x_widget"]
        )
        | SHORT_TEXT.filter(
            lambda t: t not in KNOWN_TYPES | FOREIGN_TYPES and not t.endswith("_tool_result")
        )
    )
    fields: dict[str, Any] = {}
    if kind == "container_upload":
        fields["file_id"] = "file_" + draw(SHORT_TEXT)
    elif kind == "mid_conv_system":
        fields["content"] = [{"type": "text", "text": draw(TEXT)}]
    elif kind == "compaction":
        fields = {"content": draw(TEXT | st.none()), "encrypted_content": "Ep0CCkgIBhAB"}
    else:
        fields = draw(st.dictionaries(SHORT_TEXT.filter(lambda k: k != "type"), JSON_VALUES))
    return draw(with_extras({"type": kind, **fields}, {"type", *fields}, 1))


@st.composite
def user_blocks(draw: st.DrawFn, pool: list[str]) -> dict[str, Any]:
    """A block of a user message."""
    options = [
        text_blocks(),
        image_blocks(),
        document_blocks(),
        search_result_blocks(),
        unknown_blocks(),
    ]
    return draw(st.one_of(*options, tool_result_blocks(pool), tool_result_blocks(pool)))


@st.composite
def thinking_blocks(draw: st.DrawFn) -> dict[str, Any]:
    if draw(st.integers(0, 3)) == 0:
        return draw(block("redacted_thinking", data="EmwKAhgBEgy3va3pzix/LafPsn4a"))
    return draw(block("thinking", thinking=draw(TEXT), signature="EqQBCgIYAhIM1gbcDa9GJwZA"))


@st.composite
def tool_use_blocks(draw: st.DrawFn, pool: list[str]) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "id": draw(call_ids(pool)),
        "name": draw(NAMES),
        "input": draw(OBJECTS),
    }
    if draw(st.integers(0, 4)) == 0:
        fields["caller"] = {"type": "code_execution_20250825", "tool_id": "srvtoolu_01C"}
    return draw(block("tool_use", **fields))


@st.composite
def server_tool_turns(draw: st.DrawFn, pool: list[str]) -> list[dict[str, Any]]:
    """A `server_tool_use` block, usually followed by its `*_tool_result` block."""
    name, result_type = draw(st.sampled_from(SERVER_TOOLS))
    call_id = draw(call_ids(pool, "srvtoolu_"))
    use = draw(block("server_tool_use", id=call_id, name=name, input=draw(OBJECTS)))
    if draw(st.integers(0, 4)) == 0:
        return [use]
    content = draw(
        st.sampled_from(
            [
                [{"type": "web_search_result", "url": "https://a.example", "title": "A"}],
                {"type": result_type + "_error", "error_code": "unavailable"},
                {"type": "code_execution_result", "stdout": "4\n", "stderr": "", "return_code": 0},
            ]
        )
    )
    return [use, draw(block(result_type, tool_use_id=call_id, content=content))]


@st.composite
def mcp_turns(draw: st.DrawFn, pool: list[str]) -> list[dict[str, Any]]:
    """An `mcp_tool_use` block, usually followed by its `mcp_tool_result`."""
    call_id = draw(call_ids(pool, "mcptoolu_"))
    use = draw(
        block(
            "mcp_tool_use",
            id=call_id,
            name=draw(NAMES),
            server_name="docs",
            input=draw(OBJECTS),
        )
    )
    if draw(st.integers(0, 4)) == 0:
        return [use]
    return [use, draw(tool_result_blocks([call_id], "mcp_tool_result"))]


@st.composite
def assistant_blocks(draw: st.DrawFn, pool: list[str]) -> list[dict[str, Any]]:
    """A run of blocks for an assistant message (server and MCP turns come in pairs)."""
    kind = draw(
        st.sampled_from(
            ["text", "text", "thinking", "tool_use", "tool_use", "server", "mcp", "unknown"]
        )
    )
    if kind == "text":
        return [draw(text_blocks())]
    if kind == "thinking":
        return [draw(thinking_blocks())]
    if kind == "tool_use":
        return [draw(tool_use_blocks(pool))]
    if kind == "server":
        return draw(server_tool_turns(pool))
    if kind == "mcp":
        return draw(mcp_turns(pool))
    return [draw(unknown_blocks())]


# --- messages --------------------------------------------------------------------------


def _message(draw: st.DrawFn, role: str, content: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {"role": role, "content": content}
    if role == "assistant" and draw(st.integers(0, 4)) == 0:
        fields["id"] = "msg_" + draw(SHORT_TEXT)
        if draw(st.booleans()):
            fields["type"] = "message"
    return draw(with_extras(fields, MESSAGE_KEYS | SNIFF_POISON_KEYS, 2, pool=MESSAGE_VENDOR_KEYS))


@st.composite
def user_messages(draw: st.DrawFn, pool: list[str]) -> dict[str, Any]:
    """A user message: string content, or blocks (results usually first, as the API wants)."""
    if draw(st.integers(0, 3)) == 0:
        return _message(draw, "user", draw(TEXT))
    blocks = draw(st.lists(user_blocks(pool), max_size=4))
    if draw(st.integers(0, 3)) > 0:
        blocks.sort(key=lambda b: b["type"] != "tool_result")
    return _message(draw, "user", blocks)


@st.composite
def assistant_messages(draw: st.DrawFn, pool: list[str]) -> dict[str, Any]:
    """An assistant message: string content, or runs of assistant blocks."""
    if draw(st.integers(0, 4)) == 0:
        return _message(draw, "assistant", draw(TEXT))
    runs = draw(st.lists(assistant_blocks(pool), max_size=3))
    return _message(draw, "assistant", [b for run in runs for b in run])


@st.composite
def system_messages(draw: st.DrawFn) -> dict[str, Any]:
    """A `role: system` message holding `tool_addition` / `tool_removal` blocks."""
    kind = draw(st.sampled_from(["tool_addition", "tool_removal"]))
    tool = {"name": draw(NAMES), "input_schema": {"type": "object"}}
    body = tool if kind == "tool_addition" else {"name": tool["name"]}
    return _message(draw, "system", [draw(block(kind, tool=body))])


@st.composite
def messages(draw: st.DrawFn, min_size: int = 1, max_size: int = 6) -> list[dict[str, Any]]:
    """A message list in which results reuse the ids of earlier calls."""
    pool: list[str] = []
    out: list[dict[str, Any]] = []
    for _ in range(draw(st.integers(min_size, max_size))):
        kind = draw(st.sampled_from(["user"] * 3 + ["assistant"] * 3 + ["system"]))
        if kind == "user":
            out.append(draw(user_messages(pool)))
        elif kind == "assistant":
            out.append(draw(assistant_messages(pool)))
        else:
            out.append(draw(system_messages()))
    return out


# --- envelopes -------------------------------------------------------------------------

TOOLS = [
    {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "input_schema": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
    {"type": "web_search_20250305", "name": "web_search", "max_uses": 3},
]


@st.composite
def system_prompts(draw: st.DrawFn) -> Any:
    """A top-level `system`: a string or text blocks."""
    if draw(st.booleans()):
        return draw(TEXT)
    return draw(st.lists(text_blocks(), min_size=1, max_size=2))


@st.composite
def request_bodies(draw: st.DrawFn, body: list[dict[str, Any]]) -> dict[str, Any]:
    """A Messages API request body: `model`, `max_tokens`, `system`, `tools`, ..."""
    fields: dict[str, Any] = {
        "model": draw(st.sampled_from(["claude-sonnet-4-5", "claude-opus-4-1", "claude-3-haiku"])),
        "max_tokens": draw(st.integers(1, 64000)),
        "messages": body,
    }
    if draw(st.booleans()):
        fields["system"] = draw(system_prompts())
    if draw(st.booleans()):
        fields["tools"] = TOOLS[: draw(st.integers(1, 2))]
        fields["tool_choice"] = {"type": draw(st.sampled_from(["auto", "any", "none"]))}
    if draw(st.booleans()):
        fields["thinking"] = {"type": "enabled", "budget_tokens": 2048}
    if draw(st.booleans()):
        fields["temperature"] = draw(st.floats(0, 1, allow_nan=False))
    return draw(with_extras(fields, {"messages"}, 1, pool=MESSAGE_VENDOR_KEYS))


@st.composite
def transcripts(draw: st.DrawFn, min_messages: int = 1, max_messages: int = 6) -> Any:
    """A native Anthropic document in one of the three envelopes."""
    body = draw(messages(min_messages, max_messages))
    envelope = draw(st.sampled_from(["list", "messages", "request"]))
    if envelope == "list":
        return body
    if envelope == "messages":
        fields: dict[str, Any] = {"messages": body}
        if draw(st.booleans()):
            fields["system"] = draw(system_prompts())
        return draw(with_extras(fields, {"messages"}, 1, pool=MESSAGE_VENDOR_KEYS))
    return draw(request_bodies(body))


# --- damaged documents -----------------------------------------------------------------


def damaged_transcripts() -> st.SearchStrategy[Any]:
    """A valid transcript with one value (anywhere) replaced by an arbitrary JSON value."""
    return damaged(transcripts(max_messages=4))
