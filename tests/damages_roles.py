"""Damages for the mutation fuzz driver: tool parts in a message of the wrong role (HN015)
and one call id shared by different tools in one message (HN016).

Each damage is `(transcript, rng) -> Transcript | None`: a damaged copy of `transcript`
(the input is never changed; the models are frozen and copied with `evolve`), or None when
the transcript offers nothing to damage this way (a format whose roles do not constrain
parts, no answered call, ...). Only client tool parts (function, custom, handoff) are used.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from histnorm.model import Message, Part, ToolCallPart, ToolFamily, ToolResultPart, Transcript
from histnorm.pairing import Position, pair_transcript
from histnorm.rules.tool_part_in_wrong_role import PLACES

Damage = Callable[[Transcript, random.Random], Transcript | None]

_CLIENT = (ToolFamily.FUNCTION, ToolFamily.CUSTOM, ToolFamily.HANDOFF)


def _answered(transcript: Transcript) -> list[tuple[Position, Position]]:
    """(call, result) pairs of client tools whose parts sit in messages of the right roles."""
    places = PLACES.get(transcript.format or "")
    if places is None:
        return []
    calls, results = places
    out = []
    for call, result in sorted(pair_transcript(transcript).call_results.items()):
        part = transcript.messages[call[0]].parts[call[1]]
        if not isinstance(part, ToolCallPart) or part.family not in _CLIENT:
            continue
        if part.call_id is None:
            continue
        if transcript.messages[call[0]].role_is(*calls) and transcript.messages[result[0]].role_is(
            *results
        ):
            out.append((call, result))
    return out


def _move(transcript: Transcript, source: Position, target: int, at: int) -> Transcript:
    """Move the part at `source` into message `target` at part index `at` (indices of the
    input); a message left empty is dropped."""
    part = transcript.messages[source[0]].parts[source[1]]
    out: list[Message] = []
    for mi, message in enumerate(transcript.messages):
        parts: list[Part] = list(message.parts)
        if mi == source[0]:
            del parts[source[1]]
            if mi == target and at > source[1]:
                at -= 1
        if mi == target:
            parts.insert(at, part)
        if parts or not message.parts:
            same = parts == list(message.parts)
            out.append(message if same else message.evolve(parts=tuple(parts)))
    damaged: Transcript = transcript.evolve(messages=tuple(out))
    return damaged


def result_into_assistant(transcript: Transcript, rng: random.Random) -> Transcript | None:
    """Move an answered result to the front of the next call-role message after it (the
    reply that read it)."""
    places = PLACES.get(transcript.format or "")
    candidates = []
    for _, result in _answered(transcript):
        later = [
            mi
            for mi in range(result[0] + 1, len(transcript.messages))
            if places and transcript.messages[mi].role_is(*places[0])
        ]
        if later:
            candidates.append((result, later[0]))
    if not candidates:
        return None
    result, target = rng.choice(candidates)
    return _move(transcript, result, target, 0)


def call_into_user(transcript: Transcript, rng: random.Random) -> Transcript | None:
    """Move an answered call to the front of the message holding its result."""
    pairs = _answered(transcript)
    if not pairs:
        return None
    call, result = rng.choice(pairs)
    return _move(transcript, call, result[0], 0)


def result_into_call_message(transcript: Transcript, rng: random.Random) -> Transcript | None:
    """Move an answered result into its call's message, right after the call."""
    pairs = _answered(transcript)
    if not pairs:
        return None
    call, result = rng.choice(pairs)
    return _move(transcript, result, call[0], call[1] + 1)


def shared_call_id(transcript: Transcript, rng: random.Random) -> Transcript | None:
    """Give a call the id of an earlier call to another tool in its message, with its
    results (a constant id from the model server); or, in a message with one call, add a
    call to another tool under the same id right after it."""
    pairing = pair_transcript(transcript)
    options: list[tuple[Position, Position | None]] = []
    for mi, message in enumerate(transcript.messages):
        calls = [
            (pi, p)
            for pi, p in enumerate(message.parts)
            if isinstance(p, ToolCallPart)
            and p.family in _CLIENT
            and p.family is not ToolFamily.HANDOFF
            and p.call_id is not None
        ]
        for i, (pi, part) in enumerate(calls):
            options.append(((mi, pi), None))
            options.extend(((mi, pi), (mi, qi)) for qi, q in calls[i + 1 :] if q.name != part.name)
    if not options:
        return None
    first, later = rng.choice(options)
    head = transcript.messages[first[0]].parts[first[1]]
    assert isinstance(head, ToolCallPart)
    messages = list(transcript.messages)
    if later is None:
        clone = head.evolve(name=f"{head.name or 'tool'}_other", native=None)
        parts = list(messages[first[0]].parts)
        parts.insert(first[1] + 1, clone)
        messages[first[0]] = messages[first[0]].evolve(parts=tuple(parts))
    else:
        renamed: dict[Position, Part] = {}
        call = transcript.messages[later[0]].parts[later[1]]
        assert isinstance(call, ToolCallPart)
        renamed[later] = call.evolve(call_id=head.call_id)
        answer = pairing.call_results.get(later)
        if answer is not None:
            result = transcript.messages[answer[0]].parts[answer[1]]
            assert isinstance(result, ToolResultPart)
            renamed[answer] = result.evolve(call_id=head.call_id)
        for (mi, pi), part in renamed.items():
            parts = list(messages[mi].parts)
            parts[pi] = part
            messages[mi] = messages[mi].evolve(parts=tuple(parts))
    damaged: Transcript = transcript.evolve(messages=tuple(messages))
    return damaged


DAMAGES: tuple[Damage, ...] = (
    result_into_assistant,
    call_into_user,
    shared_call_id,
    result_into_call_message,
)
"""Every damage of this module, for the fuzz driver to register."""
