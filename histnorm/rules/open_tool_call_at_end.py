"""Calls or approval requests still awaiting an answer at the end of the transcript.

## What it does
Reports tool calls without a result and approval requests without a response when
nothing but tool results follows them. With `tail=keep` (the default) this is a live
state (a tool is running, an approval is waiting for the user) or a fine-tuning example
whose last assistant turn is the training target, so it is information, not a defect.
With `tail=close` these items are defects instead, reported and fixed as HN001 and HN003.

## Why it breaks a replay
It does not, as long as the next request supplies the answers. Sending a new user
message after it without them gets the errors of HN001 and HN003.

## Example
A fine-tuning line that ends with the assistant's tool call.

## Fix
None under `tail=keep`. Use `tail=close` when the transcript is finished or about to be
replayed with a new message after it.

## Fix safety
There is no fix.

## References
- `histnorm/settings.py`: `tail` (`keep` or `close`) and what it means.
- `histnorm/pairing.py`: what is still open at the end.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from histnorm.analysis.context import Context
from histnorm.analysis.outline import PENDING, UNANSWERED
from histnorm.diagnostic import Diagnostic, Severity
from histnorm.rule import Example, Rule
from histnorm.rules._common import describe, left_open, outline_part_at


def check(context: Context) -> Iterable[Diagnostic]:
    """Report open calls and requests at the end, when the tail is kept."""
    pairing, outline = context.pairing, context.outline
    waiting = sorted((*pairing.unmatched_calls, *pairing.pending_requests))
    for position in waiting:
        if left_open(outline, position, context.tail, context.settings.tail is not None):
            answer = "a response" if position in pairing.pending_requests else "a result"
            yield RULE.diagnostic(
                f"{describe(outline_part_at(outline, position))} is still waiting for {answer}",
                message_index=position[0],
                part_index=position[1],
            )


_BAD: Any = {
    "messages": [
        {"role": "user", "content": "Weather in Oslo?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"Oslo"}'},
                }
            ],
        },
    ],
    "tools": [{"type": "function", "function": {"name": "get_weather"}}],
}

RULE = Rule(
    code="HN011",
    name="open-tool-call-at-end",
    summary="a tool call or approval request at the end is still waiting for its answer",
    severity=Severity.INFO,
    applicability=None,
    doc=__doc__ or "",
    check_outline=check,
    needs=UNANSWERED | PENDING,
    examples=(Example(bad=_BAD, good=None, title="a fine-tuning target is left alone"),),
)
