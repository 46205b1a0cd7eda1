"""ShareGPT tags and `function_call` values: what each turn is, which calls an observation
answers, and parsing the JSON string of calls and writing it back in its style.

A value holds one call object `{"name", "arguments"}` (slot `function_call`) or a list of
them (slot `function_call[K]`). Writing keeps the string verbatim when no call changed, and
otherwise re-serialises it compactly with the separators and ASCII escaping it had.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import histnorm.jsonio as jsonio
from histnorm.errors import HistnormError
from histnorm.formats.base import MISSING, rebuild, reuse_native
from histnorm.formats.openai_chat import HANDOFF_PREFIX
from histnorm.lazy import model
from histnorm.model_terms import ToolFamily

if TYPE_CHECKING:
    from histnorm.model import Part, ToolCallPart

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
Style = tuple[bool, tuple[str, str]]
"""How a function_call string was written: (ensure_ascii, (item separator, key separator))."""
COMPACT: Style = (False, (",", ":"))
_KINDS: dict[str, tuple[str, str]] = {
    "human": ("text", "user"),
    "user": ("text", "user"),
    "gpt": ("text", "assistant"),
    "assistant": ("text", "assistant"),
    "system": ("text", "system"),
    "function_call": ("call", "assistant"),
    "observation": ("result", "tool"),
    "tool": ("result", "tool"),
}


Parsed = tuple[bool, list[dict[str, Any]]] | None
"""What `parse_calls` makes of a value."""


def family(name: str | None) -> ToolFamily:
    """`handoff` for `handoff_to_*` names, else `function`."""
    return ToolFamily.HANDOFF if name and name.startswith(HANDOFF_PREFIX) else ToolFamily.FUNCTION


def parse_calls(value: Any) -> Parsed:
    """The call objects of a function_call value and whether it was a single object, or None."""
    if not isinstance(value, str):
        return None
    try:
        parsed = jsonio.loads(value)
    except HistnormError:
        return None
    items = [parsed] if isinstance(parsed, dict) else parsed
    if not isinstance(items, list) or not all(
        isinstance(item, dict) and isinstance(item.get("name"), str | None) for item in items
    ):
        return None
    return isinstance(parsed, dict), items


def call_slot(single: bool, index: int) -> str:
    """The slot of call `index` of a function_call value."""
    return "function_call" if single else f"function_call[{index}]"


def call_part(item: dict[str, Any], slot: str) -> ToolCallPart:
    """The ToolCallPart for one parsed call object."""
    name = item.get("name")
    return model.ToolCallPart(
        call_id=None,
        name=name,
        arguments=item.get("arguments"),
        family=family(name),
        tool_type="function_call",
        native=item,
        slot=slot,
    )


def detect_style(value: Any) -> Style | None:
    """The separators and ASCII escaping of a function_call string, or None if not calls."""
    if parse_calls(value) is None:
        return None
    bare = _STRING.sub('""', value)
    key = ": " if '": ' in bare else ":"
    item = ", " if ", " in bare else ","
    return "\\u" in value and value.isascii(), (item, key)


def _unchanged(part: ToolCallPart, slot: str | None) -> bool:
    return reuse_native(part, lambda native: call_part(native, slot or ""))


def _null_or_missing(base: dict[str, Any], key: str) -> Any:
    return None if key in base and base[key] is None else MISSING


def encode_call(part: ToolCallPart) -> Any:
    """One call object: the native one if unchanged, else rebuilt (new arguments strings
    holding a JSON object are written as the object, as LLaMA-Factory expects)."""
    if _unchanged(part, part.slot):
        return part.native
    base = part.native if isinstance(part.native, dict) else {}
    args = part.arguments
    if part.native is None and isinstance(args, str):
        try:
            parsed = jsonio.loads(args)
        except HistnormError:
            parsed = None
        args = parsed if isinstance(parsed, dict) else args
    if args is None and not base:
        args = {}
    return rebuild(
        base,
        {
            "name": part.name if part.name is not None else _null_or_missing(base, "name"),
            "arguments": args if args is not None else _null_or_missing(base, "arguments"),
        },
    )


def call_value(parts: list[Part], original: Any, style: Style) -> str:
    """The function_call string for `parts`; `original` is the value they were read from."""
    calls = [p for p in parts if isinstance(p, model.ToolCallPart)]
    parsed = parse_calls(original)
    if parsed is not None:
        single, items = parsed
        if len(calls) == len(items) and all(
            p.slot == call_slot(single, k) and _unchanged(p, p.slot) for k, p in enumerate(calls)
        ):
            return str(original)
        style = detect_style(original) or style
    elements = [encode_call(p) for p in calls]
    single = len(elements) == 1 and (parsed is None or parsed[0])
    ascii_only, separators = style
    return json.dumps(
        elements[0] if single else elements,
        ensure_ascii=ascii_only,
        separators=separators,
        allow_nan=False,
    )


Answers = tuple[str | None, ...] | None
"""The names of the calls an observation answers (one result each), or None: unreadable."""


def tag_kind(tag: str) -> tuple[str, str]:
    """(`text`, `call` or `result`; canonical role) for a turn tag, matched ignoring case."""
    return _KINDS.get(tag.casefold(), ("text", tag))


def _kind_of(turn: Any) -> str | None:
    tag = turn.get("from") if isinstance(turn, dict) else None
    return tag_kind(tag)[0] if isinstance(tag, str) else None


def answers_of(
    turns: list[Any],
    kinds: list[str | None] | None = None,
    parsed: Mapping[int, Parsed] | None = None,
) -> dict[int, Answers]:
    """For every observation turn, the calls it answers: those of the function_call turn
    before its run of observations, one per observation, or all of them when a single
    observation follows a parallel turn; None when that turn could not be read. `kinds`
    (each turn's, as `tag_kind` tells it; None for a turn without a tag) and `parsed`
    (`parse_calls` of the value of each function_call turn, by index) are what the caller
    worked out already."""
    if kinds is None:
        kinds = [_kind_of(turn) for turn in turns]
    out: dict[int, Answers] = {}
    index, count = 0, len(turns)
    while index < count:
        if kinds[index] != "result":
            index += 1
            continue
        start = index
        while index < count and kinds[index] == "result":
            index += 1
        owner = turns[start - 1] if start and kinds[start - 1] == "call" else None
        value = owner.get("value") if isinstance(owner, dict) else None
        if parsed is not None and owner is not None and start - 1 in parsed:
            calls = parsed[start - 1]
        else:
            calls = parse_calls(value)
        if value is not None and calls is None:
            out.update(dict.fromkeys(range(start, index)))
            continue
        names = [item.get("name") for item in calls[1]] if calls else []
        if index - start == 1 and len(names) > 1:
            out[start] = tuple(names)
            continue
        for offset, at in enumerate(range(start, index)):
            out[at] = (names[offset] if offset < len(names) else None,)
    return out
