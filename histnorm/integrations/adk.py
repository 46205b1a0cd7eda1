"""histnorm for Google ADK: repair what each model call is sent, as a `before_model_callback`
or as a plugin for every agent of a runner.

    from histnorm.integrations.adk import RepairPlugin, repair_callback
    agent = LlmAgent(name="helper", model=model, before_model_callback=repair_callback())
    app = App(name="my_app", root_agent=agent, plugins=[RepairPlugin()])   # or for all agents

Before each model call ADK builds `llm_request.contents` (`google.genai` `Content`
objects) from the session's events: it already drops a call or a response whose id has no
partner and moves a call's latest response next to it. What still reaches the model is
repaired there, in place, as `histnorm.repair` repairs a list of Contents (format
`gemini`), under the `vertex` profile (Gemini on Vertex AI, which also rejects any empty
text part and does not take back-to-back contents of one role as one turn; the repairs it
makes are valid for the Gemini API too) with calls left open at the end closed (the
request is about to be sent):

- a call no response answers while later contents follow (HN001), such as a long-running
  call ADK keeps waiting on: dropped from the request (`orphan_tool_call="synthesize"`
  answers it with `synthetic_result_text` instead; ADK itself never adds one);
- a response without its call (HN002) or a second response to one call (HN010, when
  identical): dropped;
- a response separated from its call (HN008): moved to right after it;
- an empty or whitespace-only text part (HN004), which Vertex AI rejects with HTTP 400,
  and a content left with no parts (HN005): removed.

Only the request is changed: the session's stored events stay as they are (use `histnorm
fix` on a `DatabaseSessionService` file to repair those). Needs `google-adk`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

try:
    from google.adk.agents.callback_context import CallbackContext
    from google.adk.models.llm_request import LlmRequest
    from google.adk.models.llm_response import LlmResponse
    from google.adk.plugins.base_plugin import BasePlugin
    from google.genai import types
except ImportError as error:
    raise ImportError(
        "histnorm.integrations.adk needs Google ADK: pip install google-adk"
    ) from error

from histnorm.repair import Repair, repair
from histnorm.settings import Settings, TailMode, with_options

__all__ = [
    "OnRepair",
    "RepairPlugin",
    "async_repair_callback",
    "repair_callback",
    "repair_llm_request",
]

OnRepair = Callable[[CallbackContext, Repair[list[Any]]], None]
"""Called with the callback context of each model call whose request was repaired (its
`agent_name`, `invocation_id`, `state`...) and histnorm's `Repair`: `applied` counts the
fixes per rule, `fixes` holds the diagnostic of each fix with its JSON Pointer into the
request's contents."""

_REQUEST = Settings(tail=TailMode.CLOSE, profile="vertex")
"""The default: the contents are about to be sent, so a call left open at their end is a
defect; Vertex AI's rules, the stricter about empty text and turns."""


def repair_llm_request(
    llm_request: LlmRequest, settings: Settings | None = None, **options: Any
) -> Repair[list[Any]] | None:
    """Repair `llm_request.contents` in place, as `histnorm.repair` does with `options` set
    over `settings` (default: `Settings(tail="close", profile="vertex")`); histnorm's
    `Repair` when a fix applied, else None (the request is then left exactly as it was).

    The list stays the same object; untouched contents stay the very objects ADK put in
    it, and repaired ones are new `Content` objects. Contents histnorm cannot read, or a
    repair that cannot be held as `Content` objects, leave the request unchanged.
    """
    chosen = with_options(settings or _REQUEST, options, "repair_llm_request")
    return _repair(llm_request, chosen)


def _repair(llm_request: LlmRequest, settings: Settings) -> Repair[list[Any]] | None:
    contents = llm_request.contents
    if not contents:
        return None
    try:
        result = repair(list(contents), settings, format="gemini")
        if not result.changed:
            return None
        repaired = [_content(item) for item in result.value]
    except Exception:  # what histnorm cannot read or ADK cannot hold is left alone
        return None
    contents[:] = repaired
    return result


def _content(item: Any) -> types.Content:
    """A repaired item as a `Content` (it already is one, unless its class could not
    hold it exactly; then it is validated here, and a failure leaves the request alone)."""
    return item if isinstance(item, types.Content) else types.Content.model_validate(item)


def repair_callback(
    settings: Settings | None = None, *, on_repair: OnRepair | None = None, **options: Any
) -> Callable[[CallbackContext, LlmRequest], None]:
    """A synchronous `before_model_callback` that repairs `llm_request.contents` in place
    (`repair_llm_request` with these settings) and returns None, so the model is called
    and later callbacks run. `on_repair(callback_context, result)` is called after each
    repair that changed something."""
    chosen = with_options(settings or _REQUEST, options, "repair_callback")

    def before_model_callback(callback_context: CallbackContext, llm_request: LlmRequest) -> None:
        result = _repair(llm_request, chosen)
        if result is not None and on_repair is not None:
            on_repair(callback_context, result)

    return before_model_callback


def async_repair_callback(
    settings: Settings | None = None, *, on_repair: OnRepair | None = None, **options: Any
) -> Callable[[CallbackContext, LlmRequest], Awaitable[None]]:
    """`repair_callback` as a coroutine function, for a list of async callbacks."""
    repair_now = repair_callback(
        with_options(settings or _REQUEST, options, "async_repair_callback"), on_repair=on_repair
    )

    async def before_model_callback(
        callback_context: CallbackContext, llm_request: LlmRequest
    ) -> None:
        repair_now(callback_context, llm_request)

    return before_model_callback


class RepairPlugin(BasePlugin):
    """An ADK plugin that repairs `llm_request.contents` before every model call of every
    agent the runner runs, as `repair_callback` does (`settings`, `on_repair` and
    `options` as there). Plugins run before the agents' own callbacks: theirs see the
    repaired request."""

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        name: str = "histnorm_repair",
        on_repair: OnRepair | None = None,
        **options: Any,
    ) -> None:
        super().__init__(name)
        self.settings: Settings = with_options(settings or _REQUEST, options, "RepairPlugin")
        self.on_repair: OnRepair | None = on_repair

    async def before_model_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest
    ) -> LlmResponse | None:
        """Repair the request; None, so the model is called."""
        result = _repair(llm_request, self.settings)
        if result is not None and self.on_repair is not None:
            self.on_repair(callback_context, result)
        return None
