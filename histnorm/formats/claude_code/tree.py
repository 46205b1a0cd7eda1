"""The tree of a Claude Code session file: which lines form the active conversation.

A session is a list of line objects. Lines with a string `uuid` are nodes of a tree linked
by `parentUuid`; a later line with an already used uuid shadows the earlier one (the
"live" line of a uuid is the last one). `analyse` picks the newest leaf (the last live
line in file order that no live line names as its parent), walks its parent chain back
to the root, and splices back the parallel-tool siblings that the single-parent walk
misses (see `_recover`). Sidechain lines (`isSidechain: true`) are left out, unless no
line says `isSidechain: false` (a sub-agent transcript, perhaps with lines histnorm added).
A session with no links at all (no line has a string `parentUuid`: the key is missing or
null everywhere, as tools that export sessions write them) is one chain in file order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from histnorm._record import record
from histnorm.errors import HistnormError
from histnorm.formats.base import type_name

MESSAGE_TYPES = ("user", "assistant")


@record(frozen=True)
class Session:
    """The structure of one session file (indices are positions in `lines`)."""

    lines: Sequence[Any]
    sequence: tuple[int, ...]
    """The active branch in conversation order: the chain plus recovered siblings."""
    groups: tuple[tuple[int, ...], ...]
    """The message lines of `sequence`, grouped into canonical messages."""
    by_uuid: Mapping[str, int]
    """The live line of each uuid."""
    linked: bool = True
    """False: no line names a parent, and the branch is every node in file order."""

    def message_lines(self) -> list[int]:
        """Every line that holds (part of) a message, in conversation order."""
        return [i for group in self.groups for i in group]


def uuid_of(line: Any) -> str | None:
    """The uuid of a line, if it has a string one."""
    value = line.get("uuid") if isinstance(line, dict) else None
    return value if isinstance(value, str) else None


def parent_of(line: Any) -> str | None:
    """The parentUuid of a line, if it has a string one."""
    value = line.get("parentUuid") if isinstance(line, dict) else None
    return value if isinstance(value, str) else None


def message_id(line: Any) -> str | None:
    """The API message id (`message.id`) of a line, if it has a string one."""
    message = line.get("message") if isinstance(line, dict) else None
    value = message.get("id") if isinstance(message, dict) else None
    return value if isinstance(value, str) else None


def _blocks(line: Any) -> list[Any]:
    message = line.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, list) else []


def has_tool_result(line: Any) -> bool:
    """Whether a line's content holds a `tool_result` block."""
    return any(isinstance(b, dict) and b.get("type") == "tool_result" for b in _blocks(line))


def only_tool_results(line: Any) -> bool:
    """Whether a line's content is a non-empty list of `tool_result` blocks only."""
    blocks = _blocks(line)
    return bool(blocks) and all(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in blocks
    )


def is_message_line(line: Any, sidechain_only: bool) -> bool:
    """Whether a branch line becomes (part of) a canonical message.

    User and assistant lines do, except hook feedback (`isMeta`), synthetic API error
    replies (`isApiErrorMessage`) and, in a main session file, sidechain lines.
    """
    return (
        line.get("type") in MESSAGE_TYPES
        and line.get("isMeta") is not True
        and line.get("isApiErrorMessage") is not True
        and (sidechain_only or line.get("isSidechain") is not True)
    )


def check_lines(data: Any) -> list[dict[str, Any]]:
    """Return `data` if it is a list of line objects with well-typed tree keys, else raise."""
    if not isinstance(data, list):
        raise HistnormError(
            f"expected a Claude Code session (an array of line objects), got {type_name(data)}",
            pointer="",
        )
    for index, line in enumerate(data):  # pointers are worked out to report a problem
        if type(line) is not dict and not isinstance(line, dict):
            raise HistnormError(
                f"expected a session line (an object), got {type_name(line)}",
                pointer=f"/{index}",
            )
        uuid, parent = line.get("uuid"), line.get("parentUuid")
        for key, value in (("uuid", uuid), ("parentUuid", parent)):
            if value is not None and not isinstance(value, str):
                raise HistnormError(
                    f"expected {key} to be a string, got {type_name(value)}",
                    pointer=f"/{index}/{key}",
                )
        if uuid is None and line.get("type") in MESSAGE_TYPES:
            raise HistnormError(
                f"the uuid of a {line['type']} line is missing", pointer=f"/{index}/uuid"
            )
    return data


def analyse(lines: Sequence[Any]) -> Session:
    """Find the active branch and its messages (`lines` must have passed `check_lines`)."""
    by_uuid: dict[str, int] = {}
    for index, line in enumerate(lines):
        uuid = line.get("uuid") if isinstance(line, dict) else None
        if isinstance(uuid, str):
            by_uuid[uuid] = index
    live = sorted(by_uuid.values())
    marks = [lines[i].get("isSidechain") for i in live]
    sidechain_only = any(m is True for m in marks) and not any(m is False for m in marks)
    main = live
    if not sidechain_only:
        main = [i for i, mark in zip(live, marks, strict=True) if mark is not True]
    parents = {parent_of(lines[i]) for i in main}
    if parents <= {None} and len(main) > 1:
        message_lines = [i for i in main if is_message_line(lines[i], sidechain_only)]
        groups = _group(lines, message_lines)
        return Session(lines, tuple(main), groups, by_uuid, linked=False)
    leaf = next((i for i in reversed(main) if lines[i]["uuid"] not in parents), None)
    if leaf is None and main:
        leaf = main[-1]  # every line has a child: the links loop; start at the newest
    chain: list[int] = []
    seen: set[int] = set()
    current = leaf
    while current is not None and current not in seen:
        seen.add(current)
        chain.append(current)
        parent = lines[current].get("parentUuid")
        current = by_uuid.get(parent) if isinstance(parent, str) else None
    chain.reverse()
    sequence = _recover(lines, chain, seen, main)
    message_lines = [i for i in sequence if is_message_line(lines[i], sidechain_only)]
    return Session(lines, tuple(sequence), _group(lines, message_lines), by_uuid)


def _reply_id(line: dict[str, Any]) -> str | None:
    """`message_id` of an assistant line; None for any other line."""
    if line.get("type") != "assistant":
        return None
    message = line.get("message")
    value = message.get("id") if isinstance(message, dict) else None
    return value if isinstance(value, str) else None


def _recover(lines: Sequence[Any], chain: list[int], seen: set[int], main: list[int]) -> list[int]:
    """Splice in the parallel-tool lines a single-parent walk misses.

    A streamed reply is written one content block per line, all sharing `message.id`, and
    each tool result line names the line of its own `tool_use` as parent; so the tree
    forks at every parallel call. For every reply on the chain, its sibling lines that are
    off the chain, then the off-chain tool-result lines whose parent is any line of that
    reply (each in file order), are placed right after the reply's last chain line.
    """
    replies: dict[str, list[int]] = {}
    results: dict[str, list[int]] = {}
    for index in main:
        line = lines[index]
        kind = line.get("type")
        if kind == "assistant":
            mid = _reply_id(line)
            if mid is not None:
                replies.setdefault(mid, []).append(index)
        elif kind == "user":
            parent = line.get("parentUuid")
            if isinstance(parent, str) and has_tool_result(line):
                results.setdefault(parent, []).append(index)
    anchors: dict[str, int] = {}
    for index in chain:
        mid = _reply_id(lines[index])
        if mid is not None:
            anchors[mid] = index
    inserts: dict[int, list[int]] = {}
    for mid, anchor in anchors.items():
        members = replies.get(mid, [anchor])
        found = [i for i in members if i not in seen]
        seen.update(found)
        answers = sorted(
            r for m in members for r in results.get(uuid_of(lines[m]) or "", ()) if r not in seen
        )
        seen.update(answers)
        if found or answers:
            inserts[anchor] = found + answers
    if not inserts:
        return chain
    sequence: list[int] = []
    for index in chain:
        sequence.append(index)
        sequence.extend(inserts.get(index, ()))
    return sequence


def _group(lines: Sequence[Any], message_lines: list[int]) -> tuple[tuple[int, ...], ...]:
    """Consecutive assistant lines with one `message.id` form one message, and so do
    consecutive user lines holding only tool results; every other line is its own."""
    groups: list[list[int]] = []
    previous: tuple[str, str] | None = None
    for index in message_lines:
        line = lines[index]
        key: tuple[str, str] | None = None
        if line.get("type") == "assistant":
            mid = _reply_id(line)
            key = None if mid is None else ("assistant", mid)
        elif only_tool_results(line):
            key = ("results", "")
        if key is not None and key == previous:
            groups[-1].append(index)
        else:
            groups.append([index])
        previous = key
    return tuple(tuple(g) for g in groups)


def shadowed(lines: Sequence[Any]) -> dict[str, tuple[int, int]]:
    """Each uuid whose live (last) line shadows an earlier line that is not a copy of it:
    (the live line, the first such earlier line). Reading keeps the live line only; an
    edit that drops it would bring the earlier one back, or drop it too."""
    first: dict[str, int] = {}
    repeated: dict[str, int] = {}
    for index, line in enumerate(lines):
        uuid = uuid_of(line)
        if uuid is None:
            continue
        if uuid in first:
            repeated[uuid] = index
        else:
            first[uuid] = index
    found: dict[str, tuple[int, int]] = {}
    for uuid, live in repeated.items():
        earlier = next(
            (
                i
                for i in range(first[uuid], live)
                if uuid_of(lines[i]) == uuid and lines[i] != lines[live]
            ),
            None,
        )
        if earlier is not None:
            found[uuid] = (live, earlier)
    return found


def missing_parent(session: Session) -> tuple[int, str, int] | None:
    """Where the active branch starts at a line whose `parentUuid` names no line of the
    file although earlier message lines of the file are left off the branch: (the line,
    the uuid it names, how many such earlier lines). None for every other session, such
    as one that continues another file (nothing before its first line) or a compacted one
    (the boundary's `parentUuid` is null; `logicalParentUuid` is not a link)."""
    if not session.sequence:
        return None
    lines, root = session.lines, session.sequence[0]
    parent = parent_of(lines[root])
    if parent is None or parent in session.by_uuid:
        return None
    side = lines[root].get("isSidechain") is True
    on_branch = set(session.sequence)
    earlier = sum(
        1
        for index in sorted(session.by_uuid.values())
        if index < root
        and index not in on_branch
        and lines[index].get("type") in MESSAGE_TYPES
        and (lines[index].get("isSidechain") is True) == side
    )
    return (root, parent, earlier) if earlier else None


def dangling_stitches(lines: Sequence[Any]) -> list[tuple[int, str, int]]:
    """Every line whose `logicalParentUuid` (the link a `compact_boundary` keeps to the
    history before it, its `parentUuid` being null) names no line of the file although
    earlier message lines of the file (on its side: main or sidechain) are left behind:
    (the line, the uuid it names, how many such earlier lines). A boundary that opens the
    file names a line of the file it continues: that is no defect."""
    uuids = {uuid_of(line) for line in lines}
    found: list[tuple[int, str, int]] = []
    earlier = {False: 0, True: 0}  # message lines so far, main and sidechain
    for index, line in enumerate(lines):
        if not isinstance(line, dict):
            continue
        side = line.get("isSidechain") is True
        target = line.get("logicalParentUuid")
        if isinstance(target, str) and target not in uuids and earlier[side]:
            found.append((index, target, earlier[side]))
        if line.get("type") in MESSAGE_TYPES:
            earlier[side] += 1
    return found


CALL_BLOCKS = frozenset({"tool_use", "server_tool_use", "mcp_tool_use"})


def cut_off_calls(lines: Sequence[Any], session: Session | None = None) -> dict[str, int]:
    """The ids of the calls that the active branch leaves behind when it starts at a line
    whose parent the file does not hold (`missing_parent`): each `tool_use` block of a
    live assistant line (not an earlier copy of its uuid) before that line and off the
    branch, with its line index (the first, for an id on several lines). Empty when the
    branch is not cut so. `session` is `analyse(lines)` when the caller holds it."""
    session = analyse(lines) if session is None else session
    found = missing_parent(session)
    if found is None:
        return {}
    on_branch = set(session.sequence)
    calls: dict[str, int] = {}
    for index in range(found[0]):
        line = lines[index]
        if index in on_branch or not isinstance(line, dict) or line.get("type") != "assistant":
            continue
        if session.by_uuid.get(uuid_of(line) or "") != index:
            continue  # an earlier copy of a uuid, shadowed: no reader follows it
        for block in _blocks(line):
            ident = block.get("id") if isinstance(block, dict) else None
            if isinstance(ident, str) and block.get("type") in CALL_BLOCKS:
                calls.setdefault(ident, index)
    return calls
