"""Microsoft.Extensions.AI `ChatMessage` JSON, as Microsoft Agent Framework stores it.

Contents carry a `$type` discriminator. Property names are read case-insensitively
(camelCase from the MEAI defaults, PascalCase from stores that use plain serializer
options) and written back in the casing of the object they came from. Both approval
generations are read: `toolApprovalRequest` (`requestId`, `toolCall`) and the older
`functionApprovalRequest` (`id`, `functionCall`). Every part sits in slot `contents`.
"""

from __future__ import annotations

from typing import Any

import orjson

from histnorm.errors import HistnormError, join_pointer
from histnorm.formats.base import (
    MISSING,
    MessageListCodec,
    expect_object,
    join_envelope,
    messages_sniff,
    optional_str,
    rebuild,
    required_str,
    reuse_native,
    type_name,
)
from histnorm.model import (
    ApprovalRequestPart,
    ApprovalResponsePart,
    JsonValue,
    MediaPart,
    Message,
    Part,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolFamily,
    ToolResultPart,
    Transcript,
    UnknownPart,
    UsagePart,
)

TYPE_KEY = "$type"
HANDOFF_PREFIX = "handoff_to_"
_CALLS = {
    "functionCall": ToolFamily.FUNCTION,
    "toolCall": ToolFamily.FUNCTION,
    "mcpServerToolCall": ToolFamily.MCP,
    "codeInterpreterToolCall": ToolFamily.HOSTED,
    "imageGenerationToolCall": ToolFamily.HOSTED,
    "webSearchToolCall": ToolFamily.HOSTED,
}
_RESULTS = {
    "functionResult": ToolFamily.FUNCTION,
    "toolResult": ToolFamily.FUNCTION,
    "mcpServerToolResult": ToolFamily.MCP,
    "codeInterpreterToolResult": ToolFamily.HOSTED,
    "imageGenerationToolResult": ToolFamily.HOSTED,
    "webSearchToolResult": ToolFamily.HOSTED,
}
_REQUESTS = {
    "toolApprovalRequest",
    "functionApprovalRequest",
    "inputRequest",
    "userInputRequest",
    "mcpServerToolApprovalRequest",
}
_RESPONSES = {
    "toolApprovalResponse",
    "functionApprovalResponse",
    "inputResponse",
    "userInputResponse",
    "mcpServerToolApprovalResponse",
}
_MEDIA = {"data", "uri", "hostedFile", "hostedVectorStore"}
_OLD_APPROVALS = {
    "functionApprovalRequest",
    "functionApprovalResponse",
    "userInputRequest",
    "userInputResponse",
}


def find_key(obj: dict[str, Any], name: str) -> str | None:
    """The key of `obj` that matches `name` ignoring case, if any."""
    if name in obj:
        return name
    folded = name.casefold()
    return next((k for k in obj if k.casefold() == folded), None)


def get_key(obj: dict[str, Any], name: str) -> Any:
    """The value of the property `name` of `obj`, matched ignoring case (None if absent)."""
    key = find_key(obj, name)
    return None if key is None else obj[key]


_KNOWN = {
    name.casefold()
    for name in (
        "role",
        "contents",
        "authorName",
        "messageId",
        "createdAt",
        "additionalProperties",
        "text",
        "protectedData",
        "callId",
        "name",
        "arguments",
        "result",
        "outputs",
        "serverName",
        "informationalOnly",
        "invocationRequired",
        "requestId",
        "toolCall",
        "functionCall",
        "approved",
        "reason",
        "requiresConfirmation",
        "uri",
        "mediaType",
        "details",
        "message",
        "annotations",
    )
}


def _is_pascal(obj: Any) -> bool:
    """Whether the object spells MEAI's own property names in PascalCase."""
    return isinstance(obj, dict) and any(k[:1].isupper() for k in obj if k.casefold() in _KNOWN)


def _metadata_value(metadata: dict[str, Any], base: dict[str, Any]) -> Any:
    """What to write for `additionalProperties`: the metadata, or the original empty value,
    or MISSING when metadata that was there has been cleared."""
    if metadata:
        return metadata
    original = get_key(base, "additionalProperties")
    return original if not original else MISSING


def _styled(name: str, pascal: bool) -> str:
    return name[:1].upper() + name[1:] if pascal else name


def _metadata(obj: dict[str, Any], pointer: str) -> dict[str, Any]:
    props = get_key(obj, "additionalProperties")
    if props is None:
        return {}
    return dict(
        expect_object(
            props,
            join_pointer(pointer, find_key(obj, "additionalProperties") or ""),
            "additionalProperties",
        )
    )


def _at(pointer: str, obj: dict[str, Any], name: str) -> str:
    return join_pointer(pointer, find_key(obj, name) or name)


def _tool_call(obj: dict[str, Any], kind: str, pointer: str) -> ToolCallPart:
    call_id = required_str(get_key(obj, "callId"), _at(pointer, obj, "callId"), "callId")
    name = optional_str(get_key(obj, "name"), _at(pointer, obj, "name"), "the tool name")
    family = _CALLS[kind]
    if family is ToolFamily.FUNCTION and name and name.startswith(HANDOFF_PREFIX):
        family = ToolFamily.HANDOFF
    informational = get_key(obj, "informationalOnly")
    if informational is None:
        informational = get_key(obj, "invocationRequired") is False
    return ToolCallPart(
        call_id=call_id,
        name=name,
        arguments=get_key(obj, "arguments"),
        family=family,
        tool_type=kind,
        informational=bool(informational),
        native=obj,
        slot="contents",
        metadata=_metadata(obj, pointer),
    )


def _nested_call(obj: dict[str, Any], pointer: str) -> ToolCallPart | None:
    key = find_key(obj, "toolCall") or find_key(obj, "functionCall")
    if key is None or obj[key] is None:
        return None
    part = decode_content(obj[key], join_pointer(pointer, key))
    if not isinstance(part, ToolCallPart):
        raise HistnormError("expected a tool call content", pointer=join_pointer(pointer, key))
    return part


def _request_id(obj: dict[str, Any], pointer: str) -> str:
    key = find_key(obj, "requestId") or find_key(obj, "id") or "requestId"
    return required_str(obj.get(key), join_pointer(pointer, key), "the request id")


def decode_content(obj: Any, pointer: str = "") -> Part:
    """Decode one `AIContent` object."""
    content = expect_object(obj, pointer, "a content item")
    kind = content.get(TYPE_KEY)
    if not isinstance(kind, str):
        kind = None
    meta = _metadata(content, pointer)
    if kind == "text" and isinstance(get_key(content, "text"), str):
        return TextPart(text=get_key(content, "text"), native=obj, slot="contents", metadata=meta)
    if kind == "reasoning":
        text = optional_str(
            get_key(content, "text"), _at(pointer, content, "text"), "reasoning text"
        )
        return ReasoningPart(
            text=text,
            opaque=get_key(content, "protectedData"),
            native=obj,
            slot="contents",
            metadata=meta,
        )
    if kind in _CALLS:
        return _tool_call(content, kind, pointer)
    if kind in _RESULTS:
        call_id = required_str(
            get_key(content, "callId"), _at(pointer, content, "callId"), "callId"
        )
        result_key = "result" if kind in ("functionResult", "toolResult") else "outputs"
        return ToolResultPart(
            call_id=call_id,
            content=get_key(content, result_key),
            family=_RESULTS[kind],
            tool_type=kind,
            native=obj,
            slot="contents",
            metadata=meta,
        )
    if kind in _REQUESTS:
        confirm = get_key(content, "requiresConfirmation")
        return ApprovalRequestPart(
            request_id=_request_id(content, pointer),
            tool_call=_nested_call(content, pointer),
            requires_confirmation=confirm is not False,
            native=obj,
            slot="contents",
            metadata=meta,
        )
    if kind in _RESPONSES:
        approved = get_key(content, "approved")
        reason = optional_str(get_key(content, "reason"), _at(pointer, content, "reason"), "reason")
        return ApprovalResponsePart(
            request_id=_request_id(content, pointer),
            approved=approved if isinstance(approved, bool) else None,
            tool_call=_nested_call(content, pointer),
            reason=reason,
            native=obj,
            slot="contents",
            metadata=meta,
        )
    if kind in _MEDIA:
        uri = get_key(content, "uri")
        media_type = get_key(content, "mediaType")
        if media_type is None and isinstance(uri, str) and uri.startswith("data:"):
            media_type = uri[5:].split(";", 1)[0].split(",", 1)[0] or None
        return MediaPart(
            media_type=media_type if isinstance(media_type, str) else None,
            uri=uri if isinstance(uri, str) else None,
            native=obj,
            slot="contents",
            metadata=meta,
        )
    if kind == "usage":
        return UsagePart(
            details=get_key(content, "details"), native=obj, slot="contents", metadata=meta
        )
    return UnknownPart(
        type=kind if isinstance(kind, str) else None, native=obj, slot="contents", metadata=meta
    )


def decode_message(obj: Any, pointer: str = "") -> Message:
    """Decode one `ChatMessage` object."""
    msg = expect_object(obj, pointer, "a message")
    role = required_str(get_key(msg, "role"), _at(pointer, msg, "role"), "the message role")
    contents = get_key(msg, "contents")
    contents_at = _at(pointer, msg, "contents")
    if find_key(msg, "contents") is None:
        foreign = next(
            (k for k in ("content", "tool_calls", "tool_call_id", "parts") if k in msg), None
        )
        if foreign is not None:
            raise HistnormError(
                f'not a Microsoft.Extensions.AI message: it has "{foreign}" and no "contents"',
                pointer=join_pointer(pointer, foreign),
            )
    if contents is not None and not isinstance(contents, list):
        raise HistnormError(
            f"expected contents to be an array, got {type_name(contents)}", pointer=contents_at
        )
    parts = tuple(
        decode_content(c, join_pointer(contents_at, i)) for i, c in enumerate(contents or ())
    )
    return Message(
        role=role,
        id=optional_str(get_key(msg, "messageId"), _at(pointer, msg, "messageId"), "messageId"),
        author_name=optional_str(
            get_key(msg, "authorName"), _at(pointer, msg, "authorName"), "authorName"
        ),
        parts=parts,
        metadata=_metadata(msg, pointer),
        native=obj,
    )


def _updates(base: dict[str, Any], pascal: bool, values: dict[str, Any]) -> dict[str, Any]:
    """Map canonical property names onto the keys `base` spells them with.

    A null for a key `base` does not have is left out, as MEAI's serializer does."""
    out = {}
    for name, value in values.items():
        key = find_key(base, name)
        if key is None and value is None:
            continue
        out[key or _styled(name, pascal)] = value
    return out


def _arguments(arguments: Any) -> Any:
    """MEAI arguments are a JSON object; a JSON-encoded object string is parsed into one."""
    if isinstance(arguments, str):
        try:
            parsed = orjson.loads(arguments)
        except orjson.JSONDecodeError:
            return arguments
        return parsed if isinstance(parsed, dict) else arguments
    return arguments


def _with_type(kind: str, body: dict[str, Any]) -> dict[str, Any]:
    return {TYPE_KEY: kind, **{k: v for k, v in body.items() if k != TYPE_KEY}}


def encode_content(part: Part, pascal: bool = False) -> Any:
    """Encode one part as an `AIContent` object."""
    if reuse_native(part, decode_content):
        return part.native
    base = part.native if isinstance(part.native, dict) else {}
    pascal = _is_pascal(base) if base else pascal
    values: dict[str, Any] = {}
    if part.metadata or find_key(base, "additionalProperties"):
        values["additionalProperties"] = _metadata_value(part.metadata, base)
    if isinstance(part, TextPart):
        kind, values = "text", {"text": part.text, **values}
    elif isinstance(part, ReasoningPart):
        kind, values = "reasoning", {"text": part.text, **values}
        if part.opaque is not None or find_key(base, "protectedData"):
            values["protectedData"] = part.opaque
    elif isinstance(part, ToolCallPart):
        kind = (
            part.tool_type
            if part.tool_type in _CALLS
            else ("mcpServerToolCall" if part.family is ToolFamily.MCP else "functionCall")
        )
        values = {
            "callId": part.call_id or "",
            "name": part.name,
            "arguments": _arguments(part.arguments),
            **values,
        }
        if find_key(base, "invocationRequired"):
            values["invocationRequired"] = not part.informational
        elif part.informational or find_key(base, "informationalOnly"):
            values["informationalOnly"] = part.informational
    elif isinstance(part, ToolResultPart):
        kind = (
            part.tool_type
            if part.tool_type in _RESULTS
            else ("mcpServerToolResult" if part.family is ToolFamily.MCP else "functionResult")
        )
        key = "result" if kind in ("functionResult", "toolResult") else "outputs"
        content = part.content
        if key == "outputs" and isinstance(content, str) and not base:
            content = [{TYPE_KEY: "text", _styled("text", pascal): content}]
        values = {"callId": part.call_id or "", key: content, **values}
    elif isinstance(part, ApprovalRequestPart | ApprovalResponsePart):
        kind, values = _encode_approval(part, base, pascal, values)
    elif isinstance(part, MediaPart):
        kind = base.get(
            TYPE_KEY, "uri" if part.uri and not part.uri.startswith("data:") else "data"
        )
        values = {"uri": part.uri, **values}
        in_uri = bool(part.uri) and str(part.uri).startswith(f"data:{part.media_type}")
        if part.media_type is not None and (
            kind != "data" or find_key(base, "mediaType") or not in_uri
        ):
            values["mediaType"] = part.media_type
    elif isinstance(part, UsagePart):
        kind, values = "usage", {"details": part.details, **values}
    elif isinstance(base.get(TYPE_KEY), str):
        kind = base[TYPE_KEY]
    elif part.native is not None:
        return part.native
    else:
        raise HistnormError(f"a {part.kind} part cannot be written as MEAI content")
    return _with_type(kind, rebuild(base, _updates(base, pascal, values)))


def _encode_approval(
    part: ApprovalRequestPart | ApprovalResponsePart,
    base: dict[str, Any],
    pascal: bool,
    values: dict[str, Any],
) -> tuple[str, dict[str, Any]]:
    request = isinstance(part, ApprovalRequestPart)
    default = "toolApprovalRequest" if request else "toolApprovalResponse"
    kind = base.get(TYPE_KEY, default)
    old = kind in _OLD_APPROVALS
    head: dict[str, Any] = {("id" if old else "requestId"): part.request_id}
    if isinstance(part, ApprovalResponsePart):
        head["approved"] = part.approved
    if part.tool_call is not None:
        head["functionCall" if old else "toolCall"] = encode_content(part.tool_call, pascal)
    if isinstance(part, ApprovalRequestPart):
        if not part.requires_confirmation or find_key(base, "requiresConfirmation"):
            head["requiresConfirmation"] = part.requires_confirmation
    elif part.reason is not None or find_key(base, "reason"):
        head["reason"] = part.reason
    return kind, {**head, **values}


def encode_message(message: Message, pascal: bool = False) -> Any:
    """Encode one message as a `ChatMessage` object."""
    if reuse_native(message, decode_message):
        return message.native
    base = message.native if isinstance(message.native, dict) else {}
    pascal = _is_pascal(base) if base else pascal
    values: dict[str, Any] = {
        "role": message.role,
        "contents": [encode_content(p, pascal) for p in message.parts],
    }
    for name, value in (("authorName", message.author_name), ("messageId", message.id)):
        if value is not None or find_key(base, name):
            values[name] = value
    if message.metadata or find_key(base, "additionalProperties"):
        values["additionalProperties"] = _metadata_value(message.metadata, base)
    return rebuild(base, _updates(base, pascal, values))


class MeaiCodec(MessageListCodec):
    """Microsoft.Extensions.AI ChatMessage lists (camelCase or PascalCase)."""

    name = "meai"
    summary = "Microsoft.Extensions.AI ChatMessage JSON as stored by Agent Framework"
    message_noun = "ChatMessage objects"

    def read_message(self, obj: Any, pointer: str) -> Message:
        """Decode one native message."""
        return decode_message(obj, pointer)

    def sniff(self, data: JsonValue) -> float:
        """Likely when messages hold `contents` arrays of `$type` objects."""
        messages = messages_sniff(data, "messages")
        if not messages or not all(isinstance(m, dict) for m in messages):
            return 0.0
        score = 0.0
        for msg in messages[:50]:
            if find_key(msg, "role") is None or msg.get("type") in ("message", "chat_message"):
                return 0.0  # Agent Framework's Python form tags messages with "type"
            contents = get_key(msg, "contents")
            if isinstance(contents, list) and any(
                isinstance(c, dict) and TYPE_KEY in c for c in contents
            ):
                score = 0.95
            elif find_key(msg, "contents") is not None:
                score = max(score, 0.6)
        return score

    def encode(self, transcript: Transcript) -> JsonValue:
        """Encode in the casing each message was read in (new messages follow the transcript)."""
        pascal = any(_is_pascal(m.native) for m in transcript.messages)
        messages = [encode_message(m, pascal) for m in transcript.messages]
        return join_envelope(transcript, "messages", messages)

    def part_pointer(self, transcript: Transcript, message_index: int, part_index: int) -> str:
        """`.../contents/K` (or `Contents`, as the message spells it)."""
        message = transcript.messages[message_index]
        key = "contents"
        if isinstance(message.native, dict):
            key = find_key(message.native, "contents") or key
        return join_pointer(self.message_pointer(transcript, message_index), key, part_index)
