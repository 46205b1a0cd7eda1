"""`HeldLines`: the lines of a long session file held as text, each parsed when asked for.

A damaged session is checked on models, and a fix rewrites a few of its lines; the rest
are written back as read. Parsed whole, its lines take 2-4 times the file (a string with
one emoji holds four bytes a letter). `HeldLines` keeps the file's bytes, where each line
starts and ends, and the `type` of each, and parses a line the first time something asks
for it, then keeps that value: a line is the same object every time it is asked for, as
in a list. What reads every line (iterating it) parses them all, and is answered as a
list would answer; what knows it asks about a few asks by index (`entries_of`,
`indices_of`, `owners`, `peek`). The lines a codec writes from them are `EditedLines`:
each entry the index of a line as read, or a new value.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, overload

import histnorm.jsonio as jsonio
from histnorm.errors import join_pointer
from histnorm.model_terms import HELD, UNREAD

POOLED = 128
"""The longest string a parsed line shares with the lines parsed before it."""

_ABSENT: Any = object()


def pooled(value: Any, pool: dict[str, str]) -> Any:
    """`value`, a line just parsed, with each short string of it and of the objects it
    holds one string object for every line that spells it: a session repeats its id,
    folder, version and roles on each line, and a parsed line holds a copy of each."""
    for holder in (value, *value.values()) if isinstance(value, dict) else ():
        if isinstance(holder, dict):
            for key, item in holder.items():
                if type(item) is str and len(item) <= POOLED:
                    holder[key] = pool.setdefault(item, item)
    return value


class _Lines(Sequence[Any]):
    """What `HeldLines` and `EditedLines` share: indexing, iterating, comparing, and the
    indices of the lines of each `type`, worked out once."""

    __slots__ = ()

    def __iter__(self) -> Iterator[Any]:
        return (self[index] for index in range(len(self)))

    def __eq__(self, other: object) -> bool:
        return _equal(self, other)

    __hash__ = None  # type: ignore[assignment]

    @overload
    def __getitem__(self, index: int) -> Any: ...
    @overload
    def __getitem__(self, index: slice) -> list[Any]: ...
    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return [self.line(i) for i in range(*index.indices(len(self)))]
        return self.line(index + len(self) if index < 0 else index)

    def line(self, index: int) -> Any:
        """Line `index` (not negative), parsed if it was not."""
        raise NotImplementedError

    def kinds(self) -> Sequence[Any]:
        """The `type` of each line (None where it has none that is a string)."""
        raise NotImplementedError

    def indices_of(self, kind: str) -> list[int]:
        """The indices of the lines whose `type` is `kind`, in order (worked out once:
        never change the list given)."""
        known: dict[str, list[int]] = self._indices  # type: ignore[attr-defined]
        found = known.get(kind)
        if found is None:
            found = known[kind] = [i for i, k in enumerate(self.kinds()) if k == kind]
        return found


class HeldLines(_Lines):
    """The message lines of a session's text (`body`, after any BOM), each parsed when
    first asked for (`jsonio.loads_typed`, or exactly where it may hold a long integer,
    its short strings pooled) and kept. `types`: each line's `type` (None where it has
    none that is a string); a line of type `item_type` holds its message's native value
    under `item_key`; `sizes`: each line's length, as `ReadLines` holds them."""

    __slots__ = (
        "__weakref__",
        "_body",
        "_ends",
        "_indices",
        "_pool",
        "_starts",
        "_values",
        "item_key",
        "item_type",
        "owners",
        "sizes",
        "types",
    )

    def __init__(
        self,
        body: bytes,
        spans: tuple[array[int], array[int]],
        types: Sequence[str | None],
        item: tuple[str, str],
    ) -> None:
        self._body = body
        self._starts, self._ends = spans
        self.types = tuple(types)
        self.sizes = tuple(end - start for start, end in zip(*spans, strict=True))
        self.item_type, self.item_key = item
        self._values: dict[int, Any] = {}
        self._pool: dict[str, str] = {}
        self._indices: dict[str, list[int]] = {}
        self.owners: dict[int, int] = {}
        """The index of each line parsed so far that holds a message's native value, by
        the `id` of that value (no other line's value is held by anything)."""

    def __len__(self) -> int:
        return len(self._starts)

    def __repr__(self) -> str:
        return f"HeldLines({len(self)} lines, {len(self._values)} parsed)"

    def line(self, index: int) -> Any:
        """Line `index`, parsed (and kept) the first time it is asked for."""
        value = self._values.get(index, _ABSENT)
        if value is _ABSENT:
            value = self._values[index] = pooled(self.peek(index), self._pool)
            if self.types[index] == self.item_type and isinstance(value, dict):
                native = value.get(self.item_key)
                if native is not None:
                    self.owners[id(native)] = index
        return value

    def kinds(self) -> Sequence[Any]:
        """The `type` of each line."""
        return self.types

    def text(self, index: int) -> bytes:
        """The JSON text of line `index` (without its ending)."""
        return self._body[self._starts[index] : self._ends[index]]

    def offsets(self) -> tuple[array[int], array[int]]:
        """Where each line starts, and where each ends, in the body."""
        return self._starts, self._ends

    def span(self, index: int) -> tuple[int, int]:
        """Where line `index` starts and ends in the body."""
        return self._starts[index], self._ends[index]

    def peek(self, index: int) -> Any:
        """Line `index` as `self[index]` reads it, not kept when it was not parsed yet
        (for what reads many lines once: they are not held after)."""
        value = self._values.get(index, _ABSENT)
        if value is _ABSENT:
            text = self.text(index)  # IndexError past the end
            value = jsonio.loads_typed(text)
            if jsonio.read_inexactly(value, text):
                value = jsonio.loads(text)
        return value

    def parsed_lines(self) -> list[int]:
        """The indices of the lines parsed so far."""
        return sorted(self._values)

    def pointer_of(self, index: int) -> str:
        """The JSON Pointer of the native value of the message of line `index`."""
        return join_pointer("", index, self.item_key)

    def native_of(self, index: int) -> Any:
        """The native value of the message of line `index`: its `item_key` value."""
        line = self.line(index)
        return line.get(self.item_key) if isinstance(line, dict) else None


class EditedLines(_Lines):
    """The lines a codec writes for a transcript read from `source` (`HeldLines`): each
    entry the index of a line of `source` written as read, or a new line value. A line as
    read is `source`'s own object whenever it is asked for (parsed then)."""

    __slots__ = ("__weakref__", "_indices", "_new", "_where", "entries", "source")

    def __init__(self, source: HeldLines, entries: list[Any]) -> None:
        self.source = source
        self.entries = entries
        self._where: dict[int, int] | None = None
        self._new: dict[int, int] | None = None
        self._indices: dict[str, list[int]] = {}

    sizes = None
    """The edited lines have no text to measure."""

    def __len__(self) -> int:
        return len(self.entries)

    def __repr__(self) -> str:
        return f"EditedLines({len(self)} lines)"

    def line(self, index: int) -> Any:
        """Line `index`: a new value, or a line of `source` (parsed if it was not)."""
        entry = self.entries[index]
        return self.source.line(entry) if type(entry) is int else entry

    def kinds(self) -> list[Any]:
        """The `type` of each line, read without parsing a line as read."""
        types = self.source.types
        return [
            types[e] if type(e) is int else (e.get("type") if isinstance(e, dict) else None)
            for e in self.entries
        ]

    def where(self, index: int) -> int | None:
        """Where line `index` of `source` is written as read, or None if it is not."""
        if self._where is None:
            self._where = {e: j for j, e in enumerate(self.entries) if type(e) is int}
        return self._where.get(index)

    @property
    def owners(self) -> Mapping[int, int]:
        """The index of each line holding a message's native value that anything holds,
        by the `id` of that value (`HeldLines.owners`)."""
        return _Owners(self)

    def new_owners(self) -> dict[int, int]:
        """`owners` of the new lines (worked out once)."""
        if self._new is None:
            source = self.source
            self._new = {
                id(native): j
                for j, e in enumerate(self.entries)
                if type(e) is not int
                and isinstance(e, dict)
                and e.get("type") == source.item_type
                and (native := e.get(source.item_key)) is not None
            }
        return self._new


class _Owners(Mapping[int, int]):
    """`EditedLines.owners`: the new lines', then those of the lines as read, where they
    are written as read."""

    __slots__ = ("lines",)

    def __init__(self, lines: EditedLines) -> None:
        self.lines = lines

    def __getitem__(self, key: int) -> int:
        found = self.lines.new_owners().get(key)
        if found is None:
            index = self.lines.source.owners.get(key)
            found = None if index is None else self.lines.where(index)
        if found is None:
            raise KeyError(key)
        return found

    def __iter__(self) -> Iterator[int]:
        yield from self.lines.new_owners()
        for key, index in self.lines.source.owners.items():
            if self.lines.where(index) is not None:
                yield key

    def __len__(self) -> int:
        return sum(1 for _ in self)


class HeldSpans(Sequence[tuple[int, int, None]]):
    """Where each line of `HeldLines` starts and ends, as `Document.lines` holds them (no
    parsed value), worked out when asked for; it holds the offsets, not the lines."""

    __slots__ = ("_ends", "_starts")

    def __init__(self, lines: HeldLines) -> None:
        self._starts, self._ends = lines.offsets()

    def __len__(self) -> int:
        return len(self._starts)

    @overload
    def __getitem__(self, index: int) -> tuple[int, int, None]: ...
    @overload
    def __getitem__(self, index: slice) -> list[tuple[int, int, None]]: ...
    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        return self._starts[index], self._ends[index], None


def held_line(message: Any) -> tuple[HeldLines, int] | None:
    """The lines held as text and the index of the line `message` was built from unread
    (`histnorm.model.unread_held`), while it is unread; else None."""
    memo = message.__dict__
    index = memo.get(HELD)
    if index is None:
        return None
    lines: HeldLines = memo[UNREAD][2]
    return lines, index


def source_of(lines: Any) -> HeldLines | None:
    """The lines as read that `lines` are, or are written from (None for a list)."""
    if isinstance(lines, HeldLines):
        return lines
    return lines.source if isinstance(lines, EditedLines) else None


def position(lines: Sequence[Any], source: HeldLines, index: int) -> int | None:
    """Where line `index` of `source` is in `lines` as read, or None."""
    if lines is source:
        return index
    if isinstance(lines, EditedLines) and lines.source is source:
        return lines.where(index)
    return None


def entries_of(lines: Sequence[Any]) -> Sequence[Any]:
    """What each line of `lines` is written as: the index of a line as read (held
    lines), else the line's value."""
    if isinstance(lines, HeldLines):
        return range(len(lines))
    if isinstance(lines, EditedLines):
        return lines.entries
    return lines


def entry_of(lines: Sequence[Any], index: int) -> Any:
    """`entries_of(lines)[index]`."""
    return entries_of(lines)[index]


def written(lines: Sequence[Any], entries: list[Any]) -> Sequence[Any]:
    """The lines `entries` give (`entries_of` of `lines`, and new values)."""
    source = source_of(lines)
    return entries if source is None else EditedLines(source, entries)


def _equal(lines: _Lines, other: object) -> bool:
    """Whether `other` holds the lines `lines` holds, as a list would compare them: a line
    both hold as read (one index) is not parsed to tell."""
    if lines is other:
        return True
    if not isinstance(other, list | _Lines) or len(other) != len(lines):
        return False
    one = source_of(other) is source_of(lines)
    theirs = entries_of(other)
    for index, mine in enumerate(entries_of(lines)):
        if one and type(mine) is int and type(theirs[index]) is int and mine == theirs[index]:
            continue
        if lines[index] != other[index]:
            return False
    return True


SKIP: Any = object()
"""What `candidate_line` gives for a line that cannot hold what is looked for."""


def candidate_line(lines: Sequence[Any], index: int, spelled: Sequence[bytes]) -> Any:
    """Line `index` of lines held as text (`SKIP` when it is a line as read whose text
    holds none of `spelled` and no escape, which could spell one: it then holds none of
    them as a string or a key); read and not kept when it is not parsed yet."""
    entry = entry_of(lines, index)
    if type(entry) is not int:
        return entry
    source = source_of(lines)
    assert source is not None
    text = source.text(entry)
    if b"\\" not in text and not any(word in text for word in spelled):
        return SKIP
    return source.peek(entry)


def indices_of(lines: Sequence[Any], kind: str) -> list[int]:
    """The indices of the lines of `lines` whose `type` is `kind`, parsing none held as
    text."""
    if isinstance(lines, _Lines):
        return lines.indices_of(kind)
    return [
        i for i, line in enumerate(lines) if isinstance(line, dict) and line.get("type") == kind
    ]
