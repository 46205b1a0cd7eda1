"""Gemini `Part` objects: key spelling, decoding into canonical parts and encoding back.

Private helper of `histnorm.formats.gemini`. Field names are matched ignoring case and
underscores (`functionCall` = `function_call`); a null field counts as absent, as in the
SDK's `model_dump()` output. Every part lives in slot `parts`.
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote_to_bytes

import orjson

from histnorm.errors import HistnormError, join_pointer
from histnorm.formats.base import MISSING, expect_object, optional_str, rebuild, reuse_native
from histnorm.model import (
    MediaPart,
    Part,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolFamily,
    ToolResultPart,
    UnknownPart,
)
from histnorm.pairing import group

SLOT = "parts"
HANDOFF_PREFIX = "handoff_to_"
CODE_EXECUTION = "codeExecution"
"""`tool_type` of `executableCode` calls and `codeExecutionResult` results (one pairing group)."""
CODE_EXECUTION_NAME = "code_execution"
DATA_FIELDS = (
    "functionCall",
    "functionResponse",
    "toolCall",
    "toolResponse",
    "executableCode",
    "codeExecutionResult",
    "inlineData",
    "fileData",
    "text",
)
"""The part fields that carry data, in the order that wins when a part sets several."""
_FAILED = {"OUTCOME_FAILED", "OUTCOME_DEADLINE_EXCEEDED"}
_MODIFIERS = {"thought", "thoughtsignature"}
_MULTIWORD = (
    *DATA_FIELDS[:-1],
    "thoughtSignature",
    "mimeType",
    "fileUri",
    "toolType",
    "partialArgs",
    "willContinue",
    "videoMetadata",
    "partMetadata",
    "mediaResolution",
    "displayName",
    "systemInstruction",
    "generationConfig",
    "toolConfig",
    "safetySettings",
    "cachedContent",
)


def norm(key: str) -> str:
    """A field name with case and underscores ignored."""
    return key.replace("_", "").casefold()


_KNOWN = {norm(name) for name in _MULTIWORD}
GEMINI_PART_KEYS = {norm(name) for name in DATA_FIELDS} | _MODIFIERS
"""Normalised part field names that mark a list of parts as Gemini's."""


def find_key(obj: dict[str, Any], name: str) -> str | None:
    """The key of `obj` spelling the field `name` (any case style), preferring a non-null one."""
    if obj.get(name) is not None:
        return name
    target = norm(name)
    matches = [k for k in obj if norm(k) == target]
    return next((k for k in matches if obj[k] is not None), matches[0] if matches else None)


def get(obj: dict[str, Any], name: str) -> Any:
    """The value of field `name` of `obj` (None when absent)."""
    key = find_key(obj, name)
    return None if key is None else obj[key]


def spell(name: str, snake: bool) -> str:
    """`name` (camelCase) in snake_case when `snake`."""
    return re.sub(r"([A-Z])", r"_\1", name).lower() if snake else name


def style_votes(obj: Any, depth: int = 2) -> tuple[int, int]:
    """(snake, camel) counts of Gemini's multi-word field names in `obj`, `depth` levels deep."""
    snake = camel = 0
    if isinstance(obj, list):
        for item in obj:
            s, c = style_votes(item, depth)
            snake, camel = snake + s, camel + c
    elif isinstance(obj, dict):
        for key, value in obj.items():
            if norm(key) in _KNOWN:
                snake += "_" in key
                camel += key != key.lower()
            if depth > 0 and isinstance(value, dict | list):
                s, c = style_votes(value, depth - 1)
                snake, camel = snake + s, camel + c
    return snake, camel


def is_snake(obj: Any, default: bool) -> bool:
    """Whether `obj` spells its field names in snake_case (`default` when it does not tell)."""
    snake, camel = style_votes(obj)
    return default if snake == camel else snake > camel


@dataclass
class Context:
    """What encoding needs from the rest of the transcript."""

    snake: bool = False
    """The document's dominant case style, used for new objects."""
    calls: dict[str, ToolCallPart] = field(default_factory=dict)
    """The latest call seen so far for each call id (names new results)."""


def _family(name: str | None) -> ToolFamily:
    return ToolFamily.HANDOFF if name and name.startswith(HANDOFF_PREFIX) else ToolFamily.FUNCTION


def data_key(obj: dict[str, Any]) -> tuple[str, str] | None:
    """(field name, key as spelled) of the data field a part sets, if any."""
    for name in DATA_FIELDS:
        key = find_key(obj, name)
        if key is not None and obj[key] is not None:
            return name, key
    return None


def _is_error(response: Any) -> bool:
    return isinstance(response, dict) and "error" in response and "output" not in response


def _str(body: dict[str, Any], name: str, at: str, what: str) -> str | None:
    key = find_key(body, name) or name
    return optional_str(body.get(key), join_pointer(at, key), what)


def _data_uri(mime: str | None, data: Any) -> str | None:
    return f"data:{mime or ''};base64,{data}" if isinstance(data, str) else None


def decode_part(obj: Any, pointer: str = "") -> Part:
    """Decode one Gemini `Part` object."""
    part = expect_object(obj, pointer, "a part")
    found = data_key(part)
    signature = get(part, "thoughtSignature")
    thought = get(part, "thought") is True
    if found is None:
        present = [k for k, v in part.items() if v is not None]
        if (
            present
            and all(norm(k) in _MODIFIERS for k in present)
            and (thought or signature is not None)
        ):
            return ReasoningPart(opaque=signature, native=obj, slot=SLOT)
        return UnknownPart(type=present[0] if present else None, native=obj, slot=SLOT)
    name, key = found
    at = join_pointer(pointer, key)
    if name == "text":
        text = part[key]
        if not isinstance(text, str):
            raise HistnormError("expected the text of a part to be a string", pointer=at)
        if thought or (signature is not None and not text.strip()):
            return ReasoningPart(text=text, opaque=signature, native=obj, slot=SLOT)
        return TextPart(text=text, native=obj, slot=SLOT)
    body = expect_object(part[key], at, f"the {key} of a part")
    if name in ("inlineData", "fileData"):
        mime = _str(body, "mimeType", at, "the mime type")
        if name == "inlineData":
            uri = _data_uri(mime, get(body, "data"))
        else:
            uri = _str(body, "fileUri", at, "the file URI")
        return MediaPart(media_type=mime, uri=uri, native=obj, slot=SLOT)
    if name == "executableCode":
        return ToolCallPart(
            call_id=None,
            name=CODE_EXECUTION_NAME,
            arguments=get(body, "code"),
            family=ToolFamily.HOSTED,
            tool_type=CODE_EXECUTION,
            native=obj,
            slot=SLOT,
        )
    if name == "codeExecutionResult":
        outcome = get(body, "outcome")
        return ToolResultPart(
            call_id=None,
            name=CODE_EXECUTION_NAME,
            content=get(body, "output"),
            is_error=isinstance(outcome, str) and outcome.upper() in _FAILED,
            family=ToolFamily.HOSTED,
            tool_type=CODE_EXECUTION,
            native=obj,
            slot=SLOT,
        )
    call_id = _str(body, "id", at, "the call id")
    if name in ("toolCall", "toolResponse"):
        tool_type = _str(body, "toolType", at, "the tool type")
        if name == "toolCall":
            return ToolCallPart(
                call_id=call_id,
                arguments=get(body, "args"),
                family=ToolFamily.HOSTED,
                tool_type=tool_type,
                native=obj,
                slot=SLOT,
            )
        return ToolResultPart(
            call_id=call_id,
            content=get(body, "response"),
            is_error=_is_error(get(body, "response")),
            family=ToolFamily.HOSTED,
            tool_type=tool_type,
            native=obj,
            slot=SLOT,
        )
    fn = _str(body, "name", at, "the function name")
    if name == "functionCall":
        return ToolCallPart(
            call_id=call_id,
            name=fn,
            arguments=get(body, "args"),
            family=_family(fn),
            native=obj,
            slot=SLOT,
        )
    response = get(body, "response")
    return ToolResultPart(
        call_id=call_id,
        name=fn,
        content=response,
        is_error=_is_error(response),
        family=_family(fn),
        native=obj,
        slot=SLOT,
    )


# --- encoding ----------------------------------------------------------------------------


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
    """Gemini `args` are an object: a JSON-encoded object string is parsed into one."""
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
    call = ctx.calls.get(part.call_id) if part.call_id is not None else None
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
        failed = isinstance(outcome, str) and outcome.upper() in _FAILED
        content = part.content
        if not body and not isinstance(content, str | None):
            content = orjson.dumps(content).decode("utf-8")
        keep = body and failed == part.is_error
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
    if isinstance(part, TextPart):
        extra = {"thought": MISSING} if find_key(base, "thought") is not None else None
        return _with_data(base, "text", part.text, snake, extra)
    if isinstance(part, ReasoningPart):
        return _reasoning(part, base, snake)
    if isinstance(part, MediaPart):
        return _media(part, base, snake)
    if isinstance(part, ToolCallPart):
        return _call(part, base, snake)
    if isinstance(part, ToolResultPart):
        return _result(part, base, snake, ctx)
    if isinstance(part, UnknownPart) and part.native is not None:
        return part.native
    raise HistnormError(f"a {part.kind} part cannot be written as Gemini content")
