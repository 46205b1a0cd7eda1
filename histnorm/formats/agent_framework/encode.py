"""Writing Agent Framework Python content items, for `histnorm.formats.agent_framework`.

`encode_content` gives an unchanged part back as its native value; a changed part is
rebuilt from that value, and a new one is written in the order Agent Framework's `to_dict`
uses (`FIELD_ORDER`), with the `_content` suffix of older releases on request. Reading,
and the kind tables both sides share, are in `histnorm.formats.agent_framework.contents`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from histnorm.errors import HistnormError
from histnorm.formats.agent_framework.contents import (
    CALLS,
    KNOWN,
    RESULTS,
    SUFFIX,
    arguments_key,
    decode_content,
    id_key,
    kind_of,
    name_key,
    output_key,
)
from histnorm.formats.base import MISSING, rebuild, reuse_native
from histnorm.lazy import model
from histnorm.model_terms import ToolFamily

if TYPE_CHECKING:
    from histnorm.model import Part, ToolCallPart, ToolResultPart

EXCEPTION_MARKER = "FunctionInvocationError"
"""What Agent Framework writes for `exception` (it redacts the text when serializing)."""

FIELD_ORDER = (
    "text",
    "protected_data",
    "uri",
    "media_type",
    "usage_details",
    "call_id",
    "name",
    "arguments",
    "exception",
    "informational_only",
    "result",
    "inputs",
    "outputs",
    "image_id",
    "commands",
    "actions",
    "screenshot",
    "tool_name",
    "output",
    "function_call",
    "user_input_request",
    "approved",
    "id",
)
"""The order Agent Framework's `to_dict` writes the fields histnorm sets."""


def _styled(kind: str, suffix: bool) -> str:
    return kind + SUFFIX if suffix and kind in KNOWN else kind


def new_object(kind: str, values: dict[str, Any]) -> dict[str, Any]:
    """A new content object in Agent Framework's field order, nulls left out."""
    out: dict[str, Any] = {"type": kind}
    for key in FIELD_ORDER:
        if values.get(key) is not None:
            out[key] = values[key]
    out["additional_properties"] = values.get("additional_properties") or {}
    return out


def _hosted_kind(part: ToolCallPart | ToolResultPart, end: str) -> str:
    """The Agent Framework kind for a hosted or MCP tool call or result."""
    if part.family is ToolFamily.MCP:
        return "mcp_server_tool" + end
    base = kind_of(part.tool_type) or ""
    for suffix in ("_call_output", "_output", "_result", "_call"):
        base = base.removesuffix(suffix)
    if base + end in CALLS or base + end in RESULTS:
        return base + end
    raise HistnormError(
        f"a hosted {part.kind} of type {part.tool_type!r} cannot be written as "
        "Agent Framework content"
    )


def _call_values(part: ToolCallPart, base: dict[str, Any], kind: str) -> dict[str, Any]:
    values: dict[str, Any] = {id_key(base, kind): part.call_id}
    if kind in ("function_call", "mcp_server_tool_call"):
        values[id_key(base, kind)] = part.call_id or ""
    values[name_key(kind)] = part.name
    if arguments_key(kind):
        values[arguments_key(kind)] = part.arguments
    if part.informational:
        values["informational_only"] = True
    elif "informational_only" in base:
        values["informational_only"] = False
    return values


def _result_values(part: ToolResultPart, base: dict[str, Any], kind: str) -> dict[str, Any]:
    call_id: Any = part.call_id
    if kind in ("function_result", "mcp_server_tool_result"):
        call_id = part.call_id or ""
    values = {id_key(base, kind): call_id, output_key(kind): part.content}
    if part.name is not None or "tool_name" in base:
        values["tool_name"] = part.name
    if kind == "function_result":
        if part.is_error:
            values["exception"] = base.get("exception") or EXCEPTION_MARKER
        elif "exception" in base:
            values["exception"] = MISSING
    return values


def _kind_for(part: Part, base: dict[str, Any]) -> str:
    if base:
        return kind_of(base.get("type")) or ""
    if isinstance(part, model.ToolCallPart):
        if kind_of(part.tool_type) in CALLS:
            return str(kind_of(part.tool_type))
        if part.family in (ToolFamily.HOSTED, ToolFamily.MCP):
            return _hosted_kind(part, "_call")
        return "function_call"
    if isinstance(part, model.ToolResultPart):
        if kind_of(part.tool_type) in RESULTS:
            return str(kind_of(part.tool_type))
        if part.family in (ToolFamily.HOSTED, ToolFamily.MCP):
            return _hosted_kind(part, "_result")
        return "function_result"
    if isinstance(part, model.MediaPart):
        if not part.uri:
            raise HistnormError(
                "a media part without a URI cannot be written as Agent Framework content"
            )
        return "data" if part.uri.startswith("data:") else "uri"
    kinds = {
        model.TextPart: "text",
        model.ReasoningPart: "text_reasoning",
        model.UsagePart: "usage",
    }
    kinds |= {model.ApprovalRequestPart: "function_approval_request"}
    kinds |= {model.ApprovalResponsePart: "function_approval_response"}
    found = kinds.get(type(part))
    if found is None:
        raise HistnormError(
            f"a part of kind {part.kind!r} cannot be written as Agent Framework content"
        )
    return found


def encode_content(part: Part, suffix: bool = False) -> Any:
    """Encode one part as a content item; new kinds get the `_content` suffix if `suffix`."""
    if reuse_native(part, decode_content):
        return part.native
    if isinstance(part, model.TextPart) and isinstance(part.native, str) and not part.metadata:
        return part.text
    base = part.native if isinstance(part.native, dict) else {}
    if isinstance(part, model.UnknownPart) and not base:
        raise HistnormError("an unknown part cannot be written as Agent Framework content")
    kind = _kind_for(part, base)
    values: dict[str, Any] = {}
    if isinstance(part, model.TextPart):
        values["text"] = part.text
    elif isinstance(part, model.ReasoningPart):
        values = {"text": part.text, "protected_data": part.opaque}
    elif isinstance(part, model.MediaPart):
        values = {"uri": part.uri, "media_type": part.media_type}
    elif isinstance(part, model.ToolCallPart):
        values = _call_values(part, base, kind)
    elif isinstance(part, model.ToolResultPart):
        values = _result_values(part, base, kind)
    elif isinstance(part, model.ApprovalRequestPart | model.ApprovalResponsePart):
        call = None if part.tool_call is None else encode_content(part.tool_call, suffix)
        values = {"function_call": call, "id": part.request_id}
        if isinstance(part, model.ApprovalRequestPart):
            values["user_input_request"] = base.get("user_input_request", True)
        else:
            values["approved"] = part.approved
    elif isinstance(part, model.UsagePart):
        values["details" if "details" in base else "usage_details"] = part.details
    if part.metadata or base.get("additional_properties") or not base:
        values["additional_properties"] = dict(part.metadata)
    elif "additional_properties" in base and base["additional_properties"] is not None:
        values["additional_properties"] = {}
    if not base:
        return new_object(_styled(kind, suffix), values)
    updates = {k: v for k, v in values.items() if k in base or v is not None}
    return rebuild(base, updates)
