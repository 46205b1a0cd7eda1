"""A history sent as it is ends on an assistant message.

## What it does
With `tail = "close"` (the history is the request about to be sent, as histnorm's
integrations send it), reports a history whose last message, system messages aside, is
an assistant (model) message without an open call, under profiles whose target rejects
that (`portable`, an error) or whose newer models do (`anthropic`, `bedrock-converse`,
`gemini`: a warning, since older models take it as a prefill to continue). A request
body is closed when no tail is chosen (`histnorm.tail`): it is reported there under
`portable`, and not where some models take the final message as the prefill the body
asks for. With `tail = "keep"` (the default for anything but a request body) nothing is
reported: a stored conversation ends on the answer, and the next request adds the
user's message (lint a finished transcript that way, or ignore HN121, when it is
continued rather than sent as it is). A final message
with an open call is HN001's (tail=close).

## Why it breaks a replay
Anthropic and Bedrock, on Claude Sonnet and Opus 4.6 and newer: `This model does not
support assistant message prefill. The conversation must end with a user message.`
(smallmain/vscode-unify-chat-provider#249, NousResearch/hermes-agent#101401); Gemini
3.8 Flash: `Requests ending with a model turn are not supported.`
(anomalyco/opencode#47034). An interrupted stream or a resumed session often leaves the
history ending on the model's words.

## Example
A resumed session sent as it is, ending on the assistant's answer.

## Fix
None: a user message would have to be invented. Send the history with the user's next
message, or drop the final assistant message if it is not meant as a prefill.

## Fix safety
There is no fix.

## References
- `histnorm/profile_evidence.py`: the evidence of each profile's `final_assistant`,
  listed below by profile.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from histnorm.analysis.context import Context
from histnorm.analysis.outline import Call, Outline
from histnorm.diagnostic import Diagnostic, Severity
from histnorm.rule import Example, Rule
from histnorm.rules.call_turn_not_after_user import ASSISTANT_ROLES
from histnorm.settings import Settings, TailMode


def final_answer(context: Context) -> int | None:
    """The index of the last message when, system messages aside, it is an assistant
    message without an open call and the history is sent as it is (tail=close)."""
    if context.tail is not TailMode.CLOSE:
        return None
    outline: Outline = context.outline
    for mi in range(len(outline.messages) - 1, -1, -1):
        message = outline.messages[mi]
        if message.role_is("system", "developer"):
            continue
        if not message.role_is(*ASSISTANT_ROLES):
            return None
        if any(isinstance(p, Call) and not p.informational for p in message.parts):
            return None  # an open call: HN001 under tail=close
        return mi
    return None


def check(context: Context) -> Iterable[Diagnostic]:
    """Report a final assistant message the target rejects."""
    accepts = context.profile.final_assistant
    mi = final_answer(context)
    if mi is None:
        return
    some = accepts == "some-models"
    if some and context.settings.tail is None:
        return  # a request body's own choice: a prefill on the models that take one
    yield RULE.diagnostic(
        "the history ends on an assistant message; "
        + ("newer models of the target need" if some else "the target needs")
        + " it to end with a user message"
        + ("" if context.settings.tail is not None else f" ({context.closed_tail_note})"),
        message_index=mi,
        severity=Severity.WARNING if some else Severity.ERROR,
    )


_BAD: Any = [
    {"role": "user", "content": "Which port does the service use?"},
    {"role": "assistant", "content": "It listens on port 8080."},
]

RULE = Rule(
    code="HN121",
    name="ends-on-assistant",
    summary="the history sent ends on an assistant message (tail=close; profiles: portable; "
    "a warning under anthropic, anthropic-thinking, bedrock-converse, gemini, gemini-3 and vertex)",
    severity=Severity.ERROR,
    applicability=None,
    doc=__doc__ or "",
    check_outline=check,
    applies=lambda profile: profile.final_assistant != "accepted",
    other_severities=(
        (
            Severity.WARNING,
            "under `anthropic`, `bedrock-converse` and `gemini`, where only newer models reject it",
        ),
    ),
    examples=(
        Example(
            bad=_BAD,
            good=None,
            settings=Settings(profile="portable", tail=TailMode.CLOSE),
            title="a history sent as it is, ending on the answer",
        ),
    ),
)
