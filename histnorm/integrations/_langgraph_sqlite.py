"""The latest checkpoint of each thread of a LangGraph `SqliteSaver` database, read
through the saver (its serde decodes the blobs), for `histnorm lint` on such a file.

Needs `langgraph-checkpoint-sqlite`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Any

try:
    from langgraph.checkpoint.base import CheckpointTuple
    from langgraph.checkpoint.sqlite import SqliteSaver
except ImportError as error:
    raise ImportError(
        "reading a SqliteSaver database needs pip install langgraph-checkpoint-sqlite"
    ) from error

from histnorm.integrations.langgraph import is_interrupted

__all__ = ["is_interrupted", "latest_checkpoints"]


def latest_checkpoints(db: sqlite3.Connection) -> Iterator[tuple[str, str, CheckpointTuple]]:
    """(thread id, checkpoint namespace, latest checkpoint) of each thread in `db`, in
    order of thread id and namespace. `db` may be read-only: nothing is written."""
    saver = SqliteSaver(db)
    query = "SELECT DISTINCT thread_id, checkpoint_ns FROM checkpoints ORDER BY 1, 2"
    for thread_id, namespace in db.execute(query).fetchall():
        config: Any = {"configurable": {"thread_id": thread_id, "checkpoint_ns": namespace}}
        saved = saver.get_tuple(config)
        if saved is not None:
            yield thread_id, namespace, saved
