"""A real CrewAI `Crew` run on a scripted LLM, for tests/test_integration_crewai.py.

Run with the CrewAI venv's interpreter (`.venv-crewai/bin/python tests/crewai_run.py [MODE...]`;
CrewAI cannot share the test venv), it runs the crew once per MODE (default: all) and
prints one JSON object: per MODE, what the LLM was sent on each call and whether it was
the very list the `before_llm_call` hooks were handed.

One Agent with one tool and one Task; the scripted LLM calls the tool twice (one call per
turn, native OpenAI-style tool calls) and then answers. CrewAI appends each call and its
result to the agent's messages. Hooks, in the order registered (CrewAI runs them so):

1. `spy`: keeps the list object and a copy of the messages as CrewAI built them;
2. `trim` (MODE `trim` and `trim-repair`): keeps the task's system and user messages and
   the last three, as a hook that bounds the context does; on the third call that cuts
   the first call away and leaves its tool result orphaned (HN002);
3. histnorm's `repair_hook()` (MODE `repair` and `trim-repair`).

MODE `repair` is the clean run: what the LLM receives must be what CrewAI built.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
os.environ.setdefault("CREWAI_TRACING_ENABLED", "false")
os.environ.setdefault("OTEL_SDK_DISABLED", "true")

from crewai import Agent, Crew, Task
from crewai.hooks import (
    LLMCallHookContext,
    clear_before_llm_call_hooks,
    register_before_llm_call_hook,
)
from crewai.llms.base_llm import BaseLLM
from crewai.tools import tool

from histnorm.integrations.crewai import repair_hook

MODES = ("repair", "trim", "trim-repair")


def _call(call_id: str, key: str) -> dict[str, Any]:
    arguments = json.dumps({"key": key})
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": "lookup", "arguments": arguments},
    }


SCRIPT: list[Any] = [[_call("call_a", "a")], [_call("call_b", "b")], "The answer is A and B."]
"""The LLM's turns: a tool call, another one, then the final answer."""

seen: list[dict[str, Any]] = []
"""Per LLM call: what the spy hook saw, then what the LLM was sent."""


class ScriptedLLM(BaseLLM):
    """Answers each call with the next turn of SCRIPT and records what it was sent."""

    def call(
        self,
        messages: str | list[Any],
        tools: list[dict[str, Any]] | None = None,
        callbacks: list[Any] | None = None,
        available_functions: dict[str, Any] | None = None,
        from_task: Any | None = None,
        from_agent: Any | None = None,
        response_model: Any | None = None,
    ) -> str | Any:
        assert isinstance(messages, list)
        record = seen[-1]
        record["same_list"] = messages is record.pop("list")
        record["received"] = [dict(m) for m in messages]
        objects = record.pop("objects")
        record["kept_objects"] = [any(m is o for o in objects) for m in messages]
        return SCRIPT[len(seen) - 1]

    def supports_function_calling(self) -> bool:
        return True


@tool("lookup")
def lookup(key: str) -> str:
    """Look a key up."""
    return key.upper()


def spy(context: LLMCallHookContext) -> None:
    messages = context.messages
    seen.append({"list": messages, "objects": list(messages), "built": [dict(m) for m in messages]})


def trim(context: LLMCallHookContext) -> None:
    messages = context.messages
    if len(messages) > 5:
        messages[:] = messages[:2] + messages[-3:]


def run(mode: str) -> dict[str, Any]:
    """One crew run with the hooks of `mode`: the final output and what each call was sent."""
    clear_before_llm_call_hooks()
    seen.clear()
    register_before_llm_call_hook(spy)
    if mode.startswith("trim"):
        register_before_llm_call_hook(trim)
    if mode.endswith("repair"):
        register_before_llm_call_hook(repair_hook())
    agent = Agent(
        role="Clerk",
        goal="Look keys up",
        backstory="A clerk.",
        llm=ScriptedLLM(model="scripted"),
        tools=[lookup],
        verbose=False,
    )
    task = Task(description="Look up a and b.", expected_output="Both values.", agent=agent)
    output = Crew(agents=[agent], tasks=[task], verbose=False).kickoff()
    return {"output": output.raw, "calls": list(seen)}


if __name__ == "__main__":
    modes = sys.argv[1:] or list(MODES)
    if not set(modes) <= set(MODES):
        sys.exit(f"usage: crewai_run.py [{' | '.join(MODES)}]...")
    print(json.dumps({mode: run(mode) for mode in modes}, default=repr))
