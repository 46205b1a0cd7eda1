"""The same handoff call repeated while it is pending.

## What it does
Finds a handoff call (a function named `handoff_to_…`) repeated with the same call id and
the same target while the first is still pending. Two handoffs under one call id with
*different* targets are distinct candidates and are not merged.

## Why it breaks a replay
Agent Framework's handoff executor saw every copy as a candidate and warned
`Duplicate handoff requests in single turn ([handoff_to_x, handoff_to_x])`; providers
reject the repeated call id (`tool_use ids must be unique`).

## Example
A streamed `handoff_to_billing` call emitted twice.

## Fix
Keep the first copy and remove the later ones.

## Fix safety
Safe: the copies are the same handoff.

## References
- `histnorm/behaviours/handoffs.py` (`dedupe_handoff_candidates`): one candidate per
  call id and target; its cases in `tests/test_behaviour_requests.py`.
"""

from __future__ import annotations

from collections.abc import Iterable

from histnorm.analysis.context import Context
from histnorm.analysis.outline import REPEATED
from histnorm.diagnostic import Applicability, Diagnostic, Severity
from histnorm.rule import Example, Rule
from histnorm.rules._common import nth, remove_reported, show_id


def check(context: Context) -> Iterable[Diagnostic]:
    """Report every repeated pending handoff call."""
    for repeat in context.pairing.repeats:
        if repeat.kind != "handoff":
            continue
        yield RULE.diagnostic(
            f"handoff {show_id(repeat.kept)} under call id {show_id(repeat.id)} repeats the "
            f"pending handoff of {nth(context.outline, repeat.first[0])}",
            message_index=repeat.position[0],
            part_index=repeat.position[1],
            fix_title="remove the repeated handoff; the first one wins",
        )


_CALL = {"$type": "functionCall", "callId": "h1", "name": "handoff_to_billing", "arguments": {}}
_BAD = [
    {"role": "user", "contents": [{"$type": "text", "text": "I was charged twice."}]},
    {"role": "assistant", "contents": [_CALL, _CALL]},
    {
        "role": "tool",
        "contents": [{"$type": "functionResult", "callId": "h1", "result": "Transferred."}],
    },
]

RULE = Rule(
    code="HN009",
    name="duplicate-handoff",
    summary="the same handoff call is repeated",
    severity=Severity.ERROR,
    applicability=Applicability.SAFE,
    doc=__doc__ or "",
    check_outline=check,
    needs=REPEATED,
    fix=remove_reported,
    examples=(
        Example(
            bad=_BAD,
            good=[_BAD[0], {"role": "assistant", "contents": [_CALL]}, _BAD[2]],
            format="meai",
            title="a re-emitted handoff",
        ),
    ),
)
