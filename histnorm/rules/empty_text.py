"""An empty or whitespace-only text part.

## What it does
Finds text parts whose text is empty, or (by default, setting `whitespace-is-empty`) only
whitespace, where the profile's target rejects them (its `empty_text` constraint):
everywhere under `bedrock-converse`, `vertex`, `meai` and `portable`; under `anthropic`
every empty one, but a whitespace-only one only where it stands alone in its message (no
other content beside it) or is the final content of the request (Anthropic answered 200
to `" "` before a `tool_use`); under `gemini` only in a message that also holds a tool
result. `openai-chat` and `openai-responses`
accept empty text (OpenAI answered 200 to `{"role": "assistant", "content": ""}`), so
nothing is reported there. Tool results are never reported, however empty: removing one
would orphan its call. The text of other parts is never trimmed.

## Why it breaks a replay
Anthropic: `messages: text content blocks must be non-empty` and, for a message whose
only text is whitespace, `messages: text content blocks must contain non-whitespace text`;
Vertex AI: `Unable to submit request because it has an empty text parameter.`; Bedrock:
`The text field in the ContentBlock object at messages.N.content.0 is blank.`; Gemini:
`required oneof field 'data' must have one initialized field` for a blank text part beside
a function response. Streams cut off
by a cancellation often leave such fragments, and the Agent Framework sanitizer removes
them before storing a turn.

## Example
An assistant message that streamed only a newline before its tool call.

## Fix
Remove the text part, and the message if nothing else is left in it. Never pad it with a
space: that does not help on Bedrock and is still whitespace-only.

## Fix safety
Safe: an empty text part carries nothing.

## References
- `histnorm/behaviours/partial.py` (`sanitize_partial_response`, R-A4): empty text is
  removed before a turn is stored.
- `histnorm/profile_evidence.py`: the evidence of each profile's `empty_text`, listed
  below by profile.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from histnorm.analysis.outline import EMPTY_TEXT
from histnorm.diagnostic import Applicability, Diagnostic, Severity
from histnorm.lazy import model
from histnorm.rule import Example, Rule
from histnorm.rules._common import profile, remove_reported
from histnorm.settings import Settings

if TYPE_CHECKING:
    from histnorm.model import Message, Transcript


def is_empty(text: str, settings: Settings) -> bool:
    """Whether `text` counts as empty under `settings`."""
    return not text or (settings.whitespace_is_empty and not text.strip())


def _concerned(message: Message, rejected: str) -> bool:
    if rejected == "beside-result":
        return any(isinstance(p, model.ToolResultPart) for p in message.parts)
    return rejected in ("rejected", "lone-blank")


def _blank_accepted(message: Message, part_index: int, last: bool, settings: Settings) -> bool:
    """Whether a whitespace-only part is one `lone-blank` accepts: beside other content
    of its message, and not the final content of the request."""
    if last and part_index == len(message.parts) - 1:
        return False
    return any(
        not (isinstance(p, model.TextPart) and is_empty(p.text, settings)) for p in message.parts
    )


def check(transcript: Transcript, settings: Settings) -> Iterable[Diagnostic]:
    """Report every empty text part the target rejects."""
    rejected = profile(transcript, settings).empty_text
    if rejected == "accepted":
        return
    final = len(transcript.messages) - 1
    for mi, message in enumerate(transcript.messages):
        if not _concerned(message, rejected):
            continue
        for pi, part in enumerate(message.parts):
            if isinstance(part, model.TextPart) and is_empty(part.text, settings):
                if (
                    part.text
                    and rejected == "lone-blank"
                    and _blank_accepted(message, pi, mi == final, settings)
                ):
                    continue
                what = "empty" if not part.text else "whitespace-only"
                yield RULE.diagnostic(
                    f"{what} text part in the {message.role} message",
                    message_index=mi,
                    part_index=pi,
                    fix_title="remove the empty text",
                )


_CALL = {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
_BAD = [
    {"role": "user", "content": "List the files."},
    {"role": "assistant", "content": "", "tool_calls": [_CALL]},
    {"role": "tool", "tool_call_id": "c1", "content": "a.txt"},
    {
        "role": "assistant",
        "content": [{"type": "text", "text": ""}, {"type": "text", "text": "One file: a.txt"}],
    },
]
_MEAI_BAD = [
    {"role": "user", "contents": [{"$type": "text", "text": "hi"}]},
    {"role": "assistant", "messageId": "r1", "contents": [{"$type": "text", "text": "\n  "}]},
]

RULE = Rule(
    code="HN004",
    name="empty-text",
    summary="a text part is empty or whitespace-only",
    severity=Severity.ERROR,
    applicability=Applicability.SAFE,
    doc=__doc__ or "",
    check=check,
    wants=EMPTY_TEXT,
    fix=remove_reported,
    examples=(
        Example(
            bad=_BAD,
            good=[
                _BAD[0],
                {"role": "assistant", "content": None, "tool_calls": [_CALL]},
                _BAD[2],
                {"role": "assistant", "content": [{"type": "text", "text": "One file: a.txt"}]},
            ],
            settings=Settings(profile="anthropic"),
            title="empty fragments are removed before a replay to Anthropic",
        ),
        Example(
            bad=_MEAI_BAD,
            good=_MEAI_BAD[:1],
            format="meai",
            title="a whitespace-only partial message disappears",
        ),
    ),
)
