"""The OpenAI Agents SDK adapter, against the real package: a session that repairs its
history when it is read (`RepairSession`), and a run paused for approval over it."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("agents")

from agents import (
    Agent,
    ModelResponse,
    OpenAIConversationsSession,
    RunConfig,
    Runner,
    Session,
    SQLiteSession,
    function_tool,
)
from openai import AsyncOpenAI
from openai.types.responses import (
    ResponseFunctionToolCall,
)
from openai_agents_helpers import (
    INSTRUCTIONS,
    NO_DEFECTS,
    UNREADABLE,
    RecordingModel,
    ToolCallingModel,
    _call,
    _clean,
    _damaged,
    _defects,
    _output,
    _pydantic_items,
    _run,
    _user,
)

from histnorm.integrations.openai_agents import (
    RepairSession,
    repair_model_input,
)


def _stored(items: list[Any], session_id: str = "tides") -> SQLiteSession:
    session = SQLiteSession(session_id)  # in memory
    asyncio.run(session.add_items(items))
    return session


def test_the_session_is_an_sdk_session() -> None:
    session = RepairSession(SQLiteSession("user-42"))
    assert isinstance(session, Session)
    assert session.session_id == "user-42"


def test_a_history_held_on_the_server_cannot_be_wrapped() -> None:
    """The SDK sends an `OpenAIConversationsSession`'s history through the server, which a
    wrapper would hide from it."""
    server = OpenAIConversationsSession(
        conversation_id="conv_1", openai_client=AsyncOpenAI(api_key="unused")
    )
    with pytest.raises(TypeError, match=r"OpenAIConversationsSession.*server_managed=True"):
        RepairSession(server)


def test_the_session_id_is_the_wrapped_sessions() -> None:
    stored = SQLiteSession("user-42")
    session = RepairSession(stored)
    stored.session_id = "user-43"
    assert session.session_id == "user-43"


def test_the_session_repairs_on_read_and_stores_what_it_was_given() -> None:
    stored = _stored(_damaged())
    session = RepairSession(stored)
    read = asyncio.run(session.get_items())
    assert _defects(read) == NO_DEFECTS
    assert read[0] == _user("When is high tide?")
    assert asyncio.run(stored.get_items()) == _damaged()
    asyncio.run(session.add_items([_output("call_9")]))
    assert asyncio.run(stored.get_items()) == [*_damaged(), _output("call_9")]
    assert asyncio.run(session.pop_item()) == _output("call_9")
    assert asyncio.run(stored.get_items()) == _damaged()
    asyncio.run(session.clear_session())
    assert asyncio.run(stored.get_items()) == []
    assert asyncio.run(session.get_items()) == []


def test_the_session_returns_a_clean_history_as_read() -> None:
    class Fixed(SQLiteSession):
        async def get_items(self, limit: int | None = None) -> list[Any]:
            return self.items

    stored = Fixed("tides")
    stored.items = _clean() + _pydantic_items()[:2]  # type: ignore[attr-defined]
    read = asyncio.run(RepairSession(stored).get_items())
    assert all(a is b for a, b in zip(read, stored.items, strict=True))  # type: ignore[attr-defined]
    stored.items = UNREADABLE[0]  # type: ignore[attr-defined]
    read = asyncio.run(RepairSession(stored).get_items())
    assert read == UNREADABLE[0] and read[1] is UNREADABLE[0][1]


def test_a_window_of_the_session_never_starts_with_a_result_whose_call_is_before_it() -> None:
    session = RepairSession(_stored(_clean()))
    assert asyncio.run(session.get_items(limit=3)) == _clean()[3:]
    limited = RepairSession(_stored(_clean(), "limited"))
    limited.session_settings = type(limited.session.session_settings)(limit=3)  # type: ignore[misc]
    assert limited.session.session_settings is not None
    assert limited.session.session_settings.limit == 3
    assert asyncio.run(limited.get_items()) == _clean()[3:]


def test_the_session_keeps_a_call_still_open_at_the_end() -> None:
    """The SDK stores a call awaiting approval before its result."""
    items = [_user("Book a table"), _call("call_1")]
    assert asyncio.run(RepairSession(_stored(items)).get_items()) == items
    closed = RepairSession(_stored(items, "closed"), tail="close")
    assert asyncio.run(closed.get_items()) == items[:1]


def test_without_the_session_wrapper_the_model_is_sent_a_result_without_its_call() -> None:
    model, _ = _run("And the day after?", session=_stored(_damaged()))
    assert "call_0" in _defects(model.inputs[0])["orphan_results"]


def test_a_run_over_the_session_sends_the_repaired_history_and_stores_the_new_turn() -> None:
    stored = _stored(_damaged())
    model, result = _run("And the day after?", session=RepairSession(stored))
    seen = model.inputs[0]
    assert _defects(seen) == NO_DEFECTS
    assert seen[-1] == _user("And the day after?")
    assert result.final_output == "Low tide is at 18:55."
    after = asyncio.run(stored.get_items())
    assert after[: len(_damaged())] == _damaged()  # what was stored is not rewritten
    assert after[len(_damaged())] == _user("And the day after?")
    assert after[-1]["role"] == "assistant"


@function_tool(needs_approval=True)
def book_table() -> str:
    """Book a table (asks for approval first)."""
    return "booked"


class BookingModel(ToolCallingModel):
    """Calls `book_table` first, then answers."""

    async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
        response = await super().get_response(*args, **kwargs)
        for item in response.output:
            if isinstance(item, ResponseFunctionToolCall):
                item.name = "book_table"
        return response


def _approval_run(session: Any) -> tuple[BookingModel, list[Any], Any]:
    """A run interrupted for approval, what `session` reads then, and the resumed run."""
    model = BookingModel()
    agent = Agent(name="host", instructions=INSTRUCTIONS, model=model, tools=[book_table])
    config = RunConfig(call_model_input_filter=repair_model_input, tracing_disabled=True)
    first = asyncio.run(Runner.run(agent, "A table for two", session=session, run_config=config))
    assert len(first.interruptions) == 1
    read = asyncio.run(session.get_items())
    state = first.to_state()
    state.approve(first.interruptions[0])
    resumed = asyncio.run(Runner.run(agent, state, session=session, run_config=config))
    return model, read, resumed


def test_a_call_awaiting_approval_is_kept_and_the_run_resumes() -> None:
    plain_store, store = SQLiteSession("plain"), SQLiteSession("repaired")
    plain_model, plain_read, plain = _approval_run(plain_store)
    model, read, resumed = _approval_run(RepairSession(store))
    assert read == plain_read and read[-1]["type"] == "function_call"  # stored before approval
    assert model.inputs == plain_model.inputs
    assert _defects(model.inputs[1]) == NO_DEFECTS
    assert resumed.final_output == plain.final_output == "Low tide is at 18:55."
    stored = asyncio.run(store.get_items())
    assert stored == asyncio.run(plain_store.get_items())
    assert [item.get("type") for item in stored[1:3]] == ["function_call", "function_call_output"]


class ContextAwareSession(SQLiteSession):
    """A session whose operations take the SDK's run context, as the SDK allows."""

    def __init__(self, session_id: str) -> None:
        super().__init__(session_id)
        self.contexts: list[Any] = []

    async def get_items(self, limit: int | None = None, *, wrapper: Any = None) -> list[Any]:
        self.contexts.append(None if wrapper is None else wrapper.context)
        return await super().get_items(limit)

    async def add_items(self, items: list[Any], *, wrapper: Any = None) -> None:
        self.contexts.append(None if wrapper is None else wrapper.context)
        await super().add_items(items)

    async def pop_item(self, *, wrapper: Any = None) -> Any:
        return await super().pop_item()

    async def clear_session(self, *, wrapper: Any = None) -> None:
        await super().clear_session()


def test_the_session_passes_the_run_context_on() -> None:
    stored = ContextAwareSession("tides")
    asyncio.run(stored.add_items(_damaged()))
    stored.contexts.clear()
    model = RecordingModel()
    agent = Agent(name="tides", instructions=INSTRUCTIONS, model=model)
    run = Runner.run(
        agent,
        "And the day after?",
        context={"tenant": "harbour"},
        session=RepairSession(stored),
        run_config=RunConfig(tracing_disabled=True),
    )
    asyncio.run(run)
    assert _defects(model.inputs[0]) == NO_DEFECTS
    assert stored.contexts and all(c == {"tenant": "harbour"} for c in stored.contexts)
