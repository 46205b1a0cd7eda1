"""Google ADK session databases on the command line: a file written by ADK's own
`DatabaseSessionService` (SQLite, `sqlite+aiosqlite`) is linted session by session, each
as ADK builds its model requests from the stored events; `fix` rewrites the events whose
content changed, deletes an event only when its content was all it held, refuses what ADK
would not read back as meant, and never touches a database it does not recognise. What
was written is read back through `DatabaseSessionService.get_session`."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("google.adk")

from google.adk.agents import LlmAgent
from google.adk.apps import App
from google.adk.events import Event, EventActions
from google.adk.runners import Runner
from google.adk.sessions import DatabaseSessionService
from google.adk.sessions.sqlite_session_service import SqliteSessionService
from google.genai import types

from tests.adk_helpers import RecordingModel, call, content, response, text
from tests.cli_helpers import invoke

pytestmark = pytest.mark.usefixtures("cli_workdir")

APP, USER = "bistro", "ana"
Stored = tuple[str, types.Content | None, dict[str, Any]]
"""An event to append: its author, its content and its other fields."""

CLEAN: list[Stored] = [
    ("user", content("user", text("Weather in Oslo?")), {}),
    ("helper", content("model", call("weather", "adk-c1", city="Oslo")), {}),
    ("helper", content("user", response("weather", "adk-c1", "sunny")), {}),
    ("helper", content("model", text("Sunny.")), {}),
]
DAMAGED: list[Stored] = [
    ("user", content("user", text("Weather in Oslo?")), {}),
    # 1: a dangling call beside text: the text stays
    ("helper", content("model", text("Checking."), call("weather", "adk-d1", city="Oslo")), {}),
    ("user", content("user", text("Never mind. Book a table?")), {}),
    ("helper", content("model", call("book", "adk-d2", seats=2)), {}),
    ("user", content("user", text("For two.")), {}),
    # 5: a displaced response: ADK moves it to its call itself; histnorm leaves it
    ("helper", content("user", response("book", "adk-d2", "booked")), {}),
    # 6: a dangling call that is its event's whole content: the event goes
    ("helper", content("model", call("lookup", "adk-d3")), {}),
    ("user", content("user", text("Thanks")), {}),
    # 8: an empty text part beside a text (Vertex AI rejects it)
    ("helper", content("model", text(""), text("You're welcome.")), {}),
]


def build(path: Path, sessions: dict[str, list[Stored]], user: str = USER) -> Path:
    """A database written by ADK's own `DatabaseSessionService`."""

    async def fill() -> None:
        service = DatabaseSessionService(f"sqlite+aiosqlite:///{path}")
        try:
            for session_id, events in sessions.items():
                session = await service.create_session(
                    app_name=APP, user_id=user, session_id=session_id
                )
                for author, body, fields in events:
                    given = {"invocation_id": "inv-1", **fields}
                    await service.append_event(session, Event(author=author, content=body, **given))
        finally:
            await service.close()

    asyncio.run(fill())
    return path


def events_of(path: Path, session_id: str, user: str = USER) -> list[Event]:
    """The session's events, as ADK reads them back."""

    async def read() -> list[Event]:
        service = DatabaseSessionService(f"sqlite+aiosqlite:///{path}")
        try:
            session = await service.get_session(app_name=APP, user_id=user, session_id=session_id)
        finally:
            await service.close()
        assert session is not None
        return list(session.events)

    return asyncio.run(read())


def rows(path: Path, session_id: str) -> list[tuple[str, str, str]]:
    with sqlite3.connect(path) as db:
        found = db.execute(
            "SELECT id, timestamp, event_data FROM events WHERE session_id = ? "
            "ORDER BY timestamp, id",
            (session_id,),
        ).fetchall()
    db.close()
    return [(str(i), str(t), str(d)) for i, t, d in found]


def parts(events: Sequence[Event]) -> list[list[dict[str, Any]]]:
    return [
        [p.model_dump(mode="json", exclude_none=True) for p in e.content.parts or []]
        if e.content
        else []
        for e in events
    ]


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(("-wal", "-shm", "-journal")))


# lint


def test_each_session_is_linted_with_pointers_to_its_event_rows() -> None:
    path = build(Path("chats.db"), {"clean": CLEAN, "damaged": DAMAGED})
    before = path.read_bytes()
    result = invoke("lint", "--profile", "vertex", "chats.db")
    assert result.exit_code == 1, result.output
    lines = [line for line in result.output.splitlines() if line.startswith("chats.db:")]
    assert [line.split(": ")[1].split()[0] for line in lines] == [
        "HN001",
        "HN008",
        "HN001",
        "HN004",
    ]
    assert all(line.startswith("chats.db:damaged: ") for line in lines)
    assert "'adk-d1' (weather)" in lines[0] and "(at /1/content/parts/1)" in lines[0]
    assert "(at /5/content/parts/0)" in lines[1] and "ADK itself moves" in lines[1]
    assert "(at /6/content/parts/0)" in lines[2]
    assert "(at /8/content/parts/0)" in lines[3]
    assert "in 2 transcripts" in result.output
    assert "3 fixable" in result.output  # the displaced response is not offered
    assert path.read_bytes() == before
    assert leftovers(Path(".")) == []


def test_the_json_report_names_the_session_and_the_part() -> None:
    build(Path("chats.db"), {"damaged": DAMAGED})
    result = invoke("lint", "--output-format", "json", "chats.db")
    records = json.loads(result.stdout)
    found = {(r["filename"], r["code"], r["location"]["pointer"]) for r in records}
    assert ("chats.db:damaged", "HN001", "/6/content/parts/0") in found


def test_what_adk_never_sends_is_not_linted() -> None:
    """Events without content, with only an empty text, of ADK's own confirmation calls,
    on a tool's branch, or annulled by a rewind, are no messages."""
    pending = types.Part(function_call=types.FunctionCall(name="adk_request_confirmation", id="x"))
    rewound = "inv-rewound"
    events: list[Stored] = [
        ("user", content("user", text("Hi")), {}),
        ("helper", None, {"actions": EventActions(state_delta={"seen": True})}),
        ("helper", content("model", text("")), {}),
        ("helper", content("model", pending), {}),
        ("helper", content("model", call("lookup", "adk-t1")), {"branch": "lookup@adk-t1"}),
        ("user", content("user", text("Book it")), {"invocation_id": rewound}),
        ("helper", content("model", call("book", "adk-r1")), {"invocation_id": rewound}),
        ("user", None, {"actions": EventActions(rewind_before_invocation_id=rewound)}),
        ("helper", content("model", text("Hello.")), {}),
    ]
    build(Path("chats.db"), {"quiet": events})
    result = invoke("lint", "--profile", "vertex", "chats.db")
    assert result.exit_code == 0, result.output
    assert "All checks passed!" in result.output


def test_parallel_branches_are_each_linted_as_their_agent_sees_them() -> None:
    """Two agents of a ParallelAgent never see each other's events: each branch is one
    transcript, and such a session is not rewritten."""
    events: list[Stored] = [
        ("user", content("user", text("Plan the evening")), {}),
        ("food", content("model", call("book", "adk-p1")), {"branch": "plan.food"}),
        ("music", content("model", call("tickets", "adk-p2")), {"branch": "plan.music"}),
        ("food", content("user", response("book", "adk-p1", "ok")), {"branch": "plan.food"}),
        ("music", content("model", text("No tickets left.")), {"branch": "plan.music"}),
    ]
    path = build(Path("chats.db"), {"evening": events})
    before = path.read_bytes()
    result = invoke("lint", "chats.db")
    assert "in 2 transcripts" in result.output, result.output
    assert "chats.db:evening:plan.food" not in result.output  # its call is answered
    assert "chats.db:evening:plan.music: HN001" in result.output
    fixed = invoke("fix", "chats.db")
    assert fixed.exit_code == 1
    assert "parallel branches" in fixed.output
    assert path.read_bytes() == before


# fix


def test_fix_rewrites_the_damaged_events_and_adk_reads_them_back() -> None:
    path = build(Path("chats.db"), {"clean": CLEAN, "damaged": DAMAGED})
    clean_rows = rows(path, "clean")
    before = events_of(path, "damaged")
    result = invoke("fix", "--profile", "vertex", "chats.db")
    assert result.exit_code == 1, result.output  # the displaced response stays, reported
    assert "Fixed 3 diagnostics in 1 file" in result.output
    assert "HN008" in result.output and "not fixed" in result.output
    after = events_of(path, "damaged")
    assert [e.id for e in after] == [e.id for e in before if e.id != before[6].id]
    assert parts(after) == [
        parts(before)[0],
        [{"text": "Checking."}],
        *parts(before)[2:6],
        parts(before)[7],
        [{"text": "You're welcome."}],
    ]
    kept = [0, 2, 3, 4, 5, 7]
    assert [after[k if k < 6 else k - 1] for k in kept] == [before[k] for k in kept]
    assert after[1].model_dump(exclude={"content"}) == before[1].model_dump(exclude={"content"})
    assert rows(path, "clean") == clean_rows  # byte for byte
    assert leftovers(Path(".")) == []
    again = invoke("lint", "--profile", "vertex", "chats.db")
    assert [
        line for line in again.output.splitlines() if "HN0" in line and "HN008" not in line
    ] == []


def test_fix_is_idempotent_and_a_clean_database_is_never_written() -> None:
    path = build(Path("chats.db"), {"damaged": DAMAGED})
    invoke("fix", "chats.db")
    once = path.read_bytes()
    again = invoke("fix", "chats.db")
    assert "Fixed" not in again.output
    assert path.read_bytes() == once
    clean = build(Path("clean.db"), {"a": CLEAN, "b": CLEAN[:1]})
    unchanged = clean.read_bytes()
    result = invoke("fix", "--profile", "vertex", "clean.db")
    assert result.exit_code == 0, result.output
    assert "All checks passed!" in result.output
    assert clean.read_bytes() == unchanged


@pytest.mark.parametrize("flag", ["--check", "--diff"])
def test_check_and_diff_write_nothing(flag: str) -> None:
    path = build(Path("chats.db"), {"damaged": DAMAGED})
    before = path.read_bytes()
    result = invoke("fix", flag, "chats.db")
    assert result.exit_code == 1
    assert path.read_bytes() == before
    assert leftovers(Path(".")) == []
    if flag == "--diff":
        assert "--- chats.db:damaged" in result.stdout
        assert '-{"content": {"parts": [{"function_call": {"id": "adk-d3"' in result.stdout


def test_an_event_that_holds_more_than_its_content_is_not_deleted() -> None:
    stateful: list[Stored] = [
        ("user", content("user", text("Weather?")), {}),
        (
            "helper",
            content("model", call("weather", "adk-s1")),
            {"actions": EventActions(state_delta={"asked": True})},
        ),
        ("user", content("user", text("Never mind.")), {}),
    ]
    path = build(Path("chats.db"), {"stateful": stateful})
    before = path.read_bytes()
    result = invoke("fix", "chats.db")
    assert result.exit_code == 1
    assert "also holds actions.state_delta" in result.output
    assert path.read_bytes() == before


def test_a_long_running_call_adk_waits_on_is_kept() -> None:
    """A long-running call stays unanswered until its result is posted back: histnorm
    reports it and drops nothing, while the empty text beside it is still removed."""
    waiting: list[Stored] = [
        ("user", content("user", text("Book a table and tell me.")), {}),
        (
            "helper",
            content("model", text(" "), call("book", "adk-l1")),
            {"long_running_tool_ids": {"adk-l1"}},
        ),
        ("user", content("user", text("Meanwhile, rain?")), {}),
        ("helper", content("model", text("No rain.")), {}),
    ]
    path = build(Path("chats.db"), {"waiting": waiting})
    result = invoke("fix", "--profile", "vertex", "chats.db")
    assert "a long-running call ADK waits on" in result.output, result.output
    assert "Fixed 1 diagnostic" in result.output
    (_, book, *_) = events_of(path, "waiting")
    assert parts([book]) == [[{"function_call": {"id": "adk-l1", "args": {}, "name": "book"}}]]
    assert book.long_running_tool_ids == {"adk-l1"}


def test_a_long_running_calls_updates_are_left_to_adk() -> None:
    """A long-running tool answers at once (`pending`) and later for good: ADK sends the
    latest response, so histnorm does not choose one, even with unsafe fixes."""
    updates: list[Stored] = [
        ("user", content("user", text("Book a table.")), {}),
        ("helper", content("model", call("book", "adk-u1")), {"long_running_tool_ids": {"adk-u1"}}),
        ("helper", content("user", response("book", "adk-u1", "pending")), {}),
        ("helper", content("model", text("Waiting for the restaurant.")), {}),
        ("user", content("user", response("book", "adk-u1", "confirmed")), {}),
    ]
    path = build(Path("chats.db"), {"updates": updates})
    before = path.read_bytes()
    result = invoke("fix", "--unsafe-fixes", "chats.db")
    assert "HN010" in result.output and "ADK answers a call with its latest" in result.output
    assert path.read_bytes() == before


def test_calls_signed_by_the_integrity_plugin_are_not_changed() -> None:
    signed = {"__adk_internal_fc_hmac": {"adk-h1": "v1:00"}}
    events: list[Stored] = [
        ("user", content("user", text("Weather?")), {}),
        (
            "helper",
            content("model", text("Checking."), call("weather", "adk-h1")),
            {"custom_metadata": signed},
        ),
        ("user", content("user", text("Never mind.")), {}),
    ]
    path = build(Path("chats.db"), {"signed": events})
    before = path.read_bytes()
    result = invoke("fix", "chats.db")
    assert "ToolCallIntegrityPlugin" in result.output, result.output
    assert path.read_bytes() == before


def test_the_write_is_all_or_nothing_and_checks_the_rows_first() -> None:
    from histnorm_cli import adk_db
    from histnorm_cli.adk_session import Plan
    from histnorm_cli.agents_db import Changed
    from histnorm_cli.sql import Sqlite

    path = build(Path("chats.db"), {"clean": CLEAN, "damaged": DAMAGED})
    before = path.read_bytes()
    with sqlite3.connect(path) as db:
        found = adk_db.sessions(Sqlite(db))
    db.close()
    clean, damaged = (APP, USER, "clean"), (APP, USER, "damaged")
    changes: dict[Any, Any] = {
        damaged: (found[damaged], Plan(delete=[found[damaged][6][0]])),
        clean: (found[clean][:1], Plan(delete=[found[clean][0][0]])),  # not the rows now
    }
    with sqlite3.connect(path, isolation_level=None) as db:
        with pytest.raises(Changed, match="session clean changed"):
            adk_db.write(Sqlite(db), changes)
        assert not db.in_transaction
    db.close()
    assert path.read_bytes() == before  # the damaged session's change was rolled back too


def test_a_session_id_of_two_users_is_named_by_app_and_user() -> None:
    path = build(Path("chats.db"), {"s1": DAMAGED[6:8]})
    build(path, {"s1": CLEAN}, user="bo")
    result = invoke("lint", "chats.db")
    assert f"chats.db:{APP}/{USER}/s1: HN001" in result.output, result.output
    assert f"{APP}/bo/s1" not in result.output


def test_a_real_run_stored_by_adk_lints_clean() -> None:
    """An agent that calls a tool, run by ADK's Runner over DatabaseSessionService."""

    def weather(city: str) -> dict[str, str]:
        """The weather in a city."""
        return {"sky": "clear"}

    model = RecordingModel(replies=[content("model", text(""), call("weather", None, city="Oslo"))])
    agent = LlmAgent(name="helper", model=model, tools=[weather])

    async def run() -> None:
        service = DatabaseSessionService("sqlite+aiosqlite:///runs.db")
        runner = Runner(app=App(name=APP, root_agent=agent), session_service=service)
        try:
            await service.create_session(app_name=APP, user_id=USER, session_id="run")
            message = content("user", text("Weather in Oslo?"))
            async for _ in runner.run_async(user_id=USER, session_id="run", new_message=message):
                pass
        finally:
            await runner.close()
            await service.close()

    asyncio.run(run())
    stored = [json.loads(r[2]) for r in rows(Path("runs.db"), "run")]
    assert any("function_response" in p for e in stored for p in e["content"]["parts"])
    before = Path("runs.db").read_bytes()
    result = invoke("fix", "runs.db")
    assert result.exit_code == 0, result.output
    assert "All checks passed!" in result.output
    assert Path("runs.db").read_bytes() == before
    vertex = invoke("fix", "--profile", "vertex", "runs.db")  # the model streamed an empty text
    assert "Fixed 1 diagnostic" in vertex.output, vertex.output
    asking = events_of(Path("runs.db"), "run")[1]
    assert asking.content and asking.content.parts and len(asking.content.parts) == 1
    assert asking.get_function_calls()[0].name == "weather"


# databases that are not ADK's DatabaseSessionService


def test_adks_other_sqlite_store_is_skipped_and_left_alone() -> None:
    """`SqliteSessionService` keeps events in a table of the same name, without
    `adk_internal_metadata`: histnorm does not read it."""

    async def fill() -> None:
        service = SqliteSessionService("other.db")
        session = await service.create_session(app_name=APP, user_id=USER, session_id="s")
        for author, body, _ in DAMAGED:
            await service.append_event(session, Event(author=author, content=body))

    asyncio.run(fill())
    before = Path("other.db").read_bytes()
    lint = invoke("lint", "--output-format", "json", "other.db")
    assert lint.exit_code == 0, lint.output
    (record,) = json.loads(lint.stdout)
    assert record["skipped"] == "not-a-transcript"
    assert "Google ADK DatabaseSessionService" in record["message"]
    fixed = invoke("fix", "other.db")
    assert "1 file skipped: not a transcript." in fixed.output
    assert Path("other.db").read_bytes() == before


def test_a_schema_version_histnorm_does_not_read_is_skipped() -> None:
    path = build(Path("chats.db"), {"damaged": DAMAGED})
    with sqlite3.connect(path) as db:
        db.execute("UPDATE adk_internal_metadata SET value = '2' WHERE key = 'schema_version'")
    db.close()
    before = path.read_bytes()
    result = invoke("fix", "--output-format", "json", "chats.db")
    (record,) = json.loads(result.stdout)
    assert "schema version '2'" in record["message"]
    assert path.read_bytes() == before


# the README's example


def test_the_readme_example_is_what_histnorm_prints() -> None:
    """The README's ADK example, on a file holding a clean session and the damaged one."""
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme.split("- **Google ADK** (`DatabaseSessionService`", 1)[1]
    block = section.split("```console\n", 1)[1].split("```", 1)[0]
    lines = [line.strip() for line in block.splitlines() if line.strip()]
    path = build(Path("sessions.db"), {"clean": CLEAN, "s-42": DAMAGED})
    commands = [k for k, line in enumerate(lines) if line.startswith("$ ")]
    assert len(commands) == 2
    for start, end in zip(commands, [*commands[1:], len(lines)], strict=True):
        args = lines[start][2:].split("#", 1)[0].split()
        assert args[0] == "histnorm"
        result = invoke(*args[1:])
        if end > start + 1:  # the output the README shows
            assert result.output.splitlines() == lines[start + 1 : end]
    after = events_of(path, "s-42")  # two events rewritten, one deleted
    assert len(after) == len(DAMAGED) - 1
    assert [len(e.content.parts or []) if e.content else 0 for e in after] == [1] * len(after)


def test_the_legacy_schema_is_skipped_and_left_alone() -> None:
    """ADK's v0 schema (pickled actions, a `content` column, no `adk_internal_metadata`),
    as the service still writes it into a database made with that schema."""
    from google.adk.sessions.schemas.v0 import Base
    from sqlalchemy import create_engine

    engine = create_engine("sqlite:///legacy.db")
    Base.metadata.create_all(engine)
    engine.dispose()
    build(Path("legacy.db"), {"damaged": DAMAGED})
    with sqlite3.connect("legacy.db") as db:
        assert db.execute("SELECT count(*) FROM events WHERE content IS NOT NULL").fetchone()[0]
    db.close()
    before = Path("legacy.db").read_bytes()
    result = invoke("fix", "--output-format", "json", "legacy.db")
    (record,) = json.loads(result.stdout)
    assert record["skipped"] == "not-a-transcript"
    assert Path("legacy.db").read_bytes() == before
