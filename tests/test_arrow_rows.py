"""`histnorm.integrations._arrow_rows`: rows as Arrow stores them, stripped of the None
keys it adds and written back in the column's schema, which is read from the batch only
as far as a repaired row needs it."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from histnorm.integrations._arrow_rows import JSON_KEYS, KEEP, Place, shape_of, strip
from histnorm.integrations._rows import batch_shape, repair_row

_KEYS = st.sampled_from(["role", "content", "tool_calls", "arguments", "name", "id", "x"])
_CALLS_TEXT = st.lists(st.dictionaries(_KEYS, st.none() | st.text(), max_size=3), max_size=2)
_LEAF = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text()
    | _CALLS_TEXT.map(json.dumps)  # a `tool_calls` column stored as JSON text
)
_JSON = st.recursive(
    _LEAF,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=20,
)


def _stripped(value: Any) -> Any:
    """What `strip` gives, by its definition: None keys dropped from every object (all of
    a `KEEP` key's value kept), a `JSON_KEYS` string holding a JSON list read as it."""
    if isinstance(value, list):
        return [_stripped(item) for item in value]
    if not isinstance(value, dict):
        return value
    out = {}
    for key, item in value.items():
        if item is None:
            continue
        if key in JSON_KEYS and isinstance(item, str):
            try:
                parsed = json.loads(item)
            except ValueError:
                parsed = None
            if isinstance(parsed, list):
                out[key] = _stripped(parsed)
                continue
        out[key] = item if key in KEEP else _stripped(item)
    return out


@given(_JSON)
@settings(max_examples=300, deadline=None)
def test_strip_drops_none_keys_and_keeps_what_it_does_not_change(value: Any) -> None:
    originals: dict[int, Any] = {}
    before = json.dumps(value, sort_keys=False)
    found = strip(value, originals)
    assert found == _stripped(value)
    assert json.dumps(value, sort_keys=False) == before  # the row is not changed
    if found == value and json.dumps(found) == json.dumps(value):
        assert found is value  # nothing changed: the very value
    else:
        assert originals[id(found)] is value  # a copy, recorded with what it copies


def test_a_tool_calls_string_is_read_and_recorded_as_the_string_it_was() -> None:
    calls = '[{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]'
    originals: dict[int, Any] = {}
    found = strip([{"role": "assistant", "tool_calls": calls, "name": None}], originals)
    assert found[0]["tool_calls"][0]["id"] == "c1"
    assert originals[id(found[0]["tool_calls"])] == calls


def _shape(values: list[Any]) -> dict[str, Any]:
    """The schema of a place, walked whole: the reference a place read as asked equals."""
    kinds: set[str] = set()
    keys: dict[str, list[Any]] = {}
    items: list[Any] | None = None
    for value in values:
        if value is None:
            continue
        if isinstance(value, dict):
            kinds.add("object")
            for key, inner in value.items():
                keys.setdefault(key, []).append(inner)
        elif isinstance(value, list):
            kinds.add("array")
            items = (items or []) + value
        else:
            kinds.add("string" if isinstance(value, str) else "scalar")
    return {
        "kinds": kinds,
        "keys": {key: _shape(inner) for key, inner in keys.items()},
        "item": None if items is None else _shape(items),
    }


def _read(place: Place | None) -> dict[str, Any] | None:
    if place is None:
        return None
    return {
        "kinds": place.kinds,
        "keys": {key: _read(inner) for key, inner in place.keys.items()},
        "item": _read(place.item),
    }


@given(st.lists(_JSON, max_size=5))
@settings(max_examples=300, deadline=None)
def test_a_place_read_as_asked_is_the_schema_of_every_value(values: list[Any]) -> None:
    found = _read(shape_of(values))
    assert found == _shape(values)
    assert found is not None and list(found["keys"]) == list(_shape(values)["keys"])  # order


class _Watched(dict[str, Any]):
    """An object that records every walk of its keys."""

    walks = 0

    def items(self) -> Any:
        _Watched.walks += 1
        return super().items()

    def __iter__(self) -> Any:
        _Watched.walks += 1
        return super().__iter__()


def test_a_repaired_row_reads_the_schema_only_where_it_writes() -> None:
    """The schema is read from the batch, but only the places the repaired row writes:
    the content of the other rows (here an object in a call's arguments) is not walked."""
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    kept = {"role": "user", "content": "hi", "tool_calls": None, "tool_call_id": None}
    other = [
        {"role": "user", "content": "q", "tool_calls": None, "tool_call_id": None},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c2",
                    "type": "function",
                    "function": {"name": "g", "arguments": _Watched(deep=_Watched(a=1))},
                }
            ],
            "tool_call_id": None,
        },
        {"role": "tool", "content": "r", "tool_calls": None, "tool_call_id": "c2"},
    ]
    broken = [kept, {"role": "assistant", "content": None, "tool_calls": [call]}, kept]
    shape = batch_shape([broken, other])
    _Watched.walks = 0
    row = repair_row(broken, None, "openai-chat", shape)
    assert row.applied  # the orphan call was dropped, and the row written back
    assert row.value[0] is kept and row.value[-1] is kept
    assert _Watched.walks == 0
