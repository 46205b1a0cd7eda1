"""Reading UIMessage parts: one native part gives one model part, a tool part several.

A tool part (`tool-<name>`, or `dynamic-tool` with `toolName`) holds a call and, by its
`state`, what became of it; `convertToModelMessages` (vercel/ai
packages/ai/src/ui/convert-to-model-messages.ts) turns it into these model messages, and
histnorm reads it as the same parts, all keeping the native part:

| state | model parts |
|---|---|
| `input-streaming`, `input-available` | call (no result: HN001, or HN011 at the end) |
| `approval-requested` | approval request wrapping the call (HN003, or HN011) |
| `approval-responded` | approval request and its response |
| `output-available` | call and result (`output`) |
| `output-error` | call and error result (`errorText`) |
| `output-denied` | approval request and its response (denied) |

`providerExecuted: true` makes the call a hosted one (tool type = tool name), which the
SDK leaves out of its missing-result check. A tool part of another state, and every part
type histnorm does not model, is an unknown part kept verbatim.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from histnorm.errors import HistnormError, join_pointer
from histnorm.formats.base import expect_object, optional_str, required_str, type_name
from histnorm.lazy import model
from histnorm.model_terms import ToolFamily

if TYPE_CHECKING:
    from histnorm.model import Part

SLOT = "parts"
TOOL_STATES = frozenset(
    {
        "input-streaming",
        "input-available",
        "approval-requested",
        "approval-responded",
        "output-available",
        "output-error",
        "output-denied",
    }
)
PART_TYPES = frozenset(
    {
        "text",
        "reasoning",
        "file",
        "reasoning-file",
        "source-url",
        "source-document",
        "step-start",
        "custom",
        "dynamic-tool",
    }
)
"""The UIMessage part types that are no `tool-*` or `data-*` part."""
VERBATIM = frozenset({"reasoning-file", "source-url", "source-document", "step-start", "custom"})
"""Part types read as unknown parts on purpose: no tool call or result hides in them."""


def is_tool_type(kind: object) -> bool:
    """Whether a part type names a tool part (`tool-<name>` or `dynamic-tool`)."""
    return isinstance(kind, str) and (kind == "dynamic-tool" or kind.startswith("tool-"))


def is_part_type(kind: object) -> bool:
    """Whether a part type is one the UIMessage schema defines."""
    return isinstance(kind, str) and (
        kind in PART_TYPES or (kind.startswith(("tool-", "data-")) and len(kind) > 5)
    )


def decode_part(obj: Any, pointer: str) -> tuple[Part, ...]:
    """The model parts of one native part found at `pointer`."""
    part = expect_object(obj, pointer, "a message part")
    kind = part.get("type")
    if kind == "text":
        text = required_str(part.get("text"), join_pointer(pointer, "text"), "the text")
        return (model.TextPart(text=text, native=obj, slot=SLOT),)
    if kind == "reasoning":
        text = required_str(part.get("text"), join_pointer(pointer, "text"), "the reasoning text")
        opaque = part.get("providerMetadata")
        return (model.ReasoningPart(text=text, opaque=opaque, native=obj, slot=SLOT),)
    if kind == "file":
        media = optional_str(part.get("mediaType"), join_pointer(pointer, "mediaType"), "mediaType")
        uri = optional_str(part.get("url"), join_pointer(pointer, "url"), "the file url")
        return (model.MediaPart(media_type=media, uri=uri, native=obj, slot=SLOT),)
    state = part.get("state")
    if is_tool_type(kind) and isinstance(state, str) and state in TOOL_STATES:
        return _tool(part, pointer)
    return (model.UnknownPart(type=kind if isinstance(kind, str) else None, native=obj, slot=SLOT),)


def tool_name(part: dict[str, Any], pointer: str) -> str:
    """The tool name of a tool part: `toolName` of a dynamic tool, else the type's tail."""
    if part.get("type") == "dynamic-tool":
        return required_str(part.get("toolName"), join_pointer(pointer, "toolName"), "toolName")
    return str(part["type"]).removeprefix("tool-")


def _tool(part: dict[str, Any], pointer: str) -> tuple[Part, ...]:
    call_id = required_str(
        part.get("toolCallId"), join_pointer(pointer, "toolCallId"), "toolCallId"
    )
    name = tool_name(part, pointer)
    state = part["state"]
    hosted = part.get("providerExecuted") is True
    family = ToolFamily.HOSTED if hosted else ToolFamily.FUNCTION
    tool_type = name if hosted else None
    call = model.ToolCallPart(
        call_id=call_id,
        name=name,
        arguments=part.get("input"),
        family=family,
        tool_type=tool_type,
        native=part,
        slot=SLOT,
    )
    if state in ("input-streaming", "input-available"):
        return (call,)
    if state in ("output-available", "output-error"):
        error = state == "output-error"
        content = (
            required_str(part.get("errorText"), join_pointer(pointer, "errorText"), "errorText")
            if error
            else part.get("output")
        )
        result = model.ToolResultPart(
            call_id=call_id,
            content=content,
            is_error=error,
            family=family,
            tool_type=tool_type,
            native=part,
            slot=SLOT,
        )
        return (call, result)
    at = join_pointer(pointer, "approval")
    approval = expect_object(part.get("approval"), at, "the approval")
    request_id = required_str(approval.get("id"), join_pointer(at, "id"), "the approval id")
    request = model.ApprovalRequestPart(
        request_id=request_id, tool_call=call, native=part, slot=SLOT
    )
    if state == "approval-requested":
        return (request,)
    approved = approval.get("approved")
    if not isinstance(approved, bool):
        raise HistnormError(
            f"expected approval.approved to be a boolean, got {type_name(approved)}",
            pointer=join_pointer(at, "approved"),
        )
    reason = optional_str(approval.get("reason"), join_pointer(at, "reason"), "the reason")
    response = model.ApprovalResponsePart(
        request_id=request_id, approved=approved, reason=reason, native=part, slot=SLOT
    )
    return (request, response)
