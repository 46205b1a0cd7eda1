"""The pieces of a LangChain message below the message level, for `histnorm.formats.langchain`.

Content-list items (slot `content[]`), `tool_calls` / `invalid_tool_calls` entries, the raw
OpenAI-form calls older langchain-openai keeps in `additional_kwargs`, and how each is
written back after an edit. Every decoder here is standalone (it needs no message context),
so `reuse_native` can check a part against its own native value.
"""

from __future__ import annotations

from typing import Any

import orjson

from histnorm.errors import HistnormError, join_pointer
from histnorm.formats.base import MISSING, expect_object, optional_str, rebuild, reuse_native
from histnorm.model import (
    MediaPart,
    Part,
    ReasoningPart,
    RefusalPart,
    TextPart,
    ToolCallPart,
    ToolFamily,
    ToolResultPart,
    UnknownPart,
)

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
    return MediaPart(media_type=media_type, uri=uri, native=item, slot=CONTENT_ITEM)


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
        return TextPart(text=item, native=item, slot=CONTENT_ITEM)
    if not isinstance(item, dict):
        return UnknownPart(native=item, slot=CONTENT_ITEM)
    kind = _str(item.get("type"))
    if kind == "text" and isinstance(item.get("text"), str):
        return TextPart(text=item["text"], native=item, slot=CONTENT_ITEM)
    if kind == "thinking":
        text, opaque = _str(item.get("thinking")), item.get("signature")
        return ReasoningPart(text=text, opaque=opaque, native=item, slot=CONTENT_ITEM)
    if kind == "redacted_thinking":
        return ReasoningPart(opaque=item.get("data"), native=item, slot=CONTENT_ITEM)
    if kind == "reasoning":
        text = _str(item.get("reasoning"))
        return ReasoningPart(
            text=text, opaque=_reasoning_opaque(item), native=item, slot=CONTENT_ITEM
        )
    if kind == "refusal" and isinstance(item.get("refusal"), str):
        return RefusalPart(text=item["refusal"], native=item, slot=CONTENT_ITEM)
    if kind in _MEDIA:
        return _media(item, kind)
    is_call, call_id = call_block_id(item)
    if is_call and kind is not None:
        name = _str(item.get("name"))
        return ToolCallPart(
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
            return ToolCallPart(
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
            return ToolResultPart(
                call_id=call_id,
                content=content,
                is_error=error,
                family=fam,
                tool_type=kind,
                native=item,
                slot=CONTENT_ITEM,
            )
    return UnknownPart(type=kind, native=item, slot=CONTENT_ITEM)


def _media_kind(media_type: str | None) -> str:
    top = (media_type or "").split("/", 1)[0]
    return top if top in ("image", "audio", "video") else "file"


def encode_block(part: Part) -> Any:
    """Encode one part as an item of list content."""
    if reuse_native(part, decode_block):
        return part.native
    base = part.native if isinstance(part.native, dict) else {}
    if isinstance(part, TextPart):
        if isinstance(part.native, str):
            return part.text
        return rebuild(base, {"type": "text", "text": part.text})
    if isinstance(part, RefusalPart):
        return rebuild(base, {"type": "refusal", "refusal": part.text})
    if isinstance(part, ReasoningPart):
        return _encode_reasoning(part, base)
    if isinstance(part, MediaPart):
        return _encode_media(part, base)
    if isinstance(part, ToolCallPart):
        hosted = part.family in (ToolFamily.HOSTED, ToolFamily.MCP)
        kind = _str(base.get("type")) if base else ("server_tool_call" if hosted else "tool_call")
        id_key, args_key = _CALL_BLOCKS.get(kind or "", ("id", "args"))
        updates = {"type": kind, id_key: part.call_id, "name": part.name, args_key: part.arguments}
        return rebuild(base, updates)
    if isinstance(part, ToolResultPart):
        if base.get("type") == "tool_result":
            error: Any = True if part.is_error else (False if "is_error" in base else MISSING)
            updates = {"tool_use_id": part.call_id, "content": part.content, "is_error": error}
            return rebuild(base, updates)
        status = "error" if part.is_error else "success"
        values = {"type": "server_tool_result", "tool_call_id": part.call_id, "status": status}
        return rebuild(base, {**values, "output": part.content})
    if part.native is not None:
        return part.native
    raise HistnormError(f"a part of kind {part.kind!r} cannot be written as LangChain content")


def _encode_reasoning(part: ReasoningPart, base: dict[str, Any]) -> dict[str, Any]:
    kind = base.get("type")
    if kind == "thinking":
        return rebuild(base, {"thinking": part.text, "signature": part.opaque})
    if kind == "redacted_thinking":
        return rebuild(base, {"data": part.opaque})
    out = rebuild(base, {"type": "reasoning", "reasoning": part.text})
    if part.opaque is not None and _reasoning_opaque(out) != part.opaque:
        extras = out.get("extras")
        out["extras"] = {**(extras if isinstance(extras, dict) else {}), "signature": part.opaque}
    return out


def _encode_media(part: MediaPart, base: dict[str, Any]) -> dict[str, Any]:
    kind = base.get("type")
    if kind == "image_url":
        body = base.get("image_url")
        url = rebuild(body, {"url": part.uri}) if isinstance(body, dict) else part.uri
        return rebuild(base, {"image_url": url})
    if base:
        updates: dict[str, Any] = {}
        if "url" in base or part.uri is not None:
            updates["url"] = part.uri
        if "mime_type" in base or (part.media_type is not None and kind != "input_audio"):
            updates["mime_type"] = part.media_type
        return rebuild(base, updates)
    out: dict[str, Any] = {"type": _media_kind(part.media_type)}
    if part.uri is not None:
        out["url"] = part.uri
    if part.media_type is not None:
        out["mime_type"] = part.media_type
    return out


# --- tool_calls, invalid_tool_calls and the raw calls in additional_kwargs --------------


def decode_tool_call(item: Any, pointer: str = "", invalid: bool = False) -> ToolCallPart:
    """Decode one `tool_calls` (or, with `invalid`, `invalid_tool_calls`) entry."""
    call = expect_object(item, pointer, "an invalid tool call" if invalid else "a tool call")
    call_id = optional_str(call.get("id"), join_pointer(pointer, "id"), "the tool call id")
    name = optional_str(call.get("name"), join_pointer(pointer, "name"), "the tool name")
    return ToolCallPart(
        call_id=call_id,
        name=name,
        arguments=call.get("args"),
        family=family(name),
        tool_type="invalid_tool_call" if invalid else "tool_call",
        native=item,
        slot=INVALID_CALLS if invalid else TOOL_CALLS,
    )


def as_args_object(arguments: Any) -> dict[str, Any] | None:
    """Arguments as the JSON object `tool_calls` needs, or None when they are not one."""
    if arguments is None:
        return {}
    if isinstance(arguments, dict):
        return arguments
    if isinstance(arguments, str):
        try:
            parsed = orjson.loads(arguments)
        except orjson.JSONDecodeError:
            return None
        return parsed if isinstance(parsed, dict) else None
    return None


def encode_tool_call(part: ToolCallPart, invalid: bool) -> dict[str, Any]:
    """Encode a `tool_calls` entry, or an `invalid_tool_calls` one (raw string arguments)."""
    slot = INVALID_CALLS if invalid else TOOL_CALLS
    if part.slot == slot and reuse_native(part, lambda n: decode_tool_call(n, "", invalid)):
        return part.native  # type: ignore[no-any-return]
    base = part.native if part.slot == slot and isinstance(part.native, dict) else {}
    if base:
        return rebuild(base, {"name": part.name, "args": part.arguments, "id": part.call_id})
    if invalid:
        args = part.arguments
        if args is not None and not isinstance(args, str):
            args = orjson.dumps(args).decode("utf-8")
        values = {"name": part.name, "args": args, "id": part.call_id, "error": None}
        return {"type": "invalid_tool_call", **values}
    args_object = as_args_object(part.arguments)
    name = part.name if part.name is not None else ""
    return {"name": name, "args": args_object, "id": part.call_id, "type": "tool_call"}


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
    return ToolCallPart(
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


def encode_raw_call(part: ToolCallPart, slot: str) -> dict[str, Any]:
    """Encode a call back into `additional_kwargs` (string arguments, OpenAI form)."""
    if part.slot == slot and reuse_native(part, lambda n: decode_raw_call(n, slot)):
        return part.native  # type: ignore[no-any-return]
    base = part.native if part.slot == slot and isinstance(part.native, dict) else {}
    args = part.arguments
    if args is not None and not isinstance(args, str):
        args = orjson.dumps(args).decode("utf-8")
    if slot == AK_FUNCTION_CALL:
        return rebuild(base, {"name": part.name, "arguments": args})
    body = base.get("function")
    if isinstance(body, dict):
        function = rebuild(body, {"name": part.name, "arguments": args})
        return rebuild(base, {"id": part.call_id, "function": function})
    return rebuild(base, {"id": part.call_id, "name": part.name, "arguments": args})
