"""Anthropic content blocks of Claude Code lines: the parts they map to, and back.

Every part's slot names the line and block it came from: `<uuid>/content/<k>` for block
`k` of the line's `message.content` array, `<uuid>/content` for string content.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson

from histnorm.errors import HistnormError, join_pointer
from histnorm.formats.base import (
    MISSING,
    optional_str,
    rebuild,
    required_str,
    reuse_native,
    type_name,
)
from histnorm.model import (
    MediaPart,
    Message,
    Part,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolFamily,
    ToolResultPart,
    UnknownPart,
)

HANDOFF_PREFIX = "handoff_to_"
HOSTED_CALL = "server_tool_use"
HOSTED_RESULT = "server_tool_use_result"
"""`tool_type` of server tool calls and of their `*_tool_result` blocks: one pairing group
(as the `anthropic` codec has it; a hosted result's `name` is its type without the suffix)."""
RESULT_SUFFIX = "_tool_result"
_CALLS = {"tool_use": ToolFamily.FUNCTION, "mcp_tool_use": ToolFamily.MCP}
_RESULTS = {"tool_result": ToolFamily.FUNCTION, "mcp_tool_result": ToolFamily.MCP}
_MEDIA = {"image", "document"}
_STRING = "/content"
_BLOCK = "/content/"


def slot_for(uuid: str, index: int | None) -> str:
    """The slot of block `index` of line `uuid` (None: the line's string content)."""
    return uuid + (_STRING if index is None else f"{_BLOCK}{index}")


def parse_slot(slot: str | None) -> tuple[str, int | None] | None:
    """(uuid, block index or None for string content) of a slot, or None if not ours."""
    if slot is None:
        return None
    if slot.endswith(_STRING):
        return slot[: -len(_STRING)], None
    head, sep, tail = slot.rpartition(_BLOCK)
    if sep and tail.isdigit():
        return head, int(tail)
    return None


def _family(name: str | None) -> ToolFamily:
    return ToolFamily.HANDOFF if name and name.startswith(HANDOFF_PREFIX) else ToolFamily.FUNCTION


def _is_hosted_result(kind: str) -> bool:
    return kind.endswith(RESULT_SUFFIX) and kind != "mcp_tool_result"


def decode_block(block: Any, slot: str | None, pointer: str = "") -> Part:
    """Decode one content block (`pointer` locates it for errors)."""
    if not isinstance(block, dict):
        return UnknownPart(native=block, slot=slot)
    kind = block.get("type")
    if not isinstance(kind, str):
        return UnknownPart(native=block, slot=slot)
    if kind == "text" and isinstance(block.get("text"), str):
        return TextPart(text=block["text"], native=block, slot=slot)
    if kind == "thinking" and isinstance(block.get("thinking"), str):
        return ReasoningPart(
            text=block["thinking"], opaque=block.get("signature"), native=block, slot=slot
        )
    if kind == "redacted_thinking":
        return ReasoningPart(opaque=block.get("data"), native=block, slot=slot)
    if kind in _CALLS or kind == HOSTED_CALL:
        call_id = required_str(block.get("id"), join_pointer(pointer, "id"), "the tool_use id")
        name = optional_str(block.get("name"), join_pointer(pointer, "name"), "the tool name")
        family = _CALLS.get(kind, ToolFamily.HOSTED)
        return ToolCallPart(
            call_id=call_id,
            name=name,
            arguments=block.get("input"),
            family=_family(name) if family is ToolFamily.FUNCTION else family,
            tool_type=HOSTED_CALL if family is ToolFamily.HOSTED else kind,
            native=block,
            slot=slot,
        )
    if kind in ("tool_result", "mcp_tool_result") or _is_hosted_result(kind):
        call_id = required_str(
            block.get("tool_use_id"), join_pointer(pointer, "tool_use_id"), "tool_use_id"
        )
        content = block.get("content")
        error = block.get("is_error") is True
        if kind not in _RESULTS:  # a server tool reports errors as `*_error` content
            found = content.get("type") if isinstance(content, dict) else None
            error = isinstance(found, str) and found.endswith("_error")
        return ToolResultPart(
            call_id=call_id,
            name=None if kind in _RESULTS else kind[: -len(RESULT_SUFFIX)],
            content=content,
            is_error=error,
            family=_RESULTS.get(kind, ToolFamily.HOSTED),
            tool_type=kind if kind in _RESULTS else HOSTED_RESULT,
            native=block,
            slot=slot,
        )
    if kind in _MEDIA:
        source = block.get("source")
        source = source if isinstance(source, dict) else {}
        media_type, url = source.get("media_type"), source.get("url")
        return MediaPart(
            media_type=media_type if isinstance(media_type, str) else None,
            uri=url if isinstance(url, str) else None,
            native=block,
            slot=slot,
        )
    return UnknownPart(type=kind, native=block, slot=slot)


def decode_content(content: Any, uuid: str, pointer: str) -> list[Part]:
    """The parts of a line's `message.content` (`pointer` is the content's pointer)."""
    if content is None:
        return []
    if isinstance(content, str):
        return [TextPart(text=content, native=content, slot=slot_for(uuid, None))]
    if isinstance(content, list):
        return [
            decode_block(block, slot_for(uuid, k), join_pointer(pointer, k))
            for k, block in enumerate(content)
        ]
    raise HistnormError(
        "expected content to be a string, an array of content blocks or null, "
        f"got {type_name(content)}",
        pointer=pointer,
    )


def _input(arguments: Any) -> Any:
    """`input` for a new tool_use block: an object; a JSON object string is parsed."""
    if arguments is None:
        return {}
    if isinstance(arguments, str):
        try:
            parsed = orjson.loads(arguments)
        except orjson.JSONDecodeError:
            return arguments
        return parsed if isinstance(parsed, dict) else arguments
    return arguments


def _kept(base: dict[str, Any], key: str, value: Any) -> Any:
    """`value`, or MISSING when it is None and `base` never had the key."""
    return MISSING if value is None and key not in base else value


def encode_block(part: Part) -> Any:
    """Encode one part as a content block (unchanged parts give back their native block)."""
    if reuse_native(part, lambda native: decode_block(native, part.slot)):
        return part.native
    base = part.native if isinstance(part.native, dict) else {}
    kind = base.get("type")
    if isinstance(part, TextPart):
        return rebuild(base, {"type": "text", "text": part.text})
    if isinstance(part, ReasoningPart):
        if kind == "redacted_thinking" or (not base and part.text is None):
            return rebuild(base, {"type": "redacted_thinking", "data": part.opaque})
        updates = {"type": "thinking", "thinking": part.text or ""}
        return rebuild(base, {**updates, "signature": _kept(base, "signature", part.opaque)})
    if isinstance(part, ToolCallPart):
        if not isinstance(kind, str):
            kind = {ToolFamily.HOSTED: "server_tool_use", ToolFamily.MCP: "mcp_tool_use"}.get(
                part.family, "tool_use"
            )
        arguments = _kept(base, "input", part.arguments) if base else _input(part.arguments)
        values = {"id": part.call_id or "", "name": _kept(base, "name", part.name)}
        return rebuild(base, {"type": kind, **values, "input": arguments})
    if isinstance(part, ToolResultPart):
        if not isinstance(kind, str):
            kind = _result_type(part)
        values = {
            "tool_use_id": part.call_id or "",
            "content": _kept(base, "content", part.content),
        }
        if kind in _RESULTS and (part.is_error or "is_error" in base):
            values["is_error"] = part.is_error
        return rebuild(base, {"type": kind, **values})
    if isinstance(part, MediaPart) and (base or part.uri is not None):
        return _encode_media(part, base)
    if part.native is not None:
        return part.native
    raise HistnormError(f"a {part.kind} part cannot be written as a Claude Code content block")


def _result_type(part: ToolResultPart) -> str:
    if part.family is ToolFamily.MCP:
        return "mcp_tool_result"
    if part.family is not ToolFamily.HOSTED:
        return "tool_result"
    if part.name:
        return part.name + RESULT_SUFFIX
    raise HistnormError(
        "a hosted tool_result part without its tool name cannot be written as a Claude Code "
        "content block"
    )


def _encode_media(part: MediaPart, base: dict[str, Any]) -> dict[str, Any]:
    found = base.get("source")
    source: dict[str, Any] = found if isinstance(found, dict) else {}
    uri = part.uri
    if base:
        updates: dict[str, Any] = {}
        if "url" in source or uri is not None:
            updates["url"] = uri
        if "media_type" in source or part.media_type is not None:
            updates["media_type"] = part.media_type
        return rebuild(base, {"source": rebuild(source, updates)})
    assert uri is not None
    if uri.startswith("data:") and ";base64," in uri:
        head, _, data = uri[5:].partition(";base64,")
        media_type = part.media_type or head
        return {
            "type": "image",
            "source": {"type": "base64", "media_type": media_type, "data": data},
        }
    return {"type": "image", "source": {"type": "url", "url": uri}}


def role_type(role: str) -> str:
    """The line `type` a message role is written as; raise for roles a session cannot hold."""
    folded = role.casefold()
    if folded == "assistant":
        return "assistant"
    if folded in ("user", "tool", "function"):
        return "user"
    raise HistnormError(f"a {role} message cannot be written as a Claude Code session line")


def encode_content(parts: list[Part], original: Any) -> Any:
    """A line's `message.content` for `parts`: a string when it was one (or the line is a
    new single-text user line), else an array of blocks."""
    if len(parts) == 1 and isinstance(parts[0], TextPart):
        parsed = parse_slot(parts[0].slot)
        if (parsed is not None and parsed[1] is None) or (
            parts[0].native is None and isinstance(original, str)
        ):
            return parts[0].text
    return [encode_block(p) for p in parts]


def new_line(
    kind: str,
    message_id: str | None,
    parts: list[Part],
    uuid: str,
    parent: str | None,
    session_id: str,
) -> dict[str, Any]:
    """A new session line of `kind` (user or assistant) holding `parts`."""
    body: dict[str, Any] = {}
    if kind == "assistant" and message_id is not None:
        body["id"] = message_id
    body["role"] = kind
    body["content"] = encode_content(parts, "" if kind == "user" else None)
    return {
        "type": kind,
        "uuid": uuid,
        "parentUuid": parent,
        "sessionId": session_id,
        "message": body,
    }


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
            if isinstance(part, ToolCallPart) and part.name:
                names[part.call_id] = part.name
            elif isinstance(part, ToolResultPart) and part.native is None and not part.name:
                name = names.get(part.call_id)
                if name is not None:
                    stem = "tool_search" if name.startswith("tool_search_tool_") else name
                    parts[index] = part.evolve(name=stem)
        changed = any(a is not b for a, b in zip(parts, message.parts, strict=True))
        out.append(message.evolve(parts=tuple(parts)) if changed else message)
    return out
