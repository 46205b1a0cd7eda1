"""Messages whose content lies under keys their format's reader does not read.

A message that holds nothing under any of its format's content keys (`Codec.content_keys`)
but holds something under a key the reader does not know (`Codec.message_keys`) is no
empty message: its content is there, where histnorm cannot see it (a Semantic Kernel
message's `items`, a LlamaIndex message's `blocks`). Rule HN013 reports it, the fix guard
keeps its turn as it is, HN005 leaves it alone, and detection never reads a history as a
format whose content keys its messages lack.
"""

from __future__ import annotations

from functools import cache
from typing import Any, Final


def fold(key: str) -> str:
    """`key` as keys are compared here: casefolded, without underscores (`toolCalls`,
    `ToolCalls` and `tool_calls` are one key)."""
    return key.casefold().replace("_", "")


@cache
def _folded(keys: tuple[str, ...] | frozenset[str]) -> frozenset[str]:
    return frozenset(map(fold, keys))


SHARED_KEYS: Final = _folded(
    (
        *("id", "name", "timestamp", "created", "created_at", "updated_at", "metadata"),
        *("status", "model", "weight"),
    )
)
"""Message keys that hold no content in any format: ids, names, times, bookkeeping."""
ANY_CONTENT: Final = (
    *("content", "contents", "parts", "tool_calls", "tool_call_id", "function_call"),
    *("refusal", "audio", "reasoning_content", "thinking", "reasoning", "value", "text"),
    *("data", "kwargs", "message", "input", "output", "arguments", "payload"),
)
"""Message keys some format histnorm reads keeps content under: a history whose every
message has content under none of them is in a format histnorm does not read."""


def _empty(value: Any) -> bool:
    return value is None or value == "" or value == [] or value == {}


def unread_content(native: Any, content: tuple[str, ...], known: frozenset[str]) -> list[str]:
    """The keys of the native message `native` holding a non-empty array or object while
    none of its `content` keys holds anything (not null or empty), other than the `known`
    keys and `SHARED_KEYS` (compared `fold`ed: in any casing, with or without
    underscores); empty when the message holds content its reader reads. A string,
    number or boolean under an unknown key is taken for metadata (a trace id, a training
    flag): structured content is arrays and objects."""
    if type(native) is not dict:
        return []
    for key in content:  # as usually spelt, likeliest first: a message with content costs a lookup
        value = native.get(key)
        if value is not None and value != "" and value != [] and value != {}:
            return []
    folded_content, folded_known = _folded(content), _folded(known)
    found = []
    for key, value in native.items():
        if _empty(value):
            continue
        name = fold(key) if type(key) is str else key
        if name in folded_content:
            return []
        if type(value) in (list, dict) and name not in folded_known and name not in SHARED_KEYS:
            found.append(key)
    return found
