"""One Google ADK session's stored events, checked as `gemini` transcripts, and the event
row changes its fix comes to.

The messages are the `content` of the events ADK sends (`histnorm_cli.adk_events`), in
stored order; a diagnostic points into the session's rows: `/3/content/parts/0` is the
first part of the fourth event's content. A fix is written only as changes ADK reads back
as they are meant: a content rewritten in its event's row, or an event row deleted when a
fix removes its whole content and the event holds nothing else (no actions, state, usage,
metadata or long-running ids). Anything else is refused, saying why: a fix that would add
a content (it needs a new event) or move one (events are ordered by their timestamp), one
that would drop a long-running call ADK waits on, or change calls that
`ToolCallIntegrityPlugin` signed. Displaced results (HN008) and a call's second result
(HN010) are left as stored: ADK moves a call's latest response next to it when it builds a
request. A session read once per parallel branch, or holding a compaction summary (it is
linted on its stored events, where ADK would send the summary in place of those it
covers), is never rewritten.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import field, replace
from typing import Any

import histnorm
from histnorm._record import record
from histnorm.diagnostic import Diagnostic
from histnorm.engine import fix_allowed, fix_refused, unreadable
from histnorm.errors import HistnormError
from histnorm.linemap import duplicate_key
from histnorm.settings import Settings
from histnorm_cli.adk_events import compacted, views
from histnorm_cli.adk_events import field as get
from histnorm_cli.session_rows import lost_number

FORMAT = "gemini"

Row = tuple[Any, Any, Any]
"""A stored event row: its id, its timestamp and its `event_data` text (or None)."""

HELD: Mapping[str, str] = {
    "HN008": "ADK orders events by their timestamp and histnorm does not move one; ADK "
    "itself moves a call's latest response next to it when it builds a request",
    "HN010": "ADK answers a call with its latest response (a long-running tool's updates); "
    "histnorm does not choose between them",
    "HN015": "splitting a content would add an event; histnorm does not write new ADK events",
}
"""Rules whose fixes are never written to an ADK session, and why."""

ADDED = "a fix would add a content, which needs a new event; histnorm does not write new ADK events"
MOVED = "a fix would move an event; ADK orders events by their timestamp, which histnorm keeps"
PARALLEL = "the session's events stand on parallel branches; histnorm does not rewrite it"
COMPACTED = (
    "the session holds a compaction summary (ADK sends it in place of the events it "
    "covers); histnorm does not rewrite it"
)
UNREADABLE = "the session has an event row ADK cannot read"
HMAC = "__adk_internal_fc_hmac"
"""The `custom_metadata` key where `ToolCallIntegrityPlugin` keeps its call signatures."""
_DISPOSABLE = frozenset(
    {
        "id",
        "invocation_id",
        "author",
        "timestamp",
        "content",
        "branch",
        "node_info",
        "partial",
        "turn_complete",
        "finish_reason",
        "model_version",
    }
)
"""Event fields that say nothing once the event's content is gone."""


@record
class Plan:
    """The row changes of one session's fix: (event id, new `event_data` text), event ids."""

    update: list[tuple[Any, str]] = field(default_factory=list)
    delete: list[Any] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.update or self.delete)


@record
class Checked:
    """One session after the rules ran: the diagnostics of each branch it is read from
    (`""` when it is read once; none when it holds no message), and its fix."""

    views: list[tuple[str, list[Diagnostic]]]
    plan: Plan = field(default_factory=Plan)
    applied: dict[str, int] = field(default_factory=dict)
    fixes: tuple[Diagnostic, ...] = ()
    new_texts: list[str] | None = None
    """The session's rows' texts after the fix (for a diff); None when unchanged."""


def _parse(rows: Sequence[Row]) -> tuple[list[Any], list[Diagnostic], set[int]]:
    """Each row's event (`{}` for a row ADK reads as an empty event or cannot read), an
    HN000 per row that is not a JSON object, and the positions of rows repeating a key."""
    events: list[Any] = []
    errors: list[Diagnostic] = []
    repeated: set[int] = set()
    for position, (event_id, _, text) in enumerate(rows):
        event: Any = {}
        if text is not None:
            try:
                event = json.loads(text)
            except (json.JSONDecodeError, TypeError, UnicodeDecodeError) as exc:
                reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
                message = f"event row {event_id} is not valid JSON ({reason}); ADK cannot read it"
                errors.append(unreadable(HistnormError(message, pointer=f"/{position}")))
                event = {}
            raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
            if isinstance(raw, bytes) and duplicate_key(raw) is not None:
                repeated.add(position)
        if not isinstance(event, dict):
            message = f"event row {event_id} holds no JSON object; ADK cannot read it"
            errors.append(unreadable(HistnormError(message, pointer=f"/{position}")))
            event = {}
        events.append(event)
    return events, errors, repeated


def _moved(diagnostic: Diagnostic, positions: Sequence[int]) -> Diagnostic:
    """`diagnostic` with its pointer into the messages turned into one into the rows."""
    pointer = diagnostic.location.pointer
    if not pointer:
        return diagnostic
    head, _, rest = pointer[1:].partition("/")
    if not head.isdigit() or int(head) >= len(positions):
        return diagnostic
    return diagnostic.at(pointer=f"/{positions[int(head)]}/content" + (f"/{rest}" if rest else ""))


def _lint(contents: list[Any], settings: Settings) -> list[Diagnostic]:
    return list(histnorm.lint(contents, settings, format=FORMAT)) if contents else []


def check_session(
    rows: Sequence[Row], fix: bool, settings: Settings, refusal: str | None = None
) -> Checked:
    """Lint one session's rows (in ADK's order), or work out its fix. A fix that cannot be
    written is withdrawn with its reason in `lint` too, so both report the same;
    `refusal` says why the database must not be written at all."""
    events, errors, repeated = _parse(rows)
    seen = views(events)
    if not errors and not any(positions for _, positions in seen):
        return Checked([])  # no message: state changes only, no conversation
    reason = refusal or (PARALLEL if len(seen) > 1 else None)
    reason = reason or (UNREADABLE if errors else COMPACTED if compacted(events) else None)
    if reason is None:
        ((_, positions),) = seen
        return _fix(rows, events, positions, repeated, settings, fix)
    found = []
    for branch, positions in seen:
        contents = [events[p].get("content") for p in positions]
        diagnostics = fix_refused(_lint(contents, settings), reason)
        found.append((branch, [_moved(d, positions) for d in diagnostics]))
    found[0] = (found[0][0], errors + found[0][1])
    return Checked(found)


def _pending(events: Sequence[Any]) -> set[str]:
    """The ids of the long-running calls of the session (`long_running_tool_ids`)."""
    found: set[str] = set()
    for event in events:
        ids = get(event, "long_running_tool_ids")
        if isinstance(ids, list):
            found.update(i for i in ids if isinstance(i, str))
    return found


def _call_id(contents: Sequence[Any], pointer: str) -> Any:
    """The id of the function call at `pointer` (`/k/parts/j`) in `contents`, or None."""
    steps = pointer.split("/")[1:]
    try:
        part = get(contents[int(steps[0])], "parts")[int(steps[2])]
    except (IndexError, ValueError, TypeError, KeyError):
        return None
    return get(get(part, "function_call"), "id")


def _held(
    found: Sequence[Diagnostic], contents: Sequence[Any], pending: set[str], settings: Settings
) -> dict[str, str]:
    """The rules whose fixes are held in this session, and why."""
    held: dict[str, str] = {}
    for d in found:
        if not fix_allowed(d, settings):
            continue
        if d.code in HELD:
            held[d.code] = HELD[d.code]
        elif d.code == "HN001" and _call_id(contents, d.location.pointer or "") in pending:
            call = _call_id(contents, d.location.pointer or "")
            held[d.code] = (
                f"call '{call}' is a long-running call ADK waits on (long_running_tool_ids); "
                "histnorm does not drop an orphan call from this session"
            )
    return held


def _annotate(diagnostics: Sequence[Diagnostic], held: Mapping[str, str]) -> list[Diagnostic]:
    return [
        replace(d, fix=None, message=f"{d.message} (not fixed: {held[d.code]})")
        if d.code in held
        else d
        for d in diagnostics
    ]


def _fix(
    rows: Sequence[Row],
    events: list[Any],
    positions: list[int],
    repeated: set[int],
    settings: Settings,
    write: bool,
) -> Checked:
    contents = [events[p].get("content") for p in positions]
    found = _lint(contents, settings)
    pending = _pending(events)
    held = _held(found, contents, pending, settings)
    shown = _annotate(found, held)

    def located(diagnostics: Sequence[Diagnostic]) -> Checked:
        return Checked([("", [_moved(d, positions) for d in diagnostics])])

    try:
        read = histnorm.load(contents, format=FORMAT)
    except HistnormError:  # the lint above says what is wrong
        return located(found)
    if len(read.messages) != len(contents):
        return located(fix_refused(shown, ADDED))
    chosen = settings.model_copy(update={"unfixable": (*settings.unfixable, *held)})
    result = histnorm.fix(read, chosen)
    if not result.changed:
        return located(_annotate(result.remaining, held))
    planned = _plan(rows, events, positions, repeated, pending, read, result)
    if isinstance(planned, str):
        return located(fix_refused(shown, planned))
    if not write:
        return located(shown)
    plan, after = planned
    remaining = [_moved(d, after) for d in _annotate(result.remaining, held)]
    fixes = _located_fixes(result.fixes, [_moved(d, positions) for d in found])
    updated = dict(plan.update)
    deleted = set(plan.delete)
    new_texts = [updated.get(row[0], row_text(row[2])) for row in rows if row[0] not in deleted]
    return Checked([("", remaining)], plan, dict(result.applied), fixes, new_texts)


def _located_fixes(
    fixes: Sequence[Diagnostic], found: Sequence[Diagnostic]
) -> tuple[Diagnostic, ...]:
    """Each fix located in the rows: a fix is reported where the transcript stood when it
    applied, so it takes the place of the diagnostic it answers as first found (same code
    and message); one that only an earlier fix brought about is located in the session."""
    places: dict[tuple[str, str], list[str | None]] = {}
    for d in found:
        places.setdefault((d.code, d.message), []).append(d.location.pointer)
    located = []
    for d in fixes:
        queue = places.get((d.code, d.message))
        located.append(d.at(pointer=queue.pop(0) if queue else ""))
    return tuple(located)


def row_text(text: Any) -> str:
    """A row's `event_data` as text, for a diff."""
    return text if isinstance(text, str) else "null" if text is None else repr(text)


def _plan(
    rows: Sequence[Row],
    events: list[Any],
    positions: list[int],
    repeated: set[int],
    pending: set[str],
    read: Any,
    result: Any,
) -> tuple[Plan, list[int]] | str:
    """The row changes of a fix, and the row of each message left; or why there are none
    ADK would read back as the repaired history."""
    source = {id(message.native): k for k, message in enumerate(read.messages)}
    encoded = histnorm.encode(result.transcript)
    messages = result.transcript.messages
    if not isinstance(encoded, list) or len(encoded) != len(messages):
        return ADDED
    new: dict[int, Any] = {}
    order: list[int] = []
    for message, content in zip(messages, encoded, strict=True):
        k = source.get(id(message.native))
        if k is None or k in order:
            return ADDED
        if order and k < order[-1]:
            return MOVED
        order.append(k)
        if content is not message.native and content != read.messages[k].native:
            new[k] = content
    new.update({k: None for k in range(len(positions)) if k not in order})
    plan = Plan()
    for k, content in sorted(new.items()):
        position = positions[k]
        event, event_id = events[position], rows[position][0]
        why = _unsafe(event, event_id, content, position in repeated, pending)
        if why is None and content is not None:
            number = lost_number(rows[position][2])
            if number is not None:
                why = (
                    f"event row {event_id} holds the number {number}, which a rewrite "
                    "would not keep exactly"
                )
        if why is not None:
            return why
        if content is None:
            plan.delete.append(event_id)
        else:
            plan.update.append((event_id, json.dumps({**event, "content": content})))
    return plan, [positions[k] for k in order]


def _calls(content: Any) -> list[Any]:
    parts = get(content, "parts")
    calls = (get(p, "function_call") for p in parts) if isinstance(parts, list) else ()
    return [call for call in calls if call is not None]


def _unsafe(
    event: Any, event_id: Any, content: Any, repeated: bool, pending: set[str]
) -> str | None:
    """Why the event must not get `content` (None: be deleted), or None when it may."""
    if repeated:
        return f"event row {event_id} repeats a key in one object; a rewrite would keep only one"
    before, after = _calls(event.get("content")), _calls(content)
    kept = {get(call, "id") for call in after}
    gone = [get(c, "id") for c in before if get(c, "id") in pending and get(c, "id") not in kept]
    if gone:
        return f"a fix would drop call '{gone[0]}', a long-running call ADK waits on"
    signed = get(get(event, "custom_metadata"), HMAC)
    if signed and before != after:
        return (
            f"the calls of event {event_id} are signed by ToolCallIntegrityPlugin "
            "(custom_metadata " + HMAC + "); changing them would fail its check"
        )
    if content is None:
        held = _held_fields(event)
        if held:
            return (
                f"a fix would remove the whole content of event {event_id}, which also holds "
                f"{', '.join(held)}; histnorm deletes an event only when its content is all "
                "it holds"
            )
    return None


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name)


def _held_fields(event: Mapping[str, Any]) -> list[str]:
    """The fields of `event` that would be lost with it (empty actions lose nothing)."""
    found = []
    for key, value in event.items():
        name = _snake(key)
        if name == "actions" and isinstance(value, dict):
            found += [f"actions.{_snake(k)}" for k, v in value.items() if v not in (None, {}, [])]
        elif name not in _DISPOSABLE and value is not None:
            found.append(name)
    return found
