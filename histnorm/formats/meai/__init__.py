"""Microsoft.Extensions.AI `ChatMessage` JSON, as Microsoft Agent Framework stores it.

Contents carry a `$type` discriminator. Property names are read case-insensitively
(camelCase from the MEAI defaults, PascalCase from stores that use plain serializer
options) and written back in the casing of the object they came from. Both approval
generations are read: `toolApprovalRequest` (`requestId`, `toolCall`) and the older
`functionApprovalRequest` (`id`, `functionCall`). Every part sits in slot `contents`.
A server-side (hosted) tool call or result not read as one of MEAI's own kinds cannot be
written (MEAI's kinds need their own properties, not another format's): encoding raises.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from histnorm.analysis.outline import Outline
from histnorm.errors import join_pointer
from histnorm.formats.base import (
    MessageListCodec,
    folded_keys,
    join_envelope,
    messages_sniff,
)
from histnorm.formats.meai.keys import TYPE_KEY, _is_pascal, find_key, get_key
from histnorm.formats.meai.outline import read_outline
from histnorm.formats.meai.read import decode_content, decode_message
from histnorm.formats.meai.write import encode_content, encode_message
from histnorm.model_terms import JsonValue

if TYPE_CHECKING:
    from histnorm.model import Transcript

__all__ = [
    "TYPE_KEY",
    "MeaiCodec",
    "decode_content",
    "decode_message",
    "encode_content",
    "encode_message",
    "find_key",
    "get_key",
]


class MeaiCodec(MessageListCodec):
    """Microsoft.Extensions.AI ChatMessage lists (camelCase or PascalCase)."""

    name = "meai"
    summary = "Microsoft.Extensions.AI ChatMessage JSON as stored by Agent Framework"
    message_noun = "ChatMessage objects"
    known_roles = frozenset({"system", "user", "assistant", "tool"})
    read_call_keys = frozenset[str]()

    message_decoder = staticmethod(decode_message)

    def sniff(self, data: JsonValue) -> float:
        """Likely when messages hold `contents` arrays of `$type` objects."""
        messages = messages_sniff(data, "messages")
        if not messages or not all(isinstance(m, dict) for m in messages):
            return 0.0
        window = messages[:50]
        if "contents" not in folded_keys(window):
            return 0.0  # every MEAI mark is a `contents` key (in any casing)
        score = 0.0
        for msg in window:
            if find_key(msg, "role") is None or msg.get("type") in ("message", "chat_message"):
                return 0.0  # Agent Framework's Python form tags messages with "type"
            contents = get_key(msg, "contents")
            if isinstance(contents, list) and any(
                isinstance(c, dict) and TYPE_KEY in c for c in contents
            ):
                score = 0.95
            elif find_key(msg, "contents") is not None:
                score = max(score, 0.6)
        return score

    def read_outline(self, data: JsonValue) -> Outline | None:
        """The outline read without building models, or None (`Codec.read_outline`)."""
        return read_outline(data)

    def encode(self, transcript: Transcript) -> JsonValue:
        """Encode in the casing each message was read in (new messages follow the transcript)."""
        pascal = any(_is_pascal(m.native) for m in transcript.messages)
        messages = [encode_message(m, pascal) for m in transcript.messages]
        return join_envelope(transcript, "messages", messages)

    def part_pointer(self, transcript: Transcript, message_index: int, part_index: int) -> str:
        """`.../contents/K` (or `Contents`, as the message spells it)."""
        message = transcript.messages[message_index]
        key = "contents"
        if isinstance(message.native, dict):
            key = find_key(message.native, "contents") or key
        return join_pointer(self.message_pointer(transcript, message_index), key, part_index)
