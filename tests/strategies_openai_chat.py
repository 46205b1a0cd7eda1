"""Hypothesis strategies for native OpenAI Chat Completions transcripts (formats.md §1, §7b).

Every strategy draws plain JSON values (dicts, lists, strings, 64-bit ints, finite floats,
booleans and null) in the shapes the `openai-chat` codec reads: the six roles with their
spelling variants, string / array / null content, every content part type plus unknown
ones, `tool_calls` (function and custom), `refusal`, the legacy `function_call` and
`function` messages, unknown vendor keys at every level, and the three envelopes (a bare
list, `{"messages": [...]}` with fine-tuning keys, and a request body with `model`).

The values are JSON-safe: `orjson.loads(orjson.dumps(x))` gives back `x` exactly.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st
from strategies_json import JSON_VALUES, damaged

TEXT = st.text(st.characters(codec="utf-8"), max_size=12)
SHORT_TEXT = st.text(st.characters(codec="utf-8"), max_size=6)
NAMES = st.sampled_from(
    ["get_weather", "search", "lookup_order", "handoff_to_billing", "run_sql", "", "f"]
) | st.from_regex(r"[A-Za-z_][A-Za-z0-9_\-]{0,11}", fullmatch=True)

VENDOR_KEYS = [
    "x_vendor",
    "reasoning_content",
    "reasoning",
    "weight",
    "audio",
    "annotations",
    "metadata",
    "cache_control",
    "x-trace-id",
    "",
    "a/b~c",
]

# Keys the codec reads on a message, plus keys that make the sniffer reject a message list
# (they belong to other formats: MEAI `contents`, Gemini `parts`, Responses items `type`).
MESSAGE_KEYS = {"role", "content", "name", "refusal", "tool_calls", "function_call", "tool_call_id"}
SNIFF_POISON_KEYS = {"type", "contents", "parts"}
# Part types of other formats that make the sniffer say "not mine".
SNIFF_POISON_TYPES = {
    "tool_use",
    "tool_result",
    "thinking",
    "redacted_thinking",
    "image",
    "document",
    "search_result",
    "server_tool_use",
    "mcp_tool_use",
    "mcp_tool_result",
    "container_upload",
    "input_text",
    "output_text",
    "input_image",
    "input_file",
}
KNOWN_PART_TYPES = {"text", "image_url", "input_audio", "file", "refusal"}

ROLE_SPELLINGS = {
    "system": ["system", "System", "SYSTEM"],
    "developer": ["developer", "Developer"],
    "user": ["user", "User", "USER"],
    "assistant": ["assistant", "Assistant", "ASSISTANT"],
    "tool": ["tool", "Tool"],
    "function": ["function", "Function"],
}


def role_spelling(role: str) -> st.SearchStrategy[str]:
    """`role`, mostly in lower case, sometimes in another spelling."""
    variants = ROLE_SPELLINGS[role]
    return st.sampled_from([role] * 4 + variants[1:])


def extra_keys(reserved: set[str]) -> st.SearchStrategy[str]:
    """Unknown keys a vendor or a fine-tuning file may add, never one in `reserved`."""
    return (st.sampled_from(VENDOR_KEYS) | SHORT_TEXT.map(lambda s: "x_" + s)).filter(
        lambda key: key not in reserved
    )


def vendor_value(key: str) -> st.SearchStrategy[Any]:
    """A plausible value for a vendor key (falls back to any JSON value)."""
    if key == "weight":
        return st.sampled_from([0, 1])
    if key in ("reasoning_content", "reasoning"):
        return TEXT | st.none()
    return JSON_VALUES


@st.composite
def with_extras(
    draw: st.DrawFn, fields: dict[str, Any], reserved: set[str], max_extra: int = 2
) -> dict[str, Any]:
    """`fields` plus up to `max_extra` unknown keys, in a drawn key order."""
    items = list(fields.items())
    taken = set(reserved) | set(fields)
    for _ in range(draw(st.integers(0, max_extra))):
        key = draw(extra_keys(taken))
        taken.add(key)
        items.append((key, draw(vendor_value(key))))
    order = draw(st.permutations(range(len(items))))
    return {items[i][0]: items[i][1] for i in order}


# --- content parts ---------------------------------------------------------------------


@st.composite
def text_parts(draw: st.DrawFn) -> dict[str, Any]:
    return draw(with_extras({"type": "text", "text": draw(TEXT)}, {"type", "text"}, 1))


@st.composite
def refusal_parts(draw: st.DrawFn) -> dict[str, Any]:
    return draw(with_extras({"type": "refusal", "refusal": draw(TEXT)}, {"type", "refusal"}, 1))


@st.composite
def image_url_parts(draw: st.DrawFn) -> dict[str, Any]:
    url = draw(
        st.sampled_from(["https://example.com/cat.png", "data:image/png;base64,iVBORw0KGgo="])
        | TEXT.map(lambda s: "https://example.com/" + s)
    )
    body: dict[str, Any] = {"url": url}
    if draw(st.booleans()):
        body["detail"] = draw(st.sampled_from(["auto", "low", "high"]))
    return draw(with_extras({"type": "image_url", "image_url": body}, {"type", "image_url"}, 1))


@st.composite
def input_audio_parts(draw: st.DrawFn) -> dict[str, Any]:
    body = {
        "data": draw(st.sampled_from(["UklGRg==", "SUQzBA==", ""])),
        "format": draw(st.sampled_from(["wav", "mp3"])),
    }
    return draw(
        with_extras({"type": "input_audio", "input_audio": body}, {"type", "input_audio"}, 1)
    )


@st.composite
def file_parts(draw: st.DrawFn) -> dict[str, Any]:
    if draw(st.booleans()):
        body: dict[str, Any] = {"file_id": "file-" + draw(SHORT_TEXT)}
    else:
        body = {"file_data": "data:application/pdf;base64,JVBERi0=", "filename": draw(TEXT)}
    return draw(with_extras({"type": "file", "file": body}, {"type", "file"}, 1))


@st.composite
def unknown_parts(draw: st.DrawFn) -> dict[str, Any]:
    """A part of a type the codec does not model, with random keys."""
    kind = draw(
        st.sampled_from(["input_video", "audio_url", "x_widget", "annotation"])
        | SHORT_TEXT.filter(lambda t: t not in KNOWN_PART_TYPES | SNIFF_POISON_TYPES)
    )
    return draw(with_extras({"type": kind}, {"type"}, 3))


def content_parts(*, user: bool) -> st.SearchStrategy[dict[str, Any]]:
    """A part of array content: any type for user messages, text and refusal otherwise."""
    if user:
        return st.one_of(
            text_parts(),
            image_url_parts(),
            input_audio_parts(),
            file_parts(),
            refusal_parts(),
            unknown_parts(),
        )
    return st.one_of(text_parts(), text_parts(), refusal_parts(), unknown_parts())


def contents(*, user: bool = False, allow_null: bool = True) -> st.SearchStrategy[Any]:
    """A `content` value: a string, an array of parts or (when allowed) null."""
    options = [TEXT, st.lists(content_parts(user=user), max_size=3)]
    if allow_null:
        options.append(st.none())
    return st.one_of(options)


# --- tool calls ------------------------------------------------------------------------


@st.composite
def call_ids(draw: st.DrawFn, pool: list[str]) -> str:
    """A tool call id: often one already used in this transcript, sometimes empty."""
    if pool and draw(st.integers(0, 4)) == 0:
        return draw(st.sampled_from(pool))
    new = draw(
        st.sampled_from(["", "call_a1", "call_b2"])
        | st.from_regex(r"call_[A-Za-z0-9]{1,12}", fullmatch=True)
        | TEXT
    )
    pool.append(new)
    return new


@st.composite
def arguments(draw: st.DrawFn) -> str:
    """A function call's `arguments`: usually a JSON-encoded object, sometimes not JSON."""
    if draw(st.integers(0, 3)) == 0:
        return draw(TEXT)
    obj = draw(st.dictionaries(SHORT_TEXT, JSON_VALUES, max_size=3))
    return json.dumps(obj, ensure_ascii=draw(st.booleans()))


@st.composite
def tool_calls(draw: st.DrawFn, pool: list[str]) -> dict[str, Any]:
    """One `tool_calls` entry: a function call or a custom tool call."""
    call_id = draw(call_ids(pool))
    if draw(st.integers(0, 3)) == 0:
        body = draw(with_extras({"name": draw(NAMES), "input": draw(TEXT)}, {"name", "input"}, 1))
        fields = {"id": call_id, "type": "custom", "custom": body}
        reserved = {"id", "type", "custom", "function"}
    else:
        body = draw(
            with_extras(
                {"name": draw(NAMES), "arguments": draw(arguments())}, {"name", "arguments"}, 1
            )
        )
        fields = {"id": call_id, "type": "function", "function": body}
        reserved = {"id", "type", "function", "custom"}
    return draw(with_extras(fields, reserved, 2))


@st.composite
def function_calls(draw: st.DrawFn) -> dict[str, Any]:
    """A legacy `function_call` object."""
    return draw(
        with_extras({"name": draw(NAMES), "arguments": draw(arguments())}, {"name", "arguments"}, 1)
    )


# --- messages --------------------------------------------------------------------------


_CONTENT = ("content", "tool_calls", "function_call", "refusal", "audio")


def _message(draw: st.DrawFn, fields: dict[str, Any]) -> dict[str, Any]:
    if draw(st.integers(0, 3)) == 0:
        fields["name"] = draw(NAMES | st.none())
    return without_hidden_content(draw(with_extras(fields, MESSAGE_KEYS | SNIFF_POISON_KEYS, 2)))


def without_hidden_content(message: dict[str, Any]) -> dict[str, Any]:
    """`message` as drawn, but for a message without content (nothing under `_CONTENT`):
    without the arrays and objects its unknown keys hold, which would be content the
    reader cannot see (HN013, `histnorm.content_keys`), another format's message."""
    if any(message.get(key) not in (None, "", [], {}) for key in _CONTENT):
        return message
    return {
        k: v
        for k, v in message.items()
        if k in MESSAGE_KEYS or not isinstance(v, list | dict) or not v
    }


@st.composite
def system_messages(draw: st.DrawFn) -> dict[str, Any]:
    """A system or developer message."""
    role = draw(role_spelling(draw(st.sampled_from(["system", "developer"]))))
    content = draw(TEXT | st.lists(text_parts(), min_size=1, max_size=2))
    return _message(draw, {"role": role, "content": content})


@st.composite
def user_messages(draw: st.DrawFn) -> dict[str, Any]:
    """A user message; content may be any part type (or null)."""
    role = draw(role_spelling("user"))
    return _message(draw, {"role": role, "content": draw(contents(user=True))})


@st.composite
def assistant_messages(draw: st.DrawFn, pool: list[str] | None = None) -> dict[str, Any]:
    """An assistant message: text, refusal, tool calls and/or a legacy function call."""
    pool = [] if pool is None else pool
    fields: dict[str, Any] = {"role": draw(role_spelling("assistant"))}
    shape = draw(st.sampled_from(["text", "tool_calls", "function_call", "refusal", "mixed"]))
    if shape != "tool_calls" or draw(st.booleans()):
        fields["content"] = draw(contents())
    if shape in ("refusal", "mixed") or draw(st.integers(0, 5)) == 0:
        fields["refusal"] = draw(TEXT | st.none())
    if shape in ("tool_calls", "mixed"):
        fields["tool_calls"] = draw(st.lists(tool_calls(pool), min_size=1, max_size=3))
    if shape == "function_call":
        fields["function_call"] = draw(function_calls())
    if draw(st.integers(0, 4)) == 0:
        # The shape of openai-python's `ChatCompletionMessage.model_dump()`: unset fields as null.
        for key in ("refusal", "tool_calls", "function_call", "audio"):
            fields.setdefault(key, None)
        fields.setdefault("annotations", [])
    return _message(draw, fields)


@st.composite
def tool_messages(draw: st.DrawFn, pool: list[str] | None = None) -> dict[str, Any]:
    """A `tool` message answering an earlier (or unknown) call id."""
    pool = [] if pool is None else pool
    call_id = draw(st.sampled_from(pool)) if pool and draw(st.booleans()) else draw(call_ids(pool))
    fields: dict[str, Any] = {
        "role": draw(role_spelling("tool")),
        "tool_call_id": call_id,
        "content": draw(TEXT | st.lists(text_parts(), min_size=1, max_size=2)),
    }
    return _message(draw, fields)


@st.composite
def function_messages(draw: st.DrawFn) -> dict[str, Any]:
    """A legacy `function` message: a name and content, no id."""
    fields = {
        "role": draw(role_spelling("function")),
        "name": draw(NAMES),
        "content": draw(TEXT | st.none()),
    }
    return without_hidden_content(draw(with_extras(fields, MESSAGE_KEYS | SNIFF_POISON_KEYS, 2)))


@st.composite
def messages(draw: st.DrawFn, min_size: int = 1, max_size: int = 6) -> list[dict[str, Any]]:
    """A message list in which tool messages reuse the ids of earlier calls."""
    pool: list[str] = []
    out: list[dict[str, Any]] = []
    for _ in range(draw(st.integers(min_size, max_size))):
        kind = draw(
            st.sampled_from(
                ["system", "user", "user", "assistant", "assistant", "tool", "function"]
            )
        )
        if kind == "system":
            out.append(draw(system_messages()))
        elif kind == "user":
            out.append(draw(user_messages()))
        elif kind == "assistant":
            out.append(draw(assistant_messages(pool)))
        elif kind == "tool":
            out.append(draw(tool_messages(pool)))
        else:
            out.append(draw(function_messages()))
    return out


# --- envelopes -------------------------------------------------------------------------

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Current weather for a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    },
    {"type": "custom", "custom": {"name": "run_sql", "description": "Run a SQL query."}},
]


@st.composite
def envelopes(draw: st.DrawFn, body: list[dict[str, Any]]) -> dict[str, Any]:
    """`{"messages": body}` with fine-tuning keys such as `tools` and `parallel_tool_calls`."""
    fields: dict[str, Any] = {"messages": body}
    if draw(st.booleans()):
        fields["tools"] = TOOLS[: draw(st.integers(1, 2))]
    if draw(st.booleans()):
        fields["parallel_tool_calls"] = draw(st.booleans())
    return draw(with_extras(fields, {"messages"}, 1))


@st.composite
def request_bodies(draw: st.DrawFn, body: list[dict[str, Any]]) -> dict[str, Any]:
    """A Chat Completions request body with `model` and sampling options."""
    fields: dict[str, Any] = {
        "model": draw(st.sampled_from(["gpt-4o", "gpt-4.1-mini", "o3", "local-model"])),
        "messages": body,
    }
    if draw(st.booleans()):
        fields["temperature"] = draw(st.floats(0, 2, allow_nan=False))
    if draw(st.booleans()):
        fields["tools"] = TOOLS[:1]
        fields["tool_choice"] = draw(st.sampled_from(["auto", "none", "required"]))
    if draw(st.booleans()):
        fields["stream"] = draw(st.booleans())
    if draw(st.booleans()):
        fields["max_tokens"] = draw(st.integers(1, 2**31 - 1))
    return draw(with_extras(fields, {"messages"}, 1))


@st.composite
def transcripts(draw: st.DrawFn, min_messages: int = 1, max_messages: int = 6) -> Any:
    """A native OpenAI Chat document in one of the three envelopes."""
    body = draw(messages(min_messages, max_messages))
    envelope = draw(st.sampled_from(["list", "messages", "request"]))
    if envelope == "list":
        return body
    if envelope == "messages":
        return draw(envelopes(body))
    return draw(request_bodies(body))


# --- damaged documents -----------------------------------------------------------------


def damaged_transcripts() -> st.SearchStrategy[Any]:
    """A valid transcript with one value (anywhere) replaced by an arbitrary JSON value."""
    return damaged(transcripts(max_messages=4))
