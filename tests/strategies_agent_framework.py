"""Hypothesis strategies for native Microsoft Agent Framework Python message lists.

Shapes follow formats.md §5 ("Agent Framework Python shape") and what `Message.to_dict`
writes in agent-framework-core: `{"type": "message", "role": ..., "contents": [...],
"author_name"?, "message_id"?, "additional_properties": {...}}`, contents with a snake_case
`type` in `to_dict`'s field order (nulls left out, `additional_properties` last).

Two generations are drawn:

- `"current"`: `"type": "message"`, `role` a string;
- `"old"`: `"type": "chat_message"`, `role` as `{"type": "role", "value": ...}`, and content
  types sometimes with the `_content` suffix (`text_content`).

Every content kind is drawn (text, text_reasoning, data, uri, error, function_call with
string or object arguments, function_result with and without `exception`, approval
requests and responses with a nested call, MCP / shell / search / code interpreter / image
generation / computer tool calls and results, usage, hosted_file, hosted_vector_store,
oauth_consent_request, shell_command_output), plus plain string items, unknown types and
unknown keys at every level; ids include `""`; both envelopes are drawn.

The values are JSON-safe: `orjson.loads(orjson.dumps(x))` gives back `x` exactly.
"""

from __future__ import annotations

from typing import Any, Literal

from hypothesis import strategies as st
from strategies_json import INT64, JSON_OBJECTS, JSON_VALUES

Generation = Literal["current", "old"]

TEXT = st.text(st.characters(codec="utf-8"), max_size=12)
SHORT_TEXT = st.text(st.characters(codec="utf-8"), max_size=6)

PARTIAL_KEY = "agent_framework.partial_response"
NAMES = st.sampled_from(
    ["get_weather", "search", "rm", "handoff_to_billing", "handoff_to_", "run_sql", "", "f"]
) | st.from_regex(r"[A-Za-z_][A-Za-z0-9_\-]{0,11}", fullmatch=True)
ROLES = st.sampled_from(
    ["system", "user", "user", "assistant", "assistant", "tool", "Assistant", "critic", ""]
)
READ_KEYS = {
    "type",
    "text",
    "protected_data",
    "uri",
    "media_type",
    "call_id",
    "image_id",
    "name",
    "tool_name",
    "arguments",
    "commands",
    "inputs",
    "actions",
    "informational_only",
    "result",
    "output",
    "outputs",
    "screenshot",
    "exception",
    "id",
    "function_call",
    "approved",
    "user_input_request",
    "usage_details",
    "details",
    "additional_properties",
    "role",
    "contents",
    "author_name",
    "message_id",
    "messages",
    "$type",
}
VENDOR_KEYS = ["annotations", "x_vendor", "raw_representation_id", "", "a/b~c", "~0"]
KINDS = {
    "text",
    "text_reasoning",
    "data",
    "uri",
    "error",
    "usage",
    "hosted_file",
    "hosted_vector_store",
    "function_call",
    "function_result",
    "function_approval_request",
    "function_approval_response",
    "mcp_server_tool_call",
    "mcp_server_tool_result",
    "shell_tool_call",
    "shell_tool_result",
    "shell_command_output",
    "search_tool_call",
    "search_tool_result",
    "code_interpreter_tool_call",
    "code_interpreter_tool_result",
    "image_generation_tool_call",
    "image_generation_tool_result",
    "computer_tool_call",
    "computer_tool_result",
    "oauth_consent_request",
}


def extra_keys() -> st.SearchStrategy[str]:
    """A key no reader knows."""
    keys = st.sampled_from(VENDOR_KEYS) | SHORT_TEXT.map(lambda s: "x_" + s)
    return keys.filter(lambda k: k not in READ_KEYS)


def metadata() -> st.SearchStrategy[dict[str, Any]]:
    keys = st.sampled_from([PARTIAL_KEY, "_attribution", "x-trace"]) | SHORT_TEXT
    return st.dictionaries(keys, JSON_VALUES, max_size=2)


@st.composite
def af_object(
    draw: st.DrawFn,
    kind: str | None,
    required: list[tuple[str, Any]],
    optional: list[tuple[str, st.SearchStrategy[Any]]] | None = None,
    suffix: bool = False,
) -> dict[str, Any]:
    """An object as `to_dict` writes it: `type` first, fields, `additional_properties` last;
    sometimes an unknown key (or `annotations`) in between."""
    items: list[tuple[str, Any]] = list(required)
    for name, values in optional or []:
        if draw(st.booleans()):
            items.append((name, draw(values)))
    if draw(st.integers(0, 4)) == 0:
        key = draw(extra_keys())
        if key not in {k for k, _ in items}:
            items.insert(draw(st.integers(0, len(items))), (key, draw(JSON_VALUES)))
    if draw(st.integers(0, 5)):
        items.append(("additional_properties", draw(metadata())))
    head = [] if kind is None else [("type", kind + "_content" if suffix else kind)]
    return dict(head + items)


@st.composite
def call_ids(draw: st.DrawFn, pool: list[str]) -> str:
    """A call id: often one already used, sometimes `""`."""
    if pool and draw(st.integers(0, 2)) == 0:
        return draw(st.sampled_from(pool))
    new = draw(st.sampled_from(["", "call_1", "toolu_01"]) | TEXT)
    pool.append(new)
    return new


MEDIA_TYPES = st.sampled_from(["image/png", "image/jpeg", "audio/wav", "application/pdf"])


@st.composite
def function_calls(draw: st.DrawFn, pool: list[str], suffix: bool = False) -> dict[str, Any]:
    required: list[tuple[str, Any]] = [("call_id", draw(call_ids(pool))), ("name", draw(NAMES))]
    optional: list[tuple[str, st.SearchStrategy[Any]]] = [
        ("arguments", JSON_OBJECTS | st.sampled_from(['{"city": "Oslo"}', "not json", ""])),
        ("informational_only", st.just(True)),
        ("hosted", st.booleans()),
        ("server_name", TEXT),
    ]
    return draw(af_object("function_call", required, optional, suffix))


@st.composite
def contents(draw: st.DrawFn, pool: list[str], suffix: bool) -> Any:
    """Any content item."""
    which = draw(st.integers(0, 21))
    s = suffix and draw(st.booleans())
    if which == 0:
        return draw(af_object("text", [("text", draw(TEXT))], suffix=s))
    if which == 1:
        optional = [("text", TEXT), ("protected_data", st.sampled_from(["gAAAAB-enc==", ""]))]
        return draw(af_object("text_reasoning", [], [*optional, ("id", TEXT)], suffix=s))
    if which == 2:
        media = draw(MEDIA_TYPES)
        uri = f"data:{media};base64," + draw(st.sampled_from(["iVBORw0KGgo=", ""]))
        optional = [("media_type", st.just(media))]
        return draw(af_object("data", [("uri", uri)], optional, suffix=s))
    if which == 3:
        uri = draw(st.sampled_from(["https://example.com/cat.png", "file:///tmp/x.pdf"]))
        return draw(af_object("uri", [("uri", uri)], [("media_type", MEDIA_TYPES)], suffix=s))
    if which == 4:
        optional = [("error_code", TEXT), ("error_details", TEXT)]
        return draw(af_object("error", [("message", draw(TEXT))], optional, suffix=s))
    if which in (5, 6):
        return draw(function_calls(pool, s))
    if which in (7, 8):
        required = [("call_id", draw(call_ids(pool)))]
        optional = [("exception", st.just("FunctionInvocationError")), ("result", JSON_VALUES)]
        optional.append(("items", st.lists(st.just({"type": "text", "text": "x"}), max_size=1)))
        return draw(af_object("function_result", required, optional, suffix=s))
    if which == 9:
        call = draw(function_calls(pool, s))
        required = [("function_call", call), ("user_input_request", True), ("id", draw(TEXT))]
        return draw(af_object("function_approval_request", required, suffix=s))
    if which == 10:
        call = draw(function_calls(pool, s))
        approved = draw(st.booleans())
        required = [("function_call", call), ("approved", approved), ("id", draw(TEXT))]
        return draw(af_object("function_approval_response", required, suffix=s))
    if which == 11:
        required = [("call_id", draw(call_ids(pool)))]
        optional = [("arguments", JSON_OBJECTS), ("tool_name", NAMES), ("server_name", TEXT)]
        return draw(af_object("mcp_server_tool_call", required, optional, suffix=s))
    if which == 12:
        output = st.lists(st.just({"type": "text", "text": "r", "additional_properties": {}}))
        required = [("call_id", draw(call_ids(pool)))]
        return draw(af_object("mcp_server_tool_result", required, [("output", output)], s))
    if which == 13:
        kind = draw(st.sampled_from(["shell_tool", "search_tool", "code_interpreter_tool"]))
        end = draw(st.sampled_from(["_call", "_result"]))
        optional = [
            ("commands", st.lists(TEXT, max_size=2)),
            ("arguments", JSON_OBJECTS),
            ("tool_name", st.just("web_search")),
            ("outputs", st.lists(JSON_OBJECTS, max_size=1)),
            ("result", JSON_VALUES),
            ("status", st.sampled_from(["completed", "failed"])),
        ]
        required = [("call_id", draw(call_ids(pool)))] if draw(st.integers(0, 4)) else []
        return draw(af_object(kind + end, required, optional, suffix=s))
    if which == 14:
        kind = draw(st.sampled_from(["image_generation_tool_call", "image_generation_tool_result"]))
        return draw(af_object(kind, [("image_id", draw(call_ids(pool)))], suffix=s))
    if which == 15:
        if draw(st.booleans()):
            required = [("call_id", draw(call_ids(pool))), ("actions", [{"type": "click"}])]
            required += [("user_input_request", True), ("id", "cu_" + draw(SHORT_TEXT))]
            return draw(af_object("computer_tool_call", required, suffix=s))
        return draw(af_object("computer_tool_result", [("call_id", draw(call_ids(pool)))]))
    if which == 16:
        details = draw(st.fixed_dictionaries({}, optional={"input_token_count": INT64, "x": INT64}))
        return draw(af_object("usage", [("usage_details", details)], suffix=s))
    if which == 17:
        if draw(st.booleans()):
            optional = [("media_type", MEDIA_TYPES), ("name", TEXT)]
            return draw(af_object("hosted_file", [("file_id", "file-1")], optional, suffix=s))
        return draw(af_object("hosted_vector_store", [("vector_store_id", "vs_1")], suffix=s))
    if which == 18:
        required = [("user_input_request", True), ("consent_link", "https://login.example")]
        return draw(af_object("oauth_consent_request", required, suffix=s))
    if which == 19:
        return draw(af_object("shell_command_output", [("stdout", draw(TEXT))], suffix=s))
    if which == 20:
        return draw(TEXT)  # a plain string is a text content
    kind = draw(st.sampled_from(["citation", "x_widget", "Text"]) | SHORT_TEXT.filter(bool))
    return draw(af_object(kind if kind not in KINDS else "x_" + kind, [], [("value", JSON_VALUES)]))


@st.composite
def messages(draw: st.DrawFn, generation: Generation, pool: list[str]) -> dict[str, Any]:
    """One message."""
    old = generation == "old"
    suffix = old and draw(st.booleans())
    items = draw(st.lists(contents(pool, suffix), max_size=3))
    role: Any = draw(ROLES)
    if old:
        role = {"type": "role", "value": role}
    required: list[tuple[str, Any]] = [("role", role), ("contents", items)]
    optional: list[tuple[str, st.SearchStrategy[Any]]] = [
        ("author_name", TEXT),
        ("message_id", st.sampled_from(["m1", "chatcmpl-9x", ""]) | TEXT),
    ]
    return draw(af_object("chat_message" if old else "message", required, optional))


@st.composite
def transcripts(draw: st.DrawFn, generation: Generation | None = None) -> Any:
    """A native document: a bare message list or `{"messages": [...]}` with other keys."""
    chosen: Generation = generation or draw(st.sampled_from(["current", "current", "old"]))
    pool: list[str] = []
    body = [draw(messages(chosen, pool)) for _ in range(draw(st.integers(1, 5)))]
    if draw(st.booleans()):
        return body
    items: list[tuple[str, Any]] = [("messages", body)]
    if draw(st.booleans()):
        items.append(("session_id", draw(st.sampled_from(["s-1", "thread-42"]))))
    if draw(st.booleans()):
        items.append((draw(extra_keys()), draw(JSON_VALUES)))
    order = draw(st.permutations(range(len(items))))
    return dict(items[i] for i in order)
