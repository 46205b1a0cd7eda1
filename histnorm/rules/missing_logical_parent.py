"""A Claude Code compaction boundary whose logical parent is not in the file.

## What it does
In a Claude Code session (`claude-code`), `/compact` (or auto-compaction) writes a
`compact_boundary` system line whose `parentUuid` is null and whose `logicalParentUuid`
names the last line before the compaction: the stitch Claude Code follows back across the
boundary to the earlier history (and to the segment a partial compaction keeps). Reports
the line whose `logicalParentUuid` names a uuid no line of the file has, while earlier
message lines of the file are left behind: the stitch dangles, and everything before the
boundary has dropped out of the session. When the boundary's
`compactMetadata.preservedSegment.tailUuid` names a line of the file, the message says
which. Not reported: a boundary that opens the file (the session continues another file,
whose line the stitch names), and a stitch that names a line later in the file.

## Why it breaks a replay
Claude Code's chain walker stops at the boundary and resumes the session without the
history before it, silently: "When the chain walker hits a `compact_boundary` whose
`logicalParentUuid` doesn't resolve (...), the session silently truncates at the boundary
with no UI feedback. The walker just stops; the user sees a partial chain"
(anthropics/claude-code#55818). In anthropics/claude-code#46603 one such stitch left
"1325 of 1561 conversation rows orphaned" of a 3069-line session, its
`preservedSegment.tailUuid` resolving where its `logicalParentUuid` did not. No provider
error is raised, so it is a warning.

## Example
The stitch names a uuid that was never written to the file.

## Fix
None: which line the stitch should name cannot be known from the file. The
`preservedSegment.tailUuid`, when it resolves, is a candidate (in healthy stitches the
two are equal, anthropics/claude-code#46603), but not a certain one; removing the stitch
would only hide the gap. Point `logicalParentUuid` at the last line before the boundary
by hand if that is what the session held.

## Fix safety
There is no fix.

## References
- `histnorm/formats/claude_code/tree.py`: `dangling_stitches`; the README's
  [Claude Code sessions](../../README.md#claude-code-sessions).
- anthropics/claude-code#46603, anthropics/claude-code#55818 (dangling stitches);
  antiburn/antiburn#385 (a boundary whose logical parent is in another file is normal).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from histnorm.analysis.outline import BROKEN_CHAIN
from histnorm.diagnostic import Diagnostic, Severity
from histnorm.errors import join_pointer
from histnorm.rule import Example, Rule
from histnorm.settings import Settings

if TYPE_CHECKING:
    from histnorm.model import Transcript


def _tail(line: dict[str, Any]) -> Any:
    metadata = line.get("compactMetadata")
    segment = metadata.get("preservedSegment") if isinstance(metadata, dict) else None
    return segment.get("tailUuid") if isinstance(segment, dict) else None


def check(transcript: Transcript, settings: Settings) -> Iterable[Diagnostic]:
    """Report every compaction stitch that names no line of the file."""
    if transcript.format != "claude-code" or not isinstance(transcript.native, list):
        return
    from histnorm.formats.claude_code.tree import check_lines, dangling_stitches, uuid_of

    lines = check_lines(transcript.native)
    at = {uuid_of(line): index for index, line in enumerate(lines)}
    for index, target, earlier in dangling_stitches(lines):
        many = "line of the file is" if earlier == 1 else "lines of the file are"
        message = (
            f"logicalParentUuid {target!r} names no line of this file: Claude Code stops "
            f"at this compaction boundary, so the {earlier} earlier message {many} not "
            "part of the resumed session"
        )
        tail = _tail(lines[index])
        if isinstance(tail, str) and tail in at:
            message += f" (its preservedSegment.tailUuid {tail!r} is line {at[tail] + 1})"
        diagnostic = RULE.diagnostic(message)
        yield diagnostic.at(pointer=join_pointer("", index, "logicalParentUuid"))


_SID = "2c4e6a8b-0d1f-4a3b-8c5d-7e9f1a2b3c4d"
_U = [f"9d1e2f3a-4b5c-4d6e-8f7a-0b1c2d3e4f{n:02d}" for n in range(6)]


def _line(kind: str, n: int, parent: int | None, content: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"role": kind, "content": content}
    if kind == "assistant":
        message = {"id": f"msg_{n:02d}", **message}
    return {
        "parentUuid": None if parent is None else _U[parent],
        "isSidechain": False,
        "sessionId": _SID,
        "type": kind,
        "message": message,
        "uuid": _U[n],
    }


_BAD = [
    _line("user", 0, None, "Split the importer into two modules."),
    _line("assistant", 1, 0, [{"type": "text", "text": "Split into read.py and map.py."}]),
    {
        "parentUuid": None,
        "logicalParentUuid": "9d1e2f3a-4b5c-4d6e-8f7a-0b1c2d3e4f99",  # never written
        "isSidechain": False,
        "sessionId": _SID,
        "type": "system",
        "subtype": "compact_boundary",
        "content": "Conversation compacted",
        "compactMetadata": {"trigger": "auto", "preTokens": 167000},
        "uuid": _U[2],
    },
    _line("user", 3, 2, "This session is being continued from a previous conversation."),
    _line("assistant", 4, 3, [{"type": "text", "text": "Continuing with the tests."}]),
]

RULE = Rule(
    code="HN017",
    name="missing-logical-parent",
    summary="a Claude Code compaction boundary names a logical parent that is not in the file",
    severity=Severity.WARNING,
    applicability=None,
    doc=__doc__ or "",
    check=check,
    wants=BROKEN_CHAIN,
    examples=(Example(bad=_BAD, good=None, format="claude-code", title="a stitch never written"),),
)
