"""The fast outline reader of Microsoft.Extensions.AI messages (`histnorm.formats.meai.outline`).

Plain camelCase and PascalCase turns are plain; partial markers, approvals, blank text,
handoffs, informational calls and ambiguous property spellings give None. Drawn and
re-spelled transcripts hold the promises of `tests/test_fast_path.py`.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from outline_helpers import Step, summary
from strategies_meai import JSON_VALUES, transcripts
from test_fast_path import check_promises

from histnorm.engine import proven_clean
from histnorm.formats import outline_of
from histnorm.formats.meai import MeaiCodec

CODEC = MeaiCodec()
PROPERTY = settings(
    max_examples=200,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _pascal(value: Any) -> Any:
    """`value` with every property name capitalised (not `$type`, not data)."""
    if isinstance(value, list):
        return [_pascal(v) for v in value]
    return {
        (k if k == "$type" else k[0].upper() + k[1:]): (_pascal(v) if k in ("contents",) else v)
        for k, v in value.items()
    }


def _turns() -> list[dict[str, Any]]:
    call = {"$type": "functionCall", "callId": "call_1", "name": "ls", "arguments": {"d": "."}}
    return [
        {"role": "system", "contents": [{"$type": "text", "text": "Be brief."}]},
        {"role": "user", "contents": [{"$type": "text", "text": "List the files."}]},
        {
            "role": "assistant",
            "authorName": "agent",
            "messageId": "m1",
            "contents": [{"$type": "reasoning", "text": "ls"}, call],
        },
        {
            "role": "tool",
            "contents": [{"$type": "functionResult", "callId": "call_1", "result": "a.txt"}],
        },
        {"role": "Assistant", "contents": [{"$type": "text", "text": "One file."}]},
    ]


EXPECTED = (
    Step("system", (), (), 1, 0),
    Step("user", (), (), 1, 0),
    Step("assistant", ("call_1",), (), 1, 1),
    Step("tool", (), ("call_1",), 0, 0),
    Step("assistant", (), (), 1, 0),
)


@pytest.mark.parametrize("pascal", [False, True])
@pytest.mark.parametrize("envelope", [False, True])
def test_plain_turns_are_plain(pascal: bool, envelope: bool) -> None:
    body = [_pascal(m) for m in _turns()] if pascal else _turns()
    value: Any = {"messages": body, "conversationId": "c1"} if envelope else body
    assert summary(CODEC.read_outline(value)) == EXPECTED
    assert CODEC.read_outline(value) == outline_of(CODEC.decode(value))
    assert proven_clean(value, "meai")


def test_pascal_nulls_and_harmless_metadata_are_plain() -> None:
    body = [_pascal(m) for m in _turns()]
    for message in body:
        message.update(AuthorName=None, CreatedAt=None, AdditionalProperties={"_a": 1})
        for content in message["Contents"]:
            content.update(Annotations=None, AdditionalProperties=None)
    assert summary(CODEC.read_outline(body)) == EXPECTED


def _edit(message: int, content: int | None, **changes: Any) -> list[dict[str, Any]]:
    body = _turns()
    target = body[message] if content is None else body[message]["contents"][content]
    target.update(changes)
    return body


PARTIAL = {"agent_framework.partial_response": True}
APPROVAL = {
    "$type": "toolApprovalRequest",
    "requestId": "r1",
    "toolCall": {"$type": "functionCall", "callId": "call_2", "name": "rm"},
}


@pytest.mark.parametrize(
    "body",
    [
        _edit(2, None, additionalProperties=PARTIAL),
        _edit(2, None, additionalProperties=[]),
        _edit(2, None, messageId=7),
        _edit(1, 0, additionalProperties=PARTIAL),
        _edit(1, 0, text=" \n"),
        _edit(1, 0, text=""),
        _edit(1, 0, text=None),
        _edit(1, None, contents=[]),
        _edit(1, None, contents=[APPROVAL]),
        _edit(1, None, contents=[{"$type": "data", "uri": "data:text/plain,hi"}]),
        _edit(1, None, contents=[{"$type": "usage", "details": {}}]),
        _edit(1, None, contents=[{"$type": ["text"], "text": "hi"}]),
        _edit(2, 1, callId=""),
        _edit(2, 1, name="handoff_to_billing"),
        _edit(2, 1, informationalOnly=True),
        _edit(2, 1, invocationRequired=False),
        _edit(2, 1, **{"$type": "mcpServerToolCall", "serverName": "s"}),
        _edit(3, 0, CallId="call_9"),  # two spellings of one property
        _edit(1, None, ROLE="user"),  # a spelling only the case-insensitive reader finds
        _edit(1, None, role=None, Role="user"),
        _edit(2, 0, text=3),
    ],
)
def test_anything_but_plain_content_gives_none(body: list[dict[str, Any]]) -> None:
    assert CODEC.read_outline(body) is None
    assert not proven_clean(body, "meai")


@PROPERTY
@given(value=transcripts())
def test_drawn_transcripts_keep_the_promises(value: Any) -> None:
    check_promises("meai", "drawn", value)


_KEYS = ["role", "contents", "text", "callId", "name", "result", "messageId", "authorName"]
_KEYS += ["additionalProperties", "informationalOnly", "invocationRequired", "arguments"]


@st.composite
def _respelled(draw: st.DrawFn) -> Any:
    """A plain transcript with a few properties re-spelled, doubled or given odd values."""
    body = copy.deepcopy(draw(st.sampled_from([_turns(), [_pascal(m) for m in _turns()]])))
    for _ in range(draw(st.integers(1, 3))):
        message = draw(st.sampled_from(body))
        contents = message.get("contents", message.get("Contents"))
        parts = [c for c in contents if isinstance(c, dict)] if isinstance(contents, list) else []
        target = draw(st.sampled_from([message, *parts]))
        name = draw(st.sampled_from(_KEYS))
        key = draw(st.sampled_from([name, name[0].upper() + name[1:], name.upper()]))
        target[key] = draw(
            st.sampled_from([None, False, True, "", "x", "handoff_to_a", PARTIAL, {}]) | JSON_VALUES
        )
    return body


@PROPERTY
@given(value=_respelled())
def test_respelled_transcripts_keep_the_promises(value: Any) -> None:
    check_promises("meai", "respelled", value)
