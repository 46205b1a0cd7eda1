"""LangGraph `SqliteSaver` databases (tables `checkpoints` and `writes`, with or without
`task_path`, which later versions add) and `PostgresSaver` databases (tables
`checkpoints`, `checkpoint_blobs`, `checkpoint_writes` and `checkpoint_migrations`, in
the schema the connection's `search_path` finds). The latest checkpoint of each thread (and
checkpoint namespace) is read through the saver itself, never by decoding its blobs
here, and its `channel_values["messages"]` (LangChain messages) is linted as one
`langchain` transcript.

Nothing is ever written: a fix offered is withdrawn, with the reason. A checkpoint paused
on an `interrupt()` is a live state the graph resumes from exactly as stored; any other
is better repaired as it is read (`histnorm.integrations.langgraph.RepairCheckpointer`)
than by rewriting a checkpoint beside the saver.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from typing import Any

import histnorm
from histnorm.diagnostic import Diagnostic
from histnorm.engine import fix_refused, unreadable
from histnorm.errors import HistnormError
from histnorm.settings import Settings
from histnorm_cli.job import Job, Outcome
from histnorm_cli.sql import Database

_CHECKPOINTS = (
    "thread_id",
    "checkpoint_ns",
    "checkpoint_id",
    "parent_checkpoint_id",
    "type",
    "checkpoint",
    "metadata",
)
_WRITES = ("thread_id", "checkpoint_ns", "checkpoint_id", "task_id", "idx", "channel", "type")
_VALUE = "value"
PAUSED = "the thread is paused on an interrupt(), a live state that is never changed"
ON_READ = (
    "histnorm does not write LangGraph checkpoints; use "
    "histnorm.integrations.langgraph.RepairCheckpointer, which repairs on read"
)
NEEDS = "a LangGraph SqliteSaver database; reading it needs langgraph-checkpoint-sqlite"
NEEDS_POSTGRES = (
    "a LangGraph PostgresSaver database; reading it needs langgraph-checkpoint-postgres"
)
_POSTGRES = {
    "checkpoints": _CHECKPOINTS,
    "checkpoint_blobs": ("thread_id", "checkpoint_ns", "channel", "version", "type", "blob"),
    "checkpoint_writes": (*_WRITES, "blob", "task_path"),
    "checkpoint_migrations": ("v",),
}
"""The tables of `PostgresSaver`'s current migrations, with exactly their columns."""


def recognise(db: Database) -> bool:
    """Whether the database has the saver's two tables, with exactly their columns."""
    checkpoints = db.columns("checkpoints")
    writes = db.columns("writes")
    with_path = (*_WRITES[:4], "task_path", *_WRITES[4:], _VALUE)
    return checkpoints == _CHECKPOINTS and writes in ((*_WRITES, _VALUE), with_path)


def recognise_postgres(db: Database) -> bool:
    """Whether the PostgreSQL database has `PostgresSaver`'s tables, with exactly their
    columns."""
    return all(db.columns(table) == columns for table, columns in _POSTGRES.items())


def _lint(messages: list[Any], settings: Settings) -> list[Diagnostic]:
    if not messages:
        return []
    try:
        return list(histnorm.lint(messages, settings, format="langchain"))
    except TypeError as exc:  # a message holding what is no JSON data
        return [unreadable(HistnormError(f"the messages cannot be read: {exc}", pointer=""))]


def run(db: sqlite3.Connection, job: Job, outcome: Outcome) -> bool:
    """Lint the latest checkpoint of each thread of a `SqliteSaver` database into
    `outcome`; False when the saver cannot be imported (the database is then not read)."""
    try:
        from histnorm.integrations._langgraph_sqlite import latest_checkpoints
    except ImportError:
        return False
    lint_threads(latest_checkpoints(db), job, outcome)
    return True


def run_postgres(url: str, job: Job, outcome: Outcome) -> bool:
    """Lint the latest checkpoint of each thread of the `PostgresSaver` database at `url`
    into `outcome`; False when the saver cannot be imported (it is then not read)."""
    try:
        from histnorm.integrations._langgraph_postgres import latest_checkpoints
    except ImportError:
        return False
    lint_threads(latest_checkpoints(url), job, outcome)
    return True


def lint_threads(latest: Iterable[tuple[str, str, Any]], job: Job, outcome: Outcome) -> None:
    """Lint each thread's latest checkpoint (thread id, namespace, `CheckpointTuple`)
    into `outcome`, every fix withdrawn with its reason."""
    from histnorm.integrations.langgraph import is_interrupted

    for thread_id, namespace, saved in latest:
        messages = saved.checkpoint.get("channel_values", {}).get("messages")
        if not isinstance(messages, list):
            continue  # a thread whose state holds no messages: no transcript
        reason = PAUSED if is_interrupted(saved) else ON_READ
        found = fix_refused(_lint(messages, job.settings), reason)
        name = f"{outcome.path}:{thread_id}" + (f":{namespace}" if namespace else "")
        outcome.transcripts += 1
        outcome.diagnostics.extend(d.at(path=name) for d in found)
        outcome.flush()
