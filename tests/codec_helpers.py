"""Helpers the codec tests share: the codec contract (test_codec_contract.py) and each
format's own tests (test_<format>.py).

Byte comparisons go through `dump` (`orjson.dumps`) because Python's `==` treats `1`,
`1.0` and `True` as equal, while JSON does not.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

import orjson
from hypothesis import HealthCheck, settings

from histnorm import jsonio
from histnorm.document import looks_like_message
from histnorm.errors import HistnormError
from histnorm.formats import Codec
from histnorm.model import Message, Transcript

ROOT = Path(__file__).resolve().parent.parent
FORMAT_FIXTURES = ROOT / "fixtures" / "formats"


def _property(max_examples: int, derandomize: bool = True) -> settings:
    return settings(
        max_examples=max_examples,
        deadline=None,
        derandomize=derandomize,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


PROPERTY_SETTINGS: Mapping[str, settings] = MappingProxyType(
    {
        "openai-chat": _property(100),
        "meai": _property(40, derandomize=False),
        "anthropic": _property(40),
        "openai-responses": _property(100),
        "gemini": _property(60),
        "sharegpt": _property(40),
        "chat-template": _property(40),
        "langchain": _property(30),
        "agent-framework": _property(30),
        "trl": _property(30),
        "claude-code": _property(60),
        "codex": _property(60),
        "pydantic-ai": _property(40),
        "vercel-ai": _property(40),
        "bedrock-converse": _property(40),
        "semantic-kernel": _property(40),
        "llama-index": _property(40),
    }
)
"""The hypothesis settings of each format's property tests, contract and own alike."""


def dump(value: Any) -> bytes:
    """Compare JSON values by their bytes: in Python `1 == True` and `1 == 1.0`."""
    return orjson.dumps(value)


def resolve(doc: Any, pointer: str) -> Any:
    """The value at JSON Pointer `pointer` (RFC 6901) in `doc`."""
    if pointer == "":
        return doc
    assert pointer.startswith("/"), pointer
    for raw in pointer[1:].split("/"):
        token = raw.replace("~1", "/").replace("~0", "~")
        doc = doc[int(token)] if isinstance(doc, list) else doc[token]
    return doc


# --- fixtures ----------------------------------------------------------------------------


def fixture_files(fmt: str) -> list[Path]:
    """The fixture files of format `fmt`: fixtures/formats/<fmt>/*.json and *.jsonl."""
    folder = FORMAT_FIXTURES / fmt
    return sorted([*folder.glob("*.json"), *folder.glob("*.jsonl")])


def fixture_documents(path: Path) -> list[tuple[bytes | None, Any]]:
    """The native documents of a fixture file, each with the bytes it was read from.

    A JSON file is one document; a JSONL dataset holds one document a line. A JSONL file of
    one message a line (a session log) is one document, the list of its lines, which has
    no bytes of its own (None)."""
    raw = path.read_bytes()
    if path.suffix != ".jsonl":
        return [(raw, jsonio.loads(raw))]
    lines = [line for line in raw.splitlines(keepends=True) if line.strip()]
    values = [jsonio.loads(line) for line in lines]
    if values and looks_like_message(values[0]):
        return [(None, values)]
    return list(zip(lines, values, strict=True))


# --- damaged input -----------------------------------------------------------------------


def check_damaged(codec: Codec, doc: Any) -> None:
    """What every codec does with a damaged document: sniff it between 0 and 1, and either
    decode it to a transcript that encodes back to it, or raise only `HistnormError` with a
    pointer that resolves in it (or names a missing key of an object); never mutate it."""
    before = copy.deepcopy(doc)
    assert 0 <= codec.sniff(doc) <= 1
    try:
        transcript = codec.decode(doc)
    except HistnormError as error:
        assert error.pointer is not None
        try:
            resolve(doc, error.pointer)
        except (KeyError, IndexError):  # a missing key: its parent must be an object
            assert isinstance(resolve(doc, error.pointer.rpartition("/")[0]), dict)
    else:
        assert dump(codec.encode(transcript)) == dump(doc)
    assert dump(doc) == dump(before)


# --- edits -------------------------------------------------------------------------------


def with_messages(transcript: Transcript, *messages: Message) -> Transcript:
    """`transcript` holding `messages` instead of its own."""
    edited: Transcript = transcript.evolve(messages=messages)
    return edited


def with_message(transcript: Transcript, index: int, message: Message) -> Transcript:
    """`transcript` with message `index` replaced by `message`."""
    messages = list(transcript.messages)
    messages[index] = message
    return with_messages(transcript, *messages)


def with_parts(transcript: Transcript, index: int, *parts: Any) -> Transcript:
    """`transcript` with the parts of message `index` replaced by `parts`."""
    return with_message(transcript, index, transcript.messages[index].evolve(parts=parts))


def without_part(transcript: Transcript, index: int, part_index: int) -> Transcript:
    """`transcript` without part `part_index` of message `index` (the message is kept)."""
    parts = transcript.messages[index].parts
    return with_parts(transcript, index, *parts[:part_index], *parts[part_index + 1 :])
