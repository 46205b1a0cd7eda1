"""Microsoft Agent Framework Python messages (`Message.to_dict`): a bare list or
`{"messages": [...]}`.

Current shape: `{"type": "message", "role": "user", "contents": [...], "author_name"?,
"message_id"?, "additional_properties": {...}}`. Older releases wrote `"type":
"chat_message"` with `role` as `{"type": "role", "value": "user"}` and content types with a
`_content` suffix (`text_content`); both are read, and each message and content is written
back the way it was read. Contents have a snake_case `type`: text, text_reasoning
(`protected_data` is the opaque part), data / uri / hosted_file / hosted_vector_store
(media), function_call / function_result (`exception` present: an error), the approval
request and response (`id`, nested `function_call`), MCP server tool calls and results
(family `mcp`), and the shell, search, code interpreter, image generation and computer tool
calls and results (family `hosted`, grouped by kind so calls pair with their results),
usage, and anything else (error, oauth_consent_request, ...) kept as an unknown part.
`additional_properties` is the metadata of messages and contents, so
`agent_framework.partial_response` marks a partial message. Every part sits in slot
`contents`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from histnorm.errors import HistnormError, join_pointer
from histnorm.formats.agent_framework.contents import (
    KNOWN,
    SUFFIX,
    decode_content,
    metadata_of,
)
from histnorm.formats.agent_framework.encode import encode_content
from histnorm.formats.base import (
    MessageListCodec,
    join_envelope,
    messages_sniff,
    optional_str,
    rebuild,
    required_str,
    reuse_native,
    type_name,
)
from histnorm.formats.base import expect_object as _object
from histnorm.lazy import model
from histnorm.model_terms import JsonValue

if TYPE_CHECKING:
    from histnorm.model import Message, Transcript

MESSAGE_TYPES = ("message", "chat_message")


def _role(msg: dict[str, Any], pointer: str) -> str:
    role = msg.get("role")
    if isinstance(role, dict):
        at = join_pointer(pointer, "role", "value")
        return required_str(role.get("value"), at, "the message role")
    return required_str(role, join_pointer(pointer, "role"), "the message role")


def decode_message(obj: Any, pointer: str = "") -> Message:
    """Decode one message object (current or older form)."""
    msg = _object(obj, pointer, "a message")
    role = _role(msg, pointer)
    contents = msg.get("contents")
    at = join_pointer(pointer, "contents")
    if contents is not None and not isinstance(contents, list):
        raise HistnormError(
            f"expected contents to be an array, got {type_name(contents)}", pointer=at
        )
    parts = tuple(decode_content(c, join_pointer(at, i)) for i, c in enumerate(contents or ()))
    return model.Message(
        role=role,
        id=optional_str(msg.get("message_id"), join_pointer(pointer, "message_id"), "message_id"),
        author_name=optional_str(
            msg.get("author_name"), join_pointer(pointer, "author_name"), "author_name"
        ),
        parts=parts,
        metadata=metadata_of(msg, pointer),
        native=obj,
    )


def _suffixed(native: Any) -> bool | None:
    """Whether a message's contents use `_content` type names (None: cannot tell)."""
    contents = native.get("contents") if isinstance(native, dict) else None
    kinds = [
        c["type"] for c in contents or () if isinstance(c, dict) and isinstance(c.get("type"), str)
    ]
    if any(k.endswith(SUFFIX) and k.removesuffix(SUFFIX) in KNOWN for k in kinds):
        return True
    return False if any(k in KNOWN for k in kinds) else None


def encode_message(message: Message, old: bool = False, suffix: bool = False) -> Any:
    """Encode one message; new messages use the older form when `old` is set."""
    if reuse_native(message, decode_message):
        return message.native
    base = message.native if isinstance(message.native, dict) else {}
    mine = _suffixed(base)
    contents = [encode_content(p, suffix if mine is None else mine) for p in message.parts]
    role: Any = message.role
    if isinstance(base.get("role"), dict):
        role = rebuild(base["role"], {"value": message.role})
    elif not base and old:
        role = {"type": "role", "value": message.role}
    values: dict[str, Any] = {"role": role, "contents": contents}
    values |= {"author_name": message.author_name, "message_id": message.id}
    metadata = dict(message.metadata)
    if metadata or base.get("additional_properties") or not base:
        values["additional_properties"] = metadata
    if not base:
        kind = "chat_message" if old else "message"
        return {"type": kind, **{k: v for k, v in values.items() if v is not None}}
    return rebuild(base, {k: v for k, v in values.items() if k in base or v is not None})


class AgentFrameworkCodec(MessageListCodec):
    """Microsoft Agent Framework Python `Message.to_dict` lists (current and older forms)."""

    name = "agent-framework"
    summary = "Microsoft Agent Framework Python Message.to_dict lists (snake_case contents)"
    message_noun = "Agent Framework messages"
    known_roles = frozenset({"system", "user", "assistant", "tool"})
    read_call_keys = frozenset[str]()

    message_decoder = staticmethod(decode_message)

    def sniff(self, data: JsonValue) -> float:
        """Likely when messages are `"type": "message"` (or `chat_message`) objects with
        `contents` whose items carry a snake_case `type` and no `$type`."""
        messages = messages_sniff(data, "messages")
        if not messages:
            return 0.0
        score = 0.9
        for msg in messages[:50]:
            if not isinstance(msg, dict) or msg.get("type") not in MESSAGE_TYPES:
                return 0.0
            contents = msg.get("contents")
            if "contents" not in msg or not isinstance(contents, list | None):
                return 0.0
            items = [c for c in contents or () if isinstance(c, dict)]
            if any("$type" in c for c in items):
                return 0.0
            if any(isinstance(c.get("type"), str) for c in items):
                score = 0.97
        return score

    def encode(self, transcript: Transcript) -> JsonValue:
        """Encode; new messages and contents follow the form the transcript was read in."""
        natives = [m.native for m in transcript.messages if isinstance(m.native, dict)]
        old = bool(natives) and natives[0].get("type") == "chat_message"
        suffix = any(_suffixed(n) for n in natives)
        out = [encode_message(m, old, suffix) for m in transcript.messages]
        return join_envelope(transcript, "messages", out)

    def part_pointer(self, transcript: Transcript, message_index: int, part_index: int) -> str:
        """`.../contents/K`: every content item is one part."""
        at = self.message_pointer(transcript, message_index)
        return join_pointer(at, "contents", part_index)
