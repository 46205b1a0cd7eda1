"""The outline of a Claude Code session, read without building models (the lint hot path).

Accepted are sessions that `decode` provably reads as all their nodes (lines with a uuid)
in file order. No uuid repeats, no node is a sidechain, meta or API error line, the first
node's parentUuid is null or names no node, and every later node names the node just
before it, except for the results of a parallel-tool batch:
- a *batch* is a run of consecutive assistant nodes with one string `message.id`, then
  the run of user nodes right after it holding only tool_result blocks (its results);
- a result may name any assistant line of its batch instead, unless an earlier result
  of the batch, other than its first, named the node just before it;
- a batch a result forks off has a `message.id` that no earlier such batch and no later
  assistant node has.
Nothing names the last node, so it is the newest leaf; walking back from it skips, in
each forked batch, exactly its lines after the line its last fork names and its results
before that fork. `decode` puts these back right after that line in file order: the
lines sharing its `message.id` (no others are off the walk), then the results naming
any of them (every skipped result does): file order again, every node kept.
Lines without a uuid, and nodes that are not user / assistant lines, are skipped as
`decode` skips them. Content is non-blank string content, or blocks: on a user line
only non-blank text or only tool_result (a non-empty `tool_use_id`); on an assistant line
non-blank text, thinking, redacted_thinking and tool_use (a non-empty id, no handoff
name). Anything else gives None: other forks (rewinds, retries, compaction, sidechains,
results the walk would drop or `decode` would move), a `logicalParentUuid` after a
message line (HN017 checks what it names), other content; the codec then decodes instead.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from histnorm.analysis.outline import (
    TEXT,
    Outline,
    OutlinePart,
    Step,
    function_result,
)
from histnorm.formats.anthropic.outline import block_part
from histnorm.formats.claude_code.tree import MESSAGE_TYPES


def _results(content: list[Any], parts: list[OutlinePart]) -> bool:
    """Append a user line's tool_result blocks; False if it holds anything else."""
    for block in content:
        if type(block) is not dict or block.get("type") != "tool_result":
            return False
        call_id = block.get("tool_use_id")
        if type(call_id) is not str or not call_id:
            return False
        parts.append(function_result(call_id, None, "tool_result"))
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


def _reply(content: list[Any], parts: list[OutlinePart]) -> bool:
    """Append an assistant line's blocks; False for anything but text, thinking (with its
    text) and tool_use blocks, which read as in an Anthropic message."""
    for block in content:
        if type(block) is dict:
            kind = block.get("type")
            if kind == "tool_result" or (
                kind == "thinking" and type(block.get("thinking")) is not str
            ):
                return False
        part = block_part(block)
        if part is None:
            return False
        parts.append(part)
    return True


def read_outline(data: Any) -> Outline | None:
    """The outline of a session's list of lines, or None unless it is a plain chain with
    (at most) parallel-tool forks, as the module docstring says."""
    if not isinstance(data, list):  # a file's lines come as `ReadLines`, a list
        return None
    return read_lines(data)


def read_lines(data: Iterable[Any]) -> Outline | None:
    """`read_outline` of a session's lines, each read once in file order and not held (a
    long session can be read one line at a time)."""
    steps: list[Step] = []
    uuids: set[str] = set()
    previous: str | None = None  # uuid of the last node
    root: Any = None  # parentUuid of the first node
    key: Any = None  # grouping key of the last message line
    line_key: Any  # ... and of this one
    batch: Any = None  # message.id of the batch the last node is in (None: in none)
    members: set[str] = set()  # uuids of that batch's assistant lines
    answers = 0  # how many results of the batch so far
    tail = False  # a result after its batch's first one named the node before it
    forked: set[str] = set()  # message.id of every batch a result forks off
    role = ""
    step_id: str | None = None
    parts: list[OutlinePart] = []
    for line in data:
        if type(line) is not dict:
            return None
        get = line.get
        if role and get("logicalParentUuid") is not None:
            return None  # a compaction boundary after messages: its stitch is checked (HN017)
        uuid, parent, kind = get("uuid"), get("parentUuid"), get("type")
        if uuid is None:
            if (parent is not None and type(parent) is not str) or kind in MESSAGE_TYPES:
                return None
            continue
        if type(uuid) is not str or uuid in uuids or get("isSidechain") is True:
            return None
        fork = parent != previous  # not linked to the node before it
        if fork and previous is None:  # the first node, under a (missing) node
            if type(parent) is not str:
                return None
            root, fork = parent, False
        uuids.add(uuid)
        previous = uuid
        if kind != "user" and kind != "assistant":
            if fork:
                return None
            batch = None
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
            if fork:
                return None
            if type(mid) is not str:
                line_key = batch = None
            else:
                line_key = ("assistant", mid)
                if answers or mid != batch:  # a new batch
                    if mid in forked:
                        return None
                    batch, members, answers, tail = mid, {uuid}, 0, False
                else:
                    members.add(uuid)
        elif (
            type(content) is list
            and type(content[0]) is dict
            and content[0].get("type") == "tool_result"
        ):
            line_key = "results"
            if batch is not None:
                answers += 1
                if fork:
                    if tail or type(parent) is not str or parent not in members:
                        return None
                    forked.add(batch)
                elif answers > 1:
                    tail = True
            elif fork:
                return None
        elif fork:
            return None
        else:
            line_key = batch = None
        if line_key is None or line_key != key:
            if role:
                steps.append(Step(role, tuple(parts), 0, step_id))
            role, parts = kind, []
            step_id = mid if kind == "assistant" and type(mid) is str else None
        key = line_key
        if isinstance(content, str):
            if not content.strip():
                return None
            parts.append(TEXT)
        elif kind == "assistant":
            if not _reply(content, parts):
                return None
        elif line_key is not None:
            if not _results(content, parts):
                return None
        else:
            texts = _texts(content)
            if not texts:
                return None
            parts.extend((TEXT,) * texts)
    if not role or root in uuids:
        return None
    steps.append(Step(role, tuple(parts), 0, step_id))
    return Outline(tuple(steps), "claude-code")
