"""Writing documents back: original bytes for everything no rule changed.

Every record and JSONL line that nothing changed keeps its bytes; in a changed JSON
document or JSONL line only the changed messages are re-serialised, and they keep the
spelling of every string and number they still hold unchanged (`splice.keep_spellings`);
message-per-line JSONL keeps its blank lines and line endings; a record whose rewrite
would drop the first value of a repeated key keeps its bytes too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import histnorm.jsonio as jsonio
from histnorm.document.layout import BOM, Document, Layout, Record, split_lines
from histnorm.errors import HistnormError
from histnorm.formats import get_codec
from histnorm.held_lines import entries_of, source_of
from histnorm.linemap import duplicate_key, duplicate_keys
from histnorm.splice import keep_spellings, moved, paired_at, pairs, splice_array

if TYPE_CHECKING:
    from histnorm.model import Transcript


def encode_transcript(transcript: Transcript) -> Any:
    """The native value of `transcript` in its own format (`Codec.written`: the checks of
    the fix that made it have written it already; callers read it and never change it)."""
    if transcript.format is None:
        raise HistnormError("the transcript has no format to write it in")
    return get_codec(transcript.format).written(transcript)


def write_line(
    record: Record, transcript: Transcript | None, *, repeats_checked: bool = False
) -> bytes:
    """The bytes of one JSONL line: the original if nothing changed, else the original
    with only the changed messages re-serialised (the whole line, in its own separators,
    when that cannot be done).

    A line with a key repeated in one object keeps its original bytes: a rewrite would
    keep only the last value (see `lost_by_rewrite`; `repeats_checked=True` says the
    caller has just asked it about this very rewrite and got None).
    """
    if transcript is None or transcript == record.transcript:
        return record.raw
    if not repeats_checked and lost_by_rewrite(record, transcript) is not None:
        return record.raw
    new = encode_transcript(transcript)
    old = _native(record.transcript) if record.transcript is not None else None
    if record.transcript is None or jsonio.dumps(old) == record.raw:
        return jsonio.dumps(new)  # a line written as histnorm writes: nothing else to keep
    pointers = _message_arrays(record.transcript)
    style = jsonio.detect_style(record.raw)
    if pointers:
        spliced = _splice_arrays(record.raw, old, new, pointers, style)
        if spliced is not None:
            return spliced
    return keep_spellings(jsonio.dumps(new, style), record.raw, moved(old, new))


def lost_by_rewrite(
    record: Record,
    transcript: Transcript,
    raw: bytes | None = None,
    spliced: bool = False,
    lines: Sequence[tuple[int, int, Any]] = (),
) -> str | None:
    """The pointer of a repeated key that rewriting `record` as `transcript` would lose.

    JSON parsers keep the last value of a repeated key, so a record whose rewritten part
    holds one cannot be written back without losing data. When only changed messages are
    re-serialised (`spliced`, JSON documents), a repeat inside an untouched message is
    safe. `raw` is the text the record sits in when it is not `record.raw`. `lines`, the
    message lines of message-per-line JSONL (`Document.lines`): a line written as read
    (the very value `transcript` is written with) keeps its bytes, repeats and all, so
    only the others are read (the pointer then starts at the line's index).
    """
    text = raw if raw is not None else record.raw
    if lines:
        return _lost_in_lines(text.removeprefix(BOM), lines, transcript)
    read = None if record.transcript is None else _native(record.transcript)
    repeats = _repeats(text.removeprefix(BOM), read)
    if not repeats or record.transcript is None or not spliced:
        return repeats[0] if repeats else None
    base = record.pointer
    kept = {id(m) for m in transcript.messages}
    codec = get_codec(record.transcript.format or "")
    untouched = [
        base + codec.message_pointer(record.transcript, index)
        for index, message in enumerate(record.transcript.messages)
        if id(message) in kept
    ]
    for repeated in repeats:
        if base and not repeated.startswith(base + "/"):
            continue  # another record's repeat: its bytes are not rewritten
        if not any(repeated == at or repeated.startswith(at + "/") for at in untouched):
            return repeated
    return None


def _lost_in_lines(
    body: bytes, lines: Sequence[tuple[int, int, Any]], transcript: Transcript
) -> str | None:
    """`lost_by_rewrite` of message-per-line JSONL: the first repeated key of a line that
    is not written as read, at `/<line index>/...`."""
    encoded = encode_transcript(transcript)
    source = source_of(encoded)
    if source is not None:  # lines held as text: those written as read, by index
        kept = {e for e in entries_of(encoded) if type(e) is int}
    else:
        kept = {id(value) for value in encoded}
    for index, (start, end, value) in enumerate(lines):
        if (index if source is not None else id(value)) in kept:
            continue
        if source is not None:
            value = source[index]
        repeats = _repeats(body[start:end], value)
        if repeats:
            return f"/{index}{repeats[0]}"
    return None


def _repeats(text: bytes, value: Any) -> list[str]:
    """`duplicate_keys(text)`, where `value` is what `text` was parsed as (if known): none
    when `text` is the compact JSON histnorm writes of `value` (a serialised object
    repeats no key), which costs a fraction of the exact scan; else the scan answers."""
    return [] if _as_written(value, text) else duplicate_keys(text)


def _as_written(value: Any, text: bytes) -> bool:
    """Whether `text` is the compact JSON `jsonio.dumps` writes of `value` (parsed from
    it): then it repeats no key, and every scalar in it is spelled as `dumps` spells it,
    so a value written afresh beside it needs no respelling (`keep_spellings`)."""
    if value is None or text[:1] not in _OPENERS or text.find(b'": ', 0, 512) >= 0:
        return False  # not compact JSON of an object or an array, or one that says `": `
    try:
        return jsonio.dumps(value) == text
    except (TypeError, ValueError):
        return False  # not writable as JSON as it stands


_OPENERS = (b"{", b"[")
"""How compact JSON of an object or an array starts (no whitespace before it)."""


Chunk = bytes | memoryview
"""A piece of written text: new bytes, or a view of the bytes as read."""


def write(document: Document, transcripts: Sequence[Transcript | None]) -> bytes:
    """Write `document` with each record's transcript replaced by the one in `transcripts`."""
    return joined(write_chunks(document, transcripts))


def joined(chunks: list[Chunk]) -> bytes:
    """The text `chunks` make (the very bytes of a lone chunk that is bytes)."""
    return chunks[0] if len(chunks) == 1 and type(chunks[0]) is bytes else b"".join(chunks)


def write_chunks(document: Document, transcripts: Sequence[Transcript | None]) -> list[Chunk]:
    """What `write` writes, as the pieces it joins: the caller may drop the transcripts
    and the document's parsed lines before it joins them (a session's models and its
    written text are then never held at once)."""
    if len(transcripts) != len(document.records):
        raise ValueError("write() needs one transcript (or None) per record")
    changed = [
        t is not None and t != r.transcript
        for r, t in zip(document.records, transcripts, strict=True)
    ]
    if not any(changed):
        return [document.raw]
    prefix = BOM if document.bom else b""
    if document.layout in (Layout.JSON, Layout.JSON_ARRAY):
        return [prefix + _write_json(document, transcripts)]
    if document.layout is Layout.JSONL:
        return [prefix + _write_jsonl(document, transcripts)]
    return [prefix, *_write_message_lines(document, _only(transcripts))]


def _native(transcript: Transcript) -> Any:
    """The native document a decoded transcript came from (its envelope, or its messages)."""
    if transcript.native is not None:
        return transcript.native
    return [m.native for m in transcript.messages]


def _message_arrays(transcript: Transcript) -> tuple[str, ...]:
    if not transcript.messages or transcript.format is None:
        return ()
    return get_codec(transcript.format).message_arrays(transcript)


def _splice_arrays(
    body: bytes, old: Any, new: Any, pointers: Sequence[str], style: jsonio.Style
) -> bytes | None:
    """`splice_array` for each message array in turn (a TRL record has one per side):
    arrays `new` holds as the very objects of `old` are not touched."""
    if len(pointers) == 1:
        return splice_array(body, old, new, pointers[0], style)
    current = old
    for pointer in pointers:
        step = _put(current, new, pointer)
        if step is None:
            return None
        if step is current:
            continue
        spliced = splice_array(body, current, step, pointer, style)
        if spliced is None:
            return None
        body, current = spliced, step
    return body if jsonio.dumps(current) == jsonio.dumps(new) else None


def _put(value: Any, source: Any, pointer: str) -> Any:
    """`value` with what `source` holds at `pointer` (copied along the path; `value`
    itself when that is the very object it holds there); None when either lacks it."""
    tokens = [t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:]]

    def put(here: Any, there: Any, rest: list[str]) -> Any:
        if not rest:
            return there
        key: Any = rest[0]
        if isinstance(here, list) and isinstance(there, list) and key.isdigit():
            key = int(key)
            if key >= len(here) or key >= len(there):
                return None
        elif not (isinstance(here, dict) and isinstance(there, dict)) or not (
            key in here and key in there
        ):
            return None
        inner = put(here[key], there[key], rest[1:])
        if inner is None or inner is here[key]:
            return None if inner is None else here
        copy = list(here) if isinstance(here, list) else dict(here)
        copy[key] = inner
        return copy

    return put(value, source, tokens)


def _write_json(document: Document, transcripts: Sequence[Transcript | None]) -> bytes:
    """Rewrite changed transcripts, splicing only their message arrays where possible."""
    body = document.raw[len(BOM) :] if document.bom else document.raw
    array = document.layout is Layout.JSON_ARRAY
    for i, (record, transcript) in enumerate(zip(document.records, transcripts, strict=True)):
        if transcript is None or record.transcript is None or transcript == record.transcript:
            continue
        if lost_by_rewrite(record, transcript, body, spliced=True) is not None:
            continue  # keep this transcript's bytes: a rewrite would drop a repeated key
        old, new = _native(record.transcript), encode_transcript(transcript)
        pointers = _message_arrays(record.transcript)
        if array:
            whole = jsonio.loads(body)
            old_whole, new_whole = list(whole), list(whole)
            old_whole[i], new_whole[i] = old, new
            old, new = old_whole, new_whole
            pointers = tuple(record.pointer + pointer for pointer in pointers)
        spliced = _splice_arrays(body, old, new, pointers, document.style) if pointers else None
        if spliced is None:
            return _rewrite_all(document, transcripts)
        body = spliced
    return body


def _rewrite_all(document: Document, transcripts: Sequence[Transcript | None]) -> bytes:
    body = document.raw[len(BOM) :] if document.bom else document.raw
    if duplicate_key(body) is not None:
        return body  # a full rewrite would drop a repeated key's first value
    if document.layout is Layout.JSON:
        new = encode_transcript(_only(transcripts))
        old = _native(document.records[0].transcript) if document.records[0].transcript else None
        return keep_spellings(jsonio.dumps(new, document.style), body, moved(old, new))
    value, before = jsonio.loads(body), jsonio.loads(body)
    for i, (record, transcript) in enumerate(zip(document.records, transcripts, strict=True)):
        if transcript is not None and transcript != record.transcript:
            value[i] = encode_transcript(transcript)
            before[i] = _native(record.transcript) if record.transcript else before[i]
    return keep_spellings(jsonio.dumps(value, document.style), body, moved(before, value))


def _only(transcripts: Sequence[Transcript | None]) -> Transcript:
    transcript = transcripts[0]
    assert transcript is not None
    return transcript


def _ending(document: Document) -> bytes:
    return b"\r\n" if b"\r\n" in document.raw else b"\n"


def _write_jsonl(document: Document, transcripts: Sequence[Transcript | None]) -> bytes:
    body = document.raw[len(BOM) :] if document.bom else document.raw
    replacements = {
        r.line: write_line(r, t) for r, t in zip(document.records, transcripts, strict=True)
    }
    out = bytearray()
    for number, line, end in split_lines(body):
        out += replacements.get(number, line) + end
    return bytes(out)


def _write_message_lines(document: Document, transcript: Transcript) -> list[Chunk]:
    """Each kept message line as read, with the blank lines before it; new and changed
    messages in the separators of the line they replace (or, for a new line, of the line
    before it), keeping the spellings, blank lines and ending of the line they replace (a
    new line keeps the spellings it shares with the line before it)."""
    body = document.raw[len(BOM) :] if document.bom else document.raw
    view = memoryview(body)
    rows, after = _message_rows(document, body)
    ending = _ending(document)
    old_values, encoded, at, paired = _placed(document, transcript)
    used = {index for index in at if index is not None} | set(paired.values())
    carried, after = _keep_blanks(body, rows, used, after)
    out: list[Chunk] = []  # joined once: a buffer and its copy would be two
    near = 0  # the line a new line is written as
    for j, value in enumerate(encoded):
        index = at[j]
        if _last_bytes(out, 1) not in (b"", b"\n"):
            out.append(ending)  # the last line as read had no ending, but is no longer last
        if index is not None:
            blank, _, _, stop = rows[near := index]
            out += (carried.get(index, b""), view[blank:stop])
        elif j in paired:
            blank, start, end, stop = rows[near := paired[j]]
            line, was = body[start:end], old_values[near]
            text = jsonio.dumps(value, jsonio.detect_style(line))
            if not _as_written(was, line):  # else its spellings are those `dumps` writes
                text = keep_spellings(text, line, moved(was, value))
            out += (carried.get(near, b""), view[blank:start], text, body[end:stop] or ending)
        else:  # a new line (a split result, a synthesized one), written as the line before
            # it; the values it shares with it at the same place (a session's envelope)
            # keep that spelling
            line = body[rows[near][1] : rows[near][2]] if rows else b""
            text = jsonio.dumps(value, jsonio.detect_style(line))
            if not rows or not _as_written(old_values[near], line):
                text = keep_spellings(text, line)
            out += (text, ending)
    out.append(after)
    if document.tail:  # a torn last line: its bytes, and what followed them, as read
        out.append(document.tail)
    elif not body.endswith(b"\n") and _last_bytes(out, len(ending)) == ending:
        _drop_ending(out, ending)
    return out


def _placed(
    document: Document, transcript: Transcript
) -> tuple[Sequence[Any], list[Any], list[int | None], dict[int, int]]:
    """The lines as read, the lines to write (a line held as text and written as read
    stands for itself unparsed: its index), where each line to write is among the lines
    as read (None for a new or changed one), and the likely original of each new or
    changed line (`splice.pairs`)."""
    encoded = encode_transcript(transcript)
    source = source_of(encoded)
    if source is None:
        old_values = [value for *_, value in document.lines]
        new = list(encoded)
        originals = {id(value): i for i, value in enumerate(old_values)}
        return old_values, new, [originals.get(id(v)) for v in new], pairs(old_values, new)
    entries = list(entries_of(encoded))
    at: list[int | None] = [e if type(e) is int else None for e in entries]
    kept = {e for e in at if e is not None}
    loose = [i for i in range(len(source)) if i not in kept]
    return source, entries, at, paired_at(source, at, entries, loose)


def _last_bytes(out: list[Chunk], size: int) -> bytes:
    """The last `size` bytes (or fewer) of the text `out` joins to."""
    found = b""
    for chunk in reversed(out):
        found = bytes(chunk[max(len(chunk) - (size - len(found)), 0) :]) + found
        if len(found) >= size:
            break
    return found


def _drop_ending(out: list[Chunk], ending: bytes) -> None:
    """Take `ending`, which the text `out` joins to ends with, off its end."""
    left = len(ending)
    while left:
        last = out.pop()
        if len(last) > left:
            out.append(last[: len(last) - left])
        left = max(left - len(last), 0)


Row = tuple[int, int, int, int]
"""A message line in the body: where the blank or broken lines before it start, where it
starts, where its text ends, and where its ending ends."""


def _keep_blanks(
    body: bytes, rows: list[Row], used: set[int], after: bytes
) -> tuple[dict[int, bytes], bytes]:
    """The blank lines before each removed message line, carried to the next line written
    (by its index) or to the lines after the last: a removed line takes only itself."""
    carried_to: dict[int, bytes] = {}
    carried = b""
    for index, (blank, start, _, _) in enumerate(rows):
        if index in used:
            if carried:
                carried_to[index] = carried
                carried = b""
        else:
            carried += body[blank:start]
    return carried_to, carried + after


def _message_rows(document: Document, body: bytes) -> tuple[list[Row], bytes]:
    """Each message line's `Row`, and the lines after the last one (up to a torn tail)."""
    rows: list[Row] = []
    previous = 0
    for start, end, _ in document.lines:
        if body.startswith(b"\r\n", end):
            stop = end + 2
        else:
            stop = end + 1 if body.startswith(b"\n", end) else end
        rows.append((previous, start, end, stop))
        previous = stop
    return rows, body[previous : len(body) - len(document.tail)]
