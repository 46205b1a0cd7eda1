"""PostgreSQL databases named by a connection string (`postgresql://user@host:port/db`):
their OpenAI Agents `SQLAlchemySession` and Google ADK `DatabaseSessionService` tables, in
the schema the connection's `search_path` finds, are read by the same readers as SQLite
files (`histnorm_cli.databases.read_sessions`) and reported as `URL:<session id>`, the
URL without its password; LangGraph `PostgresSaver` checkpoints are linted through the
saver, as `SqliteSaver` files are (`histnorm_cli.langgraph_db`), and never written. Any
other database is skipped, never written.

The driver, psycopg 3, is imported only when such a string is named: without it the
argument is an error that says how to install it. A password in the string is never
shown: not in a name, not in an error.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from histnorm_cli.job import Job, Outcome

SCHEMES = ("postgresql://", "postgres://")
INSTALL = "pip install 'histnorm[postgres]'"
UNKNOWN = (
    "a PostgreSQL database histnorm does not recognise (it reads OpenAI Agents "
    "SQLAlchemySession and Google ADK DatabaseSessionService tables in the schema the "
    "connection's search_path finds, and LangGraph PostgresSaver checkpoints); not read"
)


def is_url(name: str) -> bool:
    """Whether the argument `name` is a PostgreSQL connection string."""
    return name.lower().startswith(SCHEMES)


def _password(url: str) -> str | None:
    try:
        parts = urlsplit(url)
        given = dict(parse_qsl(parts.query)).get("password")
        return parts.password or given or None
    except ValueError:
        return None


def shown(url: str) -> str:
    """`url` without its password (in the user part or as a `password=` parameter)."""
    try:
        parts = urlsplit(url)
        host = parts.netloc.rpartition("@")[2]
        user = parts.netloc.rpartition("@")[0].partition(":")[0]
        query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)]
    except ValueError:
        return url.partition("://")[0] + "://…"  # a string too broken to show safely
    netloc = f"{user}@{host}" if user else host
    kept = urlencode([(k, v) for k, v in query if k != "password"])
    return urlunsplit((parts.scheme, netloc, parts.path, kept, parts.fragment))


def _scrubbed(message: str, url: str) -> str:
    """`message` (the driver's) with the password, should it quote it, taken out."""
    secret = _password(url)
    message = message.replace(url, shown(url))
    return message.replace(secret, "***") if secret else message


def run_postgres(outcome: Outcome, job: Job) -> None:
    """Lint or fix the sessions of the PostgreSQL database `job.database` into `outcome`
    (named by `outcome.path`, its URL without password)."""
    url = job.database
    assert url is not None
    try:
        import psycopg
    except ImportError:
        outcome.error = f"{outcome.path}: reading PostgreSQL needs psycopg: {INSTALL}"
        return
    if job.output:
        outcome.error = (
            f"{outcome.path}: a database is fixed in place; -o/--output takes JSON or JSONL"
        )
        return
    try:
        raw = psycopg.connect(url, autocommit=True, connect_timeout=10, application_name="histnorm")
    except psycopg.Error as exc:
        outcome.error = f"{outcome.path}: cannot connect: {_one_line(_scrubbed(str(exc), url))}"
        return
    with raw:
        _run(raw, url, outcome, job)


def _run_langgraph(db: Any, url: str, outcome: Outcome, job: Job) -> None:
    """Lint the `PostgresSaver` checkpoints of the database, or skip it as unknown."""
    import psycopg

    from histnorm_cli import langgraph_db
    from histnorm_cli.databases import skip

    try:
        if not langgraph_db.recognise_postgres(db):
            skip(outcome, UNKNOWN)
        elif not langgraph_db.run_postgres(url, job, outcome):
            skip(outcome, langgraph_db.NEEDS_POSTGRES)
    except psycopg.Error as exc:
        reason = _one_line(_scrubbed(str(exc), url))
        raise OSError(0, f"cannot read the database: {reason}", outcome.path) from None


def _one_line(message: str) -> str:
    return " ".join(message.split())


def _run(raw: Any, url: str, outcome: Outcome, job: Job) -> None:
    import psycopg

    from histnorm_cli.databases import read_sessions
    from histnorm_cli.sql import Postgres

    db = Postgres(raw)
    try:
        db.snapshot()
        try:
            found = read_sessions(db, job, outcome)
        finally:
            db.rollback()
    except psycopg.Error as exc:
        reason = _one_line(_scrubbed(str(exc), url))
        raise OSError(0, f"cannot read the database: {reason}", outcome.path) from None
    if found is None:
        _run_langgraph(db, url, outcome, job)
        return
    changes, write = found
    if changes and job.write:
        try:
            write(db, changes)
        except psycopg.Error as exc:
            reason = _one_line(_scrubbed(str(exc), url))
            raise OSError(0, f"not written: {reason}", outcome.path) from None
