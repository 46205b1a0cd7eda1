"""Reasoning replayed to a target that rejects reasoning fields.

## What it does
Under profiles whose target rejects reasoning in the messages it is sent (`groq`,
`portable`), finds every reasoning part (the `rejects_reasoning` constraint), and in
OpenAI Chat messages the `reasoning_content` and `reasoning` keys (which the
`openai-chat` codec keeps on the message). Clients that echo reasoning for DeepSeek or
OpenRouter store it this way, then replay the same history to Groq. `reasoning_content`
is an error; the `reasoning` key is a warning, since Groq rejects it only for models
without reasoning.

## Why it breaks a replay
Groq: `'messages.1' : for 'role:assistant' the following must be satisfied[('messages.1'
: property 'reasoning_content' is unsupported)]`, and for models without reasoning
`property 'reasoning' is unsupported`. Groq does accept reasoning kept as `<think>`
text in `content` (a recorded 200), which this rule never reports.

## Example
A DeepSeek-style `reasoning_content` replayed to Groq.

## Fix
Remove the reasoning key from the message, or the reasoning part.

## Fix safety
Unsafe: the reasoning text is removed from the stored history, though the target
rejects any request that carries it. Apply it to the copy sent to this target.

## References
- `histnorm/profile_evidence.py`: the evidence of `rejects_reasoning`, listed below by
  profile.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from histnorm.analysis.context import Context
from histnorm.diagnostic import Applicability, Diagnostic, Severity
from histnorm.edit import rewrite
from histnorm.rule import Example, Rule
from histnorm.rules._common import reported
from histnorm.rules._reasoning import chat_reasoning_keys, keeps_keys
from histnorm.settings import Settings

if TYPE_CHECKING:
    from histnorm.model import Message, Transcript

_FIX = "remove the reasoning"


def check(context: Context) -> Iterable[Diagnostic]:
    """Report reasoning parts and reasoning keys the target rejects."""
    outline = context.outline
    name = context.profile.name
    for mi, step in enumerate(outline.messages):
        for pi, part in enumerate(step.parts):
            if part.kind == "reasoning":
                yield RULE.diagnostic(
                    f"{name} rejects reasoning in the messages it is sent",
                    message_index=mi,
                    part_index=pi,
                    fix_title=_FIX,
                )
        if keeps_keys(outline):
            for key in chat_reasoning_keys(context.transcript.messages[mi]):
                yield RULE.diagnostic(
                    f"{name} rejects the message key {key!r}",
                    message_index=mi,
                    fix_title=_FIX,
                    severity=Severity.ERROR if key == "reasoning_content" else Severity.WARNING,
                    data=key,
                )


def _without_keys(message: Message, keys: set[str]) -> Message:
    native: Any = message.native
    kept = {k: v for k, v in native.items() if k not in keys}
    evolved: Message = message.evolve(native=kept)
    return evolved


def fix(
    transcript: Transcript, diagnostics: Sequence[Diagnostic], settings: Settings
) -> Transcript:
    """Remove each reported reasoning part and reasoning key."""
    keys: dict[int, set[str]] = {}
    for d in diagnostics:
        if d.location.part_index is None and isinstance(d.data, str):
            keys.setdefault(d.location.message_index or 0, set()).add(d.data)
    if keys:
        messages = [
            _without_keys(m, keys[i]) if i in keys else m for i, m in enumerate(transcript.messages)
        ]
        transcript = transcript.evolve(messages=tuple(messages))
    parts = [d for d in diagnostics if d.location.part_index is not None]
    return rewrite(transcript, remove=reported(parts)) if parts else transcript


_CALL: Any = {"id": "call_1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
_TURN: Any = {"role": "assistant", "content": None, "tool_calls": [_CALL]}


def _history(turn: Any) -> Any:
    return [
        {"role": "user", "content": "list the files"},
        turn,
        {"role": "tool", "tool_call_id": "call_1", "content": "a.txt"},
    ]


RULE = Rule(
    code="HN117",
    name="reasoning-rejected",
    summary="the target rejects reasoning fields in the messages it is sent (profiles: "
    "groq, portable)",
    severity=Severity.ERROR,
    applicability=Applicability.UNSAFE,
    doc=__doc__ or "",
    check_outline=check,
    applies=lambda profile: profile.rejects_reasoning,
    fix=fix,
    other_severities=((Severity.WARNING, "for the `reasoning` key of an OpenAI Chat message"),),
    examples=(
        Example(
            bad=_history({**_TURN, "reasoning_content": "List them."}),
            good=_history(_TURN),
            settings=Settings(profile="groq", unsafe_fixes=True),
            title="a DeepSeek reasoning_content replayed to Groq",
        ),
    ),
)
