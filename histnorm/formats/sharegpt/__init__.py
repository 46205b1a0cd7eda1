"""ShareGPT records in the LLaMA-Factory convention (formats.md §7a).

A record is `{"conversations": [{"from": tag, "value": ...}, ...], "system"?: str,
"tools"?: str, ...}` (a JSONL file holds one per line); a bare list of turns is read too.
The other record keys (`system`, `tools`, `chosen`, `rejected`, `images`, ...) stay in the
envelope verbatim and are not part of the transcript. Each turn is one message:

- `human`/`user` → role `user`, `gpt`/`assistant` → `assistant`, `system` → `system`; any
  other tag becomes a role of the same name. A string value is one TextPart (slot
  `value`); any other value is one UnknownPart (slot `value`).
- `function_call` → role `assistant`. The value is a JSON string holding one call object
  `{"name", "arguments"}` (slot `function_call`) or a list of them (slot
  `function_call[K]`, K the position in the list). Each call is a ToolCallPart with
  `call_id` None and `arguments` the raw value inside the string. A value that is not a
  JSON object or a list of objects (invalid JSON, code, a number) is one UnknownPart (slot
  `value`), so the record stays readable.
- `observation`/`tool` → role `tool`, ToolResultParts paired by position with `content`
  the raw value. A run of observations answers the function_call turn just before it:
  one observation per call, or a single observation for all the calls of a parallel turn,
  read as one result per call that each hold the whole value (slots `observation[K]`);
  otherwise slot `observation`. `name` is the name of the call answered, when known. An
  observation answering an unreadable function_call is an UnknownPart (slot `value`), so it
  is never reported, or removed, as an orphan.
- A null or absent value gives a message with no parts.

Tags are matched ignoring case and written back as read; new turns use the spellings the
record already uses (default `human`, `gpt`, `system`, `function_call`, `observation`).
A message that mixes text, calls and results becomes several turns. A changed
function_call turn is re-serialised compactly with the separators and ASCII escaping of its
original string (or of another function_call turn of the record); unchanged turns are kept
verbatim. A new result whose content is not a string (read from another format) is written
as its JSON text. Reasoning, media, usage and approval parts cannot be written.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import histnorm.jsonio as jsonio
from histnorm.analysis.outline import Outline
from histnorm.errors import HistnormError, join_pointer
from histnorm.formats.base import (
    MISSING,
    Codec,
    expect_object,
    join_envelope,
    rebuild,
    required_key,
    split_envelope,
    strict_equal,
)
from histnorm.formats.sharegpt.calls import (
    COMPACT,
    Answers,
    Style,
    answers_of,
    call_part,
    call_slot,
    call_value,
    detect_style,
    family,
    parse_calls,
    tag_kind,
)
from histnorm.formats.sharegpt.outline import read_outline, read_scored, turns_score
from histnorm.lazy import model
from histnorm.model_terms import JsonValue

if TYPE_CHECKING:
    from histnorm.model import Message, Part, ToolResultPart, Transcript

KEY = "conversations"
_DEFAULT_TAGS = {
    "user": "human",
    "assistant": "gpt",
    "system": "system",
    "call": "function_call",
    "tool": "observation",
}


def _parts(kind: str, value: Any, answers: Answers) -> tuple[Part, ...]:
    if value is None:
        return ()
    if kind == "call":
        calls = parse_calls(value)
        if calls is not None:
            single, items = calls
            return tuple(call_part(item, call_slot(single, k)) for k, item in enumerate(items))
    elif kind == "result" and answers is not None:
        shared = len(answers) > 1
        return tuple(
            model.ToolResultPart(
                call_id=None,
                name=name,
                content=value,
                family=family(name),
                native=value,
                slot=f"observation[{k}]" if shared else "observation",
            )
            for k, name in enumerate(answers)
        )
    elif kind == "text" and isinstance(value, str):
        return (model.TextPart(text=value, native=value, slot="value"),)
    return (model.UnknownPart(native=value, slot="value"),)


def decode_turn(obj: Any, pointer: str = "", answers: Answers = (None,)) -> Message:
    """Decode one turn; `answers` says what an observation turn answers."""
    turn = expect_object(obj, pointer, "a turn")
    tag = required_key(turn, "from", pointer, 'the turn tag "from"')
    kind, role = tag_kind(tag)
    return model.Message(role=role, parts=_parts(kind, turn.get("value"), answers), native=obj)


def _tags_and_style(transcript: Transcript) -> tuple[dict[str, str], Style]:
    tags = dict(_DEFAULT_TAGS)
    seen: set[str] = set()
    style: Style | None = None
    for message in transcript.messages:
        native = message.native
        if not isinstance(native, dict) or not isinstance(native.get("from"), str):
            continue
        kind, role = tag_kind(native["from"])
        key = "call" if kind == "call" else role.casefold()
        if key in tags and key not in seen:
            tags[key] = native["from"]
            seen.add(key)
        if kind == "call" and style is None:
            style = detect_style(native.get("value"))
    return tags, style or COMPACT


def _shared(part: ToolResultPart) -> bool:
    """Whether a result was read from one observation answering a whole parallel turn
    (slot `observation[K]`): only such results are written back as one observation; two
    new results of the same text are two observations, one per call."""
    return part.slot is not None and part.slot.startswith("observation[")


def _groups(parts: tuple[Part, ...]) -> list[tuple[str, list[Part]]]:
    """Split parts into turns: each text alone, consecutive calls together, and consecutive
    results read from one observation (`_shared`) with the same content together."""
    groups: list[tuple[str, list[Part]]] = []
    for part in parts:
        if isinstance(part, model.ToolCallPart):
            kind = "call"
        elif isinstance(part, model.ToolResultPart):
            kind = "result"
        elif isinstance(part, model.TextPart | model.RefusalPart):
            kind = "text"
        elif isinstance(part, model.UnknownPart) and part.native is not None:
            kind = "raw"
        else:
            raise HistnormError(f"a {part.kind} part cannot be written as a ShareGPT turn")
        last = groups[-1] if groups else None
        if last is not None and last[0] == kind:
            previous = last[1][-1]
            if kind == "call" or (
                isinstance(part, model.ToolResultPart)
                and isinstance(previous, model.ToolResultPart)
                and _shared(part)
                and _shared(previous)
                and strict_equal(part.content, previous.content)
            ):
                last[1].append(part)
                continue
        groups.append((kind, [part]))
    return groups


def _tag(kind: str, role: str, base: dict[str, Any], tags: dict[str, str]) -> str:
    base_tag = base.get("from")
    if isinstance(base_tag, str):
        base_kind, base_role = tag_kind(base_tag)
        if kind in ("call", "result") and base_kind == kind:
            return base_tag
        same_role = base_role.casefold() == role.casefold()
        if same_role and (kind in ("raw", "empty") or (kind == "text" and base_kind == "text")):
            return base_tag
    if kind in ("call", "result"):
        return tags["call" if kind == "call" else "tool"]
    key = role.casefold()
    return tags.get("system" if key == "developer" else key, role)


def _value(kind: str, parts: list[Part], base: dict[str, Any], style: Style) -> Any:
    first = parts[0]
    if kind == "call":
        tag = base.get("from")
        is_call = isinstance(tag, str) and tag_kind(tag)[0] == "call"
        return call_value(parts, base.get("value") if is_call else None, style)
    if isinstance(first, model.ToolResultPart):
        content = first.content
        if content is None or (first.native is None and not isinstance(content, str)):
            # Observations hold text: a result read from another format becomes JSON text.
            return "" if content is None else jsonio.dumps(content).decode("utf-8")
        return content
    if isinstance(first, model.TextPart | model.RefusalPart):
        return first.text
    return first.native


def encode_turns(
    message: Message, tags: dict[str, str] = _DEFAULT_TAGS, style: Style = COMPACT
) -> list[Any]:
    """Encode one message as one turn, or several when it mixes text, calls and results."""
    native = message.native
    base = native if isinstance(native, dict) else {}
    if not message.parts:
        again = decode_turn(base) if base else None
        if again is not None and not again.parts and again.role == message.role:
            return [native]
        value = None if "value" in base or not base else MISSING
        return [rebuild(base, {"from": _tag("empty", message.role, base, tags), "value": value})]
    turns = []
    for index, (kind, parts) in enumerate(_groups(message.parts)):
        own = base if index == 0 else {}
        tag = _tag(kind, message.role, own, tags)
        turns.append(rebuild(own, {"from": tag, "value": _value(kind, parts, own, style)}))
    if len(turns) == 1 and native is not None and strict_equal(turns[0], native):
        return [native]
    return turns


_AS_READ = "_histnorm_sharegpt_as_read"
"""Where `_turns` keeps, in a message's `__dict__` (pydantic ignores it), that the message
is written as its own native turn under the tags and style it names, with the message's
`id` (models are frozen; a copy has another `id`)."""


def _turns(message: Message, tags: dict[str, str], style: Style) -> list[Any]:
    """`encode_turns(message, tags, style)`, answered from the message's mark when it was
    written as its native turn before (the encodings one fix makes write each message it
    leaves alone once)."""
    mark = (id(message), tuple(tags.items()), style)
    memo = message.__dict__
    if memo.get(_AS_READ) == mark:
        return [message.native]
    turns = encode_turns(message, tags, style)
    if len(turns) == 1 and turns[0] is message.native:
        memo[_AS_READ] = mark
    return turns


def alternation(document: JsonValue) -> str | None:
    """Why LLaMA-Factory's converter would skip the record, or None: after an optional
    leading system turn, human or observation turns at even positions, gpt or
    function_call turns at odd ones, and an even number of turns (formats.md §7a)."""
    turns = document.get(KEY) if isinstance(document, dict) else document
    if not isinstance(turns, list):
        return None
    tags = [t.get("from") if isinstance(t, dict) else None for t in turns]
    skip = 1 if tags and isinstance(tags[0], str) and tag_kind(tags[0])[1] == "system" else 0
    for index, tag in enumerate(tags[skip:]):
        wanted = ("user", "tool") if index % 2 == 0 else ("assistant",)
        if not isinstance(tag, str) or tag_kind(tag)[1] not in wanted:
            return f"turn {index + skip + 1} ({tag}) would be out of turn"
    if (len(tags) - skip) % 2:
        return f"it would have an odd number of turns ({len(tags) - skip})"
    return None


class ShareGPTCodec(Codec):
    """ShareGPT records (LLaMA-Factory): `conversations` of `{from, value}` turns."""

    name = "sharegpt"
    one_result_per_message = True
    needs_call_ids = False
    summary = "ShareGPT dataset records (LLaMA-Factory convention) with function_call turns"
    known_roles = frozenset({"system", "user", "assistant", "tool"})
    read_call_keys = frozenset[str]()

    def sniff(self, data: JsonValue) -> float:
        """Likely when `conversations` (or a bare list) holds `{from, value}` turns."""
        if isinstance(data, dict):
            turns = data.get(KEY)
            if not isinstance(turns, list):
                return 0.0
            if not turns:
                return 0.6
        elif isinstance(data, list) and data:
            turns = data
        else:
            return 0.0
        for turn in turns[:50]:
            if not isinstance(turn, dict) or not isinstance(turn.get("from"), str):
                return 0.0
        return turns_score(data, turns)

    def read_outline(self, data: JsonValue) -> Outline | None:
        """The outline read without building models, or None (`Codec.read_outline`)."""
        return read_outline(data)

    def read_scored(self, data: JsonValue) -> tuple[Outline, float] | None:
        """The outline and the `sniff` score of `data` in one walk (`Codec.read_scored`)."""
        return read_scored(data)

    def decode(self, data: JsonValue) -> Transcript:
        """Decode a record holding `conversations`, or a bare list of turns."""
        turns, base = split_envelope(data, KEY, "ShareGPT turns")
        answers = answers_of(turns)
        decoded = tuple(
            decode_turn(turn, join_pointer(base, i), answers.get(i, (None,)))
            for i, turn in enumerate(turns)
        )
        return model.Transcript(
            messages=decoded, format=self.name, native=data if isinstance(data, dict) else None
        )

    def encode(self, transcript: Transcript) -> JsonValue:
        """Encode to the record (or bare list) the transcript was read from."""
        tags, style = _tags_and_style(transcript)
        turns: list[Any] = []
        for message in transcript.messages:
            turns.extend(_turns(message, tags, style))
        return join_envelope(transcript, KEY, turns)

    def check_fixed(self, original: Transcript, fixed: Transcript) -> str | None:
        """Refuse a repair that leaves a record LLaMA-Factory's loader would skip (it
        read the original): roles out of turn or an odd number of turns."""
        before, after = self.written(original), self.written(fixed)
        problem = alternation(before)
        if problem is None:
            problem = alternation(after)
            if problem is not None:
                return (
                    "LLaMA-Factory would skip the record, its turns no longer "
                    f"alternating: {problem}"
                )
        return super().check_fixed(original, fixed)

    def message_pointer(self, transcript: Transcript, message_index: int) -> str:
        """`/conversations/N` in a record, `/N` for a bare list."""
        base = "/" + KEY if isinstance(transcript.native, dict) else ""
        return join_pointer(base, message_index)

    def part_pointer(self, transcript: Transcript, message_index: int, part_index: int) -> str:
        """The turn's `value`: every part of a turn is read from it."""
        return join_pointer(self.message_pointer(transcript, message_index), "value")
