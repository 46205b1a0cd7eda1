"""histnorm for LangChain: repair a message list, trim it pair-safely, repair an agent's
history before each model call.

    from histnorm.integrations.langchain import RepairMiddleware, repair_messages
    agent = create_agent(model, tools, middleware=[RepairMiddleware()])

Needs `langchain-core` (`RepairMiddleware` also needs `langchain`, imported on first use).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from histnorm.integrations._langchain_messages import repair_messages, trim_messages

if TYPE_CHECKING:
    from histnorm.integrations._langchain_middleware import RepairMiddleware

__all__ = ["RepairMiddleware", "repair_messages", "trim_messages"]


def __getattr__(name: str) -> Any:
    """`RepairMiddleware`, imported with `langchain` when it is first asked for."""
    if name == "RepairMiddleware":
        from histnorm.integrations._langchain_middleware import RepairMiddleware

        return RepairMiddleware
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
