"""The plain shape of a Claude Code session, read without building models (`histnorm.shape`).

Only the simplest sessions are read: every line with a uuid (the tree's nodes) links to
the one before it in file order, so the active branch is the whole file and no parallel
line is spliced back; no uuid repeats, no line is a sidechain, meta or API error line.
Lines without a uuid, and nodes that are not user / assistant lines, are skipped as
`decode` skips them. Content is non-blank string content, or blocks: on a user line
only non-blank text or only tool_result (a non-empty `tool_use_id`); on an assistant line
non-blank text, thinking, redacted_thinking and tool_use (a non-empty id, no handoff
name). Anything else gives None, including what no plain shape could hold anyway.
"""

from __future__ import annotations

from typing import Any

from histnorm.formats._claude_code_blocks import HANDOFF_PREFIX
from histnorm.formats._claude_code_tree import MESSAGE_TYPES
from histnorm.shape import Shape, Step


def _results(content: list[Any], results: list[str]) -> bool:
    """Append the ids of a user line's tool_result blocks; False if it holds anything else."""
    for block in content:
        if type(block) is not dict or block.get("type") != "tool_result":
            return False
        call_id = block.get("tool_use_id")
        if type(call_id) is not str or not call_id:
            return False
        results.append(call_id)
    return True


def _texts(content: list[Any]) -> int:
    """How many non-blank text blocks a user line's content holds (0: anything else)."""
    for block in content:
        if type(block) is not dict or block.get("type") != "text":
            return 0
        text = block.get("text")
        if type(text) is not str or not text.strip():
            return 0
    return len(content)


def _reply(content: list[Any], calls: list[str]) -> tuple[int, int] | None:
    """(other parts, reasoning parts) of an assistant line, appending its call ids to
    `calls`; None for anything but text, thinking and tool_use blocks."""
    other = reasoning = 0
    for block in content:
        if type(block) is not dict:
            return None
        kind = block.get("type")
        if kind == "tool_use":
            call_id, name = block.get("id"), block.get("name")
            if type(call_id) is not str or not call_id:
                return None
            if name is not None and (type(name) is not str or name.startswith(HANDOFF_PREFIX)):
                return None
            calls.append(call_id)
        elif kind == "text":
            text = block.get("text")
            if type(text) is not str or not text.strip():
                return None
            other += 1
        elif kind == "redacted_thinking" or (
            kind == "thinking" and type(block.get("thinking")) is str
        ):
            other += 1
            reasoning += 1
        else:
            return None
    return other, reasoning


def shape(data: Any) -> Shape | None:
    """The shape of a session's list of lines, or None unless it is one plain chain."""
    if type(data) is not list:
        return None
    steps: list[Step] = []
    uuids: set[str] = set()
    previous: str | None = None  # uuid of the last node
    root: Any = None  # parentUuid of the first node
    key: Any = None  # grouping key of the last message line
    role = ""
    calls: list[str] = []
    results: list[str] = []
    other = reasoning = 0
    for line in data:
        if type(line) is not dict:
            return None
        get = line.get
        uuid, parent, kind = get("uuid"), get("parentUuid"), get("type")
        if uuid is None:
            if (parent is not None and type(parent) is not str) or kind in MESSAGE_TYPES:
                return None
            continue
        if type(uuid) is not str or uuid in uuids or get("isSidechain") is True:
            return None
        if previous is None:
            if parent is not None and type(parent) is not str:
                return None
            root = parent
        elif parent != previous or type(parent) is not str:
            return None
        uuids.add(uuid)
        previous = uuid
        if kind != "user" and kind != "assistant":
            continue
        if get("isMeta") is True or get("isApiErrorMessage") is True:
            return None
        message = get("message")
        if type(message) is not dict:
            return None
        content = message.get("content")
        if not content or (type(content) is not list and type(content) is not str):
            return None
        if kind == "assistant":
            mid = message.get("id")
            line_key: Any = ("assistant", mid) if type(mid) is str else None
        elif type(content) is list and type(content[0]) is dict:
            line_key = "results" if content[0].get("type") == "tool_result" else None
        else:
            line_key = None
        if line_key is None or line_key != key:
            if role:
                steps.append(Step(role, tuple(calls), tuple(results), other, reasoning))
            role, calls, results, other, reasoning = kind, [], [], 0, 0
        key = line_key
        if isinstance(content, str):
            if not content.strip():
                return None
            other += 1
        elif kind == "assistant":
            found = _reply(content, calls)
            if found is None:
                return None
            other += found[0]
            reasoning += found[1]
        elif line_key is not None:
            if not _results(content, results):
                return None
        else:
            texts = _texts(content)
            if not texts:
                return None
            other += texts
    if not role or root in uuids:
        return None
    steps.append(Step(role, tuple(calls), tuple(results), other, reasoning))
    return tuple(steps)
