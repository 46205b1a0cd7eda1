"""Tests for the `sharegpt` codec: round trips, decoded parts, pointers, edits and errors."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest
from codec_helpers import (
    PROPERTY_SETTINGS,
    dump,
    fixture_files,
    resolve,
    with_messages,
    with_parts,
)
from hypothesis import given
from hypothesis import strategies as st
from strategies_sharegpt import transcripts

import histnorm
from histnorm import jsonio
from histnorm.edit import rewrite
from histnorm.errors import HistnormError
from histnorm.formats import CODECS
from histnorm.formats.sharegpt import ShareGPTCodec, parse_calls
from histnorm.model import (
    SYNTHESIZED_KEY,
    Message,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolFamily,
    ToolResultPart,
    Transcript,
    UnknownPart,
)
from histnorm.pairing import pair_transcript

CODEC = ShareGPTCodec()
ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "formats" / "sharegpt"
FIXTURE_FILES = fixture_files("sharegpt")
PROPERTY = PROPERTY_SETTINGS["sharegpt"]


def turns_of(doc: Any) -> list[Any]:
    return doc if isinstance(doc, list) else doc["conversations"]


def record(*turns: tuple[str, Any], **extra: Any) -> dict[str, Any]:
    return {"conversations": [{"from": tag, "value": value} for tag, value in turns], **extra}


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
            assert pointer == at + "/value"
            value = resolve(doc, pointer)
            if isinstance(part, ToolCallPart):
                parsed = parse_calls(value)
                assert parsed is not None
                single, items = parsed
                index = 0 if single else int(part.slot.removeprefix("function_call[")[:-1])
                assert dump(items[index]) == dump(part.native)
            elif isinstance(part, ToolResultPart):
                assert dump(value) == dump(part.content) == dump(part.native)
            else:
                assert dump(value) == dump(part.native)


@PROPERTY
@given(transcripts())
def test_decoded_parts_mirror_the_native_turns(doc: Any) -> None:
    transcript = CODEC.decode(doc)
    assert transcript.format == "sharegpt"
    assert len(transcript.messages) == len(turns_of(doc))
    for turn, message in zip(turns_of(doc), transcript.messages, strict=True):
        tag = turn["from"].casefold()
        value = turn.get("value")
        if value is None:
            assert message.parts == ()
        elif tag == "function_call" and parse_calls(value) is not None:
            calls = parse_calls(value)[1]  # type: ignore[index]
            assert [p.name for p in message.parts] == [c.get("name") for c in calls]
            assert all(isinstance(p, ToolCallPart) and p.call_id is None for p in message.parts)
            assert [dump(p.arguments) for p in message.parts] == [
                dump(c.get("arguments")) for c in calls
            ]
        elif tag in ("observation", "tool"):
            assert message.role == "tool"
            assert all(dump(p.native) == dump(value) for p in message.parts)
        elif tag != "function_call" and isinstance(value, str):
            assert message.parts == (TextPart(text=value, native=value, slot="value"),)
        else:
            assert [type(p) for p in message.parts] == [UnknownPart]


@PROPERTY
@given(transcripts(), st.data())
def test_dropping_any_part_encodes_to_a_stable_document(doc: Any, data: st.DataObject) -> None:
    transcript = CODEC.decode(doc)
    positions = [(i, j) for i, m in enumerate(transcript.messages) for j in range(len(m.parts))]
    if not positions:
        return
    edited = rewrite(transcript, remove=[data.draw(st.sampled_from(positions))])
    out = CODEC.encode(edited)
    again = CODEC.encode(CODEC.decode(out))
    assert dump(again) == dump(out)
    assert dump(doc) == dump(copy.deepcopy(doc))


# --- decoding: each turn shape ---------------------------------------------------------

WEATHER = record(
    ("human", "Weather in Oslo?"),
    ("function_call", '{"name":"get_weather","arguments":{"city":"Oslo"}}'),
    ("observation", '{"temp_c":4}'),
    ("gpt", "4 °C."),
    tools='[{"name":"get_weather","parameters":{"type":"object"}}]',
)


def test_spec_example_decodes_to_a_paired_call_and_result() -> None:
    transcript = CODEC.decode(WEATHER)
    assert [m.role for m in transcript.messages] == ["user", "assistant", "tool", "assistant"]
    (call,) = transcript.messages[1].parts
    (result,) = transcript.messages[2].parts
    assert call == ToolCallPart(
        call_id=None,
        name="get_weather",
        arguments={"city": "Oslo"},
        tool_type="function_call",
        native={"name": "get_weather", "arguments": {"city": "Oslo"}},
        slot="function_call",
    )
    assert result == ToolResultPart(
        call_id=None,
        name="get_weather",
        content='{"temp_c":4}',
        native='{"temp_c":4}',
        slot="observation",
    )
    assert pair_transcript(transcript).call_results == {(1, 0): (2, 0)}
    assert transcript.native is WEATHER
    assert CODEC.message_pointer(transcript, 1) == "/conversations/1"
    assert CODEC.part_pointer(transcript, 1, 0) == "/conversations/1/value"


@pytest.mark.parametrize(
    ("tag", "role"),
    [
        ("human", "user"),
        ("user", "user"),
        ("Human", "user"),
        ("gpt", "assistant"),
        ("assistant", "assistant"),
        ("system", "system"),
        ("chatgpt", "chatgpt"),
    ],
)
def test_text_tags_map_to_canonical_roles(tag: str, role: str) -> None:
    (message,) = CODEC.decode([{"from": tag, "value": "hi"}]).messages
    assert message.role == role
    assert message.parts == (TextPart(text="hi", native="hi", slot="value"),)


@pytest.mark.parametrize(
    "turn",
    [{"from": "gpt", "value": None}, {"from": "gpt"}, {"from": "observation", "value": None}],
)
def test_null_or_absent_value_gives_no_parts(turn: dict[str, Any]) -> None:
    transcript = CODEC.decode([turn])
    assert transcript.messages[0].parts == ()
    assert CODEC.encode(transcript)[0] is turn


def test_non_string_text_value_is_an_unknown_part() -> None:
    value = [{"type": "image"}, "x"]
    (part,) = CODEC.decode([{"from": "human", "value": value}]).messages[0].parts
    assert part == UnknownPart(native=value, slot="value")


def test_parallel_calls_list_gives_one_part_per_call_with_its_position() -> None:
    value = '[{"name": "a", "arguments": {"x": 1}}, {"name": "b", "arguments": "{}", "id": 7}]'
    transcript = CODEC.decode([{"from": "function_call", "value": value}])
    a, b = transcript.messages[0].parts
    assert (a.slot, a.name, a.arguments) == ("function_call[0]", "a", {"x": 1})
    assert (b.slot, b.name, b.arguments, b.call_id) == ("function_call[1]", "b", "{}", None)
    assert b.native == {"name": "b", "arguments": "{}", "id": 7}


def test_handoff_call_is_a_handoff() -> None:
    value = '{"name": "handoff_to_billing", "arguments": {}}'
    (call,) = CODEC.decode([{"from": "function_call", "value": value}]).messages[0].parts
    assert call.family is ToolFamily.HANDOFF


@pytest.mark.parametrize(
    "value", ["print(1)", "{", "42", "[1, 2]", '"x"', "", "null", '{"name": 1}']
)
def test_unreadable_function_call_is_an_unknown_part_and_its_observation_too(value: str) -> None:
    doc = record(
        ("human", "Compute 3*4"),
        ("function_call", value),
        ("observation", "12"),
        ("gpt", "12"),
    )
    transcript = CODEC.decode(doc)
    assert transcript.messages[1].parts == (UnknownPart(native=value, slot="value"),)
    assert transcript.messages[2].parts == (UnknownPart(native="12", slot="value"),)
    assert transcript.messages[2].role == "tool"
    assert pair_transcript(transcript).orphan_results == ()
    assert dump(CODEC.encode(transcript)) == dump(doc)


def test_empty_call_list_gives_no_parts_and_its_observation_is_an_orphan() -> None:
    transcript = CODEC.decode(
        [{"from": "function_call", "value": "[]"}, {"from": "tool", "value": "x"}]
    )
    assert transcript.messages[0].parts == ()
    assert pair_transcript(transcript).orphan_results == ((1, 0),)


def test_one_observation_for_a_parallel_turn_answers_every_call() -> None:
    transcript = CODEC.decode(
        record(
            ("function_call", '[{"name":"a","arguments":{}},{"name":"b","arguments":{}}]'),
            ("observation", "A and B"),
            ("gpt", "done"),
        )
    )
    results = transcript.messages[1].parts
    assert [(r.slot, r.name, r.content) for r in results] == [
        ("observation[0]", "a", "A and B"),
        ("observation[1]", "b", "A and B"),
    ]
    pairing = pair_transcript(transcript)
    assert pairing.call_results == {(0, 0): (1, 0), (0, 1): (1, 1)}
    assert pairing.unmatched_calls == ()


def test_one_observation_per_call_pairs_in_order() -> None:
    transcript = CODEC.decode(
        [
            {"from": "function_call", "value": '[{"name":"a"},{"name":"b"}]'},
            {"from": "observation", "value": "A"},
            {"from": "tool", "value": "B"},
        ]
    )
    assert [m.parts[0].name for m in transcript.messages[1:]] == ["a", "b"]
    assert pair_transcript(transcript).call_results == {(0, 0): (1, 0), (0, 1): (2, 0)}


def test_observation_without_a_call_before_it_has_no_name() -> None:
    transcript = CODEC.decode(
        [{"from": "human", "value": "x"}, {"from": "observation", "value": 3}]
    )
    assert transcript.messages[1].parts == (
        ToolResultPart(call_id=None, content=3, native=3, slot="observation"),
    )


def test_envelope_keeps_every_dataset_column() -> None:
    doc = {
        "system": "Be brief.",
        "conversations": [{"from": "human", "value": "hi"}, {"from": "gpt", "value": "yo"}],
        "tools": "[]",
        "chosen": {"from": "gpt", "value": "a"},
        "rejected": {"from": "gpt", "value": "b"},
        "images": ["a.png"],
    }
    transcript = CODEC.decode(doc)
    assert len(transcript.messages) == 2
    out = CODEC.encode(transcript)
    assert list(out) == list(doc)
    assert dump(out) == dump(doc)


def test_bare_list_pointers() -> None:
    transcript = CODEC.decode([{"from": "human", "value": "hi"}])
    assert transcript.native is None
    assert CODEC.message_pointer(transcript, 0) == "/0"
    assert CODEC.part_pointer(transcript, 0, 0) == "/0/value"


@pytest.mark.parametrize(
    ("doc", "score"),
    [
        (WEATHER, 0.95),
        ({"conversations": []}, 0.6),
        ([{"from": "human", "value": "hi"}], 0.8),
        ({"conversations": [{"from": "human", "value": "x", "role": "user"}]}, 0.0),
        ({"conversations": [{"value": "x"}]}, 0.0),
        ({"conversations": "x"}, 0.0),
        ({"messages": [{"role": "user", "content": "hi"}]}, 0.0),
        ([{"role": "user", "content": "hi"}], 0.0),
        ([], 0.0),
        ("text", 0.0),
    ],
)
def test_sniff(doc: Any, score: float) -> None:
    assert CODEC.sniff(doc) == score


# --- encoding after model edits --------------------------------------------------------

PARALLEL = record(
    ("human", "Weather in Paris, Rome and Oslo?"),
    (
        "function_call",
        '[{"name": "get_weather", "arguments": {"city": "Paris"}, "x": 1}, '
        '{"name": "get_weather", "arguments": {"city": "Rome"}}, '
        '{"name": "get_weather", "arguments": {"city": "Oslo"}}]',
    ),
    ("observation", "12"),
    ("observation", "19"),
    ("gpt", "Paris 12, Rome 19."),
)


def test_dropping_a_call_reserialises_the_list_in_its_style() -> None:
    transcript = CODEC.decode(PARALLEL)
    out = CODEC.encode(rewrite(transcript, remove=[(1, 2)]))
    assert out["conversations"][1]["value"] == (
        '[{"name": "get_weather", "arguments": {"city": "Paris"}, "x": 1}, '
        '{"name": "get_weather", "arguments": {"city": "Rome"}}]'
    )
    assert all(
        a is b for a, b in zip(out["conversations"][2:], PARALLEL["conversations"][2:], strict=True)
    )


def test_editing_a_single_call_keeps_its_compact_style_and_non_ascii() -> None:
    doc = [{"from": "function_call", "value": '{"name":"f","arguments":{"city":"Zürich"}}', "w": 1}]
    transcript = CODEC.decode(doc)
    (call,) = transcript.messages[0].parts
    out = CODEC.encode(with_parts(transcript, 0, call.evolve(arguments={"city": "Genève"})))
    assert out == [
        {"from": "function_call", "value": '{"name":"f","arguments":{"city":"Genève"}}', "w": 1}
    ]


def test_editing_a_call_keeps_ascii_escaping_when_the_original_had_it() -> None:
    value = json.dumps({"name": "f", "arguments": {"city": "Zürich"}})
    transcript = CODEC.decode([{"from": "function_call", "value": value}])
    (call,) = transcript.messages[0].parts
    out = CODEC.encode(with_parts(transcript, 0, call.evolve(name="g")))
    assert out[0]["value"] == '{"name": "g", "arguments": {"city": "Z\\u00fcrich"}}'


def test_dropping_the_only_call_removes_the_turn() -> None:
    transcript = CODEC.decode(WEATHER)
    out = CODEC.encode(rewrite(transcript, remove=[(1, 0)]))
    assert [t["from"] for t in out["conversations"]] == ["human", "observation", "gpt"]


def test_message_emptied_of_parts_writes_null_and_reads_back_empty() -> None:
    transcript = CODEC.decode(WEATHER)
    for index in range(4):
        out = CODEC.encode(with_parts(transcript, index))
        turn = out["conversations"][index]
        assert turn == {"from": WEATHER["conversations"][index]["from"], "value": None}
        assert CODEC.decode(out).messages[index].parts == ()


def test_dropping_a_result_removes_the_observation() -> None:
    out = CODEC.encode(rewrite(CODEC.decode(WEATHER), remove=[(2, 0)]))
    assert [t["from"] for t in out["conversations"]] == ["human", "function_call", "gpt"]


def test_dropping_one_result_of_a_shared_observation_keeps_the_turn() -> None:
    doc = record(("function_call", '[{"name":"a"},{"name":"b"}]'), ("observation", "AB"))
    transcript = CODEC.decode(doc)
    out = CODEC.encode(rewrite(transcript, remove=[(1, 1)]))
    assert dump(out) == dump(doc)


def test_inserted_synthesized_result_is_an_observation_that_pairs() -> None:
    doc = copy.deepcopy(PARALLEL)
    transcript = CODEC.decode(doc)
    assert pair_transcript(transcript).unmatched_calls == ((1, 2),)
    synthetic = Message(
        role="tool",
        parts=(
            ToolResultPart(
                call_id=None,
                name="get_weather",
                content="Tool call was interrupted.",
                is_error=True,
                tool_type="function",
                metadata={SYNTHESIZED_KEY: True},
            ),
        ),
    )
    messages = transcript.messages
    out = CODEC.encode(with_messages(transcript, *messages[:4], synthetic, *messages[4:]))
    assert out["conversations"][4] == {"from": "observation", "value": "Tool call was interrupted."}
    assert pair_transcript(CODEC.decode(out)).unmatched_calls == ()


def test_new_turns_use_the_spellings_of_the_record() -> None:
    doc = [
        {"from": "user", "value": "hi"},
        {"from": "tool", "value": "x"},
        {"from": "assistant", "value": "ok"},
    ]
    transcript = CODEC.decode(doc)
    new = (
        Message(role="user", parts=(TextPart(text="again"),)),
        Message(role="tool", parts=(ToolResultPart(call_id=None, content="y"),)),
        Message(role="system", parts=(TextPart(text="s"),)),
    )
    out = CODEC.encode(with_messages(transcript, *transcript.messages, *new))
    assert [t["from"] for t in out[3:]] == ["user", "tool", "system"]


def test_new_call_parses_json_arguments_and_follows_the_record_style() -> None:
    doc = [{"from": "function_call", "value": '{"name": "a", "arguments": {}}'}]
    transcript = CODEC.decode(doc)
    new = Message(
        role="assistant",
        parts=(ToolCallPart(call_id="ignored", name="b", arguments='{"k":[1,true]}'),),
    )
    out = CODEC.encode(with_messages(transcript, *transcript.messages, new))
    assert out[1] == {
        "from": "function_call",
        "value": '{"name": "b", "arguments": {"k": [1, true]}}',
    }


def test_new_result_with_structured_content_is_written_as_json_text() -> None:
    message = Message(
        role="tool", parts=(ToolResultPart(call_id="x", content=[{"type": "text", "text": "é"}]),)
    )
    out = CODEC.encode(Transcript(messages=(message,), format="sharegpt"))
    assert out == [{"from": "observation", "value": '[{"type":"text","text":"é"}]'}]


def test_message_mixing_text_and_calls_becomes_two_turns() -> None:
    message = Message(
        role="assistant",
        parts=(
            TextPart(text="Checking."),
            ToolCallPart(call_id=None, name="a", arguments={}),
            ToolCallPart(call_id=None, name="b", arguments=None),
        ),
    )
    out = CODEC.encode(Transcript(messages=(message,), format="sharegpt"))
    assert out == [
        {"from": "gpt", "value": "Checking."},
        {
            "from": "function_call",
            "value": '[{"name":"a","arguments":{}},{"name":"b","arguments":{}}]',
        },
    ]


def test_moving_a_message_keeps_every_turn_object() -> None:
    transcript = CODEC.decode(PARALLEL)
    m = transcript.messages
    out = CODEC.encode(with_messages(transcript, m[0], m[1], m[2], m[4], m[3]))
    original = PARALLEL["conversations"]
    assert [id(t) for t in out["conversations"]] == [id(original[i]) for i in (0, 1, 2, 4, 3)]


def test_edited_text_keeps_tag_and_unknown_keys_and_a_new_role_changes_the_tag() -> None:
    doc = [{"weight": 0, "from": "Human", "value": "old", "x": [1]}]
    transcript = CODEC.decode(doc)
    out = CODEC.encode(with_parts(transcript, 0, TextPart(text="new", native="old", slot="value")))
    assert out == [{"weight": 0, "from": "Human", "value": "new", "x": [1]}]
    out = CODEC.encode(with_messages(transcript, transcript.messages[0].evolve(role="assistant")))
    assert out == [{"weight": 0, "from": "gpt", "value": "old", "x": [1]}]


def test_a_part_the_format_cannot_express_raises_naming_it() -> None:
    message = Message(role="assistant", parts=(ReasoningPart(text="hmm"),))
    with pytest.raises(HistnormError, match="reasoning"):
        CODEC.encode(Transcript(messages=(message,), format="sharegpt"))


# --- the linter on ShareGPT ------------------------------------------------------------


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the codec known to `get_codec` while it is not registered yet."""
    monkeypatch.setattr("histnorm.formats.CODECS", MappingProxyType({**CODECS, CODEC.name: CODEC}))


@pytest.mark.usefixtures("registered")
def test_parallel_turn_with_one_observation_is_clean_and_a_missing_answer_is_reported() -> None:
    clean = record(
        ("human", "Paris and Rome?"),
        (
            "function_call",
            '[{"name":"w","arguments":{"c":"P"}},{"name":"w","arguments":{"c":"R"}}]',
        ),
        ("observation", "P 12, R 19"),
        ("gpt", "Done."),
    )
    assert histnorm.lint(clean, format="sharegpt") == ()
    codes = [d.code for d in histnorm.lint(PARALLEL, format="sharegpt")]
    assert codes == ["HN001"]
    fixed = histnorm.fix(PARALLEL, format="sharegpt")
    value = histnorm.encode(fixed.transcript)["conversations"][1]["value"]
    assert len(json.loads(value)) == 2


@pytest.mark.usefixtures("registered")
def test_diagnostic_pointer_is_the_turn_value() -> None:
    doc = record(("observation", "cut"), ("human", "hi"), ("gpt", "hello"))
    (diagnostic,) = histnorm.lint(doc, format="sharegpt")
    assert (diagnostic.code, diagnostic.location.pointer) == ("HN002", "/conversations/0/value")


@pytest.mark.usefixtures("registered")
def test_an_openai_chat_history_converts_and_still_pairs() -> None:
    source = ROOT / "fixtures" / "formats" / "openai-chat" / "parallel-tool-calls.json"
    native = histnorm.encode(histnorm.load(source.read_bytes()), "sharegpt")
    assert native["system"] == "You are a travel assistant."  # a LLaMA-Factory record
    assert isinstance(native["tools"], str)
    turns = native["conversations"]
    assert [t["from"] for t in turns] == [
        "human",
        "gpt",
        "function_call",
        "observation",
        "observation",
        "gpt",
    ]
    assert json.loads(turns[2]["value"])[1] == {
        "name": "get_weather",
        "arguments": {"city": "Rome"},
    }
    transcript = CODEC.decode(native)
    assert pair_transcript(transcript).unmatched_calls == ()


# --- bad input -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("doc", "pointer"),
    [
        ("just text", ""),
        (42, ""),
        (None, ""),
        ({"messages": []}, ""),
        ({"conversations": "x"}, "/conversations"),
        ({"conversations": None}, "/conversations"),
        ({"conversations": [1]}, "/conversations/0"),
        ({"conversations": [{"from": "human", "value": "x"}, "y"]}, "/conversations/1"),
        ([{"value": "x"}], "/0/from"),
        ([{"from": None, "value": "x"}], "/0/from"),
        ([{"from": 3, "value": "x"}], "/0/from"),
        ({"conversations": [{"from": ["gpt"]}]}, "/conversations/0/from"),
    ],
)
def test_bad_input_raises_histnorm_error_with_pointer(doc: Any, pointer: str) -> None:
    with pytest.raises(HistnormError) as info:
        CODEC.decode(doc)
    assert info.value.pointer == pointer


# --- fixtures (their round trip and detection: test_codec_contract.py) ------------------


def test_fixture_set_has_a_jsonl_dataset() -> None:
    assert any(path.suffix == ".jsonl" for path in FIXTURE_FILES)


def test_fixture_contents_decode_as_expected() -> None:
    def load(name: str) -> Transcript:
        return CODEC.decode(jsonio.loads((FIXTURES / name).read_bytes()))

    for name in ("weather-tool.json", "parallel-calls.json", "one-observation-per-call.json"):
        pairing = pair_transcript(load(name))
        assert pairing.call_results
        assert not pairing.unmatched_calls and not pairing.orphan_results, name
    parallel = load("parallel-calls.json")
    assert [p.slot for p in parallel.messages[3].parts] == ["observation[0]", "observation[1]"]
    code = load("code-interpreter.json")
    assert {type(p) for m in code.messages for p in m.parts} == {TextPart, UnknownPart}
    spelled = load("openai-spellings.json")
    assert [m.role for m in spelled.messages][:4] == ["system", "user", "assistant", "tool"]
    lines = (FIXTURES / "dataset.jsonl").read_bytes().splitlines()
    kinds = {
        p.kind for line in lines for m in CODEC.decode(jsonio.loads(line)).messages for p in m.parts
    }
    assert {"text", "tool_call", "tool_result"} <= kinds
