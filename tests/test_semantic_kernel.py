"""Tests for the `semantic-kernel` codec (Semantic Kernel `ChatHistory.serialize()` JSON).

The codec contract (round trip, detection, damaged input) is checked for every codec in
test_codec_contract.py; this file checks what is particular to Semantic Kernel: parts,
slots and pointers, how calls and results pair, what is written for a changed or new
item, what the sniff claims, and that content histnorm does not model is kept in place.
Byte comparisons go through `orjson.dumps` (Python `==` takes `1`, `1.0` and `True` as
equal).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import semantic_kernel_histories as sk
from cli_helpers import invoke
from codec_helpers import PROPERTY_SETTINGS, dump, resolve
from hypothesis import given
from strategies_semantic_kernel import transcripts

import histnorm
from histnorm import CODECS
from histnorm.errors import HistnormError
from histnorm.formats import claims, detect_format
from histnorm.formats.semantic_kernel import SemanticKernelCodec
from histnorm.model import (
    SYNTHESIZED_KEY,
    Message,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    Transcript,
    UnknownPart,
)

CODEC = SemanticKernelCodec()
PROPERTY = PROPERTY_SETTINGS["semantic-kernel"]


def _load(name: str) -> Any:
    return json.loads((sk.FIXTURES / name).read_bytes())


# --- fixtures ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", sk.HISTORIES)
def test_each_fixture_is_what_the_history_script_writes(name: str) -> None:
    assert (sk.FIXTURES / name).read_bytes() == sk.render(name)


@pytest.mark.parametrize("name", sk.HISTORIES)
def test_each_fixture_is_detected_and_claimed_by_this_codec_alone(name: str) -> None:
    data = _load(name)
    assert claims(data) == {"semantic-kernel": 0.97}
    assert detect_format(data) == "semantic-kernel"


# --- reading ----------------------------------------------------------------------------


@PROPERTY
@given(transcripts())
def test_pointers_resolve_to_what_each_part_was_read_from(doc: Any) -> None:
    transcript = CODEC.decode(doc)
    for i, message in enumerate(transcript.messages):
        at = CODEC.message_pointer(transcript, i)
        assert dump(resolve(doc, at)) == dump(message.native)
        for j, part in enumerate(message.parts):
            pointer = CODEC.part_pointer(transcript, i, j)
            assert pointer == f"{at}/items/{j}"
            assert part.slot == "items"
            assert dump(resolve(doc, pointer)) == dump(part.native)


def test_a_tool_call_and_its_result_are_read_with_ids_names_and_values() -> None:
    transcript = CODEC.decode(_load("weather-tool.json"))
    roles = [m.role for m in transcript.messages]
    assert roles == ["system", "user", "assistant", "tool", "assistant"]
    (call,) = transcript.messages[2].parts
    (result,) = transcript.messages[3].parts
    assert isinstance(call, ToolCallPart) and isinstance(result, ToolResultPart)
    assert (call.call_id, call.name, call.arguments) == (
        "call_Vx1",
        "weather-get_forecast",
        '{"city": "Paris"}',
    )
    assert (result.call_id, result.name) == ("call_Vx1", "weather-get_forecast")
    assert result.content == "{'temperature_c': 18, 'sky': 'sunny'}"  # SK writes str(result)
    assert transcript.messages[2].metadata["usage"] == {
        "prompt_tokens": 82,
        "completion_tokens": 17,
    }


def test_responses_calls_pair_by_id_and_reasoning_is_read() -> None:
    transcript = CODEC.decode(_load("responses-reasoning.json"))
    reasoning, call = transcript.messages[1].parts
    assert isinstance(reasoning, ReasoningPart)
    assert reasoning.text == "The user wants an order status; look it up."
    assert isinstance(call, ToolCallPart) and call.call_id == "fc_68a1"
    (result,) = transcript.messages[2].parts
    assert isinstance(result, ToolResultPart) and result.call_id == "fc_68a1"
    assert histnorm.lint(_load("responses-reasoning.json")) == ()


def test_a_call_without_an_id_pairs_by_its_responses_call_id() -> None:
    call = sk.call(None, "orders-lookup", "{}", responses_call_id="call_9")
    history = [sk.said("user", "Order?"), sk.message("assistant", [call]), sk.result(call, "ok")]
    history[2]["items"][0].pop("id")
    transcript = CODEC.decode(history)
    assert [p.call_id for m in transcript.messages[1:] for p in m.parts] == ["call_9", "call_9"]
    assert histnorm.lint(history) == ()


def test_authors_and_message_keys_are_read_and_kept() -> None:
    data = _load("agent-group-chat.json")
    transcript = CODEC.decode(data)
    assert [m.author_name for m in transcript.messages] == [
        None,
        None,
        "Writer",
        "Reviewer",
        "Writer",
        "Reviewer",
    ]
    assert transcript.messages[0].role == "developer"
    assert transcript.messages[5].metadata == {"approved": True}
    assert histnorm.lint(data) == ()


def test_a_plugin_and_function_name_make_the_tool_name_when_name_is_absent() -> None:
    call = sk.call("c1", "math-add", "{}")
    del call["name"]
    (part,) = CODEC.decode([sk.message("assistant", [call])]).messages[0].parts
    assert isinstance(part, ToolCallPart) and part.name == "math-add"


def test_items_histnorm_does_not_model_are_unknown_parts_kept_verbatim() -> None:
    data = _load("media.json")
    transcript = CODEC.decode(data)
    unknown = [p for m in transcript.messages for p in m.parts if isinstance(p, UnknownPart)]
    assert [p.type for p in unknown] == ["image", "image", "annotation", "audio", "file_reference"]
    assert dump(CODEC.encode(transcript)) == dump(data)


@pytest.mark.parametrize(
    ("item", "pointer"),
    [
        ({"content_type": "text", "text": 7}, "/messages/0/items/0/text"),
        (
            {"content_type": "function_call", "id": 7, "function_name": "f"},
            "/messages/0/items/0/id",
        ),
        ({"content_type": "function_call", "id": "c", "name": ["x"]}, "/messages/0/items/0/name"),
        ({"content_type": "text", "text": "x", "metadata": []}, "/messages/0/items/0/metadata"),
        ("just text", "/messages/0/items/0"),
    ],
)
def test_a_bad_item_is_an_error_at_its_pointer(item: Any, pointer: str) -> None:
    with pytest.raises(HistnormError) as raised:
        CODEC.decode({"messages": [{"role": "assistant", "items": [item]}]})
    assert raised.value.pointer == pointer


def test_items_that_are_not_an_array_are_an_error_at_their_pointer() -> None:
    with pytest.raises(HistnormError) as raised:
        CODEC.decode({"messages": [{"role": "user", "items": {"text": "hi"}}]})
    assert raised.value.pointer == "/messages/0/items"


# --- sniffing ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        [{"role": "user", "content": "hi"}],  # OpenAI Chat
        [{"role": "user", "items": [{"type": "text", "text": "hi"}]}],  # no content_type
        [{"role": "user", "content": "hi", "items": [{"content_type": "text", "text": "x"}]}],
        [{"role": "user", "items": []}],  # no mark of Semantic Kernel at all
        [{"items": [{"content_type": "text", "text": "hi"}]}],  # no role
        {"messages": [{"role": 1, "items": [{"content_type": "text", "text": "hi"}]}]},
        {"messages": [{"role": "user", "items": [{"content_type": "text"}, "x"]}]},
        [{"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "hi"}]}],
    ],
)
def test_the_sniff_claims_nothing_without_semantic_kernels_own_marks(data: Any) -> None:
    assert CODEC.sniff(data) == 0.0


def test_a_message_marked_content_type_message_is_claimed_even_with_no_items() -> None:
    data = {"messages": [{"metadata": {}, "content_type": "message", "role": "user", "items": []}]}
    assert CODEC.sniff(data) == 0.97


# --- writing ----------------------------------------------------------------------------


def test_an_unchanged_history_is_written_back_as_the_very_objects() -> None:
    data = _load("parallel-calls.json")
    out = CODEC.encode(CODEC.decode(data))
    assert all(a is b for a, b in zip(out["messages"], data["messages"], strict=True))


def test_a_renamed_call_id_changes_only_the_id_of_the_call_and_its_result() -> None:
    data = _load("parallel-calls.json")
    transcript = CODEC.decode(data)

    def renamed(message: Message) -> Message:
        parts = tuple(
            p.evolve(call_id="call_new")
            if isinstance(p, ToolCallPart | ToolResultPart) and p.call_id == "call_L2"
            else p
            for p in message.parts
        )
        return message.evolve(parts=parts)

    out = CODEC.encode(transcript.evolve(messages=tuple(map(renamed, transcript.messages))))
    expected = json.loads(json.dumps(data))
    expected["messages"][1]["items"][1]["id"] = "call_new"
    expected["messages"][3]["items"][0]["id"] = "call_new"
    assert dump(out) == dump(expected)


def test_a_renamed_responses_call_id_is_written_where_it_was_read() -> None:
    call = sk.call(None, "orders-lookup", "{}", responses_call_id="call_9")
    transcript = CODEC.decode([sk.message("assistant", [call])])
    part = transcript.messages[0].parts[0].evolve(call_id="call_10")
    message = transcript.messages[0].evolve(parts=(part,))
    (out,) = CODEC.encode(transcript.evolve(messages=(message,)))
    assert out["items"][0] == {**call, "call_id": "call_10"}


def test_an_edited_message_keeps_its_null_fields() -> None:
    data = _load("compact-with-nulls.json")
    transcript = CODEC.decode(data)
    reply = transcript.messages[1]
    edited = reply.evolve(parts=(reply.parts[0].evolve(text="Hello!"),))
    out = CODEC.encode(transcript.evolve(messages=(transcript.messages[0], edited)))
    expected = json.loads(json.dumps(data))
    expected["messages"][1]["items"][0]["text"] = "Hello!"
    assert dump(out) == dump(expected)
    assert out["messages"][1]["name"] is None and out["messages"][1]["items"][0]["encoding"] is None


def test_an_author_removed_from_a_message_leaves_no_name() -> None:
    transcript = CODEC.decode(_load("agent-group-chat.json"))
    message = transcript.messages[2].evolve(author_name=None)
    (out,) = CODEC.encode(transcript.evolve(messages=(message,)))["messages"]
    assert "name" not in out and out["role"] == "assistant"


def test_new_messages_and_items_are_written_as_semantic_kernel_serializes_them() -> None:
    call = ToolCallPart(call_id="c1", name="weather-get", arguments='{"city": "Rome"}')
    messages = (
        Message(role="user", parts=(TextPart(text="Rome?"),)),
        Message(role="assistant", author_name="Bot", parts=(call,)),
        Message(role="tool", parts=(ToolResultPart(call_id="c1", content="sunny"),)),
    )
    out = CODEC.encode(Transcript(messages=messages, format="semantic-kernel"))
    assert out == [
        sk.said("user", "Rome?"),
        sk.message("assistant", [sk.call("c1", "weather-get", '{"city": "Rome"}')], name="Bot"),
        sk.result(sk.call("c1", "weather-get", "{}"), "sunny"),
    ]
    assert CODEC.decode(out).messages[2].parts[0].name == "weather-get"  # named after its call


def test_parts_semantic_kernel_has_no_item_for_are_refused_when_written() -> None:
    from histnorm.model import MediaPart

    message = Message(role="user", parts=(MediaPart(uri="https://x/y.png"),))
    with pytest.raises(HistnormError, match="cannot be written as Semantic Kernel"):
        CODEC.encode(Transcript(messages=(message,), format="semantic-kernel"))


# --- linting and fixing -----------------------------------------------------------------


def _dangling() -> dict[str, Any]:
    """weather-tool.json without the result, and a new user question after the call."""
    data = _load("weather-tool.json")
    data["messages"][3:] = [sk.said("user", "Are you still there?")]
    return data


def test_an_orphan_call_is_found_at_its_item_and_fixed_in_semantic_kernel_shape() -> None:
    data = _dangling()
    found = histnorm.lint(data)
    assert [(d.code, d.location.pointer) for d in found] == [("HN001", "/messages/2/items/0")]
    fixed = histnorm.fix(data, orphan_tool_call="synthesize")
    out = histnorm.encode(fixed.transcript)
    assert out["messages"][:3] == data["messages"][:3]
    assert out["messages"][4] == data["messages"][3]
    result = out["messages"][3]
    assert (result["content_type"], result["role"]) == ("message", "tool")
    (item,) = result["items"]
    assert item["metadata"] == {SYNTHESIZED_KEY: True}
    assert (item["content_type"], item["id"]) == ("function_result", "call_Vx1")
    names = (item["name"], item["function_name"], item["plugin_name"])
    assert names == ("weather-get_forecast", "get_forecast", "weather")
    again = histnorm.fix(out, orphan_tool_call="synthesize")
    assert not again.changed and histnorm.lint(out) == ()


def test_fix_on_the_command_line_keeps_the_bytes_of_every_message_it_does_not_touch(
    tmp_path: Path,
) -> None:
    path = tmp_path / "history.json"
    data = json.dumps(_dangling(), indent=2, ensure_ascii=False).encode()
    path.write_bytes(data)
    assert invoke("fix", str(path)).exit_code == 0
    written = path.read_bytes()
    assert (
        written
        == json.dumps(
            {"messages": [*_dangling()["messages"][:2], _dangling()["messages"][3]]},
            indent=2,
            ensure_ascii=False,
        ).encode()
    )


def test_an_unknown_item_in_a_tool_message_is_reported_and_nothing_moves_next_to_it() -> None:
    data = _load("weather-tool.json")
    image = {"metadata": {}, "content_type": "image", "data_uri": "data:image/png;base64,AA=="}
    data["messages"][3]["items"].insert(0, image)
    data["messages"][2]["items"].append(sk.call("call_2", "weather-get_forecast", "{}"))
    found = histnorm.lint(data)
    assert ("HN013", "/messages/3/items/0") in {(d.code, d.location.pointer) for d in found}
    assert "HN001" in {d.code for d in found}  # call_2 has no result: held by the guard
    fixed = histnorm.fix(data)
    assert dump(histnorm.encode(fixed.transcript)) == dump(data)
    data["messages"][3]["items"].pop(0)  # without the image, the same call is dropped
    assert histnorm.fix(data).changed


def test_a_semantic_kernel_history_is_no_openai_chat_history() -> None:
    data = _load("weather-tool.json")
    assert {name for name, codec in CODECS.items() if codec.sniff(data)} == {"semantic-kernel"}


def test_items_without_semantic_kernels_marks_are_still_skipped_as_no_transcript() -> None:
    from histnorm.errors import NotATranscript

    history = [{"role": "user", "items": [{"type": "text", "text": "hi"}]}]
    with pytest.raises(NotATranscript, match="under 'items'"):
        histnorm.lint(history)


def test_a_history_converted_to_semantic_kernel_is_a_chat_history_object() -> None:
    source = [
        {"role": "user", "content": "Weather in Rome?"},
        {"role": "assistant", "content": None, "tool_calls": [_OPENAI_CALL]},
        {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
    ]
    converted = histnorm.convert(histnorm.load(source, format="openai-chat"), "semantic-kernel")
    out = histnorm.encode(converted, "semantic-kernel")
    assert list(out) == ["messages"]  # what `ChatHistory.restore_chat_history` reads
    assert [m["role"] for m in out["messages"]] == ["user", "assistant", "tool"]
    assert out["messages"][2]["items"][0]["function_name"] == "get_weather"
    assert histnorm.lint(out) == ()


_OPENAI_CALL = {
    "id": "c1",
    "type": "function",
    "function": {"name": "get_weather", "arguments": '{"city": "Rome"}'},
}
