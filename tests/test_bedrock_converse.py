"""Tests for the `bedrock-converse` codec (Amazon Bedrock Converse messages, Strands Agents
histories).

Shapes come from botocore's `bedrock-runtime` service model (the `Converse` operation's
input: `Message {role, content}`, `ContentBlock` a union of one key) and from Strands
Agents (strands-agents/sdk-python, src/strands/types/content.py and session.py:
`agent.messages` is a list of such messages; `FileSessionManager` keeps each one in
`messages/message_<n>.json` as `{"message", "message_id", "redact_message", ...}`). The
fixtures under fixtures/formats/bedrock-converse/ are ours, in those shapes, and are
checked here against botocore's own validator of the Converse request (no network).
Byte comparisons go through `orjson.dumps`, since Python's `==` takes `1` and `True` as
equal.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import invoke
from codec_helpers import PROPERTY_SETTINGS, dump, resolve
from hypothesis import given
from strategies_bedrock_converse import transcripts

import histnorm
from histnorm.errors import HistnormError, NotATranscript
from histnorm.formats import CODECS, detect_format
from histnorm.formats.bedrock_converse import BedrockConverseCodec
from histnorm.model import (
    MediaPart,
    Message,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolFamily,
    ToolResultPart,
    UnknownPart,
)
from histnorm.profiles import profile_for
from histnorm.settings import OrphanCallPolicy, Settings

CODEC = BedrockConverseCodec()
ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "formats" / "bedrock-converse"
PROPERTY = PROPERTY_SETTINGS["bedrock-converse"]


def text(value: str) -> dict[str, Any]:
    return {"text": value}


def use(call_id: str, name: str = "get_weather", **args: Any) -> dict[str, Any]:
    return {"toolUse": {"toolUseId": call_id, "name": name, "input": args}}


def result(call_id: str, value: str = "54F", status: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"toolUseId": call_id, "content": [text(value)]}
    if status is not None:
        body["status"] = status
    return {"toolResult": body}


def user(*blocks: Any) -> dict[str, Any]:
    return {"role": "user", "content": list(blocks)}


def assistant(*blocks: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": list(blocks)}


def converse_errors(body: Any) -> str:
    """What botocore's validator of the `Converse` request says of `body` ("" when valid)."""
    botocore_session = pytest.importorskip("botocore.session")
    validate = pytest.importorskip("botocore.validate")
    model = botocore_session.get_session().get_service_model("bedrock-runtime")
    shape = model.operation_model("Converse").input_shape
    request = body if isinstance(body, dict) else {"messages": body}
    report = validate.ParamValidator().validate({"modelId": "m", **request}, shape)
    return str(report.generate_report()) if report.has_errors() else ""


# --- decoding ---------------------------------------------------------------------------


@PROPERTY
@given(transcripts())
def test_pointers_resolve_to_what_each_part_was_read_from(doc: Any) -> None:
    transcript = CODEC.decode(doc)
    for m, message in enumerate(transcript.messages):
        assert resolve(doc, CODEC.message_pointer(transcript, m)) is message.native
        for p, part in enumerate(message.parts):
            assert resolve(doc, CODEC.part_pointer(transcript, m, p)) is part.native


@pytest.mark.parametrize(
    ("block", "expected"),
    [
        (text("hi"), TextPart(text="hi")),
        (
            use("t1", city="Oslo"),
            ToolCallPart(call_id="t1", name="get_weather", arguments={"city": "Oslo"}),
        ),
        (
            {"toolUse": {"toolUseId": "t2", "name": "handoff_to_billing", "input": {}}},
            ToolCallPart(
                call_id="t2", name="handoff_to_billing", arguments={}, family=ToolFamily.HANDOFF
            ),
        ),
        (
            result("t1", "rain", "error"),
            ToolResultPart(call_id="t1", content=[text("rain")], is_error=True),
        ),
        (result("t1", "rain", "success"), ToolResultPart(call_id="t1", content=[text("rain")])),
        (
            {"reasoningContent": {"reasoningText": {"text": "think", "signature": "sig"}}},
            ReasoningPart(text="think", opaque="sig"),
        ),
        ({"reasoningContent": {"redactedContent": "b64"}}, ReasoningPart(opaque="b64")),
        (
            {"image": {"format": "png", "source": {"bytes": "aGk="}}},
            MediaPart(media_type="image/png"),
        ),
        (
            {
                "document": {
                    "format": "pdf",
                    "name": "d",
                    "source": {"s3Location": {"uri": "s3://b"}},
                }
            },
            MediaPart(media_type="application/pdf", uri="s3://b"),
        ),
        ({"cachePoint": {"type": "default"}}, UnknownPart(type="cachePoint")),
        ({"guardContent": {"text": {"text": "x"}}}, UnknownPart(type="guardContent")),
        ({"futureBlock": {}}, UnknownPart(type="futureBlock")),
        ({"text": "x", "cachePoint": {"type": "default"}}, UnknownPart(type=None)),
    ],
)
def test_each_block_type(block: dict[str, Any], expected: Any) -> None:
    (part,) = CODEC.decode([user(block)]).messages[0].parts
    fields = {"native": block, "slot": "content[]"}
    if isinstance(expected, ToolCallPart):
        fields["tool_type"] = "toolUse"
    if isinstance(expected, ToolResultPart):
        fields["tool_type"] = "toolResult"
    assert part == expected.evolve(**fields)


def test_a_server_tool_use_and_its_typed_result_share_a_hosted_pairing_group() -> None:
    call = {"toolUse": {"toolUseId": "s1", "name": "web", "input": {}, "type": "server_tool_use"}}
    answer = {"toolResult": {"toolUseId": "s1", "content": [], "type": "web_result"}}
    (found_call, found_result) = CODEC.decode([assistant(call, answer)]).messages[0].parts
    assert isinstance(found_call, ToolCallPart) and isinstance(found_result, ToolResultPart)
    assert found_call.family is found_result.family is ToolFamily.HOSTED
    assert (
        histnorm.lint([user(text("q")), assistant(call, answer)], select=["HN001", "HN002"]) == ()
    )


def test_a_request_body_keeps_system_and_every_other_key() -> None:
    doc = json.loads((FIXTURES / "converse-request.json").read_bytes())
    transcript = CODEC.decode(doc)
    assert [m.role for m in transcript.messages] == ["user", "assistant", "user"]
    edited = transcript.evolve(messages=transcript.messages[:1])
    out = CODEC.encode(edited)
    assert list(out) == list(doc)
    assert {k: v for k, v in out.items() if k != "messages"} == {
        k: v for k, v in doc.items() if k != "messages"
    }
    assert out["messages"] == doc["messages"][:1]


@pytest.mark.parametrize(
    ("doc", "pointer"),
    [
        ([{"content": [text("x")]}], "/0/role"),
        ([user(text("x")), {"role": "user", "content": "x"}], "/1/content"),
        ([user(text(3))], "/0/content/0/text"),  # type: ignore[arg-type]
        ([user({"toolUse": {"name": "f", "input": {}}})], "/0/content/0/toolUse/toolUseId"),
        ([user({"toolResult": []})], "/0/content/0/toolResult"),
        ({"messages": {}, "inferenceConfig": {}}, "/messages"),
    ],
)
def test_bad_input_raises_histnorm_error_with_pointer(doc: Any, pointer: str) -> None:
    with pytest.raises(HistnormError) as raised:
        CODEC.decode(doc)
    assert raised.value.pointer == pointer


# --- sniffing ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("doc", "claimed"),
    [
        ([user(text("hi"))], True),
        ([user(use("t1"))], True),
        ({"messages": [], "inferenceConfig": {"maxTokens": 5}}, True),
        ({"messages": [user()], "toolConfig": {}}, True),
        ([user({"cachePoint": {"type": "default"}})], True),
        ([user()], False),  # no mark
        ([{"role": "user", "content": "hi"}], False),  # string content: not Converse
        ([{"role": "user", "content": [{"type": "text", "text": "hi"}]}], False),
        ([{"role": "tool", "content": [text("hi")]}], False),
        ([{"role": "user", "parts": [text("hi")]}], False),  # Gemini
        ([user(text("hi")), {"role": "user", "content": [{"type": "text", "text": "x"}]}], False),
        ({"message": user(text("hi")), "message_id": 0}, False),  # a Strands session file
    ],
)
def test_sniff(doc: Any, claimed: bool) -> None:
    assert (CODEC.sniff(doc) > 0) is claimed
    if claimed:
        assert {n for n, c in CODECS.items() if c.sniff(doc) > 0} == {"bedrock-converse"}
        assert detect_format(doc) == "bedrock-converse"


def test_a_strands_session_message_file_is_no_transcript_and_says_why(tmp_path: Path) -> None:
    stored = {
        "message": user(text("hi")),
        "message_id": 0,
        "redact_message": None,
        "created_at": "2026-01-01T00:00:00+00:00",
        "updated_at": "2026-01-01T00:00:00+00:00",
    }
    with pytest.raises(NotATranscript) as raised:
        detect_format(stored)
    assert "Strands" in raised.value.message
    path = tmp_path / "message_0.json"
    path.write_text(json.dumps(stored, indent=2))
    linted = invoke("lint", "--output-format", "json", str(path))
    assert linted.exit_code == 0, linted.output
    (record,) = json.loads(linted.output)
    assert record["skipped"] == "not-a-transcript"


# --- profile and command line -----------------------------------------------------------


def test_the_format_defaults_to_the_bedrock_converse_profile() -> None:
    assert profile_for(None, "bedrock-converse").name == "bedrock-converse"
    # two user messages in a row: an error only a Converse target reports (HN107)
    doc = [user(text("a")), user(text("b"))]
    assert [d.code for d in histnorm.lint(doc)] == ["HN107"]
    assert [d.code for d in histnorm.lint(doc, profile="openai-chat")] == []


def test_format_and_profile_of_one_name_are_taken_together(tmp_path: Path) -> None:
    path = tmp_path / "h.json"
    path.write_text(json.dumps([user(text("a")), user(text("b"))]))
    for args in (
        ("--format", "bedrock-converse"),
        ("--profile", "bedrock-converse"),
        ("--format", "bedrock-converse", "--profile", "bedrock"),
    ):
        linted = invoke("lint", *args, "--output-format", "json", str(path))
        assert [d["code"] for d in json.loads(linted.output)] == ["HN107"], args
    linted = invoke("lint", "--format", "bedrock-converse", "--profile", "meai", str(path))
    assert linted.exit_code == 0, linted.output


# --- writing ----------------------------------------------------------------------------


def test_dropping_a_dangling_call_keeps_every_other_block() -> None:
    doc = [
        user(text("Weather?")),
        assistant(text("Checking."), use("t1", city="Oslo"), {"cachePoint": {"type": "default"}}),
        user(text("Never mind.")),
    ]
    before = copy.deepcopy(doc)
    fixed = histnorm.encode(histnorm.fix(doc).transcript)
    assert dump(doc) == dump(before)
    assert fixed == [
        user(text("Weather?")),
        assistant(text("Checking."), {"cachePoint": {"type": "default"}}),
        user(text("Never mind.")),
    ]
    assert converse_errors(fixed) == ""


def test_a_synthesized_result_is_a_user_tool_result_botocore_accepts() -> None:
    doc = {"messages": [user(text("Weather?")), assistant(use("t1", city="Oslo"))]}
    settings = Settings(orphan_tool_call=OrphanCallPolicy.SYNTHESIZE, tail="close")
    fixed = histnorm.encode(histnorm.fix(doc, settings).transcript)
    last = fixed["messages"][-1]
    assert last["role"] == "user"
    (block,) = last["content"]
    assert block["toolResult"]["toolUseId"] == "t1"
    assert block["toolResult"]["content"] == [text(settings.synthetic_result_text)]
    assert converse_errors(fixed) == ""


def test_a_repaired_strands_history_validates_as_a_converse_request() -> None:
    # a history whose tool result was stored after the user's next text (a displaced
    # result, which Bedrock rejects: results must open the message after their call)
    doc = [
        user(text("Book a table.")),
        assistant(use("tooluse_1", "book", party=2)),
        user(text("for 7pm")),
        user(result("tooluse_1", "booked")),
        assistant(text("Done.")),
    ]
    assert [(d.code, d.location.pointer) for d in histnorm.lint(doc)] == [("HN008", "/3/content/0")]
    fixed = histnorm.fix(doc)
    assert fixed.remaining == ()
    out = histnorm.encode(fixed.transcript)
    assert histnorm.lint(out) == ()
    assert converse_errors(out) == ""


@pytest.mark.parametrize(
    ("is_error", "status", "expected"),
    [(True, None, "error"), (False, "error", "success"), (False, "success", "success")],
)
def test_changing_is_error_writes_status(is_error: bool, status: str | None, expected: str) -> None:
    block = result("t1", "x", status)
    transcript = CODEC.decode([user(block)])
    part = transcript.messages[0].parts[0]
    message = transcript.messages[0].evolve(parts=(part.evolve(is_error=is_error),))
    (out,) = CODEC.encode(transcript.evolve(messages=(message,)))
    assert out["content"][0]["toolResult"]["status"] == expected


def test_renaming_a_call_keeps_its_other_keys() -> None:
    call = {"toolUse": {"toolUseId": "a", "name": "f", "input": {"x": 1}, "x_extra": 1}}
    transcript = CODEC.decode([assistant(call)])
    part = transcript.messages[0].parts[0]
    message = transcript.messages[0].evolve(parts=(part.evolve(call_id="b"),))
    (out,) = CODEC.encode(transcript.evolve(messages=(message,)))
    assert out["content"] == [
        {"toolUse": {"toolUseId": "b", "name": "f", "input": {"x": 1}, "x_extra": 1}}
    ]


@pytest.mark.parametrize(
    ("part", "expected"),
    [
        (TextPart(text="hi"), text("hi")),
        (
            ToolCallPart(call_id="c", name="f", arguments='{"a": 1}'),
            {"toolUse": {"toolUseId": "c", "name": "f", "input": {"a": 1}}},
        ),
        (
            ToolResultPart(call_id="c", content={"ok": True}),
            {"toolResult": {"toolUseId": "c", "content": [{"json": {"ok": True}}]}},
        ),
        (
            ToolResultPart(call_id="c", content="boom", is_error=True),
            {"toolResult": {"toolUseId": "c", "content": [text("boom")], "status": "error"}},
        ),
        (
            ReasoningPart(text="t", opaque="s"),
            {"reasoningContent": {"reasoningText": {"text": "t", "signature": "s"}}},
        ),
        (ReasoningPart(opaque="r"), {"reasoningContent": {"redactedContent": "r"}}),
        (
            MediaPart(media_type="image/png", uri="data:image/png;base64,aGk="),
            {"image": {"format": "png", "source": {"bytes": "aGk="}}},
        ),
    ],
)
def test_new_parts(part: Any, expected: Any) -> None:
    out = CODEC.encode(CODEC.decode([]).evolve(messages=(Message(role="user", parts=(part,)),)))
    assert out == [{"role": "user", "content": [expected]}]
    assert converse_errors(out) == ""


def test_a_media_part_without_inline_data_cannot_be_written() -> None:
    part = MediaPart(media_type="image/png", uri="https://example.com/a.png")
    with pytest.raises(HistnormError, match="cannot be written"):
        CODEC.encode(CODEC.decode([]).evolve(messages=(Message(role="user", parts=(part,)),)))


def test_a_new_tool_message_is_written_as_a_user_message() -> None:
    message = Message(role="tool", parts=(ToolResultPart(call_id="c", content="ok"),))
    out = CODEC.encode(CODEC.decode([]).evolve(messages=(message,)))
    assert out == [
        {"role": "user", "content": [{"toolResult": {"toolUseId": "c", "content": [text("ok")]}}]}
    ]


# --- fixtures ---------------------------------------------------------------------------


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*.json")), ids=lambda p: p.name)
def test_fixture_is_a_converse_request_botocore_accepts(path: Path) -> None:
    doc = json.loads(path.read_bytes())
    report = converse_errors(doc)
    if path.name == "unknown-blocks.json":  # a block of a kind no Converse model has
        assert 'Unknown parameter in messages[1].content[1]: "futureBlock"' in report
    else:
        assert report == ""


def test_unknown_blocks_are_reported_and_nothing_next_to_them_moves() -> None:
    data = (FIXTURES / "unknown-blocks.json").read_bytes()
    found = histnorm.lint(data)
    assert [(d.code, d.location.pointer) for d in found] == [("HN013", "/0/content/0")]
    assert "guardContent" in found[0].message and "futureBlock" in found[0].message
    fixed = histnorm.fix(data)
    assert histnorm.encode(fixed.transcript) == json.loads(data)


def test_fixture_contents_decode_as_expected() -> None:
    transcript = histnorm.load((FIXTURES / "reasoning.json").read_bytes())
    assert transcript.format == "bedrock-converse"
    kinds = [[p.kind for p in m.parts] for m in transcript.messages]
    assert kinds == [["text"], ["reasoning", "reasoning", "tool_call"], ["tool_result"], ["text"]]
    parallel = histnorm.load((FIXTURES / "parallel-tools.json").read_bytes())
    results = [p for p in parallel.messages[2].parts if isinstance(p, ToolResultPart)]
    assert [(r.call_id, r.is_error) for r in results] == [
        ("tooluse_paris", False),
        ("tooluse_tokyo", True),
    ]


def test_a_result_for_a_server_tool_call_is_not_invented() -> None:
    call = {"toolUse": {"toolUseId": "s1", "name": "web", "input": {}, "type": "server_tool_use"}}
    doc = [user(text("q")), assistant(call), user(text("more"))]
    settings = Settings(orphan_tool_call=OrphanCallPolicy.SYNTHESIZE)
    refused = histnorm.fix(doc, settings)
    assert refused.refused is not None and "server-side and MCP tools" in refused.refused
    assert histnorm.encode(refused.transcript) == doc
    dropped = histnorm.encode(histnorm.fix(doc).transcript)
    assert dropped == [user(text("q"), text("more"))]
