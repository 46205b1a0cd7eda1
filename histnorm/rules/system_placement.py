"""System text where the target does not accept it.

## What it does
Under profiles that only take system text in a separate field (`gemini`,
`bedrock-converse`: top-level `system` / `systemInstruction`) or only at the start
(`portable`), reports system and developer messages inside the conversation. Leading
ones can be moved to the top-level field by a converter; later ones have no place there.
Under `anthropic` (placement `inline`) every system message in `messages` is only
information: current models take `role: "system"` messages anywhere (Anthropic answered
200 to them in the middle of a conversation), older models and the Bedrock and Vertex
clients take system text only in the top-level `system`.

## Why it breaks a replay
Gemini: `Role must be user or model, but got system`; older Anthropic models and Bedrock
reject a `system` role in `messages`; Mistral: `Unexpected role 'tool' after role
'system'`.

## Example
A developer message sent in the middle of a conversation.

## Fix
None: whether the instruction should move to the start, become user text or be dropped
is the user's call.

## Fix safety
There is no fix.

## References
- `histnorm/profile_evidence.py`: the evidence of each profile's `system_placement`,
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
    """Report system messages in positions the target does not accept."""
    outline = context.outline
    placement = context.profile.system_placement
    leading = True
    for mi, message in enumerate(outline.messages):
        is_system = message.role_is("system", "developer")
        if is_system and not any(p.kind == "text" for p in message.parts):
            continue  # e.g. Anthropic's tool_addition blocks, which only system messages take
        if is_system and placement == "inline":
            yield RULE.diagnostic(
                f"a {message.role} message in the message list; only newer models of the "
                "target take it there, older ones need the top-level system field",
                message_index=mi,
                severity=Severity.INFO,
            )
        elif is_system and not leading:
            yield RULE.diagnostic(
                f"a {message.role} message in the middle of the conversation",
                message_index=mi,
            )
        elif is_system and placement == "top-level":
            yield RULE.diagnostic(
                f"a {message.role} message in the message list; the target takes system "
                "text only in its top-level field",
                message_index=mi,
                severity=Severity.INFO,
            )
        leading = leading and is_system


_BAD: Any = [
    {"role": "user", "content": "Draft the email."},
    {"role": "assistant", "content": "Here is a draft."},
    {"role": "developer", "content": "From now on, answer in French."},
    {"role": "user", "content": "Shorter, please."},
]

RULE = Rule(
    code="HN108",
    name="system-placement",
    summary="system text sits where the target does not accept it (profiles: gemini, "
    "gemini-3, vertex, bedrock-converse, portable; information under anthropic, "
    "anthropic-thinking)",
    severity=Severity.WARNING,
    applicability=None,
    doc=__doc__ or "",
    check_outline=check,
    applies=lambda profile: profile.system_placement != "anywhere",
    other_severities=(
        (
            Severity.INFO,
            "under `anthropic`, and for system text before the first other message under "
            "`gemini` and `bedrock-converse`",
        ),
    ),
    examples=(
        Example(
            bad=_BAD,
            good=None,
            settings=Settings(profile="portable"),
            title="an instruction in the middle of the conversation",
        ),
    ),
)
