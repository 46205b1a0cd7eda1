"""The OpenAI Agents SDK adapter, against the real package: a model input filter that repairs
what each model call is sent, and a session that repairs its history when it is read."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

pytest.importorskip("agents")

from agents import (
    Agent,
    Model,
    ModelResponse,
    OpenAIConversationsSession,
    RunConfig,
    Runner,
    Session,
    SQLiteSession,
    Usage,
    function_tool,
)
from agents.run_config import CallModelData, ModelInputData
from agents.testing import ScriptedModel, assistant_message
from openai import AsyncOpenAI
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

from histnorm.integrations.openai_agents import (
    RepairInputFilter,
    RepairSession,
    repair_items,
    repair_model_input,
)

INSTRUCTIONS = "You look things up."


def _call(call_id: str) -> dict[str, Any]:
    return {"type": "function_call", "call_id": call_id, "name": "lookup", "arguments": "{}"}


def _output(call_id: str, output: str = "12:40") -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": call_id, "output": output}


def _user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def _damaged() -> list[dict[str, Any]]:
    """A result whose call was cut off, a call never answered, a result given twice."""
    return [
        _output("call_0"),
        _user("When is high tide?"),
        _call("call_1"),
        _user("Still there?"),
        _call("call_2"),
        _output("call_2"),
        _output("call_2"),
        {"role": "assistant", "content": "High tide is at 12:40."},
        _user("And low tide?"),
    ]


def _clean() -> list[dict[str, Any]]:
    return [
        _user("When is high tide?"),
        _call("call_1"),
        _output("call_1"),
        {"role": "assistant", "content": "High tide is at 12:40."},
        _user("And low tide?"),
    ]


def _defects(items: list[Any]) -> dict[str, list[str]]:
    """The call ids of calls without a result after them, of results without their call
    before them, and of calls answered more than once."""
    called: list[str] = []
    answered: list[str] = []
    orphan_results = []
    for item in items:
        if item.get("type") == "function_call":
            called.append(item["call_id"])
        elif item.get("type") == "function_call_output":
            if item["call_id"] not in called:
                orphan_results.append(item["call_id"])
            answered.append(item["call_id"])
    return {
        "unanswered": [c for c in called if c not in answered],
        "orphan_results": orphan_results,
        "answered_twice": sorted({c for c in answered if answered.count(c) > 1}),
    }


NO_DEFECTS: dict[str, list[str]] = {"unanswered": [], "orphan_results": [], "answered_twice": []}


class RecordingModel(Model):
    """A fake model that keeps the instructions and input of each call and answers."""

    def __init__(self) -> None:
        self.inputs: list[list[Any]] = []
        self.instructions: list[str | None] = []

    async def get_response(
        self, system_instructions: str | None, input: str | list[Any], *args: Any, **kwargs: Any
    ) -> ModelResponse:
        self.instructions.append(system_instructions)
        self.inputs.append([input] if isinstance(input, str) else list(input))
        text = ResponseOutputText(type="output_text", text="Low tide is at 18:55.", annotations=[])
        message = ResponseOutputMessage(
            id="msg_1", type="message", role="assistant", status="completed", content=[text]
        )
        return ModelResponse(output=[message], usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        raise NotImplementedError


class ToolCallingModel(RecordingModel):
    """A fake model that calls `lookup` first, then answers; keeps the previous response id
    each call is given."""

    def __init__(self) -> None:
        super().__init__()
        self.previous_response_ids: list[str | None] = []

    async def get_response(
        self, system_instructions: str | None, input: str | list[Any], *args: Any, **kwargs: Any
    ) -> ModelResponse:
        self.previous_response_ids.append(kwargs.get("previous_response_id"))
        answer = await super().get_response(system_instructions, input, *args, **kwargs)
        if len(self.inputs) > 1:
            return answer
        call = ResponseFunctionToolCall(
            type="function_call", call_id="call_7", name="lookup", arguments="{}", id="fc_7"
        )
        return ModelResponse(output=[call], usage=Usage(), response_id="resp_1")


@function_tool
def lookup() -> str:
    """Look up the tides."""
    return "18:55"


def _run(
    input: str | list[Any],
    input_filter: Any = None,
    session: Any = None,
    model: RecordingModel | None = None,
    **run: Any,
) -> tuple[RecordingModel, Any]:
    model = model or RecordingModel()
    agent = Agent(name="tides", instructions=INSTRUCTIONS, model=model, tools=[lookup])
    config = RunConfig(call_model_input_filter=input_filter, tracing_disabled=True)
    result = asyncio.run(Runner.run(agent, input, run_config=config, session=session, **run))
    return model, result


def _filter_data(items: list[Any]) -> CallModelData[Any]:
    agent = Agent(name="tides", instructions=INSTRUCTIONS)
    return CallModelData(
        model_data=ModelInputData(input=items, instructions=INSTRUCTIONS), agent=agent, context=None
    )


def test_without_the_filter_the_model_is_sent_the_defects() -> None:
    model, _ = _run(_damaged())
    assert _defects(model.inputs[0]) == {
        "unanswered": ["call_1"],
        "orphan_results": ["call_0"],
        "answered_twice": [],  # the SDK drops a repeated result itself, keeping the latest
    }


def test_the_filter_repairs_what_the_model_is_sent() -> None:
    model, result = _run(_damaged(), repair_model_input)
    assert len(model.inputs) == 1
    seen = model.inputs[0]
    assert _defects(seen) == NO_DEFECTS
    assert seen == [
        _user("When is high tide?"),
        _user("Still there?"),
        _call("call_2"),
        _output("call_2"),
        {"role": "assistant", "content": "High tide is at 12:40."},
        _user("And low tide?"),
    ]
    assert model.instructions == [INSTRUCTIONS]
    assert result.final_output == "Low tide is at 18:55."


def test_the_filter_repairs_a_streamed_run_too() -> None:
    model = ScriptedModel([[assistant_message("Low tide is at 18:55.")]])
    agent = Agent(name="tides", instructions=INSTRUCTIONS, model=model)
    config = RunConfig(call_model_input_filter=repair_model_input, tracing_disabled=True)

    async def run() -> Any:
        result = Runner.run_streamed(agent, _damaged(), run_config=config)
        async for _ in result.stream_events():
            pass
        return result

    result = asyncio.run(run())
    call = model.first_call
    assert call is not None and call.streamed
    assert _defects(call.input) == NO_DEFECTS and call.input[0] == _user("When is high tide?")
    assert result.final_output == "Low tide is at 18:55."


def test_the_filter_passes_its_options_to_the_repair() -> None:
    model, _ = _run(_damaged(), RepairInputFilter(orphan_tool_call="synthesize"))
    seen = model.inputs[0]
    assert _defects(seen) == NO_DEFECTS
    assert seen[:2] == [_user("When is high tide?"), _call("call_1")]
    assert seen[2]["type"] == "function_call_output" and seen[2]["call_id"] == "call_1"


def test_a_clean_history_reaches_the_model_as_it_would_without_the_filter() -> None:
    plain, _ = _run(_clean())
    filtered, _ = _run(_clean(), repair_model_input)
    assert filtered.inputs == plain.inputs == [_clean()]


def test_the_filter_leaves_the_sdk_tool_loop_alone() -> None:
    model, result = _run(_clean(), repair_model_input, model=ToolCallingModel())
    assert len(model.inputs) == 2
    second = model.inputs[1]
    assert second[: len(_clean())] == _clean()
    assert [item.get("call_id") for item in second[len(_clean()) :]] == ["call_7", "call_7"]
    assert result.final_output == "Low tide is at 18:55."


def test_with_the_history_on_the_server_the_filter_keeps_results_of_calls_held_there() -> None:
    """With `previous_response_id` each call is sent only what is new: the result of a call
    made in the previous response comes without its call."""
    input_filter = RepairInputFilter(server_managed=True)
    model = ToolCallingModel()
    _run("When is low tide?", input_filter, model=model, previous_response_id="resp_0")
    assert model.previous_response_ids == ["resp_0", "resp_1"]
    assert model.inputs[1] == [_output("call_7", "18:55")]
    delta = [_output("call_7"), _call("call_8"), _output("call_8"), _output("call_8")]
    assert input_filter(_filter_data(delta)).input == delta[:3]
    assert repair_model_input(_filter_data(delta)).input == delta[1:3]


def test_the_filter_returns_a_clean_input_untouched() -> None:
    items = _clean()
    data = _filter_data(items)
    assert repair_model_input(data) is data.model_data
    assert all(a is b for a, b in zip(data.model_data.input, items, strict=True))


def test_the_filter_keeps_the_instructions_and_the_untouched_items() -> None:
    items = _damaged()
    data = _filter_data(items)
    repaired = repair_model_input(data)
    assert repaired is not data.model_data
    assert repaired.instructions == INSTRUCTIONS
    assert repaired.input[0] is items[1] and repaired.input[-1] is items[-1]
    assert data.model_data.input == _damaged()  # what the SDK passed is not changed


def test_the_filter_closes_a_call_left_open_at_the_end() -> None:
    items = [_user("When is high tide?"), _call("call_1")]
    assert repair_model_input(_filter_data(items)).input == [items[0]]
    kept = RepairInputFilter(tail="keep")(_filter_data(items))
    assert kept.input == items


def _pydantic_items() -> list[Any]:
    text = ResponseOutputText(type="output_text", text="Let me look.", annotations=[])
    message = ResponseOutputMessage(
        id="msg_0", type="message", role="assistant", status="completed", content=[text]
    )
    call = ResponseFunctionToolCall(
        type="function_call", call_id="call_1", name="lookup", arguments="{}", id="fc_1"
    )
    answered = ResponseFunctionToolCall(
        type="function_call", call_id="call_2", name="lookup", arguments="{}", id="fc_2"
    )
    return [_user("When is high tide?"), message, call, _user("Still there?"), answered,
            _output("call_2")]  # fmt: skip


def test_sdk_objects_come_back_as_the_objects_passed() -> None:
    items = _pydantic_items()
    repaired = repair_items(items)
    assert len(repaired) == 5
    assert [r is i for r, i in zip(repaired, [*items[:2], *items[3:]], strict=True)] == [True] * 5
    assert isinstance(repaired[1], ResponseOutputMessage)
    assert isinstance(repaired[3], ResponseFunctionToolCall)
    clean = [items[0], items[1], items[4], items[5]]
    assert all(a is b for a, b in zip(repair_items(clean), clean, strict=True))


@pytest.mark.parametrize("options", [{}, {"orphan_tool_call": "synthesize"}, {"tail": "close"}])
def test_repair_is_idempotent(options: dict[str, Any]) -> None:
    once = repair_items(_damaged() + _pydantic_items(), **options)
    twice = repair_items(once, **options)
    assert len(twice) == len(once)
    assert all(a is b for a, b in zip(twice, once, strict=True))


UNREADABLE = [
    [_user("hi"), object()],
    [_user("hi"), 42],
    [_user("hi"), [["type", "function_call"], ["call_id", "call_1"]]],
    [_user("hi"), _call("call_1"), {"type": "function_call_output", "output": b"\x00"}],
]


@pytest.mark.parametrize("items", UNREADABLE, ids=["object", "number", "pairs", "bytes-inside"])
def test_unreadable_items_come_back_unchanged(items: list[Any]) -> None:
    repaired = repair_items(items)
    assert len(repaired) == len(items)
    assert all(a is b for a, b in zip(repaired, items, strict=True))
    data = _filter_data(items)
    assert repair_model_input(data) is data.model_data


def test_an_unknown_option_is_an_error() -> None:
    with pytest.raises(TypeError, match="orphan_call"):
        repair_items(_damaged(), orphan_call="drop")
    with pytest.raises(TypeError, match="orphan_call"):
        RepairInputFilter(orphan_call="drop")
    with pytest.raises(TypeError, match="orphan_call"):
        RepairSession(SQLiteSession("s"), orphan_call="drop")


def test_an_empty_input_is_empty() -> None:
    assert repair_items([]) == []
    data = _filter_data([])
    assert repair_model_input(data) is data.model_data


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
