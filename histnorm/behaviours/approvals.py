"""Behaviour C: approval-resumed tool results go before trailing caller messages.

behaviours.md §4 (dotnet/extensions#7617, fixes #7616). When a caller resumes
approval-gated function calls, `FunctionInvokingChatClient` removes the approval
contents, rebuilds the assistant call message(s), makes results for rejected calls, runs
the approved ones, and inserts that block just before the first surviving piece of the
last message that carried function approval content (§4.3). Two pure functions:

- `reslot_approval_results` runs steps 1 to 8 of §4.2. histnorm runs no tools, so the
  approved calls' results come from `approved_results`.
- `repair_appended_tool_results` moves tool results a pre-#7617 history appended after
  the caller's trailing messages back to where #7617 puts them.

Inputs are never mutated; nothing reads a clock or makes random IDs. The streaming
fallback message IDs are derived from the first rebuilt call ID.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

from histnorm.behaviours._approval_extract import (
    ApprovalValidationError,
    Decision,
    anchor_of,
    as_messages,
    call_id_of,
    extract,
    is_function_approval,
    is_function_call,
    is_function_result,
    rejection_text,
)
from histnorm.errors import HistnormError
from histnorm.model import (
    ApprovalResponsePart,
    JsonValue,
    Message,
    ToolCallPart,
    ToolFamily,
    ToolResultPart,
    Transcript,
)
from histnorm.pairing import Pairing, pair

__all__ = [
    "ApprovalValidationError",
    "ApprovedResults",
    "ReslotResult",
    "repair_appended_tool_results",
    "reslot_approval_results",
]

ApprovedResults = Mapping[str, JsonValue] | Callable[[ToolCallPart], JsonValue]
"""The result of each approved call: by call ID, or computed from the call."""

CALLS_ID_PREFIX = "histnorm-calls-"
"""Streaming fallback `messageId` of rebuilt call messages: this plus the first call ID."""

RESULTS_ID_PREFIX = "histnorm-results-"
"""Streaming `messageId` of the returned tool message: this plus the first call ID."""


class ReslotResult(NamedTuple):
    """What FICC sends downstream (`outgoing`) and returns to the caller first (`returned`)."""

    outgoing: tuple[Message, ...]
    returned: tuple[Message, ...]


def reslot_approval_results(
    messages: Sequence[Message] | Transcript,
    *,
    service_managed: bool,
    approved_results: ApprovedResults,
    streaming: bool = False,
    strict_adjacency: bool = False,
) -> ReslotResult:
    """Process the approval contents of an incoming request as FICC does (§4.2 steps 1-8).

    `outgoing` is the list the inner client would receive: approval contents removed,
    then [rebuilt call messages (client-managed only)] + [rejected results] + [approved
    results] inserted at the §4.3 anchor. `returned` is the caller-facing prefix: the
    rebuilt call messages, the rejected-results tool message and the approved-results tool
    message (one merged tool message when `streaming`). Rebuilt calls are marked
    informational-only, as upstream marks them once rejected or invoked. Without function
    approval content, `outgoing` is the input and `returned` is empty.

    `strict_adjacency` (not upstream) also moves everything from the first message that
    holds a processed approval response up to the anchor after the block (U-1).
    Raises `ApprovalValidationError` as §4.2 step 2 and §4.9 describe, and
    `HistnormError` when a mapping `approved_results` lacks an approved call ID.
    """
    source = as_messages(messages)
    extraction = extract(source)
    if extraction is None:
        return ReslotResult(source, ())
    decisions = extraction.rejected + extraction.approved
    pivot = None
    if strict_adjacency and decisions:
        pivot = min(d.position for d in decisions)
    index = extraction.insert_index(pivot)

    first_call_id = (decisions[0].call.call_id or "") if decisions else ""
    fallback_id = CALLS_ID_PREFIX + first_call_id if streaming else None
    calls = _call_messages(decisions, fallback_id)
    rejected = tuple(
        _result(d.response.tool_call, rejection_text(d.response.reason))
        for d in extraction.rejected
    )
    approved = tuple(
        _result(d.call, _approved_result(d.call, approved_results)) for d in extraction.approved
    )
    results = tuple(Message(role="tool", parts=parts) for parts in (rejected, approved) if parts)

    block = results if service_managed else calls + results
    outgoing = extraction.kept[:index] + block + extraction.kept[index:]
    if streaming and results:
        merged = Message(
            role="tool", id=RESULTS_ID_PREFIX + first_call_id, parts=rejected + approved
        )
        return ReslotResult(outgoing, (*calls, merged))
    return ReslotResult(outgoing, calls + results)


def _result(call: ToolCallPart | None, content: JsonValue) -> ToolResultPart:
    assert call is not None
    return ToolResultPart(call_id=call.call_id, content=content, family=ToolFamily.FUNCTION)


def _approved_result(call: ToolCallPart, approved_results: ApprovedResults) -> JsonValue:
    if not isinstance(approved_results, Mapping):
        return approved_results(call)
    call_id = call.call_id or ""
    if call_id not in approved_results:
        raise HistnormError(f"approved_results has no result for the approved call '{call_id}'")
    return approved_results[call_id]


def _call_messages(decisions: Sequence[Decision], fallback_id: str | None) -> tuple[Message, ...]:
    """Step 4: one message per request message ID, cloned from the first request message.

    Calls without a request, or whose request message has no ID, share one message: a
    clone of the first such request message, or a new assistant message.
    """
    groups: dict[str, tuple[Message | None, list[ToolCallPart]]] = {}
    for decision in decisions:
        request = decision.request_message
        key = (request.id if request is not None else None) or ""
        groups.setdefault(key, (request, []))[1].append(decision.call.evolve(informational=True))
    rebuilt: list[Message] = []
    for base, calls in groups.values():
        if base is None:
            rebuilt.append(Message(role="assistant", id=fallback_id, parts=tuple(calls)))
        else:
            message_id = base.id if base.id is not None else fallback_id
            rebuilt.append(base.evolve(parts=tuple(calls), id=message_id))
    return tuple(rebuilt)


def repair_appended_tool_results(
    messages: Sequence[Message] | Transcript, service_managed: bool
) -> tuple[Message, ...]:
    """Move tool results appended after trailing caller messages back into place (§4.9).

    A tool message is moved when its function results answer
    - function approval responses earlier in the same turn (the turn reaches back to the
      last assistant message that is not only function calls): it goes directly after the
      last message carrying function approval content (the §4.3 anchor; a message is never
      split, so residual content in the anchor stays before it). When not
      `service_managed`, the rebuilt call messages FICC appended just before the results
      move with them. Nothing moves if that would put a result before its call;
    - otherwise, calls in an earlier message with non-tool messages in between: it goes
      directly after the message holding the calls, after any tool messages already there.

    The result is a permutation of the input: the same message objects, nothing added or
    removed; the messages not moved keep their relative order. Applying it twice changes
    nothing more.
    """
    source = as_messages(messages)
    pairing = pair(((i, k), p) for i, m in enumerate(source) for k, p in enumerate(m.parts))
    consumed: set[int] = set()
    moves: dict[int, list[int]] = {}
    for index in range(len(source) - 1, -1, -1):
        if index in consumed or not _holds_results(source[index]):
            continue
        plan = _approval_move(source, index, pairing, service_managed)
        plan = plan or _call_move(source, index, pairing)
        if plan is not None:
            target, unit = plan
            consumed.update(unit)
            moves.setdefault(target, []).extend(unit)
    if not moves:
        return source
    out: list[Message] = []
    for index in range(len(source) + 1):
        out.extend(source[u] for u in sorted(moves.get(index, ())))
        if index < len(source) and index not in consumed:
            out.append(source[index])
    return tuple(out)


def _holds_results(message: Message) -> bool:
    return message.role_is("tool") and any(is_function_result(p) for p in message.parts)


def _result_ids(message: Message) -> set[str]:
    return {
        p.call_id or ""
        for p in message.parts
        if isinstance(p, ToolResultPart) and is_function_result(p)
    }


def _only_calls(message: Message) -> bool:
    return bool(message.parts) and all(is_function_call(p) for p in message.parts)


def _ends_turn(message: Message) -> bool:
    """An assistant message other than a calls-only one (those may be rebuilt call messages)."""
    return message.role_is("assistant") and not _only_calls(message)


def _approval_move(
    source: tuple[Message, ...], index: int, pairing: Pairing, service_managed: bool
) -> tuple[int, list[int]] | None:
    start = index
    while start > 0 and not _ends_turn(source[start - 1]):
        start -= 1
    answered = {
        call_id_of(p)
        for m in source[start:index]
        for p in m.parts
        if isinstance(p, ApprovalResponsePart) and is_function_approval(p)
    }
    if not _result_ids(source[index]) & answered:
        return None
    found = anchor_of(source[start:index])
    assert found is not None  # a function approval response is in the window
    anchor = start + found
    unit = [index]
    for before in range(index - 1, anchor, -1):
        message = source[before]
        if _holds_results(message) and _result_ids(message) & answered:
            unit.insert(0, before)
        elif not service_managed and _only_calls(message):
            ids = {p.call_id or "" for p in message.parts if isinstance(p, ToolCallPart)}
            if not ids <= answered:
                break
            unit.insert(0, before)
        else:
            break
    target = _after_results(source, anchor + 1, unit[0])
    if target >= unit[0]:
        return None
    for mi in unit:
        for pi in range(len(source[mi].parts)):
            call = pairing.result_calls.get((mi, pi))
            if call is not None and target <= call[0] < unit[0]:
                return None
    return target, unit


def _call_move(
    source: tuple[Message, ...], index: int, pairing: Pairing
) -> tuple[int, list[int]] | None:
    owners = [
        pairing.result_calls[(index, pi)][0]
        for pi, part in enumerate(source[index].parts)
        if is_function_result(part) and (index, pi) in pairing.result_calls
    ]
    if not owners:
        return None
    target = _after_results(source, max(owners) + 1, index)
    return (target, [index]) if target < index else None


def _after_results(source: tuple[Message, ...], target: int, limit: int) -> int:
    """Skip the tool messages already at `target` (never past `limit`)."""
    while target < limit and source[target].role_is("tool"):
        target += 1
    return target
