"""Hypothesis strategies for native ShareGPT records (formats.md §7a, LLaMA-Factory).

Every strategy draws plain JSON values in the shapes the `sharegpt` codec reads: turns
`{"from", "value"}` with every tag and its spelling variants (human/user, gpt/assistant,
system, function_call, observation/tool, unknown tags), string and non-string values,
null and absent values, function_call strings holding one call object or a list of them
in several JSON styles (separators, ASCII escaping, unknown keys in the call objects),
unreadable function_call values, observation runs (none, one per call, one for a whole
parallel turn), unknown keys on turns, and both envelopes: a record with `conversations`
plus `system`, `tools` (a JSON string), `chosen`/`rejected` and unknown keys, or a bare
list of turns. The values are JSON-safe: `orjson.loads(orjson.dumps(x)) == x`.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st
from strategies_json import JSON_VALUES, damaged

TEXT = st.text(st.characters(codec="utf-8"), max_size=12)
SHORT_TEXT = st.text(st.characters(codec="utf-8"), max_size=6)
NAMES = st.sampled_from(
    ["get_weather", "search", "lookup_order", "handoff_to_billing", "", "f"]
) | st.from_regex(r"[A-Za-z_][A-Za-z0-9_\-]{0,11}", fullmatch=True)

TAGS = {
    "user": ["human", "human", "user", "Human"],
    "assistant": ["gpt", "gpt", "assistant", "GPT"],
    "system": ["system", "System"],
    "call": ["function_call", "function_call", "Function_Call"],
    "result": ["observation", "observation", "tool", "Observation"],
    "unknown": ["chatgpt", "bing", "bard", "x_narrator"],
}
# Keys a turn never has: the codec's own, and those that make the sniffer say "not mine".
TURN_KEYS = {"from", "value", "role", "content"}
VENDOR_KEYS = ["weight", "loss", "mask", "name", "x_source", "", "a/b~c"]
STYLES = [(",", ":"), (", ", ": ")]


@st.composite
def with_extras(
    draw: st.DrawFn, fields: dict[str, Any], reserved: set[str], max_extra: int = 2
) -> dict[str, Any]:
    """`fields` plus up to `max_extra` unknown keys, in a drawn key order."""
    items = list(fields.items())
    taken = set(reserved) | set(fields)
    for _ in range(draw(st.integers(0, max_extra))):
        key = draw(
            (st.sampled_from(VENDOR_KEYS) | SHORT_TEXT.map(lambda s: "x_" + s)).filter(
                lambda k: k not in taken
            )
        )
        taken.add(key)
        items.append((key, draw(JSON_VALUES)))
    order = draw(st.permutations(range(len(items))))
    return {items[i][0]: items[i][1] for i in order}


def tags(kind: str) -> st.SearchStrategy[str]:
    """A tag of `kind`, in one of its spellings."""
    return st.sampled_from(TAGS[kind])


@st.composite
def call_objects(draw: st.DrawFn) -> dict[str, Any]:
    """One parsed call object: a name and (usually) an arguments object."""
    fields: dict[str, Any] = {"name": draw(NAMES)}
    shape = draw(st.integers(0, 5))
    if shape <= 3:
        fields["arguments"] = draw(st.dictionaries(SHORT_TEXT, JSON_VALUES, max_size=3))
    elif shape == 4:
        fields["arguments"] = json.dumps({"q": draw(SHORT_TEXT)})  # double-encoded
    return draw(with_extras(fields, {"name", "arguments"}, 1))


@st.composite
def function_call_values(draw: st.DrawFn) -> tuple[str, int]:
    """A function_call value and its number of calls (-1: unreadable)."""
    kind = draw(st.integers(0, 9))
    if kind == 0:
        value = draw(
            st.sampled_from(["print(1)", "not json", "42", "[1, 2]", '"x"', "{", "null", ""])
            | TEXT.filter(lambda t: not t.strip().startswith(("{", "[")))
        )
        return value, -1
    calls = draw(st.lists(call_objects(), min_size=0 if kind == 1 else 1, max_size=3))
    single = len(calls) == 1 and draw(st.booleans())
    payload: Any = calls[0] if single else calls
    item, key = draw(st.sampled_from(STYLES))
    return json.dumps(payload, ensure_ascii=draw(st.booleans()), separators=(item, key)), len(calls)


@st.composite
def turns(draw: st.DrawFn, kind: str, value: Any = None) -> dict[str, Any]:
    """One turn of `kind`; `value` None draws one (sometimes null or absent)."""
    fields: dict[str, Any] = {"from": draw(tags(kind))}
    shape = draw(st.integers(0, 11))
    if shape == 0:
        pass  # no value: a message without parts
    elif shape == 1:
        fields["value"] = None
    elif value is not None:
        fields["value"] = value
    elif kind == "result":
        fields["value"] = draw(TEXT | JSON_VALUES)
    else:
        fields["value"] = draw(TEXT) if shape > 2 else draw(JSON_VALUES)
    return draw(with_extras(fields, TURN_KEYS, 2))


@st.composite
def conversations(draw: st.DrawFn, min_size: int = 1, max_size: int = 8) -> list[dict[str, Any]]:
    """A list of turns; function_call turns are followed by 0, 1 or one-per-call
    observations, and stray observations appear too."""
    out: list[dict[str, Any]] = []
    if draw(st.integers(0, 3)) == 0:
        out.append(draw(turns("system")))
    size = draw(st.integers(min_size, max_size))
    while len(out) < size:
        kind = draw(st.sampled_from(["user", "assistant", "call", "call", "result", "unknown"]))
        if kind != "call":
            out.append(draw(turns(kind)))
            continue
        value, count = draw(function_call_values())
        out.append(draw(turns("call", value)))
        answers = draw(st.sampled_from([0, 1, max(count, 1), max(count, 1) + 1]))
        out.extend(draw(turns("result")) for _ in range(answers))
    return out


TOOLS = json.dumps([{"name": "get_weather", "parameters": {"type": "object"}}])


@st.composite
def records(draw: st.DrawFn, body: list[dict[str, Any]]) -> dict[str, Any]:
    """A record: `conversations` plus the optional dataset columns."""
    fields: dict[str, Any] = {"conversations": body}
    if draw(st.booleans()):
        fields["system"] = draw(TEXT)
    if draw(st.booleans()):
        fields["tools"] = draw(st.sampled_from([TOOLS, "", "[]"]))
    if draw(st.integers(0, 4)) == 0:
        fields["chosen"] = {"from": "gpt", "value": draw(TEXT)}
        fields["rejected"] = {"from": "gpt", "value": draw(TEXT)}
    if draw(st.integers(0, 4)) == 0:
        fields["images"] = ["images/0001.png"]
    return draw(with_extras(fields, {"conversations"}, 1))


@st.composite
def transcripts(draw: st.DrawFn, min_turns: int = 1, max_turns: int = 8) -> Any:
    """A native ShareGPT document: a record (sometimes with no turns) or a bare list."""
    body = draw(conversations(min_turns, max_turns))
    if draw(st.integers(0, 3)) == 0:
        return body
    if draw(st.integers(0, 15)) == 0:
        body = []
    return draw(records(body))


def damaged_transcripts() -> st.SearchStrategy[Any]:
    """A valid document with one value (anywhere) replaced by an arbitrary JSON value."""
    return damaged(transcripts(max_turns=5))
