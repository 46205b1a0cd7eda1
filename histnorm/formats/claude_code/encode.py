"""Writing an edited Claude Code session back: which lines to keep, rewrite, drop or add.

The rules are stated in the docstring of `histnorm.formats.claude_code`. Lines are
referred to by their index in the original line list; new lines get indices after it.
This module decides which line each part goes to and rewrites the kept lines; ordering
the new branch, giving new lines their uuids and every line its parent, and splicing the
new lines into the file are in `histnorm.formats.claude_code.splice`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import field
from typing import TYPE_CHECKING, Any

import histnorm.jsonio as jsonio
from histnorm._record import record
from histnorm.errors import HistnormError
from histnorm.formats.anthropic.blocks import name_hosted_results
from histnorm.formats.base import rebuild, strict_equal
from histnorm.formats.claude_code.block_encode import (
    encode_content,
    role_type,
)
from histnorm.formats.claude_code.blocks import parse_slot
from histnorm.formats.claude_code.splice import _Splicer
from histnorm.formats.claude_code.tree import Session, analyse, message_id, parent_of, uuid_of

if TYPE_CHECKING:
    from histnorm.model import Message, Part


@record
class _Segment:
    """The parts one line of a message holds: an original line, or a new one (`line` None)."""

    line: int | None
    parts: list[Part] = field(default_factory=list)


class _Writer(_Splicer):
    """The session writer: which line each part goes to, and the new contents of kept
    lines (the new branch and its links are `_Splicer`'s)."""

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
        found = self._layout(sequence, dropped, uuids)
        if found is not None:
            return found
        parents = self._parents(sequence, dropped, uuids, linear=True)
        self._refuse_broken_links(parents, dropped)
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
        self._refuse_broken_links(parents, dropped)
        out, _ = self._assemble(sequence, dropped, uuids, parents, last=tip)
        return out

    def _layout(
        self, sequence: list[int], dropped: set[int], uuids: dict[int, str]
    ) -> list[Any] | None:
        """The output lines of the first layout that reads back as planned and re-points
        no broken link, or None. Layouts keeping the links that dropped lines leave
        dangling are tried first (an earlier fix of the same run may have dropped such a
        line, and that fix's edit must not be undone), then those that keep only the
        links the file itself leaves dangling."""
        parents = self._parents(sequence, dropped, uuids, linear=False)
        tries: list[tuple[dict[int, str | None], int | None]] = [(parents, None)]
        if self.session.linked:
            anchored = self._parents(sequence, dropped, uuids, linear=False, anchored=True)
            if anchored != parents:  # new lines under a streamed reply
                tries.append((anchored, None))
            if sequence:
                # Reading puts a streamed reply's lines after the one the newest leaf's
                # path reaches: with the reply's first line written last, it is the first.
                tries.append((parents, sequence[self._anchor(sequence, len(sequence) - 1)]))
        tried: set[int] = set()
        for strict in (True, False):
            for k, (links, last) in enumerate(tries):
                if k in tried or self._broken_link(links, dropped, strict=strict) is not None:
                    continue
                tried.add(k)
                out, objs = self._assemble(sequence, dropped, uuids, links, last=last)
                if self._reads_back(out, objs):
                    return out
                if k == 0 and not self.session.linked:  # no links: file order is the order
                    out = self._in_order(sequence, dropped, objs)
                    if self._reads_back(out, objs):
                        return out
        return None

    def _broken_link(
        self, parents: dict[int, str | None], dropped: set[int], *, strict: bool = False
    ) -> int | None:
        """A kept line whose `parentUuid` names a line the file does not hold and that
        `parents` would re-point (None if there is none): that link is the only record of
        where the line came from, and no rule owns it. `strict`: also a line whose
        dropped ancestors lead to such a uuid (it keeps the uuid it names)."""
        for index, line in enumerate(self.lines):
            own = parent_of(line)
            if index in dropped or own is None:
                continue
            if strict:
                resolved = self._resolved(index, dropped)
                if resolved is None or self._stays(resolved, dropped):
                    continue
            elif own in self.session.by_uuid:
                continue
            if parents.get(index, own) != own:
                return index
        return None

    def _refuse_broken_links(self, parents: dict[int, str | None], dropped: set[int]) -> None:
        """Raise when `parents` would re-point a broken link (`_broken_link`)."""
        index = self._broken_link(parents, dropped)
        if index is not None:
            line = self.lines[index]
            raise HistnormError(
                f"the line {uuid_of(line)!r} names a parent the session does not hold "
                f"({parent_of(line)!r}); writing the edit would re-point that link"
            )

    def _reads_back(self, out: list[Any], objs: list[Any]) -> bool:
        """Whether reading `out` gives the planned message lines, in order (if so, `read`
        is the session it reads as)."""
        session = analyse(out)
        if [id(out[i]) for i in session.message_lines()] != [id(objs[i]) for i in self.order]:
            return False
        self.read = session
        return True

    # --- which message owns which line ----------------------------------------------

    def _owners(self) -> list[int | None]:
        """The original group each message was decoded from (None: a new message)."""
        groups = self.session.groups
        by_first = {id(self.lines[g[0]]): gi for gi, g in enumerate(groups)}
        by_value: dict[bytes, int] | None = None
        owners: list[int | None] = []
        taken: set[int] = set()  # a group owned twice is owned by its first message only
        for message in self.transcript:
            gi = by_first.get(id(message.native)) if message.native is not None else None
            if gi is None and isinstance(message.native, dict):
                if by_value is None:
                    by_value = {}
                    for index, g in enumerate(groups):
                        by_value.setdefault(jsonio.dumps(self.lines[g[0]]), index)
                gi = by_value.get(jsonio.dumps(message.native))
            owners.append(None if gi is None or gi in taken else gi)
            if gi is not None:
                taken.add(gi)
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


def encode_session(
    messages: Sequence[Message],
    lines: Sequence[Any],
    session: Session,
    parts_of: dict[int, list[Part]],
) -> tuple[list[Any], Session | None]:
    """The session lines for `messages` (unchanged lines are the very objects of `lines`),
    and the session they read as when the writer read them (else None)."""
    writer = _Writer(name_hosted_results(messages), lines, session, parts_of)
    out = writer.run()
    read = writer.read
    return out, read if read is not None and read.lines is out else None
