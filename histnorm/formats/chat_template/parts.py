"""Chat-template content items and tool calls (decoding and encoding one entry), and the
per-message markers the sniffer weighs.

Media items are `{"type": "image" | "video" | "audio", "url" | "path" | <type>: ...}`;
LLaMA-Factory v1 `{"type", "value"}` parts are read by `chat_template.v1`; other items
are read as OpenAI Chat content items. Tool calls are `{"type": "function" | "tool",
"function": {"name", "arguments"}, "id"?}` (TRL writes `"tool"`) or the flat `{"name",
"arguments", "id"?}`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import histnorm.jsonio as jsonio
from histnorm.content_keys import unread_content
from histnorm.errors import HistnormError, join_pointer
from histnorm.formats.base import (
    CONVERSE_BLOCK_KEYS,
    CONVERSE_BODY_KEYS,
    MISSING,
    expect_object,
    has_role,
    optional_key,
    rebuild,
    reuse_native,
)
from histnorm.formats.chat_template.v1 import decode_v1_part, is_v1_content, is_v1_part
from histnorm.formats.openai_chat import HANDOFF_PREFIX, decode_content_item
from histnorm.lazy import model
from histnorm.model_terms import ToolFamily

if TYPE_CHECKING:
    from histnorm.model import Part

MEDIA = ("image", "video", "audio")
CALL_TYPES = (None, "function", "tool")
# Markers of documents only OpenAI Chat writes, and of other formats' messages.
_OPENAI_KEYS = {"function_call", "refusal", "audio", "weight", "annotations"}
_FOREIGN_KEYS = {"contents", "parts", "type"}
FOREIGN_KEYS = frozenset(_OPENAI_KEYS | _FOREIGN_KEYS)
"""Keys that make a message `foreign` to chat-template (`sniff_message`)."""
CONTENT_KEYS = ("content", "tool_calls", "reasoning_content", "thinking", "reasoning")
"""Message keys the reader reads content from (`Codec.content_keys`)."""
MESSAGE_KEYS = frozenset({"role", "tool_call_id", "tool_name"})
"""Other message keys it reads or knows to hold no content (`Codec.message_keys`)."""


def unread(message: Any) -> list[str]:
    """`histnorm.content_keys.unread_content` of one native message, for this format."""
    return unread_content(message, CONTENT_KEYS, MESSAGE_KEYS)


_FOREIGN_ITEMS = {
    "image_url",
    "input_audio",
    "file",
    "refusal",
    "tool_use",
    "tool_result",
    "thinking",
    "redacted_thinking",
    "document",
    "search_result",
}


def family(name: str | None) -> ToolFamily:
    """`handoff` for `handoff_to_*` names, else `function`."""
    return ToolFamily.HANDOFF if name and name.startswith(HANDOFF_PREFIX) else ToolFamily.FUNCTION


def decode_item(item: Any) -> Part:
    """Decode one item of an array `content`."""
    if is_v1_part(item):
        return decode_v1_part(item)
    kind = item.get("type") if isinstance(item, dict) else None
    if kind not in MEDIA:
        return decode_content_item(item)
    uri = next((item[k] for k in ("url", "path", kind) if isinstance(item.get(k), str)), None)
    return model.MediaPart(uri=uri, native=item, slot="content[]")


def decode_tool_call(item: Any, pointer: str = "") -> Part:
    """Decode one entry of `tool_calls` (ids optional, arguments raw)."""
    call = expect_object(item, pointer, "a tool call")
    call_id = optional_key(call, "id", pointer, "the tool call id")
    kind = optional_key(call, "type", pointer, "the tool call type")
    if kind not in CALL_TYPES:
        return model.UnknownPart(type=kind, native=item, slot="tool_calls")
    at = pointer
    body = call
    if "function" in call or "name" not in call:
        at = join_pointer(pointer, "function")
        body = expect_object(call.get("function"), at, 'the "function" of a tool call')
    name = optional_key(body, "name", at, "the tool name")
    return model.ToolCallPart(
        call_id=call_id,
        name=name,
        arguments=body.get("arguments"),
        family=family(name),
        tool_type="function",
        native=item,
        slot="tool_calls",
    )


def null_or_missing(base: dict[str, Any], key: str) -> Any:
    """Keep a key the input had as null; otherwise leave it out."""
    return None if key in base and base[key] is None else MISSING


def arguments(value: Any, original: Any) -> Any:
    """Arguments as an object: a JSON-object string is parsed unless the call had a string."""
    if isinstance(value, str) and not isinstance(original, str):
        try:
            parsed = jsonio.loads(value)
        except HistnormError:
            return value
        return parsed if isinstance(parsed, dict) else value
    return value


def encode_tool_call(part: Part) -> Any:
    """Encode one `tool_calls` entry."""
    if reuse_native(part, decode_tool_call):
        return part.native
    if not isinstance(part, model.ToolCallPart):
        if part.native is None:
            raise HistnormError(f"a {part.kind} part cannot be written as a tool call")
        return part.native
    base = part.native if isinstance(part.native, dict) else {}
    call_id = part.call_id if part.call_id is not None else null_or_missing(base, "id")
    if base and "function" not in base and "name" in base:  # the flat form
        args = arguments(part.arguments, base.get("arguments"))
        return rebuild(base, {"id": call_id, "name": part.name, "arguments": args})
    found = base.get("function")
    body: dict[str, Any] = found if isinstance(found, dict) else {}
    args = arguments(part.arguments, body.get("arguments"))
    if args is None and "arguments" not in body:
        args = {}
    function = rebuild(body, {"name": part.name, "arguments": args})
    kind = base["type"] if base.get("type") == "tool" else "function"
    if base and "type" not in base:
        kind = MISSING
    return rebuild(base, {"type": kind, "function": function, "id": call_id})


def encode_item(part: Part) -> Any:
    """Encode one item of an array `content`."""
    if reuse_native(part, decode_item):
        return part.native
    base = part.native if isinstance(part.native, dict) else {}
    if isinstance(part, model.TextPart):
        return rebuild(base, {"type": "text", "text": part.text})
    if isinstance(part, model.RefusalPart):
        if base.get("type") == "refusal":
            return rebuild(base, {"refusal": part.text})
        return rebuild(base, {"type": "text", "text": part.text})
    if isinstance(part, model.MediaPart):
        kind = base.get("type")
        if kind in MEDIA:
            key = next((k for k in ("url", "path", kind) if isinstance(base.get(k), str)), "url")
            return rebuild(base, {key: part.uri})
        if not base:
            major = (part.media_type or "").partition("/")[0]
            return {"type": major if major in MEDIA else "image", "url": part.uri}
    if part.native is not None:
        return part.native
    raise HistnormError(f"a {part.kind} part cannot be written as chat-template content")


PLAIN_ROLES = frozenset({"system", "developer", "user", "assistant"})
"""The roles of the usual message: one of them and a non-empty string content, nothing
else, which `sniff_message` finds plain (the codec's `sniff` passes over it at once)."""


SNIFF_ROLES = frozenset({"system", "developer", "user", "assistant", "tool", "ipython"})
"""Roles that mark a chat-template transcript (`ipython`: Llama 3's tool output)."""


def body_refused(data: Any) -> bool:
    """Whether `data` is a request body, which chat-template's sniff scores 0 (a `model`,
    or Bedrock Converse's keys)."""
    return isinstance(data, dict) and ("model" in data or not CONVERSE_BODY_KEYS.isdisjoint(data))


def window_score(messages: list[Any], seen: set[str | None]) -> float:
    """The codec's `sniff` score of `messages` (objects, not a request body), from the
    marks `sniff_message` gives those of the first 50 that are not the usual message (a
    role of `PLAIN_ROLES` and a non-empty string content, which it gives none)."""
    if "foreign" in seen or not has_role(messages, SNIFF_ROLES):
        return 0.0
    if "distinctive" in seen:
        return 0.95
    if "openai" in seen:
        return 0.0
    return 0.6 if "media" in seen else 0.3


def sniff_message(msg: dict[str, Any]) -> str | None:
    """`foreign`, `openai`, `distinctive`, `media` or None (plain) for one message."""
    if "role" not in msg or not FOREIGN_KEYS.isdisjoint(msg):
        return "foreign"
    role = msg["role"].casefold() if isinstance(msg["role"], str) else ""
    content = msg.get("content")
    if not content and unread(msg):
        return "foreign"  # content under keys this format has not: another format's
    if not isinstance(content, list):  # no content items: the role and the calls tell
        if role == "function":
            return "foreign"
        if role == "tool":
            return "openai" if "tool_call_id" in msg else "distinctive"
        return _calls_mark(msg.get("tool_calls"), None)
    if role == "function" or (
        isinstance(content, list)
        and any(
            isinstance(c, dict)
            and not is_v1_part(c)
            and (
                (isinstance(c.get("type"), str) and c["type"] in _FOREIGN_ITEMS)
                or "source" in c
                or (role != "tool" and _converse_block(c))
            )
            for c in content
        )
    ):
        return "foreign"
    if is_v1_content(content):
        return "distinctive"
    if role == "tool":
        return "openai" if "tool_call_id" in msg else "distinctive"
    found = None
    if isinstance(content, list) and any(
        isinstance(c, dict) and isinstance(c.get("type"), str) and c["type"] in MEDIA
        for c in content
    ):
        found = "media"
    return _calls_mark(msg.get("tool_calls"), found)


def _converse_block(item: dict[str, Any]) -> bool:
    """Whether a content item is a Bedrock Converse block: no `type`, a Converse block key
    (a tool message's content is the result's own data, whatever its shape)."""
    return "type" not in item and not CONVERSE_BLOCK_KEYS.isdisjoint(item)


def _calls_mark(calls: Any, found: str | None) -> str | None:
    """`distinctive` for a call with object arguments, else `openai` for any call, else
    `found`."""
    for call in calls if isinstance(calls, list) else ():
        if not isinstance(call, dict):
            continue
        function = call.get("function")
        body = function if isinstance(function, dict) else call
        if isinstance(body.get("arguments"), dict):
            return "distinctive"
        found = "openai"
    return found
