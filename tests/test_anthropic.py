"""Tests for the `anthropic` codec: round trips, decoded parts, pointers, edits and errors.

Shapes: formats.md §3. Byte comparisons go through `orjson.dumps` because Python `==`
treats `1`, `1.0` and `True` as equal.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from types import MappingProxyType
from typing import Any

import orjson
import pytest
from codec_helpers import (
    PROPERTY_SETTINGS,
    check_damaged,
    dump,
    fixture_documents,
    fixture_files,
    resolve,
    with_parts,
    without_part,
)
from hypothesis import given
from strategies_anthropic import transcripts

import histnorm
import histnorm.formats
from histnorm import jsonio
from histnorm.engine import fix_allowed
from histnorm.errors import HistnormError
from histnorm.formats.anthropic import AnthropicCodec
from histnorm.model import (
    SYNTHESIZED_KEY,
    ApprovalRequestPart,
    MediaPart,
    Message,
    ReasoningPart,
    RefusalPart,
    TextPart,
    ToolCallPart,
    ToolFamily,
    ToolResultPart,
    Transcript,
    UnknownPart,
    UsagePart,
)
from histnorm.pairing import group, pair_transcript

CODEC = AnthropicCodec()
ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "formats" / "anthropic"
FIXTURE_FILES = fixture_files("anthropic")
PROPERTY = PROPERTY_SETTINGS["anthropic"]


def body(doc: Any) -> list[Any]:
    return doc if isinstance(doc, list) else doc["messages"]


def one_block(block: dict[str, Any], role: str = "assistant") -> Any:
    """The single part decoded from a message holding only `block`."""
    return CODEC.decode([{"role": role, "content": [block]}]).messages[0].parts[0]


def encode_part(part: Any, role: str = "assistant") -> Any:
    """The block a new (or edited) part is written as."""
    (message,) = CODEC.encode(Transcript(messages=(Message(role=role, parts=(part,)),)))
    return message["content"][0]


# --- properties (the codec contract is checked in test_codec_contract.py) ---------------


@PROPERTY
@given(transcripts())
def test_pointers_resolve_to_what_each_part_was_read_from(doc: Any) -> None:
    transcript = CODEC.decode(doc)
    for i, message in enumerate(transcript.messages):
        at = CODEC.message_pointer(transcript, i)
        assert resolve(doc, at) is message.native
        for j, part in enumerate(message.parts):
            pointer = CODEC.part_pointer(transcript, i, j)
            assert pointer.startswith(at + "/content")
            assert dump(resolve(doc, pointer)) == dump(part.native)


_KINDS = {
    "text": "text",
    "thinking": "reasoning",
    "redacted_thinking": "reasoning",
    "tool_use": "tool_call",
    "server_tool_use": "tool_call",
    "mcp_tool_use": "tool_call",
    "tool_result": "tool_result",
    "mcp_tool_result": "tool_result",
    "image": "media",
    "document": "media",
    "search_result": "media",
}


@PROPERTY
@given(transcripts())
def test_decoded_parts_mirror_the_native_blocks(doc: Any) -> None:
    transcript = CODEC.decode(doc)
    assert transcript.format == "anthropic"
    for native, message in zip(body(doc), transcript.messages, strict=True):
        assert message.role == native["role"]
        content = native["content"]
        if isinstance(content, str):
            assert message.parts == (TextPart(text=content, native=content, slot="content"),)
            continue
        assert len(message.parts) == len(content)
        for block, part in zip(content, message.parts, strict=True):
            kind = block["type"]
            hosted = kind.endswith("_tool_result") and kind != "mcp_tool_result"
            assert part.kind == ("tool_result" if hosted else _KINDS.get(kind, "unknown"))
            assert part.native is block and part.slot == "content[]"
            if isinstance(part, ToolCallPart):
                assert part.call_id == block["id"]
                assert part.arguments is block["input"]
            if isinstance(part, ToolResultPart):
                assert part.call_id == block["tool_use_id"]
                assert dump(part.content) == dump(block.get("content"))


@PROPERTY
@given(transcripts())
def test_calls_and_results_with_one_id_share_a_pairing_group(doc: Any) -> None:
    parts = [p for m in CODEC.decode(doc).messages for p in m.parts]
    calls = {p.call_id: p for p in parts if isinstance(p, ToolCallPart)}
    for result in parts:
        if isinstance(result, ToolResultPart) and result.call_id in calls:
            call = calls[result.call_id]
            same_family = {call.family, result.family} <= {ToolFamily.FUNCTION, ToolFamily.HANDOFF}
            assert (group(call) == group(result)) == (same_family or call.family == result.family)


def _fresh(transcript: Transcript) -> Transcript:
    """The transcript as histnorm would build it from scratch: no native values, and no
    parts that need one (unknown parts, media without a URI)."""
    return transcript.evolve(
        native=None,
        messages=tuple(
            m.evolve(
                native=None,
                parts=tuple(
                    p.evolve(native=None)
                    for p in m.parts
                    if not isinstance(p, UnknownPart)
                    and not (isinstance(p, MediaPart) and not p.uri)
                ),
            )
            for m in transcript.messages
        ),
    )


def _meaning(transcript: Transcript) -> bytes:
    return dump(
        [
            [m.role, m.id, [p.model_dump(mode="json", exclude={"native", "slot"}) for p in m.parts]]
            for m in transcript.messages
        ]
    )


@PROPERTY
@given(transcripts())
def test_fresh_encoding_keeps_meaning(doc: Any) -> None:
    fresh = _fresh(CODEC.decode(doc))
    assert _meaning(CODEC.decode(CODEC.encode(fresh))) == _meaning(fresh)


@pytest.mark.parametrize(
    "doc",
    [
        [{"role": "user", "content": [{"type": ["text"]}]}],
        [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": {}}]}],
    ],
)
def test_odd_block_values_raise_only_histnorm_error_at_a_real_location(doc: Any) -> None:
    check_damaged(CODEC, doc)


# --- decoding: each shape --------------------------------------------------------------


def test_string_content_is_one_text_part() -> None:
    transcript = CODEC.decode([{"role": "user", "content": "Hi there"}])
    (message,) = transcript.messages
    assert message.parts == (TextPart(text="Hi there", native="Hi there", slot="content"),)
    assert transcript.native is None
    assert CODEC.message_pointer(transcript, 0) == "/0"
    assert CODEC.part_pointer(transcript, 0, 0) == "/0/content"


def test_null_missing_and_empty_content_give_no_parts() -> None:
    doc = [
        {"role": "assistant", "content": []},
        {"role": "user"},
        {"role": "user", "content": None},
    ]
    transcript = CODEC.decode(doc)
    assert [m.parts for m in transcript.messages] == [(), (), ()]
    assert dump(CODEC.encode(transcript)) == dump(doc)


@pytest.mark.parametrize(
    ("block", "expected"),
    [
        (
            {"type": "text", "text": "Hi", "citations": [], "cache_control": {"type": "ephemeral"}},
            TextPart(text="Hi"),
        ),
        (
            {"type": "thinking", "thinking": "Hmm.", "signature": "EqQB=="},
            ReasoningPart(text="Hmm.", opaque="EqQB=="),
        ),
        ({"type": "redacted_thinking", "data": "EmwK=="}, ReasoningPart(opaque="EmwK==")),
        (
            {"type": "image", "source": {"type": "url", "url": "https://e.x/a.png"}},
            MediaPart(uri="https://e.x/a.png"),
        ),
        (
            {
                "type": "image",
                "source": {"type": "base64", "media_type": "image/gif", "data": "R0"},
            },
            MediaPart(media_type="image/gif"),
        ),
        (
            {"type": "document", "source": {"type": "text", "data": "notes"}, "title": "T"},
            MediaPart(media_type="text/plain"),
        ),
        (
            {"type": "search_result", "source": "https://e.x/s", "title": "S", "content": []},
            MediaPart(uri="https://e.x/s"),
        ),
        ({"type": "container_upload", "file_id": "file_1"}, UnknownPart(type="container_upload")),
        (
            {"type": "mid_conv_system", "content": [{"type": "text", "text": "Be kind."}]},
            UnknownPart(type="mid_conv_system"),
        ),
        (
            {"type": "compaction", "content": None, "encrypted_content": "Ep0C"},
            UnknownPart(type="compaction"),
        ),
        ({"type": "tool_addition", "tool": {"name": "f"}}, UnknownPart(type="tool_addition")),
        ({"type": "x_future", "a": 1}, UnknownPart(type="x_future")),
        ({"no_type": True}, UnknownPart()),
    ],
)
def test_each_block_type(block: dict[str, Any], expected: Any) -> None:
    part = one_block(block)
    assert part == expected.evolve(native=block, slot="content[]")
    assert part.native is block


def test_opaque_reasoning_is_kept_verbatim() -> None:
    signature = {"odd": ["but", "kept", 1.0]}
    part = one_block({"type": "thinking", "thinking": "x", "signature": signature})
    assert isinstance(part, ReasoningPart) and part.opaque is signature


def test_tool_use_and_tool_result() -> None:
    doc = {
        "system": "Be terse.",
        "messages": [
            {"role": "user", "content": "Weather in Oslo?"},
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "...", "signature": "EqQB"},
                    {
                        "type": "tool_use",
                        "id": "toolu_01A",
                        "name": "get_weather",
                        "input": {"c": 1},
                    },
                    {"type": "tool_use", "id": "", "name": "handoff_to_billing", "input": {}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_01A", "content": "4 C"},
                    {"type": "tool_result", "tool_use_id": "", "is_error": True},
                    {"type": "text", "text": "also Bergen?"},
                ],
            },
        ],
    }
    transcript = CODEC.decode(doc)
    _, weather, handoff = transcript.messages[1].parts
    assert weather == ToolCallPart(
        call_id="toolu_01A",
        name="get_weather",
        arguments={"c": 1},
        tool_type="tool_use",
        native=doc["messages"][1]["content"][1],
        slot="content[]",
    )
    assert (handoff.call_id, handoff.family) == ("", ToolFamily.HANDOFF)
    first, second, text = transcript.messages[2].parts
    assert first == ToolResultPart(
        call_id="toolu_01A",
        content="4 C",
        tool_type="tool_result",
        native=doc["messages"][2]["content"][0],
        slot="content[]",
    )
    assert (second.call_id, second.content, second.is_error) == ("", None, True)
    assert isinstance(text, TextPart)
    pairing = pair_transcript(transcript)
    assert pairing.call_results == {(1, 1): (2, 0), (1, 2): (2, 1)}
    assert [CODEC.part_pointer(transcript, 2, j) for j in range(3)] == [
        f"/messages/2/content/{j}" for j in range(3)
    ]


@pytest.mark.parametrize(
    ("name", "result_type"),
    [
        ("web_search", "web_search_tool_result"),
        ("code_execution", "code_execution_tool_result"),
        ("bash_code_execution", "bash_code_execution_tool_result"),
        ("tool_search_tool_regex", "tool_search_tool_result"),
        ("advisor", "advisor_tool_result"),
    ],
)
def test_server_tool_use_pairs_with_its_result_block(name: str, result_type: str) -> None:
    use = {"type": "server_tool_use", "id": "srvtoolu_01", "name": name, "input": {"q": "x"}}
    result = {"type": result_type, "tool_use_id": "srvtoolu_01", "content": []}
    transcript = CODEC.decode([{"role": "assistant", "content": [use, result]}])
    call, answer = transcript.messages[0].parts
    assert isinstance(call, ToolCallPart) and isinstance(answer, ToolResultPart)
    assert (call.family, call.tool_type) == (ToolFamily.HOSTED, "server_tool_use")
    assert (answer.family, answer.tool_type) == (ToolFamily.HOSTED, "server_tool_use_result")
    assert answer.name == result_type.removesuffix("_tool_result")
    assert group(call) == group(answer) == "hosted:server_tool_use"
    assert pair_transcript(transcript).call_results == {(0, 0): (0, 1)}


def test_server_tool_error_content_is_an_error_result() -> None:
    error = {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"}
    part = one_block({"type": "web_search_tool_result", "tool_use_id": "s", "content": error})
    assert isinstance(part, ToolResultPart) and part.is_error


def test_a_function_result_does_not_answer_a_server_call() -> None:
    use = {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {}}
    doc = [
        {"role": "assistant", "content": [use]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "srvtoolu_01"}]},
    ]
    pairing = pair_transcript(CODEC.decode(doc))
    assert pairing.unmatched_calls == ((0, 0),)
    assert pairing.orphan_results == ((1, 0),)


def test_mcp_tool_use_and_result() -> None:
    use = {"type": "mcp_tool_use", "id": "mcptoolu_1", "name": "search", "server_name": "docs"}
    result = {"type": "mcp_tool_result", "tool_use_id": "mcptoolu_1", "is_error": True}
    transcript = CODEC.decode([{"role": "assistant", "content": [{**use, "input": {}}, result]}])
    call, answer = transcript.messages[0].parts
    assert isinstance(call, ToolCallPart) and isinstance(answer, ToolResultPart)
    assert call.family == answer.family == ToolFamily.MCP
    assert answer.is_error and answer.name is None
    assert pair_transcript(transcript).call_results == {(0, 0): (0, 1)}


def test_request_body_keeps_system_and_every_other_key() -> None:
    system = [{"type": "text", "text": "Be terse.", "cache_control": {"type": "ephemeral"}}]
    doc = {
        "model": "claude-sonnet-4-5",
        "system": system,
        "messages": [{"role": "user", "content": "hi"}],
        "max_tokens": 512,
        "tools": [{"name": "f", "input_schema": {"type": "object"}}],
    }
    transcript = CODEC.decode(doc)
    assert len(transcript.messages) == 1
    assert transcript.native is doc
    out = CODEC.encode(transcript)
    assert list(out) == ["model", "system", "messages", "max_tokens", "tools"]
    assert out["system"] is system
    assert CODEC.part_pointer(transcript, 0, 0) == "/messages/0/content"


def test_stored_response_message_keeps_id_and_type() -> None:
    doc = [{"id": "msg_01X", "type": "message", "role": "assistant", "content": "ok", "usage": {}}]
    (message,) = CODEC.decode(doc).messages
    assert message.id == "msg_01X"
    assert message.native["usage"] == {}


# --- sniffing --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("doc", "score"),
    [
        ([{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t"}]}], 0.95),
        ([{"role": "assistant", "content": [{"type": "thinking", "thinking": ""}]}], 0.95),
        ([{"role": "assistant", "content": [{"type": "web_search_tool_result"}]}], 0.95),
        ([{"role": "user", "content": [{"type": "image", "source": {}}]}], 0.95),
        ({"system": "Be terse.", "messages": [{"role": "user", "content": "hi"}]}, 0.9),
        ({"system": "Be terse.", "messages": []}, 0.9),
        ([{"role": "user", "content": "hi"}], 0.2),
        ({"model": "m", "messages": [{"role": "assistant", "content": [{"type": "text"}]}]}, 0.2),
        ([{"role": "system", "content": "You are..."}], 0.0),
        ([{"role": "user", "content": "hi"}, {"role": "tool", "content": "x"}], 0.0),
        ([{"role": "assistant", "content": None, "tool_calls": []}], 0.0),
        ([{"role": "user", "content": [{"type": "image_url", "image_url": {}}]}], 0.0),
        ([{"role": "user", "name": "alice", "content": [{"type": "tool_result"}]}], 0.0),
        ([{"role": "user", "contents": [{"$type": "text", "text": "meai"}]}], 0.0),
        ([{"role": "user", "parts": [{"text": "gemini"}]}], 0.0),
        ([{"type": "message", "role": "user", "content": [{"type": "input_text"}]}], 0.0),
        ([{"type": "human", "data": {"content": "langchain"}}], 0.0),
        ([{"role": "user", "content": 5}], 0.0),
        ([{"role": "user", "content": ["bare string block"]}], 0.0),
        ([], 0.0),
        ({"messages": []}, 0.0),
        ("hello", 0.0),
        ([1, 2], 0.0),
    ],
)
def test_sniff(doc: Any, score: float) -> None:
    assert CODEC.sniff(doc) == score


# --- encoding after model edits --------------------------------------------------------


def _conversation() -> dict[str, Any]:
    return {
        "system": "Be brief.",
        "messages": [
            {"role": "user", "content": "Weather in Paris and Rome?"},
            {
                "x_vendor": {"trace": 1},
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Checking.", "cache_control": {"type": "ephemeral"}},
                    {"type": "tool_use", "id": "toolu_P", "name": "weather", "input": {"c": "P"}},
                    {"type": "tool_use", "id": "toolu_R", "name": "weather", "input": {"c": "R"}},
                ],
                "stop_reason": "tool_use",
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_P", "content": "12 C"},
                    {"type": "text", "text": "And quickly."},
                ],
            },
        ],
    }


def test_dropping_a_tool_call_removes_its_block_and_keeps_the_others() -> None:
    doc = _conversation()
    before = copy.deepcopy(doc)
    out = CODEC.encode(without_part(CODEC.decode(doc), 1, 2))
    expected = copy.deepcopy(before)
    del expected["messages"][1]["content"][2]
    assert dump(out) == dump(expected)
    assert list(out["messages"][1]) == ["x_vendor", "role", "content", "stop_reason"]
    assert out["messages"][1]["content"][0] is doc["messages"][1]["content"][0]
    assert out["messages"][0] is doc["messages"][0]
    assert dump(doc) == dump(before)


def test_dropping_a_result_keeps_the_text_after_it() -> None:
    out = CODEC.encode(without_part(CODEC.decode(_conversation()), 2, 0))
    assert out["messages"][2] == {
        "role": "user",
        "content": [{"type": "text", "text": "And quickly."}],
    }


@pytest.mark.parametrize(("index", "count"), [(0, 1), (1, 3)])
def test_a_message_emptied_of_parts_has_empty_content(index: int, count: int) -> None:
    transcript = CODEC.decode(_conversation())
    for _ in range(count):
        transcript = without_part(transcript, index, 0)
    out = CODEC.encode(transcript)
    assert out["messages"][index]["content"] == []
    assert CODEC.decode(out).messages[index].parts == ()
    assert dump(CODEC.encode(CODEC.decode(out))) == dump(out)


def test_new_synthesized_result_message_is_a_user_message_with_a_tool_result() -> None:
    transcript = CODEC.decode(_conversation())
    new = Message(
        role="tool",
        parts=(
            ToolResultPart(
                call_id="toolu_R",
                content="Tool call was interrupted.",
                is_error=True,
                metadata={SYNTHESIZED_KEY: True},
            ),
        ),
    )
    messages = transcript.messages
    out = CODEC.encode(transcript.evolve(messages=(*messages[:2], new, *messages[2:])))
    assert dump(out["messages"][2]) == dump(
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_R",
                    "content": "Tool call was interrupted.",
                    "is_error": True,
                }
            ],
        }
    )
    assert out["messages"][3] is messages[2].native
    pairing = pair_transcript(CODEC.decode(out))
    assert not pairing.unmatched_calls and not pairing.orphan_results


def test_moving_a_message_keeps_every_native_object() -> None:
    transcript = CODEC.decode(_conversation())
    first, second, third = transcript.messages
    out = CODEC.encode(transcript.evolve(messages=(first, third, second)))
    assert all(m is x.native for m, x in zip(out["messages"], (first, third, second), strict=True))


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"a": [1, True]}, {"a": [1, True]}),
        ('{"a": 1.0}', {"a": 1.0}),
        ("[1, 2]", {}),
        ("not json", {}),
        (None, {}),
        (7, {}),
    ],
)
def test_new_tool_call_has_an_object_input(arguments: Any, expected: Any) -> None:
    call = ToolCallPart(call_id="toolu_9", name="f", arguments=arguments, informational=True)
    block = encode_part(call)
    assert dump(block) == dump(
        {"type": "tool_use", "id": "toolu_9", "name": "f", "input": expected}
    )


def test_new_calls_of_each_family_use_their_block_type() -> None:
    assert encode_part(ToolCallPart(call_id="s", family=ToolFamily.HOSTED))["type"] == (
        "server_tool_use"
    )
    assert encode_part(ToolCallPart(call_id="m", family=ToolFamily.MCP))["type"] == "mcp_tool_use"
    assert encode_part(ToolCallPart(call_id=None, name="f")) == {
        "type": "tool_use",
        "id": "",
        "name": "f",
        "input": {},
    }


def test_new_results_of_each_family() -> None:
    mcp = ToolResultPart(call_id="m", content=[], family=ToolFamily.MCP, is_error=True)
    assert encode_part(mcp) == {
        "type": "mcp_tool_result",
        "tool_use_id": "m",
        "content": [],
        "is_error": True,
    }
    hosted = ToolResultPart(call_id="s", name="web_fetch", content=[], family=ToolFamily.HOSTED)
    assert encode_part(hosted) == {
        "type": "web_fetch_tool_result",
        "tool_use_id": "s",
        "content": [],
    }
    with pytest.raises(HistnormError, match="hosted tool_result"):
        encode_part(ToolResultPart(call_id="s", family=ToolFamily.HOSTED))


def test_renaming_a_call_and_its_result_keeps_their_other_keys() -> None:
    transcript = CODEC.decode(_conversation())
    text, call, other = transcript.messages[1].parts
    result, words = transcript.messages[2].parts
    transcript = with_parts(transcript, 1, text, call.evolve(call_id="toolu_new"), other)
    transcript = with_parts(transcript, 2, result.evolve(call_id="toolu_new"), words)
    out = CODEC.encode(transcript)
    assert out["messages"][1]["content"][1] == {
        "type": "tool_use",
        "id": "toolu_new",
        "name": "weather",
        "input": {"c": "P"},
    }
    assert out["messages"][2]["content"][0] == {
        "type": "tool_result",
        "tool_use_id": "toolu_new",
        "content": "12 C",
    }
    assert out["messages"][2]["content"][1] is words.native


_RESULT = {"type": "tool_result", "tool_use_id": "t"}


@pytest.mark.parametrize(
    ("block", "is_error", "expected"),
    [
        (_RESULT, True, {**_RESULT, "content": "new", "is_error": True}),
        ({**_RESULT, "is_error": True}, False, {**_RESULT, "content": "new"}),
        ({**_RESULT, "is_error": False}, True, {**_RESULT, "is_error": True, "content": "new"}),
        ({**_RESULT, "is_error": False}, False, {**_RESULT, "is_error": False, "content": "new"}),
        (
            {"type": "web_search_tool_result", "tool_use_id": "t", "content": []},
            True,
            {"type": "web_search_tool_result", "tool_use_id": "t", "content": "new"},
        ),
    ],
)
def test_changing_is_error(block: dict[str, Any], is_error: bool, expected: dict[str, Any]) -> None:
    part = one_block(block, role="user")
    out = encode_part(part.evolve(is_error=is_error, content="new"), role="user")
    assert dump(out) == dump(expected)


def test_edited_string_text_stays_a_string() -> None:
    doc = [{"role": "user", "content": "old", "x_meta": 1}]
    transcript = CODEC.decode(doc)
    (text,) = transcript.messages[0].parts
    out = CODEC.encode(with_parts(transcript, 0, text.evolve(text="new")))
    assert dump(out) == dump([{"role": "user", "content": "new", "x_meta": 1}])


def test_a_part_added_to_string_content_turns_it_into_blocks() -> None:
    transcript = CODEC.decode([{"role": "assistant", "content": "Let me check."}])
    call = ToolCallPart(call_id="toolu_1", name="f", arguments="{}")
    out = CODEC.encode(with_parts(transcript, 0, *transcript.messages[0].parts, call))
    assert out == [
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Let me check."},
                {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}},
            ],
        }
    ]


def test_edited_text_block_keeps_its_extra_keys() -> None:
    transcript = CODEC.decode(_conversation())
    text = transcript.messages[1].parts[0]
    out = CODEC.encode(with_parts(transcript, 1, text.evolve(text="new")))
    assert out["messages"][1]["content"] == [
        {"type": "text", "text": "new", "cache_control": {"type": "ephemeral"}}
    ]


def test_new_messages_are_written_with_a_string_or_blocks() -> None:
    transcript = Transcript(
        messages=(
            Message(role="user", parts=(TextPart(text="hi"),)),
            Message(role="assistant", id="msg_1", parts=(TextPart(text="a"), TextPart(text="b"))),
            Message(role="assistant"),
        )
    )
    assert CODEC.encode(transcript) == [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "id": "msg_1",
            "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
        },
        {"role": "assistant", "content": []},
    ]


@pytest.mark.parametrize(
    ("part", "expected"),
    [
        (
            ReasoningPart(text="t", opaque="sig"),
            {"type": "thinking", "thinking": "t", "signature": "sig"},
        ),
        (ReasoningPart(text="t"), {"type": "thinking", "thinking": "t"}),
        (ReasoningPart(opaque="data"), {"type": "redacted_thinking", "data": "data"}),
        (
            MediaPart(uri="https://e.x/a.png"),
            {"type": "image", "source": {"type": "url", "url": "https://e.x/a.png"}},
        ),
        (
            MediaPart(media_type="image/png", uri="data:image/png;base64,iVBO"),
            {
                "type": "image",
                "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"},
            },
        ),
        (
            MediaPart(uri="data:application/pdf;base64,JVBE", media_type="application/pdf"),
            {
                "type": "document",
                "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBE"},
            },
        ),
        (
            MediaPart(uri="data:text/plain;base64,aGk=", media_type="text/plain"),
            {
                "type": "document",
                "source": {"type": "text", "media_type": "text/plain", "data": "hi"},
            },
        ),
    ],
)
def test_new_reasoning_and_media_parts(part: Any, expected: Any) -> None:
    assert encode_part(part) == expected
    back = one_block(expected)
    assert back.kind == part.kind
    if isinstance(part, ReasoningPart):
        assert back.evolve(native=None, slot=None) == part


def test_edited_media_parts_rewrite_their_source() -> None:
    image = one_block({"type": "image", "source": {"type": "url", "url": "https://a/x.png"}})
    assert encode_part(image.evolve(uri="https://b/y.png")) == {
        "type": "image",
        "source": {"type": "url", "url": "https://b/y.png"},
    }
    found = one_block({"type": "search_result", "source": "https://a", "title": "t", "content": []})
    assert encode_part(found.evolve(uri="https://b"))["source"] == "https://b"


@pytest.mark.parametrize(
    "part",
    [
        RefusalPart(text="No."),
        UsagePart(details={}),
        ApprovalRequestPart(request_id="r"),
        UnknownPart(type="x"),
        MediaPart(media_type="audio/wav"),
    ],
)
def test_parts_anthropic_cannot_express_raise_naming_the_kind(part: Any) -> None:
    with pytest.raises(HistnormError, match=part.kind):
        encode_part(part)


def test_an_edited_unknown_block_is_written_back_as_it_was() -> None:
    part = one_block({"type": "x_future", "a": 1})
    assert encode_part(part.evolve(metadata={"k": 1})) is part.native


def test_a_tool_message_keeps_a_stored_tool_role_unless_it_is_new() -> None:
    transcript = CODEC.decode([{"role": "tool", "content": "odd"}])
    (text,) = transcript.messages[0].parts
    assert CODEC.encode(with_parts(transcript, 0, text.evolve(text="x"))) == [
        {"role": "tool", "content": "x"}
    ]
    assert CODEC.encode(Transcript(messages=(Message(role="Tool"),))) == [
        {"role": "user", "content": []}
    ]


# --- bad input -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("doc", "pointer"),
    [
        ([{"role": "user", "content": "hi"}, "not a message"], "/1"),
        ({"messages": [{"role": "user", "content": "hi"}, 5]}, "/messages/1"),
        ([{"content": "no role"}], "/0/role"),
        ([{"role": None, "content": "x"}], "/0/role"),
        ({"messages": [{"role": ["user"]}]}, "/messages/0/role"),
        ([{"role": "user", "content": 42}], "/0/content"),
        ([{"role": "user", "content": {"type": "text", "text": "x"}}], "/0/content"),
        ([{"role": "assistant", "id": 5, "content": "x"}], "/0/id"),
        ([{"role": "user", "content": ["text"]}], "/0/content/0"),
        ([{"role": "user", "content": [{"type": "text", "text": "a"}, None]}], "/0/content/1"),
        ([{"role": "user", "content": [{"type": 3}]}], "/0/content/0/type"),
        ([{"role": "user", "content": [{"type": "text"}]}], "/0/content/0/text"),
        ([{"role": "user", "content": [{"type": "text", "text": ["x"]}]}], "/0/content/0/text"),
        (
            [{"role": "assistant", "content": [{"type": "thinking", "thinking": 1}]}],
            "/0/content/0/thinking",
        ),
        (
            [{"role": "assistant", "content": [{"type": "tool_use", "name": "f", "input": {}}]}],
            "/0/content/0/id",
        ),
        (
            {
                "messages": [
                    {"role": "assistant", "content": [{"type": "server_tool_use", "id": 1}]}
                ]
            },
            "/messages/0/content/0/id",
        ),
        (
            [{"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": 7}]}],
            "/0/content/0/name",
        ),
        ([{"role": "user", "content": [{"type": "tool_result"}]}], "/0/content/0/tool_use_id"),
        (
            [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": None}]}],
            "/0/content/0/tool_use_id",
        ),
        (
            [
                {
                    "role": "assistant",
                    "content": [{"type": "web_search_tool_result", "tool_use_id": 2}],
                }
            ],
            "/0/content/0/tool_use_id",
        ),
        ({"system": "s", "messages": "hello"}, "/messages"),
        ({"model": "m", "system": "s"}, ""),
        ("just text", ""),
        (None, ""),
    ],
)
def test_bad_input_raises_histnorm_error_with_pointer(doc: Any, pointer: str) -> None:
    with pytest.raises(HistnormError) as info:
        CODEC.decode(doc)
    assert info.value.pointer == pointer


# --- fixtures (their round trip and detection: test_codec_contract.py) ------------------


def _load(name: str) -> Transcript:
    return CODEC.decode(jsonio.loads((FIXTURES / name).read_bytes()))


def test_fixture_set_has_a_jsonl_dataset() -> None:
    assert any(path.suffix == ".jsonl" for path in FIXTURE_FILES)


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda path: path.name)
def test_fixture_is_sniffed_with_confidence(path: Path) -> None:
    for _, doc in fixture_documents(path):
        assert CODEC.sniff(doc) >= 0.9


def _kinds(transcript: Transcript, index: int) -> list[str]:
    return [p.kind for p in transcript.messages[index].parts]


def test_fixture_contents_decode_as_expected() -> None:
    weather = _load("weather-tool.json")
    assert isinstance(weather.native, dict) and weather.native["system"].startswith("You are")
    call = weather.messages[1].parts[1]
    assert isinstance(call, ToolCallPart) and call.arguments == {"city": "Oslo", "unit": "c"}
    assert weather.messages[2].parts[0].call_id == call.call_id

    thinking = _load("extended-thinking.json")
    assert _kinds(thinking, 1) == ["reasoning", "tool_call"]
    redacted = thinking.messages[3].parts[0]
    assert isinstance(redacted, ReasoningPart) and redacted.text is None and redacted.opaque
    assert [p.is_error for p in thinking.messages[2].parts + thinking.messages[4].parts] == [
        True,
        False,
    ]

    server = pair_transcript(_load("server-tools.json"))
    assert server.call_results == {(1, 0): (1, 1), (1, 3): (1, 4)}
    assert _load("server-tools.json").messages[1].parts[4].is_error

    assert _kinds(_load("content-blocks.json"), 2) == ["media"] * 3 + ["text"]
    assert pair_transcript(_load("mcp-connector.json")).call_results == {(1, 0): (1, 1)}
    assert _kinds(_load("parallel-tool-use.json"), 2) == ["tool_result"] * 2 + ["text"]

    beta = _load("beta-blocks.json")
    assert [p.type for p in beta.messages[0].parts if isinstance(p, UnknownPart)] == [
        "container_upload"
    ]
    assert beta.messages[1].id == "msg_01XFDUDYJgAACzvnptvVoYEL"
    assert beta.messages[2].role == "system"
    assert _kinds(beta, 3) == ["unknown", "text", "unknown"]


# --- the linter on the anthropic rule fixtures -----------------------------------------

RULE_CASES = sorted((ROOT / "fixtures" / "rules").glob("*/*.anthropic.json"))


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Register the codec for this test only (the shared registry is not changed)."""
    codecs = MappingProxyType({**histnorm.formats.CODECS, CODEC.name: CODEC})
    monkeypatch.setattr(histnorm.formats, "CODECS", codecs)
    yield


def _settings(path: Path) -> histnorm.Settings:
    extra = path.with_name(path.name.removesuffix(".json") + ".settings.json")
    return (
        histnorm.Settings(**orjson.loads(extra.read_bytes()))
        if extra.exists()
        else histnorm.Settings()
    )


@pytest.mark.usefixtures("registered")
@pytest.mark.parametrize("path", RULE_CASES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_rule_fixture_reports_its_code_and_fixes_cleanly(path: Path) -> None:
    code, negative = path.parent.name, path.name.startswith("ok-")
    settings_ = _settings(path)
    raw = path.read_bytes()
    assert histnorm.detect_format(jsonio.loads(raw)) == "anthropic"
    transcript = histnorm.load(raw, format="anthropic")
    codes = {d.code for d in histnorm.lint(transcript, settings_)}
    assert (code in codes) != negative, sorted(codes)
    result = histnorm.fix(transcript, settings_)
    left = [
        d.code for d in histnorm.lint(result.transcript, settings_) if fix_allowed(d, settings_)
    ]
    assert not left
    fixed = histnorm.dump(result.transcript)
    assert dict(histnorm.fix(fixed, settings_, format="anthropic").applied) == {}
    if not result.changed:
        assert dump(orjson.loads(fixed)) == dump(orjson.loads(raw))


@pytest.mark.usefixtures("registered")
@pytest.mark.parametrize("name", ["server-tools.json", "mcp-connector.json"])
def test_regression_valid_server_tool_turns_survive_fix(name: str) -> None:
    transcript = _load(name)
    assert histnorm.lint(transcript) == ()
    assert histnorm.fix(transcript).applied == {}


@pytest.mark.usefixtures("registered")
def test_synthesized_result_for_a_server_tool_call_takes_its_block_type_from_the_call() -> None:
    use = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}
    doc = [
        {"role": "user", "content": "Search, please."},
        {"role": "assistant", "content": [use]},
        {"role": "user", "content": "Hello?"},
    ]
    options = histnorm.Settings(orphan_tool_call="synthesize")
    fixed = histnorm.fix(CODEC.decode(doc), options).transcript
    out = CODEC.encode(fixed)
    assert out[2] == {
        "role": "user",
        "content": [
            {
                "type": "web_search_tool_result",
                "tool_use_id": "srvtoolu_1",
                "content": options.synthetic_result_text,
            }
        ],
    }
    pairing = pair_transcript(CODEC.decode(out))
    assert not pairing.unmatched_calls and not pairing.orphan_results


@pytest.mark.parametrize(
    ("call_name", "block_type"),
    [
        ("code_execution", "code_execution_tool_result"),
        ("tool_search_tool_bm25", "tool_search_tool_result"),
    ],
)
def test_a_new_server_tool_result_is_named_after_its_call(call_name: str, block_type: str) -> None:
    use = {"type": "server_tool_use", "id": "srvtoolu_1", "name": call_name, "input": {}}
    transcript = CODEC.decode([{"role": "assistant", "content": [use]}])
    new = ToolResultPart(
        call_id="srvtoolu_1",
        content=[],
        family=ToolFamily.HOSTED,
        tool_type="server_tool_use_result",
    )
    (message,) = CODEC.encode(with_parts(transcript, 0, *transcript.messages[0].parts, new))
    assert message["content"][0] is use
    assert message["content"][1] == {"type": block_type, "tool_use_id": "srvtoolu_1", "content": []}
    with pytest.raises(HistnormError, match="hosted tool_result"):
        CODEC.encode(with_parts(transcript, 0, new))
