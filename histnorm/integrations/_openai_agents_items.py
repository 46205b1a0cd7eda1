"""Repair the Responses input items of an Agents SDK run, and a model input filter that does
it before each model call."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, cast

try:
    from agents.items import TResponseInputItem
    from agents.run_config import CallModelData, ModelInputData
except ImportError as error:
    raise ImportError(
        "histnorm.integrations.openai_agents needs the OpenAI Agents SDK: pip install openai-agents"
    ) from error

from histnorm.repair import repair
from histnorm.settings import Settings, TailMode, with_options

_CLOSED_TAIL = Settings(tail=TailMode.CLOSE)
"""The filter's default: the input is about to be sent, so a call still open at its end
(which the Responses API rejects) is a defect."""

_ORPHAN_RESULT = "HN002"
"""orphan-tool-result: a result that answers no call before it in the input."""


def repair_items(
    items: Sequence[TResponseInputItem], settings: Settings | None = None, **options: Any
) -> list[TResponseInputItem]:
    """Responses input items (dicts, or the SDK's pydantic objects) repaired by histnorm,
    as `histnorm.repair(items, format="openai-responses")` does (`options` set fields of
    `Settings` over `settings`; an unknown name is a `TypeError`).

    An item no fix touched is the very object passed; repaired items come back as dicts.
    Items histnorm cannot read come back unchanged; the input itself is never changed.
    """
    chosen = with_options(settings, options, "repair_items")
    try:
        result = repair(list(items), chosen, format="openai-responses")
    except TypeError:  # an object that is no input item: left alone, as unreadable data is
        return list(items)
    return cast(list[TResponseInputItem], result.value) if result.changed else list(items)


class RepairInputFilter:
    """A `RunConfig.call_model_input_filter` that repairs the input items of each model
    call, as `repair_items` does with `options` set over `settings` (default:
    `Settings(tail="close")`). The instructions are kept; when nothing is fixed, the
    `ModelInputData` the SDK passed is returned as it is.

    `server_managed=True` is for runs whose history the server holds (`conversation_id`,
    `previous_response_id`, `auto_previous_response_id`): each call is then sent only what
    is new, so a result whose call is not in the input answers a call held on the server
    and is kept (HN002 is not run); what is inside the input is repaired as usual."""

    def __init__(
        self, settings: Settings | None = None, *, server_managed: bool = False, **options: Any
    ) -> None:
        chosen = with_options(settings or _CLOSED_TAIL, options, "RepairInputFilter")
        if server_managed:
            chosen = with_options(chosen, {"ignore": (*chosen.ignore, _ORPHAN_RESULT)})
        self.settings: Settings = chosen
        self.server_managed = server_managed

    def __call__(self, data: CallModelData[Any]) -> ModelInputData:
        """The model input of `data`, repaired."""
        model_data = data.model_data
        items = model_data.input
        repaired = repair_items(items, self.settings)
        if len(repaired) == len(items) and all(
            a is b for a, b in zip(repaired, items, strict=True)
        ):
            return model_data
        return dataclasses.replace(model_data, input=repaired)


repair_model_input = RepairInputFilter()
"""The filter with histnorm's defaults and `tail="close"`:
`RunConfig(call_model_input_filter=repair_model_input)`."""
