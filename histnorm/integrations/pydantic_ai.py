"""histnorm for Pydantic AI: repair a message history, as a history processor.

    from pydantic_ai.capabilities import ProcessHistory
    from histnorm.integrations.pydantic_ai import repair_history
    agent = Agent(model, capabilities=[ProcessHistory(repair_history)])

`repair_capability(**options)` builds that capability with other settings. Needs
`pydantic-ai-slim` (2.x: `history_processors=` became `capabilities=[ProcessHistory(...)]`).
"""

from __future__ import annotations

from typing import Any

try:
    from pydantic_ai.capabilities import ProcessHistory
    from pydantic_ai.messages import ModelMessage, ModelMessagesTypeAdapter
except ImportError as error:
    raise ImportError(
        "histnorm.integrations.pydantic_ai needs Pydantic AI: pip install pydantic-ai-slim"
    ) from error

from histnorm.repair import repair
from histnorm.settings import Settings, with_options

__all__ = ["repair_capability", "repair_history"]


def repair_history(
    messages: list[ModelMessage], settings: Settings | None = None, **options: Any
) -> list[ModelMessage]:
    """`messages` repaired by histnorm (format `pydantic-ai`), as `histnorm.repair` does
    (`options` set fields of `Settings` over `settings`; an unknown name is a `TypeError`).

    A message no fix touched is the very object passed; only repaired messages are new
    (read back with `ModelMessagesTypeAdapter`). A history that cannot be written as JSON
    or read comes back unchanged; the input itself is never changed. Its signature is a
    Pydantic AI history processor's: `ProcessHistory(repair_history)`.
    """
    chosen = with_options(settings, options, "repair_history")
    try:
        dicts = ModelMessagesTypeAdapter.dump_python(messages, mode="json")
        result = repair(dicts, chosen, format="pydantic-ai")
    except Exception:  # what Pydantic AI cannot dump or histnorm read is left alone
        return list(messages)
    if not result.changed:
        return list(messages)
    originals = {id(d): m for d, m in zip(dicts, messages, strict=True)}
    out: list[ModelMessage] = []
    for item in result.value:
        kept = originals.get(id(item))
        out.append(ModelMessagesTypeAdapter.validate_python([item])[0] if kept is None else kept)
    return out


def repair_capability(settings: Settings | None = None, **options: Any) -> ProcessHistory[Any]:
    """A `ProcessHistory` capability running `repair_history` with these settings before
    each model request: `Agent(model, capabilities=[repair_capability(orphan_tool_call=
    "synthesize")])` answers an orphan call instead of dropping it."""
    chosen = with_options(settings, options, "repair_capability")

    def processor(messages: list[ModelMessage]) -> list[ModelMessage]:
        return repair_history(messages, chosen)

    return ProcessHistory(processor)
