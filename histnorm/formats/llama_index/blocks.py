"""LlamaIndex message content: reading and writing one `blocks` item, one OpenAI-style
tool call of `additional_kwargs.tool_calls`, and a tool message's result.

Private helper of `histnorm.formats.llama_index`; see that module for the shapes read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from histnorm.errors import HistnormError, join_pointer
from histnorm.formats.base import expect_object, optional_str, rebuild, reuse_native, strict_equal
from histnorm.lazy import model
from histnorm.media import parse_data_url

if TYPE_CHECKING:
    from histnorm.model import Part, ToolResultPart

BLOCKS = "blocks"
"""The slot of a part read from an item of `blocks`."""
TOOL_CALLS = "tool_calls"
"""The slot of a call read from `additional_kwargs.tool_calls`."""
RESULT = "tool"
"""The slot of the result a `tool` message holds (its whole `blocks`)."""

MEDIA = {
    "image": "image_mimetype",
    "audio": "format",
    "video": "video_mimetype",
    "document": "document_mimetype",
}
"""Media block types, each with the key holding its media type."""
DATA = {"image": "image", "audio": "audio", "video": "video", "document": "data"}
"""Media block types, each with the key holding its inline (base64) data."""
VERBATIM = frozenset({"cache", "citable", "citation"})
"""Block types kept verbatim on purpose: a cache point, cited or citable content."""


def decode_block(item: Any, pointer: str) -> Part:
    """Decode one item of `blocks`."""
    block = expect_object(item, pointer, "a content block")
    kind = optional_str(block.get("block_type"), join_pointer(pointer, "block_type"), "block_type")
    if kind == "text" and isinstance(block.get("text"), str):
        return model.TextPart(text=block["text"], native=block, slot=BLOCKS)
    if kind == "thinking":
        text = optional_str(block.get("content"), join_pointer(pointer, "content"), "thinking")
        opaque = block.get("additional_information") or None
        return model.ReasoningPart(text=text, opaque=opaque, native=block, slot=BLOCKS)
    if kind == "tool_call":
        at = join_pointer(pointer, "tool_call_id")
        return model.ToolCallPart(
            call_id=optional_str(block.get("tool_call_id"), at, "the tool_call_id"),
            name=optional_str(block.get("tool_name"), join_pointer(pointer, "tool_name"), "name"),
            arguments=block.get("tool_kwargs"),
            tool_type="tool_call",
            native=block,
            slot=BLOCKS,
        )
    if kind in MEDIA:
        media_type = _media_type(kind, block.get(MEDIA[kind]))
        url, data = block.get("url"), block.get(DATA[kind])
        if not isinstance(url, str):
            url = f"data:{media_type};base64,{data}" if isinstance(data, str) and data else None
        return model.MediaPart(media_type=media_type, uri=url, native=block, slot=BLOCKS)
    return model.UnknownPart(type=kind, native=block, slot=BLOCKS)


def decode_tool_call(item: Any, pointer: str) -> Part:
    """Decode one item of `additional_kwargs.tool_calls`: an OpenAI tool call (as
    llama-index-llms-openai stores them); any other shape is kept as unknown content."""
    if not isinstance(item, dict) or not isinstance(item.get("function"), dict):
        kind = item.get("type") if isinstance(item, dict) else None
        return model.UnknownPart(
            type=kind if isinstance(kind, str) else None, native=item, slot=TOOL_CALLS
        )
    body = item["function"]
    return model.ToolCallPart(
        call_id=optional_str(item.get("id"), join_pointer(pointer, "id"), "the tool call id"),
        name=optional_str(body.get("name"), join_pointer(pointer, "function", "name"), "name"),
        arguments=body.get("arguments"),
        tool_type="function",
        native=item,
        slot=TOOL_CALLS,
    )


def _media_type(kind: str, value: Any) -> str:
    """A media block's media type: its own (an audio `format` is a subtype), else its kind."""
    if not isinstance(value, str) or not value:
        return kind
    return f"audio/{value}" if kind == "audio" and "/" not in value else value


def result_content(blocks: list[Any]) -> Any:
    """What a tool message's result holds: its text when every block is a text block
    (joined as `ChatMessage.content` joins them), else the blocks themselves."""
    if blocks and all(
        isinstance(b, dict) and b.get("block_type") == "text" and isinstance(b.get("text"), str)
        for b in blocks
    ):
        return "\n".join(b["text"] for b in blocks)
    return blocks


# --- encoding ---------------------------------------------------------------------------


def _read_block(item: Any) -> Part:
    return decode_block(item, "")


def _read_call(item: Any) -> Part:
    return decode_tool_call(item, "")


def encode_block(part: Part) -> Any:
    """One item of `blocks` for `part`; an unchanged part gives back its very native object."""
    if reuse_native(part, _read_block):
        return part.native
    base: dict[str, Any] = part.native if isinstance(part.native, dict) else {}
    if isinstance(part, model.TextPart):
        if base.get("block_type") == "text" and base.get("text") == part.text:
            return part.native
        return rebuild(base if base.get("block_type") == "text" else {}, _text(part.text))
    if isinstance(part, model.ReasoningPart):
        if base.get("block_type") != "thinking":
            base = {"block_type": "thinking"}
        if base.get("content") == part.text:
            return part.native if part.native is not None else base
        return rebuild(base, {"content": part.text})
    if isinstance(part, model.ToolCallPart):
        if base.get("block_type") != "tool_call":
            base = {"block_type": "tool_call"}
        same = "tool_kwargs" in base and strict_equal(part.arguments, base["tool_kwargs"])
        updates = {
            "tool_call_id": part.call_id,
            "tool_name": part.name if part.name is not None else "",
            "tool_kwargs": base["tool_kwargs"] if same else _kwargs(part.arguments),
        }
        return rebuild(base, updates)
    if isinstance(part, model.UnknownPart | model.MediaPart) and part.native is not None:
        return part.native
    if isinstance(part, model.MediaPart) and part.uri is not None:
        return _media_block(part.media_type or "", part.uri)
    raise HistnormError(f"a {part.kind} part cannot be written as a LlamaIndex content block")


def _media_block(media_type: str, uri: str) -> dict[str, Any]:
    """A new media block as `model_dump()` writes one: inline data for a `data:` URL."""
    inline = parse_data_url(uri)
    if inline is not None:
        media_type = media_type or inline[0]
    data, url = (inline[1], None) if inline is not None else (None, uri)
    major, _, minor = media_type.partition("/")
    if major == "image":
        return {"block_type": "image", "image": data, "path": None, "url": url} | {
            "image_mimetype": media_type,
            "detail": None,
        }
    if major == "audio":
        return {"block_type": "audio", "audio": data, "path": None, "url": url, "format": minor}
    if major == "video":
        return {"block_type": "video", "video": data, "path": None, "url": url} | {
            "video_mimetype": media_type,
            "detail": None,
            "fps": None,
        }
    return {"block_type": "document", "data": data, "path": None, "url": url} | {
        "title": "input_document",
        "document_mimetype": media_type or None,
    }


def _text(text: str) -> dict[str, Any]:
    return {"block_type": "text", "text": text}


def _kwargs(arguments: Any) -> Any:
    """`tool_kwargs` for new arguments: an object or a string (LlamaIndex takes both)."""
    if arguments is None:
        return {}
    if isinstance(arguments, dict | str):
        return arguments
    raise HistnormError("tool arguments other than an object or a string cannot be written")


def encode_tool_call(part: Part) -> Any:
    """One item of `additional_kwargs.tool_calls`; an unchanged call is its native object."""
    if reuse_native(part, _read_call):
        return part.native
    if isinstance(part, model.UnknownPart) and part.native is not None:
        return part.native
    if not isinstance(part, model.ToolCallPart) or not isinstance(part.native, dict):
        raise HistnormError(f"a {part.kind} part cannot be written as a LlamaIndex tool call")
    base = part.native
    body = base["function"]
    same = "arguments" in body and strict_equal(part.arguments, body["arguments"])
    function = rebuild(
        body, {"name": part.name, "arguments": body["arguments"] if same else part.arguments}
    )
    if function == body and strict_equal(function, body):
        function = body
    return rebuild(base, {"id": part.call_id, "function": function})


def encode_result(part: ToolResultPart, blocks: Any) -> list[Any]:
    """The `blocks` of a tool message for its result: the blocks it was read from while
    its content is what they hold, else new blocks (text for a string)."""
    if isinstance(blocks, list) and strict_equal(result_content(blocks), part.content):
        return blocks
    content = part.content
    if isinstance(content, str):
        return [_text(content)]
    if isinstance(content, list) and all(
        isinstance(b, dict) and isinstance(b.get("block_type"), str) for b in content
    ):
        return content
    if content is None:
        return []
    raise HistnormError("a tool result other than text or content blocks cannot be written")


__all__ = [
    "BLOCKS",
    "MEDIA",
    "RESULT",
    "TOOL_CALLS",
    "VERBATIM",
    "decode_block",
    "decode_tool_call",
    "encode_block",
    "encode_result",
    "encode_tool_call",
    "result_content",
]
