"""Which stored events of a Google ADK session are messages, as ADK decides when it builds a
model request from them (`google/adk/flows/llm_flows/context/_contents.py`, ADK 2.13).

An event is a message when its `content` has a role and at least one part ADK shows the
model (text, media, code, a function call or response, a server-side tool part, or a
part carrying a thought signature; a thought alone is not shown), and it is not left out:

- events annulled by a rewind (`actions.rewind_before_invocation_id`), and the rewind
  events themselves (ADK's `_apply_rewinds`);
- events of a task agent's scope (`isolation_scope`), and user messages of a workflow node
  (`node_info.path`, no function response);
- ADK's own calls and their responses (`adk_framework`, `adk_request_credential`,
  `adk_request_confirmation`);
- events on a tool's branch: a branch segment `<name>@<call id>` naming a call of the
  session (a tool's messages, an agent run as a tool).

Events of every other branch are read as ADK shows them to the agent of that branch: an
agent sees the events of its own branch and of the branches above it. A session whose
events stand on parallel branches (neither above the other) is read once per branch.
Events of other agents keep their own role. Partial events are read as ADK sends them.
Field names are read in snake_case or camelCase (ADK reads either).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

INTERNAL_CALLS = frozenset({"adk_framework", "adk_request_credential", "adk_request_confirmation"})
"""Names of the calls ADK makes for itself; events holding them are never sent."""

_OBJECTS = ("inline_data", "file_data", "executable_code", "code_execution_result")
_ALWAYS = ("function_call", "function_response", "tool_call", "tool_response")


def field(obj: Any, name: str) -> Any:
    """`obj[name]`, or its camelCase spelling; None when `obj` is no object or has neither."""
    if not isinstance(obj, dict):
        return None
    if name in obj:
        return obj[name]
    head, *rest = name.split("_")
    return obj.get(head + "".join(word.title() for word in rest))


def _shown(part: Any) -> bool:
    """Whether ADK shows the model this part (`_is_part_invisible`, thoughts not included)."""
    if not isinstance(part, dict):
        return True  # no part ADK reads; the codec says what is wrong with it
    if any(field(part, name) is not None for name in _ALWAYS) or field(part, "thought_signature"):
        return True
    shown = field(part, "text") or any(field(part, name) is not None for name in _OBJECTS)
    return bool(shown) and not field(part, "thought")


def _names(content: Any) -> set[str]:
    parts = field(content, "parts")
    found = set()
    for part in parts if isinstance(parts, list) else ():
        for kind in ("function_call", "function_response"):
            name = field(field(part, kind), "name")
            if isinstance(name, str):
                found.add(name)
    return found


def call_ids(events: Sequence[Any]) -> set[str]:
    """The ids of the function calls in `events`."""
    found = set()
    for event in events:
        parts = field(field(event, "content"), "parts")
        for part in parts if isinstance(parts, list) else ():
            call_id = field(field(part, "function_call"), "id")
            if isinstance(call_id, str) and call_id:
                found.add(call_id)
    return found


def live(events: Sequence[Any]) -> list[int]:
    """The positions of the events a rewind does not annul, in order (`_apply_rewinds`:
    walking back, a rewind to invocation X drops itself and every event back to the first
    of X)."""
    first: dict[str, int] = {}
    for k, event in enumerate(events):
        invocation = field(event, "invocation_id")
        if isinstance(invocation, str) and invocation and invocation not in first:
            first[invocation] = k
    kept: list[int] = []
    k = len(events) - 1
    while k >= 0:
        target = field(field(events[k], "actions"), "rewind_before_invocation_id")
        if target:
            start = first.get(target) if isinstance(target, str) else None
            if start is not None and start < k:
                k = start
        else:
            kept.append(k)
        k -= 1
    return kept[::-1]


def is_message(event: Any) -> bool:
    """Whether ADK puts this event's content in a request (rewinds and branches aside)."""
    content = field(event, "content")
    if content is None:
        return False
    if not isinstance(content, dict):
        return True  # not a Content: read, so that it is reported
    parts = field(content, "parts")
    if not field(content, "role") or not parts:
        return False
    if isinstance(parts, list) and not any(_shown(p) for p in parts):
        return False
    if field(event, "isolation_scope") is not None:
        return False
    node_path = field(field(event, "node_info"), "path")
    if field(event, "author") == "user" and node_path and not _responds(content):
        return False
    return not (_names(content) & INTERNAL_CALLS)


def _responds(content: Any) -> bool:
    parts = field(content, "parts")
    return any(field(p, "function_response") for p in parts if isinstance(parts, list))


def _segments(branch: Any) -> list[str]:
    return branch.split(".") if isinstance(branch, str) and branch else []


def _on_tool_branch(event: Any, ids: set[str]) -> bool:
    return any(s.rpartition("@")[2] in ids for s in _segments(field(event, "branch")) if "@" in s)


def views(events: Sequence[Any]) -> list[tuple[str, list[int]]]:
    """The positions of the message events of the session, once per branch ADK reads it
    from: `[("", positions)]` when no two branches are parallel, else `(branch,
    positions)` for each branch that has none below it."""
    ids = call_ids(events)
    kept = [k for k in live(events) if is_message(events[k])]
    kept = [k for k in kept if not _on_tool_branch(events[k], ids)]
    paths = {tuple(_segments(field(events[k], "branch"))) for k in kept}
    leaves = [p for p in paths if p and not any(q[: len(p)] == p and q != p for q in paths)]
    if len(leaves) <= 1:
        return [("", kept)]
    found = []
    for leaf in sorted(leaves):
        seen = [k for k in kept if leaf[: len(_path(events[k]))] == _path(events[k])]
        found.append((".".join(leaf), seen))
    return found


def _path(event: Any) -> tuple[str, ...]:
    return tuple(_segments(field(event, "branch")))


def compacted(events: Sequence[Any]) -> bool:
    """Whether the session holds a compaction summary (`actions.compaction`): ADK then
    sends the summary in place of the events it covers."""
    return any(field(field(e, "actions"), "compaction") for e in events)
