"""An approval request that never got a response.

## What it does
Finds approval (and other input) requests with no later response under the same request
id. A request still open at the very end of the transcript is a live state (the user has
not answered yet); it is reported as HN011 instead, unless `tail=close`.

## Why it breaks a replay
Microsoft.Extensions.AI's FunctionInvokingChatClient throws on the next turn:
`ToolApprovalRequestContent found with FunctionCall.CallId(s) 'call_1' that have no
matching ToolApprovalResponseContent.` (older releases name `FunctionApprovalRequestContent`).
The Vercel AI SDK sends a pending approval as a call without a result and refuses it
(`AI_MissingToolResultsError: Tool result is missing for tool call call_…`).
A response that comes before its request does not count.

## Example
A run surfaced an approval request and was cancelled; the user then wrote again.

## Fix
Policy `pending-approval`: `drop` (default) removes the request, which also removes the
call it wraps (that call never ran); `deny` replaces the request with its wrapped call
followed by the rejection result `Tool call invocation rejected.`, as
FunctionInvokingChatClient does for a rejected approval; `fail` reports only.

## Fix safety
`drop` is safe: the wrapped call never ran and cannot be resumed. `deny` invents a result
and applies only when chosen explicitly or with unsafe fixes enabled.

## References
- `histnorm/behaviours/partial.py` (R-A2: input requests are removed from a cancelled
  response) and `histnorm/behaviours/approvals.py` (how a resumed approval is answered);
  their cases in `tests/test_behaviour_partial.py` and
  `tests/test_behaviour_approvals.py`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from histnorm.analysis.context import Context
from histnorm.analysis.outline import PENDING
from histnorm.diagnostic import Applicability, Diagnostic, Severity
from histnorm.edit import rewrite, turn_end
from histnorm.lazy import model
from histnorm.model_terms import SYNTHESIZED_KEY, ToolFamily
from histnorm.pairing import Position, result_type_for
from histnorm.rule import Example, Rule
from histnorm.rules._common import part_at, unanswered
from histnorm.settings import ApprovalPolicy, Settings

if TYPE_CHECKING:
    from histnorm.model import Message, Part, ToolResultPart, Transcript


def check(context: Context) -> Iterable[Diagnostic]:
    """Report every unanswered request that is not a kept tail state."""
    settings = context.settings
    policy = settings.pending_approval
    offered = {
        ApprovalPolicy.DROP: ("remove the approval request", Applicability.SAFE),
        ApprovalPolicy.DENY: ("deny it: add the rejection result", Applicability.UNSAFE),
        ApprovalPolicy.FAIL: (None, None),
    }[policy]
    requests = context.pairing.pending_requests
    yield from unanswered(
        RULE,
        context,
        requests,
        missing="response",
        fix=offered,
        opted_in=policy is ApprovalPolicy.DENY,
    )


def fix(
    transcript: Transcript, diagnostics: Sequence[Diagnostic], settings: Settings
) -> Transcript:
    """Drop the requests, or deny them (wrapped call plus a rejection result)."""
    positions = [(d.location.message_index or 0, d.location.part_index or 0) for d in diagnostics]
    if settings.pending_approval is not ApprovalPolicy.DENY:
        return rewrite(transcript, remove=positions)
    drop: list[Position] = []
    replace: dict[Position, Sequence[Part]] = {}
    results: dict[int, list[ToolResultPart]] = {}
    for position in positions:
        request = part_at(transcript, position)
        assert isinstance(request, model.ApprovalRequestPart)
        call = request.tool_call
        if call is None:
            drop.append(position)
            continue
        replace[position] = (call.evolve(informational=True),)
        result = model.ToolResultPart(
            call_id=call.call_id,
            content=settings.rejection_text,
            family=call.family,
            tool_type=result_type_for(call.tool_type) if call.family is ToolFamily.MCP else None,
            metadata={SYNTHESIZED_KEY: True},
        )
        results.setdefault(position[0], []).append(result)
    inserts: dict[int, list[Message]] = {}
    for mi, found in results.items():
        end = turn_end(transcript, mi)
        inserts.setdefault(end, []).append(model.Message(role="tool", parts=tuple(found)))
    return rewrite(transcript, remove=drop, replace=replace, insert_after=inserts)


_REQUEST = {
    "$type": "toolApprovalRequest",
    "requestId": "ficc_c9",
    "requiresConfirmation": True,
    "toolCall": {
        "$type": "functionCall",
        "callId": "c9",
        "name": "rm",
        "arguments": {"path": "/tmp/x"},
    },
}
_BAD = [
    {"role": "user", "contents": [{"$type": "text", "text": "Clean up /tmp/x"}]},
    {"role": "assistant", "messageId": "r1", "contents": [_REQUEST]},
    {"role": "user", "contents": [{"$type": "text", "text": "Actually, what time is it?"}]},
]

RULE = Rule(
    code="HN003",
    name="pending-approval-request",
    summary="an approval request has no response while later messages follow",
    severity=Severity.ERROR,
    applicability=Applicability.SAFE,
    doc=__doc__ or "",
    check_outline=check,
    needs=PENDING,
    fix=fix,
    examples=(
        Example(
            bad=_BAD,
            good=[_BAD[0], _BAD[2]],
            format="meai",
            title="the request (and the call it wraps) is dropped",
        ),
        Example(
            bad=_BAD,
            good=[
                _BAD[0],
                {
                    "role": "assistant",
                    "messageId": "r1",
                    "contents": [
                        {
                            "$type": "functionCall",
                            "callId": "c9",
                            "name": "rm",
                            "arguments": {"path": "/tmp/x"},
                            "informationalOnly": True,
                        }
                    ],
                },
                {
                    "role": "tool",
                    "contents": [
                        {
                            "$type": "functionResult",
                            "callId": "c9",
                            "result": "Tool call invocation rejected.",
                            "additionalProperties": {"histnorm.synthesized": True},
                        }
                    ],
                },
                _BAD[2],
            ],
            format="meai",
            settings=Settings(pending_approval=ApprovalPolicy.DENY),
            title="policy deny turns it into a rejected call",
        ),
    ),
)
