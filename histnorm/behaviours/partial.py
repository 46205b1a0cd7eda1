"""Behaviour A: sanitize a partial (cancelled) streaming response before it is stored.

behaviours.md §2 (microsoft/agent-framework#9790, fixing #8157), exact semantics (§0.6):

- `sanitize_partial_response` (§2.2): R-A1 coalesce (§1.4, see `coalesce`), R-A7 strip
  usage, R-A2 remove input requests, E9 merge re-emitted calls, R-A3 pair calls with
  results, R-A4 empty text, R-A5 reasoning, R-A6 drop contentless messages, R-A8 mark,
  R-A9 assemble, R-A11 skip resumable streams.
- `reconcile_approval_state` (§2.8, RS-1 to RS-5) lives in `approval_state`.
- `is_partial` and `strip_partial_markers` (§2.6).

All pairing (calls with results by ordered occurrence, repeated pending IDs, approval
requests with responses) comes from `histnorm.pairing.pair`. Inputs are never mutated;
there are no clocks and no random IDs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import field
from typing import Any, Literal, TypeAlias, overload

from histnorm._record import record
from histnorm.behaviours.approval_state import reconcile_approval_state
from histnorm.behaviours.coalesce import (
    Item,
    coalesce_updates,
    load_messages,
    load_partial,
    sum_usage,
)
from histnorm.formats.meai import get_key
from histnorm.model import (
    PARTIAL_RESPONSE_KEY,
    ApprovalRequestPart,
    JsonValue,
    Message,
    Part,
    ReasoningPart,
    TextPart,
    ToolFamily,
    ToolResultPart,
    Transcript,
    UsagePart,
    is_marker_true,
)
from histnorm.pairing import Pairing, Position, pair, transcript_items

__all__ = [
    "CallScope",
    "PersistPlan",
    "Reason",
    "Removal",
    "coalesce_updates",
    "is_partial",
    "reconcile_approval_state",
    "sanitize_partial_response",
    "strip_partial_markers",
]

CallScope: TypeAlias = Literal["partial", "partial+request"]
"""Which calls a result in the partial response may answer (R-A3)."""

Reason: TypeAlias = Literal[
    "usage",
    "pending_input_request",
    "reemitted_call",
    "repeated_call",
    "unmatched_call",
    "orphan_result",
    "duplicate_result",
    "empty_text",
    "empty_reasoning",
    "reasoning",
    "empty_message",
    "reasoning_only_message",
]
"""Why something was removed; `reemitted_call` is E9 (first wins), `repeated_call` R-A3."""


@record(frozen=True, slots=True)
class Removal:
    """A removed content (`content_index` set) or message (`kind == "message"`).

    Indices point into the partial response as coalesced messages, before any removal.
    """

    message_index: int
    content_index: int | None
    kind: str
    reason: Reason


@record(frozen=True)
class PersistPlan:
    """What to store for a cancelled streaming run (§2.2)."""

    request_messages: tuple[Message, ...] = ()
    response_messages: tuple[Message, ...] = ()
    usage: Mapping[str, JsonValue] = field(default_factory=dict)
    removed: tuple[Removal, ...] = ()
    settled_call_ids: tuple[str, ...] = ()
    abandoned_request_ids: tuple[str, ...] = ()
    skipped_reason: Literal["resumable"] | None = None

    @property
    def messages(self) -> tuple[Message, ...]:
        """The stored batch: the request messages, then the response messages (R-A9)."""
        return self.request_messages + self.response_messages


def sanitize_partial_response(
    request_messages: Iterable[Item],
    partial: Iterable[Item],
    *,
    marker_key: str = PARTIAL_RESPONSE_KEY,
    mark: bool = True,
    whitespace_text_is_empty: bool = True,
    keep_reasoning: bool = True,
    keep_reasoning_only_messages: bool = False,
    call_scope: CallScope = "partial",
    drop_hosted_unmatched: bool = True,
    dedupe_reemitted_calls: bool = True,
    resumable: bool = False,
    partial_is_updates: bool | None = None,
) -> PersistPlan:
    """Plan what to store for a run cancelled mid-stream (§2.2, R-A1 to R-A11).

    `request_messages` are returned unchanged (decoded if native). `partial` holds streamed
    updates or coalesced messages (`Message`s or native MEAI objects); `partial_is_updates`
    says which, and None applies `coalesce.looks_like_updates`: updates when a native object
    has no `role`, or two consecutive items share a non-empty `messageId` and role.
    With `resumable`, nothing is stored: an empty plan with `skipped_reason="resumable"`.
    A repeat of a pending call (pairing's `repeats`) is dropped when it is a benign
    re-emission and `dedupe_reemitted_calls` is on (first wins, E9); any other repeat
    supersedes the earlier copy, which is dropped as unmatched (R-A3 duplicates).
    """
    if resumable:
        return PersistPlan(skipped_reason="resumable")
    if call_scope not in ("partial", "partial+request"):
        raise ValueError(f"unknown call_scope {call_scope!r}")
    request = load_messages(request_messages)
    messages, usage = load_partial(partial, partial_is_updates)
    items = list(transcript_items(Transcript(messages=messages)))
    drops: dict[Position, Reason] = {}
    details: list[JsonValue] = [usage]
    abandoned: list[str] = []
    for position, part in items:
        if isinstance(part, UsagePart):
            drops[position] = "usage"
            details.append(part.details)
        elif isinstance(part, ApprovalRequestPart):
            drops[position] = "pending_input_request"
            abandoned.append(part.request_id)
    earlier = request if call_scope == "partial+request" else ()
    _pair_calls(earlier, items, drops, drop_hosted_unmatched, dedupe_reemitted_calls)
    for position, part in items:
        reason = _content_reason(part, whitespace_text_is_empty, keep_reasoning)
        if reason is not None:
            drops.setdefault(position, reason)
    response, removed = _assemble(
        messages, drops, keep_reasoning_only_messages, marker_key if mark else None
    )
    settled = (
        part.call_id
        for message in request + response
        for part in message.parts
        if isinstance(part, ToolResultPart) and part.call_id is not None
    )
    return PersistPlan(
        request_messages=request,
        response_messages=response,
        usage=sum_usage(details),
        removed=removed,
        settled_call_ids=tuple(dict.fromkeys(settled)),
        abandoned_request_ids=tuple(dict.fromkeys(abandoned)),
    )


def _pair_calls(
    earlier: Sequence[Message],
    items: Sequence[tuple[Position, Part]],
    drops: dict[Position, Reason],
    drop_hosted: bool,
    dedupe: bool,
) -> None:
    """R-A3 and E9: record in `drops` every call and result the stored history cannot keep.

    `earlier` (request messages, counted first) get negative message indices and are never
    dropped. Repeats are resolved until `pair` reports none left in the partial response.
    """
    offset = len(earlier)
    before = [
        ((mi - offset, pi), p) for (mi, pi), p in transcript_items(Transcript(messages=earlier))
    ]

    def walk() -> Pairing:
        return pair(
            (position, part)
            for position, part in [*before, *items]
            if position not in drops
            and (drop_hosted or getattr(part, "family", None) is not ToolFamily.HOSTED)
        )

    pairing = walk()
    while repeats := [
        r for r in pairing.repeats if r.kind != "approval_request" and r.position[0] >= 0
    ]:
        for repeat in repeats:
            benign = dedupe and not repeat.conflict
            if benign or repeat.first[0] < 0:
                drops.setdefault(repeat.position, "reemitted_call" if benign else "repeated_call")
            else:
                drops.setdefault(repeat.first, "repeated_call")
        pairing = walk()
    found: list[tuple[Position, Reason]] = [
        *((p, "unmatched_call") for p in pairing.unmatched_calls),
        *((p, "orphan_result") for p in pairing.orphan_results),
        *((p, "duplicate_result") for p, _ in pairing.duplicate_results),
    ]
    drops.update((position, reason) for position, reason in found if position[0] >= 0)


def _content_reason(part: Part, whitespace: bool, keep_reasoning: bool) -> Reason | None:
    """R-A4 and R-A5 for one content; the text of kept items is never trimmed."""
    if isinstance(part, TextPart):
        empty = not part.text.strip() if whitespace else not part.text
        return "empty_text" if empty else None
    if isinstance(part, ReasoningPart):
        if not keep_reasoning:
            return "reasoning"
        if (part.text or "").strip() or part.opaque not in (None, ""):
            return None
        return "empty_reasoning"
    return None


def _assemble(
    messages: Sequence[Message],
    drops: Mapping[Position, Reason],
    keep_reasoning_only: bool,
    marker_key: str | None,
) -> tuple[tuple[Message, ...], tuple[Removal, ...]]:
    """R-A6 and R-A8: rebuild the surviving messages, in order, and mark them."""
    removed = [
        Removal(mi, pi, messages[mi].parts[pi].kind, reason) for (mi, pi), reason in drops.items()
    ]
    kept: list[Message] = []
    for mi, message in enumerate(messages):
        parts = tuple(p for pi, p in enumerate(message.parts) if (mi, pi) not in drops)
        if not parts:
            removed.append(Removal(mi, None, "message", "empty_message"))
            continue
        if not keep_reasoning_only and all(isinstance(p, ReasoningPart) for p in parts):
            removed.append(Removal(mi, None, "message", "reasoning_only_message"))
            continue
        if len(parts) != len(message.parts):
            message = message.evolve(parts=parts)
        if marker_key is not None and message.metadata.get(marker_key) is not True:
            message = message.evolve(metadata={**message.metadata, marker_key: True})
        kept.append(message)
    removed.sort(key=lambda r: (r.message_index, r.content_index is None, r.content_index or 0))
    return tuple(kept), tuple(removed)


def is_partial(
    message: Message | Mapping[str, Any], marker_key: str = PARTIAL_RESPONSE_KEY
) -> bool:
    """Whether a message carries the partial-response marker: true, "true" (any case) or 1."""
    if isinstance(message, Message):
        return is_marker_true(message.metadata.get(marker_key))
    props = get_key(dict(message), "additionalProperties")
    return isinstance(props, Mapping) and is_marker_true(props.get(marker_key))


@overload
def strip_partial_markers(
    transcript: Transcript, marker_key: str = PARTIAL_RESPONSE_KEY
) -> Transcript: ...
@overload
def strip_partial_markers(
    transcript: Sequence[Message], marker_key: str = PARTIAL_RESPONSE_KEY
) -> tuple[Message, ...]: ...
def strip_partial_markers(
    transcript: Transcript | Sequence[Message], marker_key: str = PARTIAL_RESPONSE_KEY
) -> Transcript | tuple[Message, ...]:
    """Remove the marker key, whatever its value, from every message (§2.6)."""
    messages = transcript.messages if isinstance(transcript, Transcript) else tuple(transcript)
    stripped = tuple(
        m.evolve(metadata={k: v for k, v in m.metadata.items() if k != marker_key})
        if marker_key in m.metadata
        else m
        for m in messages
    )
    if not isinstance(transcript, Transcript):
        return stripped
    changed = any(a is not b for a, b in zip(stripped, messages, strict=True))
    return transcript.evolve(messages=stripped) if changed else transcript
