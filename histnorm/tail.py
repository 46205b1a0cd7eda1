"""Which tail a transcript gets when the user chose none: a request body's is closed.

A request body was sent to be answered as it is: a call still open at its end was sent
without its result, and the provider answers 400 (OpenAI: `The following tool_call_ids did
not have response messages`). A dataset record or a stored history may end on a call on
purpose (a training target, a call still running), so its tail is kept. A value is a
request body when, beside its messages, it holds a key only requests carry: the model, a
token limit, sampling or streaming settings, a tool choice, a Gemini generation config.
`tools` alone is no mark: fine-tuning records carry their tool definitions too.
"""

from __future__ import annotations

from histnorm.model_terms import JsonValue
from histnorm.settings import Settings, TailMode

REQUEST_KEYS = frozenset(
    {
        "model",
        "max_tokens",
        "max_completion_tokens",
        "max_output_tokens",
        "temperature",
        "top_p",
        "stream",
        "tool_choice",
        "stop_sequences",
        "generationConfig",
        "generation_config",
        "toolConfig",
        "tool_config",
    }
)
"""Top-level keys only a request body carries (OpenAI Chat and Responses, Anthropic,
Ollama and other OpenAI-compatible servers; Gemini's `generationConfig` and
`toolConfig`, as the model sits in its URL)."""

REQUEST_NOTE = "a request body: its tail is closed"
"""Why an item left open at the end of a request body is a defect."""


def is_request_body(native: JsonValue) -> bool:
    """Whether `native`, a transcript's top-level value, is a request body."""
    return isinstance(native, dict) and not REQUEST_KEYS.isdisjoint(native)


def tail_of(settings: Settings, native: JsonValue) -> TailMode:
    """The tail in force: the one chosen, else `close` for a request body, else `keep`."""
    if settings.tail is not None:
        return settings.tail
    return TailMode.CLOSE if is_request_body(native) else TailMode.KEEP
