"""Where the outcome of each call goes when a transcript is written as UIMessages.

The SDK keeps a call and all that became of it (approval, response, result) in one tool
part. A result or approval response outside its call's tool part (in a `tool` message a
fix added, or read from another format) is written into the part of the nearest
preceding call with its call id (request id for a response); a call repeated after its
approval was answered (Microsoft.Extensions.AI writes the approved call again before its
result) is the same part, so it is absorbed into the approval's part. Positions are
(message index, group index) over `encode.groups`.
"""

from __future__ import annotations

from dataclasses import field
from typing import TYPE_CHECKING

from histnorm._record import record
from histnorm.errors import HistnormError
from histnorm.formats.vercel_ai.encode import groups, is_away
from histnorm.formats.vercel_ai.parts import is_tool_type
from histnorm.lazy import model

if TYPE_CHECKING:
    from histnorm.model import ApprovalResponsePart, Part, ToolCallPart, ToolResultPart, Transcript

Position = tuple[int, int]


@record
class Plan:
    """The outcomes written into tool parts, and the groups not written where they are."""

    results: dict[Position, ToolResultPart] = field(default_factory=dict)
    responses: dict[Position, ApprovalResponsePart] = field(default_factory=dict)
    moved: set[Position] = field(default_factory=set)
    """Groups written into another group's tool part (results, responses, absorbed calls)."""


def _native_tool(part: Part) -> bool:
    native = part.native
    return isinstance(native, dict) and is_tool_type(native.get("type"))


def _call(group: list[Part]) -> ToolCallPart | None:
    call = next((p for p in group if isinstance(p, model.ToolCallPart)), None)
    request = next((p for p in group if isinstance(p, model.ApprovalRequestPart)), None)
    return call or (request.tool_call if request is not None else None)


def plan(transcript: Transcript) -> Plan:
    """Where every result and response outside its call's part goes; raise
    `HistnormError` for one whose call (or request) is not before it."""
    out = Plan()
    calls: dict[str, Position] = {}
    requests: dict[str, Position] = {}
    answered: set[Position] = set()
    for mi, message in enumerate(transcript.messages):
        for gi, group in enumerate(groups(message.parts)):
            at = (mi, gi)
            if is_away(group):
                out.moved.add(at)
                for part in group:
                    _place(out, part, calls, requests, answered)
                continue
            call = _call(group)
            if call is None or call.call_id is None:
                continue
            owner = calls.get(call.call_id)
            lone = len(group) == 1 and isinstance(group[0], model.ToolCallPart)
            if lone and owner in answered and not _native_tool(group[0]):
                out.moved.add(at)  # the approved call again: the approval's own part
                continue
            calls[call.call_id] = at
            for part in group:
                if isinstance(part, model.ToolResultPart):
                    out.results[at] = part
                if isinstance(part, model.ApprovalRequestPart):
                    requests[part.request_id] = at
                if isinstance(part, model.ApprovalResponsePart):
                    answered.add(at)
    return out


def _place(
    out: Plan,
    part: Part,
    calls: dict[str, Position],
    requests: dict[str, Position],
    answered: set[Position],
) -> None:
    if isinstance(part, model.ToolResultPart):
        owner = calls.get(part.call_id or "") if part.call_id is not None else None
        if owner is None or owner in out.results:  # no call, or one with a result
            raise HistnormError(
                f"a tool result for {part.call_id!r} without a call before it that has no "
                "result yet cannot be written as a UIMessage (the SDK keeps a result in its "
                "call's tool part)"
            )
        out.results[owner] = part
    elif isinstance(part, model.ApprovalResponsePart):
        owner = requests.get(part.request_id)
        if owner is None or owner in out.responses:
            raise HistnormError(
                f"an approval response for {part.request_id!r} without its request before "
                "it cannot be written as a UIMessage"
            )
        out.responses[owner] = part
        answered.add(owner)
