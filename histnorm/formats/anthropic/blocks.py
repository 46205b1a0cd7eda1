"""Anthropic content blocks: decoding one block into a part and writing a part as a block.

Private helper of `histnorm.formats.anthropic`; see that module for the shapes read.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import orjson

from histnorm.errors import HistnormError
from histnorm.formats.base import (
    MISSING,
    expect_object,
    optional_key,
    rebuild,
    required_key,
    strict_equal,
)
from histnorm.lazy import model
from histnorm.model_terms import ToolFamily

if TYPE_CHECKING:
    from histnorm.model import MediaPart, Message, Part, ToolCallPart, ToolResultPart

BLOCK_SLOT = "content[]"
"""The slot of a part read from an item of an array `content`."""

HANDOFF_PREFIX = "handoff_to_"
HOSTED_CALL = "server_tool_use"
HOSTED_RESULT = "server_tool_use_result"
"""`tool_type` of server tool calls and of their `*_tool_result` blocks: one pairing group."""

_CALLS = {"tool_use": ToolFamily.FUNCTION, HOSTED_CALL: ToolFamily.HOSTED}
_CALLS["mcp_tool_use"] = ToolFamily.MCP
_RESULTS = {"tool_result": ToolFamily.FUNCTION, "mcp_tool_result": ToolFamily.MCP}
_RESULT_SUFFIX = "_tool_result"
_MEDIA = {"image", "document", "search_result"}


def hosted_result_type(kind: object) -> bool:
    """Whether `kind` names a server tool's result block (`web_search_tool_result`, ...)."""
    return isinstance(kind, str) and kind.endswith(_RESULT_SUFFIX) and kind not in _RESULTS


def _call(block: dict[str, Any], kind: str, pointer: str) -> ToolCallPart:
    call_id = required_key(block, "id", pointer, f"the {kind} id")
    name = optional_key(block, "name", pointer, "the tool name")
    family = _CALLS[kind]
    if family is ToolFamily.FUNCTION and name and name.startswith(HANDOFF_PREFIX):
        family = ToolFamily.HANDOFF
    return model.ToolCallPart(
        call_id=call_id,
        name=name,
        arguments=block.get("input"),
        family=family,
        tool_type=kind,
        native=block,
        slot=BLOCK_SLOT,
    )


def _result(block: dict[str, Any], kind: str, pointer: str) -> ToolResultPart:
    call_id = required_key(block, "tool_use_id", pointer, "tool_use_id")
    content = block.get("content")
    if kind in _RESULTS:
        family, tool_type, name = _RESULTS[kind], kind, None
        is_error = block.get("is_error") is True
    else:
        family, tool_type, name = ToolFamily.HOSTED, HOSTED_RESULT, kind[: -len(_RESULT_SUFFIX)]
        error_type = content.get("type") if isinstance(content, dict) else None
        is_error = isinstance(error_type, str) and error_type.endswith("_error")
    return model.ToolResultPart(
        call_id=call_id,
        name=name,
        content=content,
        is_error=is_error,
        family=family,
        tool_type=tool_type,
        native=block,
        slot=BLOCK_SLOT,
    )


def _media(block: dict[str, Any], kind: str) -> MediaPart:
    source = block.get("source")
    if kind == "search_result":
        uri, media_type = source, None
    elif isinstance(source, dict):
        uri = source.get("url")
        media_type = source.get("media_type")
        if media_type is None and source.get("type") == "text":
            media_type = "text/plain"
    else:
        uri = media_type = None
    return model.MediaPart(
        media_type=media_type if isinstance(media_type, str) else None,
        uri=uri if isinstance(uri, str) else None,
        native=block,
        slot=BLOCK_SLOT,
    )


def decode_block(item: Any, pointer: str = "") -> Part:
    """Decode one content block."""
    block = expect_object(item, pointer, "a content block")
    kind = optional_key(block, "type", pointer, "the block type")
    if kind == "text":
        text = required_key(block, "text", pointer, "the text")
        return model.TextPart(text=text, native=block, slot=BLOCK_SLOT)
    if kind == "thinking":
        thought = optional_key(block, "thinking", pointer, "the thinking text")
        return model.ReasoningPart(
            text=thought, opaque=block.get("signature"), native=block, slot=BLOCK_SLOT
        )
    if kind == "redacted_thinking":
        return model.ReasoningPart(opaque=block.get("data"), native=block, slot=BLOCK_SLOT)
    if kind in _CALLS:
        return _call(block, kind, pointer)
    if kind is not None and (kind in _RESULTS or hosted_result_type(kind)):
        return _result(block, kind, pointer)
    if kind is not None and kind in _MEDIA:
        return _media(block, kind)
    return model.UnknownPart(type=kind, native=block, slot=BLOCK_SLOT)


# --- encoding ---------------------------------------------------------------------------


def _kept(base: dict[str, Any], key: str) -> Any:
    """Keep a key the input had as null; otherwise leave it out."""
    return None if key in base and base[key] is None else MISSING


def tool_input(arguments: Any) -> dict[str, Any]:
    """Anthropic `input` is an object: a JSON-encoded object string is parsed, else `{}`."""
    if isinstance(arguments, str):
        try:
            arguments = orjson.loads(arguments)
        except orjson.JSONDecodeError:
            return {}
    return arguments if isinstance(arguments, dict) else {}


def _encode_call(part: ToolCallPart, base: dict[str, Any]) -> dict[str, Any]:
    kind = base.get("type")
    if kind not in _CALLS:
        kind = {ToolFamily.HOSTED: HOSTED_CALL, ToolFamily.MCP: "mcp_tool_use"}.get(
            part.family, "tool_use"
        )
    same_input = "input" in base and strict_equal(part.arguments, base["input"])
    updates: dict[str, Any] = {
        "type": kind,
        "id": part.call_id or "",
        "name": part.name if part.name is not None else _kept(base, "name"),
        "input": base["input"] if same_input else tool_input(part.arguments),
    }
    return rebuild(base, updates)


def _encode_result(part: ToolResultPart, base: dict[str, Any]) -> dict[str, Any]:
    kind = base.get("type")
    if not (kind in _RESULTS or hosted_result_type(kind)):
        if part.family is ToolFamily.MCP:
            kind = "mcp_tool_result"
        elif part.family is not ToolFamily.HOSTED:
            kind = "tool_result"
        elif part.name:
            kind = part.name + _RESULT_SUFFIX
        else:
            raise HistnormError(
                "a hosted tool_result part without its tool name cannot be written as Anthropic"
            )
    updates: dict[str, Any] = {
        "type": kind,
        "tool_use_id": part.call_id or "",
        "content": part.content if part.content is not None else _kept(base, "content"),
    }
    if kind in _RESULTS:
        old = base.get("is_error", MISSING)
        updates["is_error"] = True if part.is_error else (MISSING if old is True else old)
    return rebuild(base, updates)


def _encode_media(part: MediaPart, base: dict[str, Any]) -> dict[str, Any]:
    kind = base.get("type")
    source = base.get("source")
    if kind == "search_result":
        return rebuild(base, {"source": part.uri if part.uri is not None else source})
    if kind in _MEDIA and isinstance(source, dict):
        updates: dict[str, Any] = {}
        if "url" in source or (part.uri is not None and source.get("type") == "url"):
            updates["url"] = part.uri if part.uri is not None else MISSING
        if "media_type" in source or part.media_type is not None:
            updates["media_type"] = part.media_type if part.media_type is not None else MISSING
        return rebuild(base, {"source": rebuild(source, updates)})
    if base:
        return base
    return new_media_block(part, "Anthropic")


def new_media_block(part: MediaPart, where: str) -> dict[str, Any]:
    """A new `image` or `document` block (PDF, plain text) for a media part: a `base64`
    source from a data URL (a `text` source for plain text), else a `url` source."""
    document = part.media_type in ("application/pdf", "text/plain")
    block_type = "document" if document else "image"
    uri = part.uri or ""
    if uri.startswith("data:") and ";base64," in uri:
        head, _, data = uri[5:].partition(";base64,")
        media_type = part.media_type or head
        new_source: dict[str, Any] = {"type": "base64", "media_type": media_type, "data": data}
        if media_type == "text/plain":  # plain-text documents carry their text, not base64
            try:
                text = base64.b64decode(data, validate=True).decode("utf-8")
            except (ValueError, UnicodeDecodeError):
                text = None
            if text is not None:
                new_source = {"type": "text", "media_type": media_type, "data": text}
    elif uri:
        new_source = {"type": "url", "url": uri}
    else:
        raise HistnormError(f"a media part without a URI cannot be written as {where}")
    return {"type": block_type, "source": new_source}


def encode_block(part: Part) -> Any:
    """Write one part as a content block (the part changed or is new)."""
    base: dict[str, Any] = part.native if isinstance(part.native, dict) else {}
    if isinstance(part, model.TextPart):
        return rebuild(base, {"type": "text", "text": part.text})
    if isinstance(part, model.ReasoningPart):
        if base.get("type") == "redacted_thinking" or (not base and part.text is None):
            return rebuild(base, {"type": "redacted_thinking", "data": part.opaque})
        signature = part.opaque if part.opaque is not None else _kept(base, "signature")
        return rebuild(
            base, {"type": "thinking", "thinking": part.text or "", "signature": signature}
        )
    if isinstance(part, model.ToolCallPart):
        return _encode_call(part, base)
    if isinstance(part, model.ToolResultPart):
        return _encode_result(part, base)
    if isinstance(part, model.MediaPart):
        return _encode_media(part, base)
    if part.native is not None:
        return part.native
    raise HistnormError(f"a {part.kind} part cannot be written as Anthropic content")


def name_hosted_results(messages: Sequence[Message]) -> list[Message]:
    """Give each new server-tool result without a name the name of its call, so that its
    block type (`<name>_tool_result`) is known (`tool_search_tool_*` answer `tool_search`)."""
    names: dict[str | None, str] = {}
    out = []
    for message in messages:
        parts = list(message.parts)
        for index, part in enumerate(parts):
            if getattr(part, "family", None) is not ToolFamily.HOSTED:
                continue
            if isinstance(part, model.ToolCallPart) and part.name:
                names[part.call_id] = part.name
            elif isinstance(part, model.ToolResultPart) and part.native is None and not part.name:
                name = names.get(part.call_id)
                if name is not None:
                    stem = "tool_search" if name.startswith("tool_search_tool_") else name
                    parts[index] = part.evolve(name=stem)
        changed = any(a is not b for a, b in zip(parts, message.parts, strict=True))
        out.append(message.evolve(parts=tuple(parts)) if changed else message)
    return out
