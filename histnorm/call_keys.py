"""Message keys that carry tool calls or results in some format, wherever they appear.

A reader that does not read such a key cannot see the calls or results under it (an
OpenAI Chat file read with `--format anthropic`); rule HN013 reports them, and an outline
(`histnorm.analysis.outline`) flags a message holding one `UNKNOWN`.
"""

from __future__ import annotations

from typing import Any, Final

CALL_KEYS: Final = ("tool_calls", "tool_call_id", "function_call")
"""OpenAI's keys for calls and results, which other formats' readers do not read."""


SPELLINGS: Final = frozenset(
    (
        *("tool_calls", "TOOL_CALLS", "toolcalls", "toolCalls", "ToolCalls"),
        *("tool_call_id", "TOOL_CALL_ID", "toolcallid", "toolCallId", "ToolCallId"),
        *("function_call", "FUNCTION_CALL", "functioncall", "functionCall", "FunctionCall"),
    )
)
"""The spellings of `CALL_KEYS` looked for: snake_case, UPPER_CASE, flatcase, camelCase
and PascalCase (a set, so that a message without any is passed over at C speed)."""


def unread_call_keys(native: Any, read: frozenset[str] = frozenset()) -> list[str]:
    """The keys of the native message `native` spelled as one of `CALL_KEYS`
    (`SPELLINGS`) that hold something (not null or empty) and are not among the exact
    keys `read`."""
    if type(native) is not dict or native.keys().isdisjoint(SPELLINGS):
        return []
    return [
        key
        for key, value in native.items()
        if key in SPELLINGS
        and key not in read
        and value is not None
        and value != ""
        and value != []
        and value != {}
    ]
