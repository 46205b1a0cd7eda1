"""Renaming call ids so that the new id reaches every reference, or not at all (HN104).

A call's id is cited by its results, by the approval request and response that wrap the
call (MEAI, Agent Framework, Vercel AI; their own id too where it is the call's), and by
records of the format that hold no message (Codex `event_msg` lines:
`Codec.rename_references`). `renamed` carries each new
id to all of them. An id that several calls share is ambiguous: no approval or record
is rewritten for it. `unreached` is the safety net: it writes the renamed transcript and
finds each old id still standing as a string (value or key) anywhere in it, so that the
rename that would leave one behind is refused.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from histnorm.edit import rewrite
from histnorm.errors import HistnormError, join_pointer
from histnorm.held_lines import SKIP as _SKIP
from histnorm.held_lines import candidate_line, source_of
from histnorm.lazy import model
from histnorm.pairing import Position, pair_transcript
from histnorm.profiles import Profile
from histnorm.rules._common import new_call_id, part_at, results_by_call

if TYPE_CHECKING:
    from histnorm.model import ApprovalRequestPart, ApprovalResponsePart, Part, Transcript


def new_ids(
    transcript: Transcript, positions: Iterable[Position], limits: Profile | None
) -> dict[Position, tuple[str, str]]:
    """The (old id, new id) of each call at `positions` (calls without an id are left out)."""
    out: dict[Position, tuple[str, str]] = {}
    for position in positions:
        call = part_at(transcript, position)
        if isinstance(call, model.ToolCallPart) and call.call_id is not None:
            out[position] = (call.call_id, new_call_id(call.call_id, position, limits))
    return out


def _call_counts(transcript: Transcript) -> dict[str, int]:
    counts: dict[str, int] = {}
    for message in transcript.messages:
        for part in message.parts:
            if isinstance(part, model.ToolCallPart) and part.call_id is not None:
                counts[part.call_id] = counts.get(part.call_id, 0) + 1
    return counts


def renamed(
    transcript: Transcript, positions: Iterable[Position], limits: Profile | None
) -> Transcript:
    """`transcript` with each call at `positions` given its new id (`new_call_id`), carried
    to its results, to the approvals that wrap it and to the codec's other references
    when the old id names that call alone."""
    ids = new_ids(transcript, positions, limits)
    if not ids:
        return transcript
    answers = results_by_call(pair_transcript(transcript))
    counts = _call_counts(transcript)
    unique = {old: new for old, new in ids.values() if counts.get(old) == 1}
    replace: dict[Position, list[Part]] = {}
    for position, (_, new) in ids.items():
        replace[position] = [part_at(transcript, position).evolve(call_id=new)]
        for result in answers.get(position, ()):
            replace[result] = [part_at(transcript, result).evolve(call_id=new)]
    for mi, message in enumerate(transcript.messages):
        for pi, part in enumerate(message.parts):
            if isinstance(part, model.ApprovalRequestPart | model.ApprovalResponsePart):
                changes = _approval_changes(part, unique)
                if changes:
                    replace[(mi, pi)] = [part.evolve(**changes)]
    out = rewrite(transcript, replace=replace)
    if out.format is None or not unique:
        return out
    from histnorm.formats import get_codec

    return get_codec(out.format).rename_references(out, unique)


def _approval_changes(
    part: ApprovalRequestPart | ApprovalResponsePart, unique: dict[str, str]
) -> dict[str, Any]:
    """The new call id for the call an approval wraps, and for its own id when that is the
    call's id (MEAI and Agent Framework name a request after its call)."""
    changes: dict[str, Any] = {}
    wrapped = part.tool_call
    if wrapped is not None and wrapped.call_id in unique:
        changes["tool_call"] = wrapped.evolve(call_id=unique[wrapped.call_id])
    own = part.request_id
    if own in unique and (wrapped is None or wrapped.call_id == own):
        changes["request_id"] = unique[own]
    return changes


def unreached(
    transcript: Transcript, positions: Iterable[Position], limits: Profile | None
) -> dict[Position, str]:
    """Why the rename of the call at each of `positions` must be refused, for those it
    must be: its old id still stands somewhere in the written result (given by pointer),
    or the result cannot be written."""
    ids = new_ids(transcript, positions, limits)
    if not ids or transcript.format is None:
        return {}
    from histnorm.formats import get_codec

    try:
        written = get_codec(transcript.format).encode(renamed(transcript, ids, limits))
    except HistnormError as error:
        return {
            position: f"the renamed transcript cannot be written: {error.message}"
            for position in ids
        }
    left = _find(written, {old for old, _ in ids.values()})
    return {
        position: f"the id is also cited at {left[old] or '/'}, where a rename cannot reach it"
        for position, (old, _) in ids.items()
        if old in left
    }


def _find(value: Any, wanted: set[str]) -> dict[str, str]:
    """The pointer of the first place each of `wanted` stands in `value`, as a string value
    or as a key (lines held as text: only those whose text may spell one are read)."""
    if source_of(value) is not None:
        return _find_in_lines(value, wanted)
    found: dict[str, str] = {}
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack and len(found) < len(wanted):
        node, at = stack.pop()
        if isinstance(node, str):
            if node in wanted and node not in found:
                found[node] = at
        elif isinstance(node, dict):
            for key, item in node.items():
                here = join_pointer(at, key)
                if isinstance(key, str) and key in wanted and key not in found:
                    found[key] = here
                stack.append((item, here))
        elif isinstance(node, list | tuple):
            stack.extend((item, join_pointer(at, i)) for i, item in enumerate(node))
    return found


def _find_in_lines(lines: Any, wanted: set[str]) -> dict[str, str]:
    """`_find` of lines held as text, in the order it walks a list (the last line first):
    a line as read is read only when its text holds one of `wanted` as spelled, or an
    escape, which could spell one; each is let go after."""
    found: dict[str, str] = {}
    spelled = [ident.encode() for ident in wanted]
    for index in reversed(range(len(lines))):
        if len(found) == len(wanted):
            break
        line = candidate_line(lines, index, spelled)
        if line is not _SKIP:
            for ident, at in _find(line, wanted - found.keys()).items():
                found[ident] = join_pointer("", index) + at
    return found


def cited_elsewhere(transcript: Transcript, ids: Iterable[str]) -> dict[str, str]:
    """Why a call id several calls share cannot be renamed in one of them (HN105), for the
    ids where that is so: an approval or a record of the format cites it, and which call
    it means cannot be told."""
    wanted = set(ids)
    out: dict[str, str] = {}
    for message in transcript.messages:
        for part in message.parts:
            if isinstance(part, model.ApprovalRequestPart | model.ApprovalResponsePart):
                cited = {part.request_id}
                if part.tool_call is not None and part.tool_call.call_id is not None:
                    cited.add(part.tool_call.call_id)
                for ident in cited & wanted:
                    out.setdefault(ident, "an approval cites it")
    rest = wanted - out.keys()
    if rest and transcript.format is not None:
        from histnorm.formats import get_codec

        codec = get_codec(transcript.format)
        for ident in rest:
            probe = codec.rename_references(transcript, {ident: ident + "\x00"})
            if probe is not transcript:
                out[ident] = "a record of the file that holds no message cites it"
    return out
