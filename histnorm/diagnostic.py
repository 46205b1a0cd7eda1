"""Diagnostics: what a rule found, where, and what its fix would do."""

from __future__ import annotations

from dataclasses import field
from enum import StrEnum
from typing import Any

from histnorm._record import copied, record


def printable(text: str) -> str:
    """`text` with each lone surrogate (a `"\\ud800"` escape in the JSON read) written as
    a backslash escape, so that it can be encoded as UTF-8 and printed."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


class Severity(StrEnum):
    """How much a diagnostic matters; only errors fail a run by default."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Applicability(StrEnum):
    """Whether a fix loses nothing (safe) or invents or chooses content (unsafe)."""

    SAFE = "safe"
    UNSAFE = "unsafe"


@record(frozen=True, slots=True)
class Location:
    """Where a diagnostic points.

    Indices are 0-based positions in the decoded transcript; `pointer` is a JSON Pointer
    into the native document; `line` is 1-based and known for JSONL records or syntax
    errors; `path` is set by the shell, never by the core.
    """

    message_index: int | None = None
    part_index: int | None = None
    pointer: str | None = None
    line: int | None = None
    transcript_index: int | None = None
    path: str | None = None


@record(frozen=True, slots=True)
class FixInfo:
    """The fix a rule offers for one diagnostic."""

    applicability: Applicability
    title: str
    opted_in: bool = False
    """True when the user chose this fix explicitly (a non-default policy)."""
    owns: tuple[tuple[int, int | None], ...] | None = None
    """What the fix may remove, move or rewrite: (message, part) positions, a part of None
    naming the whole message (`histnorm.conserve`). None: the part or message the
    diagnostic is located at."""


@record(frozen=True, slots=True)
class Diagnostic:
    """One finding of one rule."""

    code: str
    name: str
    message: str
    severity: Severity
    location: Location = field(default_factory=Location)
    fix: FixInfo | None = None
    data: Any = field(default=None, compare=False, repr=False)
    """Rule-private details its fix uses (positions of related parts and so on)."""

    def __post_init__(self) -> None:
        # a message quotes the data (roles, ids, names): it must stay printable text
        if not self.message.isascii():
            object.__setattr__(self, "message", printable(self.message))

    def at(self, **changes: Any) -> Diagnostic:
        """A copy with its location fields changed (`replace` of both, made faster: the
        check of a new message does not apply to a copy of a checked one)."""
        copy: Diagnostic = copied(self, {"location": copied(self.location, changes)})
        return copy

    def sort_key(self) -> tuple[Any, ...]:
        """Order by file, transcript, message, part, then code."""
        loc = self.location
        return (
            loc.path or "",
            loc.transcript_index if loc.transcript_index is not None else -1,
            loc.line if loc.line is not None else -1,
            loc.message_index if loc.message_index is not None else -1,
            loc.part_index if loc.part_index is not None else -1,
            self.code,
        )
