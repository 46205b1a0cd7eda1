"""The outline of Microsoft.Extensions.AI messages, read without building models (the
lint hot path; anything else gives None and the codec decodes).

Properties are looked up camelCase first, then PascalCase. That agrees with the
case-insensitive reader only while every property is spelled once, in one of those two
casings: an object with more keys than were read is checked key by key (`_extras_plain`).
"""

from __future__ import annotations

from typing import Any

from histnorm.analysis.outline import (
    REASONING,
    TEXT,
    Outline,
    OutlinePart,
    Step,
    function_call,
    function_result,
    listed_messages,
)
from histnorm.call_keys import unread_call_keys
from histnorm.formats.meai.keys import _CALLS, _KNOWN, _RESULTS, HANDOFF_PREFIX, TYPE_KEY
from histnorm.model_terms import PARTIAL_RESPONSE_KEY, ToolFamily

_CALL_KINDS = frozenset(kind for kind, family in _CALLS.items() if family is ToolFamily.FUNCTION)
_RESULT_KINDS = frozenset(kind for kind, f in _RESULTS.items() if f is ToolFamily.FUNCTION)
_NAMES = (
    *("role", "contents", "authorName", "messageId", "createdAt", "additionalProperties"),
    *("text", "protectedData", "callId", "name", "arguments", "result", "annotations"),
    *("informationalOnly", "invocationRequired"),
)
_EXACT = {
    spelled: name.casefold() for name in _NAMES for spelled in (name, name[0].upper() + name[1:])
}
"""The two spellings of each property the plain subset reads, to its casefolded name."""
_OPTIONAL_STR = frozenset({"authorname", "messageid", "name", "text"})


def _extras_plain(obj: dict[str, Any]) -> bool:
    """Whether each property of `obj` is spelled once in camel or Pascal case, and those
    the reader interprets hold plain values (no markers, no informational calls)."""
    seen: set[str] = set()
    for key, value in obj.items():
        name = _EXACT.get(key)
        if name is None:
            if key.casefold() in _KNOWN:
                return False
            continue
        if name in seen:
            return False
        seen.add(name)
        if name == "additionalproperties":
            if value is not None and (type(value) is not dict or PARTIAL_RESPONSE_KEY in value):
                return False
        elif name in _OPTIONAL_STR:
            if value is not None and type(value) is not str:
                return False
        elif name == "informationalonly":
            if value is not None and value is not False:
                return False
        elif name == "invocationrequired" and value is False:
            return False
    return True


def read_outline(data: Any) -> Outline | None:
    """The outline of a message list or `{"messages": [...]}` record, or None."""
    messages = listed_messages(data)
    if messages is None:
        return None
    steps: list[Step] = []
    for msg in messages:
        if type(msg) is not dict:
            return None
        role = msg.get("role")
        if role is None:
            role = msg.get("Role")
        contents = msg.get("contents")
        if contents is None:
            contents = msg.get("Contents")
        if type(role) is not str or type(contents) is not list or not contents:
            return None
        if len(msg) != 2:
            if unread_call_keys(msg):
                return None  # another format's calls or results, which MEAI does not read
            found = 2
            if type(msg.get("authorName") or msg.get("AuthorName")) is str:
                found += 1
            if type(msg.get("messageId") or msg.get("MessageId")) is str:
                found += 1
            if len(msg) != found and not _extras_plain(msg):
                return None
        parts: list[OutlinePart] = []
        for content in contents:
            if type(content) is not dict:
                return None
            kind = content.get(TYPE_KEY)
            if kind == "text":
                text = content.get("text")
                if text is None:
                    text = content.get("Text")
                if type(text) is not str or not text or text.isspace():
                    return None
                parts.append(TEXT)
                found = 2
            elif type(kind) is not str:
                return None
            elif kind in _CALL_KINDS:
                call_id = content.get("callId")
                if call_id is None:
                    call_id = content.get("CallId")
                name = content.get("name")
                if name is None:
                    name = content.get("Name")
                if type(call_id) is not str or not call_id:
                    return None
                found = 2
                if name is not None:
                    if type(name) is not str or name.startswith(HANDOFF_PREFIX):
                        return None
                    found += 1
                if "arguments" in content or "Arguments" in content:
                    found += 1
                parts.append(function_call(call_id, name, kind))
            elif kind in _RESULT_KINDS:
                call_id = content.get("callId")
                if call_id is None:
                    call_id = content.get("CallId")
                if type(call_id) is not str or not call_id:
                    return None
                found = 3 if "result" in content or "Result" in content else 2
                parts.append(function_result(call_id, None, kind))
            elif kind == "reasoning":
                text = content.get("text")
                if text is None:
                    text = content.get("Text")
                found = 1
                if text is not None:
                    if type(text) is not str:
                        return None
                    found = 2
                parts.append(REASONING)
            else:
                return None
            if len(content) != found and not _extras_plain(content):
                return None
        message_id = msg.get("messageId")
        if message_id is None:
            message_id = msg.get("MessageId")
        steps.append(Step(role, tuple(parts), 0, message_id))
    return Outline(tuple(steps), "meai")
