"""Message lists as Arrow stores them, read as they were written, and written back in the
column's schema.

An Arrow list of structs has one struct type for the whole column: a key some messages
never had is there on every message, as None (`"tool_calls": None` on a user message,
`"name": None`, `"id": None` on a call), and a column may hold `tool_calls` as a JSON
string. `strip` gives the message list without those None keys (JSON-string `tool_calls`
parsed), which is what the rows held before Arrow unified them; `Shape` is the column's
schema as its values show it, and `restore` writes a repaired list back in it: messages
no fix touched are the very row objects, new ones get every key of the schema (None where
they have none) in the schema's order. A value the schema has no place for is a
`SchemaConflict`. Call arguments are kept as they are: unified argument structs are data
(a template renders them), not keys histnorm reads.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

KEEP = frozenset({"arguments"})
"""Keys whose values are kept exactly as stored (never stripped)."""
JSON_KEYS = frozenset({"tool_calls"})
"""Message keys some datasets store as a JSON string."""


class SchemaConflict(ValueError):
    """A repaired value the column's schema has no place for (a new key or another type)."""


def strip(value: Any, originals: dict[int, Any]) -> Any:
    """`value` without None-valued keys in its objects (below `KEEP` keys nothing is
    touched), JSON-string `JSON_KEYS` parsed; `value` itself when nothing changed, else a
    copy, whose new objects are recorded in `originals` (by id) with what they copy."""
    if isinstance(value, list):
        items = [strip(item, originals) for item in value]
        if all(new is old for new, old in zip(items, value, strict=True)):
            return value
        originals[id(items)] = value
        return items
    if not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    changed = False
    for key, item in value.items():
        if item is None:
            changed = True
            continue
        if key in KEEP:
            out[key] = item
            continue
        if key in JSON_KEYS and isinstance(item, str):
            parsed = _parsed(item)
            if parsed is not None:
                out[key] = new = strip(parsed, originals)
                originals[id(new)] = item  # written back as the string it was
                changed = True
                continue
        new = strip(item, originals)
        changed = changed or new is not item
        out[key] = new
    if not changed:
        return value
    originals[id(out)] = value
    return out


def _parsed(text: str) -> list[Any] | None:
    try:
        found = json.loads(text)
    except ValueError:
        return None  # not JSON: histnorm reads (and reports) the string as it is
    return found if isinstance(found, list) else None


@dataclass
class Shape:
    """The schema of one place in a column, as its values show it: the kinds of value
    seen there, the keys of its objects in order, and the shape of list items."""

    kinds: set[str] = field(default_factory=set)
    keys: dict[str, Shape] = field(default_factory=dict)
    item: Shape | None = None

    def add(self, value: Any) -> None:
        """Widen the shape by one stored value."""
        if value is None:
            return
        if isinstance(value, dict):
            self.kinds.add("object")
            for key, inner in value.items():
                self.keys.setdefault(key, Shape()).add(inner)
        elif isinstance(value, list):
            self.kinds.add("array")
            self.item = self.item or Shape()
            for inner in value:
                self.item.add(inner)
        else:
            self.kinds.add("string" if isinstance(value, str) else "scalar")


def shape_of(values: Iterable[Any]) -> Shape:
    """The shape of a column from its stored values."""
    shape = Shape()
    for value in values:
        shape.add(value)
    return shape


def restore(value: Any, shape: Shape | None, originals: dict[int, Any]) -> Any:
    """`value` (a repaired, stripped value) written back in `shape`: what `strip` copied
    and no fix changed is the stored object again; a new object has the shape's keys in
    its order. Raises `SchemaConflict` for a key or kind of value the shape has no place
    for (a shape with no values seen takes anything)."""
    kept = originals.get(id(value))
    if kept is not None:
        return kept
    if value is None:
        return None
    known = shape is not None and bool(shape.kinds)
    if isinstance(value, dict):
        if not known:
            return value
        assert shape is not None
        _expect(shape, "object", value)
        extra = [k for k, v in value.items() if k not in shape.keys and v is not None]
        if extra:
            raise SchemaConflict(f"the column has no key {extra[0]!r}")
        return {
            key: _restore_key(key, value.get(key), inner, originals)
            for key, inner in shape.keys.items()
        }
    if isinstance(value, list):
        if known:
            assert shape is not None
            _expect(shape, "array", value)
        inner = shape.item if shape is not None else None
        return [restore(item, inner, originals) for item in value]
    if known:
        assert shape is not None
        _expect(shape, "string" if isinstance(value, str) else "scalar", value)
    return value


def _restore_key(key: str, value: Any, shape: Shape, originals: dict[int, Any]) -> Any:
    if key in KEEP:
        return value
    if key in JSON_KEYS and "string" in shape.kinds and isinstance(value, list):
        if id(value) in originals:
            return originals[id(value)]
        return json.dumps(_unstripped(value, originals), ensure_ascii=False)
    return restore(value, shape, originals)


def _unstripped(value: Any, originals: dict[int, Any]) -> Any:
    kept = originals.get(id(value))
    if kept is not None:
        return kept
    if isinstance(value, list):
        return [_unstripped(item, originals) for item in value]
    if isinstance(value, dict):
        return {key: _unstripped(item, originals) for key, item in value.items()}
    return value


def _expect(shape: Shape, kind: str, value: Any) -> None:
    if kind not in shape.kinds:
        seen = " or ".join(sorted(shape.kinds))
        raise SchemaConflict(f"the column holds {seen} here, not {type(value).__name__}")
