"""Writing an edited Codex rollout back: which lines to keep, rewrite, drop or add.

The rules are stated in the docstring of `histnorm.formats.codex`. Each message is
encoded as Responses items (`histnorm.formats.openai_responses.encode_message`); an item
that is the payload of a `response_item` line keeps that very line object, an item
rebuilt from it rewrites only that line's `payload`, and any other item is a new line.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from histnorm.formats.base import rebuild
from histnorm.formats.codex.lines import RESPONSE_ITEM, held_at, item_lines, payload_index
from histnorm.formats.openai_responses import _output_kinds, encode_message
from histnorm.formats.openai_responses.items import decode_item, item_type
from histnorm.formats.openai_responses.write import json_string
from histnorm.held_lines import entries_of, source_of, written
from histnorm.lazy import model
from histnorm.model_terms import SYNTHESIZED_KEY, native_memo
from histnorm.pairing import pair_transcript

if TYPE_CHECKING:
    from histnorm.model import Message, Part, ToolResultPart, Transcript

SYNTHETIC_OUTPUT_NAMESPACE = uuid.UUID("90d38d3e-6a5b-4d52-bfe2-2f1e634bfac4")
"""Codex's namespace for the ids of the outputs it adds for calls left without one
(`SYNTHETIC_OUTPUT_ID_NAMESPACE`, codex-rs/core/src/context_manager/normalize.rs)."""
_PREFIX = {"function_call_output": "fco", "custom_tool_call_output": "ctco"}
_PREFIX["tool_search_output"] = "tso"
NO_TIMESTAMP = "1970-01-01T00:00:00.000Z"
"""The timestamp of a new line in a rollout none of whose lines has one."""


def synthetic_output_id(kind: str, call_item: Any) -> str | None:
    """The id Codex gives the output it adds for a call item with an `id` (None without
    one, as Codex leaves it): `<prefix>_<uuid5(namespace, "<prefix>:<call item id>")>`."""
    prefix = _PREFIX.get(kind)
    found = call_item.get("id") if isinstance(call_item, dict) else None
    if prefix is None or not isinstance(found, str) or not found:
        return None
    return f"{prefix}_{uuid.uuid5(SYNTHETIC_OUTPUT_NAMESPACE, f'{prefix}:{found}')}"


def _output_item(part: ToolResultPart, kind: str, call_item: Any) -> dict[str, Any]:
    """The item of a new result in the shape Codex writes: a `function_call_output`
    answers a `local_shell_call` too, a `tool_search_output` a client `tool_search_call`
    (Codex drops any other output as an orphan); a synthesized one carries Codex's own
    id, and a synthesized `tool_search_output` is Codex's empty completed one."""
    if item_type(call_item) == "tool_search_call":
        kind = "tool_search_output"
    elif kind == "local_shell_call_output":
        kind = "function_call_output"
    item: dict[str, Any] = {"type": kind}
    if part.metadata.get(SYNTHESIZED_KEY) is True:
        found = synthetic_output_id(kind, call_item)
        if found is not None:
            item["id"] = found
    item["call_id"] = part.call_id or ""
    if kind == "tool_search_output":
        tools = part.content if isinstance(part.content, list) else []
        return {**item, "status": "completed", "execution": "client", "tools": tools}
    content = part.content
    if not isinstance(content, str | list):
        content = "" if content is None else json_string(content)
    item["output"] = content
    return item


def _with_new_results(transcript: Transcript) -> tuple[Message, ...]:
    """The messages, each new result replaced by the part its Codex item reads as (so that
    encoding it gives that very item)."""
    kinds = _output_kinds(transcript)
    if not kinds:
        return transcript.messages
    calls = pair_transcript(transcript).result_calls
    messages = list(transcript.messages)
    for mi, by_part in kinds.items():
        parts: list[Part] = list(messages[mi].parts)
        for pi, kind in by_part.items():
            result = parts[pi]
            assert isinstance(result, model.ToolResultPart)
            at = calls.get((mi, pi))
            call = None if at is None else transcript.messages[at[0]].parts[at[1]].native
            parts[pi] = decode_item(_output_item(result, kind, call)).parts[0]
        messages[mi] = messages[mi].model_copy(update={"parts": tuple(parts)})
    return tuple(messages)


def _derived(items: list[Any], native: Any) -> int | None:
    """Which of a message's items is its own line's item rebuilt: the first of the type of
    the item it was read from."""
    kind = item_type(native)
    return next((k for k, item in enumerate(items) if item_type(item) == kind), None)


def _listed(item: Any) -> Any:
    """A new `message` item with its string content as one text part: Codex reads
    `content` as a list of parts only (`ContentItem`)."""
    content = item.get("content") if item_type(item) == "message" else None
    if not isinstance(content, str):
        return item
    role = item.get("role")
    kind = "output_text" if isinstance(role, str) and role.casefold() == "assistant" else None
    return rebuild(item, {"content": [{"type": kind or "input_text", "text": content}]})


def _new_line(item: Any, near: Any) -> dict[str, Any]:
    item = _listed(item)
    stamp = near.get("timestamp") if isinstance(near, dict) else None
    stamp = stamp if isinstance(stamp, str) else NO_TIMESTAMP
    return {"timestamp": stamp, "type": RESPONSE_ITEM, "payload": item}


def encode_lines(transcript: Transcript, lines: Sequence[Any]) -> Sequence[Any]:
    """The rollout lines for `transcript`; lines it does not change are the very objects
    of `lines`, and no line but a `response_item` one is moved or dropped."""
    return placed_lines(transcript, lines)[0]


def placed_lines(
    transcript: Transcript, lines: Sequence[Any]
) -> tuple[Sequence[Any], dict[int, int]]:
    """`encode_lines`, and where each kept `response_item` line of `lines` (by index) is
    in the output."""
    slots, owner = _slots(transcript, lines)
    objs: dict[int, Any] = {}  # the lines rewritten, by index
    claimed: set[int] = set()
    sequence: list[int | dict[str, Any]] = []
    last: int | None = slots[0] if slots else None  # the line a new line follows
    held = source_of(lines) is not None
    for message in _with_new_results(transcript):
        own = held_at(message, lines) if held else None  # unread: its line as read
        if own is not None and own not in claimed:
            claimed.add(own)  # unread, from its line held as text: that very line
            sequence.append(own)
            last = own
            continue
        items = encode_message(message)
        native = message.native
        own = owner.get(id(native)) if native is not None else None
        if own is not None and own not in claimed and len(items) == 1 and items[0] is native:
            claimed.add(own)  # the item as read (most of a rollout): its very line
            sequence.append(own)
            last = own
            continue
        rebuilt = _derived(items, native) if own not in claimed else None
        for k, item in enumerate(items):
            index = owner.get(id(item))
            if index is not None and index not in claimed:
                claimed.add(index)
            elif own is not None and k == rebuilt and own not in claimed:
                index = own
                claimed.add(index)
                objs[index] = rebuild(lines[index], {"payload": item})
            else:
                sequence.append(_new_line(item, None if last is None else lines[last]))
                continue
            sequence.append(index)
            last = index
    return _assemble(lines, objs, slots, claimed, sequence)


def _slots(transcript: Transcript, lines: Sequence[Any]) -> tuple[list[int], Mapping[int, int]]:
    """The indices of the `response_item` lines, and the index of each by the `id` of its
    payload: worked out once for the lines a run of fixes writes again and again (kept
    with them, `native_memo`, when they are the transcript's own)."""
    if source_of(lines) is not None:  # what is parsed of them changes: asked each time
        return item_lines(lines), payload_index(lines)
    memo = native_memo(transcript) if lines is transcript.native else {}
    held: tuple[list[int], dict[int, int]] | None = memo.get("codex-slots")
    if held is None:
        slots = item_lines(lines)
        held = slots, {id(lines[i].get("payload")): i for i in slots}
        memo["codex-slots"] = held
    return held


def _assemble(
    lines: Sequence[Any],
    objs: dict[int, Any],
    slots: list[int],
    claimed: set[int],
    sequence: list[int | dict[str, Any]],
) -> tuple[Sequence[Any], dict[int, int]]:
    """Every line that is no `response_item` where it was; in the places of the kept
    `response_item` lines, the message lines in their new order, each followed by the
    new lines after it (new lines before the first kept one go in its place; with no
    kept line at all, at the end)."""
    runs: list[list[Any]] = [[]]
    owners: list[int] = []
    entries = entries_of(lines)
    for entry in sequence:
        if isinstance(entry, int):
            runs.append([objs[entry] if entry in objs else entries[entry]])
            owners.append(entry)
        else:
            runs[-1].append(entry)
    head, rest, who = runs[0], iter(runs[1:]), iter(owners)
    is_slot = set(slots)
    out: list[Any] = []
    where: dict[int, int] = {}
    for index, entry in enumerate(entries):
        if index not in is_slot:
            out.append(entry)
        elif index in claimed:
            out.extend(head)
            head = []
            where[next(who)] = len(out)
            out.extend(next(rest))
    out.extend(head)
    return written(lines, out), where
