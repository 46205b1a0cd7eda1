"""Gemini `Part` objects: field spelling and decoding into canonical parts.

Private helper of `histnorm.formats.gemini` (`gemini.encode` writes parts back). Field
names are matched ignoring case and underscores (`functionCall` = `function_call`); a
null field counts as absent, as in the SDK's `model_dump()` output. Every part lives in
slot `parts`.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from histnorm.errors import HistnormError, join_pointer
from histnorm.formats.base import expect_object, optional_str
from histnorm.lazy import model
from histnorm.model_terms import ToolFamily

if TYPE_CHECKING:
    from histnorm.model import Part

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
FAILED_OUTCOMES = {"OUTCOME_FAILED", "OUTCOME_DEADLINE_EXCEEDED"}
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


def _family(name: str | None) -> ToolFamily:
    return ToolFamily.HANDOFF if name and name.startswith(HANDOFF_PREFIX) else ToolFamily.FUNCTION


def data_key(obj: dict[str, Any]) -> tuple[str, str] | None:
    """(field name, key as spelled) of the data field a part sets, if any."""
    for name in DATA_FIELDS:
        key = find_key(obj, name)
        if key is not None and obj[key] is not None:
            return name, key
    return None


def _is_error_response(response: Any) -> bool:
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
            return model.ReasoningPart(opaque=signature, native=obj, slot=SLOT)
        return model.UnknownPart(type=present[0] if present else None, native=obj, slot=SLOT)
    name, key = found
    at = join_pointer(pointer, key)
    if name == "text":
        text = part[key]
        if not isinstance(text, str):
            raise HistnormError("expected the text of a part to be a string", pointer=at)
        if thought or (signature is not None and not text.strip()):
            return model.ReasoningPart(text=text, opaque=signature, native=obj, slot=SLOT)
        return model.TextPart(text=text, native=obj, slot=SLOT)
    body = expect_object(part[key], at, f"the {key} of a part")
    if name in ("inlineData", "fileData"):
        mime = _str(body, "mimeType", at, "the mime type")
        if name == "inlineData":
            uri = _data_uri(mime, get(body, "data"))
        else:
            uri = _str(body, "fileUri", at, "the file URI")
        return model.MediaPart(media_type=mime, uri=uri, native=obj, slot=SLOT)
    if name == "executableCode":
        return model.ToolCallPart(
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
        return model.ToolResultPart(
            call_id=None,
            name=CODE_EXECUTION_NAME,
            content=get(body, "output"),
            is_error=isinstance(outcome, str) and outcome.upper() in FAILED_OUTCOMES,
            family=ToolFamily.HOSTED,
            tool_type=CODE_EXECUTION,
            native=obj,
            slot=SLOT,
        )
    call_id = _str(body, "id", at, "the call id")
    if name in ("toolCall", "toolResponse"):
        tool_type = _str(body, "toolType", at, "the tool type")
        if name == "toolCall":
            return model.ToolCallPart(
                call_id=call_id,
                arguments=get(body, "args"),
                family=ToolFamily.HOSTED,
                tool_type=tool_type,
                native=obj,
                slot=SLOT,
            )
        return model.ToolResultPart(
            call_id=call_id,
            content=get(body, "response"),
            is_error=_is_error_response(get(body, "response")),
            family=ToolFamily.HOSTED,
            tool_type=tool_type,
            native=obj,
            slot=SLOT,
        )
    fn = _str(body, "name", at, "the function name")
    if name == "functionCall":
        return model.ToolCallPart(
            call_id=call_id,
            name=fn,
            arguments=get(body, "args"),
            family=_family(fn),
            native=obj,
            slot=SLOT,
        )
    response = get(body, "response")
    return model.ToolResultPart(
        call_id=call_id,
        name=fn,
        content=response,
        is_error=_is_error_response(response),
        family=_family(fn),
        native=obj,
        slot=SLOT,
    )
