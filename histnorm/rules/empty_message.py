"""A message with no parts, or with only usage counts.

## What it does
Finds messages that hold nothing: no text, no calls, no results, no media, no parts of a
kind histnorm does not know. Such messages appear when a stream stored only a usage
update, or when content was removed by hand. A message whose only content is `usage`
(token counts, MEAI's `UsageContent`) is empty too: no provider is sent usage, so the
replayed message has no content. A message that holds nothing where its format keeps
content but holds something under keys the reader does not know (a Semantic Kernel
message's `items` read as OpenAI Chat) is not empty: HN013 reports it, and nothing
removes it.

## Why it breaks a replay
Anthropic: `messages.N: all messages must have non-empty content except for the optional
final assistant message`; Gemini: `contents.parts must not be empty.`; Bedrock: `The
content field in the Message object at messages.X is empty.`; OpenAI Chat Completions:
`Invalid value for 'content': expected a string, got null.`

## Example
An assistant message whose content is null and which has no tool calls.

## Fix
Remove the message. The order of the other messages is unchanged.

## Fix safety
Safe when the message carries nothing. Unsafe for a usage-only message: its token counts
go with it (MEAI itself never stores usage in messages, `histnorm/behaviours/partial.py`
R-A7, but they are data the file holds), so that removal needs `--unsafe-fixes`.

## References
- `histnorm/behaviours/partial.py` (R-A6: a message left without content is dropped) and
  `histnorm/behaviours/coalesce.py` (how streamed updates become messages).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from histnorm.analysis.outline import EMPTY, UNKNOWN
from histnorm.diagnostic import Applicability, Diagnostic, Severity
from histnorm.edit import rewrite
from histnorm.lazy import model
from histnorm.rule import Example, Rule
from histnorm.settings import Settings

if TYPE_CHECKING:
    from histnorm.model import Transcript


def check(transcript: Transcript, settings: Settings) -> Iterable[Diagnostic]:
    """Report every message without parts, or with only usage parts; a message whose
    content lies where its reader does not look is unknown content (HN013), not empty."""
    from histnorm.formats import outline_of

    steps = outline_of(transcript).messages
    for mi, message in enumerate(transcript.messages):
        if steps[mi].flags & UNKNOWN:
            continue
        if not message.parts:
            yield RULE.diagnostic(
                f"{message.role} message has no content",
                message_index=mi,
                fix_title="remove the empty message",
            )
        elif all(isinstance(part, model.UsagePart) for part in message.parts):
            yield RULE.diagnostic(
                f"{message.role} message holds only usage (token counts), no content",
                message_index=mi,
                fix_title="remove the message and its usage counts",
                applicability=Applicability.UNSAFE,
            )


def fix(
    transcript: Transcript, diagnostics: Sequence[Diagnostic], settings: Settings
) -> Transcript:
    """Remove the empty messages."""
    return rewrite(transcript, drop_messages=[d.location.message_index or 0 for d in diagnostics])


_BAD = [
    {"role": "user", "content": "hi"},
    {"role": "assistant", "content": None},
    {"role": "assistant", "content": "Hello!"},
]
_MEAI_BAD = [
    {"role": "user", "contents": [{"$type": "text", "text": "hi"}]},
    {"role": "assistant", "messageId": "r1", "contents": []},
]
_MEAI_USAGE = [
    _MEAI_BAD[0],
    {
        "role": "assistant",
        "messageId": "r1",
        "contents": [{"$type": "usage", "details": {"inputTokenCount": 10}}],
    },
]

RULE = Rule(
    code="HN005",
    name="empty-message",
    summary="a message has no content",
    severity=Severity.ERROR,
    applicability=Applicability.SAFE,
    doc=__doc__ or "",
    check=check,
    wants=EMPTY,
    fix=fix,
    examples=(
        Example(bad=_BAD, good=[_BAD[0], _BAD[2]], title="a null assistant message"),
        Example(
            bad=_MEAI_BAD,
            good=_MEAI_BAD[:1],
            format="meai",
            title="a message left by a usage-only update",
        ),
        Example(
            bad=_MEAI_USAGE,
            good=_MEAI_USAGE[:1],
            format="meai",
            settings=Settings(unsafe_fixes=True),
            title="a message holding only a usage update (removed with unsafe fixes)",
        ),
    ),
)
