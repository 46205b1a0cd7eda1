"""The public library API: load, dump, encode, detect_format, convert."""

from __future__ import annotations

import copy

import orjson
import pytest

import histnorm
from histnorm import HistnormError, Message, TextPart, ToolCallPart, ToolResultPart

CHAT = [
    {"role": "user", "content": "Weather in Oslo?"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city":"Oslo"}'},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": "4 C"},
]


def test_load_bytes_str_and_value_agree():
    as_bytes = histnorm.load(orjson.dumps(CHAT))
    assert histnorm.load(orjson.dumps(CHAT).decode()) == as_bytes
    assert histnorm.load(CHAT) == as_bytes
    assert as_bytes.format == "openai-chat"


def test_load_copies_and_never_mutates_its_input():
    value = copy.deepcopy(CHAT)
    transcript = histnorm.load(value)
    assert value == CHAT
    value[0]["content"] = "changed"
    assert transcript.messages[0].parts[0] == TextPart(
        text="Weather in Oslo?", native="Weather in Oslo?", slot="content"
    )


def test_dump_round_trips():
    assert histnorm.dump(histnorm.load(CHAT)) == orjson.dumps(CHAT)


def test_explicit_format_wins_over_detection():
    with pytest.raises(HistnormError, match="contents"):
        histnorm.load([{"role": "user", "content": "x", "contents": 3}], format="meai")


def test_unknown_format_lists_known_ones():
    with pytest.raises(HistnormError, match="known formats: openai-chat, meai"):
        histnorm.load(CHAT, format="nope")


def test_undetectable_input_is_a_located_error():
    with pytest.raises(HistnormError) as info:
        histnorm.load(b'[{"role": "user", "content": "x"}, {"content": "y"}]')
    assert info.value.pointer == "/1/role"
    with pytest.raises(HistnormError):
        histnorm.load(b"42")


def test_not_json_is_an_error_with_a_line():
    with pytest.raises(HistnormError) as info:
        histnorm.load(b'[\n{"role": ')
    assert info.value.line == 2


def test_convert_chat_to_meai_and_back():
    meai = histnorm.encode(histnorm.load(CHAT), "meai")
    assert meai[1]["contents"][0] == {
        "$type": "functionCall",
        "callId": "call_1",
        "name": "get_weather",
        "arguments": {"city": "Oslo"},
    }
    assert meai[2]["contents"][0] == {
        "$type": "functionResult",
        "callId": "call_1",
        "result": "4 C",
    }
    back = histnorm.load(meai)
    assert back.format == "meai"
    again = histnorm.encode(back, "openai-chat")
    assert again[2] == CHAT[2]
    assert again[1]["tool_calls"][0]["function"]["arguments"] == '{"city":"Oslo"}'


def test_new_messages_encode_in_each_format():
    transcript = histnorm.Transcript(
        messages=(
            Message(role="assistant", parts=(ToolCallPart(call_id="c", name="f", arguments="{}"),)),
            Message(role="tool", parts=(ToolResultPart(call_id="c", content="done"),)),
        ),
        format="openai-chat",
    )
    assert histnorm.encode(transcript) == [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "c", "content": "done"},
    ]


def test_encode_without_a_format_is_an_error():
    with pytest.raises(HistnormError, match="no format"):
        histnorm.encode(histnorm.Transcript(messages=()))


@pytest.mark.parametrize("call", [histnorm.lint, histnorm.repair, histnorm.fix, histnorm.load])
@pytest.mark.parametrize(
    "value",
    [CHAT, orjson.dumps(CHAT), orjson.dumps(CHAT).decode(), orjson.dumps([CHAT, CHAT])],
    ids=["list", "bytes", "text", "array-bytes"],
)
def test_an_unknown_format_name_is_an_error_of_the_call_in_every_entry_point(call, value):
    """A format name histnorm does not know is the caller's mistake, not unreadable data:
    every entry point raises, naming the known formats (as `--format` does at exit 2)."""
    with pytest.raises(HistnormError, match="unknown format 'nope'; known formats: openai-chat"):
        call(value, format="nope")


def test_lint_reads_clean_json_data_as_passed(monkeypatch: pytest.MonkeyPatch) -> None:
    """`lint` of a clean list or request body of plain JSON data answers on its outline
    without the private copy it makes of other values (`native_json`); a damaged one, a
    value holding objects and a list of transcripts are read as before."""
    import histnorm.api as api

    copies: list[object] = []
    real = api.native_json
    monkeypatch.setattr(api, "native_json", lambda value: copies.append(value) or real(value))
    clean = [CHAT[0], {"role": "assistant", "content": "Sunny, 20 C."}]
    assert histnorm.lint(clean) == () and histnorm.lint({"messages": clean}) == ()
    assert copies == []
    damaged = [CHAT[0], CHAT[2]]  # a result without its call
    assert [d.code for d in histnorm.lint(damaged)] == ["HN002"]
    assert copies == [damaged]
    several = histnorm.lint([CHAT, CHAT])
    assert [d.code for d in several] == ["HN000"] and "transcripts" in several[0].message
    assert histnorm.lint((clean[0], clean[1])) == ()  # a tuple: copied, then read
    assert len(copies) == 3
