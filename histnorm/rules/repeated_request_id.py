"""The same pending call or approval request emitted again under its id.

## What it does
Finds a tool call whose id is still pending (no result yet) for an earlier call of the
same name, and an approval request whose request id is still pending for an earlier
request that wraps the same call. This is a benign re-emission, for example a streamed
call repeated without its arguments. Ids that were answered are free again: a call that
reuses an answered id is a new call, never a repeat.

## Why it breaks a replay
Providers reject repeated ids: Anthropic `tool_use ids must be unique`; the Responses API
`Duplicate item found with id …`; OpenAI Chat Completions pairs the result with one call
and leaves the other unanswered. Microsoft.Extensions.AI's FunctionInvokingChatClient
throws while extracting approvals when one request id appears twice, and Agent
Framework's request collector threw `FunctionCallContent with duplicate CallId: …`.

## Example
A model re-emitted `lookup` under the same call id across two stream updates.

## Fix
Keep the first copy, which holds the complete arguments, and remove the later ones.

## Fix safety
Safe: the later copy is the same request.

## References
- `histnorm/behaviours/requests.py`: `merge_repeated_requests` and
  `dedupe_transcript_requests`, the first copy wins; their cases in
  `tests/test_behaviour_requests.py`.
- `histnorm/pairing.py`: repeats are ids emitted again while still pending.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from histnorm.analysis.context import Context
from histnorm.analysis.outline import REPEATED
from histnorm.diagnostic import Applicability, Diagnostic, Severity
from histnorm.rule import Example, Rule
from histnorm.rules._common import describe, nth, outline_part_at, remove_reported, show_id


def check(context: Context) -> Iterable[Diagnostic]:
    """Report every benign repeat of a pending call or approval request."""
    outline = context.outline
    for repeat in context.pairing.repeats:
        if repeat.conflict or repeat.kind == "handoff":
            continue
        first = repeat.first
        yield RULE.diagnostic(
            f"{describe(outline_part_at(outline, repeat.position))} repeats the pending "
            f"{'request' if repeat.kind == 'approval_request' else 'call'} "
            f"{show_id(repeat.id)} of {nth(outline, first[0])}",
            message_index=repeat.position[0],
            part_index=repeat.position[1],
            fix_title="remove the repeated copy; the first one wins",
        )


_BAD: Any = [
    {"role": "user", "content": "Look up x."},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "lookup", "arguments": '{"q":"x"}'},
            },
            {"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": ""}},
        ],
    },
    {"role": "tool", "tool_call_id": "c1", "content": "found"},
]
_REQ = {
    "$type": "toolApprovalRequest",
    "requestId": "ficc_c1",
    "toolCall": {
        "$type": "functionCall",
        "callId": "c1",
        "name": "pay",
        "arguments": {"amount": 5},
    },
}
_MEAI_BAD: Any = [
    {"role": "assistant", "messageId": "r1", "contents": [_REQ]},
    {"role": "assistant", "messageId": "r2", "contents": [_REQ]},
    {
        "role": "user",
        "contents": [
            {
                "$type": "toolApprovalResponse",
                "requestId": "ficc_c1",
                "approved": True,
                "toolCall": _REQ["toolCall"],
            }
        ],
    },
]

RULE = Rule(
    code="HN006",
    name="repeated-request-id",
    summary="a pending call or approval request is emitted again under its id",
    severity=Severity.ERROR,
    applicability=Applicability.SAFE,
    doc=__doc__ or "",
    check_outline=check,
    needs=REPEATED,
    fix=remove_reported,
    examples=(
        Example(
            bad=_BAD,
            good=[_BAD[0], {**_BAD[1], "tool_calls": _BAD[1]["tool_calls"][:1]}, _BAD[2]],
            title="an argument-less re-emission is merged into the first copy",
        ),
        Example(
            bad=_MEAI_BAD,
            good=[_MEAI_BAD[0], _MEAI_BAD[2]],
            format="meai",
            title="an approval request stored twice",
        ),
    ),
)
