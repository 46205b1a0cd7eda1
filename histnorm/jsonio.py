"""Strict JSON parsing and style-preserving serialisation.

orjson does the work; integers beyond 64 bits fall back to the standard library so that
their exact values are kept. NaN and Infinity literals are rejected (they are not JSON).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import orjson

from histnorm.errors import HistnormError


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


_LONG_NUMBER = re.compile(rb"\d{19,}")


def loads(data: bytes | str) -> Any:
    """Parse one JSON document; raise `HistnormError` with line and column on failure."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if _LONG_NUMBER.search(raw) is None:
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            raise _syntax_error(exc.msg, exc.lineno, exc.colno) from None
    # orjson reads integers beyond 64 bits as floats; the standard library keeps them exact.
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        return json.loads(text, parse_constant=_reject_constant)
    except UnicodeDecodeError as exc:
        raise HistnormError(f"invalid UTF-8: {exc.reason}") from None
    except json.JSONDecodeError as exc:
        raise _syntax_error(exc.msg, exc.lineno, exc.colno) from None
    except ValueError as exc:
        raise HistnormError(str(exc)) from None


def _syntax_error(msg: str, line: int, column: int) -> HistnormError:
    return HistnormError(f"not valid JSON: {msg}", pointer=None, line=line, column=column)


@dataclass(frozen=True, slots=True)
class Style:
    """How a JSON document was laid out, so a rewrite looks like the original."""

    indent: int | str | None = None
    item_separator: str = ","
    key_separator: str = ":"
    ensure_ascii: bool = False
    final_newline: bool = False


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
    key_sep = ": " if '": ' in body else ":"
    item_sep = "," if indent is not None else (", " if ", " in body else ",")
    return Style(indent, item_sep, key_sep, ensure_ascii, final_newline)


def dumps(value: Any, style: Style = COMPACT) -> bytes:
    """Serialise `value` in `style`; exact for integers of any size."""
    if style == COMPACT:
        try:
            return orjson.dumps(value)
        except TypeError:
            pass  # integers beyond 64 bits: fall back to the standard library
    elif style.indent == 2 and style.key_separator == ": " and not style.ensure_ascii:
        try:
            return orjson.dumps(value, option=orjson.OPT_INDENT_2) + (
                b"\n" if style.final_newline else b""
            )
        except TypeError:
            pass
    text = json.dumps(
        value,
        indent=style.indent,
        separators=(style.item_separator, style.key_separator),
        ensure_ascii=style.ensure_ascii,
        allow_nan=False,
    )
    return text.encode("utf-8") + (b"\n" if style.final_newline else b"")
