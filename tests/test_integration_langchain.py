"""The LangChain adapter, against the real packages: repair a message list, a pair-safe
trim, and an agent middleware that repairs the history before each model call."""

from __future__ import annotations

import asyncio
import importlib
import sys
from typing import Any

import pytest

pytest.importorskip("langchain_core")
pytest.importorskip("langchain.agents")

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.messages import trim_messages as plain_trim
from langchain_core.tools import tool

from histnorm.integrations.langchain import RepairMiddleware, repair_messages, trim_messages

CALL = {"name": "lookup", "args": {"q": "tides"}, "id": "call_1", "type": "tool_call"}


def _orphan_call() -> list[BaseMessage]:
    """An answered-nothing tool call: the AIMessage asks, no ToolMessage follows."""
    return [
        SystemMessage("You look things up.", id="s"),
        HumanMessage("When is high tide?", id="h1"),
        AIMessage("Let me look.", tool_calls=[CALL], id="a1"),
        HumanMessage("Still there?", id="h2"),
    ]


def _unanswered(messages: list[BaseMessage]) -> list[str]:
    """The ids of tool calls with no ToolMessage after them."""
    answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
    return [
        call["id"] or ""
        for m in messages
        if isinstance(m, AIMessage)
        for call in m.tool_calls
        if call["id"] not in answered
    ]


def _orphan_results(messages: list[BaseMessage]) -> list[str]:
    """The ids of ToolMessages whose call is not before them."""
    called: set[str | None] = set()
    found = []
    for m in messages:
        if isinstance(m, AIMessage):
            called.update(call["id"] for call in m.tool_calls)
        elif isinstance(m, ToolMessage) and m.tool_call_id not in called:
            found.append(m.tool_call_id)
    return found


def test_an_orphan_tool_call_is_dropped_and_the_rest_kept_as_they_were() -> None:
    messages = _orphan_call()
    repaired = repair_messages(messages)
    assert _unanswered(repaired) == []
    assert [m.id for m in repaired] == ["s", "h1", "a1", "h2"]
    assert repaired[2].content == "Let me look."
    assert repaired[2] is not messages[2]
    for index in (0, 1, 3):
        assert repaired[index] is messages[index]
    assert messages[2].tool_calls == [CALL]  # the input is not changed


def test_an_orphan_tool_call_can_be_answered_instead() -> None:
    messages = _orphan_call()
    repaired = repair_messages(messages, orphan_tool_call="synthesize")
    assert [type(m).__name__ for m in repaired] == [
        "SystemMessage",
        "HumanMessage",
        "AIMessage",
        "ToolMessage",
        "HumanMessage",
    ]
    assert repaired[2] is messages[2]
    assert isinstance(repaired[3], ToolMessage) and repaired[3].tool_call_id == "call_1"
    assert _unanswered(repaired) == []


def test_a_tool_result_whose_call_was_cut_off_is_dropped() -> None:
    messages: list[BaseMessage] = [
        ToolMessage("12:40", tool_call_id="call_0", id="t0"),
        AIMessage("High tide is at 12:40.", id="a0"),
        HumanMessage("Thanks. And low tide?", id="h1"),
    ]
    repaired = repair_messages(messages)
    assert repaired == messages[1:]
    assert all(a is b for a, b in zip(repaired, messages[1:], strict=True))


def test_a_clean_history_comes_back_as_the_same_objects() -> None:
    messages: list[BaseMessage] = [
        HumanMessage("When is high tide?", id="h1"),
        AIMessage("", tool_calls=[CALL], id="a1"),
        ToolMessage("12:40", tool_call_id="call_1", id="t1"),
        AIMessage("At 12:40.", id="a2"),
    ]
    repaired = repair_messages(messages)
    assert len(repaired) == len(messages)
    assert all(a is b for a, b in zip(repaired, messages, strict=True))


@pytest.mark.parametrize("options", [{}, {"orphan_tool_call": "synthesize"}])
def test_repair_is_idempotent(options: dict[str, Any]) -> None:
    once = repair_messages(_orphan_call(), **options)
    twice = repair_messages(once, **options)
    assert all(a is b for a, b in zip(twice, once, strict=True))
    assert len(twice) == len(once)


@pytest.mark.parametrize(
    "messages",
    [
        [HumanMessage("hi", id="h"), ("ai", "not a message object")],
        [HumanMessage("hi", id="h"), object()],
        [
            HumanMessage("hi", id="h"),
            AIMessage("", tool_calls=[CALL], additional_kwargs={"raw": b"\x00"}, id="a"),
            HumanMessage("again", id="h2"),
        ],
    ],
    ids=["tuple", "object", "bytes-inside"],
)
def test_an_unreadable_history_is_returned_unchanged(messages: list[Any]) -> None:
    repaired = repair_messages(messages)
    assert len(repaired) == len(messages)
    assert all(a is b for a, b in zip(repaired, messages, strict=True))


def test_an_unknown_option_is_an_error() -> None:
    with pytest.raises(TypeError, match="orphan_call"):
        repair_messages(_orphan_call(), orphan_call="drop")
    with pytest.raises(TypeError, match="orphan_call"):
        RepairMiddleware(orphan_call="drop")


def test_an_empty_history_is_empty() -> None:
    assert repair_messages([]) == []


def _tide_history() -> list[BaseMessage]:
    return [
        HumanMessage("When is high tide?", id="h1"),
        AIMessage("", tool_calls=[CALL], id="a1"),
        ToolMessage("12:40 at the harbour mouth", tool_call_id="call_1", id="t1"),
        AIMessage("High tide is at 12:40.", id="a2"),
        HumanMessage("And low tide?", id="h2"),
    ]


TRIM = {"max_tokens": 3, "token_counter": len, "strategy": "last"}
"""Keep the last three messages, counting one token a message."""


def test_plain_trim_can_leave_a_leading_tool_message() -> None:
    """The case the pair-safe trim is for (langchain-ai/langchain#33245)."""
    trimmed = plain_trim(_tide_history(), **TRIM)
    assert isinstance(trimmed[0], ToolMessage)
    assert _orphan_results(trimmed) == ["call_1"]


def test_trim_never_leaves_a_tool_message_without_its_call() -> None:
    history = _tide_history()
    trimmed = trim_messages(history, **TRIM)
    assert [m.id for m in trimmed] == ["a2", "h2"]
    assert _orphan_results(trimmed) == [] and _unanswered(trimmed) == []
    assert trimmed[0] is history[3] and trimmed[1] is history[4]


def test_trim_never_keeps_a_call_without_its_result() -> None:
    history = _tide_history()
    trimmed = trim_messages(history, max_tokens=2, token_counter=len, strategy="first")
    assert [m.id for m in trimmed] == ["h1"]
    assert _unanswered(trimmed) == []


class RecordingChatModel(GenericFakeChatModel):
    """A fake chat model that keeps the messages of each call and accepts tools."""

    seen: list[list[BaseMessage]] = []  # noqa: RUF012 (a pydantic field, copied per instance)

    def bind_tools(self, tools: Any, **kwargs: Any) -> RecordingChatModel:  # type: ignore[override]
        return self

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Any:
        self.seen.append(list(messages))
        return super()._generate(messages, *args, **kwargs)


@tool
def lookup(q: str) -> str:
    """Look something up."""
    return "12:40"


def _agent_run(middleware: list[Any]) -> tuple[RecordingChatModel, dict[str, Any]]:
    model = RecordingChatModel(messages=iter([AIMessage("High tide is at 12:40.")]))
    agent = create_agent(model=model, tools=[lookup], middleware=middleware)
    state = agent.invoke({"messages": _orphan_call()})
    return model, state


def test_without_the_middleware_the_model_sees_the_orphan_call() -> None:
    model, _ = _agent_run([])
    assert _unanswered(model.seen[0]) == ["call_1"]


def test_the_middleware_repairs_the_history_before_the_model_sees_it() -> None:
    model, state = _agent_run([RepairMiddleware()])
    assert len(model.seen) == 1
    seen = model.seen[0]
    assert _unanswered(seen) == []
    assert [m.id for m in seen] == ["s", "h1", "a1", "h2"]
    assert [m.id for m in state["messages"][:4]] == ["s", "h1", "a1", "h2"]
    assert _unanswered(state["messages"]) == []
    assert state["messages"][-1].content == "High tide is at 12:40."


def test_the_middleware_passes_its_options_to_the_repair() -> None:
    model, _ = _agent_run([RepairMiddleware(orphan_tool_call="synthesize")])
    seen = model.seen[0]
    assert [type(m).__name__ for m in seen][2:4] == ["AIMessage", "ToolMessage"]
    assert _unanswered(seen) == []


def test_the_middleware_changes_nothing_in_a_clean_history() -> None:
    middleware = RepairMiddleware()
    assert middleware.before_model({"messages": _tide_history()}, None) is None  # type: ignore[arg-type]


def test_the_middleware_closes_a_call_left_open_at_the_end() -> None:
    history: list[BaseMessage] = [HumanMessage("hi", id="h"), AIMessage("", tool_calls=[CALL])]
    update = RepairMiddleware().before_model({"messages": history}, None)  # type: ignore[arg-type]
    assert update is not None
    assert [type(m).__name__ for m in update["messages"]] == ["RemoveMessage", "HumanMessage"]
    assert update["messages"][1] is history[0]
    kept = RepairMiddleware(tail="keep").before_model({"messages": history}, None)  # type: ignore[arg-type]
    assert kept is None


def test_the_middleware_repairs_an_async_run_too() -> None:
    model = RecordingChatModel(messages=iter([AIMessage("High tide is at 12:40.")]))
    agent = create_agent(model=model, tools=[lookup], middleware=[RepairMiddleware()])
    state = asyncio.run(agent.ainvoke({"messages": _orphan_call()}))
    assert _unanswered(model.seen[0]) == [] and _unanswered(state["messages"]) == []


def _reimport(monkeypatch: pytest.MonkeyPatch, hidden: str) -> Any:
    """The adapter imported afresh, with the package `hidden` (and its modules) missing."""
    for name in list(sys.modules):
        if name.startswith((f"{hidden}.", "histnorm.integrations.")):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, hidden, None)
    return importlib.import_module("histnorm.integrations.langchain")


def test_without_langchain_the_middleware_names_the_package(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    adapter = _reimport(monkeypatch, "langchain")
    assert adapter.repair_messages(_orphan_call())[2].tool_calls == []
    with pytest.raises(ImportError, match=r"pip install langchain\b"):
        adapter.RepairMiddleware  # noqa: B018
