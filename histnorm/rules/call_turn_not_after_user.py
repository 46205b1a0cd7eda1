"""A function call turn with no user turn before it.

## What it does
Under profiles whose target wants every function call turn to follow a user turn or a
function response turn (`gemini`, `gemini-3`, `vertex`, `portable`), reports the first
assistant (model) message holding a call when no user or tool message comes before it: the
history opens with a call, often once a trim cut the request away or a converter moved the leading
system message to `systemInstruction`. Back-to-back model contents are one turn to
Gemini, so a call after a model text of the same step is not reported; system messages
are not turns and are skipped.

## Why it breaks a replay
Gemini: `Please ensure that function call turn comes immediately after a user turn or
after a function response turn.` (google-gemini/gemini-cli#11814, where the history
started with a function call; lbjlaq/Antigravity-Manager#3396, where the contents began
with a model functionCall after the system message was extracted).

## Example
A history whose request was trimmed away, so that it opens with the model's call.

## Fix
None: only the user knows what the opening request was. Trim from a user turn, or add
the request back. Under `portable`, HN106 also reports the opening message.

## Fix safety
There is no fix.

## References
- `histnorm/profile_evidence.py`: the evidence of each profile's `call_after_user`,
  listed below by profile.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from histnorm.analysis.context import Context
from histnorm.analysis.outline import CALLS, Call
from histnorm.diagnostic import Diagnostic, Severity
from histnorm.rule import Example, Rule
from histnorm.rules._common import describe
from histnorm.settings import Settings

ASSISTANT_ROLES = ("assistant", "model")
"""The roles of the model's own turns (Gemini's is `model`)."""


def check(context: Context) -> Iterable[Diagnostic]:
    """Report the first call of a leading run of assistant messages."""
    for mi, message in enumerate(context.outline.messages):
        if message.role_is("system", "developer"):
            continue
        if not message.role_is(*ASSISTANT_ROLES):
            return  # a user or function response turn comes first
        for pi, part in enumerate(message.parts):
            if isinstance(part, Call) and not part.informational:
                yield RULE.diagnostic(
                    f"{describe(part)} opens the conversation: no user turn comes before it",
                    message_index=mi,
                    part_index=pi,
                )
                return


_BAD: Any = {
    "contents": [
        {
            "role": "model",
            "parts": [{"functionCall": {"name": "read_file", "args": {"path": "notes.md"}}}],
        },
        {
            "role": "user",
            "parts": [
                {"functionResponse": {"name": "read_file", "response": {"output": "- ship"}}}
            ],
        },
        {"role": "model", "parts": [{"text": "The notes say: ship."}]},
    ]
}

RULE = Rule(
    code="HN120",
    name="call-turn-not-after-user",
    summary="a function call turn has no user turn before it "
    "(profiles: gemini, gemini-3, vertex, portable)",
    severity=Severity.ERROR,
    applicability=None,
    doc=__doc__ or "",
    check_outline=check,
    applies=lambda profile: profile.call_after_user,
    needs=CALLS,
    examples=(
        Example(
            bad=_BAD,
            good=None,
            format="gemini",
            settings=Settings(profile="gemini"),
            title="a history that opens with a function call",
        ),
    ),
)
