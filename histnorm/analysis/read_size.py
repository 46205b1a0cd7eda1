"""A bound on the JSON size of the messages a transcript still holds as read.

The request-size check (HN113) measures the native value of every message. On the
transcript as read it rules itself out on the length of the JSON text the value was
parsed from (`Context.json_size`); the transcripts a run of fixes makes have no text of
their own, and measuring each of their messages writes the whole history again. The
transcript as read keeps its text's length (`keep_text`), a fixed one made from it is
given the same (`carry_text`), and `read_bound` bounds by it what the messages whose
native value is an item of the list that text was parsed as (a message of a message
list, a line of a session) measure together: only the messages a fix made are measured.
The string-length check passes over the messages decoded from a text no longer than its
limit the same way (`decoded_within`).

Why the bound holds: the items of a parsed list are disjoint parts of its text, and the
compact JSON the check measures spells no token longer than the text did, but a float in
exponent form, which Python may spell positionally: `1e15` (4 characters) is
`1000000000000000.0` (18), 4.5 times as long; so the items' JSON together is no longer
than `GROWTH` times the text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from histnorm.held_lines import HeldLines, held_line
from histnorm.model_terms import memo_source, same_source

if TYPE_CHECKING:
    from histnorm.model import Message, Transcript

GROWTH = 5
"""How many times longer than its text a parsed JSON value's compact JSON may be (4.5,
rounded up: see the module docstring)."""

_TEXT = "_histnorm_read_text"
"""Where a transcript keeps its `_Text` in its `__dict__` (pydantic ignores it: not a
field, not compared), with what it was kept for (`memo_source`)."""


class _Text:
    """The parsed native value a transcript was decoded from, the length of the JSON text
    it was parsed from and the messages decoded from it; the `id`s of the items of its
    list, and of those messages, worked out on first use."""

    __slots__ = ("_decoded", "_items", "length", "longest", "messages", "native")

    def __init__(self, native: Any, length: int, messages: Sequence[Message]) -> None:
        self.native = native
        self.length = length
        sizes = getattr(native, "sizes", None)  # the lines of a session (`ReadLines`)
        self.longest = max(sizes) if sizes and len(sizes) == len(native) else length
        """The length of the longest text one string of it is read from: the longest
        line of a session's lines, else the whole text."""
        self.messages = messages
        self._items: frozenset[int] | None = None
        self._decoded: frozenset[int] | None = None

    def decoded(self) -> frozenset[int]:
        """The `id` of each message decoded from the text."""
        found = self._decoded
        if found is None:
            found = self._decoded = frozenset(map(id, self.messages))
        return found

    def items(self) -> frozenset[int]:
        """The `id` of each item of the native list, or of each list directly under the
        native object (an envelope's `messages`)."""
        found = self._items
        if found is None:
            native = self.native
            if isinstance(native, list):
                found = frozenset(map(id, native))
            elif isinstance(native, dict):
                found = frozenset(
                    id(item)
                    for value in native.values()
                    if isinstance(value, list)
                    for item in value
                )
            else:
                found = frozenset()
            self._items = found
        return found


def keep_text(transcript: Transcript, native: Any, raw: bytes) -> None:
    """Keep on `transcript`, decoded from `native`, the length of `raw`, the JSON text
    `native` was parsed from (or the compact JSON of it)."""
    text = _Text(native, len(raw), transcript.messages)
    transcript.__dict__[_TEXT] = (memo_source(transcript), text)


def carry_text(original: Transcript, fixed: Transcript) -> None:
    """Give `fixed`, which fixes made of `original`, the text `original` keeps, if any: the
    messages of `fixed` that still hold an item of it are bounded by it (`read_bound`)."""
    held = original.__dict__.get(_TEXT)
    if held is not None and same_source(held[0], memo_source(original)):
        fixed.__dict__[_TEXT] = (memo_source(fixed), held[1])


def _kept(transcript: Transcript) -> _Text | None:
    """The text `transcript` keeps (`keep_text`, `carry_text`), if any."""
    held = transcript.__dict__.get(_TEXT)
    if held is None or not same_source(held[0], memo_source(transcript)):
        return None
    text: _Text = held[1]
    return text


def read_bound(transcript: Transcript) -> tuple[int, Sequence[Message]]:
    """A bound on the compact JSON size of the native values of the messages of
    `transcript` that hold an item of the text it keeps (`keep_text`, `carry_text`), each
    item once, and the messages it does not bound (those a fix made, and any that holds
    an item another message holds too)."""
    messages = transcript.messages
    text = _kept(transcript)
    if text is None:
        return 0, messages
    items = text.items()
    counted: set[Any] = set()
    others: list[Message] = []
    held = isinstance(text.native, HeldLines)
    for message in messages:
        line = held_line(message) if held else None
        if line is not None and line[0] is text.native:  # a line's payload: one line each
            key: Any = ("line", line[1])
            if key not in counted:
                counted.add(key)
                continue
            others.append(message)
            continue
        key = id(message.native)
        if key in items and key not in counted:
            counted.add(key)
        else:
            others.append(message)
    return (GROWTH * text.length if counted else 0), others


def decoded_within(transcript: Transcript, limit: int) -> frozenset[int]:
    """The `id`s of the messages of the text `transcript` keeps that were decoded from it
    (the very messages, which a fix would have replaced to change), when that text (of a
    session's lines, its longest line) is no longer than `limit` characters: no string any
    of them holds is longer (each is read from its spelling in one line of the text, and
    made of no more than that); else none."""
    text = _kept(transcript)
    if text is None or text.longest > limit:
        return frozenset()
    return text.decoded()
