"""What a rule's check gets: the outline, its pairing, the settings and, when a check
needs content the outline does not hold, the transcript; and the parsed native value it
was read from, when known (always on the fast path), for checks that can rule a size or a
media type out on its JSON."""

from __future__ import annotations

import re
from functools import cached_property
from typing import TYPE_CHECKING

import histnorm.jsonio as jsonio
from histnorm.analysis.outline import Outline
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

    @cached_property
    def native_json(self) -> bytes | None:
        """JSON text of `native`: the text it was parsed from when the caller gave it and it
        holds no `\\u` escape (which could spell a key the checks look for), else its
        compact JSON, serialised once for every check that asks; None without a native
        value or when it cannot be written as JSON."""
        if self.native is None:
            return None
        if self._raw is not None and _ESCAPE.search(self._raw) is None:
            return self._raw
        try:
            return jsonio.dumps(self.native)
        except (TypeError, ValueError, RecursionError):
            return None

    @cached_property
    def names_image(self) -> bool:
        """Whether `native_json` holds `IMAGE_MARKER` (False without it), looked for once
        for every check that asks."""
        text = self.native_json
        return text is not None and IMAGE_MARKER in text

    @property
    def transcript(self) -> Transcript:
        """The decoded transcript; raises `NeedsModel` on the fast path, where there is none."""
        if self._transcript is None:
            raise NeedsModel
        return self._transcript

    @cached_property
    def pairing(self) -> Pairing:
        """How the outline pairs, which is how its transcript pairs (`pair()` reads both,
        and the representation test holds them equal): one pairing for the checks that
        read this context and those that pair its outline, which a fast reader may have
        paired on its walk."""
        return pair_transcript(self.outline)

    @cached_property
    def tail(self) -> TailMode:
        """The tail in force (`histnorm.tail`): the one chosen, else that of the value."""
        native = self.native if self._transcript is None else self._transcript.native
        return tail_of(self.settings, native)

    @property
    def closed_tail_note(self) -> str:
        """Why the tail is closed, for messages: the setting, or the request body."""
        return "tail=close" if self.settings.tail is not None else REQUEST_NOTE

    @cached_property
    def profile(self) -> Profile:
        """The replay target's constraints under the settings."""
        return profile_for(self.settings.profile, self.outline.format)


__all__ = ["Context", "NeedsModel"]
