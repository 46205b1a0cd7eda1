"""histnorm for Pydantic AI: repair a message history, as a history processor.

    from pydantic_ai.capabilities import ProcessHistory
    from histnorm.integrations.pydantic_ai import repair_history
    agent = Agent(model, capabilities=[ProcessHistory(repair_history)])

`repair_capability(**options)` builds that capability with other settings. Needs
`pydantic-ai-slim` (2.x: `history_processors=` became `capabilities=[ProcessHistory(...)]`).

Pydantic AI repairs a history itself before a processor sees it: a call it finds no
return for gets a synthesized `interrupted` return, marked in its `metadata`
(`pydantic_ai_synthesized_tool_return`). For a call stored twice under one id and
answered once, that return answers the copy histnorm drops; histnorm drops it too when
the same turn holds a real return for that id.
"""

from __future__ import annotations

from typing import Any

try:
    from pydantic_ai.capabilities import ProcessHistory
    from pydantic_ai.messages import SYNTHESIZED_TOOL_RETURN_METADATA_KEY as SYNTHESIZED
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
    or read comes back unchanged; the input itself is never changed. A return Pydantic AI
    synthesized beside a real one for the same call id is dropped first (see above). Its
    signature is a Pydantic AI history processor's: `ProcessHistory(repair_history)`.
    """
    chosen = with_options(settings, options, "repair_history")
    try:
        dicts = ModelMessagesTypeAdapter.dump_python(messages, mode="json")
        originals = {id(d): m for d, m in zip(dicts, messages, strict=True)}
        answered = _without_synthesized_twins(dicts)
        result = repair(answered, chosen, format="pydantic-ai")
    except Exception:  # what Pydantic AI cannot dump or histnorm read is left alone
        return list(messages)
    if not result.changed and answered is dicts:
        return list(messages)
    out: list[ModelMessage] = []
    for item in result.value if result.changed else answered:
        kept = originals.get(id(item))
        out.append(ModelMessagesTypeAdapter.validate_python([item])[0] if kept is None else kept)
    return out


def _without_synthesized_twins(messages: list[Any]) -> list[Any]:
    """The dumped `messages` without each return Pydantic AI synthesized (`SYNTHESIZED` in
    its `metadata`) for a call id that a real return answers in the same run of requests;
    a request left empty goes too. The very list when there is none."""
    out = list(messages)
    dropped = False
    run: list[int] = []
    for index, message in enumerate(out):
        if isinstance(message, dict) and message.get("kind") == "request":
            run.append(index)
            continue
        dropped |= _drop_twins(out, run)
        run = []
    dropped |= _drop_twins(out, run)
    return [m for m in out if m is not None] if dropped else messages


def _drop_twins(messages: list[Any], run: list[int]) -> bool:
    """Drop, in the requests at `run`, the synthesized returns of ids a real return there
    answers (a request left empty becomes None); whether any was dropped."""
    parts_of_run = [p for i in run for p in _parts(messages[i])]
    real = {p["tool_call_id"] for p in parts_of_run if _answer(p) and not _synthesized(p)}
    dropped = False
    for i in run:
        parts = _parts(messages[i])
        kept = [p for p in parts if not (_synthesized(p) and p.get("tool_call_id") in real)]
        if len(kept) != len(parts):
            dropped = True
            messages[i] = {**messages[i], "parts": kept} if kept else None
    return dropped


def _parts(message: dict[str, Any]) -> list[Any]:
    parts = message.get("parts")
    return parts if isinstance(parts, list) else []


def _answer(part: Any) -> bool:
    kind = part.get("part_kind") if isinstance(part, dict) else None
    return kind in ("tool-return", "retry-prompt") and isinstance(part.get("tool_call_id"), str)


def _synthesized(part: Any) -> bool:
    metadata = part.get("metadata") if isinstance(part, dict) else None
    return _answer(part) and isinstance(metadata, dict) and metadata.get(SYNTHESIZED) is True


def repair_capability(settings: Settings | None = None, **options: Any) -> ProcessHistory[Any]:
    """A `ProcessHistory` capability running `repair_history` with these settings before
    each model request: `Agent(model, capabilities=[repair_capability(orphan_tool_call=
    "synthesize")])` answers an orphan call instead of dropping it."""
    chosen = with_options(settings, options, "repair_capability")

    def processor(messages: list[ModelMessage]) -> list[ModelMessage]:
        return repair_history(messages, chosen)

    return ProcessHistory(processor)
