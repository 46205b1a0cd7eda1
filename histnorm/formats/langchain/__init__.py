"""LangChain message lists: `messages_to_dict` items and `dumpd` constructor items.

A document is a bare list or `{"messages": [...]}`, and each item keeps its own form:
`{"type": "ai", "data": {...}}` (`messages_to_dict`) or `{"lc": 1, "type": "constructor",
"id": [..., "AIMessage"], "kwargs": {...}}` (`dumpd`). Roles: human → user, ai → assistant,
system, tool, function (legacy; its result has no id and pairs by name), chat → its `role`,
remove; chunk types read like their message types, and an unknown type is its own role.
`name` is the author (the tool name on tool and function messages), `id` the message id,
`response_metadata` the metadata. An empty string `content` is LangChain's "no content" and
gives no part.

Slots: `content` (string content), `content[]` (an item of list content), `tool_calls`,
`invalid_tool_calls` (a call too: langchain-openai sends it back as a tool call, so an
unanswered one is an orphan), `additional_kwargs.tool_calls` / `additional_kwargs.function_call`
(raw OpenAI-form calls of older langchain-openai), `additional_kwargs.refusal`,
`usage_metadata`, `tool` / `function` (the result a tool or function message holds; its
native value is the whole message) and `remove` (a RemoveMessage, kept as an unknown part
so that it never reads as an empty message). In content, text, thinking / reasoning, media,
refusal, Anthropic `tool_result` and v1 `server_tool_call` / `server_tool_result` blocks are
read; anything else (Anthropic's own server-tool blocks included) is an unknown part.

Provider-native copies of a call are not parts, so each call appears once: content
`tool_use` / `tool_call` / `function_call` blocks and `additional_kwargs.tool_calls` entries
whose id is already a call, and `tool_call_chunks` entries. They stay in the native message
and are written back while a call they can copy is left in the message; dropping a call
drops its copies (and an emptied `additional_kwargs.tool_calls`, which OpenAI rejects).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from histnorm.errors import HistnormError, join_pointer
from histnorm.formats.base import Codec, join_envelope, messages_sniff, split_envelope
from histnorm.formats.langchain.read import decode_message, read_message
from histnorm.formats.langchain.write import encode_message
from histnorm.lazy import model
from histnorm.model_terms import JsonValue

if TYPE_CHECKING:
    from histnorm.model import Transcript

__all__ = ["LangChainCodec", "decode_message", "encode_message"]


class LangChainCodec(Codec):
    """LangChain message lists, as `messages_to_dict` or `dumpd` writes them."""

    name = "langchain"
    one_result_per_message = True
    summary = "LangChain messages_to_dict / dumpd message lists"
    known_roles = frozenset({"user", "assistant", "system", "tool", "function", "remove"})
    verbatim_types = frozenset({"remove"})

    def sniff(self, data: JsonValue) -> float:
        """Likely when every message is a `{type, data}` or a `dumpd` constructor item."""
        messages = messages_sniff(data, "messages")
        if not messages:
            return 0.0
        for msg in messages[:50]:
            if not isinstance(msg, dict):
                return 0.0
            path = msg.get("id")
            if "lc" in msg:
                if msg.get("type") != "constructor" or not isinstance(path, list):
                    return 0.0
                if "messages" not in path or not isinstance(msg.get("kwargs"), dict):
                    return 0.0
            elif not (
                isinstance(msg.get("type"), str)
                and isinstance(msg.get("data"), dict)
                and "content" in msg["data"]
            ):
                return 0.0
        return 0.95

    def decode(self, data: JsonValue) -> Transcript:
        """Decode a bare message list or an object holding `messages`."""
        messages, base = split_envelope(data, "messages", "LangChain messages")
        decoded = tuple(decode_message(m, join_pointer(base, i)) for i, m in enumerate(messages))
        return model.Transcript(
            messages=decoded, format=self.name, native=data if isinstance(data, dict) else None
        )

    def encode(self, transcript: Transcript) -> JsonValue:
        """Encode; new messages take the form of the first message read (default `to_dict`)."""
        first = next((m.native for m in transcript.messages if isinstance(m.native, dict)), {})
        dumpd = "lc" in first
        out: list[Any] = []
        for message in transcript.messages:
            out.extend(encode_message(message, dumpd))
        return join_envelope(transcript, "messages", out)

    def message_pointer(self, transcript: Transcript, message_index: int) -> str:
        """`/N`, or `/messages/N` inside an envelope."""
        base = "/messages" if isinstance(transcript.native, dict) else ""
        return join_pointer(base, message_index)

    def part_pointer(self, transcript: Transcript, message_index: int, part_index: int) -> str:
        """The content item, call entry or field a part was read from (a tool or function
        result points at its whole message)."""
        message = transcript.messages[message_index]
        at = self.message_pointer(transcript, message_index)
        slot = message.parts[part_index].slot
        if message.native is None:
            return at
        try:
            fresh, pointers = read_message(message.native, at)
        except HistnormError:
            return at
        rank = sum(1 for p in message.parts[:part_index] if p.slot == slot)
        same = [ptr for p, ptr in zip(fresh.parts, pointers, strict=True) if p.slot == slot]
        return same[rank] if rank < len(same) else at
