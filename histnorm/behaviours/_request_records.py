"""The records behaviour B answers with, and how pairing's findings become them.

`Conflict`, `Duplicate` and `Submission` describe one repeated or pending request;
`MergeResult` gathers what `merge_repeated_requests` found. `_classify` turns the repeats
`histnorm.pairing.pair` reports into conflicts (with their warning text) and benign
duplicates; `_pending` lists the requests left pending. Used by
`histnorm.behaviours.requests`, which re-exports the public records.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Literal, TypeAlias

from histnorm._record import record
from histnorm.model import ApprovalRequestPart, Part, ToolCallPart
from histnorm.pairing import Pairing, Position, Repeat

RequestKind: TypeAlias = Literal["approval_request", "function_call"]
"""What a request ID names: an approval request's `RequestId` or a call's `CallId`."""


@record(frozen=True, slots=True)
class Conflict:
    """A later request under a pending ID that is not the same request (RB-2, RB-4, RB-7).

    `kept` and `dropped` are the wrapped `ToolCall.CallId`s (approval requests) or the
    function names (calls) of the first and the later copy. `update_position` is where the
    later, dropped copy is; `first_position` where the kept one is.
    """

    kind: RequestKind
    id: str
    kept: str | None
    dropped: str | None
    update_position: Position
    message: str
    first_position: Position


@record(frozen=True, slots=True)
class Duplicate:
    """A benign re-emission of a pending request; it is ignored (first wins) silently."""

    kind: RequestKind
    id: str
    update_position: Position
    first_position: Position


@record(frozen=True, slots=True)
class Submission:
    """One request the collector submits: its kind, ID, first copy and where that copy is."""

    kind: RequestKind
    id: str
    request: ApprovalRequestPart | ToolCallPart
    update_position: Position


@record(frozen=True)
class MergeResult:
    """What `merge_repeated_requests` found.

    - `approvals`: request ID → the first copy of each approval request still pending.
    - `calls`: call ID → the first copy of each function call still pending.
    - `warnings`: one `Conflict` per conflicting occurrence, in detection order.
    - `warning_message`: the one aggregated warning naming `conflicted_ids`, or None.
    - `duplicates`: benign repeats, in detection order (for diagnostics).
    - `conflicted_ids`: the distinct IDs that had a conflict, in detection order.
    - `submissions`: what is submitted, each once: approvals, then calls (RB-9).
    """

    approvals: Mapping[str, ApprovalRequestPart]
    calls: Mapping[str, ToolCallPart]
    warnings: tuple[Conflict, ...]
    warning_message: str | None
    duplicates: tuple[Duplicate, ...]
    conflicted_ids: tuple[str, ...]
    submissions: tuple[Submission, ...]


def _quoted(value: str | None) -> str:
    return "none" if value is None else f"'{value}'"


def _call_kind(part: Part) -> str | None:
    call = part.tool_call if isinstance(part, ApprovalRequestPart) else None
    return None if call is None else call.tool_type or call.family.value


def _classify(
    repeats: Iterable[Repeat], parts: Mapping[Position, Part]
) -> tuple[tuple[Conflict, ...], tuple[Duplicate, ...]]:
    """Split pairing's repeats into conflict records and benign duplicates."""
    conflicts: list[Conflict] = []
    duplicates: list[Duplicate] = []
    for repeat in repeats:
        kind: RequestKind = (
            "approval_request" if repeat.kind == "approval_request" else "function_call"
        )
        rid = repeat.id or ""
        if not repeat.conflict:
            duplicates.append(Duplicate(kind, rid, repeat.position, repeat.first))
            continue
        if kind == "function_call":
            text = (
                f"Repeated CallId '{rid}' carried a different function name "
                f"({_quoted(repeat.dropped)}); keeping the first ({_quoted(repeat.kept)})."
            )
        elif repeat.kept != repeat.dropped:
            text = (
                f"Repeated RequestId '{rid}' carried a different ToolCall.CallId "
                f"({_quoted(repeat.dropped)}); keeping the first ({_quoted(repeat.kept)})."
            )
        else:
            text = (
                f"Repeated RequestId '{rid}' carried a different ToolCall kind "
                f"({_quoted(_call_kind(parts[repeat.position]))}); keeping the first "
                f"({_quoted(_call_kind(parts[repeat.first]))})."
            )
        conflicts.append(
            Conflict(kind, rid, repeat.kept, repeat.dropped, repeat.position, text, repeat.first)
        )
    return tuple(conflicts), tuple(duplicates)


def _pending(
    pairing: Pairing, parts: Mapping[Position, Part]
) -> tuple[dict[str, ApprovalRequestPart], dict[str, ToolCallPart], tuple[Submission, ...]]:
    """The pending approvals and calls, each in insertion (position) order."""
    approvals: dict[str, ApprovalRequestPart] = {}
    calls: dict[str, ToolCallPart] = {}
    submitted: list[Submission] = []
    for position in pairing.pending_requests:
        request = parts[position]
        assert isinstance(request, ApprovalRequestPart)
        approvals[request.request_id] = request
        submitted.append(Submission("approval_request", request.request_id, request, position))
    for position in pairing.unmatched_calls:
        call = parts[position]
        assert isinstance(call, ToolCallPart) and call.call_id is not None
        calls[call.call_id] = call
        submitted.append(Submission("function_call", call.call_id, call, position))
    return approvals, calls, tuple(submitted)
