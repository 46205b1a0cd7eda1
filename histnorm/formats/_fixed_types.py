"""The default post-condition of a fix: it changes no JSON type of a value it keeps.

A fix may rewrite what it owns, but a key that stays must keep its JSON type (`"input": ""`
never becomes `[]`), or the tools that load the file refuse it (`Codec.check_fixed`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from histnorm.errors import type_name
from histnorm.model_terms import JsonValue

if TYPE_CHECKING:
    from histnorm.model import Transcript


class Writer(Protocol):
    """What `changed_type` needs of a codec."""

    def written(self, transcript: Transcript) -> JsonValue: ...

    def message_pointer(self, transcript: Transcript, message_index: int) -> str: ...


def _kind(value: Any) -> str:
    return (
        "number"
        if isinstance(value, int | float) and not isinstance(value, bool)
        else (type_name(value))
    )


def _type_change(before: Any, after: Any, where: str) -> str | None:
    """A problem when two objects hold a key of different JSON types. Null on either side
    is no change of type, and a string may become an array that holds several items (a
    merge); an empty string becoming `[]` is a change."""
    if not isinstance(before, dict) or not isinstance(after, dict):
        return None
    for key, old in before.items():
        if key not in after or old is None or after[key] is None:
            continue
        new = after[key]
        if _kind(old) == _kind(new) or (
            isinstance(old, str) and isinstance(new, list) and len(new) > 1
        ):
            continue
        return f'"{key}"{where} would change from {_kind(old)} to {_kind(new)}'
    return None


def _resolve(document: Any, pointer: str) -> Any:
    node = document
    for token in pointer.split("/")[1:]:
        node = _step(node, token)
        if node is None:
            return None
    return node


def _step(node: Any, token: str) -> Any:
    """What the JSON Pointer token `token` names in `node`, or None."""
    token = token.replace("~1", "/").replace("~0", "~")
    if isinstance(node, dict) and token in node:
        return node[token]
    if isinstance(node, list) and token.isdigit() and int(token) < len(node):
        return node[int(token)]
    return None


def _items(document: Any) -> set[int]:
    """The ids of the items of a document that is a list (its lines or messages), or of
    the lists an object holds at its top level (the messages of a request body): the
    objects a writer hands back as they were read stand there."""
    if isinstance(document, list):
        return set(map(id, document))
    if not isinstance(document, dict):
        return set()
    return {id(item) for value in document.values() if type(value) is list for item in value}


def changed_type(codec: Writer, original: Transcript, fixed: Transcript) -> str | None:
    """The first top-level key whose JSON type the fix changed: in the native envelope, or
    in a kept message (one that still carries the native object it was read from). A
    message written as that very object (a line of a list document, or a message of the
    list a request body holds, written as read) is passed over at once."""
    document = codec.written(fixed)
    if isinstance(original.native, dict):
        if not isinstance(document, dict):
            return f"the document would change from an object to {type_name(document)}"
        problem = _type_change(original.native, document, "")
        if problem is not None:
            return problem
    parents: dict[str, Any] = {}  # the messages' containers, each resolved once
    intact = _items(document)
    for index, message in enumerate(fixed.messages):
        if isinstance(message.native, dict):
            if id(message.native) in intact:
                continue  # a line (or message) of the document written as it was read
            pointer = codec.message_pointer(fixed, index)
            head, _, last = pointer.rpartition("/")
            if head not in parents:
                parents[head] = _resolve(document, head)
            parent = parents[head]
            if not pointer:
                written = document
            elif type(parent) is list and last.isdigit():  # `_step` of an index, inline
                at = int(last)
                written = parent[at] if at < len(parent) else None
            else:
                written = None if parent is None else _step(parent, last)
            if written is message.native:
                continue  # written as it was read
            where = f" in message {index + 1} of {len(fixed.messages)}"
            problem = _type_change(message.native, written, where)
            if problem is not None:
                return problem
    return None
