"""Pydantic AI message histories: what `ModelMessagesTypeAdapter.dump_json` writes (a list
of `ModelRequest` / `ModelResponse` objects), bare or under `messages`.

A message is `{"parts": [...], "kind": "request" | "response", ...}`; every other key
(`timestamp`, `instructions`, `run_id`, `conversation_id`, `metadata`, `usage`,
`model_name`, `provider_*`, `state`, ...) is kept verbatim. A request reads as a `user`
message (a `system` one when it holds nothing but system prompts), a response as an
`assistant` one. Parts carry a `part_kind` and map to:

- `system-prompt`, `user-prompt` (string `content`) and `text` → text; `thinking` →
  reasoning (`opaque` = `signature`);
- `tool-call` → tool call (`args` a string or an object, kept as written), `tool-return` →
  its result (an `outcome` other than `success` is an error);
- `retry-prompt` with a `tool_name` → an error result of its call, as Pydantic AI reads
  it (a `ToolReturnPart` with `outcome='retried'`); without one it answers no call and is
  kept verbatim, as are `retry-feedback`, multimodal prompts, `compaction`, `speech` and
  the instruction, tool-availability, capability and settings bookkeeping parts;
- `builtin-tool-call` / `builtin-tool-return` → hosted call and result, both in the
  response (as Anthropic server tools), grouped so that they pair with each other;
- `file` → media; any other kind → unknown.

Every part sits in slot `parts`. A new result without a name takes its call's name
(`tool_name` is required). A new message is a request unless its role is
`assistant`; a new text part is a `user-prompt` (`system-prompt` in a `system` message) or,
in a response, `text`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from histnorm.analysis.outline import Outline
from histnorm.errors import HistnormError, join_pointer
from histnorm.formats.base import (
    MessageListCodec,
    expect_object,
    join_envelope,
    marked_sniff,
    messages_sniff,
    name_new_results,
    rebuild,
    reuse_native,
    type_name,
)
from histnorm.formats.pydantic_ai.outline import read_outline
from histnorm.formats.pydantic_ai.parts import VERBATIM, decode_part, encode_part
from histnorm.lazy import model
from histnorm.model_terms import JsonValue

if TYPE_CHECKING:
    from histnorm.model import Message, Transcript

ROLES = {"request": "user", "response": "assistant"}


def decode_message(obj: Any, pointer: str = "") -> Message:
    """Decode one `ModelRequest` or `ModelResponse` object."""
    msg = expect_object(obj, pointer, "a Pydantic AI message")
    kind = msg.get("kind")
    if not isinstance(kind, str) or kind not in ROLES:
        raise HistnormError(
            f'expected kind to be "request" or "response", got {kind!r}',
            pointer=join_pointer(pointer, "kind"),
        )
    parts = msg.get("parts")
    at = join_pointer(pointer, "parts")
    if not isinstance(parts, list):
        raise HistnormError(f"expected parts to be an array, got {type_name(parts)}", pointer=at)
    decoded = tuple(decode_part(p, join_pointer(at, i)) for i, p in enumerate(parts))
    return model.Message(role=_role(kind, parts), parts=decoded, native=obj)


def _role(kind: str, parts: list[Any]) -> str:
    """`user` for a request, `assistant` for a response, `system` for a request of
    nothing but system prompts."""
    if kind == "request" and parts and all(_is_system(p) for p in parts):
        return "system"
    return ROLES[kind]


def _is_system(part: Any) -> bool:
    return isinstance(part, dict) and part.get("part_kind") == "system-prompt"


def encode_message(message: Message) -> Any:
    """Encode one message; an unchanged message gives back its very native object."""
    if reuse_native(message, decode_message):
        return message.native
    base: dict[str, Any] = message.native if isinstance(message.native, dict) else {}
    response = message.role_is("assistant")
    system = message.role_is("system")
    parts = [encode_part(p, response, system) for p in message.parts]
    kind = "response" if response else "request"
    if base.get("kind") != kind:
        base = {}
    return rebuild(base, {"parts": parts, "kind": kind})


def _sniff_message(msg: Any) -> bool | None:
    """Whether a message has a part with a `part_kind`; None when it cannot be ours."""
    if not isinstance(msg, dict):
        return None
    kind = msg.get("kind")
    if not isinstance(kind, str) or kind not in ROLES:
        return None
    parts = msg.get("parts")
    if not isinstance(parts, list):
        return None
    for part in parts:
        if not isinstance(part, dict) or not isinstance(part.get("part_kind"), str):
            return None
    return bool(parts)


class PydanticAICodec(MessageListCodec):
    """Pydantic AI `ModelMessagesTypeAdapter` JSON (a list of requests and responses)."""

    name = "pydantic-ai"
    summary = "Pydantic AI message histories (ModelMessagesTypeAdapter JSON)"
    message_noun = "Pydantic AI messages"
    known_roles = frozenset({"system", "user", "assistant"})
    read_call_keys = frozenset[str]()
    verbatim_types = VERBATIM

    message_decoder = staticmethod(decode_message)

    def sniff(self, data: JsonValue) -> float:
        """Sure when every message has `kind` request/response and `parts` whose items all
        carry a `part_kind`, and some part is there; nothing else claims these keys."""
        messages = messages_sniff(data, "messages")
        return marked_sniff(messages, _sniff_message)

    def read_outline(self, data: JsonValue) -> Outline | None:
        """The outline read without building models, or None (`Codec.read_outline`)."""
        return read_outline(data)

    def encode(self, transcript: Transcript) -> JsonValue:
        """Encode; other keys of messages, parts and the envelope are kept."""
        out = [encode_message(m) for m in name_new_results(transcript.messages)]
        return join_envelope(transcript, "messages", out)

    def part_pointer(self, transcript: Transcript, message_index: int, part_index: int) -> str:
        """`.../parts/K`: every item of `parts` is one part."""
        at = self.message_pointer(transcript, message_index)
        return join_pointer(at, "parts", part_index)
