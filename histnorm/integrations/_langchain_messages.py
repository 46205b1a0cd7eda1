"""Repair a list of LangChain messages, and a trim that keeps tool calls and results paired."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

try:
    from langchain_core.messages import BaseMessage
    from langchain_core.messages import trim_messages as _trim_messages
except ImportError as error:
    raise ImportError(
        "histnorm.integrations.langchain needs LangChain: pip install langchain-core"
    ) from error

from histnorm.repair import repair
from histnorm.settings import Settings, with_options


def repair_messages(
    messages: Sequence[BaseMessage], settings: Settings | None = None, **options: Any
) -> list[BaseMessage]:
    """`messages` repaired by histnorm, as `histnorm.repair` does (`options` set fields of
    `Settings` over `settings`; an unknown name is a `TypeError`).

    `histnorm.repair` reads and gives back LangChain messages itself; this fixes the
    format and always returns messages. A message no fix touched is the very object
    passed; only repaired or added messages are new. A history that cannot be read (an
    item that is no message, or a value that is no JSON data) comes back unchanged; the
    input itself is never changed.
    """
    chosen = with_options(settings, options, "repair_messages")
    try:
        result = repair(list(messages), chosen, format="langchain")
    except TypeError:  # a message holding what is no JSON data is left alone
        return list(messages)
    repaired = list(result.value)
    if not all(isinstance(message, BaseMessage) for message in repaired):
        return list(messages)  # LangChain would not take back what histnorm wrote
    return repaired


def trim_messages(
    messages: Sequence[BaseMessage],
    *,
    repair_options: Mapping[str, Any] | None = None,
    **trim_kwargs: Any,
) -> list[BaseMessage]:
    """`langchain_core.messages.trim_messages(messages, **trim_kwargs)`, then repaired: the
    trimmed history never starts with a ToolMessage whose call was cut off, nor keeps a
    tool call whose result was, even at its end (`repair_options` go to `repair_messages`,
    over `tail="close"`: what is trimmed is about to be sent)."""
    trimmed = _trim_messages(messages, **trim_kwargs)
    return repair_messages(trimmed, **{"tail": "close", **(repair_options or {})})
