"""Anthropic Messages API: a bare list of messages or a request body holding `messages`.

A message is `{role, content}` with `content` a string or an array of content blocks; a
request body keeps every other key, and its top-level `system` (string or text blocks)
stays verbatim in the envelope rather than becoming a message. Blocks map to parts:

- `text` → text; `thinking` → reasoning (`opaque` = `signature`), `redacted_thinking` →
  reasoning without text (`opaque` = `data`);
- `tool_use` → tool call (`arguments` = the `input` object; names starting `handoff_to_`
  are handoffs), `tool_result` → tool result (it lives in the user message);
- `server_tool_use` and every `*_tool_result` block (`web_search_tool_result`, ...) →
  hosted call and result, with `tool_type` `server_tool_use` / `server_tool_use_result`
  so they share one pairing group; a hosted result's `name` is its block type without
  `_tool_result`;
- `mcp_tool_use` / `mcp_tool_result` → MCP call and result;
- `image`, `document`, `search_result` → media; anything else (`container_upload`,
  `mid_conv_system`, `compaction`, `tool_addition`, `tool_removal`, new types) → unknown.

Slots: `content` for the one text part of a string `content`, `content[]` for a block of
an array `content`. Anthropic has no tool role: a new `tool` message is written as a user
message whose content starts with its `tool_result` blocks. A new server-tool result
takes its block type from its `name`, or else from the name of its `server_tool_use`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from histnorm.analysis.outline import Outline
from histnorm.errors import HistnormError, join_pointer
from histnorm.formats.anthropic.blocks import (
    BLOCK_SLOT,
    decode_block,
    encode_block,
    hosted_result_type,
    name_hosted_results,
)
from histnorm.formats.anthropic.outline import read_outline
from histnorm.formats.base import (
    CONVERSE_BODY_KEYS,
    MISSING,
    MessageListCodec,
    anthropic_body,
    anthropic_envelope,
    expect_object,
    first_index,
    join_envelope,
    messages_sniff,
    optional_key,
    rebuild,
    required_key,
    reuse_native,
    type_name,
)
from histnorm.lazy import model
from histnorm.model_terms import JsonValue

if TYPE_CHECKING:
    from histnorm.model import Message, Part, Transcript

STRING_SLOT = "content"
"""The slot of the text part read from a string `content`."""

_ROLES = {"user", "assistant", "system"}
_MARKER_TYPES = {
    "tool_use",
    "tool_result",
    "thinking",
    "redacted_thinking",
    "server_tool_use",
    "mcp_tool_use",
    "mcp_tool_result",
    "document",
    "search_result",
    "container_upload",
    "mid_conv_system",
    "compaction",
    "tool_addition",
    "tool_removal",
}
_FOREIGN_TYPES = {
    "image_url",
    "input_audio",
    "file",
    "refusal",
    "input_text",
    "output_text",
    "input_image",
    "input_file",
}
_FOREIGN_KEYS = {
    "tool_calls",
    "tool_call_id",
    "function_call",
    "refusal",
    "name",
    "weight",
    "audio",
    "contents",
    "parts",
}


def decode_message(obj: Any, pointer: str = "") -> Message:
    """Decode one message."""
    msg = expect_object(obj, pointer, "a message")
    role = required_key(msg, "role", pointer, "the message role")
    message_id = optional_key(msg, "id", pointer, "the message id")
    content = msg.get("content")
    at = f"{pointer}/content"
    parts: tuple[Part, ...]
    if isinstance(content, str):
        parts = (model.TextPart(text=content, native=content, slot=STRING_SLOT),)
    elif isinstance(content, list):
        parts = tuple(decode_block(item, f"{at}/{i}") for i, item in enumerate(content))
    elif content is None:
        parts = ()
    else:
        raise HistnormError(
            f"expected content to be a string or an array of blocks, got {type_name(content)}",
            pointer=at,
        )
    return model.Message(role=role, id=message_id, parts=parts, native=obj)


def _block(part: Part) -> Any:
    if reuse_native(part, decode_block):
        return part.native
    return encode_block(part)


def _encode_content(message: Message, base: dict[str, Any]) -> Any:
    parts = message.parts
    if not parts:
        return []
    only = parts[0]
    if (
        len(parts) == 1
        and isinstance(only, model.TextPart)
        and (
            only.slot == STRING_SLOT
            or (only.native is None and not isinstance(base.get("content"), list))
        )
    ):
        return only.text
    return [_block(part) for part in parts]


def encode_message(message: Message) -> Any:
    """Encode one message; an unchanged message gives back its very native object."""
    if reuse_native(message, decode_message):
        return message.native
    base: dict[str, Any] = message.native if isinstance(message.native, dict) else {}
    role = message.role
    if message.role_is("tool") and base.get("role") != role:
        role = "user"
    updates: dict[str, Any] = {"role": role}
    if message.id is not None:
        updates["id"] = message.id
    elif "id" in base:
        updates["id"] = None if base["id"] is None else MISSING
    updates["content"] = _encode_content(message, base)
    return rebuild(base, updates)


def _sniff_message(msg: dict[str, Any]) -> tuple[bool, bool] | None:
    """(has an Anthropic marker, is a system message), or None when it cannot be ours."""
    role = msg.get("role")
    if not isinstance(role, str) or role.casefold() not in _ROLES:
        return None
    if _FOREIGN_KEYS & msg.keys() or msg.get("type", "message") != "message":
        return None
    if "type" in msg and role.casefold() != "assistant":
        return None  # only a stored response (the assistant's) carries `"type": "message"`
    content = msg.get("content")
    marked = False
    if isinstance(content, list):
        for block in content:
            kind = block.get("type") if isinstance(block, dict) else None
            if not isinstance(kind, str) or kind in _FOREIGN_TYPES:
                return None
            marked = marked or kind in _MARKER_TYPES or hosted_result_type(kind)
            marked = marked or (kind == "image" and "source" in block)
    elif not isinstance(content, str):
        return None
    return marked, role.casefold() == "system"


class AnthropicCodec(MessageListCodec):
    """Anthropic Messages API message lists and request bodies."""

    name = "anthropic"
    summary = "Anthropic Messages API messages and request bodies (top-level system kept)"
    known_roles = frozenset({"user", "assistant", "system"})
    read_call_keys = frozenset[str]()
    verbatim_types = frozenset(
        {"container_upload", "mid_conv_system", "compaction", "tool_addition", "tool_removal"}
    )

    message_decoder = staticmethod(decode_message)

    def sniff(self, data: JsonValue) -> float:
        """Sure on Anthropic blocks or a top-level `system`; weak on plain user/assistant text."""
        messages = messages_sniff(data, "messages")
        if isinstance(data, dict) and not CONVERSE_BODY_KEYS.isdisjoint(data):
            return 0.0  # a Bedrock Converse request body (its `system` is no Anthropic mark)
        envelope = anthropic_envelope(data) and messages is not None
        if not messages:
            return 0.9 if envelope else 0.0
        marked = system = False
        for msg in messages[:50]:
            found = _sniff_message(msg) if isinstance(msg, dict) else None
            if found is None:
                return 0.0
            marked, system = marked or found[0], system or found[1]
        if marked:
            return 0.95
        if envelope:
            return 0.9
        if system:
            return 0.0
        return 0.6 if anthropic_body(data) else 0.2  # above plain OpenAI Chat's 0.5

    def read_outline(self, data: JsonValue) -> Outline | None:
        """The outline read without building models, or None (`Codec.read_outline`)."""
        return read_outline(data)

    def encode(self, transcript: Transcript) -> JsonValue:
        """Encode to the shape the transcript was read from; other envelope keys are kept."""
        messages = [encode_message(m) for m in name_hosted_results(transcript.messages)]
        return join_envelope(transcript, "messages", messages)

    def part_pointer(self, transcript: Transcript, message_index: int, part_index: int) -> str:
        """`.../content` for string content, `.../content/K` for a block; new parts: the message."""
        message = transcript.messages[message_index]
        at = self.message_pointer(transcript, message_index)
        slot = message.parts[part_index].slot
        if slot == STRING_SLOT:
            return join_pointer(at, "content")
        if slot == BLOCK_SLOT:
            return join_pointer(at, "content", first_index(message, part_index, BLOCK_SLOT))
        return at
