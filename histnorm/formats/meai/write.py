"""Writing Microsoft.Extensions.AI `ChatMessage` JSON in the casing it was read in."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson

from histnorm.errors import HistnormError
from histnorm.formats.base import (
    rebuild,
    reuse_native,
)
from histnorm.formats.meai.keys import (
    _CALLS,
    _OLD_APPROVALS,
    _RESULTS,
    TYPE_KEY,
    _is_pascal,
    _metadata_value,
    _styled,
    find_key,
)
from histnorm.formats.meai.read import decode_content, decode_message, decode_nested_call
from histnorm.lazy import model
from histnorm.model_terms import ToolFamily

if TYPE_CHECKING:
    from histnorm.model import (
        ApprovalRequestPart,
        ApprovalResponsePart,
        Message,
        Part,
        ToolCallPart,
        ToolResultPart,
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
    if isinstance(part, model.ToolCallPart | model.ToolResultPart):
        _check_kind(part)
    values: dict[str, Any] = {}
    if part.metadata or find_key(base, "additionalProperties"):
        values["additionalProperties"] = _metadata_value(part.metadata, base)
    if isinstance(part, model.TextPart):
        kind, values = "text", {"text": part.text, **values}
    elif isinstance(part, model.ReasoningPart):
        kind, values = "reasoning", {"text": part.text, **values}
        if part.opaque is not None or find_key(base, "protectedData"):
            values["protectedData"] = part.opaque
    elif isinstance(part, model.ToolCallPart):
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
    elif isinstance(part, model.ToolResultPart):
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
    elif isinstance(part, model.ApprovalRequestPart | model.ApprovalResponsePart):
        kind, values = _encode_approval(part, base, pascal, values)
    elif isinstance(part, model.MediaPart):
        kind = base.get(
            TYPE_KEY, "uri" if part.uri and not part.uri.startswith("data:") else "data"
        )
        values = {"uri": part.uri, **values}
        in_uri = bool(part.uri) and str(part.uri).startswith(f"data:{part.media_type}")
        if part.media_type is not None and (
            kind != "data" or find_key(base, "mediaType") or not in_uri
        ):
            values["mediaType"] = part.media_type
    elif isinstance(part, model.UsagePart):
        kind, values = "usage", {"details": part.details, **values}
    elif isinstance(base.get(TYPE_KEY), str):
        kind = base[TYPE_KEY]
    elif part.native is not None:
        return part.native
    else:
        raise HistnormError(f"a {part.kind} part cannot be written as MEAI content")
    return _with_type(kind, rebuild(base, _updates(base, pascal, values)))


def _check_kind(part: ToolCallPart | ToolResultPart) -> None:
    """Refuse a server-side tool call or result MEAI has no content kind for: written as a
    function call, `FunctionInvokingChatClient` would run it and the OpenAI client would
    drop its result from the assistant message."""
    kinds = _CALLS if isinstance(part, model.ToolCallPart) else _RESULTS
    if part.family is not ToolFamily.HOSTED or part.tool_type is None or part.tool_type in kinds:
        return  # a part histnorm made itself (a synthesized result) has no foreign kind
    what = "call" if isinstance(part, model.ToolCallPart) else "result"
    tool = f" ({part.name})" if part.name else ""
    raise HistnormError(
        f"server-side tool {what} {part.call_id!r}{tool} of type {part.tool_type!r} cannot "
        "be written as MEAI content: it is not one of MEAI's server-side tool kinds"
    )


def _encode_approval(
    part: ApprovalRequestPart | ApprovalResponsePart,
    base: dict[str, Any],
    pascal: bool,
    values: dict[str, Any],
) -> tuple[str, dict[str, Any]]:
    request = isinstance(part, model.ApprovalRequestPart)
    default = "toolApprovalRequest" if request else "toolApprovalResponse"
    kind = base.get(TYPE_KEY, default)
    old = kind in _OLD_APPROVALS
    head: dict[str, Any] = {("id" if old else "requestId"): part.request_id}
    if isinstance(part, model.ApprovalResponsePart):
        head["approved"] = part.approved
    if part.tool_call is not None:
        head["functionCall" if old else "toolCall"] = _encode_nested_call(part.tool_call, pascal)
    if isinstance(part, model.ApprovalRequestPart):
        if not part.requires_confirmation or find_key(base, "requiresConfirmation"):
            head["requiresConfirmation"] = part.requires_confirmation
    elif part.reason is not None or find_key(base, "reason"):
        head["reason"] = part.reason
    return kind, {**head, **values}


def _encode_nested_call(part: ToolCallPart, pascal: bool) -> Any:
    """The call an approval wraps, without `$type` when it was read without one (the
    pre-2026 shape System.Text.Json writes for a property typed as the derived class)."""
    base = part.native if isinstance(part.native, dict) else None
    if base is None or TYPE_KEY in base:
        return encode_content(part, pascal)
    if reuse_native(part, decode_nested_call):
        return part.native
    return {k: v for k, v in encode_content(part, pascal).items() if k != TYPE_KEY}


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
