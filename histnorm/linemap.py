"""Line numbers for JSON Pointers in a JSON document's text.

orjson gives no positions, so diagnostics carry JSON Pointers; this maps the pointers of
one document to the 1-based lines where their values start, in one scan of its bytes.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from collections.abc import Iterable

from histnorm.errors import escape_token

_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"|[{}\[\]:,]|[^\s{}\[\]:,"]+', re.S)


def lines_for(data: bytes, pointers: Iterable[str]) -> dict[str, int]:
    """The line each of `pointers` starts on in `data` (pointers not found are left out)."""
    wanted = set(pointers)
    if not wanted:
        return {}
    newlines = [m.start() for m in re.finditer(rb"\n", data)]
    found: dict[str, int] = {}
    # Each frame: [kind, pointer, next key or index, expecting a key]
    stack: list[list[object]] = []
    pending_key: str | None = None

    def value_start(offset: int) -> str:
        if not stack:
            pointer = ""
        else:
            frame = stack[-1]
            token = pending_key if frame[0] == "{" else str(frame[2])
            pointer = f"{frame[1]}/{escape_token(token or '')}"
        if pointer in wanted and pointer not in found:
            found[pointer] = bisect_right(newlines, offset - 1) + 1
        return pointer

    for match in _TOKEN.finditer(data):
        token = match.group()
        first = token[:1]
        if stack and stack[-1][0] == "{" and stack[-1][3] and first == b'"':
            pending_key = json.loads(token)
            stack[-1][3] = False
            continue
        if first in (b"{", b"["):
            pointer = value_start(match.start())
            stack.append([first.decode(), pointer, 0, first == b"{"])
        elif first in (b"}", b"]"):
            stack.pop()
        elif first == b",":
            if stack:
                frame = stack[-1]
                if frame[0] == "[":
                    frame[2] = int(str(frame[2])) + 1
                else:
                    frame[3] = True
        elif first == b":":
            continue
        else:
            value_start(match.start())
        if len(found) == len(wanted):
            break
    return found
