"""What `fix --diff` prints: unified diffs a reviewer can read.

Lines are matched without difflib's autojunk heuristic, which takes the frequent lines
of a large transcript (`"role": "user",`, `},`) for junk and then prints most of the
file for a change of a few lines. A file whose records sit one per line (JSONL, or JSON
on one line) shows each changed record pretty-printed before and after, under a header
naming its line and the rules that changed it (`@@ line 12: HN001, HN103 @@`): display
only, what `fix` writes is not changed by it.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence

import histnorm.jsonio as jsonio
from histnorm.diagnostic import Diagnostic
from histnorm.document import DocumentResult, Layout
from histnorm.errors import HistnormError

BOM = b"\xef\xbb\xbf"
CONTEXT = 3
PRETTY = jsonio.Style(indent=2, key_separator=": ")
Hunk = tuple[int, bytes, bytes, bytes, tuple[str, ...]]
"""A changed line of JSONL: its number, old and new content, ending, and the rules that
changed it."""


def _lines(data: bytes) -> list[str]:
    return data.decode("utf-8", "replace").splitlines(keepends=True)


def unified(path: str, before: Sequence[str], after: Sequence[str]) -> str:
    """The unified diff of two lists of lines (each with its ending), as `diff -u`
    prints it, with the end-of-file marker where a last line has no ending."""
    out = []
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    for group in matcher.get_grouped_opcodes(CONTEXT):
        first, last = group[0], group[-1]
        old = _range(first[1], last[2])
        new = _range(first[3], last[4])
        out.append(f"@@ -{old} +{new} @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out.extend(" " + line for line in before[i1:i2])
                continue
            out.extend("-" + line for line in before[i1:i2])
            out.extend("+" + line for line in after[j1:j2])
    if not out:
        return ""
    body = "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in out
    )
    return f"--- {path}\n+++ {path}\n" + body


def _range(start: int, stop: int) -> str:
    """A unified diff's `start,length` (1-based; the line before an empty range)."""
    length = stop - start
    begin = start + 1 if length else start
    return str(begin) if length == 1 else f"{begin},{length}"


def pretty(line: bytes) -> list[str]:
    """A record's line pretty-printed (two-space indent), or as it is when it is no JSON."""
    body = line.removeprefix(BOM).strip()
    if not body:
        return []
    try:
        text = jsonio.dumps(jsonio.loads(body), PRETTY)
    except (HistnormError, ValueError, TypeError):
        text = body
    return _lines(text.rstrip(b"\n") + b"\n")


def record_diff(header: str, before: list[bytes], after: list[bytes]) -> list[str]:
    """The lines of the diff of changed records, each side pretty-printed, under
    `header` (repeated over each group of changes in it)."""
    old = [line for raw in before for line in pretty(raw)]
    new = [line for raw in after for line in pretty(raw)]
    out = []
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for group in matcher.get_grouped_opcodes(CONTEXT):
        out.append(header)
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out.extend(" " + line for line in old[i1:i2])
                continue
            out.extend("-" + line for line in old[i1:i2])
            out.extend("+" + line for line in new[j1:j2])
    return out


def _header(where: str, codes: Iterable[str]) -> str:
    listed = ", ".join(sorted(set(codes)))
    return f"@@ {where}: {listed} @@\n" if listed else f"@@ {where} @@\n"


def render_hunks(path: str, hunks: Iterable[Hunk]) -> str:
    """The diff of the changed lines of transcript-per-line JSONL, each record
    pretty-printed under the header of its line and rules."""
    out = []
    for number, old, new, _, codes in hunks:
        out += record_diff(_header(f"line {number}", codes), [old], [new])
    return f"--- {path}\n+++ {path}\n" + "".join(out) if out else ""


def by_record(result: DocumentResult, old: bytes) -> bool:
    """Whether a document's diff is shown record by record: JSONL, or JSON on one line."""
    if result.layout in (Layout.JSONL, Layout.JSONL_MESSAGES):
        return True
    return b"\n" not in old.strip()


def document_diff(path: str, old: bytes, new: bytes, result: DocumentResult) -> str:
    """The diff of a whole document: a unified diff of its lines, or of its changed
    records pretty-printed (`by_record`)."""
    before, after = _lines(old), _lines(new)
    if not by_record(result, old):
        return unified(path, before, after)
    fixes = result.fixes
    out = []
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if i1 == i2:
            where = f"after line {i1}" if i1 else "before line 1"
        else:
            where = f"line {i1 + 1}" if i2 == i1 + 1 else f"lines {i1 + 1}-{i2}"
        codes = _codes(fixes, i1 + 1, max(i2, i1 + 1)) or [d.code for d in fixes]
        old_records = [line.encode("utf-8") for line in before[i1:i2]]
        new_records = [line.encode("utf-8") for line in after[j1:j2]]
        out += record_diff(_header(where, codes), old_records, new_records)
    return f"--- {path}\n+++ {path}\n" + "".join(out) if out else ""


def _codes(fixes: Sequence[Diagnostic], first: int, last: int) -> list[str]:
    """The rules of the fixes made at lines `first` to `last` of the document as read."""
    return [
        d.code for d in fixes if d.location.line is not None and first <= d.location.line <= last
    ]
