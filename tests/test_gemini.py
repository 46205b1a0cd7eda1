"""Tests for the `gemini` codec: round trips, decoded parts, pointers, edits and errors.

Shapes: formats.md §4. Byte comparisons go through `orjson.dumps` because Python `==`
treats `1`, `1.0` and `True` as equal.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import orjson
import pytest
from codec_helpers import (
    PROPERTY_SETTINGS,
    check_damaged,
    dump,
    fixture_files,
    resolve,
    with_messages,
    with_parts,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies_gemini import JSON_VALUES, documents, locations, replaced

from histnorm.errors import HistnormError
from histnorm.formats.gemini import GeminiCodec
from histnorm.formats.openai_chat import OpenAIChatCodec
from histnorm.model import (
    SYNTHESIZED_KEY,
    ApprovalRequestPart,
    MediaPart,
    Message,
    Part,
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
from histnorm.rules.orphan_tool_call import synthetic_result
from histnorm.settings import Settings

CODEC = GeminiCodec()
ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "formats" / "gemini"
FIXTURE_FILES = fixture_files("gemini")
PROPERTY = PROPERTY_SETTINGS["gemini"]


def round_trip(doc: Any) -> Any:
    return CODEC.encode(CODEC.decode(doc))


def body(doc: Any) -> list[Any]:
    return doc if isinstance(doc, list) else doc["contents"]


def part_of(native: dict[str, Any]) -> Part:
    (message,) = CODEC.decode([{"role": "model", "parts": [native]}]).messages
    return message.parts[0]


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
            assert pointer.startswith(at + "/")
            assert resolve(doc, pointer) is part.native


@PROPERTY
@given(documents())
def test_decoded_parts_mirror_the_native_parts(doc: Any) -> None:
    transcript = CODEC.decode(doc)
    assert transcript.format == "gemini"
    assert transcript.native is (doc if isinstance(doc, dict) else None)
    for native, message in zip(body(doc), transcript.messages, strict=True):
        role = native.get("role")
        assert message.role == ("user" if role is None else role)
        assert len(message.parts) == len(native.get("parts") or ())
        for raw, part in zip(native.get("parts") or (), message.parts, strict=True):
            assert part.slot == "parts"
            keys = {k.replace("_", "").casefold() for k, v in raw.items() if v is not None}
            if "functioncall" in keys or "toolcall" in keys or "executablecode" in keys:
                assert isinstance(part, ToolCallPart)
            elif keys & {"functionresponse", "toolresponse", "codeexecutionresult"}:
                assert isinstance(part, ToolResultPart)
            elif keys & {"inlinedata", "filedata"}:
                assert isinstance(part, MediaPart)
            signature = raw.get("thoughtSignature", raw.get("thought_signature"))
            if isinstance(part, ReasoningPart):
                assert part.opaque == signature


@pytest.mark.parametrize(
    "doc",
    [
        [{"role": "user", "parts": [{"text": ["x"]}]}],
        {"contents": [{"parts": [{"function_call": {"name": 1}}]}]},
    ],
)
def test_odd_part_values_raise_only_histnorm_error_at_a_real_location(doc: Any) -> None:
    check_damaged(CODEC, doc)


def _fresh(transcript: Transcript) -> Transcript:
    """The transcript as histnorm would build it: no natives (what cannot be built is left out)."""

    def keep(part: Part) -> bool:
        if isinstance(part, UnknownPart) or (isinstance(part, MediaPart) and not part.uri):
            return False
        hosted = (
            isinstance(part, ToolCallPart | ToolResultPart) and part.family is ToolFamily.HOSTED
        )
        return not (hosted and part.call_id is None and part.tool_type != "codeExecution")

    messages = tuple(
        m.evolve(native=None, parts=tuple(p.evolve(native=None) for p in m.parts if keep(p)))
        for m in transcript.messages
    )
    return transcript.evolve(messages=messages)  # type: ignore[no-any-return]


def _written_role(message: Message) -> str:
    """The role a new message is written with."""
    if message.role not in ("tool", "function"):
        return message.role
    hosted = all(
        isinstance(p, ToolResultPart) and p.family is ToolFamily.HOSTED for p in message.parts
    )
    return "model" if message.parts and hosted else "user"


@PROPERTY
@given(documents())
def test_fresh_encoding_keeps_meaning(doc: Any) -> None:
    """Parts and messages without a native value encode to content that decodes the same,
    except that a new function result wraps its content in `output` / `error`."""
    fresh = _fresh(CODEC.decode(doc))
    again = CODEC.decode(CODEC.encode(fresh))
    assert [m.role for m in again.messages] == [_written_role(m) for m in fresh.messages]
    for old_message, new_message in zip(fresh.messages, again.messages, strict=True):
        for old, new in zip(old_message.parts, new_message.parts, strict=True):
            assert type(new) is type(old)
            expected = old.evolve(native=new.native)
            if isinstance(old, ToolResultPart) and old.family is not ToolFamily.HOSTED:
                key = "error" if old.is_error else "output"
                expected = expected.evolve(content={key: old.content})
            code = isinstance(old, ToolResultPart) and old.tool_type == "codeExecution"
            if code and not isinstance(old.content, str | None):
                expected = expected.evolve(content=orjson.dumps(old.content).decode())
            assert dump(new.model_dump(mode="json")) == dump(expected.model_dump(mode="json"))
        assert len(new_message.parts) == len(old_message.parts)


@PROPERTY
@given(documents(), st.data())
def test_removing_a_part_keeps_everything_else(doc: Any, data: st.DataObject) -> None:
    transcript = CODEC.decode(doc)
    spots = [(i, j) for i, m in enumerate(transcript.messages) for j in range(len(m.parts))]
    if not spots:
        return
    mi, pj = data.draw(st.sampled_from(spots))
    parts = transcript.messages[mi].parts
    edited = with_parts(transcript, mi, *parts[:pj], *parts[pj + 1 :])
    out = CODEC.encode(edited)
    again = CODEC.decode(out)
    assert [m.parts for m in again.messages] == [m.parts for m in edited.messages]
    assert [m.role for m in again.messages] == [m.role for m in edited.messages]
    for i, (new, old) in enumerate(zip(body(out), body(doc), strict=True)):
        assert (new is old) == (i != mi)
    kept = [p for k, p in enumerate(body(doc)[mi]["parts"]) if k != pj]
    assert all(a is b for a, b in zip(body(out)[mi]["parts"], kept, strict=True))
    if isinstance(doc, dict):
        assert [k for k in out] == [k for k in doc]


# --- fixtures (their round trip and detection: test_codec_contract.py) --------------------


def load(name: str) -> Any:
    return orjson.loads((FIXTURES / name).read_bytes())


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: p.name)
def test_fixture_is_sniffed_with_confidence(path: Path) -> None:
    assert CODEC.sniff(orjson.loads(path.read_bytes())) >= 0.9


def test_fixture_weather_request() -> None:
    doc = load("weather-request.json")
    transcript = CODEC.decode(doc)
    assert transcript.native is doc
    call = transcript.messages[1].parts[0]
    result = transcript.messages[2].parts[0]
    assert isinstance(call, ToolCallPart) and isinstance(result, ToolResultPart)
    assert (call.call_id, call.name, call.arguments) == (
        "9k2xq1",
        "get_forecast",
        {"city": "Split", "day": "tomorrow"},
    )
    assert call.family is ToolFamily.FUNCTION and call.tool_type is None
    assert (result.call_id, result.name, result.is_error) == ("9k2xq1", "get_forecast", False)
    assert result.content == {"output": {"air_c": 27, "sea_c": 23, "wind_kmh": 9}}
    assert pair_transcript(transcript).call_results == {(1, 0): (2, 0)}
    assert CODEC.part_pointer(transcript, 1, 0) == "/contents/1/parts/0"


def test_fixture_parallel_calls_without_ids_pair_by_name_and_position() -> None:
    transcript = CODEC.decode(load("parallel-calls-no-ids.json"))
    assert all(p.call_id is None for m in transcript.messages for p in m.parts if p.kind != "text")
    pairing = pair_transcript(transcript)
    assert pairing.call_results == {(1, 0): (2, 0), (1, 2): (2, 1), (1, 1): (2, 2)}
    assert not pairing.unmatched_calls and not pairing.orphan_results


def test_fixture_thinking() -> None:
    transcript = CODEC.decode(load("thinking.json"))
    thought, answer, signed_blank = transcript.messages[1].parts
    assert isinstance(thought, ReasoningPart) and thought.opaque is None
    assert thought.text is not None and thought.text.startswith("March 2027")
    assert isinstance(answer, TextPart) and "thoughtSignature" in answer.native
    assert isinstance(signed_blank, ReasoningPart)
    assert (signed_blank.text, signed_blank.opaque) == ("", "Eo0BCooBAdHtim-kJ2sL9vQ4mX1cR8eT0nW6")
    (signature_only, _) = transcript.messages[3].parts
    assert signature_only == ReasoningPart(
        opaque="EsYBCsMBAdHtim8aB3cD4eF5gH6iJ7kL8mN9",
        native=signature_only.native,
        slot="parts",
    )


def test_fixture_code_execution_pairs_by_position() -> None:
    transcript = CODEC.decode(load("code-execution.json"))
    _, code1, result1, code2, result2, _ = transcript.messages[1].parts
    for part in (code1, code2, result1, result2):
        assert isinstance(part, ToolCallPart | ToolResultPart)
        assert (part.family, part.tool_type, part.call_id) == (
            ToolFamily.HOSTED,
            "codeExecution",
            None,
        )
    assert isinstance(code1, ToolCallPart) and code1.arguments.startswith("import sympy")
    assert isinstance(result1, ToolResultPart) and result1.is_error
    assert isinstance(result2, ToolResultPart) and not result2.is_error
    assert result2.content == "5117\n"
    pairing = pair_transcript(transcript)
    assert pairing.call_results == {(1, 1): (1, 2), (1, 3): (1, 4)}


def test_fixture_multimodal() -> None:
    transcript = CODEC.decode(load("multimodal.json"))
    _, image, pdf = transcript.messages[0].parts
    assert isinstance(image, MediaPart) and image.media_type == "image/png"
    assert image.uri is not None and image.uri.startswith("data:image/png;base64,iVBOR")
    assert isinstance(pdf, MediaPart) and pdf.uri is not None and pdf.uri.endswith("inv-20270311")
    video = transcript.messages[2].parts[0]
    assert isinstance(video, MediaPart) and video.uri == "gs://shop-returns/unboxing-4411.mp4"


def test_fixture_server_side_tools_pair_by_id_within_their_tool_type() -> None:
    transcript = CODEC.decode(load("server-side-tools.json"))
    search, answer, note = transcript.messages[1].parts
    assert isinstance(search, ToolCallPart) and isinstance(answer, ToolResultPart)
    assert (search.family, search.tool_type, search.call_id) == (
        ToolFamily.HOSTED,
        "GOOGLE_SEARCH_WEB",
        "srv_01",
    )
    assert answer.tool_type == "GOOGLE_SEARCH_WEB" and answer.family is ToolFamily.HOSTED
    assert isinstance(note, ToolCallPart) and note.family is ToolFamily.FUNCTION
    assert pair_transcript(transcript).call_results == {(1, 0): (1, 1), (1, 2): (2, 0)}


def test_fixture_error_response_and_role_conventions() -> None:
    transcript = CODEC.decode(load("error-response.json"))
    assert [m.role for m in transcript.messages] == ["user", "model", "tool", "model"]
    (result,) = transcript.messages[2].parts
    assert isinstance(result, ToolResultPart) and result.is_error
    assert CODEC.message_pointer(transcript, 2) == "/2"


def test_fixture_sdk_model_dump_reads_snake_case_with_nulls() -> None:
    doc = load("sdk-model-dump.json")
    transcript = CODEC.decode(doc)
    (call,) = transcript.messages[1].parts
    assert isinstance(call, ToolCallPart) and (call.call_id, call.name) == ("tb-31", "book_table")
    (result,) = transcript.messages[2].parts
    assert isinstance(result, ToolResultPart) and result.call_id == "tb-31"
    assert [type(p) for m in transcript.messages for p in m.parts] == [
        TextPart,
        ToolCallPart,
        ToolResultPart,
        TextPart,
    ]
    new = ToolResultPart(call_id="tb-31", content="late")
    edited = with_parts(transcript, 2, result, new)
    written = CODEC.encode(edited)["contents"][2]["parts"][1]
    assert written == {
        "function_response": {"id": "tb-31", "name": "book_table", "response": {"output": "late"}}
    }


# --- decoding: shapes --------------------------------------------------------------------


def test_role_absent_or_null_reads_as_user() -> None:
    doc = [{"parts": [{"text": "a"}]}, {"role": None, "parts": [{"text": "b"}]}]
    transcript = CODEC.decode(doc)
    assert [m.role for m in transcript.messages] == ["user", "user"]
    assert dump(CODEC.encode(transcript)) == dump(doc)


def test_parts_absent_null_or_empty_give_no_parts() -> None:
    doc = [{"role": "model"}, {"role": "model", "parts": None}, {"role": "user", "parts": []}]
    assert [m.parts for m in CODEC.decode(doc).messages] == [(), (), ()]


def test_function_call_fields_and_handoff_family() -> None:
    native = {
        "functionCall": {"name": "handoff_to_billing", "args": {"x": 1}, "willContinue": False},
        "thoughtSignature": "c2ln",
    }
    part = part_of(native)
    assert part == ToolCallPart(
        call_id=None,
        name="handoff_to_billing",
        arguments={"x": 1},
        family=ToolFamily.HANDOFF,
        native=native,
        slot="parts",
    )


def test_empty_string_ids_are_ordinary_ids() -> None:
    call = part_of({"functionCall": {"id": "", "name": "f"}})
    result = part_of({"functionResponse": {"id": "", "name": "f", "response": {}}})
    assert isinstance(call, ToolCallPart) and call.call_id == ""
    assert isinstance(result, ToolResultPart) and result.call_id == ""


@pytest.mark.parametrize(
    ("response", "is_error"),
    [
        ({"output": 1}, False),
        ({"error": "boom"}, True),
        ({"error": "boom", "output": "partial"}, False),
        ({"result": 2}, False),
        (None, False),
        ([], False),
    ],
)
def test_function_response_is_error(response: Any, is_error: bool) -> None:
    part = part_of({"functionResponse": {"name": "f", "response": response}})
    assert isinstance(part, ToolResultPart)
    assert (part.is_error, part.content, part.name) == (is_error, response, "f")


@pytest.mark.parametrize(
    ("outcome", "is_error"),
    [("OUTCOME_OK", False), ("OUTCOME_FAILED", True), ("outcome_deadline_exceeded", True)],
)
def test_code_execution_outcome(outcome: str, is_error: bool) -> None:
    part = part_of({"code_execution_result": {"outcome": outcome, "output": "x"}})
    assert isinstance(part, ToolResultPart) and part.is_error is is_error


def test_a_null_field_counts_as_absent() -> None:
    native = {"text": None, "functionCall": None, "fileData": {"fileUri": "gs://a/b"}}
    part = part_of(native)
    assert isinstance(part, MediaPart) and part.uri == "gs://a/b" and part.media_type is None


def test_a_part_with_several_data_fields_reads_the_first_in_priority_order() -> None:
    native = {"text": "hi", "functionCall": {"name": "f"}}
    assert isinstance(part_of(native), ToolCallPart)
    assert dump(round_trip([{"role": "model", "parts": [native]}])) == dump(
        [{"role": "model", "parts": [native]}]
    )


@pytest.mark.parametrize(
    ("native", "kind"),
    [
        ({"text": "x", "thought": False}, "text"),
        ({"text": "x", "thoughtSignature": "s"}, "text"),
        ({"text": " \n", "thought_signature": "s"}, "reasoning"),
        ({"text": "", "thoughtSignature": None}, "text"),
        ({"thought": True}, "reasoning"),
        ({"thought_signature": ""}, "reasoning"),
        ({"videoMetadata": {"fps": 2}}, "unknown"),
        ({"thoughtSignature": "s", "searchEntryPoint": {}}, "unknown"),
        ({}, "unknown"),
    ],
)
def test_text_reasoning_and_unknown_parts(native: dict[str, Any], kind: str) -> None:
    part = part_of(native)
    assert part.kind == kind
    if isinstance(part, UnknownPart):
        assert part.type == (next(iter(native)) if native else None)


def test_envelope_keeps_its_other_keys_in_order() -> None:
    doc = {
        "model": "gemini-2.5-pro",
        "system_instruction": {"parts": [{"text": "Be terse."}]},
        "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
        "generation_config": {"temperature": 0},
    }
    transcript = CODEC.decode(doc)
    out = CODEC.encode(with_parts(transcript, 0, TextPart(text="hello")))
    assert list(out) == list(doc)
    assert out["contents"] == [{"role": "user", "parts": [{"text": "hello"}]}]
    assert CODEC.message_pointer(transcript, 0) == "/contents/0"
    assert CODEC.part_pointer(transcript, 0, 0) == "/contents/0/parts/0"


@pytest.mark.parametrize(
    ("doc", "score"),
    [
        ([{"role": "user", "parts": [{"text": "hi"}]}], 0.95),
        ([{"role": "model", "parts": [{"x": 1}]}], 0.6),
        ({"contents": []}, 0.5),
        ({"contents": [{"role": "user"}]}, 0.5),
        ([{"role": "user"}], 0.0),
        ([], 0.0),
        ({"role": "user", "contents": []}, 0.0),
        ([{"role": "user", "content": "hi", "parts": []}], 0.0),
        ([{"role": "user", "contents": [{"$type": "text", "text": "hi"}]}], 0.0),
        ({"messages": [{"role": "user", "parts": [{"text": "hi"}]}]}, 0.0),
        ([{"role": 1, "parts": []}], 0.0),
        ([{"role": "assistant", "parts": [{"text": "hi"}]}], 0.0),
        ([{"id": "m1", "role": "user", "parts": [{"type": "text", "text": "hi"}]}], 0.0),
        ([{"role": "function", "parts": [{"functionResponse": {}}]}], 0.95),
        ([{"role": "user", "parts": "x"}], 0.0),
        ("text", 0.0),
    ],
)
def test_sniff(doc: Any, score: float) -> None:
    assert CODEC.sniff(doc) == score


# --- encoding after edits ----------------------------------------------------------------

_DOC = [
    {"role": "user", "parts": [{"text": "Weather in Oslo and Bergen?"}]},
    {
        "role": "model",
        "x_trace": "t1",
        "parts": [
            {"text": "Checking both."},
            {
                "functionCall": {"id": "c1", "name": "get_weather", "args": {"city": "Oslo"}},
                "thoughtSignature": "c2lnMQ==",
            },
            {"functionCall": {"id": "c2", "name": "get_weather", "args": {"city": "Bergen"}}},
        ],
    },
    {
        "role": "user",
        "parts": [
            {"functionResponse": {"id": "c1", "name": "get_weather", "response": {"output": "4 C"}}}
        ],
    },
    {"role": "model", "parts": [{"text": "Oslo: 4 C."}]},
]


def test_dropping_a_call_keeps_the_other_parts_and_their_signatures() -> None:
    doc = copy.deepcopy(_DOC)
    transcript = CODEC.decode(doc)
    text, first, _ = transcript.messages[1].parts
    out = CODEC.encode(with_parts(transcript, 1, text, first))
    assert out[1] == {"role": "model", "x_trace": "t1", "parts": doc[1]["parts"][:2]}
    assert out[1]["parts"][1] is doc[1]["parts"][1]
    assert [out[i] is doc[i] for i in range(4)] == [True, False, True, True]


def test_dropping_the_last_part_leaves_an_empty_parts_list() -> None:
    doc = [{"role": "model", "parts": [{"functionCall": {"name": "f"}}]}]
    transcript = CODEC.decode(doc)
    out = CODEC.encode(with_parts(transcript, 0))
    assert out == [{"role": "model", "parts": []}]
    assert CODEC.decode(out).messages[0].parts == ()


@pytest.mark.parametrize("native", [{"role": "model", "parts": None}, {"role": "model"}])
def test_a_message_without_parts_keeps_its_shape(native: dict[str, Any]) -> None:
    transcript = CODEC.decode([native])
    out = CODEC.encode(with_messages(transcript, transcript.messages[0].evolve(role="user")))
    assert out == [{**native, "role": "user"}]


def test_dropping_a_result_and_a_message() -> None:
    doc = copy.deepcopy(_DOC)
    transcript = CODEC.decode(doc)
    out = CODEC.encode(with_parts(transcript, 2))
    assert out[2] == {"role": "user", "parts": []}
    messages = transcript.messages
    out = CODEC.encode(with_messages(transcript, messages[0], messages[1], messages[3]))
    assert out == [doc[0], doc[1], doc[3]] and out[2] is doc[3]


def test_moving_a_message_keeps_the_native_objects() -> None:
    doc = copy.deepcopy(_DOC)
    transcript = CODEC.decode(doc)
    m = transcript.messages
    out = CODEC.encode(with_messages(transcript, m[0], m[1], m[3], m[2]))
    assert [id(x) for x in out] == [id(doc[0]), id(doc[1]), id(doc[3]), id(doc[2])]


def test_new_synthesized_result_message_is_a_user_function_response() -> None:
    transcript = CODEC.decode(copy.deepcopy(_DOC))
    call = transcript.messages[1].parts[2]
    assert isinstance(call, ToolCallPart)
    result = synthetic_result(call, Settings())
    assert result.name is None  # the fix names only results of calls without ids
    message = Message(role="tool", parts=(result,))
    m = transcript.messages
    out = CODEC.encode(with_messages(transcript, m[0], m[1], m[2], message, m[3]))
    assert out[3] == {
        "role": "user",
        "parts": [
            {
                "functionResponse": {
                    "id": "c2",
                    "name": "get_weather",
                    "response": {"error": Settings().synthetic_result_text},
                }
            }
        ],
    }
    again = CODEC.decode(out)
    assert not pair_transcript(again).unmatched_calls
    assert again.messages[3].parts[0].metadata == {}  # metadata has no place in Gemini


def test_new_result_for_a_call_without_id_has_no_id() -> None:
    doc = [{"role": "model", "parts": [{"functionCall": {"name": "lookup", "args": {}}}]}]
    transcript = CODEC.decode(doc)
    call = transcript.messages[0].parts[0]
    assert isinstance(call, ToolCallPart)
    result = synthetic_result(call, Settings()).evolve(is_error=False, content={"n": 1})
    out = CODEC.encode(
        with_messages(transcript, *transcript.messages, Message(role="tool", parts=(result,)))
    )
    assert out[1] == {
        "role": "user",
        "parts": [{"functionResponse": {"name": "lookup", "response": {"output": {"n": 1}}}}],
    }
    assert pair_transcript(CODEC.decode(out)).call_results == {(0, 0): (1, 0)}


def test_new_hosted_results_follow_their_calls() -> None:
    doc = [
        {
            "role": "model",
            "parts": [
                {"executableCode": {"language": "PYTHON", "code": "print(1)"}},
                {"toolCall": {"id": "s1", "toolType": "GOOGLE_SEARCH_WEB", "args": {}}},
            ],
        }
    ]
    transcript = CODEC.decode(doc)
    code, search = transcript.messages[0].parts
    assert isinstance(code, ToolCallPart) and isinstance(search, ToolCallPart)
    results = tuple(
        ToolResultPart(
            call_id=c.call_id,
            content="interrupted",
            is_error=True,
            family=c.family,
            metadata={SYNTHESIZED_KEY: True},
        )
        for c in (code, search)
    )
    out = CODEC.encode(with_parts(transcript, 0, code, search, *results))
    assert out[0]["parts"][2:] == [
        {"codeExecutionResult": {"outcome": "OUTCOME_FAILED", "output": "interrupted"}},
        {"toolResponse": {"id": "s1", "toolType": "GOOGLE_SEARCH_WEB", "response": "interrupted"}},
    ]
    pairing = pair_transcript(CODEC.decode(out))
    assert pairing.call_results == {(0, 0): (0, 2), (0, 1): (0, 3)}
    message = Message(role="tool", parts=(results[0],))
    assert CODEC.encode(with_messages(transcript, *transcript.messages, message))[1] == {
        "role": "model",
        "parts": [{"codeExecutionResult": {"outcome": "OUTCOME_FAILED", "output": "interrupted"}}],
    }
    synthesized = tuple(synthetic_result(c, Settings()) for c in (code, search))
    again = CODEC.encode(with_parts(transcript, 0, code, search, *synthesized))
    text = Settings().synthetic_result_text
    assert again[0]["parts"][2:] == [
        {"codeExecutionResult": {"outcome": "OUTCOME_FAILED", "output": text}},
        {"toolResponse": {"id": "s1", "toolType": "GOOGLE_SEARCH_WEB", "response": text}},
    ]


def test_new_parts_and_messages_follow_the_dominant_snake_case() -> None:
    doc = [
        {"role": "user", "parts": [{"inline_data": {"mime_type": "image/png", "data": "AA=="}}]},
        {"role": "model", "parts": [{"function_call": {"name": "f", "args": {}}}]},
    ]
    transcript = CODEC.decode(doc)
    new_parts = (
        MediaPart(uri="data:image/gif;base64,R0lG"),
        MediaPart(media_type="application/pdf", uri="gs://b/doc.pdf"),
        ReasoningPart(text="hmm", opaque="sig"),
        ToolCallPart(call_id="n1", name="g", arguments='{"a": 1}'),
        ToolCallPart(
            call_id=None,
            name="code_execution",
            arguments="print(2)",
            family=ToolFamily.HOSTED,
            tool_type="codeExecution",
        ),
    )
    out = CODEC.encode(
        with_messages(transcript, *transcript.messages, Message(role="assistant", parts=new_parts))
    )
    assert out[2] == {
        "role": "model",
        "parts": [
            {"inline_data": {"mime_type": "image/gif", "data": "R0lG"}},
            {"file_data": {"mime_type": "application/pdf", "file_uri": "gs://b/doc.pdf"}},
            {"text": "hmm", "thought": True, "thought_signature": "sig"},
            {"function_call": {"id": "n1", "name": "g", "args": {"a": 1}}},
            {"executable_code": {"language": "PYTHON", "code": "print(2)"}},
        ],
    }


def test_an_edited_camel_case_part_stays_camel_case_in_a_snake_case_document() -> None:
    doc = [
        {"role": "user", "parts": [{"inline_data": {"mime_type": "image/png", "data": "AA=="}}]},
        {"role": "user", "parts": [{"file_data": {"file_uri": "gs://a"}}]},
        {"role": "model", "parts": [{"fileData": {"fileUri": "gs://x/a.png"}}]},
    ]
    transcript = CODEC.decode(doc)
    (media,) = transcript.messages[2].parts
    assert isinstance(media, MediaPart)
    out = CODEC.encode(with_parts(transcript, 2, media.evolve(media_type="image/png")))
    assert out[2]["parts"] == [{"fileData": {"fileUri": "gs://x/a.png", "mimeType": "image/png"}}]


def test_edited_parts_keep_unknown_fields_and_signatures() -> None:
    native = {
        "x_before": 1,
        "functionCall": {"id": "a", "name": "f", "args": {"q": 1}, "x_body": True},
        "thoughtSignature": "c2ln",
    }
    transcript = CODEC.decode([{"role": "model", "parts": [native]}])
    call = transcript.messages[0].parts[0]
    assert isinstance(call, ToolCallPart)
    out = CODEC.encode(
        with_parts(transcript, 0, call.evolve(arguments={"q": 2}, informational=True))
    )
    assert out[0]["parts"] == [
        {
            "x_before": 1,
            "functionCall": {"id": "a", "name": "f", "args": {"q": 2}, "x_body": True},
            "thoughtSignature": "c2ln",
        }
    ]


def test_edited_reasoning_keeps_its_signature_key() -> None:
    native = {"text": "", "thought_signature": "s1"}
    transcript = CODEC.decode([{"role": "model", "parts": [native]}])
    part = transcript.messages[0].parts[0]
    assert isinstance(part, ReasoningPart)
    out = CODEC.encode(with_parts(transcript, 0, part.evolve(text=" ")))
    assert out[0]["parts"] == [{"text": " ", "thought_signature": "s1"}]
    out = CODEC.encode(with_parts(transcript, 0, part.evolve(text=None)))
    assert out[0]["parts"] == [{"thought_signature": "s1"}]


def test_leading_new_system_messages_become_the_system_instruction() -> None:
    transcript = Transcript(
        messages=(
            Message(role="system", parts=(TextPart(text="Be terse."),)),
            Message(role="user", parts=(TextPart(text="hi"),)),
            Message(role="assistant", parts=(TextPart(text="Hello."),)),
        ),
        format="gemini",
    )
    out = CODEC.encode(transcript)
    assert out == {
        "systemInstruction": {"parts": [{"text": "Be terse."}]},
        "contents": [
            {"role": "user", "parts": [{"text": "hi"}]},
            {"role": "model", "parts": [{"text": "Hello."}]},
        ],
    }
    envelope = CODEC.decode({"contents": [], "model": "m"})
    out = CODEC.encode(envelope.evolve(messages=transcript.messages[:1]))
    assert out == {
        "contents": [],
        "model": "m",
        "systemInstruction": {"parts": [{"text": "Be terse."}]},
    }


def test_system_messages_that_cannot_be_lifted_raise() -> None:
    system = Message(role="developer", parts=(TextPart(text="x"),))
    user = Message(role="user", parts=(TextPart(text="hi"),))
    with pytest.raises(HistnormError, match="developer message"):
        CODEC.encode(Transcript(messages=(user, system), format="gemini"))
    has_one = CODEC.decode({"systemInstruction": {"parts": []}, "contents": []})
    with pytest.raises(HistnormError, match="already has a systemInstruction"):
        CODEC.encode(has_one.evolve(messages=(system,)))


def test_converted_openai_chat_transcript_encodes_as_gemini() -> None:
    source = OpenAIChatCodec().decode(
        orjson.loads((ROOT / "fixtures/formats/openai-chat/weather-tool.json").read_bytes())
    )
    detached = Transcript(
        messages=tuple(
            m.evolve(native=None, parts=tuple(p.evolve(native=None, slot=None) for p in m.parts))
            for m in source.messages
        ),
        format="gemini",
    )
    out = CODEC.encode(detached)
    again = CODEC.decode(out)
    assert CODEC.sniff(out) > 0.9
    assert {m.role for m in again.messages} <= {"user", "model"}
    pairing = pair_transcript(again)
    assert not pairing.unmatched_calls and not pairing.orphan_results


@pytest.mark.parametrize(
    "part",
    [
        RefusalPart(text="No."),
        UsagePart(details={"in": 1}),
        ApprovalRequestPart(request_id="r1"),
        UnknownPart(type="x"),
        MediaPart(media_type="image/png"),
    ],
    ids=lambda p: p.kind,
)
def test_parts_gemini_cannot_express_raise(part: Part) -> None:
    transcript = Transcript(messages=(Message(role="model", parts=(part,)),), format="gemini")
    with pytest.raises(HistnormError, match=f"a {part.kind} part"):
        CODEC.encode(transcript)


# --- bad input ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("doc", "pointer"),
    [
        ("x", ""),
        ({"messages": []}, ""),
        ({"contents": {"role": "user"}}, "/contents"),
        (["x"], "/0"),
        ([{"role": 5, "parts": []}], "/0/role"),
        ([{"role": "user", "parts": "hi"}], "/0/parts"),
        ([{"parts": ["hi"]}], "/0/parts/0"),
        ([{"parts": [{"text": 5}]}], "/0/parts/0/text"),
        ([{"parts": [{"functionCall": "f"}]}], "/0/parts/0/functionCall"),
        ([{"parts": [{"function_call": {"id": 5}}]}], "/0/parts/0/function_call/id"),
        ([{"parts": [{"functionCall": {"name": ["f"]}}]}], "/0/parts/0/functionCall/name"),
        ([{"parts": [{"functionResponse": {"name": 1}}]}], "/0/parts/0/functionResponse/name"),
        ([{"parts": [{"inlineData": {"mimeType": 1}}]}], "/0/parts/0/inlineData/mimeType"),
        ([{"parts": [{"file_data": {"file_uri": {}}}]}], "/0/parts/0/file_data/file_uri"),
        ([{"parts": [{"toolCall": {"toolType": 3}}]}], "/0/parts/0/toolCall/toolType"),
        ([{"parts": [{"toolResponse": {"id": False}}]}], "/0/parts/0/toolResponse/id"),
        ([{"parts": [{"executableCode": []}]}], "/0/parts/0/executableCode"),
        (
            {"contents": [{"parts": []}, {"parts": [{"functionCall": {"name": 1}}]}]},
            "/contents/1/parts/0/functionCall/name",
        ),
    ],
)
def test_bad_input_raises_histnorm_error_at_the_exact_pointer(doc: Any, pointer: str) -> None:
    with pytest.raises(HistnormError) as info:
        CODEC.decode(doc)
    assert info.value.pointer == pointer


@given(documents(max_messages=3), st.data())
@settings(max_examples=30, deadline=None, derandomize=True)
def test_a_wrongly_typed_name_is_reported_where_it_is(doc: Any, data: st.DataObject) -> None:
    bodies = ("functioncall", "functionresponse", "inlinedata", "filedata")
    depth = 5 if isinstance(doc, list) else 6  # [contents/]N/parts/K/<body>/<field>
    paths = [
        p
        for p in locations(doc)
        if len(p) == depth
        and p[-1] in ("name", "mimeType", "mime_type")
        and str(p[-2]).replace("_", "").casefold() in bodies
    ]
    if not paths:
        return
    path = data.draw(st.sampled_from(paths))
    damaged = replaced(
        doc, path, data.draw(JSON_VALUES.filter(lambda v: not isinstance(v, str | None)))
    )
    with pytest.raises(HistnormError) as info:
        CODEC.decode(damaged)
    assert info.value.pointer == "".join(f"/{t}" for t in path)


def test_new_parts_from_other_formats_take_gemini_shapes() -> None:
    doc = [{"role": "model", "parts": [{"fileData": {"fileUri": "gs://a/b.png"}, "x": 1}]}]
    transcript = CODEC.decode(doc)
    (media,) = transcript.messages[0].parts
    assert isinstance(media, MediaPart)
    unknown = UnknownPart(type="widget", native={"widget": {}}, metadata={"note": 1})
    new_parts = (
        media.evolve(uri="data:text/plain,hi%20there"),
        ToolCallPart(call_id="a", name="f", arguments=""),
        ToolCallPart(call_id="b", name="g", arguments="not json"),
        ToolResultPart(
            call_id=None, content={"rows": 2}, family=ToolFamily.HOSTED, tool_type="codeExecution"
        ),
        unknown,
    )
    out = CODEC.encode(with_parts(transcript, 0, *new_parts))
    assert out[0]["parts"] == [
        {"inlineData": {"mimeType": "text/plain", "data": "aGkgdGhlcmU="}, "x": 1},
        {"functionCall": {"id": "a", "name": "f"}},
        {"functionCall": {"id": "b", "name": "g", "args": "not json"}},
        {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": '{"rows":2}'}},
        {"widget": {}},
    ]
    assert out[0]["parts"][4] is unknown.native


def test_converted_mcp_result_is_written_in_a_user_turn_after_its_call() -> None:
    """Gemini has no server-side MCP part; google-genai's own MCP support sends the call as
    a `functionCall` and its result as a `functionResponse` in the next user turn."""
    parts = (
        TextPart(text="Looking."),
        ToolCallPart(call_id="m1", name="search", arguments={"q": "x"}, family=ToolFamily.MCP),
        ToolResultPart(call_id="m1", content="hits", family=ToolFamily.MCP),
        TextPart(text="Found it."),
    )
    transcript = Transcript(messages=(Message(role="assistant", parts=parts),), format="gemini")
    assert GeminiCodec().encode(transcript) == [
        {
            "role": "model",
            "parts": [
                {"text": "Looking."},
                {"functionCall": {"id": "m1", "name": "search", "args": {"q": "x"}}},
            ],
        },
        {
            "role": "user",
            "parts": [
                {"functionResponse": {"id": "m1", "name": "search", "response": {"output": "hits"}}}
            ],
        },
        {"role": "model", "parts": [{"text": "Found it."}]},
    ]


def test_converted_mcp_result_after_an_open_function_call_is_refused() -> None:
    parts = (
        ToolCallPart(call_id="f1", name="lookup"),
        ToolCallPart(call_id="m1", name="search", family=ToolFamily.MCP),
        ToolResultPart(call_id="m1", content="hits", family=ToolFamily.MCP),
    )
    transcript = Transcript(messages=(Message(role="model", parts=parts),), format="gemini")
    with pytest.raises(HistnormError, match="cannot"):
        GeminiCodec().encode(transcript)


def test_converted_mcp_result_leaves_a_later_function_call_to_the_next_turn() -> None:
    parts = (
        ToolCallPart(call_id="m1", name="search", family=ToolFamily.MCP),
        ToolResultPart(call_id="m1", content="hits", family=ToolFamily.MCP),
        ToolCallPart(call_id="f1", name="plot"),
    )
    messages = (
        Message(role="model", parts=parts),
        Message(role="user", parts=(ToolResultPart(call_id="f1", content="ok"),)),
    )
    out = GeminiCodec().encode(Transcript(messages=messages, format="gemini"))
    assert [(c["role"], [next(iter(p)) for p in c["parts"]]) for c in out] == [
        ("model", ["functionCall"]),
        ("user", ["functionResponse"]),
        ("model", ["functionCall"]),
        ("user", ["functionResponse"]),
    ]
