"""Arbitrary JSON values, and documents damaged with them, for the format strategy modules.

The tests/strategies_<format>.py modules draw valid native documents; what they all need
besides is in one place here:

- `JSON_VALUES`: any JSON value (null, booleans, 64-bit ints, finite floats, short
  strings, lists and objects of them), kept small; `json_values` builds the same with
  other sizes (Claude Code sessions draw smaller ones). `JSON_OBJECTS`: small objects of
  them.
- `locations` and `replaced`: every path into a JSON value, and a copy of a value with
  the value at one path replaced.
- `strings`: every string in a JSON value (its keys aside).
- `damaged`: a strategy of valid documents turned into one of documents with one value,
  anywhere (the whole document included), replaced by an arbitrary JSON value, the input
  of the codec contract's damaged-input tests.

The values are JSON-safe: `orjson.loads(orjson.dumps(x))` gives back `x` exactly.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from hypothesis import strategies as st

INT64 = st.integers(-(2**63), 2**63 - 1)
FLOATS = st.floats(allow_nan=False, allow_infinity=False)


def short_texts(max_size: int = 6) -> st.SearchStrategy[str]:
    """Any string of at most `max_size` characters (its UTF-8 is valid: no lone surrogate)."""
    return st.text(st.characters(codec="utf-8"), max_size=max_size)


def json_scalars(text: st.SearchStrategy[str]) -> st.SearchStrategy[Any]:
    """Any JSON scalar, its strings drawn from `text`."""
    return st.none() | st.booleans() | INT64 | FLOATS | text


SHORT_TEXT = short_texts()
SCALARS = json_scalars(SHORT_TEXT)
"""Any JSON scalar, as `JSON_VALUES` draws them."""


def json_values(max_text: int = 6, max_leaves: int = 6) -> st.SearchStrategy[Any]:
    """Any JSON value: strings and keys of at most `max_text` characters, lists and objects
    of at most 3 members, and at most `max_leaves` scalars in all."""
    text = short_texts(max_text)
    return st.recursive(
        json_scalars(text),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3),
        max_leaves=max_leaves,
    )


JSON_VALUES: st.SearchStrategy[Any] = json_values()
"""Any JSON value, kept small."""
JSON_OBJECTS = st.dictionaries(SHORT_TEXT, JSON_VALUES, max_size=3)
"""A small JSON object of any values."""


def locations(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The path of every value inside `value`, itself (the path `()`) included."""
    out = [path]
    if isinstance(value, dict):
        for key, child in value.items():
            out.extend(locations(child, (*path, key)))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            out.extend(locations(child, (*path, index)))
    return out


def replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    """A copy of `value` with the value at `path` replaced by `new` (`value` is untouched;
    only the containers on the path are copied)."""
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {k: (replaced(v, rest, new) if k == head else v) for k, v in value.items()}
    return [(replaced(v, rest, new) if i == head else v) for i, v in enumerate(value)]


def damaged(
    documents: st.SearchStrategy[Any], values: st.SearchStrategy[Any] = JSON_VALUES
) -> st.SearchStrategy[Any]:
    """A document of `documents` with one value, anywhere (the whole document included),
    replaced by one of `values`."""

    @st.composite
    def damaged_documents(draw: st.DrawFn) -> Any:
        doc = draw(documents)
        path = draw(st.sampled_from(locations(doc)))
        return replaced(doc, path, draw(values))

    return damaged_documents()


def strings(value: Any) -> Iterator[str]:
    """Every string in the JSON value `value`, keys aside, in document order."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)
