"""A Claude Code session line whose parent is not in the file.

## What it does
In a Claude Code session (`claude-code`), lines form a tree through `parentUuid`, and the
conversation is read from the newest leaf back along those links. Reports the line where
that walk stops because its `parentUuid` names a uuid no line of the file has, while
earlier message lines of the file are left behind: a line was removed (by hand, by a
tool, or lost to a broken line), and everything before the gap has dropped out of the
conversation. Shapes Claude Code writes itself are not reported: a file that continues
another session (its first line names a line of the other file), a compacted session
(the `compact_boundary` line has a null `parentUuid` and a `logicalParentUuid`), and
`summary` lines whose `leafUuid` names another conversation (they are not links).

## Why it breaks a replay
Claude Code resumes the session from that line on, so the model no longer sees the
earlier turns; a tool result after the gap whose call came before it is then sent
without its call: `messages.N.content.M: unexpected tool_use_id found in tool_result
blocks: toolu_…. Each tool_result block must have a corresponding tool_use block in the
previous message.` (reported on its own as HN002).

## Example
The line a reply named as its parent was deleted from the middle of the file.

## Fix
None: which line the link should name cannot be known from the file. Restore the
missing line, or point `parentUuid` at the line that came before it.

## Fix safety
There is no fix.

## References
- The README's [Claude Code sessions](../../README.md#claude-code-sessions) and
  `histnorm/formats/claude_code/tree.py`: the `parentUuid` tree, continued and
  compacted sessions.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from histnorm.analysis.outline import BROKEN_CHAIN
from histnorm.diagnostic import Diagnostic, Severity
from histnorm.rule import Example, Rule
from histnorm.settings import Settings

if TYPE_CHECKING:
    from histnorm.model import Transcript


def check(transcript: Transcript, settings: Settings) -> Iterable[Diagnostic]:
    """Report the line where the branch stops at a parent the file does not hold."""
    if transcript.format != "claude-code" or not isinstance(transcript.native, list):
        return
    from histnorm.formats.claude_code import session_of
    from histnorm.formats.claude_code.tree import missing_parent

    found = missing_parent(session_of(transcript))
    if found is None:
        return
    _, parent, earlier = found
    lines = "line of the file is" if earlier == 1 else "lines of the file are"
    yield RULE.diagnostic(
        f"parentUuid {parent!r} names no line of this file: Claude Code reads the "
        f"conversation from here on, so the {earlier} earlier {lines} not part of it",
        message_index=0 if transcript.messages else None,
    )


def _line(kind: str, uuid: str, parent: str | None, content: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"role": kind, "content": content}
    if kind == "assistant":
        message = {"id": f"msg_{uuid}", **message}
    return {"parentUuid": parent, "isSidechain": False, "sessionId": _SID, "type": kind} | {
        "message": message,
        "uuid": uuid,
    }


_SID = "3f6b2d1e-8a4c-4e7b-9d2f-5c1a0b8e7d6f"
_U = [f"6a1e4f0c-2b3d-4c5e-8f7a-9b0c1d2e3f{n:02d}" for n in range(5)]
_BAD = [
    _line("user", _U[0], None, "Rename the config loader."),
    _line("assistant", _U[1], _U[0], [{"type": "text", "text": "Renamed to load_settings."}]),
    # the line _U[2] was deleted: the next one still names it
    _line("user", _U[3], _U[2], "Now update the callers."),
    _line("assistant", _U[4], _U[3], [{"type": "text", "text": "Updated 3 callers."}]),
]

RULE = Rule(
    code="HN014",
    name="missing-parent",
    summary="a Claude Code line names a parent that is not in the file",
    severity=Severity.WARNING,
    applicability=None,
    doc=__doc__ or "",
    check=check,
    wants=BROKEN_CHAIN,
    examples=(Example(bad=_BAD, good=None, format="claude-code", title="a line deleted by hand"),),
)
