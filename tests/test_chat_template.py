"""Tests for the `chat-template` codec: round trips, decoded parts, pointers, edits, errors."""

from __future__ import annotations

import copy
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
from strategies_chat_template import transcripts

import histnorm
from histnorm import jsonio
from histnorm.edit import rewrite
from histnorm.errors import HistnormError
from histnorm.formats import CODECS
from histnorm.formats.chat_template import ChatTemplateCodec
from histnorm.formats.chat_template.parts import PLAIN_ROLES, sniff_message
from histnorm.formats.openai_chat import OpenAIChatCodec
from histnorm.model import (
    SYNTHESIZED_KEY,
    MediaPart,
    Message,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolFamily,
    ToolResultPart,
    Transcript,
    UnknownPart,
    UsagePart,
)
from histnorm.pairing import pair_transcript

CODEC = ChatTemplateCodec()
OPENAI = OpenAIChatCodec()
ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "formats" / "chat-template"
FIXTURE_FILES = fixture_files("chat-template")
PROPERTY = PROPERTY_SETTINGS["chat-template"]


def body_of(doc: Any) -> list[Any]:
    return doc if isinstance(doc, list) else doc["messages"]


# --- properties (the codec contract is checked in test_codec_contract.py) ---------------


@PROPERTY
@given(transcripts())
def test_sniff_claims_generated_documents_without_taking_plain_chat(doc: Any) -> None:
    score = CODEC.sniff(doc)
    assert score in (0.3, 0.6, 0.95)
    if score == 0.3:  # plain chat stays OpenAI Chat's when OpenAI Chat claims it
        assert OPENAI.sniff(doc) == 0 or OPENAI.sniff(doc) > score
    elif score == 0.95:  # object arguments, results without ids: not OpenAI Chat's
        assert OPENAI.sniff(doc) < score


@PROPERTY
@given(transcripts())
def test_pointers_resolve_to_what_each_part_was_read_from(doc: Any) -> None:
    transcript = CODEC.decode(doc)
    for i, message in enumerate(transcript.messages):
        at = CODEC.message_pointer(transcript, i)
        assert resolve(doc, at) is message.native
        for j, part in enumerate(message.parts):
            pointer = CODEC.part_pointer(transcript, i, j)
            if part.slot == "tool":
                assert pointer == at
                assert dump(resolve(doc, at).get("content")) == dump(part.native)
            else:
                assert pointer.startswith(at + "/")
                assert dump(resolve(doc, pointer)) == dump(part.native)


@PROPERTY
@given(transcripts())
def test_decoded_parts_mirror_the_native_messages(doc: Any) -> None:
    transcript = CODEC.decode(doc)
    assert transcript.format == "chat-template"
    for native, message in zip(body_of(doc), transcript.messages, strict=True):
        assert message.role == native["role"]
        if native["role"].casefold() == "tool":
            (result,) = message.parts
            assert isinstance(result, ToolResultPart)
            assert result.call_id == native.get("tool_call_id")
            assert result.name == native.get("name")
            continue
        calls = [p for p in message.parts if p.slot == "tool_calls"]
        assert len(calls) == len(native.get("tool_calls") or ())
        for call, raw in zip(calls, native.get("tool_calls") or (), strict=True):
            if isinstance(call, ToolCallPart):
                assert call.call_id == raw.get("id")
                body = raw.get("function", raw)
                assert call.name == body.get("name")
                assert dump(call.arguments) == dump(body.get("arguments"))
            else:
                assert isinstance(call, UnknownPart) and call.type == raw["type"]


@PROPERTY
@given(transcripts(), st.data())
def test_dropping_any_part_encodes_to_a_stable_document(doc: Any, data: st.DataObject) -> None:
    transcript = CODEC.decode(doc)
    positions = [(i, j) for i, m in enumerate(transcript.messages) for j in range(len(m.parts))]
    if not positions:
        return
    edited = rewrite(transcript, remove=[data.draw(st.sampled_from(positions))])
    out = CODEC.encode(edited)
    assert dump(CODEC.encode(CODEC.decode(out))) == dump(out)
    rewritten = [m for m in body_of(out) if not any(m is n for n in body_of(doc))]
    assert all(m.get("tool_calls") != [] for m in rewritten)


# --- decoding --------------------------------------------------------------------------

HF_EXAMPLE = {
    "messages": [
        {"role": "system", "content": "You are a weather bot."},
        {"role": "user", "content": "Temperature in Paris?"},
        {
            "role": "assistant",
            "tool_calls": [
                {
                    "type": "function",
                    "function": {
                        "name": "get_current_temperature",
                        "arguments": {"location": "Paris, France", "unit": "celsius"},
                    },
                }
            ],
        },
        {"role": "tool", "name": "get_current_temperature", "content": "22.0"},
        {"role": "assistant", "content": "It is 22 °C in Paris."},
    ],
    "tools": [{"type": "function", "function": {"name": "get_current_temperature"}}],
}


def test_docs_example_pairs_by_position() -> None:
    transcript = CODEC.decode(HF_EXAMPLE)
    (call,) = transcript.messages[2].parts
    (result,) = transcript.messages[3].parts
    assert call == ToolCallPart(
        call_id=None,
        name="get_current_temperature",
        arguments={"location": "Paris, France", "unit": "celsius"},
        tool_type="function",
        native=HF_EXAMPLE["messages"][2]["tool_calls"][0],
        slot="tool_calls",
    )
    assert result == ToolResultPart(
        call_id=None,
        name="get_current_temperature",
        content="22.0",
        tool_type="tool",
        native="22.0",
        slot="tool",
    )
    assert pair_transcript(transcript).call_results == {(2, 0): (3, 0)}
    assert CODEC.part_pointer(transcript, 2, 0) == "/messages/2/tool_calls/0"
    assert CODEC.part_pointer(transcript, 3, 0) == "/messages/3"


def test_ids_when_present_pair_by_id() -> None:
    doc = [
        {
            "role": "assistant",
            "tool_calls": [
                {"id": "abc123XYZ", "type": "function", "function": {"name": "f", "arguments": {}}},
                {"id": "", "type": "function", "function": {"name": "g", "arguments": {}}},
            ],
        },
        {"role": "tool", "tool_call_id": "", "content": "g"},
        {"role": "tool", "tool_call_id": "abc123XYZ", "content": "f"},
    ]
    transcript = CODEC.decode(doc)
    assert [p.call_id for p in transcript.messages[0].parts] == ["abc123XYZ", ""]
    assert pair_transcript(transcript).call_results == {(0, 0): (2, 0), (0, 1): (1, 0)}


def test_flat_calls_calls_without_type_and_unknown_types() -> None:
    calls = [
        {"name": "f", "arguments": {"a": 1}, "id": "x"},
        {"function": {"name": "handoff_to_sales", "arguments": "{}"}},
        {"type": "code_interpreter", "code_interpreter": {"input": "1+1"}},
    ]
    transcript = CODEC.decode([{"role": "assistant", "content": None, "tool_calls": calls}])
    flat, untyped, other = transcript.messages[0].parts
    assert (flat.call_id, flat.name, flat.arguments) == ("x", "f", {"a": 1})
    assert (untyped.call_id, untyped.arguments, untyped.family) == (None, "{}", ToolFamily.HANDOFF)
    assert other == UnknownPart(type="code_interpreter", native=calls[2], slot="tool_calls")
    assert CODEC.part_pointer(transcript, 0, 2) == "/0/tool_calls/2"


def test_content_items_media_and_unknown() -> None:
    items = [
        {"type": "image", "url": "https://example.com/a.png"},
        {"type": "image", "path": "img/b.png"},
        {"type": "video", "video": "clips/c.mp4"},
        {"type": "audio"},
        {"type": "text", "text": "What is this?"},
        {"type": "x_widget", "x": 1},
    ]
    message = CODEC.decode([{"role": "user", "content": items}]).messages[0]
    kinds = [(p.kind, getattr(p, "uri", None)) for p in message.parts]
    assert kinds == [
        ("media", "https://example.com/a.png"),
        ("media", "img/b.png"),
        ("media", "clips/c.mp4"),
        ("media", None),
        ("text", None),
        ("unknown", None),
    ]


@pytest.mark.parametrize("key", ["reasoning_content", "thinking", "reasoning"])
def test_reasoning_keys_are_reasoning_parts(key: str) -> None:
    doc = [{"role": "assistant", key: "Let me think.", "content": "4"}]
    transcript = CODEC.decode(doc)
    reasoning, text = transcript.messages[0].parts
    assert reasoning == ReasoningPart(text="Let me think.", native="Let me think.", slot=key)
    assert isinstance(text, TextPart)
    assert CODEC.part_pointer(transcript, 0, 0) == f"/0/{key}"


def test_tool_message_without_any_key_is_an_empty_result() -> None:
    (part,) = CODEC.decode([{"role": "tool"}]).messages[0].parts
    assert part == ToolResultPart(call_id=None, tool_type="tool", slot="tool")


@pytest.mark.parametrize(
    ("doc", "score"),
    [
        (HF_EXAMPLE, 0.95),
        ([{"role": "tool", "content": "22"}], 0.95),
        (
            [{"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": "{}"}}]}],
            0.0,
        ),
        ([{"role": "assistant", "tool_calls": [{"name": "f", "arguments": {"a": 1}}]}], 0.95),
        ([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}], 0.3),
        ({"messages": [{"role": "user", "content": [{"type": "image"}]}]}, 0.6),
        ([{"role": "user", "content": [{"type": "image", "source": {"type": "url"}}]}], 0.0),
        (
            [
                {
                    "role": "assistant",
                    "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": "{}"}}],
                }
            ],
            0.0,
        ),
        ([{"role": "tool", "tool_call_id": "c", "content": "x"}], 0.0),
        ([{"role": "assistant", "content": None, "function_call": {"name": "f"}}], 0.0),
        ([{"role": "function", "name": "f", "content": "x"}], 0.0),
        ([{"role": "assistant", "content": "x", "weight": 1}], 0.0),
        ({"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}, 0.0),
        ([{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "u"}}]}], 0.0),
        ([{"role": "user", "contents": [{"$type": "text", "text": "meai"}]}], 0.0),
        ([{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t"}]}], 0.0),
        ({"conversations": [{"from": "human", "value": "x"}]}, 0.0),
        ([], 0.0),
        ("text", 0.0),
    ],
)
def test_sniff(doc: Any, score: float) -> None:
    assert CODEC.sniff(doc) == score


# --- encoding after model edits --------------------------------------------------------

TWO_CALLS = [
    {"role": "user", "content": "Weather in Paris and Rome?"},
    {
        "x_vendor": 1,
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"type": "function", "function": {"name": "w", "arguments": {"city": "Paris"}}},
            {"type": "function", "function": {"name": "w", "arguments": {"city": "Rome"}}},
        ],
    },
    {"role": "tool", "name": "w", "content": "12"},
]


def test_dropping_a_call_and_then_the_last_call_removes_the_key() -> None:
    transcript = CODEC.decode(TWO_CALLS)
    out = CODEC.encode(rewrite(transcript, remove=[(1, 2)]))
    assert out[1]["tool_calls"] == TWO_CALLS[1]["tool_calls"][:1]
    assert out[0] is TWO_CALLS[0] and out[2] is TWO_CALLS[2]
    out = CODEC.encode(rewrite(transcript, remove=[(1, 1), (1, 2)]))
    assert out[1] == {"x_vendor": 1, "role": "assistant", "content": ""}


def test_message_emptied_of_parts_reads_back_empty() -> None:
    transcript = CODEC.decode(TWO_CALLS)
    for index in range(3):
        out = CODEC.encode(with_parts(transcript, index))
        assert CODEC.decode(out).messages[index].parts == ()
    assert CODEC.encode(with_parts(transcript, 1))[1] == {
        "x_vendor": 1,
        "role": "assistant",
        "content": None,
    }


def test_dropping_a_result_removes_the_tool_message() -> None:
    out = CODEC.encode(rewrite(CODEC.decode(TWO_CALLS), remove=[(2, 0)]))
    assert len(out) == 2


def test_inserted_synthesized_result_is_a_tool_message_with_the_name() -> None:
    transcript = CODEC.decode(copy.deepcopy(TWO_CALLS))
    assert pair_transcript(transcript).unmatched_calls == ((1, 2),)
    synthetic = Message(
        role="tool",
        parts=(
            ToolResultPart(
                call_id=None,
                name="w",
                content="Tool call was interrupted.",
                is_error=True,
                tool_type="function",
                metadata={SYNTHESIZED_KEY: True},
            ),
        ),
    )
    out = CODEC.encode(with_messages(transcript, *transcript.messages, synthetic))
    assert out[3] == {"role": "tool", "content": "Tool call was interrupted.", "name": "w"}
    assert pair_transcript(CODEC.decode(out)).unmatched_calls == ()


def test_new_calls_have_object_arguments_and_an_id_only_when_known() -> None:
    transcript = Transcript(format="chat-template")
    message = Message(
        role="assistant",
        parts=(
            ToolCallPart(call_id=None, name="f", arguments='{"a": [1, true]}'),
            ToolCallPart(call_id="c9", name="g", arguments="not json"),
            ToolCallPart(call_id=None, name="h"),
        ),
    )
    result = Message(role="tool", parts=(ToolResultPart(call_id="c9", content="ok"),))
    out = CODEC.encode(with_messages(transcript, message, result))
    assert out == [
        {
            "role": "assistant",
            "tool_calls": [
                {"type": "function", "function": {"name": "f", "arguments": {"a": [1, True]}}},
                {
                    "type": "function",
                    "function": {"name": "g", "arguments": "not json"},
                    "id": "c9",
                },
                {"type": "function", "function": {"name": "h", "arguments": {}}},
            ],
        },
        {"role": "tool", "content": "ok", "tool_call_id": "c9"},
    ]


def test_edited_call_keeps_string_arguments_and_its_form() -> None:
    doc = [
        {
            "role": "assistant",
            "tool_calls": [
                {"function": {"name": "f", "arguments": '{"a":1}'}, "x": 1},
                {"name": "g", "arguments": {"b": 2}, "id": "i"},
            ],
        }
    ]
    transcript = CODEC.decode(doc)
    first, second = transcript.messages[0].parts
    edited = with_parts(
        transcript, 0, first.evolve(arguments='{"a":2}'), second.evolve(arguments={"b": 3})
    )
    assert CODEC.encode(edited)[0]["tool_calls"] == [
        {"function": {"name": "f", "arguments": '{"a":2}'}, "x": 1},
        {"name": "g", "arguments": {"b": 3}, "id": "i"},
    ]


def test_a_message_holding_two_results_becomes_two_tool_messages() -> None:
    message = Message(
        role="tool",
        parts=(
            ToolResultPart(call_id=None, name="a", content="1"),
            ToolResultPart(call_id="", content="2"),
        ),
    )
    out = CODEC.encode(Transcript(messages=(message,), format="chat-template"))
    assert out == [
        {"role": "tool", "content": "1", "name": "a"},
        {"role": "tool", "content": "2", "tool_call_id": ""},
    ]


def test_results_inside_another_message_keep_their_place_around_it() -> None:
    message = Message(
        role="user",
        parts=(
            ToolResultPart(call_id="a", content={"temp_c": 12}),
            TextPart(text="Which is warmer?"),
            ToolResultPart(call_id="b", content="19"),
        ),
    )
    out = CODEC.encode(Transcript(messages=(message,), format="chat-template"))
    assert out == [
        {"role": "tool", "content": '{"temp_c":12}', "tool_call_id": "a"},
        {"role": "user", "content": "Which is warmer?"},
        {"role": "tool", "content": "19", "tool_call_id": "b"},
    ]


def test_moving_a_message_keeps_every_message_object() -> None:
    transcript = CODEC.decode(HF_EXAMPLE)
    m = transcript.messages
    out = CODEC.encode(with_messages(transcript, m[0], m[2], m[1], m[3], m[4]))
    original = HF_EXAMPLE["messages"]
    assert [id(x) for x in out["messages"]] == [id(original[i]) for i in (0, 2, 1, 3, 4)]
    assert list(out) == ["messages", "tools"]


def test_edited_reasoning_and_content_keep_their_keys() -> None:
    doc = [{"role": "assistant", "thinking": "a", "content": [{"type": "text", "text": "b"}]}]
    transcript = CODEC.decode(doc)
    reasoning, text = transcript.messages[0].parts
    out = CODEC.encode(with_parts(transcript, 0, reasoning.evolve(text="A"), text.evolve(text="B")))
    assert out == [
        {"role": "assistant", "thinking": "A", "content": [{"type": "text", "text": "B"}]}
    ]
    out = CODEC.encode(with_parts(transcript, 0, text))
    assert out == [{"role": "assistant", "content": [{"type": "text", "text": "b"}]}]


def test_edited_media_writes_its_uri_where_it_was_read() -> None:
    doc = [{"role": "user", "content": [{"type": "image", "path": "a.png", "x": 1}]}]
    transcript = CODEC.decode(doc)
    (image,) = transcript.messages[0].parts
    out = CODEC.encode(
        with_parts(
            transcript, 0, image.evolve(uri="b.png"), MediaPart(uri="c.mp4", media_type="video/mp4")
        )
    )
    assert out[0]["content"] == [
        {"type": "image", "path": "b.png", "x": 1},
        {"type": "video", "url": "c.mp4"},
    ]


def test_a_part_the_format_cannot_express_raises_naming_it() -> None:
    message = Message(role="assistant", parts=(UsagePart(details={"in": 1}),))
    with pytest.raises(HistnormError, match="usage"):
        CODEC.encode(Transcript(messages=(message,), format="chat-template"))


# --- the linter on chat-template documents ---------------------------------------------


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the codec known to `get_codec` and detection while it is not registered yet."""
    monkeypatch.setattr("histnorm.formats.CODECS", MappingProxyType({**CODECS, CODEC.name: CODEC}))


@pytest.mark.usefixtures("registered")
def test_detection_prefers_openai_chat_for_plain_chat_and_this_codec_for_object_arguments() -> None:
    plain = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    assert histnorm.detect_format(plain) == "openai-chat"
    assert histnorm.detect_format(HF_EXAMPLE) == "chat-template"


@pytest.mark.usefixtures("registered")
def test_clean_example_lints_clean_and_an_orphan_call_is_fixed() -> None:
    assert histnorm.lint(HF_EXAMPLE) == ()
    doc = copy.deepcopy([*TWO_CALLS, {"role": "user", "content": "Thanks"}])
    doc[1]["content"] = "Checking both."
    assert [d.code for d in histnorm.lint(doc)] == ["HN001"]
    fixed = histnorm.encode(histnorm.fix(doc).transcript)
    assert fixed[1]["tool_calls"] == TWO_CALLS[1]["tool_calls"][:1]


@pytest.mark.usefixtures("registered")
def test_an_openai_chat_history_converts_and_still_pairs() -> None:
    source = ROOT / "fixtures" / "formats" / "openai-chat" / "parallel-tool-calls.json"
    native = histnorm.encode(histnorm.load(source.read_bytes()), "chat-template")
    assert set(native) == {"messages", "tools"}  # the tool definitions go with it
    calls = native["messages"][2]["tool_calls"]
    assert [c["function"]["arguments"] for c in calls] == [{"city": "Paris"}, {"city": "Rome"}]
    assert [c["id"] for c in calls] == ["call_paris01", "call_rome02"]
    assert pair_transcript(CODEC.decode(native)).unmatched_calls == ()


# --- bad input -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("doc", "pointer"),
    [
        ([{"role": "user", "content": "hi"}, "x"], "/1"),
        ([{"content": "no role"}], "/0/role"),
        ({"messages": [{"role": 3}]}, "/messages/0/role"),
        ([{"role": "user", "content": 42}], "/0/content"),
        ([{"role": "user", "name": 5, "content": "x"}], "/0/name"),
        ([{"role": "assistant", "tool_calls": {"function": {}}}], "/0/tool_calls"),
        ([{"role": "assistant", "tool_calls": ["f"]}], "/0/tool_calls/0"),
        ([{"role": "assistant", "tool_calls": [{"id": 7, "function": {}}]}], "/0/tool_calls/0/id"),
        ([{"role": "assistant", "tool_calls": [{"type": 1}]}], "/0/tool_calls/0/type"),
        ([{"role": "assistant", "tool_calls": [{"type": "function"}]}], "/0/tool_calls/0/function"),
        ([{"role": "assistant", "tool_calls": [{"function": "f()"}]}], "/0/tool_calls/0/function"),
        (
            [{"role": "assistant", "tool_calls": [{"function": {"name": ["f"]}}]}],
            "/0/tool_calls/0/function/name",
        ),
        ([{"role": "assistant", "tool_calls": [{"name": 1}]}], "/0/tool_calls/0/name"),
        ([{"role": "tool", "tool_call_id": 1}], "/0/tool_call_id"),
        ([{"role": "tool", "name": False}], "/0/name"),
        ({"messages": "x"}, "/messages"),
        ({"conversations": []}, ""),
        (None, ""),
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

    for name in ("weather-tool.json", "parallel-calls.json", "mistral-ids.json"):
        pairing = pair_transcript(load(name))
        assert pairing.call_results, name
        assert not pairing.unmatched_calls and not pairing.orphan_results, name
    calls = [p for p in load("mistral-ids.json").messages[2].parts if isinstance(p, ToolCallPart)]
    assert [p.call_id for p in calls] == ["a1B2c3D4e"]
    assert {p.kind for p in load("multimodal.json").messages[1].parts} == {"media", "text"}
    assert load("reasoning.json").messages[2].parts[0].kind == "reasoning"
    flat = load("flat-tool-calls.json").messages[1].parts[0]
    assert isinstance(flat, ToolCallPart) and flat.name == "search_docs"


@pytest.mark.parametrize("role", ["system", "developer", "user", "assistant", "tool", "Tool"])
@pytest.mark.parametrize("content", ["hi", "", "  ", None, 0])
def test_a_message_of_a_role_and_content_sniffs_as_any_other(role: str, content: Any) -> None:
    """`sniff_message` answers a message of only `role` and `content` at once: what it
    answers is what the walk of a message with one more key, which nothing reads, finds."""
    from histnorm.formats.chat_template.parts import sniff_message

    message = {"role": role, "content": content}
    assert sniff_message(message) == sniff_message({**message, "x-note": 1})


@given(
    st.sampled_from(sorted(PLAIN_ROLES)),
    st.text(min_size=1, max_size=20),
    st.lists(st.sampled_from(["tool", "ipython", "function", "User"]), max_size=2),
)
def test_the_sniff_passes_over_the_usual_message_as_its_walk_would(
    role: str, text: str, others: list[str]
) -> None:
    """`sniff` passes over a message of a plain role and non-empty text at once: the walk
    of `sniff_message` finds it plain too, and the score is the one it gives without the
    pass (every other message walked)."""
    message = {"role": role, "content": text}
    assert sniff_message(message) is None
    rest: list[dict[str, Any]] = [{"role": other, "content": text} for other in others]
    record = {"messages": [message, *rest]}
    walked = {sniff_message(m) for m in record["messages"]}
    score = ChatTemplateCodec().sniff(record)
    if "foreign" in walked:
        assert score == 0.0
    elif "distinctive" in walked:
        assert score == 0.95
    elif "openai" in walked:
        assert score == 0.0
    else:
        assert score == 0.3
