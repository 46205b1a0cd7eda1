"""Decoding OpenAI Responses input items into messages.

Helpers for `histnorm.formats.openai_responses`; see that module for the shapes and slots.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from histnorm.errors import HistnormError, join_pointer
from histnorm.formats.base import (
    expect_object,
    optional_str,
    required_str,
    type_name,
)
from histnorm.lazy import model
from histnorm.model_terms import ToolFamily

if TYPE_CHECKING:
    from histnorm.model import (
        ApprovalRequestPart,
        ApprovalResponsePart,
        Message,
        Part,
        ReasoningPart,
        ToolCallPart,
        ToolResultPart,
    )

HANDOFF_PREFIX = "handoff_to_"
CALLS: dict[str, tuple[str, ToolFamily]] = {
    "function_call": ("arguments", ToolFamily.FUNCTION),
    "custom_tool_call": ("input", ToolFamily.CUSTOM),
    "computer_call": ("action", ToolFamily.FUNCTION),
    "local_shell_call": ("action", ToolFamily.FUNCTION),
    "shell_call": ("action", ToolFamily.FUNCTION),
    "apply_patch_call": ("operation", ToolFamily.FUNCTION),
}
"""Client-run call items: the key holding the arguments, and the family."""
OUTPUT_OF = {kind: kind + "_output" for kind in CALLS}
OUTPUT_OF["custom_tool_call"] = "custom_tool_call_output"
RESULTS = {output: call for call, output in OUTPUT_OF.items()}
HOSTED = {
    "web_search_call",
    "file_search_call",
    "code_interpreter_call",
    "image_generation_call",
    "tool_search_call",
    "tool_search_output",
    "program",
    "program_output",
    "mcp_call",
    "mcp_list_tools",
}
"""Items that complete on the server (no separate result to pair): kept as UnknownPart."""
CLIENT_RUN = {"tool_search_call": "tool_search_output"}
"""Hosted items the client runs (`"execution": "client"`): a call (`arguments`) and its
output (`tools`), paired by `call_id`; a `function_call_output` answers it too (OpenAI 200)."""
CLIENT_OUTPUTS = {output: call for call, output in CLIENT_RUN.items()}
OTHER_ITEMS = {
    "item_reference",
    "compaction",
    "compaction_trigger",
    "additional_tools",
    "configuration_update",
}
APPROVALS = {"mcp_approval_request", "mcp_approval_response"}
ITEM_TYPES = {"message", "reasoning"} | set(CALLS) | set(RESULTS) | HOSTED | OTHER_ITEMS | APPROVALS
"""Every item type the codec knows."""
CONTENT_TYPES = {"input_text", "output_text", "input_image", "input_file", "refusal"}
CONTENT_SLOTS = {"content", "content[]", "input"}
ITEM_SLOT = "item"
SERVER_STATE_KEYS = ("previous_response_id", "conversation")
"""Request keys that continue state stored on the server (`Transcript.server_state`)."""


def server_state(data: Any) -> str | None:
    """The first of `SERVER_STATE_KEYS` a request body sets (an id, or a conversation
    object), or None; when set, the calls its outputs answer may live on the server."""
    if isinstance(data, dict):
        for key in SERVER_STATE_KEYS:
            if isinstance(data.get(key), str | dict) and data[key]:
                return key
    return None


def item_type(obj: Any) -> str | None:
    """The `type` of a JSON object, if it is a string."""
    kind = obj.get("type") if isinstance(obj, dict) else None
    return kind if isinstance(kind, str) else None


def _family(name: str | None, default: ToolFamily) -> ToolFamily:
    if default is ToolFamily.FUNCTION and name and name.startswith(HANDOFF_PREFIX):
        return ToolFamily.HANDOFF
    return default


def _at(pointer: str, key: str) -> str:
    return join_pointer(pointer, key)


def decode_content(item: Any) -> Part:
    """Decode one content part of a message item."""
    if not isinstance(item, dict):
        return model.UnknownPart(native=item, slot="content[]")
    kind = item.get("type")
    text = item.get("text")
    if kind in ("input_text", "output_text") and isinstance(text, str):
        return model.TextPart(text=text, native=item, slot="content[]")
    if kind == "refusal" and isinstance(item.get("refusal"), str):
        return model.RefusalPart(text=item["refusal"], native=item, slot="content[]")
    if kind in ("input_image", "input_file"):
        uri = item.get("image_url" if kind == "input_image" else "file_url")
        return model.MediaPart(
            uri=uri if isinstance(uri, str) else None, native=item, slot="content[]"
        )
    return model.UnknownPart(
        type=kind if isinstance(kind, str) else None, native=item, slot="content[]"
    )


def _decode_message(item: dict[str, Any], pointer: str, role: str) -> Message:
    content = item.get("content")
    if isinstance(content, str):
        parts: tuple[Part, ...] = (model.TextPart(text=content, native=content, slot="content"),)
    elif isinstance(content, list):
        parts = tuple(decode_content(c) for c in content)
    elif content is None:
        raise HistnormError("the message content is missing", pointer=_at(pointer, "content"))
    else:
        raise HistnormError(
            f"expected content to be a string or an array of parts, got {type_name(content)}",
            pointer=_at(pointer, "content"),
        )
    return model.Message(role=role, id=message_id(item), parts=parts, native=item)


def _call(item: dict[str, Any], kind: str, pointer: str) -> ToolCallPart:
    key, family = CALLS[kind]
    if kind == "computer_call" and "action" not in item and "actions" in item:
        key = "actions"
    call_id = required_str(item.get("call_id"), _at(pointer, "call_id"), "call_id")
    name = optional_str(item.get("name"), _at(pointer, "name"), "the tool name")
    return model.ToolCallPart(
        call_id=call_id,
        name=name,
        arguments=item.get(key),
        family=_family(name, family),
        tool_type=kind,
        native=item,
        slot=kind,
    )


def result_id_key(item: dict[str, Any], kind: str) -> str:
    """`local_shell_call_output` names its call in `id`; every other output in `call_id`."""
    return "id" if kind == "local_shell_call_output" and "call_id" not in item else "call_id"


def _result(item: dict[str, Any], kind: str, pointer: str) -> ToolResultPart:
    key = result_id_key(item, kind)
    if kind == "function_call_output":  # optional since programmatic tool calling
        call_id = optional_str(item.get(key), _at(pointer, key), "call_id")
    else:
        call_id = required_str(item.get(key), _at(pointer, key), key)
    name = optional_str(item.get("name"), _at(pointer, "name"), "the tool name")
    family = CALLS[RESULTS[kind]][1]
    return model.ToolResultPart(
        call_id=call_id,
        name=name,
        content=item.get("output"),
        is_error=kind == "apply_patch_call_output" and item.get("status") == "failed",
        family=_family(name, family),
        tool_type=kind,
        native=item,
        slot=kind,
    )


def summary_text(summary: Any) -> str | None:
    """The summary texts of a reasoning item joined by blank lines, or None if there are none."""
    texts = [
        s["text"] for s in summary or () if isinstance(s, dict) and isinstance(s.get("text"), str)
    ]
    return "\n\n".join(texts) if texts else None


def _reasoning(item: dict[str, Any], pointer: str) -> ReasoningPart:
    summary = item.get("summary")
    if summary is not None and not isinstance(summary, list):
        raise HistnormError(
            f"expected summary to be an array, got {type_name(summary)}",
            pointer=_at(pointer, "summary"),
        )
    return model.ReasoningPart(
        text=summary_text(summary),
        opaque=item.get("encrypted_content"),
        native=item,
        slot="reasoning",
    )


def _approval_request(item: dict[str, Any], pointer: str) -> ApprovalRequestPart:
    request_id = required_str(item.get("id"), _at(pointer, "id"), "the approval request id")
    name = optional_str(item.get("name"), _at(pointer, "name"), "the tool name")
    call = model.ToolCallPart(
        call_id=None,
        name=name,
        arguments=item.get("arguments"),
        family=ToolFamily.MCP,
        tool_type="mcp_call",
    )
    return model.ApprovalRequestPart(
        request_id=request_id, tool_call=call, native=item, slot="mcp_approval_request"
    )


def _approval_response(item: dict[str, Any], pointer: str) -> ApprovalResponsePart:
    key = "approval_request_id"
    request_id = required_str(item.get(key), _at(pointer, key), key)
    approve = item.get("approve")
    if approve is not None and not isinstance(approve, bool):
        raise HistnormError(
            f"expected approve to be a boolean, got {type_name(approve)}",
            pointer=_at(pointer, "approve"),
        )
    return model.ApprovalResponsePart(
        request_id=request_id,
        approved=approve,
        reason=optional_str(item.get("reason"), _at(pointer, "reason"), "reason"),
        native=item,
        slot="mcp_approval_response",
    )


def client_run(item: dict[str, Any], kind: str | None) -> bool:
    """Whether a hosted item is one the client runs (`"execution": "client"`)."""
    return (kind in CLIENT_RUN or kind in CLIENT_OUTPUTS) and item.get("execution") == "client"


def _client_part(item: dict[str, Any], kind: str, pointer: str) -> ToolCallPart | ToolResultPart:
    call_id = required_str(item.get("call_id"), _at(pointer, "call_id"), "call_id")
    if kind in CLIENT_RUN:
        return model.ToolCallPart(
            call_id=call_id, arguments=item.get("arguments"), tool_type=kind, native=item, slot=kind
        )
    content = item.get("tools")
    return model.ToolResultPart(
        call_id=call_id, content=content, tool_type=kind, native=item, slot=kind
    )


def item_role(item: dict[str, Any], kind: str | None) -> str:
    """The canonical role of a non-message item."""
    if kind in RESULTS or (kind in CLIENT_OUTPUTS and client_run(item, kind)):
        return "tool"
    if kind == "mcp_approval_response":
        return "user"
    role = item.get("role")
    return role if isinstance(role, str) and kind not in ITEM_TYPES - OTHER_ITEMS else "assistant"


def message_id(item: dict[str, Any]) -> str | None:
    """The `Message.id` of an item: its `id`, unless that `id` is a pairing key (the id of
    an `mcp_approval_request`, or the call id of a `local_shell_call_output`)."""
    kind = item_type(item)
    if kind == "mcp_approval_request":
        return None
    if kind == "local_shell_call_output" and result_id_key(item, kind) == "id":
        return None
    found = item.get("id")
    return found if isinstance(found, str) else None


def decode_item(obj: Any, pointer: str = "") -> Message:
    """Decode one input item into one message."""
    item = expect_object(obj, pointer, "an input item")
    kind = item.get("type")
    if kind is not None and not isinstance(kind, str):
        raise HistnormError(
            f"expected the item type to be a string, got {type_name(kind)}",
            pointer=_at(pointer, "type"),
        )
    is_message = kind == "message" or (kind is None and "role" in item)
    client = client_run(item, kind)
    if is_message or client or kind in ITEM_TYPES - HOSTED - OTHER_ITEMS:
        optional_str(item.get("id"), _at(pointer, "id"), "the item id")
    if is_message:
        role = required_str(item.get("role"), _at(pointer, "role"), "the message role")
        return _decode_message(item, pointer, role)
    part: Part
    if kind in CALLS:
        part = _call(item, kind, pointer)
    elif kind in RESULTS:
        part = _result(item, kind, pointer)
    elif kind == "reasoning":
        part = _reasoning(item, pointer)
    elif kind == "mcp_approval_request":
        part = _approval_request(item, pointer)
    elif kind == "mcp_approval_response":
        part = _approval_response(item, pointer)
    elif client and kind is not None:
        part = _client_part(item, kind, pointer)
    else:
        part = model.UnknownPart(type=kind, native=item, slot=ITEM_SLOT)
    return model.Message(
        role=item_role(item, kind), id=message_id(item), parts=(part,), native=item
    )
