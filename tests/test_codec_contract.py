"""The codec contract: what every codec in `histnorm.CODECS` promises, checked per format.

Every test here is parametrised over the formats of `histnorm.CODECS` (and their fixture
files under fixtures/formats/<format>/); the property tests draw native documents from
each format's strategy (tests/strategies_<format>.py, see `STRATEGIES`) with that
format's hypothesis settings (`codec_helpers.PROPERTY_SETTINGS`). Each format's own tests
(tests/test_<format>.py) check what is particular to it: shapes, parts, pointers, slots,
edits and error messages. Documents are compared by their bytes (`orjson.dumps`), since
Python's `==` takes `1`, `1.0` and `True` as equal.

Every codec keeps these promises:

- Fixtures: the format has 5 to 10 fixture files.
- Byte-exact round trip: `encode(decode(doc))` is `doc`, byte for byte, for every fixture
  document and every generated one. Written in the style detected from its bytes, a
  fixture document is its very bytes again, and a fixture file read and written back
  untouched through `histnorm.document` is the very file.
- Untouched means identical: encoding an untouched transcript gives back the very objects
  it was read from (each message, line or turn of the list, and the value of every other
  key of an envelope), so the file layer can copy their original bytes.
- No mutation: `decode` never mutates its input, and neither does `encode`, of the
  transcript or of an edited one.
- Stability: decoding what `encode` wrote gives the same transcript (also compared as
  JSON, so `1` and `True` differ), and encoding that again gives the same document.
- Sniffing and detection: the codec claims its documents (`0 < sniff <= 1` for every
  document holding a message); the codecs of other formats score them 0, but for the
  overlaps in `OVERLAPS`; `detect_format` picks the format for every fixture document
  (but for those in `DETECTED_AS`) and, for a generated document, the format or one of
  its overlaps.
- Damaged input: a document with any one value replaced by any JSON value is sniffed
  between 0 and 1, and either decodes and round-trips byte for byte, or raises only
  `HistnormError` with a pointer that resolves in it (or names a missing key of an
  object). It is never mutated.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import strategies_agent_framework
import strategies_anthropic
import strategies_bedrock_converse
import strategies_chat_template
import strategies_claude_code
import strategies_codex
import strategies_gemini
import strategies_json
import strategies_langchain
import strategies_llama_index
import strategies_meai
import strategies_openai_chat
import strategies_openai_responses
import strategies_pydantic_ai
import strategies_semantic_kernel
import strategies_sharegpt
import strategies_trl
import strategies_vercel_ai
from codec_helpers import (
    PROPERTY_SETTINGS,
    check_damaged,
    dump,
    fixture_documents,
    fixture_files,
)
from hypothesis import given
from hypothesis import strategies as st
from strategies_native import DOCUMENTS

from histnorm import CODECS, jsonio
from histnorm.document import read_json, read_jsonl, write
from histnorm.formats import Codec, detect_format, get_codec
from histnorm.model import Transcript

FORMATS = list(CODECS)

STRATEGIES = DOCUMENTS

ROUND_TRIP_VARIANTS: dict[str, dict[str, st.SearchStrategy[Any]]] = {
    "meai": {
        f"{style}-{generation}": strategies_meai.transcripts(style, generation)
        for style in ("camel", "pascal")
        for generation in ("current", "old")
    },
    "langchain": {
        "one-form-or-mixed": strategies_langchain.transcripts(
            st.sampled_from(["dict", "dumpd", None])
        )
    },
    "agent-framework": {
        generation: strategies_agent_framework.transcripts(generation)
        for generation in ("current", "old")
    },
}
"""Formats whose round trip is proved on each variant of their documents (one casing or
generation at a time) rather than on `STRATEGIES`, which mixes them."""


DAMAGED: dict[str, st.SearchStrategy[Any]] = {
    "openai-chat": strategies_openai_chat.damaged_transcripts(),
    "meai": strategies_json.damaged(
        strategies_meai.transcripts(),
        strategies_meai.JSON_VALUES | st.sampled_from([[], {}, [1], 1.5, True, None, "x"]),
    ),
    "anthropic": strategies_anthropic.damaged_transcripts(),
    "openai-responses": strategies_openai_responses.damaged_documents(),
    "gemini": strategies_gemini.damaged_documents(),
    "sharegpt": strategies_sharegpt.damaged_transcripts(),
    "chat-template": strategies_chat_template.damaged_transcripts(),
    "langchain": strategies_json.damaged(
        strategies_langchain.transcripts(),
        strategies_langchain.JSON_VALUES
        | st.sampled_from([[], {}, [1], ["x"], {"a": 1}, 1.5, None, "x"]),
    ),
    "agent-framework": strategies_json.damaged(
        strategies_agent_framework.transcripts(),
        strategies_agent_framework.JSON_VALUES
        | st.sampled_from([[], {}, ["x"], {"a": 1}, 1.5, None, "x"]),
    ),
    "claude-code": strategies_claude_code.damaged_sessions(),
    "codex": strategies_codex.damaged_rollouts(),
    "pydantic-ai": strategies_pydantic_ai.damaged_transcripts(),
    "vercel-ai": strategies_vercel_ai.damaged_transcripts(),
    "trl": strategies_trl.damaged_transcripts(),
    "bedrock-converse": strategies_bedrock_converse.damaged_transcripts(),
    "semantic-kernel": strategies_semantic_kernel.damaged_transcripts(),
    "llama-index": strategies_llama_index.damaged_transcripts(),
}
"""Each format's valid documents with one value replaced by an arbitrary JSON value."""

OVERLAPS: dict[str, frozenset[str]] = {
    "openai-chat": frozenset({"anthropic", "chat-template"}),
    "anthropic": frozenset({"openai-chat", "chat-template", "openai-responses"}),
    "chat-template": frozenset({"openai-chat", "anthropic"}),
    "vercel-ai": frozenset({"gemini"}),
}
"""The other formats whose codecs may also claim (sniff > 0) a document of a format: plain
role/content chat is valid OpenAI Chat, Anthropic and chat-template alike, and a stored
Anthropic message with string content (`"type": "message"`) is a valid Responses item. A
UIMessage whose parts are all empty reads as a Gemini Content with an extra `id`.
The codecs of all other formats score a document of the format 0."""

DETECTED_AS: dict[tuple[str, str, int], str] = {
    ("chat-template", "dataset.jsonl", 1): "openai-chat",  # plain chat: no tool calls
}
"""Fixture documents (format, file, 1-based document) that detection gives to another
format, which reads them too."""


def _fixture_cases() -> list[Any]:
    return [
        pytest.param(fmt, path, id=f"{fmt}/{path.name}")
        for fmt in FORMATS
        for path in fixture_files(fmt)
    ]


def _round_trip_cases() -> list[Any]:
    return [
        pytest.param(fmt, documents, id=f"{fmt}-{variant}" if variant else fmt)
        for fmt in FORMATS
        for variant, documents in (ROUND_TRIP_VARIANTS.get(fmt) or {"": STRATEGIES[fmt]}).items()
    ]


def for_all(fmt: str, documents: st.SearchStrategy[Any], check: Callable[[Any], None]) -> None:
    """Run `check` on documents drawn from `documents`, with the settings of `fmt`."""
    PROPERTY_SETTINGS[fmt](given(documents)(check))()


def shares_objects(out: Any, doc: Any) -> bool:
    """Whether `out` is `doc` or is made of its very values: the same items of a list, the
    same value (or, for a list, the same items) under every key of an object."""
    if out is doc:
        return True
    if isinstance(doc, list) and isinstance(out, list):
        return len(out) == len(doc) and all(a is b for a, b in zip(out, doc, strict=True))
    if isinstance(doc, dict) and isinstance(out, dict):
        return list(out) == list(doc) and all(
            out[key] is value or (isinstance(value, list) and shares_objects(out[key], value))
            for key, value in doc.items()
        )
    return False


def round_trip(codec: Codec, doc: Any) -> tuple[Transcript, Any]:
    """Decode and encode `doc`, checking that neither mutates it and that the output is
    `doc` byte for byte, made of its very objects."""
    before = copy.deepcopy(doc)
    transcript = codec.decode(doc)
    assert dump(doc) == dump(before)
    out = codec.encode(transcript)
    assert dump(doc) == dump(before)
    assert dump(out) == dump(doc)
    assert shares_objects(out, doc)
    return transcript, out


def test_every_format_has_its_strategies_and_settings() -> None:
    assert set(STRATEGIES) == set(DAMAGED) == set(PROPERTY_SETTINGS) == set(CODECS)
    assert set(ROUND_TRIP_VARIANTS) | set(OVERLAPS) <= set(CODECS)


# --- fixtures ----------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_fixture_set_is_present(fmt: str) -> None:
    assert 5 <= len(fixture_files(fmt)) <= 10


@pytest.mark.parametrize(("fmt", "path"), _fixture_cases())
def test_fixture_round_trips_byte_for_byte(fmt: str, path: Path) -> None:
    codec = get_codec(fmt)
    documents = fixture_documents(path)
    transcripts = []
    for raw, doc in documents:
        transcript, out = round_trip(codec, doc)
        if raw is not None:
            assert jsonio.dumps(out, jsonio.detect_style(raw)) == raw
        transcripts.append(transcript)
    data = path.read_bytes()
    read = read_jsonl if path.suffix == ".jsonl" else read_json
    document = read(data, format=fmt)
    assert [(r.error, r.transcript) for r in document.records] == [(None, t) for t in transcripts]
    assert write(document, transcripts) == data


@pytest.mark.parametrize(("fmt", "path"), _fixture_cases())
def test_fixture_is_claimed_by_its_codec_alone_and_detected(fmt: str, path: Path) -> None:
    for number, (_, doc) in enumerate(fixture_documents(path), 1):
        at = f"document {number} of {path.name}"
        scores = {name: codec.sniff(doc) for name, codec in CODECS.items()}
        assert 0 < scores[fmt] <= 1, at
        claimed = {name for name, score in scores.items() if score > 0 and name != fmt}
        assert claimed <= OVERLAPS.get(fmt, frozenset()), at
        assert detect_format(doc) == DETECTED_AS.get((fmt, path.name, number), fmt), at


# --- generated documents -----------------------------------------------------------------


@pytest.mark.parametrize(("fmt", "documents"), _round_trip_cases())
def test_round_trip_is_byte_exact_and_does_not_mutate_its_input(
    fmt: str, documents: st.SearchStrategy[Any]
) -> None:
    codec = get_codec(fmt)

    def round_trip_is_byte_exact_and_leaves_the_input_alone(doc: Any) -> None:
        before = copy.deepcopy(doc)
        transcript, _ = round_trip(codec, doc)
        codec.encode(transcript.evolve(messages=transcript.messages[1:]))  # an edit
        assert dump(doc) == dump(before)

    for_all(fmt, documents, round_trip_is_byte_exact_and_leaves_the_input_alone)


@pytest.mark.parametrize("fmt", FORMATS)
def test_decode_of_encode_is_stable(fmt: str) -> None:
    codec = get_codec(fmt)

    def decode_of_encode_is_stable(doc: Any) -> None:
        once = codec.decode(doc)
        twice = codec.decode(codec.encode(once))
        assert twice == once
        assert dump(twice.model_dump(mode="json")) == dump(once.model_dump(mode="json"))
        assert dump(codec.encode(twice)) == dump(codec.encode(once))

    for_all(fmt, STRATEGIES[fmt], decode_of_encode_is_stable)


@pytest.mark.parametrize("fmt", FORMATS)
def test_sniff_claims_generated_documents_and_detection_picks_them(fmt: str) -> None:
    codec = get_codec(fmt)
    overlaps = OVERLAPS.get(fmt, frozenset())

    def claimed_by_its_codec_alone(doc: Any) -> None:
        score = codec.sniff(doc)
        assert 0 <= score <= 1
        transcript = codec.decode(doc)
        assert transcript.format == fmt
        if not transcript.messages:  # a session log of events alone: nothing to claim
            return
        assert score > 0
        others = {name for name, other in CODECS.items() if name != fmt and other.sniff(doc)}
        assert others <= overlaps
        assert detect_format(doc) in {fmt, *overlaps}

    for_all(fmt, STRATEGIES[fmt], claimed_by_its_codec_alone)


@pytest.mark.parametrize("fmt", FORMATS)
def test_damaged_input_raises_only_histnorm_error_at_a_real_location(fmt: str) -> None:
    codec = get_codec(fmt)

    def fails_only_cleanly(doc: Any) -> None:
        check_damaged(codec, doc)

    for_all(fmt, DAMAGED[fmt], fails_only_cleanly)
