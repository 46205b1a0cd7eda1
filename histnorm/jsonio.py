"""Strict JSON parsing and style-preserving serialisation.

orjson does the work; integers beyond 64 bits and lone surrogate escapes (`"\\ud800"`,
legal JSON that orjson rejects) fall back to the standard library, so their exact values
are kept; a lone surrogate is written back as an escape, never as invalid UTF-8. NaN and
Infinity literals are rejected (they are not JSON).
"""

from __future__ import annotations

import json
import math
import re
from json.encoder import encode_basestring, encode_basestring_ascii
from typing import Any

import orjson

from histnorm._record import record
from histnorm.errors import HistnormError


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"number {text} is infinity when parsed as double")
    return value


_DIGITS_TO_ZERO = bytes(48 if 48 <= i <= 57 else 32 for i in range(256))
_LONG_RUN = b"0" * 19
"""19 digits in a row: a number that may not fit in 64 bits (checked without a regex)."""


def has_long_number(raw: bytes) -> bool:
    """Whether `raw` holds 19 digits in a row: a number that may not fit in 64 bits."""
    return _LONG_RUN in raw.translate(_DIGITS_TO_ZERO)


def read_inexactly(value: Any, raw: bytes) -> bool:
    """Whether `value`, what `loads_typed(raw)` gave, may hold an integer beyond 64 bits
    read as a float: `raw` has 19 digits in a row (`has_long_number`) and `value` holds a
    float. A long run of digits inside a string (an id, a hash) leaves the value exact."""
    if not has_long_number(raw):
        return False
    stack = [value]
    pop, push = stack.pop, stack.extend
    while stack:
        item = pop()
        kind = type(item)
        if kind is float:
            return True
        if kind is dict:
            push(item.values())
        elif kind is list:
            push(item)
    return False


def loads_typed(raw: bytes) -> Any:
    """Parse with orjson alone: exact except that integers beyond 64 bits come back as
    floats. Enough for decisions that look only at types, strings and structure (format
    detection, plain shapes); `loads` gives exact values. Raises `HistnormError`."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        if "surrogate" in exc.msg or ("infinity" in exc.msg and has_long_number(raw)):
            return _loads_exact(raw)  # legal JSON orjson refuses (or a 310-digit integer)
        if "UTF-8" in exc.msg:  # orjson places these at the start: find the bad byte
            raise _utf8_error(exc.msg, raw) from None
        raise _syntax_error(exc.msg, exc.lineno, exc.colno) from None


def _utf8_error(msg: str, raw: bytes | bytearray | memoryview) -> HistnormError:
    """The error of invalid UTF-8 in `raw`, at the line and column of its first bad byte."""
    data = bytes(raw)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        return _syntax_error(f"invalid UTF-8: {exc.reason}", line, column)
    return _syntax_error(msg, 1, 1)  # valid bytes: a lone surrogate escape, say


def loads(data: bytes | str) -> Any:
    """Parse one JSON document; raise `HistnormError` with line and column on failure."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if not has_long_number(raw):
        return loads_typed(raw)
    # orjson reads integers beyond 64 bits as floats; the standard library keeps them exact.
    return _loads_exact(raw)


def _loads_exact(raw: bytes) -> Any:
    """Parse with the standard library (exact big integers, lone surrogates)."""
    try:
        text = raw.decode("utf-8")
        return json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float)
    except UnicodeDecodeError:
        raise _utf8_error("invalid UTF-8", raw) from None
    except json.JSONDecodeError as exc:
        raise _syntax_error(exc.msg, exc.lineno, exc.colno) from None
    except ValueError as exc:
        raise HistnormError(str(exc)) from None
    except RecursionError:
        try:
            orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            raise _syntax_error(exc.msg, exc.lineno, exc.colno) from None
        raise HistnormError("not valid JSON here: nested too deeply to read") from None


def _syntax_error(msg: str, line: int, column: int) -> HistnormError:
    return HistnormError(f"not valid JSON: {msg}", pointer=None, line=line, column=column)


class Compact(bytes):
    """The compact JSON text of a value, as `dumps` writes it (`orjson.dumps` of JSON
    data): its only `\\u` escapes are of control characters. A size or media check reads
    it as it is, where it searches a text the value was parsed from for escapes first
    (`histnorm.analysis.context.Context.native_json`)."""


@record(frozen=True, slots=True)
class Style:
    """How a JSON document was laid out, so a rewrite looks like the original."""

    indent: int | str | None = None
    item_separator: str = ","
    key_separator: str = ":"
    ensure_ascii: bool = False
    final_newline: bool = False
    newline: str = "\n"


COMPACT = Style()


def detect_style(data: bytes) -> Style:
    """Guess the layout of a JSON document from its bytes."""
    text = data.decode("utf-8", errors="replace")
    body = text.lstrip("\ufeff")
    final_newline = body.endswith("\n")
    ensure_ascii = "\\u" in body and body.isascii()
    lines = body.splitlines()
    indent: int | str | None = None
    if len(lines) > 1:
        for line in lines[1:]:
            stripped = line.lstrip(" \t")
            if stripped and len(stripped) < len(line):
                width = line[: len(line) - len(stripped)]
                indent = "\t" if width.startswith("\t") else len(width)
                break
    newline = "\r\n" if "\r\n" in body else "\n"
    item_sep, key_sep = separators(data) or (",", ":")
    if indent is not None:
        item_sep = ","
    return Style(indent, item_sep, key_sep, ensure_ascii, final_newline, newline)


_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
SAMPLE = 1 << 16
"""The separators of a JSON text are read from its first 64 KB."""


def separators(data: bytes) -> tuple[str, str] | None:
    """The item and key separators of the JSON text `data`, as its first comma and colon
    outside strings are written (`", "` or `","`, `": "` or `":"`); None when it holds
    neither."""
    bare = _STRING.sub(b'""', data[:SAMPLE])
    quote = bare.replace(b'""', b"  ").find(b'"')  # a string the sample cuts
    if quote >= 0:
        bare = bare[:quote]
    comma, colon = bare.find(b","), bare.find(b":")
    if comma < 0 and colon < 0:
        return None
    item = ", " if bare[comma + 1 : comma + 2] == b" " and comma >= 0 else ","
    key = ": " if bare[colon + 1 : colon + 2] == b" " and colon >= 0 else ":"
    return item, key


def copy(value: Any) -> Any:
    """A deep copy of a JSON value, however deeply nested (no recursion)."""
    root: list[Any] = [None]
    stack: list[tuple[Any, Any, Any]] = [(value, root, 0)]
    while stack:
        item, holder, key = stack.pop()
        if isinstance(item, dict):
            new: Any = dict.fromkeys(item)  # keys in their order; values filled in below
            stack.extend((v, new, k) for k, v in item.items())
        elif isinstance(item, list):
            new = [None] * len(item)
            stack.extend((v, new, i) for i, v in enumerate(item))
        else:
            new = item
        holder[key] = new
    return root[0]


def dumps(value: Any, style: Style = COMPACT) -> bytes:
    """Serialise `value` in `style`; exact for integers of any size."""
    if style is COMPACT or style == COMPACT:
        try:
            return orjson.dumps(value)
        except TypeError:
            pass  # integers beyond 64 bits: fall back to the standard library
    elif (
        style.indent == 2
        and style.key_separator == ": "
        and not style.ensure_ascii
        and style.newline == "\n"
    ):
        try:
            return orjson.dumps(value, option=orjson.OPT_INDENT_2) + (
                b"\n" if style.final_newline else b""
            )
        except TypeError:
            pass
    try:
        text = json.dumps(
            value,
            indent=style.indent,
            separators=(style.item_separator, style.key_separator),
            ensure_ascii=style.ensure_ascii,
            allow_nan=False,
        )
    except RecursionError:  # nesting deeper than the interpreter's recursion limit
        text = _dumps_deep(value, style)
    if style.newline != "\n":  # JSON strings hold no raw newlines, so this is layout only
        text = text.replace("\n", style.newline)
    return _utf8(text) + (style.newline.encode() if style.final_newline else b"")


_SURROGATE = re.compile("[\ud800-\udfff]")


def string_json(text: str) -> str:
    """`text` as the JSON string `orjson.dumps` writes (a lone surrogate, which orjson
    refuses, as a `\\u` escape), made without orjson: orjson keeps a UTF-8 copy inside
    every non-ASCII string it writes, for as long as that string lives, which for the
    strings of a transcript held whole is as long as its text again."""
    if _SURROGATE.search(text) is None:
        return encode_basestring(text)
    return encode_basestring_ascii(text)


def _utf8(text: str) -> bytes:
    """`text` as UTF-8, each lone surrogate (only ever inside a JSON string) escaped."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text).encode("utf-8")


def _dumps_deep(value: Any, style: Style) -> str:
    """An iterative serialiser for values nested too deeply for the recursive ones."""
    step = style.indent if isinstance(style.indent, str) else " " * (style.indent or 0)
    pretty = style.indent is not None
    out: list[str] = []
    # Work items: ("value", v, depth) or ("text", s, 0)
    stack: list[tuple[str, Any, int]] = [("value", value, 0)]
    while stack:
        kind, item, depth = stack.pop()
        if kind == "text":
            out.append(item)
            continue
        if isinstance(item, dict | list) and item:
            pairs = list(item.items()) if isinstance(item, dict) else list(enumerate(item))
            close = "}" if isinstance(item, dict) else "]"
            inner = "\n" + step * (depth + 1) if pretty else ""
            outer = "\n" + step * depth if pretty else ""
            out.append("{" if isinstance(item, dict) else "[")
            stack.append(("text", outer + close, 0))
            for index in range(len(pairs) - 1, -1, -1):
                key, child = pairs[index]
                stack.append(("value", child, depth + 1))
                head = inner if index == 0 else style.item_separator + inner
                if isinstance(item, dict):
                    head += json.dumps(key, ensure_ascii=style.ensure_ascii) + style.key_separator
                stack.append(("text", head, 0))
        else:
            out.append(json.dumps(item, ensure_ascii=style.ensure_ascii, allow_nan=False))
    return "".join(out)
