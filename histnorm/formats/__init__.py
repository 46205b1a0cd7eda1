"""The codecs histnorm reads and writes, and format detection."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from histnorm.errors import HistnormError, join_pointer
from histnorm.formats.agent_framework import AgentFrameworkCodec
from histnorm.formats.anthropic import AnthropicCodec
from histnorm.formats.base import Codec, messages_sniff, type_name
from histnorm.formats.chat_template import ChatTemplateCodec
from histnorm.formats.claude_code import ClaudeCodeCodec
from histnorm.formats.gemini import GeminiCodec
from histnorm.formats.langchain import LangChainCodec
from histnorm.formats.meai import MeaiCodec
from histnorm.formats.openai_chat import OpenAIChatCodec
from histnorm.formats.openai_responses import OpenAIResponsesCodec
from histnorm.formats.sharegpt import ShareGPTCodec
from histnorm.model import JsonValue

CODECS: Mapping[str, Codec] = MappingProxyType(
    {
        codec.name: codec
        for codec in (
            OpenAIChatCodec(),
            MeaiCodec(),
            AnthropicCodec(),
            OpenAIResponsesCodec(),
            GeminiCodec(),
            ShareGPTCodec(),
            ChatTemplateCodec(),
            LangChainCodec(),
            AgentFrameworkCodec(),
            ClaudeCodeCodec(),
        )
    }
)
"""Every codec by format name, in detection-tie order."""


def get_codec(name: str) -> Codec:
    """The codec named `name`; raise `HistnormError` listing the known names otherwise."""
    try:
        return CODECS[name]
    except KeyError:
        known = ", ".join(CODECS)
        raise HistnormError(f"unknown format {name!r}; known formats: {known}") from None


def detect_format(data: JsonValue) -> str:
    """Pick the format of a parsed native document from its content."""
    best, best_score = None, 0.0
    for name, codec in CODECS.items():
        score = codec.sniff(data)
        if score > best_score:
            best, best_score = name, score
    if best is None:
        _explain(data)
        raise HistnormError(
            "could not tell the transcript format; expected a list of messages or an object "
            'with "messages" in one of: ' + ", ".join(CODECS),
            pointer="",
        )
    return best


def _explain(data: JsonValue) -> None:
    """Raise a located error for the first message that keeps every codec from reading `data`."""
    if isinstance(data, dict) and isinstance(data.get("conversations"), list):
        _explain_turns(data["conversations"], "/conversations", ("from", "value"))
        return
    messages = messages_sniff(data, "messages")
    if not messages:
        return
    base = "/messages" if isinstance(data, dict) else ""
    role_based = not any(  # LangChain dumps carry "type" and "data" / "kwargs" instead
        isinstance(m, dict) and "type" in m and ({"data", "kwargs", "lc"} & m.keys())
        for m in messages
    )
    for index, message in enumerate(messages):
        at = join_pointer(base, index)
        if not isinstance(message, dict):
            raise HistnormError(
                f"expected a message (an object), got {type_name(message)}", pointer=at
            )
        if role_based and not any(key.casefold() == "role" for key in message):
            raise HistnormError("the message role is missing", pointer=join_pointer(at, "role"))


def _explain_turns(turns: list[JsonValue], base: str, keys: tuple[str, ...]) -> None:
    for index, turn in enumerate(turns):
        at = join_pointer(base, index)
        if not isinstance(turn, dict):
            raise HistnormError(f"expected a turn (an object), got {type_name(turn)}", pointer=at)
        for key in keys:
            if key not in turn:
                raise HistnormError(f'the turn has no "{key}"', pointer=join_pointer(at, key))


__all__ = ["CODECS", "Codec", "detect_format", "get_codec"]
