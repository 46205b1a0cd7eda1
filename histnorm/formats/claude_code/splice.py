"""The new branch of a written Claude Code session and its links, for
`histnorm.formats.claude_code.encode`.

`_Splicer` holds the session writer's state and the second half of its work: the line
order of the branch after the edit, uuid5 values for new lines (under `NAMESPACE`), the
`parentUuid` of every line once dropped lines are skipped, and the output lines in file
order with the new lines spliced in. Which line each part goes to, and the rewriting of
kept lines, are in `histnorm.formats.claude_code.encode` (its `_Writer` subclass).
"""

from __future__ import annotations

import uuid as uuidlib
from collections.abc import Sequence
from dataclasses import field
from typing import TYPE_CHECKING, Any

from histnorm._record import record
from histnorm.formats.base import rebuild
from histnorm.formats.claude_code.block_encode import new_line
from histnorm.formats.claude_code.blocks import parse_slot
from histnorm.formats.claude_code.tree import Session, message_id, parent_of, uuid_of
from histnorm.lazy import model

if TYPE_CHECKING:
    from histnorm.model import Message, Part, ToolCallPart, ToolResultPart

NAMESPACE = uuidlib.uuid5(uuidlib.NAMESPACE_URL, "https://histnorm.dev/formats/claude-code")
"""Namespace of the uuid5 values given to new lines."""


@record
class _Splicer:
    """The state of a session writer, and its work on the new branch and its links."""

    transcript: Sequence[Message]
    lines: Sequence[Any]
    session: Session
    parts_of: dict[int, list[Part]]
    objs: list[Any] = field(default_factory=list)
    specs: dict[int, tuple[str, Message, list[Part]]] = field(default_factory=dict)
    order: list[int] = field(default_factory=list)
    """The message lines of the result (M'), in conversation order."""
    _session_id: str | None = None
    """The sessionId new lines get when the line they answer has none."""
    read: Session | None = None
    """The session the last output that read back as planned reads as."""

    # --- the new branch and its links ---------------------------------------------------

    def _sequence(self, dropped: set[int]) -> list[int]:
        """The branch after the edit: each message line with the non-message lines that
        followed it (lines after a dropped one stay with the line before it)."""
        messages = set(self.session.message_lines())
        head: list[int] = []
        followers: dict[int, list[int]] = {}
        owner: int | None = None
        for index in self.session.sequence:
            if index in messages:
                if index not in dropped:
                    owner = index
                    followers[index] = []
            elif owner is None:
                head.append(index)
            else:
                followers[owner].append(index)
        sequence = head
        for index in self.order:
            sequence.append(index)
            sequence.extend(followers.get(index, ()))
        return sequence

    def _new_uuids(self, sequence: list[int]) -> dict[int, str]:
        taken = set(self.session.by_uuid)
        uuids: dict[int, str] = {}
        for k, index in enumerate(sequence):
            if index < len(self.lines):
                uuids[index] = uuid_of(self.lines[index]) or ""
                continue
            previous = uuids[sequence[k - 1]] if k else ""
            _, _, parts = self.specs[index]
            key = next((p.call_id for p in parts if isinstance(p, model.ToolResultPart)), None)
            seed = f"{previous}\x00{self.specs[index][0] if key is None else key}"
            value, bump = str(uuidlib.uuid5(NAMESPACE, seed)), 0
            while value in taken:
                bump += 1
                value = str(uuidlib.uuid5(NAMESPACE, f"{seed}\x00{bump}"))
            taken.add(value)
            uuids[index] = value
        return uuids

    def _resolved(self, index: int, dropped: set[int]) -> str | None:
        """The parent of a line once dropped lines are skipped (their own parents taken).
        When they lead to a uuid the file does not hold, the line keeps the one it names
        (gone with the dropped line, it reads the same): nothing is rewritten."""
        own = parent_of(self.lines[index])
        parent, seen = own, set()
        while parent is not None and parent not in seen:
            found = self.session.by_uuid.get(parent)
            if found is None:
                return own
            if found not in dropped:
                break
            seen.add(parent)
            parent = parent_of(self.lines[found])
        return parent

    def _stays(self, uuid: str, dropped: set[int]) -> bool:
        """Whether `uuid` names a line of the file that is not dropped."""
        found = self.session.by_uuid.get(uuid)
        return found is not None and found not in dropped

    def _root_parent(self, index: int, dropped: set[int], root: str | None) -> str | None:
        """The parent of the branch's new first line: `root`, the old first line's, unless
        the line was read from the file and names a uuid the file will not hold (once
        dropped lines are skipped): then it keeps its own, which reads the same."""
        if index < len(self.lines):
            own = self._resolved(index, dropped)
            if own is not None and not self._stays(own, dropped):
                return own
        return root

    def _parents(
        self,
        sequence: list[int],
        dropped: set[int],
        uuids: dict[int, str],
        *,
        linear: bool,
        anchored: bool = False,
    ) -> dict[int, str | None]:
        """The parentUuid of every line: a line whose neighbour before it on the branch is
        unchanged keeps its parent (skipping dropped lines); any other branch line points
        at the line now before it (`linear`: every branch line does; `anchored`: at the
        first of the streamed reply's lines that run up to it, which reading puts the
        others after). In a session without links (`Session.linked` False) no branch
        line and no new line gets one, unless `linear`."""
        if not self.session.linked and not linear:
            # no line of the branch names a parent, and a new line gets none; every other
            # line (a sidechain, a line a later one shadows) keeps the parent it names
            unlinked: dict[int, str | None] = dict.fromkeys(sequence)
            unlinked.update((index, parent_of(line)) for index, line in enumerate(self.lines))
            return unlinked
        kept = [i for i in self.session.sequence if i not in dropped]
        before = {kept[k]: kept[k - 1] for k in range(1, len(kept))}
        first = self.session.sequence[:1]
        root = self._resolved(first[0], dropped) if first else None  # the branch root's parent
        parents: dict[int, str | None] = {}
        for k, index in enumerate(sequence):
            if k == 0:
                parents[index] = self._root_parent(index, dropped, root)
            elif linear or index >= len(self.lines) or before.get(index) != sequence[k - 1]:
                at = self._anchor(sequence, k - 1) if anchored else k - 1
                parents[index] = uuids[sequence[at]]
            else:
                parents[index] = self._resolved(index, dropped)
        for index in range(len(self.lines)):
            if index not in parents and index not in dropped:
                parents[index] = self._resolved(index, dropped)
        return parents

    def _anchor(self, sequence: list[int], k: int) -> int:
        """The position of the first of the run of one streamed reply's lines (assistant
        lines of the file sharing `message.id`) that ends at `sequence[k]`."""
        mid = self._reply_id(sequence[k])
        while mid is not None and k > 0 and self._reply_id(sequence[k - 1]) == mid:
            k -= 1
        return k

    def _reply_id(self, index: int) -> str | None:
        if index >= len(self.lines) or self.lines[index].get("type") != "assistant":
            return None
        return message_id(self.lines[index])

    def _call_line(self, parts: list[Part]) -> Any:
        """The line of the call the first result among `parts` answers, if there is one:
        the line the call is read from (found by its id as it is now, which a rename may
        have changed), else a line that held a call of that id when read. Where calls
        share the id, the result answers the last of them before it, and a line read
        with a call of that id may hold another: none is taken."""
        result = next((p for p in parts if isinstance(p, model.ToolResultPart)), None)
        if result is not None:
            wanted = result.call_id
            same = self._calls_of(wanted)
            for part in self._calls_before(result)[-1:] or same:
                parsed = parse_slot(part.slot)
                found = None if parsed is None else self.session.by_uuid.get(parsed[0])
                if found is not None:
                    return self.lines[found]
            if len(same) > 1:
                return None
            for index in self.session.message_lines():
                if any(
                    isinstance(p, model.ToolCallPart) and p.call_id == wanted
                    for p in self.parts_of.get(index, ())
                ):
                    return self.lines[index]
        return None

    def _calls_of(self, call_id: str | None) -> list[ToolCallPart]:
        """The calls of id `call_id` in the transcript, in order."""
        return [
            part
            for message in self.transcript
            for part in message.parts
            if isinstance(part, model.ToolCallPart) and part.call_id == call_id
        ]

    def _calls_before(self, result: ToolResultPart) -> list[ToolCallPart]:
        """The calls of `result`'s id before it in the transcript, in order (none when
        `result` is not one of its parts)."""
        calls: list[ToolCallPart] = []
        for message in self.transcript:
            for part in message.parts:
                if part is result:
                    return calls
                if isinstance(part, model.ToolCallPart) and part.call_id == result.call_id:
                    calls.append(part)
        return []

    def _new_line(self, index: int, uuid: str, parent: str | None, anchor: int | None) -> Any:
        """A new line, with the envelope of the line it answers: that of the call its first
        result answers, else the line before it on the branch. A result names its call's
        line in `sourceToolAssistantUUID` when the file's own results do (newer versions)."""
        kind, message, parts = self.specs[index]
        call = self._call_line(parts)
        source = call if call is not None else None if anchor is None else self.lines[anchor]
        found = None if source is None else source.get("sessionId")
        session = found if isinstance(found, str) else self._session_id
        if session is None:
            session = self._session_id = str(uuidlib.uuid5(NAMESPACE, "session\x00" + uuid))
        line = new_line(kind, message.id, parts, uuid, parent, session, source)
        tagged = any("sourceToolAssistantUUID" in other for other in self.lines)
        if tagged and call is not None and isinstance(call.get("uuid"), str):
            line["sourceToolAssistantUUID"] = call["uuid"]
        return line

    def _assemble(
        self,
        sequence: list[int],
        dropped: set[int],
        uuids: dict[int, str],
        parents: dict[int, str | None],
        last: int | None = None,
    ) -> tuple[list[Any], list[Any]]:
        """The output lines in file order (`last`: a line to write at the very end)."""
        objs = list(self.objs)
        for index, line in enumerate(self.lines):
            if index in dropped or parents[index] == parent_of(line):
                continue
            if parents[index] is None and line.get("parentUuid") is None:
                continue
            objs[index] = rebuild(objs[index], {"parentUuid": parents[index]})
        sessions = [s for s in (line.get("sessionId") for line in self.lines) if isinstance(s, str)]
        self._session_id = sessions[0] if sessions else None
        after: dict[int | None, list[int]] = {}
        anchor: int | None = None
        for index in sequence:
            if index < len(self.lines):
                anchor = index
                found = self.lines[index].get("sessionId")
                self._session_id = found if isinstance(found, str) else self._session_id
                continue
            objs[index] = self._new_line(index, uuids[index], parents[index], anchor)
            if index != last:
                after.setdefault(anchor, []).append(index)
        first = next((i for i in sequence if i < len(self.lines)), None)
        out: list[Any] = []
        for index in range(len(self.lines)):
            if index == first:
                out.extend(objs[i] for i in after.get(None, ()))
            if index not in dropped and index != last:
                out.append(objs[index])
                out.extend(objs[i] for i in after.get(index, ()))
        if first is None:
            out.extend(objs[i] for i in after.get(None, ()))
        if last is not None:
            out.append(objs[last])
        return out, objs

    def _in_order(self, sequence: list[int], dropped: set[int], objs: list[Any]) -> list[Any]:
        """The lines of a session without links, with the branch lines (and the new lines
        after each) in the slots the branch's original lines had, in the new order."""
        runs: list[list[int]] = [[]]
        for index in sequence:
            if index < len(self.lines):
                runs.append([])
            runs[-1].append(index)
        head, rest = runs[0], iter(runs[1:])
        on_branch = set(sequence)
        out: list[Any] = []
        for index in range(len(self.lines)):
            if index in dropped:
                continue
            if index not in on_branch:
                out.append(objs[index])
                continue
            out.extend(objs[i] for i in head)
            head = []
            out.extend(objs[i] for i in next(rest))
        out.extend(objs[i] for i in head)
        return out
