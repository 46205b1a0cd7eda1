"""OpenAI Chat Completions messages: a bare list, `{"messages": [...]}` or a request body.

Fine-tuning lines (`weight`, top-level `tools`) and request bodies keep every other key.
Slots: `content` (string content), `content[]` (an item of array content), `refusal`,
`tool_calls`, `function_call` (legacy), `audio`, `tool` (a `tool` message), `function` (a legacy
`function` message, paired with the preceding `function_call` by position).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from histnorm.analysis.outline import Outline
from histnorm.errors import join_pointer
from histnorm.formats.base import (
    CONVERSE_BODY_KEYS,
    MessageListCodec,
    all_objects,
    anthropic_envelope,
    first_index,
    has_role,
    join_envelope,
    messages_sniff,
)
from histnorm.formats.openai_chat.outline import read
from histnorm.formats.openai_chat.read import (
    CONTENT_KEYS,
    HANDOFF_PREFIX,
    MESSAGE_KEYS,
    _foreign_part,
    decode_content_item,
    decode_function_call,
    decode_message,
    decode_tool_call,
    unread,
)
from histnorm.formats.openai_chat.write import encode_message
from histnorm.model_terms import UNREAD, JsonValue

if TYPE_CHECKING:
    from histnorm.model import Transcript

_ROLES = frozenset({"system", "developer", "user", "assistant", "tool", "function"})
_OTHER_KEYS = frozenset({"contents", "parts", "type"})
"""Message keys of other formats (MEAI, Gemini, Responses and LangChain items)."""
_CALL_KEYS = frozenset({"tool_calls", "tool_call_id", "function_call"})


def _object_arguments(calls: Any) -> bool:
    """Whether a tool call carries object `arguments` (chat-template's; OpenAI's are strings)."""
    for call in calls if isinstance(calls, list) else ():
        body = call.get("function") if isinstance(call, dict) else None
        if isinstance(body, dict) and isinstance(body.get("arguments"), dict):
            return True
    return False


def _foreign_content(msg: dict[str, Any], content: Any) -> bool:
    """Whether a message's content rules this format out: content under keys this format
    has not (another format's), or a content item that is untyped (Bedrock Converse
    blocks) or of another format's type. (A non-empty string content never does.)"""
    if (not content or not isinstance(content, str | list)) and unread(msg):
        return True
    return isinstance(content, list) and any(
        not isinstance(c, dict) or not isinstance(c.get("type"), str) or _foreign_part(c["type"])
        for c in content
    )


__all__ = [
    "HANDOFF_PREFIX",
    "OpenAIChatCodec",
    "decode_content_item",
    "decode_function_call",
    "decode_message",
    "decode_tool_call",
    "encode_message",
]


class OpenAIChatCodec(MessageListCodec):
    """OpenAI Chat Completions messages, fine-tuning lines and request bodies."""

    name = "openai-chat"
    one_result_per_message = True
    summary = "OpenAI Chat Completions messages, fine-tuning JSONL lines and request bodies"
    known_roles = frozenset({"system", "developer", "user", "assistant", "tool", "function"})
    read_call_keys = frozenset({"tool_calls", "tool_call_id", "function_call"})
    content_keys = CONTENT_KEYS
    message_keys = MESSAGE_KEYS

    message_decoder = staticmethod(decode_message)

    def sniff(self, data: JsonValue) -> float:
        """Likely when messages have Chat roles and Chat-style `content`, `tool_calls` or ids;
        0 on another format's marks (Anthropic blocks or body keys, object arguments or a
        tool message without `tool_call_id`, which are chat-template's)."""
        messages = messages_sniff(data, "messages")
        if not messages or not all_objects(messages):
            return 0.0
        if anthropic_envelope(data):
            return 0.0  # a top-level system prompt is Anthropic's request shape
        if isinstance(data, dict) and not CONVERSE_BODY_KEYS.isdisjoint(data):
            return 0.0  # a Bedrock Converse request body
        window = messages[:50]
        keys = set().union(*window)
        if not _OTHER_KEYS.isdisjoint(keys):
            return 0.0
        for msg in window:
            if "role" not in msg:
                return 0.0
            content = msg.get("content")
            if (type(content) is not str or not content) and _foreign_content(msg, content):
                return 0.0
            if msg["role"] == "tool" and "tool_call_id" not in msg:
                return 0.0
            if "tool_calls" in msg and _object_arguments(msg["tool_calls"]):
                return 0.0
        score = 0.9 if not _CALL_KEYS.isdisjoint(keys) else 0.5
        return score if has_role(messages, _ROLES) else 0.0

    def read_outline(self, data: JsonValue) -> Outline | None:
        """The outline read without building models, or None (`Codec.read_outline`)."""
        return read(data, False)[0]

    def read_detected(self, data: JsonValue) -> tuple[Outline | None, bool]:
        """`read_outline(data)`, and whether that walk proved the format
        (`histnorm.formats.openai_chat.outline.read`)."""
        return read(data)

    def encode(self, transcript: Transcript) -> JsonValue:
        """Encode to the native shape the transcript was read from."""
        out: list[dict[str, Any]] = []
        for message in transcript.messages:
            unread = message.__dict__.get(UNREAD)
            if unread is not None and unread[0] is decode_message:
                out.append(message.native)  # as read, and never read since
            else:
                out.extend(encode_message(message))
        return join_envelope(transcript, "messages", out)

    def part_pointer(self, transcript: Transcript, message_index: int, part_index: int) -> str:
        """Point at the content item, tool call, refusal or function call holding the part."""
        message = transcript.messages[message_index]
        at = self.message_pointer(transcript, message_index)
        part = message.parts[part_index]
        if part.slot in ("content[]", "tool_calls"):
            key = "content" if part.slot == "content[]" else "tool_calls"
            return join_pointer(at, key, first_index(message, part_index, part.slot))
        if part.slot in ("content", "refusal", "function_call", "audio"):
            return join_pointer(at, part.slot)
        return at
