"""Behaviour A, approval state: forget settled approvals after a partial turn is stored.

behaviours.md §2.8 (`RemoveSettledToolApprovalState`, RS-1 to RS-5): pending requests and
auto-approved calls whose results are now in the stored history are removed from the
conversation state; unfinished calls are kept for retry. "Has a result" uses the one
ordered pairing in `histnorm.pairing`.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

from histnorm.behaviours.coalesce import Item, load_messages
from histnorm.errors import HistnormError
from histnorm.formats.meai import decode_content
from histnorm.model import (
    ApprovalRequestPart,
    ApprovalResponsePart,
    Part,
    ToolCallPart,
    Transcript,
)
from histnorm.pairing import Key, Pairing, Position, group, key_of, pair, transcript_items

_SECTIONS = ("pending", "auto_approved", "surfaced", "queued", "collected")


def reconcile_approval_state(
    persisted_transcript: Transcript | Iterable[Item],
    state: Mapping[str, Any],
    *,
    drop_abandoned: bool = False,
    abandoned_request_ids: Iterable[str] = (),
) -> tuple[dict[str, Any], tuple[str, ...]]:
    """Remove settled approval state after a partial turn was stored (§2.8, RS-1 to RS-5).

    `state` maps `pending`, `surfaced`, `queued` and `collected` (request ID → request or
    response) and `auto_approved` (call ID → call); entries are `Part`s or native MEAI
    objects, and any other key is passed through. An entry is settled when the last call of
    its (family, call ID) in the stored transcript is answered, by `pair`'s ordered
    pairing, or (request-keyed sections) when its request ID is answered there. With
    `drop_abandoned`, request IDs from `abandoned_request_ids` that the transcript never
    mentions are removed too. Returns a new state (an emptied `pending` is removed, RS-4)
    and the removed IDs in order.
    """
    if not isinstance(persisted_transcript, Transcript):
        persisted_transcript = Transcript(messages=load_messages(persisted_transcript))
    parts = dict(transcript_items(persisted_transcript))
    pairing = pair(parts.items())
    settled = _settled_keys(pairing, parts)
    mentioned = {_request_id(p) for p in parts.values()} - {None}
    answered = {_request_id(p) for p in parts.values() if isinstance(p, ApprovalResponsePart)}
    answered -= {_request_id(parts[position]) for position in pairing.pending_requests}
    abandoned = set(abandoned_request_ids) - mentioned if drop_abandoned else set()
    new_state: dict[str, Any] = {}
    removed: list[str] = []
    for name, section in state.items():
        if name not in _SECTIONS or not isinstance(section, Mapping):
            new_state[name] = copy.deepcopy(section)
            continue
        by_call = name == "auto_approved"
        kept: dict[str, Any] = {}
        for entry_id, entry in section.items():
            done = _entry_key(entry, entry_id if by_call else None) in settled
            if not by_call:
                done = done or entry_id in answered or entry_id in abandoned
            if done:
                removed.append(entry_id)
            else:
                kept[entry_id] = copy.deepcopy(entry)
        if kept or name != "pending":
            new_state[name] = kept
    return new_state, tuple(dict.fromkeys(removed))


def _settled_keys(pairing: Pairing, parts: Mapping[Position, Part]) -> set[Key]:
    """Keys whose last call in the transcript is answered."""
    last: dict[Key, Position] = {}
    for position in sorted([*pairing.call_results, *pairing.unmatched_calls]):
        call = parts[position]
        if isinstance(call, ToolCallPart):
            last[key_of(call)] = position
    return {key for key, position in last.items() if position in pairing.call_results}


def _request_id(part: Part) -> str | None:
    if isinstance(part, ApprovalRequestPart | ApprovalResponsePart):
        return part.request_id
    return None


def _entry_key(entry: Any, call_id: str | None) -> Key | None:
    """The pairing key of a state entry's call; `call_id` overrides the entry's own."""
    part = entry
    if isinstance(entry, Mapping):
        try:
            part = decode_content(dict(entry))
        except HistnormError:
            part = None
    call = part.tool_call if isinstance(part, ApprovalRequestPart | ApprovalResponsePart) else part
    if isinstance(call, ToolCallPart):
        return group(call), call.call_id if call_id is None else call_id
    return None if call_id is None else ("function", call_id)
