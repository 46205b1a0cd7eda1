"""A long session proven clean while it is read, a line at a time, no line held.

Lint and fix read a message-per-line file whole when they check it, as its lines' parsed
values (3-4 times the file) and, when a rule reports, its models. A session that needs
nothing does not need them: `streamed_clean` parses each line, hands it to the format's
reader (`Codec.read_streamed`) and drops it, so what it holds is the file, the outline
and one line. Detection reads the first `LIST_WINDOW` lines, which is all it reads of a
session. A session that is not proven clean (a rule may report, or its reader does not read
it a line at a time) is read whole after all, as before, and checked on its models.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from itertools import chain
from typing import TYPE_CHECKING, Any, NamedTuple

import histnorm.jsonio as jsonio
from histnorm.analysis.context import IMAGE_MARKER, Unheld
from histnorm.document.layout import BOM, line_spans
from histnorm.document.read import pick_reading
from histnorm.engine import outline_clean
from histnorm.errors import HistnormError
from histnorm.formats import CODECS
from histnorm.formats.base import LIST_WINDOW
from histnorm.held_lines import HeldLines
from histnorm.settings import Settings

if TYPE_CHECKING:
    from histnorm.analysis.outline import Outline

STREAMED_FROM = 1 << 20
"""The size (bytes) from which a message-per-line file is first read a line at a time:
a smaller one costs little memory read whole, and a damaged one would be parsed twice."""

_ESCAPE = b"\\u"
"""A `\\u` escape, which could spell the letters of `IMAGE_MARKER`."""


class _Broken(Exception):
    """A line is no JSON: the whole-file reading says where and why."""


class _Lines:
    """What the checks read of the lines of a session read a line at a time: the size of
    each, and whether one holds `IMAGE_MARKER` (`Unheld`); and where each starts and ends
    and its `type`, to hold them as text (`HeldLines`) if it is not proven clean."""

    def __init__(self) -> None:
        self.sizes: list[int] = []
        self.marked = False
        self.starts = array("q")
        self.ends = array("q")
        self.types: list[str | None] = []
        self._kinds: dict[str, str] = {}

    def values(self, body: bytes) -> Iterator[Any]:
        """The parsed value of each line of `body` that is not blank
        (`jsonio.loads_typed`, as the lint fast path reads them), noted as it is read."""
        for _, start, end, _ in line_spans(body):
            line = body[start:end]
            if not line.strip():
                continue
            try:
                value = jsonio.loads_typed(line)
            except HistnormError:
                raise _Broken from None
            self.sizes.append(end - start)
            self.starts.append(start)
            self.ends.append(end)
            kind = value.get("type") if type(value) is dict else None
            self.types.append(self._kinds.setdefault(kind, kind) if type(kind) is str else None)
            if not self.marked:
                self.marked = _marked(line, value)
            yield value


def _marked(line: bytes, value: Any) -> bool:
    """Whether the JSON of a line holds `IMAGE_MARKER`: its text does (no escape spells
    its letters), or it has a `\\u` escape, which could, and its compact JSON does."""
    if IMAGE_MARKER in line:
        return True
    if _ESCAPE not in line:
        return False
    try:
        return IMAGE_MARKER in jsonio.dumps(value)
    except (TypeError, ValueError, RecursionError):
        return True


class Streamed(NamedTuple):
    """What reading a session a line at a time found: whether it is proven clean, else
    (when its codec holds its lines as text, `Codec.held_items`) its lines held as
    text, its format and the outline its reader read."""

    clean: bool
    held: HeldLines | None = None
    format: str | None = None
    outline: Outline | None = None


def streamed_clean(data: bytes, format: str | None, settings: Settings) -> bool:
    """Whether the message-per-line file `data` (one session) is proven to need nothing,
    read a line at a time (`STREAMED_FROM` bytes and up); False means only "not proven":
    read it whole. `format` as for `lint_document` (None: detected)."""
    return streamed_read(data, format, settings).clean


def streamed_read(data: bytes, format: str | None, settings: Settings) -> Streamed:
    """`streamed_clean`, and when that is not proven, the lines held as text for a codec
    that reads them so (none when a line may hold an integer beyond 64 bits: the outline
    was read from its inexact reading)."""
    body = data.removeprefix(BOM)
    if len(body) < STREAMED_FROM:
        return _NOT_PROVEN
    lines = _Lines()
    values = lines.values(body)
    try:
        head = [value for _, value in zip(range(LIST_WINDOW), values, strict=False)]
        chosen, _ = pick_reading(head, format) if head else (None, None)
        codec = CODECS.get(chosen) if chosen is not None else None
        if codec is None:
            return _NOT_PROVEN
        outline = codec.read_streamed(chain(head, values), lines.sizes)
    except _Broken:
        return _NOT_PROVEN
    del head
    if outline is None:
        return _NOT_PROVEN
    if outline_clean(outline, settings, Unheld(tuple(lines.sizes), lines.marked), data):
        return _PROVEN
    items = codec.held_items
    spans = lines.starts, lines.ends
    if items is None or _inexact(body, spans):
        return _NOT_PROVEN
    return Streamed(False, HeldLines(body, spans, lines.types, items), chosen, outline)


_PROVEN = Streamed(True)
_NOT_PROVEN = Streamed(False)


def _inexact(body: bytes, spans: tuple[array[int], array[int]]) -> bool:
    """Whether a line may hold an integer beyond 64 bits, read as a float
    (`jsonio.read_inexactly`); only a line with 19 digits in a row is parsed to tell."""
    for start, end in zip(*spans, strict=True):  # a line at a time: no copy of the body
        line = body[start:end]
        if jsonio.has_long_number(line) and jsonio.read_inexactly(jsonio.loads_typed(line), line):
            return True
    return False
