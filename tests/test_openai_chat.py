"""Tests for the `openai-chat` codec: round trips, decoded parts, pointers, edits and errors."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from codec_helpers import (
    PROPERTY_SETTINGS,
    check_damaged,
    dump,
    fixture_files,
    resolve,
    with_parts,
    without_part,
)
from hypothesis import given
from strategies_openai_chat import transcripts

from histnorm import jsonio
from histnorm.errors import HistnormError
from histnorm.formats.openai_chat import OpenAIChatCodec
from histnorm.model import (
    MediaPart,
    Message,
    RefusalPart,
    TextPart,
    ToolCallPart,
    ToolFamily,
    ToolResultPart,
    Transcript,
    UnknownPart,
)

CODEC = OpenAIChatCodec()
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "formats" / "openai-chat"
FIXTURE_FILES = fixture_files("openai-chat")
PROPERTY = PROPERTY_SETTINGS["openai-chat"]

# --- properties (the codec contract is checked in test_codec_contract.py) ---------------


@PROPERTY
@given(transcripts())
def test_pointers_resolve_to_what_each_part_was_read_from(doc: Any) -> None:
    transcript = CODEC.decode(doc)
    for i, message in enumerate(transcript.messages):
        at = CODEC.message_pointer(transcript, i)
        assert dump(resolve(doc, at)) == dump(message.native)
        for j, part in enumerate(message.parts):
            pointer = CODEC.part_pointer(transcript, i, j)
            target = resolve(doc, pointer)
            if part.slot in ("tool", "function"):
                assert pointer == at
                assert dump(target.get("content")) == dump(part.native)
            else:
                assert pointer.startswith(at + "/")
                assert dump(target) == dump(part.native)


@PROPERTY
@given(transcripts())
def test_decoded_parts_mirror_the_native_message(doc: Any) -> None:
    body = doc if isinstance(doc, list) else doc["messages"]
    transcript = CODEC.decode(doc)
    assert transcript.format == "openai-chat"
    assert len(transcript.messages) == len(body)
    for native, message in zip(body, transcript.messages, strict=True):
        assert message.role == native["role"]
        if native["role"].casefold() in ("tool", "function"):
            (result,) = message.parts
            assert isinstance(result, ToolResultPart)
            assert result.call_id == native.get("tool_call_id")
            assert dump(result.content) == dump(native.get("content"))
            continue
        content = native.get("content")
        expected = len(content) if isinstance(content, list) else int(isinstance(content, str))
        expected += int(isinstance(native.get("refusal"), str))
        expected += len(native.get("tool_calls") or ()) + int(bool(native.get("function_call")))
        audio = isinstance(native.get("audio"), dict) and native["role"].casefold() == "assistant"
        expected += int(audio)
        assert len(message.parts) == expected
        calls = [p for p in message.parts if p.slot == "tool_calls"]
        for call, raw in zip(calls, native.get("tool_calls") or (), strict=True):
            assert isinstance(call, ToolCallPart)
            assert call.call_id == raw["id"]
            body_key = raw["type"]
            assert call.name == raw[body_key]["name"]
            raw_args = raw[body_key]["input" if body_key == "custom" else "arguments"]
            assert call.arguments == raw_args  # the raw string, never parsed


@pytest.mark.parametrize(
    "doc",
    [
        [{"role": "user", "content": [{"type": ["image_url"]}]}],
        [{"role": "user", "content": [{"type": {"text": "x"}}]}],
    ],
)
def test_odd_part_types_raise_only_histnorm_error_at_a_real_location(doc: Any) -> None:
    check_damaged(CODEC, doc)


# --- decoding: each message shape ------------------------------------------------------


def test_string_content_is_one_text_part_and_name_is_the_author() -> None:
    doc = [{"role": "user", "name": "alice", "content": "Hi there"}]
    transcript = CODEC.decode(doc)
    (message,) = transcript.messages
    assert message.role == "user"
    assert message.author_name == "alice"
    assert message.parts == (TextPart(text="Hi there", native="Hi there", slot="content"),)
    assert transcript.native is None
    assert CODEC.message_pointer(transcript, 0) == "/0"
    assert CODEC.part_pointer(transcript, 0, 0) == "/0/content"


def test_array_content_decodes_every_part_type() -> None:
    parts = [
        {"type": "text", "text": "Look:"},
        {"type": "image_url", "image_url": {"url": "https://example.com/a.png", "detail": "low"}},
        {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "mp3"}},
        {"type": "file", "file": {"file_id": "file-1"}},
        {"type": "refusal", "refusal": "No."},
        {"type": "input_video", "video": {"id": 7}},
        "stray string",
    ]
    transcript = CODEC.decode(
        {"messages": [{"role": "system", "content": "s"}, {"role": "user", "content": parts}]}
    )
    message = transcript.messages[1]
    kinds = [(p.kind, p.slot) for p in message.parts]
    assert kinds == [
        ("text", "content[]"),
        ("media", "content[]"),
        ("media", "content[]"),
        ("media", "content[]"),
        ("refusal", "content[]"),
        ("unknown", "content[]"),
        ("unknown", "content[]"),
    ]
    text, image, audio, file, refusal, video, stray = message.parts
    assert isinstance(text, TextPart) and text.text == "Look:"
    assert isinstance(image, MediaPart) and image.uri == "https://example.com/a.png"
    assert isinstance(audio, MediaPart) and audio.media_type == "audio/mp3" and audio.uri is None
    assert isinstance(file, MediaPart) and file.native == parts[3]
    assert isinstance(refusal, RefusalPart) and refusal.text == "No."
    assert isinstance(video, UnknownPart) and video.type == "input_video"
    assert isinstance(stray, UnknownPart) and stray.type is None and stray.native == "stray string"
    assert [CODEC.part_pointer(transcript, 1, j) for j in range(7)] == [
        f"/messages/1/content/{j}" for j in range(7)
    ]


def test_null_and_empty_content_give_no_parts() -> None:
    transcript = CODEC.decode(
        [{"role": "user", "content": None}, {"role": "assistant"}, {"role": "user", "content": []}]
    )
    assert [m.parts for m in transcript.messages] == [(), (), ()]


def test_assistant_tool_calls_keep_ids_names_and_raw_argument_strings() -> None:
    args = '{"city": "Oslo",  "unit":"c"}'
    doc = {
        "model": "gpt-4o",
        "messages": [
            {"role": "user", "content": "Weather?"},
            {
                "role": "Assistant",
                "content": "Checking.",
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": args},
                    },
                    {
                        "id": "",
                        "type": "custom",
                        "custom": {"name": "run_sql", "input": "SELECT 1"},
                    },
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "handoff_to_billing", "arguments": "not json"},
                    },
                ],
            },
        ],
    }
    transcript = CODEC.decode(doc)
    message = transcript.messages[1]
    assert message.role == "Assistant" and message.role_is("assistant")
    text, weather, sql, handoff = message.parts
    assert text == TextPart(text="Checking.", native="Checking.", slot="content")
    assert weather == ToolCallPart(
        call_id="call_1",
        name="get_weather",
        arguments=args,
        family=ToolFamily.FUNCTION,
        tool_type="function",
        native=doc["messages"][1]["tool_calls"][0],
        slot="tool_calls",
    )
    assert (sql.call_id, sql.name, sql.arguments) == ("", "run_sql", "SELECT 1")
    assert (sql.family, sql.tool_type) == (ToolFamily.CUSTOM, "custom")
    assert (handoff.call_id, handoff.arguments) == ("call_1", "not json")
    assert handoff.family == ToolFamily.HANDOFF
    assert CODEC.message_pointer(transcript, 1) == "/messages/1"
    assert [CODEC.part_pointer(transcript, 1, j) for j in range(4)] == [
        "/messages/1/content",
        "/messages/1/tool_calls/0",
        "/messages/1/tool_calls/1",
        "/messages/1/tool_calls/2",
    ]


def test_tool_call_without_type_is_a_function_call() -> None:
    call = {"id": "c", "function": {"name": "f", "arguments": "{}"}}
    (part,) = CODEC.decode([{"role": "assistant", "tool_calls": [call]}]).messages[0].parts
    assert (part.tool_type, part.family, part.arguments) == ("function", ToolFamily.FUNCTION, "{}")


def test_refusal_field_and_refusal_content_part() -> None:
    doc = [
        {
            "role": "assistant",
            "content": [{"type": "refusal", "refusal": "No."}],
            "refusal": "I can't.",
        }
    ]
    transcript = CODEC.decode(doc)
    first, second = transcript.messages[0].parts
    assert first == RefusalPart(text="No.", native=doc[0]["content"][0], slot="content[]")
    assert second == RefusalPart(text="I can't.", native="I can't.", slot="refusal")
    assert CODEC.part_pointer(transcript, 0, 0) == "/0/content/0"
    assert CODEC.part_pointer(transcript, 0, 1) == "/0/refusal"


def test_tool_message_is_one_tool_result() -> None:
    content = [{"type": "text", "text": '{"temp_c": 4}'}]
    doc = [{"role": "tool", "tool_call_id": "call_1", "name": "get_weather", "content": content}]
    transcript = CODEC.decode(doc)
    (message,) = transcript.messages
    assert message.author_name is None
    assert message.parts == (
        ToolResultPart(
            call_id="call_1",
            name="get_weather",
            content=content,
            tool_type="tool",
            native=content,
            slot="tool",
        ),
    )
    assert CODEC.part_pointer(transcript, 0, 0) == "/0"


def test_empty_tool_call_id_is_read_as_an_empty_string() -> None:
    (part,) = CODEC.decode([{"role": "tool", "tool_call_id": "", "content": "x"}]).messages[0].parts
    assert part.call_id == ""


def test_legacy_function_call_and_function_message_pair_by_position() -> None:
    doc = {
        "messages": [
            {
                "role": "assistant",
                "content": None,
                "function_call": {"name": "lookup_order", "arguments": '{"id": 8}'},
            },
            {"role": "function", "name": "lookup_order", "content": "shipped"},
        ]
    }
    transcript = CODEC.decode(doc)
    (call,) = transcript.messages[0].parts
    (result,) = transcript.messages[1].parts
    assert call == ToolCallPart(
        call_id=None,
        name="lookup_order",
        arguments='{"id": 8}',
        tool_type="function_call",
        native=doc["messages"][0]["function_call"],
        slot="function_call",
    )
    assert result == ToolResultPart(
        call_id=None,
        name="lookup_order",
        content="shipped",
        tool_type="function",
        native="shipped",
        slot="function",
    )
    assert transcript.messages[1].author_name is None
    assert CODEC.part_pointer(transcript, 0, 0) == "/messages/0/function_call"
    assert CODEC.part_pointer(transcript, 1, 0) == "/messages/1"


def test_envelope_keeps_its_other_keys() -> None:
    doc = {
        "tools": [{"type": "function", "function": {"name": "f"}}],
        "messages": [{"role": "user", "content": "hi"}],
        "parallel_tool_calls": False,
    }
    transcript = CODEC.decode(doc)
    assert transcript.native == doc
    out = CODEC.encode(transcript)
    assert list(out) == ["tools", "messages", "parallel_tool_calls"]
    assert dump(out) == dump(doc)


def test_vendor_fields_stay_on_the_message_native() -> None:
    doc = [{"role": "assistant", "content": "", "reasoning_content": "think", "weight": 0}]
    (message,) = CODEC.decode(doc).messages
    assert message.native["reasoning_content"] == "think"
    assert message.parts == (TextPart(text="", native="", slot="content"),)


@pytest.mark.parametrize(
    ("doc", "score"),
    [
        ([{"role": "user", "content": "hi"}], 0.5),
        ({"messages": [{"role": "assistant", "tool_calls": []}]}, 0.9),
        ([{"role": "tool", "tool_call_id": "c", "content": "x"}], 0.9),
        ({"model": "m", "messages": [{"role": "user", "content": "hi"}]}, 0.5),
        ([], 0.0),
        ({"messages": []}, 0.0),
        ("hello", 0.0),
        ([1, 2], 0.0),
        ([{"content": "no role"}], 0.0),
        ([{"role": "user", "parts": [{"text": "gemini"}]}], 0.0),
        ([{"role": "user", "contents": [{"$type": "text", "text": "meai"}]}], 0.0),
        ([{"type": "message", "role": "user", "content": "responses"}], 0.0),
        ([{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t"}]}], 0.0),
    ],
)
def test_sniff(doc: Any, score: float) -> None:
    assert CODEC.sniff(doc) == score


# --- encoding after model edits --------------------------------------------------------


def _assistant_with_calls() -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "Weather in Paris and Rome?"},
        {
            "x_vendor": {"trace": 1},
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "call_p",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                },
                {
                    "id": "call_r",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Rome"}'},
                },
            ],
            "weight": 1,
        },
    ]


def test_dropping_a_tool_call_removes_it_from_tool_calls() -> None:
    doc = _assistant_with_calls()
    before = copy.deepcopy(doc)
    out = CODEC.encode(without_part(CODEC.decode(doc), 1, 1))  # parts: text, call_p, call_r
    expected = copy.deepcopy(before)
    del expected[1]["tool_calls"][0]
    assert dump(out) == dump(expected)
    assert dump(doc) == dump(before)


def test_dropping_the_last_tool_call_removes_the_key() -> None:
    transcript = CODEC.decode(_assistant_with_calls())
    out = CODEC.encode(without_part(without_part(transcript, 1, 2), 1, 1))
    assert out[1] == {"x_vendor": {"trace": 1}, "role": "assistant", "content": "", "weight": 1}
    assert list(out[1]) == ["x_vendor", "role", "content", "weight"]


@pytest.mark.parametrize("content", ["", [{"type": "text", "text": ""}]])
def test_dropping_an_empty_text_part_next_to_tool_calls_gives_null_content(content: Any) -> None:
    doc = _assistant_with_calls()
    doc[1]["content"] = content
    out = CODEC.encode(without_part(CODEC.decode(doc), 1, 0))
    expected = _assistant_with_calls()
    expected[1]["content"] = None
    assert dump(out) == dump(expected)


def test_new_tool_result_in_a_new_tool_message() -> None:
    transcript = CODEC.decode(_assistant_with_calls())
    new = Message(role="tool", parts=(ToolResultPart(call_id="call_p", content="12 C"),))
    out = CODEC.encode(transcript.evolve(messages=(*transcript.messages, new)))
    assert dump(out[:2]) == dump(_assistant_with_calls())
    assert dump(out[2]) == dump({"role": "tool", "tool_call_id": "call_p", "content": "12 C"})


def test_a_message_holding_two_tool_results_becomes_two_tool_messages() -> None:
    transcript = CODEC.decode(_assistant_with_calls())
    new = Message(
        role="tool",
        parts=(
            ToolResultPart(call_id="call_p", content="12 C"),
            ToolResultPart(call_id="call_r", content="19 C"),
        ),
    )
    out = CODEC.encode(transcript.evolve(messages=(*transcript.messages, new)))
    assert dump(out[2:]) == dump(
        [
            {"role": "tool", "tool_call_id": "call_p", "content": "12 C"},
            {"role": "tool", "tool_call_id": "call_r", "content": "19 C"},
        ]
    )


def test_edited_message_keeps_unknown_keys_in_their_order() -> None:
    doc = [
        {
            "x_vendor": 1,
            "role": "assistant",
            "reasoning_content": "hmm",
            "content": "old",
            "weight": 0,
            "a/b~c": [True, 1, 1.0],
        }
    ]
    transcript = CODEC.decode(doc)
    out = CODEC.encode(
        with_parts(transcript, 0, TextPart(text="new", native="old", slot="content"))
    )
    assert list(out[0]) == ["x_vendor", "role", "reasoning_content", "content", "weight", "a/b~c"]
    assert dump(out) == dump([{**doc[0], "content": "new"}])


def test_edited_content_part_keeps_its_extra_keys() -> None:
    doc = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "old", "cache_control": {}},
                {"type": "text", "text": "keep"},
            ],
        }
    ]
    transcript = CODEC.decode(doc)
    first, second = transcript.messages[0].parts
    out = CODEC.encode(with_parts(transcript, 0, first.evolve(text="new"), second))
    assert dump(out) == dump(
        [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "new", "cache_control": {}},
                    {"type": "text", "text": "keep"},
                ],
            }
        ]
    )


def test_new_parts_are_written_in_native_shape() -> None:
    transcript = CODEC.decode([{"role": "assistant", "content": None, "weight": 1}])
    out = CODEC.encode(
        with_parts(
            transcript,
            0,
            TextPart(text="Done."),
            ToolCallPart(call_id="call_9", name="f", arguments={"a": [1, True]}),
        )
    )
    call = {
        "id": "call_9",
        "type": "function",
        "function": {"name": "f", "arguments": '{"a":[1,true]}'},
    }
    assert dump(out) == dump(
        [{"role": "assistant", "content": "Done.", "weight": 1, "tool_calls": [call]}]
    )


def test_edited_tool_result_keeps_the_tool_message_keys() -> None:
    doc = [{"role": "tool", "name": "f", "tool_call_id": "c1", "content": "old", "x_ms": 12}]
    transcript = CODEC.decode(doc)
    (result,) = transcript.messages[0].parts
    out = CODEC.encode(with_parts(transcript, 0, result.evolve(content="new")))
    assert dump(out) == dump([{**doc[0], "content": "new"}])


def test_edited_function_message_stays_a_function_message() -> None:
    doc = [{"role": "function", "name": "lookup", "content": "old"}]
    transcript = CODEC.decode(doc)
    (result,) = transcript.messages[0].parts
    out = CODEC.encode(with_parts(transcript, 0, result.evolve(content="new")))
    assert dump(out) == dump([{"role": "function", "name": "lookup", "content": "new"}])


# Each test below exposes a codec bug (see the report); they fail until the codec is fixed.


def test_regression_edited_capitalised_function_message_stays_a_function_message() -> None:
    doc = [{"role": "Function", "name": "lookup", "content": "old"}]
    transcript = CODEC.decode(doc)
    (result,) = transcript.messages[0].parts
    out = CODEC.encode(with_parts(transcript, 0, result.evolve(content="new")))
    assert dump(out) == dump([{"role": "Function", "name": "lookup", "content": "new"}])


def test_regression_edited_media_part_writes_its_new_uri() -> None:
    doc = [
        {
            "role": "user",
            "content": [
                {
                    "type": "image_url",
                    "image_url": {"url": "https://a.example/x.png", "detail": "low"},
                },
            ],
        }
    ]
    transcript = CODEC.decode(doc)
    (image,) = transcript.messages[0].parts
    out = CODEC.encode(with_parts(transcript, 0, image.evolve(uri="https://b.example/y.png")))
    assert dump(out) == dump(
        [
            {
                "role": "user",
                "content": [
                    {
                        "type": "image_url",
                        "image_url": {"url": "https://b.example/y.png", "detail": "low"},
                    },
                ],
            }
        ]
    )


@pytest.mark.parametrize(
    "message",
    [
        {
            "content": "old",
            "refusal": None,
            "role": "assistant",
            "annotations": [],
            "audio": None,
            "function_call": None,
            "tool_calls": None,
        },
        {"role": "user", "name": None, "content": "old"},
    ],
    ids=["sdk-model-dump", "name-null"],
)
def test_regression_edited_message_keeps_its_null_fields(message: dict[str, Any]) -> None:
    transcript = CODEC.decode([message])
    out = CODEC.encode(
        with_parts(transcript, 0, TextPart(text="new", native="old", slot="content"))
    )
    assert dump(out) == dump([{**message, "content": "new"}])


# --- bad input -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("doc", "pointer"),
    [
        ([{"role": "user", "content": "hi"}, "not a message"], "/1"),
        ({"messages": [{"role": "user", "content": "hi"}, 5]}, "/messages/1"),
        ([{"content": "no role"}], "/0/role"),
        ([{"role": None, "content": "x"}], "/0/role"),
        ([{"role": 3, "content": "x"}], "/0/role"),
        ({"messages": [{"role": ["user"]}]}, "/messages/0/role"),
        (
            [
                {
                    "role": "assistant",
                    "tool_calls": [{"type": "function", "function": {"name": "f"}}],
                }
            ],
            "/0/tool_calls/0/id",
        ),
        (
            [
                {
                    "role": "assistant",
                    "tool_calls": [
                        {"id": "a", "type": "function", "function": {"name": "f"}},
                        {"id": 7, "type": "function", "function": {"name": "f"}},
                    ],
                }
            ],
            "/0/tool_calls/1/id",
        ),
        ([{"role": "assistant", "tool_calls": {"id": "a"}}], "/0/tool_calls"),
        ([{"role": "assistant", "tool_calls": "call_1"}], "/0/tool_calls"),
        ([{"role": "assistant", "tool_calls": ["call_1"]}], "/0/tool_calls/0"),
        (
            [
                {
                    "role": "assistant",
                    "tool_calls": [{"id": "a", "type": "function", "function": "f()"}],
                }
            ],
            "/0/tool_calls/0/function",
        ),
        ([{"role": "assistant", "tool_calls": [{"id": "a", "type": 1}]}], "/0/tool_calls/0/type"),
        (
            [
                {
                    "role": "assistant",
                    "tool_calls": [{"id": "a", "type": "function", "function": {"name": 1}}],
                }
            ],
            "/0/tool_calls/0/function/name",
        ),
        ([{"role": "user", "content": 42}], "/0/content"),
        ([{"role": "user", "content": {"type": "text", "text": "x"}}], "/0/content"),
        ([{"role": "assistant", "content": True}], "/0/content"),
        ([{"role": "assistant", "refusal": ["no"]}], "/0/refusal"),
        ([{"role": "user", "name": 5, "content": "x"}], "/0/name"),
        ([{"role": "assistant", "function_call": "f"}], "/0/function_call"),
        ([{"role": "assistant", "function_call": {"name": 3}}], "/0/function_call/name"),
        ([{"role": "tool", "content": "x"}], "/0/tool_call_id"),
        ({"messages": [{"role": "tool", "tool_call_id": None}]}, "/messages/0/tool_call_id"),
        ([{"role": "tool", "tool_call_id": 12, "content": "x"}], "/0/tool_call_id"),
        ([{"role": "function", "name": 1, "content": "x"}], "/0/name"),
        ({"messages": "hello"}, "/messages"),
        ({"messages": None}, "/messages"),
        ({"model": "gpt-4o", "input": []}, ""),
        ("just text", ""),
        (42, ""),
        (None, ""),
    ],
)
def test_bad_input_raises_histnorm_error_with_pointer(doc: Any, pointer: str) -> None:
    with pytest.raises(HistnormError) as info:
        CODEC.decode(doc)
    assert info.value.pointer == pointer


# --- fixtures (their round trip and detection: test_codec_contract.py) ------------------


def test_fixture_set_has_six_files_and_a_jsonl_dataset() -> None:
    assert len(FIXTURE_FILES) >= 6
    assert any(path.suffix == ".jsonl" for path in FIXTURE_FILES)


def test_fixture_contents_decode_as_expected() -> None:
    def load(name: str) -> Transcript:
        return CODEC.decode(jsonio.loads((FIXTURES / name).read_bytes()))

    weather = load("weather-tool.json")
    call = weather.messages[2].parts[0]
    assert isinstance(call, ToolCallPart)
    assert (call.name, call.call_id) == ("get_weather", "call_Hq3wTz8mKpL2")
    assert weather.messages[3].parts[0].call_id == call.call_id

    parallel = load("parallel-tool-calls.json")
    ids = [p.call_id for p in parallel.messages[2].parts if isinstance(p, ToolCallPart)]
    assert ids == ["call_paris01", "call_rome02"]
    assert [m.parts[0].call_id for m in parallel.messages[3:5]] == ids

    legacy = load("legacy-function-call.json")
    assert legacy.messages[2].parts[0].slot == "function_call"
    assert legacy.messages[3].parts[0].slot == "function"

    lines = (FIXTURES / "fine-tuning.jsonl").read_bytes().splitlines()
    weights = [
        m.native.get("weight") for line in lines for m in CODEC.decode(jsonio.loads(line)).messages
    ]
    assert {0, 1} <= set(weights)

    parts = load("content-parts.json")
    assert [p.kind for p in parts.messages[0].parts] == ["text", "media", "media", "media"]
    assert [p.kind for p in parts.messages[1].parts] == ["refusal"]
    assert [(p.kind, p.slot) for p in parts.messages[3].parts] == [("refusal", "refusal")]

    reasoning = load("reasoning-content.json")
    assert "reasoning_content" in reasoning.messages[1].native
