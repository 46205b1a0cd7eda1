"""Hypothesis strategies for native Codex CLI rollouts (the `codex` codec).

A rollout is the list of a file's parsed lines, each `{"timestamp", "type", "payload"}`
(codex-rs/protocol/src/protocol.rs `RolloutLine` / `RolloutItem`): an optional
`session_meta` first, then `response_item` lines whose payloads are the Responses items
of `strategies_openai_responses.items` (codex-rs/protocol/src/models.rs `ResponseItem`
is that API's item shape; its calls and outputs reuse call ids), with `turn_context`,
`event_msg`, `compacted` and unknown line types between them, and unknown keys on some
lines. Every rollout holds at least one `response_item` or `session_meta` line, so it is
recognisable.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st
from strategies_json import JSON_OBJECTS, JSON_VALUES, SHORT_TEXT, damaged
from strategies_openai_responses import items

STAMPS = st.sampled_from(
    ["2026-07-14T09:12:00.120Z", "2026-07-14T09:12:03.410Z", "2026-07-14T09:13:00Z", ""]
)
EVENTS = st.sampled_from(
    ["user_message", "agent_message", "token_count", "task_started", "turn_aborted", "x_new"]
)


@st.composite
def session_meta(draw: st.DrawFn) -> dict[str, Any]:
    payload = {"id": "0199a3c4-5e6f-7a8b-9c0d-1e2f3a4b5c6d", "cwd": "/home/dev/shop"}
    payload["cli_version"] = draw(st.sampled_from(["0.142.0", "0.150.0"]))
    return {"timestamp": draw(STAMPS), "type": "session_meta", "payload": payload}


@st.composite
def other_line(draw: st.DrawFn) -> dict[str, Any]:
    """A line that is no `response_item`: a turn context, an event, a compaction, a type
    of a later Codex, or (rarely) an object without the envelope at all."""
    kind = draw(st.sampled_from(["turn_context", "event_msg", "compacted", "world_state", "bare"]))
    if kind == "bare":
        return draw(st.dictionaries(st.sampled_from(["note", "record_type"]), SHORT_TEXT))
    payload: dict[str, Any] = draw(JSON_OBJECTS)
    if kind == "event_msg":
        payload = {"type": draw(EVENTS), **payload}
    elif kind == "compacted":
        payload = {"message": draw(SHORT_TEXT), "replacement_history": draw(items(0, 2))}
    return {"timestamp": draw(STAMPS), "type": kind, "payload": payload}


@st.composite
def item_line(draw: st.DrawFn, payload: Any) -> dict[str, Any]:
    line: dict[str, Any] = {"timestamp": draw(STAMPS), "type": "response_item", "payload": payload}
    if draw(st.integers(0, 5)) == 0:
        line["x_extra"] = draw(JSON_VALUES)
    return line


@st.composite
def rollouts(draw: st.DrawFn, max_items: int = 6) -> list[dict[str, Any]]:
    """A rollout: items in order, other lines between them, maybe a `session_meta` first."""
    payloads = [p for p in draw(items(0, max_items)) if isinstance(p, dict)]
    lines: list[dict[str, Any]] = [draw(item_line(p)) for p in payloads]
    for _ in range(draw(st.integers(0, 3))):
        lines.insert(draw(st.integers(0, len(lines))), draw(other_line()))
    if not payloads or draw(st.booleans()):
        lines.insert(0, draw(session_meta()))
    return lines


def damaged_rollouts() -> st.SearchStrategy[Any]:
    """A valid rollout with one value (anywhere) replaced by an arbitrary JSON value."""
    return damaged(rollouts(max_items=4))
