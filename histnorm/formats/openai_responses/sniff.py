"""How sure histnorm is that a value is an OpenAI Responses input (`Codec.sniff`).

Positive marks only: items with a known `type`, messages with Responses content parts, or
a request body whose string `input` sits beside Responses body keys. Another format's
keys or content parts make it "not mine".
"""

from __future__ import annotations

from typing import Any

from histnorm.formats.openai_responses.items import CONTENT_TYPES, ITEM_TYPES
from histnorm.model_terms import JsonValue

ENVELOPE_KEY = "input"
_FOREIGN_KEYS = {"contents", "parts", "tool_calls", "tool_call_id", "function_call", "$type"}
_FOREIGN_CONTENT = {"text", "image_url", "tool_use", "tool_result", "thinking", "image", "file"}


_BODY_KEYS = frozenset(
    {
        "model",
        "instructions",
        "previous_response_id",
        "conversation",
        "store",
        "reasoning",
        "tools",
        "tool_choice",
        "parallel_tool_calls",
        "include",
        "max_output_tokens",
        "truncation",
        "background",
        "prompt_cache_key",
        "safety_identifier",
        "service_tier",
    }
)
"""Keys of a Responses request body (`ResponseCreateParams`): the marks a string `input`
needs before the object counts as one."""


def _body_marks(data: dict[str, Any]) -> bool:
    """Whether a body with a string `input` is a Responses request and no dataset record
    (an Alpaca record's `instruction` and string `output` say it is one)."""
    if "instruction" in data or isinstance(data.get("output"), str):
        return False
    return bool(_BODY_KEYS & data.keys())


def _is_str(value: Any) -> bool:
    return isinstance(value, str)


def _foreign_message(kind: str, part_kinds: set[str], role: object) -> bool:
    """A `"type": "message"` from the assistant whose typed parts are none of Responses'
    own: an Anthropic message object (`server_tool_use`, `web_search_tool_result`...) has
    that type too. Anthropic gives it to the assistant's messages only."""
    return (
        kind == "message"
        and role == "assistant"
        and bool(part_kinds)
        and not part_kinds & CONTENT_TYPES
    )


def sniff(data: JsonValue) -> float:
    """How sure (0 to 1) it is that `data` is Responses input; 0 means "not mine"."""
    if isinstance(data, dict):
        items = data.get(ENVELOPE_KEY)
        if isinstance(items, str):
            return 0.2 if _body_marks(data) else 0.0
        if not isinstance(items, list):
            return 0.0
        score = 0.6
    elif isinstance(data, list):
        items, score = data, 0.0
    else:
        return 0.0
    if not all(isinstance(item, dict) for item in items):
        return 0.0
    for item in items[:50]:
        if _FOREIGN_KEYS & item.keys():
            return 0.0
        kind = item.get("type")
        if not isinstance(kind, str) and "role" not in item:
            return 0.0  # neither an item nor a message
        content = item.get("content")
        kinds: set[str] = set()
        if "role" in item and isinstance(content, list):
            kinds = {c["type"] for c in content if isinstance(c, dict) and _is_str(c.get("type"))}
            if kinds & _FOREIGN_CONTENT:
                return 0.0
            if kinds & CONTENT_TYPES - {"refusal"}:
                score = max(score, 0.9)
        if (
            isinstance(kind, str)
            and kind in ITEM_TYPES
            and not _foreign_message(kind, kinds, item.get("role"))
        ):
            score = max(score, 0.95)
    return score
