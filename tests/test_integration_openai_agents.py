"""The OpenAI Agents SDK adapter, against the real package: a model input filter that repairs
what each model call is sent (`repair_model_input`, `RepairInputFilter`, `repair_items`)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("agents")

from agents import (
    Agent,
    RunConfig,
    Runner,
    SQLiteSession,
)
from agents.testing import ScriptedModel, assistant_message
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
)
from openai_agents_helpers import (
    INSTRUCTIONS,
    NO_DEFECTS,
    UNREADABLE,
    ToolCallingModel,
    _call,
    _clean,
    _damaged,
    _defects,
    _filter_data,
    _output,
    _pydantic_items,
    _run,
    _user,
)

from histnorm.integrations.openai_agents import (
    RepairInputFilter,
    RepairSession,
    repair_items,
    repair_model_input,
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
