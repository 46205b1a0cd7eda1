"""Positions of JSON Pointers in a JSON document's text.

orjson gives no positions, so diagnostics carry JSON Pointers; this maps pointers to the
byte spans and 1-based lines of their values, in one scan of the document's bytes. The
document must be valid JSON (it was parsed before).
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from collections.abc import Iterable, Iterator
from typing import Any

from histnorm.errors import escape_token

_TOKEN = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[{}\[\]:,]|[^\s{}\[\]:,"]+', re.S)


class _Frame:
    __slots__ = ("expect_key", "index", "is_object", "key", "pointer", "start")

    def __init__(self, is_object: bool, pointer: str, start: int) -> None:
        self.is_object = is_object
        self.pointer = pointer
        self.start = start
        self.index = 0
        self.key = ""
        self.expect_key = is_object


def spans_for(data: bytes, pointers: Iterable[str]) -> dict[str, tuple[int, int]]:
    """The (start, end) byte offsets of the value at each of `pointers` that exists."""
    wanted = set(pointers)
    return _spans(data, wanted) if wanted else {}


def scalar_spans(data: bytes) -> dict[str, tuple[int, int]]:
    """The (start, end) byte offsets of every string, number, boolean and null value (not
    keys), by pointer."""
    return _spans(data, None)


def _spans(data: bytes, wanted: set[str] | None) -> dict[str, tuple[int, int]]:
    """Spans of the values at `wanted`, or (None) of every scalar value."""
    found: dict[str, tuple[int, int]] = {}
    stack: list[_Frame] = []

    def pointer_here() -> str:
        if not stack:
            return ""
        frame = stack[-1]
        token = frame.key if frame.is_object else str(frame.index)
        return f"{frame.pointer}/{escape_token(token)}"

    for match in _TOKEN.finditer(data):
        token = match.group()
        first = token[:1]
        if stack and stack[-1].is_object and stack[-1].expect_key and first == b'"':
            stack[-1].key = json.loads(token) if b"\\" in token else token[1:-1].decode()
            stack[-1].expect_key = False
        elif first in (b"{", b"["):
            stack.append(_Frame(first == b"{", pointer_here(), match.start()))
        elif first in (b"}", b"]"):
            frame = stack.pop()
            if wanted is not None and frame.pointer in wanted:
                found[frame.pointer] = (frame.start, match.end())
        elif first == b",":
            if stack[-1].is_object:
                stack[-1].expect_key = True
            else:
                stack[-1].index += 1
        elif first != b":":
            here = pointer_here()
            if wanted is None or here in wanted:
                found[here] = (match.start(), match.end())
        if wanted is not None and len(found) == len(wanted):
            break
    return found


class _Repeated(Exception):
    pass


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    value = dict(pairs)
    if len(value) != len(pairs):
        raise _Repeated
    return value


def _may_repeat(data: bytes) -> bool:
    """False when `data` (one JSON document, or JSONL) certainly has no repeated key (the
    standard library's C parser checks every object); True when it has one or the parser
    cannot tell (deep nesting). JSONL is parsed a line at a time, never decoded whole (a
    session file's text decoded at once can take four times its size)."""
    if not _is_jsonl(data):
        try:
            json.loads(data, object_pairs_hook=_unique_pairs)
        except _Repeated:
            return True
        except (ValueError, RecursionError):
            pass  # maybe JSONL after all: one document per line
        else:
            return False
    try:
        for line in _lines(data):
            if line.strip():
                json.loads(line, object_pairs_hook=_unique_pairs)
    except (_Repeated, ValueError, RecursionError):
        return True  # the exact scan below decides
    return False


_TEXT = re.compile(rb"\S")


def _is_jsonl(data: bytes) -> bool:
    """Whether the first line of `data` is a whole JSON value with more text after it."""
    end = data.find(b"\n")
    if end < 0 or _TEXT.search(data, end) is None:
        return False
    try:
        json.loads(data[:end], object_pairs_hook=_unique_pairs)
    except _Repeated:
        return True
    except (ValueError, RecursionError):
        return False
    return True


def _lines(data: bytes) -> Iterator[bytes]:
    """The lines of `data`, one at a time (no list of them all)."""
    start = 0
    while start < len(data):
        end = data.find(b"\n", start)
        stop = len(data) if end < 0 else end
        yield data[start:stop]
        start = stop + 1


def duplicate_keys(data: bytes) -> list[str]:
    """The JSON Pointer of every key that repeats within its object, in document order.

    Parsers keep only the last value of a repeated key, so a document with one cannot be
    rewritten without losing data.
    """
    if data.count(b'":') < 2 or not _may_repeat(data):
        return []
    repeated: list[str] = []
    stack: list[tuple[str, set[str] | None, list[Any]]] = []
    for match in _TOKEN.finditer(data):
        token = match.group()
        first = token[:1]
        if first in (b"{", b"["):
            here = _here(stack)
            stack.append((here, set() if first == b"{" else None, [True, "", 0]))
        elif first in (b"}", b"]"):
            stack.pop()
        elif first == b",":
            keys, state = stack[-1][1], stack[-1][2]
            if keys is None:
                state[2] += 1
            else:
                state[0] = True
        elif first == b'"' and stack and stack[-1][1] is not None and stack[-1][2][0]:
            key = json.loads(token)
            pointer, keys, state = stack[-1]
            assert keys is not None
            if key in keys:
                repeated.append(f"{pointer}/{escape_token(key)}")
            keys.add(key)
            state[0], state[1] = False, key
    return repeated


def duplicate_key(data: bytes) -> str | None:
    """The JSON Pointer of the first key that repeats within one object, or None."""
    repeated = duplicate_keys(data)
    return repeated[0] if repeated else None


def _here(stack: list[tuple[str, set[str] | None, list[Any]]]) -> str:
    if not stack:
        return ""
    pointer, keys, state = stack[-1]
    token = state[1] if keys is not None else str(state[2])
    return f"{pointer}/{escape_token(token)}"


def lines_for(data: bytes, pointers: Iterable[str]) -> dict[str, int]:
    """The line each of `pointers` starts on in `data` (pointers not found are left out)."""
    spans = spans_for(data, pointers)
    if not spans:
        return {}
    newlines = [m.start() for m in re.finditer(rb"\n", data)]
    return {pointer: bisect_right(newlines, start - 1) + 1 for pointer, (start, _) in spans.items()}
