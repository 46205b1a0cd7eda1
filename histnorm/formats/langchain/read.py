"""Reading LangChain message items, for `histnorm.formats.langchain`.

The envelope of each item (`messages_to_dict` or `dumpd` form), its role, and the parts
it holds with the pointer each was read from. In an AI message, `ai_layout` tells the
calls apart from their provider-native copies.
"""

from __future__ import annotations

from dataclasses import field
from typing import TYPE_CHECKING, Any

from histnorm._record import record
from histnorm.errors import HistnormError, join_pointer
from histnorm.formats.base import (
    expect_object,
    optional_str,
    required_str,
    type_name,
)
from histnorm.formats.langchain.blocks import (
    AK_FUNCTION_CALL,
    AK_REFUSAL,
    INVALID_CALLS,
    TOOL_CALLS,
    call_block_id,
    decode_block,
    decode_raw_call,
    decode_tool_call,
    family,
)
from histnorm.lazy import model

if TYPE_CHECKING:
    from histnorm.model import Message, Part, ToolCallPart

CLASSES = {
    "HumanMessage": "human",
    "AIMessage": "ai",
    "SystemMessage": "system",
    "ChatMessage": "chat",
    "ToolMessage": "tool",
    "FunctionMessage": "function",
    "RemoveMessage": "remove",
}
ROLES = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool"}
ROLES |= {"function": "function", "remove": "remove"}


def kind_of(ltype: str) -> str:
    """The message kind of a LangChain type: `AIMessageChunk` → `ai`; unknown types stay."""
    base = ltype.removesuffix("MessageChunk")
    if base != ltype:
        return CLASSES.get(base + "Message", ltype)
    return ltype


@record(frozen=True)
class Shape:
    """One native item: its form, LangChain type, field object and that object's pointer."""

    dumpd: bool
    ltype: str
    body: dict[str, Any]
    at: str


def shape_of(obj: Any, pointer: str = "") -> Shape:
    """Read the envelope of one message item (either form)."""
    msg = expect_object(obj, pointer, "a message")
    if "lc" in msg:
        if msg.get("type") != "constructor":
            raise HistnormError(
                'expected a serialized message ("type": "constructor")',
                pointer=join_pointer(pointer, "type"),
            )
        path = msg.get("id")
        if not isinstance(path, list) or not path or not all(isinstance(p, str) for p in path):
            raise HistnormError(
                "expected the constructor id to be a non-empty array of strings",
                pointer=join_pointer(pointer, "id"),
            )
        at = join_pointer(pointer, "kwargs")
        body = expect_object(msg.get("kwargs"), at, "the message kwargs")
        cls = str(path[-1])
        return Shape(True, CLASSES.get(cls, cls), body, at)
    ltype = required_str(msg.get("type"), join_pointer(pointer, "type"), "the message type")
    at = join_pointer(pointer, "data")
    return Shape(False, ltype, expect_object(msg.get("data"), at, "the message data"), at)


def role_of(shape: Shape) -> str:
    """The canonical role of a message item."""
    kind = kind_of(shape.ltype)
    if kind == "chat":
        at = join_pointer(shape.at, "role")
        return required_str(shape.body.get("role"), at, "the chat message role")
    return ROLES.get(kind, shape.ltype)


@record
class Layout:
    """The calls of an AI message and which native entries are copies of them."""

    calls: list[tuple[ToolCallPart, str]] = field(default_factory=list)
    content_copies: dict[int, str] = field(default_factory=dict)
    raw_calls: list[tuple[ToolCallPart, str]] = field(default_factory=list)
    raw_copies: dict[int, str | None] = field(default_factory=dict)
    function_call: tuple[ToolCallPart, str] | None = None
    chunk_copies: dict[int, str] = field(default_factory=dict)


def _entries(body: dict[str, Any], key: str, at: str) -> list[tuple[ToolCallPart, str]]:
    value = body.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise HistnormError(
            f"expected {key} to be an array, got {type_name(value)}", pointer=join_pointer(at, key)
        )
    invalid = key == INVALID_CALLS
    pointers = [join_pointer(at, key, i) for i in range(len(value))]
    return [(decode_tool_call(v, p, invalid), p) for v, p in zip(value, pointers, strict=True)]


def ai_layout(body: dict[str, Any], at: str) -> Layout:
    """Find the calls of an AI message, and the provider-native copies of them."""
    layout = Layout(calls=_entries(body, TOOL_CALLS, at) + _entries(body, INVALID_CALLS, at))
    seen = {p.call_id for p, _ in layout.calls if p.call_id is not None}
    ids = set(seen)
    content = body.get("content")
    for index, item in enumerate(content if isinstance(content, list) else ()):
        is_call, call_id = call_block_id(item)
        if is_call and call_id is not None:
            if call_id in ids:
                layout.content_copies[index] = call_id
            seen.add(call_id)
    kwargs = body.get("additional_kwargs")
    if kwargs is not None and not isinstance(kwargs, dict):
        raise HistnormError(
            f"expected additional_kwargs to be an object, got {type_name(kwargs)}",
            pointer=join_pointer(at, "additional_kwargs"),
        )
    raw = (kwargs or {}).get("tool_calls")
    for index, entry in enumerate(raw if isinstance(raw, list) else ()):
        part = decode_raw_call(entry)
        if part is None or (part.call_id is not None and part.call_id in seen):
            layout.raw_copies[index] = None if part is None else part.call_id
        else:
            layout.raw_calls.append(
                (part, join_pointer(at, "additional_kwargs", "tool_calls", index))
            )
    seen |= {p.call_id for p, _ in layout.raw_calls if p.call_id is not None}
    call = decode_raw_call((kwargs or {}).get("function_call"), AK_FUNCTION_CALL)
    if call is not None:
        layout.function_call = (call, join_pointer(at, "additional_kwargs", "function_call"))
    chunks = body.get("tool_call_chunks")
    for index, chunk in enumerate(chunks if isinstance(chunks, list) else ()):
        if isinstance(chunk, dict) and isinstance(chunk.get("id"), str) and chunk["id"] in seen:
            layout.chunk_copies[index] = chunk["id"]
    return layout


def _content_parts(body: dict[str, Any], at: str, copies: dict[int, str]) -> list[tuple[Part, str]]:
    content, where = body.get("content"), join_pointer(at, "content")
    if isinstance(content, str):
        return (
            [(model.TextPart(text=content, native=content, slot="content"), where)]
            if content
            else []
        )
    if isinstance(content, list):
        return [
            (decode_block(item), join_pointer(where, i))
            for i, item in enumerate(content)
            if i not in copies
        ]
    if content is not None:
        raise HistnormError(
            f"expected content to be a string, an array or null, got {type_name(content)}",
            pointer=where,
        )
    return []


def read_message(obj: Any, pointer: str = "") -> tuple[Message, list[str]]:
    """Decode one message item, with the pointer each part was read from."""
    shape = shape_of(obj, pointer)
    body, at = shape.body, shape.at
    kind, role = kind_of(shape.ltype), role_of(shape)
    name = optional_str(body.get("name"), join_pointer(at, "name"), "the name")
    message_id = optional_str(body.get("id"), join_pointer(at, "id"), "the message id")
    metadata = body.get("response_metadata")
    if metadata is not None and not isinstance(metadata, dict):
        raise HistnormError(
            f"expected response_metadata to be an object, got {type_name(metadata)}",
            pointer=join_pointer(at, "response_metadata"),
        )
    found: list[tuple[Part, str]] = []
    if kind in ("tool", "function"):
        _content_parts(body, at, {})  # validates the content
        call_id = None
        if kind == "tool":
            where = join_pointer(at, "tool_call_id")
            call_id = required_str(body.get("tool_call_id"), where, "tool_call_id")
        result = model.ToolResultPart(
            call_id=call_id,
            name=name,
            content=body.get("content"),
            is_error=body.get("status") == "error",
            family=family(name),
            tool_type=kind,
            native=obj,
            slot=kind,
        )
        found.append((result, pointer))
        name = None
    elif kind == "remove":
        found.append((model.UnknownPart(type="remove", native=body, slot="remove"), at))
    else:
        layout = ai_layout(body, at) if kind == "ai" else Layout()
        found.extend(_content_parts(body, at, layout.content_copies))
        if kind == "ai":
            found.extend(_ai_parts(body, at, layout))
    parts = tuple(p for p, _ in found)
    message = model.Message(
        role=role,
        id=message_id,
        author_name=name,
        parts=parts,
        metadata=dict(metadata or {}),
        native=obj,
    )
    return message, [p for _, p in found]


def _ai_parts(body: dict[str, Any], at: str, layout: Layout) -> list[tuple[Part, str]]:
    found: list[tuple[Part, str]] = []
    refusal = (body.get("additional_kwargs") or {}).get("refusal")
    if isinstance(refusal, str):
        where = join_pointer(at, "additional_kwargs", "refusal")
        found.append((model.RefusalPart(text=refusal, native=refusal, slot=AK_REFUSAL), where))
    found.extend(layout.calls)
    found.extend(layout.raw_calls)
    if layout.function_call is not None:
        found.append(layout.function_call)
    usage = body.get("usage_metadata")
    if isinstance(usage, dict):
        part = model.UsagePart(details=usage, native=usage, slot="usage_metadata")
        found.append((part, join_pointer(at, "usage_metadata")))
    elif usage is not None:
        raise HistnormError(
            f"expected usage_metadata to be an object or null, got {type_name(usage)}",
            pointer=join_pointer(at, "usage_metadata"),
        )
    return found


def decode_message(obj: Any, pointer: str = "") -> Message:
    """Decode one message item (either form)."""
    return read_message(obj, pointer)[0]
