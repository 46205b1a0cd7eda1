"""Bedrock Converse content blocks: decoding one block into a part and writing a part back.

Private helper of `histnorm.formats.bedrock_converse`; see that module for the shapes read.
A Converse `ContentBlock` is a union: an object with exactly one key, which names the
block (`{"text": "..."}`, `{"toolUse": {...}}`); it carries no `type`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from histnorm.errors import HistnormError, join_pointer
from histnorm.formats.anthropic.blocks import tool_input
from histnorm.formats.base import (
    MISSING,
    expect_object,
    optional_str,
    rebuild,
    required_str,
    strict_equal,
    type_name,
)
from histnorm.lazy import model
from histnorm.media import parse_data_url
from histnorm.model_terms import ToolFamily

if TYPE_CHECKING:
    from histnorm.model import MediaPart, Part, ReasoningPart, ToolCallPart, ToolResultPart

SLOT = "content[]"
"""The slot of every part: an item of a message's `content` array."""

TOOL_USE = "toolUse"
TOOL_RESULT = "toolResult"
HOSTED_CALL = "server_tool_use"
HOSTED_RESULT = "server_tool_use_result"
"""`tool_type` of a server tool's `toolUse` (`"type": "server_tool_use"`) and of a typed
`toolResult`: one pairing group."""
HANDOFF_PREFIX = "handoff_to_"
MEDIA = ("image", "document", "video", "audio")
VERBATIM = frozenset({"cachePoint"})
"""Blocks kept verbatim on purpose: a cache marker is no content."""
UNMODELLED = frozenset(
    {
        *("guardContent", "citationsContent", "searchResult"),
        *("toolAddition", "toolRemoval"),
    }
)
"""Converse blocks histnorm knows but does not model: unknown content (HN013)."""
BLOCK_KEYS = frozenset({"text", TOOL_USE, TOOL_RESULT, "reasoningContent", *MEDIA}) | (
    VERBATIM | UNMODELLED
)
"""Every key that names a Converse content block."""

_DOCUMENT_TYPES = {
    "pdf": "application/pdf",
    "csv": "text/csv",
    "html": "text/html",
    "txt": "text/plain",
    "md": "text/markdown",
    "doc": "application/msword",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "xls": "application/vnd.ms-excel",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
}


def block_kind(block: dict[str, Any]) -> str | None:
    """The key naming a block: its one key, or None for an object with none or several."""
    if len(block) != 1:
        return None
    (key,) = block
    return key if isinstance(key, str) else None


def _call(block: dict[str, Any], body: dict[str, Any], pointer: str) -> ToolCallPart:
    at = join_pointer(pointer, TOOL_USE)
    call_id = required_str(body.get("toolUseId"), join_pointer(at, "toolUseId"), "toolUseId")
    name = optional_str(body.get("name"), join_pointer(at, "name"), "the tool name")
    kind = optional_str(body.get("type"), join_pointer(at, "type"), "the toolUse type")
    family = ToolFamily.FUNCTION
    if kind is not None:
        family = ToolFamily.HOSTED
    elif name and name.startswith(HANDOFF_PREFIX):
        family = ToolFamily.HANDOFF
    return model.ToolCallPart(
        call_id=call_id,
        name=name,
        arguments=body.get("input"),
        family=family,
        tool_type=HOSTED_CALL if kind is not None else TOOL_USE,
        native=block,
        slot=SLOT,
    )


def _result(block: dict[str, Any], body: dict[str, Any], pointer: str) -> ToolResultPart:
    at = join_pointer(pointer, TOOL_RESULT)
    call_id = required_str(body.get("toolUseId"), join_pointer(at, "toolUseId"), "toolUseId")
    optional_str(body.get("status"), join_pointer(at, "status"), "the toolResult status")
    kind = optional_str(body.get("type"), join_pointer(at, "type"), "the toolResult type")
    return model.ToolResultPart(
        call_id=call_id,
        content=body.get("content"),
        is_error=body.get("status") == "error",
        family=ToolFamily.FUNCTION if kind is None else ToolFamily.HOSTED,
        tool_type=TOOL_RESULT if kind is None else HOSTED_RESULT,
        native=block,
        slot=SLOT,
    )


def _reasoning(block: dict[str, Any], body: dict[str, Any], pointer: str) -> Part:
    at = join_pointer(pointer, "reasoningContent")
    inner = body.get("reasoningText")
    if len(body) == 1 and isinstance(inner, dict):
        where = join_pointer(at, "reasoningText")
        text = optional_str(inner.get("text"), join_pointer(where, "text"), "the reasoning text")
        return model.ReasoningPart(
            text=text, opaque=inner.get("signature"), native=block, slot=SLOT
        )
    if len(body) == 1 and "redactedContent" in body:
        return model.ReasoningPart(opaque=body["redactedContent"], native=block, slot=SLOT)
    return model.UnknownPart(type="reasoningContent", native=block, slot=SLOT)


def _media_type(kind: str, fmt: Any) -> str | None:
    if not isinstance(fmt, str):
        return None
    return _DOCUMENT_TYPES.get(fmt) if kind == "document" else f"{kind}/{fmt}"


def inline_media(native: Any) -> tuple[str | None, str] | None:
    """The media type and base64 data of a Converse media block holding `bytes`, or None."""
    kind = block_kind(native) if isinstance(native, dict) else None
    body = native[kind] if kind in MEDIA else None
    source = body.get("source") if isinstance(body, dict) else None
    data = source.get("bytes") if isinstance(source, dict) else None
    if kind is None or not isinstance(body, dict) or not isinstance(data, str):
        return None
    return _media_type(kind, body.get("format")), data


def _media(block: dict[str, Any], kind: str, body: dict[str, Any]) -> MediaPart:
    media_type = _media_type(kind, body.get("format"))
    source = body.get("source")
    location = source.get("s3Location") if isinstance(source, dict) else None
    uri = location.get("uri") if isinstance(location, dict) else None
    return model.MediaPart(
        media_type=media_type,
        uri=uri if isinstance(uri, str) else None,
        native=block,
        slot=SLOT,
    )


def decode_block(item: Any, pointer: str = "") -> Part:
    """Decode one content block."""
    block = expect_object(item, pointer, "a content block")
    kind = block_kind(block)
    if kind == "text":
        text = required_str(block["text"], join_pointer(pointer, "text"), "the text")
        return model.TextPart(text=text, native=block, slot=SLOT)
    if kind in (TOOL_USE, TOOL_RESULT, "reasoningContent", *MEDIA):
        at = join_pointer(pointer, kind)
        body = expect_object(block[kind], at, f"the {kind} block")
        if kind == TOOL_USE:
            return _call(block, body, pointer)
        if kind == TOOL_RESULT:
            return _result(block, body, pointer)
        if kind == "reasoningContent":
            return _reasoning(block, body, pointer)
        return _media(block, kind, body)
    return model.UnknownPart(type=kind, native=block, slot=SLOT)


# --- encoding ---------------------------------------------------------------------------


def _body(part: Part, key: str) -> dict[str, Any]:
    native = part.native
    if isinstance(native, dict) and isinstance(native.get(key), dict) and len(native) == 1:
        return native[key]  # type: ignore[no-any-return]
    return {}


def result_content(content: Any) -> list[Any]:
    """A `toolResult.content` list for a value of histnorm's model: text as a `text`
    block, an object as a `json` block, a list (of such blocks) as it is."""
    if isinstance(content, list):
        return content
    if content is None:
        return []
    if isinstance(content, str):
        return [{"text": content}]
    return [{"json": content}]


def _own_family(part: ToolCallPart | ToolResultPart, base: dict[str, Any]) -> None:
    """Raise for a new server-side or MCP call or result: Converse has a place for a
    server tool's `toolUse` read from it, but none histnorm can fill for one read
    elsewhere (the shape of its result is the provider's)."""
    if not base and part.family in (ToolFamily.HOSTED, ToolFamily.MCP):
        raise HistnormError(
            f"a new {part.family.value} tool {part.kind.removeprefix('tool_')} cannot be "
            "written as Bedrock Converse (server-side and MCP tools are written only as read)"
        )


def _encode_call(part: ToolCallPart) -> dict[str, Any]:
    base = _body(part, TOOL_USE)
    _own_family(part, base)
    same_input = "input" in base and strict_equal(part.arguments, base["input"])
    updates: dict[str, Any] = {
        "toolUseId": part.call_id or "",
        "name": part.name if part.name is not None else base.get("name", ""),
        "input": base["input"] if same_input else tool_input(part.arguments),
    }
    return {TOOL_USE: rebuild(base, updates)}


def _encode_result(part: ToolResultPart) -> dict[str, Any]:
    base = _body(part, TOOL_RESULT)
    _own_family(part, base)
    old = base.get("content", MISSING)
    same = old is not MISSING and strict_equal(part.content, old)
    updates: dict[str, Any] = {
        "toolUseId": part.call_id or "",
        "content": old if same else result_content(part.content),
    }
    status = base.get("status", MISSING)
    if part.is_error:
        updates["status"] = "error"
    elif status == "error":
        updates["status"] = "success"
    return {TOOL_RESULT: rebuild(base, updates)}


def _encode_reasoning(part: ReasoningPart) -> dict[str, Any]:
    base = _body(part, "reasoningContent")
    if "redactedContent" in base or (not base and part.text is None):
        return {"reasoningContent": {"redactedContent": part.opaque}}
    text = base.get("reasoningText")
    inner: dict[str, Any] = text if isinstance(text, dict) else {}
    updates: dict[str, Any] = {"text": part.text or ""}
    if part.opaque is not None:
        updates["signature"] = part.opaque
    elif "signature" in inner:
        updates["signature"] = MISSING
    return {"reasoningContent": rebuild(base, {"reasoningText": rebuild(inner, updates)})}


def _new_media(part: MediaPart) -> dict[str, Any]:
    """An `image` or `document` block for a new media part from a `data:` URL."""
    parsed = parse_data_url(part.uri) if part.uri else None
    if parsed is None:
        raise HistnormError(
            "a media part without inline data cannot be written as Bedrock Converse "
            "(it takes bytes or an s3Location)"
        )
    media_type = (part.media_type or parsed[0] or "").casefold()
    major, _, minor = media_type.partition("/")
    data = part.uri.partition(";base64,")[2] if part.uri else ""
    if major == "image" and minor in ("png", "jpeg", "gif", "webp"):
        return {"image": {"format": minor, "source": {"bytes": data}}}
    formats = {value: key for key, value in _DOCUMENT_TYPES.items()}
    if media_type in formats:
        body = {"format": formats[media_type], "name": "document", "source": {"bytes": data}}
        return {"document": body}
    raise HistnormError(f"a {media_type or 'untyped'} media part cannot be written as Converse")


def encode_block(part: Part) -> Any:
    """Write one part as a content block (the part changed or is new)."""
    if isinstance(part, model.TextPart):
        return {"text": part.text}
    if isinstance(part, model.ToolCallPart):
        return _encode_call(part)
    if isinstance(part, model.ToolResultPart):
        return _encode_result(part)
    if isinstance(part, model.ReasoningPart):
        return _encode_reasoning(part)
    if isinstance(part, model.MediaPart):
        return part.native if part.native is not None else _new_media(part)
    if part.native is not None:
        return part.native
    raise HistnormError(f"a {part.kind} part cannot be written as Bedrock Converse content")


def content_error(content: Any, pointer: str) -> HistnormError:
    """The error for a message `content` that is no array of blocks."""
    return HistnormError(
        f"expected content to be an array of content blocks, got {type_name(content)}",
        pointer=pointer,
    )
