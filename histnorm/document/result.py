"""What the document layer hands back: per document, per line, per skipped record."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import field
from types import MappingProxyType

from histnorm._record import record
from histnorm.diagnostic import Diagnostic, printable
from histnorm.document.layout import Layout

_NONE: Mapping[str, int] = MappingProxyType({})


def _no_fixes() -> Mapping[str, int]:
    return _NONE


@record(frozen=True, slots=True)
class Skip:
    """A record (or a whole file) skipped: valid JSON that holds no transcript."""

    message: str
    line: int | None = None
    pointer: str | None = None
    transcript_index: int | None = None

    def __post_init__(self) -> None:
        if not self.message.isascii():  # it may quote the data
            object.__setattr__(self, "message", printable(self.message))


@record(frozen=True)
class DocumentResult:
    """What `lint_document` or `fix_document` found in one document, and its new bytes."""

    layout: Layout
    diagnostics: tuple[Diagnostic, ...] = ()
    """Every diagnostic, with its JSON Pointer in the document and its line, in the
    order the records come (HN000 for a record that cannot be read)."""
    output: bytes | None = None
    """The fixed document's bytes; None when they are the bytes given (always for lint)."""
    skipped: tuple[Skip, ...] = ()
    """Records that hold no transcript: neither checked nor written."""
    applied: Mapping[str, int] = field(default_factory=dict)
    """How many fixes each rule applied."""
    transcripts: int = 0
    """Transcripts read, the unreadable ones included."""
    fixes: tuple[Diagnostic, ...] = ()
    """The diagnostic of each fix applied, in the order applied, with its JSON Pointer and
    line in the document as read (a fix made after another one in the same transcript
    points into the transcript as the earlier fix left it)."""
    pieces: tuple[bytes | memoryview, ...] = ()
    """The fixed document's text in pieces (views of the bytes given, and new bytes) when
    it changed and was not joined into `output` (`check_document(..., join=False)`, for a
    caller that writes it out: a long session's text is then never held twice); else
    empty."""

    @property
    def changed(self) -> bool:
        """Whether a fix changed the bytes."""
        return self.output is not None or bool(self.pieces)

    @property
    def skipped_file(self) -> bool:
        """Whether the whole document holds no transcript: every record was skipped."""
        return bool(self.skipped) and self.transcripts == 0

    def new_bytes(self, data: bytes) -> bytes:
        """The document's content after this run: `output` (its `pieces` joined), or `data`
        (the bytes given)."""
        if self.output is not None:
            return self.output
        return b"".join(self.pieces) if self.pieces else data

    def written(self, data: bytes) -> Sequence[bytes | memoryview]:
        """`new_bytes(data)` in pieces, to write one after the other without joining them."""
        if self.output is not None:
            return (self.output,)
        return self.pieces or (data,)


@record(frozen=True, slots=True)
class LineResult:
    """One line of transcript-per-line JSONL, checked (see `histnorm.document.lines`)."""

    number: int
    """Its line number (from 1, or from the start of the range given)."""
    raw: bytes
    """The line as read, with its ending."""
    output: bytes | None = None
    """Its new bytes, ending included; None when the line stays as read."""
    diagnostics: tuple[Diagnostic, ...] = ()
    """Its diagnostics, each at this line."""
    skip: Skip | None = None
    """Set when the line is valid JSON that holds no transcript."""
    applied: Mapping[str, int] = field(default_factory=_no_fixes)
    transcript: bool = False
    """Whether the line holds a transcript (readable or not)."""
    hunk: tuple[int, bytes, bytes, bytes] | None = None
    """For a changed line: its number, old and new content, and its ending (for a diff)."""
    fixes: tuple[Diagnostic, ...] = ()
    """The diagnostic of each fix applied to the line (see `DocumentResult.fixes`)."""

    @property
    def new_bytes(self) -> bytes:
        """The bytes to write for this line."""
        return self.raw if self.output is None else self.output
