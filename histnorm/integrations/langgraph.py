"""histnorm for LangGraph: a checkpointer that repairs a thread's messages when it is read.

    from histnorm.integrations.langgraph import RepairCheckpointer
    graph = builder.compile(checkpointer=RepairCheckpointer(InMemorySaver()))

`RepairCheckpointer` wraps any `BaseCheckpointSaver` (`InMemorySaver`, `SqliteSaver`,
`PostgresSaver`...). Reads (`get_tuple`, `list` and their async forms) give back each
checkpoint with `channel_values["messages"]` repaired as `histnorm.repair` repairs a list
of LangChain messages; everything else goes to the wrapped saver unchanged, so the store
is written only when the graph writes. A checkpoint paused on an `interrupt()` is a live
state and comes back exactly as the wrapped saver gave it.

Needs `langgraph` (and `langchain-core`).
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Callable, Collection, Iterator, Mapping, Sequence
from typing import Any

try:
    from langchain_core.messages import BaseMessage
    from langchain_core.runnables import RunnableConfig
    from langgraph.checkpoint.base import (
        BaseCheckpointSaver,
        ChannelVersions,
        Checkpoint,
        CheckpointMetadata,
        CheckpointTuple,
        DeltaChannelHistory,
    )
    from langgraph.checkpoint.serde.base import SerializerProtocol
    from langgraph.checkpoint.serde.types import INTERRUPT
except ImportError as error:
    raise ImportError(
        "histnorm.integrations.langgraph needs LangGraph: pip install langgraph"
    ) from error

from histnorm.repair import Repair, repair
from histnorm.settings import Settings, TailMode, with_options

__all__ = ["OnRepair", "RepairCheckpointer", "is_interrupted", "repair_checkpoint"]

OnRepair = Callable[[RunnableConfig, Repair[list[Any]]], None]
"""Called with the config of each checkpoint whose messages a read repaired (its
`thread_id`, `checkpoint_ns`, `checkpoint_id`) and histnorm's `Repair`: `applied` counts
the fixes per rule, `fixes` holds the diagnostic of each fix with its JSON Pointer."""


def is_interrupted(saved: CheckpointTuple) -> bool:
    """Whether `saved` is paused on an `interrupt()`: one of its pending writes is an
    `__interrupt__`, so the graph waits for a `Command(resume=...)` on exactly this state."""
    return any(write[1] == INTERRUPT for write in saved.pending_writes or ())


def _writes_to(saved: CheckpointTuple, channel: str) -> bool:
    """Whether a task of the superstep that stopped part-way already wrote to `channel`:
    those writes are applied on top of the stored messages when the graph goes on."""
    return any(write[1] == channel for write in saved.pending_writes or ())


def _repaired(messages: list[BaseMessage], settings: Settings) -> Repair[list[Any]] | None:
    """histnorm's repair of a list of LangChain messages, or None when no fix applies or
    what comes back is not all LangChain messages (as `repair_messages` decides)."""
    try:
        result = repair(messages, settings, format="langchain")
    except TypeError:  # a message holding what is no JSON data is left alone
        return None
    if not result.changed or not all(isinstance(m, BaseMessage) for m in result.value):
        return None
    return result


def repair_checkpoint(
    saved: CheckpointTuple,
    settings: Settings | None = None,
    *,
    channel: str = "messages",
    on_repair: OnRepair | None = None,
    **options: Any,
) -> CheckpointTuple:
    """`saved` with `checkpoint["channel_values"][channel]` repaired by histnorm (`options`
    set fields of `Settings` over `settings`).

    `saved` itself comes back when nothing applies: the checkpoint is paused on an
    interrupt, the channel holds no list of LangChain messages, or no fix is needed. A
    repaired checkpoint is a new tuple whose checkpoint and `channel_values` are copies;
    every message no fix touched is the very object the saver gave, and nothing in `saved` is
    changed. When a task's writes to `channel` are pending, calls still open at the end
    are kept (`tail="keep"`): those writes may hold their results.
    """
    chosen = with_options(settings, options, "repair_checkpoint")
    if is_interrupted(saved):
        return saved
    values = saved.checkpoint.get("channel_values") or {}
    messages = values.get(channel)
    if not isinstance(messages, list) or not all(isinstance(m, BaseMessage) for m in messages):
        return saved
    if chosen.tail is not TailMode.KEEP and _writes_to(saved, channel):
        chosen = chosen.model_copy(update={"tail": TailMode.KEEP})
    result = _repaired(list(messages), chosen)
    if result is None:
        return saved
    checkpoint: Checkpoint = {
        **saved.checkpoint,
        "channel_values": {**values, channel: list(result.value)},
    }
    if on_repair is not None:
        on_repair(saved.config, result)
    return saved._replace(checkpoint=checkpoint)


def _takes_task_path(method: Callable[..., Any]) -> bool:
    """Whether a saver's `put_writes` or `aput_writes` takes `task_path` (savers written
    before LangGraph added it do not, and LangGraph passes it only to those that do)."""
    try:
        return "task_path" in inspect.signature(method).parameters
    except (TypeError, ValueError):
        return False


class RepairCheckpointer(BaseCheckpointSaver[Any]):
    """Wraps a LangGraph checkpointer: reads give back each checkpoint with its messages
    repaired, as `repair_checkpoint` does with `options` set over `settings` (default:
    histnorm's, `tail="keep"`: a checkpoint taken between a model node and its tool node
    ends on calls the graph is about to run); writes, deletes, copies, version numbers and
    delta-channel history go to the wrapped saver unchanged, so what is stored changes
    only when the graph writes. A checkpoint whose pending writes hold an `__interrupt__`
    (a human-in-the-loop pause) is given back exactly as the wrapped saver gave it.

    `channel` names the state key of the messages; `on_repair` is called with each
    repaired checkpoint's config and histnorm's `Repair` (what was fixed, with pointers).
    Other attributes of the wrapped saver (`conn`, `setup`...) are on `.saver`.
    """

    def __init__(
        self,
        saver: BaseCheckpointSaver[Any],
        settings: Settings | None = None,
        *,
        channel: str = "messages",
        on_repair: OnRepair | None = None,
        **options: Any,
    ) -> None:
        if not isinstance(saver, BaseCheckpointSaver):
            raise TypeError(
                f"RepairCheckpointer wraps a LangGraph BaseCheckpointSaver, not {type(saver)!r}"
            )
        self.saver = saver
        self.settings: Settings = with_options(settings, options, "RepairCheckpointer")
        self.channel = channel
        self.on_repair = on_repair
        self._put_writes_path = _takes_task_path(saver.put_writes)
        self._aput_writes_path = _takes_task_path(saver.aput_writes)

    @property
    def serde(self) -> SerializerProtocol:
        """The wrapped saver's serializer."""
        return self.saver.serde

    @serde.setter
    def serde(self, value: SerializerProtocol) -> None:
        self.saver.serde = value

    @property
    def config_specs(self) -> list[Any]:
        """The wrapped saver's configuration fields."""
        return self.saver.config_specs

    def _repair(self, saved: CheckpointTuple | None) -> CheckpointTuple | None:
        if saved is None:
            return None
        return repair_checkpoint(
            saved, self.settings, channel=self.channel, on_repair=self.on_repair
        )

    # reads: repaired

    def get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        """The wrapped saver's checkpoint tuple, its messages repaired."""
        return self._repair(self.saver.get_tuple(config))

    def list(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> Iterator[CheckpointTuple]:
        """The wrapped saver's checkpoints, each with its messages repaired."""
        for saved in self.saver.list(config, filter=filter, before=before, limit=limit):
            yield repair_checkpoint(
                saved, self.settings, channel=self.channel, on_repair=self.on_repair
            )

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        """As `get_tuple`, through the wrapped saver's `aget_tuple`."""
        return self._repair(await self.saver.aget_tuple(config))

    async def alist(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        """As `list`, through the wrapped saver's `alist`."""
        async for saved in self.saver.alist(config, filter=filter, before=before, limit=limit):
            yield repair_checkpoint(
                saved, self.settings, channel=self.channel, on_repair=self.on_repair
            )

    # everything else: the wrapped saver's, unchanged

    def put(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        """The wrapped saver's `put`."""
        return self.saver.put(config, checkpoint, metadata, new_versions)

    def put_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        """The wrapped saver's `put_writes` (`task_path` passed on when it takes one)."""
        if self._put_writes_path:
            self.saver.put_writes(config, writes, task_id, task_path)
        else:
            self.saver.put_writes(config, writes, task_id)

    async def aput(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        """The wrapped saver's `aput`."""
        return await self.saver.aput(config, checkpoint, metadata, new_versions)

    async def aput_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        """The wrapped saver's `aput_writes` (`task_path` passed on when it takes one)."""
        if self._aput_writes_path:
            await self.saver.aput_writes(config, writes, task_id, task_path)
        else:
            await self.saver.aput_writes(config, writes, task_id)

    def get_next_version(self, current: Any, channel: None) -> Any:
        """The wrapped saver's next channel version."""
        return self.saver.get_next_version(current, channel)

    def delete_thread(self, thread_id: str) -> None:
        """The wrapped saver's `delete_thread`."""
        self.saver.delete_thread(thread_id)

    async def adelete_thread(self, thread_id: str) -> None:
        """The wrapped saver's `adelete_thread`."""
        await self.saver.adelete_thread(thread_id)

    def delete_for_runs(self, run_ids: Sequence[str]) -> None:
        """The wrapped saver's `delete_for_runs`."""
        self.saver.delete_for_runs(run_ids)

    async def adelete_for_runs(self, run_ids: Sequence[str]) -> None:
        """The wrapped saver's `adelete_for_runs`."""
        await self.saver.adelete_for_runs(run_ids)

    def copy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        """The wrapped saver's `copy_thread`: the stored checkpoints, not repaired ones."""
        self.saver.copy_thread(source_thread_id, target_thread_id)

    async def acopy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        """The wrapped saver's `acopy_thread`."""
        await self.saver.acopy_thread(source_thread_id, target_thread_id)

    def prune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        """The wrapped saver's `prune`."""
        self.saver.prune(thread_ids, strategy=strategy)

    async def aprune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        """The wrapped saver's `aprune`."""
        await self.saver.aprune(thread_ids, strategy=strategy)

    def get_delta_channel_history(
        self, *, config: RunnableConfig, channels: Sequence[str]
    ) -> Mapping[str, DeltaChannelHistory]:
        """The wrapped saver's stored writes and seeds: a delta channel is rebuilt from
        what was stored, write by write, so none of it is repaired."""
        return self.saver.get_delta_channel_history(config=config, channels=channels)

    async def aget_delta_channel_history(
        self, *, config: RunnableConfig, channels: Sequence[str]
    ) -> Mapping[str, DeltaChannelHistory]:
        """As `get_delta_channel_history`, through the wrapped saver."""
        return await self.saver.aget_delta_channel_history(config=config, channels=channels)

    def with_allowlist(self, extra_allowlist: Collection[tuple[str, ...]]) -> RepairCheckpointer:
        """This wrapper over the wrapped saver's `with_allowlist` clone (LangGraph calls it
        when a graph is compiled); itself when the saver's serializer is unchanged."""
        inner = self.saver.with_allowlist(extra_allowlist)
        if inner is self.saver:
            return self
        return RepairCheckpointer(
            inner, self.settings, channel=self.channel, on_repair=self.on_repair
        )
