"""Running the rules on one record: lint it, or fix it unless a rewrite would lose data."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import field
from typing import TYPE_CHECKING, Any, Literal

import histnorm.engine as engine
from histnorm._record import record
from histnorm.diagnostic import Diagnostic
from histnorm.document.layout import UNREAD, Record
from histnorm.document.write import lost_by_rewrite
from histnorm.engine import fix, lint, unreadable
from histnorm.errors import HistnormError
from histnorm.model_terms import JsonValue
from histnorm.settings import Settings

if TYPE_CHECKING:
    from histnorm.analysis.outline import Outline
    from histnorm.model import Transcript

Mode = Literal["lint", "fix"]


def proven_clean(
    value: JsonValue, format: str, settings: Settings, raw: bytes | None = None
) -> bool:
    """Whether the parsed `value` is proven to need nothing (no models built)."""
    return checked_outline(value, format, settings, raw)[0]


def checked_outline(
    value: JsonValue,
    format: str,
    settings: Settings,
    raw: bytes | None = None,
    outline: Any = UNREAD,
) -> tuple[bool, Outline | None]:
    """`proven_clean`, and the outline read on the way (`engine.checked_outline`): the
    one place the document layer asks the engine's fast path. `outline`, when the format's
    fast reader has read `value` already (`pick_reading`), is not read again."""
    if outline is UNREAD:
        return engine.checked_outline(value, format, settings, raw)
    return outline is not None and engine.outline_clean(outline, settings, value, raw), outline


@record(frozen=True)
class Checked:
    """One record after the rules ran: the transcript to write, what is left, what was
    applied."""

    transcript: Transcript
    diagnostics: list[Diagnostic]
    applied: Mapping[str, int] = field(default_factory=dict)
    fixes: tuple[Diagnostic, ...] = ()
    """The diagnostic of each fix applied (`FixResult.fixes`)."""


def check_record(
    record: Record,
    mode: Mode,
    settings: Settings,
    raw: bytes,
    spliced: bool = False,
    lines: Sequence[tuple[int, int, Any]] = (),
) -> Checked:
    """Lint or fix one readable record; `raw` is the text it was read from (its own bytes,
    or the whole document) and is checked for repeated keys before any rewrite: a record
    whose rewrite would keep only the last value of a repeated key is not rewritten, and
    says so (HN000). `lines`: the message lines of message-per-line JSONL, of which only
    those the fix rewrites are checked (`lost_by_rewrite`)."""
    transcript = record.transcript
    assert transcript is not None
    if mode == "lint" or record.held:
        return Checked(transcript, list(lint(transcript, settings)))
    result = fix(transcript, settings)
    if result.changed:
        repeated = lost_by_rewrite(record, result.transcript, raw, spliced=spliced, lines=lines)
        if repeated is not None:
            # in message-per-line JSONL the pointer is `/<line index>/...`; the report
            # names the line, and the message the key within it
            within = "/" + repeated.split("/", 2)[2] if lines else repeated
            refusal = HistnormError(
                f"the key at {within} appears twice in one object; the transcript is not "
                "rewritten, because a rewrite would keep only the last value",
                pointer=repeated,
            )
            found = [unreadable(refusal), *lint(transcript, settings)]
            return Checked(transcript, found)
    return Checked(result.transcript, list(result.remaining), result.applied, result.fixes)
