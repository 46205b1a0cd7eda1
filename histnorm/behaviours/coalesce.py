"""Streamed MEAI updates become messages, as `ToChatResponse` builds them (behaviours.md §1.4).

Used by behaviour A (§2.3 R-A1, R-A7) to read a partial response. The rules:

- Message boundaries: an update starts a new message when its `authorName` or its
  `messageId` is non-empty and differs from the last message's non-empty value, or its
  `role` is set and differs from the last message's role (compared ignoring case). A new
  message is an `assistant` message.
- Per-message fields: a set `authorName` or `role` and a non-empty `messageId` overwrite
  the message's (the last update wins). An update's `additionalProperties` are merged into
  the message when the update has a non-empty `messageId`; otherwise they belong to the
  response, which is not returned.
- Usage contents never reach a message: their `details` are summed into one usage dict
  (integer counts key by key, property names ignoring case; `additionalCounts` merged by
  key; any other value: the last non-null one wins).
- Adjacent text items merge (the first item's `additionalProperties` are kept). Adjacent
  reasoning items merge while the previous item of the run has no `protectedData`; the run
  takes the last item's `protectedData`. Items carrying `annotations` never merge. Data and
  hosted-tool items are not merged (the detail does not matter for A, §1.4 rule 5).

Inputs are native MEAI objects (decoded with `histnorm.formats.meai`) or canonical
`Message`s; native objects are copied first, so results never alias them.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import field
from itertools import pairwise
from typing import Any, TypeAlias

from histnorm._record import record
from histnorm.errors import HistnormError, join_pointer
from histnorm.formats.base import expect_object, optional_str, type_name
from histnorm.formats.meai import decode_content, decode_message, find_key, get_key
from histnorm.model import JsonValue, Message, Part, ReasoningPart, TextPart, UsagePart

Item: TypeAlias = Message | Mapping[str, Any]
"""A canonical `Message`, or a native MEAI `ChatMessage` / `ChatResponseUpdate` object."""

Usage: TypeAlias = dict[str, JsonValue]
"""Summed `UsageDetails`, keyed as the first usage item spelled each property."""


@record(frozen=True, slots=True)
class _Update:
    role: str | None
    id: str | None
    author: str | None
    metadata: dict[str, JsonValue] | None
    parts: tuple[Part, ...]


@record(slots=True)
class _Draft:
    role: str = "assistant"
    id: str | None = None
    author: str | None = None
    metadata: dict[str, JsonValue] = field(default_factory=dict)
    parts: list[Part] = field(default_factory=list)


def _native(item: Item, index: int, what: str) -> dict[str, Any]:
    if not isinstance(item, Mapping):
        raise HistnormError(
            f"expected {what} (a Message or an object), got {type_name(item)}",
            pointer=join_pointer("", index),
        )
    return copy.deepcopy(dict(item))


def _read_update(item: Item, index: int) -> _Update:
    if isinstance(item, Message):
        metadata = dict(item.metadata) if item.metadata else None
        return _Update(item.role, item.id, item.author_name, metadata, item.parts)
    obj = _native(item, index, "an update")
    at = join_pointer("", index)

    def text(name: str) -> str | None:
        return optional_str(get_key(obj, name), join_pointer(at, find_key(obj, name) or name), name)

    props = get_key(obj, "additionalProperties")
    if props is not None:
        props_at = join_pointer(at, find_key(obj, "additionalProperties") or "")
        props = dict(expect_object(props, props_at, "additionalProperties"))
    contents = get_key(obj, "contents")
    contents_at = join_pointer(at, find_key(obj, "contents") or "contents")
    if contents is not None and not isinstance(contents, list):
        raise HistnormError(
            f"expected contents to be an array, got {type_name(contents)}", pointer=contents_at
        )
    parts = tuple(
        decode_content(c, join_pointer(contents_at, i)) for i, c in enumerate(contents or ())
    )
    return _Update(text("role"), text("messageId"), text("authorName"), props, parts)


def _differs(new: str | None, old: str | None) -> bool:
    return bool(new) and bool(old) and new != old


def _starts_message(update: _Update, last: _Draft) -> bool:
    return (
        _differs(update.author, last.author)
        or _differs(update.id, last.id)
        or (update.role is not None and update.role.casefold() != last.role.casefold())
    )


def _is_count(value: JsonValue) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _plus(old: JsonValue, new: JsonValue) -> JsonValue:
    if _is_count(old) and _is_count(new):
        return old + new
    return old if new is None else copy.deepcopy(new)


def sum_usage(details: Iterable[JsonValue]) -> Usage:
    """Sum `UsageDetails` objects the way `UsageDetails.Add` does; non-objects are ignored."""
    total: Usage = {}
    for item in details:
        if not isinstance(item, Mapping):
            continue
        for name, value in item.items():
            key = find_key(total, name) or name
            if name.casefold() == "additionalcounts" and isinstance(value, Mapping):
                counts = total.get(key)
                merged = dict(counts) if isinstance(counts, dict) else {}
                for count_name, count in value.items():
                    merged[count_name] = _plus(merged.get(count_name), count)
                total[key] = merged
            else:
                total[key] = _plus(total.get(key), value)
    return total


def _annotated(part: Part) -> bool:
    return isinstance(part.native, dict) and bool(get_key(part.native, "annotations"))


def _continues(prev: Part, part: Part) -> bool:
    if _annotated(prev) or _annotated(part):
        return False
    if isinstance(prev, TextPart):
        return isinstance(part, TextPart)
    return isinstance(prev, ReasoningPart) and isinstance(part, ReasoningPart) and not prev.opaque


def _merge(run: Sequence[Part]) -> Part:
    first, last = run[0], run[-1]
    text = "".join(p.text or "" for p in run if isinstance(p, TextPart | ReasoningPart))
    metadata = dict(first.metadata)
    if isinstance(last, ReasoningPart):
        return ReasoningPart(text=text, opaque=last.opaque, slot=first.slot, metadata=metadata)
    return TextPart(text=text, slot=first.slot, metadata=metadata)


def coalesce_parts(parts: Sequence[Part]) -> tuple[Part, ...]:
    """Merge adjacent text runs and reasoning runs of one message (§1.4 rule 5)."""
    out: list[Part] = []
    start = 0
    while start < len(parts):
        end = start + 1
        while end < len(parts) and _continues(parts[end - 1], parts[end]):
            end += 1
        out.append(parts[start] if end - start == 1 else _merge(parts[start:end]))
        start = end
    return tuple(out)


def coalesce_updates(updates: Iterable[Item]) -> tuple[tuple[Message, ...], Usage]:
    """Build messages from streamed updates (§1.4); return them and the summed usage."""
    drafts: list[_Draft] = []
    usage: list[JsonValue] = []
    for index, item in enumerate(updates):
        update = _read_update(item, index)
        if not drafts or _starts_message(update, drafts[-1]):
            drafts.append(_Draft())
        draft = drafts[-1]
        if update.author is not None:
            draft.author = update.author
        if update.role is not None:
            draft.role = update.role
        if update.id:
            draft.id = update.id
            draft.metadata.update(update.metadata or {})
        for part in update.parts:
            if isinstance(part, UsagePart):
                usage.append(part.details)
            else:
                draft.parts.append(part)
    messages = tuple(
        Message(
            role=d.role,
            id=d.id,
            author_name=d.author,
            parts=coalesce_parts(d.parts),
            metadata=d.metadata,
        )
        for d in drafts
    )
    return messages, sum_usage(usage)


def _role(item: Item) -> str | None:
    if isinstance(item, Message):
        return item.role
    value = get_key(dict(item), "role") if isinstance(item, Mapping) else None
    return value if isinstance(value, str) else None


def _message_id(item: Item) -> str | None:
    if isinstance(item, Message):
        return item.id
    value = get_key(dict(item), "messageId") if isinstance(item, Mapping) else None
    return value if isinstance(value, str) else None


def looks_like_updates(items: Sequence[Item]) -> bool:
    """The auto rule: updates when a native object has no (or a null) `role`, or two
    consecutive items share a non-empty `messageId` and their role (ignoring case)."""
    if any(not isinstance(item, Message) and _role(item) is None for item in items):
        return True
    for prev, item in pairwise(items):
        same_id = bool(_message_id(item)) and _message_id(item) == _message_id(prev)
        if same_id and str(_role(item)).casefold() == str(_role(prev)).casefold():
            return True
    return False


def load_messages(items: Iterable[Item]) -> tuple[Message, ...]:
    """Canonical messages from `Message`s and native `ChatMessage` objects (copied first)."""
    return tuple(
        item
        if isinstance(item, Message)
        else decode_message(_native(item, index, "a message"), join_pointer("", index))
        for index, item in enumerate(items)
    )


def load_partial(
    partial: Iterable[Item], is_updates: bool | None = None
) -> tuple[tuple[Message, ...], Usage]:
    """The partial response as messages, coalesced first when it is a list of updates."""
    items = list(partial)
    if is_updates is None:
        is_updates = looks_like_updates(items)
    if is_updates:
        return coalesce_updates(items)
    return load_messages(items), {}
