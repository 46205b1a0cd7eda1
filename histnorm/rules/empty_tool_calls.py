"""An assistant message carries an empty `tool_calls` array.

## What it does
Under profiles whose target renders a chat template (`vllm`, `portable`), finds messages
whose native value holds `"tool_calls": []`: what an OpenAI-compatible server or SDK
writes on a plain answer, and agents store and send back as they got it. The array holds
no call, so histnorm reads the message as it would without it; a template that tests for
the key, not for calls, does not.

## Why it breaks a replay
The Llama 3.1 and 3.2 tool templates assert one call per message that has `tool_calls`:
with `tool_calls: []` in an earlier assistant message the template throws and vLLM
rejects the request (vllm-project/vllm#13978, vllm-project/vllm#12937). vLLM has stripped
empty arrays from incoming messages since vllm-project/vllm#14054 and
vllm-project/vllm#30648, so servers of those versions accept it; a fine-tuning pipeline
that calls the template itself does not have that guard. It is reported as a warning.

## Example
A plain answer stored with the empty array a server put on it.

## Fix
Remove the empty `tool_calls` key from the message.

## Fix safety
Safe: the array holds nothing, every reader histnorm knows takes the message the same
way without it, and no other key or value of the message changes.

## References
- `histnorm/profile_evidence.py`: the evidence of each profile's `no_empty_tool_calls`,
  listed below by profile.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from histnorm.analysis.context import Context
from histnorm.diagnostic import Applicability, Diagnostic, Severity
from histnorm.rule import Example, Rule
from histnorm.settings import Settings

if TYPE_CHECKING:
    from histnorm.model import Message, Transcript

KEY = "tool_calls"


def _has_empty_calls(message: Message) -> bool:
    native = message.native
    return type(native) is dict and KEY in native and native[KEY] == []


def check(context: Context) -> Iterable[Diagnostic]:
    """Report every message holding an empty `tool_calls` array."""
    if not any(m.role_is("assistant") for m in context.outline.messages):
        return
    for mi, message in enumerate(context.transcript.messages):  # the key is native only
        if _has_empty_calls(message):
            yield RULE.diagnostic(
                f"{message.role} message holds an empty tool_calls array, which "
                f"{context.profile.name} templates may reject",
                message_index=mi,
                fix_title="remove the empty tool_calls key",
            )


def fix(
    transcript: Transcript, diagnostics: Sequence[Diagnostic], settings: Settings
) -> Transcript:
    """Drop the empty `tool_calls` key of each reported message, keeping all else."""
    at = {d.location.message_index for d in diagnostics}
    messages = []
    for mi, message in enumerate(transcript.messages):
        if mi in at and _has_empty_calls(message):
            native = {k: v for k, v in message.native.items() if k != KEY}
            message = message.evolve(native=native)
        messages.append(message)
    result: Transcript = transcript.evolve(messages=tuple(messages))
    return result


_BAD: Any = [
    {"role": "user", "content": "Hi"},
    {"role": "assistant", "content": "Hello! How can I help?", "tool_calls": []},
    {"role": "user", "content": "What is the weather in Oslo?"},
]

RULE = Rule(
    code="HN110",
    name="empty-tool-calls",
    summary="an assistant message carries an empty tool_calls array (profiles: vllm, portable)",
    severity=Severity.WARNING,
    applicability=Applicability.SAFE,
    doc=__doc__ or "",
    check_outline=check,
    applies=lambda profile: profile.no_empty_tool_calls,
    fix=fix,
    examples=(
        Example(
            bad=_BAD,
            good=[
                _BAD[0],
                {"role": "assistant", "content": "Hello! How can I help?"},
                _BAD[2],
            ],
            format="chat-template",
            settings=Settings(profile="vllm"),
            title="a plain answer stored with an empty tool_calls array",
        ),
    ),
)
