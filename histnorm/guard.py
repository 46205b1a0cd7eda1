"""The unknown-content guard: no fix removes, moves or rewrites what histnorm cannot see.

Content histnorm does not model (`histnorm.unknown.findings`) could be a tool call or a
result. Where it is, the view the rules have of the pairing is not to be trusted, so a fix
is *held back* (its diagnostic loses its fix and says why) when:
- its subject is a call or approval request at or before the end of a turn holding
  unknown content (an unseen result there could answer it), or a result or approval
  response at or after the start of such a turn (an unseen call could own it);
- its subject lies in such a turn, or it has no position at all;
- applied alone, it would change, remove or insert anything inside such a turn.
A turn runs from the message after a plain user message (no results, no unknown parts)
to the message before the next; a history that is mostly unknown content is one turn. The guard runs
whatever rules are selected: ignoring HN013 hides its report, never the protection.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, TypeAlias

from histnorm._record import record
from histnorm.diagnostic import Diagnostic
from histnorm.lazy import model
from histnorm.unknown import findings

if TYPE_CHECKING:
    from histnorm.model import Message, Transcript

TrialFix: TypeAlias = "Callable[[Diagnostic], Transcript | None]"
"""What applying one diagnostic's fix alone gives (None: the fix cannot be tried)."""


@record(frozen=True)
class Block:
    """The turn around one piece of unknown content: messages `start` to `end`."""

    start: int
    end: int
    pointer: str


def _opens_turn(message: Message) -> bool:
    return message.role_is("user") and not any(
        isinstance(p, model.ToolResultPart | model.ApprovalResponsePart | model.UnknownPart)
        for p in message.parts
    )


def blocks(transcript: Transcript) -> tuple[Block, ...]:
    """The turns of `transcript` that hold unknown content, one per finding."""
    messages = transcript.messages
    found = findings(transcript)
    if not found:
        return ()
    starts, ends = _turn_bounds(messages)
    out = []
    for finding in found:
        if finding.whole:
            out.append(Block(0, len(messages) - 1, finding.pointer))
            continue
        index = finding.message_index
        out.append(Block(starts[index], ends[index], finding.pointer))
    return tuple(out)


def _turn_bounds(messages: Sequence[Message]) -> tuple[list[int], list[int]]:
    """For each message index, the first and the last message of its turn: the nearest
    message after one that opens a turn, and the nearest one before such a message."""
    count = len(messages)
    opens = [_opens_turn(m) for m in messages]
    starts, ends = [0] * count, [count - 1] * count
    for i in range(1, count):
        starts[i] = i if opens[i - 1] else starts[i - 1]
    for i in range(count - 2, -1, -1):
        ends[i] = i if opens[i + 1] else ends[i + 1]
    return starts, ends


def _by_position(transcript: Transcript, diagnostic: Diagnostic, block: Block) -> bool:
    mi, pi = diagnostic.location.message_index, diagnostic.location.part_index
    if mi is None or mi >= len(transcript.messages):
        return True
    if block.start <= mi <= block.end:
        return True
    parts = transcript.messages[mi].parts
    subject = parts[pi] if pi is not None and pi < len(parts) else None
    if isinstance(subject, model.ToolCallPart | model.ApprovalRequestPart):
        return mi <= block.end
    if isinstance(subject, model.ToolResultPart | model.ApprovalResponsePart):
        return mi >= block.start
    return False


def keeps(before: Transcript, after: Transcript, found: Sequence[Block]) -> Block | None:
    """The first block whose messages `after` no longer holds unchanged and in a row
    (None: every block is kept)."""
    if not found:
        return None
    messages = after.messages
    where: dict[int, list[int]] = {}
    for i, message in enumerate(messages):
        where.setdefault(id(message), []).append(i)
    for block in found:
        span = before.messages[block.start : block.end + 1]
        width = len(span)
        if any(messages[i : i + width] == span for i in where.get(id(span[0]), ())):
            continue  # kept as it was (a fix keeps the messages it does not touch)
        if not any(
            messages[i : i + width] == span
            for i, message in enumerate(messages)
            if message == span[0]
        ):
            return block
    return None


def held(diagnostic: Diagnostic, block: Block) -> Diagnostic:
    """`diagnostic` without its fix, saying why."""
    return replace(
        diagnostic,
        fix=None,
        message=f"{diagnostic.message}; fix held back: unknown content at {block.pointer}",
    )


def guard(
    transcript: Transcript,
    diagnostics: Sequence[Diagnostic],
    trial: TrialFix,
    found: Sequence[Block],
) -> list[Diagnostic]:
    """`diagnostics` with the fixes that unknown content (`found`, the `blocks` of
    `transcript`) forbids held back."""
    if not found:
        return list(diagnostics)
    out = []
    for diagnostic in diagnostics:
        if diagnostic.fix is None:
            out.append(diagnostic)
            continue
        reason = next((b for b in found if _by_position(transcript, diagnostic, b)), None)
        if reason is None:
            fixed = trial(diagnostic)
            reason = keeps(transcript, fixed, found) if fixed is not None else None
        out.append(diagnostic if reason is None else held(diagnostic, reason))
    return out
