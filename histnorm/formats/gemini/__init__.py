"""Google Gemini `contents`: a bare list of Content objects, or a request body holding one.

A Content is `{role?, parts: [...]}`; a missing or null role reads as `user` (what the
service assumes). A request body `{contents, systemInstruction?, tools?,
generationConfig?, ...}` keeps every other key verbatim; the system instruction is part
of the envelope, not a message. Field names are read in camelCase or snake_case (the SDK's
`model_dump()`), null fields count as absent, and every object is written back in the
spelling it came in; new objects follow the document's dominant style (default camelCase).

Parts (all in slot `parts`, one canonical part per native part):
`text` -> text, or reasoning when `thought: true` (and an otherwise blank text that
carries a `thoughtSignature`, so empty-text fixes never drop a signature); `inlineData`
(as a `data:` URI) and `fileData` -> media; `functionCall` / `functionResponse` -> tool
call / result (`call_id` = `id`, None when absent: then they pair by name and position;
`is_error` when the response has `error` and no `output`); `executableCode` /
`codeExecutionResult` -> hosted call / result of tool type `codeExecution`, paired by
position; `toolCall` / `toolResponse` (server-side tools) -> hosted, by `id`. A
`thoughtSignature` on any part is kept verbatim in its native part (on reasoning parts
also in `opaque`). Anything else is an unknown part.

Writing new content: a tool result becomes a `functionResponse` with the call's `name` and
`response` = `{"output": ...}` (`{"error": ...}` when `is_error`), plus `id` when the call
had one; a new message with role `tool` or `function` is written with role `user` (the
SDK's convention for function responses; `model` when it holds only server-side results)
and `assistant` as `model`. New system messages
at the start become `systemInstruction`. A message left without parts is written with
`parts: []`, which reads back as an empty message (Gemini rejects it; HN005 removes such
messages). An MCP tool result in a model message is cut out into a user turn of its own
after its call (both written as function parts, as google-genai's MCP support sends
them). Gemini has no refusal, usage or approval parts: writing one raises.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from histnorm.errors import HistnormError, join_pointer
from histnorm.formats.base import (
    MISSING,
    Codec,
    expect_object,
    optional_str,
    rebuild,
    reuse_native,
    split_envelope,
    type_name,
)
from histnorm.formats.gemini.encode import Context, encode_part, split_mcp_results
from histnorm.formats.gemini.parts import (
    GEMINI_PART_KEYS,
    decode_part,
    find_key,
    norm,
    spell,
    style_votes,
)
from histnorm.lazy import model
from histnorm.model_terms import JsonValue, ToolFamily

if TYPE_CHECKING:
    from histnorm.model import Message, Transcript

ENVELOPE_KEY = "contents"
_NEW_ROLES = {"assistant": "model", "tool": "user", "function": "user"}
_SYSTEM_ROLES = ("system", "developer")
_ROLES = {"user", "model", "tool", "function"}
_FOREIGN_KEYS = {"content", "contents", "toolcalls", "toolcallid", "$type", "type", "messages"}


def decode_message(obj: Any, pointer: str = "") -> Message:
    """Decode one Gemini `Content` object."""
    content = expect_object(obj, pointer, "a Content object")
    role_key = find_key(content, "role") or "role"
    role = optional_str(content.get(role_key), join_pointer(pointer, role_key), "the role")
    parts_key = find_key(content, "parts") or "parts"
    raw = content.get(parts_key)
    if raw is not None and not isinstance(raw, list):
        raise HistnormError(
            f"expected parts to be an array, got {type_name(raw)}",
            pointer=join_pointer(pointer, parts_key),
        )
    parts = tuple(
        decode_part(p, join_pointer(pointer, parts_key, i)) for i, p in enumerate(raw or ())
    )
    return model.Message(role="user" if role is None else role, parts=parts, native=obj)


def _role(message: Message, base: dict[str, Any]) -> Any:
    """What to write for `role`: the native value when it reads the same, else the role."""
    key = find_key(base, "role")
    if key is not None:
        current = base[key]
        return (
            current
            if (current if current is not None else "user") == message.role
            else message.role
        )
    if base:
        return MISSING if message.role == "user" else message.role
    hosted = all(
        isinstance(p, model.ToolResultPart) and p.family is ToolFamily.HOSTED for p in message.parts
    )
    if message.parts and hosted and message.role_is("tool", "function"):
        return "model"  # server-side tool results are the model's own output
    return _NEW_ROLES.get(message.role.casefold(), message.role)


def encode_message(message: Message, ctx: Context) -> Any:
    """Encode one message as a Gemini `Content` object."""
    if reuse_native(message, decode_message):
        for part in message.parts:
            ctx.record(part)
        return message.native
    if message.native is None and message.role_is(*_SYSTEM_ROLES):
        raise HistnormError(
            f"a {message.role} message cannot be written in Gemini contents; only system "
            "messages at the very start can be written, as systemInstruction"
        )
    base = message.native if isinstance(message.native, dict) else {}
    parts = []
    for part in message.parts:
        parts.append(encode_part(part, ctx))
        ctx.record(part)
    parts_key = find_key(base, "parts") or "parts"
    value: Any = parts
    if not parts and parts_key in base and base[parts_key] is None:
        value = None
    elif not parts and base and parts_key not in base:
        value = MISSING
    return rebuild(base, {find_key(base, "role") or "role": _role(message, base), parts_key: value})


def document_is_snake(transcript: Transcript) -> bool:
    """Whether the transcript's native document mostly spells fields in snake_case."""
    snake, camel = style_votes(transcript.native, depth=0)
    for message in transcript.messages:
        s, c = style_votes([p.native for p in message.parts])
        snake, camel = snake + s, camel + c
    return snake > camel


class GeminiCodec(Codec):
    """Google Gemini `contents` lists and `generateContent` request bodies."""

    name = "gemini"
    needs_call_ids = False
    summary = "Google Gemini contents (Content objects) and generateContent request bodies"
    known_roles = frozenset({"user", "model", "function", "tool"})
    read_call_keys = frozenset[str]()

    def sniff(self, data: JsonValue) -> float:
        """Likely when items are `{role?, parts}` with Gemini part fields (`text`,
        `functionCall`...) or a Gemini role (`model`...), or sit under `contents`; parts
        with none of Gemini's fields are no mark (a Pydantic AI dump has `parts` too)."""
        if isinstance(data, dict):
            items = data.get(ENVELOPE_KEY)
            if not isinstance(items, list) or "role" in data:
                return 0.0
            floor = 0.5
        elif isinstance(data, list):
            items, floor = data, 0.0
        else:
            return 0.0
        score = 0.0
        for item in items[:50]:
            if not isinstance(item, dict) or any(norm(k) in _FOREIGN_KEYS for k in item):
                return 0.0
            role, parts = item.get("role"), item.get("parts")
            if (
                role is not None and not (isinstance(role, str) and role in _ROLES)
            ) or not isinstance(parts, list | None):
                return 0.0
            if parts is None:
                continue
            if any(isinstance(p, dict) and "type" in p for p in parts):
                return 0.0  # typed parts: the Vercel AI SDK's UIMessage, not Gemini
            marked = any(
                isinstance(p, dict) and any(norm(k) in GEMINI_PART_KEYS for k in p) for p in parts
            )
            score = max(score, 0.95 if marked else 0.6 if role is not None else 0.0)
        return max(score, floor)

    def decode(self, data: JsonValue) -> Transcript:
        """Decode a bare Content list or a request body holding `contents`."""
        items, base = split_envelope(data, ENVELOPE_KEY, "Content objects")
        messages = tuple(decode_message(m, join_pointer(base, i)) for i, m in enumerate(items))
        return model.Transcript(
            messages=messages, format=self.name, native=data if isinstance(data, dict) else None
        )

    def encode(self, transcript: Transcript) -> JsonValue:
        """Encode to the shape the transcript was read from (new system messages lifted)."""
        ctx = Context(snake=document_is_snake(transcript))
        messages = list(transcript.messages)
        lifted = []
        while messages and messages[0].native is None and messages[0].role_is(*_SYSTEM_ROLES):
            lifted.append(messages.pop(0))
        split = [m for message in messages for m in split_mcp_results(message)]
        contents = [encode_message(m, ctx) for m in split]
        envelope = transcript.native if isinstance(transcript.native, dict) else None
        if not lifted:
            return contents if envelope is None else rebuild(envelope, {ENVELOPE_KEY: contents})
        if envelope is not None and find_key(envelope, "systemInstruction") is not None:
            raise HistnormError(
                "a new system message cannot be written: the request already has a "
                "systemInstruction"
            )
        instruction = {"parts": [encode_part(p, ctx) for m in lifted for p in m.parts]}
        key = spell("systemInstruction", ctx.snake)
        if envelope is None:
            return {key: instruction, ENVELOPE_KEY: contents}
        return rebuild(envelope, {ENVELOPE_KEY: contents, key: instruction})

    def message_pointer(self, transcript: Transcript, message_index: int) -> str:
        """`/N` for a bare list, `/contents/N` inside a request body."""
        base = "/" + ENVELOPE_KEY if isinstance(transcript.native, dict) else ""
        return join_pointer(base, message_index)

    def part_pointer(self, transcript: Transcript, message_index: int, part_index: int) -> str:
        """`.../parts/K`: parts map one to one onto native parts."""
        native = transcript.messages[message_index].native
        key = (find_key(native, "parts") if isinstance(native, dict) else None) or "parts"
        return join_pointer(self.message_pointer(transcript, message_index), key, part_index)


__all__ = ["GeminiCodec", "decode_message", "encode_message"]
