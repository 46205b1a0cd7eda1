"""One connection to a session database, SQLite or PostgreSQL, as the readers use it: so
both share every rule of reading and planning (`histnorm_cli.agents_db`,
`histnorm_cli.adk_db`, `histnorm_cli.session_rows`), and only this module knows how the
two spell a parameter, list a table's columns, find what refers to a table, lock a row
and open a transaction.

Queries are written with `?` parameters. On PostgreSQL, tables are those the
connection's `search_path` finds (its `current_schema()`); a JSON or JSONB column is read
as its text (`::text`) and written back cast to its type.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any, Literal


class Database:
    """A connection in autocommit mode: each statement stands alone unless `begin()`
    opened a transaction."""

    kind: Literal["sqlite", "postgresql"]
    for_update = ""
    """What a `SELECT` ends with to lock the rows it reads until the transaction ends."""

    def execute(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Run one statement; its rows (none for one that returns none)."""
        raise NotImplementedError

    def executemany(self, sql: str, params: Iterable[Sequence[Any]]) -> None:
        """Run one statement once for each set of parameters."""
        raise NotImplementedError

    def columns(self, table: str) -> tuple[str, ...]:
        """The columns of `table`, in order (none when there is no such table)."""
        raise NotImplementedError

    def referrers(self, table: str) -> list[str]:
        """The tables with a foreign key to `table`."""
        raise NotImplementedError

    def triggers(self, table: str) -> list[str]:
        """The triggers that run on changes to `table`."""
        raise NotImplementedError

    def read(self, table: str, column: str) -> str:
        """The expression that reads `column` of `table` as stored text."""
        return column

    def param(self, table: str, column: str) -> str:
        """The parameter that writes text to `column` of `table`."""
        return "?"

    def snapshot(self) -> None:
        """Open a read-only transaction that reads one state of the database (end it with
        `rollback()`)."""

    def begin(self) -> None:
        """Open the transaction a write runs in."""
        raise NotImplementedError

    def commit(self) -> None:
        self.execute("COMMIT")

    def rollback(self) -> None:
        """End an open transaction, keeping nothing of it."""
        raise NotImplementedError


class Sqlite(Database):
    """An `sqlite3` connection (opened with `isolation_level=None` to write)."""

    kind: Literal["sqlite", "postgresql"] = "sqlite"

    def __init__(self, db: sqlite3.Connection) -> None:
        self.raw = db

    def execute(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return self.raw.execute(sql, params).fetchall()

    def executemany(self, sql: str, params: Iterable[Sequence[Any]]) -> None:
        self.raw.executemany(sql, params)

    def columns(self, table: str) -> tuple[str, ...]:
        quoted = table.replace('"', '""')
        return tuple(row[1] for row in self.execute(f'PRAGMA table_info("{quoted}")'))

    def referrers(self, table: str) -> list[str]:
        found = []
        for (other,) in self.execute("SELECT name FROM sqlite_master WHERE type = 'table'"):
            quoted = other.replace('"', '""')
            if any(key[2] == table for key in self.execute(f'PRAGMA foreign_key_list("{quoted}")')):
                found.append(other)
        return found

    def triggers(self, table: str) -> list[str]:
        query = "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ?"
        return [row[0] for row in self.execute(query, (table,))]

    def begin(self) -> None:
        self.execute("BEGIN IMMEDIATE")  # the database's one writer until the end

    def rollback(self) -> None:
        if self.raw.in_transaction:
            self.execute("ROLLBACK")


class Postgres(Database):
    """A `psycopg` 3 connection in autocommit mode. A write's transaction is `READ
    COMMITTED`, and its rows are locked as the frameworks lock them (`FOR UPDATE`), so a
    statement after the lock sees every change committed before it."""

    kind: Literal["sqlite", "postgresql"] = "postgresql"
    for_update = " FOR UPDATE"

    def __init__(self, db: Any) -> None:
        self.raw = db
        self._types: dict[tuple[str, str], str] = {}

    def execute(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        cursor = self.raw.execute(_format(sql), params)
        return list(cursor.fetchall()) if cursor.description is not None else []

    def executemany(self, sql: str, params: Iterable[Sequence[Any]]) -> None:
        rows = list(params)
        if rows:
            self.raw.cursor().executemany(_format(sql), rows)

    def columns(self, table: str) -> tuple[str, ...]:
        query = (
            "SELECT column_name, data_type FROM information_schema.columns "
            "WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position"
        )
        found = self.execute(query, (table,))
        self._types.update({(table, name): kind for name, kind in found})
        return tuple(name for name, _ in found)

    def referrers(self, table: str) -> list[str]:
        query = (
            "SELECT conrelid::regclass::text FROM pg_constraint "
            "WHERE contype = 'f' AND confrelid = to_regclass(?) ORDER BY 1"
        )
        return [row[0] for row in self.execute(query, (table,))]

    def triggers(self, table: str) -> list[str]:
        query = (
            "SELECT tgname FROM pg_trigger WHERE tgrelid = to_regclass(?) AND NOT tgisinternal "
            "ORDER BY 1"
        )
        return [row[0] for row in self.execute(query, (table,))]

    def _json(self, table: str, column: str) -> str | None:
        if (table, column) not in self._types:
            self.columns(table)
        kind = self._types.get((table, column))
        return kind if kind in ("json", "jsonb") else None

    def read(self, table: str, column: str) -> str:
        return f"{column}::text" if self._json(table, column) else column

    def param(self, table: str, column: str) -> str:
        kind = self._json(table, column)
        return f"CAST(? AS {kind})" if kind else "?"

    def snapshot(self) -> None:
        self.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")

    def begin(self) -> None:
        self.execute("BEGIN ISOLATION LEVEL READ COMMITTED")

    def rollback(self) -> None:
        from psycopg.pq import TransactionStatus

        if self.raw.info.transaction_status != TransactionStatus.IDLE:
            self.execute("ROLLBACK")


def _format(sql: str) -> str:
    """`sql` with psycopg's parameters (`%s`) for `?`."""
    return sql.replace("%", "%%").replace("?", "%s")
