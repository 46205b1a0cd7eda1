"""Which codecs may claim a parsed document, from one look at its shape.

`candidates(data)` reads the top-level keys of `data` and the keys of its first message
(or item, or line) and names every format whose codec's `sniff` could give `data` a score
above 0; `histnorm.formats.claims` asks only those codecs. Each test below is a condition
the codec's own `sniff` checks before it can claim anything (the comment beside it names
the check), so leaving a codec out never changes what detection finds; a codec named
here still decides for itself. `tests/test_signature.py` holds the two to agreement on
every fixture, on each format's generated and damaged documents, and on JSON made of the
formats' keys.

The module imports no codec: it is what lets detection skip the ones that cannot apply.
"""

from __future__ import annotations

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
    if "type" in first or ("role" in first and census.walked().typed):
        found.add("openai-responses")  # every item has a string `type` or a `role`, and
        # one has a `type` or content parts to score above 0
    if "role" not in first and _MESSAGES not in first:
        found |= _LINES  # no session or rollout line has either key
    if any(isinstance(item, dict) and "parts" in item for item in data[:50]):
        found.add("gemini")  # only an item with `parts` scores above 0 in a bare list
    return frozenset(found)


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
        found |= _ROLE_FORMATS
        if not census.walked().text_content:
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
    and whether any has content that is neither a list nor absent (`text_content`)."""

    __slots__ = ("_messages", "_walked", "keys", "text_content", "typed")

    def __init__(self, messages: list[Any]) -> None:
        self._messages = messages
        self._walked = False
        self.keys: set[Any] = set()
        self.typed = self.text_content = False

    def walked(self) -> _Census:
        if not self._walked:
            self._walked = True
            for message in self._messages[:50]:
                if isinstance(message, dict):
                    self.keys.update(message)
                    content = message.get("content")
                    if isinstance(content, list):
                        self.typed = True
                    elif content is not None:
                        self.text_content = True
            self.typed = self.typed or "type" in self.keys
        return self


_NONE: frozenset[str] = frozenset()
_ROLE_FORMATS = frozenset({"openai-chat", "anthropic", "chat-template"})
"""Formats every one of whose messages has a `role` key (and no further test here)."""
_EMPTY_ENVELOPE = frozenset({"anthropic", "bedrock-converse"})
"""Formats that may claim an object with an empty `messages` list by its other keys."""
_LINES = frozenset({"claude-code", "codex"})
