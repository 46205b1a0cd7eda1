"""Semantic Kernel message items, for `histnorm.formats.semantic_kernel`.

An item is a `KernelContent` dump: an object with a `content_type` and, in the order
pydantic writes the fields, `ai_model_id` and `metadata` first (every item has a
`metadata` object). `text` → text, `reasoning` → reasoning, `function_call` → tool call,
`function_result` → its result; every other type (`image`, `audio`, `binary`,
`file_reference`, `annotation`, the streaming ones, anything newer) is an unknown part,
kept verbatim. Each item decodes standalone, so `reuse_native` can check a part against
its own native value.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from histnorm.errors import HistnormError, join_pointer
from histnorm.formats.base import (
    expect_object,
    optional_str,
    rebuild,
    required_str,
    reuse_native,
)
from histnorm.lazy import model
from histnorm.model_terms import ToolFamily

if TYPE_CHECKING:
    from histnorm.model import Part, ToolCallPart, ToolResultPart

SLOT = "items"
SEPARATOR = "-"
"""What Semantic Kernel puts between a plugin name and a function name in `name`
(`DEFAULT_FULLY_QUALIFIED_NAME_SEPARATOR`)."""
CALL, RESULT = "function_call", "function_result"
_WRITABLE_FAMILIES = (ToolFamily.FUNCTION, ToolFamily.CUSTOM, ToolFamily.HANDOFF)


def metadata_of(obj: dict[str, Any], pointer: str) -> dict[str, Any]:
    """A copy of `metadata` (absent or null: empty)."""
    meta = obj.get("metadata")
    if meta is None:
        return {}
    return dict(expect_object(meta, join_pointer(pointer, "metadata"), "metadata"))


def id_key(obj: dict[str, Any]) -> str:
    """Where a call or result keeps the id results pair by: `id`, which Semantic Kernel
    copies from a call to its result; `call_id` (the Responses API id) only without one."""
    return "call_id" if obj.get("id") is None and obj.get("call_id") is not None else "id"


def tool_name(obj: dict[str, Any], pointer: str) -> str | None:
    """A call's or result's tool name: `name` (`plugin-function`), else the name its
    `plugin_name` and `function_name` make, as Semantic Kernel builds it."""
    name = optional_str(obj.get("name"), join_pointer(pointer, "name"), "the tool name")
    if name is not None:
        return name
    function = optional_str(
        obj.get("function_name"), join_pointer(pointer, "function_name"), "function_name"
    )
    plugin = optional_str(obj.get("plugin_name"), join_pointer(pointer, "plugin_name"), "plugin")
    if function and plugin:
        return f"{plugin}{SEPARATOR}{function}"
    return function or None


def split_name(name: str | None) -> tuple[str | None, str]:
    """`(plugin_name, function_name)` of a tool name, as `FunctionCallContent` splits it."""
    if not name:
        return None, ""
    if SEPARATOR in name:
        plugin, function = name.split(SEPARATOR, 1)
        return plugin, function
    return None, name


def decode_item(obj: Any, pointer: str = "") -> Part:
    """Decode one item of a message's `items`."""
    item = expect_object(obj, pointer, "a Semantic Kernel item")
    kind = item.get("content_type")
    common: dict[str, Any] = {"native": obj, "slot": SLOT, "metadata": metadata_of(item, pointer)}
    if kind == "text":
        text = required_str(item.get("text"), join_pointer(pointer, "text"), "the text")
        return model.TextPart(text=text, **common)
    if kind == "reasoning":
        thought = optional_str(item.get("text"), join_pointer(pointer, "text"), "reasoning text")
        return model.ReasoningPart(text=thought, **common)
    if kind in (CALL, RESULT):
        key = id_key(item)
        call_id = optional_str(item.get(key), join_pointer(pointer, key), f"the call {key}")
        name = tool_name(item, pointer)
        if kind == CALL:
            return model.ToolCallPart(
                call_id=call_id, name=name, arguments=item.get("arguments"), **common
            )
        return model.ToolResultPart(
            call_id=call_id, name=name, content=item.get("result"), **common
        )
    return model.UnknownPart(type=kind if isinstance(kind, str) else None, **common)


def _new(kind: str, values: dict[str, Any]) -> dict[str, Any]:
    """A new item as `ChatHistory.serialize()` writes one: `metadata`, `content_type`, then
    the fields in their declared order, nulls left out."""
    out: dict[str, Any] = {"metadata": values.pop("metadata"), "content_type": kind}
    return out | {key: value for key, value in values.items() if value is not None}


def _tool_values(part: ToolCallPart | ToolResultPart, base: dict[str, Any]) -> dict[str, Any]:
    if part.family not in _WRITABLE_FAMILIES:
        raise HistnormError(
            f"a {part.family.value} tool {part.kind.removeprefix('tool_')} cannot be written "
            "as Semantic Kernel content (it holds function calls only)"
        )
    values: dict[str, Any] = {id_key(base): part.call_id}
    if isinstance(part, model.ToolResultPart):
        values["result"] = part.content
    plugin, function = split_name(part.name)
    if base and tool_name(base, "") == part.name:
        return values  # the name as written stays, in whichever fields held it
    return values | {"name": part.name, "function_name": function, "plugin_name": plugin}


def encode_item(part: Part) -> Any:
    """Encode one part as an item; an unchanged part gives back its very native value."""
    if reuse_native(part, decode_item):
        return part.native
    base: dict[str, Any] = part.native if isinstance(part.native, dict) else {}
    values: dict[str, Any]
    if isinstance(part, model.TextPart):
        kind, values = "text", {"text": part.text}
    elif isinstance(part, model.ReasoningPart):
        kind, values = "reasoning", {"text": part.text}
    elif isinstance(part, model.ToolCallPart):
        kind, values = CALL, _tool_values(part, base)
        values["arguments"] = part.arguments
    elif isinstance(part, model.ToolResultPart):
        kind, values = RESULT, _tool_values(part, base)
    elif isinstance(part, model.UnknownPart) and base:
        return rebuild(base, _metadata(part.metadata, base))
    else:
        raise HistnormError(
            f"a part of kind {part.kind!r} cannot be written as Semantic Kernel content"
        )
    if base.get("content_type") != kind:
        return _new(kind, {**values, "metadata": dict(part.metadata)})
    updates = {k: v for k, v in values.items() if k in base or v is not None}
    return rebuild(base, updates | _metadata(part.metadata, base))


def _metadata(metadata: dict[str, Any], base: dict[str, Any]) -> dict[str, Any]:
    """The update of `metadata` in `base`: none while both are empty (absent, null or
    `{}` stay as written)."""
    if not metadata and not base.get("metadata"):
        return {}
    return {"metadata": dict(metadata)}
