"""Writing OpenAI Chat Completions messages back in their native shape."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import histnorm.jsonio as jsonio
from histnorm.errors import HistnormError
from histnorm.formats.base import (
    MISSING,
    rebuild,
    reuse_native,
)
from histnorm.formats.openai_chat.read import (
    _CONTENT_SLOTS,
    decode_content_item,
    decode_function_call,
    decode_message,
    decode_tool_call,
)
from histnorm.lazy import model
from histnorm.media import parse_data_url

if TYPE_CHECKING:
    from histnorm.model import MediaPart, Message, Part, ToolCallPart, ToolResultPart

AUDIO_FORMATS = {"audio/wav": "wav", "audio/x-wav": "wav", "audio/mp3": "mp3", "audio/mpeg": "mp3"}
"""The audio types OpenAI Chat `input_audio` takes, by the `format` it names them."""


def _encode_content_item(part: Part) -> Any:
    if reuse_native(part, decode_content_item):
        return part.native
    base = part.native if isinstance(part.native, dict) else {}
    if isinstance(part, model.TextPart):
        return rebuild(base, {"type": "text", "text": part.text})
    if isinstance(part, model.RefusalPart):
        return rebuild(base, {"type": "refusal", "refusal": part.text})
    if isinstance(part, model.MediaPart):
        if not base:
            return _new_media_item(part)
        kind = base.get("type")
        body = base.get(kind) if isinstance(kind, str) else None
        if isinstance(body, dict) and ("url" in body or part.uri is not None):
            return rebuild(base, {str(kind): rebuild(body, {"url": part.uri})})
    if part.native is not None:
        return part.native
    raise HistnormError(f"a {part.kind} part cannot be written as OpenAI Chat content")


def _new_media_item(part: MediaPart) -> dict[str, Any]:
    """An `image_url` item, or for inline data of another type an `input_audio` (WAV,
    MP3) or `file` item (`file_data`), the shapes OpenAI Chat takes them in."""
    parsed = parse_data_url(part.uri) if part.uri is not None else None
    major = (parsed[0] if parsed else "").partition("/")[0]
    if parsed is None or major in ("", "image"):
        return {"type": "image_url", "image_url": {"url": part.uri}}
    if parsed[0] in AUDIO_FORMATS:
        body = {"data": parsed[1], "format": AUDIO_FORMATS[parsed[0]]}
        return {"type": "input_audio", "input_audio": body}
    return {"type": "file", "file": {"file_data": part.uri}}


def _encode_arguments(arguments: Any) -> Any:
    if arguments is None or isinstance(arguments, str):
        return arguments
    return jsonio.dumps(arguments).decode("utf-8")


def _encode_tool_call(part: ToolCallPart) -> dict[str, Any]:
    if reuse_native(part, lambda native: decode_tool_call(native, "")):
        return part.native  # type: ignore[no-any-return]
    base = part.native if isinstance(part.native, dict) else {}
    kind = part.tool_type if part.tool_type in ("function", "custom") else "function"
    body_key = "custom" if kind == "custom" else "function"
    found = base.get(body_key)
    body: dict[str, Any] = found if isinstance(found, dict) else {}
    args_key = "input" if kind == "custom" else "arguments"
    new_body = rebuild(body, {"name": part.name, args_key: _encode_arguments(part.arguments)})
    return rebuild(base, {"id": part.call_id or "", "type": kind, body_key: new_body})


def _encode_function_call(part: ToolCallPart) -> dict[str, Any]:
    if reuse_native(part, lambda native: decode_function_call(native, "")):
        return part.native  # type: ignore[no-any-return]
    base = part.native if isinstance(part.native, dict) else {}
    return rebuild(base, {"name": part.name, "arguments": _encode_arguments(part.arguments)})


def _result_content(part: ToolResultPart) -> Any:
    """Tool message content is a string or a list of parts; other values (a result read
    from another format) are written as their JSON text."""
    content = part.content
    if part.native is None and not isinstance(content, str | list) and content is not None:
        return jsonio.dumps(content).decode("utf-8")
    return content


def _encode_result(message: Message, part: ToolResultPart) -> dict[str, Any]:
    base = message.native if isinstance(message.native, dict) else {}
    updates: dict[str, Any]
    legacy = part.slot == "function" or (part.tool_type or "").casefold() == "function"
    if part.call_id is None and legacy:
        updates = {"role": message.role if message.role_is("function") else "function"}
        updates |= {"name": part.name, "content": _result_content(part)}
    else:
        role = message.role if message.role_is("tool") else "tool"
        updates = {
            "role": role,
            "tool_call_id": part.call_id or "",
            "content": _result_content(part),
        }
        updates["name"] = part.name if part.name is not None else _null_or_missing(base, "name")
    return rebuild(base, updates)


def _null_or_missing(base: dict[str, Any], key: str) -> Any:
    """Keep a key the input had as null; otherwise leave it out."""
    return None if key in base and base[key] is None else MISSING


def _encode_content(message: Message, base: dict[str, Any]) -> Any:
    items = [
        p
        for p in message.parts
        if p.slot in _CONTENT_SLOTS
        or (p.native is None and isinstance(p, model.TextPart | model.MediaPart))
    ]
    if not items:
        current = base.get("content", MISSING)
        if current is MISSING and base:
            return MISSING
        return None if message.role_is("assistant") or current is None else []
    only = items[0]
    if (
        len(items) == 1
        and isinstance(only, model.TextPart)
        and (
            only.slot == "content"
            or (only.native is None and not isinstance(base.get("content"), list))
        )
    ):
        return only.text
    return [_encode_content_item(p) for p in items]


def encode_message(message: Message) -> list[dict[str, Any]]:
    """Encode one message; tool results become `tool` messages of their own, placed before
    or after the rest of the message as they were ordered in it."""
    if reuse_native(message, decode_message):
        return [message.native]
    results = [p for p in message.parts if isinstance(p, model.ToolResultPart)]
    others = [p for p in message.parts if not isinstance(p, model.ToolResultPart)]
    if results and not others:
        first = _encode_result(message, results[0])
        return [first] + [_encode_result(message.evolve(native=None), r) for r in results[1:]]
    base = message.native if isinstance(message.native, dict) else {}
    if results:  # results inside a non-tool message: written as tool messages beside it
        base = {k: v for k, v in base.items() if k != "tool_call_id"}
    calls = [p for p in others if isinstance(p, model.ToolCallPart) and p.slot != "function_call"]
    legacy = next(
        (p for p in others if isinstance(p, model.ToolCallPart) and p.slot == "function_call"), None
    )
    refusal = next(
        (
            p
            for p in others
            if isinstance(p, model.RefusalPart) and (p.slot == "refusal" or p.native is None)
        ),
        None,
    )
    audio = next((p for p in others if p.slot == "audio"), None)
    leftover = [
        p
        for p in others
        if p.slot not in _CONTENT_SLOTS | {"refusal", "tool_calls", "function_call", "audio"}
        and not (
            p.native is None
            and isinstance(
                p, model.TextPart | model.MediaPart | model.ToolCallPart | model.RefusalPart
            )
        )
    ]
    if leftover:
        raise HistnormError(f"a {leftover[0].kind} part cannot be written as OpenAI Chat")
    role = message.role if not message.role_is("tool", "function") else "assistant"
    updates: dict[str, Any] = {"role": role, "content": _encode_content(message, base)}
    name = message.author_name
    updates["name"] = name if name is not None else _null_or_missing(base, "name")
    if refusal is not None or "refusal" in base:
        updates["refusal"] = refusal.text if refusal is not None else None
    updates["audio"] = audio.native if audio is not None else _null_or_missing(base, "audio")
    updates["tool_calls"] = (
        [_encode_tool_call(c) for c in calls] if calls else _null_or_missing(base, "tool_calls")
    )
    updates["function_call"] = (
        _encode_function_call(legacy)
        if legacy is not None
        else _null_or_missing(base, "function_call")
    )
    empty = message.evolve(native=None)
    lead: list[ToolResultPart] = []
    for part in message.parts:
        if not isinstance(part, model.ToolResultPart):
            break
        lead.append(part)
    trailing = results[len(lead) :]
    return (
        [_encode_result(empty, r) for r in lead]
        + [rebuild(base, updates)]
        + [_encode_result(empty, r) for r in trailing]
    )
