"""Which messages a fix removed, moved, changed or added: for the before/after view."""

from __future__ import annotations

import difflib

import orjson

from histnorm.model import Message, Transcript

Marks = dict[int, tuple[str, str]]
"""Per message index: css class and label."""


def _key(message: Message) -> bytes:
    """What a message is, for matching it before and after (its native form when read)."""
    value = message.native if message.native is not None else message.model_dump(mode="json")
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        return repr(value).encode()


def change_marks(before: Transcript, after: Transcript) -> tuple[Marks, Marks]:
    """The marks of the messages of each side: removed / changed / moved on the left,
    added / changed / moved on the right."""
    old = [_key(m) for m in before.messages]
    new = [_key(m) for m in after.messages]
    left: Marks = {}
    right: Marks = {}
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    gone: list[int] = []
    came: list[int] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if tag == "replace" and i2 - i1 == j2 - j1:
            for i, j in zip(range(i1, i2), range(j1, j2), strict=True):
                if old[i] not in new[j1:j2] and new[j] not in old[i1:i2]:
                    left[i] = ("changed", f"changed (now #{j})")
                    right[j] = ("changed", f"changed (was #{i})")
                else:
                    gone.append(i)
                    came.append(j)
            continue
        gone.extend(range(i1, i2))
        came.extend(range(j1, j2))
    unclaimed = list(came)
    for i in gone:
        match = next((j for j in unclaimed if new[j] == old[i]), None)
        if match is None:
            left[i] = ("removed", "removed")
            continue
        j = match
        unclaimed.remove(j)
        left[i] = ("moved", f"moved to #{j}")
        right[j] = ("moved", f"moved from #{i}")
    for j in unclaimed:
        right[j] = ("added", "added")
    return left, right
