"""Plain shapes: a cheap proof that a transcript is clean, so most never build models.

Most stored histories have nothing wrong with them, and building the full model of each
one only to find nothing is most of what a lint costs. A codec's `shape(value)` reads a
parsed native value into a `Shape` (per message: role, call ids, result ids, how many
other parts and how many of those are reasoning) and gives up with `None` the moment it
meets anything but the plainest content: approvals, partial-response markers, media,
empty text, handoffs, hosted or id-less calls, unknown blocks, anything it would have to
interpret. `is_plain(shape, profile, items)` then accepts only the plainest history:
every call answered exactly once in the messages right after it, ids unique and valid
for the profile, system messages where the profile takes them, reasoning followed by
its output.

This is not a second implementation of any rule: it reports nothing and never decides
that something is wrong. A transcript it does not accept goes through the rules, which
alone say what is wrong. The tests hold it to two promises over every fixture and the
fuzzed corpus: a codec's shape equals `shape_of` its decoded transcript, and a plain
shape lints without a single diagnostic under that profile.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from histnorm.analysis.outline import (
    ALWAYS,
    REASONING,
    TEXT,
    UNKNOWN_ROLE,
    Call,
    Outline,
    Result,
    outline_of,
)
from histnorm.analysis.outline import Step as OutlineStep
from histnorm.model import ToolFamily, Transcript
from histnorm.profiles import Profile
from histnorm.rules.invalid_call_id import problem


class Step(NamedTuple):
    """One message as the plain check sees it."""

    role: str
    """The role, casefolded."""
    calls: tuple[str, ...]
    """Ids of its function calls, in order."""
    results: tuple[str, ...]
    """Ids its function results answer, in order."""
    other: int
    """How many parts are neither calls nor results (non-empty text, reasoning)."""
    reasoning: int
    """How many of those are reasoning."""


Shape = tuple[Step, ...]
"""A transcript as the plain check sees it."""

_ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})
_SYSTEM = frozenset({"system", "developer"})


def plain_steps(outline: Outline | None) -> Shape | None:
    """The plain shape of an outline, or None when it holds anything but plain content."""
    if outline is None or outline.all_flags & ~(UNKNOWN_ROLE | ALWAYS):
        return None
    steps: list[Step] = []
    previous: OutlineStep | None = None
    items = outline.format == "openai-responses"
    for message in outline.messages:
        if not message.parts or message.flags:
            return None
        if items and previous is not None and _unmatched(previous, message):
            return None  # HN103 reports it: the server cannot tie the message to the reasoning
        previous = message
        calls: list[str] = []
        results: list[str] = []
        other = reasoning = 0
        for part in message.parts:
            if isinstance(part, Call | Result):
                if not part.call_id or part.family is not ToolFamily.FUNCTION:
                    return None
                if isinstance(part, Call):
                    if part.informational:
                        return None
                    calls.append(part.call_id)
                else:
                    results.append(part.call_id)
            elif part == TEXT:
                other += 1
            elif part == REASONING:
                other += 1
                reasoning += 1
            else:
                return None
        steps.append(Step(message.role.casefold(), tuple(calls), tuple(results), other, reasoning))
    return tuple(steps)


def _unmatched(reasoning: OutlineStep, following: OutlineStep) -> bool:
    return (
        reasoning.parts == (REASONING,)
        and reasoning.id is not None
        and following.id is None
        and not any(isinstance(p, Call) for p in following.parts)
    )


def shape_of(transcript: Transcript) -> Shape | None:
    """The shape of a decoded transcript, or None when it holds anything but plain content."""
    return plain_steps(outline_of(transcript))


def _call_only(step: Step) -> bool:
    """An assistant item of a parallel batch (formats with one item per message)."""
    return (
        step.role == "assistant"
        and not step.results
        and step.other == step.reasoning
        and bool(step.calls or step.reasoning)
    )


def _reasoning_only(step: Step) -> bool:
    return (
        bool(step.reasoning) and step.other == step.reasoning and not (step.calls or step.results)
    )


def _placement_ok(steps: Sequence[Step], profile: Profile) -> bool:
    if profile.system_placement == "anywhere":
        return True
    leading = True
    for step in steps:
        system = step.role in _SYSTEM
        if system and (profile.system_placement != "leading" or not leading):
            return False
        leading = leading and system
    return True


def _reasoning_ok(steps: Sequence[Step], profile: Profile) -> bool:
    if not profile.reasoning_needs_next:
        return True
    for index, step in enumerate(steps):
        if _reasoning_only(step):
            following = steps[index + 1] if index + 1 < len(steps) else None
            if following is None or following.role != "assistant" or _reasoning_only(following):
                return False
    return True


def _turns_ok(steps: Sequence[Step], profile: Profile, items: bool) -> bool:
    """Every call answered exactly once by the result messages right after its turn."""
    limited = profile.max_call_id_length is not None or profile.call_id_pattern is not None
    seen: set[str] = set()
    index, count = 0, len(steps)
    while index < count:
        role, calls, results, _, _ = steps[index]
        if results or role not in _ROLES:
            return False  # a result outside the block right after its call
        index += 1
        if not calls:
            continue
        if role != "assistant":
            return False
        wanted = list(calls)
        while items and index < count and _call_only(steps[index]):
            wanted += steps[index].calls
            index += 1
        answered: list[str] = []
        while index < count:
            role, calls, results, other, _ = steps[index]
            if not results or calls or other:
                break  # not a result-only message: the block is over
            if role != "user" and role != "tool":
                return False
            answered += results
            index += 1
        if answered != wanted and sorted(answered) != sorted(wanted):
            return False
        unique = set(wanted)
        if len(unique) != len(wanted) or not seen.isdisjoint(unique):
            return False
        if limited and any(problem(call_id, profile) is not None for call_id in wanted):
            return False
        seen |= unique
    return True


def is_plain(shape: Shape | None, profile: Profile, items: bool = False) -> bool:
    """Whether `shape` is so plain that no rule reports anything under `profile`.

    `items` is the codec's `items_are_messages`: each call of a parallel batch is its own
    message. False only means "not proven clean"; the rules decide the rest.
    """
    if not shape:
        return False
    if profile.first_message_user or profile.alternating_roles or profile.equal_call_counts:
        return False
    return (
        _turns_ok(shape, profile, items)
        and _placement_ok(shape, profile)
        and _reasoning_ok(shape, profile)
    )
