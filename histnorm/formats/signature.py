"""Which codecs may claim a parsed document, from one look at its shape.

`candidates(data)` reads the top-level keys of `data`, the keys of its first message (or
item, or line) and, in one walk of the first 50, what they hold (`_Census`), and names
every format whose codec's `sniff` could give `data` a score above 0;
`histnorm.formats.claims` asks only those codecs. Each test below is a condition the
codec's own `sniff` checks before it can claim anything (the comment beside it names the
check), so leaving a codec out never changes what detection finds; a codec named here
still decides for itself. `tests/test_signature.py` holds the two to agreement on every
fixture, on each format's generated and damaged documents, and on JSON made of the
formats' keys.

The module imports no codec: it is what lets detection skip the ones that cannot apply.
"""

from __future__ import annotations

from itertools import repeat
from typing import Any

_MESSAGES = "messages"


def candidates(data: Any) -> frozenset[str]:
    """The formats whose codec may claim `data` (a superset of those that do)."""
    if isinstance(data, dict):
        return _of_object(data)
    if isinstance(data, list) and data:
        return _of_list(data)
    return _NONE


def _of_object(data: dict[str, Any]) -> frozenset[str]:
    found: set[str] = set()
    messages = data.get(_MESSAGES)
    if isinstance(messages, list):
        found |= _of_messages(messages, _Census(messages), envelope=True)
    contents = data.get("contents")
    if isinstance(contents, list) and "role" not in data:
        found.add("gemini")  # `{"contents": [...]}` scores at least 0.5
    if isinstance(data.get("conversations"), list):
        found.add("sharegpt")
    if isinstance(data.get("input"), str | list):
        found.add("openai-responses")
    if ("chosen" in data and "rejected" in data) or ("prompt" in data and "completion" in data):
        found.add("trl")  # `sides_of_record`
    if "class_name" in data and "store" in data:
        found.add("llama-index")  # `is_store`
    return frozenset(found)


def _of_list(data: list[Any]) -> frozenset[str]:
    census = _Census(data)
    found = set(_of_messages(data, census, envelope=False))
    first = data[0]
    if not isinstance(first, dict):
        return frozenset(found)
    if isinstance(first.get("from"), str):
        found.add("sharegpt")  # every turn has a string `from`
    walked = census.walked()
    if (
        ("type" in first or ("role" in first and walked.typed))
        and walked.keys.isdisjoint(_NOT_RESPONSES_KEYS)
        and walked.kinds.isdisjoint(_NOT_RESPONSES_ITEMS)
        and ("role" in walked.keys or not _line_types_only(data))
    ):
        found.add("openai-responses")  # every item has a string `type` or a `role`, and
        # one has a `type` or content parts to score above 0: not only session line types
    if "role" not in first and _MESSAGES not in first:
        found |= _LINES  # no session or rollout line has either key
    if "parts" in census.walked().keys:
        found.add("gemini")  # only an item with `parts` scores above 0 in a bare list
    return frozenset(found)


def _line_types_only(items: list[Any]) -> bool:
    """Whether every object among the first 50 of `items` (the window of `_Census`) with a
    string `type` has a session or rollout line type (`_LINE_TYPES`); asked only of a
    list whose items have no `role`."""
    return all(
        type(kind := item.get("type")) is not str or kind in _LINE_TYPES
        for item in items[:50]
        if isinstance(item, dict)
    )


def _of_messages(messages: list[Any], census: _Census, *, envelope: bool) -> frozenset[str]:
    """The message-list formats that may claim `messages` (`envelope`: the list sits under
    `messages` in an object, whose own keys may mark Anthropic or Bedrock Converse)."""
    if not messages:
        return _EMPTY_ENVELOPE if envelope else _NONE
    first = messages[0]
    if not isinstance(first, dict):
        return _NONE  # every message-list sniff reads each message as an object
    keys = first.keys()
    found: set[str] = set()
    if "role" in keys:
        walked = census.walked()
        found |= _ROLE_FORMATS
        if not walked.keys.isdisjoint(_NOT_ANTHROPIC_KEYS):
            found.discard("anthropic")  # `_sniff_message` refuses a message with one
        if (walked.plain_calls and not walked.loose) or not walked.keys.isdisjoint(
            _NOT_CHAT_TEMPLATE_KEYS
        ):
            found.discard("chat-template")  # `sniff`: an `openai` message, no `distinctive`
            # one, or a `foreign` one
        elif not walked.bare_kinds.isdisjoint(_NOT_CHAT_TEMPLATE_ITEMS):
            found.discard("chat-template")  # `sniff_message`: another format's item
        if (
            walked.untyped
            or not walked.keys.isdisjoint(_NOT_OPENAI_CHAT_KEYS)
            or not walked.kinds.isdisjoint(_NOT_OPENAI_CHAT_ITEMS)
            or any(kind.endswith("_tool_result") for kind in walked.kinds)
        ):
            found.discard("openai-chat")  # its `sniff`: another format's keys or items
        if not walked.text_content:
            found.add("bedrock-converse")  # content is a list of blocks or absent
        if "parts" in keys and "id" in keys:
            found.add("vercel-ai")
        if "items" in keys:
            found.add("semantic-kernel")
        if "blocks" in keys:
            found.add("llama-index")
    if any(isinstance(key, str) and key.casefold() == "role" for key in keys) and any(
        isinstance(key, str) and key.casefold() == "contents" for key in census.walked().keys
    ):
        found.add("meai")  # `find_key(msg, "role")`; every mark is a `contents` key
    if "lc" in keys or ("type" in keys and "data" in keys):
        found.add("langchain")
    if "type" in keys and "contents" in keys:
        found.add("agent-framework")
    if "kind" in keys and "parts" in keys:
        found.add("pydantic-ai")
    return frozenset(found)


class _Census:
    """What the first 50 messages of a list hold, gathered in one walk on first use: the
    keys of those that are objects, whether any has list content or a `type` (`typed`),
    whether any has content that is neither a list nor absent (`text_content`), whether
    one is an answered tool call or a call with string arguments (`plain_calls`), and
    whether any may carry chat-template's own marks (`loose`)."""

    __slots__ = (
        *("_messages", "_walked", "keys", "loose", "plain_calls", "text_content", "typed"),
        *("kinds", "untyped", "bare_kinds"),
    )

    def __init__(self, messages: list[Any]) -> None:
        self._messages = messages
        self._walked = False
        self.keys: set[Any] = set()
        self.typed = self.text_content = self.plain_calls = self.loose = False
        self.kinds: set[str] = set()
        self.bare_kinds: set[str] = set()
        self.untyped = False

    def walked(self) -> _Census:
        if self._walked:
            return self
        self._walked = True
        window = self._messages[:50]
        if not all(map(isinstance, window, repeat(dict))):
            window = [message for message in window if isinstance(message, dict)]
        keys = self.keys = set().union(*window)
        typed = text = plain = loose = False
        for message in window:
            content = message.get("content")
            if type(content) is str:
                text = True
            elif content is not None:
                if isinstance(content, list):
                    typed = loose = True
                    if "role" in message:
                        self._parts(content)
                else:
                    text = True
            role = message.get("role")
            if type(role) is str:
                tool = role not in _NOT_TOOL and role.casefold() == "tool"
            else:
                tool = isinstance(role, str) and role.casefold() == "tool"
            if tool:
                if "tool_call_id" in message:
                    plain = True
                else:
                    loose = True  # a tool result without an id is chat-template's
            if "tool_calls" in message:
                found = _calls(message["tool_calls"])
                loose = loose or found is None
                plain = plain or bool(found)
        self.typed = typed or "type" in keys
        self.text_content, self.plain_calls, self.loose = text, plain, loose
        return self

    def _parts(self, content: list[Any]) -> None:
        """Note the content items of a message with a role: their string types (`kinds`;
        `bare_kinds` of those without a `value`), and whether one is untyped."""
        for item in content:
            kind = item.get("type") if isinstance(item, dict) else None
            if not isinstance(kind, str):
                self.untyped = True
                continue
            self.kinds.add(kind)
            if "value" not in item:
                self.bare_kinds.add(kind)


def _calls(calls: Any) -> bool | None:
    """None when a tool call (an object) carries object `arguments` in its `function` or
    in itself; else whether any entry is an object."""
    found = False
    for call in calls if isinstance(calls, list) else ():
        if isinstance(call, dict):
            body = call.get("function")
            if isinstance((body if isinstance(body, dict) else call).get("arguments"), dict):
                return None
            found = True
    return found


_NONE: frozenset[str] = frozenset()
_ROLE_FORMATS = frozenset({"openai-chat", "anthropic", "chat-template"})
"""Formats every one of whose messages has a `role` key (and no further test here)."""
_NOT_TOOL = frozenset({"user", "assistant", "system", "developer"})
"""Roles that are no `tool` role in any case (the census casefolds the others)."""
_NOT_ANTHROPIC_KEYS = frozenset(
    {"tool_calls", "tool_call_id", "function_call", "refusal", "name", "weight", "audio"}
    | {"contents", "parts"}
)
"""Message keys that Anthropic's sniff refuses (its `_FOREIGN_KEYS`)."""
_NOT_CHAT_TEMPLATE_KEYS = frozenset(
    {"function_call", "refusal", "audio", "weight", "annotations", "contents", "parts", "type"}
)
"""Message keys chat-template's sniff refuses (its `FOREIGN_KEYS`)."""
_NOT_CHAT_TEMPLATE_ITEMS = frozenset(
    {"image_url", "input_audio", "file", "refusal", "tool_use", "tool_result", "thinking"}
    | {"redacted_thinking", "document", "search_result"}
)
"""Content item types (of items without a `value`) chat-template's sniff refuses."""
_NOT_OPENAI_CHAT_KEYS = frozenset({"contents", "parts", "type"})
"""Message keys OpenAI Chat's sniff refuses."""
_NOT_OPENAI_CHAT_ITEMS = frozenset(
    {"tool_use", "tool_result", "thinking", "redacted_thinking", "image", "document"}
    | {"search_result", "server_tool_use", "mcp_tool_use", "mcp_tool_result"}
    | {"container_upload", "input_text", "output_text", "input_image", "input_file"}
)
"""Content item types OpenAI Chat's sniff refuses (and any `..._tool_result`)."""
_NOT_RESPONSES_KEYS = frozenset(
    {"contents", "parts", "tool_calls", "tool_call_id", "function_call", "$type"}
)
"""Item keys OpenAI Responses' sniff refuses."""
_NOT_RESPONSES_ITEMS = frozenset(
    {"text", "image_url", "tool_use", "tool_result", "thinking", "image", "file"}
)
"""Content part types (of a message with a role) OpenAI Responses' sniff refuses."""
_LINE_TYPES = frozenset(
    {
        *("user", "assistant", "summary", "system", "progress", "attachment"),
        *("file-history-snapshot", "queue-operation"),  # Claude Code session lines
        *("session_meta", "response_item", "event_msg", "turn_context", "compacted"),  # Codex
    }
)
"""Line types of Claude Code sessions and Codex rollouts, none an OpenAI Responses item
type (`tests/test_signature.py` holds the two apart): Responses' sniff scores a list
whose items have only these types and no `role` at 0."""
_EMPTY_ENVELOPE = frozenset({"anthropic", "bedrock-converse"})
"""Formats that may claim an object with an empty `messages` list by its other keys."""
_LINES = frozenset({"claude-code", "codex"})
