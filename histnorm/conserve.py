"""The conservation check: a fix removes, moves or rewrites only what it owns.

Each fix owns what its diagnostic names (`FixInfo.owns`, else the part or message it is
located at). A message whose every part is owned is owned with them; in a document that
is a list of lines, so is the line an owned part was read from (whole when no other part
was read from it, else its own keys and scalars); and so is every object naming the id
of a call or result the fix removes (its copy in a content block).

After a rule's fixes changed a transcript, `lost` compares the documents written before
and after: every key, string, number and boolean read from the input must still be
somewhere in the second, unless what is owned holds it. A string also counts as kept
inside a longer new string (merged text), JSON text as kept when every value in it is,
and the values of a codec's `derived_keys` are the writer's to change. Objects the two
documents share (untouched messages keep their very objects) are not walked. The check
runs only on the fix path, once per rule whose fixes changed something; a clean
transcript never reaches it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from histnorm.analysis.outline import Call, Result
from histnorm.diagnostic import Diagnostic
from histnorm.errors import HistnormError, join_pointer
from histnorm.formats import get_codec, outline_of
from histnorm.held_lines import HeldLines, entries_of, source_of
from histnorm.lazy import model
from histnorm.model_terms import UNREAD

if TYPE_CHECKING:
    from histnorm.model import Transcript

Atom = tuple[str, str]
"""One value a document holds: ("k", key), ("s", string) or (type name, repr)."""


def _walk(value: Any, pointer: str = "") -> Iterator[tuple[Atom, str]]:
    """Every atom of the JSON `value`, with the pointer it is at."""
    stack: list[tuple[Any, str]] = [(value, pointer)]
    while stack:
        here, at = stack.pop()
        if isinstance(here, dict):
            for key, inner in here.items():
                where = join_pointer(at, key)
                yield ("k", str(key)), where
                stack.append((inner, where))
        elif isinstance(here, list | tuple):
            stack.extend((inner, join_pointer(at, i)) for i, inner in enumerate(here))
        elif isinstance(here, str):
            yield ("s", here), at
        elif here is not None:
            yield (type(here).__name__, repr(here)), at


def atoms(value: Any) -> set[Atom]:
    """The keys, strings, numbers and booleans of the JSON `value` (those `_walk` yields,
    without working out where each one is)."""
    found: set[Atom] = set()
    stack = [value]
    while stack:
        here = stack.pop()
        if isinstance(here, dict):
            found.update(("k", str(key)) for key in here)
            stack.extend(here.values())
        elif isinstance(here, list | tuple):
            stack.extend(here)
        elif isinstance(here, str):
            found.add(("s", here))
        elif here is not None:
            found.add((type(here).__name__, repr(here)))
    return found


def _is_lines(native: Any) -> bool:
    """Whether `native` is a list of lines (a list, or lines held as text)."""
    return isinstance(native, list) or source_of(native) is not None


def _message_atoms(transcript: Transcript, index: int) -> set[Atom]:
    """What a message holds: its native value and fields, its parts, and the record it
    was read from (the line of a document that is a list of lines)."""
    message = transcript.messages[index]
    found = atoms(message.native)
    found |= atoms([message.role, message.id, message.author_name, message.metadata])
    for part in message.parts:
        found |= _part_atoms(part)
    native = transcript.native
    if _is_lines(native) and transcript.format is not None:
        codec = get_codec(transcript.format)
        pointers = [codec.message_pointer(transcript, index)]
        pointers += [codec.part_pointer(transcript, index, k) for k in range(len(message.parts))]
        for pointer in pointers:
            found |= atoms(_line(native, pointer))
    return found


def _line(native: Sequence[Any], pointer: str) -> Any:
    """The line (item of a document that is a list of lines) `pointer` is in, or None."""
    head = _head(pointer)
    return native[head] if head is not None and head < len(native) else None


def _lines(transcript: Transcript, index: int, held: set[int]) -> set[Atom]:
    """In a document that is a list of lines: the line each owned part (`held`, of
    message `index`) was read from, whole when every part read from it is owned, else its
    keys and scalars (its id, its parent's id, its time), which go with the part."""
    native = transcript.native
    if not _is_lines(native) or transcript.format is None:
        return set()
    codec = get_codec(transcript.format)
    heads: dict[int, list[int]] = {}
    for pi in range(len(transcript.messages[index].parts)):
        line = _line(native, codec.part_pointer(transcript, index, pi))
        if line is not None:
            heads.setdefault(id(line), []).append(pi)
    found: set[Atom] = set()
    for pi in held:
        line = _line(native, codec.part_pointer(transcript, index, pi))
        if not isinstance(line, dict):
            continue
        if set(heads.get(id(line), ())) <= held:
            found |= atoms(line)
        else:
            found |= atoms([*line, *(v for v in line.values() if not isinstance(v, dict | list))])
    return found


def _part_atoms(part: Any) -> set[Atom]:
    found = atoms(part.native) | atoms(part.model_dump(exclude={"native"}))
    if part.slot is not None:
        found.add(("k", part.slot))  # the key it lived under goes with it
    return found


def _at(value: Any, pointer: str) -> Any:
    """The value at `pointer` in `value` (None when there is none)."""
    for token in pointer.split("/")[1:]:
        token = token.replace("~1", "/").replace("~0", "~")
        if _is_lines(value) and token.isdigit() and int(token) < len(value):
            value = value[int(token)]
        elif isinstance(value, dict) and token in value:
            value = value[token]
        else:
            return None
    return value


class _Written:
    """Where each message and part of a transcript stands in `encoded`, the document it
    encodes to: `encoded` read back, each message aligned in order with the messages it
    reads as, by their parts (a message whose calls are items of their own reads as one
    message a call). Without a reading that aligns, the transcript's own pointers (into
    its native document) are used."""

    def __init__(self, transcript: Transcript, encoded: Any) -> None:
        self.transcript, self.encoded = transcript, encoded
        self.codec = get_codec(transcript.format or "")
        self.again: Transcript | None = None
        self.groups: list[list[int]] = []
        self._holders: dict[int, set[int | None]] = {}
        if encoded is None or transcript.format is None:
            return
        try:
            again = self.codec.decode_written(encoded, transcript)
        except HistnormError:
            return
        mine, read = transcript.messages, again.messages
        if len(read) == len(mine) and all(
            a is b or len(a.parts) == len(b.parts) for a, b in zip(mine, read, strict=True)
        ):  # each message reads as itself (one read as written is that very message)
            groups: list[list[int]] | None = [[k] for k in range(len(mine))]
        else:
            groups = _align([len(m.parts) for m in mine], again)
        if groups is not None:
            self.again, self.groups = again, groups

    def pointers(self, index: int, part: int | None) -> list[str]:
        """The pointers into `encoded` of a message (of each message it reads as) or a part."""
        if self.again is None:
            if part is None:
                return [self.codec.message_pointer(self.transcript, index)]
            return [self.codec.part_pointer(self.transcript, index, part)]
        group = self.groups[index]
        if part is None:
            return [self.codec.message_pointer(self.again, k) for k in group]
        for k in group:
            count = len(self.again.messages[k].parts)
            if part < count:
                return [self.codec.part_pointer(self.again, k, part)]
            part -= count
        return []

    def lines_of(self, index: int) -> set[Atom]:
        """In a document that is a list of lines: the atoms of the lines that hold message
        `index` and no other one (its timestamps and envelope go with it). A line two
        messages share is read by neighbours (readers walk the lines in order), so only
        the two messages on each side are asked."""
        if self.again is None or not _is_lines(self.encoded):
            return set()
        group = self.groups[index]
        mine: set[int | None] = set()
        others: set[int | None] = set()
        for k in range(max(group[0] - 2, 0), min(group[-1] + 3, len(self.again.messages))):
            (mine if k in group else others).update(self._heads(k))
        found: set[Atom] = set()
        for head in mine - others:
            if head is not None and head < len(self.encoded):
                found |= atoms(self.encoded[head])
        return found

    def _heads(self, k: int) -> set[int | None]:
        """The lines message `k` of the document read back is read from."""
        if k not in self._holders:
            assert self.again is not None
            message = self.again.messages[k]
            pointers = [self.codec.message_pointer(self.again, k)]
            if UNREAD not in message.__dict__:  # an unread one's parts are in its own value
                pointers += [
                    self.codec.part_pointer(self.again, k, p) for p in range(len(message.parts))
                ]
            self._holders[k] = {_head(pointer) for pointer in pointers}
        return self._holders[k]


def _head(pointer: str) -> int | None:
    """The line (index into a document that is a list of lines) `pointer` is in."""
    head = pointer.split("/")[1] if pointer.count("/") >= 1 else ""
    return int(head) if head.isdigit() else None


def _align(counts: list[int], again: Transcript) -> list[list[int]] | None:
    """For each message (given by its number of parts), the messages of `again` that hold
    its parts, in order; None when they do not add up."""
    messages = again.messages
    if len(messages) == len(counts) and all(
        len(message.parts) == want for message, want in zip(messages, counts, strict=True)
    ):
        return [[k] for k in range(len(counts))]  # each message reads as itself
    groups: list[list[int]] = []
    k = 0
    for want in counts:
        group: list[int] = []
        while k < len(again.messages):
            have = len(again.messages[k].parts)
            if (have == 0) != (want == 0) or have > want:
                break
            group.append(k)
            k += 1
            want -= have
            if want == 0:
                break
        if not group or want:
            return None
        groups.append(group)
    return groups if k == len(again.messages) else None


def _encoded(written: _Written, index: int, part: int | None) -> set[Atom]:
    """The atoms of what a message or a part is written as (a part histnorm made has no
    native value of its own)."""
    try:
        pointers = written.pointers(index, part)
    except (HistnormError, LookupError, ValueError):
        return set()
    found: set[Atom] = set()
    for pointer in pointers:
        if pointer:
            found |= atoms(_at(written.encoded, pointer))
    return found | written.lines_of(index) if part is None else found


class _Owned(NamedTuple):
    """What fixes own in a transcript (`_named`): the messages and parts they name. A
    call or a result they remove takes with it, besides, every object of the document
    that names its id (`_naming_removed`)."""

    atoms: set[Atom]
    """The atoms of the messages and parts they name."""
    whole: set[int]
    """The messages they own whole."""
    parts: dict[int, set[int]]
    """The parts they own of each other message."""


def _naming_removed(
    transcript: Transcript,
    found: _Owned,
    encoded: Any,
    after: Transcript | None,
    kept: set[int] | frozenset[int],
) -> set[Atom]:
    """The atoms of every object of `encoded`, the document `transcript` is written as,
    that names a call or result the fixes of `found` removed (`after` holds it no more),
    but for the objects in `kept` (by id: the document after the fix holds them, and so
    everything in them)."""
    return _naming(encoded, _removed_ids(transcript, found.whole, found.parts, after), kept)


def _positions(
    transcript: Transcript, fixes: Iterable[Diagnostic]
) -> tuple[set[int], dict[int, set[int]]] | None:
    """The messages `fixes` name whole in `transcript`, and the parts they name of each
    other message (None: a fix with no position owns the whole transcript)."""
    parts: dict[int, set[int]] = {}
    whole: set[int] = set()
    messages = transcript.messages
    for diagnostic in fixes:
        info = diagnostic.fix
        loc = diagnostic.location
        if info is not None and info.owns is not None:
            named = info.owns
        elif loc.message_index is None:
            return None
        else:
            named = ((loc.message_index, loc.part_index),)
        for mi, pi in named:
            if mi >= len(messages):
                continue
            if pi is None or pi >= len(messages[mi].parts):
                whole.add(mi)
            else:
                parts.setdefault(mi, set()).add(pi)
    return whole, parts


def _read_as(transcript: Transcript, whole: set[int], parts: dict[int, set[int]]) -> set[Atom]:
    """What the messages and parts named (`_positions`) were read as: the atoms of the
    native value of each message owned whole (named whole, or each of its parts named),
    and of each other part named with the key it lived under and the line it was read
    from (`_lines`). `_named` owns all of these (and more): a value missing that they
    hold is owned."""
    messages = transcript.messages
    values: list[Any] = [messages[mi].native for mi in whole]
    found: set[Atom] = set()
    for mi, held in parts.items():
        if mi in whole:
            continue
        if len(held) == len(messages[mi].parts):
            values.append(messages[mi].native)
            continue
        found |= _lines(transcript, mi, held)  # the lines the parts were read from
        for pi in held:
            part = messages[mi].parts[pi]
            values.append(part.native)
            if part.slot is not None:
                found.add(("k", part.slot))
    return found | atoms(values)


def _named(
    transcript: Transcript, whole: set[int], parts: dict[int, set[int]], encoded: Any
) -> _Owned:
    """The messages (`whole`) and parts (`parts`) the fixes name in `transcript` (see
    `_positions`) and their atoms, in it and in `encoded`."""
    messages = transcript.messages
    found: set[Atom] = set()
    written = _Written(transcript, encoded)
    for mi in whole:
        found |= _message_atoms(transcript, mi) | _encoded(written, mi, None)
    for mi, held in parts.items():
        message = messages[mi]
        if mi in whole:
            continue
        if len(held) == len(message.parts):  # every part owned: the message goes with them
            found |= _message_atoms(transcript, mi) | _encoded(written, mi, None)
            found |= {a for pi in held for a in _encoded(written, mi, pi)}
            continue
        found |= _lines(transcript, mi, held)
        for pi in held:
            found |= _part_atoms(message.parts[pi]) | _encoded(written, mi, pi)
    return _Owned(found, whole, parts)


def _signature(part: Any) -> tuple[object, ...]:
    return (part.kind, part.name, repr(part.arguments if part.kind == "tool_call" else None))


def _removed_ids(
    transcript: Transcript, whole: set[int], parts: dict[int, set[int]], after: Transcript | None
) -> set[str]:
    """The ids of the owned calls and results that `after` holds no more, under any id
    (a renamed call is rewritten, not removed: a call or result of `after` of the same
    kind, name and arguments is the one it was)."""
    if after is None:
        return set()
    kinds = (model.ToolCallPart, model.ToolResultPart)
    messages = transcript.messages
    held = [  # the owned calls and results with an id, in order
        (call_id, part)
        for mi in sorted({*whole, *parts})
        for pi, part in enumerate(messages[mi].parts)
        if (mi in whole or pi in parts[mi])
        and isinstance(part, kinds)
        and isinstance(call_id := part.call_id, str)
        and call_id
    ]
    if not held:
        return set()
    steps = [(at, p) for at, p in outline_of(after).tool_parts() if isinstance(p, Call | Result)]
    left_ids = {part.call_id for _, part in steps}  # the outline's, as every check read them
    gone = [(call_id, part) for call_id, part in held if call_id not in left_ids]
    if not gone:
        return set()
    left: list[Any] = [after.messages[mi].parts[pi] for (mi, pi), _ in steps]
    named = {(part.kind, part.name) for _, part in gone}
    kept = {_signature(p) for p in left if (p.kind, p.name) in named}
    return {call_id for call_id, part in gone if _signature(part) not in kept}


def _naming(encoded: Any, ids: set[str], kept: set[int] | frozenset[int]) -> set[Atom]:
    """The atoms of every object of `encoded` that names one of `ids` as a value (the
    copy of a call in a content block beside `tool_calls`): it goes with that call. The
    objects in `kept` (by id) and what they hold are not walked: nothing in them is lost."""
    found: set[Atom] = set()
    if not ids:
        return found
    stack = [encoded]
    while stack:
        here = stack.pop()
        if id(here) in kept:
            continue
        if isinstance(here, dict):
            if any(isinstance(v, str) and v in ids for v in here.values()):
                found |= atoms(here)
            else:
                stack.extend(here.values())
        elif isinstance(here, list):
            stack.extend(here)
    return found


def lost(
    before: Transcript,
    after: Transcript,
    fixes: Sequence[Diagnostic],
    original: Transcript | None = None,
) -> str | None:
    """Why the fixes `fixes` (of one rule, on `before`) must not give `after`: the first
    value of `before` that `after` no longer holds and no fix owns, or None. Only values
    read from `original` (the transcript as read, of which `before` is a fixed version;
    default `before`) count: one a fix or the writer made up (a generated id) does not."""
    if after is before or before.format is None or after.format is None:
        return None
    codec = get_codec(before.format)
    try:
        old = _written(before)
    except HistnormError:
        return None  # not writable before the fix either: writing it reports that
    try:
        new = _written(after)
    except HistnormError as error:
        return f"would make a transcript that cannot be written ({error.message})"
    written_old, aside = old, None
    if source_of(old) is not None and source_of(old) is source_of(new):
        old, new, aside = _apart(old, new)  # the lines both write as read stand aside
    same = _same_items(old, new)
    kept, containers = _index(new, same)
    containers |= same.keys()
    shared: set[int] = set()  # objects both documents hold: all they hold is kept
    missing = [
        (atom, key)
        for atom, key in _atoms_outside(old, containers, shared)
        if atom not in kept and not (key in codec.derived_keys and atom[0] != "k")
    ]
    if not missing:
        return None
    positions = _positions(before, fixes)
    if positions is None:
        return None
    held = _read_as(before, *positions)  # owned: when it holds every atom missing,
    if all(atom in held for atom, _ in missing):  # nothing more is worked out
        return None
    named = _named(before, *positions, written_old)
    mine = named.atoms
    missing = [(atom, key) for atom, key in missing if atom not in mine]
    if missing:  # what names a removed call or result goes with it (`_naming_removed`)
        mine = mine | _naming_removed(before, named, old, after, containers)
        missing = [(atom, key) for atom, key in missing if atom not in mine]
    if missing and same:  # the lines both hold are searched only for what is missing
        wanted = {atom for atom, _ in missing}
        found = _found_in(list(same.values()), wanted)
        if aside is not None and found != wanted:
            found |= _found_in_held(*aside, wanted - found)
        missing = [(atom, key) for atom, key in missing if atom not in found]
    if not missing:
        return None
    gained = [text for kind, text in _fresh(new, shared) if kind == "s"]
    kept |= {a for text in gained for a in _inside(text)}
    if same:
        kept |= _index(list(same.values()))[0]
    if aside is not None:
        source, indices = aside
        for index in indices:
            kept |= _index(source.peek(index))[0]
    read: set[Atom] | None = None
    for atom, _ in missing:
        if atom in mine or (atom[0] == "s" and _carried(atom[1], gained, kept | mine)):
            continue
        if read is None:
            read = _read(original or before)
        if atom not in read:
            continue  # made by a fix or by the writer (a generated id), never read
        what = "key" if atom[0] == "k" else "value"
        pointer = next((at for found, at in _walk(old) if found == atom), "")
        return f"would drop the {what} {_show(atom[1])} at {pointer or '/'}"
    return None


def written_as_before(before: Transcript, after: Transcript) -> bool:
    """Whether `after` is written as the very document `before` is: an edit the format
    cannot hold (it writes apart what the edit joined), which changes nothing in a file
    and would be made again on every read of it."""
    if before.format is None or after.format != before.format:
        return False
    try:
        return bool(_written(before) == _written(after))
    except HistnormError:
        return False


_AS_READ: dict[str, Any] = {}
"""What stands for a line two documents held as text both write as read (`_apart`):
one object both hold, so it is among the objects they share. Never written to."""


def _apart(old: Any, new: Any) -> tuple[list[Any], list[Any], tuple[HeldLines, list[int]]]:
    """Two documents written from one set of lines held as text, as lists in which each
    line both write as read is `_AS_READ` (not parsed), each other line its value; and
    those lines, by index (`_found_in_held`)."""
    source = source_of(old)
    assert source is not None
    was, now = entries_of(old), entries_of(new)
    both = {e for e in was if type(e) is int} & {e for e in now if type(e) is int}

    def side(entries: Sequence[Any]) -> list[Any]:
        return [(_AS_READ if e in both else source[e]) if type(e) is int else e for e in entries]

    return side(was), side(now), (source, sorted(both))


def _found_in_held(source: HeldLines, indices: list[int], wanted: set[Atom]) -> set[Atom]:
    """`_found_in` of the lines `indices` of `source`, each read and let go in turn."""
    found: set[Atom] = set()
    for index in indices:
        if len(found) >= len(wanted):
            break
        found |= _found_in([source.peek(index)], wanted - found)
    return found


def _written(transcript: Transcript) -> Any:
    """The document `transcript` is written as, computed once per transcript
    (`Codec.written`)."""
    return get_codec(transcript.format or "").written(transcript)


def _carried(text: str, gained: list[str], kept: set[Atom]) -> bool:
    """Whether a string is kept inside a longer new one (merged text), or is JSON text
    whose every value is kept or owned (arguments rewritten)."""
    if any(text in longer for longer in gained):
        return True
    inner = _inside(text)
    return bool(inner) and inner <= kept


def _same_items(old: Any, new: Any) -> dict[int, Any]:
    """The objects and arrays of `new` that `old` holds at the same level, by id: the items
    (lines) of a document that is a list, or in an object (a request body, a record), the
    values its keys keep and the items of the lists under the same key (its messages). A
    writer hands back the very objects it did not change."""
    if isinstance(old, list) and isinstance(new, list):
        return _shared(old, new)
    if not isinstance(old, dict) or not isinstance(new, dict):
        return {}
    found: dict[int, Any] = {}
    for key, value in new.items():
        was = old.get(key)
        if value is was and isinstance(value, dict | list):
            found[id(value)] = value
        elif isinstance(value, list) and isinstance(was, list):
            found.update(_shared(was, value))
    return found


def _shared(old: list[Any], new: list[Any]) -> dict[int, Any]:
    """The objects and arrays among the items of `new` that are items of `old` too, by id."""
    mine = set(map(id, old))  # an item of both is one object: alive, so its id is its own
    return {id(item): item for item in new if id(item) in mine and isinstance(item, dict | list)}


def _found_in(values: list[Any], wanted: set[Atom]) -> set[Atom]:
    """Those of `wanted` that `values` hold, looking no further once all are found."""
    found: set[Atom] = set()
    stack = list(values)
    while stack and len(found) < len(wanted):
        here = stack.pop()
        if isinstance(here, dict):
            found.update(a for key in here if (a := ("k", str(key))) in wanted)
            stack.extend(here.values())
        elif isinstance(here, list):
            stack.extend(here)
        else:
            found.update(a for a in _scalar(here) if a in wanted)
    return found


def _index(value: Any, skip: Mapping[int, Any] | None = None) -> tuple[set[Atom], set[int]]:
    """The atoms of `value`, and the ids of the objects and arrays it holds, leaving out
    the objects and arrays in `skip` (by id) and what they hold."""
    found: set[Atom] = set()
    containers: set[int] = set()
    stack = [value]
    while stack:
        here = stack.pop()
        if skip and id(here) in skip:
            continue
        if isinstance(here, dict):
            containers.add(id(here))
            found.update(("k", str(key)) for key in here)
            stack.extend(here.values())
        elif isinstance(here, list):
            containers.add(id(here))
            stack.extend(here)
        else:
            found.update(_scalar(here))
    return found, containers


def _scalar(value: Any) -> tuple[Atom, ...]:
    if isinstance(value, str):
        return (("s", value),)
    if value is None:
        return ()
    return ((type(value).__name__, repr(value)),)


def _atoms_outside(
    value: Any, skip: set[int], shared: set[int]
) -> Iterator[tuple[Atom, str | None]]:
    """The atoms of `value` outside the objects and arrays in `skip` (each one met is
    added to `shared`), each with the key it is under."""
    stack: list[tuple[Any, str | None]] = [(value, None)]
    while stack:
        here, under = stack.pop()
        if isinstance(here, dict | list) and id(here) in skip:
            shared.add(id(here))
        elif isinstance(here, dict):
            for key, inner in here.items():
                yield ("k", str(key)), str(key)
                stack.append((inner, str(key)))
        elif isinstance(here, list):
            for inner in here:  # the usual list: the lines or messages, most of them kept
                if id(inner) in skip:  # an object in `skip` (alive: the id is its own)
                    shared.add(id(inner))
                else:
                    stack.append((inner, under))
        else:
            yield from ((atom, under) for atom in _scalar(here))


def _fresh(value: Any, shared: set[int]) -> Iterator[Atom]:
    """The atoms of `value` outside the objects and arrays in `shared`."""
    return (atom for atom, _ in _atoms_outside(value, shared, set()))


_OURS = {"native", "kind", "slot", "family"}
"""Fields whose values are histnorm's own words, not values read."""


def _read(transcript: Transcript) -> set[Atom]:
    """The atoms of what `transcript` was read from: its native values with their keys,
    and the values of its fields (their names are histnorm's, not keys it read)."""
    native = transcript.native
    source = source_of(native)
    if source is not None:  # each line read and let go in turn
        found: set[Atom] = set()
        for entry in entries_of(native):
            found |= atoms(source.peek(entry) if type(entry) is int else entry)
    else:
        found = atoms(native)
    for message in transcript.messages:
        found |= atoms(message.native)
        found |= atoms([message.role, message.id, message.author_name, message.metadata])
        for part in message.parts:
            found |= atoms(part.native)
            found |= atoms(list(part.model_dump(exclude=_OURS).values()))
    return found


def _inside(text: str) -> set[Atom]:
    """The atoms of `text` when it is JSON text of an object or an array (else none)."""
    if not text.startswith(("{", "[")):
        return set()
    from histnorm.jsonio import loads

    try:
        return atoms(loads(text))
    except HistnormError:
        return set()


def _show(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:37] + "...")
