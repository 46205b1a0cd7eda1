"""The latest checkpoint of each thread of a LangGraph `PostgresSaver` database, read
through the saver (its serde decodes the blobs), for `histnorm lint` on a connection
string.

Needs `langgraph-checkpoint-postgres` (and its driver, psycopg 3).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

try:
    from langgraph.checkpoint.base import CheckpointTuple
    from langgraph.checkpoint.postgres import PostgresSaver
    from psycopg.rows import dict_row
except ImportError as error:
    raise ImportError(
        "reading a PostgresSaver database needs pip install langgraph-checkpoint-postgres"
    ) from error

import psycopg

from histnorm.integrations.langgraph import is_interrupted

__all__ = ["is_interrupted", "latest_checkpoints"]


def latest_checkpoints(url: str) -> Iterator[tuple[str, str, CheckpointTuple]]:
    """(thread id, checkpoint namespace, latest checkpoint) of each thread of the
    database at `url`, in order of thread id and namespace. The connection is the
    saver's (rows as dicts), in a read-only session: nothing is written."""
    options: Any = {"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row}
    with psycopg.connect(url, connect_timeout=10, application_name="histnorm", **options) as db:
        db.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")
        saver = PostgresSaver(db)
        query = "SELECT DISTINCT thread_id, checkpoint_ns FROM checkpoints ORDER BY 1, 2"
        for row in db.execute(query).fetchall():
            thread_id, namespace = row["thread_id"], row["checkpoint_ns"]
            config: Any = {"configurable": {"thread_id": thread_id, "checkpoint_ns": namespace}}
            saved = saver.get_tuple(config)
            if saved is not None:
                yield thread_id, namespace, saved
