"""Minimal rewrites of JSON documents: only changed messages are re-serialised.

When a fix changes some messages of a pretty-printed or hand-formatted file, the bytes of
every untouched message, and of everything around the message array, are kept as they
were; new and changed messages are written in the document's style at the indentation
of their siblings. If anything outside the message array changed, or the result would not
parse back to the intended value, the caller falls back to a full rewrite.

A re-serialised value keeps the spelling of each string and number that it holds at the
same place, with the same value, as the text it replaces (`keep_spellings`): `-0`, `1E2`,
`1.50`, `1e-400`, long decimals and escapes survive a rewrite of the message around them.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import orjson

import histnorm.jsonio as jsonio
from histnorm.errors import join_pointer
from histnorm.linemap import scalar_spans, spans_for


def _at(value: Any, pointer: str) -> Any:
    for token in pointer.split("/")[1:]:
        token = token.replace("~1", "/").replace("~0", "~")
        value = value[int(token)] if isinstance(value, list) else value[token]
    return value


def _blank(value: Any, pointer: str) -> Any:
    """A copy of `value` with the array at `pointer` replaced by null (for comparison)."""
    if not pointer:
        return None
    head, _, rest = pointer[1:].partition("/")
    if isinstance(value, list):
        copy = list(value)
        copy[int(head)] = _blank(copy[int(head)], "/" + rest if rest else "")
        return copy
    key = head.replace("~1", "/").replace("~0", "~")
    return {**value, key: _blank(value[key], "/" + rest if rest else "")}


def _same(a: Any, b: Any) -> bool:
    try:
        return orjson.dumps(a) == orjson.dumps(b)
    except TypeError:  # integers beyond 64 bits
        return jsonio.dumps(a) == jsonio.dumps(b)


def _same_scalar(old: bytes, new: bytes) -> bool:
    """Whether two scalar tokens denote the same value as histnorm reads them."""
    try:
        a, b = jsonio.loads(old), jsonio.loads(new)
    except ValueError:
        return False
    return type(a) is type(b) and repr(a) == repr(b)


def moved(old: Any, new: Any) -> dict[str, str]:
    """For each object or array of `new` that is the very one of `old` at another
    pointer, its pointer in `new` mapped to its pointer in `old`."""
    where: dict[int, str] = {}
    stack: list[tuple[Any, str]] = [(old, "")]
    while stack:
        value, pointer = stack.pop()
        if isinstance(value, dict | list) and value:
            where[id(value)] = pointer
            stack.extend((v, join_pointer(pointer, k)) for k, v in _children(value))
    found: dict[str, str] = {}
    stack = [(new, "")]
    while stack:
        value, pointer = stack.pop()
        if not isinstance(value, dict | list) or not value:
            continue
        origin = where.get(id(value))
        if origin is not None:
            if origin != pointer:
                found[pointer] = origin
            continue  # the same object: everything below it sits as it did
        stack.extend((v, join_pointer(pointer, k)) for k, v in _children(value))
    return found


def _children(value: dict[str, Any] | list[Any]) -> list[tuple[str | int, Any]]:
    return list(value.items()) if isinstance(value, dict) else list(enumerate(value))


def _origin(pointer: str, moves: dict[str, str]) -> str:
    """Where the value at `pointer` of the new text was in the old one."""
    if not moves:
        return pointer
    head = pointer
    while head:
        if head in moves:
            return moves[head] + pointer[len(head) :]
        head = head.rsplit("/", 1)[0]
    return pointer


def keep_spellings(new: bytes, old: bytes, moves: dict[str, str] | None = None) -> bytes:
    """`new` with each scalar value that `old` holds at the same pointer (or where `moves`
    says it came from), with the same value, spelled as in `old` (both are JSON texts;
    keys are not respelled)."""
    if new == old:
        return new
    try:
        before = scalar_spans(old)
    except (ValueError, IndexError):
        return new
    out: list[bytes] = []
    at = 0
    for pointer, (start, end) in scalar_spans(new).items():
        span = before.get(_origin(pointer, moves or {}))
        if span is None:
            continue
        token, kept = new[start:end], old[span[0] : span[1]]
        if token != kept and _same_scalar(kept, token):
            out += (new[at:start], kept)
            at = end
    return b"".join(out) + new[at:] if out else new


def pairs(old_items: list[Any], new_items: list[Any]) -> dict[int, int]:
    """For each new item that is not an old one, the index of an old item that was
    dropped or replaced between the old items kept around it (its likely original): the
    one that shares the most top-level values with it, the first on a tie."""
    where = {id(item): i for i, item in enumerate(old_items)}
    kept = {id(item) for item in new_items}
    loose = [i for i, item in enumerate(old_items) if id(item) not in kept]
    return paired_at(old_items, [where.get(id(item)) for item in new_items], new_items, loose)


def paired_at(
    old_items: Sequence[Any],
    old_at: Sequence[int | None],
    new_items: Sequence[Any],
    loose: list[int],
) -> dict[int, int]:
    """`pairs`, told where each new item is among the old ones (`old_at`, None for one
    that is not) and which old items are not kept (`loose`, in order); only the loose old
    items and the new ones are read."""
    ceilings: list[int] = []
    ceiling = len(old_items)
    for at in reversed(old_at):
        ceiling = at if at is not None else ceiling
        ceilings.append(ceiling)
    ceilings.reverse()
    found: dict[int, int] = {}
    floor = -1
    for j, index in enumerate(old_at):
        if index is not None:
            floor = index
            continue
        item = new_items[j]
        start, end = bisect_right(loose, floor), bisect_left(loose, ceilings[j])
        if start < len(loose):
            window = range(start, max(end, start + 1))
            best = max(window, key=lambda k: (_shared(old_items[loose[k]], item), -k))
            found[j] = loose.pop(best)
    return found


def _shared(old: Any, new: Any) -> int:
    """How many top-level values of two objects are the same (keys and values)."""
    if not isinstance(old, dict) or not isinstance(new, dict):
        return 0
    return sum(1 for key, value in new.items() if key in old and old[key] is value)


def _sibling_styles(
    style: jsonio.Style, siblings: list[bytes], prefix: bytes
) -> tuple[jsonio.Style, jsonio.Style]:
    """The styles a new item is written in: on one line, and over several lines below
    `prefix`, as its `siblings` (the old items' texts) are written: their separators,
    and the indentation of their second line (else the document's `style`)."""
    spaced = ", " if style.key_separator == ": " else ","
    item, key = jsonio.separators(b"".join(siblings)) or (spaced, style.key_separator)
    flat = replace(style, indent=None, item_separator=item, key_separator=key)
    indent = style.indent
    for text in siblings:
        lines = text.split(b"\n", 2)
        if len(lines) > 2 and lines[1].startswith(prefix):
            step = lines[1][len(prefix) : len(lines[1]) - len(lines[1].lstrip(b" \t"))]
            if step and len(set(step)) == 1:
                indent = "\t" if step[0:1] == b"\t" else len(step)
            break
    nested = replace(style, indent=indent, key_separator=key, item_separator=",")
    return replace(flat, final_newline=False), replace(nested, final_newline=False)


def _patch(text: bytes, old: Any, new: Any, style: jsonio.Style) -> bytes | None:
    """`text` (the text of the object `old`) rewritten to hold `new` in its own layout,
    when `new` differs from `old` only in one array (a message that lost a call keeps
    the lines of the others); None otherwise."""
    if not isinstance(old, dict) or not isinstance(new, dict) or list(old) != list(new):
        return None
    changed = [key for key in old if not _same(old[key], new[key])]
    if len(changed) != 1 or not isinstance(new[changed[0]], list):
        return None
    return splice_array(text, old, new, join_pointer("", changed[0]), style)


def splice_array(
    body: bytes, old: Any, new: Any, pointer: str, style: jsonio.Style
) -> bytes | None:
    """`body` (the text of `old`) rewritten to hold `new`, changing only the array at `pointer`.

    Items of the new array that are the very objects of the old one keep their bytes.
    Returns None when a splice cannot express the change.
    """
    try:
        old_items, new_items = _at(old, pointer), _at(new, pointer)
    except (KeyError, IndexError, TypeError, ValueError):
        return None
    if not isinstance(old_items, list) or not isinstance(new_items, list) or not old_items:
        return None
    if not _same(_blank(old, pointer), _blank(new, pointer)):
        return None
    item_pointers = [join_pointer(pointer, i) for i in range(len(old_items))]
    spans = spans_for(body, [pointer, *item_pointers])
    if len(spans) != len(old_items) + 1:
        return None
    start, end = spans[pointer]
    first, last = spans[item_pointers[0]], spans[item_pointers[-1]]
    opening, closing = body[start : first[0]], body[last[1] : end]
    if len(old_items) > 1:
        separator = body[first[1] : spans[item_pointers[1]][0]]
    else:
        separator = b"," + opening[1:] if b"\n" in opening else style.item_separator.encode()
    prefix = opening.rsplit(b"\n", 1)[1] if b"\n" in opening else b""
    multiline = any(b"\n" in body[s:e] for s, e in (spans[p] for p in item_pointers))
    originals = {
        id(item): body[s:e]
        for item, (s, e) in zip(old_items, (spans[p] for p in item_pointers), strict=True)
    }
    old_spans = [spans[p] for p in item_pointers]
    flat, nested = _sibling_styles(style, [body[s:e] for s, e in old_spans], prefix)
    paired = pairs(old_items, new_items)

    def render(j: int, item: Any) -> bytes:
        kept = originals.get(id(item))
        if kept is not None:
            return kept
        if multiline and style.indent is not None:
            text = jsonio.dumps(item, nested).replace(b"\n", b"\n" + prefix)
        else:
            text = jsonio.dumps(item, flat)
        if j in paired:
            s, e = old_spans[paired[j]]
            if _same(old_items[paired[j]], item):
                return body[s:e]  # an equal copy (of a transcript decoded again)
            patched = _patch(body[s:e], old_items[paired[j]], item, style)
            if patched is not None:
                return patched
            text = keep_spellings(text, body[s:e], moved(old_items[paired[j]], item))
        return text

    rendered = [render(j, item) for j, item in enumerate(new_items)]
    array = opening + separator.join(rendered) + closing if new_items else b"[]"
    out = body[:start] + array + body[end:]
    try:
        if not _same(jsonio.loads(out), new):
            return None
    except ValueError:
        return None
    return out
