"""A caller's value as JSON data for `repair`, and the repaired JSON back in the caller's terms.

`plain` reads SDK, pydantic and LangChain objects as the JSON they stand for
(`histnorm.objects.dumped`) and remembers, for each container it made, the caller's value
it stands for. `restore` puts every untouched value back as the very object passed, and
rebuilds what histnorm rewrote or added as the kind of object it replaces or sits beside.
"""

from __future__ import annotations

from typing import Any

import orjson
from pydantic import BaseModel

from histnorm.errors import join_pointer
from histnorm.formats.base import Codec
from histnorm.model import Transcript
from histnorm.objects import added_like, dumped, is_object, rebuilt

Originals = dict[int, tuple[Any, Any]]
"""For each container `plain` made (by its id): that container and the caller's value."""

WHAT_TO_PASS = (
    "pass a list or dict of messages (dicts, LangChain messages, or SDK and pydantic "
    "objects with model_dump()), or the JSON as bytes or text"
)
_PLAIN_ONLY = (
    orjson.OPT_PASSTHROUGH_SUBCLASS
    | orjson.OPT_PASSTHROUGH_DATACLASS
    | orjson.OPT_PASSTHROUGH_DATETIME
)
_ADDED = object()
"""Marks a container histnorm added (it stands for nothing the caller passed)."""


def _not_json(item: Any) -> Any:
    raise TypeError


def _is_plain(value: Any) -> bool:
    """Whether `value` is made of JSON data alone (exact dicts, lists, strings, numbers,
    booleans and None), decided in C: serialised and read back, it equals itself."""
    try:
        return bool(
            orjson.loads(orjson.dumps(value, default=_not_json, option=_PLAIN_ONLY)) == value
        )
    except (TypeError, ValueError, RecursionError):
        return False


def _reads_as(raw: bytes, value: Any) -> bool:
    """`_is_plain(value)`, given `raw`, what serialising `value` there gives."""
    try:
        return bool(orjson.loads(memoryview(raw)) == value)  # `raw` may be a bytes subclass
    except (ValueError, RecursionError):
        return False


def plain(value: Any, raw: bytes | None = None) -> tuple[Any, Originals]:
    """`value` as JSON data, and the caller's value each container made here stands for.
    JSON data is used as it is (no copy); objects become the JSON they send, tuples lists.
    Something that is no JSON data raises `TypeError` saying where and what to pass.
    `raw`: `value` serialised as `_is_plain` serialises it, when the caller has done so."""
    if _is_plain(value) if raw is None else _reads_as(raw, value):
        return value, {}
    data, originals = _walk(value, trust=True)
    if _is_plain(data):  # one check of every pydantic dump taken as it is
        return data, originals
    return _walk(value, trust=False)


def _walk(value: Any, *, trust: bool) -> tuple[Any, Originals]:
    """`plain` on a value that is no JSON data; with `trust`, a pydantic dump is taken as
    it is (fresh JSON, ours), else walked into like the rest, to say where it is not JSON."""
    originals: Originals = {}
    root: list[Any] = [None]
    stack: list[tuple[Any, Any, Any, str | None]] = [(value, root, 0, None)]
    while stack:  # an item's pointer is made from its holder's only when it is needed
        item, holder, key, parent = stack.pop()
        original = item
        if type(item) is not dict and type(item) is not list:
            try:
                item = dumped(item)
            except (TypeError, ValueError) as error:  # a model_dump() that cannot write it
                raise TypeError(
                    f"cannot read a {type(item).__name__!r} object ({_where(parent, key)}): "
                    f"its model_dump() failed ({error}); {WHAT_TO_PASS}"
                ) from error
        if trust and isinstance(original, BaseModel) and isinstance(item, dict):
            new: Any = item  # a pydantic dump is fresh JSON, ours: used as it is
            originals[id(new)] = (new, original)
        elif (
            item is original
            and parent is not None
            and type(item) in (dict, list)
            and (_is_plain(item))
        ):
            new = item  # the caller's JSON data, used as it is (and given back as it is)
            originals[id(new)] = (new, original)
        elif isinstance(item, dict):
            at = "" if parent is None else join_pointer(parent, key)
            new = dict.fromkeys(item)
            for k, v in item.items():
                if not isinstance(k, str):
                    raise TypeError(
                        f"a key that is no string ({k!r}) at {at or '/'}: {WHAT_TO_PASS}"
                    )
                stack.append((v, new, k, at))
            originals[id(new)] = (new, original)
        elif isinstance(item, list | tuple):
            at = "" if parent is None else join_pointer(parent, key)
            new = [None] * len(item)
            stack.extend((v, new, i, at) for i, v in enumerate(item))
            originals[id(new)] = (new, original)
        elif item is None or isinstance(item, str | int | float):
            new = item
        else:
            raise TypeError(
                f"cannot read a {type(item).__name__!r} object ({_where(parent, key)}): "
                f"{WHAT_TO_PASS}"
            )
        holder[key] = new
    return root[0], originals


def _where(parent: str | None, key: Any) -> str:
    return "the value passed" if parent is None else f"at {join_pointer(parent, key)}"


def stand_ins(
    new: Any, value: Any, read: Transcript, fixed: Transcript, codec: Codec, originals: Originals
) -> dict[int, Any]:
    """For each container of `new` (`fixed` encoded) that rewrites one the caller passed,
    by its id: the caller's value it rewrites. The root rewrites `value`; a message a fix
    changed (one not in `read`, the transcript as decoded), and each of its parts, rewrite
    the values their `native` was read from."""
    if not any(is_object(original) for _, original in originals.values()):
        return {}
    found: dict[int, Any] = {} if id(new) in originals else {id(new): value}
    untouched = {id(message) for message in read.messages}
    for i, message in enumerate(fixed.messages):
        if id(message) in untouched:
            continue
        if id(message.native) in originals:
            _note(found, new, codec.message_pointer(fixed, i), message.native, originals)
        for j, part in enumerate(message.parts):
            if id(part.native) in originals:
                _note(found, new, codec.part_pointer(fixed, i, j), part.native, originals)
    return found


def _note(found: dict[int, Any], new: Any, pointer: str, native: Any, originals: Originals) -> None:
    target = _at(new, pointer)
    if isinstance(target, dict) and id(target) not in originals:
        found[id(target)] = originals[id(native)][1]


def _at(document: Any, pointer: str) -> Any:
    """The value at `pointer` in `document`, or None."""
    item = document
    for token in pointer.split("/")[1:]:
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(item, dict):
            item = item.get(token)
        elif isinstance(item, list) and token.isdigit() and int(token) < len(item):
            item = item[int(token)]
        else:
            return None
    return item


def restore(new: Any, originals: Originals, stand_for: dict[int, Any]) -> Any:
    """`new` with each container made by `plain` replaced by the caller's value it stands
    for, and each container histnorm rewrote or added made the kind of object it replaces
    (`stand_for`) or sits beside, where that kind holds it (everything else in `new` was
    made by the codec: it is ours to change)."""
    if not originals:
        return new
    made = _remade(new, originals, stand_for, _ADDED)
    if made is not None:
        return made
    stack, seen = [new], set()
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        children = list(item.items() if isinstance(item, dict) else enumerate(item))
        beside = _neighbours(item, originals, stand_for) if isinstance(item, list) else None
        for key, child in children:
            if not isinstance(child, dict | list):
                continue
            neighbour = beside[key] if beside is not None else _ADDED
            made = _remade(child, originals, stand_for, neighbour)
            if made is not None:
                item[key] = made
            else:
                stack.append(child)
    return new


def _remade(item: Any, originals: Originals, stand_for: dict[int, Any], neighbour: Any) -> Any:
    """What `item` becomes: the caller's value it stands for, the object it rewrites or
    sits beside; None when it stays a container of ours."""
    kept = originals.get(id(item))
    if kept is not None:
        return kept[1]
    if not isinstance(item, dict):
        return None
    like = stand_for.get(id(item), _ADDED)
    if like is not _ADDED:
        return rebuilt(item, like) if is_object(like) else None
    if neighbour is not _ADDED and is_object(neighbour):
        return added_like(item, neighbour)
    return None


def _neighbours(items: list[Any], originals: Originals, stand_for: dict[int, Any]) -> list[Any]:
    """For each item of `items`, the caller's value of its nearest sibling that stands for
    one (the one before it, else the one after), or `_ADDED` when none does."""
    known = [_standing_for(item, originals, stand_for) for item in items]
    before, last = [], _ADDED
    for value in known:
        before.append(last)
        if value is not _ADDED:
            last = value
    after, last = [_ADDED] * len(known), _ADDED
    for i in range(len(known) - 1, -1, -1):
        after[i] = last
        if known[i] is not _ADDED:
            last = known[i]
    return [b if b is not _ADDED else a for b, a in zip(before, after, strict=True)]


def _standing_for(item: Any, originals: Originals, stand_for: dict[int, Any]) -> Any:
    kept = originals.get(id(item))
    if kept is not None:
        return kept[1]
    return stand_for.get(id(item), _ADDED)
