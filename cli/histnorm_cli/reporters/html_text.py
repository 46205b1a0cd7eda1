"""Escaping and folding of untrusted text for the HTML report."""

from __future__ import annotations

import html
from typing import Any

import orjson

from histnorm.diagnostic import printable

FOLD = 600
"""Text longer than this (in characters) is folded: its start shows, the rest on demand."""
FOLD_LINES = 12
KEEP = 20_000
"""Text longer than this is cut, with a note of how much is not shown."""


def esc(text: object) -> str:
    """`text` as HTML text or attribute value: markup characters escaped, lone
    surrogates as backslash escapes (transcripts are untrusted input)."""
    return html.escape(printable(str(text)), quote=True)


def as_text(value: Any) -> str:
    """A JSON value as text: a string as it is, anything else as indented JSON."""
    if isinstance(value, str):
        return value
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()
    except TypeError:
        return repr(value)


def folded(text: str, css: str = "body") -> str:
    """`text` escaped in a block; long text folded, very long text cut with a note."""
    cut = ""
    if len(text) > KEEP:
        cut = f'<p class="cut">{len(text) - KEEP:,} more characters not shown</p>'
        text = text[:KEEP]
    if len(text) <= FOLD and text.count("\n") < FOLD_LINES:
        return f'<div class="{css}">{esc(text)}</div>{cut}'
    head = "\n".join(text[:200].splitlines()[:3])
    return (
        f'<details class="fold"><summary><span class="{css}">{esc(head)}…</span> '
        f'<span class="more">({len(text):,} characters)</span></summary>'
        f'<div class="{css}">{esc(text)}</div></details>{cut}'
    )
