"""The request envelope around a transcript's messages, carried from one format to another.

A request body (or dataset record) holds more than messages: system text outside them
(Anthropic's `system`, Gemini's `systemInstruction`, the Responses API's `instructions`, a
LLaMA-Factory record's `system`), the model, sampling settings and tool definitions.
`read_request` reads these into a neutral `Request`; `write_request` writes it in the
target's shape. Whatever one side holds that the other has no place for is named in
`Request.lost`, with its JSON Pointer in the source, so that it is reported, not dropped
in silence.
"""

from __future__ import annotations

from dataclasses import field
from typing import Any

from histnorm._record import record
from histnorm.convert.tools import (
    CHOICE_KEYS,
    Choice,
    Tool,
    read_choice,
    read_tools,
    write_choice,
    write_tools,
)
from histnorm.errors import join_pointer
from histnorm.formats import get_codec
from histnorm.model import Message, TextPart, Transcript

MESSAGE_KEYS = {
    "openai-chat": "messages",
    "chat-template": "messages",
    "anthropic": "messages",
    "openai-responses": "input",
    "gemini": "contents",
    "sharegpt": "conversations",
}
"""The key of the message list in each format that has a request envelope."""
ALWAYS_ENVELOPED = frozenset({"semantic-kernel"})
"""Formats whose loader reads the message list only inside its object (Semantic Kernel's
`ChatHistory.restore_chat_history` takes `{"messages": [...]}`, not a bare list)."""

SETTINGS: dict[str, dict[str, tuple[str, ...]]] = {
    "openai-chat": {
        "model": ("model",),
        "max_tokens": ("max_completion_tokens", "max_tokens"),
        "temperature": ("temperature",),
        "top_p": ("top_p",),
        "stop": ("stop",),
        "stream": ("stream",),
    },
    "anthropic": {
        "model": ("model",),
        "max_tokens": ("max_tokens",),
        "temperature": ("temperature",),
        "top_p": ("top_p",),
        "stop": ("stop_sequences",),
        "stream": ("stream",),
    },
    "openai-responses": {
        "model": ("model",),
        "max_tokens": ("max_output_tokens",),
        "temperature": ("temperature",),
        "top_p": ("top_p",),
        "stream": ("stream",),
    },
    "gemini": {
        "max_tokens": ("maxOutputTokens", "max_output_tokens"),
        "temperature": ("temperature",),
        "top_p": ("topP", "top_p"),
        "stop": ("stopSequences", "stop_sequences"),
    },
    "chat-template": {},
    "sharegpt": {},
}
"""Where each neutral setting sits, per format (the first key is the one written); Gemini's
sit in `generationConfig`."""

LABELS = {
    "model": "the model",
    "max_tokens": "max tokens",
    "temperature": "the temperature",
    "top_p": "top_p",
    "stop": "stop sequences",
    "stream": "stream",
}
SYSTEM_KEYS = {
    "anthropic": ("system",),
    "gemini": ("systemInstruction", "system_instruction"),
    "openai-responses": ("instructions",),
    "sharegpt": ("system",),
}
GEMINI_CONFIG = ("generationConfig", "generation_config")


@record
class Request:
    """The envelope of a transcript, in neutral terms."""

    system: list[str] = field(default_factory=list)
    settings: dict[str, tuple[str, Any]] = field(default_factory=dict)
    """Neutral name: (pointer in the source, value)."""
    tools: list[Tool] = field(default_factory=list)
    tools_at: str = "/tools"
    choice: tuple[str, Choice] | None = None
    """(pointer in the source, the tool choice)."""
    lost: list[tuple[str, str]] = field(default_factory=list)
    """(what, pointer in the source) for each part of the envelope not carried."""


def _system_texts(format: str, value: Any) -> list[str] | None:
    """The texts of a system field, or None when it holds anything but text."""
    if isinstance(value, str):
        return [value]
    if format == "gemini" and isinstance(value, dict):
        value = value.get("parts")
    if not isinstance(value, list):
        return None
    texts = []
    for block in value:
        if not isinstance(block, dict) or not isinstance(block.get("text"), str):
            return None
        if set(block) - {"type", "text"}:
            return None
        texts.append(block["text"])
    return texts


def read_request(transcript: Transcript) -> Request:
    """The envelope of `transcript` (empty when it was read from a bare message list)."""
    request = Request()
    native = transcript.native
    format = transcript.format or ""
    if not isinstance(native, dict):
        return request
    message_key = MESSAGE_KEYS.get(format, getattr(get_codec(format), "envelope_key", ""))
    settings = SETTINGS.get(format, {})
    for key, value in native.items():
        at = join_pointer("", key)
        if key == message_key:
            continue
        if key in SYSTEM_KEYS.get(format, ()):
            texts = _system_texts(format, value)
            if texts is None:
                request.lost.append((f"the system field {key!r} (it holds more than text)", at))
            else:
                request.system.extend(texts)
        elif key == "tools" and format in MESSAGE_KEYS:
            request.tools, other = read_tools(format, value)
            request.tools_at = at
            request.lost.extend(
                (what, at if index is None else join_pointer(at, index)) for what, index in other
            )
        elif key in CHOICE_KEYS.get(format, ()):
            choice = read_choice(format, value)
            if choice is None:
                request.lost.append((f"the tool choice {key!r}", at))
            else:
                request.choice = (at, choice)
        elif format == "gemini" and key in GEMINI_CONFIG and isinstance(value, dict):
            _read_settings(request, settings, value, at)
        elif format != "gemini" and _setting(settings, key) is not None:
            request.settings.setdefault(str(_setting(settings, key)), (at, value))
        else:
            request.lost.append((f"the key {key!r}", at))
    return request


def _setting(settings: dict[str, tuple[str, ...]], key: str) -> str | None:
    return next((name for name, keys in settings.items() if key in keys), None)


def _read_settings(
    request: Request, settings: dict[str, tuple[str, ...]], config: dict[str, Any], base: str
) -> None:
    for key, value in config.items():
        name = _setting(settings, key)
        at = join_pointer(base, key)
        if name is None:
            request.lost.append((f"the setting {key!r}", at))
        else:
            request.settings.setdefault(name, (at, value))


def system_message(texts: list[str]) -> Message:
    """The system message holding the system text of a source envelope."""
    return Message(role="system", parts=tuple(TextPart(text=t) for t in texts))


def _lift(messages: list[Message], target: str) -> list[str]:
    """Take the leading system messages the target keeps outside its messages; their texts."""
    if target not in SYSTEM_KEYS or target == "openai-responses":
        return []
    texts: list[str] = []
    while messages and messages[0].role_is("system", "developer"):
        parts = messages[0].parts
        if not parts or not all(isinstance(p, TextPart) for p in parts):
            break
        if target == "sharegpt" and texts:
            break  # a LLaMA-Factory record has one system string
        texts.extend(p.text for p in parts if isinstance(p, TextPart))
        messages.pop(0)
    return texts


def write_request(
    request: Request, target: str, messages: list[Message], enveloped: bool
) -> tuple[dict[str, Any] | None, list[tuple[str, str]]]:
    """The target's envelope for `request` (None: a bare message list), taking the leading
    system messages it keeps outside the message list out of `messages`; and what has no
    place in it, as (what, pointer in the source)."""
    lost = list(request.lost)
    if target not in MESSAGE_KEYS:
        lost.extend((_what(name), at) for name, (at, _) in request.settings.items())
        lost.extend((f"the tool {t.name!r}", request.tools_at) for t in request.tools)
        if request.choice is not None:
            lost.append(("the tool choice", request.choice[0]))
        return ({} if target in ALWAYS_ENVELOPED else None), lost
    settings = SETTINGS[target]
    carried: dict[str, Any] = {}
    for name, (at, value) in request.settings.items():
        if name not in settings:
            lost.append((_what(name), at))
            continue
        if name == "stop" and isinstance(value, str) and target != "openai-chat":
            value = [value]
        carried[settings[name][0]] = value
    config = carried if target == "gemini" else {}
    first = [settings[n][0] for n in ("model", "max_tokens") if n in settings]
    if target == "gemini":
        first = []  # all in generationConfig
    envelope: dict[str, Any] = {k: carried.pop(k) for k in first if k in carried}
    texts = _lift(messages, target)
    if texts:
        envelope.update(_system_field(target, texts))
    envelope[MESSAGE_KEYS[target]] = []
    if request.tools:
        envelope["tools"] = write_tools(target, request.tools)
    if request.choice is not None:
        if target in CHOICE_KEYS:
            envelope[CHOICE_KEYS[target][0]] = write_choice(target, request.choice[1])
        else:
            lost.append(("the tool choice", request.choice[0]))
    if config:
        envelope["generationConfig"] = config
    else:
        envelope.update(carried)
    if len(envelope) == 1 and not enveloped and target != "sharegpt":
        return None, lost
    return envelope, lost


def _system_field(target: str, texts: list[str]) -> dict[str, Any]:
    if target == "gemini":
        return {"systemInstruction": {"parts": [{"text": t} for t in texts]}}
    if target == "anthropic" and len(texts) > 1:
        return {"system": [{"type": "text", "text": t} for t in texts]}
    return {"system": texts[0] if len(texts) == 1 else "\n\n".join(texts)}


def _what(name: str) -> str:
    return LABELS.get(name, name)
