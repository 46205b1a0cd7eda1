"""Tests for the `vercel-ai` codec (Vercel AI SDK `UIMessage` lists).

Shapes and semantics come from vercel/ai at commit ed857f50 (ai 7.0.77):
packages/ai/src/ui/ui-messages.ts (the part types and the tool states),
validate-ui-messages.ts (the schema `validateUIMessages` checks), and
convert-to-model-messages.ts (what each tool state becomes for the model: `input-streaming`
is left out, `input-available` and `approval-requested` give a tool call with no result,
which packages/ai/src/prompt/convert-to-language-model-prompt.ts rejects with
`AI_MissingToolResultsError` once later messages follow; vercel/ai#12973 is the open fix
proposing an implicit denial). The fixtures under fixtures/formats/vercel-ai/ follow the
UIMessage literals of convert-to-model-messages.test.ts; their content is ours. Byte
comparisons go through `orjson.dumps`, since Python's `==` takes `1` and `True` as equal.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from codec_helpers import PROPERTY_SETTINGS, dump, resolve
from hypothesis import given
from strategies_vercel_ai import transcripts

import histnorm
from histnorm.errors import HistnormError
from histnorm.formats import CODECS, detect_format
from histnorm.formats.vercel_ai import VercelAICodec
from histnorm.model import (
    ApprovalRequestPart,
    ApprovalResponsePart,
    MediaPart,
    ReasoningPart,
    RefusalPart,
    TextPart,
    ToolCallPart,
    ToolFamily,
    ToolResultPart,
    Transcript,
    UnknownPart,
)

CODEC = VercelAICodec()
ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "formats" / "vercel-ai"
PROPERTY = PROPERTY_SETTINGS["vercel-ai"]


def user(ident: str, text: str) -> dict[str, Any]:
    return {"id": ident, "role": "user", "parts": [{"type": "text", "text": text}]}


def tool(state: str, call_id: str = "call_1", name: str = "getWeather", **keys: Any) -> Any:
    return {"type": f"tool-{name}", "toolCallId": call_id, "state": state, **keys}


def history(*parts: Any, tail: bool = True) -> list[Any]:
    """A user question, an assistant message of `parts`, and (with `tail`) a follow-up."""
    out = [
        user("u1", "Weather in Oslo?"),
        {"id": "a1", "role": "assistant", "parts": [{"type": "step-start"}, *parts]},
    ]
    return [*out, user("u2", "Thanks.")] if tail else out


def codes(doc: Any, **options: Any) -> list[str]:
    return [d.code for d in histnorm.lint(doc, format="vercel-ai", **options)]


def repaired(doc: Any, **options: Any) -> Any:
    before = copy.deepcopy(doc)
    out = histnorm.repair(doc, format="vercel-ai", **options)
    assert dump(doc) == dump(before)
    again = histnorm.repair(out.value, format="vercel-ai", **options)
    assert not again.changed, "fix(fix(x)) == fix(x)"
    return out.value


# --- round trip and byte identity ---------------------------------------------------------


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*.json")), ids=lambda p: p.name)
def test_fixture_is_detected_and_untouched_by_fix(path: Path) -> None:
    raw = path.read_bytes()
    assert detect_format(histnorm.jsonio.loads(raw)) == "vercel-ai"
    result = histnorm.fix_document(raw, format="vercel-ai", select=["HN013"])
    assert result.output is None or result.output == raw


@PROPERTY
@given(transcripts())
def test_round_trip_and_pointers(doc: Any) -> None:
    transcript = CODEC.decode(doc)
    assert dump(CODEC.encode(transcript)) == dump(doc)
    for mi, message in enumerate(transcript.messages):
        assert resolve(doc, CODEC.message_pointer(transcript, mi)) is message.native
        for pi, part in enumerate(message.parts):
            assert resolve(doc, CODEC.part_pointer(transcript, mi, pi)) is part.native


@PROPERTY
@given(transcripts())
def test_rebuilt_parts_read_back_the_same(doc: Any) -> None:
    """Every message written fresh from its parts (natives kept for the tool parts' other
    keys) reads back as the same parts."""
    transcript = CODEC.decode(doc)
    touched = Transcript(
        messages=tuple(m.evolve(native={**m.native}) for m in transcript.messages),
        format="vercel-ai",
        native=transcript.native,
    )
    again = CODEC.decode(CODEC.encode(touched))
    assert [m.parts for m in again.messages] == [m.parts for m in transcript.messages]


def test_fix_touches_only_the_repaired_message() -> None:
    raw = (FIXTURES / "interrupted-stream.json").read_bytes()
    result = histnorm.fix_document(raw, format="vercel-ai")
    assert result.output is not None
    before, after = histnorm.jsonio.loads(raw), histnorm.jsonio.loads(result.output)
    assert after[0] == before[0] and after[2] == before[2]
    assert after[1]["parts"] == before[1]["parts"][:3]


# --- detection ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "doc",
    [
        pytest.param([{"role": "user", "parts": [{"text": "hi"}]}], id="gemini-contents"),
        pytest.param(
            [{"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "hi"}]}],
            id="pydantic-ai",
        ),
        pytest.param([{"role": "user", "content": "hi"}], id="openai-chat"),
        pytest.param(
            [
                {
                    "id": "m1",
                    "role": "user",
                    "content": "hi",
                    "parts": [{"type": "text", "text": "hi"}],
                }
            ],
            id="ai-sdk-4-message-with-content",
        ),
        pytest.param([{"role": "user", "parts": [{"type": "text", "text": "hi"}]}], id="no-id"),
        pytest.param([{"id": 1, "role": "user", "parts": []}], id="numeric-id"),
        pytest.param([{"id": "m1", "role": "user", "parts": "hi"}], id="parts-not-array"),
        pytest.param([user("u1", "hi"), "text"], id="not-an-object"),
        pytest.param({"contents": [user("u1", "hi")]}, id="other-envelope"),
        pytest.param([], id="empty"),
    ],
)
def test_sniff_rejects(doc: Any) -> None:
    assert CODEC.sniff(doc) == 0


def test_sniff_claims_on_the_formats_marks_alone() -> None:
    doc = history(tool("output-available", input={}, output=1))
    assert CODEC.sniff(doc) == 0.95
    assert CODEC.sniff({"id": "chat-1", "messages": doc, "trigger": "submit-message"}) == 0.95
    assert CODEC.sniff([{"id": "m", "role": "assistant", "parts": []}]) == 0.6
    assert [name for name, codec in CODECS.items() if codec.sniff(doc) > 0] == ["vercel-ai"]


# --- reading the tool states -----------------------------------------------------------------

STATES = [
    ("input-streaming", {"input": {"city": "Os"}}, ["tool_call"]),
    ("input-available", {"input": {"city": "Oslo"}}, ["tool_call"]),
    (
        "approval-requested",
        {"input": {}, "approval": {"id": "ap1"}},
        ["approval_request"],
    ),
    (
        "approval-responded",
        {"input": {}, "approval": {"id": "ap1", "approved": True}},
        ["approval_request", "approval_response"],
    ),
    ("output-available", {"input": {}, "output": "4 C"}, ["tool_call", "tool_result"]),
    ("output-error", {"input": {}, "errorText": "down"}, ["tool_call", "tool_result"]),
    (
        "output-denied",
        {"input": {}, "approval": {"id": "ap1", "approved": False, "reason": "no"}},
        ["approval_request", "approval_response"],
    ),
]


@pytest.mark.parametrize(("state", "keys", "kinds"), STATES, ids=[s[0] for s in STATES])
def test_tool_states_read_as_what_the_sdk_sends(
    state: str, keys: dict[str, Any], kinds: list[str]
) -> None:
    transcript = CODEC.decode(history(tool(state, **keys), tail=False))
    parts = transcript.messages[1].parts[1:]
    assert [p.kind for p in parts] == kinds
    native = transcript.messages[1].native["parts"][1]
    assert all(p.native is native for p in parts)
    assert CODEC.part_pointer(transcript, 1, len(parts)) == "/1/parts/1"


def test_tool_part_fields() -> None:
    parts = [
        tool("output-error", input={"city": "Oslo"}, errorText="down"),
        {
            "type": "dynamic-tool",
            "toolName": "mcp_find",
            "toolCallId": "c2",
            "state": "output-available",
            "input": {"q": 1},
            "output": [1],
        },
        tool("input-available", "srv1", "web_search", input={}, providerExecuted=True),
        tool("output-denied", "c4", input={}, approval={"id": "a4", "approved": False}),
    ]
    message = CODEC.decode(history(*parts, tail=False)).messages[1]
    call, error, dynamic, output, hosted, request, response = message.parts[1:]
    assert call == ToolCallPart(
        call_id="call_1",
        name="getWeather",
        arguments={"city": "Oslo"},
        native=parts[0],
        slot="parts",
    )
    assert isinstance(error, ToolResultPart) and error.is_error and error.content == "down"
    assert isinstance(dynamic, ToolCallPart) and dynamic.name == "mcp_find"
    assert isinstance(output, ToolResultPart) and output.content == [1]
    assert isinstance(hosted, ToolCallPart) and hosted.family is ToolFamily.HOSTED
    assert hosted.tool_type == "web_search"
    assert isinstance(request, ApprovalRequestPart) and request.request_id == "a4"
    assert request.tool_call is not None and request.tool_call.call_id == "c4"
    assert isinstance(response, ApprovalResponsePart) and response.approved is False


def test_other_parts() -> None:
    doc = histnorm.jsonio.loads((FIXTURES / "parts-zoo.json").read_bytes())
    transcript = CODEC.decode(doc)
    text, media = transcript.messages[0].parts
    assert isinstance(text, TextPart)
    assert media == MediaPart(
        media_type="application/pdf",
        uri="data:application/pdf;base64,JVBERi0xLjQK",
        native=doc[0]["parts"][1],
        slot="parts",
    )
    kinds = [p.type for p in transcript.messages[1].parts if isinstance(p, UnknownPart)]
    assert kinds == ["step-start", "source-url", "source-document", "data-progress", "step-start"]
    assert "data-progress" in CODEC.verbatim_types and "widget" not in CODEC.verbatim_types
    reasoning = (
        CODEC.decode(histnorm.jsonio.loads((FIXTURES / "chat-request.json").read_bytes()))
        .messages[1]
        .parts[1]
    )
    assert isinstance(reasoning, ReasoningPart)
    assert reasoning.opaque == {"openai": {"itemId": "rs_01"}}


# --- the defects, found and fixed ---------------------------------------------------------


@pytest.mark.parametrize(
    "part",
    [
        tool("input-available", input={"city": "Oslo"}),
        tool("input-streaming"),
        tool("input-available", "srv", "web_search", input={}, providerExecuted=True),
    ],
    ids=["input-available", "input-streaming", "provider-executed"],
)
def test_incomplete_tool_part_is_dropped(part: Any) -> None:
    doc = history({"type": "text", "text": "Checking."}, part)
    assert codes(doc) == ["HN001"]
    fixed = repaired(doc)
    assert fixed == [doc[0], {**doc[1], "parts": doc[1]["parts"][:2]}, doc[2]]
    assert codes(fixed) == []


def test_incomplete_tool_part_synthesize_gives_output_error() -> None:
    doc = history(tool("input-available", input={"city": "Oslo"}, title="Weather"))
    fixed = repaired(doc, orphan_tool_call="synthesize")
    assert fixed[1]["parts"][1] == {
        "type": "tool-getWeather",
        "toolCallId": "call_1",
        "state": "output-error",
        "input": {"city": "Oslo"},
        "title": "Weather",
        "errorText": "Tool call was interrupted before it produced a result.",
    }
    assert len(fixed) == 3 and codes(fixed) == []


def test_streaming_part_synthesize_keeps_input_absent() -> None:
    fixed = repaired(history(tool("input-streaming")), orphan_tool_call="synthesize")
    assert "input" not in fixed[1]["parts"][1]
    assert fixed[1]["parts"][1]["state"] == "output-error"


def test_pending_approval_is_dropped_or_denied() -> None:
    part = tool("approval-requested", input={"path": "/tmp/x"}, approval={"id": "ap1"})
    doc = history(part)
    assert codes(doc) == ["HN003"]
    assert repaired(doc)[1]["parts"] == [{"type": "step-start"}]
    denied = repaired(doc, pending_approval="deny")[1]["parts"][1]
    assert denied == {
        **part,
        "state": "output-denied",
        "approval": {"id": "ap1", "approved": False, "reason": "Tool call invocation rejected."},
    }


def test_open_states_at_the_end_are_live() -> None:
    """A client-side tool waiting for `addToolOutput` and an approval waiting for the user
    are the live states `useChat` resumes from: reported (HN011), fixed only on request."""
    for part in (
        tool("input-available", input={}),
        tool("approval-requested", input={}, approval={"id": "ap1"}),
    ):
        doc = history(part, tail=False)
        assert codes(doc) == ["HN011"]
        assert not histnorm.repair(doc, format="vercel-ai").changed
        assert repaired(doc, tail="close")[1]["parts"] == [{"type": "step-start"}]


def test_complete_states_are_no_defect() -> None:
    doc = histnorm.jsonio.loads((FIXTURES / "approvals.json").read_bytes())
    assert codes(doc) == []


# --- unknown content ----------------------------------------------------------------------


def test_unknown_parts_are_reported_and_kept() -> None:
    raw = (FIXTURES / "unknown-part.json").read_bytes()
    doc = histnorm.jsonio.loads(raw)
    found = histnorm.lint(doc, format="vercel-ai")
    assert [(d.code, d.location.pointer) for d in found] == [
        ("HN013", "/1/parts/2"),
        ("HN013", "/3/parts/0"),
    ]
    assert histnorm.fix_document(raw, format="vercel-ai").output in (None, raw)


def test_no_fix_moves_past_an_unknown_part() -> None:
    legacy = {"type": "tool-invocation", "toolInvocation": {"toolCallId": "call_1"}}
    doc = history(tool("input-available", input={}), legacy)
    assert "HN001" in codes(doc)
    fixed = histnorm.repair(doc, format="vercel-ai")
    assert dump(fixed.value) == dump(doc)
    assert "HN001" in [d.code for d in fixed.remaining]


def test_unknown_state_is_an_unknown_part() -> None:
    part = tool("result", input={})
    [found] = CODEC.decode(history(part, tail=False)).messages[1].parts[1:]
    assert found == UnknownPart(type="tool-getWeather", native=part, slot="parts")


# --- writing new content ------------------------------------------------------------------


def test_convert_from_openai_chat_puts_results_into_their_calls() -> None:
    source = [
        {"role": "user", "content": "Weather in Oslo?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_w",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"Oslo"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_w", "content": "4 C"},
        {"role": "assistant", "content": "4 C in Oslo."},
    ]
    converted = histnorm.convert(histnorm.load(source, format="openai-chat"), "vercel-ai")
    assert histnorm.encode(converted) == [
        {
            "id": "histnorm-0",
            "role": "user",
            "parts": [{"type": "text", "text": "Weather in Oslo?"}],
        },
        {
            "id": "histnorm-1",
            "role": "assistant",
            "parts": [
                {
                    "type": "tool-get_weather",
                    "toolCallId": "call_w",
                    "state": "output-available",
                    "input": {"city": "Oslo"},
                    "output": "4 C",
                }
            ],
        },
        {
            "id": "histnorm-2",
            "role": "assistant",
            "parts": [{"type": "text", "text": "4 C in Oslo."}],
        },
    ]


@pytest.mark.parametrize(
    "part",
    [
        RefusalPart(text="no"),
        UnknownPart(type="x"),
        ToolResultPart(call_id="nowhere", content="1"),
        MediaPart(uri=None),
    ],
    ids=["refusal", "unknown", "result-without-call", "file-without-url"],
)
def test_what_a_uimessage_cannot_hold_raises(part: Any) -> None:
    transcript = CODEC.decode(history(tail=False))
    message = transcript.messages[1]
    edited = transcript.evolve(messages=(message.evolve(parts=(part,)),))
    with pytest.raises(HistnormError, match="UIMessage"):
        CODEC.encode(edited)


# --- bad input ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("doc", "pointer"),
    [
        (history(tool("input-available", 7, input={})), "/1/parts/1/toolCallId"),
        (history(tool("approval-requested", input={})), "/1/parts/1/approval"),
        (
            history(tool("approval-responded", input={}, approval={"id": "a", "approved": "y"})),
            "/1/parts/1/approval/approved",
        ),
        (history(tool("output-error", input={})), "/1/parts/1/errorText"),
        ([{"id": "m", "role": "user", "parts": {}}], "/0/parts"),
        ([{"id": "m", "role": 3, "parts": []}], "/0/role"),
        (
            {"messages": [{"id": "m", "role": "user", "parts": [{"type": "text"}]}]},
            "/messages/0/parts/0/text",
        ),
    ],
)
def test_bad_input_raises_with_a_pointer(doc: Any, pointer: str) -> None:
    with pytest.raises(HistnormError) as caught:
        CODEC.decode(doc)
    assert caught.value.pointer == pointer


def test_convert_from_meai_keeps_an_approved_call_in_one_part() -> None:
    """Microsoft.Extensions.AI writes request, response, the approved call again and its
    result; the SDK keeps all of it in one tool part (`output-available` with its
    `approval`)."""
    raw = (ROOT / "fixtures" / "formats" / "meai" / "approval_current.json").read_bytes()
    converted = histnorm.encode(histnorm.convert(histnorm.load(raw, format="meai"), "vercel-ai"))
    [part] = converted[1]["parts"]
    assert part == {
        "type": "tool-rm",
        "toolCallId": "call_1",
        "state": "output-available",
        "input": {"path": "/tmp/x"},
        "output": "ok",
        "approval": {"id": "ficc_call_1", "approved": True},
    }
    assert [m["role"] for m in converted] == ["user", "assistant", "assistant"]
    assert codes(converted) == []


def test_a_message_emptied_by_a_fix_goes() -> None:
    doc = [
        user("u1", "hi"),
        {"id": "a1", "role": "assistant", "parts": [tool("input-available", input={})]},
        user("u2", "again"),
    ]
    assert repaired(doc) == [doc[0], doc[2]]


def test_a_tool_part_with_a_state_that_is_no_string_is_unknown_content() -> None:
    """A damaged `state` (a list) is no state the reader knows: reported, never a crash."""
    doc = [
        {"id": "m1", "role": "user", "parts": [{"type": "text", "text": "Weather?"}]},
        {"id": "m2", "role": "assistant", "parts": [
            {"type": "tool-getWeather", "toolCallId": "c1", "state": []}]},
    ]  # fmt: skip
    assert [d.code for d in histnorm.lint(doc, format="vercel-ai")] == ["HN013"]


@pytest.mark.parametrize(
    "document",
    [
        [{"id": "m1", "role": "system", "parts": [{"type": "text", "text": " "}]}],
        {
            "id": "chat-1",
            "messages": [{"id": "m1", "role": "system", "parts": [{"type": "text", "text": " "}]}],
        },
    ],
)
def test_a_fix_never_empties_the_history(document: Any) -> None:
    """The AI SDK's `validateUIMessages` rejects an empty list ("Messages array must not
    be empty"): a fix whose only way out is no message at all is refused, saying why."""
    data = json.dumps(document).encode()
    options: dict[str, Any] = {"profile": "anthropic", "tail": "close"}
    result = histnorm.fix_document(data, format="vercel-ai", path_hint="chat.json", **options)
    assert result.output is None
    assert result.diagnostics, "what was found is still reported"
    assert all(d.fix is None for d in result.diagnostics)
    assert any("must not be empty" in d.message for d in result.diagnostics)
