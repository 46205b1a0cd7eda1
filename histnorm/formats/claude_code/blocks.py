"""Anthropic content blocks of Claude Code lines: the parts they map to, and back.

Every part's slot names the line and block it came from: `<uuid>/content/<k>` for block
`k` of the line's `message.content` array, `<uuid>/content` for string content. This
module reads blocks (`decode_block`, `decode_content`) and holds the slot helpers and the
block-type tables; writing parts back as blocks, line contents and new lines is in
`histnorm.formats.claude_code.block_encode`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from histnorm.errors import HistnormError
from histnorm.formats.base import optional_key, required_key, type_name
from histnorm.lazy import model
from histnorm.model_terms import ToolFamily

if TYPE_CHECKING:
    from histnorm.model import Part

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
        return model.UnknownPart(native=block, slot=slot)
    kind = block.get("type")
    if not isinstance(kind, str):
        return model.UnknownPart(native=block, slot=slot)
    if kind == "text" and isinstance(block.get("text"), str):
        return model.TextPart(text=block["text"], native=block, slot=slot)
    if kind == "thinking" and isinstance(block.get("thinking"), str):
        return model.ReasoningPart(
            text=block["thinking"], opaque=block.get("signature"), native=block, slot=slot
        )
    if kind == "redacted_thinking":
        return model.ReasoningPart(opaque=block.get("data"), native=block, slot=slot)
    if kind in _CALLS or kind == HOSTED_CALL:
        call_id = required_key(block, "id", pointer, "the tool_use id")
        name = optional_key(block, "name", pointer, "the tool name")
        family = _CALLS.get(kind, ToolFamily.HOSTED)
        return model.ToolCallPart(
            call_id=call_id,
            name=name,
            arguments=block.get("input"),
            family=_family(name) if family is ToolFamily.FUNCTION else family,
            tool_type=HOSTED_CALL if family is ToolFamily.HOSTED else kind,
            native=block,
            slot=slot,
        )
    if kind in ("tool_result", "mcp_tool_result") or _is_hosted_result(kind):
        call_id = required_key(block, "tool_use_id", pointer, "tool_use_id")
        content = block.get("content")
        error = block.get("is_error") is True
        if kind not in _RESULTS:  # a server tool reports errors as `*_error` content
            found = content.get("type") if isinstance(content, dict) else None
            error = isinstance(found, str) and found.endswith("_error")
        return model.ToolResultPart(
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
        return model.MediaPart(
            media_type=media_type if isinstance(media_type, str) else None,
            uri=url if isinstance(url, str) else None,
            native=block,
            slot=slot,
        )
    return model.UnknownPart(type=kind, native=block, slot=slot)


def decode_content(content: Any, uuid: str, pointer: str) -> list[Part]:
    """The parts of a line's `message.content` (`pointer` is the content's pointer)."""
    if content is None:
        return []
    if isinstance(content, str):
        return [model.TextPart(text=content, native=content, slot=slot_for(uuid, None))]
    if isinstance(content, list):
        return [
            decode_block(block, slot_for(uuid, k), f"{pointer}/{k}")
            for k, block in enumerate(content)
        ]
    raise HistnormError(
        "expected content to be a string, an array of content blocks or null, "
        f"got {type_name(content)}",
        pointer=pointer,
    )
