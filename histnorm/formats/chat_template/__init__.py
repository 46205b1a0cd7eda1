"""Hugging Face chat-template datasets (formats.md §7c).

A bare list of messages or a record `{"messages": [...], "tools"?: [...], ...}` whose other
keys are kept. Messages are `{role, content, tool_calls?, tool_call_id?, name?}` as for
OpenAI Chat, but a tool call is `{"type": "function", "function": {"name", "arguments"},
"id"?}` with `arguments` usually an object, and ids are optional: a call without `id` has
`call_id` None, and a `tool` message without `tool_call_id` pairs by position (with its
`name`, or Ollama's `tool_name`, when it has one; a fixed name is written back under the
key it was read from). The flat form `{"name", "arguments"}` some templates accept is read
too; a call of another `type` is an UnknownPart.

Slots: `content` (string content), `content[]` (an item of array content; `image`, `video`
and `audio` items are MediaParts, other items are read as OpenAI Chat content items),
`tool_calls`, `tool` (the content of a tool message) and `reasoning_content`, `thinking`
or `reasoning` (assistant reasoning text under that key). LLaMA-Factory v1 content parts
(`{"type": "text" | "reasoning" | "tool_call", "value"}`, `chat_template.v1`) are parts
in slot `content[]`, calls among them; TRL's `"type": "tool"` calls are calls too. New
calls are written with `arguments` as an object (a JSON string is parsed) and no `id` when
`call_id` is None; new results as `{"role": "tool", "content", "tool_call_id"?, "name"?}`
(v1 transcripts: see `chat_template.v1`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import histnorm.jsonio as jsonio
from histnorm.analysis.outline import Outline
from histnorm.errors import HistnormError, join_pointer
from histnorm.formats.base import (
    MISSING,
    MessageListCodec,
    all_objects,
    expect_object,
    first_index,
    join_envelope,
    messages_sniff,
    optional_key,
    rebuild,
    required_key,
    reuse_native,
    strict_equal,
    type_name,
)
from histnorm.formats.chat_template.outline import read_outline, read_scored
from histnorm.formats.chat_template.parts import (
    CONTENT_KEYS,
    MESSAGE_KEYS,
    PLAIN_ROLES,
    arguments,
    body_refused,
    decode_item,
    decode_tool_call,
    encode_item,
    encode_tool_call,
    family,
    null_or_missing,
    sniff_message,
    window_score,
)
from histnorm.formats.chat_template.v1 import (
    PLAIN,
    Dialect,
    dialect_of,
    encode_v1_part,
    is_v1_content,
    is_v1_part,
    result_content,
    result_text,
    with_weight,
    writes_v1,
)
from histnorm.lazy import model
from histnorm.model_terms import UNREAD, JsonValue

if TYPE_CHECKING:
    from histnorm.model import Message, Part, ToolResultPart, Transcript

REASONING_KEYS = ("reasoning_content", "thinking", "reasoning")
_CONTENT_SLOTS = {"content", "content[]"}


def _result(msg: dict[str, Any], pointer: str) -> ToolResultPart:
    call_id = optional_key(msg, "tool_call_id", pointer, "tool_call_id")
    key = "tool_name" if "name" not in msg and "tool_name" in msg else "name"
    name = optional_key(msg, key, pointer, "the tool name")
    content = msg.get("content")
    text = result_text(content)
    return model.ToolResultPart(
        call_id=call_id,
        name=name,
        content=content if text is None else text,
        family=family(name),
        tool_type="tool",
        native=content,
        slot="tool",
    )


def decode_message(obj: Any, pointer: str = "") -> Message:
    """Decode one chat-template message."""
    msg = obj if type(obj) is dict else expect_object(obj, pointer, "a message")
    role = msg.get("role")  # a string, the usual case, is read without the checks' calls
    if type(role) is not str:
        role = required_key(msg, "role", pointer, "the message role")
    if role.casefold() == "tool":
        return model.Message(role=role, parts=(_result(msg, pointer),), native=obj)
    author = msg.get("name")
    if author is not None and type(author) is not str:
        author = optional_key(msg, "name", pointer, "the author name")
    parts: list[Part] = [
        model.ReasoningPart(text=msg[key], native=msg[key], slot=key)
        for key in REASONING_KEYS
        if isinstance(msg.get(key), str)
    ]
    content = msg.get("content")
    if isinstance(content, str):
        parts.append(model.TextPart(text=content, native=content, slot="content"))
    elif isinstance(content, list):
        parts.extend(decode_item(item) for item in content)
    elif content is not None:
        raise HistnormError(
            f"expected content to be a string, an array of parts or null, got {type_name(content)}",
            pointer=join_pointer(pointer, "content"),
        )
    calls = msg.get("tool_calls")
    if calls is not None:
        if not isinstance(calls, list):
            raise HistnormError(
                f"expected tool_calls to be an array, got {type_name(calls)}",
                pointer=join_pointer(pointer, "tool_calls"),
            )
        parts.extend(
            decode_tool_call(call, join_pointer(pointer, "tool_calls", i))
            for i, call in enumerate(calls)
        )
    return model.Message(role=role, author_name=author, parts=tuple(parts), native=obj)


def _encode_content(items: Sequence[Part], base: dict[str, Any]) -> Any:
    if not items:
        if "content" not in base:
            return MISSING
        return [] if isinstance(base["content"], list) else None
    only = items[0]
    if (
        len(items) == 1
        and isinstance(only, model.TextPart | model.RefusalPart)
        and (
            only.slot == "content"
            or (only.native is None and not isinstance(base.get("content"), list))
        )
    ):
        return only.text
    return [encode_item(p) for p in items]


def _encode_result(message: Message, part: ToolResultPart, dialect: Dialect) -> dict[str, Any]:
    base = message.native if isinstance(message.native, dict) else {}
    role = message.role if message.role_is("tool") else "tool"
    content = part.content
    if writes_v1(base, dialect) or is_v1_content(part.native):
        content = result_content(content, part.native)
    elif part.native is None and not isinstance(content, str | list) and content is not None:
        content = jsonio.dumps(content).decode("utf-8")  # a result read from another format
    updates = {
        "role": role,
        "content": content if content is not None else null_or_missing(base, "content"),
        "tool_call_id": (
            part.call_id if part.call_id is not None else null_or_missing(base, "tool_call_id")
        ),
    }
    key = "tool_name" if "name" not in base and "tool_name" in base else "name"
    updates[key] = part.name if part.name is not None else null_or_missing(base, key)
    return with_weight(rebuild(base, updates), message, dialect)


def _reasoning(others: Sequence[Part], base: dict[str, Any]) -> dict[str, Any]:
    texts: dict[str, list[str]] = {}
    for part in others:
        if isinstance(part, model.ReasoningPart) and part.text is not None:
            key = part.slot if part.slot in REASONING_KEYS else REASONING_KEYS[0]
            texts.setdefault(key, []).append(part.text)
    updates: dict[str, Any] = {k: MISSING for k in REASONING_KEYS if isinstance(base.get(k), str)}
    updates.update({key: "".join(values) for key, values in texts.items()})
    return updates


def _v1_content(items: Sequence[Part], base: dict[str, Any]) -> Any:
    if not items and "content" not in base:
        return MISSING
    return [
        encode_v1_part(
            p, arguments(p.arguments, None) if isinstance(p, model.ToolCallPart) else None
        )
        if p.native is None or is_v1_part(p.native)
        else encode_item(p)
        for p in items
    ]


def encode_message(message: Message, dialect: Dialect = PLAIN) -> list[dict[str, Any]]:
    """Encode one message; tool results become tool messages of their own, placed before
    or after the rest of the message as they were ordered in it. In the v1 dialect new
    parts, calls among them, go into `content` as v1 parts."""
    if reuse_native(message, decode_message):
        return [message.native]
    results = [p for p in message.parts if isinstance(p, model.ToolResultPart)]
    others = [p for p in message.parts if not isinstance(p, model.ToolResultPart)]
    empty = message.evolve(native=None)
    if results and not others:
        return [
            _encode_result(message if i == 0 else empty, r, dialect) for i, r in enumerate(results)
        ]
    base = message.native if isinstance(message.native, dict) else {}
    if results or message.role_is("tool"):
        base = {k: v for k, v in base.items() if k != "tool_call_id"}
    v1 = writes_v1(base, dialect)
    items = [
        p
        for p in others
        if p.slot in _CONTENT_SLOTS
        or (
            p.native is None
            and (v1 or isinstance(p, model.TextPart | model.MediaPart | model.RefusalPart))
        )
    ]
    calls = [
        p
        for p in others
        if p not in items and (isinstance(p, model.ToolCallPart) or p.slot == "tool_calls")
    ]
    leftover = [p for p in others if p not in calls and p not in items]
    bad = [p for p in leftover if not isinstance(p, model.ReasoningPart)]
    if bad:
        raise HistnormError(f"a {bad[0].kind} part cannot be written as a chat-template message")
    role = message.role if not message.role_is("tool") else "assistant"
    content = _v1_content(items, base) if v1 else _encode_content(items, base)
    updates: dict[str, Any] = {"role": role, "content": content}
    name = message.author_name
    updates["name"] = name if name is not None else null_or_missing(base, "name")
    updates.update(_reasoning(leftover, base))
    updates["tool_calls"] = (
        [encode_tool_call(c) for c in calls] if calls else null_or_missing(base, "tool_calls")
    )
    out = with_weight(rebuild(base, updates), message, dialect)
    if message.native is not None and strict_equal(out, message.native):
        out = message.native
    lead = 0
    while lead < len(message.parts) and isinstance(message.parts[lead], model.ToolResultPart):
        lead += 1
    before = [_encode_result(empty, r, dialect) for r in results[:lead]]
    return [*before, out, *(_encode_result(empty, r, dialect) for r in results[lead:])]


def part_pointer_at(at: str, message: Message, part_index: int) -> str:
    """The pointer of a chat-template message's part, given the message's pointer `at`:
    its content item, tool call, content or reasoning key."""
    part = message.parts[part_index]
    if part.slot in ("content[]", "tool_calls"):
        key = "content" if part.slot == "content[]" else "tool_calls"
        return join_pointer(at, key, first_index(message, part_index, part.slot))
    if part.slot == "content" or part.slot in REASONING_KEYS:
        return join_pointer(at, part.slot)
    return at


class ChatTemplateCodec(MessageListCodec):
    """Hugging Face chat-template datasets: object arguments, optional ids."""

    name = "chat-template"
    one_result_per_message = True
    needs_call_ids = False
    summary = "Hugging Face chat-template datasets (messages with object tool arguments)"
    known_roles = frozenset({"system", "developer", "user", "assistant", "tool"})
    read_call_keys = frozenset({"tool_calls", "tool_call_id"})
    content_keys = CONTENT_KEYS
    message_keys = MESSAGE_KEYS

    message_decoder = staticmethod(decode_message)

    def sniff(self, data: JsonValue) -> float:
        """0.95 with object arguments, tool messages without `tool_call_id` or LLaMA-Factory
        v1 `{"type", "value"}` parts; 0.6 with `image`/`video`/`audio` content items; 0.3
        for plain chat (below OpenAI Chat's 0.5); 0 for other tool calls and results (OpenAI
        Chat's), OpenAI-only keys and other formats."""
        messages = messages_sniff(data, "messages")
        if not messages or not all_objects(messages) or body_refused(data):
            return 0.0
        seen: set[str | None] = set()  # a message with another format's keys is `foreign`
        for m in messages[:50]:
            if len(m) == 2:  # the usual message (`PLAIN_ROLES`), which has no mark
                role, content = m.get("role"), m.get("content")
                if type(role) is str and role in PLAIN_ROLES and type(content) is str and content:
                    continue
            seen.add(sniff_message(m))
        return window_score(messages, seen)

    def read_scored(self, data: JsonValue) -> tuple[Outline, float] | None:
        """The outline and the `sniff` score of `data` in one walk (`Codec.read_scored`)."""
        return read_scored(data)

    def read_outline(self, data: JsonValue) -> Outline | None:
        """The outline read without building models, or None (`Codec.read_outline`)."""
        return read_outline(data)

    def encode(self, transcript: Transcript) -> JsonValue:
        """Encode to the native shape the transcript was read from."""
        out: list[dict[str, Any]] = []
        dialect = dialect_of(transcript.messages)
        for message in transcript.messages:
            unread = message.__dict__.get(UNREAD)
            if unread is not None and unread[0] is decode_message:
                out.append(message.native)  # as read, and never read since
            else:
                out.extend(encode_message(message, dialect))
        return join_envelope(transcript, "messages", out)

    def part_pointer(self, transcript: Transcript, message_index: int, part_index: int) -> str:
        """Point at the content item, tool call, content or reasoning key holding the part."""
        at = self.message_pointer(transcript, message_index)
        return part_pointer_at(at, transcript.messages[message_index], part_index)
