"""repair(): one call that repairs a chat history and gives it back in the shape it came in.

A list of messages comes back as a list, a request body as a dict with its other keys
(`model`, `tools`, ...) untouched, JSON bytes as bytes and JSON text as text. Nothing is
copied that no rule changed: every message no fix touched is the very object that was
passed (SDK objects included), and bytes no fix touched are kept byte for byte. The
input is never changed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from types import MappingProxyType
from typing import Any, Generic, TypeVar, overload

import orjson
from pydantic import BaseModel

import histnorm.engine as engine
from histnorm._document_repair import empty_history, repair_document
from histnorm.diagnostic import Diagnostic
from histnorm.errors import HistnormError, NotATranscript, join_pointer
from histnorm.formats import detect_format, get_codec
from histnorm.settings import DEFAULT_SETTINGS, Settings, check_options, with_options

T = TypeVar("T")

_EMPTY: Mapping[str, int] = MappingProxyType({})
_PLAIN_ONLY = (
    orjson.OPT_PASSTHROUGH_SUBCLASS
    | orjson.OPT_PASSTHROUGH_DATACLASS
    | orjson.OPT_PASSTHROUGH_DATETIME
)
_WHAT_TO_PASS = (
    "pass a list or dict of messages (dicts, or SDK and pydantic objects with model_dump()), "
    "or the JSON as bytes or text"
)


@dataclass(frozen=True, slots=True)
class Repair(Generic[T]):
    """What `repair` gives back: the repaired `value`, in the type and format it came in."""

    value: T
    """The repaired value; the input object itself when nothing was changed."""
    applied: Mapping[str, int] = field(default_factory=lambda: _EMPTY)
    """How many fixes each rule applied, by code."""
    remaining: tuple[Diagnostic, ...] = ()
    """What is left after the repair (HN000 when the input could not be read: then
    `value` is the input, unchanged)."""
    format: str | None = None
    """The format a native value was read in; None for bytes and text (each record of a
    document has its own), for unreadable input and for an empty history."""
    fixes: tuple[Diagnostic, ...] = ()
    """The diagnostic of each fix applied, in the order applied, with its JSON Pointer
    (and, for bytes and text, its line) in the input."""

    @property
    def changed(self) -> bool:
        """Whether any fix was applied."""
        return bool(self.applied)


@overload
def repair(
    value: bytes, settings: Settings | None = None, *, format: str | None = None, **options: Any
) -> Repair[bytes]: ...
@overload
def repair(
    value: str, settings: Settings | None = None, *, format: str | None = None, **options: Any
) -> Repair[str]: ...
@overload
def repair(
    value: list[Any], settings: Settings | None = None, *, format: str | None = None, **options: Any
) -> Repair[list[Any]]: ...
@overload
def repair(
    value: dict[str, Any],
    settings: Settings | None = None,
    *,
    format: str | None = None,
    **options: Any,
) -> Repair[dict[str, Any]]: ...
@overload
def repair(
    value: object, settings: Settings | None = None, *, format: str | None = None, **options: Any
) -> Repair[Any]: ...
def repair(
    value: object, settings: Settings | None = None, *, format: str | None = None, **options: Any
) -> Repair[Any]:
    """Repair a chat history: apply the allowed fixes (as `fix` does) and give the result
    back in the type and format of `value`.

    `value` is a list of messages, a dict (a request body or dataset record), JSON bytes
    or text (one transcript, a JSON array of them, or JSONL), or an object with
    `model_dump()`. `format` names the codec (default: detected). `options` set fields of
    `Settings` (`profile=`, `select=`, `unsafe_fixes=`, `orphan_tool_call=`, ...) over
    `settings`. Unreadable input is never an exception: the result holds the input,
    unchanged, and an HN000 diagnostic saying why. A value holding something that is no
    JSON data raises `TypeError` saying where and what to pass, and an unknown `format`
    name `HistnormError` listing the known ones.
    """
    if format is not None:
        get_codec(format)  # a name histnorm does not know is the caller's error, not HN000
    chosen = _settings(settings, tuple(options.items())) if options else settings
    chosen = chosen or DEFAULT_SETTINGS
    if isinstance(value, bytes | bytearray | memoryview):
        new, applied, remaining, fixes = repair_document(bytes(value), format, chosen)
        if new is None:
            return Repair(value, applied, remaining, fixes=fixes)
        value = bytearray(new) if isinstance(value, bytearray) else new
        return Repair(value, applied, remaining, fixes=fixes)
    if isinstance(value, str):
        try:
            data = value.encode("utf-8")
        except UnicodeEncodeError as exc:
            error = HistnormError(f"not valid text: {exc.reason} at character {exc.start}")
            return Repair(value, _EMPTY, (engine.unreadable(error),))
        new, applied, remaining, fixes = repair_document(data, format, chosen)
        text = value if new is None else new.decode("utf-8")
        return Repair(text, applied, remaining, fixes=fixes)
    return _repair_value(value, format, chosen)


def _repair_value(value: Any, format: str | None, settings: Settings) -> Repair[Any]:
    plain, originals = _plain(value)
    try:
        found = format if format is not None else detect_format(plain)
        if engine.proven_clean(plain, found, settings):
            return Repair(value, _EMPTY, (), found)
        codec = get_codec(found)
        result = engine.fix(codec.decode(plain), settings)
    except NotATranscript as error:
        if empty_history(plain):
            return Repair(value)
        return Repair(value, _EMPTY, (engine.unreadable(error),))
    except HistnormError as error:
        return Repair(value, _EMPTY, (engine.unreadable(error),))
    if not result.changed:
        return Repair(value, _EMPTY, result.remaining, found)
    new = _restore(codec.encode(result.transcript), originals)
    if isinstance(value, tuple) and isinstance(new, list):
        new = tuple(new)
    return Repair(new, result.applied, result.remaining, found, result.fixes)


@lru_cache(maxsize=64)
def _cached_settings(base: Settings | None, options: tuple[tuple[str, Any], ...]) -> Settings:
    return _make_settings(base, dict(options))


def _settings(base: Settings | None, options: tuple[tuple[str, Any], ...]) -> Settings:
    """`base` (default: `Settings()`) with `options` set, checked by name."""
    check_options(dict(options), "repair")
    try:
        return _cached_settings(base, options)
    except TypeError:  # an unhashable value (a list for `select`): not cached
        return _make_settings(base, dict(options))


def _make_settings(base: Settings | None, options: dict[str, Any]) -> Settings:
    return with_options(base, options, "repair")


def _not_json(item: Any) -> Any:
    raise TypeError


def _is_plain(value: Any) -> bool:
    """Whether `value` is made of JSON data alone (exact dicts, lists, strings, numbers,
    booleans and None), decided in C: serialised and read back, it equals itself."""
    try:
        return bool(
            orjson.loads(orjson.dumps(value, default=_not_json, option=_PLAIN_ONLY)) == value
        )
    except (TypeError, ValueError, RecursionError):
        return False


def _plain(value: Any) -> tuple[Any, dict[int, tuple[Any, Any]]]:
    """`value` as JSON data, and for each container made here (by its id) that container
    and the caller's object it stands for. JSON data is used as it is (no copy); SDK
    objects become the JSON they send (`model_dump`), tuples become lists."""
    if _is_plain(value):
        return value, {}
    originals: dict[int, tuple[Any, Any]] = {}
    root: list[Any] = [None]
    stack: list[tuple[Any, Any, Any, str]] = [(value, root, 0, "")]
    while stack:
        item, holder, key, at = stack.pop()
        original = item
        item = _dumped(item, at)
        if isinstance(item, dict):
            new: Any = dict.fromkeys(item)
            for k, v in item.items():
                if not isinstance(k, str):
                    raise TypeError(
                        f"a key that is no string ({k!r}) at {at or '/'}: {_WHAT_TO_PASS}"
                    )
                stack.append((v, new, k, join_pointer(at, k)))
            originals[id(new)] = (new, original)
        elif isinstance(item, list | tuple):
            new = [None] * len(item)
            stack.extend((v, new, i, join_pointer(at, i)) for i, v in enumerate(item))
            originals[id(new)] = (new, original)
        elif item is None or isinstance(item, str | int | float):
            new = item
        else:
            where = f"at {at}" if at else "the value passed"
            raise TypeError(
                f"cannot read a {type(item).__name__!r} object ({where}): {_WHAT_TO_PASS}"
            )
        holder[key] = new
    return root[0], originals


def _dumped(item: Any, at: str) -> Any:
    """An SDK or pydantic object as the JSON its SDK sends; anything else as it is."""
    if isinstance(item, BaseModel):
        exclude = getattr(item, "__api_exclude__", None)
        return item.model_dump(mode="json", by_alias=True, exclude_unset=True, exclude=exclude)
    dump = getattr(item, "model_dump", None)
    if callable(dump) and not isinstance(item, type):
        return dump()
    return item


def _restore(new: Any, originals: dict[int, tuple[Any, Any]]) -> Any:
    """`new` with each container made by `_plain` replaced by the caller's object it
    stands for (everything else in `new` was made by the codec: it is ours to change)."""
    if not originals:
        return new
    if id(new) in originals:
        return originals[id(new)][1]
    stack, seen = [new], set()
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        for key, child in list(item.items() if isinstance(item, dict) else enumerate(item)):
            if isinstance(child, dict | list):
                kept = originals.get(id(child))
                if kept is not None:
                    item[key] = kept[1]
                else:
                    stack.append(child)
    return new
