"""Amazon Bedrock Converse messages: a bare list, or a request body holding `messages`.

This is the history Strands Agents keeps (`agent.messages`, and the `{"messages": [...]}`
of its agent state) and the body `bedrock-runtime` `Converse` / `ConverseStream` takes
(`modelId`, `system`, `inferenceConfig`, `toolConfig`, ... stay verbatim in the envelope;
the top-level `system` blocks are no message). A message is `{role, content}` with
`content` an array of content blocks, each an object with exactly one key naming it:

- `text` → text;
- `toolUse{toolUseId, name, input}` → tool call (`arguments` = `input`; names starting
  `handoff_to_` are handoffs; a `type` (`server_tool_use`) makes it a hosted call);
- `toolResult{toolUseId, content, status}` → tool result (`content` is the native block
  list, `status: "error"` marks an error; a typed result is a hosted one);
- `reasoningContent{reasoningText{text, signature}}` → reasoning (`opaque` = signature),
  `reasoningContent{redactedContent}` → reasoning without text (`opaque` = the data);
- `image`, `document`, `video`, `audio` → media (media type from `format`, URI from an
  `s3Location`);
- `cachePoint` → kept verbatim (a cache marker, no content); `guardContent`,
  `citationsContent`, `searchResult`, `toolAddition`, `toolRemoval`, blocks with several
  keys and blocks of new kinds → unknown content (HN013), written back as they were.

Every part lives in slot `content[]`. Converse has no tool role: a new `tool` message is
written as a user message of `toolResult` blocks; a new result's content is written as
`[{"text": ...}]` (or `[{"json": ...}]` for an object).

Strands' `FileSessionManager` keeps one message per file
(`messages/message_<n>.json`, `{"message": {...}, "message_id": n, ...}`): such a file
is one message, not a history, and is skipped as no transcript.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from histnorm.errors import join_pointer
from histnorm.formats.base import (
    CONVERSE_BODY_KEYS,
    MessageListCodec,
    expect_object,
    first_index,
    join_envelope,
    messages_sniff,
    rebuild,
    required_str,
    reuse_native,
)
from histnorm.formats.bedrock_converse.blocks import (
    BLOCK_KEYS,
    SLOT,
    VERBATIM,
    block_kind,
    content_error,
    decode_block,
    encode_block,
)
from histnorm.lazy import model
from histnorm.model_terms import JsonValue

if TYPE_CHECKING:
    from histnorm.model import Message, Part, Transcript

ROLES = frozenset({"user", "assistant", "system"})
"""The roles a Converse `Message` takes (botocore's `ConversationRole`)."""


def decode_message(obj: Any, pointer: str = "") -> Message:
    """Decode one message."""
    msg = expect_object(obj, pointer, "a message")
    role = required_str(msg.get("role"), join_pointer(pointer, "role"), "the message role")
    content = msg.get("content")
    at = join_pointer(pointer, "content")
    parts: tuple[Part, ...] = ()
    if isinstance(content, list):
        parts = tuple(decode_block(item, join_pointer(at, i)) for i, item in enumerate(content))
    elif content is not None:
        raise content_error(content, at)
    return model.Message(role=role, parts=parts, native=obj)


def _block(part: Part) -> Any:
    if reuse_native(part, decode_block):
        return part.native
    return encode_block(part)


def encode_message(message: Message) -> Any:
    """Encode one message; an unchanged message gives back its very native object."""
    if reuse_native(message, decode_message):
        return message.native
    base: dict[str, Any] = message.native if isinstance(message.native, dict) else {}
    role = message.role
    if message.role_is("tool") and base.get("role") != role:
        role = "user"
    content = [_block(part) for part in message.parts]
    return rebuild(base, {"role": role, "content": content})


def sniff_messages(messages: list[Any]) -> bool | None:
    """Whether `messages` carry a Converse mark (a content block keyed by a Converse block
    name, with no `type`), or None when they cannot be Converse messages at all."""
    marked = False
    for msg in messages[:50]:
        role = msg.get("role") if isinstance(msg, dict) else None
        if not isinstance(role, str) or role not in ROLES:
            return None
        content = msg.get("content")
        if content is None:
            continue
        if not isinstance(content, list):
            return None
        for block in content:
            if not isinstance(block, dict) or "type" in block:
                return None
            marked = marked or block_kind(block) in BLOCK_KEYS
    return marked


def strands_session_message(data: JsonValue) -> bool:
    """Whether `data` is one message file of a Strands Agents `FileSessionManager`
    session: `{"message": {role, content}, "message_id": n, ...}`."""
    if not isinstance(data, dict) or "message_id" not in data:
        return False
    message = data.get("message")
    return isinstance(message, dict) and "role" in message


class BedrockConverseCodec(MessageListCodec):
    """Bedrock Converse message lists and request bodies (Strands Agents histories)."""

    name = "bedrock-converse"
    summary = "Bedrock Converse messages and request bodies (Strands Agents histories)"
    known_roles = ROLES
    read_call_keys = frozenset[str]()
    verbatim_types = VERBATIM

    message_decoder = staticmethod(decode_message)

    def sniff(self, data: JsonValue) -> float:
        """Sure on a content block keyed `text`, `toolUse`, `toolResult`, ... (no `type`),
        or on Converse's own body keys (`inferenceConfig`, `toolConfig`, ...)."""
        messages = messages_sniff(data, "messages")
        if messages is None:
            return 0.0
        body = isinstance(data, dict) and not CONVERSE_BODY_KEYS.isdisjoint(data)
        marked = sniff_messages(messages)
        if marked is None:
            return 0.0
        return 0.95 if marked or body else 0.0

    def encode(self, transcript: Transcript) -> JsonValue:
        """Encode to the shape the transcript was read from; other envelope keys are kept."""
        messages = [encode_message(m) for m in transcript.messages]
        return join_envelope(transcript, "messages", messages)

    def part_pointer(self, transcript: Transcript, message_index: int, part_index: int) -> str:
        """`.../content/K` for a block; new parts: the message."""
        message = transcript.messages[message_index]
        at = self.message_pointer(transcript, message_index)
        if message.parts[part_index].slot == SLOT:
            return join_pointer(at, "content", first_index(message, part_index, SLOT))
        return at
