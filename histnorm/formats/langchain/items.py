"""Building LangChain message items, for `histnorm.formats.langchain`.

A changed item is rebuilt from its native field object (unknown keys keep their place); a
new one is built in LangChain's field order (`dumpd` leaves defaults out). Tool results
become tool messages, or, without a call id, function messages.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import histnorm.jsonio as jsonio
from histnorm.errors import HistnormError
from histnorm.formats.base import MISSING, rebuild, reuse_native, strict_equal
from histnorm.formats.langchain.read import (
    CLASSES,
    Shape,
    decode_message,
    kind_of,
    role_of,
    shape_of,
)

if TYPE_CHECKING:
    from histnorm.model import Message, Part, ToolResultPart

_CLASS_OF = {kind: cls for cls, kind in CLASSES.items()}
_PREFIX = ["langchain", "schema", "messages"]
_FIELDS = ("content", "additional_kwargs", "response_metadata", "type", "name", "id")
_KIND_FIELDS = {
    "ai": ("tool_calls", "invalid_tool_calls", "usage_metadata"),
    "tool": ("tool_call_id", "artifact", "status"),
    "chat": ("role",),
}
_DEFAULTS: dict[str, Any] = {"additional_kwargs": {}, "response_metadata": {}, "name": None}
_DEFAULTS |= {"id": None, "tool_calls": [], "invalid_tool_calls": [], "usage_metadata": None}
_DEFAULTS |= {"artifact": None, "status": "success"}


def fresh_body(kind: str, dumpd: bool, values: dict[str, Any]) -> dict[str, Any]:
    """A new field object in LangChain's field order (`dumpd` leaves defaults out)."""
    names = _FIELDS + _KIND_FIELDS.get(kind, ())
    out = {}
    for name in names:
        value = values.get(name, _DEFAULTS.get(name))
        if dumpd and name not in ("content", "type") and strict_equal(value, _DEFAULTS.get(name)):
            continue
        out[name] = value
    return out


def item_body(
    shape: Shape | None, kind: str, dumpd: bool, values: dict[str, Any]
) -> dict[str, Any]:
    """Apply `values` to the item's field object, or build a new one."""
    if shape is None:
        return fresh_body(kind, dumpd, values)
    base = shape.body
    updates = {
        key: value
        for key, value in values.items()
        if key in base
        or value is MISSING
        or (key != "type" and not strict_equal(value, _DEFAULTS.get(key)))
    }
    return rebuild(base, updates)


def build_item(
    native: Any, shape: Shape | None, ltype: str, dumpd: bool, body: dict[str, Any]
) -> Any:
    """The whole item around field object `body`, in its own form (or in `dumpd` form)."""
    kind = kind_of(ltype)
    if shape is None:
        if dumpd:
            path = [*_PREFIX, _CLASS_OF.get(ltype, ltype)]
            return {"lc": 1, "type": "constructor", "id": path, "kwargs": body}
        return {"type": ltype, "data": body}
    if shape.dumpd:
        path = list(native["id"])
        if kind_of(shape.ltype) != kind:
            path[-1] = _CLASS_OF.get(kind, ltype)
        return rebuild(native, {"id": path, "kwargs": body})
    return rebuild(native, {"type": ltype, "data": body})


def try_shape(native: Any) -> Shape | None:
    """The envelope of a native item, or None when it is not one."""
    try:
        return shape_of(native)
    except HistnormError:
        return None


def message_values(message: Message) -> dict[str, Any]:
    """The fields every item takes from its message."""
    return {"id": message.id, "response_metadata": dict(message.metadata)}


def _result_shape(native: Any) -> Shape | None:
    shape = try_shape(native)
    return shape if shape is not None and kind_of(shape.ltype) in ("tool", "function") else None


def role_or_none(shape: Shape) -> str | None:
    """The role of an item, or None when it has none."""
    try:
        return role_of(shape)
    except HistnormError:
        return None


def result_item(part: ToolResultPart, message: Message | None, dumpd: bool) -> Any:
    """A tool (or, without a call id, function) message for `part`."""
    native, shape = part.native, _result_shape(part.native)
    if shape is None and message is not None:
        native, shape = message.native, _result_shape(message.native)
    reusable = message is None and shape is not None and native is part.native
    if reusable and reuse_native(part, _result_of):
        return part.native
    kind = "tool" if part.call_id is not None else "function"
    ltype = shape.ltype if shape is not None and kind_of(shape.ltype) == kind else kind
    values: dict[str, Any] = {"content": _tool_content(part.content), "type": ltype}
    values["name"] = part.name
    values |= message_values(message) if message is not None else {}
    if kind == "tool":
        values["tool_call_id"] = part.call_id
        values["status"] = "error" if part.is_error else "success"
    else:
        values |= {"name": part.name or "", "tool_call_id": MISSING, "status": MISSING}
        values["artifact"] = MISSING
    body = item_body(shape, kind, shape.dumpd if shape else dumpd, values)
    return build_item(native, shape, ltype, shape.dumpd if shape else dumpd, body)


def _tool_content(content: Any) -> Any:
    """Tool message content is a string or a list: other values are written as JSON text."""
    if isinstance(content, str | list):
        return content
    return "" if content is None else jsonio.dumps(content).decode("utf-8")


def _result_of(native: Any) -> Part:
    return decode_message(native).parts[0]
