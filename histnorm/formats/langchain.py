"""LangChain message lists: `messages_to_dict` items and `dumpd` constructor items.

A document is a bare list or `{"messages": [...]}`, and each item keeps its own form:
`{"type": "ai", "data": {...}}` (`messages_to_dict`) or `{"lc": 1, "type": "constructor",
"id": [..., "AIMessage"], "kwargs": {...}}` (`dumpd`). Roles: human → user, ai → assistant,
system, tool, function (legacy; its result has no id and pairs by name), chat → its `role`,
remove; chunk types read like their message types. `name` is the author (the tool name on
tool and function messages), `id` the message id, `response_metadata` the metadata. An empty
string `content` is LangChain's "no content" and gives no part.

Slots: `content` (string content), `content[]` (an item of list content), `tool_calls`,
`invalid_tool_calls` (a call too: langchain-openai sends it back as a tool call, so an
unanswered one is an orphan), `additional_kwargs.tool_calls` / `additional_kwargs.function_call`
(raw OpenAI-form calls of older langchain-openai), `additional_kwargs.refusal`,
`usage_metadata`, `tool` / `function` (the result a tool or function message holds; its
native value is the whole message) and `remove` (a RemoveMessage).

Provider-native copies of a call are not parts, so each call appears once: content
`tool_use` / `tool_call` / `function_call` blocks and `additional_kwargs.tool_calls` entries
whose id is already a call, and `tool_call_chunks` entries. They stay in the native message
and are written back while a call with their id is left in the message.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from histnorm.errors import HistnormError, join_pointer
from histnorm.formats._langchain_blocks import (
    AK_FUNCTION_CALL,
    AK_REFUSAL,
    AK_TOOL_CALLS,
    CONTENT_ITEM,
    INVALID_CALLS,
    TOOL_CALLS,
    as_args_object,
    call_block_id,
    decode_block,
    decode_raw_call,
    decode_tool_call,
    encode_block,
    encode_raw_call,
    encode_tool_call,
    family,
)
from histnorm.formats.base import (
    MISSING,
    Codec,
    expect_object,
    join_envelope,
    messages_sniff,
    optional_str,
    rebuild,
    required_str,
    reuse_native,
    split_envelope,
    strict_equal,
    type_name,
)
from histnorm.model import (
    ApprovalRequestPart,
    ApprovalResponsePart,
    JsonValue,
    Message,
    Part,
    RefusalPart,
    TextPart,
    ToolCallPart,
    ToolFamily,
    ToolResultPart,
    Transcript,
    UnknownPart,
    UsagePart,
)

_CLASSES = {
    "HumanMessage": "human",
    "AIMessage": "ai",
    "SystemMessage": "system",
    "ChatMessage": "chat",
    "ToolMessage": "tool",
    "FunctionMessage": "function",
    "RemoveMessage": "remove",
}
_CLASS_OF = {kind: cls for cls, kind in _CLASSES.items()}
_ROLES = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool"}
_ROLES |= {"function": "function", "remove": "remove"}
_KIND_OF_ROLE = {role: kind for kind, role in _ROLES.items()}
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
_OWN_SLOTS = {TOOL_CALLS, INVALID_CALLS, AK_TOOL_CALLS, AK_FUNCTION_CALL, AK_REFUSAL}
_OWN_SLOTS |= {"usage_metadata", "remove"}
_SERVER_FAMILIES = (ToolFamily.HOSTED, ToolFamily.MCP)


def kind_of(ltype: str) -> str:
    """The message kind of a LangChain type: `AIMessageChunk` → `ai`; unknown types stay."""
    base = ltype.removesuffix("MessageChunk")
    if base != ltype:
        return _CLASSES.get(base + "Message", ltype)
    return ltype


@dataclass(frozen=True)
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
        return Shape(True, _CLASSES.get(cls, cls), body, at)
    ltype = required_str(msg.get("type"), join_pointer(pointer, "type"), "the message type")
    at = join_pointer(pointer, "data")
    return Shape(False, ltype, expect_object(msg.get("data"), at, "the message data"), at)


def role_of(shape: Shape) -> str:
    """The canonical role of a message item."""
    kind = kind_of(shape.ltype)
    if kind == "chat":
        at = join_pointer(shape.at, "role")
        return required_str(shape.body.get("role"), at, "the chat message role")
    return _ROLES.get(kind, shape.ltype)


@dataclass
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
        return [(TextPart(text=content, native=content, slot="content"), where)] if content else []
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
        result = ToolResultPart(
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
        found.append((UnknownPart(type="remove", native=body, slot="remove"), at))
    else:
        layout = ai_layout(body, at) if kind == "ai" else Layout()
        found.extend(_content_parts(body, at, layout.content_copies))
        if kind == "ai":
            found.extend(_ai_parts(body, at, layout))
    parts = tuple(p for p, _ in found)
    message = Message(
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
        found.append((RefusalPart(text=refusal, native=refusal, slot=AK_REFUSAL), where))
    found.extend(layout.calls)
    found.extend(layout.raw_calls)
    if layout.function_call is not None:
        found.append(layout.function_call)
    usage = body.get("usage_metadata")
    if isinstance(usage, dict):
        part = UsagePart(details=usage, native=usage, slot="usage_metadata")
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


# --- encoding ----------------------------------------------------------------------------


def _fresh(kind: str, dumpd: bool, values: dict[str, Any]) -> dict[str, Any]:
    """A new field object in LangChain's field order (`dumpd` leaves defaults out)."""
    names = _FIELDS + _KIND_FIELDS.get(kind, ())
    out = {}
    for name in names:
        value = values.get(name, _DEFAULTS.get(name))
        if dumpd and name not in ("content", "type") and strict_equal(value, _DEFAULTS.get(name)):
            continue
        out[name] = value
    return out


def _body(shape: Shape | None, kind: str, dumpd: bool, values: dict[str, Any]) -> dict[str, Any]:
    """Apply `values` to the item's field object, or build a new one."""
    if shape is None:
        return _fresh(kind, dumpd, values)
    base = shape.body
    updates = {
        key: value
        for key, value in values.items()
        if key in base
        or value is MISSING
        or (key != "type" and not strict_equal(value, _DEFAULTS.get(key)))
    }
    return rebuild(base, updates)


def _item(native: Any, shape: Shape | None, ltype: str, dumpd: bool, body: dict[str, Any]) -> Any:
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


def _shape(native: Any) -> Shape | None:
    try:
        return shape_of(native)
    except HistnormError:
        return None


def _message_values(message: Message) -> dict[str, Any]:
    return {"id": message.id, "response_metadata": dict(message.metadata)}


def _result_shape(native: Any) -> Shape | None:
    shape = _shape(native)
    return shape if shape is not None and kind_of(shape.ltype) in ("tool", "function") else None


def _role_or_none(shape: Shape) -> str | None:
    try:
        return role_of(shape)
    except HistnormError:
        return None


def _result_item(part: ToolResultPart, message: Message | None, dumpd: bool) -> Any:
    """A tool (or, without a call id, function) message for `part`."""
    native, shape = part.native, _result_shape(part.native)
    if shape is None and message is not None:
        native, shape = message.native, _result_shape(message.native)
    reusable = message is None and shape is not None and native is part.native
    if reusable and reuse_native(part, _result_of):
        return part.native
    kind = "tool" if part.call_id is not None else "function"
    ltype = shape.ltype if shape is not None and kind_of(shape.ltype) == kind else kind
    values: dict[str, Any] = {"content": part.content, "type": ltype, "name": part.name}
    values |= _message_values(message) if message is not None else {}
    if kind == "tool":
        values["tool_call_id"] = part.call_id
        values["status"] = "error" if part.is_error else "success"
    else:
        values |= {"name": part.name or "", "tool_call_id": MISSING, "status": MISSING}
        values["artifact"] = MISSING
    body = _body(shape, kind, shape.dumpd if shape else dumpd, values)
    return _item(native, shape, ltype, shape.dumpd if shape else dumpd, body)


def _result_of(native: Any) -> Part:
    return decode_message(native).parts[0]


def _separate(part: Part) -> bool:
    """Whether `part` is written as a tool or function message of its own."""
    if not isinstance(part, ToolResultPart) or part.slot == CONTENT_ITEM:
        return False
    return part.slot in ("tool", "function") or part.family not in _SERVER_FAMILIES


def _destination(part: Part, ai: bool) -> str:
    if part.slot in ("content", CONTENT_ITEM) or part.slot in _OWN_SLOTS:
        return "content" if part.slot == CONTENT_ITEM else str(part.slot)
    if isinstance(part, ApprovalRequestPart | ApprovalResponsePart):
        raise HistnormError(f"a {part.kind} part cannot be written as a LangChain message")
    if isinstance(part, ToolCallPart) and ai and part.family not in _SERVER_FAMILIES:
        return TOOL_CALLS if as_args_object(part.arguments) is not None else INVALID_CALLS
    if isinstance(part, UsagePart):
        return "usage_metadata"
    return "content"


def merge_items(
    original: list[Any], keep: dict[int, bool], encoded: list[tuple[Any, Any]]
) -> list[Any]:
    """Written items in part order, with the kept copies back near their old places."""
    pending = sorted(i for i, kept in keep.items() if kept)
    free = [i for i in range(len(original)) if i not in keep]
    out: list[Any] = []
    for native, value in encoded:
        index = next((i for i in free if original[i] is native), None)
        if index is not None:
            free.remove(index)
            while pending and pending[0] < index:
                out.append(original[pending.pop(0)])
        out.append(value)
    return out + [original[i] for i in pending]


def _encode_content(
    parts: list[Part], base: dict[str, Any], copies: dict[int, str], left: set[str]
) -> Any:
    original = base.get("content")
    keep = {i: call_id in left for i, call_id in copies.items()}
    if not parts and not any(keep.values()):
        return [] if isinstance(original, list) else ""
    only = parts[0] if len(parts) == 1 else None
    if (
        isinstance(only, TextPart)
        and only.text
        and not any(keep.values())
        and (only.slot == "content" or (only.native is None and not isinstance(original, list)))
    ):
        return only.text
    encoded = [(p.native, encode_block(p)) for p in parts]
    return merge_items(original if isinstance(original, list) else [], keep, encoded)


def _encode_kwargs(
    by_slot: dict[str, list[Part]], base: dict[str, Any], layout: Layout, left: set[str]
) -> Any:
    kwargs = base.get("additional_kwargs")
    current = kwargs if isinstance(kwargs, dict) else {}
    updates: dict[str, Any] = {}
    raw = current.get("tool_calls")
    calls = [p for p in by_slot.get(AK_TOOL_CALLS, ()) if isinstance(p, ToolCallPart)]
    if isinstance(raw, list) or calls:
        original = raw if isinstance(raw, list) else []
        keep = {i: call_id is None or call_id in left for i, call_id in layout.raw_copies.items()}
        encoded = [(p.native, encode_raw_call(p, AK_TOOL_CALLS)) for p in calls]
        merged = merge_items(original, keep, encoded)
        updates["tool_calls"] = merged if merged or not original else MISSING
    function_calls = [p for p in by_slot.get(AK_FUNCTION_CALL, ()) if isinstance(p, ToolCallPart)]
    if len(function_calls) > 1:
        raise HistnormError("a LangChain message holds at most one legacy function_call")
    if function_calls:
        updates["function_call"] = encode_raw_call(function_calls[0], AK_FUNCTION_CALL)
    elif layout.function_call is not None:
        updates["function_call"] = MISSING
    refusals = by_slot.get(AK_REFUSAL, [])
    if refusals and isinstance(refusals[0], RefusalPart):
        updates["refusal"] = refusals[0].text
    elif isinstance(current.get("refusal"), str):
        updates["refusal"] = MISSING
    if not updates:
        return kwargs if "additional_kwargs" in base else {}
    return rebuild(current, updates)


def _main_item(message: Message, parts: list[Part], dumpd: bool) -> Any:
    """The message item for everything in `message` but its separate results."""
    shape = _shape(message.native)
    native = message.native
    if shape is not None and kind_of(shape.ltype) in ("tool", "function"):
        native, shape = None, None
    removal = any(p.slot == "remove" for p in parts)
    kind = _KIND_OF_ROLE.get(message.role.casefold(), "chat")
    if kind in ("tool", "function") or (kind == "remove" and not removal):
        kind = "chat"
    ltype = kind
    if shape is not None:
        base_kind = kind_of(shape.ltype)
        same_role = (_role_or_none(shape) or "").casefold() == message.role.casefold()
        if (same_role or base_kind == "chat") and (base_kind != "remove" or removal):
            ltype, kind = shape.ltype, base_kind
    by_slot: dict[str, list[Part]] = {}
    for part in parts:
        by_slot.setdefault(_destination(part, kind == "ai"), []).append(part)
    form = shape.dumpd if shape is not None else dumpd
    base = shape.body if shape is not None else {}
    layout = ai_layout(base, "") if shape is not None and kind == "ai" else Layout()
    left = {p.call_id for p in parts if isinstance(p, ToolCallPart) and p.call_id is not None}
    values: dict[str, Any] = {
        "content": _encode_content(by_slot.pop("content", []), base, layout.content_copies, left),
        "type": ltype,
        "name": message.author_name,
        **_message_values(message),
    }
    if kind == "chat":
        values["role"] = message.role
    by_slot.pop("remove", None)
    if kind == "ai":
        values |= _ai_values(by_slot, base, layout, left)
    elif any(by_slot.values()):
        what = next(p for ps in by_slot.values() for p in ps)
        raise HistnormError(f"a {what.kind} part cannot be written in a LangChain {kind} message")
    return _item(native, shape, ltype, form, _body(shape, kind, form, values))


def _ai_values(
    by_slot: dict[str, list[Part]], base: dict[str, Any], layout: Layout, left: set[str]
) -> dict[str, Any]:
    calls = [p for p in by_slot.get(TOOL_CALLS, ()) if isinstance(p, ToolCallPart)]
    invalid = [p for p in by_slot.get(INVALID_CALLS, ()) if isinstance(p, ToolCallPart)]
    usage = by_slot.get("usage_metadata", [])
    if len(usage) > 1:
        raise HistnormError("a LangChain message holds at most one usage part")
    values: dict[str, Any] = {
        "tool_calls": [encode_tool_call(p, invalid=False) for p in calls],
        "invalid_tool_calls": [encode_tool_call(p, invalid=True) for p in invalid],
        "usage_metadata": usage[0].details if usage and isinstance(usage[0], UsagePart) else None,
        "additional_kwargs": _encode_kwargs(by_slot, base, layout, left),
    }
    chunks = base.get("tool_call_chunks")
    if isinstance(chunks, list) and layout.chunk_copies:
        copies = layout.chunk_copies
        values["tool_call_chunks"] = [c for i, c in enumerate(chunks) if copies.get(i, "") in left]
    return values


def encode_message(message: Message, dumpd: bool = False) -> list[Any]:
    """Encode one message; its tool results become tool (or function) messages."""
    if reuse_native(message, decode_message):
        return [message.native]
    separate = [p for p in message.parts if _separate(p)]
    rest = [p for p in message.parts if not _separate(p)]
    if separate and not rest:
        first = _result_item(separate[0], message, dumpd)  # type: ignore[arg-type]
        out = [first] + [_result_item(r, None, dumpd) for r in separate[1:]]  # type: ignore[arg-type]
    else:
        main = _main_item(message, rest, dumpd)
        out = [main] + [_result_item(r, None, dumpd) for r in separate]  # type: ignore[arg-type]
    if isinstance(message.native, dict) and orjson.dumps(out[0]) == orjson.dumps(message.native):
        out[0] = message.native
    return out


class LangChainCodec(Codec):
    """LangChain message lists, as `messages_to_dict` or `dumpd` writes them."""

    name = "langchain"
    summary = "LangChain messages_to_dict / dumpd message lists"

    def sniff(self, data: JsonValue) -> float:
        """Likely when every message is a `{type, data}` or a `dumpd` constructor item."""
        messages = messages_sniff(data, "messages")
        if not messages:
            return 0.0
        for msg in messages[:50]:
            if not isinstance(msg, dict):
                return 0.0
            path = msg.get("id")
            if "lc" in msg:
                if msg.get("type") != "constructor" or not isinstance(path, list):
                    return 0.0
                if "messages" not in path or not isinstance(msg.get("kwargs"), dict):
                    return 0.0
            elif not (
                isinstance(msg.get("type"), str)
                and isinstance(msg.get("data"), dict)
                and "content" in msg["data"]
            ):
                return 0.0
        return 0.95

    def decode(self, data: JsonValue) -> Transcript:
        """Decode a bare message list or an object holding `messages`."""
        messages, base = split_envelope(data, "messages", "LangChain messages")
        decoded = tuple(decode_message(m, join_pointer(base, i)) for i, m in enumerate(messages))
        return Transcript(
            messages=decoded, format=self.name, native=data if isinstance(data, dict) else None
        )

    def encode(self, transcript: Transcript) -> JsonValue:
        """Encode; new messages take the form of the first message read (default `to_dict`)."""
        first = next((m.native for m in transcript.messages if isinstance(m.native, dict)), {})
        dumpd = "lc" in first
        out: list[Any] = []
        for message in transcript.messages:
            out.extend(encode_message(message, dumpd))
        return join_envelope(transcript, "messages", out)

    def message_pointer(self, transcript: Transcript, message_index: int) -> str:
        """`/N`, or `/messages/N` inside an envelope."""
        base = "/messages" if isinstance(transcript.native, dict) else ""
        return join_pointer(base, message_index)

    def part_pointer(self, transcript: Transcript, message_index: int, part_index: int) -> str:
        """The content item, call entry or field a part was read from (a tool or function
        result points at its whole message)."""
        message = transcript.messages[message_index]
        at = self.message_pointer(transcript, message_index)
        slot = message.parts[part_index].slot
        if message.native is None:
            return at
        try:
            fresh, pointers = read_message(message.native, at)
        except HistnormError:
            return at
        rank = sum(1 for p in message.parts[:part_index] if p.slot == slot)
        same = [ptr for p, ptr in zip(fresh.parts, pointers, strict=True) if p.slot == slot]
        return same[rank] if rank < len(same) else at
