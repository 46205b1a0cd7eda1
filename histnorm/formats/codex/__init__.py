"""Codex CLI rollouts: `~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`.

**Shape.** The document is the list of the file's parsed lines (read the file with
`read_jsonl(..., mode="message")`, or store the list as a JSON array). Each line is a
`RolloutLine` (codex-rs/protocol/src/protocol.rs): `{"timestamp", "type", "payload"}`,
`type` one of `session_meta` (the first line: id, cwd, cli_version, instructions...),
`response_item`, `turn_context`, `event_msg`, `compacted`, or one a later Codex adds.

**Messages.** Only `response_item` lines are read, one message each, in file order: the
payload is a Responses item (codex-rs/protocol/src/models.rs `ResponseItem`), read as
the `openai-responses` codec reads an input item (roles, parts, slots and pairing are
its own). A `function_call_output` answers a `local_shell_call` as well as a
`function_call` (Codex runs both and answers both so). `ghost_snapshot` items (Codex's
undo bookkeeping, never sent to the model) are kept verbatim. Every other line
(`session_meta`, `turn_context`, `event_msg`, `compacted` with its
`replacement_history`, unknown types) stays in `Transcript.native`, is never read for
content, and is written back as the very object it was. `Message.native` is the payload;
`message_pointer` is `/<line index>/payload`, `part_pointer` adds `/content/<k>` for a
content part.

**Writing after edits** touches only the `response_item` lines it must: an unchanged
message keeps its line object (the file layer copies its bytes); an edited one rewrites
only its line's `payload`; a removed one drops its line. A new item becomes a new line
`{"timestamp", "type": "response_item", "payload"}` right after the line of the item
before it (the timestamp is that line's), before any other line that followed it. Lines
of other types never move; moved messages take the places of the kept `response_item`
lines in their new order. A new result is written as Codex writes it: the output item
of its call (`function_call_output` for a `function_call` or a `local_shell_call`,
`custom_tool_call_output`, `tool_search_output`), and a synthesized one (orphan policy
`synthesize`) with the `id` Codex's own history normalisation gives the "aborted"
output it adds on resume (`ensure_call_outputs_present` in
codex-rs/core/src/context_manager/normalize.rs), so the repaired file is what Codex
sends anyway. A rollout without native lines (a converted transcript) is written as
`response_item` lines only. A call id a fix renames (HN104) is renamed in the
`event_msg` lines that cite it by `call_id` too.

**Held lines.** A long rollout the document layer does not prove clean as it reads it
comes as `HeldLines` (`held_items`): each line parsed when first asked for, each message
built unread from its line. The writer then gives `EditedLines`: a line written as read
is its index, a line it rewrites or adds is its new value, so an unchanged line is never
parsed; everything above holds as for a list of lines.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from histnorm.analysis.outline import Outline
from histnorm.errors import join_pointer
from histnorm.formats._fixed_types import _type_change
from histnorm.formats.base import (
    Codec,
    emptied,
    first_index,
    messages_held,
    reads_as,
    unread_messages,
)
from histnorm.formats.codex.lines import (
    check_lines,
    decode_lines,
    held_at,
    item_lines,
    payload_index,
    read_lines,
    read_outline,
    renamed_events,
    sniff,
)
from histnorm.formats.codex.write import encode_lines, placed_lines
from histnorm.formats.openai_responses import OpenAIResponsesCodec
from histnorm.formats.openai_responses.items import decode_item
from histnorm.held_lines import HeldLines, entry_of, source_of
from histnorm.lazy import model
from histnorm.model_terms import JsonValue, native_memo

if TYPE_CHECKING:
    from histnorm.model import Message, Transcript

_RESPONSES = OpenAIResponsesCodec()
CODEX_VERBATIM = frozenset({"ghost_snapshot"})
"""Item types only Codex writes and keeps out of the model's input."""


def _line_of(transcript: Transcript, native: Any) -> int | None:
    """The index of the line whose payload is the very object `native` (None if none is);
    the index of the lines is kept with them (`native_memo`) for every transcript that
    holds them."""
    if native is None:
        return None
    if source_of(transcript.native) is not None:  # which lines are parsed changes
        return payload_index(transcript.native).get(id(native))
    memo = native_memo(transcript)
    index = memo.get("codex-payloads")
    if index is None:
        index = memo["codex-payloads"] = payload_index(transcript.native)
    return index.get(id(native))


def _message_line(transcript: Transcript, message: Message) -> int | None:
    """The index of the line `message` was read from (`_line_of` its native value)."""
    at = held_at(message, transcript.native)
    return at if at is not None else _line_of(transcript, message.native)


def _same_entry(lines: Any, index: int, other: Any, other_index: int) -> bool:
    """Whether two lines held as text are one line as read (the same index into it)."""
    mine, theirs = entry_of(lines, index), entry_of(other, other_index)
    return type(mine) is int and type(theirs) is int and mine == theirs


class CodexCodec(Codec):
    """Codex CLI rollout JSONL: the `response_item` lines, as Responses items."""

    name = "codex"
    one_result_per_message = True
    summary = "Codex CLI rollouts (one event per JSONL line, Responses items in response_item)"
    items_are_messages = True
    held_items = ("response_item", "payload")
    known_roles = _RESPONSES.known_roles
    read_call_keys = _RESPONSES.read_call_keys
    verbatim_types = _RESPONSES.verbatim_types | CODEX_VERBATIM

    def sniff(self, data: JsonValue) -> float:
        """Sure when the lines have the rollout envelope (`type` + `payload`) and one is a
        `session_meta` or `response_item` line."""
        return sniff(data)

    def decode(self, data: JsonValue) -> Transcript:
        """Decode the list of a rollout file's lines."""
        lines = check_lines(data)
        return model.Transcript(messages=decode_lines(lines), format=self.name, native=data)

    def decode_written(self, data: JsonValue, transcript: Transcript) -> Transcript:
        """`Codec.decode_written`: a payload that is the very item a message of
        `transcript` was read from, still as read (`reads_as`), is that message."""
        lines = check_lines(data)
        source = source_of(lines)
        known: dict[int, Message] = {}
        known_at: dict[int, Message] = {}
        for message in transcript.messages:
            at = held_at(message, source) if source is not None else None
            if at is not None and reads_as(message, decode_item):
                known_at[at] = message  # by its line as read: its payload is not parsed
            elif reads_as(message, decode_item):
                known[id(message.native)] = message
        found = decode_lines(lines, known, known_at)
        return model.Transcript(messages=found, format=self.name, native=data)

    def decode_read(self, data: JsonValue, outline: Outline | None) -> Transcript:
        """`decode(data)`; given the outline this codec's fast reader read of `data`, each
        message is built unread (`model.unread_message`) and decoded only when something
        asks for more than its payload."""
        if outline is None or outline.format != self.name:
            return self.decode(data)
        lines = check_lines(data)
        slots = item_lines(lines)
        if len(slots) != len(outline.messages):
            return self.decode(data)
        if isinstance(lines, HeldLines):  # each payload parsed when first asked for
            found = messages_held(lines, slots, decode_item, outline.imageless)
            return model.Transcript(messages=found, format=self.name, native=data)
        at = ((lines[i]["payload"], join_pointer("", i, "payload")) for i in slots)
        found = unread_messages(at, decode_item, outline.imageless)
        return model.Transcript(messages=found, format=self.name, native=data)

    def read_outline(self, data: JsonValue) -> Outline | None:
        """The outline read without building models, or None (`Codec.read_outline`)."""
        return read_outline(data)

    def read_streamed(self, lines: Iterable[Any], sizes: list[int]) -> Outline | None:
        """`read_outline` of a rollout's lines read one at a time and not held."""
        return read_lines(lines)

    def encode(self, transcript: Transcript) -> JsonValue:
        """Encode to rollout lines, rewriting only the lines the edits touch."""
        native = transcript.native
        held = source_of(native) is not None
        lines = check_lines(native) if held or isinstance(native, list) else []
        return encode_lines(transcript, lines)

    def rename_references(self, transcript: Transcript, renames: Mapping[str, str]) -> Transcript:
        """The `event_msg` lines that cite a renamed call by `call_id` (`exec_command_end`,
        `patch_apply_end`, `mcp_tool_call_end`, ...) cite its new id; other lines are
        the very objects they were."""
        native = transcript.native
        if not isinstance(native, list) and source_of(native) is None:
            return transcript
        lines = renamed_events(check_lines(native), renames)
        if lines is None:
            return transcript
        return transcript.evolve(native=lines)  # type: ignore[no-any-return]

    def check_fixed(self, original: Transcript, fixed: Transcript) -> str | None:
        """What the fix would break: a kept item whose key changes JSON type (compared with
        the payload of its own line as written), as `Codec.check_fixed` checks."""
        emptied_history = emptied(self, original, fixed)
        if emptied_history is not None:
            return emptied_history
        native = fixed.native
        if not isinstance(native, list) and source_of(native) is None:
            return None
        written, where = placed_lines(fixed, check_lines(native))
        for index, message in enumerate(fixed.messages):
            at = held_at(message, native)
            if at is not None and at in where and _same_entry(written, where[at], native, at):
                continue  # its line as read, written as read
            line = _line_of(fixed, message.native) if at is None else at
            if isinstance(message.native, dict) and line in where:
                payload = written[where[line]].get("payload")
                if payload is message.native:
                    continue  # written as read
                place = f" in message {index + 1} of {len(fixed.messages)}"
                problem = _type_change(message.native, payload, place)
                if problem is not None:
                    return problem
        return None

    def message_pointer(self, transcript: Transcript, message_index: int) -> str:
        """`/<line index>/payload` of the message's line ("" for a message not read from one)."""
        message = transcript.messages[message_index]
        index = _message_line(transcript, message)
        if index is None:
            index = next(
                (i for p in message.parts if (i := _line_of(transcript, p.native)) is not None),
                None,
            )
        return "" if index is None else f"/{index}/payload"

    def part_pointer(self, transcript: Transcript, message_index: int, part_index: int) -> str:
        """The content part (`.../payload/content/K`), the string content, or the item."""
        message = transcript.messages[message_index]
        part = message.parts[part_index]
        index = _line_of(transcript, part.native)
        at = f"/{index}/payload" if index is not None else ""
        if not at:
            at = self.message_pointer(transcript, message_index)
        if at and part.slot == "content[]":
            return f"{at}/content/{first_index(message, part_index, part.slot)}"
        if at and part.slot == "content":
            return f"{at}/content"
        return at
