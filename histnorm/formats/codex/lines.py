"""Reading a Codex CLI rollout: its lines, which of them hold Responses items, and sniffing.

Helpers for `histnorm.formats.codex`; see that module for the shapes. A line is a
`RolloutLine` (codex-rs/protocol/src/protocol.rs): `{timestamp, type, payload}`, where
`type` and `payload` are the adjacently tagged `RolloutItem`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from histnorm.analysis.outline import Outline
from histnorm.errors import HistnormError, join_pointer
from histnorm.formats.base import LIST_WINDOW, decoded, expect_object, type_name
from histnorm.formats.openai_responses.items import decode_item
from histnorm.formats.openai_responses.outline import read_items
from histnorm.held_lines import (
    EditedLines,
    HeldLines,
    entries_of,
    held_line,
    indices_of,
    position,
    source_of,
    written,
)
from histnorm.model_terms import JsonValue

if TYPE_CHECKING:
    from histnorm.model import Message

RESPONSE_ITEM = "response_item"
"""The line type whose payload is a Responses item: the only lines read as messages."""
SURE_TYPES = frozenset({"session_meta", RESPONSE_ITEM})
"""Line types only a rollout has; `compacted`, `turn_context` and `event_msg` are its
marks too, but alone they hold no message."""
EVENT_MSG = "event_msg"
"""The line type of Codex's UI events; some cite a call by `call_id`."""
OTHER_TYPES = frozenset({"compacted", "turn_context", EVENT_MSG})
FOREIGN_KEYS = frozenset({"role", "messages", "uuid", "parentUuid", "sessionId", "message"})
"""Keys no rollout line has at its top level (chat messages, Claude Code session lines)."""


def is_rollout_line(line: Any) -> bool:
    """Whether `line` has the rollout envelope: a string `type` and an object `payload`."""
    return (
        isinstance(line, dict)
        and isinstance(line.get("type"), str)
        and isinstance(line.get("payload"), dict)
    )


def is_item_line(line: Any) -> bool:
    """Whether `line` is a `response_item` line (its payload is read as a message)."""
    return isinstance(line, dict) and line.get("type") == RESPONSE_ITEM


def sniff(data: JsonValue) -> float:
    """Sure (0.95) of a list of lines with the rollout envelope holding a `session_meta`
    or a `response_item` line; 0.6 when only its other line types are there; 0 when any
    line is no object or carries a key of a chat message or a Claude Code line."""
    if not isinstance(data, list) or not data:
        return 0.0
    score = 0.0
    for line in data[:LIST_WINDOW]:
        if not isinstance(line, dict) or FOREIGN_KEYS & line.keys():
            return 0.0
        if not is_rollout_line(line):
            continue
        if line["type"] in SURE_TYPES:
            score = 0.95
        elif line["type"] in OTHER_TYPES:
            score = max(score, 0.6)
    return score


def check_lines(data: Any) -> Sequence[Any]:
    """Return `data` if it is a list of line objects (or lines held as text, each an
    object), else raise."""
    if isinstance(data, HeldLines | EditedLines):
        return data  # held only when every line was read as an object
    if not isinstance(data, list):
        raise HistnormError(
            f"expected a Codex rollout (an array of line objects), got {type_name(data)}",
            pointer="",
        )
    for index, line in enumerate(data):
        if not isinstance(line, dict):
            raise HistnormError(
                f"expected a rollout line (an object), got {type_name(line)}",
                pointer=join_pointer("", index),
            )
    return data


def item_lines(lines: Sequence[Any]) -> list[int]:
    """The indices of the `response_item` lines, in file order."""
    if source_of(lines) is not None:
        return list(indices_of(lines, RESPONSE_ITEM))
    return [index for index, line in enumerate(lines) if is_item_line(line)]


def held_at(message: Message, lines: Sequence[Any]) -> int | None:
    """Where in `lines` the line is that `message` was built from, held as text
    (`model.unread_held`), while the message still holds that line's payload; else None."""
    held = held_line(message)
    return None if held is None else position(lines, *held)


def decode_lines(
    lines: Sequence[Any],
    known: Mapping[int, Message] | None = None,
    known_at: Mapping[int, Message] | None = None,
) -> tuple[Message, ...]:
    """One message per `response_item` line: its payload read as a Responses item (and
    marked so, `decoded`), or the message `known` holds by the payload's `id`, or that
    `known_at` holds by the line's index in the lines as read (held lines)."""
    messages = []
    entries = entries_of(lines)
    for index in item_lines(lines):
        if known_at:
            entry = entries[index]
            found = known_at.get(entry) if type(entry) is int else None
            if found is not None:
                messages.append(found)
                continue
        line = lines[index]
        held = known.get(id(line.get("payload"))) if known else None
        if held is not None:
            messages.append(held)
            continue
        at = join_pointer("", index, "payload")
        payload = expect_object(line.get("payload"), at, "the payload of a response_item")
        messages.append(decoded(decode_item(payload, at), decode_item))
    return tuple(messages)


def payload_index(lines: Any) -> Mapping[int, int]:
    """The line index of each `response_item` payload, by the payload's identity (of
    lines held as text, only those parsed, as they are parsed: no other payload is held by
    anything)."""
    if isinstance(lines, HeldLines | EditedLines):
        return lines.owners
    if not isinstance(lines, list):
        return {}
    return {id(lines[i]["payload"]): i for i in item_lines(lines) if "payload" in lines[i]}


def read_outline(data: Any) -> Outline | None:
    """The outline of a rollout's lines read without building models: that of its
    payloads as the `openai-responses` fast reader reads them, or None."""
    if not isinstance(data, list):  # a file's lines come as `ReadLines`, a list
        return None
    return read_lines(data)


def read_lines(data: Iterable[Any]) -> Outline | None:
    """`read_outline` of a rollout's lines, each read once in file order and not held (a
    long rollout can be read one line at a time)."""
    broken = False  # a line that is no object, or a response_item without an object payload

    def payloads() -> Iterator[dict[str, Any]]:
        nonlocal broken
        for line in data:
            if type(line) is not dict:
                broken = True
                return
            if line.get("type") == RESPONSE_ITEM:
                payload = line.get("payload")
                if type(payload) is not dict:
                    broken = True
                    return
                yield payload

    found = read_items(payloads())
    if found is None or broken:
        return None
    return Outline(found.messages, "codex", None, found.flags, imageless=found.imageless)


def renamed_events(lines: Sequence[Any], renames: Mapping[str, str]) -> Sequence[Any] | None:
    """The lines with `renamed_event` applied to each (lines held as text: only the
    `event_msg` ones are read), or None when none changes."""
    entries = list(entries_of(lines))
    changed = False
    cited = indices_of(lines, EVENT_MSG) if source_of(lines) is not None else range(len(lines))
    for index in cited:
        line = lines[index]
        new = renamed_event(line, renames)
        if new is not line:
            changed = True
            entries[index] = new
    return written(lines, entries) if changed else None


def renamed_event(line: Any, renames: Mapping[str, str]) -> Any:
    """An `event_msg` line whose payload's `call_id` `renames` maps, with the new id (a
    new line object); any other line itself."""
    if not isinstance(line, dict) or line.get("type") != EVENT_MSG:
        return line
    payload = line.get("payload")
    cited = payload.get("call_id") if isinstance(payload, dict) else None
    if not isinstance(payload, dict) or not isinstance(cited, str) or cited not in renames:
        return line
    return {**line, "payload": {**payload, "call_id": renames[cited]}}
