"""Writing parts back as the content blocks of Claude Code lines, for
`histnorm.formats.claude_code.encode`.

`encode_block` gives an unchanged part back as its native block and rebuilds a changed one
from it; `encode_content` writes a line's `message.content`, `new_line` a whole new session
line, `role_type` the line type a message role is written as
names new server-tool results after their calls. Reading blocks, the slot helpers and the
block-type tables are in `histnorm.formats.claude_code.blocks`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson

from histnorm.errors import HistnormError
from histnorm.formats.anthropic.blocks import new_media_block
from histnorm.formats.base import MISSING, rebuild, reuse_native
from histnorm.formats.claude_code.blocks import (
    _RESULTS,
    RESULT_SUFFIX,
    decode_block,
    parse_slot,
)
from histnorm.lazy import model
from histnorm.model_terms import ToolFamily

if TYPE_CHECKING:
    from histnorm.model import MediaPart, Part, ToolResultPart


def _input(arguments: Any) -> Any:
    """`input` for a new tool_use block: an object; a JSON object string is parsed."""
    if arguments is None:
        return {}
    if isinstance(arguments, str):
        try:
            parsed = orjson.loads(arguments)
        except orjson.JSONDecodeError:
            return arguments
        return parsed if isinstance(parsed, dict) else arguments
    return arguments


def _kept(base: dict[str, Any], key: str, value: Any) -> Any:
    """`value`, or MISSING when it is None and `base` never had the key."""
    return MISSING if value is None and key not in base else value


def encode_block(part: Part) -> Any:
    """Encode one part as a content block (unchanged parts give back their native block)."""
    if reuse_native(part, lambda native: decode_block(native, part.slot)):
        return part.native
    base = part.native if isinstance(part.native, dict) else {}
    kind = base.get("type")
    if isinstance(part, model.TextPart):
        return rebuild(base, {"type": "text", "text": part.text})
    if isinstance(part, model.ReasoningPart):
        if kind == "redacted_thinking" or (not base and part.text is None):
            return rebuild(base, {"type": "redacted_thinking", "data": part.opaque})
        updates = {"type": "thinking", "thinking": part.text or ""}
        return rebuild(base, {**updates, "signature": _kept(base, "signature", part.opaque)})
    if isinstance(part, model.ToolCallPart):
        if not isinstance(kind, str):
            kind = {ToolFamily.HOSTED: "server_tool_use", ToolFamily.MCP: "mcp_tool_use"}.get(
                part.family, "tool_use"
            )
        arguments = _kept(base, "input", part.arguments) if base else _input(part.arguments)
        values = {"id": part.call_id or "", "name": _kept(base, "name", part.name)}
        return rebuild(base, {"type": kind, **values, "input": arguments})
    if isinstance(part, model.ToolResultPart):
        if not isinstance(kind, str):
            kind = _result_type(part)
        values = {
            "tool_use_id": part.call_id or "",
            "content": _kept(base, "content", part.content),
        }
        if kind in _RESULTS and (part.is_error or "is_error" in base):
            values["is_error"] = part.is_error
        return rebuild(base, {"type": kind, **values})
    if isinstance(part, model.MediaPart) and (base or part.uri is not None):
        return _encode_media(part, base)
    if part.native is not None:
        return part.native
    raise HistnormError(f"a {part.kind} part cannot be written as a Claude Code content block")


def _result_type(part: ToolResultPart) -> str:
    if part.family is ToolFamily.MCP:
        return "mcp_tool_result"
    if part.family is not ToolFamily.HOSTED:
        return "tool_result"
    if part.name:
        return part.name + RESULT_SUFFIX
    raise HistnormError(
        "a hosted tool_result part without its tool name cannot be written as a Claude Code "
        "content block"
    )


def _encode_media(part: MediaPart, base: dict[str, Any]) -> dict[str, Any]:
    found = base.get("source")
    source: dict[str, Any] = found if isinstance(found, dict) else {}
    uri = part.uri
    if base:
        updates: dict[str, Any] = {}
        if "url" in source or uri is not None:
            updates["url"] = uri
        if "media_type" in source or part.media_type is not None:
            updates["media_type"] = part.media_type
        return rebuild(base, {"source": rebuild(source, updates)})
    return new_media_block(part, "a Claude Code content block")


def role_type(role: str) -> str:
    """The line `type` a message role is written as; raise for roles a session cannot hold."""
    folded = role.casefold()
    if folded == "assistant":
        return "assistant"
    if folded in ("user", "tool", "function"):
        return "user"
    raise HistnormError(f"a {role} message cannot be written as a Claude Code session line")


def encode_content(parts: list[Part], original: Any) -> Any:
    """A line's `message.content` for `parts`: a string when it was one (or the line is a
    new single-text user line), else an array of blocks."""
    if len(parts) == 1 and isinstance(parts[0], model.TextPart):
        parsed = parse_slot(parts[0].slot)
        if (parsed is not None and parsed[1] is None) or (
            parts[0].native is None and isinstance(original, str)
        ):
            return parts[0].text
    return [encode_block(p) for p in parts]


ENVELOPE = (
    "isSidechain",
    "userType",
    "cwd",
    "sessionId",
    "version",
    "gitBranch",
    "agentId",
    "slug",
    "teamName",
    "entrypoint",
    "sessionKind",
)
"""The keys a new line copies from the line it answers, in the order Claude Code writes."""


def new_line(
    kind: str,
    message_id: str | None,
    parts: list[Part],
    uuid: str,
    parent: str | None,
    session_id: str,
    source: Any = None,
) -> dict[str, Any]:
    """A new session line of `kind` (user or assistant) holding `parts`, in the shape
    Claude Code writes: the envelope keys and the `timestamp` of `source` (the line it
    answers), those it lacks left out; `sessionId` always."""
    body: dict[str, Any] = {}
    if kind == "assistant" and message_id is not None:
        body["id"] = message_id
    body["role"] = kind
    body["content"] = encode_content(parts, "" if kind == "user" else None)
    known = source if isinstance(source, dict) else {}
    line: dict[str, Any] = {"parentUuid": parent}
    for key in ENVELOPE:
        if key == "sessionId":
            line[key] = session_id
        elif key in known:
            line[key] = known[key]
    line |= {"type": kind, "message": body, "uuid": uuid}
    if isinstance(known.get("timestamp"), str):
        line["timestamp"] = known["timestamp"]
    return line
