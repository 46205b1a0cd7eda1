"""Hypothesis strategies for native Microsoft.Extensions.AI ChatMessage transcripts.

Shapes follow formats.md §5 and behaviours.md §1: `ChatMessage` objects (`role`,
`contents`, `authorName?`, `messageId?`, `createdAt?`, `additionalProperties?`) whose
contents carry a `$type` discriminator, always as the first key. Every registered content
kind is drawn (text, reasoning, data / uri / hostedFile / hostedVectorStore, error, usage,
function / base / MCP / code-interpreter calls and results, both generations of approval
requests and responses) plus unknown `$type`s, and unknown keys at every level.

Two property-name styles are drawn:

- `"camel"`: MEAI's web defaults (camelCase, nulls omitted);
- `"pascal"`: Agent Framework's Cosmos store (plain serializer options): every property
  name capitalised except `$type`, and optional properties written as explicit nulls.

Keys inside data values (`arguments`, `result`, `additionalProperties`, ...) are data,
not property names, and are never restyled. Approval generations:

- `"current"`: `toolApprovalRequest` / `toolApprovalResponse` with `requestId`, `toolCall`
  and (sometimes) `requiresConfirmation`;
- `"old"`: `functionApprovalRequest` / `functionApprovalResponse` with `id` and
  `functionCall`, never `requiresConfirmation`.

The values are JSON-safe: `orjson.loads(orjson.dumps(x))` gives back `x` exactly.
"""

from __future__ import annotations

from typing import Any, Literal

from hypothesis import strategies as st
from strategies_json import INT64, JSON_OBJECTS, JSON_VALUES

Style = Literal["camel", "pascal"]
Generation = Literal["current", "old"]

TYPE_KEY = "$type"
PARTIAL_KEY = "agent_framework.partial_response"

TEXT = st.text(st.characters(codec="utf-8"), max_size=12)
SHORT_TEXT = st.text(st.characters(codec="utf-8"), max_size=6)

NAMES = st.sampled_from(
    ["get_weather", "search", "rm", "handoff_to_billing", "handoff_to_", "run_sql", "", "f"]
) | st.from_regex(r"[A-Za-z_][A-Za-z0-9_\-]{0,11}", fullmatch=True)

# Every property name the codec looks up (case-insensitively); unknown keys never collide.
KNOWN_NAMES = frozenset(
    name.casefold()
    for name in (
        "role",
        "contents",
        "authorName",
        "messageId",
        "createdAt",
        "additionalProperties",
        "text",
        "protectedData",
        "callId",
        "name",
        "arguments",
        "informationalOnly",
        "invocationRequired",
        "result",
        "outputs",
        "requestId",
        "id",
        "toolCall",
        "functionCall",
        "requiresConfirmation",
        "approved",
        "reason",
        "uri",
        "mediaType",
        "details",
        "messages",
        TYPE_KEY,
    )
)

KNOWN_TYPES = frozenset(
    {
        "text",
        "reasoning",
        "data",
        "uri",
        "hostedFile",
        "hostedVectorStore",
        "error",
        "usage",
        "functionCall",
        "functionResult",
        "toolCall",
        "toolResult",
        "mcpServerToolCall",
        "mcpServerToolResult",
        "codeInterpreterToolCall",
        "codeInterpreterToolResult",
        "imageGenerationToolCall",
        "imageGenerationToolResult",
        "webSearchToolCall",
        "webSearchToolResult",
        "toolApprovalRequest",
        "toolApprovalResponse",
        "functionApprovalRequest",
        "functionApprovalResponse",
        "inputRequest",
        "inputResponse",
        "userInputRequest",
        "userInputResponse",
        "mcpServerToolApprovalRequest",
        "mcpServerToolApprovalResponse",
    }
)

VENDOR_KEYS = [
    "x_vendor",
    "annotations",
    "rawRepresentation",
    "_etag",
    "x-trace-id",
    "",
    "a/b~c",
    "~0",
]

ROLES = st.sampled_from(
    [
        "system",
        "user",
        "user",
        "assistant",
        "assistant",
        "tool",
        "System",
        "User",
        "Assistant",
        "ASSISTANT",
        "Tool",
        "critic",
        "developer",
        "",
    ]
)

METADATA_KEYS = (
    st.sampled_from([PARTIAL_KEY, "_attribution", "model", "x-trace", "agent_framework.source"])
    | SHORT_TEXT
)


def styled(name: str, style: Style) -> str:
    """`name` in `style`: capitalised for PascalCase (`$type` never changes)."""
    if style == "pascal" and name != TYPE_KEY:
        return name[:1].upper() + name[1:]
    return name


# --- objects ---------------------------------------------------------------------------


def unknown_keys(style: Style) -> st.SearchStrategy[str]:
    """A key no MEAI reader knows, never one the codec looks up (in any casing)."""
    keys = st.sampled_from(VENDOR_KEYS) | SHORT_TEXT.map(lambda s: "x_" + s)
    return keys.map(lambda k: styled(k, style)).filter(lambda k: k.casefold() not in KNOWN_NAMES)


@st.composite
def ms_objects(
    draw: st.DrawFn,
    style: Style,
    kind: str | None,
    required: list[tuple[str, Any]],
    optional: list[tuple[str, st.SearchStrategy[Any]]] | None = None,
    max_extra: int = 1,
) -> dict[str, Any]:
    """A JSON object as System.Text.Json writes it.

    `$type` (when `kind` is given) comes first. `required` properties are always present;
    each `optional` one is present with a drawn value, or absent (camelCase) / an explicit
    null (PascalCase, as Cosmos writes). Up to `max_extra` unknown keys are mixed in, and
    the property order is sometimes shuffled (readers must not depend on it).
    """
    items: list[tuple[str, Any]] = [(styled(n, style), v) for n, v in required]
    for name, values in optional or []:
        if draw(st.booleans()):
            items.append((styled(name, style), draw(values)))
        elif style == "pascal" and draw(st.integers(0, 7)) != 0:
            items.append((styled(name, style), None))
    taken = {k.casefold() for k, _ in items}
    for _ in range(draw(st.integers(0, max_extra))):
        key = draw(unknown_keys(style))
        if key.casefold() not in taken:
            taken.add(key.casefold())
            items.append((key, draw(JSON_VALUES)))
    if draw(st.integers(0, 3)) == 0:
        items = [items[i] for i in draw(st.permutations(range(len(items))))]
    head = [(TYPE_KEY, kind)] if kind is not None else []
    return dict(head + items)


def additional_properties() -> st.SearchStrategy[dict[str, Any]]:
    """An `additionalProperties` dictionary (its keys are data and keep their spelling)."""
    return st.dictionaries(METADATA_KEYS, JSON_VALUES, max_size=3)


def _common(style: Style) -> list[tuple[str, st.SearchStrategy[Any]]]:
    """The optional properties every `AIContent` has."""
    return [("additionalProperties", additional_properties())]


# --- contents --------------------------------------------------------------------------


@st.composite
def call_ids(draw: st.DrawFn, pool: list[str] | None = None) -> str:
    """A call id: often one already used in this transcript, sometimes the empty string."""
    if pool and draw(st.integers(0, 2)) == 0:
        return draw(st.sampled_from(pool))
    new = draw(
        st.sampled_from(["", "call_1", "call_2", "toolu_01"])
        | st.from_regex(r"call_[A-Za-z0-9]{1,12}", fullmatch=True)
        | TEXT
    )
    if pool is not None:
        pool.append(new)
    return new


@st.composite
def text_contents(draw: st.DrawFn, style: Style) -> dict[str, Any]:
    return draw(ms_objects(style, "text", [("text", draw(TEXT))], _common(style)))


@st.composite
def reasoning_contents(draw: st.DrawFn, style: Style) -> dict[str, Any]:
    text = draw(TEXT | st.none()) if style == "pascal" else draw(TEXT)
    protected = st.sampled_from(["gAAAAABo-enc==", "", "sig:abc123"]) | TEXT
    return draw(
        ms_objects(
            style, "reasoning", [("text", text)], [("protectedData", protected), *_common(style)]
        )
    )


MEDIA_TYPES = st.sampled_from(
    ["image/png", "image/jpeg", "audio/wav", "application/pdf", "text/plain"]
)


@st.composite
def data_contents(draw: st.DrawFn, style: Style) -> dict[str, Any]:
    """A `data` content: a `data:` URI, with or without a (matching) `mediaType`."""
    media_type = draw(MEDIA_TYPES)
    payload = draw(st.sampled_from(["iVBORw0KGgo=", "UklGRg==", "JVBERi0=", ""]))
    uri = f"data:{media_type};base64,{payload}"
    optional = [("name", TEXT), *_common(style)]
    if draw(st.booleans()):
        optional.insert(0, ("mediaType", st.just(media_type)))
    return draw(ms_objects(style, "data", [("uri", uri)], optional))


@st.composite
def uri_contents(draw: st.DrawFn, style: Style) -> dict[str, Any]:
    uri = draw(
        st.sampled_from(["https://example.com/cat.png", "file:///tmp/x.pdf", ""])
        | TEXT.map(lambda s: "https://example.com/" + s)
    )
    return draw(
        ms_objects(style, "uri", [("uri", uri), ("mediaType", draw(MEDIA_TYPES))], _common(style))
    )


@st.composite
def hosted_contents(draw: st.DrawFn, style: Style) -> dict[str, Any]:
    if draw(st.booleans()):
        return draw(
            ms_objects(
                style,
                "hostedFile",
                [("fileId", "file-" + draw(SHORT_TEXT))],
                [("mediaType", MEDIA_TYPES), ("name", TEXT), *_common(style)],
            )
        )
    return draw(
        ms_objects(
            style, "hostedVectorStore", [("vectorStoreId", "vs_" + draw(TEXT))], _common(style)
        )
    )


@st.composite
def error_contents(draw: st.DrawFn, style: Style) -> dict[str, Any]:
    return draw(
        ms_objects(
            style,
            "error",
            [("message", draw(TEXT))],
            [("errorCode", TEXT), ("details", TEXT), *_common(style)],
        )
    )


@st.composite
def usage_contents(draw: st.DrawFn, style: Style) -> dict[str, Any]:
    counts = st.integers(0, 2**31)
    details = draw(
        ms_objects(
            style,
            None,
            [],
            [
                ("inputTokenCount", counts),
                ("outputTokenCount", counts),
                ("totalTokenCount", counts),
                ("cachedInputTokenCount", counts),
                ("reasoningTokenCount", counts),
                ("additionalCounts", st.dictionaries(SHORT_TEXT, INT64, max_size=2)),
            ],
            max_extra=0,
        )
    )
    return draw(ms_objects(style, "usage", [("details", details)], _common(style)))


@st.composite
def function_calls(
    draw: st.DrawFn, style: Style, pool: list[str] | None = None, kind: str = "functionCall"
) -> dict[str, Any]:
    """A `functionCall` (or `toolCall` base): `arguments` is an object (or absent/null).

    The "informational" flag is `informationalOnly` (current), `invocationRequired`
    (older writers) or neither.
    """
    required: list[tuple[str, Any]] = [("callId", draw(call_ids(pool)))]
    if kind == "toolCall":
        return draw(ms_objects(style, kind, required, _common(style)))
    required.append(("name", draw(NAMES)))
    optional: list[tuple[str, st.SearchStrategy[Any]]] = [("arguments", JSON_OBJECTS)]
    flag = draw(st.sampled_from(["informationalOnly", "invocationRequired", None]))
    if flag == "informationalOnly" or (flag is None and style == "pascal"):
        required.append(("informationalOnly", draw(st.booleans())))
    elif flag == "invocationRequired":
        required.append(("invocationRequired", draw(st.booleans())))
    return draw(ms_objects(style, kind, required, optional + _common(style)))


@st.composite
def function_results(
    draw: st.DrawFn, style: Style, pool: list[str] | None = None, kind: str = "functionResult"
) -> dict[str, Any]:
    required: list[tuple[str, Any]] = [("callId", draw(call_ids(pool)))]
    if kind == "toolResult":
        return draw(ms_objects(style, kind, required, _common(style)))
    return draw(ms_objects(style, kind, required, [("result", JSON_VALUES), *_common(style)]))


@st.composite
def mcp_calls(draw: st.DrawFn, style: Style, pool: list[str] | None = None) -> dict[str, Any]:
    required = [
        ("callId", draw(call_ids(pool))),
        ("name", draw(NAMES)),
        ("serverName", draw(st.sampled_from(["github", "fs", "deepwiki"]) | TEXT)),
    ]
    return draw(
        ms_objects(
            style, "mcpServerToolCall", required, [("arguments", JSON_OBJECTS), *_common(style)]
        )
    )


@st.composite
def mcp_results(draw: st.DrawFn, style: Style, pool: list[str] | None = None) -> dict[str, Any]:
    outputs = st.lists(text_contents(style), max_size=2)
    return draw(
        ms_objects(
            style,
            "mcpServerToolResult",
            [("callId", draw(call_ids(pool)))],
            [("outputs", outputs), *_common(style)],
        )
    )


@st.composite
def hosted_calls(draw: st.DrawFn, style: Style, pool: list[str] | None = None) -> dict[str, Any]:
    """A code-interpreter (or other hosted tool) call or result."""
    call_id = draw(call_ids(pool))
    kind = draw(
        st.sampled_from(
            [
                "codeInterpreterToolCall",
                "codeInterpreterToolResult",
                "webSearchToolCall",
                "imageGenerationToolResult",
            ]
        )
    )
    nested = st.lists(
        st.one_of(data_contents(style), hosted_contents(style), text_contents(style)), max_size=2
    )
    key = "inputs" if kind.endswith("Call") else "outputs"
    return draw(ms_objects(style, kind, [("callId", call_id)], [(key, nested), *_common(style)]))


REQUEST_IDS = st.sampled_from(
    ["ficc_call_1", "approval-request-id", "call_1", "49:Booker_ecf_UserInput:ficc_call_u"]
) | TEXT.filter(str.strip)


@st.composite
def approval_requests(
    draw: st.DrawFn, style: Style, generation: Generation, pool: list[str] | None = None
) -> dict[str, Any]:
    call = draw(function_calls(style, pool) | mcp_calls(style, pool))
    if generation == "old":
        return draw(
            ms_objects(
                style,
                "functionApprovalRequest",
                [("id", draw(REQUEST_IDS)), ("functionCall", call)],
                _common(style),
            )
        )
    required: list[tuple[str, Any]] = [("requestId", draw(REQUEST_IDS)), ("toolCall", call)]
    if draw(st.booleans()):  # current writers always write it; older ones never do
        required.append(("requiresConfirmation", draw(st.booleans())))
    return draw(ms_objects(style, "toolApprovalRequest", required, _common(style)))


@st.composite
def approval_responses(
    draw: st.DrawFn, style: Style, generation: Generation, pool: list[str] | None = None
) -> dict[str, Any]:
    call = draw(function_calls(style, pool) | mcp_calls(style, pool))
    old = generation == "old"
    required = [
        ("id" if old else "requestId", draw(REQUEST_IDS)),
        ("approved", draw(st.booleans())),
        ("functionCall" if old else "toolCall", call),
    ]
    return draw(
        ms_objects(
            style,
            "functionApprovalResponse" if old else "toolApprovalResponse",
            required,
            [("reason", TEXT), *_common(style)],
        )
    )


@st.composite
def unknown_contents(draw: st.DrawFn, style: Style) -> dict[str, Any]:
    """A content of a `$type` the codec does not know, with random extra keys."""
    kind = draw(
        st.sampled_from(["citation", "x_widget", "Text", "function_call", "annotation"])
        | SHORT_TEXT.filter(lambda t: t not in KNOWN_TYPES)
    )
    return draw(ms_objects(style, kind, [], _common(style), max_extra=3))


@st.composite
def contents(
    draw: st.DrawFn, style: Style, generation: Generation, pool: list[str] | None = None
) -> dict[str, Any]:
    """Any content item."""
    which = draw(
        st.sampled_from(
            [
                "text",
                "text",
                "reasoning",
                "data",
                "uri",
                "hosted",
                "error",
                "usage",
                "functionCall",
                "functionCall",
                "toolCall",
                "functionResult",
                "functionResult",
                "toolResult",
                "mcpCall",
                "mcpResult",
                "hostedTool",
                "request",
                "response",
                "unknown",
            ]
        )
    )
    if which == "text":
        return draw(text_contents(style))
    if which == "reasoning":
        return draw(reasoning_contents(style))
    if which == "data":
        return draw(data_contents(style))
    if which == "uri":
        return draw(uri_contents(style))
    if which == "hosted":
        return draw(hosted_contents(style))
    if which == "error":
        return draw(error_contents(style))
    if which == "usage":
        return draw(usage_contents(style))
    if which in ("functionCall", "toolCall"):
        return draw(function_calls(style, pool, which))
    if which in ("functionResult", "toolResult"):
        return draw(function_results(style, pool, which))
    if which == "mcpCall":
        return draw(mcp_calls(style, pool))
    if which == "mcpResult":
        return draw(mcp_results(style, pool))
    if which == "hostedTool":
        return draw(hosted_calls(style, pool))
    if which == "request":
        return draw(approval_requests(style, generation, pool))
    if which == "response":
        return draw(approval_responses(style, generation, pool))
    return draw(unknown_contents(style))


# --- messages and transcripts ----------------------------------------------------------

CREATED_AT = st.sampled_from(["2026-03-04T10:15:00+00:00", "2025-09-05T08:00:00.1234567Z"])


@st.composite
def messages(
    draw: st.DrawFn, style: Style, generation: Generation, pool: list[str] | None = None
) -> dict[str, Any]:
    """One `ChatMessage`."""
    items = draw(st.lists(contents(style, generation, pool), max_size=3))
    return draw(
        ms_objects(
            style,
            None,
            [("role", draw(ROLES)), ("contents", items)],
            [
                ("authorName", TEXT),
                ("messageId", st.sampled_from(["m1", "chatcmpl-9x", ""]) | TEXT),
                ("createdAt", CREATED_AT),
                ("additionalProperties", additional_properties()),
            ],
            max_extra=2,
        )
    )


@st.composite
def message_lists(
    draw: st.DrawFn,
    style: Style = "camel",
    generation: Generation = "current",
    min_size: int = 1,
    max_size: int = 5,
) -> list[dict[str, Any]]:
    """A message list whose results and approvals often reuse earlier call ids."""
    pool: list[str] = []
    return [
        draw(messages(style, generation, pool))
        for _ in range(draw(st.integers(min_size, max_size)))
    ]


@st.composite
def envelopes(draw: st.DrawFn, body: list[dict[str, Any]]) -> dict[str, Any]:
    """`{"messages": body}` with store keys around it (the envelope key is always lower case)."""
    items: list[tuple[str, Any]] = [("messages", body)]
    if draw(st.booleans()):
        items.append(("conversationId", draw(st.sampled_from(["conv_1", "thread-42"]))))
    if draw(st.booleans()):
        items.append(("storeState", draw(JSON_VALUES)))
    if draw(st.booleans()):
        items.append((draw(unknown_keys("camel")), draw(JSON_VALUES)))
    order = draw(st.permutations(range(len(items))))
    return dict(items[i] for i in order)


@st.composite
def transcripts(
    draw: st.DrawFn,
    style: Style | None = None,
    generation: Generation | None = None,
    min_messages: int = 1,
    max_messages: int = 5,
) -> Any:
    """A native MEAI document: a bare message list or a `{"messages": [...]}` envelope."""
    style = style or draw(st.sampled_from(["camel", "pascal"]))
    generation = generation or draw(st.sampled_from(["current", "old"]))
    body = draw(message_lists(style, generation, min_messages, max_messages))
    return body if draw(st.booleans()) else draw(envelopes(body))
