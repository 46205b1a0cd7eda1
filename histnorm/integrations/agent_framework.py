"""histnorm for Microsoft Agent Framework (Python): repair a message list, a history
provider that repairs what it loads, a chat middleware that repairs each model call.

    from histnorm.integrations.agent_framework import RepairChatMiddleware, RepairHistoryProvider
    agent = Agent(client=client, context_providers=[RepairHistoryProvider()],
                  middleware=[RepairChatMiddleware()])

Needs `agent-framework-core`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

try:
    from agent_framework import (
        AgentSession,
        ChatContext,
        ChatMiddleware,
        HistoryProvider,
        InMemoryHistoryProvider,
        Message,
        SessionContext,
        SupportsAgentRun,
    )
except ImportError as error:
    raise ImportError(
        "histnorm.integrations.agent_framework needs Agent Framework: "
        "pip install agent-framework-core"
    ) from error

from histnorm.repair import repair
from histnorm.settings import Settings, TailMode, with_options

__all__ = ["RepairChatMiddleware", "RepairHistoryProvider", "repair_messages"]

_CLOSED_TAIL = Settings(tail=TailMode.CLOSE)
"""The middleware's default: the messages are about to be sent, so a call left open at
their end is a defect."""


def repair_messages(
    messages: Sequence[Message], settings: Settings | None = None, **options: Any
) -> list[Message]:
    """`messages` repaired by histnorm (read as their `to_dict()`, the `agent-framework`
    format), as `histnorm.repair` does (`options` set fields of `Settings` over
    `settings`; an unknown name is a `TypeError`).

    A message no fix touched is the very object passed; repaired or added ones are built
    with `Message.from_dict`. A list that cannot be read (an item that is no `Message`, a
    content holding what is no JSON data) comes back unchanged; the input is never changed.
    """
    chosen = with_options(settings, options, "repair_messages")
    try:
        dicts = [message.to_dict() for message in messages]
        result = repair(dicts, chosen, format="agent-framework")
    except Exception:  # what to_dict cannot write or histnorm read is left alone
        return list(messages)
    if not result.changed:
        return list(messages)
    originals = {id(d): m for d, m in zip(dicts, messages, strict=True)}
    out: list[Message] = []
    for item in result.value:
        kept = originals.get(id(item))
        out.append(kept if kept is not None else Message.from_dict(item))
    return out


def _same(a: Sequence[Message], b: Sequence[Message]) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b, strict=True))


class RepairHistoryProvider(HistoryProvider):
    """A history provider that repairs the history another one loads (default: a new
    `InMemoryHistoryProvider`), as `repair_messages` does with `options` set over
    `settings` (default: `Settings()`, where a call still open at the end of the history
    is kept: the run's input may answer it, as an approval response does).

    It takes the wrapped provider's `source_id` and storage flags, runs its `before_run`
    (so what that adds, such as compaction or tools, stays) and repairs the messages it
    loaded; `get_messages` returns the repaired history too. Storing is the wrapped
    provider's: the stored history itself is not rewritten.
    """

    def __init__(
        self, inner: HistoryProvider | None = None, settings: Settings | None = None, **options: Any
    ) -> None:
        provider = inner if inner is not None else InMemoryHistoryProvider()
        super().__init__(
            provider.source_id,
            load_messages=provider.load_messages,
            store_inputs=provider.store_inputs,
            store_context_messages=provider.store_context_messages,
            store_context_from=provider.store_context_from,
            store_outputs=provider.store_outputs,
        )
        self.inner: HistoryProvider = provider
        self.settings: Settings = with_options(settings, options, "RepairHistoryProvider")

    async def get_messages(
        self, session_id: str | None, *, state: dict[str, Any] | None = None, **kwargs: Any
    ) -> list[Message]:
        """The wrapped provider's messages, repaired."""
        loaded = await self.inner.get_messages(session_id, state=state, **kwargs)
        return repair_messages(loaded, self.settings)

    async def save_messages(
        self,
        session_id: str | None,
        messages: Sequence[Message],
        *,
        state: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Stored by the wrapped provider."""
        await self.inner.save_messages(session_id, messages, state=state, **kwargs)

    async def before_run(
        self,
        *,
        agent: SupportsAgentRun,
        session: AgentSession,
        context: SessionContext,
        state: dict[str, Any],
    ) -> None:
        """The wrapped provider loads the history into `context`; it is repaired there."""
        await self.inner.before_run(agent=agent, session=session, context=context, state=state)
        loaded = context.context_messages.get(self.source_id)
        if loaded:
            context.context_messages[self.source_id] = repair_messages(loaded, self.settings)

    async def after_run(
        self,
        *,
        agent: SupportsAgentRun,
        session: AgentSession,
        context: SessionContext,
        state: dict[str, Any],
    ) -> None:
        """The wrapped provider stores the run."""
        await self.inner.after_run(agent=agent, session=session, context=context, state=state)


class RepairChatMiddleware(ChatMiddleware):
    """A chat middleware that repairs `context.messages` before each model call, as
    `repair_messages` does with `options` set over `settings` (default:
    `Settings(tail="close")`). The messages are replaced only when a fix applies; the
    session's stored history is left as it is."""

    def __init__(self, settings: Settings | None = None, **options: Any) -> None:
        self.settings: Settings = with_options(
            settings or _CLOSED_TAIL, options, "RepairChatMiddleware"
        )

    async def process(self, context: ChatContext, call_next: Callable[[], Awaitable[None]]) -> None:
        """Repair the messages, then go on to the next middleware or the model."""
        repaired = repair_messages(context.messages, self.settings)
        if not _same(repaired, context.messages):
            context.messages = repaired
        await call_next()
