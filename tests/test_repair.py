"""histnorm.repair: one call, the repaired value back in the type and format it came in."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from histnorm_cli.files import STDIN
from histnorm_cli.job import Job
from histnorm_cli.per_file import run_file
from hypothesis import HealthCheck, given, settings
from pydantic import BaseModel
from strategies import documents, fix_settings

import histnorm
from histnorm import Repair, Settings

ROOT = Path(__file__).resolve().parent.parent
ORPHAN_BODY_MESSAGES = [
    {"role": "user", "content": "Book a table"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "book", "arguments": "{}"}}
        ],
    },
    {"role": "user", "content": "Never mind"},
]
FIXTURES = sorted(
    p
    for p in (ROOT / "fixtures").rglob("*")
    if p.suffix in (".json", ".jsonl") and not p.name.endswith(".settings.json")
)
PROPERTY = settings(
    max_examples=100,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _options(path: Path) -> dict[str, Any]:
    extra = path.with_name(path.name.removesuffix(".json") + ".settings.json")
    return json.loads(extra.read_text()) if extra.exists() else {}


def _id(path: Path) -> str:
    return str(path.relative_to(ROOT / "fixtures"))


def _call(i: int) -> dict[str, Any]:
    function = {"name": "get_weather", "arguments": '{"city":"Oslo"}'}
    return {"id": f"call_{i}", "type": "function", "function": function}


def chat(calls: int = 2, *, answered: bool = True) -> list[dict[str, Any]]:
    """An OpenAI Chat history; with `answered=False` its first call has no result."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": "Be brief."}]
    for i in range(calls):
        messages.append({"role": "user", "content": f"Weather {i}?"})
        messages.append({"role": "assistant", "content": None, "tool_calls": [_call(i)]})
        if answered or i:
            messages.append({"role": "tool", "tool_call_id": f"call_{i}", "content": "4 C"})
        messages.append({"role": "assistant", "content": "4 C."})
    return messages


# --- every fixture ------------------------------------------------------------------


@pytest.mark.parametrize("path", FIXTURES, ids=_id)
def test_bytes_are_repaired_as_the_command_line_writes_them(path: Path) -> None:
    data, options = path.read_bytes(), _options(path)
    outcome = run_file(STDIN, Job(mode="fix", settings=Settings(**options), write=True), data=data)
    expected = data if outcome.stdout is None else outcome.stdout
    result = histnorm.repair(data, **options)
    assert isinstance(result.value, bytes)
    assert result.value == expected
    assert dict(result.applied) == dict(outcome.applied)
    assert result.changed == (expected != data)
    if not result.changed:
        assert result.value is data  # untouched bytes are the very bytes passed
    text = histnorm.repair(data.decode("utf-8", "surrogateescape"), **options)
    if b"\xef\xbb\xbf" not in data and _utf8(data):
        assert text.value == expected.decode()


def _utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


@pytest.mark.parametrize("path", [p for p in FIXTURES if p.suffix == ".json"], ids=_id)
def test_a_native_value_is_repaired_as_fix_repairs_it(path: Path) -> None:
    options = _options(path)
    try:
        value = orjson.loads(path.read_bytes())
    except orjson.JSONDecodeError:
        value = None
    try:
        fixed = histnorm.fix(value, **options)
    except histnorm.HistnormError:
        # no single readable transcript: repair hands it back unchanged and says why
        unread = histnorm.repair(value, **options)
        assert unread.value is value and not unread.changed
        assert [d.code for d in unread.remaining] == ["HN000"], path
        return
    before = copy.deepcopy(value)
    result = histnorm.repair(value, **options)
    assert value == before
    assert dict(result.applied) == dict(fixed.applied)
    assert result.remaining == fixed.remaining
    if fixed.changed:
        assert result.value == histnorm.encode(fixed.transcript)
        assert histnorm.repair(result.value, **options).value == result.value
    else:
        assert result.value is value


# --- the shape comes back -------------------------------------------------------------


def test_a_clean_history_is_returned_as_it_was_passed() -> None:
    messages = chat()
    result = histnorm.repair(messages)
    assert result == Repair(messages, format="openai-chat")
    assert result.value is messages
    assert not result.changed


def test_a_list_comes_back_a_list_sharing_every_untouched_message() -> None:
    messages = chat(answered=False)
    before = copy.deepcopy(messages)
    result = histnorm.repair(messages)
    assert result.changed and dict(result.applied) == {"HN001": 1}
    assert isinstance(result.value, list)
    assert messages == before
    kept = {id(m) for m in messages}
    assert [m for m in messages if m is not messages[2]] == result.value  # the orphan call went
    assert all(id(m) in kept for m in result.value)


def test_a_request_body_keeps_its_other_keys() -> None:
    tools = [{"type": "function", "function": {"name": "get_weather"}}]
    body = {"model": "gpt-4o", "messages": chat(answered=False), "tools": tools, "n": 1}
    result = histnorm.repair(body)
    assert isinstance(result.value, dict)
    assert list(result.value) == ["model", "messages", "tools", "n"]
    assert result.value["tools"] is tools and result.value["model"] == "gpt-4o"
    assert len(result.value["messages"]) == len(body["messages"]) - 1


def test_bytes_text_bytearray_and_tuples_keep_their_type() -> None:
    data = json.dumps(chat(answered=False), indent=2).encode()
    assert isinstance(histnorm.repair(data).value, bytes)
    assert isinstance(histnorm.repair(bytearray(data)).value, bytearray)
    assert isinstance(histnorm.repair(data.decode()).value, str)
    assert histnorm.repair(data.decode()).value == histnorm.repair(data).value.decode()
    repaired = histnorm.repair(tuple(chat(answered=False)))
    assert isinstance(repaired.value, tuple) and repaired.changed


def test_bytes_keep_the_bytes_of_untouched_messages() -> None:
    data = json.dumps(chat(answered=False), indent=4).encode()
    new = histnorm.repair(data).value
    assert b'    {\n        "role": "system",\n        "content": "Be brief."\n    },' in new
    assert orjson.loads(new) == histnorm.repair(orjson.loads(data)).value


def test_settings_as_keywords_or_as_an_object() -> None:
    messages = chat(answered=False)
    by_keyword = histnorm.repair(messages, orphan_tool_call="synthesize")
    by_object = histnorm.repair(messages, Settings(orphan_tool_call="synthesize"))
    assert by_keyword == by_object and len(by_keyword.value) == len(messages) + 1
    assert histnorm.repair(messages, select=["HN002"]).value is messages
    assert histnorm.repair(messages, ignore=("HN001",)).value is messages


def test_an_unknown_keyword_is_a_type_error_naming_it() -> None:
    with pytest.raises(TypeError, match=r"'orphan_call'.*orphan_tool_call"):
        histnorm.repair(chat(), orphan_call="drop")


# --- what cannot be read ---------------------------------------------------------------


@pytest.mark.parametrize(
    "value", [b'[{"role": "user",', '{"messages": [1]}', {"foo": 1}, [{"content": "x"}], b"\xff"]
)
def test_unreadable_input_comes_back_unchanged_with_hn000(value: Any) -> None:
    result = histnorm.repair(value)
    assert result.value is value
    assert [d.code for d in result.remaining] == ["HN000"]
    assert not result.changed


def test_an_unreadable_line_is_located() -> None:
    data = b'{"messages": [{"role": "user", "content": "hi"}]}\n{"messages": [\n'
    (diagnostic,) = histnorm.repair(data).remaining
    assert diagnostic.code == "HN000" and diagnostic.location.line == 2


@pytest.mark.parametrize("value", [[], (), {"model": "x", "messages": []}, b"[]", "[]"])
def test_an_empty_history_is_fine_without_a_format(value: Any) -> None:
    assert histnorm.repair(value) == Repair(value)


class Opaque:
    """Neither JSON data nor an object with `model_dump()`."""


@pytest.mark.parametrize(
    ("value", "where"),
    [
        (Opaque(), "the value passed"),
        ([{"role": "user", "content": Opaque()}], "at /0/content"),
        ([{"role": "user", 1: "x"}], "at /0"),
    ],
)
def test_an_object_it_cannot_read_says_what_to_pass(value: Any, where: str) -> None:
    with pytest.raises(TypeError, match="model_dump") as info:
        histnorm.repair(value)
    assert where in str(info.value)


# --- SDK and pydantic objects -----------------------------------------------------------


def test_openai_sdk_messages_are_read_and_kept_where_untouched() -> None:
    from openai.types.chat import ChatCompletionMessage, ChatCompletionMessageFunctionToolCall

    def reply(i: int) -> ChatCompletionMessage:
        call = ChatCompletionMessageFunctionToolCall.model_validate(_call(i))
        return ChatCompletionMessage(role="assistant", content=None, tool_calls=[call])

    first, second = reply(0), reply(1)
    messages: list[Any] = [{"role": "user", "content": "Weather?"}, first]
    messages += [{"role": "tool", "tool_call_id": "call_0", "content": "4 C"}]
    clean = histnorm.repair(messages)
    assert clean.value is messages and clean.format == "openai-chat"
    damaged = [*messages, {"role": "user", "content": "And tomorrow?"}, second]
    result = histnorm.repair(damaged, tail="close", unsafe_fixes=True)
    assert result.changed
    assert result.value[1] is first  # an untouched SDK object comes back as passed
    assert all(m is not second for m in result.value)


def test_anthropic_blocks_inside_dicts_are_read() -> None:
    from anthropic.types import TextBlock, ToolUseBlock

    use = ToolUseBlock(id="toolu_1", name="get_weather", input={"city": "Oslo"}, type="tool_use")
    text = TextBlock(text="Let me check.", type="text")
    turn = {"role": "assistant", "content": [text, use]}
    result = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "4 C"}
    messages = [{"role": "user", "content": "Weather?"}, turn]
    messages += [{"role": "user", "content": [result]}]
    clean = histnorm.repair(messages, format="anthropic")
    assert clean.value is messages and not clean.remaining
    messages.append({"role": "user", "content": [result]})  # the same result twice
    before = copy.deepcopy(messages)
    repaired = histnorm.repair(messages, format="anthropic")
    assert repaired.changed and messages == before
    assert repaired.value[1] is turn and repaired.value[1]["content"][1] is use


class Conversation(BaseModel):
    messages: list[dict[str, Any]]


def test_a_pydantic_model_is_read_as_the_json_it_dumps_and_comes_back_as_its_class() -> None:
    clean = Conversation(messages=chat())
    assert histnorm.repair(clean).value is clean
    result = histnorm.repair(Conversation(messages=chat(answered=False)))
    assert result.changed and isinstance(result.value, Conversation)
    assert result.value.model_dump() == histnorm.repair({"messages": chat(answered=False)}).value


# --- properties ----------------------------------------------------------------------------


@PROPERTY
@given(document=documents(), options=fix_settings())
def test_repair_is_idempotent_and_never_changes_its_input(
    document: tuple[Any, str], options: Settings
) -> None:
    value, _ = document
    before = copy.deepcopy(value)
    once = histnorm.repair(value, options)
    assert value == before
    assert histnorm.repair(value, options) == once  # deterministic
    twice = histnorm.repair(once.value, options)
    assert twice.value == once.value and not twice.changed


@PROPERTY
@given(document=documents(), options=fix_settings())
def test_bytes_repair_is_idempotent_and_agrees_with_the_value(
    document: tuple[Any, str], options: Settings
) -> None:
    value, _ = document
    data = orjson.dumps(value, option=orjson.OPT_INDENT_2)
    once = histnorm.repair(data, options)
    assert orjson.loads(once.value) == histnorm.repair(value, options).value
    assert histnorm.repair(once.value, options).value == once.value


def test_an_empty_key_beside_the_messages_does_not_make_a_history_empty() -> None:
    body = {"messages": ORPHAN_BODY_MESSAGES, "conversations": []}
    data = orjson.dumps(body)
    as_bytes = histnorm.repair(data)
    as_dict = histnorm.repair(body)
    assert dict(as_bytes.applied) == dict(as_dict.applied) == {"HN001": 1}
    assert orjson.loads(as_bytes.value) == as_dict.value
