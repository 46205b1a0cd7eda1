"""Shared pieces of the OpenAI Agents SDK adapter tests: item shapes, fake models and
a run helper."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from agents import (
    Agent,
    Model,
    ModelResponse,
    RunConfig,
    Runner,
    Usage,
    function_tool,
)
from agents.run_config import CallModelData, ModelInputData
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
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


UNREADABLE = [
    [_user("hi"), object()],
    [_user("hi"), 42],
    [_user("hi"), [["type", "function_call"], ["call_id", "call_1"]]],
    [_user("hi"), _call("call_1"), {"type": "function_call_output", "output": b"\x00"}],
]
