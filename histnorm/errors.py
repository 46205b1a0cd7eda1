"""The exception types histnorm raises for bad input (and for input that is no transcript)."""

from __future__ import annotations

from typing import Any


def escape_token(token: str | int) -> str:
    """Escape one JSON Pointer reference token (RFC 6901)."""
    text = str(token)
    if "~" in text or "/" in text:
        return text.replace("~", "~0").replace("/", "~1")
    return text


def join_pointer(base: str, *tokens: str | int) -> str:
    """Append reference tokens to the JSON Pointer `base`."""
    if len(tokens) == 1:
        token = tokens[0]
        if type(token) is int or (type(token) is str and "~" not in token and "/" not in token):
            return f"{base}/{token}"  # nothing to escape (the common case, asked often)
        return f"{base}/{escape_token(token)}"
    return base + "".join("/" + escape_token(token) for token in tokens)


class HistnormError(ValueError):
    """Input that is not a readable transcript, with where and what was expected.

    `pointer` is a JSON Pointer into the document ("" is the whole document); `line` is
    the 1-based line number when known (JSONL records, or the line of a JSON syntax error).
    """

    def __init__(
        self,
        message: str,
        *,
        pointer: str | None = None,
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.pointer = pointer
        self.line = line
        self.column = column

    def at(self, *, line: int | None = None, prefix: str = "") -> HistnormError:
        """Return a copy located at `line`, with `prefix` prepended to the pointer."""
        pointer = None if self.pointer is None else prefix + self.pointer
        return type(self)(
            self.message,
            pointer=pointer,
            line=self.line if line is None else line,
            column=self.column,
        )

    def __str__(self) -> str:
        where = []
        if self.line is not None:
            where.append(f"line {self.line}" + (f", column {self.column}" if self.column else ""))
        if self.pointer is not None:
            where.append(f"at {self.pointer or '/'}" if self.pointer else "at the document root")
        return f"{', '.join(where)}: {self.message}" if where else self.message


class NotATranscript(HistnormError):
    """Valid JSON that holds no transcript of a format histnorm reads: an Alpaca dataset,
    a dataset registry, preference pairs, a package.json. Found without an explicit
    format, readers skip it (it is no error); with one, it is reported like bad input."""


def type_name(value: Any) -> str:
    """The JSON type name of `value`, for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__
