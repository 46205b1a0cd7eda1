"""Session databases on the command line: an OpenAI Agents `SQLiteSession` file is linted
session by session and fixed in one transaction; any other database is skipped, unread
and unwritten. The databases are built with the frameworks' own code."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path
from typing import Annotated, Any

import pytest

from tests.cli_helpers import invoke, put

agents = pytest.importorskip("agents")

pytestmark = pytest.mark.usefixtures("cli_workdir")

USER = {"role": "user", "content": "Weather in Paris?"}
CALL = {"type": "function_call", "call_id": "c1", "name": "weather", "arguments": "{}"}
OUTPUT = {"type": "function_call_output", "call_id": "c1", "output": "sunny"}
ANSWER = {"role": "assistant", "content": "It is sunny."}
ORPHAN = {"type": "function_call_output", "call_id": "zz", "output": "stale"}
OPEN = {"type": "function_call", "call_id": "c9", "name": "weather", "arguments": "{}"}
SESSIONS: dict[str, list[dict[str, Any]]] = {
    "clean": [USER, CALL, OUTPUT, ANSWER],
    "orphan": [USER, ORPHAN, ANSWER],
    "open": [USER, OPEN],
}


def build(path: Path, sessions: dict[str, list[dict[str, Any]]] = SESSIONS) -> Path:
    """A database written by the Agents SDK's own `SQLiteSession`, sessions interleaved."""

    async def fill() -> None:
        opened = {sid: agents.SQLiteSession(sid, str(path)) for sid in sessions}
        try:
            longest = max(len(items) for items in sessions.values())
            for k in range(longest):
                for sid, items in sessions.items():
                    if k < len(items):
                        await opened[sid].add_items([items[k]])
        finally:
            for session in opened.values():
                session.close()

    asyncio.run(fill())
    return path


def rows(path: Path) -> list[tuple[int, str, str]]:
    with sqlite3.connect(path) as db:
        found = db.execute("SELECT id, session_id, message_data FROM agent_messages ORDER BY id")
        result = [(int(i), str(s), str(m)) for i, s, m in found]
    db.close()
    return result


def items_of(path: Path, session_id: str) -> list[Any]:
    async def read() -> list[Any]:
        session = agents.SQLiteSession(session_id, str(path))
        try:
            return list(await session.get_items())
        finally:
            session.close()

    return asyncio.run(read())


def leftovers(folder: Path) -> list[str]:
    """Files beside the databases that a run must not leave behind (WAL, journals)."""
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(("-wal", "-shm", "-journal")))


def foreign(path: Path) -> Path:
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
        db.execute('INSERT INTO notes (body) VALUES (\'[{"role": "user"}]\')')
    db.close()
    return path


# lint


def test_lint_names_each_session_with_a_pointer() -> None:
    build(Path("chats.db"))
    before = Path("chats.db").read_bytes()
    result = invoke("lint", "chats.db")
    assert result.exit_code == 1, result.output
    assert "chats.db:orphan: HN002" in result.output
    assert "(at /1)" in result.output
    assert "chats.db:clean" not in result.output
    assert "in 3 transcripts" in result.output
    assert Path("chats.db").read_bytes() == before
    assert leftovers(Path(".")) == []


def test_lint_json_report_has_session_and_pointer() -> None:
    build(Path("chats.db"))
    result = invoke("lint", "--output-format", "json", "chats.db")
    records = json.loads(result.stdout)
    found = {(r["filename"], r["code"], r["location"]["pointer"]) for r in records}
    assert ("chats.db:orphan", "HN002", "/1") in found


def test_a_clean_database_passes() -> None:
    build(Path("chats.db"), {"a": [USER, ANSWER], "b": [USER, CALL, OUTPUT, ANSWER]})
    result = invoke("lint", "chats.db")
    assert result.exit_code == 0, result.output
    assert "All checks passed!" in result.output


def test_a_row_that_is_not_json_is_located_and_the_others_still_linted() -> None:
    path = build(Path("chats.db"), {"broken": [USER, ANSWER], "orphan": [USER, ORPHAN, ANSWER]})
    with sqlite3.connect(path) as db:
        db.execute("UPDATE agent_messages SET message_data = '{\"role\": ' WHERE id = 3")
    db.close()
    before = path.read_bytes()
    result = invoke("lint", "chats.db")
    assert result.exit_code == 1
    assert "chats.db:broken: HN000" in result.output
    assert "(at /1)" in result.output
    assert "chats.db:orphan: HN002" in result.output
    fixed = invoke("fix", "chats.db")
    assert "chats.db:broken: HN000" in fixed.output
    assert [r for r in rows(path) if r[1] == "broken"] == [
        r for r in _rows_from(before) if r[1] == "broken"
    ]
    assert ORPHAN not in items_of(path, "orphan")


def _rows_from(data: bytes) -> list[tuple[int, str, str]]:
    copy = Path("copy.db")
    copy.write_bytes(data)
    try:
        return rows(copy)
    finally:
        copy.unlink()


# fix


def test_fix_rewrites_only_the_damaged_session() -> None:
    path = build(Path("chats.db"))
    before = rows(path)
    result = invoke("fix", "chats.db")
    assert result.exit_code == 0, result.output
    assert "Fixed 1 diagnostic in 1 file" in result.output
    after = rows(path)
    untouched = [r for r in before if r[1] != "orphan"]
    assert [r for r in after if r[1] != "orphan"] == untouched
    kept = [r for r in before if r[1] == "orphan" and "zz" not in r[2]]
    assert [r for r in after if r[1] == "orphan"] == kept
    assert items_of(path, "orphan") == [USER, ANSWER]
    assert items_of(path, "open") == [USER, OPEN]  # a call still open at the end is live
    assert leftovers(Path(".")) == []
    assert invoke("lint", "chats.db").exit_code == 0


def test_fix_is_idempotent() -> None:
    path = build(Path("chats.db"))
    assert invoke("fix", "chats.db").exit_code == 0
    once = path.read_bytes()
    again = invoke("fix", "chats.db")
    assert again.exit_code == 0
    assert "Fixed" not in again.output
    assert path.read_bytes() == once


def test_fix_appends_what_closes_the_tail() -> None:
    path = build(Path("chats.db"))
    result = invoke("fix", "--tail", "close", "--policy", "orphan-tool-call=synthesize", "chats.db")
    assert result.exit_code == 0, result.output
    items = items_of(path, "open")
    assert items[:2] == [USER, OPEN]
    assert items[2]["type"] == "function_call_output" and items[2]["call_id"] == "c9"
    ids = [r[0] for r in rows(path) if r[1] == "open"]
    assert ids == sorted(ids) and len(ids) == 3


def test_fix_refuses_to_insert_between_rows() -> None:
    path = build(Path("chats.db"), {"middle": [USER, OPEN, {"role": "user", "content": "Hi?"}]})
    before = path.read_bytes()
    result = invoke("fix", "--policy", "orphan-tool-call=synthesize", "chats.db")
    assert result.exit_code == 1
    assert "chats.db:middle" in result.output
    assert "between stored rows" in result.output
    assert path.read_bytes() == before


@pytest.mark.parametrize("flag", ["--check", "--diff"])
def test_check_and_diff_write_nothing(flag: str) -> None:
    path = build(Path("chats.db"))
    before = path.read_bytes()
    result = invoke("fix", flag, "chats.db")
    assert result.exit_code == 1
    assert path.read_bytes() == before
    assert leftovers(Path(".")) == []
    if flag == "--diff":
        assert "--- chats.db:orphan" in result.stdout
        assert '-{"type": "function_call_output", "call_id": "zz"' in result.stdout


def test_output_path_is_refused_for_a_database() -> None:
    build(Path("chats.db"))
    result = invoke("fix", "-o", "out.db", "chats.db")
    assert result.exit_code == 2
    assert "database" in result.output
    assert not Path("out.db").exists()


# databases that are not a framework's


def test_a_foreign_database_is_skipped_and_left_alone() -> None:
    path = foreign(Path("notes.db"))
    before = path.read_bytes()
    lint = invoke("lint", "--output-format", "json", "notes.db")
    assert lint.exit_code == 0, lint.output
    (record,) = json.loads(lint.stdout)
    assert record["skipped"] == "not-a-transcript"
    assert "SQLite" in record["message"]
    fixed = invoke("fix", "notes.db")
    assert fixed.exit_code == 0
    assert "1 file skipped: not a transcript." in fixed.output
    assert path.read_bytes() == before
    assert leftovers(Path(".")) == []


def test_a_corrupt_database_is_skipped() -> None:
    path = put("broken.sqlite", b"SQLite format 3\x00" + b"\xff" * 200)
    for mode in ("lint", "fix"):
        result = invoke(mode, "broken.sqlite")
        assert result.exit_code == 0, result.output
        assert "1 file skipped: not a transcript." in result.output
    assert path.read_bytes() == b"SQLite format 3\x00" + b"\xff" * 200


def test_the_sqlite_header_makes_any_name_a_database() -> None:
    build(Path("history.bin"))
    result = invoke("lint", "history.bin")
    assert "history.bin:orphan: HN002" in result.output


def test_a_folder_scan_reads_databases() -> None:
    Path("data").mkdir()
    build(Path("data/chats.sqlite3"))
    foreign(Path("data/notes.db"))
    result = invoke("lint", "data")
    assert result.exit_code == 1
    assert "data/chats.sqlite3:orphan: HN002" in result.output
    assert "notes.db" not in result.output


def test_fix_refuses_a_database_whose_rows_other_tables_point_at() -> None:
    path = build(Path("chats.db"))
    with sqlite3.connect(path) as db:
        db.execute(
            "CREATE TABLE message_structure (id INTEGER PRIMARY KEY, message_id INTEGER "
            "NOT NULL, FOREIGN KEY (message_id) REFERENCES agent_messages(id))"
        )
    db.close()
    before = path.read_bytes()
    result = invoke("fix", "chats.db")
    assert result.exit_code == 1
    assert "message_structure" in result.output
    assert path.read_bytes() == before


# LangGraph SqliteSaver


def build_langgraph(path: Path) -> Path:
    """Threads checkpointed by LangGraph's own `SqliteSaver` (`checkpoint_threads`)."""
    sqlite_saver = pytest.importorskip("langgraph.checkpoint.sqlite")
    with sqlite_saver.SqliteSaver.from_conn_string(str(path)) as saver:
        checkpoint_threads(saver)
    return path


def checkpoint_threads(saver: Any) -> None:
    """Three threads checkpointed by LangGraph through `saver`: a clean one, one holding
    an orphan tool result, and one with the same damage paused on an `interrupt()`."""
    graph_module = pytest.importorskip("langgraph.graph")
    from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, ToolMessage
    from langgraph.graph.message import add_messages
    from langgraph.types import interrupt
    from typing_extensions import TypedDict

    # the functional form: the annotation is an object, not a string to resolve later
    State = TypedDict("State", {"messages": Annotated[list[AnyMessage], add_messages]})  # noqa: UP013

    def passing(state: Any) -> dict[str, Any]:
        return {"messages": []}

    def asking(state: Any) -> dict[str, Any]:
        return {"messages": [AIMessage(content=str(interrupt("approve?")))]}

    def compiled(node: Any, saver: Any) -> Any:
        builder = graph_module.StateGraph(State)
        builder.add_node("node", node)
        builder.add_edge(graph_module.START, "node")
        builder.add_edge("node", graph_module.END)
        return builder.compile(checkpointer=saver)

    stale = ToolMessage(content="stale", tool_call_id="zz")
    plain = compiled(passing, saver)
    plain.invoke({"messages": [HumanMessage("hi"), AIMessage("hello")]}, _thread("clean"))
    damaged = {"messages": [HumanMessage("hi"), stale, AIMessage("done")]}
    plain.invoke(damaged, _thread("orphan"))
    compiled(asking, saver).invoke({"messages": [HumanMessage("hi"), stale]}, _thread("paused"))


def _thread(thread_id: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread_id}}


def test_langgraph_threads_are_linted_at_their_latest_checkpoint() -> None:
    path = build_langgraph(Path("graph.sqlite"))
    before = path.read_bytes()
    result = invoke("lint", "graph.sqlite")
    assert result.exit_code == 1, result.output
    assert "graph.sqlite:orphan: HN002" in result.output
    assert "(at /1)" in result.output
    assert "graph.sqlite:clean" not in result.output
    assert "in 3 transcripts" in result.output
    paused = [line for line in result.output.splitlines() if "graph.sqlite:paused" in line]
    assert paused and all("interrupt" in line for line in paused)
    assert path.read_bytes() == before
    assert leftovers(Path(".")) == []


def test_langgraph_fix_is_refused_and_writes_nothing() -> None:
    path = build_langgraph(Path("graph.sqlite"))
    before = path.read_bytes()
    result = invoke("fix", "graph.sqlite")
    assert result.exit_code == 1
    assert "RepairCheckpointer" in result.output
    assert "Fixed" not in result.output
    assert path.read_bytes() == before
    assert leftovers(Path(".")) == []


# the row changes, and the transaction they are made in


def test_row_plan_keeps_rows_and_refuses_what_would_renumber() -> None:
    from histnorm_cli.session_rows import plan_rows

    a, b, c, d = {"n": 1}, {"n": 2}, {"n": 3}, {"n": 4}
    rows = [(10, "a"), (11, "b"), (12, "c")]
    new_b = {"n": 20}
    plan = plan_rows(rows, [a, b, c], [a, new_b, c, d])
    assert not isinstance(plan, str)
    assert (plan.update, plan.delete, plan.append) == ([(11, new_b)], [], [d])
    plan = plan_rows(rows, [a, b, c], [a, c])
    assert not isinstance(plan, str) and plan.delete == [11] and not plan.update
    assert "reorder" in str(plan_rows(rows, [a, b, c], [a, c, b]))
    assert "between stored rows" in str(plan_rows(rows, [a, b, c], [a, d, b, c]))
    assert "repeats a key" in str(plan_rows(rows, [a, b, c], [a, new_b, c], repeated={1}))


def test_the_write_is_all_or_nothing_and_checks_the_rows_first() -> None:
    from histnorm_cli import agents_db
    from histnorm_cli.session_rows import Plan
    from histnorm_cli.sql import Sqlite

    path = build(Path("chats.db"))
    before = rows(path)
    orphan = [(i, m) for i, s, m in before if s == "orphan"]
    stale = [(i, m) for i, s, m in before if s == "open"][:1]  # not the rows stored now
    changes: dict[Any, Any] = {
        "orphan": (orphan, Plan(delete=[orphan[1][0]])),
        "open": (stale, Plan(append=[OUTPUT])),
    }
    with sqlite3.connect(path, isolation_level=None) as db:
        with pytest.raises(agents_db.Changed, match="session open changed"):
            agents_db.write(Sqlite(db), changes)
        assert not db.in_transaction
    db.close()
    assert rows(path) == before  # the orphan session's change was rolled back too


def test_several_jobs_read_databases_too() -> None:
    build(Path("a.db"))
    build(Path("b.db"))
    result = invoke("lint", "--jobs", "2", "a.db", "b.db")
    assert result.exit_code == 1
    assert "a.db:orphan: HN002" in result.output and "b.db:orphan: HN002" in result.output


def test_a_session_a_real_run_stored_lints_clean() -> None:
    from tests.openai_agents_helpers import ToolCallingModel, _run

    session = agents.SQLiteSession("run", "runs.db")
    try:
        _run("When is low tide?", session=session, model=ToolCallingModel())
    finally:
        session.close()
    types = [json.loads(text).get("type") for _, _, text in rows(Path("runs.db"))]
    assert "function_call" in types and "function_call_output" in types
    before = Path("runs.db").read_bytes()
    result = invoke("fix", "runs.db")
    assert result.exit_code == 0, result.output
    assert "All checks passed!" in result.output
    assert Path("runs.db").read_bytes() == before


def test_fix_leaves_a_row_that_repeats_a_key() -> None:
    """A row whose JSON repeats a key reads as its last value; rewriting it would drop
    the other, so a fix that would rewrite it (Mistral's call ids: HN104 renames `c1` in
    the call's row and the output's) is refused, saying why."""
    path = build(Path("chats.db"), {"clean": [USER, CALL, OUTPUT, ANSWER]})
    with sqlite3.connect(path) as db:
        text = json.dumps(CALL).replace('"name": "weather"', '"name": "w", "name": "weather"')
        db.execute("UPDATE agent_messages SET message_data = ? WHERE message_data = ?",
                   (text, json.dumps(CALL)))  # fmt: skip
    db.close()
    before = path.read_bytes()
    result = invoke("fix", "--profile", "mistral", "chats.db")
    assert "repeats a key" in result.output, result.output
    assert path.read_bytes() == before


def test_a_row_holding_a_number_a_float_cannot_keep_is_not_rewritten() -> None:
    """A number with more digits than a float holds would change if its row were
    rewritten (the framework reads it as a float, and json.dumps writes that back)."""
    from histnorm_cli.session_rows import kept_values, lost_number

    assert lost_number('{"a": 0.1, "b": 1e2, "c": 12345678901234567890}') is None
    assert lost_number('{"a": [1, 0.10000000000000000000001]}') == "0.10000000000000000000001"
    assert lost_number('{"a": 1e400}') == "1e400"
    path = build(Path("chats.db"), {"clean": [USER, CALL, OUTPUT, ANSWER]})
    text = json.dumps({**CALL, "score": 0.5}).replace("0.5", "0.50000000000000000000001")
    with sqlite3.connect(path) as db:
        db.execute("UPDATE agent_messages SET message_data = ? WHERE message_data = ?",
                   (text, json.dumps(CALL)))  # fmt: skip
    db.close()
    assert kept_values(2, text, False) is not None
    before = path.read_bytes()
    result = invoke("fix", "--profile", "mistral", "chats.db")  # HN104 renames the call id
    assert "holds the number 0.50000000000000000000001" in result.output, result.output
    assert path.read_bytes() == before
