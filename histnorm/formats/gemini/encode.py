"""Writing canonical parts back as Gemini `Part` objects.

Private helper of `histnorm.formats.gemini`. A changed part is rebuilt from its native
object, so unknown fields and a `thoughtSignature` keep their place and fields keep their
spelling; a new part is spelled in the document's dominant style.
"""

from __future__ import annotations

import base64
from dataclasses import field
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote_to_bytes

import orjson

import histnorm.jsonio as jsonio
from histnorm._record import record
from histnorm.errors import HistnormError
from histnorm.formats.base import MISSING, rebuild, reuse_native
from histnorm.formats.gemini.parts import (
    CODE_EXECUTION,
    FAILED_OUTCOMES,
    data_key,
    decode_part,
    find_key,
    get,
    is_snake,
    spell,
)
from histnorm.lazy import model
from histnorm.model_terms import ToolFamily
from histnorm.pairing import group

if TYPE_CHECKING:
    from histnorm.model import MediaPart, Message, Part, ReasoningPart, ToolCallPart, ToolResultPart

_CLIENT = (ToolFamily.FUNCTION, ToolFamily.CUSTOM, ToolFamily.HANDOFF)


@record
class Context:
    """What encoding needs from the rest of the transcript."""

    snake: bool = False
    """The document's dominant case style, used for new objects."""
    calls: dict[tuple[bool, str], ToolCallPart] = field(default_factory=dict)
    """The latest call seen so far by (hosted?, call id): names and types new results."""

    def record(self, part: Part) -> None:
        """Remember `part` if it is a call with an id."""
        if isinstance(part, model.ToolCallPart) and part.call_id is not None:
            self.calls[part.family is ToolFamily.HOSTED, part.call_id] = part

    def call_for(self, result: ToolResultPart) -> ToolCallPart | None:
        """The latest call seen so far with the id of `result`, in its family group."""
        if result.call_id is None:
            return None
        return self.calls.get((result.family is ToolFamily.HOSTED, result.call_id))


def _kept_or_missing(obj: dict[str, Any], name: str, value: Any) -> Any:
    """`value`; for None, a null the object had, else MISSING (leave the field out)."""
    if value is not None:
        return value
    key = find_key(obj, name)
    return None if key is not None and obj[key] is None else MISSING


def _set(obj: dict[str, Any], snake: bool, values: dict[str, Any]) -> dict[str, Any]:
    """`obj` with the fields in `values` set, spelled as `obj` spells them (new: `snake`).

    A None value deletes the field unless `obj` holds it as null; MISSING deletes it."""
    updates: dict[str, Any] = {}
    for name, value in values.items():
        key = find_key(obj, name) or spell(name, snake)
        updates[key] = value if value is MISSING else _kept_or_missing(obj, name, value)
    return rebuild(obj, updates)


def _with_data(
    base: dict[str, Any], name: str, value: Any, snake: bool, extra: dict[str, Any] | None = None
) -> dict[str, Any]:
    """`base` with its data field replaced by field `name` set to `value`."""
    updates: dict[str, Any] = {}
    found = data_key(base)
    if found is not None and found[0] != name:
        updates[found[1]] = MISSING
    updates[find_key(base, name) or spell(name, snake)] = value
    out = rebuild(base, updates)
    return _set(out, snake, extra) if extra else out


def _body(base: dict[str, Any], name: str) -> dict[str, Any]:
    value = get(base, name)
    return value if isinstance(value, dict) else {}


def _arguments(arguments: Any) -> Any:
    """Gemini `args` are an object: a JSON-encoded object string is parsed into one, and a
    blank string (no arguments) is left out."""
    if isinstance(arguments, str) and not arguments.strip():
        return None
    if isinstance(arguments, str):
        try:
            parsed = orjson.loads(arguments)
        except orjson.JSONDecodeError:
            return arguments
        return parsed if isinstance(parsed, dict) else arguments
    return arguments


def _split_data_uri(uri: str) -> tuple[str | None, str]:
    header, _, payload = uri[5:].partition(",")
    mime = header.split(";", 1)[0] or None
    if header.endswith(";base64"):
        return mime, payload
    return mime, base64.b64encode(unquote_to_bytes(payload)).decode("ascii")


def _media(part: MediaPart, base: dict[str, Any], snake: bool) -> dict[str, Any]:
    uri = part.uri
    if not uri:
        raise HistnormError("a media part without a URI cannot be written as Gemini content")
    if uri.startswith("data:"):
        mime, data = _split_data_uri(uri)
        values = {"mimeType": part.media_type or mime, "data": data}
        return _with_data(base, "inlineData", _set(_body(base, "inlineData"), snake, values), snake)
    values = {"mimeType": part.media_type, "fileUri": uri}
    return _with_data(base, "fileData", _set(_body(base, "fileData"), snake, values), snake)


def _target(
    part: ToolCallPart | ToolResultPart, base: dict[str, Any], names: tuple[str, str, str]
) -> str:
    """Which data field a call (`names` = function, hosted, code) or result is written as."""
    found = data_key(base)
    if found is not None and found[0] in names:
        return found[0]
    function, hosted, code = names
    if part.family is not ToolFamily.HOSTED:
        return function
    if group(part) == "hosted:" + CODE_EXECUTION:
        return code
    return code if part.call_id is None and part.tool_type in (None, "function") else hosted


def _call(part: ToolCallPart, base: dict[str, Any], snake: bool) -> dict[str, Any]:
    target = _target(part, base, ("functionCall", "toolCall", "executableCode"))
    body = _body(base, target)
    values: dict[str, Any]
    if target == "executableCode":
        values = {"language": get(body, "language") or "PYTHON", "code": part.arguments}
    elif target == "toolCall":
        values = {"id": part.call_id, "toolType": part.tool_type, "args": part.arguments}
    else:
        values = {"id": part.call_id, "name": part.name, "args": _arguments(part.arguments)}
    return _with_data(base, target, _set(body, snake, values), snake)


def _result(
    part: ToolResultPart, base: dict[str, Any], snake: bool, ctx: Context
) -> dict[str, Any]:
    call = ctx.call_for(part)
    if (
        part.native is None
        and call is not None
        and call.family is part.family
        and (part.tool_type in (None, "function") or group(part) == group(call))
    ):
        part = part.evolve(tool_type=call.tool_type)
    target = _target(part, base, ("functionResponse", "toolResponse", "codeExecutionResult"))
    body = _body(base, target)
    values: dict[str, Any]
    if target == "codeExecutionResult":
        outcome = get(body, "outcome")
        failed = isinstance(outcome, str) and outcome.upper() in FAILED_OUTCOMES
        content = part.content
        if not body and not isinstance(content, str | None):
            content = jsonio.dumps(content).decode("utf-8")
        keep = bool(body) and failed == part.is_error
        values = {"outcome": outcome if keep else _outcome(part.is_error), "output": content}
    elif target == "toolResponse":
        tool_type = part.tool_type if body else group(part).removeprefix("hosted:") or None
        values = {"id": part.call_id, "toolType": tool_type, "response": part.content}
    else:
        name = part.name if part.name is not None else (call.name if call is not None else None)
        response = part.content
        if not body:
            response = {("error" if part.is_error else "output"): part.content}
        values = {"id": part.call_id, "name": name, "response": response}
    return _with_data(base, target, _set(body, snake, values), snake)


def _outcome(is_error: bool) -> str:
    return "OUTCOME_FAILED" if is_error else "OUTCOME_OK"


def _reasoning(part: ReasoningPart, base: dict[str, Any], snake: bool) -> dict[str, Any]:
    implicit = part.opaque is not None and not (part.text or "").strip()
    values: dict[str, Any] = {}
    if not implicit or find_key(base, "thought") is not None:
        values["thought"] = True
    values["thoughtSignature"] = MISSING if part.opaque is None else part.opaque
    if part.text is None:
        found = data_key(base)
        out = rebuild(base, {found[1]: MISSING}) if found else dict(base)
        return _set(out, snake, values)
    return _with_data(base, "text", part.text, snake, values)


def encode_part(part: Part, ctx: Context) -> Any:
    """Encode one part as a Gemini `Part`, spelled as its native object (new: as the document)."""
    if reuse_native(part, decode_part):
        return part.native
    base = part.native if isinstance(part.native, dict) else {}
    snake = is_snake(base, ctx.snake)
    if isinstance(part, model.TextPart):
        extra = {"thought": MISSING} if find_key(base, "thought") is not None else None
        return _with_data(base, "text", part.text, snake, extra)
    if isinstance(part, model.ReasoningPart):
        return _reasoning(part, base, snake)
    if isinstance(part, model.MediaPart):
        return _media(part, base, snake)
    if isinstance(part, model.ToolCallPart):
        return _call(part, base, snake)
    if isinstance(part, model.ToolResultPart):
        return _result(part, base, snake, ctx)
    if isinstance(part, model.UnknownPart) and part.native is not None:
        return part.native
    raise HistnormError(f"a {part.kind} part cannot be written as Gemini content")


def split_mcp_results(message: Message) -> list[Message]:
    """`message`, with each MCP result it holds cut out into a user turn of its own.

    Gemini has no server-side MCP part: google-genai's MCP support sends an MCP tool call
    as a `functionCall` and its result as a `functionResponse` in the next user turn, so
    a model message holding both is written that way (the parts keep their order). A
    function call before the result that is not answered there cannot be kept answered."""
    if not message.role_is("model", "assistant"):
        return [message]
    out: list[Message] = []
    run: list[Part] = []
    results: list[Part] = []
    for part in [*message.parts, None]:
        if isinstance(part, model.ToolResultPart) and part.family is ToolFamily.MCP:
            results.append(part)
            continue
        if results:
            if run:
                out.append(_run(message, run, first=not out, closed=True))
            out.append(model.Message(role="user", parts=tuple(results)))
            run, results = [], []
        if part is not None:
            run.append(part)
    if not out:
        return [message]
    if run:
        out.append(_run(message, run, first=False, closed=False))
    return out


def _run(message: Message, parts: list[Part], *, first: bool, closed: bool) -> Message:
    """A model turn cut from `message`; one `closed` by MCP results may hold no open call."""
    answered = {p.call_id for p in parts if isinstance(p, model.ToolResultPart)}
    for part in parts if closed else ():
        if (
            isinstance(part, model.ToolCallPart)
            and part.family in _CLIENT
            and (part.call_id is None or part.call_id not in answered)
        ):
            raise HistnormError(
                f"an MCP tool result cannot be written in Gemini contents after the open "
                f"function call {part.call_id or part.name!r} of its model turn"
            )
    if first:
        result: Message = message.evolve(parts=tuple(parts))
        return result
    return model.Message(role=message.role, parts=tuple(parts), metadata=message.metadata)
