"""What pairing finds (`histnorm.pairing.pair`), as a record the outline can carry: its
reader may pair as it reads (`histnorm.analysis.outline.Outline.pairing`)."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Literal, NamedTuple

from histnorm._record import record

Position = tuple[int, int]
"""(message index, part index), or (update index, content index)."""


@record(frozen=True, slots=True)
class Repeat:
    """A request re-emitted under an id that is still pending."""

    position: Position
    first: Position
    kind: Literal["tool_call", "approval_request", "handoff"]
    id: str | None
    conflict: bool
    kept: str | None
    dropped: str | None


_NO_PAIRS: Mapping[Position, Position] = MappingProxyType({})


class Pairing(NamedTuple):
    """Everything the walk found, by position."""

    call_results: Mapping[Position, Position] = _NO_PAIRS
    result_calls: Mapping[Position, Position] = _NO_PAIRS
    unmatched_calls: tuple[Position, ...] = ()
    orphan_results: tuple[Position, ...] = ()
    server_results: tuple[Position, ...] = ()
    """Results whose call is not in the history but may live in its server-side state."""
    duplicate_results: tuple[tuple[Position, Position], ...] = ()
    repeats: tuple[Repeat, ...] = ()
    request_responses: Mapping[Position, Position] = _NO_PAIRS
    pending_requests: tuple[Position, ...] = ()
    lone_responses: tuple[Position, ...] = ()
