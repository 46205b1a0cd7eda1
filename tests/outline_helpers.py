"""A compact way for tests to state what an outline holds: per message the role, the
call ids, the result ids and how many other (and reasoning) parts it has."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import orjson
import pytest

from benchmarks import dense
from benchmarks.corpus import RENDERERS, available_formats, transcripts
from histnorm.analysis.outline import REASONING, Call, Outline, Result
from histnorm.errors import HistnormError
from histnorm.formats import CODECS, outline_of
from histnorm.formats.base import Codec, strict_equal
from histnorm.model import MediaPart, ToolResultPart, Transcript
from histnorm.model_terms import REUSE
from histnorm.pairing import pair_parts, pair_transcript


class Step(NamedTuple):
    """One message of an outline, summarised."""

    role: str
    calls: tuple[str | None, ...]
    results: tuple[str | None, ...]
    other: int
    reasoning: int


def summary(outline: Outline | None) -> tuple[Step, ...] | None:
    """The summary of `outline` (None stays None)."""
    if outline is None:
        return None
    return tuple(
        Step(
            message.role.casefold(),
            tuple(p.call_id for p in message.parts if isinstance(p, Call)),
            tuple(p.call_id for p in message.parts if isinstance(p, Result)),
            sum(1 for p in message.parts if not isinstance(p, Call | Result)),
            sum(1 for p in message.parts if p == REASONING),
        )
        for message in outline.messages
    )


ROOT = Path(__file__).resolve().parent.parent / "fixtures"
FAST = tuple(n for n, c in CODECS.items() if type(c).read_outline is not Codec.read_outline)
"""Formats whose codec has a fast outline reader (the others decode to outline)."""


def _fixture_values() -> Iterator[tuple[str, str, Any]]:
    for path in sorted((ROOT / "formats").glob("*/*.json")):
        yield path.parent.name, str(path.relative_to(ROOT)), orjson.loads(path.read_bytes())
    for path in sorted((ROOT / "rules").glob("*/*.json")):
        fmt = path.name.split(".")[-2]
        if fmt in CODECS:
            yield fmt, str(path.relative_to(ROOT)), orjson.loads(path.read_bytes())
    for path in sorted(ROOT.glob("*/*/*.jsonl")):
        fmt = path.parent.name
        if fmt in CODECS:
            for n, line in enumerate(path.read_bytes().splitlines(), 1):
                if line.strip():
                    yield fmt, f"{path.relative_to(ROOT)}:{n}", orjson.loads(line)


def generated(fmt: str, defect_rate: float, seed: int, count: int) -> list[Any]:
    """`count` native values of `fmt` from the bench corpus generator, or from the dense
    fine-tuning one for the formats only it writes (chat-template, ShareGPT)."""
    if fmt in RENDERERS:
        stream: Iterator[tuple[Any, Any]] = transcripts(fmt, defect_rate, seed)
    else:
        stream = dense.records(fmt, defect_rate, seed)
    return [value for _, value in itertools.islice(stream, count)]


def _corpus_values(per_format: int = 120) -> Iterator[tuple[str, str, Any]]:
    extra = tuple(f for f in dense.FORMATS if f not in available_formats())
    for fmt in (*available_formats(), *extra):
        for n, value in enumerate(generated(fmt, 0.4, 7, per_format)):
            yield fmt, f"corpus {fmt} #{n}", value


SAMPLES = [*_fixture_values(), *_corpus_values()]
"""(format, where, native value): every fixture, and corpus transcripts with defects."""


def check_outline(fmt: str, where: str, value: Any) -> Outline | None:
    """The representation promise for one native value: `codec.outline(v)` (and the fast
    reader's outline, if it reads `v`) equals `outline_of(codec.decode(v))`, which pairs
    as the model does. Returns that outline, or None when `v` does not decode."""
    codec = CODECS[fmt]
    fast = codec.read_outline(value)
    try:
        transcript = codec.decode(value)
    except HistnormError:
        assert fast is None, f"{where}: the fast reader takes a value that does not decode"
        with pytest.raises(HistnormError):
            codec.outline(value)
        return None
    check_marked(transcript, where)
    check_written(codec, transcript, where)
    reference = outline_of(transcript)
    assert codec.outline(value) == reference, f"{where}: the codec's outline differs"
    assert fast is None or fast == reference, f"{where}: the fast reader's outline differs"
    if fast is not None:  # what the reader found on its walk is what a walk of it finds
        assert fast.tool_parts() == reference.tool_parts(), f"{where}: other tool parts"
        known = codec.known_roles
        assert fast.all_flags(known) == reference.all_flags(known), f"{where}: other flags"
        assert pair_transcript(fast) == pair_parts(transcript), (
            f"{where}: the fast reader pairs otherwise"
        )
        assert not fast.imageless or not may_hold_images(transcript), (
            f"{where}: the fast reader saw no place for an image, yet there is one"
        )
    assert pair_transcript(reference) == pair_parts(transcript), (
        f"{where}: the outline pairs otherwise"
    )
    return reference


def may_hold_images(transcript: Transcript) -> bool:
    """Whether `transcript` has a part where the media checks look for images
    (`histnorm.rules._media.images`): a media part, or a tool result of items."""
    return any(
        isinstance(part, MediaPart)
        or (isinstance(part, ToolResultPart) and isinstance(part.content, list))
        for message in transcript.messages
        for part in message.parts
    )


def check_marked(transcript: Transcript, where: str) -> None:
    """Every message the reader marked as what its decoder makes of its native value
    (`histnorm.formats.base.decoded`, which spares the writer decoding it again) is
    exactly that: decoding its native value once more gives an equal message."""
    for index, message in enumerate(transcript.messages):
        for decoder, (_, answer) in message.__dict__.get(REUSE, {}).items():
            again = decoder(message.native)
            assert answer == strict_equal(again, message), f"{where}: message {index} marked"


def check_written(codec: Codec, transcript: Transcript, where: str) -> None:
    """Reading the encoding of `transcript` back with its messages at hand
    (`Codec.decode_written`) gives what decoding it gives."""
    try:
        encoded = codec.encode(transcript)
    except HistnormError:
        return
    fresh = codec.decode(encoded)
    assert strict_equal(codec.decode_written(encoded, transcript), fresh), where
