"""Google ADK `DatabaseSessionService` databases (its current schema, version 1): tables
`adk_internal_metadata(key, value)`, `sessions(app_name, user_id, id, state, create_time,
update_time)` and `events(id, app_name, user_id, session_id, invocation_id, timestamp,
event_data)`, one event per row as the `json.dumps` text of its fields, a session's
events ordered by `timestamp` then `id`, as `DatabaseSessionService.get_session` reads
them.

On PostgreSQL `event_data` is JSONB: it is read as its text (`::text`, which keeps no key
order and spells numbers as stored) and written back as JSONB; a row holding a number a
rewrite would not keep exactly is never rewritten.

Each session (`app_name`, `user_id`, `id`) is one `gemini` transcript
(`histnorm_cli.adk_session`), named by its id (`app/user/id` when the id is used by more
than one app or user). `fix` writes the sessions that change in one transaction
(`histnorm_cli.sql`), after locking each session's `sessions` row as ADK does before it
appends an event, and checking that its rows are still those read: it rewrites the
`event_data` of the events whose content changed and deletes an event only when a fix
removes its whole content and it holds nothing else; every other row, the `sessions`
table and the timestamps are left as they are.
"""

from __future__ import annotations

from typing import Any

from histnorm_cli.adk_session import Plan, Row, check_session, row_text
from histnorm_cli.job import Job, Outcome
from histnorm_cli.session_rows import not_rewritable, record_fix, write_in_one_transaction
from histnorm_cli.sql import Database

EVENTS = "events"
_COLUMNS = {
    "adk_internal_metadata": ("key", "value"),
    "sessions": ("app_name", "user_id", "id", "state", "create_time", "update_time"),
    EVENTS: ("id", "app_name", "user_id", "session_id", "invocation_id", "timestamp", "event_data"),
}
VERSION = "1"
"""The schema version histnorm reads (`adk_internal_metadata.schema_version`)."""

Key = tuple[Any, Any, Any]
"""A session: its app name, user id and id."""


def recognise(db: Database) -> bool:
    """Whether the database has the service's tables, with exactly their columns."""
    return all(db.columns(table) == columns for table, columns in _COLUMNS.items())


def unread(db: Database) -> str | None:
    """Why the database is not read although its tables are the service's (a schema
    version other than the one histnorm reads), or None."""
    found = db.execute("SELECT value FROM adk_internal_metadata WHERE key = 'schema_version'")
    version = found[0][0] if found else None
    if version == VERSION:
        return None
    return (
        f"an ADK DatabaseSessionService database of schema version {version!r}; "
        f"histnorm reads version {VERSION!r}; not read"
    )


def sessions(db: Database) -> dict[Key, list[Row]]:
    """Each session's event rows in ADK's order (sessions by app name, user id and id)."""
    found: dict[Key, list[Row]] = {}
    data = db.read(EVENTS, "event_data")
    query = (
        f"SELECT app_name, user_id, session_id, id, timestamp, {data} FROM {EVENTS} "
        "ORDER BY app_name, user_id, session_id, timestamp, id"
    )
    for app, user, session_id, event_id, timestamp, data in db.execute(query):
        found.setdefault((app, user, session_id), []).append((event_id, timestamp, data))
    return found


def _names(keys: list[Key]) -> dict[Key, str]:
    """Each session's name: its id, or `app/user/id` for an id more than one has."""
    count: dict[Any, int] = {}
    for _, _, session_id in keys:
        count[session_id] = count.get(session_id, 0) + 1
    return {
        key: str(key[2]) if count[key[2]] == 1 else "/".join(str(k) for k in key) for key in keys
    }


def run(db: Database, job: Job, outcome: Outcome) -> dict[Any, tuple[list[Row], Plan]]:
    """Lint (or work out the fix of) each session into `outcome`; the row changes to make."""
    fix = job.mode == "fix"
    refusal = not_rewritable(db, EVENTS)
    changes: dict[Any, tuple[list[Row], Plan]] = {}
    found = sessions(db)
    names = _names(list(found))
    for key, rows in found.items():
        checked = check_session(rows, fix, job.settings, refusal)
        name = f"{outcome.path}:{names[key]}"
        for branch, diagnostics in checked.views:
            where = f"{name}:{branch}" if branch else name
            outcome.transcripts += 1
            outcome.diagnostics.extend(d.at(path=where) for d in diagnostics)
        before = [row_text(text) for _, _, text in rows]
        if record_fix(outcome, job, name, checked, before):
            changes[key] = (rows, checked.plan)
        outcome.flush()
    return changes


def write(db: Database, changes: dict[Any, tuple[list[Row], Plan]]) -> None:
    """Make the row changes in one transaction on `db` (opened for writing), after
    checking that each session's rows are still those read."""
    where = "app_name = ? AND user_id = ? AND session_id = ? AND id = ?"
    lock = f"SELECT id FROM sessions WHERE app_name = ? AND user_id = ? AND id = ?{db.for_update}"
    query = (
        f"SELECT id, timestamp, {db.read(EVENTS, 'event_data')} FROM {EVENTS} "
        "WHERE app_name = ? AND user_id = ? AND session_id = ? "
        f"ORDER BY timestamp, id{db.for_update}"
    )

    def rows_now(key: Any) -> list[Any]:
        db.execute(lock, key)  # as ADK locks a session before it appends an event
        return db.execute(query, key)

    def apply(key: Any, plan: Plan) -> None:
        updates = [(text, *key, event_id) for event_id, text in plan.update]
        value = db.param(EVENTS, "event_data")
        db.executemany(f"UPDATE {EVENTS} SET event_data = {value} WHERE {where}", updates)
        gone = [(*key, event_id) for event_id in plan.delete]
        db.executemany(f"DELETE FROM {EVENTS} WHERE {where}", gone)

    write_in_one_transaction(db, changes, rows_now, apply, lambda key: key[2])
