"""LLaMA-Factory v1 content parts in chat-template messages (reading and writing one part).

LLaMA-Factory's v1 data format writes `content` as a list of `{"type": "text" |
"reasoning" | "tool_call" | "image_url", "value": str}` parts, and every message carries
`loss_weight`.
A `tool_call` value is the JSON text of `{"name", "arguments"}` (arguments an object or a
string); calls have no id and pair by position with the `tool` messages after them, whose
content is text parts. A part of another type, or a `tool_call` whose value is not such
JSON, is an UnknownPart. A tool result's `content` is its text parts joined (as
LLaMA-Factory joins them); its `native` is the part list.

A transcript is written in this dialect when one of its messages was read with v1 parts:
new and edited parts become v1 parts (a call's value as Python's `json.dumps` writes it,
as LLaMA-Factory's converter does), new results `tool` messages with a text part, and new
messages get a `loss_weight` (1.0 for the assistant, 0.0 otherwise) when the others have one.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from histnorm.errors import HistnormError
from histnorm.formats.base import rebuild, reuse_native
from histnorm.formats.openai_chat import HANDOFF_PREFIX
from histnorm.formats.sharegpt.calls import parse_calls
from histnorm.lazy import model
from histnorm.model_terms import ToolFamily

if TYPE_CHECKING:
    from histnorm.model import Message, Part

WEIGHT_KEY = "loss_weight"


class Dialect(NamedTuple):
    """How a chat-template transcript writes new content."""

    v1: bool = False
    """Content as LLaMA-Factory v1 parts."""
    weights: bool = False
    """Messages carry `loss_weight`."""


PLAIN = Dialect()
"""A transcript without v1 parts or weights."""


def is_v1_part(item: Any) -> bool:
    """Whether `item` is a `{"type", "value"}` part (and not an OpenAI `{"type", "text"}`)."""
    return (
        isinstance(item, dict)
        and isinstance(item.get("type"), str)
        and "value" in item
        and "text" not in item
    )


def is_v1_content(content: Any) -> bool:
    """Whether a `content` value holds v1 parts."""
    return isinstance(content, list) and any(is_v1_part(item) for item in content)


def dialect_of(messages: Sequence[Message]) -> Dialect:
    """The dialect of a transcript, from the native messages it was read from (one walk,
    which ends once both marks are found)."""
    v1 = weights = False
    for message in messages:
        native = message.native
        if not isinstance(native, dict):
            continue
        if not v1:
            content = native.get("content")
            v1 = isinstance(content, list) and is_v1_content(content)
        if not weights and WEIGHT_KEY in native:
            weights = True
        if v1 and weights:
            break
    return Dialect(v1=v1, weights=weights) if v1 or weights else PLAIN


def writes_v1(base: dict[str, Any], dialect: Dialect) -> bool:
    """Whether a message (`base`: its native object, or {}) is written with v1 parts: it
    has them, or it is new (or has no content) in a transcript that has them."""
    content = base.get("content")
    return is_v1_content(content) or (dialect.v1 and not content)


def _call_body(value: Any) -> dict[str, Any] | None:
    """The `{"name", "arguments"}` object of a `tool_call` value (one call object with a
    string name, read as ShareGPT's function_call values are), or None."""
    found = parse_calls(value)
    if found is None or not found[0] or not isinstance(found[1][0].get("name"), str):
        return None
    return found[1][0]


def decode_v1_part(item: dict[str, Any]) -> Part:
    """Decode one v1 content part."""
    kind, value = item["type"], item["value"]
    if kind == "text" and isinstance(value, str):
        return model.TextPart(text=value, native=item, slot="content[]")
    if kind == "reasoning" and isinstance(value, str):
        return model.ReasoningPart(text=value, native=item, slot="content[]")
    if kind == "image_url" and isinstance(value, str):
        return model.MediaPart(uri=value, native=item, slot="content[]")
    body = _call_body(value) if kind == "tool_call" else None
    if body is None:
        return model.UnknownPart(type=kind, native=item, slot="content[]")
    name = body["name"]
    family = ToolFamily.HANDOFF if name.startswith(HANDOFF_PREFIX) else ToolFamily.FUNCTION
    return model.ToolCallPart(
        call_id=None,
        name=name,
        arguments=body.get("arguments"),
        family=family,
        tool_type="function",
        native=item,
        slot="content[]",
    )


def result_text(content: Any) -> str | None:
    """The joined text of a tool message's v1 text parts, or None if it has other content."""
    if not isinstance(content, list) or not content:
        return None
    texts = [
        item["value"]
        for item in content
        if is_v1_part(item) and item["type"] == "text" and isinstance(item["value"], str)
    ]
    return "".join(texts) if len(texts) == len(content) else None


def _decode(item: Any) -> Part:
    return decode_v1_part(item) if is_v1_part(item) else model.UnknownPart(native=item)


def encode_v1_part(part: Part, arguments: Any) -> Any:
    """Encode one part as a v1 content part; `arguments` is the call's arguments as they
    are to be written (an object when they parse as one)."""
    if reuse_native(part, _decode):
        return part.native
    base = part.native if is_v1_part(part.native) else {}
    if isinstance(part, model.TextPart):
        return rebuild(base, {"type": "text", "value": part.text})
    if isinstance(part, model.ReasoningPart) and part.text is not None:
        return rebuild(base, {"type": "reasoning", "value": part.text})
    if isinstance(part, model.MediaPart) and part.uri is not None:
        return rebuild(base, {"type": "image_url", "value": part.uri})
    if isinstance(part, model.ToolCallPart):
        body = _call_body(base.get("value")) or {}
        args = {} if arguments is None and "arguments" not in body else arguments
        call = rebuild(body, {"name": part.name or "", "arguments": args})
        return rebuild(base, {"type": "tool_call", "value": json.dumps(call)})
    if part.native is not None:
        return part.native
    raise HistnormError(f"a {part.kind} part cannot be written as a LLaMA-Factory v1 part")


def result_content(content: Any, native: Any) -> Any:
    """A tool message's v1 `content` for a result whose content is `content`."""
    if is_v1_content(native) and result_text(native) == content:
        return native
    if content is None:
        return []
    if isinstance(content, list) and all(is_v1_part(item) for item in content):
        return content
    text = content if isinstance(content, str) else json.dumps(content)
    return [{"type": "text", "value": text}]


def with_weight(out: dict[str, Any], message: Message, dialect: Dialect) -> dict[str, Any]:
    """`out` with a `loss_weight` when it is a new message of a weighted transcript."""
    if not dialect.weights or message.native is not None or WEIGHT_KEY in out:
        return out
    return {**out, WEIGHT_KEY: 1.0 if message.role_is("assistant") else 0.0}
