"""Vercel AI SDK `UIMessage` lists (what `useChat` holds and apps store): a bare list, or
an object holding one under `messages` (the body `useChat` posts; other keys kept).

A UIMessage is `{id, role: system|user|assistant, metadata?, parts: [...]}`; `metadata`
is the app's own value, kept verbatim. Parts (slot `parts`): `text`; `reasoning`
(`providerMetadata` is the opaque part); `file` (media: `mediaType`, `url`); tool parts,
`tool-<name>` and `dynamic-tool` (`toolName`), read by their `state` as the call, result
and approval parts `convertToModelMessages` makes of them (`histnorm.formats.vercel_ai.
parts`); `step-start`, `source-url`, `source-document`, `reasoning-file` and `custom`,
and `data-*` parts, kept verbatim on purpose; anything else is an unknown part (HN013),
including the AI SDK 4 `tool-invocation` part, which this codec does not read.

Writing: an untouched message, and an untouched part, is written as it was read. A tool
part is rebuilt from its parts with the state they call for (`encode.tool_state`): a
dropped call or pending approval removes the whole part; a result a fix adds turns the
call into `output-error` (with the result text as `errorText`); a denial turns a pending
approval into `output-denied`. Results held in `tool` messages (a fix's, or another
format's) are written into their call's part and the `tool` message disappears. New
messages get the id `histnorm-<index>` (UIMessage requires one). Refusal and usage parts
have no place in a UIMessage: writing one raises.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from histnorm.errors import HistnormError, join_pointer
from histnorm.formats.base import (
    MISSING,
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
from histnorm.formats.vercel_ai.encode import TOOL_KINDS, encode_part, encode_tool, groups
from histnorm.formats.vercel_ai.parts import VERBATIM, decode_part, is_part_type
from histnorm.formats.vercel_ai.plan import Plan, plan
from histnorm.lazy import model
from histnorm.model_terms import JsonValue

if TYPE_CHECKING:
    from histnorm.model import Message, Transcript

ROLES = frozenset({"system", "user", "assistant"})
_NEW_ROLES = {"developer": "system"}
"""Roles of other formats written as the UIMessage role that means the same."""


class _Verbatim(frozenset[str]):
    """The part types kept verbatim: `VERBATIM` and every `data-*` type."""

    def __contains__(self, item: object) -> bool:
        return super().__contains__(item) or (isinstance(item, str) and item.startswith("data-"))


def decode_message(obj: Any, pointer: str = "") -> Message:
    """Decode one UIMessage object."""
    msg = _object(obj, pointer, "a UIMessage")
    role = required_str(msg.get("role"), join_pointer(pointer, "role"), "the message role")
    ident = optional_str(msg.get("id"), join_pointer(pointer, "id"), "the message id")
    at = join_pointer(pointer, "parts")
    raw = msg.get("parts")
    if not isinstance(raw, list):
        raise HistnormError(f"expected parts to be an array, got {type_name(raw)}", pointer=at)
    parts = tuple(p for i, item in enumerate(raw) for p in decode_part(item, join_pointer(at, i)))
    return model.Message(role=role, id=ident, parts=parts, native=obj)


def _encode_parts(message: Message, mi: int, plan: Plan) -> tuple[list[Any], bool]:
    """The native parts of message `mi`, and whether any differs from what was read."""
    out: list[Any] = []
    touched = False
    for gi, group in enumerate(groups(message.parts)):
        at = (mi, gi)
        if at in plan.moved:
            touched = True
        elif group[0].kind not in TOOL_KINDS:
            out.append(encode_part(group[0]))
        else:
            own = any(isinstance(p, model.ToolResultPart) for p in group)
            result = None if own else plan.results.get(at)
            response = plan.responses.get(at)
            touched = touched or result is not None or response is not None
            out.append(encode_tool(group, result, response))
    return out, touched


def _encode_message(message: Message, mi: int, plan: Plan, index: int) -> Any | None:
    """Write message `mi`; None for a message of parts written into other messages."""
    parts, touched = _encode_parts(message, mi, plan)
    if not touched and reuse_native(message, decode_message):
        return message.native
    if message.parts and not parts and touched:
        return None  # every part of it was written into other messages' tool parts
    base = message.native if isinstance(message.native, dict) else {}
    role = _NEW_ROLES.get(message.role.casefold(), message.role)
    if not base and role.casefold() in ROLES:
        role = role.casefold()
    if not base and role not in ROLES:
        raise HistnormError(f"a message of role {message.role!r} cannot be written as a UIMessage")
    ident = MISSING if message.id is None else message.id
    if base:
        return rebuild(base, {"id": ident, "role": role, "parts": parts})
    return {"id": message.id or f"histnorm-{index}", "role": role, "parts": parts}


class VercelAICodec(MessageListCodec):
    """Vercel AI SDK `UIMessage` lists (AI SDK 5 and later: `parts` with tool states)."""

    name = "vercel-ai"
    summary = "Vercel AI SDK UIMessage lists (parts with tool-* states)"
    message_noun = "UIMessages"
    known_roles = ROLES
    read_call_keys = frozenset[str]()
    derived_keys = frozenset({"state"})
    empty_rejected = (
        # vercel/ai packages/ai/src/ui/validate-ui-messages.test.ts: `messages: []` fails
        "the AI SDK's validateUIMessages rejects an empty list (Messages array must not be empty)"
    )
    verbatim_types = _Verbatim(VERBATIM)

    message_decoder = staticmethod(decode_message)

    def sniff(self, data: JsonValue) -> float:
        """Likely when every message is an object with a string `id`, a `role` and a
        `parts` array, and no `content` (Gemini's Content has no `id`, Pydantic AI's
        messages no `role`); sure when some part has a UIMessage part type (`text`,
        `step-start`, `tool-<name>`, ...); 0 otherwise."""
        messages = messages_sniff(data, "messages")
        if not messages:
            return 0.0
        typed = False
        for msg in messages[:50]:
            if not isinstance(msg, dict) or not isinstance(msg.get("parts"), list):
                return 0.0
            if not isinstance(msg.get("id"), str) or "role" not in msg or "content" in msg:
                return 0.0
            typed = typed or any(
                isinstance(p, dict) and is_part_type(p.get("type")) for p in msg["parts"]
            )
        return 0.95 if typed else 0.6

    def encode(self, transcript: Transcript) -> JsonValue:
        """Encode; results away from their call are written into its tool part."""
        placed = plan(transcript)
        out: list[Any] = []
        for mi, message in enumerate(transcript.messages):
            written = _encode_message(message, mi, placed, len(out))
            if written is not None:
                out.append(written)
        return join_envelope(transcript, "messages", out)

    def read_back(self, fixed: Transcript) -> Transcript | None:
        """What the encoding of `fixed` reads as, when results moved into their calls."""
        if not plan(fixed).moved:
            return None
        return self.decode(self.written(fixed))

    def part_pointer(self, transcript: Transcript, message_index: int, part_index: int) -> str:
        """`.../parts/K`: K counts native parts (a tool part holds several model parts)."""
        at = self.message_pointer(transcript, message_index)
        parts = transcript.messages[message_index].parts[: part_index + 1]
        return join_pointer(at, "parts", max(len(groups(parts)) - 1, 0))
