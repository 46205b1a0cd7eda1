"""Repairing the bytes of one JSON or JSONL document, for `histnorm.repair`.

`histnorm.document.fix_document` does the work, with the command line's rules:
untouched bytes are kept, a record holding a repeated key is not rewritten. For
`repair`, a record that holds no transcript is reported as HN000 (it is still kept as it
was), so that unreadable input never passes silently.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import histnorm.engine as engine
from histnorm.diagnostic import Diagnostic
from histnorm.document import fix_document, single_value
from histnorm.errors import HistnormError
from histnorm.settings import Settings

_ENVELOPE_KEYS = ("messages", "contents", "input", "conversations")
"""Keys that hold the message list of a request body or dataset record."""


def repair_document(
    data: bytes, format: str | None, settings: Settings
) -> tuple[bytes | None, Mapping[str, int], tuple[Diagnostic, ...], tuple[Diagnostic, ...]]:
    """The repaired bytes of `data` (None: unchanged), the fixes applied, the
    diagnostics left (located by line, pointer and, in an array, transcript index), and
    the diagnostic of each fix applied (`DocumentResult.fixes`)."""
    value = single_value(data, jsonl=False)
    if value is not None and empty_history(value):
        return None, {}, (), ()
    result = fix_document(data, settings=settings, format=format)
    skips = tuple(
        engine.unreadable(HistnormError(skip.message, pointer=skip.pointer, line=skip.line))
        for skip in result.skipped
    )
    remaining = tuple(sorted(result.diagnostics + skips, key=Diagnostic.sort_key))
    return result.output, result.applied, remaining, result.fixes


def empty_history(value: Any) -> bool:
    """Whether `value` is an empty history: no messages, bare or in an envelope whose every
    message key is empty (`{"messages": [], "conversations": [...]}` is not)."""
    if isinstance(value, list):
        return not value
    if not isinstance(value, dict):
        return False
    held = [value[key] for key in _ENVELOPE_KEYS if key in value]
    return bool(held) and all(messages == [] for messages in held)
