"""Behaviour B for handoffs: one candidate per (call ID, target), the last one chosen.

behaviours.md §3.3 RB-10 (microsoft/agent-framework#7947, second commit): a re-emitted
handoff call is coalesced only when both its call ID and its function name match; distinct
candidates keep their order and the last one wins, with the baseline warning. Repeat
detection is `histnorm.pairing.pair`'s.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping

from histnorm._record import record
from histnorm.behaviours.requests import Update, update_items
from histnorm.model import (
    SYNTHESIZED_KEY,
    Message,
    Part,
    ToolCallPart,
    ToolFamily,
    ToolResultPart,
)
from histnorm.pairing import Position, pair

TRANSFERRED = "Transferred."
"""The text of the synthetic result the handoff executor adds for the chosen candidate."""


@record(frozen=True, slots=True)
class HandoffCandidate:
    """A distinct handoff request: its first call, its position and its update's response ID."""

    call: ToolCallPart
    update_position: Position
    response_id: str | None

    @property
    def call_id(self) -> str | None:
        """The handoff call's ID."""
        return self.call.call_id

    @property
    def name(self) -> str | None:
        """The handoff function name, which fixes the target."""
        return self.call.name


def dedupe_handoff_candidates(
    updates: Iterable[Update], handoff_names: Collection[str]
) -> tuple[tuple[HandoffCandidate, ...], HandoffCandidate | None, tuple[str, ...]]:
    """The distinct handoff candidates of one turn, the chosen one and the warnings (RB-10).

    A handoff candidate is a function call whose name is in `handoff_names` (a set of
    names, or a mapping from name to target). Its identity is (call ID, name): a repeat of
    a collected identity is dropped and the first occurrence kept with its update position
    and response ID; a new name under a collected call ID is a distinct candidate. The
    last distinct candidate is chosen; with more than one, the baseline warning is given.
    """
    found: dict[Position, HandoffCandidate] = {}
    items: list[tuple[Position, Part]] = []
    for index, update in enumerate(updates):
        response_id = _response_id(update)
        for position, part in update_items(update, index):
            if (
                isinstance(part, ToolCallPart)
                and part.family in (ToolFamily.FUNCTION, ToolFamily.HANDOFF)
                and part.name in handoff_names
            ):
                found[position] = HandoffCandidate(part, position, response_id)
                # pairing tells candidates apart by (call ID, name) only for handoff calls
                items.append((position, part.model_copy(update={"family": ToolFamily.HANDOFF})))
    repeated = {repeat.position for repeat in pair(items).repeats}
    candidates = tuple(c for position, c in found.items() if position not in repeated)
    chosen = candidates[-1] if candidates else None
    warnings: tuple[str, ...] = ()
    if chosen is not None and len(candidates) > 1:
        names = ", ".join(str(c.name) for c in candidates)
        warnings = (
            f"Duplicate handoff requests in single turn ([{names}]). Using last ({chosen.name})",
        )
    return candidates, chosen, warnings


def handoff_result(candidate: HandoffCandidate) -> Message:
    """The synthetic `role: tool` message answering the chosen handoff call: `Transferred.`"""
    result = ToolResultPart(
        call_id=candidate.call_id,
        content=TRANSFERRED,
        family=ToolFamily.FUNCTION,
        metadata={SYNTHESIZED_KEY: True},
    )
    return Message(role="tool", parts=(result,))


def _response_id(update: Update) -> str | None:
    native = update.native if isinstance(update, Message) else update
    if not isinstance(native, Mapping):
        return None
    key = next((k for k in native if isinstance(k, str) and k.casefold() == "responseid"), None)
    value = None if key is None else native[key]
    return value if isinstance(value, str) else None
