"""A reasoning item without the item it produced.

## What it does
Under profiles whose target ties reasoning to the output that follows it
(`openai-responses`, `portable`), finds a message holding only reasoning that is the
last message, or is followed by something other than the assistant output it produced.
Cancelled streams and trimmed histories leave these behind. In formats that store each
item as its own message (Responses input items), a reasoning item that carries an `id`
followed by an assistant message without one is reported too: the server looks the
reasoning up by its id and cannot match the message to the item it produced, as happens
when a history processor rewrites the answer text (a recorded 400). A function call
without an id after such reasoning is not reported: no verdict shows it rejected.

## Why it breaks a replay
Responses API: `Item 'rs_…' of type 'reasoning' was provided without its required
following item.`

## Example
A reasoning item whose function call was removed as an orphan.

## Fix
Remove the dangling reasoning message. Its encrypted content is never edited; without
the item it belongs to it cannot be replayed.

## Fix safety
Safe: a reasoning item without its following item can never be replayed.

## References
- `histnorm/profile_evidence.py`: the evidence of `reasoning_needs_next` (the recorded
  400), listed below by profile.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from histnorm.analysis.context import Context
from histnorm.analysis.outline import Step
from histnorm.diagnostic import Applicability, Diagnostic, Severity
from histnorm.edit import item_style
from histnorm.rule import Example, Rule
from histnorm.rules._common import remove_reported
from histnorm.settings import Settings


def _reasoning_only(message: Step) -> bool:
    parts = message.parts
    return (
        bool(parts) and parts[0].kind == "reasoning" and all(p.kind == "reasoning" for p in parts)
    )


def _unmatched(reasoning: Step, following: Step) -> bool:
    """An item with an id followed by an output message the server cannot tie to it."""
    return (
        reasoning.id is not None
        and following.id is None
        and not any(p.kind == "tool_call" for p in following.parts)
    )


def _problem(message: Step, following: Step | None, items: bool) -> str | None:
    if following is None or not following.role_is("assistant") or _reasoning_only(following):
        return "reasoning is not followed by the assistant output it produced"
    if items and _unmatched(message, following):
        return (
            f"reasoning {message.id!r} is followed by an assistant message without an id, "
            "which the target cannot match to the item the reasoning produced"
        )
    return None


def check(context: Context) -> Iterable[Diagnostic]:
    """Report reasoning-only messages not followed by the assistant output they produced."""
    outline = context.outline
    messages, items = outline.messages, item_style(outline)
    for mi, message in enumerate(messages):
        if not _reasoning_only(message):
            continue
        following = messages[mi + 1] if mi + 1 < len(messages) else None
        problem = _problem(message, following, items)
        if problem is not None:
            for pi in range(len(message.parts)):
                yield RULE.diagnostic(
                    problem,
                    message_index=mi,
                    part_index=pi,
                    fix_title="remove the dangling reasoning",
                )


_MEAI_BAD: Any = [
    {"role": "user", "contents": [{"$type": "text", "text": "Weather in Oslo?"}]},
    {
        "role": "assistant",
        "contents": [{"$type": "reasoning", "text": "", "protectedData": "gAAAAB..."}],
    },
    {"role": "user", "contents": [{"$type": "text", "text": "Hello?"}]},
]

_RESPONSES_BAD: Any = [
    {"role": "user", "content": "What is the meaning of life?"},
    {"type": "reasoning", "id": "rs_01", "summary": [], "encrypted_content": "gAAAAB..."},
    {"role": "assistant", "content": "42, in short."},
    {"role": "user", "content": "Anything to add?"},
]

RULE = Rule(
    code="HN103",
    name="reasoning-without-next",
    summary="a reasoning item is not followed by the output it produced (profiles: "
    "openai-responses, portable)",
    severity=Severity.ERROR,
    applicability=Applicability.SAFE,
    doc=__doc__ or "",
    check_outline=check,
    applies=lambda profile: profile.reasoning_needs_next,
    fix=remove_reported,
    examples=(
        Example(
            bad=_MEAI_BAD,
            good=[_MEAI_BAD[0], _MEAI_BAD[2]],
            format="meai",
            settings=Settings(profile="openai-responses"),
            title="reasoning left behind by a dropped call",
        ),
        Example(
            bad=_RESPONSES_BAD,
            good=[_RESPONSES_BAD[0], *_RESPONSES_BAD[2:]],
            format="openai-responses",
            title="an answer rewritten without its item id after the reasoning",
        ),
    ),
)
