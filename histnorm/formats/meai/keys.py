"""The vocabulary of Microsoft.Extensions.AI `ChatMessage` JSON, shared by its reader,
writer and outline reader.

The `$type` discriminator and the tables of content kinds it selects (calls, results,
approval requests and responses, media), the property names MEAI itself defines, and
the helpers that look a property up ignoring case, tell which casing an object was
written in, and read or write `additionalProperties` (the metadata).
"""

from __future__ import annotations

from typing import Any

from histnorm.errors import join_pointer
from histnorm.formats.base import MISSING, expect_object
from histnorm.model_terms import ToolFamily

TYPE_KEY = "$type"
HANDOFF_PREFIX = "handoff_to_"
_CALLS = {
    "functionCall": ToolFamily.FUNCTION,
    "toolCall": ToolFamily.FUNCTION,
    "mcpServerToolCall": ToolFamily.MCP,
    "codeInterpreterToolCall": ToolFamily.HOSTED,
    "imageGenerationToolCall": ToolFamily.HOSTED,
    "webSearchToolCall": ToolFamily.HOSTED,
}
_RESULTS = {
    "functionResult": ToolFamily.FUNCTION,
    "toolResult": ToolFamily.FUNCTION,
    "mcpServerToolResult": ToolFamily.MCP,
    "codeInterpreterToolResult": ToolFamily.HOSTED,
    "imageGenerationToolResult": ToolFamily.HOSTED,
    "webSearchToolResult": ToolFamily.HOSTED,
}
_REQUESTS = {
    "toolApprovalRequest",
    "functionApprovalRequest",
    "inputRequest",
    "userInputRequest",
    "mcpServerToolApprovalRequest",
}
_RESPONSES = {
    "toolApprovalResponse",
    "functionApprovalResponse",
    "inputResponse",
    "userInputResponse",
    "mcpServerToolApprovalResponse",
}
_MEDIA = {"data", "uri", "hostedFile", "hostedVectorStore"}
_OLD_APPROVALS = {
    "functionApprovalRequest",
    "functionApprovalResponse",
    "userInputRequest",
    "userInputResponse",
}


def find_key(obj: dict[str, Any], name: str) -> str | None:
    """The key of `obj` that matches `name` ignoring case, if any."""
    if name in obj:
        return name
    folded = name.casefold()
    return next((k for k in obj if k.casefold() == folded), None)


def get_key(obj: dict[str, Any], name: str) -> Any:
    """The value of the property `name` of `obj`, matched ignoring case (None if absent)."""
    key = find_key(obj, name)
    return None if key is None else obj[key]


_KNOWN = {
    name.casefold()
    for name in (
        "role",
        "contents",
        "authorName",
        "messageId",
        "createdAt",
        "additionalProperties",
        "text",
        "protectedData",
        "callId",
        "name",
        "arguments",
        "result",
        "outputs",
        "serverName",
        "informationalOnly",
        "invocationRequired",
        "requestId",
        "toolCall",
        "functionCall",
        "approved",
        "reason",
        "requiresConfirmation",
        "uri",
        "mediaType",
        "details",
        "message",
        "annotations",
    )
}


def _is_pascal(obj: Any) -> bool:
    """Whether the object spells MEAI's own property names in PascalCase."""
    return isinstance(obj, dict) and any(k[:1].isupper() for k in obj if k.casefold() in _KNOWN)


def _metadata_value(metadata: dict[str, Any], base: dict[str, Any]) -> Any:
    """What to write for `additionalProperties`: the metadata, or the original empty value,
    or MISSING when metadata that was there has been cleared."""
    if metadata:
        return metadata
    original = get_key(base, "additionalProperties")
    return original if not original else MISSING


def _styled(name: str, pascal: bool) -> str:
    return name[:1].upper() + name[1:] if pascal else name


def _metadata(obj: dict[str, Any], pointer: str) -> dict[str, Any]:
    props = get_key(obj, "additionalProperties")
    if props is None:
        return {}
    return dict(
        expect_object(
            props,
            join_pointer(pointer, find_key(obj, "additionalProperties") or ""),
            "additionalProperties",
        )
    )


def _at(pointer: str, obj: dict[str, Any], name: str) -> str:
    return join_pointer(pointer, find_key(obj, name) or name)
