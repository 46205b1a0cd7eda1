"""SQLite files of a framework's sessions: each session is linted as one transcript and
reported as `FILE:<session id>`, with JSON Pointers into its messages.

A file is read as a database when its name ends in `.db`, `.sqlite` or `.sqlite3` or it
starts with the SQLite header. It is recognised by its tables and their columns only
(`histnorm_cli.agents_db`, `histnorm_cli.adk_db`, `histnorm_cli.langgraph_db`); any
other database, or one SQLite cannot open, is skipped as no transcript: never written,
never an error. Reading uses a read-only connection that leaves nothing beside the file
(no `-wal` or `-shm`); `fix` opens it for writing only when a session changes, and writes
everything in one transaction.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any
from urllib.parse import quote

from histnorm.document import Skip
from histnorm_cli import adk_db, agents_db, langgraph_db
from histnorm_cli.files import SQLITE_HEADER
from histnorm_cli.identity import open_regular
from histnorm_cli.job import Job, Outcome

_WAL = 2
"""The file format version bytes (offsets 18 and 19) of a database in WAL mode."""
UNKNOWN = (
    "an SQLite database histnorm does not recognise (it reads OpenAI Agents SQLiteSession, "
    "Google ADK DatabaseSessionService and LangGraph SqliteSaver databases); not read"
)


def _skip(outcome: Outcome, message: str) -> None:
    outcome.skipped.append(Skip(message))
    outcome.skipped_count += 1


def _read_only(path: str, head: bytes) -> sqlite3.Connection:
    """A read-only connection. A database in WAL mode whose `-wal` file is absent (no
    connection has it open) is opened immutable: a read-only connection would otherwise
    create `-wal` and `-shm` files it cannot remove."""
    uri = f"file:{quote(os.path.abspath(path))}?mode=ro"
    if len(head) > 19 and head[18] == _WAL and not os.path.exists(f"{path}-wal"):
        uri += "&immutable=1"
    return sqlite3.connect(uri, uri=True)


def _run_adk(db: sqlite3.Connection, job: Job, outcome: Outcome) -> dict[Any, Any]:
    """An ADK session database of the schema version histnorm reads, else a skip."""
    reason = adk_db.unread(db)
    if reason is not None:
        _skip(outcome, reason)
        return {}
    return adk_db.run(db, job, outcome)


def run_database(outcome: Outcome, job: Job, stdin: bool = False) -> None:
    """Lint or fix the sessions of the database `outcome.path` into `outcome`."""
    path = outcome.path
    if stdin:
        _skip(outcome, "an SQLite database on standard input; name its file to read it")
        return
    with open_regular(path) as stream:
        head = stream.read(100)
    if not head.startswith(SQLITE_HEADER):
        _skip(outcome, "no SQLite header; not read as a database")
        return
    if job.output:
        outcome.error = f"{path}: a database is fixed in place; -o/--output takes JSON or JSONL"
        return
    changes: dict[Any, Any] = {}
    write: Callable[[sqlite3.Connection, dict[Any, Any]], None] = agents_db.write
    try:
        with closing(_read_only(path, head)) as db:
            if agents_db.recognise(db):
                changes = agents_db.run(db, job, outcome)
            elif adk_db.recognise(db):
                write = adk_db.write
                changes = _run_adk(db, job, outcome)
            elif not langgraph_db.recognise(db):
                _skip(outcome, UNKNOWN)
            elif not langgraph_db.run(db, job, outcome):
                _skip(outcome, langgraph_db.NEEDS)
    except sqlite3.DatabaseError as exc:
        if outcome.transcripts == 0:
            _skip(outcome, f"an SQLite file that cannot be read ({exc}); not read")
            return
        raise OSError(0, f"cannot read the database: {exc}", path) from None
    if changes and job.write:
        try:
            with closing(sqlite3.connect(Path(path), isolation_level=None)) as db:
                write(db, changes)
        except sqlite3.Error as exc:
            raise OSError(0, f"not written: {exc}", path) from None
