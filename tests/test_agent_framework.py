"""Tests for the `agent-framework` codec (Agent Framework Python `Message.to_dict` lists).

Shapes: formats.md §5, "Agent Framework Python shape". Byte comparisons go through
`orjson.dumps` because Python `==` treats `1`, `1.0` and `True` as equal.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from codec_helpers import PROPERTY_SETTINGS, dump, resolve, with_message, with_parts
from hypothesis import given
from strategies_agent_framework import transcripts

import histnorm
import histnorm.formats
from histnorm import jsonio
from histnorm.edit import rewrite
from histnorm.errors import HistnormError
from histnorm.formats.agent_framework import AgentFrameworkCodec
from histnorm.model import (
    PARTIAL_RESPONSE_KEY,
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

CODEC = AgentFrameworkCodec()
ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "formats" / "agent-framework"
PROPERTY = PROPERTY_SETTINGS["agent-framework"]


def msg(role: str, *contents: Any, **fields: Any) -> dict[str, Any]:
    """A message as `Message.to_dict` writes it."""
    out: dict[str, Any] = {"type": "message", "role": role, "contents": list(contents)}
    out |= fields
    out.setdefault("additional_properties", {})
    return out


def content(kind: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, **fields, "additional_properties": fields.pop("props", {})}


def one(c: dict[str, Any]) -> Any:
    return CODEC.decode([msg("assistant", c)]).messages[0].parts[0]


CALL = {
    "type": "function_call",
    "call_id": "call_1",
    "name": "rm",
    "arguments": {"path": "/tmp/x"},
    "hosted": False,
    "additional_properties": {},
}


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
            assert pointer == f"{at}/contents/{j}"
            assert dump(resolve(doc, pointer)) == dump(part.native)


def _fresh(t: Transcript) -> Transcript:
    """The transcript as another format hands it over: no natives, and without what no
    format can carry over (unknown parts, media without a URI)."""

    def fresh(part: Any) -> Any:
        changes: dict[str, Any] = {"native": None, "slot": None}
        if getattr(part, "tool_call", None) is not None:
            changes["tool_call"] = fresh(part.tool_call)
        return part.evolve(**changes)

    messages = tuple(
        m.evolve(
            native=None,
            parts=tuple(
                fresh(p)
                for p in m.parts
                if not isinstance(p, UnknownPart) and not (isinstance(p, MediaPart) and not p.uri)
            ),
        )
        for m in t.messages
    )
    return Transcript(messages=messages, format="agent-framework")


def _semantics(t: Transcript) -> bytes:
    def part(p: Any) -> Any:
        out = p.model_dump(mode="json", exclude={"native", "slot"})
        if out.get("tool_call"):
            out["tool_call"].pop("native")
            out["tool_call"].pop("slot")
        return out

    return dump(
        [[m.role, m.id, m.author_name, m.metadata, [part(p) for p in m.parts]] for m in t.messages]
    )


@PROPERTY
@given(transcripts())
def test_fresh_encoding_keeps_meaning(doc: Any) -> None:
    t = CODEC.decode(doc)
    fresh = _fresh(t)
    encoded = CODEC.encode(fresh)
    assert all(next(iter(c)) == "type" for m in encoded for c in m["contents"])
    assert _semantics(CODEC.decode(encoded)) == _semantics(fresh)


# --- decoding: each shape --------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "part_kind", "family"),
    [
        ("function_call", "tool_call", ToolFamily.FUNCTION),
        ("mcp_server_tool_call", "tool_call", ToolFamily.MCP),
        ("shell_tool_call", "tool_call", ToolFamily.HOSTED),
        ("search_tool_call", "tool_call", ToolFamily.HOSTED),
        ("code_interpreter_tool_call", "tool_call", ToolFamily.HOSTED),
        ("image_generation_tool_call", "tool_call", ToolFamily.HOSTED),
        ("computer_tool_call", "tool_call", ToolFamily.HOSTED),
        ("function_result", "tool_result", ToolFamily.FUNCTION),
        ("mcp_server_tool_result", "tool_result", ToolFamily.MCP),
        ("shell_tool_result", "tool_result", ToolFamily.HOSTED),
        ("search_tool_result", "tool_result", ToolFamily.HOSTED),
        ("code_interpreter_tool_result", "tool_result", ToolFamily.HOSTED),
        ("image_generation_tool_result", "tool_result", ToolFamily.HOSTED),
        ("computer_tool_result", "tool_result", ToolFamily.HOSTED),
        ("function_call_content", "tool_call", ToolFamily.FUNCTION),
        ("function_result_content", "tool_result", ToolFamily.FUNCTION),
    ],
)
def test_decode_tool_contents(kind: str, part_kind: str, family: ToolFamily) -> None:
    part = one(content(kind, call_id="c9", name="tool"))
    assert (part.kind, part.family, part.call_id) == (part_kind, family, "c9")
    assert part.tool_type == kind.removesuffix("_content")


@pytest.mark.parametrize(
    ("kind", "part_kind"),
    [
        ("text", "text"),
        ("text_content", "text"),
        ("text_reasoning", "reasoning"),
        ("data", "media"),
        ("uri", "media"),
        ("hosted_file", "media"),
        ("hosted_vector_store", "media"),
        ("usage", "usage"),
        ("error", "unknown"),
        ("oauth_consent_request", "unknown"),
        ("shell_command_output", "unknown"),
        ("citation", "unknown"),
        ("Text", "unknown"),
        ("x_content", "unknown"),
    ],
)
def test_decode_other_contents(kind: str, part_kind: str) -> None:
    part = one(content(kind, text="t"))
    assert part.kind == part_kind
    if part_kind == "unknown":
        assert part.type == kind


def test_calls_results_and_errors() -> None:
    call = one(content("function_call", call_id="", name="f", arguments='{"a": 1}'))
    assert isinstance(call, ToolCallPart)
    assert (call.call_id, call.arguments, call.informational) == ("", '{"a": 1}', False)
    assert one({**CALL, "informational_only": True}).informational
    assert one({**CALL, "name": "handoff_to_billing"}).family is ToolFamily.HANDOFF
    error = one(content("function_result", call_id="c", exception="FunctionInvocationError"))
    assert isinstance(error, ToolResultPart) and error.is_error and error.content is None
    ok = one(content("function_result", call_id="c", result={"t": 4}, items=[]))
    assert not ok.is_error and ok.content == {"t": 4}
    mcp = one(content("mcp_server_tool_call", call_id="m", tool_name="ls", arguments={}))
    assert mcp.name == "ls" and mcp.family is ToolFamily.MCP
    image = one(content("image_generation_tool_result", image_id="ig_1", outputs={"uri": "u"}))
    assert image.call_id == "ig_1" and image.content == {"uri": "u"}
    shell = one(content("shell_tool_call", commands=["ls"]))
    assert shell.call_id is None and shell.arguments == ["ls"]


def test_hosted_calls_pair_with_their_results() -> None:
    doc = [
        msg(
            "assistant",
            content("search_tool_call", call_id="w", tool_name="web_search"),
            content("code_interpreter_tool_call", call_id="w"),
            content("code_interpreter_tool_result", call_id="w"),
            content("search_tool_result", call_id="w", result="r"),
            content("mcp_server_tool_call", call_id="w", tool_name="x"),
            content("mcp_server_tool_result", call_id="w", output=[]),
        )
    ]
    pairing = pair_transcript(CODEC.decode(doc))
    assert pairing.call_results == {(0, 0): (0, 3), (0, 1): (0, 2), (0, 4): (0, 5)}


def test_approvals() -> None:
    request = one(
        content(
            "function_approval_request", function_call=CALL, user_input_request=True, id="call_1"
        )
    )
    assert isinstance(request, ApprovalRequestPart) and request.request_id == "call_1"
    assert request.tool_call is not None and request.tool_call.arguments == {"path": "/tmp/x"}
    assert request.requires_confirmation
    response = one(
        content("function_approval_response", function_call=CALL, approved=False, id="call_1")
    )
    assert isinstance(response, ApprovalResponsePart) and response.approved is False
    assert response.tool_call is not None and response.tool_call.call_id == "call_1"
    t = CODEC.decode([msg("assistant", request.native), msg("user", response.native)])
    assert pair_transcript(t).request_responses == {(0, 0): (1, 0)}


def test_message_fields_metadata_and_old_form() -> None:
    doc = {
        "messages": [
            msg(
                "assistant",
                "plain text",
                content("text_reasoning", text="hm", protected_data="enc=="),
                author_name="bot",
                message_id="m1",
                additional_properties={PARTIAL_RESPONSE_KEY: True},
            ),
            {
                "type": "chat_message",
                "role": {"type": "role", "value": "user"},
                "contents": [{"type": "text_content", "text": "hi"}],
            },
            {"type": "message", "role": "tool", "contents": None},
        ],
        "session_id": "s",
    }
    t = CODEC.decode(doc)
    first, second, third = t.messages
    assert (first.role, first.author_name, first.id, first.is_partial) == (
        "assistant",
        "bot",
        "m1",
        True,
    )
    text, reasoning = first.parts
    assert text == TextPart(text="plain text", native="plain text", slot="contents")
    assert isinstance(reasoning, ReasoningPart) and reasoning.opaque == "enc=="
    assert second.role == "user" and second.parts[0].kind == "text"
    assert third.parts == ()
    assert CODEC.part_pointer(t, 1, 0) == "/messages/1/contents/0"


def test_media() -> None:
    png = one(content("data", uri="data:image/png;base64,AAAA"))
    assert isinstance(png, MediaPart) and png.media_type == "image/png"
    pdf = one(content("uri", uri="https://x/y.pdf", media_type="application/pdf"))
    assert (pdf.media_type, pdf.uri) == ("application/pdf", "https://x/y.pdf")
    hosted = one(content("hosted_file", file_id="file-1", media_type="image/png"))
    assert (hosted.media_type, hosted.uri) == ("image/png", None)


# --- sniffing (other formats' fixtures, detection: test_codec_contract.py) -------------


@pytest.mark.parametrize(
    "doc",
    [
        [],
        {"messages": []},
        "x",
        [{"role": "user", "contents": [{"$type": "text", "text": "meai"}]}],
        [{"type": "message", "role": "user", "contents": [{"$type": "text", "text": "x"}]}],
        [{"type": "message", "role": "user", "content": "responses"}],
        [{"type": "human", "data": {"content": "langchain"}}],
        [{"type": "message", "role": "user", "contents": "x"}],
    ],
)
def test_sniff_rejects(doc: Any) -> None:
    assert CODEC.sniff(doc) == 0


# --- encoding after model edits --------------------------------------------------------


def _calls_doc() -> list[dict[str, Any]]:
    return [
        msg("user", content("text", text="Weather in Paris and Rome?")),
        msg(
            "assistant",
            content("text", text="Checking."),
            content("function_call", call_id="c_p", name="get_weather", arguments={"c": "P"}),
            content("function_call", call_id="c_r", name="get_weather", arguments={"c": "R"}),
            message_id="r1",
        ),
        msg("tool", content("function_result", call_id="c_p", result="12 C")),
    ]


def test_dropping_a_call_keeps_everything_else() -> None:
    doc = _calls_doc()
    before = copy.deepcopy(doc)
    out = CODEC.encode(rewrite(CODEC.decode(doc), remove=[(1, 2)]))
    expected = copy.deepcopy(before)
    del expected[1]["contents"][2]
    assert dump(out) == dump(expected)
    assert out[0] is doc[0] and out[2] is doc[2]
    assert out[1]["contents"][0] is doc[1]["contents"][0]
    assert dump(doc) == dump(before)


def test_dropping_a_result_drops_its_message() -> None:
    doc = _calls_doc()
    out = CODEC.encode(rewrite(CODEC.decode(doc), remove=[(2, 0)]))
    assert out == doc[:2] and out[1] is doc[1]


@pytest.mark.parametrize("old", [False, True], ids=["current", "old"])
def test_inserting_a_synthesized_result(old: bool) -> None:
    doc = _calls_doc()
    if old:
        doc = [
            {**m, "type": "chat_message", "role": {"type": "role", "value": m["role"]}} for m in doc
        ]
    t = CODEC.decode(doc)
    result = ToolResultPart(
        call_id="c_r", content="interrupted", is_error=True, metadata={"histnorm.synthesized": True}
    )
    out = CODEC.encode(t.evolve(messages=(*t.messages, Message(role="tool", parts=(result,)))))
    expected = {
        "type": "chat_message" if old else "message",
        "role": {"type": "role", "value": "tool"} if old else "tool",
        "contents": [
            {
                "type": "function_result",
                "call_id": "c_r",
                "exception": "FunctionInvocationError",
                "result": "interrupted",
                "additional_properties": {"histnorm.synthesized": True},
            }
        ],
        "additional_properties": {},
    }
    assert out[3] == expected and list(out[3]["contents"][0]) == list(
        expected["contents"][0]  # type: ignore[index]
    )
    again = CODEC.decode(out)
    assert again.messages[3].parts[0].is_error  # type: ignore[union-attr]
    assert not pair_transcript(again).unmatched_calls


def test_synthesized_hosted_result_gets_the_result_kind() -> None:
    doc = [msg("assistant", content("search_tool_call", call_id="w1", tool_name="web_search"))]
    t = CODEC.decode(doc)
    result = ToolResultPart(
        call_id="w1", content="x", family=ToolFamily.HOSTED, tool_type="search_tool_call_output"
    )
    out = CODEC.encode(t.evolve(messages=(*t.messages, Message(role="tool", parts=(result,)))))
    assert out[1]["contents"][0]["type"] == "search_tool_result"
    assert not pair_transcript(CODEC.decode(out)).unmatched_calls


def test_moving_a_message_keeps_it_identical() -> None:
    doc = _calls_doc()
    t = CODEC.decode(doc)
    m = t.messages
    out = CODEC.encode(t.evolve(messages=(m[2], m[0], m[1])))
    assert [id(x) for x in out] == [id(doc[2]), id(doc[0]), id(doc[1])]


def test_a_message_emptied_of_parts_reads_back_empty() -> None:
    doc = _calls_doc()
    out = CODEC.encode(with_parts(CODEC.decode(doc), 1))
    assert out[1] == {**doc[1], "contents": []}
    assert CODEC.decode(out).messages[1].parts == ()


def test_new_parts_are_written_in_native_shape() -> None:
    t = CODEC.decode([msg("assistant")])
    call = ToolCallPart(call_id="c1", name="f", arguments='{"a": 1}', informational=True)
    request = ApprovalRequestPart(request_id="c1", tool_call=ToolCallPart(call_id="c1", name="f"))
    response = ApprovalResponsePart(request_id="c1", approved=True, reason="fine")
    out = CODEC.encode(
        with_parts(
            t,
            0,
            TextPart(text="x"),
            call,
            request,
            response,
            MediaPart(uri="https://x/a.png", media_type="image/png"),
            UsagePart(details={"input_token_count": 1}),
        )
    )
    assert out[0]["contents"] == [
        {"type": "text", "text": "x", "additional_properties": {}},
        {
            "type": "function_call",
            "call_id": "c1",
            "name": "f",
            "arguments": '{"a": 1}',
            "informational_only": True,
            "additional_properties": {},
        },
        {
            "type": "function_approval_request",
            "function_call": {
                "type": "function_call",
                "call_id": "c1",
                "name": "f",
                "additional_properties": {},
            },
            "user_input_request": True,
            "id": "c1",
            "additional_properties": {},
        },
        {
            "type": "function_approval_response",
            "approved": True,
            "id": "c1",
            "additional_properties": {},
        },
        {
            "type": "uri",
            "uri": "https://x/a.png",
            "media_type": "image/png",
            "additional_properties": {},
        },
        {"type": "usage", "usage_details": {"input_token_count": 1}, "additional_properties": {}},
    ]


def test_new_contents_in_old_suffixed_message_use_the_suffix() -> None:
    doc = [
        {
            "type": "chat_message",
            "role": {"type": "role", "value": "assistant"},
            "contents": [{"type": "text_content", "text": "a"}],
        }
    ]
    t = CODEC.decode(doc)
    out = CODEC.encode(with_parts(t, 0, *t.messages[0].parts, TextPart(text="b")))
    assert out[0]["contents"] == [
        {"type": "text_content", "text": "a"},
        {"type": "text_content", "text": "b", "additional_properties": {}},
    ]
    assert out[0]["role"] == {"type": "role", "value": "assistant"}


def test_edits_keep_unknown_keys_and_errors_flip_the_exception() -> None:
    doc = [
        msg(
            "tool",
            {
                "type": "function_result",
                "call_id": "c",
                "x_a": 1,
                "result": "r",
                "items": [],
                "additional_properties": {},
            },
            x_b=[True],
        )
    ]
    t = CODEC.decode(doc)
    (result,) = t.messages[0].parts
    out = CODEC.encode(with_parts(t, 0, result.evolve(is_error=True, content="bad")))
    assert list(out[0]["contents"][0]) == [
        "type",
        "call_id",
        "x_a",
        "result",
        "items",
        "additional_properties",
        "exception",
    ]
    assert out[0]["contents"][0]["exception"] == "FunctionInvocationError"
    back = CODEC.decode(out)
    cleared = back.messages[0].parts[0].evolve(is_error=False)
    out = CODEC.encode(with_parts(back, 0, cleared))
    assert "exception" not in out[0]["contents"][0] and list(out[0]) == list(doc[0])


def test_metadata_is_additional_properties() -> None:
    doc = [msg("assistant", additional_properties={PARTIAL_RESPONSE_KEY: True, "k": 1})]
    t = CODEC.decode(doc)
    out = CODEC.encode(with_message(t, 0, t.messages[0].evolve(metadata={"k": 1})))
    assert out[0]["additional_properties"] == {"k": 1}
    assert not CODEC.decode(out).messages[0].is_partial


@pytest.mark.parametrize(
    "part",
    [
        RefusalPart(text="no"),
        MediaPart(media_type="application/pdf"),
        UnknownPart(type="x"),
        ToolCallPart(call_id="w", family=ToolFamily.HOSTED, tool_type="web_search_call"),
    ],
    ids=["refusal", "media-without-uri", "unknown", "foreign-hosted"],
)
def test_parts_the_format_cannot_express_raise(part: Any) -> None:
    t = CODEC.decode([msg("assistant")])
    with pytest.raises(HistnormError, match=part.kind):
        CODEC.encode(with_parts(t, 0, part))


# --- through the public API -----------------------------------------------------------


def test_lint_and_fix_an_orphan_call() -> None:
    doc = [*_calls_doc(), msg("user", content("text", text="Skip Rome."))]
    diagnostics = histnorm.lint(doc)
    assert [(d.code, d.location.pointer) for d in diagnostics] == [("HN001", "/1/contents/2")]
    fixed = histnorm.encode(histnorm.fix(doc).transcript)
    assert [c.get("call_id") for c in fixed[1]["contents"]] == [None, "c_p"]
    assert histnorm.lint(fixed) == ()


def test_strip_partial_markers() -> None:
    doc = [
        msg("user", "hi"),
        msg("assistant", "par", additional_properties={PARTIAL_RESPONSE_KEY: True}),
    ]
    out = histnorm.encode(histnorm.strip_partial_markers(histnorm.load(doc)))
    assert out[1]["additional_properties"] == {}


# --- bad input -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("doc", "pointer"),
    [
        ("x", ""),
        (None, ""),
        ({"conversation": []}, ""),
        ({"messages": {"role": "user"}}, "/messages"),
        ([msg("user"), 5], "/1"),
        ([{"type": "message", "contents": []}], "/0/role"),
        ([{"type": "message", "role": 1, "contents": []}], "/0/role"),
        ([{"type": "chat_message", "role": {"type": "role"}, "contents": []}], "/0/role/value"),
        ([{"type": "message", "role": "user", "contents": "hi"}], "/0/contents"),
        ([msg("user", None)], "/0/contents/0"),
        ([msg("user", 5)], "/0/contents/0"),
        ([msg("user", author_name=3)], "/0/author_name"),
        ([msg("user", message_id=[])], "/0/message_id"),
        ([msg("user", additional_properties=[])], "/0/additional_properties"),
        (
            [msg("user", {"type": "text", "text": "a", "additional_properties": 1})],
            "/0/contents/0/additional_properties",
        ),
        ([msg("assistant", {"type": "function_call", "name": "f"})], "/0/contents/0/call_id"),
        ([msg("assistant", {"type": "function_call", "call_id": 7})], "/0/contents/0/call_id"),
        (
            [msg("assistant", {"type": "function_call", "call_id": "c", "name": 1})],
            "/0/contents/0/name",
        ),
        ([msg("tool", {"type": "function_result", "result": 1})], "/0/contents/0/call_id"),
        ([msg("tool", {"type": "mcp_server_tool_call", "call_id": None})], "/0/contents/0/call_id"),
        ([msg("tool", {"type": "shell_tool_call", "call_id": 5})], "/0/contents/0/call_id"),
        (
            [msg("tool", {"type": "mcp_server_tool_call", "call_id": "c", "tool_name": 5})],
            "/0/contents/0/tool_name",
        ),
        ([msg("assistant", {"type": "text_reasoning", "text": 1})], "/0/contents/0/text"),
        (
            [msg("assistant", {"type": "function_approval_request", "function_call": CALL})],
            "/0/contents/0/id",
        ),
        ([msg("assistant", {"type": "function_approval_response", "id": 1})], "/0/contents/0/id"),
        (
            [
                msg(
                    "assistant",
                    {"type": "function_approval_request", "id": "r", "function_call": "c"},
                )
            ],
            "/0/contents/0/function_call",
        ),
        (
            [
                msg(
                    "assistant",
                    {
                        "type": "function_approval_request",
                        "id": "r",
                        "function_call": {"type": "text", "text": "x"},
                    },
                )
            ],
            "/0/contents/0/function_call",
        ),
        (
            {
                "messages": [
                    msg(
                        "assistant",
                        {
                            "type": "function_approval_request",
                            "id": "r",
                            "function_call": {"type": "function_call"},
                        },
                    )
                ]
            },
            "/messages/0/contents/0/function_call/call_id",
        ),
    ],
)
def test_bad_input_raises_histnorm_error_with_pointer(doc: Any, pointer: str) -> None:
    with pytest.raises(HistnormError) as info:
        CODEC.decode(doc)
    assert info.value.pointer == pointer


# --- fixtures (their round trip and detection: test_codec_contract.py) ------------------


def load(name: str) -> Transcript:
    return CODEC.decode(jsonio.loads((FIXTURES / name).read_bytes()))


def test_fixture_contents() -> None:
    weather = load("weather-tool.json")
    assert pair_transcript(weather).call_results == {(2, 0): (3, 0)}
    assert weather.messages[2].author_name == "WeatherAgent"
    assert isinstance(weather.messages[2].parts[1], UsagePart)

    approval = load("approval.json")
    assert pair_transcript(approval).request_responses == {(1, 0): (2, 0)}
    assert pair_transcript(approval).call_results == {(3, 0): (4, 0)}

    partial = load("partial-response.json")
    assert [m.is_partial for m in partial.messages] == [False, True, False]
    assert isinstance(partial.messages[1].parts[0], ReasoningPart)

    hosted = load("hosted-tools.json")
    pairing = pair_transcript(hosted)
    assert not pairing.unmatched_calls and not pairing.orphan_results
    assert [p.family for p in hosted.messages[1].parts[:4:2]] == [  # type: ignore[union-attr]
        ToolFamily.HOSTED,
        ToolFamily.MCP,
    ]

    errors = load("errors-and-handoff.json")
    assert errors.messages[2].parts[0].is_error  # type: ignore[union-attr]
    assert errors.messages[3].parts[0].family is ToolFamily.HANDOFF  # type: ignore[union-attr]
    assert [p.type for p in errors.messages[5].parts] == [  # type: ignore[union-attr]
        "error",
        "oauth_consent_request",
    ]

    legacy = load("legacy-chat-message.json")
    assert [m.role for m in legacy.messages] == ["user", "assistant", "tool", "assistant"]
    assert pair_transcript(legacy).call_results == {(1, 0): (2, 0)}
    assert isinstance(legacy.messages[3].parts[1], UsagePart)

    media = load("media.json")
    assert [p.kind for p in media.messages[0].parts] == ["text", "media", "media"]
