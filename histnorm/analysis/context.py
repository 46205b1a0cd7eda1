"""What a rule's check gets: the outline, its pairing, the settings and, when a check
needs content the outline does not hold, the transcript; and the parsed native value it
was read from, when known (always on the fast path), for checks that can rule a size or a
media type out on its JSON."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

import histnorm.jsonio as jsonio
from histnorm.analysis.outline import (
    DUPLICATED,
    ORPHANED,
    PENDING,
    REPEATED,
    RESULTS,
    UNANSWERED,
    Other,
    Outline,
    Result,
    holds_image_slot,
)
from histnorm.held_lines import HeldLines
from histnorm.last_answer import ReadLines
from histnorm.model_terms import JsonValue
from histnorm.pairing import Pairing, pair_transcript
from histnorm.profiles import Profile, profile_for
from histnorm.settings import Settings, TailMode
from histnorm.tail import REQUEST_NOTE, tail_of

if TYPE_CHECKING:
    from histnorm.model import Transcript


IMAGE_MARKER = b"image"
"""Bytes the JSON of every image histnorm reads holds (`image_url`, `input_image`,
`"type":"image"`, and the `image/...` media type of Gemini's `inlineData`): JSON without
them holds none."""
_ESCAPE = re.compile(rb"\\u")
"""A `\\u` escape in JSON text (a compiled search of a literal: `b"\\u" in raw` scans
bytes slower)."""


_T = TypeVar("_T")


class _once(Generic[_T]):
    """`functools.cached_property` without its lock (a context is read by one thread):
    the value is worked out on the first read and kept in the instance's `__dict__`,
    which later reads find first."""

    def __init__(self, compute: Callable[[Any], _T]) -> None:
        self.compute = compute
        self.name = compute.__name__
        self.__doc__ = compute.__doc__

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> _once[_T]: ...
    @overload
    def __get__(self, instance: object, owner: type | None = None) -> _T: ...
    def __get__(self, instance: object | None, owner: type | None = None) -> _once[_T] | _T:
        if instance is None:
            return self
        value = instance.__dict__[self.name] = self.compute(instance)
        return value


_MEDIA = Other("media")
"""A media part in an outline."""


class Unheld:
    """The native value of a session whose outline was read from its text a line at a
    time, no line held (`histnorm.document.streamed`): a check finds it is no object (so
    no request body), its JSON is the text the context holds (`raw`), and it cannot be
    serialised, so without that text a check asks for the model. `sizes`: the length of
    each line in that text, as `ReadLines` holds them; `marked`: whether the JSON of a
    line holds `IMAGE_MARKER` (its text, or where it has a `\\u` escape, which could spell
    it, its compact JSON), which is what `Context.may_hold_image` searches."""

    __slots__ = ("marked", "sizes")

    def __init__(self, sizes: tuple[int, ...], marked: bool) -> None:
        self.sizes = sizes
        self.marked = marked

    def __repr__(self) -> str:
        return f"Unheld({len(self.sizes)} lines)"


def _count(native: ReadLines | HeldLines | Unheld) -> int:
    """How many lines `native` holds, or has the sizes of."""
    return len(native.sizes) if isinstance(native, Unheld) else len(native)


class NeedsModel(Exception):
    """A check asked for the transcript of a context that has none (the lint fast path):
    the value must be decoded and checked on its model."""


class Context:
    """One transcript as the checks see it: `outline` always, `transcript` on demand."""

    def __init__(
        self,
        outline: Outline,
        settings: Settings,
        transcript: Transcript | None = None,
        native: JsonValue = None,
        raw: bytes | None = None,
    ) -> None:
        self.outline = outline
        self.settings = settings
        self._transcript = transcript
        self.native = native
        """The parsed native value the outline, and the transcript if any, were read from
        (on the fast path, `engine.proven_clean`; on a model, `formats.seed_read`), else
        None."""
        self._raw = raw

    @property
    def decoded(self) -> Transcript | None:
        """The decoded transcript, or None on the fast path (never raises)."""
        return self._transcript

    @_once
    def native_json(self) -> bytes | None:
        """JSON text of `native`: the text it was parsed from when the caller gave it (a
        JSON document, or the JSONL lines of a list read a line a value: they hold the JSON
        text of every item, which is all the checks measure or search) and it holds no
        `\\u` escape (which could spell a key the checks look for) or is that compact JSON
        already (`jsonio.Compact`), else its compact JSON, serialised once for every check
        that asks; None without a native value or when it cannot be written as JSON."""
        if self.native is None:
            return None
        raw = self._raw
        if raw is not None and (type(raw) is jsonio.Compact or _ESCAPE.search(raw) is None):
            return raw  # what `jsonio.dumps` writes of it, or a text without escapes
        try:
            return jsonio.dumps(self.native)
        except (TypeError, ValueError, RecursionError):
            return None

    @_once
    def json_size(self) -> int | None:
        """The length of the JSON text `native` was read from when the caller gave it, else
        of `native_json`: a bound on the length of every string and of every message of it
        (a string's escapes are longer than what they spell, and its other characters take
        at least one byte each), with no search of the text; None as for `native_json`."""
        if self.native is None:
            return None
        if self._raw is not None:
            return len(self._raw)
        text = self.native_json
        return None if text is None else len(text)

    @_once
    def item_size(self) -> int | None:
        """A bound on the length of every string of `native` (an image's base64 text is
        one): the longest line when `native` holds a session's lines with the size of
        each in the text given (`ReadLines`, `HeldLines`, `Unheld`), since no string
        spans two lines; else `json_size`."""
        native = self.native
        sizes = native.sizes if isinstance(native, ReadLines | HeldLines | Unheld) else None
        if self._raw is None or not sizes or len(sizes) != _count(native):
            return self.json_size
        return max(sizes)

    @_once
    def may_hold_image(self) -> bool:
        """Whether the transcript may hold an image where `histnorm.rules._media.images`
        looks: False when its reader saw none can (`Outline.imageless`), when its outline
        shows no media part and no tool result, when `native_json` is known and does not
        hold `IMAGE_MARKER`, or, without it (a transcript a fix made), when no message of
        the transcript has a part where images are read (`holds_image_slot`). Worked out
        once for every check that asks; the outline is looked at first (a search of the
        JSON text costs more than a walk of the parts)."""
        outline = self.outline
        if outline.imageless:
            return False
        if not outline.tool_kinds() & RESULTS and all(
            _MEDIA not in step.parts for step in outline.messages
        ):
            return False
        if isinstance(self.native, Unheld):
            return self.native.marked  # each line searched as it was read
        text = self.native_json
        if text is not None:
            return IMAGE_MARKER in text
        transcript = self._transcript  # a fixed one: its messages tell, those whose step
        if transcript is None:  # shows a media part or a result (the others hold none)
            return True
        messages, steps = transcript.messages, outline.messages
        if len(steps) != len(messages):
            return any(map(holds_image_slot, messages))
        return any(
            holds_image_slot(message)
            for message, step in zip(messages, steps, strict=True)
            if _MEDIA in step.parts or any(type(part) is Result for part in step.parts)
        )

    @property
    def transcript(self) -> Transcript:
        """The decoded transcript; raises `NeedsModel` on the fast path, where there is none."""
        if self._transcript is None:
            raise NeedsModel
        return self._transcript

    @_once
    def pairing(self) -> Pairing:
        """How the outline pairs, which is how its transcript pairs (`pair()` reads both,
        and the representation test holds them equal): one pairing for the checks that
        read this context and those that pair its outline, which a fast reader may have
        paired on its walk."""
        return pair_transcript(self.outline)

    @_once
    def tail(self) -> TailMode:
        """The tail in force (`histnorm.tail`): the one chosen, else that of the value."""
        native = self.native if self._transcript is None else self._transcript.native
        return tail_of(self.settings, native)

    @property
    def closed_tail_note(self) -> str:
        """Why the tail is closed, for messages: the setting, or the request body."""
        return "tail=close" if self.settings.tail is not None else REQUEST_NOTE

    @_once
    def facts(self) -> int:
        """What `Rule.needs` reads: the kinds of tool part the outline holds
        (`Outline.tool_kinds`) and what its pairing found (`UNANSWERED`, `ORPHANED`,
        `DUPLICATED`, `REPEATED`, `PENDING`); worked out once."""
        kinds = self.outline.tool_kinds()
        if not kinds:
            return 0  # nothing to pair
        pairing = self.pairing
        return (
            kinds
            | (UNANSWERED if pairing.unmatched_calls else 0)
            | (ORPHANED if pairing.orphan_results else 0)
            | (DUPLICATED if pairing.duplicate_results else 0)
            | (REPEATED if pairing.repeats else 0)
            | (PENDING if pairing.pending_requests else 0)
        )

    @_once
    def profile(self) -> Profile:
        """The replay target's constraints under the settings."""
        return profile_for(self.settings.profile, self.outline.format)


__all__ = ["Context", "NeedsModel", "Unheld"]
