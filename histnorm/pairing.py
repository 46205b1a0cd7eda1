"""Pairing calls with results and approval requests with responses: one walk, shared by all.

The rules (behaviours.md R-A3, RB-1 to RB-5, RB-10):

- Calls and results pair by (family group, call id); the empty string is an ordinary id.
  Each result pairs with the nearest preceding unmatched call of its key (ordered
  occurrence), so an id is free again once answered. Calls without an id (legacy OpenAI
  `function_call`, Gemini without ids) pair by position: the earliest pending call, with
  the result's name when it has one; they are never repeats of each other.
- A call whose key is already pending is a repeat, not a second call: the first copy stays
  pending (first wins). Same function name: a benign re-emission; another name: a conflict.
  Handoff calls repeat only when call id *and* target name match; a handoff call with a new
  target under a pending id is a distinct candidate.
- A result with no pending call is a duplicate when the last call of its key was already
  answered, otherwise an orphan; but when the history continues server-side state
  (`Transcript.server_state`), its call may live on the server, and it is a server result.
- Approval requests pair with responses by request id, in order; a repeated pending request
  id is a repeat (same wrapped call id and kind) or a conflict.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, TypeAlias

from histnorm.analysis.outline import Call, Outline, OutlinePart, Request, Result, kept_outline
from histnorm.analysis.paired import Pairing as Pairing
from histnorm.analysis.paired import Position as Position
from histnorm.analysis.paired import Repeat as Repeat
from histnorm.model_terms import ToolFamily, memo_source, same_source

if TYPE_CHECKING:
    from histnorm.model import ApprovalRequestPart, Part, ToolCallPart, ToolResultPart, Transcript

Key = tuple[str, str | None]

AnyCall: TypeAlias = "ToolCallPart | Call"
AnyResult: TypeAlias = "ToolResultPart | Result"
"""Calls and results of a model or of an outline: `pair()` reads the same attributes."""


def group(part: AnyCall | AnyResult) -> str:
    """The pairing group of a call or result: results answer calls of the same group."""
    if part.family is ToolFamily.MCP:
        return "mcp"
    if part.family is ToolFamily.HOSTED:
        kind = part.tool_type or ""
        previous = None
        while previous != kind:
            previous = kind
            for suffix in _SUFFIXES:
                kind = kind.removesuffix(suffix)
        return "hosted:" + kind
    return "function"


_SUFFIXES = ("Call", "Result", "_call", "_result", "_output")


def result_type_for(call_type: str | None) -> str | None:
    """The native kind of a result answering a call of kind `call_type`, so that the two
    share a pairing group: `…Call` → `…Result`, `…_call` → `…_call_output`, anything else
    → `…_result`."""
    if call_type is None:
        return None
    if call_type.endswith("Call"):
        return call_type[: -len("Call")] + "Result"
    if call_type.endswith("_call"):
        return call_type + "_output"
    return call_type + "_result"


_FUNCTION = ToolFamily.FUNCTION


def key_of(part: AnyCall | AnyResult) -> Key:
    """The pairing key of a call or result."""
    if part.family is ToolFamily.FUNCTION:
        return "function", part.call_id  # `group`, for the most common family
    return group(part), part.call_id


def _wrapped(part: ApprovalRequestPart | Request) -> tuple[str | None, str | None]:
    call = part.tool_call
    return (None, None) if call is None else (call.call_id, call.tool_type or call.family.value)


def pair(
    items: Iterable[tuple[Position, Part | OutlinePart]],
    *,
    call_filter: Callable[[ToolCallPart], bool] | None = None,
    server_calls: bool = False,
) -> Pairing:
    """Walk `items` in order and pair them; calls rejected by `call_filter` are ignored.
    With `server_calls`, a result no call in `items` owns is a server result, not an orphan.
    `items` are model parts or outline parts (`histnorm.analysis.outline`), never both."""
    pending: dict[Key, list[tuple[Position, AnyCall]]] = {}
    answered: dict[Key, Position] = {}
    call_results: dict[Position, Position] = {}
    orphans: list[Position] = []
    server: list[Position] = []
    duplicates: list[tuple[Position, Position]] = []
    repeats: list[Repeat] = []
    requests: dict[str, tuple[Position, ApprovalRequestPart | Request]] = {}
    request_responses: dict[Position, Position] = {}
    lone: list[Position] = []
    for position, part in items:
        if part.kind == "tool_call":
            if call_filter is not None and not call_filter(part):  # type: ignore[arg-type]
                continue
            key = ("function", part.call_id) if part.family is _FUNCTION else key_of(part)
            stack = pending.get(key)
            if stack is None:
                stack = pending[key] = []
            elif stack and part.call_id is not None:
                repeat = _call_repeat(position, part, stack)
                if repeat is not None:
                    repeats.append(repeat)
                    continue
            stack.append((position, part))
            answered.pop(key, None)
        elif part.kind == "tool_result":
            key = ("function", part.call_id) if part.family is _FUNCTION else key_of(part)
            waiting = pending.get(key)
            if not waiting and key not in answered:
                key, waiting = _across_ids(pending, part)
            if waiting:
                if len(waiting) == 1:
                    call_position = waiting.pop()[0]
                else:
                    call_position, _ = waiting.pop(_pick(waiting, part))
                call_results[call_position] = position
                answered[key] = position
            elif key in answered:
                duplicates.append((position, answered[key]))
            else:
                (server if server_calls else orphans).append(position)
        elif part.kind == "approval_request":
            held = requests.get(part.request_id)
            if held is None:
                requests[part.request_id] = (position, part)
                continue
            first_position, first = held
            kept, dropped = _wrapped(first), _wrapped(part)
            repeats.append(
                Repeat(
                    position,
                    first_position,
                    "approval_request",
                    part.request_id,
                    kept != dropped,
                    kept[0],
                    dropped[0],
                )
            )
        elif part.kind == "approval_response":
            held = requests.pop(part.request_id, None)
            if held is None:
                lone.append(position)
            else:
                request_responses[held[0]] = position
    unmatched = sorted(p for stack in pending.values() for p, _ in stack)
    return Pairing(
        call_results=call_results,
        result_calls={result: call for call, result in call_results.items()},
        unmatched_calls=tuple(unmatched),
        orphan_results=tuple(orphans),
        server_results=tuple(server),
        duplicate_results=tuple(duplicates),
        repeats=tuple(repeats),
        request_responses=request_responses,
        pending_requests=tuple(sorted(p for p, _ in requests.values())),
        lone_responses=tuple(lone),
    )


def _pick(waiting: list[tuple[Position, AnyCall]], result: AnyResult) -> int:
    """Which pending call a result answers: the nearest one; or, pairing by position, the
    earliest call of the most recent message that still has pending calls, preferring one
    with the result's name; a named result with no call of its name there answers the
    earliest call of its name in the most recent message that has one."""
    if result.call_id is not None and waiting[-1][1].call_id is not None:
        return len(waiting) - 1
    last = waiting[-1][0][0]
    batch = [i for i, (position, _) in enumerate(waiting) if position[0] == last]
    named = [i for i in batch if result.name and waiting[i][1].name == result.name]
    if not named and result.name:  # a named result answers a call of its name, if any
        same = [i for i, (_, call) in enumerate(waiting) if call.name == result.name]
        newest = waiting[same[-1]][0][0] if same else None
        named = [i for i in same if waiting[i][0][0] == newest]
    return named[0] if named else batch[0]


def _across_ids(
    pending: dict[Key, list[tuple[Position, AnyCall]]], result: AnyResult
) -> tuple[Key, list[tuple[Position, AnyCall]] | None]:
    """For data with ids on one side only: an id-less result may answer a pending call that
    has an id (same name), and a result with an id may answer a pending id-less call."""
    if result.call_id is not None:
        idless: Key = (group(result), None)
        return idless, pending.get(idless)
    best: tuple[Position, Key] | None = None
    for key, waiting in pending.items():
        if key[0] != group(result) or result.name is None:
            continue
        for position, call in waiting:
            if call.name == result.name and (best is None or position > best[0]):
                best = (position, key)
    if best is None:
        return (group(result), None), None
    return best[1], pending[best[1]]


def _call_repeat(
    position: Position, part: AnyCall, stack: list[tuple[Position, AnyCall]]
) -> Repeat | None:
    if part.family is ToolFamily.HANDOFF:
        for first_position, first in stack:
            if first.family is ToolFamily.HANDOFF and first.name == part.name:
                return Repeat(
                    position, first_position, "handoff", part.call_id, False, first.name, part.name
                )
        return None
    for first_position, first in stack:
        if first.family is not ToolFamily.HANDOFF:
            return Repeat(
                position,
                first_position,
                "tool_call",
                part.call_id,
                first.name != part.name,
                first.name,
                part.name,
            )
    return None


def transcript_items(transcript: Transcript) -> Iterable[tuple[Position, Part]]:
    """Every part of `transcript` with its (message index, part index)."""
    for mi, message in enumerate(transcript.messages):
        for pi, part in enumerate(message.parts):
            yield (mi, pi), part


_UNPAIRED = pair(())
"""The pairing of a transcript with no tool part (each of its collections empty)."""


_MEMO = "_histnorm_pairing"
"""Where `pair_transcript` keeps the pairing of a transcript it paired by its parts in the
transcript's `__dict__` (pydantic ignores it: not a field, not compared), with what it
was computed from."""


def pair_transcript(transcript: Transcript | Outline) -> Pairing:
    """Pair the whole outline, or transcript, once per outline or transcript. A transcript
    whose outline is kept (`kept_outline`: every transcript a check has read) pairs as
    that outline does: `pair()` reads model parts and outline parts alike, and the tests
    hold the two equal (`pair_parts`), so the pairing a reader found as it read, or one a
    check worked out, serves the fixes too; another is paired by its parts."""
    if not isinstance(transcript, Outline):
        outline = kept_outline(transcript)
        if outline is None:
            return _paired_parts(transcript)
        transcript = outline
    if transcript.pairing is None:
        parts = transcript.tool_parts()
        transcript.pairing = (
            pair(parts, server_calls=transcript.server_state is not None) if parts else _UNPAIRED
        )
    return transcript.pairing


def _paired_parts(transcript: Transcript) -> Pairing:
    """`pair_parts`, kept on the transcript while it holds what it was computed from."""
    memo = transcript.__dict__
    held = memo.get(_MEMO)
    source = memo_source(transcript)
    if held is not None and same_source(held[0], source):
        found: Pairing = held[1]
        return found
    found = pair_parts(transcript)
    memo[_MEMO] = (source, found)
    return found


def pair_parts(transcript: Transcript) -> Pairing:
    """The pairing of a transcript's model parts, walked afresh: what `pair_transcript`
    gives it through its outline (the reference the tests hold that to)."""
    return pair(transcript_items(transcript), server_calls=transcript.server_state is not None)
