"""Behaviour B: a repeated request ID inside one run is one pending request; the first wins.

behaviours.md §3 (microsoft/agent-framework#7947). Two pure functions:

- `merge_repeated_requests` plays a streamed response (a sequence of updates) through the
  workflow request collector: approval requests and function calls stay pending until
  their response or result, a repeat of a pending ID keeps the first copy, and a repeat
  that is not the same request is reported (RB-1 to RB-9).
- `dedupe_handoff_candidates` (RB-10) lives in `handoffs`.
- `dedupe_transcript_requests` removes benign repeated copies of pending approval
  requests and function calls from a stored transcript and reports conflicts (§3.4).

Pending-ID tracking, pairing and repeat/conflict detection all come from
`histnorm.pairing.pair`; this module only chooses what to feed it and shapes the answer.
The records of that answer (`Conflict`, `Duplicate`, `Submission`, `MergeResult`) are
defined in `_request_records` and re-exported here. Inputs are never mutated.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from types import MappingProxyType
from typing import Any, TypeAlias

from histnorm.behaviours._request_records import (
    Conflict,
    Duplicate,
    MergeResult,
    RequestKind,
    Submission,
    _classify,
    _pending,
)
from histnorm.errors import HistnormError, join_pointer
from histnorm.formats.base import type_name
from histnorm.formats.meai import decode_content
from histnorm.model import Message, Part, ToolCallPart, ToolFamily, Transcript
from histnorm.pairing import Position, group, pair, transcript_items

__all__ = [
    "CallFilter",
    "Conflict",
    "Duplicate",
    "MergeResult",
    "RequestKind",
    "Submission",
    "Update",
    "dedupe_transcript_requests",
    "merge_repeated_requests",
    "submit",
    "update_items",
]

Update: TypeAlias = Message | Mapping[str, Any]
"""One streamed update: a canonical `Message`, or a native MEAI object with `contents`."""

CallFilter: TypeAlias = Callable[[ToolCallPart], bool]
"""Decides whether a function call is collected (upstream's optional collector filter)."""


def merge_repeated_requests(
    updates: Iterable[Update], *, call_filter: CallFilter | None = None
) -> MergeResult:
    """Collect the requests a streamed response leaves pending, first copy winning.

    Contents are processed in order across all updates (RB-6); positions are (update
    index, content index). Approval requests pend until an approval response with their
    request ID; function calls (family `function`, accepted by `call_filter`, never
    handoff calls) pend until a result with their call ID. IDs are ordinal strings and
    `""` is an ordinary ID. A repeat of a pending ID never raises (RB-8); it is either a
    benign duplicate or a conflict, and the first copy stays pending either way (I-B3).

    Raises `HistnormError` only for a native update that cannot be read as MEAI content.
    """
    items = list(_stream_items(updates))
    parts = dict(items)
    pairing = pair(items, call_filter=_collected(call_filter))
    warnings, duplicates = _classify(pairing.repeats, parts)
    conflicted = tuple(dict.fromkeys(w.id for w in warnings))
    approvals, calls, submissions = _pending(pairing, parts)
    message = None
    if conflicted:
        names = ", ".join(i or "''" for i in conflicted)
        message = f"Conflicting requests under repeated IDs were not serviced: {names}."
    return MergeResult(
        approvals=MappingProxyType(approvals),
        calls=MappingProxyType(calls),
        warnings=warnings,
        warning_message=message,
        duplicates=duplicates,
        conflicted_ids=conflicted,
        submissions=submissions,
    )


def submit(
    result: MergeResult, *, outstanding: Collection[tuple[RequestKind, str]] = ()
) -> tuple[tuple[Submission, ...], frozenset[tuple[RequestKind, str]]]:
    """What the external request handler posts for `result`, and what is then outstanding.

    `outstanding` holds the (kind, ID) pairs posted in an earlier turn and not yet
    answered; a submission already outstanding is an idempotent re-emission and is not
    posted again (RB-9, `AIContentExternalHandler`). Remove a pair from the returned set
    once its response or result arrives.
    """
    held = set(outstanding)
    posted = []
    for submission in result.submissions:
        key = (submission.kind, submission.id)
        if key not in held:
            held.add(key)
            posted.append(submission)
    return tuple(posted), frozenset(held)


def dedupe_transcript_requests(
    transcript: Transcript,
) -> tuple[Transcript, tuple[Position, ...], tuple[Conflict, ...]]:
    """Remove benign repeated copies of pending requests; report conflicts (§3.4).

    A repeat is a later approval request under a pending request ID wrapping the same
    call, or a later function call under a pending call ID with the same name (handoff
    calls: the same target), with no response or result in between. The first copy is
    kept. Conflicts are reported and left in place. Positions are (message index, part
    index) in `transcript`. Untouched messages are kept as the same objects; a message left
    with no parts is dropped. Without removals, `transcript` itself is returned.
    """
    parts = dict(transcript_items(transcript))
    pairing = pair(parts.items(), call_filter=_function_group)
    conflicts, _ = _classify(pairing.repeats, parts)
    removed = tuple(r.position for r in pairing.repeats if not r.conflict)
    if not removed:
        return transcript, (), conflicts
    by_message: dict[int, set[int]] = {}
    for mi, pi in removed:
        by_message.setdefault(mi, set()).add(pi)
    messages: list[Message] = []
    for mi, message in enumerate(transcript.messages):
        gone = by_message.get(mi)
        if gone is None:
            messages.append(message)
            continue
        kept = tuple(p for pi, p in enumerate(message.parts) if pi not in gone)
        if kept:
            messages.append(message.evolve(parts=kept))
    return transcript.evolve(messages=tuple(messages)), removed, conflicts


def _collected(call_filter: CallFilter | None) -> CallFilter:
    """The collector's call filter: function calls with an ID that `call_filter` accepts."""

    def accept(call: ToolCallPart) -> bool:
        if call.family is not ToolFamily.FUNCTION or call.call_id is None:
            return False
        return call_filter is None or call_filter(call)

    return accept


def _function_group(call: ToolCallPart) -> bool:
    """Transcript dedupe looks at function-style calls (handoffs included) with an ID."""
    return group(call) == "function" and call.call_id is not None


def _contents_key(update: Mapping[str, Any]) -> str | None:
    if "contents" in update:
        return "contents"
    return next((k for k in update if isinstance(k, str) and k.casefold() == "contents"), None)


def update_items(update: Update, index: int) -> Iterable[tuple[Position, Part]]:
    """The parts of one update with their (update index, content index)."""
    if isinstance(update, Message):
        for ci, part in enumerate(update.parts):
            yield (index, ci), part
        return
    if not isinstance(update, Mapping):
        raise HistnormError(
            f"expected an update (a Message or an object), got {type_name(update)}",
            pointer=join_pointer("", index),
        )
    key = _contents_key(update)
    contents = None if key is None else update[key]
    if contents is None:
        return
    at = join_pointer("", index, key or "contents")
    if not isinstance(contents, list | tuple):
        raise HistnormError(
            f"expected contents to be an array, got {type_name(contents)}", pointer=at
        )
    for ci, content in enumerate(contents):
        yield (index, ci), decode_content(content, join_pointer(at, ci))


def _stream_items(updates: Iterable[Update]) -> Iterable[tuple[Position, Part]]:
    for index, update in enumerate(updates):
        yield from update_items(update, index)
