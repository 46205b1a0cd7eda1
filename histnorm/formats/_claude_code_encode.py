"""Writing an edited Claude Code session back: which lines to keep, rewrite, drop or add.

The rules are stated in the docstring of `histnorm.formats.claude_code`. Lines are
referred to by their index in the original line list; new lines get indices after it.
"""

from __future__ import annotations

import uuid as uuidlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from histnorm import jsonio
from histnorm.formats._claude_code_blocks import (
    encode_content,
    name_hosted_results,
    new_line,
    parse_slot,
    role_type,
)
from histnorm.formats._claude_code_tree import Session, analyse, message_id, parent_of, uuid_of
from histnorm.formats.base import rebuild, strict_equal
from histnorm.model import Message, Part, ToolResultPart

NAMESPACE = uuidlib.uuid5(uuidlib.NAMESPACE_URL, "https://histnorm.dev/formats/claude-code")
"""Namespace of the uuid5 values given to new lines."""


@dataclass
class _Segment:
    """The parts one line of a message holds: an original line, or a new one (`line` None)."""

    line: int | None
    parts: list[Part] = field(default_factory=list)


@dataclass
class _Writer:
    transcript: Sequence[Message]
    lines: Sequence[Any]
    session: Session
    parts_of: dict[int, list[Part]]
    objs: list[Any] = field(default_factory=list)
    specs: dict[int, tuple[str, Message, list[Part]]] = field(default_factory=dict)
    order: list[int] = field(default_factory=list)
    """The message lines of the result (M'), in conversation order."""

    def run(self) -> list[Any]:
        self.objs = list(self.lines)
        types = [role_type(m.role) for m in self.transcript]
        owners = self._owners()
        claims = self._claims(owners, types)
        for pos, message in enumerate(self.transcript):
            for segment in self._segments(pos, message, owners[pos], claims):
                self._emit(segment, message, types[pos])
        dropped = set(self.session.message_lines()) - set(self.order)
        gone = {uuid_of(self.lines[i]) for i in dropped}
        dropped |= {i for i, line in enumerate(self.lines) if uuid_of(line) in gone - {None}}
        sequence = self._sequence(dropped)
        uuids = self._new_uuids(sequence)
        parents = self._parents(sequence, dropped, uuids, linear=False)
        out, objs = self._assemble(sequence, dropped, uuids, parents)
        if self._reads_back(out, objs):
            return out
        parents = self._parents(sequence, dropped, uuids, linear=True)
        out, objs = self._assemble(sequence, dropped, uuids, parents)
        if self._reads_back(out, objs) or not sequence:
            return out
        # An older branch still wins the newest-leaf test: make the tip a leaf again (its
        # other children move up to its parent) and write it last.
        tip = sequence[-1]
        on_branch = set(sequence)
        for index, line in enumerate(self.lines):
            if index not in on_branch and parent_of(line) == uuids[tip]:
                parents[index] = parents[tip]
        out, _ = self._assemble(sequence, dropped, uuids, parents, last=tip)
        return out

    def _reads_back(self, out: list[Any], objs: list[Any]) -> bool:
        """Whether reading `out` gives the planned message lines, in order."""
        got = [id(out[i]) for i in analyse(out).message_lines()]
        return got == [id(objs[i]) for i in self.order]

    # --- which message owns which line ----------------------------------------------

    def _owners(self) -> list[int | None]:
        """The original group each message was decoded from (None: a new message)."""
        groups = self.session.groups
        by_first = {id(self.lines[g[0]]): gi for gi, g in enumerate(groups)}
        by_value: dict[bytes, int] | None = None
        owners: list[int | None] = []
        for message in self.transcript:
            gi = by_first.get(id(message.native)) if message.native is not None else None
            if gi is None and isinstance(message.native, dict):
                if by_value is None:
                    by_value = {}
                    for index, g in enumerate(groups):
                        by_value.setdefault(jsonio.dumps(self.lines[g[0]]), index)
                gi = by_value.get(jsonio.dumps(message.native))
            owners.append(None if gi in owners else gi)
        return owners

    def _target(self, part: Part) -> int | None:
        """The original message line a part was read from, if it is one."""
        parsed = parse_slot(part.slot)
        index = None if parsed is None else self.session.by_uuid.get(parsed[0])
        return index if index in self.parts_of else None

    def _claims(self, owners: list[int | None], types: list[str]) -> dict[int, int]:
        """Line -> message position: a message keeps its own lines that still hold its parts
        (and its lines that held nothing); a line no longer held by its message goes to the
        first message holding a part from it, when the line type fits."""
        claims: dict[int, int] = {}
        for pos, message in enumerate(self.transcript):
            gi = owners[pos]
            if gi is None:
                continue
            own = self.session.groups[gi]
            for part in message.parts:
                index = self._target(part)
                if index in own:
                    claims.setdefault(index, pos)
            for index in own:
                if not self.parts_of[index]:
                    claims.setdefault(index, pos)
        for pos, message in enumerate(self.transcript):
            for part in message.parts:
                index = self._target(part)
                if (
                    index is not None
                    and index not in claims
                    and self.lines[index].get("type") == types[pos]
                ):
                    claims[index] = pos
        return claims

    def _segments(
        self, pos: int, message: Message, owner: int | None, claims: dict[int, int]
    ) -> list[_Segment]:
        """The lines of one message and the parts each holds, in order. Parts with no line
        of their own join the line of the part before them (or the message's first line)."""
        out: list[_Segment] = []
        pending: list[Part] = []
        held: set[int] = set()
        for part in message.parts:
            index = self._target(part)
            if index is not None and claims.get(index) == pos and index not in held:
                held.add(index)
                out.append(_Segment(index, [*pending, part]))
                pending = []
            else:
                (out[-1].parts if out else pending).append(part)
        own = self.session.groups[owner] if owner is not None else ()
        for rank, index in enumerate(own):
            if claims.get(index) == pos and not self.parts_of[index] and index not in held:
                later = [k for k, s in enumerate(out) if s.line in own[rank:]]
                out.insert(later[0] if later else len(out), _Segment(index))
        if pending or not out:
            if out:
                out[0].parts[:0] = pending
            elif own and own[0] not in claims:
                claims[own[0]] = pos
                out.append(_Segment(own[0], pending))
            else:
                out.append(_Segment(None, pending))
        return out

    # --- line contents ----------------------------------------------------------------

    def _emit(self, segment: _Segment, message: Message, kind: str) -> None:
        if segment.line is None:
            index = len(self.objs)
            self.objs.append(None)
            self.specs[index] = (kind, message, segment.parts)
            self.order.append(index)
            return
        index = segment.line
        self.order.append(index)
        line = self.lines[index]
        body = line.get("message")
        body = body if isinstance(body, dict) else {}
        updates: dict[str, Any] = {}
        if line.get("type") != kind:
            updates["type"] = kind
        body_updates: dict[str, Any] = {}
        if kind == "assistant" and message.id is not None and message_id(line) != message.id:
            body_updates["id"] = message.id
        if "type" in updates:
            body_updates["role"] = kind
        if not strict_equal(segment.parts, self.parts_of[index]):
            body_updates["content"] = encode_content(segment.parts, body.get("content"))
        if body_updates:
            updates["message"] = rebuild(body, body_updates)
        if updates:
            self.objs[index] = rebuild(line, updates)

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
            key = next((p.call_id for p in parts if isinstance(p, ToolResultPart)), None)
            seed = f"{previous}\x00{self.specs[index][0] if key is None else key}"
            value, bump = str(uuidlib.uuid5(NAMESPACE, seed)), 0
            while value in taken:
                bump += 1
                value = str(uuidlib.uuid5(NAMESPACE, f"{seed}\x00{bump}"))
            taken.add(value)
            uuids[index] = value
        return uuids

    def _resolved(self, index: int, dropped: set[int]) -> str | None:
        """The parent of a line once dropped lines are skipped (their own parents taken)."""
        parent, seen = parent_of(self.lines[index]), set()
        while parent is not None and parent not in seen:
            found = self.session.by_uuid.get(parent)
            if found is None or found not in dropped:
                break
            seen.add(parent)
            parent = parent_of(self.lines[found])
        return parent

    def _parents(
        self, sequence: list[int], dropped: set[int], uuids: dict[int, str], *, linear: bool
    ) -> dict[int, str | None]:
        """The parentUuid of every line: a line whose neighbour before it on the branch is
        unchanged keeps its parent (skipping dropped lines); any other branch line points
        at the line now before it (`linear`: every branch line does)."""
        kept = [i for i in self.session.sequence if i not in dropped]
        before = {kept[k]: kept[k - 1] for k in range(1, len(kept))}
        first = self.session.sequence[:1]
        root = self._resolved(first[0], dropped) if first else None  # the branch root's parent
        parents: dict[int, str | None] = {}
        for k, index in enumerate(sequence):
            if k == 0:
                parents[index] = root
            elif linear or index >= len(self.lines) or before.get(index) != sequence[k - 1]:
                parents[index] = uuids[sequence[k - 1]]
            else:
                parents[index] = self._resolved(index, dropped)
        for index in range(len(self.lines)):
            if index not in parents and index not in dropped:
                parents[index] = self._resolved(index, dropped)
        return parents

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
        current = sessions[0] if sessions else None
        after: dict[int | None, list[int]] = {}
        anchor: int | None = None
        for index in sequence:
            if index < len(self.lines):
                anchor = index
                found = self.lines[index].get("sessionId")
                current = found if isinstance(found, str) else current
                continue
            if current is None:
                current = str(uuidlib.uuid5(NAMESPACE, "session\x00" + uuids[index]))
            kind, message, parts = self.specs[index]
            objs[index] = new_line(kind, message.id, parts, uuids[index], parents[index], current)
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


def encode_session(
    messages: Sequence[Message],
    lines: Sequence[Any],
    session: Session,
    parts_of: dict[int, list[Part]],
) -> list[Any]:
    """The session lines for `messages`; unchanged lines are the very objects of `lines`."""
    return _Writer(name_hosted_results(messages), lines, session, parts_of).run()
