"""Reading OpenAI Chat Completions messages into the canonical model."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from histnorm.content_keys import unread_content
from histnorm.errors import HistnormError, join_pointer
from histnorm.formats.base import (
    expect_object,
    optional_key,
    optional_str,
    required_key,
    type_name,
)
from histnorm.lazy import model
from histnorm.model_terms import ToolFamily

if TYPE_CHECKING:
    from histnorm.model import Message, Part, ToolCallPart

HANDOFF_PREFIX = "handoff_to_"
_MEDIA_TYPES = {"image_url", "input_audio", "file"}
_CONTENT_SLOTS = {"content", "content[]"}
_FOREIGN_PART_TYPES = {
    "tool_use",
    "tool_result",
    "thinking",
    "redacted_thinking",
    "image",
    "document",
    "search_result",
    "server_tool_use",
    "mcp_tool_use",
    "mcp_tool_result",
    "container_upload",
    "input_text",
    "output_text",
    "input_image",
    "input_file",
}


CONTENT_KEYS = ("content", "tool_calls", "function_call", "refusal", "audio")
"""Message keys the reader reads content from (`Codec.content_keys`)."""
MESSAGE_KEYS = frozenset({"role", "tool_call_id", "annotations", "prefix"})
"""Other message keys it reads or knows to hold no content (`Codec.message_keys`)."""


def unread(message: Any) -> list[str]:
    """`histnorm.content_keys.unread_content` of one native message, for this format."""
    return unread_content(message, CONTENT_KEYS, MESSAGE_KEYS)


def _foreign_part(kind: Any) -> bool:
    """Whether a content item's type belongs to another format (Anthropic, Responses)."""
    return isinstance(kind, str) and (kind in _FOREIGN_PART_TYPES or kind.endswith("_tool_result"))


def _family(name: str | None) -> ToolFamily:
    return ToolFamily.HANDOFF if name and name.startswith(HANDOFF_PREFIX) else ToolFamily.FUNCTION


def decode_content_item(item: Any) -> Part:
    """Decode one item of an array `content`."""
    if not isinstance(item, dict):
        return model.UnknownPart(native=item, slot="content[]")
    kind = item.get("type")
    if kind == "text" and isinstance(item.get("text"), str):
        return model.TextPart(text=item["text"], native=item, slot="content[]")
    if kind == "refusal" and isinstance(item.get("refusal"), str):
        return model.RefusalPart(text=item["refusal"], native=item, slot="content[]")
    if isinstance(kind, str) and kind in _MEDIA_TYPES:
        body = item.get(kind)
        uri = body.get("url") if isinstance(body, dict) else None
        fmt = body.get("format") if isinstance(body, dict) and kind == "input_audio" else None
        return model.MediaPart(
            media_type=f"audio/{fmt}" if isinstance(fmt, str) else None,
            uri=uri if isinstance(uri, str) else None,
            native=item,
            slot="content[]",
        )
    return model.UnknownPart(
        type=kind if isinstance(kind, str) else None, native=item, slot="content[]"
    )


def decode_tool_call(item: Any, pointer: str) -> ToolCallPart:
    """Decode one entry of `tool_calls`."""
    call = item if type(item) is dict else expect_object(item, pointer, "a tool call")
    call_id = call.get("id")
    if type(call_id) is not str:
        call_id = required_key(call, "id", pointer, "the tool call id")
    kind = call.get("type", "function" if "function" in call else None)
    if kind is not None and type(kind) is not str:  # pointers are worked out to report
        optional_str(kind, join_pointer(pointer, "type"), "the tool call type")
    body_key = "custom" if kind == "custom" else "function"
    body = call.get(body_key)
    if kind in ("function", "custom") and type(body) is not dict:
        expect_object(body, join_pointer(pointer, body_key), f'the "{body_key}" of a tool call')
    name = body.get("name") if isinstance(body, dict) else None
    if name is not None and type(name) is not str:
        optional_str(name, join_pointer(pointer, body_key, "name"), "the tool name")
    if kind == "custom":
        args = body.get("input") if isinstance(body, dict) else None
        family = ToolFamily.CUSTOM
    else:
        args = body.get("arguments") if isinstance(body, dict) else None
        family = _family(name) if kind == "function" else ToolFamily.CUSTOM
    return model.ToolCallPart(
        call_id=call_id,
        name=name,
        arguments=args,
        family=family,
        tool_type=kind,
        native=item,
        slot="tool_calls",
    )


def decode_function_call(item: Any, pointer: str) -> ToolCallPart:
    """Decode a legacy `function_call` (no id; paired by position)."""
    call = expect_object(item, pointer, "a function call")
    name = optional_key(call, "name", pointer, "the function name")
    return model.ToolCallPart(
        call_id=None,
        name=name,
        arguments=call.get("arguments"),
        family=_family(name),
        tool_type="function_call",
        native=item,
        slot="function_call",
    )


def decode_message(obj: Any, pointer: str = "") -> Message:
    """Decode one Chat Completions message."""
    msg = obj if type(obj) is dict else expect_object(obj, pointer, "a message")
    role = msg.get("role")  # a string, the usual case, is read without the checks' calls
    if type(role) is not str:
        role = required_key(msg, "role", pointer, "the message role")
    parts: list[Part] = []
    content = msg.get("content")
    author = None
    folded = role.casefold()
    if folded in ("tool", "function"):
        if folded == "tool":
            call_id = msg.get("tool_call_id")
            if type(call_id) is not str:
                call_id = required_key(msg, "tool_call_id", pointer, "tool_call_id")
            name = optional_key(msg, "name", pointer, "the tool name")
        else:
            call_id = None
            name = optional_key(msg, "name", pointer, "the function name")
        parts.append(
            model.ToolResultPart(
                call_id=call_id,
                name=name,
                content=content,
                family=_family(name),
                tool_type=role,
                native=content,
                slot=folded,
            )
        )
    else:
        author = msg.get("name")
        if author is not None and type(author) is not str:
            author = optional_key(msg, "name", pointer, "the author name")
        if isinstance(content, str):
            parts.append(model.TextPart(text=content, native=content, slot="content"))
        elif isinstance(content, list):
            parts.extend(decode_content_item(item) for item in content)
        elif content is not None:
            raise HistnormError(
                "expected content to be a string, an array of parts or null, "
                f"got {type_name(content)}",
                pointer=join_pointer(pointer, "content"),
            )
        refusal = msg.get("refusal")
        if refusal is not None:
            refusal = optional_key(msg, "refusal", pointer, "refusal")
            parts.append(model.RefusalPart(text=refusal, native=refusal, slot="refusal"))
        calls = msg.get("tool_calls")
        if calls is not None:
            if not isinstance(calls, list):
                raise HistnormError(
                    f"expected tool_calls to be an array, got {type_name(calls)}",
                    pointer=join_pointer(pointer, "tool_calls"),
                )
            for index, call in enumerate(calls):
                parts.append(decode_tool_call(call, f"{pointer}/tool_calls/{index}"))
        audio = msg.get("audio")
        if isinstance(audio, dict) and folded == "assistant":
            parts.append(model.MediaPart(media_type="audio", native=audio, slot="audio"))
        if msg.get("function_call") is not None:
            fc_pointer = join_pointer(pointer, "function_call")
            parts.append(decode_function_call(msg["function_call"], fc_pointer))
    return model.Message(role=role, author_name=author, parts=tuple(parts), native=obj)
