"""The LangGraph adapter, against the real packages: a checkpointer that repairs a thread's
messages on read, on graphs built with `StateGraph` over `InMemorySaver` and `SqliteSaver`,
and leaves a human-in-the-loop pause exactly as it was stored."""

from __future__ import annotations

import asyncio
import copy
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph.checkpoint.memory")

from langchain_core.messages import (
    AIMessage,
    AnyMessage,
    BaseMessage,
    HumanMessage,
    ToolMessage,
    convert_to_openai_messages,
)
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver, CheckpointTuple
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command, interrupt

from histnorm.integrations.langgraph import RepairCheckpointer, is_interrupted, repair_checkpoint
from histnorm.repair import Repair

CONFIG: RunnableConfig = {"configurable": {"thread_id": "thread-1"}}


def _call(call_id: str) -> dict[str, Any]:
    return {"name": "lookup", "args": {"q": "tides"}, "id": call_id, "type": "tool_call"}


BROKEN: list[BaseMessage] = [
    AIMessage("", tool_calls=[_call("call_dangling")], id="a1"),  # never answered
    ToolMessage("a result nobody asked for", tool_call_id="call_ghost", id="t1"),
    AIMessage("", id="a2"),  # empty text
    AIMessage("High tide is at 6.", id="a3"),
]
"""What a node of the first run returns: a dangling call, an orphan result, an empty text."""


def invalid(messages: list[AnyMessage]) -> list[str]:
    """Why a chat model would refuse `messages` as its next request (OpenAI Chat rules, on
    LangChain's own conversion): an assistant's tool call not answered by the tool
    messages right after it, a tool message answering no call right before it, an
    assistant message with neither text nor tool calls. Empty when the request is valid."""
    found: list[str] = []
    open_calls: set[str] = set()
    for message in convert_to_openai_messages(messages):
        assert isinstance(message, dict)
        role = message["role"]
        if role == "tool":
            if message["tool_call_id"] not in open_calls:
                found.append(f"orphan result {message['tool_call_id']}")
            open_calls.discard(message["tool_call_id"])
            continue
        found.extend(f"unanswered call {call}" for call in sorted(open_calls))
        open_calls = set()
        if role == "assistant":
            calls = message.get("tool_calls") or []
            if not message.get("content") and not calls:
                found.append("empty assistant message")
            open_calls = {call["id"] for call in calls}
    found.extend(f"unanswered call {call}" for call in sorted(open_calls))
    return found


def chat_graph(saver: BaseCheckpointSaver[Any], seen: list[list[AnyMessage]]) -> CompiledStateGraph:
    """A one-node chat graph; its model node records the messages it is given and, asked to
    "break", returns a broken turn (`BROKEN`)."""

    def model(state: MessagesState) -> dict[str, Any]:
        seen.append(list(state["messages"]))
        if state["messages"][-1].content == "break":
            return {"messages": copy.deepcopy(BROKEN)}
        return {"messages": [AIMessage("Anything else?", id=f"reply{len(seen)}")]}

    builder = StateGraph(MessagesState)
    builder.add_node("model", model)
    builder.add_edge(START, "model")
    builder.add_edge("model", END)
    return builder.compile(checkpointer=saver)


def approval_graph(
    saver: BaseCheckpointSaver[Any], seen: list[list[AnyMessage]]
) -> CompiledStateGraph:
    """A model node that asks for a payment (after an orphan result, a defect of its own),
    then an approval node that pauses on `interrupt()` and answers the call with what the
    human said."""

    def model(state: MessagesState) -> dict[str, Any]:
        return {
            "messages": [
                ToolMessage("stray", tool_call_id="call_ghost", id="t0"),
                AIMessage("", tool_calls=[_call("call_pay")], id="a1"),
            ]
        }

    def approve(state: MessagesState) -> dict[str, Any]:
        seen.append(list(state["messages"]))
        answer = interrupt({"approve": "call_pay"})
        return {"messages": [ToolMessage(answer, tool_call_id="call_pay", id="t1")]}

    builder = StateGraph(MessagesState)
    builder.add_node("model", model)
    builder.add_node("approve", approve)
    builder.add_edge(START, "model")
    builder.add_edge("model", "approve")
    builder.add_edge("approve", END)
    return builder.compile(checkpointer=saver)


class Recorder:
    """An `on_repair` callback that keeps what it is given."""

    def __init__(self) -> None:
        self.calls: list[tuple[RunnableConfig, Repair[list[Any]]]] = []

    def __call__(self, config: RunnableConfig, result: Repair[list[Any]]) -> None:
        self.calls.append((config, result))

    def codes(self) -> list[list[str]]:
        return [[fix.code for fix in result.fixes] for _, result in self.calls]


def stored(saver: InMemorySaver) -> tuple[Any, Any, Any]:
    """Everything an `InMemorySaver` holds (serialized bytes), copied."""
    return (
        copy.deepcopy(dict(saver.storage)),
        copy.deepcopy(dict(saver.writes)),
        copy.deepcopy(dict(saver.blobs)),
    )


def contained(before: tuple[Any, Any, Any], after: tuple[Any, Any, Any]) -> bool:
    """Whether every entry stored `before` is still in `after`, byte for byte."""
    storage_b, writes_b, blobs_b = before
    storage_a, writes_a, blobs_a = after
    for thread, namespaces in storage_b.items():
        for ns, checkpoints in namespaces.items():
            for checkpoint_id, entry in checkpoints.items():
                if storage_a[thread][ns].get(checkpoint_id) != entry:
                    return False
    for key, entries in writes_b.items():
        if any(writes_a[key].get(k) != v for k, v in entries.items()):
            return False
    return all(blobs_a.get(key) == value for key, value in blobs_b.items())


def test_a_resumed_thread_gets_its_messages_repaired() -> None:
    seen: list[list[AnyMessage]] = []
    recorder = Recorder()
    graph = chat_graph(RepairCheckpointer(InMemorySaver(), on_repair=recorder), seen)
    graph.invoke({"messages": [HumanMessage("break", id="h1")]}, CONFIG)
    assert recorder.calls == []  # a first run reads no checkpoint
    graph.invoke({"messages": [HumanMessage("And low tide?", id="h2")]}, CONFIG)
    received = seen[-1]
    assert [m.id for m in received] == ["h1", "a3", "h2"]
    assert invalid(received) == []
    (config, result), *more = recorder.calls
    assert not more
    assert config["configurable"]["thread_id"] == "thread-1"
    assert sorted(result.applied) == ["HN001", "HN002", "HN005"]
    assert all((fix.location.pointer or "").startswith("/") for fix in result.fixes)


def test_without_the_wrapper_the_same_thread_would_be_refused() -> None:
    """The graph and saver of the test above, unwrapped: the check catches the defects."""
    seen: list[list[AnyMessage]] = []
    graph = chat_graph(InMemorySaver(), seen)
    graph.invoke({"messages": [HumanMessage("break", id="h1")]}, CONFIG)
    graph.invoke({"messages": [HumanMessage("And low tide?", id="h2")]}, CONFIG)
    assert invalid(seen[-1]) == [
        "orphan result call_ghost",
        "unanswered call call_dangling",
        "empty assistant message",
    ]


def test_reading_never_changes_the_store_and_the_graph_writes_the_repair() -> None:
    saver = InMemorySaver()
    seen: list[list[AnyMessage]] = []
    wrapper = RepairCheckpointer(saver)
    graph = chat_graph(wrapper, seen)
    graph.invoke({"messages": [HumanMessage("break", id="h1")]}, CONFIG)
    before = stored(saver)
    latest = wrapper.get_tuple(CONFIG)
    assert latest is not None
    assert [m.id for m in latest.checkpoint["channel_values"]["messages"]] == ["h1", "a3"]
    list(wrapper.list(CONFIG))
    graph.get_state(CONFIG)
    list(graph.get_state_history(CONFIG))
    assert stored(saver) == before
    raw = saver.get_tuple(CONFIG)
    assert raw is not None
    assert [m.id for m in raw.checkpoint["channel_values"]["messages"]] == [
        "h1",
        "a1",
        "t1",
        "a2",
        "a3",
    ]
    graph.invoke({"messages": [HumanMessage("And low tide?", id="h2")]}, CONFIG)
    assert contained(before, stored(saver))  # the old checkpoints are as they were
    raw = saver.get_tuple(CONFIG)
    assert raw is not None
    messages = raw.checkpoint["channel_values"]["messages"]
    assert [m.id for m in messages] == ["h1", "a3", "h2", "reply2"]


def test_a_repair_copies_and_keeps_untouched_messages() -> None:
    saver = InMemorySaver()
    graph = chat_graph(saver, [])
    graph.invoke({"messages": [HumanMessage("break", id="h1")]}, CONFIG)
    raw = saver.get_tuple(CONFIG)
    assert raw is not None
    values = raw.checkpoint["channel_values"]
    kept = copy.deepcopy(raw)
    repaired = repair_checkpoint(raw)
    assert repaired is not raw
    assert repaired.checkpoint is not raw.checkpoint
    assert repaired.checkpoint["channel_values"] is not values
    assert repaired.checkpoint["channel_values"]["messages"][0] is values["messages"][0]
    assert repaired.config is raw.config
    assert repaired.pending_writes is raw.pending_writes
    assert repaired.checkpoint["channel_versions"] == raw.checkpoint["channel_versions"]
    assert raw == kept  # nothing the saver gave was changed
    assert repair_checkpoint(repaired) is repaired  # a repaired checkpoint needs nothing


class Spy(InMemorySaver):
    """An `InMemorySaver` that keeps the last tuple it gave."""

    last: CheckpointTuple | None = None

    def get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        self.last = super().get_tuple(config)
        return self.last


def test_a_paused_approval_is_given_back_untouched_and_resumes() -> None:
    """Even with `tail="close"`, which would close the call awaiting approval, and with
    an orphan result before it, the paused checkpoint is the saver's own tuple."""
    saver = Spy()
    recorder = Recorder()
    seen: list[list[AnyMessage]] = []
    wrapper = RepairCheckpointer(saver, tail="close", on_repair=recorder)
    graph = approval_graph(wrapper, seen)
    out = graph.invoke({"messages": [HumanMessage("Pay the invoice", id="h1")]}, CONFIG)
    assert [i.value for i in out["__interrupt__"]] == [{"approve": "call_pay"}]
    paused = wrapper.get_tuple(CONFIG)
    assert paused is not None
    assert paused is saver.last
    assert is_interrupted(paused)
    assert [m.id for m in paused.checkpoint["channel_values"]["messages"]] == ["h1", "t0", "a1"]
    assert [m.id for m in graph.get_state(CONFIG).values["messages"]] == ["h1", "t0", "a1"]
    before = stored(saver)
    out = graph.invoke(Command(resume="approved"), CONFIG)
    assert recorder.calls == []
    assert contained(before, stored(saver))
    assert [m.id for m in seen[-1]] == ["h1", "t0", "a1"]  # the resumed node's own state
    assert [m.id for m in out["messages"]] == ["h1", "t0", "a1", "t1"]
    assert out["messages"][-1].content == "approved"
    assert "__interrupt__" not in out
    # once the pause is over, the finished thread is repaired on read
    done = wrapper.get_tuple(CONFIG)
    assert done is not None
    assert [m.id for m in done.checkpoint["channel_values"]["messages"]] == ["h1", "a1", "t1"]
    assert recorder.codes() == [["HN002"]]


def test_a_pause_inside_a_subgraph_leaves_both_checkpoints_untouched() -> None:
    """A subgraph's `interrupt()` leaves an `__interrupt__` write in the parent's checkpoint
    as well as in its own: neither is repaired, and the resume answers the call."""

    def approve(state: MessagesState) -> dict[str, Any]:
        answer = interrupt("approve?")
        return {"messages": [ToolMessage(answer, tool_call_id="call_pay", id="t1")]}

    inner = StateGraph(MessagesState)
    inner.add_node("approve", approve)
    inner.add_edge(START, "approve")

    def model(state: MessagesState) -> dict[str, Any]:
        return {
            "messages": [
                ToolMessage("stray", tool_call_id="call_ghost", id="t0"),
                AIMessage("", tool_calls=[_call("call_pay")], id="a1"),
            ]
        }

    outer = StateGraph(MessagesState)
    outer.add_node("model", model)
    outer.add_node("approval", inner.compile())
    outer.add_edge(START, "model")
    outer.add_edge("model", "approval")
    saver = InMemorySaver()
    recorder = Recorder()
    graph = outer.compile(checkpointer=RepairCheckpointer(saver, tail="close", on_repair=recorder))
    graph.invoke({"messages": [HumanMessage("Pay the invoice", id="h1")]}, CONFIG)
    paused = [t for t in saver.list(CONFIG) if is_interrupted(t)]
    assert {t.config["configurable"]["checkpoint_ns"].split(":")[0] for t in paused} == {
        "",
        "approval",
    }
    before = stored(saver)
    out = graph.invoke(Command(resume="approved"), CONFIG)
    assert [m.id for m in out["messages"]] == ["h1", "t0", "a1", "t1"]
    assert contained(before, stored(saver))
    assert recorder.calls == []


def test_listing_repairs_each_checkpoint_but_the_paused_one() -> None:
    saver = InMemorySaver()
    wrapper = RepairCheckpointer(saver, tail="close")
    graph = approval_graph(wrapper, [])
    graph.invoke({"messages": [HumanMessage("Pay the invoice", id="h1")]}, CONFIG)
    history = list(wrapper.list(CONFIG))
    raw = list(saver.list(CONFIG))
    assert [t.config for t in history] == [t.config for t in raw]
    paused = [t for t in history if is_interrupted(t)]
    assert len(paused) == 1
    assert paused[0].checkpoint == next(t for t in raw if is_interrupted(t)).checkpoint
    for saved in history:
        if not is_interrupted(saved):
            messages = saved.checkpoint["channel_values"].get("messages", [])
            assert invalid(messages) == []


def test_pending_writes_to_the_messages_keep_the_calls_at_the_end() -> None:
    """A superstep that stopped part-way: a task already wrote the result of the call at
    the end, so even `tail="close"` leaves that call alone."""
    messages = [HumanMessage("hi", id="h"), AIMessage("", tool_calls=[_call("c1")], id="a")]
    saved = CheckpointTuple(
        config={"configurable": {"thread_id": "t", "checkpoint_id": "1"}},
        checkpoint={
            "v": 4,
            "id": "1",
            "ts": "2026-01-01T00:00:00+00:00",
            "channel_values": {"messages": messages},
            "channel_versions": {},
            "versions_seen": {},
            "updated_channels": None,
        },
        metadata={},
        pending_writes=[("task", "messages", [ToolMessage("ok", tool_call_id="c1")])],
    )
    assert repair_checkpoint(saved, tail="close") is saved
    closed = repair_checkpoint(saved._replace(pending_writes=[]), tail="close")
    assert [m.id for m in closed.checkpoint["channel_values"]["messages"]] == ["h"]


def test_what_is_no_message_list_is_left_alone() -> None:
    base: dict[str, Any] = {
        "v": 4,
        "id": "1",
        "ts": "2026-01-01T00:00:00+00:00",
        "channel_versions": {},
        "versions_seen": {},
        "updated_channels": None,
    }
    for values in ({}, {"messages": "text"}, {"messages": [{"role": "user"}]}, {"count": 3}):
        saved = CheckpointTuple({"configurable": {}}, {**base, "channel_values": values}, {})
        assert repair_checkpoint(saved) is saved


def test_another_channel_can_be_named() -> None:
    broken = [HumanMessage("hi", id="h"), ToolMessage("x", tool_call_id="ghost", id="t")]
    saved = CheckpointTuple(
        {"configurable": {}},
        {
            "v": 4,
            "id": "1",
            "ts": "2026-01-01T00:00:00+00:00",
            "channel_values": {"history": broken, "messages": broken},
            "channel_versions": {},
            "versions_seen": {},
            "updated_channels": None,
        },
        {},
    )
    repaired = repair_checkpoint(saved, channel="history")
    assert [m.id for m in repaired.checkpoint["channel_values"]["history"]] == ["h"]
    assert repaired.checkpoint["channel_values"]["messages"] is broken


def test_async_reads_repair_too() -> None:
    async def run() -> tuple[list[AnyMessage], list[CheckpointTuple]]:
        seen: list[list[AnyMessage]] = []
        wrapper = RepairCheckpointer(InMemorySaver())
        graph = chat_graph(wrapper, seen)
        await graph.ainvoke({"messages": [HumanMessage("break", id="h1")]}, CONFIG)
        await graph.ainvoke({"messages": [HumanMessage("And low tide?", id="h2")]}, CONFIG)
        listed = [saved async for saved in wrapper.alist(CONFIG)]
        return seen[-1], listed

    received, listed = asyncio.run(run())
    assert [m.id for m in received] == ["h1", "a3", "h2"]
    for saved in listed:
        assert invalid(saved.checkpoint["channel_values"].get("messages", [])) == []


class OldSaver(InMemorySaver):
    """A saver written before `put_writes` took a `task_path`."""

    def put_writes(self, config: RunnableConfig, writes: Any, task_id: str) -> None:  # type: ignore[override]
        super().put_writes(config, writes, task_id)


def test_writes_and_the_rest_go_to_the_wrapped_saver() -> None:
    saver = OldSaver()
    wrapper = RepairCheckpointer(saver)
    graph = approval_graph(wrapper, [])
    graph.invoke({"messages": [HumanMessage("Pay", id="h1")]}, CONFIG)
    out = graph.invoke(Command(resume="approved"), CONFIG)
    assert out["messages"][-1].content == "approved"
    assert wrapper.get_next_version(None, None).startswith("0" * 31 + "1.")
    assert wrapper.serde is saver.serde
    assert wrapper.config_specs == saver.config_specs
    wrapper.delete_thread("thread-1")
    assert saver.get_tuple(CONFIG) is None


class Cloning(InMemorySaver):
    """A saver whose `with_allowlist` gives a clone, as one with a strict serializer does."""

    def with_allowlist(self, extra_allowlist: Any) -> InMemorySaver:
        return copy.copy(self)


def test_an_allowlist_clone_stays_wrapped() -> None:
    """LangGraph calls `with_allowlist` when it compiles a graph and keeps what it returns."""
    recorder = Recorder()
    wrapper = RepairCheckpointer(Cloning(), tail="close", channel="history", on_repair=recorder)
    clone = wrapper.with_allowlist([("mymodule", "MyClass")])
    assert isinstance(clone, RepairCheckpointer)
    assert clone is not wrapper
    assert isinstance(clone.saver, Cloning) and clone.saver is not wrapper.saver
    assert (clone.settings, clone.channel, clone.on_repair) == (
        wrapper.settings,
        "history",
        recorder,
    )
    plain = RepairCheckpointer(InMemorySaver())
    assert plain.with_allowlist([("mymodule", "MyClass")]) is plain


def test_only_a_checkpointer_can_be_wrapped() -> None:
    with pytest.raises(TypeError, match="BaseCheckpointSaver"):
        RepairCheckpointer({})  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="tial"):
        RepairCheckpointer(InMemorySaver(), tial="close")


# SqliteSaver (langgraph-checkpoint-sqlite): the checkpoints live in a real database file.


@pytest.fixture
def sqlite_saver(tmp_path: Path) -> Iterator[tuple[Any, Path]]:
    sqlite = pytest.importorskip("langgraph.checkpoint.sqlite")
    path = tmp_path / "checkpoints.sqlite"
    with sqlite.SqliteSaver.from_conn_string(str(path)) as saver:
        yield saver, path


def rows(path: Path) -> tuple[list[Any], list[Any]]:
    """Every row of the `checkpoints` and `writes` tables, read apart from the saver."""
    with sqlite3.connect(path) as conn:
        checkpoints = conn.execute("SELECT * FROM checkpoints ORDER BY 1, 2, 3").fetchall()
        writes = conn.execute("SELECT * FROM writes ORDER BY 1, 2, 3, 4, 6").fetchall()
    return checkpoints, writes


def test_sqlite_a_resumed_thread_gets_its_messages_repaired(
    sqlite_saver: tuple[Any, Path],
) -> None:
    saver, path = sqlite_saver
    seen: list[list[AnyMessage]] = []
    recorder = Recorder()
    wrapper = RepairCheckpointer(saver, on_repair=recorder)
    graph = chat_graph(wrapper, seen)
    graph.invoke({"messages": [HumanMessage("break", id="h1")]}, CONFIG)
    before = rows(path)
    list(wrapper.list(CONFIG))
    graph.get_state(CONFIG)
    assert rows(path) == before
    graph.invoke({"messages": [HumanMessage("And low tide?", id="h2")]}, CONFIG)
    assert [m.id for m in seen[-1]] == ["h1", "a3", "h2"]
    assert invalid(seen[-1]) == []
    checkpoints, writes = rows(path)
    assert set(before[0]) <= set(checkpoints)
    assert set(before[1]) <= set(writes)
    assert recorder.calls
    assert all(sorted(r.applied) == ["HN001", "HN002", "HN005"] for _, r in recorder.calls)


def test_sqlite_a_paused_approval_survives_untouched(sqlite_saver: tuple[Any, Path]) -> None:
    saver, path = sqlite_saver
    recorder = Recorder()
    wrapper = RepairCheckpointer(saver, tail="close", on_repair=recorder)
    graph = approval_graph(wrapper, [])
    graph.invoke({"messages": [HumanMessage("Pay the invoice", id="h1")]}, CONFIG)
    before = rows(path)
    paused = wrapper.get_tuple(CONFIG)
    raw = saver.get_tuple(CONFIG)
    assert paused is not None and raw is not None
    assert is_interrupted(paused)
    assert paused.checkpoint == raw.checkpoint
    assert paused.pending_writes == raw.pending_writes
    assert rows(path) == before
    out = graph.invoke(Command(resume="approved"), CONFIG)
    assert [m.id for m in out["messages"]] == ["h1", "t0", "a1", "t1"]
    checkpoints, writes = rows(path)
    assert set(before[0]) <= set(checkpoints)  # the paused checkpoint, byte for byte
    assert set(before[1]) <= set(writes)
    assert recorder.calls == []


def test_async_sqlite_a_paused_approval_survives_and_the_thread_is_repaired(
    tmp_path: Path,
) -> None:
    aio = pytest.importorskip("langgraph.checkpoint.sqlite.aio")
    path = tmp_path / "checkpoints.sqlite"
    recorder = Recorder()

    async def run() -> tuple[Any, Any, list[CheckpointTuple]]:
        async with aio.AsyncSqliteSaver.from_conn_string(str(path)) as saver:
            wrapper = RepairCheckpointer(saver, tail="close", on_repair=recorder)
            graph = approval_graph(wrapper, [])
            await graph.ainvoke({"messages": [HumanMessage("Pay", id="h1")]}, CONFIG)
            before = rows(path)
            out = await graph.ainvoke(Command(resume="approved"), CONFIG)
            listed = [t async for t in wrapper.alist(CONFIG)]
            return before, out, listed

    before, out, listed = asyncio.run(run())
    assert [m.id for m in out["messages"]] == ["h1", "t0", "a1", "t1"]
    checkpoints, writes = rows(path)
    assert set(before[0]) <= set(checkpoints)
    assert set(before[1]) <= set(writes)
    assert [m.id for m in listed[0].checkpoint["channel_values"]["messages"]] == ["h1", "a1", "t1"]
    assert recorder.codes()[0] == ["HN002"]
