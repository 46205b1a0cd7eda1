"""Tests for the `meai` codec (Microsoft.Extensions.AI ChatMessage JSON).

Shapes: formats.md §5 and behaviours.md §1. Byte comparisons go through `orjson.dumps`
because Python `==` treats `1`, `1.0` and `True` as equal.

Tests named `test_bug_*` expose known codec (or model) bugs and fail until they are fixed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from codec_helpers import PROPERTY_SETTINGS, dump
from hypothesis import given
from strategies_meai import transcripts

import histnorm
from histnorm.errors import HistnormError
from histnorm.formats.meai import MeaiCodec
from histnorm.model import (
    PARTIAL_RESPONSE_KEY,
    ApprovalRequestPart,
    ApprovalResponsePart,
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

codec = MeaiCodec()
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "formats" / "meai"

PROPERTY = PROPERTY_SETTINGS["meai"]


def roundtrip(data: Any) -> Any:
    return codec.encode(codec.decode(data))


def replace_message(t: Transcript, index: int, message: Message) -> Transcript:
    messages = list(t.messages)
    messages[index] = message
    return t.evolve(messages=tuple(messages))


def replace_part(t: Transcript, mi: int, pi: int, part: Any) -> Transcript:
    parts = list(t.messages[mi].parts)
    parts[pi] = part
    return replace_message(t, mi, t.messages[mi].evolve(parts=tuple(parts)))


def one_content(content: dict[str, Any], role: str = "assistant") -> list[dict[str, Any]]:
    return [{"role": role, "contents": [content]}]


def decode_one(content: dict[str, Any]) -> Any:
    return codec.decode(one_content(content)).messages[0].parts[0]


def encode_with(data: Any, part: Any, mi: int = 0, pi: int = 0) -> Any:
    """Decode `data`, put `part` at message `mi` / part `pi`, and encode."""
    return codec.encode(replace_part(codec.decode(data), mi, pi, part))


# --- properties (the codec contract is checked in test_codec_contract.py) ---------------


def _without_natives(t: Transcript) -> Transcript:
    """The transcript as histnorm would build it from scratch.

    Unknown parts (which need their native value) and media parts without a URI (see
    test_bug_new_media_part_without_uri_loses_media_type) are dropped.
    """

    def fresh(part: Any) -> Any:
        changes: dict[str, Any] = {"native": None}
        if getattr(part, "tool_call", None) is not None:
            changes["tool_call"] = fresh(part.tool_call)
        return part.evolve(**changes)

    messages = tuple(
        m.evolve(
            native=None,
            parts=tuple(
                fresh(p)
                for p in m.parts
                if p.kind != "unknown" and not (p.kind == "media" and not p.uri)
            ),
        )
        for m in t.messages
    )
    return t.evolve(messages=messages)


def _semantics(t: Transcript) -> bytes:
    def part(p: Any) -> Any:
        out = p.model_dump(mode="json", exclude={"native"})
        if out.get("tool_call"):
            out["tool_call"].pop("native")
        return out

    return dump(
        [[m.role, m.id, m.author_name, m.metadata, [part(p) for p in m.parts]] for m in t.messages]
    )


def _type_first_everywhere(doc: Any) -> bool:
    """Whether every content (and every call nested in an approval) starts with `$type`."""
    messages = doc["messages"] if isinstance(doc, dict) else doc
    for message in messages:
        for content in message.get("contents", message.get("Contents")) or ():
            nested = [
                content.get(k) for k in ("toolCall", "functionCall", "ToolCall", "FunctionCall")
            ]
            for obj in [content, *(n for n in nested if isinstance(n, dict))]:
                if next(iter(obj), None) != "$type":
                    return False
    return True


@PROPERTY
@given(transcripts())
def test_fresh_encoding_keeps_meaning(doc: Any) -> None:
    """Parts and messages without a native value encode to content that decodes the same."""
    fresh = _without_natives(codec.decode(doc))
    encoded = codec.encode(fresh)
    assert _type_first_everywhere(encoded)
    assert _semantics(codec.decode(encoded)) == _semantics(fresh)


# --- fixtures (their round trip and detection: test_codec_contract.py) ------------------

FIXTURE_FILES = sorted(FIXTURES.glob("*.json"))


def load(name: str) -> Any:
    return orjson.loads((FIXTURES / name).read_bytes())


def test_fixture_set_has_six_files() -> None:
    assert len(FIXTURE_FILES) >= 6


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: p.name)
def test_fixture_is_written_back_with_two_space_indent(path: Path) -> None:
    raw = path.read_bytes()
    encoded = roundtrip(orjson.loads(raw))
    assert orjson.dumps(encoded, option=orjson.OPT_INDENT_2) + b"\n" == raw


def test_fixture_approval_current() -> None:
    t = codec.decode(load("approval_current.json"))
    (request,) = t.messages[1].parts
    (response,) = t.messages[2].parts
    assert isinstance(request, ApprovalRequestPart)
    assert isinstance(response, ApprovalResponsePart)
    assert request.request_id == response.request_id == "ficc_call_1"
    assert request.tool_call is not None and request.tool_call.call_id == "call_1"
    assert response.approved is True
    assert t.messages[1].id == "m1"


def test_fixture_approval_old() -> None:
    t = codec.decode(load("approval_old.json"))
    (request,) = t.messages[1].parts
    (response,) = t.messages[2].parts
    assert isinstance(request, ApprovalRequestPart)
    assert isinstance(response, ApprovalResponsePart)
    assert request.request_id == response.request_id == "call_7"
    assert request.requires_confirmation is True
    assert request.tool_call is not None and request.tool_call.name == "send_email"
    assert request.tool_call.informational is False
    assert response.approved is False and response.reason == "Not during the freeze."
    informational_call = t.messages[4].parts[0]
    assert isinstance(informational_call, ToolCallPart) and informational_call.informational
    assert t.messages[0].author_name == "dana"


def test_fixture_cosmos_pascal() -> None:
    doc = load("cosmos_pascal.json")
    t = codec.decode(doc)
    assert isinstance(t.native, dict) and t.native["conversationId"] == "thread_8c1f"
    assert [m.role for m in t.messages] == ["user", "assistant", "tool", "Assistant", "user"]
    assert t.messages[0].author_name is None and t.messages[0].metadata == {}
    assert t.messages[1].author_name == "WeatherAgent" and t.messages[1].id == "msg_01"
    assert t.messages[1].metadata == {"_attribution": {"sourceType": "ChatHistory"}}
    call = t.messages[1].parts[0]
    assert isinstance(call, ToolCallPart) and call.arguments == {"city": "Oslo"}
    result = t.messages[2].parts[0]
    assert isinstance(result, ToolResultPart) and result.content == {"tempC": -3, "sky": "snow"}
    response = t.messages[4].parts[0]
    assert isinstance(response, ApprovalResponsePart) and response.reason is None
    assert codec.part_pointer(t, 3, 0) == "/messages/3/Contents/0"


def test_fixture_partial_response() -> None:
    t = codec.decode(load("partial_response.json"))
    assert [m.is_partial for m in t.messages] == [False, True, False]


def test_fixture_mcp() -> None:
    t = codec.decode(load("mcp_server_tool.json"))
    call, result, _ = t.messages[1].parts
    assert isinstance(call, ToolCallPart) and call.family is ToolFamily.MCP
    assert isinstance(result, ToolResultPart) and result.family is ToolFamily.MCP
    assert call.call_id == result.call_id == "mcp_01"
    assert result.content == [{"$type": "text", "text": '[{"name": "histnorm"}]'}]


def test_fixture_reasoning() -> None:
    t = codec.decode(load("reasoning_protected.json"))
    first, second, _, usage = t.messages[2].parts
    assert isinstance(first, ReasoningPart) and first.opaque.startswith("gAAAAAB")
    assert isinstance(second, ReasoningPart) and second.opaque is None
    assert isinstance(usage, UsagePart) and usage.details["totalTokenCount"] == 43


def test_fixture_data_content() -> None:
    t = codec.decode(load("data_content.json"))
    kinds = [(p.kind, getattr(p, "media_type", None)) for p in t.messages[0].parts]
    assert kinds == [
        ("text", None),
        ("media", "image/png"),
        ("media", "image/jpeg"),
        ("media", "application/pdf"),
        ("media", "application/pdf"),
    ]
    error = t.messages[1].parts[0]
    assert isinstance(error, UnknownPart) and error.type == "error"


def test_fixture_handoff() -> None:
    t = codec.decode(load("handoff.json"))
    call = t.messages[1].parts[0]
    assert isinstance(call, ToolCallPart) and call.family is ToolFamily.HANDOFF
    assert call.name == "handoff_to_billing" and not call.informational
    assert [m.author_name for m in t.messages] == [None, "triage", "triage", "billing"]


# --- decoding examples -----------------------------------------------------------------

CALL = {"$type": "functionCall", "callId": "c1", "name": "rm", "arguments": {"path": "/x"}}


@pytest.mark.parametrize(
    ("kind", "part_kind", "family"),
    [
        ("functionCall", "tool_call", ToolFamily.FUNCTION),
        ("toolCall", "tool_call", ToolFamily.FUNCTION),
        ("mcpServerToolCall", "tool_call", ToolFamily.MCP),
        ("codeInterpreterToolCall", "tool_call", ToolFamily.HOSTED),
        ("imageGenerationToolCall", "tool_call", ToolFamily.HOSTED),
        ("webSearchToolCall", "tool_call", ToolFamily.HOSTED),
        ("functionResult", "tool_result", ToolFamily.FUNCTION),
        ("toolResult", "tool_result", ToolFamily.FUNCTION),
        ("mcpServerToolResult", "tool_result", ToolFamily.MCP),
        ("codeInterpreterToolResult", "tool_result", ToolFamily.HOSTED),
        ("imageGenerationToolResult", "tool_result", ToolFamily.HOSTED),
        ("webSearchToolResult", "tool_result", ToolFamily.HOSTED),
    ],
)
def test_decode_tool_contents(kind: str, part_kind: str, family: ToolFamily) -> None:
    part = decode_one({"$type": kind, "callId": "c9", "name": "tool"})
    assert part.kind == part_kind
    assert part.family is family
    assert part.tool_type == kind
    assert part.call_id == "c9"
    assert part.slot == "contents"


@pytest.mark.parametrize(
    ("kind", "part_kind"),
    [
        ("text", "text"),
        ("reasoning", "reasoning"),
        ("data", "media"),
        ("uri", "media"),
        ("hostedFile", "media"),
        ("hostedVectorStore", "media"),
        ("usage", "usage"),
        ("error", "unknown"),
        ("citation", "unknown"),
        ("Text", "unknown"),
        ("toolApprovalRequest", "approval_request"),
        ("functionApprovalRequest", "approval_request"),
        ("inputRequest", "approval_request"),
        ("userInputRequest", "approval_request"),
        ("mcpServerToolApprovalRequest", "approval_request"),
        ("toolApprovalResponse", "approval_response"),
        ("functionApprovalResponse", "approval_response"),
        ("inputResponse", "approval_response"),
        ("userInputResponse", "approval_response"),
        ("mcpServerToolApprovalResponse", "approval_response"),
    ],
)
def test_decode_other_contents(kind: str, part_kind: str) -> None:
    content = {"$type": kind, "text": "t", "requestId": "r1", "id": "r1"}
    part = decode_one(content)
    assert part.kind == part_kind
    assert part.native is content or part.native == content
    if part_kind == "unknown":
        assert part.type == kind


def test_decode_text_and_reasoning() -> None:
    text = decode_one({"$type": "text", "text": ""})
    assert isinstance(text, TextPart) and text.text == ""
    reasoning = decode_one({"$type": "reasoning", "text": "hm", "protectedData": "enc=="})
    assert isinstance(reasoning, ReasoningPart)
    assert (reasoning.text, reasoning.opaque) == ("hm", "enc==")
    plain = decode_one({"$type": "reasoning", "text": "hm"})
    assert isinstance(plain, ReasoningPart) and plain.opaque is None


def test_decode_function_call_fields() -> None:
    arguments = {"path": "/x", "n": [1, 2.5, None]}
    part = decode_one({**CALL, "arguments": arguments})
    assert isinstance(part, ToolCallPart)
    assert (part.call_id, part.name, part.family) == ("c1", "rm", ToolFamily.FUNCTION)
    assert part.arguments == arguments and dump(part.arguments) == dump(arguments)
    assert part.informational is False
    assert decode_one({**CALL, "callId": ""}).call_id == ""
    assert decode_one({"$type": "functionCall", "callId": "c"}).arguments is None


@pytest.mark.parametrize(
    ("flags", "informational"),
    [
        ({}, False),
        ({"informationalOnly": True}, True),
        ({"informationalOnly": False}, False),
        ({"invocationRequired": False}, True),
        ({"invocationRequired": True}, False),
        ({"InformationalOnly": True}, True),
        ({"InvocationRequired": False}, True),
    ],
)
def test_decode_informational(flags: dict[str, Any], informational: bool) -> None:
    assert decode_one({**CALL, **flags}).informational is informational


@pytest.mark.parametrize(
    ("kind", "name", "family"),
    [
        ("functionCall", "handoff_to_billing", ToolFamily.HANDOFF),
        ("functionCall", "handoff_to_", ToolFamily.HANDOFF),
        ("toolCall", "handoff_to_sales", ToolFamily.HANDOFF),
        ("functionCall", "handoff", ToolFamily.FUNCTION),
        ("functionCall", "Handoff_to_billing", ToolFamily.FUNCTION),
        ("mcpServerToolCall", "handoff_to_billing", ToolFamily.MCP),
    ],
)
def test_decode_handoff_family(kind: str, name: str, family: ToolFamily) -> None:
    assert decode_one({"$type": kind, "callId": "h", "name": name}).family is family


def test_decode_results() -> None:
    result = decode_one({"$type": "functionResult", "callId": "c1", "result": [1, {"a": None}]})
    assert isinstance(result, ToolResultPart)
    assert (result.call_id, result.content, result.is_error) == ("c1", [1, {"a": None}], False)
    assert result.family is ToolFamily.FUNCTION
    outputs = [{"$type": "text", "text": "x"}]
    mcp = decode_one({"$type": "mcpServerToolResult", "callId": "m1", "outputs": outputs})
    assert isinstance(mcp, ToolResultPart) and mcp.content == outputs
    assert mcp.family is ToolFamily.MCP
    pascal = decode_one({"$type": "functionResult", "CallId": "c2", "Result": None})
    assert isinstance(pascal, ToolResultPart) and pascal.call_id == "c2"


def test_decode_approval_request_current() -> None:
    part = decode_one(
        {
            "$type": "toolApprovalRequest",
            "requestId": "ficc_c1",
            "toolCall": CALL,
            "requiresConfirmation": False,
        }
    )
    assert isinstance(part, ApprovalRequestPart)
    assert part.request_id == "ficc_c1" and part.requires_confirmation is False
    assert isinstance(part.tool_call, ToolCallPart)
    assert (part.tool_call.call_id, part.tool_call.name) == ("c1", "rm")
    assert part.tool_call.arguments == {"path": "/x"}
    assert part.tool_call.native == CALL


def test_decode_approval_request_old_and_defaults() -> None:
    part = decode_one({"$type": "functionApprovalRequest", "id": "c1", "functionCall": CALL})
    assert isinstance(part, ApprovalRequestPart)
    assert part.request_id == "c1"
    assert part.requires_confirmation is True  # absent in older writers
    assert part.tool_call is not None and part.tool_call.call_id == "c1"
    current = decode_one({"$type": "toolApprovalRequest", "requestId": "r", "toolCall": CALL})
    assert current.requires_confirmation is True
    explicit = decode_one(
        {"$type": "toolApprovalRequest", "requestId": "r", "requiresConfirmation": True}
    )
    assert explicit.requires_confirmation is True and explicit.tool_call is None
    pascal = decode_one({"$type": "functionApprovalRequest", "Id": "p", "FunctionCall": None})
    assert pascal.request_id == "p" and pascal.tool_call is None


def test_decode_mcp_call_inside_approval() -> None:
    mcp = {"$type": "mcpServerToolCall", "callId": "m1", "name": "search", "serverName": "gh"}
    part = decode_one({"$type": "toolApprovalRequest", "requestId": "ficc_m1", "toolCall": mcp})
    assert part.tool_call is not None and part.tool_call.family is ToolFamily.MCP


def test_decode_approval_responses() -> None:
    current = decode_one(
        {"$type": "toolApprovalResponse", "requestId": "r1", "approved": True, "toolCall": CALL}
    )
    assert isinstance(current, ApprovalResponsePart)
    assert (current.request_id, current.approved, current.reason) == ("r1", True, None)
    assert current.tool_call is not None and current.tool_call.name == "rm"
    old = decode_one(
        {
            "$type": "functionApprovalResponse",
            "id": "c1",
            "approved": False,
            "functionCall": CALL,
            "reason": "no",
        }
    )
    assert isinstance(old, ApprovalResponsePart)
    assert (old.request_id, old.approved, old.reason) == ("c1", False, "no")
    assert old.tool_call is not None and old.tool_call.call_id == "c1"
    pascal = decode_one(
        {
            "$type": "toolApprovalResponse",
            "RequestId": "r2",
            "Approved": True,
            "ToolCall": None,
            "Reason": None,
        }
    )
    assert (pascal.request_id, pascal.approved, pascal.tool_call) == ("r2", True, None)


def test_decode_media() -> None:
    png = decode_one({"$type": "data", "uri": "data:image/png;base64,AAAA"})
    assert isinstance(png, MediaPart)
    assert (png.media_type, png.uri) == ("image/png", "data:image/png;base64,AAAA")
    explicit = decode_one(
        {"$type": "data", "uri": "data:image/png;base64,AAAA", "mediaType": "image/png"}
    )
    assert explicit.media_type == "image/png"
    uri = decode_one({"$type": "uri", "uri": "https://x/y.pdf", "mediaType": "application/pdf"})
    assert (uri.media_type, uri.uri) == ("application/pdf", "https://x/y.pdf")
    hosted = decode_one({"$type": "hostedFile", "fileId": "file-1"})
    assert isinstance(hosted, MediaPart) and hosted.uri is None
    pascal = decode_one({"$type": "data", "Uri": "data:audio/wav;base64,", "MediaType": None})
    assert pascal.media_type == "audio/wav"


def test_decode_usage() -> None:
    usage = decode_one({"$type": "usage", "details": {"inputTokenCount": 3}})
    assert isinstance(usage, UsagePart) and usage.details == {"inputTokenCount": 3}


def test_decode_message_fields_and_metadata() -> None:
    props = {PARTIAL_RESPONSE_KEY: True, "_attribution": {"source": "x"}}
    doc = [
        {
            "role": "Assistant",
            "authorName": "bot",
            "messageId": "m1",
            "createdAt": "2026-01-01T00:00:00Z",
            "additionalProperties": props,
            "contents": [{"$type": "text", "text": "hi", "additionalProperties": {"k": [1]}}],
        },
        {
            "Role": "critic",
            "AuthorName": None,
            "MessageId": None,
            "AdditionalProperties": None,
            "Contents": [],
        },
    ]
    t = codec.decode(doc)
    assert t.format == "meai" and t.native is None
    first, second = t.messages
    assert first.role == "Assistant" and first.role_is("assistant")
    assert (first.id, first.author_name) == ("m1", "bot")
    assert first.metadata == props and first.is_partial
    assert first.parts[0].metadata == {"k": [1]}
    assert first.native is doc[0]
    assert (second.role, second.id, second.author_name, second.metadata) == (
        "critic",
        None,
        None,
        {},
    )
    assert not second.is_partial and second.parts == ()


def test_decode_metadata_is_a_copy() -> None:
    props = {"a": 1}
    t = codec.decode([{"role": "user", "contents": [], "additionalProperties": props}])
    assert t.messages[0].metadata == props
    assert t.messages[0].metadata is not props


@pytest.mark.parametrize("value", [True, "true", "TRUE", 1])
def test_partial_marker_truthy(value: Any) -> None:
    doc = [
        {"role": "assistant", "contents": [], "additionalProperties": {PARTIAL_RESPONSE_KEY: value}}
    ]
    assert codec.decode(doc).messages[0].is_partial


@pytest.mark.parametrize("value", [False, 0, None])
def test_partial_marker_falsy(value: Any) -> None:
    doc = [
        {"role": "assistant", "contents": [], "additionalProperties": {PARTIAL_RESPONSE_KEY: value}}
    ]
    assert not codec.decode(doc).messages[0].is_partial


def test_envelope_is_kept() -> None:
    doc = {"conversationId": "c", "messages": [{"role": "user", "contents": []}], "v": 2}
    t = codec.decode(doc)
    assert t.native is doc
    assert dump(codec.encode(t)) == dump(doc)
    assert codec.sniff([{"role": "user", "contents": []}]) > 0


# --- pointers --------------------------------------------------------------------------

FOUR = [{"role": "user", "contents": [{"$type": "text", "text": str(i)}]} for i in range(4)]
PASCAL_FOUR = [{"Role": "user", "Contents": [{"$type": "text", "Text": str(i)}]} for i in range(4)]


def test_pointers_bare_list() -> None:
    t = codec.decode(FOUR)
    assert codec.message_pointer(t, 3) == "/3"
    assert codec.part_pointer(t, 3, 0) == "/3/contents/0"


def test_pointers_pascal() -> None:
    t = codec.decode(PASCAL_FOUR)
    assert codec.message_pointer(t, 3) == "/3"
    assert codec.part_pointer(t, 3, 0) == "/3/Contents/0"


def test_pointers_envelope() -> None:
    t = codec.decode({"messages": FOUR})
    assert codec.message_pointer(t, 3) == "/messages/3"
    assert codec.part_pointer(t, 3, 0) == "/messages/3/contents/0"
    t = codec.decode({"messages": PASCAL_FOUR})
    assert codec.part_pointer(t, 2, 0) == "/messages/2/Contents/0"


def test_pointer_of_a_new_message_uses_camel_case() -> None:
    t = codec.decode(FOUR)
    t = t.evolve(messages=(*t.messages, Message(role="user", parts=(TextPart(text="x"),))))
    assert codec.part_pointer(t, 4, 0) == "/4/contents/0"


# --- encoding after model edits --------------------------------------------------------


def test_removing_a_content_keeps_the_others_byte_identical() -> None:
    doc = [
        {
            "x_before": 1,
            "role": "assistant",
            "messageId": "m1",
            "contents": [
                {"$type": "text", "text": "a", "x": 1.0, "additionalProperties": {"k": True}},
                {
                    "$type": "functionCall",
                    "callId": "c",
                    "name": "f",
                    "arguments": {"n": 1},
                    "x_vendor": [True, 1],
                },
                {"$type": "reasoning", "text": "", "protectedData": "enc"},
                {"$type": "citation", "url": "https://x", "other": {"a": 1}},
            ],
            "createdAt": "2026-01-01T00:00:00Z",
        }
    ]
    t = codec.decode(doc)
    message = t.messages[0]
    edited = replace_message(t, 0, message.evolve(parts=message.parts[:1] + message.parts[2:]))
    out = codec.encode(edited)
    assert list(out[0]) == list(doc[0])
    assert [dump(c) for c in out[0]["contents"]] == [
        dump(c) for c in (doc[0]["contents"][0], *doc[0]["contents"][2:])
    ]
    expected = {**doc[0], "contents": [doc[0]["contents"][0], *doc[0]["contents"][2:]]}
    assert dump(out) == dump([expected])


def test_new_part_in_pascal_message_is_pascal_case() -> None:
    doc = [{"Role": "assistant", "Contents": [{"$type": "text", "Text": "a"}], "AuthorName": None}]
    t = codec.decode(doc)
    call = ToolCallPart(call_id="c1", name="f", arguments={"a": 1})
    text = TextPart(text="b", metadata={"histnorm.synthesized": True})
    parts = (*t.messages[0].parts, text, call)
    out = codec.encode(replace_message(t, 0, t.messages[0].evolve(parts=parts)))
    contents = out[0]["Contents"]
    assert dump(contents[0]) == dump(doc[0]["Contents"][0])
    assert list(contents[1]) == ["$type", "Text", "AdditionalProperties"]
    assert contents[1] == {
        "$type": "text",
        "Text": "b",
        "AdditionalProperties": {"histnorm.synthesized": True},
    }
    assert next(iter(contents[2])) == "$type"
    assert contents[2]["$type"] == "functionCall"
    assert {"CallId", "Name", "Arguments"} <= set(contents[2])
    assert all(k == "$type" or k[:1].isupper() for k in contents[2])
    assert list(out[0]) == ["Role", "Contents", "AuthorName"]


def test_new_approval_in_pascal_message_nests_pascal_call() -> None:
    doc = [{"Role": "assistant", "Contents": []}]
    t = codec.decode(doc)
    request = ApprovalRequestPart(
        request_id="ficc_c1",
        tool_call=ToolCallPart(call_id="c1", name="rm"),
        requires_confirmation=False,
    )
    out = codec.encode(replace_message(t, 0, t.messages[0].evolve(parts=(request,))))
    content = out[0]["Contents"][0]
    assert next(iter(content)) == "$type" and content["$type"] == "toolApprovalRequest"
    assert content["RequestId"] == "ficc_c1" and content["RequiresConfirmation"] is False
    assert next(iter(content["ToolCall"])) == "$type"
    assert content["ToolCall"]["CallId"] == "c1"
    decoded = codec.decode(out).messages[0].parts[0]
    assert isinstance(decoded, ApprovalRequestPart)
    assert decoded.tool_call is not None and decoded.tool_call.name == "rm"


def test_new_message_in_pascal_transcript_is_pascal_case() -> None:
    t = codec.decode(PASCAL_FOUR)
    new = Message(role="assistant", author_name="bot", parts=(TextPart(text="x"),))
    out = codec.encode(t.evolve(messages=(*t.messages, new)))
    assert out[:4] == PASCAL_FOUR
    assert out[4] == {
        "Role": "assistant",
        "Contents": [{"$type": "text", "Text": "x"}],
        "AuthorName": "bot",
    }


def test_new_message_in_camel_transcript_is_camel_case() -> None:
    t = codec.decode(FOUR)
    new = Message(role="tool", id="m5", parts=(ToolResultPart(call_id="c", content={"ok": 1}),))
    out = codec.encode(t.evolve(messages=(*t.messages, new)))
    assert out[4] == {
        "role": "tool",
        "contents": [{"$type": "functionResult", "callId": "c", "result": {"ok": 1}}],
        "messageId": "m5",
    }


def test_evolved_old_approval_request_keeps_old_names() -> None:
    doc = one_content(
        {"$type": "functionApprovalRequest", "id": "c1", "functionCall": CALL, "x_keep": 1}
    )
    part = codec.decode(doc).messages[0].parts[0]
    assert isinstance(part, ApprovalRequestPart)
    new_call = part.tool_call.evolve(arguments={"path": "/y"})  # type: ignore[union-attr]
    out = encode_with(doc, part.evolve(request_id="c2", tool_call=new_call))
    content = out[0]["contents"][0]
    assert list(content) == ["$type", "id", "functionCall", "x_keep"]
    assert content["$type"] == "functionApprovalRequest" and content["id"] == "c2"
    assert content["functionCall"] == {**CALL, "arguments": {"path": "/y"}}


def test_evolved_old_approval_response_keeps_old_names() -> None:
    doc = one_content(
        {"$type": "functionApprovalResponse", "id": "c1", "approved": True, "functionCall": CALL},
        role="user",
    )
    part = codec.decode(doc).messages[0].parts[0]
    out = encode_with(doc, part.evolve(approved=False, reason="too risky"))
    content = out[0]["contents"][0]
    assert list(content) == ["$type", "id", "approved", "functionCall", "reason"]
    assert (content["approved"], content["reason"]) == (False, "too risky")
    assert "requestId" not in content and "toolCall" not in content
    assert "requiresConfirmation" not in content


def test_evolved_current_approval_keeps_current_names() -> None:
    doc = one_content({"$type": "toolApprovalRequest", "requestId": "r1", "toolCall": CALL})
    part = codec.decode(doc).messages[0].parts[0]
    out = encode_with(doc, part.evolve(requires_confirmation=False))
    assert out[0]["contents"][0] == {
        "$type": "toolApprovalRequest",
        "requestId": "r1",
        "toolCall": CALL,
        "requiresConfirmation": False,
    }


def test_new_tool_call_with_string_arguments_is_written_as_object() -> None:
    t = codec.decode([{"role": "assistant", "contents": []}])
    call = ToolCallPart(call_id="c1", name="get_weather", arguments='{"city": "Paris", "n": 1}')
    out = codec.encode(replace_message(t, 0, t.messages[0].evolve(parts=(call,))))
    content = out[0]["contents"][0]
    assert next(iter(content)) == "$type" and content["$type"] == "functionCall"
    assert content["arguments"] == {"city": "Paris", "n": 1}
    assert content["callId"] == "c1" and content["name"] == "get_weather"


def test_informational_edit_keeps_the_flag_generation() -> None:
    old = one_content({**CALL, "invocationRequired": True})
    part = codec.decode(old).messages[0].parts[0]
    content = encode_with(old, part.evolve(informational=True))[0]["contents"][0]
    assert content["invocationRequired"] is False and "informationalOnly" not in content
    current = one_content(CALL)
    part = codec.decode(current).messages[0].parts[0]
    content = encode_with(current, part.evolve(informational=True))[0]["contents"][0]
    assert content["informationalOnly"] is True


def test_editing_a_message_keeps_unknown_keys_in_order() -> None:
    doc = [
        {
            "x_first": [1, True],
            "role": "assistant",
            "x_mid": {"b": 1, "a": 2},
            "contents": [{"$type": "text", "text": "a"}],
            "createdAt": "2026-01-01T00:00:00Z",
            "x_last": None,
        }
    ]
    t = codec.decode(doc)
    out = codec.encode(replace_message(t, 0, t.messages[0].evolve(role="Assistant", id="m7")))
    assert list(out[0]) == [*doc[0], "messageId"]
    assert out[0]["role"] == "Assistant" and out[0]["messageId"] == "m7"
    assert dump(out[0]["x_mid"]) == dump(doc[0]["x_mid"])
    assert dump(out[0]["contents"]) == dump(doc[0]["contents"])


def test_editing_pascal_message_keeps_keys_and_nulls() -> None:
    doc = [
        {
            "AuthorName": None,
            "Role": "user",
            "Contents": [],
            "MessageId": None,
            "AdditionalProperties": None,
        }
    ]
    t = codec.decode(doc)
    out = codec.encode(replace_message(t, 0, t.messages[0].evolve(author_name="dana")))
    assert out == [
        {
            "AuthorName": "dana",
            "Role": "user",
            "Contents": [],
            "MessageId": None,
            "AdditionalProperties": None,
        }
    ]


def test_editing_a_content_keeps_its_casing_and_order() -> None:
    doc = [
        {
            "Role": "tool",
            "Contents": [
                {
                    "$type": "functionResult",
                    "Annotations": None,
                    "CallId": "c1",
                    "Result": "x",
                    "AdditionalProperties": None,
                }
            ],
        }
    ]
    t = codec.decode(doc)
    part = t.messages[0].parts[0]
    out = encode_with(doc, part.evolve(content={"ok": True}))
    assert list(out[0]["Contents"][0]) == [
        "$type",
        "Annotations",
        "CallId",
        "Result",
        "AdditionalProperties",
    ]
    assert out[0]["Contents"][0]["Result"] == {"ok": True}


def test_adding_metadata_to_a_message() -> None:
    doc = [{"role": "assistant", "contents": []}]
    t = codec.decode(doc)
    marked = t.messages[0].evolve(metadata={PARTIAL_RESPONSE_KEY: True})
    out = codec.encode(replace_message(t, 0, marked))
    assert out == [
        {"role": "assistant", "contents": [], "additionalProperties": {PARTIAL_RESPONSE_KEY: True}}
    ]
    assert codec.decode(out).messages[0].is_partial


def test_editing_does_not_add_null_properties() -> None:
    """MEAI omits nulls (WhenWritingNull); an edit must not add `"arguments": null`."""
    doc = one_content(
        {"$type": "mcpServerToolCall", "callId": "m1", "name": "search", "serverName": "github"}
    )
    part = codec.decode(doc).messages[0].parts[0]
    out = encode_with(doc, part.evolve(metadata={"k": 1}))
    assert out[0]["contents"][0] == {**doc[0]["contents"][0], "additionalProperties": {"k": 1}}


def test_refusal_cannot_be_written() -> None:
    from histnorm.model import RefusalPart

    t = codec.decode([{"role": "assistant", "contents": []}])
    edited = replace_message(t, 0, t.messages[0].evolve(parts=(RefusalPart(text="no"),)))
    with pytest.raises(HistnormError):
        codec.encode(edited)


# --- bad input -------------------------------------------------------------------------

OK = {"role": "user", "contents": []}


@pytest.mark.parametrize(
    ("doc", "pointer"),
    [
        ("not a transcript", ""),
        (42, ""),
        (None, ""),
        ({"conversation": []}, ""),
        ({"messages": {"role": "user"}}, "/messages"),
        ({"messages": "x"}, "/messages"),
        ([OK, 5], "/1"),
        ([["role", "user"]], "/0"),
        ({"messages": [OK, OK, None]}, "/messages/2"),
        ([{"contents": []}], "/0/role"),
        ([{"role": None, "contents": []}], "/0/role"),
        ([{"role": 1, "contents": []}], "/0/role"),
        ([{"Role": ["user"], "Contents": []}], "/0/Role"),
        ([{"role": "user", "contents": "hi"}], "/0/contents"),
        ([{"Role": "user", "Contents": {"$type": "text"}}], "/0/Contents"),
        ([{"role": "user", "contents": [{"$type": "text", "text": "a"}, "b"]}], "/0/contents/1"),
        ([OK, {"role": "user", "contents": [None]}], "/1/contents/0"),
        (
            [{"role": "user", "contents": [{"$type": "functionCall", "name": "f"}]}],
            "/0/contents/0/callId",
        ),
        (
            [{"role": "user", "contents": [{"$type": "functionCall", "callId": None}]}],
            "/0/contents/0/callId",
        ),
        (
            [{"Role": "user", "Contents": [{"$type": "functionCall", "CallId": 7}]}],
            "/0/Contents/0/CallId",
        ),
        (
            [{"role": "tool", "contents": [{"$type": "functionResult", "callId": 12}]}],
            "/0/contents/0/callId",
        ),
        (
            [{"role": "tool", "contents": [{"$type": "functionResult", "result": 1}]}],
            "/0/contents/0/callId",
        ),
        (
            [{"role": "a", "contents": [{"$type": "toolApprovalRequest", "toolCall": CALL}]}],
            "/0/contents/0/requestId",
        ),
        (
            [{"role": "a", "contents": [{"$type": "toolApprovalResponse", "requestId": 3}]}],
            "/0/contents/0/requestId",
        ),
        (
            [
                {
                    "role": "a",
                    "contents": [
                        {"$type": "toolApprovalRequest", "requestId": "r", "toolCall": "c1"}
                    ],
                }
            ],
            "/0/contents/0/toolCall",
        ),
        (
            [
                {
                    "role": "a",
                    "contents": [
                        {
                            "$type": "toolApprovalRequest",
                            "requestId": "r",
                            "toolCall": {"$type": "text", "text": "x"},
                        }
                    ],
                }
            ],
            "/0/contents/0/toolCall",
        ),
        (
            [
                {
                    "role": "a",
                    "contents": [
                        {
                            "$type": "functionApprovalRequest",
                            "id": "r",
                            "functionCall": {"$type": "functionCall"},
                        }
                    ],
                }
            ],
            "/0/contents/0/functionCall/callId",
        ),
        (
            [{"role": "user", "contents": [], "additionalProperties": [1]}],
            "/0/additionalProperties",
        ),
        (
            [{"Role": "user", "Contents": [], "AdditionalProperties": "x"}],
            "/0/AdditionalProperties",
        ),
        (
            [
                {
                    "role": "user",
                    "contents": [{"$type": "text", "text": "a", "additionalProperties": 1}],
                }
            ],
            "/0/contents/0/additionalProperties",
        ),
        ([{"role": "user", "contents": [], "messageId": 5}], "/0/messageId"),
        ([{"role": "user", "contents": [], "authorName": False}], "/0/authorName"),
        ([{"role": "a", "contents": [{"$type": "reasoning", "text": 1}]}], "/0/contents/0/text"),
        (
            [
                {
                    "role": "a",
                    "contents": [{"$type": "toolApprovalResponse", "requestId": "r", "reason": 5}],
                }
            ],
            "/0/contents/0/reason",
        ),
        (
            [{"role": "a", "contents": [{"$type": "functionCall", "callId": "c", "name": 5}]}],
            "/0/contents/0/name",
        ),
    ],
)
def test_bad_input_raises_histnorm_error(doc: Any, pointer: str) -> None:
    with pytest.raises(HistnormError) as info:
        codec.decode(doc)
    assert info.value.pointer == pointer


def test_old_approval_request_without_id_raises() -> None:
    doc = [{"role": "a", "contents": [{"$type": "functionApprovalRequest", "functionCall": CALL}]}]
    with pytest.raises(HistnormError) as info:
        codec.decode(doc)
    assert info.value.pointer in ("/0/contents/0/id", "/0/contents/0/requestId")


def test_bad_input_pointer_inside_envelope() -> None:
    with pytest.raises(HistnormError) as info:
        codec.decode({"messages": [OK, {"role": "user", "contents": [{"$type": "toolResult"}]}]})
    assert info.value.pointer == "/messages/1/contents/0/callId"


@pytest.mark.parametrize(
    "doc",
    [[], {"messages": []}, [1], [{"contents": []}], "x", None, [{"role": "user", "content": "hi"}]],
)
def test_sniff_rejects(doc: Any) -> None:
    assert codec.sniff(doc) == 0


# --- known bugs (these fail until the codec or model is fixed) -------------------------


@pytest.mark.parametrize("kind", [[], ["text"], {"a": 1}])
def test_regression_unhashable_type_discriminator_raises_type_error(kind: Any) -> None:
    """A non-string `$type` must give HistnormError (or an unknown part), not TypeError."""
    doc = [{"role": "user", "contents": [{"$type": kind, "text": "x"}]}]
    try:
        transcript = codec.decode(doc)
    except HistnormError as error:
        assert error.pointer is not None and error.pointer.startswith("/0/contents/0")
        return
    assert transcript.messages[0].parts[0].kind == "unknown"


def test_regression_cleared_message_metadata_comes_back() -> None:
    """Stripping the partial-response marker (behaviours.md §2.6) must remove it on write."""
    from histnorm.behaviours.partial import strip_partial_markers

    doc = [
        {"role": "assistant", "contents": [], "additionalProperties": {PARTIAL_RESPONSE_KEY: True}}
    ]
    t = codec.decode(doc)
    out = codec.encode(replace_message(t, 0, t.messages[0].evolve(metadata={})))
    assert not codec.decode(out).messages[0].is_partial
    out = codec.encode(strip_partial_markers(t))
    assert out[0].get("additionalProperties") in (None, {})


def test_regression_cleared_content_metadata_comes_back() -> None:
    doc = one_content({"$type": "text", "text": "a", "additionalProperties": {"k": 1}})
    part = codec.decode(doc).messages[0].parts[0]
    out = encode_with(doc, part.evolve(metadata={}))
    assert codec.decode(out).messages[0].parts[0].metadata == {}


def test_regression_edit_equal_under_python_eq_is_lost() -> None:
    """`reuse_native` compares with ==, so 1 -> True (or 1 -> 1.0) counts as "unchanged"."""
    doc = [{"role": "tool", "contents": [{"$type": "functionResult", "callId": "c", "result": 1}]}]
    part = codec.decode(doc).messages[0].parts[0]
    out = encode_with(doc, part.evolve(content=True))
    assert dump(out[0]["contents"][0]["result"]) == b"true"


def test_regression_unknown_part_metadata_edit_is_dropped() -> None:
    doc = one_content({"$type": "error", "message": "boom"})
    part = codec.decode(doc).messages[0].parts[0]
    out = encode_with(doc, part.evolve(metadata={"histnorm.synthesized": True}))
    assert codec.decode(out).messages[0].parts[0].metadata == {"histnorm.synthesized": True}


def test_regression_unknown_capitalised_key_makes_camel_message_pascal() -> None:
    """Casing should follow the known property names (`role`), not any unknown key."""
    doc = [{"role": "assistant", "contents": [], "ETag": "abc"}]
    t = codec.decode(doc)
    out = codec.encode(replace_message(t, 0, t.messages[0].evolve(parts=(TextPart(text="x"),))))
    assert out[0]["contents"] == [{"$type": "text", "text": "x"}]


@pytest.mark.parametrize("uri", [None, ""])
def test_regression_new_media_part_without_uri_loses_media_type(uri: str | None) -> None:
    """A new MediaPart with a media type but no URI is written as `data` without it."""
    t = codec.decode([{"role": "user", "contents": []}])
    media = MediaPart(media_type="application/pdf", uri=uri)
    out = codec.encode(replace_message(t, 0, t.messages[0].evolve(parts=(media,))))
    decoded = codec.decode(out).messages[0].parts[0]
    assert isinstance(decoded, MediaPart) and decoded.media_type == "application/pdf"


@pytest.mark.parametrize("value", ["false", "False", "no"])
def test_regression_model_partial_marker_string_false_is_partial(value: Any) -> None:
    """behaviours.md §2.6: partial only for true, "true" (any case) or 1 (model.py)."""
    doc = [
        {"role": "assistant", "contents": [], "additionalProperties": {PARTIAL_RESPONSE_KEY: value}}
    ]
    assert not codec.decode(doc).messages[0].is_partial


@pytest.mark.parametrize("kind", ["call", "result"])
def test_converted_hosted_tool_part_without_an_meai_kind_is_refused(kind: str) -> None:
    """A server-side tool MEAI has no content kind for is not written as a function call
    (its clients would run it, or drop a result left in the assistant message)."""
    part = (
        ToolCallPart(
            call_id="srv_1",
            name="web_search",
            arguments={"q": "x"},
            family=ToolFamily.HOSTED,
            tool_type="server_tool_use",
        )
        if kind == "call"
        else ToolResultPart(
            call_id="srv_1", content="hits", family=ToolFamily.HOSTED, tool_type="server_tool_use"
        )
    )
    transcript = Transcript(messages=(Message(role="assistant", parts=(part,)),), format="meai")
    with pytest.raises(HistnormError, match="cannot") as info:
        codec.encode(transcript)
    assert "srv_1" in str(info.value)


def test_hosted_tool_part_of_an_meai_kind_keeps_its_kind() -> None:
    call = ToolCallPart(
        call_id="ci_1", family=ToolFamily.HOSTED, tool_type="codeInterpreterToolCall"
    )
    result = ToolResultPart(
        call_id="ci_1", content=[], family=ToolFamily.HOSTED, tool_type="codeInterpreterToolResult"
    )
    transcript = Transcript(
        messages=(Message(role="assistant", parts=(call, result)),), format="meai"
    )
    contents = codec.encode(transcript)[0]["contents"]
    assert [c["$type"] for c in contents] == [
        "codeInterpreterToolCall",
        "codeInterpreterToolResult",
    ]


def test_a_synthesized_result_for_a_hosted_call_is_written() -> None:
    # The result fix makes for an unanswered hosted call has no foreign kind to refuse.
    history = {
        "messages": [
            {"role": "user", "contents": [{"$type": "text", "text": "Run it."}]},
            {
                "role": "assistant",
                "contents": [{"$type": "codeInterpreterToolCall", "callId": "ci_1", "inputs": []}],
            },
            {"role": "user", "contents": [{"$type": "text", "text": "And?"}]},
        ]
    }
    fixed = histnorm.fix(history, orphan_tool_call="synthesize", format="meai")
    histnorm.encode(fixed.transcript)  # raised HistnormError before
    assert "HN001" not in {d.code for d in histnorm.lint(fixed.transcript)}
