"""What the canonical model (`histnorm.model`) defines that needs no pydantic.

The lint fast path (the outline, `histnorm.analysis.outline`) reads tool families and
marker keys without building a model; importing them from here keeps `histnorm.model`,
and pydantic with it, out of a process that only lints clean transcripts.
`histnorm.model` re-exports every name.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Any, Protocol

JsonValue = Any
"""Any JSON-compatible value: dict, list, str, int, float, bool or None."""

PARTIAL_RESPONSE_KEY = "agent_framework.partial_response"
"""Metadata key Agent Framework sets on messages of a cancelled streamed response."""

SYNTHESIZED_KEY = "histnorm.synthesized"
"""Metadata key histnorm sets on content it creates."""


def is_marker_true(value: Any) -> bool:
    """Whether a marker value means "yes": `true`, `"true"` in any case, or `1`."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return value == 1
    return isinstance(value, str) and value.strip().casefold() == "true"


class ToolFamily(StrEnum):
    """The family a tool call belongs to; a result pairs only with a call of its family."""

    FUNCTION = "function"
    CUSTOM = "custom"
    HOSTED = "hosted"
    MCP = "mcp"
    HANDOFF = "handoff"


class Memoised(Protocol):
    """What the memo helpers below read of a `histnorm.model.Transcript`."""

    @property
    def messages(self) -> object: ...
    @property
    def format(self) -> str | None: ...
    @property
    def server_state(self) -> str | None: ...
    @property
    def native(self) -> Any: ...


UNREAD = "_histnorm_unread"
"""Where a message built unread (`histnorm.model.unread_message`) keeps, in its `__dict__`,
how to read it: its decoder and its pointer. A message holding it is still unread."""

HELD = "_histnorm_held"
"""Where a message built unread from a line held as text (`histnorm.model.unread_held`)
keeps the index of that line; its `UNREAD` holds, after its decoder and pointer (None: the
line's), the lines (`histnorm.held_lines.HeldLines`) and whether the transcript's outline
found no image slot in any message. Its `native` is read from the line the first time it
is asked for; reading the message lets go of both."""

REUSE = "_histnorm_reuse"
"""Where `histnorm.formats.base.reuse_native` keeps its answers in a model's `__dict__`
(pydantic ignores it: not a field, not compared), by decoder (`decoder_key`), each with the
`id` of the model it holds for."""


def decoder_key(decoder: Callable[..., Any]) -> object:
    """What identifies what `decoder` gives for a value: a module-level function itself
    (which pickles by name with the models that keep it); None for any other (a lambda or
    a closure: never kept)."""
    if getattr(decoder, "__closure__", 0) is not None:
        return None
    return decoder if "<" not in getattr(decoder, "__qualname__", "<") else None


NATIVE_MEMO = "_histnorm_native_memo"
"""Where `native_memo` keeps its answers in a transcript's `__dict__`."""


def native_memo(transcript: Memoised) -> dict[str, Any]:
    """Answers computed from `transcript.native` alone (a codec's reading of its lines),
    by name: one dict shared by every transcript evolved from this one while `native` is
    the same object, so a run of fixes reads the native document once. What is kept is
    never changed by its readers."""
    held = transcript.__dict__.get(NATIVE_MEMO)
    if held is None or held[0] is not transcript.native:
        held = (transcript.native, {})
        transcript.__dict__[NATIVE_MEMO] = held
    return held[1]


MemoSource = tuple[object, object, object, object]
"""What an answer kept on a transcript (its outline, its pairing) was computed from."""


def memo_source(transcript: Memoised) -> MemoSource:
    """The values an answer kept in `transcript.__dict__` depends on: `model_copy` copies
    that dict, so a kept answer holds only while these are the same objects."""
    return (transcript.messages, transcript.format, transcript.server_state, transcript.native)


def same_source(held: object, now: MemoSource) -> bool:
    """Whether a kept answer computed from `held` still holds for `now` (same objects)."""
    return (
        isinstance(held, tuple)
        and len(held) == 4
        and all(a is b for a, b in zip(held, now, strict=True))
    )
