"""Damages: each takes a transcript (or a session file's lines) and a `random.Random`, and
returns the damaged copy, or None when it does not apply.

A damage never mutates its input. A message it leaves alone stays the very same object
in the damaged transcript (`untouched` relies on that); a message it changes, adds or
moves is a new object (`Message.evolve`, `model_copy`). To add damages, append them to
`DAMAGES` (transcripts) or `LINE_DAMAGES` (Claude Code session lines).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import orjson
from damages_roles import DAMAGES as ROLE_DAMAGES

from histnorm.model import (
    ApprovalRequestPart,
    Message,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    Transcript,
)

Damage = Callable[[Transcript, random.Random], Transcript | None]
LineDamage = Callable[[list[bytes], random.Random], list[bytes] | None]

APPROVAL_FORMATS = {"meai", "agent-framework"}
"""Only MEAI and Agent Framework can hold an approval request (FunctionApprovalRequest)."""


def _has(message: Message, kind: type) -> bool:
    return any(isinstance(part, kind) for part in message.parts)


def _indices(messages: list[Message], kind: type) -> list[int]:
    return [i for i, m in enumerate(messages) if _has(m, kind)]


def _with(transcript: Transcript, messages: list[Message]) -> Transcript:
    return transcript.evolve(messages=tuple(messages))  # messages kept as the same objects


def _edit_part(transcript: Transcript, rng: random.Random, kind: type, edit: Any) -> Any:
    """Apply `edit(parts, j)` to a random part of type `kind` in a random message."""
    messages = list(transcript.messages)
    found = _indices(messages, kind)
    if not found:
        return None
    i = rng.choice(found)
    parts = list(messages[i].parts)
    j = rng.choice([k for k, p in enumerate(parts) if isinstance(p, kind)])
    edit(parts, j)
    messages[i] = messages[i].evolve(parts=tuple(parts))
    return _with(transcript, messages)


def drop_result(transcript: Transcript, rng: random.Random) -> Transcript | None:
    return _edit_part(transcript, rng, ToolResultPart, lambda parts, j: parts.pop(j))


def duplicate_call(transcript: Transcript, rng: random.Random) -> Transcript | None:
    return _edit_part(transcript, rng, ToolCallPart, lambda parts, j: parts.insert(j + 1, parts[j]))


def blank_text(transcript: Transcript, rng: random.Random) -> Transcript | None:
    def blank(parts: list[Any], j: int) -> None:
        parts[j] = parts[j].evolve(text="")

    return _edit_part(transcript, rng, TextPart, blank)


def _next_user(messages: list[Message], after: int) -> int | None:
    for k in range(after + 1, len(messages)):
        if messages[k].role_is("user") and not _has(messages[k], ToolResultPart):
            return k
    return None


def move_result(transcript: Transcript, rng: random.Random) -> Transcript | None:
    """Move a result message to just after the next user message."""
    messages = list(transcript.messages)
    movable = [i for i in _indices(messages, ToolResultPart) if _next_user(messages, i)]
    if not movable:
        return None
    i = rng.choice(movable)
    target = _next_user(messages, i)
    assert target is not None
    moved = messages.pop(i).model_copy()  # a new object: it counts as touched
    messages.insert(target, moved)  # `target` shifted down by one: just after the user message
    return _with(transcript, messages)


def add_approval(transcript: Transcript, rng: random.Random) -> Transcript | None:
    """An approval request nobody answered (only where the format can hold one)."""
    if transcript.format not in APPROVAL_FORMATS:
        return None
    n = rng.randrange(1 << 30)
    call = ToolCallPart(call_id=f"fuzz_call_{n}", name="get_weather", arguments={"q": 1})
    request = ApprovalRequestPart(request_id=f"fuzz_req_{n}", tool_call=call)
    messages = list(transcript.messages)
    messages.insert(rng.randint(0, len(messages)), Message(role="assistant", parts=(request,)))
    return _with(transcript, messages)


def _answered_calls(messages: list[Message]) -> list[tuple[ToolCallPart, int]]:
    """Calls with a result, and the index of the last message holding that result."""
    last_result: dict[str, int] = {}
    for k, message in enumerate(messages):
        for p in message.parts:
            if isinstance(p, ToolResultPart) and p.call_id:
                last_result[p.call_id] = k
    out = []
    for i, message in enumerate(messages):
        for part in message.parts:
            if isinstance(part, ToolCallPart) and part.call_id:
                last = last_result.get(part.call_id)
                if last is not None and last >= i:
                    out.append((part, last))
    return out


def reuse_call_id(transcript: Transcript, rng: random.Random) -> Transcript | None:
    """A new call, after the answer, with the id of an answered call."""
    messages = list(transcript.messages)
    answered = _answered_calls(messages)
    if not answered:
        return None
    call, last = rng.choice(answered)
    fresh = call.evolve(native=None, slot=None, arguments={"q": 2})
    role = next(m.role for m in messages if any(p is call for p in m.parts))  # Gemini: model
    messages.insert(rng.randint(last + 1, len(messages)), Message(role=role, parts=(fresh,)))
    return _with(transcript, messages)


def swap_results(transcript: Transcript, rng: random.Random) -> Transcript | None:
    """Swap two adjacent messages that both hold results."""
    messages = list(transcript.messages)
    pairs = [
        i
        for i in range(len(messages) - 1)
        if _has(messages[i], ToolResultPart) and _has(messages[i + 1], ToolResultPart)
    ]
    if not pairs:
        return None
    i = rng.choice(pairs)
    messages[i], messages[i + 1] = messages[i + 1].model_copy(), messages[i].model_copy()
    return _with(transcript, messages)


DAMAGES: list[Damage] = [
    drop_result,
    duplicate_call,
    move_result,
    blank_text,
    add_approval,
    reuse_call_id,
    swap_results,
    *ROLE_DAMAGES,
]
"""Every transcript damage; a new one is one more entry here. `ROLE_DAMAGES`
(`tests/damages_roles.py`) puts calls and results in messages of the wrong role, a result
into its call's message, and one id on calls of two tools."""


# --- Claude Code session lines: the uuid / parentUuid chain ---------------------------


def _parses(line: bytes) -> bool:
    try:
        return isinstance(orjson.loads(line), dict)
    except orjson.JSONDecodeError:
        return False


def _uuids(lines: list[bytes]) -> list[int]:
    """The lines with a uuid (whole ones: a torn line is left as it is)."""
    return [i for i, line in enumerate(lines) if b'"uuid"' in line and _parses(line)]


def _edit_line(lines: list[bytes], i: int, change: Callable[[dict[str, Any]], None]) -> list[bytes]:
    value = orjson.loads(lines[i])
    change(value)
    return [*lines[:i], orjson.dumps(value), *lines[i + 1 :]]


def drop_line(lines: list[bytes], rng: random.Random) -> list[bytes] | None:
    """A lost line: its children now name a parent the file does not hold (HN014)."""
    if len(lines) < 2:
        return None
    i = rng.randrange(len(lines))
    return [*lines[:i], *lines[i + 1 :]]


def duplicate_line(lines: list[bytes], rng: random.Random) -> list[bytes] | None:
    """A line written twice (a resumed session), right after itself or at the end."""
    i = rng.randrange(len(lines))
    at = rng.choice([i + 1, len(lines)])
    return [*lines[:at], lines[i], *lines[at:]]


def swap_lines(lines: list[bytes], rng: random.Random) -> list[bytes] | None:
    if len(lines) < 2:
        return None
    i = rng.randrange(len(lines) - 1)
    return [*lines[:i], lines[i + 1], lines[i], *lines[i + 2 :]]


def dangle_parent(lines: list[bytes], rng: random.Random) -> list[bytes] | None:
    """A line whose parentUuid names no line of the file."""
    found = _uuids(lines)
    if not found:
        return None
    missing = f"00000000-0000-4000-8000-{rng.randrange(1 << 40):012x}"
    return _edit_line(lines, rng.choice(found), lambda v: v.__setitem__("parentUuid", missing))


def cut_parent(lines: list[bytes], rng: random.Random) -> list[bytes] | None:
    """A line that starts a new root (parentUuid null)."""
    found = _uuids(lines)
    if not found:
        return None
    return _edit_line(lines, rng.choice(found), lambda v: v.__setitem__("parentUuid", None))


def tear_last(lines: list[bytes], rng: random.Random) -> list[bytes] | None:
    """The last line cut short, as a killed write leaves it."""
    if len(lines) < 2 or len(lines[-1]) < 4:
        return None
    return [*lines[:-1], lines[-1][: rng.randrange(1, len(lines[-1]) - 1)]]


LINE_DAMAGES: list[LineDamage] = [
    drop_line,
    duplicate_line,
    swap_lines,
    dangle_parent,
    cut_parent,
    tear_last,
]
"""Every damage of a Claude Code session file's lines."""
