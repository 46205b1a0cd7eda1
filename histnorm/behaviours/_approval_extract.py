"""Behaviour C, steps 1 and 2 of behaviours.md §4.2: the anchor and the approval extraction.

Private helpers for `histnorm.behaviours.approvals`; nothing here is public API.
"""

from __future__ import annotations

from collections.abc import Sequence

from histnorm._record import record
from histnorm.errors import HistnormError
from histnorm.model import (
    ApprovalRequestPart,
    ApprovalResponsePart,
    Message,
    Part,
    ToolCallPart,
    ToolFamily,
    ToolResultPart,
    Transcript,
)

FUNCTION_FAMILIES = frozenset({ToolFamily.FUNCTION, ToolFamily.HANDOFF})
"""Families whose calls are MEAI `FunctionCallContent` (handoff tools are functions)."""

REJECTED_TEXT = "Tool call invocation rejected."
"""The result text FICC gives a rejected call (§4.2 step 5)."""


class ApprovalValidationError(HistnormError):
    """A function approval request without a response, or a repeated request ID (§4.9).

    `call_ids` holds the unanswered `FunctionCall.CallId`s in the order their requests
    appeared; `request_id` the repeated request ID.
    """

    def __init__(
        self, message: str, *, call_ids: tuple[str, ...] = (), request_id: str | None = None
    ) -> None:
        super().__init__(message)
        self.call_ids = call_ids
        self.request_id = request_id


def as_messages(messages: Sequence[Message] | Transcript) -> tuple[Message, ...]:
    """The messages of a transcript, or the sequence itself as a tuple."""
    if isinstance(messages, Transcript):
        return messages.messages
    return tuple(messages)


def is_function_call(part: Part) -> bool:
    """Whether `part` is a call FICC would invoke: a function (or handoff) call."""
    return isinstance(part, ToolCallPart) and part.family in FUNCTION_FAMILIES


def is_function_result(part: Part) -> bool:
    """Whether `part` is a function result (MEAI `FunctionResultContent`)."""
    return isinstance(part, ToolResultPart) and part.family in FUNCTION_FAMILIES


def is_function_approval(part: Part) -> bool:
    """Whether `part` is function approval content (§4.4): it anchors and is extracted.

    An approval request or response whose wrapped call is a function call that is not
    informational-only. MCP, hosted and informational approvals are residual content.
    """
    if not isinstance(part, ApprovalRequestPart | ApprovalResponsePart):
        return False
    call = part.tool_call
    return call is not None and is_function_call(call) and not call.informational


def call_id_of(part: ApprovalRequestPart | ApprovalResponsePart) -> str:
    """The wrapped `FunctionCall.CallId` of function approval content."""
    assert part.tool_call is not None
    return part.tool_call.call_id or ""


def rejection_text(reason: str | None) -> str:
    """The rejected result: the default text, plus a space and the reason when not blank."""
    if reason is None or not reason.strip():
        return REJECTED_TEXT
    return f"{REJECTED_TEXT} {reason}"


@record(frozen=True, slots=True)
class Decision:
    """One approval response still to act on, with its request's message (if any)."""

    response: ApprovalResponsePart
    request_message: Message | None
    position: int
    """Index (in the input) of the message holding the response."""

    @property
    def call(self) -> ToolCallPart:
        """The response's wrapped call: the one FICC rebuilds and invokes."""
        assert self.response.tool_call is not None
        return self.response.tool_call


@record(frozen=True, slots=True)
class Extraction:
    """The outcome of steps 1 and 2."""

    kept: tuple[Message, ...]
    """The messages left after extraction (untouched ones are the input objects)."""
    origins: tuple[int, ...]
    """For each kept message, its index in the input."""
    trailing: int
    """Messages after the anchor, plus 1 when the anchor keeps residual content."""
    rejected: tuple[Decision, ...]
    approved: tuple[Decision, ...]

    def insert_index(self, pivot: int | None = None) -> int:
        """Where the block goes: before the first surviving piece of message `pivot`.

        Without `pivot` this is upstream's `count - trailingMessageCount` (§4.3).
        """
        if pivot is None:
            return len(self.kept) - self.trailing
        return sum(1 for origin in self.origins if origin < pivot)


def anchor_of(messages: Sequence[Message]) -> int | None:
    """The index of the last message carrying function approval content (§4.2 step 1)."""
    for index in range(len(messages) - 1, -1, -1):
        if any(is_function_approval(p) for p in messages[index].parts):
            return index
    return None


def extract(messages: Sequence[Message]) -> Extraction | None:
    """Steps 1 and 2 of §4.2; None when no message carries function approval content.

    Raises `ApprovalValidationError` for a request left without a response (the check
    depends on order, as upstream's does) and for a repeated function approval request ID.
    """
    anchor = anchor_of(messages)
    if anchor is None:
        return None
    residual = any(not is_function_approval(p) for p in messages[anchor].parts)
    trailing = len(messages) - anchor - 1 + (1 if residual else 0)

    requests: dict[str, Message] = {}
    needs_response: dict[str, None] = {}
    responses: list[tuple[int, ApprovalResponsePart]] = []
    executed: set[str] = set()
    kept: list[Message] = []
    origins: list[int] = []
    for index, message in enumerate(messages):
        rest: list[Part] = []
        for part in message.parts:
            if isinstance(part, ApprovalRequestPart) and is_function_approval(part):
                if part.request_id in requests:
                    raise ApprovalValidationError(
                        "ToolApprovalRequestContent found with duplicate RequestId "
                        f"'{part.request_id}'.",
                        request_id=part.request_id,
                    )
                needs_response[call_id_of(part)] = None
                requests[part.request_id] = message
            elif isinstance(part, ApprovalResponsePart) and is_function_approval(part):
                needs_response.pop(call_id_of(part), None)
                responses.append((index, part))
            else:
                if is_function_result(part):
                    assert isinstance(part, ToolResultPart)
                    executed.add(part.call_id or "")
                rest.append(part)
        if len(rest) == len(message.parts):
            kept.append(message)
        elif rest:
            kept.append(message.evolve(parts=tuple(rest)))
        else:
            continue
        origins.append(index)
    if needs_response:
        ids = tuple(needs_response)
        raise ApprovalValidationError(
            f"ToolApprovalRequestContent found with FunctionCall.CallId(s) '{', '.join(ids)}' "
            "that have no matching ToolApprovalResponseContent.",
            call_ids=ids,
        )

    approved: list[Decision] = []
    rejected: list[Decision] = []
    for index, response in responses:
        if call_id_of(response) in executed:
            continue
        decision = Decision(response, requests.get(response.request_id), index)
        (approved if response.approved is True else rejected).append(decision)
    return Extraction(tuple(kept), tuple(origins), trailing, tuple(rejected), tuple(approved))
