"""Reading Microsoft.Extensions.AI `ChatMessage` JSON: decoding messages and contents.

Each `AIContent` is decoded by its `$type` into a part (slot `contents`); anything not
recognised is kept as an unknown part. The kind tables and the case-insensitive property
lookup this relies on are in `histnorm.formats.meai.keys`.
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
from histnorm.formats.meai.keys import (
    _CALLS,
    _MEDIA,
    _REQUESTS,
    _RESPONSES,
    _RESULTS,
    HANDOFF_PREFIX,
    TYPE_KEY,
    _at,
    _metadata,
    find_key,
    get_key,
)
from histnorm.lazy import model
from histnorm.model_terms import ToolFamily

if TYPE_CHECKING:
    from histnorm.model import Message, Part, ToolCallPart


def _tool_call(obj: dict[str, Any], kind: str, pointer: str) -> ToolCallPart:
    call_id = required_str(get_key(obj, "callId"), _at(pointer, obj, "callId"), "callId")
    name = optional_str(get_key(obj, "name"), _at(pointer, obj, "name"), "the tool name")
    family = _CALLS[kind]
    if family is ToolFamily.FUNCTION and name and name.startswith(HANDOFF_PREFIX):
        family = ToolFamily.HANDOFF
    informational = get_key(obj, "informationalOnly")
    if informational is None:
        informational = get_key(obj, "invocationRequired") is False
    return model.ToolCallPart(
        call_id=call_id,
        name=name,
        arguments=get_key(obj, "arguments"),
        family=family,
        tool_type=kind,
        informational=bool(informational),
        native=obj,
        slot="contents",
        metadata=_metadata(obj, pointer),
    )


def _nested_call(obj: dict[str, Any], pointer: str) -> ToolCallPart | None:
    key = find_key(obj, "toolCall") or find_key(obj, "functionCall")
    if key is None or obj[key] is None:
        return None
    return decode_nested_call(obj[key], join_pointer(pointer, key))


def decode_nested_call(obj: Any, pointer: str = "") -> ToolCallPart:
    """Decode the call an approval request or response wraps.

    Before 2026 that property was typed as `FunctionCallContent` itself, so
    System.Text.Json wrote no `$type` for it: an object without one is a function call.
    """
    part = decode_content(obj, pointer, untyped="functionCall")
    if not isinstance(part, model.ToolCallPart):
        raise HistnormError("expected a tool call content", pointer=pointer)
    return part


def _request_id(obj: dict[str, Any], pointer: str) -> str:
    key = find_key(obj, "requestId") or find_key(obj, "id") or "requestId"
    return required_str(obj.get(key), join_pointer(pointer, key), "the request id")


def decode_content(obj: Any, pointer: str = "", untyped: str | None = None) -> Part:
    """Decode one `AIContent` object (`untyped`: the kind of one without `$type`)."""
    content = expect_object(obj, pointer, "a content item")
    kind = content.get(TYPE_KEY, untyped)
    if not isinstance(kind, str):
        kind = None
    meta = _metadata(content, pointer)
    if kind == "text" and isinstance(get_key(content, "text"), str):
        return model.TextPart(
            text=get_key(content, "text"), native=obj, slot="contents", metadata=meta
        )
    if kind == "reasoning":
        text = optional_str(
            get_key(content, "text"), _at(pointer, content, "text"), "reasoning text"
        )
        return model.ReasoningPart(
            text=text,
            opaque=get_key(content, "protectedData"),
            native=obj,
            slot="contents",
            metadata=meta,
        )
    if kind in _CALLS:
        return _tool_call(content, kind, pointer)
    if kind in _RESULTS:
        call_id = required_str(
            get_key(content, "callId"), _at(pointer, content, "callId"), "callId"
        )
        result_key = "result" if kind in ("functionResult", "toolResult") else "outputs"
        return model.ToolResultPart(
            call_id=call_id,
            content=get_key(content, result_key),
            family=_RESULTS[kind],
            tool_type=kind,
            native=obj,
            slot="contents",
            metadata=meta,
        )
    if kind in _REQUESTS:
        confirm = get_key(content, "requiresConfirmation")
        return model.ApprovalRequestPart(
            request_id=_request_id(content, pointer),
            tool_call=_nested_call(content, pointer),
            requires_confirmation=confirm is not False,
            native=obj,
            slot="contents",
            metadata=meta,
        )
    if kind in _RESPONSES:
        approved = get_key(content, "approved")
        reason = optional_str(get_key(content, "reason"), _at(pointer, content, "reason"), "reason")
        return model.ApprovalResponsePart(
            request_id=_request_id(content, pointer),
            approved=approved if isinstance(approved, bool) else None,
            tool_call=_nested_call(content, pointer),
            reason=reason,
            native=obj,
            slot="contents",
            metadata=meta,
        )
    if kind in _MEDIA:
        uri = get_key(content, "uri")
        media_type = get_key(content, "mediaType")
        if media_type is None and isinstance(uri, str) and uri.startswith("data:"):
            media_type = uri[5:].split(";", 1)[0].split(",", 1)[0] or None
        return model.MediaPart(
            media_type=media_type if isinstance(media_type, str) else None,
            uri=uri if isinstance(uri, str) else None,
            native=obj,
            slot="contents",
            metadata=meta,
        )
    if kind == "usage":
        return model.UsagePart(
            details=get_key(content, "details"), native=obj, slot="contents", metadata=meta
        )
    return model.UnknownPart(
        type=kind if isinstance(kind, str) else None, native=obj, slot="contents", metadata=meta
    )


def decode_message(obj: Any, pointer: str = "") -> Message:
    """Decode one `ChatMessage` object."""
    msg = expect_object(obj, pointer, "a message")
    role = required_str(get_key(msg, "role"), _at(pointer, msg, "role"), "the message role")
    contents = get_key(msg, "contents")
    contents_at = _at(pointer, msg, "contents")
    if find_key(msg, "contents") is None:
        foreign = next(
            (k for k in ("content", "tool_calls", "tool_call_id", "parts") if k in msg), None
        )
        if foreign is not None:
            raise HistnormError(
                f'not a Microsoft.Extensions.AI message: it has "{foreign}" and no "contents"',
                pointer=join_pointer(pointer, foreign),
            )
    if contents is not None and not isinstance(contents, list):
        raise HistnormError(
            f"expected contents to be an array, got {type_name(contents)}", pointer=contents_at
        )
    parts = tuple(
        decode_content(c, join_pointer(contents_at, i)) for i, c in enumerate(contents or ())
    )
    return model.Message(
        role=role,
        id=optional_str(get_key(msg, "messageId"), _at(pointer, msg, "messageId"), "messageId"),
        author_name=optional_str(
            get_key(msg, "authorName"), _at(pointer, msg, "authorName"), "authorName"
        ),
        parts=parts,
        metadata=_metadata(msg, pointer),
        native=obj,
    )
