"""OpenAI Chat Completions messages: a bare list, `{"messages": [...]}` or a request body.

Fine-tuning lines (`weight`, top-level `tools`) and request bodies keep every other key.
Slots: `content` (string content), `content[]` (an item of array content), `refusal`,
`tool_calls`, `function_call` (legacy), `audio`, `tool` (a `tool` message), `function` (a legacy
`function` message, paired with the preceding `function_call` by position).
"""

from __future__ import annotations

from typing import Any

import orjson

from histnorm.errors import HistnormError, join_pointer
from histnorm.formats.base import (
    MISSING,
    MessageListCodec,
    expect_object,
    first_index,
    join_envelope,
    messages_sniff,
    optional_str,
    rebuild,
    required_str,
    reuse_native,
    type_name,
)
from histnorm.model import (
    JsonValue,
    MediaPart,
    Message,
    Part,
    RefusalPart,
    TextPart,
    ToolCallPart,
    ToolFamily,
    ToolResultPart,
    Transcript,
    UnknownPart,
)

HANDOFF_PREFIX = "handoff_to_"
_MEDIA_TYPES = {"image_url", "input_audio", "file"}
_CONTENT_SLOTS = {"content", "content[]"}
_FOREIGN_PART_TYPES = {
    "tool_use",
    "tool_result",
    "thinking",
    "redacted_thinking",
    "image",
    "document",
    "search_result",
    "server_tool_use",
    "mcp_tool_use",
    "mcp_tool_result",
    "container_upload",
    "input_text",
    "output_text",
    "input_image",
    "input_file",
}


def _foreign_part(kind: Any) -> bool:
    """Whether a content item's type belongs to another format (Anthropic, Responses)."""
    return isinstance(kind, str) and (kind in _FOREIGN_PART_TYPES or kind.endswith("_tool_result"))


def _family(name: str | None) -> ToolFamily:
    return ToolFamily.HANDOFF if name and name.startswith(HANDOFF_PREFIX) else ToolFamily.FUNCTION


def decode_content_item(item: Any) -> Part:
    """Decode one item of an array `content`."""
    if not isinstance(item, dict):
        return UnknownPart(native=item, slot="content[]")
    kind = item.get("type")
    if kind == "text" and isinstance(item.get("text"), str):
        return TextPart(text=item["text"], native=item, slot="content[]")
    if kind == "refusal" and isinstance(item.get("refusal"), str):
        return RefusalPart(text=item["refusal"], native=item, slot="content[]")
    if isinstance(kind, str) and kind in _MEDIA_TYPES:
        body = item.get(kind)
        uri = body.get("url") if isinstance(body, dict) else None
        fmt = body.get("format") if isinstance(body, dict) and kind == "input_audio" else None
        return MediaPart(
            media_type=f"audio/{fmt}" if isinstance(fmt, str) else None,
            uri=uri if isinstance(uri, str) else None,
            native=item,
            slot="content[]",
        )
    return UnknownPart(type=kind if isinstance(kind, str) else None, native=item, slot="content[]")


def decode_tool_call(item: Any, pointer: str) -> ToolCallPart:
    """Decode one entry of `tool_calls`."""
    call = expect_object(item, pointer, "a tool call")
    call_id = required_str(call.get("id"), join_pointer(pointer, "id"), "the tool call id")
    kind = call.get("type", "function" if "function" in call else None)
    optional_str(kind, join_pointer(pointer, "type"), "the tool call type")
    body_key = "custom" if kind == "custom" else "function"
    body = call.get(body_key)
    if kind in ("function", "custom"):
        expect_object(body, join_pointer(pointer, body_key), f'the "{body_key}" of a tool call')
    name = body.get("name") if isinstance(body, dict) else None
    optional_str(name, join_pointer(pointer, body_key, "name"), "the tool name")
    if kind == "custom":
        args = body.get("input") if isinstance(body, dict) else None
        family = ToolFamily.CUSTOM
    else:
        args = body.get("arguments") if isinstance(body, dict) else None
        family = _family(name) if kind == "function" else ToolFamily.CUSTOM
    return ToolCallPart(
        call_id=call_id,
        name=name,
        arguments=args,
        family=family,
        tool_type=kind,
        native=item,
        slot="tool_calls",
    )


def decode_function_call(item: Any, pointer: str) -> ToolCallPart:
    """Decode a legacy `function_call` (no id; paired by position)."""
    call = expect_object(item, pointer, "a function call")
    name = optional_str(call.get("name"), join_pointer(pointer, "name"), "the function name")
    return ToolCallPart(
        call_id=None,
        name=name,
        arguments=call.get("arguments"),
        family=_family(name),
        tool_type="function_call",
        native=item,
        slot="function_call",
    )


def decode_message(obj: Any, pointer: str = "") -> Message:
    """Decode one Chat Completions message."""
    msg = expect_object(obj, pointer, "a message")
    role = required_str(msg.get("role"), join_pointer(pointer, "role"), "the message role")
    parts: list[Part] = []
    content = msg.get("content")
    author = None
    if role.casefold() in ("tool", "function"):
        if role.casefold() == "tool":
            call_id = required_str(
                msg.get("tool_call_id"), join_pointer(pointer, "tool_call_id"), "tool_call_id"
            )
            name = optional_str(msg.get("name"), join_pointer(pointer, "name"), "the tool name")
        else:
            call_id = None
            name = optional_str(msg.get("name"), join_pointer(pointer, "name"), "the function name")
        parts.append(
            ToolResultPart(
                call_id=call_id,
                name=name,
                content=content,
                family=_family(name),
                tool_type=role,
                native=content,
                slot=role.casefold(),
            )
        )
    else:
        author = optional_str(msg.get("name"), join_pointer(pointer, "name"), "the author name")
        if isinstance(content, str):
            parts.append(TextPart(text=content, native=content, slot="content"))
        elif isinstance(content, list):
            parts.extend(decode_content_item(item) for item in content)
        elif content is not None:
            raise HistnormError(
                "expected content to be a string, an array of parts or null, "
                f"got {type_name(content)}",
                pointer=join_pointer(pointer, "content"),
            )
        refusal = optional_str(msg.get("refusal"), join_pointer(pointer, "refusal"), "refusal")
        if refusal is not None:
            parts.append(RefusalPart(text=refusal, native=refusal, slot="refusal"))
        calls = msg.get("tool_calls")
        if calls is not None:
            if not isinstance(calls, list):
                raise HistnormError(
                    f"expected tool_calls to be an array, got {type_name(calls)}",
                    pointer=join_pointer(pointer, "tool_calls"),
                )
            for index, call in enumerate(calls):
                parts.append(decode_tool_call(call, join_pointer(pointer, "tool_calls", index)))
        audio = msg.get("audio")
        if isinstance(audio, dict) and role.casefold() == "assistant":
            parts.append(MediaPart(media_type="audio", native=audio, slot="audio"))
        if msg.get("function_call") is not None:
            fc_pointer = join_pointer(pointer, "function_call")
            parts.append(decode_function_call(msg["function_call"], fc_pointer))
    return Message(role=role, author_name=author, parts=tuple(parts), native=obj)


def _encode_content_item(part: Part) -> Any:
    if reuse_native(part, decode_content_item):
        return part.native
    base = part.native if isinstance(part.native, dict) else {}
    if isinstance(part, TextPart):
        return rebuild(base, {"type": "text", "text": part.text})
    if isinstance(part, RefusalPart):
        return rebuild(base, {"type": "refusal", "refusal": part.text})
    if isinstance(part, MediaPart):
        if not base:
            return {"type": "image_url", "image_url": {"url": part.uri}}
        kind = base.get("type")
        body = base.get(kind) if isinstance(kind, str) else None
        if isinstance(body, dict) and ("url" in body or part.uri is not None):
            return rebuild(base, {str(kind): rebuild(body, {"url": part.uri})})
    if part.native is not None:
        return part.native
    raise HistnormError(f"a {part.kind} part cannot be written as OpenAI Chat content")


def _encode_arguments(arguments: Any) -> Any:
    if arguments is None or isinstance(arguments, str):
        return arguments
    return orjson.dumps(arguments).decode("utf-8")


def _encode_tool_call(part: ToolCallPart) -> dict[str, Any]:
    if reuse_native(part, lambda native: decode_tool_call(native, "")):
        return part.native  # type: ignore[no-any-return]
    base = part.native if isinstance(part.native, dict) else {}
    kind = part.tool_type if part.tool_type in ("function", "custom") else "function"
    body_key = "custom" if kind == "custom" else "function"
    found = base.get(body_key)
    body: dict[str, Any] = found if isinstance(found, dict) else {}
    args_key = "input" if kind == "custom" else "arguments"
    new_body = rebuild(body, {"name": part.name, args_key: _encode_arguments(part.arguments)})
    return rebuild(base, {"id": part.call_id or "", "type": kind, body_key: new_body})


def _encode_function_call(part: ToolCallPart) -> dict[str, Any]:
    if reuse_native(part, lambda native: decode_function_call(native, "")):
        return part.native  # type: ignore[no-any-return]
    base = part.native if isinstance(part.native, dict) else {}
    return rebuild(base, {"name": part.name, "arguments": _encode_arguments(part.arguments)})


def _result_content(part: ToolResultPart) -> Any:
    """Tool message content is a string or a list of parts; other values (a result read
    from another format) are written as their JSON text."""
    content = part.content
    if part.native is None and not isinstance(content, str | list) and content is not None:
        return orjson.dumps(content).decode("utf-8")
    return content


def _encode_result(message: Message, part: ToolResultPart) -> dict[str, Any]:
    base = message.native if isinstance(message.native, dict) else {}
    updates: dict[str, Any]
    legacy = part.slot == "function" or (part.tool_type or "").casefold() == "function"
    if part.call_id is None and legacy:
        updates = {"role": message.role if message.role_is("function") else "function"}
        updates |= {"name": part.name, "content": _result_content(part)}
    else:
        role = message.role if message.role_is("tool") else "tool"
        updates = {
            "role": role,
            "tool_call_id": part.call_id or "",
            "content": _result_content(part),
        }
        updates["name"] = part.name if part.name is not None else _null_or_missing(base, "name")
    return rebuild(base, updates)


def _null_or_missing(base: dict[str, Any], key: str) -> Any:
    """Keep a key the input had as null; otherwise leave it out."""
    return None if key in base and base[key] is None else MISSING


def _encode_content(message: Message, base: dict[str, Any]) -> Any:
    items = [
        p
        for p in message.parts
        if p.slot in _CONTENT_SLOTS or (p.native is None and isinstance(p, TextPart | MediaPart))
    ]
    if not items:
        current = base.get("content", MISSING)
        if current is MISSING and base:
            return MISSING
        return None if message.role_is("assistant") or current is None else []
    only = items[0]
    if (
        len(items) == 1
        and isinstance(only, TextPart)
        and (
            only.slot == "content"
            or (only.native is None and not isinstance(base.get("content"), list))
        )
    ):
        return only.text
    return [_encode_content_item(p) for p in items]


def encode_message(message: Message) -> list[dict[str, Any]]:
    """Encode one message; tool results become `tool` messages of their own, placed before
    or after the rest of the message as they were ordered in it."""
    if reuse_native(message, decode_message):
        return [message.native]
    results = [p for p in message.parts if isinstance(p, ToolResultPart)]
    others = [p for p in message.parts if not isinstance(p, ToolResultPart)]
    if results and not others:
        first = _encode_result(message, results[0])
        return [first] + [_encode_result(message.evolve(native=None), r) for r in results[1:]]
    base = message.native if isinstance(message.native, dict) else {}
    if results:  # results inside a non-tool message: written as tool messages beside it
        base = {k: v for k, v in base.items() if k != "tool_call_id"}
    calls = [p for p in others if isinstance(p, ToolCallPart) and p.slot != "function_call"]
    legacy = next(
        (p for p in others if isinstance(p, ToolCallPart) and p.slot == "function_call"), None
    )
    refusal = next(
        (
            p
            for p in others
            if isinstance(p, RefusalPart) and (p.slot == "refusal" or p.native is None)
        ),
        None,
    )
    audio = next((p for p in others if p.slot == "audio"), None)
    leftover = [
        p
        for p in others
        if p.slot not in _CONTENT_SLOTS | {"refusal", "tool_calls", "function_call", "audio"}
        and not (
            p.native is None and isinstance(p, TextPart | MediaPart | ToolCallPart | RefusalPart)
        )
    ]
    if leftover:
        raise HistnormError(f"a {leftover[0].kind} part cannot be written as OpenAI Chat")
    role = message.role if not message.role_is("tool", "function") else "assistant"
    updates: dict[str, Any] = {"role": role, "content": _encode_content(message, base)}
    name = message.author_name
    updates["name"] = name if name is not None else _null_or_missing(base, "name")
    if refusal is not None or "refusal" in base:
        updates["refusal"] = refusal.text if refusal is not None else None
    updates["audio"] = audio.native if audio is not None else _null_or_missing(base, "audio")
    updates["tool_calls"] = (
        [_encode_tool_call(c) for c in calls] if calls else _null_or_missing(base, "tool_calls")
    )
    updates["function_call"] = (
        _encode_function_call(legacy)
        if legacy is not None
        else _null_or_missing(base, "function_call")
    )
    empty = message.evolve(native=None)
    lead: list[ToolResultPart] = []
    for part in message.parts:
        if not isinstance(part, ToolResultPart):
            break
        lead.append(part)
    trailing = results[len(lead) :]
    return (
        [_encode_result(empty, r) for r in lead]
        + [rebuild(base, updates)]
        + [_encode_result(empty, r) for r in trailing]
    )


class OpenAIChatCodec(MessageListCodec):
    """OpenAI Chat Completions messages, fine-tuning lines and request bodies."""

    name = "openai-chat"
    summary = "OpenAI Chat Completions messages, fine-tuning JSONL lines and request bodies"

    def read_message(self, obj: Any, pointer: str) -> Message:
        """Decode one native message."""
        return decode_message(obj, pointer)

    def sniff(self, data: JsonValue) -> float:
        """Likely when messages have `role` and Chat-style `content`, `tool_calls` or ids."""
        messages = messages_sniff(data, "messages")
        if not messages or not all(isinstance(m, dict) for m in messages):
            return 0.0
        if isinstance(data, dict) and "system" in data:
            return 0.0  # a top-level system prompt is Anthropic's request shape
        score = 0.0
        for msg in messages[:50]:
            if "role" not in msg or "contents" in msg or "parts" in msg or "type" in msg:
                return 0.0
            content = msg.get("content")
            if isinstance(content, list) and any(
                isinstance(c, dict) and _foreign_part(c.get("type")) for c in content
            ):
                return 0.0
            if "tool_calls" in msg or "tool_call_id" in msg or "function_call" in msg:
                score = max(score, 0.9)
            else:
                score = max(score, 0.5)
        return score

    def encode(self, transcript: Transcript) -> JsonValue:
        """Encode to the native shape the transcript was read from."""
        out: list[dict[str, Any]] = []
        for message in transcript.messages:
            out.extend(encode_message(message))
        return join_envelope(transcript, "messages", out)

    def part_pointer(self, transcript: Transcript, message_index: int, part_index: int) -> str:
        """Point at the content item, tool call, refusal or function call holding the part."""
        message = transcript.messages[message_index]
        at = self.message_pointer(transcript, message_index)
        part = message.parts[part_index]
        if part.slot in ("content[]", "tool_calls"):
            key = "content" if part.slot == "content[]" else "tool_calls"
            return join_pointer(at, key, first_index(message, part_index, part.slot))
        if part.slot in ("content", "refusal", "function_call", "audio"):
            return join_pointer(at, part.slot)
        return at
