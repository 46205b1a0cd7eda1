"""A Claude Code session line longer than a resume loads.

## What it does
In a Claude Code session (`claude-code`), reports every line longer than
`claude_code_line_limit` bytes (default 524,288: 512 KiB). A line read from a file is
measured by the file's own bytes, without decoding anything: the document layer splits
the file into lines anyway and keeps each length; a session given as parsed lines is
measured as Claude Code writes a line (compact JSON). Such lines are nearly always one
huge tool output, stored twice: in the `tool_result` block and in `toolUseResult`.

## Why it breaks a replay
`claude --resume` hangs on such a session, with no error: "`claude --resume` hangs
indefinitely (shows "resuming" forever) when a session contains large tool outputs",
the session file holding "a 675KB line with a massive `tool_result` content"
(anthropics/claude-code#21067); "line 18 alone was ~12.8 million characters (a single
`tool_result` containing a large `git diff` output)" (anthropics/claude-code#24118);
entries "of ~1.1MB each" (anthropics/claude-code#21120). Each was resumed again after
trimming that line. No number is documented, so the limit is a setting: its default is
below the smallest line reported to hang (675 KB). Lines of about 1 MB are also seen in
sessions that load (a base64 image), so it is a warning, not an error.

## Example
A `git diff` output over the limit (here lowered to 800 bytes), kept in the
`tool_result` and in `toolUseResult`.

## Fix
None: shortening the line changes what the model was shown (the `tool_result`) or what
Claude Code shows the user (`toolUseResult`), and neither belongs to a size check. Trim
the output by hand, keeping a note of what was removed.

## Fix safety
There is no fix.

## References
- `histnorm/formats/claude_code/sizes.py`: how lines are measured.
- anthropics/claude-code#21067, anthropics/claude-code#24118, anthropics/claude-code#21120.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from histnorm.analysis.context import Context
from histnorm.analysis.outline import LONG_LINE
from histnorm.diagnostic import Diagnostic, Severity
from histnorm.errors import join_pointer
from histnorm.rule import Example, Rule
from histnorm.settings import CLAUDE_CODE_LINE_LIMIT, Settings


def check_outline(context: Context) -> Iterator[Diagnostic]:
    """Report every line over the limit. Under the default limit or a higher one, the
    outline's `LONG_LINE` says whether any line is long enough to be measured again."""
    outline = context.outline
    if outline.format != "claude-code":
        return
    limit = context.settings.claude_code_line_limit
    if limit >= CLAUDE_CODE_LINE_LIMIT and not outline.flags & LONG_LINE:
        return
    native = context.transcript.native  # NeedsModel on the fast path: decode and measure
    if not isinstance(native, list):
        return
    from histnorm.formats.claude_code.sizes import line_sizes

    for index, size in enumerate(line_sizes(native)):
        if size > limit:
            diagnostic = RULE.diagnostic(
                f"this line is {size:,} bytes, over the {limit:,} a Claude Code resume "
                "loads (claude_code_line_limit): resuming the session can hang"
            )
            yield diagnostic.at(pointer=join_pointer("", index))


def _line(kind: str, n: int, content: Any, **extra: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"role": kind, "content": content}
    if kind == "assistant":
        message = {"id": f"msg_{n:02d}", **message}
    uuid = f"4f5a6b7c-8d9e-4f0a-9b1c-2d3e4f5a6b{n:02d}"
    parent = None if n == 0 else f"4f5a6b7c-8d9e-4f0a-9b1c-2d3e4f5a6b{n - 1:02d}"
    return {"parentUuid": parent, "isSidechain": False, "sessionId": _SID, "type": kind} | {
        "message": message,
        "uuid": uuid,
        **extra,
    }


_SID = "6a7b8c9d-0e1f-4a2b-8c3d-4e5f6a7b8c9d"
_DIFF = "diff --git a/app.css b/app.css\n" + "+.x{}\n" * 40
_CALL = {"type": "tool_use", "id": "toolu_01", "name": "Bash", "input": {"command": "git diff"}}
_BAD = [
    _line("user", 0, "What changed since the release?"),
    _line("assistant", 1, [_CALL]),
    _line(
        "user",
        2,
        [{"type": "tool_result", "tool_use_id": "toolu_01", "content": _DIFF}],
        toolUseResult={"stdout": _DIFF, "stderr": "", "interrupted": False},
    ),
    _line("assistant", 3, [{"type": "text", "text": "Only app.css changed."}]),
]

RULE = Rule(
    code="HN018",
    name="oversized-session-line",
    summary="a Claude Code session line is longer than a resume loads",
    severity=Severity.WARNING,
    applicability=None,
    doc=__doc__ or "",
    check_outline=check_outline,
    examples=(
        Example(
            bad=_BAD,
            good=None,
            format="claude-code",
            settings=Settings(claude_code_line_limit=800),
            title="a git diff kept twice on one line",
        ),
    ),
)
