"""Real Pydantic AI runs whose `all_messages_json()` are the `pydantic-ai` fixtures.

Each function runs an `Agent` of pydantic-ai-slim on a fake model (`TestModel` or a
`FunctionModel` scripted here) and returns the JSON the run stored. The fixtures under
fixtures/formats/pydantic-ai/ and the damaged copies under fixtures/rules/ were written by
`python tests/pydantic_ai_runs.py` (timestamps and run ids are the ones of that run); the
damage done by hand is described in `DAMAGED`.
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from pydantic_ai import Agent, ModelRetry
from pydantic_ai.messages import (
    BinaryContent,
    FilePart,
    ImageUrl,
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    NativeToolCallPart,
    NativeToolReturnPart,
    RetryPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel

ROOT = Path(__file__).resolve().parent.parent


def weather_tool() -> list[Any]:
    """`TestModel` calls the one tool, then answers with its result."""
    agent = Agent(TestModel(), system_prompt="Be brief.")

    @agent.tool_plain
    def get_weather(city: str) -> str:
        return f"sunny in {city}"

    return _json(agent.run_sync("What is the weather in Paris?").all_messages_json())


def _scripted(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Thinks, searches the web with a builtin tool, calls `lookup` (args as a string) and
    retries once when the tool asks to, then answers."""
    turns = sum(isinstance(m, ModelResponse) for m in messages)
    if turns == 0:
        return ModelResponse(
            parts=[
                ThinkingPart("The user wants a price.", signature="sig-1"),
                NativeToolCallPart("web_search", {"query": "price"}, "srv_1", provider_name="x"),
                NativeToolReturnPart("web_search", [{"title": "t"}], "srv_1", provider_name="x"),
                ToolCallPart("lookup", '{"sku": "A-1"}', "call_1"),
            ],
            model_name="scripted",
        )
    if turns == 1:
        return ModelResponse(parts=[ToolCallPart("lookup", {"sku": "A-2"}, "call_2")])
    return ModelResponse(parts=[TextPart("A-2 costs 3 EUR.")], model_name="scripted")


def tools_and_retry() -> list[Any]:
    """A `FunctionModel` run: thinking, a builtin tool pair, a tool retried, a tool result."""
    agent = Agent(FunctionModel(_scripted))

    @agent.tool_plain
    def lookup(sku: str) -> str:
        if sku == "A-1":
            raise ModelRetry("unknown sku, try A-2")
        return "3 EUR"

    return _json(agent.run_sync("How much is A-1?").all_messages_json())


def legacy_retry_prompt() -> list[Any]:
    """A history stored by Pydantic AI 1.x: tool retries as `retry-prompt` parts, one bound
    to its call (`tool_name` set) and one answering no call (output validation)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bound = RetryPromptPart("bad city", tool_name="get_weather", tool_call_id="c1")
        feedback = RetryPromptPart("answer in one word", tool_call_id="unbound")
    messages: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart("Weather in Nowhere?")]),
        ModelResponse(parts=[ToolCallPart("get_weather", {"city": "Nowhere"}, "c1")]),
        ModelRequest(parts=[bound]),  # type: ignore[list-item]
        ModelResponse(parts=[ToolCallPart("get_weather", {"city": "Paris"}, "c2")]),
        ModelRequest(parts=[ToolReturnPart("get_weather", "sunny", "c2")]),
        ModelResponse(parts=[TextPart("It is sunny in Paris today.")]),
        ModelRequest(parts=[feedback]),  # type: ignore[list-item]
        ModelResponse(parts=[TextPart("Sunny.")]),
    ]
    return _json(ModelMessagesTypeAdapter.dump_json(messages))


def _media(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Answers an image with a generated file and a caption."""
    image = BinaryContent(data=b"\x89PNG\r\n", media_type="image/png")
    return ModelResponse(parts=[FilePart(content=image), TextPart("Here is a sketch.")])


def media() -> list[Any]:
    """A multimodal prompt (text, an image URL, inline bytes) and a file in the response."""
    agent = Agent(FunctionModel(_media), instructions="Draw what you are shown.")
    prompt = [
        "Redraw this:",
        ImageUrl(url="https://example.com/cat.png"),
        BinaryContent(data=b"GIF89a", media_type="image/gif"),
    ]
    return _json(agent.run_sync(prompt).all_messages_json())


class Price(BaseModel):
    """A structured output, returned through the `final_result` output tool."""

    sku: str
    eur: float


def continued_run() -> list[Any]:
    """Two runs of one conversation: structured output through the output tool, then a
    text answer whose first try the output validator rejects (a `retry-feedback` part)."""
    first = Agent(TestModel(custom_output_args={"sku": "A-2", "eur": 3.0}), output_type=Price)
    history = first.run_sync("Price of A-2?").all_messages()
    tries: list[str] = []

    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        tries.append("x")
        return ModelResponse(parts=[TextPart("3" if len(tries) == 1 else "3 EUR")])

    second = Agent(FunctionModel(answer))

    @second.output_validator
    def with_unit(text: str) -> str:
        if "EUR" not in text:
            raise ModelRetry("say the currency")
        return text

    return _json(second.run_sync("In words?", message_history=history).all_messages_json())


def _json(data: bytes) -> list[Any]:
    value = json.loads(data)
    assert isinstance(value, list)
    return value


def _without(doc: list[Any], index: int) -> list[Any]:
    return [m for i, m in enumerate(doc) if i != index]


def _cancelled(doc: list[Any]) -> list[Any]:
    """The run was cancelled while `lookup` ran: its tool-return request was never stored,
    and the user's next prompt followed."""
    out = _without(doc, 2)
    out.insert(2, {**doc[0], "parts": [{**doc[0]["parts"][-1], "content": "Never mind."}]})
    return out


def _repeated(doc: list[Any]) -> list[Any]:
    """A streamed response stored its tool call twice under the same id."""
    out = list(doc)
    response = out[1]
    out[1] = {**response, "parts": [*response["parts"], response["parts"][-1]]}
    return out


def _duplicated(doc: list[Any]) -> list[Any]:
    """The tool ran twice (a retried step) and both of its returns were stored."""
    again = {**doc[2], "parts": [{**doc[2]["parts"][0], "content": "rainy in a"}]}
    return [*doc[:3], again, *doc[3:]]


DAMAGED = {
    "HN001/cancelled-partial-turn.pydantic-ai.json": ("weather-tool.json", _cancelled),
    "HN002/compaction-cut.pydantic-ai.json": (
        "weather-tool.json",
        lambda doc: doc[2:],  # trimming kept the last two messages: a result without its call
    ),
    "HN006/call-stored-twice.pydantic-ai.json": ("weather-tool.json", _repeated),
    "HN010/differing-results.pydantic-ai.json": ("weather-tool.json", _duplicated),
}
"""Rule fixtures: (the fixture they damage, the damage)."""

RUNS = {
    "weather-tool.json": weather_tool,
    "tools-and-retry.json": tools_and_retry,
    "legacy-retry-prompt.json": legacy_retry_prompt,
    "media.json": media,
    "continued-run.json": continued_run,
}


def _write(path: Path, value: Any) -> None:
    path.write_text(json.dumps(value, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def main() -> None:
    """Write the fixtures (`python tests/pydantic_ai_runs.py`)."""
    formats = ROOT / "fixtures" / "formats" / "pydantic-ai"
    made = {name: run() for name, run in RUNS.items()}
    for name, value in made.items():
        _write(formats / name, value)
    for target, (source, damage) in DAMAGED.items():
        _write(ROOT / "fixtures" / "rules" / target, damage(made[source]))
    print(f"wrote {len(made)} fixtures and {len(DAMAGED)} damaged copies", file=sys.stderr)


if __name__ == "__main__":
    main()
