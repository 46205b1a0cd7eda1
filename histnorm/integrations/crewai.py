"""histnorm for CrewAI: a `before_llm_call` hook that repairs, in place, the messages each
LLM call of an agent is sent.

    from crewai.hooks import register_before_llm_call_hook
    from histnorm.integrations.crewai import repair_hook
    register_before_llm_call_hook(repair_hook())   # every agent's LLM calls from now on

CrewAI keeps an agent's conversation as a list of OpenAI Chat messages (dicts) and hands
that very list to each `before_llm_call` hook as `context.messages`, to be changed in
place (a hook that assigns a new list is undone by the executor). The hook repairs it as
`histnorm.repair` repairs a list of OpenAI Chat messages, with calls left open at the end
closed (the request is about to be sent), and writes the result back into the same list:
a tool result whose call an earlier hook trimmed away (HN002) is dropped, a call no result
answers (HN001) is dropped (`orphan_tool_call="synthesize"` answers it instead), a result
separated from its call (HN008) is moved to it. Hooks run in the order they were
registered: register this one after any hook that trims or edits the messages.

A list holding what histnorm cannot read (an object that is no JSON, such as a file
CrewAI attaches to a message) is left as it was. Needs `crewai`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

try:
    from crewai.hooks import LLMCallHookContext
except ImportError as error:
    raise ImportError("histnorm.integrations.crewai needs CrewAI: pip install crewai") from error

from histnorm.repair import Repair, repair
from histnorm.settings import Settings, TailMode, with_options

__all__ = ["OnRepair", "repair_hook", "repair_messages"]

OnRepair = Callable[[LLMCallHookContext, Repair[list[Any]]], None]
"""Called with the hook context of each LLM call whose messages were repaired (its
`agent`, `task`, `crew`, `iterations`...) and histnorm's `Repair`: `applied` counts the
fixes per rule, `fixes` holds the diagnostic of each fix with its JSON Pointer into the
messages as they were."""

_REQUEST = Settings(tail=TailMode.CLOSE)
"""The default: the messages are about to be sent, so a call left open at their end is a
defect."""


def repair_messages(
    messages: list[Any], settings: Settings | None = None, **options: Any
) -> Repair[list[Any]] | None:
    """Repair a CrewAI message list in place, as `histnorm.repair(messages,
    format="openai-chat")` does with `options` set over `settings` (default:
    `Settings(tail="close")`); histnorm's `Repair` when a fix applied, else None (the list
    is then left exactly as it was).

    The list stays the same object and untouched messages stay the very dicts it held.
    """
    chosen = with_options(settings or _REQUEST, options, "repair_messages")
    return _repair(messages, chosen)


def _repair(messages: list[Any], settings: Settings) -> Repair[list[Any]] | None:
    if not messages:
        return None
    try:
        result = repair(list(messages), settings, format="openai-chat")
    except Exception:  # what histnorm cannot read (an object that is no JSON) is left alone
        return None
    if not result.changed:
        return None
    messages[:] = result.value
    return result


def repair_hook(
    settings: Settings | None = None, *, on_repair: OnRepair | None = None, **options: Any
) -> Callable[[LLMCallHookContext], None]:
    """A `before_llm_call` hook that repairs `context.messages` in place
    (`repair_messages` with these settings) and returns None, so the call goes ahead.
    Register it with `register_before_llm_call_hook(repair_hook())`, or
    `before_llm_call(agents=[...])(repair_hook())` for some agents only.
    `on_repair(context, result)` is called after each repair that changed something."""
    chosen = with_options(settings or _REQUEST, options, "repair_hook")

    def repair_before_llm_call(context: LLMCallHookContext) -> None:
        result = _repair(context.messages, chosen)
        if result is not None and on_repair is not None:
            on_repair(context, result)

    return repair_before_llm_call
