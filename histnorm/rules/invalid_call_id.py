"""A call id the target rejects: too long, or with characters it does not allow.

## What it does
Under profiles with id limits, finds tool call ids longer than the target accepts
(`openai-chat` 40, `openai-responses` and `bedrock-converse` 64) or not matching its
pattern (`anthropic` `[a-zA-Z0-9_-]+`, which also rejects the empty id; Bedrock
`[a-zA-Z0-9_.:-]+`; `mistral` exactly 9 letters and digits). Ids from another provider
break these limits when a history is replayed elsewhere: Responses ids of 50+ characters
into Chat Completions, `:` and `.` in Kimi-style ids into Anthropic, any `call_…` id into
Mistral.

## Why it breaks a replay
OpenAI Chat Completions: `Invalid 'messages[36].tool_calls[0].id': string too long.
Expected a string with maximum length 40, but got a string with length 51 instead.`;
Responses API: `Invalid 'input[95].call_id': string too long. Expected a string with
maximum length 64 …`; Anthropic: `messages.1.content.1.tool_use.id: String should match
pattern '^[a-zA-Z0-9_-]+$'`; Mistral: `Tool call id was call_PTLP8xhu3uwZk4l3nlnrrJha but
must be a-z, A-Z, 0-9, with a length of 9.` (anomalyco/opencode#1680).

## Example
A Responses-style call id replayed into Chat Completions.

## Fix
Rewrite the id deterministically from a hash of the old id and its position, in the call
and everywhere it is cited: every result paired with it, the approval request and
response wrapping it (MEAI, Agent Framework, Vercel AI) and the Codex `event_msg` lines
naming it. The new id is `call_` and 24 hex digits, or, where the profile rejects that,
24 or 9 letters and digits (`mistral`, `portable`: 9).

## Fix safety
Safe: the pairing is kept, nothing is added or removed; the new id depends only on the
input, so fixing twice gives the same result. A rename that cannot reach every reference
is not offered: when the old id would still stand anywhere in the written file (a record
the format keeps verbatim, an approval of an id several calls share), the diagnostic says
where, and the id is left as it is.

## References
- `histnorm/profile_evidence.py`: the evidence of each profile's `max_call_id_length`
  and `call_id_pattern`, listed below by profile.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from histnorm.analysis.context import Context
from histnorm.analysis.outline import CALLS
from histnorm.diagnostic import Applicability, Diagnostic, Severity
from histnorm.pairing import Position
from histnorm.profiles import call_id_problem
from histnorm.rule import Example, Rule
from histnorm.rules._common import profile, reported, show_id
from histnorm.rules._rename import renamed, unreached
from histnorm.settings import Settings

if TYPE_CHECKING:
    from histnorm.model import Transcript


def check(context: Context) -> Iterable[Diagnostic]:
    """Report calls whose id the target rejects; the rename is offered only where the new
    id would reach every reference to the old one (`histnorm.rules._rename.unreached`)."""
    outline = context.outline
    limits = context.profile
    found: list[tuple[Position, str]] = []
    for (mi, pi), part in outline.calls():
        if part.call_id is not None:
            why = call_id_problem(part.call_id, limits)
            if why is not None:
                found.append(((mi, pi), f"call id {show_id(part.call_id)} {why} for {limits.name}"))
    if not found:
        return
    refused = unreached(context.transcript, [at for at, _ in found], limits)
    for (mi, pi), text in found:
        reason = refused.get((mi, pi))
        yield RULE.diagnostic(
            text if reason is None else f"{text} (not fixable: {reason})",
            message_index=mi,
            part_index=pi,
            fix_title=None if reason is not None else "rewrite the id in the call and its results",
        )


def fix(
    transcript: Transcript, diagnostics: Sequence[Diagnostic], settings: Settings
) -> Transcript:
    """Give each reported call a deterministic id the target accepts, in the call and
    everywhere it is cited (results, approvals, the format's other records)."""
    return renamed(transcript, reported(diagnostics), profile(transcript, settings))


_LONG = "fc_68a1f2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f5a6b"
_BAD: Any = [
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": _LONG, "type": "function", "function": {"name": "ls", "arguments": "{}"}}
        ],
    },
    {"role": "tool", "tool_call_id": _LONG, "content": "a.txt"},
]
_NEW = "call_02e680a8f6c3ca17db27d008"

RULE = Rule(
    code="HN104",
    name="invalid-call-id",
    summary="a call id is too long or has characters the target rejects",
    severity=Severity.ERROR,
    applicability=Applicability.SAFE,
    doc=__doc__ or "",
    check_outline=check,
    applies=lambda p: p.max_call_id_length is not None or p.call_id_pattern is not None,
    needs=CALLS,
    fix=fix,
    examples=(
        Example(
            bad=_BAD,
            good=[
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": _NEW,
                            "type": "function",
                            "function": {"name": "ls", "arguments": "{}"},
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": _NEW, "content": "a.txt"},
            ],
            title="a Responses id replayed into Chat Completions",
        ),
    ),
)
