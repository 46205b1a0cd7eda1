"""A call id used again after it was answered, where the target wants unique ids.

## What it does
Under profiles whose target requires call ids to be unique across the whole request
(`openai-responses`, `bedrock-converse`, `portable`), finds a call reusing the id of an
earlier, answered call. The core rules accept such reuse (llama.cpp returns one id for
every call; Gemini-style providers use the function name as the id), so this is purely a
target constraint. Anthropic accepts an id reused after its result (a recorded 200): an
id pending twice, which it rejects, is HN006 or HN007 under every profile.

## Why it breaks a replay
Responses API: `Duplicate item found with id …. Remove duplicate items from your input
and try again.`; Bedrock carries Anthropic's `messages.N.content.M: tool_use ids must be
unique`.

## Example
Three rounds of `step` calls that all used the id `call_0`.

## Fix
Rewrite the id of each later call, and of the results paired with it, to a
deterministic new id (`call_` and 24 hex digits of a hash of the old id and position).

## Fix safety
Safe: every pairing is kept and nothing is added or removed. Not offered when an approval
or a record of the file that holds no message (a Codex `event_msg` line, a Claude Code
hook line) cites the id: which of the calls it means cannot be told.

## References
- `histnorm/profile_evidence.py`: the evidence of each profile's `unique_call_ids`,
  listed below by profile.
- `histnorm/pairing.py`: an id pending twice is HN006 or HN007 instead.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from histnorm.analysis.context import Context
from histnorm.analysis.outline import CALLS
from histnorm.diagnostic import Applicability, Diagnostic, Severity
from histnorm.rule import Example, Rule
from histnorm.rules._common import nth, profile, rename_calls, show_id
from histnorm.rules._rename import cited_elsewhere
from histnorm.settings import Settings

if TYPE_CHECKING:
    from histnorm.model import Transcript


def check(context: Context) -> Iterable[Diagnostic]:
    """Report every call whose id an earlier call already used."""
    outline = context.outline
    repeats = {r.position for r in context.pairing.repeats}  # HN006, HN007, HN009
    seen: dict[str, int] = {}
    found: list[tuple[int, int, str]] = []
    for (mi, pi), part in outline.calls():
        if part.call_id is None or (mi, pi) in repeats:
            continue
        if part.call_id in seen:
            found.append((mi, pi, part.call_id))
        else:
            seen[part.call_id] = mi
    if not found:
        return
    refused = cited_elsewhere(context.transcript, {ident for _, _, ident in found})
    for mi, pi, ident in found:
        text = (
            f"call id {show_id(ident)} was already used in {nth(outline, seen[ident])}; "
            "the target needs unique ids"
        )
        reason = refused.get(ident)
        yield RULE.diagnostic(
            text
            if reason is None
            else f"{text} (not fixable: {reason}, and which call it means cannot be told)",
            message_index=mi,
            part_index=pi,
            fix_title="give the call and its results a new id" if reason is None else None,
        )


def fix(
    transcript: Transcript, diagnostics: Sequence[Diagnostic], settings: Settings
) -> Transcript:
    """Rename the later calls and their results."""
    return rename_calls(transcript, diagnostics, profile(transcript, settings))


_NEW = "call_60fa031302c6955246a15640"  # new_call_id("call_0", (2, 0)), as the fix writes it
_MEAI: Any = [
    {
        "role": "assistant",
        "contents": [
            {"$type": "functionCall", "callId": "call_0", "name": "step", "arguments": {}}
        ],
    },
    {"role": "tool", "contents": [{"$type": "functionResult", "callId": "call_0", "result": "0"}]},
    {
        "role": "assistant",
        "contents": [
            {"$type": "functionCall", "callId": "call_0", "name": "step", "arguments": {}}
        ],
    },
    {"role": "tool", "contents": [{"$type": "functionResult", "callId": "call_0", "result": "1"}]},
]

RULE = Rule(
    code="HN105",
    name="duplicate-call-id",
    summary="a call id is reused where the target needs unique ids (profiles: "
    "openai-responses, bedrock-converse, portable)",
    severity=Severity.ERROR,
    applicability=Applicability.SAFE,
    doc=__doc__ or "",
    check_outline=check,
    applies=lambda profile: profile.unique_call_ids,
    needs=CALLS,
    fix=fix,
    examples=(
        Example(
            bad=_MEAI,
            good=[
                *_MEAI[:2],
                {
                    "role": "assistant",
                    "contents": [
                        {"$type": "functionCall", "callId": _NEW, "name": "step", "arguments": {}}
                    ],
                },
                {
                    "role": "tool",
                    "contents": [{"$type": "functionResult", "callId": _NEW, "result": "1"}],
                },
            ],
            format="meai",
            settings=Settings(profile="bedrock-converse"),
            title="a constant id from llama.cpp, replayed to Bedrock",
        ),
    ),
)
