"""What a document that is no valid JSON starts as: its readable prefix.

A file that does not parse is a transcript with a defect (HN000) only when what can be
read of it before the first error is one: a message list, an array of transcripts, or an
envelope (`{"messages": [`...) a format reads. A configuration file in JSONC (comments,
trailing commas: `tsconfig.json`, `.eslintrc.json`) is none of these, and is skipped as
no transcript.
"""

from __future__ import annotations

import json
import re
from typing import Any

from histnorm.document.layout import ENVELOPE_KEYS, looks_like_message
from histnorm.formats import claims

LIMIT = 1 << 20
"""Characters of the document read for its prefix: enough to see how it starts."""

_TOKEN = re.compile(
    r"""[ \t\r\n]*(?:
        (?P<punct>[{}\[\]:,])
      | (?P<string>"(?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*")
      | (?P<number>-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)
      | (?P<literal>true|false|null)
    )""",
    re.VERBOSE,
)
_LITERALS: dict[str, Any] = {"true": True, "false": False, "null": None}
_KEY = object()
"""A key is expected next (after `{` or a comma in an object)."""


def readable_prefix(text: str) -> Any:
    """The JSON value `text` starts with, read up to its first error (or `LIMIT`) with
    every container still open closed; None when not even a first value starts."""
    root: Any = None
    stack: list[list[Any] | dict[str, Any]] = []
    key: Any = None  # in an object: _KEY, the key read, or None once its value came
    expect_value = True
    position, end = 0, min(len(text), LIMIT)
    while position < end:
        match = _TOKEN.match(text, position)
        if match is None:
            break
        position = match.end()
        punct = match.group("punct")
        container = stack[-1] if stack else None
        if isinstance(container, dict) and key is _KEY:
            if match.group("string") is not None:
                key = json.loads(match.group("string"))
                expect_value = False
                continue
            if punct == "}" and not container:
                stack.pop()
                key, expect_value = None, False
                continue
            break
        if isinstance(container, dict) and not expect_value and key is not None:
            if punct != ":":
                break
            expect_value = True
            continue
        if expect_value:
            if punct == "]" and isinstance(container, list) and not container:
                stack.pop()
                key, expect_value = None, False
                continue
            value, opened = _value(match)
            if opened is None and value is _KEY:
                break  # no value where one must come
            if stack:
                _put(stack[-1], key, value)
            elif root is None:
                root = value
            else:
                break
            if opened is not None:
                stack.append(opened)
                key = _KEY if isinstance(opened, dict) else None
                expect_value = not isinstance(opened, dict)
            else:
                key, expect_value = None, False
            continue
        if not stack:
            break  # something after the whole value
        if punct == ",":
            if isinstance(stack[-1], dict):
                key, expect_value = _KEY, False
            else:
                expect_value = True
            continue
        if punct in ("]", "}") and (punct == "]") == isinstance(stack[-1], list):
            stack.pop()
            key, expect_value = None, False
            continue
        break
    return root


def _value(match: re.Match[str]) -> tuple[Any, list[Any] | dict[str, Any] | None]:
    """The value a token starts (`_KEY` when it starts none), and the container it
    opens."""
    punct = match.group("punct")
    if punct == "{":
        opened: dict[str, Any] = {}
        return opened, opened
    if punct == "[":
        items: list[Any] = []
        return items, items
    if punct is not None:
        return _KEY, None
    if match.group("string") is not None:
        return json.loads(match.group("string")), None
    if match.group("number") is not None:
        return json.loads(match.group("number")), None
    return _LITERALS[match.group("literal")], None


def _put(container: list[Any] | dict[str, Any], key: Any, value: Any) -> None:
    if isinstance(container, list):
        container.append(value)
    else:
        container[key] = value


def looks_like_transcript(data: bytes) -> bool:
    """Whether the readable prefix of `data` (no valid JSON) is a transcript, an array
    of transcripts, or an envelope of one (see the module docstring)."""
    value = readable_prefix(data[:LIMIT].decode("utf-8", "replace").removeprefix("\ufeff"))
    if isinstance(value, list) and value:
        first = value[0]
        if isinstance(first, list):  # an array of message lists
            return bool(first) and looks_like_message(first[0])
        return looks_like_message(first) or _envelope(first)
    return _envelope(value)


def _envelope(value: Any) -> bool:
    """Whether `value` is an object that holds a message list, or one a codec claims."""
    if not isinstance(value, dict) or not value:
        return False
    return any(_items(value.get(key)) for key in ENVELOPE_KEYS) or bool(claims(value))


def _items(value: Any) -> bool:
    """Whether `value` can be a message list: a list that is empty (cut short) or starts
    with an object (`"input": ["src"]` in a configuration file is none)."""
    return isinstance(value, list) and (not value or isinstance(value[0], dict))
