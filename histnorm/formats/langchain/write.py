"""Writing LangChain message items after edits, for `histnorm.formats.langchain`.

Unchanged items are given back as they were read. A changed item is rebuilt from its
native value, with the copies of calls that are still in the message kept near their old
places; new items are written in the form of the transcript, in LangChain's field order
(`dumpd` leaves defaults out). Tool results become tool (or, without a call id, function)
messages of their own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import histnorm.jsonio as jsonio
from histnorm.errors import HistnormError
from histnorm.formats.base import (
    MISSING,
    rebuild,
    reuse_native,
)
from histnorm.formats.langchain.blocks import (
    _CALL_BLOCKS,
    AK_FUNCTION_CALL,
    AK_REFUSAL,
    AK_TOOL_CALLS,
    CALL_BLOCK_TYPES,
    CONTENT_ITEM,
    INVALID_CALLS,
    TOOL_CALLS,
)
from histnorm.formats.langchain.encode import (
    as_args_object,
    encode_block,
    encode_raw_call,
    encode_tool_call,
)
from histnorm.formats.langchain.items import (
    build_item,
    item_body,
    message_values,
    result_item,
    role_or_none,
    try_shape,
)
from histnorm.formats.langchain.read import (
    ROLES,
    Layout,
    ai_layout,
    decode_message,
    kind_of,
)
from histnorm.lazy import model
from histnorm.model_terms import ToolFamily

if TYPE_CHECKING:
    from histnorm.model import Message, Part

_KIND_OF_ROLE = {role: kind for kind, role in ROLES.items()}
_OWN_SLOTS = {TOOL_CALLS, INVALID_CALLS, AK_TOOL_CALLS, AK_FUNCTION_CALL, AK_REFUSAL}
_OWN_SLOTS |= {"usage_metadata", "remove"}
_SERVER_FAMILIES = (ToolFamily.HOSTED, ToolFamily.MCP)


def _separate(part: Part) -> bool:
    """Whether `part` is written as a tool or function message of its own."""
    if not isinstance(part, model.ToolResultPart) or part.slot == CONTENT_ITEM:
        return False
    return part.slot in ("tool", "function") or part.family not in _SERVER_FAMILIES


def _destination(part: Part, ai: bool) -> str:
    if part.slot in ("content", CONTENT_ITEM) or part.slot in _OWN_SLOTS:
        return "content" if part.slot == CONTENT_ITEM else str(part.slot)
    if isinstance(part, model.ApprovalRequestPart | model.ApprovalResponsePart):
        raise HistnormError(
            f"a part of kind {part.kind!r} cannot be written as a LangChain message"
        )
    if isinstance(part, model.ToolCallPart) and ai and part.family not in _SERVER_FAMILIES:
        return TOOL_CALLS if as_args_object(part.arguments) is not None else INVALID_CALLS
    if isinstance(part, model.UsagePart):
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


def _renames(parts: list[Part]) -> dict[str, str]:
    """The call ids a fix renamed (HN104): a call's id in its native entry, mapped to the
    one it has now."""
    found: dict[str, str] = {}
    for part in parts:
        if isinstance(part, model.ToolCallPart) and isinstance(part.native, dict):
            old = part.native.get("id")
            if isinstance(old, str) and part.call_id is not None and old != part.call_id:
                found[old] = part.call_id
    return found


def _renamed_copies(
    original: Any, copies: dict[int, str], renames: dict[str, str]
) -> tuple[Any, dict[int, str]]:
    """The content list with each copy of a renamed call given the call's new id (a
    rename reaches every reference), and the copies under their new ids."""
    if not renames or not isinstance(original, list):
        return original, copies
    items = list(original)
    for i, call_id in copies.items():
        if call_id in renames and isinstance(items[i], dict):
            id_key = _CALL_BLOCKS[items[i]["type"]][0]
            items[i] = rebuild(items[i], {id_key: renames[call_id]})
    return items, {i: renames.get(c, c) for i, c in copies.items()}


def _encode_content(
    parts: list[Part],
    base: dict[str, Any],
    copies: dict[int, str],
    left: set[str],
    renames: dict[str, str],
) -> Any:
    original, copies = _renamed_copies(base.get("content"), copies, renames)
    keep = {i: call_id in left for i, call_id in copies.items()}
    if not parts and not any(keep.values()):
        return [] if isinstance(original, list) else ""
    only = parts[0] if len(parts) == 1 else None
    if (
        isinstance(only, model.TextPart)
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
    calls = [p for p in by_slot.get(AK_TOOL_CALLS, ()) if isinstance(p, model.ToolCallPart)]
    if isinstance(raw, list) or calls:
        original = raw if isinstance(raw, list) else []
        keep = {i: call_id is None or call_id in left for i, call_id in layout.raw_copies.items()}
        encoded = [(p.native, encode_raw_call(p, AK_TOOL_CALLS)) for p in calls]
        merged = merge_items(original, keep, encoded)
        updates["tool_calls"] = merged if merged or not original else MISSING
    function_calls = [
        p for p in by_slot.get(AK_FUNCTION_CALL, ()) if isinstance(p, model.ToolCallPart)
    ]
    if len(function_calls) > 1:
        raise HistnormError(
            "a second legacy function_call cannot be written in a LangChain message"
        )
    if function_calls:
        updates["function_call"] = encode_raw_call(function_calls[0], AK_FUNCTION_CALL)
    elif layout.function_call is not None:
        updates["function_call"] = MISSING
    refusals = by_slot.get(AK_REFUSAL, [])
    if refusals and isinstance(refusals[0], model.RefusalPart):
        updates["refusal"] = refusals[0].text
    elif isinstance(current.get("refusal"), str):
        updates["refusal"] = MISSING
    if not updates:
        return kwargs if "additional_kwargs" in base else {}
    return rebuild(current, updates)


def _main_item(message: Message, parts: list[Part], dumpd: bool) -> Any:
    """The message item for everything in `message` but its separate results."""
    shape = try_shape(message.native)
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
        same_role = (role_or_none(shape) or "").casefold() == message.role.casefold()
        if (same_role or base_kind == "chat") and (base_kind != "remove" or removal):
            ltype, kind = shape.ltype, base_kind
    by_slot: dict[str, list[Part]] = {}
    for part in parts:
        by_slot.setdefault(_destination(part, kind == "ai"), []).append(part)
    form = shape.dumpd if shape is not None else dumpd
    base = shape.body if shape is not None else {}
    layout = ai_layout(base, "") if shape is not None and kind == "ai" else Layout()
    left = _left(by_slot)
    values: dict[str, Any] = {
        "content": _encode_content(
            by_slot.pop("content", []), base, layout.content_copies, left[0], _renames(parts)
        ),
        "type": ltype,
        "name": message.author_name,
        **message_values(message),
    }
    if kind == "chat":
        values["role"] = message.role
    by_slot.pop("remove", None)
    if kind == "ai":
        values |= _ai_values(by_slot, base, layout, left)
    elif any(by_slot.values()):
        what = next(p for ps in by_slot.values() for p in ps)
        raise HistnormError(
            f"a part of kind {what.kind!r} cannot be written in a LangChain {kind} message"
        )
    return build_item(native, shape, ltype, form, item_body(shape, kind, form, values))


_USAGE_NAMES = {
    "input_tokens": ("input_tokens", "input_token_count", "inputTokenCount", "prompt_tokens"),
    "output_tokens": ("output_tokens", "output_token_count", "outputTokenCount"),
    "total_tokens": ("total_tokens", "total_token_count", "totalTokenCount"),
}
_USAGE_NAMES["input_tokens"] += ("promptTokenCount",)
_USAGE_NAMES["output_tokens"] += ("completion_tokens", "candidatesTokenCount")


def usage_metadata(part: Part) -> Any:
    """`usage_metadata` for a usage part: LangChain's own as read, or counts another format
    names its own way mapped onto `input_tokens` / `output_tokens` / `total_tokens`."""
    details = part.details if isinstance(part, model.UsagePart) else None
    own = isinstance(details, dict) and {"input_tokens", "output_tokens"} <= details.keys()
    if part.slot == "usage_metadata" or details is None or own:
        return details
    counts: dict[str, int] = {}
    for key, names in _USAGE_NAMES.items():
        found = [details[n] for n in names if isinstance(details, dict) and n in details]
        if found and isinstance(found[0], int) and not isinstance(found[0], bool):
            counts[key] = found[0]
    if "input_tokens" not in counts or "output_tokens" not in counts:
        raise HistnormError("usage without input and output token counts cannot be written")
    counts.setdefault("total_tokens", counts["input_tokens"] + counts["output_tokens"])
    return counts


def _left(by_slot: dict[str, list[Part]]) -> tuple[set[str], set[str], set[str]]:
    """The call ids that keep copies alive, as reading the message back will see them: in
    `tool_calls` / `invalid_tool_calls` (for content blocks), also in content call blocks
    (for raw `additional_kwargs` calls), also in raw calls (for `tool_call_chunks`)."""

    def ids(slots: tuple[str, ...], blocks: bool = False) -> set[str]:
        return {
            p.call_id
            for slot in slots
            for p in by_slot.get(slot, ())
            if isinstance(p, model.ToolCallPart)
            and p.call_id is not None
            and (not blocks or p.tool_type in CALL_BLOCK_TYPES)
        }

    listed = ids((TOOL_CALLS, INVALID_CALLS))
    blocks = listed | ids(("content",), blocks=True)
    return listed, blocks, blocks | ids((AK_TOOL_CALLS,))


def _ai_values(
    by_slot: dict[str, list[Part]],
    base: dict[str, Any],
    layout: Layout,
    left: tuple[set[str], set[str], set[str]],
) -> dict[str, Any]:
    calls = [p for p in by_slot.get(TOOL_CALLS, ()) if isinstance(p, model.ToolCallPart)]
    invalid = [p for p in by_slot.get(INVALID_CALLS, ()) if isinstance(p, model.ToolCallPart)]
    usage = by_slot.get("usage_metadata", [])
    if len(usage) > 1:
        raise HistnormError("a second usage part cannot be written in a LangChain message")
    values: dict[str, Any] = {
        "tool_calls": [encode_tool_call(p, invalid=False) for p in calls],
        "invalid_tool_calls": [encode_tool_call(p, invalid=True) for p in invalid],
        "usage_metadata": usage_metadata(usage[0]) if usage else None,
        "additional_kwargs": _encode_kwargs(by_slot, base, layout, left[1]),
    }
    chunks = base.get("tool_call_chunks")
    if isinstance(chunks, list) and layout.chunk_copies:
        copies = layout.chunk_copies
        values["tool_call_chunks"] = [
            c for i, c in enumerate(chunks) if i not in copies or copies[i] in left[2]
        ]
    return values


def encode_message(message: Message, dumpd: bool = False) -> list[Any]:
    """Encode one message; its tool results become tool (or function) messages."""
    if reuse_native(message, decode_message):
        return [message.native]
    separate = [p for p in message.parts if isinstance(p, model.ToolResultPart) and _separate(p)]
    rest = [p for p in message.parts if not _separate(p)]
    if separate and not rest:
        first = result_item(separate[0], message, dumpd)
        out = [first] + [result_item(r, None, dumpd) for r in separate[1:]]
    else:  # results before the first other part go first, as LangChain needs them
        lead = next((i for i, p in enumerate(message.parts) if not _separate(p)), 0)
        before = [result_item(r, None, dumpd) for r in separate[:lead]]
        after = [result_item(r, None, dumpd) for r in separate[lead:]]
        out = [*before, _main_item(message, rest, dumpd), *after]
    if isinstance(message.native, dict):
        same = jsonio.dumps(message.native)
        out = [message.native if jsonio.dumps(o) == same else o for o in out]
    return out
