"""Message keys that carry tool calls or results in some format, wherever they appear.

A reader that does not read such a key cannot see the calls or results under it (an
OpenAI Chat file read with `--format anthropic`); rule HN013 reports them and the plain
shapes (`histnorm.shape`) never call a message holding one plain.
"""

from __future__ import annotations

from typing import Any, Final

CALL_KEYS: Final = frozenset({"toolcalls", "toolcallid", "functioncall"})
"""The keys, lowercase and without `_`: OpenAI's `tool_calls`, `tool_call_id` and
`function_call` in any spelling."""


def unread_call_keys(native: Any, read: frozenset[str] = frozenset()) -> list[str]:
    """The keys of the native message `native` in `CALL_KEYS` (any spelling) that hold
    something (not null or empty) and are not among the exact keys `read`."""
    if type(native) is not dict:
        return []
    return [
        key
        for key, value in native.items()
        if type(key) is str
        and key.replace("_", "").casefold() in CALL_KEYS
        and key not in read
        and value is not None
        and value != ""
        and value != []
        and value != {}
    ]
