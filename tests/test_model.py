"""The canonical model: frozen, validated, case-insensitive roles."""

from __future__ import annotations

import pydantic
import pytest

from histnorm.model import (
    PARTIAL_RESPONSE_KEY,
    ApprovalRequestPart,
    Message,
    TextPart,
    ToolCallPart,
    Transcript,
)


def test_models_are_frozen():
    message = Message(role="user", parts=(TextPart(text="hi"),))
    with pytest.raises(pydantic.ValidationError):
        message.role = "assistant"  # type: ignore[misc]


def test_sequences_are_tuples():
    transcript = Transcript(messages=[Message(role="user", parts=[TextPart(text="x")])])
    assert isinstance(transcript.messages, tuple)
    assert isinstance(transcript.messages[0].parts, tuple)


def test_role_compares_case_insensitively_and_keeps_spelling():
    message = Message(role="Assistant")
    assert message.role_is("assistant") and message.role_is("tool", "ASSISTANT")
    assert not message.role_is("user")
    assert message.role == "Assistant"


def test_evolve_validates_unlike_model_copy():
    part = TextPart(text="x")
    with pytest.raises(pydantic.ValidationError):
        part.evolve(text=3)
    assert part.evolve(text="y") == TextPart(text="y")


def test_parts_are_discriminated_by_kind():
    message = Message.model_validate(
        {
            "role": "assistant",
            "parts": [
                {
                    "kind": "approval_request",
                    "request_id": "r",
                    "tool_call": {"kind": "tool_call", "call_id": "", "name": "rm"},
                }
            ],
        }
    )
    request = message.parts[0]
    assert isinstance(request, ApprovalRequestPart)
    assert isinstance(request.tool_call, ToolCallPart) and request.tool_call.call_id == ""


def test_unknown_fields_are_rejected_by_the_canonical_model():
    with pytest.raises(pydantic.ValidationError):
        TextPart.model_validate({"text": "x", "colour": "red"})


def test_partial_marker():
    assert Message(role="assistant", metadata={PARTIAL_RESPONSE_KEY: True}).is_partial
    assert not Message(role="assistant").is_partial


def test_native_memo_is_shared_while_the_native_is_the_same():
    """A run of fixes evolves one transcript into many; what is read from its native
    document once serves them all, and never a transcript of another native."""
    from histnorm.model import native_memo

    lines = [{"type": "user"}]
    read = Transcript(messages=(Message(role="user", parts=(TextPart(text="Hi"),)),), native=lines)
    native_memo(read)["lines"] = len(lines)
    fixed = read.evolve(messages=())
    assert native_memo(fixed) == {"lines": 1}
    native_memo(fixed)["later"] = True  # filled by any of them, seen by all
    assert native_memo(read)["later"] is True
    assert native_memo(fixed.evolve(native=[*lines])) == {}
    assert native_memo(Transcript(native=lines)) == {}  # another transcript's, by identity only
