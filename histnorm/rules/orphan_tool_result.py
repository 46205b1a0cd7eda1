"""A tool result whose call is not before it.

## What it does
Finds tool results that no earlier unanswered call of the same id and family can own.
Results are paired by ordered occurrence, so a result that is merely far from its call is
not an orphan (see HN008), and a second result for an answered call is HN010.

## Why it breaks a replay
OpenAI Chat Completions: `Invalid parameter: messages with role 'tool' must be a response
to a preceeding message with 'tool_calls'.`; Anthropic: `unexpected tool_use_id found in
tool_result blocks: toolu_…. Each tool_result block must have a corresponding tool_use
block in the previous message.`; Responses API: `No tool call found for function call
output with call_id call_….` This is what history trimming and compaction leave when they
cut the call off but keep its result.

## Example
A compaction removed the assistant message that made `call_gone`.

## Fix
Remove the result, and its message if nothing else is left in it. Not in a Claude Code
session whose result line names a parent the file does not hold (HN014) while its call is
on an earlier line (one Claude Code reads: not an earlier copy of a uuid a later line
reuses): the result is real and is kept, and the diagnostic says where its call is.

## Fix safety
Safe: a result without its call can never be replayed.

## References
- `histnorm/pairing.py`: a result with no earlier unanswered call of its id.
- `histnorm/behaviours/partial.py` (`sanitize_partial_response`, R-A3): orphan results
  are removed.
"""

from __future__ import annotations

from collections.abc import Iterable

from histnorm.analysis.context import Context
from histnorm.analysis.outline import ORPHANED
from histnorm.diagnostic import Applicability, Diagnostic, Severity
from histnorm.rule import Example, Rule
from histnorm.rules._common import describe, outline_part_at, remove_reported


def check(context: Context) -> Iterable[Diagnostic]:
    """Report every result no earlier call owns; one whose call is earlier in a Claude Code
    file, cut off the conversation by a broken parent link (HN014), is kept (no fix)."""
    orphans = context.pairing.orphan_results
    cut = _cut_off(context) if orphans and context.outline.format == "claude-code" else {}
    for position in orphans:
        part = outline_part_at(context.outline, position)
        call_id = getattr(part, "call_id", None)
        line = cut.get(call_id) if isinstance(call_id, str) else None
        if line is not None:
            yield RULE.diagnostic(
                f"{describe(part)} answers no earlier tool call of the conversation: its "
                f"call, on line {line + 1}, is cut off by a parentUuid that names no line "
                "of the file (HN014); the result is kept",
                message_index=position[0],
                part_index=position[1],
            )
            continue
        yield RULE.diagnostic(
            f"{describe(part)} answers no earlier tool call",
            message_index=position[0],
            part_index=position[1],
            fix_title="remove the tool result",
        )


def _cut_off(context: Context) -> dict[str, int]:
    """The calls of the Claude Code file that its broken parent chain leaves behind."""
    transcript = context.transcript
    lines = transcript.native
    if not isinstance(lines, list):
        return {}
    from histnorm.formats.claude_code import session_of
    from histnorm.formats.claude_code.tree import check_lines, cut_off_calls

    return cut_off_calls(check_lines(lines), session_of(transcript))


_BAD = [
    {"role": "tool", "tool_call_id": "call_gone", "content": "42"},
    {"role": "user", "content": "Thanks!"},
    {"role": "assistant", "content": "You're welcome."},
]
_MEAI_BAD = [
    {
        "role": "assistant",
        "contents": [{"$type": "functionCall", "callId": "c1", "name": "ls", "arguments": {}}],
    },
    {
        "role": "tool",
        "contents": [
            {"$type": "functionResult", "callId": "zz", "result": "x"},
            {"$type": "functionResult", "callId": "c1", "result": "ok"},
        ],
    },
]

RULE = Rule(
    code="HN002",
    name="orphan-tool-result",
    summary="a tool result has no earlier call",
    severity=Severity.ERROR,
    applicability=Applicability.SAFE,
    doc=__doc__ or "",
    check_outline=check,
    needs=ORPHANED,
    fix=remove_reported,
    examples=(
        Example(bad=_BAD, good=_BAD[1:], title="a result left behind by compaction"),
        Example(
            bad=_MEAI_BAD,
            good=[
                _MEAI_BAD[0],
                {
                    "role": "tool",
                    "contents": [{"$type": "functionResult", "callId": "c1", "result": "ok"}],
                },
            ],
            format="meai",
            title="only the orphan result is removed from a tool message",
        ),
    ),
)
