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
    `ModelInputData` the SDK passed is returned as it is."""

    def __init__(self, settings: Settings | None = None, **options: Any) -> None:
        base = settings or _CLOSED_TAIL
        self.settings: Settings = with_options(base, options, "RepairInputFilter")

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
