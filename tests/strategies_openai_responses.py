"""Hypothesis strategies for native OpenAI Responses input items (formats.md §2).

Every strategy draws plain JSON values in the shapes the `openai-responses` codec reads:
easy and full `message` items with every content part type (plus unknown ones and stray
non-objects), function, custom, computer, local shell, shell and apply-patch calls with
their outputs, reasoning with and without `encrypted_content`, MCP approvals, hosted
calls, `mcp_call`, `mcp_list_tools`, `item_reference`, compaction items and unknown item
types, with unknown keys at every level and call ids that repeat or are empty. Envelopes:
a bare list (always holding at least one typed item, so it is recognisable), a request
body with `input` and other keys, and a request body whose `input` is a string.
`tool_searches` draws client-run `tool_search_call` / `tool_search_output` items (used by
tests/test_dialects.py).

The values are JSON-safe: `orjson.loads(orjson.dumps(x))` gives back `x` exactly.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st
from strategies_json import JSON_VALUES, SCALARS, damaged

TEXT = st.text(st.characters(codec="utf-8"), max_size=12)
SHORT_TEXT = st.text(st.characters(codec="utf-8"), max_size=6)
NAMES = st.sampled_from(
    ["get_weather", "search", "lookup_order", "handoff_to_billing", "run_sql", "", "f"]
) | st.from_regex(r"[A-Za-z_][A-Za-z0-9_\-]{0,11}", fullmatch=True)

KNOWN_ITEM_TYPES = {
    "message",
    "reasoning",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "computer_call",
    "computer_call_output",
    "local_shell_call",
    "local_shell_call_output",
    "shell_call",
    "shell_call_output",
    "apply_patch_call",
    "apply_patch_call_output",
    "web_search_call",
    "file_search_call",
    "code_interpreter_call",
    "image_generation_call",
    "tool_search_call",
    "tool_search_output",
    "program",
    "program_output",
    "mcp_call",
    "mcp_list_tools",
    "mcp_approval_request",
    "mcp_approval_response",
    "item_reference",
    "compaction",
    "compaction_trigger",
    "additional_tools",
    "configuration_update",
}
KNOWN_PART_TYPES = {"input_text", "output_text", "input_image", "input_file", "refusal"}
# Keys and part types of other formats: the sniffer says "not mine" when it sees them.
SNIFF_POISON_KEYS = {"contents", "parts", "tool_calls", "tool_call_id", "function_call", "$type"}
SNIFF_POISON_TYPES = {"text", "image_url", "tool_use", "tool_result", "thinking", "image", "file"}
VENDOR_KEYS = ["x_vendor", "metadata", "x-trace-id", "provider_data", "", "a/b~c", "cache_control"]


def extra_keys(reserved: set[str]) -> st.SearchStrategy[str]:
    """Unknown keys a vendor or a framework may add, never one in `reserved`."""
    return (st.sampled_from(VENDOR_KEYS) | SHORT_TEXT.map(lambda s: "x_" + s)).filter(
        lambda key: key not in reserved and key not in SNIFF_POISON_KEYS
    )


@st.composite
def with_extras(
    draw: st.DrawFn, fields: dict[str, Any], reserved: set[str] | None = None, max_extra: int = 2
) -> dict[str, Any]:
    """`fields` plus up to `max_extra` unknown keys, in a drawn key order."""
    items = list(fields.items())
    taken = set(reserved or ()) | set(fields) | {"type", "role", "content", "id", "call_id"}
    for _ in range(draw(st.integers(0, max_extra))):
        key = draw(extra_keys(taken))
        taken.add(key)
        items.append((key, draw(JSON_VALUES)))
    order = draw(st.permutations(range(len(items))))
    return {items[i][0]: items[i][1] for i in order}


def maybe(draw: st.DrawFn, fields: dict[str, Any], key: str, value: st.SearchStrategy[Any]) -> None:
    """Set `fields[key]` to a drawn value half of the time."""
    if draw(st.booleans()):
        fields[key] = draw(value)


STATUS = st.sampled_from(["completed", "in_progress", "incomplete"])


def item_ids(prefix: str) -> st.SearchStrategy[str]:
    """An item id such as `fc_abc`, sometimes empty."""
    return st.just("") | st.from_regex(prefix + r"_[A-Za-z0-9]{1,10}", fullmatch=True)


@st.composite
def call_ids(draw: st.DrawFn, pool: list[str]) -> str:
    """A call id: often one already used in this document, sometimes empty."""
    if pool and draw(st.integers(0, 2)) == 0:
        return draw(st.sampled_from(pool))
    new = draw(
        st.sampled_from(["", "call_a1", "call_b2"])
        | st.from_regex(r"call_[A-Za-z0-9]{1,12}", fullmatch=True)
        | TEXT
    )
    pool.append(new)
    return new


@st.composite
def json_strings(draw: st.DrawFn) -> str:
    """A JSON-encoded object, sometimes a string that is not JSON."""
    if draw(st.integers(0, 3)) == 0:
        return draw(TEXT)
    obj = draw(st.dictionaries(SHORT_TEXT, JSON_VALUES, max_size=3))
    return json.dumps(obj, ensure_ascii=draw(st.booleans()))


# --- content parts ---------------------------------------------------------------------


@st.composite
def input_text(draw: st.DrawFn) -> dict[str, Any]:
    return draw(with_extras({"type": "input_text", "text": draw(TEXT)}, {"text"}, 1))


@st.composite
def output_text(draw: st.DrawFn) -> dict[str, Any]:
    annotation = {"type": "url_citation", "url": "https://example.com", "start_index": 0}
    fields = {"type": "output_text", "text": draw(TEXT)}
    fields["annotations"] = draw(st.lists(st.just(annotation), max_size=1))
    maybe(draw, fields, "logprobs", st.just([]))
    return draw(with_extras(fields, {"text", "annotations", "logprobs"}, 1))


@st.composite
def refusal_part(draw: st.DrawFn) -> dict[str, Any]:
    return draw(with_extras({"type": "refusal", "refusal": draw(TEXT)}, {"refusal"}, 1))


@st.composite
def input_image(draw: st.DrawFn) -> dict[str, Any]:
    fields: dict[str, Any] = {"type": "input_image"}
    if draw(st.booleans()):
        fields["image_url"] = draw(
            st.sampled_from(["https://example.com/cat.png", "data:image/png;base64,iVBORw0KGgo="])
        )
    else:
        fields["file_id"] = "file-" + draw(SHORT_TEXT)
    fields["detail"] = draw(st.sampled_from(["auto", "low", "high"]))
    return draw(with_extras(fields, {"image_url", "file_id", "detail"}, 1))


@st.composite
def input_file(draw: st.DrawFn) -> dict[str, Any]:
    choice = draw(st.sampled_from(["file_id", "file_url", "file_data"]))
    value = {
        "file_id": "file-abc",
        "file_url": "https://example.com/report.pdf",
        "file_data": "JVBERi0=",
    }[choice]
    fields: dict[str, Any] = {"type": "input_file", choice: value}
    maybe(draw, fields, "filename", st.just("report.pdf"))
    return draw(with_extras(fields, {"file_id", "file_url", "file_data", "filename"}, 1))


@st.composite
def unknown_part(draw: st.DrawFn) -> Any:
    """A part of a type the codec does not model, or a stray non-object."""
    if draw(st.integers(0, 4)) == 0:
        return draw(SCALARS)
    kind = draw(
        st.sampled_from(["input_audio", "input_video", "x_widget"])
        | SHORT_TEXT.filter(lambda t: t not in KNOWN_PART_TYPES | SNIFF_POISON_TYPES)
    )
    return draw(with_extras({"type": kind}, set(), 3))


def content_parts(*, assistant: bool) -> st.SearchStrategy[Any]:
    """A content part: output text and refusals for the assistant, input parts otherwise."""
    if assistant:
        return st.one_of(output_text(), output_text(), refusal_part(), unknown_part())
    return st.one_of(input_text(), input_text(), input_image(), input_file(), unknown_part())


# --- message items ---------------------------------------------------------------------


@st.composite
def easy_messages(draw: st.DrawFn) -> dict[str, Any]:
    """`{role, content}` with string or part content; `type` and `phase` are optional."""
    role = draw(st.sampled_from(["user", "assistant", "system", "developer"]))
    content = draw(TEXT | st.lists(content_parts(assistant=role == "assistant"), max_size=3))
    fields: dict[str, Any] = {"role": role, "content": content}
    maybe(draw, fields, "type", st.just("message"))
    if role == "assistant":
        maybe(draw, fields, "phase", st.sampled_from(["commentary", "final_answer"]))
    return draw(with_extras(fields, {"phase"}))


@st.composite
def input_messages(draw: st.DrawFn) -> dict[str, Any]:
    """The full input message: `type`, a user/system/developer role, parts, maybe status."""
    role = draw(st.sampled_from(["user", "system", "developer"]))
    fields: dict[str, Any] = {"type": "message", "role": role}
    fields["content"] = draw(st.lists(content_parts(assistant=False), max_size=3))
    maybe(draw, fields, "status", STATUS)
    return draw(with_extras(fields, {"status"}))


@st.composite
def output_messages(draw: st.DrawFn) -> dict[str, Any]:
    """An output message replayed as input: `id`, `status`, output text or refusal parts."""
    fields: dict[str, Any] = {"type": "message", "id": draw(item_ids("msg")), "role": "assistant"}
    fields["status"] = draw(STATUS)
    fields["content"] = draw(st.lists(content_parts(assistant=True), max_size=3))
    maybe(draw, fields, "phase", st.sampled_from(["commentary", "final_answer"]))
    return draw(with_extras(fields, {"status", "phase"}))


# --- call and output items -------------------------------------------------------------


@st.composite
def function_calls(draw: st.DrawFn, pool: list[str]) -> dict[str, Any]:
    fields: dict[str, Any] = {"type": "function_call", "call_id": draw(call_ids(pool))}
    fields |= {"name": draw(NAMES), "arguments": draw(json_strings())}
    maybe(draw, fields, "id", item_ids("fc"))
    maybe(draw, fields, "status", STATUS)
    maybe(draw, fields, "namespace", st.just("tools"))
    return draw(with_extras(fields, {"name", "arguments", "status", "namespace"}))


@st.composite
def function_call_outputs(draw: st.DrawFn, pool: list[str]) -> dict[str, Any]:
    fields: dict[str, Any] = {"type": "function_call_output", "call_id": draw(call_ids(pool))}
    fields["output"] = draw(TEXT | st.lists(st.one_of(input_text(), input_image()), max_size=2))
    maybe(draw, fields, "id", item_ids("fco"))
    maybe(draw, fields, "status", STATUS)
    maybe(draw, fields, "name", NAMES)
    return draw(with_extras(fields, {"output", "status", "name"}))


@st.composite
def custom_calls(draw: st.DrawFn, pool: list[str]) -> dict[str, Any]:
    fields: dict[str, Any] = {"type": "custom_tool_call", "call_id": draw(call_ids(pool))}
    fields |= {"name": draw(NAMES), "input": draw(TEXT)}
    maybe(draw, fields, "id", item_ids("ctc"))
    return draw(with_extras(fields, {"name", "input"}))


@st.composite
def custom_outputs(draw: st.DrawFn, pool: list[str]) -> dict[str, Any]:
    fields = {"type": "custom_tool_call_output", "call_id": draw(call_ids(pool))}
    fields["output"] = draw(TEXT | st.lists(input_text(), max_size=2))
    return draw(with_extras(fields, {"output"}))


@st.composite
def client_calls(draw: st.DrawFn, pool: list[str]) -> dict[str, Any]:
    """A computer, local shell, shell or apply-patch call."""
    kind = draw(
        st.sampled_from(["computer_call", "local_shell_call", "shell_call", "apply_patch_call"])
    )
    fields: dict[str, Any] = {"type": kind, "call_id": draw(call_ids(pool))}
    if kind == "computer_call":
        fields["id"] = draw(item_ids("cu"))
        click = {"type": "click", "button": "left", "x": draw(st.integers(0, 99)), "y": 5}
        if draw(st.booleans()):
            fields["action"] = click
        else:
            fields["actions"] = [click, {"type": "screenshot"}]
        fields |= {"pending_safety_checks": [], "status": draw(STATUS)}
    elif kind == "local_shell_call":
        fields["id"] = draw(item_ids("lsh"))
        fields["action"] = {"type": "exec", "command": ["ls", draw(SHORT_TEXT)], "env": {}}
        fields["status"] = draw(STATUS)
    elif kind == "shell_call":
        fields["action"] = {"commands": ["ls -la"], "timeout_ms": 1000}
        maybe(draw, fields, "id", item_ids("sh"))
    else:
        fields["operation"] = {"type": "update_file", "path": "a.py", "diff": draw(TEXT)}
        fields["status"] = "completed"
        maybe(draw, fields, "id", item_ids("apc"))
    return draw(with_extras(fields, {"action", "actions", "operation", "status"}))


@st.composite
def client_outputs(draw: st.DrawFn, pool: list[str]) -> dict[str, Any]:
    """The output of a computer, local shell, shell or apply-patch call."""
    kind = draw(
        st.sampled_from(
            [
                "computer_call_output",
                "local_shell_call_output",
                "shell_call_output",
                "apply_patch_call_output",
            ]
        )
    )
    key = "id" if kind == "local_shell_call_output" else "call_id"
    fields: dict[str, Any] = {"type": kind, key: draw(call_ids(pool))}
    if kind == "computer_call_output":
        fields["output"] = {"type": "computer_screenshot", "image_url": "data:image/png;base64,AA"}
        maybe(draw, fields, "acknowledged_safety_checks", st.just([]))
    elif kind == "local_shell_call_output":
        fields["output"] = draw(TEXT)
        maybe(draw, fields, "status", STATUS)
    elif kind == "shell_call_output":
        outcome = {"type": "exit", "exit_code": draw(st.integers(0, 2))}
        fields["output"] = [{"stdout": draw(TEXT), "stderr": "", "outcome": outcome}]
    else:
        fields["status"] = draw(st.sampled_from(["completed", "failed"]))
        maybe(draw, fields, "output", TEXT)
    return draw(with_extras(fields, {"output", "status", "acknowledged_safety_checks"}))


@st.composite
def tool_searches(draw: st.DrawFn, pool: list[str]) -> dict[str, Any]:
    """A client-run (`"execution": "client"`) `tool_search_call` or its output."""
    fields: dict[str, Any] = {"call_id": draw(call_ids(pool)), "execution": "client"}
    if draw(st.booleans()):
        fields = {"type": "tool_search_call", **fields}
        fields["arguments"] = draw(st.just({"queries": ["weather"]}) | JSON_VALUES)
        maybe(draw, fields, "id", item_ids("tsc"))
    else:
        fields = {"type": "tool_search_output", **fields}
        fields["tools"] = draw(st.just([{"type": "function", "name": "f"}]) | JSON_VALUES)
        maybe(draw, fields, "id", item_ids("tso"))
    maybe(draw, fields, "status", STATUS)
    return draw(with_extras(fields, {"arguments", "tools", "status", "execution"}))


# --- reasoning, approvals, hosted and other items --------------------------------------


@st.composite
def reasoning_items(draw: st.DrawFn) -> dict[str, Any]:
    """`reasoning` with a (possibly empty) summary and optional encrypted content."""
    summary = [{"type": "summary_text", "text": t} for t in draw(st.lists(TEXT, max_size=2))]
    fields: dict[str, Any] = {"type": "reasoning", "id": draw(item_ids("rs")), "summary": summary}
    maybe(draw, fields, "encrypted_content", st.just("gAAAAABoX1") | TEXT)
    maybe(draw, fields, "content", st.just([{"type": "reasoning_text", "text": "hmm"}]))
    maybe(draw, fields, "status", STATUS)
    return draw(with_extras(fields, {"summary", "encrypted_content", "status"}))


@st.composite
def approval_requests(draw: st.DrawFn, requests: list[str]) -> dict[str, Any]:
    request_id = draw(item_ids("mcpr"))
    requests.append(request_id)
    fields = {"type": "mcp_approval_request", "id": request_id, "server_label": "git"}
    fields |= {"name": draw(NAMES), "arguments": draw(json_strings())}
    return draw(with_extras(fields, {"server_label", "name", "arguments"}))


@st.composite
def approval_responses(draw: st.DrawFn, requests: list[str]) -> dict[str, Any]:
    request_id = draw(st.sampled_from(requests)) if requests else draw(item_ids("mcpr"))
    fields: dict[str, Any] = {"type": "mcp_approval_response", "approval_request_id": request_id}
    fields["approve"] = draw(st.booleans())
    maybe(draw, fields, "reason", TEXT | st.none())
    maybe(draw, fields, "id", item_ids("mcpa"))
    return draw(with_extras(fields, {"approval_request_id", "approve", "reason"}))


HOSTED_ITEMS: list[dict[str, Any]] = [
    {
        "type": "web_search_call",
        "id": "ws_1",
        "status": "completed",
        "action": {"type": "search", "query": "oslo weather"},
    },
    {"type": "file_search_call", "id": "fs_1", "queries": ["q"], "status": "completed"},
    {
        "type": "code_interpreter_call",
        "id": "ci_1",
        "code": "print(1)",
        "container_id": "cntr_1",
        "outputs": [{"type": "logs", "logs": "1"}],
        "status": "completed",
    },
    {
        "type": "image_generation_call",
        "id": "ig_1",
        "result": "iVBORw0KGgo=",
        "status": "completed",
    },
    {"type": "tool_search_call", "call_id": "ts_1", "arguments": {}, "execution": "server"},
    {"type": "tool_search_output", "call_id": "ts_1", "tools": []},
    {"type": "program", "id": "pg_1", "call_id": "p1", "code": "x()", "fingerprint": "fp"},
    {
        "type": "program_output",
        "id": "pgo_1",
        "call_id": "p1",
        "result": "ok",
        "status": "completed",
    },
    {
        "type": "mcp_call",
        "id": "mcp_1",
        "server_label": "git",
        "name": "push",
        "arguments": "{}",
        "output": "pushed",
        "status": "completed",
        "approval_request_id": "mcpr_1",
    },
    {"type": "mcp_list_tools", "id": "mcpl_1", "server_label": "git", "tools": []},
    {"type": "item_reference", "id": "msg_1"},
    {"id": "fc_9"},
    {"type": "compaction", "id": "cmp_1", "encrypted_content": "gAAAA"},
    {"type": "compaction_trigger"},
    {"type": "additional_tools", "role": "developer", "tools": []},
    {"type": "configuration_update", "reasoning": {"effort": "low"}},
]


@st.composite
def other_items(draw: st.DrawFn) -> dict[str, Any]:
    """A hosted, MCP, reference or compaction item, or an item of an unknown type."""
    if draw(st.integers(0, 3)) == 0:
        kind = draw(
            st.sampled_from(["x_vendor_item", "future_call", "message_delta"])
            | SHORT_TEXT.filter(lambda t: t not in KNOWN_ITEM_TYPES)
        )
        return draw(with_extras({"type": kind}, set(), 3))
    base = draw(st.sampled_from(HOSTED_ITEMS))
    return draw(with_extras(dict(base), set(base), 1))


@st.composite
def items(draw: st.DrawFn, min_size: int = 1, max_size: int = 7) -> list[Any]:
    """An item list in which outputs reuse the call ids of earlier calls."""
    pool: list[str] = []
    requests: list[str] = []
    builders = {
        "easy": lambda: easy_messages(),
        "input": lambda: input_messages(),
        "output": lambda: output_messages(),
        "function_call": lambda: function_calls(pool),
        "function_call_output": lambda: function_call_outputs(pool),
        "custom": lambda: custom_calls(pool),
        "custom_output": lambda: custom_outputs(pool),
        "client": lambda: client_calls(pool),
        "client_output": lambda: client_outputs(pool),
        "reasoning": lambda: reasoning_items(),
        "request": lambda: approval_requests(requests),
        "response": lambda: approval_responses(requests),
        "other": lambda: other_items(),
    }
    out = [
        draw(builders[draw(st.sampled_from(sorted(builders)))]())
        for _ in range(draw(st.integers(min_size, max_size)))
    ]
    return out


# --- envelopes -------------------------------------------------------------------------

TOOLS = [
    {
        "type": "function",
        "name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
    {"type": "web_search"},
]


@st.composite
def request_bodies(draw: st.DrawFn, body: Any) -> dict[str, Any]:
    """A Responses request body with `model`, `input` and some other options."""
    fields: dict[str, Any] = {"model": draw(st.sampled_from(["gpt-5", "o4-mini", "local"]))}
    fields["input"] = body
    maybe(draw, fields, "instructions", TEXT)
    maybe(draw, fields, "previous_response_id", st.just("resp_123"))
    maybe(draw, fields, "store", st.booleans())
    maybe(draw, fields, "tools", st.just(TOOLS))
    maybe(draw, fields, "reasoning", st.just({"effort": "low", "summary": "auto"}))
    maybe(draw, fields, "include", st.just(["reasoning.encrypted_content"]))
    return draw(with_extras(fields, set(fields) | {"messages"}, 1))


@st.composite
def documents(draw: st.DrawFn, max_items: int = 7) -> Any:
    """A native Responses document in one of the three envelopes."""
    envelope = draw(st.sampled_from(["list", "list", "request", "string"]))
    if envelope == "string":
        return draw(request_bodies(draw(TEXT)))
    body = draw(items(1, max_items))
    if envelope == "request":
        return draw(request_bodies(body))
    if not any(isinstance(i, dict) and i.get("type") in KNOWN_ITEM_TYPES for i in body):
        body.insert(draw(st.integers(0, len(body))), draw(function_calls([])))
    return body


# --- damaged documents -----------------------------------------------------------------


def damaged_documents() -> st.SearchStrategy[Any]:
    """A valid document with one value (anywhere) replaced by an arbitrary JSON value."""
    return damaged(documents(max_items=4))
