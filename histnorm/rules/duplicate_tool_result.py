"""Two results for one call.

## What it does
Finds a tool result for a call that an earlier result already answered (and whose id was
not reused by a newer call since).

## Why it breaks a replay
OpenAI Chat Completions: `Invalid parameter: Duplicate value for 'tool_call_id' of
'call_…', in messages[7] and messages[8].`; Anthropic (through LiteLLM): `each tool_use
must have a single result. Found multiple tool_result blocks with id: toolu_…`. Approval
state that was not reconciled after a cancelled turn executes a call again or appends a
second rejection.

## Example
The same rejection appended twice.

## Fix
Keep the first result and remove the later one.

## Fix safety
Safe when the two results are identical. When they differ, choosing the first is a
decision about content, so the fix is unsafe and needs unsafe fixes enabled.

## References
- `histnorm/pairing.py`: a result for a call that is already answered.
- `histnorm/behaviours/approval_state.py` (`reconcile_approval_state`): settled
  approvals are forgotten so a call is not run twice.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from histnorm.analysis.context import Context
from histnorm.analysis.outline import DUPLICATED
from histnorm.diagnostic import Applicability, Diagnostic, Severity
from histnorm.lazy import model
from histnorm.rule import Example, Rule
from histnorm.rules._common import describe, nth, part_at, remove_reported
from histnorm.settings import Settings

if TYPE_CHECKING:
    from histnorm.model import ToolResultPart


def _same(a: ToolResultPart, b: ToolResultPart) -> bool:
    return (a.content, a.is_error) == (b.content, b.is_error) and type(a.content) is type(b.content)


def check(context: Context) -> Iterable[Diagnostic]:
    """Report every second result of an answered call."""
    for position, first in context.pairing.duplicate_results:
        transcript = context.transcript  # whether the contents differ: the model says
        later, earlier = part_at(transcript, position), part_at(transcript, first)
        assert isinstance(later, model.ToolResultPart) and isinstance(earlier, model.ToolResultPart)
        same = _same(later, earlier)
        yield RULE.diagnostic(
            f"{describe(later)} answers a call already answered in {nth(transcript, first[0])}"
            + ("" if same else ", with a different result"),
            message_index=position[0],
            part_index=position[1],
            fix_title="remove the later result" + ("" if same else " (keep the first)"),
            applicability=Applicability.SAFE if same else Applicability.UNSAFE,
        )


_CALL = {"id": "c1", "type": "function", "function": {"name": "rm", "arguments": "{}"}}
_BAD: Any = [
    {"role": "assistant", "content": None, "tool_calls": [_CALL]},
    {"role": "tool", "tool_call_id": "c1", "content": "Tool call invocation rejected."},
    {"role": "tool", "tool_call_id": "c1", "content": "Tool call invocation rejected."},
    {"role": "assistant", "content": "I did not delete it."},
]
_DIFFERENT = [_BAD[0], _BAD[1], {**_BAD[2], "content": "deleted"}, _BAD[3]]

RULE = Rule(
    code="HN010",
    name="duplicate-tool-result",
    summary="a call has more than one result",
    severity=Severity.ERROR,
    applicability=Applicability.SAFE,
    doc=__doc__ or "",
    check_outline=check,
    needs=DUPLICATED,
    fix=remove_reported,
    examples=(
        Example(bad=_BAD, good=[_BAD[0], _BAD[1], _BAD[3]], title="an identical second result"),
        Example(bad=_DIFFERENT, good=None, title="different results are not chosen between"),
        Example(
            bad=_DIFFERENT,
            good=[_BAD[0], _BAD[1], _BAD[3]],
            settings=Settings(unsafe_fixes=True),
            title="unless unsafe fixes are on",
        ),
    ),
)
