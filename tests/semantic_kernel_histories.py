"""Semantic Kernel chat histories, written as `ChatHistory.serialize()` writes them: the
`semantic-kernel` fixtures under fixtures/formats/semantic-kernel/.

semantic-kernel cannot be installed beside the test dependencies (1.45 pins pydantic
below the installed 2.14 and mcp below 2), so this script builds each `ChatMessageContent`
and item dump the way pydantic dumps the models of semantic-kernel 1.44/1.45
(python/semantic_kernel/contents/*.py): `model_dump_json(exclude_none=True, indent=2)`,
fields in declaration order, base-class fields (`ai_model_id`, `metadata`) first, `None`
left out, computed fields (`data_uri`) last. The helpers follow what SK's own code builds:
`ChatHistory.add_user_message(...)`, the OpenAI connector's `_create_chat_message_content`
(calls with `id`, `index`, `name` split into `function_name` / `plugin_name`), and
`FunctionResultContent.from_function_call_content_and_result(...).to_chat_message_content()`
(`result` serialized with `str`). `python tests/semantic_kernel_histories.py` writes the
files; `tests/test_semantic_kernel.py` checks that they are what it writes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "formats" / "semantic-kernel"
MODEL = "gpt-4o-2024-11-20"


def _dump(*fields: tuple[str, Any]) -> dict[str, Any]:
    """An object of `fields` in their order, `None` left out (`exclude_none=True`)."""
    return {key: value for key, value in fields if value is not None}


def message(
    role: str,
    items: list[dict[str, Any]],
    *,
    name: str | None = None,
    ai_model_id: str | None = None,
    metadata: dict[str, Any] | None = None,
    encoding: str | None = None,
    finish_reason: str | None = None,
    status: str | None = None,
) -> dict[str, Any]:
    """A `ChatMessageContent` dump."""
    return _dump(
        ("ai_model_id", ai_model_id),
        ("metadata", metadata or {}),
        ("content_type", "message"),
        ("role", role),
        ("name", name),
        ("items", items),
        ("encoding", encoding),
        ("finish_reason", finish_reason),
        ("status", status),
    )


def said(role: str, content: str, **fields: Any) -> dict[str, Any]:
    """`ChatMessageContent(role=..., content=...)`: its text item copies the message's
    `ai_model_id`, `metadata` and `encoding`."""
    item = text(content, ai_model_id=fields.get("ai_model_id"), encoding=fields.get("encoding"))
    item["metadata"] = fields.get("metadata") or {}
    return message(role, [item], **fields)


def text(value: str, *, ai_model_id: str | None = None, encoding: str | None = None) -> Any:
    """A `TextContent` dump."""
    fields = (("ai_model_id", ai_model_id), ("metadata", {}), ("content_type", "text"))
    return _dump(*fields, ("text", value), ("encoding", encoding))


def reasoning(value: str, metadata: dict[str, Any] | None = None) -> dict[str, Any]:
    """A `ReasoningContent` dump (provider fields go in `metadata`)."""
    return _dump(("metadata", metadata or {}), ("content_type", "reasoning"), ("text", value))


def _split(name: str) -> tuple[str | None, str]:
    """`(plugin_name, function_name)`, as `FunctionCallContent.__init__` splits `name`."""
    if "-" in name:
        plugin, function = name.split("-", 1)
        return plugin, function
    return None, name


def call(
    call_id: str | None,
    name: str,
    arguments: Any,
    *,
    index: int | None = None,
    responses_call_id: str | None = None,
) -> dict[str, Any]:
    """A `FunctionCallContent` dump, as the OpenAI connector builds one."""
    plugin, function = _split(name)
    return _dump(
        ("metadata", {}),
        ("content_type", "function_call"),
        ("id", call_id),
        ("call_id", responses_call_id),
        ("index", index),
        ("name", name),
        ("function_name", function),
        ("plugin_name", plugin),
        ("arguments", arguments),
    )


def result(of: dict[str, Any], value: Any, metadata: dict[str, Any] | None = None) -> Any:
    """`FunctionResultContent.from_function_call_content_and_result(of, value)` in its own
    tool message (`to_chat_message_content`); `result` is serialized with `str`."""
    item = _dump(
        ("metadata", metadata or {}),
        ("content_type", "function_result"),
        ("id", of.get("id") or "unknown"),
        ("call_id", of.get("call_id")),
        ("result", str(value)),
        ("name", of["name"]),
        ("function_name", of["function_name"]),
        ("plugin_name", of.get("plugin_name")),
    )
    return message("tool", [item])


def _usage(prompt: int, completion: int) -> dict[str, Any]:
    return {"prompt_tokens": prompt, "completion_tokens": completion}


def _response(n: int, prompt: int, completion: int) -> dict[str, Any]:
    """The metadata the OpenAI connector gives an assistant message."""
    return {
        "id": f"chatcmpl-AbCdEf{n}",
        "created": 1764667200 + n,
        "system_fingerprint": "fp_f9f4fb6dbf",
        "usage": _usage(prompt, completion),
    }


def weather_tool() -> dict[str, Any]:
    forecast = call("call_Vx1", "weather-get_forecast", '{"city": "Paris"}', index=0)
    return {
        "messages": [
            said("system", "You are a weather assistant. Answer in one sentence."),
            said("user", "What is the weather in Paris today?"),
            message(
                "assistant",
                [forecast],
                ai_model_id=MODEL,
                metadata=_response(1, 82, 17),
                finish_reason="tool_calls",
            ),
            result(forecast, {"temperature_c": 18, "sky": "sunny"}),
            message(
                "assistant",
                [text("It is 18 °C and sunny in Paris today.")],
                ai_model_id=MODEL,
                metadata=_response(2, 121, 14),
                finish_reason="stop",
            ),
        ]
    }


def parallel_calls() -> dict[str, Any]:
    paris = call("call_P1", "weather-get_forecast", '{"city": "Paris"}', index=0)
    lyon = call("call_L2", "weather-get_forecast", '{"city": "Lyon"}', index=1)
    clock = call("call_T3", "time-now", "{}", index=2)
    return {
        "messages": [
            said("user", "Compare Paris and Lyon, and tell me the time."),
            message(
                "assistant",
                [paris, lyon, clock],
                ai_model_id=MODEL,
                metadata=_response(3, 95, 61),
                finish_reason="tool_calls",
            ),
            result(paris, "18 C, sunny"),
            result(lyon, "21 C, cloudy"),
            result(clock, "2026-12-02T12:00:00+01:00"),
            message(
                "assistant",
                [text("Lyon is warmer (21 °C, cloudy) than Paris (18 °C, sunny); it is noon.")],
                ai_model_id=MODEL,
                metadata=_response(4, 190, 24),
                finish_reason="stop",
            ),
            said("user", "Thanks!"),
        ]
    }


def agent_group_chat() -> dict[str, Any]:
    """Agents' messages carry their `name`; a developer instruction, an encoding."""
    return {
        "messages": [
            said("developer", "Writer drafts, Reviewer approves or asks for changes."),
            said("user", "A slogan for a bakery, please.", encoding="utf-8"),
            said("assistant", "Fresh from our oven to your table.", name="Writer"),
            said("assistant", "Shorter, and mention bread.", name="Reviewer"),
            said("assistant", "Bread, warm and honest.", name="Writer"),
            said("assistant", "Approved.", name="Reviewer", metadata={"approved": True}),
        ]
    }


def responses_reasoning() -> dict[str, Any]:
    """The Responses connector: reasoning items, `status`, calls with an `fc_` id and a
    `call_id`, which results copy."""
    lookup = call("fc_68a1", "orders-lookup", '{"order": "A-1009"}', responses_call_id="call_9Zq")
    return {
        "messages": [
            said("user", "Where is my order A-1009?"),
            message(
                "assistant",
                [
                    reasoning("The user wants an order status; look it up.", {"id": "rs_68a0"}),
                    lookup,
                ],
                ai_model_id="o4-mini",
                metadata={"id": "resp_68a", "created_at": 1764667300.0},
                status="completed",
            ),
            result(lookup, "shipped on 2026-11-30, arriving 2026-12-03"),
            message(
                "assistant",
                [text("It shipped on 30 November and arrives on 3 December.")],
                ai_model_id="o4-mini",
                metadata={"id": "resp_68b", "created_at": 1764667305.0},
                status="completed",
            ),
        ]
    }


def media() -> dict[str, Any]:
    """Images, audio, a file reference and an annotation: content histnorm keeps as it is."""
    image = {"metadata": {}, "content_type": "image", "uri": "https://example.com/chart.png"}
    image["data_uri"] = ""
    inline = {
        "metadata": {},
        "content_type": "image",
        "data_uri": "data:image/png;base64,iVBORw0KGgo=",
    }
    audio = {"metadata": {}, "content_type": "audio", "data_uri": "data:audio/wav;base64,UklGRg=="}
    cite = {"metadata": {}, "content_type": "annotation", "file_id": "file-7", "quote": "Q3"}
    cite |= {"start_index": 0, "end_index": 12}
    ref = {"metadata": {}, "content_type": "file_reference", "file_id": "file-7", "tools": []}
    return {
        "messages": [
            message("user", [text("What does this chart show?"), image, inline]),
            message("assistant", [text("Sales grew in Q3, as the report says."), cite]),
            message("user", [text("Read this back to me."), audio]),
            message("assistant", [ref, text("Here is the report file.")]),
        ]
    }


def object_arguments() -> dict[str, Any]:
    """Arguments as an object (a `FunctionCallContent` built by hand), a legacy function
    call, and a call answered by a plain-string tool message (`add_tool_message`)."""
    search = call("call_S1", "search-web", {"query": "histnorm", "top": 3})
    legacy = call("legacy_function_call", "math-add", '{"a": 1, "b": 2}')
    return {
        "messages": [
            said("user", "Search for histnorm, then add 1 and 2."),
            message("assistant", [search], finish_reason="tool_calls"),
            result(search, ["histnorm.dev", "github.com/histnorm", "pypi.org/project/histnorm"]),
            message("assistant", [legacy], finish_reason="function_call"),
            message(
                "tool",
                [
                    _dump(
                        ("metadata", {}),
                        ("content_type", "function_result"),
                        ("id", "legacy_function_call"),
                        ("call_id", "legacy_function_call"),
                        ("result", "3"),
                        ("name", "unknown"),
                        ("function_name", "unknown"),
                    )
                ],
            ),
            said("assistant", "Found 3 pages; 1 + 2 = 3."),
        ]
    }


def compact_with_nulls() -> dict[str, Any]:
    """`history.model_dump_json()` without `exclude_none`, as a database column keeps it."""
    nulls = {"ai_model_id": None}
    greet = {**nulls, "metadata": {}, "content_type": "text", "text": "Hi!", "encoding": None}
    hello = {**nulls, "metadata": {}, "content_type": "message", "role": "user", "name": None}
    hello |= {"items": [greet], "encoding": None, "finish_reason": None, "status": None}
    answer = {**greet, "text": "Hello! How can I help?"}
    reply = {**hello, "ai_model_id": MODEL, "role": "assistant", "items": [answer]}
    reply["finish_reason"] = "stop"
    return {"messages": [hello, reply], "system_message": None}


HISTORIES = {
    "weather-tool.json": (weather_tool, True),
    "parallel-calls.json": (parallel_calls, True),
    "agent-group-chat.json": (agent_group_chat, True),
    "responses-reasoning.json": (responses_reasoning, True),
    "media.json": (media, True),
    "object-arguments.json": (object_arguments, True),
    "compact-with-nulls.json": (compact_with_nulls, False),
}
"""Each fixture file, the history it holds, and whether it is indented (`serialize()`)
or compact (`model_dump_json()`)."""


def render(name: str) -> bytes:
    """The bytes of fixture `name`, as semantic-kernel writes them (no final newline:
    `store_chat_history_to_file` writes `serialize()` as it is)."""
    build, indented = HISTORIES[name]
    if indented:
        return json.dumps(build(), indent=2, ensure_ascii=False).encode()
    return json.dumps(build(), separators=(",", ":"), ensure_ascii=False).encode()


def main() -> None:
    """Write every fixture file."""
    FIXTURES.mkdir(parents=True, exist_ok=True)
    for name in HISTORIES:
        (FIXTURES / name).write_bytes(render(name))


if __name__ == "__main__":
    main()
