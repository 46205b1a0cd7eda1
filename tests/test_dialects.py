"""Dialects whose calls histnorm must see (issue #10, items 3 and 4).

LLaMA-Factory v1 parts (`{"type": "text" | "reasoning" | "tool_call", "value": ...}`) and
TRL's `"type": "tool"` calls are read by the `chat-template` codec; OpenAI Responses
bodies that continue server-side state (`previous_response_id`, `conversation`) and
client-run `tool_search_call` items by the `openai-responses` codec. In each, a tool
result whose call is present (or may live on the server) is never HN002 and never dropped.
Fixtures are ours, modelled on the real shapes (fixtures/formats/<format>/).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import strategies_dialects
from codec_helpers import PROPERTY_SETTINGS, dump, fixture_documents, resolve
from hypothesis import given, settings

import histnorm
from histnorm import jsonio
from histnorm.formats import detect_format, get_codec, outline_of
from histnorm.model import (
    MediaPart,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    Transcript,
    UnknownPart,
)
from histnorm.pairing import pair_transcript
from histnorm.settings import OrphanCallPolicy, TailMode

ROOT = Path(__file__).resolve().parent.parent
V1 = ROOT / "fixtures" / "formats" / "chat-template" / "llamafactory-v1.jsonl"
TRL = ROOT / "fixtures" / "formats" / "chat-template" / "trl-tool-type.json"
SERVER = ROOT / "fixtures" / "formats" / "openai-responses" / "server-state.jsonl"
CHAT = get_codec("chat-template")
RESPONSES = get_codec("openai-responses")
PROPERTY = settings(PROPERTY_SETTINGS["chat-template"], max_examples=25)


def documents(path: Path) -> list[Any]:
    return [value for _, value in fixture_documents(path)]


def problems(doc: Any, **options: Any) -> list[str]:
    """The codes of every error and warning histnorm reports on `doc`."""
    return [d.code for d in histnorm.lint(doc, **options) if d.severity.value != "info"]


def unchanged_by_fix(doc: Any, **options: Any) -> bool:
    result = histnorm.fix(doc, **options)
    return not result.changed and dump(histnorm.encode(result.transcript)) == dump(doc)


def calls_and_results(transcript: Transcript) -> tuple[list[Any], list[Any]]:
    parts = [p for m in transcript.messages for p in m.parts]
    return (
        [p for p in parts if isinstance(p, ToolCallPart)],
        [p for p in parts if isinstance(p, ToolResultPart)],
    )


# --- LLaMA-Factory v1 parts ------------------------------------------------------------


@pytest.mark.parametrize("doc", documents(V1), ids=["text", "tool-call", "parallel"])
def test_v1_records_are_detected_as_chat_template_and_round_trip(doc: Any) -> None:
    assert detect_format(doc) == "chat-template"
    assert dump(CHAT.encode(CHAT.decode(doc))) == dump(doc)


def test_v1_parts_are_text_reasoning_and_position_paired_calls() -> None:
    doc = documents(V1)[1]
    transcript = CHAT.decode(doc)
    assistant = transcript.messages[2].parts
    assert isinstance(assistant[0], ReasoningPart)
    assert assistant[0].text.startswith("I need the current weather")
    call = assistant[1]
    assert isinstance(call, ToolCallPart)
    assert (call.call_id, call.name, call.arguments) == (None, "get_weather", {"city": "Tromsø"})
    (result,) = transcript.messages[3].parts
    assert isinstance(result, ToolResultPart)
    assert result.content == '{"rain_mm": 1.2, "temp_c": 3}'
    assert pair_transcript(transcript).result_calls == {(3, 0): (2, 1)}
    assert isinstance(transcript.messages[4].parts[0], TextPart)


@pytest.mark.parametrize("doc", documents(V1), ids=["text", "tool-call", "parallel"])
def test_v1_tool_results_are_not_orphans_and_fix_keeps_every_record(doc: Any) -> None:
    assert problems(doc) == []
    assert unchanged_by_fix(doc)
    assert unchanged_by_fix(doc, tail=TailMode.CLOSE)


def test_parallel_v1_calls_pair_in_order() -> None:
    transcript = CHAT.decode(documents(V1)[2])
    assert pair_transcript(transcript).result_calls == {(2, 0): (1, 1), (3, 0): (1, 2)}


def test_a_v1_result_without_any_call_is_still_an_orphan() -> None:
    doc = documents(V1)[1]
    messages = [m for i, m in enumerate(doc["messages"]) if i != 2]
    assert "HN002" in problems({**doc, "messages": messages})


def test_an_unanswered_v1_call_gets_a_v1_tool_message() -> None:
    doc = documents(V1)[1]
    cut = {**doc, "messages": doc["messages"][:3] + doc["messages"][4:]}
    result = histnorm.fix(cut, orphan_tool_call=OrphanCallPolicy.SYNTHESIZE)
    out = histnorm.encode(result.transcript)
    synthesized = out["messages"][3]
    assert synthesized["role"] == "tool"
    assert synthesized["content"] == [
        {"type": "text", "value": "Tool call was interrupted before it produced a result."}
    ]
    assert synthesized["loss_weight"] == 0.0
    assert out["messages"][:3] == cut["messages"][:3]
    assert out["messages"][4:] == cut["messages"][3:]


def test_an_edited_v1_call_is_written_back_as_a_v1_part() -> None:
    transcript = CHAT.decode(documents(V1)[1])
    message = transcript.messages[2]
    call = message.parts[1]
    edited = call.evolve(arguments={"city": "Bodø"}, native=None)
    parts = (message.parts[0], edited)
    messages = list(transcript.messages)
    messages[2] = message.evolve(parts=parts)
    out = CHAT.encode(transcript.evolve(messages=tuple(messages)))
    written = out["messages"][2]
    assert "tool_calls" not in written
    assert written["content"][1]["type"] == "tool_call"
    assert jsonio.loads(written["content"][1]["value"]) == {
        "name": "get_weather",
        "arguments": {"city": "Bodø"},
    }
    assert written["loss_weight"] == 1.0


def test_a_v1_image_part_is_media_and_keeps_the_record_v1() -> None:
    doc = [{"role": "user", "content": [{"type": "image_url", "value": "data/cat.png"}]}]
    assert detect_format(doc) == "chat-template"
    (part,) = CHAT.decode(doc).messages[0].parts
    assert isinstance(part, MediaPart) and part.uri == "data/cat.png"
    assert dump(CHAT.encode(CHAT.decode(doc))) == dump(doc)


def test_a_malformed_v1_tool_call_is_kept_as_unknown_content() -> None:
    doc = [{"role": "assistant", "content": [{"type": "tool_call", "value": "not json"}]}]
    (part,) = CHAT.decode(doc).messages[0].parts
    assert isinstance(part, UnknownPart) and part.type == "tool_call"
    assert dump(CHAT.encode(CHAT.decode(doc))) == dump(doc)


# --- TRL `"type": "tool"` calls ---------------------------------------------------------


def test_trl_tool_type_calls_are_calls_with_object_arguments() -> None:
    (doc,) = documents(TRL)
    assert detect_format(doc) == "chat-template"
    transcript = CHAT.decode(doc)
    (call,), (result,) = calls_and_results(transcript)
    assert (call.call_id, call.name) == (None, "route_duration")
    assert (result.call_id, result.content) == (None, "about 7 hours")
    assert call.arguments == {"origin": "Oslo", "destination": "Bergen"}
    assert pair_transcript(transcript).result_calls == {(2, 0): (1, 0)}
    assert dump(CHAT.encode(transcript)) == dump(doc)
    assert problems(doc) == []
    assert unchanged_by_fix(doc)


def test_an_edited_trl_call_keeps_its_type() -> None:
    (doc,) = documents(TRL)
    transcript = CHAT.decode(doc)
    message = transcript.messages[1]
    edited = message.parts[0].evolve(arguments={"origin": "Oslo", "destination": "Ålesund"})
    messages = list(transcript.messages)
    messages[1] = message.evolve(parts=(edited,))
    out = CHAT.encode(transcript.evolve(messages=tuple(messages)))
    (written,) = out["messages"][1]["tool_calls"]
    assert written["type"] == "tool"
    assert written["function"]["arguments"] == {"origin": "Oslo", "destination": "Ålesund"}


# --- OpenAI Responses server-side state -------------------------------------------------


def test_a_continuation_marks_the_transcript_with_its_server_state() -> None:
    previous, conversation, *_ = documents(SERVER)
    assert RESPONSES.decode(previous).server_state == "previous_response_id"
    assert RESPONSES.decode(conversation).server_state == "conversation"
    plain = {k: v for k, v in previous.items() if k != "previous_response_id"}
    assert RESPONSES.decode(plain).server_state is None


@pytest.mark.parametrize("index", [0, 1])
def test_an_output_whose_call_lives_on_the_server_is_kept(index: int) -> None:
    doc = documents(SERVER)[index]
    assert detect_format(doc) == "openai-responses"
    transcript = RESPONSES.decode(doc)
    assert pair_transcript(transcript).orphan_results == ()
    assert pair_transcript(transcript).server_results == ((0, 0),)
    assert problems(doc) == []
    assert unchanged_by_fix(doc)
    assert unchanged_by_fix(doc, tail=TailMode.CLOSE)


def test_without_server_state_the_same_output_is_an_orphan() -> None:
    doc = documents(SERVER)[0]
    plain = {k: v for k, v in doc.items() if k != "previous_response_id"}
    assert "HN002" in problems(plain)


def test_an_empty_or_null_previous_response_id_is_no_server_state() -> None:
    doc = documents(SERVER)[0]
    for value in (None, ""):
        assert RESPONSES.decode({**doc, "previous_response_id": value}).server_state is None


def test_a_call_in_a_continuation_still_needs_its_output() -> None:
    doc = documents(SERVER)[0]
    call = {"type": "function_call", "call_id": "call_new", "name": "f", "arguments": "{}"}
    body = {**doc, "input": [*doc["input"], call, {"role": "user", "content": "next"}]}
    assert "HN001" in problems(body)


# --- client-run tool search -------------------------------------------------------------


def test_a_client_tool_search_call_is_answered_by_a_function_call_output() -> None:
    doc = documents(SERVER)[2]
    transcript = RESPONSES.decode(doc)
    (call,), (result,) = calls_and_results(transcript)
    assert (call.call_id, call.tool_type) == ("call_ts1", "tool_search_call")
    assert call.arguments == {"queries": ["currency conversion"]}
    assert result.content == "Found convert_currency."
    assert pair_transcript(transcript).result_calls == {(2, 0): (1, 0)}
    assert problems(doc) == []
    assert unchanged_by_fix(doc)


def test_a_client_tool_search_output_answers_its_call() -> None:
    doc = documents(SERVER)[3]
    transcript = RESPONSES.decode(doc)
    calls, results = calls_and_results(transcript)
    assert [c.tool_type for c in calls] == ["tool_search_call", "function_call"]
    assert results[0].tool_type == "tool_search_output"
    assert results[0].content == doc["input"][2]["tools"]
    assert pair_transcript(transcript).result_calls == {(2, 0): (1, 0), (4, 0): (3, 0)}
    assert problems(doc) == []
    assert unchanged_by_fix(doc)


def test_hosted_tool_search_items_stay_server_side_and_clean() -> None:
    doc = documents(SERVER)[4]
    transcript = RESPONSES.decode(doc)
    assert calls_and_results(transcript) == ([], [])
    assert all(isinstance(m.parts[0], UnknownPart) for m in transcript.messages[1:3])
    assert problems(doc) == []
    assert unchanged_by_fix(doc)


def test_an_unanswered_client_tool_search_call_is_an_open_call() -> None:
    doc = documents(SERVER)[2]
    body = {**doc, "input": [doc["input"][0], doc["input"][1], doc["input"][3]]}
    assert "HN001" in problems(body)


def test_an_edited_client_tool_search_call_keeps_its_item_type() -> None:
    doc = documents(SERVER)[2]
    transcript = RESPONSES.decode(doc)
    message = transcript.messages[1]
    edited = message.parts[0].evolve(call_id="call_ts9")
    messages = list(transcript.messages)
    messages[1] = message.evolve(parts=(edited,))
    out = RESPONSES.encode(transcript.evolve(messages=tuple(messages)))
    assert out["input"][1] == {**doc["input"][1], "call_id": "call_ts9"}


# --- the plain-shape fast path ----------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "fmt"), [(V1, "chat-template"), (TRL, "chat-template"), (SERVER, "openai-responses")]
)
def test_plain_shapes_agree_with_the_decoded_dialects(path: Path, fmt: str) -> None:
    codec = get_codec(fmt)
    for doc in documents(path):
        shape = codec.read_outline(doc)
        assert shape is None or shape == outline_of(codec.decode(doc))
        for other in ("openai-chat", "openai-responses"):
            assert other == fmt or get_codec(other).read_outline(doc) is None


# --- properties -------------------------------------------------------------------------


def _kept_results(doc: Any, out: Any) -> None:
    """Every result of `doc` that answers a call (or may, on the server) is in `out`."""
    before = histnorm.load(doc)
    after = histnorm.load(out, format=before.format)
    kept = Counter(dump(p.content) for p in calls_and_results(after)[1])
    pairing = pair_transcript(before)
    wanted = Counter(
        dump(before.messages[mi].parts[pi].content)  # type: ignore[union-attr]
        for mi, pi in [*pairing.result_calls, *pairing.server_results]
    )
    assert wanted <= kept


@PROPERTY
@given(strategies_dialects.v1_records())
def test_v1_records_round_trip_and_fix_writes_v1(doc: Any) -> None:
    assert CHAT.sniff(doc) == 0.95 and detect_format(doc) == "chat-template"
    transcript = CHAT.decode(doc)
    out = CHAT.encode(transcript)
    assert dump(out) == dump(doc)
    assert all(a is b for a, b in zip(out["messages"], doc["messages"], strict=True))
    for i, message in enumerate(transcript.messages):
        for j, part in enumerate(message.parts):
            if part.slot == "content[]":
                assert resolve(doc, CHAT.part_pointer(transcript, i, j)) is part.native
    for policy in OrphanCallPolicy:
        fixed = histnorm.encode(
            histnorm.fix(doc, orphan_tool_call=policy, tail=TailMode.CLOSE).transcript
        )
        for message in fixed["messages"]:
            assert "tool_calls" not in message
            assert isinstance(message["content"], list)
            assert ("loss_weight" in message) == ("loss_weight" in doc["messages"][0])
        assert dump(CHAT.encode(CHAT.decode(fixed))) == dump(fixed)
        _kept_results(doc, fixed)


@PROPERTY
@given(strategies_dialects.trl_documents())
def test_trl_calls_pair_and_fixes_keep_their_results(doc: Any) -> None:
    transcript = CHAT.decode(doc)
    assert dump(CHAT.encode(transcript)) == dump(doc)
    assert pair_transcript(transcript).orphan_results == ()
    assert "HN002" not in problems(doc)
    fixed = histnorm.encode(histnorm.fix(doc, tail=TailMode.CLOSE).transcript)
    calls = [c for m in fixed["messages"] for c in m.get("tool_calls") or ()]
    assert all(c["type"] == "tool" for c in calls)
    _kept_results(doc, fixed)


@PROPERTY
@given(strategies_dialects.server_state_bodies())
def test_server_state_outputs_are_never_orphans_nor_dropped(doc: Any) -> None:
    transcript = RESPONSES.decode(doc)
    assert dump(RESPONSES.encode(transcript)) == dump(doc)
    pairing = pair_transcript(transcript)
    if transcript.server_state is None:
        assert pairing.server_results == ()
    else:
        assert pairing.orphan_results == ()
        assert "HN002" not in problems(doc)
    fixed = histnorm.encode(histnorm.fix(doc, tail=TailMode.CLOSE).transcript)
    assert dump(RESPONSES.encode(RESPONSES.decode(fixed))) == dump(fixed)
    _kept_results(doc, fixed)
