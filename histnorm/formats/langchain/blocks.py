"""The pieces of a LangChain message below the message level, for `histnorm.formats.langchain`.

Content-list items (slot `content[]`), `tool_calls` / `invalid_tool_calls` entries, the raw
OpenAI-form calls older langchain-openai keeps in `additional_kwargs`, and how each is
read. Every decoder here is standalone (it needs no message context), so `reuse_native`
can check a part against its own native value; `histnorm.formats.langchain.encode`
writes them back after an edit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from histnorm.errors import join_pointer
from histnorm.formats.base import expect_object, optional_str
from histnorm.lazy import model
from histnorm.model_terms import ToolFamily

if TYPE_CHECKING:
    from histnorm.model import MediaPart, Part, ToolCallPart

HANDOFF_PREFIX = "handoff_to_"
CONTENT_ITEM = "content[]"
TOOL_CALLS = "tool_calls"
INVALID_CALLS = "invalid_tool_calls"
AK_TOOL_CALLS = "additional_kwargs.tool_calls"
AK_FUNCTION_CALL = "additional_kwargs.function_call"
AK_REFUSAL = "additional_kwargs.refusal"

_CALL_BLOCKS = {
    "tool_use": ("id", "input"),
    "tool_call": ("id", "args"),
    "function_call": ("call_id", "arguments"),
}
CALL_BLOCK_TYPES = frozenset(_CALL_BLOCKS)
"""Content block types that are provider-native calls (and may copy a `tool_calls` entry)."""
_MEDIA = {"image_url", "image", "audio", "video", "file", "input_audio", "document"}


def family(name: str | None) -> ToolFamily:
    """`handoff` for names starting with `handoff_to_`, else `function`."""
    return ToolFamily.HANDOFF if name and name.startswith(HANDOFF_PREFIX) else ToolFamily.FUNCTION


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def call_block_id(item: Any) -> tuple[bool, str | None]:
    """(True, id) when `item` is a provider-native call block in content (Anthropic
    `tool_use`, v1 `tool_call`, Responses-style `function_call`) with a usable id."""
    kind = _str(item.get("type")) if isinstance(item, dict) else None
    if kind not in _CALL_BLOCKS:
        return False, None
    value = item.get(_CALL_BLOCKS[kind][0])
    return (True, value) if value is None or isinstance(value, str) else (False, None)


def _media(item: dict[str, Any], kind: str) -> MediaPart:
    source = item.get("source")
    source = source if isinstance(source, dict) else {}
    body = item.get(kind) if kind in ("image_url", "input_audio") else None
    uri = _str(item.get("url")) or _str(source.get("url"))
    if kind == "image_url":
        uri = _str(body) or (_str(body.get("url")) if isinstance(body, dict) else None)
    media_type = _str(item.get("mime_type")) or _str(source.get("media_type"))
    if kind == "input_audio" and isinstance(body, dict) and isinstance(body.get("format"), str):
        media_type = "audio/" + body["format"]
    return model.MediaPart(media_type=media_type, uri=uri, native=item, slot=CONTENT_ITEM)


def _reasoning_opaque(item: dict[str, Any]) -> Any:
    extras = item.get("extras")
    signature = extras.get("signature") if isinstance(extras, dict) else None
    for value in (item.get("encrypted_content"), item.get("signature"), signature):
        if value is not None:
            return value
    return None


def decode_block(item: Any) -> Part:
    """Decode one item of list content (a string or a content block)."""
    if isinstance(item, str):
        return model.TextPart(text=item, native=item, slot=CONTENT_ITEM)
    if not isinstance(item, dict):
        return model.UnknownPart(native=item, slot=CONTENT_ITEM)
    kind = _str(item.get("type"))
    if kind == "text" and isinstance(item.get("text"), str):
        return model.TextPart(text=item["text"], native=item, slot=CONTENT_ITEM)
    if kind == "thinking":
        text, opaque = _str(item.get("thinking")), item.get("signature")
        return model.ReasoningPart(text=text, opaque=opaque, native=item, slot=CONTENT_ITEM)
    if kind == "redacted_thinking":
        return model.ReasoningPart(opaque=item.get("data"), native=item, slot=CONTENT_ITEM)
    if kind == "reasoning":
        text = _str(item.get("reasoning"))
        return model.ReasoningPart(
            text=text, opaque=_reasoning_opaque(item), native=item, slot=CONTENT_ITEM
        )
    if kind == "refusal" and isinstance(item.get("refusal"), str):
        return model.RefusalPart(text=item["refusal"], native=item, slot=CONTENT_ITEM)
    if kind in _MEDIA:
        return _media(item, kind)
    is_call, call_id = call_block_id(item)
    if is_call and kind is not None:
        name = _str(item.get("name"))
        return model.ToolCallPart(
            call_id=call_id,
            name=name,
            arguments=item.get(_CALL_BLOCKS[kind][1]),
            family=family(name),
            tool_type=kind,
            native=item,
            slot=CONTENT_ITEM,
        )
    return _decode_hosted_or_result(item, kind)


def _decode_hosted_or_result(item: dict[str, Any], kind: str | None) -> Part:
    if kind == "server_tool_call":
        call_id = item.get("id")
        if call_id is None or isinstance(call_id, str):
            return model.ToolCallPart(
                call_id=call_id,
                name=_str(item.get("name")),
                arguments=item.get("args"),
                family=ToolFamily.HOSTED,
                tool_type=kind,
                native=item,
                slot=CONTENT_ITEM,
            )
    elif kind in ("tool_result", "server_tool_result"):
        call_id = item.get("tool_use_id" if kind == "tool_result" else "tool_call_id")
        if isinstance(call_id, str):
            if kind == "tool_result":
                error, content, fam = (
                    item.get("is_error") is True,
                    item.get("content"),
                    family(None),
                )
            else:
                error, content, fam = (
                    item.get("status") == "error",
                    item.get("output"),
                    ToolFamily.HOSTED,
                )
            return model.ToolResultPart(
                call_id=call_id,
                content=content,
                is_error=error,
                family=fam,
                tool_type=kind,
                native=item,
                slot=CONTENT_ITEM,
            )
    return model.UnknownPart(type=kind, native=item, slot=CONTENT_ITEM)


# --- tool_calls, invalid_tool_calls and the raw calls in additional_kwargs --------------


def decode_tool_call(item: Any, pointer: str = "", invalid: bool = False) -> ToolCallPart:
    """Decode one `tool_calls` (or, with `invalid`, `invalid_tool_calls`) entry."""
    call = expect_object(item, pointer, "an invalid tool call" if invalid else "a tool call")
    call_id = optional_str(call.get("id"), join_pointer(pointer, "id"), "the tool call id")
    name = optional_str(call.get("name"), join_pointer(pointer, "name"), "the tool name")
    return model.ToolCallPart(
        call_id=call_id,
        name=name,
        arguments=call.get("args"),
        family=family(name),
        tool_type="invalid_tool_call" if invalid else "tool_call",
        native=item,
        slot=INVALID_CALLS if invalid else TOOL_CALLS,
    )


def decode_raw_call(item: Any, slot: str = AK_TOOL_CALLS) -> ToolCallPart | None:
    """Decode an OpenAI-form call kept in `additional_kwargs` (`tool_calls` entry or
    `function_call`); None when the entry is not one (it is then kept verbatim)."""
    if not isinstance(item, dict):
        return None
    call_id = item.get("id") if slot == AK_TOOL_CALLS else None
    if call_id is not None and not isinstance(call_id, str):
        return None
    body = item.get("function") if slot == AK_TOOL_CALLS else item
    if not isinstance(body, dict):
        body = item
    name = _str(body.get("name"))
    return model.ToolCallPart(
        call_id=call_id,
        name=name,
        arguments=body.get("arguments"),
        family=family(name),
        tool_type=(_str(item.get("type")) or "function")
        if slot == AK_TOOL_CALLS
        else "function_call",
        native=item,
        slot=slot,
    )
