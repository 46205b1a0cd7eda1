"""A cancelled partial turn stored twice.

## What it does
Finds a request (the caller messages before a run of messages marked
`agent_framework.partial_response`) that is repeated right after the marked partial
response. That is the shape a resumed run leaves when the cancelled turn was persisted
and then persisted again on resume.

## Why it breaks a replay
No provider rejects it, but the model sees the same request twice and a truncated answer
in between, and evaluations count the turn twice. It often comes with repeated call ids
(HN006) when the partial turn held tool calls.

## Example
`user("Plan my trip") → assistant(partial "Day 1: …") → user("Plan my trip")`.

## Fix
None: which copy the user meant to keep is not knowable from the transcript. Remove the
earlier request and partial response by hand, or re-store the session.

## Fix safety
There is no fix.

## References
- `histnorm/behaviours/partial.py` (R-A11): a partial turn is stored once, marked
  `agent_framework.partial_response`; its cases in `tests/test_behaviour_partial.py`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from histnorm.analysis.outline import PARTIAL
from histnorm.diagnostic import Diagnostic, Severity
from histnorm.rule import Example, Rule
from histnorm.rules._common import nth
from histnorm.settings import Settings

if TYPE_CHECKING:
    from histnorm.model import Message, Transcript


def _content(message: Message) -> tuple[Any, ...]:
    parts = tuple(p.model_dump(exclude={"native", "slot"}) for p in message.parts)
    return message.role.casefold(), parts


def check(transcript: Transcript, settings: Settings) -> Iterable[Diagnostic]:
    """Report a marked partial run whose preceding request is repeated right after it."""
    messages = transcript.messages
    index = 0
    while index < len(messages):
        if not messages[index].is_partial:
            index += 1
            continue
        start = index
        while index < len(messages) and messages[index].is_partial:
            index += 1
        request_start = start
        while request_start > 0 and messages[request_start - 1].role_is("user", "system"):
            request_start -= 1
        request = [_content(m) for m in messages[request_start:start]]
        again = [_content(m) for m in messages[index : index + len(request)]]
        if request and request == again:
            yield RULE.diagnostic(
                f"the request in {nth(transcript, request_start, start - 1)} is repeated at "
                f"{nth(transcript, index)}, after the partial response it produced: the turn "
                "was stored twice",
                message_index=start,
            )


_BAD: Any = [
    {"role": "user", "contents": [{"$type": "text", "text": "Plan my trip to Oslo."}]},
    {
        "role": "assistant",
        "additionalProperties": {"agent_framework.partial_response": True},
        "contents": [{"$type": "text", "text": "Day 1: arrive and"}],
    },
    {"role": "user", "contents": [{"$type": "text", "text": "Plan my trip to Oslo."}]},
    {"role": "assistant", "contents": [{"$type": "text", "text": "Day 1: arrive, walk."}]},
]

RULE = Rule(
    code="HN012",
    name="repeated-partial-turn",
    summary="a cancelled partial turn was stored twice",
    severity=Severity.WARNING,
    applicability=None,
    doc=__doc__ or "",
    check=check,
    wants=PARTIAL,
    examples=(Example(bad=_BAD, good=None, format="meai", title="a resumed run stored twice"),),
)
