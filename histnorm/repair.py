"""repair(): one call that repairs a chat history and gives it back in the shape it came in.

A list of messages comes back as a list, a request body as a dict with its other keys
(`model`, `tools`, ...) untouched, JSON bytes as bytes and JSON text as text. Nothing is
copied that no rule changed: every message no fix touched is the very object that was
passed (SDK objects and LangChain messages included), and bytes no fix touched are kept
byte for byte. What a fix rewrites or adds comes back as the kind of object it replaces
or sits beside, where that class holds it exactly (`histnorm.objects`), else as a dict.
The input is never changed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from functools import lru_cache
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

import orjson

import histnorm.engine as engine
import histnorm.jsonio as jsonio
from histnorm._document_repair import empty_history, repair_document
from histnorm._record import record
from histnorm.diagnostic import Diagnostic
from histnorm.errors import HistnormError, NotATranscript
from histnorm.formats import get_codec, seed_read
from histnorm.settings import DEFAULT_SETTINGS, Settings, check_options, with_options

if TYPE_CHECKING:
    from histnorm.analysis.outline import Outline

T = TypeVar("T")

_EMPTY: Mapping[str, int] = MappingProxyType({})


@record(frozen=True, slots=True)
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
    `model_dump()`; messages and blocks may be SDK or pydantic objects or LangChain
    messages, and a message a fix rewrites or adds comes back as the class it replaces or
    sits beside when that class validates it and dumps it back unchanged (else a dict).
    `format` names the codec (default: detected). `options` set fields of `Settings`
    (`profile=`, `select=`, `unsafe_fixes=`, `orphan_tool_call=`, ...) over `settings`.
    Unreadable input is never an exception: the result holds the input, unchanged, and an
    HN000 diagnostic saying why. A value holding something that is no JSON data raises
    `TypeError` saying where and what to pass, and an unknown `format` name
    `HistnormError` listing the known ones.
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


_JSON_ONLY = (
    orjson.OPT_PASSTHROUGH_SUBCLASS
    | orjson.OPT_PASSTHROUGH_DATACLASS
    | orjson.OPT_PASSTHROUGH_DATETIME
)


def _refuse(item: Any) -> Any:
    raise TypeError


def read_as_passed(
    value: Any, format: str | None, settings: Settings
) -> tuple[str | None, bool, Outline | None, bytes | None]:
    """The format `value` was read in as passed (None: it was not), whether its format's
    reader proves it clean: no copy, no model, one serialisation (which the size and media
    checks reuse), the outline that reader read (`engine.detected_outline`) and that
    serialisation (None: it has none). Only a list or dict that serialises with no object
    histnorm would read through `model_dump()` (SDK and pydantic objects, subclasses,
    dataclasses: those go to `plain`) is tried; the reader reads exact JSON types only, so
    anything else where it reads is not proven."""
    if type(value) is not list and type(value) is not dict:
        return None, False, None, None
    try:
        raw = jsonio.Compact(orjson.dumps(value, default=_refuse, option=_JSON_ONLY))
    except (TypeError, RecursionError):  # orjson's JSONEncodeError is a TypeError
        return None, False, None, None
    try:
        return *engine.detected_outline(value, format, settings, raw), raw
    except HistnormError:
        return None, False, None, None


def _repair_value(value: Any, format: str | None, settings: Settings) -> Repair[Any]:
    passed, clean, outline, raw = read_as_passed(value, format, settings)
    if clean:
        return Repair(value, _EMPTY, (), passed)
    from histnorm.plain import plain, restore, stand_ins

    data, originals = plain(value, raw)  # `raw`, when known, is what `plain` would write
    try:
        if passed is not None and data is value:  # JSON data as passed: read just above
            found = passed
        else:
            found, clean, outline = engine.detected_outline(data, format, settings)
            if clean:
                return Repair(value, _EMPTY, (), found)
            raw = None  # `data` is a copy of `value`, which `raw` is the JSON of
        codec = get_codec(found)
        read = seed_read(codec.decode_read(data, outline), outline, data, raw)
        result = engine.fix(read, settings)
    except NotATranscript as error:
        if empty_history(data):
            return Repair(value)
        return Repair(value, _EMPTY, (engine.unreadable(error),))
    except HistnormError as error:
        return Repair(value, _EMPTY, (engine.unreadable(error),))
    if not result.changed:
        return Repair(value, _EMPTY, result.remaining, found)
    # The fix's last check wrote it already; `restore` may change its containers, which
    # nothing reads again (the fixed transcript is dropped on return).
    encoded = codec.written(result.transcript)
    kinds = stand_ins(encoded, value, read, result.transcript, codec, originals)
    new = restore(encoded, originals, kinds)
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
