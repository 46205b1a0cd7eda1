"""A LangChain v1 agent middleware that repairs the history before each model call."""

from __future__ import annotations

from typing import Any

try:
    from langchain.agents.middleware import AgentMiddleware, AgentState
    from langchain_core.messages import RemoveMessage
    from langgraph.graph.message import REMOVE_ALL_MESSAGES
    from langgraph.runtime import Runtime
except ImportError as error:
    raise ImportError(
        "histnorm.integrations.langchain.RepairMiddleware needs LangChain v1 agents: "
        "pip install langchain"
    ) from error

from histnorm.integrations._langchain_messages import repair_messages
from histnorm.settings import Settings, TailMode, with_options

_CLOSED_TAIL = Settings(tail=TailMode.CLOSE)
"""The default: the history is about to be sent, so a call still open at its end is a defect."""


class RepairMiddleware(AgentMiddleware[AgentState[Any], Any, Any]):
    """Repairs `state["messages"]` before each model call, as `histnorm.repair` does with
    `options` set over `settings` (default: `Settings(tail="close")`):
    `RepairMiddleware(orphan_tool_call="synthesize")` answers an orphan call instead of
    dropping it. When a fix applies, the state's messages are replaced by the repaired
    list; otherwise the state is left alone."""

    def __init__(self, settings: Settings | None = None, **options: Any) -> None:
        super().__init__()
        base = settings or _CLOSED_TAIL
        self.settings: Settings = with_options(base, options, "RepairMiddleware")

    def before_model(self, state: AgentState[Any], runtime: Runtime[Any]) -> dict[str, Any] | None:
        """The update that replaces the messages with their repair, or None."""
        messages = state["messages"]
        repaired = repair_messages(messages, self.settings)
        if len(repaired) == len(messages) and all(
            a is b for a, b in zip(repaired, messages, strict=True)
        ):
            return None
        return {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), *repaired]}

    async def abefore_model(
        self, state: AgentState[Any], runtime: Runtime[Any]
    ) -> dict[str, Any] | None:
        """As `before_model` (the repair is pure computation)."""
        return self.before_model(state, runtime)
