"""Input that could not be read as a transcript.

## What it does
Reports a file, line or document that is not JSON, is not valid UTF-8, or does not have
the shape of any supported format: a message that is not an object, a message without a
role, a tool call without an id, and so on. The diagnostic names the line (JSONL) and the
JSON Pointer of the first problem. No other rule runs on that transcript, with one
exception: a Claude Code session whose last line is torn (a write killed mid-line) is read
without that line, as Claude Code reads it, so the torn line is a warning and the rest of
the session is linted and fixed as usual; its bytes are written back unchanged.
Valid JSON that holds no transcript at all is not HN000 but skipped (unless a format was
given explicitly). So is a JSON file that does not parse when what can be read of it
before the first error is no transcript (no message list, no envelope such as
`{"messages": [`): JSONC configuration files with comments or trailing commas (a
TypeScript or ESLint configuration) are skipped, not HN000; a JSONL file is read line
by line as before.

## Why it breaks a replay
A provider cannot accept what cannot be parsed; typical responses are
`Invalid value for 'content': expected a string, got null.` or
`messages.1.content.1.tool_use.id: Field required`.

## Example
A JSONL line cut off in the middle: `{"messages": [{"role": "user", "content": "hi"`

## Fix
None: histnorm never guesses what a broken document meant. The transcript is left
exactly as it is.

## Fix safety
There is no fix.

## References
- The README's [Formats](../../README.md#formats): the shape of each supported format;
  the readers in `histnorm/formats/`.
"""

from __future__ import annotations

from histnorm.diagnostic import Severity
from histnorm.rule import Rule

RULE = Rule(
    code="HN000",
    name="unreadable-transcript",
    summary="input is not a readable transcript",
    severity=Severity.ERROR,
    applicability=None,
    doc=__doc__ or "",
    wants=0,  # reported by the reader, never by a check
    other_severities=(
        (
            Severity.WARNING,
            "for the torn last line of a session killed mid-write, which is skipped (as "
            "Claude Code skips it) and kept as it is",
        ),
    ),
)
