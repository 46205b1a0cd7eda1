"""Tests for the `openai-responses` codec: round trips, decoded parts, pointers, edits, errors."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from codec_helpers import (
    PROPERTY_SETTINGS,
    check_damaged,
    dump,
    resolve,
    with_messages,
    with_parts,
)
from hypothesis import given
from strategies_openai_responses import documents

from histnorm import jsonio
from histnorm.errors import HistnormError
from histnorm.formats.openai_responses import OpenAIResponsesCodec
from histnorm.model import (
    SYNTHESIZED_KEY,
    ApprovalRequestPart,
    ApprovalResponsePart,
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
from histnorm.pairing import pair_transcript

CODEC = OpenAIResponsesCodec()
ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "formats" / "openai-responses"
PROPERTY = PROPERTY_SETTINGS["openai-responses"]

# --- properties (the codec contract is checked in test_codec_contract.py) ---------------


@PROPERTY
@given(documents())
def test_pointers_resolve_to_what_each_part_was_read_from(doc: Any) -> None:
    transcript = CODEC.decode(doc)
    for i, message in enumerate(transcript.messages):
        at = CODEC.message_pointer(transcript, i)
        assert resolve(doc, at) is message.native
        for j, part in enumerate(message.parts):
            pointer = CODEC.part_pointer(transcript, i, j)
            assert pointer == at or pointer.startswith(at + "/")
            assert dump(resolve(doc, pointer)) == dump(part.native)


@PROPERTY
@given(documents())
def test_each_item_is_one_message(doc: Any) -> None:
    transcript = CODEC.decode(doc)
    body = doc["input"] if isinstance(doc, dict) else doc
    if isinstance(body, str):
        assert [m.role for m in transcript.messages] == ["user"]
        return
    assert len(transcript.messages) == len(body)
    for native, message in zip(body, transcript.messages, strict=True):
        if isinstance(native.get("type"), str) and native["type"] != "message":
            assert len(message.parts) == 1
            assert message.parts[0].native is native


@pytest.mark.parametrize(
    "doc",
    [
        [{"type": "function_call", "call_id": ["c"]}],
        {"input": [{"role": "user", "content": [{"type": {"x": 1}}]}]},
    ],
)
def test_odd_item_values_raise_only_histnorm_error_at_a_real_location(doc: Any) -> None:
    check_damaged(CODEC, doc)


# --- decoding: each item shape ---------------------------------------------------------

SPEC_EXAMPLE: list[dict[str, Any]] = [
    {"role": "user", "content": "Weather in Oslo?"},
    {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAAA..."},
    {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_a1",
        "name": "get_weather",
        "arguments": '{"city":"Oslo"}',
    },
    {"type": "function_call_output", "call_id": "call_a1", "output": '{"temp_c":4}'},
    {
        "type": "mcp_approval_request",
        "id": "mcpr_1",
        "server_label": "git",
        "name": "push",
        "arguments": "{}",
    },
    {
        "type": "mcp_approval_response",
        "approval_request_id": "mcpr_1",
        "approve": False,
        "reason": "not now",
    },
]


def test_spec_example_decodes_item_by_item() -> None:
    doc = copy.deepcopy(SPEC_EXAMPLE)
    transcript = CODEC.decode(doc)
    assert transcript.format == "openai-responses" and transcript.native is None
    roles = [m.role for m in transcript.messages]
    assert roles == ["user", "assistant", "assistant", "tool", "assistant", "user"]
    # the request id is the approval part's `request_id`, not a message id
    assert [m.id for m in transcript.messages] == [None, "rs_1", "fc_1", None, None, None]
    (text,), (reasoning,), (call,), (result,), (request,), (response,) = (
        m.parts for m in transcript.messages
    )
    assert text == TextPart(text="Weather in Oslo?", native="Weather in Oslo?", slot="content")
    assert reasoning == ReasoningPart(text=None, opaque="gAAAA...", native=doc[1], slot="reasoning")
    assert call == ToolCallPart(
        call_id="call_a1",
        name="get_weather",
        arguments='{"city":"Oslo"}',
        tool_type="function_call",
        native=doc[2],
        slot="function_call",
    )
    assert result == ToolResultPart(
        call_id="call_a1",
        content='{"temp_c":4}',
        tool_type="function_call_output",
        native=doc[3],
        slot="function_call_output",
    )
    assert request == ApprovalRequestPart(
        request_id="mcpr_1",
        tool_call=ToolCallPart(
            call_id=None, name="push", arguments="{}", family=ToolFamily.MCP, tool_type="mcp_call"
        ),
        native=doc[4],
        slot="mcp_approval_request",
    )
    assert response == ApprovalResponsePart(
        request_id="mcpr_1",
        approved=False,
        reason="not now",
        native=doc[5],
        slot="mcp_approval_response",
    )
    pairing = pair_transcript(transcript)
    assert pairing.call_results == {(2, 0): (3, 0)}
    assert pairing.request_responses == {(4, 0): (5, 0)}
    assert [CODEC.part_pointer(transcript, i, 0) for i in range(6)] == [
        "/0/content",
        "/1",
        "/2",
        "/3",
        "/4",
        "/5",
    ]


def test_pairing_uses_call_id_not_the_item_id() -> None:
    doc = [
        {"type": "function_call", "id": "fc_1", "call_id": "call_x", "name": "f", "arguments": ""},
        {"type": "function_call_output", "id": "fc_1", "call_id": "call_y", "output": "1"},
        {"type": "function_call_output", "call_id": "call_x", "output": "2"},
    ]
    pairing = pair_transcript(CODEC.decode(doc))
    assert pairing.call_results == {(0, 0): (2, 0)}
    assert pairing.orphan_results == ((1, 0),)


def test_message_items_in_easy_and_full_form() -> None:
    annotation = {"type": "url_citation", "url": "https://example.com", "start_index": 0}
    doc = {
        "model": "gpt-5",
        "instructions": "Be brief.",
        "input": [
            {
                "type": "message",
                "role": "developer",
                "content": [{"type": "input_text", "text": "Use metric."}],
            },
            {
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "What is this?"},
                    {"type": "input_image", "image_url": "https://example.com/a.png"},
                    {"type": "input_image", "file_id": "file-1", "detail": "low"},
                    {"type": "input_file", "file_url": "https://example.com/r.pdf"},
                    {"type": "input_audio", "input_audio": {"data": "AA", "format": "wav"}},
                    "stray",
                ],
            },
            {
                "type": "message",
                "id": "msg_1",
                "role": "assistant",
                "status": "completed",
                "phase": "final_answer",
                "content": [
                    {"type": "output_text", "text": "A cat.", "annotations": [annotation]},
                    {"type": "refusal", "refusal": "No more."},
                ],
            },
        ],
        "store": False,
    }
    transcript = CODEC.decode(doc)
    assert transcript.native is doc
    developer, user, assistant = transcript.messages
    assert developer.role == "developer" and developer.parts[0].kind == "text"
    kinds = [(p.kind, p.slot) for p in user.parts]
    assert (
        kinds
        == [("text", "content[]")] + [("media", "content[]")] * 3 + [("unknown", "content[]")] * 2
    )
    assert isinstance(user.parts[1], MediaPart) and user.parts[1].uri == "https://example.com/a.png"
    assert isinstance(user.parts[2], MediaPart) and user.parts[2].uri is None
    assert isinstance(user.parts[3], MediaPart) and user.parts[3].uri == "https://example.com/r.pdf"
    assert isinstance(user.parts[4], UnknownPart) and user.parts[4].type == "input_audio"
    assert isinstance(user.parts[5], UnknownPart) and user.parts[5].type is None
    assert assistant.id == "msg_1"
    text, refusal = assistant.parts
    assert isinstance(text, TextPart) and text.text == "A cat."
    assert text.native["annotations"] == [annotation]
    assert refusal == RefusalPart(
        text="No more.", native=doc["input"][2]["content"][1], slot="content[]"
    )
    assert CODEC.message_pointer(transcript, 2) == "/input/2"
    assert CODEC.part_pointer(transcript, 1, 4) == "/input/1/content/4"
    assert list(CODEC.encode(transcript)) == ["model", "instructions", "input", "store"]


def test_custom_and_client_run_calls_pair_with_their_outputs() -> None:
    screenshot = {"type": "computer_screenshot", "image_url": "data:image/png;base64,AA"}
    doc = [
        {"type": "custom_tool_call", "call_id": "c1", "name": "run_sql", "input": "SELECT 1"},
        {"type": "custom_tool_call_output", "call_id": "c1", "output": "1"},
        {
            "type": "computer_call",
            "id": "cu_1",
            "call_id": "c2",
            "actions": [{"type": "screenshot"}],
            "pending_safety_checks": [],
            "status": "completed",
        },
        {"type": "computer_call_output", "call_id": "c2", "output": screenshot},
        {
            "type": "local_shell_call",
            "id": "lsh_1",
            "call_id": "c3",
            "action": {"type": "exec", "command": ["ls"], "env": {}},
            "status": "completed",
        },
        {"type": "local_shell_call_output", "id": "c3", "output": "a.py"},
        {"type": "shell_call", "call_id": "c4", "action": {"commands": ["ls"]}},
        {"type": "shell_call_output", "call_id": "c4", "output": []},
        {
            "type": "apply_patch_call",
            "call_id": "c5",
            "operation": {"type": "delete_file", "path": "a.py"},
            "status": "completed",
        },
        {"type": "apply_patch_call_output", "call_id": "c5", "status": "failed", "output": "no"},
    ]
    transcript = CODEC.decode(doc)
    calls = [m.parts[0] for m in transcript.messages[::2]]
    results = [m.parts[0] for m in transcript.messages[1::2]]
    assert all(isinstance(c, ToolCallPart) for c in calls)
    assert all(isinstance(r, ToolResultPart) for r in results)
    assert (
        [c.call_id for c in calls] == [r.call_id for r in results] == ["c1", "c2", "c3", "c4", "c5"]
    )
    assert [c.family for c in calls] == [ToolFamily.CUSTOM] + [ToolFamily.FUNCTION] * 4
    assert [c.arguments for c in calls] == [
        "SELECT 1",
        [{"type": "screenshot"}],
        doc[4]["action"],
        {"commands": ["ls"]},
        {"type": "delete_file", "path": "a.py"},
    ]
    assert results[1].content == screenshot
    assert [r.is_error for r in results] == [False, False, False, False, True]
    assert [m.role for m in transcript.messages] == ["assistant", "tool"] * 5
    pairing = pair_transcript(transcript)
    assert len(pairing.call_results) == 5 and not pairing.unmatched_calls


def test_handoff_calls_are_the_handoff_family() -> None:
    doc = [
        {"type": "function_call", "call_id": "h", "name": "handoff_to_billing", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "h", "output": "{}"},
    ]
    call, result = (m.parts[0] for m in CODEC.decode(doc).messages)
    assert call.family is ToolFamily.HANDOFF
    assert pair_transcript(CODEC.decode(doc)).call_results == {(0, 0): (1, 0)}
    assert isinstance(result, ToolResultPart)


def test_reasoning_keeps_encrypted_content_verbatim_and_joins_the_summary() -> None:
    item = {
        "type": "reasoning",
        "id": "rs_2",
        "summary": [
            {"type": "summary_text", "text": "First."},
            {"type": "summary_text", "text": "Second."},
        ],
        "encrypted_content": "gAAAAABo==",
        "status": "completed",
    }
    (part,) = CODEC.decode([item]).messages[0].parts
    assert isinstance(part, ReasoningPart)
    assert (part.text, part.opaque) == ("First.\n\nSecond.", "gAAAAABo==")


@pytest.mark.parametrize(
    "item",
    [
        {"type": "web_search_call", "id": "ws", "status": "completed", "action": {}},
        {"type": "file_search_call", "id": "fs", "queries": [], "status": "completed"},
        {"type": "code_interpreter_call", "id": "ci", "code": "1", "outputs": None},
        {"type": "image_generation_call", "id": "ig", "result": None, "status": "failed"},
        {"type": "tool_search_call", "arguments": {}, "execution": "server"},
        {"type": "mcp_call", "id": "mcp", "server_label": "g", "name": "n", "arguments": ""},
        {"type": "mcp_list_tools", "id": "l", "server_label": "g", "tools": []},
        {"type": "item_reference", "id": "msg_1"},
        {"id": "msg_1"},
        {"type": "compaction", "encrypted_content": "gAAAA"},
        {"type": "future_item", "payload": [1, 2]},
    ],
)
def test_hosted_and_other_items_are_unknown_parts(item: dict[str, Any]) -> None:
    doc = [{"role": "user", "content": "go"}, item, {"role": "user", "content": "next"}]
    transcript = CODEC.decode(doc)
    (part,) = transcript.messages[1].parts
    assert part == UnknownPart(type=item.get("type"), native=item, slot="item")
    assert transcript.messages[1].role == "assistant"
    pairing = pair_transcript(transcript)
    assert not pairing.unmatched_calls and not pairing.orphan_results


def test_unknown_item_with_a_role_keeps_it() -> None:
    item = {"type": "additional_tools", "role": "developer", "tools": []}
    assert CODEC.decode([item]).messages[0].role == "developer"


def test_function_call_output_without_call_id_pairs_by_position() -> None:
    doc = [
        {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"},
        {"type": "function_call_output", "output": "x", "caller": {"type": "program"}},
    ]
    (result,) = CODEC.decode(doc).messages[1].parts
    assert isinstance(result, ToolResultPart) and result.call_id is None


def test_empty_call_ids_are_ordinary_ids() -> None:
    doc = [
        {"type": "function_call", "call_id": "", "name": "f", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "", "output": "x"},
    ]
    transcript = CODEC.decode(doc)
    assert transcript.messages[0].parts[0].call_id == ""  # type: ignore[union-attr]
    assert pair_transcript(transcript).call_results == {(0, 0): (1, 0)}


def test_input_string_is_one_user_message() -> None:
    doc = {"model": "gpt-5", "input": "Hello", "store": True}
    transcript = CODEC.decode(doc)
    (message,) = transcript.messages
    assert message.role == "user"
    assert message.parts == (TextPart(text="Hello", native="Hello", slot="input"),)
    assert CODEC.message_pointer(transcript, 0) == "/input"
    assert CODEC.part_pointer(transcript, 0, 0) == "/input"
    assert dump(CODEC.encode(transcript)) == dump(doc)
    edited = with_parts(transcript, 0, TextPart(text="Hi", native="Hello", slot="input"))
    assert CODEC.encode(edited) == {"model": "gpt-5", "input": "Hi", "store": True}


def test_input_string_becomes_an_item_list_when_messages_are_added() -> None:
    transcript = CODEC.decode({"input": "Hello"})
    reply = Message(role="assistant", parts=(TextPart(text="Hi!"),))
    out = CODEC.encode(with_messages(transcript, *transcript.messages, reply))
    assert out == {
        "input": [
            {"type": "message", "role": "user", "content": "Hello"},
            {"type": "message", "role": "assistant", "content": "Hi!"},
        ]
    }


@pytest.mark.parametrize(
    ("doc", "expected"),
    [
        (SPEC_EXAMPLE, 0.95),
        ({"input": [{"role": "user", "content": "hi"}]}, 0.6),
        ({"input": []}, 0.6),
        ({"model": "gpt-5", "input": "hi"}, 0.2),
        ([{"role": "user", "content": [{"type": "input_text", "text": "hi"}]}], 0.9),
        ([{"type": "reasoning", "id": "rs", "summary": []}], 0.95),
        ([{"role": "user", "content": "ambiguous"}], 0.0),
        ([{"role": "assistant", "content": [{"type": "refusal", "refusal": "no"}]}], 0.0),
        ({"messages": [{"type": "message", "role": "user", "content": "hi"}]}, 0.0),
        ([{"role": "user", "content": [{"type": "text", "text": "chat or anthropic"}]}], 0.0),
        ([{"role": "user", "parts": [{"text": "gemini"}]}, {"type": "message"}], 0.0),
        ([{"role": "user", "contents": [{"$type": "text", "text": "meai"}]}], 0.0),
        ([{"role": "assistant", "tool_calls": []}, {"type": "function_call"}], 0.0),
        ([{"type": "human", "data": {"content": "langchain"}}], 0.0),
        ([], 0.0),
        ("hello", 0.0),
        ([1, {"type": "message"}], 0.0),
        ({"input": 5}, 0.0),
    ],
)
def test_sniff(doc: Any, expected: float) -> None:
    assert CODEC.sniff(doc) == expected


# --- encoding after model edits --------------------------------------------------------


def _parallel() -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "Weather in Paris and Rome?"},
        {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAAA"},
        {
            "type": "function_call",
            "id": "fc_p",
            "call_id": "call_p",
            "name": "get_weather",
            "arguments": '{"city":"Paris"}',
            "status": "completed",
        },
        {
            "type": "function_call",
            "id": "fc_r",
            "call_id": "call_r",
            "name": "get_weather",
            "arguments": '{"city":"Rome"}',
            "status": "completed",
        },
        {"type": "function_call_output", "call_id": "call_p", "output": "12 C"},
    ]


def test_dropping_a_call_message_drops_its_item() -> None:
    doc = _parallel()
    transcript = CODEC.decode(doc)
    messages = transcript.messages
    out = CODEC.encode(with_messages(transcript, *messages[:3], *messages[4:]))
    assert dump(out) == dump([*doc[:3], doc[4]])
    assert out[0] is doc[0] and out[3] is doc[4]


def test_dropping_a_result_message_drops_its_item() -> None:
    doc = _parallel()
    transcript = CODEC.decode(doc)
    out = CODEC.encode(with_messages(transcript, *transcript.messages[:4]))
    assert dump(out) == dump(doc[:4])


def test_a_message_emptied_of_parts_is_an_empty_message_item() -> None:
    doc = _parallel()
    transcript = CODEC.decode(doc)
    emptied = with_parts(with_parts(transcript, 3), 0)
    out = CODEC.encode(emptied)
    assert out[3] == {"type": "message", "role": "assistant", "content": []}
    assert out[0] == {"role": "user", "content": []}
    again = CODEC.decode(out)
    assert again.messages[3].parts == () and again.messages[0].parts == ()
    assert dump(CODEC.encode(again)) == dump(out)


def test_synthesized_result_is_a_function_call_output_item() -> None:
    doc = _parallel()
    transcript = CODEC.decode(doc)
    new = Message(
        role="tool",
        parts=(
            ToolResultPart(
                call_id="call_r",
                content="interrupted",
                is_error=True,
                metadata={SYNTHESIZED_KEY: True},
            ),
        ),
    )
    out = CODEC.encode(with_messages(transcript, *transcript.messages, new))
    assert dump(out[:5]) == dump(doc)
    assert out[5] == {"type": "function_call_output", "call_id": "call_r", "output": "interrupted"}
    assert pair_transcript(CODEC.decode(out)).call_results == {(2, 0): (4, 0), (3, 0): (5, 0)}


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        (
            {"type": "custom_tool_call", "call_id": "k", "name": "sql", "input": "x"},
            {"type": "custom_tool_call_output", "call_id": "k", "output": "oops"},
        ),
        (
            {
                "type": "local_shell_call",
                "id": "lsh",
                "call_id": "k",
                "action": {"type": "exec", "command": ["ls"], "env": {}},
                "status": "completed",
            },
            {"type": "local_shell_call_output", "id": "k", "output": "oops"},
        ),
        (
            {"type": "apply_patch_call", "call_id": "k", "operation": {}, "status": "completed"},
            {
                "type": "apply_patch_call_output",
                "call_id": "k",
                "status": "failed",
                "output": "oops",
            },
        ),
        (
            {"type": "shell_call", "call_id": "k", "action": {"commands": ["ls"]}},
            {
                "type": "shell_call_output",
                "call_id": "k",
                "output": [
                    {"stdout": "", "stderr": "oops", "outcome": {"type": "exit", "exit_code": 1}}
                ],
            },
        ),
    ],
    ids=["custom", "local_shell", "apply_patch", "shell"],
)
def test_new_result_takes_the_output_type_of_its_call(
    call: dict[str, Any], expected: dict[str, Any]
) -> None:
    transcript = CODEC.decode([call])
    result = ToolResultPart(call_id="k", content="oops", is_error=True)
    out = CODEC.encode(
        with_messages(transcript, *transcript.messages, Message(role="tool", parts=(result,)))
    )
    assert out == [call, expected]
    assert pair_transcript(CODEC.decode(out)).call_results == {(0, 0): (1, 0)}


def test_new_result_for_a_computer_call_needs_a_screenshot() -> None:
    call = {
        "type": "computer_call",
        "id": "cu",
        "call_id": "k",
        "action": {"type": "screenshot"},
        "pending_safety_checks": [],
        "status": "completed",
    }
    transcript = CODEC.decode([call])
    result = Message(role="tool", parts=(ToolResultPart(call_id="k", content="interrupted"),))
    with pytest.raises(HistnormError, match="computer_screenshot"):
        CODEC.encode(with_messages(transcript, *transcript.messages, result))


def test_moving_a_result_keeps_the_item_object() -> None:
    doc = _parallel()
    transcript = CODEC.decode(doc)
    m = transcript.messages
    out = CODEC.encode(with_messages(transcript, m[0], m[1], m[2], m[4], m[3]))
    assert out == [doc[0], doc[1], doc[2], doc[4], doc[3]]
    assert out[3] is doc[4]


def test_moving_a_result_part_into_a_new_message_keeps_its_item() -> None:
    doc = _parallel()
    transcript = CODEC.decode(doc)
    m = transcript.messages
    clone = Message(role="tool", parts=m[4].parts)
    out = CODEC.encode(with_messages(transcript, *m[:4], clone))
    assert out[4] is doc[4]


def test_new_calls_and_text_split_into_items() -> None:
    transcript = Transcript(
        messages=(
            Message(
                role="assistant",
                parts=(
                    TextPart(text="Checking."),
                    ToolCallPart(call_id="c1", name="f", arguments={"a": [1, True]}),
                    ToolCallPart(
                        call_id="c2", name="sql", arguments="SELECT 1", family=ToolFamily.CUSTOM
                    ),
                    ToolCallPart(call_id="c3", name="g", arguments=None),
                    ReasoningPart(text="Because.", opaque="enc"),
                ),
            ),
            Message(
                role="tool",
                parts=(
                    ToolResultPart(call_id="c1", content={"ok": True}),
                    ToolResultPart(call_id="c2", content="1"),
                    ToolResultPart(call_id="c3", content=None),
                ),
            ),
        ),
        format="openai-responses",
    )
    out = CODEC.encode(transcript)
    assert out == [
        {"type": "message", "role": "assistant", "content": "Checking."},
        {"type": "function_call", "call_id": "c1", "name": "f", "arguments": '{"a":[1,true]}'},
        {"type": "custom_tool_call", "call_id": "c2", "name": "sql", "input": "SELECT 1"},
        {"type": "function_call", "call_id": "c3", "name": "g", "arguments": "{}"},
        {
            "type": "reasoning",
            "summary": [{"type": "summary_text", "text": "Because."}],
            "encrypted_content": "enc",
        },
        {"type": "function_call_output", "call_id": "c1", "output": '{"ok":true}'},
        {"type": "custom_tool_call_output", "call_id": "c2", "output": "1"},
        {"type": "function_call_output", "call_id": "c3", "output": ""},
    ]
    assert "id" not in out[1]  # an `id` must start with `fc`: a new call has none
    assert len(pair_transcript(CODEC.decode(out)).call_results) == 3


def test_new_message_parts_are_written_in_native_shape() -> None:
    transcript = Transcript(
        messages=(
            Message(
                role="user",
                parts=(
                    TextPart(text="Look:"),
                    MediaPart(uri="https://example.com/a.png"),
                    MediaPart(uri="https://example.com/a.pdf", media_type="application/pdf"),
                ),
            ),
            Message(role="assistant", parts=(TextPart(text="No."), RefusalPart(text="Nope."))),
            Message(role="assistant"),
        )
    )
    assert CODEC.encode(transcript) == [
        {
            "type": "message",
            "role": "user",
            "content": [
                {"type": "input_text", "text": "Look:"},
                {"type": "input_image", "image_url": "https://example.com/a.png"},
                {"type": "input_file", "file_url": "https://example.com/a.pdf"},
            ],
        },
        {
            "type": "message",
            "role": "assistant",
            "content": [
                {"type": "output_text", "text": "No.", "annotations": []},
                {"type": "refusal", "refusal": "Nope."},
            ],
        },
        {"type": "message", "role": "assistant", "content": []},
    ]


def test_edited_parts_keep_their_unknown_keys_in_place() -> None:
    doc = [
        {
            "x_vendor": 1,
            "type": "message",
            "role": "assistant",
            "id": "msg_1",
            "content": [
                {"type": "output_text", "text": "old", "annotations": [], "logprobs": []},
                {"type": "output_text", "text": "keep", "annotations": []},
            ],
            "status": "completed",
        },
        {
            "type": "function_call",
            "id": "fc_1",
            "call_id": "old",
            "name": "f",
            "arguments": "{}",
            "status": "completed",
            "x_trace": "t",
        },
    ]
    transcript = CODEC.decode(doc)
    first, second = transcript.messages[0].parts
    (call,) = transcript.messages[1].parts
    edited = with_parts(with_parts(transcript, 0, first.evolve(text="new"), second), 1)
    edited = with_parts(edited, 1, call.evolve(call_id="new"))
    out = CODEC.encode(edited)
    expected = copy.deepcopy(doc)
    expected[0]["content"][0]["text"] = "new"
    expected[1]["call_id"] = "new"
    assert dump(out) == dump(expected)
    assert out[0]["content"][1] is doc[0]["content"][1]


def test_dropping_a_content_part_keeps_the_message_item() -> None:
    doc = [
        {
            "role": "user",
            "content": [
                {"type": "input_text", "text": ""},
                {"type": "input_text", "text": "Hi"},
            ],
        }
    ]
    transcript = CODEC.decode(doc)
    out = CODEC.encode(with_parts(transcript, 0, transcript.messages[0].parts[1]))
    assert out == [{"role": "user", "content": [{"type": "input_text", "text": "Hi"}]}]


def test_edited_string_content_stays_a_string() -> None:
    doc = [{"role": "user", "content": "old", "type": "message"}]
    transcript = CODEC.decode(doc)
    out = CODEC.encode(
        with_parts(transcript, 0, TextPart(text="new", native="old", slot="content"))
    )
    assert out == [{"role": "user", "content": "new", "type": "message"}]


def test_denied_mcp_approval_is_written_as_a_function_call_and_output() -> None:
    transcript = CODEC.decode(copy.deepcopy(SPEC_EXAMPLE[4:5]))
    (request,) = transcript.messages[0].parts
    assert isinstance(request, ApprovalRequestPart) and request.tool_call is not None
    call = request.tool_call.evolve(informational=True)
    result = ToolResultPart(call_id=None, content="rejected", family=ToolFamily.MCP)
    edited = with_parts(transcript, 0, call)
    out = CODEC.encode(
        with_messages(edited, *edited.messages, Message(role="tool", parts=(result,)))
    )
    assert out == [
        {"type": "function_call", "call_id": "", "name": "push", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "", "output": "rejected"},
    ]


def test_edited_approval_items_keep_their_keys() -> None:
    doc = copy.deepcopy(SPEC_EXAMPLE[4:])
    transcript = CODEC.decode(doc)
    (request,), (response,) = (m.parts for m in transcript.messages)
    assert isinstance(request, ApprovalRequestPart) and request.tool_call is not None
    new_call = request.tool_call.evolve(arguments={"force": True})
    edited = with_parts(transcript, 0, request.evolve(tool_call=new_call))
    edited = with_parts(edited, 1, response.evolve(approved=True, reason=None))
    out = CODEC.encode(edited)
    assert out[0] == {**doc[0], "arguments": '{"force":true}'}
    assert list(out[1]) == ["type", "approval_request_id", "approve", "reason"]
    assert out[1]["approve"] is True and out[1]["reason"] is None


def test_edited_reasoning_keeps_the_encrypted_content() -> None:
    doc = [{"type": "reasoning", "id": "rs", "summary": [], "encrypted_content": "enc"}]
    transcript = CODEC.decode(doc)
    (part,) = transcript.messages[0].parts
    out = CODEC.encode(with_parts(transcript, 0, part.evolve(text="Summary.")))
    assert out == [
        {
            "type": "reasoning",
            "id": "rs",
            "summary": [{"type": "summary_text", "text": "Summary."}],
            "encrypted_content": "enc",
        }
    ]


def test_message_id_edits_are_written() -> None:
    doc = [{"type": "function_call", "id": "fc_1", "call_id": "c", "name": "f", "arguments": ""}]
    transcript = CODEC.decode(doc)
    stripped = transcript.evolve(messages=(transcript.messages[0].evolve(id=None),))
    assert CODEC.encode(stripped) == [
        {"type": "function_call", "call_id": "c", "name": "f", "arguments": ""}
    ]


@pytest.mark.parametrize(
    ("part", "what"),
    [
        (UsagePart(details={"input_tokens": 1}), "usage"),
        (UnknownPart(type="x"), "unknown"),
        (
            ApprovalRequestPart(
                request_id="r", tool_call=ToolCallPart(call_id="c", name="rm", arguments={})
            ),
            "function call",
        ),
    ],
)
def test_parts_the_format_cannot_express_raise(part: Any, what: str) -> None:
    transcript = Transcript(messages=(Message(role="assistant", parts=(part,)),))
    with pytest.raises(HistnormError, match=what):
        CODEC.encode(transcript)


# --- bad input -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("doc", "pointer"),
    [
        ([{"role": "user", "content": "hi"}, "not an item"], "/1"),
        ({"input": [{"role": "user", "content": "hi"}, 5]}, "/input/1"),
        ({"input": None}, "/input"),
        ({"input": {"role": "user"}}, "/input"),
        ({"messages": []}, ""),
        ("text", ""),
        (None, ""),
        ([{"type": 7}], "/0/type"),
        ([{"type": "message", "content": "x"}], "/0/role"),
        ([{"role": 1, "content": "x"}], "/0/role"),
        ([{"role": "user"}], "/0/content"),
        ([{"role": "user", "content": 4}], "/0/content"),
        ([{"role": "user", "content": {"type": "input_text"}}], "/0/content"),
        ([{"role": "user", "content": "x", "id": 5}], "/0/id"),
        ([{"type": "function_call", "name": "f", "arguments": "{}"}], "/0/call_id"),
        ([{"type": "function_call", "call_id": None, "name": "f"}], "/0/call_id"),
        ([{"type": "function_call", "call_id": "c", "name": 3}], "/0/name"),
        ([{"type": "function_call", "call_id": "c", "id": ["fc"]}], "/0/id"),
        ({"input": [{"type": "function_call_output", "call_id": 9}]}, "/input/0/call_id"),
        ([{"type": "custom_tool_call_output", "output": "x"}], "/0/call_id"),
        ([{"type": "local_shell_call_output", "output": "x"}], "/0/id"),
        ([{"type": "computer_call", "id": "cu"}], "/0/call_id"),
        ([{"type": "reasoning", "id": "rs", "summary": "no"}], "/0/summary"),
        ([{"type": "mcp_approval_request", "name": "push"}], "/0/id"),
        ([{"type": "mcp_approval_response", "approve": True}], "/0/approval_request_id"),
        (
            [{"type": "mcp_approval_response", "approval_request_id": "r", "approve": "yes"}],
            "/0/approve",
        ),
        (
            [{"type": "mcp_approval_response", "approval_request_id": "r", "reason": 1}],
            "/0/reason",
        ),
    ],
)
def test_bad_input_raises_histnorm_error_with_pointer(doc: Any, pointer: str) -> None:
    with pytest.raises(HistnormError) as info:
        CODEC.decode(doc)
    assert info.value.pointer == pointer


# --- fixtures (their round trip and detection: test_codec_contract.py) ------------------


def test_fixture_contents_decode_as_expected() -> None:
    def load(name: str) -> Transcript:
        return CODEC.decode(jsonio.loads((FIXTURES / name).read_bytes()))

    weather = load("weather-function-call.json")
    assert isinstance(weather.native, dict) and weather.native["store"] is False
    reasoning, call, result = (m.parts[0] for m in weather.messages[1:4])
    assert isinstance(reasoning, ReasoningPart) and str(reasoning.opaque).startswith("gAAAA")
    assert isinstance(call, ToolCallPart) and isinstance(result, ToolResultPart)
    assert (call.call_id, weather.messages[2].id) == ("call_Xk29sLpQ7vNm", "fc_68a1c0e3b7d48190b2")
    assert result.call_id == call.call_id

    parallel = pair_transcript(load("parallel-calls.json"))
    assert parallel.call_results == {(3, 0): (5, 0), (4, 0): (6, 0)}

    mcp = load("mcp-approval.json")
    kinds = [m.parts[0].kind for m in mcp.messages]
    assert kinds.count("approval_request") == kinds.count("approval_response") == 2
    approvals = pair_transcript(mcp)
    assert approvals.request_responses == {(2, 0): (3, 0), (7, 0): (8, 0)}
    assert not approvals.unmatched_calls and not approvals.pending_requests

    hosted = load("hosted-tools.json")
    assert [m.parts[0].kind for m in hosted.messages[1:5]] == ["unknown"] * 4
    assert not pair_transcript(hosted).unmatched_calls

    client = pair_transcript(load("client-tools.json"))
    assert len(client.call_results) == 5
    assert not client.unmatched_calls and not client.orphan_results

    parts = load("content-parts.json")
    assert [p.kind for p in parts.messages[1].parts] == ["text", "media", "media", "media", "media"]
    assert [m.parts[0].kind for m in parts.messages[2:]] == [
        "refusal",
        "text",
        "unknown",
        "unknown",
    ]

    summary = load("reasoning-summary.json")
    first = summary.messages[1].parts[0]
    assert isinstance(first, ReasoningPart) and first.text is not None
    assert first.text.count("\n\n**") == 1


def test_edited_outputs_keep_their_item_shape() -> None:
    doc = [
        {"type": "apply_patch_call_output", "call_id": "a", "status": "completed", "x": 1},
        {"type": "local_shell_call_output", "id": "b", "output": "ok"},
        {"type": "function_call_output", "call_id": "c", "output": "old", "name": "f"},
    ]
    transcript = CODEC.decode(doc)
    patch, shell, function = (m.parts[0] for m in transcript.messages)
    edited = with_parts(transcript, 0, patch.evolve(is_error=True, content="conflict"))
    edited = with_parts(edited, 1, shell.evolve(call_id="b2"))
    edited = with_parts(edited, 2, function.evolve(native=None, content="new"))
    assert CODEC.encode(edited) == [
        {
            "type": "apply_patch_call_output",
            "call_id": "a",
            "status": "failed",
            "x": 1,
            "output": "conflict",
        },
        {"type": "local_shell_call_output", "id": "b2", "output": "ok"},
        {"type": "function_call_output", "call_id": "c", "output": "new"},
    ]


def test_edited_client_call_keeps_its_arguments_key() -> None:
    doc = [
        {
            "type": "computer_call",
            "id": "cu",
            "call_id": "c",
            "actions": [],
            "pending_safety_checks": [],
            "status": "completed",
        }
    ]
    transcript = CODEC.decode(doc)
    (call,) = transcript.messages[0].parts
    out = CODEC.encode(with_parts(transcript, 0, call.evolve(arguments=[{"type": "wait"}])))
    assert out == [{**doc[0], "actions": [{"type": "wait"}]}]


def test_id_edits_leave_unchanged_parts_as_they_were() -> None:
    doc = [
        {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "enc"},
        {"type": "mcp_approval_request", "id": "r", "server_label": "s", "name": "n"},
        {"role": "user", "id": "msg_1", "content": [{"type": "input_text", "text": "hi"}]},
        {"type": "local_shell_call_output", "id": "call_1", "output": "ok"},
    ]
    transcript = CODEC.decode(doc)
    assert [m.id for m in transcript.messages] == ["rs_1", None, "msg_1", None]
    messages = tuple(m.evolve(id=None) for m in transcript.messages)
    out = CODEC.encode(transcript.evolve(messages=messages))
    assert out[0] == {"type": "reasoning", "summary": [], "encrypted_content": "enc"}
    assert out[1] == {"type": "mcp_approval_request", "id": "r", "server_label": "s", "name": "n"}
    assert out[2] == {"role": "user", "content": doc[2]["content"]}
    assert out[2]["content"][0] is doc[2]["content"][0]
    assert out[3] is doc[3]


def test_new_mcp_approvals_and_unknown_content_parts() -> None:
    call = ToolCallPart(call_id=None, name="push", arguments={"b": 1}, family=ToolFamily.MCP)
    stray = {"type": "input_audio", "input_audio": {"data": "AA", "format": "wav"}}
    transcript = Transcript(
        messages=(
            Message(role="assistant", parts=(ApprovalRequestPart(request_id="r", tool_call=call),)),
            Message(role="user", parts=(ApprovalResponsePart(request_id="r", approved=True),)),
            Message(
                role="user",
                parts=(
                    UnknownPart(type="input_audio", native=stray, slot="content[]"),
                    MediaPart(),
                ),
            ),
            Message(
                role="assistant",
                parts=(ToolCallPart(call_id="k", arguments={"q": 1}, family=ToolFamily.CUSTOM),),
            ),
        )
    )
    assert CODEC.encode(transcript) == [
        {"type": "mcp_approval_request", "id": "r", "name": "push", "arguments": '{"b":1}'},
        {"type": "mcp_approval_response", "approval_request_id": "r", "approve": True},
        {"type": "message", "role": "user", "content": [stray, {"type": "input_image"}]},
        {"type": "custom_tool_call", "call_id": "k", "name": "", "input": '{"q":1}'},
    ]
    lone = Transcript(
        messages=(Message(role="assistant", parts=(ApprovalRequestPart(request_id="r"),)),)
    )
    with pytest.raises(HistnormError, match="without a tool call"):
        CODEC.encode(lone)
