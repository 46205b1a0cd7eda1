"""A different request under an id that is still pending.

## What it does
Finds a tool call whose id is still pending for an earlier call with a *different* name,
and an approval request whose request id is still pending for a request that wraps a
*different* call. Only one of the two can be serviced; the first one seen is the one the
user was shown. The reachable case is the empty-string call id some agents fall back to.

## Why it breaks a replay
The same duplicate-id errors as HN006 (`tool_use ids must be unique`, `Duplicate item
found with id …`), and a pairing that binds the result to the wrong request.

## Example
Two different tools started under the call id `""`.

## Fix
Keep the first request and remove the later one; the diagnostic names both values.

## Fix safety
Unsafe: the later request is real content that is dropped. It applies only with unsafe
fixes enabled; otherwise it is a warning, as upstream makes it.

## References
- `histnorm/behaviours/requests.py` and `histnorm/behaviours/_request_records.py`: a
  conflict is reported, never merged; the cases in `tests/test_behaviour_requests.py`.
"""

from __future__ import annotations

from collections.abc import Iterable

from histnorm.analysis.context import Context
from histnorm.analysis.outline import REPEATED
from histnorm.diagnostic import Applicability, Diagnostic, Severity
from histnorm.rule import Example, Rule
from histnorm.rules._common import remove_reported, show_id
from histnorm.settings import Settings


def check(context: Context) -> Iterable[Diagnostic]:
    """Report every conflicting request under a pending id."""
    for repeat in context.pairing.repeats:
        if not repeat.conflict:
            continue
        if repeat.kind == "approval_request":
            text = (
                f"repeated request id {show_id(repeat.id)} wraps call "
                f"{show_id(repeat.dropped)}, but the pending request wraps "
                f"{show_id(repeat.kept)}; the first wins"
            )
        else:
            text = (
                f"repeated call id {show_id(repeat.id)} names {show_id(repeat.dropped)}, "
                f"but the pending call names {show_id(repeat.kept)}; the first wins"
            )
        yield RULE.diagnostic(
            text,
            message_index=repeat.position[0],
            part_index=repeat.position[1],
            fix_title=f"remove the later request (keep {show_id(repeat.kept)})",
            data={"kept": repeat.kept, "dropped": repeat.dropped, "first": repeat.first},
        )


_BASH = {"$type": "functionCall", "callId": "", "name": "bash", "arguments": {"cmd": "ls"}}
_READ = {"$type": "functionCall", "callId": "", "name": "read", "arguments": {"path": "a"}}
_BAD = [
    {"role": "assistant", "contents": [_BASH, _READ]},
    {"role": "tool", "contents": [{"$type": "functionResult", "callId": "", "result": "a.txt"}]},
]

RULE = Rule(
    code="HN007",
    name="conflicting-request-id",
    summary="a different request reuses an id that is still pending",
    severity=Severity.WARNING,
    applicability=Applicability.UNSAFE,
    doc=__doc__ or "",
    check_outline=check,
    needs=REPEATED,
    fix=remove_reported,
    examples=(
        Example(bad=_BAD, good=None, format="meai", title="reported, not fixed, by default"),
        Example(
            bad=_BAD,
            good=[{"role": "assistant", "contents": [_BASH]}, _BAD[1]],
            format="meai",
            settings=Settings(unsafe_fixes=True, ignore=("HN016",)),
            title="with unsafe fixes the first wins (HN016 would keep both calls)",
        ),
    ),
)
