"""Microsoft.Extensions.AI histories as System.Text.Json writes them.

Before 2026, `FunctionApprovalRequestContent.FunctionCall` was typed as the derived
`FunctionCallContent`, so System.Text.Json wrote the nested call with no `$type`
discriminator (only polymorphic properties get one). Such a request must still be read
as an approval of that call, and written back without a `$type` it never had. And a
message left with only `usage` content is empty for a replay (behaviours.md §1.4 rule 4).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

import histnorm
from histnorm.diagnostic import Applicability
from histnorm.engine import proven_clean
from histnorm.model import ApprovalRequestPart, ApprovalResponsePart, ToolCallPart
from histnorm.settings import ApprovalPolicy, Settings

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "formats" / "meai"


def spell(name: str, pascal: bool) -> str:
    return name[:1].upper() + name[1:] if pascal else name


def obj(pascal: bool, **values: Any) -> dict[str, Any]:
    return {spell(key, pascal): value for key, value in values.items()}


def nested_call(pascal: bool) -> dict[str, Any]:
    """`FunctionCallContent` as the value of a property typed as that very class."""
    return obj(pascal, callId="call_7", name="send_email", arguments={"to": "ops@example.com"})


def request(pascal: bool) -> dict[str, Any]:
    body = obj(pascal, id="call_7", functionCall=nested_call(pascal))
    return {"$type": "functionApprovalRequest", **body}


def response(pascal: bool, approved: bool = False) -> dict[str, Any]:
    body = obj(pascal, id="call_7", approved=approved, functionCall=nested_call(pascal))
    return {"$type": "functionApprovalResponse", **body}


def message(pascal: bool, role: str, *contents: Any) -> dict[str, Any]:
    return obj(pascal, role=role, contents=list(contents))


def text(pascal: bool, value: str) -> dict[str, Any]:
    return {"$type": "text", **obj(pascal, text=value)}


def pending(pascal: bool) -> list[Any]:
    """An approval request the user never answered, then the user wrote again."""
    return [
        message(pascal, "user", text(pascal, "Email ops about the outage.")),
        message(pascal, "assistant", request(pascal)),
        message(pascal, "user", text(pascal, "Never mind.")),
    ]


def answered(pascal: bool) -> list[Any]:
    """Approved: FunctionInvokingChatClient then adds the call itself (typed) and its result."""
    call = {"$type": "functionCall", **nested_call(pascal)}
    result = {"$type": "functionResult", **obj(pascal, callId="call_7", result="sent")}
    return [
        message(pascal, "user", text(pascal, "Email ops about the outage.")),
        message(pascal, "assistant", request(pascal)),
        message(pascal, "user", response(pascal, approved=True)),
        message(pascal, "assistant", call),
        message(pascal, "tool", result),
        message(pascal, "assistant", text(pascal, "Sent.")),
    ]


CASES = pytest.mark.parametrize("pascal", [False, True], ids=["camelCase", "PascalCase"])


@CASES
def test_a_nested_call_without_type_is_read_as_the_wrapped_call(pascal: bool) -> None:
    transcript = histnorm.load(answered(pascal), format="meai")
    asked = transcript.messages[1].parts[0]
    given = transcript.messages[2].parts[0]
    assert isinstance(asked, ApprovalRequestPart) and isinstance(given, ApprovalResponsePart)
    for part in (asked, given):
        assert isinstance(part.tool_call, ToolCallPart)
        assert part.tool_call.call_id == "call_7" and part.tool_call.name == "send_email"
        assert part.tool_call.arguments == {"to": "ops@example.com"}


@CASES
def test_the_pending_approval_is_found(pascal: bool) -> None:
    codes = [d.code for d in histnorm.lint(pending(pascal), format="meai")]
    assert "HN003" in codes and "HN000" not in codes


@CASES
def test_an_answered_approval_is_clean_and_written_back_exactly(pascal: bool) -> None:
    history = answered(pascal)
    assert [d.code for d in histnorm.lint(history, format="meai")] == []
    encoded = histnorm.encode(histnorm.load(history, format="meai"))
    assert orjson.dumps(encoded) == orjson.dumps(history)


@CASES
def test_an_edited_approval_adds_no_type_to_its_nested_call(pascal: bool) -> None:
    transcript = histnorm.load(answered(pascal), format="meai")
    asked = transcript.messages[1].parts[0]
    assert isinstance(asked, ApprovalRequestPart) and asked.tool_call is not None
    call = asked.tool_call.model_copy(update={"arguments": {"to": "dev@example.com"}})
    edited = transcript.messages[1].model_copy(
        update={"parts": (asked.model_copy(update={"tool_call": call}),)}
    )
    messages = (transcript.messages[0], edited, *transcript.messages[2:])
    encoded = histnorm.encode(transcript.model_copy(update={"messages": messages}))
    nested = encoded[1][spell("contents", pascal)][0][spell("functionCall", pascal)]
    assert nested == obj(
        pascal, callId="call_7", name="send_email", arguments={"to": "dev@example.com"}
    )
    assert encoded[2] == answered(pascal)[2]


@CASES
def test_denying_the_pending_approval_writes_a_typed_call(pascal: bool) -> None:
    """`deny` puts the wrapped call in the message itself, where it needs its `$type`."""
    settings = Settings(pending_approval=ApprovalPolicy.DENY, unsafe_fixes=True)
    result = histnorm.fix(pending(pascal), settings, format="meai")
    assert result.applied["HN003"] == 1
    contents = histnorm.encode(result.transcript)[1][spell("contents", pascal)]
    assert contents[0]["$type"] == "functionCall"
    assert contents[0][spell("callId", pascal)] == "call_7"


def test_the_fixture_in_system_text_json_shape_round_trips() -> None:
    raw = (FIXTURE / "approval_stj.json").read_bytes()
    value = orjson.loads(raw)
    assert histnorm.detect_format(value) == "meai"
    assert orjson.dumps(histnorm.encode(histnorm.load(raw))) == orjson.dumps(value)
    assert "HN003" in {d.code for d in histnorm.lint(raw)}


# --- a message with only usage ------------------------------------------------------------


def usage_only() -> list[Any]:
    usage = {"$type": "usage", "details": {"inputTokenCount": 10, "outputTokenCount": 2}}
    return [
        {"role": "user", "contents": [{"$type": "text", "text": "hi"}]},
        {"role": "assistant", "contents": [{"$type": "text", "text": "Hello!"}]},
        {"role": "assistant", "messageId": "r1", "contents": [usage]},
        {"role": "user", "contents": [{"$type": "text", "text": "thanks"}]},
    ]


def test_a_usage_only_message_is_empty() -> None:
    diagnostics = [d for d in histnorm.lint(usage_only(), format="meai") if d.code == "HN005"]
    (diagnostic,) = diagnostics
    assert diagnostic.location.message_index == 2
    assert "usage" in diagnostic.message
    assert diagnostic.fix is not None
    assert diagnostic.fix.applicability is Applicability.UNSAFE
    assert not proven_clean(usage_only(), "meai", Settings())


def test_the_usage_only_message_is_kept_by_default_and_removed_when_asked() -> None:
    kept = histnorm.fix(usage_only(), format="meai")
    assert "HN005" not in kept.applied
    assert orjson.dumps(histnorm.encode(kept.transcript)) == orjson.dumps(usage_only())
    removed = histnorm.fix(usage_only(), Settings(unsafe_fixes=True), format="meai")
    assert removed.applied["HN005"] == 1
    expected = [line for i, line in enumerate(usage_only()) if i != 2]
    assert orjson.dumps(histnorm.encode(removed.transcript)) == orjson.dumps(expected)


def test_usage_beside_content_is_not_empty() -> None:
    history = usage_only()
    history[1]["contents"].append(history[2]["contents"][0])
    del history[2]
    assert "HN005" not in {d.code for d in histnorm.lint(history, format="meai")}
