"""SQLite files of a framework's sessions: each session is linted as one transcript and
reported as `FILE:<session id>`, with JSON Pointers into its messages.

A file is read as a database when its name ends in `.db`, `.sqlite` or `.sqlite3` or it
starts with the SQLite header. It is recognised by its tables and their columns only
(`histnorm_cli.agents_db`, `histnorm_cli.adk_db`, `histnorm_cli.langgraph_db`); any
other database, or one SQLite cannot open, is skipped as no transcript: never written,
never an error. Reading uses a read-only connection that leaves nothing beside the file
(no `-wal` or `-shm`); `fix` opens it for writing only when a session changes, and writes
everything in one transaction. PostgreSQL databases are read by the same readers
(`histnorm_cli.postgres`).
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
from histnorm_cli.sql import Database, Sqlite

_WAL = 2
"""The file format version bytes (offsets 18 and 19) of a database in WAL mode."""
UNKNOWN = (
    "an SQLite database histnorm does not recognise (it reads OpenAI Agents SQLiteSession, "
    "Google ADK DatabaseSessionService and LangGraph SqliteSaver databases); not read"
)


def skip(outcome: Outcome, message: str) -> None:
    """Count the database as no transcript, saying why."""
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


Changes = dict[Any, Any]
Writer = Callable[[Database, Changes], None]


def read_sessions(db: Database, job: Job, outcome: Outcome) -> tuple[Changes, Writer] | None:
    """Lint (or work out the fix of) the sessions of an OpenAI Agents or ADK database into
    `outcome`: the row changes to make and what writes them; None for another database."""
    if agents_db.recognise(db):
        return agents_db.run(db, job, outcome), agents_db.write
    if adk_db.recognise(db):
        return _run_adk(db, job, outcome), adk_db.write
    return None


def _run_adk(db: Database, job: Job, outcome: Outcome) -> dict[Any, Any]:
    """An ADK session database of the schema version histnorm reads, else a skip."""
    reason = adk_db.unread(db)
    if reason is not None:
        skip(outcome, reason)
        return {}
    return adk_db.run(db, job, outcome)


def run_database(outcome: Outcome, job: Job, stdin: bool = False) -> None:
    """Lint or fix the sessions of the database `outcome.path` into `outcome`."""
    path = outcome.path
    if stdin:
        skip(outcome, "an SQLite database on standard input; name its file to read it")
        return
    with open_regular(path) as stream:
        head = stream.read(100)
    if not head.startswith(SQLITE_HEADER):
        skip(outcome, "no SQLite header; not read as a database")
        return
    if job.output:
        outcome.error = f"{path}: a database is fixed in place; -o/--output takes JSON or JSONL"
        return
    found: tuple[Changes, Writer] | None = None
    try:
        with closing(_read_only(path, head)) as raw:
            db = Sqlite(raw)
            found = read_sessions(db, job, outcome)
            if found is None and not langgraph_db.recognise(db):
                skip(outcome, UNKNOWN)
            elif found is None and not langgraph_db.run(raw, job, outcome):
                skip(outcome, langgraph_db.NEEDS)
    except sqlite3.DatabaseError as exc:
        if outcome.transcripts == 0:
            skip(outcome, f"an SQLite file that cannot be read ({exc}); not read")
            return
        raise OSError(0, f"cannot read the database: {exc}", path) from None
    if found is not None and found[0] and job.write:
        changes, write = found
        try:
            with closing(sqlite3.connect(Path(path), isolation_level=None)) as raw:
                write(Sqlite(raw), changes)
        except sqlite3.Error as exc:
            raise OSError(0, f"not written: {exc}", path) from None
