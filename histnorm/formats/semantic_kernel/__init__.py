"""Semantic Kernel chat histories: what `ChatHistory.serialize()` writes (semantic-kernel
1.x, `model_dump_json(exclude_none=True, indent=2)`), `{"messages": [...]}`, or a bare
list of `ChatMessageContent` dumps.

A message is `{"metadata": {...}, "content_type": "message", "role": ..., "items": [...]}`
with, when set, `ai_model_id`, `name` (the author: an agent's name), `encoding`,
`finish_reason` and `status`, all kept verbatim. Roles are system, developer, user,
assistant and tool. `metadata` is the metadata of messages and items; items are read by
`histnorm.formats.semantic_kernel.items` and sit in slot `items`. A call's `id` is what
its result cites (Semantic Kernel copies it, and the Responses `call_id` beside it).
A new result without a name takes its call's name (`function_name` is required).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from histnorm.errors import HistnormError, join_pointer
from histnorm.formats.base import (
    MISSING,
    MessageListCodec,
    expect_object,
    join_envelope,
    marked_sniff,
    messages_sniff,
    name_new_results,
    optional_str,
    rebuild,
    required_str,
    reuse_native,
    type_name,
)
from histnorm.formats.semantic_kernel.items import decode_item, encode_item, metadata_of
from histnorm.lazy import model
from histnorm.model_terms import JsonValue

if TYPE_CHECKING:
    from histnorm.model import Message, Transcript

ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})
"""Semantic Kernel's `AuthorRole` values."""
MESSAGE_KEYS = frozenset(
    (
        "role",
        "content_type",
        "name",
        "metadata",
        "ai_model_id",
        "encoding",
        "finish_reason",
        "status",
    )
)
"""The message keys other than `items` that `ChatMessageContent` writes."""


def decode_message(obj: Any, pointer: str = "") -> Message:
    """Decode one `ChatMessageContent` dump."""
    msg = expect_object(obj, pointer, "a Semantic Kernel message")
    role = required_str(msg.get("role"), join_pointer(pointer, "role"), "the message role")
    items = msg.get("items")
    at = join_pointer(pointer, "items")
    if items is not None and not isinstance(items, list):
        raise HistnormError(f"expected items to be an array, got {type_name(items)}", pointer=at)
    parts = tuple(decode_item(item, join_pointer(at, i)) for i, item in enumerate(items or ()))
    name = optional_str(msg.get("name"), join_pointer(pointer, "name"), "the author name")
    return model.Message(
        role=role,
        author_name=name,
        parts=parts,
        metadata=metadata_of(msg, pointer),
        native=obj,
    )


def encode_message(message: Message) -> Any:
    """Encode one message; an unchanged message gives back its very native object."""
    if reuse_native(message, decode_message):
        return message.native
    base: dict[str, Any] = message.native if isinstance(message.native, dict) else {}
    items = [encode_item(part) for part in message.parts]
    if not base:
        out: dict[str, Any] = {"metadata": dict(message.metadata), "content_type": "message"}
        out["role"] = message.role
        if message.author_name is not None:
            out["name"] = message.author_name
        return out | {"items": items}
    updates: dict[str, Any] = {"role": message.role, "items": items}
    if message.author_name is not None:
        updates["name"] = message.author_name
    elif base.get("name") is not None:
        updates["name"] = MISSING  # the author was removed; a `"name": null` stays
    if message.metadata or base.get("metadata"):
        updates["metadata"] = dict(message.metadata)
    return rebuild(base, updates)


def _sniff_message(msg: Any) -> bool | None:
    """Whether a message shows Semantic Kernel's own marks (an item with a `content_type`,
    or `"content_type": "message"`); None when it cannot be a Semantic Kernel message."""
    if not isinstance(msg, dict) or not isinstance(msg.get("role"), str):
        return None
    items = msg.get("items")
    if not isinstance(items, list) or "content" in msg or "tool_calls" in msg:
        return None
    if not all(isinstance(i, dict) and isinstance(i.get("content_type"), str) for i in items):
        return None
    return bool(items) or msg.get("content_type") == "message"


class SemanticKernelCodec(MessageListCodec):
    """Semantic Kernel `ChatHistory.serialize()` JSON (messages with typed `items`)."""

    name = "semantic-kernel"
    summary = "Semantic Kernel ChatHistory.serialize() JSON (messages with content_type items)"
    message_noun = "Semantic Kernel messages"
    known_roles = ROLES
    read_call_keys = frozenset[str]()
    content_keys = ("items",)
    message_keys = MESSAGE_KEYS

    message_decoder = staticmethod(decode_message)

    def sniff(self, data: JsonValue) -> float:
        """Sure when every message has a role and `items` whose entries all carry a
        `content_type` (and no `content` or `tool_calls`), and some message shows one or
        says `"content_type": "message"`; no other format writes these keys."""
        messages = messages_sniff(data, "messages")
        return marked_sniff(messages, _sniff_message)

    def encode(self, transcript: Transcript) -> JsonValue:
        """Encode; other keys of messages, items and the envelope are kept."""
        out = [encode_message(m) for m in name_new_results(transcript.messages)]
        return join_envelope(transcript, "messages", out)

    def part_pointer(self, transcript: Transcript, message_index: int, part_index: int) -> str:
        """`.../items/K`: every item is one part."""
        at = self.message_pointer(transcript, message_index)
        return join_pointer(at, "items", part_index)
