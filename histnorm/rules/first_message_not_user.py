"""A conversation that does not start with a user message.

## What it does
Under profiles whose target requires the first (non-system) message to come from the
user (`bedrock-converse`, `portable`), reports a history that opens with an assistant or
tool message. Trimming from the front often leaves one.

## Why it breaks a replay
Anthropic (older API versions) and Bedrock: `messages: first message must use the "user"
role`; Gemini: `Please ensure that function call turn comes immediately after a user turn
or after a function response turn.` when the history opens with a call.

## Example
A history trimmed so that it starts with the assistant's answer.

## Fix
None: only the user knows what the opening request was. Trim further, or add the
request back.

## Fix safety
There is no fix.

## References
- `histnorm/profile_evidence.py`: the evidence of each profile's `first_message_user`,
  listed below by profile.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from histnorm.analysis.context import Context
from histnorm.diagnostic import Diagnostic, Severity
from histnorm.rule import Example, Rule
from histnorm.settings import Settings


def check(context: Context) -> Iterable[Diagnostic]:
    """Report the first non-system message when it is not from the user."""
    outline = context.outline
    for mi, message in enumerate(outline.messages):
        if message.role_is("system", "developer"):
            continue
        if not message.role_is("user"):
            yield RULE.diagnostic(
                f"the conversation opens with a message from {message.role!r}, not the user",
                message_index=mi,
            )
        return


_BAD: Any = [
    {"role": "assistant", "content": "…so that is the plan."},
    {"role": "user", "content": "Great, go ahead."},
]

RULE = Rule(
    code="HN106",
    name="first-message-not-user",
    summary="the conversation does not open with a user message (profiles: bedrock-converse, "
    "portable)",
    severity=Severity.WARNING,
    applicability=None,
    doc=__doc__ or "",
    check_outline=check,
    applies=lambda profile: profile.first_message_user,
    examples=(
        Example(
            bad=_BAD,
            good=None,
            settings=Settings(profile="bedrock-converse"),
            title="a history trimmed from the front",
        ),
    ),
)
