"""The text that ends a history sent as it is ends with whitespace.

## What it does
With `tail = "close"` (the history is the request about to be sent), under profiles
whose target rejects it (`anthropic`, `bedrock-converse`, `portable`), reports a final
assistant message (system messages aside) whose last part is text ending with spaces,
tabs or newlines. Such a message is a prefill the model continues, and streamed answers
often end with a newline. Whitespace-only text is HN004's. With `tail = "keep"` (the
default) nothing is reported: the next request adds the user's message, and the answer
is no longer final.

## Why it breaks a replay
Anthropic: `messages: final assistant content cannot end with trailing whitespace`
(tailcallhq/forgecode#1872, anomalyco/opencode#1295); Bedrock, which carries Claude:
`ValidationException: … messages: final assistant content cannot end with trailing
whitespace` (langchain-ai/langchain-aws#599).

## Example
An interrupted answer that streamed a newline last, sent as a prefill.

## Fix
Strip the trailing whitespace of that one text part; no other text is touched.

## Fix safety
Safe: only invisible characters at the very end of the final message go, which the
target rejects in that place anyway; whitespace inside the text, and every earlier
message (where it is accepted), stay as they are. The continuation the model writes
starts where the visible text ends, as LangChain's and goose's Bedrock and Anthropic
clients do it.

## References
- `histnorm/profile_evidence.py`: the evidence of each profile's `final_text_trimmed`,
  listed below by profile.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from histnorm.analysis.context import Context
from histnorm.diagnostic import Applicability, Diagnostic, Severity
from histnorm.edit import rewrite
from histnorm.lazy import model
from histnorm.rule import Example, Rule
from histnorm.rules._common import part_at, reported
from histnorm.rules.ends_on_assistant import final_answer
from histnorm.settings import Settings, TailMode

if TYPE_CHECKING:
    from histnorm.model import Transcript

_MESSAGE_LISTS = ("messages", "input", "contents")


def _may_end_in_whitespace(context: Context, index: int) -> bool:
    """Whether a string of native message `index` may end in whitespace (True when the
    native message list cannot be lined up with the outline's messages)."""
    native = context.native
    found = next(
        (native[k] for k in _MESSAGE_LISTS if isinstance(native, dict) and k in native), None
    )
    if not isinstance(found, list) or len(found) != len(context.outline.messages):
        return True
    pending: list[object] = [found[index]]
    while pending:
        value = pending.pop()
        if isinstance(value, str):
            if value != value.rstrip():
                return True
        elif isinstance(value, dict):
            pending.extend(value.values())
        elif isinstance(value, list):
            pending.extend(value)
    return False


def check(context: Context) -> Iterable[Diagnostic]:
    """Report trailing whitespace at the end of a final assistant message."""
    mi = final_answer(context)
    if mi is None:
        return
    parts = context.outline.messages[mi].parts
    if not parts or parts[-1].kind != "text":
        return
    pi = len(parts) - 1
    if context.decoded is None and not _may_end_in_whitespace(context, mi):
        return  # the fast path: no string of that native message ends in whitespace
    part = context.transcript.messages[mi].parts[pi]  # only here: needs the text
    if not isinstance(part, model.TextPart):
        return
    text = part.text
    if text.strip() and text != text.rstrip():
        yield RULE.diagnostic(
            f"the final assistant text ends with {len(text) - len(text.rstrip())} "
            "whitespace character(s)",
            message_index=mi,
            part_index=pi,
            fix_title="strip the trailing whitespace",
        )


def fix(
    transcript: Transcript, diagnostics: Sequence[Diagnostic], settings: Settings
) -> Transcript:
    """Strip the trailing whitespace of each reported text part."""
    replace = {}
    for position in reported(diagnostics):
        part = part_at(transcript, position)
        assert isinstance(part, model.TextPart)
        replace[position] = (part.evolve(text=part.text.rstrip()),)
    return rewrite(transcript, replace=replace)


_BAD: Any = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 1024,
    "messages": [
        {"role": "user", "content": "Write a haiku about rain."},
        {"role": "assistant", "content": [{"type": "text", "text": "Soft rain on the roof\n"}]},
    ],
}

RULE = Rule(
    code="HN122",
    name="trailing-whitespace-at-end",
    summary="the final assistant text of a history sent as it is ends with whitespace "
    "(tail=close; profiles: anthropic, anthropic-thinking, bedrock-converse, portable)",
    severity=Severity.ERROR,
    applicability=Applicability.SAFE,
    doc=__doc__ or "",
    check_outline=check,
    applies=lambda profile: profile.final_text_trimmed,
    fix=fix,
    examples=(
        Example(
            bad=_BAD,
            good={
                **_BAD,
                "messages": [
                    _BAD["messages"][0],
                    {
                        "role": "assistant",
                        "content": [{"type": "text", "text": "Soft rain on the roof"}],
                    },
                ],
            },
            format="anthropic",
            settings=Settings(tail=TailMode.CLOSE),
            title="a prefill that ends with a newline",
        ),
    ),
)
