"""Session databases on PostgreSQL, named by a connection string: OpenAI Agents
`SQLAlchemySession` and Google ADK `DatabaseSessionService` tables, written by the
frameworks' own code on a real PostgreSQL server (`tests/postgres_server.py`), damaged
with plain SQL the way stored data breaks, then linted and fixed through the CLI."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("psycopg")
pytest.importorskip("agents")
pytest.importorskip("google.adk")

import psycopg
from agents.extensions.memory.sqlalchemy_session import SQLAlchemySession
from google.adk.events import Event
from google.adk.sessions import DatabaseSessionService

from tests.adk_helpers import call, content, response, text
from tests.cli_helpers import invoke
from tests.postgres_server import PASSWORD, Server, server_for_tests
from tests.test_databases import ANSWER, CALL, OUTPUT, USER, checkpoint_threads

pytestmark = pytest.mark.usefixtures("cli_workdir")

APP, ADK_USER = "bistro", "ana"


@pytest.fixture(scope="session")
def server() -> Iterator[Server]:
    yield from server_for_tests()


@pytest.fixture
def url(server: Server, request: pytest.FixtureRequest) -> str:
    """A new, empty database of its own for the test: its connection string."""
    return server.database(request.node.name)


def sql(url: str, query: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    with psycopg.connect(url, autocommit=True) as db:
        cursor = db.execute(query, params)
        return list(cursor.fetchall()) if cursor.description is not None else []


def driver(url: str) -> str:
    """The frameworks' URL of the database: SQLAlchemy's async psycopg 3 dialect."""
    return url.replace("postgresql://", "postgresql+psycopg://", 1)


def shown(url: str) -> str:
    return url.replace(f":{PASSWORD}@", "@").replace(":s3cret@", "@")


# OpenAI Agents SQLAlchemySession


def agents_sessions(url: str, sessions: dict[str, list[dict[str, Any]]]) -> None:
    async def fill() -> None:
        for sid, items in sessions.items():
            session = SQLAlchemySession.from_url(sid, url=driver(url), create_tables=True)
            try:
                await session.add_items(items)
            finally:
                await session._engine.dispose()

    asyncio.run(fill())


def items_of(url: str, session_id: str) -> list[Any]:
    async def read() -> list[Any]:
        session = SQLAlchemySession.from_url(session_id, url=driver(url))
        try:
            return list(await session.get_items())
        finally:
            await session._engine.dispose()

    return asyncio.run(read())


def messages(url: str) -> list[tuple[Any, ...]]:
    return sql(
        url, "SELECT id, session_id, message_data, created_at FROM agent_messages ORDER BY id"
    )


def lose_call(url: str, session_id: str) -> None:
    """Delete a session's call row, as a lost write would: its output is left an orphan."""
    sql(
        url,
        "DELETE FROM agent_messages WHERE session_id = %s AND message_data::json->>'type' = "
        "'function_call'",
        (session_id,),
    )


def test_agents_sessions_are_linted_with_pointers(url: str) -> None:
    agents_sessions(
        url, {"clean": [USER, CALL, OUTPUT, ANSWER], "orphan": [USER, CALL, OUTPUT, ANSWER]}
    )
    lose_call(url, "orphan")
    before = messages(url)
    result = invoke("lint", "--output-format", "json", url)
    assert result.exit_code == 1, result.output
    found = {
        (r["filename"], r["code"], r["location"]["pointer"]) for r in json.loads(result.stdout)
    }
    assert found == {(f"{shown(url)}:orphan", "HN002", "/1")}
    assert messages(url) == before
    assert PASSWORD not in result.output


def test_agents_fix_writes_the_damaged_session_and_the_sdk_reads_it(url: str) -> None:
    agents_sessions(
        url, {"clean": [USER, CALL, OUTPUT, ANSWER], "orphan": [USER, CALL, OUTPUT, ANSWER]}
    )
    lose_call(url, "orphan")
    before = messages(url)
    result = invoke("fix", url)
    assert result.exit_code == 0, result.output
    assert "Fixed 1 diagnostic in 1 file" in result.output
    assert PASSWORD not in result.output
    after = messages(url)
    gone = [row for row in before if row[1] == "orphan" and '"function_call_output"' in row[2]]
    assert len(gone) == 1
    assert after == [row for row in before if row not in gone]  # the others byte for byte
    assert items_of(url, "orphan") == [USER, ANSWER]
    assert items_of(url, "clean") == [USER, CALL, OUTPUT, ANSWER]
    assert invoke("fix", url).exit_code == 0
    assert messages(url) == after


def test_agents_fix_appends_new_rows_as_the_sdk_writes_them(url: str) -> None:
    agents_sessions(url, {"open": [USER, CALL]})
    result = invoke("fix", "--tail", "close", "--policy", "orphan-tool-call=synthesize", url)
    assert result.exit_code == 0, result.output
    items = items_of(url, "open")
    assert items[:2] == [USER, CALL] and items[2]["type"] == "function_call_output"
    new = messages(url)[-1][2]
    assert new == json.dumps(items[2], separators=(",", ":"))  # SQLAlchemySession's spelling


def test_a_change_between_read_and_write_aborts_and_writes_nothing(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from histnorm_cli import agents_db

    sessions = {"first": [USER, CALL, OUTPUT, ANSWER], "second": [USER, CALL, OUTPUT, ANSWER]}
    agents_sessions(url, sessions)
    lose_call(url, "first")
    lose_call(url, "second")
    write = agents_db.write

    def meanwhile(db: Any, changes: Any) -> None:
        agents_sessions(url, {"second": [{"role": "user", "content": "Still there?"}]})
        write(db, changes)

    monkeypatch.setattr(agents_db, "write", meanwhile)
    result = invoke("fix", url)
    assert "session second changed while it was being fixed; not written" in result.output
    assert result.exit_code != 0
    monkeypatch.undo()
    assert "HN002" in invoke("lint", url).output  # the first session was not written either
    assert len(items_of(url, "first")) == 3
    assert items_of(url, "second")[-1] == {"role": "user", "content": "Still there?"}


def test_agents_rows_another_table_refers_to_are_not_rewritten(url: str) -> None:
    agents_sessions(url, {"orphan": [USER, CALL, OUTPUT, ANSWER]})
    lose_call(url, "orphan")
    sql(url, "CREATE TABLE message_structure (message_id INTEGER REFERENCES agent_messages(id))")
    before = messages(url)
    result = invoke("fix", url)
    assert "table message_structure refers to agent_messages rows" in result.output, result.output
    assert messages(url) == before


# Google ADK DatabaseSessionService (event_data is JSONB on PostgreSQL)


SESSION = [
    ("user", content("user", text("Weather in Oslo?"))),
    ("helper", content("model", text("Checking."), call("weather", "adk-d1", city="Oslo"))),
    ("helper", content("user", response("weather", "adk-d1", "sunny"))),
    ("helper", content("model", text("Sunny."))),
    ("user", content("user", text("Book a table?"))),
    ("helper", content("model", call("book", "adk-d2", seats=2))),
    ("helper", content("user", response("book", "adk-d2", "booked"))),
    ("helper", content("model", text("Booked."))),
]


def service(url: str) -> DatabaseSessionService:
    return DatabaseSessionService(driver(url))


def adk_sessions(url: str, ids: list[str]) -> None:
    async def fill() -> None:
        adk = service(url)
        try:
            for session_id in ids:
                session = await adk.create_session(
                    app_name=APP, user_id=ADK_USER, session_id=session_id
                )
                for author, body in SESSION:
                    await adk.append_event(
                        session, Event(author=author, content=body, invocation_id="i")
                    )
        finally:
            await adk.close()

    asyncio.run(fill())


def adk_events(url: str, session_id: str) -> list[Event]:
    async def read() -> list[Event]:
        adk = service(url)
        try:
            session = await adk.get_session(app_name=APP, user_id=ADK_USER, session_id=session_id)
        finally:
            await adk.close()
        assert session is not None
        return list(session.events)

    return asyncio.run(read())


def events(url: str) -> list[tuple[Any, ...]]:
    return sql(
        url,
        "SELECT id, session_id, timestamp, event_data::text FROM events "
        "ORDER BY session_id, timestamp, id",
    )


def lose_responses(url: str, session_id: str) -> None:
    """Delete the session's two function responses: both calls are left orphans."""
    sql(
        url,
        "DELETE FROM events WHERE session_id = %s AND event_data->'content'->'parts'->0 ? "
        "'function_response'",
        (session_id,),
    )


def test_adk_event_data_is_jsonb_and_sessions_are_linted(url: str) -> None:
    adk_sessions(url, ["clean", "damaged"])
    lose_responses(url, "damaged")
    kind = sql(
        url,
        "SELECT data_type FROM information_schema.columns "
        "WHERE table_name = 'events' AND column_name = 'event_data'",
    )
    assert kind == [("jsonb",)]
    result = invoke("lint", url)
    assert result.exit_code == 1, result.output
    assert f"{shown(url)}:damaged: HN001" in result.output
    assert "(at /1/content/parts/1)" in result.output and "(at /4/content/parts/0)" in result.output
    assert ":clean" not in result.output


def test_adk_fix_rewrites_jsonb_and_adk_reads_the_session_back(url: str) -> None:
    adk_sessions(url, ["clean", "damaged"])
    lose_responses(url, "damaged")
    before = events(url)
    old = adk_events(url, "damaged")
    result = invoke("fix", url)
    assert result.exit_code == 0, result.output
    assert "Fixed 2 diagnostics in 1 file" in result.output
    after = events(url)
    assert [r for r in after if r[1] == "clean"] == [r for r in before if r[1] == "clean"]
    new = adk_events(url, "damaged")
    assert [e.id for e in new] == [e.id for e in old if e.id != old[4].id]  # the bare call went
    assert new[1].content is not None and [p.text for p in new[1].content.parts or []] == [
        "Checking."
    ]
    assert new[1].model_dump(exclude={"content"}) == old[1].model_dump(exclude={"content"})
    assert [r for r in after if r[1] == "damaged" and r[0] != new[1].id] == [
        r for r in before if r[1] == "damaged" and r[0] not in (new[1].id, old[4].id)
    ]
    assert invoke("lint", url).exit_code == 0


def test_adk_displaced_response_is_left_to_adk(url: str) -> None:
    adk_sessions(url, ["moved"])
    sql(
        url,
        "UPDATE events SET timestamp = timestamp + interval '1 hour' WHERE "
        "event_data->'content'->'parts'->0->'function_response'->>'id' = 'adk-d1'",
    )
    before = events(url)
    result = invoke("fix", url)
    assert "HN008" in result.output and "not fixed" in result.output, result.output
    assert events(url) == before


def test_adk_a_number_jsonb_keeps_that_a_float_cannot_is_not_rewritten(url: str) -> None:
    adk_sessions(url, ["damaged"])
    lose_responses(url, "damaged")
    number = "0.10000000000000000000001"
    sql(
        url,
        "UPDATE events SET event_data = jsonb_set(event_data, '{custom_metadata}', "
        f"'{{\"score\": {number}}}'::jsonb) "
        "WHERE event_data->'content'->'parts'->0->>'text' = 'Checking.'",
    )
    before = events(url)
    assert number in next(r[3] for r in before if "Checking." in r[3])
    result = invoke("fix", url)
    assert f"holds the number {number}, which a rewrite would not keep exactly" in result.output, (
        result.output
    )
    assert events(url) == before


# LangGraph PostgresSaver


def checkpoints(url: str) -> list[tuple[Any, ...]]:
    tables = ("checkpoints", "checkpoint_blobs", "checkpoint_writes", "checkpoint_migrations")
    return [sql(url, f"SELECT * FROM {t} ORDER BY 1, 2, 3") for t in tables[:3]] + [
        sql(url, f"SELECT * FROM {tables[3]} ORDER BY 1")
    ]


def langgraph_threads(url: str) -> None:
    """The three threads of `checkpoint_threads`, checkpointed by LangGraph's own
    `PostgresSaver`."""
    from langgraph.checkpoint.postgres import PostgresSaver

    with PostgresSaver.from_conn_string(url) as saver:
        saver.setup()
        checkpoint_threads(saver)


def test_langgraph_postgres_threads_are_linted_at_their_latest_checkpoint(url: str) -> None:
    langgraph_threads(url)
    before = checkpoints(url)
    result = invoke("lint", url)
    assert result.exit_code == 1, result.output
    name = shown(url)
    assert f"{name}:orphan: HN002" in result.output
    assert "(at /1)" in result.output
    assert f"{name}:clean" not in result.output
    assert "in 3 transcripts" in result.output
    paused = [line for line in result.output.splitlines() if f"{name}:paused" in line]
    assert paused and all("interrupt" in line for line in paused)
    assert PASSWORD not in result.output
    assert checkpoints(url) == before


def test_langgraph_postgres_fix_is_refused_and_writes_nothing(url: str) -> None:
    langgraph_threads(url)
    before = checkpoints(url)
    result = invoke("fix", url)
    assert result.exit_code == 1, result.output
    assert "RepairCheckpointer" in result.output
    assert "Fixed" not in result.output
    assert checkpoints(url) == before


def test_langgraph_postgres_without_the_saver_says_what_to_install(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    langgraph_threads(url)
    monkeypatch.setitem(sys.modules, "langgraph.checkpoint.postgres", None)
    monkeypatch.delitem(sys.modules, "histnorm.integrations._langgraph_postgres", raising=False)
    result = invoke("lint", "--output-format", "json", url)
    assert result.exit_code == 0, result.output
    (record,) = json.loads(result.stdout)
    assert "langgraph-checkpoint-postgres" in record["message"]


# any PostgreSQL database


def test_a_database_of_other_tables_is_skipped_and_not_written(url: str) -> None:
    sql(url, "CREATE TABLE notes (id SERIAL PRIMARY KEY, body TEXT)")
    sql(url, """INSERT INTO notes (body) VALUES ('[{"role": "user"}]')""")
    lint = invoke("lint", "--output-format", "json", url)
    assert lint.exit_code == 0, lint.output
    (record,) = json.loads(lint.stdout)
    assert record["skipped"] == "not-a-transcript" and "PostgreSQL" in record["message"]
    fixed = invoke("fix", url)
    assert "1 file skipped: not a transcript." in fixed.output
    assert sql(url, "SELECT id, body FROM notes") == [(1, '[{"role": "user"}]')]


def test_a_server_that_cannot_be_reached_is_an_error_and_the_others_still_run(
    url: str, server: Server
) -> None:
    agents_sessions(url, {"orphan": [USER, CALL, OUTPUT, ANSWER]})
    lose_call(url, "orphan")
    wrong = url.replace(f":{PASSWORD}@", ":not-the-password@")
    nowhere = f"postgresql://histnorm:{PASSWORD}@127.0.0.1:{server.free_port()}/chats"
    result = invoke("lint", nowhere, wrong, url)
    assert f"{shown(nowhere)}: cannot connect" in result.output, result.output
    assert f"{wrong.replace(':not-the-password@', '@')}: cannot connect" in result.output
    assert "password authentication failed" in result.output
    assert f"{shown(url)}:orphan: HN002" in result.output
    assert PASSWORD not in result.output and "not-the-password" not in result.output
    assert result.exit_code == 2  # as for a file that cannot be read


def test_without_psycopg_the_error_says_how_to_install_it(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "psycopg", None)
    result = invoke("lint", url)
    assert f"{shown(url)}: reading PostgreSQL needs psycopg: pip install 'histnorm[postgres]'" in (
        result.output
    )
    assert "Traceback" not in result.output
    assert result.exit_code == 2


def test_output_path_is_refused_for_a_database(url: str) -> None:
    result = invoke("fix", "-o", "out.json", url)
    assert "a database is fixed in place" in result.output
    assert PASSWORD not in result.output


def test_the_command_fixes_a_database_in_its_own_process(url: str) -> None:
    agents_sessions(url, {"orphan": [USER, CALL, OUTPUT, ANSWER]})
    lose_call(url, "orphan")
    env = {**os.environ, "NO_COLOR": "1"}
    run = subprocess.run(
        [sys.executable, "-m", "histnorm_cli", "fix", url],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"{shown(url)}:orphan" not in run.stdout  # fixed, nothing remains
    assert "Fixed 1 diagnostic in 1 file" in run.stdout
    assert PASSWORD not in run.stdout + run.stderr
    assert items_of(url, "orphan") == [USER, ANSWER]


def test_the_readme_example_is_what_histnorm_prints(url: str) -> None:
    """The README's PostgreSQL example, on the test server's database in place of the
    one it names."""
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme.split("- **PostgreSQL**, named by a connection string", 1)[1]
    block = section.split("```console\n", 1)[1].split("```", 1)[0]
    lines = [line.strip() for line in block.splitlines() if line.strip()]
    named = "postgresql://app:s3cret@localhost:5432/agents"
    agents_sessions(
        url, {"clean": [USER, CALL, OUTPUT, ANSWER], "orphan": [USER, CALL, OUTPUT, ANSWER]}
    )
    lose_call(url, "orphan")
    commands = [k for k, line in enumerate(lines) if line.startswith("$ ")]
    assert len(commands) == 2
    for start, end in zip(commands, [*commands[1:], len(lines)], strict=True):
        args = lines[start][2:].split("#", 1)[0].split()
        assert args[0] == "histnorm" and args[-1] == named
        result = invoke(*args[1:-1], url)
        shown_here = result.output.replace(shown(url), shown(named))
        if end > start + 1:  # the output the README shows
            assert shown_here.splitlines() == lines[start + 1 : end]
    assert items_of(url, "orphan") == [USER, ANSWER]
