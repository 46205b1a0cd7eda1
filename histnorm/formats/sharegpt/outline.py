"""The outline of ShareGPT records, read without building models (the lint hot path).

It mirrors `decode_turn` turn by turn: the same tags, the same positional answers
(`answers_of`) and the same parsed `function_call` values, giving the outline parts the
decoded parts give. A record `decode` would refuse (a turn that is no object or has no
string `from`) gives None, and the codec decodes it to say why; `tests/test_outline.py`
holds the two equal.
"""

from __future__ import annotations

from typing import Any

from histnorm.analysis.outline import (
    EMPTY_TEXT_PART,
    ONE_TEXT,
    TEXT,
    UNKNOWN,
    UNKNOWN_OTHER,
    Call,
    Outline,
    OutlinePart,
    Result,
    Step,
    gathered,
)
from histnorm.call_keys import unread_call_keys
from histnorm.formats.sharegpt.calls import (
    Answers,
    Parsed,
    answers_of,
    family,
    parse_calls,
    tag_kind,
)

KEY = "conversations"
_new = tuple.__new__  # builds a named tuple as `_make` does, without its slower `__new__`
_TEXT_STEPS = {
    role: (Step(role, ONE_TEXT), Step(role, (EMPTY_TEXT_PART,)))
    for role in ("system", "user", "assistant")
}
"""The steps of a text turn of each role that holds nothing but its tag and its text
(non-blank, blank): steps are values, and every such turn shares its role's."""
_PLAIN = frozenset(id(steps[0]) for steps in _TEXT_STEPS.values())
"""The shared steps with no tool part and no flag (`gathered` passes over them)."""
_ROLES = frozenset({"system", "user", "assistant", "tool"})
"""The codec's roles (`ShareGPTCodec.known_roles`): an unknown tag is a role of its own."""


def _parts(kind: str, value: Any, answers: Answers, calls: Parsed) -> tuple[OutlinePart, ...]:
    """The outline of `_parts` in the codec: what one turn's value holds (`calls`: what
    `parse_calls` makes of it, for a function_call turn)."""
    if value is None:
        return ()
    if kind == "call":
        if calls is not None:
            return tuple(
                _new(Call, (None, n, family(n), "function_call", False, "tool_call"))
                for n in (item.get("name") for item in calls[1])
            )
    elif kind == "result" and answers is not None:
        return tuple(_new(Result, (None, n, family(n), None, "tool_result")) for n in answers)
    elif kind == "text" and type(value) is str:
        return (TEXT if value.strip() else EMPTY_TEXT_PART,)
    return (UNKNOWN_OTHER,)


def read_outline(data: Any) -> Outline | None:
    """The outline of a record holding `conversations`, or of a bare list of turns."""
    turns = data.get(KEY) if type(data) is dict else data
    if type(turns) is not list:
        return None
    tagged: list[tuple[str, str]] = []
    told: dict[str, tuple[str, str]] = {}  # a record's few tags, each told once
    for turn in turns:
        tag = turn.get("from") if type(turn) is dict else None
        if type(tag) is not str:
            return None
        found = told.get(tag)
        if found is None:
            found = told[tag] = tag_kind(tag)
        tagged.append(found)
    kinds: list[str | None] = [kind for kind, _ in tagged]
    parsed = {
        index: parse_calls(turn.get("value"))
        for index, turn in enumerate(turns)
        if kinds[index] == "call"
    }
    answers = answers_of(turns, kinds, parsed)
    steps = []
    for index, turn in enumerate(turns):
        kind, role = tagged[index]
        value = turn.get("value")
        if kind == "text" and type(value) is str and len(turn) == 2:  # `from` and `value`
            shared = _TEXT_STEPS.get(role)  # the usual turn: its tag and its text
            if shared is not None:
                steps.append(shared[0] if value.strip() else shared[1])
                continue
        parts = _parts(kind, value, answers.get(index, (None,)), parsed.get(index))
        flags = UNKNOWN if unread_call_keys(turn) else 0
        steps.append(_new(Step, (role, parts, flags, None)))
    return gathered(tuple(steps), "sharegpt", _PLAIN, _ROLES)


def turns_score(data: Any, turns: list[Any]) -> float:
    """The codec's `sniff` score of a record (or bare list) whose first 50 turns are
    objects with a string `from`: 0 when one of them has a chat message's `role` or
    `content`, else sure of a record and likely of a bare list."""
    for turn in turns[:50]:
        if "role" in turn or "content" in turn:
            return 0.0
    return 0.95 if isinstance(data, dict) else 0.8


def read_scored(data: Any) -> tuple[Outline, float] | None:
    """`read_outline(data)` and the codec's `sniff` score of `data`, or None when the
    reader does not read it: every turn it reads is an object with a string `from`, so
    only the keys `turns_score` asks about are left to look at."""
    outline = read_outline(data)
    if outline is None:
        return None
    turns = data.get(KEY) if type(data) is dict else data
    if not turns:  # an empty record is a ShareGPT record; an empty list, nothing
        return outline, 0.6 if type(data) is dict else 0.0
    return outline, turns_score(data, turns)
