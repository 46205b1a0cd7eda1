"""TRL conversational records (formats.md §7d): `{"prompt": [...], "completion": [...]}`
(also KTO's with a `label`) and preference pairs `{"prompt": [...], "chosen": [...],
"rejected": [...]}` (the prompt may be left implicit: `chosen` and `rejected` alone), each
side a list of chat-template messages (`histnorm.formats.chat_template`); `tools` and
every other key are kept. See https://huggingface.co/docs/trl/dataset_formats.

A record is one transcript whose messages are the sides in order, each message knowing
its side by the native object it was read from (a message a fix adds goes with the one
before it). A prompt-completion record is one conversation. A preference pair holds two,
the prompt followed by `chosen` and the prompt followed by `rejected` (`conversations`):
the rules run on each, so a defect in `rejected` is reported at `/rejected/N`, and a fix
rewrites only the side it is in; a fix that would change the prompt both answers share
in only one of them is refused (`join`).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import TYPE_CHECKING, Any

from histnorm.errors import HistnormError, join_pointer
from histnorm.formats.base import Codec, rebuild, type_name
from histnorm.formats.chat_template import decode_message, encode_message, part_pointer_at
from histnorm.formats.chat_template.v1 import dialect_of
from histnorm.lazy import model
from histnorm.model_terms import JsonValue

if TYPE_CHECKING:
    from histnorm.model import Message, Transcript

PROMPT = "prompt"
ANSWERS = ("completion", "chosen", "rejected")


def sides_of_record(data: Any) -> tuple[str, ...] | None:
    """The TRL keys of `data` that hold its sides, in order (`prompt`, `completion`;
    `prompt`, `chosen`, `rejected`; or `chosen`, `rejected`), or None for anything else
    (a record with `messages` or `conversations` is another format's)."""
    if not isinstance(data, dict) or "messages" in data or "conversations" in data:
        return None
    if "chosen" in data and "rejected" in data:
        return ("prompt", "chosen", "rejected") if "prompt" in data else ("chosen", "rejected")
    if "prompt" in data and "completion" in data:
        return ("prompt", "completion")
    return None


def _conversational(data: dict[str, Any], keys: tuple[str, ...]) -> bool:
    """Whether every side is a list of objects and some side holds a message with a role
    (TRL's conversational type; its standard type has strings)."""
    sides = [data[key] for key in keys]
    if not all(isinstance(side, list) for side in sides):
        return False
    items = [item for side in sides for item in side]
    return all(isinstance(m, dict) for m in items) and any("role" in m for m in items)


def is_record(data: Any) -> bool:
    """Whether `data` is a TRL conversational record (its sides are message lists)."""
    keys = sides_of_record(data)
    return keys is not None and _conversational(data, keys)


def sides_of(transcript: Transcript) -> list[str]:
    """The side of each message of `transcript`: the key whose list holds its native
    object (matched in order, so one object twice in a record is two messages); a
    message with none (one a fix added) goes with the message before it."""
    return _assigned(transcript)[0]


def _assigned(transcript: Transcript) -> tuple[list[str], bool]:
    """`sides_of`, and whether every message read from the record is still in the order
    it was read in."""
    record = transcript.native
    keys = sides_of_record(record)
    if keys is None:
        raise HistnormError("histnorm cannot write a new TRL record: it has no prompt or sides")
    assert isinstance(record, dict)
    natives = [(key, m) for key in keys if isinstance(record[key], list) for m in record[key]]
    read = {id(m) for _, m in natives}
    out = []
    last, at, ordered = keys[0], 0, True
    for message in transcript.messages:
        for index in range(at, len(natives)):
            if natives[index][1] is message.native:
                last, at = natives[index][0], index + 1
                break
        else:
            ordered = ordered and id(message.native) not in read
        out.append(last)
    return out, ordered


def _in_order(sides: Sequence[str], keys: Sequence[str]) -> bool:
    ranks = [keys.index(side) for side in sides]
    return all(a <= b for a, b in pairwise(ranks))


class TRLCodec(Codec):
    """TRL prompt-completion and preference records of chat-template messages."""

    name = "trl"
    one_result_per_message = True
    needs_call_ids = False
    summary = "TRL conversational records (prompt / completion, prompt / chosen / rejected)"
    known_roles = frozenset({"system", "developer", "user", "assistant", "tool"})
    read_call_keys = frozenset({"tool_calls", "tool_call_id"})

    def sniff(self, data: JsonValue) -> float:
        """0.95 for a record with TRL's keys whose sides are message lists; else 0."""
        return 0.95 if is_record(data) else 0.0

    def decode(self, data: JsonValue) -> Transcript:
        """The messages of every side, in order."""
        keys = sides_of_record(data)
        if keys is None:
            raise HistnormError(
                "expected a TRL record: an object with prompt and completion, or chosen and "
                f"rejected, got {type_name(data)}",
                pointer="",
            )
        assert isinstance(data, dict)
        messages: list[Message] = []
        for key in keys:
            side = data[key]
            if not isinstance(side, list):
                raise HistnormError(
                    f"expected {key} to be an array of messages, got {type_name(side)}",
                    pointer=join_pointer("", key),
                )
            messages.extend(decode_message(m, join_pointer("", key, i)) for i, m in enumerate(side))
        return model.Transcript(messages=tuple(messages), format=self.name, native=data)

    def encode(self, transcript: Transcript) -> JsonValue:
        """The record with each side's messages written back (a side no fix touched is
        the very list it was read from)."""
        record = transcript.native
        sides = sides_of(transcript)
        keys = sides_of_record(record)
        assert keys is not None and isinstance(record, dict)
        if not _in_order(sides, keys):
            raise HistnormError("histnorm cannot write a message outside its side of the record")
        dialect = dialect_of(transcript.messages)
        lists: dict[str, list[Any]] = {key: [] for key in keys}
        for message, side in zip(transcript.messages, sides, strict=True):
            lists[side].extend(encode_message(message, dialect))
        updates = {
            key: record[key] if _same_items(record[key], new) else new for key, new in lists.items()
        }
        return rebuild(record, updates)

    def message_pointer(self, transcript: Transcript, message_index: int) -> str:
        """`/<side>/N`: the message's place in its own side."""
        sides = sides_of(transcript)
        side = sides[message_index]
        return join_pointer("", side, sides[:message_index].count(side))

    def message_arrays(self, transcript: Transcript) -> tuple[str, ...]:
        """One array per side."""
        keys = sides_of_record(transcript.native)
        return tuple(join_pointer("", key) for key in keys or ())

    def part_pointer(self, transcript: Transcript, message_index: int, part_index: int) -> str:
        """Point at the content item, tool call, content or reasoning key holding the part."""
        at = self.message_pointer(transcript, message_index)
        return part_pointer_at(at, transcript.messages[message_index], part_index)

    def conversations(self, transcript: Transcript) -> tuple[tuple[int, ...], ...] | None:
        """For a preference pair, the indices of the prompt's messages with each answer's;
        None for one conversation (a prompt-completion record, or one side of a pair)."""
        sides = sides_of(transcript)
        answers = [key for key in ("chosen", "rejected") if key in sides]
        if len(answers) < 2:
            return None
        prompt = tuple(i for i, side in enumerate(sides) if side == PROMPT)
        return tuple(
            prompt + tuple(i for i, side in enumerate(sides) if side == answer)
            for answer in answers
        )

    def join(self, transcript: Transcript, parts: Sequence[Transcript]) -> Transcript | str:
        """The record with each conversation's answer from `parts` (fixed conversations of
        `transcript`), or why they cannot be joined: their prompts differ."""
        prompts: list[tuple[Message, ...]] = []
        answers: list[Message] = []
        for part in parts:
            sides = sides_of(part)
            prompts.append(
                tuple(m for m, s in zip(part.messages, sides, strict=True) if s == PROMPT)
            )
            answers.extend(m for m, s in zip(part.messages, sides, strict=True) if s != PROMPT)
        if any(prompt != prompts[0] for prompt in prompts):
            return (
                "a fix would change the prompt that chosen and rejected share in only one of them"
            )
        return transcript.model_copy(update={"messages": (*prompts[0], *answers)})

    def check_fixed(self, original: Transcript, fixed: Transcript) -> str | None:
        """Refuse a fix that moves a message out of its side, or changes a JSON type."""
        keys = sides_of_record(fixed.native) or ()
        sides, ordered = _assigned(fixed)
        if not ordered or not _in_order(sides, keys):
            return "a fix would move a message out of its side of the record"
        return super().check_fixed(original, fixed)


def _same_items(old: Any, new: list[Any]) -> bool:
    return (
        isinstance(old, list)
        and len(old) == len(new)
        and all(a is b for a, b in zip(old, new, strict=True))
    )
