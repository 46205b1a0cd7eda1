"""OpenAI Agents SDK `SQLiteSession` databases, and `SQLAlchemySession` ones on
PostgreSQL: tables `agent_sessions(session_id, created_at, updated_at)` and
`agent_messages(id, session_id, message_data, created_at)`, one Responses input item per
row as `json.dumps` text, a session's items ordered by `id` (an AUTOINCREMENT key) in
SQLite, as `SQLiteSession.get_items` reads them, and by `created_at` then `id` on
PostgreSQL, as `SQLAlchemySession.get_items` does.

Each session is one `openai-responses` transcript (`histnorm_cli.session_rows`). `fix`
writes the sessions that change in one transaction (`histnorm_cli.sql`), after locking
each session's `agent_sessions` row as the SDK does before it writes, and checking that
its rows are still those read; any failure rolls everything back. A new row's text is
the SDK's own (`SQLAlchemySession` writes compact JSON).
"""

from __future__ import annotations

import json
from functools import partial
from typing import Any

from histnorm.engine import fix_refused
from histnorm_cli.job import Job, Outcome
from histnorm_cli.session_rows import (
    Changed as Changed,
)
from histnorm_cli.session_rows import (
    Plan,
    Row,
    check_session,
    encode_item,
    not_rewritable,
    record_fix,
    write_in_one_transaction,
)
from histnorm_cli.sql import Database

MESSAGES = "agent_messages"
SESSIONS = "agent_sessions"
_COLUMNS = {
    SESSIONS: ("session_id", "created_at", "updated_at"),
    MESSAGES: ("id", "session_id", "message_data", "created_at"),
}


_ORDER = {"sqlite": "id", "postgresql": "created_at, id"}
"""How the SDK's session of each database orders a session's rows."""


def _compact(item: Any) -> str:
    """An item's row text as `SQLAlchemySession` writes it."""
    return json.dumps(item, separators=(",", ":"))


_ENCODE = {"sqlite": encode_item, "postgresql": _compact}


def recognise(db: Database) -> bool:
    """Whether the database has the SDK's two tables, with exactly their columns."""
    return all(db.columns(table) == columns for table, columns in _COLUMNS.items())


def sessions(db: Database) -> dict[str, list[Row]]:
    """Each session's rows in its order (sessions by their first row)."""
    found: dict[str, list[Row]] = {}
    query = f"SELECT session_id, id, message_data FROM {MESSAGES} ORDER BY {_ORDER[db.kind]}"
    for session_id, rowid, text in db.execute(query):
        found.setdefault(session_id, []).append((rowid, text))
    return found


def _not_rewritable(db: Database) -> str | None:
    """Why rows of `agent_messages` must not be rewritten here, or None: another table
    refers to them (as `AdvancedSQLiteSession`'s `message_structure` does), or a trigger
    would run on a change."""
    return not_rewritable(db, MESSAGES)


def run(db: Database, job: Job, outcome: Outcome) -> dict[Any, tuple[list[Row], Plan]]:
    """Lint (or work out the fix of) each session into `outcome`; the row changes to make."""
    fix = job.mode == "fix"
    refusal = _not_rewritable(db) if fix else None
    changes: dict[Any, tuple[list[Row], Plan]] = {}
    for session_id, rows in sessions(db).items():
        checked = check_session(rows, fix, job.settings, _ENCODE[db.kind])
        if checked.plan and refusal is not None:
            checked = check_session(rows, False, job.settings)
            checked.diagnostics = list(fix_refused(checked.diagnostics, refusal))
        name = f"{outcome.path}:{session_id}"
        outcome.transcripts += 1
        outcome.diagnostics.extend(d.at(path=name) for d in checked.diagnostics)
        if record_fix(outcome, job, name, checked, [text for _, text in rows]):
            changes[session_id] = (rows, checked.plan)
        outcome.flush()
    return changes


def write(db: Database, changes: dict[Any, tuple[list[Row], Plan]]) -> None:
    """Make the row changes in one transaction on `db` (opened for writing), after
    checking that each session's rows are still those read."""
    lock = f"SELECT session_id FROM {SESSIONS} WHERE session_id = ?{db.for_update}"
    query = (
        f"SELECT id, message_data FROM {MESSAGES} WHERE session_id = ? "
        f"ORDER BY {_ORDER[db.kind]}{db.for_update}"
    )

    def rows_now(session_id: Any) -> list[Any]:
        db.execute(lock, (session_id,))  # as the SDK locks a session before it writes
        return db.execute(query, (session_id,))

    write_in_one_transaction(db, changes, rows_now, partial(_apply, db), str)


def _apply(db: Database, session_id: Any, plan: Plan) -> None:
    encode = _ENCODE[db.kind]
    db.executemany(
        f"UPDATE {MESSAGES} SET message_data = ? WHERE id = ?",
        [(encode(item), rowid) for rowid, item in plan.update],
    )
    db.executemany(f"DELETE FROM {MESSAGES} WHERE id = ?", [(rowid,) for rowid in plan.delete])
    db.executemany(
        f"INSERT INTO {MESSAGES} (session_id, message_data) VALUES (?, ?)",
        [(session_id, encode(item)) for item in plan.append],
    )
