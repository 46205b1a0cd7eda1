"""What of a part and of a message another format can carry.

A part keeps only what histnorm's model holds of it when it moves to another format, and
a target may have no place for some of that (an author name, a message id, a call id).
A media part read from inline data (an Anthropic or Claude Code `base64` source, an OpenAI
`file_data` or `input_audio`, a LangChain `base64` block) has no URI in histnorm's model:
`inline_uri` gives it one, a `data:` URL, so that a target that takes data URLs carries
it. `media_place` says whether a target has a place for a media part at all, and
`left_behind` names the values of a native block the model does not carry (a document's
title, an image's detail, a text's cache marker or citations).
"""

from __future__ import annotations

import base64
import contextlib
import json
from collections.abc import Iterable, Iterator
from typing import Any

from histnorm._record import record
from histnorm.formats.bedrock_converse.blocks import inline_media
from histnorm.formats.openai_chat.write import AUDIO_FORMATS
from histnorm.media import parse_data_url

AUTHOR_NAMES = frozenset(
    {"openai-chat", "chat-template", "meai", "langchain", "agent-framework", "semantic-kernel"}
)
"""The formats whose messages hold an author name (`name`, `authorName`, `author_name`)."""

MESSAGE_IDS: dict[str, frozenset[str] | None] = {
    "meai": None,
    "langchain": None,
    "agent-framework": None,
    "vercel-ai": None,
    "claude-code": frozenset({"assistant"}),
}
"""The formats whose messages hold an id: of any role (None), or of these roles only (a
Claude Code assistant line's `message.id`)."""
NO_CALL_IDS = frozenset({"sharegpt"})
"""Targets whose calls and results hold no call id (LLaMA-Factory pairs them by turn)."""
UNNAMED_HOSTED = frozenset({"gemini"})
"""Targets whose server-side tool calls and results hold no tool name (Gemini `toolCall`
and `toolResponse` name a `toolType`)."""

ANY_MEDIA = frozenset({"gemini", "meai", "agent-framework", "langchain", "llama-index"})
"""Targets that write a media part of any type from its URI (inline data as a data URL)."""
NO_MEDIA = frozenset({"sharegpt", "pydantic-ai", "trl", "semantic-kernel"})
"""Targets histnorm writes no media part in."""
ANTHROPIC_IMAGES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
CONVERSE_DOCUMENTS = frozenset(
    {"application/pdf", "text/csv", "text/html", "text/plain", "text/markdown"}
)
"""Document media types Bedrock Converse takes inline (`format` pdf, csv, html, txt, md)."""
SHAPE_KEYS = frozenset({"type", "$type", "kind", "part_kind", "source_type", "lc"})
"""Keys of a native block that name its shape (with a string or number), not content."""


def inline_uri(native: Any) -> str | None:
    """A `data:` URL of the inline data a native media block holds, or None."""
    if not isinstance(native, dict):
        return None
    source = native.get("source")
    if isinstance(source, dict):  # Anthropic, Claude Code
        data, media_type = source.get("data"), source.get("media_type")
        if source.get("type") == "base64" and isinstance(data, str):
            return _data_url(media_type, data)
        if source.get("type") == "text" and isinstance(data, str):
            return _data_url("text/plain", base64.b64encode(data.encode("utf-8")).decode())
    body = native.get("file")  # OpenAI Chat `file`
    for found in (
        body.get("file_data") if isinstance(body, dict) else None,
        native.get("file_data"),
    ):
        if isinstance(found, str) and parse_data_url(found) is not None:
            return found
    audio = native.get("input_audio")  # OpenAI Chat
    if isinstance(audio, dict) and isinstance(audio.get("data"), str):
        fmt = audio.get("format")
        return _data_url(f"audio/{fmt}" if isinstance(fmt, str) else None, audio["data"])
    converse = inline_media(native)  # Bedrock Converse `bytes`
    if converse is not None:
        return _data_url(converse[0], converse[1])
    data = native.get("base64")  # LangChain v1 blocks
    if not isinstance(data, str) and native.get("source_type") == "base64":
        data = native.get("data")
    if isinstance(data, str):
        return _data_url(native.get("mime_type"), data)
    return None


def _data_url(media_type: Any, data: str) -> str:
    kind = media_type if isinstance(media_type, str) else "application/octet-stream"
    return f"data:{kind};base64,{data}"


def media_type_of(uri: str | None, media_type: str | None) -> str | None:
    """`media_type`, else the type a data URL names."""
    if media_type is not None or uri is None:
        return media_type
    parsed = parse_data_url(uri)
    return parsed[0] if parsed is not None and parsed[0] else None


def media_place(to: str, uri: str | None, media_type: str | None) -> bool:
    """Whether `to` has a place for a media part with this URI and media type."""
    if uri is None or to in NO_MEDIA:
        return False
    inline = uri.startswith("data:")
    folded = (media_type or "").casefold()
    major = folded.partition("/")[0]
    if to in ANY_MEDIA:
        return True
    if to == "vercel-ai":
        return media_type is not None
    if to == "bedrock-converse":  # bytes only (or an s3Location it read), of its formats
        return inline and (folded in ANTHROPIC_IMAGES or folded in CONVERSE_DOCUMENTS)
    if to in ("anthropic", "claude-code"):
        # an untyped URL goes as an image, as the codec writes it
        known = folded in ANTHROPIC_IMAGES or folded in ("", "application/pdf")
        return known or (folded == "text/plain" and inline)
    if to == "chat-template":
        return major in ("", "image", "video", "audio")
    if to == "openai-chat":
        if major in ("", "image"):
            return True
        return inline and (folded == "application/pdf" or folded in AUDIO_FORMATS)
    if to in ("openai-responses", "codex"):
        return major in ("", "image") or inline or folded == "application/pdf"
    return False


def left_behind(native: Any, carried: Iterable[Any]) -> Iterator[str]:
    """The JSON Pointers (relative to the block) of the values of a native block that the
    `carried` values (what histnorm's model holds of the part) do not hold, one per key:
    a document's title, an image's detail, a cache marker, a text's citations, a call
    item's status. A string is held when it is part of a carried string (a data URL holds
    its base64), a number or boolean when it is one of the carried ones."""
    if isinstance(native, dict):
        scalars: set[tuple[str, Any]] = set()
        texts: list[str] = []
        for value in carried:
            _collect(value, scalars, texts)
        yield from _left(native, _Held(scalars, "\x00".join(texts)), "")


@record(frozen=True)
class _Held:
    scalars: set[tuple[str, Any]]
    texts: str

    def holds(self, value: Any) -> bool:
        if isinstance(value, str):
            return value in self.texts
        return (type(value).__name__, value) in self.scalars


def _collect(value: Any, scalars: set[tuple[str, Any]], texts: list[str]) -> None:
    if isinstance(value, dict):
        for item in value.values():
            _collect(item, scalars, texts)
    elif isinstance(value, list):
        for item in value:
            _collect(item, scalars, texts)
    elif isinstance(value, str):
        texts.append(value)
        if value[:1] in ("{", "["):  # arguments or content as JSON text: its values too
            with contextlib.suppress(ValueError):
                _collect(json.loads(value), scalars, texts)
    elif value is not None:
        scalars.add((type(value).__name__, value))


def media_texts(uri: str | None, media_type: str | None) -> tuple[str, ...]:
    """What a media part carries: its media type, its URI and the text a `data:text/...`
    URL holds."""
    found = [media_type] if media_type else []
    if uri is None:
        return tuple(found)
    found.append(uri)
    parsed = parse_data_url(uri)
    if parsed is not None and parsed[0].startswith("text/"):
        with contextlib.suppress(ValueError):  # binascii.Error, UnicodeDecodeError
            found.append(base64.b64decode(parsed[1], validate=True).decode("utf-8"))
    return tuple(found)


def _left(value: dict[str, Any], held: _Held, pointer: str) -> Iterator[str]:
    for key, item in value.items():
        if item is None or item == {} or item == [] or item == "":
            continue
        if key in SHAPE_KEYS and not isinstance(item, dict | list):
            continue
        at = f"{pointer}/{_escape(key)}"
        if isinstance(item, dict):
            if all(k in SHAPE_KEYS for k in item):  # a marker: {"type": "ephemeral"}
                yield at
            else:
                yield from _left(item, held, at)
        elif isinstance(item, list):
            if not all(held.holds(leaf) for leaf in _leaves(item)):
                yield at
        elif not held.holds(item):
            yield at


def _leaves(value: Any) -> Iterator[Any]:
    """The scalars in `value`, but for the strings of `SHAPE_KEYS`."""
    if isinstance(value, dict):
        for key, item in value.items():
            if not (key in SHAPE_KEYS and not isinstance(item, dict | list)):
                yield from _leaves(item)
    elif isinstance(value, list):
        for item in value:
            yield from _leaves(item)
    elif value is not None:
        yield value


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")
