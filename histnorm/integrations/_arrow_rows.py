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
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

KEEP = frozenset({"arguments"})
"""Keys whose values are kept exactly as stored (never stripped)."""
JSON_KEYS = frozenset({"tool_calls"})
"""Message keys some datasets store as a JSON string."""
_LEAVES = frozenset({str, int, float, bool, type(None)})
"""Types of value `strip` gives back as they are, without a call."""


class SchemaConflict(ValueError):
    """A repaired value the column's schema has no place for (a new key or another type)."""


def strip(value: Any, originals: dict[int, Any]) -> Any:
    """`value` without None-valued keys in its objects (below `KEEP` keys nothing is
    touched), JSON-string `JSON_KEYS` parsed; `value` itself when nothing changed, else a
    copy, whose new objects are recorded in `originals` (by id) with what they copy."""
    kind = type(value)
    if kind is list or (kind is not dict and isinstance(value, list)):
        return _strip_list(value, originals)
    if kind is dict or isinstance(value, dict):
        return _strip_object(value, originals)
    return value


def _strip_list(value: list[Any], originals: dict[int, Any]) -> Any:
    items: list[Any] | None = None
    for index, item in enumerate(value):
        new = item if type(item) in _LEAVES else strip(item, originals)
        if new is not item and items is None:
            items = value[:index]
        if items is not None:
            items.append(new)
    if items is None:
        return value
    originals[id(items)] = value
    return items


def _strip_object(value: dict[str, Any], originals: dict[int, Any]) -> Any:
    out = {key: item for key, item in value.items() if item is not None}
    changed = len(out) != len(value)
    for key, item in out.items():
        if key in JSON_KEYS and isinstance(item, str):
            parsed = _parsed(item)
            if parsed is None:
                continue
            out[key] = new = strip(parsed, originals)
            originals[id(new)] = item  # written back as the string it was
            changed = True
            continue
        if type(item) in _LEAVES or key in KEEP:
            continue
        new = strip(item, originals)
        if new is not item:
            out[key] = new
            changed = True
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
    """A `Place` given whole: the kinds of value the place may hold, the keys of its
    objects in order and the place of list items (Ray reads it from the column's Arrow
    type: `_ray_quarantine.arrow_shape`)."""

    kinds: set[str] = field(default_factory=set)
    keys: dict[str, Shape] = field(default_factory=dict)
    item: Shape | None = None


class Place(Protocol):
    """The schema of one place in a column, as `restore` reads it: the kinds of value that
    may be there, the keys of its objects in order, and the place of list items."""

    @property
    def kinds(self) -> set[str]: ...

    @property
    def keys(self) -> Mapping[str, Place]: ...

    @property
    def item(self) -> Place | None: ...


class Seen:
    """The `Shape` of a place read from the values stored there (`values`, the same place
    in every row of a batch), one level at a time as `restore` asks: a level it never
    reads (the items of a list no repair rewrites, the keys inside content it keeps) is
    never walked."""

    __slots__ = ("_item", "_keys", "_kinds", "_values")

    def __init__(self, values: list[Any]) -> None:
        self._values = values
        self._kinds: set[str] | None = None
        self._keys: dict[str, Seen] | None = None
        self._item: list[Seen | None] = []

    @property
    def kinds(self) -> set[str]:
        """What `Shape.add` of every value would put in `kinds`."""
        if self._kinds is None:
            self._kinds = {_kind(value) for value in self._values if value is not None}
        return self._kinds

    @property
    def keys(self) -> dict[str, Seen]:
        """The keys of the objects stored here, in the order they first appear, each with
        the values stored under it (None among them)."""
        if self._keys is None:
            under: dict[str, list[Any]] = {}
            for value in self._values:
                if isinstance(value, dict):
                    for key, inner in value.items():
                        found = under.get(key)
                        if found is None:
                            under[key] = [inner]
                        else:
                            found.append(inner)
            self._keys = {key: Seen(inner) for key, inner in under.items()}
        return self._keys

    @property
    def item(self) -> Seen | None:
        """The place of the items of the lists stored here; None when none is a list."""
        if not self._item:
            lists = [value for value in self._values if isinstance(value, list)]
            self._item.append(Seen([x for found in lists for x in found]) if lists else None)
        return self._item[0]


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    return "string" if isinstance(value, str) else "scalar"


def shape_of(values: list[Any]) -> Seen:
    """The shape of a column from its stored values, read as `restore` asks (`Seen`)."""
    return Seen(values)


def restore(value: Any, shape: Place | None, originals: dict[int, Any]) -> Any:
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


def _restore_key(key: str, value: Any, shape: Place, originals: dict[int, Any]) -> Any:
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


def _expect(shape: Place, kind: str, value: Any) -> None:
    if kind not in shape.kinds:
        seen = " or ".join(sorted(shape.kinds))
        raise SchemaConflict(f"the column holds {seen} here, not {type(value).__name__}")
