"""Tool results that do not open their message.

## What it does
Under profiles whose target needs tool results at the start of the message that carries
them (`anthropic`, `anthropic-thinking`, `bedrock-converse`, `portable`), finds a user
(or tool) message where other content (text, images) comes before a tool result.
Server-tool and MCP results, which follow their call inside the assistant message, are
not concerned.

## Why it breaks a replay
Anthropic: `messages.N: Did not find 1 tool_result block(s) at the beginning of this
message. Messages following tool_use blocks must begin with a matching number of
tool_result blocks.` Text placed before a result is rejected.

## Example
A user message that says "here you go" and then carries the result.

## Fix
Move the results to the front of the message, keeping the order of the results and of
the other content.

A result whose call sits before it in the same message (a call in a user message, HN015)
is not moved: in front of its call it would answer nothing.

## Fix safety
Safe: nothing is added or removed; only the order inside one message changes.

## References
- `histnorm/profile_evidence.py`: the evidence of each profile's `results_first`, listed
  below by profile.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from histnorm.analysis.context import Context
from histnorm.analysis.outline import RESULTS, Call, OutlinePart, Result
from histnorm.diagnostic import Applicability, Diagnostic, Severity
from histnorm.edit import rewrite
from histnorm.model_terms import ToolFamily
from histnorm.pairing import Position
from histnorm.rule import Example, Rule
from histnorm.settings import Settings

if TYPE_CHECKING:
    from histnorm.model import Part, Transcript


def _client_result(part: Part | OutlinePart) -> bool:
    return part.kind == "tool_result" and part.family not in (
        ToolFamily.HOSTED,
        ToolFamily.MCP,
    )


def check(context: Context) -> Iterable[Diagnostic]:
    """Report each message whose first result comes after other content."""
    outline = context.outline
    for mi, message in enumerate(outline.messages):
        if len(message.parts) < 2 or message.role_is("assistant"):
            continue  # server-tool results follow their call inside the assistant message
        kinds = [_client_result(p) for p in message.parts]
        if any(kinds) and kinds != sorted(kinds, reverse=True):
            late = next(i for i, result in enumerate(kinds) if result and not all(kinds[:i]))
            text = f"a tool result in the {message.role} message comes after other content"
            answered = _answered_here(message.parts)
            if answered is not None:  # moving the result would put it before its call
                text += f" (not fixable: the call {answered!r} it answers is before it here)"
            yield RULE.diagnostic(
                text,
                message_index=mi,
                part_index=late,
                fix_title=None if answered else "move the tool results to the start of the message",
            )


def _answered_here(parts: Sequence[OutlinePart]) -> str | None:
    """The id of a call in `parts` that a client result after it in `parts` answers."""
    calls: set[str] = set()
    for part in parts:
        if isinstance(part, Call) and part.call_id is not None:
            calls.add(part.call_id)
        elif _client_result(part) and isinstance(part, Result) and part.call_id in calls:
            return part.call_id
    return None


def fix(
    transcript: Transcript, diagnostics: Sequence[Diagnostic], settings: Settings
) -> Transcript:
    """Put each reported message's results first."""
    replace: dict[Position, Sequence[Part]] = {}
    drop: list[Position] = []
    for d in diagnostics:
        mi = d.location.message_index or 0
        parts = transcript.messages[mi].parts
        ordered: list[Part] = [p for p in parts if _client_result(p)]
        ordered += [p for p in parts if not _client_result(p)]
        replace[(mi, 0)] = ordered
        drop.extend((mi, pi) for pi in range(1, len(parts)))
    return rewrite(transcript, replace=replace, remove=drop)


_BAD: Any = [
    {
        "role": "assistant",
        "contents": [{"$type": "functionCall", "callId": "c1", "name": "ls", "arguments": {}}],
    },
    {
        "role": "user",
        "contents": [
            {"$type": "text", "text": "Here is the listing."},
            {"$type": "functionResult", "callId": "c1", "result": "a.txt"},
        ],
    },
]

RULE = Rule(
    code="HN101",
    name="results-not-first",
    summary="tool results do not open their message (profiles: anthropic, anthropic-thinking, "
    "bedrock-converse, portable)",
    severity=Severity.ERROR,
    applicability=Applicability.SAFE,
    doc=__doc__ or "",
    check_outline=check,
    applies=lambda profile: profile.results_first,
    needs=RESULTS,
    fix=fix,
    examples=(
        Example(
            bad=_BAD,
            good=[
                _BAD[0],
                {"role": "user", "contents": [_BAD[1]["contents"][1], _BAD[1]["contents"][0]]},
            ],
            format="meai",
            settings=Settings(profile="anthropic"),
            title="the result moves in front of the text",
        ),
    ),
)
