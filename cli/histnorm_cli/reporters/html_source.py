"""The transcripts the HTML report draws, read back from the files the run read.

Nothing here checks anything: the findings come from the run's report records; this
only parses the records they point at (the lines of transcript-per-line JSONL that
have findings, not the whole file), so that the page can show their messages.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from histnorm._record import record
from histnorm.document import Layout, layout_for, read_document, split_lines
from histnorm.document.read import read_json
from histnorm.model import Transcript

Key = tuple[str, int]
"""Which transcript of a file: ("line", n) in transcript-per-line JSONL, else
("index", i) (0 for a file holding one)."""


@record(frozen=True)
class Reading:
    """How the run read a file (from its job): what `read_document` needs."""

    format: str | None = None
    jsonl_mode: str = "auto"
    detect: str = "file"


def key_of(found: dict[str, Any], layout: Layout | None) -> Key:
    """The transcript a report record belongs to."""
    location = found["location"]
    if location.get("transcript_index") is not None:
        return ("index", location["transcript_index"])
    if layout is Layout.JSONL and location.get("line") is not None:
        return ("line", location["line"])
    return ("index", 0)


def layout_of(data: bytes, path: str, reading: Reading) -> Layout | None:
    """The layout the run found for `data` (None when it cannot be told)."""
    try:
        return layout_for(data, path, reading.jsonl_mode)
    except Exception:  # display only: a file that cannot be read shows its findings alone
        return None


def transcripts(
    data: bytes, path: str, reading: Reading, wanted: Iterable[Key]
) -> tuple[Layout | None, dict[Key, Transcript]]:
    """The layout of `data` and the transcripts at the `wanted` keys that can be read."""
    wanted = set(wanted)
    layout = layout_of(data, path, reading)
    found: dict[Key, Transcript] = {}
    try:
        if layout is Layout.JSONL:
            lines = {n for kind, n in wanted if kind == "line"}
            for number, line, _ in split_lines(data):
                if number in lines:
                    transcript = _one(line, reading)
                    if transcript is not None:
                        found[("line", number)] = transcript
            return layout, found
        document = read_document(
            data,
            path_hint=path,
            format=reading.format,
            jsonl_mode=reading.jsonl_mode,
            detect=reading.detect,
        )
    except Exception:  # display only, as above
        return layout, found
    for index, entry in enumerate(document.records):
        if ("index", index) in wanted and entry.transcript is not None:
            found[("index", index)] = entry.transcript
    return layout, found


def _one(line: bytes, reading: Reading) -> Transcript | None:
    """The transcript of one line of JSONL, if it reads as one."""
    try:
        records = read_json(line, reading.format, reading.detect).records
    except Exception:  # display only
        return None
    return records[0].transcript if len(records) == 1 else None


def changed_pairs(
    path: str,
    versions: tuple[bytes, bytes] | None,
    hunks: Iterable[tuple[int, bytes, bytes, bytes, tuple[str, ...]]],
    reading: Reading,
) -> dict[Key, tuple[Transcript | None, Transcript | None]]:
    """Each changed transcript of a file, before and after the fix."""
    pairs: dict[Key, tuple[Transcript | None, Transcript | None]] = {}
    for number, old, new, _, _ in hunks:
        pairs[("line", number)] = (_one(old, reading), _one(new, reading))
    if versions is None:
        return pairs
    old, new = versions
    layout = layout_of(old, path, reading)
    keys: set[Key] = set()
    if layout is Layout.JSONL:
        keys = {("line", n) for n, a, b in _changed_lines(old, new)}
    before = transcripts(old, path, reading, keys or _indices(old, path, reading))[1]
    after = transcripts(new, path, reading, keys or _indices(new, path, reading))[1]
    for key in sorted(set(before) | set(after)):
        first, second = before.get(key), after.get(key)
        if first is None or second is None or first.messages != second.messages:
            pairs[key] = (first, second)
    return pairs


def _indices(data: bytes, path: str, reading: Reading) -> set[Key]:
    try:
        count = len(read_document(data, path_hint=path, jsonl_mode=reading.jsonl_mode).records)
    except Exception:  # display only
        return set()
    return {("index", i) for i in range(count)}


def _changed_lines(old: bytes, new: bytes) -> list[tuple[int, bytes, bytes]]:
    before = [line for _, line, _ in split_lines(old)]
    after = [line for _, line, _ in split_lines(new)]
    return [(n + 1, a, b) for n, (a, b) in enumerate(zip(before, after, strict=False)) if a != b]
