"""A signed thinking block made by another model than the one the session continues with.

## What it does
Under profiles whose target binds thinking signatures to the model that made them
(`anthropic-thinking`, `portable`), finds, in Claude
Code sessions (whose lines record `message.model`), the signed thinking and
redacted-thinking blocks of assistant turns by a model other than the session's latest
one (the model of its last assistant line; `<synthetic>` lines are not a model). A
`/model` switch mid-session leaves such blocks behind, and so does a session resumed
through a proxy to another provider. Under `portable`, HN117 already reports every
reasoning block, so this rule stays silent there. The profile constraint is
`model_bound_thinking`.

## Why it breaks a replay
Anthropic: `messages.19.content.0: Invalid `signature` in `thinking` block`. The new
model cannot verify the old model's signature, and every later request of the session
fails.

## Example
A session that thought on one model and was switched to another.

## Fix
Remove the foreign thinking blocks (a turn left without parts is removed too).

## Fix safety
Unsafe: it removes the old model's reasoning from the history. The target ignores
thinking of earlier turns anyway, but one that opens the current tool loop cannot be
replaced (HN116 then reports the turn).

## References
- `histnorm/profile_evidence.py`: the evidence of `model_bound_thinking`, listed below
  by profile.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from histnorm.analysis.context import Context
from histnorm.diagnostic import Applicability, Diagnostic, Severity
from histnorm.rule import Example, Rule
from histnorm.rules._common import remove_reported
from histnorm.rules._reasoning import has_reasoning
from histnorm.settings import Settings

if TYPE_CHECKING:
    from histnorm.model import Message

_NOT_A_MODEL = "<synthetic>"


def model_of(message: Message) -> str | None:
    """The `message.model` of a Claude Code message's first line, or None."""
    line: Any = message.native
    inner = line.get("message") if isinstance(line, dict) else None
    model = inner.get("model") if isinstance(inner, dict) else None
    return model if isinstance(model, str) and model and model != _NOT_A_MODEL else None


def check(context: Context) -> Iterable[Diagnostic]:
    """Report signed thinking blocks of turns by another model than the latest one."""
    outline = context.outline
    if outline.format != "claude-code" or not any(has_reasoning(s) for s in outline.messages):
        return
    from histnorm.model import ReasoningPart  # the model is built: a reasoning part is there

    messages = context.transcript.messages
    models = [model_of(m) if m.role_is("assistant") else None for m in messages]
    latest = next((model for model in reversed(models) if model is not None), None)
    for mi, message in enumerate(messages):
        model = models[mi]
        if model is None or model == latest:
            continue
        for pi, part in enumerate(message.parts):
            if isinstance(part, ReasoningPart) and part.opaque:
                yield RULE.diagnostic(
                    f"a thinking block signed by {model} is replayed to {latest}, which "
                    "cannot verify its signature",
                    message_index=mi,
                    part_index=pi,
                    fix_title="remove the thinking block",
                )


def _line(uuid: str, parent: str | None, model: str, content: Any) -> Any:
    return {
        "type": "assistant",
        "uuid": uuid,
        "parentUuid": parent,
        "sessionId": "s1",
        "message": {"id": f"msg_{uuid}", "role": "assistant", "model": model, "content": content},
    }


def _user(uuid: str, parent: str | None, text: str) -> Any:
    return {
        "type": "user",
        "uuid": uuid,
        "parentUuid": parent,
        "sessionId": "s1",
        "message": {"role": "user", "content": text},
    }


_THINKING: Any = {"type": "thinking", "thinking": "Greet back.", "signature": "EqQBCkYIBx..."}
_BAD: Any = [
    _user("u1", None, "Hi"),
    _line("a1", "u1", "claude-opus-4-5", [_THINKING]),
    _line("a2", "a1", "claude-opus-4-5", [{"type": "text", "text": "Hello!"}]),
    _user("u2", "a2", "Bye"),
    _line("a3", "u2", "claude-sonnet-4-5", [{"type": "text", "text": "Goodbye!"}]),
]

RULE = Rule(
    code="HN118",
    name="foreign-thinking-signature",
    summary="a signed thinking block made by another model than the session's latest "
    "(profiles: anthropic-thinking, portable)",
    severity=Severity.ERROR,
    applicability=Applicability.UNSAFE,
    doc=__doc__ or "",
    check_outline=check,
    applies=lambda profile: profile.model_bound_thinking and not profile.rejects_reasoning,
    fix=remove_reported,
    examples=(
        Example(
            bad=_BAD,
            good=[_BAD[0], {**_BAD[2], "parentUuid": "u1"}, *_BAD[3:]],
            format="claude-code",
            settings=Settings(profile="anthropic-thinking", unsafe_fixes=True),
            title="thinking from before a /model switch",
        ),
    ),
)
