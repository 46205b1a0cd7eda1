"""Writing the pieces of a LangChain message below the message level back after an edit,
for `histnorm.formats.langchain`.

Content-list items (`encode_block`), `tool_calls` / `invalid_tool_calls` entries
(`encode_tool_call`) and the raw OpenAI-form calls in `additional_kwargs`
(`encode_raw_call`). An unchanged part is given back as its native value; a changed one is
rebuilt from it. The decoders these check against are in `histnorm.formats.langchain.blocks`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import histnorm.jsonio as jsonio
from histnorm.errors import HistnormError
from histnorm.formats.base import MISSING, rebuild, reuse_native
from histnorm.formats.langchain.blocks import (
    _CALL_BLOCKS,
    AK_FUNCTION_CALL,
    INVALID_CALLS,
    TOOL_CALLS,
    _reasoning_opaque,
    _str,
    decode_block,
    decode_raw_call,
    decode_tool_call,
)
from histnorm.lazy import model
from histnorm.model_terms import ToolFamily

if TYPE_CHECKING:
    from histnorm.model import MediaPart, Part, ReasoningPart, ToolCallPart


def _media_kind(media_type: str | None) -> str:
    top = (media_type or "").split("/", 1)[0]
    return top if top in ("image", "audio", "video") else "file"


def encode_block(part: Part) -> Any:
    """Encode one part as an item of list content."""
    if reuse_native(part, decode_block):
        return part.native
    base = part.native if isinstance(part.native, dict) else {}
    if isinstance(part, model.TextPart):
        if isinstance(part.native, str):
            return part.text
        return rebuild(base, {"type": "text", "text": part.text})
    if isinstance(part, model.RefusalPart):
        return rebuild(base, {"type": "refusal", "refusal": part.text})
    if isinstance(part, model.ReasoningPart):
        return _encode_reasoning(part, base)
    if isinstance(part, model.MediaPart):
        return _encode_media(part, base)
    if isinstance(part, model.ToolCallPart):
        hosted = part.family in (ToolFamily.HOSTED, ToolFamily.MCP)
        kind = _str(base.get("type")) if base else ("server_tool_call" if hosted else "tool_call")
        id_key, args_key = _CALL_BLOCKS.get(kind or "", ("id", "args"))
        updates = {"type": kind, id_key: part.call_id, "name": part.name, args_key: part.arguments}
        return rebuild(base, updates)
    if isinstance(part, model.ToolResultPart):
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


def as_args_object(arguments: Any) -> dict[str, Any] | None:
    """Arguments as the JSON object `tool_calls` needs, or None when they are not one."""
    if arguments is None:
        return {}
    if isinstance(arguments, dict):
        return arguments
    if isinstance(arguments, str):
        try:
            parsed = jsonio.loads(arguments)
        except HistnormError:
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
            args = jsonio.dumps(args).decode("utf-8")
        values = {"name": part.name, "args": args, "id": part.call_id, "error": None}
        return {"type": "invalid_tool_call", **values}
    args_object = as_args_object(part.arguments)
    name = part.name if part.name is not None else ""
    return {"name": name, "args": args_object, "id": part.call_id, "type": "tool_call"}


def encode_raw_call(part: ToolCallPart, slot: str) -> dict[str, Any]:
    """Encode a call back into `additional_kwargs` (string arguments, OpenAI form)."""
    if part.slot == slot and reuse_native(part, lambda n: decode_raw_call(n, slot)):
        return part.native  # type: ignore[no-any-return]
    base = part.native if part.slot == slot and isinstance(part.native, dict) else {}
    args = part.arguments
    if args is not None and not isinstance(args, str):
        args = jsonio.dumps(args).decode("utf-8")
    if slot == AK_FUNCTION_CALL:
        return rebuild(base, {"name": part.name, "arguments": args})
    body = base.get("function")
    if isinstance(body, dict):
        function = rebuild(body, {"name": part.name, "arguments": args})
        return rebuild(base, {"id": part.call_id, "function": function})
    return rebuild(base, {"id": part.call_id, "name": part.name, "arguments": args})
